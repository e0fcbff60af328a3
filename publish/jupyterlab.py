"""The JupyterLab reading: the chapters as JupyterLab with jupyterlab-myst should show them
(Binder), written into a copy of the chapters, never into the sources.

JupyterLab 4.4 with jupyterlab-myst 2.7 (requirements.txt) renders a chapter's boxes,
exercises, math and {eval} numbers, but it reads each notebook alone: it numbers each kind of
box from 1 in the notebook, and it resolves no label of another file, no figure (a figure is a
code cell whose name and caption live in the cell's metadata, which it does not read), no
glossary term, no {doc} and no citation: such a reference shows its raw label with a warning
mark, and the browser's console says "Cross reference target was not found". So for each
chapter of ``_toc.yml`` this writes a copy in which

1. the first markdown cell of a numbered chapter starts with the front matter that makes
   jupyterlab-myst number its boxes and exercises as the book does,
   ``numbering: enumerator: "2.%s"`` ("Conjecture 2.1");
2. a reference that jupyterlab-myst resolves (a box, exercise or section of the same
   notebook) stays as written; every other one becomes text that names it or a link that
   works (publish/book.py names each target as the book does):

   * a figure of the same chapter: its name, "Fig. 2.4" (see 3.);
   * a box, exercise, section or figure of another document: a link to it on the book's
     online pages (``_config.yml`` ``repository.url`` -> ``https://OWNER.github.io/NAME/``),
     ``[Conjecture 2.1](https://OWNER.github.io/NAME/book/two_steps.html#ts-conj-expansion)``;
   * a glossary term: a link to its entry on the online glossary;
   * a page as a whole: a notebook as a link to the notebook's file, which JupyterLab opens,
     with its title as the text; any other page (the derivations, the registry) as a link
     to its online page;
   * a citation: the authors and year as text, "Moniri and Hassani (2026)";

   a reference with its own words keeps them as the text;
3. each figure's drawing line ends with the figure's name as a comment (``  # Fig. 2.4``):
   JupyterLab shows no caption, so that is where its reader finds the figure the prose
   cites.

Nothing else changes: outputs, metadata and the stored {eval} values are the chapter's, so
JupyterLab shows the stored numbers before anything runs and opening a notebook does not
modify it. The notebook's metadata gains the chapter's reading-time counts
(``companion.presentation.reading.STORED``), since the written-out references read longer
than the roles they replace and the opening's reading time must stay the book's.

Usage, from the repository's root: ``python -m publish jupyterlab --in-place book`` (Binder's
``binder/postBuild``: the image's copy of the chapters becomes the reading; never commit the
result, tests/test_numbering.py would refuse it) or ``python -m publish jupyterlab --out DIR
[FOLDER]`` (the reading of the chapters in FOLDER, default book, written to DIR;
``make editions`` writes ``_build/editions/jupyterlab/``, tests/test_jupyterlab.py its own
copy). The labels and names are always read from the repository's sources.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import posixpath
import sys
from pathlib import Path

import yaml

from companion.presentation import reading as reading_rule
from publish.book import Book, Target, numbered_kind, term_id
from publish.sources import (
    CITATIONS,
    DIRECTIVE,
    FRONT_MATTER,
    REFERENCES,
    ROLE,
    ROOT,
    Doc,
    cell_text,
    dumps,
    figure,
    options,
    page_url,
    read,
    role_parts,
)

#: the widest code line a page shows uncut (book/CONVENTIONS.md)
CODE_WIDTH = 76


def front_matter(chapter: int | None) -> str:
    """The front matter that makes jupyterlab-myst number a chapter's boxes as the book does
    (none outside the numbered chapters, which the book numbers 1, 2, 3 as JupyterLab does)."""
    return "" if chapter is None else f'---\nnumbering:\n  enumerator: "{chapter}.%s"\n---\n'


def _resolved_here(target: Target, doc: str) -> bool:
    """Whether jupyterlab-myst resolves a reference of ``doc`` to ``target``: a label of the
    same notebook (a box, an exercise, a section), but not a figure's, which lives in a code
    cell's metadata."""
    return target.doc == doc and target.kind != "figure"


def _link(text: str, url: str) -> str:
    return f"[{text}]({url})"


def _relative(doc: Doc, here: str) -> str:
    return posixpath.relpath(doc.name + doc.path.suffix, posixpath.dirname(here))


def _doc_name(target: str, here: str) -> str:
    """The document a {doc} role of ``here`` names (as Sphinx reads it: relative to the
    document's folder, or to the book's root with a leading ``/``)."""
    if target.startswith("/"):
        return posixpath.normpath(target.lstrip("/"))
    return posixpath.normpath(posixpath.join(posixpath.dirname(here), target))


def with_references(text: str, doc: str, book: Book) -> str:
    """``text`` (markdown of the document ``doc``) with every reference that jupyterlab-myst
    cannot resolve as text or as a link that works (the module's docstring, 2.)."""
    root = book.root

    def role(m):
        name, (shown, target) = m.group("name"), role_parts(m.group("text"))
        if name in REFERENCES:
            found = book.targets.get(target)
            if found is None or _resolved_here(found, doc):
                return m.group(0)               # unknown (the build says so), or resolved
            text = shown if shown is not None else found.name
            if name == "numref" and shown is not None:
                text = shown.replace("%s", found.name.split(" ")[-1])
            if found.doc == doc:                # a figure of this chapter
                return text
            return _link(text, page_url(found.doc, found.label, root))
        if name == "term":
            found = book.terms.get(target.lower())
            if found is None:
                return m.group(0)
            return _link(shown or target, page_url(found.doc, term_id(found.label), root))
        if name == "doc":
            page = book.docs.get(_doc_name(target, doc))
            if page is None or page.path is None:
                return m.group(0)
            text = shown if shown is not None else book.titles.get(page.name, page.stem)
            if page.notebook:
                return _link(text, _relative(page, doc))
            return _link(text, page_url(page.name, None, root))
        if name in CITATIONS:
            return book.cite(m.group("text"), textual=name == "cite:t")
        return m.group(0)

    return ROLE.sub(role, text)


def with_figure_comment(code: str, name: str) -> str:
    """The figure cell's code with ``# <name>`` at the end of its drawing line (the line that
    calls ``show``, else the last), or on a line of its own above it where the drawing line
    would then be wider than :data:`CODE_WIDTH`."""
    lines = code.split("\n")
    at = next((i for i, line in enumerate(lines) if "show(" in line), len(lines) - 1)
    line = lines[at].rstrip()
    if len(line) + len(f"  # {name}") <= CODE_WIDTH:
        lines[at] = f"{line}  # {name}"
    else:
        indent = line[:len(line) - len(line.lstrip())]
        lines[at:at + 1] = [f"{indent}# {name}", line]
    return "\n".join(lines)


def reading(doc: Doc, book: Book, nb: dict | None = None) -> dict:
    """The JupyterLab reading of the chapter ``doc`` (of the notebook ``nb``, by default its
    source): a new notebook dict. A notebook that already is one is refused (its references
    are no longer the sources' and its figures' names would be written twice)."""
    nb = copy.deepcopy(nb if nb is not None else read(doc.path))
    # the prose reads differently once references are written out: the copy keeps the
    # chapter's reading time (companion.presentation.reading.STORED)
    section, key = reading_rule.STORED
    nb.setdefault("metadata", {}).setdefault(section, {})[key] = dataclasses.asdict(
        reading_rule.count(nb))
    first = True
    for cell in nb["cells"]:
        text = cell_text(cell)
        if cell["cell_type"] == "markdown" and first and FRONT_MATTER.match(text):
            raise ValueError(f"{doc.path.name} is already a JupyterLab reading (it starts with "
                             f"the numbering front matter)")
        if cell["cell_type"] == "markdown":
            new = with_references(text, doc.name, book)
            if first:
                new, first = front_matter(doc.chapter) + new, False
        elif (fig := figure(cell)) is not None and fig.get("name") in book.targets:
            new = with_figure_comment(text, book.targets[fig["name"]].name)
        else:
            continue
        if new != text:
            cell["source"] = new
    return nb


def write(out: Path, root: Path = ROOT, sources: Path | None = None) -> list[Path]:
    """Write the JupyterLab reading of every notebook of ``_toc.yml`` into the folder ``out``
    (each under its file name), reading each from the folder ``sources`` (default: where
    ``_toc.yml`` puts it). The labels are read from the sources under ``root``. Every
    reading is made before any is written, so that a refused one writes nothing."""
    book = Book(root)
    readings = {}
    for doc in book.docs.values():
        if doc.notebook:
            path = doc.path if sources is None else sources / doc.path.name
            readings[out / doc.path.name] = reading(doc, book, read(path))
    out.mkdir(parents=True, exist_ok=True)
    for target, nb in readings.items():
        target.write_text(dumps(nb))
    return list(readings)


def jupyterlab_names(nb: dict) -> dict[str, str]:
    """label -> the name jupyterlab-myst gives each numbered box and exercise of the notebook
    ``nb`` (a reading): each kind counted from 1 in the notebook, with the template of its
    numbering front matter (none: the number alone). tests/test_jupyterlab.py finds these
    names in a real JupyterLab."""
    cells = [cell_text(c) for c in nb["cells"] if c["cell_type"] == "markdown"]
    template = "%s"
    if cells and (m := FRONT_MATTER.match(cells[0])):
        template = ((yaml.safe_load(m.group("yaml")) or {}).get("numbering", {})
                    .get("enumerator", "%s"))
    counters: dict[str, int] = {}
    names = {}
    for text in cells:
        for m in DIRECTIVE.finditer(text):
            opts, _ = options(m.group("body"))
            kind = numbered_kind(m.group("name"), opts)
            if kind is None:
                continue
            counters[kind] = counters.get(kind, 0) + 1
            if "label" in opts:
                names[opts["label"]] = f"{kind.title()} {template % counters[kind]}"
    return names


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish jupyterlab",
                                     description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", type=Path, help="write the reading into this folder")
    where.add_argument("--in-place", action="store_true",
                       help="rewrite the chapters in FOLDER (only in a copy of the "
                            "repository, as Binder's image build does; never commit them)")
    parser.add_argument("folder", nargs="?", type=Path,
                        help="the folder of the chapters to read (with --out, default book; "
                             "with --in-place, to be named: Binder's is book)")
    args = parser.parse_args(argv)
    if args.in_place and args.folder is None:
        parser.error("--in-place rewrites the folder it is given: name it (binder/postBuild: "
                     "`python -m publish jupyterlab --in-place book`)")
    folder = args.folder if args.folder is not None else ROOT / "book"
    try:
        written = write(folder if args.in_place else args.out, sources=folder)
    except ValueError as exc:
        parser.error(str(exc))
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
