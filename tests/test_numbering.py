"""One numbering: a box, exercise, figure or section that a chapter cites is found by the same
name in the book, in JupyterLab and in the plain edition (tools/numbering.py).

* the chapters are as tools/numbering.py writes them (the front matter with the chapter's
  number, the names of the references JupyterLab cannot resolve, the figures' comments);
* for every reference of every chapter ({prf:ref}, {ref}, {numref}) the name it shows is the
  same in the three editions: in JupyterLab (the role's text, or for a box of the same
  notebook the number jupyterlab-myst gives it, :func:`numbering.jupyterlab_names`;
  tests/test_jupyterlab.py checks those numbers in a real JupyterLab), in the plain edition
  (tools/plain_edition.py) and on the built page (the link's text);
* and that name is found where the target is: in the built book (the box's title, the
  figure's caption, the heading), in what JupyterLab shows of the target's notebook (the
  box's title, the comment of the figure's drawing line, the heading) and in the plain
  edition (the box's head, the figure's caption, the heading). A target on a page that is
  not a notebook (the derivations) is found in the book and on the plain edition's copy of
  the page; JupyterLab shows the reference's name, not its raw label.
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import numbering  # noqa: E402
import plain_edition as pe  # noqa: E402

BOOK = numbering.targets()
PLAIN_BOOK = pe.Book(pe.chapters())
NOTEBOOKS = numbering.notebooks()
HTML = ROOT / "_build" / "html"


def test_the_chapters_are_numbered_as_the_tool_writes_them():
    stale = numbering.write(check=True)
    assert not stale, (f"not as tools/numbering.py writes them: "
                       f"{[str(p.relative_to(ROOT)) for p in stale]}; run `make numbers`")


def test_the_model_numbers_kinds_apart_and_the_pages_outside_the_chapters_together():
    """As the book does (checked against the built pages below): each kind has its own
    counter; the introduction and the derivations page share theirs."""
    assert BOOK["thm-one-step-limits"].name == "Theorem 1"
    assert BOOK["def-two-steps"].name == "Definition 2"
    intro_definitions = sum(1 for t in BOOK.values()
                            if t.doc == "book/intro" and t.kind == "definition")
    assert BOOK["dv-model"].name == f"Definition {intro_definitions + 1}"
    assert BOOK["os-conj-rank-one"].name == "Conjecture 1.1"
    assert BOOK["fig-os-rank-one"].name == "Fig. 1.1"


def test_names_and_comments_are_written_where_jupyterlab_needs_them():
    text = ("See {prf:ref}`def-two-steps`, {prf:ref}`os-conj-bbp`, {numref}`fig-os-growth`, "
            "{ref}`Fig. 9.9 <fig-os-growth>`, {prf:ref}`my words <def-two-steps>` and "
            "{prf:ref}`Conjecture 7 <os-conj-bbp>`.")
    out = numbering.with_names(text, "book/one_step", BOOK)
    assert out == ("See {prf:ref}`Definition 2 <def-two-steps>`, {prf:ref}`os-conj-bbp`, "
                   "{ref}`Fig. 1.5 <fig-os-growth>`, {ref}`Fig. 1.5 <fig-os-growth>`, "
                   "{prf:ref}`my words <def-two-steps>` and {prf:ref}`os-conj-bbp`.")
    code = "show(figures.growth(growth, stored_growth))  # Fig. 9.9"
    assert numbering.with_figure_comment(code, "Fig. 1.5") == (
        "show(figures.growth(growth, stored_growth))  # Fig. 1.5")
    assert numbering.front_matter(2) == '---\nnumbering:\n  enumerator: "2.%s"\n---\n'
    assert numbering.front_matter(None) == ""


# --- the names every edition shows -------------------------------------------------------------

def _markdown(path: Path) -> list[str]:
    return [pe._src(c) for c in json.loads(path.read_text())["cells"]
            if c["cell_type"] == "markdown"]


def references() -> list[tuple[str, str, str, str | None]]:
    """(the chapter's doc, the role, the label, the role's own text) of every reference."""
    out = []
    for doc, _, path in NOTEBOOKS:
        for text in _markdown(path):
            for m in numbering.ROLE.finditer(text):
                shown, label = numbering.cited_text(m.group("name"), m.group("text"))
                out.append((doc, m.group(0), label, shown))
    return out


REFERENCES = references()


def jupyterlab_shows(doc: str, label: str, shown: str | None) -> str:
    """The reference's text in JupyterLab: its own text; a box of the same notebook by the
    number jupyterlab-myst gives it, a section by its heading; anything else by its raw
    label (jupyterlab-myst resolves no label of another file and no figure)."""
    if shown is not None:
        return shown
    target = BOOK.get(label)
    if target is not None and target.doc == doc:
        if target.kind == "section":
            return target.name
        names = numbering.jupyterlab_names(numbering.source(doc))
        if label in names:
            return names[label]
    return label


def plain_shows(doc: str, role: str) -> str:
    """The reference's text in the plain edition, without the link to another chapter."""
    text = pe.plain_roles(role, PLAIN_BOOK, Path(doc).name)
    return re.sub(r" in \[[^\]]*\]\([^)]*\)$", "", text).strip("“”")


def _unquoted(name: str) -> str:
    return name.strip("“”")


def test_every_chapter_cites_something():
    assert len(REFERENCES) >= 60
    assert {Path(doc).name for doc, *_ in REFERENCES} >= {"intro", "one_step", "finite_size"}


@pytest.mark.parametrize("doc,role,label,shown", REFERENCES,
                         ids=[f"{Path(d).name}:{lab}" for d, _, lab, _ in REFERENCES])
def test_a_reference_shows_one_name_in_jupyterlab_and_the_plain_edition(doc, role, label,
                                                                       shown):
    target = BOOK.get(label)
    assert target is not None, f"{role}: no such label in the book"
    lab = jupyterlab_shows(doc, label, shown)
    assert lab != label, f"{doc}: {role} shows its raw label in JupyterLab"
    assert lab == plain_shows(doc, role) == _unquoted(target.name), (
        f"{doc}: {role} shows {lab!r} in JupyterLab, {plain_shows(doc, role)!r} in the plain "
        f"edition; the target's name is {target.name!r}")


def _lab_text_of_target(target: numbering.Target) -> str | None:
    """What JupyterLab shows of the target's notebook where the target is (None: the target
    is not in a notebook)."""
    path = numbering.source(target.doc)
    if path.suffix != ".ipynb":
        return None
    nb = json.loads(path.read_text())
    if target.kind == "figure":
        return "\n".join(pe._src(c) for c in nb["cells"] if c["cell_type"] == "code"
                         and c.get("metadata", {}).get("mystnb", {}).get("figure", {})
                         .get("name") == target.label)
    if target.kind == "section":
        return "\n".join(_markdown(path))
    names = numbering.jupyterlab_names(path)
    return f"{names.get(target.label)} ({target.title})"


def _plain_text_of_target(target: numbering.Target) -> str:
    stem = Path(target.doc).name
    nb = pe.OUT / f"{stem}.ipynb"
    if nb.exists():
        return "\n".join(pe._src(c) for c in json.loads(nb.read_text())["cells"])
    return (pe.OUT / f"{stem}.md").read_text()


TARGETS = sorted({label for _, _, label, _ in REFERENCES if label in BOOK})


@pytest.mark.parametrize("label", TARGETS)
def test_a_cited_target_is_found_by_its_name_in_jupyterlab_and_the_plain_edition(label):
    target = BOOK[label]
    name = _unquoted(target.name)
    lab = _lab_text_of_target(target)
    if lab is not None:
        wanted = f"# {name}" if target.kind == "figure" else name
        assert wanted in lab, f"JupyterLab shows no {wanted!r} at {label} ({target.doc})"
    plain = _plain_text_of_target(target)
    wanted = {"figure": f"**{name}.**", "section": name}.get(target.kind, f"**{name} (")
    assert wanted in plain, f"the plain edition shows no {wanted!r} at {label}"


# --- the built book ----------------------------------------------------------------------------

def _page(doc: str) -> str:
    return (HTML / f"{doc}.html").read_text()


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", fragment))).strip()


def _shown_on_page(page: str, label: str) -> set[str]:
    """The texts of the page's links to ``label``."""
    return {_text(t) for t in re.findall(
        r'<a class="reference internal" href="[^"]*#' + re.escape(label) + r'"[^>]*>(.*?)</a>',
        page, re.S)}


def _found_on_page(page: str, target: numbering.Target) -> bool:
    name = _unquoted(target.name)
    if target.kind == "figure":
        return re.search(r'id="' + re.escape(target.label) + r'".*?<span class="caption-'
                         r'number">' + re.escape(name) + r"\s*</span>", page, re.S) is not None
    if target.kind in ("section", "target"):
        if target.kind == "target":
            return f'id="{target.label}"' in page
        bare = re.sub(r"\$|\\\(|\\\)", "", name)
        return any(re.sub(r"^[\d.]+\s*|\s*#$|\\\(|\\\)", "", _text(h)) == bare
                   for h in re.findall(r"<h\d[^>]*>(.*?)</h\d>", page, re.S))
    heads = re.findall(r'id="' + re.escape(target.label) + r'".*?<p class="admonition-title">'
                       r"(.*?)</p>", page, re.S)
    return bool(heads) and _text(heads[0]).startswith(name + " ")


@pytest.mark.book
@pytest.mark.parametrize("doc,role,label,shown", REFERENCES,
                         ids=[f"{Path(d).name}:{lab}" for d, _, lab, _ in REFERENCES])
def test_a_reference_shows_the_same_name_on_the_built_page(built_book, doc, role, label,
                                                          shown):
    target = BOOK[label]
    assert _unquoted(target.name) in _shown_on_page(_page(doc), label), (
        f"{doc}.html: the links to {label} show {_shown_on_page(_page(doc), label)}, "
        f"JupyterLab and the plain edition {target.name!r}")


@pytest.mark.book
@pytest.mark.parametrize("label", sorted(BOOK))
def test_every_target_is_found_by_its_name_on_the_built_page(built_book, label):
    """Every label of the book, cited or not: the model's names are the book's."""
    target = BOOK[label]
    assert _found_on_page(_page(target.doc), target), (
        f"{target.doc}.html shows no {target.name!r} at {label}")
