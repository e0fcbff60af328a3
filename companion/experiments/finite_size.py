"""Experiments of the chapter "Finite size, honestly" (book/finite_size.ipynb).

SPEC section 0 (what is asymptotic), section 5 (pitfalls 1, 2, 3 and 5) and section 6 (timings).
The theory of the book is a statement about N -> infinity; this module measures how far the
sizes a laptop can run (N = 500 to 4000) are from it:

* :func:`preactivation_scale`, :func:`typical_max_label`, :func:`spike_growth_table` --
  analytic: the per-entry pre-activation change N^(alpha1 - 1/2), the largest label of a
  heavy-tailed target, and how slowly the spikes grow (exponents alpha2 - k (1/2 - alpha1)).
* :func:`preactivation_change` -- measured size of the first step's pre-activation change,
  typical entry and largest entry (pitfall 2).
* :func:`outlier_counts` -- singular values above the Marchenko-Pastur edge and above a null
  run's edge, for heavy-tailed (He_3) and Gaussian (He_1) labels, against 1 + Lambda
  (pitfall 3).
* :func:`headline_spread` and :func:`ordering_probability` -- the seed-to-seed spread of the
  He_3 projection of experiment E7, and how many seeds it takes to order two settings
  (pitfall 5).
* :func:`alignment_convergence` -- the first spike of W2 (its size, its direction, the E6
  first-direction alignment) against the leading-order spiked-matrix prediction as N grows
  (sections 3.1 to 3.3): what converges, at which measured rate.
* :func:`polynomial_blowup` -- a polynomial activation with a reused batch (pitfall 1).

Every function takes the sizes, the seeds and the step-size exponents as arguments (the
chapter calls them at N = 1000; a paper-scale run calls them with a larger N), returns
plain numpy arrays in a dict, and draws no figure. Every random draw comes from
``numpy.random.default_rng(seed)``, split as :func:`companion.run_two_steps` splits it.
"""

from __future__ import annotations

import math
from itertools import product
from typing import Sequence

import numpy as np
from scipy.special import ndtri

from ..activations import get_activation
from ..alignment import cos2_with_directions, subspace_projection
from ..gaussian import gaussian_expectation
from ..network import gradient, init_network, run_two_steps, step_size
from ..spectra import count_outliers, count_outliers_against_null, mp_edges, top_singular
from ..targets import make_link, make_target
from ..theory import (first_direction_alignment, lambda_count, n_spikes, spike_exponent,
                      spiked_rectangular)
from ..validation import positive_int, seed_list

#: The step-size exponents of the book's headline (E7): Lambda = 3, He_3 learnable with reuse.
HEADLINE = (0.35, 0.45)


def _sizes(Ns) -> list[int]:
    Ns = [positive_int(N, "N") for N in np.atleast_1d(Ns)]
    if not Ns:
        raise ValueError("Ns must list at least one size")
    return Ns


# --- 1. analytic scales (pitfall 2) ---------------------------------------------------------

def preactivation_scale(Ns: Sequence[int], alpha1s: Sequence[float]) -> np.ndarray:
    """N^(alpha1 - 1/2): the order of the change of one pre-activation w_j^T x after the first
    step (SPEC 3.2), which the expansion of sigma' in the second step treats as small.
    Array [alpha1, N]."""
    N = np.asarray(_sizes(Ns), float)
    a1 = np.asarray(alpha1s, float)
    return N[None, :] ** (a1[:, None] - 0.5)


def preactivation_constant(target="he1", activation="tanh", psi: float = 1.0) -> float:
    """Companion derivation of the constant C in rms(Delta) ~ C eta1 / sqrt(N), where
    Delta = (W1 - W0) X1^T holds the pre-activation changes of the first step.

    Delta_ji = eta1 a_j (1/n) sum_l sigma'(w_j.x_l) y_l <x_l, x_i>: the term l = i (the
    "self term", eta1 a_j sigma'_ji y_i ||x_i||^2 / n) has second moment
    E[sigma'^2] E[y^2] / psi^2 per unit eta1^2 / N; the others, eta1 a_j <v_j, x_i> with
    ||v_j||^2 -> E[sigma'^2] E[y^2] / psi + m1^2 ||mu*||^2, add that; and the two correlate
    through the label (v_j has the component m1 mu* along beta*, and y_i correlates with
    <beta*, x_i>): 2 m1^2 ||mu*||^2 / psi. So

        C^2 = E[sigma'^2] E[y^2] (1/psi + 1/psi^2) + m1^2 ||mu*||^2 (1 + 2/psi)

    (w_j.x and y treated as independent, which holds up to O(N^-1/2); a heuristic: the
    chapter compares it with the measurement).
    """
    act = get_activation(activation)
    tgt = make_target(target, 8, np.random.default_rng(0))
    s2 = gaussian_expectation(lambda z: act.derivative(z, 1) ** 2)
    return math.sqrt(s2 * tgt.second_moment * (1 / psi + 1 / psi ** 2)
                     + act.m(1) ** 2 * float(np.sum(tgt.mu_star ** 2)) * (1 + 2 / psi))


def typical_max_label(link, n) -> np.ndarray:
    """Median of max_i |g(z_i)| over n samples z_i ~ N(0, 1), for a link whose |g| grows in
    |z| in the tail (He_j, tanh): |g(z_n)| with z_n the median of max_i |z_i|, i.e.
    P(|z| > z_n) = 1 - 2^(-1/n). He_3 at n = 1000 gives about 12, He_1 about 3.4."""
    g = make_link(link)
    n = np.asarray(n, float)
    tail = -np.expm1(-np.log(2.0) / n)          # 1 - 2^(-1/n), accurate for large n
    z = ndtri(1.0 - tail / 2.0)
    return np.abs(g(z))


def spike_growth_table(settings: Sequence[tuple[float, float]], k_max: int = 3,
                       N_ref: int = 1000, factor: float = 2.0) -> dict:
    """For each (alpha1, alpha2) and spike order k = 1..min(k_max, Lambda): the exponent
    e = alpha2 - k (1/2 - alpha1) of the k-th spike term (companion derivation, SPEC 3.2),
    the growth 2^e when N doubles, and the size N_ref * factor^(1/e) at which the term has
    grown by ``factor`` over its size at N_ref. Tidy columns (one row per term)."""
    rows = {"alpha1": [], "alpha2": [], "k": [], "exponent": [], "per_doubling": [],
            "N_for_factor": []}
    for a1, a2 in settings:
        for k in range(1, min(k_max, lambda_count(a1, a2)) + 1):
            e = round(spike_exponent(a1, a2, k), 12) + 0.0  # 0.45 - 3 * 0.15 is -5.6e-17
            rows["alpha1"].append(a1)
            rows["alpha2"].append(a2)
            rows["k"].append(k)
            rows["exponent"].append(e)
            rows["per_doubling"].append(2.0 ** e)
            rows["N_for_factor"].append(N_ref * factor ** (1.0 / e) if e > 0 else np.inf)
    out = {key: np.array(val) for key, val in rows.items()}
    out["N_ref"], out["factor"] = N_ref, factor
    return out


# --- measured pre-activation change ---------------------------------------------------------

def preactivation_change(Ns: Sequence[int], seeds=2, alpha1: float = HEADLINE[0],
                         targets: Sequence[str] = ("he3", "he1"), activation="tanh") -> dict:
    """Size of the first step's pre-activation changes Delta = (W1 - W0) X1^T (N x n), as
    N grows (SPEC pitfall 2). Same draws as ``run_two_steps(N, seed=seed, target=...)``.

    Arrays [target, size, seed]: ``rms`` (root mean square entry), ``max`` (largest |entry|,
    driven by the self term of the sample with the largest |y|) and ``max_label``
    (max_i |y_i|). ``theory_rms`` [target, size] is :func:`preactivation_constant` times
    eta1 / sqrt(N)."""
    Ns, seeds = _sizes(Ns), seed_list(seeds)
    act = get_activation(activation)
    shape = (len(targets), len(Ns), len(seeds))
    rms, mx, ymax = np.empty(shape), np.empty(shape), np.empty(shape)
    theory = np.empty(shape[:2])
    for t, name in enumerate(targets):
        C = preactivation_constant(name, act)
        for i, N in enumerate(Ns):
            eta1 = step_size(N, alpha1)
            theory[t, i] = C * eta1 / math.sqrt(N)
            for j, seed in enumerate(seeds):
                # The split of run_two_steps: target, network, first batch, second, null.
                s_target, s_net, s_b1, _, _ = np.random.default_rng(seed).spawn(5)
                tgt = make_target(name, N, s_target)
                W0, a = init_network(N, N, s_net)
                X, y = tgt.sample(N, s_b1)
                delta = eta1 * (gradient(W0, a, X, y, act) @ X.T)
                rms[t, i, j] = math.sqrt(float(np.mean(delta ** 2)))
                mx[t, i, j] = float(np.max(np.abs(delta)))
                ymax[t, i, j] = float(np.max(np.abs(y)))
    return {"targets": np.array(targets), "N": np.array(Ns), "seeds": np.array(seeds),
            "alpha1": alpha1, "rms": rms, "max": mx, "max_label": ymax, "theory_rms": theory}


# --- 2. outlier counts against the bulk edge and a null run (pitfall 3) ---------------------

def outlier_counts(N: int = 1000, seeds=3, targets: Sequence[str] = ("he3", "he1"),
                   batches: Sequence[str] = ("reused", "fresh"),
                   alpha1: float = HEADLINE[0], alpha2: float = HEADLINE[1],
                   activation="tanh", top_k: int = 8, margin: float = 0.02) -> dict:
    """Count the outliers of W1 and W2 the way a reader would at one N (SPEC pitfall 3).

    For every target, batch and seed: a run and its null run (``null_labels=True``: labels of
    an independent sample, same distribution, same W0 and inputs). Arrays [target, batch,
    seed, ...]: ``s_W1``, ``s_W2``, ``s_W1_null``, ``s_W2_null`` (top ``top_k`` singular
    values); ``count_W1``, ``count_W2``, ``count_W1_null``, ``count_W2_null`` (above the
    Marchenko-Pastur edge 1 + sqrt(N/d) with ``margin``); ``count_W2_vs_null`` (above the null
    run's second singular value, :func:`companion.count_outliers_against_null`);
    ``proj`` (squared projection of beta* on the top-4 right singular subspace of W2; chance
    4/d); ``cos2_sample`` (cos^2 of W2's second right singular vector with the input x_i of
    the largest |y_i| of the batch the second step used: large when that outlier is made by
    one sample). Theory: ``n_spikes_paper`` = 1 + Lambda and ``n_spikes_tanh`` (the nonzero
    terms, :func:`companion.n_spikes`) per batch.

    W1 does not depend on the batch setting (run_two_steps draws the first batch from its own
    stream), so its spectrum is computed once per (target, seed) and shared.
    """
    seeds = seed_list(seeds)
    N = positive_int(N, "N")
    act = get_activation(activation)
    shape = (len(targets), len(batches), len(seeds))
    out = {key: np.empty(shape + (top_k,)) for key in ("s_W1", "s_W2", "s_W1_null", "s_W2_null")}
    out.update({key: np.empty(shape, int) for key in
                ("count_W1", "count_W2", "count_W1_null", "count_W2_null", "count_W2_vs_null")})
    out["proj"], out["cos2_sample"] = np.empty(shape), np.empty(shape)
    edge = mp_edges(1.0)[1]
    w1_cache: dict = {}
    for (t, name), (b, batch), (j, seed) in product(enumerate(targets), enumerate(batches),
                                                    enumerate(seeds)):
        for null in (False, True):
            run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch=batch,
                                activation=act, target=name, seed=seed, null_labels=null)
            key = (name, seed, null)
            if key not in w1_cache:
                w1_cache[key] = top_singular(run.W1, top_k)[1]
            _, s2, Vt = top_singular(run.W2, top_k)
            suffix = "_null" if null else ""
            out["s_W1" + suffix][t, b, j] = w1_cache[key]
            out["s_W2" + suffix][t, b, j] = s2
            out["count_W1" + suffix][t, b, j] = count_outliers(w1_cache[key], edge, margin)
            out["count_W2" + suffix][t, b, j] = count_outliers(s2, edge, margin)
            if not null:
                X, y = (run.X1, run.y1) if batch == "reused" else (run.X2, run.y2)
                i_max = int(np.argmax(np.abs(y)))
                out["cos2_sample"][t, b, j] = cos2_with_directions(Vt[1:2], X[i_max])[0, 0]
                out["proj"][t, b, j] = subspace_projection(Vt[:4], run.target.directions)[-1]
        out["count_W2_vs_null"][t, b, j] = count_outliers_against_null(
            out["s_W2"][t, b, j], out["s_W2_null"][t, b, j], skip=1, margin=margin)
    out.update({
        "targets": np.array(targets), "batches": np.array(batches), "seeds": np.array(seeds),
        "N": N, "alpha1": alpha1, "alpha2": alpha2, "edge": edge, "margin": margin,
        "chance": 4.0 / N,
        "n_spikes_paper": 1 + lambda_count(alpha1, alpha2, act.degree),
        "n_spikes_tanh": np.array([n_spikes(alpha1, alpha2, act, b) for b in batches]),
    })
    return out


def stack_outlier_counts(parts: Sequence[dict]) -> dict:
    """Join the results of several :func:`outlier_counts` calls made with different targets
    (same N, seeds, batches and exponents) along the target axis, so that a chapter can run
    the targets in separate cells."""
    parts = list(parts)
    if not parts:
        raise ValueError("stack_outlier_counts needs at least one result")
    first = parts[0]
    for other in parts[1:]:
        for key in ("N", "alpha1", "alpha2", "edge", "margin"):
            if other[key] != first[key]:
                raise ValueError(f"results differ in {key}: {first[key]} and {other[key]}")
        for key in ("batches", "seeds", "n_spikes_tanh"):
            if not np.array_equal(other[key], first[key]):
                raise ValueError(f"results differ in {key}")
    out = dict(first)
    for key, value in first.items():
        if isinstance(value, np.ndarray) and key not in ("batches", "seeds", "n_spikes_tanh"):
            out[key] = np.concatenate([p[key] for p in parts], axis=0)
    return out


# --- 3. run-to-run variability (pitfall 5) --------------------------------------------------

#: The three settings of the headline experiment E7 compared in the chapter.
HEADLINE_SETTINGS = (("reused", 0.35, 0.45), ("reused", 0.20, 0.45), ("fresh", 0.35, 0.45))


def headline_spread(Ns: Sequence[int], seeds=8, settings=HEADLINE_SETTINGS, target="he3",
                    activation="tanh", m: int = 4) -> dict:
    """The headline statistic of E7 for many seeds: ||P_m beta*||^2, the squared projection of
    the last target direction (He_3 for "he3" or "he1+he3") on the top-``m`` right singular
    subspace of W2 (chance m/d). Array ``proj`` [setting, size, seed]; ``settings`` lists
    (batch, alpha1, alpha2)."""
    Ns, seeds = _sizes(Ns), seed_list(seeds)
    act = get_activation(activation)
    proj = np.empty((len(settings), len(Ns), len(seeds)))
    for (s, (batch, a1, a2)), (i, N), (j, seed) in product(enumerate(settings), enumerate(Ns),
                                                           enumerate(seeds)):
        run = run_two_steps(N=N, alpha1=a1, alpha2=a2, batch=batch, activation=act,
                            target=target, seed=seed)
        Vt = top_singular(run.W2, m)[2]
        proj[s, i, j] = subspace_projection(Vt, run.target.directions)[-1]
    return {"settings": list(settings), "N": np.array(Ns), "seeds": np.array(seeds),
            "target": target, "m": m, "proj": proj, "chance": m / np.array(Ns, float)}


def ordering_probability(x, y, m: int, draws: int = 4000, seed: int = 0) -> float:
    """Bootstrap probability that the mean of ``m`` runs of setting x exceeds the mean of ``m``
    runs of setting y: each set of m is drawn with replacement from the measured values
    (ties count one half). With m = 1 it is exactly the fraction of pairs (x_i, y_j) with
    x_i > y_j. It answers "if I ran m seeds of each, how often would I see them in this
    order?" without assuming a distribution (pitfall 5); it is only as good as the measured
    spread it resamples."""
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    m = positive_int(m, "m")
    if m == 1:
        diff = x[:, None] - y[None, :]
        return float(np.mean(diff > 0) + 0.5 * np.mean(diff == 0))
    rng = np.random.default_rng(seed)
    diff = (x[rng.integers(0, x.size, (draws, m))].mean(axis=1)
            - y[rng.integers(0, y.size, (draws, m))].mean(axis=1))
    return float(np.mean(diff > 0) + 0.5 * np.mean(diff == 0))


def seeds_needed(x, y, z: float = 2.0) -> float:
    """Seeds per setting for the difference of the means of x and y to reach ``z`` standard
    errors, m = z^2 (var x + var y) / (mean x - mean y)^2 (a normal approximation; use
    :func:`ordering_probability` for a distribution-free view)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    diff = x.mean() - y.mean()
    if diff == 0:
        return np.inf
    return float(z * z * (x.var(ddof=1) + y.var(ddof=1)) / diff ** 2)


# --- 4. what converges, and how fast --------------------------------------------------------

#: Step-size exponents of the convergence study: slow (theta ~ N^0.05), clean (N^0.2), and the
#: headline, where the per-entry pre-activation change N^(alpha1 - 1/2) is far from small.
CONVERGENCE_ALPHAS = ((0.05, 0.05), (0.20, 0.20), (0.35, 0.45))


def first_spike_prediction(N, alpha1: float, alpha2: float, target="he1",
                           activation="tanh") -> dict:
    """Leading-order prediction for the first spike of W2 with a reused batch (SPEC 3.1, 3.2):
    W2 ~ W0 + (eta1 + eta2) m1 a u1^T, a spiked rectangular matrix
    (:func:`companion.spiked_rectangular`) of strength
    theta_N = (eta1 + eta2) |m1| sqrt(||mu*||^2 + E[y^2]/psi) (||a|| = 1, psi = phi = 1).
    Arrays over N: ``theta``, ``s1`` and ``overlap2`` (|<v1, u1/||u1||>|^2, which is
    1 - 1/theta^2 at N = d, so its gap to 1 closes like N^(-2 max(alpha1, alpha2))); and
    ``limit``, the N -> inf first-direction alignment cos^2(v1, beta*_1) of SPEC 3.3."""
    act = get_activation(activation)
    tgt = make_target(target, 8, np.random.default_rng(0))
    Ns = np.atleast_1d(np.asarray(N, int))
    norm_u1 = math.sqrt(float(np.sum(tgt.mu_star ** 2)) + tgt.second_moment)
    theta, s1, ov = [], [], []
    for n_ in Ns:
        eta = step_size(int(n_), alpha1) + step_size(int(n_), alpha2)
        th = eta * abs(act.m(1)) * norm_u1
        pred = spiked_rectangular(th, int(n_), int(n_))
        theta.append(th)
        s1.append(pred["s1"])
        ov.append(pred["right_overlap2"])
    limit = first_direction_alignment("reused", tgt.mu_star, tgt.second_moment)
    return {"N": Ns, "theta": np.array(theta), "s1": np.array(s1), "overlap2": np.array(ov),
            "limit": float(limit[0])}


def _slope(Ns, values) -> float:
    return float(np.polyfit(np.log(np.asarray(Ns, float)), np.log(np.asarray(values)), 1)[0])


def alignment_convergence(Ns: Sequence[int], seeds=3, alphas=CONVERGENCE_ALPHAS,
                          target="he1", activation="tanh") -> dict:
    """The first spike of W2 (reused batch, He_1 target) as N grows, against the leading-order
    prediction :func:`first_spike_prediction` (SPEC 3.1-3.3; the E6 quantity).

    Arrays [alphas, size, seed]: ``s1`` (top singular value of W2), ``overlap2``
    (|<v1, u1/||u1||>|^2, v1 the top right singular vector, u1 = X1^T y1 / n), ``cos2``
    (cos^2(v1, beta*_1)) and ``cos2_u1`` (cos^2(u1, beta*_1): the part of the alignment set
    by the sample alone). Predictions [alphas, size]: ``s1_pred``, ``overlap2_pred``;
    ``limit`` [alphas]. Measured rates [alphas]: ``slope_gap`` (log-log slope of the mean
    of 1 - overlap2 against N; predicted ``slope_gap_pred``, the slope of the prediction,
    about -2 max(alpha)) and ``slope_s1_deficit`` (slope of 1 - mean(s1) / s1_pred)."""
    Ns, seeds = _sizes(Ns), seed_list(seeds)
    act = get_activation(activation)
    shape = (len(alphas), len(Ns), len(seeds))
    s1, ov, cos2, cos2_u1 = (np.empty(shape) for _ in range(4))
    s1_pred, ov_pred = np.empty(shape[:2]), np.empty(shape[:2])
    limit = np.empty(len(alphas))
    for p, (a1, a2) in enumerate(alphas):
        pred = first_spike_prediction(Ns, a1, a2, target, act)
        s1_pred[p], ov_pred[p], limit[p] = pred["s1"], pred["overlap2"], pred["limit"]
        for (i, N), (j, seed) in product(enumerate(Ns), enumerate(seeds)):
            run = run_two_steps(N=N, alpha1=a1, alpha2=a2, batch="reused", activation=act,
                                target=target, seed=seed)
            _, s, Vt = top_singular(run.W2, 1)
            u1 = run.X1.T @ run.y1 / run.n
            beta = run.target.directions[:1]
            s1[p, i, j] = s[0]
            ov[p, i, j] = cos2_with_directions(Vt, u1)[0, 0]
            cos2[p, i, j] = cos2_with_directions(Vt, beta)[0, 0]
            cos2_u1[p, i, j] = cos2_with_directions(u1, beta)[0, 0]
    gap = np.mean(1.0 - ov, axis=2)
    deficit = 1.0 - np.mean(s1, axis=2) / s1_pred
    return {"alphas": np.array(alphas), "N": np.array(Ns), "seeds": np.array(seeds),
            "target": target, "s1": s1, "overlap2": ov, "cos2": cos2, "cos2_u1": cos2_u1,
            "s1_pred": s1_pred, "overlap2_pred": ov_pred, "limit": limit,
            "slope_gap": np.array([_slope(Ns, g) for g in gap]),
            "slope_gap_pred": np.array([_slope(Ns, 1.0 - o) for o in ov_pred]),
            "slope_s1_deficit": np.array([_slope(Ns, np.abs(dd)) for dd in deficit])}


# --- 5. polynomial activation with reuse (pitfall 1) ----------------------------------------

def polynomial_blowup(Ns: Sequence[int], seeds=2,
                      activations: Sequence[str] = ("tanh", "hermite:0,1,1,1"),
                      batches: Sequence[str] = ("reused", "fresh"), target="he3",
                      alpha1: float = HEADLINE[0], alpha2: float = HEADLINE[1]) -> dict:
    """Top singular value of W2 for a bounded-derivative activation and a polynomial one
    (sigma = He_1 + He_2/sqrt2 + He_3/sqrt6), He_3 target (SPEC pitfall 1).

    Arrays [activation, batch, size, seed]: ``s1`` (top singular value of W2), ``s1_W1`` (of
    W1), ``max_delta`` (largest |pre-activation change| of the first step on the batch of the
    second step), ``max_label``, ``single_sample`` (the norm of the largest one-sample piece
    eta2/n (a o sigma'(W1 x_i)) (y_i x_i)^T of the second step: when it is close to ``s1``,
    one sample makes the top singular value). ``theory_s1`` [activation, size]: the leading-order size of
    the first spike, (eta1 + eta2) |m1| sqrt(E[y^2]/psi) (He_3: mu* = 0, ||a|| = 1) -- what
    the expansion of SPEC 3.2 predicts when the pre-activation changes are small."""
    Ns, seeds = _sizes(Ns), seed_list(seeds)
    shape = (len(activations), len(batches), len(Ns), len(seeds))
    s1, s1_w1, mdelta, ymax, single = (np.empty(shape) for _ in range(5))
    theory = np.empty((len(activations), len(Ns)))
    for (p, name), (i, N) in product(enumerate(activations), enumerate(Ns)):
        act = get_activation(name)
        tgt = make_target(target, 8, np.random.default_rng(0))
        theory[p, i] = ((step_size(N, alpha1) + step_size(N, alpha2)) * abs(act.m(1))
                        * math.sqrt(float(np.sum(tgt.mu_star ** 2)) + tgt.second_moment))
        for (b, batch), (j, seed) in product(enumerate(batches), enumerate(seeds)):
            run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch=batch,
                                activation=act, target=target, seed=seed)
            X, y = (run.X1, run.y1) if batch == "reused" else (run.X2, run.y2)
            s1[p, b, i, j] = top_singular(run.W2, 1)[1][0]
            s1_w1[p, b, i, j] = top_singular(run.W1, 1)[1][0]
            mdelta[p, b, i, j] = float(np.max(np.abs((run.W1 - run.W0) @ X.T)))
            ymax[p, b, i, j] = float(np.max(np.abs(y)))
            # Each sample's own rank-one piece of the second step,
            # eta2 / n * (a o sigma'(W1 x_i)) (y_i x_i)^T: its norm, largest over i.
            S = act.derivative(run.W1 @ X.T, 1) * run.a[:, None]
            pieces = np.linalg.norm(S, axis=0) * np.abs(y) * np.linalg.norm(X, axis=1)
            single[p, b, i, j] = run.eta2 / X.shape[0] * float(np.max(pieces))
    return {"activations": np.array(activations), "batches": np.array(batches),
            "N": np.array(Ns), "seeds": np.array(seeds), "target": target,
            "alpha1": alpha1, "alpha2": alpha2, "s1": s1, "s1_W1": s1_w1,
            "max_delta": mdelta, "max_label": ymax, "single_sample": single,
            "theory_s1": theory}
