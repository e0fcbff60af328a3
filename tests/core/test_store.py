"""The stored paper-scale runs (companion/core/store.py): the switch, and a write-read round trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.core import store
from companion.core.runs import Run, Runs

ROOT = Path(__file__).resolve().parents[2]


def test_the_paper_data_switch(tmp_path, monkeypatch):
    # COMPANION_PAPER_DATA: unset -> the copy shipped in the package; a folder -> that folder;
    # off -> no stored runs (the chapters then say so and skip them)
    monkeypatch.delenv(store.DATA_ENV, raising=False)
    shipped = ROOT / "companion" / "data" / "paper"
    assert store.data_dir() == shipped
    assert store.load("E7") is not None and len(store.load("E7")) > 0
    monkeypatch.setenv(store.DATA_ENV, "off")
    assert store.data_dir() is None
    assert store.load("E7") is None and store.meta("E7") is None and store.sidecar("E7") is None
    import shutil
    for ext in ("npz", "json"):
        shutil.copy(shipped / f"E7.{ext}", tmp_path / f"E7.{ext}")
    monkeypatch.setenv(store.DATA_ENV, str(tmp_path))
    assert len(store.load("E7")) == len(store.load("E7", shipped))
    assert store.sidecar("E7")["experiment"] == "E7"
    assert store.load("E3") is None                   # not in that folder


def test_write_then_load_gives_the_same_runs(tmp_path):
    runs = Runs([Run({"N": 10, "batch": "reused", "etas": [0.5, 1.0]}, 3,
                     {"s": np.arange(4.0), "count": np.int64(2)}),
                 Run({"N": 20, "batch": "fresh", "etas": [0.5, 1.0]}, 0,
                     {"s": np.ones(4), "count": np.int64(1)})])
    path = store.write(tmp_path, "E99", runs, {"experiment": "E99", "scale": "small"})
    assert path.name == "E99.npz" and not list(tmp_path.glob(".E99*"))
    back = store.load("E99", tmp_path)
    assert len(back) == 2 and back[0].params == runs[0].params and back[1].seed == 0
    np.testing.assert_array_equal(back.values("s"), runs.values("s"))
    assert back.where(batch="fresh")[0]["count"] == 1
    assert store.meta("E99", tmp_path) == {"experiment": "E99", "scale": "small"}


def _identical(a: np.ndarray, b: np.ndarray) -> bool:
    """Same type, dtype, shape and bytes (so NaN payloads and -0.0 too)."""
    return (type(a) is type(b) is np.ndarray and a.dtype.str == b.dtype.str
            and a.shape == b.shape and a.tobytes() == b.tobytes())


def test_every_kind_of_value_comes_back_exactly(tmp_path):
    # the kinds the experiments store, and the awkward ones: one result in float32 for some
    # runs and float64 for others (E11's weight), shapes that differ between runs, a result
    # some runs lack (E3's reference runs), another order of the names, 0-d arrays, booleans,
    # integers, strings, NaN (with a payload) and -0.0; parameters with None, NaN, bools,
    # ints beside floats and nested lists
    payload_nan = np.array([0x7FF8000000000123], dtype=np.uint64).view(np.float64)
    runs = Runs([
        Run({"N": 512, "alpha": 0.5, "ref": True, "none": None, "nan": float("nan"),
             "etas": [[0.5, 1], ["a", None]]}, 0,
            {"w": np.arange(3, dtype=np.float32), "s": np.array([1.0, np.nan, -0.0]),
             "count": np.int64(2), "flag": np.array([True, False]), "name": np.array("gelu"),
             "nan": payload_nan.reshape(()), "cos2": np.ones((2, 3))}),
        Run({"N": 1024, "alpha": 1, "ref": False}, 1,
            {"count": np.int32(3), "s": np.array([2.0, 3.0]), "w": np.arange(3.0),
             "name": np.array("tanh(z + 1/2)"), "cos2": np.zeros((2, 3))}),
        Run({"N": 2048}, 2, {}),
    ])
    store.write(tmp_path, "E98", runs, {"experiment": "E98"})
    back = store.load("E98", tmp_path)
    assert len(back) == len(runs)
    for r, b in zip(runs, back):
        assert list(b.params) == list(r.params) and b.seed == r.seed
        assert list(b.result) == list(r.result)
        for key, value in r.result.items():
            assert _identical(b.result[key], np.asarray(value)), key
    p = back[0].params
    assert p["none"] is None and np.isnan(p["nan"]) and p["etas"] == [[0.5, 1], ["a", None]]
    assert type(p["N"]) is int and type(p["alpha"]) is float and type(back[1].params["alpha"]) is int
    assert p["ref"] is True
    assert store.load("E97", tmp_path) is None
    store.write(tmp_path, "E97", Runs(), {})
    assert len(store.load("E97", tmp_path)) == 0


def test_the_store_refuses_python_objects_and_the_old_layout(tmp_path):
    with pytest.raises(TypeError, match="Python objects"):
        store.write(tmp_path, "E96", Runs([Run({}, 0, {"x": np.array([None, 1])})]), {})
    # the layout before the columnar one: one member per run and result
    np.savez_compressed(tmp_path / "E95.npz", units=np.array("[]"), meta=np.array("{}"))
    with pytest.raises(ValueError, match="columnar"):
        store.load("E95", tmp_path)


def test_the_shipped_runs_are_stored_column_by_column():
    # one array per result name (and dtype), not one per run and number: the whole point
    shipped = ROOT / "companion" / "data" / "paper"
    for path in sorted(shipped.glob("E*.npz")):
        runs = store.load(path.stem, shipped)
        names = {k for r in runs for k in r.result}
        with np.load(path) as z:
            assert len(z.files) <= 2 + 2 * len(names), (path.name, len(z.files))
