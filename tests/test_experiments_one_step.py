"""Tests of companion.experiments.one_step (chapter "One step: a rank-one spike"; SPEC 3.1,
E1, E2, E10). Small sizes (N = 200 to 400): each test runs in about a second."""

import numpy as np
import pytest

import companion as cp
from companion.experiments import one_step as ex


def test_draw_matches_run_two_steps():
    """Same seed, same W0, a, batch: one step here is the first step of the two-step runs."""
    draw = ex.draw_one_step(120, d=80, n=100, target="he1", seed=7)
    run = cp.run_two_steps(120, d=80, n=100, alpha1=0.0, alpha2=0.0, c1=1.5, target="he1",
                           seed=7)
    np.testing.assert_array_equal(draw.W0, run.W0)
    np.testing.assert_array_equal(draw.X, run.X1)
    np.testing.assert_allclose(draw.W1(1.5), run.W1, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(draw.u1, run.X1.T @ run.y1 / 100)


def test_gradient_is_rank_one_plus_vanishing_remainder():
    dec = ex.gradient_decomposition([100, 400], seeds=2)
    assert dec["r_norm"].shape == (2, 2)
    r = dec["r_norm"].mean(1)
    # ||R|| ~ N^-1/2: a factor 4 in N roughly halves it (allow logs and noise)
    assert 0.35 < r[1] / r[0] < 0.7
    # the rank-one part carries almost all of G and is of order one:
    # m1 ||a|| ||u1|| -> 0.6057 sqrt(2) = 0.857 (seeds scatter by ~0.08 at these sizes)
    assert np.all(dec["r_norm"] < 0.2 * dec["g_norm"])
    assert abs(dec["spike_norm"].mean() - 0.857) < 0.15


def test_transition_sweep_shapes_reproducible_and_bbp():
    etas = [0.0, 3.0]
    a = ex.transition_sweep(etas, N=300, seeds=[0, 1])
    b = ex.transition_sweep(etas, N=300, seeds=[0, 1])
    for key in ("s1", "cos2_beta", "overlap_u1", "overlap_a"):
        assert a[key].shape == (2, 2)
        np.testing.assert_array_equal(a[key], b[key])
    # below threshold: at the bulk edge, no alignment beyond a few times 1/d
    assert np.all(np.abs(a["s1"][:, 0] - 2.0) < 0.1)
    assert np.all(a["cos2_beta"][:, 0] < 20 / 300)
    # above: the spiked-rectangular prediction (theta ~ 2.57, s1 ~ 2.96, cos2 ~ 0.42)
    assert abs(a["s1"][:, 1].mean() - a["theory_s1"][1]) < 0.25
    assert abs(a["cos2_beta"][:, 1].mean() - a["theory_cos2"][1]) < 0.1
    assert a["theory_cos2"][0] == 0.0
    assert np.isclose(a["eta_c"], 1 / (cp.get_activation("tanh").m(1) * np.sqrt(2)))


@pytest.mark.parametrize("dims", [dict(N=150, d=300, n=300), dict(N=300, d=150, n=150)])
def test_transition_sweep_rectangular(dims):
    r = ex.transition_sweep([3.0], seeds=2, **dims)
    phi = dims["N"] / dims["d"]
    assert np.isclose(r["edge"], 1 + np.sqrt(phi))
    assert np.isclose(r["eta_c"], phi ** 0.25 / (0.6057 * np.sqrt(2)), rtol=1e-3)
    assert abs(r["s1"].mean() - r["theory_s1"][0]) < 0.25
    assert abs(r["cos2_beta"].mean() - r["theory_cos2"][0]) < 0.12


def test_threshold_eta_is_where_the_theory_detaches():
    for dims in (dict(N=100), dict(N=50, d=100, n=100), dict(N=200, d=100, n=100)):
        eta_c = ex.threshold_eta("he1", "tanh", **dims)
        th = ex.transition_theory([0.99 * eta_c, 1.01 * eta_c], "he1", "tanh", **dims)
        assert th["cos2"][0] == 0.0 and th["cos2"][1] > 0.0


def test_growth_sweep_spike_grows_and_alignment_saturates_at_u1():
    g = ex.growth_sweep([0.1, 0.4], [100, 400], seeds=2)
    assert g["s1"].shape == (2, 2, 2) and g["cos2_u1"].shape == (2, 2)
    s1 = g["s1"].mean(1)
    # at alpha = 0.4 the spike grows with N, roughly like N^0.4
    slope = np.log(s1[1, 1] / s1[0, 1]) / np.log(4)
    assert 0.25 < slope < 0.55
    # v1 -> u1 / ||u1||, so cos^2(v1, beta*) -> cos^2(u1, beta*) ~ 1/2, not 1
    assert np.all(g["overlap_u1"][1, :, 1] > 0.95)
    np.testing.assert_allclose(g["cos2_beta"][1, :, 1], g["cos2_u1"][1], atol=0.05)
    assert g["saturation"] == pytest.approx(0.5)
    assert np.all(g["cos2_beta"][:, :, 1] < 0.7)


def test_growth_sweep_psi_changes_saturation():
    g = ex.growth_sweep([0.4], [200], seeds=2, psi=4)
    assert g["saturation"] == pytest.approx(0.8)
    assert abs(g["cos2_beta"].mean() - 0.8) < 0.08


def test_spectra_one_outlier():
    s = ex.spectra(300, eta=3.0, seed=0)
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


def test_direction_alignments_he3_invisible_he1_learned():
    out = ex.direction_alignments(["he1", "he1+he3"], [300], alpha=0.25, seeds=3)
    he1 = out["targets"]["he1"]
    mix = out["targets"]["he1+he3"]
    assert he1["cos2"].shape == (1, 3, 1) and mix["cos2"].shape == (1, 3, 2)
    assert mix["links"] == ["he1", "he3"]
    assert he1["cos2"].mean() > 0.3
    assert mix["cos2"][0, :, 0].mean() > 0.15
    # the He_3 direction stays at the O(1/d) noise level (7/d-ish, far below the He_1 one)
    assert mix["cos2"][0, :, 1].mean() < 0.05
    assert mix["theory_cos2"][0, 1] < 0.02


def test_bad_inputs():
    with pytest.raises(ValueError):
        ex.transition_sweep([-1.0], N=50, seeds=1)
    with pytest.raises(ValueError):
        ex.growth_sweep([0.1], [50], seeds=[])
    with pytest.raises(ValueError):
        ex.draw_one_step(50, d=40, target=cp.make_target("he1", 30, np.random.default_rng(0)))


def test_u1_alignment_samples_match_noise_level_and_draws():
    out = ex.u1_alignment_samples("he1+he3", N=100, seeds=200)
    assert out["cos2"].shape == (200, 2) and out["links"] == ["he1", "he3"]
    # He_1 direction: 1/(1 + E y^2/psi) = 1/3; He_3 direction: (7 + 1)/(100 + 200)
    assert out["theory"] == pytest.approx([1 / 3, 8 / 300])
    assert abs(out["cos2"][:, 0].mean() - 1 / 3) < 0.05
    assert 0.5 < out["cos2"][:, 1].mean() / out["theory"][1] < 1.6
    # same streams as draw_one_step
    draw = ex.draw_one_step(100, target="he1+he3", seed=3)
    np.testing.assert_allclose(out["cos2"][3], cp.cos2_with_directions(
        draw.u1, draw.target.directions)[0])


def test_plugin_prediction_explains_the_seed_spread():
    r = ex.transition_sweep([3.0], N=300, seeds=4)
    assert r["plugin_s1"].shape == (4, 1) and r["u1_norm"].shape == (4,)
    err_plugin = np.abs(r["s1"] - r["plugin_s1"]).mean()
    err_limit = np.abs(r["s1"] - r["theory_s1"]).mean()
    assert err_plugin < 0.1 and err_plugin < err_limit
