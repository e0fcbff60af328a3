"""The stored paper-scale runs (companion/core/store.py): the switch, and a write-read round trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np

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
