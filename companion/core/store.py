"""The stored paper-scale runs: the one reader, and the switch (book: reg-experiments).

``python -m companion reproduce --scale paper`` writes, per experiment, ``<id>.npz`` (every
run: parameters, seed and result arrays, stored column by column: :func:`write`), a tidy
``<id>.csv`` and a ``<id>.json`` sidecar. The committed copies ship inside the package
(``companion/data/paper``) and are found through :mod:`importlib.resources`, so an editable
install, a regular ``pip install``, Binder and Colab all read the same files. The chapters
draw them without recomputing.

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


#: the layout written by :func:`write` (the ``format`` entry of the ``columns`` header)
FORMAT = "columns-1"


def _read(eid: str, root) -> tuple[Runs, dict] | None:
    path = _path(eid, root)
    if path is None:
        return None
    with np.load(path, allow_pickle=False) as z:
        if "columns" not in z.files:
            raise ValueError(f"{path} is not in the columnar layout of companion.core.store "
                             f"(written before it); write it again with "
                             f"`python -m companion reproduce --only {eid}`")
        head = json.loads(str(z["columns"]))
        if head.get("format") != FORMAT:
            raise ValueError(f"{path}: unknown layout {head.get('format')!r} (this reader "
                             f"knows {FORMAT!r})")
        units = head["units"]
        # every run's value of every result: row j of a column's array is its j-th run
        values: list[dict] = [{} for _ in units]
        for i, column in enumerate(head["results"]):
            for g, runs_of in enumerate(column["groups"]):
                block = z[f"c{i}.{g}"]
                for j, run in enumerate(range(len(units)) if runs_of is None else runs_of):
                    values[run][i] = block[j, ...]          # `...`: a 0-d array stays an array
        names = [c["key"] for c in head["results"]]
        orders = head["orders"]
        runs = [Run(u["params"], int(u["seed"]),
                    {names[i]: values[r][i] for i in orders[u["order"]]})
                for r, u in enumerate(units)]
        return Runs(runs), json.loads(str(z["meta"]))


def _columns(runs: Runs) -> tuple[dict, dict]:
    """The columnar layout of ``runs``: (the JSON header, {member name: array}).

    A column is one result name across the runs. Its values are stacked into one array per
    (dtype, shape) they have -- one array for nearly every column; E11's ``weight`` has two,
    float32 for the float32 units and float64 for the rest -- so every value keeps its exact
    dtype and shape and comes back bit for bit. The header lists, for each such array
    (member ``c<column>.<group>``), the runs it holds (``null``: all of them, in order), and
    for each run its parameters and seed and the order of its result names. The parameters
    stay JSON, run by run: a handful of values per run, where JSON keeps ints apart from
    floats, bools, strings, nested lists, None and NaN, which one array per parameter would
    not; the header is one member however many runs there are.
    """
    names: list[str] = []
    groups: dict[str, dict[tuple, list[int]]] = {}
    arrays: dict[str, dict[tuple, list[np.ndarray]]] = {}
    orders: list[list[int]] = []
    units = []
    for r, run in enumerate(runs):
        order = []
        for name, value in run.result.items():
            a = np.asarray(value)
            if a.dtype.hasobject:
                raise TypeError(f"result {name!r} of run {r} holds Python objects "
                                f"({a.dtype}); the store keeps numbers, booleans and strings")
            if name not in groups:
                names.append(name)
                groups[name], arrays[name] = {}, {}
            sig = (a.dtype.str, a.shape)
            groups[name].setdefault(sig, []).append(r)
            arrays[name].setdefault(sig, []).append(a)
            order.append(names.index(name))
        if order not in orders:
            orders.append(order)
        units.append({"params": run.params, "seed": int(run.seed),
                      "order": orders.index(order)})
    members, columns = {}, []
    for i, name in enumerate(names):
        column = {"key": name, "groups": []}
        for g, (sig, who) in enumerate(groups[name].items()):
            members[f"c{i}.{g}"] = np.stack(arrays[name][sig])
            column["groups"].append(None if who == list(range(len(units))) else who)
        columns.append(column)
    return {"format": FORMAT, "units": units, "orders": orders, "results": columns}, members


def write(out: Path, eid: str, runs: Runs, meta_record: dict) -> Path:
    """Write ``runs`` to ``<out>/<eid>.npz`` atomically, column by column (see
    :func:`_columns`: one array per result name and dtype, the parameters and seeds as JSON
    in ``columns``, and ``meta``); :func:`load` reads it back exactly."""
    out = Path(out)
    head, members = _columns(runs)
    path = out / f"{eid}.npz"
    tmp = out / f".{eid}.npz.tmp-{os.getpid()}.npz"
    np.savez_compressed(tmp, columns=np.array(json.dumps(head)),
                        meta=np.array(json.dumps(meta_record)), **members)
    os.replace(tmp, path)
    return path
