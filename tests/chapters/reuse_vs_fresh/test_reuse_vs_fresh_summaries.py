"""The numbers the chapter "Reused versus fresh batches" quotes
(companion/chapters/reuse_vs_fresh/summaries.py), on small synthetic runs shaped like the chapter's
(E6 to E9) whose means, ranges and ratios are known by hand; the moments against closed
forms; "not available here" without stored runs; and the stored runs shipped with the
package."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion.chapters.reuse_vs_fresh import summaries as rs
from companion.core import store
from companion.core.runs import Run, Runs

OFF = "not available here"


# -- synthetic runs -----------------------------------------------------------------------------
def _first(N: int = 100) -> Runs:
    """E6-shaped runs: at (0.2, 0.2) (Lambda = 0) and (0.4, 0.25) (Lambda = 1), two seeds."""
    rows = {  # (a1, a2, batch): (lambda, cos2 per seed, prediction, limit, limit_n, factor)
        (0.2, 0.2, "reused"): (0, (0.48, 0.52), 0.49, 0.5, 0.49, 0.98),
        (0.2, 0.2, "fresh"): (0, (0.64, 0.66), 0.66, 0.667, 0.65, 0.97),
        (0.4, 0.25, "reused"): (1, (0.53, 0.55), 0.50, 0.5, 0.495, 0.99),
        (0.4, 0.25, "fresh"): (1, (0.58, 0.60), 0.57, 0.6, 0.58, 0.95),
    }
    runs = []
    for (a1, a2, batch), (lam, cos2, pred, limit, limit_n, factor) in rows.items():
        for seed, c in enumerate(cos2):
            runs.append(Run(dict(N=N, alpha1=a1, alpha2=a2, batch=batch, target="He_1",
                                 activation="tanh"), seed,
                            dict(cos2=c, finite_size_prediction=pred, limit=limit,
                                 limit_finite_n=limit_n, spike_factor=factor, **{"lambda": lam})))
    return Runs(runs)


#: the headline's synthetic projections: (batch, alpha1) -> per N (low, mid, top), per seed
LEVELS = {("reused", 0.35): ((0.10, 0.12), (0.12, 0.16), (0.16, 0.20)),
          ("reused", 0.20): ((0.09, 0.11), (0.08, 0.10), (0.07, 0.11)),
          ("fresh", 0.35): ((0.04, 0.04), (0.02, 0.04), (0.01, 0.01))}
NS = (100, 200, 400)


def _headline(Ns=NS, left: bool = True) -> Runs:
    """E7-shaped runs: three settings, three sizes, two seeds; the second right singular
    vector carries most of beta* (cos2_1), its left vector lies on q_3."""
    runs = []
    for (batch, a1), per_N in LEVELS.items():
        for N, values in zip(Ns, per_N):
            for seed, v in enumerate(values):
                # seed 0: the second vector carries 60%; seed 1: the first carries 50%
                share = (0.2, 0.6, 0.1, 0.1) if seed == 0 else (0.5, 0.3, 0.1, 0.1)
                result = dict(projection=v, chance=4 / N,
                              **{f"cos2_{i}": s * v for i, s in enumerate(share)})
                if left:
                    weights = np.zeros((4, 5))
                    weights[0] = (0.99, 0.0, 0.0, 0.0, 0.0)
                    weights[1] = (0.01, 0.0, 0.3, 0.0, 0.1)
                    result["left"] = weights
                runs.append(Run(dict(N=N, batch=batch, alpha1=a1, alpha2=0.45, target="He_3",
                                     activation="tanh", m=4), seed, result))
    return Runs(runs)


def _relabel(runs: Runs, factor: int = 4, drop_left: bool = False) -> Runs:
    """The runs as stored paper-scale runs (``factor`` times the N)."""
    out = []
    for r in runs:
        result = {k: v for k, v in r.result.items() if not (drop_left and k == "left")}
        out.append(Run({**r.params, "N": factor * r.params["N"]}, r.seed, result))
    return Runs(out)


#: the other targets' synthetic mean projections (reused, fresh), each seed +-0.01
TARGETS = {"He_2": (0.01, 0.03), "(He_2+He_3)/sqrt2": (0.12, 0.02), "bounded odd": (0.22, 0.02),
           "He_3": (0.11, 0.03)}


def _targets(N: int = 200) -> Runs:
    runs = []
    for name, means in TARGETS.items():
        for batch, mean in zip(("reused", "fresh"), means):
            for seed, dv in enumerate((-0.01, 0.01)):
                runs.append(Run(dict(N=N, batch=batch, alpha1=0.35, alpha2=0.45, target=name,
                                     activation="tanh"), seed, dict(projection=mean + dv)))
    return Runs(runs)


#: the ablation's synthetic runs: (activation, batch) -> projections per seed, s_1, cos2_0
ABLATION = {("tanh", "reused"): ((0.15, 0.19), 2.3, 0.05),
            ("shifted_tanh", "reused"): ((0.14, 0.18), 2.5, 0.04),
            ("relu", "reused"): ((0.02, 0.10), 7.1, 0.015),
            ("relu", "fresh"): ((0.01, 0.01), 7.0, 0.005)}


def _ablation(N: int = 400) -> Runs:
    runs = []
    for (act, batch), (values, s1, c0) in ABLATION.items():
        for seed, v in enumerate(values):
            runs.append(Run(dict(N=N, batch=batch, alpha1=0.35, alpha2=0.45, target="He_3",
                                 activation=act), seed,
                            dict(projection=v, s_1=s1, cos2_0=c0 * v / np.mean(values))))
    return Runs(runs)


# -- the chapter's opening and the mechanism --------------------------------------------------
def test_stored_status_says_whether_the_stored_runs_are_read(monkeypatch):
    assert rs.stored_status(True).status == "read from the copy shipped with the package"
    off = rs.stored_status(False).status
    assert off.startswith("switched off") and OFF in off
    monkeypatch.setenv(store.DATA_ENV, "off")
    assert rs.stored_status().status == off


def test_moments_match_the_closed_forms():
    m = rs.moments()
    # He_3/sqrt6: E[z g] = E[z g^2] = 0, E[z g^3] = (945 - 9*105 + 27*15 - 27*3) / 6^1.5
    assert m.he3_zg1 == "0.0" and m.he3_zg2 == "0.0"
    assert m.he3_zg3 == f"{(945 - 9 * 105 + 27 * 15 - 27 * 3) / 6 ** 1.5:.1f}"
    # (He_2/sqrt2 + He_3/sqrt6)/sqrt2: E[z g^2] = E[z He_2 He_3]/sqrt12 = 6/sqrt12 = sqrt3
    assert m.mix_zg2 == f"{math.sqrt(3):.2f}"
    # tanh's kappa_{2,2} = E[tanh''' tanh'^2] is negative (the chapter quotes it as nonzero)
    assert float(m.tanh_k22) < 0 and float(m.tanh_k21) < 0


@pytest.mark.parametrize("point, exponent, line", [((0.35, 0.45), "+0.15", "0.30"),
                                                   ((0.40, 0.25), "+0.05", "0.20"),
                                                   ((0.20, 0.45), "-0.15", "0.60")])
def test_headline_point_gives_the_k2_exponent_and_line(point, exponent, line):
    p = rs.headline_point(point)
    assert p.k2_exponent == exponent and p.k2_line == line


# -- the first direction ----------------------------------------------------------------------
def test_first_direction_numbers_are_the_means_ranges_and_deviations():
    a = rs.first_direction(_first())
    assert a.N == "100"
    assert a.reused_mean == "0.500" and a.reused_range == "0.480 to 0.520"
    assert a.fresh_mean == "0.650" and a.fresh_range == "0.640 to 0.660"
    assert a.reused_limit_n == "0.490" and a.fresh_limit_n == "0.650"
    assert a.fresh_limit == "0.667"
    assert a.sd == "0.050"                            # 1 / (2 sqrt 100)
    assert a.dev_lambda0 == "0.030"                   # |0.52 - 0.49|
    # Lambda = 1: excesses 0.03, 0.05, 0.01, 0.03
    assert a.excess_mean == "0.030" and a.excess_hi == "0.050"
    assert a.factor_lo == "0.950"
    assert a.paper_reused == OFF and a.paper_fresh == OFF
    assert "switched off" in a.stored


def test_first_direction_reads_the_stored_runs_at_the_point():
    a = rs.first_direction(_first(), _relabel(_first(), 2))
    assert a.paper_reused == "0.500 (0.480 to 0.520)"
    assert a.paper_fresh == "0.650 (0.640 to 0.660)"
    assert a.stored == "Open markers: the stored paper-scale runs, N = 200 (2 seeds each)."


def test_first_direction_needs_runs_and_both_batches_at_the_point():
    with pytest.raises(ValueError, match="runs"):
        rs.first_direction(Runs())
    with pytest.raises(ValueError, match="fresh"):
        rs.first_direction(_first().where(batch="reused"))


# -- the headline -----------------------------------------------------------------------------
def test_headline_numbers_are_the_means_and_ranges_per_setting_and_size():
    h = rs.headline(_headline())
    assert (h.Nlo, h.Nmid, h.N, h.nseeds) == ("100", "200", "400", "2")
    assert h.chance_N == "0.0100"
    assert (h.hi_Nlo, h.hi_Nmid, h.hi_N) == ("0.110", "0.140", "0.180")
    assert (h.lo_Nlo, h.lo_Nmid, h.lo_N) == ("0.100", "0.090", "0.090")
    assert (h.fr_Nlo, h.fr_Nmid, h.fr_N) == ("0.040", "0.030", "0.010")
    assert (h.hi_min, h.hi_max, h.hi_mid_min, h.hi_mid_max) == ("0.160", "0.200", "0.120",
                                                                "0.160")
    assert (h.lo_min, h.lo_max, h.lo_mid_min, h.lo_mid_max) == ("0.070", "0.110", "0.080",
                                                                "0.100")
    assert (h.fr_min, h.fr_max) == ("0.010", "0.010")
    assert h.fr_over_chance == "1"                    # 0.01 / (4 / 400)
    assert h.fr_slope == "-1.00"                      # log(0.01/0.04) / log(400/100)
    assert {h.paper_hi_top, h.paper_lo_lo, h.paper_fr_top} == {OFF}
    assert h.paper_Ns == "n/a" and h.paper_N_top == "n/a"
    assert h.paper_slope_lo == OFF and h.paper_lo_over_fr == OFF
    assert h.hi_range == "0.160 to 0.200" and h.lo_mid_range == "0.080 to 0.100"
    # the k = 2 term's exponent alpha2 - 2 (1/2 - alpha1) at the two reused settings
    assert (h.hi_k2, h.lo_k2) == ("+0.15", "-0.15")


def test_headline_reads_the_stored_runs_at_each_of_their_sizes():
    stored = _relabel(_headline() + _headline(Ns=(800, 1600, 3200)).where(N=800), 4)
    h = rs.headline(_headline(), stored)
    assert h.paper_Ns == "400, 800, 1600, 3200"
    assert (h.paper_N_mid, h.paper_N_hi, h.paper_N_top) == ("800", "1600", "3200")
    assert h.paper_hi_lo == "0.110 (0.100 to 0.120)"
    assert h.paper_lo_hi == "0.090 (0.070 to 0.110)"
    assert h.paper_hi_top == "0.110 (0.100 to 0.120)"   # the N = 800 runs, relabelled 3200
    assert "N = 400, 800, 1600, 3200 (2 seeds each" in h.stored
    # growth, not level: from the second stored size (800) to the largest (3200, the N = 800
    # runs again): the settings' means 0.14 -> 0.11, 0.09 -> 0.10, 0.03 -> 0.04
    assert h.paper_slope_hi == f"{math.log(0.11 / 0.14) / math.log(4):+.2f}"
    assert h.paper_slope_lo == f"{math.log(0.10 / 0.09) / math.log(4):+.2f}"
    assert h.paper_slope_fr == f"{math.log(0.04 / 0.03) / math.log(4):+.2f}"
    assert h.paper_lo_top_mean == "0.100" and h.paper_lo_over_fr == "2"   # 0.10 / 0.04


def test_headline_needs_three_sizes():
    with pytest.raises(ValueError, match="runs: the headline needs three sizes"):
        rs.headline(_headline().where(lambda r: r["N"] != 200))


def test_headline_takes_the_control_to_the_middle_size_only():
    """The chapter computes the Lambda = 1 control to Nmid (the stored runs carry it on): its
    numbers there are the same, it has none at the largest size; the other two settings
    cannot stop there."""
    runs = _headline()
    h = rs.headline(runs.where(lambda r: not (r["alpha1"] == 0.20 and r["N"] == 400)))
    full = rs.headline(runs)
    assert (h.lo_Nlo, h.lo_Nmid, h.lo_mid_range) == (full.lo_Nlo, full.lo_Nmid,
                                                      full.lo_mid_range)
    assert (h.hi_N, h.fr_N, h.fr_over_chance) == (full.hi_N, full.fr_N, full.fr_over_chance)
    with pytest.raises(AttributeError):
        assert h.lo_N is None          # raises: no control at the largest size
    with pytest.raises(ValueError, match="fresh, alpha1 = 0.35 at N = 100, 200, 400"):
        rs.headline(runs.where(lambda r: not (r["batch"] == "fresh" and r["N"] == 400)))
    with pytest.raises(ValueError, match="reused, alpha1 = 0.2 at N = 100, 200"):
        rs.headline(runs.where(lambda r: not (r["alpha1"] == 0.20 and r["N"] == 200)))


# -- the outlier that carries beta* --------------------------------------------------------
def test_outlier_names_the_carrier_and_its_left_vector():
    o = rs.outlier(_headline())
    # at N = 400, reused (0.35): projections 0.16, 0.20; cos2_1 = 0.6*0.16, 0.3*0.20
    assert o.rank == "second"
    assert o.share == f"{(0.6 * 0.16 + 0.3 * 0.20) / 2:.3f}"
    assert o.first == f"{(0.2 * 0.16 + 0.5 * 0.20) / 2:.3f}"
    assert o.total == "0.180" and o.largest == "1 of 2"
    assert (o.q3, o.q1, o.q5, o.q3_frac, o.first_q1) == ("0.300", "0.010", "0.100", "0.73",
                                                          "0.99")
    assert {o.paper_N, o.paper_rank, o.paper_share, o.paper_largest} == {OFF}


def test_outlier_in_the_stored_runs_without_left_vectors():
    o = rs.outlier(_headline(), _relabel(_headline(), 4, drop_left=True))
    assert o.paper_N == "1600" and o.paper_rank == "second" and o.paper_largest == "1 of 2"
    older = rs.outlier(_relabel(_headline(), 1, drop_left=True))
    assert older.q3 == "n/a" and older.rank == "second"


# -- other targets and activations ----------------------------------------------------------
def test_other_targets_numbers_per_target_and_batch():
    t = rs.other_targets(_targets())
    assert t.N == "200"
    for tag, name in rs.TARGET_TAGS:
        assert getattr(t, f"{tag}_reused") == f"{TARGETS[name][0]:.3f}"
        assert getattr(t, f"{tag}_fresh") == f"{TARGETS[name][1]:.3f}"
        assert getattr(t, f"paper_{tag}_reused") == OFF
    assert t.bounded_mu == "0.000"                    # its linear part is cancelled
    assert float(t.bounded_zg3) > 0 and 1 < float(t.bounded_sup) < 10
    stored = rs.other_targets(_targets(), _relabel(_targets(), 2))
    assert stored.paper_bnd_reused == "0.220 (0.210 to 0.230)"
    assert "N = 400" in stored.stored


def test_activation_numbers_ratio_and_share_on_v1():
    a = rs.activations(_ablation())
    assert (a.tanh, a.tanh_min, a.tanh_max) == ("0.170", "0.150", "0.190")
    assert (a.shift, a.relu, a.relu_fresh) == ("0.160", "0.060", "0.010")
    assert a.relu_ratio == "6.0"
    # reused seeds 0.02 and 0.10 against fresh seeds at 0.01: both above the largest fresh one
    assert a.relu_fresh_max == "0.010" and a.relu_above == "2 of 2" and a.N == "400"
    assert (a.tanh_s2, a.shift_s2, a.relu_s2) == ("2.3", "2.5", "7.1")
    # cos2_0 / projection is c0 / mean for every seed
    assert a.tanh_v1_share == f"{0.05 / 0.17:.2f}" and a.relu_v1_share == f"{0.015 / 0.06:.2f}"
    assert float(a.tanh_k22) < 0 and float(a.shift_k22) < 0
    assert a.relu_m2 == "0.40"                        # ReLU: m_2 = E[delta(z)] = 1/sqrt(2 pi)
    assert a.paper_relu == OFF and a.paper_relu_fresh == OFF
    assert a.paper_relu_ratio == OFF and a.paper_N == OFF
    s = rs.activations(_ablation(), _relabel(_ablation(), 2))
    assert s.paper_relu == "0.060 (0.020 to 0.100)"
    assert s.paper_relu_fresh == "0.010 (0.010 to 0.010)"
    # ReLU in the stored runs: 0.06 against 0.01, both reused seeds above the fresh ones
    assert (s.paper_N, s.paper_relu_mean, s.paper_relu_ratio, s.paper_relu_above) == (
        "800", "0.060", "6.0", "2 of 2")


def test_activations_need_the_relu_control():
    with pytest.raises(ValueError, match="relu"):
        rs.activations(_ablation().where(lambda r: r["batch"] == "reused"))


# -- the stored runs shipped with the package -------------------------------------------------
def test_numbers_of_the_stored_runs_shipped_with_the_package():
    stored = store.load("E7")
    if stored is None:
        pytest.skip("the stored runs are switched off here")
    h = rs.headline(stored, stored)
    top = max(stored.unique("N"))
    assert h.paper_N_top == str(top) and h.N == str(top)
    assert h.paper_hi_top.startswith(h.hi_N + " (")   # the same runs, read twice
    assert float(h.hi_N) > float(h.fr_N)              # the headline: reuse learns He_3
    o = rs.outlier(stored, stored)
    assert o.paper_rank == o.rank and o.paper_share == o.share


def test_carrier_against_fresh_compares_the_best_vectors_seed_by_seed():
    def unit(N, batch, seed):
        cos2 = ([0.05, 0.12, 0.003, 0.001] if batch == "reused"
                else [0.002, 0.004 if seed else 0.2, 0.001, 0.003])
        return Run(dict(N=N, batch=batch, alpha1=0.35, alpha2=0.45, target="He_3",
                        activation="tanh", m=4), seed,
                   {f"cos2_{i}": c for i, c in enumerate(cos2)})
    runs = Runs([unit(N, b, s) for N in (500, 1000) for b in ("reused", "fresh")
                 for s in (0, 1)])
    out = rs.carrier_against_fresh(runs)
    assert out.N == "1000" and out.seeds == "2" and out.reused == "0.12"
    assert out.above == "1 of 2"            # seed 0's fresh batch has 0.2: not above it
    assert out.ratio == "1.2"               # 0.12 / ((0.2 + 0.004) / 2), two digits
    assert rs.carrier_against_fresh(None).N == "n/a"
