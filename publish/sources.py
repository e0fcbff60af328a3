"""The book's sources as every edition, tool and test reads them: the table of contents (the
one reader of ``_toc.yml``), the configuration's addresses, the notebooks' cells, and the one
grammar of the MyST the chapters are written in (directives, roles, labels, headings).

Nothing here writes a file. A chapter's Markdown holds its references as a person writes
them, {prf:ref}`label`, {numref}`fig-name`, {ref}`label`, {term}`word`, {doc}`page`,
{cite:p}`key` (book/CONVENTIONS.md); what each edition shows in their place is computed from
these sources by the edition's module (publish/plain_edition.py, publish/jupyterlab.py).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

#: the repository's root (publish/ is a folder of it, never installed elsewhere)
ROOT = Path(__file__).resolve().parents[1]

# --- the grammar ---------------------------------------------------------------------------------

#: ```{name} argument ... ``` (three or more backticks; the closing fence has as many)
DIRECTIVE = re.compile(r"^(?P<fence>`{3,})\{(?P<name>[^}]+)\}[ \t]*(?P<arg>[^\n]*)\n"
                       r"(?P<body>.*?)^(?P=fence)[ \t]*$\n?", re.M | re.S)
#: a front matter at the top of a notebook's first markdown cell (the JupyterLab reading's
#: numbering; never in the sources)
FRONT_MATTER = re.compile(r"\A---\n(?P<yaml>.*?\n)---[ \t]*\n", re.S)
#: a directive fence's opening with the directive's name (```` ```{prf:theorem} ````), or a
#: closing fence (backticks or colons)
FENCE = re.compile(r"^(?:`{3,}|:{3,})(?:\{[^}]+\}|[ \t]*$)", re.M)
#: a directive's option line, ``:label: ts-conj-x``
OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*)$", re.M)
#: any role, {name}`text`
ROLE = re.compile(r"\{(?P<name>[a-z][a-z:\-]*)\}`(?P<text>[^`]*)`")
#: the roles that refer to a label of the book
REFERENCES = ("prf:ref", "ref", "numref")
#: the roles that cite the bibliography (book/references.bib)
CITATIONS = ("cite", "cite:p", "cite:t")
#: a label line ``(label)=``
LABEL_LINE = re.compile(r"^\((?P<label>[A-Za-z0-9_\-:.]+)\)=[ \t]*\n", re.M)
#: a label line and the heading it labels where one follows
TARGET = re.compile(r"^\((?P<label>[A-Za-z0-9_\-:.]+)\)=[ \t]*\n(?P<heading>#+[ \t]+[^\n]+)?",
                    re.M)
#: a heading line, ``## Title``
HEADING = re.compile(r"^(?P<marks>#+)[ \t]+(?P<title>[^\n]*?)[ \t]*$", re.M)
#: the first line of an exercise's text: ``**kind** · level · about N min``
#: (book/CONVENTIONS.md, "Exercises")
EXERCISE_META = re.compile(r"^\*\*(?P<kind>[^*]+)\*\* · (?P<level>\w+) · about "
                           r"(?P<minutes>\d+) min\s*$", re.M)
#: an {eval} role's expression
EVAL_ROLE = re.compile(r"\{eval\}`([^`]+)`")
#: a ``{glossary}`` directive: each term on a line of its own, its definition indented below
GLOSSARY = re.compile(r"^(?P<fence>`{3,})\{glossary\}[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                      re.M | re.S)
GLOSSARY_TERM = re.compile(r"^(?![ \t])(?P<term>\S[^\n]*)$", re.M)


def options(body: str) -> tuple[dict[str, str], str]:
    """A directive's ``:key: value`` lines (at the top of its body) and the rest of it."""
    opts, lines = {}, body.split("\n")
    while lines and (m := OPTION.match(lines[0])):
        opts[m.group("key")] = m.group("value").strip()
        lines.pop(0)
    return opts, "\n".join(lines).strip("\n")


def role_parts(text: str) -> tuple[str | None, str]:
    """(the role's own text or None, its target) of a role's content: ``words <target>`` or
    ``target``."""
    m = re.match(r"^(.*?)\s*<([^<>]+)>$", text, re.S)
    return (m.group(1), m.group(2)) if m else (None, text.strip())


# --- notebooks -----------------------------------------------------------------------------------

def cell_text(cell: dict) -> str:
    """A cell's source as one string (nbformat stores a list of lines or a string)."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def figure(cell: dict) -> dict | None:
    """The figure a code cell draws for the book (``mystnb.figure`` of its metadata: name,
    caption), or None."""
    return cell.get("metadata", {}).get("mystnb", {}).get("figure")


def read(path: Path) -> dict:
    return json.loads(Path(path).read_text())


def dumps(nb: dict) -> str:
    """The notebook as nbformat writes it, and JupyterLab saves it: sorted keys, texts split
    into lines, a final newline (stable: the tests compare the text)."""
    import nbformat
    return nbformat.writes(nbformat.from_dict(copy.deepcopy(nb)), version=4) + "\n"


# --- the table of contents -----------------------------------------------------------------------

@dataclass(frozen=True)
class Doc:
    """A document of ``_toc.yml``: its name (``book/two_steps``), its chapter number (None
    outside a numbered part) and its source (``.ipynb`` or ``.md``; None if missing)."""

    name: str
    chapter: int | None
    path: Path | None

    @property
    def stem(self) -> str:
        return self.name.rsplit("/", 1)[-1]

    @property
    def notebook(self) -> bool:
        return self.path is not None and self.path.suffix == ".ipynb"


def source(doc: str, root: Path = ROOT) -> Path | None:
    """The source of the document ``doc`` (``book/two_steps``): its .ipynb or its .md."""
    for suffix in (".ipynb", ".md"):
        if (root / (doc + suffix)).exists():
            return root / (doc + suffix)
    return None


def toc(root: Path = ROOT) -> list[Doc]:
    """Every document of ``_toc.yml`` in reading order (the root first), each with the number
    Sphinx gives it as a chapter of a numbered part (``use_multitoc_numbering``)."""
    data = yaml.safe_load((root / "_toc.yml").read_text())
    docs = [Doc(data["root"], None, source(data["root"], root))]
    number = 0

    def walk(entries, numbered):
        nonlocal number
        for entry in entries or []:
            if "file" in entry:
                if numbered:
                    number += 1
                docs.append(Doc(entry["file"], number if numbered else None,
                                source(entry["file"], root)))
            walk(entry.get("sections"), False)

    for part in data.get("parts", []):
        walk(part.get("chapters"), bool(part.get("numbered")))
    walk(data.get("chapters"), False)
    return docs


def notebooks(root: Path = ROOT) -> list[Doc]:
    """The documents of ``_toc.yml`` that are notebooks (the chapters, the explorer)."""
    return [doc for doc in toc(root) if doc.notebook]


def chapters(root: Path = ROOT) -> list[Path]:
    """The notebooks of ``_toc.yml``, in reading order."""
    return [doc.path for doc in notebooks(root)]


# --- the configuration ---------------------------------------------------------------------------

def config(root: Path = ROOT) -> dict:
    return yaml.safe_load((root / "_config.yml").read_text())


def repository(root: Path = ROOT) -> tuple[str, str]:
    """The repository's address and branch (``_config.yml``, ``repository``)."""
    repo = config(root)["repository"]
    return repo["url"].rstrip("/"), repo.get("branch", "main")


def blob_url(root: Path = ROOT) -> str:
    """The base of the repository's files' pages on GitHub:
    ``https://github.com/OWNER/NAME/blob/BRANCH``."""
    url, branch = repository(root)
    return f"{url}/blob/{branch}"


def site_url(root: Path = ROOT) -> str:
    """The book's online address, where GitHub Pages serves the repository's build:
    ``https://OWNER.github.io/NAME/`` for ``https://github.com/OWNER/NAME``."""
    url, _ = repository(root)
    owner, name = url.removeprefix("https://github.com/").split("/")[:2]
    return f"https://{owner.lower()}.github.io/{name}/"


def page_url(doc: str, anchor: str | None = None, root: Path = ROOT) -> str:
    """The online page of the document ``doc`` (``book/two_steps``), at ``anchor``."""
    return site_url(root) + doc + ".html" + (f"#{anchor}" if anchor else "")
