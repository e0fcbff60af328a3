"""Experiments of the chapter "One step: a rank-one spike" (book/one_step.ipynb).

The one-step spike (book: dv-one-step-spike, dv-spiked-rectangular) and experiments E1 and
E2 (book: reg-experiments), plus the chapter's own checks: the
gradient's rank-one part, the spectrum of W1, rectangular weights, and which target
directions one step sees. One gradient step on the first layer,

    W1 = W0 + eta G(W0; X, y),    G(W0; X, y) = m1 a u1^T + R,    u1 = X^T y / n,

is a rank-one spike on top of the Marchenko-Pastur bulk of W0 (Ba et al. 2022;
Benaych-Georges & Nadakuditi 2012). Every experiment is a *unit function* (one parameter
point, one seed, a dict of numbers and arrays) and an :class:`~companion.core.experiment.Experiment`
that lists its units; ``EXPERIMENT.run(N=..., seeds=...)`` returns
:class:`~companion.core.runs.Runs` (the chapter calls them at N = 1000; ``reproduce`` runs E1 and
E2 at paper scale). Nothing here draws a figure.

Seeding: :func:`draw_one_step` draws through :func:`companion.core.network.draw_run`, the one
seeding path that :func:`companion.run_two_steps` uses too, so with the same seed, sizes and
target the W0, a and first batch are the same as in the two-step chapters, and
``draw.W1(eta)`` equals ``run_two_steps(..., alpha1=0, c1=eta).W1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from companion.core.activations import Activation, get_activation
from companion.core.alignment import cos2_with_directions, subspace_projection
from companion.core.blas import limited
from companion.core.experiment import Experiment, precision
from companion.core.gaussian import gaussian_expectation
from companion.core.network import (
    SharedDraws,
    descent_direction,
    draw_run,
    kept_first_step,
)
from companion.core.spectra import singular_values, top_singular
from companion.core.targets import Target, target_moments
from companion.core.theory import (
    one_step_prediction,
    one_step_theta,
    spiked_rectangular,
    u1_alignment,
)
from companion.core.validation import positive_int, positive_real, seed_list


def _top(W: np.ndarray, k: int = 1):
    """:func:`companion.top_singular` with a single BLAS thread.

    The Lanczos iteration is bound by matrix-vector products, which more BLAS threads do
    not speed up at these sizes, while threads waiting on a shared machine slow the sweeps
    down; so the sweeps pin BLAS to one thread for this step only (the gradient keeps all
    threads), through :func:`companion.core.blas.limited`, whose controller is made once.
    """
    with limited(1):
        return top_singular(W, k)


def _sizes(N, d, n) -> tuple[int, int, int]:
    N = positive_int(N, "N")
    d = N if d is None else positive_int(d, "d")
    n = N if n is None else positive_int(n, "n")
    return N, d, n


@dataclass
class OneStepDraw:
    """One draw of data, target and network, and the gradient at initialization.

    ``G`` is the descent direction G(W0; X, y) = -dL/dW (book: dv-two-steps), computed as the update
    computes it (:func:`companion.core.network.descent_direction`); ``W1(eta)`` is the weight
    after one step of size ``eta``.
    """

    W0: np.ndarray
    a: np.ndarray
    X: np.ndarray
    y: np.ndarray
    G: np.ndarray
    target: Target
    activation: Activation
    seed: int

    @property
    def N(self) -> int:
        return self.W0.shape[0]

    @property
    def d(self) -> int:
        return self.W0.shape[1]

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def u1(self) -> np.ndarray:
        """u1 = X^T y / n, the right vector of the spike (book: dv-one-step-spike)."""
        return self.X.T @ self.y / self.n

    def W1(self, eta: float) -> np.ndarray:
        """W0 + eta G(W0; X, y), in the draw's precision (``eta`` as a Python float: a
        NumPy float64 would promote a float32 draw)."""
        return self.W0 + float(eta) * self.G

    def spike(self) -> np.ndarray:
        """The rank-one part m1 a u1^T of G (book: dv-one-step-spike)."""
        return self.activation.m(1) * np.outer(self.a, self.u1)


def draw_one_step(N: int = 1000, d: int | None = None, n: int | None = None, target="he1",
                  activation="tanh", noise: float = 0.0, seed: int = 0,
                  dtype=np.float64, shared=None) -> OneStepDraw:
    """Draw (target, W0, a, X, y) from ``seed`` and compute G(W0; X, y) (book: dv-model,
    dv-two-steps).

    ``d`` and ``n`` default to N. The draws are those of :func:`companion.run_two_steps`
    (both call :func:`companion.core.network.draw_run`), so they agree with the two-step chapters.
    """
    N, d, n = _sizes(N, d, n)
    seed = seed_list([seed])[0]
    act = get_activation(activation)
    r = draw_run(N, d, n, target, seed, noise, dtype, shared=shared)
    G = kept_first_step(r, seed, target, noise, act, shared)   # where shared, else:
    if G is None:
        G = descent_direction(r.W0, r.a, r.X1, r.y1, act)      # G(W0; X, y)
    return OneStepDraw(r.W0, r.a, r.X1, r.y1, G, r.target, act, seed)


def shared_draws(Ns, seeds) -> SharedDraws:
    """A store for the draws and first steps of every width in ``Ns`` (N = d = n) and seed,
    which the chapter's experiments share (``EXPERIMENT.run(..., shared=...)``): each width
    and seed is drawn, and its gradient computed, once; every result is the one its unit
    computes alone, bit for bit (:class:`companion.core.network.SharedDraws`)."""
    return SharedDraws(groups=len(list(Ns)) * len(seed_list(seeds)))


def threshold_eta(target, activation="tanh", N: int = 1000, d: int | None = None,
                  n: int | None = None, a_norm: float = 1.0) -> float:
    """Step size at which the one-step spike leaves the bulk (book: dv-spiked-rectangular).

    The spiked rectangular model W0 + theta u v^T (W0 entries N(0, 1/d), phi = N/d) has an
    outlier iff theta > phi^(1/4) (for phi <= 1 directly, for phi > 1 after the transposition
    of :func:`companion.spiked_rectangular`). With theta = eta m1 ||a|| sqrt(||mu*||^2 +
    E[y^2]/psi) this gives eta_c = phi^(1/4) / (m1 ||a|| sqrt(||mu*||^2 + E[y^2]/psi)).
    """
    N, d, n = _sizes(N, d, n)
    tgt = target if isinstance(target, Target) else target_moments(target)
    act = get_activation(activation)
    per_unit_eta = one_step_theta(1.0, act.m(1), tgt.mu_star, tgt.second_moment, n / d, a_norm)
    return (N / d) ** 0.25 / per_unit_eta


def transition_theory(etas: Iterable[float], target="he1", activation="tanh", N: int = 1000,
                      d: int | None = None, n: int | None = None) -> dict:
    """Theory curves of E1 on any grid of eta (no simulation): ``s1``, ``cos2``,
    ``overlap_u1``, ``overlap_a``, ``theta`` (book: dv-spiked-rectangular,
    :func:`companion.one_step_prediction`).
    ``target`` and ``activation`` are names or objects (only their moments enter)."""
    etas = np.array([positive_real(e, "eta", allow_zero=True) for e in etas])
    N, d, n = _sizes(N, d, n)
    tgt = target if isinstance(target, Target) else target_moments(target)
    act = get_activation(activation)      # once: a name would be looked up for every eta
    preds = [one_step_prediction(float(e), tgt, act, N, d, n) for e in etas]
    return {"eta": etas,
            "s1": np.array([p["s1"] for p in preds]),
            "cos2": np.array([float(p["cos2"][0]) for p in preds]),
            "overlap_u1": np.array([p["right_overlap2"] for p in preds]),
            "overlap_a": np.array([p["left_overlap2"] for p in preds]),
            "theta": np.array([p["theta"] for p in preds])}


def noise_level(target: Target, k: int, d: int, n: int) -> float:
    """Squared cosine of u1 = X^T y / n with a direction beta*_k that has mu*_k = 0, from
    sampling noise alone (companion derivation, book: dv-one-step-spike):

        E<u1, beta*_k>^2 / E||u1||^2 = E[z_k^2 y^2] / (n ||mu*||^2 + d E[y^2])   (+ O(1/n^2)).

    It is O(1/d) (chance for a random direction is 1/d; a heavy-tailed z_k y makes it a
    constant times larger, 7/d for y = He_3(z)/sqrt(6)) and vanishes as d grows: nothing is
    learned. For mu*_k != 0 use :func:`companion.u1_alignment` instead.
    """
    if not 0 <= k < len(target.links):
        raise ValueError(f"k must index a target direction (0..{len(target.links) - 1}), got {k!r}")
    d, n = positive_int(d, "d"), positive_int(n, "n")
    link = target.links[k]
    rest = Target(target.links[:k] + target.links[k + 1:], target.directions[:0],
                  target.noise).y_moments(2)
    z2g2 = gaussian_expectation(lambda z: z * z * link(z) ** 2)
    z2g = gaussian_expectation(lambda z: z * z * link(z))
    ez2y2 = z2g2 + 2.0 * z2g * rest[1] + rest[2]
    return float(ez2y2 / (n * np.sum(np.square(target.mu_star)) + d * target.second_moment))


# -- the unit functions: one parameter point, one seed ---------------------------------------

def decomposition_unit(N: int, target: str, activation: str, seed: int, phi: float = 1.0,
                       psi: float = 1.0, dtype: str = "float64", shared=None) -> dict:
    """||G||_op, ||m1 a u1^T||_op and ||R||_op = ||G - m1 a u1^T||_op for one draw
    (book: dv-one-step-spike).

    The claim checked: G(W0) is rank one up to a remainder R with ||R||_op = O~(N^-1/2),
    while the spike m1 ||a|| ||u1|| stays of order one. ``d = N / phi``, ``n = psi d``;
    ``dtype="float32"`` for the chapter's own runs.
    """
    N = positive_int(N, "N")
    phi, psi = positive_real(phi, "phi"), positive_real(psi, "psi")
    d = max(1, round(N / phi))
    n = max(1, round(psi * d))
    draw = draw_one_step(N, d, n, target, activation, seed=seed, dtype=dtype, shared=shared)
    # operator norm of the rank-one part: |m1| ||a|| ||u1||
    spike_norm = abs(draw.activation.m(1)) * np.linalg.norm(draw.a) * np.linalg.norm(draw.u1)
    return {"g_norm": float(_top(draw.G, 1)[1][0]), "spike_norm": float(spike_norm),
            "r_norm": float(_top(draw.G - draw.spike(), 1)[1][0])}


def spectrum_unit(N: int, eta: float, target: str, activation: str, seed: int,
                  d: int | None = None, n: int | None = None, dtype: str = "float64",
                  shared=None) -> dict:
    """Every singular value of W0 and of W1 = W0 + eta G (dense SVD), the bulk edge
    1 + sqrt(phi), phi = N/d, and the predicted outlier of W1 (book: dv-spiked-rectangular).
    ``dtype="float32"`` for the chapter's own run."""
    N, d, n = _sizes(N, d, n)
    draw = draw_one_step(N, d, n, target, activation, seed=seed, dtype=dtype, shared=shared)
    pred = one_step_prediction(eta, draw.target, activation, N, d, n)
    return {"s_W0": singular_values(draw.W0), "s_W1": singular_values(draw.W1(eta)),
            "phi": N / d, "edge": 1.0 + np.sqrt(N / d), "theory_s1": float(pred["s1"]),
            "detectable": float(pred["detectable"])}


def transition_unit(N: int, etas, target: str, activation: str, seed: int,
                    d: int | None = None, n: int | None = None, dtype: str = "float64",
                    shared=None) -> dict:
    """E1: one step at eta = Theta(1), the BBP-type transition (book: dv-spiked-rectangular), one
    seed.

    The gradient is computed once and W1 = W0 + eta G is formed for every eta (``d`` and
    ``n`` default to N). Measured (arrays over eta): ``s1`` (top singular value),
    ``cos2_beta`` (cos^2 of the top right singular vector with beta*_1, the first target
    direction), ``overlap_u1`` (with u1 / ||u1||) and ``overlap_a`` (top left singular
    vector with a / ||a||). Theory (arrays over eta, the limits with ||a|| = 1, from
    :func:`companion.one_step_prediction`): ``theory_s1``, ``theory_cos2``,
    ``theory_overlap_u1``, ``theory_overlap_a``; ``eta_c`` the threshold and ``edge`` the
    bulk edge 1 + sqrt(phi). ``a_norm`` and ``u1_norm`` are this draw's ||a|| and ||u1||,
    and ``plugin_s1`` the predicted s1 with these plugged into theta = eta m1 ||a|| ||u1||
    instead of their limits: it separates the seed-to-seed spread of theta from the error
    of the formula.
    """
    etas = np.array([positive_real(e, "eta", allow_zero=True) for e in etas])
    N, d, n = _sizes(N, d, n)
    act = get_activation(activation)
    draw = draw_one_step(N, d, n, target, act, 0.0, seed, dtype=dtype, shared=shared)
    tgt, u1 = draw.target, draw.u1
    a_norm, u1_norm = float(np.linalg.norm(draw.a)), float(np.linalg.norm(u1))
    out = {k: np.empty(len(etas)) for k in ("s1", "cos2_beta", "overlap_u1", "overlap_a",
                                            "plugin_s1")}
    for j, eta in enumerate(etas):
        theta = abs(eta * act.m(1)) * a_norm * u1_norm
        out["plugin_s1"][j] = spiked_rectangular(theta, N, d)["s1"]
        U, s, Vt = _top(draw.W1(eta), 1)
        out["s1"][j] = s[0]
        out["cos2_beta"][j] = cos2_with_directions(Vt, tgt.directions[:1])[0, 0]
        out["overlap_u1"][j] = cos2_with_directions(Vt, u1)[0, 0]
        out["overlap_a"][j] = cos2_with_directions(U.T, draw.a)[0, 0]
    th = transition_theory(etas, tgt, activation, N, d, n)
    return {"eta": etas, **{k: out[k] for k in ("s1", "cos2_beta", "overlap_u1", "overlap_a",
                                               "plugin_s1")},
            "theory_s1": th["s1"], "theory_cos2": th["cos2"],
            "theory_overlap_u1": th["overlap_u1"], "theory_overlap_a": th["overlap_a"],
            "eta_c": float(threshold_eta(tgt, activation, N, d, n)),
            "edge": float(1.0 + np.sqrt(N / d)), "a_norm": a_norm, "u1_norm": u1_norm}


def growth_unit(N: int, alphas, target: str, activation: str, seed: int, c: float = 1.0,
                psi: float = 1.0, dtype: str = "float64", shared=None) -> dict:
    """E2: one step with eta = c N^alpha, alpha >= 0, at N = d and n = psi d
    (book: dv-one-step-spike), one seed.

    Measured (arrays over alpha): ``s1``, ``cos2_beta`` (top right singular vector with
    beta*_1) and ``overlap_u1`` (with u1 / ||u1||); ``cos2_u1`` is cos^2(u1, beta*_1)
    itself, the level the alignment saturates at. Theory: ``theory_s1`` and ``theory_cos2``
    (arrays over alpha) from the spiked rectangular formulas with
    theta = eta m1 sqrt(mu*^2 + E[y^2]/psi); ``saturation`` = mu*^2 / (mu*^2 + E[y^2]/psi),
    the limit of cos^2(u1, beta*) (:func:`companion.u1_alignment`).
    """
    alphas = np.array([float(a) for a in alphas])
    if np.any(alphas < 0):
        raise ValueError(f"alphas must be non-negative, got {alphas!r}")
    N = positive_int(N, "N")
    c, psi = positive_real(c, "c"), positive_real(psi, "psi")
    n = max(1, round(psi * N))
    draw = draw_one_step(N, N, n, target, activation, 0.0, seed, dtype=dtype, shared=shared)
    tgt, u1 = draw.target, draw.u1
    out = {k: np.empty(len(alphas)) for k in ("s1", "cos2_beta", "overlap_u1", "theory_s1",
                                              "theory_cos2")}
    for k, alpha in enumerate(alphas):
        _, s, Vt = _top(draw.W1(c * N ** alpha), 1)
        out["s1"][k] = s[0]
        out["cos2_beta"][k] = cos2_with_directions(Vt, tgt.directions[:1])[0, 0]
        out["overlap_u1"][k] = cos2_with_directions(Vt, u1)[0, 0]
        p = one_step_prediction(c * N ** alpha, tgt, activation, N, N, n)
        out["theory_s1"][k], out["theory_cos2"][k] = p["s1"], float(p["cos2"][0])
    return {"alpha": alphas, **out,
            "cos2_u1": float(cos2_with_directions(u1, tgt.directions[:1])[0, 0]),
            "saturation": float(u1_alignment(tgt.mu_star, tgt.second_moment, psi)[0])}


def directions_unit(N: int, target: str, alpha: float, c: float, top: int, activation: str,
                    seed: int, dtype: str = "float64", shared=None) -> dict:
    """Which target directions one step sees (if mu* = 0 nothing is learned,
    book: dv-one-step-spike): one step with eta = c N^alpha at N = d = n, one seed.

    Arrays over the target's directions k: ``cos2`` (top right singular vector of W1 with
    beta*_k), ``proj_top`` (squared norm of the projection of beta*_k on the top-``top``
    right singular subspace; chance top/d), ``cos2_u1`` (u1 with beta*_k), ``mu_star`` and
    ``theory_cos2``: the spiked-rectangular prediction (:func:`companion.one_step_prediction`)
    for mu*_k != 0 and, for mu*_k = 0, the sampling-noise level of :func:`noise_level`
    carried by the spike plus the 1/d of the rest of the vector. Numbers: ``s1``,
    ``theory_s1``, ``eta`` and ``chance`` = 1/d. :func:`direction_names` names the k.
    ``dtype="float32"`` for the chapter's own runs.
    """
    N, top = positive_int(N, "N"), positive_int(top, "top")
    eta = positive_real(c, "c") * N ** float(alpha)
    draw = draw_one_step(N, N, N, target, activation, seed=seed, dtype=dtype, shared=shared)
    tgt = draw.target
    _, s, Vt = _top(draw.W1(eta), top)
    pred = one_step_prediction(eta, tgt, activation, N, N, N)
    overlap = pred["right_overlap2"]
    theory = [float(pred["cos2"][k]) if abs(tgt.mu_star[k]) > 1e-8
              else overlap * noise_level(tgt, k, N, N) + (1.0 - overlap) / N
              for k in range(len(tgt.links))]
    return {"cos2": np.asarray(cos2_with_directions(Vt[:1], tgt.directions)[0], float),
            "proj_top": np.asarray(subspace_projection(Vt, tgt.directions), float),
            "cos2_u1": np.asarray(cos2_with_directions(draw.u1, tgt.directions)[0], float),
            "mu_star": np.asarray(tgt.mu_star, float), "theory_cos2": np.array(theory),
            "s1": float(s[0]), "theory_s1": float(pred["s1"]), "eta": float(eta),
            "chance": 1.0 / N}


def u1_unit(N: int, target: str, seed: int, shared=None) -> dict:
    """cos^2(u1, beta*_k) for one draw of the data alone (no network, no gradient): a cheap
    check of :func:`noise_level` and :func:`companion.u1_alignment`, run over many seeds to
    average the heavy-tailed noise (book: dv-one-step-spike). The streams are those of
    :func:`draw_one_step`, so seed s gives the same u1 there. Returns ``cos2`` (array over
    the directions) and ``d``; the prediction is :func:`u1_theory`."""
    N = positive_int(N, "N")
    r = draw_run(N, N, N, target, seed, network=False, shared=shared)
    return {"cos2": cos2_with_directions(r.X1.T @ r.y1 / N, r.target.directions)[0], "d": N}


def u1_theory(target: str, N: int) -> np.ndarray:
    """The prediction for :func:`u1_unit` at N = d = n, per direction: u1_alignment for
    mu*_k != 0, :func:`noise_level` otherwise."""
    tgt = target_moments(target)
    limit = u1_alignment(tgt.mu_star, tgt.second_moment, 1.0)
    return np.array([limit[k] if abs(tgt.mu_star[k]) > 1e-8 else noise_level(tgt, k, N, N)
                     for k in range(len(tgt.links))])


def direction_names(target: str) -> list[str]:
    """The names of the links of a target, one per direction (``"he1+he3"`` -> he1, he3)."""
    return [link.name for link in target_moments(target).links]


# -- the experiments of this chapter, as units for the book and for reproduce ---------------
#: E1's step sizes (eta = Theta(1)) and E2's exponents (eta = N^alpha)
E1_ETAS = (0.0, 0.5, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0)
E2_ALPHAS = tuple(round(a, 2) for a in np.arange(0.0, 0.451, 0.05))
#: the targets of the "which directions" check and its step size eta = N^(1/4)
DIRECTION_TARGETS = ("he1", "he3", "he1+he3")
DIRECTION_ALPHA = 0.25

_E1_SIZES = {"small": dict(N=1000, seeds=5, float32_from=0), "paper": dict(N=4096, seeds=4)}
_E2_SIZES = {"small": dict(Ns=[125, 250, 500, 1000], seeds=5, float32_from=0),
             "paper": dict(Ns=[512, 1024, 2048, 4096], seeds=4)}
_RANK_ONE_SIZES = {"small": dict(Ns=[125, 250, 500, 1000], seeds=5, float32_from=0),
                   "paper": dict(Ns=[512, 1024, 2048, 4096], seeds=4)}
_SPECTRUM_SIZES = {"small": dict(N=1000, seeds=1, float32_from=0),
                   "paper": dict(N=4096, seeds=1)}
_DIRECTIONS_SIZES = {"small": dict(Ns=[125, 250, 500, 1000], seeds=5, float32_from=0),
                     "paper": dict(Ns=[512, 1024, 2048, 4096], seeds=4)}
_U1_SIZES = {"small": dict(N=250, seeds=400), "paper": dict(N=1000, seeds=400)}


def _optional(z, *keys) -> dict:
    """The entries of the sizes dict ``z`` among ``keys`` (parameters that only some runs
    set, e.g. the rectangular shapes d and n: absent from the stored runs' parameters)."""
    return {k: z[k] for k in keys if k in z}


def _e1_grid(z):
    base = dict(N=z["N"], etas=list(z.get("etas", E1_ETAS)), target=z.get("target", "he1"),
                activation=z.get("activation", "tanh"), **_optional(z, "d", "n"),
                **precision(z, z["N"]))
    return [(base, s) for s in seed_list(z["seeds"])]


def _e2_grid(z):
    return [(dict(N=N, alphas=list(z.get("alphas", E2_ALPHAS)), target=z.get("target", "he1"),
                  activation=z.get("activation", "tanh"), **_optional(z, "c", "psi"),
                  **precision(z, N)), s)
            for N in z["Ns"] for s in seed_list(z["seeds"])]


def _rank_one_grid(z):
    return [(dict(N=N, target=z.get("target", "he1"), activation=z.get("activation", "tanh"),
                  **precision(z, N)), s)
            for N in z["Ns"] for s in seed_list(z["seeds"])]


def _spectrum_grid(z):
    return [(dict(N=z["N"], eta=float(z.get("eta", 3.0)), target=z.get("target", "he1"),
                  activation=z.get("activation", "tanh"), **precision(z, z["N"])), s)
            for s in seed_list(z["seeds"])]


def _directions_grid(z):
    return [(dict(N=N, target=t, alpha=float(z.get("alpha", DIRECTION_ALPHA)), c=1.0,
                  top=int(z.get("top", 5)), activation=z.get("activation", "tanh"),
                  **precision(z, N)), s)
            for t in z.get("targets", DIRECTION_TARGETS) for N in z["Ns"]
            for s in seed_list(z["seeds"])]


def _u1_grid(z):
    return [(dict(N=z["N"], target=t), s) for t in z.get("targets", ("he3", "he1+he3"))
            for s in seed_list(z["seeds"])]


TRANSITION = Experiment("E1", "one step at eta = Theta(1): s1 and overlaps vs eta",
                        transition_unit, _e1_grid, _E1_SIZES, cost=2.0)
GROWTH = Experiment("E2", "one step at eta = N^alpha: spike growth and alignment saturation",
                    growth_unit, _e2_grid, _E2_SIZES, cost=2.0)
# the chapter's own checks (not in the reproduce catalog)
RANK_ONE = Experiment("one_step.rank_one", "the gradient is rank one plus a small remainder",
                      decomposition_unit, _rank_one_grid, _RANK_ONE_SIZES, cost=2.0)
SPECTRUM = Experiment("one_step.spectrum", "the singular values of W0 and W1",
                      spectrum_unit, _spectrum_grid, _SPECTRUM_SIZES, cost=8.0)
DIRECTIONS = Experiment("one_step.directions", "which target directions one step sees",
                        directions_unit, _directions_grid, _DIRECTIONS_SIZES, cost=1.0)
U1_CHECK = Experiment("one_step.u1", "cos^2(u1, beta*_k) over many draws of the data",
                      u1_unit, _u1_grid, _U1_SIZES, cost=0.1)
