"""Plain helpers shared by several test modules (the fixtures built on them are in
tests/conftest.py; the play of fresh environments has its own helpers, tests/_play.py). No
test module imports another test module: what two of them share lives here.

* the strict build of the book: :func:`build_if_stale` (the session fixture ``built_book``)
  and :func:`built_pages`;
* the browser: :func:`browser_or_skip` (the module fixture ``browser``) and
  :data:`SETTLED`;
* a toy experiment whose compute calls are counted, for the cache and sweep tests
  (in-process, jobs=1): each unit returns a number, an array and a string from its seed;
* the command line without a new interpreter: :func:`command_line` (the tests of its
  errors; a few tests start ``python -m companion`` itself).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.cli import main
from companion.core.experiment import Experiment
from publish.sources import toc

ROOT = Path(__file__).resolve().parents[1]

# --- the strict build of the book ------------------------------------------------------------

HTML = ROOT / "_build" / "html"
# `jupyter-book build --all -W -n --keep-going .` through the current interpreter.
BUILD_CMD = ["-c", "import sys; from jupyter_book.cli.main import main; sys.exit(main())",
             "build", "--all", "-W", "-n", "--keep-going", "."]


def toc_files() -> list[str]:
    """Every file of _toc.yml (root first, then in reading order), without extension."""
    return [doc.name for doc in toc(ROOT)]


def toc_source(stem: str) -> Path:
    """The chapter or page ``stem`` of _toc.yml: its .ipynb or its .md."""
    for suffix in (".ipynb", ".md"):
        path = ROOT / (stem + suffix)
        if path.exists():
            return path
    raise FileNotFoundError(f"{stem} is listed in _toc.yml but neither {stem}.ipynb nor {stem}.md exists")


def build_env() -> dict:
    """The environment of the build: never a forced matplotlib backend (MPLBACKEND=Agg
    would make every figure disappear from the book while the build still passes)."""
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)
    return env


def _build_inputs() -> list[Path]:
    inputs = [ROOT / "_config.yml", ROOT / "_toc.yml", ROOT / "book" / "references.bib"]
    inputs += sorted((ROOT / "publish").rglob("*.py"))
    inputs += [toc_source(stem) for stem in toc_files()]
    inputs += sorted((ROOT / "companion").rglob("*.py"))
    inputs += sorted((ROOT / "companion" / "explorer_page").glob("*"))
    inputs += sorted((ROOT / "_mathjax").glob("*")) + sorted((ROOT / "_css").glob("*"))
    inputs += sorted((ROOT / "_templates").glob("*"))
    return [p for p in inputs if p.exists()]


def build_if_stale() -> Path:
    """``_build/html`` from a strict build: reused when newer than every input, else rebuilt.
    The session fixture ``built_book`` (tests/conftest.py) calls it, for tests/test_book.py,
    the browser tests and the others that read the built pages."""
    stamp = HTML / "searchindex.js"  # rewritten by every build
    newest_input = max(p.stat().st_mtime for p in _build_inputs())
    if not stamp.exists() or stamp.stat().st_mtime < newest_input:
        subprocess.run([sys.executable, "-c", "import matplotlib.pyplot, seaborn"], cwd=ROOT,
                       env=build_env(), capture_output=True, timeout=600)
        proc = subprocess.run([sys.executable, *BUILD_CMD], cwd=ROOT, env=build_env(),
                              capture_output=True, text=True, timeout=3600)
        assert proc.returncode == 0, (f"strict build failed (exit {proc.returncode}):\n"
                                      f"{proc.stdout[-8000:]}\n{proc.stderr[-4000:]}")
    return HTML


def built_pages(html: Path) -> list[Path]:
    """Every page of the build (not the copies of sources, the static files or images, nor a
    page that only redirects to another)."""
    skip = {"_static", "_sources", "_images"}
    return sorted(p for p in html.rglob("*.html") if not skip & set(p.relative_to(html).parts)
                  and 'http-equiv="Refresh"' not in p.read_text(errors="replace"))


# --- the browser -------------------------------------------------------------------------------

#: resolves once MathJax (where the page loads it) has typeset the page
SETTLED = """() => (window.MathJax && MathJax.startup && MathJax.startup.promise)
    ? MathJax.startup.promise.then(() => true) : true"""


def browser_or_skip():
    """(the system's chromium, playwright's ``sync_playwright``); without either the test
    is skipped, unless ``COMPANION_REQUIRE_BROWSER=1`` (CI), which fails it instead."""
    required = os.environ.get("COMPANION_REQUIRE_BROWSER") == "1"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    reason = ("chromium is not on PATH" if chromium is None else
              "playwright is not installed" if sync_playwright is None else None)
    if reason:
        if required:
            pytest.fail(f"COMPANION_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    return chromium, sync_playwright


# --- a toy experiment ----------------------------------------------------------------------------

class Counter:
    def __init__(self, fail_after: int | None = None):
        self.calls = 0
        self.fail_after = fail_after

    def __call__(self, x, name, seed):
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt("simulated interruption")
        self.calls += 1
        rng = np.random.default_rng(seed)
        return {"value": x * 10 + seed + rng.random(), "vec": np.arange(3) * seed,
                "label": name}


def toy(unit, n_points=3, n_seeds=2):
    return Experiment(id="T", title="toy", unit=unit, sizes={"small": {}},
                      grid=lambda z: [({"x": x, "name": f"p{x}"}, s)
                                      for x in range(n_points) for s in range(n_seeds)])


def values(runs):
    return [float(r["value"]) for r in runs]


# --- the command line in this process ----------------------------------------------------------

def command_line(capsys, *args) -> tuple[int, str, str]:
    """``python -m companion ARGS`` in this process: the exit status :func:`companion.cli.main`
    returns (argparse's errors leave through SystemExit), and what it wrote to stdout and
    stderr (``capsys``: pytest's capture of both)."""
    capsys.readouterr()                     # what earlier code of the test wrote
    try:
        status = main([str(a) for a in args])
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr()
    return status, out.out, out.err
