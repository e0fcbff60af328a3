"""The book's figure style, set in one place, and the few helpers every chapter uses.

A chapter calls :func:`set_book_style` once, near its top, and then draws with
:func:`theory_line` (theory: lines), :func:`sim_points` (simulation: markers with error
bars), :func:`mark_bulk_edge` and :func:`spectrum_histogram` (a histogram of singular values
with the Marchenko-Pastur law drawn over it). Colours come from :data:`PALETTE`, so "reused",
"fresh" and "theory" look the same in every chapter.

Conventions (see the introduction chapter, "Conventions for chapter authors"):

* no in-figure titles: the caption of the ``{glue:figure}`` says what the figure shows;
* axis labels are lowercase, with math in ``$...$`` (``"step size $\\eta$"``);
* the figure size and resolution are set here, once; chapters do not pass ``figsize``
  except through :func:`subplots`, which scales the book's size by the number of panels.

This module never selects a matplotlib backend (selecting ``Agg`` would make the book lose
every figure silently).
"""

from __future__ import annotations

from typing import Sequence

import matplotlib as mpl
import numpy as np

from companion.core.spectra import mp_singular_value_density as density

#: Colours used across the book (seaborn's colour-blind palette, fixed by role).
PALETTE: dict[str, str] = {
    "reused": "#0173B2",    # blue: second step on the same batch
    "fresh": "#DE8F05",     # orange: second step on an independent batch
    "theory": "#222222",    # near black: formulas, drawn as lines
    "one_step": "#029E73",  # green: the one-step reference W0 + (eta1 + eta2) G
    "null": "#949494",      # grey: null runs, bulk, chance level
    "accent": "#CC78BC",    # pink: a fourth series when needed
}

#: Activations, wherever several are compared (always with their own marker too): the one
#: place of their colour, marker and names. ``label``: a legend entry; ``name``: the short
#: name on axes, titles and in tables (mathtext); ``text``: the name in plain text (pages
#: that are not drawn by matplotlib). :func:`activation_name` reads ``name``.
ACTIVATION_STYLE: dict[str, dict] = {
    "tanh": {"color": "#CA9161", "marker": "o", "label": r"$\tanh$ (odd)", "name": r"$\tanh$",
             "text": "tanh"},
    "shifted_tanh": {"color": "#D55E00", "marker": "s", "label": r"$\tanh(z + 1/2)$",
                     "name": r"$\tanh(z + 1/2)$", "text": "tanh(z + 1/2)"},
    "gelu": {"color": "#56B4E9", "marker": "D", "label": "GELU", "name": "GELU",
             "text": "GELU"},
    "relu": {"color": "#FBAFE4", "marker": "v", "label": "ReLU", "name": "ReLU",
             "text": "ReLU"},
    # the polynomial activation of the blow-up (chapter "Finite size, honestly")
    "hermite:0,1,1,1": {"color": "#555555", "marker": "X",
                        "label": "He1+He2/√2+He3/√6", "name": "He1+He2/√2+He3/√6",
                        "text": "He1 + He2/√2 + He3/√6"},
}


def activation_name(activation: str) -> str:
    """The short name of an activation on axes and titles (``ACTIVATION_STYLE[...]["name"]``;
    the activation's own string for one without a style)."""
    return ACTIVATION_STYLE.get(activation, {}).get("name", activation)

#: The spike terms k = 0, 1, 2, 3, 4 (left vector a^{o(k+1)}): dark to light, one marker each.
TERM_STYLE: tuple[dict, ...] = (
    {"color": "#0B2545", "marker": "o"},     # navy: the first spike
    {"color": "#7B2D8E", "marker": "s"},     # purple
    {"color": "#1B998B", "marker": "D"},     # teal
    {"color": "#B8860B", "marker": "^"},     # dark gold
    {"color": "#A23B72", "marker": "v"},     # magenta
)

#: Figure width in inches: the book's text column (about 700 CSS pixels), so that a figure is
#: never shrunk to fit and its fonts show at their nominal size. Height: one panel row.
FIGSIZE: tuple[float, float] = (6.4, 4.0)
COLUMN_WIDTH: float = FIGSIZE[0]
ROW_HEIGHT: float = 3.0

#: Resolution of the PNG files written by ``reproduce`` (about twice the screen's).
DPI: int = 200


#: The colour-blind palette, in seaborn's order (the colour cycle of every axes).
COLORBLIND: tuple[str, ...] = ("#0173B2", "#DE8F05", "#029E73", "#D55E00", "#CC78BC",
                               "#CA9161", "#FBAFE4", "#949494", "#ECE133", "#56B4E9")

#: What ``seaborn.set_theme(context="notebook", style="whitegrid", palette="colorblind")``
#: writes into matplotlib's settings, as data: importing seaborn (and the scipy.stats it
#: imports) would be the largest part of a chapter's first cell, for settings alone. Left
#: out: seaborn's default colour map ``rocket``, which exists only once seaborn is imported
#: (every figure of the book names its colour map). tests/core/test_plotting.py checks that
#: seaborn still sets exactly these.
SEABORN_WHITEGRID: dict = {
    "axes.axisbelow": True, "axes.edgecolor": ".8", "axes.grid": True,
    "axes.labelcolor": ".15", "axes.linewidth": 1.25, "grid.color": ".8",
    "grid.linewidth": 1.0, "patch.edgecolor": "w", "patch.force_edgecolor": True,
    "text.color": ".15", "lines.solid_capstyle": "round",
    "font.sans-serif": ["Arial", "DejaVu Sans", "Liberation Sans", "Bitstream Vera Sans",
                        "sans-serif"],
    "xtick.bottom": False, "xtick.color": ".15", "ytick.left": False, "ytick.color": ".15",
    "xtick.major.size": 6.0, "xtick.major.width": 1.25, "xtick.minor.size": 4.0,
    "xtick.minor.width": 1.0, "ytick.major.size": 6.0, "ytick.major.width": 1.25,
    "ytick.minor.size": 4.0, "ytick.minor.width": 1.0,
    "axes.prop_cycle": mpl.cycler(color=list(COLORBLIND)),
    # the notebook context's font sizes (set_book_style sets its own over most of them)
    "font.size": 12.0, "axes.labelsize": 12.0, "axes.titlesize": 12.0,
    "xtick.labelsize": 11.0, "ytick.labelsize": 11.0, "legend.fontsize": 11.0,
    "legend.title_fontsize": 12.0,
}

#: seaborn's colour codes for the colour-blind palette: "b", "g", "r", "m", "y", "c" name
#: six of its colours and "k" a near black
COLOR_CODES: dict[str, str | tuple] = {
    **{code: COLORBLIND[i] for code, i in zip("bgrmyc", (0, 2, 3, 4, 8, 9))},
    "k": (0.1, 0.1, 0.1)}


def set_book_style() -> None:
    """Apply the book's figure style to matplotlib's global settings.

    Seaborn's ``whitegrid`` theme in the ``notebook`` context with the colour-blind
    palette (:data:`SEABORN_WHITEGRID`, :data:`COLOR_CODES`), readable font sizes, the
    figure size :data:`FIGSIZE` and resolution :data:`DPI`. Call it once near the top of a
    chapter, before the first figure. It is idempotent and touches no backend.
    """
    mpl.rcParams.update(SEABORN_WHITEGRID)
    for code, color in COLOR_CODES.items():
        mpl.colors.colorConverter.colors[code] = mpl.colors.to_rgb(color)
    mpl.rcParams.update({
        "figure.figsize": FIGSIZE,
        "figure.dpi": 100,
        "savefig.dpi": DPI,
        "savefig.bbox": "tight",
        # no text under 11 pt: a figure of the column's width (6.4 in) shows 342 CSS px wide
        # on a 390 px phone, where 11 pt is 8.1 px (10.5 pt was 7.8)
        "font.size": 11,
        "axes.labelsize": 12,
        "axes.titlesize": 12,
        "xtick.labelsize": 11,
        "ytick.labelsize": 11,
        "legend.fontsize": 11,
        "legend.frameon": False,
        "lines.linewidth": 2.0,
        "lines.markersize": 6.0,
        "errorbar.capsize": 3.0,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "figure.constrained_layout.use": True,
        # the SVG/PDF output does not depend on the run (no random ids)
        "svg.hashsalt": "companion",
    })
    _retina_inline()


def _retina_inline() -> None:
    """In a notebook, render inline figures as PNG at twice the resolution, displayed at
    their nominal size (sharp on high-density screens; the book shows the same output)."""
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:
        return
    if get_ipython() is not None:
        set_matplotlib_formats("retina")


def subplots(nrows: int = 1, ncols: int = 1, **kwargs):
    """``plt.subplots`` sized for the book's column: the width is always
    :data:`COLUMN_WIDTH` (panels side by side share it; prefer stacking rows when a panel
    would get narrower than about 3 inches), the height :data:`FIGSIZE` for one panel and
    :data:`ROW_HEIGHT` per row otherwise.

    Returns ``(fig, ax)`` exactly as :func:`matplotlib.pyplot.subplots` does. Extra keyword
    arguments (``sharex``, ``sharey``, ...) are passed through; ``figsize`` is not needed.
    """
    import matplotlib.pyplot as plt

    # never wider than the column: panels side by side share its width
    height = FIGSIZE[1] if nrows == 1 and ncols == 1 else ROW_HEIGHT * nrows + 0.4
    kwargs.setdefault("figsize", (COLUMN_WIDTH, height))
    return plt.subplots(nrows, ncols, **kwargs)


def theory_line(ax, x, y, label: str | None = None, color: str | None = None,
                linestyle: str = "-", **kwargs):
    """Draw a theoretical prediction as a line (the book draws theory as lines, always).

    ``color`` defaults to ``PALETTE["theory"]``; pass ``PALETTE["reused"]`` and a dashed
    ``linestyle`` when two theory curves share an axis. Returns the ``Line2D``.
    """
    color = PALETTE["theory"] if color is None else color
    kwargs.setdefault("zorder", 3)
    (line,) = ax.plot(np.asarray(x), np.asarray(y), linestyle=linestyle, color=color,
                      label=label, **kwargs)
    return line


def sim_points(ax, x, mean, spread=None, label: str | None = None, color: str | None = None,
               marker: str = "o", **kwargs):
    """Draw simulation results as markers with error bars (no connecting line).

    ``mean`` is the average over seeds at each ``x``; ``spread`` is the half-width of the
    error bar (for example the standard deviation over seeds), a scalar, an array like
    ``mean``, or a ``(2, len(x))`` array of lower and upper offsets; ``None`` draws markers
    only. Returns the ``ErrorbarContainer``.
    """
    kwargs.setdefault("zorder", 4)
    kwargs.setdefault("elinewidth", 1.2)
    kwargs.setdefault("markeredgecolor", "white")
    kwargs.setdefault("markeredgewidth", 0.8)
    # offsets of a (lower, upper) spread can be -1e-16 when the mean equals an end of it
    return ax.errorbar(np.asarray(x), np.asarray(mean),
                       yerr=None if spread is None else np.clip(np.asarray(spread), 0, None),
                       fmt=marker, linestyle="none", color=color, label=label, **kwargs)


def mark_bulk_edge(ax, edge: float, label: str | None = "bulk edge", axis: str = "x",
                   **kwargs):
    """Mark the edge of the Marchenko-Pastur bulk, ``1 + sqrt(phi)`` for W0.

    ``axis="x"`` draws a vertical line at ``x = edge`` (singular values on the x axis, as in
    a histogram); ``axis="y"`` a horizontal line at ``y = edge`` (a singular value plotted
    against a parameter). Returns the line.
    """
    kwargs.setdefault("color", PALETTE["null"])
    kwargs.setdefault("linestyle", "--")
    kwargs.setdefault("linewidth", 1.3)
    kwargs.setdefault("zorder", 2)
    if axis == "x":
        return ax.axvline(edge, label=label, **kwargs)
    if axis == "y":
        return ax.axhline(edge, label=label, **kwargs)
    raise ValueError(f"mark_bulk_edge: axis must be 'x' or 'y', not {axis!r}")


def mp_singular_value_density(s, phi: float):
    """The Marchenko-Pastur singular-value density drawn by :func:`spectrum_histogram`.

    One source of truth: this is ``companion.core.spectra.mp_singular_value_density`` (imported
    lazily, so this module imports without the numerical code).
    """

    return density(s, phi)


def spectrum_histogram(ax, singular_values: Sequence[float], phi: float,
                       outliers_edge: float | None = None, bins: int | None = None,
                       label: str = "singular values", color: str | None = None):
    """Histogram of singular values with the Marchenko-Pastur law drawn over it.

    ``singular_values`` are the nonzero singular values of an N x d weight matrix whose
    bulk is that of W0 (iid N(0, 1/d) entries), ``phi = N / d``. The histogram is
    normalised as a density over all values given; the Marchenko-Pastur singular-value
    density (:func:`mp_singular_value_density`) is drawn as a theory line over the bulk.

    If ``outliers_edge`` is given (usually the bulk edge ``1 + sqrt(phi)``, or the largest
    singular value of a null run), the edge is marked with :func:`mark_bulk_edge`, the
    histogram bins cover only the values up to the edge (an outlier far away does not
    widen the bins of the bulk), and the values beyond it are drawn as diamonds on the x
    axis with their count in the legend. When outliers sit far beyond the bulk
    (eta ~ N^alpha), a log x axis (``ax.set_xscale("log")``) keeps both readable. Returns the
    number of values beyond ``outliers_edge`` (0 if None).
    """
    s = np.sort(np.asarray(singular_values, dtype=float))
    color = PALETTE["null"] if color is None else color
    bulk = s if outliers_edge is None else s[s <= outliers_edge]
    outliers = s[:0] if outliers_edge is None else s[s > outliers_edge]

    # Normalise so the bars integrate to len(bulk)/len(s), as the density of all values.
    if bins is None:
        bins = int(np.clip(len(bulk) // 20, 15, 60))
    weights = np.full(bulk.shape, 1.0 / max(len(s), 1))
    counts, edges = np.histogram(bulk, bins=bins, weights=weights)
    widths = np.diff(edges)
    ax.bar(edges[:-1], counts / widths, width=widths, align="edge", color=color, alpha=0.45,
           linewidth=0, label=label, zorder=1)

    lo, hi = abs(1.0 - np.sqrt(phi)), 1.0 + np.sqrt(phi)
    grid = np.linspace(lo, hi, 400)
    theory_line(ax, grid, mp_singular_value_density(grid, phi),
                label=rf"Marchenko-Pastur, $\phi = {phi:g}$")

    if outliers_edge is not None:
        mark_bulk_edge(ax, outliers_edge, label="outlier threshold")
        if len(outliers):
            ax.plot(outliers, np.zeros_like(outliers), marker="D", linestyle="none",
                    color=PALETTE["reused"], markersize=7, clip_on=False, zorder=5,
                    label=f"{len(outliers)} outlier{'s' if len(outliers) != 1 else ''}")
    ax.set_xlabel("singular value")
    ax.set_ylabel("density")
    ax.set_ylim(bottom=0)
    ax.legend(loc="best")
    return int(len(outliers))
