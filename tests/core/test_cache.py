"""The result cache (companion/core/cache.py): keys, versions, damaged entries."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.core.cache import ResultCache, cache_key
from companion.core.sweep import run_sweep

from _helpers import Counter, toy, values


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


# -- the code fingerprint in reproduce's cache keys: what the code does, not what it says ----
@pytest.fixture
def numerics_copy(tmp_path):
    """A copy of the package's modules (the fingerprinted ones among them)."""
    import shutil

    from companion.reproduce import catalog

    src = Path(catalog.__file__).resolve().parents[1]
    copy = tmp_path / "companion"
    shutil.copytree(src, copy, ignore=shutil.ignore_patterns("data", "__pycache__"))
    return copy


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_fingerprint_of_a_copy_is_the_package_s(numerics_copy):
    from companion.reproduce import code_fingerprint

    assert code_fingerprint(numerics_copy) == code_fingerprint()


@pytest.mark.parametrize("edit", ["comment", "docstring", "module docstring", "blank lines",
                                  "re-wrapped call"])
def test_comment_or_docstring_change_keeps_the_key(numerics_copy, edit):
    """Fixing a typo in a comment or docstring must not discard hours of stored runs."""
    from companion.reproduce import code_fingerprint

    before = code_fingerprint(numerics_copy)
    network = numerics_copy / "core" / "network.py"
    if edit == "comment":
        _edit(network, "\ndef descent_direction(",
              "\n# a new comment, and a typo fixd\ndef descent_direction(")
    elif edit == "docstring":
        _edit(network, '"""eta = c N^alpha', '"""The step size eta = c N^alpha')
    elif edit == "module docstring":
        network.write_text('"""Another first line."""\n' + network.read_text().split('"""', 2)[2])
    elif edit == "blank lines":
        _edit(network, "\ndef descent_direction(", "\n\n\n\ndef descent_direction(")
    else:
        _edit(network, "eta1, eta2 = _step_size(N, alpha1, c1), _step_size(N, alpha2, c2)",
              "eta1, eta2 = (_step_size(N, alpha1, c1),\n                  "
              "_step_size(N, alpha2, c2))")
    assert code_fingerprint(numerics_copy) == before


@pytest.mark.parametrize("edit", ["constant", "operator", "default", "new statement"])
def test_change_of_behaviour_changes_the_key(numerics_copy, edit):
    from companion.reproduce import code_fingerprint

    before = code_fingerprint(numerics_copy)
    network, spikes = numerics_copy / "core" / "network.py", numerics_copy / "core" / "spikes.py"
    if edit == "constant":
        _edit(spikes, "MARGIN = 0.02", "MARGIN = 0.03")
    elif edit == "operator":
        _edit(network, "step_size(N, alpha2, c2)", "step_size(N, alpha2, 2 * c2)")
    elif edit == "default":
        _edit(network, "c1: float = 1.0", "c1: float = 1.5")
    else:
        _edit(spikes, "    out = np.empty(len(R))", "    R = R * 1.0\n    out = np.empty(len(R))")
    assert code_fingerprint(numerics_copy) != before


def test_a_module_the_unit_starts_importing_changes_its_key(numerics_copy):
    """The key reads the modules a unit's module imports (directly or through others): a new
    module imported by the unit's chapter joins the key, another chapter's does not."""
    from companion.reproduce import CATALOG
    from companion.reproduce.catalog import experiment_fingerprint, experiment_modules

    e14, e3 = CATALOG["E14"].experiment, CATALOG["E3"].experiment
    before = {id(e): experiment_fingerprint(e, numerics_copy) for e in (e14, e3)}
    helper = numerics_copy / "core" / "new_helper.py"
    helper.write_text("SCALE = 2.0\n")
    transects = numerics_copy / "chapters" / "learned_directions" / "transects.py"
    _edit(transects, "from __future__ import annotations\n",
          "from __future__ import annotations\n\nfrom companion.core.new_helper import SCALE\n")
    assert "core/new_helper" in experiment_modules(e14, numerics_copy)
    assert experiment_fingerprint(e14, numerics_copy) != before[id(e14)]
    assert experiment_fingerprint(e3, numerics_copy) == before[id(e3)]
    helper.write_text("SCALE = 3.0\n")                       # its code, too, is in the key
    assert len({experiment_fingerprint(e14, numerics_copy), before[id(e14)]}) == 2


def test_docstring_only_function_keeps_a_body():
    """A function whose body is its docstring still dumps (its body becomes empty)."""
    from companion.reproduce.catalog import code_behaviour

    assert (code_behaviour('def f():\n    """Doc."""\n')
            == code_behaviour('def f():\n    """Other."""\n'))
    assert code_behaviour("x = 1  # one\n") == code_behaviour("x = 1\n")
    assert code_behaviour("x = 1\n") != code_behaviour("x = 2\n")
