"""Helpers shared by the figure modules: a figure in the book's style, a log axis of sizes,
the book's error bars over seeds (the range), and the one measure of a figure's text on a
phone (:func:`smallest_text`) with the one way to raise it (:func:`raise_small_text`)."""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
from matplotlib.text import Text

from companion.presentation import plotting as cplt

#: the width of the text column on a phone 390 px wide (CSS pixels; measured on the built
#: pages) and the smallest text a reader reads there (CSS pixels)
PHONE_COLUMN, PHONE_TEXT = 342, 8.0


def visible_texts(fig) -> list:
    """The texts of ``fig`` a reader sees (visible, not empty)."""
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def natural_width(fig) -> float:
    """The figure's width on the page at its natural size, in CSS pixels: its tight box
    with the saved padding on both sides (the book saves with ``bbox_inches="tight"``) at
    100 pixels an inch."""
    fig.draw_without_rendering()
    pad = mpl.rcParams["savefig.pad_inches"]
    return (fig.get_tightbbox().width + 2 * pad) * 100


def smallest_text(fig) -> float:
    """The smallest text of ``fig`` on a phone, in CSS pixels: its font size in pixels at
    the natural size times the width the phone shows it at (:data:`PHONE_COLUMN`) over the
    natural width."""
    scale = min(1.0, PHONE_COLUMN / natural_width(fig))
    return min(t.get_fontsize() for t in visible_texts(fig)) * 100 / 72 * scale


def raise_small_text(fig, size: float):
    """Every text of ``fig`` (tick labels, also those drawn later, titles, legends,
    annotations, colour bars) at least ``size`` points; larger text keeps its size. The
    chapters call it with their smallest size, chosen so that the text still measures
    :data:`PHONE_TEXT` on a phone (:func:`smallest_text`; the chapters' phone tests).
    Returns ``fig``."""
    for ax in fig.axes:
        for axis, which in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            ticks = axis.get_ticklabels()
            if (ticks[0].get_fontsize() if ticks else 0) < size:
                ax.tick_params(axis=which, labelsize=size)
    for text in fig.findobj(Text):
        if text.get_text() and text.get_fontsize() < size:
            text.set_fontsize(size)
    return fig


def new_figure(nrows=1, ncols=1, **kw):
    cplt.set_book_style()
    return cplt.subplots(nrows, ncols, **kw)


def _tick_label(n: int, kilo: bool) -> str:
    return f"{n // 1024}k" if kilo and n >= 1024 and n % 1024 == 0 else str(n)


def log_axis(ax, ticks, *, close: str | None = None, kilo: bool = False,
             pad: float | None = None, label: str | None = None) -> None:
    """A log x axis with a labelled tick at each of the sizes ``ticks`` and no minor ticks.

    ``close`` treats two sizes within 15% of each other (the chapter's 500 and the stored
    512): ``"blank"`` keeps the larger one's tick without its label, ``"drop"`` keeps only
    the larger one; ``None`` labels both. ``kilo`` writes 1024 multiples as "1k", "4k", ...;
    ``pad`` sets the limits to ``min / pad`` and ``max * pad``; ``label`` is the axis label.
    """
    sizes = sorted({int(t) for t in ticks})
    labels = [_tick_label(n, kilo) for n in sizes]
    if close == "drop":
        keep = [i for i, n in enumerate(sizes) if i + 1 == len(sizes) or sizes[i + 1] / n > 1.15]
        sizes, labels = [sizes[i] for i in keep], [labels[i] for i in keep]
    elif close == "blank":
        shown: list[int] = []
        for i, n in enumerate(sizes):
            if not shown or n > 1.15 * shown[-1]:
                shown.append(n)
            else:
                labels[i] = ""
    elif close is not None:
        raise ValueError(f"close must be None, 'blank' or 'drop', got {close!r}")
    ax.set_xscale("log")
    ax.set_xticks(sizes, labels)
    ax.minorticks_off()
    if pad is not None:
        ax.set_xlim(sizes[0] / pad, sizes[-1] * pad)
    if label is not None:
        ax.set_xlabel(label)


def range_bars(groups, center: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    """The centre of each group of values (one group per point, its values over the seeds)
    and the error-bar offsets of their range, ``[centre - min, max - centre]`` (shape
    ``(2, points)``): the book's bars over seeds. ``groups`` is a ``[point, seed]`` array or a
    list of 1-D arrays (the number of seeds may differ); ``center`` is ``"mean"`` or
    ``"geometric"`` (the geometric mean, for values drawn on a log axis)."""
    if center not in ("mean", "geometric"):
        raise ValueError(f"center must be 'mean' or 'geometric', got {center!r}")
    groups = [np.asarray(g, float).ravel() for g in groups]
    if center == "geometric":
        mid = np.array([np.exp(np.log(g).mean()) for g in groups])
    else:
        mid = np.array([g.mean() for g in groups])
    low = np.array([g.min() for g in groups])
    high = np.array([g.max() for g in groups])
    return mid, np.stack([mid - low, high - mid])


def stored_runs_absent():
    """A figure that says that the stored runs it draws are absent."""
    fig, ax = new_figure()
    ax.axis("off")
    ax.text(0.5, 0.5, "needs the stored paper-scale runs\n(switched off, or not computed yet)",
            transform=ax.transAxes, ha="center", va="center",
            fontsize=10, color="#555555")
    return fig
