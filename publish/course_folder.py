"""A course folder that runs wherever students open it: the seed of a course's repository.

``make course`` writes ``_build/course/``:

* ``notebooks/``: the student notebooks (publish/student_edition.py: the plain edition of
  every chapter, without solutions; they read well without MyST). Their first cell installs
  the companion wherever it is missing (Colab, or a Jupyter without it): the wheel in
  ``wheels/`` if it finds it, the repository's main branch otherwise; it does nothing where
  ``requirements.txt`` was installed (Binder, a local environment);
* ``assignments/`` (with ``--assignments``): the otter-grader student notebooks of
  ``make assignments``;
* ``wheels/two_vs_one_step-<companion.__version__>-py3-none-any.whl``: the package itself,
  built from this checkout (publish/wheel.py). The repository publishes only its main branch
  and no release tags, so the folder carries the package it installs: it installs the same
  on the last day of the course as on the first;
* ``requirements.txt``: that wheel, by its path in the folder, with the notebooks extra, and
  the versions of the book's own pins for what the notebooks import, JupyterLab and
  otter-grader (requirements-course.txt): what Binder (repo2docker, from the folder's root)
  installs and what a student installs locally with ``pip install -r requirements.txt``;
* ``runtime.txt``: the Python Binder uses (the book's);
* ``README.md``: how students open the notebooks (Binder, Colab, locally), with the links
  a course fills in once its repository exists.

tests/test_course_folder.py installs the folder into a fresh virtual environment from its own
files only (its requirements.txt and its wheel), outside the repository, and runs every
notebook to the end.

Usage: ``make course`` or ``python -m publish course [--out DIR] [--assignments]``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

from publish import student_edition, wheel
from publish.sources import ROOT, chapters

OUT = ROOT / "_build" / "course"
#: pinned from the book's requirements.txt: what the notebooks import, the Jupyter a
#: Binder serves, and the grader the assignments call
PINNED = ("numpy", "scipy", "matplotlib", "seaborn", "threadpoolctl", "tqdm", "joblib",
          "ipython", "ipykernel", "jupyterlab", "otter-grader")


def _pins() -> dict[str, str]:
    """The book's pins (requirements.txt) and the course's tools (requirements-course.txt)."""
    pins = {}
    for file in ("requirements.txt", "requirements-course.txt"):
        for line in (ROOT / file).read_text().splitlines():
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", line.split("#")[0].strip())
            if m:
                pins[m.group(1).lower()] = line.split("#")[0].strip()
    return pins


def package_requirement() -> str:
    """This package's wheel in the folder, by its path from the folder's root (where Binder
    and ``pip install -r requirements.txt`` run), with the notebooks extra. The leading
    ``./`` is what repo2docker looks for (``is_local_pip_requirement``) to install
    requirements.txt after it has copied the repository, so that the wheel is there."""
    return f"./wheels/{wheel.name()}[notebooks]"


def requirements() -> str:
    pins = _pins()
    missing = [name for name in PINNED if name not in pins]
    if missing:
        raise RuntimeError(f"requirements.txt and requirements-course.txt pin none of {missing}")
    return (f"# The companion, version {wheel.version()} (CHANGELOG.md of its repository says "
            "what changed), from the\n# wheel in this folder, and the versions its book was "
            "run with. Binder installs this file\n# from the folder's root; locally, from "
            "the folder's root:\n#   pip install -r requirements.txt\n"
            f"{package_requirement()}\n" + "\n".join(pins[name] for name in PINNED) + "\n")


def runtime() -> str:
    return (ROOT / "runtime.txt").read_text()


def readme(chapters: list[str], assignments: list[str]) -> str:
    version = student_edition._version()
    lines = [
        "# Two steps versus one: the course's notebooks", "",
        "The chapters of the executable companion to B. Moniri and H. Hassani, *Feature "
        "Learning in Linear-Width Two-Layer Networks: Two vs. One Step of Gradient Descent* "
        f"(arXiv:2605.17767), version {version}, as notebooks with their exercises and "
        "without solutions. The companion itself is in `wheels/` "
        f"(`{wheel.name()}`); `requirements.txt` installs it from there.", "",
        "## Open them", "",
        "- **Binder**: put this folder in a public repository and open "
        "`https://mybinder.org/v2/gh/OWNER/REPOSITORY/HEAD?urlpath=lab/tree/notebooks` "
        "(replace OWNER/REPOSITORY); Binder installs `requirements.txt` into Python "
        f"{runtime().strip().removeprefix('python-')} (`runtime.txt`).",
        "- **Colab**: open a notebook from the repository "
        "(`https://colab.research.google.com/github/OWNER/REPOSITORY/blob/main/notebooks/"
        "intro.ipynb`) or upload it, and upload the wheel from `wheels/` into the session's "
        "files (Colab's folder icon) before you run the first cell, which then installs it. "
        "Without the wheel, the first cell installs the companion's main branch from GitHub, "
        "which may be newer than these notebooks.",
        "- **Locally**, with Python 3.11 or newer:", "",
        "  ```bash",
        "  python -m venv .venv && . .venv/bin/activate",
        "  pip install -r requirements.txt",
        "  jupyter lab notebooks/",
        "  ```", "",
        "In any Jupyter, the first cell of each notebook installs the companion if it is "
        "missing (the wheel, if it is in `wheels/` beside the notebook or its folder); with "
        "`requirements.txt` installed it does nothing.", "",
        "## What is here", "",
        *[f"- `notebooks/{stem}.ipynb`" for stem in chapters],
        f"- `wheels/{wheel.name()}`: the companion package",
        *[f"- `assignments/{stem}.ipynb` (graded with otter-grader: answer in the cells, "
          "run `grader.check`, submit as your course says)" for stem in assignments], "",
        "## Graded or not", "",
        "These notebooks are for practice: each exercise's `check` cell says whether an "
        "answer is right or in which direction it is off. The same exercises as graded "
        "assignments (otter-grader; the same `check`, and a `grader.check` that agrees with "
        "it) are made by the companion's `make assignments` (see its page for instructors)"
        + (" and are in `assignments/` here." if assignments else
           "; `make course COURSE_FLAGS=--assignments` puts them into this folder."), "",
        ""]
    return "\n".join(lines)


def write(out: Path = OUT, with_assignments: bool = False) -> Path:
    if out.exists():
        shutil.rmtree(out)
    (out / "notebooks").mkdir(parents=True)
    package = wheel.build(out / "wheels")
    with tempfile.TemporaryDirectory() as tmp:
        student_edition.write_sources(Path(tmp))
        stems = [p.stem for p in chapters()]
        for stem in stems:
            shutil.copy2(Path(tmp) / "notebooks" / f"{stem}.ipynb",
                         out / "notebooks" / f"{stem}.ipynb")
    assignments = []
    if with_assignments:
        from publish import assignments as otter_assignments
        built = Path(tempfile.mkdtemp())
        try:
            for stem in otter_assignments.CHAPTERS:
                folder = otter_assignments.build(stem, built, package)
                (out / "assignments").mkdir(exist_ok=True)
                shutil.copy2(folder / "dist" / "student" / f"{stem}.ipynb",
                             out / "assignments" / f"{stem}.ipynb")
                assignments.append(stem)
        finally:
            shutil.rmtree(built, ignore_errors=True)
    (out / "requirements.txt").write_text(requirements())
    (out / "runtime.txt").write_text(runtime())
    (out / "README.md").write_text(readme(stems, assignments))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish course",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="output folder")
    parser.add_argument("--assignments", action="store_true",
                        help="add the otter-grader assignments (runs otter assign: minutes)")
    args = parser.parse_args(argv)
    out = write(args.out.resolve(), args.assignments)
    print(f"course folder: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
