"""Headline points and exercise answers are off the phase lines or say that they are on (or
next to) one (issue 19's knife edges; book: dv-exponents).

A term whose growth exponent is within ``KNIFE_EDGE`` of zero neither grows nor vanishes at
the sizes one can run, so a count there is decided by a constant, not by N. Every
(alpha1, alpha2) a chapter's prose writes, every point of the stored experiments the
chapters read, and every exercise answer that is a point must be at least ``KNIFE_EDGE``
from every phase line (every order k >= 1, as for an activation with every order), or be
listed in ``NEAR_LINE`` below; then each chapter that writes it must name that line
("line" and "k = K" in a markdown cell that holds the point, or in the cell after it),
unless ``NOT_MARKED`` gives the reason it need not.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from companion.chapters.learned_directions.experiments import E12_POINTS
from companion.chapters.learned_directions.transects import E14_POINTS
from companion.chapters.two_steps.experiments import (
    E3_POINTS,
    E4_PAIRS,
    E5_PAIRS,
    EMERGENCE_NEAR_LINES,
    EMERGENCE_POINTS,
)
from companion.core.theory import KNIFE_EDGE, nearest_line
from publish import answer_key

ROOT = Path(__file__).resolve().parents[3]

CHAPTERS = ("intro", "one_step", "two_steps", "reuse_vs_fresh", "finite_size")
POINT = re.compile(r"\((0\.\d+),\s*(0\.\d+)\)")

#: the points on or next to a phase line: (alpha1, alpha2) -> the order k of that line
NEAR_LINE = {(0.35, 0.45): 3, (0.45, 0.45): 9, (0.45, 0.30): 6, (0.40, 0.40): 4,
             **EMERGENCE_NEAR_LINES}
#: (chapter, point): why that chapter need not name the line
NOT_MARKED = {
    ("finite_size", (0.38, 0.45)): "fs-ex-bbp asks about the k = 2 term there (exponent "
                                   "+0.21); the k = 4 term plays no part in it",
}


EVAL = re.compile(r"\{eval\}`([^`]+)`")


def _with_values(cell) -> str:
    """The cell's text with each {eval} role replaced by its stored value (what a reader
    sees; python -m publish execute stores them)."""
    stored = {e["expression"]: e["result"]["data"]["text/plain"]
              for e in cell.metadata.get("user_expressions", [])
              if e["result"].get("status") == "ok"}
    return EVAL.sub(lambda m: stored.get(m.group(1), m.group(0)), cell.source)


def _markdown(chapter: str) -> list[str]:
    nb = nbformat.read(ROOT / "book" / f"{chapter}.ipynb", as_version=4)
    return [_with_values(c) for c in nb.cells if c.cell_type == "markdown"]


def _points(text: str) -> set[tuple[float, float]]:
    return {(float(a), float(b)) for a, b in POINT.findall(text)
            if float(a) < 0.5 and float(b) < 0.5}


def _exercise_answer_points() -> dict[str, tuple[float, float]]:
    """The exercise answers that are a point of the phase diagram (computed by the answer
    key, never typed here)."""
    return {"intro-ex-tanh": (0.40, round(answer_key.EXPECTED["intro-ex-tanh/alpha2"](), 6))}


def _all_points() -> dict[tuple[float, float], set[str]]:
    where: dict[tuple[float, float], set[str]] = {}
    for chapter in CHAPTERS:
        for text in _markdown(chapter):
            for p in _points(text):
                where.setdefault(p, set()).add(chapter)
    stored = {"E3": E3_POINTS, "E4": E4_PAIRS, "E5": E5_PAIRS, "E11": EMERGENCE_POINTS,
              "E12": E12_POINTS, "E14": E14_POINTS}
    for experiment, points in stored.items():
        for p in points:
            where.setdefault(tuple(map(float, p)), set()).add(experiment)
    for label, p in _exercise_answer_points().items():
        where.setdefault(p, set()).add(label)
    return where


def test_every_point_is_off_the_lines_or_listed():
    where = _all_points()
    assert (0.38, 0.45) in where and (0.40, 0.40) in where and len(where) >= 10
    for p, sources in sorted(where.items()):
        k, e = nearest_line(*p)
        if p in NEAR_LINE:
            assert k == NEAR_LINE[p] and abs(e) < KNIFE_EDGE, (p, k, e)
        else:
            assert abs(e) >= KNIFE_EDGE - 1e-9, (
                f"{p} (in {sorted(sources)}) is within {KNIFE_EDGE} of the line k = {k} "
                f"(exponent {e:+.3f}): move it or list it in NEAR_LINE and say so in the text")


def _names_line(text: str, k: int) -> bool:
    plain = text.replace("$", "").replace("{", "").replace("}", "")
    return "line" in plain and re.search(rf"(k\s*=\s*|order ){k}\b", plain) is not None


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_each_chapter_names_the_line_of_a_near_line_point(chapter):
    cells = _markdown(chapter)
    for p, k in NEAR_LINE.items():
        holding = [i for i, text in enumerate(cells) if p in _points(text)]
        if not holding or (chapter, p) in NOT_MARKED:
            continue
        assert any(_names_line(cells[i] + "\n" + (cells[i + 1] if i + 1 < len(cells) else ""),
                               k) for i in holding), (
            f"{chapter} writes {p}, which is on or next to the line k = {k}, "
            "without naming that line")


def test_the_exercise_on_a_line_says_so():
    """intro-ex-tanh's answer is on the k = 4 line and ts-ex-delta's point on the k = 6
    line: the exercise or its solution names the line."""
    for chapter, label, k in (("intro", "intro-ex-tanh", 4), ("two_steps", "ts-ex-delta", 6)):
        text = "\n".join(_markdown(chapter))
        start = text.index(f":label: {label}")
        end = text.index("{solution-end}", start)
        assert _names_line(text[start:end], k), label
    k, e = nearest_line(*_exercise_answer_points()["intro-ex-tanh"])
    assert k == 4 and abs(e) < 1e-9
