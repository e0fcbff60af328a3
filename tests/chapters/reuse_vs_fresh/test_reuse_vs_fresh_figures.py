"""Tests of companion.chapters.reuse_vs_fresh.figures: every figure function at a tiny size, alone
(as ``python -m companion reproduce`` calls it, with one argument), with stored runs to
overlay, with stored runs in the older format (no ``left``, ``learnable`` a bool), and
with the stored runs shipped with the package; and the printed tables."""

import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure

from companion.chapters.reuse_vs_fresh import experiments as rv
from companion.chapters.reuse_vs_fresh import figures as figures
from companion.core import store
from companion.core.runs import Run, Runs


@pytest.fixture(scope="module")
def tiny():
    headline = rv.HEADLINE.run(Ns=[40, 60], seeds=2)
    return {
        "first": rv.FIRST_DIRECTION.run(N=60, seeds=2),
        "headline": headline,
        "targets": rv.run_missing(rv.OTHER_TARGETS, headline, N=40, seeds=2),
        "ablation": rv.run_missing(rv.ACTIVATION_ABLATION, headline, N=60, seeds=2),
    }


def _as_stored(runs: Runs, old: bool = False) -> Runs:
    """The runs relabelled as stored paper-scale runs (twice the N); ``old``: in the format
    of the stored files before the recomputation (no ``left``, ``learnable`` a bool)."""
    out = []
    for r in runs:
        result = dict(r.result)
        if old:
            result.pop("left", None)
            if "learnable" in result:
                result["learnable"] = np.bool_(result["learnable"] == 1)
        out.append(Run({**r.params, "N": 2 * r.params["N"]}, r.seed, result))
    return Runs(out)


FIGURES = {"first": figures.first_direction, "headline": figures.headline_projection,
           "outlier": figures.headline_outlier, "targets": figures.other_targets,
           "ablation": figures.activation_ablation}
RUNS_OF = {"first": "first", "headline": "headline", "outlier": "headline",
           "targets": "targets", "ablation": "ablation"}


def _check(fig):
    assert isinstance(fig, Figure)
    axes = [ax for ax in fig.axes if ax.has_data()]
    assert axes and all(ax.get_title() for ax in fig.axes)       # every panel titled
    assert fig.legends or any(ax.get_legend() for ax in fig.axes)  # a legend somewhere
    matplotlib.pyplot.close(fig)


@pytest.mark.parametrize("name", list(FIGURES))
@pytest.mark.parametrize("stored", ["none", "new", "old"])
def test_figure_draws_alone_and_with_stored_runs(tiny, name, stored):
    runs = tiny[RUNS_OF[name]]
    if stored == "none":
        fig = FIGURES[name](runs)                 # as reproduce calls it
    else:
        fig = FIGURES[name](runs, _as_stored(runs, old=stored == "old"))
        labels = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
        labels += [t.get_text() for ax in fig.axes if ax.get_legend()
                   for t in ax.get_legend().get_texts()]
        assert any("stored" in lab for lab in labels)
    _check(fig)


def test_outlier_figure_shows_left_vectors_only_where_stored(tiny):
    runs = tiny["headline"]
    fig = figures.headline_outlier(_as_stored(runs, old=True))
    assert not fig.axes[1].has_data()
    assert any("not stored" in t.get_text() for t in fig.axes[1].texts)
    matplotlib.pyplot.close(fig)
    fig = figures.headline_outlier(runs, _as_stored(runs, old=True))
    assert fig.axes[1].has_data()
    matplotlib.pyplot.close(fig)


@pytest.mark.parametrize("eid, name", [("E6", "first"), ("E7", "headline"), ("E7", "outlier"),
                                       ("E8", "targets"), ("E9", "ablation")])
def test_figures_draw_the_shipped_stored_runs(tiny, eid, name):
    stored = store.load(eid)
    if stored is None:
        pytest.skip("no stored runs here (switched off or not shipped)")
    _check(FIGURES[name](stored))
    _check(FIGURES[name](tiny[RUNS_OF[name]], stored))


def test_tables_fit_the_column_and_say_na_for_relu(tiny):
    links = {"He_1": "he1", "He_3": "he3"}
    tables = [
        figures.table_moments(links, {"tanh": "tanh", "relu": "relu"}),
        figures.table_learnability(links, rv.HEADLINE_SETTINGS, ["tanh", "relu"]),
        figures.table_first_direction(tiny["first"]),
        figures.table_projection(tiny["headline"]),
        figures.table_projection(tiny["targets"], by=("target", "batch")),
        figures.table_targets(),
        figures.table_ablation(tiny["ablation"]),
    ]
    assert all(len(line) <= 80 for t in tables for line in t.splitlines())
    moments, learn = tables[0], tables[1]
    assert moments.splitlines()[-1].split()[-3:] == ["n/a"] * 3     # ReLU's kappa
    he3_relu = [ln for ln in learn.splitlines() if ln.startswith("He_3") and "relu" in ln][0]
    assert he3_relu.split()[2:] == ["n/a", "n/a", "-"]
    relu = [ln for ln in tables[-1].splitlines() if ln.startswith("relu")]
    assert relu[0].split()[2] == "n/a" and relu[0].split()[4] == "n/a"   # kappa, prediction
    assert "learned" in tables[3] and "-0.0" not in "".join(tables)
