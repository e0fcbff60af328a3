"""Sphinx extension: a chapter's numbering front matter is for JupyterLab, not for the book.

Each numbered chapter's first markdown cell starts with a front matter that tells
jupyterlab-myst to number the chapter's boxes and exercises as the book does
(``numbering: enumerator: "2.%s"``: "Conjecture 2.1"; tools/numbering.py writes it). MyST-NB
reads a markdown cell's ``---`` line as a transition and the YAML as text, so this removes the
front matter from the notebook's text before MyST-NB parses it (Sphinx's ``source-read``),
after checking that its number is the chapter's number in ``_toc.yml`` as Sphinx counts it
(a stale one is a warning: the strict build fails).
"""

from __future__ import annotations

import json
import re

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


def _strip(app, docname: str, source: list[str]) -> None:
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    try:
        nb = json.loads(source[0])
    except ValueError:
        return
    cells = [c for c in nb.get("cells", []) if c.get("cell_type") == "markdown"]
    if not cells:
        return
    first = cells[0]
    text = "".join(first["source"]) if isinstance(first["source"], list) else first["source"]
    m = FRONT_MATTER.match(text)
    if m is None:
        return
    expected = _chapter_numbers(app).get(docname)
    stated = ENUMERATOR.search(m.group("yaml"))
    if stated is None or expected is None or int(stated.group("chapter")) != expected:
        logger.warning(f"{docname}: the numbering front matter says "
                       f"{stated.group(0) if stated else m.group('yaml').strip()!r}, the "
                       f"chapter's number is {expected}: run tools/numbering.py",
                       location=docname)
    first["source"] = text[m.end():]
    source[0] = json.dumps(nb)


def setup(app):
    app.connect("source-read", _strip)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
