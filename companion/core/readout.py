"""What the learned directions buy: a ridge readout on the features sigma(W x).

The paper trains the first layer only (the second layer stays frozen at a0). To ask what
W1 and W2 have learned *for prediction*, this module throws a0 away and fits a new second
layer by ridge regression on the features phi(x) = sigma(W x) of each first layer in turn:
W0 (no step), W1 (one step), W2 (two steps) and the one-step reference
W0 + (eta1 + eta2) G(W0; X1, y1) (:meth:`companion.core.network.TwoStepRun.one_step_reference`),
each on the same independent samples, and compares the test errors. This is the
companion's own measurement, not a statement of the paper.

The ridge problem, with an unpenalized intercept b, on n training samples::

    minimize over (b, a):  (1/n) sum_i (y_i - b - a^T phi_i)^2 + lam ||a||^2.

With Phi_c the centred n x N feature matrix (column means phibar removed) and y_c the
centred labels, the solution is

    a = (Phi_c^T Phi_c + n lam I)^{-1} Phi_c^T y_c = Phi_c^T (Phi_c Phi_c^T + n lam I)^{-1} y_c,
    b = ybar - phibar^T a

(Hoerl & Kennard 1970, Technometrics 12, 55-67; the second, kernel form is Hastie,
Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed. 2009, section
18.3.5). Both are computed through the eigendecomposition of the smaller Gram matrix, once
per feature matrix, so that every lam of the grid costs a product: with N <= n,
Phi_c^T Phi_c = V diag(ev) V^T and a = V diag(1 / (ev + n lam)) V^T Phi_c^T y_c; with
N > n, Phi_c Phi_c^T = U diag(ev) U^T and a = Phi_c^T U diag(1 / (ev + n lam)) U^T y_c.
In the singular value decomposition Phi_c = U diag(s) V^T, ev = s^2 (section 3.4.1,
eq. 3.47 there). lam = 0 is the minimum-norm least squares solution: eigenvalues below
max(n, N) eps ev_max count as zero (the Gram matrix holds them only to about eps ev_max).

**The choice of lam.** The shrinkage of the j-th principal direction is
ev_j / (ev_j + lam), ev_j = s_j^2 / n the eigenvalues of the sample feature covariance, so
lam is only meaningful relative to them. The grid is therefore in units of the *feature
scale* tau = ||Phi_c||_F^2 / (n N), the mean of those eigenvalues (the mean feature
variance): lam = tau 10^(k/2), k = -12..10, i.e. 1e-6 tau (close to ridgeless) to 1e5 tau, by
half decades (:data:`LAMBDA_GRID`). That makes the grid invariant to the scale of the
activation and to N; its top end shrinks every direction by a factor of at most
N / (N + 1e5) (an eigenvalue is at most the trace, N tau), so the readout there is all but
the training mean and the validation choice cannot be much worse than predicting the mean.
lam is the grid point with the smallest mean squared error on a held-out validation sample
(its own random stream, ``n_val`` samples, default n_train), the first one on a tie.
Where the features cannot fit the target (He_3 at n = N = d = 1024) the validation picks the
top of the grid and the readout is the training mean, worse than the test mean only by the
intercept's own error (about Var y / n_train); the three fixed lam of an earlier probe
had no such end, and its He_3 errors were above Var y (under-regularized).

**The split of the error by link.** The ridge fit is linear in the labels, so with the
same features and the same lam, the readout f of y = sum_k g_k(<beta*_k, x>) + eps is the
sum f = sum_k f_k + f_eps of the readouts f_k fitted to the training labels' k-th component
g_k(<beta*_k, x_i>) alone and f_eps fitted to their noise. On the test sample the residual
y - f = sum_k (g_k - f_k) + (eps - f_eps) splits the test error exactly into

    mse = sum_k component_mse_k + noise_mse + cross,

component_mse_k = mean (g_k - f_k)^2 (the error on the k-th link: how much of g_k the
features do not capture), noise_mse = mean (eps - f_eps)^2 and cross the rest (the cross
products of the residuals, small when the residuals of different links are uncorrelated).
``component_relative`` divides component_mse_k by the test variance of g_k (1 - it is the
fraction of the link's variance the readout explains). lam is the one chosen for y.

**Samples.** Training, validation and test samples are drawn through the run's target from
the ``"readout"`` stream of the run's seed (:data:`companion.core.network.STREAMS`, spawned
after the run's own streams, so that every draw of a run stays what it was), split into the
independent streams of :data:`READOUT_STREAMS`. Everything is computed in float64.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.core.activations import get_activation
from companion.core.network import TwoStepRun, run_streams
from companion.core.targets import Target
from companion.core.validation import (
    check_fits_in_memory,
    finite_array,
    positive_int,
    positive_real,
)

#: lam in units of the feature scale tau: 1e-6 to 1e5 by half decades (module docstring)
LAMBDA_GRID = 10.0 ** (np.arange(-12, 11) / 2)

#: the readout's independent streams, spawned from the run's ``"readout"`` stream in this order
READOUT_STREAMS = ("train", "validation", "test")

#: the weights the readout is fitted on, in the order of the report
WEIGHTS = ("W0", "W1", "W2", "one_step_reference")

#: rows of a test feature block: only a BLOCK x N slice of sigma(X W^T) is alive at once
BLOCK = 4096


def _labels(Y, n: int, name: str = "y") -> np.ndarray:
    """Labels as a float64 array of one or two dimensions with n rows."""
    Y = np.asarray(Y)
    if Y.ndim not in (1, 2):
        raise ValueError(f"{name} must be a 1- or 2-dimensional array, got shape {Y.shape}")
    Y = finite_array(Y, name, Y.ndim).astype(np.float64, copy=False)
    if Y.shape[0] != n:
        raise ValueError(f"{name} must have n = {n} rows to match the features, got {Y.shape[0]}")
    return Y


def ridge_lambda(lam) -> float:
    """A ridge parameter: a finite non-negative number (0: minimum-norm least squares)."""
    return positive_real(lam, "lam", allow_zero=True)


class Ridge:
    """Ridge regression with an unpenalized intercept on the features ``Phi`` (n x N),
    through one eigendecomposition of the smaller Gram matrix of the centred features
    (module docstring: the objective and a = B diag(1 / (ev + n lam)) c, with B = V and
    c = V^T Phi_c^T y_c when N <= n, B = Phi_c^T U and c = U^T y_c when N > n;
    b = ybar - phibar^T a). ``Y`` holds one label vector (n,) or several as columns
    (n x m), fitted at once (the fit is linear in the labels)."""

    def __init__(self, Phi, Y):
        Phi = finite_array(Phi, "Phi", 2).astype(np.float64, copy=False)
        n, N = Phi.shape
        Y = _labels(Y, n)
        self.n, self.N = n, N
        self.phi_mean = Phi.mean(axis=0)
        self.y_mean = Y.mean(axis=0)
        Pc, Yc = Phi - self.phi_mean, Y - self.y_mean
        if N <= n:
            ev, V = np.linalg.eigh(Pc.T @ Pc)
            self.basis, self.projected = V, V.T @ (Pc.T @ Yc)
        else:
            ev, U = np.linalg.eigh(Pc @ Pc.T)
            self.basis, self.projected = Pc.T @ U, U.T @ Yc
        #: the eigenvalues s_j^2 of the Gram matrix (ascending; rounding can make them < 0)
        self.ev = ev
        #: tau = ||Phi_c||_F^2 / (n N): the mean eigenvalue of the sample feature covariance
        self.scale = float(np.sum(Pc * Pc) / (n * N))
        #: the eigenvalues that count at lam = 0 (module docstring)
        self.kept = ev > max(n, N) * np.finfo(np.float64).eps * max(ev.max(initial=0.0), 0.0)

    def inverse(self, lam) -> np.ndarray:
        """1 / (ev_j + n lam) (min(n, N),); at lam = 0, 1 / ev_j above the cutoff, else 0."""
        lam = ridge_lambda(lam)
        out = np.zeros_like(self.ev)
        k = self.kept if lam == 0 else slice(None)
        out[k] = 1.0 / (np.maximum(self.ev[k], 0.0) + self.n * lam)
        return out

    def _weighted(self, lam) -> np.ndarray:
        """diag(1 / (ev + n lam)) c."""
        f = self.inverse(lam)
        return (f[:, None] if self.projected.ndim == 2 else f) * self.projected

    def coef(self, lam) -> np.ndarray:
        """The readout weights a (N,) or (N x m) at ``lam``."""
        return self.basis @ self._weighted(lam)

    def intercept(self, lam):
        """b = ybar - phibar^T a."""
        return self.y_mean - self.phi_mean @ self.coef(lam)

    def predict(self, Phi, lam) -> np.ndarray:
        """b + Phi a for new features ``Phi`` (rows: samples)."""
        return self.y_mean + (self._checked(Phi) - self.phi_mean) @ self.coef(lam)

    def path(self, Phi, lams) -> np.ndarray:
        """Predictions for ``Phi`` at every lam of ``lams``: (len(lams), rows[, m]); the
        projection on V is computed once."""
        Z = (self._checked(Phi) - self.phi_mean) @ self.basis
        return np.stack([self.y_mean + Z @ self._weighted(lam) for lam in lams])

    def _checked(self, Phi) -> np.ndarray:
        Phi = finite_array(Phi, "Phi", 2)
        if Phi.shape[1] != self.N:
            raise ValueError(f"Phi must have N = {self.N} columns, got shape {Phi.shape}")
        return Phi


def lambda_grid(grid=None) -> np.ndarray:
    """The grid of lam / tau: :data:`LAMBDA_GRID` by default, else a non-empty list of
    finite non-negative numbers."""
    if grid is None:
        return LAMBDA_GRID
    try:
        arr = np.atleast_1d(np.asarray(grid, dtype=float))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"grid must be a non-empty list of finite non-negative numbers, "
                         f"got {grid!r}") from exc
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"grid must be a non-empty list of finite non-negative numbers, "
                         f"got {grid!r}")
    return arr


def choose_lambda(ridge: Ridge, Phi_val, y_val, grid=None, column: int = 0) -> dict:
    """The lam of ``tau * grid`` with the smallest validation mean squared error of the
    labels ``y_val`` (the first on a tie), for the ridge's label vector (or, fitted to
    several, its column ``column``): ``lam``, ``lam_over_scale`` (its grid value), ``index``,
    ``validation_mse`` (one per grid point)."""
    grid = lambda_grid(grid)
    y_val = _labels(y_val, np.shape(Phi_val)[0], "y_val")
    if y_val.ndim != 1:
        raise ValueError("y_val must be a 1-dimensional array")
    lams = ridge.scale * grid
    pred = ridge.path(Phi_val, lams)
    if pred.ndim == 3:
        pred = pred[:, :, column]
    errors = np.mean((pred - y_val) ** 2, axis=1)
    i = int(np.argmin(errors))
    return {"lam": float(lams[i]), "lam_over_scale": float(grid[i]), "index": i,
            "validation_mse": errors}


def features(W, X, activation) -> np.ndarray:
    """sigma(X W^T) in float64: one row of N features per sample (row) of X."""
    W = finite_array(W, "W", 2).astype(np.float64, copy=False)
    X = finite_array(X, "X", 2).astype(np.float64, copy=False)
    if X.shape[1] != W.shape[1]:
        raise ValueError(f"X must have d = {W.shape[1]} columns to match W, got {X.shape}")
    return get_activation(activation).sigma(X @ W.T)


@dataclass
class ReadoutSample:
    """A sample for the readout: inputs X (n x d), labels y, and the labels' parts:
    ``components`` (n x K, g_k(<beta*_k, x>) in the order of the target) and ``noise``
    (y minus their sum)."""

    X: np.ndarray
    y: np.ndarray
    components: np.ndarray
    noise: np.ndarray


def readout_samples(target: Target, seed: int, n_train: int, n_val: int,
                    n_test: int) -> dict[str, ReadoutSample]:
    """The training, validation and test samples of the readout (float64), drawn through
    ``target`` from the ``"readout"`` stream of ``seed`` (module docstring), one stream of
    :data:`READOUT_STREAMS` each; sizes in the same order."""
    if not isinstance(target, Target):
        raise ValueError(f"target must be a Target (e.g. run.target), got {target!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    sizes = (positive_int(n_train, "n_train"), positive_int(n_val, "n_val"),
             positive_int(n_test, "n_test"))
    parent = run_streams(seed)["readout"]
    out = {}
    for name, rng, n in zip(READOUT_STREAMS, parent.spawn(len(READOUT_STREAMS)), sizes):
        X, y = target.sample(n, rng, np.float64)
        Z = X @ target.directions.T
        comps = np.column_stack([link(Z[:, k]) for k, link in enumerate(target.links)])
        out[name] = ReadoutSample(X, y, comps, y - comps.sum(axis=1))
    return out


def readout_bytes(N: int, d: int, n_train: int, n_val: int, n_test: int) -> int:
    """Peak memory of :func:`readout_errors` beyond the run, in float64: the three samples,
    the training and validation features, the Gram matrix and its eigenvectors, the basis
    of the coefficients, a test block and the one-step reference."""
    n_all = n_train + n_val + n_test
    r = min(n_train, N)
    return 8 * (n_all * (d + 4) + (n_train + n_val) * N + 2 * r * r + r * N
                + min(BLOCK, n_test) * N + N * d)


def readout_errors(run: TwoStepRun, n_train: int | None = None, n_test: int | None = None,
                   n_val: int | None = None, grid=None, weights=WEIGHTS) -> dict:
    """Test errors of a ridge readout on sigma(W x) for W0, W1, W2 and the one-step reference
    (:data:`WEIGHTS`) of ``run`` (module docstring: the ridge, the lam grid, the split).

    ``n_train`` defaults to the run's n, ``n_val`` to n_train, ``n_test`` to 4 n;
    ``weights``: the names of :data:`WEIGHTS` to fit (default all). Needs the run's first
    batch (X1, y1) for the one-step reference. Returns ``n_train``, ``n_val``,
    ``n_test``, ``var_y`` (the test labels' variance: the error of predicting their mean),
    ``var_y_theory`` (Var y of the target), ``grid`` (lam / tau) and one dict per weight with
    ``mse``, ``relative`` (mse / var_y), ``lam``, ``lam_over_scale``, ``feature_scale`` (tau),
    ``validation_mse`` (at the chosen lam), ``validation_curve`` (every grid point),
    ``component_mse``, ``component_relative`` (one per link), ``noise_mse`` and ``cross``."""
    if not isinstance(run, TwoStepRun):
        raise ValueError(f"run must be a TwoStepRun (companion.run_two_steps), got {run!r}")
    if run.X1 is None or run.y1 is None:
        raise ValueError("run: the first batch (X1, y1) is needed for the one-step reference")
    n_train = run.n if n_train is None else positive_int(n_train, "n_train")
    n_val = n_train if n_val is None else positive_int(n_val, "n_val")
    n_test = 4 * run.n if n_test is None else positive_int(n_test, "n_test")
    grid = lambda_grid(grid)
    weights = _weight_names(weights)
    check_fits_in_memory(readout_bytes(run.N, run.d, n_train, n_val, n_test),
                         f"the readout (N={run.N}, n_train={n_train}, n_test={n_test})")
    samples = readout_samples(run.target, run.seed, n_train, n_val, n_test)
    train, val, test = (samples[k] for k in READOUT_STREAMS)
    var_y = float(np.var(test.y))
    moments = run.target.y_moments(2)
    out = {"n_train": n_train, "n_val": n_val, "n_test": n_test, "var_y": var_y,
           "var_y_theory": float(moments[2] - moments[1] ** 2), "grid": grid.tolist()}
    for name in weights:
        W = run.one_step_reference() if name == "one_step_reference" else getattr(run, name)
        out[name] = _fit_and_test(W, run.activation, train, val, test, grid)
    return out


def _weight_names(weights) -> tuple[str, ...]:
    """A non-empty selection of :data:`WEIGHTS`, in the order given."""
    if isinstance(weights, str):
        weights = (weights,)
    try:
        names = tuple(weights)
    except TypeError:
        names = ()
    if not names or any(w not in WEIGHTS for w in names):
        raise ValueError(f"weights must be a non-empty selection of {WEIGHTS}, got {weights!r}")
    return names


def _fit_and_test(W, activation, train: ReadoutSample, val: ReadoutSample,
                  test: ReadoutSample, grid) -> dict:
    """lam on the validation sample for y, then the test error of y and of its parts: one
    ridge fit to the columns y, g_1..g_K, eps at that lam."""
    W = np.asarray(W, np.float64)
    ridge = Ridge(features(W, train.X, activation),
                  np.column_stack([train.y, train.components, train.noise]))
    chosen = choose_lambda(ridge, features(W, val.X, activation), val.y, grid)
    lam = chosen["lam"]
    A = ridge.coef(lam)                                        # N x (K + 2)
    b = ridge.y_mean - ridge.phi_mean @ A
    truth = np.column_stack([test.y, test.components, test.noise])
    resid = np.empty_like(truth)
    for start in range(0, truth.shape[0], BLOCK):
        rows = slice(start, min(start + BLOCK, truth.shape[0]))
        resid[rows] = truth[rows] - (features(W, test.X[rows], activation) @ A + b)
    mse = float(np.mean(resid[:, 0] ** 2))
    K = train.components.shape[1]
    comp_mse = np.mean(resid[:, 1:1 + K] ** 2, axis=0)
    noise_mse = float(np.mean(resid[:, -1] ** 2))
    comp_var = np.var(test.components, axis=0)
    return {"mse": mse, "relative": mse / float(np.var(test.y)), "lam": lam,
            "lam_over_scale": chosen["lam_over_scale"], "feature_scale": ridge.scale,
            "validation_mse": float(chosen["validation_mse"][chosen["index"]]),
            "validation_curve": chosen["validation_mse"].tolist(),
            "component_mse": comp_mse.tolist(),
            "component_relative": (comp_mse / np.where(comp_var > 0, comp_var, np.nan)).tolist(),
            "noise_mse": noise_mse,
            "cross": mse - float(comp_mse.sum()) - noise_mse}
