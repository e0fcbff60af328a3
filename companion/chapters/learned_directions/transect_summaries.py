"""The numbers and the table of the section "Across the lines" of the chapter "What each outlier
learns" (book/learned_directions.ipynb, ``ld-obs-transects``, ``fig-ts-transects``), read
from the stored E14 runs with :func:`companion.chapters.learned_directions.figures.transect_table`
and, beyond the stored sizes, from the finite-N prediction
(:func:`companion.chapters.learned_directions.limits.beyond`). Every number follows the stored
runs: a larger stored size changes the prose with it."""

from __future__ import annotations

import numpy as np

from companion.chapters.learned_directions.figures import (
    CURVE_NS,
    local_slope,
    prediction_curves,
    transect_table,
)
from companion.chapters.learned_directions.limits import BEYOND_LOG2, BEYOND_POINT, beyond
from companion.chapters.learned_directions.transects import TRANSECTS
from companion.core.expansion import leading_order_constants, leading_order_crossing
from companion.core.runs import Runs
from companion.core.spikes import bbp_detection_strength
from companion.core.theory import spike_exponent
from companion.presentation.book import Numbers, fmt, fmt_signed, power

NO_RUNS = "no stored runs"


def _slope(rows, point, key: str) -> float:
    """Least-squares slope of log ``key`` against log N at ``point`` (reused batch):
    ``strength`` (measured means) or ``predicted``."""
    if key == "strength":
        return local_slope(rows, point)
    sel = sorted((r["N"], r[key]) for r in rows
                 if (r["alpha1"], r["alpha2"]) == tuple(point) and r["run"] == "reused")
    N, v = np.array(sel, float).T
    return float(np.polyfit(np.log(N), np.log(v), 1)[0])


def _at(rows, point, N, run="reused") -> dict:
    return next(r for r in rows if (r["alpha1"], r["alpha2"]) == tuple(point)
                and r["N"] == N and r["run"] == run)


def _signed(values) -> str:
    return ", ".join(fmt_signed(v) for v in values)


def _span(values, digits: int = 2, signed: bool = False) -> str:
    """``0.039 to 0.041`` (``+0.17 to +0.20`` with ``signed``: two decimals), or one number
    when they agree at these digits."""
    show = fmt_signed if signed else (lambda v: fmt(v, digits))
    low, high = show(min(values)), show(max(values))
    return low if low == high else f"{low} to {high}"


def _crossing(point, k: int, threshold: float) -> float:
    """The N at which the predicted strength of term k at ``point`` (the curves of
    :func:`~companion.chapters.learned_directions.figures.prediction_curves`, 2^9 to 2^16)
    first reaches ``threshold``, interpolated log-linearly; inf if it does not."""
    curve = prediction_curves(point)[f"k{k}"]
    logs = np.log2(np.asarray(CURVE_NS, float))
    for i in range(1, len(curve)):
        if curve[i - 1] < threshold <= curve[i]:
            t = np.log(threshold / curve[i - 1]) / np.log(curve[i] / curve[i - 1])
            return float(2.0 ** (logs[i - 1] + t * (logs[i] - logs[i - 1])))
    return float("inf") if curve[-1] < threshold else float(CURVE_NS[0])


def transects(runs: Runs | None) -> Numbers:
    """What the transects show (``ld-obs-transects``), at ``N_max``, the largest stored size
    (``seeds_max`` seeds; ``seeds`` at the others), sizes ``Ns``.

    Count line (prefix ``c_``, the k = 1 term, points ``c_alpha2``): ``c_exponents``
    (leading order, alpha2 - (1/2 - alpha1)), ``c_slopes`` and ``c_pred_slopes`` (the
    measured and the predicted strength's least-squares slope in log N over the stored
    sizes); ``c_st_max`` (the largest mean strength at N_max, at ``c_st_point``), the census's
    threshold there from the null run's edges, ``c_thr_low`` to ``c_thr_high``
    (:func:`companion.core.spikes.bbp_detection_strength`), ``c_counted`` (reused units whose
    census counts a k = 1 spike, of ``c_units``), ``c_verdict`` ("below" or "at or above":
    c_st_max against c_thr_low), ``c_change`` and ``c_seen`` (what the counts show, in words),
    ``c_pred_cross``: where the prediction reaches the threshold of a clean bulk,
    ``thr_clean``.

    Learnability line (prefix ``l_``, the k = 2 term): ``l_exponents``, ``l_slopes``,
    ``l_pred_slopes``; ``l_slope_below``, ``l_slope_above`` (measured, the two sides),
    ``l_sides`` (in words: whether the measured term grows on both sides);
    ``l_pred_grow`` ("grows" if every predicted slope is positive, else "does not grow");
    at N_max the own part's cos^2 with beta*_2 ``l_own_below``, ``l_own_above`` (reused),
    ``l_pred_own_below``, ``l_pred_own_above``, ``l_own_fresh`` and ``l_own_null`` (largest
    over the points); the census's k = 2 counts above the line, reused and null run
    (``l_counted_reused``, ``l_counted_null`` of ``l_units_above``); the own part's cos^2
    with beta*_1 above the line, measured and predicted (``l_own1_above``,
    ``l_pred_own1_above``).

    Beyond the stored sizes (prefix ``b_``, :func:`~companion.chapters.learned_directions.limits.beyond`
    at (0.30, 0.32)): ``b_exponent``; with he1+he3 ``b_st_first`` at ``b_N_first``,
    ``b_peak`` at ``b_N_peak``, ``b_st_last`` and ``b_slope_last`` at ``b_N_last``; with he1
    alone ``b_he1_peak`` and the local slope ``b_he1_slope`` at ``b_N_he1``."""
    if runs is None or not len(runs):
        return Numbers(status=NO_RUNS)
    Ns = sorted(runs.unique("N"))
    N_max = Ns[-1]
    first = TRANSECTS["count"]["points"][0]
    out = {"Ns": fmt(Ns), "N_max": N_max,
           "seeds_max": len(runs.where(N=N_max, alpha1=first[0], alpha2=first[1])),
           "seeds": len(runs.where(N=Ns[0], alpha1=first[0], alpha2=first[1])),
           "thr_clean": fmt(bbp_detection_strength(2.0), 3)}
    count = TRANSECTS["count"]["points"]
    rows = transect_table(runs, k=1)
    out["c_alpha2"] = ", ".join(f"{p[1]:.2f}" for p in count)
    out["c_exponents"] = _signed([spike_exponent(*p, 1) for p in count])
    out["c_slopes"] = _signed([_slope(rows, p, "strength") for p in count])
    out["c_pred_slopes"] = _signed([_slope(rows, p, "predicted") for p in count])
    slopes = {p: _slope(rows, p, "strength") for p in count}
    out["c_slope_below"] = _span([v for p, v in slopes.items() if sum(p) < 0.5], signed=True)
    out["c_slope_above"] = _span([v for p, v in slopes.items() if sum(p) > 0.5], signed=True)
    top = max(count, key=lambda p: _at(rows, p, N_max)["strength"][0])
    st_max = _at(rows, top, N_max)["strength"][0]
    edges = runs.where(N=N_max, alpha1=top[0], alpha2=top[1]).values("edge")
    thr = [bbp_detection_strength(e) for e in edges]
    counted = [r["detected"] * r["seeds"] for r in rows if r["run"] == "reused"
               and (r["alpha1"], r["alpha2"]) in count]
    units = [r["seeds"] for r in rows if r["run"] == "reused"
             and (r["alpha1"], r["alpha2"]) in count]
    cross = _crossing(top, 1, bbp_detection_strength(2.0))
    out.update(c_st_max=fmt(st_max, 3), c_st_point=f"({top[0]:.2f}, {top[1]:.2f})",
               c_thr_low=fmt(min(thr), 3), c_thr_high=fmt(max(thr), 3),
               c_counted=int(round(sum(counted))), c_units=int(sum(units)),
               c_verdict="below" if st_max < min(thr) else "at or above",
               c_change=("no change of the count" if sum(counted) == 0 else
                         f"a k = 1 spike counted in {int(round(sum(counted)))} of "
                         f"{int(sum(units))} runs"),
               c_seen=("in the growth of a term, not in the number of outliers"
                       if sum(counted) == 0 else "in the growth of a term first, and only "
                       "then in a few counted outliers"),
               c_pred_cross=f"{int(float(fmt(cross, 2))):,}" if np.isfinite(cross)
               else "beyond 2^16")
    learn = TRANSECTS["learnability"]["points"]
    rows = transect_table(runs, k=2)
    slopes = [_slope(rows, p, "strength") for p in learn]
    pred = [_slope(rows, p, "predicted") for p in learn]
    below = [p for p in learn if 2 * p[0] + p[1] < 1]
    above = [p for p in learn if 2 * p[0] + p[1] > 1]

    def own(points, key="own", run="reused"):
        return [(_at(rows, p, N_max, run)[key][0] if key == "own"
                 else _at(rows, p, N_max, run)[key]) for p in points]

    at_max = [_at(rows, p, N_max) for p in above]
    nulls = [_at(rows, p, N_max, "null") for p in above]
    out.update(l_alpha2=", ".join(f"{p[1]:.2f}" for p in learn),
               l_exponents=_signed([spike_exponent(*p, 2) for p in learn]),
               l_slopes=_signed(slopes), l_pred_slopes=_signed(pred),
               l_slope_below=_span([s for s, p in zip(slopes, learn) if p in below],
                                   signed=True),
               l_slope_above=_span([s for s, p in zip(slopes, learn) if p in above],
                                   signed=True),
               l_pred_grow="grows" if min(pred) > 0 else "does not grow",
               l_sides=("grows on both sides" if min(slopes) > 0
                        else "grows above the line, not below"),
               l_own_below=_span(own(below)), l_own_above=_span(own(above)),
               l_pred_own_below=_span(own(below, "predicted_own")),
               l_pred_own_above=_span(own(above, "predicted_own")),
               l_own_fresh=fmt(max(own(learn, run="fresh")), 2),
               l_own_null=fmt(max(own(learn, run="null")), 2),
               l_counted_reused=int(round(sum(r["detected"] * r["seeds"] for r in at_max))),
               l_counted_null=int(round(sum(r["detected"] * r["seeds"] for r in nulls))),
               l_units_above=int(sum(r["seeds"] for r in at_max)))
    he1_rows = transect_table(runs, k=2, j=0)
    out.update(l_own1_above=_span([_at(he1_rows, p, N_max)["own"][0] for p in above]),
               l_pred_own1_above=_span([_at(he1_rows, p, N_max)["predicted_own"]
                                        for p in above]))
    far, he1 = beyond("he1+he3"), beyond("he1")
    i = int(np.argmax(far["strength"]))
    j = int(np.argmax(he1["strength"]))
    k = min(BEYOND_LOG2.index(36), len(he1["slope"]) - 1)
    out.update(b_exponent=fmt_signed(spike_exponent(0.30, 0.32, 2)),
               b_N_first=_power(far["N"][0]), b_st_first=fmt(far["strength"][0], 2),
               b_N_peak=_power(far["N"][i]), b_peak=fmt(far["strength"][i], 2),
               b_N_last=_power(far["N"][-1]), b_st_last=fmt(far["strength"][-1], 2),
               b_slope_last=fmt_signed(far["slope"][-1]),
               b_he1_peak=fmt(he1["strength"][j], 2), b_N_he1_peak=_power(he1["N"][j]),
               b_N_he1=_power(he1["N"][k]), b_he1_slope=fmt_signed(he1["slope"][k]))
    return Numbers(**out)


def _power(N: float) -> str:
    """A power of two for prose, as a reader writes it: ``2³⁶``."""
    return power(2, int(round(np.log2(N))))


def transect_text(runs: Runs | None) -> str:
    """The table under the transects' figure: per transect and point, the leading-order
    exponent of its term, the measured separate strength (reused batch, seed mean) at each
    stored N, and the least-squares slopes in log N of the measured and the predicted
    strength; for the learnability line also 1000 times the cos^2 of the k = 2 term's own
    part with beta*_2 at each N (reused) and at the largest N for the fresh batch and the
    prediction. ``*``: a size stored in float32."""
    if runs is None or not len(runs):
        return NO_RUNS
    Ns = sorted(runs.unique("N"))
    tag = {N: "*" if runs.where(N=N)[0].params.get("dtype") == "float32" else ""
           for N in Ns}
    head = "".join(f"{str(N) + tag[N]:>7}" for N in Ns)
    lines = []
    for name, t in TRANSECTS.items():
        k = t["k"]
        rows = transect_table(runs, k=k)
        lines += [f"({'i' if k == 1 else 'ii'}) the k = {k} term across {t['line']}, "
                  f"alpha1 = 0.30",
                  f"{'alpha2':>6} {'exp.':>6}{head}   slope  pred.",
                  ]
        for p in t["points"]:
            st = "".join(f"{fmt(_at(rows, p, N)['strength'][0], 3):>7}" for N in Ns)
            lines.append(f"{p[1]:>6.2f} {fmt_signed(spike_exponent(*p, k)):>6}{st}  "
                         f"{fmt_signed(_slope(rows, p, 'strength')):>6} "
                         f"{fmt_signed(_slope(rows, p, 'predicted')):>6}")
        lines.append("")
    rows = transect_table(runs, k=2)
    lines += ["1000 cos^2 of the k = 2 own part with beta*_2",
              f"{'alpha2':>6}{head}   fresh   pred."]
    for p in TRANSECTS["learnability"]["points"]:
        own = "".join(f"{fmt(1e3 * _at(rows, p, N)['own'][0], 2):>7}" for N in Ns)
        fresh = 1e3 * _at(rows, p, Ns[-1], "fresh")["own"][0]
        pred = 1e3 * _at(rows, p, Ns[-1])["predicted_own"]
        lines.append(f"{p[1]:>6.2f}{own}  {fmt(fresh, 2):>6} {fmt(pred, 2):>6}")
    return "\n".join(lines)


def k1_counted(runs: Runs) -> tuple[int, int]:
    """(reused runs whose census counts a k = 1 spike, reused runs) on the transect across
    the count line alpha1 + alpha2 = 1/2, every stored size and seed (``c_counted`` and
    ``c_units`` of :func:`transects`)."""
    rows = transect_table(runs, k=1)
    count = TRANSECTS["count"]["points"]
    sel = [r for r in rows if r["run"] == "reused" and (r["alpha1"], r["alpha2"]) in count]
    return int(round(sum(r["detected"] * r["seeds"] for r in sel))), int(sum(r["seeds"]
                                                                         for r in sel))


#: the targets whose leading-order k = 2 constant the chapter compares (book: dv-leading-order)
LEADING_TARGETS = (("he1", "He_1"), ("he1+he3", "He_1 + He_3"), ("bounded", "bounded"))


def leading_order(point=BEYOND_POINT, activation: str = "shifted_tanh") -> dict:
    """The k = 2 term's leading order c_2 N^e at ``point`` below the learnability line
    (book: dv-leading-order; e = alpha2 - 2 (1/2 - alpha1) < 0): per target of
    :data:`LEADING_TARGETS` the constant c_2
    (:func:`companion.core.expansion.leading_order_constants`, reused batch, ``activation``)
    and the width N at which c_2 N^e falls to ``need``, the strength the census needs
    against a clean bulk (:func:`companion.core.spikes.bbp_detection_strength`,
    :func:`companion.core.expansion.leading_order_crossing`). Keys ``exponent``, ``need``,
    ``rows`` (target, label, c_2, N)."""
    exponent = spike_exponent(point[0], point[1], 2)
    need = bbp_detection_strength(2.0)
    rows = []
    for target, label in LEADING_TARGETS:
        c2 = float(leading_order_constants(target, activation, K=3)[2])
        rows.append((target, label, c2, leading_order_crossing(c2, exponent, need)))
    return {"point": tuple(point), "exponent": exponent, "need": need, "rows": rows}


def leading_order_numbers(point=BEYOND_POINT) -> Numbers:
    """The numbers the chapter quotes from :func:`leading_order`: ``c_he1``, ``c_he1he3``,
    ``c_bounded`` (the constants), ``ratio`` (He_1 + He_3's over the bounded link's),
    ``need``, ``exponent``, ``N_he1``, ``N_he1he3``, ``N_bounded`` (the widths)."""
    lo = leading_order(point)
    tag = {"he1": "he1", "he1+he3": "he1he3", "bounded": "bounded"}
    out = {"need": fmt(lo["need"], 3), "exponent": fmt_signed(lo["exponent"])}
    for target, _, c2, N in lo["rows"]:
        out[f"c_{tag[target]}"] = fmt(c2, 3)
        out[f"N_{tag[target]}"] = fmt(N, 2)
    c = {t: c2 for t, _, c2, _ in lo["rows"]}
    out["ratio"] = fmt(c["he1+he3"] / c["bounded"], 2)
    return Numbers(**out)


def leading_order_table(point=BEYOND_POINT) -> str:
    """:func:`leading_order` as a table: per target the constant c_2 and the width N at which
    c_2 N^e falls below what the census needs."""
    lo = leading_order(point)
    lines = [f"k = 2 leading order c_2 N^e at ({lo['point'][0]:.2f}, "
             f"{lo['point'][1]:.2f}), e = {fmt_signed(lo['exponent'])}, tanh(z + 1/2)",
             f"{'target':<13}{'c_2':>8}   N where c_2 N^e < {fmt(lo['need'], 3)}"]
    for _, label, c2, N in lo["rows"]:
        lines.append(f"{label:<13}{fmt(c2, 3):>8}   {fmt(N, 2)}")
    return "\n".join(lines)
