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


def test_top_singular_matches_dense_svd():
    rng = np.random.default_rng(2)
    W = rng.standard_normal((300, 200)) / np.sqrt(200)
    W += 3 * np.outer(rng.standard_normal(300), rng.standard_normal(200)) / np.sqrt(300 * 200)
    U, s, Vt = cp.top_singular(W, 5)
    s_full = np.linalg.svd(W, compute_uv=False)
    np.testing.assert_allclose(s, s_full[:5], rtol=1e-10)
    # N >= d: W v = s u to rounding; W^T u = s v to the residual bound 1e-7 s_1^2 / s (to
    # rounding for the separated first value, within 1e-7 for the four inside the bulk)
    np.testing.assert_allclose(W @ Vt.T, U * s, atol=1e-13)
    assert np.all(np.linalg.norm(U.T @ W - s[:, None] * Vt, axis=1) <= 1e-7 * s[0] ** 2 / s)
    assert np.linalg.norm(U[:, 0] @ W - s[0] * Vt[0]) < 1e-9
    assert np.all(np.diff(s) <= 0)


def _spiked(N, d, strengths, seed, dtype=np.float64):
    """A Marchenko-Pastur bulk W0 (entries N(0, 1/d)) plus rank-one spikes of the given
    strengths along random unit directions."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((N, d)) / np.sqrt(d)
    for theta in strengths:
        u, v = rng.standard_normal(N), rng.standard_normal(d)
        W += theta * np.outer(u / np.linalg.norm(u), v / np.linalg.norm(v))
    return W.astype(dtype)


@pytest.fixture
def no_fallback(monkeypatch):
    """Fail if top_singular warns or reaches PROPACK: the block method must do the work."""
    import companion.core.lanczos as sp

    def forbidden(*args, **kwargs):
        raise AssertionError("top_singular fell back to PROPACK")

    monkeypatch.setattr(sp, "_propack", forbidden)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


SPIKES = {"several": (5.0, 3.5, 2.5, 1.5), "one": (3.0,), "none": ()}


@pytest.mark.parametrize("shape", [(300, 500), (500, 300)])
@pytest.mark.parametrize("spikes", sorted(SPIKES))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_top_singular_agrees_with_lapack(shape, spikes, dtype, no_fallback):
    W = _spiked(*shape, SPIKES[spikes], seed=len(spikes), dtype=dtype)
    k = 12
    U, s, Vt = cp.top_singular(W, k)
    assert U.shape == (shape[0], k) and Vt.shape == (k, shape[1]) and s.dtype == dtype
    U_ref, s_ref, Vt_ref = scipy.linalg.svd(W.astype(np.float64), full_matrices=False)
    rtol = 1e-10 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(s, s_ref[:k], rtol=rtol)
    assert np.all(np.diff(s) <= 0)
    # every returned triplet: W v = s u and W^T u = s v, one to rounding (the SVD of W on the
    # converged subspace), the other to the residual bound 1e-7 s_1^2 / s (float32: 1e-5)
    W64, bound = W.astype(np.float64), (1e-7 if dtype == np.float64 else 1e-5) * s[0] ** 2
    assert np.all(np.linalg.norm(W64 @ Vt.T - U * s, axis=0) <= bound / s)
    assert np.all(np.linalg.norm(W64.T @ U - Vt.T * s, axis=0) <= bound / s)
    # vectors of separated values (relative gap >= 5%): the alignments downstream code takes
    gaps = np.minimum(np.r_[np.inf, -np.diff(s_ref)][:k], -np.diff(s_ref)[:k])
    sep = gaps >= 0.05 * s_ref[:k]
    assert sep[0] == bool(SPIKES[spikes])      # the largest spike is separated
    beta = np.random.default_rng(9).standard_normal((3, shape[1]))
    beta /= np.linalg.norm(beta, axis=1)[:, None]
    vtol = 1e-8 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(cp.cos2_with_directions(Vt[sep], beta),
                               cp.cos2_with_directions(Vt_ref[:k][sep], beta), atol=vtol)
    np.testing.assert_allclose(np.abs(np.sum(U[:, sep] * U_ref[:, :k][:, sep], axis=0)), 1,
                               atol=vtol)
    m = int(sep.sum())
    if m:
        np.testing.assert_allclose(cp.subspace_projection(Vt[:m], beta),
                                   cp.subspace_projection(Vt_ref[:m], beta), atol=vtol)


@pytest.mark.parametrize("shape", [(300, 200), (200, 300), (400, 400)])
def test_top_singular_of_a_bulk_without_outliers(shape, no_fallback):
    # no gap between the top values (W0, a null run): the case where Lanczos needs the most
    # iterations; it must still agree with LAPACK, be deterministic and not fall back
    W = np.random.default_rng(3).standard_normal(shape) / np.sqrt(shape[1])
    U, s, Vt = cp.top_singular(W, 16)
    U2, s_again, Vt2 = cp.top_singular(W, 16)
    s_ref = np.linalg.svd(W, compute_uv=False)
    np.testing.assert_allclose(s, s_ref[:16], rtol=1e-10)
    # the 16th value is inside the bulk: its gap to the 17th is a small fraction of it
    assert (s_ref[15] - s_ref[16]) / s_ref[15] < 0.02
    # W v = s u and W^T u = s v, one to rounding and the other to 1e-7 s_1^2 / s
    exact, bounded = (W @ Vt.T - U * s, W.T @ U - Vt.T * s)[:: 1 if shape[0] >= shape[1] else -1]
    assert np.max(np.abs(exact)) < 1e-13
    assert np.all(np.linalg.norm(bounded, axis=0) <= 1e-7 * s[0] ** 2 / s)
    assert np.array_equal(s, s_again) and np.array_equal(U, U2) and np.array_equal(Vt, Vt2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_top_singular_at_the_bulk_edge_with_no_gap(dtype, no_fallback):
    # top-12 of a pure Marchenko-Pastur bulk and of a bulk with one outlier: the 12th value is
    # within 1% of the 13th; values agree with LAPACK to 1e-10 (float32: 1e-5)
    for W in (_spiked(600, 600, (), 11, dtype), _spiked(600, 450, (4.0,), 12, dtype)):
        s = cp.top_singular(W, 12)[1]
        s_ref = scipy.linalg.svdvals(W.astype(np.float64))
        assert (s_ref[11] - s_ref[12]) / s_ref[11] < 0.01
        np.testing.assert_allclose(s, s_ref[:12], rtol=1e-10 if dtype == np.float64 else 1e-5)


@pytest.mark.parametrize("shape,spikes,k", [((300, 500), "several", 8), ((500, 300), "none", 12),
                                            ((600, 600), "one", 16)])
def test_top_singular_from_a_float32_start(shape, spikes, k, monkeypatch, no_fallback):
    # float64 matrices of 2^20 to 2^26 entries are first iterated on in float32; the float64
    # iterations that follow decide convergence, so the contract is the same
    import companion.core.lanczos as sp

    monkeypatch.setattr(sp, "_MIXED_SIZES", (0, 1 << 40))
    W = _spiked(*shape, SPIKES[spikes], seed=20 + k)
    (U, s, Vt), info = sp._top_singular(W, k)
    assert info["solver"] == "block" and info["products_float32"] > info["products"] > 0
    U_ref, s_ref, Vt_ref = scipy.linalg.svd(W, full_matrices=False)
    np.testing.assert_allclose(s, s_ref[:k], rtol=1e-10)
    for residual in (W @ Vt.T - U * s, W.T @ U - Vt.T * s):
        assert np.all(np.linalg.norm(residual, axis=0) <= 1e-7 * s[0] ** 2 / s)
    n = len(SPIKES[spikes])
    np.testing.assert_allclose(np.abs(np.sum(Vt[:n] * Vt_ref[:n], axis=1)), 1, atol=1e-9)
    again = sp._top_singular(W, k)[0]
    assert all(np.array_equal(x, y) for x, y in zip((U, s, Vt), again))
    # entries beyond float32's range (or below it) skip the float32 start
    for scale in (1e-150, 1e150):
        (_, s2, _), info = sp._top_singular(W * scale, k)
        assert info["products_float32"] == 0
        np.testing.assert_allclose(s2, s_ref[:k] * scale, rtol=1e-10)


def test_top_singular_is_deterministic_and_seeded(monkeypatch):
    import companion.core.lanczos as sp

    W = _spiked(400, 300, (3.0,), 4)
    first = cp.top_singular(W, 8)
    again = cp.top_singular(W, 8)
    for a, b in zip(first, again):
        assert np.array_equal(a, b)
    # the start block comes from _LANCZOS_SEED: another seed gives the same values (to the
    # tolerance) through different iterations
    monkeypatch.setattr(sp, "_LANCZOS_SEED", 1)
    other = cp.top_singular(W, 8)
    np.testing.assert_allclose(other[1], first[1], rtol=1e-10)
    assert not np.array_equal(other[0], first[0])


def test_top_singular_falls_back_to_propack_with_a_warning(monkeypatch):
    import companion.core.lanczos as sp

    W = _spiked(300, 400, (), 5)       # a bulk edge: two iterations are far from enough
    monkeypatch.setattr(sp, "_MAX_STEPS", 2)
    with pytest.warns(RuntimeWarning, match="did not converge in 2 iterations.*PROPACK"):
        U, s, Vt = cp.top_singular(W, 6)
    np.testing.assert_allclose(s, scipy.linalg.svdvals(W)[:6], rtol=1e-10)
    np.testing.assert_allclose(U.T @ W, s[:, None] * Vt, atol=1e-8)


def test_top_singular_counts_its_products():
    import companion.core.lanczos as sp

    W = _spiked(500, 500, (4.0, 2.5), 6)
    (U, s, Vt), info = sp._block_lanczos(W, 8, 16, sp._MAX_STEPS, sp._LANCZOS_SEED)
    assert info["products"] == 2 * info["steps"] + 1 and info["restarts"] == 0
    assert info["basis"] == 16 * info["steps"] and info["trace"][-1][2] <= 0
    np.testing.assert_allclose(s, scipy.linalg.svdvals(W)[:8], rtol=1e-10)


def test_top_singular_thick_restart(monkeypatch):
    # a basis budget of a few blocks forces thick restarts; the result must not change
    import companion.core.lanczos as sp

    W = _spiked(500, 400, (3.0,), 7)
    monkeypatch.setattr(sp, "_BASIS_BYTES", 8 * 400 * 100)    # 100 rows of 400
    (U, s, Vt), info = sp._block_lanczos(W, 8, 16, sp._MAX_STEPS, sp._LANCZOS_SEED)
    assert info["restarts"] >= 2
    np.testing.assert_allclose(s, scipy.linalg.svdvals(W)[:8], rtol=1e-10)
    np.testing.assert_allclose(W @ Vt.T, U * s, atol=1e-13)


def test_top_singular_edge_cases():
    import companion.core.lanczos as sp

    rng = np.random.default_rng(8)
    # rank 3 < k: the extra values are zeros
    W = rng.standard_normal((300, 3)) @ rng.standard_normal((3, 400))
    s = cp.top_singular(W, 5)[1]
    np.testing.assert_allclose(s, scipy.linalg.svdvals(W)[:5], atol=1e-12 * s[0])
    assert cp.top_singular(np.zeros((200, 300)), 4)[1].tolist() == [0.0] * 4
    # a scale far from 1 neither overflows nor underflows the Gram operator
    for scale in (1e-150, 1e150):
        W = _spiked(300, 300, (3.0,), 9) * scale
        np.testing.assert_allclose(cp.top_singular(W, 4)[1], scipy.linalg.svdvals(W)[:4],
                                   rtol=1e-10)
    # a graded top k (1 down to 1e-7), which the Gram operator cannot resolve, goes to PROPACK
    Qa = np.linalg.qr(rng.standard_normal((300, 300)))[0]
    Qb = np.linalg.qr(rng.standard_normal((400, 300)))[0]
    s_true = 10.0 ** -np.arange(300.0)
    (_, s, _), info = sp._top_singular((Qa * s_true) @ Qb.T, 8)
    np.testing.assert_allclose(s, s_true[:8], rtol=1e-10)
    assert info["solver"] == "propack"
    # within the range (float64: 1 down to 3e-5; float32: down to 3e-3) the block method keeps
    # the relative accuracy
    for dtype, span, rtol in ((np.float64, 3e-5, 1e-10), (np.float32, 3e-3, 1e-5)):
        s_true = np.r_[span ** (np.arange(8) / 7), span * np.linspace(0.9, 0.01, 292)]
        W = ((Qa * s_true) @ Qb.T).astype(dtype)
        (_, s, _), info = sp._top_singular(W, 8)
        assert info["solver"] == "block"
        np.testing.assert_allclose(s, scipy.linalg.svdvals(W.astype(np.float64))[:8], rtol=rtol)


def test_typical_book_matrices_use_the_block_method(no_fallback):
    # the chapters' matrices (2000 x 2000 W2 after two reused steps, a W0 bulk without outliers)
    # converge within the budget: no warning (the strict book build fails on stderr)
    import companion.core.lanczos as sp

    run = cp.run_two_steps(N=2000, target="he1+he3", seed=0)
    for W, k in ((run.W2, 16), (run.W0, 8)):
        (_, s, _), info = sp._top_singular(W, k)
        assert info["solver"] == "block" and info["products_float32"] > 0
        np.testing.assert_allclose(s, cp.singular_values(W)[:k], rtol=1e-10)


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
    import companion.core.lanczos as sp
    from companion.core.network import estimate_run_bytes

    N, item = 16384, np.dtype(dtype).itemsize
    total = estimate_run_bytes(N, N, N, "reused", item)
    topk = sp.top_singular_bytes(N, N, 16, item)
    assert total >= 5 * N * N * item + topk
    assert total <= limit_gib * 2**30
    assert 8 * 24 * N <= topk <= 0.5 * 2**30
    # float32 halves every N x d array but not the float64 basis of the top-k
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


def test_top_singular_each_is_top_singular_with_one_thread():
    # several matrices at once, one per Python thread with single-threaded BLAS: each result
    # is exactly what top_singular gives with one BLAS thread
    from threadpoolctl import threadpool_limits

    mats = [_spiked(700, 600, spikes, seed) for seed, spikes in
            enumerate(((), (3.0,), (5.0, 2.5)))]
    with threadpool_limits(limits=2, user_api="blas"):
        each = cp.top_singular_each(mats, 6)
    with threadpool_limits(limits=1, user_api="blas"):
        alone = [cp.top_singular(W, 6) for W in mats]
    for got, ref, W in zip(each, alone, mats):
        assert all(np.array_equal(x, y) for x, y in zip(got, ref))
        np.testing.assert_allclose(got[1], scipy.linalg.svdvals(W)[:6], rtol=1e-10)
    with pytest.raises(ValueError, match="k must be at most"):
        cp.top_singular_each([mats[0], np.ones((4, 5))], 6)


@pytest.mark.parametrize("shape", [(700, 300), (300, 700)])
def test_top_singular_through_row_blocks(shape, monkeypatch, no_fallback):
    # the Gram products and the Gram-Schmidt passes through row blocks small enough for
    # OpenBLAS's small-matrix kernels (used where the BLAS has them): the same triplets to
    # the tolerances as the whole products, and the same bits with and without the second
    # thread that takes half of the row blocks
    import concurrent.futures

    import companion.core.blas as blas
    import companion.core.lanczos as sp

    W = _spiked(*shape, (4.0, 2.0), 13)
    s_ref = scipy.linalg.svdvals(W)[:8]
    monkeypatch.setattr(blas, "_CHUNKED", False)
    (U0, s0, Vt0), info0 = sp._block_lanczos(W, 8, 16, sp._MAX_STEPS, sp._LANCZOS_SEED)
    monkeypatch.setattr(blas, "_CHUNKED", True)
    assert blas.small_gemm_rows(W if shape[0] >= shape[1] else W.T, 16) == 10**6 // (16 * 300)
    (U, s, Vt), info = sp._block_lanczos(W, 8, 16, sp._MAX_STEPS, sp._LANCZOS_SEED)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        again = sp._block_lanczos(W, 8, 16, sp._MAX_STEPS, sp._LANCZOS_SEED, pool=pool)[0]
    assert all(np.array_equal(x, y) for x, y in zip((U, s, Vt), again))
    for values in (s0, s):
        np.testing.assert_allclose(values, s_ref, rtol=1e-10)
    np.testing.assert_allclose(np.abs(np.sum(Vt[:2] * Vt0[:2], axis=1)), 1, atol=1e-9)
    # a block of rows narrower than a chunk: one whole product
    monkeypatch.setattr(blas, "_SMALL_GEMM", 16 * 300 * 4)
    assert blas.small_gemm_rows(W if shape[0] >= shape[1] else W.T, 16) == 0


def test_top_singular_each_takes_one_k_per_matrix():
    from threadpoolctl import threadpool_limits

    mats = [_spiked(500, 400, spikes, seed) for seed, spikes in
            enumerate(((3.0,), (5.0, 2.5), ()))]
    with threadpool_limits(limits=2, user_api="blas"):
        each = cp.top_singular_each(mats, [4, 12, 1])
    with threadpool_limits(limits=1, user_api="blas"):
        alone = [cp.top_singular(W, k) for W, k in zip(mats, [4, 12, 1])]
    for got, ref in zip(each, alone):
        assert all(np.array_equal(x, y) for x, y in zip(got, ref))
    assert [len(s) for _, s, _ in each] == [4, 12, 1]
    with pytest.raises(ValueError, match="one per matrix"):
        cp.top_singular_each(mats, [4, 12])


def test_top_singular_values_alone_take_fewer_products_to_the_same_accuracy(no_fallback):
    # the values without the vectors' tolerances: a separated top value (a spike over a bulk,
    # as simulate's W2 off the powers of a) needs far fewer float64 products, and the values
    # stay as accurate against LAPACK; top_singular_each gives the same values, no vectors
    from threadpoolctl import threadpool_limits

    import companion.core.lanczos as sp

    W = _spiked(1024, 1024, (1.6, 1.4), 5)          # 2^20 entries: the float32 start too
    s_ref = scipy.linalg.svdvals(W)[:3]
    with threadpool_limits(limits=1, user_api="blas"):
        (_, s_vec, _), info_vec = sp._top_singular(W, 3)
        (U, s, Vt), info = sp._top_singular(W, 3, vectors=False)
        alone = cp.top_singular_values(W, 3)
    assert info["solver"] == info_vec["solver"] == "block"
    assert info["products"] <= info_vec["products"] - 6       # measured: 11 against 19
    for values in (s, s_vec):
        np.testing.assert_allclose(values, s_ref, rtol=1e-12)
    assert np.array_equal(alone, s)
    with threadpool_limits(limits=2, user_api="blas"):
        each = cp.top_singular_each([W, W], 3, vectors=[False, True])
    assert each[0][0] is None and each[0][2] is None and np.array_equal(each[0][1], s)
    assert each[1][0].shape == (1024, 3) and np.array_equal(each[1][1], s_vec)
    with pytest.raises(ValueError, match="one value or one per matrix"):
        cp.top_singular_each([W, W], 3, vectors=[False])


def test_costed_parts_start_longest_first_on_the_fewest_workers():
    # map_single_threaded with cost estimates: results in the order of the parts; four
    # uneven parts on 2 BLAS threads share 2 workers (24 against an even share of 22.5),
    # three equal ones take 3 (on 2 workers the third would run alone)
    import threading
    import time

    from threadpoolctl import threadpool_limits

    from companion.core.blas import map_single_threaded

    def who(part):
        time.sleep(0.05)            # long enough that a free worker is not reused at once
        return part, threading.current_thread().name

    with threadpool_limits(limits=2, user_api="blas"):
        four = map_single_threaded(who, ["a", "b", "c", "d"], 4, costs=[12, 12, 16, 5])
        three = map_single_threaded(who, ["a", "b", "c"], 4, costs=[1, 1, 1])
    assert [p for p, _ in four] == ["a", "b", "c", "d"]
    assert [p for p, _ in three] == ["a", "b", "c"]
    assert len({t for _, t in four}) <= 2 and len({t for _, t in three}) == 3


def test_the_projected_matrix_grows_with_the_basis_keeping_what_it_holds():
    # companion.core.ritz.grown: H is allocated as the basis grows (fresh pages of a full-size
    # projection cost the command line more than the products), never beyond the basis' cap
    from companion.core.ritz import grown

    H = np.arange(9.0).reshape(3, 3)
    assert grown(H, 3, 10) is H
    G = grown(H, 4, 10)
    assert G.shape == (6, 6)                       # twice as many at a time
    np.testing.assert_array_equal(G[:3, :3], H)
    assert not G[3:].any() and not G[:, 3:].any()
    assert grown(G, 9, 7).shape == (7, 7)          # at most the cap
    assert grown(H, 20, 30).shape == (20, 20)      # at least the size asked for
