"""One checkable answer, and the comparison that turns a student's answer into feedback
(see :mod:`companion.exercises`)."""

from __future__ import annotations

import math
import numbers
import textwrap
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np


@dataclass(frozen=True)
class Answer:
    """What an exercise (part) asks for and how to check it.

    * ``what``: the quantity, in words ("the level at which cos^2(v1, beta*) saturates");
    * ``expected``: a function of no arguments that computes the right answer with the
      package (a number, an integer, a tuple of numbers, or a function when ``kind`` is
      ``"function"``);
    * ``kind``: ``"number"`` (within ``rtol``/``atol``), ``"integer"`` (exact),
      ``"numbers"`` (a sequence, each within the tolerance) or ``"function"`` (a callable,
      compared with ``expected()`` at every point of ``points``, each a tuple of arguments);
    * ``hint``: one sentence shown with a wrong answer (where to look, not the value).
    """

    what: str
    expected: Callable[[], Any]
    kind: str = "number"
    rtol: float = 0.02
    atol: float = 0.0
    points: Sequence[tuple] = ()
    hint: str = ""

    def __post_init__(self):
        if self.kind not in {"number", "integer", "numbers", "function"}:
            raise ValueError(f"Answer.kind must be number, integer, numbers or function, "
                             f"not {self.kind!r}")
        if self.kind == "function" and not self.points:
            raise ValueError("Answer of kind 'function' needs the points to compare at")


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer: truthy when right; shows as its message."""

    right: bool
    message: str

    def __bool__(self) -> bool:
        return self.right

    def __repr__(self) -> str:
        # wrapped to the book's code column (76 characters), like every shown output
        return textwrap.fill(self.message, width=76, break_on_hyphens=False)

    __str__ = __repr__


def _off(value: float, target: float, absolute: bool = False) -> str:
    """'too high by 12%' / 'too low by 0.031' / 'too low by 2' (``absolute``: counts): relative
    when the target is not near zero."""
    direction = "too high" if value > target else "too low"
    if absolute:
        return f"{direction} by {abs(value - target):g}"
    if abs(target) > 1e-12:
        rel = abs(value - target) / abs(target)
        size = f"{rel:.0%}" if rel >= 0.01 else f"{rel:.1%}"
        return f"{direction} by {size}"
    return f"{direction} by {abs(value - target):.2g}"


def _as_number(answer: Any) -> float | None:
    if isinstance(answer, (bool, np.bool_)) or not isinstance(answer, numbers.Real):
        try:
            answer = float(np.asarray(answer).item())
        except (TypeError, ValueError):
            return None
    answer = float(answer)
    return answer if math.isfinite(answer) else None


def _tolerance(spec: Answer) -> str:
    parts = ([f"{spec.rtol:.0%}"] if spec.rtol else []) + ([f"{spec.atol:g}"] if spec.atol else [])
    return " + ".join(parts) or "rounding"


def _close(value: float, target: float, rtol: float, atol: float) -> bool:
    return abs(value - target) <= atol + rtol * abs(target)


def compare(spec: Answer, answer: Any) -> Feedback:
    """The feedback on ``answer`` for ``spec`` (never the expected value itself)."""
    if answer is ...:
        return Feedback(False, f"No answer yet: replace ... by {spec.what}.")
    hint = f" Hint: {spec.hint}" if spec.hint else ""
    expected = spec.expected()
    if spec.kind == "integer":
        value = _as_number(answer)
        if value is None or value != int(value):
            return Feedback(False, f"Not yet: {spec.what} is a whole number, "
                                   f"got {answer!r}.{hint}")
        if int(value) == int(expected):
            return Feedback(True, f"Right: {int(value)} is {spec.what}.")
        return Feedback(False, f"Not yet: {int(value)} is {_off(value, expected, True)} "
                               f"for {spec.what}.{hint}")
    if spec.kind == "number":
        value = _as_number(answer)
        if value is None:
            return Feedback(False, f"Not yet: {spec.what} is one finite number, "
                                   f"got {answer!r}.{hint}")
        if _close(value, float(expected), spec.rtol, spec.atol):
            return Feedback(True, f"Right: {value:.4g} is {spec.what} "
                                  f"(within {_tolerance(spec)} of the companion's value).")
        return Feedback(False, f"Not yet: {value:.4g} is {_off(value, float(expected))} "
                               f"for {spec.what}.{hint}")
    if spec.kind == "numbers":
        try:
            values = [float(v) for v in np.ravel(np.asarray(answer, dtype=float))]
        except (TypeError, ValueError):
            return Feedback(False, f"Not yet: {spec.what} is a list of numbers, "
                                   f"got {answer!r}.{hint}")
        targets = [float(v) for v in np.ravel(expected)]
        if len(values) != len(targets):
            return Feedback(False, f"Not yet: {spec.what} has {len(targets)} numbers, "
                                   f"got {len(values)}.{hint}")
        wrong = [f"number {i + 1} is {_off(v, t)}" for i, (v, t) in enumerate(zip(values, targets))
                 if not _close(v, t, spec.rtol, spec.atol)]
        if not wrong:
            return Feedback(True, f"Right: all {len(values)} numbers of {spec.what}.")
        return Feedback(False, f"Not yet ({spec.what}): {'; '.join(wrong)}.{hint}")
    # a function, compared at the points
    if not callable(answer):
        return Feedback(False, f"Not yet: {spec.what} is a function, got {answer!r}.{hint}")
    reference = expected
    wrong = []
    for point in spec.points:
        try:
            got = answer(*point)
        except Exception as error:  # a student's function may raise anything: say which
            return Feedback(False, f"Not yet: your function raised {type(error).__name__}: "
                                   f"{error} at {point}.{hint}")
        want = reference(*point)
        got_v, want_v = _as_number(got), float(want)
        if got_v is None or not _close(got_v, want_v, spec.rtol, spec.atol):
            shown = got if got_v is None else f"{got_v:.4g}"
            where = ("not a number" if got_v is None else _off(got_v, want_v))
            wrong.append(f"at {point} it gives {shown}, {where}")
    if not wrong:
        return Feedback(True, f"Right: your function agrees with {spec.what} at all "
                              f"{len(spec.points)} test points.")
    shown = "; ".join(wrong[:3]) + (f"; and {len(wrong) - 3} more" if len(wrong) > 3 else "")
    return Feedback(False, f"Not yet: {len(wrong)} of {len(spec.points)} test points differ "
                           f"from {spec.what}: {shown}.{hint}")
