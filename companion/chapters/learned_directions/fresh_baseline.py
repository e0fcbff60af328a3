"""The fresh batch's predicted baseline beside each comparison of "What each spike carries"
(book: dv-finite-n, dv-fresh-level): the finite-N prediction of the fresh batch's
terms (:func:`companion.core.finite_n.predicted_terms` with ``batch="fresh"``), their
separate strengths and the cos^2 of their own parts with beta*_2, beside what the stored E12
runs measure for the fresh batch, and the noise level of its first spike
(:func:`~companion.chapters.learned_directions.limits.fresh_level`).

The stored runs predate the fresh prediction (their ``predicted`` is NaN for a fresh batch,
:func:`~companion.chapters.learned_directions.experiments.learned_directions_run`), so it is
computed here, one quadrature per size (a fraction of a second each)."""

from __future__ import annotations

import numpy as np

from companion.chapters.learned_directions.experiments import (
    E12_ACTIVATION,
    E12_POINTS,
    E12_TARGET,
    carrier_cos2,
    full_size,
    max_cos2,
)
from companion.chapters.learned_directions.limits import fresh_level
from companion.core.finite_n import predicted_terms
from companion.core.runs import Runs
from companion.presentation.book import Numbers, fmt

#: a predicted cos^2 below this is zero in exact arithmetic (the fresh batch's terms have no
#: beta*_2 part: E[z_2 y B(s)] = E[z_2 g(z_2)] E[B(s)] = 0), rounding noise of the quadrature
ZERO = 1e-12
KEYS = ("N", "k1_pred", "k1_st", "k2_pred", "k2_st", "he3_pred", "k2_he1_pred", "first_pred",
        "first", "best", "reused_k2_st")


def predicted_fresh(N: int, point=E12_POINTS[0], K: int = 3) -> dict:
    """:func:`companion.core.finite_n.predicted_terms` of the fresh batch at E12's activation
    and target: ``strength`` (K,) and ``cos2`` (K, 2), with beta*_1 and beta*_2."""
    return predicted_terms(int(N), point[0], point[1], E12_ACTIVATION, E12_TARGET, K=K,
                           batch="fresh")


def _zero(x: float) -> float:
    return 0.0 if abs(x) < ZERO else float(x)


def _rows(runs: Runs, point) -> list[dict]:
    """Per size of the fresh batch at ``point``: the measured (seed means) and predicted
    strengths of the terms k = 1, 2, the largest predicted cos^2 with beta*_2 of any term's
    own part, and the fresh level of beta*_2 (its first spike, predicted by the noise, and
    the best of its spikes on the powers of a)."""
    out = []
    sel = runs.where(alpha1=point[0], alpha2=point[1], batch="fresh")
    for N in sorted(sel.unique("N")):
        group = sel.where(N=N)
        p = predicted_fresh(N, point)
        strengths = group.values("separate").mean(axis=0)
        reused = runs.where(N=N, alpha1=point[0], alpha2=point[1], batch="reused")
        out.append({"N": N, "seeds": len(group), "k1": strengths[1], "k2": strengths[2],
                    "k1_pred": p["strength"][1], "k2_pred": p["strength"][2],
                    "he3_pred": _zero(float(np.max(p["cos2"][:, 1]))),
                    "k2_he1_pred": float(p["cos2"][2, 0]),
                    "first": float(np.nanmean([carrier_cos2(r, k=0, j=1) for r in group])),
                    "first_pred": fresh_level(N, *point, E12_TARGET, j=1),
                    "best": float(np.mean([max_cos2(r, 1, suffix="") for r in group])),
                    "reused_k2": (float(reused.values("separate").mean(axis=0)[2])
                                  if len(reused) else float("nan"))})
    return out


def baseline(runs: Runs | None, point=E12_POINTS[0]) -> Numbers:
    """The fresh batch's predicted baseline at ``point`` and ``N``, the largest size with
    every point and batch (:func:`~companion.chapters.learned_directions.experiments.full_size`):
    ``k1_pred``, ``k1_st``, ``k2_pred``, ``k2_st``: the predicted and measured separate
    strengths of its terms k = 1, 2 (``reused_k2_st``: the reused batch's k = 2, measured);
    ``he3_pred``: the largest predicted cos^2 with beta*_2 of any term's own part (0: the
    fresh batch's terms carry no beta*_2), ``k2_he1_pred``: its k = 2 term's with beta*_1;
    ``first_pred``, ``first``: its first spike's cos^2 with beta*_2, from the noise of u_1
    and u_2 and measured; ``best``: the best of its spikes (the fresh level), seed means."""
    if runs is None or not len(runs):
        return Numbers(**dict.fromkeys(KEYS, "n/a"))
    N = full_size(runs)
    row = _rows(runs.where(N=N), point)[0]
    return Numbers(N=N, k1_pred=fmt(row["k1_pred"], 3), k1_st=fmt(row["k1"], 3),
                   k2_pred=fmt(row["k2_pred"], 3), k2_st=fmt(row["k2"], 3),
                   reused_k2_st=fmt(row["reused_k2"], 3), he3_pred=fmt(row["he3_pred"], 2),
                   k2_he1_pred=fmt(row["k2_he1_pred"], 2), first_pred=fmt(row["first_pred"], 2),
                   first=fmt(row["first"], 2), best=fmt(row["best"], 2))


def table(runs: Runs | None, point=E12_POINTS[0]) -> str:
    """The fresh batch at ``point``, size by size (``*``: none), measured against predicted:
    the separate strengths of its terms k = 1, 2 (the prediction in brackets;
    :func:`predicted_fresh`), and 1000 times the cos^2 with beta*_2 of its first spike
    (predicted from the noise, :func:`~companion.chapters.learned_directions.limits.fresh_level`)
    and of the best of its spikes on the powers of a (the fresh level; the prediction gives
    no term's own part any beta*_2). Seed means."""
    if runs is None or not len(runs):
        return "no stored runs"
    rows = _rows(runs, point)
    zero = max(r["he3_pred"] for r in rows)

    def cell(measured, predicted, width):
        return f"{measured} ({predicted})".ljust(width)

    lines = [f"the fresh batch at ({point[0]:.2f}, {point[1]:.2f}), seed means: measured "
             f"(predicted)",
             f"{'':>5}  {'separate strength':<32} 1000 cos^2 with beta*_2",
             f"{'N':>5}  {'k = 1':<16}{'k = 2':<16} {'first spike':<16}fresh level"]
    for r in rows:
        lines.append(f"{r['N']:>5}  {cell(fmt(r['k1'], 3), fmt(r['k1_pred'], 3), 16)}"
                     f"{cell(fmt(r['k2'], 3), fmt(r['k2_pred'], 3), 16)} "
                     f"{cell(fmt(1e3 * r['first'], 2), fmt(1e3 * r['first_pred'], 2), 16)}"
                     f"{fmt(1e3 * r['best'], 2)}")
    lines.append(f"predicted 1000 cos^2 with beta*_2 of every fresh term's own part: "
                 f"{fmt(1e3 * zero)}")
    return "\n".join(lines)
