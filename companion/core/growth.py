"""How fast a quantity grows with the width N: its exponent in log N, measured from runs at a
few sizes with an interval over seeds, and read from the finite-N prediction (book:
dv-exponents). A law of the form N^e is shown by the sign of e changing across its line.

The runs at different N are independent draws (a seed at one size has nothing in common with
the same seed at another), so a slope per seed means nothing: the slope between two sizes is
the difference of the mean logs over each size's seeds, divided by the step in log N, with
the Welch t interval of that difference (:func:`companion.core.intervals.welch_interval`).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from companion.core.intervals import welch_interval


def log_slope(Ns: Sequence[float], values) -> float:
    """Least-squares slope of log(value) against log(N) (``values``: one per N)."""
    x = np.log(np.asarray(Ns, float))
    y = np.log(np.asarray(values, float))
    xc = x - x.mean()
    return float(xc @ (y - y.mean()) / (xc @ xc))


def slope_between(N_low: float, low, N_high: float, high, level: float = 0.95) -> dict:
    """The growth exponent between two sizes from the values of each size's seeds (``low``,
    ``high``: one per seed, positive): ``slope`` (of the mean logs) and its Welch t interval
    ``low``, ``high``, with ``N_low``, ``N_high`` and the seeds of each size."""
    step = float(np.log(N_high) - np.log(N_low))
    if step <= 0:
        raise ValueError(f"N_high must exceed N_low, got {N_low} and {N_high}")
    a, b = np.log(np.asarray(low, float)), np.log(np.asarray(high, float))
    diff, lo, hi = welch_interval(a, b, level)
    return {"N_low": N_low, "N_high": N_high, "slope": diff / step, "low": lo / step,
            "high": hi / step, "seeds_low": len(a), "seeds_high": len(b)}


def predicted_slope(value: Callable[[float], float], N_low: float, N_high: float) -> float:
    """The growth exponent of a predicted ``value(N)`` between two sizes."""
    return float((np.log(value(N_high)) - np.log(value(N_low))) / np.log(N_high / N_low))


def zero_crossing(xs: Sequence[float], slopes: Sequence[float]) -> float | None:
    """Where a slope changes sign along ``xs`` (sorted), by linear interpolation between the
    last point below zero and the first at or above it that follows; None if it does not."""
    x, s = np.asarray(xs, float), np.asarray(slopes, float)
    for i in range(len(x) - 1):
        if s[i] < 0 <= s[i + 1]:
            t = -s[i] / (s[i + 1] - s[i])
            return float(x[i] + t * (x[i + 1] - x[i]))
    return None
