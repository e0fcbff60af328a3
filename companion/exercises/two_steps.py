"""Checkable answers to the exercises of book/two_steps.ipynb (section "Exercises"). Each expected
value is computed by the package when it is checked (:mod:`companion.exercises`)."""

from __future__ import annotations

from ._answer import Answer

ANSWERS: dict[str, Answer] = {}
