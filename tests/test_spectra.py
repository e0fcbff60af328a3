"""Marchenko-Pastur bulk, top-k singular values, outlier counts (SPEC 3.1, 5)."""

import numpy as np
import pytest
from scipy import integrate

import companion as cp


def test_mp_edges_match_W0_at_N_equals_d_1000():
    W0, _ = cp.init_network(1000, 1000, np.random.default_rng(0))
    s = cp.singular_values(W0)
    lo, hi = cp.mp_edges(1.0)
    assert s[0] == pytest.approx(hi, rel=0.02)
    assert lo == 0.0 and s[-1] < 0.02


@pytest.mark.parametrize("N,d", [(500, 1000), (1000, 500)])
def test_mp_edges_and_density_for_rectangular_W0(N, d):
    W0, _ = cp.init_network(N, d, np.random.default_rng(1))
    s = cp.singular_values(W0)
    lo, hi = cp.mp_edges(N / d)
    assert s[0] == pytest.approx(hi, rel=0.02)
    assert s[-1] == pytest.approx(lo, rel=0.05)
    # The density integrates to one and predicts the empirical quartiles.
    total, _ = integrate.quad(cp.mp_singular_value_density, lo, hi, args=(N / d,), limit=200)
    assert total == pytest.approx(1.0, abs=1e-4)
    grid = np.linspace(lo, hi, 20001)
    cdf = np.cumsum(cp.mp_singular_value_density(grid, N / d)) * (grid[1] - grid[0])
    for q in (0.25, 0.5, 0.75):
        assert np.quantile(s, q) == pytest.approx(grid[np.searchsorted(cdf, q)], abs=0.01)


def test_top_singular_matches_dense_svd():
    rng = np.random.default_rng(2)
    W = rng.standard_normal((300, 200)) / np.sqrt(200)
    W += 3 * np.outer(rng.standard_normal(300), rng.standard_normal(200)) / np.sqrt(300 * 200)
    U, s, Vt = cp.top_singular(W, 5)
    s_full = np.linalg.svd(W, compute_uv=False)
    np.testing.assert_allclose(s, s_full[:5], rtol=1e-10)
    np.testing.assert_allclose(U.T @ W, s[:, None] * Vt, atol=1e-10)
    assert np.all(np.diff(s) <= 0)


@pytest.mark.parametrize("shape", [(300, 200), (200, 300), (400, 400)])
def test_top_singular_of_a_bulk_without_outliers(shape):
    # no gap between the top values (W0, a null run): the case where Lanczos needs the most
    # iterations; it must still agree with LAPACK, be deterministic and not fall back silently
    import companion.spectra as sp
    W = np.random.default_rng(3).standard_normal(shape) / np.sqrt(shape[1])
    solvers = []
    real = sp.svds
    sp.svds = lambda *a, **k: solvers.append(k["solver"]) or real(*a, **k)
    try:
        U, s, Vt = cp.top_singular(W, 16)
        _, s_again, _ = cp.top_singular(W, 16)
    finally:
        sp.svds = real
    assert solvers == ["propack", "propack"]
    np.testing.assert_allclose(s, np.linalg.svd(W, compute_uv=False)[:16], rtol=1e-10)
    np.testing.assert_allclose(U.T @ W, s[:, None] * Vt, atol=1e-10)
    assert np.array_equal(s, s_again)


def test_outlier_counts():
    s = np.array([5.0, 2.5, 2.03, 2.01, 1.9])
    assert cp.count_outliers(s, 2.0) == 2  # 2% margin: 2.03 < 2.04
    assert cp.count_outliers(s, 2.0, margin=0.0) == 4
    null = np.array([6.0, 2.4, 2.0])
    # null edge = the null's second singular value (its first spike is skipped)
    assert cp.count_outliers_against_null(s, null) == 2
    assert cp.count_outliers_against_null(s, null, skip=0) == 0
