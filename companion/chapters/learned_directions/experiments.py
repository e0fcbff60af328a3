"""E12: distinct spikes learn distinct directions (book: dv-finite-n).

The abstract says the outliers of W2 each correspond "to a learned direction". With a
single-direction target there is one direction to learn, so E12 uses ``he1+he3`` (He_1 on
beta*_1, He_3 on beta*_2, orthogonal) and tanh(z + 1/2), which has every order, and reads
each counted spike of W2 (:func:`companion.core.spikes.spike_records`): its order k, its
separate strength and the cos^2 of its right vector with beta*_1 and beta*_2; beside a null
run (labels of an independent sample: same sizes, steps and label distribution, nothing
to learn) and a fresh second batch.

What the companion's derivations predict (:func:`companion.core.theory.is_learnable`,
:func:`companion.core.finite_n.predicted_terms`): the first spike (k = 0) carries beta*_1
(cos^2 -> mu*^2 / (mu*^2 + E[y^2]/psi) = 1/3 here); beta*_2 (information exponent 3)
enters a reused batch's terms through kappa_{k,r} E[z y^(r+1)] with k - r even, first at
k = 2 (r = 2); the k = 1 term carries neither (r = 1 needs E[z_2 y^2] = 0). A fresh batch
learns beta*_2 at no order. The k = 1 and k = 2 terms are mostly label noise at these
sizes: the null run has terms of about the same strength, so only their content, not
their count, tells a learned direction from an outlier.

Points (chosen with the finite-N prediction at N = d = n, tanh(z + 1/2), he1+he3):

* (0.30, 0.45): Lambda = 2 (k = 2 exponent +0.05, off the lines); predicted separate
  strengths k = 1, 2 of 1.7, 1.1 at N = 512 and 2.9, 1.7 at N = 2048 (threshold 1), the
  k = 2 term's own part with cos^2 0.007 to 0.025 with beta*_2 (growing with N);
* (0.25, 0.38): Lambda = 1 (the control, away from the k = 2 line: k = 2
  exponent -0.12); its k = 2 term still reaches 1.0 at N = 2048 with a beta*_2 share of
  0.04. Not because the saturation holds it up (the saturation of sigma' holds the term
  far *below* its leading order c_2 N^e at these sizes) but because He_3's heavy tail
  (E[y^6]) makes c_2 large, so its decay starts only far beyond reach (book:
  dv-leading-order).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from companion.core.alignment import cos2_with_directions
from companion.core.experiment import Experiment
from companion.core.finite_n import predicted_terms
from companion.core.intervals import clopper_pearson, t_intervals
from companion.core.network import BATCHES, run_two_steps
from companion.core.runs import Runs
from companion.core.spectra import top_singular
from companion.core.spikes import (
    K_POWERS,
    MARGIN,
    MIN_WEIGHT,
    TOP,
    off_powers_edge,
    power_weights,
    separate_strengths,
)
from companion.core.validation import choice, positive_int, seed_list

#: E12's points (alpha1, alpha2): see the module docstring
E12_POINTS: tuple[tuple[float, float], ...] = ((0.30, 0.45), (0.25, 0.38))
E12_ACTIVATION = "shifted_tanh"
E12_TARGET = "he1+he3"
#: paper: float64 up to 4096 at every point and batch; ``float32``: the larger size in
#: float32 (half the time and memory) at ``points`` and ``batches`` only
_E12_SIZES = {"small": dict(Ns=[256, 512], seeds=2),
              "paper": dict(Ns=[512, 1024, 2048, 4096], seeds=6,
                            float32=dict(N=8192, seeds=4, points=[[0.30, 0.45]],
                                         batches=["reused"]))}


@lru_cache(maxsize=64)
def _predicted(N: int, alpha1: float, alpha2: float, activation: str, target: str,
               null: bool) -> tuple:
    return tuple(float(v) for v in predicted_terms(N, alpha1, alpha2, activation, target,
                                                   K=K_POWERS, null=null)["strength"])


def learned_directions_run(N: int, alpha1: float, alpha2: float, batch: str = "reused",
                           activation: str = E12_ACTIVATION, target: str = E12_TARGET,
                           seed: int = 0, dtype: str = "float64", shared=None) -> dict:
    """One unit of E12: a two-step run and its null run (same seed, sizes, steps; labels of
    an independent sample), each read spike by spike. For the run (keys without suffix) and
    the null run (suffix ``_null``):

    * ``s`` (TOP,): the top singular values of W2; ``order`` (TOP,): the power q_{k+1} of a
      each left vector leans on most; ``weight`` (TOP,): its weight on the powers of a;
      ``cos2`` (TOP, m): cos^2 of each right vector with each target direction;
    * ``counted`` (TOP,): whether :func:`companion.core.spikes.count_spikes` counts it (above the
      null run's edge by the margin, weight >= MIN_WEIGHT);
    * ``separate`` (K_POWERS,): :func:`companion.core.spikes.separate_strengths` of W2 - W0;
      ``predicted`` (K_POWERS,): :func:`companion.core.finite_n.predicted_terms` (NaN for a
      fresh batch, where it is not derived);

    and ``edge``: the null run's bulk edge off the powers of a (both runs are counted
    against it), ``edge_self``: the run's own.
    """
    batch = choice(batch, "batch", BATCHES)
    N = positive_int(N, "N")
    out: dict = {}
    for suffix, null in (("", False), ("_null", True)):
        run = run_two_steps(N=N, alpha1=alpha1, alpha2=alpha2, batch=batch,
                            activation=activation, target=target, seed=seed, dtype=dtype,
                            null_labels=null, shared=shared)
        U, s, Vt = top_singular(run.W2, TOP)
        weights = power_weights(U, run.a, K_POWERS)
        out["s" + suffix] = s.astype(float)
        out["order" + suffix] = np.argmax(weights, axis=1)
        out["weight" + suffix] = weights.sum(axis=1)
        out["cos2" + suffix] = cos2_with_directions(Vt, run.target.directions)
        out["separate" + suffix] = separate_strengths(run.W2 - run.W0, run.a, K_POWERS)
        out["predicted" + suffix] = (np.array(_predicted(N, float(alpha1), float(alpha2),
                                                         activation, target, null))
                                     if batch == "reused" else np.full(K_POWERS, np.nan))
        out["edge_self" if not null else "edge"] = off_powers_edge(run.W2, run.a, K_POWERS)
        del run, U, Vt
    for suffix in ("", "_null"):
        out["counted" + suffix] = ((out["s" + suffix] > out["edge"] * (1 + MARGIN))
                                   & (out["weight" + suffix] >= MIN_WEIGHT))
    return out


def spike_rows(runs: Runs) -> list[dict]:
    """E12's tidy rows: one per counted spike of each run and null run, with the unit's
    parameters and seed, ``run`` ("run" or "null"), ``rank`` (its place among the top
    singular values), ``k``, ``value``, ``weight``, ``strength`` (the separate strength of
    its order), ``strength_predicted``, ``cos2_<link>`` per target direction and ``edge``."""
    rows = []
    for r in runs:
        links = r.params.get("target", E12_TARGET).split("+")
        base = {k: v for k, v in r.params.items()}
        base["seed"] = r.seed
        for suffix, name in (("", "run"), ("_null", "null")):
            res = r.result
            for i in np.flatnonzero(np.asarray(res["counted" + suffix])):
                k = int(res["order" + suffix][i])
                row = dict(base, run=name, rank=int(i), k=k,
                           value=float(res["s" + suffix][i]),
                           weight=float(res["weight" + suffix][i]),
                           strength=float(res["separate" + suffix][k]),
                           strength_predicted=float(res["predicted" + suffix][k]),
                           edge=float(res["edge"]))
                row.update({f"cos2_{link}": float(res["cos2" + suffix][i][j])
                            for j, link in enumerate(links)})
                rows.append(row)
    return rows


# a squared cosine lies in [0, 1]: its t intervals over a few seeds are cut to that range
COS2_RANGE = (0.0, 1.0)


def direction_carriers(runs: Runs, N: int | None = None, level: float = 0.95,
                       counted_only: bool = True) -> list[dict]:
    """Which spike carries which direction, at size ``N`` (default: the largest): one dict
    per (alpha1, alpha2, batch, run or null, order k) with ``detected`` (fraction of the
    seeds where a spike of that order is counted), and per target direction j
    ``cos2_mean[j]`` with its 95% Student-t interval ``cos2_low[j]``, ``cos2_high[j]``
    (:func:`companion.core.intervals.t_interval`, NaN with one seed; over the seeds where
    it is counted; the largest cos^2 if a seed counts two spikes of that
    order), and ``chance`` = 1/d.

    ``counted_only=False`` reads the content whether or not the census counts the spike:
    per seed, the largest of the top singular values whose left vector leans most on
    q_{k+1} with weight >= MIN_WEIGHT (``detected`` is then the fraction of seeds that
    have one). The census's edge is the null run's top singular value off the powers of
    a, which a few samples with large labels (He_3: y ~ z^3) push up from seed to seed;
    this reading separates what a spike carries from whether it clears that edge."""
    N = max(runs.unique("N")) if N is None else positive_int(N, "N")
    sel = runs.where(N=N)
    out = []
    for (a1, a2, batch), group in sel.groups("alpha1", "alpha2", "batch").items():
        for suffix, name in (("", "run"), ("_null", "null")):
            for k in range(K_POWERS):
                per_seed = []
                for r in group:
                    on = (np.asarray(r["counted" + suffix]) if counted_only
                          else np.asarray(r["weight" + suffix]) >= MIN_WEIGHT)
                    mask = on & (np.asarray(r["order" + suffix]) == k)
                    if mask.any() and counted_only:
                        per_seed.append(np.asarray(r["cos2" + suffix])[mask].max(axis=0))
                    elif mask.any():        # the largest such singular value
                        per_seed.append(np.asarray(r["cos2" + suffix])[int(np.argmax(mask))])
                if not per_seed and k > 0:
                    continue
                vals = np.array(per_seed) if per_seed else np.zeros((0, 1))
                low, high = (t_intervals(vals, level, COS2_RANGE)[1:] if len(vals)
                             else (np.full(1, np.nan), np.full(1, np.nan)))
                out.append({"alpha1": a1, "alpha2": a2, "batch": batch, "run": name, "k": k,
                            "N": N, "seeds": len(group),
                            "detected": len(per_seed) / len(group),
                            "cos2_mean": vals.mean(axis=0) if len(vals) else np.full(1, np.nan),
                            "cos2_low": low, "cos2_high": high, "chance": 1.0 / N})
    return out


def full_size(runs: Runs) -> int:
    """The largest N at which every point and batch of ``runs`` ran (E12's float32 size
    has the first point's reused batch only)."""
    full = [N for N in runs.unique("N")
            if len(runs.where(N=N).groups("alpha1", "alpha2", "batch"))
            == len(runs.groups("alpha1", "alpha2", "batch"))]
    return max(full) if full else max(runs.unique("N"))


def has_order(r, k: int, suffix: str = "", counted: bool = True) -> bool:
    """Whether a unit's run (``suffix`` "") or null run ("_null") has a spike of order
    ``k`` that the census counts (``counted``) or, else, any on the powers of a."""
    on = (np.asarray(r["counted" + suffix]) if counted
          else np.asarray(r["weight" + suffix]) >= MIN_WEIGHT)
    return bool(np.any(on & (np.asarray(r["order" + suffix]) == k)))


def carrier_cos2(r, k: int = 2, j: int = 1, suffix: str = "") -> float:
    """cos^2 with target direction ``j`` of the largest singular value whose left vector
    leans most on q_{k+1} with weight >= MIN_WEIGHT, counted or not (NaN if none): the
    reading of :func:`direction_carriers` with ``counted_only=False``, for one unit."""
    mask = ((np.asarray(r["weight" + suffix]) >= MIN_WEIGHT)
            & (np.asarray(r["order" + suffix]) == k))
    return float(np.asarray(r["cos2" + suffix])[int(np.argmax(mask)), j]) if mask.any() \
        else float("nan")


def max_cos2(r, j: int = 1, suffix: str = "_null") -> float:
    """The largest cos^2 with target direction ``j`` of any singular value on the powers of
    a (weight >= MIN_WEIGHT) of a unit's null run (``suffix``), 0 if there is none."""
    on = np.asarray(r["weight" + suffix]) >= MIN_WEIGHT
    return float(np.asarray(r["cos2" + suffix])[on, j].max(initial=0.0))


def count_by_N(runs: Runs, point=E12_POINTS[0], k: int = 2, level: float = 0.95) -> list[dict]:
    """How often the census counts a spike of order ``k`` at ``point``, size by size: one
    dict per (N, batch, run or null) with ``seeds``, ``fraction`` (of the seeds whose
    census counts one; the null run's spikes are counted against the same edge) and its
    exact (Clopper-Pearson) interval ``low``, ``high``
    (:func:`companion.core.intervals.clopper_pearson`); ``dtype`` ("float32" where the size
    ran in float32)."""
    out = []
    sel = runs.where(alpha1=point[0], alpha2=point[1])
    for (N, batch), group in sorted(sel.groups("N", "batch").items()):
        for suffix, name in (("", "run"), ("_null", "null")):
            hits = np.array([has_order(r, k, suffix) for r in group], float)
            low, high = clopper_pearson(int(hits.sum()), len(hits), level)
            out.append({"N": N, "batch": batch, "run": name, "seeds": len(group),
                        "fraction": float(hits.mean()), "low": float(low), "high": float(high),
                        "dtype": group[0].params.get("dtype", "float64")})
    return out


def content_by_N(runs: Runs, point=E12_POINTS[0], k: int = 2, j: int = 1,
                 level: float = 0.95) -> list[dict]:
    """What the spike of order ``k`` carries of target direction ``j`` at ``point``, size by
    size (counted or not, :func:`carrier_cos2`): one dict per (N, batch) with ``seeds``,
    ``present`` (fraction of seeds with such a spike), ``mean``, ``low``, ``high`` (seed
    mean of its cos^2 and 95% Student-t interval over the seeds that have one, NaN with one), ``null_mean``,
    ``null_low``, ``null_high`` (the same for the largest cos^2 of any null-run spike on
    the powers of a, :func:`max_cos2`), ``max_mean``, ``max_low``, ``max_high`` (the
    largest of the run's own spikes on the powers of a: a fresh batch's best carrier) and
    ``chance`` = 1/d."""
    out = []
    sel = runs.where(alpha1=point[0], alpha2=point[1])
    for (N, batch), group in sorted(sel.groups("N", "batch").items()):
        vals = np.array([carrier_cos2(r, k, j) for r in group])
        have = vals[np.isfinite(vals)]
        nulls = np.array([max_cos2(r, j) for r in group])
        low, high = t_intervals(have, level, COS2_RANGE)[1:] if len(have) else (np.nan, np.nan)
        nlow, nhigh = t_intervals(nulls, level, COS2_RANGE)[1:]
        best = np.array([max_cos2(r, j, suffix="") for r in group])
        blow, bhigh = t_intervals(best, level, COS2_RANGE)[1:]
        out.append({"N": N, "batch": batch, "seeds": len(group),
                    "present": len(have) / len(group),
                    "mean": float(have.mean()) if len(have) else float("nan"),
                    "low": float(low), "high": float(high), "null_mean": float(nulls.mean()),
                    "null_low": float(nlow), "null_high": float(nhigh),
                    "max_mean": float(best.mean()), "max_low": float(blow),
                    "max_high": float(bhigh), "chance": 1.0 / N})
    return out


def _e12_grid(z):
    # the largest size first: an interrupted run has the sizes that decide the statement;
    # the float32 size last (float64 units keep the parameters they always had)
    out = [(dict(N=N, alpha1=a1, alpha2=a2, batch=b, activation=E12_ACTIVATION,
                 target=E12_TARGET), s)
           for N in sorted(z["Ns"], reverse=True) for (a1, a2) in E12_POINTS
           for b in BATCHES for s in seed_list(z["seeds"])]
    if "float32" in z:
        g = z["float32"]
        out += [(dict(N=g["N"], alpha1=a1, alpha2=a2, batch=b, activation=E12_ACTIVATION,
                      target=E12_TARGET, dtype="float32"), s)
                for (a1, a2) in g["points"] for b in g["batches"] for s in seed_list(g["seeds"])]
    return out


LEARNED_DIRECTIONS = Experiment("E12", "distinct spikes learn distinct directions (he1+he3, "
                                "reused vs fresh vs null)", learned_directions_run, _e12_grid,
                                _E12_SIZES, cost=2.5)
