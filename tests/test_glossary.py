"""The glossary (book/glossary.md) and the chapters' links to it.

* the glossary defines the words the chapters use in a sense of their own (census, separate
  strength, null run, knife edge, BBP threshold, learned direction, information exponent,
  Lambda, fresh and reused batch), each once;
* every {term} role of a chapter names a term of the glossary;
* a chapter links a term ({term}`census`) at its first use: no use of the term's words comes
  before the first link in the chapter's prose (headings, box and exercise titles, bold
  leads, quotations, code, math and the solutions do not count as uses);
* the plain edition turns each {term} role into a link to the term's heading on the plain
  glossary page (book/plain/glossary.md), which has a heading for every term.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from publish import plain_edition as pe
from publish.sources import ROOT, blob_url, cell_text, notebooks, toc

GLOSSARY = ROOT / "book" / "glossary.md"
REQUIRED = {"census", "separate strength", "null run", "knife edge", "BBP threshold",
            "learned direction", "information exponent", "Lambda", "fresh batch",
            "reused batch"}
TERM_ROLE = re.compile(r"\{term\}`([^`]*)`")
#: the chapters whose prose links the glossary: the introduction and the numbered chapters
CHAPTERS = [doc.path for doc in notebooks() if doc.chapter is not None or doc == toc()[0]]


def glossary_terms() -> list[str]:
    text = GLOSSARY.read_text()
    body = re.search(r"^```\{glossary\}\n(.*?)^```", text, re.S | re.M).group(1)
    return [line.strip() for line in body.splitlines()
            if line.strip() and not line.startswith((" ", "\t"))]


TERMS = glossary_terms()


def _target(role_text: str) -> str:
    m = re.match(r"^.*<([^<>]+)>$", role_text, re.S)
    return (m.group(1) if m else role_text).strip()


def test_the_glossary_defines_the_terms_once():
    assert REQUIRED <= set(TERMS), sorted(REQUIRED - set(TERMS))
    assert len({t.lower() for t in TERMS}) == len(TERMS)


def test_the_glossary_is_in_the_book():
    assert "book/glossary" in [doc.name for doc in toc()]


def prose(path: Path) -> str:
    """The chapter's markdown outside the solutions, with what is not a use of a word
    blanked (same length, so positions stay): headings, directive lines, bold leads,
    quotations, code, math, roles other than {term}."""
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"
             and "solution" not in c.get("metadata", {}).get("tags", [])]
    text = "\n\n".join(cell_text(c) for c in cells)

    def blank(pattern, flags=0):
        nonlocal text
        text = re.sub(pattern, lambda m: " " * len(m.group(0)), text, flags=flags)

    blank(r"\$\$.*?\$\$", re.S)
    blank(r"\$[^$]{1,400}?\$")
    blank(r"^#+ .*$", re.M)
    blank(r"^(`{3,}|:{3,}).*$", re.M)
    blank(r"^:[\w-]+:.*$", re.M)
    blank(r"\*\*[^*]+\*\*")
    blank(r"\{(?!term\})[\w:-]+\}`[^`]*`")
    text = TERM_ROLE.sub(lambda m: m.group(0).replace("`", "\x01"), text)
    blank(r"`[^`]*`")
    text = text.replace("\x01", "`")
    blank(r"\"(?:[^\"\n]|\n(?!\n)){0,400}?\"|“[^”]{0,400}?”")
    return text


def _pattern(term: str) -> re.Pattern:
    words = [re.escape(w) for w in term.split()]
    words[-1] += r"(?:s|es)?"
    return re.compile(r"(?<![\w{`<-])" + r"[- ]".join(words) + r"(?![\w>])", re.I)


def _as_the_book_reads(path: Path) -> str:
    if path.suffix == ".md":
        return path.read_text()
    return "\n\n".join(cell_text(c) for c in json.loads(path.read_text())["cells"]
                       if c["cell_type"] == "markdown")


def test_every_term_role_names_a_term():
    known = {t.lower() for t in TERMS}
    roles = {(p.name, _target(t)) for p in CHAPTERS + [GLOSSARY]
             for t in TERM_ROLE.findall(_as_the_book_reads(p))}
    assert len({name for name, _ in roles}) == len(CHAPTERS) + 1
    unknown = {(name, term) for name, term in roles if term.lower() not in known}
    assert not unknown, sorted(unknown)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_term_is_linked_at_its_first_use(path):
    text = prose(path)
    late = []
    for term in TERMS:
        links = [m.start() for m in TERM_ROLE.finditer(text)
                 if _target(m.group(1)).lower() == term.lower()]
        uses = [m.start() for m in _pattern(term).finditer(TERM_ROLE.sub(
            lambda m: " " * len(m.group(0)), text))]
        if uses and (not links or uses[0] < links[0]):
            at = uses[0]
            late.append(f"{term!r}: first used at ...{text[max(0, at - 50):at + 30]!r}..."
                        + ("" if links else " and never linked"))
    assert not late, f"{path.name}: link these at their first use:\n" + "\n".join(late)


def test_the_plain_edition_links_a_term_to_the_plain_glossary():
    book = pe.Book()
    out = pe.plain_roles("the {term}`null runs <null run>` and the {term}`census`", book,
                         "intro")
    base = f"{blob_url()}/book/plain/glossary.md"
    assert out == f"the [null runs]({base}#null-run) and the [census]({base}#census)"
    page = (pe.OUT / "glossary.md").read_text()
    headings = set(re.findall(r"^### (.+)$", page, re.M))
    assert headings == set(TERMS)
    assert {pe.term_anchor(t) for t in TERMS} == {
        re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in headings}
