"""Lint and import order: ruff over the whole repository with the configuration in
pyproject.toml (``[tool.ruff]``), so that `make test`, `make test-quick` and CI fail on an
unused import, an undefined name or imports out of order. ``ruff check --fix .`` repairs most
findings; ``pre-commit install`` runs the same check before each commit."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_ruff_passes():
    proc = _ruff("check", "--no-cache", "--output-format", "concise", ".")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_ruff_is_configured_to_check_imports_and_names():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]
    assert {"E", "F", "W", "I"} <= set(config["lint"]["select"])
    assert config["line-length"] == 100


@pytest.mark.parametrize("source, rule", [
    ("import os\n", "F401"),                                     # unused import
    ("def f():\n    return undefined_name\n", "F821"),          # undefined name
    ("import sys\nimport os\n\nprint(os, sys)\n", "I001"),       # imports out of order
])
def test_ruff_catches_what_it_should(tmp_path, source, rule):
    """The check can fail: a file with the finding, under the repository's configuration."""
    bad = tmp_path / "bad.py"
    bad.write_text(source)
    proc = _ruff("check", "--no-cache", "--output-format", "concise",
                 "--config", str(ROOT / "pyproject.toml"), str(bad))
    assert proc.returncode == 1 and rule in proc.stdout, proc.stdout + proc.stderr


def test_pre_commit_uses_the_pinned_ruff():
    pin = re.search(r"^ruff==(\S+)$", (ROOT / "requirements.txt").read_text(), re.M)
    hooks = (ROOT / ".pre-commit-config.yaml").read_text()
    rev = re.search(r"ruff-pre-commit\s+rev:\s*v(\S+)", hooks)
    assert pin and rev and pin.group(1) == rev.group(1)
    installed = _ruff("--version").stdout.split()[-1]
    assert installed == pin.group(1), f"ruff {installed} installed, {pin.group(1)} pinned"


def test_no_test_module_imports_another():
    """Shared fixtures live in tests/conftest.py and shared helpers in tests/_helpers.py (and
    the play's in tests/_play.py): a test module that imports another runs that module's
    import-time work and hides where a fixture comes from."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if re.match(r"\s*(from|import)\s+(tests\.)?(test_|conftest\b)", line):
                found.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not found, found
