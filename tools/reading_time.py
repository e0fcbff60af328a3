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
#: the opening that computes its reading time where it is shown (issue 41): the first code
#: cell after the Colab cell sets ``reading = reading_time("<chapter>.ipynb")``
#: (companion.presentation.reading) and the number is the value stored for the role
COMPUTED = re.compile(r"Reading time:\s+about\s+\{eval\}`reading\.minutes`\s+minutes")
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


def _opening(path: Path) -> dict | None:
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"]
    return cells[0] if cells else None


def computed(path: Path) -> bool:
    """Whether the chapter's opening computes its reading time ({eval}`reading.minutes`)."""
    cell = _opening(path)
    return cell is not None and COMPUTED.search(_src(cell)) is not None


def stated(path: Path) -> int | None:
    """The reading time the chapter's first markdown cell states, in minutes (where it is
    computed: the value stored for the role by tools/execute_chapter.py)."""
    cell = _opening(path)
    if cell is not None and computed(path):
        values = {e["expression"]: e["result"]["data"].get("text/plain")
                  for e in cell.get("metadata", {}).get("user_expressions", [])}
        value = values.get("reading.minutes")
        return int(value) if value and value.isdigit() else None
    m = STATED.search(_src(cell)) if cell is not None else None
    return int(m.group(1)) if m else None


def main() -> int:
    for doc, _, path in numbering.notebooks():
        n = words(path)
        print(f"{doc:24s} {n:6d} words  about {minutes(n):3d} minutes  "
              f"(states {stated(path)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
