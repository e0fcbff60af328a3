"""Figure of E12, distinct spikes learn distinct directions
(:mod:`companion.experiments.learned_directions`)."""

from __future__ import annotations

import numpy as np

from ..experiments.learned_directions import (
    E12_POINTS,
    content_by_N,
    count_by_N,
    direction_carriers,
    full_size,
)
from ..runs import Runs
from ._common import _new_figure, log_axis


def spike_content(runs: Runs, N: int | None = None, counted_only: bool = False):
    """What each spike carries, and from which N the census counts the k = 2 spike.

    Top row: cos^2 of each spike's right vector with each target direction (He_1's
    beta*_1 left, He_3's beta*_2 right) by the spike's order k, at size ``N`` (default
    :func:`~companion.experiments.learned_directions.full_size`): one marker per (point,
    batch), reused and fresh runs in colour, their null runs in grey; bars: 95% bootstrap
    intervals over the seeds that have that spike; dotted: chance 1/d; log scale. By
    default every spike on the powers of a is read, counted or not
    (:func:`~companion.experiments.learned_directions.direction_carriers` with
    ``counted_only=False``); ``counted_only=True`` keeps the census's spikes only.

    Bottom row, at the first point against N: left, the fraction of seeds whose census
    counts a k = 2 spike (:func:`~companion.experiments.learned_directions.count_by_N`:
    reused run, its null run, fresh run); right, the k = 2 spike's cos^2 with beta*_2
    (reused, :func:`~companion.experiments.learned_directions.content_by_N`), against the
    largest of any null-run spike and of any fresh-batch spike on the powers of a; bars:
    95% bootstrap intervals over the seeds."""
    from .. import plotting as cplt

    N = full_size(runs) if N is None else N
    rows = direction_carriers(runs, N, counted_only=counted_only)
    fig, axes = _new_figure(nrows=2, ncols=2)
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
                    label = None
                    if j == 0 and r["k"] == 0:
                        label = (f"({point[0]:.2f}, {point[1]:.2f}) {batch}"
                                 + (" null" if name == "null" else ""))
                    floor = chance / 20
                    err = [[min(err[0][0], max(mean, floor) - floor)], err[1]]
                    ax.errorbar([x], [max(mean, floor)], yerr=err, linestyle="none",
                                ms=4 + 2 * (1 - p_i), label=label, **st)
        ax.axhline(chance, color="0.3", linestyle=":", linewidth=1)
        ax.set_yscale("log")
        ax.set_ylim(chance / 20, 1.0)
        ax.set_xlabel("order k of the spike")
        ax.set_xticks(range(0, 4))
        ax.set_title(f"N = {N}: " + ["with He$_1$'s direction", "with He$_3$'s direction"][j])
        ax.set_ylabel([r"$\cos^2$ with $\beta^*_1$", r"$\cos^2$ with $\beta^*_2$"][j])
    _counts_panel(axes[1][0], runs, styles)
    _content_panel(axes[1][1], runs, styles)
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="upper center", ncol=4,
               fontsize=6, bbox_to_anchor=(0.5, 0.0))
    return fig


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
    ax.set_ylabel("seeds counting k = 2")
    ax.set_title(f"the count at ({point[0]:.2f}, {point[1]:.2f})")


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
    log_axis(ax, Ns, kilo=True, pad=1.3, label="N")
    ax.set_yscale("log")
    ax.set_ylim(ax.get_ylim()[0], max(ax.get_ylim()[1], 0.1))    # a labelled top decade
    ax.set_ylabel(r"$\cos^2$ with $\beta^*_2$")
    ax.set_title(f"He$_3$ content at ({point[0]:.2f}, {point[1]:.2f})")


def chance_of(rows) -> float:
    """1/d of the rows of :func:`direction_carriers` (1e-3 without rows)."""
    return rows[0]["chance"] if rows else 1e-3

