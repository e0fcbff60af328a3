"""Sphinx extension: record what every ``{eval}`` role of a chapter showed in the build.

MyST-NB (``nb_execution_mode: inline``) evaluates each ``{eval}`` expression in the chapter's
kernel while it renders the page, and keeps no record of the result. This extension keeps
one: for each chapter, the expressions in reading order with the text the page shows, in
``_build/jupyter_execute/<chapter>.eval.json`` beside the executed notebook. The tests
compare it with the values stored in the notebook (``tests/test_book.py``), as they compare
the code cells' outputs, so the stored prose numbers that JupyterLab shows before a run and
the plain edition prints (publish/plain_edition.py) are the numbers the build computes.
"""

from __future__ import annotations

import json
from pathlib import Path

from myst_nb.core.execute.inline import NotebookClientInline

_RECORDS: dict[str, list[dict]] = {}


def _recording(eval_variable):
    def wrapped(self, name):
        outputs = eval_variable(self, name)
        texts = [o.get("data", {}).get("text/plain") for o in outputs
                 if o.get("output_type") in ("execute_result", "display_data")]
        _RECORDS.setdefault(str(self.path), []).append(
            {"expression": name, "text/plain": texts[0] if texts else None})
        return outputs
    wrapped.__wrapped__ = eval_variable
    return wrapped


def _forget(app, env, docname):
    """A chapter read again starts a new record (its source path is the key)."""
    _RECORDS.pop(str(Path(env.doc2path(docname))), None)


def _write(app, exception):
    if exception is not None:
        return
    out = Path(app.outdir).parent / "jupyter_execute"
    for source, record in _RECORDS.items():
        docname = app.env.path2doc(source)
        if docname is None:
            continue
        target = out.joinpath(*(docname + ".eval.json").split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(record, indent=1) + "\n", encoding="utf8")


def setup(app):
    if not getattr(NotebookClientInline.eval_variable, "__wrapped__", None):
        NotebookClientInline.eval_variable = _recording(NotebookClientInline.eval_variable)
    app.connect("env-purge-doc", _forget)
    app.connect("build-finished", _write)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
