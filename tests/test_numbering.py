"""One numbering: a box, exercise, figure or section that a chapter cites is found by the same
name in the book, in JupyterLab and in the plain edition (tools/numbering.py).

* the chapters are as tools/numbering.py writes them (the front matter with the chapter's
  number, the names of the references JupyterLab cannot resolve, the figures' comments, the
  links to a page that is not a notebook);
* a reference to a label or a glossary term of such a page (the derivations, the glossary) is
  stored as a link to the page's file that shows the target's lines in JupyterLab's editor,
  and the book's build (book/_ext/chapter_numbering.py) and the plain edition read it back as
  the reference (book/_ext/chapter_links.py; tests/test_jupyterlab.py clicks such links);
* a reference to another page as a whole, {doc}`one_step`, is stored as a link to the page's
  file with the page's title as its text, which JupyterLab opens at its top, and the book's
  build and the plain edition read it back as the role as it was written;
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
  the page; in JupyterLab the reference shows its name and leads to the box's lines.
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

import chapter_links  # noqa: E402  (book/_ext: tools/numbering.py puts it on the path)
import numbering  # noqa: E402
import plain_edition as pe  # noqa: E402

BOOK = numbering.targets()
GLOSSARY = numbering.terms()
TITLES = numbering.titles()
PLAIN_BOOK = pe.Book(pe.chapters())
NOTEBOOKS = numbering.notebooks()
HTML = ROOT / "_build" / "html"


def _markdown(path: Path) -> list[str]:
    return [pe._src(c) for c in json.loads(path.read_text())["cells"]
            if c["cell_type"] == "markdown"]


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
    wide = 'show(figures.predicted_phase_diagram(stored["E15"], stored["E16"]))'
    assert numbering.with_figure_comment(wide + "  # Fig. 2.4", "Fig. 2.4") == (
        "# Fig. 2.4\n" + wide)
    assert numbering.with_figure_comment("# Fig. 2.3\n" + wide, "Fig. 2.4") == (
        "# Fig. 2.4\n" + wide)
    assert numbering.front_matter(2) == '---\nnumbering:\n  enumerator: "2.%s"\n---\n'
    assert numbering.front_matter(None) == ""


# --- the links to a page that is not a notebook --------------------------------------------------

def test_a_reference_to_a_page_that_is_not_a_notebook_is_written_as_a_link_to_its_file():
    box, section = BOOK["dv-finite-n"], BOOK["dv-sec-model"]
    census, null_run = GLOSSARY["census"], GLOSSARY["null run"]
    text = ("See {prf:ref}`dv-finite-n`, {prf:ref}`Conjecture 7 <dv-finite-n>`, "
            "{prf:ref}`the finite-N fields <dv-finite-n>`, {ref}`dv-sec-model`, the "
            "{term}`census` of {term}`null runs <null run>`, {term}`no such term`, "
            "{prf:ref}`os-conj-bbp` and {prf:ref}`ts-conj-expansion`.")
    out = numbering.with_names(text, "book/one_step", BOOK, GLOSSARY)
    assert out == (
        f'See [{box.name}](derivations.md#line={box.lines[2]} "prf:ref dv-finite-n"), '
        f'[{box.name}](derivations.md#line={box.lines[2]} "prf:ref dv-finite-n"), '
        f'[the finite-N fields](derivations.md#line={box.lines[2]} "prf:ref dv-finite-n"), '
        f'[{section.name}](derivations.md#line={section.lines[2]} "ref dv-sec-model"), the '
        f'[census](glossary.md#line={census.lines[2]} "term census") of '
        f'[null runs](glossary.md#line={null_run.lines[2]} "term null run"), '
        "{term}`no such term`, {prf:ref}`os-conj-bbp` and "
        "{prf:ref}`Conjecture 2.1 <ts-conj-expansion>`.")
    # written again, the same; read back, the references the book has always read
    assert numbering.with_names(out, "book/one_step", BOOK, GLOSSARY) == out
    assert chapter_links.with_roles(out) == (
        f"See {{prf:ref}}`{box.name} <dv-finite-n>`, {{prf:ref}}`{box.name} <dv-finite-n>`, "
        "{prf:ref}`the finite-N fields <dv-finite-n>`, "
        f"{{ref}}`{section.name} <dv-sec-model>`, the {{term}}`census` of "
        "{term}`null runs <null run>`, {term}`no such term`, {prf:ref}`os-conj-bbp` and "
        "{prf:ref}`Conjecture 2.1 <ts-conj-expansion>`.")
    # a page's own labels stay references; a page in another folder is linked relative
    assert numbering.with_names("{prf:ref}`dv-model`", "book/derivations", BOOK) == (
        "{prf:ref}`dv-model`")
    assert numbering.with_names("{term}`census`", "book/sub/x", BOOK, GLOSSARY) == (
        f'[census](../glossary.md#line={census.lines[2]} "term census")')


def test_a_link_carries_no_text_it_cannot_read_back():
    assert chapter_links.link("a [b] c", "p.md", 3, "term", "b") is None
    assert chapter_links.link("b", "p.md", 3, "term", 'say "b"') is None
    assert chapter_links.link("b", "p.md", 3, "doc", "b") is None
    kept = "[text](derivations.md#dv-finite-n) and [t](glossary.md#line=3) stay as they are"
    assert chapter_links.with_roles(kept) == kept
    assert chapter_links.with_roles(
        '[phase\nlines](../glossary.md#line=5 "term phase line")') == (
        "{term}`phase\nlines <phase line>`")
    assert [chapter_links.shown_line(10, last) for last in (12, 30, 31, 90)] == [12, 30, 30, 30]


# --- the links to another page as a whole ------------------------------------------------------

def test_a_reference_to_a_page_is_written_as_a_link_to_its_file_with_its_title():
    assert TITLES["book/one_step"] == "One step: a rank-one spike"
    assert TITLES["book/intro"] == "Introduction: two steps versus one"
    assert TITLES["book/glossary"] == "Glossary"
    text = ("See {doc}`one_step`, {doc}`the first chapter <one_step>`, {doc}`glossary`, "
            "{doc}`/book/learned_directions`, {doc}`no_such_page` and\n{doc}`the\nintro "
            "<intro>`.")
    out = numbering.with_names(text, "book/two_steps", BOOK, GLOSSARY, TITLES)
    assert out == (
        'See [One step: a rank-one spike](one_step.ipynb "doc one_step"), '
        '[the first chapter](one_step.ipynb "doc <one_step>"), '
        '[Glossary](glossary.md "doc glossary"), '
        '[What each outlier learns](learned_directions.ipynb "doc /book/learned_directions"), '
        '{doc}`no_such_page` and\n[the\nintro](intro.ipynb "doc <intro>").')
    # written again, the same; read back, the roles as they were written
    assert numbering.with_names(out, "book/two_steps", BOOK, GLOSSARY, TITLES) == out
    assert chapter_links.with_roles(out) == text
    # a stale title is written anew; a page in another folder is linked relative
    stale = '[One step](one_step.ipynb "doc one_step")'
    assert numbering.with_names(stale, "book/two_steps", BOOK, GLOSSARY, TITLES) == (
        '[One step: a rank-one spike](one_step.ipynb "doc one_step")')
    assert numbering.with_names("{doc}`../one_step`", "book/sub/x", BOOK, GLOSSARY,
                                TITLES) == (
        '[One step: a rank-one spike](../one_step.ipynb "doc ../one_step")')
    # no titles given: the role stays
    assert numbering.with_names("{doc}`one_step`", "book/two_steps", BOOK) == (
        "{doc}`one_step`")


def test_a_doc_link_carries_no_text_it_cannot_read_back():
    assert chapter_links.doc_link("a [b] c", "b.ipynb", "b", False) is None
    assert chapter_links.doc_link(" ", "b.ipynb", "b", True) is None
    assert chapter_links.doc_link("b", "b.ipynb", 'say "b"', False) is None
    assert chapter_links.doc_link("b", "b.ipynb", "<b>", False) is None
    assert chapter_links.doc_link("b", "b.txt", "b", False) is None
    assert chapter_links.doc_link("b", "b.ipynb", "b", True) == '[b](b.ipynb "doc <b>")'
    kept = ('[text](one_step.ipynb) and [t](one_step.ipynb#top "doc one_step") and '
            '[u](one_step.ipynb "see one_step") stay as they are')
    assert chapter_links.with_roles(kept) == kept


def _doc_links(path: Path) -> list[re.Match]:
    return [m for text in _markdown(path) for m in chapter_links.DOC_LINK.finditer(text)]


def test_the_chapters_link_every_reference_to_a_page_and_store_no_doc_role():
    """No chapter stores a {doc} role, which JupyterLab shows as the raw name; every link
    that stands for one leads to the page's file and shows its title (or the role's text)."""
    roles, links = [], 0
    for doc, _, path in NOTEBOOKS:
        for text in _markdown(path):
            roles += [f"{path.name}: {m.group(0)}" for m in numbering.DOC_ROLE.finditer(text)]
        for m in _doc_links(path):
            links += 1
            target = m.group("target")
            name = numbering._doc_target(target.strip("<>"), doc)
            assert (path.parent / m.group("page")).resolve() == numbering.source(name), (
                m.group(0))
            if not target.startswith("<"):
                assert m.group("text") == TITLES[name], m.group(0)
    assert not roles, f"run `make numbers`: {roles[:10]}"
    assert links >= 40


def test_every_chapter_reads_back_as_it_was_written():
    """Round trip: each chapter's markdown, its links read back as roles and written again,
    is the chapter as stored; read back, it holds no link this script writes."""
    for doc, _, path in NOTEBOOKS:
        for text in _markdown(path):
            read = chapter_links.with_roles(text)
            assert not chapter_links.LINK.search(read) and not chapter_links.DOC_LINK.search(
                read), path.name
            assert numbering.with_names(read, doc, BOOK, GLOSSARY, TITLES) == text, path.name


def _links(path: Path) -> list[re.Match]:
    return [m for text in _markdown(path) for m in chapter_links.LINK.finditer(text)]


def test_the_chapters_link_every_reference_to_a_page_that_is_not_a_notebook():
    """No chapter stores a reference to a label or term of such a page as a role, which
    JupyterLab cannot follow; every link it stores leads to the target's file."""
    roles, links = [], 0
    for doc, _, path in NOTEBOOKS:
        for text in _markdown(path):
            for m in numbering.ROLE.finditer(text):
                target = BOOK.get(numbering.cited_text(m.group("name"), m.group("text"))[1])
                if target is not None and target.lines is not None and target.doc != doc:
                    roles.append(f"{path.name}: {m.group(0)}")
            for m in numbering.TERM_ROLE.finditer(text):
                label = numbering.cited_text("term", m.group("text"))[1]
                if label.lower() in GLOSSARY:
                    roles.append(f"{path.name}: {m.group(0)}")
        for m in _links(path):
            links += 1
            assert (path.parent / m.group("page")).resolve() == numbering.source(
                (BOOK[m.group("target")] if m.group("role") != "term"
                 else GLOSSARY[m.group("target").lower()]).doc), m.group(0)
    assert not roles, f"run `make numbers`: {roles[:10]}"
    assert links >= 60


def _label_line(page: Path, role: str, target: str) -> int:
    """The line (from 0) of the page's text where ``target`` is defined, found in the text
    itself: a box's ``:label:`` line, a ``(label)=`` line, a glossary term's line."""
    lines = page.read_text().split("\n")
    wanted = ((lambda ln: ln.strip() == target) if role == "term" else
              (lambda ln: ln.strip() in (f":label: {target}", f"({target})=")))
    found = [i for i, line in enumerate(lines) if wanted(line)]
    assert len(found) == 1, f"{page.name}: {target!r} is defined on lines {found}"
    return found[0]


LINKS = sorted({(path.name, m.group("page"), int(m.group("line")), m.group("role"),
                 m.group("target")) for _, _, path in NOTEBOOKS for m in _links(path)})


@pytest.mark.parametrize("chapter,page,line,role,target", LINKS,
                         ids=[f"{c}:{t}" for c, _, _, _, t in LINKS])
def test_a_link_shows_its_targets_lines_in_jupyterlabs_editor(chapter, page, line, role,
                                                              target):
    """JupyterLab scrolls the link's line just into view, at the bottom of the editor when it
    opens the page: the line is in the target's block, at most LINE_SPAN lines below the
    line that defines it (the box's fence is the line above its label)."""
    path = ROOT / "book" / page
    defined = _label_line(path, role, target)
    first = defined - (role == "prf:ref")
    assert first <= line <= first + chapter_links.LINE_SPAN, (
        f"{chapter}: the link to {target} shows line {line}, {target} is defined on line "
        f"{defined} of {page}")
    block = path.read_text().split("\n")[first:line + 1]
    if role == "prf:ref":
        assert block[0].startswith("```{prf:") and "```" not in "".join(block[1:-1]), block
    elif role == "term":
        assert all(not ln.strip() or ln.startswith((" ", "\t")) for ln in block[1:]), block


def test_the_books_build_reads_the_links_as_the_references_they_stand_for(monkeypatch):
    """book/_ext/chapter_numbering.py, as Sphinx runs it on a chapter's source before MyST-NB
    reads it: the front matter removed, every link the reference it stands for, nothing else
    changed."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import chapter_numbering

    class App:
        class env:
            @staticmethod
            def doc2path(docname):
                return ROOT / f"{docname}.ipynb"

    numbers = numbering.chapter_numbers()
    monkeypatch.setattr(chapter_numbering, "_chapter_numbers", lambda app: numbers)
    warnings = []
    monkeypatch.setattr(chapter_numbering.logger, "warning",
                        lambda *a, **k: warnings.append(a))
    read = doc_read = 0
    for doc, _, path in NOTEBOOKS:
        stored = json.loads(path.read_text())
        source = [path.read_text()]
        chapter_numbering._strip(App, doc, source)
        nb = json.loads(source[0])
        assert len(nb["cells"]) == len(stored["cells"])
        first = True
        for cell, before in zip(nb["cells"], stored["cells"]):
            text = pe._src(cell)
            if cell["cell_type"] != "markdown":
                assert cell == before
                continue
            expected = pe._src(before)
            if first:
                expected, first = numbering.without_front_matter(expected), False
            assert text == chapter_links.with_roles(expected)
            assert not chapter_links.LINK.search(text) and "#line=" not in text
            assert not chapter_links.DOC_LINK.search(text)
            read += len(chapter_links.LINK.findall(pe._src(before)))
            doc_read += len(chapter_links.DOC_LINK.findall(pe._src(before)))
    assert not warnings, warnings
    assert read == len([m for _, _, p in NOTEBOOKS for m in _links(p)]) >= 60
    assert doc_read == len([m for _, _, p in NOTEBOOKS for m in _doc_links(p)]) >= 40
    two_steps = json.loads(numbering.source("book/two_steps").read_text())
    source = [json.dumps(two_steps)]
    chapter_numbering._strip(App, "book/two_steps", source)
    assert f"{{prf:ref}}`{BOOK['dv-finite-n'].name} <dv-finite-n>`" in source[0]
    assert "{doc}`learned_directions`" in source[0]


# --- the names every edition shows -------------------------------------------------------------

def references() -> list[tuple[str, str, str, str | None]]:
    """(the chapter's doc, the role, the label, the role's own text) of every reference, as
    the book reads them (a link to another page as the reference it stands for)."""
    out = []
    for doc, _, path in NOTEBOOKS:
        for text in _markdown(path):
            for m in numbering.ROLE.finditer(numbering.with_roles(text)):
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
