"""The claim table (companion/claims.py) behind the book's registry page: every claim maps to
a figure placed in exactly one chapter, an existing test and the stored data of its
experiments; every experiment is mapped; the page is generated from the table."""

from __future__ import annotations

import json
import re
from pathlib import Path

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
    readings = ("1 + Lambda", "added", "iff", "floor(Lambda/2)", "degree of the activation")
    for c in claims.CLAIMS:
        if c.source.startswith("paper"):
            assert not any(r in c.claim for r in readings), c.claim


def test_claims_page_is_generated_from_the_table():
    page = (ROOT / "book" / "registry.md").read_text()
    assert page == claims.render(), "run: python -m companion.claims > book/registry.md"
    assert "book/registry" in (ROOT / "_toc.yml").read_text()
    assert "{numref}`fig-ts-emergence`" in page


def test_the_registry_links_every_experiments_stored_files():
    """Each experiment's row offers its stored CSV, JSON and NPZ for download (the build
    copies them into the book), and every linked file exists."""
    page = (ROOT / "book" / "registry.md").read_text()
    links = re.findall(r"\{download\}`[^`<]*<\.\./([^>]+)>`", page)
    assert links and all((ROOT / link).is_file() for link in links)
    for eid in rp.EXPERIMENT_IDS:
        if (ROOT / claims.DATA_DIR / f"{eid}.npz").is_file():
            for kind in ("csv", "json", "npz"):
                assert f"{claims.DATA_DIR}/{eid}.{kind}>" in page, (eid, kind)
