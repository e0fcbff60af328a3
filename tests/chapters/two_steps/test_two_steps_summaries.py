"""The numbers and tables of the chapter "Two steps" (companion/chapters/two_steps/summaries.py,
tables.py), on small synthetic runs shaped like the stored ones (E3, E4, E5, E10, E11), whose answers are
known: power laws with chosen exponents, spike counts chosen per seed."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion.chapters.two_steps import figures as figures
from companion.chapters.two_steps import summaries as ts
from companion.chapters.two_steps import tables
from companion.chapters.two_steps.experiments import E3_POINTS, E4_PAIRS, E11_CONSTANTS
from companion.core.runs import Run, Runs
from companion.core.theory import spike_exponent

NS = (1024, 2048, 4096)
#: spike counts per (point, activation): one tuple of per-seed counts per N
COUNTS = {((0.30, 0.38), "shifted_tanh"): [(1, 2), (2, 2), (2, 2)],
          ((0.30, 0.38), "tanh"): [(1, 1), (1, 1), (1, 1)],
          ((0.30, 0.38), "gelu"): [(2, 2), (2, 2)],                     # not at the largest N
          ((0.38, 0.45), "shifted_tanh"): [(2, 2), (2, 3), (3, 3)],
          ((0.38, 0.45), "tanh"): [(1, 1), (1, 2), (2, 2)],
          ((0.38, 0.45), "gelu"): [(2, 2), (2, 2)]}


def _e11(with_check: bool = True) -> Runs:
    runs = []
    for (point, act), by_N in COUNTS.items():
        for N, per_seed in zip(NS, by_N):
            for seed, n in enumerate(per_seed):
                # strengths: k2 grows as N^0.25 from 0.5 at the smallest N; k3 fixed
                k2 = 0.5 * (N / NS[0]) ** 0.25
                runs.append(Run(dict(N=N, alpha1=point[0], alpha2=point[1], activation=act,
                                     c1=1.0, c2=1.0), seed,
                                dict(n_outliers=n, strength_k0=10.0, strength_k1=2.0,
                                     strength_k2=k2, strength_k3=0.5, edge_null=2.2,
                                     edge_self=2.0)))
    # other step constants: left out of every count, kept by the constants table
    runs.append(Run(dict(N=2048, alpha1=0.38, alpha2=0.45, activation="shifted_tanh", c1=2.0,
                         c2=1.0), 0, dict(n_outliers=9, strength_k1=3.0, strength_k2=1.5,
                                          edge_self=2.5)))
    if with_check:      # a float32 twin below the largest N: 1e-6 relative off
        twin = next(r for r in runs if r.params["N"] == 2048 and r.seed == 0
                    and r.params["activation"] == "shifted_tanh"
                    and r.params["alpha1"] == 0.38 and r.params["c1"] == 1.0)
        result = dict(twin.result, n_outliers=9,
                      **{f"strength_k{k}": twin.result[f"strength_k{k}"] * (1 + 1e-6)
                         for k in range(4)})
        runs.append(Run(dict(twin.params, dtype="float32"), 0, result))
    return Runs(runs)


def test_spike_counts_aggregate_each_point_activation_and_size():
    table = ts.spike_counts(_e11())
    assert set(table) == {(*p, a) for p, a in COUNTS}
    row = table[(0.38, 0.45, "tanh")]
    assert row["N"].tolist() == list(NS)
    assert row["seeds"].tolist() == [2, 2, 2]
    np.testing.assert_allclose(row["mean"], [1, 1.5, 2])
    assert row["min"].tolist() == [1, 1, 2] and row["max"].tolist() == [1, 2, 2]
    # neither the run with c1 = 2 nor the float32 check (both n_outliers = 9) is counted
    assert table[(0.38, 0.45, "shifted_tanh")]["max"].max() == 3
    assert table[(0.30, 0.38, "gelu")]["N"].tolist() == [1024, 2048]
    only = ts.spike_counts(_e11(), activations=("tanh",))
    assert set(only) == {(0.30, 0.38, "tanh"), (0.38, 0.45, "tanh")}


def test_emergence_numbers():
    out = ts.emergence(_e11())
    assert out.Ns == "1024, 2048, 4096" and out.Nmax == "4096" and out.seeds == "2"
    # each mean with the range over the seeds where they disagree
    assert out.a_st_counts == "1.5 [1, 2], 2, 2" and out.b_tanh_counts == "1, 1.5 [1, 2], 2"
    assert out.b_st_counts == "2, 2.5 [2, 3], 3"
    assert out.a_gelu_counts == "2, 2" and out.gelu_Nmax == "2048"
    # the lines near the two points: k = 2 at exponent -0.02, k = 4 at -0.03
    assert (out.a_edge_k, out.a_edge_exponent) == ("2", "-0.02")
    assert (out.b_edge_k, out.b_edge_exponent) == ("4", "-0.03")
    assert out.thr == "1.1"                          # half the null run's edge 2.2
    assert out.b_k3_st == "0.5" and out.b_k2_st == "0.707"
    assert out.a_k2_tanh_first == "0.5" and out.a_k2_tanh_slope == "+0.25"
    assert out.precision == "10⁻⁶"                   # as a reader writes it
    assert out.b_st_join == "1024 and 2048"         # the count first rises there
    assert ts.emergence(_e11(with_check=False)).precision == "n/a"


def test_emergence_reads_na_without_stored_runs():
    """Every measured number reads n/a; the theory's (the nearby lines) do not."""
    for runs in (None, Runs([])):
        out = ts.emergence(runs).as_dict()
        theory = {k: out.pop(k) for k in ts._EDGE_KEYS}
        assert set(out.values()) == {"n/a"}
        assert theory["b_edge_k"] == "4" and theory["a_edge_exponent"] == "-0.02"


def test_spike_counts_carry_the_strengths_and_the_precision():
    row = ts.spike_counts(_e11())[(0.38, 0.45, "shifted_tanh")]
    assert row["strength"].shape == (3, 3)
    np.testing.assert_allclose(row["strength"][:, 1], 0.5 * (np.array(NS) / NS[0]) ** 0.25)
    assert not row["float32"].any()


def test_spike_predictions_beside_the_counts():
    """The finite-N prediction per row: its strengths are predicted_terms' (to 0.5% with the
    fewer nodes), the threshold is the census's against the stored edge 2.2, and the count is
    1 + the terms above it."""
    from companion.core.finite_n import predicted_terms
    from companion.core.spikes import bbp_detection_strength

    runs = _e11(with_check=False).where(alpha1=0.38)
    pred = ts.spike_predictions(runs, activations=("shifted_tanh",), K=4)
    assert set(pred) == {(0.38, 0.45, "shifted_tanh")}
    row = pred[(0.38, 0.45, "shifted_tanh")]
    assert row["N"].tolist() == list(NS) and row["predicted"].shape == (3, 3)
    np.testing.assert_allclose(row["threshold"], bbp_detection_strength(2.2))
    full = predicted_terms(NS[-1], 0.38, 0.45, "shifted_tanh", K=4)["strength"][1:]
    np.testing.assert_allclose(row["predicted"][-1], full, rtol=5e-3)
    assert row["count"].tolist() == [1 + int((p > t).sum())
                                     for p, t in zip(row["predicted"], row["threshold"])]
    assert row["count"][-1] >= row["count"][0] >= 2      # k = 1 is above it at every size


def test_counts_with_range():
    row = {"mean": np.array([1.0, 1.75, 2.0]), "min": np.array([1, 1, 2]),
           "max": np.array([1, 2, 2])}
    assert ts.counts_with_range(row) == "1, 1.8 [1, 2], 2"


def test_the_count_figure_draws_the_summary_table():
    runs = _e11()
    table = ts.spike_counts(runs)
    fig = figures.spike_emergence_counts(runs)
    try:
        ax = fig.get_axes()[1]                     # (0.38, 0.45)
        ys = [tuple(np.round(line.get_ydata(), 6)) for line in ax.get_lines()]
        for act in ("tanh", "shifted_tanh"):
            assert tuple(np.round(table[(0.38, 0.45, act)]["mean"], 6)) in ys
    finally:
        plt.close(fig)


@pytest.mark.parametrize("draw", [figures.spike_emergence_counts,
                                  figures.spike_emergence_strengths])
def test_the_e11_figures_say_when_the_stored_runs_are_absent(draw):
    fig = draw(None)
    try:
        texts = [t.get_text() for ax in fig.get_axes() for t in ax.texts]
        assert any("stored paper-scale runs" in t for t in texts)
    finally:
        plt.close(fig)


def test_step_constants_table():
    lines = tables.step_constants(_e11()).splitlines()
    assert lines[0] == "step constants at (0.38, 0.45), N = 2048, tanh(z + 1/2)"
    assert lines[1].startswith("c1   c2")
    rows = {tuple(ln.split()[:2]): ln.split()[2:] for ln in lines[2:]}
    assert E11_CONSTANTS["N"] == 2048
    assert rows[("2.0", "1.0")] == ["3", "1.5", "2.5", "9"]
    assert rows[("1.0", "1.0")][-1] == "2.5"        # mean of the seeds' 2 and 3
    assert tables.step_constants(None) == tables.NO_RUNS


def test_counts_table():
    """The counts behind fig-ts-emergence: per point and activation the limit and the mean
    count at each N, "-" where a size is not stored (GELU at the largest)."""
    lines = tables.counts_table(_e11()).splitlines()
    assert lines[1].split()[-3:] == ["1024", "2048", "4096"]
    rows = {(ln[:14].strip(), ln[14:28].strip()): ln[28:].split() for ln in lines[2:]}
    assert rows[("(0.38, 0.45)", "tanh")] == ["2", "1", "1.5", "2"]
    assert rows[("", "tanh(z + 1/2)")][0] in ("2", "4")   # 1 + Lambda at each point
    assert rows[("", "GELU")][-1] == "-"
    assert max(len(ln) for ln in lines) <= tables.WIDTH
    assert tables.counts_table(None) == tables.NO_RUNS


def _power_runs(points, Ns, exponent_of, seeds=2, batches=("reused",), extra=None) -> Runs:
    """terms_k = N^exponent_of(point, k) (times 1.01 for seed 1), and any ``extra`` results."""
    runs = []
    for a1, a2 in points:
        for batch in batches:
            for N in Ns:
                for s in range(seeds):
                    res = {f"terms_{k}": N ** exponent_of((a1, a2), k) * (1 + 0.01 * s)
                           for k in range(4)}
                    res.update({f"leading_{k}": 2 * res[f"terms_{k}"] for k in range(4)})
                    if extra:
                        res.update(extra((a1, a2), batch, N, s))
                    runs.append(Run(dict(N=N, alpha1=a1, alpha2=a2, batch=batch), s, res))
    return Runs(runs)


def test_phase_numbers_and_table():
    # measured exponent of T_2: the predicted one, except at the first point (wrong sign)
    def exponent(point, k):
        e = spike_exponent(*point, 2)
        return -e if point == E3_POINTS[0] else e
    runs = _power_runs(E3_POINTS, (250, 500, 1000), exponent)
    out = ts.phase(runs, None)
    assert out.N == "1000" and out.seeds == "2" and out.n_points == str(len(E3_POINTS))
    assert out.agree == str(len(E3_POINTS) - 1) and out.agree_paper == "n/a"
    # the first point's exponent is negative, measured with the opposite sign: above it
    assert out.wrong == "1" and out.wrong_up == "1"
    assert out.paper_N == "n/a"
    assert ts.phase(runs, runs).agree_paper == out.agree
    lines = tables.phase_table(runs).splitlines()
    assert len(lines) == 1 + len(E3_POINTS)
    first = lines[1].split()
    assert first[-1] == f"{-spike_exponent(*E3_POINTS[0], 2):+.2f}"
    assert first[-2] == f"{spike_exponent(*E3_POINTS[0], 2):+.2f}"


def test_exponent_check_recovers_chosen_slopes():
    slopes = {0: 0.45, 2: 0.3}
    runs = _power_runs(E4_PAIRS, (512, 1024, 2048, 4096), lambda p, k: slopes.get(k, 0.0),
                       seeds=3)
    out = ts.exponent_check(runs)
    assert out.t0 == "+0.45" and out.k2_35 == "+0.30" and out.k2_20 == "+0.30"
    low, high = (float(v) for v in out.k2_40_ci.strip("[]").split(", "))
    assert low < 0.30 < high and high - low < 0.1      # Welch t over the seeds
    assert out.Nmax == "4096" and out.seeds == "3" and out.precision == "n/a"
    assert out.delta == f"{4096 ** -0.15:.2g}"
    assert set(ts.exponent_check(None).as_dict().values()) == {"n/a"}
    table = tables.slopes_table(runs).splitlines()
    assert len(table) == 2 + len(E4_PAIRS) * 2            # two header lines; T_0, T_2 each
    first = table[2].split()                              # T_0 (0.20, 0.45): predicted, slopes
    assert first[0] == "T_0" and first[4:7] == ["+0.45"] * 3
    assert table[1].split()[:3] == ["512-1k", "1k-2k", "2k-4k"]
    assert max(len(line) for line in table) <= tables.WIDTH
    assert tables.slopes_table(None) == tables.NO_RUNS


def test_leading_order_ratios():
    runs = _power_runs([(0.35, 0.45)], (500, 1000), lambda p, k: 0.1 * k)
    out = ts.leading_order(runs)
    assert out.N == "1000" and out.ratio2 == "0.5" and out.ratio0 == "0.5"
    assert out.delta_scale == f"{1000 ** -0.15:.2g}"


def test_collapse_numbers():
    def extra(point, batch, N, s):
        rel = (0.5 if batch == "fresh" else 0.2 * (N / 512) ** -0.5)
        diff = N ** (-0.4 if point == (0.20, 0.20) else 0.15)
        return dict(rel_diff=rel, diff=diff)
    runs = _power_runs([(0.20, 0.20), (0.35, 0.45)], (512, 1024, 2048), lambda p, k: 0.0,
                       batches=("reused", "fresh"), extra=extra)
    out = ts.collapse(runs)
    assert (out.Nfirst, out.Nlast) == ("512", "2048")
    assert out.rel_reused_first == "0.2" and out.rel_reused == "0.1" and out.rel_fresh == "0.5"
    assert out.diff20_slope == "-0.40" and out.diff35_slope == "+0.15"
    assert out.fresh_limit == "0.5"
    table = tables.collapse_table(runs).splitlines()
    assert len(table) == 2 + 4 and "N = 512   N = 2048" in table[1]
    assert table[2].split()[2:] == ["reused", "0.2", "0.1", "-0.40"]
    assert tables.collapse_table(None) == tables.NO_RUNS
    absent = ts.collapse(None)
    assert absent.rel_reused == "n/a" and absent.fresh_limit == "0.5"


def _spectrum_run(N=400, seed=0) -> Run:
    left = np.zeros((6, 5))
    left[0, 0], left[2, 2], left[3, 4] = 0.95, 0.6, 0.1      # the first spike, a q_3 spike
    result = dict(s_top=np.array([30.0, 2.5, 2.3, 2.2, 1.9, 1.8]), edge=2.0,
                  on_powers=left.sum(axis=1), left=left, cos2=np.array([[0.4], [0.0]]),
                  cos2_null=np.array([[0.002], [0.0]]), terms=np.array([30, 0.1, 4.0, 0.1]),
                  separate=np.array([30, 0.1, 1.6, 0.1]))
    return Run(dict(N=N, alpha1=0.35, alpha2=0.45, activation="tanh"), seed, result)


def test_spectrum_numbers():
    spec = Runs([_spectrum_run()])
    out = ts.spectrum(spec, Runs([_spectrum_run(4096, 0), _spectrum_run(4096, 1)]))
    assert out.N == "400" and out.edge == "2"
    assert out.count == "4"                       # 30, 2.5, 2.3 and 2.2 lie above 2.04
    assert out.nspikes == "2" and out.pred_tanh == "2"
    assert out.s1 == "30" and out.cos1 == "0.4" and out.cos1_null == "0.002"
    assert out.s_k2 == "2.3" and out.T2 == "4" and out.theta == "1.6"
    assert out.bbp == "2.23"                      # 1.6 + 1/1.6
    assert out.paper_N10 == "4096" and out.paper_spikes == "2 and 2"
    assert ts.spectrum(spec, None).paper_spikes == "n/a"


def test_spectrum_table():
    """Top values of the run and of its null run, with the weight on the powers of a, the
    power a spike leans on (q1 for the first spike, q3 for the k = 2 one) and cos^2 at three
    decimals."""
    run = _spectrum_run()
    run.result.update(s_null=run.result["s_top"] * 0.9, left_null=run.result["left"],
                      cos2_null=np.array([[0.002, 0.0]] * 6), cos2=np.array([[0.4, 0.0]] * 6))
    lines = tables.spectrum_table(Runs([run])).splitlines()
    assert len(lines) == 1 + 2 * 5
    assert lines[1].split() == ["target", "30", "0.95", "q1", "0.400", "0.000"]
    assert lines[3].split()[3] == "q3" and lines[2].split()[3] == "-"
    assert lines[6].split()[0] == "null"


def test_census_and_moments_tables():
    census = {"s": np.array([20.0, 2.3, 1.9]), "edge": 2.04, "count": 2,
              "weights": np.array([[0.99, 0, 0], [0.1, 0.6, 0], [0.01, 0.0, 0.0]])}
    lines = tables.census_table(census).splitlines()
    assert [ln.split()[-1] for ln in lines[1:4]] == ["a", "a∘2", "-"]
    assert lines[-1] == "null run's bulk edge 2.04: 2 spikes"
    moments = tables.moments_table(0.38, 0.45).splitlines()
    assert [ln.split()[-1] for ln in moments[1:]] == ["2", "4", "4"]   # tanh: 1 + 3 // 2
    assert moments[1].split()[1:3] == ["0", "0"]                        # tanh's odd orders


def test_moments_and_stored_sizes():
    out = ts.moments()
    assert out.lambda_b == "3"
    assert float(out.m3) < 0 and float(out.k22) < 0         # tanh's even orders exist
    assert ts.moments(0.30, 0.38).lambda_b == "1"
    sizes = ts.stored_sizes({"E4": _power_runs(E4_PAIRS, (512, 8192), lambda p, k: 0.0),
                             "E10": None})
    assert sizes.Nmax == "8192"
    # the finite-N prediction's grid reaches N = 10^6 without a run of that size
    grid = Runs([Run(dict(N=10 ** 6, alpha1=0.3, step=0.1), 0, {"count": np.ones(3)})])
    assert ts.stored_sizes({"E4": _power_runs(E4_PAIRS, (512, 8192), lambda p, k: 0.0),
                            "E15": grid}).Nmax == "8192"
    assert ts.stored_sizes({"E4": None}).Nmax == "n/a"


def _size(text: str) -> float:
    """A size as the chapter writes it ("2600", "10⁵", "1.3 × 10⁵") as a number."""
    digits = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
    text = text.strip()
    if "10" in text and text.translate(digits) != text:
        mantissa, _, power = text.rpartition("10")
        return float(mantissa.replace("×", "").strip() or 1) * 10 ** int(power.translate(digits))
    return float(text)


def test_sizes_read_as_written():
    assert (_size("2600"), _size("10⁵"), _size("1.3 × 10⁵")) == (2600, 1e5, 1.3e5)
    assert ts._size(1e5) == "10⁵" and ts._size(1.04e5) == "10⁵" and ts._size(2630) == "2600"
    assert ts._size(1.3e5) == "1.3 × 10⁵" and ts._size(1000) == "10³"


# the finite-N prediction at every stored point: about 12 s, out of the quick loop
@pytest.mark.slow
def test_prediction_errors_and_crossings_from_synthetic_e11():
    from companion.core.finite_n import predicted_terms

    runs = []
    for act in ("shifted_tanh", "gelu"):
        for N in (1024, 2048):
            pred = predicted_terms(N, 0.38, 0.45, act, K=5)["strength"]
            for seed in range(2):       # measured = predicted / 1.05: every error is 5%
                runs.append(Run(dict(N=N, alpha1=0.38, alpha2=0.45, activation=act, c1=1.0,
                                     c2=1.0), seed,
                                {**{f"strength_k{k}": pred[k] / 1.05 for k in range(5)},
                                 "edge_null": 2.04}))
    out = ts.prediction(None, Runs(runs))
    assert out.st_median == "5%" and out.st_max == "5%" and out.st_all == "5%"
    assert out.st_terms_all == "8" and out.tanh_median == "n/a" and out.taylor == "n/a"
    assert out.st_k2_thr == "1.25" and out.st_k2_edge == "2.04"
    cross, (low, high) = (_size(out.st_k2_cross),
                          (_size(x) for x in out.st_k2_ci.strip("[]").split(",")))
    assert low < cross < high and 1e3 < cross < 1e4
    assert _size(out.st_k3_cross) > _size(out.st_k2_cross)
    assert "e" not in out.st_k3_cross + out.st_k3_ci           # no program notation
    assert out.gelu_m3 == "0" and out.gelu_k21 == out.gelu_k22      # GELU - z/2 is even
    assert float(out.gelu_sig_last) > float(out.gelu_sig_first)
    assert out.gelu_N_first == "1024" and out.gelu_N_last == "2048"
    assert ts.prediction(None, None).st_median == "n/a"
