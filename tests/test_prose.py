"""Every chapter as a student reads it (issue 41, "A book a student can read"), counted on the
notebooks themselves, with one definition for the whole book:

* at most 3,000 words of prose in all and at most 2,000 outside collapsed blocks, words being
  ``len(text.split())`` over the markdown cells, markup included; collapsed: the solutions
  (cells tagged ``solution``) and every block with ``:class: dropdown`` or a ``{dropdown}``;
* no paragraph with more than four numbers, a number being an ``{eval}`` role or a typed
  decimal outside math and code (a table, a heading or a display equation is not a
  paragraph);
* an opening a student can plan with: what you will learn (two to four lessons), what you
  need, and a reading time computed where it is shown by the rule of
  ``companion.presentation.reading``;
* every section opens with a sentence, not a number; captions of at most about four lines;
  numbers as a reader writes them (no ``1.0e5``, ``nan`` or ``-0.00`` in what a page shows);
  a box headed "The companion measures" quotes a measured number, not only a prediction.

A check that only one chapter needs (two_steps' first screen) stands at the end."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.presentation.reading import reading_time

BOOK = Path(__file__).resolve().parents[1] / "book"
#: the chapters (an opening, sections, exercises) and the other executable pages
CHAPTERS = ["intro", "one_step", "two_steps", "learned_directions", "reuse_vs_fresh",
            "finite_size"]
PAGES = CHAPTERS + ["ten_minutes", "explorer"]
MAX_WORDS, MAX_SHOWN_WORDS, MAX_NUMBERS, MAX_CAPTION_WORDS = 3000, 2000, 4, 60

#: a directive block: its fence (three or more backticks), name, argument line, body
BLOCK = re.compile(r"^(?P<fence>`{3,})\{(?P<name>[^}]+)\}[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                   re.M | re.S)
EVAL = re.compile(r"\{eval\}`[^`]+`")
DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+")


def cells(stem: str) -> list[dict]:
    return json.loads((BOOK / f"{stem}.ipynb").read_text())["cells"]


def source(cell: dict) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def _solution(cell: dict) -> bool:
    return "solution" in cell.get("metadata", {}).get("tags", [])


def _collapsed(block: re.Match) -> bool:
    return block.group("name") == "dropdown" or bool(
        re.search(r"^:class:.*\bdropdown\b", block.group("body"), re.M))


def words(stem: str) -> tuple[int, int]:
    """(words in all, words outside the collapsed blocks) of the page's markdown cells."""
    total = hidden = 0
    for cell in cells(stem):
        if cell["cell_type"] != "markdown":
            continue
        text = source(cell)
        total += len(text.split())
        if _solution(cell):
            hidden += len(text.split())
            continue
        hidden += sum(len(b.group(0).split()) for b in BLOCK.finditer(text) if _collapsed(b))
    return total, total - hidden


def numbers(paragraph: str) -> int:
    """The numbers a reader reads in ``paragraph``: {eval} roles and typed decimals outside
    math and code."""
    text = EVAL.sub(" NUMBER ", paragraph)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\$[^$]*\$", " ", text)
    text = re.sub(r"\{[\w:-]+\}`[^`]*`|`[^`]*`", " ", text)
    return text.count("NUMBER") + len(DECIMAL.findall(text))


def paragraphs(text: str) -> list[str]:
    """Blocks between blank lines, without the directives' fences and options, headings,
    tables and display equations."""
    text = re.sub(r"^(`{3,}|:{3,}).*$|^:[\w-]+:.*$", "", text, flags=re.M)
    out = []
    for block in re.split(r"\n[ \t]*\n", text):
        block = block.strip()
        if block and not block.startswith(("#", "|", "$$")):
            out.append(block)
    return out


def test_the_counts_read_prose_as_the_brief_does():
    assert numbers("At $N = 2.5$ it is {eval}`a.b` and 0.31, not `x = 1.5` or {ref}`a-1.5`.") == 2
    text = ("```{admonition} Why\n:class: dropdown\n\nfour words in here\n```\n\n"
            "```{prf:remark} Open\n:label: x\n\nnot hidden\n```\n\n## 1.5 heading\n\n| 0.1 |")
    hidden = sum(len(b.group(0).split()) for b in BLOCK.finditer(text) if _collapsed(b))
    assert hidden == len("```{admonition} Why :class: dropdown four words in here ```".split())
    assert [numbers(p) for p in paragraphs(text)] == [0, 0]


@pytest.mark.parametrize("stem", PAGES)
def test_a_page_is_within_the_word_limits(stem):
    total, shown = words(stem)
    assert total <= MAX_WORDS, f"{stem}: {total} words of prose in all (at most {MAX_WORDS})"
    assert shown <= MAX_SHOWN_WORDS, (f"{stem}: {shown} words outside the collapsed blocks "
                                      f"(at most {MAX_SHOWN_WORDS})")


@pytest.mark.parametrize("stem", PAGES)
def test_no_paragraph_carries_more_than_four_numbers(stem):
    crowded = [(numbers(p), p[:80]) for c in cells(stem) if c["cell_type"] == "markdown"
               for p in paragraphs(source(c)) if numbers(p) > MAX_NUMBERS]
    assert not crowded, crowded


@pytest.mark.parametrize("stem", CHAPTERS)
def test_the_opening_says_what_you_learn_what_you_need_and_the_rules_reading_time(stem):
    page = cells(stem)
    opening = next(c for c in page if c["cell_type"] == "markdown")
    text = source(opening)
    assert text.startswith("# ")
    assert "**What you will learn**" in text and "**What you need**" in text, stem
    assert re.search(r"Reading\s+time:\s+about\s+\{eval\}`reading.minutes`\s+minutes", text), stem
    lessons = re.findall(r"^- ", text.split("**What you will learn**")[1].split(
        "**What you need**")[0], re.M)
    assert 2 <= len(lessons) <= 4, (stem, len(lessons))
    code = [source(c) for c in page if c["cell_type"] == "code"]
    assert "google.colab" in code[0]
    assert f'reading_time("{stem}.ipynb")' in code[1]
    stored = {e["expression"]: e["result"]["data"]["text/plain"]
              for e in opening["metadata"].get("user_expressions", [])}
    assert stored["reading.minutes"] == str(reading_time(BOOK / f"{stem}.ipynb").minutes)


@pytest.mark.parametrize("stem", CHAPTERS)
def test_every_section_opens_with_a_sentence(stem):
    """The first thing under a section's heading is its finding in words or a statement's box
    (the numbers behind it come after the code that computes them), not a table or code."""
    for cell in cells(stem):
        text = source(cell)
        if cell["cell_type"] == "markdown" and text.startswith("## ") and not text.startswith(
                ("## Exercises", "## Measurements", "## What to take", "## Notation")):
            body = text.split("\n", 1)[1].strip() if "\n" in text else ""
            first = re.split(r"(?<=[.:])\s", body, maxsplit=1)[0]
            # a statement's box (a theorem the paper states, a definition) is a finding too
            assert body and not body.startswith("|"), (stem, text[:60])
            assert not body.startswith("```") or re.match(r"`{3,}\{prf:", body), (stem, text[:60])
            assert numbers(first) == 0, (stem, first)


def _shown_values(stem: str) -> list[str]:
    """What the page shows of the computation: the stored {eval} values and text outputs
    of the cells it shows (a cell whose output is removed shows nothing)."""
    out = []
    for cell in cells(stem):
        meta = cell.get("metadata", {})
        out += [e["result"]["data"]["text/plain"] for e in meta.get("user_expressions", [])]
        if "remove-output" in meta.get("tags", []) or "remove-cell" in meta.get("tags", []):
            continue
        for o in cell.get("outputs", []):
            out.append("".join(o.get("text", "")) or "".join(o.get("data", {}).get(
                "text/plain", "")))
    return out


@pytest.mark.parametrize("stem", PAGES)
def test_numbers_are_written_as_a_reader_writes_them(stem):
    program = [v for v in _shown_values(stem)
               if re.search(r"\d[eE][-+]?\d|\bnan\b|-0\.0+\b(?!\d)", v)
               and not v.startswith("<Figure")]
    assert not program, (stem, program[:3])


@pytest.mark.parametrize("stem", PAGES)
def test_captions_are_short(stem):
    """A caption of at most about four lines of the page: 60 words."""
    long = []
    for cell in cells(stem):
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure")
        if figure and len(figure.get("caption", "").split()) > MAX_CAPTION_WORDS:
            long.append((figure["name"], len(figure["caption"].split())))
    assert not long, long


#: the finite-N prediction's numbers, as the chapters name them (a prediction is derived)
PREDICTED = re.compile(r"\{eval\}`(\w+\.)?(pred|predicted)\w*[.\w]*`"
                       r"|\{eval\}`finite\.(at_limit|N_pred|Ns_pred|onset|fewer|more)\w*`")


@pytest.mark.parametrize("stem", CHAPTERS)
def test_a_measures_box_holds_a_measurement(stem):
    """Each box headed "The companion measures" quotes a simulated number, not only the
    finite-N prediction's (issue 41: a finite-N box once reported only the prediction)."""
    for cell in cells(stem):
        for m in re.finditer(r"^```\{prf:observation\} The companion measures.*?^```",
                             source(cell), re.M | re.S):
            evals = EVAL.findall(m.group(0))
            if evals:
                assert [e for e in evals if not PREDICTED.fullmatch(e)], (stem, m.group(0)[:80])


def test_the_first_screen_of_two_steps_names_the_largest_stored_run():
    """two_steps' setup note quotes the largest stored simulated run (8192), not the finite-N
    prediction's grid (issue 41: it once said "up to N = 1000000")."""
    note = next(source(c) for c in cells("two_steps")
                if c["cell_type"] == "markdown" and "paper.Nmax" in source(c))
    stored = next(e for c in cells("two_steps")
                  for e in c.get("metadata", {}).get("user_expressions", [])
                  if e["expression"] == "paper.Nmax")
    assert stored["result"]["data"]["text/plain"] == "8192" and "stored" in note
