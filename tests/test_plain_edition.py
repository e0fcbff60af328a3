"""The plain edition (publish/plain_edition.py, ``book/plain/``): the chapters for renderers
without MyST (Colab, GitHub's preview, VS Code, classic Jupyter).

* ``book/plain/`` is exactly what ``python -m publish plain`` writes from the sources now
  (one check of the whole folder: a chapter changed without it fails here);
* every plain notebook, rendered by nbconvert's HTML exporter (CommonMark and math, no
  MyST: what those places do), shows no raw MyST (directive fences, roles, label lines,
  glue keys) and every number the book's prose shows (the values stored in the chapter);
* the conversion itself on small inputs: a box, each role, a figure caption, a missing
  stored value.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from publish import plain_edition as pe
from publish import student_edition
from publish.sources import ROOT, chapters, read

CHAPTERS = chapters()
BOOK = pe.Book()
#: raw MyST as it shows where MyST is not rendered (a role is followed by a backtick, unlike
#: LaTeX such as W_{\mathrm{ref}})
RAW_MYST = re.compile(r"```\{|\{(eval|glue|glue:text|glue:figure|doc|numref|ref|prf:ref|cite:p|"
                      r"cite:t|prf:[a-z]+|exercise|solution-start|solution-end|term)\}`|^:label:|"
                      r"^\([A-Za-z0-9_\-]+\)=\s*$", re.M)


def stored_numbers(path: Path) -> list[str]:
    """Every value the chapter's prose shows (its stored {eval} values)."""
    return [v for cell in read(path)["cells"] for v in pe.stored_values(cell).values()]


def test_plain_edition_is_current(tmp_path):
    """``book/plain/`` is exactly what ``python -m publish plain`` writes now, file for file
    (``python -m publish execute`` writes it after running a chapter, ``make editions`` or
    ``make plain`` after editing a page)."""
    written = {p.name: p.read_text() for p in pe.write(tmp_path)}
    stored = {p.name: p.read_text() for p in sorted(pe.OUT.iterdir())}
    stale = sorted(name for name in written.keys() | stored.keys()
                   if written.get(name) != stored.get(name))
    assert not stale, f"book/plain/ is not what publish/plain_edition.py writes: {stale}; run " \
                      f"`make plain` (or `make editions`) and commit"


@pytest.mark.parametrize("doc", pe.PAGES)
def test_plain_pages_are_plain(doc):
    """The derivations page and the glossary, which the plain notebooks link to, show no raw
    MyST and have an anchor for every box they label."""
    text = (pe.OUT / (Path(doc).name + ".md")).read_text()
    assert not RAW_MYST.search(text), RAW_MYST.search(text).group(0)
    labels = re.findall(r"^:label:\s*(\S+)", (ROOT / (doc + ".md")).read_text(), re.M)
    assert all(f'<a name="{label}"></a>' in text for label in labels)


def rendered_text(nb: dict) -> str:
    """The notebook as nbconvert's HTML exporter renders it, as the reader's text: markdown
    through CommonMark with math left for MathJax, code and outputs shown."""
    import nbformat
    from nbconvert import HTMLExporter

    # read as nbformat reads a file: a text stored as a list of lines joined
    body, _ = HTMLExporter(template_name="classic").from_notebook_node(
        nbformat.reads(json.dumps(nb), as_version=4))
    body = re.sub(r"<(script|style)\b.*?</\1>", "", body, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def markdown_text(nb: dict) -> str:
    """Only the markdown cells of ``nb``, rendered (code may legitimately contain braces)."""
    md = dict(nb, cells=[c for c in nb["cells"] if c["cell_type"] == "markdown"])
    return rendered_text(md)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_plain_edition_renders_without_myst(path):
    nb = json.loads((pe.OUT / path.name).read_text())
    text = markdown_text(nb)
    raw = sorted({m.group(0) for m in RAW_MYST.finditer(text)})
    assert not raw, f"book/plain/{path.name} shows raw MyST: {raw[:10]}"
    flat = re.sub(r"\s+", " ", text)
    missing = [v for v in stored_numbers(path) if re.sub(r"\s+", " ", v) not in flat]
    assert not missing, f"book/plain/{path.name} lacks numbers of the book: {missing[:10]}"


def _images_without_alt(nb: dict) -> int:
    """How many images nbconvert's HTML exporter renders without alternative text (it then
    writes its own placeholder and warns)."""
    import nbformat
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter(template_name="classic").from_notebook_node(
        nbformat.reads(json.dumps(nb), as_version=4))
    return body.count("No description has been provided for this image")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_figure_of_the_plain_edition_has_alt_text(path):
    nb = json.loads((pe.OUT / path.name).read_text())
    images = [o for c in nb["cells"] for o in c.get("outputs", []) if "image/png" in
              o.get("data", {})]
    assert all(o["metadata"]["image/png"]["alt"].strip() for o in images)
    assert _images_without_alt(nb) == 0


def test_alt_text_is_the_captions_first_sentence_in_plain_text():
    caption = (r"The spikes of $W_2$ against $N$ ({prf:ref}`ts-obs-one-by-one`), "
               r"$\mathrm{He}_1$ target. Markers: means.")
    assert pe.alt_text(caption, "Fig. 2.3") == "Fig. 2.3: The spikes of W_2 against N " \
        "(ts-obs-one-by-one), He_1 target"


def test_boxes_become_headed_quotes_and_roles_text():
    text = ("(sec-x)=\n## A section\n\n```{prf:conjecture} The companion derives: a rule\n"
            ":label: intro-conj-count\n\nSee {prf:ref}`intro-conj-count`, {doc}`two_steps`, "
            "{cite:p}`ba2022onestep`, {cite:t}`moniri2026twostep`.\n```\n")
    out = pe.plain_markdown(text, BOOK, "intro")
    assert out.startswith("## A section")
    # the box and the reference by the book's name (publish/book.py)
    name = BOOK.targets["intro-conj-count"].name
    assert f"> **{name} (The companion derives: a rule).**" in out
    assert f"See {name}, " in out
    assert "(Ba et al. 2022)" in out and "Moniri and Hassani (2026)" in out
    assert "[Two steps: a spiked spectrum](two_steps.ipynb)" in out
    assert not RAW_MYST.search(out)


def test_a_collapsed_box_becomes_a_quote_headed_by_its_title():
    """A titled admonition (collapsed in the book with ``:class: dropdown``, issue 41) is a
    quote headed by its title alone, its options gone."""
    text = "```{admonition} Why it is late\n:class: dropdown\n\nThe third spike.\n```\n"
    out = pe.plain_markdown(text, BOOK, "two_steps")
    assert out.startswith("> **Why it is late.**") and "The third spike." in out
    assert ":class:" not in out and not RAW_MYST.search(out)


def test_stored_values_replace_eval_roles_and_a_missing_one_fails():
    cell = {"cell_type": "markdown", "source": "N = {eval}`ns.N`",
            "metadata": {"user_expressions": [{"expression": "ns.N", "result": {
                "status": "ok", "data": {"text/plain": "'1024'"}, "metadata": {}}}]}}
    values = pe.stored_values(cell)
    assert pe.with_stored_values(cell["source"], values, "x") == "N = 1024"
    with pytest.raises(KeyError, match="no stored value"):
        pe.with_stored_values("{eval}`ns.M`", values, "x")


def test_figures_get_their_caption_and_counts_run_on():
    # the first page with figures outside the numbered chapters: its first is "Fig. 1"
    nb = pe.plain_notebook(ROOT / "book" / "ten_minutes.ipynb", BOOK)
    captions = [c["source"] for c in nb["cells"]
                if c["cell_type"] == "markdown" and c["source"].startswith("**Fig. ")]
    assert captions and captions[0].startswith("**Fig. 1.** ")
    counts = [c["execution_count"] for c in nb["cells"] if c["cell_type"] == "code"]
    assert counts == list(range(1, len(counts) + 1))


@pytest.fixture(scope="module")
def student_notebooks(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    student_edition.write_sources(out)
    return out / "notebooks"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_student_notebooks_render_without_myst(student_notebooks, path):
    """The notebooks a course hands out (the plain edition without solutions) read well
    without MyST: no raw MyST, every number of the prose outside the solutions, no
    solution cell, execution counts 1, 2, 3, ..."""
    nb = json.loads((student_notebooks / path.name).read_text())
    text = markdown_text(nb)
    raw = sorted({m.group(0) for m in RAW_MYST.finditer(text)})
    assert not raw, f"student {path.name} shows raw MyST: {raw[:10]}"
    source = read(path)
    kept = [c for c in source["cells"] if not student_edition.is_solution(c)]
    flat = re.sub(r"\s+", " ", text)
    missing = [v for c in kept for v in pe.stored_values(c).values()
               if re.sub(r"\s+", " ", v) not in flat]
    assert not missing, f"student {path.name} lacks numbers: {missing[:10]}"
    assert not any(student_edition.is_solution(c) for c in nb["cells"])
    counts = [c["execution_count"] for c in nb["cells"] if c["cell_type"] == "code"]
    assert counts == list(range(1, len(counts) + 1)), counts
    assert _images_without_alt(nb) == 0


@pytest.mark.parametrize("path", chapters() + sorted(pe.OUT.glob("*.ipynb")),
                         ids=lambda p: str(p.relative_to(ROOT / "book")))
def test_notebooks_store_what_jupyterlab_writes(path):
    """Opening a notebook in JupyterLab must not modify it: it stores the kernelspec
    JupyterLab writes (tests/test_jupyterlab.py checks the whole file in a real JupyterLab),
    nbformat 4.5 and an id in every cell."""
    nb = json.loads(path.read_text())
    assert nb["metadata"]["kernelspec"] == pe.KERNELSPEC
    assert (nb["nbformat"], nb["nbformat_minor"]) == (4, 5)
    assert all(cell.get("id") for cell in nb["cells"])


def test_the_kernelspec_is_the_installed_kernels():
    """KERNELSPEC is what ipykernel declares (JupyterLab copies it from the kernel's spec)."""
    from ipykernel.kernelspec import get_kernel_dict
    spec = get_kernel_dict()
    assert pe.KERNELSPEC == {"display_name": spec["display_name"],
                                        "language": spec["language"], "name": "python3"}
