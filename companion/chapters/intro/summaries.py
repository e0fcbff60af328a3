"""The numbers of the introduction (book/intro.ipynb): the step-size points of "How the
companion reads the paper" (``intro-conj-count``, ``intro-conj-he3``)."""

from __future__ import annotations

from companion.core.theory import (
    KNIFE_EDGE,
    lambda_count,
    nearest_line,
    phase_line,
    spike_exponent,
)
from companion.presentation.book import Numbers, fmt_fixed, fmt_signed


def step_sizes() -> Numbers:
    """The counts and exponents the introduction quotes for its step-size points: Lambda at
    (0.20, 0.45) and (0.35, 0.45) (``tm-thm-count``), the phase line of (0.35, 0.45),
    and the exponents of the terms k = 2 there and k = 3 at (0.38, 0.45)
    (``conj-w2-expansion``); ``edge_k``, ``edge_exponent``: the phase line nearest to
    (0.38, 0.45) and its term's exponent (:func:`companion.core.theory.nearest_line`), within
    ``knife_edge`` of zero."""
    k, e = nearest_line(0.38, 0.45)
    return Numbers(edge_k=k, edge_exponent=fmt_signed(e), knife_edge=fmt_fixed(KNIFE_EDGE),
                   lambda_low=lambda_count(0.20, 0.45),
                   lambda_high=lambda_count(0.35, 0.45),
                   line_k=phase_line(0.35, 0.45),
                   exponent_k2=fmt_signed(spike_exponent(0.35, 0.45, 2)),
                   exponent_k3=fmt_signed(spike_exponent(0.38, 0.45, 3)))
