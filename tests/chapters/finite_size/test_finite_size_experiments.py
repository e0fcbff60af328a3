"""Tests of companion.chapters.finite_size.experiments (chapter "Finite size, honestly") at small N.

Each science check is one that fails if the mechanism the chapter describes is not there:
heavy-tailed labels make single-sample outliers that the spike census does not count, reuse
with a polynomial activation blows up, the first spike's direction converges at the
predicted rate, He_3 is seen with reuse only.
"""

import numpy as np
import pytest

import companion as cp
from companion.chapters.finite_size import experiments as fs
from companion.core.runs import Runs
from companion.simulate import simulate


def test_preactivation_scale_is_n_to_the_alpha1_minus_half():
    out = fs.preactivation_scale([1000, 4000], [0.25, 0.4])
    assert out.shape == (2, 2)
    np.testing.assert_allclose(out, [[1000 ** -0.25, 4000 ** -0.25], [1000 ** -0.1, 4000 ** -0.1]])


def test_typical_max_label():
    # The median of the largest |z| among 1000 standard normals is about 3.4.
    he1 = fs.typical_max_label("he1", 1000)
    assert 3.2 < float(he1) < 3.6
    he3 = fs.typical_max_label("he3", [1000, 4000])
    assert he3[1] > he3[0] > 3 * he1          # heavy tail, and it grows with n
    # Against a simulation: median over 200 draws of max |He_3(z)/sqrt6| among 1000.
    rng = np.random.default_rng(0)
    z = rng.standard_normal((200, 1000))
    sim = np.median(np.max(np.abs(cp.make_link("he3")(z)), axis=1))
    assert abs(he3[0] / sim - 1) < 0.15


def test_spike_growth_table():
    rows = fs.spike_growth_table([(0.35, 0.45), (0.40, 0.25)])
    assert [r["k"] for r in rows] == [1, 2, 3, 1, 2]
    np.testing.assert_allclose([r["exponent"] for r in rows], [0.30, 0.15, 0.0, 0.15, 0.05],
                               atol=1e-12)
    assert rows[2]["exponent"] == 0.0 and not np.signbit(rows[2]["exponent"])
    np.testing.assert_allclose(rows[4]["per_doubling"], 2 ** 0.05)
    assert np.isinf(rows[2]["N_for_factor"])
    np.testing.assert_allclose(rows[1]["N_for_factor"], 1000 * 2 ** (1 / 0.15))


def test_preactivation_unit_matches_run_two_steps_and_theory():
    out = fs.PREACTIVATION.run(Ns=[150, 600], seeds=2, targets=("he1",))
    assert isinstance(out, Runs) and len(out) == 4
    # Same draws as run_two_steps.
    run = cp.run_two_steps(N=150, alpha1=0.35, alpha2=0.1, target="he1", seed=1)
    delta = (run.W1 - run.W0) @ run.X1.T
    unit = out.where(N=150, seed=1)[0]
    np.testing.assert_allclose(unit["rms"], np.sqrt(np.mean(delta ** 2)), rtol=1e-10)
    np.testing.assert_allclose(unit["max"], np.max(np.abs(delta)), rtol=1e-10)
    np.testing.assert_allclose(unit["max_label"], np.max(np.abs(run.y1)), rtol=1e-12)
    # The size follows C eta1 / sqrt(N) (Gaussian labels) within 25%, and shrinks with N.
    for N in (150, 600):
        g = out.where(N=N)
        assert abs(g.mean("rms") / g.mean("theory_rms") - 1) < 0.25
    assert out.where(N=600).mean("rms") < out.where(N=150).mean("rms")


@pytest.fixture(scope="module")
def counts():
    return fs.OUTLIER_COUNTS.run(N=300, seeds=[0, 1])


def test_outlier_counts_shapes_and_reproducible(counts):
    assert len(counts) == 2 * 2 * 2                  # targets x batches x seeds
    assert counts[0]["s_W2"].shape == (8,) and counts[0]["weight"].shape == (12,)
    # W1 does not depend on the batch setting.
    for target in ("he3", "he1"):
        np.testing.assert_array_equal(counts.where(target=target, batch="reused").values("s_W1"),
                                      counts.where(target=target, batch="fresh").values("s_W1"))
    again = fs.outlier_unit(N=300, alpha1=0.35, alpha2=0.45, target="he3", batch="fresh",
                            activation="tanh", seed=1, dtype="float32")   # as the chapter
    np.testing.assert_allclose(again["s_W2"],
                               counts.where(target="he3", batch="fresh", seed=1)[0]["s_W2"],
                               rtol=1e-10)
    assert set(counts.values("n_spikes_theory")) == {2}      # tanh: 1 + floor(3/2)
    assert set(counts.values("lambda")) == {3}


def test_outlier_census_is_the_one_the_command_line_reports(counts):
    # The chapter counts spikes exactly as `python -m companion simulate --null` does.
    report = simulate(N=300, alpha1=0.35, alpha2=0.45, batch="reused", target="he3",
                          seed=0, null=True)
    unit = counts.where(target="he3", batch="reused", seed=0)[0]
    assert report["n_outliers"]["W2_vs_null"] == unit["census"]
    np.testing.assert_allclose(report["null_bulk_edge"], unit["edge_null"], rtol=1e-5)


def test_heavy_tailed_labels_make_single_sample_outliers_the_census_ignores(counts):
    he3_fresh = counts.where(target="he3", batch="fresh")
    he1_fresh = counts.where(target="he1", batch="fresh")
    # Fresh batch: W2's second right singular vector points at the input of the largest
    # |y| for He_3 labels, not for Gaussian (He_1) labels.
    assert he3_fresh.mean("cos2_sample") > 0.3
    assert he1_fresh.mean("cos2_sample") < 0.1
    # He_3 gives more values above the Marchenko-Pastur edge than He_1 ...
    assert he3_fresh.mean("count_W2") > he1_fresh.mean("count_W2")
    # ... but those are off the powers of a: the census counts the first spike only.
    assert set(counts.values("census")) == {1}
    for r in he3_fresh:
        above = np.asarray(r["s_census"]) > 2.04
        assert np.all(np.asarray(r["weight"])[above][1:] < 0.25)


def test_headline_spread_and_ordering():
    out = fs.HEADLINE_SPREAD.run(Ns=[600], seeds=3, settings=(("reused", 0.35, 0.45),
                                                             ("fresh", 0.35, 0.45)))
    assert len(out) == 6
    reused = out.where(batch="reused").values("projection")
    fresh = out.where(batch="fresh").values("projection")
    assert reused.mean() > 1.5 * fresh.mean()
    assert fresh.mean() > 4 / 600               # heavy-tailed samples carry beta* a little
    assert fs.ordering_probability(reused, fresh, 1) > 0.5


def test_ordering_probability_and_seeds_needed():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.5])
    assert fs.ordering_probability(x, y, 1) == pytest.approx(3 / 6)
    assert fs.ordering_probability([5, 6], [1, 2], 3) == 1.0
    same = np.arange(10.0)
    assert abs(fs.ordering_probability(same, same, 4) - 0.5) < 0.03
    # m = z^2 (var x + var y) / diff^2.
    assert fs.seeds_needed([0.0, 2.0], [1.0, 1.0], z=2) == np.inf
    assert fs.seeds_needed([1.0, 3.0], [0.0, 0.0], z=2) == pytest.approx(4 * 2.0 / 4.0)


def test_log_slope():
    Ns = np.array([100, 200, 400, 800])
    assert fs.log_slope(Ns, 3.0 * Ns ** -0.4) == pytest.approx(-0.4)


def test_first_spike_prediction_gap_closes_like_n_to_minus_two_alpha():
    pred = fs.first_spike_prediction([1000, 16000], 0.2, 0.2)
    slope = np.log((1 - pred["overlap2"][1]) / (1 - pred["overlap2"][0])) / np.log(16)
    assert abs(slope + 0.4) < 0.02
    assert pred["limit"] == pytest.approx(0.5)


def test_convergence_direction_converges_with_intervals():
    runs = fs.CONVERGENCE.run(Ns=[100, 400, 800], seeds=2, alphas=((0.20, 0.20), (0.35, 0.45)))
    assert len(runs) == 12
    clean = runs.where(alpha1=0.20)
    gap = [1 - clean.where(N=N).mean("overlap2") for N in (100, 400, 800)]
    assert gap[-1] < gap[0]                                  # the direction converges
    for N in (100, 400, 800):
        g = clean.where(N=N)
        assert abs(g.mean("overlap2") - g.mean("overlap2_pred")) < 0.05
    # At (0.35, 0.45) the pre-activation changes are not small: the first spike falls far
    # short of its leading-order size, and its direction misses more than 1/theta^2.
    head = runs.where(alpha1=0.35)
    assert np.all(head.values("s1") < 0.85 * head.values("s1_pred"))
    for N in (100, 400, 800):
        g = head.where(N=N)
        assert 1 - g.mean("overlap2") > 2 * (1 - g.mean("overlap2_pred"))
    rates = fs.convergence_rates(runs)
    assert [(r["alpha1"], r["alpha2"]) for r in rates] == [(0.20, 0.20), (0.35, 0.45)]
    for r in rates:
        assert r["gap_low"] <= r["gap"] + 1e-12 and r["gap"] <= r["gap_high"] + 1e-12
        assert r["deficit_low"] <= r["deficit_high"]
    assert rates[0]["gap_pred"] == pytest.approx(-0.4, abs=0.03)


def test_polynomial_activation_with_reuse_blows_up():
    out = fs.BLOWUP.run(Ns=[300], seeds=[0], batches=("reused",))
    tanh, poly = out.where(activation="tanh")[0], out.where(activation="hermite:0,1,1,1")[0]
    assert poly["s1"] > 30 * tanh["s1"]
    assert poly["s1"] > 30 * poly["theory_s1"]
    # One sample makes it: the largest single-sample piece is of the size of s1.
    assert 0.3 < poly["single_sample"] / poly["s1"] < 1.5
