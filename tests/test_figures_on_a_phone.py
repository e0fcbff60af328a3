"""Every experiment's figure (the one its chapter shows, drawn from the stored runs by the
function companion/reproduce/catalog.py names) is readable on a phone (issue 41): its smallest
text is at least 8 CSS pixels when the page shows it in a 390-px-wide screen's column, by
``companion.presentation.figures.smallest_text`` (the font size in pixels at the figure's natural size,
times the width shown over the natural width). tests/test_phone.py checks that every page
fits the screen; this checks what is inside its figures."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from companion.core import store
from companion.presentation.figures import PHONE_TEXT, smallest_text
from companion.reproduce.catalog import CATALOG


def test_the_measure_bites_on_small_text():
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.set_title("a title", fontsize=11)
    ax.tick_params(labelsize=7)
    try:
        assert smallest_text(fig) < PHONE_TEXT
    finally:
        plt.close(fig)


@pytest.mark.parametrize("eid", sorted(CATALOG, key=lambda e: int(e[1:])))
def test_every_experiment_s_figure_is_readable_on_a_phone(eid):
    runs = store.load(eid)
    if runs is None:
        pytest.skip(f"{eid} has no stored runs")
    fig = CATALOG[eid].figure(runs)
    try:
        assert smallest_text(fig) >= PHONE_TEXT, (eid, round(smallest_text(fig), 1))
    finally:
        plt.close(fig)
