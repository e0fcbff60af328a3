"""The package's architecture: the entry points stand over the chapters, the chapters over
the core, no chapter imports another (import-linter's contracts in pyproject.toml, run here
with ``lint-imports``), and the package's modules import each other at the top of a module,
where a reader sees what a module depends on.

The contracts are shown to bite: a copy of the package with a planted cross-chapter import, or
an import of a chapter from the core, breaks them.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"
LINT = Path(sys.executable).with_name("lint-imports")
#: a function may import a package module only where that breaks an optional dependency
OPTIONAL: dict[str, set[str]] = {}


def lint(root: Path = ROOT, package_parent: Path = ROOT) -> subprocess.CompletedProcess:
    """``lint-imports`` with the contracts of ``root``/pyproject.toml on the package found
    in ``package_parent``."""
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    return subprocess.run([str(LINT), "--config", str(root / "pyproject.toml"), "--no-cache"],
                          cwd=package_parent, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_contracts_are_kept():
    out = lint()
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 kept, 0 broken" in out.stdout


@pytest.fixture
def package_copy(tmp_path):
    """A copy of the package (and its pyproject.toml) in which an import can be planted."""
    shutil.copytree(PACKAGE, tmp_path / "companion",
                    ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


LAYERS = "entry points over chapters over course over presentation over core"


@pytest.mark.parametrize("module,line,contract", [
    ("chapters/two_steps/figures.py", "from companion.chapters.one_step import figures",
     "no chapter imports another"),
    ("chapters/intro/summaries.py", "import companion.chapters.finite_size.tables",
     "no chapter imports another"),
    ("core/spikes.py", "from companion.chapters.two_steps import summaries", LAYERS),
    ("chapters/one_step/experiments.py", "from companion import simulate", LAYERS),
    ("core/network.py", "from companion.presentation import book", LAYERS),
    ("core/store.py", "from companion.course import answers", LAYERS),
    ("presentation/figures.py", "from companion.course import answers", LAYERS),
    ("course/answers.py", "from companion.chapters.one_step import exercises", LAYERS),
])
def test_a_planted_import_breaks_a_contract(package_copy, module, line, contract):
    path = package_copy / "companion" / module
    path.write_text(path.read_text() + f"\n{line}  # planted\n")
    out = lint(package_copy, package_copy)
    assert out.returncode != 0, out.stdout
    assert f"{contract} BROKEN" in out.stdout, out.stdout


def _function_imports(path: Path) -> set[str]:
    """The package modules that a function of ``path`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                if isinstance(sub, ast.ImportFrom) and (sub.level or (sub.module or "")
                                                         .startswith("companion")):
                    found.add(sub.module or ".")
                elif isinstance(sub, ast.Import):
                    found |= {a.name for a in sub.names if a.name.startswith("companion")}
    return found


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_package_import_inside_a_function(path):
    allowed = OPTIONAL.get(str(path.relative_to(ROOT)), set())
    assert _function_imports(path) <= allowed


#: the chapters' packages (companion/chapters/<chapter>)
CHAPTER_PACKAGES = sorted(p.name for p in (PACKAGE / "chapters").iterdir()
                          if (p / "__init__.py").exists())


def test_every_chapter_has_a_package_and_every_package_a_chapter():
    chapters = {p.stem for p in (ROOT / "book").glob("*.ipynb")} - {"explorer", "ten_minutes"}
    assert set(CHAPTER_PACKAGES) == chapters


@pytest.mark.parametrize("chapter", CHAPTER_PACKAGES)
def test_a_chapter_notebook_imports_no_other_chapter(chapter):
    # the notebook's code, the chapter's own words: another chapter's numbers or figures
    # would tie two chapters together where a reader sees only one
    notebook = json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text())
    code = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    others = set(re.findall(r"companion\.chapters\.(\w+)", code)) - {chapter}
    assert not others, f"book/{chapter}.ipynb imports the chapters {sorted(others)}"
