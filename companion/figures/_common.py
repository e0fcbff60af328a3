"""Helpers shared by the figure modules: a figure in the book's style, and results grouped
over seeds."""

from __future__ import annotations

import numpy as np

from ..runs import Runs


def _new_figure(nrows=1, ncols=1, **kw):
    from .. import plotting as cplt
    cplt.set_book_style()
    return cplt.subplots(nrows, ncols, **kw)


def _as_tuples(runs: Runs) -> list:
    return [(r.params, r.seed, r.result) for r in runs]


def _stack(results, key, select=lambda p, s: True):
    return np.array([np.asarray(r[key], float) for p, s, r in results if select(p, s)])


def _group(results, key, by, value_of=None):
    """{group tuple: array of values over seeds} in order of first appearance."""
    groups: dict[tuple, list] = {}
    for p, s, r in results:
        g = tuple(p[b] for b in by)
        groups.setdefault(g, []).append(float(np.asarray(r[key])) if value_of is None
                                        else value_of(p, r))
    return {g: np.array(v) for g, v in groups.items()}


def _spread(v, axis=0):
    return np.mean(v, axis=axis), np.std(v, axis=axis)
