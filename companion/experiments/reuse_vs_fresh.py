"""Experiments of the chapter "Reused versus fresh batches" (SPEC 3.3, 4: E6 to E9, 5).

The paper states (abstract): with a fresh batch the second step learns only directions of
information exponent one; with the batch reused it can learn directions of higher exponent
for suitable step-size exponents (for He_3: Lambda(alpha1, alpha2) >= 2, summary). The
companion derives the mechanism (SPEC 3.2, 3.3): with reuse the second step's pre-activation
change contains the self term y_i sigma'(w_j^T x_i) eta1 a_j / psi, so the spikes of W2 carry
powers of y, and beta* enters through kappa_{k,r} E[z y^(r+1)].

Functions here run the simulations and return tidy results: dicts of equal-length numpy
arrays, one entry per run (``runs``), or per group of runs (:func:`summarize`). Nothing
here draws. Every run is seeded; the sizes, seeds, step-size exponents, targets and
activations are arguments, so the book's defaults and a paper-scale run call the same code.

* :func:`first_direction_runs` -- E6, cos^2(top right singular vector of W2, beta*) for an
  information-exponent-one target, with its finite-size decomposition.
* :func:`projection_runs` -- E7, E8, E9, the squared norm of the projection of beta* on the
  top-m right singular subspace of W2 (chance m / d), over sizes, seeds, settings, targets
  and activations.
* :func:`link_moments`, :func:`activation_moments`, :func:`learnability_table` -- the
  numbers of the mechanism (SPEC 3.3), for tables.
* :func:`he2_plus_he3`, :func:`bounded_odd_link` -- the E8 target links.
* :func:`paper_scale_runs` -- the committed paper-scale runs (``data/paper/E*.csv``).
"""

from __future__ import annotations

import itertools
from typing import Callable, Iterable, Sequence

import numpy as np

from ..activations import Activation, get_activation
from ..alignment import cos2_with_directions, subspace_projection
from ..gaussian import gaussian_expectation, normalized_hermite
from ..network import run_two_steps
from ..spectra import top_singular
from ..spikes import power_weights
from ..targets import Link, Target, make_link, make_target
from ..theory import (first_direction_alignment, is_learnable, lambda_count,
                      spiked_rectangular)
from ..validation import seed_list
from . import Experiment

#: (alpha1, alpha2) pairs of E6: one pair in the one-step phase (Lambda = 0) and three with
#: added spikes (SPEC 3.3 quotes (0.2, 0.2) and (0.4, 0.25)).
E6_ALPHA_PAIRS: tuple[tuple[float, float], ...] = ((0.2, 0.2), (0.1, 0.3), (0.4, 0.25),
                                                    (0.35, 0.45))

#: (batch, alpha1, alpha2) settings of the headline experiment E7 (SPEC 4): reused with
#: Lambda = 3 (He_3 learnable), reused with Lambda = 1 (not), fresh with Lambda = 3 (not).
E7_SETTINGS: tuple[tuple[str, float, float], ...] = (("reused", 0.35, 0.45),
                                                     ("reused", 0.20, 0.45),
                                                     ("fresh", 0.35, 0.45))


# -- target links of E8 ---------------------------------------------------------------------
def he2_plus_he3(z):
    """He_2(z)/sqrt(2) + He_3(z)/sqrt(6) (normalized Hermite); as a link it is divided by
    sqrt(2), the target (He_2 + He_3)/sqrt(2) of SPEC 4, E8."""
    return normalized_hermite(2, z) + normalized_hermite(3, z)


def _zero_linear_part(f: Callable, carrier: Callable) -> Callable:
    """f - c * carrier with c chosen so that E[z (f - c carrier)(z)] = 0."""
    c = gaussian_expectation(lambda z: z * f(z)) / gaussian_expectation(lambda z: z * carrier(z))
    return lambda z: f(z) - c * carrier(z)


def bounded_odd_link(kind: str = "sharp") -> Link:
    """A bounded, odd link with zero linear coefficient (mu* = 0): information exponent 3.

    ``"sharp"``: g ~ [tanh(4(z - 2)) + tanh(4(z + 2))] / 2 - c tanh(z), a smoothed
    "sign(z) for |z| > 2" minus its linear part; E[z g^3] is about 6.3 (He_3: 22).
    ``"gentle"``: g ~ tanh(z)^3 - c tanh(z); E[z g^3] is about 0.16.
    Both are normalized to E g^2 = 1 by :func:`companion.make_link`.
    """
    if kind == "sharp":
        def far_sign(z):
            z = np.asarray(z, float)
            return 0.5 * (np.tanh(4.0 * (z - 2.0)) + np.tanh(4.0 * (z + 2.0)))
        g = _zero_linear_part(far_sign, np.tanh)
        name = "bounded-sharp"
    elif kind == "gentle":
        g = _zero_linear_part(lambda z: np.tanh(np.asarray(z, float)) ** 3, np.tanh)
        name = "bounded-gentle"
    else:
        raise ValueError(f"bounded_odd_link: kind must be 'sharp' or 'gentle', got {kind!r}")
    link = make_link(g)
    return Link(name, link.g)


# -- labels ---------------------------------------------------------------------------------
def _target_label(spec) -> str:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, Link):
        return spec.name
    if isinstance(spec, Target):
        return spec.name
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


def _check_seeds(seeds) -> tuple[int, ...]:
    seeds = tuple(int(s) for s in np.atleast_1d(seeds))
    if not seeds or any(s < 0 for s in seeds):
        raise ValueError(f"seeds must be non-negative integers, got {seeds!r}")
    return seeds


def _records_to_arrays(records: list[dict]) -> dict[str, np.ndarray]:
    if not records:
        raise ValueError("no runs: check the sizes, seeds and settings")
    return {k: np.array([r[k] for r in records]) for k in records[0]}


# -- E6: the first learned direction --------------------------------------------------------
def first_direction_runs(N: int = 1000, alpha_pairs: Iterable[tuple[float, float]] = E6_ALPHA_PAIRS,
                         seeds=(0, 1, 2), batches: Sequence[str] = ("reused", "fresh"),
                         target="he1", activation="tanh", direction: int = 0,
                         d: int | None = None, n: int | None = None,
                         dtype=np.float64) -> dict[str, np.ndarray]:
    """E6 (SPEC 3.3, 4): cos^2(top right singular vector of W2, beta*) for each run.

    One entry per (alpha pair, batch, seed); ``d`` and ``n`` default to N (phi = psi = 1).
    Besides the measurement ``cos2`` it returns:

    * ``limit``: :func:`companion.first_direction_alignment` at the run's eta1, eta2 (the
      companion's N -> infinity formula: reused mu*^2 / (mu*^2 + E y^2 / psi); fresh
      (eta1 + eta2)^2 mu*^2 / ((eta1 + eta2)^2 mu*^2 + (eta1^2 + eta2^2) E y^2 / psi));
    * ``ubar_cos2``: cos^2(ubar, beta*) for this run's own sample, ubar = u1 (reused) or
      eta1 u1 + eta2 u2 (fresh), u_t = X_t^T y_t / n: what the limit is a limit of;
    * ``theta``: the spike strength m1 ||a|| ||ubar_eta|| of this run (ubar_eta =
      (eta1 + eta2) u1 or eta1 u1 + eta2 u2), and ``spike_factor``, the right-vector overlap
      |<v1, ubar/||ubar||>|^2 of the spiked rectangular model at that theta (1 - 1/theta^2
      for N = d; SPEC 3.1);
    * ``finite_size_prediction`` = ``ubar_cos2 * spike_factor`` and ``v_ubar_cos2``, the
      measured cos^2(v1, ubar);
    * ``limit_finite_n``: ``limit`` times the spike factor at the theoretical theta (||a|| = 1,
      ||u||^2 at its limit), a smooth finite-N correction of the limit without sample noise.
    """
    seeds = _check_seeds(seeds)
    act = get_activation(activation)
    m1 = act.m(1)
    records = []
    for alpha1, alpha2 in alpha_pairs:
        for batch in batches:
            for seed in seeds:
                run = run_two_steps(N, d=d, n=n, alpha1=alpha1, alpha2=alpha2, batch=batch,
                                    activation=act, target=target, seed=seed, dtype=dtype)
                tgt = run.target
                beta = tgt.directions[direction]
                _, s, Vt = top_singular(run.W2, 1)
                u1 = run.X1.T @ run.y1 / run.n
                if batch == "reused":
                    ubar = (run.eta1 + run.eta2) * u1
                else:
                    ubar = run.eta1 * u1 + run.eta2 * (run.X2.T @ run.y2 / run.n)
                theta = abs(m1) * np.linalg.norm(run.a) * np.linalg.norm(ubar)
                factor = spiked_rectangular(theta, run.N, run.d)["right_overlap2"]
                psi = run.n / run.d
                limit = first_direction_alignment(batch, tgt.mu_star, tgt.second_moment, psi,
                                                  run.eta1, run.eta2)[direction]
                noise = tgt.second_moment / psi
                mu2 = float(np.sum(tgt.mu_star ** 2))
                if batch == "reused":
                    theta_th = abs(m1) * (run.eta1 + run.eta2) * np.sqrt(mu2 + noise)
                else:
                    theta_th = abs(m1) * np.sqrt((run.eta1 + run.eta2) ** 2 * mu2
                                                 + (run.eta1 ** 2 + run.eta2 ** 2) * noise)
                ubar_cos2 = float(cos2_with_directions(ubar[None], beta[None])[0, 0])
                records.append({
                    "alpha1": float(alpha1), "alpha2": float(alpha2), "batch": batch,
                    "seed": seed, "N": run.N,
                    "lambda": lambda_count(alpha1, alpha2, act.degree),
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
                })
    return _records_to_arrays(records)


def _prediction(learnable: bool | None) -> float:
    """is_learnable's answer as a number that arrays and CSV files keep: 1.0, 0.0 or NaN
    (no prediction)."""
    return np.nan if learnable is None else float(learnable)


# -- E7, E8, E9: projection of beta* on the top-m right singular subspace -------------------
def projection_runs(Ns: Iterable[int] = (500, 1000, 2000), seeds=(0, 1, 2),
                    settings: Iterable[tuple[str, float, float]] = E7_SETTINGS,
                    targets="he3", activations="tanh", m: int = 4, direction: int = 0,
                    phi: float = 1.0, psi: float = 1.0, dtype=np.float64) -> dict[str, np.ndarray]:
    """E7-E9 (SPEC 3.3, 4): ||P_m beta*||^2, the squared norm of the projection of the
    target direction ``direction`` on the top-``m`` right singular subspace of W2.

    Loops over every combination of ``Ns`` x ``targets`` x ``activations`` x ``settings`` x
    ``seeds`` (``settings``: (batch, alpha1, alpha2) triples; ``targets``: target specs as
    :func:`companion.make_target` reads them, or a dict {label: spec}; ``activations``: names
    or :class:`Activation` objects, or a dict; ``phi = N/d`` and ``psi = n/d`` set d and n
    from each N). One entry per run:

    ``N, target, activation, batch, alpha1, alpha2, seed, projection`` (the measurement),
    ``chance`` (m / d: a uniformly random direction), ``lambda`` (the paper's Lambda,
    :func:`companion.lambda_count`), ``learnable`` (:func:`companion.is_learnable`, the
    companion's asymptotic prediction: 1.0 yes, 0.0 no, NaN no prediction, e.g. ReLU),
    ``s`` (the top-m singular values, runs x m), ``cos2`` (cos^2 of each of the top-m right
    singular vectors with beta*, runs x m: where in the subspace the projection sits; it
    sums to ``projection``) and ``left`` (runs x m x 5: the squared overlaps of each top-m
    left singular vector with the Gram-Schmidt powers q_1..q_5 of a, so that the vector
    carrying beta* can be traced to the term that made it, SPEC 3.2).
    """
    seeds = _check_seeds(seeds)
    target_items = _as_named(targets, _target_label)
    act_items = _as_named(activations, lambda a: get_activation(a).name)
    records = []
    for N, (tlabel, tspec), (alabel, aspec), (batch, alpha1, alpha2), seed in itertools.product(
            Ns, target_items, act_items, settings, seeds):
        act = get_activation(aspec)
        d = max(1, round(int(N) / phi))
        run = run_two_steps(int(N), d=d, n=max(1, round(psi * d)), alpha1=alpha1, alpha2=alpha2,
                            batch=batch, activation=act, target=tspec, seed=seed, dtype=dtype)
        U, s, Vt = top_singular(run.W2, m)
        proj = subspace_projection(Vt, run.target.directions[direction][None])[0]
        learnable = is_learnable(run.target, direction, batch, alpha1, alpha2, act)
        records.append({
            "N": run.N, "target": tlabel, "activation": alabel, "batch": batch,
            "alpha1": float(alpha1), "alpha2": float(alpha2), "seed": seed,
            "projection": float(proj), "chance": m / run.d,
            "lambda": lambda_count(alpha1, alpha2, act.degree),
            "learnable": _prediction(learnable),
            "s": np.asarray(s, float),
            "cos2": cos2_with_directions(Vt, run.target.directions[direction][None])[:, 0],
            "left": power_weights(U, run.a, 5),
        })
    return _records_to_arrays(records)


def summarize(runs: dict[str, np.ndarray], by: Sequence[str], value: str = "projection"
              ) -> dict[str, np.ndarray]:
    """Group the runs by the keys ``by`` (in order of first appearance) and return, per
    group, the keys and ``mean``, ``std`` (over seeds, ddof = 0), ``min``, ``max`` and
    ``count`` of ``value``."""
    keys = [tuple(runs[b][i].item() if hasattr(runs[b][i], "item") else runs[b][i] for b in by)
            for i in range(len(runs[value]))]
    groups: dict[tuple, list[float]] = {}
    for key, v in zip(keys, runs[value]):
        groups.setdefault(key, []).append(float(v))
    out = {b: np.array([k[j] for k in groups]) for j, b in enumerate(by)}
    vals = list(groups.values())
    out["mean"] = np.array([np.mean(v) for v in vals])
    out["std"] = np.array([np.std(v) for v in vals])
    out["min"] = np.array([np.min(v) for v in vals])
    out["max"] = np.array([np.max(v) for v in vals])
    out["count"] = np.array([len(v) for v in vals])
    return out


# -- stored paper-scale runs ----------------------------------------------------------------
def paper_scale_runs(experiment: str, root=None) -> dict[str, np.ndarray] | None:
    """The committed paper-scale runs of ``experiment`` (``"E6"`` .. ``"E9"``), read from
    ``data/paper/<experiment>.csv`` (written by ``python -m companion reproduce --scale
    paper``; one row per run with every parameter and the seed), as a dict of arrays:
    numeric columns as floats (``N`` and ``seed`` as ints, ``learnable`` as bool), the rest
    as strings. ``root`` is the repository root; by default the folder is
    :func:`companion.store.data_dir` (``$COMPANION_PAPER_DATA``, or ``data/paper``
    next to the installed package). Returns ``None`` when the file is not there (e.g. the
    package was installed without the repository, as in Colab) or the stored runs are
    switched off (``COMPANION_PAPER_DATA=off``)."""
    import csv
    from pathlib import Path

    from ..store import data_dir

    folder = Path(root) if root is not None else data_dir()
    if folder is None:
        return None
    path = folder / f"{experiment}.csv"
    if not path.is_file():
        return None
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        return None
    out: dict[str, np.ndarray] = {}
    for key in rows[0]:
        values = [r[key] for r in rows]
        if key in ("N", "seed"):
            out[key] = np.array([int(float(v)) for v in values])
        elif key == "learnable":
            out[key] = np.array([v.strip().lower() == "true" for v in values])
        else:
            try:
                out[key] = np.array([float(v) for v in values])
            except ValueError:
                out[key] = np.array(values)
    return out


# -- the mechanism's numbers ----------------------------------------------------------------
def link_moments(links, powers: Sequence[int] = (1, 2, 3)) -> dict[str, np.ndarray]:
    """E[z g(z)^p] for each link and power (SPEC 3.3): p = 1 is mu*, what a fresh batch (and
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
    (SPEC 1, 3.2): m_{k+1} sets the fresh k-th spike, kappa_{k,r} the reused one's
    y-power terms; He_3 needs kappa_{2,2} != 0."""
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


def learnability_table(targets, settings: Iterable[tuple[str, float, float]] = E7_SETTINGS,
                       activations="tanh", d: int = 16, seed: int = 0
                       ) -> dict[str, np.ndarray]:
    """:func:`companion.is_learnable` for the first direction of each target, for each
    (batch, alpha1, alpha2) setting and activation. The predicate depends on the link
    only, not on d (a small d is used to build the Target). ``learnable`` is 1.0 (yes),
    0.0 (no) or NaN (no prediction: an activation outside the smooth expansion, ReLU)."""
    target_items = _as_named(targets, _target_label)
    act_items = _as_named(activations, lambda a: get_activation(a).name)
    records = []
    for (tlabel, tspec), (alabel, aspec), (batch, alpha1, alpha2) in itertools.product(
            target_items, act_items, settings):
        act = get_activation(aspec)
        tgt = make_target(tspec, d, np.random.default_rng(seed))
        records.append({"target": tlabel, "activation": alabel, "batch": batch,
                        "alpha1": float(alpha1), "alpha2": float(alpha2),
                        "lambda": lambda_count(alpha1, alpha2, act.degree),
                        "learnable": _prediction(is_learnable(tgt, 0, batch, alpha1, alpha2,
                                                              act))})
    return _records_to_arrays(records)


# -- the experiments of this chapter, as units for the book and for reproduce ---------------
#: E8's targets and E9's activations, by the labels the figures and the stored runs use
E8_TARGETS = ("He_3", "He_2", "(He_2+He_3)/sqrt2", "bounded odd")
E9_ACTIVATIONS = ("tanh", "shifted_tanh", "relu")


def _target_spec(label: str):
    """The target a label of E7-E9 names (``"He_3"`` -> ``"he3"``, ...)."""
    specs = {"He_3": "he3", "He_2": "he2", "(He_2+He_3)/sqrt2": he2_plus_he3,
             "bounded odd": bounded_odd_link("sharp")}
    if label not in specs:
        raise ValueError(f"unknown target label {label!r} (known: {', '.join(specs)})")
    return specs[label]


def first_direction_unit(N: int, alpha1: float, alpha2: float, batch: str, target: str,
                         activation: str, seed: int) -> dict:
    """E6 unit: :func:`first_direction_runs` for one pair, batch and seed, as scalars."""
    r = first_direction_runs(N, [(alpha1, alpha2)], seeds=(seed,), batches=(batch,),
                             target=target, activation=activation)
    keys = ("cos2", "limit", "limit_finite_n", "ubar_cos2", "v_ubar_cos2", "theta",
            "spike_factor", "finite_size_prediction", "s1", "lambda")
    return {k: float(np.asarray(r[k])[0]) for k in keys}


def projection_unit(N: int, batch: str, alpha1: float, alpha2: float, target: str,
                    activation: str, m: int, seed: int) -> dict:
    """E7/E8/E9 unit: :func:`projection_runs` for one setting, target label, activation and
    seed: ``projection``, ``chance``, ``lambda``, ``learnable`` (1, 0 or NaN), the top-m
    singular values ``s_i``, their ``cos2_i`` with beta* and ``left`` (m x 5)."""
    r = projection_runs((N,), seeds=(seed,), settings=[(batch, alpha1, alpha2)],
                        targets={target: _target_spec(target)},
                        activations={activation: activation}, m=m)
    out = {k: float(np.asarray(r[k])[0]) for k in ("projection", "chance", "lambda",
                                                     "learnable")}
    out.update({f"s_{i}": float(v) for i, v in enumerate(np.asarray(r["s"])[0])})
    out.update({f"cos2_{i}": float(v) for i, v in enumerate(np.asarray(r["cos2"])[0])})
    out["left"] = np.asarray(r["left"], float)[0]
    return out


_E6_SIZES = {"small": dict(N=1000, seeds=3), "paper": dict(N=2048, seeds=4)}
_E7_SIZES = {"small": dict(Ns=[500, 1000, 2000], seeds=3),
             "paper": dict(Ns=[1024, 2048, 4096, 8192], seeds=4)}   # the headline: to 8192
_E8_SIZES = {"small": dict(N=1000, seeds=3), "paper": dict(N=2048, seeds=4)}
_E9_SIZES = {"small": dict(N=2000, seeds=3), "paper": dict(N=4096, seeds=4)}


def _proj(N, batch, a1, a2, target="He_3", activation="tanh"):
    return dict(N=N, batch=batch, alpha1=a1, alpha2=a2, target=target, activation=activation,
                m=4)


def _e6_grid(z):
    return [(dict(N=z["N"], alpha1=a1, alpha2=a2, batch=b, target="he1", activation="tanh"), s)
            for (a1, a2) in E6_ALPHA_PAIRS for b in ("reused", "fresh")
            for s in seed_list(z["seeds"])]


def _e7_grid(z):
    return [(_proj(N, b, a1, a2), s) for N in z["Ns"] for (b, a1, a2) in E7_SETTINGS
            for s in seed_list(z["seeds"])]


def _e8_grid(z):
    return [(_proj(z["N"], b, 0.35, 0.45, target=t), s) for t in E8_TARGETS
            for b in ("reused", "fresh") for s in seed_list(z["seeds"])]


def _e9_grid(z):
    out = [(_proj(z["N"], "reused", 0.35, 0.45, activation=a), s) for a in E9_ACTIVATIONS
           for s in seed_list(z["seeds"])]
    out += [(_proj(z["N"], "fresh", 0.35, 0.45, activation=a), s) for a in ("tanh", "relu")
            for s in seed_list(z["seeds"])]
    return out


FIRST_DIRECTION = Experiment("E6", "first-direction alignment, reused vs fresh, He_1 target",
                             first_direction_unit, _e6_grid, _E6_SIZES)
HEADLINE = Experiment("E7", "He_3 learned only with reuse: projection on the top-4 subspace",
                      projection_unit, _e7_grid, _E7_SIZES, cache="projection_run")
OTHER_TARGETS = Experiment("E8", "other targets: He_2, (He_2+He_3)/sqrt2, bounded odd",
                           projection_unit, _e8_grid, _E8_SIZES, cache="projection_run")
ACTIVATION_ABLATION = Experiment("E9", "activation ablation: tanh, tanh(z+0.5), ReLU",
                                 projection_unit, _e9_grid, _E9_SIZES, cache="projection_run")
