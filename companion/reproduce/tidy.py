"""Tidy data of an experiment: ``<id>.csv`` (one row per run, or per run and grid value, with
every parameter and the seed as columns), the ``<id>.json`` sidecar (package version, scale,
date, sizes, every run's parameters) and the runs themselves as ``<id>.npz``
(:func:`companion.core.store.write`, read back by :func:`companion.core.store.load`)."""

from __future__ import annotations

import csv
import datetime as _dt
import json
import re
from pathlib import Path
from typing import Callable

import numpy as np

from companion import __version__
from companion.core.runs import Runs
from companion.core.store import write as write_runs


def _base(run) -> dict:
    row = {k: v for k, v in run.params.items() if not isinstance(v, (list, tuple))}
    row["seed"] = run.seed
    return row


def _flatten(row: dict, name: str, value) -> None:
    a = np.asarray(value)
    if a.ndim == 0:
        row[name] = a.item()
    else:
        row.update({f"{name}_{i}": v.item() for i, v in enumerate(a.reshape(-1))})


def rows_per_run(runs: Runs) -> list[dict]:
    """One row per run: parameters, seed, then every result (arrays as ``name_0, name_1``)."""
    rows = []
    for run in runs:
        row = _base(run)
        for name, value in run.result.items():
            _flatten(row, name, value)
        rows.append(row)
    return rows


def rows_along(key: str, index: str | None = None, start: int = 0
               ) -> Callable[[Runs], list[dict]]:
    """Rows per run and entry of the result array ``key`` (E1: the step sizes, E2: the
    exponents): arrays running along it become columns, the rest as in :func:`rows_per_run`.
    ``index``: the name of a column that numbers the entries from ``start`` (``"k"`` for the
    terms of W2 from k = 0, ``"rank"`` for singular values from 1)."""
    def rows(runs: Runs) -> list[dict]:
        out = []
        for run in runs:
            length = np.asarray(run.result[key]).size
            for j in range(length):
                row = _base(run)
                if index is not None:
                    row[index] = j + start
                for name, value in run.result.items():
                    a = np.asarray(value)
                    if a.shape == (length,):
                        row[name] = a[j].item()
                    else:
                        _flatten(row, name, a)
                out.append(row)
        return out
    return rows


def rows_by_suffix(index: str, start: int = 0) -> Callable[[Runs], list[dict]]:
    """Rows per run and entry of results stored one number a name, ``<name>_<j>`` (E3: the
    terms ``terms_0 .. terms_3``, E7: the top singular values ``s_0 ..``): one row per j, the
    entry in a column ``index`` (numbered from ``start``) and each ``<name>`` a column; the
    other results as in :func:`rows_per_run`."""
    numbered = re.compile(r"^(.+)_(\d+)$")

    def rows(runs: Runs) -> list[dict]:
        out = []
        for run in runs:
            entries: dict[int, dict] = {}
            rest = {}
            for name, value in run.result.items():
                m = numbered.match(name)
                if m and np.ndim(value) == 0:
                    entries.setdefault(int(m.group(2)), {})[m.group(1)] = np.asarray(value).item()
                else:
                    rest[name] = np.asarray(value)
            # an array with one slice per entry goes with its entry's row (E7's left
            # vectors); every other result is the run's
            arrays = {n: a for n, a in rest.items() if a.ndim >= 2 and a.shape[0] == len(entries)}
            base = _base(run)
            for name, value in rest.items():
                if name not in arrays:
                    _flatten(base, name, value)
            for j in sorted(entries):
                row = {**base, index: j + start, **entries[j]}
                for name, value in arrays.items():
                    _flatten(row, name, value[j])
                out.append(row)
        return out
    return rows


def spectrum_rows(runs: Runs) -> list[dict]:
    """E10: one row per singular value (of W2, of the null run's top, of W1's top, of W2's
    top with the weight of its left vector on the powers of a)."""
    rows = []
    for run in runs:
        base, res = _base(run), run.result
        for name, matrix in (("s", "W2"), ("s_null", "W2_null_top")):
            rows += [dict(base, matrix=matrix, index=i, singular_value=float(v))
                     for i, v in enumerate(np.asarray(res[name]))]
        rows += [dict(base, matrix="W1_top", index=i, singular_value=float(v))
                 for i, v in enumerate(np.asarray(res["s_W1"]))]
        rows += [dict(base, matrix="W2_top", index=i, singular_value=float(v),
                      left_on_powers_of_a=float(w))
                 for i, (v, w) in enumerate(zip(np.asarray(res["s_top"]),
                                                np.asarray(res["on_powers"])))]
    return rows


def readout_rows(runs: Runs) -> list[dict]:
    """E17: one row per run, batch, training size and weights (W0, W1, W2, the one-step
    reference): the parameters and seed, ``batch``, ``n_train_factor`` (n_train = factor x
    n), ``weights``, ``test_error`` (the ridge readout's test error relative to the test
    labels' variance) and ``test_error_<link>`` for each link of the target (the error on
    that link's part of the labels)."""
    rows = []
    for run in runs:
        base = _base(run)
        links = str(run.params["target"]).split("+")
        for key, value in run.result.items():
            if key.endswith("_parts"):
                continue
            batch, factor, weights = key.split("_", 2)
            row = dict(base, batch=batch, n_train_factor=int(factor[1:]), weights=weights,
                       test_error=float(np.asarray(value)))
            parts = np.asarray(run.result[key + "_parts"], float).reshape(-1)
            row.update({f"test_error_{link}": float(v) for link, v in zip(links, parts)})
            rows.append(row)
    return rows


def _fmt(v):
    if isinstance(v, float):
        return repr(round(v, 6)) if np.isfinite(v) else str(v)
    return v


def write_csv(out: Path, eid: str, rows: list[dict]) -> tuple[Path, list[str]]:
    """``<eid>.csv`` of ``rows`` (floats to 6 decimals), its columns in order of appearance."""
    columns: list[str] = []
    for r in rows:
        columns += [k for k in r if k not in columns]
    path = out / f"{eid}.csv"
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow({k: _fmt(v) for k, v in r.items()})
    return path, columns


def write_tidy(out: Path, experiment, scale: str, runs: Runs, rows: list[dict],
               sidecar: dict | None = None) -> list[Path]:
    """Write ``<id>.csv`` (floats to 6 decimals), ``<id>.json`` and ``<id>.npz``."""
    csv_path, columns = write_csv(out, experiment.id, rows)
    json_path = out / f"{experiment.id}.json"
    meta = {"experiment": experiment.id, "title": experiment.title, "package": "companion",
            "version": __version__, "scale": scale,
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "units": len(runs), "rows": len(rows), "columns": columns,
            "sizes": experiment.sizes[scale],
            "parameters": [dict(r.params, seed=r.seed) for r in runs],
            "unit": f"{experiment.unit.__module__}.{experiment.unit.__name__}"}
    meta.update(sidecar or {})
    json_path.write_text(json.dumps(meta, indent=1, default=str) + "\n")
    npz = write_runs(out, experiment.id, runs, {"experiment": experiment.id,
                                                "version": __version__, "scale": scale})
    return [csv_path, json_path, npz]
