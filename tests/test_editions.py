"""Every edition from the sources (issue 43): the JupyterLab reading (publish/jupyterlab.py),
``python -m publish editions``, and what a person's edit of a source changes.

* on a small book of its own (two numbered chapters, a page of derivations, a glossary), the
  JupyterLab reading writes the numbering front matter, keeps what jupyterlab-myst resolves,
  turns every other reference into the book's name or a link to the online book, a {doc} of
  a notebook into a link to its file, a citation into text, names each figure on its
  drawing line, and changes nothing else; a reading is not read again;
* the reading of the book's chapters: nothing jupyterlab-myst cannot resolve is left, no
  link leads to a page's source or to a line of it, every online link is to a page of the
  book and, where the build is there, to an anchor of that page; the sources are untouched;
* ``python -m publish editions`` writes the three editions, in a scratch copy of the
  repository; there, an edited line of the glossary changes one source file and its plain
  copy, nothing else (the references hold no line numbers);
* the publishing package and the tests never change the import path.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from publish import jupyterlab
from publish.book import Book, term_id
from publish.sources import (
    ROLE,
    cell_text,
    dumps,
    notebooks,
    page_url,
    read,
    role_parts,
    site_url,
)

ROOT = Path(__file__).resolve().parents[1]
SITE = "https://owner.github.io/name/"


# --- a small book of its own -------------------------------------------------------------------

def _notebook(*cells) -> dict:
    out = []
    for i, (kind, text, *meta) in enumerate(cells):
        cell = {"cell_type": kind, "id": f"c{i}", "metadata": meta[0] if meta else {},
                "source": text}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        out.append(cell)
    return {"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _figure(name: str) -> dict:
    return {"mystnb": {"figure": {"name": name, "caption": "A caption."}}}


ONE = _notebook(
    ("markdown", "# One\n\nThe first chapter.\n"),
    ("markdown", "```{prf:conjecture} The companion derives: a rule\n:label: one-conj\n\n"
                 "Text.\n```\n"),
    ("code", "show(figures.first(runs))", _figure("fig-one")),
    ("markdown", "(one-sec)=\n## A section\n\n"
                 "Here: {prf:ref}`one-conj`, {ref}`one-sec`, {numref}`fig-one`, "
                 "{ref}`one-ex`.\n"
                 "Elsewhere: {prf:ref}`two-conj`, {numref}`fig-two`, {ref}`two-sec`, "
                 "{prf:ref}`dv-box`, {ref}`dv-sec`, {prf:ref}`the rule <two-conj>`.\n"
                 "Terms: {term}`census`, {term}`null runs <null run>`.\n"
                 "Pages: {doc}`two`, {doc}`the derivations <derivations>`.\n"
                 "Cited: {cite:t}`moniri2026twostep`, {cite:p}`ba2022onestep`; "
                 "a number {eval}`ns.x`.\n"),
    ("markdown", "```{exercise} Try\n:label: one-ex\n\n**derivation** · easy · about 5 min\n\n"
                 "Do it.\n```\n"),
)
TWO = _notebook(
    ("markdown", "# Two\n\n(two-sec)=\n## Its section\n"),
    ("markdown", "```{prf:conjecture} The companion derives: another\n:label: two-conj\n\n"
                 "Text.\n```\n"),
    ("code", "x = 1\nshow(figures.second(\n    x))", _figure("fig-two")),
)
DERIVATIONS = ("# Derivations\n\n(dv-sec)=\n## The model\n\n"
               "```{prf:definition} The model\n:label: dv-box\n\nText.\n```\n")
GLOSSARY = ("# Glossary\n\n```{glossary}\ncensus\n  A count.\n\nnull run\n  A run.\n```\n")


@pytest.fixture
def small_book(tmp_path) -> Path:
    (tmp_path / "book").mkdir()
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/index\nparts:\n  - caption: Chapters\n    numbered: true\n"
        "    chapters:\n      - file: book/one\n      - file: book/two\n"
        "  - caption: Back matter\n    chapters:\n      - file: book/derivations\n"
        "      - file: book/glossary\n")
    (tmp_path / "_config.yml").write_text(
        "repository:\n  url: https://github.com/Owner/name\n  branch: main\n")
    shutil.copy(ROOT / "book" / "references.bib", tmp_path / "book" / "references.bib")
    (tmp_path / "book" / "one.ipynb").write_text(dumps(ONE))
    (tmp_path / "book" / "two.ipynb").write_text(dumps(TWO))
    (tmp_path / "book" / "index.md").write_text("# Index\n")
    (tmp_path / "book" / "derivations.md").write_text(DERIVATIONS)
    (tmp_path / "book" / "glossary.md").write_text(GLOSSARY)
    return tmp_path


def test_the_book_of_the_fixture_is_named_as_the_book_names(small_book):
    book = Book(small_book)
    names = {label: t.name for label, t in book.targets.items()}
    assert names["one-conj"] == "Conjecture 1.1" and names["two-conj"] == "Conjecture 2.1"
    assert names["fig-one"] == "Fig. 1.1" and names["fig-two"] == "Fig. 2.1"
    assert names["one-ex"] == "Exercise 1.1" and names["dv-box"] == "Definition 1"
    assert names["dv-sec"] == "The model" and names["two-sec"] == "Its section"
    assert book.titles["book/two"] == "Two"
    assert book.terms["null run"].label == "null run"
    assert site_url(small_book) == SITE


def test_the_jupyterlab_reading_of_a_small_book(small_book):
    book = Book(small_book)
    one = next(d for d in notebooks(small_book) if d.name == "book/one")
    out = jupyterlab.reading(one, book)
    texts = [cell_text(c) for c in out["cells"]]
    assert texts[0] == '---\nnumbering:\n  enumerator: "1.%s"\n---\n# One\n\nThe first chapter.\n'
    assert texts[1] == cell_text(ONE["cells"][1])
    assert texts[2] == "show(figures.first(runs))  # Fig. 1.1"
    page = SITE + "book/"
    assert texts[3] == (
        "(one-sec)=\n## A section\n\n"
        "Here: {prf:ref}`one-conj`, {ref}`one-sec`, Fig. 1.1, {ref}`one-ex`.\n"
        f"Elsewhere: [Conjecture 2.1]({page}two.html#two-conj), "
        f"[Fig. 2.1]({page}two.html#fig-two), [Its section]({page}two.html#two-sec), "
        f"[Definition 1]({page}derivations.html#dv-box), "
        f"[The model]({page}derivations.html#dv-sec), [the rule]({page}two.html#two-conj).\n"
        f"Terms: [census]({page}glossary.html#term-census), "
        f"[null runs]({page}glossary.html#term-null-run).\n"
        f"Pages: [Two](two.ipynb), [the derivations]({page}derivations.html).\n"
        "Cited: Moniri and Hassani (2026), (Ba et al. 2022); a number {eval}`ns.x`.\n")
    assert texts[4] == cell_text(ONE["cells"][4])
    # nothing but the sources of those cells changes
    for cell, before in zip(out["cells"], ONE["cells"]):
        assert {k: v for k, v in cell.items() if k != "source"} == {
            k: v for k, v in before.items() if k != "source"}
    assert jupyterlab.jupyterlab_names(out) == {"one-conj": "Conjecture 1.1",
                                                "one-ex": "Exercise 1.1"}


def test_a_long_drawing_line_gets_its_name_on_a_line_above():
    wide = 'show(figures.predicted_phase_diagram(stored["E15"], stored["E16"]))'
    assert jupyterlab.with_figure_comment(wide, "Fig. 2.4") == "# Fig. 2.4\n" + wide
    assert jupyterlab.with_figure_comment("x = 1\n    show(f(x))", "Fig. 3") == (
        "x = 1\n    show(f(x))  # Fig. 3")


def test_the_reading_is_written_into_a_copy_and_never_read_again(small_book, tmp_path_factory):
    book = small_book / "book"
    before = {p.name: p.read_bytes() for p in book.iterdir()}
    out = tmp_path_factory.mktemp("reading")
    written = jupyterlab.write(out, root=small_book)
    assert sorted(p.name for p in written) == ["one.ipynb", "two.ipynb"]
    assert {p.name: p.read_bytes() for p in book.iterdir()} == before, "the sources changed"
    second = read(out / "two.ipynb")
    assert cell_text(second["cells"][2]) == "x = 1\nshow(figures.second(  # Fig. 2.1\n    x))"
    # in place, a second time: refused, and nothing is written
    jupyterlab.write(book, root=small_book, sources=book)
    once = {p.name: p.read_bytes() for p in book.iterdir()}
    with pytest.raises(ValueError, match="already a JupyterLab reading"):
        jupyterlab.write(book, root=small_book, sources=book)
    assert {p.name: p.read_bytes() for p in book.iterdir()} == once


# --- the reading of the book's chapters --------------------------------------------------------

LINK = re.compile(r"\[(?P<text>[^\[\]]*)\]\((?P<url>[^)\s]+)\)")


def _readings(out: Path) -> dict[str, dict]:
    return {p.name: read(p) for p in sorted(out.glob("*.ipynb"))}


@pytest.fixture(scope="module")
def readings(tmp_path_factory) -> dict[str, dict]:
    """The JupyterLab reading of every chapter, written by the command Binder runs (into a
    copy of the chapters, in place)."""
    folder = tmp_path_factory.mktemp("reading")
    sources = {doc.path.name: doc.path.read_bytes() for doc in notebooks()}
    for name, data in sources.items():
        (folder / name).write_bytes(data)
    proc = subprocess.run([sys.executable, "-m", "publish", "jupyterlab", "--in-place",
                           str(folder)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {doc.path.name: doc.path.read_bytes() for doc in notebooks()} == sources
    return _readings(folder)


def test_the_reading_leaves_nothing_jupyterlab_cannot_resolve(readings):
    """Every role left is one jupyterlab-myst resolves: an {eval}, or a reference to a label
    of the same notebook that is not a figure; every link is to a notebook of the book or to
    the online book, none to a page's source."""
    book = Book()
    docs = {doc.path.name: doc for doc in notebooks()}
    notebooks_here = set(docs)
    problems, online = [], 0
    for name, nb in readings.items():
        doc = docs[name]
        first = next(cell_text(c) for c in nb["cells"] if c["cell_type"] == "markdown")
        front = first.startswith(f'---\nnumbering:\n  enumerator: "{doc.chapter}.%s"\n---\n')
        if front != (doc.chapter is not None) or (doc.chapter is None and first.startswith("---")):
            problems.append(f"{name}: the numbering front matter is wrong")
        for cell in nb["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            text = cell_text(cell)
            for m in ROLE.finditer(text):
                target = book.targets.get(role_parts(m.group("text"))[1])
                if m.group("name") == "eval":
                    continue
                if (m.group("name") not in ("prf:ref", "ref", "numref") or target is None
                        or target.doc != doc.name or target.kind == "figure"):
                    problems.append(f"{name}: {m.group(0)} is left")
            for m in LINK.finditer(text):
                url = m.group("url")
                if "#line=" in url or re.search(r"\.md(#|$)", url):
                    problems.append(f"{name}: {m.group(0)} leads to a page's source")
                elif url.startswith(site_url()):
                    online += 1
                    page, _, anchor = url.removeprefix(site_url()).partition("#")
                    if page.removesuffix(".html") not in book.docs:
                        problems.append(f"{name}: {url} is no page of the book")
                elif url.endswith(".ipynb") and url not in notebooks_here:
                    problems.append(f"{name}: {m.group(0)} leads to no notebook")
    assert not problems, "\n".join(problems[:20])
    assert online >= 100


@pytest.mark.book
def test_every_online_link_of_the_reading_is_to_an_anchor_of_the_built_book(readings,
                                                                           built_book):
    """Where the book is built (the online book is that build, published): every page and
    anchor the reading links to exists (a box's label, a section's, a figure's name, a
    glossary term's id: publish/book.py's :func:`term_id`)."""
    missing = []
    for name, nb in readings.items():
        for cell in nb["cells"]:
            for m in LINK.finditer(cell_text(cell)):
                url = m.group("url")
                if not url.startswith(site_url()):
                    continue
                page, _, anchor = url.removeprefix(site_url()).partition("#")
                path = built_book / page
                if not path.exists() or (anchor and f'id="{anchor}"' not in path.read_text()):
                    missing.append(f"{name}: {url}")
    assert not missing, "\n".join(sorted(set(missing))[:20])


def test_the_term_ids_are_sphinxs():
    assert term_id("null run") == "term-null-run"
    assert term_id("BBP threshold") == "term-BBP-threshold"
    assert term_id("Lambda") == "term-Lambda"
    assert page_url("book/glossary", "term-census").endswith("/book/glossary.html#term-census")


# --- the editions, and an edit of the glossary -------------------------------------------------

def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=test", "-c", "user.email=test@example.org",
                           *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A scratch copy of the repository's files (those git knows or would add), committed in
    a repository of its own, with the editions written once."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    out = tmp_path_factory.mktemp("scratch") / "repo"
    files = _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, out / rel)
    _git(out, "init", "-q")
    _git(out, "add", "-A")
    _git(out, "commit", "-q", "-m", "scratch")
    _editions(out)
    return out


def _editions(repo: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "publish", "editions"], cwd=repo,
                          env={**os.environ, "PYTHONPATH": str(repo)},
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def _changed(repo: Path) -> set[str]:
    return {line[3:] for line in _git(repo, "status", "--porcelain").splitlines()}


def test_one_command_writes_every_edition(scratch):
    """The plain edition as committed (its own test compares it in this checkout), the
    JupyterLab reading and the student notebooks, from the sources alone."""
    assert not _changed(scratch), "the committed plain edition is not what the command writes"
    chapters = sorted(doc.path.name for doc in notebooks())
    for folder in ("_build/editions/jupyterlab", "_build/student/notebooks"):
        assert sorted(p.name for p in (scratch / folder).glob("*.ipynb")) == chapters, folder
    reading = read(scratch / "_build" / "editions" / "jupyterlab" / "two_steps.ipynb")
    first = next(cell_text(c) for c in reading["cells"] if c["cell_type"] == "markdown")
    assert first.startswith('---\nnumbering:\n  enumerator: "2.%s"')


def test_an_edited_line_of_the_glossary_changes_one_source(scratch):
    """Issue 43: one edited line of the glossary made every chapter below it stale (their
    links held its line numbers). Now the edit, and the editions written again, change the
    glossary and its plain copy only."""
    glossary = scratch / "book" / "glossary.md"
    lines = glossary.read_text().split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip() == "census") + 1
    lines.insert(at, lines[at].split(lines[at].strip())[0] + "(A line added by the test.)")
    glossary.write_text("\n".join(lines))
    _editions(scratch)
    changed = _changed(scratch)
    assert changed == {"book/glossary.md", "book/plain/glossary.md"}, changed
    sources = {p for p in changed if not p.startswith("book/plain/")}
    assert sources == {"book/glossary.md"}
    assert "(A line added by the test.)" in (scratch / "book" / "plain" / "glossary.md").read_text()


def test_nothing_changes_the_import_path():
    """One importable package: neither publish/ nor the tests put a folder on the import path
    (the name is spelled in two pieces, so that a search of the repository finds none)."""
    needle = "sys" + ".path"
    found = [f"{p.relative_to(ROOT)}:{i}" for folder in ("publish", "tests")
             for p in sorted((ROOT / folder).rglob("*.py"))
             for i, line in enumerate(p.read_text().splitlines(), 1) if needle in line]
    assert not found, found
    assert not (ROOT / "tools").exists() and not (ROOT / "book" / "_ext").exists()
