"""The printed tables of the chapter "Two steps: a spiked spectrum" (book/two_steps.ipynb): the
numbers behind each figure, and the closing table of every measurement the prose leaves out
(``ts-sec-measurements``). Each function returns the lines the chapter prints, none wider
than :data:`WIDTH` characters (the page cuts longer lines), every number through
:mod:`companion.presentation.book`'s formatters; without the stored runs it needs, a table
says so (:data:`NO_RUNS`).
"""

from __future__ import annotations

import numpy as np

from companion.chapters.two_steps.experiments import (
    E3_POINTS,
    E4_PAIRS,
    E5_PAIRS,
    E11_CONSTANTS,
    EMERGENCE_POINTS,
    local_slopes,
    sizes_by_N,
)
from companion.chapters.two_steps.prediction import grid_check_rows
from companion.chapters.two_steps.summaries import last_slopes
from companion.core.activations import get_activation
from companion.core.experiment import sweep_runs
from companion.core.runs import Runs
from companion.core.spikes import spike_counts
from companion.core.theory import lambda_count, n_spikes, spike_exponent
from companion.presentation.book import Numbers, fmt, fmt_fixed, fmt_interval, fmt_signed
from companion.presentation.plotting import ACTIVATION_STYLE

NO_RUNS = "no stored runs"
#: the widest line a table prints (book/CONVENTIONS.md: the page cuts longer ones)
WIDTH = 76
_NAME = {act: style["text"] for act, style in ACTIVATION_STYLE.items()}


def _coord(x: float) -> str:
    """A step-size exponent with two decimals, three where it has them (0.485)."""
    text = f"{x:.3f}"
    return text[:-1] if text.endswith("0") else text


def _point(p) -> str:
    return f"({_coord(p[0])}, {_coord(p[1])})"


# -- the statement: the moments that decide which terms exist ---------------------------------
def moments_table(alpha1: float = 0.38, alpha2: float = 0.45) -> str:
    """The Gaussian moments that weight the terms k = 1, 2, 3 (``ts-conj-parity``:
    m_{k+1} with a fresh batch, kappa_{k,k} with a reused one) for tanh, tanh(z + 1/2) and
    GELU, and the count of spikes in all that each gives at (``alpha1``, ``alpha2``)."""
    lines = [f"{'':13}{'m_2':>8}{'κ_11':>8}{'m_3':>8}{'κ_22':>8}{'m_4':>8}{'spikes':>9}"]
    for act in ("tanh", "shifted_tanh", "gelu"):
        a = get_activation(act)
        row = "".join(f"{fmt(v):>8}" for v in (a.m(2), a.kappa(1, 1), a.m(3), a.kappa(2, 2),
                                               a.m(4)))
        lines.append(f"{_NAME[act]:<13}{row}{n_spikes(alpha1, alpha2, act):>9}")
    return "\n".join(lines)


# -- the census of one run ----------------------------------------------------------------------
def census_table(census: dict, rows: int = 4) -> str:
    """One run's census (:func:`companion.core.spikes.spike_census`) value by value: the top
    ``rows`` singular values of W2, the weight of each left vector on the powers of a and
    the power it leans on most (``-`` below the census's weight of 0.25), then the null
    run's bulk edge and the count (``ts-sec-one-by-one``)."""
    lines = ["singular value   weight on the powers of a   power"]
    for s, w in zip(census["s"][:rows], census["weights"][:rows]):
        k = int(np.argmax(w)) + 1
        power = ("a" if k == 1 else f"a∘{k}") if w.sum() >= 0.25 else "-"
        lines.append(f"{fmt(s):>14} {fmt(w.sum(), 2):>27} {power:>7}")
    lines.append(f"null run's bulk edge {fmt(census['edge'])}: {census['count']} spikes")
    return "\n".join(lines)


# -- the spikes one by one (E11) ----------------------------------------------------------------
def counts_table(runs: Runs | None) -> str:
    """The spike counts behind ``fig-ts-emergence``: per point and activation, the limit
    (1 + Lambda with every order, 1 + floor(Lambda/2) for tanh) and the mean census count
    over the seeds at each stored N (``-`` where not stored), the first spike included."""
    if runs is None or not len(runs):
        return NO_RUNS
    table = spike_counts(runs)
    Ns = sorted({int(n) for row in table.values() for n in row["N"]})
    lines = [f"{'':<33}mean count over the seeds at N =",
             f"{'(α1, α2)':<14}{'activation':<14}{'limit':>5}"
             + "".join(f"{n:>7}" for n in Ns)]
    for point in EMERGENCE_POINTS:
        for act in ("tanh", "shifted_tanh", "gelu"):
            row = table.get((*point, act))
            if row is None:
                continue
            means = dict(zip((int(n) for n in row["N"]), row["mean"]))
            cells = "".join(f"{fmt(means[n], 2) if n in means else '-':>7}" for n in Ns)
            lines.append(f"{_point(point) if act == 'tanh' else '':<14}{_NAME[act]:<14}"
                         f"{n_spikes(*point, act):>5}{cells}")
    return "\n".join(lines)


def step_constants(runs: Runs | None) -> str:
    """What the step constants do (``ts-sec-measurements``): at the point, size and
    activation of ``E11_CONSTANTS``, per (c1, c2), the mean separate strengths of the terms
    k = 1, 2, the bulk edge of W2 (powers of a projected out) and the mean spike count (the
    float32 precision checks left out: they repeat float64 seeds)."""
    if runs is None or not len(runs):
        return NO_RUNS
    c = E11_CONSTANTS
    lines = [f"step constants at {_point(c['point'])}, N = {c['N']}, {_NAME[c['activation']]}",
             "c1   c2   strength k=1  k=2   bulk edge of W2   spikes"]
    for (c1, c2), at in sweep_runs(runs).where(
            N=c["N"], activation=c["activation"], alpha1=c["point"][0]).groups("c1",
                                                                               "c2").items():
        lines.append(f"{c1:<4} {c2:<4} {fmt(at.mean('strength_k1')):>12}"
                     f" {fmt(at.mean('strength_k2')):>5} {fmt(at.mean('edge_self')):>17}"
                     f" {fmt(at.mean('n_outliers'), 2):>8}")
    return "\n".join(lines)


# -- the phase diagram (E3) ---------------------------------------------------------------------
def phase_table(runs: Runs) -> str:
    """The numbers of ``fig-ts-phase`` (``ts-obs-phase``): per E3 point, Lambda and the
    exponent of T_2, predicted and measured between the two largest sizes."""
    lines = ["(α1, α2)      Λ   exponent of T_2: predicted   measured (two largest N)"]
    for (a1, a2), slope in zip(E3_POINTS, last_slopes(runs)):
        theory = fmt_signed(spike_exponent(a1, a2, 2))
        lines.append(f"{_point((a1, a2)):<13}{lambda_count(a1, a2):>2}"
                     f"{theory:>30}{fmt_signed(slope):>11}")
    return "\n".join(lines)


# -- the finite-N phase diagram checked (E16) ---------------------------------------------------
def grid_check_table(e16: Runs | None) -> str:
    """The numbers of ``fig-ts-finite-phase``'s check (``ts-obs-grid-check``): per E16 point,
    in the order of its limit count, the finite-N prediction's count and the census count of
    each seed at each N (``2 / 222122``: predicted 2, the seeds' counts)."""
    if e16 is None or not len(e16):
        return NO_RUNS
    rows = grid_check_rows(e16)
    Ns = sorted({r["N"] for r in rows})
    at = {(r["alpha1"], r["alpha2"], r["N"]): r for r in rows}
    points = sorted({(r["alpha1"], r["alpha2"]) for r in rows},
                    key=lambda p: (at[(*p, Ns[0])]["limit"], p))
    lines = [f"{'(α1, α2)':<14}{'limit':>5}   predicted / census count of each seed",
             (f"{'':<22}" + "".join(f"{'N = ' + str(n):<16}" for n in Ns)).rstrip()]
    for p in points:
        cells = ""
        for n in Ns:
            r = at.get((*p, n))
            cells += "" if r is None else \
                f"{str(r['predicted']) + ' / ' + ''.join(map(str, r['measured'])):<16}"
        lines.append(f"{_point(p):<14}{at[(*p, Ns[0])]['limit']:>5}   {cells}".rstrip())
    return "\n".join(lines)


# -- the exponent check (E4) --------------------------------------------------------------------
def slopes_table(runs: Runs | None) -> str:
    """The numbers of ``fig-ts-exponents`` (``ts-obs-exponents``): for T_0 and T_2 at each E4
    pair, the predicted exponent, the local slopes of the stored runs between consecutive
    sizes, and the last one's 95% Welch t interval over the seeds."""
    if runs is None or not len(runs):
        return NO_RUNS
    Ns, _ = sizes_by_N(runs, *E4_PAIRS[0], "terms_0")

    def short(n):
        return f"{n // 1024}k" if n >= 1024 else str(n)
    steps = "".join(f"{short(a) + '-' + short(b):>8}" for a, b in zip(Ns[:-1], Ns[1:]))
    lines = [f"{'term':<5}{'(α1, α2)':<14}{'pred.':>6}  local slope from N to 2N",
             f"{'':<25}{steps}  last, 95%"]
    for pair in E4_PAIRS:
        for k in (0, 2):
            sl = local_slopes(*sizes_by_N(runs, *pair, f"terms_{k}"))
            slopes = "".join(f"{fmt_signed(s):>8}" for s in sl["slope"])
            lines.append(f"{'T_' + str(k):<5}{_point(pair):<14}"
                         f"{fmt_signed(spike_exponent(*pair, k)):>6}{slopes}  "
                         f"{fmt_interval(sl['low'][-1], sl['high'][-1], signed=True)}")
    return "\n".join(lines)


# -- two steps against one (E5) -----------------------------------------------------------------
def collapse_table(runs: Runs | None) -> str:
    """The numbers of ``fig-ts-one-step`` (``ts-obs-one-step``): per pair and batch, the
    relative distance to the one-step reference at the smallest and largest stored N (seed
    mean) and the last local slope of the absolute distance."""
    if runs is None or not len(runs):
        return NO_RUNS
    Ns = sorted(runs.unique("N"))
    lines = [f"{'':<22}relative distance    slope of the distance",
             f"{'(α1, α2)':<14}{'batch':<8}{'N = ' + str(Ns[0]):<10}{'N = ' + str(Ns[-1]):<11}"
             "between the two largest N"]
    for pair in E5_PAIRS:
        for batch in ("reused", "fresh"):
            if not len(runs.where(alpha1=pair[0], alpha2=pair[1], batch=batch)):
                continue
            N_, rel = sizes_by_N(runs, *pair, "rel_diff", batch)
            slope = local_slopes(*sizes_by_N(runs, *pair, "diff", batch))["slope"][-1]
            lines.append(f"{_point(pair):<14}{batch:<8}{fmt(rel[0].mean(), 2):>7}"
                         f"{fmt(rel[-1].mean(), 2):>11}{fmt_signed(slope):>17}")
    return "\n".join(lines)


# -- the spectrum beside a null run (E10) -------------------------------------------------------
def spectrum_table(runs: Runs, rows: int = 5) -> str:
    """The numbers of ``fig-ts-spectrum`` (``ts-obs-spectrum``): the top ``rows`` singular
    values of W2 and of its null run, the weight of each left vector on the powers of a, the
    power it leans on most (``-`` below a weight of 0.25, the census's bound), and cos^2 of
    its right vector with each target direction."""
    r = runs[0].result
    lines = ["labels  value  on powers  main power  cos² He1  cos² He3"]
    for suffix, s_key, name in (("", "s_top", "target"), ("_null", "s_null", "null")):
        for i in range(rows):
            left, c = np.asarray(r["left" + suffix])[i], np.asarray(r["cos2" + suffix])[i]
            main = f"q{np.argmax(left) + 1}" if left.sum() >= 0.25 else "-"
            lines.append(f"{name:<7} {fmt(r[s_key][i]):>5} {fmt(left.sum(), 2):>10}"
                         f" {main:>11} {fmt_fixed(c[0], 3):>9} {fmt_fixed(c[1], 3):>9}")
    return "\n".join(lines)


# -- the measurements the prose leaves out ------------------------------------------------------
def _rows(title: str, items) -> list[str]:
    """A titled group of (what, value) rows, the value after a run of dots; a value that
    does not fit on the line goes on the next one."""
    out = [title]
    for what, value in items:
        line = f"  {what} "
        if len(line) + len(value) + 2 > WIDTH:
            out.append(line.rstrip())
            out.append(f"{value:>{WIDTH}}")
        else:
            out.append(line + "." * (WIDTH - len(line) - len(value) - 1) + " " + value)
    return out


def measurements(emergence: Numbers, pred: Numbers, finite: Numbers, phase: Numbers,
                 exponents: Numbers) -> str:
    """The chapter's closing table (``ts-sec-measurements``): every measured or predicted
    number that the sections do not quote, from the ``Numbers`` they computed
    (:func:`~companion.chapters.two_steps.summaries.emergence`, ``prediction``,
    ``phase_check``, ``phase``, ``exponent_check``)."""
    e, p, f = emergence, pred, finite
    lines = _rows("The spikes one by one (stored runs)", [
        ("float32 against float64, largest relative change", e.precision),
        ("finite-N prediction, median error: tanh",
         f"{p.tanh_median} (largest {p.tanh_max}, {p.tanh_terms} terms)"),
        ("  tanh(z + 1/2)", f"{p.st_median} (largest {p.st_max}, {p.st_terms} terms)"),
        ("  GELU", f"{p.gelu_median} (largest {p.gelu_max}, {p.gelu_terms} terms)"),
        ("  terms at their floor (k ≥ 3): errors from", f"{p.fail_low} to {p.fail_high}"),
        ("Taylor leading order, median error (tanh)", p.taylor),
        ("predicted crossing, tanh(z + 1/2), k = 2: N ≈", f"{p.st_k2_cross} {p.st_k2_ci}"),
        ("predicted crossing, tanh(z + 1/2), k = 3: N ≈", f"{p.st_k3_cross} {p.st_k3_ci}"),
        ("predicted crossing, GELU, k = 2: N ≈", f"{p.gelu_k2_cross} {p.gelu_k2_ci}"),
        ("  strength needed (k = 3; GELU k = 2)", f"{p.st_k3_thr}; {p.gelu_k2_thr}"),
        ("GELU k = 2 at N = " + str(p.gelu_N_last) + ": mean field, floor",
         f"{p.gelu_sig_last}, {p.gelu_floor_last}"),
        ("tanh, k = 2 at Λ = 1, over the stored N: strength", f"{e.a_k2_tanh_first} to "
         f"{e.a_k2_tanh_last} (slope {e.a_k2_tanh_slope})")])
    lines += _rows("The phase diagram", [
        ("wrong signs with the chapter's runs; of them, measured above",
         f"{phase.wrong}; {phase.wrong_up}")])
    lines += _rows("The phase diagram at a finite N", [
        ("predicted count = limit's, share of the square", f.at_limit),
        ("  at N = " + str(f.Ns_pred).split(", ")[-1] + ": fewer, more than the limit",
         f"{f.fewer_last}, {f.more_last}"),
        (f"where the second spike starts along α1 = {f.onset_a1}: α2 =", f.onset),
        (f"census agrees with the prediction at N = {f.N_largest}",
         f"{f.agree_largest} {f.agree_largest_ci}"),
        ("  at every N, against each run's own null edge",
         f"{f.agree_seed_all} {f.agree_seed_all_ci}"),
        (f"  points counted below the limit at N = {f.N_largest}",
         f"{f.below_limit} of {f.points}"),
        ("  seeds above, below the prediction", f"{f.above}, {f.below}"),
        ("  null runs' bulk edges", f.edge_range)])
    lines += _rows("The exponent check", [
        ("float32 against float64, largest relative change", exponents.precision)])
    return "\n".join(lines)
