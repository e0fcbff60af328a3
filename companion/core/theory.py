"""The theory's predictions as plain functions of the parameters
(book: dv-sec-one-step, dv-sec-two-steps, dv-sec-reuse).

What the paper states (abstract; book: dv-paper-two-steps, dv-paper-reuse): W2 is a spiked
random matrix whose outliers are learned directions, their number is set through
floor(alpha2 / (1/2 - alpha1)); fresh batches learn only information-exponent-one
directions, reused batches can learn more "provided that alpha1, alpha2 are chosen
properly". What the public summary (AI-written, not endorsed by the authors) adds: the cap,
Lambda(alpha1, alpha2) = min(L - 1, floor(alpha2 / (1/2 - alpha1))) (L: "the degree of the
polynomial expansion"), and that alpha1 + alpha2 < 1/2 makes two steps act as one.
What the companion derives (from the predecessors' mechanism, book: dv-expansion) and reads into
it: Lambda counts the spike terms k = 1..Lambda beyond the first spike, so 1 + Lambda
outliers in all when every term exists; an odd activation keeps only the even orders
(:func:`n_spikes`); the spike exponents, the spiked-rectangular one-step formulas, the
first-direction alignments and the learnability predicate's detailed conditions.
"""

from __future__ import annotations

import math
from math import comb

import numpy as np

from companion.core.activations import get_activation
from companion.core.gaussian import hermite
from companion.core.network import BATCHES
from companion.core.targets import Target
from companion.core.validation import alpha_exponent, choice, positive_int, positive_real

# Lambda's floor is taken with this tolerance so that points on a boundary line
# alpha2 = k (1/2 - alpha1) count as on the boundary despite binary rounding
# (0.45 / (0.5 - 0.35) = 2.9999999999999996 in floating point).
_FLOOR_TOL = 1e-9
# A Gaussian moment below this is zero (odd moments of tanh come out near 1e-17).
_MOMENT_TOL = 1e-8


def lambda_count(alpha1: float, alpha2: float, L: int | None = None) -> int:
    """Lambda(alpha1, alpha2) = min(L - 1, floor(alpha2 / (1/2 - alpha1))) (the floor is the
    abstract's, the cap L - 1 the AI-written public summary's; book: dv-exponents). The
    summary calls it "the number of these outliers"; the companion's derivation reads it as
    the number of spike terms k = 1..Lambda beyond the first spike (:func:`n_spikes`).

    ``L`` is the degree of a polynomial activation (``None``: not polynomial, no cap). A
    point on a line alpha2 = k (1/2 - alpha1) counts as k (:func:`phase_line`).
    """
    alpha1 = alpha_exponent(alpha1, "alpha1")
    alpha2 = alpha_exponent(alpha2, "alpha2")
    count = math.floor(alpha2 / (0.5 - alpha1) + _FLOOR_TOL)
    if L is not None:
        count = min(positive_int(L, "L") - 1, count)
    return int(count)


def phase_line(alpha1: float, alpha2: float, tol: float = 1e-6) -> int | None:
    """The k >= 1 with alpha2 = k (1/2 - alpha1) up to ``tol`` (the point lies on a phase
    line, where the term of order k has exponent zero: Theta(1), neither growing nor
    vanishing, a knife-edge for the count), else ``None``. Example: (0.35, 0.45) lies on the
    k = 3 line, (0.45, 0.45) on the k = 9 line."""
    alpha1 = alpha_exponent(alpha1, "alpha1")
    alpha2 = alpha_exponent(alpha2, "alpha2")
    ratio = alpha2 / (0.5 - alpha1)
    k = round(ratio)
    return int(k) if k >= 1 and abs(alpha2 - k * (0.5 - alpha1)) <= tol else None


#: A term whose growth exponent is within this of zero is a knife edge at the sizes one can
#: run: N^0.05 changes by a factor 1.23 from N = 256 to 16384, so such a term neither grows
#: nor vanishes noticeably there and its constant, not N, decides whether it makes an
#: outlier (:func:`nearest_line`; book: dv-exponents).
KNIFE_EDGE = 0.05


def nearest_line(alpha1: float, alpha2: float, activation=None,
                 batch: str = "reused") -> tuple[int, float]:
    """The phase line nearest to (alpha1, alpha2) among the orders k >= 1 whose term
    exists: ``(k, exponent)`` with the exponent alpha2 - k (1/2 - alpha1) closest to zero
    (book: dv-exponents; it is also the vertical distance alpha2 - k (1/2 - alpha1) to the
    line). ``activation=None`` takes every order; an activation keeps the orders
    :func:`term_exists` admits (tanh: the even ones) up to its degree. A point is a knife
    edge when ``abs(exponent) < KNIFE_EDGE``: the limit's count (:func:`n_spikes`) is
    decided by the sign of an exponent that reachable N cannot resolve. Examples:
    (0.38, 0.45) -> (4, -0.03); (0.30, 0.38) -> (2, -0.02); (0.35, 0.45) -> (3, 0.0)."""
    alpha1 = alpha_exponent(alpha1, "alpha1")
    alpha2 = alpha_exponent(alpha2, "alpha2")
    degree = None if activation is None else get_activation(activation).degree
    # exponents fall by 1/2 - alpha1 per order: only the orders around alpha2 / (1/2 - alpha1)
    # can be nearest
    centre = max(1, int(round(alpha2 / (0.5 - alpha1))))
    best = None
    for k in range(1, centre + 4):
        if degree is not None and k > degree - 1:
            break
        if activation is not None and not term_exists(k, activation, batch):
            continue
        e = spike_exponent(alpha1, alpha2, k)
        if best is None or abs(e) < abs(best[1]) - 1e-12:
            best = (k, e)
        if e < 0 and best is not None and abs(e) > abs(best[1]):
            break
    if best is None:
        raise ValueError(f"activation: {activation!r} has no term of order k >= 1")
    return best[0], float(best[1])


def term_exists(k: int, activation="tanh", batch: str = "reused") -> bool:
    """Whether the spike term of order k has a nonzero leading coefficient, whatever its size
    (book: dv-parity). k = 0 (the first spike, m_1) always counts as present.

    With a fresh batch term k carries the factor m_{k+1} = E sigma^(k+1)(zeta); with a reused
    batch it carries m_{k+1} and the kappa_{k,r} = E[sigma^(k+1) sigma'^r], r = 1..k. For an
    odd activation (tanh, erf) every sigma^(k+1) with k odd is odd, so all these moments
    vanish and only even k exist. Beyond the activation's available derivatives only m_{k+1}
    is checked.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"k must be a non-negative integer, got {k!r}")
    if k == 0:
        return True
    act, batch = get_activation(activation), choice(batch, "batch", BATCHES)
    # once per activation, as its moments (a named activation is one object per process)
    return act.memo(("term_exists", int(k), batch), lambda: _term_exists(int(k), act, batch))


def _term_exists(k: int, act, batch: str) -> bool:
    """:func:`term_exists` on checked arguments."""
    # relative to the size of what is integrated: the quadrature error of m_j = E[sigma He_j]
    # grows like E|sigma He_j| (1e7 for tanh at j = 22, whose m_22 = 0 comes out as 6e-8)
    ratios = [_relative(act.m(k + 1), lambda z: act.sigma(z) * hermite(k + 1, z), act)]
    if batch == "reused" and k + 1 <= len(act.derivatives):
        ratios += [_relative(act.kappa(k, r),
                             lambda z, r=r: act.derivative(z, k + 1) * act.derivative(z, 1) ** r,
                             act) for r in range(1, k + 1)]
    return max(ratios) > _MOMENT_TOL


def _relative(moment: float, integrand, act) -> float:
    """|E f| / max(1, E|f|): a moment measured against the scale of its integrand."""
    scale = act.expectation(lambda z: np.abs(integrand(z)))
    return abs(moment) / max(1.0, scale)


def present_terms(alpha1: float, alpha2: float, activation="tanh",
                  batch: str = "reused") -> list[int]:
    """Orders k = 1..Lambda whose spike term exists (:func:`term_exists`): the spikes the
    second step adds for this activation (book: dv-parity). Lambda is capped
    by the degree of a polynomial activation."""
    act = get_activation(activation)
    lam = lambda_count(alpha1, alpha2, act.degree)
    return [k for k in range(1, lam + 1) if term_exists(k, act, batch)]


def n_spikes(alpha1: float, alpha2: float, activation="tanh", batch: str = "reused") -> int:
    """Outliers of W2 in all that the companion's derivation predicts
    (book: dv-exponents, dv-parity): the first spike (left vector a) plus one per existing
    term k = 1..Lambda (:func:`present_terms`).

    With an activation that has every order (tanh(z + 1/2), GELU with a reused batch) this is
    1 + Lambda; with an odd one (tanh, erf) only the even orders exist: 1 + floor(Lambda/2).
    Examples at (0.38, 0.45), Lambda = 3: tanh 2, shifted_tanh 4. These are limits: at a
    finite N a term makes its own outlier only once its separate strength passes the BBP
    threshold (``companion.core.spikes``). The paper's own count ("the number of these
    outliers ... Lambda") is :func:`lambda_count`.
    """
    return 1 + len(present_terms(alpha1, alpha2, activation, batch))


def lambda_boundary(k: int, alpha1):
    """The line alpha2 = k (1/2 - alpha1) where Lambda reaches k (for plotting phase diagrams)."""
    return k * (0.5 - np.asarray(alpha1, float))


def phase_region(alpha1: float, alpha2: float, L: int | None = None) -> str:
    """A short name for the phase of (alpha1, alpha2): ``"one-step"`` when Lambda = 0 (two steps
    act as one step with eta1 + eta2, reused batch), else ``"Lambda=k"``."""
    lam = lambda_count(alpha1, alpha2, L)
    return "one-step" if lam == 0 else f"Lambda={lam}"


def spike_exponent(alpha1: float, alpha2: float, k: int) -> float:
    """Growth exponent of the k-th spike term of W2 (book: dv-exponents):
    its operator norm scales as N^(alpha2 - k (1/2 - alpha1)) for k >= 1; the first spike
    (k = 0) grows as N^max(alpha1, alpha2)."""
    alpha1 = alpha_exponent(alpha1, "alpha1")
    alpha2 = alpha_exponent(alpha2, "alpha2")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"k must be a non-negative integer, got {k!r}")
    if k == 0:
        return max(alpha1, alpha2)
    return alpha2 - k * (0.5 - alpha1)


def spiked_rectangular(theta: float, N: int, d: int) -> dict:
    """Top singular value and squared overlaps of W0 + theta u v^T, W0 (N x d) with entries
    N(0, 1/d), u in R^N and v in R^d unit vectors (Benaych-Georges & Nadakuditi 2012;
    book: dv-spiked-rectangular).

    Returns ``s1``, ``left_overlap2`` (``|<u1, u>|^2``), ``right_overlap2`` (``|<v1, v>|^2``) and
    ``detectable`` (theta above the threshold). Below the threshold s1 sticks to the bulk
    edge and the overlaps vanish.
    """
    theta = positive_real(theta, "theta", allow_zero=True)
    N, d = positive_int(N, "N"), positive_int(d, "d")
    if N > d:
        # Transpose: W0^T = sqrt(N/d) * (d x N matrix with entries N(0, 1/N)).
        scale = math.sqrt(N / d)
        out = spiked_rectangular(theta / scale, d, N)
        return {"s1": out["s1"] * scale, "left_overlap2": out["right_overlap2"],
                "right_overlap2": out["left_overlap2"], "detectable": out["detectable"]}
    c = N / d
    if theta <= c ** 0.25:
        return {"s1": 1 + math.sqrt(c), "left_overlap2": 0.0, "right_overlap2": 0.0,
                "detectable": False}
    t2 = theta * theta
    return {
        "s1": math.sqrt((1 + t2) * (c + t2)) / theta,
        "left_overlap2": 1 - c * (1 + t2) / (t2 * (t2 + c)),
        "right_overlap2": 1 - (c + t2) / (t2 * (t2 + 1)),
        "detectable": True,
    }


def predicted_spike_cos2(strength, own_cos2, N: int, d: int | None = None) -> np.ndarray:
    """The cos^2 of a spike's right singular vector with each target direction, predicted
    from its term (book: dv-spike-overlap; a derivation of this companion): the term's own
    part carries ``own_cos2`` of each direction (``companion.core.spikes.own_part_cos2``
    measures it, ``companion.core.finite_n.predicted_terms`` predicts it), and the spike's
    right vector keeps the BBP share of that part, the right overlap of
    :func:`spiked_rectangular` at the term's separate ``strength`` (1 - 1/theta^2 for
    N = d; 0 below the threshold). The limit law: near the threshold a finite N keeps more
    than it (tests/core/test_theory.py measures how much)."""
    d = positive_int(N, "N") if d is None else d
    overlap = spiked_rectangular(float(strength), positive_int(N, "N"), positive_int(d, "d"))
    return overlap["right_overlap2"] * np.asarray(own_cos2, float)


def one_step_theta(eta: float, m1: float, mu_star, second_moment: float, psi: float = 1.0,
                   a_norm: float = 1.0) -> float:
    """Spike strength of one step: theta = eta m1 ||a|| ||u1|| with
    ||u1||^2 -> ||mu*||^2 + E[y^2] / psi (book: dv-one-step-spike)."""
    mu2 = float(np.sum(np.square(mu_star)))
    return abs(eta * m1) * a_norm * math.sqrt(mu2 + second_moment / psi)


def u1_alignment(mu_star, second_moment: float, psi: float = 1.0) -> np.ndarray:
    """cos^2(u1, beta*_k) -> mu*_k^2 / (||mu*||^2 + E[y^2]/psi), u1 = X^T y / n
    (book: dv-one-step-spike)."""
    mu = np.atleast_1d(np.asarray(mu_star, float))
    return mu ** 2 / (np.sum(mu ** 2) + second_moment / psi)


def one_step_prediction(eta: float, target: Target, activation="tanh", N: int = 1000,
                        d: int | None = None, n: int | None = None, a_norm: float = 1.0) -> dict:
    """The one-step update W1 = W0 + eta G(W0) as a spiked rectangular matrix
    (book: dv-one-step-spike): ``theta``, ``s1``, ``left_overlap2`` (with a/||a||),
    ``right_overlap2`` (with u1/||u1||) and ``cos2`` (top right singular vector with each
    beta*_k)."""
    d = N if d is None else d
    n = N if n is None else n
    act = get_activation(activation)
    psi = n / d
    theta = one_step_theta(eta, act.m(1), target.mu_star, target.second_moment, psi, a_norm)
    out = spiked_rectangular(theta, N, d)
    out["theta"] = theta
    out["cos2"] = out["right_overlap2"] * u1_alignment(target.mu_star, target.second_moment, psi)
    return out


def first_direction_alignment(batch: str, mu_star, second_moment: float, psi: float = 1.0,
                              eta1: float = 1.0, eta2: float = 1.0) -> np.ndarray:
    """Limit of cos^2(top right singular vector of W2, beta*_k) when the first spike diverges
    (alpha > 0), companion derivation (book: dv-first-direction)::

        reused: mu_k^2 / (||mu||^2 + E[y^2]/psi)   (the first spike is along u1);
        fresh:  (eta1+eta2)^2 mu_k^2 / ((eta1+eta2)^2 ||mu||^2 + (eta1^2+eta2^2) E[y^2]/psi)
                (it is along eta1 u1 + eta2 u2, whose noises are independent).
    """
    batch = choice(batch, "batch", BATCHES)
    mu = np.atleast_1d(np.asarray(mu_star, float))
    noise = second_moment / positive_real(psi, "psi")
    if batch == "reused":
        return mu ** 2 / (np.sum(mu ** 2) + noise)
    s = eta1 + eta2
    return s * s * mu ** 2 / (s * s * np.sum(mu ** 2) + (eta1 ** 2 + eta2 ** 2) * noise)


def is_learnable(target: Target, k: int, batch: str, alpha1: float, alpha2: float,
                 activation="tanh", tol: float = 1e-8) -> bool | None:
    """Whether direction beta*_k of ``target`` is learned by two steps (book: dv-learnability);
    ``None`` where the theory makes no prediction.

    The paper states: fresh batches learn only information-exponent-one directions
    (mu*_k != 0); reused batches can learn directions of higher exponent for suitable alphas.
    Companion derivation of the reused condition: the spike of order k' = 1..Lambda sees
    beta*_k through kappa_{k',r} E[z_k y^{r+1}] E[s^(k'-r)], r = 1..k', where s = m1 h^(-i) is
    (for mu*_k = 0) a Gaussian field independent of the sample, so E[s^(k'-r)] = 0 unless
    k' - r is even. beta*_k is learned iff mu*_k != 0 or some k' <= Lambda and r <= k' with
    k' - r even have kappa_{k',r} != 0 and E[z_k y^{r+1}] != 0. Examples: He_3 with tanh
    needs Lambda >= 2 (k' = r = 2: kappa_{2,2} E[z y^3]); even links (He_2) are never learned.

    An activation with a kink (ReLU) lies outside the smooth expansion (smoothing it makes
    the kappa diverge): for a direction with mu*_k = 0 and a reused batch the answer is
    ``None`` (no prediction), not False.
    """
    batch = choice(batch, "batch", BATCHES)
    if not 0 <= k < len(target.links):
        raise ValueError(f"k must index a target direction (0..{len(target.links) - 1}), got {k!r}")
    if abs(target.mu_star[k]) > tol:
        return True
    if batch == "fresh":
        return False
    act = get_activation(activation)
    if not act.smooth:
        return None
    lam = lambda_count(alpha1, alpha2, act.degree)
    # kappa_{k',r} needs the derivative of order k' + 1
    for kp in range(1, min(lam, len(act.derivatives) - 1) + 1):
        for r in range(kp, 0, -2):       # r = kp, kp - 2, ...: k' - r even
            if abs(comb(kp, r) * act.kappa(kp, r)) > tol and abs(target.z_y_moment(k, r + 1)) > tol:
                return True
    return False
