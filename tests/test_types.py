"""Types: mypy on the core (``companion/core``) with the configuration in pyproject.toml
(``[tool.mypy]``), so that `make test`, `make test-quick` and CI fail on a type error in
the core's annotated code. The configuration is lenient today (CONTRIBUTING.md,
"Decisions"): unannotated functions are not checked inside, and the errors found when it
was adopted are silenced per module by their codes."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _mypy(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_mypy_passes_on_the_core():
    proc = _mypy()
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "companion/core" in tomllib.loads((ROOT / "pyproject.toml").read_text())[
        "tool"]["mypy"]["files"]


def test_mypy_catches_what_it_should(tmp_path):
    """The check can fail: a file with a type error, under the repository's configuration."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x: int) -> str:\n    return x\n")
    proc = _mypy("--config-file", str(ROOT / "pyproject.toml"), "--cache-dir",
                 str(tmp_path / "cache"), str(bad))
    assert proc.returncode == 1 and "[return-value]" in proc.stdout, proc.stdout + proc.stderr
