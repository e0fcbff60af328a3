"""Reproduce every experiment of the book (SPEC section 4, E1 to E10) at the book's size or at
paper scale: ``python -m companion reproduce [--scale small|paper] [--only E4,E7] [--jobs K]
[--out DIR] [--scheduler ADDRESS]``.

Each experiment is a list of units (one parameter point x one seed) and a compute function
that *calls the chapter's experiment module* with that single point and seed (the science
lives in :mod:`companion.experiments`; nothing is re-implemented here). Units are cached on
disk (:class:`companion.cache.ResultCache`: keyed by every parameter, the seed and the package
version), run in parallel by :func:`companion.sweep.run_sweep`, and turned into a compact
report figure (PNG and PDF, book style: theory as lines, simulations as markers with their
spread over seeds) and tidy data: ``E<k>.csv`` (one row per unit, or per unit and grid value
for E1 and E2, with every parameter and the seed as columns) and ``E<k>.json`` (package
version, scale, date, the units' parameters).

Scales: ``small`` = the chapters' default sizes; ``paper`` = N up to 4096 (8192 for E7) with
4 seeds per point. The compute functions are module-level functions of this module, so that
joblib or Dask worker processes can unpickle them.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from . import __version__
from .sweep import Experiment, plan_sweep, register, REGISTRY, run_sweep
from .validation import seed_list

SCALES = ("small", "paper")

# -- parameters of the chapters (book defaults) and of paper scale ---------------------------
E1_ETAS = [0.0, 0.5, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0]          # one_step.ipynb
E2_ALPHAS = [round(a, 2) for a in np.arange(0.0, 0.451, 0.05)]              # one_step.ipynb
E3_POINTS = [(0.20, 0.20), (0.40, 0.15), (0.20, 0.45), (0.40, 0.25), (0.35, 0.45),
             (0.45, 0.45)]                                                  # two_steps.ipynb
E4_PAIRS = [(0.20, 0.45), (0.40, 0.25), (0.35, 0.45)]
E5_PAIRS = [(0.20, 0.20), (0.35, 0.45)]
E6_PAIRS = [(0.2, 0.2), (0.1, 0.3), (0.4, 0.25), (0.35, 0.45)]              # rv.E6_ALPHA_PAIRS
E7_SETTINGS = [("reused", 0.35, 0.45), ("reused", 0.20, 0.45), ("fresh", 0.35, 0.45)]
E8_TARGETS = ["He_3", "He_2", "(He_2+He_3)/sqrt2", "bounded odd"]
E9_ACTIVATIONS = ["tanh", "shifted_tanh", "relu"]

SIZES = {
    # experiment: {scale: dict of sizes and seeds}
    "E1": {"small": dict(N=1000, seeds=5), "paper": dict(N=4096, seeds=4)},
    "E2": {"small": dict(Ns=[125, 250, 500, 1000], seeds=5),
           "paper": dict(Ns=[512, 1024, 2048, 4096], seeds=4)},
    "E3": {"small": dict(Ns=[250, 500, 1000, 2000], seeds=2),
           "paper": dict(Ns=[512, 1024, 2048, 4096], seeds=4)},
    "E6": {"small": dict(N=1000, seeds=3), "paper": dict(N=2048, seeds=4)},   # chapter: N/2
    "E7": {"small": dict(Ns=[500, 1000, 2000], seeds=3),
           "paper": dict(Ns=[1024, 2048, 4096, 8192], seeds=4)},   # the headline: up to 8192
    "E8": {"small": dict(N=1000, seeds=3), "paper": dict(N=2048, seeds=4)},
    "E9": {"small": dict(N=2000, seeds=3), "paper": dict(N=4096, seeds=4)},
    "E10": {"small": dict(N=2000, seeds=1), "paper": dict(N=4096, seeds=2)},  # 4 dense SVDs
    # the exponent check reaches 8192 with 6 seeds (bootstrap intervals of the slopes)
    "E4": {"small": dict(Ns=[250, 500, 1000, 2000], seeds=2),
           "paper": dict(Ns=[512, 1024, 2048, 4096, 8192], seeds=6)},
    # spikes one by one: a run and its null run per unit
    "E11": {"small": dict(Ns=[256, 512, 1024, 2048], seeds=2),
            "paper": dict(Ns=[1024, 2048, 4096, 8192], seeds=4)},
}
SIZES["E5"] = SIZES["E3"]
#: E11: what the step constants c1, c2 do (N, seeds, activation, point, (c1, c2) pairs)
E11_CONSTANTS = dict(N=2048, seeds=2, activation="shifted_tanh", point=(0.38, 0.45),
                     pairs=[(1.5, 1.0), (2.0, 1.0), (1.0, 2.0)])


#: modules whose code decides the numbers of a run (not the figures): their source is hashed
#: into every cache key, with the compute functions below, by :func:`code_fingerprint`
NUMERICS_MODULES = ("activations", "alignment", "expansion", "gaussian", "network", "spectra",
                    "spikes", "targets", "theory", "validation", "experiments/one_step", "experiments/two_steps",
                    "experiments/reuse_vs_fresh")


def code_fingerprint() -> str:
    """12 hex digits of SHA-256 over the source of :data:`NUMERICS_MODULES` and of this
    module's compute functions. It joins the package version in every cache key, so that a
    change of the numerics never reuses a stale run even when nobody bumps the version;
    report and plotting code is left out, because redrawing a figure needs no new runs."""
    import hashlib
    import inspect

    h = hashlib.sha256()
    base = Path(__file__).resolve().parent
    for name in NUMERICS_MODULES:
        h.update((base / f"{name}.py").read_bytes())
    for fn in (compute_e1, compute_e2, compute_two_step, compute_e6, _e8_target,
               compute_projection, compute_e10, compute_e11):
        h.update(inspect.getsource(fn).encode())
    return h.hexdigest()[:12]


def _check_scale(scale: str) -> None:
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r} (choose from {', '.join(SCALES)})")


def _size(eid: str, scale: str) -> dict:
    _check_scale(scale)
    return SIZES[eid][scale]


# -- compute functions: one unit each, calling the chapters' experiment modules -------------
def compute_e1(params: dict, seed: int) -> dict:
    """E1 unit: :func:`companion.experiments.one_step.transition_sweep` at one N, one seed."""
    from .experiments import one_step
    r = one_step.transition_sweep(params["etas"], N=params["N"], seeds=[seed],
                                  target=params["target"], activation=params["activation"])
    keep = ("eta", "s1", "cos2_beta", "overlap_u1", "overlap_a", "plugin_s1", "theory_s1",
            "theory_cos2", "theory_overlap_u1", "theory_overlap_a")
    out = {k: np.asarray(r[k], float).reshape(-1) for k in keep}
    out.update(eta_c=float(r["eta_c"]), edge=float(r["edge"]), a_norm=float(r["a_norm"][0]),
               u1_norm=float(r["u1_norm"][0]))
    return out


def compute_e2(params: dict, seed: int) -> dict:
    """E2 unit: :func:`companion.experiments.one_step.growth_sweep` at one N, one seed."""
    from .experiments import one_step
    r = one_step.growth_sweep(params["alphas"], [params["N"]], seeds=[seed],
                              target=params["target"], activation=params["activation"])
    out = {"alpha": np.asarray(params["alphas"], float)}
    for k in ("s1", "cos2_beta", "overlap_u1"):
        out[k] = np.asarray(r[k], float)[0, 0]
    out["theory_s1"] = np.asarray(r["theory_s1"], float)[0]
    out["theory_cos2"] = np.asarray(r["theory_cos2"], float)[0]
    out["cos2_u1"] = float(np.asarray(r["cos2_u1"])[0, 0])
    out["saturation"] = float(r["saturation"])
    return out


def compute_two_step(params: dict, seed: int) -> dict:
    """E3/E4/E5 unit: :func:`companion.experiments.two_steps.two_step_run`."""
    from .experiments import two_steps
    r = two_steps.two_step_run(params["N"], params["alpha1"], params["alpha2"], seed,
                               K=params["K"], batch=params["batch"],
                               activation=params["activation"], target=params["target"],
                               reference=params["reference"])
    out = {f"terms_{k}": float(v) for k, v in enumerate(r["terms"])}
    out.update({f"leading_{k}": float(v) for k, v in enumerate(r["leading"])})
    out.update({f"separate_{k}": float(v) for k, v in enumerate(r["separate"])})
    if params["reference"]:
        out.update(diff=float(r["diff"]), ref=float(r["ref"]),
                   rel_diff=float(r["diff"]) / float(r["ref"]))
    return out


def compute_e6(params: dict, seed: int) -> dict:
    """E6 unit: :func:`companion.experiments.reuse_vs_fresh.first_direction_runs`."""
    from .experiments import reuse_vs_fresh as rv
    r = rv.first_direction_runs(params["N"], [(params["alpha1"], params["alpha2"])],
                                seeds=(seed,), batches=(params["batch"],),
                                target=params["target"], activation=params["activation"])
    keys = ("cos2", "limit", "limit_finite_n", "ubar_cos2", "v_ubar_cos2", "theta",
            "spike_factor", "finite_size_prediction", "s1", "lambda")
    return {k: float(np.asarray(r[k])[0]) for k in keys}


def _e8_target(label: str):
    from .experiments import reuse_vs_fresh as rv
    specs = {"He_3": "he3", "He_2": "he2", "(He_2+He_3)/sqrt2": rv.he2_plus_he3,
             "bounded odd": rv.bounded_odd_link("sharp")}
    if label not in specs:
        raise ValueError(f"unknown E8 target {label!r}")
    return specs[label]


def compute_projection(params: dict, seed: int) -> dict:
    """E7/E8/E9 unit: :func:`companion.experiments.reuse_vs_fresh.projection_runs`."""
    from .experiments import reuse_vs_fresh as rv
    r = rv.projection_runs((params["N"],), seeds=(seed,),
                           settings=[(params["batch"], params["alpha1"], params["alpha2"])],
                           targets={params["target"]: _e8_target(params["target"])},
                           activations={params["activation"]: params["activation"]},
                           m=params["m"])
    out = {k: float(np.asarray(r[k])[0]) for k in ("projection", "chance", "lambda",
                                                     "learnable")}
    out.update({f"s_{i}": float(v) for i, v in enumerate(np.asarray(r["s"])[0])})
    out.update({f"cos2_{i}": float(v) for i, v in enumerate(np.asarray(r["cos2"])[0])})
    out["left"] = np.asarray(r["left"], float)[0]
    return out


def compute_e10(params: dict, seed: int) -> dict:
    """E10 unit: :func:`companion.experiments.two_steps.spectrum_with_null`: all singular
    values of W2 (dense SVD), the top 12 of W2, of its null run (``s_null``) and of W1."""
    from .experiments import two_steps
    r = two_steps.spectrum_with_null(params["N"], params["alpha1"], params["alpha2"],
                                     seed=seed, K=5, top=12, batch=params["batch"],
                                     activation=params["activation"], target=params["target"],
                                     full=True, full_null=False)
    left = np.asarray(r["left"], float)
    return {"s": np.asarray(r["s"], float), "s_null": np.asarray(r["s_top_null"], float),
            "s_W1": np.asarray(r["s_W1"], float), "s_top": np.asarray(r["s_top"], float),
            "on_powers": left.sum(axis=1), "edge": float(r["edge"]), "phi": float(r["phi"]),
            "lambda": int(r["lambda_"])}


def compute_e11(params: dict, seed: int) -> dict:
    """E11 unit: :func:`companion.experiments.two_steps.spike_emergence_run` (a run and its
    null run)."""
    from .experiments import two_steps
    return two_steps.spike_emergence_run(params["N"], params["alpha1"], params["alpha2"],
                                         params["activation"], seed, c1=params["c1"],
                                         c2=params["c2"])


# -- units ----------------------------------------------------------------------------------
def units_e1(scale):
    z = _size("E1", scale)
    p = dict(N=z["N"], etas=E1_ETAS, target="he1", activation="tanh")
    return [(p, s) for s in seed_list(z["seeds"])]


def units_e2(scale):
    z = _size("E2", scale)
    return [(dict(N=N, alphas=E2_ALPHAS, target="he1", activation="tanh"), s)
            for N in z["Ns"] for s in seed_list(z["seeds"])]


def _two_step_units(eid, scale, pairs, batches=("reused",)):
    z = _size(eid, scale)
    # the one-step reference (an extra gradient and two Lanczos runs) only where E5 uses it,
    # so that E3, E4 and E5 share their runs
    return [(dict(N=N, alpha1=a1, alpha2=a2, batch=b, K=4, activation="tanh", target="he1",
                  reference=(a1, a2) in E5_PAIRS), s)
            for (a1, a2) in pairs for b in batches for N in z["Ns"]
            for s in seed_list(z["seeds"])]


def units_e3(scale):
    return _two_step_units("E3", scale, E3_POINTS)


def units_e4(scale):
    return _two_step_units("E4", scale, E4_PAIRS)


def units_e5(scale):
    return _two_step_units("E5", scale, E5_PAIRS, batches=("reused", "fresh"))


def units_e6(scale):
    z = _size("E6", scale)
    return [(dict(N=z["N"], alpha1=a1, alpha2=a2, batch=b, target="he1", activation="tanh"), s)
            for (a1, a2) in E6_PAIRS for b in ("reused", "fresh")
            for s in seed_list(z["seeds"])]


def _proj(N, batch, a1, a2, target="He_3", activation="tanh"):
    return dict(N=N, batch=batch, alpha1=a1, alpha2=a2, target=target, activation=activation,
                m=4)


def units_e7(scale):
    z = _size("E7", scale)
    return [(_proj(N, b, a1, a2), s) for N in z["Ns"] for (b, a1, a2) in E7_SETTINGS
            for s in seed_list(z["seeds"])]


def units_e8(scale):
    z = _size("E8", scale)
    return [(_proj(z["N"], b, 0.35, 0.45, target=t), s) for t in E8_TARGETS
            for b in ("reused", "fresh") for s in seed_list(z["seeds"])]


def units_e9(scale):
    z = _size("E9", scale)
    out = [(_proj(z["N"], "reused", 0.35, 0.45, activation=a), s) for a in E9_ACTIVATIONS
           for s in seed_list(z["seeds"])]
    out += [(_proj(z["N"], "fresh", 0.35, 0.45, activation=a), s) for a in ("tanh", "relu")
            for s in seed_list(z["seeds"])]
    return out


def units_e10(scale):
    z = _size("E10", scale)
    return [(dict(N=z["N"], alpha1=0.35, alpha2=0.45, batch="reused", activation="tanh",
                  target="he1+he3"), s) for s in seed_list(z["seeds"])]


def units_e11(scale):
    from .experiments.two_steps import EMERGENCE_ACTIVATIONS, EMERGENCE_POINTS
    z = _size("E11", scale)
    out = [(dict(N=N, alpha1=a1, alpha2=a2, activation=act, c1=1.0, c2=1.0), s)
           for (a1, a2) in EMERGENCE_POINTS for act in EMERGENCE_ACTIVATIONS for N in z["Ns"]
           for s in seed_list(z["seeds"])]
    c = E11_CONSTANTS
    if scale == "paper":
        out += [(dict(N=c["N"], alpha1=c["point"][0], alpha2=c["point"][1],
                      activation=c["activation"], c1=c1, c2=c2), s)
                for c1, c2 in c["pairs"] for s in seed_list(c["seeds"])]
    return out


def report_e11(exp, scale, results, out):
    """E11: the number of spikes against N, one panel per point, one line per activation."""
    from . import plotting as cplt
    from .experiments.two_steps import EMERGENCE_POINTS
    fig, axes = _fig(1, len(EMERGENCE_POINTS), sharey=True)
    count = _group([r for r in results if r[0]["c1"] == r[0]["c2"] == 1.0], "n_outliers",
                   ("alpha1", "alpha2", "activation", "N"))
    for ax, (a1, a2) in zip(np.atleast_1d(axes), EMERGENCE_POINTS):
        for act, marker in (("tanh", "o"), ("shifted_tanh", "s"), ("gelu", "D")):
            Ns = sorted(k[3] for k in count if k[:3] == (a1, a2, act))
            mean = np.array([count[(a1, a2, act, N)].mean() for N in Ns])
            cplt.sim_points(ax, Ns, mean, None, marker=marker, label=act)
        ax.set_xscale("log")
        ax.set_xlabel(r"width $N = d = n$")
        ax.set_title(rf"$(\alpha_1, \alpha_2) = ({a1:.2f}, {a2:.2f})$")
    np.atleast_1d(axes)[0].set_ylabel("spikes of $W_2$")
    np.atleast_1d(axes)[0].legend()
    return _save(fig, out, exp.id) + write_tidy(out, exp, scale, results)


# -- tidy data ------------------------------------------------------------------------------
def tidy_rows(results, long: str | None = None) -> list[dict]:
    """One row per unit (``long=None``) or per unit and entry of the array ``long`` (E1: the
    step sizes, E2: the exponents). Columns: every parameter (lists of the grid dropped when
    ``long`` replaces them), the seed, then every result: scalars as they are, arrays as
    ``name_0, name_1, ...`` (or as a column when they run along ``long``)."""
    rows = []
    for params, seed, res in results:
        base = {k: v for k, v in params.items() if not isinstance(v, (list, tuple))}
        base["seed"] = seed
        arrays = {k: np.asarray(v) for k, v in res.items()}
        length = arrays[long].size if long else 1
        for j in range(length):
            row = dict(base)
            for k, a in arrays.items():
                if a.ndim == 0:
                    row[k] = a.item()
                elif long and a.shape == (length,):
                    row[k] = a[j].item()
                else:
                    row.update({f"{k}_{i}": v.item() for i, v in enumerate(a.reshape(-1))})
            rows.append(row)
    return rows


def _fmt(v):
    if isinstance(v, float):
        return repr(round(v, 6)) if np.isfinite(v) else str(v)
    return v


def write_tidy(out: Path, exp: Experiment, scale: str, results, long: str | None = None,
               rows: list[dict] | None = None) -> list[Path]:
    """Write ``<id>.csv`` (floats to 6 decimals), the ``<id>.json`` sidecar and the runs
    themselves as ``<id>.npz`` (:func:`write_runs`, read back by :func:`load_runs`). Nothing
    is written when ``out`` is None."""
    if out is None:
        return []
    rows = tidy_rows(results, long) if rows is None else rows
    columns: list[str] = []
    for r in rows:
        columns += [k for k in r if k not in columns]
    csv_path, json_path = out / f"{exp.id}.csv", out / f"{exp.id}.json"
    with open(csv_path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow({k: _fmt(v) for k, v in r.items()})
    meta = {"experiment": exp.id, "title": exp.title, "package": "companion",
            "version": __version__, "scale": scale,
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "units": len(results), "rows": len(rows), "columns": columns,
            "sizes": SIZES[exp.id][scale],
            "parameters": [dict(params, seed=seed) for params, seed, _ in results],
            "compute": f"{exp.compute.__module__}.{exp.compute.__name__}",
            "calls": exp.meta.get("calls")}
    meta.update(exp.meta.get("sidecar", {}))
    json_path.write_text(json.dumps(meta, indent=1, default=str) + "\n")
    return [csv_path, json_path, write_runs(out, exp.id, scale, results)]


# -- stored runs: what a chapter reads instead of recomputing -------------------------------
def write_runs(out: Path, eid: str, scale: str, results) -> Path:
    """Write every unit's result arrays to ``<id>.npz`` (float64 arrays named
    ``u<i>.<name>``, plus ``units``: the units' parameters and seeds as JSON, and ``meta``),
    so that the report figure can be redrawn from disk without recomputing anything."""
    arrays = {}
    for i, (_, _, res) in enumerate(results):
        for name, v in res.items():
            arrays[f"u{i}.{name}"] = np.asarray(v)
    units = [{"params": params, "seed": int(seed)} for params, seed, _ in results]
    meta = {"experiment": eid, "version": __version__, "scale": scale}
    path = out / f"{eid}.npz"
    tmp = out / f".{eid}.npz.tmp-{os.getpid()}.npz"
    np.savez_compressed(tmp, units=np.array(json.dumps(units)), meta=np.array(json.dumps(meta)),
                        **arrays)
    os.replace(tmp, path)
    return path


#: environment variable naming the folder of stored runs the chapters read (the switch)
DATA_ENV = "COMPANION_PAPER_DATA"


def default_data_dir() -> Path | None:
    """The folder of stored paper-scale runs that the chapters draw: ``$COMPANION_PAPER_DATA``
    if set (``off`` or ``none``: none, the chapters then skip them; any other value: a folder,
    e.g. a downloaded copy of ``data/paper`` in Colab), else ``data/paper`` of the repository
    holding the installed package (absent when only the package is installed)."""
    value = os.environ.get(DATA_ENV, "").strip()
    if value.lower() in ("off", "none", "0", "no"):
        return None
    if value:
        return Path(value).expanduser()
    return Path(__file__).resolve().parents[1] / "data" / "paper"


def _read_stored(eid: str, root=None) -> tuple[list, dict] | None:
    """(runs, meta) from ``<root>/<eid>.npz`` in one read; ``None`` when absent or off."""
    base = Path(root) if root is not None else default_data_dir()
    if base is None:
        return None
    path = base / f"{parse_only(eid)[0]}.npz"
    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as z:
        units = json.loads(str(z["units"]))
        results = []
        for i, u in enumerate(units):
            prefix = f"u{i}."
            res = {k[len(prefix):]: z[k] for k in z.files if k.startswith(prefix)}
            results.append((u["params"], u["seed"], res))
        return results, json.loads(str(z["meta"]))


def load_runs(eid: str, root=None) -> list | None:
    """The stored runs of experiment ``eid`` as ``[(params, seed, result dict)]`` (the form
    the report functions take), read from ``<root>/<eid>.npz`` (default
    :func:`default_data_dir`); ``None`` when there is no such file or the stored runs are
    switched off (``COMPANION_PAPER_DATA=off``)."""
    stored = _read_stored(eid, root)
    return None if stored is None else stored[0]


def stored_meta(eid: str, root=None) -> dict | None:
    """The ``meta`` record (experiment, package version, scale) of a stored ``<eid>.npz``."""
    stored = _read_stored(eid, root)
    return None if stored is None else stored[1]


def figure_from_data(eid: str, root=None):
    """The report figure of ``eid`` drawn from its stored runs (:func:`load_runs`), without
    recomputing; ``None`` when no runs are stored. This is the switch the chapters use to
    show paper-scale results next to their own."""
    stored = _read_stored(eid, root)
    if stored is None:
        return None
    results, meta = stored
    exp = REGISTRY[parse_only(eid)[0]]
    return exp.report(exp, meta.get("scale", "paper"), results, None)[0]


def stored_figure(eid: str, root=None):
    """:func:`figure_from_data`, or, when no runs are stored (the package installed without
    the repository, as in Colab), a small figure that says so in its place."""
    fig = figure_from_data(eid, root)
    if fig is None:
        fig, ax = _fig(figsize=(6.0, 1.2))
        ax.axis("off")
        ax.text(0.5, 0.5, f"{eid}: no stored runs here\n(no data/paper, or "
                f"{DATA_ENV}=off)", ha="center", va="center", fontsize=11)
    return fig


# -- report figures (compact; the chapters draw the full versions) --------------------------
def _fig(nrows=1, ncols=1, **kw):
    from . import plotting as cplt
    cplt.set_book_style()
    return cplt.subplots(nrows, ncols, **kw)


def _save(fig, out: Path | None, eid: str) -> list:
    """Write the figure as PNG and PDF into ``out`` and close it; with ``out=None`` (a
    chapter drawing stored data, :func:`figure_from_data`) return ``[fig]`` instead."""
    import matplotlib.pyplot as plt
    if out is None:
        return [fig]
    paths = [out / f"{eid}.png", out / f"{eid}.pdf"]
    for p in paths:
        fig.savefig(p, bbox_inches="tight")
    plt.close(fig)
    return paths


def _stack(results, key, select=lambda p, s: True):
    return np.array([np.asarray(r[key], float) for p, s, r in results if select(p, s)])


def _group(results, key, by, value_of=None):
    """{group tuple: array of values over seeds} in order of first appearance."""
    groups: dict[tuple, list] = {}
    for p, s, r in results:
        g = tuple(p[b] for b in by)
        groups.setdefault(g, []).append(float(np.asarray(r[key])) if value_of is None
                                        else value_of(p, r))
    return {g: np.array(v) for g, v in groups.items()}


def _spread(v, axis=0):
    return np.mean(v, axis=axis), np.std(v, axis=axis)


def report_e1(exp, scale, results, out):
    from . import plotting as cplt
    from .experiments import one_step
    P = cplt.PALETTE
    etas = np.asarray(results[0][2]["eta"])
    p0 = results[0][0]
    grid = np.linspace(0, max(etas), 401)
    th = one_step.transition_theory(grid, p0["target"], p0["activation"], N=p0["N"])
    fig, (ax1, ax2) = _fig(1, 2)
    s1 = _stack(results, "s1")
    cplt.theory_line(ax1, grid, th["s1"], label="theory")
    cplt.sim_points(ax1, etas, *_spread(s1), label="simulation", color=P["one_step"])
    cplt.mark_bulk_edge(ax1, float(results[0][2]["edge"]), axis="y", label="bulk edge")
    ax1.set_xlabel(r"step size $\eta$")
    ax1.set_ylabel(r"top singular value $s_1$")
    ax1.legend(loc="upper left")
    cos2 = _stack(results, "cos2_beta")
    cplt.theory_line(ax2, grid, th["cos2"], label="theory")
    cplt.sim_points(ax2, etas, *_spread(cos2), label=r"$\cos^2(v_1, \beta^*)$",
                    color=P["one_step"])
    ax2.set_xlabel(r"step size $\eta$")
    ax2.set_ylabel("squared overlap")
    ax2.legend(loc="upper left")
    return _save(fig, out, exp.id) + write_tidy(out, exp, scale, results, long="eta")


def report_e2(exp, scale, results, out):
    from . import plotting as cplt
    P = cplt.PALETTE
    Ns = sorted({p["N"] for p, _, _ in results})
    alphas = np.asarray(results[0][2]["alpha"])
    fig, (ax1, ax2) = _fig(1, 2)
    blues = ["#9ecae1", "#4292c6", "#08519c", "#08306b"]
    for color, a in zip(blues, [0.1, 0.2, 0.3, 0.4]):
        j = int(np.argmin(np.abs(alphas - a)))
        s1 = [_stack(results, "s1", lambda p, s, N=N: p["N"] == N)[:, j] for N in Ns]
        th = [_stack(results, "theory_s1", lambda p, s, N=N: p["N"] == N)[0, j] for N in Ns]
        cplt.theory_line(ax1, Ns, th, color=color)
        cplt.sim_points(ax1, Ns, [v.mean() for v in s1], [v.std() for v in s1], color=color,
                        label=rf"$\alpha = {a:g}$")
    from matplotlib.ticker import ScalarFormatter
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xticks(Ns, [str(n) for n in Ns])
    ax1.minorticks_off()
    ax1.set_yticks([2, 3, 5, 10, 20, 50])
    ax1.yaxis.set_major_formatter(ScalarFormatter())
    ax1.set_xlabel(r"width $N = d = n$")
    ax1.set_ylabel(r"top singular value $s_1$")
    ax1.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=4, fontsize=9,
               title="lines: theory", title_fontsize=9)
    big = lambda p, s: p["N"] == Ns[-1]  # noqa: E731
    cos2 = _stack(results, "cos2_beta", big)
    cplt.theory_line(ax2, alphas, _stack(results, "theory_cos2", big)[0], label="theory")
    cplt.theory_line(ax2, alphas, np.full(len(alphas), float(results[0][2]["saturation"])),
                     linestyle="-.", color=P["null"], label="saturation")
    cplt.sim_points(ax2, alphas, *_spread(cos2), color=P["one_step"],
                    label=rf"$\cos^2(v_1, \beta^*)$, $N = {Ns[-1]}$")
    ax2.set_xlabel(r"step-size exponent $\alpha$")
    ax2.set_ylabel("squared overlap")
    ax2.set_ylim(-0.02, 1.05)
    ax2.legend(loc="lower right", fontsize=9)
    return _save(fig, out, exp.id) + write_tidy(out, exp, scale, results, long="alpha")


def term_table(results, pair, k, batch="reused", key="terms"):
    """(Ns, values per N over the seeds) of ``<key>_<k>`` (or ``key`` when ``k`` is None)
    for one (alpha1, alpha2) pair and batch, from E3-E5 runs (fresh or :func:`load_runs`)."""
    sel = [(p, r) for p, s, r in results if (p["alpha1"], p["alpha2"]) == tuple(pair)
           and p["batch"] == batch]
    Ns = sorted({p["N"] for p, _ in sel})
    name = f"{key}_{k}" if k is not None else key
    vals = [np.array([float(r[name]) for p, r in sel if p["N"] == N]) for N in Ns]
    return np.array(Ns), vals


def report_e3(exp, scale, results, out):
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from . import plotting as cplt
    from .theory import lambda_boundary, spike_exponent
    fig, ax = _fig()
    g1, g2 = np.meshgrid(np.linspace(0, 0.4999, 400), np.linspace(0, 0.4999, 400))
    lam = np.minimum(np.floor(g2 / (0.5 - g1) + 1e-9), 5)
    greys = ListedColormap(plt.cm.Greys(np.linspace(0.0, 0.45, 6)))
    ax.contourf(g1, g2, lam, levels=np.arange(-0.5, 6), cmap=greys, zorder=0)
    a1 = np.linspace(0, 0.5, 200)
    for k in range(1, 6):
        cplt.theory_line(ax, a1, lambda_boundary(k, a1), linewidth=3 if k == 2 else 1.2,
                         label=r"$\Lambda = 2$: $2\alpha_1 + \alpha_2 = 1$" if k == 2 else None)
    xs, ys, local, rows = [], [], [], []
    for pair in E3_POINTS:
        Ns, vals = term_table(results, pair, 2)
        m = np.array([np.exp(np.log(v).mean()) for v in vals])
        slope = np.log(m[-1] / m[-2]) / np.log(Ns[-1] / Ns[-2])
        xs.append(pair[0]), ys.append(pair[1]), local.append(slope)
        rows.append((pair, slope, spike_exponent(*pair, 2)))
    sc = ax.scatter(xs, ys, c=local, cmap="RdBu_r", vmin=-0.5, vmax=0.5, s=130,
                    edgecolors=cplt.PALETTE["theory"], linewidths=1.2, zorder=5,
                    label=r"simulation: local exponent of $T_2$")
    fig.colorbar(sc, ax=ax, label=r"measured exponent of $T_2$ (two largest $N$)")
    ax.set_xlim(0, 0.5)
    ax.set_ylim(0, 0.5)
    ax.set_xlabel(r"first step exponent $\alpha_1$")
    ax.set_ylabel(r"second step exponent $\alpha_2$")
    ax.legend(loc="lower left", framealpha=0.9, frameon=True, fontsize=9)
    return _save(fig, out, exp.id) + write_tidy(out, exp, scale, results)


def report_e4(exp, scale, results, out):
    from . import plotting as cplt
    from .theory import spike_exponent
    P = cplt.PALETTE
    # stacked, one pair per row: side by side, three panels are unreadable at a page's width
    fig, axes = _fig(len(E4_PAIRS), 1, sharex=True, sharey=True,
                     figsize=(6.4, 2.3 * len(E4_PAIRS) + 0.6))
    for ax, pair in zip(axes, E4_PAIRS):
        for k, color, marker in [(0, P["reused"], "o"), (2, P["accent"], "s")]:
            Ns, vals = term_table(results, pair, k)
            logs = [np.log(v) for v in vals]
            mean = np.exp([l.mean() for l in logs])
            lo, hi = np.exp([l.min() for l in logs]), np.exp([l.max() for l in logs])
            cplt.sim_points(ax, Ns, mean, np.stack([mean - lo, hi - mean]), color=color,
                            marker=marker, label=f"$T_{k}$ (simulation)")
            slope = spike_exponent(*pair, k)
            cplt.theory_line(ax, Ns, mean[-1] * (Ns / Ns[-1]) ** slope, linestyle="--",
                             label="predicted slope" if k == 0 else None)
            ax.text(Ns[0], mean[-1] * (Ns[0] / Ns[-1]) ** slope * 1.25, f"{slope:+.2f}",
                    fontsize=9, color=P["theory"])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(Ns, [str(n) for n in Ns])
        ax.minorticks_off()
        ax.set_ylabel(r"term size $T_k$")
        ax.set_title(rf"$(\alpha_1, \alpha_2) = ({pair[0]:.2f}, {pair[1]:.2f})$", fontsize=10.5)
    axes[-1].set_xlabel(r"width $N = d = n$")
    # below the panels: inside, the legend hid the (0.20, 0.45) points at the largest N
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=9)
    return _save(fig, out, exp.id) + write_tidy(out, exp, scale, results)


def report_e5(exp, scale, results, out):
    from . import plotting as cplt
    from .experiments import two_steps
    P = cplt.PALETTE
    fig, ax = _fig()
    for pair, marker, ls in [(E5_PAIRS[0], "o", "-"), (E5_PAIRS[1], "D", "--")]:
        for batch in ("reused", "fresh"):
            Ns, vals = term_table(results, pair, None, batch=batch, key="rel_diff")
            mean = np.array([v.mean() for v in vals])
            lo, hi = np.array([v.min() for v in vals]), np.array([v.max() for v in vals])
            cplt.sim_points(ax, Ns, mean, np.stack([mean - lo, hi - mean]), color=P[batch],
                            marker=marker, label=f"{batch}, $({pair[0]:.2f}, {pair[1]:.2f})$")
        grid = np.geomspace(Ns[0], Ns[-1], 60)
        cplt.theory_line(ax, grid, two_steps.fresh_relative_difference(*pair, grid),
                         linestyle=ls, label=f"fresh limit, $({pair[0]:.2f}, {pair[1]:.2f})$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(Ns, [str(n) for n in Ns])
    ax.minorticks_off()
    lo, hi = ax.get_ylim()
    ticks = [t for t in (0.02, 0.05, 0.1, 0.2, 0.5, 1.0) if lo <= t <= hi]
    ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
    ax.set_xlabel(r"width $N = d = n$")
    ax.set_ylabel(r"$\|W_2 - W_{\mathrm{ref}}\| \,/\, \|W_{\mathrm{ref}} - W_0\|$")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=9)
    return _save(fig, out, exp.id) + write_tidy(out, exp, scale, results)


def report_e6(exp, scale, results, out):
    from . import plotting as cplt
    P = cplt.PALETTE
    fig, ax = _fig()
    cos2 = _group(results, "cos2", ("alpha1", "alpha2", "batch"))
    limit = _group(results, "limit", ("alpha1", "alpha2", "batch"))
    limit_n = _group(results, "limit_finite_n", ("alpha1", "alpha2", "batch"))
    for j, (batch, shift) in enumerate((("reused", -0.12), ("fresh", 0.12))):
        x = np.arange(len(E6_PAIRS)) + shift
        keys = [(a1, a2, batch) for a1, a2 in E6_PAIRS]
        v = [cos2[k] for k in keys]
        mean = np.array([a.mean() for a in v])
        cplt.sim_points(ax, x, mean, np.stack([mean - [a.min() for a in v],
                                               [a.max() for a in v] - mean]),
                        color=P[batch], label=f"{batch}: simulation")
        for xi, k in zip(x, keys):
            cplt.theory_line(ax, [xi - 0.1, xi + 0.1], [limit[k].mean()] * 2, color=P[batch],
                             label=f"{batch}: limit" if xi == x[0] else None)
            cplt.theory_line(ax, [xi - 0.1, xi + 0.1], [limit_n[k].mean()] * 2,
                             color=P[batch], linestyle=":",
                             label=r"limit $\times (1 - 1/\theta^2)$" if (xi == x[0] and j == 1)
                             else None)
    ax.set_xticks(range(len(E6_PAIRS)), [f"({a:.2f}, {b:.2f})" for a, b in E6_PAIRS])
    ax.set_xlabel(r"$(\alpha_1, \alpha_2)$")
    ax.set_ylabel(r"$\cos^2(v_1, \beta^*)$")
    ax.set_ylim(0, 1)
    ax.legend(loc="lower left", fontsize=9, ncol=2)
    return _save(fig, out, exp.id) + write_tidy(out, exp, scale, results)


def report_e7(exp, scale, results, out):
    from . import plotting as cplt
    P = cplt.PALETTE
    fig, ax = _fig()
    proj = _group(results, "projection", ("batch", "alpha1", "N"))
    Ns = sorted({p["N"] for p, _, _ in results})
    styles = {("reused", 0.35): (P["reused"], 1.0, r"reused, $(0.35, 0.45)$, $\Lambda = 3$"),
              ("reused", 0.20): (P["accent"], 0.94, r"reused, $(0.20, 0.45)$, $\Lambda = 1$"),
              ("fresh", 0.35): (P["fresh"], 1.06, r"fresh, $(0.35, 0.45)$, $\Lambda = 3$")}
    for (batch, a1), (color, off, label) in styles.items():
        v = [proj[(batch, a1, N)] for N in Ns]
        mean = np.array([a.mean() for a in v])
        cplt.sim_points(ax, np.array(Ns) * off, mean,
                        np.stack([mean - [a.min() for a in v], [a.max() for a in v] - mean]),
                        color=color, label=label)
    grid = np.geomspace(Ns[0] * 0.8, Ns[-1] * 1.25, 50)
    cplt.theory_line(ax, grid, 4 / grid, color=P["null"], linestyle="--", label="chance $4/d$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(Ns, [str(n) for n in Ns])
    ax.minorticks_off()
    ax.set_xlabel(r"width $N = d = n$")
    ax.set_ylabel(r"$\|P_4 \beta^*\|^2$")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2, fontsize=9)
    return _save(fig, out, exp.id) + write_tidy(out, exp, scale, results)


def _category_report(exp, scale, results, out, by, names, xlabel):
    from . import plotting as cplt
    P = cplt.PALETTE
    fig, ax = _fig()
    proj = _group(results, "projection", (by, "batch"))
    learn = _group(results, "learnable", (by, "batch"))
    for batch, shift in (("reused", -0.1), ("fresh", 0.1)):
        idx = [i for i, n in enumerate(names) if (n, batch) in proj]
        v = [proj[(names[i], batch)] for i in idx]
        mean = np.array([a.mean() for a in v])
        cplt.sim_points(ax, np.array(idx) + shift, mean,
                        np.stack([mean - [a.min() for a in v], [a.max() for a in v] - mean]),
                        color=P[batch], label=f"{batch} batch")
        for i in idx:
            if np.all(learn[(names[i], batch)] == 1):
                ax.annotate("predicted\nlearned", (i + shift, proj[(names[i], batch)].mean()),
                            textcoords="offset points", xytext=(0, 12), ha="center",
                            fontsize=8, color=P[batch])
    N = results[0][0]["N"]
    cplt.theory_line(ax, [-0.4, len(names) - 0.6], [4 / N] * 2, color=P["null"],
                     linestyle="--", label="chance $4/d$")
    ax.set_yscale("log")
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi * 2.5)       # room for the annotations
    ax.set_xticks(range(len(names)), names, fontsize=9)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(r"$\|P_4 \beta^*\|^2$")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=9)
    return _save(fig, out, exp.id) + write_tidy(out, exp, scale, results)


def report_e8(exp, scale, results, out):
    return _category_report(exp, scale, results, out, "target", E8_TARGETS,
                            r"target link, $(\alpha_1, \alpha_2) = (0.35, 0.45)$")


def report_e9(exp, scale, results, out):
    return _category_report(exp, scale, results, out, "activation", E9_ACTIVATIONS,
                            r"activation, $\mathrm{He}_3$ target, $(0.35, 0.45)$")


def report_e10(exp, scale, results, out):
    from . import plotting as cplt
    P = cplt.PALETTE
    params, seed, r = results[0]
    fig, ax = _fig()
    s, s_null = np.asarray(r["s"]), np.asarray(r["s_null"])
    edge = float(r["edge"]) * 1.02      # 2% margin, as companion.count_outliers
    cplt.spectrum_histogram(ax, s[1:], float(r["phi"]), outliers_edge=edge,
                            label=f"singular values of $W_2$ (top one, {s[0]:.3g}, not shown)")
    top, on = np.asarray(r["s_top"])[1:], np.asarray(r["on_powers"])[1:]
    spikes = top[(on >= 0.3) & (top > edge)]
    ax.plot(spikes, np.zeros_like(spikes), marker="o", markersize=15, markerfacecolor="none",
            markeredgecolor=P["theory"], markeredgewidth=1.5, linestyle="none", clip_on=False,
            label="left vector on the powers of $a$ (spike)")
    null_top = s_null[1:4]
    ax.plot(null_top, np.full(len(null_top), 0.05), marker="|", markersize=14,
            color=P["fresh"], linestyle="none",
            label=f"null run: its 2nd to 4th values (top one {s_null[0]:.3g})")
    ax.set_xlim(0, 1.1 * max(s[1], s_null[1], edge))
    ax.set_xlabel(rf"singular value, $N = {params['N']}$, "
                  rf"$(\alpha_1, \alpha_2) = ({params['alpha1']}, {params['alpha2']})$, "
                  rf"seed {seed}")
    ax.set_ylabel("density")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8.5)
    fig_paths = _save(fig, out, exp.id)
    rows = []
    for p, s, res in results:
        base = dict(p, seed=s)
        for name in ("s", "s_null"):
            for i, v in enumerate(np.asarray(res[name])):
                rows.append(dict(base, matrix="W2" if name == "s" else "W2_null_top", index=i,
                                 singular_value=float(v)))
        for i, v in enumerate(np.asarray(res["s_W1"])):
            rows.append(dict(base, matrix="W1_top", index=i, singular_value=float(v)))
        for i, (v, w) in enumerate(zip(np.asarray(res["s_top"]), np.asarray(res["on_powers"]))):
            rows.append(dict(base, matrix="W2_top", index=i, singular_value=float(v),
                             left_on_powers_of_a=float(w)))
    return fig_paths + write_tidy(out, exp, scale, results, rows=rows)


# -- the registry of experiments ------------------------------------------------------------
_DEFS = [
    ("E1", "one step at eta = Theta(1): s1 and overlaps vs eta", units_e1, compute_e1, report_e1,
     "companion.experiments.one_step.transition_sweep", None),
    ("E2", "one step at eta = N^alpha: spike growth and alignment saturation", units_e2,
     compute_e2, report_e2, "companion.experiments.one_step.growth_sweep", None),
    ("E3", "phase diagram of Lambda(alpha1, alpha2) with simulated exponents", units_e3,
     compute_two_step, report_e3, "companion.experiments.two_steps.two_step_run", "two_step_run"),
    ("E4", "exponent check: term sizes vs N", units_e4, compute_two_step, report_e4,
     "companion.experiments.two_steps.two_step_run", "two_step_run"),
    ("E5", "two steps = one step when alpha1 + alpha2 < 1/2 (reused), not fresh", units_e5,
     compute_two_step, report_e5, "companion.experiments.two_steps.two_step_run", "two_step_run"),
    ("E6", "first-direction alignment, reused vs fresh, He_1 target", units_e6, compute_e6,
     report_e6, "companion.experiments.reuse_vs_fresh.first_direction_runs", None),
    ("E7", "He_3 learned only with reuse: projection on the top-4 subspace", units_e7,
     compute_projection, report_e7, "companion.experiments.reuse_vs_fresh.projection_runs",
     "projection_run"),
    ("E8", "other targets: He_2, (He_2+He_3)/sqrt2, bounded odd", units_e8, compute_projection,
     report_e8, "companion.experiments.reuse_vs_fresh.projection_runs", "projection_run"),
    ("E9", "activation ablation: tanh, tanh(z+0.5), ReLU", units_e9, compute_projection,
     report_e9, "companion.experiments.reuse_vs_fresh.projection_runs", "projection_run"),
    ("E10", "spectrum of W2 beside a null run", units_e10, compute_e10, report_e10,
     "companion.experiments.two_steps.spectrum_with_null", None),
    ("E11", "the spikes appear one by one as N grows (every order vs tanh)", units_e11,
     compute_e11, report_e11, "companion.experiments.two_steps.spike_emergence_run", None),
]
_SIDECAR = {"E11": {"headline": {
    "points": [{"alpha1": 0.30, "alpha2": 0.38, "lambda": 1,
                "shows": "1 + Lambda = 2 outliers with every order (tanh: 1)"},
               {"alpha1": 0.38, "alpha2": 0.45, "lambda": 3,
                "shows": "the count climbs from 2 to 3 with N (tanh: 2); k = 3 out of reach"}],
    "activations": {"every order": ["shifted_tanh", "gelu"], "control (odd)": ["tanh"]},
    "count": "singular values of W2 above the null run's bulk edge (powers of a projected "
             "out) by 2%, with left vectors on the powers of a (weight >= 0.25); the first "
             "spike included"}}}
#: relative cost per N^3 beyond one two-step run (E1, E2: a Lanczos run per step size;
#: E10: a dense SVD and a null run)
_COST = {"E1": 2.0, "E2": 2.0, "E10": 8.0, "E11": 2.5}
for _id, _title, _units, _compute, _report, _calls, _cache in _DEFS:
    register(Experiment(id=_id, title=_title, units=_units, compute=_compute, report=_report,
                        meta={"calls": _calls, "cost": _COST.get(_id, 1.0),
                              "sidecar": _SIDECAR.get(_id, {})}, cache_id=_cache))

EXPERIMENT_IDS = [d[0] for d in _DEFS]


def parse_only(text: str | None) -> list[str]:
    """``"E4,E7"`` -> ``["E4", "E7"]`` (order kept, duplicates dropped); ``None`` -> all."""
    if text is None:
        return list(EXPERIMENT_IDS)
    ids = []
    for part in text.split(","):
        eid = part.strip().upper()
        if not eid:
            continue
        if eid not in REGISTRY:
            raise ValueError(f"unknown experiment id {part.strip()!r} "
                             f"(known: {', '.join(EXPERIMENT_IDS)})")
        if eid not in ids:
            ids.append(eid)
    if not ids:
        raise ValueError("--only lists no experiment")
    return ids


def unit_cost(params: dict, weight: float = 1.0) -> float:
    """Rough relative cost of a unit, for the overall time-left estimate (two GEMMs of size
    N x n x d per gradient: ~N^3; ``weight`` from the experiment's ``meta["cost"]``, e.g. the
    dense SVD of E10), rounded so that the bar's total is the exact sum of its updates."""
    n = float(params.get("N", 1000)) / 1000.0
    return round(weight * max(n, 0.05) ** 3, 3)


def reproduce(ids=None, scale: str = "small", jobs: int = 1, out=".", cache_dir=None,
              scheduler: str | None = None, progress: bool = True, stream=None) -> dict:
    """Run the experiments ``ids`` at ``scale``; write figures and data to ``out``.

    Returns {id: [paths written]}. The cache lives in ``cache_dir`` (default ``out/cache``).
    Progress bars go to ``stream`` (default stderr): one bar per experiment and an overall
    bar weighted by each unit's cost (~N^3) with the estimated time left.
    """
    from tqdm import tqdm

    from .cache import ResultCache

    _check_scale(scale)
    ids = parse_only(None) if ids is None else list(ids)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cache = ResultCache(Path(cache_dir) if cache_dir else out / "cache",
                        f"{__version__}+{code_fingerprint()}")
    stream = sys.stderr if stream is None else stream
    plans = {eid: plan_sweep(REGISTRY[eid], scale, cache) for eid in ids}
    # units shared by several experiments (same cache namespace) are counted once
    seen, total = set(), 0.0
    for eid in ids:
        exp, plan = REGISTRY[eid], plans[eid]
        for i in plan.pending:
            key = (exp.cache_name, json.dumps(plan.units[i][0], sort_keys=True), plan.units[i][1])
            if key not in seen:
                seen.add(key)
                total += unit_cost(plan.units[i][0], exp.meta.get("cost", 1.0))
    overall = tqdm(total=round(total, 3) or None, desc="all experiments", unit="cost", position=0,
                   file=stream, disable=not progress, dynamic_ncols=True,
                   bar_format="{l_bar}{bar}| {percentage:3.0f}% [{elapsed}<{remaining}]")
    written = {}
    try:
        for eid in ids:
            exp = REGISTRY[eid]
            plan = plan_sweep(exp, scale, cache) if eid != ids[0] else plans[eid]
            bar = tqdm(total=len(plan.units), initial=len(plan.hits), desc=f"{eid:>3}",
                       unit="run", position=1, leave=False, file=stream,
                       disable=not progress, dynamic_ncols=True)

            def tick(params, seed, bar=bar, weight=exp.meta.get("cost", 1.0)):
                bar.update(1)
                overall.update(min(unit_cost(params, weight), overall.total - overall.n))

            try:
                results = run_sweep(exp, scale, cache, jobs=jobs, scheduler=scheduler,
                                    progress=tick, plan=plan)
            finally:
                bar.close()
            written[eid] = exp.report(exp, scale, results, out)
            if progress:
                overall.write(f"{eid}: {len(plan.units)} runs ({len(plan.hits)} from the cache)"
                              f" -> {', '.join(p.name for p in written[eid])}", file=stream)
    finally:
        overall.close()
    return written


def check_output_dir(out) -> Path:
    """Create ``out`` if needed and check that it is writable (ValueError otherwise)."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ValueError(f"output directory {str(out)!r} is not writable "
                         f"({exc.strerror or exc})") from None
    return out
