"""Figures of the chapter "Two steps: a spiked spectrum" (book: dv-exponents; the phase diagram, the
exponent check, two steps against one, the spectrum beside a null run, the spikes one by
one). Each takes :class:`~companion.core.runs.Runs` (the chapter's own runs and, where given, the
stored paper-scale runs drawn over them with hollow markers) and returns a Figure; the
chapter and ``python -m companion reproduce`` call the same functions."""

from __future__ import annotations

import numpy as np

from companion.chapters.two_steps.experiments import (
    E3_POINTS,
    E4_PAIRS,
    E5_PAIRS,
    EMERGENCE_POINTS,
    fresh_relative_difference,
    local_slopes,
    sizes_by_N,
)
from companion.chapters.two_steps.prediction import grid_check_rows
from companion.core.finite_n import predicted_terms
from companion.core.runs import Runs
from companion.core.spikes import default_step_runs, spike_counts
from companion.core.theory import (
    lambda_boundary,
    lambda_count,
    n_spikes,
    phase_line,
    spike_exponent,
    term_exists,
)
from companion.presentation import plotting as cplt
from companion.presentation.figures import (
    log_axis,
    new_figure,
    raise_small_text,
    range_bars,
    stored_runs_absent,
)

#: the smallest font of the chapter's figures, in points: a figure of the book's width
#: (:data:`companion.presentation.plotting.COLUMN_WIDTH`, 6.4 in at 100 px an inch, about
#: 650 CSS px with its margins) is shown 342 px wide on a phone 390 px wide, so a text of
#: 11 pt (15.3 px) shows at 8 px there (tests/chapters/two_steps/test_two_steps_figures.py)
MIN_FONT = 11


def _readable(fig):
    """``fig`` with every text at least :data:`MIN_FONT` points
    (:func:`companion.presentation.figures.raise_small_text`)."""
    return raise_small_text(fig, MIN_FONT)


def _all_Ns(*runs_list) -> list[int]:
    return sorted({n for runs in runs_list if runs is not None for n in runs.unique("N")})


# -- the phase diagram ---------------------------------------------------------------------
def phase_diagram(runs: Runs, stored: Runs | None = None, order: int = 2):
    """Lambda(alpha1, alpha2) (grey levels, the lines alpha2 = k (1/2 - alpha1)) with the
    simulated points coloured by the local growth exponent of the term ``order`` between the
    two largest N (red grows, blue shrinks): dots the chapter's runs, rings the stored
    paper-scale runs. Points that lie on a phase line are marked."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap


    fig, ax = new_figure(figsize=(cplt.COLUMN_WIDTH, 5.4))
    g1, g2 = np.meshgrid(np.linspace(0, 0.4999, 400), np.linspace(0, 0.4999, 400))
    lam = np.minimum(np.floor(g2 / (0.5 - g1) + 1e-9), 5)
    greys = ListedColormap(plt.cm.Greys(np.linspace(0.0, 0.45, 6)))
    ax.contourf(g1, g2, lam, levels=np.arange(-0.5, 6), cmap=greys, zorder=0)
    a1 = np.linspace(0, 0.5, 200)
    for k in range(1, 6):
        cplt.theory_line(ax, a1, lambda_boundary(k, a1), linewidth=3 if k == order else 1.2,
                         label=(rf"$\alpha_2 = {order}(1/2 - \alpha_1)$: the $k = {order}$ "
                                "term starts to grow") if k == order else None)
    for text, x, y in [(r"$\Lambda = 0$", 0.08, 0.12), (r"$\Lambda = 1$", 0.13, 0.42),
                       ("2", 0.285, 0.478), ("3", 0.392, 0.335)]:
        ax.text(x, y, text, fontsize=11, ha="center", va="center", color="#333333")
    sc = None
    for data, size, kind in ((runs, 70, "chapter"), (stored, 260, "stored")):
        if data is None:
            continue
        pts = [p for p in E3_POINTS if len(data.where(alpha1=p[0], alpha2=p[1]))]
        slopes = [local_slopes(*sizes_by_N(data, *p, f"terms_{order}"))["slope"][-1]
                  for p in pts]
        Ns = _all_Ns(data)
        label = (f"chapter's runs, $N \\leq {Ns[-1]}$" if kind == "chapter"
                 else f"stored runs, $N \\leq {Ns[-1]}$")
        style = (dict(edgecolors=cplt.PALETTE["theory"], linewidths=1.0) if kind == "chapter"
                 else dict(facecolors="none", linewidths=3.5))
        if kind == "stored":
            cmap = plt.get_cmap("RdBu_r")
            style["edgecolors"] = [cmap(np.clip(v + 0.5, 0, 1)) for v in slopes]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            # a thin dark outline keeps a ring near zero (white) visible
            ax.scatter(xs, ys, s=size * 1.55, facecolors="none", edgecolors="#333333",
                       linewidths=0.8, zorder=3)
            ax.scatter(xs, ys, s=size, zorder=4, **style)
            ax.scatter([], [], s=size, facecolors="none", edgecolors="#777777",
                       linewidths=3.5, label=label)
        else:
            sc = ax.scatter([p[0] for p in pts], [p[1] for p in pts], c=slopes, cmap="RdBu_r",
                            vmin=-0.5, vmax=0.5, s=size, zorder=5, label=label, **style)
    # each label beside its point, clear of the region labels and of the other points
    for p in E3_POINTS:
        k = phase_line(*p)
        if k is not None:         # below its point: "on the line k"
            ax.annotate(f"$k = {k}$ line", p, textcoords="offset points", xytext=(0, -26),
                        ha="center", fontsize=MIN_FONT, color="#333333",
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.8))
    if sc is not None:
        fig.colorbar(sc, ax=ax, label=rf"local exponent of $T_{order}$ (two largest $N$)")
    ax.set_xlim(0, 0.5)
    ax.set_ylim(0, 0.5)
    ax.set_xlabel(r"first step exponent $\alpha_1$")
    ax.set_ylabel(r"second step exponent $\alpha_2$")
    ax.set_title(r"where the $k = 2$ term grows ($\tanh$, reused, $\mathrm{He}_1$)")
    fig.legend(loc="outside lower center", ncol=1, fontsize=MIN_FONT)
    return _readable(fig)


# -- the exponent check --------------------------------------------------------------------
def exponents(runs: Runs, stored: Runs | None = None, orders=(0, 1, 2, 3)):
    """Term sizes T_k against N (log-log), one row per step-size pair: filled markers the
    chapter's runs (geometric mean, range over the seeds), hollow markers the stored runs;
    dashed lines the predicted slopes anchored at the largest N. Orders whose term is absent
    for the activation (tanh: the odd ones) are drawn in grey: they show the noise floor."""
    from matplotlib.lines import Line2D


    act = runs[0].params.get("activation", "tanh")
    fig, axes = new_figure(len(E4_PAIRS), 1, sharex=True, sharey=True, squeeze=False)
    Ns_all = _all_Ns(runs, stored)
    for ax, pair in zip(axes[:, 0], E4_PAIRS):
        for k in orders:
            present = term_exists(k, act)
            style = cplt.TERM_STYLE[k]
            color = style["color"] if present else cplt.PALETTE["null"]
            anchor = None
            for data, hollow in ((runs, False), (stored, True)):
                if data is None or not len(data.where(alpha1=pair[0], alpha2=pair[1])):
                    continue
                Ns, vals = sizes_by_N(data, *pair, f"terms_{k}")
                mean, err = range_bars(vals, center="geometric")
                shift = 1.04 if hollow else 0.96
                cplt.sim_points(ax, Ns * shift, mean, err, color=color, marker=style["marker"],
                                markerfacecolor="white" if hollow else color,
                                markeredgecolor=color,
                                label=(f"$T_{k}$" + ("" if present else " (absent: floor)")
                                       if not hollow else None))
                anchor = (Ns[-1], mean[-1])
            if present and anchor is not None:
                e = spike_exponent(*pair, k)
                grid = np.array([Ns_all[0], Ns_all[-1]], float)
                cplt.theory_line(ax, grid, anchor[1] * (grid / anchor[0]) ** e, color=color,
                                 linestyle="--", linewidth=1.4)
                ax.text(Ns_all[0], anchor[1] * (Ns_all[0] / anchor[0]) ** e * 1.25,
                        f"{e:+.2f}", fontsize=MIN_FONT, color=color)
        ax.set_yscale("log")
        ax.set_ylabel(r"term size $T_k$")
        ax.set_title(rf"$(\alpha_1, \alpha_2) = ({pair[0]:.2f}, {pair[1]:.2f})$",
                     fontsize=MIN_FONT)
    log_axis(axes[-1, 0], Ns_all, close="drop", kilo=True)
    axes[-1, 0].set_xlabel(r"width $N = d = n$")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    if stored is not None:
        handles.append(Line2D([], [], marker="o", color="#555555", markerfacecolor="white",
                              linestyle="none"))
        labels.append("stored runs (hollow)")
    handles.append(Line2D([], [], color="#555555", linestyle="--"))
    labels.append("predicted slope")
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=MIN_FONT)
    return _readable(fig)


def leading_order(reused: Runs, fresh: Runs, pairs=((0.40, 0.25), (0.35, 0.45))):
    """Measured term size over its leading order (``leading_k`` of the same run), for the
    first spike (k = 0, filled) and the k = 2 term (open), reused batch at ``pairs`` and
    fresh batch at the last pair; 1 would be an exact expansion."""

    fig, ax = new_figure()
    P = cplt.PALETTE
    curves = [(reused, "reused", pairs[0], "s"), (reused, "reused", pairs[1], "D"),
              (fresh, "fresh", pairs[1], "o")]
    Ns = _all_Ns(reused, fresh)
    for data, batch, pair, marker in curves:
        for k in (0, 2):
            Ns_, meas = sizes_by_N(data, *pair, f"terms_{k}", batch)
            lead = sizes_by_N(data, *pair, f"leading_{k}", batch)[1]
            mean, err = range_bars(meas / lead)
            color = P[batch]
            cplt.sim_points(ax, Ns_, mean, err, color=color, marker=marker,
                            markerfacecolor=color if k == 0 else "white", markeredgecolor=color,
                            label=f"{batch}, $({pair[0]:.2f}, {pair[1]:.2f})$, $k = {k}$")
    cplt.theory_line(ax, Ns, np.ones(len(Ns)), linestyle=":", label="expansion exact")
    ax.set_yscale("log")
    log_axis(ax, Ns, close="drop", kilo=True)
    ax.set_xlabel(r"width $N = d = n$")
    ax.set_ylabel("measured / leading-order size")
    ax.set_title(r"how far the expansion is from the simulation ($\tanh$, $\mathrm{He}_1$)")
    fig.legend(loc="outside lower center", ncol=2, fontsize=9)
    return fig


# -- two steps against one -----------------------------------------------------------------
def one_step_collapse(runs: Runs, stored: Runs | None = None):
    """Top: the relative distance ||W2 - W_ref|| / ||W_ref - W0|| to the one-step reference,
    reused (blue) and fresh (orange) batch, with the fresh limit as lines. Bottom: the
    absolute distance, reused batch, with the slope of the k = 2 term. Filled: the chapter's
    runs; hollow: the stored runs."""

    P = cplt.PALETTE
    fig, (ax1, ax2) = new_figure(2, 1, sharex=True)
    Ns_all = _all_Ns(runs, stored)
    grid = np.geomspace(Ns_all[0], Ns_all[-1], 60)
    markers = {E5_PAIRS[0]: "o", E5_PAIRS[1]: "D"}
    for pair, marker in markers.items():
        anchor = None
        for data, hollow in ((runs, False), (stored, True)):
            if data is None:
                continue
            for batch in ("reused", "fresh"):
                if not len(data.where(alpha1=pair[0], alpha2=pair[1], batch=batch)):
                    continue
                Ns, rel = sizes_by_N(data, *pair, "rel_diff", batch)
                mean, err = range_bars(rel)
                cplt.sim_points(ax1, Ns * (1.04 if hollow else 0.96), mean, err,
                                color=P[batch], marker=marker,
                                markerfacecolor="white" if hollow else P[batch],
                                markeredgecolor=P[batch],
                                label=None if hollow else
                                f"{batch}, $({pair[0]:.2f}, {pair[1]:.2f})$")
                if batch == "reused":
                    Ns, d = sizes_by_N(data, *pair, "diff", batch)
                    mean, err = range_bars(d)
                    cplt.sim_points(ax2, Ns * (1.04 if hollow else 0.96), mean, err,
                                    color=P["reused"], marker=marker,
                                    markerfacecolor="white" if hollow else P["reused"],
                                    markeredgecolor=P["reused"])
                    anchor = (Ns[-1], mean[-1])
        if anchor is not None:      # the slope of the k = 2 term, at the largest N drawn
            e = spike_exponent(*pair, 2)
            cplt.theory_line(ax2, grid, anchor[1] * (grid / anchor[0]) ** e,
                             linestyle="--" if marker == "o" else ":", linewidth=1.3)
        cplt.theory_line(ax1, grid, fresh_relative_difference(*pair, grid),
                         linestyle="-" if marker == "o" else "--",
                         label=f"fresh limit, $({pair[0]:.2f}, {pair[1]:.2f})$")
    ax1.set_yscale("log")
    ax1.set_yticks([0.02, 0.05, 0.1, 0.2, 0.5, 1.0], ["0.02", "0.05", "0.1", "0.2", "0.5", "1"])
    ax1.set_ylabel("relative distance")
    ax1.set_title(r"$\|W_2 - W_{\mathrm{ref}}\| \,/\, \|W_{\mathrm{ref}} - W_0\|$",
                  fontsize=MIN_FONT)
    ax2.set_yscale("log")
    ax2.set_ylabel("absolute distance")
    ax2.set_title(r"$\|W_2 - W_{\mathrm{ref}}\|$, reused batch; lines: slope of the "
                  r"$k = 2$ term", fontsize=MIN_FONT)
    log_axis(ax2, Ns_all, close="drop", kilo=True)
    ax2.set_xlabel(r"width $N = d = n$")
    handles, labels = ax1.get_legend_handles_labels()
    if stored is not None:
        from matplotlib.lines import Line2D
        handles.append(Line2D([], [], marker="o", color="#555555", markerfacecolor="white",
                              linestyle="none"))
        labels.append("stored runs (hollow)")
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=MIN_FONT)
    return _readable(fig)


# -- the spectrum beside a null run --------------------------------------------------------
SPIKE_WEIGHT = 0.25     # the census' bound on a left vector's weight on the powers of a


def spectrum_beside_null(runs: Runs):
    """One run (the first): top, the histogram of the singular values of W2 with the
    Marchenko-Pastur law (the first spike off the axis), spikes ringed; bottom, its largest
    singular values after the first, and those of the null run, ringed where the left vector
    lies on the powers of a."""

    P = cplt.PALETTE
    run = runs[0]
    r = run.result
    edge = float(r["edge"])
    threshold = 1.02 * edge
    s, top = np.asarray(r["s"]), np.asarray(r["s_top"])
    fig, (ax1, ax2) = new_figure(2, 1)
    # the first spike lies far to the right, off the axis: the histogram draws the others,
    # and the legend counts every outlier, the first spike included
    n_out = cplt.spectrum_histogram(ax1, s[1:], float(r["phi"]), outliers_edge=threshold,
                                    label="singular values of $W_2$") + 1
    for line in ax1.get_lines():
        if line.get_label().endswith(("outlier", "outliers")):
            line.set_label(f"{n_out} outliers (the first off the axis)")
        elif line.get_label() == "outlier threshold":
            line.set_label("threshold: bulk edge + 2%")
    on = np.asarray(r["on_powers"])
    spikes = top[1:][(on[1:] >= SPIKE_WEIGHT) & (top[1:] > threshold)]
    if len(spikes):
        ax1.plot(spikes, np.zeros_like(spikes), marker="o", markersize=15,
                 markerfacecolor="none", markeredgecolor=P["theory"], markeredgewidth=1.5,
                 linestyle="none", clip_on=False, zorder=6)
    ax1.set_xlim(0, max(3.3, 1.1 * s[1]))
    ax1.text(0.98, 0.3, f"first spike\nat {s[0]:.1f} →", transform=ax1.transAxes,
             ha="right", fontsize=MIN_FONT, color=P["reused"])
    ax1.set_title(rf"$W_2$ at $N = {run['N']}$, $(\alpha_1, \alpha_2) = "
                  rf"({run['alpha1']:.2f}, {run['alpha2']:.2f})$", fontsize=MIN_FONT)
    ax1.get_legend().remove()
    idx = np.arange(2, len(top) + 1)
    series = [("s_top", "on_powers", "target labels", P["reused"], "o", 0.0)]
    if "s_null" in r:
        series.append(("s_null", "on_powers_null", "null labels", P["null"], "s", 0.15))
    for key, wkey, label, color, marker, shift in series:
        v = np.asarray(r[key])[1:len(top)]
        cplt.sim_points(ax2, idx[:len(v)] + shift, v, color=color, marker=marker,
                        label=label)
        if wkey in r:
            ring = np.asarray(r[wkey])[1:len(top)] >= SPIKE_WEIGHT
            ax2.plot((idx[:len(v)] + shift)[ring], v[ring], marker="o", markersize=14,
                     markerfacecolor="none", markeredgecolor=P["theory"], markeredgewidth=1.3,
                     linestyle="none", zorder=6,
                     label="left vector on the powers of $a$" if key == "s_top" else None)
    cplt.mark_bulk_edge(ax2, threshold, axis="y", label=None)
    ax2.set_xlabel("rank of the singular value (the first is off the axis)")
    ax2.set_ylabel("singular value")
    ax2.set_title("the largest values after the first spike, with a null run",
                  fontsize=MIN_FONT)
    ax2.set_xticks(idx[::2])
    handles, labels = [], []
    for ax in (ax1, ax2):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=MIN_FONT)
    return _readable(fig)


def left_vectors(runs: Runs, rows: int = 6):
    """Squared overlaps of the top left singular vectors of W2 (rows, labelled by their
    singular values) with the Gram-Schmidt powers q_1..q_5 of a (columns), for the run
    (top) and its null run (bottom)."""
    fig, axes = new_figure(2, 1)
    r = runs[0].result
    powers = ["$q_1$ ($a$)", "$q_2$ ($a^{\\circ 2}$)", "$q_3$ ($a^{\\circ 3}$)", "$q_4$",
              "$q_5$"]
    im = None
    for ax, suffix, title in [(axes[0], "", "target labels"), (axes[1], "_null", "null labels")]:
        L = np.asarray(r["left" + suffix])[:rows]
        im = ax.imshow(L, cmap="Blues", vmin=0, vmax=1, aspect="auto")
        for i in range(L.shape[0]):
            for j in range(L.shape[1]):
                ax.text(j, i, f"{L[i, j]:.2f}", ha="center", va="center", fontsize=9,
                        color="white" if L[i, j] > 0.6 else "#222222")
        ax.set_xticks(range(L.shape[1]), powers, fontsize=9.5)
        s_key = "s_top" if suffix == "" else "s_null"
        ax.set_yticks(range(rows), [f"{v:.3g}" for v in np.asarray(r[s_key])[:rows]])
        ax.set_ylabel("singular value")
        ax.set_title(title, fontsize=10)
        ax.grid(False)
    fig.colorbar(im, ax=axes, label=r"$\langle u_i, q_j \rangle^2$")
    return fig


# the spikes one by one (E11): figures/spike_emergence.py, re-exported here


def spike_emergence_strengths(runs: Runs | None, activations=("shifted_tanh", "gelu")):
    """Separate strength of each term k against N (log-log), one row per point and one
    column per activation: markers the mean over seeds with a 95% t interval over the seeds, solid
    lines the finite-N prediction of each term (:func:`companion.core.finite_n.predicted_terms`,
    book: dv-finite-n) on N = 2^j from the smallest stored N to 16 times the largest, grey
    dashed the threshold (half the null run's bulk edge: 1 for the W0 bulk at N = d; higher
    where the update widens the bulk, as with GELU; the census needs about 1.22 times it,
    ``fs-obs-calibration``). Shown: the terms k = 1..Lambda and, at Lambda = 1, also k = 2.
    Without stored runs (``None``) the figure says so."""

    if runs is None or not len(runs):
        return stored_runs_absent()
    runs = default_step_runs(runs)
    fig, axes = new_figure(len(EMERGENCE_POINTS), len(activations), sharex=True, sharey=True,
                            squeeze=False)
    for row, (a1, a2) in enumerate(EMERGENCE_POINTS):
        lam = lambda_count(a1, a2)
        orders = [k for k in (1, 2, 3) if k <= max(lam, 2)]
        for col, act in enumerate(activations):
            ax = axes[row, col]
            sel = runs.where(alpha1=a1, alpha2=a2, activation=act)
            Ns = sorted(sel.unique("N"))
            if not Ns:
                continue
            by_N = [sel.where(N=N) for N in Ns]
            threshold = np.array([r.mean("edge_null") / 2 for r in by_N])
            ax.plot(Ns, threshold, color=cplt.PALETTE["null"], linestyle="--", linewidth=1.5,
                    label="threshold (bulk edge / 2)")
            top = Ns[-1] * 16
            grid = 2 ** np.arange(int(np.log2(Ns[0])), int(np.log2(top)) + 1)
            # one prediction per size serves every term (cached per point and size)
            predicted = np.array([predicted_terms(int(n), a1, a2, act, "he1", K=5)["strength"]
                                  for n in grid])
            for k in orders:
                style = cplt.TERM_STYLE[k]
                mean = np.array([r.mean(f"strength_k{k}") for r in by_N])
                lo, hi = np.array([r.interval(f"strength_k{k}") for r in by_N]).T
                cplt.sim_points(ax, Ns, mean, np.stack([mean - lo, hi - mean]),
                                color=style["color"], marker=style["marker"],
                                label=f"term $k = {k}$")
                cplt.theory_line(ax, grid, predicted[:, k], color=style["color"],
                                 linestyle="-", linewidth=1.3, alpha=0.8)
            ax.plot([], [], color="#555555", linestyle="-", linewidth=1.3,
                    label="finite-N prediction")
            ax.set_yscale("log")
            log_axis(ax, [n for n in (256, 1024, 4096, 16384, 65536) if Ns[0] <= n <= top],
                     kilo=True)
            ax.set_xlim(Ns[0] / 1.3, top * 1.2)
            ax.set_yticks([0.3, 0.5, 1, 2, 5], ["0.3", "0.5", "1", "2", "5"])
            ax.set_title(f"{cplt.ACTIVATION_STYLE[act]['label']}, "
                         rf"$({a1:.2f}, {a2:.2f})$, $\Lambda = {lam}$", fontsize=10)
            if col == 0:
                ax.set_ylabel("separate strength")
            if row == len(EMERGENCE_POINTS) - 1:
                ax.set_xlabel(r"width $N = d = n$")
    axes[0, 0].set_ylim(0.25, 7)
    handles, labels = [], []
    for ax in axes.ravel():
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=9)
    return fig


def spike_emergence_counts(runs: Runs | None, activations=("tanh", "shifted_tanh", "gelu")):
    """The number of spikes of W2 against N (counted against a null run, left vectors on the
    powers of a; :func:`companion.core.spikes.spike_census`), one panel per point: markers the
    mean over seeds, bars the range (the table :func:`companion.chapters.two_steps.summaries.
    spike_counts`); dashed the companion's limits 1 + Lambda (every order) and
    1 + floor(Lambda / 2) (tanh). Without stored runs (``None``) the figure says so."""

    if runs is None or not len(runs):
        return stored_runs_absent()
    table = spike_counts(runs, activations)
    fig, axes = new_figure(len(EMERGENCE_POINTS), 1, sharex=True, sharey=True, squeeze=False)
    offsets = dict(zip(activations, np.linspace(0.95, 1.05, len(activations))))
    for ax, (a1, a2) in zip(axes[:, 0], EMERGENCE_POINTS):
        lam = lambda_count(a1, a2)
        every, odd = 1 + lam, n_spikes(a1, a2, "tanh")
        rows = {act: table[(a1, a2, act)] for act in activations if (a1, a2, act) in table}
        Ns = sorted({int(n) for row in rows.values() for n in row["N"]})
        ax.axhline(every, color=cplt.PALETTE["theory"], linestyle="--", linewidth=1.3)
        # labels on a white ground, so that no grid line or marker runs through them
        ground = dict(boxstyle="square,pad=0.1", fc="white", ec="none", alpha=0.9)
        ax.text(Ns[0] / 1.25, every + 0.08, rf"$1 + \Lambda = {every}$", fontsize=MIN_FONT,
                va="bottom", color=cplt.PALETTE["theory"], bbox=ground, zorder=6)
        ax.axhline(odd, color=cplt.ACTIVATION_STYLE["tanh"]["color"], linestyle=":",
                   linewidth=1.6)
        ax.text(Ns[0] / 1.25, odd - 0.08, rf"$\tanh$: $1 + \lfloor \Lambda/2 \rfloor = {odd}$",
                fontsize=MIN_FONT, va="top", color=cplt.ACTIVATION_STYLE["tanh"]["color"],
                bbox=ground,
                zorder=6)
        for act, row in rows.items():
            mean = row["mean"]
            err = np.stack([mean - row["min"], row["max"] - mean])
            style = cplt.ACTIVATION_STYLE[act]
            cplt.sim_points(ax, row["N"] * offsets[act], mean, err,
                            color=style["color"], marker=style["marker"], label=style["label"],
                            markersize=7)
        log_axis(ax, Ns)
        ax.set_xlim(Ns[0] / 1.35, Ns[-1] * 1.35)
        ax.set_title(rf"$(\alpha_1, \alpha_2) = ({a1:.2f}, {a2:.2f})$, $\Lambda = {lam}$",
                     fontsize=MIN_FONT)
        ax.set_ylabel("spikes of $W_2$")
    axes[-1, 0].set_xlabel(r"width $N = d = n$")
    axes[0, 0].set_ylim(0.5, 4.6)
    axes[0, 0].set_yticks([1, 2, 3, 4])
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=MIN_FONT)
    return _readable(fig)


# -- the finite-N phase diagram (E15) and its check by simulation (E16) ----------------------
_COUNT_LEVELS = 6       # counts 1..6 drawn, "6 or more" in the last colour


def _count_colours():
    import matplotlib.pyplot as plt
    from matplotlib.colors import BoundaryNorm, ListedColormap

    cmap = ListedColormap(plt.cm.viridis(np.linspace(0.05, 0.95, _COUNT_LEVELS)))
    return cmap, BoundaryNorm(np.arange(0.5, _COUNT_LEVELS + 1), cmap.N)


def _phase_lines(ax, k_max: int = 6) -> None:
    a1 = np.linspace(0, 0.5, 200)
    for k in range(1, k_max + 1):
        ax.plot(a1, k * (0.5 - a1), color="white", lw=1.6, zorder=3)
        ax.plot(a1, k * (0.5 - a1), color="#222222", lw=0.7, ls="--", zorder=4)
    ax.set_xlim(0, 0.5)
    ax.set_ylim(0, 0.5)


def predicted_phase_diagram(runs: Runs, check: Runs | None = None):
    """The count of spikes that the finite-N prediction gives (E15: terms whose predicted
    separate strength passes the census's need against edge 2) over the (alpha1, alpha2)
    square, one panel per N, and the limit 1 + Lambda (tanh(z + 1/2), every order), with
    the lines alpha2 = k (1/2 - alpha1) dashed. ``check`` (E16's runs): its points, each
    coloured by the seeds' median measured count at its largest N, on the panel of the
    nearest N."""
    from matplotlib.cm import ScalarMappable

    if runs is None or not len(runs):
        return stored_runs_absent()
    cmap, norm = _count_colours()
    Ns = sorted(runs.unique("N"))
    fig, axes = new_figure(nrows=(len(Ns) + 2) // 2, ncols=2, sharex=True, sharey=True)
    axes = np.atleast_1d(axes).ravel()
    step = float(runs[0].params["step"])
    edges = np.arange(0, 0.5 + step / 2, step)
    check_N = max(check.unique("N")) if check is not None and len(check) else None
    for ax, N in zip(axes, Ns + ["limit"]):
        if N == "limit":
            a1c = (edges[:-1] + edges[1:]) / 2
            grid = np.array([[n_spikes(a1, a2, "shifted_tanh", "reused") for a1 in a1c]
                             for a2 in a1c])
            title = r"the limit $N \to \infty$: $1 + \Lambda$"
        else:
            cols = sorted(runs.where(N=N), key=lambda r: r.params["alpha1"])
            grid = np.array([np.asarray(r["count"]) for r in cols]).T
            title = rf"$N = 10^{{{int(round(np.log10(N)))}}}$"
        ax.pcolormesh(edges, edges, np.minimum(grid, _COUNT_LEVELS), cmap=cmap, norm=norm,
                      shading="flat", zorder=1)
        _phase_lines(ax)
        ax.set_title(title, fontsize=MIN_FONT)
        if check_N is not None and N != "limit" and N == min(Ns, key=lambda n: abs(
                np.log(n / check_N))):
            pts = sorted({(r.params["alpha1"], r.params["alpha2"]) for r in check})
            med = [np.median([float(r["n_outliers"]) for r in check.where(
                alpha1=p[0], alpha2=p[1], N=check_N)]) for p in pts]
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], c=med, cmap=cmap, norm=norm,
                       s=60, edgecolors="white", linewidths=1.4, zorder=5)
    spare = list(axes[len(Ns) + 1:])
    for ax in spare:
        ax.set_visible(False)
    for ax in axes[-2:]:
        ax.set_xlabel(r"$\alpha_1$")
    for ax in axes[::2]:
        ax.set_ylabel(r"$\alpha_2$")
    sm = ScalarMappable(norm=norm, cmap=cmap)
    if spare:       # the key in the free panel, beside the limit
        cax = spare[0].inset_axes([0.08, 0.72, 0.84, 0.1])
        cax.set_visible(True)
        spare[0].set_visible(True)
        spare[0].axis("off")
        if check_N is not None:
            from matplotlib.lines import Line2D
            seeds = len(check.where(alpha1=pts[0][0], alpha2=pts[0][1], N=check_N))
            dot = Line2D([], [], marker="o", linestyle="none", markersize=8,
                         markerfacecolor="#9e9e9e", markeredgecolor="#222222")
            spare[0].legend([dot], [f"census of simulated\nruns at $N = {check_N}$\n"
                                    f"(median of {seeds} seeds)"],
                            loc="lower center", bbox_to_anchor=(0.5, 0.0), frameon=False,
                            fontsize=MIN_FONT)
        bar = fig.colorbar(sm, cax=cax, orientation="horizontal",
                           ticks=range(1, _COUNT_LEVELS + 1))
    else:
        bar = fig.colorbar(sm, ax=list(axes), location="bottom", shrink=0.8,
                           ticks=range(1, _COUNT_LEVELS + 1), aspect=30)
    bar.ax.set_xticklabels([str(c) for c in range(1, _COUNT_LEVELS)] + [f"{_COUNT_LEVELS}+"])
    bar.set_label("spikes the census would count\n(first spike included)")
    return _readable(fig)


def grid_check(runs: Runs | None):
    """E16: at each of the 12 points (x: the points in the order of their limit count) the
    finite-N phase diagram's count at each N (open squares) against the census's counts of
    the seeds (dots, jittered sideways), and the limit 1 + Lambda (grey bars); one panel
    per N."""
    if runs is None or not len(runs):
        return stored_runs_absent()
    rows = grid_check_rows(runs)
    Ns = sorted({r["N"] for r in rows})
    pts = sorted({(r["alpha1"], r["alpha2"]) for r in rows},
                 key=lambda p: (n_spikes(*p, "shifted_tanh", "reused"), p))
    fig, axes = new_figure(nrows=len(Ns), ncols=1, sharex=True, sharey=True,
                           figsize=(5, 2.2 * len(Ns) + 2.2))
    axes = np.atleast_1d(axes)
    x = np.arange(len(pts))
    for ax, N in zip(axes, Ns):
        sel = {(r["alpha1"], r["alpha2"]): r for r in rows if r["N"] == N}
        for i, p in enumerate(pts):
            r = sel.get(p)
            if r is None:
                continue
            ax.bar(i, r["limit"], width=0.7, color="#dddddd", zorder=1,
                   label="limit $1 + \\Lambda$" if i == 0 else None)
            jitter = np.linspace(-0.22, 0.22, len(r["measured"]))
            ax.scatter(i + jitter, r["measured"], s=14, color=cplt.PALETTE.get("reused", "C0"),
                       zorder=3, label="census, one seed" if i == 0 else None)
            ax.scatter(i, r["predicted"], s=90, marker="s", facecolors="none",
                       edgecolors="#222222", linewidths=1.5, zorder=4,
                       label="finite-$N$ prediction" if i == 0 else None)
        ax.set_title(f"$N = {N}$")
        ax.set_ylabel("spikes")
        ax.set_yticks([1, 2, 3, 4])
    axes[-1].set_xticks(x)
    axes[-1].set_xticklabels([f"({p[0]:.2f}, {p[1]:.2f})" for p in pts], rotation=90)
    axes[-1].set_xlabel(r"$(\alpha_1, \alpha_2)$, in the order of the limit count")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=2)
    return fig
