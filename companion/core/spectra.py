"""Spectra of the weights: singular values, the Marchenko-Pastur bulk, outliers
(book: dv-spiked-rectangular, dv-census).

W0 (N x d, entries N(0, 1/d)) has its singular values in
[|1 - sqrt(phi)|, 1 + sqrt(phi)], phi = N/d (Marchenko-Pastur). The updates add spikes on top
of this bulk; the learned directions are the right singular vectors of those spikes.

The whole spectrum (histograms against the Marchenko-Pastur law) comes from the eigenvalues of
the smaller Gram matrix (:func:`singular_values` with ``k=None``); the top k singular triplets
(outliers, learned directions) from ARPACK's implicitly restarted Lanczos method
(``scipy.sparse.linalg.svds``; Lehoucq, Sorensen & Yang, *ARPACK Users' Guide*, 1998) with a
fixed start vector, and from LAPACK's SVD for small matrices (:func:`top_singular`).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import aslinearoperator, svds

from companion.core.validation import (
    check_fits_in_memory,
    choice,
    finite_array,
    positive_int,
    positive_real,
)

__all__ = ["SINGULAR_VALUE_METHODS", "count_outliers", "count_outliers_against_null",
           "gram_bytes", "mp_edges", "mp_singular_value_density", "singular_values",
           "top_singular", "top_singular_bytes", "top_singular_each", "top_singular_values"]

SINGULAR_VALUE_METHODS = ("gram", "lapack")
#: the seed of ARPACK's start vector: the same matrix gives the same triplets
SEED = 20260518
#: matrices whose smaller side is at most this, or k above a quarter of it: LAPACK's SVD
DENSE = 64


def top_singular(W, k: int, vectors: bool = True):
    """Top ``k`` singular triplets (U: N x k, s: k, Vt: k x d), s decreasing; with
    ``vectors=False`` only s (``(None, s, None)``). ARPACK (``scipy.sparse.linalg.svds``, to
    machine precision) from a start vector drawn from ``SEED``, or LAPACK's SVD where the
    matrix is small or k is a large part of it; deterministic either way."""
    W = finite_array(W, "W", 2)
    k = positive_int(k, "k")
    m = min(W.shape)
    if k > m:
        raise ValueError(f"k must be at most min(N, d) = {m}, got {k}")
    # the largest |entry|, without an N x d copy: 0 for a zero matrix, where ARPACK cannot start
    scale = float(max(W.max(), -W.min())) if W.size else 0.0
    if m <= DENSE or 4 * k >= m or scale == 0.0:
        U, s, Vt = np.linalg.svd(W, full_matrices=False)
        return (U[:, :k], s[:k], Vt[:k]) if vectors else (None, s[:k], None)
    check_fits_in_memory(top_singular_bytes(*W.shape, k, W.dtype.itemsize),
                         f"the top {k} singular vectors of a {W.shape[0]} x {W.shape[1]} matrix")
    start = np.random.default_rng(SEED).standard_normal(m).astype(W.dtype)
    # ARPACK works with the squared values: a matrix of a far-off scale is scaled (lazily)
    A = W if 1e-100 < scale < 1e100 else aslinearoperator(W) * (1.0 / scale)
    found = svds(A, k=k, v0=start, return_singular_vectors=vectors)
    unscale = 1.0 if A is W else scale
    if not vectors:
        return None, np.sort(found)[::-1] * unscale, None
    U, s, Vt = found
    order = np.argsort(s)[::-1]
    return U[:, order], s[order] * unscale, Vt[order]


def top_singular_values(W, k: int) -> np.ndarray:
    """The top ``k`` singular values (:func:`top_singular` without the vectors)."""
    return top_singular(W, k, vectors=False)[1]


def top_singular_each(matrices, k, vectors=True) -> list[tuple]:
    """:func:`top_singular` of each matrix; ``k`` and ``vectors``: one value or one per matrix
    (``vectors=False`` gives ``(None, s, None)``)."""
    matrices = list(matrices)
    ks, vs = ([x] * len(matrices) if np.ndim(x) == 0 else list(x) for x in (k, vectors))
    if not len(ks) == len(vs) == len(matrices):
        raise ValueError(f"k and vectors must be one value or one per matrix ({len(matrices)}), "
                         f"got {k!r} and {vectors!r}")
    return [top_singular(W, kk, bool(v)) for W, kk, v in zip(matrices, ks, vs)]


def top_singular_bytes(N: int, d: int, k: int, itemsize: int = 8) -> int:
    """Working memory of :func:`top_singular` on an N x d matrix: ARPACK's Lanczos basis of
    ncv = max(2k + 1, 20) vectors on the smaller side (float64 work arrays) and the vectors
    returned."""
    m = min(N, d)
    ncv = min(m, max(2 * k + 1, 20))
    return 8 * ncv * (m + ncv) + 8 * m * 4 + itemsize * k * (N + d)


def singular_values(W, k: int | None = None, method: str = "gram") -> np.ndarray:
    """Singular values in decreasing order: all of them (``k=None``) or the top ``k``
    (:func:`top_singular`), which is what outliers need.

    The whole spectrum comes from the eigenvalues of the smaller Gram matrix, W W^T or W^T W
    (one product, then the symmetric eigensolver ``scipy.linalg.eigvalsh``), as the square
    roots of those eigenvalues clipped at zero (``method="gram"``, the default, faster than
    the SVD); ``method="lapack"`` is the SVD itself
    (LAPACK gesdd). The Gram matrix is accurate to eps * s_max^2 (``eps = 2.2e-16``), so a
    singular value s has an *absolute* error of about eps * s_max^2 / s, at most about
    ``sqrt(eps) * s_max = 1.5e-8 s_max`` for s near zero: far below a histogram bin, and the
    top values keep full relative accuracy. Small values lose relative digits (the smallest
    ones of a square matrix, phi = 1, where the bulk reaches zero): use ``method="lapack"``
    where they are needed to full relative accuracy. A float32 matrix is squared in float64
    (one column block at a time), so its Gram spectrum is as accurate as float32 data allow.
    """
    W = finite_array(W, "W", 2)
    if k is not None:
        return top_singular_values(W, k)
    choice(method, "method", SINGULAR_VALUE_METHODS)
    if method == "lapack" or min(W.shape) == 0:
        return scipy.linalg.svdvals(W, check_finite=False)
    lam = scipy.linalg.eigvalsh(_gram(W), overwrite_a=True, check_finite=False)
    return np.sqrt(np.clip(lam[::-1], 0.0, None)).astype(W.dtype, copy=False)


def _gram(W: np.ndarray) -> np.ndarray:
    """The smaller Gram matrix in float64: W W^T if N <= d, else W^T W."""
    A = W if W.shape[0] <= W.shape[1] else W.T       # A A^T is the smaller Gram matrix
    m = A.shape[0]
    check_fits_in_memory(gram_bytes(*W.shape), f"the Gram matrix of a {W.shape[0]} x "
                                               f"{W.shape[1]} matrix")
    if A.dtype == np.float64:
        return A @ A.T
    G = np.zeros((m, m))
    step = max(1, (1 << 24) // max(m, 1))            # float64 column blocks of about 128 MiB
    for start in range(0, A.shape[1], step):
        Ab = A[:, start:start + step].astype(np.float64)
        G += Ab @ Ab.T
    return G


def gram_bytes(N: int, d: int) -> int:
    """Memory of the whole-spectrum Gram path of :func:`singular_values`: the float64 Gram
    matrix of the smaller side and the eigensolver's workspace."""
    m = min(N, d)
    return 8 * (2 * m * m + 32 * m)


def mp_edges(phi: float) -> tuple[float, float]:
    """Bulk edges of the singular values of an N x d matrix with iid N(0, 1/d) entries,
    phi = N/d: ``(|1 - sqrt(phi)|, 1 + sqrt(phi))`` (book: dv-spiked-rectangular)."""
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

    Against the Marchenko-Pastur edge this count is unreliable at finite N (book: dv-pit-edge):
    the updates also widen the bulk. Prefer :func:`count_outliers_against_null` or the
    left-vector diagnostics of ``companion.core.alignment``.
    """
    s = np.asarray(s, float)
    edge = positive_real(edge, "edge", allow_zero=True)
    return int(np.sum(s > edge * (1.0 + positive_real(margin, "margin", allow_zero=True))))


def count_outliers_against_null(s, s_null, skip: int = 1, margin: float = 0.02) -> int:
    """Number of singular values above a null run's edge (book: dv-pit-edge).

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
