"""Every inline script of a page once: without it, every page of the book throws
"Identifier 'THEBE_JS_URL' has already been declared" in the browser console.

The cause (Sphinx 7.4.7, the version Jupyter Book 1 installs here): an extension that adds
an inline script (``app.add_js_file(None, body=...)``) after the HTML builder was set up
registers it twice, in the registry and directly in the builder with the filename ``None``;
before writing, the builder adds the registry's scripts again as ``filename or ''``, and
``''`` is not ``None``, so the page gets two copies. sphinx-thebe adds its configuration
(``const THEBE_JS_URL = ...``) that way on ``env-before-read-docs``, and a ``const``
declared twice is a SyntaxError (sphinx-togglebutton's ``var`` twice is silent).

After the sources are read, this drops the builder's copies with the filename ``None``:
the registry's, re-added before writing, are the ones the pages keep.
tests/test_console.py loads every built page and finds no console error.
"""

from __future__ import annotations


def _drop_unnamed_copies(app, env):
    scripts = getattr(app.builder, "_js_files", None)
    if scripts is not None:
        scripts[:] = [js for js in scripts if js.filename is not None]


def setup(app):
    app.connect("env-updated", _drop_unnamed_copies)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
