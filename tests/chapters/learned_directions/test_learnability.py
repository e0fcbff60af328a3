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


def test_a_range_of_sizes_held_at_some_points_only_is_read_on_those(tiny):
    # the paper scale's largest size is run at the points nearest the zero and the line only:
    # here 96 -> 96 and 192 -> 384 at every point, and a size 1536 at four points
    from companion.core.runs import Run, Runs
    few = set(lb.TRANSECTS["alpha1"]["points"][1:5])
    runs = Runs([Run(dict(r.params, N={96: 96, 192: 384}[r.params["N"]]), r.seed, r.result)
                 for r in tiny]
                + [Run(dict(r.params, N=1536), r.seed, r.result) for r in tiny
                   if r.params["N"] == 192 and (r.params["alpha1"], r.params["alpha2"]) in few])
    assert ls.growth_ranges(runs) == [(96, 384), (384, 1536)]
    rows = ls.slope_table(runs, "alpha1", 384, 1536)
    assert {(r["alpha1"], r["alpha2"]) for r in rows} == few
    assert all(r["reused_slope"] == pytest.approx(0.0, abs=1e-12) for r in rows)   # same runs
    zeros = ls.zero_rows(runs)
    assert [(z["N_low"], z["N_high"], z["points"]) for z in zeros] == [(96, 384, 9),
                                                                        (384, 1536, 4)]
    assert all(z["seeds"] == 3 and z["line"] == pytest.approx(0.275) for z in zeros)
    assert zeros[1]["predicted"] > zeros[0]["predicted"]      # the zero moves towards the line
    # with fewer than MIN_POINTS points at a size pair, that pair is not a range
    sparse = Runs([r for r in runs if r.params["N"] != 1536
                   or r.params["alpha1"] == lb.TRANSECTS["alpha1"]["points"][1][0]])
    assert ls.growth_ranges(sparse) == [(96, 384)]


def test_stored_e18_the_zero_moves_towards_the_line_as_predicted():
    """What the section says of the largest sizes: over the largest range of sizes (four
    points, N = 4096 to 16384) the measured zero lies right of the smallest range's, nearer
    the line, and within 0.02 of where the finite-N prediction puts it."""
    from companion.core import store
    runs = store.load("E18")
    zeros = ls.zero_rows(runs)
    first, last = zeros[0], zeros[-1]
    assert last["N_high"] == 16384 and last["points"] >= 4 and last["seeds"] >= 3
    assert first["measured"] < last["measured"] < last["line"]
    assert abs(last["measured"] - last["predicted"]) < 0.02
    assert last["predicted"] > first["predicted"]
