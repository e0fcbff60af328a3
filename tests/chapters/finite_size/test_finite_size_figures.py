"""Tests of companion.chapters.finite_size.figures and .tables: every figure of the chapter
"Finite size, honestly" draws from tiny runs, with a title on every panel and the legend
below the panels (off the data), and reads on a phone (no text under 8 CSS pixels when
the figure is shown 342 pixels wide, as the book shows it on a phone 390 pixels wide);
every table fits the page's code box (76 characters) and writes its numbers as a reader
does (10⁵, never 1e5); the spread figure draws with and without the stored paper-scale
runs."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion.chapters.finite_size import experiments as ex
from companion.chapters.finite_size import figures as figures
from companion.chapters.finite_size import tables as tables
from companion.core import store
from companion.core.runs import Run, Runs
from companion.presentation.figures import PHONE_TEXT, smallest_text

N = 120


def _check(fig, panels: int) -> None:
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == panels
    assert all(ax.get_title() for ax in axes), "every panel has a title"
    assert all(ax.get_legend() is None for ax in axes), "no legend on the data"
    assert fig.legends, "one legend, below the panels"
    px = smallest_text(fig)
    assert px >= PHONE_TEXT, f"the smallest text shows {px:.1f} px on a phone"
    plt.close(fig)


#: a number in a program's notation (1e5, 4.6e+06, 1e-07)
PROGRAM_NOTATION = re.compile(r"\b\d+(\.\d+)?e[+-]?\d+\b")


def _narrow(text: str) -> None:
    wide = [line for line in text.splitlines() if len(line) > 76]   # the page cuts at 76
    assert not wide, wide
    assert not PROGRAM_NOTATION.search(text), PROGRAM_NOTATION.search(text).group(0)


@pytest.fixture(scope="module")
def pre():
    return ex.PREACTIVATION.run(Ns=[N // 2, N], seeds=2)


def test_scales_figure_and_tables(pre):
    _check(figures.scales(pre), 2)
    scale = tables.scale_table([0.2, 0.35, 0.45], [500, 1000, 8192])
    _narrow(scale)
    assert "4.6 × 10⁶" in scale and "10²⁰" in scale        # N at which N^(a1 - 1/2) = 0.1
    _narrow(tables.preactivation_table(pre))
    table = tables.growth_table(ex.spike_growth_table([(0.35, 0.45), (0.40, 0.25)]), 1000)
    _narrow(table)
    assert "never (e = 0)" in table and "10⁹" in table


def test_outliers_figure_and_table():
    counts = ex.OUTLIER_COUNTS.run(N=N, seeds=2)
    _check(figures.outliers(counts), 3)
    table = tables.outlier_table(counts)
    _narrow(table)
    assert "census" in table


def test_spread_figure_with_and_without_stored_runs():
    runs = ex.HEADLINE_SPREAD.run(Ns=[N // 2, N], seeds=2)
    _check(figures.spread(runs), 1)
    stored = store.load("E7")
    if stored is None:                            # COMPANION_PAPER_DATA=off
        fake = Runs(Run(dict(r.params, N=4 * r.params["N"]), r.seed, r.result) for r in runs)
        stored = fake
    _check(figures.spread(runs, stored), 2)
    table = tables.spread_table(runs)
    _narrow(table)
    assert "95% t interval" in table
    order = ex.headline_orderings(runs, ms=range(1, 4))
    assert set(order) == {"fresh", "lambda_small", "lambda_large", "growth"}
    assert all(v.shape == (3,) and np.all((0 <= v) & (v <= 1)) for v in order.values())


def test_convergence_figure_and_table():
    runs = ex.CONVERGENCE.run(Ns=[N // 2, N], seeds=2)
    rates = ex.convergence_rates(runs)
    _check(figures.convergence(runs, rates), 2)
    table = tables.convergence_table(runs, rates)
    _narrow(table)
    assert "95% t interval" in table


def test_blowup_figure_and_table():
    runs = ex.BLOWUP.run(Ns=[N // 2, N], seeds=[0])
    _check(figures.blowup(runs), 1)
    _narrow(tables.blowup_table(runs))


def test_census_calibration_figure_from_tiny_planted_runs():
    """Two panels (detection against strength; the half point against N) with the BBP
    values drawn; without stored runs the figure says so."""
    from companion.chapters.finite_size import calibration as cal

    runs = cal.CALIBRATION.run("small", Ns=[64, 96], seeds=2)
    fig = figures.census_calibration(runs)
    left = fig.axes[0]
    assert any(abs(line.get_xdata()[0] - 1.0) < 0.1 for line in left.lines
               if line.get_linestyle() == ":")            # BBP edge / 2 near 1
    _check(fig, 2)
    table = tables.calibration_table(runs)
    _narrow(table)
    assert "exact 95%" in table and "∞" in table      # two seeds decide no end
    empty = figures.census_calibration(None)
    assert "stored" in empty.axes[0].texts[0].get_text()
    plt.close(empty)
