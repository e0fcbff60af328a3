"""Tables of the chapter "Finite size, honestly": the text the chapter prints under its
figures, formatted here so that the chapter shows one line per table. Every line is at most
76 characters wide (the page's code box) and every number goes through
:func:`companion.presentation.book.fmt` (powers of ten as ``4.6 × 10⁶``, never ``4.6e6``), so
that the stored outputs read the same on any machine. Each table says which interval it
shows: a 95% Student-t interval over the seeds for a mean or a slope, an exact
(Clopper-Pearson) one for a fraction of seeds (:mod:`companion.core.intervals`).
"""

from __future__ import annotations

import numpy as np

from companion.chapters.finite_size import calibration as cal
from companion.chapters.finite_size import experiments as ex
from companion.core.intervals import t_interval
from companion.core.runs import Runs
from companion.presentation.book import (
    fmt,
    fmt_estimate,
    fmt_fixed,
    fmt_interval,
    fmt_signed,
    fmt_span,
)

#: the targets as the tables write them
TARGET = {"he1": "He1", "he3": "He3"}


def _seeds(runs: Runs) -> str:
    n = len(runs.unique("seed"))
    return f"{n} seed{'s' if n != 1 else ''}"


def scale_table(alpha1s, Ns) -> str:
    """N^(alpha1 - 1/2) for each alpha1 and N, and the N at which it would reach 0.1; then
    the typical largest label of He_1 and He_3 among n = N samples (analytic)."""
    scale = ex.preactivation_scale(Ns, alpha1s)
    lines = ["the expansion parameter N^(α₁ - 1/2) (analytic)",
             "α₁   " + "".join(f"{'N=' + str(n):>8}" for n in Ns) + "   N for 0.1"]
    for a1, row in zip(alpha1s, scale):
        tenth = 0.1 ** (1.0 / (a1 - 0.5))
        lines.append(f"{fmt_fixed(a1):<5}" + "".join(f"{fmt_fixed(v, 3):>8}" for v in row)
                     + f"   {fmt(tenth, 2)}")
    lines += ["", "typical largest label max |yᵢ| among n = N samples",
              "target" + "".join(f"{'n=' + str(n):>8}" for n in Ns)[1:]]
    for name in ("he1", "he3"):
        lines.append(f"{TARGET[name]:<5}" + "".join(f"{fmt(v, 3):>8}"
                                                  for v in ex.typical_max_label(name, Ns)))
    return "\n".join(lines)


def preactivation_table(pre: Runs) -> str:
    """Per target and N: the measured root mean square of the first step's pre-activation
    changes, the derived typical size C N^(alpha1 - 1/2), their ratio and the largest
    change (means over the seeds)."""
    lines = [f"first-step change |Δ| of a pre-activation, α₁ = "
             f"{fmt_fixed(pre[0]['alpha1'])}, mean over {_seeds(pre)}",
             f"{'labels':6} {'N':>5} {'rms':>7} {'derived':>8} {'ratio':>6} {'largest':>8}"]
    for (target,), runs in sorted(pre.groups("target").items()):
        for (N,), g in sorted(runs.groups("N").items()):
            rms, theory = g.mean("rms"), g.mean("theory_rms")
            lines.append(f"{TARGET[target]:6} {N:>5} {fmt(rms):>7} {fmt(theory):>8} "
                         f"{fmt(rms / theory):>6} {fmt(g.mean('max')):>8}")
    return "\n".join(lines)


def growth_table(rows, N_ref: int) -> str:
    """The rows of :func:`companion.chapters.finite_size.experiments.spike_growth_table`:
    each spike term's exponent, its growth when N doubles and the N at which it has
    doubled from N_ref (analytic)."""
    out = [f"how a spike term grows, N^e (analytic); x2: twice its size at N = {N_ref}",
           f"{'(α₁, α₂)':13} {'k':>2} {'e':>6} {'per doubling':>13} {'N for x2':>14}"]
    for r in rows:
        n2 = ("never (e = 0)" if not np.isfinite(r["N_for_factor"])
              else fmt(r["N_for_factor"], 2))
        pair = f"({fmt_fixed(r['alpha1'])}, {fmt_fixed(r['alpha2'])})"
        out.append(f"{pair:13} {r['k']:>2} {fmt_fixed(r['exponent']):>6} "
                   f"{fmt_fixed(r['per_doubling'], 3):>13} {n2:>14}")
    return "\n".join(out)


def _counts(values, top: int) -> str:
    """Counts per seed; a count equal to the number of computed values means at least that."""
    return " ".join(f"{int(c)}+" if c >= top else str(int(c)) for c in values)


def outlier_table(counts: Runs) -> str:
    """Per target and matrix, seed by seed: the values above the Marchenko-Pastur edge 2
    plus 2% (run and null run) and the census; the He_3 / He_1 projection of the top-4
    right singular subspace and cos^2 of the second right singular vector with the input
    of the largest label (means over the seeds)."""
    top = len(counts[0]["s_W2"])
    r0 = counts[0]
    lines = [f"N = {r0['N']}, (α₁, α₂) = ({fmt_fixed(r0['alpha1'])}, "
             f"{fmt_fixed(r0['alpha2'])}); counts seed by seed ({_seeds(counts)})",
             f"{'labels':6} {'matrix':9} {'above 2':>9} {'null run':>9} {'census':>7} "
             f"{'proj':>7} {'cos2':>8}"]
    for target in counts.unique("target"):
        runs = counts.where(target=target)
        w1 = runs.where(batch="reused")
        lines.append(f"{TARGET[target]:6} {'W1':9} {_counts(w1.values('count_W1'), top):>9} "
                     f"{_counts(w1.values('count_W1_null'), top):>9}")
        for batch in ("reused", "fresh"):
            g = runs.where(batch=batch)
            lines.append(f"{TARGET[target]:6} {'W2 ' + batch:9} "
                         f"{_counts(g.values('count_W2'), top):>9} "
                         f"{_counts(g.values('count_W2_null'), top):>9} "
                         f"{_counts(g.values('census'), 99):>7} {fmt(g.mean('proj'), 2):>7} "
                         f"{fmt(g.mean('cos2_sample'), 2):>8}")
    lines += [f"above 2: values above the edge 2 + 2% ({top}+: all {top} computed)",
              f"proj: ‖P₄β*‖², chance {fmt(4 / r0['N'], 2)}; cos2: v₂ with the input "
              "of the largest |y|"]
    return "\n".join(lines)


def calibration_table(planted: Runs | None) -> str:
    """Per N, the census calibrated by planted terms
    (:func:`companion.chapters.finite_size.calibration.calibration_table`): the strength of
    half detection with its exact 95% interval, the BBP threshold, the BBP strength that
    clears the census's edge by its margin, and the seeds' first counted strengths."""
    if planted is None or not len(planted):
        return "the stored calibration runs are switched off (COMPANION_PAPER_DATA=off)"
    table = cal.calibration_table(planted)
    lines = [f"half detection θ½ of a planted term, {table[0]['seeds']} seeds per size,",
             "[exact 95% interval]; BBP: threshold and with the census's margin",
             f"{'N':>5}  {'θ½ [exact 95%]':<19} {'BBP':>5} {'+margin':>8}  first counted"]
    for r in table:
        half = fmt_estimate(r["threshold"], r["low"], r["high"], 3)
        half = half.replace("-inf", "−∞").replace("inf", "∞")    # an open end
        lines.append(f"{r['N']:>5}  {half:<19} "
                     f"{fmt_fixed(r['bbp']):>5} {fmt_fixed(r['bbp_margin']):>8}  "
                     f"{fmt_span(r['first'])}")
    return "\n".join(lines)


def spread_table(runs: Runs) -> str:
    """Per setting and N: the mean of ||P_4 beta*||^2 over the seeds with its 95% t
    interval, the standard deviation and the range; then, for four comparisons, the
    probability that one run of each comes in the right order, the difference of the means
    and the seeds per setting that make it two standard errors (normal approximation)."""
    lines = [f"‖P₄β*‖² of the He3 direction, {_seeds(runs)}: mean [95% t interval]",
             f"{'setting':19} {'N':>4}  {'mean [95% t]':<21} {'sd':>6} {'min':>7} {'max':>6}"]
    for (batch, a1, a2, N), g in runs.groups("batch", "alpha1", "alpha2", "N").items():
        v = g.values("projection")
        t = t_interval(v, bounds=(0, 1))
        setting = f"{batch} ({fmt_fixed(a1)}, {fmt_fixed(a2)})"
        lines.append(f"{setting:19} {N:>4}  {fmt_estimate(t.mean, t.low, t.high):<21} "
                     f"{fmt(v.std(ddof=1), 2):>6} {fmt(v.min(), 2):>7} {fmt(v.max(), 2):>6}")
    Ns = sorted(runs.unique("N"))
    small, large = Ns[0], Ns[-1]
    order = ex.headline_orderings(runs, ms=[1])
    pairs = ex.headline_pairs(runs)
    names = {"fresh": f"reused (0.35) > fresh, N = {large}",
             "lambda_small": f"reused (0.35) > reused (0.20), N = {small}",
             "lambda_large": f"reused (0.35) > reused (0.20), N = {large}",
             "growth": f"reused (0.35), N = {large} > {small}"}
    lines += ["", "comparison: P(one run of each in this order), difference of the means,",
              "seeds per setting for two standard errors",
              f"{'comparison':37} {'P':>5} {'difference':>11} {'seeds':>6}"]
    for key, name in names.items():
        x, y = pairs[key]
        lines.append(f"{name:37} {fmt(order[key][0], 2):>5} "
                     f"{fmt_signed(x.mean() - y.mean(), 3):>11} "
                     f"{fmt(ex.seeds_needed(x, y), 2):>6}")
    return "\n".join(lines)


def convergence_table(runs: Runs, rates) -> str:
    """Per setting and N: mean s1 and its prediction, the direction gap and its prediction,
    cos^2 with beta* and cos^2(u1, beta*); then the log-log slopes of the gap, fitted seed by
    seed, with their 95% t intervals over the seeds, beside the predicted slope."""
    lines = [f"reused batch, He1 target, mean over {_seeds(runs)}; "
             "gap = 1 - |⟨v₁, u₁⟩|²",
             f"{'(α₁, α₂)':12} {'N':>5} {'s₁':>6} {'pred':>6} {'gap':>7} {'pred':>7} "
             f"{'cos2 β*':>8} {'cos2 u₁':>8}"]
    for (a1, a2, N), g in runs.groups("alpha1", "alpha2", "N").items():
        lines.append(f"({a1:.2f}, {a2:.2f}) {N:5d} {fmt(g.mean('s1')):>6} "
                     f"{fmt(g.mean('s1_pred')):>6} {fmt(1 - g.mean('overlap2'), 2):>7} "
                     f"{fmt(1 - g.mean('overlap2_pred'), 2):>7} {fmt(g.mean('cos2')):>8} "
                     f"{fmt(g.mean('cos2_u1')):>8}")
    lines.append("log-log slope of the gap [95% t interval over the seeds], predicted:")
    for r in rates:
        est = f"{fmt_signed(r['gap'])} {fmt_interval(r['gap_low'], r['gap_high'], signed=True)}"
        lines.append(f"  ({r['alpha1']:.2f}, {r['alpha2']:.2f})  {est},  "
                     f"{fmt_signed(r['gap_pred'])}")
    return "\n".join(lines)


def blowup_table(runs: Runs) -> str:
    """Per activation, batch and N: s1(W2) per seed, its leading order, the largest
    pre-activation change and the largest one-sample piece per seed."""
    lines = ["s₁(W₂) seed by seed, He3 target, (α₁, α₂) = "
             f"({fmt_fixed(runs[0]['alpha1'])}, {fmt_fixed(runs[0]['alpha2'])})",
             f"{'activation':10} {'batch':6} {'N':>4} {'s₁(W₂)':>12} {'lead':>5} "
             f"{'max |Δ|':>10} {'one sample':>12}"]
    for (act, batch, N), g in runs.groups("activation", "batch", "N").items():
        s1, piece, dmax = (" ".join(fmt(v) for v in g.values(k))
                           for k in ("s1", "single_sample", "max_delta"))
        name = "polynomial" if act == ex.BLOWUP_ACTIVATIONS[1] else act
        lines.append(f"{name:10} {batch:6} {N:4d} {s1:>12} "
                     f"{fmt(g.mean('theory_s1'), 2):>5} {dmax:>10} {piece:>12}")
    lines.append("polynomial: He1 + He2/√2 + He3/√6; lead: the leading-order s₁")
    return "\n".join(lines)
