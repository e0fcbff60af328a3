"""The places readers run the book, played on this machine (issue: run it anywhere).

* **Binder.** repo2docker reads the ``binder/`` folder, and only it, when there is one: it
  installs ``binder/requirements.txt`` (the readers' environment: what the chapters run,
  JupyterLab and its MyST extension, no test or development tool) into the Python of
  ``binder/runtime.txt``, then runs ``binder/postBuild`` from the repository's root, which
  installs the package itself (``pip install --no-deps .``: repo2docker installs a package
  only where no ``binder/`` folder exists, and only from 2025.12.0 on), writes the
  JupyterLab reading into its copy of the chapters (``python -m publish jupyterlab
  --in-place book``) and JupyterLab's settings (never ask about news). The test does the
  same two steps in a fresh virtual environment, then reads its package list (no pytest,
  Playwright, ruff, ...: the readers' environment is not CI's; ``pip check`` finds every
  dependency), asks JupyterLab's settings what a reader gets, finds the reading in the
  chapters, and executes every chapter from a copy of ``book/`` outside the repository.
  Every chapter runs to the end, every figure cell shows a picture (not only a glued record,
  which JupyterLab does not render), the stored paper-scale runs are found (nothing prints
  "no stored ..." or "not available") and the JupyterLab MyST extension is installed. nbval,
  which runs the chapters, runs from the test runner's environment with the readers'
  environment as the chapters' kernel, so the readers' environment never holds a test tool.
* **One BLAS thread.** The same executions run with every BLAS and OpenMP thread count set
  to 1 (``OPENBLAS_NUM_THREADS=1``, ...) under nbval, against the outputs stored in the
  chapters (which come from the default, 2 threads here): a printed value that depends on
  the summation order shows up on the developer's machine, not first on a reader's. One
  execution per chapter serves both checks (Binder's do not depend on the thread count).
* **Colab.** A fresh virtual environment holding only what Colab preinstalls that matters
  here (numpy, scipy, matplotlib, seaborn, ipykernel, at the versions of
  requirements.txt). Each chapter is executed as Colab runs it: ``google.colab`` is
  imported before the first cell (an IPython startup file), so the first cell's install
  line runs, exactly as the chapter carries it, with only its source (``git+<repository>``)
  replaced by this checkout. Then every cell runs to the end with its figures.

These tests are slow (minutes: fresh environments, every chapter executed twice) and
carry the ``slow`` marker; ``make test`` and CI run them, ``pytest -m "not slow"`` skips
them. The times they measure are printed at the end of the session.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from publish.sources import cell_text, notebooks, read

import _play
from _play import ROOT, code_cells, read_nb, run, source, timed

pytestmark = pytest.mark.slow

CHAPTERS = _play.chapters()


def _name(stem: str) -> str:
    return Path(stem).name


# --- Binder ------------------------------------------------------------------------------------

PROBE = """
import json, sys, sysconfig
from pathlib import Path
import companion
from companion.core import store
eids = sys.argv[1].split(",")
print(json.dumps({
    "package": companion.__file__,
    "site": sysconfig.get_paths()["purelib"],
    "data": str(store.data_dir()),
    "missing": [e for e in eids if store.load(e) is None],
    "myst_lab": (Path(sys.prefix) / "share/jupyter/labextensions/jupyterlab-myst").is_dir(),
}))
"""


#: what a reader's environment must not hold: the test runner, the browser driver, the
#: linters and checkers, the grader, the book's builder (distribution names, normalized;
#: not nbclient, which JupyterLab's nbconvert brings)
TOOLS = {"pytest", "nbval", "playwright", "ruff", "import-linter", "mypy",
         "pypdf", "zizmor", "check-jsonschema", "build", "pytest-xdist", "otter-grader",
         "jupyter-book", "sphinx", "myst-nb", "pre-commit"}

#: JupyterLab's settings as a reader gets them: the defaults with binder/postBuild's overrides
NEWS = """
import json, tempfile
from jupyter_core.paths import jupyter_path
from jupyterlab.commands import get_app_dir
from jupyterlab_server.settings_utils import get_settings
app = get_app_dir()
with tempfile.TemporaryDirectory() as user:
    result, warnings = get_settings(f"{app}/settings", f"{app}/schemas", user,
                                    schema_name="@jupyterlab/apputils-extension:notification",
                                    labextensions_path=jupyter_path("labextensions"))
props = result["schema"]["properties"]
print(json.dumps({"fetchNews": props["fetchNews"]["default"],
                  "checkForUpdates": props["checkForUpdates"]["default"],
                  "warnings": [str(w) for w in warnings if w]}))
"""


def _installed(python) -> set[str]:
    listed = json.loads(run([python, "-m", "pip", "list", "--format", "json"]).stdout)
    return {re.sub(r"[-_.]+", "-", p["name"]).lower() for p in listed}


@pytest.fixture(scope="session")
def binder(tmp_path_factory):
    base = tmp_path_factory.mktemp("binder")
    repo = _play.checkout_copy(base / "repo")
    venv = base / "venv"
    # repo2docker's two steps: binder/requirements.txt, then binder/postBuild (executable,
    # run from the root with the environment's python first on PATH)
    with timed("binder: fresh venv + pip install -r binder/requirements.txt + binder/postBuild"):
        python = _play.make_venv(venv)
        run([python, "-m", "pip", "install", "--quiet", "-r", "binder/requirements.txt"],
            cwd=repo, timeout=3600)
        path = f"{venv / 'bin'}:{os.environ.get('PATH', '')}"
        run([repo / "binder" / "postBuild"], cwd=repo, timeout=1800,
            env=_play.clean_env(PATH=path, VIRTUAL_ENV=str(venv)))
    installed = _installed(python)   # before anything else could add to it
    run([python, "-c", "import matplotlib.pyplot, seaborn"])  # matplotlib's font cache
    book = base / "book"
    shutil.copytree(repo / "book", book)
    play = SimpleNamespace(python=python, book=book, runs={}, installed=installed)
    # Each chapter's nbval run uses one BLAS thread, so one core: run them two at a time
    # (CI has two cores), which saves about three minutes of CI.
    (book / "conftest.py").write_text(_play.RECORDER)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for stem in CHAPTERS:
            pool.submit(_binder_run, play, stem)
    yield play
    shutil.rmtree(base / "venv", ignore_errors=True)  # about 700 MB


def _binder_run(binder, stem):
    """nbval on the copy of the chapter with one BLAS thread; done once per chapter."""
    if stem not in binder.runs:
        notebook = str(Path(stem).relative_to("book")) + ".ipynb"
        binder.runs[stem] = _play.nbval(binder.python, binder.book, notebook, threads=1,
                                        label=f"binder, 1 BLAS thread (nbval): {_name(stem)}")
    return binder.runs[stem]


def test_binder_is_the_readers_environment_not_ci(binder):
    """binder/requirements.txt and postBuild give the chapters all they need (pip check:
    every installed distribution's dependencies, the package's included) and no tool."""
    tools = sorted(TOOLS & binder.installed)
    assert not tools, (f"the readers' environment holds {tools}: binder/requirements.txt is "
                       f"what the chapters run and JupyterLab, nothing to test or build with")
    assert {"two-vs-one-step", "jupyterlab", "jupyterlab-myst", "ipykernel"} <= binder.installed
    run([binder.python, "-m", "pip", "check"])


def test_binder_shows_the_jupyterlab_reading(binder):
    """After postBuild, Binder's chapters are the JupyterLab reading (the sources hold no
    numbering front matter): each numbered chapter opens with the front matter that numbers
    its boxes as the book does, and no other does."""
    wrong = []
    for doc in notebooks():
        nb = read(binder.book / doc.path.relative_to(ROOT / "book"))
        first = next(cell_text(c) for c in nb["cells"] if c["cell_type"] == "markdown")
        front = f'---\nnumbering:\n  enumerator: "{doc.chapter}.%s"\n---\n'
        if first.startswith(front) != (doc.chapter is not None):
            wrong.append(doc.name)
    assert not wrong, f"Binder's copy of {wrong} is not the JupyterLab reading (binder/postBuild)"


def test_binder_jupyterlab_never_asks_about_news(binder):
    shown = json.loads(run([binder.python, "-c", NEWS], cwd=binder.book).stdout)
    assert shown == {"fetchNews": "false", "checkForUpdates": False, "warnings": []}, (
        f"JupyterLab's notification settings for a reader: {shown} (binder/postBuild writes "
        f"them into <sys.prefix>/share/jupyter/lab/settings/overrides.json)")


def test_binder_installs_the_package_with_its_stored_runs(binder):
    eids = _play.stored_experiments()
    assert eids, "companion/data/paper holds no stored runs"
    probe = json.loads(run([binder.python, "-c", PROBE, ",".join(eids)],
                           cwd=binder.book).stdout)
    assert Path(probe["package"]).is_relative_to(probe["site"]), (
        f"companion is imported from {probe['package']}, not from the installed package "
        f"in {probe['site']} (binder/postBuild installs it)")
    assert Path(probe["data"]).is_relative_to(probe["site"]), probe
    assert not probe["missing"], (
        f"after binder/postBuild the stored runs {probe['missing']}, which the chapters read, "
        f"are not found in {probe['data']}: are they in companion/data/paper, and shipped "
        f"([tool.setuptools.package-data] in pyproject.toml)?")
    assert probe["myst_lab"], ("the JupyterLab MyST extension is not installed: glue roles and "
                               "{prf:...} blocks would show as raw text (binder/requirements.txt: "
                               "jupyterlab-myst)")


THREADS = """
import json
import numpy, scipy.linalg
from threadpoolctl import threadpool_info
print(json.dumps([(i["internal_api"], i["num_threads"]) for i in threadpool_info()]))
"""


def test_the_thread_variables_reach_every_blas(binder):
    """The one-thread run below means something only if every BLAS and OpenMP library that
    numpy and scipy load honours the variables."""
    env = _play.clean_env(**{var: "1" for var in _play.THREAD_VARS})
    pools = json.loads(run([binder.python, "-c", THREADS], env=env).stdout)
    assert pools, "threadpoolctl finds no BLAS library"
    assert all(n == 1 for _, n in pools), f"with the thread variables set to 1: {pools}"


@pytest.mark.parametrize("stem", CHAPTERS)
def test_binder_chapter_runs_with_figures_and_stored_runs(binder, stem):
    proc, cells = _binder_run(binder, stem)
    found = _play.problems(read_nb(ROOT / (stem + ".ipynb")), cells)
    assert not found, (f"{stem}.ipynb in a Binder environment:\n  " + "\n  ".join(found)
                       + (f"\n{proc.stdout[-3000:]}" if not cells else ""))


@pytest.mark.parametrize("stem", CHAPTERS)
def test_one_blas_thread_gives_the_stored_outputs(binder, stem):
    proc, _ = _binder_run(binder, stem)
    assert proc.returncode == 0, (
        f"nbval with one BLAS thread (OPENBLAS_NUM_THREADS=1, ...), in a fresh Binder "
        f"environment, differs from the outputs stored in {stem}.ipynb. Either a printed value "
        f"depends on the summation order (print it at a precision the computation supports: "
        f"companion.presentation.book.fmt), or the stored outputs do not come from the code and stored "
        f"runs that a fresh install has (re-execute the chapter; see also the Binder test "
        f"of this chapter).\n{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}")


# --- Colab -------------------------------------------------------------------------------------

COLAB_PREINSTALLED = ["numpy", "scipy", "matplotlib", "seaborn", "ipykernel"]

#: an IPython startup file: what Colab's runtime has imported before the first cell
COLAB_STARTUP = """
import sys, types
sys.modules.setdefault("google.colab", types.ModuleType("google.colab"))
"""

#: appended to each chapter: where the kernel found the package and its stored runs
COLAB_PROBE = """
import json, sys
import companion
from companion.core import store
print("PLAY " + json.dumps({{"package": companion.__file__, "prefix": sys.prefix,
    "missing": [e for e in {eids!r} if store.load(e) is None]}}))
"""


@pytest.fixture(scope="session")
def colab(tmp_path_factory):
    base = tmp_path_factory.mktemp("colab")
    repo = _play.checkout_copy(base / "repo")
    with timed("colab: fresh venv with " + ", ".join(COLAB_PREINSTALLED)):
        python = _play.make_venv(base / "venv")
        run([python, "-m", "pip", "install", "--quiet",
             *_play.requirement_pins(COLAB_PREINSTALLED)], timeout=1800)
    run([python, "-c", "import matplotlib.pyplot, seaborn"])  # Colab's font cache is built
    startup = base / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-google-colab.py").write_text(COLAB_STARTUP)
    content = base / "content"  # Colab's working directory: no repository around
    content.mkdir()
    env = _play.clean_env(IPYTHONDIR=str(base / "ipython"))
    yield SimpleNamespace(python=python, repo=repo, content=content, env=env)
    shutil.rmtree(base / "venv", ignore_errors=True)


def _colab_notebook(stem: str, repo: Path) -> dict:
    """The chapter as Colab opens it (its plain edition, book/plain/: the Colab button points
    there) with its install line pointed at ``repo`` (only the source replaced) and a last
    cell that reports where the package and its stored runs were found."""
    nb = read_nb(ROOT / "book" / "plain" / (_name(stem) + ".ipynb"))
    first = code_cells(nb)[0]
    text = source(first)
    line = _play.colab_install_line()
    assert re.search(r'if "google\.colab" in sys\.modules:\n\s+' + re.escape(line) + r"\s*$",
                     text), (
        f"{stem}.ipynb: the first code cell is not the Colab cell of book/CONVENTIONS.md "
        f"(expected, under `if \"google.colab\" in sys.modules:`, the line\n    {line}\n"
        f"found:\n{text}")
    url = _play.repository().source(ROOT).url
    first["source"] = text.replace(f"git+{url}", repo.resolve().as_uri())
    # the shipped runs arrived with the install (whether every chapter's are shipped is the
    # Binder install test's question; a chapter that misses its own falls back, found above)
    probe = COLAB_PROBE.format(eids=_play.shipped_experiments())
    nb["cells"].append({"cell_type": "code", "execution_count": None, "id": "play-probe",
                        "metadata": {}, "outputs": [], "source": probe})
    return nb


@pytest.mark.parametrize("stem", CHAPTERS)
def test_colab_chapter_installs_and_runs_with_figures(colab, stem):
    nb = _colab_notebook(stem, colab.repo)
    cells = _play.execute(nb, colab.python, colab.content, colab.env,
                          label=f"colab (nbclient, install included): {_name(stem)}")
    *chapter, probe = cells
    found = _play.problems(read_nb(ROOT / (stem + ".ipynb")), chapter)
    report = next((ln for out in probe for ln in out["text"].splitlines()
                   if ln.startswith("PLAY ")), None)
    if report is None:
        found.append(f"the closing probe did not run: {probe}")
    else:
        report = json.loads(report[len("PLAY "):])
        if not Path(report["package"]).is_relative_to(report["prefix"]):
            found.append(f"companion was imported from {report['package']}, not installed "
                         f"by the Colab cell into {report['prefix']}")
        if report["missing"]:
            found.append(f"stored runs not found after the Colab install: {report['missing']}")
    assert not found, f"{stem}.ipynb in a Colab environment:\n  " + "\n  ".join(found)
