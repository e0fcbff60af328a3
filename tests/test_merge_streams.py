"""A cell's printing is shown as printed, however the kernel split it into stream messages
(issue 44).

The kernel cuts what a cell prints wherever its buffer is flushed, so one ``print`` may
arrive in two stream outputs. The book's build joins them (``joined`` in
publish/extensions/merge_streams.py, through MyST-NB's ``code_cell_outputs``) and the tool
that stores the chapters (publish/execute_chapter.py) joins them with the same function: one
line exactly as printed, with no whitespace stripped, no newline added and no text lost.
(tests/test_inline_mode.py builds a page from such a cell;
tests/test_book.py compares the build's outputs with the stored ones exactly.)
"""

from __future__ import annotations

from types import SimpleNamespace

import nbformat
import pytest
from myst_nb.core.config import NbParserConfig
from myst_nb.core.execute.base import NotebookClientBase
from sphinx.errors import ConfigError

from publish import execute_chapter
from publish.extensions import merge_streams

JOINS = {"build (merge_streams.joined)": merge_streams.joined}


def test_the_stored_chapter_is_joined_as_the_build_joins():
    assert execute_chapter.joined is merge_streams.joined


stream = nbformat.v4.new_output


def _out(text, name="stdout"):
    return stream("stream", name=name, text=text)


#: (what the code printed, the chunks it reached the kernel's client in)
SPLIT = {
    "a cut inside a line": ("sizes: 1 2 3\n", ["sizes: 1 2", " 3\n"]),
    "a cut after spaces (two_steps, code cell 27)": (
        "sizes: [250, 500, 1000]   predicted exponent of T_1: +0.15\n",
        ["sizes: [250, 500, 1000]  ", " predicted exponent of T_1: +0.15\n"]),
    "a cut before the newline": ("Right: 0.15\nnext\n", ["Right: 0.15", "\n", "next\n"]),
    "no final newline, trailing spaces": ("end  \n  last  ", ["end  ", "\n  ", "last  "]),
    "a chunk per character": ("a b\n c\n", list("a b\n c\n")),
    "blank lines printed": ("one\n\n\ntwo\n", ["one\n", "\n", "\ntwo\n"]),
}


@pytest.mark.parametrize("join", JOINS.values(), ids=JOINS.keys())
@pytest.mark.parametrize("printed, chunks", SPLIT.values(), ids=SPLIT.keys())
def test_split_printing_is_joined_exactly_as_printed(join, printed, chunks):
    outputs = join([_out(chunk) for chunk in chunks])
    assert [(o["output_type"], o["name"]) for o in outputs] == [("stream", "stdout")]
    assert outputs[0]["text"] == printed


@pytest.mark.parametrize("join", JOINS.values(), ids=JOINS.keys())
def test_only_consecutive_outputs_of_one_stream_are_joined(join):
    figure = nbformat.v4.new_output("display_data", data={"text/plain": "<Figure>"})
    outputs = join([_out("a"), _out("b\n"), _out("warn", "stderr"), _out("c "), _out("d\n"),
                    figure, _out("e"), _out("\n")])
    assert [(o["output_type"], o.get("name"), o.get("text")) for o in outputs] == [
        ("stream", "stdout", "ab\n"), ("stream", "stderr", "warn"),
        ("stream", "stdout", "c d\n"), ("display_data", None, None),
        ("stream", "stdout", "e\n")]


def test_the_build_join_leaves_its_input_alone():
    chunks = [_out("sizes: 1 2"), _out(" 3\n")]
    merge_streams.joined(chunks)
    assert [o["text"] for o in chunks] == ["sizes: 1 2", " 3\n"]


def test_the_page_and_the_executed_copy_get_the_joined_outputs():
    """MyST-NB asks the execution client for a cell's outputs when it renders the cell
    (``code_cell_outputs``): the extension's wrapper answers with the joined outputs and
    writes them into the notebook that becomes _build/jupyter_execute/<chapter>.ipynb."""
    merge_streams.setup(SimpleNamespace(connect=lambda *args: None))
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print('sizes: 1 2 3')", execution_count=1,
                                     outputs=[_out("sizes: 1 2"), _out(" 3\n")])
    nb.cells = [cell]
    client = NotebookClientBase(nb, None, NbParserConfig(), logger=None)
    count, outputs = client.code_cell_outputs(0)
    assert count == 1
    assert [o["text"] for o in outputs] == ["sizes: 1 2 3\n"]
    assert [o["text"] for o in nb.cells[0]["outputs"]] == ["sizes: 1 2 3\n"]


def test_mystnb_merge_must_stay_off():
    """After the join, MyST-NB's merge would still strip trailing whitespace and add a
    newline: the extension refuses to run with it."""
    merge_streams._check_config(None, SimpleNamespace(nb_merge_streams=False))
    with pytest.raises(ConfigError, match="nb_merge_streams"):
        merge_streams._check_config(None, SimpleNamespace(nb_merge_streams=True))
