"""Figures of the chapter "Finite size, honestly" (book: dv-sec-finite-n).

One function per figure, each taking the chapter's :class:`~companion.core.runs.Runs` (from the
experiment specs of :mod:`companion.chapters.finite_size.experiments`) and returning a matplotlib
Figure; the spread figure also overlays the stored paper-scale runs of the headline
experiment. These experiments are not in ``reproduce``'s catalog: only the chapter calls
them; the exception is :func:`census_calibration`, the figure of E13 (the census calibrated,
book: reg-experiments), which the chapter draws from the stored runs. The chapter's printed
tables are formatted by :mod:`.finite_size_tables`.
"""

from __future__ import annotations

import numpy as np

from companion.chapters.finite_size import experiments as ex
from companion.chapters.finite_size.calibration import calibration_table
from companion.core.runs import Runs
from companion.core.spikes import MARGIN, MIN_WEIGHT
from companion.presentation import plotting as cplt
from companion.presentation.book import fmt_interval, fmt_signed
from companion.presentation.figures import log_axis, new_figure, range_bars, stored_runs_absent

TARGET_LABEL = {"he1": r"$\mathrm{He}_1$", "he3": r"$\mathrm{He}_3$"}
#: the settings of the spread study: colour by batch, one marker each
SETTING_STYLE = {("reused", ex.HEADLINE[0]): ("reused", "o",
                                              r"reused $(0.35, 0.45)$, $\Lambda = 3$"),
                 ("reused", ex.LAMBDA_ONE[0]): ("reused", "s",
                                                r"reused $(0.20, 0.45)$, $\Lambda = 1$"),
                 ("fresh", ex.HEADLINE[0]): ("fresh", "D", r"fresh $(0.35, 0.45)$")}
#: the settings of the convergence study: one marker and one theory line style each
CONVERGENCE_STYLE = {(0.05, 0.05): ("s", ":"), (0.20, 0.20): ("o", "--"),
                     ex.HEADLINE: ("D", "-.")}
#: the polynomial activation of the blow-up (named in
#: :data:`companion.presentation.plotting.ACTIVATION_STYLE`)
POLYNOMIAL = ex.BLOWUP_ACTIVATIONS[1]


def _mosaic(layout, height, **kw):
    """A figure of the column's width with named panels (``plt.subplot_mosaic``)."""
    import matplotlib.pyplot as plt
    cplt.set_book_style()
    fig = plt.figure(figsize=(cplt.COLUMN_WIDTH, height))
    return fig, fig.subplot_mosaic(layout, **kw)


def _hollow(color) -> dict:
    return dict(markerfacecolor="white", markeredgecolor=color, markeredgewidth=1.3)


# --- how far laptop sizes are from infinity ---------------------------------------------

def scales(pre: Runs, N: int):
    """Top: the first step's pre-activation changes against N, one panel per target
    (measured root mean square and largest entry, mean and range over seeds; the derived
    typical size as a line). Bottom: how a spike term of exponent e_k grows with N relative
    to the chapter's size N (analytic), with the sizes this book runs shaded."""
    P = cplt.PALETTE
    fig, axd = _mosaic([["he1", "he3"], ["growth", "growth"]], 2 * cplt.ROW_HEIGHT + 1.0)
    sizes = sorted(pre.unique("N"))
    ticks = sorted(set(sizes) | {2 * N, 4 * N, 8192})
    grid = np.geomspace(sizes[0], 8192, 100)
    for target in ("he1", "he3"):
        ax = axd[target]
        runs = pre.where(target=target)
        a1 = runs[0]["alpha1"]
        C = ex.preactivation_constant(target)
        cplt.theory_line(ax, grid, C * grid ** (a1 - 0.5), label=r"typical size $C N^{\alpha_1 - 1/2}$")
        for key, marker, label, extra in (("rms", "o", "measured: root mean square", {}),
                                          ("max", "D", "measured: largest entry",
                                           _hollow(P["one_step"]))):
            values = np.array([runs.where(N=n).values(key) for n in sizes])
            cplt.sim_points(ax, sizes, *range_bars(values), color=P["one_step"],
                            marker=marker, label=label, **extra)
        ax.axhline(1.0, color=P["null"], linestyle=":", linewidth=1.3, label="a change of one")
        ax.set_yscale("log")
        log_axis(ax, [t for t in ticks if t in (sizes[0], sizes[-1], 8192)])
        ax.set_xlim(sizes[0] / 1.5, 8192 * 1.5)
        ax.set_ylim(0.1, 50)
        ax.set_yticks([0.1, 1, 10], ["0.1", "1", "10"])
        ax.minorticks_off()
        ax.set_title(f"{TARGET_LABEL[target]} labels, $\\alpha_1 = {a1:.2f}$")
        ax.set_xlabel(r"width $N = d = n$")
    axd["he1"].set_ylabel(r"$|\Delta_{ji}|$")
    axd["he3"].tick_params(labelleft=False)
    axd["he3"].sharey(axd["he1"])
    bx = axd["growth"]
    for e, style in zip((0.05, 0.15, 0.30), (":", "--", "-.")):
        cplt.theory_line(bx, grid, (grid / N) ** e, linestyle=style, label=rf"$e_k = {e:.2f}$")
    bx.axvspan(500, 4000, color=P["null"], alpha=0.15, linewidth=0, label="laptop sizes")
    bx.axvline(N, color=P["null"], linestyle=":", linewidth=1.3)
    log_axis(bx, ticks)
    bx.set_title("growth of a spike term $N^{e_k}$")
    bx.set_xlabel(r"width $N$")
    bx.set_ylabel(f"relative to $N = {N}$")
    handles, labels = axd["he1"].get_legend_handles_labels()
    h2, l2 = bx.get_legend_handles_labels()
    fig.legend(handles + h2, labels + l2, loc="outside lower center", ncol=3, fontsize=9)
    return fig


# --- counting outliers ------------------------------------------------------------------

def outliers(counts: Runs):
    """Top, one panel per target: singular values 2 to 8 of W1 and W2 of every run (colour
    and marker by matrix) and of its null run (grey, open), against the Marchenko-Pastur
    edge. Bottom: the spike census: for the top 12 singular values of every W2, the weight
    of the left singular vector on the powers of a against the value over the null run's
    bulk edge; a value counts as a spike in the shaded corner."""
    P = cplt.PALETTE
    fig, axd = _mosaic([["he3", "he1"], ["census", "census"]], 2 * cplt.ROW_HEIGHT + 1.3)
    groups = [("W1", "reused", P["accent"], "^", r"$W_1$"),
              ("W2", "reused", P["reused"], "o", r"$W_2$ reused"),
              ("W2", "fresh", P["fresh"], "s", r"$W_2$ fresh")]
    jitter = np.linspace(-0.05, 0.05, len(counts.unique("seed")))
    for target in ("he3", "he1"):
        ax = axd[target]
        for g, (mat, batch, color, marker, label) in enumerate(groups):
            for j, run in enumerate(counts.where(target=target, batch=batch)):
                first = j == 0 and target == "he3"
                s = np.asarray(run[f"s_{mat}"])[1:]
                ax.plot(np.full(s.shape, g - 0.17 + jitter[j]), s, marker=marker, color=color,
                        linestyle="none", markersize=5, alpha=0.9, label=label if first else None)
                s = np.asarray(run[f"s_{mat}_null"])[1:]
                ax.plot(np.full(s.shape, g + 0.17 + jitter[j]), s, marker=marker, markersize=5,
                        color=P["null"], linestyle="none", alpha=0.9, **_hollow(P["null"]),
                        label="its null run (open)" if first and g == 2 else None)
        cplt.mark_bulk_edge(ax, 2.0 * (1 + MARGIN), axis="y",
                            label="edge 2 + 2%" if target == "he3" else None)
        ax.set_xticks(range(len(groups)), [r"$W_1$", r"$W_2$ re.", r"$W_2$ fr."])
        ax.set_xlim(-0.6, len(groups) - 0.4)
        ax.set_title(f"{TARGET_LABEL[target]} labels: values 2 to 8")
    axd["he3"].set_ylabel("singular value")
    axd["he1"].sharey(axd["he3"])
    axd["he1"].tick_params(labelleft=False)
    cx = axd["census"]
    for target, filled in (("he3", True), ("he1", False)):
        for batch, marker in (("reused", "o"), ("fresh", "s")):
            runs = counts.where(target=target, batch=batch)
            x = np.concatenate([np.asarray(r["weight"]) for r in runs])
            y = np.concatenate([np.asarray(r["s_census"]) / r["edge_null"] for r in runs])
            extra = {} if filled else _hollow(P[batch])
            cx.plot(x, y, marker=marker, linestyle="none", markersize=5, color=P[batch],
                    alpha=0.85, label=f"{batch}, {TARGET_LABEL[target]}", **extra)
    cx.axvline(MIN_WEIGHT, color=P["theory"], linestyle="--", linewidth=1.2)
    cx.axhline(1 + MARGIN, color=P["theory"], linestyle="--", linewidth=1.2)
    cx.fill_between([MIN_WEIGHT, 1.02], 1 + MARGIN, 100, color=P["null"], alpha=0.18,
                    linewidth=0, label="counted as a spike")
    cx.set_yscale("log")
    cx.set_xlim(-0.02, 1.02)
    y_all = np.concatenate([np.asarray(r["s_census"]) / r["edge_null"] for r in counts])
    cx.set_ylim(min(0.8, y_all.min() / 1.1), y_all.max() * 1.6)
    lo, hi = cx.get_ylim()
    ticks = [t for t in (0.2, 0.5, 1, 2, 5, 10, 20, 50) if lo <= t <= hi]
    cx.set_yticks(ticks, [f"{t:g}" for t in ticks])
    cx.minorticks_off()
    cx.set_title("the census: left vector on the powers of $a$, value above the null edge")
    cx.set_xlabel(r"weight of the left singular vector on $a, a^{\circ 2}, \ldots, a^{\circ 5}$")
    cx.set_ylabel("value / null edge")
    handles, labels = axd["he3"].get_legend_handles_labels()
    h2, l2 = cx.get_legend_handles_labels()
    fig.legend(handles + h2, labels + l2, loc="outside lower center", ncol=3, fontsize=9)
    return fig


# --- the spread of the headline statistic -----------------------------------------------

def _strip(ax, runs: Runs, stored: bool) -> None:
    P = cplt.PALETTE
    Ns = sorted(runs.unique("N"))
    for i, N in enumerate(Ns):
        for s, ((batch, a1), (color, marker, label)) in enumerate(SETTING_STYLE.items()):
            v = runs.where(batch=batch, alpha1=a1, N=N).values("projection")
            x0 = i + (s - 1) * 0.27
            jit = np.linspace(-0.07, 0.07, len(v)) if len(v) > 1 else np.zeros(1)
            ax.plot(x0 + jit, v, marker=marker, linestyle="none", markersize=5.5,
                    color=P[color], zorder=4, **(_hollow(P[color]) if stored else {}),
                    label=label if i == 0 else None)
            ax.plot([x0 - 0.11, x0 + 0.11], [v.mean()] * 2, color=P[color], linewidth=2.2,
                    zorder=5)
        ax.plot([i - 0.45, i + 0.45], [4 / N] * 2, color=P["null"], linestyle="--",
                linewidth=1.3, label="chance $4/d$" if i == 0 else None)
    ax.set_xticks(range(len(Ns)), [str(N) for N in Ns])
    ax.set_xlim(-0.55, len(Ns) - 0.45)
    ax.set_xlabel(r"width $N = d = n$")


def spread(runs: Runs, stored: Runs | None = None):
    """Top: the headline statistic of every run (markers; bars: the mean over seeds), the
    chapter's runs on the left and, when given, the stored paper-scale runs on the right
    (open markers). Bottom: the probability that m seeds per setting order two settings
    correctly (:func:`~companion.chapters.finite_size.experiments.headline_orderings`), against m."""
    P = cplt.PALETTE
    top = [["chapter", "stored"]] if stored is not None else [["chapter", "chapter"]]
    ratios = [1, 2] if stored is not None else [1, 1]
    fig, axd = _mosaic(top + [["order", "order"]], 2 * cplt.ROW_HEIGHT + 1.3,
                       width_ratios=ratios)
    ax = axd["chapter"]
    _strip(ax, runs, stored=False)
    ax.set_ylabel(r"$\|P_4 \beta^*\|^2$ of $\mathrm{He}_3$")
    ax.set_title(f"this chapter, {len(runs.unique('seed'))} seeds")
    panels = [(ax, runs)]
    if stored is not None:
        sx = axd["stored"]
        _strip(sx, stored, stored=True)
        sx.set_title(f"stored paper-scale runs, {len(stored.unique('seed'))} seeds")
        panels.append((sx, stored))
    low = min(min(r.values("projection").min(), 4 / max(r.unique("N"))) for _, r in panels)
    high = max(r.values("projection").max() for _, r in panels)
    ticks = [t for t in (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
             if low / 1.3 <= t <= high * 1.3]
    for i, (panel, _) in enumerate(panels):
        panel.set_yscale("log")
        panel.set_ylim(low / 1.3, high * 1.3)
        panel.set_yticks(ticks, [f"{t:g}" for t in ticks] if i == 0 else [])
        panel.minorticks_off()
    Ns = sorted(runs.unique("N"))
    small, large = Ns[0], Ns[-1]
    order = ex.headline_orderings(runs)
    bx = axd["order"]
    series = {"fresh": (P["fresh"], "D", {}, f"reused (0.35) > fresh, N = {large}"),
              "lambda_small": (P["reused"], "s", _hollow(P["reused"]),
                               f"reused (0.35) > reused (0.20), N = {small}"),
              "lambda_large": (P["reused"], "s", {},
                               f"reused (0.35) > reused (0.20), N = {large}"),
              "growth": (P["accent"], "^", {}, f"reused (0.35): N = {large} > N = {small}")}
    ms = np.arange(1, len(order["fresh"]) + 1)
    for key, (color, marker, extra, label) in series.items():
        cplt.sim_points(bx, ms, order[key], color=color, marker=marker, markersize=6.5,
                        label=label, **extra)
    bx.axhline(0.95, color=P["null"], linestyle=":", linewidth=1.3, label="0.95")
    bx.set_xscale("log", base=2)
    bx.set_xticks([1, 2, 4, 8, 16], ["1", "2", "4", "8", "16"])
    bx.minorticks_off()
    bx.set_ylim(min(0.45, min(v.min() for v in order.values()) - 0.05), 1.03)
    bx.set_title(f"right order of the means of $m$ seeds each ({len(runs.unique('seed'))} "
                 "seeds resampled)")
    bx.set_xlabel("seeds per setting $m$")
    bx.set_ylabel("probability")
    handles, labels = ax.get_legend_handles_labels()
    h2, l2 = bx.get_legend_handles_labels()
    fig.legend(handles + h2, labels + l2, loc="outside lower center", ncol=2, fontsize=8.5)
    return fig


# --- what converges ---------------------------------------------------------------------

def convergence(runs: Runs, rates=None):
    """Top: the gap 1 - |<v1, u1/||u1||>|^2 of the first spike's right singular vector
    against N (markers: mean over seeds, bars: range), with the spiked-matrix prediction
    1/theta_N^2 as a line per setting. Bottom: its singular value over the leading-order
    prediction theta_N + 1/theta_N. The legend gives each measured slope with its 95%
    bootstrap interval over seeds (``rates``: :func:`convergence_rates`)."""
    P = cplt.PALETTE
    rates = ex.convergence_rates(runs) if rates is None else rates
    fig, (ax, bx) = new_figure(2, 1, sharex=True, figsize=(cplt.COLUMN_WIDTH,
                                                             2 * cplt.ROW_HEIGHT + 1.6))
    Ns = sorted(runs.unique("N"))
    grid = np.geomspace(Ns[0], 8192, 80)
    handles = []
    for r in rates:
        pair = (r["alpha1"], r["alpha2"])
        marker, style = CONVERGENCE_STYLE[pair]
        g = runs.where(alpha1=pair[0], alpha2=pair[1])
        gap = np.array([1 - g.where(N=N).values("overlap2") for N in Ns])
        ratio = np.array([g.where(N=N).values("s1") / g.where(N=N).values("s1_pred")
                          for N in Ns])
        pred = ex.first_spike_prediction(grid, *pair)
        line = cplt.theory_line(ax, grid, 1 - pred["overlap2"], linestyle=style)
        points = cplt.sim_points(ax, Ns, *range_bars(gap), color=P["reused"], marker=marker)
        cplt.sim_points(bx, Ns, *range_bars(ratio), color=P["reused"], marker=marker)
        handles.append(((points, line),
                        rf"$({pair[0]:.2f}, {pair[1]:.2f})$: slope {fmt_signed(r['gap'])} "
                        f"{fmt_interval(r['gap_low'], r['gap_high'], signed=True)}, "
                        f"predicted {fmt_signed(r['gap_pred'])} (line)"))
    ax.set_yscale("log")
    ax.set_ylabel(r"gap $1 - |\langle v_1, u_1 \rangle|^2$")
    ax.set_title("direction of the first spike")
    cplt.theory_line(bx, grid, np.ones_like(grid))
    log_axis(bx, Ns + [8192])
    bx.set_ylim(0.6, 1.1)
    bx.set_xlabel(r"width $N = d = n$")
    bx.set_ylabel(r"$s_1(W_2)$ / prediction")
    bx.set_title(r"size of the first spike against $\theta_N + 1/\theta_N$")
    from matplotlib.legend_handler import HandlerTuple
    fig.legend([h for h, _ in handles], [lab for _, lab in handles],
               handler_map={tuple: HandlerTuple(ndivide=None)}, handlelength=6,
               loc="outside lower center", ncol=1, fontsize=8.5)
    return fig


# --- polynomial activations -------------------------------------------------------------

def blowup(runs: Runs):
    """Top singular value of W2 against N for tanh and the polynomial activation, reused and
    fresh batch (markers: mean over seeds, bars: range), with the leading-order size of the
    first spike of each activation as a line."""
    P = cplt.PALETTE
    fig, ax = new_figure()
    Ns = sorted(runs.unique("N"))
    grid = np.geomspace(Ns[0] * 0.8, Ns[-1] * 1.25, 40)
    for act, marker, style in (("tanh", "o", "-"), (POLYNOMIAL, "X", "--")):
        g = runs.where(activation=act)
        a1, a2 = g[0]["alpha1"], g[0]["alpha2"]
        # the leading order is (N^alpha1 + N^alpha2) times a constant of the activation
        const = g.where(N=Ns[-1]).mean("theory_s1") / (Ns[-1] ** a1 + Ns[-1] ** a2)
        cplt.theory_line(ax, grid, const * (grid ** a1 + grid ** a2), linestyle=style,
                         label=f"{cplt.activation_name(act)}: leading order")
        for batch, off in (("reused", 0.96), ("fresh", 1.04)):
            v = np.array([g.where(batch=batch, N=N).values("s1") for N in Ns])
            cplt.sim_points(ax, np.array(Ns) * off, *range_bars(v), color=P[batch],
                            marker=marker, markersize=8,
                            label=f"{cplt.activation_name(act)}, {batch}")
    ax.set_yscale("log")
    log_axis(ax, Ns)
    ax.set_xlabel(r"width $N = d = n$")
    ax.set_ylabel(r"top singular value $s_1(W_2)$")
    ax.set_title(r"$\mathrm{He}_3$ target, $(\alpha_1, \alpha_2) = (0.35, 0.45)$")
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=9)
    return fig


def census_calibration(runs: Runs | None):
    """The census calibrated (E13, :mod:`companion.chapters.finite_size.calibration`; book:
    dv-census, dv-threshold). Left: the fraction of seeds whose census counts a rank-one
    term of strength theta planted along q_3 into a null run, against theta, one series per
    N; dotted: the BBP threshold edge / 2 of the planted matrix's own bulk, dashed: the BBP
    strength that clears the census's edge by its 2% margin (both averaged over N and
    seeds). Right: the strength of half detection against N, bars its 95% bootstrap interval
    over the seeds, grey dots each seed's first detected strength; lines: the two BBP values
    at each N. Without stored runs (``None``) the figure says so."""

    if runs is None or not len(runs):
        return stored_runs_absent()
    table = calibration_table(runs)
    fig, (left, right) = new_figure(1, 2)
    colors = [cplt.TERM_STYLE[0]["color"], cplt.PALETTE["reused"], "#1B998B", "#B8860B",
              "#A23B72"]
    markers = ["o", "s", "D", "^", "v"]
    for i, row in enumerate(table):
        st = dict(color=colors[i % 5], marker=markers[i % 5])
        left.plot(row["strengths"], row["rate"], linewidth=0.8, markersize=4,
                  label=f"N = {row['N']} ({row['seeds']} seeds)", **st)
    bbp = np.mean([r["bbp"] for r in table])
    margin = np.mean([r["bbp_margin"] for r in table])
    left.axvline(bbp, color=cplt.PALETTE["theory"], linestyle=":", linewidth=1.2,
                 label="BBP threshold (edge / 2)")
    left.axvline(margin, color=cplt.PALETTE["theory"], linestyle="--", linewidth=1.2,
                 label="BBP strength above edge + 2%")
    left.axhline(0.5, color=cplt.PALETTE["null"], linestyle=":", linewidth=1)
    left.set_xlabel(r"planted strength $\theta$")
    left.set_ylabel("fraction of seeds counted")
    left.set_title("detection against strength")
    Ns = np.array([r["N"] for r in table])
    for i, row in enumerate(table):
        err = [[row["threshold"] - row["low"]], [row["high"] - row["threshold"]]]
        cplt.sim_points(right, [row["N"]], [row["threshold"]], err, color=colors[i % 5],
                        marker=markers[i % 5])
        right.plot(np.full(len(row["first"]), row["N"]) * 1.06, row["first"], ".",
                   color=cplt.PALETTE["null"], markersize=3,
                   label="one seed's first detection" if i == 0 else None)
    cplt.theory_line(right, Ns, [r["bbp_margin"] for r in table], linestyle="--")
    cplt.theory_line(right, Ns, [r["bbp"] for r in table], linestyle=":")
    log_axis(right, Ns, kilo=True, pad=1.3, label="N")
    right.set_ylabel(r"half-detection strength $\theta_{1/2}$")
    right.set_title("the census's threshold")
    handles, labels = [], []
    for ax in (left, right):
        h, lab = ax.get_legend_handles_labels()
        handles += h
        labels += lab
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=7)
    return fig
