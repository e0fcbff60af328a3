"""Run experiment sweeps: units of work (one parameter point, one seed) computed in parallel,
cached on disk, resumable, with progress bars.

An :class:`Experiment` says which units a scale needs and how to compute one; :func:`run_sweep`
computes the units that the :class:`~companion.core.cache.ResultCache` does not hold yet, with
joblib (``jobs`` processes) or on a Dask cluster (``scheduler`` address, through joblib's dask
backend), and stores each result as soon as it arrives, so an interrupted sweep resumes where
it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.core.blas import threads_per_worker
from companion.core.cache import ResultCache
from companion.core.experiment import Experiment, takes_shared
from companion.core.network import SharedDraws
from companion.core.runs import Run, Runs


def _compute_unit(unit, params: dict, seed: int, blas_threads: int | None,
                  shared: SharedDraws | None = None):
    """Worker entry point: ``unit(**params, seed=seed)`` (and ``shared=shared``, if given)
    with at most ``blas_threads`` BLAS threads (so that K workers on a C-core machine do not
    fight over the cores)."""
    from threadpoolctl import threadpool_limits

    lend = {} if shared is None else {"shared": shared}
    with threadpool_limits(limits=blas_threads):
        return params, seed, unit(**params, seed=seed, **lend)


@dataclass
class Plan:
    """The units of one experiment at one scale, split into cache hits and pending work."""

    units: list[tuple[dict, int]]
    hits: dict[int, dict]
    pending: list[int]


def plan_sweep(exp: Experiment, scale: str, cache: ResultCache) -> Plan:
    """Look every unit of ``exp`` at ``scale`` up in the cache (a bad entry counts as pending)."""
    units = exp.units(scale)
    hits, pending = {}, []
    for i, (params, seed) in enumerate(units):
        hit = cache.load(exp.cache_name, params, seed)
        if hit is None:
            pending.append(i)
        else:
            hits[i] = hit
    return Plan(units, hits, pending)


def run_sweep(exp: Experiment, scale: str, cache: ResultCache, jobs: int = 1,
              scheduler: str | None = None, progress=None, plan: Plan | None = None) -> Runs:
    """All runs of ``exp`` at ``scale``, in the order of ``exp.units``, computing only what
    the cache lacks and storing each result as soon as it arrives.

    ``progress`` is ``None`` or a callable ``progress(params, seed)`` called once per unit
    computed here (cache hits are not reported: they cost nothing). Results are dicts of
    numpy arrays (scalars as 0-d arrays), the same whether computed or read from the cache.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    plan = plan_sweep(exp, scale, cache) if plan is None else plan
    units = plan.units
    results: dict[int, tuple[dict, int, dict]] = {
        i: (units[i][0], units[i][1], hit) for i, hit in plan.hits.items()}
    if plan.pending:
        index = {(_key(units[i][0]), units[i][1]): i for i in plan.pending}
        # the smallest sizes first: an interrupted run then holds whole sizes, which
        # reproduce --from-cache can store and draw (units of equal N keep their order)
        todo = sorted((units[i] for i in plan.pending), key=lambda u: u[0].get("N", 0))
        for params, seed, result in _execute(exp, todo, jobs, scheduler):
            result = {k: np.asarray(v) for k, v in result.items()}
            cache.store(exp.cache_name, params, seed, result)
            results[index[(_key(params), seed)]] = (params, seed, result)
            if progress is not None:
                progress(params, seed)
    return Runs(Run(*results[i]) for i in range(len(units)))


def _key(params: dict) -> str:
    import json

    return json.dumps(params, sort_keys=True, default=str)


def _execute(exp: Experiment, units, jobs: int, scheduler: str | None):
    """Yield (params, seed, result) as units finish."""
    if jobs == 1 and scheduler is None:
        # in this process: the units of one seed share their draws and first step, the same
        # numbers bit for bit (companion.core.network.SharedDraws)
        shared = SharedDraws() if takes_shared(exp.unit) else None
        for params, seed in units:
            yield _compute_unit(exp.unit, params, seed, None, shared)
        return
    import joblib

    blas = threads_per_worker(jobs) if scheduler is None else None
    tasks = (joblib.delayed(_compute_unit)(exp.unit, p, s, blas) for p, s in units)
    if scheduler is None:
        yield from joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")(tasks)
        return
    from distributed import Client, as_completed

    with Client(scheduler) as client:
        threads = sum(client.nthreads().values())
        if threads <= 1:
            # joblib's dask backend sizes itself by the cluster's threads; with one thread it
            # falls back to joblib's sequential backend and runs everything HERE, silently.
            # Submit to the cluster directly instead.
            futures = [client.submit(_compute_unit, exp.unit, p, s, None, pure=False)
                       for p, s in units]
            try:
                for future in as_completed(futures):
                    yield future.result()
            finally:
                client.cancel(futures)
            return
        with joblib.parallel_config(backend="dask"):
            yield from joblib.Parallel(n_jobs=-1 if jobs == 1 else jobs,
                                       return_as="generator_unordered")(tasks)
