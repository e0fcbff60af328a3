"""Alignment measures (book: dv-census)."""

import numpy as np
import pytest

import companion as cp


def test_cos2_and_subspace_projection():
    d = 6
    e = np.eye(d)
    V = np.stack([e[0], (e[1] + e[2]) / np.sqrt(2)])
    B = np.stack([e[0], e[1], e[3]])
    np.testing.assert_allclose(cp.cos2_with_directions(V, B), [[1, 0, 0], [0, 0.5, 0]], atol=1e-15)
    np.testing.assert_allclose(cp.subspace_projection(V, B), [1, 0.5, 0], atol=1e-15)
    # unnormalized inputs are normalized
    np.testing.assert_allclose(cp.cos2_with_directions(3 * V, 2 * B), [[1, 0, 0], [0, 0.5, 0]],
                               atol=1e-15)


def test_random_subspace_projection_is_at_chance():
    rng = np.random.default_rng(0)
    d, m = 2000, 4
    vals = [cp.subspace_projection(np.linalg.qr(rng.standard_normal((d, m)))[0].T,
                                   rng.standard_normal(d))[0] for _ in range(200)]
    assert np.mean(vals) == pytest.approx(m / d, rel=0.2)


def test_a_power_basis_is_orthonormal_and_cos_a_a3():
    rng = np.random.default_rng(1)
    a = rng.standard_normal(200_000) / np.sqrt(200_000)
    Q = cp.a_power_basis(a, 4)
    np.testing.assert_allclose(Q.T @ Q, np.eye(4), atol=1e-10)
    assert Q[:, 0] @ a > 0
    a3 = a ** 3
    # book: dv-sec-census, |cos(a, a^{o3})| -> 3 / sqrt(15)
    assert abs(a @ a3) / (np.linalg.norm(a) * np.linalg.norm(a3)) == pytest.approx(3 / np.sqrt(15),
                                                                                   abs=0.01)


def test_term_sizes_and_left_overlaps_find_planted_power_spikes():
    rng = np.random.default_rng(2)
    N, d = 400, 300
    a = rng.standard_normal(N) / np.sqrt(N)
    Q = cp.a_power_basis(a, 3)
    v = np.linalg.qr(rng.standard_normal((d, 3)))[0]
    delta = 5 * np.outer(Q[:, 0], v[:, 0]) + 2 * np.outer(Q[:, 2], v[:, 2])
    np.testing.assert_allclose(cp.term_sizes(delta, a, 3), [5, 0, 2], atol=1e-10)
    U, _, _ = cp.top_singular(delta + 0.01 * rng.standard_normal((N, d)), 2)
    ov = cp.left_overlaps(U, a, 3)
    assert ov[0, 0] > 0.95 and ov[1, 2] > 0.95
