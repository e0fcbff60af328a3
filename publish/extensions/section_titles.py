"""Sphinx extension: a reference to a section shows its title as the page shows it, math included.

{ref}`label` to a heading shows the heading's words, which Sphinx takes as plain text: a
heading with math ("The outlier that carries a $\\mathrm{He}_3$ direction") showed its LaTeX
source in every link to it ("... a \\mathrm{He}_3 direction"), where JupyterLab and the plain
edition show the formula. After the references are resolved, this gives such a link (one
that shows the section's own title, not words of the author's) a copy of the title's nodes,
text and math, so that MathJax renders it as in the heading.
"""

from __future__ import annotations

from docutils import nodes


def _sections(std) -> dict[tuple[str, str], str]:
    """(docname, the section's id) -> its title as plain text, for every labelled section."""
    return {(doc, labelid): name for doc, labelid, name in std.labels.values() if name}


def _title_nodes(app, doctree, docname: str, here: str, labelid: str):
    tree = doctree if docname == here else app.env.get_doctree(docname)
    for section in tree.findall(nodes.section):
        if labelid in section["ids"] and isinstance(section[0], nodes.title):
            return [child.deepcopy() for child in section[0].children]
    return None


def _with_math(app, doctree, docname: str) -> None:
    sections = _sections(app.env.get_domain("std"))
    for ref in list(doctree.findall(nodes.reference)):
        inner = ref.children[0] if ref.children else None
        if not isinstance(inner, nodes.inline) or "std-ref" not in inner.get("classes", []):
            continue
        if ref.get("refid"):
            key = (docname, ref["refid"])
        else:
            uri, _, anchor = (ref.get("refuri") or "").partition("#")
            target = next((d for d in app.env.all_docs
                           if uri and app.builder.get_relative_uri(docname, d) == uri), None)
            key = (target, anchor)
        name = sections.get(key)
        if name is None or inner.astext() != name or "\\" not in name:
            continue
        title = _title_nodes(app, doctree, key[0], docname, key[1])
        if title and any(isinstance(n, nodes.math) for n in title):
            inner.children = []
            inner.extend(title)


def setup(app):
    app.connect("doctree-resolved", _with_math)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
