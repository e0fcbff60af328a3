"""Tests of companion.chapters.two_steps.experiments (chapter "Two steps: a spiked spectrum";
book: dv-expansion, E3, E4, E5, E10). Small sizes (N <= 500): shapes, seeds, and science checks
that can fail."""

import numpy as np
import pytest

import companion as cp
from companion.chapters.two_steps import experiments as ex
from companion.core.expansion import leading_order_sizes


def test_fit_slopes_recovers_a_power_law():
    Ns = np.array([100, 200, 400, 800])
    sizes = np.stack([3.0 * Ns ** 0.25, 0.5 * Ns ** -0.4], axis=1)     # (len(Ns), 2)
    np.testing.assert_allclose(ex.fit_slopes(Ns, sizes), [0.25, -0.4], atol=1e-12)


def test_runs_shapes_and_reproducible():
    a = ex.two_step_runs([(0.2, 0.2), (0.35, 0.45)], [100, 200], seeds=[0, 1], K=3,
                         reference=True)
    b = ex.two_step_runs([(0.2, 0.2), (0.35, 0.45)], [100, 200], seeds=2, K=3,
                         reference=True)
    assert len(a) == 8 and a.unique("N") == [100, 200]
    np.testing.assert_array_equal(a.values("terms_2"), b.values("terms_2"))  # seeds 2 == [0, 1]
    Ns, vals = ex.sizes_by_N(a, 0.35, 0.45, "terms_0")
    assert Ns.tolist() == [100, 200] and vals.shape == (2, 2)
    assert np.all(np.isfinite(a.values("rel_diff")))
    # the experiment specs run at the chapter's own sizes
    runs = ex.PHASE_DIAGRAM.run(Ns=[60, 80], seeds=1)
    assert len(runs) == len(ex.E3_POINTS) * 2
    assert "rel_diff" in runs.where(alpha1=0.2, alpha2=0.2)[0].result
    assert "rel_diff" not in runs.where(alpha1=0.4, alpha2=0.15)[0].result


def test_runs_in_float32_as_the_chapter_runs():
    """``dtype="float32"`` reaches the runs (the chapter's exercises use it) and moves the
    terms by float32's rounding only."""
    kw = dict(pairs=[(0.35, 0.45)], Ns=[200], seeds=1, K=3, reference=True)
    single, double = ex.two_step_runs(**kw, dtype="float32"), ex.two_step_runs(**kw)
    assert single[0].params["dtype"] == "float32" and double[0].params["dtype"] == "float64"
    for key in ("terms_0", "terms_1", "terms_2", "diff"):
        a, b = single.values(key), double.values(key)
        assert not np.array_equal(a, b)
        np.testing.assert_allclose(a, b, rtol=1e-4)


def test_local_slopes_with_welch_t_intervals():
    Ns = np.array([100, 200, 400])
    rng = np.random.default_rng(0)
    values = 3.0 * Ns[:, None] ** 0.25 * np.exp(0.05 * rng.standard_normal((3, 6)))
    sl = ex.local_slopes(Ns, values)
    assert sl["N_low"].tolist() == [100, 200] and sl["N_high"].tolist() == [200, 400]
    assert np.all(np.abs(sl["slope"] - 0.25) < 0.1)
    assert np.all(sl["low"] < sl["slope"]) and np.all(sl["slope"] < sl["high"])
    # the interval is the Welch t interval of the difference of mean logs, over log 2
    from scipy import stats
    a, b = np.log(values[0]), np.log(values[1])
    ci = stats.ttest_ind(b, a, equal_var=False).confidence_interval(0.95)
    np.testing.assert_allclose([sl["low"][0], sl["high"][0]],
                               np.array([ci.low, ci.high]) / np.log(2), rtol=1e-10)
    exact = ex.local_slopes(Ns, np.repeat(Ns[:, None] ** 0.5, 3, axis=1))
    np.testing.assert_allclose(exact["slope"], 0.5)
    np.testing.assert_allclose(exact["high"] - exact["low"], 0.0, atol=1e-12)


def test_first_spike_grows_and_even_term_beats_odd_floor():
    """The exponent check at small N: T_0 grows like N^max(alpha) (slope within 0.15 of
    0.45), and with tanh at (0.35, 0.45) the present k = 2 term is larger than the absent
    k = 1 and k = 3 terms and grows faster than them."""
    Ns = [125, 250, 500]
    res = ex.two_step_runs([(0.35, 0.45)], Ns, seeds=2)
    slopes = [ex.fit_slopes(Ns, ex.sizes_by_N(res, 0.35, 0.45, f"terms_{k}")[1]).mean()
              for k in range(4)]
    assert abs(slopes[0] - 0.45) < 0.15
    T = [res.where(N=500).mean(f"terms_{k}") for k in range(4)]
    assert T[2] > 2 * max(T[1], T[3])
    assert slopes[2] > max(slopes[1], slopes[3]) + 0.1


def test_shifted_tanh_has_the_odd_term_that_tanh_lacks():
    """At (0.2, 0.45), Lambda = 1: the k = 1 term grows for tanh(z + 1/2) and not for tanh."""
    Ns = [200, 400, 800]
    t = ex.two_step_runs([(0.2, 0.45)], Ns, K=2, activation="tanh")
    s = ex.two_step_runs([(0.2, 0.45)], Ns, K=2, activation="shifted_tanh")
    assert s.values("terms_1")[-1] > 1.5 * t.values("terms_1")[-1]
    assert ex.fit_slopes(Ns, s.values("terms_1")) > 0.1 > ex.fit_slopes(Ns, t.values("terms_1"))


def test_two_steps_act_as_one_only_with_a_reused_batch():
    """At (0.2, 0.2): reused relative distance small and shrinking, fresh near 1/2."""
    kw = dict(K=2, reference=True, seeds=2)
    r = ex.two_step_runs([(0.2, 0.2)], [125, 500], batch="reused", **kw)
    f = ex.two_step_runs([(0.2, 0.2)], [125, 500], batch="fresh", **kw)
    rel_r = ex.sizes_by_N(r, 0.2, 0.2, "rel_diff")[1].mean(axis=1)
    rel_f = ex.sizes_by_N(f, 0.2, 0.2, "rel_diff", "fresh")[1].mean(axis=1)
    assert rel_r[-1] < rel_r[0]
    assert rel_r[-1] < 0.2
    assert abs(rel_f[-1] - 0.5) < 0.1
    assert ex.fresh_relative_difference(0.2, 0.2, 500) == pytest.approx(0.5)


def test_leading_order_matches_first_spike_for_a_fresh_batch():
    """The leading-order size of the first spike is close to the measured one for a fresh
    batch at a small step (saturation is weak), within 20%."""
    run = cp.run_two_steps(N=400, alpha1=0.1, alpha2=0.1, batch="fresh", seed=3)
    lead = leading_order_sizes(run, 3)
    meas = cp.term_sizes(run.W2 - run.W0, run.a, 3)
    assert lead[0] == pytest.approx(meas[0], rel=0.2)
    assert lead[1] < 1e-8 * lead[0]        # tanh: m_2 = 0, the k = 1 term is absent


def test_bbp_position():
    """theta + 1/theta above the threshold, the bulk edge 2 below it (N = d). (The separate
    strengths of a planted matrix are tested in tests/core/test_spikes.py.)"""
    assert ex.bbp_position(2.0) == pytest.approx(2.5)
    assert ex.bbp_position(0.5) == pytest.approx(2.0)


def test_spectrum_with_null_shapes_and_first_spike():
    spec = ex.spectrum_with_null(300, 0.35, 0.45, seed=0, K=4, top=5, target="he1")
    assert spec["s"].shape == (300,) and "s_null" not in spec
    assert spec["left"].shape == spec["left_null"].shape == (5, 4)
    assert spec["cos2"].shape == (5, 1)
    # the first spike has its left vector on a, with both labels
    assert spec["left"][0, 0] > 0.9 and spec["left_null"][0, 0] > 0.9
    # its right vector carries beta* only when the labels depend on x
    assert spec["cos2"][0, 0] > 0.2 > 20 * spec["cos2_null"][0, 0]
    assert spec["s"][0] == pytest.approx(spec["s_top"][0], rel=1e-8)


def test_bad_arguments():
    with pytest.raises(ValueError, match="seeds"):
        ex.two_step_runs([(0.2, 0.2)], [100], seeds=[-1])
    with pytest.raises(ValueError, match="alpha1"):
        ex.two_step_runs([(0.6, 0.2)], [100])
    with pytest.raises(ValueError, match="N must be a positive integer"):
        ex.two_step_runs([(0.2, 0.2)], [0])
    with pytest.raises(ValueError, match="batch"):
        ex.two_step_runs([(0.2, 0.2)], [100], batch="new")



def test_spike_emergence_run_at_a_tiny_size():
    """E11 unit: with tanh(z + 1/2) at (0.38, 0.45) the k = 1 term is strong (strength above
    the BBP threshold 1 already at N = 400) and makes a spike on a^{o2}; tanh has no k = 1
    term (strength at the noise floor) and fewer spikes; the theory counts 4 and 2."""
    st = ex.spike_emergence_run(400, 0.38, 0.45, "shifted_tanh", seed=0, K=4, top=6)
    th = ex.spike_emergence_run(400, 0.38, 0.45, "tanh", seed=0, K=4, top=6)
    assert st["n_spikes_theory"] == 4 and th["n_spikes_theory"] == 2 and st["lambda"] == 3
    assert st["strength_k1"] > 1.2 > 0.8 > th["strength_k1"]
    assert st["s"].shape == st["weight"].shape == st["s_null"].shape == (6,)
    assert st["order"][1] == 1 and st["weight"][1] > 0.25        # second spike: a^{o2}
    # at this size the k = 1 spike sits just above its own bulk but not yet above the null
    # run's edge (the null bulk is a little wider): counted only the first spike, like tanh
    assert st["s"][1] > st["edge_self"] and st["s"][1] > th["s"][1] + 0.05
    assert st["n_outliers"] >= 1 and th["n_outliers"] == 1
    assert 1.8 < st["edge_null"] < 2.3 and 1.8 < st["edge_self"] < 2.3
    again = ex.spike_emergence_run(400, 0.38, 0.45, "shifted_tanh", seed=0, K=4, top=6)
    np.testing.assert_array_equal(st["s"], again["s"])


def test_a_float32_sweep_keeps_every_size_and_a_precision_check_is_its_twin():
    from companion.core.experiment import precision, precision_agreement, sweep_runs
    from companion.core.runs import Run, Runs

    assert precision({"float32_from": 0}, 128) == {"dtype": "float32"}
    assert precision({"float32_from": 8192}, 4096) == {} == precision({}, 10 ** 6)
    p = dict(alpha1=0.35, alpha2=0.45)
    # the chapters' own runs: every size in float32, no float64 twin, all part of the sweep
    own = Runs(Run(dict(p, N=N, dtype="float32"), s, {"x": 1.0}) for N in (128, 256)
               for s in (0, 1))
    assert len(sweep_runs(own)) == 4
    assert precision_agreement(own, ["x"]) == {"x": None}
    # the paper scale: float64 below, float32 at the largest, and a float32 repeat at 128
    paper = Runs([Run(dict(p, N=128), 0, {"x": 1.0}), Run(dict(p, N=256, dtype="float32"), 0,
                                                          {"x": 2.0}),
                  Run(dict(p, N=128, dtype="float32"), 0, {"x": 1.0 + 1e-7})])
    kept = sweep_runs(paper)
    assert len(kept) == 2 and sorted(kept.unique("N")) == [128, 256]
    assert precision_agreement(paper, ["x"])["x"] == pytest.approx(1e-7, rel=1e-6)


def test_the_chapters_runs_are_float32_and_the_fresh_batch_alone_can_be_run():
    for experiment in (ex.PHASE_DIAGRAM, ex.EXPONENT_CHECK, ex.ONE_STEP_COLLAPSE, ex.SPECTRUM):
        assert all(params.get("dtype") == "float32" for params, _ in experiment.units("small"))
        paper = experiment.units("paper")    # float64, but the largest size and its checks
        twins = {(str(sorted(p.items())), s) for p, s in paper if "dtype" not in p}
        assert all("dtype" not in p or p["N"] >= 8192
                   or (str(sorted((k, v) for k, v in p.items() if k != "dtype")), s) in twins
                   for p, s in paper)
    fresh = ex.ONE_STEP_COLLAPSE.run(Ns=[64], seeds=1, batches=["fresh"])
    assert fresh.unique("batch") == ["fresh"] and len(fresh) == len(ex.E5_PAIRS)
