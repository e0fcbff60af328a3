"""The legend of the learned-directions figure (figures.spike_content) is readable at the book's
width and on a phone: seven entries in the book's legend size, below every panel (issue 31: it
had eight entries in 6-point type, the two points told apart by marker size alone; issue 42
added the limit law's mark)."""

import matplotlib
import matplotlib.pyplot as plt
import pytest

from companion.chapters.learned_directions.figures import spike_content
from companion.core import store
from companion.presentation import plotting


@pytest.fixture(scope="module")
def figure():
    runs = store.load("E12")
    if runs is None:
        pytest.skip("the stored runs are switched off")
    with matplotlib.rc_context():
        plotting.set_book_style()
        size = matplotlib.rcParams["legend.fontsize"]
        fig = spike_content(runs)
        fig.canvas.draw()
        yield fig, size
        plt.close(fig)


def test_one_legend_of_seven_entries_in_the_books_size(figure):
    fig, size = figure
    (legend,) = fig.legends
    texts = [t.get_text() for t in legend.get_texts()]
    assert len(texts) == 7 and texts[:4] == ["reused batch", "its null run", "fresh batch",
                                             "its null run"]
    assert "left, larger" in texts[4] and "right, smaller" in texts[5]
    assert texts[6] == "predicted (limit law)"
    assert all(t.get_fontsize() == size >= 10 for t in legend.get_texts())


def test_the_legend_sits_below_the_panels_inside_the_figure(figure):
    fig, _ = figure
    renderer = fig.canvas.get_renderer()
    box = fig.legends[0].get_window_extent(renderer)
    lowest = min(ax.get_tightbbox(renderer).y0 for ax in fig.axes)
    assert box.y1 <= lowest + 1 and box.x0 >= 0 and box.x1 <= fig.bbox.x1
