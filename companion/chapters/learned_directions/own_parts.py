"""A learned direction read without detection (book: ld-def-learned): each term's
own part (the part of its row on the Gram-Schmidt powers of a that is orthogonal to the rows
before it, :func:`companion.core.spikes.own_part_cos2`) against the fresh batch's own parts of
the same N and seed, and beside the level the companion derives for the fresh batch's first
part (:func:`~companion.chapters.learned_directions.limits.fresh_level`, book: dv-fresh-level).

The stored E14 runs (:mod:`companion.chapters.learned_directions.transects`) record the own
parts of the reused batch, the fresh batch and the null run at every point, size and seed;
the spike-based reading (the right vector of the spike that a term makes, where it makes
one) is :func:`companion.chapters.learned_directions.summaries.carried`."""

from __future__ import annotations

import numpy as np

from companion.chapters.learned_directions.experiments import E12_TARGET
from companion.chapters.learned_directions.limits import fresh_level, noise_moments
from companion.chapters.learned_directions.transects import TRANSECTS
from companion.core.runs import Runs
from companion.core.spikes import MIN_WEIGHT
from companion.presentation.book import Numbers, fmt

NO_RUNS = "no stored runs"
#: the points read: the learnability transect's, two below 2 alpha1 + alpha2 = 1, two above
POINTS: tuple[tuple[float, float], ...] = tuple(TRANSECTS["learnability"]["points"])


def fresh_own_level(r, j: int, mu) -> float:
    """The fresh level of target direction ``j`` in one E14 unit (book: ld-def-learned): the
    largest cos^2 with beta*_j of the fresh run's own parts, the first left out for a
    direction with mu*_j != 0 (which one step learns with either batch)."""
    own = np.asarray(r["own_cos2_fresh"], float)[:, j]
    return float(own[1:].max() if abs(mu[j]) > 1e-12 else own.max())


def has_spike(r, k: int, run: str = "reused") -> bool:
    """Whether the unit's ``run`` has a spike of order ``k`` on the powers of a (weight >=
    MIN_WEIGHT, counted or not): where the spike-based reading has something to read."""
    on = np.asarray(r[f"weight_{run}"]) >= MIN_WEIGHT
    return bool(np.any(on & (np.asarray(r[f"order_{run}"]) == k)))


def own_rows(runs: Runs, points=POINTS, j: int = 1) -> list[dict]:
    """Per point and size: ``seeds``; ``own`` (K,) the reused batch's own parts' mean cos^2
    with beta*_j; ``fresh`` the mean fresh level (:func:`fresh_own_level`); ``above`` (K,)
    the seeds in which each own part is above the fresh level of its seed; ``predicted``:
    the derived level of the fresh batch's first part (:func:`fresh_level`); ``spikes`` (K,):
    the seeds in which the reused run has a spike of that order."""
    mu = noise_moments(E12_TARGET)["mu"]
    out = []
    for point in points:
        sel = runs.where(alpha1=point[0], alpha2=point[1])
        for N in sorted(sel.unique("N")):
            group = sel.where(N=N)
            own = np.array([np.asarray(r["own_cos2_reused"], float)[:, j] for r in group])
            level = np.array([fresh_own_level(r, j, mu) for r in group])
            K = own.shape[1]
            out.append({"point": tuple(point), "N": N, "seeds": len(group),
                        "own": own.mean(axis=0), "fresh": float(level.mean()),
                        "above": (own > level[:, None]).sum(axis=0),
                        "predicted": fresh_level(N, *point, E12_TARGET, j=j),
                        "spikes": np.array([sum(has_spike(r, k) for r in group)
                                            for k in range(K)])})
    return out


def _pooled(rows, N, side: str, key: str, k: int) -> tuple[int, int]:
    """(seeds above, seeds) of term ``k`` at size ``N`` over the points on ``side`` of the
    line ("below" or "above")."""
    sel = [r for r in rows if r["N"] == N and ((2 * r["point"][0] + r["point"][1] < 1)
                                               == (side == "below"))]
    return int(sum(r[key][k] for r in sel)), int(sum(r["seeds"] for r in sel))


def first_size_carried_everywhere(runs: Runs, k: int = 2, j: int = 1) -> int | None:
    """The smallest stored N from which term ``k``'s own part is above the fresh level of
    beta*_j in every seed at every point of :data:`POINTS`, at that N and every larger one
    (None if never)."""
    rows = own_rows(runs, j=j)
    Ns = sorted({r["N"] for r in rows})
    ok = {N: all(r["above"][k] == r["seeds"] for r in rows if r["N"] == N) for N in Ns}
    for i, N in enumerate(Ns):
        if all(ok[M] for M in Ns[i:]):
            return N
    return None


def learned(runs: Runs | None) -> Numbers:
    """The numbers of ``ld-obs-learned`` (the own-part reading): ``N_from``, the first size
    from which the k = 2 term's own part carries beta*_2 in every seed on both sides of the
    line (:func:`first_size_carried_everywhere`); ``k2_from`` ("32 of 32 seeds at each
    size": the seeds pooled over the four points at N_from); ``k2_small`` at ``N_small``,
    the smallest size, pooled; ``k1_above``: the most seeds, pooled over the points at any
    size, in which the k = 1 term's own part is above the fresh level, with ``k1_of``;
    ``no_spike``: the units (point, size, seed) where the k = 2 own part is above the fresh
    level but the reused run has no k = 2 spike on the powers of a, of ``no_spike_of``
    such units; at ``N_max``, the largest size, means over the points: ``k2_own``, ``fresh``
    and ``predicted`` (the derived level of the fresh batch's first part)."""
    keys = ("N_from", "k2_from", "N_small", "k2_small", "k1_above", "k1_of", "no_spike",
            "no_spike_of", "N_max", "k2_own", "fresh", "predicted")
    if runs is None or not len(runs):
        return Numbers(**dict.fromkeys(keys, "n/a"))
    rows = own_rows(runs)
    Ns = sorted({r["N"] for r in rows})
    N_from = first_size_carried_everywhere(runs)
    pooled = {N: [r for r in rows if r["N"] == N] for N in Ns}

    def count(N, k, key="above"):
        return (sum(int(r[key][k]) for r in pooled[N]), sum(r["seeds"] for r in pooled[N]))

    k1 = max((count(N, 1) for N in Ns), key=lambda c: c[0] / c[1])
    mu = noise_moments(E12_TARGET)["mu"]
    no_spike = carried = 0
    for r in runs:
        if (r.params["alpha1"], r.params["alpha2"]) not in POINTS:
            continue
        above = float(np.asarray(r["own_cos2_reused"])[2, 1]) > fresh_own_level(r, 1, mu)
        carried += above
        no_spike += above and not has_spike(r, 2)
    top = pooled[Ns[-1]]
    a, b = count(N_from, 2) if N_from is not None else ("n/a", "n/a")
    s, t = count(Ns[0], 2)
    return Numbers(N_from=N_from if N_from is not None else "none",
                   k2_from=f"{a} of {b}", N_small=Ns[0], k2_small=f"{s} of {t}",
                   k1_above=k1[0], k1_of=k1[1], no_spike=no_spike, no_spike_of=carried,
                   N_max=Ns[-1], k2_own=fmt(np.mean([r["own"][2] for r in top]), 2),
                   fresh=fmt(np.mean([r["fresh"] for r in top]), 2),
                   predicted=fmt(np.mean([r["predicted"] for r in top]), 2))


def own_table(runs: Runs | None) -> str:
    """The table of ``ld-obs-learned``: per stored N, pooled over the two points below the
    learnability line and over the two above, 1000 times the mean cos^2 with beta*_2 of the
    reused batch's k = 2 own part, of the fresh level and of its derived first part, and the
    seeds in which the k = 2 and the k = 1 own parts are above the fresh level."""
    if runs is None or not len(runs):
        return NO_RUNS
    rows = own_rows(runs)
    Ns = sorted({r["N"] for r in rows})
    lines = ["own parts' 1000 cos^2 with beta*_2, reused against fresh (same seed);",
             "seeds with the own part above the fresh level, k = 2 and k = 1",
             f"{'':>5}  {'below the line':<26}  {'above the line':<26}",
             f"{'N':>5}  {'k=2':>5} {'fresh':>5} {'pred':>5}  {'k=2':>5} {'k=1':>5}"
             f"  {'k=2':>5} {'fresh':>5} {'pred':>5}  {'k=2':>5} {'k=1':>5}"]
    for N in Ns:
        cells = []
        for side in ("below", "above"):
            sel = [r for r in rows if r["N"] == N
                   and (2 * r["point"][0] + r["point"][1] < 1) == (side == "below")]
            own = 1e3 * np.mean([r["own"][2] for r in sel])
            fresh = 1e3 * np.mean([r["fresh"] for r in sel])
            pred = 1e3 * np.mean([r["predicted"] for r in sel])
            k2, n = _pooled(rows, N, side, "above", 2)
            k1, _ = _pooled(rows, N, side, "above", 1)
            cells.append(f"{fmt(own, 2):>5} {fmt(fresh, 2):>5} {fmt(pred, 2):>5}  "
                         f"{f'{k2}/{n}':>5} {f'{k1}/{n}':>5}")
        lines.append(f"{N:>5}  " + "  ".join(cells))
    return "\n".join(lines)
