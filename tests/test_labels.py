"""The repository stands alone: every book label that the code cites exists in the book, and
no file refers to a document that the repository does not contain.

A citation in a docstring or comment is written ``book:`` followed by one or more labels
separated by commas, e.g. ``(book: dv-expansion)`` or ``(companion derivation,
book: dv-exponents, dv-parity)`` (book/CONVENTIONS.md, "Citing the book from the code"). A
label is a sphinx-proof or exercise ``:label:``, a figure's ``:name:`` or a ``(target)=``
in book/*.md and book/*.ipynb.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: "book:" and the labels after it (a comment's continuation "#" may sit between them)
CITATION = re.compile(r"\bbook:\s*((?:#:?\s*)?[a-z][a-z0-9]*(?:-[a-z0-9]+)+"
                      r"(?:,\s*(?:#:?\s*)?[a-z][a-z0-9]*(?:-[a-z0-9]+)+)*)")
LABEL = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")
DEFINED = re.compile(r"^\s*:(?:label|name):\s*(\S+)\s*$|^\((\S+)\)=\s*$", re.M)


def book_labels(book: Path = ROOT / "book") -> set[str]:
    """Every label defined in the book's markdown pages and notebooks."""
    labels = set()
    for path in sorted(book.glob("*.md")) + sorted(book.glob("*.ipynb")):
        if path.suffix == ".ipynb":
            cells = json.loads(path.read_text())["cells"]
            texts = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
        else:
            texts = [path.read_text()]
        for text in texts:
            labels.update(a or b for a, b in DEFINED.findall(text))
    return labels


def repository_files() -> list[Path]:
    """The repository's files: git's list when this is a clone, else every file but build
    products, caches and virtual environments."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True, text=True).stdout
        files = [ROOT / f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", "_build", "__pycache__", ".pytest_cache", ".ruff_cache"}
        files = [p for p in ROOT.rglob("*") if p.is_file()
                 and not skip.intersection(p.relative_to(ROOT).parts)]
    return [f for f in files if f.is_file()]


def _text(path: Path) -> str | None:
    try:
        return path.read_text()
    except UnicodeDecodeError:          # stored runs (npz), images
        return None


def cited_labels(text: str) -> list[str]:
    """The labels ``text`` cites, in order."""
    return [label for group in CITATION.findall(text) for label in LABEL.findall(group)]


def code_citations() -> dict[str, list[str]]:
    """label -> the files (package, tests, tools, benchmarks) that cite it."""
    cites: dict[str, list[str]] = {}
    for path in repository_files():
        if path.suffix != ".py":
            continue
        for label in cited_labels(path.read_text()):
            cites.setdefault(label, []).append(str(path.relative_to(ROOT)))
    return cites


LABELS = book_labels()


def test_the_citation_form_is_read():
    """The parser reads one label, several, and labels across a comment's lines."""
    assert cited_labels("x (book: dv-expansion).") == ["dv-expansion"]
    assert cited_labels("(derivation, book: dv-exponents, dv-parity): m_1") == [
        "dv-exponents", "dv-parity"]
    assert cited_labels("# spikes (book: dv-census,\n# dv-pit-edge)") == [
        "dv-census", "dv-pit-edge"]
    assert cited_labels("the book: every chapter") == []
    assert {"dv-expansion", "ts-conj-expansion", "reg-experiments"} <= LABELS


def test_code_cites_the_book():
    """The package cites the book's derivations (so a reader of a module finds its formula)."""
    cites = code_citations()
    assert sum(len(v) for v in cites.values()) >= 80
    for module in ("network.py", "theory.py", "expansion.py", "spikes.py"):
        assert any(module in f for files in cites.values() for f in files), module


def test_every_cited_label_exists():
    """Every label a docstring or comment cites is a label of the book."""
    missing = {label: files for label, files in code_citations().items()
               if label not in LABELS}
    assert not missing, f"cited but not in the book: {missing}"


def test_readme_cites_existing_labels():
    """The README's table of layers names book labels in its last column; they exist."""
    table = [line for line in (ROOT / "README.md").read_text().splitlines()
             if line.startswith("| ") and "`dv-" in line]
    cited = {m for line in table for m in re.findall(r"`([a-z]+-[a-z0-9-]+)`",
                                                     line.rsplit("|", 2)[-2])}
    assert cited and cited <= LABELS, sorted(cited - LABELS)


# Built from pieces, so that this file does not itself mention them.
ABSENT = [re.compile(r"\b" + "SP" + r"EC\b"), re.compile(re.escape(".." + "/shared")),
          re.compile(re.escape("/work/" + "shared"))]


@pytest.mark.parametrize("pattern", ABSENT, ids=lambda p: p.pattern)
def test_no_file_mentions_a_document_outside_the_repository(pattern):
    """The team's working notes are not part of the product: nothing refers to them."""
    hits = []
    for path in repository_files():
        text = _text(path)
        if text is None:
            continue
        hits += [f"{path.relative_to(ROOT)}:{i}" for i, line in enumerate(text.splitlines(), 1)
                 if pattern.search(line)]
    assert not hits, f"{pattern.pattern} in: {hits[:20]}"


def test_derivations_page_refers_to_existing_labels():
    """book/derivations.md points to the chapters' boxes; a renamed box fails here before the
    strict build does."""
    text = (ROOT / "book" / "derivations.md").read_text()
    refs = set(re.findall(r"\{(?:prf:ref|ref|numref)\}`(?:[^`<]*<)?([^`>]+)>?`", text))
    assert refs and refs <= LABELS, sorted(refs - LABELS)
    own = {a or b for a, b in DEFINED.findall(text)}
    assert len(own) >= 25 and all(label.startswith("dv-") for label in own)
