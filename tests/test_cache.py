"""The result cache (companion/cache.py): keys, versions, damaged entries."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.cache import ResultCache, cache_key
from companion.experiments import Experiment
from companion.sweep import run_sweep


# -- a toy experiment whose compute calls are counted (in-process, jobs=1) -------------------
class Counter:
    def __init__(self, fail_after: int | None = None):
        self.calls = 0
        self.fail_after = fail_after

    def __call__(self, x, name, seed):
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt("simulated interruption")
        self.calls += 1
        rng = np.random.default_rng(seed)
        return {"value": x * 10 + seed + rng.random(), "vec": np.arange(3) * seed,
                "label": name}


def toy(unit, n_points=3, n_seeds=2):
    return Experiment(id="T", title="toy", unit=unit, sizes={"small": {}},
                      grid=lambda z: [({"x": x, "name": f"p{x}"}, s)
                                           for x in range(n_points) for s in range(n_seeds)])


def values(runs):
    return [float(r["value"]) for r in runs]


@pytest.mark.parametrize("damage", ["truncate", "garble", "empty", "swap"])
def test_corrupted_entry_is_recomputed(tmp_path, damage):
    cache = ResultCache(tmp_path, "1.0")
    reference = values(run_sweep(toy(Counter()), "small", cache))
    target = cache.path("T", {"x": 1, "name": "p1"}, 0)
    data = target.read_bytes()
    if damage == "truncate":
        target.write_bytes(data[: len(data) // 2])
    elif damage == "garble":
        middle = len(data) // 2
        target.write_bytes(data[:middle] + bytes(b ^ 0xFF for b in data[middle:middle + 64])
                           + data[middle + 64:])
    elif damage == "empty":
        target.write_bytes(b"")
    else:   # a valid entry of another unit under this unit's name: metadata do not match
        target.write_bytes(cache.path("T", {"x": 2, "name": "p2"}, 1).read_bytes())
    assert cache.load("T", {"x": 1, "name": "p1"}, 0) is None
    again = Counter()
    assert values(run_sweep(toy(again), "small", cache)) == reference
    assert again.calls == 1
    assert cache.load("T", {"x": 1, "name": "p1"}, 0) is not None   # rewritten, valid


def test_version_is_in_the_key(tmp_path):
    params = {"N": 100, "alpha1": 0.35}
    assert cache_key("E7", params, 0, "0.1.0") != cache_key("E7", params, 0, "0.1.1")
    assert cache_key("E7", params, 0, "0.1.0") != cache_key("E7", params, 1, "0.1.0")
    assert cache_key("E7", params, 0, "0.1.0") != cache_key("E7", {**params, "N": 101}, 0, "0.1.0")
    run_sweep(toy(Counter()), "small", ResultCache(tmp_path, "0.1.0"))
    newer = Counter()
    run_sweep(toy(newer), "small", ResultCache(tmp_path, "0.2.0"))
    assert newer.calls == 6                                     # a new version reuses nothing
    old = Counter()
    run_sweep(toy(old), "small", ResultCache(tmp_path, "0.1.0"))
    assert old.calls == 0


def test_cache_rejects_object_arrays(tmp_path):
    with pytest.raises(TypeError):
        ResultCache(tmp_path, "1").store("T", {}, 0, {"bad": np.array([{}, 1], dtype=object)})
