"""Marchenko-Pastur bulk, top-k singular values, outlier counts (book: dv-spiked-rectangular,
dv-census)."""

import warnings

import numpy as np
import pytest
import scipy.linalg
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


def _spiked(N, d, strengths, seed, dtype=np.float64):
    """A Marchenko-Pastur bulk W0 (entries N(0, 1/d)) plus rank-one spikes of the given
    strengths along random unit directions."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((N, d)) / np.sqrt(d)
    for theta in strengths:
        u, v = rng.standard_normal(N), rng.standard_normal(d)
        W += theta * np.outer(u / np.linalg.norm(u), v / np.linalg.norm(v))
    return W.astype(dtype)


SPIKES = {"several": (5.0, 3.5, 2.5, 1.5), "one": (3.0,), "none": ()}


@pytest.fixture
def no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def _check_triplets(W, k, rtol_values, cos_tol):
    """top_singular against LAPACK's full SVD: the values, the vectors of values separated by
    5% from their neighbours (up to sign), orthonormal vectors and W v = s u."""
    U, s, Vt = cp.top_singular(W, k)
    W64 = W.astype(np.float64)
    Ur, sr, Vr = np.linalg.svd(W64, full_matrices=False)
    np.testing.assert_allclose(s, sr[:k], rtol=rtol_values)
    assert U.shape == (W.shape[0], k) and Vt.shape == (k, W.shape[1]) and np.all(np.diff(s) <= 0)
    gaps = np.minimum(np.r_[np.inf, sr[:k - 1]] - sr[:k], sr[:k] - sr[1:k + 1]) / sr[:k]
    for i in np.flatnonzero(gaps >= 0.05):
        assert abs(Vt[i].astype(np.float64) @ Vr[i]) >= 1 - cos_tol, i
        assert abs(U[:, i].astype(np.float64) @ Ur[:, i]) >= 1 - cos_tol, i
    np.testing.assert_allclose(Vt.astype(np.float64) @ Vt.T.astype(np.float64), np.eye(k),
                               atol=100 * cos_tol)
    np.testing.assert_allclose(W64 @ Vt.T.astype(np.float64), U * s, atol=1e3 * cos_tol * s[0])
    return s


@pytest.mark.parametrize("shape", [(300, 500), (500, 300)])
@pytest.mark.parametrize("spikes", sorted(SPIKES))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_top_singular_agrees_with_lapack(shape, spikes, dtype, no_warning):
    W = _spiked(*shape, SPIKES[spikes], 3, dtype)
    if dtype == np.float64:
        _check_triplets(W, 8, 1e-12, 1e-12)
    else:
        _check_triplets(W, 8, 1e-5, 1e-5)


def test_top_singular_on_the_books_matrices(no_warning):
    """W0, W1, W2 and a null run's W2 of a two-step run (tanh(z + 1/2), (0.38, 0.45), He_1 +
    He_3), whose spikes sit close to the bulk edge, and W2's part off the powers of a."""
    run = cp.run_two_steps(N=600, alpha1=0.38, alpha2=0.45, activation="shifted_tanh",
                           target="he1+he3", seed=5)
    null = cp.run_two_steps(N=600, alpha1=0.38, alpha2=0.45, activation="shifted_tanh",
                            target="he1+he3", seed=5, null_labels=True)
    from companion.core.spikes import off_powers
    for W in (run.W0, run.W1, run.W2, null.W2, off_powers(run.W2, run.a)):
        _check_triplets(W, 12, 1e-12, 1e-10)
        np.testing.assert_allclose(cp.top_singular_values(W, 4), scipy.linalg.svdvals(W)[:4],
                                   rtol=1e-12)


def test_top_singular_is_deterministic():
    W = _spiked(400, 300, SPIKES["several"], 4)
    first, again = cp.top_singular(W, 6), cp.top_singular(W.copy(), 6)
    for x, y in zip(first, again):
        assert np.array_equal(x, y)


def test_top_singular_edge_cases():
    rng = np.random.default_rng(8)
    # rank 3 < k: the extra values are zeros
    W = rng.standard_normal((300, 3)) @ rng.standard_normal((3, 400))
    s = cp.top_singular(W, 5)[1]
    np.testing.assert_allclose(s, scipy.linalg.svdvals(W)[:5], atol=1e-12 * s[0])
    assert np.allclose(cp.top_singular(np.zeros((200, 300)), 4)[1], 0.0)
    # a scale far from 1 neither overflows nor underflows
    for scale in (1e-150, 1e150):
        W = _spiked(300, 300, (3.0,), 9) * scale
        np.testing.assert_allclose(cp.top_singular(W, 4)[1], scipy.linalg.svdvals(W)[:4],
                                   rtol=1e-10)
    # small matrices and k close to min(N, d) take LAPACK's SVD: k = min(N, d) works
    W = _spiked(40, 30, (3.0,), 1)
    np.testing.assert_allclose(cp.top_singular(W, 30)[1], scipy.linalg.svdvals(W), rtol=1e-12)
    for bad_k in (0, 31, 2.5):
        with pytest.raises(ValueError, match="k"):
            cp.top_singular(W, bad_k)
    W[0, 0] = np.nan
    with pytest.raises(ValueError, match="W"):
        cp.top_singular(W, 3)


def test_top_singular_each_takes_one_k_and_vectors_flag_per_matrix():
    mats = [_spiked(300, 300, (3.0,), seed) for seed in range(3)]
    each = cp.top_singular_each(mats, [4, 12, 1], vectors=[True, False, True])
    for W, k, (U, s, Vt), vec in zip(mats, (4, 12, 1), each, (True, False, True)):
        np.testing.assert_allclose(s, cp.top_singular(W, k)[1], rtol=1e-13)
        assert (U is None) == (not vec) and (Vt is None) == (not vec)
    with pytest.raises(ValueError, match="one per matrix"):
        cp.top_singular_each(mats, [4, 12])


@pytest.mark.parametrize("shape", [(400, 400), (300, 500), (500, 300)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_whole_spectrum_through_the_gram_matrix(shape, dtype):
    # every singular value to an absolute 1e-12 s_1 (float32: 1e-6 s_1) against gesdd; the
    # smallest values of a square matrix (down to ~1e-3 here) keep fewer relative digits
    W = _spiked(*shape, (3.0,), 10, dtype)
    s = cp.singular_values(W)
    s_ref = scipy.linalg.svdvals(W.astype(np.float64))
    assert s.shape == s_ref.shape and s.dtype == dtype and np.all(np.diff(s) <= 0)
    atol = 1e-12 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(s, s_ref, atol=atol * s_ref[0], rtol=0)
    np.testing.assert_allclose(s[:20], s_ref[:20], rtol=1e-12 if dtype == np.float64 else 1e-6)
    lapack = cp.singular_values(W, method="lapack")
    np.testing.assert_allclose(lapack, s_ref, atol=1e-5 * s_ref[0])
    with pytest.raises(ValueError, match="method must be one of"):
        cp.singular_values(W, method="svd")


@pytest.mark.parametrize("dtype,limit_gib", [("float32", 6), ("float64", 12)])
def test_memory_estimate_of_a_16384_run(dtype, limit_gib):
    # N = d = n = 16384, reused batch, top-16: the estimate checked before allocating covers
    # W0, W1, W2, the batch and its scaled copy, a block of sigma', and the top-k's basis, and
    # stays within the peak-memory goals
    import companion.core.spectra as sp
    from companion.core.network import estimate_run_bytes

    N, item = 16384, np.dtype(dtype).itemsize
    total = estimate_run_bytes(N, N, N, "reused", item)
    topk = sp.top_singular_bytes(N, N, 16, item)
    assert total >= 5 * N * N * item + topk
    assert total <= limit_gib * 2**30
    assert 8 * 24 * N <= topk <= 0.5 * 2**30
    # float32 halves every N x d array
    assert estimate_run_bytes(N, N, N, "reused", 4) < 0.55 * estimate_run_bytes(N, N, N,
                                                                                 "reused", 8)


def test_outlier_counts():
    s = np.array([5.0, 2.5, 2.03, 2.01, 1.9])
    assert cp.count_outliers(s, 2.0) == 2  # 2% margin: 2.03 < 2.04
    assert cp.count_outliers(s, 2.0, margin=0.0) == 4
    null = np.array([6.0, 2.4, 2.0])
    # null edge = the null's second singular value (its first spike is skipped)
    assert cp.count_outliers_against_null(s, null) == 2
    assert cp.count_outliers_against_null(s, null, skip=0) == 0
    assert cp.count_outliers(s, np.float32(2.0)) == 2
    for bad in (float("nan"), -1.0, "2"):       # a NaN edge would count nothing, silently
        with pytest.raises(ValueError, match="edge"):
            cp.count_outliers(s, bad)
