"""The numbers and tables of the chapter "One step: a rank-one spike" (book/one_step.ipynb),
one function per section: the gradient's rank-one part (``os-obs-rank-one``), the spectrum
of W1 (``os-obs-spectra``), the transition at eta = Theta(1) (``os-obs-transition``, and
``os-obs-rectangular``), large steps eta = N^alpha (``os-obs-growth``,
``os-obs-saturation``) and the directions one step sees (``os-obs-he3``). Each
``name(runs)`` returns the :class:`companion.presentation.book.Numbers` of the prose ({eval}
roles, and the closing table of measurements) and each ``name_table(runs)`` the table the
chapter prints, from the runs of :mod:`companion.chapters.one_step.experiments` (for E1 and E2
also the stored paper-scale runs, ``"n/a"`` where absent); sizes and seeds are read from the
runs, so the prose follows the chapter's knobs.
"""

from __future__ import annotations

import numpy as np

from companion.chapters.one_step.experiments import (
    DIRECTION_TARGETS,
    direction_names,
    transition_theory,
    u1_theory,
)
from companion.core.activations import get_activation
from companion.core.runs import Runs
from companion.core.targets import target_moments
from companion.core.theory import one_step_theta
from companion.presentation.book import Numbers, fmt, fmt_fixed

#: the step size of the transition's table and observation, and of the rectangular table
ETA_TABLE, ETA_RECT = 2.0, 3.0
#: the exponents of the growth table; the slope of os-obs-growth, and of its small-alpha remark
GROWTH_ALPHAS, ALPHA_SLOPE, ALPHA_LOW = (0.1, 0.2, 0.3, 0.4), 0.4, 0.1


def _checked(runs) -> Runs:
    if not isinstance(runs, Runs) or not len(runs):
        raise ValueError(f"runs must be non-empty Runs from companion.chapters.one_step."
                         f"experiments, got {runs!r}")
    return runs


def _stored(runs) -> Runs | None:
    return runs if runs is not None and len(runs) else None    # absent, or switched off


def _column(grid, value: float, name: str) -> int:
    """Index of ``value`` in a run's grid of step sizes or exponents."""
    hits = np.flatnonzero(np.isclose(np.asarray(grid, float), value))
    if not len(hits):
        raise ValueError(f"the runs have no {name} = {value:g} (their {name}s: "
                         f"{', '.join(f'{float(v):g}' for v in grid)})")
    return int(hits[0])


def _sizes(runs: Runs) -> dict:
    """``N``, ``N_min`` (largest and smallest width) and ``seeds`` (seeds per point)."""
    Ns = sorted(int(n) for n in runs.unique("N"))
    return dict(N=Ns[-1], N_min=Ns[0], seeds=len(runs.unique("seed")))


def spike_limit(target: str = "he1", activation: str = "tanh", psi: float = 1.0) -> float:
    """The limit of the rank-one part's norm per unit step, |m1| sqrt(mu*^2 + E[y^2]/psi)
    with ||a|| -> 1 (``os-conj-rank-one``): the line of ``fig-os-rank-one`` and the limit of
    s1 / eta (``os-conj-saturation``)."""
    tgt = target_moments(target)     # its moments only
    return one_step_theta(1.0, get_activation(activation).m(1), tgt.mu_star,
                          tgt.second_moment, psi)


# -- the gradient is rank one ------------------------------------------------------------------

def rank_one(runs: Runs) -> Numbers:
    """The numbers of ``os-obs-rank-one`` and of ``fig-os-rank-one``'s caption, from the runs
    of ``RANK_ONE``: ``N``, ``N_min``, ``seeds``; ``r_slope``: the slope of log ||R|| against
    log N (fitted over the sizes); ``r_ratio``: ||R|| / ||G|| at the largest N;
    ``spike_meas``: the rank-one part's norm there, against ``spike_theory``, its limit;
    ``m1``: E sigma'(zeta) of the activation."""
    runs = _checked(runs)
    groups = runs.groups("N")
    Ns = np.array([k[0] for k in groups], float)
    r_norm = [g.mean("r_norm") for g in groups.values()]
    slope = np.polyfit(np.log(Ns), np.log(r_norm), 1)[0] if len(Ns) > 1 else np.nan
    size = _sizes(runs)
    big = runs.where(N=size["N"])
    r0 = runs[0]
    return Numbers(**size, r_slope=fmt(slope, 2),
                   r_ratio=fmt(big.mean("r_norm") / big.mean("g_norm"), 2),
                   spike_meas=fmt(big.mean("spike_norm")),
                   spike_theory=fmt(spike_limit(r0["target"], r0["activation"])),
                   m1=fmt(get_activation(r0["activation"]).m(1), 4))


def rank_one_table(runs: Runs) -> str:
    """||G||, ||m1 a u1^T||, ||R|| and ||R|| sqrt(N) per N, mean over the seeds."""
    runs = _checked(runs)
    lines = [f"{'N':>5} {'||G||':>6} {'||m1 a u1^T||':>13} {'||R||':>7}"
             f" {'||R||sqrt(N)':>12}"]
    for (n_,), g in runs.groups("N").items():
        gn, sp, r = (g.mean(k) for k in ("g_norm", "spike_norm", "r_norm"))
        lines.append(f"{n_:>5} {fmt(gn):>6} {fmt(sp):>13} {fmt(r):>7}"
                     f" {fmt(r * np.sqrt(n_)):>12}")
    return "\n".join(lines)


# -- the spectrum of W1 --------------------------------------------------------------------------

def spectrum(runs: Runs) -> Numbers:
    """The numbers of ``os-obs-spectra`` and of ``fig-os-spectra``'s caption, from the first
    run of ``SPECTRUM``: ``N``, ``eta``, ``edge`` (1 + sqrt(phi)), ``w0_top`` (the largest
    singular value of W0), ``s1`` and ``s2`` (the two largest of W1) and ``s1_theory``
    (the predicted outlier, ``os-conj-bbp``)."""
    s = _checked(runs)[0]
    return Numbers(N=int(s["N"]), eta=fmt_fixed(s["eta"], 1), edge=fmt_fixed(s["edge"], 2),
                   w0_top=fmt(s["s_W0"][0]), s1=fmt(s["s_W1"][0]),
                   s1_theory=fmt(s["theory_s1"]), s2=fmt(s["s_W1"][1]))


def spectrum_table(runs: Runs) -> str:
    """The top three singular values of W0 and W1, the bulk edge and the predicted outlier."""
    s = _checked(runs)[0]
    lines = [f"{w}: top singular values {', '.join(fmt(v) for v in s['s_' + w][:3])}; "
             f"bulk edge {fmt_fixed(s['edge'], 2)}" for w in ("W0", "W1")]
    return "\n".join(lines + [f"predicted outlier of W1: {fmt(s['theory_s1'])}"])


# -- the transition at eta = Theta(1) ------------------------------------------------------------

def _plugin_errors(runs: Runs, eta_min: float = ETA_TABLE) -> tuple[float, float]:
    """Mean |s1 - prediction| over the seeds and the step sizes eta >= ``eta_min``, with the
    limits of ||a|| and ||u1|| in theta, and with each seed's own values plugged in."""
    big = np.asarray(runs[0]["eta"], float) >= eta_min
    s1 = runs.values("s1")[:, big]
    return (float(np.abs(s1 - runs.values("theory_s1")[:, big]).mean()),
            float(np.abs(s1 - runs.values("plugin_s1")[:, big]).mean()))


def _u1_limit(run) -> float:
    """The limit of ||u1||, sqrt(mu*^2 + E[y^2]/psi) (``os-conj-rank-one``)."""
    N = int(run["N"])
    psi = int(run.params.get("n", N)) / int(run.params.get("d", N))
    return spike_limit(run["target"], run["activation"], psi) / abs(
        get_activation(run["activation"]).m(1))


def transition(runs: Runs, stored: Runs | None = None) -> Numbers:
    """The numbers of ``os-obs-transition`` and the prose around it, and of
    ``fig-os-transition``'s caption, from the runs of ``TRANSITION`` (E1) at one square size
    and, where present, the stored paper-scale runs:

    * ``N``, ``seeds``; ``eta_c``, the threshold; ``below``: the mean cos^2(v1, beta*) over
      the seeds and the step sizes eta <= 1, against ``chance`` = 1/d;
    * at eta = 2: ``theta2`` (the limit of theta), ``s1`` ± ``s1_sd`` against ``s1_th``,
      ``cos2`` ± ``cos2_sd`` against ``cos2_th`` (mean ± standard deviation over the seeds);
    * ``err_limit`` and ``err_plugin``: the mean |s1 - prediction| for eta >= 2 with the
      limits of ||a|| and ||u1|| in theta, and with each seed's own values;
    * ``paper_N``, ``paper_seeds``, ``paper_s1`` ± ``paper_s1_sd`` against ``paper_s1_th``,
      ``paper_cos2`` against ``paper_cos2_th``: the same at eta = 2 in the stored runs.
    """
    runs = _checked(runs)
    r0 = runs[0]
    etas = np.asarray(r0["eta"], float)
    j = _column(etas, ETA_TABLE, "eta")
    N, d, n = int(r0["N"]), r0.params.get("d"), r0.params.get("n")
    theta = transition_theory([ETA_TABLE], r0["target"], r0["activation"], N=N, d=d, n=n)
    theta = theta["theta"][0]
    s1, cos2 = runs.values("s1")[:, j], runs.values("cos2_beta")[:, j]
    err_limit, err_plugin = _plugin_errors(runs)
    out = dict(N=N, seeds=len(runs.unique("seed")), eta_c=fmt(r0["eta_c"]),
               theta2=fmt(theta), s1=fmt_fixed(s1.mean(), 2), s1_sd=fmt(s1.std(), 1),
               s1_th=fmt_fixed(r0["theory_s1"][j], 2), cos2=fmt(cos2.mean(), 2),
               cos2_sd=fmt(cos2.std(), 1), cos2_th=fmt(r0["theory_cos2"][j], 2),
               below=fmt(runs.values("cos2_beta")[:, etas <= 1.0].mean(), 2),
               chance=fmt(1 / (N if d is None else int(d)), 2),
               err_limit=fmt(err_limit, 2), err_plugin=fmt(err_plugin, 2))
    out.update(dict.fromkeys(("paper_N", "paper_seeds", "paper_s1", "paper_s1_sd",
                              "paper_s1_th", "paper_cos2", "paper_cos2_th"), "n/a"))
    stored = _stored(stored)
    if stored is not None:
        p0 = stored[0]
        jp = _column(p0["eta"], ETA_TABLE, "eta")
        s1_p, cos2_p = stored.values("s1")[:, jp], stored.values("cos2_beta")[:, jp]
        out.update(paper_N=int(p0["N"]), paper_seeds=len(stored),
                   paper_s1=fmt_fixed(s1_p.mean(), 2), paper_s1_sd=fmt(s1_p.std(), 1),
                   paper_s1_th=fmt_fixed(p0["theory_s1"][jp], 2), paper_cos2=fmt(cos2_p.mean(), 2),
                   paper_cos2_th=fmt(p0["theory_cos2"][jp], 2))
    return Numbers(**out)


def transition_table(runs: Runs, stored: Runs | None = None) -> str:
    """At eta = 2: s1 and the three squared overlaps (mean, standard deviation over the
    seeds, theory); the mean |s1 - prediction| for eta >= 2 with the limits of ||a||,
    ||u1|| and with each seed's own; ||u1|| per seed. Says so when the stored runs are
    absent (the figure then shows the chapter's runs only)."""
    runs = _checked(runs)
    r0 = runs[0]
    lines = []
    if _stored(stored) is None:
        lines += ["No stored paper-scale runs here (COMPANION_PAPER_DATA=off):",
                  "the figures show this chapter's runs only."]
    j = _column(r0["eta"], ETA_TABLE, "eta")
    lines += [f"eta = {ETA_TABLE:g}, N = d = n = {int(r0['N'])}, "
              f"{len(runs.unique('seed'))} seeds",
              f"{'quantity':>17} {'simulation':>10} {'std':>6} {'theory':>7}"]
    rows = [("s1", "s1", "theory_s1"),
            ("<l1, a>^2", "overlap_a", "theory_overlap_a"),
            ("<v1, u1>^2", "overlap_u1", "theory_overlap_u1"),
            ("cos^2(v1, beta*)", "cos2_beta", "theory_cos2")]
    for name, key, th_key in rows:
        v = runs.values(key)[:, j]
        lines.append(f"{name:>17} {fmt(v.mean()):>10} {fmt(v.std(), 2):>6}"
                     f" {fmt(r0[th_key][j]):>7}")
    err_limit, err_plugin = _plugin_errors(runs)
    lines += [f"mean |s1 - prediction| for eta >= {ETA_TABLE:g}:",
              f"  with the limits of ||a||, ||u1||: {fmt(err_limit, 2)}",
              f"  with each seed's own ||a||, ||u1||: {fmt(err_plugin, 2)}",
              "||u1|| per seed: " + ", ".join(fmt(v) for v in runs.values("u1_norm"))
              + f" (limit {fmt(_u1_limit(r0))})"]
    return "\n".join(lines)


# -- rectangular weights --------------------------------------------------------------------------

def _shapes(runs: Runs) -> dict:
    """{phi = N/d: runs of that shape} (a run without ``d`` is square)."""
    out: dict = {}
    for r in runs:
        out.setdefault(int(r["N"]) / int(r.params.get("d", r["N"])), []).append(r)
    return {phi: Runs(v) for phi, v in out.items()}


def rectangular(runs: Runs) -> Numbers:
    """The numbers of ``os-obs-rectangular`` and of ``fig-os-transition-phi``'s caption, from
    the runs of ``TRANSITION`` at phi = N/d = 1/2 and 2: ``eta_c_half``, ``eta_c_two`` (the
    thresholds), ``edge_half``, ``edge_two`` (the bulk edges 1 + sqrt(phi)); at eta = 3,
    ``cos2_half``, ``cos2_two`` (cos^2(v1, beta*), mean over the seeds) against
    ``cos2_half_th``, ``cos2_two_th`` (``os-conj-bbp``); ``N``: the larger dimension;
    ``seeds``. A shape the runs lack reads "n/a"."""
    runs = _checked(runs)
    shapes = _shapes(runs)
    out = dict(N=max(max(int(r["N"]), int(r.params.get("d", r["N"]))) for r in runs),
               seeds=len(runs.unique("seed")))
    for phi, name in ((0.5, "half"), (2.0, "two")):
        r = shapes.get(phi)
        if r is None:
            out.update({f"{key}_{name}": "n/a" for key in ("eta_c", "edge", "cos2")},
                       **{f"cos2_{name}_th": "n/a"})
            continue
        k = _column(r[0]["eta"], ETA_RECT, "eta")
        out.update({f"eta_c_{name}": fmt(r[0]["eta_c"]), f"edge_{name}": fmt(r[0]["edge"]),
                    f"cos2_{name}": fmt_fixed(r.mean("cos2_beta")[k], 2),
                    f"cos2_{name}_th": fmt_fixed(r[0]["theory_cos2"][k], 2)})
    return Numbers(**out)


def rectangular_table(runs: Runs) -> str:
    """Per shape at eta = 3: phi, N, d, eta_c, the bulk edge, s1 and cos^2(v1, beta*)
    (mean over the seeds) against theory (``os-conj-bbp``)."""
    runs = _checked(runs)
    k = _column(runs[0]["eta"], ETA_RECT, "eta")
    lines = [f"at eta = {ETA_RECT:g}:",
             f"{'phi':>4} {'N':>5} {'d':>5} {'eta_c':>6} {'edge':>5} "
             f"{'s1':>5} {'theory':>6} {'cos2':>5} {'theory':>6}"]
    for phi, r in _shapes(runs).items():
        r0 = r[0]
        n_ = int(r0["N"])
        d_ = int(r0.params.get("d", n_))
        lines.append(f"{phi:>4g} {n_:>5} {d_:>5} {fmt(r0['eta_c']):>6}"
                     f" {fmt(r0['edge']):>5} {fmt(r.mean('s1')[k]):>5}"
                     f" {fmt(r0['theory_s1'][k]):>6}"
                     f" {fmt_fixed(r.mean('cos2_beta')[k], 2):>5}"
                     f" {fmt_fixed(r0['theory_cos2'][k], 2):>6}")
    return "\n".join(lines)


# -- large steps: eta = N^alpha --------------------------------------------------------------

def _slopes(runs: Runs, key: str = "s1") -> tuple[np.ndarray, np.ndarray, list]:
    """The local slope of log s1 against log N between the two largest sizes, per alpha:
    measured (mean over the seeds) and theory; and the sizes, smallest first."""
    groups = runs.groups("N")
    Ns = sorted(k[0] for k in groups)
    if len(Ns) < 2:
        raise ValueError(f"runs must hold at least two sizes N to measure a growth rate, "
                         f"got {Ns}")
    top, prev = groups[(Ns[-1],)], groups[(Ns[-2],)]
    dlog = np.log(Ns[-1] / Ns[-2])
    sim = np.log(top.mean(key) / prev.mean(key)) / dlog
    th = np.log(np.asarray(top[0]["theory_s1"]) / np.asarray(prev[0]["theory_s1"])) / dlog
    return sim, th, Ns


def growth(runs: Runs, stored: Runs | None = None) -> Numbers:
    """The numbers of ``os-obs-growth``, ``os-obs-saturation`` and the prose between them,
    and of ``fig-os-growth``'s caption, from the runs of ``GROWTH`` (E2, eta = c N^alpha) and,
    where present, the stored paper-scale runs:

    * ``N``, ``N_min``, ``seeds``;
    * ``slope_sim`` and ``slope_th``: the local slope of log s1 against log N between the two
      largest sizes at alpha = 0.4, measured and theory; ``slope_sim_low``,
      ``slope_th_low``: the same at alpha = 0.1;
    * at the largest N: ``s1_over_eta`` at alpha = 0.4, against ``s1_over_eta_limit``
      (``os-conj-saturation``); at the largest alpha, ``overlap_u1_max`` (the squared overlap
      of v1 with u1/||u1||) and ``sat_meas`` ± ``sat_sd`` (cos^2(v1, beta*)), against
      ``u1_meas`` ± ``u1_sd`` (cos^2(u1, beta*) over the same seeds) and its limit ``sat``;
    * ``paper_N2``, ``paper_slope``, ``paper_slope_th``, ``paper_sat`` ± ``paper_sat_sd``:
      the slope and the saturation at the largest stored N.
    """
    runs = _checked(runs)
    sim, th, Ns = _slopes(runs)
    r0 = runs[0]
    hi, lo = (_column(r0["alpha"], a, "alpha") for a in (ALPHA_SLOPE, ALPHA_LOW))
    last = runs.where(N=Ns[-1])
    eta = float(r0.params.get("c", 1.0)) * Ns[-1] ** ALPHA_SLOPE
    sat, u1 = last.values("cos2_beta")[:, -1], last.values("cos2_u1")
    out = dict(**_sizes(runs), slope_sim=fmt(sim[hi], 2), slope_th=fmt(th[hi], 2),
               slope_sim_low=fmt(sim[lo], 2), slope_th_low=fmt(th[lo], 2),
               s1_over_eta=fmt(last.values("s1")[:, hi].mean() / eta),
               s1_over_eta_limit=fmt(spike_limit(r0["target"], r0["activation"],
                                                 float(r0.params.get("psi", 1.0)))),
               sat=fmt_fixed(last[0]["saturation"], 2), sat_meas=fmt(sat.mean()),
               sat_sd=fmt(sat.std(), 1), u1_meas=fmt(u1.mean()), u1_sd=fmt(u1.std(), 1),
               overlap_u1_max=fmt(last.values("overlap_u1")[:, -1].mean()))
    out.update(dict.fromkeys(("paper_N2", "paper_slope", "paper_slope_th", "paper_sat",
                              "paper_sat_sd"), "n/a"))
    stored = _stored(stored)
    if stored is not None:
        sim_p, th_p, Ns_p = _slopes(stored)
        c4 = _column(stored[0]["alpha"], ALPHA_SLOPE, "alpha")
        sat_p = stored.where(N=Ns_p[-1]).values("cos2_beta")[:, -1]
        out.update(paper_N2=int(Ns_p[-1]), paper_slope=fmt(sim_p[c4], 2),
                   paper_slope_th=fmt_fixed(th_p[c4], 2), paper_sat=fmt(sat_p.mean()),
                   paper_sat_sd=fmt(sat_p.std(), 1))
    return Numbers(**out)


def growth_table(runs: Runs) -> str:
    """The local slope of log s1 against log N between the two largest sizes for
    alpha = 0.1 to 0.4, measured and theory; s1/eta at alpha = 0.4 and its limit; at the
    largest alpha, cos^2(v1, beta*) and its limit, and cos^2(u1, beta*) per seed."""
    runs = _checked(runs)
    sim, th, Ns = _slopes(runs)
    r0 = runs[0]
    alphas = np.asarray(r0["alpha"], float)
    lines = [f"local slope of log s1 against log N, N = {Ns[-2]} to {Ns[-1]}",
             f"{'alpha':>6} {'simulation':>11} {'theory':>7}"]
    for a in GROWTH_ALPHAS:
        c = _column(alphas, a, "alpha")
        lines.append(f"{a:>6g} {fmt(sim[c], 2):>11} {fmt(th[c], 2):>7}")
    ns = growth(runs)
    last = runs.where(N=Ns[-1])
    lines += [f"s1 / eta at alpha = {ALPHA_SLOPE:g}, N = {Ns[-1]}: {ns.s1_over_eta}",
              f"  limit m1 sqrt(mu*^2 + E y^2 / psi) = {ns.s1_over_eta_limit}",
              f"alpha = {fmt(alphas[-1])}, N = {Ns[-1]}: cos^2(v1, beta*) = {ns.sat_meas} "
              f"+- {ns.sat_sd}; limit {fmt_fixed(last[0]['saturation'], 3)}",
              "cos^2(u1, beta*) per seed: "
              + ", ".join(fmt(v) for v in last.values("cos2_u1"))]
    return "\n".join(lines)


# -- which directions one step sees --------------------------------------------------------------

def _by_target(runs: Runs, N: int) -> dict:
    at = runs.where(N=N)
    missing = [t for t in DIRECTION_TARGETS if not len(at.where(target=t))]
    if missing:
        raise ValueError(f"runs must hold the targets {', '.join(DIRECTION_TARGETS)} at "
                         f"N = {N}; missing: {', '.join(missing)}")
    return {t: at.where(target=t) for t in DIRECTION_TARGETS}


def directions(runs: Runs) -> Numbers:
    """The numbers of ``os-obs-he3``, the prose after it and ``fig-os-he3``'s caption, from
    the runs of ``DIRECTIONS`` (targets He_1, He_3 and He_1 + He_3):

    * ``N``, ``N_min``, ``seeds``; ``size_ratio``: largest over smallest N;
    * at the largest N: ``he3_cos2`` (cos^2(v1, beta*) for He_3, mean over the seeds)
      against ``he3_level`` (the noise level, ``os-conj-he3``), ``he3_s1`` (its outlier),
      ``he1_cos2`` (He_1 alone), ``mix_he1`` against ``mix_he1_th`` (the He_1 direction of
      the mixed target); ``mix_he3_spread``: the largest over the median of the seeds'
      values for the He_3 direction of the mixed target; ``he1_th``: He_1's prediction;
    * ``he3_ratio``: the He_3 value at the smallest N over that at the largest, against
      ``he3_ratio_th``, the same ratio of the predicted noise levels.
    """
    size = _sizes(_checked(runs))
    r1, r3, mix = (_by_target(runs, size["N"])[t] for t in DIRECTION_TARGETS)
    small = runs.where(N=size["N_min"], target="he3")
    mix3 = mix.values("cos2")[:, direction_names("he1+he3").index("he3")]
    return Numbers(**size, size_ratio=size["N"] // size["N_min"],
                   he3_cos2=fmt(r3.mean("cos2")[0], 2), he3_level=fmt(r3[0]["theory_cos2"][0], 2),
                   he3_s1=fmt_fixed(r3.mean("s1"), 2), he1_cos2=fmt(r1.mean("cos2")[0]),
                   he1_th=fmt(r1[0]["theory_cos2"][0]),
                   he3_ratio_th=fmt(small[0]["theory_cos2"][0] / r3[0]["theory_cos2"][0], 2),
                   mix_he1=fmt_fixed(mix.mean("cos2")[0], 3),
                   mix_he1_th=fmt(mix[0]["theory_cos2"][0]),
                   he3_ratio=fmt(small.mean("cos2")[0] / r3.mean("cos2")[0], 2),
                   mix_he3_spread=fmt(mix3.max() / np.median(mix3), 2))


def directions_table(runs: Runs) -> str:
    """At the largest N, per target and direction: mu*, cos^2(v1, beta*_k) (mean over the
    seeds) and its prediction, the projection on the top right singular vectors and s1."""
    size = _sizes(_checked(runs))
    by = _by_target(runs, size["N"])
    r0 = by["he1"][0]
    N, top = size["N"], int(r0["top"])
    lines = [f"N = d = n = {N}, eta = N^{float(r0['alpha']):g} = {fmt(r0['eta'])}, "
             f"{size['seeds']} seeds; 1/d = {fmt(1 / N)}, {top}/d = {fmt(top / N)}",
             f"{'target':>8} {'direction':>9} {'mu*':>4} {'cos2(v1, b)':>11}"
             f" {'theory':>8} {'proj. top ' + str(top):>11} {'s1':>5}"]
    for name, r in by.items():
        for k, link in enumerate(direction_names(name)):
            lines.append(f"{name:>8} {link:>9} {fmt(r[0]['mu_star'][k], 2):>4}"
                         f" {fmt(r.mean('cos2')[k]):>11} {fmt(r[0]['theory_cos2'][k]):>8}"
                         f" {fmt(r.mean('proj_top')[k]):>11} {fmt(r.mean('s1')):>5}")
    return "\n".join(lines)


# -- u1 alone, over many draws of the data ----------------------------------------------------

def _d_cos2(runs: Runs, target: str) -> np.ndarray:
    """d cos^2(u1, beta*_k) per draw for the He_3 direction of ``target``."""
    if not len(sel := runs.where(target=target)):
        raise ValueError(f"runs hold no draws for the target {target!r}")
    k = direction_names(target).index("he3")
    return np.asarray(sel.values("d"), float) * sel.values("cos2")[:, k]


def u1_check(runs: Runs) -> Numbers:
    """The check of ``os-conj-he3`` on u1 alone (runs of ``U1_CHECK``): ``draws``, ``he3_mean``
    ± ``he3_se`` (d cos^2(u1, beta*) for He_3: mean, standard error; predicted: 7)."""
    vals = _d_cos2(_checked(runs), "he3")
    return Numbers(draws=len(vals), he3_mean=fmt(vals.mean(), 2),
                   he3_se=fmt(vals.std() / np.sqrt(len(vals)), 1))


def u1_table(runs: Runs) -> str:
    """d cos^2(u1, beta*_k) for the He_3 direction of each target (mean, standard error over
    the draws) against the prediction (:func:`~companion.chapters.one_step.experiments.u1_theory`)."""
    runs = _checked(runs)
    d = int(runs[0]["d"])
    targets = [t for t in runs.unique("target") if "he3" in direction_names(t)]
    lines = [f"d * cos^2(u1, beta*_k) over {len(runs.where(target=targets[0]))} draws of "
             f"the data, N = d = n = {d}",
             f"{'target':>8} {'direction':>9} {'mean':>6} {'std. err.':>9} {'theory':>7}"]
    for name in targets:
        vals = _d_cos2(runs, name)
        level = d * u1_theory(name, d)[direction_names(name).index("he3")]
        lines.append(f"{name:>8} {'he3':>9} {fmt(vals.mean()):>6}"
                     f" {fmt(vals.std() / np.sqrt(len(vals)), 2):>9} {fmt(level):>7}")
    return "\n".join(lines)
