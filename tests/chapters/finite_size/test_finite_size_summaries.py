"""Tests of companion.chapters.finite_size.summaries: the numbers the chapter "Finite size, honestly"
quotes, from synthetic runs whose answers are known (and, for the outlier census and the
convergence rates, from tiny real runs), with "n/a" where the stored runs are absent and
clear errors for runs that do not fit."""

from __future__ import annotations

import re

import numpy as np
import pytest

from companion import lambda_count, n_spikes
from companion.chapters.finite_size import experiments as ex
from companion.chapters.finite_size import summaries as fs
from companion.chapters.finite_size.figures import POLYNOMIAL
from companion.core.intervals import t_interval
from companion.core.runs import Run, Runs

N = 120


def test_limits_are_the_companion_counts_at_the_headline():
    out = fs.limits()
    assert out.n_every == str(1 + lambda_count(0.35, 0.45)) == "4"
    assert out.n_tanh == str(n_spikes(0.35, 0.45, "tanh")) == "2"


def test_scales_are_the_powers_of_N_and_the_largest_labels():
    out = fs.scales()
    assert out.scale_035_1000 == "0.35" and out.scale_035_8192 == "0.26"
    assert out.scale_020_1000 == "0.13" and out.scale_045_1000 == "0.71"
    assert out.Ntenth_035 == "4.6 × 10⁶"        # 0.1 ** (1 / -0.15)
    # the self term: the expansion parameter times the typical largest He_3 label, 11.8
    assert float(out.selfterm_he3_1000) == pytest.approx(1000 ** -0.15 * 11.8, rel=0.02)


def _pre() -> Runs:
    """rms / theory_rms = 1.0 and 1.2 (He_1), 0.9 and 1.0 (He_3) at N = 60, 120."""
    rms = {("he1", 60): 1.0, ("he1", 120): 1.2, ("he3", 60): 0.9, ("he3", 120): 1.0}
    return Runs(Run(dict(N=n, target=t), seed,
                    dict(rms=r * 0.5, theory_rms=0.5, max=(3.0 if t == "he1" else 9.0) + seed))
                for (t, n), r in rms.items() for seed in (0, 1))


def test_preactivations_ratio_range_and_values_at_N():
    out = fs.preactivations(_pre(), 120)
    assert out.rms_ratio_he1 == "1 to 1.2" and out.rms_ratio_he3 == "0.9 to 1"
    assert out.rms_he1_N == "0.6"
    assert out.max_he1_N == "3.5" and out.max_he3_N == "9.5"     # mean over seeds 0, 1
    with pytest.raises(ValueError, match="N = 500 is not a size"):
        fs.preactivations(_pre(), 500)
    with pytest.raises(ValueError, match="N"):
        fs.preactivations(_pre(), 0)


def test_growth_reads_the_headline_term():
    rows = ex.spike_growth_table([(0.35, 0.45), (0.40, 0.25)], N_ref=1000)
    out = fs.growth(rows)
    assert out.g16_he3 == "1.52"                 # 16 ** 0.15
    with pytest.raises(ValueError, match="rows: no row"):
        fs.growth(rows[:1])


def test_outliers_from_tiny_runs():
    counts = ex.OUTLIER_COUNTS.run(N=N, seeds=2)
    out = fs.outliers(counts)
    assert out.chance == "0.033"
    top = len(counts[0]["s_W2"])
    for name in ("cnt_w1_he3", "cnt_w1_he1", "cnt_he3_fresh", "cnt_he3_reused",
                 "cnt_he3_fresh_null", "cnt_he1_fresh", "cnt_he1_fresh_null"):
        seeds = getattr(out, name).split(", ")
        assert len(seeds) == 2 and all(re.fullmatch(r"\d+\+?", s) for s in seeds), name
        assert all(s.endswith("+") == (int(s.rstrip("+")) >= top) for s in seeds), name
    census = counts.values("census")
    assert str(int(census.min())) in out.census_counts
    s1 = np.concatenate([counts.values("s_W2")[:, 0], counts.values("s_W2_null")[:, 0]])
    low, high = (float(v) for v in out.s1_range.split(" to "))
    assert low == pytest.approx(s1.min(), rel=0.01) and high == pytest.approx(s1.max(), rel=0.01)
    with pytest.raises(ValueError, match="counts: expected runs at one N"):
        fs.outliers(counts + Runs(Run(dict(r.params, N=2 * N), r.seed, r.result)
                                  for r in counts))


def test_seeds_text_marks_counts_at_the_top():
    assert fs._seeds_text([5, 8, 9], top=8) == "5, 8+, 9+"


def _spread(Ns=(60, 120)) -> Runs:
    """Projections chosen so that the orderings are known: at the larger N reused (0.35) is
    0.3 or 0.5, reused (0.20) 0.4 or 0.1, fresh 0.01 or 0.02."""
    value = {("reused", 0.35): (0.2, 0.25, 0.3, 0.5), ("reused", 0.20): (0.1, 0.12, 0.4, 0.1),
             ("fresh", 0.35): (0.05, 0.04, 0.01, 0.02)}
    runs = []
    for (batch, a1), v in value.items():
        for i, n in enumerate(Ns):
            for seed in (0, 1):
                runs.append(Run(dict(N=n, batch=batch, alpha1=a1, alpha2=0.45), seed,
                                dict(projection=v[2 * i + seed])))
    return Runs(runs)


def test_spread_orderings_and_ranges():
    out = fs.spread(_spread())
    assert out.seeds == "2" and out.Nhalf == "60"
    assert out.p1_fresh == "1"
    assert out.p1_020_full == "0.75"       # 3 of the 4 pairs (0.3 < 0.4)
    assert out.order_020_half == "the right order"      # 0.225 against 0.11 at N = 60
    assert out.mean_fresh_half == "0.045" and out.mean_fresh_N == "0.015"
    assert out.chance_half == "0.067"      # 4/60
    assert 0 <= float(out.p8_growth) <= 1
    # 2^2 (0.02 + 0.045) / 0.15^2 seeds for two standard errors at N = 120
    assert out.need_020_full == "12"
    swapped = Runs(Run(dict(r.params, alpha1=0.20 if r.params["alpha1"] == 0.35 else 0.35),
                       r.seed, r.result) if r.params["batch"] == "reused" else r
                   for r in _spread())
    assert fs.spread(swapped).order_020_half == "the wrong order"


def test_spread_stored_runs_and_their_absence():
    out = fs.spread(_spread())
    for name in ("stored_N", "stored_seeds", "stored_p1_lambda", "stored_range_lam3",
                 "stored_range_lam1"):
        assert getattr(out, name) == "n/a"
    assert "switched off" in out.stored_note
    stored = _spread(Ns=(4096, 8192))
    out = fs.spread(_spread(), stored)
    assert out.stored_N == "8192" and out.stored_seeds == "2"
    assert out.stored_p1_lambda == "0.75" and out.stored_range_lam3 == "0.3 to 0.5"
    assert "COMPANION_PAPER_DATA" in out.stored_note
    with pytest.raises(ValueError, match="two sizes"):
        fs.spread(_spread().where(N=60))


def test_convergence_from_tiny_runs():
    runs = ex.CONVERGENCE.run(Ns=[N // 2, N], seeds=2)
    rates = ex.convergence_rates(runs)
    out = fs.convergence(runs, rates, N)
    assert out.conv_Nmin == "60" and out.conv_Nmax == "120"
    assert out.slow_halving == "1024"                 # 2 ** (1 / 0.1)
    assert out.conv_param_change == "0.9"             # 2 ** -0.15
    head = next(r for r in rates if (r["alpha1"], r["alpha2"]) == (0.35, 0.45))
    assert float(out.slope_head) == pytest.approx(head["gap"], abs=0.006)
    assert re.fullmatch(r"\[[+-]?\d\.\d\d, [+-]?\d\.\d\d\]", out.slope_clean_ci)
    assert out.slope_head_est == f"{out.slope_head} {out.slope_head_ci}"
    # the slope is the mean of the seeds' own slopes, the interval Student's t over them
    assert head["gap"] == pytest.approx(np.mean(head["gap_seeds"]))
    t = t_interval(head["gap_seeds"])
    assert (head["gap_low"], head["gap_high"]) == pytest.approx((t.low, t.high))
    assert len(out.s1_ratio_head.split(", ")) == 2
    clean = runs.where(alpha1=0.20, alpha2=0.20, N=N)
    assert float(out.cos2_clean_N) == pytest.approx(clean.mean("cos2"), rel=0.005)
    with pytest.raises(ValueError, match="N = 1000 is not a size"):
        fs.convergence(runs, rates, 1000)
    with pytest.raises(ValueError, match="rates: no row"):
        fs.convergence(runs, rates[:1], N)


def test_blowup_reads_the_largest_N():
    runs = []
    for N_, scale in ((60, 1.0), (120, 10.0)):
        for act, s1 in (("tanh", (14.6, 13.9)), (POLYNOMIAL, (2.6e4, 1.7e4))):
            for batch in ("reused", "fresh"):
                for seed in (0, 1):
                    value = s1[seed] * scale * (1 if batch == "reused" else 0.01)
                    runs.append(Run(dict(N=N_, activation=act, batch=batch), seed,
                                    dict(s1=value, theory_s1=20.0 * scale,
                                         max_delta=5.0 + seed, single_sample=value / 2)))
    out = fs.blowup(Runs(runs))
    assert out.poly_reused_s1 == "2.6 × 10⁵, 1.7 × 10⁵"
    assert out.poly_fresh_s1 == "2600, 1700" and out.Ns == "60 and 120"
    assert out.poly_reused_delta == "5.5" and out.poly_piece_ratio == "0.5, 0.5"
    assert out.poly_blow_factor == "850"    # 1.7e5 / 200


def test_calibration_numbers_from_synthetic_runs():
    """Two sizes of planted runs, eight seeds each, whose seeds are first counted at known
    strengths: the half points with their exact intervals, the BBP values, where they
    disagree; "n/a" without stored runs."""
    S = np.array([1.0, 1.1, 1.2, 1.3, 1.4])
    first = {512: [1.1] * 2 + [1.2] * 4 + [1.3] * 2, 1024: [1.4] * 8}
    runs = Runs(Run(dict(N=n, strengths=list(S)), s,
                    {"strengths": S, "detected": S >= t - 1e-9,
                     "value": np.where(S >= t - 1e-9, S + 1 / S, np.nan),
                     "edge": 2.04, "edge_own": 2.0})
                for n, ts in first.items() for s, t in enumerate(ts))
    out = fs.calibration(runs)
    assert out.seeds == "8"
    assert out.strengths == "1.00 to 1.40 in steps of 0.10"
    assert out.thr_range == "1.15 to 1.35"
    assert out.margin_range == "1.33"          # theta + 1/theta = 1.02 x 2.04
    assert out.ratio_range == "0.87 to 1.02"      # 1.15 and 1.35 over 1.3226
    assert out.edge_offset == "+2.0%"
    # 1.15's exact interval ends below 1.33; 1.35's holds it
    assert re.fullmatch(r"at N = 512 \(1\.15 \[1\.0\d, 1\.2\d\] against 1\.33\)", out.disagree)
    assert out.pos_err == "n/a"                        # no planted strength >= 1.5
    assert out.margin_factor == "1.22"
    absent = fs.calibration(None)
    assert absent.disagree == "n/a" and absent.margin_factor == "1.22"
    # four seeds decide no end of the interval, which then holds any value
    four = fs.calibration(Runs(r for r in runs if r.seed < 4))
    assert four.disagree == "at no size"
    assert fs._exact({"low": -np.inf, "high": np.inf}) == "[−∞, ∞]"
