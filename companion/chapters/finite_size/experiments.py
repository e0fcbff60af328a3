"""Experiments of the chapter "Finite size, honestly" (book/finite_size.ipynb).

What finite N changes (book: dv-pit-blowup, dv-pit-slow, dv-pit-edge, dv-pit-seeds). The
theory of the book is a statement about N -> infinity; this module measures how far the sizes a
laptop can run (N = 500 to 4000) are from it.

* Analytic scales: :func:`preactivation_scale` (the expansion parameter N^(alpha1 - 1/2)),
  :func:`preactivation_constant`, :func:`typical_max_label` (the largest label of a
  heavy-tailed target) and :func:`spike_growth_table` (how slowly the spike terms grow).
* Unit functions, one run (or a run and its null run) per call, and their
  :class:`~companion.core.experiment.Experiment` specs, which the chapter runs with
  ``PREACTIVATION.run(Ns=..., seeds=...)`` into :class:`~companion.core.runs.Runs`:
  :data:`PREACTIVATION` (the first step's pre-activation changes, pitfall 2),
  :data:`OUTLIER_COUNTS` (outliers above the Marchenko-Pastur edge, and the spike census
  against a null run, pitfall 3), :data:`HEADLINE_SPREAD` (the seed-to-seed spread of the
  He_3 headline statistic, pitfall 5), :data:`CONVERGENCE` (the first spike of W2 against
  its leading-order spiked-matrix prediction) and :data:`BLOWUP` (a polynomial activation
  with a reused batch, pitfall 1).
* Summaries of runs: :func:`ordering_probability`, :func:`headline_orderings`,
  :func:`seeds_needed`, :func:`log_slope` and :func:`convergence_rates` (log-log slopes
  fitted seed by seed, with Student-t intervals over the seeds).

None of these experiments is in ``reproduce``'s catalog: the chapter computes them at its
own size. Every draw comes from ``numpy.random.default_rng(seed)``, split as
:func:`companion.run_two_steps` splits it. Figures: :mod:`companion.chapters.finite_size.figures`.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy.special import ndtri

from companion.core.activations import get_activation
from companion.core.alignment import cos2_with_directions, subspace_projection
from companion.core.experiment import Experiment, precision
from companion.core.gaussian import gaussian_expectation
from companion.core.intervals import t_interval
from companion.core.network import descent_direction, draw_run, run_two_steps, step_size
from companion.core.runs import Runs
from companion.core.spectra import count_outliers, mp_edges, top_singular
from companion.core.spikes import TOP, spike_census
from companion.core.targets import make_link, target_moments
from companion.core.theory import (
    first_direction_alignment,
    lambda_count,
    n_spikes,
    spike_exponent,
    spiked_rectangular,
)
from companion.core.validation import positive_int, seed_list

#: The step-size exponents of the book's headline: Lambda = 3, He_3 learnable with reuse.
HEADLINE = (0.35, 0.45)
#: The headline's alpha2 with alpha1 lowered to 0.20: Lambda = 1, He_3 not learnable.
LAMBDA_ONE = (0.20, HEADLINE[1])


# --- analytic scales (pitfall 2) --------------------------------------------------------

def preactivation_scale(Ns: Sequence[int], alpha1s: Sequence[float]) -> np.ndarray:
    """N^(alpha1 - 1/2): the order of the change of one pre-activation w_j^T x after the first
    step (book: dv-leave-one-out), which the expansion of sigma' in the second step treats as small.
    Array [alpha1, N]."""
    N = np.array([positive_int(n, "N") for n in np.atleast_1d(Ns)], float)
    a1 = np.asarray(alpha1s, float)
    return N[None, :] ** (a1[:, None] - 0.5)


def preactivation_constant(target="he1", activation="tanh", psi: float = 1.0) -> float:
    """Companion derivation (book: dv-shift-size) of the constant C in rms(Delta) ~ C eta1 /
    sqrt(N), where Delta = (W1 - W0) X1^T holds the pre-activation changes of the first step.

    Delta_ji = eta1 a_j (1/n) sum_l sigma'(w_j.x_l) y_l <x_l, x_i>: the term l = i (the
    "self term", eta1 a_j sigma'_ji y_i ||x_i||^2 / n) has second moment
    E[sigma'^2] E[y^2] / psi^2 per unit eta1^2 / N; the others, eta1 a_j <v_j, x_i> with
    ||v_j||^2 -> E[sigma'^2] E[y^2] / psi + m1^2 ||mu*||^2, add that; and the two correlate
    through the label: 2 m1^2 ||mu*||^2 / psi. So

        C^2 = E[sigma'^2] E[y^2] (1/psi + 1/psi^2) + m1^2 ||mu*||^2 (1 + 2/psi)

    (w_j.x and y treated as independent up to O(N^-1/2): a heuristic the chapter measures).
    """
    act = get_activation(activation)
    tgt = target_moments(target)
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
    return np.abs(g(ndtri(1.0 - tail / 2.0)))


def spike_growth_table(settings: Sequence[tuple[float, float]], k_max: int = 3,
                       N_ref: int = 1000, factor: float = 2.0) -> list[dict]:
    """One row per (alpha1, alpha2) and spike order k = 1..min(k_max, Lambda): the exponent
    e = alpha2 - k (1/2 - alpha1) of the k-th term (companion derivation, book: dv-exponents), the
    growth 2^e when N doubles, and ``N_for_factor`` = N_ref factor^(1/e), the size at which
    the term has grown by ``factor`` over its size at N_ref (inf when e = 0)."""
    rows = []
    for a1, a2 in settings:
        for k in range(1, min(k_max, lambda_count(a1, a2)) + 1):
            e = round(spike_exponent(a1, a2, k), 12) + 0.0  # 0.45 - 3 * 0.15 is -5.6e-17
            rows.append({"alpha1": a1, "alpha2": a2, "k": k, "exponent": e,
                         "per_doubling": 2.0 ** e,
                         "N_for_factor": N_ref * factor ** (1.0 / e) if e > 0 else math.inf})
    return rows


# --- unit functions ---------------------------------------------------------------------

def preactivation_unit(N: int, alpha1: float, target: str, activation: str, seed: int,
                       shared=None) -> dict:
    """The first step's pre-activation changes Delta = (W1 - W0) X1^T (N x n), same draws as
    ``run_two_steps(N, seed=seed, target=target)`` (book: dv-pit-slow): ``rms`` (root mean
    square entry), ``max`` (largest |entry|, driven by the self term of the sample with the
    largest |y|), ``max_label`` (max_i |y_i|) and ``theory_rms`` =
    :func:`preactivation_constant` eta1 / sqrt(N)."""
    act = get_activation(activation)
    eta1 = step_size(N, alpha1)
    r = draw_run(N, N, N, target, seed, shared=shared)       # the draws of run_two_steps
    W0, a, X, y = r.W0, r.a, r.X1, r.y1
    delta = eta1 * (descent_direction(W0, a, X, y, act) @ X.T)
    return {"rms": math.sqrt(float(np.mean(delta ** 2))), "max": float(np.max(np.abs(delta))),
            "max_label": float(np.max(np.abs(y))),
            "theory_rms": preactivation_constant(target, act) * eta1 / math.sqrt(N)}


def outlier_unit(N: int, alpha1: float, alpha2: float, target: str, batch: str,
                 activation: str, seed: int, top: int = 8, dtype: str = "float64",
                 shared=None) -> dict:
    """A run and its null run (labels of an independent sample: same distribution, heavy
    tails included, no information about x), counted two ways (book: dv-pit-edge).

    * Above the Marchenko-Pastur edge 1 + sqrt(N/d) with a 2% margin: ``count_W1``,
      ``count_W2``, ``count_W1_null``, ``count_W2_null``, from the top ``top`` singular
      values ``s_W1``, ``s_W2``, ``s_W1_null``, ``s_W2_null``.
    * The book's census, :func:`companion.core.spikes.spike_census` (as ``simulate --null`` and
      the spike-emergence experiment count): ``census`` (values above the null run's bulk
      edge, the powers of a projected out, whose left vectors lie on the powers of a),
      ``edge_null``, ``edge_self``, and for the top 12 values ``s_census`` and ``weight``
      (their left vectors' weight on the powers of a).
    * ``proj``: ||P_4 beta*||^2 of the last target direction (chance 4/d); ``cos2_sample``:
      cos^2 of W2's second right singular vector with the input of the largest |y_i| of the
      second step's batch (large when one sample makes that outlier).
    * ``n_spikes_theory`` (:func:`companion.n_spikes`, 1 + floor(Lambda/2) for tanh) and
      ``lambda`` (:func:`companion.lambda_count`).
    """
    edge = mp_edges(1.0)[1]
    out: dict = {}
    runs = {}
    for suffix, null in (("", False), ("_null", True)):
        run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch=batch,
                            activation=activation, target=target, seed=seed, null_labels=null,
                            dtype=dtype, shared=shared)
        runs[suffix] = run
        for name, W in (("W1", run.W1), ("W2", run.W2)):
            # the run's W2: the census's top TOP, of which the top ``top`` are counted here
            triplets = top_singular(W, max(top, TOP) if name == "W2" and not null else top)
            s = triplets[1][:top]
            out[f"s_{name}{suffix}"] = s
            out[f"count_{name}{suffix}"] = count_outliers(s, edge)
            if name == "W2" and not null:
                V4 = triplets[2][:4]         # the top-4 right singular vectors of W2
                census_triplets = triplets
    run = runs[""]
    census = spike_census(run.W2, run.a, runs["_null"].W2, top=len(census_triplets[1]),
                          triplets=census_triplets)
    out.update(census=census["count"], edge_null=census["edge"], edge_self=census["edge_self"],
               s_census=census["s"], weight=census["weights"].sum(axis=1))
    X, y = (run.X1, run.y1) if batch == "reused" else (run.X2, run.y2)
    out["cos2_sample"] = float(cos2_with_directions(V4[1:2], X[int(np.argmax(np.abs(y)))])[0, 0])
    out["proj"] = float(subspace_projection(V4, run.target.directions)[-1])
    out["n_spikes_theory"] = n_spikes(alpha1, alpha2, activation, batch)
    out["lambda"] = lambda_count(alpha1, alpha2, get_activation(activation).degree)
    return out


def headline_unit(N: int, batch: str, alpha1: float, alpha2: float, target: str,
                  activation: str, seed: int, m: int = 4, dtype: str = "float64",
                  shared=None) -> dict:
    """The headline statistic ||P_m beta*||^2: the squared projection of the last target
    direction (He_3) on the top-``m`` right singular subspace of W2 (``projection``; chance
    ``chance`` = m/d), as the reused-versus-fresh chapter measures it."""
    run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch=batch,
                        activation=activation, target=target, seed=seed, dtype=dtype, shared=shared)
    Vt = top_singular(run.W2, m)[2]
    return {"projection": float(subspace_projection(Vt, run.target.directions)[-1]),
            "chance": m / run.d}


def first_spike_prediction(N, alpha1: float, alpha2: float, target="he1",
                           activation="tanh") -> dict:
    """Leading-order prediction for the first spike of W2 with a reused batch
    (book: dv-first-spike, dv-spiked-rectangular, dv-expansion): W2 ~ W0 + (eta1 + eta2) m1
    a u1^T, a spiked rectangular matrix (:func:`companion.spiked_rectangular`) of strength
    theta_N = (eta1 + eta2) |m1| sqrt(||mu*||^2 + E[y^2]/psi) (||a|| = 1, psi = phi = 1).
    Arrays over N: ``theta``, ``s1`` and ``overlap2`` (|<v1, u1/||u1||>|^2 = 1 - 1/theta^2 at
    N = d, so its gap to 1 closes like N^(-2 max(alpha1, alpha2))); and ``limit``, the
    N -> inf first-direction alignment cos^2(v1, beta*_1) (book: dv-first-direction)."""
    act = get_activation(activation)
    tgt = target_moments(target)
    Ns = np.atleast_1d(np.asarray(N, int))
    norm_u1 = math.sqrt(float(np.sum(tgt.mu_star ** 2)) + tgt.second_moment)
    theta = np.array([(step_size(int(n), alpha1) + step_size(int(n), alpha2)) * abs(act.m(1))
                      * norm_u1 for n in Ns])
    preds = [spiked_rectangular(th, int(n), int(n)) for th, n in zip(theta, Ns)]
    limit = first_direction_alignment("reused", tgt.mu_star, tgt.second_moment)
    return {"N": Ns, "theta": theta, "s1": np.array([p["s1"] for p in preds]),
            "overlap2": np.array([p["right_overlap2"] for p in preds]),
            "limit": float(limit[0])}


def convergence_unit(N: int, alpha1: float, alpha2: float, target: str, activation: str,
                     seed: int, dtype: str = "float64", shared=None) -> dict:
    """The first spike of W2 (reused batch) against :func:`first_spike_prediction`:
    ``s1`` (top singular value), ``overlap2`` (|<v1, u1/||u1||>|^2, u1 = X1^T y1 / n),
    ``cos2`` (cos^2(v1, beta*_1)), ``cos2_u1`` (cos^2(u1, beta*_1): the part of the alignment
    set by the sample alone), and the predictions ``s1_pred``, ``overlap2_pred``, ``limit``."""
    run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch="reused",
                        activation=activation, target=target, seed=seed, dtype=dtype, shared=shared)
    _, s, Vt = top_singular(run.W2, 1)
    u1 = run.X1.T @ run.y1 / run.n
    beta = run.target.directions[:1]
    pred = first_spike_prediction(N, alpha1, alpha2, target, activation)
    return {"s1": float(s[0]), "overlap2": float(cos2_with_directions(Vt, u1)[0, 0]),
            "cos2": float(cos2_with_directions(Vt, beta)[0, 0]),
            "cos2_u1": float(cos2_with_directions(u1, beta)[0, 0]),
            "s1_pred": float(pred["s1"][0]), "overlap2_pred": float(pred["overlap2"][0]),
            "limit": pred["limit"]}


def blowup_unit(N: int, alpha1: float, alpha2: float, activation: str, batch: str,
                target: str, seed: int, shared=None) -> dict:
    """Top singular value of W2 for one activation and batch setting (book: dv-pit-blowup):
    ``s1`` (of W2), ``s1_W1`` (of W1), ``max_delta`` (largest |pre-activation change| of the
    first step on the second step's batch), ``max_label``, ``single_sample`` (the norm of
    the largest one-sample piece eta2/n (a o sigma'(W1 x_i)) (y_i x_i)^T of the second step:
    close to ``s1`` when one sample makes the top singular value) and ``theory_s1``, the
    leading-order size of the first spike (eta1 + eta2) |m1| sqrt(||mu*||^2 + E[y^2]/psi)."""
    act = get_activation(activation)
    run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch=batch, activation=act,
                        target=target, seed=seed, shared=shared)
    X, y = (run.X1, run.y1) if batch == "reused" else (run.X2, run.y2)
    S = act.derivative(run.W1 @ X.T, 1) * run.a[:, None]
    pieces = np.linalg.norm(S, axis=0) * np.abs(y) * np.linalg.norm(X, axis=1)
    tgt = run.target
    return {"s1": float(top_singular(run.W2, 1)[1][0]),
            "s1_W1": float(top_singular(run.W1, 1)[1][0]),
            "max_delta": float(np.max(np.abs((run.W1 - run.W0) @ X.T))),
            "max_label": float(np.max(np.abs(y))),
            "single_sample": run.eta2 / X.shape[0] * float(np.max(pieces)),
            "theory_s1": (run.eta1 + run.eta2) * abs(act.m(1))
            * math.sqrt(float(np.sum(tgt.mu_star ** 2)) + tgt.second_moment)}


# --- the experiments of the chapter -----------------------------------------------------

#: The three settings of the headline compared in the spread study: (batch, alpha1, alpha2).
HEADLINE_SETTINGS = (("reused", *HEADLINE), ("reused", *LAMBDA_ONE), ("fresh", *HEADLINE))
#: Step-size exponents of the convergence study: slow (theta ~ N^0.05), clean (N^0.2), and
#: the headline, where the pre-activation change N^(alpha1 - 1/2) is far from small.
CONVERGENCE_ALPHAS = ((0.05, 0.05), (0.20, 0.20), HEADLINE)
#: a bounded derivative against sigma = He_1 + He_2/sqrt2 + He_3/sqrt6
BLOWUP_ACTIVATIONS = ("tanh", "hermite:0,1,1,1")


def _preactivation_grid(z):
    return [(dict(N=N, alpha1=z.get("alpha1", HEADLINE[0]), target=t, activation="tanh"), s)
            for t in z.get("targets", ("he1", "he3")) for N in z["Ns"]
            for s in seed_list(z["seeds"])]


def _outlier_grid(z):
    return [(dict(N=z["N"], alpha1=HEADLINE[0], alpha2=HEADLINE[1], target=t, batch=b,
                  activation="tanh", **precision(z, z["N"])), s)
            for t in z.get("targets", ("he3", "he1")) for b in ("reused", "fresh")
            for s in seed_list(z["seeds"])]


def _headline_grid(z):
    return [(dict(N=N, batch=b, alpha1=a1, alpha2=a2, target="he3", activation="tanh",
                  **precision(z, N)), s)
            for b, a1, a2 in z.get("settings", HEADLINE_SETTINGS) for N in z["Ns"]
            for s in seed_list(z["seeds"])]


def _convergence_grid(z):
    return [(dict(N=N, alpha1=a1, alpha2=a2, target="he1", activation="tanh",
                  **precision(z, N)), s)
            for a1, a2 in z.get("alphas", CONVERGENCE_ALPHAS) for N in z["Ns"]
            for s in seed_list(z["seeds"])]


def _blowup_grid(z):
    return [(dict(N=N, alpha1=HEADLINE[0], alpha2=HEADLINE[1], activation=act, batch=b,
                  target=z.get("target", "he3")), s)
            for act in z.get("activations", BLOWUP_ACTIVATIONS)
            for b in z.get("batches", ("reused", "fresh")) for N in z["Ns"]
            for s in seed_list(z["seeds"])]


PREACTIVATION = Experiment(
    "fs-preactivation", "pre-activation changes of the first step vs N", preactivation_unit,
    _preactivation_grid, {"small": dict(Ns=[100, 200, 400, 800], seeds=3),
                          "paper": dict(Ns=[512, 1024, 2048, 4096], seeds=3)})
OUTLIER_COUNTS = Experiment(
    "fs-outliers", "outliers above the bulk edge and the spike census against a null run",
    outlier_unit, _outlier_grid, {"small": dict(N=800, seeds=3, float32_from=0),
                                  "paper": dict(N=4096, seeds=3)}, cost=2.0)
HEADLINE_SPREAD = Experiment(
    "fs-spread", "seed-to-seed spread of the He_3 headline statistic", headline_unit,
    _headline_grid, {"small": dict(Ns=[400, 800], seeds=8, float32_from=0),
                     "paper": dict(Ns=[1024, 2048, 4096, 8192], seeds=4)})
CONVERGENCE = Experiment(
    "fs-convergence", "the first spike of W2 against its spiked-matrix prediction",
    convergence_unit, _convergence_grid, {"small": dict(Ns=[200, 400, 800, 1600], seeds=3,
                                                        float32_from=0),
                                          "paper": dict(Ns=[512, 1024, 2048, 4096], seeds=4)})
BLOWUP = Experiment(
    "fs-blowup", "a polynomial activation with a reused batch", blowup_unit, _blowup_grid,
    {"small": dict(Ns=[400, 800], seeds=2), "paper": dict(Ns=[1024, 2048], seeds=2)})


# --- summaries of runs ------------------------------------------------------------------

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


def headline_pairs(runs: Runs) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The four comparisons of the spread study, each as (projections of the setting that
    should come first, projections of the other): reused (0.35, 0.45) against fresh at the
    larger N (``fresh``), against reused (0.20, 0.45) at the smaller and the larger N
    (``lambda_small``, ``lambda_large``), and at the larger N against the smaller
    (``growth``)."""
    Ns = sorted(runs.unique("N"))
    small, large = Ns[0], Ns[-1]

    def proj(batch, a1, N):
        return runs.where(batch=batch, alpha1=a1, N=N).values("projection")

    head, low = HEADLINE[0], LAMBDA_ONE[0]
    return {"fresh": (proj("reused", head, large), proj("fresh", head, large)),
            "lambda_small": (proj("reused", head, small), proj("reused", low, small)),
            "lambda_large": (proj("reused", head, large), proj("reused", low, large)),
            "growth": (proj("reused", head, large), proj("reused", head, small))}


def headline_orderings(runs: Runs, ms=range(1, 17)) -> dict[str, np.ndarray]:
    """Probability of the right order of two settings' means over m seeds each
    (:func:`ordering_probability`), for m in ``ms``, for each comparison of
    :func:`headline_pairs`."""
    return {k: np.array([ordering_probability(x, y, m) for m in ms])
            for k, (x, y) in headline_pairs(runs).items()}


def seeds_needed(x, y, z: float = 2.0) -> float:
    """Seeds per setting for the difference of the means of x and y to reach ``z`` standard
    errors, m = z^2 (var x + var y) / (mean x - mean y)^2 (a normal approximation; use
    :func:`ordering_probability` for a distribution-free view)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    diff = x.mean() - y.mean()
    if diff == 0:
        return np.inf
    return float(z * z * (x.var(ddof=1) + y.var(ddof=1)) / diff ** 2)


def log_slope(Ns, values) -> float:
    """Least-squares slope of log(values) against log(Ns)."""
    return float(np.polyfit(np.log(np.asarray(Ns, float)), np.log(np.asarray(values)), 1)[0])


def _by_size(runs: Runs, key: str) -> tuple[list, np.ndarray]:
    """(sizes, values [seed, size]) of one result over the sizes of ``runs``."""
    Ns = sorted(runs.unique("N"))
    return Ns, np.stack([runs.where(N=N).values(key) for N in Ns], axis=1)


def convergence_rates(runs: Runs, level: float = 0.95) -> list[dict]:
    """For each (alpha1, alpha2) of :data:`CONVERGENCE` runs: the log-log slope against N of
    the first spike's direction gap 1 - overlap2, fitted seed by seed (a seed draws one run
    at every size) and averaged, with the 95% Student-t interval of that mean over the seeds
    (``gap``, ``gap_low``, ``gap_high``; :func:`companion.core.intervals.t_interval`: with
    three seeds t has two degrees of freedom, so the interval is wide, as it should be), the
    slope of the predicted gap (``gap_pred``, about -2 max(alpha)), and likewise the slope of
    the size deficit |1 - s1 / s1_pred| (``deficit``, ``deficit_low``, ``deficit_high``).
    The seeds' own slopes are ``gap_seeds``, ``deficit_seeds``."""
    rows = []
    for (a1, a2), group in runs.groups("alpha1", "alpha2").items():
        Ns, overlap = _by_size(group, "overlap2")
        _, s1 = _by_size(group, "s1")
        _, pred_gap = _by_size(group, "overlap2_pred")
        s1_pred = _by_size(group, "s1_pred")[1][0]
        gap = np.array([log_slope(Ns, 1.0 - row) for row in overlap])
        deficit = np.array([log_slope(Ns, np.abs(1.0 - row / s1_pred)) for row in s1])
        g, d = t_interval(gap, level), t_interval(deficit, level)
        rows.append({"alpha1": a1, "alpha2": a2, "Ns": Ns,
                     "gap": g.mean, "gap_low": g.low, "gap_high": g.high, "gap_seeds": gap,
                     "gap_pred": log_slope(Ns, 1.0 - pred_gap[0]),
                     "deficit": d.mean, "deficit_low": d.low, "deficit_high": d.high,
                     "deficit_seeds": deficit})
    return rows
