"""Figures of the chapter "One step: a rank-one spike" (book: dv-one-step-spike; E1, E2 and the
chapter's own checks), one function per figure.

Each takes :class:`~companion.core.runs.Runs` from :mod:`companion.chapters.one_step.experiments` and
returns a matplotlib Figure in the book's style. :func:`transition` and :func:`growth` also
take the stored paper-scale runs (``companion.core.store.load("E1")`` / ``load("E2")``) and draw
them over the chapter's runs with open markers of the same colour and shape; called with one
argument (as ``python -m companion reproduce`` does) they draw whatever runs they are given,
small or paper scale.

Made for a phone as well as a desktop: every figure is :data:`WIDTH` inches wide, with its
panels stacked (never side by side), so that on a 390 px screen, where the page's column is
:data:`companion.presentation.figures.PHONE_COLUMN` CSS pixels wide, the smallest text
(:data:`MIN_FONT`, in points) still shows at 8 CSS pixels or more
(:func:`companion.presentation.figures.smallest_text`; tests/chapters/one_step checks every
text of every figure). One encoding per figure: within a figure a colour names one quantity
(or one target direction, one shape, one exponent), filled and open markers of the same
colour are the chapter's runs and the stored runs, and theory is black lines; the legend
below the panels says all of it. Error bars are one standard deviation over the seeds.
"""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from companion.chapters.one_step.experiments import direction_names, transition_theory
from companion.core.activations import get_activation
from companion.core.runs import Runs
from companion.core.targets import target_moments
from companion.core.theory import one_step_theta
from companion.presentation import plotting as cplt
from companion.presentation.book import power
from companion.presentation.figures import log_axis, new_figure

#: the figures' width in inches (natural width about 500 CSS pixels: the book shows the
#: figure at that size on a desktop and scales it to the column on a phone)
WIDTH = 5.0
#: the height of one panel and the room of the legend below the panels, in inches
PANEL, LEGEND_ROW = 2.7, 0.28
#: the smallest font size of the chapter's figures, in points
MIN_FONT = 10.0
#: markers of the stored paper-scale runs: open, of the series' own colour and shape
STORED = dict(markerfacecolor="none", markeredgewidth=1.4, markersize=8)
#: the exponents shown in the growth figure, each with its own marker and shade of green
GROWTH_ALPHAS = (0.1, 0.2, 0.3, 0.4)
#: the label of a size axis
SIZE_LABEL = r"width $N = d = n$"
_GROWTH_MARKERS = ("o", "s", "D", "^")
_GREENS = ("#7FCDAE", "#3BAA83", "#029E73", "#01573F")
#: the quantities of the transition and growth figures: one colour and marker each
S1 = dict(color=cplt.PALETTE["one_step"], marker="o")            # the outlier s1
OVERLAP_U1 = dict(color=cplt.PALETTE["accent"], marker="s")     # <v1, u1/||u1||>^2
ALIGNMENT = dict(color="#D55E00", marker="D")                   # cos^2(v1, beta*)
_LABEL = {"s1": r"$s_1$, the top singular value",
          "overlap_u1": r"$\langle v_1, \hat u_1\rangle^2$",
          "cos2_beta": r"$\cos^2(v_1, \beta^*)$"}


def _stacked(rows: int, **kw):
    """A figure of ``rows`` panels stacked in one column, :data:`WIDTH` wide."""
    height = kw.pop("height", PANEL * rows + 0.9)
    return new_figure(rows, 1, figsize=(WIDTH, height), **kw)


def _mean_sd(runs: Runs, key: str):
    v = runs.values(key).astype(float)
    return v.mean(axis=0), v.std(axis=0)


def _style(series: dict, stored: bool) -> dict:
    """Filled markers of the series' colour and shape, or open ones for the stored runs."""
    if stored:
        return dict(STORED, marker=series["marker"], color=series["color"],
                    markeredgecolor=series["color"])
    return dict(series)


def _marker(series: dict, label: str, stored: bool = False) -> Line2D:
    """A legend entry for a marker of ``series``."""
    style = _style(series, stored)
    return Line2D([], [], linestyle="none", label=label, markersize=style.pop("markersize", 7),
                  **style)


def _line(label: str, color=None, linestyle="-", **kw) -> Line2D:
    return Line2D([], [], color=cplt.PALETTE["theory"] if color is None else color,
                  linestyle=linestyle, label=label, **kw)


def _legend(fig, handles, ncol=2, title=None):
    """One legend below the panels, off the data."""
    return fig.legend(handles=handles, loc="outside lower center", ncol=ncol,
                      fontsize=MIN_FONT, title=title, title_fontsize=MIN_FONT,
                      handlelength=2.0, columnspacing=1.2)


def _sizes_title(sets) -> str:
    """The legend's title: which markers are which runs (filled: the chapter's; open: the
    stored ones, where drawn)."""
    parts = []
    for data, is_stored in sets:
        Ns = sorted(int(n) for n in data.unique("N"))
        size = f"$N = {Ns[-1]}$" if len(Ns) == 1 else f"$N = {Ns[0]}$ to ${Ns[-1]}$"
        parts.append(("open: stored runs, " if is_stored else "filled: ") + size)
    return "; ".join(parts)


def _decades(ax) -> None:
    """A log y axis labelled at its powers of ten as a reader writes them (10⁻², plain
    text: no mathtext to lay out) and without minor ticks."""
    low, high = ax.get_ylim()
    powers = range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
    ax.set_yticks([10.0 ** p for p in powers], [power(10, p) for p in powers])
    ax.set_ylim(low, high)
    ax.minorticks_off()


def _square(runs: Runs) -> Runs:
    """The runs with N = d (the transition's stored runs carry no d: they are square)."""
    return runs.where(lambda r: r.params.get("d", r.params["N"]) == r.params["N"])


# -- the gradient is rank one -----------------------------------------------------------------

def rank_one(runs: Runs):
    """Operator norms of G, of its rank-one part m1 a u1^T and of the remainder R against N
    (log-log), with the limit of the rank-one part and a slope -1/2 anchored at the smallest
    N (runs of :data:`companion.chapters.one_step.experiments.RANK_ONE`)."""
    P = cplt.PALETTE
    groups = runs.groups("N")
    Ns = np.array([g[0] for g in groups])
    r0 = runs[0]
    tgt = target_moments(r0["target"])
    limit = one_step_theta(1.0, get_activation(r0["activation"]).m(1), tgt.mu_star,
                           tgt.second_moment)
    fig, ax = _stacked(1, height=PANEL + 1.2)
    op = r"_{\mathrm{op}}"
    series = [("g_norm", rf"$\|G\|{op}$", "#0B2545", "o", True),
              ("spike_norm", rf"rank-one part $\|m_1 a u_1^\top\|{op}$", P["one_step"], "s",
               False),
              ("r_norm", rf"remainder $\|R\|{op}$", P["accent"], "D", False)]
    for key, label, color, marker, hollow in series:
        v = [g.values(key) for g in groups.values()]
        # ||G|| and its rank-one part nearly coincide: ||G|| as a large open circle
        style = (dict(markersize=12, markerfacecolor="none", markeredgecolor=color,
                      markeredgewidth=1.5) if hollow else {})
        cplt.sim_points(ax, Ns, [x.mean() for x in v], [x.std() for x in v], label=label,
                        color=color, marker=marker, **style)
    grid = np.geomspace(Ns[0], Ns[-1], 50)
    cplt.theory_line(ax, grid, np.full_like(grid, limit), label="limit of the rank-one part")
    r_small = groups[(Ns[0],)].values("r_norm").mean()
    cplt.theory_line(ax, grid, r_small * np.sqrt(Ns[0] / grid), linestyle="--",
                     label=r"slope $-1/2$")
    log_axis(ax, Ns, close="blank", label=SIZE_LABEL)
    ax.set_yscale("log")
    _decades(ax)
    ax.set_ylabel("operator norm")
    ax.set_title("the gradient at initialisation")
    handles, labels = ax.get_legend_handles_labels()
    _legend(fig, handles[2:] + handles[:2])     # the norms, then the lines
    return fig


# -- the spectrum of W1 -------------------------------------------------------------------------

def spectra(runs: Runs):
    """Histograms of the singular values of W0 (top) and W1 (bottom) (the first run of
    :data:`companion.chapters.one_step.experiments.SPECTRUM`) with the Marchenko-Pastur density, the
    bulk edge, the outlier beyond it and the predicted outlier of W1."""
    P = cplt.PALETTE
    r = runs[0]
    fig, axes = _stacked(2, sharex=True)
    s_top = max(float(np.max(r["s_W1"])), float(r["edge"]))
    titles = ("$W_0$", rf"$W_1 = W_0 + \eta G$, $\eta = {float(r['eta']):g}$")
    for ax, key, title in zip(axes, ("s_W0", "s_W1"), titles):
        cplt.spectrum_histogram(ax, r[key], float(r["phi"]), outliers_edge=float(r["edge"]),
                                label="singular values")
        ax.get_legend().remove()
        for line in ax.lines:           # the outlier is a one-step result: green
            if line.get_label().endswith(("outlier", "outliers")):
                line.set_color(P["one_step"])
        ax.set_xlim(0, 1.15 * s_top)
        ax.set_ylim(0, 0.8)
        ax.set_title(title)
    axes[0].set_xlabel("")
    axes[1].axvline(float(r["theory_s1"]), color=P["theory"], linestyle=":", linewidth=1.5,
                    label="predicted outlier")
    handles = [Patch(color=P["null"], alpha=0.45, label="singular values (histogram)"),
               _line("Marchenko-Pastur density"),
               _line(r"bulk edge $1 + \sqrt{\phi}$", color=P["null"], linestyle="--"),
               Line2D([], [], color=P["one_step"], marker="D", linestyle="none",
                      label="outlier beyond the edge"),
               _line("predicted outlier", linestyle=":")]
    _legend(fig, handles)
    return fig


# -- the transition at eta = Theta(1) ------------------------------------------------------------

def _theory_grid(run, etas):
    return transition_theory(etas, run["target"], run["activation"], N=int(run["N"]),
                             d=run.params.get("d"), n=run.params.get("n"))


def _eta_c(ax, eta_c: float) -> None:
    ax.axvline(eta_c, color=cplt.PALETTE["null"], linestyle=":", linewidth=1.3, zorder=1)
    ax.text(eta_c - 0.06, 0.96, r"$\eta_c$", color=cplt.PALETTE["null"], ha="right",
            va="top", transform=ax.get_xaxis_transform())


def transition(runs: Runs, stored: Runs | None = None):
    """One step at eta = Theta(1) (E1), two panels against eta: the top singular value with
    the bulk edge (top) and the squared overlaps of the top right singular vector with
    u1/||u1|| and with beta* (bottom); theory as lines, the threshold eta_c dotted.
    ``stored``: the paper-scale runs, drawn over the others with open markers."""
    P = cplt.PALETTE
    runs = _square(runs)
    r0 = runs[0]
    etas = np.asarray(r0["eta"], float)
    grid = np.linspace(0, etas.max(), 201)
    th = _theory_grid(r0, grid)
    fig, (ax1, ax2) = _stacked(2, sharex=True, height=2 * PANEL + 1.5)
    cplt.theory_line(ax1, grid, th["s1"])
    cplt.mark_bulk_edge(ax1, float(r0["edge"]), axis="y", label=None)
    cplt.theory_line(ax2, grid, th["overlap_u1"], linestyle="--")
    cplt.theory_line(ax2, grid, th["cos2"])
    sets = [(runs, False)] + ([(_square(stored), True)] if stored is not None and len(stored)
                              else [])
    for data, is_stored in sets:
        x = np.asarray(data[0]["eta"], float)
        cplt.sim_points(ax1, x, *_mean_sd(data, "s1"), **_style(S1, is_stored))
        for key, series in (("overlap_u1", OVERLAP_U1), ("cos2_beta", ALIGNMENT)):
            cplt.sim_points(ax2, x, *_mean_sd(data, key), **_style(series, is_stored))
    for ax in (ax1, ax2):
        _eta_c(ax, float(r0["eta_c"]))
    ax2.set_xlabel(r"step size $\eta$")
    ax1.set_ylabel(r"$s_1$")
    ax1.set_title("the outlier")
    ax2.set_ylabel("squared overlap")
    ax2.set_ylim(-0.02, 1.0)
    ax2.set_title(r"its right singular vector $v_1$")
    handles = ([_marker(S1, _LABEL["s1"]), _marker(OVERLAP_U1, _LABEL["overlap_u1"]),
                _marker(ALIGNMENT, _LABEL["cos2_beta"]),
                _line(r"theory ($\langle v_1, \hat u_1\rangle^2$ dashed)"),
                _line(r"bulk edge $1 + \sqrt{\phi}$", color=P["null"], linestyle="--")])
    _legend(fig, handles, title=_sizes_title(sets))
    return fig


def transition_rectangular(runs: Runs):
    """The transition for rectangular weights: one series per shape (N, d) of the runs
    (phi = N/d), the top singular value with each bulk edge (top) and cos^2(v1, beta*)
    (bottom) against eta, theory as lines."""
    P = cplt.PALETTE
    styles = [(P["one_step"], "o", "-"), (P["accent"], "s", "--"), ("#0B2545", "^", ":")]
    fig, (ax1, ax2) = _stacked(2, sharex=True, height=2 * PANEL + 1.2)
    shapes = runs.groups("N", "d") if all("d" in r.params for r in runs) else runs.groups("N")
    handles = []
    for (shape, data), (color, marker, ls) in zip(shapes.items(), styles):
        r0 = data[0]
        N, d = int(r0["N"]), int(r0.params.get("d", r0["N"]))
        x = np.asarray(r0["eta"], float)
        grid = np.linspace(0, x.max(), 201)
        th = _theory_grid(r0, grid)
        phi = rf"$\phi = {N / d:g}$"
        cplt.theory_line(ax1, grid, th["s1"], linestyle=ls)
        cplt.theory_line(ax2, grid, th["cos2"], linestyle=ls)
        cplt.sim_points(ax1, x, *_mean_sd(data, "s1"), color=color, marker=marker)
        cplt.sim_points(ax2, x, *_mean_sd(data, "cos2_beta"), color=color, marker=marker)
        ax1.axhline(float(r0["edge"]), color=P["null"], linestyle=ls, linewidth=1.1, zorder=1)
        handles += [Line2D([], [], color=color, marker=marker, linestyle="none",
                           label=rf"{phi}: $N = {N}$, $d = {d}$"),
                    _line(f"theory, {phi}", linestyle=ls)]
    ax1.set_ylabel(r"$s_1$")
    ax1.set_title("the outlier")
    ax2.set_ylabel(r"$\cos^2(v_1, \beta^*)$")
    ax2.set_title(r"alignment with $\beta^*$")
    ax2.set_xlabel(r"step size $\eta$")
    _legend(fig, handles + [_line(r"bulk edges $1 + \sqrt{\phi}$ (same styles)",
                                  color=P["null"])])
    return fig


# -- large steps: eta = N^alpha --------------------------------------------------------------

def _alpha_columns(alphas) -> dict:
    alphas = np.asarray(alphas, float)
    return {a: int(np.argmin(np.abs(alphas - a))) for a in GROWTH_ALPHAS}


def _growth_theory_s1(run, Ns, alpha):
    """The theory's s1 at eta = N^alpha for each N (N = d = n)."""
    tgt = target_moments(run["target"])    # its moments only
    act = get_activation(run["activation"])
    return [transition_theory([m ** alpha], tgt, act, N=int(m))["s1"][0] for m in Ns]


def growth(runs: Runs, stored: Runs | None = None):
    """One step at eta = N^alpha (E2): the outlier against N for four exponents on log-log
    axes (top) and, at the largest N, the squared overlaps of v1 with u1/||u1|| and with
    beta* against alpha, with cos^2(u1, beta*) measured (grey band: mean +- one standard
    deviation) and its limit (dash-dotted) (bottom). ``stored``: the paper-scale runs, drawn
    over the others with open markers (and their theory, dotted, below)."""
    P = cplt.PALETTE
    fig, (ax1, ax2) = _stacked(2, height=2 * PANEL + 2.2)
    sets = [(runs, False)] + ([(stored, True)] if stored is not None and len(stored) else [])
    all_Ns = sorted({int(n) for data, _ in sets for n in data.unique("N")})
    grid_N = np.geomspace(all_Ns[0], all_Ns[-1], 30).round().astype(int)
    r0 = runs[0]
    handles = []
    for a, marker, shade in zip(GROWTH_ALPHAS, _GROWTH_MARKERS, _GREENS):
        cplt.theory_line(ax1, grid_N, _growth_theory_s1(r0, grid_N, a), linewidth=1.3)
        for data, is_stored in sets:
            jj = _alpha_columns(data[0]["alpha"])[a]
            groups = data.groups("N")
            Ns = [k[0] for k in groups]
            v = [g.values("s1")[:, jj] for g in groups.values()]
            cplt.sim_points(ax1, Ns, [x.mean() for x in v], [x.std() for x in v],
                            **_style(dict(color=shade, marker=marker), is_stored))
        handles.append(_marker(dict(color=shade, marker=marker), rf"$s_1$, $\alpha = {a:g}$"))
    log_axis(ax1, all_Ns, close="blank", label=SIZE_LABEL)
    ax1.set_yscale("log")
    ax1.set_yticks([2, 4, 8, 16, 32], ["2", "4", "8", "16", "32"])
    ax1.minorticks_off()
    ax1.set_ylabel(r"$s_1$")
    ax1.set_title(r"the outlier grows like $N^\alpha$")

    a_grid = np.linspace(0, float(np.max(r0["alpha"])), 120)
    for k, (data, is_stored) in enumerate(sets):
        N = max(int(n) for n in data.unique("N"))
        big = data.where(N=N)
        th = transition_theory(N ** a_grid, data[0]["target"], data[0]["activation"], N=N)
        if k == 0:
            u1 = big.values("cos2_u1").astype(float)
            ax2.axhspan(u1.mean() - u1.std(), u1.mean() + u1.std(), color=P["null"],
                        alpha=0.35, linewidth=0)
            cplt.theory_line(ax2, a_grid, np.full_like(a_grid, float(big[0]["saturation"])),
                             linestyle="-.", color=P["null"])
        cplt.theory_line(ax2, a_grid, th["overlap_u1"], linestyle=":" if is_stored else "--",
                         linewidth=1.3)
        cplt.theory_line(ax2, a_grid, th["cos2"], linestyle=":" if is_stored else "-",
                         linewidth=1.3)
        x = np.asarray(big[0]["alpha"], float)
        for key, series in (("overlap_u1", OVERLAP_U1), ("cos2_beta", ALIGNMENT)):
            cplt.sim_points(ax2, x, *_mean_sd(big, key), **_style(series, is_stored))
    ax2.set_xlabel(r"step-size exponent $\alpha$ (at the largest $N$)")
    ax2.set_ylabel("squared overlap")
    ax2.set_ylim(-0.02, 1.05)
    ax2.set_title("its direction saturates")
    handles += ([_marker(OVERLAP_U1, _LABEL["overlap_u1"]),
                 _marker(ALIGNMENT, _LABEL["cos2_beta"])]
                + [_line(r"theory (dashed: $\hat u_1$; dotted: stored $N$)"),
                   Patch(color=P["null"], alpha=0.35,
                         label=r"$\cos^2(u_1, \beta^*)$, mean $\pm$ sd"),
                   _line("its limit", color=P["null"], linestyle="-.")])
    _legend(fig, handles, title=_sizes_title(sets))
    return fig


# -- which directions one step sees ------------------------------------------------------------

def directions(runs: Runs):
    """Squared cosine between the top right singular vector of W1 and each target direction
    against N (runs of :data:`companion.chapters.one_step.experiments.DIRECTIONS`): top, the
    single-direction targets He_1 and He_3; bottom, the target He_1 + He_3 on two orthogonal
    directions. Faint markers: each seed; theory: solid (mu* != 0), dashed (the noise level,
    mu* = 0); dotted grey: a random direction, 1/d."""
    P = cplt.PALETTE
    fig, axes = _stacked(2, sharex=True, sharey=True, height=2 * PANEL + 1.4)
    style = {"he1": (P["one_step"], "o", r"$\mathrm{He}_1$ direction"),
             "he3": (P["accent"], "D", r"$\mathrm{He}_3$ direction")}
    singles = [t for t in runs.unique("target") if len(direction_names(t)) == 1]
    mixed = [t for t in runs.unique("target") if len(direction_names(t)) > 1]
    panels = [(axes[0], [(t, 0) for t in singles], "one target per direction"),
              (axes[1], [(t, k) for t in mixed[:1] for k in range(len(direction_names(t)))],
               "one target, " + " + ".join(rf"$\mathrm{{He}}_{n[-1]}$"
                                            for n in direction_names(mixed[0]))
               if mixed else "")]
    handles = {}
    for ax, series, title in panels:
        Ns = None
        for target, k in series:
            name = direction_names(target)[k]
            color, marker, label = style.get(name, (P["null"], "v", name))
            groups = runs.where(target=target).groups("N")
            Ns = np.array([g[0] for g in groups], float)
            vals = np.array([g.values("cos2")[:, k] for g in groups.values()])
            for j in range(vals.shape[1]):      # every seed, faint, spread out in x
                shift = 1.03 ** (j - vals.shape[1] // 2)
                ax.plot(Ns * shift, vals[:, j], marker=marker, linestyle="none", color=color,
                        alpha=0.3, markersize=4)
            cplt.sim_points(ax, Ns, vals.mean(1), None, color=color, marker=marker,
                            markersize=8)
            handles.setdefault(label, Line2D([], [], color=color, marker=marker,
                                             linestyle="none", markersize=8,
                                             label=label + ": mean, faint: seeds"))
            theory = [g[0]["theory_cos2"][k] for g in groups.values()]
            learnable = abs(float(next(iter(groups.values()))[0]["mu_star"][k])) > 1e-8
            cplt.theory_line(ax, Ns, theory, linestyle="-" if learnable else "--")
        if Ns is not None:
            cplt.theory_line(ax, Ns, 1 / Ns, color=P["null"], linestyle=":")
            log_axis(ax, Ns, close="blank", label=SIZE_LABEL if ax is axes[-1] else None)
        ax.set_yscale("log")
        ax.set_ylabel(r"$\cos^2(v_1, \beta^*_k)$")
        ax.set_title(title)
    _decades(axes[0])                   # shared by both panels: once every seed is drawn
    _legend(fig, list(handles.values())
            + [_line(r"theory, $\mu^* \neq 0$"), _line(r"noise level, $\mu^* = 0$",
                                                     linestyle="--"),
               _line(r"random direction, $1/d$", color=P["null"], linestyle=":")])
    return fig
