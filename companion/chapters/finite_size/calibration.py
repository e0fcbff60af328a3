"""The spike census calibrated: rank-one terms of known strength planted along q_{k+1} (the
Gram-Schmidt power of a that a term of order k has as its left vector) into null runs,
and how often :func:`companion.core.spikes.count_spikes` counts them (book:
dv-finite-n).

The census counts a singular value of W2 when it lies 2% above the bulk edge of an
independent null run (powers of a projected out) and its left vector lies on the powers of
a. Against a Marchenko-Pastur bulk of edge 2 (N = d) a rank-one term theta u v^T leaves the
bulk iff theta > 1 (BBP; :func:`companion.spiked_rectangular`). A null run's bulk is wider
than W0's (edge 2.0 to 2.7 at the book's points) and the edge is measured on another
matrix, so the strength the census needs is measured here: :func:`calibration_run` plants
each strength into the bulk of one null run (its own terms on the powers of a replaced by
bulk noise, so that only the planted term sits on them; ``project_out=False`` plants into
the null run as it is, its own terms included) and counts against the edge of a second
null run with another seed;
:func:`detection_rates` tabulates the fraction of seeds where the planted term is counted,
and :func:`detection_threshold` the strength where that fraction crosses one half, beside
the BBP value (:func:`bbp_detection_strength`: edge / 2 without the margin, 1.22 edge / 2
with the census's 2% margin, since theta + 1/theta is flat at theta = 1).

E13 (:data:`CALIBRATION`, book: reg-experiments, dv-census, dv-threshold) runs these units
at E11's point (0.38, 0.45), tanh(z + 1/2), He_1, the k = 2 term; :func:`calibration_table`
gives, per N, the strength of half detection with an exact interval (:func:`half_interval`:
the strengths at which the Clopper-Pearson interval of the counted fraction of seeds holds
one half) beside both BBP values.
"""

from __future__ import annotations

import numpy as np

from companion.core.alignment import a_power_basis
from companion.core.experiment import Experiment
from companion.core.intervals import clopper_pearson
from companion.core.network import run_two_steps
from companion.core.runs import Runs
from companion.core.spectra import top_singular
from companion.core.spikes import (
    K_POWERS,
    bbp_detection_strength,
    count_spikes,
    off_powers_edge,
    power_weights,
)
from companion.core.validation import positive_int, seed_list

#: the edge's null run has seed + EDGE_SEED (an independent draw of everything)
EDGE_SEED = 100_000
#: strengths planted by default
STRENGTHS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
#: E13's point: E11's (0.38, 0.45) with tanh(z + 1/2) and a He_1 target, the k = 2 term
E13_POINT = dict(alpha1=0.38, alpha2=0.45, activation="shifted_tanh", target="he1", k=2)
_E13_SIZES = {"small": dict(Ns=[128, 256], seeds=3,
                            strengths=[round(0.8 + 0.2 * i, 2) for i in range(7)]),
              "paper": dict(Ns=[512, 1024, 2048, 4096], seeds=8,
                            strengths=[round(1.0 + 0.05 * i, 2) for i in range(17)])}


def calibration_run(N: int, alpha1: float = 0.38, alpha2: float = 0.45,
                    activation: str = "shifted_tanh", target: str = "he1", k: int = 2,
                    strengths=STRENGTHS, seed: int = 0, project_out: bool = True,
                    shared=None) -> dict:
    """One unit: plant theta q_{k+1} v^T (v a random unit vector in R^d from the seed) into
    the null run of ``seed`` for every theta in ``strengths`` and census it against the null
    run of ``seed + EDGE_SEED``. Returns ``strengths``; ``detected`` (bool per strength: a
    counted spike whose left vector leans most on q_{k+1}); ``value`` (its singular value,
    NaN if none); ``overlap`` (cos^2 of its right vector with v); ``edge`` (the other null
    run's edge, the count's reference) and ``edge_own`` (the planted matrix's own edge)."""
    N = positive_int(N, "N")
    k = int(k)
    if not 0 <= k < K_POWERS:
        raise ValueError(f"k must be an order 0..{K_POWERS - 1}, got {k!r}")
    strengths = np.asarray(strengths, float)
    if strengths.ndim != 1 or np.any(strengths < 0):
        raise ValueError("strengths must be a list of non-negative numbers")
    common = dict(N=N, alpha1=alpha1, alpha2=alpha2, batch="reused", activation=activation,
                  target=target, null_labels=True)
    run = run_two_steps(seed=seed, **common, shared=shared)
    Q = a_power_basis(run.a, K_POWERS)
    rng = np.random.default_rng([seed, 19])
    W = run.W2
    if project_out:
        # the null run's own terms on the powers of a replaced by rows of bulk noise (entries
        # of the off-powers part's mean square), so that q_{k+1} is as generic to the bulk
        # as the left vector of a term is; projecting them out alone would put q_{k+1} in
        # the bulk's left null space, which delays the outlier (measured: 2.02 for
        # theta = 1.5 at N = 256 instead of about 2.1)
        off = W - Q @ (Q.T @ W)
        scale = np.sqrt(np.sum(off * off) / ((W.shape[0] - K_POWERS) * W.shape[1]))
        W = off + Q @ (scale * rng.standard_normal((K_POWERS, W.shape[1])))
    edge_own = off_powers_edge(run.W2, run.a)
    other = run_two_steps(seed=seed + EDGE_SEED, **common, shared=shared)
    edge = off_powers_edge(other.W2, other.a)
    del other
    v = rng.standard_normal(run.d)
    v /= np.linalg.norm(v)
    detected, value, overlap = [], [], []
    for theta in strengths:
        U, s, Vt = top_singular(W + theta * np.outer(Q[:, k], v), 6)
        weights = power_weights(U, run.a)
        counted = np.array([count_spikes(s[i:i + 1], weights[i:i + 1].sum(axis=1), edge) == 1
                            for i in range(len(s))])
        mine = counted & (np.argmax(weights, axis=1) == k)
        i = int(np.argmax(mine)) if mine.any() else None
        detected.append(i is not None)
        value.append(float(s[i]) if i is not None else np.nan)
        overlap.append(float((Vt[i] @ v) ** 2) if i is not None else np.nan)
    return {"strengths": strengths, "detected": np.array(detected), "value": np.array(value),
            "overlap": np.array(overlap), "edge": float(edge), "edge_own": float(edge_own)}


def detection_rates(runs: Runs) -> dict:
    """{N: (strengths, fraction of the seeds where the planted term is counted)}."""
    out = {}
    for (N,), group in sorted(runs.groups("N").items()):
        out[int(N)] = (np.asarray(group[0]["strengths"], float),
                       group.values("detected").astype(float).mean(axis=0))
    return out


def detection_threshold(strengths, rates) -> float:
    """The strength where the detection rate first reaches one half (linear interpolation
    between the planted strengths); NaN if it never does, the smallest strength if the
    first already does."""
    strengths, rates = np.asarray(strengths, float), np.asarray(rates, float)
    above = np.flatnonzero(rates >= 0.5)
    if not len(above):
        return float("nan")
    i = int(above[0])
    if i == 0:
        return float(strengths[0])
    t0, t1, r0, r1 = strengths[i - 1], strengths[i], rates[i - 1], rates[i]
    return float(t0 + (0.5 - r0) * (t1 - t0) / (r1 - r0))


def first_detection(strengths, detected) -> float:
    """The smallest planted strength from which a seed counts every larger one (NaN if it
    misses the largest)."""
    strengths, detected = np.asarray(strengths, float), np.asarray(detected, bool)
    if not detected[-1]:
        return float("nan")
    missed = np.flatnonzero(~detected)
    return float(strengths[missed[-1] + 1] if len(missed) else strengths[0])


def half_interval(strengths, counted, seeds: int, level: float = 0.95) -> tuple[float, float]:
    """The ``level`` interval of the strength of half detection from ``counted`` seeds of
    ``seeds`` at each planted strength: the strengths at which the exact (Clopper-Pearson)
    interval of the counted fraction contains one half, found as the half points
    (:func:`detection_threshold`) of the intervals' upper and lower ends. At the true half
    point the fraction is one half, which its exact interval misses with probability at
    most 1 - ``level``; so this set holds it at least as often (up to the interpolation
    between planted strengths). Open ends say that the planted range does not decide:
    ``low`` is -inf when the interval at the smallest strength already holds one half,
    ``high`` is inf when no interval lies above one half (with fewer than 6 seeds even
    every seed counting leaves the lower end of a 95% interval below one half)."""
    strengths = np.asarray(strengths, float)
    bounds = np.array([clopper_pearson(int(round(c)), int(seeds), level) for c in counted])
    lower, upper = bounds[:, 0], bounds[:, 1]
    low = -np.inf if upper[0] >= 0.5 else detection_threshold(strengths, upper)
    high = detection_threshold(strengths, lower)
    return float(low), (np.inf if np.isnan(high) else float(high))


def calibration_table(runs: Runs, level: float = 0.95) -> list[dict]:
    """Per N (ascending), what the census needs (book: dv-census, dv-threshold): ``seeds``,
    ``strengths`` and ``rate`` (the fraction of seeds that count the planted term);
    ``threshold``, the strength of half detection (:func:`detection_threshold`) with its
    exact interval ``low``, ``high`` (:func:`half_interval`); ``first``: each seed's
    :func:`first_detection`; ``edge``, ``edge_own``: the census's edge (the other null
    run's) and the planted matrix's own, per seed; ``bbp``: the BBP threshold edge_own / 2
    (mean over seeds); ``bbp_margin``: :func:`bbp_detection_strength` with the census's
    margin, per seed from both edges, averaged; ``agrees``: whether ``bbp_margin`` lies in
    [low, high]."""
    out = []
    for (N,), group in sorted(runs.groups("N").items()):
        strengths = np.asarray(group[0]["strengths"], float)
        detected = group.values("detected").astype(float)
        low, high = half_interval(strengths, detected.sum(axis=0), len(group), level)
        edge, own = group.values("edge"), group.values("edge_own")
        margin = float(np.mean([bbp_detection_strength(e, own=o) for e, o in zip(edge, own)]))
        out.append({"N": int(N), "seeds": len(group), "strengths": strengths,
                    "rate": detected.mean(axis=0),
                    "threshold": detection_threshold(strengths, detected.mean(axis=0)),
                    "low": float(low), "high": float(high),
                    "first": np.array([first_detection(strengths, d) for d in detected]),
                    "edge": edge, "edge_own": own, "bbp": float(np.mean(own) / 2),
                    "bbp_margin": margin, "agrees": bool(low <= margin <= high)})
    return out


def _e13_grid(z):
    strengths = [float(t) for t in z.get("strengths", STRENGTHS)]
    return [(dict(N=N, **E13_POINT, strengths=strengths), s)
            for N in sorted(z["Ns"]) for s in seed_list(z["seeds"])]


CALIBRATION = Experiment("E13", "the census calibrated: rank-one terms of known strength "
                         "planted along q_3 into null runs", calibration_run, _e13_grid,
                         _E13_SIZES, cost=2.2)
