"""Experiments of the chapter "Two steps: a spiked spectrum" (book/two_steps.ipynb).

SPEC section 3.2 and experiments E3, E4, E5 and E10 (section 4). After two steps the
update is, by the companion's reconstruction (SPEC 3.2),

    W2 - W0 ~ a ubar^T + sum_k C_k a^{o(k+1)} v_k^T,

with term k of operator norm ~ N^{alpha2 - k (1/2 - alpha1)} (k >= 1) and the first spike
(k = 0) growing as N^{max(alpha1, alpha2)}. The term of order k is read off the update by
projecting it on the k-th Gram-Schmidt power of a (:func:`companion.term_sizes`), which does
not need to count outliers against the Marchenko-Pastur edge at one N (SPEC pitfall 3).

Every function takes the sizes, seeds and step-size exponents as arguments, so that a
paper-scale run can call it with larger N; the ``*_run`` functions compute one unit of work
(one parameter point, one seed) and return plain numpy arrays, the sweep functions loop over
units and stack the results in a dict. Nothing here draws a figure. All randomness comes from
:func:`companion.run_two_steps` with explicit seeds.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from ..activations import get_activation
from ..alignment import cos2_with_directions, left_overlaps, term_sizes
from ..network import run_two_steps
from ..spectra import mp_edges, singular_values, top_singular
from ..theory import lambda_count, spike_exponent
from ..validation import choice, positive_int, seed_list

BATCHES = ("reused", "fresh")


# -- small helpers ------------------------------------------------------------------------
def _Ns(Ns) -> list[int]:
    out = [positive_int(N, "N") for N in Ns]
    if len(out) < 2 or sorted(set(out)) != out:
        raise ValueError(f"Ns must be at least two increasing sizes, got {Ns!r}")
    return out


def _alphas(alphas) -> np.ndarray:
    A = np.atleast_2d(np.asarray(alphas, float))
    if A.ndim != 2 or A.shape[1] != 2:
        raise ValueError(f"alphas must be a list of (alpha1, alpha2) pairs, got {alphas!r}")
    return A


def fit_slopes(Ns: Sequence[int], sizes: np.ndarray) -> np.ndarray:
    """Least-squares slope of log(size) against log(N) along axis 0 of ``sizes``.

    ``sizes`` has shape (len(Ns), ...); the result has the remaining shape. This is the
    growth exponent the chapter compares with ``spike_exponent`` (SPEC 4, E4).
    """
    x = np.log(np.asarray(Ns, float))
    y = np.log(np.asarray(sizes, float))
    xc = x - x.mean()
    y2 = y.reshape(len(x), -1)
    slope = xc @ (y2 - y2.mean(axis=0)) / (xc @ xc)
    return slope.reshape(y.shape[1:])


# -- theory helper ------------------------------------------------------------------------
def term_exists(k: int, activation="tanh", batch: str = "reused", tol: float = 1e-8) -> bool:
    """Whether the spike term of order k has a nonzero leading coefficient, whatever its size
    (companion derivation, SPEC 3.2). k = 0 (the first spike, m_1) always counts as present.

    With a fresh batch term k carries the factor m_{k+1} = E sigma^(k+1)(zeta); with a reused
    batch it carries m_{k+1} and the kappa_{k,r} = E[sigma^(k+1) sigma'^r], r = 1..k. For an
    odd activation (tanh, erf) every sigma^(k+1) with k odd is odd, so all these moments
    vanish and only even k exist. The kappa need derivatives of order k + 1; beyond the
    activation's available derivatives only m_{k+1} is checked.
    """
    if k == 0:
        return True
    act = get_activation(activation)
    batch = choice(batch, "batch", BATCHES)
    coefs = [act.m(k + 1)]
    if batch == "reused" and k + 1 <= len(act.derivatives):
        coefs += [act.kappa(k, r) for r in range(1, k + 1)]
    return max(abs(c) for c in coefs) > tol


def present_terms(alpha1: float, alpha2: float, activation="tanh", batch: str = "reused",
                  tol: float = 1e-8) -> list[int]:
    """Orders k = 1..Lambda whose spike term exists (:func:`term_exists`): the spikes the
    second step adds for this activation. W2 then has 1 + len(present_terms) outliers, not
    1 + Lambda; for tanh that is 1 + floor(Lambda / 2). Lambda is capped by the degree of a
    polynomial activation (``Activation.degree``).
    """
    act = get_activation(activation)
    lam = lambda_count(alpha1, alpha2, act.degree)
    return [k for k in range(1, lam + 1) if term_exists(k, act, batch, tol)]


def separate_strengths(delta, a, K: int) -> np.ndarray:
    """Strength of each spike term as a *separate* outlier (companion's diagnostic, E10).

    With q_1..q_K the Gram-Schmidt powers of a (left), the rows r_j = q_j^T Delta are the
    terms of :func:`companion.term_sizes`. Part of a higher term's row can be parallel (in
    R^d) to the rows before it: that part only tilts the earlier spike's left vector. The
    strength that can make its own outlier is the norm of the part of r_j orthogonal to
    the span of r_1..r_{j-1} (by least squares, so that a zero row removes nothing). For N = d a
    rank-one term of strength theta leaves the bulk iff theta > 1, at theta + 1/theta
    (Benaych-Georges & Nadakuditi 2012; SPEC 3.1). May belong in companion.alignment.
    """
    from ..alignment import a_power_basis

    R = a_power_basis(a, positive_int(K, "K")).T @ np.asarray(delta, float)
    out = np.empty(len(R))
    for j, row in enumerate(R):
        if j:
            # least squares: a zero (absent) earlier row removes nothing
            coef = np.linalg.lstsq(R[:j].T, row, rcond=None)[0]
            row = row - R[:j].T @ coef
        out[j] = np.linalg.norm(row)
    return out


def leading_order_sizes(run, K: int) -> np.ndarray:
    """The companion's leading-order prediction of each term size, from the run's own data
    (SPEC 3.2): entry k is ||q_{k+1}^T C_k a^{o(k+1)} v_k^T|| = C_k |<q_{k+1}, a^{o(k+1)}>|
    ||v_k||, to compare with ``term_sizes(W2 - W0, a, K)``.

    k = 0: the first spike a ubar^T with ubar = (eta1 + eta2) m1 u1 (reused) or
    m1 (eta1 u1 + eta2 u2) (fresh), u_t = X_t^T y_t / n.
    k >= 1, fresh: C_k = eta2 (eta1 m1)^k m_{k+1} / k!, v_k = X2^T (y2 o h^k) / n, h = X2 u1.
    k >= 1, reused: C_k = eta2 eta1^k / k!, v_k = X1^T (y1 o p_k(y1/psi, m1 h)) / n with
    h = X1 u1 and p_k(t, s) = sum_r binom(k, r) kappa_{k,r} t^r s^(k-r) (kappa_{k,0} = m_{k+1}).
    Needs derivatives of order K of the activation (tanh: up to K = 7).
    """
    from math import comb, factorial

    from ..alignment import a_power_basis

    K = positive_int(K, "K")
    act = run.activation
    m1 = act.m(1)
    Q = a_power_basis(run.a, K)
    n, d = run.X1.shape
    u1 = run.X1.T @ run.y1 / n
    out = np.empty(K)
    if run.batch == "reused":
        ubar = (run.eta1 + run.eta2) * m1 * u1
        X, y = run.X1, run.y1
    else:
        ubar = m1 * (run.eta1 * u1 + run.eta2 * (run.X2.T @ run.y2 / n))
        X, y = run.X2, run.y2
    out[0] = abs(Q[:, 0] @ run.a) * np.linalg.norm(ubar)
    s = m1 * (X @ u1)
    t = y * (d / n)
    for k in range(1, K):
        if run.batch == "reused":
            p = sum(comb(k, r) * (act.m(k + 1) if r == 0 else act.kappa(k, r))
                    * t ** r * s ** (k - r) for r in range(k + 1))
            C = run.eta2 * run.eta1 ** k / factorial(k)
        else:
            p = (X @ u1) ** k
            C = run.eta2 * (run.eta1 * m1) ** k * act.m(k + 1) / factorial(k)
        v = X.T @ (y * p) / n
        out[k] = abs(C * (Q[:, k] @ run.a ** (k + 1))) * np.linalg.norm(v)
    return out


def bbp_position(theta, phi: float = 1.0):
    """Outlier position of W0 + theta u v^T for N = d (phi = 1): theta + 1/theta if
    theta > 1, else the bulk edge 2 (SPEC 3.1; the general phi is
    :func:`companion.spiked_rectangular`)."""
    if phi != 1.0:
        raise ValueError("bbp_position is written for phi = N/d = 1; use cp.spiked_rectangular")
    theta = np.asarray(theta, float)
    return np.where(theta > 1, theta + 1 / np.maximum(theta, 1e-300), 2.0)


# -- E3, E4, E5: one sweep over sizes, seeds and step-size exponents ----------------------
def two_step_run(N: int, alpha1: float, alpha2: float, seed: int, K: int = 4,
                 batch: str = "reused", activation="tanh", target="he1", noise: float = 0.0,
                 reference: bool = True, null_labels: bool = False) -> dict:
    """One unit of work: one two-step run summarized by a few numbers.

    * ``terms`` (K,): ||q_j^T (W2 - W0)|| on the Gram-Schmidt powers q_1..q_K of a; entry k
      is the spike term of order k, left vector a^{o(k+1)} (SPEC 3.2, E4);
    * ``separate`` (K,): :func:`separate_strengths`, the part of each term that can make an
      outlier of its own; ``leading`` (K,): :func:`leading_order_sizes`, the leading-order
      prediction of each term size from the run's own data;
    * with ``reference=True``, also ``diff`` = ||W2 - W_ref||_op and ``ref`` =
      ||W_ref - W0||_op, where W_ref = W0 + (eta1 + eta2) G(W0; X1, y1) is the one-step
      reference (SPEC 3.2, E5); operator norms by Lanczos.
    """
    run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch=batch, activation=activation,
                        target=target, noise=noise, seed=seed, null_labels=null_labels)
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


def two_step_sweep(Ns: Iterable[int], seeds, alphas, K: int = 4, batch: str = "reused",
                   activation="tanh", target="he1", noise: float = 0.0,
                   reference=True) -> dict:
    """Term sizes and the distance to the one-step reference against N, for several
    (alpha1, alpha2) pairs (SPEC 4: E3, E4, E5).

    Returns a dict (P pairs, nN sizes, nS seeds, K orders k = 0..K-1):

    * ``Ns`` (nN,), ``seeds`` (nS,), ``alphas`` (P, 2), ``k`` (K,), ``batch``, ``activation``;
    * ``sizes`` (P, nN, nS, K): the term sizes of each run (:func:`two_step_run`);
      ``separate`` (P, nN, nS, K): the strengths of :func:`separate_strengths`;
      ``leading`` (P, nN, nS, K): :func:`leading_order_sizes` (absent terms give 0);
    * ``slope`` (P, nS, K): per seed, the least-squares slope of log size against log N over
      all ``Ns``; ``slope_last`` (P, nS, K): the slope between the two largest N only (the
      local exponent at the largest size);
    * ``theory`` (P, K): ``spike_exponent(alpha1, alpha2, k)``;
    * ``lambda_`` (P,): Lambda(alpha1, alpha2), capped by a polynomial activation's degree;
    * ``present`` (P, K) bool: k = 0 or k in :func:`present_terms` (k <= Lambda and the term
      exists); ``exists`` (K,) bool: :func:`term_exists` (nonzero coefficient, whatever
      the sign of its exponent; an absent term leaves only the noise floor of the
      projection);
    * ``diff`` and ``ref`` (P, nN, nS), the operator norms ||W2 - W_ref|| and
      ||W_ref - W0||, and ``rel_diff`` = diff / ref: computed for every pair with
      ``reference=True``, for none with ``False``, or only for the (alpha1, alpha2) pairs in
      a list given as ``reference`` (NaN elsewhere; the reference costs one more gradient
      and two Lanczos runs per unit).
    """
    Ns, seeds, A = _Ns(Ns), seed_list(seeds), _alphas(alphas)
    K = positive_int(K, "K")
    batch = choice(batch, "batch", BATCHES)
    act = get_activation(activation)
    shape = (len(A), len(Ns), len(seeds))
    sizes = np.empty(shape + (K,))
    separate = np.empty(shape + (K,))
    leading = np.empty(shape + (K,))
    diff, ref = np.full(shape, np.nan), np.full(shape, np.nan)
    if isinstance(reference, (bool, np.bool_)):
        with_ref = [bool(reference)] * len(A)
    else:
        wanted = _alphas(reference)
        with_ref = [bool(np.any(np.all(np.isclose(wanted, pair), axis=1))) for pair in A]
    for p, (a1, a2) in enumerate(A):
        for i, N in enumerate(Ns):
            for j, s in enumerate(seeds):
                r = two_step_run(N, a1, a2, s, K, batch, act, target, noise, with_ref[p])
                sizes[p, i, j] = r["terms"]
                separate[p, i, j] = r["separate"]
                leading[p, i, j] = r["leading"]
                if with_ref[p]:
                    diff[p, i, j], ref[p, i, j] = r["diff"], r["ref"]
    present = np.zeros((len(A), K), bool)
    present[:, 0] = True
    for p, (a1, a2) in enumerate(A):
        present[p, [k for k in present_terms(a1, a2, act, batch) if k < K]] = True
    out = {
        "Ns": np.array(Ns), "seeds": np.array(seeds), "alphas": A, "k": np.arange(K),
        "batch": batch, "activation": act.name,
        "sizes": sizes, "separate": separate, "leading": leading,
        "slope": fit_slopes(Ns, np.moveaxis(sizes, 1, 0)),
        "slope_last": np.log(sizes[:, -1] / sizes[:, -2]) / np.log(Ns[-1] / Ns[-2]),
        "theory": np.array([[spike_exponent(a1, a2, k) for k in range(K)] for a1, a2 in A]),
        "lambda_": np.array([lambda_count(a1, a2, act.degree) for a1, a2 in A]),
        "present": present,
        "exists": np.array([term_exists(k, act, batch) for k in range(K)]),
    }
    out.update(diff=diff, ref=ref, rel_diff=diff / ref)
    return out


def fresh_relative_difference(alpha1: float, alpha2: float, N, mu_star: float = 1.0,
                              second_moment: float = 1.0, psi: float = 1.0, c1: float = 1.0,
                              c2: float = 1.0):
    """Limit of ||W2 - W_ref||_op / ||W_ref - W0||_op for a fresh batch (companion
    derivation, SPEC 3.2 and 3.3; E5).

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
                       full_null: bool = False) -> dict:
    """Spectrum of W2 and of a null run, and what their top singular vectors are (E10).

    The null run has the same seed, sizes and step sizes, and labels of an independent
    sample of the same distribution (``run_two_steps(..., null_labels=True)``): heavy tails
    included, no dependence on the inputs (SPEC pitfall 3). For each of the two runs
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

    Also ``edge`` (the Marchenko-Pastur edge 1 + sqrt(N/d)), ``phi``, ``lambda_`` and
    ``present_terms`` (the orders k >= 1 this activation has).
    """
    out = {}
    for suffix, null in (("", False), ("_null", True)):
        run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch=batch,
                            activation=activation, target=target, noise=noise, seed=seed,
                            null_labels=null)
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
    out["lambda_"] = lambda_count(alpha1, alpha2, get_activation(activation).degree)
    out["present_terms"] = present_terms(alpha1, alpha2, activation, batch)
    return out
