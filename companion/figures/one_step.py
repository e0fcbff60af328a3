"""Figures of the chapter "One step" (SPEC 3.1; E1, E2): each takes the runs (the
chapter's own, or the stored paper-scale runs) and returns a matplotlib Figure."""

from __future__ import annotations

import numpy as np

from ..runs import Runs
from ._common import _as_tuples, _group, _new_figure, _spread, _stack

def transition(runs: Runs):
    """The E1 figure (moved from reproduce)."""
    results = _as_tuples(runs)
    from .. import plotting as cplt
    from ..experiments import one_step
    P = cplt.PALETTE
    etas = np.asarray(results[0][2]["eta"])
    p0 = results[0][0]
    grid = np.linspace(0, max(etas), 401)
    th = one_step.transition_theory(grid, p0["target"], p0["activation"], N=p0["N"])
    fig, (ax1, ax2) = _new_figure(1, 2)
    s1 = _stack(results, "s1")
    cplt.theory_line(ax1, grid, th["s1"], label="theory")
    cplt.sim_points(ax1, etas, *_spread(s1), label="simulation", color=P["one_step"])
    cplt.mark_bulk_edge(ax1, float(results[0][2]["edge"]), axis="y", label="bulk edge")
    ax1.set_xlabel(r"step size $\eta$")
    ax1.set_ylabel(r"top singular value $s_1$")
    ax1.legend(loc="upper left")
    cos2 = _stack(results, "cos2_beta")
    cplt.theory_line(ax2, grid, th["cos2"], label="theory")
    cplt.sim_points(ax2, etas, *_spread(cos2), label=r"$\cos^2(v_1, \beta^*)$",
                    color=P["one_step"])
    ax2.set_xlabel(r"step size $\eta$")
    ax2.set_ylabel("squared overlap")
    ax2.legend(loc="upper left")
    return fig


def growth(runs: Runs):
    """The E2 figure (moved from reproduce)."""
    results = _as_tuples(runs)
    from .. import plotting as cplt
    P = cplt.PALETTE
    Ns = sorted({p["N"] for p, _, _ in results})
    alphas = np.asarray(results[0][2]["alpha"])
    fig, (ax1, ax2) = _new_figure(1, 2)
    blues = ["#9ecae1", "#4292c6", "#08519c", "#08306b"]
    for color, a in zip(blues, [0.1, 0.2, 0.3, 0.4]):
        j = int(np.argmin(np.abs(alphas - a)))
        s1 = [_stack(results, "s1", lambda p, s, N=N: p["N"] == N)[:, j] for N in Ns]
        th = [_stack(results, "theory_s1", lambda p, s, N=N: p["N"] == N)[0, j] for N in Ns]
        cplt.theory_line(ax1, Ns, th, color=color)
        cplt.sim_points(ax1, Ns, [v.mean() for v in s1], [v.std() for v in s1], color=color,
                        label=rf"$\alpha = {a:g}$")
    from matplotlib.ticker import ScalarFormatter
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xticks(Ns, [str(n) for n in Ns])
    ax1.minorticks_off()
    ax1.set_yticks([2, 3, 5, 10, 20, 50])
    ax1.yaxis.set_major_formatter(ScalarFormatter())
    ax1.set_xlabel(r"width $N = d = n$")
    ax1.set_ylabel(r"top singular value $s_1$")
    ax1.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=4, fontsize=9,
               title="lines: theory", title_fontsize=9)
    big = lambda p, s: p["N"] == Ns[-1]  # noqa: E731
    cos2 = _stack(results, "cos2_beta", big)
    cplt.theory_line(ax2, alphas, _stack(results, "theory_cos2", big)[0], label="theory")
    cplt.theory_line(ax2, alphas, np.full(len(alphas), float(results[0][2]["saturation"])),
                     linestyle="-.", color=P["null"], label="saturation")
    cplt.sim_points(ax2, alphas, *_spread(cos2), color=P["one_step"],
                    label=rf"$\cos^2(v_1, \beta^*)$, $N = {Ns[-1]}$")
    ax2.set_xlabel(r"step-size exponent $\alpha$")
    ax2.set_ylabel("squared overlap")
    ax2.set_ylim(-0.02, 1.05)
    ax2.legend(loc="lower right", fontsize=9)
    return fig
