"""How well the finite-N prediction (:func:`companion.core.finite_n.predicted_terms`,
book: dv-finite-n) matches the stored term strengths of E4 and E11, per activation.

:func:`prediction_rows` lists every stored point (activation, alpha1, alpha2, c1, c2, N)
and term k with the seed mean of the measured separate strength, its prediction, the
predicted floor (the strength the neurons' fluctuations alone give) and, where the stored
runs have it, the Taylor leading order (E4's ``leading_k``: the expansion of
:mod:`companion.core.expansion` on each run's own data). :func:`prediction_errors` summarizes
them per activation: the median relative error of the terms k >= 1 whose measured strength
is above its floor (``ABOVE_FLOOR`` times the predicted floor), and of all terms.
Precision checks (float32 repeats of a float64 unit below the largest size) are left out.
"""

from __future__ import annotations

import numpy as np

from companion.core.experiment import sweep_runs
from companion.core.finite_n import predicted_terms
from companion.core.intervals import clopper_pearson
from companion.core.spikes import bbp_detection_strength
from companion.core.theory import n_spikes
from companion.core.validation import positive_real

#: a term is "above its floor" when its measured strength exceeds the predicted floor by
#: this factor (then at least 1 - 1/1.5^2 = 56% of its square is signal)
ABOVE_FLOOR = 1.5


def _points(runs, prefix: str, K: int, experiment: str):
    """(params, measured means (K,), leading means or None) per stored point."""
    keep = sweep_runs(runs)
    keys = ("N", "alpha1", "alpha2", "activation", "c1", "c2")
    groups = {}
    for r in keep:
        p = {k: r.params.get(k, 1.0 if k in ("c1", "c2") else None) for k in keys}
        if p["activation"] is None:
            p["activation"] = "tanh"
        if r.params.get("batch", "reused") != "reused" or r.params.get("target", "he1") != "he1":
            continue
        groups.setdefault(tuple(p.values()), []).append(r)
    out = []
    for values, members in sorted(groups.items(), key=lambda kv: str(kv[0])):
        params = dict(zip(keys, values))
        meas = np.mean([[float(m[f"{prefix}{k}"]) for k in range(K)] for m in members], axis=0)
        lead = None
        if "leading_0" in members[0].result:       # Taylor leading order and the term sizes
            lead = np.mean([[[float(m[f"leading_{k}"]), float(m[f"terms_{k}"])]
                             for k in range(K)] for m in members], axis=0)
        out.append((experiment, params, len(members), meas, lead))
    return out


def prediction_rows(e4=None, e11=None) -> list[dict]:
    """One dict per stored point and term k: ``experiment``, ``activation``, ``alpha1``,
    ``alpha2``, ``c1``, ``c2``, ``N``, ``k``, ``seeds``, ``measured`` (seed mean of the
    separate strength), ``predicted``, ``floor``, ``signal`` (the mean field alone),
    ``rel_error`` = predicted / measured - 1, ``above_floor`` (measured > ``ABOVE_FLOOR``
    times the floor), and where stored (E4) ``leading``, the Taylor leading order of the
    term size, and ``term``, the measured term size it predicts (else ``None``). ``e4``,
    ``e11``: :class:`~companion.core.runs.Runs` of the stored experiments (either may be None)."""
    points = []
    if e4 is not None:
        points += _points(e4, "separate_", 4, "E4")
    if e11 is not None:
        points += _points(e11, "strength_k", 5, "E11")
    rows = []
    for experiment, p, seeds, meas, lead in points:
        pred = predicted_terms(int(p["N"]), float(p["alpha1"]), float(p["alpha2"]),
                               p["activation"], "he1", K=len(meas), c1=float(p["c1"]),
                               c2=float(p["c2"]))
        for k in range(len(meas)):
            rows.append({"experiment": experiment, **p, "k": k, "seeds": seeds,
                         "measured": float(meas[k]), "predicted": float(pred["strength"][k]),
                         "floor": float(pred["floor"][k]), "signal": float(pred["signal"][k]),
                         "rel_error": float(pred["strength"][k] / meas[k] - 1),
                         "above_floor": bool(meas[k] > ABOVE_FLOOR * pred["floor"][k]),
                         "leading": None if lead is None else float(lead[k, 0]),
                         "term": None if lead is None else float(lead[k, 1])})
    return rows


def prediction_errors(rows, above: float = ABOVE_FLOOR) -> dict:
    """Per activation (from :func:`prediction_rows`): ``median`` and ``max`` of
    |rel_error| over the terms k >= 1 above their floor (``terms``: how many),
    ``median_all`` over every term k >= 1 (``terms_all``), and ``leading_median``: the
    Taylor leading order's median |leading / term - 1| (against the measured term size,
    which it predicts) on the same terms where it is stored (E4), else None."""
    above = positive_real(above, "above")
    out = {}
    for act in sorted({r["activation"] for r in rows}):
        mine = [r for r in rows if r["activation"] == act and r["k"] >= 1]
        sel = [r for r in mine if r["measured"] > above * r["floor"]]
        err = np.abs([r["rel_error"] for r in sel])
        lead = [abs(r["leading"] / r["term"] - 1) for r in sel if r["leading"] is not None]
        out[act] = {"terms": len(sel), "median": float(np.median(err)) if len(sel) else None,
                    "max": float(np.max(err)) if len(sel) else None,
                    "terms_all": len(mine),
                    "median_all": float(np.median(np.abs([r["rel_error"] for r in mine]))),
                    "leading_median": float(np.median(lead)) if lead else None}
    return out


# -- the finite-N phase diagram checked by simulation (E16) ----------------------------------
def grid_check_rows(runs, K: int = 6, level: float = 0.95) -> list[dict]:
    """One dict per stored E16 point and size: ``alpha1``, ``alpha2``, ``N``, ``seeds``,
    ``measured`` (the census's count of each seed, the first spike included), ``limit``
    (:func:`companion.core.theory.n_spikes`), ``predicted`` (the finite-N phase diagram's
    count: terms k = 0..K-1 whose predicted separate strength exceeds the census's need
    against W0's edge 2, as E15 draws it), ``predicted_seed`` (per seed, against that seed's
    measured null edge, as ``simulate --null`` reports it), ``agree`` / ``agree_seed`` (how
    many seeds measured exactly that count) and their exact (Clopper-Pearson) ``level``
    intervals ``agree_ci`` / ``agree_seed_ci`` as fractions."""
    groups: dict = {}
    for r in runs:
        p = r.params
        groups.setdefault((p["alpha1"], p["alpha2"], p["activation"], int(p["N"])), []).append(r)
    rows = []
    for (a1, a2, act, N), members in sorted(groups.items()):
        members = sorted(members, key=lambda r: r.seed)
        strength = predicted_terms(N, a1, a2, act, "he1", K=K, sample_nodes=12)["strength"]
        measured = [int(m["n_outliers"]) for m in members]
        predicted = int(np.sum(strength > bbp_detection_strength(2.0)))
        per_seed = [int(np.sum(strength > bbp_detection_strength(float(m["edge_null"]))))
                    for m in members]
        agree = sum(c == predicted for c in measured)
        agree_seed = sum(c == q for c, q in zip(measured, per_seed))
        n = len(members)
        rows.append(dict(alpha1=a1, alpha2=a2, activation=act, N=N, seeds=n,
                         measured=measured, limit=n_spikes(a1, a2, act, "reused"),
                         predicted=predicted, predicted_seed=per_seed,
                         agree=agree, agree_ci=clopper_pearson(agree, n, level),
                         agree_seed=agree_seed,
                         agree_seed_ci=clopper_pearson(agree_seed, n, level),
                         edge_null=[float(m["edge_null"]) for m in members]))
    return rows
