"""The numbers of "What each spike carries" and of the finite-N prediction in the chapter
"Two steps: a spiked spectrum" (book/two_steps.ipynb, ``ts-sec-content``,
``ts-obs-content``, ``ts-obs-prediction``; derivation ``dv-finite-n``), also quoted by the
introduction (``intro-obs-content``). Split from :mod:`companion.summaries.two_steps`,
which re-exports them: the chapters call ``summaries.two_steps.spike_content`` and
``summaries.two_steps.prediction``.
"""

from __future__ import annotations

import numpy as np

from ..activations import get_activation
from ..book import Numbers, fmt
from ..experiments import sweep_runs
from ..runs import Runs


def _sci(x: float) -> str:
    """A size to two significant digits in short scientific notation: ``1.9e5``."""
    return f"{x:.1e}".replace("e+0", "e").replace("e+", "e")


def _emergence_runs(runs: Runs) -> Runs:
    """The runs with the default step constants c1 = c2 = 1, precision checks left out."""
    return sweep_runs(runs.where(c1=1.0, c2=1.0))


def _ratio(x: float) -> str:
    """A ratio for prose: a whole number from 10 on (``192``), else two digits."""
    return fmt(int(round(x))) if np.isfinite(x) and x >= 10 else fmt(x, 2)


# -- what each spike carries (E12) -----------------------------------------------------------
_CONTENT_KEYS = ("N", "seeds", "k0_he1", "k0_he1_ci", "k0_he3", "k1_he1", "k1_he3",
                 "k1_he3_ci", "k2_he1", "k2_he3", "k2_he3_ci", "k2_he3_min", "null_he3_max",
                 "null_k2_he3", "k2_null_ratio", "k2_chance_ratio", "chance", "fresh_he1",
                 "fresh_he1_ci", "fresh_he3", "fresh_orders", "control_orders",
                 "control_k2_st", "control_k2_pred", "k2_counted", "k2_counted_small",
                 "N_small", "k2_st", "k2_pred", "null_k2_st", "null_k2_pred", "edge_low",
                 "edge_high", "k2_pred_next", "N_next", "N_big", "seeds_big",
                 "k2_he3_big", "k2_he3_big_ci", "null_he3_big", "k2_counted_big",
                 "null_counted_big", "k2_frac", "k2_frac_ci", "null_frac", "null_frac_ci",
                 "k2_frac_big", "k2_frac_big_ci", "count_from", "k2_st_big",
                 "k2_pred_big", "null_k2_st_big", "edge_low_big", "edge_high_big",
                 "k2_cos2_pred", "k2_he3_small",
                 "control_k2_he3", "control_k2_he3_ci", "control_k2_counted", "thr_clean",
                 "thr_low", "thr_high")


def spike_content(runs: Runs | None, point=(0.30, 0.45), control=(0.25, 0.38)) -> Numbers:
    """The numbers of "What each spike carries" (``ts-sec-content``, ``ts-obs-content``,
    ``ts-obs-count``) from the stored E12 runs (``store.load("E12")``: tanh(z + 1/2), target
    He_1 + He_3, reused and fresh batch, each beside its null run), at ``N``, the largest
    size at which every point and batch ran (``seeds`` seeds;
    :func:`companion.experiments.learned_directions.full_size`), read with
    :func:`companion.experiments.learned_directions.direction_carriers`
    (``counted_only=False``: every spike on the powers of a, counted or not). cos^2 of a
    right vector with beta*_1 (He_1) and beta*_2 (He_3), seed means and 95% bootstrap
    intervals over the seeds (``*_ci``), at ``point`` with the reused batch:

    * ``k0_he1``, ``k0_he3``: the first spike; ``k1_he1``, ``k1_he3``: the k = 1 spike;
      ``k2_he1``, ``k2_he3``: the k = 2 spike, ``k2_he3_min`` its smallest value over the
      seeds; ``null_he3_max``: the largest He_3 cos^2 of any null-run spike on the powers
      of a, over the seeds; ``null_k2_he3``: the null run's k = 2 spike;
      ``k2_null_ratio``, ``k2_chance_ratio``: k2_he3 over null_k2_he3 and over ``chance``
      (1/d); ``k2_he3_small``: k2_he3 at ``N_small``, the next smaller size;
    * ``fresh_he1``, ``fresh_he3``: the fresh batch's first spike; ``fresh_orders``: the
      orders k of its spikes on the powers of a; ``control_orders``: the same for the reused
      batch at ``control`` (Lambda = 1), with ``control_k2_st``, ``control_k2_pred``: its
      k = 2 separate strength, measured and predicted (:func:`companion.finite_n.predicted_terms`),
      ``control_k2_he3`` with ``control_k2_he3_ci``: its k = 2 spike's cos^2 with beta*_2
      (counted or not), ``control_k2_counted``: the seeds whose census counts it;
    * the count (:func:`companion.experiments.learned_directions.count_by_N`):
      ``k2_counted`` (``k2_counted_small``, ``k2_counted_big``), the number of seeds at
      ``N`` (``N_small``; ``N_big``, the largest size, ``seeds_big`` seeds, float32) whose
      census counts a k = 2 spike, ``null_counted_big`` the same for the null run;
      ``k2_frac``, ``null_frac``, ``k2_frac_big`` the fractions at ``N`` and ``N_big`` with
      intervals ``*_ci``; ``count_from``: the smallest size from which the census counts it
      in at least half the seeds at every larger size ("none" if it does not);
      ``k2_st``, ``k2_pred``, ``null_k2_st``, ``null_k2_pred``: the k = 2 separate
      strengths of the run and of the null run, measured and predicted (``*_big`` at
      ``N_big``); ``edge_low``, ``edge_high`` (``*_big``): the range of the null run's edge
      over the seeds; ``k2_pred_next``: the predicted k = 2 strength at ``N_next`` (``N_big``
      or 2 N); at ``N_big``: ``k2_he3_big`` with ``k2_he3_big_ci``, ``null_he3_big`` (the
      seed mean of the largest He_3 cos^2 of a null spike); ``k2_cos2_pred``,
      ``k2_cos2_pred_big``: the predicted He_3 cos^2 of the k = 2 term's own part at
      ``N_next`` (:func:`companion.finite_n.predicted_terms`, before the loss of overlap
      of a spike near the edge) and the measured ``k2_he3_big`` beside it;
    * ``thr_clean``: the separate strength the census needs against a clean bulk of edge 2
      (:func:`companion.experiments.calibration.bbp_detection_strength`), ``thr_low``,
      ``thr_high``: the same against the null run's edges ``edge_low``, ``edge_high``.
    """
    if runs is None or not len(runs):
        return Numbers(**dict.fromkeys(_CONTENT_KEYS, "n/a"))
    from ..experiments.calibration import bbp_detection_strength
    from ..experiments.learned_directions import (
        E12_ACTIVATION,
        E12_TARGET,
        carrier_cos2,
        content_by_N,
        count_by_N,
        direction_carriers,
        full_size,
        has_order,
        max_cos2,
    )
    from ..finite_n import predicted_terms

    N = full_size(runs)
    Ns = sorted(n for n in runs.unique("N") if n <= N)
    N_big = max(runs.unique("N"))
    rows = direction_carriers(runs, N, counted_only=False)

    def row(pt, batch, name, k):
        for r in rows:
            if ((r["alpha1"], r["alpha2"]) == tuple(pt) and r["batch"] == batch
                    and r["run"] == name and r["k"] == k and r["detected"] > 0):
                return r
        return None

    def mean(r, j, digits=2):
        return "none" if r is None else fmt(float(r["cos2_mean"][j]), digits)

    def ci(r, j):
        return "n/a" if r is None else (f"[{fmt(float(r['cos2_low'][j]), 2)}, "
                                        f"{fmt(float(r['cos2_high'][j]), 2)}]")

    def orders(pt, batch):
        return fmt(sorted(r["k"] for r in rows if (r["alpha1"], r["alpha2"]) == tuple(pt)
                          and r["batch"] == batch and r["run"] == "run" and r["detected"] > 0))

    k0, k1, k2 = (row(point, "reused", "run", k) for k in range(3))
    null_k2, fresh = row(point, "reused", "null", 2), row(point, "fresh", "run", 0)
    sel = runs.where(N=N, alpha1=point[0], alpha2=point[1], batch="reused")
    big = runs.where(N=N_big, alpha1=point[0], alpha2=point[1], batch="reused")
    # the k = 2 spike's He_3 content per seed, and every null spike's on the powers of a
    per_seed = [v for v in (carrier_cos2(r) for r in sel) if np.isfinite(v)]
    null_max = max(max_cos2(r) for r in sel)
    counts = {(t["N"], t["run"]): t for t in count_by_N(runs, point)
              if t["batch"] == "reused"}
    content = {t["N"]: t for t in content_by_N(runs, point) if t["batch"] == "reused"}

    def counted(n, name="run"):
        t = counts.get((n, name))
        return "n/a" if t is None else int(round(t["fraction"] * t["seeds"]))

    def frac(n, name="run"):
        t = counts.get((n, name))
        return ("n/a", "n/a") if t is None else (
            fmt(t["fraction"], 2), f"[{fmt(t['low'], 2)}, {fmt(t['high'], 2)}]")

    sizes = sorted(n for n, name in counts if name == "run")
    count_from = "none"
    for i, n in enumerate(sizes):
        if all(counts[(m, "run")]["fraction"] >= 0.5 for m in sizes[i:]):
            count_from = n
            break
    ctrl = runs.where(N=N, alpha1=control[0], alpha2=control[1], batch="reused")
    ctrl_k2 = row(control, "reused", "run", 2)
    k2_he3 = float(k2["cos2_mean"][1]) if k2 is not None else float("nan")
    N_next = N_big if N_big > N else 2 * N
    pred_next = predicted_terms(N_next, point[0], point[1], E12_ACTIVATION, E12_TARGET, K=3)
    edges, edges_big = sel.values("edge"), big.values("edge")
    small = content.get(Ns[-2]) if len(Ns) > 1 else None
    top = content.get(N_big)
    return Numbers(
        N=N, seeds=len(sel), k0_he1=mean(k0, 0), k0_he1_ci=ci(k0, 0), k0_he3=mean(k0, 1),
        k1_he1=mean(k1, 0), k1_he3=mean(k1, 1), k1_he3_ci=ci(k1, 1), k2_he1=mean(k2, 0),
        k2_he3=mean(k2, 1), k2_he3_ci=ci(k2, 1),
        k2_he3_min=fmt(min(per_seed), 2) if per_seed else "n/a",
        null_he3_max=fmt(null_max, 2), null_k2_he3=mean(null_k2, 1),
        k2_null_ratio=(_ratio(k2_he3 / float(null_k2["cos2_mean"][1]))
                       if null_k2 is not None else "n/a"),
        k2_chance_ratio=_ratio(k2_he3 * N), chance=fmt(1.0 / N, 2),
        k2_he3_small=fmt(small["mean"], 2) if small is not None else "n/a",
        fresh_he1=mean(fresh, 0), fresh_he1_ci=ci(fresh, 0), fresh_he3=mean(fresh, 1, 1),
        fresh_orders=orders(point, "fresh"), control_orders=orders(control, "reused"),
        control_k2_st=fmt(np.mean([r["separate"][2] for r in ctrl]), 2),
        control_k2_pred=fmt(np.mean([r["predicted"][2] for r in ctrl]), 2),
        control_k2_he3=mean(ctrl_k2, 1), control_k2_he3_ci=ci(ctrl_k2, 1),
        control_k2_counted=sum(has_order(r, 2) for r in ctrl),
        k2_counted=counted(N), k2_counted_small=counted(Ns[-2]) if len(Ns) > 1 else "n/a",
        N_small=Ns[-2] if len(Ns) > 1 else "n/a",
        k2_counted_big=counted(N_big), null_counted_big=counted(N_big, "null"),
        k2_frac=frac(N)[0], k2_frac_ci=frac(N)[1], null_frac=frac(N, "null")[0],
        null_frac_ci=frac(N, "null")[1], k2_frac_big=frac(N_big)[0],
        k2_frac_big_ci=frac(N_big)[1], count_from=count_from,
        k2_st=fmt(np.mean([r["separate"][2] for r in sel]), 3),
        k2_pred=fmt(np.mean([r["predicted"][2] for r in sel]), 3),
        null_k2_st=fmt(np.mean([r["separate_null"][2] for r in sel]), 3),
        null_k2_pred=fmt(np.mean([r["predicted_null"][2] for r in sel]), 3),
        edge_low=fmt(edges.min(), 3), edge_high=fmt(edges.max(), 3),
        thr_clean=fmt(bbp_detection_strength(2.0), 3),
        thr_low=fmt(bbp_detection_strength(edges.min()), 3),
        thr_high=fmt(bbp_detection_strength(edges.max()), 3),
        k2_pred_next=fmt(pred_next["strength"][2], 2), N_next=N_next,
        N_big=N_big, seeds_big=len(big),
        k2_he3_big=fmt(top["mean"], 2) if top is not None else "n/a",
        k2_he3_big_ci=(f"[{fmt(top['low'], 2)}, {fmt(top['high'], 2)}]"
                       if top is not None else "n/a"),
        null_he3_big=fmt(top["null_mean"], 2) if top is not None else "n/a",
        k2_st_big=fmt(np.mean([r["separate"][2] for r in big]), 3),
        k2_pred_big=fmt(np.mean([r["predicted"][2] for r in big]), 3),
        null_k2_st_big=fmt(np.mean([r["separate_null"][2] for r in big]), 3),
        edge_low_big=fmt(edges_big.min(), 3), edge_high_big=fmt(edges_big.max(), 3),
        k2_cos2_pred=fmt(pred_next["cos2"][2, 1], 2))


def content_table(runs: Runs | None, point=(0.30, 0.45)) -> str:
    """The table of ``ts-obs-count``: at ``point``, for every stored size N (``*``:
    float32), first the fraction of seeds whose census counts a k = 2 spike (reused run,
    its null run, fresh batch) and the range of the null run's edge over the seeds, then
    1000 times the cos^2 with beta*_2 of the reused batch's k = 2 spike (counted or not)
    against the largest of any null-run spike and of any fresh-batch spike on the powers
    of a; seed means with 95% bootstrap intervals over the seeds
    (:func:`companion.experiments.learned_directions.count_by_N`,
    :func:`~companion.experiments.learned_directions.content_by_N`)."""
    if runs is None or not len(runs):
        return "no stored runs"
    from ..experiments.learned_directions import content_by_N, count_by_N

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
             f"{'N':>5}  seeds  {'reused':<15} {'null':<15} {'fresh':<10} edge"]
    for N in Ns:
        run = counts[(N, "reused", "run")]
        null, fresh = counts.get((N, "reused", "null")), counts.get((N, "fresh", "run"))
        edges = runs.where(N=N, alpha1=point[0], alpha2=point[1], batch="reused").values("edge")
        lines.append(f"{N:>5}{tag[N]} {run['seeds']:>5}  {cell(run, key='fraction'):<15} "
                     f"{cell(null, key='fraction'):<15} {cell(fresh, key='fraction'):<10} "
                     f"{fmt(edges.min(), 2)}-{fmt(edges.max(), 2)}")
    lines += ["", "1000 cos^2 with beta*_2: reused k = 2 spike, best null, best fresh",
              f"{'N':>5}  {'k = 2 spike':<18} {'best null':<18} best fresh"]
    for N in Ns:
        t, f = content.get((N, "reused")), content.get((N, "fresh"))
        lines.append(f"{N:>5}{tag[N]} {cell(t, key='mean', scale=1e3):<18} "
                     f"{cell(t, 'null_', scale=1e3):<18} {cell(f, 'max_', scale=1e3)}")
    return "\n".join(lines)


# -- the finite-N prediction against the stored runs (E4, E11) -------------------------------
_PREDICTION_KEYS = tuple(f"{a}_{q}" for a in ("tanh", "st", "gelu")
                         for q in ("median", "max", "terms", "all", "terms_all")) + (
    "taylor", "fail_max", "fail_act", "fail_point", "fail_N", "fail_k", "fail_pred",
    "fail_meas", "fail_low", "fail_high") + tuple(
    f"{t}_{q}" for t in ("st_k2", "st_k3", "gelu_k2")
    for q in ("cross", "ci", "signal", "thr", "edge")) + (
    "gelu_k21", "gelu_k22", "gelu_m3", "st_k21", "st_k22", "st_m3", "gelu_sig_first",
    "gelu_sig_last", "gelu_floor_first", "gelu_floor_last", "gelu_N_first", "gelu_N_last")
_ACT_SHORT = {"tanh": "tanh", "shifted_tanh": "st", "gelu": "gelu"}
_ACT_NAME = {"tanh": r"$\tanh$", "shifted_tanh": r"$\tanh(z + 1/2)$", "gelu": "GELU"}


def _percent(x) -> str:
    return "n/a" if x is None else f"{100 * float(x):.1f}%"


def prediction(e4: Runs | None, e11: Runs | None, point=(0.38, 0.45),
               edge_N: int = 2048) -> Numbers:
    """The finite-N prediction (``dv-finite-n``, :func:`companion.finite_n.predicted_terms`)
    against the stored term strengths of E4 and E11 (``ts-obs-prediction``), per activation
    (``tanh``, ``st`` = tanh(z + 1/2), ``gelu``), from
    :func:`companion.experiments.prediction.prediction_errors`: ``{a}_median``, ``{a}_max``
    (median and largest relative error over the ``{a}_terms`` terms k >= 1 above their
    floor), ``{a}_all`` (median over all ``{a}_terms_all`` terms k >= 1); ``taylor``: the
    Taylor leading order's median error on the same terms (E4, tanh). Where it fails:
    ``fail_low``, ``fail_high``: the range of its errors on the terms at the floor with
    k >= 3, and the worst of them, ``fail_max`` (``fail_act`` at ``fail_point``,
    ``fail_N``, term ``fail_k``: predicted ``fail_pred`` against measured ``fail_meas``).

    The crossing sizes at ``point`` (:func:`companion.finite_n.predicted_crossing`) for
    tanh(z + 1/2)'s k = 2 and k = 3 terms and GELU's k = 2 term (``st_k2``, ``st_k3``,
    ``gelu_k2``): ``_cross``, the N at which the predicted strength reaches the census's
    threshold ``_thr`` (:func:`companion.experiments.calibration.bbp_detection_strength` of
    the null run's edge ``_edge``, the E11 mean at ``edge_N``), ``_ci`` its interval from
    the prediction's largest error above the floor, ``_signal`` the N at which the mean field
    alone reaches it.

    GELU's k = 2 term (``dv-finite-n``): ``gelu_k21``, ``gelu_k22``, ``gelu_m3`` (kappa_{2,1},
    kappa_{2,2}, m_3; ``st_*`` the same for tanh(z + 1/2)), and at ``point`` its predicted
    mean field ``gelu_sig_first``, ``gelu_sig_last`` and floor ``gelu_floor_first``,
    ``gelu_floor_last`` at the smallest and largest stored GELU sizes ``gelu_N_first``,
    ``gelu_N_last`` of E11."""
    from ..experiments.calibration import bbp_detection_strength
    from ..experiments.prediction import prediction_errors, prediction_rows
    from ..finite_n import predicted_crossing, predicted_terms

    if e4 is None and e11 is None:
        return Numbers(**dict.fromkeys(_PREDICTION_KEYS, "n/a"))
    rows = prediction_rows(e4, e11)
    errors = prediction_errors(rows)
    out = dict.fromkeys(_PREDICTION_KEYS, "n/a")
    for act, short in _ACT_SHORT.items():
        e = errors.get(act)
        if e is None:
            continue
        out.update({f"{short}_median": _percent(e["median"]), f"{short}_max": _percent(e["max"]),
                    f"{short}_terms": e["terms"], f"{short}_all": _percent(e["median_all"]),
                    f"{short}_terms_all": e["terms_all"]})
    if errors.get("tanh", {}).get("leading_median") is not None:
        out["taylor"] = _percent(errors["tanh"]["leading_median"])
    at_floor = [r for r in rows if r["k"] >= 3 and not r["above_floor"]]
    if at_floor:
        worst = max(at_floor, key=lambda r: abs(r["rel_error"]))
        errs = [r["rel_error"] for r in at_floor]
        out.update(fail_max=_percent(worst["rel_error"]), fail_act=_ACT_NAME[worst["activation"]],
                   fail_point=f"({worst['alpha1']:.2f}, {worst['alpha2']:.2f})",
                   fail_N=int(worst["N"]), fail_k=worst["k"], fail_pred=fmt(worst["predicted"]),
                   fail_meas=fmt(worst["measured"]), fail_low=_percent(min(errs)),
                   fail_high=_percent(max(errs)))
    for short, act in (("gelu", "gelu"), ("st", "shifted_tanh")):
        a = get_activation(act)
        out.update({f"{short}_k21": fmt(a.kappa(2, 1)), f"{short}_k22": fmt(a.kappa(2, 2)),
                    f"{short}_m3": fmt(a.m(3))})
    rel = max(e["max"] for e in errors.values() if e["max"] is not None)
    if e11 is not None:
        base = _emergence_runs(e11).where(N=edge_N, alpha1=point[0], alpha2=point[1])
        for tag, act, k in (("st_k2", "shifted_tanh", 2), ("st_k3", "shifted_tanh", 3),
                            ("gelu_k2", "gelu", 2)):
            sel = base.where(activation=act)
            if not len(sel):
                continue
            edge = sel.mean("edge_null")
            thr = bbp_detection_strength(edge)
            c = predicted_crossing(*point, act, k=k, threshold=thr, rel_error=rel,
                                   log2_N=(9, 19))
            s = predicted_crossing(*point, act, k=k, threshold=thr, rel_error=rel,
                                   log2_N=(9, 19), signal_only=True)
            if tag == "gelu_k2":
                gNs = sorted(_emergence_runs(e11).where(activation=act, alpha1=point[0],
                                                        alpha2=point[1]).unique("N"))
                first, last = (predicted_terms(int(n), *point, act, K=3)
                               for n in (gNs[0], gNs[-1]))
                out.update(gelu_sig_first=fmt(first["signal"][2], 2),
                           gelu_sig_last=fmt(last["signal"][2], 2),
                           gelu_floor_first=fmt(first["floor"][2], 2),
                           gelu_floor_last=fmt(last["floor"][2], 2),
                           gelu_N_first=gNs[0], gelu_N_last=gNs[-1])
            out.update({f"{tag}_cross": _sci(c["N"]),
                        f"{tag}_ci": f"[{_sci(c['low'])}, {_sci(c['high'])}]",
                        f"{tag}_signal": _sci(s["N"]), f"{tag}_thr": fmt(thr, 3),
                        f"{tag}_edge": fmt(edge, 3)})
    return Numbers(**out)
