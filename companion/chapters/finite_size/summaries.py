"""The numbers of the chapter "Finite size, honestly" (book/finite_size.ipynb), one function
per section: the limits it compares with (``fs-conj-count``), the small parameters
(``sec-fs-scales``), the outliers and the spike census at one size (``sec-fs-outliers``), the
spread over seeds (``sec-fs-spread``), the convergence of the first spike
(``sec-fs-convergence``), the blow-up of a polynomial activation (``sec-fs-blowup``) and
the census calibrated by planted terms (``fs-obs-calibration``)."""

from __future__ import annotations

import numpy as np

from companion.chapters.finite_size import calibration as cal
from companion.chapters.finite_size import experiments as ex
from companion.chapters.finite_size.figures import POLYNOMIAL
from companion.core.runs import Runs
from companion.core.theory import lambda_count, n_spikes
from companion.core.validation import positive_int
from companion.presentation.book import (
    Numbers,
    fmt,
    fmt_fixed,
    fmt_interval,
    fmt_signed,
    fmt_span,
)


def _span(values, digits: int = 2) -> str:
    """``"low to high"`` of ``values``, each with :func:`fmt`."""
    return f"{fmt(min(values), digits)} to {fmt(max(values), digits)}"


def limits() -> Numbers:
    """The companion's limits at the headline exponents (``fs-conj-count``): ``n_every``,
    the outliers of W2 with an activation that has every order (1 + Lambda), and ``n_tanh``,
    those with tanh (1 + floor(Lambda / 2))."""
    return Numbers(n_every=1 + lambda_count(*ex.HEADLINE),
                   n_tanh=n_spikes(*ex.HEADLINE, "tanh"))


def scales() -> Numbers:
    """The expansion parameter N^(alpha1 - 1/2) and the largest label (``fs-conj-scales``,
    section ``sec-fs-scales``): ``scale_<alpha1>_<N>`` at alpha1 = 0.20, 0.35, 0.45 and
    N = 1000 (0.35 also at 8192), ``Ntenth_035``: the N at which it reaches 0.1 for
    alpha1 = 0.35; ``selfterm_he3_1000``: the expansion parameter at alpha1 = 0.35 times
    the typical largest |label| of n = 1000 He_3 samples (``ex.typical_max_label``), the
    size of one sample's self term. Analytic: no runs."""
    a1s, Ns = [0.20, 0.35, 0.45], [1000, 8192]
    scale = ex.preactivation_scale(Ns, a1s)
    max_he3 = float(ex.typical_max_label("he3", 1000))
    return Numbers(scale_020_1000=fmt(scale[0, 0], 2), scale_035_1000=fmt(scale[1, 0], 2),
                   scale_035_8192=fmt(scale[1, 1], 2), scale_045_1000=fmt(scale[2, 0], 2),
                   Ntenth_035=fmt(0.1 ** (1 / (ex.HEADLINE[0] - 0.5)), 2),
                   selfterm_he3_1000=fmt(scale[1, 0] * max_he3, 2))


def preactivations(pre: Runs, N: int) -> Numbers:
    """The measured pre-activation changes (``fs-obs-scales``) of ``ex.PREACTIVATION`` runs:
    ``rms_ratio_he1``, ``rms_ratio_he3``: the range over the sizes of the measured root mean
    square over the derived typical size; ``rms_he1_N``, ``max_he1_N``, ``max_he3_N``: the
    mean root mean square and largest change at the size ``N``."""
    N = positive_int(N, "N")
    if not pre.where(N=N):
        raise ValueError(f"N = {N} is not a size of the runs {sorted(pre.unique('N'))}")
    ratio = {t: [g.mean("rms") / g.mean("theory_rms") for g in runs.groups("N").values()]
             for (t,), runs in pre.groups("target").items()}
    at_N = {t: pre.where(target=t, N=N) for t in ("he1", "he3")}
    return Numbers(rms_ratio_he1=_span(ratio["he1"]), rms_ratio_he3=_span(ratio["he3"]),
                   rms_he1_N=fmt(at_N["he1"].mean("rms"), 2),
                   max_he3_N=fmt(at_N["he3"].mean("max"), 2),
                   max_he1_N=fmt(at_N["he1"].mean("max"), 2))


def growth(rows: list[dict]) -> Numbers:
    """How slowly the spike terms grow (``fs-conj-scales`` (ii)), from the rows of
    ``ex.spike_growth_table`` (the chapter prints them): ``g16_he3``, the growth of the
    headline He_3 term (k = 2 at (0.35, 0.45)) over a sixteen times wider network."""
    def row(a1, a2, k):
        try:
            return next(r for r in rows if (r["alpha1"], r["alpha2"], r["k"]) == (a1, a2, k))
        except StopIteration:
            raise ValueError(f"rows: no row for (alpha1, alpha2, k) = {(a1, a2, k)}") from None

    return Numbers(g16_he3=fmt(16 ** row(*ex.HEADLINE, 2)["exponent"]))


def _seeds_text(values, top: int) -> str:
    """Counts seed by seed; a count that reached the top of the computed values is ``8+``."""
    return ", ".join(f"{int(c)}+" if c >= top else str(int(c)) for c in values)


def outliers(counts: Runs) -> Numbers:
    """The outliers above the bulk edge and the spike census at one size
    (``fs-obs-outliers``, ``fs-obs-census``), from ``ex.OUTLIER_COUNTS`` runs (one N):

    * ``cnt_<matrix>_<target>[_<batch>][_null]``: the counts above the edge 2 plus 2% seed
      by seed (``8+``: every computed value); ``s1_range``: the first singular value over
      all runs and null runs;
    * ``census_counts``: what the census counts, in words; ``k2_ratio``, ``k2_weight``: the
      candidate k = 2 spike of the reused He_3 runs (second value over the null edge, weight
      of its left vector on the powers of a); ``edge_null_he3_fresh``: the null edges;
    * ``cos2_sample_<target>_fresh``: cos^2 of the second right vector with the input of the
      largest label; ``proj_he3_<batch>``: the projection on the top-4 right subspace;
      ``chance``: 4/N."""
    Ns = counts.unique("N")
    if len(Ns) != 1:
        raise ValueError(f"counts: expected runs at one N, got N = {sorted(Ns)}")
    N, top = int(Ns[0]), len(counts[0]["s_W2"])

    def per_seed(target, batch, key):
        return counts.where(target=target, batch=batch).values(key)

    census = counts.values("census")
    k2 = counts.where(target="he3", batch="reused")
    s1 = np.concatenate([counts.values("s_W2")[:, 0], counts.values("s_W2_null")[:, 0]])
    return Numbers(
        cnt_w1_he3=_seeds_text(per_seed("he3", "reused", "count_W1"), top),
        cnt_w1_he1=_seeds_text(per_seed("he1", "reused", "count_W1"), top),
        cnt_he3_fresh=_seeds_text(per_seed("he3", "fresh", "count_W2"), top),
        cnt_he3_reused=_seeds_text(per_seed("he3", "reused", "count_W2"), top),
        cnt_he3_fresh_null=_seeds_text(per_seed("he3", "fresh", "count_W2_null"), top),
        cnt_he1_fresh=_seeds_text(per_seed("he1", "fresh", "count_W2"), top),
        cnt_he1_fresh_null=_seeds_text(per_seed("he1", "fresh", "count_W2_null"), top),
        census_counts=(f"{int(census.min())} spike in every run" if census.max() == 1
                       else f"from {int(census.min())} to {int(census.max())} spikes"),
        k2_ratio=_span([r["s_census"][1] / r["edge_null"] for r in k2], 3),
        k2_weight=_span([r["weight"][1] for r in k2]),
        edge_null_he3_fresh=fmt(per_seed("he3", "fresh", "edge_null")),
        cos2_sample_he3_fresh=fmt(per_seed("he3", "fresh", "cos2_sample").mean(), 2),
        cos2_sample_he1_fresh=fmt(per_seed("he1", "fresh", "cos2_sample").mean(), 2),
        proj_he3_reused=fmt(per_seed("he3", "reused", "proj").mean(), 2),
        proj_he3_fresh=fmt(per_seed("he3", "fresh", "proj").mean(), 2),
        chance=fmt(4 / N, 2), s1_range=_span(s1))


def spread(runs: Runs, stored: Runs | None = None) -> Numbers:
    """The spread of the headline statistic over seeds (``fs-obs-spread``), from
    ``ex.HEADLINE_SPREAD`` runs at two sizes and the stored paper-scale runs ``stored``
    (``"n/a"`` where they are absent):

    * ``seeds``, ``Nhalf``: the seeds per setting and the smaller size;
    * ``p1_fresh``, ``p1_020_full``, ``p1_growth``, ``p8_growth``: the probability that one
      run (eight, ``p8``) of each setting comes in the right order
      (``ex.headline_orderings``): reused (0.35, 0.45) against fresh and against reused
      (0.20, 0.45) at the larger N, and at the larger N against the smaller;
      ``need_020_full``: seeds per setting for two standard errors between the two reused
      settings at the larger N (``ex.seeds_needed``); ``order_020_half``: "the right order"
      or "the wrong order" of their means at the smaller N;
    * ``mean_fresh_half``, ``mean_fresh_N``: the fresh batch's mean at both sizes;
      ``chance_half``: 4/d at the smaller size (the means, intervals and ranges of every
      setting are printed by ``tables.spread_table``);
    * ``stored_note`` (a sentence for the figure's caption), ``stored_N``,
      ``stored_seeds``, ``stored_p1_lambda``, ``stored_range_lam3``, ``stored_range_lam1``:
      the stored runs at their largest N, reused (0.35, 0.45) against (0.20, 0.45)."""
    Ns = sorted(runs.unique("N"))
    if len(Ns) < 2:
        raise ValueError(f"runs: expected runs at two sizes at least, got N = {Ns}")
    half, N = Ns[0], Ns[-1]

    def proj(source, batch, a1, n):
        return source.where(batch=batch, alpha1=a1, N=n).values("projection")

    order = ex.headline_orderings(runs, ms=range(1, 9))
    a1_head, a1_low = ex.HEADLINE[0], ex.LAMBDA_ONE[0]
    right_half = (proj(runs, "reused", a1_head, half).mean()
                  > proj(runs, "reused", a1_low, half).mean())
    out = dict(
        seeds=len(runs.unique("seed")), Nhalf=half,
        p1_fresh=fmt(order["fresh"][0], 2), p1_020_full=fmt(order["lambda_large"][0], 2),
        p1_growth=fmt(order["growth"][0], 2), p8_growth=fmt(order["growth"][7], 2),
        need_020_full=fmt(ex.seeds_needed(proj(runs, "reused", a1_head, N),
                                          proj(runs, "reused", a1_low, N)), 2),
        order_020_half="the right order" if right_half else "the wrong order",
        mean_fresh_half=fmt(proj(runs, "fresh", a1_head, half).mean(), 2),
        mean_fresh_N=fmt(proj(runs, "fresh", a1_head, N).mean(), 2),
        chance_half=fmt(4 / half, 2))
    if stored is None or not len(stored):
        out.update(stored_note="The stored paper-scale runs are switched off here "
                   "(COMPANION_PAPER_DATA=off), so the figure shows this chapter's runs only "
                   "and the paper-scale numbers read n/a.",
                   stored_N="n/a", stored_seeds="n/a", stored_p1_lambda="n/a",
                   stored_range_lam3="n/a", stored_range_lam1="n/a")
    else:
        big = max(stored.unique("N"))
        s3, s1 = proj(stored, "reused", a1_head, big), proj(stored, "reused", a1_low, big)
        out.update(stored_note="The stored runs are read from the package's data "
                   "(the switch: COMPANION_PAPER_DATA).", stored_N=big,
                   stored_seeds=len(stored.unique("seed")),
                   stored_p1_lambda=fmt(ex.ordering_probability(s3, s1, 1), 2),
                   stored_range_lam3=_span(s3), stored_range_lam1=_span(s1))
    return Numbers(**out)


def convergence(runs: Runs, rates: list[dict], N: int) -> Numbers:
    """The convergence of the first spike (``fs-obs-convergence``), from ``ex.CONVERGENCE``
    runs and their ``ex.convergence_rates``; values ``_N`` are at the size ``N``:

    * ``slope_<setting>``, ``slope_<setting>_ci``, ``slope_<setting>_pred``: the log-log
      slope of the direction's gap (fitted seed by seed, averaged), its 95% t interval over
      the seeds and the predicted slope, for the settings ``slow`` (0.05, 0.05), ``clean``
      (0.20, 0.20) and ``head`` (0.35, 0.45); ``slope_<setting>_est``: the slope and its
      interval, two decimals (``-0.43 [-0.71, -0.16]``);
    * ``cos2_slow_N``, ``cos2_slow_pred_N``, ``slow_halving`` (how much wider halves the
      slow gap); ``bias_clean_N``, ``cos2_clean_N``, ``cos2_sd_clean_N``;
    * ``gap_factor_head``, ``s1_ratio_head`` (at every size), ``slope_deficit_head`` (the
      slope of the size deficit with its t interval), ``cos2_head_N``, ``cos2u1_head_N``;
    * ``conv_Nmin``, ``conv_Nmax`` and ``conv_param_change``, the factor by which
      N^(0.35 - 1/2) changes between them."""
    N = positive_int(N, "N")
    if not runs.where(N=N):
        raise ValueError(f"N = {N} is not a size of the runs {sorted(runs.unique('N'))}")

    def rate(pair):
        try:
            return next(r for r in rates if (r["alpha1"], r["alpha2"]) == pair)
        except StopIteration:
            raise ValueError(f"rates: no row for (alpha1, alpha2) = {pair}") from None

    slow, clean, head = (rate(pair) for pair in ex.CONVERGENCE_ALPHAS)
    g_slow, g_clean, g_head = (runs.where(alpha1=a1, alpha2=a2, N=N)
                               for a1, a2 in ex.CONVERGENCE_ALPHAS)
    Ns = sorted(runs.unique("N"))
    headline = runs.where(alpha1=ex.HEADLINE[0], alpha2=ex.HEADLINE[1])
    s1_ratio_head = [g.mean("s1") / g.mean("s1_pred") for g in headline.groups("N").values()]
    out = {}
    for name, r in (("slow", slow), ("clean", clean), ("head", head)):
        out.update({f"slope_{name}": fmt_signed(r["gap"]),
                    f"slope_{name}_ci": fmt_interval(r["gap_low"], r["gap_high"], signed=True),
                    f"slope_{name}_est": f"{fmt_signed(r['gap'])} "
                    f"{fmt_interval(r['gap_low'], r['gap_high'], signed=True)}",
                    f"slope_{name}_pred": fmt_signed(r["gap_pred"])})
    return Numbers(
        **out,
        cos2_slow_N=fmt(g_slow.mean("cos2"), 2),
        cos2_slow_pred_N=fmt(g_slow.mean("limit") * g_slow.mean("overlap2_pred"), 2),
        bias_clean_N=fmt(g_clean.mean("limit") * (1 - g_clean.mean("overlap2_pred")), 2),
        slow_halving=round(2 ** (1 / (2 * ex.CONVERGENCE_ALPHAS[0][0]))),
        gap_factor_head=fmt((1 - g_head.mean("overlap2"))
                            / (1 - g_head.mean("overlap2_pred")), 2),
        s1_ratio_head=fmt(s1_ratio_head, 2),
        slope_deficit_head=(f"{fmt_signed(head['deficit'])} "
                            f"{fmt_interval(head['deficit_low'], head['deficit_high'], signed=True)}"),
        cos2_head_N=fmt(g_head.mean("cos2")), cos2u1_head_N=fmt(g_head.mean("cos2_u1")),
        cos2_clean_N=fmt(g_clean.mean("cos2")),
        cos2_sd_clean_N=fmt(g_clean.values("cos2").std(), 2),
        conv_Nmin=Ns[0], conv_Nmax=Ns[-1],
        conv_param_change=fmt((Ns[-1] / Ns[0]) ** (ex.HEADLINE[0] - 0.5), 2))


def blowup(runs: Runs) -> Numbers:
    """The blow-up of a polynomial activation with reuse (``fs-obs-blowup``), from
    ``ex.BLOWUP`` runs at their largest N (``Ns``: the sizes, in words): the top singular
    value of W2 seed by seed (``poly_reused_s1``, ``poly_fresh_s1``), the largest first-step
    change of a pre-activation (``poly_reused_delta``, ``tanh_reused_delta``), the largest one-sample
    piece of the second step over s1 (``poly_piece_ratio``), and the smallest ratio of s1 to
    its leading order (``poly_blow_factor``)."""
    N = max(runs.unique("N"))

    def at(act, batch, key):
        return runs.where(activation=act, batch=batch, N=N).values(key)

    Ns = sorted(runs.unique("N"))
    return Numbers(
        Ns=" and ".join(str(n) for n in Ns),
        poly_reused_s1=fmt(at(POLYNOMIAL, "reused", "s1")),
        poly_fresh_s1=fmt(at(POLYNOMIAL, "fresh", "s1")),
        poly_reused_delta=fmt(at(POLYNOMIAL, "reused", "max_delta").mean()),
        tanh_reused_delta=fmt(at("tanh", "reused", "max_delta").mean(), 2),
        poly_piece_ratio=fmt(at(POLYNOMIAL, "reused", "single_sample")
                             / at(POLYNOMIAL, "reused", "s1"), 2),
        poly_blow_factor=fmt((at(POLYNOMIAL, "reused", "s1")
                              / at(POLYNOMIAL, "reused", "theory_s1")).min()))


def _exact(row: dict) -> str:
    """The exact interval of a half-detection strength, an open end written ``∞``."""
    return fmt_interval(row["low"], row["high"]).replace("-inf", "−∞").replace("inf", "∞")


_CALIBRATION_KEYS = ("seeds", "strengths", "thr_range", "margin_range", "ratio_range",
                     "edge_offset", "disagree", "pos_err")


def calibration(stored: Runs | None) -> Numbers:
    """The census calibrated (``fs-obs-calibration``; book: dv-census, dv-threshold) from the
    stored runs of the calibration experiment (``store.load("E13")``; every number "n/a"
    without them), per N (:func:`companion.chapters.finite_size.calibration.calibration_table`;
    the chapter prints the table itself with ``tables.calibration_table``):

    * ``seeds``, ``strengths`` (the planted range and step);
    * ``thr_range``: the span over N of theta_1/2, the strength of half detection;
      ``margin_range``: the BBP strength that clears the census's edge by its margin;
      ``ratio_range``: theta_1/2 over the latter;
    * ``edge_offset``: the census's edge (the other null run's) over the planted matrix's own,
      minus one, in percent (range over seeds and N);
    * ``disagree``: the sizes whose exact 95% interval of theta_1/2 (the strengths at which
      the Clopper-Pearson interval of the counted fraction holds one half,
      ``cal.half_interval``) excludes the margin-adjusted value, with both numbers ("at no
      size" if none);
    * ``pos_err``: the median relative distance of a counted planted term's singular value
      from its BBP position theta + c^2 / theta (c = own edge / 2), from theta = 1.5 on;
    * ``margin_factor``: the BBP strength with the margin over the BBP threshold when both
      edges agree (1.22; given without stored runs too)."""
    factor = fmt(cal.bbp_detection_strength(2.0), 3)
    if stored is None or not len(stored):
        return Numbers(**{k: "n/a" for k in _CALIBRATION_KEYS}, margin_factor=factor)
    table = cal.calibration_table(stored)
    step = np.diff(table[0]["strengths"])
    margin = np.array([r["bbp_margin"] for r in table])
    thr = np.array([r["threshold"] for r in table])
    offset = np.concatenate([100 * (r["edge"] / r["edge_own"] - 1) for r in table])
    bad = [r for r in table if not r["agrees"]]
    errors = []
    for run in stored:
        theta, value = np.asarray(run["strengths"], float), np.asarray(run["value"], float)
        c = run["edge_own"] / 2
        keep = (theta >= 1.5) & np.isfinite(value)
        errors += list(np.abs(value[keep] / (theta[keep] + c * c / theta[keep]) - 1))
    return Numbers(
        seeds=table[0]["seeds"],
        strengths=(f"{fmt_fixed(table[0]['strengths'][0])} to "
                   f"{fmt_fixed(table[0]['strengths'][-1])} in steps of "
                   f"{fmt_fixed(step.min())}" if len(step) else "n/a"),
        thr_range=fmt_span(thr),
        margin_range=fmt_span(margin), ratio_range=fmt_span(thr / margin),
        edge_offset=fmt_span(offset, 1, signed=True, unit="%"),
        disagree=("at no size" if not bad else
                  "; ".join(f"at N = {r['N']} ({fmt_fixed(r['threshold'])} "
                            f"{_exact(r)} against "
                            f"{fmt_fixed(r['bbp_margin'])})" for r in bad)),
        pos_err=f"{fmt(100 * np.median(errors), 2)}%" if errors else "n/a",
        margin_factor=factor)
