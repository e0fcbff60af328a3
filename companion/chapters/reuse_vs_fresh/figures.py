"""Figures and tables of the chapter "Reused versus fresh batches" (book: dv-learnability; E6 to
E9).

Each figure function takes the runs (the chapter's own, or the stored paper-scale runs
alone, as ``python -m companion reproduce`` passes them) and, optionally, the stored runs
to overlay (``stored``, drawn with open markers of the same shape and colour, their N in
the legend); it returns a matplotlib Figure. Colours: reused blue, fresh orange
(:data:`companion.presentation.plotting.PALETTE`); every series has its own marker too. The ``table_*``
functions return the chapter's printed tables as text.

Every text of the chapter's figures is at least :data:`MIN_FONT_PT` (:func:`_readable`), so
that it stays legible where the book shows the figure narrower than its natural size: on a
phone 390 px wide the column is :data:`companion.presentation.figures.PHONE_COLUMN` CSS px,
and a figure of the column's
width (6.4 in, 640 CSS px at its natural size, a little more with ``bbox_inches="tight"``)
is shown at about 0.53 of its size (tests/chapters/reuse_vs_fresh/test_reuse_vs_fresh_figures.py
measures what the smallest text of each figure measures there).
"""

from __future__ import annotations

import numpy as np

from companion.chapters.reuse_vs_fresh.experiments import (
    ABLATION_ACTIVATIONS,
    FIRST_DIRECTION_PAIRS,
    HEADLINE_POINT,
    READOUT_POINTS,
    READOUT_TARGETS,
    TARGET_LABELS,
    activation_moments,
    beta_carrier,
    learnability_table,
    link_moments,
    target_spec,
)
from companion.core.activations import get_activation
from companion.core.intervals import t_interval
from companion.core.runs import Runs
from companion.core.targets import make_link
from companion.core.theory import lambda_count
from companion.presentation import plotting as cplt
from companion.presentation.book import fmt, fmt_fixed, fmt_interval
from companion.presentation.figures import (
    log_axis,
    new_figure,
    raise_small_text,
    range_bars,
    stored_runs_absent,
)

#: the smallest text of the chapter's figures, in points: 11.5 pt is 16 CSS px at the
#: figure's natural size (100 px per inch), 8.4 px on the phone for a figure 6.6 in wide
MIN_FONT_PT = 11.5

#: marker of each batch setting (and of the Lambda = 1 control of the headline)
MARKER = {"reused": "o", "fresh": "s", "control": "v"}
#: pretty names of the targets on the axes (activations: companion.presentation.plotting.ACTIVATION_STYLE)
TARGET_NAME = {"He_3": r"He$_3$", "He_2": r"He$_2$",
               "(He_2+He_3)/sqrt2": r"(He$_2$+He$_3$)/$\sqrt{2}$", "bounded odd": "bounded odd"}


def _readable(fig):
    """``fig`` with every text at least :data:`MIN_FONT_PT` points
    (:func:`companion.presentation.figures.raise_small_text`)."""
    return raise_small_text(fig, MIN_FONT_PT)


def _smooth(activation) -> bool:
    """Whether the activation lies inside the smooth expansion (ReLU does not: its kappa
    are not defined, smoothing it makes them diverge)."""
    return get_activation(activation).smooth


def _open(color) -> dict:
    """Keywords for the open markers of the stored runs."""
    return dict(markerfacecolor="none", markeredgecolor=color, markeredgewidth=1.5, zorder=2)


def _stored_handle(ax, stored: Runs):
    """The legend entry of the stored runs (their N and seeds)."""
    Ns = sorted(stored.unique("N"))
    seeds = len(stored.unique("seed"))
    size = f", $N = {Ns[0]}$" if len(Ns) == 1 else ""      # several: on the axis
    ax.plot([], [], linestyle="none", marker="o", color="0.3", **_open("0.3"),
            label=f"open: stored runs{size} ({seeds} seeds)")


def _legend_below(fig, *axes, ncol=2):
    """One legend below the panels: simulation series first, then lines, the stored runs'
    entry last."""
    from matplotlib.container import ErrorbarContainer
    entries = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, h)
    order = sorted(entries, key=lambda lab: (lab.startswith("open:"),
                                             not isinstance(entries[lab], ErrorbarContainer)))
    fig.legend([entries[lab] for lab in order], order, loc="outside lower center", ncol=ncol,
               fontsize=9.5)     # the chapter's own figures raise it (_readable)


# -- the first learned direction ------------------------------------------------------------
def first_direction(runs: Runs, stored: Runs | None = None):
    """cos^2(v1, beta*) of an information-exponent-one target: the mean over seeds per
    (alpha1, alpha2) and batch (error bars: the range), under the companion's prediction
    drawn over it: the limit (solid) and the limit times the spiked-model overlap
    1 - 1/theta^2 at these step sizes (dotted); the stored runs as open markers."""
    P = cplt.PALETTE
    fig, ax = new_figure()
    pairs = [p for p in FIRST_DIRECTION_PAIRS if len(runs.where(alpha1=p[0], alpha2=p[1]))]
    for j, (a1, a2) in enumerate(pairs):
        for batch, shift in (("reused", -0.14), ("fresh", 0.14)):
            sel = runs.where(alpha1=a1, alpha2=a2, batch=batch)
            if not len(sel):
                continue
            seg = [j + shift - 0.12, j + shift + 0.12]
            cplt.theory_line(ax, seg, [sel.mean("limit")] * 2, color=P[batch])
            cplt.theory_line(ax, seg, [sel.mean("limit_finite_n")] * 2, color=P[batch],
                             linestyle=":")
            mean, err = range_bars([sel.values("cos2")])
            cplt.sim_points(ax, [j + shift], mean, err, color=P[batch], marker=MARKER[batch],
                            label=f"{batch} batch" if j == 0 else None)
            st = None if stored is None else stored.where(alpha1=a1, alpha2=a2, batch=batch)
            if st is not None and len(st):
                mean, err = range_bars([st.values("cos2")])
                cplt.sim_points(ax, [j + 2.3 * shift], mean, err, color=P[batch],
                                marker=MARKER[batch], **_open(P[batch]))
    ax.plot([], [], color=P["theory"], label="limit (companion)")
    ax.plot([], [], color=P["theory"], linestyle=":", label=r"limit $\times\,(1 - 1/\theta^2)$")
    if stored is not None and len(stored):
        _stored_handle(ax, stored)
    ax.set_xticks(range(len(pairs)),
                  [f"({a1:g}, {a2:g})\n$\\Lambda = {lambda_count(a1, a2)}$" for a1, a2 in pairs])
    ax.set_xlabel(r"step-size exponents $(\alpha_1, \alpha_2)$")
    ax.set_ylabel(r"$\cos^2(v_1, \beta^*)$")
    ax.set_title(r"He$_1$ target: the first direction")
    _legend_below(fig, ax, ncol=2)
    return _readable(fig)


# -- the headline ---------------------------------------------------------------------------
#: (batch, alpha1, marker kind, x offset of the chapter's runs, of the stored runs): the
#: stored runs sit to the right of each tick, the chapter's to the left (1000 and 1024
#: would overlap otherwise)
_HEADLINE_SERIES = (("reused", 0.20, "control", 0.86, 1.04),
                    ("reused", HEADLINE_POINT[0], "reused", 0.92, 1.10),
                    ("fresh", HEADLINE_POINT[0], "fresh", 0.98, 1.17))


def headline_projection(runs: Runs, stored: Runs | None = None):
    """||P_4 beta*||^2 of the He_3 direction against N (log-log) for the three settings of
    the headline, seeds as small dots, chance 4/d; the stored runs as open markers."""
    P = cplt.PALETTE
    fig, ax = new_figure()
    own = sorted(runs.unique("N"))
    Ns = own + ([] if stored is None else sorted(stored.unique("N")))
    for batch, a1, kind, offset, stored_offset in _HEADLINE_SERIES:
        color = P[batch]
        label = rf"{batch}, $({a1:.2f}, 0.45)$, $\Lambda = {lambda_count(a1, 0.45)}$"
        for source, filled in ((runs, True), (stored, False)):
            sel = None if source is None else source.where(batch=batch, alpha1=a1)
            if sel is None or not len(sel):
                continue
            factor = offset if filled else stored_offset
            groups = sel.groups("N")
            x = np.array([N for (N,) in groups]) * factor
            mean, err = range_bars([g.values("projection") for g in groups.values()])
            kw = dict(markersize=7) if filled else dict(markersize=7, **_open(color))
            cplt.sim_points(ax, x, mean, err, color=color, marker=MARKER[kind],
                            label=label if filled else None, **kw)
            if filled:
                ax.plot(np.array(sel.values("N")) * factor, sel.values("projection"),
                        linestyle="none", marker=".", color=color, alpha=0.45, zorder=3)
    grid = np.geomspace(min(Ns) * 0.8, max(Ns) * 1.25, 50)
    cplt.theory_line(ax, grid, 4 / grid, color=P["null"], linestyle="--", label="chance $4/d$")
    if stored is not None and len(stored):
        _stored_handle(ax, stored)
    ax.set_yscale("log")
    # ticks at the chapter's sizes and at the stored sizes beyond them (1024 next to 1000
    # would collide)
    log_axis(ax, own + [n for n in Ns if n > 1.3 * max(own)])
    ax.set_xlabel("width $N = d = n$ (stored runs: open, right of each tick)")
    ax.set_ylabel(r"$\|P_4 \beta^*\|^2$")
    ax.set_title(r"He$_3$ target, $\tanh$: $\beta^*$ in the top four")
    _legend_below(fig, ax)
    return _readable(fig)


def headline_outlier(runs: Runs, stored: Runs | None = None):
    """Which outlier carries beta* in the headline's reused Lambda = 3 runs (largest N of
    ``runs``; the stored runs at their largest N as open markers): left, the squared cosine
    of each of the top four right singular vectors with beta*; right, the squared overlaps
    of the carrier's left singular vector (and of the first one) with the Gram-Schmidt powers
    q_1..q_5 of a (needs the ``left`` result; older stored runs lack it). The carrier is the
    vector with the largest mean squared cosine, found in each set of runs."""
    P, T = cplt.PALETTE, cplt.TERM_STYLE
    fig, (ax, ax2) = new_figure(1, 2)
    point = dict(batch="reused", alpha1=HEADLINE_POINT[0], alpha2=HEADLINE_POINT[1])
    sources = [(src.where(**point), filled) for src, filled in ((runs, True), (stored, False))
               if src is not None and len(src.where(**point))]
    for sel, filled in sources:
        N = max(sel.unique("N"))
        sel = sel.where(N=N)
        carrier = beta_carrier(sel)["index"]
        shift, tag = (-0.12, "") if filled else (0.12, " (stored)")
        m = sum(1 for k in sel[0].result if k.startswith("cos2_"))
        cos2 = np.stack([sel.values(f"cos2_{i}") for i in range(m)], axis=1)
        cplt.sim_points(ax, np.arange(1, m + 1) + shift, *range_bars(cos2.T), color=P["reused"],
                        marker=MARKER["reused"], markersize=7,
                        label=f"reused, $N = {N}$, {len(sel)} seeds{tag}",
                        **({} if filled else _open(P["reused"])))
        if not all("left" in r.result for r in sel):
            continue
        left = sel.values("left")
        q = np.arange(1, left.shape[2] + 1)
        vectors = [(carrier, T[2], rf"$u_{carrier + 1}$ (carries $\beta^*$)")]
        if carrier != 0:
            vectors.append((0, T[0], "$u_1$ (first spike)"))
        for i, style, name in vectors:
            cplt.sim_points(ax2, q + shift, *range_bars(left[:, i, :].T),
                            color=style["color"], marker=style["marker"], markersize=7,
                            label=f"{name}, $N = {N}${tag}",
                            **({} if filled else _open(style["color"])))
    ax.set_xticks(range(1, 5), [f"$v_{i}$" for i in range(1, 5)])
    ax.set_xlabel("right singular vector of $W_2$")
    ax.set_ylabel(r"$\cos^2(v_i, \beta^*)$")
    ax.set_ylim(bottom=0)
    ax.set_title(r"which vector carries $\beta^*$")
    ax2.set_xticks(range(1, 6), [f"$q_{j}$" for j in range(1, 6)])
    ax2.set_xlabel("Gram-Schmidt power of $a$")
    ax2.set_ylabel("squared overlap")
    ax2.set_ylim(-0.02, 1.02)
    ax2.set_title("its left vector $u_i$")
    if not ax2.has_data():
        ax2.text(0.5, 0.5, "left vectors not stored", ha="center", transform=ax2.transAxes)
    _legend_below(fig, ax, ax2, ncol=2)
    return _readable(fig)


# -- other targets and activations ----------------------------------------------------------
def _prediction_text(value) -> str:
    value = float(value)
    return "n/a" if np.isnan(value) else ("yes" if value == 1 else "no")


def _category(runs: Runs, stored: Runs | None, by: str, names, ax, fig):
    """Projection per category and batch: chapter runs filled (seeds as dots), stored runs
    open and further out, chance at the chapter's size; legend below the figure."""
    P = cplt.PALETTE
    for batch, shift in (("reused", -0.12), ("fresh", 0.12)):
        for p, name in enumerate(names):
            for source, filled in ((runs, True), (stored, False)):
                sel = None if source is None else source.where(**{by: name, "batch": batch})
                if sel is None or not len(sel):
                    continue
                x = p + shift * (1 if filled else 2.5)
                mean, err = range_bars([sel.values("projection")])
                kw = dict(markersize=7) if filled else dict(markersize=7, **_open(P[batch]))
                cplt.sim_points(ax, [x], mean, err, color=P[batch], marker=MARKER[batch],
                                label=f"{batch} batch" if (filled and p == 0) else None, **kw)
                if filled:
                    v = sel.values("projection")
                    ax.plot(np.full(v.shape, x), v, linestyle="none", marker=".",
                            color=P[batch], alpha=0.45, zorder=3)
    N = max(runs.unique("N"))
    cplt.theory_line(ax, [-0.4, len(names) - 0.6], [4 / N] * 2, color=P["null"],
                     linestyle="--", label=f"chance $4/d$ at $N = {N}$")
    if stored is not None and len(stored):
        _stored_handle(ax, stored)
    ax.set_yscale("log")
    ax.set_ylabel(r"$\|P_4 \beta^*\|^2$")
    _legend_below(fig, ax)


def _predicted(runs: Runs, by: str, name: str, batch: str) -> str:
    sel = runs.where(**{by: name, "batch": batch})
    return _prediction_text(sel[0]["learnable"]) if len(sel) else "-"


def other_targets(runs: Runs, stored: Runs | None = None):
    """Top: the four links g(z); bottom: ||P_4 beta*||^2 per target and batch at the
    headline point, with the companion's prediction under each target."""
    fig, (ax, ax2) = new_figure(2, 1, height_ratios=(2, 3))
    names = [t for t in TARGET_LABELS if len(runs.where(target=t))]
    z = np.linspace(-3.5, 3.5, 400)
    for name, ls in zip(TARGET_LABELS, ("-", "--", ":", "-.")):
        ax.plot(z, make_link(target_spec(name))(z), color=cplt.PALETTE["theory"],
                linestyle=ls, label=TARGET_NAME[name])
    ax.set_ylim(-4.5, 4.5)
    ax.set_xlabel(r"$z = \langle \beta^*, x \rangle$")
    ax.set_ylabel("$g(z)$")
    ax.set_title(r"the links, each with $\mathbb{E}\,g^2 = 1$")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2, fontsize=MIN_FONT_PT)
    _category(runs, stored, "target", names, ax2, fig)
    ax2.set_xticks(range(len(names)),
                   [f"{TARGET_NAME[n]}\nreused: {_predicted(runs, 'target', n, 'reused')}\n"
                    f"fresh: {_predicted(runs, 'target', n, 'fresh')}" for n in names])
    ax2.set_xlabel(r"target (and the companion's prediction)")
    ax2.set_title(r"$\beta^*$ in the top four, $(\alpha_1, \alpha_2) = (0.35, 0.45)$")
    return _readable(fig)


def activation_ablation(runs: Runs, stored: Runs | None = None):
    """||P_4 beta*||^2 of the He_3 direction per activation and batch at the headline point,
    with the companion's prediction for a reused batch under each activation ("n/a": ReLU
    lies outside the smooth expansion; its kappa_{2,2} and m_2 are in the printed tables)."""
    fig, ax = new_figure()
    names = [a for a in ABLATION_ACTIVATIONS if len(runs.where(activation=a))]
    _category(runs, stored, "activation", names, ax, fig)
    ax.set_xticks(range(len(names)),
                  [f"{cplt.activation_name(n)}\nreuse predicted: "
                   f"{_predicted(runs, 'activation', n, 'reused')}" for n in names])
    ax.set_xlabel(r"activation")
    ax.set_title(r"He$_3$ target, $(\alpha_1, \alpha_2) = (0.35, 0.45)$: $\beta^*$ in the top four")
    return _readable(fig)


# -- the printed tables ---------------------------------------------------------------------
def _text_table(columns, rows, width: int = 76) -> str:
    """Rows of formatted strings as an aligned table (first column left-aligned), columns
    two spaces apart, or one where two would make a line wider than ``width`` (the book's
    column)."""
    widths = [max(len(c), *(len(r[j]) for r in rows)) for j, c in enumerate(columns)]
    sep = "  " if sum(widths) + 2 * (len(widths) - 1) <= width else " "
    return "\n".join(sep.join(s.ljust(w) if j == 0 else s.rjust(w)
                               for j, (s, w) in enumerate(zip(row, widths))).rstrip()
                     for row in [columns, *rows])


def table_moments(links, activations) -> str:
    """E[z g^p] (p = 1, 2, 3) and the information exponent of each link; m1, m2 and
    kappa_{k,r} of each activation."""
    lm = link_moments(links, powers=(1, 2, 3))
    top = _text_table(["link", "info. exponent", "E[z g]", "E[z g^2]", "E[z g^3]"],
                      [[name, f"{lm['information_exponent'][i]:.0f}"]
                       + [fmt_fixed(lm[f"E_z_g{p}"][i], 3) for p in (1, 2, 3)]
                       for i, name in enumerate(lm["link"])])
    am = activation_moments(activations, pairs=((1, 1), (2, 1), (2, 2)))
    specs = list(activations.values() if isinstance(activations, dict) else activations)
    keys = ["m1", "m2", "kappa_11", "kappa_21", "kappa_22"]
    bottom = _text_table(["activation", *keys],
                         [[name] + [fmt_fixed(am[k][i], 3) if _smooth(specs[i]) or
                                    not k.startswith("kappa") else "n/a" for k in keys]
                          for i, name in enumerate(am["activation"])])
    return f"{top}\n{'-' * 60}\n{bottom}"


def table_learnability(links, settings, activations) -> str:
    """:func:`companion.is_learnable` per link, activation and (batch, alpha1, alpha2):
    "learned", "-" (not learned) or "n/a" (no prediction)."""
    t = learnability_table(links, settings, activations=activations)
    marks = {1.0: "learned", 0.0: "-"}
    rows = []
    for name in dict.fromkeys(t["target"]):
        for act in dict.fromkeys(t["activation"]):
            sel = (t["target"] == name) & (t["activation"] == act)
            rows.append([name, act, *[marks.get(v, "n/a") for v in t["learnable"][sel]]])
    return _text_table(["target", "activation",
                        *[f"{b} L={lambda_count(a1, a2)}" for b, a1, a2 in settings]], rows)


def table_first_direction(runs: Runs, stored: Runs | None = None) -> str:
    """Mean and range over seeds of cos^2(v1, beta*) per (alpha1, alpha2) and batch, the
    limit and the limit times the spiked-model overlap (the companion's predictions), and
    the stored runs' mean (``stored``: a column, with their N in the heading line)."""
    rows = []
    for (a1, a2, batch), g in runs.groups("alpha1", "alpha2", "batch").items():
        v = g.values("cos2")
        row = [f"({a1:.2f}, {a2:.2f})", f"{g.mean('lambda'):.0f}", batch,
               fmt_fixed(v.mean(), 3), f"[{fmt_fixed(v.min(), 3)}, {fmt_fixed(v.max(), 3)}]",
               fmt_fixed(g.mean("limit"), 3), fmt_fixed(g.mean("limit_finite_n"), 3)]
        if stored is not None:
            row.append(_stored_mean(stored, "cos2", alpha1=a1, alpha2=a2, batch=batch))
        rows.append(row)
    columns = ["alphas", "Lambda", "batch", "mean", "[min, max]", "limit", "limit*overlap"]
    return (_heading(runs, stored) + "\n"
            + _text_table(columns + (["stored"] if stored is not None else []), rows))


def _heading(runs: Runs, stored: Runs | None) -> str:
    """The line above a table: the runs' N and seeds, and the stored runs' (or that they
    are switched off)."""
    text = (f"N = d = n = {max(runs.unique('N'))}, seeds {min(runs.unique('seed'))} to "
            f"{max(runs.unique('seed'))}")
    if stored is None or not len(stored):
        return text
    Ns = sorted(stored.unique("N"))
    size = f"N = {Ns[0]}" if len(Ns) == 1 else f"N = {Ns[0]} to {Ns[-1]}"
    return f"{text}; stored: {size}, mean over {len(stored.unique('seed'))} seeds"


def _stored_mean(stored: Runs, key: str, **params) -> str:
    sel = stored.where(**params)
    return fmt_fixed(sel.mean(key), 3) if len(sel) else "-"


def table_projection(runs: Runs, by=("N", "batch", "alpha1"), extra=(),
                     columns=("Lambda", "predicted", "mean", "[min, max]", "chance"),
                     stored: Runs | None = None, decimals: int = 4) -> str:
    """Mean and range over seeds of ||P_4 beta*||^2 per group of ``by`` (``alpha1`` shown
    as the pair of exponents), with Lambda, the prediction (learned / no / n/a) and chance
    m/d (``columns`` picks among them); ``extra``: more (column, function of the group's
    Runs -> text), after ``by``; ``stored``: a last column, the stored runs' mean in the
    same group (and a heading line with both sizes)."""
    rows = []
    for key, g in runs.groups(*by).items():
        v = g.values("projection")
        pred = {"yes": "learned", "no": "no", "n/a": "n/a"}[_prediction_text(g[0]["learnable"])]
        cell = {"Lambda": f"{g.mean('lambda'):.0f}", "predicted": pred,
                "mean": fmt_fixed(v.mean(), decimals),
                "[min, max]": f"[{fmt_fixed(v.min(), decimals)}, {fmt_fixed(v.max(), decimals)}]",
                "chance": fmt_fixed(g.mean("chance"), 4)}
        keys = [(f"({k:.2f}, {g[0]['alpha2']:.2f})" if b == "alpha1" else str(k))
                for b, k in zip(by, key)]
        row = [*keys, *[f(g) for _, f in extra], *[cell[c] for c in columns]]
        if stored is not None:
            row.append(_stored_mean(stored, "projection", **dict(zip(by, key))))
        rows.append(row)
    names = ["alphas" if b == "alpha1" else b for b in by]
    table = _text_table([*names, *[c for c, _ in extra], *columns,
                         *(["stored"] if stored is not None else [])], rows)
    return table if stored is None else _heading(runs, stored) + "\n" + table


def table_headline(runs: Runs, stored: Runs | None = None) -> str:
    """The headline in numbers: per N (the chapter's, then the stored runs'), the mean and
    range over seeds of ||P_4 beta*||^2 for each of the three settings, and chance 4/d."""
    names = {("reused", HEADLINE_POINT[0]): f"reused L={lambda_count(*HEADLINE_POINT)}",
             ("reused", 0.20): f"reused L={lambda_count(0.20, HEADLINE_POINT[1])}",
             ("fresh", HEADLINE_POINT[0]): "fresh"}
    settings = [("reused", HEADLINE_POINT[0]), ("reused", 0.20), ("fresh", HEADLINE_POINT[0])]
    rows = []
    for source, tag in ((runs, ""), (stored, "*")):
        if source is None:
            continue
        for N in sorted(source.unique("N")):
            row = [f"{N}{tag}"]
            for b, a1 in settings:
                sel = source.where(N=N, batch=b, alpha1=a1)
                if not len(sel):                       # not computed at this size
                    row.append("-")
                    continue
                v = sel.values("projection")
                row.append(f"{fmt_fixed(v.mean(), 3)} [{fmt_fixed(v.min(), 3)}, "
                           f"{fmt_fixed(v.max(), 3)}]")
            row.append(fmt_fixed(4 / N, 4))
            rows.append(row)
    note = ("mean [min, max] over seeds; * stored runs, "
            f"{len(stored.unique('seed'))} seeds" if stored is not None else
            "mean [min, max] over seeds") + "; - not computed"
    return note + "\n" + _text_table(["N", *[names[s] for s in settings], "chance"], rows)


def table_ablation(runs: Runs, stored: Runs | None = None) -> str:
    """:func:`table_projection` per activation and batch, with kappa_{2,2} (n/a for an
    activation with a kink) and the mean second singular value s_2, under a line with
    the point, N and chance; ``stored``: a last column, the stored runs' mean."""
    kappa = {a: activation_moments([a], pairs=((2, 2),))["kappa_22"][0]
             for a in runs.unique("activation")}
    head = (f"He_3 target, ({runs[0]['alpha1']:.2f}, "
            f"{runs[0]['alpha2']:.2f}), chance 4/d = {fmt_fixed(runs.mean('chance'), 4)}")
    table = table_projection(runs, by=("activation", "batch"), extra=[
        ("kappa_22", lambda g: fmt_fixed(kappa[g[0]["activation"]], 3)
         if _smooth(g[0]["activation"]) else "n/a"),
        ("s_2", lambda g: fmt_fixed(g.mean("s_1"), 2))],
        columns=("predicted", "mean", "[min, max]"), stored=stored, decimals=3)
    return head + ("\n" if stored is not None else
                   f", N = d = n = {max(runs.unique('N'))}\n") + table


def table_targets(labels=TARGET_LABELS, point=HEADLINE_POINT) -> str:
    """mu*, the information exponent, E[z g^2], E[z g^3], sup |g| and the prediction for
    each target at ``point`` (tanh), reused and fresh."""
    specs = {t: target_spec(t) for t in labels}
    lm = link_moments(specs, powers=(1, 2, 3))
    learn = learnability_table(specs, [("reused", *point), ("fresh", *point)])["learnable"]
    z = np.linspace(-12, 12, 4001)
    rows = [[name, fmt_fixed(lm["E_z_g1"][i], 3), str(lm["information_exponent"][i]),
             fmt_fixed(lm["E_z_g2"][i], 3), fmt_fixed(lm["E_z_g3"][i], 3),
             fmt(np.max(np.abs(make_link(specs[name])(z)))),
             *[_prediction_text(v) for v in learn[2 * i:2 * i + 2]]]
            for i, name in enumerate(labels)]
    return _text_table(["link", "mu*", "inf.exp.", "E[z g^2]", "E[z g^3]", "sup|g|", "reused?",
                        "fresh?"], rows)


# -- what the directions buy in prediction (E17) ---------------------------------------------
#: the readouts drawn: (result key's batch and weight, label, colour, marker, line style)
READOUT_SERIES = (("reused", "W0", "$W_0$ (no step)", "null", "D", ":"),
                  ("reused", "W1", "$W_1$ (one step)", "one_step", "^", "--"),
                  ("reused", "W2", "$W_2$, reused batch", "reused", "o", "-"),
                  ("fresh", "W2", "$W_2$, fresh batch", "fresh", "s", "-"))
READOUT_TARGET_NAME = {"he1": r"He$_1$", "he3": r"He$_3$", "he1+he3": r"He$_1$ + He$_3$"}


def readout_errors_by_N(runs: Runs | None, factor: int = 4,
                        targets: tuple[str, ...] = ("he1", "he1+he3"),
                        point: tuple[float, float] = READOUT_POINTS[0]):
    """E17 against N at one point (by default Lambda = 2, where reuse can reach He_3): one
    panel per target, stacked, the ridge readout's test error relative to Var y (mean over
    the seeds, 95% t interval) for W0, W1 and W2 of either batch, with n_train = ``factor``
    n. The chapter prints every target and both points at the largest N
    (:func:`table_readout`)."""
    if runs is None or not len(runs):
        return stored_runs_absent()
    a1, a2 = point
    targets = [t for t in targets if len(runs.where(target=t, alpha1=a1, alpha2=a2))]
    fig, axes = new_figure(nrows=len(targets), ncols=1, sharex=True, squeeze=False)
    Ns = sorted(runs.unique("N"))
    for i, t in enumerate(targets):
        ax = axes[i, 0]
        sel = runs.where(target=t, alpha1=a1, alpha2=a2)
        for batch, w, label, colour, marker, ls in READOUT_SERIES:
            key = f"{batch}_n{factor}_{w}"
            # a t interval over the seeds (NaN, so no bar, for a single seed)
            cis = [t_interval(np.asarray(sel.where(N=N).values(key), float)) for N in Ns]
            mean = np.array([c.mean for c in cis])
            lo, hi = np.array([c.low for c in cis]), np.array([c.high for c in cis])
            ax.errorbar(Ns, mean, yerr=[mean - lo, hi - mean], color=cplt.PALETTE[colour],
                        marker=marker, ls=ls, ms=6, capsize=2, label=label)
        log_axis(ax, Ns)
        ax.set_title(rf"{READOUT_TARGET_NAME[t]} target, $(\alpha_1, \alpha_2) = "
                     rf"({a1:.2f}, {a2:.2f})$, $\Lambda = {lambda_count(a1, a2)}$")
        ax.set_ylabel("test error / Var $y$")
    axes[-1, 0].set_xlabel(r"width $N = d = n$")
    _legend_below(fig, axes[0, 0], ncol=2)
    return _readable(fig)


def table_readout(runs: Runs | None, factor: int = 4) -> str:
    """The readout's relative test errors at the largest N (mean over the seeds) for every
    target and point: W0, W1, W2 of the reused and of the fresh batch, and W2 reused minus
    fresh with its 95% t interval over the seeds (paired: the two batches share W0, X1, y1)."""
    if runs is None or not len(runs):
        return "needs the stored paper-scale runs (switched off, or not computed yet)"
    N = max(runs.unique("N"))
    big = runs.where(N=N)
    rows = []
    for (a1, a2) in READOUT_POINTS:
        for t in READOUT_TARGETS:
            sel = big.where(target=t, alpha1=a1, alpha2=a2)
            if not len(sel):
                continue
            cells = [fmt_fixed(sel.mean(f"{b}_n{factor}_{w}"), 3)
                     for b, w in (("reused", "W0"), ("reused", "W1"), ("reused", "W2"),
                                  ("fresh", "W2"))]
            gap = t_interval(np.asarray(sel.values(f"reused_n{factor}_W2"), float)
                             - np.asarray(sel.values(f"fresh_n{factor}_W2"), float))
            rows.append([t.replace("he", "He_"), f"{lambda_count(a1, a2)}", *cells,
                         f"{fmt_fixed(gap.mean, 3, signed=True)} "
                         f"{fmt_interval(gap.low, gap.high, 3, signed=True)}"])
    points = "; ".join(f"Lambda {lambda_count(a1, a2)} at ({a1:.2f}, {a2:.2f})"
                       for a1, a2 in READOUT_POINTS)
    head = (f"relative test error, N = {N}, n_train = {factor}n, "
            f"{len(big.unique('seed'))} seeds\n{points}")
    parts = []
    mixed = runs.where(target="he1+he3", alpha1=READOUT_POINTS[0][0],
                       alpha2=READOUT_POINTS[0][1])
    for n in sorted(mixed.unique("N")):
        sel = mixed.where(N=n)
        gap = t_interval(np.asarray(sel.values(f"reused_n{factor}_W2_parts"), float)[:, 1]
                         - np.asarray(sel.values(f"fresh_n{factor}_W2_parts"), float)[:, 1])
        parts.append([str(n), f"{fmt_fixed(gap.mean, 3, signed=True)} "
                              f"{fmt_interval(gap.low, gap.high, 3, signed=True)}"])
    return (head + "\n" + _text_table(["target", "Lambda", "W0", "W1", "W2 reused",
                                       "W2 fresh", "reused - fresh, 95%"], rows)
            + "\n\nHe_3 part of He_1+He_3 (Lambda 2), W2 reused - fresh, 95%:\n"
            + _text_table(["N", "relative error"], parts))
