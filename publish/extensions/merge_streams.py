"""Sphinx extension: a cell's printing reaches the page as printed, however the kernel split it.

The kernel sends what a cell prints as stream messages, cut wherever its output buffer was
flushed: ``print("sizes:", sizes, ...)`` may arrive as ``"sizes: [250, 500, 1000]  "`` and
``" predicted exponent ..."``, depending on timing. MyST-NB's merge (``nb_merge_streams``,
``myst_nb.core.utils.coalesce_streams``) strips each chunk and appends a newline, so a cut
inside a line became a line break on the page (issue 44), or a blank line where the cut
fell before a newline, and the build's outputs sometimes differed from the stored ones.

This extension joins each run of consecutive stream outputs of the same name (stdout,
stderr) into one, the texts concatenated unchanged, as JupyterLab's output area joins them
and as ``python -m publish execute`` joins them in the stored chapter (publish/execute_chapter.py
uses this :func:`joined`; ``tests/test_merge_streams.py`` checks it). It wraps the execution
client's ``code_cell_outputs``, which MyST-NB asks for a code cell's outputs when it renders
the cell (in inline mode, right after running it), and writes the joined outputs back into
the cell, so the executed copy (``_build/jupyter_execute/<chapter>.ipynb``) holds what the
page shows. MyST-NB's own merge must stay off (``nb_merge_streams: false``): run after this
join it would still strip the text's trailing whitespace and add a final newline.
"""

from __future__ import annotations

import copy

from myst_nb.core.execute.base import NotebookClientBase
from myst_nb.core.execute.inline import NotebookClientInline
from sphinx.errors import ConfigError


def _text(output) -> str:
    text = output.get("text", "")
    return "".join(text) if isinstance(text, list) else text


def joined(outputs: list) -> list:
    """``outputs`` with each run of consecutive stream outputs of the same name joined into
    one output whose text is theirs concatenated, nothing stripped or added; the other
    outputs and their order unchanged. The given outputs are not modified."""
    out = []
    for output in outputs:
        if output.get("output_type") == "stream":
            last = out[-1] if out else None
            if (last is not None and last.get("output_type") == "stream"
                    and last.get("name") == output.get("name")):
                last["text"] = _text(last) + _text(output)
                continue
            output = copy.deepcopy(output)
            output["text"] = _text(output)
        out.append(output)
    return out


def _joining(code_cell_outputs):
    def wrapped(self, cell_index):
        count, outputs = code_cell_outputs(self, cell_index)
        outputs = joined(outputs)
        self.notebook["cells"][cell_index]["outputs"] = outputs
        return count, outputs
    wrapped.__wrapped__ = code_cell_outputs
    return wrapped


def _check_config(app, config):
    if config.nb_merge_streams:
        raise ConfigError(
            "nb_merge_streams must be false with publish/extensions/merge_streams.py: "
            "MyST-NB's merge strips each stream's text and adds a newline after the join")


def setup(app):
    # the base client's (every execution mode but inline: the notebook is executed, or read
    # from the cache, before it is rendered) and the inline client's (it runs the cells up
    # to the one asked for)
    for client in (NotebookClientBase, NotebookClientInline):
        method = client.__dict__["code_cell_outputs"]
        if not getattr(method, "__wrapped__", None):
            client.code_cell_outputs = _joining(method)
    app.connect("config-inited", _check_config)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
