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

from companion.core.alignment import a_power_basis
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
