"""Runs of one seed share their draws and first step (companion.core.network.SharedDraws,
passed as ``shared=``): the same numbers, bit for bit, as each run computed alone
(book: dv-two-steps)."""

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


def _run(seed, kw, shared=None):
    return cp.run_two_steps(**{"N": 32, "d": 20, "n": 28, "seed": seed, **kw}, shared=shared)


def _same(r, s):
    for f in FIELDS:
        x, y = getattr(r, f), getattr(s, f)
        assert (x is None) == (y is None), f
        if x is not None:
            assert x.dtype == y.dtype and np.array_equal(x, y), f
    assert np.array_equal(r.target.directions, s.target.directions)


def test_shared_runs_are_the_runs_computed_alone():
    alone = {(seed, i): _run(seed, kw) for seed in (0, 1) for i, kw in enumerate(RUNS)}
    kept = net.SharedDraws()
    # both seeds in turn: a group is dropped and drawn again
    shared = {(seed, i): _run(seed, kw, kept) for i, kw in enumerate(RUNS) for seed in (0, 1)}
    shared.update({(seed, i): _run(seed, kw, kept) for seed in (0, 1)
                   for i, kw in enumerate(RUNS)})
    for key, run in alone.items():
        _same(run, shared[key])


def test_the_one_step_reference_takes_the_shared_first_step():
    # W0 + (eta1 + eta2) G(W0) from the kept G1: the numbers descent_direction computes,
    # without its products
    alone = [_run(0, kw) for kw in RUNS]
    kept = net.SharedDraws()
    shared = [_run(0, kw, kept) for kw in RUNS]
    for kw, a, s in zip(RUNS, alone, shared):
        assert a.G1 is None
        assert (s.G1 is None) == bool(kw.get("null_labels")
                                      or isinstance(kw.get("target"), list))
        ref = s.one_step_reference()
        assert ref.dtype == a.W0.dtype and np.array_equal(ref, a.one_step_reference()), kw


def test_what_is_kept_is_read_only_and_only_the_last_group():
    kept = net.SharedDraws()
    first = _run(0, {}, kept)
    again = _run(0, dict(alpha1=0.1), kept)
    assert again.W0 is first.W0 and again.X1 is first.X1             # drawn once
    he3 = _run(0, dict(target="he3"), kept)
    assert he3.X1 is first.X1 and not np.array_equal(he3.y1, first.y1)  # inputs only
    assert _run(0, dict(noise=0.5), kept).X1 is not first.X1  # noise follows X in its stream
    with pytest.raises(ValueError, match="read-only"):
        first.W0[0, 0] = 1.0
    assert first.W1.flags.writeable                        # what a run computes is its own
    _run(1, {}, kept)
    assert kept.group[3] == 1 and all(first.W0 is not v for v in kept.kept.values())
    assert _run(0, {}).W0.flags.writeable                  # without it: nothing kept


def test_a_null_run_keeps_no_batch_nor_gradient():
    # the null labels of both batches come from one stream: a kept first batch would leave
    # the second batch's labels drawn from the stream's start
    kept = net.SharedDraws()
    _run(0, dict(null_labels=True), kept)
    fresh = _run(0, dict(null_labels=True, batch="fresh"), kept)
    _same(_run(0, dict(null_labels=True, batch="fresh")), fresh)
    assert not np.array_equal(fresh.y1, fresh.y2)


def test_run_units_lends_one_kept_set_to_the_units_that_take_it():
    from companion.core.experiment import run_units

    seen = []

    def unit(N, seed, shared=None):
        seen.append(shared)
        return {"s": cp.run_two_steps(N=N, seed=seed, shared=shared).W2[0, 0]}

    def alone(N, seed):
        return {"s": cp.run_two_steps(N=N, seed=seed).W2[0, 0]}

    units = [(dict(N=24), 0), (dict(N=16), 1), (dict(N=24), 1)]
    shared, plain = run_units(unit, units), run_units(alone, units)
    assert len({id(k) for k in seen}) == 1 and isinstance(seen[0], net.SharedDraws)
    assert [r["s"] for r in shared] == [r["s"] for r in plain]


def test_several_groups_are_kept_when_asked_for():
    """SharedDraws(groups=k) keeps the k groups asked for last (several experiments over the
    same sizes and seeds share them), with the same numbers as each run alone."""
    kept = net.SharedDraws(groups=2)
    first = _run(0, {}, kept)
    _run(1, {}, kept)
    assert _run(0, dict(alpha1=0.1), kept).W0 is first.W0         # both groups kept
    _run(2, {}, kept)                                               # seed 1 was asked last but one
    assert _run(0, {}, kept).W0 is first.W0
    assert _run(1, {}, kept).W0 is not None and len(kept._earlier) == 1
    for seed in (0, 1, 2):
        _same(_run(seed, {}), _run(seed, {}, kept))
    with pytest.raises(ValueError):
        net.SharedDraws(groups=0)


def test_the_first_step_is_kept_once_for_one_step_and_two_step_runs():
    from companion.chapters.one_step.experiments import draw_one_step

    kept = net.SharedDraws()
    run = _run(0, {}, kept)
    draw = draw_one_step(32, d=20, n=28, seed=0, shared=kept)
    assert draw.G is run.G1 and not draw.G.flags.writeable
    assert np.array_equal(draw.G, draw_one_step(32, d=20, n=28, seed=0).G)
    r = net.draw_run(32, 20, 28, seed=0)
    assert net.kept_first_step(r, 0, "he1", 0.0, "tanh", None) is None
