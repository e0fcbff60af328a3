"""Experiments of the chapter "Two steps: a spiked spectrum" (book/two_steps.ipynb).

Experiments E3, E4, E5 and E10 (book: reg-experiments). After two steps the update is,
by the companion's reconstruction (book: dv-expansion, dv-exponents),

    W2 - W0 ~ a ubar^T + sum_k C_k a^{o(k+1)} v_k^T,

with term k of operator norm ~ N^{alpha2 - k (1/2 - alpha1)} (k >= 1) and the first spike
(k = 0) growing as N^{max(alpha1, alpha2)}. The term of order k is read off the update by
projecting it on the k-th Gram-Schmidt power of a (:func:`companion.term_sizes`), which does
not need to count outliers against the Marchenko-Pastur edge at one N (book: dv-pit-edge).

Every function takes sizes, seeds and exponents as arguments; ``*_run`` computes one unit
(one point, one seed), the sweeps stack units. No figures; every draw is seeded.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from companion.core.activations import get_activation
from companion.core.alignment import cos2_with_directions, left_overlaps, term_sizes
from companion.core.expansion import leading_order_sizes
from companion.core.experiment import Experiment, precision, run_units, sweep_runs
from companion.core.finite_n import predicted_terms
from companion.core.intervals import welch_interval
from companion.core.network import run_two_steps
from companion.core.spectra import mp_edges, singular_values, top_singular
from companion.core.spikes import (
    bbp_detection_strength,
    count_spikes,
    off_powers_edge,
    power_weights,
    separate_strengths,
)
from companion.core.theory import lambda_count, n_spikes, present_terms
from companion.core.validation import positive_int, seed_list


# -- small helpers ------------------------------------------------------------------------
def fit_slopes(Ns: Sequence[int], sizes: np.ndarray) -> np.ndarray:
    """Least-squares slope of log(size) against log(N) along axis 0 of ``sizes``.

    ``sizes`` has shape (len(Ns), ...); the result has the remaining shape. This is the
    growth exponent the chapter compares with ``spike_exponent`` (book: dv-exponents).
    """
    x = np.log(np.asarray(Ns, float))
    y = np.log(np.asarray(sizes, float))
    xc = x - x.mean()
    y2 = y.reshape(len(x), -1)
    slope = xc @ (y2 - y2.mean(axis=0)) / (xc @ xc)
    return slope.reshape(y.shape[1:])


def sizes_by_N(runs, alpha1: float, alpha2: float, key: str, batch: str = "reused"):
    """(Ns, values [N, seed]) of one result of the two-step runs at one point and batch,
    precision checks left out (every N must have the same number of seeds)."""
    sel = sweep_runs(runs).where(alpha1=alpha1, alpha2=alpha2, batch=batch)
    Ns = sorted(sel.unique("N"))
    return np.array(Ns), np.array([sel.where(N=N).values(key) for N in Ns], float)


def local_slopes(Ns, values, level: float = 0.95) -> dict:
    """Local growth exponents between consecutive sizes: the slope of the log of the
    geometric mean over the seeds, and its Welch t interval (the mean log at the larger size
    minus that at the smaller, both over a few seeds, divided by the step in log N: the runs
    at different N are independent draws; :func:`companion.core.intervals.welch_interval`).
    ``values`` is [N, seed]. Returns ``N_low``, ``N_high``, ``slope``, ``low``, ``high``
    (arrays over the len(Ns) - 1 steps)."""
    Ns = np.asarray(Ns, float)
    logs = np.log(np.asarray(values, float))
    dlogN = np.diff(np.log(Ns))
    rows = np.array([welch_interval(logs[i], logs[i + 1], level)
                     for i in range(len(Ns) - 1)]).reshape(-1, 3)
    slope, low, high = (rows[:, c] / dlogN for c in range(3))
    return {"N_low": Ns[:-1].astype(int), "N_high": Ns[1:].astype(int), "slope": slope,
            "low": low, "high": high}


def bbp_position(theta, phi: float = 1.0):
    """Outlier position of W0 + theta u v^T for N = d (phi = 1): theta + 1/theta if
    theta > 1, else the bulk edge 2 (book: dv-spiked-rectangular; the general phi is
    :func:`companion.spiked_rectangular`)."""
    if phi != 1.0:
        raise ValueError("bbp_position is written for phi = N/d = 1; use cp.spiked_rectangular")
    theta = np.asarray(theta, float)
    return np.where(theta > 1, theta + 1 / np.maximum(theta, 1e-300), 2.0)


# -- E3, E4, E5: one sweep over sizes, seeds and step-size exponents ----------------------
def two_step_run(N: int, alpha1: float, alpha2: float, seed: int, K: int = 4,
                 batch: str = "reused", activation="tanh", target="he1", noise: float = 0.0,
                 reference: bool = True, null_labels: bool = False,
                 dtype="float64", shared=None) -> dict:
    """One unit of work: one two-step run summarized by a few numbers.

    * ``terms`` (K,): ||q_j^T (W2 - W0)|| on the Gram-Schmidt powers q_1..q_K of a; entry k
      is the spike term of order k, left vector a^{o(k+1)} (book: dv-separate-strengths);
    * ``separate`` (K,): :func:`separate_strengths`, the part of each term that can make an
      outlier of its own; ``leading`` (K,): :func:`companion.core.expansion.leading_order_sizes`,
      the leading-order prediction of each term size from the run's own data;
    * with ``reference=True``, also ``diff`` = ||W2 - W_ref||_op and ``ref`` =
      ||W_ref - W0||_op, where W_ref = W0 + (eta1 + eta2) G(W0; X1, y1) is the one-step
      reference (book: dv-one-step-reference); operator norms by Lanczos.
    """
    run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch=batch, activation=activation,
                        target=target, noise=noise, seed=seed, null_labels=null_labels,
                        dtype=dtype, shared=shared)
    delta = run.W2 - run.W0
    out = {"terms": term_sizes(delta, run.a, positive_int(K, "K")),
           "separate": separate_strengths(delta, run.a, K),
           "leading": leading_order_sizes(run, K)}
    del delta
    if reference:
        W_ref = run.one_step_reference()
        out["diff"] = float(top_singular(run.W2 - W_ref, 1)[1][0])
        W_ref -= run.W0
        out["ref"] = float(top_singular(W_ref, 1)[1][0])
    return out


def fresh_relative_difference(alpha1: float, alpha2: float, N, mu_star: float = 1.0,
                              second_moment: float = 1.0, psi: float = 1.0, c1: float = 1.0,
                              c2: float = 1.0):
    """Limit of ||W2 - W_ref||_op / ||W_ref - W0||_op for a fresh batch (companion
    derivation, book: dv-one-step-reference).

    Both spikes have left vector a: W2 - W0 ~ m1 a (eta1 u1 + eta2 u2)^T and
    W_ref - W0 ~ (eta1 + eta2) m1 a u1^T, so the difference is eta2 m1 a (u2 - u1)^T. The
    signal parts of u1 and u2 cancel and their noises are independent, each of squared norm
    E[y^2]/psi:

        eta2 sqrt(2 E[y^2]/psi) / ((eta1 + eta2) sqrt(mu*^2 + E[y^2]/psi)).

    For eta1 = eta2 and a He_1 target (mu* = E[y^2] = psi = 1) this is 1/2. The higher
    spike terms, which vanish relative to the first spike, are neglected. ``N`` may be an
    array (the step sizes eta_t = c_t N^alpha_t depend on it).
    """
    N = np.asarray(N, float)
    eta1, eta2 = c1 * N ** alpha1, c2 * N ** alpha2
    noise = second_moment / psi
    return eta2 * np.sqrt(2 * noise) / ((eta1 + eta2) * np.sqrt(mu_star ** 2 + noise))


# -- E10: the spectrum of W2 beside a null run -------------------------------------------
def spectrum_with_null(N: int, alpha1: float, alpha2: float, seed: int = 0, K: int = 5,
                       top: int = 12, batch: str = "reused", activation="tanh",
                       target="he1+he3", noise: float = 0.0, full: bool = True,
                       full_null: bool = False, dtype="float64", shared=None) -> dict:
    """Spectrum of W2 and of a null run, and what their top singular vectors are (E10).

    The null run has the same seed, sizes and step sizes, and labels of an independent
    sample of the same distribution (``run_two_steps(..., null_labels=True)``): heavy tails
    included, no dependence on the inputs (book: dv-pit-edge). For each of the two runs
    (keys without and with the suffix ``_null``):

    * ``s_top``: the top ``top`` singular values of W2 (Lanczos); ``s``: all of them, by a
      dense SVD (the costly part: N^3), computed for the run only with ``full=True`` and
      for the null run only with ``full_null=True``;
    * ``left`` (top, K): |<u_i, q_j>|^2, top left singular vectors of W2 against the
      Gram-Schmidt powers q_1..q_K of a (a spike of order k has its left vector on q_{k+1});
    * ``s_W1`` and ``left_W1``: the same for W1 (one step);
    * ``cos2`` (top, number of target directions): cos^2 of the top right singular vectors
      of W2 with each target direction beta*_k (what the spike learned);
    * ``terms`` (K,): ``term_sizes(W2 - W0, a, K)``; ``separate`` (K,):
      :func:`separate_strengths`.

    Also ``edge`` (the Marchenko-Pastur edge 1 + sqrt(N/d)), ``phi``, ``lambda`` and
    ``present_terms`` (the orders k >= 1 this activation has).
    """
    out = {}
    for suffix, null in (("", False), ("_null", True)):
        run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch=batch,
                            activation=activation, target=target, noise=noise, seed=seed,
                            null_labels=null, dtype=dtype, shared=shared)
        U, s_top, Vt = top_singular(run.W2, top)
        if (full_null if null else full):
            out["s" + suffix] = singular_values(run.W2)
        out["s_top" + suffix] = s_top
        out["left" + suffix] = left_overlaps(U, run.a, K)
        out["cos2" + suffix] = cos2_with_directions(Vt, run.target.directions)
        U1, s1, _ = top_singular(run.W1, top)
        out["s_W1" + suffix] = s1
        out["left_W1" + suffix] = left_overlaps(U1, run.a, K)
        delta = run.W2 - run.W0
        out["terms" + suffix] = term_sizes(delta, run.a, K)
        out["separate" + suffix] = separate_strengths(delta, run.a, K)
        del delta
        phi = run.N / run.d
    out["edge"] = mp_edges(phi)[1]
    out["phi"] = phi
    out["lambda"] = lambda_count(alpha1, alpha2, get_activation(activation).degree)
    out["present_terms"] = present_terms(alpha1, alpha2, activation, batch)
    return out


# -- E11: the spikes appear one by one as N grows ------------------------------------------
#: Points of the spike-emergence experiment, on no phase line. (0.30, 0.38): Lambda = 1, k = 1
#: exponent 0.18; (0.38, 0.45): Lambda = 3, exponents 0.33, 0.21, 0.09 for k = 1, 2, 3. Each
#: is near the next line (EMERGENCE_NEAR_LINES, :func:`companion.core.theory.nearest_line`): the
#: first uncounted term has exponent -0.02 (k = 2; tanh's k = 2 strength grows 0.65 to 1.06
#: over the stored sizes) and -0.03 (k = 4): it neither grows nor vanishes at reachable N;
#: the limit's count leaves it out, a finite N need not (book: ts-sec-one-by-one).
EMERGENCE_POINTS: tuple[tuple[float, float], ...] = ((0.30, 0.38), (0.38, 0.45))
EMERGENCE_NEAR_LINES: dict[tuple[float, float], int] = {(0.30, 0.38): 2, (0.38, 0.45): 4}
#: tanh (odd: the control, only even orders), tanh(z + 1/2) and GELU (every order, reused)
EMERGENCE_ACTIVATIONS: tuple[str, ...] = ("tanh", "shifted_tanh", "gelu")


def spike_emergence_run(N: int, alpha1: float, alpha2: float, activation="shifted_tanh",
                        seed: int = 0, c1: float = 1.0, c2: float = 1.0, K: int = 5,
                        top: int = 12, dtype="float64", shared=None) -> dict:
    """One unit of the spike-emergence experiment (E11): a reused-batch run with a He_1
    target and its null run (labels of an independent sample), read term by term.

    * ``strength_k0`` ... ``strength_k{K-1}``: :func:`companion.core.spikes.separate_strengths` of
      W2 - W0, the strength with which term k can make an outlier of its own (BBP threshold
      1 against the W0 bulk at N = d); ``term_k0`` ...: :func:`companion.term_sizes`;
    * ``s`` (top,): the top singular values of W2; ``weight`` (top,): the weight of each left
      singular vector on the powers of a; ``order`` (top,): the order k of the power it
      leans on most (the term that made it); ``s_null``, ``weight_null``: the same for the null run;
    * ``edge_null``: the null run's bulk edge (powers of a projected out), ``edge_self``:
      the same for W2; ``n_outliers``: :func:`companion.core.spikes.count_spikes` against
      ``edge_null``, the first spike included (as ``simulate --null`` counts);
    * ``n_spikes_theory``: :func:`companion.n_spikes` (the limit for this activation),
      ``lambda``: the paper's Lambda.
    """

    K, top = positive_int(K, "K"), positive_int(top, "top")
    out: dict = {}
    for suffix, null in (("", False), ("_null", True)):
        run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch="reused",
                            activation=activation, target="he1", seed=seed, c1=c1, c2=c2,
                            dtype=dtype, null_labels=null, shared=shared)
        if not null:
            delta = run.W2 - run.W0
            out.update({f"strength_k{k}": float(v)
                        for k, v in enumerate(separate_strengths(delta, run.a, K))})
            out.update({f"term_k{k}": float(v) for k, v in enumerate(term_sizes(delta, run.a, K))})
            del delta
        U, s, _ = top_singular(run.W2, top)
        weights = power_weights(U, run.a, K)
        out["s" + suffix] = s.astype(float)
        out["weight" + suffix] = weights.sum(axis=1)
        if not null:
            out["order"] = np.argmax(weights, axis=1)
        out["edge" + ("_null" if null else "_self")] = off_powers_edge(run.W2, run.a, K)
        del run, U
    out["n_outliers"] = count_spikes(out["s"], out["weight"], out["edge_null"])
    out["n_spikes_theory"] = n_spikes(alpha1, alpha2, activation, "reused")
    out["lambda"] = lambda_count(alpha1, alpha2, get_activation(activation).degree)
    return out


# -- the experiments of this chapter, as units for the book and for reproduce ---------------
#: E3: points of the phase diagram (reused, tanh, He_1); E4: the exponent check; E5: two
#: steps = one step below alpha1 + alpha2 = 1/2 (reused) and not for a fresh batch.
#: (0.35, 0.45) lies on the line alpha2 = 3 (1/2 - alpha1) (companion.phase_line): its k = 3
#: term is Theta(1) there; with tanh that term is absent anyway (odd order).
E3_POINTS = ((0.20, 0.20), (0.40, 0.15), (0.20, 0.45), (0.40, 0.25), (0.35, 0.45),
             (0.45, 0.45))
E4_PAIRS = ((0.20, 0.45), (0.40, 0.25), (0.35, 0.45))
E5_PAIRS = ((0.20, 0.20), (0.35, 0.45))


def two_step_unit(N: int, alpha1: float, alpha2: float, batch: str, K: int, activation: str,
                  target: str, reference: bool, seed: int, dtype: str = "float64",
                  shared=None) -> dict:
    """E3/E4/E5 unit: :func:`two_step_run` with its arrays as columns ``terms_k``,
    ``leading_k``, ``separate_k`` (k = 0..K-1), and with ``reference`` also ``diff``,
    ``ref`` and ``rel_diff`` = diff / ref. ``dtype="float32"`` halves the time and memory
    (the paper scale's largest N; its agreement with float64 is stored at a smaller N)."""
    r = two_step_run(N, alpha1, alpha2, seed, K=K, batch=batch, activation=activation,
                     target=target, reference=reference, dtype=dtype, shared=shared)
    out = {f"{key}_{k}": float(v) for key, name in
           (("terms", "terms"), ("leading", "leading"), ("separate", "separate"))
           for k, v in enumerate(r[name])}
    if reference:
        out.update(diff=float(r["diff"]), ref=float(r["ref"]),
                   rel_diff=float(r["diff"]) / float(r["ref"]))
    return out


def spectrum_unit(N: int, alpha1: float, alpha2: float, batch: str, activation: str,
                  target: str, seed: int, dtype: str = "float64", shared=None) -> dict:
    """E10 unit: :func:`spectrum_with_null`: all singular values of W2 (dense SVD, ``s``),
    the top 12 of W2 (``s_top``, with ``on_powers``, the weight of each left vector on the
    first 5 powers of a, and ``left``, its overlaps with each), of the null run (``s_null``,
    ``on_powers_null``, ``left_null``) and of W1 (``s_W1``, ``left_W1``, and for the null run
    ``s_W1_null``, ``left_W1_null``); ``cos2`` of the top right singular vectors with each
    target direction; ``terms`` and ``separate`` (term sizes and separate strengths).
    ``dtype="float32"``: the chapter's run (half the time; the stored runs are float64)."""
    r = spectrum_with_null(N, alpha1, alpha2, seed=seed, K=5, top=12, batch=batch,
                           activation=activation, target=target, full=True, full_null=False,
                           dtype=dtype, shared=shared)
    out = {"s": np.asarray(r["s"], float), "s_null": np.asarray(r["s_top_null"], float),
           "s_top": np.asarray(r["s_top"], float),
           "on_powers": np.asarray(r["left"], float).sum(axis=1),
           "on_powers_null": np.asarray(r["left_null"], float).sum(axis=1),
           "edge": float(r["edge"]), "phi": float(r["phi"]), "lambda": int(r["lambda"])}
    for key in ("s_W1", "s_W1_null", "left", "left_null", "cos2", "cos2_null", "terms",
                "terms_null", "separate", "separate_null", "left_W1", "left_W1_null"):
        out[key] = np.asarray(r[key], float)
    return out


_E3_SIZES = {"small": dict(Ns=[128, 256, 512, 1024], seeds=3, float32_from=0),
             "paper": dict(Ns=[512, 1024, 2048, 4096], seeds=4)}
# the exponent check reaches 8192 with 6 seeds (Welch t intervals of the slopes)
# The largest paper-scale size runs in float32 (half the time and memory of a run that takes
# minutes); ``agreement`` repeats a few float64 units of a smaller size in float32, so that
# the data record how much the precision moves the numbers.
_E4_SIZES = {"small": dict(Ns=[128, 256, 512, 1024], seeds=3, float32_from=0),
             "paper": dict(Ns=[512, 1024, 2048, 4096, 8192], seeds=6, float32_from=8192,
                           agreement=dict(N=2048, seeds=2, pair=(0.35, 0.45)))}
_E5_SIZES = {"small": dict(Ns=[128, 256, 512, 1024], seeds=3, float32_from=0),
             "paper": dict(Ns=[512, 1024, 2048, 4096], seeds=4)}
_E10_SIZES = {"small": dict(N=1024, seeds=1, float32_from=0), "paper": dict(N=4096, seeds=2)}
# a run and its null run per unit
_E11_SIZES = {"small": dict(Ns=[256, 512, 1024, 2048], seeds=2),
              "paper": dict(Ns=[1024, 2048, 4096, 8192], seeds=4, constants=True,
                            float32_from=8192, largest_without=("gelu",),
                            agreement=dict(N=2048, seeds=2, point=(0.38, 0.45),
                                           activation="shifted_tanh"))}
#: E11: what the step constants c1, c2 do (paper scale only)
E11_CONSTANTS = dict(N=2048, seeds=2, activation="shifted_tanh", point=(0.38, 0.45),
                     pairs=((1.5, 1.0), (2.0, 1.0), (1.0, 2.0)))


def two_step_runs(pairs, Ns, seeds=1, batch: str = "reused", activation="tanh",
                  target="he1", K: int = 4, reference: bool = False, dtype: str = "float64"):
    """:class:`~companion.core.runs.Runs` of :func:`two_step_unit` at every (alpha1, alpha2) in
    ``pairs``, size in ``Ns`` and seed (a count or a list), for exercises and other points
    than the experiments' own; ``dtype="float32"`` as the chapter's own runs."""
    return run_units(two_step_unit, [
        (dict(N=int(N), alpha1=float(a1), alpha2=float(a2), batch=batch, K=K,
              activation=activation, target=target, reference=reference, dtype=dtype), s)
        for a1, a2 in pairs for N in Ns for s in seed_list(seeds)])


def _two_step_grid(z, pairs, batches=("reused",)):
    # the one-step reference (an extra gradient and two Lanczos runs) only where E5 uses it,
    # so that E3, E4 and E5 share their runs
    out = [(dict(N=N, alpha1=a1, alpha2=a2, batch=b, K=4, activation="tanh", target="he1",
                 reference=(a1, a2) in E5_PAIRS, **precision(z, N)), s)
           for (a1, a2) in pairs for b in batches for N in z["Ns"]
           for s in seed_list(z["seeds"])]
    if "agreement" in z:
        g = z["agreement"]
        a1, a2 = g["pair"]
        out += [(dict(N=g["N"], alpha1=a1, alpha2=a2, batch="reused", K=4, activation="tanh",
                      target="he1", reference=(a1, a2) in E5_PAIRS, dtype="float32"), s)
                for s in seed_list(g["seeds"])]
    return out


def _e3_grid(z):
    return _two_step_grid(z, E3_POINTS)


def _e4_grid(z):
    return _two_step_grid(z, E4_PAIRS)


def _e5_grid(z):
    # batches=["fresh"]: the chapter's fresh runs only (its reused ones are E3's)
    return _two_step_grid(z, E5_PAIRS, batches=z.get("batches", ("reused", "fresh")))


def _e10_grid(z):
    return [(dict(N=z["N"], alpha1=0.35, alpha2=0.45, batch="reused", activation="tanh",
                  target="he1+he3", **precision(z, z["N"])), s) for s in seed_list(z["seeds"])]


def _e11_grid(z):
    largest = max(z["Ns"])
    out = [(dict(N=N, alpha1=a1, alpha2=a2, activation=act, c1=1.0, c2=1.0,
                 **precision(z, N)), s)
           for (a1, a2) in EMERGENCE_POINTS for act in EMERGENCE_ACTIVATIONS for N in z["Ns"]
           if not (N == largest and act in z.get("largest_without", ()))
           for s in seed_list(z["seeds"])]
    if "agreement" in z:
        g = z["agreement"]
        out += [(dict(N=g["N"], alpha1=g["point"][0], alpha2=g["point"][1],
                      activation=g["activation"], c1=1.0, c2=1.0, dtype="float32"), s)
                for s in seed_list(g["seeds"])]
    c = E11_CONSTANTS
    if z.get("constants"):
        out += [(dict(N=c["N"], alpha1=c["point"][0], alpha2=c["point"][1],
                      activation=c["activation"], c1=c1, c2=c2), s)
                for c1, c2 in c["pairs"] for s in seed_list(c["seeds"])]
    return out


PHASE_DIAGRAM = Experiment("E3", "phase diagram of Lambda(alpha1, alpha2) with simulated "
                           "exponents", two_step_unit, _e3_grid, _E3_SIZES, cache="two_step_run")
EXPONENT_CHECK = Experiment("E4", "exponent check: term sizes vs N", two_step_unit, _e4_grid,
                            _E4_SIZES, cache="two_step_run")
ONE_STEP_COLLAPSE = Experiment("E5", "two steps = one step when alpha1 + alpha2 < 1/2 "
                               "(reused), not fresh", two_step_unit, _e5_grid, _E5_SIZES,
                               cache="two_step_run")
SPECTRUM = Experiment("E10", "spectrum of W2 beside a null run", spectrum_unit, _e10_grid,
                      _E10_SIZES, cost=8.0)
# -- the finite-N phase diagram (E15) and its check by simulation (E16) ----------------------
#: E16: 12 points spread over the square, every one off the lines alpha2 = k (1/2 - alpha1)
#: by at least 0.06 (companion.nearest_line), on both sides of k = 1, 2 and 3:
#: Lambda = 0 (three), 1 (four), 2 (three) and 3 (two)
GRID_CHECK_POINTS: tuple[tuple[float, float], ...] = (
    (0.15, 0.20), (0.25, 0.15), (0.35, 0.08),
    (0.25, 0.35), (0.15, 0.45), (0.20, 0.40), (0.30, 0.28),
    (0.30, 0.48), (0.35, 0.38), (0.33, 0.42),
    (0.37, 0.46), (0.36, 0.485))
GRID_CHECK_ACTIVATION = "shifted_tanh"
#: the terms k = 0..PHASE_K-1 that the predicted phase diagram counts (up to 1 + Lambda = 6)
PHASE_K = 6


def predicted_count_column(N: int, alpha1: float, activation: str = GRID_CHECK_ACTIVATION,
                           target: str = "he1", step: float = 0.0125, seed: int = 0) -> dict:
    """One column alpha1 of the finite-N phase diagram (E15; book: dv-finite-n): at the
    cell centres alpha2 = step/2, 3 step/2, ... < 1/2, the predicted separate strength of the
    terms k = 0..PHASE_K-1 (``strength_k0`` ...; :func:`companion.core.finite_n.predicted_terms`,
    reused batch, N = d = n) and ``count``, how many exceed the strength the census needs against W0's
    bulk edge 2 (:func:`companion.core.spikes.bbp_detection_strength`): the count a census
    of a run at this N would give if the null run's edge stayed at 2 (E16 measures it).
    Deterministic: ``seed`` is accepted for the sweep's bookkeeping and not used."""
    N = positive_int(N, "N")
    alpha2s = np.arange(step / 2, 0.5, step)
    strength = np.array([predicted_terms(N, alpha1, a2, activation, target, K=PHASE_K,
                                         sample_nodes=12)["strength"] for a2 in alpha2s])
    threshold = bbp_detection_strength(2.0)
    return {"alpha2": alpha2s, "count": (strength > threshold).sum(axis=1),
            "threshold": threshold, **{f"strength_k{k}": strength[:, k] for k in range(PHASE_K)}}


_E15_SIZES = {"small": dict(Ns=[1000, 10000], step=0.05),
              "paper": dict(Ns=[1000, 10000, 100000, 1000000], step=0.0125)}
_E16_SIZES = {"small": dict(Ns=[256, 512], seeds=2),
              "paper": dict(Ns=[1024, 2048, 4096], seeds=6, float32_from=4096)}


def _e15_grid(z):
    alpha1s = np.arange(z["step"] / 2, 0.5, z["step"])
    return [(dict(N=N, alpha1=round(float(a1), 6), step=z["step"]), 0)
            for N in z["Ns"] for a1 in alpha1s]


def _e16_grid(z):
    return [(dict(N=N, alpha1=a1, alpha2=a2, activation=GRID_CHECK_ACTIVATION, c1=1.0,
                  c2=1.0, **precision(z, N)), s)
            for (a1, a2) in GRID_CHECK_POINTS for N in z["Ns"] for s in seed_list(z["seeds"])]


PHASE_PREDICTION = Experiment("E15", "the finite-N phase diagram: the count the prediction "
                              "gives at N = 10³ to 10⁶", predicted_count_column, _e15_grid,
                              _E15_SIZES, cost=0.0)
GRID_CHECK = Experiment("E16", "the finite-N phase diagram checked: census counts at 12 "
                        "points off the lines", spike_emergence_run, _e16_grid, _E16_SIZES,
                        cost=2.5)
SPIKES_ONE_BY_ONE = Experiment("E11", "the spikes appear one by one as N grows (every order "
                               "vs tanh)", spike_emergence_run, _e11_grid, _E11_SIZES, cost=2.5)
