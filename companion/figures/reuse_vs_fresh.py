"""Figures of the chapter "Reused versus fresh batches" (SPEC 3.3; E6 to E9): each takes
the runs (the chapter's own, or the stored paper-scale runs) and returns a matplotlib
Figure."""

from __future__ import annotations

import numpy as np

from ..runs import Runs
from ._common import _as_tuples, _group, _new_figure, _spread, _stack
from ..experiments.reuse_vs_fresh import E6_ALPHA_PAIRS as E6_PAIRS, E8_TARGETS, E9_ACTIVATIONS


def _category(results, by, names, xlabel):
    from .. import plotting as cplt
    P = cplt.PALETTE
    fig, ax = _new_figure()
    proj = _group(results, "projection", (by, "batch"))
    learn = _group(results, "learnable", (by, "batch"))
    for batch, shift in (("reused", -0.1), ("fresh", 0.1)):
        idx = [i for i, n in enumerate(names) if (n, batch) in proj]
        v = [proj[(names[i], batch)] for i in idx]
        mean = np.array([a.mean() for a in v])
        cplt.sim_points(ax, np.array(idx) + shift, mean,
                        np.stack([mean - [a.min() for a in v], [a.max() for a in v] - mean]),
                        color=P[batch], label=f"{batch} batch")
        for i in idx:
            if np.all(learn[(names[i], batch)] == 1):
                ax.annotate("predicted\nlearned", (i + shift, proj[(names[i], batch)].mean()),
                            textcoords="offset points", xytext=(0, 12), ha="center",
                            fontsize=8, color=P[batch])
    N = results[0][0]["N"]
    cplt.theory_line(ax, [-0.4, len(names) - 0.6], [4 / N] * 2, color=P["null"],
                     linestyle="--", label="chance $4/d$")
    ax.set_yscale("log")
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi * 2.5)       # room for the annotations
    ax.set_xticks(range(len(names)), names, fontsize=9)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(r"$\|P_4 \beta^*\|^2$")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=9)
    return fig


def first_direction(runs: Runs):
    """The E6 figure (moved from reproduce)."""
    results = _as_tuples(runs)
    from .. import plotting as cplt
    P = cplt.PALETTE
    fig, ax = _new_figure()
    cos2 = _group(results, "cos2", ("alpha1", "alpha2", "batch"))
    limit = _group(results, "limit", ("alpha1", "alpha2", "batch"))
    limit_n = _group(results, "limit_finite_n", ("alpha1", "alpha2", "batch"))
    for j, (batch, shift) in enumerate((("reused", -0.12), ("fresh", 0.12))):
        x = np.arange(len(E6_PAIRS)) + shift
        keys = [(a1, a2, batch) for a1, a2 in E6_PAIRS]
        v = [cos2[k] for k in keys]
        mean = np.array([a.mean() for a in v])
        cplt.sim_points(ax, x, mean, np.stack([mean - [a.min() for a in v],
                                               [a.max() for a in v] - mean]),
                        color=P[batch], label=f"{batch}: simulation")
        for xi, k in zip(x, keys):
            cplt.theory_line(ax, [xi - 0.1, xi + 0.1], [limit[k].mean()] * 2, color=P[batch],
                             label=f"{batch}: limit" if xi == x[0] else None)
            cplt.theory_line(ax, [xi - 0.1, xi + 0.1], [limit_n[k].mean()] * 2,
                             color=P[batch], linestyle=":",
                             label=r"limit $\times (1 - 1/\theta^2)$" if (xi == x[0] and j == 1)
                             else None)
    ax.set_xticks(range(len(E6_PAIRS)), [f"({a:.2f}, {b:.2f})" for a, b in E6_PAIRS])
    ax.set_xlabel(r"$(\alpha_1, \alpha_2)$")
    ax.set_ylabel(r"$\cos^2(v_1, \beta^*)$")
    ax.set_ylim(0, 1)
    ax.legend(loc="lower left", fontsize=9, ncol=2)
    return fig


def headline_projection(runs: Runs):
    """The E7 figure (moved from reproduce)."""
    results = _as_tuples(runs)
    from .. import plotting as cplt
    P = cplt.PALETTE
    fig, ax = _new_figure()
    proj = _group(results, "projection", ("batch", "alpha1", "N"))
    Ns = sorted({p["N"] for p, _, _ in results})
    styles = {("reused", 0.35): (P["reused"], 1.0, r"reused, $(0.35, 0.45)$, $\Lambda = 3$"),
              ("reused", 0.20): (P["accent"], 0.94, r"reused, $(0.20, 0.45)$, $\Lambda = 1$"),
              ("fresh", 0.35): (P["fresh"], 1.06, r"fresh, $(0.35, 0.45)$, $\Lambda = 3$")}
    for (batch, a1), (color, off, label) in styles.items():
        v = [proj[(batch, a1, N)] for N in Ns]
        mean = np.array([a.mean() for a in v])
        cplt.sim_points(ax, np.array(Ns) * off, mean,
                        np.stack([mean - [a.min() for a in v], [a.max() for a in v] - mean]),
                        color=color, label=label)
    grid = np.geomspace(Ns[0] * 0.8, Ns[-1] * 1.25, 50)
    cplt.theory_line(ax, grid, 4 / grid, color=P["null"], linestyle="--", label="chance $4/d$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(Ns, [str(n) for n in Ns])
    ax.minorticks_off()
    ax.set_xlabel(r"width $N = d = n$")
    ax.set_ylabel(r"$\|P_4 \beta^*\|^2$")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2, fontsize=9)
    return fig


def other_targets(runs: Runs):
    """The E8 figure (moved from reproduce)."""
    results = _as_tuples(runs)
    return _category(results, "target", E8_TARGETS,
                            r"target link, $(\alpha_1, \alpha_2) = (0.35, 0.45)$")


def activation_ablation(runs: Runs):
    """The E9 figure (moved from reproduce)."""
    results = _as_tuples(runs)
    return _category(results, "activation", E9_ACTIVATIONS,
                            r"activation, $\mathrm{He}_3$ target, $(0.35, 0.45)$")
