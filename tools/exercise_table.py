#!/usr/bin/env python3
"""The instructors' page's table of every exercise (book/instructors.md), read from the
chapters: label, title, kind, level, time, and whether ``check`` can verify the answer.

    python tools/exercise_table.py           # print the table
    python tools/exercise_table.py --write   # rewrite it in book/instructors.md

tests/test_exercises.py checks that the page's table is the one this renders.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ["intro", "one_step", "two_steps", "learned_directions", "reuse_vs_fresh",
            "finite_size"]
PAGE = ROOT / "book" / "instructors.md"
START, END = "<!-- exercise table: start -->", "<!-- exercise table: end -->"
EXERCISE = re.compile(r"```\{exercise\} ([^\n]*)\n:label: ([\w-]+)\n\s*\*\*([^*]+)\*\* · "
                      r"(\w+) · about (\d+) min")
CHECK = re.compile(r"""check\(\s*["']([\w-]+)""")


def exercises() -> list[dict]:
    """Every exercise of the book in reading order."""
    rows = []
    for stem in CHAPTERS:
        nb = json.loads((ROOT / "book" / f"{stem}.ipynb").read_text())
        checked = {m for c in nb["cells"] if c["cell_type"] == "code"
                   for m in CHECK.findall("".join(c["source"]))}
        for cell in nb["cells"]:
            for title, label, kind, level, minutes in EXERCISE.findall("".join(cell["source"])):
                rows.append({"chapter": stem, "title": title, "label": label, "kind": kind,
                             "level": level, "minutes": int(minutes),
                             "checked": label in checked})
    return rows


def render() -> str:
    """One table per chapter: each exercise (its number and title, linked), kind, level,
    time, and whether ``check`` verifies its answer."""
    rows = exercises()
    total = sum(r["minutes"] for r in rows)
    kinds = {k: sum(1 for r in rows if r["kind"] == k) for k in
             ("derivation", "prediction, then simulation", "coding")}
    out = [f"{len(rows)} exercises, about {total / 60:.1f} hours in all: "
           + ", ".join(f"{n} {k}" for k, n in kinds.items()) + "."]
    for stem in CHAPTERS:
        mine = [r for r in rows if r["chapter"] == stem]
        if not mine:
            continue
        minutes = sum(r["minutes"] for r in mine)
        out += ["", f"{{doc}}`{stem}` ({len(mine)} exercises, about {minutes} min)", "",
                "| exercise | kind | level | time | `check` |",
                "| --- | --- | --- | ---: | :---: |"]
        out += [f"| {{ref}}`{r['label']}`: {r['title']} | {r['kind']} | {r['level']} | "
                f"{r['minutes']} min | {'yes' if r['checked'] else ''} |" for r in mine]
    return "\n".join(out) + "\n"


def page_with_table(text: str) -> str:
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{render()}{END}{tail}"


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        PAGE.write_text(page_with_table(PAGE.read_text()))
        print(f"rewrote the exercise table of {PAGE.relative_to(ROOT)}")
    else:
        print(render())
