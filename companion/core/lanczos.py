"""Top singular triplets by block Lanczos on the Gram operator (book: dv-spiked-rectangular,
dv-census).

The outliers of W1 and W2 and their singular vectors (the learned directions) are a few of
the largest singular triplets of an N x d matrix. :func:`top_singular` finds them with block
Lanczos on the Gram operator of the smaller side, with full reorthogonalization: every
iteration multiplies the matrix and its transpose by one block of k + 4 vectors, so the work
is bound by matrix products rather than by Python-level loops. Where it does not converge it
warns and falls back to PROPACK (``scipy.sparse.linalg.svds``). :func:`top_singular_each`
computes several matrices' top k at once on the machine's cores; :func:`top_singular_values`
the values alone. NumPy only (SciPy for the fallback alone): importing ``scipy.linalg``
costs more of a command line run than its subset eigensolver would save.
"""

from __future__ import annotations

import math
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from companion.core.blas import (
    blas_threads,
    gram_rows,
    limited,
    map_single_threaded,
    project_out,
    small_gemm_rows,
)
from companion.core.ritz import convergence_deficit, grown, orthonormalize, top_eigenpairs
from companion.core.validation import (
    available_memory_bytes,
    check_fits_in_memory,
    finite_array,
    positive_int,
)

# The start block (and the fallback's start vector) is drawn from this seed: reproducible.
_LANCZOS_SEED = 20260518
# Block size: k + _BLOCK_EXTRA vectors. A block larger than k is what makes the k-th value
# converge at the edge of a bulk, where it has no gap to the (k+1)-th; k + 4 took 10 to 20%
# less time than k + 8 for simulate's matrices at N = 2048.
_BLOCK_EXTRA = 4
# Iteration budget in block steps (two products each; the book's matrices need 20 to 40 at
# N = 2000, benchmarks/run.py counts them); past it, PROPACK with a warning.
_MAX_STEPS = 150
# Memory of the Krylov basis before a thick restart (never below it: the fewest products).
_BASIS_BYTES = 256 * 2**20
# Relative accuracy of the values (the bound is pessimistic) and separated vectors' angles.
_TOL_VALUE = {np.dtype(np.float64): 1e-12, np.dtype(np.float32): 1e-9}
_TOL_VECTOR = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 1e-6}
# Every triplet satisfies W v = s u and W^T u = s v to this times s_1^2 / s.
_TOL_RESIDUAL = {np.dtype(np.float64): 1e-7, np.dtype(np.float32): 1e-5}
# Through the Gram operator, singular values far below the largest lose relative accuracy
# (measured on graded spectra: 1e-13 relative at 1e-5 s_1 and 8e-12 at 1e-6 s_1 in float64,
# 1e-7 at 2e-3 s_1 and 2e-7 at 1e-3 s_1 in float32); a top k that reaches below this fraction
# of s_1 is recomputed by PROPACK, which works on W itself.
_RANGE = {np.dtype(np.float64): 1e-5, np.dtype(np.float32): 2e-3}
# float64 matrices with this many entries are first iterated on in a float32 copy (products
# in half the time); the float64 iterations start from its Ritz vectors and decide.
_MIXED_SIZES = (1 << 20, 1 << 26)
# Matrices with at least this many entries are multiplied with all of BLAS's threads.
_WIDE_PRODUCTS = 1 << 20
_clock = time.perf_counter   # of the times in ``info`` (time.thread_time: one thread's work)


def top_singular_bytes(N: int, d: int, k: int, itemsize: int = 8) -> int:
    """Working memory of :func:`top_singular` on an N x d matrix of the given item size: the
    Krylov basis (at most ``_BASIS_BYTES``) and its projection, a block of products in both
    spaces, the k vectors returned, and the float32 copy of :func:`_mixed` matrices."""
    m, big = min(N, d), max(N, d)
    b = min(k + _BLOCK_EXTRA, m)
    rows = _basis_rows(m, k, b)
    copy32 = 4 * N * d if itemsize == 8 and _MIXED_SIZES[0] <= N * d <= _MIXED_SIZES[1] else 0
    return (8 * rows * m + 8 * rows * rows + b * (N + d) * (8 + itemsize)
            + k * (N + d) * (8 + itemsize) + 8 * k * big + copy32)


def _basis_rows(m: int, k: int, b: int) -> int:
    """Rows of the basis array: the cap before a thick restart, plus one block."""
    cap = max(_BASIS_BYTES // (8 * m), k + 4 * b)
    return min(m, cap) + b


def top_singular(W, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top ``k`` singular triplets (U: N x k, s: k, Vt: k x d), s decreasing.

    Block Lanczos with full reorthogonalization on the Gram operator of the smaller side
    (W^T W if N >= d, else W W^T; Golub & Van Loan, *Matrix Computations*, 4th ed., 10.3.6),
    with Rayleigh-Ritz on the whole Krylov basis, and a thick restart (Wu & Simon 2000) only
    if the basis outgrows ``_BASIS_BYTES``. Each iteration is two products of W with a block
    of k + 4 vectors, drawn at the start from a fixed seed, so results are deterministic. A
    block larger than k is what lets the k-th value converge at the edge of a
    Marchenko-Pastur bulk, where it has no gap to the next (W0, a null run; book: dv-census).

    The iteration stops when residual bounds guarantee the values to 1e-12 relative, the
    vectors of separated values (gap to the neighbours >= 5% of the value) to an angle of
    1e-9, and every triplet to ||W v - s u||, ||W^T u - s v|| <= 1e-7 s_1^2 / s (float32:
    1e-9, 1e-6, 1e-5 for the float32 matrix). The triplets returned are the SVD of W
    restricted to the converged subspace (one more product), so that one of the two
    relations, W v = s u if N >= d, else W^T u = s v, holds to rounding. A float64 matrix of
    2^20 to 2^26 entries is first iterated on in float32 (a copy; products in half the time)
    and the float64 iterations start from its Ritz vectors; they alone decide convergence, so
    the guarantees are the same. Measured against LAPACK: values to about 1e-14, vectors of
    separated values to 1e-15, at the top 8 to 16 of bulks with and without outliers
    (``tests/core/test_spectra.py``). At N = 2048 the top 8 takes 70 to 75 products with a block
    of 12 (13 to 17 of them in float64), where PROPACK takes about 300 matrix-vector
    products (``benchmarks/run.py``, which also times them).

    Fallbacks: if the block method has not converged within ``_MAX_STEPS`` iterations it warns
    (``RuntimeWarning``) and uses Lanczos bidiagonalization (PROPACK through
    ``scipy.sparse.linalg.svds``, then ARPACK); a top k that spans more than five orders of
    magnitude (float32: s_k < 2e-3 s_1), where the Gram operator loses the relative accuracy of
    the smallest values, is recomputed the same way without a warning; a dense SVD is used
    when the matrix is small or k is close to min(N, d).
    """
    W, k = _checked(W, k)
    return _top_singular(W, k)[0]


def top_singular_values(W, k: int) -> np.ndarray:
    """The top ``k`` singular values of :func:`top_singular`, to the same accuracy, without
    the tolerances of the vectors and triplets: fewer iterations where a value is separated
    (the top 1 of simulate's W2 off the powers of a: 9 float64 products instead of 21)."""
    W, k = _checked(W, k)
    return _top_singular(W, k, vectors=False)[0][1]


def _checked(W, k) -> tuple[np.ndarray, int]:
    """W as a finite 2-d array and k as a positive integer of at most min(N, d)."""
    W = finite_array(W, "W", 2)
    k = positive_int(k, "k")
    if k > min(W.shape):
        raise ValueError(f"k must be at most min(N, d) = {min(W.shape)}, got {k}")
    return W, k


def top_singular_each(matrices, k, vectors=True) -> list[tuple]:
    """:func:`top_singular` of each matrix, computed at once on the machine's cores (one
    matrix per Python thread, each with single-threaded BLAS, see :mod:`companion.core.blas`).
    ``k``: one number for every matrix, or one per matrix; ``vectors``: one bool or one per
    matrix, False for :func:`top_singular_values` (then the result is ``(None, s, None)``).

    Each result is the one :func:`top_singular` gives with one BLAS thread: it does not depend
    on how the matrices are shared out. Faster than one after the other because a third of
    the block method's time is small operations that use one core (the Rayleigh-Ritz
    eigensolver, Cholesky QR; times in ``benchmarks/run.py``)."""
    matrices = list(matrices)
    ks, vs = ([x] * len(matrices) if np.ndim(x) == 0 else list(x) for x in (k, vectors))
    if not len(ks) == len(vs) == len(matrices):
        raise ValueError(f"k and vectors must be one value or one per matrix ({len(matrices)}), "
                         f"got {k!r} and {vectors!r}")
    jobs = [_checked(W, kk) + (bool(v),) for W, kk, v in zip(matrices, ks, vs)]
    threads = blas_threads()
    need = sum(top_singular_bytes(*W.shape, kk, W.dtype.itemsize) for W, kk, _ in jobs)

    def job(W, k, vectors):
        (U, s, Vt), _ = _top_singular(W, k, vectors)
        return (U, s, Vt) if vectors else (None, s, None)

    if threads == 1 or need > 0.5 * available_memory_bytes():
        return [job(*j) for j in jobs]     # one at a time
    return map_single_threaded(lambda j: job(*j), jobs, 2 * threads,   # longest first
                               costs=[W.size * (kk + _BLOCK_EXTRA) for W, kk, _ in jobs])


def _top_singular(W: np.ndarray, k: int, vectors: bool = True):
    """:func:`top_singular` for a checked W and k (``vectors=False``: the value tolerance
    alone): ``((U, s, Vt), info)``; ``info`` says which ``solver`` gave the result ("block",
    "propack" or "dense") and counts and times the block method's products with W as
    :func:`_block_lanczos` does (the same with ``_float32`` for the float32 start)."""
    m = min(W.shape)
    b = min(k + _BLOCK_EXTRA, m)
    if k >= m - 1 or m <= 64 or 2 * (k + b) >= m:
        U, s, Vt = np.linalg.svd(W, full_matrices=False)
        return (U[:, :k], s[:k], Vt[:k]), {"solver": "dense"}
    check_fits_in_memory(top_singular_bytes(*W.shape, k, W.dtype.itemsize),
                         f"the top {k} singular vectors of a {W.shape[0]} x {W.shape[1]} matrix")
    # Only the products with W and the basis use all of BLAS's threads (W of at least
    # _WIDE_PRODUCTS entries): on a busy machine, waiting threads made the small operations
    # ten times slower (26 s instead of 2 s for a 2048 x 2048 W0's top 8, load 9 on 2 cores).
    threads = blas_threads()
    wide = threads if W.size >= _WIDE_PRODUCTS and threads > 1 else None
    pool = None
    if wide and small_gemm_rows(W if W.shape[0] >= W.shape[1] else W.T, b):
        # small-matrix kernels use one thread: half of the row blocks go to a second one
        wide, pool = None, ThreadPoolExecutor(1, thread_name_prefix="companion-lanczos")
    try:
        with limited(1):
            start, info32 = (_float32_start(W, k, b, wide, pool, vectors) if _mixed(W)
                             else (None, {}))
            out, info = _block_lanczos(W, k, b, _MAX_STEPS, _LANCZOS_SEED, wide, start,
                                       _tolerances(W.dtype, vectors), pool=pool)
    finally:
        if pool is not None:
            pool.shutdown()
    info.update(solver="block", products_float32=info32.get("products", 0),
                seconds_float32=info32.get("seconds", 0.0),
                product_seconds_float32=info32.get("product_seconds", 0.0), info32=info32)
    if out is None:
        warnings.warn(f"top_singular: block Lanczos did not converge in {info['steps']} "
                      f"iterations ({info['products']} products) for the top {k} singular values "
                      f"of a {W.shape[0]} x {W.shape[1]} matrix; falling back to PROPACK",
                      RuntimeWarning, stacklevel=3)
    elif out[1][-1] < _RANGE[W.dtype] * out[1][0]:
        out = None                      # a graded spectrum: see top_singular's docstring
    if out is None:
        info["solver"] = "propack"
        out = _propack(W, k)
    return out, info


def _propack(W: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fallback: Lanczos bidiagonalization (PROPACK) from a seeded start vector, then
    ARPACK if PROPACK fails; s decreasing."""
    from scipy.sparse.linalg import svds  # only here: its import took 0.19 to 0.45 s

    m = min(W.shape)
    rng = np.random.default_rng(_LANCZOS_SEED)
    try:
        # PROPACK starts from a vector of length N; a bulk without outliers (W0, a null run)
        # needs more than its default 10 k iterations, hence maxiter.
        U, s, Vt = svds(W, k=k, solver="propack", maxiter=min(m, max(1000, 10 * k)),
                        v0=rng.standard_normal(W.shape[0]).astype(W.dtype), random_state=rng)
    except Exception:   # PROPACK did not converge or is unavailable: ARPACK, same contract
        v0 = np.random.default_rng(_LANCZOS_SEED).standard_normal(m).astype(W.dtype)
        U, s, Vt = svds(W, k=k, v0=v0, solver="arpack")
    order = np.argsort(s)[::-1]
    return U[:, order], s[order], Vt[order]


def _mixed(W: np.ndarray) -> bool:
    """Whether top_singular starts W (float64) from float32 iterations."""
    return W.dtype == np.float64 and _MIXED_SIZES[0] <= W.size <= _MIXED_SIZES[1]


def _tolerances(dt, vectors: bool) -> tuple[float, float, float]:
    """(value, vector, residual) tolerances of :func:`companion.core.ritz.convergence_deficit`;
    the value's alone without ``vectors``."""
    dt = np.dtype(dt)
    return (_TOL_VALUE[dt],) + ((_TOL_VECTOR[dt], _TOL_RESIDUAL[dt]) if vectors
                                else (np.inf, np.inf))


def _float32_start(W: np.ndarray, k: int, b: int, wide, pool=None, vectors: bool = True):
    """(V, info): the top b Ritz vectors of block Lanczos on float32(W), whose products take
    half the time of float64's, to start the float64 iterations, which then check and refine
    them; V is None if W's entries do not fit float32's range."""
    with np.errstate(over="ignore", under="ignore"):
        W32 = W.astype(np.float32)
    top, bottom = float(np.max(W32)), float(np.min(W32))
    if not (np.isfinite(top) and np.isfinite(bottom) and max(top, -bottom) > 1e-30):
        return None, {}
    return _block_lanczos(W32, k, b, _MAX_STEPS, _LANCZOS_SEED, wide,
                          tols=_tolerances(np.float32, vectors), ritz=True, basis=np.float32,
                          pool=pool)


def _block_lanczos(W: np.ndarray, k: int, b: int, max_steps: int, seed: int, wide=None,
                   start=None, tols=None, ritz=False, basis=np.float64, pool=None):
    """Top-k singular triplets of W by block Lanczos on G = A^T A, A = W (N >= d) or W^T.

    Returns ``((U, s, Vt), info)``, or ``(None, info)`` if not converged in ``max_steps``
    block steps. ``info`` counts the ``products`` with a ``block`` of vectors (two per step,
    one at the end), ``steps``, Rayleigh-Ritz ``checks``, thick ``restarts``, the final
    ``basis`` size, times (``seconds``, ``product_seconds``, ...) and a ``trace`` of (step,
    basis size, log of residual over tolerance, largest residual) per check. ``start`` (b x
    m rows) replaces the random start block; ``tols``: (value, vector, residual); with
    ``ritz=True`` the top b Ritz vectors (rows) are returned, converged or not; ``basis``:
    the basis dtype (float32 for the float32 start: half the traffic of Gram-Schmidt).

    The basis Q (rows) spans the block Krylov space of G; each step multiplies the newest
    block by G (two products in W's dtype), orthogonalizes the result against the whole basis
    twice (classical Gram-Schmidt) and orthonormalizes it (Cholesky QR, twice), so that
    G Q^T = Q^T H + Q_next^T R E^T with H = Q G Q^T (block tridiagonal) filled as it goes.
    The Ritz pairs (theta_i, z_i) of H have residuals ||R z_i|| over the last block, which
    bound the error of theta_i by ||r||^2 / gap_i and the angle of y_i by ||r|| / gap_i
    (Parlett, *The Symmetric Eigenvalue Problem*, 11.7); the iteration stops when these meet
    the tolerances, checked (Rayleigh-Ritz) when the rate seen so far predicts convergence.
    """
    N, d = W.shape
    A = W if N >= d else W.T            # A: (larger side) x m; G = A^T A is m x m
    m = A.shape[1]
    dt = W.dtype
    eps = float(np.finfo(dt).eps)
    tols = tols or _tolerances(dt, True)
    rows = _basis_rows(m, k, b)
    p_max = rows - b                     # basis size that triggers a thick restart
    keep = min(k + b, p_max - b)         # Ritz vectors kept by a restart
    rng = np.random.default_rng(seed)
    chunk = small_gemm_rows(A, b)
    Q = np.empty((rows, m), dtype=basis)
    H = np.zeros((min(rows, 8 * b),) * 2)    # grown as the basis grows (ritz.grown)
    Q[:b], _ = orthonormalize(rng.standard_normal((b, m)) if start is None else start,
                              Q[:0], 1.0, eps, rng)
    p, lo = b, 0                         # basis Q[:p]; newest block Q[lo:p]
    info = {"block": b, "products": 0, "steps": 0, "checks": 0, "restarts": 0, "basis": p,
            "trace": [], "seconds": 0.0, "product_seconds": 0.0, "reorth_seconds": 0.0,
            "qr_seconds": 0.0, "rr_seconds": 0.0}
    clock = _clock
    t_start = clock()
    next_check = max(2, math.ceil((k + 1) / b)) if start is None else 1
    last = None                          # (step, deficit) at the previous check
    c = None
    while True:
        # one step: G times the newest block, as rows: (Q_c A^T) A, scaled by c^2 so that
        # the Gram operator neither overflows nor underflows (c is fixed at the first step)
        H = grown(H, p + b, rows)
        t_product = clock()
        with limited(wide):
            Qb = Q[lo:p].astype(dt, copy=False)
            if c is None or not chunk:
                X = Qb @ A.T
                if c is None:
                    size = float(np.max(np.abs(X)))
                    c = 1.0 / size if 0.0 < size < np.inf else 1.0
                X *= c
                Y = X @ A
            else:
                Y = gram_rows(A, Qb, c, chunk, pool)
            Y *= c
        t_reorth = clock()
        info["product_seconds"] += t_reorth - t_product
        info["products"] += 2
        info["steps"] += 1
        step = info["steps"]
        Y = Y.astype(basis, copy=False)
        scale = float(np.linalg.norm(Y))
        with limited(wide):
            C = project_out(Y, Q[:p], chunk)     # block row of H = Q G Q^T
            C += project_out(Y, Q[:p], chunk)    # second pass of Gram-Schmidt
        H[lo:p, :p] = C
        H[:p, lo:p] = C.T
        bn = min(b, m - p)               # size of the next block (the space may run out)
        t_qr = clock()
        info["reorth_seconds"] += t_qr - t_reorth
        Qn, R = orthonormalize(Y.astype(np.float64, copy=False), Q[:p], scale, eps, rng)
        t_rr = clock()
        info["qr_seconds"] += t_rr - t_qr
        full = p + bn > p_max
        if step >= next_check or bn == 0 or full or step >= max_steps:
            info["checks"] += 1
            n_ritz = min(p, max(k + 1, keep if full else 0, b if ritz else 0))
            theta, Z = top_eigenpairs(H[:p, :p], n_ritz)
            res = np.linalg.norm(R[:bn] @ Z[lo:p, :k], axis=0)
            deficit = convergence_deficit(theta, res, k, eps, *tols)
            info["rr_seconds"] += clock() - t_rr
            info["trace"].append((step, p, round(deficit, 2), float(res.max(initial=0.0))))
            if deficit <= 0.0 or bn == 0:
                break
            if step >= max_steps:
                info["basis"] = p
                info["seconds"] = clock() - t_start
                return (Z[:, :b].T @ Q[:p] if ritz else None), info
            if last is not None and last[1] > deficit:
                # the log-residual falls about linearly (faster near the end): check again a
                # little before the step where the present rate predicts convergence
                rate = (last[1] - deficit) / (step - last[0])
                jump = math.ceil(0.8 * deficit / rate)
            else:
                jump = 2
            last = (step, deficit)
            next_check = step + max(1, min(jump, max(2, step // 3)))
        if full:                         # thick restart: keep the top Ritz vectors
            info["restarts"] += 1
            Q[:keep] = Z[:, :keep].T @ Q[:p]
            coupling = R[:bn] @ Z[lo:p, :keep]
            H[:] = 0.0
            H[np.arange(keep), np.arange(keep)] = theta[:keep]
            H[keep:keep + bn, :keep] = coupling
            H[:keep, keep:keep + bn] = coupling.T
            Q[keep:keep + bn] = Qn[:bn]
            lo, p = keep, keep + bn
            continue
        Q[p:p + bn] = Qn[:bn]
        H[p:p + bn, lo:p] = R[:bn]
        H[lo:p, p:p + bn] = R[:bn].T
        lo, p = p, p + bn
    info["basis"] = p
    if ritz:
        info["seconds"] = clock() - t_start
        return Z[:, :b].T @ Q[:p], info
    V = Z[:, :k].T @ Q[:p]               # Ritz vectors (rows) in the m-dimensional space
    t_product = clock()
    with limited(wide):
        B = V.astype(dt, copy=False) @ A.T   # k x (larger side): A restricted to them
    info["product_seconds"] += clock() - t_product
    info["products"] += 1
    P, s, Bt = np.linalg.svd(B.astype(np.float64, copy=False), full_matrices=False)
    small = P.T @ V                      # singular vectors in the m-dimensional space (rows)
    U, Vt = (Bt.T, small) if N >= d else (small.T, Bt)
    info["seconds"] = clock() - t_start
    return (U.astype(dt, copy=False), s.astype(dt, copy=False), Vt.astype(dt, copy=False)), info
