#!/usr/bin/env python3
"""The student edition: the book without the exercises' solutions (issue 12).

Solutions live in their own cells, tagged ``solution`` (from ``{solution-start}`` to
``{solution-end}`` inclusive; book/CONVENTIONS.md, "Exercises"), so one set of sources gives
the instructor's edition (the book as built by ``make book``), the student edition, and
what nbval compares. This script

* writes the student notebooks, every chapter of the plain edition (tools/plain_edition.py:
  no MyST needed, boxes as quotes, the prose's numbers as stored) with its solution cells
  removed (exercises and their starter cells kept, stored outputs kept, execution counts
  renumbered), to ``_build/student/notebooks/``: they read well in Colab, Binder or any
  Jupyter as they are (each installs the package in Colab);
* builds the student edition's HTML from them, strictly (``-W``) and without executing the
  chapters again (the stored outputs of the instructor's run are shown), into
  ``_build/student/html/``.

Usage: ``make student`` or ``python tools/student_edition.py [--out _build/student]
[--notebooks-only]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import plain_edition  # noqa: E402

SOLUTION_TAG = "solution"
#: copied into the student edition's sources as they are (beside the stripped notebooks)
COPIED = ["_toc.yml", "_mathjax", "_css", "book"]


def is_solution(cell: dict) -> bool:
    return SOLUTION_TAG in cell.get("metadata", {}).get("tags", [])


def strip_solutions(notebook: dict) -> dict:
    """The notebook without its solution cells (a new dict; the input is unchanged)."""
    out = dict(notebook)
    out["cells"] = [cell for cell in notebook["cells"] if not is_solution(cell)]
    return out


def student_config(text: str) -> str:
    """_config.yml for the student edition: its own title, the chapters' stored outputs shown
    instead of executing them again (the solutions' outputs are gone with their cells), and
    no Binder or Colab buttons (they would open the repository's notebooks, with solutions)."""
    lines = []
    for line in text.splitlines():
        if line.startswith("title:"):
            title = line.split(":", 1)[1].strip().strip('"')
            line = f'title: "{title} (student edition)"'
        elif line.strip().startswith("execute_notebooks:"):
            line = line.split("execute_notebooks:")[0] + "execute_notebooks: 'off'"
        elif line.strip().startswith(("binderhub_url:", "colab_url:")):
            # the launch buttons would open the instructor's notebooks (with solutions) from
            # the repository: off; a course hands out _build/student/notebooks instead
            line = line.split(":")[0] + ': ""'

        lines.append(line)
    return "\n".join(lines) + "\n"


def write_sources(out: Path) -> Path:
    """The student edition's sources in ``out/src`` and its notebooks in ``out/notebooks``."""
    src, notebooks = out / "src", out / "notebooks"
    for folder in (src, notebooks):
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
    for name in COPIED:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns(".*", "_build"))
        else:
            shutil.copy2(path, src / name)
    (src / "_config.yml").write_text(student_config((ROOT / "_config.yml").read_text()))
    chapters = plain_edition.chapters()
    book = plain_edition.Book(chapters)
    for path in chapters:
        # the HTML edition is built without executing: its prose shows the stored numbers
        nb = plain_edition.with_values_stored_inline(json.loads(path.read_text()), path.name)
        (src / "book" / path.name).write_text(plain_edition.dumps(strip_solutions(nb)))
        # the notebooks a course hands out are the plain edition's (they read well in Colab
        # and any Jupyter), without solutions and with execution counts that run on
        plain = plain_edition.plain_notebook(path, book)
        plain["cells"] = plain_edition.renumbered(strip_solutions(plain)["cells"])
        (notebooks / path.name).write_text(plain_edition.dumps(plain))
    return src


def build(src: Path, out: Path) -> None:
    """Strict HTML build of ``src`` into ``out/html``."""
    cmd = [sys.executable, "-c", "import sys; from jupyter_book.cli.main import main; "
           "sys.exit(main())", "build", "--all", "-W", "-n", "--keep-going", str(src)]
    subprocess.run(cmd, check=True)
    html = out / "html"
    if html.exists():
        shutil.rmtree(html)
    shutil.copytree(src / "_build" / "html", html)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "student",
                        help="output folder (default: _build/student)")
    parser.add_argument("--notebooks-only", action="store_true",
                        help="write the student notebooks, do not build the HTML")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    src = write_sources(out)
    print(f"student notebooks: {out / 'notebooks'}")
    if not args.notebooks_only:
        build(src, out)
        print(f"student edition: {out / 'html' / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
