"""Data and multi-index targets (book: dv-model).

``y = sum_k g_k(<beta*_k, x>) + eps`` with Gaussian inputs x ~ N(0, I_d), orthonormal
directions beta*_k and label noise eps ~ N(0, sigma_eps^2). Link functions by name:
``he1`` .. ``he4`` (normalized Hermite He_j / sqrt(j!)), ``tanh`` (normalized to unit
second moment) and ``bounded``, ``bounded_gentle`` (:func:`bounded_odd_link`: bounded, odd,
information exponent 3); a target string joins them with ``+``, each on its own direction
(``"he1+he3"``); a callable link is normalized to E g(z)^2 = 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb, sqrt
from typing import Callable, Sequence

import numpy as np

from companion.core.gaussian import (
    gaussian_expectation,
    normalized_hermite,
    normalized_hermite_moment,
)
from companion.core.validation import check_fits_in_memory, positive_int, positive_real

LINK_NAMES = ("he1", "he2", "he3", "he4", "tanh", "bounded", "bounded_gentle")


@dataclass(frozen=True)
class Link:
    """A link function g with E g(zeta)^2 = 1 and its Gaussian moments.

    ``hermite``: j when g = He_j / sqrt(j!); its moments are then computed exactly
    (``companion.core.gaussian.normalized_hermite_moment``), so that a moment that vanishes is
    0 and not rounding noise of either sign."""

    name: str
    g: Callable[[np.ndarray], np.ndarray]
    hermite: int | None = None

    def __call__(self, z):
        return self.g(z)

    def _expectation(self, p: int, q: int) -> float:
        """E[zeta^q g(zeta)^p]."""
        if self.hermite is not None:
            return normalized_hermite_moment(self.hermite, p, q)
        return gaussian_expectation(lambda z: z ** q * self.g(z) ** p)

    @property
    def mu_star(self) -> float:
        """mu* = E[z g(z)], the linear (He_1) coefficient; one step learns only if it is != 0."""
        return self._expectation(1, 1)

    def moment(self, p: int) -> float:
        """E g(zeta)^p."""
        return self._expectation(p, 0)

    def z_moment(self, p: int) -> float:
        """E[zeta g(zeta)^p]; the reused second step sees beta* through these
        (book: dv-learnability)."""
        return self._expectation(p, 1)

    def information_exponent(self, max_order: int = 8, tol: float = 1e-9) -> float:
        """Smallest j >= 1 with E[g He_j] != 0 (``inf`` if none up to ``max_order``)."""
        for j in range(1, max_order + 1):
            if abs(gaussian_expectation(lambda z: self.g(z) * normalized_hermite(j, z))) > tol:
                return j
        return float("inf")


def make_link(spec) -> Link:
    """A :class:`Link` from a name in ``LINK_NAMES`` or a callable (normalized to unit
    second moment)."""
    if isinstance(spec, Link):
        return spec
    if callable(spec):
        scale = gaussian_expectation(lambda z: np.asarray(spec(z), float) ** 2)
        if not np.isfinite(scale) or scale <= 0:
            raise ValueError("target: a callable link must have a finite, nonzero second moment")
        root = sqrt(scale)
        return Link(getattr(spec, "__name__", "custom"), lambda z: np.asarray(spec(z), float) / root)
    if not isinstance(spec, str):
        raise ValueError(f"target: unknown link {spec!r}; choose from {LINK_NAMES} or a callable")
    name = spec.strip().lower()
    if name in ("he1", "he2", "he3", "he4"):
        j = int(name[2])
        return Link(name, lambda z, j=j: normalized_hermite(j, z), hermite=j)
    if name == "tanh":
        root = sqrt(gaussian_expectation(lambda z: np.tanh(z) ** 2))
        return Link("tanh", lambda z: np.tanh(z) / root)
    if name in ("bounded", "bounded_gentle"):
        return bounded_odd_link("sharp" if name == "bounded" else "gentle")
    raise ValueError(f"unknown target link {spec!r}; choose from {LINK_NAMES} joined by '+', "
                     "or pass a callable")


def bounded_odd_link(kind: str = "sharp") -> Link:
    """A bounded, odd link with zero linear coefficient (mu* = 0): information exponent 3
    (book: dv-learnability). Target names ``bounded`` (sharp) and ``bounded_gentle``.

    ``"sharp"``: g ~ [tanh(4(z - 2)) + tanh(4(z + 2))] / 2 - c tanh(z), a smoothed
    "sign(z) for |z| > 2" minus its linear part; E[z g^3] is about 6.3 (He_3: 22), and its
    labels are bounded where He_3's have E[y^6] = 1 + ... heavy tails.
    ``"gentle"``: g ~ tanh(z)^3 - c tanh(z); E[z g^3] is about 0.16.
    Both are normalized to E g^2 = 1. A kind gives the same (frozen) link every time, so
    that runs of one seed share their draws (:class:`companion.core.network.SharedDraws`).
    """
    if kind not in ("sharp", "gentle"):
        raise ValueError(f"bounded_odd_link: kind must be 'sharp' or 'gentle', got {kind!r}")
    return _bounded_odd_link(kind)


def _zero_linear_part(f: Callable, carrier: Callable) -> Callable:
    """f - c * carrier with c chosen so that E[z (f - c carrier)(z)] = 0."""
    c = gaussian_expectation(lambda z: z * f(z)) / gaussian_expectation(lambda z: z * carrier(z))
    return lambda z: f(z) - c * carrier(z)


@lru_cache(maxsize=None)
def _bounded_odd_link(kind: str) -> Link:
    if kind == "sharp":
        def far_sign(z):
            z = np.asarray(z, float)
            return 0.5 * (np.tanh(4.0 * (z - 2.0)) + np.tanh(4.0 * (z + 2.0)))
        g = _zero_linear_part(far_sign, np.tanh)
    else:
        g = _zero_linear_part(lambda z: np.tanh(np.asarray(z, float)) ** 3, np.tanh)
    return Link(f"bounded-{kind}", make_link(g).g)


def _parse_links(spec) -> tuple[Link, ...]:
    if isinstance(spec, str):
        parts = [p for p in spec.replace(" ", "").split("+")]
        if not parts or any(p == "" for p in parts):
            raise ValueError(f"target: could not read {spec!r}; write names joined by '+', "
                             "e.g. 'he1+he3'")
        return tuple(make_link(p) for p in parts)
    if isinstance(spec, (Link,)) or callable(spec):
        return (make_link(spec),)
    if isinstance(spec, Sequence) and len(spec) > 0:
        return tuple(make_link(p) for p in spec)
    raise ValueError(f"target must be a name like 'he1+he3', a callable or a list of them, "
                     f"got {spec!r}")


def _moments_of_sum(moment_lists: Sequence[Sequence[float]], p_max: int) -> np.ndarray:
    """Raw moments E S^p (p = 0..p_max) of a sum S of independent variables, given each
    variable's raw moments, by the binomial convolution."""
    out = np.zeros(p_max + 1)
    out[0] = 1.0
    for mom in moment_lists:
        new = np.zeros(p_max + 1)
        for p in range(p_max + 1):
            new[p] = sum(comb(p, q) * mom[q] * out[p - q] for q in range(p + 1))
        out = new
    return out


@dataclass(frozen=True)
class Target:
    """Multi-index target y = sum_k g_k(<beta*_k, x>) + eps (book: dv-model).

    ``directions`` holds the orthonormal beta*_k as rows (K x d), in the order of the
    target string.
    """

    links: tuple[Link, ...]
    directions: np.ndarray
    noise: float = 0.0

    @property
    def name(self) -> str:
        return "+".join(link.name for link in self.links)

    @property
    def d(self) -> int:
        return self.directions.shape[1]

    @property
    def mu_star(self) -> np.ndarray:
        """mu*_k = E[z_k y] = E[z g_k(z)] for each direction."""
        return np.array([link.mu_star for link in self.links])

    @property
    def second_moment(self) -> float:
        """E[y^2] (cross terms included, for links with a nonzero mean)."""
        return float(self.y_moments(2)[2])

    def y_moments(self, p_max: int) -> np.ndarray:
        """Raw moments E y^p, p = 0..p_max."""
        lists = [[link.moment(q) if q else 1.0 for q in range(p_max + 1)]
                 for link in self.links]
        if self.noise > 0:
            gauss = [0.0 if q % 2 else float(np.prod(np.arange(q - 1, 0, -2))) * self.noise ** q
                     for q in range(p_max + 1)]
            gauss[0] = 1.0
            lists.append(gauss)
        return _moments_of_sum(lists, p_max)

    def z_y_moment(self, k: int, p: int) -> float:
        """E[z_k y^p]: the beta*_k-component of y^p; E[z_k g_k^p] mixed with the moments of
        the other links and the noise (independent of z_k)."""
        others = Target(self.links[:k] + self.links[k + 1:], self.directions[:0], self.noise)
        rest = others.y_moments(p)
        link = self.links[k]
        return float(sum(comb(p, q) * link.z_moment(q) * rest[p - q] for q in range(1, p + 1)))

    def labels(self, X: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
        """y for the rows of X (noise drawn from ``rng`` if ``noise > 0``)."""
        Z = X @ self.directions.T
        y = np.zeros(X.shape[0], dtype=X.dtype)
        for k, link in enumerate(self.links):
            y += link(Z[:, k]).astype(X.dtype, copy=False)
        if self.noise > 0:
            if rng is None:
                raise ValueError("rng: a numpy Generator is needed to draw label noise")
            y += self.noise * rng.standard_normal(X.shape[0]).astype(X.dtype, copy=False)
        return y

    def sample(self, n: int, rng: np.random.Generator, dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
        """Draw (X, y): n Gaussian inputs as rows of X (n x d) and their labels."""
        X = self.inputs(n, rng, dtype)
        return X, self.labels(X, rng)

    def inputs(self, n: int, rng: np.random.Generator, dtype=np.float64) -> np.ndarray:
        """The inputs of :meth:`sample` alone: n standard Gaussian rows of dimension d, drawn
        first from ``rng`` (the same for every target of dimension d)."""
        n = positive_int(n, "n")
        if self.d == 0:
            raise ValueError("target has no directions (target_moments gives only its moments); "
                             "draw them with make_target(spec, d, rng)")
        check_fits_in_memory(n * self.d * np.dtype(dtype).itemsize, f"the data X (n={n}, d={self.d})")
        return rng.standard_normal((n, self.d), dtype=np.float64).astype(dtype, copy=False)


def make_target(spec="he1", d: int = 1000, rng: np.random.Generator | None = None,
                noise: float = 0.0) -> Target:
    """Build a :class:`Target` from a spec (``"he1+he3"``, a callable, or a list of either)
    with random orthonormal directions drawn from ``rng`` (book: dv-model)."""
    d = positive_int(d, "d")
    noise = positive_real(noise, "noise", allow_zero=True)
    links = _parse_links(spec)
    if len(links) > d:
        raise ValueError(f"target has {len(links)} directions but d = {d}")
    if rng is None:
        raise ValueError("rng: pass a numpy.random.Generator (e.g. np.random.default_rng(0)); "
                         "the companion keeps no global random state")
    Q, _ = np.linalg.qr(rng.standard_normal((d, len(links))))
    return Target(links, np.ascontiguousarray(Q.T), noise)


def target_moments(spec="he1", noise: float = 0.0) -> Target:
    """The links, noise and moments of a target spec without a random draw: a :class:`Target`
    whose ``directions`` are empty (K x 0, so ``d`` is 0 and it cannot be sampled), for what
    reads only mu*, E[y^2], E y^p or E[z_k y^p] (the theory's predictions); the same numbers
    as any :func:`make_target` of that spec and noise."""
    noise = positive_real(noise, "noise", allow_zero=True)
    links = _parse_links(spec)
    return Target(links, np.zeros((len(links), 0)), noise)
