"""Tables of the chapter "Finite size, honestly": the text the chapter prints under its
experiment calls, formatted here so that the chapter shows one line per table. Every line
is at most 80 characters wide and every number goes through :func:`companion.presentation.book.fmt` (or
:func:`sci` for powers of ten), so that the stored outputs read the same on any machine.
"""

from __future__ import annotations

import numpy as np

from companion.chapters.finite_size import experiments as ex
from companion.core.runs import Runs
from companion.presentation.book import fmt, fmt_fixed, fmt_interval, fmt_signed


def sci(x, digits: int = 2, prose: bool = True) -> str:
    """A large number as mantissa and power of ten: ``4.6 × 10⁶`` for prose (``prose``) or
    ``4.6e6`` for a table; below 10^4 it is :func:`companion.presentation.book.fmt`."""
    if not np.isfinite(x) or abs(x) < 1e4:
        return fmt(x, digits)
    exponent = int(np.floor(np.log10(abs(x))))
    mantissa = fmt(x / 10 ** exponent, digits)
    if mantissa.startswith("10"):                 # 9.96e6 rounds to 10
        mantissa, exponent = fmt(float(mantissa) / 10, digits), exponent + 1
    if not prose:
        return f"{mantissa}e{exponent}"
    sup = str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{mantissa} × 10{sup}"


def scale_table(alpha1s, Ns) -> str:
    """N^(alpha1 - 1/2) for each alpha1 and N, and the N at which it would reach 0.1; then
    the typical largest label of He_1 and He_3 among n = N samples."""
    scale = ex.preactivation_scale(Ns, alpha1s)
    lines = ["N^(alpha1 - 1/2), the order of a pre-activation change after step one",
             "alpha1 " + "".join(f"{'N=' + str(n):>8}" for n in Ns) + "  N for 0.1"]
    for a1, row in zip(alpha1s, scale):
        tenth = 0.1 ** (1.0 / (a1 - 0.5))
        lines.append(f"{fmt_fixed(a1):>6} " + "".join(f"{fmt_fixed(v, 3):>8}" for v in row)
                     + f"  {sci(tenth, prose=False):>9}")
    lines += ["", "typical largest label max_i |y_i| among n = N samples",
              "target " + "".join(f"{'n=' + str(n):>8}" for n in Ns)]
    for name in ("he1", "he3"):
        lines.append(f"{name:6} " + "".join(f"{fmt(v, 3):>8}"
                                            for v in ex.typical_max_label(name, Ns)))
    return "\n".join(lines)


def preactivation_table(pre: Runs) -> str:
    """Measured rms(Delta) over the derived typical size, per target and N (mean over seeds)."""
    rows = []
    for (target,), runs in pre.groups("target").items():
        cells = [f"N={N}: {fmt(g.mean('rms') / g.mean('theory_rms'))}"
                 for (N,), g in runs.groups("N").items()]
        rows.append(f"  {target}: " + "  ".join(cells))
    return "\n".join(["measured rms(Delta) / C N^(alpha1 - 1/2):", *rows])


def growth_table(rows, N_ref: int) -> str:
    """The rows of :func:`companion.chapters.finite_size.experiments.spike_growth_table`."""
    out = [f"N at which term k is twice its size at N = {N_ref}",
           "alpha1 alpha2  k    e_k  x2 per doubling  N for x2"]
    for r in rows:
        n2 = ("never (e = 0)" if not np.isfinite(r["N_for_factor"])
              else sci(r["N_for_factor"], prose=False))
        out.append(f"{fmt_fixed(r['alpha1']):>6} {fmt_fixed(r['alpha2']):>6} {r['k']:2d} "
                   f"{fmt_fixed(r['exponent']):>6} {fmt_fixed(r['per_doubling'], 3):>16}"
                   f"  {n2}")
    return "\n".join(out)


def _counts(values, top: int) -> str:
    """Counts per seed; a count equal to the number of computed values means at least that."""
    return " ".join(f"{int(c)}+" if c >= top else str(int(c)) for c in values)


def outlier_table(counts: Runs) -> str:
    """Per target and matrix, the counts per seed above the Marchenko-Pastur edge (run and
    null run), the census, the He_3/He_1 projection and cos^2 with the top-|y| sample."""
    top = len(counts[0]["s_W2"])
    r0 = counts[0]
    lines = [f"N = {r0['N']}, (alpha1, alpha2) = ({r0['alpha1']}, {r0['alpha2']}), "
             f"seeds {counts.unique('seed')}, counts per seed",
             f"{'target':6} {'matrix':9} {'> edge 2':>9} {'null > 2':>9} {'census':>7} "
             f"{'proj':>6} {'cos2 top':>8}"]
    for target in counts.unique("target"):
        runs = counts.where(target=target)
        w1 = runs.where(batch="reused")
        lines.append(f"{target:6} {'W1':9} {_counts(w1.values('count_W1'), top):>9} "
                     f"{_counts(w1.values('count_W1_null'), top):>9}")
        for batch in ("reused", "fresh"):
            g = runs.where(batch=batch)
            lines.append(f"{target:6} {'W2 ' + batch:9} {_counts(g.values('count_W2'), top):>9} "
                         f"{_counts(g.values('count_W2_null'), top):>9} "
                         f"{_counts(g.values('census'), 99):>7} {fmt(g.mean('proj'), 2):>6} "
                         f"{fmt(g.mean('cos2_sample'), 2):>8}")
    lines.append(f"'{top}+': all {top} computed values are above the edge; "
                 f"chance of proj: {fmt(4 / r0['N'], 2)}")
    return "\n".join(lines)


def spread_table(runs: Runs) -> str:
    """Mean, standard deviation and range of ||P_4 beta*||^2 per setting and N."""
    lines = [f"||P_4 beta*||^2 over {len(runs.unique('seed'))} seeds",
             f"{'setting':20} {'N':>5} {'mean':>7} {'sd':>7} {'min':>7} {'max':>7}"]
    for (batch, a1, a2, N), g in runs.groups("batch", "alpha1", "alpha2", "N").items():
        v = g.values("projection")
        lines.append(f"{batch + f' ({a1:.2f}, {a2:.2f})':20} {N:5d} {fmt(v.mean()):>7} "
                     f"{fmt(v.std(ddof=1), 2):>7} {fmt(v.min()):>7} {fmt(v.max()):>7}")
    return "\n".join(lines)


def convergence_table(runs: Runs, rates) -> str:
    """Per setting and N: mean s1 and its prediction, the direction gap and its prediction,
    cos^2 with beta* and cos^2(u1, beta*); then the slopes with their intervals."""
    lines = [f"reused batch, He_1 target, {len(runs.unique('seed'))} seeds; "
             "gap = 1 - |<v1, u1>|^2",
             f"{'alphas':12} {'N':>5} {'s1':>6} {'pred':>6} {'gap':>7} {'pred':>7} "
             f"{'cos2 b*':>8} {'cos2 u1':>8}"]
    for (a1, a2, N), g in runs.groups("alpha1", "alpha2", "N").items():
        lines.append(f"({a1:.2f}, {a2:.2f}) {N:5d} {fmt(g.mean('s1')):>6} "
                     f"{fmt(g.mean('s1_pred')):>6} {fmt(1 - g.mean('overlap2'), 2):>7} "
                     f"{fmt(1 - g.mean('overlap2_pred'), 2):>7} {fmt(g.mean('cos2')):>8} "
                     f"{fmt(g.mean('cos2_u1')):>8}")
    lines.append("log-log slope of the gap [95% bootstrap interval], predicted:")
    for r in rates:
        lines.append(f"  ({r['alpha1']:.2f}, {r['alpha2']:.2f}) {fmt_signed(r['gap'])} "
                     f"{fmt_interval(r['gap_low'], r['gap_high'], signed=True)}, "
                     f"{fmt_signed(r['gap_pred'])}")
    return "\n".join(lines)


def blowup_table(runs: Runs) -> str:
    """Per activation, batch and N: s1(W2) per seed, its leading order, the largest
    pre-activation change and the largest one-sample piece per seed."""
    lines = ["s1(W2) per seed, He_3 target, (alpha1, alpha2) = "
             f"({runs[0]['alpha1']}, {runs[0]['alpha2']})",
             f"{'activation':10} {'batch':6} {'N':>5} {'s1(W2)':>15} {'lead':>5} "
             f"{'max|Delta|':>11} {'one sample':>15}"]
    for (act, batch, N), g in runs.groups("activation", "batch", "N").items():
        s1, piece, dmax = (" ".join(fmt(v) for v in g.values(k))
                           for k in ("s1", "single_sample", "max_delta"))
        name = "polynomial" if act == ex.BLOWUP_ACTIVATIONS[1] else act
        lines.append(f"{name:10} {batch:6} {N:5d} {s1:>15} "
                     f"{fmt(g.mean('theory_s1'), 2):>5} {dmax:>11} {piece:>15}")
    lines.append("polynomial: He1 + He2/sqrt2 + He3/sqrt6; lead: leading-order s1")
    return "\n".join(lines)
