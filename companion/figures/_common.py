"""Helpers shared by the figure modules: a figure in the book's style."""

from __future__ import annotations


def _new_figure(nrows=1, ncols=1, **kw):
    from .. import plotting as cplt
    cplt.set_book_style()
    return cplt.subplots(nrows, ncols, **kw)
