"""How many threads BLAS uses, and a block of code with fewer (threadpoolctl).

The chapters' sweeps of many small products run with one BLAS thread: at their sizes,
threads cost more than they give. The controller of the loaded BLAS libraries is made once,
because making it scans every library the process has loaded.
"""

from __future__ import annotations

import contextlib
import functools
import os


@functools.cache
def controller():
    """threadpoolctl's controller of the BLAS libraries loaded (made once)."""
    from threadpoolctl import ThreadpoolController  # imported where it is first needed
    return ThreadpoolController()


def blas_threads() -> int:
    """The number of threads BLAS uses now (the user's limits, e.g. OMP_NUM_THREADS=1 or a
    ``threadpoolctl.threadpool_limits`` block, included)."""
    return max([lib["num_threads"] for lib in controller().info() if lib["user_api"] == "blas"]
               or [1])


def threads_per_worker(workers: int) -> int:
    """BLAS threads for each of ``workers`` processes sharing this machine's cores: together
    they start no more threads than there are cores, and each at least one."""
    return max(1, (os.cpu_count() or 1) // workers)


def limited(n: int | None):
    """A context in which BLAS uses at most ``n`` threads (None: unchanged)."""
    if not n:
        return contextlib.nullcontext()
    return controller().limit(limits=n, user_api="blas")
