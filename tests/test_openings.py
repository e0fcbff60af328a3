"""Each chapter opens by saying what the reader will see and how long it takes to read.

The first markdown cell of the introduction and of every numbered chapter has a paragraph
starting "**What you will see**" (or "**What you will learn**") and states "Reading time:
about N minutes": either N typed, a multiple of 5 within 5 minutes of the chapter's words at
200 a minute (publish/reading_time.py counts them: the prose outside the solutions and the
figures' captions), or N computed, ``{eval}`reading.minutes``, from
``reading = reading_time("<chapter>.ipynb")`` in a code cell above it
(companion.presentation.reading, issue 41), whose stored value is the rule's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.presentation.reading import reading_time as rule
from publish import reading_time
from publish.sources import cell_text, notebooks, toc

CHAPTERS = [doc.path for doc in notebooks() if doc.chapter is not None or doc == toc()[0]]


def _first_markdown(path: Path) -> str:
    cells = json.loads(path.read_text())["cells"]
    return next(cell_text(c) for c in cells if c["cell_type"] == "markdown")


COMPUTED = "Reading time: about {eval}`reading.minutes` minutes"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_opening_says_what_the_reader_will_see(path):
    first = _first_markdown(path)
    assert "**What you will see**" in first or "**What you will learn**" in first, (
        f"{path.name}: the first markdown cell has no '**What you will see**' paragraph")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_stated_reading_time_matches_the_words(path):
    if COMPUTED in " ".join(_first_markdown(path).split()):
        cells = json.loads(path.read_text())["cells"]
        first = next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown")
        call = f'reading = reading_time("{path.name}")'
        assert any(call in cell_text(c) for c in cells[:first]
                   if c["cell_type"] == "code"), f"{path.name}: no {call} above the opening"
        stored = {e["expression"]: e["result"]["data"]["text/plain"]
                  for e in cells[first]["metadata"].get("user_expressions", [])}
        assert stored.get("reading.minutes") == str(rule(path).minutes), (
            f"{path.name}: stores {stored.get('reading.minutes')} minutes, the rule gives "
            f"{rule(path).minutes}: re-execute it (python -m publish execute)")
        return
    stated = reading_time.stated(path)
    assert stated is not None, f"{path.name}: no 'Reading time: about N minutes'"
    words = reading_time.words(path)
    exact = words / reading_time.WORDS_PER_MINUTE
    assert stated % 5 == 0 and abs(stated - exact) <= 5, (
        f"{path.name}: states {stated} minutes; its {words} words take {exact:.1f} "
        f"(publish/reading_time.py: about {reading_time.minutes(words)})")


def test_the_count_reads_prose_not_markup():
    text = ("# Title\n\n```{prf:conjecture} The companion derives: a rule\n:label: x-conj\n\n"
            "See {prf:ref}`Conjecture 3 <conj-w2-expansion>` and {eval}`ns.value`.\n```\n")
    words = reading_time.prose(text).split()
    assert words == ["#", "Title", "The", "companion", "derives:", "a", "rule", "See",
                     "Conjecture", "3", "and", "N."]
    assert reading_time.minutes(1000) == 5 and reading_time.minutes(3500) == 20
