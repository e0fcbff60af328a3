"""Checkable answers to the exercises of book/reuse_vs_fresh.ipynb (section "Exercises"). Each expected
value is computed by the package when it is checked (:mod:`companion.exercises`)."""

from __future__ import annotations

from ._answer import Answer

ANSWERS: dict[str, Answer] = {}
