"""One simulation summarized as plain numbers: what the command line prints and what a
chapter can tabulate (book: dv-exponents, dv-census)."""

from __future__ import annotations

import inspect
import time

import numpy as np

from companion.core.alignment import cos2_with_directions, subspace_projection
from companion.core.finite_n import predicted_terms
from companion.core.network import run_two_steps
from companion.core.readout import WEIGHTS, readout_errors
from companion.core.spectra import count_outliers, mp_edges, top_singular, top_singular_each
from companion.core.spikes import (
    K_POWERS,
    TOP,
    bbp_detection_strength,
    off_powers,
    own_part_cos2,
    separate_strengths,
    spike_census,
    spike_records,
    spike_threshold,
)
from companion.core.theory import (
    first_direction_alignment,
    is_learnable,
    lambda_count,
    n_spikes,
)

TOP_K = 8
#: the defaults of a run: those of :func:`companion.run_two_steps`, the one place they are set
#: (the command line's and :func:`simulate`'s defaults are read from here)
RUN_DEFAULTS = {name: p.default for name, p in inspect.signature(run_two_steps).parameters.items()
                if p.default is not inspect.Parameter.empty}
_D = RUN_DEFAULTS


def simulate(N: int = _D["N"], d: int | None = None, n: int | None = None,
             alpha1: float = _D["alpha1"], alpha2: float = _D["alpha2"], batch: str = _D["batch"],
             activation=_D["activation"], target=_D["target"], noise: float = _D["noise"],
             seed: int = _D["seed"], dtype=np.float64, null: bool = False,
             top_k: int = TOP_K, c1: float = _D["c1"], c2: float = _D["c2"],
             readout: bool = False) -> dict:
    """Run two steps and summarize them (every number rounded to 6 significant digits);
    ``readout=True`` adds the key ``readout``, the test errors of a ridge readout on the
    features of W0, W1, W2 and the one-step reference (:func:`_readout`).

    Keys: ``parameters``; ``singular_values`` (``W0``, ``W1``, ``W2``: top ``top_k``);
    ``bulk_edge`` (Marchenko-Pastur, 1 + sqrt(N/d)); ``n_outliers`` (``W1``, ``W2``: above the
    bulk edge with a 2% margin, and with ``null=True`` also ``W2_vs_null``: the spikes of
    :func:`companion.core.spikes.spike_census`, above the null run's bulk edge and on the powers of
    a, counted exactly as the spike-emergence experiment counts them); ``lambda_theory``
    (the paper's Lambda) and ``n_spikes_theory`` (:func:`companion.n_spikes`: the first spike
    plus the terms k <= Lambda that exist for this activation, 1 + floor(Lambda/2) for tanh);
    ``alignment`` (``top_vector_cos2`` and ``top4_projection``, one number per target
    direction in the order of the target string, and ``chance`` = 4/d);
    ``theory`` (first-direction alignment predictions and learnability per direction);
    ``spikes``: one record per spike of W2 (:func:`companion.core.spikes.spike_records`: its
    order ``k``, singular ``value``, separate ``strength``, its ``weight`` on the powers of a
    and ``cos2``, one number per target direction), counted against the null run's edge with
    ``null=True`` (then also ``null_spikes``, the null run's own spikes against the same
    edge and ``edge_spikes``, W2's singular values on the powers of a that the count leaves
    out, below the edge: what a term at the edge carries) and against W2's own edge off the
    powers of a (``spike_edge``) without it;
    each record also has ``strength_predicted``, the finite-N prediction of that term's
    separate strength (:func:`companion.core.finite_n.predicted_terms`, book: dv-finite-n,
    for the run's batch, reused or fresh; ``None`` for an activation with a kink and for the
    null run of a fresh batch, where it is not derived);
    ``n_spikes_predicted``: the count that prediction gives at this N, beside the measured
    ``n_outliers["W2_vs_null"]``: the terms k = 0..K_POWERS-1 (the first spike included)
    whose predicted separate strength exceeds ``spike_threshold_predicted``, the strength
    the census needs (:func:`companion.core.spikes.bbp_detection_strength`, calibrated by
    E13) against the edge it counts against (the null run's bulk edge with ``null=True``,
    else W2's own top singular value off the powers of a); ``None`` where the prediction is
    not derived; ``terms``: one record per term k = 0..K_POWERS-1 of W2 - W0, found
    without detection: its separate ``strength`` and ``own_cos2`` (the cos^2 of its own part
    with each target direction, :func:`companion.core.spikes.own_part_cos2`), with
    ``strength_predicted`` and ``own_cos2_predicted`` beside them (``None`` where the
    prediction is not derived); ``seconds``.
    """
    t0 = time.perf_counter()
    # the run checks the arguments (once); what follows reads them from it
    run = run_two_steps(N=N, d=d, n=n, alpha1=alpha1, alpha2=alpha2, batch=batch,
                        activation=activation, target=target, noise=noise, seed=seed,
                        dtype=dtype, c1=c1, c2=c2)
    n_samples = run.n
    psi = n_samples / run.d
    predicted = _predicted(run.N, psi, run.alpha1, run.alpha2, run.batch, run.activation,
                           run.target, c1, c2, null)
    readout_report = _readout(run) if readout else None    # needs the first batch
    terms = _terms(run, psi, c1, c2)
    run.X1 = run.y1 = run.X2 = run.y2 = None     # nothing below reads the batch: free it
    # W2's top TOP serve the spike records too, and without a null run W2's own edge off the
    # powers of a is needed; only W2's vectors are used. Without a null run only values
    # above that edge make records: W2's top top_k suffice unless the last of them is above
    # it too.
    top_W2 = min(max(top_k, TOP), run.N, run.d)
    jobs = ((run.W0, top_k, False), (run.W1, top_k, False),
            (run.W2, top_W2 if null else min(top_k, top_W2), True))
    if not null:
        jobs += ((off_powers(run.W2, run.a), 1, False),)
    found = top_singular_each(*zip(*jobs))
    W2_triplets = found[2]                   # the top top_W2 (or top_k); top_k are reported
    edge_self = None if null else float(found[3][1][0])   # the top singular value off the powers
    if not null and len(W2_triplets[1]) < top_W2 and W2_triplets[1][-1] > spike_threshold(
            edge_self):
        W2_triplets = top_singular(run.W2, top_W2)
    U2, s2, Vt2 = (W2_triplets[0][:, :top_k], W2_triplets[1][:top_k], W2_triplets[2][:top_k])
    spectra = {"W0": found[0], "W1": found[1], "W2": (U2, s2, Vt2)}
    edge = mp_edges(run.N / run.d)[1]
    tgt = run.target
    out = {
        "parameters": {"N": run.N, "d": run.d, "n": n_samples, "alpha1": run.alpha1,
                       "alpha2": run.alpha2, "c1": float(c1), "c2": float(c2),
                       "eta1": _r(run.eta1), "eta2": _r(run.eta2),
                       "batch": batch, "activation": run.activation.name, "target": tgt.name,
                       "noise": float(noise), "seed": int(seed), "dtype": str(np.dtype(dtype))},
        "singular_values": {k: _r(v[1]) for k, v in spectra.items()},
        "bulk_edge": _r(edge),
        "n_outliers": {"W1": count_outliers(spectra["W1"][1], edge),
                       "W2": count_outliers(s2, edge)},
        "lambda_theory": lambda_count(run.alpha1, run.alpha2, run.activation.degree),
        "alignment": {
            "top_vector_cos2": _r(cos2_with_directions(Vt2[:1], tgt.directions)[0]),
            "top4_projection": _r(subspace_projection(Vt2[:4], tgt.directions)),
            "chance": _r(4 / run.d),
        },
        "theory": {
            "top_vector_cos2": _r(first_direction_alignment(batch, tgt.mu_star, tgt.second_moment,
                                                            psi, run.eta1, run.eta2)),
            "learnable": [is_learnable(tgt, k, batch, run.alpha1, run.alpha2, run.activation)
                          for k in range(len(tgt.links))],
        },
    }
    out["n_spikes_theory"] = n_spikes(run.alpha1, run.alpha2, run.activation, batch)
    if null:
        null_run = run_two_steps(N=run.N, d=run.d, n=n_samples, alpha1=run.alpha1,
                                 alpha2=run.alpha2, batch=run.batch, activation=run.activation,
                                 target=tgt, noise=noise, seed=run.seed, dtype=dtype, c1=c1,
                                 c2=c2, null_labels=True)
        census = spike_census(run.W2, run.a, null_run.W2, W0=run.W0,
                              directions=tgt.directions, top=top_W2, triplets=W2_triplets)
        del null_run
        out["singular_values"]["W2_null"] = _r(census["s_null"][:top_k])
        out["null_bulk_edge"] = _r(census["edge"])
        count_edge = census["edge"]
        out["n_outliers"]["W2_vs_null"] = census["count"]
        out["spikes"] = _records(census["spikes"])
        out["null_spikes"] = _records(census["null_spikes"])
        out["edge_spikes"] = _records(spike_records(run.W2, run.a, tgt.directions,
                                                    census["edge"], census["triplets"],
                                                    uncounted=True, base=run.W0))
    else:
        out["spike_edge"] = _r(edge_self)
        count_edge = edge_self
        out["spikes"] = _records(spike_records(run.W2, run.a, tgt.directions, edge_self,
                                               W2_triplets, base=run.W0))
    out["n_spikes_predicted"], out["spike_threshold_predicted"] = (
        (None, None) if predicted is None else predicted_count(predicted[False], count_edge))
    for key, is_null in (("spikes", False), ("edge_spikes", False), ("null_spikes", True)):
        strengths = None if predicted is None else predicted.get(is_null)
        for rec in out.get(key, []):
            rec["strength_predicted"] = None if strengths is None else _r(strengths[rec["k"]])
    out["terms"] = terms
    if readout_report is not None:
        out["readout"] = readout_report
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out


def predicted_count(strengths, edge: float) -> tuple[int, float]:
    """(count, threshold): how many of the predicted separate ``strengths`` of the terms
    k = 0, 1, ... exceed the strength the census needs against a bulk of edge ``edge``
    (:func:`companion.core.spikes.bbp_detection_strength`: the BBP position clears the edge by
    the census's 2% margin; E13 measured the census's half-detection strength there)."""
    threshold = bbp_detection_strength(float(edge))
    return int(np.sum(np.asarray(strengths, float) > threshold)), _r(threshold)


def _predicted(N: int, psi: float, alpha1, alpha2, batch, act, tgt, c1, c2, null: bool):
    """Predicted separate strengths of the terms k = 0..K_POWERS-1 of the run (its batch,
    reused or fresh) and (with ``null``) of its null run, indexed by ``null``; the null run's
    only for a reused batch, where it is derived; None for an activation with a kink. Only
    the links, mu* and the moments of y of the run's target ``tgt`` matter."""
    if not act.smooth:
        return None
    nulls = (False, True) if null and batch == "reused" else (False,)
    # 12 nodes per dimension of a sample: enough for the strengths (cos^2 is not needed)
    return {is_null: predicted_terms(N, alpha1, alpha2, act, tgt, K=K_POWERS, psi=psi, c1=c1,
                                     c2=c2, batch=batch, null=is_null,
                                     sample_nodes=12)["strength"]
            for is_null in nulls}


def _terms(run, psi: float, c1: float, c2: float) -> list[dict]:
    """Each term of W2 - W0 measured without detection (book: dv-separate-strengths) beside
    its finite-N prediction (book: dv-finite-n)."""
    strength = separate_strengths(run.W2, run.a, K_POWERS, base=run.W0)
    own = own_part_cos2(run.W2, run.W0, run.a, run.target.directions, K_POWERS)
    pred = (predicted_terms(run.N, run.alpha1, run.alpha2, run.activation, run.target,
                            K=K_POWERS, psi=psi, c1=c1, c2=c2, batch=run.batch)
            if run.activation.smooth else None)
    return [{"k": k, "strength": _r(strength[k]), "own_cos2": _r(own[k]),
             "strength_predicted": None if pred is None else _r(pred["strength"][k]),
             "own_cos2_predicted": None if pred is None else _r(pred["cos2"][k])}
            for k in range(K_POWERS)]


def _readout(run) -> dict:
    """The ridge readout's test errors (:func:`companion.core.readout.readout_errors`, its
    defaults: n_train = n, n_val = n_train, n_test = 4 n): ``n_train``, ``n_val``,
    ``n_test``, ``var_y`` (test sample) and ``var_y_theory``, and per weight (``W0``, ``W1``,
    ``W2``, ``one_step_reference``) ``mse``, ``relative`` (mse / var_y), the chosen ``lam``
    and ``lam_over_scale``, ``component_mse`` and ``component_relative`` (one per target
    direction, in the order of the target string), ``noise_mse`` and ``cross``."""
    res = readout_errors(run)
    keep = ("mse", "relative", "lam", "lam_over_scale", "component_mse", "component_relative",
            "noise_mse", "cross")
    out = {key: (res[key] if key.startswith("n_") else _r(res[key]))
           for key in ("n_train", "n_val", "n_test", "var_y", "var_y_theory")}
    out.update({w: {key: _r(res[w][key]) for key in keep} for w in WEIGHTS})
    return out


def _records(records: list[dict]) -> list[dict]:
    """Spike records with every number rounded (:func:`_r`)."""
    return [{key: (v if key == "k" else _r(v)) for key, v in rec.items()} for rec in records]


def _r(x, digits: int = 6):
    """Round to ``digits`` significant digits (JSON-friendly floats or lists)."""
    arr = np.asarray(x, float)
    rounded = [float(f"{v:.{digits}g}") for v in arr.ravel()]
    return rounded[0] if arr.ndim == 0 else rounded
