"""Intervals over a few seeds (companion/core/intervals.py): exact binomial and Student-t."""

import math

import numpy as np
import pytest
from scipy import stats

from companion.core.intervals import clopper_pearson, t_interval, t_intervals


def test_clopper_pearson_known_values():
    assert clopper_pearson(4, 4) == pytest.approx((0.3976, 1.0), abs=1e-4)
    assert clopper_pearson(2, 6) == pytest.approx((0.0433, 0.7772), abs=1e-4)
    assert clopper_pearson(0, 4) == pytest.approx((0.0, 0.6024), abs=1e-4)
    # 0 of n: the upper end is 1 - (tail)^(1/n) exactly
    for n in (1, 5, 9):
        low, high = clopper_pearson(0, n)
        assert low == 0.0 and high == pytest.approx(1 - 0.025 ** (1 / n), rel=1e-10)
    assert clopper_pearson(6, 6)[1] == 1.0
    # symmetric: x of n mirrors n - x of n
    lo, hi = clopper_pearson(2, 6)
    assert clopper_pearson(4, 6) == pytest.approx((1 - hi, 1 - lo), rel=1e-12)
    # wider at a higher level
    assert clopper_pearson(2, 6, 0.99)[0] < lo


def test_clopper_pearson_rejects_bad_input():
    for args in ((5, 4), (-1, 4), (0, 0), (1.5, 4)):
        with pytest.raises(ValueError):
            clopper_pearson(*args)
    with pytest.raises(ValueError, match="level"):
        clopper_pearson(1, 4, level=1.0)


def test_t_interval_by_hand():
    v = np.array([0.042, 0.061, 0.030, 0.055, 0.066, 0.046])
    m, s, n = v.mean(), v.std(ddof=1), len(v)
    half = stats.t.ppf(0.975, n - 1) * s / math.sqrt(n)
    r = t_interval(v)
    assert r.mean == pytest.approx(m, rel=1e-14) and r.n == 6 and not r.spread_zero
    assert (r.low, r.high) == pytest.approx((m - half, m + half), rel=1e-12)
    # a written-out case: 1, 2, 3 -> mean 2, s = 1, t_{2}(0.975) = 4.302653
    r = t_interval([1.0, 2.0, 3.0])
    assert (r.low, r.high) == pytest.approx((2 - 4.302653 / math.sqrt(3),
                                             2 + 4.302653 / math.sqrt(3)), rel=1e-6)
    # the t interval is wider than mean +- 1.96 s / sqrt(n) at few seeds
    assert t_interval(v, 0.95).high - m > 1.96 * s / math.sqrt(n)


def test_t_interval_one_value_and_zero_spread_are_explicit():
    r = t_interval([0.25])
    assert r.mean == 0.25 and math.isnan(r.low) and math.isnan(r.high) and r.n == 1
    r = t_interval([0.5, 0.5, 0.5])
    assert (r.mean, r.low, r.high, r.spread_zero) == (0.5, 0.5, 0.5, True)
    with pytest.raises(ValueError):
        t_interval([])
    with pytest.raises(ValueError):
        t_interval([1.0, float("nan")])


def test_t_intervals_by_column():
    v = np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0]])
    mean, low, high = t_intervals(v)
    assert mean.tolist() == [2.0, 0.0] and low[1] == high[1] == 0.0
    assert (low[0], high[0]) == pytest.approx(tuple(t_interval(v[:, 0])[1:3]))


def test_welch_interval_by_hand():
    from companion.core.intervals import welch_interval

    a, b = np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 4.0, 7.0])
    va, vb = a.var(ddof=1) / 4, b.var(ddof=1) / 3
    df = (va + vb) ** 2 / (va ** 2 / 3 + vb ** 2 / 2)
    half = stats.t.ppf(0.975, df) * math.sqrt(va + vb)
    d, lo, hi = welch_interval(a, b)
    assert d == pytest.approx(b.mean() - a.mean())
    assert (lo, hi) == pytest.approx((d - half, d + half), rel=1e-12)
    # scipy's own Welch test gives the same interval
    ci = stats.ttest_ind(b, a, equal_var=False).confidence_interval(0.95)
    assert (lo, hi) == pytest.approx((ci.low, ci.high), rel=1e-10)
    assert np.isnan(welch_interval([1.0], b)[1])
    assert welch_interval([1.0, 1.0], [2.0, 2.0]) == (1.0, 1.0, 1.0)


def test_t_interval_bounds_cut_impossible_values():
    v = [0.0001, 0.004, 0.0002, 0.0005]
    free, cut = t_interval(v), t_interval(v, bounds=(0.0, 1.0))
    assert free.low < 0 and cut.low == 0.0 and cut.high == free.high



def test_the_quantiles_are_scipy_stats_own():
    """The helpers take their quantiles from scipy.special (a lighter import than
    scipy.stats); they must be the very numbers scipy.stats gives."""
    tail = (1 - 0.95) / 2
    for x, n in [(0, 4), (4, 4), (2, 6), (134, 144), (62, 72)]:
        low, high = clopper_pearson(x, n)
        assert low == (0.0 if x == 0 else stats.beta.ppf(tail, x, n - x + 1))
        assert high == (1.0 if x == n else stats.beta.ppf(1 - tail, x + 1, n - x))
    v = np.array([0.3, 0.5, 0.2, 0.9])
    res = t_interval(v)
    assert res.high - res.mean == stats.t.ppf(0.975, 3) * v.std(ddof=1) / 2
