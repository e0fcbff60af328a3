"""The student edition (issue 12; publish/student_edition.py, ``make student``): every exercise,
with its starter cell, and no solution, from the same notebooks as the instructor's edition.

The fast tests strip each chapter in memory; the slow one builds the student edition's web
pages strictly, without executing the chapters, and reads them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from publish import plain_edition, student_edition, wheel

ROOT = Path(__file__).resolve().parents[1]

CHAPTERS = ["intro", "one_step", "two_steps", "learned_directions", "reuse_vs_fresh",
            "finite_size"]
LABEL = re.compile(r"```\{exercise\}[^\n]*\n:label: ([\w-]+)")


def _nb(stem: str) -> dict:
    return json.loads((ROOT / "book" / f"{stem}.ipynb").read_text())


def _text(cell: dict) -> str:
    return "".join(cell["source"])


def _solution_lines(nb: dict, kind: str | None = None) -> set[str]:
    """Lines that only solution cells hold (long enough to be the solution's own words);
    ``kind``: of its markdown (or code) cells only."""
    elsewhere = {ln.strip() for c in nb["cells"] if not student_edition.is_solution(c)
                 for ln in _text(c).splitlines()}
    return {ln.strip() for c in nb["cells"] if student_edition.is_solution(c)
            and kind in (None, c["cell_type"]) for ln in _text(c).splitlines()
            if len(ln.strip()) >= 30 and ln.strip() not in elsewhere}


@pytest.mark.parametrize("stem", CHAPTERS)
def test_stripping_keeps_every_exercise_and_no_solution(stem):
    nb = _nb(stem)
    student = student_edition.strip_solutions(nb)
    labels = LABEL.findall("\n".join(_text(c) for c in nb["cells"]))
    kept = LABEL.findall("\n".join(_text(c) for c in student["cells"]))
    assert labels and kept == labels, f"{stem}: exercises {labels}, student edition {kept}"
    text = "\n".join(_text(c) for c in student["cells"])
    assert "{solution-start}" not in text and "{solution-end}" not in text
    lines = {ln.strip() for ln in text.splitlines()}
    leaked = [ln for ln in _solution_lines(nb) if ln in lines]
    assert not leaked, f"{stem}: solution text in the student edition: {leaked[:3]}"
    starters = [c for c in nb["cells"] if "exercise" in c.get("metadata", {}).get("tags", [])]
    assert all(c in student["cells"] for c in starters)
    assert len(nb["cells"]) > len(student["cells"]), "nothing was stripped"


def test_student_config_turns_off_execution_and_every_button_to_the_repository():
    config = student_edition.student_config((ROOT / "_config.yml").read_text())
    assert "execute_notebooks: 'off'" in config and "(student edition)" in config
    assert 'binderhub_url: ""' in config and 'colab_url: ""' in config
    assert "use_repository_button: false" in config and "use_issues_button: false" in config
    assert "use_repository_button: true" not in config and "use_issues_button: true" not in config
    # the book's extensions (publish/extensions/) are loaded from this repository's root
    assert f"publish.extensions.record_eval: {ROOT}" in config


def test_the_student_toc_leaves_out_the_instructors_page():
    toc = student_edition.student_toc((ROOT / "_toc.yml").read_text())
    assert "book/instructors" not in toc and "book/one_step" in toc and "book/references" in toc


#: what the student edition must not say (it has no such buttons, solutions or page)
UNTRUE = re.compile(r"rocket|dropdown|[Ss]olutions? (are|is) in|Binder and Colab buttons|"
                    r"the same icon|git clone|\{doc\}`instructors`|\(instructors\.md[ #)]|"
                    r"how far off")


def _student(stem: str) -> dict:
    return student_edition.student_text(student_edition.strip_solutions(_nb(stem)), stem)


@pytest.mark.parametrize("stem", CHAPTERS + ["explorer"])
def test_the_student_text_is_true_of_the_student_edition(stem):
    nb = _student(stem)
    prose = "\n".join(_text(c) for c in nb["cells"] if c["cell_type"] == "markdown")
    # a collapsed block's markup ({dropdown}, :class: dropdown) is not something it says
    prose = re.sub(r"^(`{3,}|:{3,})\{dropdown\}|^:class:.*$", "", prose, flags=re.M)
    assert not UNTRUE.search(prose), f"{stem}: {UNTRUE.search(prose).group(0)!r} in the prose"
    # the install cell runs wherever the package is missing (not only in Colab) and names
    # what it installs: the course's wheel if it is there, else the main branch, as such (the
    # repository has no release tags)
    installs = [_text(c) for c in nb["cells"] if "%pip install" in _text(c)]
    assert len(installs) == 1 and wheel.name() in installs[0], stem
    assert 'find_spec("companion") is None' in installs[0] and "google.colab" not in installs[0]
    assert "@v" not in installs[0] and "two-vs-one-step@main" in installs[0]
    assert "main branch" in installs[0], "the cell's comment says what the fallback is"
    # the instructor's notebooks are unchanged
    assert not any(wheel.name() in _text(c) for c in _nb(stem)["cells"])


def test_the_intro_tells_a_student_how_to_run_the_handed_out_notebooks():
    prose = "\n".join(_text(c) for c in _student("intro")["cells"])
    assert "## How to run this book" in prose and "notebooks your course hands out" in prose
    assert "Solutions" not in prose and "likely mistake" in prose


def test_a_fix_that_no_longer_matches_the_chapter_fails_loudly():
    nb = _nb("intro")
    for cell in nb["cells"]:
        cell["source"] = "".join(cell["source"]).replace("## How to run this book", "## Running")
    with pytest.raises(RuntimeError, match="no longer match"):
        student_edition.student_text(nb, "intro")


@pytest.mark.slow
def test_student_edition_builds_with_every_exercise_and_no_solution(tmp_path):
    out = tmp_path / "student"
    proc = subprocess.run([sys.executable, "-m", "publish", "student", "--out",
                           str(out)], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, f"student build failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-3000:]}"
    for stem in CHAPTERS:
        nb = _nb(stem)
        page = (out / "html" / "book" / f"{stem}.html").read_text()
        for label in LABEL.findall("\n".join(_text(c) for c in nb["cells"])):
            assert f'id="{label}"' in page, f"{stem}: exercise {label} missing from the page"
        assert "solution" not in re.findall(r'class="([^"]*)"', page).__str__(), (
            f"{stem}: the student page has a solution element")
        # the solutions' prose, where a line has no markup that the page would rewrite (a
        # line of solution code may be part of a longer line of the chapter's code)
        prose = [ln for ln in _solution_lines(nb, "markdown") if not set(ln) & set("$`{}\\*_[]<>&'\"")]
        words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
        leaked = [ln for ln in prose if re.sub(r"\s+", " ", ln) in words]
        assert not leaked, f"{stem}: solution text on the student page: {leaked[:3]}"
        notebook = json.loads((out / "notebooks" / f"{stem}.ipynb").read_text())
        assert not any(student_edition.is_solution(c) for c in notebook["cells"])
        # no launch button (it would open the repository's notebook, solutions included),
        # and no link to the repository (its button, issues, sources)
        assert "mybinder.org/v2/gh" not in page and "colab.research.google.com/github" not in page
        assert 'href="https://github.com' not in page, f"{stem}: a link to the repository"
        visible = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
        visible = re.sub(r"<[^>]+>", " ", visible)
        assert not re.search(r"rocket|dropdown|Solutions are", visible), stem
    assert not (out / "html" / "book" / "instructors.html").exists()


@pytest.mark.parametrize("stem", CHAPTERS)
def test_every_figure_of_the_student_notebooks_has_alt_text(stem):
    """The notebooks a course hands out (the plain edition without solutions) describe every
    image for a screen reader, as the book does (issue 41)."""
    path = ROOT / "book" / f"{stem}.ipynb"
    nb = student_edition.student_text(student_edition.strip_solutions(
        plain_edition.plain_notebook(path, plain_edition.Book())), stem)
    images = [o for c in nb["cells"] for o in c.get("outputs", [])
              if "image/png" in o.get("data", {})]
    assert all(o["metadata"]["image/png"]["alt"].strip() for o in images), stem
