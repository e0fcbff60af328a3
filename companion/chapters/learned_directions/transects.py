"""E14: transects across the lines, in the chapter "What each outlier learns".

The abstract states that the number of outliers is floor(alpha2 / (1/2 - alpha1)) and that a
reused batch learns directions of information exponent above one "provided alpha1, alpha2 are
chosen properly". A law of that kind is shown by crossing its line, not at one point. E14
walks two transects at 4 points each, all off the lines
(:func:`companion.core.theory.nearest_line`: |exponent| >= KNIFE_EDGE = 0.05), with E12's
setting (tanh(z + 1/2), which has every order; He_1 on beta*_1 + He_3 on beta*_2; N = d = n;
c1 = c2 = 1):

* (i) across the k = 1 count line alpha1 + alpha2 = 1/2, at alpha1 = 0.30 (the line is at
  alpha2 = 0.20): alpha2 = 0.10, 0.14, 0.26, 0.30 (k = 1 exponents -0.10, -0.06, +0.06,
  +0.10; Lambda 0, 0, 1, 1);
* (ii) across the learnability line 2 alpha1 + alpha2 = 1 (He_3 needs Lambda >= 2), at
  alpha1 = 0.30 (the line is at alpha2 = 0.40): alpha2 = 0.32, 0.34, 0.46, 0.48 (k = 2
  exponents -0.08, -0.06, +0.06, +0.08; Lambda 1, 1, 2, 2). alpha1 = 0.30 is an earlier probe's
  transect, so the simulation checks the prediction quoted there.

How they were chosen: with the finite-N prediction
(:func:`companion.core.finite_n.predicted_terms`, reused batch, mean field with the floor)
at N = 512 .. 8192 and 2^16, as far from the lines as the other lines and the edge of
[0, 1/2) allow, so that the contrast the prediction allows at N <= 8192 is as large as it
gets. What the prediction says (separate strength of the term at N = 512 -> 8192; its own
part's cos^2 with beta*_2 at 8192):

* (i), the k = 1 term: 0.35 -> 0.28 at alpha2 = 0.10 (falls), 0.38 -> 0.36 at 0.14 (flat),
  0.59 -> 0.93 at 0.26 and 0.72 -> 1.32 at 0.30 (grow): the growth changes sign across the
  line, but only the outermost point nears the census's detection strength (about 1.2) by
  8192, so no change of the *count* is predicted at N <= 4096.
* (ii), the k = 2 term: 0.55 / 0.60 / 1.17 / 1.33 (512) -> 0.85 / 1.02 / 3.20 / 3.87 (8192)
  at alpha2 = 0.32 / 0.34 / 0.46 / 0.48; its own cos^2 with beta*_2 0.005-0.012 (512) ->
  0.050-0.058 (8192), 0.074 at 2^16, on both sides. The prediction's k = 2 term grows on BOTH
  sides of 2 alpha1 + alpha2 = 1 at every N <= 2^16 (it falls below the line only far beyond
  reach): at these sizes the line is not visible as a change of sign of the growth,
  only of its rate. The transect tests the prediction, not the limit law; the chapter says so.

Measured (stored runs, 8 seeds, N = 512 to 4096; slopes over that range): (i) k = 1 slopes
-0.05, 0.00, +0.18, +0.23, strengths at 4096 0.28 / 0.35 / 0.81 / 1.11 (prediction 0.29 /
0.35 / 0.82 / 1.12); no k = 1 spike counted at any of the four points (0 of 8 seeds).
(ii) k = 2 grows on both sides (+0.20, +0.24 below; +0.39, +0.41 above), 0.69 / 0.82 /
2.36 / 2.82 at 4096 (prediction 0.71 / 0.84 / 2.39 / 2.84); its own cos^2 with beta*_2
(reused) 0.039 / 0.041 / 0.047 / 0.048 at 4096 (prediction 0.036 / 0.039 / 0.046 / 0.047)
against fresh 0.0007-0.0009 and null 0.0001-0.0002 (chance 1/N = 0.00024); the census counts
a k = 2 spike in 0 of 8 seeds below the line and 3 of 8 above (its null run: 3 of 8 too).

What each unit records (:func:`transect_run`): the reused run, the fresh run and the null
run (reused batch, labels of an independent sample: nothing to learn), same seed, sizes and
steps. Per run, every term's separate strength and the cos^2 of each term's own part (its
row on the Gram-Schmidt powers of a, orthogonal to the earlier rows: what
:func:`companion.core.spikes.separate_strengths` measures the norm of) with each target
direction; this needs no detection. And per run the census: the top singular values, their
orders, weights on the powers of a and cos^2 with each direction, counted against the null
run's bulk edge (powers of a projected out) by the census's margin (the fresh run is counted
against the same edge; its own edge is recorded too). Plus the prediction at that N for the
reused and the null run. Intervals over seeds, where the figure or the prose need them, are
t intervals (:func:`companion.core.intervals.t_interval`).
"""

from __future__ import annotations

import numpy as np

from companion.chapters.learned_directions.experiments import _predicted
from companion.core.alignment import cos2_with_directions
from companion.core.experiment import Experiment
from companion.core.finite_n import predicted_terms
from companion.core.network import run_two_steps
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

E14_ACTIVATION = "shifted_tanh"
E14_TARGET = "he1+he3"
#: the runs of one unit: the reused batch, the fresh batch, the null run of the reused batch
RUNS = ("reused", "fresh", "null")
#: the transects: name -> (the line crossed, its order k, the points (alpha1, alpha2))
TRANSECTS: dict[str, dict] = {
    "count": dict(line="alpha1 + alpha2 = 1/2", k=1,
                  points=((0.30, 0.10), (0.30, 0.14), (0.30, 0.26), (0.30, 0.30))),
    "learnability": dict(line="2 alpha1 + alpha2 = 1", k=2,
                         points=((0.30, 0.32), (0.30, 0.34), (0.30, 0.46), (0.30, 0.48))),
}
E14_POINTS: tuple[tuple[float, float], ...] = tuple(p for t in TRANSECTS.values()
                                                    for p in t["points"])
#: small: what a test can run; paper: float64 to 4096 with 8 seeds, and 8192 in float32 with
#: 4 seeds (listed last, run only if time allows: the cache resumes)
_E14_SIZES = {"small": dict(Ns=[128, 256], seeds=2),
              "paper": dict(Ns=[512, 1024, 2048, 4096], seeds=8,
                            float32=dict(N=8192, seeds=4))}


def transect_run(N: int, alpha1: float, alpha2: float, activation: str = E14_ACTIVATION,
                 target: str = E14_TARGET, seed: int = 0, dtype: str = "float64",
                 shared=None) -> dict:
    """One unit of E14: the reused run, the fresh run and the null run (reused batch, labels
    of an independent sample) at one point, size and seed. Per run (suffix ``_reused``,
    ``_fresh``, ``_null``):

    * ``separate`` (K_POWERS,): :func:`companion.core.spikes.separate_strengths` of W2 - W0;
    * ``own_cos2`` (K_POWERS, m): :func:`own_part_cos2`, each term's own part with each
      target direction (no detection);
    * ``s``, ``order``, ``weight`` (TOP,), ``cos2`` (TOP, m): the top singular values of W2,
      the power of a each left vector leans on most, its weight on the powers, the cos^2 of
      the right vector with each direction; ``counted`` (TOP,): above the null run's edge by
      the census's margin with weight >= MIN_WEIGHT; ``edge_self``: the run's own bulk edge
      off the powers of a;

    and ``edge`` (the null run's bulk edge, every run is counted against it),
    ``predicted``, ``predicted_null`` (K_POWERS,): the finite-N prediction of the reused and
    the null run's separate strengths, ``predicted_cos2`` (K_POWERS, m): its cos^2 of each
    term's own part with each direction (reused batch; the null run's is zero)."""
    N = positive_int(N, "N")
    out: dict = {}
    for name in RUNS:
        run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2,
                            batch="fresh" if name == "fresh" else "reused",
                            activation=activation, target=target, seed=seed, dtype=dtype,
                            null_labels=name == "null", shared=shared)
        U, s, Vt = top_singular(run.W2, TOP)
        weights = power_weights(U, run.a, K_POWERS)
        out["s_" + name] = s.astype(float)
        out["order_" + name] = np.argmax(weights, axis=1)
        out["weight_" + name] = weights.sum(axis=1).astype(float)
        out["cos2_" + name] = cos2_with_directions(Vt, run.target.directions)
        out["separate_" + name] = separate_strengths(run.W2, run.a, K_POWERS, base=run.W0)
        out["own_cos2_" + name] = own_part_cos2(run.W2, run.W0, run.a,
                                                run.target.directions, K_POWERS)
        out["edge_self_" + name] = off_powers_edge(run.W2, run.a, K_POWERS)
        del run, U, Vt
    out["edge"] = out["edge_self_null"]
    for name in RUNS:
        out["counted_" + name] = ((out["s_" + name] > out["edge"] * (1 + MARGIN))
                                  & (out["weight_" + name] >= MIN_WEIGHT))
    a1, a2 = float(alpha1), float(alpha2)
    out["predicted"] = np.array(_predicted(N, a1, a2, activation, target, False))
    out["predicted_null"] = np.array(_predicted(N, a1, a2, activation, target, True))
    out["predicted_cos2"] = np.array(predicted_terms(N, a1, a2, activation, target,
                                                     K=K_POWERS)["cos2"], float)
    return out


def transect_rows(runs) -> list[dict]:
    """E14's tidy rows: one per spike term (order k = 0..K_POWERS-1) of each run (reused,
    fresh, null) of each unit, with the unit's parameters and seed, ``run``, ``k``,
    ``strength`` (separate strength), ``own_cos2_<link>`` (its own part with each target
    direction), ``detected`` (whether the census counts a spike of that order),
    ``spike_cos2_<link>`` (the counted spike's cos^2, the largest singular value of that
    order; empty when none is counted), ``edge`` and the prediction at that N
    (``strength_predicted``; ``own_cos2_predicted_<link>``, reused and null runs only)."""
    rows = []
    for r in runs:
        links = r.params.get("target", E14_TARGET).split("+")
        base = dict(r.params, seed=r.seed)
        res = r.result
        for name in RUNS:
            order = np.asarray(res["order_" + name])
            counted = np.asarray(res["counted_" + name])
            for k in range(K_POWERS):
                hit = np.flatnonzero(counted & (order == k))
                row = dict(base, run=name, k=k, strength=float(res["separate_" + name][k]),
                           detected=bool(len(hit)), edge=float(res["edge"]))
                row.update({f"own_cos2_{link}": float(res["own_cos2_" + name][k][j])
                            for j, link in enumerate(links)})
                row.update({f"spike_cos2_{link}": (float(res["cos2_" + name][hit[0]][j])
                                                if len(hit) else "")
                            for j, link in enumerate(links)})
                pred = {"reused": res["predicted"], "null": res["predicted_null"]}.get(name)
                row["strength_predicted"] = float(pred[k]) if pred is not None else ""
                row.update({f"own_cos2_predicted_{link}":
                            (float(res["predicted_cos2"][k][j]) if name == "reused"
                             else 0.0 if name == "null" else "")
                            for j, link in enumerate(links)})
                rows.append(row)
    return rows


def _e14_grid(z):
    # the smallest size first, and within a size seed by seed over every point: an
    # interrupted run has every point at the sizes it finished, and every point with the
    # same seeds at the size it was in; the float32 size last (the float64 units keep the
    # parameters they always had)
    out = [(dict(N=N, alpha1=a1, alpha2=a2, activation=E14_ACTIVATION, target=E14_TARGET), s)
           for N in sorted(z["Ns"]) for s in seed_list(z["seeds"]) for (a1, a2) in E14_POINTS]
    if "float32" in z:
        g = z["float32"]
        out += [(dict(N=g["N"], alpha1=a1, alpha2=a2, activation=E14_ACTIVATION,
                      target=E14_TARGET, dtype="float32"), s)
                for s in seed_list(g["seeds"]) for (a1, a2) in g.get("points", E14_POINTS)]
    return out


TRANSECTS_E14 = Experiment("E14", "transects across the count line and the learnability "
                           "line (he1+he3, reused vs fresh vs null)", transect_run, _e14_grid,
                           _E14_SIZES, cost=3.5)
