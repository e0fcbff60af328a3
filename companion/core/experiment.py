"""The experiments of the book (book: reg-experiments), one module per chapter.

Each module holds its experiments' constants (points, sizes, seeds) and *unit functions*:
module-level functions ``unit(**params, seed=seed) -> dict`` that compute one parameter
point for one seed and return plain numbers and arrays. An :class:`Experiment` names a unit
function and the units (params, seed) of each scale; the chapter computes its runs with
:meth:`Experiment.run` and ``python -m companion reproduce`` computes the same units with a
cache and in parallel (:mod:`companion.core.sweep`). Both give :class:`companion.core.runs.Runs`, as do
the stored paper-scale runs (:func:`companion.core.store.load`). Nothing here draws a figure.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from typing import Callable

import numpy as np

from companion.core.network import SharedDraws
from companion.core.runs import Run, Runs

SCALES = ("small", "paper")


def check_scale(scale: str) -> str:
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r} (choose from {', '.join(SCALES)})")
    return scale


@dataclass(frozen=True)
class Experiment:
    """One experiment of the book (book: reg-experiments).

    ``unit`` is a module-level function called as ``unit(**params, seed=seed)`` (so worker
    processes can unpickle it); ``grid(sizes)`` lists the (params, seed) pairs for a dict of
    sizes and seeds; ``sizes`` holds that dict for each scale (``"small"``: the chapter's
    default sizes, ``"paper"``; written to the JSON sidecar). Experiments that run the same units
    (E3, E4 and E5; E7, E8 and E9) share a ``cache`` namespace. ``cost`` is the relative cost
    of a unit per N^3 (for the progress bar's time estimate).
    """

    id: str
    title: str
    unit: Callable[..., dict]
    grid: Callable[[dict], list]
    sizes: dict
    cache: str | None = None
    cost: float = 1.0

    @property
    def cache_name(self) -> str:
        return self.cache or self.id

    def units(self, scale: str) -> list:
        """The (params, seed) pairs of ``scale``."""
        return self.grid(self.sizes[check_scale(scale)])

    def run(self, scale: str = "small", shared: SharedDraws | None = None,
            only: dict | None = None, **sizes) -> Runs:
        """Every unit of ``scale`` computed here, one after the other, without a cache;
        keywords replace entries of the scale's sizes (``run(Ns=[250, 500], seeds=2)``).
        ``shared``: a :class:`companion.core.network.SharedDraws` that several runs over the
        same sizes and seeds share (see :func:`run_units`). ``only``: parameter values a unit
        must have to be run (``only=dict(alpha1=0.35)``: the other points are not computed);
        ValueError if no unit has them."""
        units = self.grid({**self.sizes[check_scale(scale)], **sizes})
        if only:
            units = [(p, s) for p, s in units if all(p.get(k) == v for k, v in only.items())]
            if not units:
                raise ValueError(f"only={only!r}: no unit of {self.id} has these values")
        return run_units(self.unit, units, shared)


def precision(z: dict, N: int) -> dict:
    """``{"dtype": "float32"}`` for a unit of size ``N`` from the size ``z["float32_from"]``
    on (the paper scale's largest sizes; ``0``: every size, as the chapters' own runs, which
    take half the time and show the same numbers at the digits printed), else nothing: a
    float64 unit keeps the parameters, and so the cache key, it always had."""
    return {"dtype": "float32"} if N >= z.get("float32_from", float("inf")) else {}


def _twin_key(run) -> tuple:
    """A run's parameters without ``dtype``, and its seed: what a precision check shares with
    the float64 unit it repeats."""
    params = {k: v for k, v in run.params.items() if k != "dtype"}
    return json.dumps(params, sort_keys=True, default=str), int(run.seed)


def _precision_checks(runs) -> set:
    """The twin keys of the precision checks of ``runs``: float32 repeats of a float64 unit
    with the same parameters and seed (the paper scale's check of how much the precision of
    its largest runs moves the numbers), which are not part of the N sweep. A float32 unit
    without a float64 twin (the paper scale's largest size, the chapters' own runs) is part
    of the sweep."""
    float64 = {_twin_key(r) for r in runs if r.params.get("dtype", "float64") == "float64"}
    return {_twin_key(r) for r in runs
            if r.params.get("dtype") == "float32" and _twin_key(r) in float64}


def sweep_runs(runs):
    """``runs`` without their precision checks (:func:`_precision_checks`)."""
    checks = _precision_checks(runs)
    return runs.where(predicate=lambda r: not (r.params.get("dtype") == "float32"
                                               and _twin_key(r) in checks))


def precision_agreement(runs, keys) -> dict:
    """Largest relative difference, over the precision checks of ``runs`` and the float64
    runs with the same parameters and seed, of each result in ``keys`` (``None`` without
    checks): how much float32 moves the numbers at the size where both were run."""
    checks = _precision_checks(runs)
    if not checks:
        return {k: None for k in keys}
    twins = {_twin_key(r): r for r in runs if r.params.get("dtype", "float64") == "float64"}
    out = {k: 0.0 for k in keys}
    for c in runs:
        if c.params.get("dtype") != "float32" or _twin_key(c) not in checks:
            continue
        twin = twins[_twin_key(c)]
        for k in keys:
            a, b = np.asarray(c[k], float), np.asarray(twin[k], float)
            out[k] = max(out[k], float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))))
    return out


def run_units(unit: Callable[..., dict], units, shared: SharedDraws | None = None) -> Runs:
    """``Runs`` of ``unit(**params, seed=seed)`` over ``units`` = [(params, seed), ...], in
    that order. They are computed ordered by size and seed, and a unit that takes a
    ``shared`` argument gets one :class:`companion.core.network.SharedDraws` for all of
    them (``shared``, where given: kept by the caller for other runs too), so that the runs
    of one seed share their draws and first step: each unit's result is what it computes
    alone, bit for bit."""
    units = [(dict(params), int(seed)) for params, seed in units]
    order = sorted(range(len(units)), key=lambda i: (_size(units[i][0]), units[i][1]))
    lend = ({"shared": SharedDraws() if shared is None else shared} if takes_shared(unit)
            else {})
    results = {}
    for i in order:
        params, seed = units[i]
        results[i] = unit(**params, seed=seed, **lend)
    return Runs(Run(params, seed, results[i]) for i, (params, seed) in enumerate(units))


def takes_shared(unit: Callable[..., dict]) -> bool:
    """Whether ``unit`` takes a ``shared`` argument (a :class:`SharedDraws` it passes on)."""
    return "shared" in inspect.signature(unit).parameters


def _size(params: dict) -> tuple:
    """The sizes of a unit, for ordering (units without them first)."""
    return tuple(float(params[k]) for k in ("N", "d", "n") if isinstance(params.get(k), (int, float)))
