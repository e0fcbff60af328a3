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

Usage: ``python -m publish reading-time`` prints each chapter's words and minutes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from publish.sources import (
    FENCE,
    LABEL_LINE,
    OPTION,
    ROLE,
    cell_text,
    figure,
    notebooks,
    read,
    role_parts,
)

WORDS_PER_MINUTE = 200
STATED = re.compile(r"Reading time:\s+about\s+(\d+)\s+minutes")
SOLUTION_TAG = "solution"


def prose(text: str) -> str:
    """A markdown cell's text as the reader reads it: no fences, options or labels; a role as
    its shown text (an {eval} role as one word)."""
    text = FENCE.sub("", text)
    text = OPTION.sub("", text)
    text = LABEL_LINE.sub("\n", text)

    def shown(m):
        if m.group("name") == "eval":
            return "N"
        own, target = role_parts(m.group("text"))
        return own if own is not None else target
    return ROLE.sub(shown, text)


def words(path: Path) -> int:
    """The number of words of the chapter at ``path`` a reader reads (module docstring)."""
    count = 0
    for cell in read(path)["cells"]:
        if SOLUTION_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        if cell["cell_type"] == "markdown":
            text = prose(cell_text(cell))
        else:
            fig = figure(cell)
            text = prose(str(fig.get("caption", ""))) if fig else ""
        count += sum(1 for token in text.split() if re.search(r"\w", token))
    return count


def minutes(n_words: int) -> int:
    """``n_words`` at :data:`WORDS_PER_MINUTE`, rounded to 5 minutes (at least 5)."""
    return max(5, 5 * round(n_words / WORDS_PER_MINUTE / 5))


#: the opening that computes its reading time (companion.presentation.reading): the role's
#: value is stored in the cell's metadata by ``python -m publish execute``
STATED_EVAL = re.compile(r"Reading time:\s+about\s+\{eval\}`reading\.minutes`\s+minutes")


def stated(path: Path) -> int | None:
    """The reading time the chapter's first markdown cell states, in minutes: the number it
    types, or the stored value of its ``{eval}`reading.minutes``` role."""
    cells = [c for c in read(path)["cells"] if c["cell_type"] == "markdown"]
    if not cells:
        return None
    if STATED_EVAL.search(cell_text(cells[0])):
        for item in cells[0].get("metadata", {}).get("user_expressions", []):
            if item.get("expression") == "reading.minutes":
                text = item.get("result", {}).get("data", {}).get("text/plain", "")
                return int(text) if text.isdigit() else None
        return None
    m = STATED.search(cell_text(cells[0]))
    return int(m.group(1)) if m else None


def main(argv: list[str] | None = None) -> int:
    for doc in notebooks():
        n = words(doc.path)
        print(f"{doc.name:24s} {n:6d} words  about {minutes(n):3d} minutes  "
              f"(states {stated(doc.path)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
