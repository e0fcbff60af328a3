"""The chapter "One step" as a student reads it (issue 41, "A book a student can read"):
its prose within the limits of the brief, counted on the notebook itself.

* at most 3,000 words of prose in all and at most 2,000 outside collapsed blocks, words being
  ``len(text.split())`` over the markdown cells, markup included; collapsed: the solutions
  (tagged ``solution``) and every block with ``:class: dropdown`` (or a ``{dropdown}``);
* no paragraph with more than four numbers, a number being an ``{eval}`` role or a typed
  decimal outside math and code (a table and a heading are not paragraphs);
* the opening states the reading time by the rule of ``companion.presentation.reading``,
  computed where it is shown (``{eval}`reading.minutes```), and every section opens with a
  sentence, not a number.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from companion.presentation.reading import reading_time

ROOT = Path(__file__).resolve().parents[3]
CHAPTER = ROOT / "book" / "one_step.ipynb"
MAX_WORDS, MAX_OPEN_WORDS, MAX_NUMBERS = 3000, 2000, 4

#: a directive block: its fence (three or more backticks), name, argument line, body
BLOCK = re.compile(r"^(?P<fence>`{3,})\{(?P<name>[^}]+)\}[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                   re.M | re.S)
EVAL = re.compile(r"\{eval\}`[^`]+`")
DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+")


def _cells() -> list[dict]:
    return json.loads(CHAPTER.read_text())["cells"]


def _source(cell: dict) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def _collapsed(block: re.Match) -> bool:
    return block.group("name") == "dropdown" or bool(
        re.search(r"^:class:.*\bdropdown\b", block.group("body"), re.M))


def words() -> tuple[int, int]:
    """(words in all, words in collapsed blocks) of the chapter's markdown cells."""
    total = hidden = 0
    for cell in _cells():
        if cell["cell_type"] != "markdown":
            continue
        text = _source(cell)
        total += len(text.split())
        if "solution" in cell.get("metadata", {}).get("tags", []):
            hidden += len(text.split())
            continue
        hidden += sum(len(b.group(0).split()) for b in BLOCK.finditer(text) if _collapsed(b))
    return total, hidden


def numbers(paragraph: str) -> int:
    """The numbers a reader reads in ``paragraph``: {eval} roles and typed decimals outside
    math and code."""
    text = EVAL.sub(" NUMBER ", paragraph)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\$[^$]*\$", " ", text)
    text = re.sub(r"`[^`]*`", " ", text)
    return text.count("NUMBER") + len(DECIMAL.findall(text))


def paragraphs() -> list[str]:
    """The paragraphs of the chapter's prose outside the solutions: blocks between blank
    lines, without the directives' fences and options, headings and tables."""
    out = []
    for cell in _cells():
        if cell["cell_type"] != "markdown" or "solution" in cell.get("metadata", {}).get(
                "tags", []):
            continue
        text = re.sub(r"^(`{3,}).*$|^:[\w-]+:.*$", "", _source(cell), flags=re.M)
        for block in re.split(r"\n\s*\n", text):
            block = block.strip()
            if block and not block.startswith(("#", "|", "$$")):
                out.append(block)
    return out


def test_the_chapter_is_within_its_word_limits():
    total, hidden = words()
    assert total <= MAX_WORDS, f"{total} words of prose (at most {MAX_WORDS})"
    assert total - hidden <= MAX_OPEN_WORDS, (
        f"{total - hidden} words outside collapsed blocks (at most {MAX_OPEN_WORDS})")


def test_no_paragraph_carries_more_than_four_numbers():
    crowded = [(numbers(p), p[:80]) for p in paragraphs() if numbers(p) > MAX_NUMBERS]
    assert not crowded, crowded


def test_the_counts_read_prose_as_the_brief_does():
    assert numbers("At $N = 2.5$ it is {eval}`a.b` and 0.31, not `x = 1.5`.") == 2
    text = ("```{admonition} Why\n:class: dropdown\n\nfour words in here\n```\n\n"
            "```{prf:remark} Open\n:label: x\n\nnot hidden\n```")
    hidden = sum(len(b.group(0).split()) for b in BLOCK.finditer(text) if _collapsed(b))
    assert hidden == len("```{admonition} Why :class: dropdown four words in here ```".split())


def test_the_opening_computes_its_reading_time_by_the_rule():
    cells = _cells()
    opening = next(c for c in cells if c["cell_type"] == "markdown")
    assert re.search(r"Reading time: about\s+\{eval\}`reading.minutes`\s+minutes",
                     _source(opening))
    stored = {e["expression"]: e["result"]["data"]["text/plain"]
              for e in opening["metadata"].get("user_expressions", [])}
    assert stored["reading.minutes"] == str(reading_time(CHAPTER).minutes)
    first_code = [c for c in cells if c["cell_type"] == "code"][:2]
    assert "reading_time(\"one_step.ipynb\")" in _source(first_code[1])


def test_every_section_opens_with_a_sentence():
    """The first thing under a section's heading is its finding in words (the numbers
    behind it come after the code that computes them)."""
    for cell in _cells():
        text = _source(cell)
        if cell["cell_type"] == "markdown" and text.startswith("## ") and not text.startswith(
                ("## Exercises", "## Measurements", "## What to take")):
            body = text.split("\n", 1)[1].strip() if "\n" in text else ""
            first = re.split(r"(?<=[.:])\s", body, maxsplit=1)[0]
            assert body and not body.startswith(("```", "|")), text[:60]
            assert numbers(first) == 0, first
