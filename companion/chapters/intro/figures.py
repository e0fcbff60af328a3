"""The introduction's headline figure: the paper's result in two panels, drawn from the
stored paper-scale runs (:func:`companion.core.store.load`).

(a) The spikes appear one by one: the number of outliers of W2 against N at a point with
    Lambda = 3, for an activation with every order (tanh(z + 1/2)) and for tanh (odd), with
    the companion's limits 1 + Lambda and 1 + floor(Lambda / 2) as lines.
(b) A He_3 direction is learned only with a reused batch: the squared projection of beta* on
    the top-4 right singular subspace of W2 against N, for the three settings of the headline
    experiment, with chance 4/d.

A panel whose stored runs are absent (``COMPANION_PAPER_DATA=off``, or a file not yet
computed) says so in place of its data, so that the introduction always executes.
"""

from __future__ import annotations

import numpy as np

from companion.core.experiment import sweep_runs
from companion.core.runs import Runs
from companion.core.theory import lambda_count, n_spikes
from companion.presentation import plotting as cplt
from companion.presentation.figures import log_axis, new_figure, range_bars
from companion.presentation.plotting import COLUMN_WIDTH

#: the point of panel (a): Lambda = 3, off every phase line (the second point of the
#: spike-emergence experiment, ``companion.chapters.two_steps.experiments.EMERGENCE_POINTS``)
SPIKE_POINT: tuple[float, float] = (0.38, 0.45)
#: activations of panel (a): every order first, then the odd control
SPIKE_ACTIVATIONS: tuple[str, ...] = ("shifted_tanh", "tanh")

#: the settings of panel (b) (``companion.chapters.reuse_vs_fresh.experiments.E7_SETTINGS``) and how
#: each is drawn: reused blue, fresh orange, one marker per setting
_PROJECTION_STYLE = {
    ("reused", 0.35, 0.45): dict(marker="o", offset=0.94,
                                 label=r"reused, $(0.35, 0.45)$, $\Lambda = 3$"),
    ("reused", 0.20, 0.45): dict(marker="s", offset=1.0,
                                 label=r"reused, $(0.20, 0.45)$, $\Lambda = 1$"),
    ("fresh", 0.35, 0.45): dict(marker="D", offset=1.06,
                                label=r"fresh, $(0.35, 0.45)$, $\Lambda = 3$"),
}


def _missing(ax, title: str) -> None:
    """Say in the panel that its stored runs are absent."""
    ax.set_title(title)
    ax.axis("off")
    ax.text(0.5, 0.5, "needs the stored\npaper-scale runs\n(switched off or\nnot yet computed:\n"
            "COMPANION_PAPER_DATA)", transform=ax.transAxes, ha="center", va="center",
            fontsize=10, color="#555555")


def spike_runs(spikes: Runs, point=SPIKE_POINT) -> Runs:
    """The runs of panel (a): the point, default step constants c1 = c2 = 1, without the
    float32 precision checks."""

    sel = spikes.where(alpha1=point[0], alpha2=point[1])
    if len(sel) and "c1" in sel[0].params:
        sel = sel.where(c1=1.0, c2=1.0)
    return sweep_runs(sel) if len(sel) else sel


def spike_panel(ax, spikes: Runs, activations=SPIKE_ACTIVATIONS, point=SPIKE_POINT) -> list:
    """Panel (a) on ``ax``; returns the legend handles."""

    runs = spike_runs(spikes, point)
    lam = lambda_count(*point)
    every, odd = 1 + lam, n_spikes(*point, "tanh")
    Ns = sorted(runs.unique("N"))
    offsets = dict(zip(activations, np.linspace(0.95, 1.05, len(activations))))
    handles = [
        ax.axhline(every, color=cplt.PALETTE["theory"], linestyle="--", linewidth=1.4,
                   label=rf"limit, every order: $1 + \Lambda = {every}$"),
        ax.axhline(odd, color=cplt.ACTIVATION_STYLE["tanh"]["color"], linestyle=":",
                   linewidth=1.8,
                   label=rf"limit, $\tanh$: $1 + \lfloor \Lambda/2 \rfloor = {odd}$"),
    ]
    for act in activations:
        sel = runs.where(activation=act)
        if not len(sel):
            continue
        mean, err = range_bars([sel.where(N=N).values("n_outliers") for N in Ns])
        style = cplt.ACTIVATION_STYLE[act]
        handles.append(cplt.sim_points(ax, np.array(Ns) * offsets[act], mean, err,
                                       color=style["color"], marker=style["marker"],
                                       label=style["label"], markersize=7))
    log_axis(ax, Ns, pad=1.4, label=r"width $N = d = n$")
    ax.set_ylim(0.5, every + 0.6)
    ax.set_yticks(range(1, every + 1))
    ax.set_ylabel("outliers of $W_2$")
    ax.set_title(rf"(a) spikes, $(\alpha_1, \alpha_2) = ({point[0]:.2f}, {point[1]:.2f})$")
    return handles


def projection_panel(ax, projection: Runs) -> list:
    """Panel (b) on ``ax``; returns the legend handles."""

    runs = projection.where(target="He_3", activation="tanh")
    Ns = sorted(runs.unique("N"))
    handles = []
    for (batch, a1, a2), st in _PROJECTION_STYLE.items():
        sel = runs.where(batch=batch, alpha1=a1, alpha2=a2)
        if not len(sel):
            continue
        present = [N for N in Ns if len(sel.where(N=N))]
        mean, err = range_bars([sel.where(N=N).values("projection") for N in present])
        handles.append(cplt.sim_points(ax, np.array(present) * st["offset"], mean, err,
                                       color=cplt.PALETTE[batch], marker=st["marker"],
                                       label=st["label"], markersize=7))
    grid = np.geomspace(Ns[0] / 1.4, Ns[-1] * 1.4, 50)
    handles.append(cplt.theory_line(ax, grid, 4 / grid, color=cplt.PALETTE["null"],
                                    linestyle="--", label="chance $4/d$"))
    ax.set_yscale("log")
    log_axis(ax, Ns, pad=1.4, label=r"width $N = d = n$")
    ax.set_ylabel(r"$\|P_4 \beta^*\|^2$")
    ax.set_title(r"(b) $\mathrm{He}_3$ target, $\tanh$")
    return handles


def headline(spikes: Runs | None = None, projection: Runs | None = None):
    """The book's headline figure, two panels side by side ((a) spikes of W2 against N,
    (b) the He_3 projection against N), each with its legend below it. ``spikes`` are the
    stored spike-emergence runs (``store.load("E11")``), ``projection`` the stored headline
    runs (``store.load("E7")``); either may be ``None`` (its panel then says so)."""

    # legends below the panels: taller than one row of panels (short when there is no data)
    empty = all(r is None or not len(r) for r in (spikes, projection))
    fig, (ax_a, ax_b) = new_figure(1, 2, figsize=(COLUMN_WIDTH, 2.2 if empty else 4.7))
    for ax, runs, draw, what in ((ax_a, spikes, spike_panel, "(a) spikes of $W_2$"),
                                 (ax_b, projection, projection_panel,
                                  r"(b) $\mathrm{He}_3$ target, $\tanh$")):
        if runs is None or not len(runs):
            _missing(ax, what)
            continue
        handles = draw(ax, runs)
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=1,
                  fontsize=9, handlelength=1.8)
    return fig
