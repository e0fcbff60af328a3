"""Alignments: how much of each target direction the learned directions carry (book: dv-census).

Right singular vectors of the updated weights are the learned directions; their left
singular vectors are (close to) the entrywise powers a, a^{o2}, a^{o3}, ... of the second
layer, which are not orthogonal (|cos(a, a^{o3})| -> 3/sqrt(15)), so left-vector diagnostics
use the Gram-Schmidt orthonormalization of those powers.
"""

from __future__ import annotations

import numpy as np

from companion.core.validation import finite_array, positive_int


def _directions(directions) -> np.ndarray:
    B = finite_array(directions, "directions", 2 if np.ndim(directions) == 2 else 1)
    B = np.atleast_2d(B)
    norms = np.linalg.norm(B, axis=1)
    if np.any(norms == 0):
        raise ValueError("directions must be nonzero vectors")
    return B / norms[:, None]


def cos2_with_directions(Vt, directions) -> np.ndarray:
    """Squared cosines cos^2(v_i, beta*_k): rows are the vectors in ``Vt`` (k x d, e.g. right
    singular vectors), columns the target directions (K x d)."""
    V = np.atleast_2d(finite_array(Vt, "Vt", np.ndim(Vt)))
    B = _directions(directions)
    if V.shape[1] != B.shape[1]:
        raise ValueError(f"Vt has dimension {V.shape[1]} but directions have {B.shape[1]}")
    V = V / np.linalg.norm(V, axis=1)[:, None]
    return (V @ B.T) ** 2


def subspace_projection(Vt, directions) -> np.ndarray:
    """||P_V beta*_k||^2 for each direction: the squared norm of its projection on the span of
    the rows of ``Vt`` (e.g. the top-m right singular subspace). A random direction gives
    about m/d (chance)."""
    V = np.atleast_2d(finite_array(Vt, "Vt", np.ndim(Vt)))
    B = _directions(directions)
    if V.shape[1] != B.shape[1]:
        raise ValueError(f"Vt has dimension {V.shape[1]} but directions have {B.shape[1]}")
    Q, _ = np.linalg.qr(V.T)
    return np.sum((B @ Q) ** 2, axis=1)


def a_power_basis(a, K: int) -> np.ndarray:
    """Orthonormal N x K basis from Gram-Schmidt of a, a^{o2}, ..., a^{oK} (entrywise powers);
    column j-1 carries the left vector of the spike of order k = j - 1
    (book: dv-separate-strengths)."""
    a = finite_array(a, "a", 1)
    K = positive_int(K, "K")
    if K > a.size:
        raise ValueError(f"K must be at most N = {a.size}, got {K}")
    scaled = a / np.max(np.abs(a))  # keeps high powers away from underflow
    P = np.stack([scaled ** j for j in range(1, K + 1)], axis=1)
    Q, _ = np.linalg.qr(P)
    signs = np.sign(np.sum(Q * P, axis=0))  # orient each column along its power
    return Q * np.where(signs == 0, 1.0, signs)


def term_sizes(delta, a, K: int) -> np.ndarray:
    """||q_j^T Delta|| for the Gram-Schmidt powers q_1..q_K of a: the size of each spike term
    of the update Delta = W2 - W0 (entry j-1 is the term of order k = j - 1;
    book: dv-separate-strengths)."""
    D = finite_array(delta, "delta", 2)
    Q = a_power_basis(a, K)
    if D.shape[0] != Q.shape[0]:
        raise ValueError(f"delta has {D.shape[0]} rows but a has {Q.shape[0]} entries")
    return np.linalg.norm(Q.T @ D, axis=1)


def left_overlaps(U, a, K: int) -> np.ndarray:
    """Squared overlaps ``|<u_i, q_j>|^2`` of left singular vectors (columns of U) with the
    Gram-Schmidt powers q_1..q_K of a: rows singular vectors, columns powers."""
    U = finite_array(U, "U", 2)
    Q = a_power_basis(a, K)
    if U.shape[0] != Q.shape[0]:
        raise ValueError(f"U has {U.shape[0]} rows but a has {Q.shape[0]} entries")
    return (U.T @ Q) ** 2
