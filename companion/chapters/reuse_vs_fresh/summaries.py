"""The numbers of the chapter "Reused versus fresh batches" (book/reuse_vs_fresh.ipynb), one
function per section: the moments of the mechanism (``rf-conj-mechanism``), the headline
point (``rf-thm-paper``), the first direction (``rf-obs-first-direction``), the headline
He_3 experiment (``rf-obs-headline``), the outlier that carries it and the fresh batch's
level beside it (``rf-obs-outlier``),
other targets (``rf-obs-targets``) and activations (``rf-obs-activations``).

Numbers read from the stored paper-scale runs read ``"not available here"`` where those
runs are switched off (``COMPANION_PAPER_DATA=off``) or absent.
"""

from __future__ import annotations

import numpy as np

from companion.chapters.reuse_vs_fresh import experiments as rv
from companion.core import store
from companion.core.activations import get_activation
from companion.core.gaussian import gaussian_expectation
from companion.core.intervals import t_interval
from companion.core.runs import Runs
from companion.core.targets import make_link
from companion.core.theory import spike_exponent
from companion.presentation.book import (
    Numbers,
    fmt,
    fmt_fixed,
    fmt_interval,
    fmt_ratio,
    fmt_signed,
)

#: what a number from the stored runs reads where they are switched off or absent
OFF = "not available here"
ORDINAL = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}
#: the tags of the headline's three settings: (batch, alpha1) at alpha2 = 0.45
SETTINGS = {"hi": ("reused", 0.35), "lo": ("reused", 0.20), "fr": ("fresh", 0.35)}


def _need(runs: Runs, name: str) -> Runs:
    """``runs``, or a clear error naming the parameter when there are none."""
    if runs is None or not len(runs):
        raise ValueError(f"{name}: no runs given (the chapter's own runs are needed)")
    return runs


def _where(stored: Runs | None, **params) -> Runs | None:
    return None if stored is None else stored.where(**params)


def _spread(runs: Runs | None, key: str, decimals: int = 3) -> str:
    """'mean (min to max)' of a result over the runs, or :data:`OFF` when there are none."""
    if runs is None or not len(runs):
        return OFF
    v = runs.values(key).astype(float)
    return (f"{fmt_fixed(v.mean(), decimals)} ({fmt_fixed(v.min(), decimals)} to "
            f"{fmt_fixed(v.max(), decimals)})")


def _seed_range(runs: Runs, key: str = "cos2", decimals: int = 3) -> str:
    """'min to max' of a result over the runs (the seeds of one setting)."""
    v = runs.values(key)
    return f"{fmt_fixed(v.min(), decimals)} to {fmt_fixed(v.max(), decimals)}"


def _ordinal(index: int) -> str:
    return ORDINAL.get(index + 1, f"{index + 1}th")


def stored_caption(stored: Runs | None) -> str:
    """The sentence of a figure's caption on the stored runs it overlays (or that they are
    switched off)."""
    if stored is None or not len(stored):
        return ("The stored paper-scale runs are switched off here "
                "(COMPANION_PAPER_DATA=off).")
    Ns = ", ".join(str(n) for n in sorted(stored.unique("N")))
    seeds = len(stored.unique("seed"))
    return f"Open markers: the stored paper-scale runs, N = {Ns} ({seeds} seeds each)."


def stored_status(available: bool | None = None) -> Numbers:
    """Whether the chapter reads the stored paper-scale runs (the chapter's opening
    section): ``status``. ``available`` defaults to whether they are switched on
    (:func:`companion.core.store.data_dir`)."""
    if available is None:
        available = store.data_dir() is not None
    return Numbers(status=(
        "read from the copy shipped with the package" if available else
        "switched off (COMPANION_PAPER_DATA=off): the figures show this chapter's runs only "
        "and the numbers quoted from the stored runs read 'not available here'"))


def moments() -> Numbers:
    """The Gaussian moments the mechanism's section quotes (``rf-conj-mechanism``):
    E[z g^p] of the normalised He_3 link for p = 1, 2, 3 (``he3_zg1`` .. ``he3_zg3``; the
    first two in absolute value, they vanish), kappa_{2,1} and kappa_{2,2} of tanh
    (``tanh_k21``, ``tanh_k22``) and E[z g^2] of (He_2 + He_3)/sqrt2 (``mix_zg2``)."""
    he3, tanh = make_link("he3"), get_activation("tanh")
    return Numbers(he3_zg1=fmt_fixed(abs(he3.z_moment(1)), 1),
                   he3_zg2=fmt_fixed(abs(he3.z_moment(2)), 1),
                   he3_zg3=fmt_fixed(he3.z_moment(3), 1),
                   tanh_k21=fmt_fixed(tanh.kappa(2, 1), 2),
                   tanh_k22=fmt_fixed(tanh.kappa(2, 2), 2),
                   mix_zg2=fmt_fixed(make_link(rv.he2_plus_he3).z_moment(2), 2))


def headline_point(point=rv.HEADLINE_POINT) -> Numbers:
    """The exponent of the k = 2 term at the headline point (``k2_exponent``) and the alpha2
    of the k = 2 line at its alpha1 (``k2_line``), for "What the comparisons assume"
    (``rf-thm-paper``: Lambda >= 2 reads alpha2 >= 2(1/2 - alpha1))."""
    alpha1, alpha2 = point
    return Numbers(k2_exponent=fmt_signed(spike_exponent(alpha1, alpha2, 2)),
                   k2_line=fmt_fixed(2 * (0.5 - alpha1), 2))


def first_direction(runs: Runs, stored: Runs | None = None, point=(0.2, 0.2)) -> Numbers:
    """The first-direction numbers (``rf-obs-first-direction``, ``fig-rf-first-direction``)
    from the E6 runs of the chapter and, optionally, the stored ones: ``N``; at ``point``,
    per batch, the mean cos^2 (``reused_mean``, ``fresh_mean``), the range over seeds
    (``*_range``), the limit times the spiked-model overlap (``*_limit_n``) and the fresh
    limit (``fresh_limit``); ``sd``, the finite-sample standard deviation 1/(2 sqrt n);
    the stored runs' spread at ``point`` (``paper_reused``, ``paper_fresh``); over all
    runs, the largest deviation from the run's own prediction with Lambda = 0
    (``dev_lambda0``), the mean and largest excess with Lambda >= 1 (``excess_mean``,
    ``excess_hi``) and the smallest overlap factor (``factor_lo``); ``stored``: the
    caption's sentence on the stored runs."""
    runs = _need(runs, "runs")
    N = max(runs.unique("N"))
    at = dict(alpha1=point[0], alpha2=point[1])
    reused, fresh = runs.where(batch="reused", **at), runs.where(batch="fresh", **at)
    for name, sel in (("reused", reused), ("fresh", fresh)):
        _need(sel, f"runs (the {name} batch at (alpha1, alpha2) = {point})")
    dev0 = [r["cos2"] - r["finite_size_prediction"] for r in runs if r["lambda"] == 0]
    dev1 = [r["cos2"] - r["finite_size_prediction"] for r in runs if r["lambda"] > 0]
    return Numbers(
        N=N,
        reused_mean=fmt_fixed(reused.mean("cos2"), 3),
        reused_range=_seed_range(reused),
        reused_limit_n=fmt_fixed(reused.mean("limit_finite_n"), 3),
        fresh_mean=fmt_fixed(fresh.mean("cos2"), 3),
        fresh_range=_seed_range(fresh),
        fresh_limit=fmt_fixed(fresh.mean("limit"), 3),
        fresh_limit_n=fmt_fixed(fresh.mean("limit_finite_n"), 3),
        sd=fmt_fixed(1 / (2 * np.sqrt(N)), 3),
        paper_reused=_spread(_where(stored, batch="reused", **at), "cos2"),
        paper_fresh=_spread(_where(stored, batch="fresh", **at), "cos2"),
        dev_lambda0=fmt_fixed(np.max(np.abs(dev0)), 3) if dev0 else "n/a",
        excess_mean=fmt_fixed(np.mean(dev1), 3) if dev1 else "n/a",
        excess_hi=fmt_fixed(np.max(dev1), 3) if dev1 else "n/a",
        factor_lo=fmt_fixed(runs.values("spike_factor").min(), 3),
        stored=stored_caption(stored))


def headline(runs: Runs, stored: Runs | None = None) -> Numbers:
    """The headline numbers (``rf-obs-headline``, ``fig-rf-he3``) from the E7 runs of the
    chapter (three sizes) and, optionally, the stored ones. Settings ``hi`` (reused,
    (0.35, 0.45), Lambda = 3), ``lo`` (reused, (0.20, 0.45), Lambda = 1), ``fr`` (fresh,
    (0.35, 0.45)):

    * ``N``, ``Nmid``, ``Nlo``: the largest, middle and smallest size; ``nseeds``;
      ``chance_N``: chance m/d at the largest size;
    * ``<s>_Nlo``, ``<s>_Nmid``, ``<s>_N``: the mean projection of setting ``s`` at each
      size; ``<s>_min``, ``<s>_max`` its range over seeds at the largest size,
      ``<s>_mid_min``, ``<s>_mid_max`` at the middle one (the control ``lo`` needs only the
      two smaller sizes: the chapter computes it to Nmid, the stored runs carry it on);
    * ``fr_over_chance``: the fresh mean over chance at the largest size; ``fr_slope``: the
      fresh mean's log-log slope between the smallest and the largest size;
    * ``<s>_range``, ``<s>_mid_range``: the range over seeds as "min to max" at the largest
      and the middle size;
    * ``hi_k2``, ``lo_k2``: the companion's exponent of the k = 2 term (the one that carries
      He_3) at the two reused settings (book: dv-exponents);
    * ``paper_<s>_lo``, ``_mid``, ``_hi``, ``_top``: 'mean (min to max)' of the stored
      runs at their four sizes (``paper_Ns``; ``paper_N_mid``, ``paper_N_hi``,
      ``paper_N_top``), :data:`OFF` without them; ``stored``: the caption's sentence;
    * what separates the Lambda = 1 control from Lambda = 3 at reachable N, a difference of
      growth, not of level: ``paper_lo_top_mean``, the control's stored mean at the largest
      size, and ``paper_lo_over_fr``, that mean over the fresh batch's there;
      ``paper_slope_<s>``, the log-log slope of each setting's stored mean from
      ``paper_N_mid`` to ``paper_N_top``.
    """
    runs = _need(runs, "runs")
    Ns = sorted(runs.unique("N"))
    if len(Ns) < 3:
        raise ValueError(f"runs: the headline needs three sizes, got N = {Ns}")
    lo, mid, top = Ns[0], Ns[1], Ns[-1]
    out = dict(N=top, Nmid=mid, Nlo=lo, nseeds=len(runs.unique("seed")),
               chance_N=fmt_fixed(runs.where(N=top).mean("chance"), 4))
    for key, (batch, a1) in SETTINGS.items():
        sel = runs.where(batch=batch, alpha1=a1)
        have = set(sel.unique("N"))
        need = (lo, mid) if key == "lo" else (lo, mid, top)   # the control: to Nmid
        if not have.issuperset(need):
            raise ValueError(f"runs: the headline needs {batch}, alpha1 = {a1} at N = "
                             f"{', '.join(map(str, need))}; got {sorted(have)}")
        for n, tag in ((lo, "Nlo"), (mid, "Nmid"), (top, "N")):
            if n in have:
                out[f"{key}_{tag}"] = fmt_fixed(sel.where(N=n).mean("projection"), 3)
        for n, tag in ((top, ""), (mid, "_mid")):
            if n not in have:
                continue
            v = sel.where(N=n).values("projection")
            out[f"{key}{tag}_min"] = fmt_fixed(v.min(), 3)
            out[f"{key}{tag}_max"] = fmt_fixed(v.max(), 3)
            out[f"{key}{tag}_range"] = _seed_range(sel.where(N=n), "projection")
        paper = _where(stored, batch=batch, alpha1=a1)
        paper_Ns = [] if paper is None else sorted(paper.unique("N"))
        for i, tag in enumerate(("lo", "mid", "hi", "top")):
            out[f"paper_{key}_{tag}"] = _spread(
                paper.where(N=paper_Ns[i]) if i < len(paper_Ns) else None, "projection")
    fresh = [runs.where(batch="fresh", N=n).mean("projection") for n in (lo, top)]
    out["fr_over_chance"] = fmt_fixed(fresh[1] / runs.where(N=top).mean("chance"), 0)
    out["fr_slope"] = fmt_fixed(np.log(fresh[1] / fresh[0]) / np.log(top / lo), 2)
    paper_Ns = [] if stored is None else sorted(stored.unique("N"))
    out["paper_Ns"] = ", ".join(str(n) for n in paper_Ns) or "n/a"
    for i, tag in ((1, "mid"), (2, "hi"), (3, "top")):
        out[f"paper_N_{tag}"] = str(paper_Ns[i]) if i < len(paper_Ns) else "n/a"
    out["stored"] = stored_caption(stored)
    for key in ("hi", "lo"):
        out[f"{key}_k2"] = fmt_signed(spike_exponent(SETTINGS[key][1], 0.45, 2))
    out.update(_growth(stored, paper_Ns))
    return Numbers(**out)


def _growth(stored: Runs | None, Ns: list) -> dict:
    """The headline's stored runs from their second size to their largest: the log-log
    slope of each setting's mean (``paper_slope_<s>``), the Lambda = 1 control's mean at
    the largest size and its ratio to the fresh batch's (:func:`headline`)."""
    keys = [f"paper_slope_{k}" for k in SETTINGS] + ["paper_lo_top_mean", "paper_lo_over_fr"]
    if stored is None or len(Ns) < 2:
        return dict.fromkeys(keys, OFF)
    lo, top = Ns[1], Ns[-1]
    mean = {(k, n): stored.where(batch=b, alpha1=a1, N=n).mean("projection")
            for k, (b, a1) in SETTINGS.items() for n in (lo, top)}
    out = {f"paper_slope_{k}": fmt_signed(np.log(mean[k, top] / mean[k, lo]) / np.log(top / lo))
           for k in SETTINGS}
    out["paper_lo_top_mean"] = fmt_fixed(mean["lo", top], 3)
    out["paper_lo_over_fr"] = fmt_fixed(mean["lo", top] / mean["fr", top], 0)
    return out


def outlier(runs: Runs, stored: Runs | None = None) -> Numbers:
    """Which outlier carries beta* (``rf-obs-outlier``, ``fig-rf-outlier``): from the
    chapter's E7 runs of the reused batch at (0.35, 0.45) at its largest N
    (:func:`companion.chapters.reuse_vs_fresh.experiments.beta_carrier`), the carrier's ``rank``
    ("second"), its mean cos^2 with beta* (``share``), the first vector's (``first``), the
    top four's (``total``), in how many seeds it carries the most (``largest``); its left
    vector's weight on q_3, q_1, q_5 (``q3``, ``q1``, ``q5``) and the fraction of its
    weight on the powers that is on q_3 (``q3_frac``); the first left vector's weight on
    q_1 (``first_q1``); and the same carrier in the stored runs at their largest N
    (``paper_N``, ``paper_rank``, ``paper_share``, ``paper_largest``)."""
    runs = _need(runs, "runs")
    top = runs.where(N=max(runs.unique("N")), batch="reused", alpha1=0.35)
    carrier = rv.beta_carrier(_need(top, "runs (the reused batch at alpha1 = 0.35)"))
    i = carrier["index"]
    left = "left" in carrier
    out = dict(rank=_ordinal(i), share=fmt_fixed(carrier["share"][i], 3),
               first=fmt_fixed(carrier["share"][0], 3),
               total=fmt_fixed(top.mean("projection"), 3),
               largest=f"{carrier['largest_in']} of {carrier['runs']}",
               q3=fmt_fixed(carrier["q3"], 3) if left else "n/a",
               q3_frac=fmt_fixed(carrier["q3_of_powers"], 2) if left else "n/a",
               q1=fmt_fixed(carrier["left"][:, 0].mean(), 3) if left else "n/a",
               q5=fmt_fixed(carrier["left"][:, 4].mean(), 3) if left else "n/a",
               first_q1=fmt_fixed(carrier["left_first"][:, 0].mean(), 2) if left else "n/a")
    paper_top = _where(stored, batch="reused", alpha1=0.35)
    if paper_top is None or not len(paper_top):
        out.update(paper_N=OFF, paper_rank=OFF, paper_share=OFF, paper_largest=OFF)
    else:
        paper_N = max(paper_top.unique("N"))
        paper = rv.beta_carrier(paper_top.where(N=paper_N))
        out.update(paper_N=paper_N, paper_rank=_ordinal(paper["index"]),
                   paper_share=fmt_fixed(paper["share"][paper["index"]], 3),
                   paper_largest=f"{paper['largest_in']} of {paper['runs']}")
    return Numbers(**out)


def carrier_against_fresh(runs: Runs | None, point=rv.HEADLINE_POINT) -> Numbers:
    """The carrier of beta* against the fresh batch (``rf-obs-outlier``; the spike reading of
    ``ld-def-learned``), from E7 runs (reused and fresh batch at ``point``) at their largest
    N: ``N``, ``seeds``; per seed the largest cos^2 with beta* of the reused batch's top four
    right vectors (mean ``reused``) and of the fresh batch's (its fresh level, mean
    ``fresh``), ``above`` (the seeds where the first is larger) and ``ratio`` (of the means).
    ``runs`` may be the stored ones."""
    if runs is None or not len(runs):
        return Numbers(**dict.fromkeys(("N", "seeds", "reused", "fresh", "above", "ratio"),
                                       "n/a"))
    N = max(runs.unique("N"))
    sel = runs.where(N=N, alpha1=point[0], alpha2=point[1])

    def best(r):
        return max(float(r[key]) for key in r.result if key.startswith("cos2_"))

    fresh = {r.seed: best(r) for r in sel.where(batch="fresh")}
    pairs = [(best(r), fresh[r.seed]) for r in sel.where(batch="reused") if r.seed in fresh]
    reused, level = (np.array(v) for v in zip(*pairs))
    return Numbers(N=N, seeds=len(pairs), reused=fmt(reused.mean(), 2),
                   fresh=fmt(level.mean(), 2),
                   above=f"{int((reused > level).sum())} of {len(pairs)}",
                   ratio=fmt_ratio(reused.mean() / level.mean()))


#: the tags of the other targets' numbers and the targets' labels in the runs
TARGET_TAGS = (("he2", "He_2"), ("mix", "(He_2+He_3)/sqrt2"), ("bnd", "bounded odd"),
               ("he3", "He_3"))


def other_targets(runs: Runs, stored: Runs | None = None) -> Numbers:
    """The other targets (``rf-obs-targets``, ``fig-rf-targets``) from the chapter's E8
    runs and, optionally, the stored ones: ``N``; the bounded odd link's |mu*|, E[z g^3]
    and sup |g| (``bounded_mu``, ``bounded_zg3``, ``bounded_sup``); per target tag
    (``he2``, ``mix``, ``bnd``, ``he3``) and batch the mean projection
    (``<tag>_reused``, ``<tag>_fresh``) and the stored runs' spread
    (``paper_<tag>_reused``, ``paper_<tag>_fresh``); ``stored``: the caption's sentence."""
    runs = _need(runs, "runs")
    bounded = make_link(rv.bounded_odd_link("sharp"))
    out = dict(N=max(runs.unique("N")), bounded_mu=fmt_fixed(abs(bounded.mu_star), 3),
               bounded_zg3=fmt_fixed(bounded.z_moment(3), 1),
               bounded_sup=fmt_fixed(np.max(np.abs(bounded(np.linspace(-12, 12, 4001)))),
                                     1),
               stored=stored_caption(stored))
    for tag, name in TARGET_TAGS:
        for batch in ("reused", "fresh"):
            sel = runs.where(target=name, batch=batch)
            out[f"{tag}_{batch}"] = fmt_fixed(sel.mean("projection"), 3) if len(sel) else "n/a"
            out[f"paper_{tag}_{batch}"] = _spread(
                _where(stored, target=name, batch=batch), "projection")
    return Numbers(**out)


#: the tags of the activations' numbers and the activations' names in the runs
ACTIVATION_TAGS = (("tanh", "tanh"), ("shift", "shifted_tanh"), ("relu", "relu"))


def activations(runs: Runs, stored: Runs | None = None) -> Numbers:
    """The activation ablation (``rf-obs-activations``, ``fig-rf-activations``) from the
    chapter's E9 runs and, optionally, the stored ones. Per activation tag (``tanh``,
    ``shift``, ``relu``), with a reused batch: the mean projection and its range over seeds
    (``<tag>``, ``<tag>_min``, ``<tag>_max``), the mean second singular value (``<tag>_s2``)
    and the stored runs' spread (``paper_<tag>``); kappa_{2,2} of the smooth two
    (``tanh_k22``, ``shift_k22``); ReLU with a fresh batch (``relu_fresh``,
    ``paper_relu_fresh``), the ratio reused/fresh (``relu_ratio``), the largest fresh
    seed (``relu_fresh_max``) and how many reused seeds lie above it (``relu_above``,
    "2 of 3"); ``N``: the runs' size; the mean share of
    the projection on v_1 (``relu_v1_share``, ``tanh_v1_share``); ReLU's m_2
    (``relu_m2``), E[z g|g|] of He_3 (``he3_z_g_absg``); ``stored``: the caption's
    sentence; ReLU in the stored runs (:func:`_relu_stored`)."""
    runs = _need(runs, "runs")
    he3 = make_link("he3")
    out = dict(stored=stored_caption(stored),
               relu_m2=fmt_fixed(get_activation("relu").m(2), 2),
               he3_z_g_absg=fmt_fixed(gaussian_expectation(
                   lambda z: z * he3(z) * np.abs(he3(z))), 2))
    for tag, name in ACTIVATION_TAGS:
        sel = _need(runs.where(activation=name, batch="reused"),
                    f"runs (reused batch, activation {name!r})")
        v = sel.values("projection")
        out.update({tag: fmt_fixed(v.mean(), 3), f"{tag}_min": fmt_fixed(v.min(), 3),
                    f"{tag}_max": fmt_fixed(v.max(), 3),
                    f"{tag}_s2": fmt_fixed(sel.mean("s_1"), 1),
                    f"paper_{tag}": _spread(_where(stored, activation=name, batch="reused"),
                                            "projection")})
        if tag != "relu":
            out[f"{tag}_k22"] = fmt_fixed(get_activation(name).kappa(2, 2), 2)
        if tag in ("relu", "tanh"):
            out[f"{tag}_v1_share"] = fmt_fixed(np.mean([r["cos2_0"] / r["projection"]
                                                        for r in sel]), 2)
    relu, relu_fresh = (runs.where(activation="relu", batch=b) for b in ("reused", "fresh"))
    _need(relu_fresh, "runs (fresh batch, activation 'relu')")
    out["relu_fresh"] = fmt_fixed(relu_fresh.mean("projection"), 3)
    out["paper_relu_fresh"] = _spread(_where(stored, activation="relu", batch="fresh"),
                                      "projection")
    out["relu_ratio"] = fmt_fixed(relu.mean("projection") / relu_fresh.mean("projection"), 1)
    top_fresh = float(relu_fresh.values("projection").max())
    out["relu_fresh_max"] = fmt_fixed(top_fresh, 3)
    out["relu_above"] = (f"{int(np.sum(relu.values('projection') > top_fresh))} of "
                         f"{len(relu)}")
    out["N"] = int(max(runs.unique("N")))
    out.update(_relu_stored(stored))
    return Numbers(**out)


def _relu_stored(stored: Runs | None) -> dict:
    """ReLU in the stored runs (:func:`activations`): their ``paper_N``, the mean
    projection with a reused batch (``paper_relu_mean``), its ratio to the fresh batch's
    (``paper_relu_ratio``) and how many reused seeds lie above the largest fresh one
    (``paper_relu_above``, "4 of 4")."""
    keys = ("paper_N", "paper_relu_mean", "paper_relu_ratio", "paper_relu_above")
    relu, fresh = (_where(stored, activation="relu", batch=b) for b in ("reused", "fresh"))
    if relu is None or not len(relu) or not len(fresh):
        return dict.fromkeys(keys, OFF)
    reused = relu.values("projection")
    return dict(paper_N=int(max(stored.unique("N"))),
                paper_relu_mean=fmt_fixed(reused.mean(), 3),
                paper_relu_ratio=fmt_fixed(reused.mean() / fresh.mean("projection"), 1),
                paper_relu_above=f"{int(np.sum(reused > fresh.values('projection').max()))} "
                                 f"of {len(relu)}")


# -- what the directions buy in prediction (E17) ---------------------------------------------
_READOUT_TAGS = {"he1": "h1", "he3": "h3", "he1+he3": "h13"}
_READOUT_POINT_TAGS = {rv.READOUT_POINTS[0]: "a", rv.READOUT_POINTS[1]: "b"}


def _paired(runs: Runs, first: str, second: str,
            column: int | None = None) -> tuple[float, float, float]:
    """Mean over the seeds of result ``first`` minus ``second`` (of their entry ``column``
    where the results are arrays) and its t interval."""
    diff = np.asarray(runs.values(first), float) - np.asarray(runs.values(second), float)
    if column is not None:
        diff = diff[:, column]
    r = t_interval(diff)
    return r.mean, r.low, r.high


def readout(runs: Runs | None, factor: int = 4) -> Numbers:
    """The numbers of the readout section (``fig-rf-readout``; "n/a" without the stored
    runs), at the largest stored N (``N``, ``seeds``), n_train = ``factor`` n, for each
    target tag (h1, h3, h13) and point tag (a: Lambda = 2, b: Lambda = 1):

    * ``<t>_<p>_w0``, ``_w1``, ``_w2r``, ``_w2f``: mean relative test errors of W0, W1 and
      W2 of the reused and the fresh batch;
    * ``<t>_<p>_step``: W1 minus W0 with its t interval (paired over the seeds);
      ``<t>_<p>_gap``: W2 reused minus W2 fresh, with its t interval;
    * ``h13_<p>_he3r``, ``_he3f``: the He_3 part's relative error for W2 reused and fresh;
    * ``h13_a_he3_gap_by_N``: at every stored N, the He_3 part's relative error of W2
      reused minus fresh (He_1 + He_3, Lambda = 2), paired over the seeds, with its t
      interval: whether reuse's He_3 direction starts to pay as N grows."""
    keys = ["N", "seeds", "h13_a_he3_gap_by_N"] + [f"{t}_{p}_{q}" for t in _READOUT_TAGS.values()
                             for p in _READOUT_POINT_TAGS.values()
                             for q in ("w0", "w1", "w2r", "w2f", "step", "gap")]
    keys += [f"h13_{p}_{q}" for p in _READOUT_POINT_TAGS.values() for q in ("he3r", "he3f")]
    if runs is None or not len(runs):
        return Numbers(**{k: "n/a" for k in keys})
    N = max(runs.unique("N"))
    big = runs.where(N=N)
    out: dict = {"N": N, "seeds": len(big.unique("seed"))}
    mixed = runs.where(target="he1+he3", alpha1=rv.READOUT_POINTS[0][0],
                       alpha2=rv.READOUT_POINTS[0][1])
    gaps = []
    for n_ in sorted(mixed.unique("N")):
        m, lo, hi = _paired(mixed.where(N=n_), f"reused_n{factor}_W2_parts",
                            f"fresh_n{factor}_W2_parts", column=1)
        gaps.append(f"{fmt_signed(m, 3)} {fmt_interval(lo, hi, 3, signed=True)} at N = {n_}")
    if gaps:
        out["h13_a_he3_gap_by_N"] = "; ".join(gaps)
    for target, t in _READOUT_TAGS.items():
        for point, p in _READOUT_POINT_TAGS.items():
            sel = big.where(target=target, alpha1=point[0], alpha2=point[1])
            if not len(sel):
                continue
            key = {w: f"reused_n{factor}_{w}" for w in ("W0", "W1", "W2")}
            fresh = f"fresh_n{factor}_W2"
            out[f"{t}_{p}_w0"] = fmt_fixed(sel.mean(key["W0"]), 3)
            out[f"{t}_{p}_w1"] = fmt_fixed(sel.mean(key["W1"]), 3)
            out[f"{t}_{p}_w2r"] = fmt_fixed(sel.mean(key["W2"]), 3)
            out[f"{t}_{p}_w2f"] = fmt_fixed(sel.mean(fresh), 3)
            for name, (a, b) in (("step", (key["W1"], key["W0"])), ("gap", (key["W2"], fresh))):
                m, lo, hi = _paired(sel, a, b)
                out[f"{t}_{p}_{name}"] = (f"{fmt_signed(m, 3)} "
                                          f"{fmt_interval(lo, hi, 3, signed=True)}")
            if target == "he1+he3":
                parts_r = np.asarray(sel.values(f"reused_n{factor}_W2_parts"), float)
                parts_f = np.asarray(sel.values(f"fresh_n{factor}_W2_parts"), float)
                out[f"h13_{p}_he3r"] = fmt_fixed(parts_r[:, 1].mean(), 3)
                out[f"h13_{p}_he3f"] = fmt_fixed(parts_f[:, 1].mean(), 3)
    return Numbers(**{k: out.get(k, "n/a") for k in keys})
