"""The chapter "Reused versus fresh batches" as a student reads it (issue 41, "A book a student
can read"): how much prose it has, in all and outside the collapsed blocks; how many numbers
a paragraph carries; an opening a student can plan with, whose reading time is the rule's;
numbers written as a reader writes them; short captions.

Words are ``len(text.split())`` over the markdown cells, markup included. Collapsed: the
solutions (cells tagged ``solution``, shown in a dropdown) and the admonitions of class
``dropdown``. A number is an ``{eval}`` role or a typed decimal outside math and code; a
paragraph is a block of lines between blank lines that is not a heading or a table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.presentation.reading import reading_time

BOOK = Path(__file__).resolve().parents[3] / "book"
PATH = BOOK / "reuse_vs_fresh.ipynb"
MAX_WORDS, MAX_WORDS_SHOWN, MAX_NUMBERS = 3000, 2000, 4

#: an admonition (or a dropdown) that the page shows collapsed, with its closing fence
COLLAPSED = re.compile(r"^(?P<fence>`{3,})\{(?:admonition|dropdown)\}[^\n]*\n"
                       r"(?:(?!(?P=fence)).*\n)*?:class: dropdown\n.*?^(?P=fence)[ \t]*$",
                       re.M | re.S)
EVAL = re.compile(r"\{eval\}`[^`]*`")
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)


def _cells() -> list[dict]:
    return json.loads(PATH.read_text())["cells"]


def _source(cell: dict) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def _markdown(shown_only: bool = False) -> list[str]:
    """The markdown cells' text; ``shown_only``: without the solutions and the collapsed
    blocks."""
    texts = []
    for cell in _cells():
        if cell["cell_type"] != "markdown":
            continue
        if shown_only and "solution" in cell.get("metadata", {}).get("tags", []):
            continue
        text = _source(cell)
        texts.append(COLLAPSED.sub("", text) if shown_only else text)
    return texts


def numbers(paragraph: str) -> int:
    """The numbers a paragraph carries: its {eval} roles and the decimals typed outside math,
    code and roles."""
    rest = re.sub(r"\{[\w:-]+\}`[^`]*`", " ", MATH.sub(" ", EVAL.sub(" ", paragraph)))
    rest = re.sub(r"`[^`]*`", " ", rest)
    return len(EVAL.findall(paragraph)) + len(re.findall(r"(?<![\w.])\d+\.\d+", rest))


def paragraphs(text: str) -> list[str]:
    """Blocks between blank lines, without headings, tables and directive lines."""
    out = []
    for block in re.split(r"\n[ \t]*\n", text):
        lines = [ln for ln in block.splitlines()
                 if not re.match(r"^(`{3,}|:{3,})|^:[\w-]+:", ln)]
        body = "\n".join(lines).strip()
        if body and not body.startswith(("#", "|")):
            out.append(body)
    return out


def test_the_counts_read_what_they_should():
    text = ("A {eval}`a.b` and 0.25 and $0.5$ and `0.7`.\n\n## 1.5 heading\n\n"
            "````{admonition} More\n:class: dropdown\n\nhidden 0.1\n````\n\nafter")
    assert [numbers(p) for p in paragraphs(text)] == [2, 1, 0]
    assert COLLAPSED.sub("", text).split()[-1] == "after"
    assert "hidden" not in COLLAPSED.sub("", text)


def test_the_chapter_has_at_most_3000_words_and_2000_shown():
    words = sum(len(t.split()) for t in _markdown())
    shown = sum(len(t.split()) for t in _markdown(shown_only=True))
    assert words <= MAX_WORDS, f"{words} words of prose in all (at most {MAX_WORDS})"
    assert shown <= MAX_WORDS_SHOWN, (f"{shown} words outside the collapsed blocks "
                                      f"(at most {MAX_WORDS_SHOWN})")


def test_no_paragraph_carries_more_than_four_numbers():
    crowded = [(numbers(p), p[:60]) for text in _markdown() for p in paragraphs(text)
               if numbers(p) > MAX_NUMBERS]
    assert not crowded, crowded


def test_the_opening_says_what_you_learn_what_you_need_and_the_rules_reading_time():
    cells = _cells()
    opening = next(_source(c) for c in cells if c["cell_type"] == "markdown")
    assert opening.startswith("# Reused versus fresh batches")
    assert "**What you will learn**" in opening and "**What you need**" in opening
    assert "Reading time: about {eval}`reading.minutes` minutes" in " ".join(opening.split())
    lessons = re.findall(r"^- ", opening.split("**What you need**")[0], re.M)
    assert 2 <= len(lessons) <= 4
    # the first code cell after the Colab cell computes it, from this notebook
    code = [_source(c) for c in cells if c["cell_type"] == "code"]
    assert "google.colab" in code[0]
    assert 'reading = reading_time("reuse_vs_fresh.ipynb")' in code[1]
    # and the stored value is what the rule gives
    stored = next(e for c in cells for e in c.get("metadata", {}).get("user_expressions", [])
                  if e["expression"] == "reading.minutes")
    assert stored["result"]["data"]["text/plain"] == str(reading_time(PATH).minutes)


def _shown_values() -> list[str]:
    """What the page shows of the computation: the stored {eval} values and text outputs."""
    out = []
    for cell in _cells():
        meta = cell.get("metadata", {})
        out += [e["result"]["data"]["text/plain"] for e in meta.get("user_expressions", [])]
        for o in cell.get("outputs", []):
            out.append("".join(o.get("text", "")) or "".join(o.get("data", {}).get(
                "text/plain", "")))
    return out


def test_numbers_are_written_as_a_reader_writes_them():
    program = [v for v in _shown_values()
               if re.search(r"\d[eE][-+]?\d|\bnan\b|-0\.0+\b(?!\d)", v)]
    assert not program, program[:3]


@pytest.mark.parametrize("kind", ["caption"])
def test_captions_are_short(kind):
    """A caption of at most about four lines of the page: 60 words."""
    long = []
    for cell in _cells():
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure")
        if figure and len(figure[kind].split()) > 60:
            long.append((figure["name"], len(figure[kind].split())))
    assert not long, long
