"""One numbering: a box, exercise, figure or section that a chapter cites is found by the same
name in the book, in the JupyterLab reading and in the plain edition (publish/book.py names
every label as the book does).

* the chapters hold their references as a person writes them ({prf:ref}`label`,
  {numref}`fig-name`, {ref}`label`, {term}`word`, {doc}`page`): no numbering front matter,
  no name written by a tool as a reference's text, no link standing for a reference, no
  figure's name as a comment on its drawing line (issue 43: those are the JupyterLab
  reading's, written into a copy);
* the model numbers each kind apart, per chapter, and the pages outside the chapters with
  shared counters;
* every reference of every chapter ({prf:ref}, {ref}, {numref}) shows the target's name (or
  the reference's own words) in the plain edition and in the JupyterLab reading, and on the
  built page (the link's text);
* and that name is found where the target is: in the plain edition (the box's head, the
  figure's caption, the heading), in the JupyterLab reading of the target's notebook (the
  box's title as jupyterlab-myst numbers it, the comment of the figure's drawing line, the
  heading) and on the built page.

Each check runs once over every reference (or target) and lists what fails; the conversions
themselves are tested on small inputs in tests/test_editions.py and tests/test_plain_edition.py.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from publish import jupyterlab
from publish import plain_edition as pe
from publish.book import NUMBERED_PROOFS, Book
from publish.sources import REFERENCES, ROLE, cell_text, figure, notebooks, read, role_parts

BOOK = Book()
PLAIN_BOOK = pe.Book()
NOTEBOOKS = notebooks()
READINGS = {doc.name: jupyterlab.reading(doc, BOOK) for doc in NOTEBOOKS}
HTML = Path(__file__).resolve().parents[1] / "_build" / "html"


def _markdown(nb: dict) -> list[str]:
    return [cell_text(c) for c in nb["cells"] if c["cell_type"] == "markdown"]


# --- the sources ---------------------------------------------------------------------------------

#: what a tool once wrote into a chapter and a person never writes (issue 43): the numbering
#: front matter, a link standing for a reference (to a page's lines or a page's file, the
#: role in the link's title), and a kind and a number as a reference's text (the book names
#: the target itself)
GENERATED = {
    "numbering front matter": re.compile(r"\A---\n.*?^numbering:", re.S | re.M),
    "a link to a page's lines": re.compile(r"\]\([^)\s]*#line=\d+"),
    "a link standing for a role": re.compile(
        r'\]\([^)\s]+\.(?:md|ipynb)(?:#[^)\s]*)? "(?:doc|term|ref|numref|prf:ref) '),
    "a name as a reference's text": re.compile(
        r"\{(?:prf:ref|ref|numref)\}`(?:Fig\.|Exercise|"
        + "|".join(k.title() for k in NUMBERED_PROOFS) + r") [\d.]+ <"),
}
FIGURE_COMMENT = re.compile(r"#[ \t]*Fig\.[ \t]*[\d.]+[ \t]*$", re.M)


def generated(nb: dict) -> list[str]:
    """What a tool wrote into the notebook ``nb`` (:data:`GENERATED`, and figure comments)."""
    found = []
    for cell in nb["cells"]:
        text = cell_text(cell)
        if cell["cell_type"] == "markdown":
            found += [f"{what}: {m.group(0)!r}" for what, pattern in GENERATED.items()
                      for m in pattern.finditer(text)]
        elif figure(cell) is not None:
            found += [f"a figure's name as a comment: {m.group(0)!r}"
                      for m in FIGURE_COMMENT.finditer(text)]
    return found


def test_the_chapters_hold_their_references_as_a_person_writes_them():
    found = {doc.path.name: generated(read(doc.path)) for doc in NOTEBOOKS}
    assert not any(found.values()), {k: v[:5] for k, v in found.items() if v}


def test_what_a_tool_writes_is_recognised():
    """The patterns find what the old numbering tool wrote, and what the JupyterLab reading
    writes (so a reading committed by mistake fails above)."""
    samples = ['[Conjecture 13](derivations.md#line=474 "prf:ref dv-finite-n")',
               '[One step: a rank-one spike](one_step.ipynb "doc one_step")',
               "{ref}`Fig. 2.4 <fig-ts-phase>`", "{prf:ref}`Conjecture 2.1 <ts-conj-x>`"]
    for sample in samples:
        assert any(p.search(sample) for p in GENERATED.values()), sample
    assert not any(p.search("{prf:ref}`the count <intro-conj-count>` and {numref}`fig-x`")
                   for p in GENERATED.values())
    two_steps = READINGS["book/two_steps"]
    assert any(w.startswith("numbering front matter") for w in generated(two_steps))
    assert any(w.startswith("a figure's name") for w in generated(two_steps))


def test_the_model_numbers_kinds_apart_and_the_pages_outside_the_chapters_together():
    """As the book does (checked against the built pages below): each kind has its own
    counter; the introduction, the ten-minute page and the derivations page share theirs."""
    targets = BOOK.targets
    assert targets["tm-thm-regime"].name == "Theorem 1"      # the ten-minute page's first
    assert targets["thm-one-step-limits"].name == "Theorem 2"
    assert targets["def-two-steps"].name == "Definition 2"
    intro_definitions = sum(1 for t in targets.values()
                            if t.doc == "book/intro" and t.kind == "definition")
    assert targets["dv-model"].name == f"Definition {intro_definitions + 1}"
    assert targets["os-conj-rank-one"].name == "Conjecture 1.1"
    assert targets["fig-os-rank-one"].name == "Fig. 1.1"


# --- the names every edition shows ---------------------------------------------------------------

def references() -> list[tuple[str, str, str, str | None]]:
    """(the chapter's doc, the role, the label, the role's own text) of every reference."""
    return [(doc.name, m.group(0), role_parts(m.group("text"))[1], role_parts(m.group("text"))[0])
            for doc in NOTEBOOKS for text in _markdown(read(doc.path))
            for m in ROLE.finditer(text) if m.group("name") in REFERENCES]


REFERENCES_ = references()


def _unquoted(name: str) -> str:
    return name.strip("“”")


def plain_shows(doc: str, role: str) -> str:
    """The reference's text in the plain edition, without the link to another chapter."""
    text = pe.plain_roles(role, PLAIN_BOOK, Path(doc).name)
    return re.sub(r" in \[[^\]]*\]\([^)]*\)$", "", text).strip("“”")


def jupyterlab_shows(doc: str, role: str, label: str) -> str:
    """The reference's text in the JupyterLab reading: a reference jupyterlab-myst resolves
    (it stays a role) by the number it gives a box of the notebook, or a section's heading;
    any other by the text or the link's text the reading gives it."""
    text = jupyterlab.with_references(role, doc, BOOK)
    if text == role:
        shown, _ = role_parts(ROLE.match(role).group("text"))
        target = BOOK.targets[label]
        if shown is not None:
            return shown
        return (target.name if target.kind == "section"
                else jupyterlab.jupyterlab_names(READINGS[doc]).get(label, label))
    return re.sub(r"^\[(.*)\]\([^)]*\)$", r"\1", text, flags=re.S)


def test_every_chapter_cites_something():
    assert len(REFERENCES_) >= 60
    assert {Path(doc).name for doc, *_ in REFERENCES_} >= {"intro", "one_step", "finite_size"}


def test_every_reference_shows_the_books_name_in_every_edition():
    problems = []
    for doc, role, label, shown in REFERENCES_:
        target = BOOK.targets.get(label)
        if target is None:
            problems.append(f"{doc}: {role}: no such label in the book")
            continue
        wanted = shown if shown is not None else _unquoted(target.name)
        seen = {"plain edition": plain_shows(doc, role),
                "JupyterLab": jupyterlab_shows(doc, role, label)}
        problems += [f"{doc}: {role} shows {text!r} in the {where}; the book {wanted!r}"
                     for where, text in seen.items() if text != wanted]
    assert not problems, "\n".join(problems[:20])


def _lab_text_of_target(label: str) -> str | None:
    """What the JupyterLab reading shows of the target's notebook where the target is (None:
    the target is not in a notebook)."""
    target = BOOK.targets[label]
    nb = READINGS.get(target.doc)
    if nb is None:
        return None
    if target.kind == "figure":
        return "\n".join(cell_text(c) for c in nb["cells"]
                         if (figure(c) or {}).get("name") == label)
    if target.kind == "section":
        return "\n".join(_markdown(nb))
    return f"{jupyterlab.jupyterlab_names(nb).get(label)} ({target.title})"


def _plain_text_of_target(label: str) -> str:
    stem = Path(BOOK.targets[label].doc).name
    nb = pe.OUT / f"{stem}.ipynb"
    if nb.exists():
        return "\n".join(cell_text(c) for c in read(nb)["cells"])
    return (pe.OUT / f"{stem}.md").read_text()


def test_every_cited_target_is_found_by_its_name_in_every_edition():
    problems = []
    for label in sorted({label for _, _, label, _ in REFERENCES_ if label in BOOK.targets}):
        target = BOOK.targets[label]
        name = _unquoted(target.name)
        lab = _lab_text_of_target(label)
        wanted = f"# {name}" if target.kind == "figure" else name
        if lab is not None and wanted not in lab:
            problems.append(f"the JupyterLab reading shows no {wanted!r} at {label}")
        wanted = {"figure": f"**{name}.**", "section": name}.get(target.kind, f"**{name} (")
        if wanted not in _plain_text_of_target(label):
            problems.append(f"the plain edition shows no {wanted!r} at {label}")
    assert not problems, "\n".join(problems[:20])


# --- the built book ------------------------------------------------------------------------------

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


def _found_on_page(page: str, label: str) -> bool:
    target = BOOK.targets[label]
    name = _unquoted(target.name)
    if target.kind == "figure":
        return re.search(r'id="' + re.escape(label) + r'".*?<span class="caption-'
                         r'number">' + re.escape(name) + r"\s*</span>", page, re.S) is not None
    if target.kind == "target":
        return f'id="{label}"' in page
    if target.kind == "section":
        bare = re.sub(r"\$|\\\(|\\\)", "", name)
        return any(re.sub(r"^[\d.]+\s*|\s*#$|\\\(|\\\)", "", _text(h)) == bare
                   for h in re.findall(r"<h\d[^>]*>(.*?)</h\d>", page, re.S))
    heads = re.findall(r'id="' + re.escape(label) + r'".*?<p class="admonition-title">'
                       r"(.*?)</p>", page, re.S)
    return bool(heads) and _text(heads[0]).startswith(name + " ")


@pytest.mark.book
def test_every_reference_shows_the_same_name_on_the_built_page(built_book):
    problems = []
    for doc, role, label, shown in REFERENCES_:
        wanted = shown if shown is not None else _unquoted(BOOK.targets[label].name)
        seen = _shown_on_page(_page(doc), label)
        if wanted not in seen:
            problems.append(f"{doc}.html: the links of {role} show {seen}, the model {wanted!r}")
    assert not problems, "\n".join(problems[:20])


@pytest.mark.book
def test_every_target_is_found_by_its_name_on_the_built_page(built_book):
    """Every label of the book, cited or not: the model's names are the book's."""
    missing = [f"{t.doc}.html shows no {t.name!r} at {label}"
               for label, t in sorted(BOOK.targets.items())
               if not _found_on_page(_page(t.doc), label)]
    assert not missing, "\n".join(missing[:20])
