"""The chapter's figures on a phone (issue 41): every text of a figure shows at least 8 CSS
pixels tall where the book shows it 342 px wide (a 390 px screen, measured on the built page).

A figure saved for the book is a PNG at twice the screen's resolution (``retina``: 200 dpi
for 100 dpi), cut to its drawing (``bbox_inches="tight"``) and shown at most as wide as the
column; a text of s points is s * 200/72 PNG pixels tall, and on the phone it is that times
342 over the PNG's width."""

from __future__ import annotations

import io

import matplotlib
import matplotlib.pyplot as plt
import pytest
from matplotlib.text import Text

from companion.chapters.learned_directions import figures
from companion.core import store
from companion.presentation import plotting

PHONE_COLUMN_PX = 342        # a figure's width on a 390 px phone (tests/test_phone.py's view)
MIN_PX = 8.0
RETINA_DPI = 200


def smallest_text_px(fig) -> float:
    """The smallest font of ``fig``'s visible texts in CSS pixels on the phone."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=RETINA_DPI, bbox_inches="tight")
    width = plt.imread(io.BytesIO(buffer.getvalue())).shape[1]
    scale = min(1.0, PHONE_COLUMN_PX / (width / 2))           # retina: shown at half size
    sizes = [t.get_fontsize() for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip()]
    return min(sizes) * (RETINA_DPI / 72) / 2 * scale


FIGURES = {"content": lambda: figures.spike_content(store.load("E12")),
           "path": lambda: figures.content_path_figure(store.load("E12")),
           "transects": lambda: figures.transects(store.load("E14"))}


@pytest.mark.parametrize("name", FIGURES)
def test_every_text_is_at_least_8_px_on_a_phone(name):
    if store.load("E12") is None:
        pytest.skip("the stored runs are switched off")
    with matplotlib.rc_context():
        plotting.set_book_style()
        fig = FIGURES[name]()
        try:
            px = smallest_text_px(fig)
        finally:
            plt.close(fig)
    assert px >= MIN_PX, f"{name}: its smallest text shows {px:.1f} px on a phone"
