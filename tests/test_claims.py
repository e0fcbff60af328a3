"""The claim table (companion/claims.py) behind the book's registry page: every claim maps to
a figure placed in exactly one chapter, an existing test and the stored data of its
experiments; every experiment is mapped; the page is generated from the table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion import claims
from companion import reproduce as rp

ROOT = Path(__file__).resolve().parents[1]


def _figure_names() -> dict[str, list[str]]:
    names: dict[str, list[str]] = {}
    for nb in sorted((ROOT / "book").glob("*.ipynb")):
        for cell in json.loads(nb.read_text())["cells"]:
            # a figure named in its drawing cell's metadata (MyST-NB), or in a glue block
            name = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name")
            if name:
                names.setdefault(name, []).append(nb.stem)
            if cell["cell_type"] != "markdown":
                continue
            for line in "".join(cell["source"]).splitlines():
                if line.strip().startswith(":name: fig-"):
                    names.setdefault(line.split(":name:")[1].strip(), []).append(nb.stem)
    return names


def test_claim_table_is_complete_and_every_entry_exists():
    figures = _figure_names()
    assert len(claims.CLAIMS) >= 12
    mapped = set()
    for c in claims.CLAIMS:
        assert figures.get(c.figure, []) and len(figures[c.figure]) == 1, c.figure
        path, _, func = c.test.partition("::")
        assert (ROOT / path).exists(), c.test
        assert f"def {func}(" in (ROOT / path).read_text(), c.test
        for eid in c.experiments:
            assert eid in rp.EXPERIMENT_IDS, eid
            mapped.add(eid)
        for data in c.data:
            assert (ROOT / data).exists(), data
    assert mapped == set(rp.EXPERIMENT_IDS)                   # every experiment is mapped


def test_paper_claims_quote_only_the_abstract_or_summary():
    """A claim labelled as the paper's carries none of the companion's readings."""
    readings = ("1 + \\Lambda", "added", "iff", "\\lfloor \\Lambda/2", "degree of the activation")
    for c in claims.CLAIMS:
        if c.source.startswith("paper"):
            assert not any(r in c.claim for r in readings), c.claim


def test_claims_page_is_generated_from_the_table():
    page = (ROOT / "book" / "registry.md").read_text()
    assert page == claims.render(), "run: python -m companion.claims > book/registry.md"
    assert "book/registry" in (ROOT / "_toc.yml").read_text()
    assert "{numref}`fig-ts-emergence`" in page


def test_the_registry_links_every_experiments_stored_files_and_figure():
    """Each experiment's row offers its stored CSV, JSON and NPZ and its figure as a PDF for
    download (the build copies them into the book); every linked stored file exists, and a
    PDF is linked exactly where the runs it is drawn from are stored (the build draws it:
    book/_ext/registry_figures.py; tests/test_book.py finds it in the built book)."""
    page = (ROOT / "book" / "registry.md").read_text()
    links = re.findall(r"\{download\}`[^`<]*<\.\./([^>]+)>`", page)
    stored = [link for link in links if link.startswith(claims.DATA_DIR)]
    pdfs = {link for link in links if link.startswith(claims.FIGURES_DIR)}
    assert stored and all((ROOT / link).is_file() for link in stored)
    assert set(links) == set(stored) | pdfs
    with_runs = [eid for eid in rp.EXPERIMENT_IDS
                 if (ROOT / claims.DATA_DIR / f"{eid}.npz").is_file()]
    assert pdfs == {f"{claims.FIGURES_DIR}/{eid}.pdf" for eid in with_runs}
    for eid in with_runs:
        for kind in ("csv", "json", "npz"):
            assert f"{claims.DATA_DIR}/{eid}.{kind}>" in page, (eid, kind)


#: ASCII math, as the registry wrote it before its math was rendered (alpha1, eta = ...,
#: N^..., He_3, floor(...), cos^2, Lambda as a word)
ASCII_MATH = re.compile(r"\b(alpha ?[12]|eta ?[12]?|Lambda|Theta|W ?[012]|He_\d|he\d|s1|"
                        r"sqrt\d?|cos\^2|tanh)\b|\^|floor\(|>=|\ba\^\{o")


def test_the_registry_writes_its_math_as_math():
    """Outside its math, code and links, the page has no ASCII math (its claims and the
    experiments' titles: companion.claims.TITLE_MATH)."""
    page = (ROOT / "book" / "registry.md").read_text()
    text = re.sub(r"\$[^$]*\$|`[^`]*`|<!--.*?-->|```.*?```|[Cc]hecked by \*[^*]+\*", " ", page,
                  flags=re.S)
    found = sorted({m.group(0) for m in ASCII_MATH.finditer(text)})
    assert not found, f"ASCII math on the registry page: {found}"
    assert claims.math_title("one step at eta = N^alpha: vs N") == (
        r"one step at $\eta = N^\alpha$: vs $N$")


@pytest.mark.book
def test_the_built_registry_offers_each_figure_as_a_pdf(built_book):
    """The build drew a PDF for every experiment with stored runs and copied it into the
    book, where the registry's links find it (a PDF file, not an empty placeholder)."""
    page = (built_book / "book" / "registry.html").read_text()
    pdfs = sorted(set(re.findall(r'href="\.\./(_downloads/[^"]+/(E\d+)\.pdf)"', page)))
    with_runs = {eid for eid in rp.EXPERIMENT_IDS
                 if (ROOT / claims.DATA_DIR / f"{eid}.npz").is_file()}
    assert {eid for _, eid in pdfs} == with_runs
    for path, eid in pdfs:
        data = (built_book / path).read_bytes()
        assert data.startswith(b"%PDF") and len(data) > 5000, (eid, len(data))
