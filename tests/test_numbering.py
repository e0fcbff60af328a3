"""One numbering: a box, exercise, figure or section that a chapter cites is found by the same
name in the book and in the plain edition (tools/numbering.py).

* the chapters hold their references as a person writes them ({prf:ref}`label`,
  {numref}`fig-name`, {ref}`label`, {term}`word`, {doc}`page`): no numbering front matter,
  no name written by a tool as a reference's text, no link standing for a reference, no
  figure's name as a comment on its drawing line;
* for every reference of every chapter ({prf:ref}, {ref}, {numref}) the name it shows is the
  same in the plain edition (tools/plain_edition.py) and on the built page (the link's text);
* and that name is found where the target is: in the built book (the box's title, the
  figure's caption, the heading) and in the plain edition (the box's head, the figure's
  caption, the heading).
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


def _markdown(path: Path) -> list[str]:
    return [pe._src(c) for c in json.loads(path.read_text())["cells"]
            if c["cell_type"] == "markdown"]


def test_the_model_numbers_kinds_apart_and_the_pages_outside_the_chapters_together():
    """As the book does (checked against the built pages below): each kind has its own
    counter; the introduction, the ten-minute page and the derivations page share theirs."""
    assert BOOK["tm-thm-regime"].name == "Theorem 1"            # the ten-minute page's first
    assert BOOK["thm-one-step-limits"].name == "Theorem 2"
    assert BOOK["def-two-steps"].name == "Definition 2"
    intro_definitions = sum(1 for t in BOOK.values()
                            if t.doc == "book/intro" and t.kind == "definition")
    assert BOOK["dv-model"].name == f"Definition {intro_definitions + 1}"
    assert BOOK["os-conj-rank-one"].name == "Conjecture 1.1"
    assert BOOK["fig-os-rank-one"].name == "Fig. 1.1"


#: what a tool once wrote into a chapter and a person never writes (issue 43): the numbering
#: front matter, a link standing for a reference (to a page's lines or a page's file, the
#: role in the link's title), a figure's name as a comment on its drawing line, and a kind and
#: a number as a reference's text (the book names the target itself)
GENERATED = {
    "numbering front matter": re.compile(r"\A---\n.*?^numbering:", re.S | re.M),
    "a link to a page's lines": re.compile(r"\]\([^)\s]*#line=\d+"),
    "a link standing for a role": re.compile(
        r'\]\([^)\s]+\.(?:md|ipynb)(?:#[^)\s]*)? "(?:doc|term|ref|numref|prf:ref) '),
    "a name as a reference's text": re.compile(
        r"\{(?:prf:ref|ref|numref)\}`(?:Fig\.|Exercise|"
        + "|".join(k.title() for k in numbering.NUMBERED_PROOFS) + r") [\d.]+ <"),
}
FIGURE_COMMENT = re.compile(r"#[ \t]*Fig\.[ \t]*[\d.]+[ \t]*$", re.M)


@pytest.mark.parametrize("path", [p for _, _, p in NOTEBOOKS], ids=lambda p: p.stem)
def test_a_chapter_holds_its_references_as_a_person_writes_them(path):
    found = []
    for cell in json.loads(path.read_text())["cells"]:
        text = pe._src(cell)
        if cell["cell_type"] == "markdown":
            found += [f"{what}: {m.group(0)!r}" for what, pattern in GENERATED.items()
                      for m in pattern.finditer(text)]
        elif pe._figure(cell) is not None:
            found += [f"a figure's name as a comment: {m.group(0)!r}"
                      for m in FIGURE_COMMENT.finditer(text)]
    assert not found, f"{path.name}: {found[:8]}"


def test_the_written_forms_are_recognised():
    """The patterns above find what tools/numbering.py used to write."""
    samples = ['---\nnumbering:\n  enumerator: "2.%s"\n---\n# Title',
               '[Conjecture 13](derivations.md#line=474 "prf:ref dv-finite-n")',
               '[One step: a rank-one spike](one_step.ipynb "doc one_step")',
               "{ref}`Fig. 2.4 <fig-ts-phase>`", "{prf:ref}`Conjecture 2.1 <ts-conj-x>`"]
    for sample in samples:
        assert any(p.search(sample) for p in GENERATED.values()), sample
    assert FIGURE_COMMENT.search('show(figures.phase_diagram(runs))  # Fig. 2.3')
    assert not any(p.search("{prf:ref}`the count <intro-conj-count>` and {numref}`fig-x`")
                   for p in GENERATED.values())


# --- the names every edition shows -------------------------------------------------------------

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
def test_a_reference_shows_the_books_name_in_the_plain_edition(doc, role, label, shown):
    target = BOOK.get(label)
    assert target is not None, f"{role}: no such label in the book"
    wanted = shown if shown is not None else _unquoted(target.name)
    assert plain_shows(doc, role) == wanted, (
        f"{doc}: {role} shows {plain_shows(doc, role)!r} in the plain edition; the book "
        f"shows {wanted!r}")


def _plain_text_of_target(target: numbering.Target) -> str:
    stem = Path(target.doc).name
    nb = pe.OUT / f"{stem}.ipynb"
    if nb.exists():
        return "\n".join(pe._src(c) for c in json.loads(nb.read_text())["cells"])
    return (pe.OUT / f"{stem}.md").read_text()


TARGETS = sorted({label for _, _, label, _ in REFERENCES if label in BOOK})


@pytest.mark.parametrize("label", TARGETS)
def test_a_cited_target_is_found_by_its_name_in_the_plain_edition(label):
    target = BOOK[label]
    name = _unquoted(target.name)
    plain = _plain_text_of_target(target)
    wanted = {"figure": f"**{name}.**", "section": name}.get(target.kind, f"**{name} (")
    assert wanted in plain, f"the plain edition shows no {wanted!r} at {label}"


# --- the built book ----------------------------------------------------------------------------

def _page(doc: str) -> str:
    return (HTML / f"{doc}.html").read_text()


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", fragment))).strip()


def _shown_on_page(page: str, label: str) -> set[str]:
    """The texts of the page's links to ``label`` (their math as the sources write it:
    ``\\(x\\)`` read as ``$x$``)."""
    return {re.sub(r"\\\((.*?)\\\)", r"$\1$", _text(t)) for t in re.findall(
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
