"""BLAS threads: how many there are, limiting them for a block of code, and splitting work
over them (the hot loops of :mod:`companion.core.network` and :mod:`companion.core.lanczos`).

Why it matters: OpenBLAS's worker threads keep spinning for a while after each product, so
element-wise numpy work that follows a threaded product runs with one core taken (measured:
tanh' of a 1024 x 4096 block in 51 ms after a product, 30 ms otherwise). A large two-step
update (N n d >= 2048^3) therefore runs one single-threaded BLAS per core on its own rows
instead; the block Lanczos method keeps BLAS on one thread except around its products with W.
The products of its block Lanczos method go through row blocks sized for OpenBLAS's small-matrix
kernels where it has them (:func:`small_gemm_rows`).
"""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

_CONTROLLER = None
_CONTROLLER_LOCK = threading.Lock()


def controller():
    """threadpoolctl's controller of the BLAS libraries loaded (created once, by whichever
    thread asks first: 5 to 20 ms of scanning the loaded libraries)."""
    global _CONTROLLER
    with _CONTROLLER_LOCK:
        if _CONTROLLER is None:
            from threadpoolctl import ThreadpoolController
            _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


def blas_threads() -> int:
    """The number of threads BLAS uses now (the user's limits, e.g. OMP_NUM_THREADS=1 or a
    ``threadpoolctl.threadpool_limits`` block, included)."""
    return max([lib["num_threads"] for lib in controller().info() if lib["user_api"] == "blas"]
               or [1])


def limited(n: int | None):
    """A context in which BLAS uses at most ``n`` threads (None: unchanged)."""
    if not n:
        return contextlib.nullcontext()
    return controller().limit(limits=n, user_api="blas")


def map_single_threaded(fn, parts: list, workers: int | None = None, costs=None) -> list:
    """[fn(part) for part in parts], on ``workers`` Python threads at once (default: one per
    part), each with single-threaded BLAS (numpy releases the GIL in products and element-wise
    loops). Each part is computed as it would be alone with one BLAS thread, so the results
    do not depend on the number of workers or the order in which the parts finish.

    With ``costs`` (an estimate per part), the parts start longest first, on the fewest
    workers (from one per BLAS thread up to ``workers``) that finish them within 10% of an
    even share of the cores: fewer large matrices then compete for the cache (simulate's four
    top-k at N = 2048 on 2 cores, W2's top 12 among them: 0.65 s on 2 workers, 0.76 s on 4;
    with W2's top 8, 3 workers are chosen, and 2, 3 or 4 took the same time)."""
    if costs is not None and len(parts) > 1:
        order = sorted(range(len(parts)), key=lambda i: -costs[i])
        most = min(workers or len(parts), len(parts))
        few = min(blas_threads(), most)
        ranked = [costs[i] for i in order]
        workers = next((w for w in range(few, most)
                        if _finish(ranked, w) <= 1.1 * sum(costs) / few), most)
        done = map_single_threaded(fn, [parts[i] for i in order], workers)
        return [done[order.index(i)] for i in range(len(parts))]
    workers = min(workers or len(parts), len(parts))
    if workers <= 1:
        with limited(1):
            return [fn(part) for part in parts]
    with limited(1), ThreadPoolExecutor(workers, thread_name_prefix="companion-blas") as pool:
        return list(pool.map(fn, parts))


def _finish(costs: list, workers: int) -> float:
    """When the last of the jobs (costs, in the order they start) ends on ``workers`` threads
    that each take the next job as they become free."""
    free = [0.0] * workers
    for c in costs:
        free[free.index(min(free))] += c
    return max(free)


# OpenBLAS's kernels for AVX-512 (these architectures) multiply matrices with m n k <= 10^6
# without packing them first ("small-matrix" kernels). A product of a 2048 x 2048 matrix with a
# block of 16 vectors is dominated by that packing: through row blocks of 30 rows, each read
# once for both products while it is in cache, the two products of a step took 3.8 ms instead
# of 7.3 ms in float32 and 7.6 ms instead of 11.3 ms in float64 (one thread, 2-core AMD EPYC).
# Other kernels (Haswell, Zen) have no such path; there the row blocks were 10 to 20% slower,
# so they are used with these architectures only (None: not yet looked up).
# The row blocks are multiplied with np.dot, not np.matmul: np.matmul keeps the GIL for an
# output as small as a block of 16 x 30, so two Lanczos runs in two Python threads took as long
# as one after the other; np.dot releases it around every BLAS call (80 Gram products with 16
# vectors of each of two 2048 x 2048 float32 matrices, in two threads against one after the
# other: np.matmul 0.36 s against 0.33 s, np.dot 0.16 s against 0.30 s).
_SMALL_GEMM = 10**6
_SMALL_GEMM_ARCHITECTURES = {"SkylakeX", "Cooperlake", "SapphireRapids"}
_CHUNKED = None


def small_gemm_rows(A, b):
    """Rows of A per row block of the Gram products (and of the basis per block of the
    Gram-Schmidt passes) for a block of b vectors: the most that keep m n k <= _SMALL_GEMM,
    or 0 (whole products) if the BLAS has no small-matrix kernels or fewer than 8 rows fit."""
    global _CHUNKED
    if _CHUNKED is None:
        archs = {lib.get("architecture") for lib in controller().info()
                 if lib["user_api"] == "blas" and lib.get("internal_api") == "openblas"}
        _CHUNKED = bool(archs & _SMALL_GEMM_ARCHITECTURES)
    rows = _SMALL_GEMM // (b * A.shape[1])
    return rows if _CHUNKED and rows >= 8 else 0


def gram_rows(A, Qb, c, chunk, pool=None):
    """c (Qb A^T) A (the caller multiplies by c once more), as the sum over row blocks A_i of
    ``chunk`` rows of (c Qb A_i^T) A_i: each block is read once and stays in cache for its
    second product. The blocks are summed in two halves, added at the end, the second half
    on ``pool`` if given: the result does not depend on it."""
    N = A.shape[0]
    half = (N // 2 // chunk) * chunk or N

    def part(start, stop):
        Y = np.zeros((Qb.shape[0], A.shape[1]), dtype=A.dtype)
        T = np.empty_like(Y)
        for i in range(start, stop, chunk):
            Ac = A[i:i + chunk]
            X = np.dot(Qb, Ac.T)
            X *= c
            np.dot(X, Ac, out=T)
            Y += T
        return Y

    if pool is None:
        Y, Y2 = part(0, half), part(half, N)
    else:
        later = pool.submit(part, half, N)
        Y = part(0, half)
        Y2 = later.result()
    Y += Y2
    return Y


def project_out(Y, Qp, chunk):
    """One pass of classical Gram-Schmidt: C = Y Qp^T, Y -= C Qp (in place); returns C.
    With ``chunk``, through blocks of that many rows of Qp (see :func:`small_gemm_rows`)."""
    if not chunk or Qp.shape[0] <= chunk:
        C = Y @ Qp.T
        Y -= C @ Qp
        return C
    C = np.empty((Y.shape[0], Qp.shape[0]), dtype=Y.dtype)
    D = np.zeros_like(Y)
    T = np.empty_like(Y)
    for i in range(0, Qp.shape[0], chunk):
        Qc = Qp[i:i + chunk]
        Cc = C[:, i:i + chunk]
        Cc[...] = np.dot(Y, Qc.T)
        np.dot(Cc, Qc, out=T)
        D += T
    Y -= D
    return C
