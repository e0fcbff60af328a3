"""Predictions: Lambda, spike exponents, spiked rectangular formulas (book: dv-exponents,
dv-spiked-rectangular)."""

import math

import numpy as np
import pytest

import companion as cp


def test_lambda_on_a_grid_matches_the_formula():
    grid = np.round(np.arange(0, 0.5, 0.01), 10)
    for a1 in grid:
        for a2 in grid:
            # exact rational arithmetic on the hundredths grid: floor(100 a2 / (50 - 100 a1))
            expected = (round(100 * a2)) // (50 - round(100 * a1))
            assert cp.lambda_count(a1, a2) == expected, (a1, a2)
            assert (cp.lambda_count(a1, a2) == 0) == (a1 + a2 < 0.5 - 1e-12)
            assert (cp.lambda_count(a1, a2) >= 2) == (2 * a1 + a2 >= 1 - 1e-12)


@pytest.mark.parametrize("a1,a2,lam", [(0.0, 0.0, 0), (0.25, 0.25, 1), (0.35, 0.45, 3),
                                       (0.2, 0.45, 1), (0.4, 0.2, 2), (0.3, 0.199, 0),
                                       (0.45, 0.499, 9), (0.2, 0.3, 1), (0.25, 0.499, 1)])
def test_lambda_at_its_edges(a1, a2, lam):
    assert cp.lambda_count(a1, a2) == lam
    # tanh(z + 1/2) has every order: 1 + Lambda; tanh is odd: only the even orders
    assert cp.n_spikes(a1, a2, "shifted_tanh") == lam + 1
    assert cp.n_spikes(a1, a2, "tanh") == 1 + lam // 2


def test_spike_count_parity_and_cap():
    """The companion's count (book: dv-exponents): the first spike plus the existing orders k <=
    Lambda."""
    assert cp.present_terms(0.45, 0.45, "tanh") == [2, 4, 6, 8]
    assert cp.present_terms(0.20, 0.45, "tanh") == []            # Lambda = 1, k = 1 absent
    assert cp.present_terms(0.35, 0.45, "shifted_tanh") == [1, 2, 3]
    # a polynomial of degree L caps Lambda at L - 1; He_2 has no third derivative
    assert cp.present_terms(0.45, 0.45, "hermite:0,1,1", batch="fresh") == [1]
    assert cp.present_terms(0.10, 0.10, "shifted_tanh") == []    # Lambda = 0
    # the examples: (0.38, 0.45), Lambda = 3
    assert cp.n_spikes(0.38, 0.45, "tanh") == 2
    assert cp.n_spikes(0.38, 0.45, "shifted_tanh") == 4
    # GELU = z/2 + an even function: m_3 = 0, so a fresh batch has no k = 2 term, while the
    # reused batch's kappa_{2,r} bring it back
    assert cp.present_terms(0.38, 0.45, "gelu", "fresh") == [1, 3]
    assert cp.n_spikes(0.38, 0.45, "gelu", "reused") == 4
    assert cp.term_exists(0, "tanh") and not cp.term_exists(1, "tanh")
    with pytest.raises(ValueError, match="k must be"):
        cp.term_exists(-1)


def test_phase_line_names_points_on_the_boundaries():
    assert cp.phase_line(0.35, 0.45) == 3         # 0.45 = 3 (1/2 - 0.35): Theta(1) term
    assert cp.phase_line(0.45, 0.45) == 9
    assert cp.phase_line(0.25, 0.25) == 1
    assert cp.phase_line(0.38, 0.45) is None
    assert cp.phase_line(0.30, 0.38) is None
    assert cp.phase_line(0.0, 0.0) is None


def test_nearest_line_names_the_term_whose_exponent_is_nearest_zero():
    """(0.38, 0.45) and (0.30, 0.38) lie on no line, but within 0.03 of the next one
    (issue 19's knife edges); an activation keeps only its own orders."""
    k, e = cp.nearest_line(0.38, 0.45)
    assert k == 4 and e == pytest.approx(-0.03) and cp.phase_line(0.38, 0.45) is None
    k, e = cp.nearest_line(0.30, 0.38)
    assert k == 2 and e == pytest.approx(-0.02)
    k, e = cp.nearest_line(0.35, 0.45)
    assert k == 3 and abs(e) < 1e-12
    assert cp.nearest_line(0.35, 0.45, "tanh") == (2, pytest.approx(0.15))   # odd k absent
    assert cp.nearest_line(0.45, 0.45, "tanh") == (8, pytest.approx(0.05))
    assert cp.nearest_line(0.20, 0.20) == (1, pytest.approx(-0.10))
    # the exponent is spike_exponent's, and no other existing order is nearer zero
    for a1, a2 in [(0.10, 0.30), (0.42, 0.33), (0.05, 0.49), (0.45, 0.32)]:
        k, e = cp.nearest_line(a1, a2)
        assert e == pytest.approx(cp.spike_exponent(a1, a2, k))
        assert all(abs(cp.spike_exponent(a1, a2, j)) >= abs(e) - 1e-12 for j in range(1, 40))
    # a polynomial of degree 3 has the orders k = 1, 2 only
    assert cp.nearest_line(0.45, 0.45, "hermite:0,1,0,1")[0] <= 2
    assert cp.core.theory.KNIFE_EDGE == 0.05
    with pytest.raises(ValueError, match="alpha1"):
        cp.nearest_line(0.5, 0.2)


def test_lambda_capped_by_polynomial_degree():
    assert cp.lambda_count(0.45, 0.45, L=3) == 2
    assert cp.lambda_count(0.45, 0.45, L=1) == 0
    assert cp.phase_region(0.1, 0.1) == "one-step"
    assert cp.phase_region(0.35, 0.45) == "Lambda=3"
    np.testing.assert_allclose(cp.lambda_boundary(2, [0.25, 0.4]), [0.5, 0.2])


def test_spike_exponents():
    assert cp.spike_exponent(0.35, 0.45, 0) == pytest.approx(0.45)
    assert cp.spike_exponent(0.35, 0.45, 1) == pytest.approx(0.30)
    assert cp.spike_exponent(0.35, 0.45, 2) == pytest.approx(0.15)
    # term k survives iff its exponent is >= 0, i.e. k <= Lambda
    for a1, a2 in [(0.35, 0.45), (0.2, 0.45), (0.4, 0.25)]:
        lam = cp.lambda_count(a1, a2)
        assert cp.spike_exponent(a1, a2, lam) >= -1e-12
        assert cp.spike_exponent(a1, a2, lam + 1) < 0


def test_spiked_rectangular_square_case_and_threshold():
    out = cp.spiked_rectangular(2.0, 1000, 1000)
    assert out["s1"] == pytest.approx(2.5)
    assert out["left_overlap2"] == pytest.approx(0.75)
    assert out["right_overlap2"] == pytest.approx(0.75)
    below = cp.spiked_rectangular(0.9, 1000, 1000)
    assert not below["detectable"] and below["s1"] == pytest.approx(2.0)
    # continuity at the threshold theta = c^(1/4) for c = N/d = 0.5
    at = cp.spiked_rectangular(0.5 ** 0.25 * (1 + 1e-9), 500, 1000)
    assert at["s1"] == pytest.approx(1 + math.sqrt(0.5), rel=1e-6)
    assert at["right_overlap2"] == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("N,d", [(400, 1200), (1200, 400)])
def test_spiked_rectangular_against_simulation(N, d):
    """The N <= d formula and its transposed N > d version, on W0 + theta u v^T."""
    rng = np.random.default_rng(5)
    theta = 2.5
    W0, _ = cp.init_network(N, d, rng)
    u = rng.standard_normal(N)
    u /= np.linalg.norm(u)
    v = rng.standard_normal(d)
    v /= np.linalg.norm(v)
    U, s, Vt = cp.top_singular(W0 + theta * np.outer(u, v), 1)
    pred = cp.spiked_rectangular(theta, N, d)
    assert s[0] == pytest.approx(pred["s1"], rel=0.02)
    assert (U[:, 0] @ u) ** 2 == pytest.approx(pred["left_overlap2"], abs=0.04)
    assert (Vt[0] @ v) ** 2 == pytest.approx(pred["right_overlap2"], abs=0.04)


def test_one_step_spike_at_eta_2_N_2000():
    """W1 = W0 + 2 G(W0), He_1 target, tanh, N = d = n = 2000."""
    run = cp.run_two_steps(N=2000, alpha1=0.0, alpha2=0.0, c1=2.0, target="he1", seed=0)
    _, s, Vt = cp.top_singular(run.W1, 1)
    pred = cp.one_step_prediction(2.0, run.target, "tanh", N=2000,
                                  a_norm=float(np.linalg.norm(run.a)))
    assert s[0] == pytest.approx(pred["s1"], rel=0.03)
    cos2 = cp.cos2_with_directions(Vt, run.target.directions)[0, 0]
    assert cos2 == pytest.approx(pred["cos2"], abs=0.05)


def test_first_direction_alignment_formulas():
    assert cp.first_direction_alignment("reused", 1.0, 1.0, 1.0)[0] == pytest.approx(0.5)
    assert cp.first_direction_alignment("fresh", 1.0, 1.0, 1.0, 3.0, 3.0)[0] == pytest.approx(2 / 3)
    assert cp.u1_alignment([1.0, 0.0], 2.0)[0] == pytest.approx(1 / 3)


def test_learnability_predicate():
    rng = np.random.default_rng(0)
    tgt = cp.make_target("he1+he2+he3", 50, rng)
    def learn(batch, a1, a2, act="tanh"):
        return [cp.is_learnable(tgt, k, batch, a1, a2, act) for k in range(3)]
    assert learn("fresh", 0.35, 0.45) == [True, False, False]
    assert learn("reused", 0.35, 0.45) == [True, False, True]    # Lambda = 3 >= 2
    assert learn("reused", 0.20, 0.45) == [True, False, False]   # Lambda = 1
    # ReLU lies outside the smooth expansion: no prediction beyond the linear direction
    assert learn("reused", 0.35, 0.45, "relu") == [True, None, None]
    assert learn("fresh", 0.35, 0.45, "relu") == [True, False, False]
    mixed = cp.make_target([lambda z: (z**2 - 1) / np.sqrt(2) + (z**3 - 3 * z) / np.sqrt(6)], 50, rng)
    assert cp.is_learnable(mixed, 0, "reused", 0.35, 0.45)
    assert not cp.is_learnable(mixed, 0, "fresh", 0.35, 0.45)


def test_learnability_needs_an_even_gap_k_minus_r(monkeypatch):
    """With mu* = 0 the field s = m1 h^(-i) is an independent Gaussian, so the term (k', r)
    contributes kappa_{k',r} E[z y^(r+1)] E[s^(k'-r)], zero for odd k' - r. A target whose
    only nonzero moment is E[z y^2] (r = 1) is therefore invisible to tanh, whose terms exist
    only at even k'."""
    tgt = cp.make_target("he3", 20, np.random.default_rng(0))
    monkeypatch.setattr(type(tgt), "z_y_moment", lambda self, k, p: 1.0 if p == 2 else 0.0)
    assert cp.lambda_count(0.40, 0.45) == 4
    assert cp.is_learnable(tgt, 0, "reused", 0.40, 0.45, "tanh") is False      # only k'-r odd
    assert cp.is_learnable(tgt, 0, "reused", 0.40, 0.45, "shifted_tanh") is True  # k' = r = 1
    assert cp.is_learnable(tgt, 0, "reused", 0.10, 0.10, "shifted_tanh") is False  # Lambda = 0


def test_odd_activation_keeps_only_even_orders_far_into_the_expansion():
    """tanh's even moments vanish exactly; quadrature returns them as about 1e-16 of the size
    of their integrands, which at order 22 is 6e-8 in absolute terms: term_exists must judge
    a moment against that size, not against an absolute tolerance."""
    lam = cp.lambda_count(0.49, 0.25)
    assert lam == 25
    assert cp.n_spikes(0.49, 0.25, "tanh") == 1 + lam // 2
    assert cp.n_spikes(0.49, 0.25, "shifted_tanh") == 1 + lam
    assert [k for k in range(1, 26) if cp.term_exists(k, "erf")] == list(range(2, 26, 2))


def test_predicted_spike_cos2_against_a_planted_spike():
    """W0 + theta u v^T with v carrying cos^2 0.6 of beta: the top right vector keeps about
    0.6 (1 - 1/theta^2) of it at N = d (book: dv-spike-overlap); nothing below the
    threshold."""
    N, theta = 600, 2.0
    rng = np.random.default_rng(7)
    beta = np.zeros(N)
    beta[0] = 1.0
    v = np.zeros(N)
    v[0], v[1] = np.sqrt(0.6), np.sqrt(0.4)
    got = []
    for _ in range(4):
        u = rng.standard_normal(N)
        u /= np.linalg.norm(u)
        W = rng.standard_normal((N, N)) / np.sqrt(N) + theta * np.outer(u, v)
        vt = np.linalg.svd(W)[2][0]
        got.append(float(vt @ beta) ** 2)
    predicted = cp.predicted_spike_cos2(theta, [0.6], N)[0]
    assert predicted == pytest.approx(0.6 * (1 - 1 / theta ** 2))
    assert abs(np.mean(got) - predicted) < 0.05
    assert cp.predicted_spike_cos2(0.9, [0.6], N)[0] == 0.0
