"""The chapters as a reader launches them in Binder: a real JupyterLab (the version of
requirements.txt, with jupyterlab-myst) on localhost, driven in headless Chromium by
Playwright, serving the JupyterLab reading of the chapters (publish/jupyterlab.py), made as
Binder's image build makes it: ``python -m publish jupyterlab --in-place FOLDER`` on a copy
of the chapters.

For every chapter, a copy of its reading with the stored prose numbers removed from its
metadata (so every number on screen is computed by this run) is opened and run with Run All;
then

* no markdown cell shows an "Unknown Directive" / "Unknown Role" box, a raw role or
  directive fence, or an expression that was not evaluated;
* every markdown cell shows the numbers the book's page shows there (the values stored in
  the chapter, which tests/test_book.py checks against the build);
* every figure is drawn, and no code cell stored an error;
* JupyterLab shows at most 10 code lines more than the book's page (the page hides the
  Colab install cell; everything else a chapter runs, the page shows too);
* the browser's console never says "Cross reference target was not found";
* a screenshot of each chapter is saved in ``_build/jupyterlab/``.

Opened and not run, every reading shows each numbered box and exercise by the book's name
("Conjecture 2.1 (title)": its numbering front matter), no reference with a raw label, no
console message of a reference not found, and no link to a line of a page's source.

Opening is not editing: every reading and every notebook of the plain edition, copied byte
for byte, is opened and left alone for a few seconds; JupyterLab must not mark it modified,
and saved (what autosave would do) and closed, the file is byte for byte what it was (the
notebooks store the kernelspec and language_info JupyterLab writes:
publish/plain_edition.py).

Two small checks besides: a stored chapter shows its numbers as soon as it is opened, before
anything runs (jupyterlab-myst restores them from the metadata), and a number follows the
reader's change (edit a cell, Run All again, the sentence changes). A chapter's reference to
another chapter ({doc}`two_steps`), a link to the notebook with its title as the text in
the reading, is clicked: the notebook opens at its top.

Marked ``slow`` (it executes every chapter once more, about as long as the build).
Skipped without chromium or playwright, unless COMPANION_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from publish import plain_edition
from publish.book import Book
from publish.jupyterlab import jupyterlab_names
from publish.sources import cell_text, chapters, site_url

from _helpers import browser_or_skip  # (skip or fail without chromium)

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "_build" / "jupyterlab"

pytestmark = pytest.mark.slow

CHAPTERS = chapters()
PLAIN = [plain_edition.OUT / path.name for path in CHAPTERS]
HIDDEN_TAGS = {"remove-cell", "remove-input"}
#: what jupyterlab-myst logs for a reference it cannot resolve
NOT_FOUND = "Cross reference target was not found"
#: a link to a notebook of the reading (a {doc} reference to another chapter)
NOTEBOOK_LINK = re.compile(r"\[(?P<text>[^\[\]]+)\]\((?P<page>[\w-]+\.ipynb)\)")
MAX_EXTRA_CODE_LINES = 10
RAW = re.compile(r"```\{|\{(eval|glue|glue:text|glue:figure|doc|numref|ref|prf:ref|cite:p|"
                 r"cite:t|prf:[a-z]+|exercise|solution-start|solution-end|term)\}`|"
                 r"Unknown Directive|Unknown Role")
#: JupyterLab's settings for the run: every cell rendered (no windowing, so the page holds
#: the text of every cell) and no autosave (the copies stay as they were opened)
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _without_stored_values(nb: dict) -> dict:
    for cell in nb["cells"]:
        cell.get("metadata", {}).pop("user_expressions", None)
    return nb


@pytest.fixture(scope="module")
def reading(tmp_path_factory) -> Path:
    """The JupyterLab reading of every chapter, made as binder/postBuild makes it: the
    chapters copied into a folder, rewritten there in place by
    ``python -m publish jupyterlab --in-place FOLDER``."""
    folder = tmp_path_factory.mktemp("reading")
    for path in CHAPTERS:
        shutil.copyfile(path, folder / path.name)
    proc = subprocess.run([sys.executable, "-m", "publish", "jupyterlab", "--in-place",
                           str(folder)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return folder


@pytest.fixture(scope="module")
def lab(tmp_path_factory, reading):
    """A JupyterLab server on localhost serving copies of the chapters' reading."""
    chromium, sync_playwright = browser_or_skip()
    work = tmp_path_factory.mktemp("lab")
    (work / "live").mkdir()
    (work / "stored").mkdir()
    (work / "opened" / "plain").mkdir(parents=True)
    (work / "linked").mkdir()
    for path in CHAPTERS:
        shutil.copyfile(reading / path.name, work / "opened" / path.name)
        shutil.copyfile(reading / path.name, work / "linked" / path.name)
    for path in PLAIN:
        shutil.copyfile(path, work / "opened" / "plain" / path.name)
    for path in CHAPTERS:
        nb = json.loads((reading / path.name).read_text())
        (work / "stored" / path.name).write_text(json.dumps(nb))
        (work / "live" / path.name).write_text(json.dumps(_without_stored_values(nb)))
    settings = work / "settings"
    for name, value in SETTINGS.items():
        target = settings / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(value))
    port, token = _free_port(), secrets.token_hex(12)
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
    log = open(work / "lab.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
         "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}",
         "--LabApp.expose_app_in_browser=True", "--ServerApp.open_browser=False"],
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while True:
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5)
            break
        except OSError:
            if server.poll() is not None or time.time() > deadline:
                log.flush()
                pytest.fail("JupyterLab did not start:\n" + (work / "lab.log").read_text()[-3000:])
            time.sleep(0.5)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield {"base": base, "token": token, "browser": browser, "work": work,
               "reading": reading}
        browser.close()
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
    log.close()


def _open(lab, relpath: str, console: list[str] | None = None):
    """A new browser page with ``relpath`` open in a workspace of its own (JupyterLab would
    otherwise reopen every notebook opened before, each with a kernel); the console's
    messages go into ``console``."""
    page = lab["browser"].new_page(viewport={"width": 1280, "height": 1000})
    if console is not None:
        page.on("console", lambda message: console.append(message.text))
    workspace = re.sub(r"\W", "-", relpath)
    page.goto(f"{lab['base']}/lab/workspaces/{workspace}/tree/{relpath}"
              f"?reset&token={lab['token']}")
    page.wait_for_function(
        """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                   const k = w && w.sessionContext && w.sessionContext.session
                             && w.sessionContext.session.kernel;
                   return k && k.status === 'idle' && w.content.widgets.length > 0; }""",
        timeout=180_000)
    return page


def _close(page):
    """Shut the notebook's kernel down and close the page."""
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
    page.close()


def _run_all(page, timeout_s: float = 600):
    """Clear every output, Run All, and wait until every code cell has run and the kernel is
    idle again (jupyterlab-myst evaluates a markdown cell's roles when Run All reaches it)."""
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(
        """() => { const w = window.jupyterapp.shell.currentWidget;
                   const cells = w.content.model.cells;
                   for (let i = 0; i < cells.length; i++) {
                     const c = cells.get(i);
                     if (c.type === 'code' && c.sharedModel.getSource().trim()
                         && c.executionCount === null) return false; }
                   return w.sessionContext.session.kernel.status === 'idle'; }""",
        timeout=timeout_s * 1000, polling=1000)
    page.wait_for_timeout(1500)


def _cells(page) -> list[dict]:
    """Every cell as JupyterLab shows it: type, source, tags, rendered text, images,
    whether it stored an error."""
    return page.evaluate(
        """() => { const w = window.jupyterapp.shell.currentWidget;
                   // the text on screen: a rendered markdown cell keeps its source in a
                   // hidden editor, which is not what the reader sees
                   const shown = node => { const n = node.cloneNode(true);
                     n.querySelectorAll('.jp-InputArea-editor, .lm-mod-hidden')
                      .forEach(e => e.remove());
                     return n.textContent; };
                   return w.content.widgets.map(cell => {
                     const m = cell.model;
                     const outputs = m.type === 'code' ? m.outputs.toJSON() : [];
                     return {type: m.type, source: m.sharedModel.getSource(),
                             tags: m.getMetadata('tags') || [],
                             text: shown(cell.node),
                             images: cell.node.querySelectorAll('.jp-OutputArea img').length,
                             error: outputs.some(o => o.output_type === 'error')}; }); }""")


def _stored_values(nb: dict) -> list[dict[str, str]]:
    return [plain_edition.stored_values(cell) for cell in nb["cells"]]


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_runs_and_reads_like_the_page_in_jupyterlab(lab, path):
    nb = json.loads((lab["reading"] / path.name).read_text())
    console: list[str] = []
    page = _open(lab, f"live/{path.name}", console)
    started = time.time()
    _run_all(page)
    seconds = time.time() - started
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{path.stem}.png"))
    cells = _cells(page)
    _close(page)

    assert len(cells) == len(nb["cells"]), "JupyterLab shows another number of cells"
    problems = []
    for i, (cell, values) in enumerate(zip(cells, _stored_values(nb))):
        if cell["type"] == "code":
            if cell["error"]:
                problems.append(f"cell {i}: an error")
            continue
        if cell["type"] != "markdown":
            continue
        text = _flat(cell["text"])
        raw = sorted({m.group(0) for m in RAW.finditer(text)})
        if raw:
            problems.append(f"cell {i}: shows {raw}")
        for expr, value in values.items():
            if _flat(value) not in text:
                problems.append(f"cell {i}: {expr} should show {value!r}")
            if "." in expr and expr in text:
                problems.append(f"cell {i}: the expression {expr} is shown unevaluated")
    figures = sum(1 for c in nb["cells"] if "figure" in c.get("metadata", {}).get("mystnb", {}))
    drawn = sum(c["images"] for c in cells)
    if drawn < figures:
        problems.append(f"{drawn} images drawn, {figures} figures in the chapter")
    lines = lambda c: sum(1 for ln in c["source"].splitlines() if ln.strip())  # noqa: E731
    shown_here = sum(lines(c) for c in cells if c["type"] == "code")
    shown_on_page = sum(lines(c) for c in cells
                        if c["type"] == "code" and not HIDDEN_TAGS & set(c["tags"]))
    if shown_here - shown_on_page > MAX_EXTRA_CODE_LINES:
        problems.append(f"JupyterLab shows {shown_here} code lines, the page "
                        f"{shown_on_page}: {shown_here - shown_on_page} more than the page")
    problems += [f"console: {m[:200]}" for m in console if NOT_FOUND in m]
    assert not problems, (f"{path.name} in JupyterLab (Run All took {seconds:.0f} s):\n"
                          + "\n".join(problems[:15]))


def test_stored_numbers_show_before_anything_runs(lab):
    """Opened, not run: jupyterlab-myst shows the stored values of the intro's prose."""
    path = CHAPTERS[0]
    nb = json.loads((lab["reading"] / path.name).read_text())
    page = _open(lab, f"stored/{path.name}")
    page.wait_for_timeout(2000)
    cells = _cells(page)
    _close(page)
    missing = [(i, expr) for i, (cell, values) in enumerate(zip(cells, _stored_values(nb)))
               if cell["type"] == "markdown"
               for expr, value in values.items() if _flat(value) not in _flat(cell["text"])]
    assert not missing, f"before a run, these numbers are not shown: {missing[:10]}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_boxes_show_the_books_names_and_no_reference_a_raw_label(lab, path):
    """Opened, not run: every numbered box and exercise shows the name the book gives it
    ("Conjecture 2.1 (title)": the reading's numbering front matter, publish/jupyterlab.py;
    tests/test_numbering.py compares these names with the book's), and no reference the raw
    label that jupyterlab-myst shows, with a warning mark and a console message, for a target
    it cannot find; no link leads to a line of a page's source. On a loaded machine
    jupyterlab-myst takes up to a minute or more to render a long chapter, so this waits for
    the names."""
    names = jupyterlab_names(json.loads((lab["reading"] / path.name).read_text()))
    console: list[str] = []
    page = _open(lab, f"stored/{path.name}", console)
    deadline, missing, unresolved = time.time() + 240, list(names.values()), -1
    while time.time() < deadline:
        text = _flat(" ".join(c["text"] for c in _cells(page) if c["type"] == "markdown"))
        missing = [n for n in names.values() if f"{n} (" not in text]
        unresolved = page.evaluate(
            "() => document.querySelectorAll('[title=\"Cross Reference Not Found\"]').length")
        if text.strip() and not missing and unresolved == 0:
            break
        page.wait_for_timeout(3000)
    hrefs = page.evaluate("() => Array.from(document.querySelectorAll('.jp-MarkdownOutput a'))"
                          ".map(a => a.getAttribute('href') || '')")
    _close(page)
    assert not missing, f"{path.name}: JupyterLab does not show {missing[:8]}"
    assert unresolved == 0, f"{path.name}: {unresolved} references show a raw label"
    not_found = [m for m in console if NOT_FOUND in m]
    assert not not_found, f"{path.name}: the console says {not_found[:3]}"
    to_sources = [h for h in hrefs if "#line=" in h or re.search(r"\.md(#|$)", h)]
    assert not to_sources, f"{path.name}: links to a page's source: {to_sources[:5]}"
    online = [h for h in hrefs if h.startswith("http") and "github.io" in h]
    assert all(h.startswith(site_url()) for h in online), online[:5]


def test_a_number_follows_the_readers_change(lab):
    """Edit the code above a sentence, Run All again: the sentence shows the new value."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("N = 2000\nhalf = N // 2"),
                nbformat.v4.new_markdown_cell("Half of the width is {eval}`half` here.")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, lab["work"] / "live" / "change.ipynb")
    page = _open(lab, "live/change.ipynb")
    _run_all(page, 120)
    first = _flat(_cells(page)[1]["text"])
    page.evaluate("""() => { const w = window.jupyterapp.shell.currentWidget;
                            w.content.model.cells.get(0).sharedModel.setSource(
                              'N = 512\\nhalf = N // 2'); }""")
    _run_all(page, 120)
    second = _flat(_cells(page)[1]["text"])
    _close(page)
    assert "Half of the width is 1000 here." in first, first
    assert "Half of the width is 256 here." in second, second


@pytest.mark.parametrize("path", CHAPTERS + PLAIN,
                         ids=lambda p: str(p.relative_to(ROOT / "book").with_suffix("")))
def test_opening_a_chapter_does_not_change_it(lab, path):
    """Opened, left alone, saved (as autosave would) and closed: the same bytes. JupyterLab
    rewrites the kernelspec and language_info from the kernel as it connects; a notebook
    that stores others is marked modified at once and rewritten by autosave."""
    relpath = "opened/" + str(path.relative_to(ROOT / "book"))
    stored = lab["work"] / relpath
    original = stored.read_bytes()
    page = _open(lab, relpath)
    page.wait_for_timeout(5000)
    dirty = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty")
    metadata = page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.context.model.toJSON().metadata")
    page.evaluate("() => window.jupyterapp.shell.currentWidget.context.save()")
    _close(page)
    saved = stored.read_bytes()
    assert not dirty, (f"JupyterLab marks {relpath} modified as soon as it is opened; its "
                       f"metadata there: {json.dumps(metadata)}")
    assert saved == original, (
        f"{relpath} saved by JupyterLab differs from the stored file:\n"
        + "\n".join(difflib.unified_diff(original.decode().splitlines(),
                                          saved.decode().splitlines(), lineterm="", n=1))[:3000])


def _first_notebook_link(reading: Path) -> tuple[Path, re.Match]:
    """The first chapter of the reading with a link to another chapter's notebook (what the
    reading makes of a {doc} reference to it), and the link."""
    for path in CHAPTERS:
        for cell in json.loads((reading / path.name).read_text())["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for m in NOTEBOOK_LINK.finditer(cell_text(cell)):
                if m.group("page") != path.name:
                    return path, m
    pytest.fail("no chapter links to another chapter's notebook")


def test_a_link_to_a_chapter_opens_it_at_its_top(lab):
    """Click a chapter's link that stands for {doc}`two_steps`: it shows the chapter's title,
    and JupyterLab opens the notebook at its top, its title in view. The stored chapter is
    opened, not run."""
    chapter, link = _first_notebook_link(lab["reading"])
    target_path = f"linked/{link.group('page')}"
    tab = _open(lab, f"linked/{chapter.name}")
    tab.evaluate("() => { window._chapter = window.jupyterapp.shell.currentWidget; }")
    anchor = tab.locator(f"a[data-commandlinker-args*='\"path\":\"{target_path}\"']").first
    anchor.wait_for(timeout=240_000)
    shown = anchor.inner_text()
    anchor.click()
    # once its first cell is rendered (jupyterlab-myst takes a few seconds)
    tab.wait_for_function(
        """(path) => { const w = window.jupyterapp.shell.currentWidget;
                       return w && w.context && w.context.path === path && w.content
                              && w.content.widgets && w.content.node.querySelector('h1'); }""",
        arg=target_path, timeout=120_000)
    tab.wait_for_timeout(2000)
    titles = tab.evaluate(
        """() => { const w = window.jupyterapp.shell.currentWidget;
                   const box = w.content.node.getBoundingClientRect();
                   return Array.from(w.content.node.querySelectorAll('h1'))
                     .filter(h => { const r = h.getBoundingClientRect();
                                    return r.top >= box.top - 1 && r.bottom <= box.bottom + 1; })
                     .map(h => h.textContent.replace(/\u00b6$/, '').trim()); }""")
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / f"doc-link-to-{Path(link.group('page')).stem}.png"))
    tab.evaluate("""() => { const shell = window.jupyterapp.shell;
                            for (const w of [window._chapter, shell.currentWidget])
                              if (w && w.sessionContext) w.sessionContext.shutdown(); }""")
    tab.close()
    title = Book().titles["book/" + Path(link.group("page")).stem]
    assert shown == title == link.group("text"), (shown, title)
    assert title in titles, (f"the link {shown!r} of {chapter.name} opened "
                             f"{link.group('page')} without its title {title!r} in view; in "
                             f"view: {titles[:5]}")
