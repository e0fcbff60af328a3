"""The Rayleigh-Ritz side of the block Lanczos method of :mod:`companion.core.lanczos` (book:
dv-spiked-rectangular, dv-census): the projected matrix H = Q G Q^T (block tridiagonal, grown
as the basis grows), its top eigenpairs, the residual test that decides convergence, and the
orthonormalization of each new block of the basis."""

from __future__ import annotations

import math

import numpy as np

# A singular value with a gap of 5% of it to its neighbours (10% in eigenvalues of the Gram
# operator) counts as separated: then its singular vectors must be accurate too.
SEPARATED = 0.1


def grown(H: np.ndarray, size: int, cap: int) -> np.ndarray:
    """H, or H zero-padded to at least ``size`` (at most ``cap``) rows and columns, twice as
    many at a time. The projected matrix is allocated as the basis grows: one of the basis
    array's full size (2060 x 2060 for a 2048 x 2048 W) has rows 16 kB apart, so that a basis
    of 360 vectors touched 6 MB of fresh pages where it needs 1 MB."""
    if H.shape[0] >= size:
        return H
    G = np.zeros((min(cap, max(size, 2 * H.shape[0])),) * 2)
    G[:H.shape[0], :H.shape[0]] = H
    return G


def top_eigenpairs(H: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The n largest eigenvalues of the symmetric H, decreasing, and their eigenvectors
    (NumPy's eigh: SciPy's subset solver is faster at N <= 512 only, and scipy.linalg took
    0.16 to 0.2 s to import, more than it would save in a command line run)."""
    theta, Z = np.linalg.eigh(H)
    return theta[::-1][:n], Z[:, ::-1][:, :n]


def orthonormalize(Y, Qb, scale, eps, rng):
    """Orthonormal rows Qn and R with Y = R^T Qn, for Y already orthogonal to the rows of Qb.

    Cholesky QR twice, accurate while Y is well conditioned; otherwise an SVD: directions of
    Y that are numerically zero (below 8 eps times Y's size before Gram-Schmidt) get zero rows
    of R and random replacements, and every direction is orthogonalized against Qb again
    (Gram-Schmidt leaves errors of order eps * scale / size in the small ones).
    """
    try:
        L1 = np.linalg.cholesky(Y @ Y.T)
        cond = np.diag(L1)
        if cond.min() > 1e-5 * cond.max() and cond.min() > 1e-3 * scale:
            Q1 = np.linalg.inv(L1) @ Y
            L2 = np.linalg.cholesky(Q1 @ Q1.T)
            Qn = np.linalg.inv(L2) @ Q1
            return Qn, (L1 @ L2).T      # Y = L1 Q1 = L1 L2 Qn
    except np.linalg.LinAlgError:
        pass
    Ua, S, Qn = np.linalg.svd(Y, full_matrices=False)   # Y = Ua diag(S) Qn
    R = S[:, None] * Ua.T
    dead = S <= 8 * eps * max(scale, 1e-300)
    if np.any(dead):
        R[dead] = 0.0
        Qn[dead] = rng.standard_normal((int(dead.sum()), Y.shape[1]))
    for _ in range(2):
        Qn -= (Qn @ Qb.T) @ Qb
    q, r = np.linalg.qr(Qn.T)
    signs = np.sign(np.diag(r))
    return np.ascontiguousarray((q * np.where(signs == 0, 1.0, signs)).T), R


def convergence_deficit(theta, res, k, eps, tol_val, tol_vec, tol_res) -> float:
    """max_i log(residual_i / tolerance_i) over the top k Ritz pairs: <= 0 when converged.

    With residual r_i and gap g_i to the neighbouring Ritz values, |lambda_i - theta_i| <=
    r_i^2 / g_i, so r_i^2 <= 2 tol_val theta_i g_i gives sqrt(theta_i) to tol_val (g_i floored
    at 1e-3 theta_i: in a cluster the bound holds with the gap to the rest). A separated value
    (g_i >= 10% of theta_i) also needs r_i <= tol_vec g_i, its vector's angle bound; every r_i
    is at most tol_res theta_1; residuals below about eps * theta count as converged.
    """
    th = np.clip(theta, 0.0, None)
    if th[0] == 0.0:
        return -1.0                      # the zero matrix
    diffs = th[:-1] - th[1:]
    gaps = np.minimum(np.r_[np.inf, diffs], np.r_[diffs, np.inf])[:k]
    value_tol = np.sqrt(2.0 * tol_val * th[:k] * np.maximum(gaps, 1e-3 * th[:k]))
    vector_tol = np.where(gaps >= SEPARATED * th[:k], tol_vec * gaps, np.inf)
    floor = 8.0 * eps * (th[:k] + math.sqrt(eps) * th[0])
    tol = np.maximum(np.minimum(np.minimum(value_tol, vector_tol), tol_res * th[0]), floor)
    return float(np.max(np.log(np.maximum(res, 1e-300) / tol)))
