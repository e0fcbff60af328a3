"""The one shape of results (companion/core/runs.py): selection, grouping, stacking, intervals."""

import numpy as np
import pytest

import companion as cp
from companion.core.experiment import run_units
from companion.core.runs import Run, Runs, bootstrap_interval


def _runs():
    return Runs(Run({"N": N, "alpha1": a1, "batch": b}, s, {"x": N * a1 + s, "v": np.ones(2) * s})
                for N in (100, 200) for a1 in (0.2, 0.35) for b in ("reused", "fresh")
                for s in (0, 1, 2))


def test_where_groups_unique_values():
    runs = _runs()
    assert len(runs) == 24
    sel = runs.where(N=200, alpha1=0.35, batch="reused")
    assert len(sel) == 3 and sel.values("x").tolist() == [70.0, 71.0, 72.0]
    assert len(runs.where(alpha1=0.35 + 1e-12)) == 12           # floats compared to 1e-9
    assert len(runs.where(seed=1)) == 8
    assert len(runs.where(missing=1)) == 0
    assert runs.unique("batch") == ["reused", "fresh"] and runs.unique("seed") == [0, 1, 2]
    groups = runs.groups("N", "batch")
    assert list(groups) == [(100, "reused"), (100, "fresh"), (200, "reused"), (200, "fresh")]
    assert all(len(g) == 6 for g in groups.values())
    assert runs.where(N=100).values("v").shape == (12, 2)
    assert sel.mean("x") == pytest.approx(71.0)
    assert sel[0]["N"] == 200 and sel[0]["seed"] == 0
    with pytest.raises(KeyError, match="neither a result"):
        sel[0]["nothing"]
    with pytest.raises(ValueError, match="no runs"):
        runs.where(N=5).values("x")


def test_bootstrap_interval_brackets_the_mean_and_is_seeded():
    v = np.array([1.0, 2.0, 3.0, 4.0, 10.0])
    lo, hi = bootstrap_interval(v)
    assert lo < v.mean() < hi and lo >= 1.0 and hi <= 10.0
    assert bootstrap_interval(v) == bootstrap_interval(v)      # same seed, same interval
    assert bootstrap_interval([2.5]) == (2.5, 2.5)
    with pytest.raises(ValueError, match="level"):
        bootstrap_interval(v, level=1.5)


def test_run_units_calls_the_unit_with_params_and_seed():
    runs = run_units(lambda x, seed: {"y": x + seed}, [({"x": 1}, 0), ({"x": 1}, 5)])
    assert runs.values("y").tolist() == [1, 6] and runs[1].params == {"x": 1}


def test_run_units_keeps_the_order_of_its_units_and_each_result():
    # computed ordered by size and seed (runs of one seed share their draws), returned as given
    units = [({"N": 24, "alpha1": a1}, seed) for a1 in (0.1, 0.3) for seed in (1, 0)]
    units.insert(1, ({"N": 16, "alpha1": 0.2}, 2))

    def unit(N, alpha1, seed):
        return {"W2": cp.run_two_steps(N=N, alpha1=alpha1, seed=seed).W2}

    runs = run_units(unit, units)
    assert [(r.params, r.seed) for r in runs] == units
    for r, (params, seed) in zip(runs, units):
        assert np.array_equal(r["W2"], unit(**params, seed=seed)["W2"])


def test_interval_of_a_mean_over_runs_is_the_t_interval():
    from scipy import stats

    sel = _runs().where(N=200, alpha1=0.35, batch="reused")      # x = 70, 71, 72
    low, high = sel.interval("x")
    half = stats.t.ppf(0.975, 2) * 1.0 / np.sqrt(3)              # s = 1 over 3 runs
    assert (float(low), float(high)) == pytest.approx((71 - half, 71 + half))
    lo_v, hi_v = sel.interval("v")                                # per entry; v = seed
    np.testing.assert_allclose(lo_v, 1 - half)
    np.testing.assert_allclose(hi_v, 1 + half)
    one = Runs([sel[0]])
    assert np.all(np.isnan(one.interval("x")))                    # one run: no spread
