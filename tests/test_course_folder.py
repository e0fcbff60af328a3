"""The course folder (publish/course_folder.py, ``make course``): the student notebooks, the
package's wheel, a requirements file that installs that wheel and the book's pins, a Binder
runtime and a README, that run wherever students open them.

The fast tests read the folder; the slow one installs it into a fresh virtual environment
from its own files only (its requirements.txt and its wheel; nothing from this checkout, no
git tag, no branch), outside the repository, and runs every notebook to the end as
JupyterLab would: no error, every figure drawn, the install cell a no-op because
requirements.txt put the package there."""

from __future__ import annotations

import json
import re

import pytest

from publish import assignments, course_folder, student_edition, wheel
from publish.sources import chapters

import _play
from _play import ROOT


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return course_folder.write(tmp_path_factory.mktemp("course") / "course")


def _chapters() -> list[str]:
    return [p.stem for p in chapters()]


def test_the_folder_holds_every_student_notebook_and_what_binder_needs(course):
    assert sorted(p.stem for p in (course / "notebooks").glob("*.ipynb")) == sorted(_chapters())
    assert (course / "runtime.txt").read_text() == (ROOT / "runtime.txt").read_text()
    readme = (course / "README.md").read_text()
    assert "pip install -r requirements.txt" in readme and "mybinder.org" in readme
    assert "github.com/moniri" not in readme, "the README links to the repository (solutions)"
    # the graded assignments and this folder each say how to get the other (issue 41)
    assert "make assignments" in readme and "--assignments" in readme
    intro = assignments.master("intro").cells[1].source
    assert "course folder" in intro and "make course" in intro


def test_the_requirements_install_the_folders_own_wheel_and_the_books_versions(course):
    lines = [ln for ln in (course / "requirements.txt").read_text().splitlines()
             if ln and not ln.startswith("#")]
    assert lines[0] == f"./wheels/{wheel.name()}[notebooks]" == course_folder.package_requirement()
    assert (course / "wheels" / wheel.name()).is_file()
    assert sorted(p.name for p in (course / "wheels").iterdir()) == [wheel.name()]
    text = (course / "requirements.txt").read_text()
    assert "git+" not in text and "@v" not in text, "no git tag or branch"
    pins = {ln.split("==")[0]: ln for ln in lines[1:]}
    assert set(pins) == set(course_folder.PINNED)
    for line in _play.requirement_pins(sorted(pins)):
        assert line in lines, f"{line} differs from the book's requirements.txt"


@pytest.mark.parametrize("stem", _chapters())
def test_each_notebook_installs_the_wheel_where_it_is_missing_and_has_no_solution(course,
                                                                                  stem):
    nb = json.loads((course / "notebooks" / f"{stem}.ipynb").read_text())
    first = _play.source(_play.code_cells(nb)[0])
    assert 'find_spec("companion") is None' in first and wheel.name() in first
    assert 'Path("..", "wheels")' in first, "the course folder's wheels/ beside notebooks/"
    assert "@v" not in first and "two-vs-one-step@main" in first, "main, named as such"
    assert not any(student_edition.is_solution(c) for c in nb["cells"])
    prose = "\n".join(_play.source(c) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert not re.search(r"```\{|rocket|dropdown|Solutions are", prose), stem


@pytest.mark.slow
def test_the_course_runs_in_a_fresh_environment_from_its_own_files(tmp_path):
    course = course_folder.write(tmp_path / "course")
    python = _play.make_venv(tmp_path / "venv")
    # the folder's own requirements.txt, from its root, as Binder and its README do it
    with _play.timed("course: fresh venv + pip install -r requirements.txt (its own wheel)"):
        _play.run([python, "-m", "pip", "install", "--quiet", "-r", "requirements.txt"],
                  cwd=course, timeout=3600)
    where = _play.run([python, "-c", "import companion, sys; print(companion.__file__)"],
                      cwd=tmp_path).stdout
    assert str(ROOT) not in where and "site-packages" in where
    # pip recorded where the package came from: the folder's wheel
    origin = json.loads(_play.run([python, "-c", "from importlib.metadata import distribution; "
                                   "print(distribution('two-vs-one-step').read_text("
                                   "'direct_url.json'))"], cwd=tmp_path).stdout)
    assert origin["url"] == (course / "wheels" / wheel.name()).resolve().as_uri(), origin
    env = _play.clean_env()
    failures = {}
    for stem in _chapters():
        nb = json.loads((course / "notebooks" / f"{stem}.ipynb").read_text())
        cells = _play.execute(nb, python, course / "notebooks", env, f"course: {stem}",
                              timeout=1800)
        found = _play.problems(nb, cells)
        install = cells[0]
        if any("pip" in out["text"].lower() for out in install or []):
            found.append("the install cell ran pip although requirements.txt was installed")
        if found:
            failures[stem] = found
    assert not failures, failures
