"""Spectra of the weights: singular values, the Marchenko-Pastur bulk, outliers (SPEC 3.1, 3.2, 5).

W0 (N x d, entries N(0, 1/d)) has its singular values in
[|1 - sqrt(phi)|, 1 + sqrt(phi)], phi = N/d (Marchenko-Pastur). The updates add spikes on top
of this bulk; the learned directions are the right singular vectors of those spikes.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import svds

from .validation import finite_array, positive_int, positive_real

# ARPACK's start vector is drawn from this fixed seed, so top-k results are reproducible.
_LANCZOS_SEED = 20260518


def singular_values(W, k: int | None = None) -> np.ndarray:
    """Singular values in decreasing order: all of them (``k=None``, dense LAPACK) or the
    top ``k`` by Lanczos (ARPACK), which is what outliers need."""
    W = finite_array(W, "W", 2)
    if k is None:
        return scipy.linalg.svdvals(W, check_finite=False)
    return top_singular(W, k)[1]


def top_singular(W, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top ``k`` singular triplets (U: N x k, s: k, Vt: k x d), s decreasing.

    Lanczos bidiagonalization (PROPACK through ``scipy.sparse.linalg.svds``) from a seeded
    start vector: measured about twice as fast as ARPACK's Lanczos on W^T W for the top 16 of
    a 2048 x 2048 W2, with the same values to 1e-14 (``benchmarks/run.py``). ARPACK is the
    fallback if PROPACK fails; a dense SVD is used when k is close to min(N, d), where
    neither is allowed.
    """
    W = finite_array(W, "W", 2)
    k = positive_int(k, "k")
    m = min(W.shape)
    if k > m:
        raise ValueError(f"k must be at most min(N, d) = {m}, got {k}")
    if k >= m - 1 or m <= 64:
        U, s, Vt = scipy.linalg.svd(W, full_matrices=False, check_finite=False)
        return U[:, :k], s[:k], Vt[:k]
    rng = np.random.default_rng(_LANCZOS_SEED)
    try:
        # PROPACK starts from a vector of length N; a bulk without outliers (W0, a null run)
        # needs more than its default 10 k iterations, hence maxiter.
        U, s, Vt = svds(W, k=k, solver="propack", maxiter=min(m, max(1000, 10 * k)),
                        v0=rng.standard_normal(W.shape[0]).astype(W.dtype), random_state=rng)
    except Exception:   # PROPACK did not converge or is unavailable: ARPACK, same contract
        v0 = np.random.default_rng(_LANCZOS_SEED).standard_normal(m).astype(W.dtype)
        U, s, Vt = svds(W, k=k, v0=v0, solver="arpack")
    order = np.argsort(s)[::-1]
    return U[:, order], s[order], Vt[order]


def mp_edges(phi: float) -> tuple[float, float]:
    """Bulk edges of the singular values of an N x d matrix with iid N(0, 1/d) entries,
    phi = N/d: (|1 - sqrt(phi)|, 1 + sqrt(phi)) (SPEC section 3.1)."""
    phi = positive_real(phi, "phi")
    return abs(1.0 - np.sqrt(phi)), 1.0 + np.sqrt(phi)


def mp_singular_value_density(s, phi: float) -> np.ndarray:
    """Limiting density of the min(N, d) nonzero singular values of W0 (entries N(0, 1/d),
    phi = N/d), normalized to integrate to one.

    The eigenvalues lambda = s^2 of W0 W0^T (phi <= 1), or of W0^T W0 scaled by phi
    (phi > 1), follow Marchenko-Pastur with ratio c = min(phi, 1/phi).
    """
    phi = positive_real(phi, "phi")
    s = np.asarray(s, float)
    c, scale = (phi, 1.0) if phi <= 1 else (1.0 / phi, phi)
    lo, hi = (1 - np.sqrt(c)) ** 2, (1 + np.sqrt(c)) ** 2
    mu = s ** 2 / scale
    inside = (mu > lo) & (mu < hi)
    dens = np.zeros_like(s)
    mu_in = mu[inside]
    dens[inside] = np.sqrt((hi - mu_in) * (mu_in - lo)) / (2 * np.pi * c * mu_in)
    return dens * 2 * s / scale


def count_outliers(s, edge: float, margin: float = 0.02) -> int:
    """Number of singular values above ``edge * (1 + margin)``.

    Against the Marchenko-Pastur edge this count is unreliable at finite N (SPEC pitfall 3):
    the updates also widen the bulk. Prefer :func:`count_outliers_against_null` or the
    left-vector diagnostics of :mod:`companion.alignment`.
    """
    s = np.asarray(s, float)
    return int(np.sum(s > edge * (1.0 + positive_real(margin, "margin", allow_zero=True))))


def count_outliers_against_null(s, s_null, skip: int = 1, margin: float = 0.02) -> int:
    """Number of singular values above a null run's edge (SPEC pitfall 3).

    The null run has the same sizes and step sizes and labels of the same distribution
    (heavy tails included) but independent of x. Its own top ``skip`` singular values are
    the first spike, which any labels create (its size is set by E[y^2]); the largest of the
    rest is the null edge: what unstructured labels of this distribution push out of the
    bulk at this N. Counts the values of ``s`` above ``edge * (1 + margin)``.
    """
    s_null = np.sort(np.asarray(s_null, float))[::-1]
    if skip < 0 or skip >= s_null.size:
        raise ValueError(f"skip must lie in [0, {s_null.size - 1}], got {skip!r}")
    return count_outliers(s, float(s_null[skip]), margin)
