"""Exercises that check themselves: ``check(label, answer)`` says whether a student's answer is
right and, if not, in which direction it is off and what the likely mistake is, without ever
giving the answer, a distance to it or a ratio from which it follows.

Every exercise of the book has a label (``os-ex-psi``, ...). Where its answer is a number,
a count, a list of numbers or a function, the chapter's module here registers an
:class:`Answer` under that label (or under ``label/part`` for an exercise with several parts):
what is asked, how it is compared (tolerance, test points) and a hint. The values themselves
are not in the package: the instructors' answer key (``publish/answer_key.py`` in the
repository) computes them with the package and stores only their salted hashes in ``key.json``
(what that does and does not reveal: :mod:`companion.course.answers`)::

    from companion.exercises import check
    check("os-ex-psi", 0.8)          # -> "Right: ..." or "Not yet: 0.9 is too high for ..."

A :class:`Feedback` is truthy when the answer is right, so tests can ``assert check(...)``;
in a notebook it shows as its message. ``check(label, ...)`` (an Ellipsis, the starter cells'
placeholder) says that no answer is given yet.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from companion.chapters.finite_size import exercises as finite_size
from companion.chapters.intro import exercises as intro
from companion.chapters.learned_directions import exercises as learned_directions
from companion.chapters.one_step import exercises as one_step
from companion.chapters.reuse_vs_fresh import exercises as reuse_vs_fresh
from companion.chapters.two_steps import exercises as two_steps
from companion.course.answers import Answer, Feedback, compare, compare_form

#: label (or label/part) -> Answer, over the whole book
ANSWERS: dict[str, Answer] = {}
for _module in (intro, one_step, two_steps, learned_directions, reuse_vs_fresh, finite_size):
    for _label, _spec in _module.ANSWERS.items():
        if _label in ANSWERS:
            raise RuntimeError(f"exercise answer {_label!r} is registered twice")
        ANSWERS[_label] = _spec


def _spec(label: str) -> Answer:
    if not isinstance(label, str) or label not in ANSWERS:
        near = sorted(k for k in ANSWERS if isinstance(label, str)
                      and k.split("/")[0] == label.split("/")[0])
        hint = (f"; this exercise has the parts {', '.join(near)}" if near
                else f"; the checkable exercises are {', '.join(sorted(ANSWERS))}")
        raise KeyError(f"no checker for the exercise {label!r}{hint}")
    return ANSWERS[label]


@functools.cache
def key() -> dict:
    """The hashed key of every answer (package data ``key.json``, written by
    ``publish/answer_key.py``), read when first needed."""
    return json.loads(resources.files(__name__).joinpath("key.json").read_text())


def check(label: str, answer: Any = ...) -> Feedback:
    """Check ``answer`` to the exercise (part) ``label``; see the module's docstring.

    Raises ``KeyError`` naming the known labels when ``label`` has no checker."""
    spec = _spec(label)
    return compare(spec, key()[label], label, answer)


def check_form(label: str, answer: Any = ...) -> Feedback:
    """Whether ``answer`` has the form the exercise (part) ``label`` asks for (a whole
    number, one number, a list of so many numbers, a function that returns a number at the
    test points), whatever its value: the public tests of the autograded assignments."""
    return compare_form(_spec(label), answer)


__all__ = ["ANSWERS", "Answer", "Feedback", "check", "check_form"]
