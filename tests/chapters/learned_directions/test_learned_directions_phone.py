"""The chapter's figures on a phone (issue 41): every text of a figure shows at least 8 CSS
pixels tall where the book shows it on a 390 px screen, by the book's one measure
(``companion.presentation.figures.smallest_text``, which tests/test_figures_on_a_phone.py shows to bite);
the figures the experiments' catalog does not draw are here."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import pytest

from companion.chapters.learned_directions import figures
from companion.core import store
from companion.presentation import plotting
from companion.presentation.figures import PHONE_TEXT, smallest_text

FIGURES = {"path": lambda: figures.content_path_figure(store.load("E12")),
           "strengths": lambda: figures.learnability_strengths(store.load("E18"))}


@pytest.mark.parametrize("name", FIGURES)
def test_every_text_is_at_least_8_px_on_a_phone(name):
    if store.load("E12") is None:
        pytest.skip("the stored runs are switched off")
    with matplotlib.rc_context():
        plotting.set_book_style()
        fig = FIGURES[name]()
        try:
            px = smallest_text(fig)
        finally:
            plt.close(fig)
    assert px >= PHONE_TEXT, f"{name}: its smallest text shows {px:.1f} px on a phone"
