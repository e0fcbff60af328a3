"""The finite-N prediction against the stored runs (companion/chapters/two_steps/prediction.py)."""

import numpy as np
import pytest

from companion.chapters.two_steps import prediction
from companion.core import store
from companion.core.runs import Run, Runs


def _largest(runs):
    N = max(runs.unique("N"))
    return runs.where(N=N, predicate=lambda r: r.params.get("activation", "tanh") != "gelu")


def test_prediction_error_on_the_stored_largest_sizes_is_within_the_goal():
    """At the stored runs' largest N (8192: E4, tanh; E11, tanh and tanh(z + 1/2)) the median
    relative error of the terms k >= 1 above their floor is at most 20% (the issue's goal),
    and the Taylor leading order, stored in E4, is several times further off."""
    e4, e11 = store.load("E4"), store.load("E11")
    if e4 is None or e11 is None:
        pytest.skip("no stored runs (COMPANION_PAPER_DATA=off)")
    rows = prediction.prediction_rows(_largest(e4), _largest(e11))
    assert {r["experiment"] for r in rows} == {"E4", "E11"} and all(r["N"] == 8192 for r in rows)
    table = prediction.prediction_errors(rows)
    assert set(table) == {"tanh", "shifted_tanh"}
    for act in table:
        assert table[act]["terms"] >= 2 and table[act]["median"] <= 0.20, (act, table[act])
    assert table["tanh"]["leading_median"] > 1.0          # Taylor: more than twice too large
    assert table["shifted_tanh"]["leading_median"] is None  # E11 stores no leading order
    # tanh's odd orders have no mean field: their measured strength is the floor
    odd = [r for r in rows if r["activation"] == "tanh" and r["k"] % 2 == 1]
    assert odd and all(r["signal"] < 1e-6 and not r["above_floor"] for r in odd)
    assert np.median([abs(r["rel_error"]) for r in odd]) < 0.2


def test_prediction_errors_summarize_rows_by_activation():
    rows = [dict(activation="tanh", k=k, measured=m, floor=0.5, rel_error=e, leading=None)
            for k, m, e in ((0, 20.0, 0.01), (1, 0.6, 0.5), (2, 1.0, -0.1), (3, 2.0, 0.3))]
    out = prediction.prediction_errors(rows)["tanh"]
    assert out["terms"] == 2 and out["median"] == pytest.approx(0.2) and out["max"] == 0.3
    assert out["terms_all"] == 3 and out["median_all"] == pytest.approx(0.3)
    with pytest.raises(ValueError, match="above"):
        prediction.prediction_errors(rows, above=-1)


def test_prediction_rows_average_the_seeds_and_leave_precision_checks_out():
    res = {f"strength_k{k}": 1.0 + k for k in range(5)}
    point = dict(alpha1=0.38, alpha2=0.45, activation="tanh", c1=1.0, c2=1.0)
    runs = Runs([Run(dict(point, N=512), s, dict(res, strength_k2=1.0 + s)) for s in (0, 1)]
                + [Run(dict(point, N=256), 0, res),
                   # a precision check: the float32 repeat of the float64 unit above
                   Run(dict(point, N=256, dtype="float32"), 0, dict(res, strength_k2=9.0))])
    rows = prediction.prediction_rows(e11=runs)
    at512 = [r for r in rows if r["N"] == 512]
    at256 = [r for r in rows if r["N"] == 256]
    assert len(at512) == len(at256) == 5
    assert at512[2]["measured"] == pytest.approx(1.5) and at512[2]["seeds"] == 2
    assert at256[2]["measured"] == pytest.approx(3.0) and at256[2]["seeds"] == 1
