"""The spikes of the updated weights: how strong each term is, and which singular values are
outliers made by it (book: dv-census, dv-pit-edge).

After two steps, W2 - W0 ~ a ubar^T + sum_k C_k a^{o(k+1)} v_k^T (companion derivation,
book: dv-expansion): the spike of order k has its left singular vector on the entrywise power
a^{o(k+1)}. Those powers are not orthogonal, so everything here works with their Gram-Schmidt
orthonormalization q_1, q_2, ... (:func:`companion.a_power_basis`).

Counting outliers against the Marchenko-Pastur edge at one N misleads (book: dv-pit-edge): the
updates widen the bulk, and heavy-tailed labels push single-sample outliers out of it. The
census here therefore

* measures the bulk edge of a **null run** (labels of an independent sample: same sizes,
  step sizes and label distribution, no information) as the top singular value of its W2
  with the powers of a projected out on the left (the null run has spikes on the powers of
  a too: they come from a, not from the labels);
* counts a singular value of W2 as a spike when it lies above that edge by a margin AND its
  left singular vector lies on the span of the powers of a (weight >= ``MIN_WEIGHT``).
  A BBP spike just above the threshold has a left overlap of 1 - 1/theta^2 with its own
  direction (about 0.33 at the 2% margin, N = d), so the weight bound 0.25 keeps every
  spike that clears the margin and no bulk vector (their weight is about K/N).
"""

from __future__ import annotations

import numpy as np

from companion.core.alignment import a_power_basis, cos2_with_directions
from companion.core.experiment import sweep_runs
from companion.core.runs import Runs
from companion.core.spectra import top_singular, top_singular_values
from companion.core.validation import finite_array, positive_int, positive_real

#: relative margin above the null run's bulk edge (as :func:`companion.count_outliers`)
MARGIN = 0.02
#: least weight ||Q^T u||^2 of a left singular vector on the powers of a to count as a spike
MIN_WEIGHT = 0.25
#: powers of a used to identify spikes (orders k = 0..K-1)
K_POWERS = 5
#: singular values examined per matrix
TOP = 12


def separate_strengths(delta, a, K: int, base=None) -> np.ndarray:
    """Strength of each spike term as a *separate* outlier (book: dv-separate-strengths).

    With q_1..q_K the Gram-Schmidt powers of a, the rows r_j = q_j^T Delta are the terms of
    :func:`companion.term_sizes`. Part of a higher term's row can be parallel (in R^d) to the
    rows before it: that part only tilts the earlier spike's left vector. The strength that
    can make its own outlier is the norm of the part of r_j orthogonal to the span of
    r_1..r_{j-1} (least squares, so that a zero row removes nothing). For N = d a rank-one
    term of strength theta leaves the W0 bulk iff theta > 1, at theta + 1/theta
    (Benaych-Georges & Nadakuditi 2012; book: dv-threshold).

    With ``base`` (W0), ``delta`` is W2 itself and the rows are q_j^T W2 - q_j^T W0: the
    strengths of W2 - W0 without forming the N x d difference.
    """
    Q = a_power_basis(a, positive_int(K, "K"))
    delta = finite_array(delta, "delta", 2)
    R = Q.T @ delta
    if base is not None:
        base = finite_array(base, "base", 2)
        if base.shape != delta.shape:
            raise ValueError(f"base must have delta's shape {delta.shape}, got {base.shape}")
        R -= Q.T @ base
    out = np.empty(len(R))
    for j, row in enumerate(R):
        if j:
            coef = np.linalg.lstsq(R[:j].T, row, rcond=None)[0]
            row = row - R[:j].T @ coef
        out[j] = np.linalg.norm(row)
    return out


def own_part_cos2(W2, W0, a, directions, K: int = K_POWERS) -> np.ndarray:
    """(K, m) cos^2 of each term's own part with each target direction (rows of
    ``directions``): with q_1..q_K the Gram-Schmidt powers of a and r_k = q_{k+1}^T (W2 - W0)
    the terms' rows, the own part of r_k is its part orthogonal to r_0..r_{k-1} (least
    squares, as :func:`companion.core.spikes.separate_strengths`, whose norms these parts
    are). It is what term k could carry as an outlier of its own, read without detection.
    Zero where the part vanishes."""
    Q = a_power_basis(a, K)
    R = Q.T @ W2 - Q.T @ W0
    D = np.atleast_2d(np.asarray(directions, float))
    out = np.zeros((len(R), len(D)))
    for j, row in enumerate(R):
        if j:
            coef = np.linalg.lstsq(R[:j].T, row, rcond=None)[0]
            row = row - R[:j].T @ coef
        norm2 = float(row @ row)
        if norm2 > 0:
            out[j] = (D @ row) ** 2 / norm2
    return out


def power_weights(U, a, K: int = K_POWERS) -> np.ndarray:
    """(top, K) squared overlaps |<u_i, q_j>|^2 of the left singular vectors (columns of U)
    with the Gram-Schmidt powers q_1..q_K of a; a row sums to the weight of u_i on the span
    of the powers, its argmax is the order k + 1 of the term that made the spike."""
    U = finite_array(U, "U", 2)
    Q = a_power_basis(a, K)
    if U.shape[0] != Q.shape[0]:
        raise ValueError(f"U has {U.shape[0]} rows but a has {Q.shape[0]} entries")
    return (U.T @ Q) ** 2


def off_powers(W, a, K: int = K_POWERS) -> np.ndarray:
    """(I - Q Q^T) W, Q the Gram-Schmidt powers of a: W without its rows along the powers of
    a, where every spike of the expansion has its left vector."""
    W = finite_array(W, "W", 2)
    Q = a_power_basis(a, K).astype(W.dtype, copy=False)
    out = Q @ (Q.T @ W)
    return np.subtract(W, out, out=out)     # one N x d array, not two


def off_powers_edge(W, a, K: int = K_POWERS) -> float:
    """Top singular value of :func:`off_powers`: the edge of the bulk of W once every spike
    on the powers of a is removed."""
    return float(top_singular_values(off_powers(W, a, K), 1)[0])


def spike_threshold(edge: float, margin: float = MARGIN) -> float:
    """``edge * (1 + margin)``: what a singular value must exceed to count as a spike."""
    return positive_real(edge, "edge") * (1.0 + positive_real(margin, "margin", allow_zero=True))


def count_spikes(s, weights, edge: float, margin: float = MARGIN,
                 min_weight: float = MIN_WEIGHT) -> int:
    """Number of singular values ``s`` above ``edge * (1 + margin)`` whose left vectors put
    at least ``min_weight`` on the powers of a (``weights``: one number per value)."""
    s, w = np.asarray(s, float), np.asarray(weights, float)
    if s.shape != w.shape:
        raise ValueError(f"s and weights must have the same shape, got {s.shape} and {w.shape}")
    return int(np.sum((s > spike_threshold(edge, margin)) & (w >= min_weight)))


def spike_census(W2, a, W2_null, K: int = K_POWERS, top: int = TOP, W0=None,
                 directions=None, triplets=None) -> dict:
    """Spikes of ``W2`` counted against the null run ``W2_null`` (same a): the top ``top``
    singular values ``s``, their ``weights`` (top, K) on the powers of a (``power_weights``),
    the null run's ``edge`` (``off_powers_edge``), the run's own ``edge_self`` (the same
    for W2), and ``count`` (:func:`count_spikes`). The first spike (order k = 0) is counted:
    with every order present, 1 + Lambda is the prediction.

    With ``W0`` (the initial weights, shared by the run and its null run) and ``directions``
    (the target directions as rows), also ``spikes`` and ``null_spikes``: one record per
    counted spike of W2 and of the null run, against the same edge (``spike_records``),
    ``s_null``, the null run's top ``top`` singular values, and ``triplets``, W2's (U, s, Vt).
    ``triplets``: W2's top ``top`` triplets if the caller has them already.
    """
    U, s, Vt = top_singular(W2, top) if triplets is None else triplets
    if len(s) != top:
        raise ValueError(f"triplets must hold the top {top} singular triplets, got {len(s)}")
    weights = power_weights(U, a, K)
    edge = off_powers_edge(W2_null, a, K)
    out = {"s": s, "weights": weights, "edge": edge, "edge_self": off_powers_edge(W2, a, K),
           "count": count_spikes(s, weights.sum(axis=1), edge)}
    if (W0 is None) != (directions is None):
        raise ValueError("W0 and directions must be given together (for the spike records)")
    if W0 is not None:
        out["triplets"] = (U, s, Vt)
        out["spikes"] = spike_records(W2, a, directions, edge, (U, s, Vt), K, base=W0)
        null_triplets = top_singular(W2_null, top)
        out["s_null"] = null_triplets[1]
        out["null_spikes"] = spike_records(W2_null, a, directions, edge, null_triplets, K,
                                           base=W0)
    return out


def spike_records(delta, a, directions, edge: float, triplets, K: int = K_POWERS,
                  margin: float = MARGIN, min_weight: float = MIN_WEIGHT,
                  uncounted: bool = False, base=None) -> list[dict]:
    """What each counted spike is (companion's census; book: dv-census, dv-expansion): one dict per
    singular value of W2 = W0 + ``delta`` that :func:`count_spikes` counts against ``edge``,
    in decreasing order, with

    * ``k``: the order of the term that made it, the power q_{k+1} of a its left vector
      leans on most (argmax of :func:`power_weights`), and ``weight``, its weight on all K
      powers;
    * ``value``: the singular value; ``strength``: :func:`separate_strengths` of ``delta``
      for that order (the part of term k that can make an outlier of its own);
    * ``cos2``: cos^2 of its right singular vector with each target direction (rows of
      ``directions``, in the order of the target string): what the spike learned.

    ``triplets`` = (U, s, Vt) of W2 (:func:`companion.top_singular`). Two counted spikes can
    share an order (a term split between them, or a heavy-tailed outlier leaning on a power):
    each is listed. ``uncounted=True`` lists instead the singular values on the powers of a
    (weight >= ``min_weight``) that the count leaves out, below the edge and its margin: a
    term at the edge still shows what it carries (E12's k = 2 spike at N = 2048).
    With ``base`` (W0), ``delta`` is W2 itself (:func:`separate_strengths`).
    """
    U, s, Vt = triplets
    weights = power_weights(U, a, K)
    on = weights.sum(axis=1)
    edge = spike_threshold(edge, margin)
    strengths = separate_strengths(delta, a, K, base)
    cos2 = cos2_with_directions(Vt, directions)
    out = []
    for i in range(len(s)):
        if on[i] >= min_weight and (s[i] > edge) != uncounted:
            k = int(np.argmax(weights[i]))
            out.append({"k": k, "value": float(s[i]), "strength": float(strengths[k]),
                        "weight": float(on[i]), "cos2": [float(c) for c in cos2[i]]})
    return out


# --- the census's detection strength and its counts over stored runs ----------------------

def bbp_detection_strength(edge: float = 2.0, margin: float = MARGIN,
                           own: float | None = None) -> float:
    """The strength the census needs in the BBP limit: against a Marchenko-Pastur bulk of
    edge 2c (N = d; c = edge / 2) a rank-one term theta sits at theta + c^2 / theta, and the
    census counts it above (1 + margin) edge, so theta / c = x + sqrt(x^2 - 1), x = 1 +
    margin: 1.22 c for the 2% margin (the BBP threshold itself is c).

    ``own``: the edge of the matrix the term is planted in, when the census counts against
    another one (``edge``, the other null run's): then c = own / 2 and theta solves
    theta + c^2 / theta = (1 + margin) edge (c itself when that lies below the own edge)."""
    x = 1.0 + positive_real(margin, "margin", allow_zero=True)
    edge = positive_real(edge, "edge")
    c = edge / 2 if own is None else positive_real(own, "own") / 2
    t = x * edge / (2 * c)
    return float(c * (t + np.sqrt(t * t - 1)) if t > 1 else c)


# -- the spikes one by one (E11) -------------------------------------------------------------
def default_step_runs(runs: Runs) -> Runs:
    """The runs with the default step constants c1 = c2 = 1, precision checks left out."""
    return sweep_runs(runs.where(c1=1.0, c2=1.0))


def spike_counts(runs: Runs, activations=None) -> dict:
    """The spike count of W2 in the stored spikes-one-by-one runs (``ts-sec-one-by-one``:
    census against the null run, the first spike included), c1 = c2 = 1, precision checks
    left out: ``{(alpha1, alpha2, activation): {"N", "seeds", "mean", "min", "max",
    "strength", "float32"}}``, one array entry per stored N (``strength``: (len N, 3), the
    mean separate strengths of the terms k = 1, 2, 3, NaN where not stored; ``float32``:
    whether that size ran in single precision), for every point and activation of ``runs`` (or only those in
    ``activations``). The chapter's prose (:func:`emergence`),
    :func:`companion.chapters.two_steps.figures.spike_emergence_counts` and the explorer's spike
    table read this one table."""
    table = {}
    for (a1, a2, act), sel in default_step_runs(runs).groups("alpha1", "alpha2",
                                                           "activation").items():
        if activations is not None and act not in activations:
            continue
        Ns = sorted(sel.unique("N"))
        counts = [sel.where(N=n).values("n_outliers") for n in Ns]
        table[(a1, a2, act)] = {
            "N": np.array(Ns), "seeds": np.array([len(c) for c in counts]),
            "mean": np.array([c.mean() for c in counts]),
            "min": np.array([c.min() for c in counts]),
            "max": np.array([c.max() for c in counts]),
            "strength": np.array([[sel.where(N=n).mean(f"strength_k{k}")
                                   if f"strength_k{k}" in sel[0].result else np.nan
                                   for k in (1, 2, 3)] for n in Ns]),
            "float32": np.array([sel.where(N=n)[0].params.get("dtype") == "float32"
                                 for n in Ns])}
    return table
