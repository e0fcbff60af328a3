"""BLAS threads: how many there are, limiting them for a block of code, and splitting work
over them (the hot loops of :mod:`companion.network` and :mod:`companion.lanczos`).

Why it matters: OpenBLAS's worker threads keep spinning for a while after each product, so
element-wise numpy work that follows a threaded product runs with one core taken (measured:
tanh' of a 1024 x 4096 block in 51 ms after a product, 30 ms otherwise). A large two-step
update (N n d >= 2048^3) therefore runs one single-threaded BLAS per core on its own rows
instead; the block Lanczos method keeps BLAS on one thread except around its products with W.
"""

from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor

_CONTROLLER = None


def controller():
    """threadpoolctl's controller of the BLAS libraries loaded (created once: 5 ms)."""
    global _CONTROLLER
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


def map_single_threaded(fn, parts: list, workers: int | None = None) -> list:
    """[fn(part) for part in parts], on ``workers`` Python threads at once (default: one per
    part), each with single-threaded BLAS (numpy releases the GIL in products and element-wise
    loops). Each part is computed as it would be alone with one BLAS thread, so the results
    do not depend on the number of workers or the order in which the parts finish."""
    workers = min(workers or len(parts), len(parts))
    if workers <= 1:
        with limited(1):
            return [fn(part) for part in parts]
    with limited(1), ThreadPoolExecutor(workers, thread_name_prefix="companion-blas") as pool:
        return list(pool.map(fn, parts))
