#!/usr/bin/env python3
"""One numbering in every edition: the name under which the book, JupyterLab and the plain
edition show each numbered box, exercise and figure, and the edits of the chapter notebooks
that make JupyterLab show the same names.

The book (Sphinx with sphinx-proof, sphinx-exercise and MyST-NB, ``use_multitoc_numbering``)
numbers each kind on its own: per chapter in the numbered part of ``_toc.yml``
("Conjecture 2.1", "Exercise 2.3", "Fig. 2.4"), and with one counter per kind across the
pages outside it, in the order of ``_toc.yml`` (the introduction first: "Theorem 1"; the
derivations page goes on from there: "Definition 3"). JupyterLab (jupyterlab-myst) numbers
each kind per notebook from 1, with the template a front matter at the top of the notebook's
first markdown cell gives (``numbering: enumerator: "2.%s"``); it knows no label of another
file and no figure (the book's figures are code cells whose caption lives in the cell's
metadata, which JupyterLab does not show). So this script writes into each chapter:

1. the front matter ``numbering: enumerator: "<chapter>.%s"`` at the top of the first
   markdown cell of a numbered chapter (none in the introduction, which the book numbers
   1, 2, 3 as JupyterLab does); the book's build removes it before MyST reads the notebook
   (``book/_ext/chapter_numbering.py``), the plain edition drops it;
2. the name as the reference's text wherever JupyterLab cannot find the target: a box,
   exercise or section of another file ({prf:ref}`Conjecture 3 <conj-w2-expansion>`), and
   every figure, cited with {ref}`Fig. 2.4 <fig-ts-phase>` (Sphinx's {numref} rejects a
   text without ``%s``); a reference inside the chapter to one of its boxes stays
   {prf:ref}`label`, which every edition shows by its number;
   a reference to a label or a glossary term of a page that is not a notebook (the
   derivations, the glossary) is written as a link to the page's file that JupyterLab follows,
   ``[Conjecture 13](derivations.md#line=474 "prf:ref dv-finite-n")``, which the book's build
   and the plain edition turn back into the reference ({prf:ref}`Conjecture 13 <dv-finite-n>`;
   ``book/_ext/chapter_links.py`` says why and how); and a reference to a page as a whole,
   {doc}`one_step`, which JupyterLab shows as its raw name, is written as a link to the
   page's file with the page's title as its text (the role's own text where it has one),
   ``[One step: a rank-one spike](one_step.ipynb "doc one_step")``, which JupyterLab opens
   at its top and the book's build and the plain edition turn back into the role as written;
3. at each figure's drawing line the figure's name as a comment
   (``show(figures.phase_diagram(runs, stored["E3"]))  # Fig. 2.4``): where a JupyterLab
   reader, who sees no caption, finds the figure that the prose cites.

``tests/test_numbering.py`` checks that the chapters are as this script writes them and that
the names are found, by the text the reference shows, in the built book, in what JupyterLab
shows and in the plain edition; ``tests/test_jupyterlab.py`` checks the box titles
JupyterLab shows against :func:`jupyterlab_names`.

Usage: ``make numbers`` or ``python tools/numbering.py [--check]``.
"""

from __future__ import annotations

import argparse
import copy
import json
import posixpath
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from chapter_links import doc_link, link, shown_line, with_roles  # noqa: E402

#: ```{name} argument ... ``` (three or more backticks; the closing fence has as many)
DIRECTIVE = re.compile(r"^(?P<fence>`{3,})\{(?P<name>[^}]+)\}[ \t]*(?P<arg>[^\n]*)\n"
                       r"(?P<body>.*?)^(?P=fence)[ \t]*$\n?", re.M | re.S)
ROLE = re.compile(r"\{(?P<name>prf:ref|ref|numref)\}`(?P<text>[^`]*)`")
TERM_ROLE = re.compile(r"\{term\}`(?P<text>[^`]*)`")
DOC_ROLE = re.compile(r"\{doc\}`(?P<text>[^`]*)`")
TARGET = re.compile(r"^\((?P<label>[A-Za-z0-9_\-:.]+)\)=[ \t]*\n(?P<heading>#+[ \t]+[^\n]+)?",
                    re.M)
#: the front matter JupyterLab reads its numbering from (the first markdown cell's top)
FRONT_MATTER = re.compile(r"\A---\n(?P<yaml>.*?\n)---[ \t]*\n", re.S)
#: a figure's name as a comment at the end of its drawing line
FIGURE_COMMENT = re.compile(r"[ \t]*#[ \t]*Fig\.[ \t]*[\d.]+[ \t]*$")
#: a box directive's kind as the book names it (sphinx-proof: the kind, title-cased)
NUMBERED_PROOFS = {"theorem", "conjecture", "observation", "definition", "remark", "lemma",
                   "proposition", "corollary", "example", "property", "axiom", "criterion",
                   "algorithm", "assumption", "notation", "problem"}
FIGURE_NAME = "Fig."
#: a reference text this script wrote (and so may rewrite): a kind and a number
WRITTEN = re.compile(r"^(?:Fig\.|Exercise|" + "|".join(k.title() for k in NUMBERED_PROOFS)
                     + r") \d+(?:\.\d+)?$")


@dataclass(frozen=True)
class Target:
    """A label of the book: its document (``book/two_steps``), kind (``conjecture``,
    ``exercise``, ``figure``, ``section``, ``term``), the name every edition shows
    (``Conjecture 2.1``, ``Fig. 2.4``; a section's heading), its title (a box's argument, a
    figure's caption), and on a page that is not a notebook its lines there (from 0: the
    first, the last, and the one a chapter's link shows, book/_ext/chapter_links.py)."""

    label: str
    doc: str
    kind: str
    name: str
    title: str = ""
    lines: tuple[int, int, int] | None = None

    @property
    def numbered(self) -> bool:
        return self.kind not in ("section", "target")


def _src(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def toc(root: Path = ROOT) -> list[tuple[str, int | None]]:
    """Every document of ``_toc.yml`` in reading order with its chapter number (``None``
    outside a numbered part)."""
    data = yaml.safe_load((root / "_toc.yml").read_text())
    docs: list[tuple[str, int | None]] = [(data["root"], None)]
    number = 0

    def walk(entries, numbered):
        nonlocal number
        for entry in entries or []:
            if "file" in entry:
                if numbered:
                    number += 1
                docs.append((entry["file"], number if numbered else None))
            walk(entry.get("sections"), False)

    for part in data.get("parts", []):
        walk(part.get("chapters"), bool(part.get("numbered")))
    walk(data.get("chapters"), False)
    return docs


def source(doc: str, root: Path = ROOT) -> Path | None:
    for suffix in (".ipynb", ".md"):
        if (root / (doc + suffix)).exists():
            return root / (doc + suffix)
    return None


def _items(path: Path) -> list[tuple[str, dict | str]]:
    """A document as ("markdown", text) and ("figure", figure metadata) items in order."""
    if path.suffix == ".md":
        return [("markdown", path.read_text())]
    items = []
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "markdown":
            items.append(("markdown", _src(cell)))
        elif (fig := cell.get("metadata", {}).get("mystnb", {}).get("figure")) is not None:
            items.append(("figure", fig))
    return items


def _plain_heading(heading: str) -> str:
    return re.sub(r"^#+[ \t]+", "", heading).strip()


def targets(root: Path = ROOT) -> dict[str, Target]:
    """label -> :class:`Target` for every label of the book's documents, numbered as the
    book numbers them."""
    out: dict[str, Target] = {}
    shared: dict[str, int] = {}          # the counters of the pages outside the numbered part
    for doc, chapter in toc(root):
        path = source(doc, root)
        if path is None:
            continue
        counters = shared if chapter is None else {}

        def name(kind, display):
            counters[kind] = counters.get(kind, 0) + 1
            return f"{display} {'' if chapter is None else f'{chapter}.'}{counters[kind]}"

        page = path.suffix == ".md"
        for what, item in _items(path):
            lines = _lines(item) if page and what == "markdown" else None
            if what == "figure":
                out[item["name"]] = Target(item["name"], doc, "figure",
                                           name("figure", FIGURE_NAME),
                                           str(item.get("caption", "")))
                continue
            for m in DIRECTIVE.finditer(item):
                kind = m.group("name").removeprefix("prf:")
                options = dict(re.findall(r"^:([\w-]+):[ \t]*(.*)$", m.group("body"), re.M))
                numbered = (kind == "exercise" or (m.group("name").startswith("prf:")
                                                   and kind in NUMBERED_PROOFS))
                at = lines and lines(m.start(), m.end())
                if not numbered or "nonumber" in options:
                    if "label" in options:
                        out[options["label"]] = Target(options["label"], doc, kind,
                                                       m.group("arg").strip(),
                                                       m.group("arg").strip(), at)
                    continue
                shown = name(kind, kind.title())
                if "label" in options:
                    out[options["label"]] = Target(options["label"], doc, kind, shown,
                                                   m.group("arg").strip(), at)
            for m in TARGET.finditer(item):
                # a section: to its next heading; a label on a paragraph or table: to its end
                end = re.compile(r"^#+[ \t]" if m.group("heading") else r"\n[ \t]*\n", re.M)
                stop = end.search(item, m.end())
                at = lines and lines(m.start(), stop.start() if stop else len(item))
                if m.group("heading"):
                    heading = _plain_heading(m.group("heading"))
                    out[m.group("label")] = Target(m.group("label"), doc, "section", heading,
                                                   heading, at)
                else:                    # a label on something else (a paragraph, a table)
                    out[m.group("label")] = Target(m.group("label"), doc, "target",
                                                   m.group("label"), "", at)
    return out


def _lines(text: str):
    """(start, end) offsets of a block of ``text`` -> (its first line, its last line that is
    not blank, the line a link to it shows)."""
    def at(start: int, end: int) -> tuple[int, int, int]:
        block = text[start:end].rstrip()
        first = text.count("\n", 0, start)
        last = first + block.count("\n")
        return first, last, shown_line(first, last)
    return at


GLOSSARY = re.compile(r"^(?P<fence>`{3,})\{glossary\}[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                      re.M | re.S)


def terms(root: Path = ROOT) -> dict[str, Target]:
    """term (lower case, as Sphinx matches a {term} role) -> :class:`Target` (kind ``term``)
    for every term of a ``{glossary}`` on a page of the book that is not a notebook."""
    out: dict[str, Target] = {}
    for doc, _ in toc(root):
        path = source(doc, root)
        if path is None or path.suffix != ".md":
            continue
        text = path.read_text()
        lines = _lines(text)
        for g in GLOSSARY.finditer(text):
            body, offset = g.group("body"), g.start("body")
            heads = [m for m in re.finditer(r"^(?![ \t])(?P<term>\S[^\n]*)$", body, re.M)]
            for i, m in enumerate(heads):
                stop = heads[i + 1].start() if i + 1 < len(heads) else len(body)
                term = m.group("term").strip()
                out[term.lower()] = Target(term, doc, "term", term, term,
                                           lines(offset + m.start(), offset + stop))
    return out


def titles(root: Path = ROOT) -> dict[str, str]:
    """doc -> its title (its first ``# `` heading, as the book shows it in a {doc} reference)
    for every document of ``_toc.yml`` that has one."""
    out = {}
    for doc, _ in toc(root):
        path = source(doc, root)
        if path is None:
            continue
        for what, item in _items(path):
            if what != "markdown":
                continue
            m = re.search(r"^#[ \t]+(?P<title>[^\n]*?)[ \t]*$", without_front_matter(item),
                          re.M)
            if m:
                out[doc] = m.group("title")
                break
    return out


def chapter_numbers(root: Path = ROOT) -> dict[str, int]:
    """doc -> chapter number, for the numbered chapters."""
    return {doc: n for doc, n in toc(root) if n is not None}


# --- what JupyterLab shows ---------------------------------------------------------------------

def front_matter(chapter: int | None) -> str:
    return "" if chapter is None else f'---\nnumbering:\n  enumerator: "{chapter}.%s"\n---\n'


def without_front_matter(text: str) -> str:
    return FRONT_MATTER.sub("", text, count=1)


def jupyterlab_names(path: Path) -> dict[str, str]:
    """label -> the name JupyterLab (jupyterlab-myst) gives each numbered box and exercise of
    the notebook at ``path``: each kind counted from 1 in the notebook, with the template of
    the first markdown cell's front matter (none: the number alone)."""
    cells = [_src(c) for c in json.loads(path.read_text())["cells"]
             if c["cell_type"] == "markdown"]
    template = "%s"
    if cells and (m := FRONT_MATTER.match(cells[0])):
        template = ((yaml.safe_load(m.group("yaml")) or {}).get("numbering", {})
                    .get("enumerator", "%s"))
    counters: dict[str, int] = {}
    names = {}
    for text in cells:
        for m in DIRECTIVE.finditer(text):
            kind = m.group("name").removeprefix("prf:")
            options = dict(re.findall(r"^:([\w-]+):[ \t]*(.*)$", m.group("body"), re.M))
            if not (kind == "exercise" or (m.group("name").startswith("prf:")
                                           and kind in NUMBERED_PROOFS)):
                continue
            if "nonumber" in options:
                continue
            counters[kind] = counters.get(kind, 0) + 1
            if "label" in options:
                names[options["label"]] = f"{kind.title()} {template % counters[kind]}"
    return names


# --- the edits ---------------------------------------------------------------------------------

def cited_text(role: str, text: str) -> tuple[str | None, str]:
    """(the explicit text or None, the label) of a reference role's content."""
    m = re.match(r"^(.*?)\s*<([^<>]+)>$", text, re.S)
    return (m.group(1), m.group(2)) if m else (None, text.strip())


def _page_link(text: str, doc: str, target: Target, role: str, label: str) -> str | None:
    """The link from ``doc`` that stands for the reference (None: the target is in a
    notebook, or on ``doc`` itself)."""
    if target.lines is None or target.doc == doc:
        return None
    page = posixpath.relpath(target.doc + ".md", posixpath.dirname(doc))
    return link(text, page, target.lines[2], role, label)


def _doc_target(target: str, doc: str) -> str:
    """The document a {doc} role of ``doc`` names (as Sphinx reads it: relative to ``doc``'s
    folder, or to the book's root with a leading ``/``)."""
    if target.startswith("/"):
        return posixpath.normpath(target.lstrip("/"))
    return posixpath.normpath(posixpath.join(posixpath.dirname(doc), target))


def with_names(text: str, doc: str, book: dict[str, Target],
               glossary: dict[str, Target] | None = None,
               pages: dict[str, str] | None = None, root: Path = ROOT) -> str:
    """``text`` (markdown of ``doc``) with every reference that JupyterLab cannot resolve
    given the name the book shows as its text, every reference to a label or term of a
    page that is not a notebook (``glossary``: :func:`terms`) as a link to that page, and
    every {doc} reference to a page of ``pages`` (:func:`titles`) as a link to its file (see
    the module's docstring, 2.)."""
    glossary, pages = glossary or {}, pages or {}

    def role(m):
        name, (shown, label) = m.group("name"), cited_text(m.group("name"), m.group("text"))
        target = book.get(label)
        if target is None:
            return m.group(0)            # unknown (the build says so)
        if shown is not None and not WRITTEN.match(shown):     # the author's words
            return _page_link(shown, doc, target, name, label) or m.group(0)
        if target.kind == "figure":
            name = "ref"
        elif target.doc == doc:
            return f"{{{name}}}`{label}`" if shown is not None else m.group(0)
        return (_page_link(target.name, doc, target, name, label)
                or f"{{{name}}}`{target.name} <{label}>`")

    def term(m):
        shown, label = cited_text("term", m.group("text"))
        target = glossary.get(label.lower())
        if target is None:
            return m.group(0)
        return _page_link(shown or label, doc, target, "term", label) or m.group(0)

    def page(m):
        shown, target = cited_text("doc", m.group("text"))
        name = _doc_target(target, doc)
        path = source(name, root) if name in pages else None
        if path is None:
            return m.group(0)            # not a page of the book (the build says so)
        file = posixpath.relpath(name + path.suffix, posixpath.dirname(doc))
        return (doc_link(pages[name] if shown is None else shown, file, target,
                         shown is not None) or m.group(0))

    text = with_roles(text)              # this script's links: the references they stand for
    return DOC_ROLE.sub(page, TERM_ROLE.sub(term, ROLE.sub(role, text)))


#: the widest code line a page shows uncut (book/CONVENTIONS.md)
CODE_WIDTH = 76


def with_figure_comment(code: str, name: str) -> str:
    """The figure cell's code with ``# <name>`` at the end of its drawing line (the line that
    calls ``show``, else the last), or on a line of its own above it where the drawing line
    would then be wider than :data:`CODE_WIDTH`."""
    lines = [line for line in code.split("\n") if not FIGURE_COMMENT.fullmatch(line)]
    at = next((i for i, line in enumerate(lines) if "show(" in line), len(lines) - 1)
    line = FIGURE_COMMENT.sub("", lines[at]).rstrip()
    if len(line) + len(f"  # {name}") <= CODE_WIDTH:
        lines[at] = f"{line}  # {name}"
    else:
        indent = line[:len(line) - len(line.lstrip())]
        lines[at:at + 1] = [f"{indent}# {name}", line]
    return "\n".join(lines)


def numbered_notebook(path: Path, doc: str, book: dict[str, Target],
                      chapter: int | None, glossary: dict[str, Target] | None = None,
                      pages: dict[str, str] | None = None) -> dict:
    """The notebook at ``path`` as this script writes it (a new dict)."""
    nb = copy.deepcopy(json.loads(path.read_text()))
    first = True
    for cell in nb["cells"]:
        text = _src(cell)
        if cell["cell_type"] == "markdown":
            if first:
                text = front_matter(chapter) + without_front_matter(text)
                first = False
            text = with_names(text, doc, book, glossary, pages)
        elif (fig := cell.get("metadata", {}).get("mystnb", {}).get("figure")) is not None:
            text = with_figure_comment(text, book[fig["name"]].name)
        else:
            continue
        cell["source"] = text.splitlines(keepends=True)
    return nb


def dumps(nb: dict) -> str:
    import nbformat
    return nbformat.writes(nbformat.from_dict(copy.deepcopy(nb)), version=4) + "\n"


def notebooks(root: Path = ROOT) -> list[tuple[str, int | None, Path]]:
    return [(doc, n, p) for doc, n in toc(root)
            if (p := source(doc, root)) is not None and p.suffix == ".ipynb"]


def write(check: bool = False, root: Path = ROOT, only=None) -> list[Path]:
    """Write every chapter (or those of ``only``, paths) as :func:`numbered_notebook` makes
    it; with ``check``, write nothing and return the chapters that differ."""
    book, glossary, pages = targets(root), terms(root), titles(root)
    changed = []
    for doc, chapter, path in notebooks(root):
        if only and path.resolve() not in {Path(p).resolve() for p in only}:
            continue
        text = dumps(numbered_notebook(path, doc, book, chapter, glossary, pages))
        if text != path.read_text():
            changed.append(path)
            if not check:
                path.write_text(text)
    return changed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; fail if a chapter is not as this script writes it")
    parser.add_argument("chapters", nargs="*", help="only these notebooks (default: all)")
    args = parser.parse_args(argv)
    changed = write(check=args.check, only=args.chapters)
    for path in changed:
        print(("not current: " if args.check else "wrote ") + str(path.relative_to(ROOT)))
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
