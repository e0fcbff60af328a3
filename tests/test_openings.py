"""Each chapter opens by saying what the reader will learn (or see) and how long it takes.

The first markdown cell of the introduction and of every numbered chapter has a paragraph
starting "**What you will learn**" (issue 41; "**What you will see**" in a chapter not yet
rewritten) and states its reading time, in one of two forms:

* computed (issue 41): "Reading time: about {eval}`reading.minutes` minutes", where a code
  cell above the first markdown cell computes ``reading = reading_time("<chapter>.ipynb")``
  (:func:`companion.presentation.reading.reading_time`, the one rule) and the stored value
  is what the rule gives for the chapter as it is;
* typed: "Reading time: about N minutes", N a multiple of 5 within 5 minutes of the
  chapter's words at 200 a minute (tools/reading_time.py counts them: the prose outside the
  solutions and the figures' captions).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from companion.presentation.reading import reading_time as rule

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import numbering  # noqa: E402
import reading_time  # noqa: E402

CHAPTERS = [path for doc, number, path in numbering.notebooks()
            if number is not None or doc == numbering.toc()[0][0]]


def _first_markdown(path: Path) -> str:
    cells = json.loads(path.read_text())["cells"]
    return next(reading_time._src(c) for c in cells if c["cell_type"] == "markdown")


COMPUTED = "Reading time: about {eval}`reading.minutes` minutes"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_opening_says_what_the_reader_will_learn(path):
    first = _first_markdown(path)
    assert "**What you will learn**" in first or "**What you will see**" in first, (
        f"{path.name}: the first markdown cell has no '**What you will learn**' paragraph")


def _computed_reading(path: Path):
    """(the code that computes ``reading`` above the first markdown cell, the value stored
    for the opening's role), or None where the opening types its reading time."""
    cells = json.loads(path.read_text())["cells"]
    first = next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown")
    if COMPUTED not in reading_time._src(cells[first]):
        return None
    code = "\n".join(reading_time._src(c) for c in cells[:first] if c["cell_type"] == "code")
    stored = {e["expression"]: e["result"]["data"]["text/plain"]
              for e in cells[first]["metadata"].get("user_expressions", [])
              if e["result"].get("status") == "ok"}
    return code, stored.get("reading.minutes")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_stated_reading_time_matches_the_words(path):
    computed = _computed_reading(path)
    if computed is not None:
        code, value = computed
        assert f'reading = reading_time("{path.name}")' in code, (
            f"{path.name}: no code above the opening computes reading = reading_time(...)")
        assert value == str(rule(path).minutes), (
            f"{path.name}: the opening shows {value} minutes, the rule gives "
            f"{rule(path).minutes} (re-execute the chapter: tools/execute_chapter.py)")
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
