"""The one shape of simulation results, from an experiment to a chapter, the command line's
``reproduce`` and the stored paper-scale data.

A :class:`Run` is one unit of work: the parameters of one point, one seed, and the result
of the experiment's unit function (a dict of numbers and arrays). :class:`Runs` is a list
of them with the few operations a chapter needs: select by parameters, group, stack a
result over the runs, and summarize over seeds (mean and a Student-t interval). The same
object comes out of a chapter's own computation (:meth:`companion.core.experiment.Experiment.run`),
out of ``reproduce`` and out of the stored runs (:func:`companion.core.store.load`), so a figure
function that draws one draws all three.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import numpy as np

from companion.core.intervals import t_intervals


@dataclass(frozen=True)
class Run:
    """One unit: ``params`` (plain JSON values), ``seed`` and ``result`` (name -> array)."""

    params: dict
    seed: int
    result: dict = field(default_factory=dict)

    def __getitem__(self, key: str):
        """A result, or else a parameter (``run["N"]``, ``run["s"]``); ``"seed"`` too."""
        if key in self.result:
            return self.result[key]
        if key == "seed":
            return self.seed
        if key in self.params:
            return self.params[key]
        raise KeyError(f"{key!r} is neither a result ({', '.join(self.result)}) nor a "
                       f"parameter ({', '.join(self.params)}) of this run")


def _scalar(value):
    """A parameter value as a hashable scalar (JSON lists become tuples)."""
    return tuple(value) if isinstance(value, list) else value


class Runs:
    """An ordered collection of :class:`Run` (see the module docstring)."""

    def __init__(self, runs: Iterable[Run] = ()):
        self._runs = [r if isinstance(r, Run) else Run(*r) for r in runs]

    # -- a sequence ------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._runs)

    def __iter__(self) -> Iterator[Run]:
        return iter(self._runs)

    def __getitem__(self, i) -> Run:
        return self._runs[i]

    def __add__(self, other: "Runs") -> "Runs":
        return Runs([*self, *other])

    def __repr__(self) -> str:
        keys = sorted({k for r in self for k in r.params})
        return f"Runs({len(self)} runs; parameters {', '.join(keys)})"

    # -- selection ---------------------------------------------------------------------------
    def where(self, predicate: Callable[[Run], bool] | None = None, **params) -> "Runs":
        """The runs whose parameters equal ``params`` (floats compared to 1e-9) and, if
        given, satisfy ``predicate(run)``: ``runs.where(alpha1=0.35, batch="reused")``."""
        def match(run: Run) -> bool:
            for key, want in params.items():
                have = run.seed if key == "seed" else run.params.get(key, _MISSING)
                if have is _MISSING:
                    return False
                if isinstance(want, float) or isinstance(have, float):
                    try:
                        if abs(float(have) - float(want)) > 1e-9:
                            return False
                        continue
                    except (TypeError, ValueError):
                        return False
                if _scalar(have) != _scalar(want):
                    return False
            return predicate is None or bool(predicate(run))
        return Runs(r for r in self if match(r))

    def unique(self, key: str) -> list:
        """The distinct values of a parameter (or ``"seed"``), in order of first appearance."""
        out = []
        for r in self:
            v = _scalar(r.seed if key == "seed" else r.params[key])
            if v not in out:
                out.append(v)
        return out

    def groups(self, *keys: str) -> dict[tuple, "Runs"]:
        """{(value of each key): the runs with those values}, in order of first appearance."""
        out: dict[tuple, list] = {}
        for r in self:
            out.setdefault(tuple(_scalar(r.seed if k == "seed" else r.params[k])
                                 for k in keys), []).append(r)
        return {k: Runs(v) for k, v in out.items()}

    # -- values ------------------------------------------------------------------------------
    def values(self, key: str) -> np.ndarray:
        """A result (or parameter) stacked over the runs: shape (len(runs), *its shape)."""
        if not self._runs:
            raise ValueError(f"no runs to take {key!r} from")
        return np.array([np.asarray(r[key]) for r in self])

    def mean(self, key: str) -> np.ndarray:
        """Mean of a result over the runs (typically the seeds of one point)."""
        return self.values(key).mean(axis=0)

    def interval(self, key: str, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Student-t interval of the mean of a result over the runs (typically a few
        seeds; :func:`companion.core.intervals.t_interval`, NaN with one run): (low, high)."""
        return t_intervals(self.values(key), level)[1:]


_MISSING = object()


def bootstrap_interval(values, level: float = 0.95, draws: int = 2000, seed: int = 0,
                       statistic: Callable = np.mean) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of ``statistic`` over axis 0 of ``values`` (the runs,
    e.g. the seeds of one point), resampled with replacement from ``default_rng(seed)``.
    With one value the interval is that value.

    Not for a mean or a fraction over a few seeds (use :mod:`companion.core.intervals`:
    a t interval, an exact binomial one); kept for statistics with no such formula over
    many runs. (The chapters' slopes are fitted seed by seed and take a t interval; the
    half-detection strength of E13 an exact one, ``finite_size.calibration.half_interval``.)"""
    v = np.asarray(values, float)
    if v.shape[0] == 0:
        raise ValueError("bootstrap_interval needs at least one value")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    idx = np.random.default_rng(seed).integers(0, v.shape[0], (draws, v.shape[0]))
    stats = np.array([statistic(v[i], axis=0) for i in idx])
    tail = 100 * (1 - level) / 2
    return np.percentile(stats, tail, axis=0), np.percentile(stats, 100 - tail, axis=0)
