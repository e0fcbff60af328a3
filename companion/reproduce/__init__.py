"""Reproduce every experiment of the book (book: reg-experiments) at the book's size or
at paper scale: ``python -m companion reproduce [--scale small|paper] [--only E4,E7] [--jobs K]
[--out DIR] [--scheduler ADDRESS]``.

Each experiment (:mod:`.catalog`) is a list of units (one parameter point x one seed) and a
unit function that lives in the chapter's experiment module: the science is in
:mod:`companion.core.experiment`, nothing is re-implemented here. Units are cached on disk
(:class:`companion.core.cache.ResultCache`: keyed by every parameter, the seed, the package version
and :func:`.catalog.code_fingerprint`), run in parallel by :func:`companion.core.sweep.run_sweep`,
drawn by the same figure function the chapter uses (PNG and PDF) and written as tidy data
(:mod:`.tidy`).

Scales: ``small`` = the chapters' default sizes; ``paper`` = N up to 4096 (8192 for E4, E7
and E11) with 4 to 6 seeds per point.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

from companion import __version__
from companion.core import store
from companion.core.cache import ResultCache
from companion.core.experiment import SCALES, check_scale
from companion.core.runs import Run, Runs
from companion.core.sweep import plan_sweep, run_sweep
from companion.reproduce.catalog import (
    CATALOG,
    EXPERIMENT_IDS,
    SIDECAR,
    code_fingerprint,
    experiment_fingerprint,
)
from companion.reproduce.tidy import write_tidy

__all__ = ["CATALOG", "EXPERIMENT_IDS", "SCALES", "check_output_dir", "code_fingerprint",
           "experiment_fingerprint", "parse_only", "reproduce", "report", "store_cached"]


def parse_only(text: str | None) -> list[str]:
    """``"E4,E7"`` -> ``["E4", "E7"]`` (order kept, duplicates dropped); ``None`` -> all."""
    if text is None:
        return list(EXPERIMENT_IDS)
    ids = []
    for part in text.split(","):
        eid = part.strip().upper()
        if not eid:
            continue
        if eid not in CATALOG:
            raise ValueError(f"unknown experiment id {part.strip()!r} "
                             f"(known: {', '.join(EXPERIMENT_IDS)})")
        if eid not in ids:
            ids.append(eid)
    if not ids:
        raise ValueError("--only lists no experiment")
    return ids


def unit_cost(params: dict, weight: float = 1.0) -> float:
    """Rough relative cost of a unit, for the overall time-left estimate (two GEMMs of size
    N x n x d per gradient: ~N^3; ``weight`` from the experiment, e.g. the dense SVD of E10),
    rounded so that the bar's total is the exact sum of its updates."""
    n = float(params.get("N", 1000)) / 1000.0
    return round(weight * max(n, 0.05) ** 3, 3)


def report(eid: str, scale: str, runs, out: Path, sidecar: dict | None = None) -> list[Path]:
    """Draw experiment ``eid``'s figure from ``runs`` (PNG and PDF) and write its tidy data;
    ``sidecar``: what the JSON says beyond the sizes (default :data:`SIDECAR`'s entry)."""
    import matplotlib.pyplot as plt

    entry = CATALOG[eid]
    fig = entry.figure(runs)
    paths = [out / f"{eid}.png", out / f"{eid}.pdf"]
    for p in paths:
        fig.savefig(p, bbox_inches="tight")
    plt.close(fig)
    return paths + write_tidy(out, entry.experiment, scale, runs, entry.rows(runs),
                              SIDECAR.get(eid) if sidecar is None else sidecar)


def seed_cache_from_stored(eid: str, scale: str, cache: ResultCache, root=None) -> int:
    """Put the stored runs of ``eid`` (``root``, default the package's stored data) that are
    units of ``eid`` at ``scale`` into ``cache``, so that a paper-scale run extends the
    stored file instead of recomputing it. Trusted only after a check: the cheapest stored
    unit is recomputed with this code and must equal the stored result (``rtol`` 1e-6, the
    stored arrays' float32 rounding), else ValueError. Returns the number of runs put."""
    exp = CATALOG[eid].experiment
    stored = store.load(eid, root)
    if stored is None:
        return 0
    units = {(json.dumps(p, sort_keys=True), s) for p, s in exp.units(scale)}
    reusable = [r for r in stored if (json.dumps(r.params, sort_keys=True), r.seed) in units]
    if not reusable:
        return 0
    probe = min(reusable, key=lambda r: unit_cost(r.params, exp.cost))
    fresh = exp.unit(**probe.params, seed=probe.seed)
    for name, value in probe.result.items():
        got = np.asarray(fresh.get(name))
        if got.shape != np.shape(value) or not np.allclose(got, value, rtol=1e-6, atol=1e-9,
                                                             equal_nan=True):
            raise ValueError(f"{eid}: the stored {name} of {probe.params}, seed {probe.seed}, "
                             "differs from this code's: the stored runs cannot be reused")
    for r in reusable:
        if cache.load(exp.cache_name, r.params, r.seed) is None:
            cache.store(exp.cache_name, r.params, r.seed, dict(r.result))
    return len(reusable)


def store_cached(eid: str, scale: str, out, cache_dir=None) -> list[Path]:
    """Draw and store what the cache holds of ``eid`` at ``scale`` and compute nothing: the
    runs of the sizes (N) whose every unit is cached, so that a long run that was stopped
    can be stored and drawn with the sizes it finished (its sidecar's ``sizes`` still lists
    the whole design; ``stored`` lists what the file holds). ValueError if no size is
    complete."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    exp = CATALOG[eid].experiment
    cache = ResultCache(Path(cache_dir) if cache_dir else out / "cache",
                        f"{__version__}+{experiment_fingerprint(exp)}")
    plan = plan_sweep(exp, scale, cache)
    missing = {plan.units[i][0].get("N") for i in plan.pending}
    keep = [i for i in plan.hits if plan.units[i][0].get("N") not in missing]
    if not keep:
        raise ValueError(f"{eid}: no size has every unit in the cache")
    runs = Runs(Run(*plan.units[i], plan.hits[i]) for i in sorted(keep))
    Ns = sorted({int(r.params["N"]) for r in runs})
    extra = dict(SIDECAR.get(eid, {}))
    extra["stored"] = {"Ns": Ns, "complete": not missing,
                       "seeds_per_N": {str(N): len({r.seed for r in runs.where(N=N)})
                                       for N in Ns}}
    return report(eid, scale, runs, out, extra)


def reproduce(ids=None, scale: str = "small", jobs: int = 1, out=".", cache_dir=None,
              scheduler: str | None = None, progress: bool = True, stream=None,
              reuse_stored: bool = False) -> dict:
    """Run the experiments ``ids`` at ``scale``; write figures and data to ``out``.

    Returns {id: [paths written]}. The cache lives in ``cache_dir`` (default ``out/cache``).
    Progress bars go to ``stream`` (default stderr): one bar per experiment and an overall
    bar weighted by each unit's cost (~N^3) with the estimated time left. ``reuse_stored``:
    first take the units that the stored data already hold (:func:`seed_cache_from_stored`).
    """
    from tqdm import tqdm


    check_scale(scale)
    ids = parse_only(None) if ids is None else list(ids)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    root = Path(cache_dir) if cache_dir else out / "cache"
    caches = {eid: ResultCache(root, f"{__version__}+"
                                     f"{experiment_fingerprint(CATALOG[eid].experiment)}")
              for eid in ids}
    if reuse_stored:
        for eid in ids:
            seed_cache_from_stored(eid, scale, caches[eid])
    stream = sys.stderr if stream is None else stream
    plans = {eid: plan_sweep(CATALOG[eid].experiment, scale, caches[eid]) for eid in ids}
    # units shared by several experiments (same cache namespace) are counted once
    seen, total = set(), 0.0
    for eid in ids:
        exp, plan = CATALOG[eid].experiment, plans[eid]
        for i in plan.pending:
            key = (exp.cache_name, json.dumps(plan.units[i][0], sort_keys=True), plan.units[i][1])
            if key not in seen:
                seen.add(key)
                total += unit_cost(plan.units[i][0], exp.cost)
    overall = tqdm(total=round(total, 3) or None, desc="all experiments", unit="cost", position=0,
                   file=stream, disable=not progress, dynamic_ncols=True,
                   bar_format="{l_bar}{bar}| {percentage:3.0f}% [{elapsed}<{remaining}]")
    written = {}
    try:
        for eid in ids:
            exp = CATALOG[eid].experiment
            plan = plan_sweep(exp, scale, caches[eid]) if eid != ids[0] else plans[eid]
            bar = tqdm(total=len(plan.units), initial=len(plan.hits), desc=f"{eid:>3}",
                       unit="run", position=1, leave=False, file=stream,
                       disable=not progress, dynamic_ncols=True)

            def tick(params, seed, bar=bar, weight=exp.cost):
                bar.update(1)
                if overall.total:   # None when every pending unit costs nothing
                    overall.update(min(unit_cost(params, weight), overall.total - overall.n))

            try:
                runs = run_sweep(exp, scale, caches[eid], jobs=jobs, scheduler=scheduler,
                                 progress=tick, plan=plan)
            finally:
                bar.close()
            written[eid] = report(eid, scale, runs, out)
            if progress:
                overall.write(f"{eid}: {len(plan.units)} runs ({len(plan.hits)} from the cache)"
                              f" -> {', '.join(p.name for p in written[eid])}", file=stream)
    finally:
        overall.close()
    return written


def check_output_dir(out) -> Path:
    """Create ``out`` if needed and check that it is writable (ValueError otherwise)."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ValueError(f"output directory {str(out)!r} is not writable "
                         f"({exc.strerror or exc})") from None
    return out
