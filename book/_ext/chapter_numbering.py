"""Sphinx extension: a chapter's numbering front matter is for JupyterLab, not for the book.

Each numbered chapter's first markdown cell starts with a front matter that tells
jupyterlab-myst to number the chapter's boxes and exercises as the book does
(``numbering: enumerator: "2.%s"``: "Conjecture 2.1"; tools/numbering.py writes it). MyST-NB
reads a markdown cell's ``---`` line as a transition and the YAML as text, so this removes the
front matter from the notebook's text before MyST-NB parses it (Sphinx's ``source-read``),
after checking that its number is the chapter's number in ``_toc.yml`` as Sphinx counts it
(a stale one is a warning: the strict build fails).

It also turns each chapter's links to a page that is not a notebook, which tools/numbering.py
writes for JupyterLab ([Conjecture 13](derivations.md#line=474 "prf:ref dv-finite-n")), back
into the references they stand for ({prf:ref}`Conjecture 13 <dv-finite-n>`;
chapter_links.py), and its links to another page as a whole ([One step: a rank-one
spike](one_step.ipynb "doc one_step")) back into {doc}`one_step`, so that the book links and
numbers them as before.
"""

from __future__ import annotations

import json
import re

from chapter_links import with_roles
from sphinx.util import logging

logger = logging.getLogger(__name__)

FRONT_MATTER = re.compile(r"\A---\n(?P<yaml>.*?\n)---[ \t]*\n", re.S)
ENUMERATOR = re.compile(r"""enumerator:\s*["']?(?P<chapter>\d+)\.%s["']?""")


def _chapter_numbers(app) -> dict[str, int]:
    """docname -> chapter number of the numbered part of _toc.yml (sphinx-external-toc's
    site map, in the order Sphinx numbers them)."""
    site_map = getattr(app.config, "external_site_map", None)
    numbers, count = {}, 0
    if site_map is None:
        return numbers
    for doc in site_map[site_map.root.docname].subtrees:
        for name in doc.items if doc.numbered else []:
            count += 1
            numbers[str(name)] = count
    return numbers


def _text(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _without_front_matter(app, docname: str, text: str) -> str:
    m = FRONT_MATTER.match(text)
    if m is None:
        return text
    expected = _chapter_numbers(app).get(docname)
    stated = ENUMERATOR.search(m.group("yaml"))
    if stated is None or expected is None or int(stated.group("chapter")) != expected:
        logger.warning(f"{docname}: the numbering front matter says "
                       f"{stated.group(0) if stated else m.group('yaml').strip()!r}, the "
                       f"chapter's number is {expected}: run tools/numbering.py",
                       location=docname)
    return text[m.end():]


def _strip(app, docname: str, source: list[str]) -> None:
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    try:
        nb = json.loads(source[0])
    except ValueError:
        return
    cells = [c for c in nb.get("cells", []) if c.get("cell_type") == "markdown"]
    changed = False
    for i, cell in enumerate(cells):
        text = _text(cell)
        new = with_roles(_without_front_matter(app, docname, text) if i == 0 else text)
        if new != text:
            cell["source"] = new
            changed = True
    if changed:
        source[0] = json.dumps(nb)


def setup(app):
    app.connect("source-read", _strip)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
