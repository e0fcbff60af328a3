"""E18, the learnability line crossed with a bounded link (companion/chapters/
learned_directions/learnability.py and learnability_summaries.py), at tiny sizes."""

import numpy as np
import pytest

from companion.chapters.learned_directions import learnability as lb
from companion.chapters.learned_directions import learnability_summaries as ls
from companion.core.experiment import run_units


@pytest.fixture(scope="module")
def tiny():
    units = [(dict(N=N, alpha1=a1, alpha2=a2, dtype="float32"), s)
             for N in (96, 192) for s in (0, 1, 2) for (a1, a2) in lb.POINTS]
    return run_units(lb.learnability_unit, units)


def test_a_unit_reads_both_batches_without_detection(tiny):
    r = tiny[0]
    for batch in ("reused", "fresh"):
        assert np.asarray(r[f"separate_{batch}"]).shape == (5,)
        assert np.asarray(r[f"own_cos2_{batch}"]).shape == (5, 1)
        assert np.all(np.asarray(r[f"own_cos2_{batch}"]) <= 1)
        assert np.asarray(r[f"counted_{batch}"]).dtype == bool


def test_one_tidy_row_per_run_and_term(tiny):
    rows = lb.learnability_rows(tiny)
    assert len(rows) == len(tiny) * 2 * 5
    assert {"batch", "k", "strength", "own_cos2", "detected", "edge", "seed"} <= set(rows[0])


def test_slope_table_and_numbers(tiny):
    rows = ls.slope_table(tiny, "alpha1")
    assert [r["alpha1"] for r in rows] == [p[0] for p in lb.TRANSECTS["alpha1"]["points"]]
    assert all(r["reused_low"] <= r["reused_slope"] <= r["reused_high"] for r in rows)
    # the prediction's exponent grows with alpha1 across the line
    predicted = [r["reused_predicted"] for r in rows]
    assert predicted[-1] > predicted[0] + 0.05
    # the reused own part carries the direction far beyond the fresh batch's
    assert np.median([r["reused_own_cos2"] / r["fresh_own_cos2"] for r in rows]) > 5


def test_the_prediction_s_zero_moves_towards_the_line():
    near = ls.predicted_zero(2 ** 10, 2 ** 14)
    far = ls.predicted_zero(2 ** 14, 2 ** 20)
    assert near < far < ls.line_alpha1(0.45) == pytest.approx(0.275)
    assert 2 ** 18 < ls.width_for_zero_near_line() < 2 ** 30


def test_stored_e18_the_growth_changes_sign_below_the_line_as_predicted():
    """The stored paper-scale transect: the reused batch's k = 2 growth in log N changes
    sign between the transect's ends, within 0.05 of where the finite-N prediction puts
    the zero and below the limit's line; the fresh batch's never grows beyond its noise."""
    from companion.core import store
    runs = store.load("E18")
    rows = ls.slope_table(runs, "alpha1")
    zero = ls.measured_zero(rows)
    line = ls.line_alpha1(lb.TRANSECTS["alpha1"]["value"])
    predicted = ls.predicted_zero(rows[0]["N_low"], rows[0]["N_high"],
                                  lb.TRANSECTS["alpha1"]["value"])
    assert zero is not None and rows[0]["alpha1"] < zero < line
    assert abs(zero - predicted) < 0.05
    assert rows[0]["reused_slope"] < 0 < rows[-1]["reused_slope"]
    assert max(abs(r["fresh_slope"]) for r in rows) < 0.15
    assert min(r["reused_own_cos2"] / r["fresh_own_cos2"] for r in rows) > 10
