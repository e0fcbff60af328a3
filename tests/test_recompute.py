"""The stored paper-scale runs (companion/data/paper) are what the code computes: for every
experiment, its smallest stored unit (smallest N, seed 0) is recomputed and compared with
the stored numbers, and a changed stored number fails the comparison.

The stored runs come from ``python -m companion reproduce --scale paper`` on 2 cores; a unit
recomputed with another number of BLAS threads or other BLAS kernels sums in another order,
and singular vectors of close singular values (ARPACK, :func:`companion.top_singular`) move
with such last bits: the comparison allows RTOL and ATOL below, not bit for bit. Experiments
whose smallest stored unit has N >= 2048 take tens of seconds and are marked ``slow``. The
mark is read off the paper scale's grid in the code, so collecting these tests reads no
stored file; a test checks that no experiment left unmarked has a slow smallest stored unit.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from companion.core import store
from companion.core.runs import Run, Runs
from companion.reproduce import CATALOG, EXPERIMENT_IDS

#: agreement between a recomputed and a stored number (see the module docstring)
RTOL, ATOL = 2e-6, 1e-8
#: smallest stored N from which the recomputation is marked slow
SLOW_FROM = 2048


def _smallest(eid: str):
    runs = store.load(eid)
    return None if runs is None else min(runs, key=lambda r: (r.params.get("N", 0), r.seed))


def smallest_unit(eid: str):
    """The stored run of ``eid`` with the smallest N (then the smallest seed); the test is
    skipped when the stored runs are switched off (``COMPANION_PAPER_DATA=off``)."""
    run = _smallest(eid)
    if run is None:
        pytest.skip(f"no stored runs of {eid} (COMPANION_PAPER_DATA)")
    return run


@functools.cache
def recomputed(eid: str) -> dict:
    run = smallest_unit(eid)
    return CATALOG[eid].experiment.unit(**run.params, seed=run.seed)


def mismatches(stored: dict, fresh: dict) -> list[str]:
    """Every stored result that the fresh one does not reproduce, as readable lines."""
    bad = []
    for key, value in stored.items():
        if key not in fresh:
            bad.append(f"{key}: not computed any more")
            continue
        a, b = np.asarray(value), np.asarray(fresh[key])
        if a.shape != b.shape:
            bad.append(f"{key}: shape {a.shape} stored, {b.shape} recomputed")
        elif a.dtype.kind in "biuf" and b.dtype.kind in "biuf":
            a, b = a.astype(float), b.astype(float)
            close = np.isclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)
            if not close.all():
                i = np.flatnonzero(~close.ravel())[0]
                bad.append(f"{key}: stored {a.ravel()[i]!r}, recomputed {b.ravel()[i]!r}")
        elif not np.array_equal(a, b):
            bad.append(f"{key}: stored {a!r}, recomputed {b!r}")
    return bad


def _paper_smallest_N(eid: str) -> int:
    """The smallest N of the paper scale's grid of ``eid``: what ``reproduce --scale paper``
    computes, and so the smallest stored unit; from the code, without reading a file."""
    return min(params.get("N", 0) for params, _ in CATALOG[eid].experiment.units("paper"))


def _slow(eid: str) -> bool:
    return _paper_smallest_N(eid) >= SLOW_FROM


@pytest.mark.parametrize("eid", [pytest.param(e, marks=pytest.mark.slow) if _slow(e) else e
                                 for e in EXPERIMENT_IDS])
def test_smallest_stored_unit_recomputes(eid):
    """The code of today computes the numbers stored for the book (to RTOL and ATOL)."""
    run = smallest_unit(eid)
    bad = mismatches(run.result, recomputed(eid))
    assert not bad, f"{eid} {run.params} seed {run.seed}: {bad[:5]}"


def test_the_slow_marks_hold_for_the_stored_runs():
    """The marks come from the paper grid; no experiment left in the quick loop has a
    smallest stored unit of a slow size (stored runs of a smaller scale only run quicker)."""
    for eid in EXPERIMENT_IDS:
        N = smallest_unit(eid).params.get("N", 0)
        assert _slow(eid) or N < SLOW_FROM, (eid, N)


def test_every_experiment_has_a_quick_recomputation():
    """Most experiments are guarded in the quick loop, not only in the slow tests."""
    quick = [e for e in EXPERIMENT_IDS if not _slow(e)]
    assert {"E2", "E3", "E4", "E5", "E7", "E11"} <= set(quick)


@pytest.mark.parametrize("change", ["relative 1e-4", "sign", "integer"])
def test_a_changed_stored_number_fails(tmp_path, change):
    """A copy of the stored runs with one number changed no longer matches the recomputation."""
    eid = "E11"
    target = smallest_unit(eid)
    key = {"relative 1e-4": "strength_k1", "sign": "term_k2", "integer": "n_outliers"}[change]
    value = np.array(target.result[key], copy=True)
    if change == "integer":
        value = value + 1
    elif change == "sign":
        value.ravel()[0] = -value.ravel()[0]
    else:
        value.ravel()[0] *= 1 + 1e-4
    copy = Run(target.params, target.seed, {**target.result, key: value})
    store.write(tmp_path, eid, Runs([copy]), store.meta(eid, store.data_dir()))
    [changed] = store.load(eid, tmp_path)
    assert mismatches(target.result, recomputed(eid)) == []
    bad = mismatches(changed.result, recomputed(eid))
    assert len(bad) == 1 and bad[0].startswith(f"{key}:")
