"""E18: transects across the learnability line with a bounded link (book: dv-learnability).

The abstract states that a reused batch learns directions of information exponent above one
"provided alpha1, alpha2 are chosen properly", and a fresh batch does not; the AI-written
summary puts the line at Lambda >= 2, that is 2 alpha1 + alpha2 >= 1. The companion derives
that the k = 2 term of W2 - W0, the one that carries an information-exponent-3 direction,
has the size N^(alpha2 - 2 (1/2 - alpha1)): it grows above the line and decays below it.
A law of that kind shows as the sign of the term's growth changing across the line.

With He_3 in the target this cannot show at any reachable N: the labels' heavy tail (E[y^6])
inflates the term's constant so much that its decay below the line starts only far beyond a
computer's reach (book: dv-learnability). The bounded odd link
(:func:`companion.core.targets.bounded_odd_link`, target name ``bounded``: information
exponent 3, labels bounded) has no such tail. E18 walks two transects with it, tanh, N = d = n,
c1 = c2 = 1:

* ``alpha1``: alpha2 = 0.45, alpha1 from 0.10 to 0.35 (the line is at alpha1 = 0.275). The
  finite-N prediction (:func:`companion.core.finite_n.predicted_terms`) puts the zero of the
  k = 2 strength's slope in log N near alpha1 = 0.19 over N = 2^10 to 2^14 and near 0.24
  over 2^14 to 2^20: the points are dense around both and reach past the line on each side;
* ``alpha2``: alpha1 = 0.30, alpha2 from 0.14 to 0.45 (the line is at alpha2 = 0.40),
  where the prediction's zero moves from about 0.17 to 0.22 over the same ranges.

Each unit is one point, size and seed, and computes the reused and the fresh run. Within a
process, the units of one seed share their draws and first step (``shared``: the first step
does not depend on alpha2, and its direction G(W0; X1, y1) not on alpha1 either), so a
point costs the two second steps. Nothing here predicts: the prediction is computed where
the runs are read (it is cheap), so that its code is not part of these runs' cache keys.
"""

from __future__ import annotations

import numpy as np

from companion.core.alignment import cos2_with_directions
from companion.core.experiment import Experiment
from companion.core.network import BATCHES, run_two_steps
from companion.core.spectra import top_singular
from companion.core.spikes import (
    K_POWERS,
    MARGIN,
    MIN_WEIGHT,
    TOP,
    off_powers_edge,
    own_part_cos2,
    power_weights,
    separate_strengths,
)
from companion.core.validation import positive_int, seed_list

ACTIVATION = "tanh"
TARGET = "bounded"
#: the transects: name -> the exponent held fixed, its value and the points (alpha1, alpha2)
TRANSECTS: dict[str, dict] = {
    "alpha1": dict(fixed="alpha2", value=0.45,
                   points=tuple((a1, 0.45) for a1 in (0.10, 0.15, 0.175, 0.20, 0.225, 0.25,
                                                      0.275, 0.30, 0.35))),
    "alpha2": dict(fixed="alpha1", value=0.30,
                   points=tuple((0.30, a2) for a2 in (0.14, 0.22, 0.30, 0.38, 0.45))),
}
#: every point once, in transect order ((0.30, 0.45) is on both)
POINTS: tuple[tuple[float, float], ...] = tuple(dict.fromkeys(
    p for t in TRANSECTS.values() for p in t["points"]))
#: the alpha1 transect's points nearest the measured and predicted zero of the slope
#: (0.15 to 0.20) and the limit line (0.275): the only ones at N = 2^14
LARGEST_POINTS = tuple((a1, 0.45) for a1 in (0.15, 0.175, 0.20, 0.275))
#: small: what a test and the chapter can run; paper: 2^10 to 2^12 with 6 seeds at every
#: point, then 2^13 in float32 with 6 seeds at the alpha1 transect's points, then 2^14 with
#: 3 seeds at LARGEST_POINTS (the larger last, so that an interrupted run has every smaller
#: size whole)
SIZES = {"small": dict(Ns=[128, 256], seeds=2, float32_from=0),
         "paper": dict(Ns=[1024, 2048, 4096], seeds=6, float32_from=8192,
                       more=[dict(N=8192, seeds=6, points=TRANSECTS["alpha1"]["points"]),
                             dict(N=16384, seeds=3, points=LARGEST_POINTS)])}


def learnability_unit(N: int, alpha1: float, alpha2: float, activation: str = ACTIVATION,
                      target: str = TARGET, seed: int = 0, dtype: str = "float64",
                      shared=None) -> dict:
    """One unit of E18: the reused and the fresh run at one point, size and seed. Per run
    (suffix ``_reused``, ``_fresh``):

    * ``separate`` (K_POWERS,): each term's separate strength in W2 - W0
      (:func:`companion.core.spikes.separate_strengths`);
    * ``own_cos2`` (K_POWERS, m): the cos^2 of each term's own part with each target
      direction (:func:`companion.core.spikes.own_part_cos2`; no detection);
    * ``s``, ``order``, ``weight`` (TOP,), ``cos2`` (TOP, m): the top singular values of W2,
      the power of a each left vector leans on most, its weight on the powers, the cos^2 of
      the right vector with each direction;
    * ``edge``: the run's bulk edge with the powers of a projected out, and ``counted``
      (TOP,): above it by the census's margin with weight >= MIN_WEIGHT."""
    N = positive_int(N, "N")
    out: dict = {}
    for batch in BATCHES:
        run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch=batch,
                            activation=activation, target=target, seed=seed, dtype=dtype,
                            shared=shared)
        U, s, Vt = top_singular(run.W2, TOP)
        weights = power_weights(U, run.a, K_POWERS).sum(axis=1)
        edge = off_powers_edge(run.W2, run.a, K_POWERS)
        out["s_" + batch] = s.astype(float)
        out["order_" + batch] = np.argmax(power_weights(U, run.a, K_POWERS), axis=1)
        out["weight_" + batch] = weights.astype(float)
        out["cos2_" + batch] = cos2_with_directions(Vt, run.target.directions)
        out["separate_" + batch] = separate_strengths(run.W2, run.a, K_POWERS, base=run.W0)
        out["own_cos2_" + batch] = own_part_cos2(run.W2, run.W0, run.a,
                                                 run.target.directions, K_POWERS)
        out["edge_" + batch] = edge
        out["counted_" + batch] = (s > edge * (1 + MARGIN)) & (weights >= MIN_WEIGHT)
        del run, U, Vt
    return out


def learnability_rows(runs) -> list[dict]:
    """E18's tidy rows: one per run (reused, fresh) and term (k = 0..K_POWERS-1) of each
    unit, with the unit's parameters and seed: ``batch``, ``k``, ``strength`` (separate
    strength), ``own_cos2`` (its own part's cos^2 with the target direction), ``detected``
    (whether the census counts a spike of order k), ``spike_s`` and ``spike_cos2`` (that
    spike's singular value and cos^2; empty when none is counted) and ``edge``."""
    rows = []
    for r in runs:
        base = dict(r.params, seed=r.seed)
        res = r.result
        for batch in BATCHES:
            order, counted = np.asarray(res["order_" + batch]), np.asarray(res["counted_" + batch])
            for k in range(K_POWERS):
                hit = np.flatnonzero(counted & (order == k))
                rows.append(dict(
                    base, batch=batch, k=k, strength=float(res["separate_" + batch][k]),
                    own_cos2=float(res["own_cos2_" + batch][k][0]), detected=bool(len(hit)),
                    spike_s=float(res["s_" + batch][hit[0]]) if len(hit) else "",
                    spike_cos2=float(res["cos2_" + batch][hit[0]][0]) if len(hit) else "",
                    edge=float(res["edge_" + batch])))
    return rows


def _grid(z):
    # size by size, seed by seed, every point of a seed together (they share its draws);
    # the larger sizes last, at their points only
    def unit(N, a1, a2):
        return dict(N=N, alpha1=a1, alpha2=a2, activation=ACTIVATION, target=TARGET,
                    **({"dtype": "float32"} if N >= z.get("float32_from", np.inf) else {}))
    out = [(unit(N, a1, a2), s) for N in sorted(z["Ns"]) for s in seed_list(z["seeds"])
           for (a1, a2) in z.get("points", POINTS)]
    for g in z.get("more", []):
        out += [(unit(g["N"], a1, a2), s) for s in seed_list(g["seeds"])
                for (a1, a2) in g["points"]]
    return out


LEARNABILITY = Experiment("E18", "transects across the learnability line with a bounded "
                          "link (tanh, reused vs fresh)", learnability_unit, _grid, SIZES,
                          cost=4.0)
