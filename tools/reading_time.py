#!/usr/bin/env python3
"""How long a chapter takes to read: its words at 200 words a minute, rounded to 5 minutes.

A chapter's first markdown cell says "Reading time: about N minutes" (book/CONVENTIONS.md,
"The cells of a chapter"); ``tests/test_openings.py`` checks that N is within 5 minutes of
what this script computes from the chapter as it is.

The words counted are those a reader reads on the page: every markdown cell except the
solutions (hidden in dropdowns, and gone from the student edition) and every figure's
caption, with the MyST markup removed (directive fences and options, label lines, a role's
name and target: {prf:ref}`a conjecture <ts-conj-x>` counts as "a conjecture", a bare
{prf:ref}`ts-conj-x` as one word) and each {eval} role counted as one word. A formula counts
its symbols separated by spaces (``$\\alpha_1 + \\alpha_2 = 1/2$``: five), which is about the
time it takes to read one. Code is not counted.

Usage: ``python tools/reading_time.py`` prints each chapter's words and minutes.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import numbering  # noqa: E402

WORDS_PER_MINUTE = 200
STATED = re.compile(r"Reading time:\s+about\s+(\d+)\s+minutes")
SOLUTION_TAG = "solution"


def _src(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def prose(text: str) -> str:
    """A markdown cell's text as the reader reads it: no fences, options or labels; a role as
    its shown text (an {eval} role as one word)."""
    text = re.sub(r"^(`{3,}|:{3,})\{[^}]+\}", "", text, flags=re.M)      # a fence's name
    text = re.sub(r"^(`{3,}|:{3,})[ \t]*$", "", text, flags=re.M)        # a closing fence
    text = re.sub(r"^:[\w-]+:.*$", "", text, flags=re.M)                 # an option line
    text = re.sub(r"^\([^)\s]+\)=[ \t]*$", "", text, flags=re.M)         # a label line
    text = re.sub(r"\{eval\}`[^`]*`", "N", text)
    text = re.sub(r"\{[\w:-]+\}`([^`<]*?)\s*<[^`]*>`", r"\1", text)      # explicit text
    text = re.sub(r"\{[\w:-]+\}`([^`]*)`", r"\1", text)
    return text


def words(path: Path) -> int:
    """The number of words of the chapter at ``path`` a reader reads (module docstring)."""
    count = 0
    for cell in json.loads(path.read_text())["cells"]:
        if SOLUTION_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        if cell["cell_type"] == "markdown":
            text = prose(_src(cell))
        else:
            fig = cell.get("metadata", {}).get("mystnb", {}).get("figure")
            text = prose(str(fig.get("caption", ""))) if fig else ""
        count += sum(1 for token in text.split() if re.search(r"\w", token))
    return count


def minutes(n_words: int) -> int:
    """``n_words`` at :data:`WORDS_PER_MINUTE`, rounded to 5 minutes (at least 5)."""
    return max(5, 5 * round(n_words / WORDS_PER_MINUTE / 5))


#: the opening that computes its reading time (companion.presentation.reading): the role's
#: value is stored in the cell's metadata by tools/execute_chapter.py
STATED_EVAL = re.compile(r"Reading time:\s+about\s+\{eval\}`reading\.minutes`\s+minutes")


def stated(path: Path) -> int | None:
    """The reading time the chapter's first markdown cell states, in minutes: the number it
    types, or the stored value of its ``{eval}`reading.minutes``` role."""
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"]
    if not cells:
        return None
    if STATED_EVAL.search(_src(cells[0])):
        for item in cells[0].get("metadata", {}).get("user_expressions", []):
            if item.get("expression") == "reading.minutes":
                text = item.get("result", {}).get("data", {}).get("text/plain", "")
                return int(text) if text.isdigit() else None
        return None
    m = STATED.search(_src(cells[0]))
    return int(m.group(1)) if m else None


def main() -> int:
    for doc, _, path in numbering.notebooks():
        n = words(path)
        print(f"{doc:24s} {n:6d} words  about {minutes(n):3d} minutes  "
              f"(states {stated(path)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
