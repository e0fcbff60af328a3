"""The companion's leading-order expansion of the two-step update, evaluated on a run's own
data (book: dv-expansion; a derivation of this companion, not a statement of the paper).

After the first step the pre-activation of neuron j on sample i has moved by
delta_ji = eta1 a_j t_ji with

    t_ji = m1 h^(-i)_i + sigma'(<w0_j, x_i>) y_i / psi + xi_ji,

where the second part is the *self term* (reused batch only: sample i sees its own
contribution to the first gradient), xi is a remainder of mean zero, and h^(-i) is the
*leave-one-out field* h^(-i)_i = <u1^(-i), x_i>, u1^(-i) = u1 minus sample i's own share.
Expanding sigma' in the second gradient in powers of delta gives

    W2 ~ W0 + a ubar^T + sum_{k >= 1} C_k a^{o(k+1)} v_k^T.
"""

from __future__ import annotations

from math import comb, factorial

import numpy as np

from companion.core.activations import get_activation
from companion.core.alignment import a_power_basis
from companion.core.targets import target_moments
from companion.core.validation import finite_array, positive_int


def leave_one_out_field(X, y) -> np.ndarray:
    """h^(-i)_i = (X u1)_i - y_i ||x_i||^2 / n with u1 = X^T y / n (book: dv-leave-one-out).

    X u1 already contains sample i's own term y_i ||x_i||^2 / n (about y_i / psi); the
    expansion needs the field of the other samples only. Using X u1 counts the self term
    twice, once here and once in the sigma' y / psi part of t_ji (measured at N = 1000,
    tanh, He_1, (0.35, 0.45): the leading-order T_2 is 41.4 with X u1 and 23.8 with h^(-i),
    against 3.19 in the simulation).
    """
    X = finite_array(X, "X", 2)
    y = finite_array(y, "y", 1)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y must have n = {X.shape[0]} entries to match X, got {y.shape[0]}")
    n = X.shape[0]
    return X @ (X.T @ y / n) - y * np.einsum("ij,ij->i", X, X) / n


def term_vectors(run, K: int) -> tuple[np.ndarray, np.ndarray]:
    """The leading-order terms of a run (book: dv-expansion): (C, V) with C (K,) the coefficients
    and V (K, d) the right vectors, entry k the term C_k a^{o(k+1)} v_k^T (k = 0: the first spike,
    C_0 = 1 and v_0 = ubar).

    * k = 0: ubar = (eta1 + eta2) m1 u1 (reused) or m1 (eta1 u1 + eta2 u2) (fresh),
      u_t = X_t^T y_t / n.
    * k >= 1, fresh: C_k = eta2 (eta1 m1)^k m_{k+1} / k!, v_k = X2^T (y2 o h^k) / n with
      h = X2 u1 (independent of the second batch: no self term).
    * k >= 1, reused: C_k = eta2 eta1^k / k!, v_k = X1^T (y1 o p_k(y1 / psi, m1 h)) / n
      with h the leave-one-out field (:func:`leave_one_out_field`) and
      p_k(t, s) = sum_r binom(k, r) kappa_{k,r} t^r s^(k-r) (kappa_{k,0} = m_{k+1}).

    Needs derivatives of order K of the activation (tanh: up to K = 7).
    """
    K = positive_int(K, "K")
    act = run.activation
    m1 = act.m(1)
    n, d = run.X1.shape
    u1 = run.X1.T @ run.y1 / n
    C, V = np.empty(K), np.empty((K, d))
    if run.batch == "reused":
        C[0], V[0] = 1.0, (run.eta1 + run.eta2) * m1 * u1
        X, y = run.X1, run.y1
        s = m1 * leave_one_out_field(X, y)
        t = y * (d / n)
    else:
        C[0], V[0] = 1.0, m1 * (run.eta1 * u1 + run.eta2 * (run.X2.T @ run.y2 / n))
        X, y = run.X2, run.y2
        h = X @ u1
    for k in range(1, K):
        if run.batch == "reused":
            p = sum(comb(k, r) * (act.m(k + 1) if r == 0 else act.kappa(k, r))
                    * t ** r * s ** (k - r) for r in range(k + 1))
            C[k] = run.eta2 * run.eta1 ** k / factorial(k)
        else:
            p = h ** k
            C[k] = run.eta2 * (run.eta1 * m1) ** k * act.m(k + 1) / factorial(k)
        V[k] = X.T @ (y * p) / n
    return C, V


def leading_order_sizes(run, K: int) -> np.ndarray:
    """The leading-order prediction of each term size from the run's own data: entry k is
    ||q_{k+1}^T C_k a^{o(k+1)} v_k^T|| = |C_k <q_{k+1}, a^{o(k+1)}>| ||v_k||, to compare with
    ``companion.term_sizes(W2 - W0, a, K)`` (q: the Gram-Schmidt powers of a)."""
    C, V = term_vectors(run, K)
    Q = a_power_basis(run.a, K)
    powers = np.stack([run.a ** (k + 1) for k in range(K)], axis=1)
    return np.abs(C * np.einsum("ik,ik->k", Q, powers)) * np.linalg.norm(V, axis=1)


def leading_order_constants(target="he1", activation="tanh", K: int = 4, psi: float = 1.0,
                            batch: str = "reused", nodes: int = 40) -> np.ndarray:
    """The constants c_k of the leading-order term sizes in the population
    (book: dv-leading-order; a derivation of this companion): with c1 = c2 = 1 the term
    k >= 1 of :func:`term_vectors` has the size

        ||q_{k+1}^T C_k a^{o(k+1)} v_k^T||  ~  c_k N^(alpha2 - k (1/2 - alpha1)),

    c_k = sqrt(r_k) / k! * sqrt(||E[x w]||^2 + E[w^2] / psi), where r_k is the second
    moment of g^(k+1) left after projecting it on g, ..., g^k (g ~ N(0, 1): what the
    Gram-Schmidt powers of a keep, 6 for k = 2) and w = y p_k(y / psi, m1 h) (reused) or
    w = y m_{k+1} (m1 h)^k (fresh), the field h = mu* . z + sqrt(E[y^2] / psi) xi with xi
    ~ N(0, 1) independent. Every expectation is a Gauss-Hermite sum over the target's
    directions and xi (``nodes`` per dimension). The reused batch's self term,
    kappa_{k,r} (y / psi)^r, brings E[y^(2k+2)]: the k = 2 constant of He_1 + He_3 is
    dominated by He_3's E[y^6]. Entry 0 is 0 (the first spike grows as N^alpha, not by
    this rule)."""
    K = positive_int(K, "K")
    act = get_activation(activation)
    tgt = target_moments(target)
    m = len(tgt.links)
    x, w = np.polynomial.hermite_e.hermegauss(positive_int(nodes, "nodes"))
    w = w / np.sqrt(2 * np.pi)
    grids = np.meshgrid(*([x] * (m + 1)), indexing="ij")
    weight = np.prod(np.meshgrid(*([w] * (m + 1)), indexing="ij"), axis=0).ravel()
    z = [g.ravel() for g in grids[:m]]
    xi = grids[m].ravel()
    y = sum(link(zj) for link, zj in zip(tgt.links, z))
    h = sum(mu * zj for mu, zj in zip(tgt.mu_star, z)) + np.sqrt(tgt.second_moment / psi) * xi
    m1 = act.m(1)
    out = np.zeros(K)
    for k in range(1, K):
        if batch == "reused":
            p = sum(comb(k, r) * (act.m(k + 1) if r == 0 else act.kappa(k, r))
                    * (y / psi) ** r * (m1 * h) ** (k - r) for r in range(k + 1))
        else:
            p = act.m(k + 1) * (m1 * h) ** k
        wk = y * p
        signal = sum(float(np.sum(weight * zj * wk)) ** 2 for zj in z)
        noise = float(np.sum(weight * wk ** 2)) / psi
        out[k] = np.sqrt(_power_residual(k + 1)) / factorial(k) * np.sqrt(signal + noise)
    return out


def _power_residual(p: int) -> float:
    """E[r^2], r the part of g^p orthogonal (in L2 of g ~ N(0, 1)) to g, ..., g^(p-1): what
    the Gram-Schmidt powers a, ..., a^{o p} keep of a^{o p}, times N^(p-1)."""
    moment = lambda j: 0.0 if j % 2 else float(np.prod(np.arange(j - 1, 0, -2)))  # noqa: E731
    lower = range(1, p)
    G = np.array([[moment(i + j) for j in lower] for i in lower])
    b = np.array([moment(i + p) for i in lower])
    return moment(2 * p) - float(b @ np.linalg.solve(G, b)) if p > 1 else moment(2)


def leading_order_crossing(constant: float, exponent: float, need: float) -> float:
    """The width N at which c N^exponent, a term that decays (exponent < 0), falls to the
    strength ``need`` (inf if it never does within floating point)."""
    if exponent >= 0:
        raise ValueError(f"exponent must be negative for the term to fall, got {exponent}")
    if constant <= need:
        return 1.0
    return float(np.exp(np.log(need / constant) / exponent))
