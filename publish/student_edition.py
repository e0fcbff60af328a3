"""The student edition: the book without the exercises' solutions (issue 12).

Solutions live in their own cells, tagged ``solution`` (from ``{solution-start}`` to
``{solution-end}`` inclusive; book/CONVENTIONS.md, "Exercises"), so one set of sources gives
the instructor's edition (the book as built by ``make book``), the student edition, and
what nbval compares. This script

* writes the student notebooks, every chapter of the plain edition (publish/plain_edition.py:
  no MyST needed, boxes as quotes, the prose's numbers as stored) with its solution cells
  removed (exercises and their starter cells kept, stored outputs kept, execution counts
  renumbered), to ``_build/student/notebooks/``: they read well in Colab, Binder or any
  Jupyter as they are (each installs the package in Colab);
* builds the student edition's HTML from them, strictly (``-W``) and without executing the
  chapters again (the stored outputs of the instructor's run are shown), into
  ``_build/student/html/``.

The student edition says only what is true of it (:data:`STUDENT_TEXT`, applied to the
chapters' text here, never to the notebooks in ``book/``): no launch (rocket) button and no
repository or issues button (they lead to the repository, solutions included), so the
intro's "How to run this book" tells a student how to open the notebooks the course hands
out, and no sentence about solutions or dropdowns remains; the instructors' page is left
out; the install cell runs wherever the package is missing (Colab, or a Binder or local
Jupyter without it), not only in Colab, and says what it installs: the wheel a course folder
carries (publish/course_folder.py, publish/wheel.py:
``two_vs_one_step-<version>-py3-none-any.whl``)
if it finds it in the notebook's folder, in ``wheels/`` or in ``../wheels/``, and otherwise the
repository's ``main`` branch, named as such (the repository has no release tags).

Usage: ``make student`` or ``python -m publish student [--out _build/student]
[--notebooks-only]``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from publish import plain_edition, wheel
from publish.sources import ROOT, chapters, dumps

SOLUTION_TAG = "solution"
#: copied into the student edition's sources as they are (beside the stripped notebooks);
#: the stored runs because the registry page offers them for download
COPIED = ["_toc.yml", "_mathjax", "_css", "book", "companion/data/paper"]
#: pages of the book that the student edition leaves out (instructors' material: the
#: solutions, grading, the answer key)
LEFT_OUT = ["book/instructors"]


def _version() -> str:
    text = (ROOT / "companion" / "__init__.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def _how_to_run(match: re.Match) -> str:
    """The intro's "How to run this book", for students: the notebooks the course hands out,
    no launch buttons, no clone of the repository."""
    return ("## How to run this book\n\n"
            "- **Read it online**, as a web page, with every figure and number already "
            "computed.\n"
            "- **Run the chapters** from the notebooks your course hands out, in JupyterLab, "
            "Binder, Colab or any Jupyter. Each notebook's first cell installs the companion "
            "package where it is missing: the wheel your course hands out "
            f"(`{wheel.name()}`, version {_version()}), if it is beside the notebook or in "
            "`wheels/`, and otherwise the newest code of the companion's repository, which "
            "may differ from this edition. To install the wheel once into the Python that "
            "runs the notebooks:\n\n"
            "  ```bash\n"
            f'  pip install "wheels/{wheel.name()}[notebooks]"\n'
            "  ```\n")


#: (what it fixes, pattern, replacement, the chapters where it must match) for the text of
#: the student notebooks; a pattern that no longer matches where it must fails the build,
#: so a change of the chapters' wording cannot silently bring the wrong text back
STUDENT_TEXT = [
    ("the launch buttons, the repository and a clone of it",
     re.compile(r"## How to run this book\n.*?(?=\n## |\Z)", re.S), _how_to_run, {"intro"}),
    ("solutions in dropdowns",
     re.compile(r"\s*Solutions are in the dropdowns.*?(?=\n\n|\Z)", re.S), "", {"intro"}),
    ("the install cell: Colab only, and an unnamed source",
     re.compile(r"# In Colab, install the companion package first[^\n]*\n"
                r"import sys\n\s*\nif \"google\.colab\" in sys\.modules:\n"
                r"(\s+)%pip install --quiet \"two-vs-one-step\[notebooks\] @ "
                r"(git\+https://github\.com/[\w.-]+/[\w.-]+)\""),
     lambda m: install_cell(m.group(1), m.group(2)),
     {"intro", "one_step", "two_steps", "learned_directions", "reuse_vs_fresh", "finite_size",
      "explorer"}),
]


def install_cell(pad: str, repository: str) -> str:
    """The student notebooks' install cell: where the package is missing, the course's wheel
    if it is beside the notebook (in its folder, ``wheels/`` or ``../wheels/``: a course
    folder's layout, or a Colab session it was uploaded to), else the repository's main."""
    name = wheel.name()
    return ("# Install the companion package where it is missing (Colab, or a Jupyter without "
            "it): the wheel\n"
            f"# {name} (version {_version()}, the one this notebook was made\n"
            "# for) if your course handed it out and it is beside this notebook or in wheels/; "
            "otherwise\n# the repository's main branch, its newest code, which may differ "
            "from this notebook.\n"
            "import importlib.util\n"
            "from pathlib import Path\n\n"
            "if importlib.util.find_spec(\"companion\") is None:\n"
            f'{pad}_wheel = "{name}"\n'
            f'{pad}_found = [p / _wheel for p in (Path("."), Path("wheels"), Path("..", "wheels"))\n'
            f"{pad}          if (p / _wheel).is_file()]\n"
            f"{pad}_source = (_found[0].resolve().as_uri() if _found else\n"
            f'{pad}           "{repository}@main")\n'
            f'{pad}print("installing the companion from", _source)\n'
            f'{pad}%pip install --quiet "two-vs-one-step[notebooks] @ {{_source}}"')


def student_text(notebook: dict, stem: str) -> dict:
    """The notebook's cells with :data:`STUDENT_TEXT` applied (a new dict)."""
    out = json.loads(json.dumps(notebook))
    found = {what: 0 for what, *_ in STUDENT_TEXT}
    for cell in out["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for what, pattern, replacement, _ in STUDENT_TEXT:
            text, n = pattern.subn(replacement, text)
            found[what] += n
        cell["source"] = (text if isinstance(cell["source"], str)
                          else text.splitlines(keepends=True))
    missing = [what for what, _, _, where in STUDENT_TEXT if stem in where and not found[what]]
    if missing:
        raise RuntimeError(f"{stem}: the student edition's text fixes {missing} no longer match "
                           f"the chapter (publish/student_edition.py, STUDENT_TEXT)")
    return out


def student_toc(text: str) -> str:
    """_toc.yml without the pages the student edition leaves out."""
    return "\n".join(line for line in text.splitlines()
                     if not any(line.strip() == f"- file: {page}" for page in LEFT_OUT)) + "\n"


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
    no Binder or Colab buttons (they would open the repository's notebooks, with solutions),
    no repository or issues button (they lead to the repository, solutions included). The
    book's own extensions (publish/extensions/) are loaded from this repository, whose root
    is their path."""
    lines = []
    for line in text.splitlines():
        # a local extension's path, "." (the repository's root, where publish/ is): absolute
        line = re.sub(r"^(\s+publish\.[\w.]+:)[ \t]*\.[ \t]*$",
                      lambda m: f"{m.group(1)} {ROOT}", line)
        if line.startswith("title:"):
            title = line.split(":", 1)[1].strip().strip('"')
            line = f'title: "{title} (student edition)"'
        elif line.strip().startswith("execute_notebooks:"):
            line = line.split("execute_notebooks:")[0] + "execute_notebooks: 'off'"
        elif line.strip().startswith(("binderhub_url:", "colab_url:")):
            # the launch buttons would open the instructor's notebooks (with solutions) from
            # the repository: off; a course hands out _build/student/notebooks instead
            line = line.split(":")[0] + ': ""'
        elif line.strip().startswith(("use_repository_button:", "use_issues_button:")):
            line = line.split(":")[0] + ": false"
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
    (src / "_toc.yml").write_text(student_toc((ROOT / "_toc.yml").read_text()))
    for page in LEFT_OUT:
        for path in (src / page).parent.glob(Path(page).name + ".*"):
            path.unlink()
    book = plain_edition.Book()
    for path in chapters():
        # the HTML edition is built without executing: its prose shows the stored numbers
        nb = plain_edition.with_values_stored_inline(json.loads(path.read_text()), path.name)
        nb = plain_edition.as_jupyterlab_writes(student_text(strip_solutions(nb), path.stem))
        (src / "book" / path.name).write_text(dumps(nb))
        # the notebooks a course hands out are the plain edition's (they read well in Colab
        # and any Jupyter), without solutions and with execution counts that run on
        plain = student_text(strip_solutions(plain_edition.plain_notebook(path, book)),
                             path.stem)
        plain["cells"] = plain_edition.renumbered(plain["cells"])
        (notebooks / path.name).write_text(dumps(plain))
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
