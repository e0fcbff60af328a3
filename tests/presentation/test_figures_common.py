"""The figure helpers every figure module shares (companion/core/figures.py): one log axis
of sizes, one kind of error bar over seeds."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion.presentation.figures import log_axis, raise_small_text, range_bars


@pytest.mark.parametrize("close, ticks, labels", [
    (None, [500, 512, 1000, 2048], ["500", "512", "1000", "2048"]),
    ("blank", [500, 512, 1000, 2048], ["500", "", "1000", "2048"]),
    ("drop", [500, 512, 1000, 2048], ["512", "1000", "2048"]),
])
def test_log_axis_close_sizes(close, ticks, labels):
    fig, ax = plt.subplots()
    log_axis(ax, ticks, close=close, label="width")
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "width"
    assert [t.get_text() for t in ax.get_xticklabels()] == labels
    plt.close(fig)


def test_log_axis_kilo_and_pad():
    fig, ax = plt.subplots()
    log_axis(ax, [4096, 1024, 1000, 1024], kilo=True, pad=2)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1000", "1k", "4k"]
    assert ax.get_xlim() == pytest.approx((500, 8192))
    with pytest.raises(ValueError, match="close"):
        log_axis(ax, [1, 2], close="merge")
    plt.close(fig)


def test_range_bars_mean_geometric_and_ragged():
    mid, err = range_bars(np.array([[1.0, 2.0, 6.0], [4.0, 4.0, 4.0]]))
    assert mid == pytest.approx([3, 4]) and err == pytest.approx(np.array([[2, 0], [3, 0]]))
    mid, err = range_bars([[1.0, 100.0], [10.0]], center="geometric")
    assert mid == pytest.approx([10, 10]) and err == pytest.approx(np.array([[9, 0], [90, 0]]))
    with pytest.raises(ValueError, match="center"):
        range_bars([[1.0]], center="median")


def test_raise_small_text_raises_what_is_smaller_and_keeps_what_is_larger():
    fig, ax = plt.subplots()
    ax.plot([1, 2], [1, 2], label="x")
    ax.set_title("small", fontsize=6)
    ax.set_xlabel("large", fontsize=14)
    ax.tick_params(axis="y", labelsize=13)
    ax.legend(fontsize=7)
    assert raise_small_text(fig, 11) is fig
    assert ax.title.get_fontsize() == 11 and ax.xaxis.label.get_fontsize() == 14
    assert all(t.get_fontsize() == 11 for t in ax.get_legend().get_texts())
    fig.canvas.draw()       # tick labels made at drawing time take the raised size too
    assert all(t.get_fontsize() >= 11 for t in ax.get_xticklabels())
    assert all(t.get_fontsize() == 13 for t in ax.get_yticklabels())
    plt.close(fig)
