"""The book's exercises, for coursework (issue 12; book/CONVENTIONS.md, "Exercises").

* every exercise carries its kind, level and time, and the chapters have enough of them
  (four per content chapter with a derivation among them, two in the intro);
* solutions live in their own cells tagged ``solution`` (nothing else is tagged so, and no
  exercise text is), so the student edition can drop exactly them;
* the code of a starter cell and of a solution runs in a fresh kernel: every name it uses
  is imported or assigned in it (checked statically);
* every ``check`` label in the book has a checker, and every solution's own ``check`` call
  says "Right" in the stored outputs (the checkers themselves: tests/test_checkers.py).
"""

from __future__ import annotations

import ast
import builtins
import json
import re
from pathlib import Path

import pytest

from companion.exercises import ANSWERS, check

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ["intro", "one_step", "two_steps", "learned_directions", "reuse_vs_fresh",
            "finite_size"]
KINDS = ("derivation", "prediction, then simulation", "coding")
META = re.compile(r"^\*\*(" + "|".join(KINDS) + r")\*\* · (easy|medium|hard) · about \d+ min$")
EXERCISE = re.compile(r"```\{exercise\}[^\n]*\n:label: ([\w-]+)\n(.*?)```", re.S)
MIN_EXERCISES = {"intro": 2}
MIN_EXERCISES_CONTENT = 4


def _nb(stem: str) -> dict:
    return json.loads((ROOT / "book" / f"{stem}.ipynb").read_text())


def _text(cell: dict) -> str:
    return "".join(cell["source"])


def _tags(cell: dict) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def exercises(nb: dict) -> dict[str, dict]:
    """label -> {"meta": (kind, level), "cell": index, "starter": [cells], "solution":
    [cells]} for every exercise of a notebook, in order."""
    found, current, in_solution = {}, None, None
    for i, cell in enumerate(nb["cells"]):
        text = _text(cell)
        if cell["cell_type"] == "markdown" and "{exercise}" in text:
            m = EXERCISE.search(text)
            assert m, f"cell {i}: an exercise directive without a label: {text[:80]!r}"
            label, body = m.group(1), m.group(2).strip().splitlines()
            meta = META.match(body[0].strip()) if body else None
            found[label] = {"meta": meta.groups() if meta else None, "cell": i,
                            "starter": [], "solution": []}
            current = label
        start = re.search(r"\{solution-start\} ([\w-]+)", text)
        if start:
            in_solution = start.group(1)
        if in_solution:
            found.setdefault(in_solution, {"meta": None, "cell": None, "starter": [],
                                           "solution": []})["solution"].append(cell)
        elif current and "exercise" in _tags(cell):
            found[current]["starter"].append(cell)
        if "{solution-end}" in text:
            in_solution = None
    return found


ALL = {stem: exercises(_nb(stem)) for stem in CHAPTERS}


# --- what a course needs ----------------------------------------------------------------------

@pytest.mark.parametrize("stem", CHAPTERS)
def test_enough_exercises_with_a_derivation(stem):
    found = ALL[stem]
    need = MIN_EXERCISES.get(stem, MIN_EXERCISES_CONTENT)
    assert len(found) >= need, f"{stem}: {len(found)} exercises, a course needs {need}"
    if stem != "intro":
        kinds = [ex["meta"][0] for ex in found.values() if ex["meta"]]
        assert "derivation" in kinds, f"{stem}: no derivation exercise"


@pytest.mark.parametrize("stem", CHAPTERS)
def test_every_exercise_says_kind_level_and_time(stem):
    missing = [label for label, ex in ALL[stem].items() if ex["meta"] is None]
    assert not missing, (f"{stem}: exercises {missing} lack the line "
                         f"'**kind** · level · about N min' first in their text")


# --- solutions in their own, tagged cells ---------------------------------------------------

@pytest.mark.parametrize("stem", CHAPTERS)
def test_solutions_are_exactly_the_tagged_cells(stem):
    nb = _nb(stem)
    inside, wrong = False, []
    for i, cell in enumerate(nb["cells"]):
        text = _text(cell)
        if "{solution-start}" in text:
            inside = True
            if not text.lstrip().startswith("```{solution-start}"):
                wrong.append(f"cell {i} has text before its solution-start")
        is_tagged = "solution" in _tags(cell)
        if inside != is_tagged:
            wrong.append(f"cell {i} is {'not ' if inside else ''}tagged 'solution' but "
                         f"{'inside' if inside else 'outside'} a solution")
        if inside and "{exercise}" in text:
            wrong.append(f"cell {i}: an exercise shares a cell with a solution")
        if "{solution-end}" in text:
            tail = text.rstrip().split("{solution-end}")[1]
            if not text.rstrip().endswith("```") or tail.count("```") != 1:
                wrong.append(f"cell {i} has text after its solution-end")
            inside = False
    assert not wrong, f"{stem}: " + "; ".join(wrong)


@pytest.mark.parametrize("stem", CHAPTERS)
def test_every_exercise_has_a_solution(stem):
    without = [label for label, ex in ALL[stem].items() if not ex["solution"]]
    orphans = [label for label, ex in ALL[stem].items() if ex["cell"] is None]
    assert not without and not orphans, (f"{stem}: exercises without a solution {without}; "
                                         f"solutions without an exercise {orphans}")


# --- code that runs in a fresh kernel ---------------------------------------------------------

def _undefined_names(source: str) -> set[str]:
    """Names a piece of code reads that it never imports, assigns or gets from builtins
    (IPython magics and shell lines are skipped). Order is not checked, only presence."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    tree = ast.parse("\n".join(lines))
    defined, used = set(dir(builtins)), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (defined if isinstance(node.ctx, (ast.Store, ast.Del)) else used).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
            if not isinstance(node, ast.ClassDef):
                args = node.args
                defined.update(a.arg for a in [*args.posonlyargs, *args.args,
                                               *args.kwonlyargs, args.vararg, args.kwarg] if a)
        elif isinstance(node, ast.Lambda):
            defined.update(a.arg for a in [*node.args.args, *node.args.kwonlyargs,
                                           node.args.vararg, node.args.kwarg] if a)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            defined.add(node.name)
        elif isinstance(node, ast.comprehension):
            for target in ast.walk(node.target):
                if isinstance(target, ast.Name):
                    defined.add(target.id)
    return used - defined


def _code(cells: list[dict]) -> str:
    return "\n".join(_text(c) for c in cells if c["cell_type"] == "code")


@pytest.mark.parametrize("stem", CHAPTERS)
def test_exercise_code_runs_from_its_own_imports(stem):
    bad = {}
    for label, ex in ALL[stem].items():
        for part, cells in (("starter", ex["starter"]), ("solution", ex["solution"])):
            missing = _undefined_names(_code(cells))
            if missing:
                bad[f"{label} ({part})"] = sorted(missing)
    assert not bad, (f"{stem}: exercise code uses names it does not define (it must run in "
                     f"a fresh kernel, from its own imports): {bad}")


def test_the_static_check_finds_a_missing_name():
    assert _undefined_names("import numpy as np\nx = np.ones(N)") == {"N"}
    assert _undefined_names("from companion.exercises import check\ncheck('a', [k for k in "
                            "range(3)])") == set()


# --- checkers (the checkers themselves: tests/test_checkers.py) ---------------------------------

def test_check_names_a_wrong_label():
    with pytest.raises(KeyError, match="no checker"):
        check("no-such-exercise", 1)


def test_every_checker_belongs_to_an_exercise_of_the_book():
    labels = {label for found in ALL.values() for label in found}
    stray = sorted(k for k in ANSWERS if k.split("/")[0] not in labels)
    assert not stray, f"checkers for exercises the book does not have: {stray}"


CHECK_CALL = re.compile(r"""check\(\s*["']([\w/-]+)["']""")


@pytest.mark.parametrize("stem", CHAPTERS)
def test_checks_in_the_book_have_checkers_and_solutions_pass_them(stem):
    nb = _nb(stem)
    unknown, failing = [], []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        for label in CHECK_CALL.findall(_text(cell)):
            if label not in ANSWERS:
                unknown.append(label)
        if "solution" in _tags(cell) and CHECK_CALL.search(_text(cell)):
            shown = json.dumps(cell.get("outputs", []))
            if "Not yet" in shown or "No answer yet" in shown or "Right" not in shown:
                failing.append(CHECK_CALL.findall(_text(cell)))
    assert not unknown, f"{stem}: check() labels without a checker: {unknown}"
    assert not failing, f"{stem}: solution cells whose stored check is not 'Right': {failing}"
