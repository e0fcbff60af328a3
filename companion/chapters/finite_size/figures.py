"""Figures of the chapter "Finite size, honestly" (book: dv-sec-finite-n).

One function per figure, each taking the chapter's :class:`~companion.core.runs.Runs` (from the
experiment specs of :mod:`companion.chapters.finite_size.experiments`) and returning a matplotlib
Figure; the spread figure also overlays the stored paper-scale runs of the headline
experiment. These experiments are not in ``reproduce``'s catalog: only the chapter calls
them; the exception is :func:`census_calibration`, the figure of E13 (the census calibrated,
book: reg-experiments), which the chapter draws from the stored runs. The chapter's printed
tables are formatted by :mod:`companion.chapters.finite_size.tables`.

Read on a phone. The book shows a figure at the column's width; on a phone 390 CSS pixels
wide that is :data:`companion.presentation.figures.PHONE_COLUMN` pixels (measured in the
built page), so a figure of the column's 6.4 inches (640 pixels at its natural size) shrinks
by about 0.53, and a font must have at least 8 / 0.53 = 15 pixels, 11 points, at its
natural size to read as 8 pixels there (:func:`companion.presentation.figures.smallest_text`;
tests/chapters/finite_size/test_finite_size_figures.py).
Every text of these figures is set in :data:`FONT` points (:func:`_phone`); panels are few,
and stacked where side by side they would crowd.
"""

from __future__ import annotations

from contextlib import contextmanager

import matplotlib as mpl
import numpy as np

from companion.chapters.finite_size import experiments as ex
from companion.chapters.finite_size.calibration import calibration_table
from companion.core.runs import Runs
from companion.core.spikes import MARGIN, MIN_WEIGHT
from companion.presentation import plotting as cplt
from companion.presentation.figures import log_axis, range_bars, stored_runs_absent

#: the font size of every text of these figures, in points (at 100 dpi: 16.7 pixels at the
#: natural size, 8.9 on the phone for a figure of the column's width)
FONT = 12.0

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
#: the sizes of the calibration, small to large: a sequential colour and a marker each
SIZE_MARKERS = ("o", "s", "D", "^", "v")


def _size_styles(n: int) -> list[tuple]:
    colors = mpl.colormaps["viridis"](np.linspace(0.05, 0.8, n))
    return [(colors[i], SIZE_MARKERS[i % len(SIZE_MARKERS)]) for i in range(n)]


@contextmanager
def _phone():
    """Draw with every text in :data:`FONT` points (the book's style otherwise)."""
    cplt.set_book_style()
    with mpl.rc_context({"font.size": FONT, "axes.labelsize": FONT, "axes.titlesize": FONT,
                         "xtick.labelsize": FONT, "ytick.labelsize": FONT,
                         "legend.fontsize": FONT, "legend.title_fontsize": FONT}):
        yield


def _finish(fig):
    """Fix the tick labels' size on the axes (matplotlib makes ticks when it draws, after
    :func:`_phone` has ended) and return the figure."""
    for ax in fig.axes:
        ax.tick_params(labelsize=FONT)
    return fig


def _figure(layout, height, **kw):
    """A figure of the column's width with named panels (``plt.subplot_mosaic``)."""
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(cplt.COLUMN_WIDTH, height))
    return fig, fig.subplot_mosaic(layout, **kw)


def _hollow(color) -> dict:
    return dict(markerfacecolor="white", markeredgecolor=color, markeredgewidth=1.4)


# --- how far laptop sizes are from infinity ---------------------------------------------

def scales(pre: Runs):
    """The first step's pre-activation changes against N, one panel per target: measured
    root mean square (filled circles) and largest entry (open diamonds), mean and range
    over the seeds, with the derived typical size C N^(alpha1 - 1/2) as a line."""
    P = cplt.PALETTE
    with _phone():
        fig, axd = _figure([["he1", "he3"]], 4.3, sharey=True)
        sizes = sorted(pre.unique("N"))
        grid = np.geomspace(sizes[0], 8192, 100)
        for target in ("he1", "he3"):
            ax = axd[target]
            runs = pre.where(target=target)
            a1 = runs[0]["alpha1"]
            C = ex.preactivation_constant(target)
            cplt.theory_line(ax, grid, C * grid ** (a1 - 0.5), label="typical size (derived)")
            for key, marker, label, extra in (("rms", "o", "root mean square", {}),
                                              ("max", "D", "largest entry",
                                               _hollow(P["one_step"]))):
                values = np.array([runs.where(N=n).values(key) for n in sizes])
                cplt.sim_points(ax, sizes, *range_bars(values), color=P["one_step"],
                                marker=marker, markersize=7, label=label, **extra)
            ax.axhline(1.0, color=P["null"], linestyle=":", linewidth=1.5,
                       label="a change of one")
            ax.set_yscale("log")
            log_axis(ax, [sizes[0], sizes[-1], 8192])
            ax.set_xlim(sizes[0] / 1.5, 8192 * 1.5)
            ax.set_ylim(0.1, 50)
            ax.set_yticks([0.1, 1, 10], ["0.1", "1", "10"])
            ax.minorticks_off()
            ax.set_title(f"{TARGET_LABEL[target]} labels")
            ax.set_xlabel(r"width $N$")
        axd["he1"].set_ylabel(r"change $|\Delta_{ji}|$")
        handles, labels = axd["he1"].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=2)
    return _finish(fig)


# --- counting outliers ------------------------------------------------------------------

#: the matrices of the outlier figure: (matrix, batch, colour, marker, legend label)
MATRICES = [("W1", "reused", "accent", "^", r"$W_1$"),
            ("W2", "reused", "reused", "o", r"$W_2$, reused batch"),
            ("W2", "fresh", "fresh", "s", r"$W_2$, fresh batch")]


def outliers(counts: Runs):
    """Top, one panel per target: singular values 2 to 8 of W1 and W2 of every run (colour
    and marker by matrix) and of its null run (grey, open, to the right), against the
    Marchenko-Pastur edge. Bottom: the spike census of the He_3 runs: for the top 12
    singular values of every W2, the weight of the left singular vector on the powers of a
    against the value over the null run's bulk edge; a value counts as a spike in the
    shaded corner."""
    P = cplt.PALETTE
    with _phone():
        fig, axd = _figure([["he3", "he1"], ["census", "census"]], 8.4,
                           height_ratios=[1, 1.1])
        jitter = np.linspace(-0.06, 0.06, len(counts.unique("seed")))
        for target in ("he3", "he1"):
            ax = axd[target]
            for g, (mat, batch, color, marker, label) in enumerate(MATRICES):
                for j, run in enumerate(counts.where(target=target, batch=batch)):
                    first = j == 0 and target == "he3"
                    s = np.asarray(run[f"s_{mat}"])[1:]
                    ax.plot(np.full(s.shape, g - 0.18 + jitter[j]), s, marker=marker,
                            color=P[color], linestyle="none", markersize=6,
                            label=label if first else None)
                    s = np.asarray(run[f"s_{mat}_null"])[1:]
                    ax.plot(np.full(s.shape, g + 0.18 + jitter[j]), s, marker=marker,
                            markersize=6, color=P["null"], linestyle="none",
                            **_hollow(P["null"]),
                            label="its null run (grey, open)" if first and g == 2 else None)
            cplt.mark_bulk_edge(ax, 2.0 * (1 + MARGIN), axis="y",
                                label="edge 2 + 2%" if target == "he3" else None)
            ax.set_xticks(range(len(MATRICES)), [r"$W_1$", "$W_2$\nreused", "$W_2$\nfresh"])
            ax.set_xlim(-0.6, len(MATRICES) - 0.4)
            ax.set_title(f"{TARGET_LABEL[target]} labels")
        axd["he3"].set_ylabel("singular values 2 to 8")
        axd["he1"].sharey(axd["he3"])
        axd["he1"].tick_params(labelleft=False)
        cx = axd["census"]
        for _, batch, color, marker, _ in MATRICES[1:]:
            runs = counts.where(target="he3", batch=batch)
            x = np.concatenate([np.asarray(r["weight"]) for r in runs])
            y = np.concatenate([np.asarray(r["s_census"]) / r["edge_null"] for r in runs])
            cx.plot(x, y, marker=marker, linestyle="none", markersize=6, color=P[color],
                    alpha=0.85)
        cx.axvline(MIN_WEIGHT, color=P["theory"], linestyle="--", linewidth=1.2)
        cx.axhline(1 + MARGIN, color=P["theory"], linestyle="--", linewidth=1.2)
        cx.fill_between([MIN_WEIGHT, 1.02], 1 + MARGIN, 100, color=P["null"], alpha=0.18,
                        linewidth=0, label="counted by the census")
        cx.set_yscale("log")
        cx.set_xlim(-0.02, 1.02)
        y_all = np.concatenate([np.asarray(r["s_census"]) / r["edge_null"]
                                for r in counts.where(target="he3")])
        cx.set_ylim(min(0.8, y_all.min() / 1.1), y_all.max() * 1.6)
        lo, hi = cx.get_ylim()
        ticks = [t for t in (0.2, 0.5, 1, 2, 5, 10, 20, 50) if lo <= t <= hi]
        cx.set_yticks(ticks, [f"{t:g}" for t in ticks])
        cx.minorticks_off()
        cx.set_title(r"the census of the $\mathrm{He}_3$ runs' $W_2$")
        cx.set_xlabel(r"left vector's weight on $a, a^{\circ 2}, \ldots, a^{\circ 5}$")
        cx.set_ylabel("value / null run's edge")
        handles, labels = axd["he3"].get_legend_handles_labels()
        h2, l2 = cx.get_legend_handles_labels()
        fig.legend(handles + h2, labels + l2, loc="outside lower center", ncol=2)
    return _finish(fig)


# --- the spread of the headline statistic -----------------------------------------------

def _strip(ax, runs: Runs, stored: bool) -> None:
    P = cplt.PALETTE
    Ns = sorted(runs.unique("N"))
    for i, N in enumerate(Ns):
        for s, ((batch, a1), (color, marker, label)) in enumerate(SETTING_STYLE.items()):
            v = runs.where(batch=batch, alpha1=a1, N=N).values("projection")
            x0 = i + (s - 1) * 0.27
            jit = np.linspace(-0.07, 0.07, len(v)) if len(v) > 1 else np.zeros(1)
            ax.plot(x0 + jit, v, marker=marker, linestyle="none", markersize=6,
                    color=P[color], zorder=4, **(_hollow(P[color]) if stored else {}),
                    label=label if i == 0 else None)
            ax.plot([x0 - 0.11, x0 + 0.11], [v.mean()] * 2, color=P[color], linewidth=2.4,
                    zorder=5)
        ax.plot([i - 0.45, i + 0.45], [4 / N] * 2, color=P["null"], linestyle="--",
                linewidth=1.5, label="chance $4/d$" if i == 0 else None)
    ax.set_xticks(range(len(Ns)), [str(N) if N < 1024 else f"{N // 1024}k" for N in Ns])
    ax.set_xlim(-0.55, len(Ns) - 0.45)
    ax.set_xlabel(r"width $N$")


def spread(runs: Runs, stored: Runs | None = None):
    """The headline statistic of every run (markers; bars: the mean over the seeds), the
    chapter's runs on the left and, when given, the stored paper-scale runs on the right
    (open markers)."""
    with _phone():
        layout = [["chapter", "stored"]] if stored is not None else [["chapter"]]
        fig, axd = _figure(layout, 4.9, **({"width_ratios": [1, 1.6]} if stored is not None
                                          else {}))
        ax = axd["chapter"]
        _strip(ax, runs, stored=False)
        ax.set_ylabel(r"$\|P_4 \beta^*\|^2$ of $\mathrm{He}_3$")
        ax.set_title(f"this chapter, {len(runs.unique('seed'))} seeds")
        panels = [(ax, runs)]
        if stored is not None:
            sx = axd["stored"]
            _strip(sx, stored, stored=True)
            sx.set_title(f"stored, {len(stored.unique('seed'))} seeds")
            panels.append((sx, stored))
        low = min(min(r.values("projection").min(), 4 / max(r.unique("N"))) for _, r in panels)
        high = max(r.values("projection").max() for _, r in panels)
        ticks = [t for t in (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
                 if low / 1.3 <= t <= high * 1.3][::-2][::-1]
        for i, (panel, _) in enumerate(panels):
            panel.set_yscale("log")
            panel.set_ylim(low / 1.3, high * 1.3)
            panel.set_yticks(ticks, [f"{t:g}" for t in ticks] if i == 0 else [])
            panel.minorticks_off()
        handles, labels = ax.get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=2)
    return _finish(fig)


# --- what converges ---------------------------------------------------------------------

def convergence(runs: Runs, rates=None):
    """Top: the gap 1 - |<v1, u1/||u1||>|^2 of the first spike's right singular vector
    against N (markers: mean over seeds, bars: range), with the spiked-matrix prediction
    1/theta_N^2 as a line per setting. Bottom: its singular value over the leading-order
    prediction theta_N + 1/theta_N. One marker and one line style per setting; the slopes
    and their intervals are in the chapter's table (``rates``: :func:`convergence_rates`)."""
    from matplotlib.legend_handler import HandlerTuple
    P = cplt.PALETTE
    rates = ex.convergence_rates(runs) if rates is None else rates
    with _phone():
        fig, axd = _figure([["gap"], ["size"]], 7.6, sharex=True)
        ax, bx = axd["gap"], axd["size"]
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
            points = cplt.sim_points(ax, Ns, *range_bars(gap), color=P["reused"],
                                     marker=marker, markersize=7)
            cplt.sim_points(bx, Ns, *range_bars(ratio), color=P["reused"], marker=marker,
                            markersize=7)
            handles.append(((points, line), rf"$({pair[0]:.2f}, {pair[1]:.2f})$"))
        ax.set_yscale("log")
        ax.set_ylabel(r"gap $1 - |\langle v_1, u_1 \rangle|^2$")
        ax.set_title("direction of the first spike")
        cplt.theory_line(bx, grid, np.ones_like(grid))
        log_axis(bx, Ns + [8192])
        bx.set_ylim(0.6, 1.1)
        bx.set_xlabel(r"width $N$")
        bx.set_ylabel(r"$s_1(W_2)$ / prediction")
        bx.set_title(r"its size over $\theta_N + 1/\theta_N$")
        fig.legend([h for h, _ in handles], [lab for _, lab in handles],
                   handler_map={tuple: HandlerTuple(ndivide=None)}, handlelength=4,
                   loc="outside lower center", ncol=3, title=r"$(\alpha_1, \alpha_2)$: "
                   "measured (markers), predicted (lines)")
    return _finish(fig)


# --- polynomial activations -------------------------------------------------------------

def blowup(runs: Runs):
    """Top singular value of W2 against N for tanh and the polynomial activation, reused and
    fresh batch (colour: batch; marker: activation; mean over seeds, bars: range), with the
    leading-order size of the first spike of each activation as a line."""
    P = cplt.PALETTE
    names = {"tanh": "tanh", POLYNOMIAL: "polynomial"}
    with _phone():
        fig, axd = _figure([["s1"]], 4.8)
        ax = axd["s1"]
        Ns = sorted(runs.unique("N"))
        grid = np.geomspace(Ns[0] * 0.8, Ns[-1] * 1.25, 40)
        for act, marker, style in (("tanh", "o", "-"), (POLYNOMIAL, "X", "--")):
            g = runs.where(activation=act)
            a1, a2 = g[0]["alpha1"], g[0]["alpha2"]
            # the leading order is (N^alpha1 + N^alpha2) times a constant of the activation
            const = g.where(N=Ns[-1]).mean("theory_s1") / (Ns[-1] ** a1 + Ns[-1] ** a2)
            cplt.theory_line(ax, grid, const * (grid ** a1 + grid ** a2), linestyle=style,
                             label=f"leading order, {names[act]}")
            for batch, off in (("reused", 0.96), ("fresh", 1.04)):
                v = np.array([g.where(batch=batch, N=N).values("s1") for N in Ns])
                cplt.sim_points(ax, np.array(Ns) * off, *range_bars(v), color=P[batch],
                                marker=marker, markersize=9, label=f"{names[act]}, {batch}")
        ax.set_yscale("log")
        log_axis(ax, Ns)
        ax.set_xlabel(r"width $N$")
        ax.set_ylabel(r"top singular value $s_1(W_2)$")
        ax.set_title(r"$\mathrm{He}_3$ target, $(\alpha_1, \alpha_2) = (0.35, 0.45)$")
        handles, labels = ax.get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=2)
    return _finish(fig)


def census_calibration(runs: Runs | None):
    """The census calibrated (E13, :mod:`companion.chapters.finite_size.calibration`; book:
    dv-census, dv-threshold). Top: the fraction of seeds whose census counts a rank-one
    term of strength theta planted along q_3 into a null run, against theta, one series per
    N; dotted: the BBP threshold edge / 2 of the planted matrix's own bulk, dashed: the BBP
    strength that clears the census's edge by its 2% margin (both averaged over N and
    seeds). Bottom: the strength of half detection against N, bars its exact 95% interval
    (:func:`~companion.chapters.finite_size.calibration.half_interval`; an open end drawn to
    the end of the planted range), grey dots each
    seed's first counted strength; lines: the two BBP values at each N. Without stored runs
    (``None``) the figure says so."""
    if runs is None or not len(runs):
        return stored_runs_absent()
    table = calibration_table(runs)
    theory = cplt.PALETTE["theory"]
    with _phone():
        fig, axd = _figure([["rate"], ["half"]], 7.8)
        top, bottom = axd["rate"], axd["half"]
        styles = _size_styles(len(table))
        for i, row in enumerate(table):
            color, marker = styles[i]
            top.plot(row["strengths"], row["rate"], linewidth=1.0, markersize=6,
                     color=color, marker=marker, label=f"N = {row['N']}")
        bbp = np.mean([r["bbp"] for r in table])
        margin = np.mean([r["bbp_margin"] for r in table])
        top.axvline(bbp, color=theory, linestyle=":", linewidth=1.5, label="BBP threshold")
        top.axvline(margin, color=theory, linestyle="--", linewidth=1.5,
                    label="BBP with the census's margin")
        top.axhline(0.5, color=cplt.PALETTE["null"], linestyle=":", linewidth=1)
        top.set_xlabel(r"planted strength $\theta$")
        top.set_ylabel("fraction of seeds")
        top.set_title("seeds whose census counts the term")
        Ns = np.array([r["N"] for r in table])
        for i, row in enumerate(table):
            color, marker = styles[i]
            # an open end of the interval is drawn to the end of the planted range
            low = row["low"] if np.isfinite(row["low"]) else row["strengths"][0]
            high = row["high"] if np.isfinite(row["high"]) else row["strengths"][-1]
            err = [[row["threshold"] - low], [high - row["threshold"]]]
            cplt.sim_points(bottom, [row["N"]], [row["threshold"]], err, color=color,
                            marker=marker, markersize=7)
            bottom.plot(np.full(len(row["first"]), row["N"]) * 1.08, row["first"], "o",
                        color=cplt.PALETTE["null"], markersize=4,
                        label="one seed's first count" if i == 0 else None)
        cplt.theory_line(bottom, Ns, [r["bbp_margin"] for r in table], linestyle="--")
        cplt.theory_line(bottom, Ns, [r["bbp"] for r in table], linestyle=":")
        log_axis(bottom, Ns, kilo=True, pad=1.3, label=r"width $N$")
        bottom.set_ylabel(r"strength $\theta_{1/2}$")
        bottom.set_title("half detection, exact 95% interval")
        handles, labels = [], []
        for ax in (top, bottom):
            h, lab = ax.get_legend_handles_labels()
            handles += h
            labels += lab
        fig.legend(handles, labels, loc="outside lower center", ncol=2)
    return _finish(fig)
