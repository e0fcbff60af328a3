"""The numbers and tables of the chapter "One step" (companion/chapters/one_step/summaries.py): on
synthetic runs shaped like those of companion.chapters.one_step.experiments, whose numbers are known
(a remainder falling exactly like N^-1/2, an outlier growing exactly like N^alpha), and on
tiny real runs for the tables (every line fits the page's column)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.chapters.one_step import experiments as ex
from companion.chapters.one_step import summaries as summary
from companion.core.runs import Run, Runs
from companion.presentation.book import Numbers, fmt

M1_TANH = "0.6057"          # E tanh'(zeta)
LIMIT_HE1 = "0.857"         # m1 sqrt(mu*^2 + E y^2) for He_1, psi = 1
ETAS = [0.0, 1.0, 2.0, 3.0]
ALPHAS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.45]
MAX_LINE = 76               # the page's code column (tests/test_book.py)


def _rank_one_runs() -> Runs:
    runs = []
    for N in (100, 400):
        for seed, g in enumerate((0.8, 0.9)):
            runs.append(Run(dict(N=N, target="he1", activation="tanh"), seed,
                            dict(g_norm=g, spike_norm=g - 0.01, r_norm=2.0 / np.sqrt(N))))
    return Runs(runs)


def test_rank_one_reads_the_slope_the_ratio_and_the_limit():
    ns = summary.rank_one(_rank_one_runs())
    assert isinstance(ns, Numbers)
    assert (ns.N, ns.N_min, ns.seeds) == ("400", "100", "2")
    assert ns.r_slope == "-0.5"                       # r_norm = 2 / sqrt(N) exactly
    assert ns.r_ratio == "0.12"                       # 0.1 / 0.85
    assert ns.spike_meas == "0.84"
    assert ns.m1 == M1_TANH and ns.spike_theory == LIMIT_HE1


def test_rank_one_table_one_line_per_size():
    lines = summary.rank_one_table(_rank_one_runs()).splitlines()
    assert "||R||sqrt(N)" in lines[0] and len(lines) == 3
    assert lines[1].split() == ["100", "0.85", "0.84", "0.2", "2"]


def test_spectrum_numbers_and_table():
    run = Run(dict(N=50, eta=3.0, target="he1", activation="tanh"), 0,
              dict(s_W0=np.array([1.99, 1.97, 1.9]), s_W1=np.array([3.123, 1.989, 1.98]),
                   edge=2.0, phi=1.0, theory_s1=2.96))
    ns = summary.spectrum(Runs([run]))
    assert (ns.N, ns.eta, ns.edge) == ("50", "3.0", "2.00")
    assert (ns.w0_top, ns.s1, ns.s2, ns.s1_theory) == ("1.99", "3.12", "1.99", "2.96")
    table = summary.spectrum_table(Runs([run])).splitlines()
    assert table[1] == "W1: top singular values 3.12, 1.99, 1.98; bulk edge 2.00"
    assert table[2] == "predicted outlier of W1: 2.96"


def _transition_runs(N=100, d=None, seeds=(0, 1), shift=0.0, n_seeds=None) -> Runs:
    runs = []
    etas = np.array(ETAS)
    for seed in seeds:
        sign = 1 if seed % 2 == 0 else -1
        params = dict(N=N, etas=list(ETAS), target="he1", activation="tanh")
        if d is not None:
            params.update(d=d, n=d)
        theory_s1 = np.where(etas > 1, etas + 1 / np.maximum(etas, 1e-9), 2.0)
        runs.append(Run(params, seed, dict(
            eta=etas, s1=theory_s1 + shift + sign * 0.05,
            cos2_beta=np.where(etas > 1, 0.3 + sign * 0.01, 0.004),
            overlap_u1=np.full(4, 0.6), overlap_a=np.full(4, 0.6),
            plugin_s1=theory_s1 + shift + sign * 0.05 + 0.01,
            theory_s1=theory_s1, theory_cos2=np.where(etas > 1, 0.3, 0.0),
            theory_overlap_u1=np.full(4, 0.6), theory_overlap_a=np.full(4, 0.6),
            eta_c=1.17, edge=2.0 if d is None else 1 + np.sqrt(N / d),
            a_norm=1.0, u1_norm=1.4 + 0.1 * sign)))
    return Runs(runs)


def test_transition_reads_eta_two_and_the_errors():
    ns = summary.transition(_transition_runs(shift=0.1))
    assert (ns.N, ns.seeds, ns.eta_c) == ("100", "2", "1.17")
    assert (ns.s1, ns.s1_th) == ("2.60", "2.50")      # eta + 1/eta, plus the shift
    assert ns.s1_sd == "0.05"
    assert (ns.cos2, ns.cos2_sd, ns.cos2_th) == ("0.3", "0.01", "0.3")
    assert ns.below == "0.004" and ns.chance == "0.01"
    assert ns.err_limit == "0.1"                      # |shift +- 0.05|, on average
    assert ns.err_plugin == "0.01"                   # each seed's own theta: 0.01 off
    # theta at eta = 2 for tanh and He_1 at psi = 1: 2 m1 sqrt(2)
    assert ns.theta2 == "1.71"
    assert all(getattr(ns, k) == "n/a" for k in ("paper_N", "paper_s1", "paper_cos2_th"))


def test_transition_with_stored_runs():
    stored = _transition_runs(N=400, seeds=(0, 1, 2, 3))
    ns = summary.transition(_transition_runs(), stored)
    assert (ns.paper_N, ns.paper_seeds) == ("400", "4")
    assert (ns.paper_s1, ns.paper_s1_th, ns.paper_cos2) == ("2.50", "2.50", "0.3")
    assert summary.transition(_transition_runs(), Runs()).paper_N == "n/a"


def test_transition_table_says_when_the_stored_runs_are_absent():
    without = summary.transition_table(_transition_runs()).splitlines()
    assert without[0].startswith("No stored paper-scale runs")
    assert without[2] == "eta = 2, N = d = n = 100, 2 seeds"
    assert without[-1] == "||u1|| per seed: 1.5, 1.3 (limit 1.41)"
    with_stored = summary.transition_table(_transition_runs(), _transition_runs(N=400))
    assert not with_stored.startswith("No stored")


def test_transition_needs_the_step_size_of_the_table():
    runs = Runs([Run(dict(N=50), 0, dict(eta=np.array([0.0, 1.0])))])
    with pytest.raises(ValueError, match="eta = 2"):
        summary.transition(runs)


def test_rectangular_per_shape_and_missing_shape():
    rect = _transition_runs(N=50, d=100) + _transition_runs(N=100, d=50)
    ns = summary.rectangular(rect)
    assert (ns.N, ns.seeds) == ("100", "2")
    assert (ns.edge_half, ns.edge_two) == ("1.71", "2.41")
    assert ns.eta_c_half == ns.eta_c_two == "1.17"     # the synthetic runs share eta_c
    # measured at eta = 3: the mean of 0.3 +- 0.01 over the two seeds, against 0.3
    assert (ns.cos2_half, ns.cos2_half_th, ns.cos2_two) == ("0.30", "0.30", "0.30")
    half = summary.rectangular(_transition_runs(N=50, d=100))
    assert half.edge_two == half.cos2_two == half.cos2_two_th == "n/a"
    lines = summary.rectangular_table(rect).splitlines()
    assert lines[0] == "at eta = 3:"
    assert [ln.split()[:3] for ln in lines[2:]] == [["0.5", "50", "100"], ["2", "100", "50"]]


def _growth_runs(Ns=(100, 200), seeds=(0, 1), const=0.9) -> Runs:
    alphas = np.array(ALPHAS)
    runs = []
    for N in Ns:
        for seed in seeds:
            sign = 1 if seed % 2 == 0 else -1
            runs.append(Run(dict(N=N, alphas=list(ALPHAS), target="he1", activation="tanh"),
                            seed, dict(alpha=alphas, s1=const * N ** alphas,
                                       theory_s1=0.8 * N ** (alphas / 2),
                                       cos2_beta=np.full(6, 0.49 + 0.01 * sign),
                                       overlap_u1=np.full(6, 0.99), cos2_u1=0.5 + 0.01 * sign,
                                       saturation=0.5)))
    return Runs(runs)


def test_growth_slopes_are_the_exponents():
    ns = summary.growth(_growth_runs())
    assert (ns.N, ns.N_min, ns.seeds) == ("200", "100", "2")
    assert (ns.slope_sim, ns.slope_sim_low) == ("0.4", "0.1")    # s1 = 0.9 N^alpha
    assert (ns.slope_th, ns.slope_th_low) == ("0.2", "0.05")     # theory N^(alpha/2)
    assert ns.s1_over_eta == "0.9" and ns.s1_over_eta_limit == LIMIT_HE1
    assert (ns.sat, ns.sat_meas, ns.sat_sd) == ("0.50", "0.49", "0.01")
    assert (ns.u1_meas, ns.u1_sd, ns.overlap_u1_max) == ("0.5", "0.01", "0.99")
    assert ns.paper_N2 == "n/a"


def test_growth_with_stored_runs_reads_the_two_largest_stored_sizes():
    stored = _growth_runs(Ns=(512, 1024, 2048), const=1.1)
    ns = summary.growth(_growth_runs(), stored)
    assert (ns.paper_N2, ns.paper_slope, ns.paper_slope_th) == ("2048", "0.4", "0.20")
    assert ns.paper_sat == "0.49"


def test_growth_needs_two_sizes():
    with pytest.raises(ValueError, match="two sizes"):
        summary.growth(_growth_runs(Ns=(100,)))


def test_growth_table():
    lines = summary.growth_table(_growth_runs()).splitlines()
    assert lines[0] == "local slope of log s1 against log N, N = 100 to 200"
    assert lines[2].split() == ["0.1", "0.1", "0.05"]
    assert "cos^2(u1, beta*) per seed: 0.51, 0.49" in lines


def test_empty_runs_are_refused_by_name():
    for f in (summary.rank_one, summary.spectrum, summary.transition, summary.growth,
              summary.directions, summary.u1_check):
        with pytest.raises(ValueError, match="runs must be non-empty Runs"):
            f(Runs())


@pytest.fixture(scope="module")
def tiny():
    return {"directions": ex.DIRECTIONS.run(Ns=[40, 80], seeds=3),
            "u1": ex.U1_CHECK.run(N=40, seeds=30),
            "transition": ex.TRANSITION.run(N=60, etas=[0.0, 1.0, 2.0, 3.0], seeds=2),
            "rank_one": ex.RANK_ONE.run(Ns=[40, 80], seeds=2),
            "spectrum": ex.SPECTRUM.run(N=60, eta=3.0, seeds=1),
            "growth": ex.GROWTH.run(Ns=[40, 80], seeds=2)}


def test_directions_from_real_runs(tiny):
    runs = tiny["directions"]
    ns = summary.directions(runs)
    assert (ns.N, ns.N_min, ns.seeds, ns.size_ratio) == ("80", "40", "3", "2")
    he3 = runs.where(N=80, target="he3")
    assert ns.he3_cos2 == fmt(he3.mean("cos2")[0], 2)
    assert ns.he3_level == fmt(he3[0]["theory_cos2"][0], 2)
    mix = runs.where(N=80, target="he1+he3").values("cos2")[:, 1]
    assert ns.mix_he3_spread == fmt(mix.max() / np.median(mix), 2)
    he3_small = runs.where(N=40, target="he3").mean("cos2")[0]
    assert ns.he3_ratio == fmt(he3_small / he3.mean("cos2")[0], 2)
    # the predicted fall of the noise level between the two sizes: about their ratio
    level_small = runs.where(N=40, target="he3")[0]["theory_cos2"][0]
    assert ns.he3_ratio_th == fmt(level_small / he3[0]["theory_cos2"][0], 2)
    assert 1.2 < float(ns.he3_ratio_th) < 2.5
    assert ns.he1_th == fmt(runs.where(N=80, target="he1")[0]["theory_cos2"][0])
    assert float(ns.he1_cos2) > 10 * float(ns.he3_cos2)    # He_1 learned, He_3 not
    with pytest.raises(ValueError, match="missing: he1\\+he3"):
        summary.directions(runs.where(lambda r: r["target"] != "he1+he3"))


def test_u1_check_from_real_runs(tiny):
    ns = summary.u1_check(tiny["u1"])
    vals = 40 * tiny["u1"].where(target="he3").values("cos2")[:, 0]
    assert ns.draws == "30"
    assert ns.he3_mean == fmt(vals.mean(), 2)
    assert ns.he3_se == fmt(vals.std() / np.sqrt(30), 1)
    lines = summary.u1_table(tiny["u1"]).splitlines()
    assert lines[0] == "d * cos^2(u1, beta*_k) over 30 draws of the data, N = d = n = 40"
    assert [ln.split()[0] for ln in lines[2:]] == ["he3", "he1+he3"]
    assert lines[2].split()[-1] == "7"          # the He_3 level, 7/d, times d


def test_tables_of_real_runs_fit_the_column_and_numbers_are_filled(tiny):
    tables = [summary.rank_one_table(tiny["rank_one"]),
              summary.spectrum_table(tiny["spectrum"]),
              summary.transition_table(tiny["transition"]),
              summary.growth_table(tiny["growth"]),
              summary.directions_table(tiny["directions"]),
              summary.u1_table(tiny["u1"])]
    wide = [ln for t in tables for ln in t.splitlines() if len(ln) > MAX_LINE]
    assert not wide, wide
    numbers = [summary.rank_one(tiny["rank_one"]), summary.spectrum(tiny["spectrum"]),
               summary.transition(tiny["transition"]), summary.growth(tiny["growth"]),
               summary.directions(tiny["directions"]), summary.u1_check(tiny["u1"])]
    for ns in numbers:
        values = ns.as_dict()
        bad = {k: v for k, v in values.items()
               if not k.startswith("paper_") and (v in ("n/a", "nan", "") or "nan" in v)}
        assert not bad, bad
