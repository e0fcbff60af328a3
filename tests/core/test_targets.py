"""Targets and data (book: dv-model)."""

import numpy as np
import pytest

import companion as cp


@pytest.mark.parametrize("name,mu,exponent", [("he1", 1.0, 1), ("he2", 0.0, 2), ("he3", 0.0, 3),
                                              ("he4", 0.0, 4)])
def test_hermite_links(name, mu, exponent):
    link = cp.make_link(name)
    assert link.moment(2) == pytest.approx(1.0, abs=1e-10)
    assert link.mu_star == pytest.approx(mu, abs=1e-10)
    assert link.information_exponent() == exponent


def test_tanh_and_callable_links_are_normalized():
    for link in [cp.make_link("tanh"), cp.make_link(lambda z: 3 * z**3)]:
        assert link.moment(2) == pytest.approx(1.0, abs=1e-10)
        assert link.information_exponent() == 1


def test_he3_moments_used_by_the_reuse_mechanism():
    """He_3 has E[z g^2] = 0 but E[z g^3] ~ 22.0."""
    he3 = cp.make_link("he3")
    assert he3.z_moment(2) == pytest.approx(0.0, abs=1e-10)
    assert he3.z_moment(3) == pytest.approx(22.0, abs=0.1)


def test_multi_index_target_sampling():
    rng = np.random.default_rng(0)
    tgt = cp.make_target("he1+he3", 300, rng, noise=0.5)
    B = tgt.directions
    np.testing.assert_allclose(B @ B.T, np.eye(2), atol=1e-12)
    assert tgt.name == "he1+he3"
    np.testing.assert_allclose(tgt.mu_star, [1.0, 0.0], atol=1e-10)
    assert tgt.second_moment == pytest.approx(2.25, abs=1e-10)
    X, y = tgt.sample(20000, np.random.default_rng(1))
    assert X.shape == (20000, 300) and y.shape == (20000,)
    assert np.mean(y**2) == pytest.approx(2.25, rel=0.08)
    z1 = X @ B[0]
    assert np.mean(z1 * y) == pytest.approx(1.0, abs=0.05)


def test_z_y_moment_matches_tensor_quadrature():
    """E[z_2 y^3] for y = g_tanh(z_1) + He_3(z_2)/sqrt(6) + eps, against a 3-D Gauss-Hermite
    grid (Monte Carlo is hopeless: the integrand grows like z^10)."""
    tgt = cp.make_target("tanh+he3", 10, np.random.default_rng(0), noise=0.7)
    x, w = np.polynomial.hermite_e.hermegauss(40)
    w = w / np.sqrt(2 * np.pi)
    z1, z2, e = np.meshgrid(x, x, x, indexing="ij")
    weight = w[:, None, None] * w[None, :, None] * w[None, None, :]
    y = tgt.links[0](z1) + tgt.links[1](z2) + 0.7 * e
    for p in (2, 3, 4):
        exact = np.sum(weight * z2 * y**p)
        assert tgt.z_y_moment(1, p) == pytest.approx(exact, rel=1e-6, abs=1e-9)


def test_target_moments_are_those_of_any_draw_without_directions():
    """target_moments: the links, noise and moments of a spec without a random draw; no
    directions, so it cannot be sampled."""
    spec, noise = "tanh+he3", 0.7
    bare = cp.target_moments(spec, noise)
    drawn = cp.make_target(spec, 10, np.random.default_rng(0), noise)
    assert bare.name == drawn.name and bare.noise == noise and bare.d == 0
    np.testing.assert_array_equal(bare.mu_star, drawn.mu_star)
    np.testing.assert_array_equal(bare.y_moments(4), drawn.y_moments(4))
    assert [bare.z_y_moment(1, p) for p in (2, 3)] == [drawn.z_y_moment(1, p) for p in (2, 3)]
    with pytest.raises(ValueError, match="no directions"):
        bare.sample(5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="noise"):
        cp.target_moments("he1", noise=-1.0)


def test_y_moments_of_a_sum():
    tgt = cp.make_target("he1+he1", 10, np.random.default_rng(0), noise=1.0)
    # y ~ N(0, 3): E y^4 = 27
    assert tgt.y_moments(4)[4] == pytest.approx(27.0, rel=1e-10)


@pytest.mark.parametrize("j", [1, 2, 3, 4])
@pytest.mark.parametrize("p,q", [(1, 0), (2, 0), (3, 0), (4, 0), (1, 1), (2, 1), (3, 1),
                                 (5, 1)])
def test_exact_hermite_moments_agree_with_quadrature(j, p, q):
    """The exact moments of a Hermite link (integer arithmetic) against Gauss-Hermite
    quadrature, and exactly 0 where they vanish."""
    from companion.core.gaussian import (
        gaussian_expectation,
        normalized_hermite,
        normalized_hermite_moment,
    )
    exact = normalized_hermite_moment(j, p, q)
    quadrature = gaussian_expectation(lambda z: z ** q * normalized_hermite(j, z) ** p)
    assert exact == pytest.approx(quadrature, rel=1e-12, abs=1e-10)
    if abs(quadrature) < 1e-9:
        assert exact == 0.0


def test_hermite_coefficients_and_known_moments():
    from companion.core.gaussian import hermite_coefficients, normalized_hermite_moment
    assert hermite_coefficients(3) == [0, -3, 0, 1]
    assert hermite_coefficients(4) == [3, 0, -6, 0, 1]
    # E[z g^3] for g = He_3 / sqrt(6): 324 / 6^(3/2)
    assert normalized_hermite_moment(3, 3, 1) == pytest.approx(324 / 6 ** 1.5, rel=1e-15)
    assert cp.make_link("he3").z_moment(2) == 0.0 and cp.make_link("he3").mu_star == 0.0
