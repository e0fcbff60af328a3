"""Growth exponents in log N with intervals over seeds (companion/core/growth.py)."""

import numpy as np
import pytest

from companion.core.growth import log_slope, predicted_slope, slope_between, zero_crossing


def test_a_known_power_law_gives_its_exponent():
    Ns = [1024, 2048, 4096, 8192]
    assert log_slope(Ns, [3.0 * N ** 0.15 for N in Ns]) == pytest.approx(0.15)
    assert predicted_slope(lambda N: 2.0 * N ** -0.1, 1024, 16384) == pytest.approx(-0.1)


def test_the_slope_between_two_sizes_covers_the_true_exponent():
    """Seeds scattered by 5% around c N^e: the Welch interval covers e in most draws and is
    about as wide as the scatter allows."""
    rng = np.random.default_rng(0)
    e, covered = 0.2, 0
    for _ in range(200):
        low = 1.5 * 1024 ** e * np.exp(0.05 * rng.standard_normal(6))
        high = 1.5 * 8192 ** e * np.exp(0.05 * rng.standard_normal(6))
        s = slope_between(1024, low, 8192, high)
        covered += s["low"] <= e <= s["high"]
        assert s["low"] < s["slope"] < s["high"]
    assert 0.90 <= covered / 200 <= 0.99


def test_zero_crossing():
    assert zero_crossing([0.1, 0.2, 0.3], [-0.2, -0.1, 0.1]) == pytest.approx(0.25)
    assert zero_crossing([0.1, 0.2], [0.1, 0.2]) is None
    with pytest.raises(ValueError, match="N_high"):
        slope_between(2048, [1.0, 1.1], 1024, [1.0, 1.2])
