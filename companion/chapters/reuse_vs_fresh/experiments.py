"""Experiments of the chapter "Reused versus fresh batches" (E6 to E9; book: dv-learnability,
dv-first-direction).

The paper states (abstract): with a fresh batch the second step learns only directions of
information exponent one; with the batch reused it can learn directions of higher exponent
"provided that alpha1, alpha2 are chosen properly" (the AI-written public summary, not
endorsed by the authors: for example He_3, if Lambda(alpha1, alpha2) >= 2). The companion
derives the mechanism (book: dv-expansion, dv-learnability): with reuse the second step's
pre-activation change contains the self term y_i sigma'(w_j^T x_i) eta1 a_j / psi, so the
spikes of W2 carry powers of y, and beta* enters through kappa_{k,r} E[z y^(r+1)].

What is here (nothing draws; the figures are in :mod:`companion.chapters.reuse_vs_fresh.figures`):

* the unit functions :func:`first_direction_unit` (E6: the first learned direction, with
  its finite-size decomposition) and :func:`projection_unit` (E7 to E9: the projection of
  beta* on the top-m right singular subspace of W2, where in that subspace it sits, and the
  left vectors on the powers of a), and the experiments that run them:
  :data:`FIRST_DIRECTION`, :data:`HEADLINE`, :data:`OTHER_TARGETS`,
  :data:`ACTIVATION_ABLATION` (``.run(...)`` gives :class:`companion.core.runs.Runs`);
* :func:`run_missing`, to run an experiment while taking units another one already
  computed (the chapter's other-target and ablation runs share the headline's);
* :func:`beta_carrier`: which of the top-m right singular vectors carries beta*, and where
  its left vector lies on the Gram-Schmidt powers of a;
* :func:`link_moments`, :func:`activation_moments`, :func:`learnability_table`: the numbers
  of the mechanism (book: dv-learnability), for tables;
* :func:`he2_plus_he3`, :func:`bounded_odd_link`: the other targets' links.
"""

from __future__ import annotations

import itertools
import json
from typing import Sequence

import numpy as np

from companion.core.activations import Activation, get_activation
from companion.core.alignment import cos2_with_directions, subspace_projection
from companion.core.experiment import Experiment, precision, run_units
from companion.core.gaussian import normalized_hermite
from companion.core.network import run_two_steps
from companion.core.readout import WEIGHTS, readout_errors
from companion.core.runs import Runs
from companion.core.spectra import top_singular
from companion.core.spikes import power_weights
from companion.core.targets import Link, Target, bounded_odd_link, make_link, target_moments
from companion.core.theory import (
    first_direction_alignment,
    is_learnable,
    lambda_count,
    spiked_rectangular,
)
from companion.core.validation import seed_list

#: (alpha1, alpha2) pairs of the first-direction experiment: two in the one-step phase
#: (Lambda = 0) and two with added spikes ((0.2, 0.2) and (0.4, 0.25)).
FIRST_DIRECTION_PAIRS: tuple[tuple[float, float], ...] = ((0.2, 0.2), (0.1, 0.3),
                                                           (0.4, 0.25), (0.35, 0.45))

#: The headline point. It lies on the phase line alpha2 = 3 (1/2 - alpha1)
#: (:func:`companion.phase_line` gives 3); He_3 needs only the k = 2 term, exponent +0.15.
HEADLINE_POINT: tuple[float, float] = (0.35, 0.45)

#: (batch, alpha1, alpha2) settings of the headline experiment (book: reg-experiments): reused with
#: Lambda = 3 (He_3 learnable), reused with Lambda = 1 (not), fresh with Lambda = 3 (not).
HEADLINE_SETTINGS: tuple[tuple[str, float, float], ...] = (("reused", *HEADLINE_POINT),
                                                           ("reused", 0.20, 0.45),
                                                           ("fresh", *HEADLINE_POINT))

#: the other-targets experiment's targets and the ablation's activations, by the labels
#: the runs (and the stored runs) use
TARGET_LABELS: tuple[str, ...] = ("He_3", "He_2", "(He_2+He_3)/sqrt2", "bounded odd")
ABLATION_ACTIVATIONS: tuple[str, ...] = ("tanh", "shifted_tanh", "relu")


# -- target links ---------------------------------------------------------------------------
def he2_plus_he3(z):
    """He_2(z)/sqrt(2) + He_3(z)/sqrt(6) (normalized Hermite); as a link it is divided by
    sqrt(2), the target (He_2 + He_3)/sqrt(2) of E8 (book: reg-experiments)."""
    return normalized_hermite(2, z) + normalized_hermite(3, z)


def target_spec(label: str):
    """The target a label of the projection runs names (``"He_3"`` -> ``"he3"``, ...):
    :data:`TARGET_LABELS`, ``"He_1"`` and ``"bounded gentle"``."""
    specs = {"He_1": "he1", "He_3": "he3", "He_2": "he2", "(He_2+He_3)/sqrt2": he2_plus_he3,
             "bounded odd": lambda: bounded_odd_link("sharp"),
             "bounded gentle": lambda: bounded_odd_link("gentle")}
    if label not in specs:
        raise ValueError(f"unknown target label {label!r} (known: {', '.join(specs)})")
    spec = specs[label]
    return spec() if label.startswith("bounded") else spec


# -- labels for the tables ------------------------------------------------------------------
def _target_label(spec) -> str:
    if isinstance(spec, (str, Link, Target)):
        return spec if isinstance(spec, str) else spec.name
    if callable(spec):
        return getattr(spec, "__name__", "custom")
    if isinstance(spec, Sequence):
        return "+".join(_target_label(s) for s in spec)
    return str(spec)


def _as_named(items, label) -> list[tuple[str, object]]:
    """Accept a dict {label: spec} or a sequence of specs; return (label, spec) pairs."""
    if isinstance(items, dict):
        return list(items.items())
    if isinstance(items, (str, Link, Activation)) or callable(items):
        items = [items]
    return [(label(s), s) for s in items]


def _prediction(learnable: bool | None) -> float:
    """is_learnable's answer as a number that arrays and CSV files keep: 1.0, 0.0 or NaN
    (no prediction)."""
    return np.nan if learnable is None else float(learnable)


# -- the unit functions ---------------------------------------------------------------------
def first_direction_unit(N: int, alpha1: float, alpha2: float, batch: str, target: str,
                         activation: str, seed: int, psi: float = 1.0,
                         dtype: str = "float64", shared=None) -> dict:
    """E6 (book: dv-first-direction): cos^2(top right singular vector v1 of W2, beta*) for one run
    (d = N, n = psi d), and what it is made of:

    * ``cos2``: the measurement; ``s1``: the top singular value; ``lambda``: Lambda;
    * ``limit``: :func:`companion.first_direction_alignment` at the run's eta1, eta2 (the
      companion's N -> infinity formula: reused mu*^2 / (mu*^2 + E y^2 / psi); fresh
      (eta1 + eta2)^2 mu*^2 / ((eta1 + eta2)^2 mu*^2 + (eta1^2 + eta2^2) E y^2 / psi));
    * ``ubar_cos2``: cos^2(ubar, beta*) for this run's own sample, ubar = u1 (reused) or
      eta1 u1 + eta2 u2 (fresh), u_t = X_t^T y_t / n: what the limit is a limit of;
    * ``theta``: the spike strength m1 ||a|| ||ubar_eta|| of this run (ubar_eta =
      (eta1 + eta2) u1 or eta1 u1 + eta2 u2), and ``spike_factor``, the right-vector overlap
      |<v1, ubar/||ubar||>|^2 of the spiked rectangular model at that theta (1 - 1/theta^2
      for N = d; book: dv-spiked-rectangular);
    * ``finite_size_prediction`` = ``ubar_cos2 * spike_factor`` and ``v_ubar_cos2``, the
      measured cos^2(v1, ubar);
    * ``limit_finite_n``: ``limit`` times the spike factor at the theoretical theta (||a|| = 1,
      ||u||^2 at its limit), a smooth finite-N correction of the limit without sample noise.
    """
    act = get_activation(activation)
    m1 = act.m(1)
    run = run_two_steps(int(N), n=None if psi == 1 else max(1, round(psi * N)),
                        alpha1=alpha1, alpha2=alpha2, batch=batch, activation=act,
                        target=target, seed=seed, dtype=dtype, shared=shared)
    tgt = run.target
    beta = tgt.directions[0]
    _, s, Vt = top_singular(run.W2, 1)
    u1 = run.X1.T @ run.y1 / run.n
    if batch == "reused":
        ubar = (run.eta1 + run.eta2) * u1
    else:
        ubar = run.eta1 * u1 + run.eta2 * (run.X2.T @ run.y2 / run.n)
    theta = abs(m1) * np.linalg.norm(run.a) * np.linalg.norm(ubar)
    factor = spiked_rectangular(theta, run.N, run.d)["right_overlap2"]
    psi_run = run.n / run.d
    limit = first_direction_alignment(batch, tgt.mu_star, tgt.second_moment, psi_run,
                                      run.eta1, run.eta2)[0]
    noise = tgt.second_moment / psi_run
    mu2 = float(np.sum(tgt.mu_star ** 2))
    if batch == "reused":
        theta_th = abs(m1) * (run.eta1 + run.eta2) * np.sqrt(mu2 + noise)
    else:
        theta_th = abs(m1) * np.sqrt((run.eta1 + run.eta2) ** 2 * mu2
                                     + (run.eta1 ** 2 + run.eta2 ** 2) * noise)
    ubar_cos2 = float(cos2_with_directions(ubar[None], beta[None])[0, 0])
    return {
        "cos2": float(cos2_with_directions(Vt, beta[None])[0, 0]),
        "limit": float(limit),
        "limit_finite_n": float(limit * spiked_rectangular(theta_th, run.N, run.d)
                                ["right_overlap2"]),
        "ubar_cos2": ubar_cos2,
        "v_ubar_cos2": float(cos2_with_directions(Vt, ubar[None])[0, 0]),
        "theta": float(theta),
        "spike_factor": float(factor),
        "finite_size_prediction": ubar_cos2 * float(factor),
        "s1": float(s[0]),
        "lambda": float(lambda_count(alpha1, alpha2, act.degree)),
    }


def projection_unit(N: int, batch: str, alpha1: float, alpha2: float, target: str,
                    activation: str, m: int, seed: int, dtype: str = "float64",
                    shared=None) -> dict:
    """E7 to E9 (book: dv-learnability): ||P_m beta*||^2, the squared norm of the projection of the
    target direction on the top-``m`` right singular subspace of W2, for one run (d = n = N;
    ``target`` a label of :func:`target_spec`). Result keys:

    ``projection`` (the measurement), ``chance`` (m / d: a uniformly random direction),
    ``lambda`` (the paper's Lambda, :func:`companion.lambda_count`), ``learnable``
    (:func:`companion.is_learnable`, the companion's asymptotic prediction: 1.0 yes, 0.0 no,
    NaN no prediction, e.g. ReLU with a reused batch), ``s_i`` (the top-m singular values),
    ``cos2_i`` (cos^2 of each top-m right singular vector with beta*: where in the subspace
    the projection sits; they sum to ``projection``) and ``left`` (m x 5: the squared
    overlaps of each top-m left singular vector with the Gram-Schmidt powers q_1..q_5 of a,
    so that the vector carrying beta* can be traced to the term that made it, book: dv-expansion).
    """
    act = get_activation(activation)
    run = run_two_steps(int(N), alpha1=alpha1, alpha2=alpha2, batch=batch, activation=act,
                        target=target_spec(target), seed=seed, dtype=dtype, shared=shared)
    U, s, Vt = top_singular(run.W2, m)
    beta = run.target.directions[0][None]
    out = {"projection": float(subspace_projection(Vt, beta)[0]), "chance": m / run.d,
           "lambda": float(lambda_count(alpha1, alpha2, act.degree)),
           "learnable": _prediction(is_learnable(run.target, 0, batch, alpha1, alpha2, act))}
    out.update({f"s_{i}": float(v) for i, v in enumerate(np.asarray(s, float))})
    out.update({f"cos2_{i}": float(v) for i, v in enumerate(cos2_with_directions(Vt, beta)[:, 0])})
    out["left"] = np.asarray(power_weights(U, run.a, 5), float)
    return out


# -- what the runs say ----------------------------------------------------------------------
def run_missing(experiment: Experiment, have: Runs, scale: str = "small", **sizes) -> Runs:
    """``experiment.run(scale, **sizes)``, but the units already in ``have`` (same
    parameters and seed, e.g. the headline's He_3 runs inside the other-targets experiment)
    are taken from there instead of being computed again. Runs come in the experiment's
    order."""
    def key(params, seed):
        return json.dumps(params, sort_keys=True), int(seed)

    known = {key(r.params, r.seed): r for r in have}
    units = experiment.grid({**experiment.sizes[scale], **sizes})
    todo = [(p, s) for p, s in units if key(p, s) not in known]
    computed = {key(r.params, r.seed): r for r in run_units(experiment.unit, todo)}
    return Runs(known.get(key(p, s)) or computed[key(p, s)] for p, s in units)


def beta_carrier(runs: Runs) -> dict:
    """Which of the top-m right singular vectors carries beta* in ``runs`` (the seeds of one
    setting), and where its left singular vector lies (book: dv-census, dv-learnability):

    ``index`` (0-based) of the vector with the largest mean cos^2 with beta*; ``share`` (m,)
    the mean cos^2 of each vector; ``largest_in`` the number of runs in which that vector
    has the largest cos^2, of ``runs`` runs. With the ``left`` result (the squared overlaps
    of the left vectors with the Gram-Schmidt powers q_1..q_5 of a; absent from older stored
    runs): ``left`` (runs x 5) of the carrier, ``left_first`` (runs x 5) of the first
    vector, and ``q3``, the carrier's mean weight on q_3 (the a^{o3} direction of the
    k = 2 term), with ``q3_of_powers``, its mean fraction of the carrier's weight on the
    span of q_1..q_5."""
    m = sum(1 for k in runs[0].result if k.startswith("cos2_"))
    cos2 = np.stack([runs.values(f"cos2_{i}") for i in range(m)], axis=1)
    index = int(np.argmax(cos2.mean(axis=0)))
    out = {"index": index, "share": cos2.mean(axis=0),
           "largest_in": int(np.sum(cos2.argmax(axis=1) == index)), "runs": len(runs)}
    if all("left" in r.result for r in runs):
        left = runs.values("left")
        out["left"] = left[:, index, :]
        out["left_first"] = left[:, 0, :]
        out["q3"] = float(left[:, index, 2].mean())
        out["q3_of_powers"] = float(np.mean(left[:, index, 2] / left[:, index, :].sum(axis=1)))
    return out


# -- the mechanism's numbers ----------------------------------------------------------------
def link_moments(links, powers: Sequence[int] = (1, 2, 3)) -> dict[str, np.ndarray]:
    """E[z g(z)^p] for each link and power (book: dv-hermite): p = 1 is mu*, what a fresh batch (and
    one step) sees; p = r + 1 >= 2 is what the reused second step's k-th spike sees through
    kappa_{k,r}. Also the information exponent and E g^6 (the size of the noise in the
    y^3 term). ``links``: names, callables or :class:`Link` objects, or a dict."""
    items = _as_named(links, _target_label)
    out: dict[str, list] = {"link": [], "information_exponent": [], "E_g6": []}
    for p in powers:
        out[f"E_z_g{p}"] = []
    for label, spec in items:
        link = make_link(spec)
        out["link"].append(label)
        out["information_exponent"].append(link.information_exponent())
        out["E_g6"].append(link.moment(6))
        for p in powers:
            out[f"E_z_g{p}"].append(link.z_moment(p))
    return {k: np.array(v) for k, v in out.items()}


def activation_moments(activations, pairs: Sequence[tuple[int, int]] = ((1, 1), (2, 1), (2, 2))
                       ) -> dict[str, np.ndarray]:
    """m1, m2, m3 and kappa_{k,r} = E[sigma^(k+1)(zeta) sigma'(zeta)^r] for each activation
    (book: dv-moments, dv-expansion): m_{k+1} sets the fresh k-th spike, kappa_{k,r} the reused
    one's y-power terms; He_3 needs kappa_{2,2} != 0. (ReLU's kappa are printed as 0 from its
    almost-everywhere derivatives; it lies outside the smooth expansion.)"""
    items = _as_named(activations, lambda a: get_activation(a).name)
    out: dict[str, list] = {"activation": [], "m1": [], "m2": [], "m3": []}
    for k, r in pairs:
        out[f"kappa_{k}{r}"] = []
    for label, spec in items:
        act = get_activation(spec)
        out["activation"].append(label)
        for j in (1, 2, 3):
            out[f"m{j}"].append(float(act.m(j)))
        for k, r in pairs:
            out[f"kappa_{k}{r}"].append(float(act.kappa(k, r)))
    return {k: np.array(v) for k, v in out.items()}


def learnability_table(targets, settings=HEADLINE_SETTINGS,
                       activations="tanh") -> dict[str, np.ndarray]:
    """:func:`companion.is_learnable` for the first direction of each target, for each
    (batch, alpha1, alpha2) setting and activation. The predicate depends on the link
    only (:func:`companion.core.targets.target_moments`: no directions). ``learnable`` is
    1.0 (yes), 0.0 (no) or NaN (no prediction: an activation outside the smooth expansion,
    ReLU, with a reused batch and mu* = 0)."""
    target_items = _as_named(targets, _target_label)
    act_items = _as_named(activations, lambda a: get_activation(a).name)
    records = []
    for (tlabel, tspec), (alabel, aspec), (batch, alpha1, alpha2) in itertools.product(
            target_items, act_items, settings):
        act = get_activation(aspec)
        tgt = target_moments(tspec)
        records.append({"target": tlabel, "activation": alabel, "batch": batch,
                        "alpha1": float(alpha1), "alpha2": float(alpha2),
                        "lambda": lambda_count(alpha1, alpha2, act.degree),
                        "learnable": _prediction(is_learnable(tgt, 0, batch, alpha1, alpha2,
                                                              act))})
    return {k: np.array([r[k] for r in records]) for k in records[0]}


# -- the experiments of this chapter, as units for the book and for reproduce ---------------
# the chapter's own runs (small) in float32: half the time, the same numbers at the digits shown
_E6_SIZES = {"small": dict(N=1000, seeds=3, float32_from=0), "paper": dict(N=2048, seeds=4)}
_E7_SIZES = {"small": dict(Ns=[500, 1000, 2000], seeds=3, float32_from=0),
             "paper": dict(Ns=[1024, 2048, 4096, 8192], seeds=4)}   # the headline: to 8192
_E8_SIZES = {"small": dict(N=1000, seeds=3, float32_from=0), "paper": dict(N=2048, seeds=4)}
_E9_SIZES = {"small": dict(N=1000, seeds=3, float32_from=0), "paper": dict(N=4096, seeds=4)}


def _proj(z, N, batch, a1, a2, target="He_3", activation="tanh"):
    return dict(N=N, batch=batch, alpha1=a1, alpha2=a2, target=target, activation=activation,
                m=4, **precision(z, N))


def _e6_grid(z):
    return [(dict(N=z["N"], alpha1=a1, alpha2=a2, batch=b, target="he1", activation="tanh",
                  **precision(z, z["N"])), s)
            for (a1, a2) in FIRST_DIRECTION_PAIRS for b in ("reused", "fresh")
            for s in seed_list(z["seeds"])]


def _e7_grid(z):
    """The headline's units: each setting at each size of ``Ns``; the Lambda = 1 control
    (:data:`HEADLINE_SETTINGS`' second) only at those of ``control_Ns``, if given (the
    chapter computes it to N = 1000, where the text reads it; the stored runs carry it from
    1024 to 8192)."""
    control = HEADLINE_SETTINGS[1]
    control_Ns = z.get("control_Ns", z["Ns"])
    if not set(control_Ns) <= set(z["Ns"]):
        raise ValueError(f"control_Ns must be sizes of Ns = {list(z['Ns'])}, got "
                         f"{list(control_Ns)}")
    return [(_proj(z, N, b, a1, a2), s) for N in z["Ns"] for (b, a1, a2) in HEADLINE_SETTINGS
            if (b, a1, a2) != control or N in control_Ns for s in seed_list(z["seeds"])]


def _e8_grid(z):
    return [(_proj(z, z["N"], b, *HEADLINE_POINT, target=t), s) for t in TARGET_LABELS
            for b in ("reused", "fresh") for s in seed_list(z["seeds"])]


def _e9_grid(z):
    out = [(_proj(z, z["N"], "reused", *HEADLINE_POINT, activation=a), s)
           for a in ABLATION_ACTIVATIONS for s in seed_list(z["seeds"])]
    out += [(_proj(z, z["N"], "fresh", *HEADLINE_POINT, activation=a), s) for a in ("tanh", "relu")
            for s in seed_list(z["seeds"])]
    return out


# -- what the directions buy in prediction: a ridge readout (E17) ---------------------------
#: E17's points: Lambda = 2 (He_3 reachable with reuse, the k = 2 term's exponent +0.05) and
#: the Lambda = 1 control of E12; its targets and readout sample sizes (multiples of n)
READOUT_POINTS: tuple[tuple[float, float], ...] = ((0.30, 0.45), (0.25, 0.38))
READOUT_TARGETS: tuple[str, ...] = ("he1", "he3", "he1+he3")
READOUT_SAMPLE_FACTORS: tuple[int, ...] = (1, 4)
READOUT_ACTIVATION = "shifted_tanh"


def readout_unit(N: int, alpha1: float, alpha2: float, target: str,
                 activation: str = READOUT_ACTIVATION, seed: int = 0,
                 dtype: str = "float64", shared=None) -> dict:
    """One unit of E17: a reused and a fresh two-step run of the same seed (the same W0, X1,
    y1 and so the same W1), and for each the ridge readout's test error
    (:func:`companion.core.readout.readout_errors`) on sigma(W x) for W in
    :data:`companion.core.readout.WEIGHTS`, with n_train = f n for f in
    :data:`READOUT_SAMPLE_FACTORS` (validation n_train, test 4 n). Keys
    ``<batch>_n<f>_<weight>``: the test error relative to the test labels' variance;
    ``..._parts``: the same per target link (component_relative). The two runs share
    W0, W1 and the one-step reference, so those are fitted once (on the reused run) and
    reported under both batches; only W2 is fitted per batch."""
    out: dict = {}
    for batch in ("reused", "fresh"):
        run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch=batch,
                            activation=activation, target=target, seed=seed, dtype=dtype,
                            shared=shared)
        fitted = WEIGHTS if batch == "reused" else ("W2",)
        for f in READOUT_SAMPLE_FACTORS:
            res = readout_errors(run, n_train=f * run.n, weights=fitted)
            for w in WEIGHTS:
                key = f"_n{f}_{w}"
                if w in fitted:
                    out[batch + key] = float(res[w]["relative"])
                    out[batch + key + "_parts"] = np.asarray(res[w]["component_relative"],
                                                             float)
                else:                                   # shared with the reused run
                    out[batch + key] = out["reused" + key]
                    out[batch + key + "_parts"] = out["reused" + key + "_parts"].copy()
        del run
    return out


def _e17_grid(z):
    return [(dict(N=N, alpha1=a1, alpha2=a2, target=t, **precision(z, N)), s)
            for (a1, a2) in READOUT_POINTS for t in READOUT_TARGETS for N in z["Ns"]
            for s in seed_list(z["seeds"])]


_E17_SIZES = {"small": dict(Ns=[128, 256], seeds=2),
              "paper": dict(Ns=[256, 512, 1024, 2048], seeds=6, float32_from=2048)}
READOUT = Experiment("E17", "what the directions buy: ridge readout test error, reused vs "
                     "fresh", readout_unit, _e17_grid, _E17_SIZES, cost=6.0)

FIRST_DIRECTION = Experiment("E6", "first-direction alignment, reused vs fresh, He_1 target",
                             first_direction_unit, _e6_grid, _E6_SIZES)
HEADLINE = Experiment("E7", "He_3 learned only with reuse: projection on the top-4 subspace",
                      projection_unit, _e7_grid, _E7_SIZES, cache="projection_run")
OTHER_TARGETS = Experiment("E8", "other targets: He_2, (He_2+He_3)/sqrt2, bounded odd",
                           projection_unit, _e8_grid, _E8_SIZES, cache="projection_run")
ACTIVATION_ABLATION = Experiment("E9", "activation ablation: tanh, tanh(z+0.5), ReLU",
                                 projection_unit, _e9_grid, _E9_SIZES, cache="projection_run")
