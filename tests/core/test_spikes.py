"""Spike strengths and the spike census (companion/core/spikes.py, book: dv-census)."""

import numpy as np
import pytest

import companion as cp
from companion.core import spikes


def _planted(N=400, strengths=(6.0, 0.0, 2.5), seed=0):
    """W0 (N x N, entries N(0, 1/N)) plus rank-one terms on the Gram-Schmidt powers of a."""
    rng = np.random.default_rng(seed)
    W0 = rng.standard_normal((N, N)) / np.sqrt(N)
    a = rng.standard_normal(N) / np.sqrt(N)
    Q = cp.a_power_basis(a, len(strengths))
    V = np.linalg.qr(rng.standard_normal((N, len(strengths))))[0].T
    delta = sum(t * np.outer(Q[:, k], V[k]) for k, t in enumerate(strengths))
    return W0, a, delta


def test_census_counts_spikes_on_the_powers_of_a_above_the_null_edge():
    W0, a, delta = _planted()
    null_W0, _, _ = _planted(seed=1)
    census = spikes.spike_census(W0 + delta, a, null_W0, K=3, top=6)
    assert census["count"] == 2                    # strengths 6 and 2.5 > 1; the zero term not
    assert census["edge"] == pytest.approx(2.0, abs=0.1)
    assert census["edge_self"] == pytest.approx(2.0, abs=0.1)
    # BBP positions theta + 1/theta at N = d
    np.testing.assert_allclose(census["s"][:2], [6 + 1 / 6, 2.5 + 1 / 2.5], rtol=0.03)
    assert census["weights"][0, 0] > 0.9 and census["weights"][1, 2] > 0.7


def test_an_outlier_off_the_powers_of_a_is_not_a_spike():
    W0, a, _ = _planted()
    rng = np.random.default_rng(3)
    u, v = rng.standard_normal(400), rng.standard_normal(400)
    W = W0 + 3.0 * np.outer(u / np.linalg.norm(u), v / np.linalg.norm(v))   # a one-sample-like outlier
    census = spikes.spike_census(W, a, W0, K=3, top=4)
    assert census["s"][0] > 3.0 and census["count"] == 0


def test_count_spikes_margin_weight_and_errors():
    s, w = np.array([5.0, 2.1, 2.03, 1.9]), np.array([1.0, 0.5, 0.9, 0.9])
    assert spikes.count_spikes(s, w, 2.0) == 2            # 2.03 is inside the 2% margin
    assert spikes.count_spikes(s, w, 2.0, margin=0.0) == 3
    assert spikes.count_spikes(s, w, 2.0, min_weight=0.6) == 1
    with pytest.raises(ValueError, match="same shape"):
        spikes.count_spikes(s, w[:2], 2.0)
    with pytest.raises(ValueError, match="edge"):
        spikes.count_spikes(s, w, -1.0)


def test_separate_strengths_remove_the_part_parallel_to_earlier_terms():
    rng = np.random.default_rng(0)
    N = 300
    a = rng.standard_normal(N) / np.sqrt(N)
    Q = cp.a_power_basis(a, 3)
    v1, v2 = np.linalg.qr(rng.standard_normal((N, 2)))[0].T
    delta = 5.0 * np.outer(Q[:, 0], v1) + np.outer(Q[:, 2], 3.0 * v1 + 2.0 * v2)
    np.testing.assert_allclose(cp.term_sizes(delta, a, 3), [5.0, 0.0, np.sqrt(13)], atol=1e-10)
    np.testing.assert_allclose(spikes.separate_strengths(delta, a, 3), [5.0, 0.0, 2.0],
                               atol=1e-10)


def test_separate_strengths_from_w2_and_its_base_are_those_of_the_difference():
    # simulate passes W2 and W0 instead of forming W2 - W0 (one N x d array less)
    W0, a, delta = _planted()
    W2 = W0 + delta
    np.testing.assert_allclose(spikes.separate_strengths(W2, a, 3, base=W0),
                               spikes.separate_strengths(delta, a, 3), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(spikes.separate_strengths(W2, a, 3, base=W0), [6.0, 0.0, 2.5],
                               atol=1e-10)
    with pytest.raises(ValueError, match="base must have delta's shape"):
        spikes.separate_strengths(W2, a, 3, base=W0[:, :-1])


def test_spike_records_give_order_strength_and_content_of_each_counted_spike():
    """Planted terms of strengths 6 (order 0) and 2.5 (order 2) with known right vectors:
    each counted spike reports its order, its separate strength and which direction it carries;
    the null run (no planted terms) has no spike."""
    W0, a, delta = _planted()
    rng = np.random.default_rng(7)
    V = np.linalg.qr(rng.standard_normal((400, 3)))[0].T
    Q = cp.a_power_basis(a, 3)
    delta = 6.0 * np.outer(Q[:, 0], V[0]) + 2.5 * np.outer(Q[:, 2], V[2])
    directions = V[[2, 0]]                        # target order: order-2 term's first
    census = spikes.spike_census(W0 + delta, a, W0, K=3, top=6, W0=W0, directions=directions)
    recs = census["spikes"]
    assert [r["k"] for r in recs] == [0, 2] and census["count"] == len(recs)
    assert [r["strength"] for r in recs] == pytest.approx([6.0, 2.5], abs=1e-9)
    assert recs[0]["value"] == pytest.approx(6 + 1 / 6, rel=0.03)
    # BBP right overlap 1 - (1 + theta^2) / (theta^2 (theta^2 + 1)) = 1 - 1/theta^2 at N = d
    assert recs[0]["cos2"][1] == pytest.approx(1 - 1 / 36, abs=0.03) and recs[0]["cos2"][0] < 0.02
    assert recs[1]["cos2"][0] == pytest.approx(1 - 1 / 2.5 ** 2, abs=0.08)
    assert recs[1]["cos2"][1] < 0.02
    assert census["null_spikes"] == [] and len(census["s_null"]) == 6
    # a planted term below the threshold (0.6): on the powers of a but not counted
    weak = 6.0 * np.outer(Q[:, 0], V[0]) + 0.6 * np.outer(Q[:, 2], V[2])
    low = spikes.spike_census(W0 + weak, a, W0, K=3, top=6, W0=W0, directions=directions)
    near = spikes.spike_records(weak, a, directions, low["edge"], low["triplets"], K=3,
                                uncounted=True)
    assert [r["k"] for r in low["spikes"]] == [0]
    assert all(r["value"] <= low["edge"] * 1.02 and r["weight"] >= 0.25 for r in near)
    with pytest.raises(ValueError, match="W0 and directions"):
        spikes.spike_census(W0 + delta, a, W0, K=3, W0=W0)
