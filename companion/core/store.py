"""The stored paper-scale runs: the one reader, and the switch (book: reg-experiments).

``python -m companion reproduce --scale paper`` writes, per experiment, ``<id>.npz`` (every
run: parameters, seed and result arrays), a tidy ``<id>.csv`` and a ``<id>.json`` sidecar.
The committed copies ship inside the package (``companion/data/paper``) and are found
through :mod:`importlib.resources`, so an editable install, a regular ``pip install``,
Binder and Colab all read the same files. The chapters draw them without recomputing.

The switch is one environment variable, ``COMPANION_PAPER_DATA``:

* unset: the copy shipped with the package;
* a folder: that folder (e.g. a fresh ``reproduce --out`` folder);
* ``off`` (or ``none``, ``0``, ``no``): no stored runs; :func:`load` returns ``None`` and
  the chapters leave the paper-scale overlays out and say so.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import numpy as np

from companion.core.runs import Run, Runs

#: environment variable naming the folder of stored runs (the switch)
DATA_ENV = "COMPANION_PAPER_DATA"
_OFF = ("off", "none", "0", "no")


def data_dir() -> Path | None:
    """The folder of stored runs the chapters read (see the module docstring), or ``None``
    when switched off."""
    value = os.environ.get(DATA_ENV, "").strip()
    if value.lower() in _OFF:
        return None
    if value:
        return Path(value).expanduser()
    return Path(str(resources.files("companion") / "data" / "paper"))


def _path(eid: str, root) -> Path | None:
    base = Path(root) if root is not None else data_dir()
    if base is None:
        return None
    path = base / f"{eid}.npz"
    return path if path.is_file() else None


def load(eid: str, root=None) -> Runs | None:
    """The stored runs of experiment ``eid`` (``"E7"``) as :class:`~companion.core.runs.Runs`,
    read from ``<root>/<eid>.npz`` (default :func:`data_dir`); ``None`` when there is no
    such file or the stored runs are switched off."""
    stored = _read(eid, root)
    return None if stored is None else stored[0]


def meta(eid: str, root=None) -> dict | None:
    """The ``meta`` record (experiment, package version, scale) of a stored ``<eid>.npz``."""
    stored = _read(eid, root)
    return None if stored is None else stored[1]


def sidecar(eid: str, root=None) -> dict | None:
    """The JSON sidecar ``<eid>.json`` (sizes, date, parameters, and what the experiment
    calls its headline), or ``None``."""
    base = Path(root) if root is not None else data_dir()
    path = None if base is None else base / f"{eid}.json"
    return json.loads(path.read_text()) if path is not None and path.is_file() else None


def _read(eid: str, root) -> tuple[Runs, dict] | None:
    path = _path(eid, root)
    if path is None:
        return None
    with np.load(path, allow_pickle=False) as z:
        units = json.loads(str(z["units"]))
        runs = []
        for i, u in enumerate(units):
            prefix = f"u{i}."
            result = {k[len(prefix):]: z[k] for k in z.files if k.startswith(prefix)}
            runs.append(Run(u["params"], int(u["seed"]), result))
        return Runs(runs), json.loads(str(z["meta"]))


def write(out: Path, eid: str, runs: Runs, meta_record: dict) -> Path:
    """Write ``runs`` to ``<out>/<eid>.npz`` atomically (arrays named ``u<i>.<name>``, the
    parameters and seeds as JSON in ``units``, and ``meta``); :func:`load` reads it back."""
    out = Path(out)
    arrays = {f"u{i}.{name}": np.asarray(v) for i, r in enumerate(runs)
              for name, v in r.result.items()}
    units = [{"params": r.params, "seed": int(r.seed)} for r in runs]
    path = out / f"{eid}.npz"
    tmp = out / f".{eid}.npz.tmp-{os.getpid()}.npz"
    np.savez_compressed(tmp, units=np.array(json.dumps(units)),
                        meta=np.array(json.dumps(meta_record)), **arrays)
    os.replace(tmp, path)
    return path
