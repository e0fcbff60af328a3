"""E14's summaries and figure: the transects across the count line and the learnability
line (:mod:`companion.chapters.two_steps.transects`). Kept apart from the unit module so that
drawing code is not part of the numerics' fingerprint (a figure fix recomputes nothing).

Intervals over seeds are t intervals (scipy.stats, written here: the shared interval helpers
are on a branch that is not merged yet)."""

from __future__ import annotations

import numpy as np

from companion.chapters.two_steps.transects import RUNS, TRANSECTS
from companion.core import plotting as cplt
from companion.core.figures import _new_figure, log_axis, stored_runs_absent
from companion.core.finite_n import predicted_terms
from companion.core.runs import Runs

#: sizes at which the prediction's curves are drawn (2^9 .. 2^16)
CURVE_NS = tuple(2 ** j for j in range(9, 17))
#: :func:`prediction_curves` at E14's points and :data:`CURVE_NS` (computed 2026-12-02 with
#: this package; ``tests`` recompute a few entries): (alpha1, alpha2) -> dict of
#: ``k1``, ``k2`` (reused separate strengths), ``k1_null``, ``k2_null``, ``cos2_k2``
#: (the k = 2 term's own part with beta*_2), one value per size
PREDICTION_TABLE: dict[tuple[float, float], dict[str, tuple]] = {}


def prediction_curves(point, Ns=CURVE_NS, activation="shifted_tanh",
                      target="he1+he3") -> dict[str, np.ndarray]:
    """The finite-N prediction (:func:`companion.core.finite_n.predicted_terms`, reused
    batch and null run) along ``Ns`` at ``point``: ``k1``, ``k2`` and ``k1_null``,
    ``k2_null`` (separate strengths of the terms k = 1, 2), ``cos2_k2`` (the k = 2 term's
    own part with beta*_2). Read from :data:`PREDICTION_TABLE` when it holds the point at
    these sizes (each evaluation takes about a second)."""
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
    """Mean and two-sided t interval of the mean over seeds (NaN half-width for one seed)."""
    from scipy import stats

    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if not len(v):
        return float("nan"), float("nan"), float("nan")
    m = float(v.mean())
    if len(v) < 2:
        return m, float("nan"), float("nan")
    h = float(stats.t.ppf(0.5 + level / 2, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v)))
    return m, m - h, m + h


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
    to N = 2^16 (solid: reused, dotted: null run), ``curves=False`` leaves them out. The
    figure says in words what the prediction says about the line at these sizes."""
    if runs is None or len(runs) == 0:
        return stored_runs_absent()
    fig, axes = _new_figure(nrows=2, ncols=2)
    fig.set_size_inches(fig.get_size_inches()[0], fig.get_size_inches()[1] * 1.3)
    Ns = sorted(runs.unique("N"))
    ticks = sorted(set(Ns) | ({CURVE_NS[0], 8192, CURVE_NS[-1]} if curves else set()))
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
            ax.tick_params(axis="both", labelsize=9.5)
        line = "$\\alpha_1 + \\alpha_2 = 1/2$" if k == 1 else "$2\\alpha_1 + \\alpha_2 = 1$"
        left.set_title(f"({'i' if row == 0 else 'ii'}) across {line}", fontsize=10.5,
                       loc="left")
        handles = [cplt.mpl.lines.Line2D([], [], color=c, marker="o", linestyle="none",
                                         label=f"$\\alpha_2$ = {p[1]:.2f}")
                   for c, p in zip(_POINT_COLORS, points)]
        right.legend(handles=handles, fontsize=9, loc="best", handletextpad=0.2,
                     borderaxespad=0.2, labelspacing=0.3)
    style = [cplt.mpl.lines.Line2D([], [], color="0.3", linestyle="none", label=lab, **st)
             for lab, st in (("reused", dict(marker="o")),
                             ("null", dict(marker="o", mfc="white")),
                             ("fresh", dict(marker="x")))]
    style += [cplt.mpl.lines.Line2D([], [], color="0.3", linestyle=ls, linewidth=lw, label=lab)
              for lab, ls, lw in (("predicted", "-", 1.4), ("predicted null", ":", 1.4),
                                  ("threshold 1", "--", 1.0), ("chance 1/N", ":", 1.0))]
    fig.legend(handles=style, loc="upper center", ncol=4, fontsize=9, columnspacing=0.8,
               handletextpad=0.3, bbox_to_anchor=(0.5, 0.0))
    fig.text(0.5, -0.075, "prediction (lines): in (ii) the k = 2 term grows on both sides of "
             "the line at every N <= 8192;\nat these sizes the line is not visible as a change "
             "of sign of its growth", ha="center", va="top", fontsize=9, color="0.2")
    return fig
