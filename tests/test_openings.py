"""Each chapter opens by saying what the reader will learn or see and how long it takes.

The first markdown cell of the introduction and of every numbered chapter has a paragraph
starting "**What you will learn**" or "**What you will see**" and states its reading time:
"Reading time: about {eval}`reading.minutes` minutes", whose stored value is what the rule
of companion/presentation/reading.py gives for the chapter (computed in a cell above the
opening), or, in a chapter not yet rewritten to it, "Reading time: about N minutes", N a
multiple of 5 within 5 minutes of the chapter's words at 200 a minute (tools/reading_time.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import numbering  # noqa: E402
import reading_time  # noqa: E402

from companion.presentation.reading import reading_time as rule  # noqa: E402

CHAPTERS = [path for doc, number, path in numbering.notebooks()
            if number is not None or doc == numbering.toc()[0][0]]


def _opening(path: Path) -> dict:
    cells = json.loads(path.read_text())["cells"]
    return next(c for c in cells if c["cell_type"] == "markdown")


def _first_markdown(path: Path) -> str:
    return reading_time._src(_opening(path))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_opening_says_what_the_reader_will_see(path):
    text = _first_markdown(path)
    assert "**What you will learn**" in text or "**What you will see**" in text, (
        f"{path.name}: the first markdown cell says neither what the reader will learn nor "
        f"what they will see")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_stated_reading_time_matches_the_words(path):
    if "{eval}`reading.minutes`" in _first_markdown(path):
        stored = {e["expression"]: "".join(e["result"]["data"]["text/plain"])
                  for e in _opening(path)["metadata"].get("user_expressions", [])}
        assert stored.get("reading.minutes") == str(rule(path).minutes), (
            f"{path.name}: states {stored.get('reading.minutes')} minutes, the rule gives "
            f"{rule(path).minutes}: re-execute the chapter")
        return
    stated = reading_time.stated(path)
    assert stated is not None, f"{path.name}: no 'Reading time: about N minutes'"
    words = reading_time.words(path)
    exact = words / reading_time.WORDS_PER_MINUTE
    assert stated % 5 == 0 and abs(stated - exact) <= 5, (
        f"{path.name}: states {stated} minutes; its {words} words take {exact:.1f} "
        f"(tools/reading_time.py: about {reading_time.minutes(words)})")


def test_the_count_reads_prose_not_markup():
    text = ("# Title\n\n```{prf:conjecture} The companion derives: a rule\n:label: x-conj\n\n"
            "See {prf:ref}`Conjecture 3 <conj-w2-expansion>` and {eval}`ns.value`.\n```\n")
    words = reading_time.prose(text).split()
    assert words == ["#", "Title", "The", "companion", "derives:", "a", "rule", "See",
                     "Conjecture", "3", "and", "N."]
    assert reading_time.minutes(1000) == 5 and reading_time.minutes(3500) == 20
