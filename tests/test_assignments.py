"""The autograded assignments (publish/assignments.py, ``make assignments``; otter-grader).

The fast tests read the master notebooks the tool writes (questions, points, public and
hidden tests, rubrics, the MyST markup gone) and its code transformations; the slow one builds
every chapter's assignment with ``otter assign`` and grades with ``otter run`` (no Docker):
the solutions get full points, the untouched student notebooks zero, and a submission with
one wrong answer loses exactly that question's point.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from companion.exercises import ANSWERS, check
from publish import answer_key, assignments, wheel
from publish.sources import cell_text

ROOT = Path(__file__).resolve().parents[1]

CHAPTERS = assignments.CHAPTERS


def _cells(nb):
    return [(c.cell_type, cell_text(c)) for c in nb.cells]


@pytest.fixture(scope="module")
def masters():
    return {stem: assignments.master(stem) for stem in CHAPTERS}


def test_every_exercise_becomes_questions_with_points(masters):
    labels = {ex["label"] for stem in CHAPTERS for ex in assignments.exercises(stem)}
    assert len(labels) == 27
    questions = {}
    for nb in masters.values():
        for kind, text in _cells(nb):
            if kind == "raw" and text.startswith("# BEGIN QUESTION"):
                config = assignments.yaml.safe_load(text.split("\n", 1)[1])
                questions[config["name"]] = config
    checked = {k.split("/")[0] for k in ANSWERS}
    for label in labels:
        name = assignments.variable(label)
        if label in checked:
            assert name in questions and not questions[name].get("manual"), label
        if label not in checked or label in assignments.rubrics():
            assert questions[f"{name}_written"]["manual"] is True, label
            assert questions[f"{name}_written"]["points"] > 0
    manual = [q for q in questions.values() if q.get("manual")]
    assert len(manual) == 13, "9 derivations and 4 exercises without a checker"


def test_every_checked_part_has_a_public_form_test_and_a_hidden_value_test(masters):
    tests = {}
    for nb in masters.values():
        for cell in nb.cells:
            text = cell_text(cell)
            if cell.cell_type == "code" and "TEST CONFIG" in text:
                hidden = "hidden: true" in text
                for label in ANSWERS:
                    if re.search(rf"\b{assignments.variable(label)}\b", text):
                        tests.setdefault(label, []).append((hidden, text, cell.outputs))
    for label in ANSWERS:
        kinds = sorted(h for h, _, _ in tests.get(label, []))
        assert kinds == [False, True], f"{label}: tests {kinds}"
        for hidden, text, outputs in tests[label]:
            shown = outputs[0]["data"]["text/plain"]
            if hidden:
                assert "points: 1" in text and shown == "True"
                assert "companion" not in text, "a hidden test must not call the package"
            else:
                assert "points: 0" in text and f'check("{label}",' in text
                assert shown == "True"


def _run_hidden(label: str, answer) -> bool:
    """Evaluate the hidden test of ``label`` as otter would, with ``answer`` in its variable."""
    body = assignments.hidden_test(label).source.split("# END TEST CONFIG\n", 1)[1]
    *setup, last = body.strip().splitlines()
    scope = {assignments.variable(label): answer}
    exec("\n".join(setup), scope)
    return eval(last, scope) is True


def _run_public(label: str, answer) -> bool:
    """Evaluate the public test of ``label`` as ``grader.check`` would."""
    body = assignments.public_test(label).source.split("# END TEST CONFIG\n", 1)[1]
    *setup, last = body.strip().splitlines()
    scope = {assignments.variable(label): answer}
    exec("\n".join(setup), scope)
    return eval(last, scope) is True


@pytest.mark.parametrize("label", sorted(ANSWERS))
def test_the_local_check_agrees_with_the_chapters_checker(label):
    """issue 41: a wrong answer got "Not yet" from check and "All test cases passed!" from
    grader.check right below it; now the public test is check's verdict, True or False."""
    spec, values = ANSWERS[label], answer_key.expected_values(label)
    right = answer_key.EXPECTED[label]()
    wrong = [v * 1.5 + 1.0 for v in values]
    answer = {"numbers": wrong, "function": lambda *a: wrong[spec.points.index(a)]}.get(
        spec.kind, wrong[0])
    assert _run_public(label, right) and bool(check(label, right))
    assert not _run_public(label, answer) and not bool(check(label, answer))
    assert str(values[0]) not in assignments.public_test(label).source


@pytest.mark.parametrize("label", sorted(ANSWERS))
def test_a_hidden_test_passes_every_answer_check_calls_right_and_fails_a_wrong_one(label):
    right = answer_key.EXPECTED[label]()
    assert _run_hidden(label, right)
    spec, values = ANSWERS[label], answer_key.expected_values(label)
    # at 1.4 tolerances check may still say right; the hidden test must then agree
    near = [v + 1.4 * (spec.atol + spec.rtol * abs(v)) for v in values]
    candidate = {"numbers": near, "function": lambda *a: near[spec.points.index(a)]}.get(
        spec.kind, near[0])
    if not spec.whole and check(label, candidate):
        assert _run_hidden(label, candidate)
    wrong = [v * 1.5 + 1.0 for v in values]
    answer = {"numbers": wrong, "function": lambda *a: wrong[spec.points.index(a)]}.get(
        spec.kind, wrong[0])
    assert not _run_hidden(label, answer)


def test_the_code_transformations_keep_the_answers_in_variables():
    code, labels = assignments.starter_code(
        ['from companion.exercises import check\n\nprint(check("a-ex/x", ...))   # note\n'])
    assert labels == ["a-ex/x"] and "a_ex_x = ...  # note" in code
    assert 'print(check("a-ex/x", a_ex_x))' in code
    code, labels = assignments.solution_code(
        'x = 2\nprint(check("a-ex/x", x * (0.5 -\n      0.4)))\ncheck("a-ex/y", f(1))\n')
    assert labels == ["a-ex/x", "a-ex/y"]
    scope = {"check": lambda label, v: v, "f": lambda v: v + 1, "print": lambda *a: None}
    exec(code, scope)
    assert scope["a_ex_x"] == pytest.approx(0.2) and scope["a_ex_y"] == 2


def test_the_questions_read_without_myst(masters):
    for stem, nb in masters.items():
        for kind, text in _cells(nb):
            if kind == "markdown":
                assert not re.search(r"\{[\w:-]+\}`", text), (stem, text[:200])
                assert "```{" not in text and ":label:" not in text, (stem, text[:200])


def test_every_hand_graded_question_has_a_rubric():
    assignments.check_rubrics()
    page = assignments.rubrics_page(CHAPTERS)
    assert page.count("## ") == 13 and "points" in page


def test_the_grader_installs_the_wheel_its_zip_carries_not_a_tag_or_branch():
    """The repository has no release tags and publishes only main: the autograder's
    requirements name the wheel that Otter Assign puts into the zip's files/wheels/, where
    Gradescope has unpacked it (/autograder/source/) when it builds the environment."""
    text = assignments.requirements()
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    assert lines[0] == (f"two-vs-one-step @ file://{assignments.AUTOGRADER_WHEELS}/"
                        f"{wheel.name()}")
    assert assignments.AUTOGRADER_WHEELS == "/autograder/source/files/wheels"
    assert "git+" not in text and "numpy==" in text
    config = assignments.yaml.safe_load(
        cell_text(assignments.master("intro").cells[0]).split("\n", 1)[1])
    assert config["files"] == [f"wheels/{wheel.name()}"]


# --- otter assign and otter run, no Docker ----------------------------------------------------

def _otter(*args, cwd: Path) -> subprocess.CompletedProcess:
    otter = Path(sys.executable).with_name("otter")
    return subprocess.run([str(otter), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=1800)


def _grade(dist: Path, notebook: Path, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    (zipfile,) = (dist / "autograder").glob("*-autograder_*.zip")
    proc = _otter("run", "-a", str(zipfile), "-o", str(out), str(notebook), cwd=notebook.parent)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads((out / "results.json").read_text())
    return {t["name"]: (t.get("score"), t.get("max_score")) for t in results["tests"]
            if t["name"] != "Public Tests"}


def _answered(student: Path, answers: dict, out: Path) -> Path:
    """The student notebook with each ``VAR = ...`` line given ``answers[label]`` (repr)."""
    nb = nbformat.read(student, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            for label, value in answers.items():
                cell.source = re.sub(rf"^{assignments.variable(label)} = \.\.\.",
                                     f"{assignments.variable(label)} = {value!r}",
                                     cell.source, flags=re.M)
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return out


def _resolves_as_on_gradescope(zipped: Path, where: Path) -> None:
    """The pip part of the zip's environment.yml, unpacked as Gradescope does it (into
    /autograder/source/; here ``where``/source, the path rewritten to match), resolves
    with pip: the wheel is where the requirement says, and it, otter-grader and the book's
    pins fit together (``pip install --dry-run``: nothing is installed)."""
    source = where / "source"
    with zipfile.ZipFile(zipped) as zf:
        zf.extractall(source)
        env = assignments.yaml.safe_load(zf.read("environment.yml"))
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    requirements = where / "requirements.txt"
    requirements.write_text("\n".join(line.replace("/autograder/source", str(source.resolve()))
                                      for line in pip) + "\n")
    report = where / "report.json"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--quiet",
                           "--ignore-installed", "--report", str(report), "-r",
                           str(requirements)], cwd=where, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    names = {i["metadata"]["name"]: i["metadata"]["version"]
             for i in json.loads(report.read_text())["install"]}
    assert names.get("two-vs-one-step") == wheel.version() and "otter-grader" in names


@pytest.mark.slow
def test_otter_grades_solutions_full_starters_zero_and_one_wrong_answer_partially(tmp_path):
    built = tmp_path / "assignments"
    proc = subprocess.run([sys.executable, "-m", "publish", "assignments", "--out",
                           str(built)], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (built / "rubrics.md").exists()
    for stem in CHAPTERS:
        dist = built / stem / "dist"
        student = dist / "student" / f"{stem}.ipynb"
        # the zip carries the wheel where its environment.yml installs it from, and the
        # student's folder has it beside the notebook
        (zipped,) = (dist / "autograder").glob("*-autograder_*.zip")
        with zipfile.ZipFile(zipped) as zf:
            assert f"files/wheels/{wheel.name()}" in zf.namelist()
            env = assignments.yaml.safe_load(zf.read("environment.yml"))
        pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
        assert (f"two-vs-one-step @ file://{assignments.AUTOGRADER_WHEELS}/{wheel.name()}"
                in pip), pip
        assert (dist / "student" / "wheels" / wheel.name()).is_file()
        if stem == "intro":
            _resolves_as_on_gradescope(zipped, tmp_path / "gradescope")
        # students get no hidden test and no solution
        text = student.read_text()
        assert '"hidden": true' not in text and "BEGIN SOLUTION" not in text
        assert "abs(float(" not in text and ".right" in text
        solved = _grade(dist, dist / "autograder" / f"{stem}.ipynb", tmp_path / "sol" / stem)
        assert solved and all(s == m and m > 0 for s, m in solved.values()), (stem, solved)
        untouched = _grade(dist, student, tmp_path / "start" / stem)
        assert set(untouched) == set(solved)
        assert all(s == 0 for s, _ in untouched.values()), (stem, untouched)
    # one wrong answer in the intro: that question fails, the other keeps its points
    dist = built / "intro" / "dist"
    answers = {label: (int if ANSWERS[label].whole else float)(answer_key.EXPECTED[label]())
               for label in ANSWERS if label.startswith("intro-")}
    answers["intro-ex-line"] = answers["intro-ex-line"] - 1
    graded = _grade(dist, _answered(dist / "student" / "intro.ipynb", answers,
                                    tmp_path / "wrong" / "intro.ipynb"), tmp_path / "wrong-out")
    assert graded == {"intro_ex_tanh": (2, 2), "intro_ex_line": (0, 1)}, graded


def test_the_instructors_page_explains_the_graded_module_with_the_current_release():
    page = (ROOT / "book" / "instructors.md").read_text()
    assert "## A graded module, end to end" in page and "make assignments" in page
    assert "otter run -a" in page and "Gradescope" in page and "rubrics.md" in page
    # the repository has no release tags: a course pins the wheel it carries, or a commit
    tags = set(re.findall(r"@v\d+\.\d+\.\d+|\bv\d+\.\d+\.\d+\b", page))
    assert not tags, f"the page names release tags {tags}"
    assert wheel.name() in page and "@<commit" in page
    assert f"otter-grader=={_pinned_otter()}" in page


def _pinned_otter() -> str:
    for line in (ROOT / "requirements-course.txt").read_text().splitlines():
        if line.startswith("otter-grader=="):
            return line.split("==")[1].strip()
    raise AssertionError("requirements-course.txt does not pin otter-grader")


def test_the_grader_is_a_course_tool_not_part_of_binders_environment():
    """Binder installs requirements.txt for every reader: the grader (and what it pulls in:
    nbconvert[webpdf], python-on-whales, ipywidgets, pandas, ...) is in
    requirements-course.txt, which make venv installs on top of it."""
    names = [re.split(r"[=<>\[ ;@]", ln.split("#")[0].strip())[0].lower()
             for ln in (ROOT / "requirements.txt").read_text().splitlines()
             if ln.split("#")[0].strip()]
    assert "otter-grader" not in names and "otter_grader" not in names
    course = [ln.split("#")[0].strip() for ln in
              (ROOT / "requirements-course.txt").read_text().splitlines()]
    assert "-r requirements.txt" in course and f"otter-grader=={_pinned_otter()}" in course
    make = (ROOT / "Makefile").read_text()
    assert "pip install --quiet -r requirements-course.txt -e ." in make
