"""The numbers of "What each outlier learns" (companion/chapters/learned_directions/summaries.py)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.chapters.learned_directions import summaries as ts
from companion.core.runs import Run, Runs


# -- what each spike carries (E12) and the finite-N prediction -------------------------------
def _e12_run(N, point, batch, seed, dtype=None):
    """An E12 unit whose answers are chosen: spikes of orders 0, 1, 2 (the fresh batch and
    the control have no k = 2 spike on the powers of a), the k = 2 spike carrying He_3 with
    0.03 + 0.002 seed, every null spike 0.001; the census counts the k = 2 spike in seed 0."""
    k2 = batch == "reused" and point == (0.30, 0.45)
    cos2 = np.array([[0.35 + 0.01 * seed, 0.005], [0.001, 0.004],
                     [0.02, 0.03 + 0.002 * seed]])
    weight = np.array([0.9, 0.5, 0.4 if k2 else 0.01])
    result = dict(s=np.array([20.0, 2.6, 2.4]), order=np.array([0, 1, 2]), weight=weight,
                  cos2=cos2, counted=np.array([True, True, k2 and seed == 0]),
                  separate=np.array([20.0, 1.5, 1.2 + 0.1 * seed]),
                  predicted=np.array([20.0, 1.5, 1.3]),
                  s_null=np.array([19.0, 2.5, 2.3]), order_null=np.array([0, 1, 2]),
                  weight_null=np.array([0.9, 0.5, 0.4]), cos2_null=np.full((3, 2), 0.001),
                  counted_null=np.array([True, True, False]),
                  separate_null=np.array([19.0, 1.4, 1.1]),
                  predicted_null=np.array([19.0, 1.4, 1.0]), edge=2.4 + 0.1 * seed,
                  edge_self=2.2)
    params = dict(N=N, alpha1=point[0], alpha2=point[1], batch=batch,
                  activation="shifted_tanh", target="he1+he3")
    return Run(dict(params, dtype=dtype) if dtype else params, seed, result)


def test_spike_content_reads_each_spike_against_the_null_run():
    runs = Runs([_e12_run(N, point, batch, seed) for N in (512, 1024)
                 for point in ((0.30, 0.45), (0.25, 0.38)) for batch in ("reused", "fresh")
                 for seed in range(3)]
                # the largest size: the first point's reused batch only, two seeds, float32
                + [_e12_run(2048, (0.30, 0.45), "reused", seed, "float32") for seed in (0, 1)])
    out = ts.spike_content(runs)
    assert out.N == "1024" and out.seeds == "3"
    # 30, 32, 34 (x 1000) over 3 seeds: 32 +- t_2(0.975) 2 / sqrt(3) = 32 +- 4.97
    assert out.k0_he1_est == "0.36 [0.34, 0.38]" and out.k2_he3_est == "0.032 [0.027, 0.037]"
    assert out.k0_he1 == "0.36" and out.k2_he3 == "0.032" and out.k1_he3 == "0.004"
    assert out.k2_he3_ci == "[0.027, 0.037]" and out.null_he3_max == "0.001"
    assert out.chance == "0.00098"
    assert out.k2_frac == "1 of 3" and out.null_frac == "0 of 3"
    assert out.k2_st == "1.3" and out.k2_pred == "1.3"
    assert out.edge_low == "2.4" and out.edge_high == "2.6"
    assert out.thr_low == "1.47" and out.thr_high == "1.59"
    # measured over the limit law at every size with a k = 2 spike: 512 to 2048
    ratios = ts.spike_ratios(runs)
    assert [N for N, _ in ratios] == [512, 1024, 2048]
    assert out.N_ratio_first == "512" and out.N_ratio_last == "2048"
    predicted = ts.predicted_spike_content(1024, (0.30, 0.45))[2, 1]
    assert ratios[1][1] == pytest.approx(0.032 / predicted)
    table = ts.content_table(runs).splitlines()
    # 1 of 2 seeds: the exact (Clopper-Pearson) interval [0.013, 0.987]
    assert any(line.startswith(" 2048*     2  0.5 [0.013, 0.99]") for line in table), table
    assert any(line.startswith("  512  32 [27, 37]") for line in table), table
    assert max(len(line) for line in table) <= 76
    assert ts.content_table(None) == "no stored runs"
    assert ts.spike_content(None).k2_he3 == "n/a"


def test_spike_table_puts_the_limit_law_beside_each_spike():
    """book: dv-spike-overlap. The first spike's predicted beta*_1 content is its own part's
    times an overlap near one; the k = 1 term's own part carries neither direction."""
    runs = _e12_runs()
    table = ts.spike_table(runs).splitlines()
    predicted = ts.predicted_spike_content(1024, (0.30, 0.45))
    assert table[0].startswith("N = 1024, (0.30, 0.45)")
    assert table[3].split()[:2] == ["first", "0.36"]
    assert table[3].split()[2] == f"({ts.fmt(predicted[0, 0], 2)})"
    assert table[4].split()[:3] == ["k", "=", "1"] and "(0)" in table[4]
    assert 0.2 < predicted[0, 0] < 0.4 and predicted[1].max() < 1e-12
    assert max(len(line) for line in table) <= 76
    assert ts.spike_table(None) == "no stored runs"


def _e12_runs():
    return Runs([_e12_run(N, point, batch, seed) for N in (512, 1024)
                 for point in ((0.30, 0.45), (0.25, 0.38)) for batch in ("reused", "fresh")
                 for seed in range(3)]
                + [_e12_run(2048, (0.30, 0.45), "reused", seed, "float32") for seed in (0, 1)])


def test_learned_reads_each_spike_against_the_fresh_batch_of_its_seed():
    """book: ld-def-learned. The fresh units carry 0.001 of beta*_1 in their later spike and
    at most 0.005 of beta*_2 in any spike: those are the fresh levels."""
    out = ts.learned(_e12_runs())
    assert out.N == "1024" and out.seeds == "3" and out.chance == "0.00098"
    assert out.k0_he1 == "0.36" and out.k0_he1_fresh == "0.001"
    assert out.k0_he1_above == "3 of 3" and out.k0_he1_carries == "carries"
    assert out.k0_he3_above == "0 of 3" and out.k0_he3_carries == "does not carry"
    assert out.k1_he3 == "0.004" and out.k1_he3_fresh == "0.005"
    assert out.k1_he1_carries == out.k1_he3_carries == "does not carry"
    assert out.k2_he3 == "0.032" and out.k2_he3_ratio == "6.4"
    assert out.k2_he3_carries == out.k2_he1_carries == "carries"
    assert out.spikes_carrying == "2" and out.k1_counted == "3 of 3"
    assert out.fresh_first_he3 == "0.005" and out.fresh_chance == "5.1"
    assert out.z2y2 == "8" and out.y2 == "2" and out.noise_ratio == "4"
    assert float(out.fresh_first_he3_pred) == pytest.approx(
        ts.fresh_level(1024, 0.30, 0.45, j=1), rel=0.05)
    table = ts.learned_table(_e12_runs()).splitlines()
    assert table[2].split() == ["first", "0.36", "0.001", "3/3", "0.005", "0.005", "0/3"]
    assert max(len(line) for line in table) <= 76
    assert ts.learned(None).k2_he3 == "n/a" and ts.learned_table(None) == "no stored runs"


def test_limits_numbers():
    out = ts.limits()
    assert out.lim_k0_he1 == "0.33" and out.lim_k1 == "0"
    assert out.lim_k2_he1 == "0.016" and out.lim_k2_he3 == "0.0092"
    assert out.peak_he3 == "0.074" and out.N_first == "512"
    assert out.N_last == "2⁵⁰" and out.N_cross.startswith("2")
    assert 60_000 < int(out.N_peak.replace(",", "")) < 130_000


def test_the_stored_transects_in_numbers_and_in_a_table():
    """Robust to more stored sizes: the k = 1 term falls at the outermost point below the
    count line and grows at the outermost above; the k = 2 term grows above the line, and
    its own part carries He_3 far beyond the fresh batch on both sides."""
    from companion.chapters.learned_directions import transect_summaries as trs
    from companion.core import store
    runs = store.load("E14")
    if runs is None:
        pytest.skip("no stored runs (COMPANION_PAPER_DATA=off)")
    out = trs.transects(runs)
    c = [float(v) for v in out.c_slopes.split(", ")]
    assert c[0] < 0 < c[-1]
    assert [float(v) for v in out.c_exponents.split(", ")] == [-0.1, -0.06, 0.06, 0.1]
    assert out.c_verdict in ("below", "at or above") and int(out.c_units) >= 4 * 8 * 4
    assert min(float(v) for v in out.l_slope_above.split(" to ")) > 0
    low = float(out.l_own_below.split(" to ")[0])
    assert low > 10 * float(out.l_own_fresh) and low > 10 * float(out.l_own_null)
    assert out.b_peak == "13" and out.b_slope_last == "-0.08" and out.b_he1_slope == "-0.08"
    text = trs.transect_text(runs).splitlines()
    assert max(len(line) for line in text) <= 76 and text[0].startswith("(i)")
    assert trs.transect_text(None) == "no stored runs"
    assert trs.transects(None).status == "no stored runs"
