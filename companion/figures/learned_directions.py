"""Figure of E12, distinct spikes learn distinct directions
(:mod:`companion.experiments.learned_directions`)."""

from __future__ import annotations

from ..experiments.learned_directions import direction_carriers
from ..runs import Runs
from ._common import _new_figure


def spike_content(runs: Runs, N: int | None = None, counted_only: bool = False):
    """cos^2 of each counted spike's right vector with each target direction (columns:
    He_1's beta*_1, He_3's beta*_2), by the spike's order k, at size ``N`` (default the
    largest): one marker per (point, batch), reused and fresh runs in colour, their null
    runs in grey; bars: 95% bootstrap intervals over the seeds where that spike is counted;
    dotted: chance 1/d. Log scale. By default every spike on the powers of a is read,
    counted or not (:func:`~companion.experiments.learned_directions.direction_carriers`
    with ``counted_only=False``); ``counted_only=True`` keeps the census's spikes only."""
    from .. import plotting as cplt

    rows = direction_carriers(runs, N, counted_only=counted_only)
    fig, axes = _new_figure(ncols=2)
    styles = {("reused", "run"): dict(color=cplt.PALETTE.get("reused", "C0"), marker="o"),
              ("fresh", "run"): dict(color=cplt.PALETTE.get("fresh", "C1"), marker="s"),
              ("reused", "null"): dict(color="0.55", marker="o", mfc="none"),
              ("fresh", "null"): dict(color="0.55", marker="s", mfc="none")}
    points = sorted({(r["alpha1"], r["alpha2"]) for r in rows})
    for j, ax in enumerate(axes):
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
                    floor = chance_of(rows) / 20
                    err = [[min(err[0][0], max(mean, floor) - floor)], err[1]]
                    ax.errorbar([x], [max(mean, floor)], yerr=err, linestyle="none",
                                ms=4 + 2 * (1 - p_i), label=label, **st)
        chance = chance_of(rows)
        ax.axhline(chance, color="0.3", linestyle=":", linewidth=1)
        ax.set_yscale("log")
        ax.set_ylim(chance / 20, 1.0)
        ax.set_xlabel("order k of the spike")
        ax.set_xticks(range(0, 4))
        ax.set_ylabel([r"$\cos^2$ with $\beta^*_1$ (He$_1$)",
                       r"$\cos^2$ with $\beta^*_2$ (He$_3$)"][j])
    fig.legend(*axes[0].get_legend_handles_labels(), loc="upper center", ncol=4, fontsize=6,
               bbox_to_anchor=(0.5, 0.0))
    return fig


def chance_of(rows) -> float:
    """1/d of the rows of :func:`direction_carriers` (1e-3 without rows)."""
    return rows[0]["chance"] if rows else 1e-3
