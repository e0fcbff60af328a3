"""Gaussian expectations: probabilists' Hermite polynomials and Gauss-Hermite quadrature.

Every Gaussian moment of the companion (m_j, kappa_{k,r}, mu*, E[y^2], E[z g^j];
book: dv-moments, dv-hermite) is an expectation E f(zeta), zeta ~ N(0, 1), computed here by
quadrature.
"""

from __future__ import annotations

from functools import lru_cache
from math import factorial, fsum, prod, sqrt

import numpy as np
from numpy.polynomial import hermite_e


@lru_cache(maxsize=8)
def _nodes_weights(order: int) -> tuple[np.ndarray, np.ndarray]:
    nodes, weights = hermite_e.hermegauss(order)
    return nodes, weights / sqrt(2.0 * np.pi)


def gaussian_expectation(f, order: int = 200) -> float:
    """E f(zeta) for zeta ~ N(0, 1) by Gauss-Hermite quadrature with ``order`` nodes.

    Exact for polynomials of degree < 2 * order; for smooth bounded functions such as tanh
    the error at the default order is far below 1e-10. Functions with kinks (ReLU) converge
    slowly: use :func:`gaussian_expectation_piecewise` for them.

    The weighted terms are added with :func:`math.fsum` (correctly rounded), not a BLAS dot
    product, whose order of additions depends on the CPU: the same values of f give
    the same number on every machine. A moment that is zero in exact arithmetic still comes
    out as rounding noise here; where it must be exactly zero, compute it exactly
    (:func:`normalized_hermite_moment`).
    """
    nodes, weights = _nodes_weights(order)
    return fsum((weights * np.asarray(f(nodes), float)).tolist())


def gaussian_expectation_piecewise(f, breakpoints=(0.0,), order: int = 120) -> float:
    """E f(zeta) for f smooth between ``breakpoints``, by Gauss-Legendre on each piece
    of [-12, 12] (the Gaussian mass outside is below 1e-32)."""
    edges = np.concatenate(([-12.0], np.sort(np.asarray(breakpoints, float)), [12.0]))
    x, w = np.polynomial.legendre.leggauss(order)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        z = 0.5 * (hi - lo) * x + 0.5 * (hi + lo)
        dens = np.exp(-0.5 * z * z) / sqrt(2.0 * np.pi)
        total += 0.5 * (hi - lo) * float(np.dot(w, f(z) * dens))
    return total


def hermite(j: int, z) -> np.ndarray:
    """Probabilists' Hermite polynomial He_j(z) (He_1 = z, He_2 = z^2 - 1, He_3 = z^3 - 3z)."""
    coef = np.zeros(j + 1)
    coef[j] = 1.0
    return hermite_e.hermeval(np.asarray(z, float), coef)


def hermite_coefficients(j: int) -> list[int]:
    """The integer coefficients of He_j in the monomial basis (constant first), from the
    recurrence He_{j+1} = z He_j - j He_{j-1}."""
    previous, current = [1], [0, 1]
    if j == 0:
        return previous
    for i in range(1, j):
        following = [0] + current
        for m, c in enumerate(previous):
            following[m] -= i * c
        previous, current = current, following
    return current


def normalized_hermite_moment(j: int, p: int, q: int = 0) -> float:
    """E[zeta^q (He_j(zeta) / sqrt(j!))^p], exactly: the polynomial zeta^q He_j^p is
    expanded in integers and E zeta^m = (m - 1)!! for even m, 0 for odd m (book: dv-hermite).
    Moments that vanish (by parity or orthogonality) are exactly 0, never rounding noise."""
    poly = [0] * q + [1]
    he = hermite_coefficients(j)
    for _ in range(p):
        product = [0] * (len(poly) + len(he) - 1)
        for a, ca in enumerate(poly):
            for b, cb in enumerate(he):
                product[a + b] += ca * cb
        poly = product
    total = sum(c * prod(range(m - 1, 0, -2)) for m, c in enumerate(poly) if m % 2 == 0)
    if not total:
        return 0.0
    scale = factorial(j) ** (p // 2)
    return total / scale if p % 2 == 0 else total / scale / sqrt(factorial(j))


def normalized_hermite(j: int, z) -> np.ndarray:
    """He_j(z) / sqrt(j!), which has unit second moment under N(0, 1) (book: dv-hermite)."""
    return hermite(j, z) / sqrt(factorial(j))
