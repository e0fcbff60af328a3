"""Exercises that check themselves (issue 12): ``check(label, answer)`` compares a student's
answer with the companion's value and says whether it is right, or how far off and in which
direction, without printing the value itself.

Every exercise of the book has a label (``os-ex-psi``, ...). Where its answer is a number,
a count, or a function, the chapter's module here registers an :class:`Answer` under that
label (or under ``label/part`` for an exercise with several parts). The expected value is
*computed* by the package when it is checked (``expected`` is a function), never typed::

    from companion.exercises import check
    check("os-ex-psi", 0.8)          # -> "Right: ..." or "Not yet: ... too high by 12% ..."

A :class:`Feedback` is truthy when the answer is right, so tests can ``assert check(...)``;
in a notebook it shows as its message. ``check(label, ...)`` (an Ellipsis, the starter cells'
placeholder) says that no answer is given yet.
"""

from __future__ import annotations

from typing import Any

from . import finite_size, intro, one_step, reuse_vs_fresh, two_steps
from ._answer import Answer, Feedback, compare

#: label (or label/part) -> Answer, over the whole book
ANSWERS: dict[str, Answer] = {}
for _module in (intro, one_step, two_steps, reuse_vs_fresh, finite_size):
    for _label, _answer in _module.ANSWERS.items():
        if _label in ANSWERS:
            raise RuntimeError(f"exercise answer {_label!r} is registered twice")
        ANSWERS[_label] = _answer


def check(label: str, answer: Any = ...) -> Feedback:
    """Check ``answer`` to the exercise (part) ``label``; see the module's docstring.

    Raises ``KeyError`` naming the known labels when ``label`` has no checker."""
    if label not in ANSWERS:
        near = sorted(k for k in ANSWERS if k.split("/")[0] == label.split("/")[0])
        hint = (f"; this exercise has the parts {', '.join(near)}" if near
                else f"; the checkable exercises are {', '.join(sorted(ANSWERS))}")
        raise KeyError(f"no checker for the exercise {label!r}{hint}")
    return compare(ANSWERS[label], answer)


__all__ = ["ANSWERS", "Answer", "Feedback", "check"]
