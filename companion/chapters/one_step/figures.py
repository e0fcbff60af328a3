"""Figures of the chapter "One step: a rank-one spike" (book: dv-one-step-spike; E1, E2 and the
chapter's own checks), one function per figure.

Each takes :class:`~companion.core.runs.Runs` from :mod:`companion.chapters.one_step.experiments` and
returns a matplotlib Figure in the book's style. :func:`transition` and :func:`growth` also
take the stored paper-scale runs (``companion.core.store.load("E1")`` / ``load("E2")``) and draw
them over the chapter's runs with hollow markers; called with one argument (as
``python -m companion reproduce`` does) they draw whatever runs they are given, small or
paper scale.

Colours keep the book's meaning (:data:`companion.presentation.plotting.PALETTE`): green for the one-step
results, black for theory, grey for the bulk and chance; the second quantity of a panel is
drawn in the accent colour with its own marker. Series differ in marker as well as colour;
error bars are one standard deviation over the seeds.
"""

from __future__ import annotations

import numpy as np

from companion.chapters.one_step.experiments import direction_names, transition_theory
from companion.core.activations import get_activation
from companion.core.runs import Runs
from companion.core.targets import target_moments
from companion.core.theory import one_step_theta
from companion.presentation import plotting as cplt
from companion.presentation.figures import log_axis, new_figure
from companion.presentation.plotting import COLUMN_WIDTH

#: markers of the chapter's runs (filled) and of the stored paper-scale runs (hollow)
STORED = dict(markerfacecolor="none", markeredgewidth=1.4, markersize=8)
#: the exponents shown in the growth figure, each with its own marker and shade of green
GROWTH_ALPHAS = (0.1, 0.2, 0.3, 0.4)
#: the label of a size axis
SIZE_LABEL = r"width $N = d = n$"
_GROWTH_MARKERS = ("o", "s", "D", "^")
_GREENS = ("#7FCDAE", "#3BAA83", "#029E73", "#01573F")


def _p():
    return cplt, cplt.PALETTE


def _column_width() -> float:
    return COLUMN_WIDTH


def _mean_sd(runs: Runs, key: str):
    v = runs.values(key).astype(float)
    return v.mean(axis=0), v.std(axis=0)


def _hollow(color):
    return dict(STORED, markeredgecolor=color, color=color)


def _legend_below(fig, axes, ncol=3, **kw):
    """One legend for the figure, below the panels (off the data), without duplicates."""
    handles, labels = [], []
    for ax in np.atleast_1d(axes):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels and not lab.startswith("_"):
                handles.append(h)
                labels.append(lab)
    return fig.legend(handles, labels, loc="outside lower center", ncol=ncol, **kw)


def _legend_columns(fig, axes, **kw):
    """A figure legend below the panels (off the data) with one column per panel, each
    column holding that panel's entries (padded with blank entries to equal length)."""
    from matplotlib.lines import Line2D
    columns = [list(zip(*ax.get_legend_handles_labels())) for ax in axes]
    rows = max(len(c) for c in columns)
    handles, labels = [], []
    for c in columns:
        c = c + [(Line2D([], [], linestyle="none"), " ")] * (rows - len(c))
        handles += [h for h, _ in c]
        labels += [lab for _, lab in c]
    kw.setdefault("fontsize", 9.5)
    return fig.legend(handles, labels, loc="outside lower center", ncol=len(axes),
                      handlelength=1.8, columnspacing=2.0, **kw)


def _square(runs: Runs) -> Runs:
    """The runs with N = d (the transition's stored runs carry no d: they are square)."""
    return runs.where(lambda r: r.params.get("d", r.params["N"]) == r.params["N"])


# -- the gradient is rank one -----------------------------------------------------------------

def rank_one(runs: Runs):
    """Operator norms of G, of its rank-one part m1 a u1^T and of the remainder R against N
    (log-log), with the limit of the rank-one part and a slope -1/2 anchored at the smallest
    N (runs of :data:`companion.chapters.one_step.experiments.RANK_ONE`)."""
    cplt, P = _p()
    groups = runs.groups("N")
    Ns = np.array([g[0] for g in groups])
    r0 = runs[0]
    tgt = target_moments(r0["target"])
    limit = one_step_theta(1.0, get_activation(r0["activation"]).m(1), tgt.mu_star,
                           tgt.second_moment)
    fig, ax = new_figure()
    op = r"_{\mathrm{op}}"
    series = [("g_norm", rf"$\|G\|{op}$", P["one_step"], "o", True),
              ("spike_norm", rf"$\|m_1 a u_1^\top\|{op}$", P["one_step"], "s", False),
              ("r_norm", rf"$\|R\|{op}$", P["accent"], "D", False)]
    for key, label, color, marker, hollow in series:
        v = [g.values(key) for g in groups.values()]
        # ||G|| and its rank-one part nearly coincide: ||G|| as a large open circle
        style = (dict(markersize=12, markerfacecolor="none", markeredgecolor=color,
                      markeredgewidth=1.5) if hollow else {})
        cplt.sim_points(ax, Ns, [x.mean() for x in v], [x.std() for x in v], label=label,
                        color=color, marker=marker, **style)
    grid = np.geomspace(Ns[0], Ns[-1], 50)
    cplt.theory_line(ax, grid, np.full_like(grid, limit),
                     label=r"limit $m_1\sqrt{\mu^{*2} + \mathbb{E}y^2/\psi}$")
    r_small = groups[(Ns[0],)].values("r_norm").mean()
    cplt.theory_line(ax, grid, r_small * np.sqrt(Ns[0] / grid), linestyle="--",
                     label=r"slope $-1/2$")
    log_axis(ax, Ns, close="blank", label=SIZE_LABEL)
    ax.set_yscale("log")
    ax.set_ylabel("operator norm")
    ax.set_title("the gradient at initialisation")
    _legend_below(fig, ax, ncol=3)
    return fig


# -- the spectrum of W1 -------------------------------------------------------------------------

def spectra(runs: Runs):
    """Histograms of the singular values of W0 and W1 (the first run of
    :data:`companion.chapters.one_step.experiments.SPECTRUM`) with the Marchenko-Pastur density, the
    bulk edge, the outliers beyond it and the predicted outlier of W1."""
    cplt, P = _p()
    r = runs[0]
    fig, axes = new_figure(1, 2, sharey=True)
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
        ax.set_title(title)
    axes[1].axvline(float(r["theory_s1"]), color=P["theory"], linestyle=":", linewidth=1.5,
                    label="predicted outlier")
    axes[1].set_ylabel("")
    axes[0].set_ylim(0, 0.8)
    _legend_below(fig, axes, ncol=3)
    return fig


# -- the transition at eta = Theta(1) ------------------------------------------------------------

def _theory_grid(run, etas):
    return transition_theory(etas, run["target"], run["activation"], N=int(run["N"]),
                             d=run.params.get("d"), n=run.params.get("n"))


def transition(runs: Runs, stored: Runs | None = None):
    """One step at eta = Theta(1) (E1): the top singular value against eta with the bulk edge
    (left) and the squared overlaps of the top right singular vector with u1/||u1|| and with
    beta* (right), theory as lines and the threshold eta_c dotted. ``stored``: the
    paper-scale runs, drawn over the others with hollow markers."""
    cplt, P = _p()
    runs = _square(runs)
    r0 = runs[0]
    etas = np.asarray(r0["eta"], float)
    grid = np.linspace(0, etas.max(), 401)
    th = _theory_grid(r0, grid)
    fig, (ax1, ax2) = new_figure(1, 2, figsize=(_column_width(), 4.6))
    cplt.theory_line(ax1, grid, th["s1"], label="theory")
    cplt.mark_bulk_edge(ax1, float(r0["edge"]), axis="y", label=r"bulk edge $1 + \sqrt{\phi}$")
    cplt.theory_line(ax2, grid, th["overlap_u1"], linestyle="--",
                     label=r"theory, $\langle v_1, \hat u_1\rangle^2$")
    cplt.theory_line(ax2, grid, th["cos2"], label=r"theory, $\cos^2(v_1, \beta^*)$")
    sets = [(runs, False)] + ([(_square(stored), True)] if stored is not None and len(stored)
                              else [])
    for data, is_stored in sets:
        tag = f"$N = {int(data[0]['N'])}$" + (", stored" if is_stored else "")
        x = np.asarray(data[0]["eta"], float)
        green = _hollow(P["one_step"]) if is_stored else dict(color=P["one_step"])
        pink = _hollow(P["accent"]) if is_stored else dict(color=P["accent"])
        m1, m2 = ("D", "^") if is_stored else ("o", "s")
        cplt.sim_points(ax1, x, *_mean_sd(data, "s1"), marker=m1, label=rf"$s_1$, {tag}",
                        **green)
        cplt.sim_points(ax2, x, *_mean_sd(data, "overlap_u1"), marker=m2,
                        label=rf"$\langle v_1, \hat u_1\rangle^2$, {tag}", **pink)
        cplt.sim_points(ax2, x, *_mean_sd(data, "cos2_beta"), marker=m1,
                        label=rf"$\cos^2(v_1, \beta^*)$, {tag}", **green)
    eta_c = float(r0["eta_c"])
    for ax in (ax1, ax2):
        ax.axvline(eta_c, color=P["null"], linestyle=":", linewidth=1.3, zorder=1)
        ax.text(eta_c - 0.08, 0.97, r"$\eta_c$", color=P["null"], ha="right", va="top",
                transform=ax.get_xaxis_transform())
        ax.set_xlabel(r"step size $\eta$")
    ax1.set_ylabel(r"top singular value $s_1$")
    ax1.set_title("the outlier")
    ax2.set_ylabel("squared overlap")
    ax2.set_ylim(-0.02, 1.0)
    ax2.set_title(r"its right singular vector $v_1$")
    _legend_columns(fig, (ax1, ax2))
    return fig


def transition_rectangular(runs: Runs):
    """The transition for rectangular weights: one series per shape (N, d) of the runs
    (phi = N/d), the top singular value with each bulk edge (left) and cos^2(v1, beta*)
    (right) against eta, theory as lines."""
    cplt, P = _p()
    styles = [(P["one_step"], "o", "-"), (P["accent"], "s", "--"), (P["null"], "D", ":")]
    fig, (ax1, ax2) = new_figure(1, 2)
    shapes = runs.groups("N", "d") if all("d" in r.params for r in runs) else runs.groups("N")
    for (shape, data), (color, marker, ls) in zip(shapes.items(), styles):
        r0 = data[0]
        N, d = int(r0["N"]), int(r0.params.get("d", r0["N"]))
        x = np.asarray(r0["eta"], float)
        grid = np.linspace(0, x.max(), 401)
        th = _theory_grid(r0, grid)
        phi = rf"$\phi = {N / d:g}$"
        label = rf"{phi} ($N = {N}$, $d = {d}$)"
        cplt.theory_line(ax1, grid, th["s1"], linestyle=ls, label=f"theory, {phi}")
        cplt.theory_line(ax2, grid, th["cos2"], linestyle=ls)
        cplt.sim_points(ax1, x, *_mean_sd(data, "s1"), color=color, marker=marker, label=label)
        cplt.sim_points(ax2, x, *_mean_sd(data, "cos2_beta"), color=color, marker=marker)
        ax1.axhline(float(r0["edge"]), color=P["null"], linestyle=ls, linewidth=1.1, zorder=1,
                    label=rf"bulk edge $1 + \sqrt{{\phi}}$, {phi}")
    ax1.set_ylabel(r"top singular value $s_1$")
    ax1.set_title("the outlier")
    ax2.set_ylabel(r"$\cos^2(v_1, \beta^*)$")
    ax2.set_title(r"alignment with $\beta^*$")
    for ax in (ax1, ax2):
        ax.set_xlabel(r"step size $\eta$")
    _legend_below(fig, (ax1, ax2), ncol=2)
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
    axes (left) and, at the largest N, the squared overlaps of v1 with u1/||u1|| and with
    beta* against alpha, with cos^2(u1, beta*) measured (grey band: mean +- one standard
    deviation) and its limit (dash-dotted) (right). ``stored``: the paper-scale runs, drawn
    over the others with hollow markers (and their theory, dotted, on the right)."""
    cplt, P = _p()
    fig, (ax1, ax2) = new_figure(1, 2, figsize=(_column_width(), 5.0))
    sets = [(runs, False)] + ([(stored, True)] if stored is not None and len(stored) else [])
    all_Ns = sorted({int(n) for data, _ in sets for n in data.unique("N")})
    grid_N = np.geomspace(all_Ns[0], all_Ns[-1], 40).round().astype(int)
    r0 = runs[0]
    cols = _alpha_columns(r0["alpha"])
    for (a, j), marker, shade in zip(cols.items(), _GROWTH_MARKERS, _GREENS):
        cplt.theory_line(ax1, grid_N, _growth_theory_s1(r0, grid_N, a), linewidth=1.3,
                         label="theory" if a == GROWTH_ALPHAS[0] else None)
        for data, is_stored in sets:
            jj = _alpha_columns(data[0]["alpha"])[a]
            groups = data.groups("N")
            Ns = [k[0] for k in groups]
            v = [g.values("s1")[:, jj] for g in groups.values()]
            style = _hollow(shade) if is_stored else dict(color=shade)
            cplt.sim_points(ax1, Ns, [x.mean() for x in v], [x.std() for x in v],
                            marker=marker, label=None if is_stored else rf"$\alpha = {a:g}$",
                            **style)
    if len(sets) > 1:
        Ns_s = sorted(int(n) for n in stored.unique("N"))
        ax1.plot([], [], marker="o", linestyle="none",
                 label=f"open: stored, $N \\geq {Ns_s[0]}$", **_hollow(P["one_step"]))
    log_axis(ax1, all_Ns, close="blank", label=SIZE_LABEL)
    ax1.set_yscale("log")
    ax1.set_yticks([2, 4, 8, 16, 32], ["2", "4", "8", "16", "32"])
    ax1.minorticks_off()
    ax1.set_ylabel(r"top singular value $s_1$")
    ax1.set_title(r"the outlier grows like $N^\alpha$")

    a_grid = np.linspace(0, float(np.max(r0["alpha"])), 200)
    for k, (data, is_stored) in enumerate(sets):
        N = max(int(n) for n in data.unique("N"))
        big = data.where(N=N)
        th = transition_theory(N ** a_grid, data[0]["target"], data[0]["activation"], N=N)
        if k == 0:
            u1 = big.values("cos2_u1").astype(float)
            ax2.axhspan(u1.mean() - u1.std(), u1.mean() + u1.std(), color=P["null"],
                        alpha=0.35, linewidth=0, label=r"$\cos^2(u_1, \beta^*)$")
            cplt.theory_line(ax2, a_grid, np.full_like(a_grid, float(big[0]["saturation"])),
                             linestyle="-.", color=P["null"], label="its limit")
        cplt.theory_line(ax2, a_grid, th["overlap_u1"], linestyle=":" if is_stored else "--",
                         linewidth=1.3)
        cplt.theory_line(ax2, a_grid, th["cos2"], linestyle=":" if is_stored else "-",
                         linewidth=1.3, label=f"theory, $N = {N}$")
        x = np.asarray(big[0]["alpha"], float)
        green = _hollow(P["one_step"]) if is_stored else dict(color=P["one_step"])
        pink = _hollow(P["accent"]) if is_stored else dict(color=P["accent"])
        m1, m2 = ("D", "^") if is_stored else ("o", "s")
        tag = f"$N = {N}$" + (", stored" if is_stored else "")
        cplt.sim_points(ax2, x, *_mean_sd(big, "overlap_u1"), marker=m2,
                        label=rf"$\langle v_1, \hat u_1\rangle^2$, {tag}", **pink)
        cplt.sim_points(ax2, x, *_mean_sd(big, "cos2_beta"), marker=m1,
                        label=rf"$\cos^2(v_1, \beta^*)$, {tag}", **green)
    ax2.set_xlabel(r"step-size exponent $\alpha$")
    ax2.set_ylabel("squared overlap")
    ax2.set_ylim(-0.02, 1.05)
    ax2.set_title("the direction saturates")
    _legend_columns(fig, (ax1, ax2))
    return fig


# -- which directions one step sees ------------------------------------------------------------

def directions(runs: Runs):
    """Squared cosine between the top right singular vector of W1 and each target direction
    against N (runs of :data:`companion.chapters.one_step.experiments.DIRECTIONS`): left, the
    single-direction targets He_1 and He_3; right, the target He_1 + He_3 on two orthogonal
    directions. Faint markers: each seed; theory: solid (mu* != 0), dashed (the noise level,
    mu* = 0); dotted grey: a random direction, 1/d."""
    cplt, P = _p()
    fig, axes = new_figure(1, 2, sharey=True)
    style = {"he1": (P["one_step"], "o", r"$\mathrm{He}_1$ direction"),
             "he3": (P["accent"], "D", r"$\mathrm{He}_3$ direction")}
    singles = [t for t in runs.unique("target") if len(direction_names(t)) == 1]
    mixed = [t for t in runs.unique("target") if len(direction_names(t)) > 1]
    panels = [(axes[0], [(t, 0) for t in singles], "one target per direction"),
              (axes[1], [(t, k) for t in mixed[:1] for k in range(len(direction_names(t)))],
               "one target, " + " + ".join(rf"$\mathrm{{He}}_{n[-1]}$"
                                            for n in direction_names(mixed[0]))
               if mixed else "")]
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
                            label=label + " (mean)", markersize=8)
            theory = [g[0]["theory_cos2"][k] for g in groups.values()]
            learnable = abs(float(next(iter(groups.values()))[0]["mu_star"][k])) > 1e-8
            cplt.theory_line(ax, Ns, theory, linestyle="-" if learnable else "--",
                             label=r"theory, $\mu^* \neq 0$" if learnable
                             else r"noise level, $\mu^* = 0$")
        if Ns is not None:
            cplt.theory_line(ax, Ns, 1 / Ns, color=P["null"], linestyle=":",
                             label=r"random direction, $1/d$")
            log_axis(ax, Ns, close="blank", label=SIZE_LABEL)
        ax.set_yscale("log")
        ax.set_title(title)
    axes[0].set_ylabel(r"$\cos^2(v_1, \beta^*_k)$")
    _legend_below(fig, axes, ncol=3)
    return fig
