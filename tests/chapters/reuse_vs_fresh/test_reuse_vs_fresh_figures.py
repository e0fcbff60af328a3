"""Tests of companion.chapters.reuse_vs_fresh.figures: every figure function at a tiny size, alone
(as ``python -m companion reproduce`` calls it, with one argument), with stored runs to
overlay, with stored runs in the older format (no ``left``, ``learnable`` a bool), and
with the stored runs shipped with the package; every text of the chapter's figures legible
on a phone; and the printed tables."""

import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure

from companion.chapters.reuse_vs_fresh import experiments as rv
from companion.chapters.reuse_vs_fresh import figures as figures
from companion.core import store
from companion.core.runs import Run, Runs
from companion.presentation.figures import PHONE_TEXT, smallest_text


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


# -- legible on a phone ---------------------------------------------------------------------
#: the figures the chapter shows, drawn as it draws them (E17: the stored runs only)
SHOWN = {"first": "E6", "headline": "E7", "outlier": "E7", "targets": "E8",
         "ablation": "E9"}


@pytest.mark.parametrize("name", [*SHOWN, "readout"])
def test_every_text_of_a_chapter_figure_is_at_least_8_px_on_a_phone(tiny, name):
    """Issue 41: on a phone 390 px wide every text of a figure shows at 8 CSS px or more, by
    the book's one measure (``companion.presentation.figures.smallest_text``). The shipped stored runs
    are overlaid as the chapter overlays them: their legend entries are the longest."""
    eid = SHOWN.get(name, "E17")
    stored = store.load(eid)
    if stored is None:
        pytest.skip("no stored runs here (switched off or not shipped)")
    fig = (figures.readout_errors_by_N(stored) if name == "readout"
           else FIGURES[name](tiny[RUNS_OF[name]], stored))
    assert smallest_text(fig) >= PHONE_TEXT, (name, round(smallest_text(fig), 1))
    matplotlib.pyplot.close(fig)


def test_readable_raises_small_text_and_the_ticks():
    fig, ax = matplotlib.pyplot.subplots()
    ax.plot([1, 2], [1, 2], label="x")
    ax.set_title("t", fontsize=6)
    ax.legend(fontsize=7)
    figures._readable(fig)
    assert ax.title.get_fontsize() == figures.MIN_FONT_PT
    assert all(t.get_fontsize() >= figures.MIN_FONT_PT for t in ax.get_legend().get_texts())
    fig.canvas.draw()       # tick labels made at drawing time take the raised size too
    assert all(t.get_fontsize() >= figures.MIN_FONT_PT for t in ax.get_xticklabels())
    matplotlib.pyplot.close(fig)


# -- the tables with the stored runs --------------------------------------------------------
def test_tables_with_stored_runs_fit_the_column(tiny):
    stored = {eid: store.load(eid) for eid in ("E6", "E7", "E8", "E9", "E17")}
    if any(v is None for v in stored.values()):
        pytest.skip("no stored runs here (switched off or not shipped)")
    tables = [figures.table_first_direction(tiny["first"], stored["E6"]),
              figures.table_headline(tiny["headline"], stored["E7"]),
              figures.table_projection(tiny["targets"], by=("target", "batch"),
                                       columns=("predicted", "mean", "[min, max]"),
                                       stored=stored["E8"], decimals=3),
              figures.table_ablation(tiny["ablation"], stored["E9"]),
              figures.table_readout(stored["E17"])]
    assert all(len(line) <= 76 for t in tables for line in t.splitlines())
    assert "e-" not in "".join(tables) and "-0.000" not in "".join(tables)
    headline = tables[1].splitlines()
    # the chapter's sizes, then the stored ones (starred), each with chance 4/d
    assert [ln.split()[0] for ln in headline[2:]] == ["40", "60", "1024*", "2048*", "4096*",
                                                      "8192*"]
    assert headline[-1].split()[-1] == "0.0005"             # 4 / 8192 at 4 decimals
    readout = tables[-1]
    assert "He_1" in readout and "reused - fresh" in readout
    # the stored column is the stored runs' mean in the same group
    e8 = stored["E8"].where(target="bounded odd", batch="reused")
    row = [ln for ln in tables[2].splitlines() if ln.startswith("bounded odd")][0]
    assert row.split()[-1] == f"{e8.mean('projection'):.3f}"


def test_table_readout_without_stored_runs_says_so():
    assert "needs the stored" in figures.table_readout(None)
