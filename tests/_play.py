"""Helpers for the tests that play the places readers run the book (tests/test_anywhere.py,
tests/test_packaging.py): fresh virtual environments, a copy of the checkout as Binder or
pip would see it, and a record of what each executed cell showed.

Nothing here touches the repository: environments, copies and records live in pytest's
temporary folders. Timings go into :data:`TIMINGS`, which tests/conftest.py prints at the
end of the session.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import venv
from contextlib import contextmanager
from pathlib import Path

from publish import repository_url

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"

#: what the session measured: label -> seconds (printed by tests/conftest.py)
TIMINGS: dict[str, float] = {}

#: variables that set the BLAS and OpenMP thread counts
THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
               "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

#: what a chapter prints or glues where the stored paper-scale runs are missing
FALLBACK = re.compile(r"no stored|not available", re.IGNORECASE)

IMAGE_KEYS = ("image/png", "image/jpeg", "image/svg+xml")


@contextmanager
def timed(label: str):
    start = time.perf_counter()
    try:
        yield
    finally:
        TIMINGS[label] = TIMINGS.get(label, 0.0) + time.perf_counter() - start


def clean_env(**extra) -> dict:
    """The environment of a reader's machine: none of the developer's PYTHONPATH (which
    would import ``companion`` from the checkout instead of the installed package), no forced
    matplotlib backend, no paper-data switch, no pip version check."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "MPLBACKEND", "COMPANION_PAPER_DATA", "VIRTUAL_ENV",
                        "PYTHONHOME", "JUPYTER_PATH", "IPYTHONDIR")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_COMPILE"] = "1"   # no .pyc for every installed file: minutes on 2 cores
    env.update(extra)
    return env


def run(cmd, label: str | None = None, timeout: float = 1800, **kwargs) -> subprocess.CompletedProcess:
    """Run ``cmd``; fail with its output when it fails."""
    kwargs.setdefault("env", clean_env())
    start = time.perf_counter()
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          timeout=timeout, **kwargs)
    if label:
        TIMINGS[label] = TIMINGS.get(label, 0.0) + time.perf_counter() - start
    if proc.returncode != 0:
        raise AssertionError(f"command failed (exit {proc.returncode}): {' '.join(map(str, cmd))}\n"
                             f"{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}")
    return proc


def make_venv(path: Path) -> Path:
    """A fresh virtual environment with pip (no system site-packages); its python."""
    venv.EnvBuilder(with_pip=True, clear=True).create(path)
    python = path / "bin" / "python"
    run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    return python


def checkout_copy(dest: Path) -> Path:
    """The checkout as a reader gets it: the files git knows (tracked, or new and not ignored),
    copied to ``dest``; without git, everything but environments and build products."""
    dest.mkdir(parents=True, exist_ok=True)
    files = None
    if (ROOT / ".git").exists() and shutil.which("git"):
        proc = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                              cwd=ROOT, capture_output=True)
        if proc.returncode == 0:
            files = [f for f in proc.stdout.decode().split("\0") if f]
    if files is None:
        ignore = shutil.ignore_patterns(".git", ".venv", "_build", "__pycache__", "*.egg-info",
                                        ".pytest_cache", ".ipynb_checkpoints", "build", "dist")
        shutil.copytree(ROOT, dest, ignore=ignore, dirs_exist_ok=True)
        return dest
    for name in files:
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def requirement_pins(names) -> list[str]:
    """``name==version`` from requirements.txt and requirements-course.txt (the book's pins
    and the course's tools) for each of ``names``."""
    pins = {}
    for file in ("requirements.txt", "requirements-course.txt"):
        for line in (ROOT / file).read_text().splitlines():
            line = line.split("#")[0].strip()
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", line)
            if m:
                pins[m.group(1).lower().replace("_", "-")] = line
    missing = [n for n in names if n not in pins]
    assert not missing, f"requirements.txt and requirements-course.txt pin none of {missing}"
    return [pins[n] for n in names]


def shipped_experiments() -> list[str]:
    """The experiments whose stored runs are in companion/data/paper."""
    return sorted((p.stem for p in (ROOT / "companion" / "data" / "paper").glob("E*.npz")),
                  key=lambda e: int(e[1:]))


def stored_experiments() -> list[str]:
    """The experiments whose stored runs a reader must find: those shipped in
    companion/data/paper and those a chapter names in its code (``store.load("E11")``)."""
    eids = {p.stem for p in (ROOT / "companion" / "data" / "paper").glob("E*.npz")}
    for stem in chapters():
        for cell in code_cells(read_nb(ROOT / (stem + ".ipynb"))):
            eids |= set(re.findall(r"[\"'](E\d+)[\"']", source(cell)))
    return sorted(eids, key=lambda e: int(e[1:]))


# --- the chapters ------------------------------------------------------------------------------

def chapters() -> list[str]:
    """Every notebook of the table of contents, as a path relative to the root without
    ``.ipynb`` (read without a YAML library: the toc's ``file:`` and ``root:`` lines)."""
    text = (ROOT / "_toc.yml").read_text()
    stems = re.findall(r"(?m)^\s*(?:-\s*)?(?:root|file):\s*(\S+)", text)
    return [s for s in stems if (ROOT / (s + ".ipynb")).exists()]


def read_nb(path: Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def figure_cells(nb: dict) -> list[int]:
    """Indices (among the code cells, from 0) of the cells that draw a figure: those that
    call ``show(`` or whose stored outputs hold an image, displayed or glued."""
    found = []
    for i, cell in enumerate(code_cells(nb)):
        stored = any(k.endswith(IMAGE_KEYS) for out in cell.get("outputs", [])
                     for k in out.get("data", {}))
        if stored or re.search(r"(?<![\w.])show\(", source(cell)):
            found.append(i)
    return found


def summarize(outputs: list) -> list[dict]:
    """What a reader sees of each output: its type, MIME keys, and its texts (not images)."""
    summary = []
    for out in outputs or []:
        data = dict(out.get("data", {}))
        texts = [out.get("text", ""), out.get("evalue", "")]
        texts += ["".join(v) if isinstance(v, list) else str(v) for k, v in data.items()
                  if k.endswith(("text/plain", "text/markdown", "text/html"))]
        summary.append({"output_type": out.get("output_type"), "keys": sorted(data),
                        "ename": out.get("ename"), "text": "\n".join(t for t in texts if t)})
    return summary


def shows_an_image(summary: list[dict]) -> bool:
    """An output JupyterLab and Colab render as a picture (not only a glued record)."""
    return any(k in IMAGE_KEYS for out in summary for k in out["keys"])


def problems(nb: dict, cells: list[list[dict]]) -> list[str]:
    """What a reader who runs ``nb`` would see go wrong, given ``cells``, the summarized
    outputs of its code cells in order (``None`` for a cell that did not run): an error, a
    figure cell without a picture, a paper-scale section that fell back."""
    found = []
    code = code_cells(nb)
    ran = sum(summary is not None for summary in cells)
    if ran < len(code):
        found.append(f"only {ran} of {len(code)} code cells ran")
    for i, summary in enumerate(cells):
        for out in summary or []:
            if out["output_type"] == "error":
                found.append(f"code cell {i + 1} raised {out['ename']}: {out['text'][:300]}")
            elif FALLBACK.search(out["text"]):
                line = next(ln for ln in out["text"].splitlines() if FALLBACK.search(ln))
                found.append(f"code cell {i + 1} fell back: {line.strip()[:200]!r}")
    for i in figure_cells(nb):
        if i < len(cells) and cells[i] is not None and not shows_an_image(cells[i]):
            keys = sorted({k for out in cells[i] for k in out["keys"]})
            found.append(f"code cell {i + 1} draws a figure but shows no picture "
                         f"(outputs: {keys or 'none'}; a glued-only figure is invisible "
                         f"in JupyterLab and Colab: use companion.presentation.book.show)")
    return found


# --- nbval with a record of the outputs ---------------------------------------------------------

#: a conftest.py for the folder where nbval runs: it writes what each cell showed to
#: $PLAY_RECORD (nbval compares outputs, but does not keep them)
RECORDER = '''
import json, os
import pytest

_cells = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if call.when != "call" or not hasattr(item, "test_outputs"):
        return
    outputs = []
    for out in item.test_outputs or []:
        out = dict(out)
        data = dict(out.get("data", {}))
        out["data"] = {k: (v if "text" in k else "<%d characters>" % len(str(v)))
                       for k, v in data.items()}
        outputs.append(out)
    _cells.append({"cell": item.cell_num, "outcome": outcome.get_result().outcome,
                   "outputs": outputs})


def pytest_sessionfinish(session):
    with open(os.environ["PLAY_RECORD"], "w") as f:
        json.dump(_cells, f)
'''


def kernelspec(python: Path, folder: Path, name: str = "play") -> Path:
    """A Jupyter kernel named ``name`` whose interpreter is ``python`` (another environment's:
    the reader's), in ``folder/kernels/``; put ``folder`` on JUPYTER_PATH to find it."""
    kernel = folder / "kernels" / name
    kernel.mkdir(parents=True, exist_ok=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": name, "language": "python"}))
    return folder


def nbval(kernel: Path, folder: Path, notebook: str, threads: int | None, label: str
          ) -> tuple[subprocess.CompletedProcess, list[dict]]:
    """Run nbval on ``folder/notebook`` (a copy of a chapter) against its stored outputs,
    sanitized like tests/test_book.py does, the chapter's kernel being ``kernel`` (the python
    of the reader's environment); ``threads`` sets every BLAS and OpenMP thread count.

    nbval and pytest run from this interpreter (the test runner's environment), not from the
    reader's: a reader's environment holds no test tools (tests/test_anywhere.py checks it),
    and the kernel, where the chapter's code runs, is the reader's alone. Returns the
    finished process and, per code cell, the outputs nbval saw (as :func:`summarize` gives
    them)."""
    conftest = folder / "conftest.py"
    # written only when missing or different: runs that share the folder (two at a time in
    # the Binder play) must not see it half-written
    if not conftest.exists() or conftest.read_text() != RECORDER:
        conftest.write_text(RECORDER)
    record = folder / f".{Path(notebook).stem}.record.json"
    record.unlink(missing_ok=True)
    specs = kernelspec(kernel, folder / ".jupyter", "reader")
    extra = {"PLAY_RECORD": str(record), "JUPYTER_PATH": str(specs)}
    if threads is not None:
        extra.update({var: str(threads) for var in THREAD_VARS})
    cmd = [sys.executable, "-m", "pytest", "--nbval", "--nbval-kernel-name", "reader",
           "--nbval-sanitize-with", SANITIZE, "--nbval-cell-timeout", "900",
           "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "-rN", notebook]
    start = time.perf_counter()
    proc = subprocess.run([str(c) for c in cmd], cwd=folder, env=clean_env(**extra),
                          capture_output=True, text=True, timeout=3600)
    TIMINGS[label] = time.perf_counter() - start
    cells = json.loads(record.read_text()) if record.exists() else []
    shown: list = [None] * (max((c["cell"] for c in cells), default=-1) + 1)
    for c in cells:
        shown[c["cell"]] = summarize(c["outputs"])
    return proc, shown


# --- nbclient with a kernel from another environment ---------------------------------------------

def execute(nb: dict, python: Path, workdir: Path, kernel_env: dict, label: str,
            timeout: int = 900) -> list[list[dict]]:
    """Execute ``nb`` (in place) with nbclient, the kernel being ``python`` (another
    environment's interpreter) started in ``workdir`` with ``kernel_env``, as JupyterLab or
    Colab would run it: every cell, to the end, errors recorded instead of raised."""
    import nbformat
    from nbclient import NotebookClient

    spec_dir = workdir / ".kernels"
    kernel = spec_dir / "kernels" / "play"
    kernel.mkdir(parents=True, exist_ok=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "play", "language": "python"}))
    node = nbformat.reads(json.dumps(nb), as_version=4)  # sources as strings
    saved = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = str(spec_dir)
    try:
        client = NotebookClient(node, kernel_name="play", timeout=timeout, allow_errors=True,
                                resources={"metadata": {"path": str(workdir)}})
        start = time.perf_counter()
        client.execute(env=kernel_env)
        TIMINGS[label] = time.perf_counter() - start
    finally:
        if saved is None:
            os.environ.pop("JUPYTER_PATH", None)
        else:
            os.environ["JUPYTER_PATH"] = saved
    return [summarize(c.get("outputs", [])) for c in node.cells if c.cell_type == "code"]


# --- the project's own facts ---------------------------------------------------------------------

def pyproject() -> dict:
    import tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def distribution() -> str:
    """The distribution's name on the package index (``pip install <this>``)."""
    return pyproject()["project"]["name"]


def repository():
    """The repository's address from its one source (publish/repository_url.py reads it)."""
    return repository_url


def colab_install_line() -> str:
    """The install line every chapter's first cell carries (book/CONVENTIONS.md)."""
    return (f'%pip install --quiet "{distribution()}[notebooks] @ '
            f'git+{repository().source(ROOT).url}"')
