"""Intervals over a few seeds: exact binomial intervals for fractions, Student-t intervals
for means.

The book's experiments run 4 to 6 seeds per point. A percentile bootstrap is wrong at that
size: for a fraction it collapses to a point whenever every seed agrees (4 of 4 gives
"1 [1, 1]"), and for a mean it is too narrow (it resamples only the few values seen, with
the plug-in spread, which underestimates the spread by a factor sqrt((n - 1) / n) and
ignores the uncertainty of the spread itself). Here instead:

* :func:`clopper_pearson`: the exact (Clopper-Pearson) interval of a binomial proportion
  from the beta quantiles; 4 of 4 gives [0.398, 1], 2 of 6 gives [0.043, 0.777].
* :func:`t_interval`: the mean and its Student-t interval, mean +- t_{n-1} s / sqrt(n),
  with one value (no spread can be estimated: the interval is NaN) and zero spread (the
  formula's zero width, kept, with ``spread_zero`` set) said explicitly.

The quantiles come from scipy.special, the functions scipy.stats calls for them: the beta
quantile q of Beta(a, b) is ``betaincinv(a, b, q)``, Student's t quantile ``stdtrit(df, p)``
(scipy.stats is a far larger import, which every process that reads stored runs would pay).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import betaincinv, stdtrit


def _check_level(level: float) -> float:
    level = float(level)
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    return level


def clopper_pearson(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) ``level`` interval (low, high) of a binomial proportion after
    ``successes`` of ``trials``: the beta quantiles Beta(level/2-tail; x, n - x + 1) and
    Beta(1 - tail; x + 1, n - x), with low = 0 at x = 0 and high = 1 at x = n."""
    level = _check_level(level)
    x, n = int(successes), int(trials)
    if x != successes or n != trials:
        raise ValueError(f"successes and trials must be integers, got {successes!r}, {trials!r}")
    if n < 1 or not 0 <= x <= n:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1, got {x} of {n}")
    tail = (1 - level) / 2
    low = 0.0 if x == 0 else float(betaincinv(x, n - x + 1, tail))
    high = 1.0 if x == n else float(betaincinv(x + 1, n - x, 1 - tail))
    return low, high


class TInterval(NamedTuple):
    """A mean over ``n`` values with its Student-t interval [``low``, ``high``]: NaN when
    n = 1 (no spread can be estimated); ``spread_zero`` when every value is equal (n >= 2;
    the interval then has zero width, which says the values agree, not that the mean is
    known exactly)."""

    mean: float
    low: float
    high: float
    n: int
    spread_zero: bool


def t_interval(values, level: float = 0.95, bounds=None) -> TInterval:
    """Mean of ``values`` (1-d, finite) and its Student-t ``level`` interval
    mean +- t_{n-1}((1 + level) / 2) s / sqrt(n), s the sample standard deviation
    (ddof = 1). One value: mean with a NaN interval; no values: ValueError.
    ``bounds`` (low, high): the range the quantity can take (a squared cosine: (0, 1));
    the interval is cut to it, so that it does not claim impossible values."""
    level = _check_level(level)
    v = np.asarray(values, float).ravel()
    if v.size == 0:
        raise ValueError("t_interval needs at least one value")
    if not np.all(np.isfinite(v)):
        raise ValueError("t_interval needs finite values")
    mean = float(v.mean())
    if v.size == 1:
        return TInterval(mean, float("nan"), float("nan"), 1, False)
    s = float(v.std(ddof=1))
    if s == 0.0 or np.all(v == v[0]):
        return TInterval(mean, mean, mean, int(v.size), True)
    half = float(stdtrit(v.size - 1, (1 + level) / 2)) * s / np.sqrt(v.size)
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(low, float(bounds[0])), min(high, float(bounds[1]))
    return TInterval(mean, low, high, int(v.size), False)


def t_intervals(values, level: float = 0.95,
                bounds=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`t_interval` column by column over axis 0 of ``values`` (runs x quantities):
    arrays (mean, low, high) of the trailing shape."""
    v = np.asarray(values, float)
    if v.ndim == 1:
        r = t_interval(v, level, bounds)
        return np.array(r.mean), np.array(r.low), np.array(r.high)
    flat = v.reshape(v.shape[0], -1)
    rows = [t_interval(flat[:, i], level, bounds) for i in range(flat.shape[1])]
    shape = v.shape[1:]
    return tuple(np.array([getattr(r, f) for r in rows]).reshape(shape)
                 for f in ("mean", "low", "high"))


def welch_interval(first, second, level: float = 0.95) -> tuple[float, float, float]:
    """Difference of means mean(second) - mean(first) of two independent samples (e.g. the
    seeds at two sizes) and its Welch t ``level`` interval: (difference, low, high), the
    degrees of freedom from Welch-Satterthwaite. NaN interval if either sample has one
    value; zero width if both have zero spread."""
    level = _check_level(level)
    a, b = (np.asarray(x, float).ravel() for x in (first, second))
    if a.size == 0 or b.size == 0:
        raise ValueError("welch_interval needs at least one value in each sample")
    diff = float(b.mean() - a.mean())
    if a.size == 1 or b.size == 1:
        return diff, float("nan"), float("nan")
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se2 = va + vb
    if se2 == 0.0:
        return diff, diff, diff
    df = se2 ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    half = float(stdtrit(df, (1 + level) / 2)) * float(np.sqrt(se2))
    return diff, diff - half, diff + half
