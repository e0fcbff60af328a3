#!/usr/bin/env python3
"""One numbering in every edition: the name under which the book, JupyterLab and the plain
edition show each numbered box, exercise and figure.

The book (Sphinx with sphinx-proof, sphinx-exercise and MyST-NB, ``use_multitoc_numbering``)
numbers each kind on its own: per chapter in the numbered part of ``_toc.yml``
("Conjecture 2.1", "Exercise 2.3", "Fig. 2.4"), and with one counter per kind across the
pages outside it, in the order of ``_toc.yml`` (the introduction first: "Theorem 1"; the
derivations page goes on from there: "Definition 3"). :func:`targets` computes those names
from the sources, as the book does; the plain edition (tools/plain_edition.py) heads and
cites boxes and figures by them. JupyterLab (jupyterlab-myst) numbers each kind per notebook
from 1 (:func:`jupyterlab_names`), with the template a front matter at the top of the
notebook's first markdown cell gives (``numbering: enumerator: "2.%s"``).

The chapters' sources hold references as a person writes them ({prf:ref}`label`,
{numref}`fig-name`, {ref}`label`, {term}`word`, {doc}`page`): nothing in them is written by
a tool. ``tests/test_numbering.py`` checks the names against the plain edition and the built
pages.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

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
#: a box directive's kind as the book names it (sphinx-proof: the kind, title-cased)
NUMBERED_PROOFS = {"theorem", "conjecture", "observation", "definition", "remark", "lemma",
                   "proposition", "corollary", "example", "property", "axiom", "criterion",
                   "algorithm", "assumption", "notation", "problem"}
FIGURE_NAME = "Fig."


@dataclass(frozen=True)
class Target:
    """A label of the book: its document (``book/two_steps``), kind (``conjecture``,
    ``exercise``, ``figure``, ``section``, ``term``), the name every edition shows
    (``Conjecture 2.1``, ``Fig. 2.4``; a section's heading), its title (a box's argument, a
    figure's caption)."""

    label: str
    doc: str
    kind: str
    name: str
    title: str = ""

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

        for what, item in _items(path):
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
                if not numbered or "nonumber" in options:
                    if "label" in options:
                        out[options["label"]] = Target(options["label"], doc, kind,
                                                       m.group("arg").strip(),
                                                       m.group("arg").strip())
                    continue
                shown = name(kind, kind.title())
                if "label" in options:
                    out[options["label"]] = Target(options["label"], doc, kind, shown,
                                                   m.group("arg").strip())
            for m in TARGET.finditer(item):
                if m.group("heading"):
                    heading = _plain_heading(m.group("heading"))
                    out[m.group("label")] = Target(m.group("label"), doc, "section", heading,
                                                   heading)
                else:                    # a label on something else (a paragraph, a table)
                    out[m.group("label")] = Target(m.group("label"), doc, "target",
                                                   m.group("label"), "")
    return out


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
        for g in GLOSSARY.finditer(text):
            for m in re.finditer(r"^(?![ \t])(?P<term>\S[^\n]*)$", g.group("body"), re.M):
                term = m.group("term").strip()
                out[term.lower()] = Target(term, doc, "term", term, term)
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


def cited_text(role: str, text: str) -> tuple[str | None, str]:
    """(the explicit text or None, the label) of a reference role's content."""
    m = re.match(r"^(.*?)\s*<([^<>]+)>$", text, re.S)
    return (m.group(1), m.group(2)) if m else (None, text.strip())


def notebooks(root: Path = ROOT) -> list[tuple[str, int | None, Path]]:
    return [(doc, n, p) for doc, n in toc(root)
            if (p := source(doc, root)) is not None and p.suffix == ".ipynb"]
