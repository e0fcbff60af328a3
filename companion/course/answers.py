"""One checkable answer, the hashed form in which its value is stored, and the comparison that
turns a student's answer into feedback (see :mod:`companion.exercises`).

How the value is kept without being revealed. The package never holds an exercise's value:
the instructors' answer key (``publish/answer_key.py`` in the repository, not installed with the
package) computes it and stores, in ``key.json`` (package data), only salted, slow hashes of

* the *fine cells* around the value: the axis is cut into cells half a tolerance wide (on a
  scale where the tolerance ``atol + rtol |v|`` has about the same width everywhere), and the
  cells that meet the tolerance interval of the value are stored, padded to a fixed count with
  hashes nobody can tell from real ones. An answer is right when its own cell is among them:
  every answer within the tolerance is accepted, none farther than 1.5 tolerances;
* the *coarse cells* around it, each labelled: the value's own cell and its two neighbours
  ("near"), the cells below ("too low") and above ("too high") up to twelve cells away. A coarse
  cell is a factor of two wide (eight tolerances for an absolute tolerance, four whole numbers
  for a count), so the direction a wrong answer is told is true, and no number of wrong tries
  narrows the value below a coarse cell: the value and any other point of its coarse cell
  give the same feedback to every wrong answer (tests/test_checkers.py checks it);
* the fine cells of *likely mistakes* (the value one gets by forgetting a term, say), each
  with a sentence about the mistake that does not name the right value.

Hashing only slows down a search: a loop over guesses finds a value just as a loop over
``check`` calls would. What a grade rests on is the hidden tests of the autograded assignments
(``make assignments``), which students do not get.
"""

from __future__ import annotations

import hashlib
import math
import numbers
import textwrap
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from companion.presentation.book import fmt

#: PBKDF2 iterations per hash: every guess at a stored answer costs as much as one check of a
#: number, which a reader makes a few times and a search of the answer's range millions of times
ITERATIONS = 2000
#: fine cells per tolerance width, stored cells per value (padded), coarse cells each side
FINE_PER_TOL, FINE_STORED, COARSE_REACH = 2, 8, 12
#: coarse cell widths: a factor of 2 (relative tolerance), 8 tolerances (absolute), 4 (counts)
COARSE_LOG, COARSE_ABS, COARSE_INT = math.log(2.0), 8.0, 4
#: the scale below which a purely relative tolerance is not used
_TINY = 1e-9
#: how close to a whole number a count may be and still count as that number
WHOLE_RTOL = 1e-9


@dataclass(frozen=True)
class Answer:
    """What an exercise (part) asks for and how its answer is compared (never its value).

    * ``what``: the quantity, in words ("the level at which cos^2(v1, beta*) saturates");
    * ``kind``: ``"number"`` (within ``rtol``/``atol``), ``"integer"`` (a whole number, exact),
      ``"numbers"`` (a list, each within the tolerance) or ``"function"`` (a callable,
      compared at every point of ``points``, each a tuple of arguments; with ``rtol = atol =
      0`` its values are whole numbers);
    * ``hint``: one sentence shown with a wrong answer (where to look, not the value);
    * ``size``: how many numbers a ``"numbers"`` answer has.
    """

    what: str
    kind: str = "number"
    rtol: float = 0.02
    atol: float = 0.0
    points: Sequence[tuple] = ()
    hint: str = ""
    size: int = 1

    def __post_init__(self):
        if self.kind not in {"number", "integer", "numbers", "function"}:
            raise ValueError(f"Answer.kind must be number, integer, numbers or function, "
                             f"not {self.kind!r}")
        if self.kind == "function" and not self.points:
            raise ValueError("Answer of kind 'function' needs the points to compare at")
        if self.kind == "number" and self.rtol <= 0 and self.atol <= 0:
            raise ValueError("Answer of kind 'number' needs rtol > 0 or atol > 0")

    @property
    def whole(self) -> bool:
        """Whether each compared value is a whole number."""
        return self.kind == "integer" or (self.kind == "function" and not self.rtol
                                          and not self.atol)

    @property
    def entries(self) -> int:
        """How many numbers are compared (one per point of a function)."""
        return {"number": 1, "integer": 1, "numbers": self.size}.get(self.kind,
                                                                      len(self.points))

    def tolerance(self) -> str:
        if self.whole:
            return "exact"
        parts = ([f"{self.rtol:.0%}" if self.rtol >= 0.01 else f"{fmt(self.rtol)} relative"]
                 if self.rtol else []) + ([fmt(self.atol)] if self.atol else [])
        return " + ".join(parts)


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


# --- the cells and their hashes -------------------------------------------------------------

def salt(label: str, entry: int) -> str:
    """The public salt of one compared number (``entry``: its place in a list or the index of
    a function's test point)."""
    return f"two-vs-one-step/{label}/{entry}"


def digest(salt_: str, tag: str, cell: int) -> str:
    return hashlib.pbkdf2_hmac("sha256", f"{tag}:{cell}".encode(), salt_.encode(),
                               ITERATIONS)[:12].hex()


def _scale(spec: Answer, x: float) -> float:
    """A monotone map on which the tolerance is about one unit wide everywhere."""
    if not spec.rtol:
        return x / spec.atol
    a = spec.atol / spec.rtol if spec.atol else _TINY
    return math.asinh(x / a) / spec.rtol


def fine_cell(spec: Answer, x: float) -> int:
    if spec.whole:
        return int(round(x))
    return math.floor(FINE_PER_TOL * _scale(spec, x))


def coarse_cell(spec: Answer, x: float) -> int:
    if spec.whole:
        return math.floor(round(x) / COARSE_INT)
    if not spec.rtol:
        return math.floor(x / spec.atol / COARSE_ABS)
    return math.floor(_scale(spec, x) * spec.rtol / COARSE_LOG)


def fine_cells(spec: Answer, value: float) -> list[int]:
    """The fine cells that meet the tolerance interval of ``value``."""
    if spec.whole:
        return [int(round(value))]
    tol = spec.atol + spec.rtol * abs(value)
    return list(range(fine_cell(spec, value - tol), fine_cell(spec, value + tol) + 1))


def key_entry(spec: Answer, label: str, entry: int, value: float,
              mistakes: Sequence[tuple[float, int]] = ()) -> dict:
    """The stored form of one compared number: hashes only (used by publish/answer_key.py).

    ``mistakes``: (the value a likely mistake gives, the mistake's index)."""
    s = salt(label, entry)
    cells = fine_cells(spec, value)
    if len(cells) > FINE_STORED:
        raise ValueError(f"{label}: {len(cells)} fine cells, more than {FINE_STORED}")
    fine = [digest(s, "f", c) for c in cells]
    # padding that only someone who knows the value can tell from real cells
    centre = hashlib.sha256(f"{s}|pad|{cells[len(cells) // 2]}".encode()).hexdigest()
    fine += [hashlib.sha256(f"{centre}|{i}".encode()).hexdigest()[:24]
             for i in range(FINE_STORED - len(cells))]
    home = coarse_cell(spec, value)
    coarse = {}
    for j in range(-COARSE_REACH, COARSE_REACH + 1):
        word = "near" if abs(j) <= 1 else ("low" if j < 0 else "high")
        coarse[digest(s, "c", home + j)] = word
    wrong: dict[str, list[int]] = {}
    for mistake_value, index in mistakes:
        for c in fine_cells(spec, mistake_value):
            wrong.setdefault(digest(s, "f", c), []).append(index)
    return {"fine": sorted(fine), "coarse": dict(sorted(coarse.items())),
            "mistakes": {h: sorted(set(v)) for h, v in sorted(wrong.items())}}


# --- reading a student's answer ---------------------------------------------------------------

class _Unfit(Exception):
    """An answer of the wrong type or shape; the message says what was given."""


def _describe(x: Any) -> str:
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape}"
    if isinstance(x, (list, tuple, set, dict)):
        n = len(x)
        return f"a {type(x).__name__} of {n} item{'s' if n != 1 else ''}"
    return f"a value of type {type(x).__name__}"


def _number(x: Any, whole: bool) -> float:
    """One finite number (a whole one if ``whole``), or :class:`_Unfit` saying why not."""
    if x is None:
        raise _Unfit("None is not a number (a function without `return` gives None)")
    if x is ...:
        raise _Unfit("... is still the placeholder, not a number")
    if isinstance(x, (str, bytes)):
        raise _Unfit(f"the string {x!r} is not a number: write the number (or the "
                     f"expression) without quotes")
    if isinstance(x, (bool, np.bool_)):
        raise _Unfit(f"{x} is a truth value, not a number")
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, (np.ndarray, list, tuple, set, dict)):
        raise _Unfit(f"{_describe(x)} is not one number: give the number itself "
                     f"(for example x[0] or float(x) if it holds one)")
    if isinstance(x, numbers.Complex) and not isinstance(x, numbers.Real):
        raise _Unfit(f"{x!r} is a complex number; the answer is real")
    if not isinstance(x, numbers.Real):
        try:
            x = float(x)
        except (TypeError, ValueError):
            raise _Unfit(f"{_describe(x)} is not a number") from None
    value = float(x)
    if math.isnan(value):
        raise _Unfit("nan is not a number (a 0/0 or a failed computation upstream?)")
    if math.isinf(value):
        raise _Unfit(f"{value} is not a finite number")
    if whole and abs(value - round(value)) > WHOLE_RTOL * max(1.0, abs(value)):
        raise _Unfit(f"{fmt(value, 6)} is not a whole number")
    return float(round(value)) if whole else value


def _numbers(x: Any, size: int) -> list[float]:
    if x is None or isinstance(x, (str, bytes, numbers.Number, np.generic)) or (
            isinstance(x, np.ndarray) and x.ndim == 0):
        raise _Unfit(f"{'None' if x is None else repr(x)} is not a list of {size} numbers")
    if isinstance(x, (set, dict)):
        raise _Unfit(f"{_describe(x)} has no order: give a list of {size} numbers")
    try:
        items = list(x)
    except TypeError:
        raise _Unfit(f"{_describe(x)} is not a list of {size} numbers") from None
    if isinstance(x, np.ndarray) and x.ndim != 1:
        raise _Unfit(f"an array of shape {x.shape} is not a flat list of {size} numbers")
    if len(items) != size:
        raise _Unfit(f"{len(items)} number{'s' if len(items) != 1 else ''} given, "
                     f"{size} asked for")
    values = []
    for i, item in enumerate(items):
        try:
            values.append(_number(item, False))
        except _Unfit as why:
            raise _Unfit(f"number {i + 1} of the list: {why}") from None
    return values


# --- the comparison -------------------------------------------------------------------------

#: what a wrong number is told: (in a sentence about the whole answer, in a list)
_DIRECTION = {"low": ("is too low for {what}", "too low"),
              "high": ("is too high for {what}", "too high"),
              "near": ("is close to {what} but not within the tolerance",
                       "close, but not within the tolerance"),
              None: ("is far from {what} (a missing factor, power or sign?)",
                     "far off (a missing factor, power or sign?)")}
_NEAR_WHOLE = ("is close to {what} but not it", "close, but not it")


def _verdict(spec: Answer, label: str, entry: int, stored: dict, value: float):
    """(right, direction word or None, the fine cell's hash) for one compared number."""
    s = salt(label, entry)
    cell = digest(s, "f", fine_cell(spec, value))
    if cell in stored["fine"]:
        return True, None, cell
    return False, stored["coarse"].get(digest(s, "c", coarse_cell(spec, value))), cell


def _where(spec: Answer, word: str | None, sentence: bool = False) -> str:
    phrases = _NEAR_WHOLE if spec.whole and word == "near" else _DIRECTION[word]
    return phrases[0].format(what=spec.what) if sentence else phrases[1]


def _show(spec: Answer, value: float) -> str:
    return f"{int(value)}" if spec.whole else fmt(value, 4)


def _hint(spec: Answer, mistakes: Sequence[str], matched: set[int]) -> str:
    if matched:
        return " A likely mistake: " + " ".join(mistakes[i] for i in sorted(matched))
    return f" Hint: {spec.hint}" if spec.hint else ""


def compare(spec: Answer, key: dict, label: str, answer: Any) -> Feedback:
    """The feedback on ``answer`` for ``spec`` and its stored ``key`` (hashes and the likely
    mistakes' sentences): right or not, the direction, a hint; never a distance."""
    if answer is ...:
        return Feedback(False, f"No answer yet: replace ... by {spec.what}.")
    entries, mistakes = key["entries"], key.get("mistakes", [])
    try:
        if spec.kind in ("number", "integer"):
            values = [_number(answer, spec.whole)]
        elif spec.kind == "numbers":
            values = _numbers(answer, spec.size)
        else:
            values = _function_values(spec, answer)
    except _Unfit as why:
        return Feedback(False, f"Not yet: {why}. Give {_kind(spec)}: {spec.what}.")
    verdicts = [_verdict(spec, label, i, entries[i], v) for i, v in enumerate(values)]
    if all(right for right, _, _ in verdicts):
        if spec.kind == "number":
            return Feedback(True, f"Right: {fmt(values[0], 4)} is {spec.what} "
                                  f"(within {spec.tolerance()} of the companion's value).")
        if spec.kind == "integer":
            return Feedback(True, f"Right: {int(values[0])} is {spec.what}.")
        if spec.kind == "numbers":
            return Feedback(True, f"Right: all {len(values)} numbers of {spec.what}.")
        return Feedback(True, f"Right: your function agrees with {spec.what} at all "
                              f"{len(spec.points)} test points.")
    # a likely mistake: every compared number sits in that mistake's cells
    matched = set(range(len(mistakes)))
    for (_, _, cell), stored in zip(verdicts, entries):
        matched &= set(stored["mistakes"].get(cell, []))
    hint = _hint(spec, mistakes, matched)
    if spec.kind in ("number", "integer"):
        return Feedback(False, f"Not yet: {_show(spec, values[0])} "
                               f"{_where(spec, verdicts[0][1], True)}.{hint}")
    wrong = [(i, v, word) for i, (v, (right, word, _)) in enumerate(zip(values, verdicts))
             if not right]
    if spec.kind == "numbers":
        shown = "; ".join(f"number {i + 1} ({_show(spec, v)}) is {_where(spec, w)}"
                          for i, v, w in wrong)
        return Feedback(False, f"Not yet ({spec.what}): {shown}.{hint}")
    shown = "; ".join(f"at {spec.points[i]} it gives {_show(spec, v)}, {_where(spec, w)}"
                      for i, v, w in wrong[:3])
    more = f"; and {len(wrong) - 3} more" if len(wrong) > 3 else ""
    return Feedback(False, f"Not yet: {len(wrong)} of {len(spec.points)} test points differ "
                           f"from {spec.what}: {shown}{more}.{hint}")


_KIND_WORDS = {"integer": "a whole number", "number": "one number"}


def _kind(spec: Answer) -> str:
    return _KIND_WORDS.get(spec.kind) or (f"a list of {spec.size} numbers"
                                          if spec.kind == "numbers" else "a function")


def compare_form(spec: Answer, answer: Any) -> Feedback:
    """Whether ``answer`` has the form asked for (a whole number, one number, a list of the
    right length, a function that returns a number at every test point), whatever its
    value: what an assignment's public tests check."""
    if answer is ...:
        return Feedback(False, f"No answer yet: replace ... by {spec.what}.")
    try:
        if spec.kind in ("number", "integer"):
            _number(answer, spec.whole)
        elif spec.kind == "numbers":
            _numbers(answer, spec.size)
        else:
            _function_values(spec, answer)
    except _Unfit as why:
        return Feedback(False, f"Not yet: {why}. Give {_kind(spec)}: {spec.what}.")
    return Feedback(True, f"Right form: {_kind(spec)}.")


def _function_values(spec: Answer, answer: Any) -> list[float]:
    if not callable(answer):
        raise _Unfit(f"{_describe(answer)} is not callable: define it with def (or lambda) "
                     f"and pass its name, without calling it")
    values = []
    for point in spec.points:
        try:
            got = answer(*point)
        except Exception as error:  # a student's function may raise anything: say which
            raise _Unfit(f"your function raised {type(error).__name__}"
                         f"{': ' + str(error) if str(error) else ''} when called with "
                         f"{point}") from None
        try:
            values.append(_number(got, spec.whole))
        except _Unfit as why:
            raise _Unfit(f"at {point}, {why}") from None
    return values


__all__ = ["Answer", "Feedback", "compare", "compare_form"]
