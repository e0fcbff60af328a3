"""How long a chapter takes: one rule for every chapter, computed from the chapter itself.

A chapter states its reading time in its opening, "Reading time: about {eval}`reading.minutes`
minutes", from :func:`reading_time` called on its own notebook in its first code cell: the
number is computed where it is shown (the book's build, JupyterLab), never typed. The rule:

* a minute per :data:`WORDS_PER_MINUTE` words a reader reads: every markdown cell except the
  solutions and every figure's caption, MyST markup removed (a fence and its options, a label
  line; a role counts as the text it shows, an ``{eval}`` role as one word); a formula counts
  its symbols separated by spaces;
* half a minute per figure (:data:`MINUTES_PER_FIGURE`), to look at it;
* a quarter of a minute per code cell a reader sees (:data:`MINUTES_PER_CODE_CELL`: cells
  tagged ``remove-cell`` or ``remove-input`` are not seen; solutions are not counted);

rounded up to whole minutes. The exercises' own times are stated with each exercise and are
not part of it. ``tests/test_book.py`` checks that every chapter states what the rule gives.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

WORDS_PER_MINUTE = 200
MINUTES_PER_FIGURE = 0.5
MINUTES_PER_CODE_CELL = 0.25
SOLUTION_TAG = "solution"
HIDDEN_TAGS = {"remove-cell", "remove-input"}


@dataclass(frozen=True)
class Reading:
    """What :func:`reading_time` counted, and the minutes the rule gives."""

    words: int
    figures: int
    code_cells: int

    @property
    def minutes(self) -> int:
        return math.ceil(self.words / WORDS_PER_MINUTE + MINUTES_PER_FIGURE * self.figures
                         + MINUTES_PER_CODE_CELL * self.code_cells)


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def prose(text: str) -> str:
    """A markdown cell's text as the reader reads it: no fences, options, labels or front
    matter; a role as its shown text (an {eval} role as one word)."""
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)          # front matter
    text = re.sub(r"^(`{3,}|:{3,})\{[^}]+\}", "", text, flags=re.M)      # a fence's name
    text = re.sub(r"^(`{3,}|:{3,})[ \t]*$", "", text, flags=re.M)        # a closing fence
    text = re.sub(r"^:[\w-]+:.*$", "", text, flags=re.M)                 # an option line
    text = re.sub(r"^\([^)\s]+\)=[ \t]*$", "", text, flags=re.M)         # a label line
    text = re.sub(r"\{eval\}`[^`]*`", "N", text)
    text = re.sub(r"\{[\w:-]+\}`([^`<]*?)\s*<[^`]*>`", r"\1", text)      # explicit text
    text = re.sub(r"\{[\w:-]+\}`([^`]*)`", r"\1", text)
    return text


def count_words(text: str) -> int:
    """The words of ``text`` (tokens with a letter or a digit)."""
    return sum(1 for token in text.split() if re.search(r"\w", token))


def count(notebook: dict) -> Reading:
    """What the rule counts in a chapter notebook (a dict as read from its file)."""
    words = figures = code = 0
    for cell in notebook["cells"]:
        meta = cell.get("metadata", {})
        tags = set(meta.get("tags", []))
        if SOLUTION_TAG in tags:
            continue
        if cell["cell_type"] == "markdown":
            words += count_words(prose(_source(cell)))
            continue
        if cell["cell_type"] != "code":
            continue
        figure = meta.get("mystnb", {}).get("figure")
        if figure:
            figures += 1
            words += count_words(prose(str(figure.get("caption", ""))))
        if not tags & HIDDEN_TAGS:
            code += 1
    return Reading(words, figures, code)


#: where a generated copy of a chapter whose prose reads differently (the JupyterLab reading:
#: references written out as names and links) keeps the counts of the chapter it copies
STORED = ("companion", "reading")


def reading_time(path) -> Reading | None:
    """The reading time of the chapter notebook at ``path`` by the rule of this module, or
    None where the notebook is not there to read (a copy run elsewhere, such as Colab's). A
    copy that carries its chapter's counts in its metadata (:data:`STORED`) gives those, so
    that Binder's JupyterLab shows the book's number."""
    path = Path(path)
    if not path.is_file():
        return None
    notebook = json.loads(path.read_text(encoding="utf8"))
    stored = notebook.get("metadata", {}).get(STORED[0], {}).get(STORED[1])
    return Reading(**stored) if stored else count(notebook)
