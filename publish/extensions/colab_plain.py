"""Sphinx extension: the Colab button of a chapter opens its plain edition.

Colab renders notebook markdown without MyST, so the book's chapter notebooks show raw
boxes and roles there; ``book/plain/`` holds the same chapters written for such renderers
(publish/plain_edition.py). sphinx-book-theme builds the Colab link from the page's path in
the repository (``.../blob/<branch>/book/<page>.ipynb``); this points it at
``book/plain/<page>.ipynb`` instead. Binder (JupyterLab with jupyterlab-myst) keeps the
chapter itself.
"""

from __future__ import annotations

from pathlib import PurePosixPath

PLAIN = "plain"


def _to_plain(url: str) -> str:
    head, sep, path = url.partition("/blob/")
    branch, _, rest = path.partition("/")
    p = PurePosixPath(rest)
    return f"{head}{sep}{branch}/{p.parent / PLAIN / p.name}"


def _retarget(app, pagename, templatename, context, doctree):
    for button in context.get("header_buttons", []):
        for item in button.get("buttons", []) if isinstance(button, dict) else []:
            if item.get("text") == "Colab" and "/blob/" in item.get("url", ""):
                item["url"] = _to_plain(item["url"])


def setup(app):
    # after sphinx-book-theme's add_launch_buttons (default priority 500)
    app.connect("html-page-context", _retarget, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
