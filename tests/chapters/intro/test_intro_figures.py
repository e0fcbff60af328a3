"""The introduction's headline figure (companion/chapters/intro/figures.py), on small synthetic runs
shaped like the stored ones: the spikes one by one (n_outliers per activation, point, N,
step constants) and the He_3 headline (projection, chance per setting and N)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion.chapters.intro import figures as intro
from companion.chapters.intro import summaries as intro_numbers
from companion.core.runs import Run, Runs

NS = (1024, 2048)


def _spikes() -> Runs:
    runs = []
    counts = {"shifted_tanh": {1024: (2, 2), 2048: (2, 3)}, "tanh": {1024: (2, 2), 2048: (2, 2)}}
    for act, by_N in counts.items():
        for N, per_seed in by_N.items():
            for seed, n in enumerate(per_seed):
                runs.append(Run(dict(N=N, alpha1=0.38, alpha2=0.45, activation=act, c1=1.0,
                                     c2=1.0), seed, dict(n_outliers=n, n_spikes_theory=4)))
    # the other point, and a run with other step constants: neither belongs to panel (a)
    runs.append(Run(dict(N=1024, alpha1=0.30, alpha2=0.38, activation="tanh", c1=1.0, c2=1.0),
                     0, dict(n_outliers=9)))
    runs.append(Run(dict(N=2048, alpha1=0.38, alpha2=0.45, activation="shifted_tanh", c1=2.0,
                         c2=1.0), 0, dict(n_outliers=9)))
    return Runs(runs)


def _projection() -> Runs:
    level = {("reused", 0.35): (0.1, 0.2), ("reused", 0.20): (0.06, 0.05),
             ("fresh", 0.35): (0.02, 0.01)}
    runs = []
    for (batch, a1), values in level.items():
        for N, v in zip(NS, values):
            for seed, dv in enumerate((-0.001, 0.001)):
                runs.append(Run(dict(N=N, batch=batch, alpha1=a1, alpha2=0.45, target="He_3",
                                     activation="tanh", m=4), seed,
                                dict(projection=v + dv, chance=4 / N)))
    return Runs(runs)


def test_spike_runs_keep_the_point_with_default_constants():
    runs = intro.spike_runs(_spikes())
    assert len(runs) == 8
    assert set(runs.unique("alpha1")) == {0.38}
    assert set(runs.unique("c1")) == {1.0}


def test_headline_draws_two_titled_panels_with_legends():
    fig = intro.headline(_spikes(), _projection())
    try:
        axes = fig.get_axes()
        assert len(axes) == 2
        assert all(ax.get_title() for ax in axes)
        assert all(ax.get_legend() is not None for ax in axes)
        a, b = axes
        # panel (a): the two limits as lines, 1 + Lambda = 4 and tanh's 1 + floor(3/2) = 2
        levels = sorted(line.get_ydata()[0] for line in a.get_lines()
                        if len(set(line.get_ydata())) == 1 and line.get_linestyle() != "None")
        assert 2 in levels and 4 in levels
        assert a.get_xscale() == "log" and b.get_yscale() == "log"
        # every simulated series has its own marker, in each panel
        for ax, n_series in ((a, 2), (b, 3)):
            markers = [c.lines[0].get_marker() for c in ax.containers]
            assert len(markers) == n_series and len(set(markers)) == n_series
    finally:
        plt.close(fig)


@pytest.mark.parametrize("which", ["spikes", "projection", "both"])
def test_headline_says_when_the_stored_runs_are_absent(which):
    spikes = None if which in ("spikes", "both") else _spikes()
    projection = None if which in ("projection", "both") else _projection()
    fig = intro.headline(spikes, projection)
    try:
        texts = [t.get_text() for ax in fig.get_axes() for t in ax.texts]
        expected = 2 if which == "both" else 1
        assert sum("stored" in t for t in texts) == expected
    finally:
        plt.close(fig)


def test_headline_numbers_are_the_means_at_the_ends_of_the_N_range():
    out = intro_numbers.headline(_spikes(), _projection()).as_dict()
    assert out["spikes_Ns"] == "1024, 2048"
    assert out["spikes_seeds"] == "2"
    assert out["spikes_first"] == "2" and out["spikes_last"] == "2.5"
    assert out["spikes_tanh"] == "2"
    # the ranges over the seeds (2, 2), (2, 3) and tanh's (2, 2) at the largest N
    assert out["spikes_first_range"] == "[2, 2]" and out["spikes_last_range"] == "[2, 3]"
    assert out["spikes_tanh_range"] == "[2, 2]"
    assert out["he3_reused_first"] == "0.1" and out["he3_reused"] == "0.2"
    assert out["he3_control"] == "0.05" and out["he3_fresh"] == "0.01"
    assert out["he3_chance"] == "0.00195"
    assert all(isinstance(v, str) for v in out.values())


def test_headline_numbers_read_na_without_stored_runs():
    out = intro_numbers.headline(None, None).as_dict()
    assert set(out.values()) == {"n/a"}
    assert intro_numbers.headline(_spikes(), None).he3_reused == "n/a"


def test_headline_draws_the_stored_runs_when_present():
    from companion.core import store
    projection = store.load("E7")
    if projection is None:
        pytest.skip("stored headline runs switched off or absent")
    fig = intro.headline(store.load("E11"), projection)
    try:
        b = fig.get_axes()[1]
        assert len(b.get_legend().get_texts()) == 4      # three settings and chance
        assert np.all(np.isfinite(b.get_ylim()))
    finally:
        plt.close(fig)


def test_step_sizes_mark_the_knife_edge_of_the_headline_point():
    """(0.38, 0.45) is on no line, but its k = 4 term has exponent -0.03 (issue 19)."""
    out = intro_numbers.step_sizes()
    assert out.edge_k == "4" and out.edge_exponent == "-0.03" and out.knife_edge == "0.05"
    assert out.line_k == "3" and out.exponent_k3 == "+0.09"
