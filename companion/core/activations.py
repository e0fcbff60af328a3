"""Activations sigma and their Gaussian moments (book: dv-moments).

An :class:`Activation` knows sigma, its derivatives, and the two families of Gaussian
moments that the theory uses (zeta ~ N(0, 1)):

* ``m(j)     = E sigma^(j)(zeta)``  (= E[sigma(zeta) He_j(zeta)] by Stein's lemma), and
* ``kappa(k, r) = E[sigma^(k+1)(zeta) sigma'(zeta)^r]``, the coefficients of the reused-batch
  self terms (book: dv-expansion).

Named activations: ``tanh`` (default), ``erf``, ``relu``, ``shifted_tanh`` (tanh(z + 0.5)),
``gelu`` (z Phi(z), the Gaussian error linear unit of transformers), and
``hermite:c0,c1,...``, a polynomial sum_j c_j He_j / sqrt(j!) in the normalized Hermite
basis. Any other activation: :meth:`Activation.from_callable`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache, partial
from math import factorial, sqrt
from typing import Callable, Sequence

import numpy as np
from numpy.polynomial import hermite as phys_hermite
from numpy.polynomial import hermite_e
from numpy.polynomial import polynomial as poly

from companion.core.gaussian import (
    gaussian_expectation,
    gaussian_expectation_piecewise,
    hermite,
)

ArrayFn = Callable[[np.ndarray], np.ndarray]

NAMED_ACTIVATIONS = ("tanh", "erf", "relu", "shifted_tanh", "gelu", "hermite:c0,c1,...")


@dataclass(frozen=True)
class Activation:
    """An activation with derivatives up to ``len(derivatives)``.

    ``derivatives[k-1]`` evaluates sigma^(k). ``degree`` is the polynomial degree L for a
    polynomial activation (it caps Lambda at L - 1, book: dv-exponents) and ``None`` otherwise.
    ``breakpoints`` lists kinks, where quadrature is split (ReLU). An activation with a kink
    is not ``smooth``: the Taylor expansion (book: dv-expansion) does not apply to it (smoothing
    ReLU makes its kappa_{k,r} diverge), so the theory makes no prediction for its higher terms.
    """

    name: str
    sigma: ArrayFn
    derivatives: tuple[ArrayFn, ...]
    degree: int | None = None
    breakpoints: tuple[float, ...] = ()
    #: sigma' written in place over a flat C-contiguous array, where a named activation has a
    #: faster way than ``derivatives[0]`` (the hot path of :meth:`prime_inplace`)
    prime_flat: Callable[[np.ndarray], None] | None = None
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_callable(cls, sigma: ArrayFn, derivatives: Sequence[ArrayFn], name: str = "custom",
                      degree: int | None = None) -> "Activation":
        """Wrap a user activation. ``derivatives`` = [sigma', sigma'', ...]; at least sigma'
        (the gradient needs it); the moments kappa(k, r) need sigma^(k+1)."""
        if not callable(sigma) or not derivatives or not all(callable(d) for d in derivatives):
            raise ValueError("activation: give a callable sigma and a list of callable derivatives "
                             "[sigma', sigma'', ...] with at least sigma'")
        return cls(name=name, sigma=sigma, derivatives=tuple(derivatives), degree=degree)

    @property
    def smooth(self) -> bool:
        """True when sigma has no kink, so that the expansion applies (book: dv-expansion)."""
        return not self.breakpoints

    # -- evaluation -------------------------------------------------------------------------
    def derivative(self, z, k: int = 1) -> np.ndarray:
        """sigma^(k)(z); k = 0 is sigma itself."""
        if k == 0:
            return self.sigma(z)
        if k > len(self.derivatives):
            raise ValueError(f"activation {self.name!r} has derivatives only up to order "
                             f"{len(self.derivatives)}, asked for order {k}")
        return self.derivatives[k - 1](z)

    def prime_inplace(self, P: np.ndarray) -> np.ndarray:
        """Overwrite ``P`` with sigma'(P) and return it (the gradient's hot path)."""
        if self.prime_flat is not None and P.flags.c_contiguous:
            self.prime_flat(P.reshape(-1))
            return P
        P[...] = self.derivatives[0](P)
        return P

    # -- Gaussian moments -------------------------------------------------------------------
    def expectation(self, f: ArrayFn) -> float:
        """E f(zeta) for zeta ~ N(0, 1) by Gauss-Hermite quadrature, split at the activation's
        kinks (``breakpoints``) if it has any."""
        if self.breakpoints:
            return gaussian_expectation_piecewise(f, self.breakpoints)
        return gaussian_expectation(f)

    def memo(self, key, compute: Callable[[], object]):
        """``compute()``, computed once per activation and kept under ``key``: its moments
        and what the theory derives from them alone (:func:`companion.term_exists`)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def m(self, j: int) -> float:
        """m_j = E sigma^(j)(zeta), computed as E[sigma(zeta) He_j(zeta)] (Stein's lemma), so
        it needs no derivative and is right for ReLU too (m_2 = phi(0) there)."""
        return self.memo(("m", j),
                         lambda: self.expectation(lambda z: self.sigma(z) * hermite(j, z)))

    def kappa(self, k: int, r: int) -> float:
        """kappa_{k,r} = E[sigma^(k+1)(zeta) sigma'(zeta)^r] (book: dv-moments)."""
        return self.memo(("kappa", k, r), lambda: self.expectation(
            lambda z: self.derivative(z, k + 1) * self.derivative(z, 1) ** r))


_CHUNK = 1 << 15        # elements per chunk of the in-place derivatives: buffers stay in L2


def _tanh_prime_inplace(p: np.ndarray, shift: float = 0.0) -> None:
    """tanh'(z + shift), with tanh'(z) = 1 - tanh(z)^2 = 4 e / (1 + e)^2 and e = exp(-2|z|),
    in place on a flat array, in chunks that stay in cache (``benchmarks/run.py`` times it
    against tanh, square and subtract). Also accurate where 1 - tanh^2 cancels to 0
    (|z| > 19)."""
    if shift:
        p += p.dtype.type(shift)
    buf = np.empty(min(_CHUNK, p.size), dtype=p.dtype)
    for start in range(0, p.size, _CHUNK):
        c = p[start:start + _CHUNK]
        t = buf[:c.size]
        np.abs(c, out=c)
        c *= -2.0
        np.exp(c, out=c)
        np.add(c, 1.0, out=t)
        np.square(t, out=t)
        c *= 4.0
        c /= t


def _gelu_prime_inplace(p: np.ndarray) -> None:
    """GELU'(z) = Phi(z) + z phi(z) in place on a flat array, in float64 chunks: the same
    operations as ``_gelu_derivatives``' sigma', without its four temporaries of the whole
    array."""
    z = np.empty(min(_CHUNK, p.size))
    t = np.empty_like(z)
    for start in range(0, p.size, _CHUNK):
        c = p[start:start + _CHUNK]
        zc, tc = z[:c.size], t[:c.size]
        zc[...] = c
        np.square(zc, out=tc)                   # phi(z) = exp(-z^2 / 2) / sqrt(2 pi)
        tc *= -0.5
        np.exp(tc, out=tc)
        tc /= sqrt(2.0 * np.pi)
        tc *= zc                                # z phi(z)
        ndtr(zc, out=zc)
        zc += tc
        c[...] = zc


# -- named activations ------------------------------------------------------------------------
def erf(z):
    """The error function (scipy.special.erf; imported on first use: importing scipy.special
    is a noticeable part of a command line run that never needs it)."""
    from scipy.special import erf as _erf
    return _erf(z)


def ndtr(z, out=None):
    """The standard normal distribution function Phi (scipy.special.ndtr, imported on first
    use like :func:`erf`)."""
    from scipy.special import ndtr as _ndtr
    return _ndtr(z) if out is None else _ndtr(z, out=out)


def _tanh_derivatives(order: int, shift: float = 0.0) -> tuple[ArrayFn, ...]:
    # sigma^(k) is a polynomial P_k in t = tanh(z + shift), with P_{k+1}(t) = P_k'(t) (1 - t^2).
    out = []
    p = np.array([0.0, 1.0])  # P_0(t) = t
    for _ in range(order):
        p = poly.polymul(poly.polyder(p), [1.0, 0.0, -1.0])
        out.append(lambda z, c=p.copy(): poly.polyval(np.tanh(np.asarray(z) + shift), c))
    return tuple(out)


def _erf_derivatives(order: int) -> tuple[ArrayFn, ...]:
    # erf^(k)(z) = 2/sqrt(pi) (-1)^(k-1) H_{k-1}(z) exp(-z^2), H the physicists' Hermite.
    out = []
    for k in range(1, order + 1):
        c = np.zeros(k)
        c[k - 1] = 1.0
        out.append(lambda z, c=c, k=k: 2.0 / sqrt(np.pi) * (-1.0) ** (k - 1)
                   * phys_hermite.hermval(np.asarray(z), c) * np.exp(-np.asarray(z) ** 2))
    return tuple(out)


def _gelu_derivatives(order: int) -> tuple[ArrayFn, ...]:
    # sigma = z Phi(z): sigma' = Phi(z) + z phi(z) and, for k >= 2,
    # sigma^(k) = (-1)^(k-1) phi(z) (He_k(z) - He_{k-2}(z)) (from Phi^(j) = (-1)^(j-1) He_{j-1} phi).
    def phi(z):
        return np.exp(-0.5 * np.asarray(z, float) ** 2) / sqrt(2.0 * np.pi)

    out = [lambda z: ndtr(np.asarray(z, float)) + np.asarray(z, float) * phi(z)]
    for k in range(2, order + 1):
        out.append(lambda z, k=k: (-1.0) ** (k - 1) * phi(z) * (hermite(k, z) - hermite(k - 2, z)))
    return tuple(out)


def hermite_activation(coefficients: Sequence[float], name: str | None = None) -> Activation:
    """Polynomial activation sum_j c_j He_j(z) / sqrt(j!) (normalized Hermite basis).

    Example: ``hermite_activation([0, 1, 1, 1])`` is
    He_1 + He_2/sqrt(2) + He_3/sqrt(6). Beware: with reused batches such activations blow up
    at finite N (book: dv-pit-blowup).
    """
    c = np.asarray(coefficients, float)
    if c.ndim != 1 or c.size == 0 or not np.all(np.isfinite(c)):
        raise ValueError(f"activation: Hermite coefficients must be a non-empty list of finite "
                         f"numbers, got {coefficients!r}")
    he = c / np.sqrt([factorial(j) for j in range(c.size)])
    nonzero = np.flatnonzero(he)
    degree = int(nonzero[-1]) if nonzero.size else 0
    derivs = []
    d = he.copy()
    for _ in range(max(degree, 1) + 3):
        d = hermite_e.hermeder(d) if d.size > 1 else np.zeros(1)
        derivs.append(lambda z, d=d.copy(): hermite_e.hermeval(np.asarray(z, float), d))
    label = name or "hermite:" + ",".join(f"{x:g}" for x in c)
    return Activation(label, lambda z: hermite_e.hermeval(np.asarray(z, float), he),
                      tuple(derivs), degree=degree)


def shifted_tanh(shift: float = 0.5) -> Activation:
    """tanh(z + shift): no longer odd, so m_2 != 0 (book: dv-parity)."""
    return Activation(f"shifted_tanh({shift:g})", lambda z: np.tanh(np.asarray(z) + shift),
                      _tanh_derivatives(8, shift),
                      prime_flat=partial(_tanh_prime_inplace, shift=float(shift)))


def get_activation(spec: "str | Activation" = "tanh") -> Activation:
    """Activation by name (see module docstring) or pass an :class:`Activation` through.

    A name gives the same object every time, so that its Gaussian moments (kept in the
    activation, :meth:`Activation.m`, :meth:`Activation.kappa`) are integrated once per
    process rather than once per call of the theory's functions."""
    if isinstance(spec, Activation):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"activation must be a name {NAMED_ACTIVATIONS} or an Activation, "
                         f"got {spec!r}")
    return _named_activation(spec.strip().lower())


@lru_cache(maxsize=64)
def _named_activation(name: str) -> Activation:
    if name == "tanh":
        return Activation("tanh", np.tanh, _tanh_derivatives(8), prime_flat=_tanh_prime_inplace)
    if name == "erf":
        return Activation("erf", erf, _erf_derivatives(8))
    if name == "relu":
        return Activation("relu", lambda z: np.maximum(z, 0.0),
                          (lambda z: (np.asarray(z) > 0).astype(float),)
                          + tuple((lambda z: np.zeros_like(np.asarray(z, float))) for _ in range(7)),
                          breakpoints=(0.0,))
    if name == "shifted_tanh":
        return shifted_tanh(0.5)
    if name == "gelu":
        return Activation("gelu", lambda z: np.asarray(z, float) * ndtr(np.asarray(z, float)),
                          _gelu_derivatives(8), prime_flat=_gelu_prime_inplace)
    if name.startswith("hermite:"):
        try:
            coeffs = [float(t) for t in name.split(":", 1)[1].split(",")]
        except ValueError:
            raise ValueError(f"activation: could not read Hermite coefficients in {name!r}; "
                             "write e.g. 'hermite:0,1,1,1'") from None
        return hermite_activation(coeffs)
    raise ValueError(f"unknown activation {name!r}; choose one of {NAMED_ACTIVATIONS} "
                     "or pass an Activation")
