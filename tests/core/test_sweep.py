"""The sweep runner (companion/core/sweep.py): units computed once, cached, resumed after an
interruption, and the same in parallel (joblib) and on a Dask cluster. Tiny sizes."""

from __future__ import annotations

import numpy as np
import pytest

from companion.chapters.reuse_vs_fresh import experiments as rv
from companion.core.cache import ResultCache
from companion.core.experiment import Experiment
from companion.core.sweep import run_sweep

from _helpers import Counter, toy, values


def test_cache_hit_second_run_computes_nothing(tmp_path):
    cache = ResultCache(tmp_path, "1.0")
    first = Counter()
    r1 = run_sweep(toy(first), "small", cache)
    assert first.calls == 6
    second = Counter()
    r2 = run_sweep(toy(second), "small", cache)
    assert second.calls == 0
    assert values(r1) == values(r2)
    assert str(r2[0]["label"]) == "p0" and r2[1]["vec"].tolist() == [0, 1, 2]


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


# -- parallel paths: a real chapter compute function at a tiny size -------------------------
def tiny_e7():
    return Experiment(id="E7-tiny", title="tiny", unit=rv.projection_unit, sizes={"small": {}},
                      grid=lambda z: [(rv._proj({}, 60, b, 0.35, 0.45), s)
                                           for b in ("reused", "fresh") for s in (0, 1)])


def test_joblib_two_jobs_matches_serial(tmp_path):
    serial = run_sweep(tiny_e7(), "small", ResultCache(tmp_path / "a", "1"), jobs=1)
    parallel = run_sweep(tiny_e7(), "small", ResultCache(tmp_path / "b", "1"), jobs=2)
    assert [r.params for r in serial] == [r.params for r in parallel]       # order of the units
    np.testing.assert_allclose([float(r["projection"]) for r in parallel],
                               [float(r["projection"]) for r in serial], rtol=1e-8)
    assert len(list((tmp_path / "b" / "E7-tiny").glob("*.npz"))) == 4


@pytest.mark.parametrize("threads", [1, 2])
def test_dask_local_cluster(tmp_path, threads):
    """threads=1: the configuration of the issue (runs submitted to the cluster directly, as
    joblib would run a one-thread cluster's work in this process); threads=2: joblib's dask
    backend."""
    distributed = pytest.importorskip("distributed")
    # dashboard on a free port: None means 8787, which the other parameter's cluster on the
    # other xdist worker may hold ("Port 8787 is already in use", an error under -W error)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=threads, processes=True,
                                  host="127.0.0.1", dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client, \
                distributed.get_task_stream(client=client) as stream:
            res = run_sweep(tiny_e7(), "small", ResultCache(tmp_path / "d", "1"), jobs=1,
                            scheduler=cluster.scheduler_address)
    assert len(stream.data) >= 1                                # the runs went to the cluster
    serial = run_sweep(tiny_e7(), "small", ResultCache(tmp_path / "s", "1"))
    np.testing.assert_allclose([float(r["projection"]) for r in res],
                               [float(r["projection"]) for r in serial], rtol=1e-8)
    assert len(list((tmp_path / "d" / "E7-tiny").glob("*.npz"))) == 4


def test_run_only_the_units_with_given_values():
    """``Experiment.run(..., only=...)`` computes the units with those parameter values and
    no other (a chapter that shows one point of an experiment computes only that point)."""
    some = rv.HEADLINE.run(Ns=[32], seeds=1, only=dict(alpha1=0.35))
    assert len(some) == 2 and {r.params["batch"] for r in some} == {"reused", "fresh"}
    assert all(r.params["alpha1"] == 0.35 for r in some)
    every = rv.HEADLINE.run(Ns=[32], seeds=1)
    same = every.where(alpha1=0.35, batch="reused")[0]
    assert float(some.where(batch="reused")[0]["projection"]) == float(same["projection"])
    with pytest.raises(ValueError, match="alpha1"):
        rv.HEADLINE.run(Ns=[32], seeds=1, only=dict(alpha1=0.99))
