"""The checks the play tests apply to an executed chapter (tests/_play.py) find what they
should: an error, a figure that is only glued (invisible in JupyterLab and Colab), a
paper-scale section that fell back, a cell that never ran."""

from __future__ import annotations

import _play


def _nb(*cells):
    return {"cells": [{"cell_type": "code", "source": src, "metadata": {}, "outputs": outs}
                      for src, outs in cells]}


PNG = {"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": "<Figure>"}}
GLUED = {"output_type": "display_data",
         "data": {"application/papermill.record/image/png": "iVBOR"}}


def test_a_chapter_that_shows_its_figures_passes():
    nb = _nb(("x = 1", []), ('show("fig-a", fig)', [PNG]))
    cells = [_play.summarize(c["outputs"]) for c in nb["cells"]]
    assert _play.problems(nb, cells) == []


def test_a_glued_only_figure_is_found():
    nb = _nb(('glue("fig-a", fig, display=False)', [GLUED]))
    found = _play.problems(nb, [_play.summarize([GLUED])])
    assert len(found) == 1 and "shows no picture" in found[0]


def test_a_show_call_without_a_picture_is_found():
    nb = _nb(('show("fig-a", fig)', []))
    assert "shows no picture" in _play.problems(nb, [[]])[0]


def test_errors_fallbacks_and_cells_that_did_not_run_are_found():
    nb = _nb(("a", []), ("b", []), ("c", []))
    error = {"output_type": "error", "ename": "ModuleNotFoundError", "evalue": "myst_nb",
             "traceback": []}
    fallback = {"output_type": "stream", "name": "stdout",
                "text": "No stored paper-scale runs here (COMPANION_PAPER_DATA=off)\n"}
    found = _play.problems(nb, [_play.summarize([error]), _play.summarize([fallback]), None])
    assert any("raised ModuleNotFoundError" in f for f in found)
    assert any("fell back" in f for f in found)
    assert any("only 2 of 3 code cells ran" in f for f in found)


def test_a_glued_fallback_text_is_found():
    glued = {"output_type": "display_data",
             "data": {"application/papermill.record/text/plain": "'not available'"}}
    assert "fell back" in _play.problems(_nb(("g", [])), [_play.summarize([glued])])[0]
