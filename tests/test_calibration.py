"""The census calibrated by planted terms (companion/experiments/calibration.py)."""

import numpy as np
import pytest

from companion.experiments import calibration as cal
from companion.experiments import run_units


@pytest.fixture(scope="module")
def runs():
    units = [(dict(N=N, k=2, strengths=(0.25, 0.75, 1.5, 3.0)), s)
             for N in (128, 256) for s in (0, 1, 2)]
    return run_units(cal.calibration_run, units)


def test_planted_terms_are_counted_above_the_threshold_and_not_far_below(runs):
    """N = 128 and 256, tanh(z + 1/2), (0.38, 0.45), order 2, three seeds each: a planted
    strength of 3 is always counted (at its BBP position, carrying its direction), 0.25
    never; the half-detection strength lies between 0.75 and 3, near the BBP value
    edge / 2 (the count's edge is the other null run's)."""
    rates = cal.detection_rates(runs)
    assert sorted(rates) == [128, 256]
    for N, (strengths, rate) in rates.items():
        assert rate[0] == 0.0 and rate[-1] == 1.0, (N, rate)
        assert np.all(np.diff(rate) >= 0)
        threshold = cal.detection_threshold(strengths, rate)
        assert 0.75 <= threshold <= 3.0
    for r in runs:
        assert r["value"][-1] == pytest.approx(3 + 1 / 3, rel=0.25)    # theta + 1/theta
        assert r["overlap"][-1] > 0.6                                  # BBP: 1 - 1/9 = 0.89
        assert 1.8 < r["edge"] < 3.5 and np.isnan(r["value"][0])


def test_bbp_detection_strength():
    assert cal.bbp_detection_strength(2.0, 0.0) == pytest.approx(1.0)
    theta = cal.bbp_detection_strength(2.0)
    assert theta + 1 / theta == pytest.approx(2 * 1.02) and theta == pytest.approx(1.221, abs=1e-3)


def test_detection_threshold_interpolates():
    assert cal.detection_threshold([1, 2, 3], [0, 0.25, 0.75]) == pytest.approx(2.5)
    assert cal.detection_threshold([1, 2], [0.6, 1]) == 1.0
    assert np.isnan(cal.detection_threshold([1, 2], [0, 0.2]))


def test_bad_inputs():
    with pytest.raises(ValueError, match="k must"):
        cal.calibration_run(64, k=7)
    with pytest.raises(ValueError, match="strengths"):
        cal.calibration_run(64, strengths=(-1.0,))
