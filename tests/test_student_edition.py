"""The student edition (issue 12; tools/student_edition.py, ``make student``): every exercise,
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import student_edition  # noqa: E402

CHAPTERS = ["intro", "one_step", "two_steps", "reuse_vs_fresh", "finite_size"]
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


def test_student_config_turns_off_execution_and_launch_buttons():
    config = student_edition.student_config((ROOT / "_config.yml").read_text())
    assert "execute_notebooks: 'off'" in config and "(student edition)" in config
    assert 'binderhub_url: ""' in config and 'colab_url: ""' in config


@pytest.mark.slow
def test_student_edition_builds_with_every_exercise_and_no_solution(tmp_path):
    out = tmp_path / "student"
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "student_edition.py"), "--out",
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
        # no launch button (it would open the repository's notebook, solutions included)
        assert "mybinder.org/v2/gh" not in page and "colab.research.google.com/github" not in page
