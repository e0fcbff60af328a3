"""Tests of companion.experiments.finite_size (chapter "Finite size, honestly") at small N.

Each science check is one that fails if the mechanism the chapter describes is not there:
heavy-tailed labels make single-sample outliers, reuse with a polynomial activation blows up,
the first spike's direction converges at the predicted rate, He_3 is seen with reuse only.
"""

import numpy as np
import pytest

import companion as cp
from companion.experiments import finite_size as fs


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
    tab = fs.spike_growth_table([(0.35, 0.45), (0.40, 0.25)])
    assert list(tab["k"]) == [1, 2, 3, 1, 2]
    np.testing.assert_allclose(tab["exponent"], [0.30, 0.15, 0.0, 0.15, 0.05], atol=1e-12)
    np.testing.assert_allclose(tab["per_doubling"][4], 2 ** 0.05)
    assert np.isinf(tab["N_for_factor"][2])
    np.testing.assert_allclose(tab["N_for_factor"][1], 1000 * 2 ** (1 / 0.15))


def test_preactivation_change_matches_run_two_steps_and_theory():
    out = fs.preactivation_change([150, 600], seeds=2, alpha1=0.35, targets=("he1",))
    assert out["rms"].shape == (1, 2, 2)
    # Same draws as run_two_steps.
    run = cp.run_two_steps(N=150, alpha1=0.35, alpha2=0.1, target="he1", seed=1)
    delta = (run.W1 - run.W0) @ run.X1.T
    np.testing.assert_allclose(out["rms"][0, 0, 1], np.sqrt(np.mean(delta ** 2)), rtol=1e-10)
    np.testing.assert_allclose(out["max"][0, 0, 1], np.max(np.abs(delta)), rtol=1e-10)
    # The size follows C eta1 / sqrt(N) (Gaussian labels) within 25%, and shrinks with N.
    ratio = out["rms"][0].mean(axis=1) / out["theory_rms"][0]
    assert np.all(np.abs(ratio - 1) < 0.25), ratio
    assert out["rms"][0, 1].mean() < out["rms"][0, 0].mean()


@pytest.fixture(scope="module")
def counts():
    return fs.outlier_counts(N=300, seeds=[0, 1], targets=("he3", "he1"),
                             batches=("reused", "fresh"), top_k=6)


def test_outlier_counts_shapes_and_reproducible(counts):
    assert counts["s_W2"].shape == (2, 2, 2, 6)
    assert counts["count_W2_vs_null"].shape == (2, 2, 2)
    # W1 does not depend on the batch setting.
    np.testing.assert_array_equal(counts["s_W1"][:, 0], counts["s_W1"][:, 1])
    again = fs.outlier_counts(N=300, seeds=[1], targets=("he3",), batches=("fresh",), top_k=6)
    np.testing.assert_allclose(again["s_W2"][0, 0, 0], counts["s_W2"][0, 1, 1], rtol=1e-10)
    assert counts["n_spikes_paper"] == 4
    assert list(counts["n_spikes_tanh"]) == [2, 2]


def test_stack_outlier_counts_joins_targets(counts):
    part = fs.outlier_counts(N=300, seeds=[0, 1], targets=("he1",), batches=("reused", "fresh"),
                             top_k=6)
    joined = fs.stack_outlier_counts([
        fs.outlier_counts(N=300, seeds=[0, 1], targets=("he3",), batches=("reused", "fresh"),
                          top_k=6), part])
    assert list(joined["targets"]) == ["he3", "he1"]
    for key in ("s_W2", "count_W2_vs_null", "proj", "cos2_sample"):
        np.testing.assert_allclose(joined[key], counts[key], rtol=1e-10)
    with pytest.raises(ValueError):
        fs.stack_outlier_counts([part, fs.outlier_counts(N=200, seeds=[0, 1], targets=("he3",),
                                                         top_k=6)])


def test_heavy_tailed_labels_make_single_sample_outliers(counts):
    # Fresh batch: W2's second right singular vector points at the input of the largest
    # |y| for He_3 labels, not for Gaussian (He_1) labels.
    he3_fresh, he1_fresh = counts["cos2_sample"][0, 1], counts["cos2_sample"][1, 1]
    assert he3_fresh.mean() > 0.3
    assert he1_fresh.mean() < 0.1
    # And He_3 gives more values above the Marchenko-Pastur edge than He_1.
    assert counts["count_W2"][0, 1].mean() > counts["count_W2"][1, 1].mean()


def test_headline_spread_and_ordering():
    out = fs.headline_spread([600], seeds=3, settings=(("reused", 0.35, 0.45),
                                                       ("fresh", 0.35, 0.45)))
    assert out["proj"].shape == (2, 1, 3)
    reused, fresh = out["proj"][0, 0], out["proj"][1, 0]
    assert reused.mean() > 1.5 * fresh.mean()
    assert fresh.mean() > out["chance"][0]     # heavy-tailed samples carry beta* a little
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


def test_first_spike_prediction_gap_closes_like_n_to_minus_two_alpha():
    pred = fs.first_spike_prediction([1000, 16000], 0.2, 0.2)
    slope = np.log((1 - pred["overlap2"][1]) / (1 - pred["overlap2"][0])) / np.log(16)
    assert abs(slope + 0.4) < 0.02
    assert pred["limit"] == pytest.approx(0.5)


def test_alignment_convergence_direction_converges():
    out = fs.alignment_convergence([100, 800], seeds=2, alphas=((0.20, 0.20), (0.35, 0.45)))
    assert out["s1"].shape == (2, 2, 2)
    gap = 1 - out["overlap2"][0].mean(axis=1)
    assert gap[1] < gap[0]                                   # the direction converges
    assert np.all(np.abs(out["overlap2"][0].mean(axis=1) - out["overlap2_pred"][0]) < 0.05)
    # At (0.35, 0.45) the pre-activation changes are not small: the first spike falls far
    # short of its leading-order size, and its direction misses more than 1/theta^2.
    assert np.all(out["s1"][1] < 0.85 * out["s1_pred"][1][:, None])
    assert np.all(1 - out["overlap2"][1].mean(axis=1) > 2 * (1 - out["overlap2_pred"][1]))


def test_polynomial_activation_with_reuse_blows_up():
    out = fs.polynomial_blowup([300], seeds=[0], batches=("reused",))
    tanh_s1, poly_s1 = out["s1"][0, 0, 0, 0], out["s1"][1, 0, 0, 0]
    assert poly_s1 > 30 * tanh_s1
    assert poly_s1 > 30 * out["theory_s1"][1, 0]
    # One sample makes it: the largest single-sample piece is of the size of s1.
    assert 0.3 < out["single_sample"][1, 0, 0, 0] / poly_s1 < 1.5
