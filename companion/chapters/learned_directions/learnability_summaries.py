"""The learnability line located at finite N (E18; book: dv-learnability, dv-leading-order):
the numbers, tables and prediction curves of the section "The learnability line, seen" of
the chapter "What each outlier learns", read from E18's runs
(:mod:`companion.chapters.learned_directions.learnability`).

The k = 2 term of W2 - W0 carries the information-exponent-3 direction of the bounded link.
Its size grows as N^(alpha2 - 2 (1/2 - alpha1)) in the limit (the companion derives), so the
sign of its growth in log N changes on the line 2 alpha1 + alpha2 = 1. At a finite N the
finite-N prediction (:func:`companion.core.finite_n.predicted_terms`) puts that change of
sign elsewhere, and the simulation measures where it is. Everything here reads the reused
batch's separate strength of the k = 2 term (no detection) and its own part's cos^2 with the
target direction, and the fresh batch's beside them.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.optimize import brentq

from companion.chapters.learned_directions.learnability import (
    ACTIVATION,
    TARGET,
    TRANSECTS,
)
from companion.core.finite_n import predicted_terms
from companion.core.growth import predicted_slope, slope_between, zero_crossing
from companion.core.runs import Runs
from companion.presentation.book import (
    Numbers,
    fmt,
    fmt_fixed,
    fmt_percent,
    fmt_signed,
    power,
)

#: the term that carries the direction
K = 2
#: how close to the line the prediction's zero must come (in alpha1)
CLOSE = 0.01
#: the fewest points of a transect a range of sizes is read on
MIN_POINTS = 4


def line_alpha1(alpha2: float) -> float:
    """alpha1 on the learnability line 2 alpha1 + alpha2 = 1 (AI-written summary: Lambda >= 2)."""
    return (1.0 - alpha2) / 2.0


@lru_cache(maxsize=None)
def predicted_strength(N: float, alpha1: float, alpha2: float, batch: str = "reused") -> float:
    """The finite-N prediction of the k = 2 term's separate strength."""
    return float(predicted_terms(N, alpha1, alpha2, ACTIVATION, TARGET,
                                 batch=batch)["strength"][K])


def predicted_growth(alpha1: float, alpha2: float, N_low: float, N_high: float,
                     batch: str = "reused") -> float:
    """The predicted growth exponent of the k = 2 strength between N_low and N_high."""
    return predicted_slope(lambda N: predicted_strength(N, alpha1, alpha2, batch), N_low, N_high)


def growth_ranges(runs: Runs, transect: str = "alpha1") -> list[tuple[int, int]]:
    """The ranges of sizes the section reads: each stored size with four times it, where at
    least MIN_POINTS points of the transect have both (the largest size holds only the points
    nearest the zero and the line); without any, the smallest and largest common sizes."""
    points = TRANSECTS[transect]["points"]
    held = [set(sizes(runs, p)) for p in points]
    every = sorted(set.union(*held))
    out = [(a, 4 * a) for a in every
           if sum(a in h and 4 * a in h for h in held) >= min(MIN_POINTS, len(points))]
    common = sorted(set.intersection(*held))
    return out or [(common[0], common[-1])]


@lru_cache(maxsize=None)
def predicted_zero(N_low: float, N_high: float, alpha2: float = 0.45) -> float:
    """alpha1 where the predicted k = 2 strength stops falling and starts growing between
    N_low and N_high, at this alpha2 (bisection between 0.05 and the line); computed once per
    range (the section's numbers and its table of zeros both read it)."""
    return float(brentq(lambda a1: predicted_growth(a1, alpha2, N_low, N_high), 0.05,
                        line_alpha1(alpha2), xtol=1e-3))


def width_for_zero_near_line(alpha2: float = 0.45, close: float = CLOSE) -> float:
    """The width N (a power of two) at which the prediction's zero (local slope over N/2 to
    2N) has come within ``close`` of the line, by bisection in log2 N between 2^10 and 2^60.
    The growth rises with alpha1, so the zero lies below alpha1 = line - close exactly where
    the growth there is positive: one sign per step, not a root."""
    target = line_alpha1(alpha2) - close
    lo, hi = 10, 60
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if predicted_growth(target, alpha2, 2 ** (mid - 1), 2 ** (mid + 1)) > 0:
            lo = mid
        else:
            hi = mid
    return float(2 ** hi)


def _values(runs: Runs, point, N: int, batch: str, key: str = "separate") -> np.ndarray:
    sel = runs.where(N=N, alpha1=point[0], alpha2=point[1])
    return np.array([np.asarray(r[f"{key}_{batch}"])[K] if key == "separate"
                     else np.asarray(r[f"{key}_{batch}"])[K][0] for r in sel], float)


def strengths(runs: Runs, point, N: int, batch: str = "reused") -> np.ndarray:
    """The k = 2 separate strengths of the seeds at ``point`` and size ``N``."""
    return _values(runs, point, N, batch)


def sizes(runs: Runs, point) -> list[int]:
    """The sizes at which ``point`` has runs."""
    return sorted(int(N) for N in runs.where(alpha1=point[0], alpha2=point[1]).unique("N"))


def slope_table(runs: Runs, transect: str = "alpha1", N_low: int | None = None,
                N_high: int | None = None) -> list[dict]:
    """Per point of a transect: the measured growth exponent of the k = 2 strength between
    N_low and N_high (reused and fresh batch; Welch t interval over the seeds) beside the
    prediction's, the mean strengths at both sizes, and the reused and fresh own parts' cos^2
    at N_high. Default sizes: the smallest and the largest that every point has; with sizes
    given, the points that have both."""
    points = TRANSECTS[transect]["points"]
    common = sorted(set.intersection(*(set(sizes(runs, p)) for p in points)))
    N_low, N_high = N_low or common[0], N_high or common[-1]
    points = [p for p in points if {N_low, N_high} <= set(sizes(runs, p))]
    rows = []
    for p in points:
        row = {"alpha1": p[0], "alpha2": p[1], "N_low": N_low, "N_high": N_high}
        for batch in ("reused", "fresh"):
            m = slope_between(N_low, _values(runs, p, N_low, batch), N_high,
                              _values(runs, p, N_high, batch))
            row.update({f"{batch}_slope": m["slope"], f"{batch}_low": m["low"],
                        f"{batch}_high": m["high"],
                        f"{batch}_predicted": predicted_growth(p[0], p[1], N_low, N_high,
                                                               batch),
                        f"{batch}_strength_low": float(_values(runs, p, N_low, batch).mean()),
                        f"{batch}_strength_high": float(_values(runs, p, N_high, batch).mean()),
                        f"{batch}_own_cos2": float(_values(runs, p, N_high, batch,
                                                           "own_cos2").mean())})
        row["seeds"] = min(m["seeds_low"], m["seeds_high"])
        rows.append(row)
    return rows


def measured_zero(rows: list[dict], transect: str = "alpha1") -> float | None:
    """Where the measured reused slope changes sign along the transect (interpolated)."""
    x = "alpha1" if transect == "alpha1" else "alpha2"
    return zero_crossing([r[x] for r in rows], [r["reused_slope"] for r in rows])


def print_table(rows: list[dict]) -> None:
    """The table a reader reads under the figure: per point the measured exponent of the
    k = 2 term with its interval, the prediction's, the fresh batch's, and the cos^2 of the
    term's own part with the direction, reused (r) and fresh (f)."""
    N_low, N_high = rows[0]["N_low"], rows[0]["N_high"]
    print(f"growth in log N of the k = 2 term, N = {N_low} to {N_high}")
    print(f"({rows[0]['seeds']} seeds; 95% Welch interval; own part's cos2: r, f)")
    print("alpha1 alpha2 reused [interval]     pred.  fresh   own r       own f")
    for r in rows:
        print(f"{r['alpha1']:6.3f} {r['alpha2']:6.2f} {fmt_signed(r['reused_slope'])} "
              f"[{fmt_signed(r['reused_low'])}, {fmt_signed(r['reused_high'])}] "
              f"{fmt_signed(r['reused_predicted']):>6} {fmt_signed(r['fresh_slope']):>6} "
              f"{fmt_fixed(r['reused_own_cos2'], 3):>7} {fmt(r['fresh_own_cos2'], 2):>11}")


def zero_rows(runs: Runs, transect: str = "alpha1") -> list[dict]:
    """Per range of sizes (:func:`growth_ranges`): the points and seeds it is read on, the
    measured zero of the reused batch's growth (None if the sign does not change) and the
    prediction's, and the line's alpha1."""
    alpha2 = TRANSECTS[transect]["value"]
    out = []
    for N_low, N_high in growth_ranges(runs, transect):
        rows = slope_table(runs, transect, N_low, N_high)
        out.append(dict(N_low=N_low, N_high=N_high, points=len(rows),
                        seeds=min(r["seeds"] for r in rows), measured=measured_zero(rows),
                        predicted=predicted_zero(N_low, N_high, alpha2),
                        line=line_alpha1(alpha2)))
    return out


def print_zeros(rows: list[dict]) -> None:
    """The table of the zeros: per range of sizes, where the growth changes sign, measured
    and predicted, and how far each lies left of the line."""
    print(f"where the k = 2 term stops shrinking (alpha1; the line at {fmt(rows[0]['line'], 3)})")
    print("sizes N          points seeds  measured (to line)  predicted (to line)")
    for r in rows:
        sizes_text = f"{r['N_low']} to {r['N_high']}"
        measured = ("none" if r["measured"] is None else
                    f"{fmt_fixed(r['measured'], 3)} ({fmt_fixed(r['line'] - r['measured'], 3)})")
        predicted = f"{fmt_fixed(r['predicted'], 3)} ({fmt_fixed(r['line'] - r['predicted'], 3)})"
        print(f"{sizes_text:<16} {r['points']:>6} {r['seeds']:>5}  {measured:<18}  {predicted}")


def learnability(runs: Runs) -> Numbers:
    """The numbers the section quotes: the measured and predicted zero of the growth along
    the alpha1 transect, the line, the width the prediction needs to bring its zero within
    CLOSE of the line, and the fresh batch's exponents and own parts beside the reused's."""
    rows = slope_table(runs, "alpha1")
    N_low, N_high = rows[0]["N_low"], rows[0]["N_high"]
    alpha2 = TRANSECTS["alpha1"]["value"]
    line = line_alpha1(alpha2)
    zero = measured_zero(rows)
    pred = predicted_zero(N_low, N_high, alpha2)
    far = predicted_zero(N_high, 64 * N_high, alpha2)
    need = width_for_zero_near_line(alpha2)
    fresh = [r["fresh_slope"] for r in rows]
    ratio = min(r["reused_own_cos2"] / r["fresh_own_cos2"] for r in rows)
    zeros = zero_rows(runs)
    # how far the prediction lies above the measured term, median over the points
    over = [float(np.median([predicted_strength(N, r["alpha1"], r["alpha2"])
                             / r[f"reused_strength_{end}"] - 1 for r in rows]))
            for N, end in ((N_low, "low"), (N_high, "high"))]
    return Numbers(
        N_low=N_low, N_high=N_high, seeds=rows[0]["seeds"], alpha2=fmt(alpha2, 2),
        line=fmt(line, 3), zero="none" if zero is None else fmt(zero, 2),
        zero_gap="n/a" if zero is None else fmt(line - zero, 2),
        predicted_zero=fmt(pred, 2), predicted_gap=fmt(line - pred, 2),
        far_low=power(2, int(np.log2(N_high))), far_high=power(2, int(np.log2(64 * N_high))),
        far_zero=fmt(far, 2), close=fmt(CLOSE, 2),
        need=power(2, int(np.log2(need))),
        fresh_span=f"{fmt_signed(min(fresh))} to {fmt_signed(max(fresh))}",
        own_ratio=fmt(ratio, 2),
        range_last=f"{zeros[-1]['N_low']} to {zeros[-1]['N_high']}",
        seeds_last=zeros[-1]["seeds"],
        zero_last=("none" if zeros[-1]["measured"] is None
                   else fmt_fixed(zeros[-1]["measured"], 2)),
        pred_last=fmt_fixed(zeros[-1]["predicted"], 2),
        over_low=fmt_percent(over[0], 1), over_high=fmt_percent(over[1], 1))
