"""Tests of companion.chapters.finite_size.figures and .finite_size_tables: every figure of the
chapter "Finite size, honestly" draws from tiny runs, with a title on every panel and the
legend below the panels (off the data); every table fits the page's code box (76
characters); the spread figure draws with and without the stored paper-scale runs."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion.chapters.finite_size import experiments as ex
from companion.chapters.finite_size import figures as figures
from companion.chapters.finite_size import tables as tables
from companion.core import store
from companion.core.runs import Run, Runs

N = 120


def _check(fig, panels: int) -> None:
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == panels
    assert all(ax.get_title() for ax in axes), "every panel has a title"
    assert all(ax.get_legend() is None for ax in axes), "no legend on the data"
    assert fig.legends, "one legend, below the panels"
    plt.close(fig)


def _narrow(text: str) -> None:
    wide = [line for line in text.splitlines() if len(line) > 76]   # the page cuts at 76
    assert not wide, wide


@pytest.fixture(scope="module")
def pre():
    return ex.PREACTIVATION.run(Ns=[N // 2, N], seeds=2)


def test_scales_figure_and_tables(pre):
    _check(figures.scales(pre, N), 3)
    _narrow(tables.scale_table([0.2, 0.35, 0.45], [500, 1000, 8192]))
    _narrow(tables.preactivation_table(pre))
    table = tables.growth_table(ex.spike_growth_table([(0.35, 0.45), (0.40, 0.25)]), 1000)
    _narrow(table)
    assert "never (e = 0)" in table and "1e9" in table


def test_outliers_figure_and_table():
    counts = ex.OUTLIER_COUNTS.run(N=N, seeds=2)
    _check(figures.outliers(counts), 3)
    table = tables.outlier_table(counts)
    _narrow(table)
    assert "census" in table


def test_spread_figure_with_and_without_stored_runs():
    runs = ex.HEADLINE_SPREAD.run(Ns=[N // 2, N], seeds=2)
    _check(figures.spread(runs), 2)
    stored = store.load("E7")
    if stored is None:                            # COMPANION_PAPER_DATA=off
        fake = Runs(Run(dict(r.params, N=4 * r.params["N"]), r.seed, r.result) for r in runs)
        stored = fake
    _check(figures.spread(runs, stored), 3)
    _narrow(tables.spread_table(runs))
    order = ex.headline_orderings(runs, ms=range(1, 4))
    assert set(order) == {"fresh", "lambda_small", "lambda_large", "growth"}
    assert all(v.shape == (3,) and np.all((0 <= v) & (v <= 1)) for v in order.values())


def test_convergence_figure_and_table():
    runs = ex.CONVERGENCE.run(Ns=[N // 2, N], seeds=2)
    rates = ex.convergence_rates(runs)
    _check(figures.convergence(runs, rates), 2)
    _narrow(tables.convergence_table(runs, rates))


def test_blowup_figure_and_table():
    runs = ex.BLOWUP.run(Ns=[N // 2, N], seeds=[0])
    _check(figures.blowup(runs), 1)
    _narrow(tables.blowup_table(runs))


def test_sci():
    assert tables.sci(4.6e6) == "4.6 × 10⁶"
    assert tables.sci(4.6e6, prose=False) == "4.6e6"
    assert tables.sci(9.97e6) == "1 × 10⁷"
    assert tables.sci(1234) == "1234"
    assert tables.sci(float("inf")) == "inf"


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
    empty = figures.census_calibration(None)
    assert "stored" in empty.axes[0].texts[0].get_text()
    plt.close(empty)
