""""The paper states" holds the abstract's words and nothing else.

Only the paper's abstract could be read; a public summary of it says of itself that it is
AI-written and not endorsed by the authors. So every box titled "The paper states" (a
sphinx-proof theorem) and every sentence that says "the paper states", in the chapters, the
derivations page, the explorer (notebook and page) and the registry, may quote only text that
occurs in the abstract (:data:`companion.claims.ABSTRACT`), and none of them may carry the
summary's words (it must say "summary" in a sentence or box of its own).

A quotation is compared without its math: the math of the stored abstract and of the book is
written differently ($\\lfloor ...$, \\( ... \\)), so each quotation is cut at its math and
every piece of words must occur in the abstract's words.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from companion.claims import ABSTRACT, CLAIMS

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"

MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]", re.S)
QUOTE = re.compile(r"[\"\u201c]([^\"\u201c\u201d]+)[\"\u201d]")
BOX = re.compile(r"```\{prf:theorem\}\s*The paper states([^\n]*)\n(.*?)```", re.S | re.I)
SENTENCE_START = re.compile(r"the paper states", re.I)
#: where a sentence that starts with "the paper states" ends
SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)\.(?=\s|$)|\n\s*\n|\||\n\s*[-*] ")


def _words(text: str) -> str:
    """Lower-case words and inner punctuation, whitespace collapsed, ends trimmed."""
    text = re.sub(r"\*+|_{2,}|`", "", text)          # emphasis, roles' backticks
    return re.sub(r"\s+", " ", text).strip(" .,;:'\u2019").lower()


ABSTRACT_WORDS = " | ".join(_words(p) for p in MATH.split(ABSTRACT))


def _pieces(quote: str) -> list[str]:
    """The runs of words of a quotation between its math."""
    return [w for w in (_words(p) for p in MATH.split(quote)) if re.search(r"[a-z]", w)]


def _sources() -> dict[str, str]:
    """Every text the reader sees as the book's statements: markdown cells and figure
    captions of the chapters, the book's pages, the explorer page (tags removed)."""
    out = {}
    for nb in sorted(BOOK.glob("*.ipynb")):
        cells = json.loads(nb.read_text())["cells"]
        for i, cell in enumerate(cells):
            src = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                out[f"{nb.name}#{i}"] = src
            caption = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("caption")
            if caption:
                out[f"{nb.name}#{i} caption"] = str(caption)
    for md in sorted(BOOK.glob("*.md")):
        if md.name != "CONVENTIONS.md":        # the writers' guide quotes the rule itself
            out[md.name] = md.read_text()
    page = (ROOT / "companion" / "explorer_page" / "page.html").read_text()
    page = re.sub(r"<script.*?</script>|<style.*?</style>", " ", page, flags=re.S)
    out["explorer_page/page.html"] = html.unescape(re.sub(r"<[^>]+>", "", page))
    return out


def paper_states_passages(sources: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(where, text) for each "The paper states" box (its body) and each sentence that
    begins with "the paper states" outside such a box's title."""
    out = []
    for where, text in (sources or _sources()).items():
        for m in BOX.finditer(text):
            body = re.sub(r"^:\w+:.*$", "", m.group(2), flags=re.M)
            out.append((f"{where} box{m.group(1)}", body))
        for m in SENTENCE_START.finditer(text):
            before = text[max(0, m.start() - 14):m.start()]
            # a box's title is read with the box; *the paper states* or "the paper states"
            # names the label (the derivations page's preface), it does not use it
            named = (before.endswith('"') or before.endswith("*")
                     and not before.endswith("**"))
            if before.endswith("{prf:theorem} ") or named:
                continue
            end = SENTENCE_END.search(text, m.end())
            out.append((where, text[m.start():end.start() if end else len(text)]))
    return out


def test_the_abstract_is_stored_and_is_the_papers():
    assert ABSTRACT.startswith("We study feature learning in two-layer neural networks")
    assert "spiked random matrix with multiple outliers" in ABSTRACT
    assert "summary" not in ABSTRACT.lower()
    # the reader is told which count is the paper's and which the summary's cap
    assert "min(L" not in ABSTRACT and "L - 1" not in ABSTRACT


def test_the_check_catches_summary_words_and_paraphrased_quotes():
    bad = {"x.md": 'The paper states that "two steps act as one" below the line.\n\n'
                   "```{prf:theorem} The paper states (abstract)\n:label: x\n"
                   'It says "$\\Lambda = \\min(L - 1, \\ldots)$ where $L$ is the degree of '
                   'the polynomial expansion"; the public summary adds more.\n```\n'}
    passages = paper_states_passages(bad)
    assert len(passages) == 2
    assert any(p not in ABSTRACT_WORDS for _, text in passages
               for q in QUOTE.findall(text) for p in _pieces(q))
    assert any("summary" in text.lower() for _, text in passages)
    good = 'The paper states that "the update to the weights is approximately rank-one".'
    ((_, text),) = paper_states_passages({"y.md": good})
    assert all(p in ABSTRACT_WORDS for q in QUOTE.findall(text) for p in _pieces(q))


PASSAGES = paper_states_passages()


def test_there_are_paper_states_passages():
    where = {w.split("#")[0].split(" ")[0] for w, _ in PASSAGES}
    assert len(PASSAGES) >= 10
    for name in ("intro.ipynb", "two_steps.ipynb", "reuse_vs_fresh.ipynb", "one_step.ipynb",
                 "derivations.md", "explorer.ipynb", "explorer_page/page.html"):
        assert name in where, name


@pytest.mark.parametrize("where,text", PASSAGES, ids=[w for w, _ in PASSAGES])
def test_paper_states_quotes_only_the_abstract(where, text):
    assert "summary" not in text.lower(), f"{where}: the summary's words under the paper's name"
    for quote in QUOTE.findall(text):
        for piece in _pieces(quote):
            assert piece in ABSTRACT_WORDS, f"{where}: {piece!r} is not in the abstract"


def test_registry_paper_claims_quote_only_the_abstract():
    """A claim sourced to the abstract alone quotes it; a mixed one says which part is
    the summary's."""
    for c in CLAIMS:
        if not c.source.startswith("paper"):
            continue
        if "summary" in c.source:
            assert "AI-written" in c.source and "not endorsed" in c.source, c.claim
            continue
        quotes = QUOTE.findall(c.claim)
        assert quotes, f"a claim of the paper quotes the abstract: {c.claim}"
        for quote in quotes:
            for piece in _pieces(quote):
                assert piece in ABSTRACT_WORDS, f"{c.claim}: {piece!r} is not in the abstract"
