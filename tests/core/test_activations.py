"""Gaussian moments m_j and kappa_{k,r} (book: dv-moments): closed forms and Monte Carlo."""

from math import factorial, sqrt

import numpy as np
import pytest

import companion as cp


def test_hermite_activation_moments_match_closed_forms():
    c = [0.3, 1.0, -0.7, 0.5, 0.2]
    act = cp.hermite_activation(c)
    assert act.degree == 4
    for j, cj in enumerate(c):
        # E[sigma He_j] = c_j / sqrt(j!) * E[He_j^2] = c_j sqrt(j!)
        assert act.m(j) == pytest.approx(cj * sqrt(factorial(j)), abs=1e-10)
    # sigma = He_2 / sqrt(2): sigma' = sqrt(2) z, sigma'' = sqrt(2)
    he2 = cp.hermite_activation([0, 0, 1])
    assert he2.kappa(1, 1) == pytest.approx(0.0, abs=1e-12)
    assert he2.kappa(1, 2) == pytest.approx(2 * sqrt(2), rel=1e-10)
    assert he2.kappa(2, 1) == pytest.approx(0.0, abs=1e-12)


def test_tanh_moments_match_spec_and_monte_carlo():
    act = cp.get_activation("tanh")
    spec = {"m1": 0.6057, "m3": -0.3636, "k21": -0.4785, "k22": -0.4916}
    got = {"m1": act.m(1), "m3": act.m(3), "k21": act.kappa(2, 1), "k22": act.kappa(2, 2)}
    for key in spec:
        assert got[key] == pytest.approx(spec[key], abs=6e-4), key
    assert act.m(2) == pytest.approx(0.0, abs=1e-12)  # tanh is odd
    z = np.random.default_rng(0).standard_normal(2_000_000)
    t = np.tanh(z)
    d1, d3 = 1 - t**2, -2 * (1 - t**2) * (1 - 3 * t**2)
    se = 4 / np.sqrt(z.size)
    assert np.mean(d1) == pytest.approx(got["m1"], abs=se)
    assert np.mean(d3) == pytest.approx(got["m3"], abs=3 * se)
    assert np.mean(d3 * d1**2) == pytest.approx(got["k22"], abs=3 * se)


def test_derivatives_of_named_activations_match_finite_differences():
    z = np.linspace(-2.5, 2.5, 41)
    h = 1e-5
    for name in ["tanh", "erf", "shifted_tanh", "gelu", "hermite:0,1,1,1"]:
        act = cp.get_activation(name)
        for k in range(1, 4):
            fd = (act.derivative(z + h, k - 1) - act.derivative(z - h, k - 1)) / (2 * h)
            np.testing.assert_allclose(act.derivative(z, k), fd, atol=1e-6, err_msg=f"{name} {k}")


def test_relu_and_erf_moments():
    relu = cp.get_activation("relu")
    assert relu.m(1) == pytest.approx(0.5, abs=1e-10)
    assert relu.m(2) == pytest.approx(1 / sqrt(2 * np.pi), abs=1e-10)
    assert relu.kappa(2, 2) == 0.0  # no smooth higher derivatives (book: dv-moments)
    erf = cp.get_activation("erf")
    # E erf'(z) = 2/sqrt(pi) E exp(-z^2) = 2/sqrt(3 pi)
    assert erf.m(1) == pytest.approx(2 / sqrt(3 * np.pi), rel=1e-10)
    shifted = cp.get_activation("shifted_tanh")
    assert abs(shifted.m(2)) > 0.1  # no longer odd


def test_custom_activation_from_callable():
    act = cp.Activation.from_callable(np.sin, [np.cos, lambda z: -np.sin(z), lambda z: -np.cos(z)],
                                      name="sin")
    assert act.m(1) == pytest.approx(np.exp(-0.5), rel=1e-10)
    with pytest.raises(ValueError, match="derivatives"):
        cp.Activation.from_callable(np.sin, [])


def test_gelu_moments_and_parity():
    """GELU = z Phi(z) = z/2 + an even function: m_1 = 1/2, m_2 = E[(2 - z^2) phi(z)] =
    3 / (4 sqrt(pi)); the third derivative is odd, so m_3 = 0, while kappa_{2,r} (through
    sigma' = 1/2 + odd) is not; and Monte Carlo."""
    act = cp.get_activation("gelu")
    assert act.smooth and act.name == "gelu"
    assert act.m(1) == pytest.approx(0.5, abs=1e-12)
    assert act.m(2) == pytest.approx(3 / (4 * sqrt(np.pi)), abs=1e-12)
    assert act.m(3) == pytest.approx(0.0, abs=1e-12)
    assert abs(act.kappa(2, 1)) > 0.1
    z = np.random.default_rng(1).standard_normal(2_000_000)
    se = 4 / np.sqrt(z.size)
    assert np.mean(act.derivative(z, 2)) == pytest.approx(act.m(2), abs=3 * se)
    assert np.mean(act.derivative(z, 3) * act.derivative(z, 1)) == pytest.approx(
        act.kappa(2, 1), abs=3 * se)
    assert not cp.get_activation("relu").smooth
