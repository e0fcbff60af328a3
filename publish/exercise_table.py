"""The instructors' page's table of every exercise (book/instructors.md), read from the
chapters: label, title, kind, level, time, and whether ``check`` can verify the answer.

    python -m publish exercise-table           # print the table
    python -m publish exercise-table --write   # rewrite it in book/instructors.md

tests/test_exercises.py checks that the page's table is the one this renders.
"""

from __future__ import annotations

import re
import sys

from publish.sources import (
    DIRECTIVE,
    EXERCISE_META,
    ROOT,
    cell_text,
    notebooks,
    options,
    read,
)

PAGE = ROOT / "book" / "instructors.md"
START, END = "<!-- exercise table: start -->", "<!-- exercise table: end -->"
CHECK = re.compile(r"""check\(\s*["']([\w-]+)""")


def exercises() -> list[dict]:
    """Every exercise of the book in reading order."""
    rows = []
    for doc in notebooks():
        nb = read(doc.path)
        checked = {m for c in nb["cells"] if c["cell_type"] == "code"
                   for m in CHECK.findall(cell_text(c))}
        for cell in nb["cells"]:
            for m in DIRECTIVE.finditer(cell_text(cell)):
                opts, body = options(m.group("body"))
                meta = EXERCISE_META.match(body)
                if m.group("name") != "exercise" or meta is None:
                    continue
                rows.append({"chapter": doc.stem, "title": m.group("arg"),
                             "label": opts["label"], "kind": meta.group("kind"),
                             "level": meta.group("level"),
                             "minutes": int(meta.group("minutes")),
                             "checked": opts["label"] in checked})
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
    for stem in dict.fromkeys(r["chapter"] for r in rows):
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


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--write" in argv:
        PAGE.write_text(page_with_table(PAGE.read_text()))
        print(f"rewrote the exercise table of {PAGE.relative_to(ROOT)}")
    else:
        print(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
