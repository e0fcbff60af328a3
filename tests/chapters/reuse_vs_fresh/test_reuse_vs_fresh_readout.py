"""E17: what the learned directions buy in prediction, a ridge readout on sigma(W x)
(companion/chapters/reuse_vs_fresh/experiments.py readout_unit, summaries.readout,
figures.readout_errors_by_N)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion.chapters.reuse_vs_fresh import figures, summaries
from companion.chapters.reuse_vs_fresh.experiments import (
    READOUT,
    READOUT_ACTIVATION,
    readout_unit,
)
from companion.core.intervals import t_interval
from companion.core.network import run_two_steps
from companion.core.readout import WEIGHTS, readout_errors
from companion.core.runs import Run, Runs


def test_a_unit_reads_both_batches_with_the_same_first_step():
    out = readout_unit(64, 0.30, 0.45, "he1+he3", seed=3)
    for f in (1, 4):
        for w in WEIGHTS:
            for batch in ("reused", "fresh"):
                assert 0 < out[f"{batch}_n{f}_{w}"] < 2
                assert out[f"{batch}_n{f}_{w}_parts"].shape == (2,)
        # W0 and W1 (and the one-step reference) do not see the second batch: the unit fits
        # them once; fitted on the fresh run itself they come out the same
        own = readout_errors(run_two_steps(N=64, alpha1=0.30, alpha2=0.45, batch="fresh",
                                           activation=READOUT_ACTIVATION, target="he1+he3",
                                           seed=3), n_train=f * 64)
        for w in ("W0", "W1", "one_step_reference"):
            assert out[f"reused_n{f}_{w}"] == out[f"fresh_n{f}_{w}"] == own[w]["relative"]
    # more readout samples cannot make W0's ridge worse by much (same features)
    assert out["reused_n4_W0"] < out["reused_n1_W0"] + 0.05


def test_the_design_covers_three_targets_two_points_and_six_seeds():
    units = READOUT.units("paper")
    assert {u[0]["target"] for u in units} == {"he1", "he3", "he1+he3"}
    assert len({(u[0]["alpha1"], u[0]["alpha2"]) for u in units}) == 2
    assert len({u[1] for u in units}) >= 6


def _run(N, target, point, seed, w2r, w2f):
    res = {}
    for f in (1, 4):
        for batch, w2 in (("reused", w2r), ("fresh", w2f)):
            res.update({f"{batch}_n{f}_W0": 0.9, f"{batch}_n{f}_W1": 0.8 + 0.01 * seed,
                        f"{batch}_n{f}_W2": w2 + 0.01 * seed,
                        f"{batch}_n{f}_one_step_reference": 0.85,
                        f"{batch}_n{f}_W2_parts": np.array([0.5, w2]),
                        f"{batch}_n{f}_W1_parts": np.array([0.5, 0.9]),
                        f"{batch}_n{f}_W0_parts": np.array([0.6, 1.0]),
                        f"{batch}_n{f}_one_step_reference_parts": np.array([0.5, 0.9])})
    return Run(dict(N=N, alpha1=point[0], alpha2=point[1], target=target), seed, res)


def test_readout_numbers_are_paired_over_seeds():
    runs = Runs([_run(N, t, p, s, 0.7, 0.75) for N in (64, 128) for t in ("he1", "he1+he3")
                 for p in ((0.30, 0.45), (0.25, 0.38)) for s in range(3)])
    out = summaries.readout(runs)
    assert out.N == "128" and out.seeds == "3"
    assert out.h1_a_w0 == "0.900" and out.h1_a_w1 == "0.810"
    # W2 reused minus fresh is -0.05 in every seed: a t interval of zero width
    assert out.h1_a_gap.startswith("-0.050 [-0.050, -0.050]")
    assert out.h1_a_step.startswith("-0.090")
    assert out.h13_a_he3r == "0.700" and out.h13_a_he3f == "0.750"
    assert out.h3_a_w0 == "n/a" and summaries.readout(None).N == "n/a"
    plt.close(figures.readout_errors_by_N(runs))
    plt.close(figures.readout_errors_by_N(None))


@pytest.mark.slow
def test_one_step_lowers_the_first_order_error_on_unstored_seeds():
    """The issue's check: with a He_1 target the error after one step is below W0's."""
    for seed in (501, 502):
        out = readout_unit(256, 0.30, 0.45, "he1", seed=seed)
        assert out["reused_n1_W1"] < out["reused_n1_W0"]


def test_stored_e17_supports_what_the_chapter_says():
    """The readout section's reading of the stored runs: one step lowers the He_1 error, the
    fresh batch's W2 predicts better than the reused one where the target has a He_1 part
    (at every stored N),
    and no first layer fits the pure He_3 target (relative error within 1% of 1)."""
    from companion.core import store

    runs = store.load("E17")
    if runs is None:
        pytest.skip("no stored runs (COMPANION_PAPER_DATA)")
    big = runs.where(N=max(runs.unique("N")))
    for point in ((0.30, 0.45), (0.25, 0.38)):
        he1 = big.where(target="he1", alpha1=point[0], alpha2=point[1])
        assert np.all(he1.values("reused_n4_W1") < he1.values("reused_n4_W0"))
        for target in ("he1", "he1+he3"):
            # at every stored width, not only the largest (the registry's claim)
            for N in runs.unique("N"):
                sel = runs.where(N=N, target=target, alpha1=point[0], alpha2=point[1])
                assert sel.mean("reused_n4_W2") > sel.mean("fresh_n4_W2"), (target, N)
        he3 = big.where(target="he3", alpha1=point[0], alpha2=point[1])
        for w in ("W0", "W1", "W2"):
            assert abs(he3.mean(f"reused_n4_{w}") - 1) < 0.01
    # "Every interval holds zero": the He_3 part's error, reused minus fresh, at every size
    mixed = runs.where(target="he1+he3", alpha1=0.30, alpha2=0.45)
    for N in mixed.unique("N"):
        sel = mixed.where(N=N)
        diff = (np.asarray(sel.values("reused_n4_W2_parts"))[:, 1]
                - np.asarray(sel.values("fresh_n4_W2_parts"))[:, 1])
        r = t_interval(diff)
        assert r.low < 0 < r.high, (N, r)
