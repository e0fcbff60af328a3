"""The numbers and tables of the chapter "Two steps: a spiked spectrum" (book/two_steps.ipynb),
one function per reported group: the moments that decide which terms exist
(``ts-conj-parity``), the spikes one by one (``ts-sec-one-by-one``, ``ts-obs-one-by-one``),
the phase diagram (``ts-obs-phase``), the exponent check (``ts-obs-exponents``), two steps
against one (``ts-obs-one-step``) and the spectrum beside a null run (``ts-obs-spectrum``).

Each ``Numbers`` function reads ``"n/a"`` where the stored runs it needs are absent
(``COMPANION_PAPER_DATA=off``). The printed tables are :mod:`companion.chapters.two_steps.tables`.
:func:`~companion.core.spikes.spike_counts` is the one place the stored spike counts are
aggregated over seeds: the chapter's prose, its tables and
:func:`companion.chapters.two_steps.figures.spike_emergence_counts` read it. The finite-N
prediction against the stored runs is :func:`prediction`, its crossing sizes included.
"""

from __future__ import annotations

import math

import numpy as np

from companion.chapters.two_steps.experiments import (
    E3_POINTS,
    EMERGENCE_POINTS,
    GRID_CHECK_ACTIVATION,
    PHASE_K,
    bbp_position,
    fresh_relative_difference,
    local_slopes,
    sizes_by_N,
)
from companion.chapters.two_steps.prediction import (
    grid_check_rows,
    prediction_errors,
    prediction_rows,
)
from companion.core.activations import get_activation
from companion.core.experiment import precision_agreement
from companion.core.finite_n import predicted_crossing, predicted_terms
from companion.core.intervals import clopper_pearson
from companion.core.runs import Runs
from companion.core.spikes import bbp_detection_strength, default_step_runs, spike_counts
from companion.core.theory import (
    KNIFE_EDGE,
    lambda_count,
    n_spikes,
    nearest_line,
    spike_exponent,
)
from companion.presentation.book import (
    Numbers,
    fmt,
    fmt_estimate,
    fmt_fixed,
    fmt_interval,
    fmt_percent,
    fmt_signed,
    fmt_span,
    power,
)

NO_RUNS = "no stored runs"


def _precision(worst) -> str:
    """The largest float32/float64 difference as an order of magnitude, as a reader writes
    it: ``10⁻⁷``."""
    return "n/a" if worst is None else fmt(max(worst, 1e-9), 1)


#: stored experiments that hold a prediction, not simulated runs: E15, the finite-N phase
#: diagram, evaluated on a grid of N up to 10^6 (no network of that size is run)
PREDICTIONS = ("E15",)


def stored_sizes(stored: dict) -> Numbers:
    """``Nmax``: the largest N of the stored simulated runs in ``stored`` (experiment ->
    :class:`Runs` or ``None``; the predictions of :data:`PREDICTIONS` left out), the sizes the
    chapter reads rather than computes (``ts-sec-one-by-one`` and the exponent check,
    ``ts-obs-exponents``)."""
    Ns = [n for name, runs in stored.items() if runs is not None and name not in PREDICTIONS
          for n in runs.unique("N")]
    return Numbers(Nmax=max(Ns) if Ns else "n/a")


# -- the moments that decide which terms exist ----------------------------------------------
def moments(alpha1: float = 0.38, alpha2: float = 0.45) -> Numbers:
    """``m3`` and ``k22``: m_3 and kappa_{2,2} of tanh, the even-order moments that do not
    vanish (``ts-conj-parity``); ``lambda_b``: Lambda at (``alpha1``, ``alpha2``)
    (``ts-conj-expansion``)."""
    tanh = get_activation("tanh")
    return Numbers(m3=tanh.m(3), k22=tanh.kappa(2, 2), lambda_b=lambda_count(alpha1, alpha2))






#: Gauss-Hermite nodes per dimension of a sample in :func:`spike_predictions`: the default 40
#: takes 7 to 10 times longer and moved the strengths at (0.38, 0.45), N = 8192, by at most
#: 0.07% (tests/chapters/two_steps/test_two_steps_summaries.py bounds it by 0.5%; the explorer's page is built
#: with the book)
PREDICTION_NODES = 20


def spike_predictions(runs: Runs, activations=None, K: int = 5,
                      nodes: int = PREDICTION_NODES) -> dict:
    """The finite-N prediction (``dv-finite-n``, :func:`companion.core.finite_n.predicted_terms`)
    beside each row of :func:`spike_counts`: ``{(alpha1, alpha2, activation): {"N",
    "predicted" (len N, K - 1): the predicted separate strengths of the terms k = 1..K-1,
    "threshold" (len N,): the strength the census needs against the stored null runs' mean
    edge (:func:`companion.chapters.finite_size.calibration.bbp_detection_strength`), "count"
    (len N,): 1 + the number of predicted terms above it}}``. This, not the limit's
    exponents, is what a count at a finite N is compared with (the explorer)."""

    runs = default_step_runs(runs)
    out = {}
    for (a1, a2, act), row in spike_counts(runs, activations).items():
        pred, thr = [], []
        for n in row["N"]:
            edge = runs.where(alpha1=a1, alpha2=a2, activation=act, N=int(n)).mean("edge_null")
            thr.append(bbp_detection_strength(float(edge)))
            pred.append(predicted_terms(int(n), a1, a2, act, "he1", K=K,
                                        sample_nodes=nodes)["strength"][1:])
        pred, thr = np.array(pred), np.array(thr)
        out[(a1, a2, act)] = {"N": row["N"], "predicted": pred, "threshold": thr,
                              "count": 1 + (pred > thr[:, None]).sum(axis=1)}
    return out


def counts_with_range(row: dict) -> str:
    """Mean spike counts per N from a :func:`spike_counts` row, each followed by its range
    over the seeds where the seeds disagree: ``"1, 1.75 [1, 2], 2, 2"``. With 4 seeds a
    bootstrap interval of a mean of small integers says little more than the range, so the
    range (smallest to largest count) is the interval shown (``ts-obs-one-by-one``)."""
    return ", ".join(fmt(m, 2) + ("" if lo == hi else f" [{int(lo)}, {int(hi)}]")
                     for m, lo, hi in zip(row["mean"], row["min"], row["max"]))


_EMERGENCE_KEYS = ("Ns", "Nmax", "seeds", "precision", "b_st_join", "a_st_counts", "a_gelu_counts",
                   "a_tanh_counts", "b_st_counts", "b_gelu_counts", "b_tanh_counts", "thr",
                   "b_k2_st", "b_k3_st", "b_k2_gelu", "b_k2_gelu_thr",
                   "gelu_Nmax", "a_k2_tanh_first", "a_k2_tanh_last",
                   "a_k2_tanh_slope")
#: theory values of :func:`emergence`, shown also without stored runs
_EDGE_KEYS = ("a_edge_k", "a_edge_exponent", "b_edge_k", "b_edge_exponent", "knife_edge")


def emergence(runs: Runs | None) -> Numbers:
    """The numbers of the spikes one by one (``ts-sec-one-by-one``, ``ts-obs-one-by-one``)
    from the stored runs (``store.load("E11")``):

    * ``Ns``, ``Nmax``, ``seeds``: the stored sizes, the largest, the seeds of
      tanh(z + 1/2) there; ``precision``: how much float32 moves a strength;
    * ``b_st_join``: the sizes between which the count of tanh(z + 1/2) at (0.38, 0.45)
      first rises (``"2048 and 4096"``: the k = 2 spike joins);
    * ``{a,b}_{st,gelu,tanh}_counts``: mean spike count per N at (0.30, 0.38) (``a``) and
      (0.38, 0.45) (``b``) for tanh(z + 1/2), GELU and tanh (:func:`spike_counts`), with the
      range over the seeds where they disagree (:func:`counts_with_range`);
    * ``{a,b}_edge_k``, ``{a,b}_edge_exponent``: the phase line nearest to each point and
      the exponent of its term (:func:`companion.core.theory.nearest_line`: -0.02 and -0.03,
      within ``knife_edge`` of zero);
    * at (0.38, 0.45) and the largest N, tanh(z + 1/2): ``thr`` (half the null run's bulk
      edge), ``b_k2_st`` and ``b_k3_st`` (separate strengths); GELU at its largest stored
      size ``gelu_Nmax``: ``b_k2_gelu``, ``b_k2_gelu_thr`` (the crossing sizes come from the
      finite-N prediction, :func:`prediction`);
    * tanh at (0.30, 0.38): the k = 2 strength at the smallest and largest N
      (``a_k2_tanh_first``, ``a_k2_tanh_last``) and its fitted slope in log N.
    """
    edges = {"knife_edge": fmt_fixed(KNIFE_EDGE)}
    for tag, point in zip("ab", EMERGENCE_POINTS):
        k, e = nearest_line(*point)
        edges.update({f"{tag}_edge_k": k, f"{tag}_edge_exponent": fmt_signed(e)})
    if runs is None or not len(runs):
        return Numbers(**dict.fromkeys(_EMERGENCE_KEYS, "n/a"), **edges)
    agreement = precision_agreement(runs, [f"strength_k{k}" for k in range(4)])
    worst = max((v for v in agreement.values() if v is not None), default=None)
    counts = spike_counts(runs)
    runs = default_step_runs(runs)
    Ns = sorted(runs.unique("N"))
    out = {"Ns": fmt(Ns), "Nmax": Ns[-1], "precision": _precision(worst),
           "seeds": len(runs.where(N=Ns[-1], alpha1=0.38, activation="shifted_tanh"))}
    for tag, point in zip("ab", EMERGENCE_POINTS):
        for short, act in (("st", "shifted_tanh"), ("gelu", "gelu"), ("tanh", "tanh")):
            row = counts.get((*point, act))
            out[f"{tag}_{short}_counts"] = "n/a" if row is None else counts_with_range(row)
    row = counts.get((*EMERGENCE_POINTS[1], "shifted_tanh"))
    if row is not None:
        up = int(np.argmax(np.diff(row["mean"]) > 0))     # the first step at which it rises
        out["b_st_join"] = f"{int(row['N'][up])} and {int(row['N'][up + 1])}" \
            if np.any(np.diff(row["mean"]) > 0) else "n/a"
    st = runs.where(N=Ns[-1], alpha1=0.38, alpha2=0.45, activation="shifted_tanh")
    thr = st.mean("edge_null") / 2
    out.update(thr=fmt(thr), b_k2_st=fmt(st.mean("strength_k2")),
               b_k3_st=fmt(st.mean("strength_k3")))
    gelu = runs.where(alpha1=0.38, alpha2=0.45, activation="gelu")
    gN = max(gelu.unique("N"))                   # GELU's largest stored size
    gelu = gelu.where(N=gN)
    gthr = gelu.mean("edge_null") / 2
    out.update(b_k2_gelu=fmt(gelu.mean("strength_k2")), b_k2_gelu_thr=fmt(gthr), gelu_Nmax=gN)
    t = runs.where(alpha1=0.30, alpha2=0.38, activation="tanh")
    k2 = np.array([t.where(N=n).values("strength_k2") for n in Ns])
    out.update(a_k2_tanh_first=fmt(k2[0].mean()), a_k2_tanh_last=fmt(k2[-1].mean()),
               a_k2_tanh_slope=fmt_signed(np.polyfit(np.log(Ns), np.log(k2.mean(axis=1)),
                                                     1)[0]))
    return Numbers(**out, **edges)


# -- the phase diagram (E3) ------------------------------------------------------------------
def last_slopes(runs: Runs, order: int = 2) -> list[float]:
    """The local growth exponent of T_order between the two largest N at each E3 point."""
    return [local_slopes(*sizes_by_N(runs, a1, a2, f"terms_{order}"))["slope"][-1]
            for a1, a2 in E3_POINTS]


def _wrong_signs(runs: Runs) -> list[tuple[float, float]]:
    """(measured, predicted) exponent of T_2 at the E3 points where their signs differ."""
    return [(s, e) for s, e in zip(last_slopes(runs),
                                   (spike_exponent(a1, a2, 2) for a1, a2 in E3_POINTS))
            if np.sign(s) != np.sign(e)]


def _sign_agreement(runs: Runs | None) -> str:
    if runs is None or not len(runs):
        return "n/a"
    return str(len(E3_POINTS) - len(_wrong_signs(runs)))


def phase(runs: Runs, stored: Runs | None = None) -> Numbers:
    """The numbers of the phase diagram (``fig-ts-phase``, ``ts-obs-phase``): ``N`` and
    ``seeds``, the largest size and the seeds of the chapter's runs; ``n_points``: the E3
    points; ``agree`` and ``agree_paper``: at how many of them the local exponent of T_2
    has the predicted sign, with the chapter's runs and the stored ones; ``wrong`` and
    ``wrong_up``: at how many the chapter's runs have the wrong sign, and at how many of
    those the measured exponent is above the predicted one (the upward bias of small N,
    ``ts-obs-exponents``); ``paper_N``: the largest stored size."""
    Nmax = max(runs.unique("N"))
    seeds = len(runs.where(alpha1=E3_POINTS[0][0], alpha2=E3_POINTS[0][1], N=Nmax))
    has = stored is not None and len(stored)
    wrong = _wrong_signs(runs)
    return Numbers(N=Nmax, seeds=seeds, n_points=len(E3_POINTS),
                   agree=len(E3_POINTS) - len(wrong),
                   agree_paper=_sign_agreement(stored), wrong=len(wrong),
                   wrong_up=sum(s > e for s, e in wrong),
                   paper_N=max(stored.unique("N")) if has else "n/a")


# -- the exponent check (E4) -----------------------------------------------------------------
_EXPONENT_KEYS = ("t0", "k2_35", "k2_35_ci", "k2_40", "k2_40_ci", "k2_20", "k2_20_ci", "Nmax",
                  "delta", "seeds", "precision")


def exponent_check(runs: Runs | None) -> Numbers:
    """The numbers of the exponent check from the stored runs (``store.load("E4")``;
    ``fig-ts-exponents``, ``ts-obs-exponents``): ``t0``, the last local slope of T_0 at
    (0.35, 0.45); ``k2_35``, ``k2_40``, ``k2_20`` and their 95% intervals ``*_ci``, the last
    local slope of T_2 at (0.35, 0.45), (0.40, 0.25), (0.20, 0.45); ``Nmax``, ``seeds``,
    ``precision`` (float32 against float64); ``delta``: N^(0.35 - 1/2) at ``Nmax``."""
    if runs is None or not len(runs):
        return Numbers(**dict.fromkeys(_EXPONENT_KEYS, "n/a"))
    terms = [f"terms_{k}" for k in range(4)]
    worst = max((v for v in precision_agreement(runs, terms).values() if v is not None),
                default=None)
    out = {"precision": _precision(worst),
           "seeds": sizes_by_N(runs, 0.35, 0.45, "terms_0")[1].shape[1],
           "t0": fmt_signed(local_slopes(*sizes_by_N(runs, 0.35, 0.45, "terms_0"))
                            ["slope"][-1])}
    for name, pair in (("35", (0.35, 0.45)), ("40", (0.40, 0.25)), ("20", (0.20, 0.45))):
        sl = local_slopes(*sizes_by_N(runs, *pair, "terms_2"))
        out[f"k2_{name}"] = fmt_signed(sl["slope"][-1])
        out[f"k2_{name}_ci"] = fmt_interval(sl["low"][-1], sl["high"][-1], signed=True)
    Nmax = int(sl["N_high"][-1])
    out.update(Nmax=Nmax, delta=fmt(Nmax ** (0.35 - 0.5), 2))
    return Numbers(**out)


def leading_order(runs: Runs, pair=(0.35, 0.45)) -> Numbers:
    """How far the expansion is from the simulation (``fig-ts-leading``): at ``pair`` and
    the largest size ``N`` of the chapter's runs, the measured term over its leading order
    for k = 2 (``ratio2``) and k = 0 (``ratio0``), and the expansion parameter
    ``delta_scale`` = N^(alpha1 - 1/2)."""
    N = max(runs.unique("N"))
    lead = runs.where(alpha1=pair[0], alpha2=pair[1], N=N)
    return Numbers(N=N, ratio2=lead.mean("terms_2") / lead.mean("leading_2"),
                   ratio0=lead.mean("terms_0") / lead.mean("leading_0"),
                   delta_scale=fmt(N ** (pair[0] - 0.5), 2))


# -- two steps against one (E5) ---------------------------------------------------------------
_COLLAPSE_KEYS = ("Nfirst", "Nlast", "rel_reused_first", "rel_reused", "rel_fresh",
                  "diff20_slope", "diff35_slope")


def collapse(runs: Runs | None) -> Numbers:
    """Two steps against the one-step reference in the stored runs (``store.load("E5")``;
    ``ts-obs-one-step``): at (0.20, 0.20) the relative distance with a reused batch at the
    smallest and largest N (``rel_reused_first``, ``rel_reused``; sizes ``Nfirst``,
    ``Nlast``) and with a fresh batch at the largest (``rel_fresh``); the last local slope of
    the absolute distance, reused, at (0.20, 0.20) and (0.35, 0.45) (``diff20_slope``,
    ``diff35_slope``); ``fresh_limit``: the fresh batch's limit at (0.20, 0.20)
    (``ts-conj-one-step``; with eta1 = eta2 it does not depend on N)."""
    limit = fmt(float(fresh_relative_difference(0.20, 0.20, 1)), 2)
    if runs is None or not len(runs):
        return Numbers(**dict.fromkeys(_COLLAPSE_KEYS, "n/a"), fresh_limit=limit)
    Ns, rel = sizes_by_N(runs, 0.20, 0.20, "rel_diff")
    out = {"Nfirst": int(Ns[0]), "Nlast": int(Ns[-1]),
           "rel_reused_first": fmt(rel[0].mean(), 2), "rel_reused": fmt(rel[-1].mean(), 2),
           "rel_fresh": fmt(sizes_by_N(runs, 0.20, 0.20, "rel_diff", "fresh")[1][-1].mean(),
                            2)}
    for name, pair in (("20", (0.20, 0.20)), ("35", (0.35, 0.45))):
        sl = local_slopes(*sizes_by_N(runs, *pair, "diff"))
        out[f"diff{name}_slope"] = fmt_signed(sl["slope"][-1])
    return Numbers(**out, fresh_limit=limit)


# -- the spectrum beside a null run (E10) -------------------------------------------------------
def spike_count(result: dict, weight: float = 0.25) -> int:
    """Outliers of one spectrum run (:func:`companion.chapters.two_steps.experiments.spectrum_unit`)
    2% above the bulk edge whose left vector has at least ``weight`` on the powers of a."""
    top = np.asarray(result["s_top"])
    on = np.asarray(result["on_powers"])
    return int(np.sum((on >= weight) & (top > 1.02 * result["edge"])))


def spectrum(runs: Runs, stored: Runs | None = None) -> Numbers:
    """The numbers of the spectrum of W2 beside a null run (``fig-ts-spectrum``,
    ``ts-obs-spectrum``), from the first run of ``runs`` (``ex.SPECTRUM``):

    * ``N``; ``edge``, the bulk edge; ``count``, the outliers 2% above it among the top
      values; ``nspikes``, those on the powers of a; ``pred_tanh``, the companion's count;
    * ``s1``, the first spike, ``cos1`` and ``cos1_null``, cos^2 of its right vector with
      the He_1 direction with the real and the null labels;
    * ``s_k2``: the value whose left vector leans most on q_3 (the k = 2 spike); ``T2``, the
      size of the k = 2 term, ``theta``, its separate strength, ``bbp``: where a spike of
      that strength would sit (theta + 1/theta);
    * from the stored runs (``store.load("E10")``): ``paper_N10`` and ``paper_spikes``, the
      spike count on the powers of a of each seed.
    """
    run = runs[0]
    r = run.result
    top = np.asarray(r["s_top"])
    i2 = int(np.argmax(np.asarray(r["left"])[1:, 2])) + 1
    theta = float(np.asarray(r["separate"])[2])
    has = stored is not None and len(stored)
    return Numbers(
        N=run["N"], edge=float(r["edge"]), count=int(np.sum(top > 1.02 * r["edge"])),
        nspikes=spike_count(r), pred_tanh=n_spikes(run["alpha1"], run["alpha2"], "tanh"),
        s1=float(top[0]), cos1=fmt(np.asarray(r["cos2"])[0, 0], 2),
        cos1_null=fmt(np.asarray(r["cos2_null"])[0, 0], 2), s_k2=float(top[i2]),
        T2=float(np.asarray(r["terms"])[2]), theta=theta, bbp=float(bbp_position(theta)),
        paper_N10=stored[0]["N"] if has else "n/a",
        paper_spikes=" and ".join(str(spike_count(x.result)) for x in stored) if has
        else "n/a")


def _size(x: float) -> str:
    """A size as a reader writes it: an exact power of ten from 10³ on as ``10⁴``, any other
    to two significant digits (``2600``, ``1.9 × 10⁵``)."""
    k = math.log10(float(x))
    if k >= 3 and abs(k - round(k)) < 1e-9:
        return power(10, round(k))
    return fmt(float(x), 2)




# -- the finite-N prediction against the stored runs (E4, E11) -------------------------------
_PREDICTION_KEYS = tuple(f"{a}_{q}" for a in ("tanh", "st", "gelu")
                         for q in ("median", "max", "terms", "all", "terms_all")) + (
    "taylor", "fail_max", "fail_act", "fail_point", "fail_N", "fail_k", "fail_pred",
    "fail_meas", "fail_low", "fail_high") + tuple(
    f"{t}_{q}" for t in ("st_k2", "st_k3", "gelu_k2")
    for q in ("cross", "ci", "thr", "edge")) + (
    "gelu_k21", "gelu_k22", "gelu_m3", "st_k21", "st_k22", "st_m3", "gelu_sig_first",
    "gelu_sig_last", "gelu_floor_first", "gelu_floor_last", "gelu_N_first", "gelu_N_last")
_ACT_SHORT = {"tanh": "tanh", "shifted_tanh": "st", "gelu": "gelu"}
_ACT_NAME = {"tanh": r"$\tanh$", "shifted_tanh": r"$\tanh(z + 1/2)$", "gelu": "GELU"}


def _percent(x) -> str:
    return "n/a" if x is None else fmt_percent(x)


def prediction(e4: Runs | None, e11: Runs | None, point=(0.38, 0.45),
               edge_N: int = 2048) -> Numbers:
    """The finite-N prediction (``dv-finite-n``, :func:`companion.core.finite_n.predicted_terms`)
    against the stored term strengths of E4 and E11 (``ts-obs-prediction``), per activation
    (``tanh``, ``st`` = tanh(z + 1/2), ``gelu``), from
    :func:`companion.chapters.two_steps.prediction.prediction_errors`: ``{a}_median``, ``{a}_max``
    (median and largest relative error over the ``{a}_terms`` terms k >= 1 above their
    floor), ``{a}_all`` (median over all ``{a}_terms_all`` terms k >= 1); ``taylor``: the
    Taylor leading order's median error on the same terms (E4, tanh). Where it fails:
    ``fail_low``, ``fail_high``: the range of its errors on the terms at the floor with
    k >= 3, and the worst of them, ``fail_max`` (``fail_act`` at ``fail_point``,
    ``fail_N``, term ``fail_k``: predicted ``fail_pred`` against measured ``fail_meas``).

    The crossing sizes at ``point`` (:func:`companion.core.finite_n.predicted_crossing`) for
    tanh(z + 1/2)'s k = 2 and k = 3 terms and GELU's k = 2 term (``st_k2``, ``st_k3``,
    ``gelu_k2``): ``_cross``, the N at which the predicted strength reaches the census's
    threshold ``_thr`` (:func:`companion.core.spikes.bbp_detection_strength` of
    the null run's edge ``_edge``, the E11 mean at ``edge_N``), ``_ci`` its interval from
    the prediction's largest error above the floor (the N at which the mean field alone
    reaches it: :func:`~companion.core.finite_n.predicted_crossing` with ``signal_only``).

    GELU's k = 2 term (``dv-finite-n``): ``gelu_k21``, ``gelu_k22``, ``gelu_m3`` (kappa_{2,1},
    kappa_{2,2}, m_3; ``st_*`` the same for tanh(z + 1/2)), and at ``point`` its predicted
    mean field ``gelu_sig_first``, ``gelu_sig_last`` and floor ``gelu_floor_first``,
    ``gelu_floor_last`` at the smallest and largest stored GELU sizes ``gelu_N_first``,
    ``gelu_N_last`` of E11."""

    if e4 is None and e11 is None:
        return Numbers(**dict.fromkeys(_PREDICTION_KEYS, "n/a"))
    rows = prediction_rows(e4, e11)
    errors = prediction_errors(rows)
    out = dict.fromkeys(_PREDICTION_KEYS, "n/a")
    for act, short in _ACT_SHORT.items():
        e = errors.get(act)
        if e is None:
            continue
        out.update({f"{short}_median": _percent(e["median"]), f"{short}_max": _percent(e["max"]),
                    f"{short}_terms": e["terms"], f"{short}_all": _percent(e["median_all"]),
                    f"{short}_terms_all": e["terms_all"]})
    if errors.get("tanh", {}).get("leading_median") is not None:
        out["taylor"] = _percent(errors["tanh"]["leading_median"])
    at_floor = [r for r in rows if r["k"] >= 3 and not r["above_floor"]]
    if at_floor:
        worst = max(at_floor, key=lambda r: abs(r["rel_error"]))
        errs = [r["rel_error"] for r in at_floor]
        out.update(fail_max=_percent(worst["rel_error"]), fail_act=_ACT_NAME[worst["activation"]],
                   fail_point=f"({worst['alpha1']:.2f}, {worst['alpha2']:.2f})",
                   fail_N=int(worst["N"]), fail_k=worst["k"], fail_pred=fmt(worst["predicted"]),
                   fail_meas=fmt(worst["measured"]), fail_low=_percent(min(errs)),
                   fail_high=_percent(max(errs)))
    for short, act in (("gelu", "gelu"), ("st", "shifted_tanh")):
        a = get_activation(act)
        out.update({f"{short}_k21": fmt(a.kappa(2, 1)), f"{short}_k22": fmt(a.kappa(2, 2)),
                    f"{short}_m3": fmt(a.m(3))})
    rel = max(e["max"] for e in errors.values() if e["max"] is not None)
    if e11 is not None:
        base = default_step_runs(e11).where(N=edge_N, alpha1=point[0], alpha2=point[1])
        for tag, act, k in (("st_k2", "shifted_tanh", 2), ("st_k3", "shifted_tanh", 3),
                            ("gelu_k2", "gelu", 2)):
            sel = base.where(activation=act)
            if not len(sel):
                continue
            edge = sel.mean("edge_null")
            thr = bbp_detection_strength(edge)
            c = predicted_crossing(*point, act, k=k, threshold=thr, rel_error=rel,
                                   log2_N=(9, 19))
            if tag == "gelu_k2":
                gNs = sorted(default_step_runs(e11).where(activation=act, alpha1=point[0],
                                                        alpha2=point[1]).unique("N"))
                first, last = (predicted_terms(int(n), *point, act, K=3)
                               for n in (gNs[0], gNs[-1]))
                out.update(gelu_sig_first=fmt(first["signal"][2], 2),
                           gelu_sig_last=fmt(last["signal"][2], 2),
                           gelu_floor_first=fmt(first["floor"][2], 2),
                           gelu_floor_last=fmt(last["floor"][2], 2),
                           gelu_N_first=gNs[0], gelu_N_last=gNs[-1])
            out.update({f"{tag}_cross": _size(c["N"]),
                        f"{tag}_ci": f"[{_size(c['low'])}, {_size(c['high'])}]",
                        f"{tag}_thr": fmt(thr, 3),
                        f"{tag}_edge": fmt(edge, 3)})
    return Numbers(**out)


# -- the finite-N phase diagram (E15) and its check by simulation (E16) ----------------------
_PHASE_CHECK_KEYS = ("Ns_pred", "fewer_last", "more_last", "onset", "onset_a1", "onset_line",
                     "at_limit", "at_limit_first", "at_limit_last", "points", "N_pred_first",
                     "agree_all_est",
                     "seeds", "Ns_check", "agree_all", "agree_all_ci", "agree_largest",
                     "agree_largest_ci", "agree_seed_all", "agree_seed_all_ci", "N_largest",
                     "below_limit", "misses", "edge_range", "above", "below", "ho_terms",
                     "ho_median", "ho_max", "ho_k0", "ho_floor", "N_pred_last", "caught_up")


def phase_check(e15: Runs | None, e16: Runs | None, held_out: bool = False) -> Numbers:
    """The numbers of the finite-N phase diagram and its check (``fig-ts-finite-phase``,
    ``fig-ts-grid-check``; every number "n/a" without the stored runs):

    * ``Ns_pred``: E15's sizes; ``at_limit``: per size, the percentage of the square's cells
      whose predicted count equals the limit 1 + Lambda (``at_limit_first``/``_last``: at
      the smallest and the largest size);
    * ``points``, ``seeds``, ``Ns_check``: E16's design; ``agree_all``: seeds whose census
      count equals the phase diagram's count, "k of n" over every point and size, with its
      exact (Clopper-Pearson) interval ``agree_all_ci``; ``agree_largest`` and
      ``agree_largest_ci``: the same at the largest size ``N_largest``; ``agree_seed_all``:
      the same for the count against each seed's own null edge (as ``simulate --null``);
    * ``below_limit``: how many of the points the census counts below the limit at
      ``N_largest`` (seed median); ``misses``: the (point, N) whose median count differs
      from the prediction, with both counts ("none" if none); ``above``/``below``: how many
      seeds counted more / fewer than predicted; ``edge_range``: the null edges measured;
    * the prediction's error on E16's points, which the stored grids of E4 and E11 do not
      hold (a held-out set; :func:`companion.chapters.two_steps.prediction.prediction_errors`),
      with ``held_out=True`` only (a prediction at every point and size: seconds, which the
      chapter's Run all does without; else "n/a"): ``ho_median``, ``ho_max`` over the
      ``ho_terms`` terms k >= 1 above their floor; ``ho_k0``: the range of the first spike's
      relative error; ``ho_floor``: that of the terms at their floor (k >= 3);
    * ``caught_up``: the points whose median count misses the prediction at a smaller size
      and equals it in every seed at ``N_largest`` ("none" if none);
    * ``N_pred_first``, ``N_pred_last``: E15's smallest and largest size; ``agree_all_est``:
      the fraction of ``agree_all`` with its interval (``0.94 [0.90, 0.97]``); ``need``: the
      strength the census needs against a bulk edge of 2
      (:func:`companion.core.spikes.bbp_detection_strength`, no runs needed)."""
    need = fmt_fixed(bbp_detection_strength(2.0), 2)
    if e15 is None or e16 is None or not len(e15) or not len(e16):
        return Numbers(need=need, **{k: "n/a" for k in _PHASE_CHECK_KEYS})
    at_limit = []
    Ns = sorted(e15.unique("N"))
    limits: dict = {}

    def limit_count(a1: float, a2: float) -> int:
        """The limit's count of a cell: the same at every N, so computed once."""
        if (a1, a2) not in limits:
            limits[(a1, a2)] = n_spikes(a1, a2, "shifted_tanh", "reused")
        return limits[(a1, a2)]

    for N in Ns:
        same = total = fewer = more = 0
        for r in e15.where(N=N):
            a1 = float(r.params["alpha1"])
            limit = np.array([limit_count(a1, float(a2)) for a2 in np.asarray(r["alpha2"])])
            # the prediction counts at most PHASE_K terms: compare with the capped limit
            limit = np.minimum(limit, PHASE_K)
            count = np.asarray(r["count"])
            same += int(np.sum(count == limit))
            fewer += int(np.sum(count < limit))
            more += int(np.sum(count > limit))
            total += limit.size
        at_limit.append(same / total)
    onsets = []
    for N in Ns:
        col = min(e15.where(N=N), key=lambda r: abs(float(r.params["alpha1"]) - 0.25))
        a2, count = np.asarray(col["alpha2"]), np.asarray(col["count"])
        onsets.append(f"{fmt_fixed(a2[count >= 2].min())} at N = {_size(N)}"
                      if np.any(count >= 2) else f"none below 1/2 at N = {_size(N)}")
    onset_a1 = float(col.params["alpha1"])
    rows = grid_check_rows(e16)
    n = sum(r["seeds"] for r in rows)
    agree = sum(r["agree"] for r in rows)
    agree_seed = sum(r["agree_seed"] for r in rows)
    N_largest = max(r["N"] for r in rows)
    big = [r for r in rows if r["N"] == N_largest]
    n_big, agree_big = sum(r["seeds"] for r in big), sum(r["agree"] for r in big)
    misses = [r for r in rows if np.median(r["measured"]) != r["predicted"]]
    caught = sorted({(r["alpha1"], r["alpha2"]) for r in misses if r["N"] < N_largest}
                    & {(r["alpha1"], r["alpha2"]) for r in big if r["agree"] == r["seeds"]})
    edges = np.concatenate([r["edge_null"] for r in rows])
    held = prediction_rows(None, e16) if held_out and "strength_k0" in e16[0].result else []
    err = prediction_errors(held).get(GRID_CHECK_ACTIVATION, {})
    k0 = [100 * r["rel_error"] for r in held if r["k"] == 0]
    floor = [100 * r["rel_error"] for r in held if r["k"] >= 3 and not r["above_floor"]]

    def ci(k, m):
        lo, hi = clopper_pearson(k, m)
        return fmt_interval(lo, hi)

    return Numbers(
        need=need, N_pred_first=_size(Ns[0]), N_pred_last=_size(Ns[-1]),
        Ns_pred=", ".join(_size(N) for N in Ns), onset="; ".join(onsets),
        fewer_last=fmt_percent(fewer / total), more_last=fmt_percent(more / total),
        onset_a1=fmt_fixed(onset_a1, 3), onset_line=fmt_fixed(0.5 - onset_a1, 3),
        at_limit=", ".join(fmt_percent(v) for v in at_limit),
        at_limit_first=fmt_percent(at_limit[0]), at_limit_last=fmt_percent(at_limit[-1]),
        points=len({(r["alpha1"], r["alpha2"]) for r in rows}), seeds=rows[0]["seeds"],
        Ns_check=", ".join(str(N) for N in sorted({r["N"] for r in rows})),
        agree_all=f"{agree} of {n}", agree_all_ci=ci(agree, n),
        agree_all_est=fmt_estimate(agree / n, *clopper_pearson(agree, n)),
        agree_largest=f"{agree_big} of {n_big}", agree_largest_ci=ci(agree_big, n_big),
        agree_seed_all=f"{agree_seed} of {n}", agree_seed_all_ci=ci(agree_seed, n),
        N_largest=N_largest,
        caught_up=", ".join(f"({a1:.2f}, {a2:.3g})" for a1, a2 in caught) or "none",
        below_limit=sum(np.median(r["measured"]) < r["limit"] for r in big),
        misses=("none" if not misses else "; ".join(
            f"({r['alpha1']:.2f}, {r['alpha2']:.3g}) at N = {r['N']}: measured "
            f"{fmt(np.median(r['measured']), 2)}, predicted {r['predicted']}" for r in misses)),
        above=sum(c > r["predicted"] for r in rows for c in r["measured"]),
        below=sum(c < r["predicted"] for r in rows for c in r["measured"]),
        edge_range=f"{fmt_fixed(edges.min())} to {fmt_fixed(edges.max())}",
        ho_terms=err.get("terms", "n/a"),
        ho_median=fmt_percent(err["median"]) if err else "n/a",
        ho_max=fmt_percent(err["max"]) if err else "n/a",
        ho_k0=fmt_span(k0, 1, signed=True) + "%" if k0 else "n/a",
        ho_floor=fmt_span(floor, 0, signed=True) + "%" if floor else "n/a")
