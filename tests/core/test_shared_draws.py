"""Runs of one seed share their draws and first gradient (companion.core.network.SharedDraws):
the same numbers, bit for bit, as each run computed alone (book: dv-two-steps)."""

import numpy as np
import pytest

import companion as cp
import companion.core.network as net
from companion.core.targets import make_link

RUNS = [dict(alpha1=0.35, alpha2=0.45), dict(alpha1=0.2, alpha2=0.45),
        dict(alpha1=0.35, alpha2=0.45, batch="fresh"), dict(alpha1=0.3, alpha2=0.1, c1=2.0),
        dict(activation="shifted_tanh"), dict(activation="shifted_tanh", batch="fresh"),
        dict(target="he3"), dict(target="he3", batch="fresh"), dict(target=["he1", "he3"]),
        dict(target=make_link(np.tanh)), dict(null_labels=True),
        dict(null_labels=True, batch="fresh"), dict(noise=0.5), dict(dtype=np.float32),
        dict(dtype=np.float32, batch="fresh"), dict(N=24), dict(N=24, batch="fresh")]
FIELDS = ("W0", "a", "W1", "W2", "X1", "y1", "X2", "y2")


def _run(seed, kw):
    return cp.run_two_steps(**{"N": 32, "d": 20, "n": 28, "seed": seed, **kw})


def _same(r, s):
    for f in FIELDS:
        x, y = getattr(r, f), getattr(s, f)
        assert (x is None) == (y is None), f
        if x is not None:
            assert x.dtype == y.dtype and np.array_equal(x, y), f
    assert np.array_equal(r.target.directions, s.target.directions)


def test_shared_runs_are_the_runs_computed_alone():
    alone = {(seed, i): _run(seed, kw) for seed in (0, 1) for i, kw in enumerate(RUNS)}
    with net.sharing_draws():
        # both seeds in turn: a group is dropped and drawn again
        shared = {(seed, i): _run(seed, kw) for i, kw in enumerate(RUNS) for seed in (0, 1)}
        shared.update({(seed, i): _run(seed, kw) for seed in (0, 1)
                       for i, kw in enumerate(RUNS)})
    for key, run in alone.items():
        _same(run, shared[key])


def test_the_one_step_reference_takes_the_shared_first_gradient():
    # W0 + (eta1 + eta2) G(W0) from the kept first gradient: the numbers blocked_gradient
    # computes, without its products
    alone = [_run(0, kw) for kw in RUNS]
    with net.sharing_draws():
        shared = [_run(0, kw) for kw in RUNS]
    for kw, a, s in zip(RUNS, alone, shared):
        assert a.first_direction is None
        assert (s.first_direction is None) == bool(kw.get("null_labels")
                                                   or isinstance(kw.get("target"), list))
        ref = s.one_step_reference()
        assert ref.dtype == a.W0.dtype and np.array_equal(ref, a.one_step_reference()), kw


def test_what_is_kept_is_read_only_and_only_the_last_group():
    with net.sharing_draws():
        first = _run(0, {})
        again = _run(0, dict(alpha1=0.1))
        assert again.W0 is first.W0 and again.X1 is first.X1         # drawn once
        he3 = _run(0, dict(target="he3"))
        assert he3.X1 is first.X1 and not np.array_equal(he3.y1, first.y1)  # inputs only
        assert _run(0, dict(noise=0.5)).X1 is not first.X1   # noise follows X in its stream
        with pytest.raises(ValueError, match="read-only"):
            first.W0[0, 0] = 1.0
        assert first.W1.flags.writeable                    # what a run computes is its own
        _run(1, {})
        kept = net._SHARED.get()
        assert kept.group[3] == 1 and all(first.W0 is not v for v in kept.kept.values())
    assert net._SHARED.get() is None
    assert _run(0, {}).W0.flags.writeable                  # outside the block: nothing kept


def test_a_null_run_keeps_no_batch_nor_gradient():
    # the null labels of both batches come from one stream: a kept first batch would leave
    # the second batch's labels drawn from the stream's start
    with net.sharing_draws():
        _run(0, dict(null_labels=True))
        fresh = _run(0, dict(null_labels=True, batch="fresh"))
    _same(_run(0, dict(null_labels=True, batch="fresh")), fresh)
    assert not np.array_equal(fresh.y1, fresh.y2)
