"""The instructors' page and what a course needs around it (issue 12): the page's tables are
the ones the repository regenerates (exercises from the chapters, times from the benchmark),
CITATION.cff is valid and cites the paper, LICENSE gives the text CC BY 4.0 and the code MIT,
and every built page has the issues button (the errata channel)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from benchmarks import run as benchmark
from publish import exercise_table

ROOT = Path(__file__).resolve().parents[1]

PAGE = ROOT / "book" / "instructors.md"


def test_exercise_table_is_regenerated_from_the_chapters():
    text = PAGE.read_text()
    assert exercise_table.page_with_table(text) == text, (
        "book/instructors.md's exercise table is stale: run `python -m publish "
        "exercise-table --write`")
    rows = exercise_table.exercises()
    assert len(rows) >= 2 + 4 * 4


def test_timing_tables_are_regenerated_from_the_benchmark():
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    for rel, text in benchmark.rendered_tables(results).items():
        assert (ROOT / rel).read_text() == text, (
            f"{rel}: its table differs from benchmarks/results.json: run "
            f"`python benchmarks/run.py --write-tables`")
    # every chapter timed with one BLAS thread, each against the expert script of its run
    times = results["chapters"]["runs"]["default"]["chapters"]
    assert set(times) >= {"intro", "one_step", "two_steps", "reuse_vs_fresh", "finite_size"}
    assert all(r["baseline_s"] > 0 and r["pairs"] >= 1 for r in times.values())


def test_the_module_plan_names_only_exercises_of_the_book():
    labels = {r["label"] for r in exercise_table.exercises()}
    named = set(re.findall(r"\{ref\}`([\w-]+-ex-[\w-]+)`", PAGE.read_text()))
    assert named - labels == set(), f"the page names exercises the book lacks: {named - labels}"
    plan = PAGE.read_text().split("## A two-week module")[1].split("\n## ")[0]
    assert len(set(re.findall(r"\{ref\}`([\w-]+)`", plan))) >= 10, "the module plan draws on few exercises"


def test_citation_file_is_valid_and_cites_the_paper():
    import companion
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    for key in ("cff-version", "message", "title", "authors", "license", "version"):
        assert cff.get(key), f"CITATION.cff lacks {key}"
    assert cff["cff-version"] == "1.2.0"
    assert cff["version"] == companion.__version__
    assert all("name" in a or "family-names" in a for a in cff["authors"])
    # the companion itself, as software, at the repository's address; the paper under
    # references (a preferred-citation would replace the companion's own citation)
    assert cff["type"] == "software" and "preferred-citation" not in cff
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"].rstrip("/")
    assert cff["url"] == cff["repository-code"] == url
    (paper,) = [r for r in cff["references"] if "2605.17767" in json.dumps(r)]
    assert paper["type"] == "article"
    assert "2605.17767" in json.dumps(paper) and paper["year"] == 2026
    assert [a["family-names"] for a in paper["authors"]] == ["Moniri", "Hassani"]


def test_citation_file_matches_the_citation_file_format_schema():
    """CFF 1.2.0's schema (check-jsonschema's copy, shipped in its wheel: no network)."""
    import shutil
    import subprocess
    tool = Path(sys.executable).with_name("check-jsonschema")
    proc = subprocess.run([str(tool) if tool.exists() else shutil.which("check-jsonschema"),
                           "--builtin-schema", "vendor.citation-file-format",
                           str(ROOT / "CITATION.cff")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_licence_names_both_licences():
    text = (ROOT / "LICENSE").read_text()
    assert "MIT License" in text and "CC BY 4.0" in text
    assert "LICENSES/CC-BY-4.0.txt" in text
    assert 'license = "MIT AND CC-BY-4.0"' in (ROOT / "pyproject.toml").read_text()
    # CITATION.cff names both (a list of SPDX identifiers: CFF 1.2.0 has no expression)
    assert yaml.safe_load((ROOT / "CITATION.cff").read_text())["license"] == ["MIT", "CC-BY-4.0"]


@pytest.mark.book
def test_every_page_has_the_issues_button():
    html = ROOT / "_build" / "html"
    pages = sorted((html / "book").glob("*.html"))
    if not pages:
        pytest.skip("the book is not built: run `make book`")
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"].rstrip("/")
    missing = [p.name for p in pages if f"{url}/issues/new" not in p.read_text()]
    assert not missing, f"pages without the issues button: {missing}"
