"""Autograded assignments (otter-grader) from the chapters' exercises (issue 21).

For every chapter this writes an Otter Assign master notebook and runs ``otter assign`` on it:

* a **question per exercise with a checker** (book/CONVENTIONS.md, "Exercises"): the
  exercise's text, the starter cell with each ``check(label, ...)`` answer held in a variable
  (``intro_ex_tanh_alpha2 = ...``), and the solution's code, which sets the variables. Its
  **public tests** (the student's notebook runs them with ``grader.check``) run the
  companion's own ``companion.exercises.check`` and show only True or False (so the local
  check and the chapter's checker agree, and neither reveals the answer), for 0 points; its
  **hidden tests** (only in the autograder) compare each value with the one
  publish/answer_key.py computes, for 1 point per part, self-contained (no call into the
  package the student's notebook could change). A hidden test accepts 1.6 times the stated
  tolerance, so that every answer ``check`` calls right gets the point (``check`` accepts at
  most 1.5 times);
* a **manual question** for every derivation, and for every exercise without a checker (the
  written argument; a response cell for the student), graded by hand with the rubric of
  publish/rubrics.yml;
* the solutions' markdown and code in the solution blocks (kept in the autograder's solutions
  notebook, removed from the student's).

Out of ``_build/assignments/`` (``make assignments``):

* ``<chapter>/master/<chapter>.ipynb``, the package's wheel in ``wheels/`` (publish/wheel.py;
  the repository publishes only its main branch and no release tags, so the autograder
  carries the package it grades with) and ``requirements.txt`` (that wheel and the book's
  pins, for the grading image). Otter Assign puts the wheel into the autograder zip under
  ``files/wheels/`` (the config's ``files``) and the requirements into the zip's
  ``environment.yml``; Gradescope unpacks the zip into ``/autograder/source/`` before its
  setup builds that environment, so the requirement names the wheel there
  (:data:`AUTOGRADER_WHEELS`). The wheel also lands beside the student's notebook
  (``dist/student/wheels/``);
* ``<chapter>/dist/student/<chapter>.ipynb``: what students get (public tests only);
* ``<chapter>/dist/autograder/``: the solutions notebook, the hidden tests and
  ``<chapter>-autograder_<date>.zip`` (what ``otter run`` and Gradescope grade with);
* ``rubrics.md``: the hand-graded questions, their points and rubrics (instructors only).

The chapters are read with nbformat, never changed; the exercises' MyST markup is turned into
plain Markdown as the plain edition does it (publish/plain_edition.py: roles as text, the
prose's numbers as stored), so the questions read the same in any Jupyter.

Usage: ``make assignments`` or ``python -m publish assignments [--out DIR] [CHAPTER ...]``.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import yaml

from companion.exercises import ANSWERS
from publish import answer_key, plain_edition, wheel
from publish.sources import (
    DIRECTIVE,
    EXERCISE_META,
    ROOT,
    cell_text,
    notebooks,
    options,
    repository,
)

#: the chapters with exercises, in reading order
CHAPTERS = [doc.stem for doc in notebooks() if "```{exercise}" in doc.path.read_text()]
RUBRICS = Path(__file__).resolve().parent / "rubrics.yml"
OUT = ROOT / "_build" / "assignments"
#: a hidden test's tolerance, in units of the stated one (check accepts at most 1.5)
HIDDEN_SLACK = 1.6
#: the packages (besides this one) whose versions requirements.txt pins for the grader
PINNED = ("numpy", "scipy", "matplotlib", "seaborn")
#: where the autograder's wheel is while Gradescope builds the grading environment: the
#: zip's files/ (Otter Assign's ``files``) unpacked into /autograder/source/ (otter's default
#: autograder_dir, /autograder). An absolute path, because the relative one would depend on
#: the working directory of the pip that mamba runs for environment.yml's pip section.
AUTOGRADER_WHEELS = "/autograder/source/files/wheels"

CHECK = re.compile(r"""check\(\s*["']([\w/-]+)["']\s*,\s*\.\.\.\s*\)""")


# --- reading the chapters -------------------------------------------------------------------

def _tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


_BOOK = None


def _book():
    """The book's labels, titles and figures, for cross-references as text
    (publish/plain_edition.py, the same as the plain edition shows)."""
    global _BOOK
    if _BOOK is None:
        _BOOK = plain_edition.Book()
    return _BOOK


def exercises(stem: str) -> list[dict]:
    """Every exercise of a chapter, in order: label, title, kind, level, minutes, text (plain
    Markdown, without the first line), its starter code cells and its solution cells (their
    markdown already plain)."""
    nb = nbformat.read(ROOT / "book" / f"{stem}.ipynb", as_version=4)
    found, current, inside = [], None, False
    for cell in nb.cells:
        text = cell_text(cell)
        m = next((d for d in DIRECTIVE.finditer(text) if d.group("name") == "exercise"),
                 None) if cell.cell_type == "markdown" else None
        if m:
            opts, body = options(m.group("body"))
            meta = EXERCISE_META.search(body)
            current = {"label": opts["label"], "title": plain(m.group("arg").strip(), cell, stem),
                       "kind": meta.group("kind"), "level": meta.group("level"),
                       "minutes": int(meta.group("minutes")),
                       "text": plain(EXERCISE_META.sub("", body, count=1).strip(), cell, stem),
                       "starter": [], "solution": []}
            found.append(current)
            continue
        if "{solution-start}" in text:
            inside = True
            continue
        if "{solution-end}" in text:
            inside = False
            continue
        if inside and current:
            if cell.cell_type == "markdown":
                cell = nbformat.v4.new_markdown_cell(plain(text, cell, stem))
            current["solution"].append(cell)
        elif current and "exercise" in _tags(cell) and cell.cell_type == "code":
            current["starter"].append(cell)
    return found


def plain(markdown: str, cell=None, stem: str = "") -> str:
    """Markdown of the book as plain Markdown, as the plain edition writes it: the prose's
    {eval} numbers as stored in ``cell``, boxes as quotes, roles as text or links."""
    values = plain_edition.stored_values(cell) if cell is not None else {}
    text = plain_edition.with_stored_values(markdown, values, f"{stem}.ipynb")
    text = plain_edition.plain_markdown(text, _book(), stem)
    # a link to another chapter's notebook leads nowhere in an assignment's folder
    return re.sub(r"\[([^\]]+)\]\([\w-]+\.ipynb\)", r"*\1*", text)


def variable(label: str) -> str:
    """The variable that holds the answer to ``label``: intro-ex-tanh/alpha2 ->
    intro_ex_tanh_alpha2."""
    return re.sub(r"\W", "_", label)


def chapter_title(stem: str) -> str:
    nb = nbformat.read(ROOT / "book" / f"{stem}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell_text(cell).splitlines():
                if line.startswith("# "):
                    return plain(line[2:].strip(), cell, stem)
    return stem


# --- the code cells ---------------------------------------------------------------------------

def starter_code(sources: list[str]) -> tuple[str, list[str]]:
    """The starter with every ``check("L", ...)`` answer in a variable: a line ``VAR = ...  #
    note`` right before the check (the note is the starter's comment on that line), and
    ``check("L", VAR)``. Returns the code and the labels, in order."""
    code = "\n\n".join(s.rstrip() for s in sources)
    labels, lines = [], []
    for line in code.splitlines():
        found = CHECK.findall(line)
        if not found:
            lines.append(line)
            continue
        pad = line[:len(line) - len(line.lstrip())]
        for label in found:
            labels.append(label)
            note = line.split("#", 1)[1].strip() if "#" in line else ANSWERS[label].what
            lines.append(f"{pad}{variable(label)} = ...  # {note}")
        lines.append(CHECK.sub(lambda m: f'check("{m.group(1)}", {variable(m.group(1))})',
                               line.split("#", 1)[0].rstrip()))
    return "\n".join(lines).strip() + "\n", labels


def solution_code(source: str) -> tuple[str, list[str]]:
    """The solution with each ``check("L", EXPR)`` split into ``VAR = EXPR`` and
    ``check("L", VAR)``, so that the answers are in the variables the tests read."""
    lines = [ln for ln in source.splitlines()]
    tree = ast.parse(source)
    labels, edits = [], []          # (statement, [(call text, label, expr text)])
    for stmt in tree.body:
        calls = []
        for node in ast.walk(stmt):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check"
                    and len(node.args) == 2 and isinstance(node.args[0], ast.Constant)):
                label = node.args[0].value
                calls.append((ast.get_source_segment(source, node), label,
                              ast.get_source_segment(source, node.args[1])))
        if calls:
            edits.append((stmt, calls))
    for stmt, calls in reversed(edits):
        first, last = stmt.lineno - 1, stmt.end_lineno
        text = "\n".join(lines[first:last])
        pad = " " * stmt.col_offset
        assign = []
        for call, label, expr in calls:
            expr = expr if "\n" not in expr else f"({expr})"
            assign.append(f"{pad}{variable(label)} = {expr}")
            text = text.replace(call, f'check("{label}", {variable(label)})', 1)
            labels.insert(0, label)
        lines[first:last] = assign + text.splitlines()
    return "\n".join(lines).rstrip() + "\n", labels


# --- tests --------------------------------------------------------------------------------------

def _bound(label: str, value: float) -> float:
    spec = ANSWERS[label]
    return HIDDEN_SLACK * (spec.atol + spec.rtol * abs(value))


def public_test(label: str) -> nbformat.NotebookNode:
    """What ``grader.check`` runs in the student's notebook: the companion's own check, so
    that the two agree (a wrong answer fails both); it shows ``True`` or ``False``, never the
    value."""
    code = (f'""" # BEGIN TEST CONFIG\npoints: 0\n""" # END TEST CONFIG\n'
            f"from companion.exercises import check\n"
            f'check("{label}", {variable(label)}).right')
    return _test_cell(code, "True", ANSWERS[label])


def hidden_test(label: str) -> nbformat.NotebookNode:
    """The value, compared without the package (a student's notebook could change it)."""
    spec, name = ANSWERS[label], variable(label)
    values = answer_key.expected_values(label)
    config = '""" # BEGIN TEST CONFIG\nhidden: true\npoints: 1\n""" # END TEST CONFIG\n'
    if spec.whole and spec.kind != "function":
        v = int(round(values[0]))
        body = (f"_x = float({name})\n"
                f"abs(_x - round(_x)) <= 1e-9 * max(1.0, abs(_x)) and round(_x) == {v}")
    elif spec.kind == "number":
        body = f"abs(float({name}) - {values[0]!r}) <= {_bound(label, values[0])!r}"
    elif spec.kind == "numbers":
        pairs = [(v, _bound(label, v)) for v in values]
        body = (f"_x = [float(v) for v in {name}]\n"
                f"len(_x) == {len(values)} and all(abs(a - v) <= b for a, (v, b) in "
                f"zip(_x, {pairs!r}))")
    else:
        cases = [(tuple(p), v, _bound(label, v) if not spec.whole else 1e-9)
                 for p, v in zip(spec.points, values)]
        body = (f"all(abs(float({name}(*p)) - v) <= b for p, v, b in {cases!r})")
    return _test_cell(config + body, "True", spec)


def _test_cell(code: str, shown: str, spec) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(code)
    cell.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": shown},
                                           execution_count=1)]
    return cell


# --- the master notebook --------------------------------------------------------------------

def _raw(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_raw_cell(text)


def _md(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(text)


def _question(name: str, **config) -> nbformat.NotebookNode:
    return _raw("# BEGIN QUESTION\n" + yaml.safe_dump({"name": name, **config},
                                                      sort_keys=False).strip())


def _exercise_text(ex: dict) -> str:
    return (f"### {ex['title']} (`{ex['label']}`)\n\n*{ex['kind']} · {ex['level']} · "
            f"about {ex['minutes']} min*\n\n{ex['text']}")


def rubrics() -> dict:
    return yaml.safe_load(RUBRICS.read_text())


def master(stem: str) -> nbformat.NotebookNode:
    """The Otter Assign master notebook of one chapter."""
    found, marks = exercises(stem), rubrics()
    url, _ = repository()
    config = {
        "name": stem,
        "requirements": "requirements.txt",
        # the package's wheel: into the autograder zip (files/wheels/) and beside the
        # student's notebook (dist/student/wheels/)
        "files": [f"wheels/{wheel.name()}"],
        "python_version": 3.11,
        "init_cell": True,
        "check_all_cell": False,
        "run_tests": False,
        "show_question_points": True,
        "export_cell": {"pdf": False, "instructions": (
            "Save the notebook, run this cell and submit the zip file it makes (or the "
            "notebook itself, as your course says). Otter may print \"No log found with "
            "which to verify student scores\" and a table with a \"Public Tests\" row of "
            "NaN: that is its own bookkeeping (no log is kept here and the checks above "
            "carry no points), not a verdict on your answers.")},
        "generate": {"pdf": False, "show_stdout": True},
        "tests": {"files": False, "ok_format": True},
    }
    cells = [_raw("# ASSIGNMENT CONFIG\n" + yaml.safe_dump(config, sort_keys=False).strip()),
             _md(f"# Exercises: {chapter_title(stem)}\n\n"
                 f"The exercises of the chapter *{chapter_title(stem)}* of the executable "
                 f"companion ({url}), as an assignment. Read and run the chapter first.\n\n"
                 "* Where an answer is a number, a list or a function, put it in the variable "
                 "in place of `...` and run the cell: `check` says whether it is right or "
                 "in which direction it is off, never the answer. `grader.check(...)` "
                 "under it runs the same check and passes only when `check` says right; "
                 "the points are given by the grader after you submit.\n"
                 "* Where an exercise asks for a derivation or an explanation, write it in the "
                 "Markdown cell under it (LaTeX between `$` signs works).\n"
                 "* Every code cell runs on its own: it imports what it needs.\n"
                 "* The same exercises, ungraded and with their solutions to unfold, are "
                 "in the chapter itself and in the course folder your instructor may hand "
                 "out (`make course`); this notebook is their graded form.")]
    for ex in found:
        label, name = ex["label"], variable(ex["label"])
        checked = [lbl for lbl in ANSWERS if lbl.split("/")[0] == label]
        manual = ex["kind"] == "derivation" or not checked
        written = [c for c in ex["solution"] if c.cell_type == "markdown"]
        code = [c for c in ex["solution"] if c.cell_type == "code"]
        if manual:
            rubric = marks[label]
            cells += [_question(f"{name}_written", manual=True,
                                points=sum(r["points"] for r in rubric["criteria"])),
                      _md(_exercise_text(ex) + (
                          "\n\n*Write your derivation or explanation below.*" if checked else
                          "\n\n*Write your prediction, the run and what it shows below; run "
                          "the simulation in the code cell.*")),
                      _raw("# BEGIN SOLUTION"),
                      *[_md(cell_text(c)) for c in written],
                      _raw("# END SOLUTION")]
            if not checked:
                for c in code:
                    cells += [_raw("# BEGIN SOLUTION"),
                              nbformat.v4.new_code_cell(
                                  "# your simulation\n# BEGIN SOLUTION\n"
                                  + cell_text(c).rstrip() + "\n# END SOLUTION"),
                              _raw("# END SOLUTION")]
            cells.append(_raw("# END QUESTION"))
        if not checked:
            continue
        starter, s_labels = starter_code([cell_text(c) for c in ex["starter"]])
        solution, sol_labels = solution_code("\n\n".join(cell_text(c) for c in code))
        if sorted(s_labels) != sorted(checked) or sorted(sol_labels) != sorted(checked):
            raise RuntimeError(f"{label}: checkers {checked}, starter checks {s_labels}, "
                               f"solution checks {sol_labels}")
        intro = (f"**Check your numbers** for `{label}`" + (
            f": {', '.join(ANSWERS[lbl].what for lbl in s_labels)}." if len(s_labels) < 3
            else ".") if manual else _exercise_text(ex))
        cells += [_question(name),
                  _md(intro),
                  _raw("# BEGIN PROMPT"), nbformat.v4.new_code_cell(starter),
                  _raw("# END PROMPT"),
                  _raw("# BEGIN SOLUTION")]
        if not manual:
            cells += [_md(cell_text(c)) for c in written]
        cells += [nbformat.v4.new_code_cell("# BEGIN SOLUTION NO PROMPT\n" + solution
                                            + "# END SOLUTION"),
                  _raw("# END SOLUTION"),
                  _raw("# BEGIN TESTS"),
                  *[public_test(lbl) for lbl in s_labels],
                  *[hidden_test(lbl) for lbl in s_labels],
                  _raw("# END TESTS"),
                  _raw("# END QUESTION")]
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def requirements() -> str:
    """The grader's environment (Gradescope builds its image from it): this package from the
    wheel the autograder zip carries, and the versions of the book's own pins for what the
    exercises import."""
    pins = [ln.strip() for ln in (ROOT / "requirements.txt").read_text().splitlines()
            if ln.split("==")[0].strip() in PINNED]
    return (f"# the companion, version {wheel.version()}, from the wheel in the autograder zip "
            "(files/wheels/, unpacked\n# into /autograder/source/ before the grading "
            "environment is built), and the book's pins\n"
            f"two-vs-one-step @ file://{AUTOGRADER_WHEELS}/{wheel.name()}\n"
            + "\n".join(pins) + "\n")


def rubrics_page(chapters: list[str]) -> str:
    """The hand-graded questions with points and rubrics: instructors' material."""
    marks, out = rubrics(), ["# Rubrics of the hand-graded questions", "",
                             "Instructors only. Points per criterion; partial credit within a "
                             "criterion at the grader's judgement.", ""]
    for stem in chapters:
        for ex in exercises(stem):
            if ex["label"] not in marks:
                continue
            rubric = marks[ex["label"]]
            total = sum(r["points"] for r in rubric["criteria"])
            out += [f"## {ex['title']} (`{ex['label']}`, {stem}): {total} points", ""]
            out += [f"- **{r['points']}**: {r['text']}" for r in rubric["criteria"]]
            out.append("")
    return "\n".join(out)


def build(stem: str, out: Path, package: Path) -> Path:
    """Write the master notebook beside the package's wheel (``package``, from
    publish/wheel.py) and run ``otter assign``; returns the chapter's folder."""
    if package.name != wheel.name():
        raise ValueError(f"{package.name} is not this version's wheel ({wheel.name()})")
    folder = out / stem
    src, dist = folder / "master", folder / "dist"
    (src / "wheels").mkdir(parents=True, exist_ok=True)
    shutil.copy2(package, src / "wheels" / package.name)
    nbformat.write(master(stem), src / f"{stem}.ipynb")
    (src / "requirements.txt").write_text(requirements())
    otter = Path(sys.executable).with_name("otter")
    cmd = [str(otter) if otter.exists() else "otter", "assign", "--no-pdfs",
           str(src / f"{stem}.ipynb"), str(dist)]
    proc = subprocess.run(cmd, cwd=src, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"otter assign failed for {stem}:\n{proc.stdout}\n{proc.stderr}")
    _tidy_student(dist / "student" / f"{stem}.ipynb")
    return folder


def _tidy_student(path: Path) -> None:
    """Drop the empty code cells that the solutions leave in the student's notebook."""
    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if c.cell_type != "code" or cell_text(c).strip()]
    nbformat.write(nb, path)


def check_rubrics() -> None:
    """Every hand-graded exercise has a rubric, and no rubric is for another."""
    manual = {ex["label"] for stem in CHAPTERS for ex in exercises(stem)
              if ex["kind"] == "derivation"
              or not any(k.split("/")[0] == ex["label"] for k in ANSWERS)}
    marks = rubrics()
    if set(marks) != manual:
        raise RuntimeError(f"rubrics missing for {sorted(manual - set(marks))}, "
                           f"for no hand-graded exercise: {sorted(set(marks) - manual)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish assignments",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help=f"chapters (default: all of "
                                                     f"{', '.join(CHAPTERS)})")
    parser.add_argument("--out", type=Path, default=OUT, help="output folder")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.chapters) - set(CHAPTERS))
    if unknown:
        parser.error(f"unknown chapters {unknown}; the chapters are {', '.join(CHAPTERS)}")
    check_rubrics()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    package = wheel.build(out / "wheels")
    print(f"wheel: {package}")
    for stem in args.chapters or CHAPTERS:
        folder = build(stem, out, package)
        print(f"{stem}: {folder / 'dist'}")
    (out / "rubrics.md").write_text(rubrics_page(args.chapters or CHAPTERS))
    print(f"rubrics: {out / 'rubrics.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
