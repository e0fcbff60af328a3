"""A finite-N prediction of every spike term: the saturation-aware mean field
(companion derivation, book: dv-finite-n; not a statement of the paper).

The leading-order expansion (:mod:`companion.core.expansion`) Taylor-expands sigma'(zeta + delta)
in the first-step shift delta_ji = eta1 a_j t_ji. At the sizes the book runs, eta1 |a_j| t
is of order one for many neurons, sigma' saturates and the expansion overshoots the term
sizes 4 to 10 times. Here sigma' is instead averaged over the randomness the shift does not
fix, at the exact shift:

    t_ji = s_i + sigma'(zeta_ji) y_i / psi + xi_ji,    s_i = m1 h_i,
    Phi(c; s, y) = E_{zeta, xi} sigma'(zeta + c (s + sigma'(zeta) y / psi + xi)),

zeta ~ N(0, 1) the neuron's pre-activation, xi ~ N(0, Var sigma'(zeta) E[y^2] / psi) the
part of the other samples' first gradient that sigma' - m1 leaves, h_i the leave-one-out
field (:func:`companion.core.expansion.leave_one_out_field`), c = eta1 a_j. The row of term k,
q_{k+1}^T (W2 - W0) (q: Gram-Schmidt powers of a), is then (1/n) X^T v_k with

    v_k = y (eta1 m1 [k = 0] + eta2 B_k(s, y)),   B_k(s, y) = E_g[P_{k+1}(g) g Phi(eps g; s, y)],

a_j = g_j / sqrt(N), eps = eta1 / sqrt(N), P_1, P_2, ... the Gram-Schmidt orthonormal
functions of g, g^2, ... under N(0, 1). The rows' inner products follow from Gaussian
integration by parts over each sample:

    <r_k, r_l> = sum_m E[v_k z_m] E[v_l z_m] + E[v_k nu] E[v_l nu] + E[v_k v_l] / psi,

z_m = <beta*_m, x>, nu the unit part of h along the noise of u1 (h = mu* . z + omega nu,
omega^2 = E[y^2] / psi). To these the neurons' own fluctuations around Phi add a floor,
a Gram matrix E[P_k P_l g^2 y^2 Var_{zeta, xi}(eta1 sigma'(zeta) + eta2 sigma'(zeta + c t))]
/ (psi N). The separate strengths (:func:`companion.core.spikes.separate_strengths`) are the
diagonal of the Cholesky factor of the sum.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.polynomial import hermite_e

from companion.core.activations import get_activation
from companion.core.network import BATCHES, step_size
from companion.core.targets import Target, target_moments
from companion.core.validation import alpha_exponent, choice, positive_int, positive_real

#: quadrature nodes: the second layer's g, the pre-activation zeta, the remainder xi
G_NODES, ZETA_NODES, XI_NODES = 32, 24, 8
#: nodes per dimension of the quadrature over a sample (z_1..z_m, nu), by the number m of
#: target directions (more nodes move the strengths by at most 0.2%; He_3's cos^2, which
#: lives in the labels' tails, moves from 0.041 with 12 nodes to 0.050 with 20 and 30)
SAMPLE_NODES = {1: 40, 2: 20}
#: for more directions
SAMPLE_NODES_MANY = 10
#: points of the product rules whose weight is below this fraction of the largest are left
#: out: the far tails, where weight times the integrand's polynomial growth is negligible
#: (tests/core/test_finite_n.py compares every result with the full rule)
NEGLIGIBLE_WEIGHT = 1e-16


@lru_cache(maxsize=16)
def _gauss(order: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Hermite nodes and weights for E f(zeta), zeta ~ N(0, 1)."""
    x, w = hermite_e.hermegauss(order)
    return x, w / np.sqrt(2.0 * np.pi)


def power_functions(g, K: int, weights) -> np.ndarray:
    """(K, len(g)) values of P_1..P_K, the Gram-Schmidt orthonormalization of g, g^2, ...,
    g^K under the quadrature ``weights`` (the population version of
    :func:`companion.a_power_basis`: q_{k,j} ~ P_k(g_j) / sqrt(N) with a_j = g_j / sqrt(N))."""
    P = np.stack([g ** (j + 1) for j in range(K)])
    out = np.empty_like(P)
    for j in range(K):
        v = P[j].copy()
        for i in range(j):
            v -= np.sum(weights * v * out[i]) * out[i]
        out[j] = v / np.sqrt(np.sum(weights * v * v))
    return out


def _sample_grid(target: Target, psi: float, m1: float, per: int, null: bool = False):
    """Quadrature over one sample: (weights, y, s, features) with features the columns
    z_1..z_m and nu; s = m1 h, h = mu* . z + omega nu (null: h = omega nu, the labels
    carry no z)."""
    m = len(target.links)
    x, w = _gauss(per)
    grids = np.meshgrid(*([x] * (m + 1)), indexing="ij")
    wts = np.ones_like(grids[0])
    for wg in np.meshgrid(*([w] * (m + 1)), indexing="ij"):
        wts = wts * wg
    keep = wts.ravel() > NEGLIGIBLE_WEIGHT * wts.max()
    feats = np.stack([gr.ravel()[keep] for gr in grids], axis=1)     # (P, m + 1)
    wts = wts.ravel()[keep]
    y = sum(link(feats[:, i]) for i, link in enumerate(target.links))
    omega = np.sqrt(target.second_moment / psi)
    h = omega * feats[:, m] + (0.0 if null else feats[:, :m] @ target.mu_star)
    if target.noise > 0:        # label noise: one more Gaussian dimension folded into y
        xe, we = _gauss(8)
        wts = (wts[:, None] * we[None]).ravel()
        y = (y[:, None] + target.noise * xe[None]).ravel()
        h = np.repeat(h, len(xe))
        feats = np.repeat(feats, len(xe), axis=0)
    return wts, y, m1 * h, feats


def predicted_terms(N: int, alpha1: float, alpha2: float, activation="tanh", target="he1",
                    K: int = 5, psi: float = 1.0, c1: float = 1.0, c2: float = 1.0,
                    batch: str = "reused", floor: bool = True, null: bool = False,
                    sample_nodes: int | None = None) -> dict:
    """The saturation-aware mean-field prediction of the spike terms of W2 - W0 at width N
    (book: dv-finite-n), N = d, n = psi d, eta_t = c_t N^alpha_t.

    Returns ``strength`` (K,): the predicted separate strength of each term k = 0..K-1
    (what :func:`companion.core.spikes.separate_strengths` measures; with ``floor=True`` the
    neurons' fluctuations are included, else only the mean field); ``signal`` and
    ``floor`` (K,): the strengths of the mean field alone and of the fluctuations alone;
    ``cos2`` (K, m): the predicted cos^2 of each term's own part (orthogonal to the earlier
    terms) with each target direction, before the BBP loss of overlap; ``gram`` (K, K) the
    rows' Gram matrix; ``eta1``, ``eta2``. ``null=True`` predicts the null run (labels of an
    independent sample: same distribution, mu* = 0 and no z in the rows): its terms keep
    the parts of the rows that do not depend on what the labels say about x. ``target`` is a
    target string or a
    :class:`~companion.core.targets.Target`; ``sample_nodes``: Gauss-Hermite nodes per dimension
    of a sample (default :data:`SAMPLE_NODES`).

    ``batch="fresh"`` (the second step on an independent batch of the same size): the shift
    has no self term (t = s + xi), the first batch's eta1 m1 u1 enters row 0 as
    mu* . beta* + omega e with e the direction of u1's noise (the direction nu of the
    second batch's field h), and the two batches' fluctuations add in the floor. Checked
    against a direct simulation at N = 512 only (tests/core/test_finite_n.py: tanh and
    tanh(z + 1/2), He_1 and He_1 + He_3, two seeds): k = 0 within 3%, k = 1 within 8%, k = 2
    within 25%, the floor-only k = 3 35 to 55% high. ``null`` is derived for the reused
    batch only.

    Measured against the stored runs (E4, E11;
    :func:`companion.chapters.two_steps.prediction.prediction_errors`):
    median relative error of the terms k >= 1 above 1.5 times their floor 3.0% (tanh, 15
    terms), 0.8% (tanh(z + 1/2), 21) and 1.2% (GELU, 6), largest 6.2%; tanh's odd orders,
    floor only, within a few percent; at the floor (k = 3, 4) up to 31% high.
    """
    N = positive_int(N, "N")
    alpha1, alpha2 = alpha_exponent(alpha1, "alpha1"), alpha_exponent(alpha2, "alpha2")
    K = positive_int(K, "K")
    psi = positive_real(psi, "psi")
    fresh = choice(batch, "batch", BATCHES) == "fresh"
    if fresh and null:
        raise ValueError("null: the null run's prediction is derived for the reused batch only")
    nodes = None if sample_nodes is None else positive_int(sample_nodes, "sample_nodes")
    args = (N, alpha1, alpha2, activation, target, max(K, _CACHED_K), psi, float(c1),
            float(c2), bool(floor), bool(null), nodes, fresh)
    if isinstance(activation, str) and isinstance(target, str):
        full = _cached_terms(*args)         # names only: a user's object may be mutable
    else:
        full = _terms(*args)
    return _first_terms(full, K)


#: terms computed by every (cached) call: term k does not depend on how many come after it
#: (the powers are orthonormalized in order and the strengths read off a Cholesky factor)
_CACHED_K = 8


def _first_terms(full: dict, K: int) -> dict:
    """The first K terms of a :func:`_terms` result, as fresh arrays."""
    out = {key: np.array(full[key][:K]) for key in ("strength", "signal", "floor", "cos2")}
    out["gram"] = np.array(full["gram"][:K, :K])
    out.update(eta1=full["eta1"], eta2=full["eta2"])
    return out


@lru_cache(maxsize=512)
def _cached_terms(*args) -> dict:
    return _terms(*args)


def _terms(N, alpha1, alpha2, activation, target, K, psi, c1, c2, floor, null,
           sample_nodes, fresh=False) -> dict:
    """:func:`predicted_terms` on checked arguments."""
    act = get_activation(activation)
    if not act.smooth:
        raise ValueError(f"activation: the mean field needs a smooth activation, got {act.name}")
    # only the links, mu* and the moments of y matter, not the directions
    tgt = target if isinstance(target, Target) else target_moments(target)
    eta1, eta2 = step_size(N, alpha1, c1), step_size(N, alpha2, c2)
    eps = eta1 / math.sqrt(N)                 # N may exceed int64 (2^80 is fine)
    m1 = act.m(1)
    prime = lambda z: act.derivative(z, 1)                           # noqa: E731
    zeta, wz = _gauss(ZETA_NODES)
    var_prime = float(np.sum(wz * prime(zeta) ** 2) - m1 * m1)
    xi, wx = _gauss(XI_NODES)
    xi = xi * np.sqrt(var_prime * tgt.second_moment / psi)
    g, wg = _gauss(G_NODES)
    tails = wg <= NEGLIGIBLE_WEIGHT * wg.max()
    g, wg = g[~tails], wg[~tails]
    P = power_functions(g, K, wg)                                    # (K, G)
    per = (SAMPLE_NODES.get(len(tgt.links), SAMPLE_NODES_MANY) if sample_nodes is None
           else sample_nodes)
    ws, y, s, feats = _sample_grid(tgt, psi, m1, per, null)
    sp = prime(zeta)                                                 # sigma'(zeta)
    # the second step's pre-activation is zeta + c t with t = s + sigma'(zeta) y / psi + xi:
    # t on the grid (samples, zeta x xi) once, then one pass per node g of c = eps g
    w2 = (wz[:, None] * wx[None, :]).ravel()                         # (Z X,) weights
    zeta_col = np.repeat(zeta, len(xi))
    sp_col = np.repeat(sp, len(xi))
    # fresh: the second batch's samples were not in the first gradient, so no self term
    self_term = 0.0 if fresh else sp_col[None, :] * (y / psi)[:, None]
    t = s[:, None] + self_term + np.tile(xi, len(zeta))[None, :]
    mean_sp, mean_sp2 = float(w2 @ sp_col), float(w2 @ sp_col ** 2)
    wy2 = ws * y * y
    phis = np.empty((len(g), len(y)))                                # Phi(eps g; s, y)
    var_y2 = np.zeros(len(g))          # E over samples of y^2 Var(eta1 sigma' + eta2 sigma'(.))
    arg = np.empty_like(t)
    for gi, gv in enumerate(g):
        np.multiply(t, eps * gv, out=arg)
        arg += zeta_col
        second = act.prime_inplace(arg)                              # sigma'(zeta + c t)
        phis[gi] = second @ w2
        if floor:
            cross = second @ (w2 * sp_col)
            sq = np.square(second, out=second) @ w2
            if fresh:      # two independent batches: their fluctuations add
                var = (eta1 * eta1 * (mean_sp2 - mean_sp * mean_sp)
                       + eta2 * eta2 * (sq - phis[gi] * phis[gi]))
            else:
                mean = eta1 * mean_sp + eta2 * phis[gi]
                var = (eta1 * eta1 * mean_sp2 + 2 * eta1 * eta2 * cross + eta2 * eta2 * sq
                       - mean * mean)
            var_y2[gi] = var @ wy2
    B = (P * (wg * g)) @ phis                                        # (K, samples)
    v = eta2 * y[None, :] * B
    if fresh:
        # row 0 also holds eta1 m1 u1 from the first batch: u1 = mu* . beta* + omega e with e
        # the unit direction of its noise, the direction nu of the second batch's field h
        # reads; its own noise is that e, not a noise independent of the second batch's
        moments = (v * ws) @ feats                                   # (K, m + 1)
        moments[0, :-1] += eta1 * m1 * tgt.mu_star
        moments[0, -1] += eta1 * m1 * np.sqrt(tgt.second_moment / psi)
    else:
        v[0] += eta1 * m1 * y
        moments = (v * ws) @ feats                                   # (K, m + 1)
    if null:
        moments[:, :-1] = 0.0
    gram_signal = moments @ moments.T + (v * ws) @ v.T / psi
    gram_floor = (P * (wg * g * g * var_y2)) @ P.T / (psi * N)
    gram = gram_signal + (gram_floor if floor else 0.0)
    return {"strength": _cholesky_diagonal(gram), "signal": _cholesky_diagonal(gram_signal),
            "floor": np.sqrt(np.clip(np.diag(gram_floor), 0, None)),
            "cos2": _own_cos2(moments, gram), "gram": gram, "eta1": eta1, "eta2": eta2}


def _cholesky_diagonal(gram: np.ndarray) -> np.ndarray:
    """Norm of each row's part orthogonal to the rows before it, from their Gram matrix
    (a row with nothing new gives 0, as :func:`companion.core.spikes.separate_strengths`)."""
    K = len(gram)
    out = np.zeros(K)
    for k in range(K):
        prev = gram[:k, :k]
        b = gram[:k, k]
        coef = np.linalg.lstsq(prev, b, rcond=None)[0] if k else np.zeros(0)
        out[k] = np.sqrt(max(gram[k, k] - b @ coef, 0.0))
    return out


def _own_cos2(moments: np.ndarray, gram: np.ndarray) -> np.ndarray:
    """cos^2 of each row's own part (orthogonal to the earlier rows) with each target
    direction: the component of that part along beta*_m over its norm, squared."""
    K, m = moments.shape[0], moments.shape[1] - 1
    out = np.zeros((K, m))
    for k in range(K):
        coef = np.linalg.lstsq(gram[:k, :k], gram[:k, k], rcond=None)[0] if k else np.zeros(0)
        along = moments[k, :m] - coef @ moments[:k, :m] if k else moments[k, :m]
        norm2 = gram[k, k] - (gram[:k, k] @ coef if k else 0.0)
        out[k] = along ** 2 / norm2 if norm2 > 0 else 0.0
    return out


def predicted_crossing(alpha1: float, alpha2: float, activation="shifted_tanh", k: int = 2,
                       threshold: float = 1.0, target="he1", rel_error: float = 0.06,
                       log2_N=(8, 20), signal_only: bool = False, **kw) -> dict:
    """The width N at which the predicted separate strength of term ``k``
    (:func:`predicted_terms`; with ``signal_only`` its mean field alone, the part that is
    not the fluctuation floor) first reaches ``threshold``, and an interval for it: the N at
    which the prediction times (1 + ``rel_error``) and (1 - ``rel_error``) reach it
    (``rel_error``: the prediction's largest error above the floor on the stored runs,
    about 6%). Evaluated on N = 2^j for j in ``log2_N`` (inclusive) and interpolated
    log-linearly; ``inf`` where it is not reached by the largest N. Returns ``N``, ``low``,
    ``high`` and the grid ``Ns``, ``strength`` (evaluated upwards from the smallest N until
    every crossing is reached: the strength grows with N). For N = d = n; ``kw`` go to
    :func:`predicted_terms` (e.g. ``c1``, ``c2``)."""
    threshold = positive_real(threshold, "threshold")
    rel_error = positive_real(rel_error, "rel_error", allow_zero=True)
    if not 0 <= int(k) < 8:
        raise ValueError(f"k must be an order 0..7, got {k!r}")
    lo, hi = int(log2_N[0]), int(log2_N[1])
    if not 1 <= lo < hi:
        raise ValueError(f"log2_N must be (low, high) with 1 <= low < high, got {log2_N!r}")
    key = "signal" if signal_only else "strength"
    values = []
    for N in 2.0 ** np.arange(lo, hi + 1):      # upwards, until the last crossing is reached
        values.append(predicted_terms(int(N), alpha1, alpha2, activation, target,
                                      K=int(k) + 1, **kw)[key][int(k)])
        if values[-1] * (1.0 - rel_error) >= threshold:
            break
    strength = np.array(values)
    Ns = 2.0 ** np.arange(lo, lo + len(values))

    def first(factor: float) -> float:
        s = np.log(np.maximum(strength * factor, 1e-300))
        above = np.flatnonzero(s >= np.log(threshold))
        if not len(above):
            return float("inf")
        i = int(above[0])
        if i == 0:
            return float(Ns[0])
        t = (np.log(threshold) - s[i - 1]) / (s[i] - s[i - 1])
        return float(np.exp(np.log(Ns[i - 1]) + t * (np.log(Ns[i]) - np.log(Ns[i - 1]))))

    return {"N": first(1.0), "low": first(1.0 + rel_error), "high": first(1.0 - rel_error),
            "Ns": Ns.astype(int), "strength": strength}
