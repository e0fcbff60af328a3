"""Checkable answers to the intro's exercises (book/intro.ipynb, section "Exercises").
Each expected value is computed by :mod:`companion.theory` when it is checked."""

from __future__ import annotations

from ..activations import shifted_tanh
from ..theory import lambda_boundary, n_spikes, phase_line
from ._answer import Answer

ANSWERS = {
    "intro-ex-tanh/alpha2": Answer(
        what="the smallest alpha2 at which tanh has three outliers in all when alpha1 = 0.40",
        # tanh keeps only even orders: its third outlier is the term k = 4 (book: dv-parity)
        expected=lambda: float(lambda_boundary(4, 0.40)),
        rtol=0.0, atol=5e-3,
        hint="with tanh only the even orders k make outliers; which k is the third outlier?"),
    "intro-ex-tanh/generic": Answer(
        what="the number of outliers of an activation with every order at that point",
        expected=lambda: n_spikes(0.40, float(lambda_boundary(4, 0.40)), shifted_tanh()),
        kind="integer",
        hint="every order k = 1..Lambda adds one outlier to the first spike."),
    "intro-ex-line": Answer(
        what="the order k of the phase line through (0.45, 0.45)",
        expected=lambda: phase_line(0.45, 0.45), kind="integer",
        hint="solve alpha2 = k (1/2 - alpha1) for k."),
}
