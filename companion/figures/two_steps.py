"""Figures of the chapter "Two steps: a spiked spectrum" (SPEC 3.2; E3, E4, E5, E10, E11):
each takes the runs (the chapter's own, or the stored paper-scale runs) and returns a
matplotlib Figure."""

from __future__ import annotations

import numpy as np

from ..runs import Runs
from ._common import _as_tuples, _group, _new_figure, _spread, _stack
from ..experiments.two_steps import E3_POINTS, E4_PAIRS, E5_PAIRS


def term_table(results, pair, k, batch="reused", key="terms"):
    """(Ns, values per N over the seeds) of ``<key>_<k>`` (or ``key`` when ``k`` is None)
    for one (alpha1, alpha2) pair and batch, from E3-E5 runs (fresh or :func:`load_runs`)."""
    sel = [(p, r) for p, s, r in results if (p["alpha1"], p["alpha2"]) == tuple(pair)
           and p["batch"] == batch]
    Ns = sorted({p["N"] for p, _ in sel})
    name = f"{key}_{k}" if k is not None else key
    vals = [np.array([float(r[name]) for p, r in sel if p["N"] == N]) for N in Ns]
    return np.array(Ns), vals


def phase_diagram(runs: Runs):
    """The E3 figure (moved from reproduce)."""
    results = _as_tuples(runs)
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from .. import plotting as cplt
    from ..theory import lambda_boundary, spike_exponent
    fig, ax = _new_figure()
    g1, g2 = np.meshgrid(np.linspace(0, 0.4999, 400), np.linspace(0, 0.4999, 400))
    lam = np.minimum(np.floor(g2 / (0.5 - g1) + 1e-9), 5)
    greys = ListedColormap(plt.cm.Greys(np.linspace(0.0, 0.45, 6)))
    ax.contourf(g1, g2, lam, levels=np.arange(-0.5, 6), cmap=greys, zorder=0)
    a1 = np.linspace(0, 0.5, 200)
    for k in range(1, 6):
        cplt.theory_line(ax, a1, lambda_boundary(k, a1), linewidth=3 if k == 2 else 1.2,
                         label=r"$\Lambda = 2$: $2\alpha_1 + \alpha_2 = 1$" if k == 2 else None)
    xs, ys, local, rows = [], [], [], []
    for pair in E3_POINTS:
        Ns, vals = term_table(results, pair, 2)
        m = np.array([np.exp(np.log(v).mean()) for v in vals])
        slope = np.log(m[-1] / m[-2]) / np.log(Ns[-1] / Ns[-2])
        xs.append(pair[0]), ys.append(pair[1]), local.append(slope)
        rows.append((pair, slope, spike_exponent(*pair, 2)))
    sc = ax.scatter(xs, ys, c=local, cmap="RdBu_r", vmin=-0.5, vmax=0.5, s=130,
                    edgecolors=cplt.PALETTE["theory"], linewidths=1.2, zorder=5,
                    label=r"simulation: local exponent of $T_2$")
    fig.colorbar(sc, ax=ax, label=r"measured exponent of $T_2$ (two largest $N$)")
    ax.set_xlim(0, 0.5)
    ax.set_ylim(0, 0.5)
    ax.set_xlabel(r"first step exponent $\alpha_1$")
    ax.set_ylabel(r"second step exponent $\alpha_2$")
    ax.legend(loc="lower left", framealpha=0.9, frameon=True, fontsize=9)
    return fig


def exponents(runs: Runs):
    """The E4 figure (moved from reproduce)."""
    results = _as_tuples(runs)
    from .. import plotting as cplt
    from ..theory import spike_exponent
    P = cplt.PALETTE
    # stacked, one pair per row: side by side, three panels are unreadable at a page's width
    fig, axes = _new_figure(len(E4_PAIRS), 1, sharex=True, sharey=True,
                     figsize=(6.4, 2.3 * len(E4_PAIRS) + 0.6))
    for ax, pair in zip(axes, E4_PAIRS):
        for k, color, marker in [(0, P["reused"], "o"), (2, P["accent"], "s")]:
            Ns, vals = term_table(results, pair, k)
            logs = [np.log(v) for v in vals]
            mean = np.exp([l.mean() for l in logs])
            lo, hi = np.exp([l.min() for l in logs]), np.exp([l.max() for l in logs])
            cplt.sim_points(ax, Ns, mean, np.stack([mean - lo, hi - mean]), color=color,
                            marker=marker, label=f"$T_{k}$ (simulation)")
            slope = spike_exponent(*pair, k)
            cplt.theory_line(ax, Ns, mean[-1] * (Ns / Ns[-1]) ** slope, linestyle="--",
                             label="predicted slope" if k == 0 else None)
            ax.text(Ns[0], mean[-1] * (Ns[0] / Ns[-1]) ** slope * 1.25, f"{slope:+.2f}",
                    fontsize=9, color=P["theory"])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(Ns, [str(n) for n in Ns])
        ax.minorticks_off()
        ax.set_ylabel(r"term size $T_k$")
        ax.set_title(rf"$(\alpha_1, \alpha_2) = ({pair[0]:.2f}, {pair[1]:.2f})$", fontsize=10.5)
    axes[-1].set_xlabel(r"width $N = d = n$")
    # below the panels: inside, the legend hid the (0.20, 0.45) points at the largest N
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=9)
    return fig


def one_step_collapse(runs: Runs):
    """The E5 figure (moved from reproduce)."""
    results = _as_tuples(runs)
    from .. import plotting as cplt
    from ..experiments import two_steps
    P = cplt.PALETTE
    fig, ax = _new_figure()
    for pair, marker, ls in [(E5_PAIRS[0], "o", "-"), (E5_PAIRS[1], "D", "--")]:
        for batch in ("reused", "fresh"):
            Ns, vals = term_table(results, pair, None, batch=batch, key="rel_diff")
            mean = np.array([v.mean() for v in vals])
            lo, hi = np.array([v.min() for v in vals]), np.array([v.max() for v in vals])
            cplt.sim_points(ax, Ns, mean, np.stack([mean - lo, hi - mean]), color=P[batch],
                            marker=marker, label=f"{batch}, $({pair[0]:.2f}, {pair[1]:.2f})$")
        grid = np.geomspace(Ns[0], Ns[-1], 60)
        cplt.theory_line(ax, grid, two_steps.fresh_relative_difference(*pair, grid),
                         linestyle=ls, label=f"fresh limit, $({pair[0]:.2f}, {pair[1]:.2f})$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(Ns, [str(n) for n in Ns])
    ax.minorticks_off()
    lo, hi = ax.get_ylim()
    ticks = [t for t in (0.02, 0.05, 0.1, 0.2, 0.5, 1.0) if lo <= t <= hi]
    ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
    ax.set_xlabel(r"width $N = d = n$")
    ax.set_ylabel(r"$\|W_2 - W_{\mathrm{ref}}\| \,/\, \|W_{\mathrm{ref}} - W_0\|$")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=9)
    return fig


def spectrum_beside_null(runs: Runs):
    """The E10 figure (moved from reproduce)."""
    results = _as_tuples(runs)
    from .. import plotting as cplt
    P = cplt.PALETTE
    params, seed, r = results[0]
    fig, ax = _new_figure()
    s, s_null = np.asarray(r["s"]), np.asarray(r["s_null"])
    edge = float(r["edge"]) * 1.02      # 2% margin, as companion.count_outliers
    cplt.spectrum_histogram(ax, s[1:], float(r["phi"]), outliers_edge=edge,
                            label=f"singular values of $W_2$ (top one, {s[0]:.3g}, not shown)")
    top, on = np.asarray(r["s_top"])[1:], np.asarray(r["on_powers"])[1:]
    spikes = top[(on >= 0.3) & (top > edge)]
    ax.plot(spikes, np.zeros_like(spikes), marker="o", markersize=15, markerfacecolor="none",
            markeredgecolor=P["theory"], markeredgewidth=1.5, linestyle="none", clip_on=False,
            label="left vector on the powers of $a$ (spike)")
    null_top = s_null[1:4]
    ax.plot(null_top, np.full(len(null_top), 0.05), marker="|", markersize=14,
            color=P["fresh"], linestyle="none",
            label=f"null run: its 2nd to 4th values (top one {s_null[0]:.3g})")
    ax.set_xlim(0, 1.1 * max(s[1], s_null[1], edge))
    ax.set_xlabel(rf"singular value, $N = {params['N']}$, "
                  rf"$(\alpha_1, \alpha_2) = ({params['alpha1']}, {params['alpha2']})$, "
                  rf"seed {seed}")
    ax.set_ylabel("density")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8.5)
    return fig


# -- E11: the spikes appear one by one -------------------------------------------------------
def _emergence_runs(runs: Runs) -> Runs:
    """The runs with the default step constants c1 = c2 = 1."""
    return runs.where(c1=1.0, c2=1.0)


def _log_ticks(ax, Ns) -> None:
    ax.set_xscale("log")
    ax.set_xticks(Ns, [str(n) for n in Ns])
    ax.minorticks_off()


def spike_emergence_strengths(runs: Runs, activations=("shifted_tanh", "gelu"),
                              orders=(1, 2, 3)):
    """Separate strength of each term k against N (log-log), one row per point and one
    column per activation: markers the mean over seeds with a 95% bootstrap interval, lines
    the theory's exponent alpha2 - k (1/2 - alpha1) anchored at the largest N and continued
    to the N where the term is predicted to reach the threshold, grey the threshold (half the
    null run's bulk edge: 1 for the W0 bulk at N = d; higher where the update widens the bulk,
    as with GELU)."""
    from .. import plotting as cplt
    from ..experiments.two_steps import EMERGENCE_POINTS, crossing_size
    from ..theory import lambda_count, spike_exponent

    runs = _emergence_runs(runs)
    fig, axes = _new_figure(len(EMERGENCE_POINTS), len(activations), sharex=True, sharey=True,
                            squeeze=False)
    for row, (a1, a2) in enumerate(EMERGENCE_POINTS):
        for col, act in enumerate(activations):
            ax = axes[row, col]
            sel = runs.where(alpha1=a1, alpha2=a2, activation=act)
            Ns = sorted(sel.unique("N"))
            by_N = [sel.where(N=N) for N in Ns]
            threshold = np.array([r.mean("edge_null") / 2 for r in by_N])
            ax.plot(Ns, threshold, color=cplt.PALETTE["null"], linestyle="--", linewidth=1.5,
                    label="threshold (bulk edge / 2)")
            top = Ns[-1] * 16
            for k in orders:
                style = cplt.TERM_STYLE[k]
                mean = np.array([r.mean(f"strength_k{k}") for r in by_N])
                lo, hi = np.array([r.interval(f"strength_k{k}") for r in by_N]).T
                cplt.sim_points(ax, Ns, mean, np.stack([mean - lo, hi - mean]),
                                color=style["color"], marker=style["marker"],
                                label=f"term $k = {k}$")
                e = spike_exponent(a1, a2, k)
                n_cross = crossing_size(Ns[-1], mean[-1], e, threshold[-1])
                end = min(max(n_cross, Ns[-1]), top) if np.isfinite(n_cross) else top
                grid = np.geomspace(Ns[0], end, 50)
                cplt.theory_line(ax, grid, mean[-1] * (grid / Ns[-1]) ** e,
                                 color=style["color"], linestyle=":", linewidth=1.6)
                if k > lambda_count(a1, a2):
                    continue
                if mean[-1] < threshold[-1]:
                    where = f"{n_cross:.0e}".replace("e+0", "e").replace("e+", "e") \
                        if np.isfinite(n_cross) else "never"
                    ax.annotate(f"$k={k}$: $N \\approx$ {where}" if np.isfinite(n_cross)
                                else f"$k={k}$: never", (grid[-1], mean[-1] * (grid[-1] / Ns[-1]) ** e),
                                textcoords="offset points", xytext=(-4, -12), ha="right",
                                fontsize=8.5, color=style["color"])
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(Ns[0] / 1.3, top * 1.2)
            ticks = [n for n in (1024, 4096, 16384, 65536) if Ns[0] <= n <= top]
            ax.set_xticks(ticks, [f"{n // 1024}k" for n in ticks])
            ax.minorticks_off()
            ax.set_yticks([0.3, 0.5, 1, 2, 5], ["0.3", "0.5", "1", "2", "5"])
            ax.set_title(f"{cplt.ACTIVATION_STYLE[act]['label']}, "
                         rf"$({a1:.2f}, {a2:.2f})$, $\Lambda = {lambda_count(a1, a2)}$",
                         fontsize=10)
            if col == 0:
                ax.set_ylabel("separate strength")
            if row == len(EMERGENCE_POINTS) - 1:
                ax.set_xlabel(r"width $N = d = n$")
    ax0 = axes[0, 0]
    ax0.set_ylim(0.25, 6)
    handles, labels = ax0.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=9)
    return fig


def spike_emergence_counts(runs: Runs, activations=("tanh", "shifted_tanh", "gelu")):
    """The number of spikes of W2 against N (counted against a null run, left vectors on the
    powers of a; :func:`companion.spikes.spike_census`), one panel per point: markers the
    mean over seeds, bars the range; dashed the companion's limits 1 + Lambda (every order)
    and 1 + floor(Lambda / 2) (tanh)."""
    from .. import plotting as cplt
    from ..experiments.two_steps import EMERGENCE_POINTS
    from ..theory import lambda_count, n_spikes

    runs = _emergence_runs(runs)
    fig, axes = _new_figure(1, len(EMERGENCE_POINTS), sharey=True, squeeze=False)
    offsets = dict(zip(activations, np.linspace(0.93, 1.07, len(activations))))
    for ax, (a1, a2) in zip(axes[0], EMERGENCE_POINTS):
        lam = lambda_count(a1, a2)
        every, odd = 1 + lam, n_spikes(a1, a2, "tanh")
        Ns = sorted(runs.where(alpha1=a1, alpha2=a2).unique("N"))
        ax.axhline(every, color=cplt.PALETTE["theory"], linestyle="--", linewidth=1.3)
        ax.text(Ns[0] / 1.25, every + 0.08, rf"$1 + \Lambda = {every}$", fontsize=9,
                va="bottom", color=cplt.PALETTE["theory"])
        ax.axhline(odd, color=cplt.ACTIVATION_STYLE["tanh"]["color"], linestyle=":",
                   linewidth=1.6)
        ax.text(Ns[-1] * 1.2, odd - 0.08, rf"$\tanh$: {odd}", fontsize=9, va="top",
                ha="right", color=cplt.ACTIVATION_STYLE["tanh"]["color"])
        for act in activations:
            sel = runs.where(alpha1=a1, alpha2=a2, activation=act)
            by_N = [sel.where(N=N).values("n_outliers") for N in Ns]
            mean = np.array([v.mean() for v in by_N])
            err = np.stack([mean - [v.min() for v in by_N], [v.max() for v in by_N] - mean])
            style = cplt.ACTIVATION_STYLE[act]
            cplt.sim_points(ax, np.array(Ns) * offsets[act], mean, err, color=style["color"],
                            marker=style["marker"], label=style["label"], markersize=7)
        _log_ticks(ax, Ns)
        ax.set_xlim(Ns[0] / 1.35, Ns[-1] * 1.35)
        ax.set_title(rf"$(\alpha_1, \alpha_2) = ({a1:.2f}, {a2:.2f})$, $\Lambda = {lam}$",
                     fontsize=10)
        ax.set_xlabel(r"width $N = d = n$")
    axes[0, 0].set_ylabel("spikes of $W_2$")
    axes[0, 0].set_ylim(0.5, 4.6)
    axes[0, 0].set_yticks([1, 2, 3, 4])
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=9)
    return fig
