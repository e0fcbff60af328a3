"""What the book knows of its sources: every label with the name the book shows for it, the
glossary's terms, the pages' titles and the bibliography, computed as the build computes them.

The book (Sphinx with sphinx-proof, sphinx-exercise and MyST-NB, ``use_multitoc_numbering``)
numbers each kind on its own: per chapter in the numbered part of ``_toc.yml``
("Conjecture 2.1", "Exercise 2.3", "Fig. 2.4"), and with one counter per kind across the
pages outside it, in the order of ``_toc.yml`` (the introduction first: "Theorem 1"; the
derivations page goes on from there: "Definition 3"). :func:`targets` gives those names;
every edition shows them (the plain edition in its heads and references, the JupyterLab
reading as its references' text and its numbering front matter), and tests/test_numbering.py
checks them against the built pages.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from publish.sources import (
    DIRECTIVE,
    GLOSSARY,
    GLOSSARY_TERM,
    HEADING,
    ROOT,
    TARGET,
    cell_text,
    figure,
    options,
    read,
    toc,
)

#: the boxes sphinx-proof numbers (a ``{prf:<kind>}`` directive), named by the kind
#: title-cased
NUMBERED_PROOFS = {"theorem", "conjecture", "observation", "definition", "remark", "lemma",
                   "proposition", "corollary", "example", "property", "axiom", "criterion",
                   "algorithm", "assumption", "notation", "problem"}
FIGURE_NAME = "Fig."


@dataclass(frozen=True)
class Target:
    """A label of the book: its document (``book/two_steps``), kind (``conjecture``,
    ``exercise``, ``figure``, ``section``, ``target``, ``term``), the name the book shows
    for it (``Conjecture 2.1``, ``Fig. 2.4``; a section's heading), and its title (a box's
    argument, a figure's caption)."""

    label: str
    doc: str
    kind: str
    name: str
    title: str = ""

    @property
    def numbered(self) -> bool:
        return self.kind not in ("section", "target", "term")


def numbered_kind(name: str, opts: dict) -> str | None:
    """The kind of a directive ``name`` with options ``opts`` that the book numbers
    (``conjecture``, ``exercise``), or None."""
    kind = name.removeprefix("prf:")
    numbered = kind == "exercise" or (name.startswith("prf:") and kind in NUMBERED_PROOFS)
    return kind if numbered and "nonumber" not in opts else None


def _items(path: Path) -> list[tuple[str, dict | str]]:
    """A document as ("markdown", text) and ("figure", figure metadata) items in order."""
    if path.suffix == ".md":
        return [("markdown", path.read_text())]
    items = []
    for cell in read(path)["cells"]:
        if cell["cell_type"] == "markdown":
            items.append(("markdown", cell_text(cell)))
        elif (fig := figure(cell)) is not None:
            items.append(("figure", fig))
    return items


def _heading(line: str) -> str:
    return re.sub(r"^#+[ \t]+", "", line).strip()


def targets(root: Path = ROOT) -> dict[str, Target]:
    """label -> :class:`Target` for every label of the book's documents, named as the book
    names them."""
    out: dict[str, Target] = {}
    shared: dict[str, int] = {}          # the counters of the pages outside the numbered part
    for doc in toc(root):
        if doc.path is None:
            continue
        counters = shared if doc.chapter is None else {}

        def name(kind, display, counters=counters, chapter=doc.chapter):
            counters[kind] = counters.get(kind, 0) + 1
            prefix = "" if chapter is None else f"{chapter}."
            return f"{display} {prefix}{counters[kind]}"

        for what, item in _items(doc.path):
            if what == "figure":
                out[item["name"]] = Target(item["name"], doc.name, "figure",
                                           name("figure", FIGURE_NAME),
                                           str(item.get("caption", "")))
                continue
            for m in DIRECTIVE.finditer(item):
                opts, _ = options(m.group("body"))
                kind, arg = numbered_kind(m.group("name"), opts), m.group("arg").strip()
                shown = name(kind, kind.title()) if kind else arg
                if "label" in opts:
                    out[opts["label"]] = Target(opts["label"], doc.name,
                                                kind or m.group("name").removeprefix("prf:"),
                                                shown, arg)
            for m in TARGET.finditer(item):
                label = m.group("label")
                if m.group("heading"):
                    heading = _heading(m.group("heading"))
                    out[label] = Target(label, doc.name, "section", heading, heading)
                else:                    # a label on something else (a paragraph, a table)
                    out[label] = Target(label, doc.name, "target", label, "")
    return out


def terms(root: Path = ROOT) -> dict[str, Target]:
    """term (lower case, as Sphinx matches a {term} role) -> :class:`Target` (kind ``term``)
    for every term of a ``{glossary}`` on a page of the book that is not a notebook."""
    out: dict[str, Target] = {}
    for doc in toc(root):
        if doc.path is None or doc.path.suffix != ".md":
            continue
        for g in GLOSSARY.finditer(doc.path.read_text()):
            for m in GLOSSARY_TERM.finditer(g.group("body")):
                term = m.group("term").strip()
                out[term.lower()] = Target(term, doc.name, "term", term, term)
    return out


def term_id(term: str) -> str:
    """The HTML id Sphinx gives a glossary term's entry (``sphinx.util.nodes.make_id`` with
    the prefix ``term``): "null run" -> ``term-null-run``, "BBP threshold" ->
    ``term-BBP-threshold``."""
    text = unicodedata.normalize("NFKD", f"term-{term}").encode("ascii", "ignore").decode()
    text = re.sub(r"[^a-zA-Z0-9._]+", "-", " ".join(text.split()))
    return re.sub(r"^[-0-9._]+|-+$", "", text)


def titles(root: Path = ROOT) -> dict[str, str]:
    """doc -> its title (its first ``# `` heading, as the book shows it in a {doc} reference)
    for every document of ``_toc.yml`` that has one."""
    out = {}
    for doc in toc(root):
        if doc.path is None:
            continue
        for what, item in _items(doc.path):
            if what != "markdown":
                continue
            if (m := next((h for h in HEADING.finditer(item) if h.group("marks") == "#"),
                          None)):
                out[doc.name] = m.group("title")
                break
    return out


# --- citations -----------------------------------------------------------------------------------

def _latex_text(text: str) -> str:
    """A BibTeX name as text: accents (``{\\v{c}}``, ``{\\"o}``, ``\\'e``) as letters,
    braces dropped."""
    marks = {"v": "\u030c", "'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302",
             "~": "\u0303", "c": "\u0327", "=": "\u0304", "u": "\u0306"}
    text = re.sub(r"\\([v'`\"^~c=u])\s*\{?([A-Za-z])\}?",
                  lambda m: m.group(2) + marks[m.group(1)], text)
    return unicodedata.normalize("NFC", text.replace("{", "").replace("}", ""))


def bibliography(root: Path = ROOT) -> dict[str, tuple[str, str]]:
    """key -> (authors as cited, year) from book/references.bib."""
    text = (root / "book" / "references.bib").read_text()
    out = {}
    for m in re.finditer(r"@\w+\{([^,]+),(.*?)\n\}", text, re.S):
        key, body = m.group(1).strip(), m.group(2)
        authors = re.search(r"author\s*=\s*\{(.*?)\},?\n", body, re.S)
        year = re.search(r"year\s*=\s*\{?(\d{4})", body)
        names = [_latex_text(a.split(",")[0].strip()) for a in
                 re.split(r"\s+and\s+", authors.group(1))] if authors else ["?"]
        cited = (names[0] if len(names) == 1 else f"{names[0]} and {names[1]}"
                 if len(names) == 2 else f"{names[0]} et al.")
        out[key] = (cited, year.group(1) if year else "n.d.")
    return out


class Book:
    """Everything an edition needs to name what a chapter refers to: the labels
    (:func:`targets`), the glossary's terms (:func:`terms`), the pages' titles
    (:func:`titles`, by document and by file stem), the documents of ``_toc.yml`` and the
    bibliography, read once."""

    def __init__(self, root: Path = ROOT):
        self.root = root
        self.docs = {doc.name: doc for doc in toc(root)}
        self.targets = targets(root)
        self.terms = terms(root)
        self.titles = titles(root)
        self.bib = bibliography(root)

    def cite(self, keys: str, textual: bool) -> str:
        """A citation as text: ``Moniri and Hassani (2026)`` ({cite:t}) or
        ``(Ba et al. 2022)`` ({cite:p})."""
        parts = []
        for key in (k.strip() for k in keys.split(",")):
            authors, year = self.bib.get(key, (key, "n.d."))
            parts.append(f"{authors} ({year})" if textual else f"{authors} {year}")
        return "; ".join(parts) if textual else "(" + "; ".join(parts) + ")"
