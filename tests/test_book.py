"""Tests of the book: stored outputs, the build's fresh outputs against them, the strict build.

* every chapter listed in ``_toc.yml`` exists, and every notebook in ``book/`` is listed;
* every code cell of every chapter notebook has been executed (in order, in one run) and
  the notebook stores its outputs, so that nbval has something to compare;
* the strict build executes every chapter afresh; its outputs (``_build/jupyter_execute``)
  are compared with the stored ones as nbval compares them, sanitized by
  ``tests/nbval_sanitize.cfg`` (memory addresses, timings, float digits beyond the sixth
  decimal); embedded images are not compared, numbers are. (Executing each chapter once
  more only for nbval took five minutes of CI; nbval itself runs in the Binder play of
  tests/test_anywhere.py, with one BLAS thread in a fresh environment.)
* a strict build (``jupyter-book build --all -W -n --keep-going .``) produces a page for
  every chapter, with at least as many figures as the notebook stores images, MathJax
  loaded exactly once and from the book itself.

The build is run once per session, only when ``_build/html`` is missing or older than a
chapter, the configuration or the ``companion`` package; otherwise the existing build
(normally from ``make book``) is checked. All tests here carry the ``book`` marker:
``pytest -m book`` runs only them, ``pytest -m "not book"`` skips them.
"""

from __future__ import annotations

import json
import re

import pytest

from _helpers import ROOT, built_pages, toc_files, toc_source

pytestmark = pytest.mark.book

SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
MATHJAX_FILE = "tex-mml-svg.js"

TOC = toc_files()
NOTEBOOKS = [stem for stem in TOC if (ROOT / (stem + ".ipynb")).exists()]


def _read_nb(stem: str) -> dict:
    return json.loads((ROOT / (stem + ".ipynb")).read_text())


def _code_cells(nb: dict) -> list[dict]:
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


def _image_outputs(nb: dict) -> int:
    """Number of stored image outputs (displayed figures, image/png or image/jpeg)."""
    return sum(1 for cell in _code_cells(nb) for out in cell.get("outputs", [])
               if any(key.endswith(("image/png", "image/jpeg")) for key in out.get("data", {})))


# --- the table of contents -------------------------------------------------------------------

@pytest.mark.parametrize("stem", TOC)
def test_toc_entry_exists(stem):
    assert toc_source(stem).exists()


def test_every_chapter_notebook_is_in_the_toc():
    # only_build_toc_files: true silently drops a notebook that is not listed.
    listed = {str(ROOT / stem) for stem in TOC}
    orphans = [p.name for p in sorted((ROOT / "book").glob("*.ipynb"))
               if str(p.with_suffix("")) not in listed]
    assert not orphans, f"notebooks in book/ missing from _toc.yml: {orphans}"


def test_no_code_selects_a_matplotlib_backend():
    pattern = re.compile(r"matplotlib\.use\(|MPLBACKEND|switch_backend\(|backend_agg")
    offenders = []
    for stem in NOTEBOOKS:
        for i, cell in enumerate(_code_cells(_read_nb(stem))):
            if pattern.search("".join(cell["source"])):
                offenders.append(f"{stem}.ipynb, code cell {i + 1}")
    for path in sorted((ROOT / "companion").rglob("*.py")):
        if pattern.search(path.read_text()):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, f"these select a matplotlib backend (figures would vanish): {offenders}"


# --- stored outputs --------------------------------------------------------------------------

@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_notebook_executed_with_outputs_stored(stem):
    cells = _code_cells(_read_nb(stem))
    if not cells:
        pytest.skip(f"{stem}.ipynb has no code cells (placeholder)")
    counts = [cell.get("execution_count") for cell in cells]
    unrun = [i + 1 for i, c in enumerate(counts) if c is None]
    assert not unrun, (f"{stem}.ipynb: code cells {unrun} were never executed; run "
                       f"`.venv/bin/jupyter execute --inplace {stem}.ipynb` and commit")
    assert counts == list(range(1, len(cells) + 1)), (
        f"{stem}.ipynb: execution counts {counts} are not 1..{len(cells)}: the stored outputs "
        f"do not come from one top-to-bottom run; re-run with `jupyter execute --inplace`")
    assert any(cell.get("outputs") for cell in cells), f"{stem}.ipynb stores no outputs"
    errors = [i + 1 for i, cell in enumerate(cells)
              for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors, f"{stem}.ipynb: code cells {errors} store an error"


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_no_cell_relies_on_a_trailing_semicolon(stem):
    """nbval executes cells with store_history=False, where IPython ignores a trailing ';':
    the fresh run then shows an output (``<matplotlib.legend.Legend at 0x...>``) that the
    stored notebook does not have. Assign instead (``_ = ax.legend()``) or end with
    ``plt.show()``."""
    offenders = []
    for i, cell in enumerate(_code_cells(_read_nb(stem))):
        lines = [ln.split("#")[0].rstrip() for ln in "".join(cell["source"]).splitlines()]
        lines = [ln for ln in lines if ln]
        if lines and lines[-1].endswith(";"):
            offenders.append(i + 1)
    assert not offenders, (f"{stem}.ipynb: code cells {offenders} end with ';' (nbval shows the "
                           f"value anyway); assign it (`_ = ...`) instead")


# --- thin, readable chapters -----------------------------------------------------------------

HIDDEN_TAGS = {"remove-cell", "remove-input", "hide-input", "hide-cell"}
MAX_VISIBLE_CODE_LINES = 70   # two_steps: 64 with its E12 section and the prediction (issue 19)
MAX_LINE = 76      # the code box of the page cuts longer lines


def _visible_code_cells(nb: dict, exercises: bool = False) -> list[dict]:
    """Code cells the page shows in the chapter's body: not hidden by a tag, and not part of
    an exercise (its starter cell, tagged ``exercise``, or its solution, tagged ``solution``
    and shown in a dropdown: book/CONVENTIONS.md, "Exercises"). ``exercises``: those too."""
    skip = HIDDEN_TAGS if exercises else HIDDEN_TAGS | {"exercise", "solution"}
    return [c for c in nb["cells"] if c["cell_type"] == "code"
            and not skip & set(c.get("metadata", {}).get("tags", []))]


def _shown_outputs(cell: dict) -> list[str]:
    """Text outputs a page shows for this cell (cells tagged remove-output show none)."""
    if {"remove-output", "remove-cell"} & set(cell.get("metadata", {}).get("tags", [])):
        return []
    texts = []
    for out in cell.get("outputs", []):
        if "text" in out:
            texts.append("".join(out["text"]))
        elif "text/plain" in out.get("data", {}) and not any(
                k.startswith("image/") for k in out["data"]):
            texts.append("".join(out["data"]["text/plain"]))
    return texts


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_chapter_shows_little_code_and_no_bookkeeping(stem):
    """A chapter shows at most about 70 lines of code, each a line a reader learns from:
    no glue calls (bookkeeping goes into the package or into remove-cell cells)."""
    cells = _visible_code_cells(_read_nb(stem))
    lines = [ln for c in cells for ln in "".join(c["source"]).splitlines() if ln.strip()]
    assert len(lines) <= MAX_VISIBLE_CODE_LINES, (
        f"{stem}.ipynb shows {len(lines)} code lines (at most {MAX_VISIBLE_CODE_LINES})")
    glue = [ln for ln in lines if "glue(" in ln or "glue_numbers(" in ln]
    assert not glue, f"{stem}.ipynb shows glue calls: {glue}"


# the prose's limits (words, numbers a paragraph, the opening): tests/test_prose.py


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_prose_names_no_experiment_code(stem):
    """Experiment codes (E1, E17) appear only on the registry page (book/CONVENTIONS.md,
    "Citations"); a chapter's prose and its figures' captions say what the experiment is."""
    cells = _read_nb(stem)["cells"]
    texts = (["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
             + [json.dumps(c.get("metadata", {})) for c in cells if c["cell_type"] == "code"])
    # code a reader types (`store.load("E12")`) names the stored file, as it must
    found = [m.group(0) for t in texts
             for m in re.finditer(r"\bE1?[0-9]\b", re.sub(r"`[^`\n]*`", "", t))]
    assert not found, f"{stem}.ipynb names experiment codes in its prose: {found}"


MAX_HIDDEN_CODE_LINES = 10


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_jupyterlab_shows_little_more_code_than_the_page(stem):
    """JupyterLab (Binder) and Colab show every cell as code, the page hides cells tagged
    remove-cell / remove-input: those hold at most 10 lines in all (the Colab install cell
    included), so bookkeeping lives in the package, not in hidden cells (issue 18)."""
    hidden = [ln for c in _code_cells(_read_nb(stem))
              if {"remove-cell", "remove-input"} & set(c.get("metadata", {}).get("tags", []))
              for ln in "".join(c["source"]).splitlines() if ln.strip()]
    assert len(hidden) <= MAX_HIDDEN_CODE_LINES, (
        f"{stem}.ipynb hides {len(hidden)} code lines from the page (at most "
        f"{MAX_HIDDEN_CODE_LINES}); move the computation into companion/chapters/<chapter>/summaries.py")


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_no_glue(stem):
    """No glue role, directive or call: JupyterLab's MyST extension renders none of them
    (raw keys, "Unknown Directive" boxes); numbers are {eval} roles, figures carry their
    caption in the cell's metadata."""
    found = []
    for cell in _read_nb(stem)["cells"]:
        text = "".join(cell["source"])
        found += re.findall(r"\{glue(?::\w+)?\}|\bglue(?:_numbers)?\(|show\(\s*[\"']", text)
    assert not found, f"{stem}.ipynb still uses glue: {sorted(set(found))}"


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_no_code_or_output_line_is_cut_off(stem):
    """No shown code or output line is wider than the column (76 characters)."""
    nb = _read_nb(stem)
    wide = [ln for c in _visible_code_cells(nb, exercises=True) for ln in "".join(c["source"]).splitlines()
            if len(ln) > MAX_LINE]
    wide += [ln for c in _code_cells(nb) for text in _shown_outputs(c)
             for ln in text.splitlines() if len(ln) > MAX_LINE]
    assert not wide, f"{stem}.ipynb: lines wider than {MAX_LINE} characters: {wide[:5]}"


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_every_figure_has_alt_text(stem):
    """Every placed figure says in words what it shows (its alt text), not a file path: a
    figure is the image output of a code cell whose metadata names and captions it
    (``mystnb.figure``; its alt text in ``mystnb.image.alt``)."""
    nb = _read_nb(stem)
    missing = []
    for cell in _code_cells(nb):
        meta = cell.get("metadata", {}).get("mystnb", {})
        if "figure" not in meta:
            continue
        fig = meta["figure"]
        if not fig.get("name") or len(str(fig.get("caption", ""))) < 30:
            missing.append(f"{fig.get('name', '?')}: name and caption")
        if len(str(meta.get("image", {}).get("alt", ""))) < 30:
            missing.append(f"{fig.get('name', '?')}: alt text of a sentence")
    assert not missing, f"{stem}.ipynb: figures without {missing}"


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_every_image_is_a_numbered_figure(stem):
    """A cell that stores an image carries figure metadata (a name, a caption), so that the
    book numbers it and {numref} finds it; one image per such cell (two images would share
    one name)."""
    bad = []
    for i, cell in enumerate(_code_cells(_read_nb(stem))):
        images = _image_outputs({"cells": [cell]})
        has_figure = "figure" in cell.get("metadata", {}).get("mystnb", {})
        if images and not has_figure and "solution" not in cell.get("metadata", {}).get(
                "tags", []):
            bad.append(f"code cell {i + 1}: {images} image(s) without figure metadata")
        if has_figure and images != 1:
            bad.append(f"code cell {i + 1}: figure metadata but {images} images")
    assert not bad, f"{stem}.ipynb: {bad}"


def _png_width(b64: str) -> int:
    import base64
    import struct
    head = base64.b64decode(b64[:64])
    return struct.unpack(">I", head[16:20])[0]


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_figures_are_rendered_at_twice_their_displayed_size(stem):
    """Every stored PNG carries its display width in its metadata and has at least twice as
    many pixels (sharp on high-density screens; the book shows it at the display width)."""
    bad = []
    for cell in _code_cells(_read_nb(stem)):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            for key, value in data.items():
                if not key.endswith("image/png"):
                    continue
                width = out.get("metadata", {}).get(key.split("/", 1)[-1] if key.startswith(
                    "application") else key, {}).get("width") or out.get(
                    "metadata", {}).get("image/png", {}).get("width")
                pixels = _png_width("".join(value) if isinstance(value, list) else value)
                if not width or pixels < 2 * int(width) - 2:
                    bad.append((width, pixels))
    assert not bad, f"{stem}.ipynb: PNG figures not rendered at 2x (display width, pixels): {bad}"


# --- nbval ------------------------------------------------------------------------------------

def _sanitizers() -> list[tuple[re.Pattern, str]]:
    """The regex/replace pairs of tests/nbval_sanitize.cfg, in file order (the Binder play's
    nbval run reads the same file)."""
    pairs, regex = [], None
    for line in SANITIZE.read_text().splitlines():
        if line.startswith("regex: "):
            regex = line[len("regex: "):]
        elif line.startswith("replace: ") and regex is not None:
            pairs.append((re.compile(regex, re.M), line[len("replace: "):]))
            regex = None
    return pairs


def _compared_outputs(outputs: list, sanitizers) -> dict[str, list]:
    """Outputs as nbval 0.11 compares them: keys flattened (the MIME types of ``data`` beside
    the streams), every string sanitized; images, metadata and execution counts left out
    (nbval.plugin.IPyNbFile.skip_compare). A cell's text on each stream is compared whole
    and exactly (its outputs on that stream concatenated, as nbval merges them): the build
    joins what a cell printed as printed (publish/extensions/merge_streams.py), as
    python -m publish execute does in the stored chapter, wherever the kernel cut it."""
    skip = {"metadata", "traceback", "prompt_number", "output_type", "name",
            "execution_count", "application/vnd.jupyter.widget-view+json", "image/png",
            "image/jpeg"}

    def clean(value):
        if isinstance(value, list):
            value = "".join(value)
        if isinstance(value, str):
            for pattern, replace in sanitizers:
                value = pattern.sub(replace, value)
        return value

    flat, streams = {}, {}
    for out in outputs:
        if out.get("output_type") == "stream":
            text = "".join(out["text"]) if isinstance(out["text"], list) else out["text"]
            streams[out["name"]] = streams.get(out["name"], "") + text
            continue
        for key, value in out.items():
            if key in skip:
                continue
            items = value.items() if key == "data" else [(key, value)]
            for k, v in items:
                if k not in skip:
                    flat.setdefault(k, []).append(clean(v))
    for name, text in streams.items():
        flat[name] = [clean(text)]
    return flat


def _kinds(outputs: list) -> list[tuple]:
    """A cell's outputs as the page shows them, one block each: (output type, stream)."""
    return [(out.get("output_type"), out.get("name")) for out in outputs]


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_build_outputs_match_the_stored_ones(built_book, stem):
    """The strict build executes every chapter afresh (all cores); the outputs it computed
    (_build/jupyter_execute/, as the page shows them) must match the stored ones, as nbval
    compares them, block for block (a cell's printing in one block, however the kernel split
    it), so the stored chapter is what any reader gets. (The Binder play in
    tests/test_anywhere.py runs nbval itself on a fresh environment with one BLAS thread.)"""
    import nbformat

    executed = ROOT / "_build" / "jupyter_execute" / (stem + ".ipynb")
    assert executed.exists(), f"the build left no executed copy of {stem}.ipynb"
    fresh = nbformat.read(executed, as_version=4)
    stored = nbformat.read(ROOT / (stem + ".ipynb"), as_version=4)
    sanitizers = _sanitizers()
    fresh_cells = [c for c in fresh.cells if c.cell_type == "code"]
    stored_cells = [c for c in stored.cells if c.cell_type == "code"]
    assert len(fresh_cells) == len(stored_cells), f"{stem}: the build saw other code cells"
    differ = []
    for i, (a, b) in enumerate(zip(stored_cells, fresh_cells)):
        want = _compared_outputs(a.get("outputs", []), sanitizers)
        got = _compared_outputs(b.get("outputs", []), sanitizers)
        if _kinds(a.get("outputs", [])) != _kinds(b.get("outputs", [])):
            differ.append(f"code cell {i} (output blocks): stored "
                          f"{_kinds(a.get('outputs', []))}, built {_kinds(b.get('outputs', []))}")
        elif want != got:
            keys = sorted(set(want) | set(got))
            diff = next(k for k in keys if want.get(k) != got.get(k))
            differ.append(f"code cell {i} ({diff}): stored {str(want.get(diff))[:300]!r}, "
                          f"built {str(got.get(diff))[:300]!r}")
    assert not differ, (f"{stem}.ipynb: the build's outputs differ from the stored ones; "
                        f"re-execute with python -m publish execute if intended:\n"
                        + "\n".join(differ[:5]))


def _stored_prose_values(nb: dict) -> list[tuple[str, str]]:
    """(expression, stored text) for every {eval} role of the chapter, in reading order:
    markdown cells, and the captions of figures (code cell metadata), as stored by
    python -m publish execute in each cell's ``user_expressions``."""
    out = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"])
        else:
            text = str(cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get(
                "caption", ""))
        stored = {item["expression"]: item["result"]["data"].get("text/plain")
                  for item in cell.get("metadata", {}).get("user_expressions", [])}
        for expr in re.findall(r"\{eval\}`([^`]+)`", text):
            out.append((expr, stored.get(expr)))
    return out


def _bound_names(source: str) -> set[str]:
    """Names a code cell binds (assignments, loop targets, imports, definitions); IPython
    magics count as ``pass``."""
    import ast

    code = "\n".join(ln[:len(ln) - len(ln.lstrip())] + "pass"
                     if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines())
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_every_name_the_prose_shows_is_bound_once(stem):
    """A name an {eval} role reads is bound by one code cell only. The book evaluates a role
    where it stands, but JupyterLab's MyST extension may evaluate it again after Run All,
    when an exercise's code (which sets its own names) could have rebound the name: the
    prose would then show an error or another value (seen: `exponents` in two_steps)."""
    nb = _read_nb(stem)
    shown = {expr.split(".")[0] for expr, _ in _stored_prose_values(nb)}
    binders = {}
    for i, cell in enumerate(_code_cells(nb)):
        for name in _bound_names("".join(cell["source"])) & shown:
            binders.setdefault(name, []).append(i + 1)
    twice = {name: cells for name, cells in binders.items() if len(cells) > 1}
    assert not twice, (f"{stem}.ipynb: names the prose shows are bound in several code "
                       f"cells (cell numbers): {twice}")


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_every_prose_number_is_stored(stem):
    """Every {eval} role has a stored value (JupyterLab shows it before the chapter runs;
    the plain edition prints it): the chapter was executed with python -m publish execute."""
    missing = [expr for expr, value in _stored_prose_values(_read_nb(stem)) if value is None]
    assert not missing, (f"{stem}.ipynb: no stored value for {missing[:5]}; run "
                         f"`.venv/bin/python -m publish execute {stem}.ipynb`")


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_stored_streams_are_joined(stem):
    """No code cell stores two consecutive stream outputs of the same name: how a cell's
    printing was split into messages depends on the machine's timing, so
    python -m publish execute joins them (as JupyterLab does) and re-executing an unchanged
    chapter leaves its file unchanged."""
    split = [i + 1 for i, cell in enumerate(_code_cells(_read_nb(stem)))
             if any(a["output_type"] == b["output_type"] == "stream" and a["name"] == b["name"]
                    for a, b in zip(cell.get("outputs", []), cell.get("outputs", [])[1:]))]
    assert not split, (f"{stem}.ipynb: code cells {split} store split streams; run "
                       f"`.venv/bin/python -m publish execute {stem}.ipynb`")


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_build_prose_numbers_match_the_stored_ones(built_book, stem):
    """The numbers the built page shows in its prose ({eval} roles, evaluated by MyST-NB's
    inline execution and recorded by publish/extensions/record_eval.py) are the stored ones, in the
    same order: what JupyterLab shows before a run and the plain edition prints is what the
    book computes."""
    stored = _stored_prose_values(_read_nb(stem))
    record = ROOT / "_build" / "jupyter_execute" / (stem + ".eval.json")
    if not stored:
        return
    assert record.exists(), f"the build recorded no {{eval}} values for {stem}"
    built = [(item["expression"], item["text/plain"])
             for item in json.loads(record.read_text())]
    assert [e for e, _ in built] == [e for e, _ in stored], (
        f"{stem}: the build evaluated other expressions than the notebook stores")
    differ = [f"{e}: stored {a!r}, built {b!r}" for (e, a), (_, b) in zip(stored, built)
              if a != b]
    assert not differ, (f"{stem}.ipynb: the build's prose numbers differ from the stored "
                        f"ones; re-execute with python -m publish execute if intended:\n"
                        + "\n".join(differ[:8]))


# --- the strict build (_helpers.build_if_stale, through the fixture built_book) ---------------

@pytest.mark.parametrize("stem", TOC)
def test_chapter_page_built(built_book, stem):
    page = built_book / (stem + ".html")
    assert page.exists(), f"the build produced no page for {stem}"
    assert "<h1" in page.read_text(), f"{page} has no title"


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_chapter_page_shows_its_figures(built_book, stem):
    page = built_book / (stem + ".html")
    html = page.read_text()
    srcs = re.findall(r'<img[^>]*\ssrc="([^"]*_images/[^"]+)"', html)
    expected = _image_outputs(_read_nb(stem))
    assert len(srcs) >= expected, (
        f"{page.name} shows {len(srcs)} figures but {stem}.ipynb stores {expected} images: a figure "
        f"was lost (a removed output, or a "
        f"non-inline matplotlib backend)")
    missing = [s for s in srcs if not (page.parent / s).resolve().exists()]
    assert not missing, f"{page.name} links to missing image files {missing}"


@pytest.mark.parametrize("stem", TOC)
def test_mathjax_loaded_once_from_the_book(built_book, stem):
    """Sphinx adds MathJax only to pages with math: there exactly once, from the book's own
    copy (no CDN; a second copy, e.g. from a _static/ folder, renders math twice)."""
    html = (built_book / (stem + ".html")).read_text()
    scripts = re.findall(r"<script[^>]*src=\"([^\"]*(?:mathjax|tex-[a-z-]+\.js)[^\"]*)\"",
                         html, flags=re.IGNORECASE)
    expected = 1 if re.search(r'class="[^"]*\bmath\b', html) else 0
    assert len(scripts) == expected and all(MATHJAX_FILE in s and "//" not in s for s in scripts), (
        f"{stem}: expected MathJax {expected} time(s), from _static/{MATHJAX_FILE}; found {scripts}")
    assert (built_book / "_static" / MATHJAX_FILE).exists()


def test_references_page_lists_the_paper(built_book):
    html = (built_book / "book" / "references.html").read_text()
    assert "2605.17767" in html and "two vs. one step" in html.lower()


#: a number as a program prints it: 1.0e5, 2e-07, 1e+03
PROGRAM_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][-+]?\d+\b")


def test_program_number_pattern():
    assert PROGRAM_NUMBER.findall("N = 1.0e5, agree to 1e-7; 2e+03") == ["1.0e5", "1e-7",
                                                                          "2e+03"]
    assert not PROGRAM_NUMBER.findall("He3 e10 10⁵ 1.5 × 10⁵ sha 3e1b")


def test_no_rendered_page_shows_a_number_in_a_programs_notation(built_book):
    """What a reader reads on a page (its text outside code, program output and math) writes
    a number as a reader does: 10⁵, 1.5 × 10⁵, never 1.0e5 (issue 41)."""
    from html.parser import HTMLParser

    class Text(HTMLParser):
        SKIP = {"pre", "code", "script", "style", "math", "svg"}

        def __init__(self):
            super().__init__()
            self.depth, self.parts = 0, []

        def handle_starttag(self, tag, attrs):
            classes = dict(attrs).get("class") or ""
            # a signature of the API page (<dt class="sig ...">) is code: its defaults
            # (tol=1e-8) are what the source writes
            if tag in self.SKIP or {"math", "sig"} & set(classes.split()) or "output" in classes:
                self.depth += 1
            elif self.depth:
                self.depth += tag not in {"br", "img", "meta", "link", "input", "hr"}

        def handle_startendtag(self, tag, attrs):
            pass                                   # <br/>, <img/>: no text, no nesting

        def handle_endtag(self, tag):
            if self.depth:
                self.depth -= 1

        def handle_data(self, data):
            if not self.depth:
                self.parts.append(data)

    offenders = []
    for page in built_pages(built_book):
        parser = Text()
        parser.feed(page.read_text())
        text = re.sub(r"\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]", " ", " ".join(parser.parts))
        offenders += [(page.name, m.group(0)) for m in PROGRAM_NUMBER.finditer(text)]
    assert not offenders, offenders[:10]



@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_every_source_line_is_stored_as_jupyter_stores_it(stem):
    """Each cell's source is a list of single lines, each ending in a newline but the last,
    as JupyterLab writes it: otherwise a reader's JupyterLab rewrites the file when it opens
    the chapter (tests/test_jupyterlab.py's slow check found one in finite_size)."""
    for i, cell in enumerate(_read_nb(stem)["cells"]):
        src = cell["source"]
        assert isinstance(src, list), (stem, i)
        for j, line in enumerate(src):
            assert "\n" not in line[:-1], (stem, i, line[:60])
            assert line.endswith("\n") or j == len(src) - 1, (stem, i, line[:60])
