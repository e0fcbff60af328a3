"""The result cache (companion/cache.py): keys, versions, damaged entries."""

from __future__ import annotations

import numpy as np
import pytest

from companion.cache import ResultCache, cache_key
from companion.sweep import run_sweep

from _toy import Counter, toy, values


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
