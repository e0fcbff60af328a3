"""Binder's files (``binder/``), read without building anything; tests/test_anywhere.py plays
them (slow).

repo2docker reads ``binder/`` first and then ignores the root's requirements.txt and
runtime.txt, so Binder's environment is the readers' own, not CI's:

* ``binder/requirements.txt`` pins exactly what the chapters run (the package's runtime
  dependencies, the ``notebooks`` extra and the kernel) and JupyterLab with its MyST
  extension, each at the root requirements.txt's version (the book's stored outputs come
  from those), and nothing else: no test, lint, grading or book-building tool;
* ``binder/runtime.txt`` is the root's runtime.txt (the course folder copies that one);
* ``binder/postBuild`` is executable, installs the package itself without its dependencies
  (repo2docker does not when a binder/ folder exists), writes the JupyterLab reading into
  Binder's copy of the chapters (``python -m publish jupyterlab --in-place book``;
  tests/test_editions.py checks what that command writes), and writes JupyterLab's overrides
  with settings that the pinned JupyterLab's own schema knows: no news, no update check.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement

import _play

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"
#: JupyterLab's plugin whose settings ask about news and updates, and its schema's file
NOTIFICATION = "@jupyterlab/apputils-extension:notification"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            req = Requirement(line)
            spec, = req.specifier
            assert spec.operator == "==", f"{path.name}: {line} is not pinned with =="
            pins[_norm(req.name)] = spec.version
    return pins


def _readers_needs() -> set[str]:
    """What a reader's kernel needs: the package's dependencies and its notebooks extra,
    ipykernel; and the JupyterLab a reader works in, with jupyterlab-myst."""
    project = _play.pyproject()["project"]
    specs = project["dependencies"] + project["optional-dependencies"]["notebooks"]
    return {_norm(Requirement(s).name) for s in specs} | {"ipykernel", "jupyterlab",
                                                          "jupyterlab-myst"}


def test_binder_requirements_are_the_readers_pins_of_the_root():
    binder, root = _pins(BINDER / "requirements.txt"), _pins(ROOT / "requirements.txt")
    assert set(binder) == _readers_needs(), (
        f"binder/requirements.txt should pin exactly what the chapters run and JupyterLab: "
        f"missing {sorted(_readers_needs() - set(binder))}, "
        f"not for readers {sorted(set(binder) - _readers_needs())}")
    differ = {name: (version, root.get(name)) for name, version in binder.items()
              if root.get(name) != version}
    assert not differ, f"binder/requirements.txt differs from requirements.txt: {differ}"


def test_binder_installs_no_package_by_itself():
    text = (BINDER / "requirements.txt").read_text()
    local = [ln for ln in text.splitlines()
             if re.match(r"\s*(-e|--editable|\.|file:|-r|-c)\b", ln.split("#")[0])]
    assert not local, f"binder/requirements.txt: {local} (binder/postBuild installs the package)"


def test_binder_runtime_is_the_books():
    assert (BINDER / "runtime.txt").read_text() == (ROOT / "runtime.txt").read_text()


def test_post_build_installs_the_package_without_dependencies():
    post = BINDER / "postBuild"
    assert os.access(post, os.X_OK), "binder/postBuild must be executable"
    mode = subprocess.run(["git", "ls-files", "--stage", "binder/postBuild"], cwd=ROOT,
                          capture_output=True, text=True).stdout.split()
    assert not mode or mode[0] == "100755", f"git stores binder/postBuild as {mode[0]}"
    text = post.read_text()
    assert text.startswith("#!/bin/bash\n") and "set -euo pipefail" in text
    install = re.search(r'"\$python" -m pip install (.*) \.$', text, re.M)
    assert install and "--no-deps" in install.group(1), "postBuild: pip install --no-deps ."
    assert "--editable" not in install.group(1) and "-e" not in install.group(1).split()


def test_post_build_writes_the_jupyterlab_reading_into_binders_copy():
    """Binder shows the JupyterLab reading: postBuild runs the publishing package from the
    repository's root on the folder it names (the command rewrites no folder by default),
    after the package is installed, with nothing but what JupyterLab brings."""
    text = (BINDER / "postBuild").read_text()
    line = re.search(r'^"\$python" -m publish jupyterlab --in-place book$', text, re.M)
    assert line, "postBuild: \"$python\" -m publish jupyterlab --in-place book"
    install = re.search(r'^"\$python" -m pip install .* \.$', text, re.M)
    assert install and install.start() < line.start()
    assert 'cd "$(dirname "$0")/.."' in text[:line.start()], "postBuild runs from the root"


def test_post_build_settings_are_known_to_the_pinned_jupyterlab():
    """The overrides postBuild writes name a plugin and settings of the pinned JupyterLab
    (this environment's, checked to be the pinned version), with valid values."""
    text = (BINDER / "postBuild").read_text()
    body = re.search(r"overrides\.json\" <<'JSON'\n(.*?)\nJSON\n", text, re.S)
    assert body, "postBuild writes no overrides.json"
    overrides = json.loads(body.group(1))
    assert overrides == {NOTIFICATION: {"fetchNews": "false", "checkForUpdates": False}}
    plugin, name = NOTIFICATION.split(":")
    schema = json.loads((Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas" / plugin
                         / f"{name}.json").read_text())
    props = schema["properties"]
    assert "false" in {choice["const"] for choice in props["fetchNews"]["oneOf"]}
    assert props["checkForUpdates"]["type"] == "boolean"
    import jupyterlab
    assert _pins(BINDER / "requirements.txt")["jupyterlab"] == jupyterlab.__version__
