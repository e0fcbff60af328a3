"""Tests of companion.chapters.one_step.figures: each figure function returns a figure with the
expected panels and series at a tiny size, with and without stored paper-scale runs (the
stored runs are stand-ins at another N, so the tests do not depend on the data files, plus
the real stored runs where present), titled panels and a legend off the data, and text that
a phone shows at 8 CSS pixels or more."""

import matplotlib
import matplotlib.pyplot as plt
import pytest

from companion.chapters.one_step import experiments as ex
from companion.chapters.one_step import figures as figures
from companion.core import store
from companion.presentation.figures import PHONE_COLUMN, PHONE_TEXT, smallest_text


@pytest.fixture(scope="module")
def tiny():
    etas = [0.0, 1.0, 2.0, 3.0]
    return {
        "rank_one": ex.RANK_ONE.run(Ns=[40, 80], seeds=2),
        "spectrum": ex.SPECTRUM.run(N=60, eta=3.0, seeds=1),
        "transition": ex.TRANSITION.run(N=60, etas=etas, seeds=2),
        "transition_other_N": ex.TRANSITION.run(N=90, etas=etas, seeds=2),
        "rect": (ex.TRANSITION.run(N=30, d=60, n=60, etas=etas, seeds=2)
                 + ex.TRANSITION.run(N=60, d=30, n=30, etas=etas, seeds=2)),
        "growth": ex.GROWTH.run(Ns=[40, 80], seeds=2),
        "growth_other_N": ex.GROWTH.run(Ns=[100, 120], seeds=2),
        "directions": ex.DIRECTIONS.run(Ns=[40, 80], seeds=2),
    }


def _check(fig, n_axes):
    """Panels titled, a legend outside the panels, markers (errorbar containers) drawn."""
    assert isinstance(fig, matplotlib.figure.Figure)
    axes = fig.get_axes()
    assert len(axes) == n_axes
    assert all(ax.get_title() for ax in axes), [ax.get_title() for ax in axes]
    assert fig.legends and not any(ax.get_legend() for ax in axes)
    return axes


def _hollow_series(ax) -> int:
    """Number of errorbar series drawn with open markers (the stored runs)."""
    return sum(1 for c in ax.containers if hasattr(c, "lines") and c.lines[0] is not None
               and c.lines[0].get_markerfacecolor() == "none")


def test_rank_one(tiny):
    ax, = _check(figures.rank_one(tiny["rank_one"]), 1)
    assert len(ax.containers) == 3                  # ||G||, its rank-one part, ||R||
    assert len(ax.get_lines()) >= 2                 # the limit and the slope -1/2
    plt.close("all")


def test_spectra(tiny):
    axes = _check(figures.spectra(tiny["spectrum"]), 2)
    assert axes[0].get_title() == "$W_0$" and "W_1" in axes[1].get_title()
    labels = [line.get_label() for line in axes[1].get_lines()]
    assert "predicted outlier" in labels
    plt.close("all")


@pytest.mark.parametrize("with_stored", [False, True])
def test_transition(tiny, with_stored):
    stored = tiny["transition_other_N"] if with_stored else None
    ax1, ax2 = _check(figures.transition(tiny["transition"], stored), 2)
    per_set = (1, 2)                                  # s1; <v1, u1>^2 and cos^2
    sets = 2 if with_stored else 1
    assert (len(ax1.containers), len(ax2.containers)) == tuple(sets * n for n in per_set)
    assert _hollow_series(ax1) == (1 if with_stored else 0)
    assert _hollow_series(ax2) == (2 if with_stored else 0)
    text = " ".join(t.get_text() for t in fig_legend_texts(ax1.figure))
    assert "N = 60" in text and (("N = 90" in text) == with_stored)
    plt.close("all")


def fig_legend_texts(fig):
    """The texts of the figure's legends, their titles included (which runs are which)."""
    return [t for leg in fig.legends for t in [leg.get_title(), *leg.get_texts()]]


def test_transition_rectangular(tiny):
    ax1, ax2 = _check(figures.transition_rectangular(tiny["rect"]), 2)
    assert len(ax1.containers) == 2 and len(ax2.containers) == 2    # phi = 1/2 and 2
    text = " ".join(t.get_text() for t in fig_legend_texts(ax1.figure))
    assert r"\phi = 0.5" in text and r"\phi = 2" in text
    plt.close("all")


@pytest.mark.parametrize("with_stored", [False, True])
def test_growth(tiny, with_stored):
    stored = tiny["growth_other_N"] if with_stored else None
    ax1, ax2 = _check(figures.growth(tiny["growth"], stored), 2)
    sets = 2 if with_stored else 1
    assert len(ax1.containers) == 4 * sets            # four exponents per set of runs
    assert len(ax2.containers) == 2 * sets            # <v1, u1>^2 and cos^2 per set
    assert _hollow_series(ax1) == (4 if with_stored else 0)
    plt.close("all")


def test_directions(tiny):
    ax1, ax2 = _check(figures.directions(tiny["directions"]), 2)
    assert len(ax1.containers) == 2                   # He_1 and He_3, separate targets
    assert len(ax2.containers) == 2                   # the two directions of He_1 + He_3
    assert "He" in ax2.get_title()
    plt.close("all")


@pytest.mark.parametrize("eid, draw", [("E1", figures.transition), ("E2", figures.growth)])
def test_stored_runs_alone_and_as_overlay(tiny, eid, draw):
    """reproduce calls the figure with one argument, on small or paper-scale runs; the
    chapter passes the stored runs as the overlay."""
    stored = store.load(eid)
    if stored is None:
        pytest.skip("no stored paper-scale runs here")
    _check(draw(stored), 2)
    small = tiny["transition"] if eid == "E1" else tiny["growth"]
    ax1, _ = _check(draw(small, stored), 2)
    assert _hollow_series(ax1) > 0
    plt.close("all")


DRAWN = [("rank_one", lambda t: figures.rank_one(t["rank_one"])),
         ("spectra", lambda t: figures.spectra(t["spectrum"])),
         ("transition", lambda t: figures.transition(t["transition"], t["transition_other_N"])),
         ("transition_rectangular", lambda t: figures.transition_rectangular(t["rect"])),
         ("growth", lambda t: figures.growth(t["growth"], t["growth_other_N"])),
         ("directions", lambda t: figures.directions(t["directions"]))]


@pytest.mark.parametrize("name, draw", DRAWN, ids=[n for n, _ in DRAWN])
def test_every_text_reads_on_a_phone(tiny, name, draw):
    """On a 390 px phone the figure shows PHONE_COLUMN CSS pixels wide; its smallest text,
    at that scale, is at least 8 CSS pixels (issue 41). The figures are WIDTH inches wide
    with their panels stacked, so that the book's smallest font sizes pass."""
    fig = draw(tiny)
    assert fig.get_size_inches()[0] == figures.WIDTH
    width = fig.get_tightbbox().width * 100
    assert width <= 1.1 * figures.WIDTH * 100, f"{name}: {width:.0f} px wide (legend too wide?)"
    assert smallest_text(fig) >= PHONE_TEXT, name
    assert all(len(ax.get_subplotspec().get_gridspec().get_geometry()) == 2
               and ax.get_subplotspec().get_gridspec().ncols == 1 for ax in fig.get_axes())
    plt.close("all")


def test_the_phone_measure_scales_a_wide_figure_down():
    """The measure itself: a 10 pt text on a figure twice the phone's column shows at half
    its size, 10 * 100/72 / 2 CSS pixels; on a narrow one at full size."""
    pad = 2 * matplotlib.rcParams["savefig.pad_inches"]
    for width, expected in ((2 * PHONE_COLUMN / 100 - pad, 10 * 100 / 72 / 2),
                            (2.0, 10 * 100 / 72)):
        fig = plt.figure(figsize=(width, 2))
        fig.text(0.0, 0.5, "x", fontsize=10)
        fig.text(1.0, 0.5, "y", fontsize=12, ha="right")
        assert smallest_text(fig) == pytest.approx(expected, rel=0.03)
        plt.close(fig)
