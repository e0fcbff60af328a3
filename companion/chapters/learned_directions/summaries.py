"""The numbers that the chapter "What each outlier learns" quotes (book/learned_directions.ipynb):
what each spike of W2 carries (E12), read against the fresh batch and the null run; what each
term's own part carries (E14, :mod:`~companion.chapters.learned_directions.own_parts`); and,
at the end, the chapter's findings as plain values for the registry page (companion/claims.py).
E14's transect numbers are :mod:`~companion.chapters.learned_directions.transect_summaries`."""

from __future__ import annotations

import numpy as np

from companion.chapters.learned_directions import own_parts, transect_summaries
from companion.chapters.learned_directions.experiments import (
    E12_ACTIVATION,
    E12_POINTS,
    E12_TARGET,
    content_by_N,
    count_by_N,
    direction_carriers,
    full_size,
    has_order,
    max_cos2,
)
from companion.chapters.learned_directions.limits import (
    PATH_LOG2,
    content_path,
    fresh_level,
    limit_content,
    noise_moments,
    peak,
    predicted_spike_content,
)
from companion.core.runs import Runs
from companion.core.spikes import MIN_WEIGHT, bbp_detection_strength
from companion.presentation.book import Numbers, fmt, fmt_estimate, fmt_ratio, power

NO_RUNS = "no stored runs"


# -- what each spike carries (E12) -----------------------------------------------------------
_CONTENT_KEYS = ("N", "seeds", "k0_he1", "k2_he3", "k1_he3", "k2_he3_ci", "null_he3_max",
                 "chance", "k0_he1_est", "k2_he3_est", "k2_frac", "null_frac",
                 "edge_low", "edge_high", "thr_low", "thr_high", "k2_st", "k2_pred",
                 "N_ratio_first", "ratio_first", "N_ratio_last", "ratio_last")


def _estimate(r, j) -> str:
    """A row's mean cos^2 with direction j and its 95% t interval: ``0.39 [0.38, 0.40]``."""
    if r is None:
        return "none"
    return fmt_estimate(float(r["cos2_mean"][j]), float(r["cos2_low"][j]),
                        float(r["cos2_high"][j]))


def spike_ratios(runs: Runs, point=E12_POINTS[0]) -> list[tuple[int, float]]:
    """(N, measured over predicted) of the k = 2 spike's cos^2 with beta*_2 at ``point``
    (reused batch) at every stored size where the spike exists and the limit law
    (:func:`~companion.chapters.learned_directions.limits.predicted_spike_content`, book:
    dv-spike-overlap) predicts a nonzero share."""
    out = []
    for t in content_by_N(runs, point):
        if t["batch"] != "reused" or not np.isfinite(t["mean"]):
            continue
        predicted = predicted_spike_content(t["N"], point)[2, 1]
        if predicted > 0:
            out.append((t["N"], t["mean"] / predicted))
    return out


def spike_content(runs: Runs | None, point=E12_POINTS[0]) -> Numbers:
    """The numbers of "What each spike carries" (``ts-sec-content``, ``ts-obs-content``,
    ``ts-obs-count``) from the stored E12 runs at ``N``, the largest size at which every
    point and batch ran (``seeds`` seeds; :func:`full_size`), every spike on the powers of a
    read whether the census counts it or not
    (:func:`~companion.chapters.learned_directions.experiments.direction_carriers`), at
    ``point`` with the reused batch: ``k0_he1`` (the first spike with beta*_1), ``k2_he3``
    and ``k1_he3`` (the k = 2 and k = 1 spikes with beta*_2), seed means, ``k2_he3_ci`` the
    95% t interval of k2_he3; ``k0_he1_est``, ``k2_he3_est``: the mean with its interval
    (:func:`companion.presentation.book.fmt_estimate`); ``null_he3_max``: the largest cos^2
    with beta*_2 of any null-run spike on the powers of a over the seeds; ``chance``: 1/d;

    * the count (:func:`~companion.chapters.learned_directions.experiments.count_by_N`):
      ``k2_frac``, ``null_frac``: the seeds whose census counts a k = 2 spike in the run and
      in its null run ("1 of 6"); ``edge_low``, ``edge_high``: the range of the null run's
      edge over the seeds, ``thr_low``, ``thr_high``: the separate strength the census needs
      against them (:func:`companion.core.spikes.bbp_detection_strength`); ``k2_st``,
      ``k2_pred``: the k = 2 term's separate strength, measured and predicted;
    * the limit law against the runs (:func:`spike_ratios`): the k = 2 spike's measured
      over predicted cos^2 with beta*_2 at the first and the last size that have one
      (``N_ratio_first``, ``ratio_first``, ``N_ratio_last``, ``ratio_last``)."""
    if runs is None or not len(runs):
        return Numbers(**dict.fromkeys(_CONTENT_KEYS, "n/a"))
    N = full_size(runs)
    rows = direction_carriers(runs, N, counted_only=False)

    def row(k, name="run"):
        return next((r for r in rows if (r["alpha1"], r["alpha2"]) == tuple(point)
                     and r["batch"] == "reused" and r["run"] == name and r["k"] == k
                     and r["detected"] > 0), None)

    sel = runs.where(N=N, alpha1=point[0], alpha2=point[1], batch="reused")
    counts = {(t["N"], t["run"]): t for t in count_by_N(runs, point)
              if t["batch"] == "reused"}

    def counted(name):
        t = counts[(N, name)]
        return f"{int(round(t['fraction'] * t['seeds']))} of {t['seeds']}"

    edges = sel.values("edge")
    ratios = spike_ratios(runs, point)
    (N0, r0), (N1, r1) = (ratios[0], ratios[-1]) if ratios else ((0, np.nan),) * 2
    def mean(r, j):
        return "none" if r is None else fmt(float(r["cos2_mean"][j]), 2)

    k2 = row(2)
    return Numbers(
        N=N, seeds=len(sel), k0_he1=mean(row(0), 0), k2_he3=mean(k2, 1),
        k1_he3=mean(row(1), 1),
        k2_he3_ci=("n/a" if k2 is None else f"[{fmt(float(k2['cos2_low'][1]), 2)}, "
                   f"{fmt(float(k2['cos2_high'][1]), 2)}]"),
        null_he3_max=fmt(max(max_cos2(r) for r in sel), 2), chance=fmt(1.0 / N, 2),
        k0_he1_est=_estimate(row(0), 0), k2_he3_est=_estimate(k2, 1),
        k2_frac=counted("run"), null_frac=counted("null"),
        edge_low=fmt(edges.min(), 3), edge_high=fmt(edges.max(), 3),
        thr_low=fmt(bbp_detection_strength(edges.min()), 3),
        thr_high=fmt(bbp_detection_strength(edges.max()), 3),
        k2_st=fmt(np.mean([r["separate"][2] for r in sel]), 3),
        k2_pred=fmt(np.mean([r["predicted"][2] for r in sel]), 3),
        N_ratio_first=N0 or "n/a", ratio_first=fmt(r0, 2), N_ratio_last=N1 or "n/a",
        ratio_last=fmt(r1, 2))


def spike_table(runs: Runs | None, point=E12_POINTS[0]) -> str:
    """The table of ``ts-obs-content``: at ``point`` and the largest size with every point
    and batch, per spike of the reused batch (the first, k = 1, k = 2) its mean cos^2 with
    beta*_1 and beta*_2 beside the limit law's prediction
    (:func:`~companion.chapters.learned_directions.limits.predicted_spike_content`) and the
    fresh level of the same seeds (:func:`carried`)."""
    if runs is None or not len(runs):
        return NO_RUNS
    N = full_size(runs)
    predicted = predicted_spike_content(N, point)
    lines = [f"N = {N}, ({point[0]:.2f}, {point[1]:.2f}), reused batch, seed means:",
             "cos^2 of each spike's right vector, measured (predicted) and the fresh level",
             f"{'spike':<7}{'with beta*_1':<22}{'fresh':>7}   {'with beta*_2':<22}{'fresh':>7}"]
    for k, name in enumerate(("first", "k = 1", "k = 2")):
        c = carried(runs, N, point, k)
        if c is None:
            lines.append(f"{name:<7}none")
            continue
        cells = []
        for j in (0, 1):
            pair = f"{fmt(c['spike'][:, j].mean(), 2)} ({fmt(predicted[k, j], 2)})"
            cells.append(f"{pair:<22}{fmt(c['fresh'][:, j].mean(), 2):>7}")
        lines.append(f"{name:<7}" + "   ".join(cells))
    return "\n".join(lines)


def content_table(runs: Runs | None, point=(0.30, 0.45)) -> str:
    """The table of ``ts-obs-count``: at ``point``, for every stored size N (``*``:
    float32), first the fraction of seeds whose census counts a k = 2 spike (reused run,
    its null run, fresh batch) and the range of the null run's edge over the seeds, then
    1000 times the cos^2 with beta*_2 of the reused batch's k = 2 spike (counted or not)
    against the largest of any null-run spike and of any fresh-batch spike on the powers
    of a; seed means with 95% t intervals over the seeds (fractions: exact Clopper-Pearson)
    (:func:`companion.chapters.learned_directions.experiments.count_by_N`,
    :func:`~companion.chapters.learned_directions.experiments.content_by_N`)."""
    if runs is None or not len(runs):
        return "no stored runs"

    counts = {(t["N"], t["batch"], t["run"]): t for t in count_by_N(runs, point)}
    content = {(t["N"], t["batch"]): t for t in content_by_N(runs, point)}

    def cell(t, stem="", key=None, scale=1.0):
        key = key or stem + "mean"
        if t is None or not np.isfinite(t[key]):
            return "-"
        low, high = t[stem + "low"] * scale, t[stem + "high"] * scale
        return f"{fmt(t[key] * scale, 2)} [{fmt(low, 2)}, {fmt(high, 2)}]"

    Ns = sorted(runs.where(alpha1=point[0], alpha2=point[1]).unique("N"))
    tag = {N: "*" if counts[(N, "reused", "run")]["dtype"] == "float32" else " " for N in Ns}
    lines = ["seeds whose census counts a k = 2 spike; the null run's edge (range)",
             f"{'N':>5}  seeds  {'reused':<19} {'null':<19} {'fresh':<13} edge"]
    for N in Ns:
        run = counts[(N, "reused", "run")]
        null, fresh = counts.get((N, "reused", "null")), counts.get((N, "fresh", "run"))
        edges = runs.where(N=N, alpha1=point[0], alpha2=point[1], batch="reused").values("edge")
        lines.append(f"{N:>5}{tag[N]} {run['seeds']:>5}  {cell(run, key='fraction'):<19} "
                     f"{cell(null, key='fraction'):<19} {cell(fresh, key='fraction'):<13} "
                     f"{fmt(edges.min(), 2)}-{fmt(edges.max(), 2)}")
    lines += ["", "1000 cos^2 with beta*_2: reused k = 2 spike, best null, best fresh",
              f"{'N':>5}  {'k = 2 spike':<18} {'best null':<18} best fresh"]
    for N in Ns:
        t, f = content.get((N, "reused")), content.get((N, "fresh"))
        lines.append(f"{N:>5}{tag[N]} {cell(t, key='mean', scale=1e3):<18} "
                     f"{cell(t, 'null_', scale=1e3):<18} {cell(f, 'max_', scale=1e3)}")
    return "\n".join(lines)




# -- a learned direction, defined and measured (E12) -----------------------------------------
def _spike_row(r, k: int, suffix: str = "") -> np.ndarray | None:
    """cos^2 with each target direction of the largest singular value whose left vector
    leans most on q_{k+1} (weight >= MIN_WEIGHT, counted or not), None if there is none:
    :func:`~companion.chapters.learned_directions.experiments.carrier_cos2` for every
    direction at once."""
    mask = ((np.asarray(r["weight" + suffix]) >= MIN_WEIGHT)
            & (np.asarray(r["order" + suffix]) == k))
    return np.asarray(r["cos2" + suffix])[int(np.argmax(mask))] if mask.any() else None


def fresh_levels(r, mu) -> np.ndarray:
    """The fresh level of each target direction j in one fresh-batch unit (book:
    ld-def-learned): the largest cos^2 with beta*_j of its spikes on the powers of a
    (weight >= MIN_WEIGHT, counted or not), the first spike left out for a direction with
    mu*_j != 0, which one step learns with either batch."""
    on = np.asarray(r["weight"]) >= MIN_WEIGHT
    later = on & (np.asarray(r["order"]) >= 1)
    cos2 = np.asarray(r["cos2"])
    return np.array([cos2[(later if abs(m) > 1e-12 else on), j].max(initial=0.0)
                     for j, m in enumerate(mu)])


def carried(runs: Runs, N: int, point, k: int) -> dict | None:
    """At ``point`` and size ``N``, the reused batch's spike of order ``k`` against the fresh
    batch of the same seed (book: ld-def-learned): ``spike`` (seeds x m, its cos^2 with each
    direction, over the seeds that have it), ``fresh`` (the same seeds' fresh levels),
    ``above`` (m,: the seeds in which the spike carries more than the fresh level; a seed
    without the spike counts as not above), ``seeds`` (those with a fresh twin); None
    without any."""
    mu = noise_moments(E12_TARGET)["mu"]
    sel = runs.where(N=N, alpha1=point[0], alpha2=point[1])
    fresh = {r.seed: r for r in sel.where(batch="fresh")}
    pairs = [(r, fresh[r.seed]) for r in sel.where(batch="reused") if r.seed in fresh]
    rows = [(_spike_row(r, k), fresh_levels(f, mu)) for r, f in pairs]
    rows = [(a, b) for a, b in rows if a is not None]
    if not rows:
        return None
    spike, level = (np.array(v) for v in zip(*rows))
    return {"spike": spike, "fresh": level, "above": (spike > level).sum(axis=0),
            "seeds": len(pairs)}


def learned(runs: Runs | None, point=E12_POINTS[0]) -> Numbers:
    """The numbers of "A learned direction" (``ld-def-learned``, ``ld-obs-learned``) from the
    stored E12 runs at ``N``, the largest size with every point and batch: for the spike of
    order k = 0, 1, 2 of the reused batch at ``point`` and each direction (``he1``:
    beta*_1, ``he3``: beta*_2), ``k<k>_<d>`` its mean cos^2, ``k<k>_<d>_fresh`` the mean
    fresh level (:func:`fresh_levels`), ``k<k>_<d>_above`` the seeds in which it is above
    that level ("6 of 6"), ``k<k>_<d>_ratio`` the ratio of the means,
    ``k<k>_<d>_carries`` "carries" where it is above in every seed, else "does not carry";
    ``fresh_first_he1``, ``fresh_first_he3``: the fresh batch's first spike, with
    ``*_pred`` beside them (:func:`~companion.chapters.learned_directions.limits.fresh_level`);
    ``z2y2``, ``y2``: E[z_2^2 y^2] and E[y^2]; ``chance`` (1/d), ``fresh_chance``: the fresh
    level of beta*_2 over chance; ``k1_counted``: the seeds whose census
    counts the k = 1 spike; ``spikes_carrying``: how many of the three spikes carry a
    direction."""
    keys = ["N", "seeds", "chance", "z2y2", "y2", "noise_ratio", "fresh_first_he1",
            "fresh_first_he1_pred", "fresh_first_he3", "fresh_first_he3_pred", "fresh_chance",
            "k1_counted", "spikes_carrying"]
    for k in range(3):
        for d in ("he1", "he3"):
            keys += [f"k{k}_{d}{s}" for s in ("", "_fresh", "_above", "_ratio", "_carries")]
    if runs is None or not len(runs):
        return Numbers(**dict.fromkeys(keys, "n/a"))
    N = full_size(runs)
    out = {"N": N, "chance": fmt(1.0 / N, 2)}
    for k in range(3):
        c = carried(runs, N, point, k)
        for j, d in enumerate(("he1", "he3")):
            if c is None:
                out.update({f"k{k}_{d}{s}": "n/a" for s in ("", "_fresh", "_above", "_ratio",
                                                            "_carries")})
                continue
            spike, level = c["spike"][:, j].mean(), c["fresh"][:, j].mean()
            out[f"k{k}_{d}"] = fmt(spike, 2)
            out[f"k{k}_{d}_fresh"] = fmt(level, 2)
            out[f"k{k}_{d}_above"] = f"{int(c['above'][j])} of {c['seeds']}"
            out[f"k{k}_{d}_ratio"] = fmt_ratio(spike / level) if level > 0 else "n/a"
            out[f"k{k}_{d}_carries"] = ("carries" if c["above"][j] == c["seeds"]
                                        else "does not carry")
            out["seeds"] = c["seeds"]
    mom = noise_moments(E12_TARGET)
    reused = runs.where(N=N, alpha1=point[0], alpha2=point[1], batch="reused")
    out["k1_counted"] = f"{sum(has_order(r, 1) for r in reused)} of {len(reused)}"
    out["spikes_carrying"] = sum(any(out.get(f"k{k}_{d}_carries") == "carries"
                                     for d in ("he1", "he3")) for k in range(3))
    fresh = runs.where(N=N, alpha1=point[0], alpha2=point[1], batch="fresh")
    first = np.array([_spike_row(r, 0) for r in fresh])
    level3 = np.mean([fresh_levels(r, mom["mu"])[1] for r in fresh])
    out.update(z2y2=fmt(mom["z2y2"][1]), y2=fmt(float(mom["y2"])),
               noise_ratio=fmt(mom["z2y2"][1] / float(mom["y2"])),
               fresh_first_he1=fmt(first[:, 0].mean(), 2),
               fresh_first_he1_pred=fmt(fresh_level(N, *point, E12_TARGET, j=0), 2),
               fresh_first_he3=fmt(first[:, 1].mean(), 2),
               fresh_first_he3_pred=fmt(fresh_level(N, *point, E12_TARGET, j=1), 2),
               fresh_chance=fmt(level3 * N, 2))
    return Numbers(**{k: out.get(k, "n/a") for k in keys})


def limits(point=E12_POINTS[0]) -> Numbers:
    """The limit and the finite-N path of what the spikes carry (``ld-conj-limit``): the own
    parts' cos^2 as N -> infinity (:func:`~companion.chapters.learned_directions.limits.limit_content`):
    ``lim_k0_he1`` (the first spike with beta*_1), ``lim_k1`` (the k = 1 term's largest,
    0), ``lim_k2_he1``, ``lim_k2_he3``; on the path
    (:func:`~companion.chapters.learned_directions.limits.content_path`): ``path_he3_first``
    at ``N_first`` = 512, ``peak_he3`` at ``N_peak`` (refined,
    :func:`~companion.chapters.learned_directions.limits.peak`), ``N_cross``: the first
    size of the grid from which the beta*_1 part is the larger, ``path_he3_last``,
    ``path_he1_last`` at ``N_last`` (2^50)."""
    lim = limit_content(E12_ACTIVATION, E12_TARGET, K=3)
    path = content_path(point=point)
    fine = [i for i, j in enumerate(PATH_LOG2) if float(j) * 2 == int(float(j) * 2)
            and j <= 20]
    N_peak, top = peak(np.log2(path["N"][fine]), path["he3"][fine])
    cross = next((n for n, a, b in zip(path["N"], path["he1"], path["he3"])
                  if a > b and n > 2 ** 20), float("nan"))
    return Numbers(lim_k0_he1=fmt(lim[0, 0], 2), lim_k1=fmt(lim[1].max(), 2),
                   lim_k2_he1=fmt(lim[2, 0], 2), lim_k2_he3=fmt(lim[2, 1], 2),
                   N_first=int(path["N"][0]), path_he3_first=fmt(path["he3"][0], 2),
                   N_peak=_size(N_peak), peak_he3=fmt(top, 2),
                   N_cross=_power(cross), N_last=_power(path["N"][-1]),
                   path_he3_last=fmt(path["he3"][-1], 2),
                   path_he1_last=fmt(path["he1"][-1], 2))


def _size(N: float) -> str:
    """A size for prose, to two significant digits: ``93,000``."""
    return f"{int(float(fmt(N, 2))):,}"


def _power(N: float) -> str:
    """A power of two for prose, as a reader writes it: ``2²⁸``."""
    return "n/a" if not np.isfinite(N) else power(2, int(round(np.log2(N))))


def learned_table(runs: Runs | None, point=E12_POINTS[0]) -> str:
    """The table of ``ld-obs-learned``: per spike of the reused batch at ``point`` (the
    first, k = 1, k = 2) and target direction, its mean cos^2, the mean fresh level of the
    same seeds (:func:`fresh_levels`) and the seeds in which the spike is above it, at the
    largest size with every point and batch (:func:`carried`)."""
    if runs is None or not len(runs):
        return NO_RUNS
    N = full_size(runs)
    lines = [f"N = {N}: cos^2 with beta*_1 (He_1) and beta*_2 (He_3)",
             f"{'spike':<7}{'beta*_1':>9}{'fresh':>9}{'above':>8}"
             f"{'beta*_2':>11}{'fresh':>9}{'above':>8}"]
    for k, name in enumerate(("first", "k = 1", "k = 2")):
        c = carried(runs, N, point, k)
        if c is None:
            lines.append(f"{name:<7}  none")
            continue
        cells = ""
        for j, width in ((0, 9), (1, 11)):
            cells += (f"{fmt(c['spike'][:, j].mean(), 2):>{width}}"
                      f"{fmt(c['fresh'][:, j].mean(), 2):>9}"
                      f"{str(int(c['above'][j])) + '/' + str(c['seeds']):>8}")
        lines.append(f"{name:<7}{cells}")
    lines.append(f"chance 1/d = {fmt(1.0 / N, 2)}")
    return "\n".join(lines)


# -- a learned direction without detection (E14's own parts) ---------------------------------
def own_part_numbers(runs: Runs | None) -> Numbers:
    """The numbers of ``ld-obs-learned``: :func:`companion.chapters.learned_directions.own_parts.learned`."""
    return own_parts.learned(runs)


def own_part_table(runs: Runs | None) -> str:
    """The table of ``ld-obs-learned``: :func:`companion.chapters.learned_directions.own_parts.own_table`."""
    return own_parts.own_table(runs)


# -- the chapter's findings as plain values, for the registry page (companion/claims.py) -----
def spike_he3_content(runs: Runs, k: int, point=E12_POINTS[0]) -> float:
    """The mean cos^2 with beta*_2 (He_3) of the reused batch's spike of order ``k`` at
    ``point``, over the seeds that have one, at the largest size with every point and batch
    (E12; ``ts-obs-content``, ``ld-obs-learned``)."""
    c = carried(runs, full_size(runs), point, k)
    return float("nan") if c is None else float(c["spike"][:, 1].mean())


def fresh_level_he3(runs: Runs, point=E12_POINTS[0]) -> float:
    """The mean fresh level of beta*_2 at ``point`` and the largest size with every point and
    batch (E12; book: ld-def-learned), read beside the k = 2 spike."""
    c = carried(runs, full_size(runs), point, 2)
    return float("nan") if c is None else float(c["fresh"][:, 1].mean())


def k2_limit_content() -> tuple[float, float]:
    """(with beta*_1, with beta*_2): the cos^2 of the k = 2 term's own part as N -> infinity
    (``ld-conj-limit``)."""
    lim = limit_content(E12_ACTIVATION, E12_TARGET, K=3)
    return float(lim[2, 0]), float(lim[2, 1])


def k2_he3_content_peak_size(point=E12_POINTS[0]) -> float:
    """The N near which the finite-N prediction's He_3 content of the k = 2 term peaks
    (``ld-conj-limit``, :func:`limits`)."""
    path = content_path(point=point)
    fine = [i for i, j in enumerate(PATH_LOG2) if float(j) * 2 == int(float(j) * 2) and j <= 20]
    return peak(np.log2(path["N"][fine]), path["he3"][fine])[0]


def k1_spikes_counted_across_the_count_line(runs14: Runs) -> tuple[int, int]:
    """(runs whose census counts a k = 1 spike, reused runs): the stored E14 transect across
    alpha1 + alpha2 = 1/2, every size and seed (``ld-obs-transects``)."""
    return transect_summaries.k1_counted(runs14)


def k2_own_part_carries_he3_from(runs14: Runs) -> int | None:
    """The smallest stored N from which the k = 2 term's own part carries beta*_2 in every
    seed at all four points of the learnability transect, both sides of the line
    (``ld-obs-learned``; None if never)."""
    return own_parts.first_size_carried_everywhere(runs14)
