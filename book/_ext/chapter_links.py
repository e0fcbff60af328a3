"""A chapter's reference to a page of the book that is not a notebook, or to another page as a
whole, as a link JupyterLab follows, and back.

JupyterLab (4.4.9 with jupyterlab-myst 2.7.0, as requirements.txt pins them) resolves no label
of another file: {prf:ref}`Conjecture 13 <dv-finite-n>` in a chapter shows its text and links
nowhere, and so does a glossary term, {term}`census`. A Markdown link to the page's file,
relative to the chapter, does lead there: JupyterLab opens the file in its editor (its default
for a ``.md`` file) and, for the fragment ``#line=N``, puts the cursor on line N (counted
from 0) and scrolls it into view; a label as the fragment (``#dv-finite-n``) is ignored, the
page opens at its top, and a rendered Markdown preview, where the user opens one, does not
scroll to a fragment at all (measured in tests/test_jupyterlab.py). So tools/numbering.py
writes such a reference into the stored chapter as

    [Conjecture 13](derivations.md#line=474 "prf:ref dv-finite-n")

(the name the book shows; the line that shows the box: its closing fence, at most
``LINE_SPAN`` lines below its opening one, so that the box stands above the line, which
JupyterLab scrolls to the bottom of the editor), and the link's title keeps the reference, the
role and its target, which jupyterlab-myst does not show. :func:`with_roles` turns the link
back into the role, {prf:ref}`Conjecture 13 <dv-finite-n>`: the book's build does it before
MyST-NB reads the chapter (chapter_numbering.py), so the book links and numbers it as it
always did, and so do the plain edition (tools/plain_edition.py, which links to the page on
GitHub) and every tool that reads a chapter's references.

A reference to a page as a whole, {doc}`one_step`, is no better off in JupyterLab: it shows
the raw name, ``one_step``, and links nowhere. tools/numbering.py writes it as a link to the
page's file with the page's title (its ``# Title``) as the text, the title the book shows,

    [One step: a rank-one spike](one_step.ipynb "doc one_step")

which JupyterLab opens at its top (a notebook as a notebook, a ``.md`` page in its editor),
as a {doc} reference means; a role with its own text keeps that text, and the link's title
keeps the role's target in angle brackets, ``[the first chapter](one_step.ipynb "doc
<one_step>")``, so that :func:`with_roles` gives back the role as it was written,
{doc}`one_step` or {doc}`the first chapter <one_step>` (see :func:`doc_link`).

No Sphinx here: tools/numbering.py imports this module too.
"""

from __future__ import annotations

import re

#: the roles a link may stand for
ROLES = ("prf:ref", "ref", "numref", "term")
#: how far below a block's first line the line a link shows may be (module docstring)
LINE_SPAN = 20
LINK = re.compile(r"\[(?P<text>[^\[\]]*)\]\((?P<page>[^\s()\"]+\.md)#line=(?P<line>\d+)"
                  r' "(?P<role>' + "|".join(re.escape(r) for r in ROLES) + r') '
                  r'(?P<target>[^"\n]+)"\)')
#: a link :func:`doc_link` writes: to a page's file, no fragment, the role's target in its
#: title (in angle brackets where the role has its own text)
DOC_LINK = re.compile(r'\[(?P<text>[^\[\]]*)\]\((?P<page>[^\s()"#]+\.(?:ipynb|md)) '
                      r'"doc (?P<target><[^"<>\n]+>|[^"<>\n]+)"\)')


def shown_line(first: int, last: int) -> int:
    """The line (from 0) a link to a block of lines ``first`` to ``last`` shows."""
    return min(last, first + LINE_SPAN)


def link(text: str, page: str, line: int, role: str, target: str) -> str | None:
    """The link that stands for {role}`text <target>` (None where a link cannot carry it:
    brackets in the text, a quote in the target)."""
    if role not in ROLES or re.search(r"[\[\]]", text) or re.search(r'["\n]', target):
        return None
    return f'[{text}]({page}#line={line} "{role} {target}")'


def doc_link(text: str, page: str, target: str, explicit: bool) -> str | None:
    """The link that stands for {doc}`target` (``explicit``: {doc}`text <target>`) and shows
    ``text`` (the page's title, or the role's own text), None where a link cannot carry it:
    no text, brackets in it, a quote or an angle bracket in the target."""
    if (not text.strip() or re.search(r"[\[\]]", text) or re.search(r'["<>\n]', target)
            or not target.strip() or target != target.strip() or re.search(r'[\s()"#]', page)
            or not page.endswith((".ipynb", ".md"))):
        return None
    return f'[{text}]({page} "doc {f"<{target}>" if explicit else target}")'


def _doc_role(m: re.Match) -> str:
    target = m.group("target")
    if target.startswith("<"):
        return f"{{doc}}`{m.group('text')} {target}`"
    return f"{{doc}}`{target}`"


def _role(m: re.Match) -> str:
    text, target, role = m.group("text"), m.group("target"), m.group("role")
    if role == "term" and text == target:
        return f"{{term}}`{target}`"
    return f"{{{role}}}`{text} <{target}>`"


def with_roles(text: str) -> str:
    """``text`` with every link :func:`link` and :func:`doc_link` write turned back into its
    role."""
    return DOC_LINK.sub(_doc_role, LINK.sub(_role, text))
