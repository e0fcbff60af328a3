"""The claim table (companion/claims.py) behind the book's registry page: every claim maps to
an existing chapter heading, function, experiment, test and data file; the page is generated
from it."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from companion import reproduce as rp

ROOT = Path(__file__).resolve().parents[1]


def test_claim_table_is_complete_and_every_entry_exists():
    from companion import claims as registry
    claims = registry.CLAIMS
    assert len(claims) >= 9
    ids = set()
    for c in claims:
        nb = ROOT / c.chapter
        assert nb.exists(), c.chapter
        cells = json.loads(nb.read_text())["cells"]
        headings = {line.strip() for cell in cells if cell["cell_type"] == "markdown"
                    for line in "".join(cell["source"]).splitlines()}
        assert c.section in headings, (c.chapter, c.section)
        module, _, name = c.function.rpartition(".")
        assert callable(getattr(importlib.import_module(module), name)), c.function
        for eid in c.experiments:
            assert eid in rp.EXPERIMENT_IDS, eid
            ids.add(eid)
        path, _, func = c.test.partition("::")
        assert (ROOT / path).exists(), c.test
        assert f"def {func}(" in (ROOT / path).read_text(), c.test
        for data in c.data:
            assert data == registry.NOT_YET or (ROOT / data).exists(), data
    assert ids == set(rp.EXPERIMENT_IDS)                        # every experiment is mapped


def test_claims_page_is_generated_from_the_table():
    from companion import claims as registry
    page = (ROOT / "book" / "registry.md").read_text()
    assert page == registry.render(), "run: python -m companion.claims > book/registry.md"
    toc = (ROOT / "_toc.yml").read_text()
    assert "book/registry" in toc
