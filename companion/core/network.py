"""The two-layer network and its gradient steps on the first layer (book: dv-model, dv-two-steps).

f(x) = a^T sigma(W x), W0 entries N(0, 1/d), a = a0 entries N(0, 1/N), frozen.
Correlation loss L(W) = -(1/n) sum_i y_i f(x_i); its negative gradient is

    G(W; X, y) = (1/n) diag(a) sigma'(W X^T) diag(y) X        (N x d),

two matrix products of size N x n x d. Steps eta_t = c_t N^alpha_t;
W1 = W0 + eta1 G(W0; X1, y1); W2 = W1 + eta2 G(W1; X1, y1) (reused batch) or
W2 = W1 + eta2 G(W1; X2, y2) (fresh batch).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from companion.core.activations import Activation, get_activation
from companion.core.spectra import top_singular_bytes
from companion.core.targets import Target, make_target
from companion.core.validation import (
    alpha_exponent,
    check_fits_in_memory,
    choice,
    finite_array,
    positive_int,
    positive_real,
    seed_value,
)
from companion.core.validation import dtype as check_dtype

BATCHES = ("reused", "fresh")

#: rows of W per block of the update: only a BLOCK_ROWS x n slice of sigma'(W X^T) is alive
#: at once, and both products stay large enough for BLAS
BLOCK_ROWS = 1024


def step_size(N: int, alpha: float, c: float = 1.0) -> float:
    """eta = c N^alpha with alpha in [0, 1/2) (book: dv-two-steps)."""
    return _step_size(positive_int(N, "N"), alpha_exponent(alpha, "alpha"),
                      positive_real(c, "c"))


def _step_size(N: int, alpha: float, c: float) -> float:
    """:func:`step_size` on checked arguments."""
    return c * N ** alpha


def init_network(N: int, d: int, rng: np.random.Generator, dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
    """(W0, a): W0 (N x d) with entries N(0, 1/d) and a (N,) with entries N(0, 1/N)."""
    N, d = positive_int(N, "N"), positive_int(d, "d")
    dt = check_dtype(dtype)
    check_fits_in_memory(N * d * dt.itemsize, f"the weights W0 (N={N}, d={d})")
    return _init_network(N, d, rng, dt)


def _init_network(N: int, d: int, rng: np.random.Generator,
                  dt: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """:func:`init_network` on checked arguments (its memory checked too)."""
    W0 = rng.standard_normal((N, d))
    W0 /= np.sqrt(d)                      # in place: one N x d array, not two
    W0 = W0.astype(dt, copy=False)
    a = (rng.standard_normal(N) / np.sqrt(N)).astype(dt, copy=False)
    return W0, a


def descent_direction(W, a, X, y, activation="tanh") -> np.ndarray:
    """G(W; X, y) = -dL/dW, the direction a gradient step adds (book: dv-two-steps):

        G(W; X, y) = (1/n) diag(a) sigma'(W X^T) diag(y) X        (N x d),

    computed by blocks of rows of W, so that only a BLOCK_ROWS x n slice of sigma'(W X^T) is
    alive at once (tests/core/test_gradient.py checks it against the formula as written and
    against finite differences of the loss). The result has W's dtype."""
    W, a, X, y = _checked(W, a, X, y)
    return _descent_direction(W, a, X, y, get_activation(activation))


def _descent_direction(W, a, X, y, act: Activation) -> np.ndarray:
    """:func:`descent_direction` on checked arguments."""
    Xy = X * (y / X.shape[0]).astype(X.dtype, copy=False)[:, None]     # diag(y) X / n
    N, n = W.shape[0], X.shape[0]
    sigma_prime = np.empty((min(BLOCK_ROWS, N), n), W.dtype)          # one block of rows
    G = np.empty_like(W)
    for start in range(0, N, BLOCK_ROWS):
        rows = slice(start, min(start + BLOCK_ROWS, N))
        P = sigma_prime[: rows.stop - start]
        np.matmul(W[rows], X.T, out=P)                                # W X^T
        act.prime_inplace(P)                                          # sigma'(W X^T)
        np.matmul(P, Xy, out=G[rows])                                 # sigma'(W X^T) diag(y) X / n
        G[rows] *= a[rows, None]                                      # diag(a) on the left
    return G


def two_step_update(W0, a, X1, y1, eta1: float, eta2: float, activation="tanh",
                    X2=None, y2=None) -> tuple[np.ndarray, np.ndarray]:
    """(W1, W2) from W0 (book: dv-two-steps):

        W1 = W0 + eta1 G(W0; X1, y1),    W2 = W1 + eta2 G(W1; X2, y2),

    where (X2, y2) = (X1, y1) for a reused batch (leave them None) or an independent sample
    for a fresh batch; G is :func:`descent_direction`."""
    if (X2 is None) != (y2 is None):
        raise ValueError("X2 and y2 must be given together (fresh batch) or both left out (reused)")
    W0, a, X1, y1 = _checked(W0, a, X1, y1)
    if X2 is not None:
        X2, y2 = _checked_batch(X2, y2, W0)
    return _two_steps(W0, a, X1, y1, eta1, eta2, get_activation(activation), X2, y2)


def _two_steps(W0, a, X1, y1, eta1, eta2, act: Activation, X2=None, y2=None, G1=None):
    """:func:`two_step_update` on checked arguments; ``G1``, if given, is G(W0; X1, y1)
    computed before (runs that share their draws, :class:`SharedDraws`). Each step is one
    expression, so that NumPy writes ``eta * G`` and the sum into G's own memory: three N x d
    arrays alive, not five (where ``G1`` is shared, one more)."""
    def G(W, X, y):
        return _descent_direction(W, a, X, y, act)

    if X2 is None:                                          # a reused batch
        X2, y2 = X1, y1
    W1 = W0 + eta1 * (G(W0, X1, y1) if G1 is None else G1)
    W1 = finite_array(W1, "W1 (the weights after the first step; is eta1 too large?)", 2)
    W2 = W1 + eta2 * G(W1, X2, y2)
    return W1, W2


def _checked(W, a, X, y):
    """W, a, X, y as finite arrays of matching shapes, a and X in W's dtype."""
    W = finite_array(W, "W", 2)
    a = finite_array(a, "a", 1)
    if a.shape[0] != W.shape[0]:
        raise ValueError(f"a must have N = {W.shape[0]} entries to match W, got {a.shape[0]}")
    return (W, a.astype(W.dtype, copy=False)) + _checked_batch(X, y, W)


def _checked_batch(X, y, W):
    """X, y as finite arrays, X with W's number of columns and dtype, y with X's rows."""
    X = finite_array(X, "X", 2)
    y = finite_array(y, "y", 1)
    d = W.shape[1]
    if X.shape[1] != d:
        raise ValueError(f"X must have d = {d} columns to match W, got shape {X.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y must have n = {X.shape[0]} entries to match X, got {y.shape[0]}")
    return X.astype(W.dtype, copy=False), y


def correlation_loss(W, a, X, y, activation="tanh") -> float:
    """L(W) = -(1/n) sum_i y_i a^T sigma(W x_i) (book: dv-two-steps)."""
    act = get_activation(activation)
    return float(-np.mean(y * (act.sigma(X @ W.T) @ a)))


@dataclass
class TwoStepRun:
    """Everything one two-step run produced; arrays share the run's dtype."""

    W0: np.ndarray
    W1: np.ndarray
    W2: np.ndarray
    a: np.ndarray
    X1: np.ndarray
    y1: np.ndarray
    X2: np.ndarray | None
    y2: np.ndarray | None
    target: Target
    activation: Activation
    eta1: float
    eta2: float
    alpha1: float
    alpha2: float
    batch: str
    seed: int
    #: G(W0; X1, y1), where the run shared it with the other runs of its seed
    #: (:class:`SharedDraws`; read-only), else None
    G1: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def N(self) -> int:
        return self.W0.shape[0]

    @property
    def d(self) -> int:
        return self.W0.shape[1]

    @property
    def n(self) -> int:
        return self.X1.shape[0]

    def one_step_reference(self) -> np.ndarray:
        """W0 + (eta1 + eta2) G(W0; X1, y1): the single step that two steps reduce to when
        alpha1 + alpha2 < 1/2 with a reused batch (book: dv-one-step-reference); G1 is the
        run's shared first step where it has one (the same numbers), else computed again."""
        G1 = (descent_direction(self.W0, self.a, self.X1, self.y1, self.activation)
              if self.G1 is None else self.G1)
        return self.W0 + (self.eta1 + self.eta2) * G1


def estimate_run_bytes(N: int, d: int, n: int, batch: str, itemsize: int = 8,
                       top_k: int = 16) -> int:
    """Peak memory of :func:`run_two_steps` and of the top-``top_k`` singular triplets of its
    weights that follow it: W0, W1, W2, one or two batches, the batch scaled by y and a
    block of sigma'(W X^T), all of ``itemsize`` bytes per entry (8: float64, 4: float32), and
    the working memory of :func:`companion.top_singular`
    (:func:`companion.core.spectra.top_singular_bytes`); ``benchmarks/run.py`` measures the
    peak against it."""
    batches = 2 if batch == "fresh" else 1
    rows = min(BLOCK_ROWS, N)                   # a block of sigma'(W X^T)
    run = itemsize * (3 * N * d + (batches + 1) * n * (d + 1) + rows * n + N)
    return run + (top_singular_bytes(N, d, min(top_k, N, d), itemsize) if top_k else 0)


@dataclass
class RunDraw:
    """Everything a run draws from its seed (:func:`draw_run`): the target (its directions),
    the network (W0, a; ``None`` when not drawn) and the batches (X2, y2 ``None`` for a
    reused batch)."""

    target: Target
    W0: np.ndarray | None
    a: np.ndarray | None
    X1: np.ndarray
    y1: np.ndarray
    X2: np.ndarray | None
    y2: np.ndarray | None


#: the independent random streams of a run, in the order they are spawned from its seed; a
#: new stream is appended (spawning more children leaves the first ones as they were), e.g.
#: "readout", the samples of :mod:`companion.core.readout`
STREAMS = ("target", "network", "batch1", "batch2", "null", "readout")


def draw_run(N: int, d: int, n: int, target="he1", seed: int = 0, noise: float = 0.0,
             dtype=np.float64, batch: str = "reused", null_labels: bool = False,
             network: bool = True, shared: "SharedDraws | None" = None) -> RunDraw:
    """The random draws of a run from ``numpy.random.default_rng(seed)``, the one seeding path
    of the package (book: dv-two-steps): the seed is split into the independent streams of
    :data:`STREAMS`, so that changing the batch setting, the target's noise, the null labels
    or whether the network is drawn at all (``network=False``: data only) leaves every other
    draw as it was; the same seed gives the same W0, a and first batch in every chapter.
    ``null_labels=True`` replaces the labels by those of an independent input sample: the
    same distribution (heavy tails included), no dependence on X (the null run,
    book: dv-model). With ``shared`` (a :class:`SharedDraws`) what is drawn is kept there
    (read-only) for the next draw of the same seed and sizes."""
    N, d, n = positive_int(N, "N"), positive_int(d, "d"), positive_int(n, "n")
    dt = check_dtype(dtype)
    if network:
        check_fits_in_memory(N * d * dt.itemsize, f"the weights W0 (N={N}, d={d})")
    return _draw_run(N, d, n, target, seed_value(seed), noise, dt,
                     choice(batch, "batch", BATCHES), null_labels, network, shared)


def run_streams(seed: int) -> dict[str, np.random.Generator]:
    """The independent random streams of a run (:data:`STREAMS`), split from its seed: the
    one place a seed is split (a stream may be split further by its user)."""
    return dict(zip(STREAMS, np.random.default_rng(seed).spawn(len(STREAMS))))


def _draw_run(N: int, d: int, n: int, target, seed: int, noise: float, dtype: np.dtype,
              batch: str, null_labels: bool, network: bool,
              shared: "SharedDraws | None" = None) -> RunDraw:
    """:func:`draw_run` on checked arguments (the target is checked here: it is built
    here); with ``shared``, what an earlier run of the same seed drew is taken from there."""
    streams = run_streams(seed)
    group = _group(N, d, n, seed, dtype)

    def kept(key, compute):
        return compute() if shared is None or key is None else shared.get(group, key, compute)

    spec = _spec_key(target) if shared is not None else None
    tgt = (target if isinstance(target, Target)
           else kept(spec and ("target", spec, noise),
                     lambda: make_target(target, d, streams["target"], noise)))
    if tgt.d != d:
        raise ValueError(f"target has dimension {tgt.d} but d = {d}")

    def batch_of(which):
        rng = streams[which]
        if null_labels or spec is None:
            X, y = tgt.sample(n, rng, dtype)
            if null_labels:  # same label distribution, independent of X; one stream for
                y = tgt.sample(n, streams["null"], dtype)[1]    # both batches: never kept
            return X, y
        if noise > 0:        # the labels' noise follows the inputs in their stream
            return kept(("batch", spec, noise, which), lambda: tgt.sample(n, rng, dtype))
        X = kept(("inputs", which), lambda: tgt.inputs(n, rng, dtype))    # every target's
        return X, kept(("labels", spec, which), lambda: tgt.labels(X))

    def batches():
        X1, y1 = batch_of("batch1")
        return (X1, y1) + (batch_of("batch2") if batch == "fresh" else (None, None))

    if not network:
        return RunDraw(tgt, None, None, *batches())
    W0, a = kept(("network",), lambda: _init_network(N, d, streams["network"], dtype))
    return RunDraw(tgt, W0, a, *batches())


def kept_first_step(r: RunDraw, seed: int, target, noise: float, activation,
                    shared: "SharedDraws | None") -> np.ndarray | None:
    """G(W0; X1, y1) of the draw ``r`` (of ``seed``, ``target``, ``noise``) kept in ``shared``:
    computed there once for every run of the same group and target, then read-only; None
    without ``shared`` or where the target cannot be a key (book: dv-two-steps)."""
    spec = None if shared is None else _spec_key(target)
    if spec is None:
        return None
    act = get_activation(activation)
    (N, d), n = r.W0.shape, r.X1.shape[0]
    return shared.get(_group(N, d, n, seed, r.W0.dtype), ("G1", spec, noise, act),
                      lambda: _descent_direction(r.W0, r.a, r.X1, r.y1, act))


def _group(N: int, d: int, n: int, seed: int, dtype: np.dtype) -> tuple:
    """The runs whose draws :class:`SharedDraws` shares: the same sizes, seed and dtype."""
    return (N, d, n, seed, dtype)


def _spec_key(target):
    """``target`` as a key of :class:`SharedDraws` (a name, a link, a function), or ``None``
    where it cannot be one (a list of specs, a :class:`Target` with its own directions)."""
    if isinstance(target, Target):
        return None
    try:
        hash(target)
    except TypeError:
        return None
    return target


class SharedDraws:
    """What runs of one seed have in common, computed once (book: dv-two-steps).

    Every run draws W0, a, its target's directions and each batch from its seed's own
    streams (:func:`run_streams`), so runs of the same seed and sizes that differ only in
    the step sizes, the batch setting or the activation draw the same arrays (and runs of
    different targets the same W0, a and inputs X, unless the labels are noisy); and the first
    step's direction G(W0; X1, y1) does not depend on eta1. Given one
    (``run_two_steps(..., shared=shared)``, as :func:`companion.core.experiment.run_units`
    gives one to the units that take it), :func:`run_two_steps` takes them from here: the
    same numbers, bit for bit, without drawing or multiplying them again. Only the group (N,
    d, n, seed, dtype) asked for last is kept, or, with ``groups``, that many groups asked for
    last (several experiments over the same sizes and seeds: ``Experiment.run(...,
    shared=...)``); what is kept is read-only."""

    def __init__(self, groups: int = 1):
        self.groups = positive_int(groups, "groups")
        self.group: tuple | None = None
        self.kept: dict = {}
        self._earlier: dict = {}        # the other groups kept, oldest first

    def get(self, group: tuple, key: tuple, compute: Callable[[], object]):
        """``compute()`` for ``key`` in ``group``, computed once while the group lasts."""
        if group != self.group:
            if self.group is not None and self.groups > 1:
                self._earlier[self.group] = self.kept
            self.group, self.kept = group, self._earlier.pop(group, {})
            while len(self._earlier) > self.groups - 1:
                self._earlier.pop(next(iter(self._earlier)))
        if key not in self.kept:
            value = compute()
            for x in value if isinstance(value, tuple) else (value,):
                if isinstance(x, np.ndarray):
                    x.flags.writeable = False
            self.kept[key] = value
        return self.kept[key]


def run_two_steps(N: int = 1000, d: int | None = None, n: int | None = None,
                  alpha1: float = 0.35, alpha2: float = 0.45, batch: str = "reused",
                  activation="tanh", target="he1", noise: float = 0.0, seed: int = 0,
                  c1: float = 1.0, c2: float = 1.0, dtype=np.float64,
                  null_labels: bool = False, shared: SharedDraws | None = None) -> TwoStepRun:
    """Draw data, network and take two gradient steps (book: dv-two-steps).

    ``d`` and ``n`` default to N (phi = psi = 1). ``batch`` is ``"reused"`` (both steps on
    (X1, y1)) or ``"fresh"`` (second step on an independent (X2, y2) of the same size).
    ``null_labels=True`` replaces the labels by labels of an independent input sample: the
    same distribution (heavy tails included), no dependence on X (the null run,
    book: dv-pit-edge). Every draw comes from ``numpy.random.default_rng(seed)`` through
    ``draw_run``. ``shared`` (a ``SharedDraws``) lends the draws and the first step's
    direction of an earlier run of the same seed and sizes. Every argument is checked once,
    here; the helpers below take them as checked.
    """
    N = positive_int(N, "N")
    d = N if d is None else positive_int(d, "d")
    n = N if n is None else positive_int(n, "n")
    alpha1 = alpha_exponent(alpha1, "alpha1")
    alpha2 = alpha_exponent(alpha2, "alpha2")
    batch = choice(batch, "batch", BATCHES)
    act = get_activation(activation)
    dt = check_dtype(dtype)
    seed = seed_value(seed)
    c1, c2 = positive_real(c1, "c1"), positive_real(c2, "c2")
    check_fits_in_memory(estimate_run_bytes(N, d, n, batch, dt.itemsize),
                         f"a two-step run with N={N}, d={d}, n={n} ({batch} batch, {dt})")
    eta1, eta2 = _step_size(N, alpha1, c1), _step_size(N, alpha2, c2)
    r = _draw_run(N, d, n, target, seed, noise, dt, batch, null_labels, True, shared)
    G1 = None if null_labels else kept_first_step(r, seed, target, noise, act, shared)
    W1, W2 = _two_steps(r.W0, r.a, r.X1, r.y1, eta1, eta2, act, r.X2, r.y2, G1)
    return TwoStepRun(r.W0, W1, W2, r.a, r.X1, r.y1, r.X2, r.y2, r.target, act, eta1, eta2,
                      alpha1, alpha2, batch, seed, G1)
