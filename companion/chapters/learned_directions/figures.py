"""E14's summaries and figure: the transects across the count line and the learnability
line (:mod:`companion.chapters.learned_directions.transects`). Kept apart from the unit module so that
drawing code is not part of the numerics' fingerprint (a figure fix recomputes nothing).

Intervals over seeds are t intervals (:func:`companion.core.intervals.t_interval`)."""

from __future__ import annotations

import numpy as np

from companion.chapters.learned_directions import learnability_summaries as lsum
from companion.chapters.learned_directions.experiments import (
    E12_POINTS,
    content_by_N,
    count_by_N,
    direction_carriers,
    full_size,
)
from companion.chapters.learned_directions.limits import (
    content_path,
    fresh_level,
    limit_content,
    predicted_spike_content,
    predicted_spike_path,
)
from companion.chapters.learned_directions.transects import RUNS, TRANSECTS
from companion.core import intervals
from companion.core.finite_n import predicted_terms
from companion.core.runs import Runs
from companion.presentation import plotting as cplt
from companion.presentation.figures import log_axis, new_figure, stored_runs_absent

#: sizes at which the prediction's curves are drawn (2^9 .. 2^16)
CURVE_NS = tuple(2 ** j for j in range(9, 17))
#: :func:`prediction_curves` at E14's points and :data:`CURVE_NS` (computed with this
#: package; ``tests`` recompute a few entries): (alpha1, alpha2) -> dict of
#: ``k1``, ``k2`` (reused separate strengths), ``k1_null``, ``k2_null``, ``cos2_k2``
#: (the k = 2 term's own part with beta*_2), one value per size
PREDICTION_TABLE: dict[tuple[float, float], dict[str, tuple]] = {
    (0.3, 0.1): {
        'k1': (0.3463, 0.322, 0.303, 0.2883, 0.277, 0.2684, 0.2617, 0.2564),
        'k2': (0.3565, 0.3155, 0.2806, 0.2511, 0.2269, 0.2078, 0.1937, 0.1844),
        'k1_null': (0.3435, 0.3121, 0.2861, 0.2652, 0.2486, 0.236, 0.2267, 0.2199),
        'k2_null': (0.3694, 0.3266, 0.2898, 0.2586, 0.2327, 0.2121, 0.1965, 0.1858),
        'cos2_k2': (0.0001599, 0.0006662, 0.001898, 0.004384, 0.008717, 0.01529, 0.02388, 0.03342),
    },
    (0.3, 0.14): {
        'k1': (0.3771, 0.3629, 0.3554, 0.3534, 0.3554, 0.3604, 0.3673, 0.3752),
        'k2': (0.3644, 0.3257, 0.294, 0.2691, 0.2511, 0.2402, 0.2364, 0.2394),
        'k1_null': (0.3694, 0.3444, 0.3262, 0.3143, 0.3078, 0.3062, 0.3084, 0.3136),
        'k2_null': (0.3813, 0.3405, 0.3067, 0.2795, 0.2593, 0.2461, 0.2401, 0.2408),
        'cos2_k2': (0.0003302, 0.001274, 0.003534, 0.008001, 0.01546, 0.02591, 0.03798, 0.04927),
    },
    (0.3, 0.26): {
        'k1': (0.5857, 0.6437, 0.7216, 0.8173, 0.9292, 1.056, 1.198, 1.353),
        'k2': (0.4415, 0.4275, 0.4318, 0.4567, 0.5042, 0.5762, 0.6736, 0.7969),
        'k1_null': (0.5434, 0.5705, 0.616, 0.6792, 0.7597, 0.8575, 0.9724, 1.104),
        'k2_null': (0.4768, 0.4595, 0.4593, 0.4787, 0.5201, 0.5853, 0.6757, 0.7917),
        'cos2_k2': (0.002254, 0.006696, 0.01516, 0.02766, 0.04219, 0.0557, 0.06584, 0.07175),
    },
    (0.3, 0.3): {
        'k1': (0.7156, 0.8205, 0.9565, 1.123, 1.319, 1.547, 1.808, 2.104),
        'k2': (0.5031, 0.5102, 0.5442, 0.6093, 0.7094, 0.8487, 1.031, 1.261),
        'k1_null': (0.6528, 0.7156, 0.8058, 0.924, 1.072, 1.251, 1.464, 1.713),
        'k2_null': (0.5463, 0.5489, 0.5768, 0.6344, 0.726, 0.8559, 1.028, 1.247),
        'cos2_k2': (0.003664, 0.009827, 0.02025, 0.03387, 0.04807, 0.06019, 0.06869, 0.07326),
    },
    (0.3, 0.32): {
        'k1': (0.7964, 0.9315, 1.106, 1.32, 1.575, 1.875, 2.223, 2.624),
        'k2': (0.545, 0.5666, 0.621, 0.7136, 0.8502, 1.037, 1.282, 1.591),
        'k1_null': (0.7213, 0.8073, 0.927, 1.082, 1.277, 1.514, 1.799, 2.136),
        'k2_null': (0.5922, 0.6085, 0.6558, 0.7397, 0.8664, 1.042, 1.274, 1.57),
        'cos2_k2': (0.004505, 0.01148, 0.02262, 0.03643, 0.05024, 0.06168, 0.06953, 0.07361),
    },
    (0.3, 0.34): {
        'k1': (0.8896, 1.06, 1.281, 1.553, 1.882, 2.274, 2.735, 3.274),
        'k2': (0.5959, 0.6353, 0.7145, 0.8411, 1.023, 1.271, 1.595, 2.008),
        'k1_null': (0.8005, 0.914, 1.069, 1.271, 1.523, 1.834, 2.212, 2.665),
        'k2_null': (0.647, 0.6803, 0.7513, 0.8678, 1.038, 1.272, 1.581, 1.977),
        'cos2_k2': (0.005408, 0.01313, 0.0248, 0.03863, 0.05199, 0.06282, 0.07011, 0.07381),
    },
    (0.3, 0.46): {
        'k1': (1.809, 2.38, 3.153, 4.179, 5.523, 7.265, 9.508, 12.38),
        'k2': (1.171, 1.425, 1.814, 2.386, 3.2, 4.339, 5.906, 8.035),
        'k1_null': (1.588, 2.015, 2.602, 3.394, 4.449, 5.845, 7.678, 10.07),
        'k2_null': (1.244, 1.483, 1.852, 2.396, 3.174, 4.265, 5.773, 7.83),
        'cos2_k2': (0.0108, 0.02098, 0.03344, 0.0461, 0.05719, 0.06565, 0.0711, 0.07363),
    },
    (0.3, 0.48): {
        'k1': (2.044, 2.73, 3.67, 4.934, 6.612, 8.82, 11.7, 15.45),
        'k2': (1.329, 1.646, 2.131, 2.843, 3.867, 5.312, 7.323, 10.09),
        'k1_null': (1.791, 2.308, 3.025, 4.004, 5.325, 7.095, 9.451, 12.56),
        'k2_null': (1.404, 1.705, 2.166, 2.846, 3.825, 5.211, 7.148, 9.822),
        'cos2_k2': (0.01154, 0.02188, 0.03428, 0.04672, 0.05755, 0.06579, 0.07109, 0.07354),
    },
}


def prediction_curves(point, Ns=CURVE_NS, activation="shifted_tanh",
                      target="he1+he3") -> dict[str, np.ndarray]:
    """The finite-N prediction (:func:`companion.core.finite_n.predicted_terms`, reused
    batch and null run) along ``Ns`` at ``point``: ``k1``, ``k2`` and ``k1_null``,
    ``k2_null`` (separate strengths of the terms k = 1, 2), ``cos2_k2`` (the k = 2 term's
    own part with beta*_2). Read from :data:`PREDICTION_TABLE` when it holds the point at
    these sizes (each evaluation is a slow quadrature over a sample)."""
    key = (round(float(point[0]), 4), round(float(point[1]), 4))
    if key in PREDICTION_TABLE and tuple(Ns) == CURVE_NS:
        return {k: np.array(v, float) for k, v in PREDICTION_TABLE[key].items()}
    out = {name: [] for name in ("k1", "k2", "k1_null", "k2_null", "cos2_k2")}
    for N in Ns:
        p = predicted_terms(int(N), key[0], key[1], activation, target, K=3)
        q = predicted_terms(int(N), key[0], key[1], activation, target, K=3, null=True)
        out["k1"].append(p["strength"][1])
        out["k2"].append(p["strength"][2])
        out["k1_null"].append(q["strength"][1])
        out["k2_null"].append(q["strength"][2])
        out["cos2_k2"].append(p["cos2"][2][1])
    return {k: np.array(v, float) for k, v in out.items()}


def t_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): :func:`companion.core.intervals.t_interval` of the finite values
    (NaN bounds for one seed, all NaN for none)."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if not len(v):
        return float("nan"), float("nan"), float("nan")
    interval = intervals.t_interval(v, level)
    return interval.mean, interval.low, interval.high


def _spike_cos2(r, name: str, k: int, j: int) -> float:
    """cos^2 with direction j of the counted spike of order k of run ``name`` (the largest
    such singular value), NaN when the census counts none."""
    hit = np.flatnonzero(np.asarray(r[f"counted_{name}"]) & (np.asarray(r[f"order_{name}"]) == k))
    return float(np.asarray(r[f"cos2_{name}"])[hit[0], j]) if len(hit) else float("nan")


def transect_table(runs: Runs, k: int = 2, j: int = 1, level: float = 0.95) -> list[dict]:
    """Per (point, N, run) over the seeds: ``strength`` (mean, low, high: t interval) of the
    term k's separate strength, ``own`` (the same for its own part's cos^2 with target
    direction j), ``detected`` (fraction of seeds whose census counts a spike of order k),
    ``spike`` (mean cos^2 with direction j of that spike over the seeds that count it),
    ``predicted`` and ``predicted_own`` (the prediction at that N; reused and null only),
    ``seeds``, ``dtype``."""
    out = []
    for (a1, a2, N), group in sorted(runs.groups("alpha1", "alpha2", "N").items()):
        for name in RUNS:
            strength = [float(np.asarray(r[f"separate_{name}"])[k]) for r in group]
            own = [float(np.asarray(r[f"own_cos2_{name}"])[k][j]) for r in group]
            spikes = [_spike_cos2(r, name, k, j) for r in group]
            pred = {"reused": "predicted", "null": "predicted_null"}.get(name)
            row = {"alpha1": a1, "alpha2": a2, "N": N, "run": name, "k": k,
                   "seeds": len(group), "dtype": group[0].params.get("dtype", "float64"),
                   "strength": t_interval(strength, level), "own": t_interval(own, level),
                   "detected": float(np.mean(np.isfinite(spikes))),
                   "spike": (float(np.nanmean(spikes)) if np.isfinite(spikes).any()
                             else float("nan")),
                   "predicted": (float(np.mean([np.asarray(r[pred])[k] for r in group]))
                                 if pred else float("nan")),
                   "predicted_own": (float(np.asarray(group[0]["predicted_cos2"])[k][j])
                                     if name == "reused" else 0.0 if name == "null"
                                     else float("nan"))}
            out.append(row)
    return out


def local_slope(rows: list[dict], point, run: str = "reused", key: str = "strength") -> float:
    """Least-squares slope of log(mean ``key``) against log N at ``point`` for ``run``: the
    term's measured growth exponent over the stored sizes."""
    sel = sorted((r["N"], r[key][0]) for r in rows
                 if (r["alpha1"], r["alpha2"]) == tuple(point) and r["run"] == run)
    if len(sel) < 2:
        return float("nan")
    N, v = np.array(sel).T
    return float(np.polyfit(np.log(N), np.log(v), 1)[0])


#: colours of a transect's 4 points: the two below the line blue, the two above red
_POINT_COLORS = ("#9ecae1", "#2171b5", "#cb181d", "#fc9272")
_RUN_STYLE = {"reused": dict(marker="o", mfc=None, ms=5),
              "null": dict(marker="o", mfc="white", ms=5),
              "fresh": dict(marker="x", mfc=None, ms=5)}
_SHIFT = {"reused": 0.97, "null": 1.0, "fresh": 1.03}


def _draw_points(ax, rows, points, key, runs_shown, log_y=False):
    for c, point in zip(_POINT_COLORS, points):
        for name in runs_shown:
            sel = sorted((r for r in rows if (r["alpha1"], r["alpha2"]) == point
                          and r["run"] == name), key=lambda r: r["N"])
            if not sel:
                continue
            N = np.array([r["N"] for r in sel], float) * _SHIFT[name]
            if key == "detected":
                mid = np.array([r["detected"] for r in sel])
                err = None
            else:
                mid = np.array([r[key][0] for r in sel])
                lo = np.array([r[key][1] for r in sel])
                hi = np.array([r[key][2] for r in sel])
                err = np.stack([np.nan_to_num(mid - lo), np.nan_to_num(hi - mid)])
                if log_y:
                    err[0] = np.minimum(err[0], mid * 0.9)
            st = dict(_RUN_STYLE[name])
            st["mfc"] = st["mfc"] or c
            ax.errorbar(N, mid, yerr=err, color=c, linestyle="none", mew=1.2, capsize=0,
                        elinewidth=1, **st)


def _draw_curves(ax, points, keys):
    for c, point in zip(_POINT_COLORS, points):
        curves = prediction_curves(point)
        for key, ls in keys:
            ax.plot(CURVE_NS, curves[key], color=c, linestyle=ls, linewidth=1.4)


def _plain_log_y(ax) -> None:
    """A log y axis labelled with plain numbers (0.3, 0.5, 1, 2, ...), no minor ticks."""
    from matplotlib.ticker import FixedLocator, NullLocator

    ax.set_yscale("log")
    ax.yaxis.set_major_locator(FixedLocator([0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 7, 10]))
    ax.yaxis.set_major_formatter(cplt.mpl.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_locator(NullLocator())


def transects(runs: Runs | None = None, curves: bool = True):
    """E14: the two transects against N (book width; readable at 390 px).

    Top row, transect (i) across the count line alpha1 + alpha2 = 1/2 (alpha1 = 0.30):
    left, the k = 1 term's separate strength; right, the fraction of seeds whose census
    counts a k = 1 spike. Bottom row, transect (ii) across the learnability line
    2 alpha1 + alpha2 = 1 (alpha1 = 0.30): left, the k = 2 term's separate strength; right,
    the cos^2 of its own part with beta*_2 (He_3's direction). One colour per point (blue:
    below the line, red: above); filled circles: reused batch, hollow: null run, crosses:
    fresh batch; bars: 95% t intervals over the seeds; lines: the finite-N prediction up
    to N = 2^16 (solid: reused, dotted: null run), ``curves=False`` leaves them out. Every
    text in the book's sizes (readable on a phone); the legends below and in the panels."""
    if runs is None or len(runs) == 0:
        return stored_runs_absent()
    fig, axes = new_figure(nrows=2, ncols=2)
    fig.set_size_inches(fig.get_size_inches()[0], fig.get_size_inches()[1] * 1.3)
    Ns = sorted(runs.unique("N"))
    ticks = sorted(set(Ns) | ({CURVE_NS[0], CURVE_NS[-1]} if curves else set()))
    for row, (tname, t) in enumerate(TRANSECTS.items()):
        k = t["k"]
        rows = transect_table(runs, k=k)
        points = [p for p in t["points"]
                  if any((r["alpha1"], r["alpha2"]) == p for r in rows)]
        left, right = axes[row]
        _draw_points(left, rows, points, "strength", RUNS)
        if curves:
            _draw_curves(left, points, [(f"k{k}", "-"), (f"k{k}_null", ":")])
        left.axhline(1.0, color="0.4", linestyle="--", linewidth=1)
        left.set_ylabel(f"term $k = {k}$ strength")
        _plain_log_y(left)
        if row == 0:
            _draw_points(right, rows, points, "detected", ("reused", "null"))
            right.set_ylim(-0.05, 1.05)
            right.set_ylabel("seeds with a $k = 1$ spike")
        else:
            _draw_points(right, rows, points, "own", RUNS, log_y=True)
            if curves:
                _draw_curves(right, points, [("cos2_k2", "-")])
            right.plot(ticks, 1.0 / np.array(ticks, float), color="0.4", linestyle=":",
                       linewidth=1)
            right.set_yscale("log")
            right.set_ylabel(r"own part's $\cos^2$ with $\beta^*_2$")
        for ax in (left, right):
            log_axis(ax, ticks, kilo=True, close="drop")
            ax.set_xlabel("$N$")
        line = "$\\alpha_1 + \\alpha_2 = 1/2$" if k == 1 else "$2\\alpha_1 + \\alpha_2 = 1$"
        left.set_title(f"({'i' if row == 0 else 'ii'}) across {line}", loc="left")
        handles = [cplt.mpl.lines.Line2D([], [], color=c, marker="o", linestyle="none",
                                         label=f"$\\alpha_2$ = {p[1]:.2f}")
                   for c, p in zip(_POINT_COLORS, points)]
        right.legend(handles=handles, loc="best", handletextpad=0.2, borderaxespad=0.2,
                     labelspacing=0.2, borderpad=0.1)
    style = [cplt.mpl.lines.Line2D([], [], color="0.3", linestyle="none", label=lab, **st)
             for lab, st in (("reused", dict(marker="o")),
                             ("null", dict(marker="o", mfc="white")),
                             ("fresh", dict(marker="x")))]
    style += [cplt.mpl.lines.Line2D([], [], color="0.3", linestyle=ls, linewidth=lw, label=lab)
              for lab, ls, lw in (("predicted", "-", 1.4), ("predicted null", ":", 1.4),
                                  ("threshold 1", "--", 1.0), ("chance 1/N", ":", 1.0))]
    fig.legend(handles=style, loc="outside lower center", ncol=4, columnspacing=0.8,
               handletextpad=0.3)
    return fig


# -- what each spike carries (E12) -----------------------------------------------------------
def spike_content(runs: Runs, N: int | None = None, counted_only: bool = False):
    """What each spike carries, and from which N the census counts the k = 2 spike.

    Top row: cos^2 of each spike's right vector with each target direction (He_1's
    beta*_1 left, He_3's beta*_2 right) by the spike's order k, at size ``N`` (default
    :func:`~companion.chapters.learned_directions.experiments.full_size`): one marker per (point,
    batch), reused and fresh runs in colour, their null runs in grey; bars: 95% t
    intervals over the seeds that have that spike (none with one seed); dotted: chance 1/d; log scale. By
    default every spike on the powers of a is read, counted or not
    (:func:`~companion.chapters.learned_directions.experiments.direction_carriers` with
    ``counted_only=False``); ``counted_only=True`` keeps the census's spikes only.

    Bottom row, at the first point against N: left, the fraction of seeds whose census
    counts a k = 2 spike (:func:`~companion.chapters.learned_directions.experiments.count_by_N`:
    reused run, its null run, fresh run); right, the k = 2 spike's cos^2 with beta*_2
    (reused, :func:`~companion.chapters.learned_directions.experiments.content_by_N`), against the
    largest of any null-run spike and of any fresh-batch spike on the powers of a; bars:
    exact (Clopper-Pearson) 95% intervals of the fractions (left) and 95% t intervals over
    the seeds of the means (right)."""

    N = full_size(runs) if N is None else N
    rows = direction_carriers(runs, N, counted_only=counted_only)
    fig, axes = new_figure(nrows=2, ncols=2)
    fig.set_size_inches(fig.get_size_inches()[0], fig.get_size_inches()[1] * 1.25)
    styles = {("reused", "run"): dict(color=cplt.PALETTE.get("reused", "C0"), marker="o"),
              ("fresh", "run"): dict(color=cplt.PALETTE.get("fresh", "C1"), marker="s"),
              ("reused", "null"): dict(color="0.55", marker="o", mfc="none"),
              ("fresh", "null"): dict(color="0.55", marker="s", mfc="none")}
    points = sorted({(r["alpha1"], r["alpha2"]) for r in rows})
    chance = chance_of(rows)
    for j, ax in enumerate(axes[0]):
        for p_i, point in enumerate(points):
            for (batch, name), st in styles.items():
                sel = [r for r in rows if (r["alpha1"], r["alpha2"]) == point
                       and r["batch"] == batch and r["run"] == name and r["detected"] > 0]
                for r in sel:
                    x = r["k"] + 0.18 * (p_i - 0.5) + (0.05 if name == "null" else 0)
                    x += 0.08 if batch == "fresh" else 0
                    mean = float(r["cos2_mean"][j])
                    err = [[mean - float(r["cos2_low"][j])], [float(r["cos2_high"][j]) - mean]]
                    floor = chance / 20
                    err = [[min(err[0][0], max(mean, floor) - floor)], err[1]]
                    ax.errorbar([x], [max(mean, floor)], yerr=err, linestyle="none",
                                ms=_POINT_SIZES[p_i % 2], **st)
            # the limit law (book: dv-spike-overlap) for the reused batch; 0 is not drawn
            predicted = predicted_spike_content(N, point)[:, j]
            for k, value in enumerate(predicted):
                if value > chance / 20:
                    ax.plot([k + 0.18 * (p_i - 0.5)], [value], **_PREDICTED_MARK)
        ax.axhline(chance, color="0.3", linestyle=":", linewidth=1)
        ax.set_yscale("log")
        ax.set_ylim(chance / 20, 1.0)
        ax.set_xlabel("order $k$ of the spike")
        ax.set_xticks(range(0, 4))
        ax.set_title(f"$N$ = {N}, " + [r"$\beta^*_1$ (He$_1$)", r"$\beta^*_2$ (He$_3$)"][j])
        ax.set_ylabel([r"$\cos^2$ with $\beta^*_1$", r"$\cos^2$ with $\beta^*_2$"][j])
    _counts_panel(axes[1][0], runs, styles)
    _content_panel(axes[1][1], runs, styles)
    _spike_content_legend(fig, styles, points)
    return fig


#: marker sizes of the two points of the top row (the first drawn left of each k, larger)
_POINT_SIZES = (6.5, 4.0)
#: how the limit law's prediction of a spike's content is marked (book: dv-spike-overlap)
_PREDICTED_MARK = dict(marker="_", ms=16, mew=2.2, color="black", linestyle="none")


def _spike_content_legend(fig, styles, points) -> None:
    """One legend below the panels, in the book's legend size, that says each thing once:
    what colour, marker and fill mean (the batch, and its null run in grey), what the
    marker's size and side mean (the point of the top row) and the limit law's mark, seven
    entries in two columns (an entry per combination did not fit at a readable size)."""
    from matplotlib.lines import Line2D

    def handle(st, ms=5.5):
        return Line2D([], [], linestyle="none", ms=ms, **st)

    entries = [(handle(styles[("reused", "run")]), "reused batch"),
               (handle(styles[("reused", "null")]), "its null run"),
               (handle(styles[("fresh", "run")]), "fresh batch"),
               (handle(styles[("fresh", "null")]), "its null run")]
    for p_i, point in enumerate(points[:2]):
        side = "left, larger" if p_i == 0 else "right, smaller"
        entries.append((handle(dict(color="0.25", marker="o"), _POINT_SIZES[p_i]),
                        f"({point[0]:.2f}, {point[1]:.2f}): {side}"))
    entries.append((Line2D([], [], **_PREDICTED_MARK), "predicted (limit law)"))
    fig.legend(*zip(*entries), loc="outside lower center", ncol=2, handletextpad=0.3,
               columnspacing=1.2)


def _counts_panel(ax, runs: Runs, styles) -> None:
    point = E12_POINTS[0]
    table = count_by_N(runs, point)
    shift = {("reused", "run"): 0.0, ("reused", "null"): 0.04, ("fresh", "run"): -0.04}
    for (batch, name), dx in shift.items():
        sel = [t for t in table if t["batch"] == batch and t["run"] == name]
        if not sel:
            continue
        Ns = np.array([t["N"] for t in sel], float)
        f = np.array([t["fraction"] for t in sel])
        err = [f - [t["low"] for t in sel], [t["high"] for t in sel] - f]
        ax.errorbar(Ns * 2 ** dx, f, yerr=err, linestyle="-", linewidth=0.8, ms=4,
                    **styles[(batch, name)])
    log_axis(ax, runs.unique("N"), kilo=True, pad=1.3, label="N")
    ax.set_ylim(-0.05, 1.05)
    ax.set_ylabel("seeds counting $k = 2$")
    ax.set_title("the census's count")


def _content_panel(ax, runs: Runs, styles) -> None:
    point = E12_POINTS[0]
    table = content_by_N(runs, point)
    series = [("reused", "mean", styles[("reused", "run")], 0.0),
              ("reused", "null_mean", styles[("reused", "null")], 0.04),
              ("fresh", "max_mean", styles[("fresh", "run")], -0.04)]
    for batch, key, st, dx in series:
        sel = [t for t in table if t["batch"] == batch and np.isfinite(t[key])]
        if not sel:
            continue
        stem = key[:-len("mean")]
        Ns = np.array([t["N"] for t in sel], float)
        m = np.array([t[key] for t in sel])
        err = [m - [t[stem + "low"] for t in sel], [t[stem + "high"] for t in sel] - m]
        ax.errorbar(Ns * 2 ** dx, m, yerr=err, linestyle="-", linewidth=0.8, ms=4, **st)
    Ns = np.array(sorted(runs.unique("N")), float)
    ax.plot(Ns, 1.0 / Ns, color="0.3", linestyle=":", linewidth=1)
    ax.plot(Ns, [predicted_spike_content(int(n), point)[2, 1] for n in Ns], color="black",
            linewidth=1.4)                               # the limit law of the k = 2 spike
    log_axis(ax, Ns, kilo=True, pad=1.3, label="N")
    ax.set_yscale("log")
    ax.set_ylim(ax.get_ylim()[0], max(ax.get_ylim()[1], 0.1))    # a labelled top decade
    ax.set_ylabel(r"$\cos^2$ with $\beta^*_2$")
    ax.set_title(r"$k = 2$ spike, $\beta^*_2$")


def chance_of(rows) -> float:
    """1/d of the rows of :func:`direction_carriers` (1e-3 without rows)."""
    return rows[0]["chance"] if rows else 1e-3


def content_path_figure(runs: Runs | None = None):
    """What the k = 2 spike carries from N = 2^9 to 2^50 (book: ld-conj-limit): lines, the
    predicted cos^2 of the k = 2 term's own part at E12's first point with beta*_2 (He_3,
    solid) and beta*_1 (He_1, dashed)
    (:func:`~companion.chapters.learned_directions.limits.content_path`), and their limits
    (dotted, :func:`~companion.chapters.learned_directions.limits.limit_content`); markers,
    the stored E12 runs' k = 2 spike (reused batch, counted or not; seed means, 95% t
    intervals) with each direction and the fresh level of beta*_2 (the largest of any
    fresh-batch spike on the powers of a), beside the fresh batch's predicted first spike
    (dash-dotted: the noise of u_1 and u_2 along beta*_2,
    :func:`~companion.chapters.learned_directions.limits.fresh_level`; the finite-N
    prediction gives its terms no beta*_2); grey dotted: chance 1/N; thin dash-dotted: the
    k = 2 spike's cos^2 with beta*_2 by the limit law (its own part's times the BBP overlap
    at its strength, :func:`~companion.chapters.learned_directions.limits.predicted_spike_path`,
    book: dv-spike-overlap). Legend below the axes, two columns, the book's font size."""
    path = content_path()
    lim = limit_content()
    fig, ax = new_figure()
    he3, he1 = cplt.PALETTE["reused"], cplt.TERM_STYLE[2]["color"]
    ax.plot(path["N"], path["he3"], color=he3, linewidth=1.6, label=r"own part, $\beta^*_2$")
    ax.plot(path["N"], path["he1"], color=he1, linewidth=1.6, linestyle="--",
            label=r"own part, $\beta^*_1$")
    for value, color in ((lim[2, 1], he3), (lim[2, 0], he1)):
        ax.axhline(value, color=color, linestyle=":", linewidth=1.2)
    spike = predicted_spike_path(path)         # the limit law of the spike (dv-spike-overlap)
    ax.plot(path["N"], spike["he3"], color=he3, linewidth=1.2, linestyle=(0, (4, 1, 1, 1)),
            label=r"spike predicted, $\beta^*_2$")
    ax.plot(path["N"], 1.0 / path["N"], color=cplt.PALETTE["null"], linestyle=":",
            linewidth=1)                      # in the caption: six entries in the legend
    point = E12_POINTS[0]
    ax.plot(path["N"], [fresh_level(int(n), *point) for n in path["N"]],
            color=cplt.PALETTE["fresh"], linestyle="-.", linewidth=1.2,
            label="fresh first spike, pred.")
    if runs is not None and len(runs):
        series = [(content_by_N(runs, point, j=1), "reused", "mean", he3, "o",
                   r"$k = 2$ spike, $\beta^*_2$"),
                  (content_by_N(runs, point, j=0), "reused", "mean", he1, "D",
                   r"$k = 2$ spike, $\beta^*_1$"),
                  (content_by_N(runs, point, j=1), "fresh", "max_mean",
                   cplt.PALETTE["fresh"], "x", r"fresh level, $\beta^*_2$")]
        for table, batch, key, color, marker, label in series:
            sel = [t for t in table if t["batch"] == batch and np.isfinite(t[key])]
            stem = key[:-len("mean")]
            Ns = np.array([t["N"] for t in sel], float)
            m = np.array([t[key] for t in sel])
            err = [m - [t[stem + "low"] for t in sel], [t[stem + "high"] for t in sel] - m]
            err[0] = np.minimum(err[0], 0.9 * m)
            ax.errorbar(Ns, m, yerr=err, color=color, marker=marker, linestyle="none",
                        ms=5, capsize=0, label=label)
    ax.set_xscale("log", base=2)
    ticks = [2.0 ** j for j in range(10, 51, 10)]
    ax.set_xticks(ticks, [f"$2^{{{j}}}$" for j in range(10, 51, 10)])
    ax.minorticks_off()
    ax.set_yscale("log")
    ax.set_ylim(1e-5, 0.2)
    ax.set_xlabel("$N$")
    ax.set_ylabel(r"$\cos^2$, $k = 2$ term")
    # one column per kind: the prediction's lines, the k = 2 spike, the fresh batch
    found = dict(zip(*reversed(ax.get_legend_handles_labels())))
    # two columns, filled down: beta*_2's lines and the fresh level, then beta*_1's
    order = [r"own part, $\beta^*_2$", r"spike predicted, $\beta^*_2$",
             r"$k = 2$ spike, $\beta^*_2$", r"fresh level, $\beta^*_2$",
             r"own part, $\beta^*_1$", r"$k = 2$ spike, $\beta^*_1$",
             "fresh first spike, pred."]
    shown = [label for label in order if label in found]
    fig.legend([found[label] for label in shown], shown, loc="outside lower center", ncol=2,
               columnspacing=1.0, handletextpad=0.4)
    return fig


def learnability_line(runs: Runs, ranges=None):
    """E18 (book: ld-sec-learnability): the growth exponent in log N of the k = 2 term's
    separate strength against alpha1 at alpha2 = 0.45, reused batch, one colour per range of
    sizes: measured (markers, 95% Welch interval over the seeds) and predicted (the finite-N
    prediction, a line of the same colour), with the fresh batch's (grey crosses, the largest
    range that holds every point) and the limit line 2 alpha1 + alpha2 = 1 (dashed).
    ``ranges``: (N_low, N_high) pairs, default those of
    :func:`learnability_summaries.growth_ranges`."""
    import matplotlib as mpl

    alpha2 = lsum.TRANSECTS["alpha1"]["value"]
    ranges = lsum.growth_ranges(runs) if ranges is None else ranges
    fig, ax = new_figure()
    grid = np.linspace(0.08, 0.37, 15)     # the prediction is smooth in alpha1
    colours = mpl.colormaps["viridis"](np.linspace(0.15, 0.75, len(ranges)))
    tables = [lsum.slope_table(runs, "alpha1", N_low, N_high) for N_low, N_high in ranges]
    for (N_low, N_high), rows, colour in zip(ranges, tables, colours):
        x = np.array([r["alpha1"] for r in rows])
        y = np.array([r["reused_slope"] for r in rows])
        err = np.array([[r["reused_slope"] - r["reused_low"] for r in rows],
                        [r["reused_high"] - r["reused_slope"] for r in rows]])
        ax.errorbar(x, y, yerr=err, fmt="o", color=colour, ms=5, capsize=2,
                    label=f"reused, $N$ = {N_low} to {N_high}")
        ax.plot(grid, [lsum.predicted_growth(a1, alpha2, N_low, N_high) for a1 in grid], "-",
                color=colour, lw=1.5)
    # the fresh batch on the largest range that holds every point of the transect
    wide = max(tables, key=lambda rows: (len(rows), rows[0]["N_high"]))
    ax.plot([r["alpha1"] for r in wide], [r["fresh_slope"] for r in wide], "x",
            color=cplt.PALETTE["null"], ms=6, label="fresh batch")
    ax.axhline(0.0, color=cplt.PALETTE["null"], ls=":", lw=1)
    ax.axvline(lsum.line_alpha1(alpha2), color=cplt.PALETTE["theory"], ls="--", lw=1,
               label=r"$2\alpha_1 + \alpha_2 = 1$")
    ax.plot([], [], "-", color=cplt.PALETTE["theory"], lw=1.5, label="finite-$N$ prediction")
    ax.set_xlabel(r"$\alpha_1$ (at $\alpha_2 = 0.45$)")
    ax.set_ylabel("growth exponent, $k = 2$ term")
    ax.legend(loc="upper left", fontsize=11, handletextpad=0.4, borderaxespad=0.3)
    return fig


#: the points of the alpha1 transect drawn against N (every other one: five lines stay legible)
STRENGTH_POINTS = (0.10, 0.175, 0.225, 0.275, 0.35)


def learnability_strengths(runs: Runs, alpha1s=STRENGTH_POINTS):
    """E18 (book: ld-sec-learnability): the reused batch's k = 2 separate strength against N
    at points of the alpha1 transect (alpha2 = 0.45), one colour per alpha1: the seeds' mean
    with its 95% t interval (markers) and the finite-N prediction (line of the same colour),
    on log-log axes, so that a growth exponent is a slope."""
    import matplotlib as mpl

    if runs is None or not len(runs):
        return stored_runs_absent()
    alpha2 = lsum.TRANSECTS["alpha1"]["value"]
    fig, ax = new_figure(figsize=(5, 4.2))
    colours = mpl.colormaps["viridis"](np.linspace(0.0, 0.85, len(alpha1s)))
    all_Ns: set[int] = set()
    for a1, colour in zip(alpha1s, colours):
        Ns = lsum.sizes(runs, (a1, alpha2))
        all_Ns |= set(Ns)
        stats = [intervals.t_interval(lsum.strengths(runs, (a1, alpha2), N)) for N in Ns]
        mean = np.array([s.mean for s in stats])
        err = np.array([[s.mean - s.low for s in stats], [s.high - s.mean for s in stats]])
        ax.errorbar(Ns, mean, yerr=err, fmt="o", color=colour, ms=5, capsize=2,
                    label=rf"$\alpha_1$ = {a1:g}")
        grid = np.unique(np.geomspace(Ns[0], Ns[-1], 8).round().astype(int))
        ax.plot(grid, [lsum.predicted_strength(int(N), a1, alpha2) for N in grid], "-",
                color=colour, lw=1.5)
    ax.plot([], [], "-", color=cplt.PALETTE["theory"], lw=1.5, label="finite-$N$ prediction")
    ax.set_yscale("log")
    ticks = [0.5, 1, 2, 4]
    ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
    ax.minorticks_off()
    log_axis(ax, sorted(all_Ns), pad=1.15, label="$N$")
    ax.set_ylabel("$k = 2$ separate strength, reused")
    ax.legend(loc="upper left", fontsize=10, handletextpad=0.4, borderaxespad=0.3)
    return fig
