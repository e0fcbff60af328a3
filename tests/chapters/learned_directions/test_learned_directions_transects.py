"""E14, transects across the count line and the learnability line
(companion/chapters/learned_directions/transects.py, figures.py)."""

import numpy as np
import pytest

from companion.chapters.learned_directions import figures as tf
from companion.chapters.learned_directions import transects as tr
from companion.core.alignment import a_power_basis
from companion.core.finite_n import predicted_terms
from companion.core.runs import Run, Runs
from companion.core.spikes import K_POWERS, MARGIN, MIN_WEIGHT, TOP
from companion.core.theory import KNIFE_EDGE, lambda_count, nearest_line


@pytest.fixture(scope="module")
def unit():
    """One unit above the learnability line at a tiny size."""
    return tr.transect_run(128, 0.30, 0.46, seed=0)


def test_unit_records_every_run_with_the_expected_keys(unit):
    for name in tr.RUNS:
        assert unit[f"s_{name}"].shape == (TOP,)
        assert unit[f"cos2_{name}"].shape == (TOP, 2)
        assert unit[f"separate_{name}"].shape == (K_POWERS,)
        assert unit[f"own_cos2_{name}"].shape == (K_POWERS, 2)
        own = unit[f"own_cos2_{name}"]
        assert np.all(own >= 0) and np.all(own.sum(axis=1) <= 1 + 1e-9)
        counted = ((unit[f"s_{name}"] > unit["edge"] * (1 + MARGIN))
                   & (unit[f"weight_{name}"] >= MIN_WEIGHT))
        np.testing.assert_array_equal(unit[f"counted_{name}"], counted)
    assert unit["edge"] == unit["edge_self_null"]
    for key in ("predicted", "predicted_null"):
        assert unit[key].shape == (K_POWERS,) and np.all(unit[key] > 0)
    assert unit["predicted_cos2"].shape == (K_POWERS, 2)


def test_reused_against_null_structure(unit):
    """The first spike of the reused run sits on a and carries He_1's direction; the null
    run's labels say nothing about x, so its first term's own part carries neither
    direction, while its term strengths are of the same size as the run's (label noise)."""
    assert unit["counted_reused"][0] and unit["order_reused"][0] == 0
    assert unit["cos2_reused"][0, 0] > 0.15
    assert unit["own_cos2_reused"][0, 0] > 0.15
    assert unit["own_cos2_null"][0].max() < 0.05
    assert unit["separate_null"][2] == pytest.approx(unit["separate_reused"][2], rel=0.5)
    # the prediction of the first term, within 25% at this tiny size (15% high at N = 128)
    assert unit["predicted"][0] == pytest.approx(unit["separate_reused"][0], rel=0.25)


def test_own_part_reads_a_planted_term_without_detection():
    """A row on q_3 orthogonal to the rows before it: its own part is that direction."""
    rng = np.random.default_rng(1)
    N, d = 60, 50
    a = rng.standard_normal(N) / np.sqrt(N)
    Q = a_power_basis(a, 3)
    u, v, w = np.linalg.qr(rng.standard_normal((d, 3)))[0].T
    W0 = rng.standard_normal((N, d)) / np.sqrt(d)
    # the k = 2 row: half along w (new), half along u (the k = 0 row's direction)
    W2 = W0 + 3 * np.outer(Q[:, 0], u) + 0.5 * np.outer(Q[:, 1], v) + np.outer(Q[:, 2], u + w)
    own = tr.own_part_cos2(W2, W0, a, np.stack([u, v, w]), K=3)
    np.testing.assert_allclose(own, [[1, 0, 0], [0, 1, 0], [0, 0, 1]], atol=1e-10)


def test_tidy_rows_one_per_term_and_run(unit):
    runs = Runs([Run(dict(N=128, alpha1=0.30, alpha2=0.46, activation=tr.E14_ACTIVATION,
                          target=tr.E14_TARGET), 0, unit)])
    rows = tr.transect_rows(runs)
    assert len(rows) == len(tr.RUNS) * K_POWERS
    for column in ("N", "alpha1", "alpha2", "seed", "run", "k", "strength", "detected",
                   "own_cos2_he1", "own_cos2_he3", "spike_cos2_he3", "strength_predicted",
                   "own_cos2_predicted_he3", "edge"):
        assert column in rows[0], column
    k2 = [r for r in rows if r["k"] == 2 and r["run"] == "reused"][0]
    assert k2["strength"] == unit["separate_reused"][2]
    assert k2["own_cos2_he3"] == unit["own_cos2_reused"][2][1]


def test_points_are_off_the_lines_and_straddle_their_line():
    for name, t in tr.TRANSECTS.items():
        k = t["k"]
        sides = []
        for a1, a2 in t["points"]:
            _, e = nearest_line(a1, a2)
            assert abs(e) >= KNIFE_EDGE - 1e-12, (a1, a2, e)
            sides.append(lambda_count(a1, a2) >= k)
        assert sides == [False, False, True, True], name
    assert len(set(tr.E14_POINTS)) == 8


def test_grid_sizes():
    small = tr.TRANSECTS_E14.units("small")
    assert {p["N"] for p, _ in small} == {128, 256} and {s for _, s in small} == {0, 1}
    paper = tr.TRANSECTS_E14.units("paper")
    assert len(paper) == 8 * 4 * 8 + 8 * 4
    assert [p["N"] for p, _ in paper] == sorted(p["N"] for p, _ in paper)
    assert all(p.get("dtype") == "float32" for p, _ in paper if p["N"] == 8192)


def test_figure_from_tiny_runs_and_from_no_runs(unit):
    import matplotlib.pyplot as plt
    runs = Runs([Run(dict(N=N, alpha1=0.30, alpha2=0.46, activation=tr.E14_ACTIVATION,
                          target=tr.E14_TARGET), s, unit) for N in (128, 256) for s in (0, 1)])
    fig = tf.transects(runs)
    assert len(fig.axes) == 4
    plt.close(fig)
    fig = tf.transects(runs, curves=False)
    plt.close(fig)
    empty = tf.transects(None)
    assert "stored paper-scale runs" in empty.axes[0].texts[0].get_text()
    plt.close(empty)
    table = tf.transect_table(runs, k=2)
    reused = [r for r in table if r["run"] == "reused"]
    assert len(reused) == 2 and reused[0]["seeds"] == 2
    m, lo, hi = reused[0]["strength"]
    assert lo == hi == m                          # two equal seeds: zero width
    assert tf.local_slope(table, (0.30, 0.46)) == pytest.approx(0.0, abs=1e-12)


def test_t_interval():
    m, lo, hi = tf.t_interval([1.0, 2.0, 3.0])
    assert m == 2.0 and hi - m == pytest.approx(4.302653 / np.sqrt(3), rel=1e-5)
    assert np.isnan(tf.t_interval([1.0])[1])


def test_prediction_table_matches_the_prediction():
    """The stored curves are predicted_terms at their sizes (two entries recomputed)."""
    assert set(tf.PREDICTION_TABLE) == set(tr.E14_POINTS)
    for point, j in (((0.30, 0.10), 0), ((0.30, 0.46), 7)):
        N = tf.CURVE_NS[j]
        p = predicted_terms(N, *point, tr.E14_ACTIVATION, tr.E14_TARGET, K=3)
        stored = tf.PREDICTION_TABLE[point]
        assert stored["k2"][j] == pytest.approx(p["strength"][2], rel=1e-3)
        assert stored["cos2_k2"][j] == pytest.approx(p["cos2"][2][1], rel=1e-3)
