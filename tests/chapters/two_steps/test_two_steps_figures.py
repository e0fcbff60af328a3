"""The figures of the chapter "Two steps" on a phone (issue 41): every text of each figure the
chapter shows is at least 8 CSS pixels on a screen 390 px wide, by the book's one measure
(``companion.presentation.figures.smallest_text``, which tests/test_figures_on_a_phone.py shows to bite).
And the spectrum's legend counts every outlier of W2, the first spike included (it lies off
the axis)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion.chapters.two_steps import figures
from companion.core import store
from companion.core.runs import Run, Runs
from companion.presentation import plotting
from companion.presentation.figures import PHONE_TEXT, smallest_text


@pytest.fixture(scope="module")
def stored():
    runs = {e: store.load(e) for e in ("E3", "E4", "E5", "E10", "E11", "E15", "E16")}
    if any(r is None for r in runs.values()):
        pytest.skip("the stored runs are switched off")
    plotting.set_book_style()
    return runs


DRAW = {
    "fig-ts-emergence": lambda s: figures.spike_emergence_counts(s["E11"]),
    "fig-ts-phase": lambda s: figures.phase_diagram(s["E3"], s["E3"]),
    "fig-ts-finite-phase": lambda s: figures.predicted_phase_diagram(s["E15"], s["E16"]),
    "fig-ts-exponents": lambda s: figures.exponents(s["E4"], s["E4"]),
    "fig-ts-one-step": lambda s: figures.one_step_collapse(s["E5"], s["E5"]),
    "fig-ts-spectrum": lambda s: figures.spectrum_beside_null(s["E10"]),
}


@pytest.mark.parametrize("name", sorted(DRAW))
def test_every_text_is_legible_on_a_phone(stored, name):
    fig = DRAW[name](stored)
    try:
        px = smallest_text(fig)
        assert px >= PHONE_TEXT, f"{name}: its smallest text shows at {px:.1f} px on a phone"
    finally:
        plt.close(fig)


def test_the_spectrum_legend_counts_the_first_spike():
    """The histogram leaves out the first spike (far to the right); the legend's count of
    outliers includes it, as the chapter's count does (issue 41: it said 2 where W2 had 3)."""
    s = np.concatenate([[20.0, 2.3, 2.2], np.linspace(0.05, 1.98, 300)])
    top = s[:12]
    result = dict(s=s, s_top=top, s_null=top * 0.98, on_powers=np.r_[1.0, 0.6, np.zeros(10)],
                  on_powers_null=np.r_[1.0, np.zeros(11)], edge=2.0, phi=1.0)
    spec = Runs([Run(dict(N=300, alpha1=0.35, alpha2=0.45), 0, result)])
    fig = figures.spectrum_beside_null(spec)
    try:
        labels = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
        assert "3 outliers (the first off the axis)" in labels, labels
    finally:
        plt.close(fig)
