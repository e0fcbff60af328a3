"""Figures of the spikes appearing one by one (the stored E11 runs; chapter "Two steps: a
spiked spectrum", observation ts-obs-one-by-one; book: dv-census). Split from
:mod:`companion.figures.two_steps`, which re-exports them."""

from __future__ import annotations

import numpy as np

from ..runs import Runs
from ._common import _new_figure, log_axis


def _emergence_runs(runs: Runs) -> Runs:
    """The runs with the default step constants c1 = c2 = 1, precision checks left out."""
    from ..experiments import sweep_runs
    return sweep_runs(runs.where(c1=1.0, c2=1.0))


def _stored_runs_absent():
    """A figure that says that the stored runs it draws are absent."""
    fig, ax = _new_figure()
    ax.axis("off")
    ax.text(0.5, 0.5, "needs the stored paper-scale runs\n(switched off or not yet computed: "
            "COMPANION_PAPER_DATA)", transform=ax.transAxes, ha="center", va="center",
            fontsize=10, color="#555555")
    return fig


def spike_emergence_strengths(runs: Runs | None, activations=("shifted_tanh", "gelu")):
    """Separate strength of each term k against N (log-log), one row per point and one
    column per activation: markers the mean over seeds with a 95% bootstrap interval, solid
    lines the finite-N prediction of each term (:func:`companion.finite_n.predicted_terms`,
    book: dv-finite-n) on N = 2^j from the smallest stored N to 16 times the largest, grey
    dashed the threshold (half the null run's bulk edge: 1 for the W0 bulk at N = d; higher
    where the update widens the bulk, as with GELU; the census needs about 1.22 times it,
    ``fs-obs-calibration``). Shown: the terms k = 1..Lambda and, at Lambda = 1, also k = 2.
    Without stored runs (``None``) the figure says so."""
    from .. import plotting as cplt
    from ..experiments.two_steps import EMERGENCE_POINTS
    from ..finite_n import predicted_terms
    from ..theory import lambda_count

    if runs is None or not len(runs):
        return _stored_runs_absent()
    runs = _emergence_runs(runs)
    fig, axes = _new_figure(len(EMERGENCE_POINTS), len(activations), sharex=True, sharey=True,
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
    powers of a; :func:`companion.spikes.spike_census`), one panel per point: markers the
    mean over seeds, bars the range (the table :func:`companion.summaries.two_steps.
    spike_counts`); dashed the companion's limits 1 + Lambda (every order) and
    1 + floor(Lambda / 2) (tanh). Without stored runs (``None``) the figure says so."""
    from .. import plotting as cplt
    from ..experiments.two_steps import EMERGENCE_POINTS
    from ..summaries.two_steps import spike_counts
    from ..theory import lambda_count, n_spikes

    if runs is None or not len(runs):
        return _stored_runs_absent()
    table = spike_counts(runs, activations)
    fig, axes = _new_figure(1, len(EMERGENCE_POINTS), sharey=True, squeeze=False)
    offsets = dict(zip(activations, np.linspace(0.93, 1.07, len(activations))))
    for ax, (a1, a2) in zip(axes[0], EMERGENCE_POINTS):
        lam = lambda_count(a1, a2)
        every, odd = 1 + lam, n_spikes(a1, a2, "tanh")
        rows = {act: table[(a1, a2, act)] for act in activations if (a1, a2, act) in table}
        Ns = sorted({int(n) for row in rows.values() for n in row["N"]})
        ax.axhline(every, color=cplt.PALETTE["theory"], linestyle="--", linewidth=1.3)
        ax.text(Ns[0] / 1.25, every + 0.08, rf"$1 + \Lambda = {every}$", fontsize=9,
                va="bottom", color=cplt.PALETTE["theory"])
        ax.axhline(odd, color=cplt.ACTIVATION_STYLE["tanh"]["color"], linestyle=":",
                   linewidth=1.6)
        ax.text(Ns[0] / 1.25, odd - 0.08, rf"$\tanh$: $1 + \lfloor \Lambda/2 \rfloor = {odd}$",
                fontsize=9, va="top", color=cplt.ACTIVATION_STYLE["tanh"]["color"])
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
                     fontsize=10)
        ax.set_xlabel(r"width $N = d = n$")
    axes[0, 0].set_ylabel("spikes of $W_2$")
    axes[0, 0].set_ylim(0.5, 4.6)
    axes[0, 0].set_yticks([1, 2, 3, 4])
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=9)
    return fig
