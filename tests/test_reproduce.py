"""Tests of ``python -m companion reproduce``: the result cache, the sweep runner (joblib and
Dask), every experiment end to end at tiny sizes, the figure registry and the command line's
bad arguments. Tiny sizes: a few seconds each."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion import __version__
from companion import reproduce as rp
from companion.cache import ResultCache, cache_key
from companion.sweep import Experiment, run_sweep

ROOT = Path(__file__).resolve().parents[1]


# -- a toy experiment whose compute calls are counted (in-process, jobs=1) -------------------
class Counter:
    def __init__(self, fail_after: int | None = None):
        self.calls = 0
        self.fail_after = fail_after

    def __call__(self, params, seed):
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt("simulated interruption")
        self.calls += 1
        rng = np.random.default_rng(seed)
        return {"value": params["x"] * 10 + seed + rng.random(), "vec": np.arange(3) * seed,
                "label": params["name"]}


def toy(compute, n_points=3, n_seeds=2):
    return Experiment(id="T", title="toy", compute=compute,
                      units=lambda scale: [({"x": x, "name": f"p{x}"}, s)
                                           for x in range(n_points) for s in range(n_seeds)])


def values(results):
    return [float(r["value"]) for _, _, r in results]


def test_cache_hit_second_run_computes_nothing(tmp_path):
    cache = ResultCache(tmp_path, "1.0")
    first = Counter()
    r1 = run_sweep(toy(first), "small", cache)
    assert first.calls == 6
    second = Counter()
    r2 = run_sweep(toy(second), "small", cache)
    assert second.calls == 0
    assert values(r1) == values(r2)
    assert str(r2[0][2]["label"]) == "p0" and r2[1][2]["vec"].tolist() == [0, 1, 2]


def test_resume_after_interruption(tmp_path):
    cache = ResultCache(tmp_path, "1.0")
    with pytest.raises(KeyboardInterrupt):
        run_sweep(toy(Counter(fail_after=4)), "small", cache)
    assert len(list((tmp_path / "T").glob("*.npz"))) == 4      # finished units were stored
    assert not list((tmp_path / "T").glob(".tmp-*"))            # no half-written file left
    rest = Counter()
    resumed = run_sweep(toy(rest), "small", cache)
    assert rest.calls == 2                                      # only the two missing units
    fresh = run_sweep(toy(Counter()), "small", ResultCache(tmp_path / "other", "1.0"))
    assert values(resumed) == values(fresh)


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


def test_code_fingerprint_is_in_the_key(tmp_path, monkeypatch, tiny_sizes):
    # a change of the numerics' source (simulated) recomputes; an unchanged source does not
    fp = rp.code_fingerprint()
    assert len(fp) == 12 and fp == rp.code_fingerprint()
    rp.reproduce(["E10"], out=tmp_path, progress=False)
    import companion.sweep as sw
    calls = []
    real = sw._compute_unit
    monkeypatch.setattr(sw, "_compute_unit", lambda *a: calls.append(a) or real(*a))
    rp.reproduce(["E10"], out=tmp_path, progress=False)
    assert calls == []
    monkeypatch.setattr(rp, "code_fingerprint", lambda: "0" * 12)
    rp.reproduce(["E10"], out=tmp_path, progress=False)
    assert len(calls) == 1


# -- parallel paths: a real chapter compute function at a tiny size -------------------------
def tiny_e7():
    return Experiment(id="E7-tiny", title="tiny", compute=rp.compute_projection,
                      units=lambda scale: [(rp._proj(60, b, 0.35, 0.45), s)
                                           for b in ("reused", "fresh") for s in (0, 1)])


def test_joblib_two_jobs_matches_serial(tmp_path):
    serial = run_sweep(tiny_e7(), "small", ResultCache(tmp_path / "a", "1"), jobs=1)
    parallel = run_sweep(tiny_e7(), "small", ResultCache(tmp_path / "b", "1"), jobs=2)
    assert [p for p, _, _ in serial] == [p for p, _, _ in parallel]       # order of the units
    np.testing.assert_allclose([float(r["projection"]) for _, _, r in parallel],
                               [float(r["projection"]) for _, _, r in serial], rtol=1e-8)
    assert len(list((tmp_path / "b" / "E7-tiny").glob("*.npz"))) == 4


@pytest.mark.parametrize("threads", [1, 2])
def test_dask_local_cluster(tmp_path, threads):
    """threads=1: the configuration of the issue (runs submitted to the cluster directly, as
    joblib would run a one-thread cluster's work in this process); threads=2: joblib's dask
    backend."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=threads, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client, \
                distributed.get_task_stream(client=client) as stream:
            res = run_sweep(tiny_e7(), "small", ResultCache(tmp_path / "d", "1"), jobs=1,
                            scheduler=cluster.scheduler_address)
    assert len(stream.data) >= 1                                # the runs went to the cluster
    serial = run_sweep(tiny_e7(), "small", ResultCache(tmp_path / "s", "1"))
    np.testing.assert_allclose([float(r["projection"]) for _, _, r in res],
                               [float(r["projection"]) for _, _, r in serial], rtol=1e-8)
    assert len(list((tmp_path / "d" / "E7-tiny").glob("*.npz"))) == 4


# -- every experiment end to end, at tiny sizes ---------------------------------------------
TINY = {"E1": dict(N=60, seeds=2), "E2": dict(Ns=[40, 80], seeds=2),
        "E3": dict(Ns=[40, 80], seeds=1), "E6": dict(N=60, seeds=2),
        "E7": dict(Ns=[40, 80], seeds=2), "E8": dict(N=60, seeds=2),
        "E9": dict(N=60, seeds=2), "E10": dict(N=60, seeds=1),
        "E11": dict(Ns=[40, 80], seeds=1)}


@pytest.fixture
def tiny_sizes(monkeypatch):
    sizes = {k: {"small": v, "paper": v} for k, v in TINY.items()}
    sizes["E4"] = sizes["E5"] = sizes["E3"]
    monkeypatch.setattr(rp, "SIZES", sizes)


def test_every_experiment_writes_figure_and_tidy_data(tmp_path, tiny_sizes):
    import io
    err = io.StringIO()
    written = rp.reproduce(scale="small", out=tmp_path, stream=err)
    assert list(written) == rp.EXPERIMENT_IDS
    for eid in rp.EXPERIMENT_IDS:
        for ext in ("png", "pdf", "csv", "json"):
            assert (tmp_path / f"{eid}.{ext}").stat().st_size > 0, (eid, ext)
        meta = json.loads((tmp_path / f"{eid}.json").read_text())
        assert meta["version"] == __version__ and meta["scale"] == "small"
        header = (tmp_path / f"{eid}.csv").read_text().splitlines()[0].split(",")
        assert "seed" in header and "N" in header
    e7 = (tmp_path / "E7.csv").read_text().splitlines()
    assert len(e7) == 1 + 2 * 3 * 2 and "alpha1" in e7[0] and "batch" in e7[0]
    assert "all experiments" in err.getvalue()                  # the overall progress bar
    # shared namespaces: E4 and E5's reused runs are E3's; E8's He_3 and E9's tanh are E7's
    assert len(list((tmp_path / "cache" / "two_step_run").glob("*.npz"))) == 6 * 2 + 2 * 2
    # a rerun computes nothing
    calls = []
    import companion.sweep as sw
    real = sw._compute_unit
    sw._compute_unit = lambda *a: calls.append(a) or real(*a)
    try:
        rp.reproduce(["E7", "E10"], scale="small", out=tmp_path, progress=False)
    finally:
        sw._compute_unit = real
    assert calls == []
    # the stored runs redraw every figure without recomputing (the chapters' paper switch)
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure
    for eid in rp.EXPERIMENT_IDS:
        runs = rp.load_runs(eid, tmp_path)
        assert len(runs) == len(json.loads((tmp_path / f"{eid}.json").read_text())["parameters"])
        assert rp.stored_meta(eid, tmp_path) == {"experiment": eid, "version": __version__,
                                                 "scale": "small"}
        fig = rp.figure_from_data(eid, tmp_path)
        assert isinstance(fig, Figure) and fig.axes, eid
        plt.close(fig)
    params, seed, res = rp.load_runs("E7", tmp_path)[0]
    assert {"N", "alpha1", "alpha2", "batch"} <= set(params) and seed == 0
    assert 0.0 <= float(res["projection"]) <= 1.0
    assert rp.load_runs("E7", tmp_path / "nowhere") is None
    assert rp.figure_from_data("E3", tmp_path / "nowhere") is None


def test_the_paper_data_switch(tmp_path, monkeypatch):
    # COMPANION_PAPER_DATA: unset -> the repository's data/paper; a folder -> that folder;
    # off -> no stored runs (the chapters then say so and skip them)
    from companion.experiments import reuse_vs_fresh as rv
    monkeypatch.delenv(rp.DATA_ENV, raising=False)
    assert rp.default_data_dir() == ROOT / "data" / "paper"
    assert rp.load_runs("E7") is not None and rv.paper_scale_runs("E7") is not None
    monkeypatch.setenv(rp.DATA_ENV, "off")
    assert rp.default_data_dir() is None
    assert rp.load_runs("E7") is None and rv.paper_scale_runs("E7") is None
    assert rp.figure_from_data("E7") is None
    import matplotlib.pyplot as plt
    fig = rp.stored_figure("E7")                      # a placeholder that says so
    assert "no stored runs" in fig.axes[0].texts[0].get_text()
    plt.close(fig)
    import shutil
    for ext in ("npz", "csv"):
        shutil.copy(ROOT / "data" / "paper" / f"E7.{ext}", tmp_path / f"E7.{ext}")
    monkeypatch.setenv(rp.DATA_ENV, str(tmp_path))
    assert len(rp.load_runs("E7")) == len(rp.load_runs("E7", ROOT / "data" / "paper"))
    assert rp.load_runs("E3") is None                 # not in that folder
    assert len(rv.paper_scale_runs("E7")["N"]) == len(rp.load_runs("E7"))


# -- the registry ---------------------------------------------------------------------------
def test_registry_is_complete_and_every_entry_exists():
    from companion import registry
    claims = registry.CLAIMS
    assert len(claims) >= 9
    ids = set()
    for c in claims:
        nb = ROOT / c.chapter
        assert nb.exists(), c.chapter
        cells = json.loads(nb.read_text())["cells"]
        headings = {line.strip() for cell in cells if cell["cell_type"] == "markdown"
                    for line in "".join(cell["source"]).splitlines()}
        assert c.section in headings, (c.chapter, c.section)
        module, _, name = c.function.rpartition(".")
        assert callable(getattr(importlib.import_module(module), name)), c.function
        for eid in c.experiments:
            assert eid in rp.EXPERIMENT_IDS, eid
            ids.add(eid)
        path, _, func = c.test.partition("::")
        assert (ROOT / path).exists(), c.test
        assert f"def {func}(" in (ROOT / path).read_text(), c.test
        for data in c.data:
            assert data == registry.NOT_YET or (ROOT / data).exists(), data
    assert ids == set(rp.EXPERIMENT_IDS)                        # every experiment is mapped


def test_registry_page_is_generated_from_the_table():
    from companion import registry
    page = (ROOT / "book" / "registry.md").read_text()
    assert page == registry.render(), "run: python -m companion.registry > book/registry.md"
    toc = (ROOT / "_toc.yml").read_text()
    assert "book/registry" in toc


# -- the command line -----------------------------------------------------------------------
@pytest.mark.parametrize("args", [["--only", "E11"], ["--only", "E1,X"], ["--jobs", "0"],
                                  ["--jobs", "-3"], ["--jobs", "two"], ["--scale", "huge"],
                                  ["--out", "FILE/sub"]])
def test_bad_arguments_exit_2_with_one_line(tmp_path, args):
    blocker = tmp_path / "FILE"
    blocker.write_text("a file, not a directory")
    args = [a.replace("FILE", str(blocker)) for a in args]
    proc = subprocess.run([sys.executable, "-m", "companion", "reproduce", *args,
                           *([] if "--out" in args else ["--out", str(tmp_path / "o")])],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("companion: error:"), proc.stderr
    assert proc.stdout == ""
    assert not (tmp_path / "o" / "cache").exists()              # nothing was run


def test_cli_help_lists_reproduce():
    proc = subprocess.run([sys.executable, "-m", "companion", "reproduce", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    for opt in ("--scale", "--only", "--jobs", "--out", "--scheduler"):
        assert opt in proc.stdout
