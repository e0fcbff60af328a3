"""The plain edition: every chapter as a notebook that reads well without MyST.

Colab, GitHub's preview, VS Code and classic Jupyter render notebook markdown as CommonMark
with math: a MyST box (```{prf:theorem}```, ```{exercise}```) shows there as a code fence
with raw LaTeX, and a role ({eval}`x`, {doc}`two_steps`) as literal text. This script writes
each chapter of the book (the ``.ipynb`` files of ``_toc.yml``) to ``book/plain/`` with

* every box as a headed blockquote (**Theorem (The paper states ...).** then the text);
* every ``{eval}`` role replaced by the value stored in the notebook (the values of the last
  top-to-bottom run, ``python -m publish execute``; the book's build shows the same ones,
  ``tests/test_book.py`` checks it);
* cross-references as text, by the names the book shows (publish/book.py):
  a box as "Conjecture 2.1", a figure as "Fig. 2.4", a section by its heading, each with a
  link to the plain notebook of another chapter or to the plain page of the derivations
  (``book/plain/derivations.md``); a chapter as a link to its plain notebook; a glossary
  term ({term}`census`) as a link to the plain glossary (``book/plain/glossary.md``);
  citations as "Author et al. (year)";
* every box headed by its name and title (**Conjecture 2.1 (The companion derives: ...).**),
  each figure's caption (in the drawing cell's metadata in the book) as a markdown cell
  under the figure, headed by its name; label lines ``(name)=`` removed; every cell kept,
  outputs included, so the Colab install cell is there and the stored figures show before
  anything runs.

The derivations page and the glossary, which are pages of the book and not notebooks, are
written to ``book/plain/`` as plain Markdown as well; the notebooks link to them on the
repository's site (``repository.url`` of ``_config.yml``), where GitHub renders them and
where a link from Colab reaches them.

``tests/test_plain_edition.py`` checks that ``book/plain/`` is what this script writes now,
and renders every notebook with nbconvert's HTML exporter (no MyST) to find no raw MyST and
every stored number. The student edition (publish/student_edition.py) is made from it.
``python -m publish execute`` writes it after running a chapter; ``make editions`` writes it
with the other editions.

Usage: ``make plain`` or ``python -m publish plain [--out DIR]``.
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

from publish import book as names
from publish.sources import (
    CITATIONS,
    DIRECTIVE,
    LABEL_LINE,
    REFERENCES,
    ROLE,
    ROOT,
    blob_url,
    cell_text,
    chapters,
    dumps,
    figure,
    options,
    read,
    role_parts,
)

OUT = ROOT / "book" / "plain"
#: the book's pages (not notebooks) that the plain edition writes as plain Markdown
PAGES = ["book/derivations", "book/glossary"]
KINDS = {"prf:theorem": "Theorem", "prf:conjecture": "Conjecture",
         "prf:observation": "Observation", "prf:definition": "Definition",
         "prf:lemma": "Lemma", "prf:proof": "Proof", "exercise": "Exercise",
         "note": "Note", "warning": "Warning", "important": "Important"}
NOTICE = ("*This is the plain edition of this chapter, for Colab, GitHub, VS Code and any "
          "Jupyter without the MyST extension: boxes are quotes, cross-references are text, "
          "and the numbers in the prose are those of the book's last run (they do not change "
          "when you rerun the cells; the outputs do). The book itself: `book/{stem}.ipynb`, "
          "built with Jupyter Book.*")
#: the kernelspec JupyterLab writes into a notebook it opens (measured with JupyterLab 4.4.9
#: and ipykernel 7.4.0 of requirements.txt: opened, waited, saved, diffed). A notebook that
#: stores another one (nbformat's and Jupyter Book's "Python 3") is marked modified as soon
#: as it is opened and autosave rewrites it: every notebook of the book and of its editions
#: stores this one (tests/test_plain_edition.py; tests/test_jupyterlab.py opens each in
#: JupyterLab and compares the file byte for byte)
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


class Book(names.Book):
    """What the book knows (publish/book.py: every label's name, the titles, the terms, the
    bibliography), with the plain edition's links: to another chapter's plain notebook, and
    to the plain pages of the derivations and the glossary on the repository's site."""

    def __init__(self, root: Path = ROOT):
        super().__init__(root)
        self.pages = {Path(doc).name for doc in PAGES}
        self.stem_titles = {Path(doc).name: title for doc, title in self.titles.items()}

    def where(self, label: str, stem: str) -> tuple[str, str]:
        """(the document's stem, the name shown) of ``label`` (a missing one: its label)."""
        target = self.targets.get(label)
        if target is None:
            return stem, label
        name = target.name if target.numbered else f"“{target.name}”"
        return Path(target.doc).name, name

    def chapter_link(self, stem: str, label: str | None = None,
                     title: str | None = None) -> str:
        title = title or self.stem_titles.get(stem, stem)
        if stem in self.pages:
            anchor = f"#{label}" if label else ""
            return f"[{title}]({blob_url(self.root)}/book/plain/{stem}.md{anchor})"
        if (self.root / "book" / f"{stem}.md").exists():   # a page of the book, as its source
            return f"[{title}]({blob_url(self.root)}/book/{stem}.md)"
        return f"[{title}]({stem}.ipynb)"

    def term_link(self, term: str, shown: str, stem: str) -> str:
        """A glossary term as a link to its entry on the plain glossary page."""
        page = "" if stem == "glossary" else f"{blob_url(self.root)}/book/plain/glossary.md"
        return f"[{shown}]({page}#{term_anchor(term)})"


# --- one notebook ----------------------------------------------------------------------------

def as_jupyterlab_writes(nb: dict) -> dict:
    """``nb`` with the kernelspec JupyterLab writes (:data:`KERNELSPEC`), so that opening it
    in JupyterLab does not modify it."""
    nb.setdefault("metadata", {})["kernelspec"] = dict(KERNELSPEC)
    return nb


def stored_values(cell: dict) -> dict[str, str]:
    """expression -> the text stored for it in the cell (jupyterlab-myst's format, written
    by ``python -m publish execute``), without the quotes of a string's repr."""
    out = {}
    for item in cell.get("metadata", {}).get("user_expressions", []):
        text = item.get("result", {}).get("data", {}).get("text/plain", "")
        text = "".join(text) if isinstance(text, list) else text
        out[item["expression"]] = re.sub(r"^(['\"])(.*)\1$", r"\2", text, flags=re.S)
    return out


def with_stored_values(text: str, values: dict[str, str], where: str) -> str:
    """``text`` with each {eval}`x` replaced by its stored value (a missing one is an error:
    the chapter was not executed with ``python -m publish execute`` since the role was
    added)."""
    def value(m):
        expr = m.group(1)
        if expr not in values:
            raise KeyError(f"{where}: no stored value for {{eval}}`{expr}`; run "
                           f"`python -m publish execute` on the chapter")
        return values[expr]
    return re.sub(r"\{eval\}`([^`]*)`", value, text)


def term_anchor(term: str) -> str:
    """The anchor GitHub gives the heading of ``term`` on the plain glossary page."""
    return re.sub(r"[^a-z0-9 -]", "", term.lower()).replace(" ", "-")


def plain_roles(text: str, book: Book, stem: str) -> str:
    """Every remaining role as plain text or a link."""
    def role(m):
        name, arg = m.group("name"), m.group("text")
        shown, target = role_parts(arg)
        if name in REFERENCES:
            where, title = book.where(target, stem)
            text = shown if shown is not None else title
            if name == "numref":
                text = text.replace("%s", title.split(" ")[-1])
            link = book.chapter_link(where, target)
            return text if where == stem else f"{text} in {link}"
        if name == "term":
            return book.term_link(target, shown if shown is not None else arg, stem)
        if name == "doc":
            return book.chapter_link(target, title=shown)
        if name in CITATIONS:
            return book.cite(arg, textual=name == "cite:t")
        if name in ("math",):
            return f"${arg}$"
        return arg
    return ROLE.sub(role, text)


def _quote(text: str) -> str:
    return "\n".join("> " + line if line.strip() else ">" for line in text.split("\n"))


def plain_glossary(body: str, book: Book, stem: str) -> str:
    """A ``{glossary}`` directive's body (each term on a line of its own, its definition
    indented below it) as a heading per term and its definition."""
    out, term, lines = [], None, []

    def flush():
        if term is not None:
            out.append(f"### {term}\n\n" + "\n".join(lines).strip() + "\n")

    for line in body.split("\n"):
        if line.strip() and not line.startswith((" ", "\t")):
            flush()
            term, lines = line.strip(), []
        else:
            lines.append(line.strip())
    flush()
    return "\n".join(out)


def plain_markdown(text: str, book: Book, stem: str, anchors: bool = False) -> str:
    """A markdown cell of the book as CommonMark: boxes as headed blockquotes (with an HTML
    anchor named by its label, with ``anchors``: for the pages others link into), label
    lines removed, roles as text."""
    def box(m):
        name, arg = m.group("name"), m.group("arg").strip()
        opts, body = options(m.group("body"))
        if name == "solution-start":
            target = book.targets.get(arg)
            title = (f"{target.name} ({target.title})" if target is not None and target.title
                     else target.name if target is not None else "the exercise")
            return f"**Solution** of {title}.\n"
        if name == "solution-end":
            return ""
        if name == "glossary":
            return plain_glossary(body, book, stem)
        kind = KINDS.get(name, name.split(":")[-1].capitalize())
        target = book.targets.get(opts.get("label", ""))
        if target is not None and target.numbered:
            kind = target.name
        head = f"**{kind} ({arg}).**" if arg else f"**{kind}.**"
        if name == "admonition":            # a box headed by its own title (a dropdown's)
            head = f"**{arg}.**"
        anchor = f'<a name="{opts["label"]}"></a>\n\n' if "label" in opts and anchors else ""
        return anchor + _quote(f"{head}\n\n{body}") + "\n"
    text = LABEL_LINE.sub("", text)
    text = DIRECTIVE.sub(box, text)
    return plain_roles(text, book, stem).strip("\n")


def _markdown_cell(source: str, cell_id: str, metadata: dict | None = None) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": metadata or {},
            "source": source}


def alt_text(caption: str, name: str | None = None) -> str:
    """A figure's alternative text: its caption's first sentence as plain text (no markdown,
    no LaTeX delimiters, no roles), prefixed with its name ("Fig. 2.4")."""
    text = re.sub(r"\{[\w:-]+\}`([^`]*)`", r"\1", caption)        # a role: its content
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)            # a link: its text
    text = re.sub(r"\\(?:mathrm|text|mathbf|operatorname)\{([^}]*)\}", r"\1", text)
    text = re.sub(r"\\([A-Za-z]+)", r"\1", text)                     # \tanh -> tanh
    for mark in ("$", "`", "**", "{", "}", "\\"):
        text = text.replace(mark, "")
    text = re.sub(r"\s+", " ", text).strip()
    first = re.split(r"(?<=[a-z0-9)])\. ", text, maxsplit=1)[0].rstrip(".")
    return (f"{name}: " if name else "") + (first or "a figure drawn by this cell")


def with_alt_text(cell: dict, alt: str) -> dict:
    """The code cell with ``alt`` as the alternative text of each image it outputs (the
    output's metadata, which nbconvert and JupyterLab read)."""
    for out in cell.get("outputs", []):
        for mime in [m for m in out.get("data", {}) if m.startswith("image/")]:
            out.setdefault("metadata", {}).setdefault(mime, {})["alt"] = alt
    return cell


def plain_notebook(path: Path, book: Book) -> dict:
    """The plain edition of the chapter at ``path`` (a new notebook dict)."""
    nb = copy.deepcopy(read(path))
    stem, cells = path.stem, []
    for cell in nb["cells"]:
        values = stored_values(cell)
        meta = cell.get("metadata", {})
        fig = figure(cell)
        for key in ("user_expressions", "mystnb"):
            meta.pop(key, None)
        if cell["cell_type"] == "markdown":
            text = with_stored_values(cell_text(cell), values, f"{stem}.ipynb")
            text = plain_markdown(text, book, stem)
            if text.strip():
                cells.append(_markdown_cell(text, cell["id"], meta))
            continue
        cells.append(cell)
        if fig is None:
            with_alt_text(cell, alt_text("", None))
        if fig is not None:
            caption = with_stored_values(str(fig.get("caption", "")), values, f"{stem}.ipynb")
            name = book.targets[fig["name"]].name
            with_alt_text(cell, alt_text(plain_roles(caption, book, stem), name))
            cells.append(_markdown_cell(
                f"**{name}.** {plain_roles(caption, book, stem)}",
                f"{cell['id']}-caption", copy.deepcopy(meta)))
    # after the title's cell (the first markdown cell: code cells may come before it)
    title = next((i for i, c in enumerate(cells) if c["cell_type"] == "markdown"), 0)
    cells.insert(title + 1, _markdown_cell(NOTICE.format(stem=stem), "plain-edition-notice"))
    nb["cells"] = renumbered(cells)
    return as_jupyterlab_writes(nb)


def with_values_stored_inline(nb: dict, where: str) -> dict:
    """A copy of the notebook (still MyST) whose {eval} roles, in markdown and in figure
    captions, are replaced by their stored values: what a build that does not execute (the
    student edition's, ``execute_notebooks: off``) can render."""
    nb = copy.deepcopy(nb)
    for cell in nb["cells"]:
        values = stored_values(cell)
        if cell["cell_type"] == "markdown":
            cell["source"] = with_stored_values(cell_text(cell), values, where)
        elif (fig := figure(cell)) is not None:
            fig["caption"] = with_stored_values(str(fig.get("caption", "")), values, where)
    return nb


def renumbered(cells: list[dict]) -> list[dict]:
    """Execution counts 1, 2, 3, ... over the code cells kept (an edition that drops cells
    must not show counts that jump)."""
    count = 0
    for cell in cells:
        if cell["cell_type"] != "code" or cell.get("execution_count") is None:
            continue
        count += 1
        cell["execution_count"] = count
        for out in cell.get("outputs", []):
            if "execution_count" in out:
                out["execution_count"] = count
    return cells


PAGE_NOTICE = ("*This is the plain edition of a page of the book, `{doc}.md`, for readers of the "
               "plain notebooks: boxes are quotes and cross-references are text; in the book "
               "it is built with Jupyter Book.*")


def plain_page(doc: str, book: Book) -> str:
    """The plain Markdown of the book's page ``doc`` (``book/derivations``): its title, a
    notice, and the rest as :func:`plain_markdown` writes it, each box preceded by an anchor
    named by its label."""
    text = plain_markdown((ROOT / (doc + ".md")).read_text(), book, Path(doc).name,
                          anchors=True)
    title, _, rest = text.partition("\n")
    return f"{title}\n\n{PAGE_NOTICE.format(doc=doc)}\n{rest}\n"


def write(out: Path = OUT) -> list[Path]:
    paths = chapters()
    book = Book()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in paths:
        target = out / path.name
        target.write_text(dumps(plain_notebook(path, book)))
        written.append(target)
    for doc in PAGES:
        target = out / (Path(doc).name + ".md")
        target.write_text(plain_page(doc, book))
        written.append(target)
    for stale in (set(out.glob("*.ipynb")) | set(out.glob("*.md"))) - set(written):
        stale.unlink()
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish plain",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    for path in write(args.out):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
