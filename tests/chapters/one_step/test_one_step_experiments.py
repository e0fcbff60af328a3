"""Tests of companion.chapters.one_step.experiments (chapter "One step: a rank-one spike";
book: dv-one-step-spike, E1, E2 and the chapter's own checks). Small sizes (N = 100 to 400): each
test runs in about a second."""

import numpy as np
import pytest

import companion as cp
from companion.chapters.one_step import experiments as ex
from companion.core import store
from companion.core.runs import Runs


def test_draw_matches_run_two_steps():
    """Same seed, same W0, a, batch: one step here is the first step of the two-step runs."""
    draw = ex.draw_one_step(120, d=80, n=100, target="he1", seed=7)
    run = cp.run_two_steps(120, d=80, n=100, alpha1=0.0, alpha2=0.0, c1=1.5, target="he1",
                           seed=7)
    np.testing.assert_array_equal(draw.W0, run.W0)
    np.testing.assert_array_equal(draw.X, run.X1)
    np.testing.assert_allclose(draw.W1(1.5), run.W1, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(draw.u1, run.X1.T @ run.y1 / 100)


def test_one_seeding_path(monkeypatch):
    """draw_one_step and run_two_steps both draw through network's draw_run (draw_one_step
    through the public one, run_two_steps, which has checked its arguments, through its
    unchecked body _draw_run), and no other module splits a seed into a run's streams by
    hand (edit one copy and "the same W0 in every chapter" would break silently)."""
    from pathlib import Path

    from companion.core import network

    assert ex.draw_run is network.draw_run
    calls, real = [], network._draw_run
    monkeypatch.setattr(network, "_draw_run", lambda *a, **k: calls.append(len(calls)) or real(*a, **k))
    ex.draw_one_step(40, seed=1)
    assert calls == [0]
    cp.run_two_steps(40, seed=1)
    assert calls == [0, 1]
    package = Path(cp.__file__).parent
    spawning = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                      if "default_rng(seed).spawn(" in p.read_text())
    assert spawning == ["core/network.py"]


def test_gradient_is_rank_one_plus_vanishing_remainder():
    dec = ex.RANK_ONE.run(Ns=[100, 400], seeds=2)
    assert isinstance(dec, Runs) and len(dec) == 4
    r = [g.mean("r_norm") for g in dec.groups("N").values()]
    # ||R|| ~ N^-1/2: a factor 4 in N roughly halves it (allow logs and noise)
    assert 0.35 < r[1] / r[0] < 0.7
    # the rank-one part carries almost all of G and is of order one:
    # m1 ||a|| ||u1|| -> 0.6057 sqrt(2) = 0.857 (seeds scatter by ~0.08 at these sizes)
    assert np.all(dec.values("r_norm") < 0.2 * dec.values("g_norm"))
    assert abs(dec.mean("spike_norm") - 0.857) < 0.15


def test_transition_unit_shapes_reproducible_and_bbp():
    a = ex.TRANSITION.run(N=300, etas=[0.0, 3.0], seeds=[0, 1])
    b = ex.TRANSITION.run(N=300, etas=[0.0, 3.0], seeds=[0, 1])
    assert [r.seed for r in a] == [0, 1]
    for key in ("s1", "cos2_beta", "overlap_u1", "overlap_a", "plugin_s1"):
        assert a.values(key).shape == (2, 2)
        np.testing.assert_array_equal(a.values(key), b.values(key))
    s1, cos2, th = a.values("s1"), a.values("cos2_beta"), a[0]
    # below threshold: at the bulk edge, no alignment beyond a few times 1/d
    assert np.all(np.abs(s1[:, 0] - 2.0) < 0.1)
    assert np.all(cos2[:, 0] < 20 / 300)
    # above: the spiked-rectangular prediction (theta ~ 2.57, s1 ~ 2.96, cos2 ~ 0.42)
    assert abs(s1[:, 1].mean() - th["theory_s1"][1]) < 0.25
    assert abs(cos2[:, 1].mean() - th["theory_cos2"][1]) < 0.1
    assert th["theory_cos2"][0] == 0.0
    assert np.isclose(th["eta_c"], 1 / (cp.get_activation("tanh").m(1) * np.sqrt(2)))


@pytest.mark.parametrize("dims", [dict(N=150, d=300, n=300), dict(N=300, d=150, n=150)])
def test_transition_unit_rectangular(dims):
    r = ex.TRANSITION.run(etas=[3.0], seeds=2, **dims)
    assert r[0].params["d"] == dims["d"] and r[0].params["n"] == dims["n"]
    phi = dims["N"] / dims["d"]
    assert np.isclose(r[0]["edge"], 1 + np.sqrt(phi))
    assert np.isclose(r[0]["eta_c"], phi ** 0.25 / (0.6057 * np.sqrt(2)), rtol=1e-3)
    assert abs(r.mean("s1")[0] - r[0]["theory_s1"][0]) < 0.25
    assert abs(r.mean("cos2_beta")[0] - r[0]["theory_cos2"][0]) < 0.12


def test_threshold_eta_is_where_the_theory_detaches():
    for dims in (dict(N=100), dict(N=50, d=100, n=100), dict(N=200, d=100, n=100)):
        eta_c = ex.threshold_eta("he1", "tanh", **dims)
        th = ex.transition_theory([0.99 * eta_c, 1.01 * eta_c], "he1", "tanh", **dims)
        assert th["cos2"][0] == 0.0 and th["cos2"][1] > 0.0


def test_growth_unit_spike_grows_and_alignment_saturates_at_u1():
    g = ex.GROWTH.run(Ns=[100, 400], alphas=[0.1, 0.4], seeds=2)
    assert g.values("s1").shape == (4, 2) and g.values("cos2_u1").shape == (4,)
    s1 = {n: runs.mean("s1") for (n,), runs in g.groups("N").items()}
    # at alpha = 0.4 the spike grows with N, roughly like N^0.4
    slope = np.log(s1[400][1] / s1[100][1]) / np.log(4)
    assert 0.25 < slope < 0.55
    # v1 -> u1 / ||u1||, so cos^2(v1, beta*) -> cos^2(u1, beta*) ~ 1/2, not 1
    big = g.where(N=400)
    assert np.all(big.values("overlap_u1")[:, 1] > 0.95)
    np.testing.assert_allclose(big.values("cos2_beta")[:, 1], big.values("cos2_u1"), atol=0.05)
    assert g[0]["saturation"] == pytest.approx(0.5)
    assert np.all(g.values("cos2_beta")[:, 1] < 0.7)


def test_growth_psi_changes_saturation():
    g = ex.GROWTH.run(Ns=[200], alphas=[0.4], psi=4, seeds=2)
    assert g[0].params["psi"] == 4
    assert g[0]["saturation"] == pytest.approx(0.8)
    assert abs(g.mean("cos2_beta")[0] - 0.8) < 0.08


def test_spectrum_one_outlier():
    s = ex.SPECTRUM.run(N=300, eta=3.0, seeds=1)[0]
    assert s["s_W0"].shape == (300,) and s["s_W1"].shape == (300,)
    assert cp.count_outliers(s["s_W0"], s["edge"], margin=0.02) == 0
    assert cp.count_outliers(s["s_W1"], s["edge"], margin=0.02) == 1
    assert abs(s["s_W1"][0] - s["theory_s1"]) < 0.3


def test_noise_level_he3():
    tgt = cp.make_target("he3", 100, np.random.default_rng(0))
    assert ex.noise_level(tgt, 0, 100, 100) == pytest.approx(7 / 100, rel=1e-6)
    mix = cp.make_target("he1+he3", 100, np.random.default_rng(0))
    # E[z3^2 y^2] = 7 + 1, n mu^2 + d E y^2 = 100 + 200
    assert ex.noise_level(mix, 1, 100, 100) == pytest.approx(8 / 300, rel=1e-6)


def test_directions_he3_invisible_he1_learned():
    out = ex.DIRECTIONS.run(Ns=[300], targets=["he1", "he1+he3"], seeds=3)
    he1, mix = out.where(target="he1"), out.where(target="he1+he3")
    assert he1.values("cos2").shape == (3, 1) and mix.values("cos2").shape == (3, 2)
    assert ex.direction_names("he1+he3") == ["he1", "he3"]
    assert he1.mean("cos2")[0] > 0.3
    assert mix.mean("cos2")[0] > 0.15
    # the He_3 direction stays at the O(1/d) noise level (7/d-ish, far below the He_1 one)
    assert mix.mean("cos2")[1] < 0.05
    assert mix[0]["theory_cos2"][1] < 0.02
    assert mix[0]["chance"] == pytest.approx(1 / 300)
    np.testing.assert_allclose(mix[0]["mu_star"], [1.0, 0.0], atol=1e-8)


@pytest.mark.parametrize("experiment, sizes, keys", [
    (ex.RANK_ONE, dict(Ns=[200], seeds=1), ("g_norm", "spike_norm", "r_norm")),
    (ex.DIRECTIONS, dict(Ns=[200], targets=["he1+he3"], seeds=1),
     ("cos2", "proj_top", "cos2_u1", "s1")),
    (ex.TRANSITION, dict(N=200, etas=[1.5, 3.0], seeds=1),
     ("s1", "cos2_beta", "overlap_u1", "overlap_a", "u1_norm")),
    (ex.GROWTH, dict(Ns=[200], alphas=[0.1, 0.4], seeds=1),
     ("s1", "cos2_beta", "overlap_u1", "cos2_u1"))])
def test_chapter_scale_runs_in_float32_as_float64(experiment, sizes, keys):
    """The chapter's own runs are float32 (the paper scale's are float64): the same numbers
    up to float32's rounding, returned as float64. (A step size given as a NumPy float64
    would promote the float32 draw back to float64: W1 takes it as a Python float.)"""
    single = experiment.run(**sizes)
    double = experiment.run(**sizes, float32_from=float("inf"))
    draw = ex.draw_one_step(50, seed=0, dtype="float32")
    assert draw.W1(np.float64(2.0)).dtype == np.float32
    assert single[0].params["dtype"] == "float32" and "dtype" not in double[0].params
    assert experiment.units("paper")[0][0].get("dtype") is None
    for key in keys:
        a, b = np.asarray(single[0][key]), np.asarray(double[0][key])
        assert a.dtype == np.float64 and not np.array_equal(a, b)
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_bad_inputs():
    with pytest.raises(ValueError):
        ex.transition_unit(50, [-1.0], "he1", "tanh", seed=0)
    with pytest.raises(ValueError):
        ex.GROWTH.run(Ns=[50], alphas=[0.1], seeds=[])
    with pytest.raises(ValueError):
        ex.growth_unit(50, [-0.1], "he1", "tanh", seed=0)
    with pytest.raises(ValueError):
        ex.draw_one_step(50, d=40, target=cp.make_target("he1", 30, np.random.default_rng(0)))


def test_u1_check_matches_noise_level_and_draws():
    out = ex.U1_CHECK.run(N=100, targets=["he1+he3"], seeds=200)
    cos2 = out.values("cos2")
    assert cos2.shape == (200, 2)
    theory = ex.u1_theory("he1+he3", 100)
    # He_1 direction: 1/(1 + E y^2/psi) = 1/3; He_3 direction: (7 + 1)/(100 + 200)
    assert theory == pytest.approx([1 / 3, 8 / 300])
    assert abs(cos2[:, 0].mean() - 1 / 3) < 0.05
    assert 0.5 < cos2[:, 1].mean() / theory[1] < 1.6
    # same streams as draw_one_step
    draw = ex.draw_one_step(100, target="he1+he3", seed=3)
    np.testing.assert_allclose(cos2[3], cp.cos2_with_directions(
        draw.u1, draw.target.directions)[0])


def test_plugin_prediction_explains_the_seed_spread():
    r = ex.TRANSITION.run(N=300, etas=[3.0], seeds=4)
    assert r.values("plugin_s1").shape == (4, 1) and r.values("u1_norm").shape == (4,)
    err_plugin = np.abs(r.values("s1") - r.values("plugin_s1")).mean()
    err_limit = np.abs(r.values("s1") - r.values("theory_s1")).mean()
    assert err_plugin < 0.1 and err_plugin < err_limit


@pytest.mark.parametrize("eid, experiment, sizes", [
    ("E1", ex.TRANSITION, dict(N=40, seeds=1)),
    ("E2", ex.GROWTH, dict(Ns=[40], seeds=1))])
def test_units_keep_the_keys_and_parameters_of_the_stored_runs(eid, experiment, sizes):
    """The stored paper-scale runs were written by these units: the result keys and the
    parameters of the default grid must stay the same, so that one figure draws both."""
    fresh = experiment.run(**sizes)
    stored = store.load(eid)
    if stored is None:
        pytest.skip("no stored paper-scale runs here")
    assert set(fresh[0].result) == set(stored[0].result)
    # the chapter's runs are float32 (a dtype parameter); the stored ones float64
    assert fresh[0].params["dtype"] == "float32"
    assert set(fresh[0].params) - {"dtype"} == set(stored[0].params)
    assert experiment.units("paper")[0][0] == stored[0].params
