"""The paper's and the companion's learning claims at N = 2000 (book: dv-exponents,
dv-learnability), in float32 as the chapters' own runs (it moves these numbers in the
seventh digit and halves the time)."""

import numpy as np
import pytest

import companion as cp


def _top_cos2(run):
    _, _, Vt = cp.top_singular(run.W2, 1)
    return cp.cos2_with_directions(Vt, run.target.directions)[0, 0]


@pytest.mark.parametrize("batch,expected", [("reused", 0.5), ("fresh", 2 / 3)])
def test_first_direction_alignment_he1(batch, expected):
    """He_1, psi = 1, alphas (0.2, 0.2): reused -> 0.5, fresh -> 0.667 (mean of 2 seeds)."""
    vals = [_top_cos2(cp.run_two_steps(N=2000, alpha1=0.2, alpha2=0.2, batch=batch,
                                       target="he1", seed=s, dtype="float32"))
            for s in (0, 1)]
    run = cp.run_two_steps(N=200, alpha1=0.2, alpha2=0.2, batch=batch, target="he1")
    theory = cp.first_direction_alignment(batch, 1.0, 1.0, 1.0, run.eta1, run.eta2)[0]
    assert theory == pytest.approx(expected, abs=1e-12)
    assert np.mean(vals) == pytest.approx(expected, abs=0.05)


def test_he3_learned_only_with_reuse():
    """Target He_3, tanh, (0.35, 0.45), N = 2000: reused top-4 projection >= 5x fresh."""
    proj = {}
    for batch in ("reused", "fresh"):
        vals = []
        for seed in (0, 1):
            run = cp.run_two_steps(N=2000, alpha1=0.35, alpha2=0.45, batch=batch, target="he3",
                                   seed=seed, dtype="float32")
            _, _, Vt = cp.top_singular(run.W2, 4)
            vals.append(cp.subspace_projection(Vt, run.target.directions)[0])
        proj[batch] = np.mean(vals)
    assert proj["reused"] >= 5 * proj["fresh"]
    assert proj["reused"] > 50 * 4 / 2000  # far above chance


def test_two_steps_act_as_one_below_the_line():
    """alpha1 + alpha2 < 1/2: reused W2 ~ W0 + (eta1+eta2) G(W0); fresh is not
    (book: dv-one-step-reference)."""
    rel = {}
    for batch in ("reused", "fresh"):
        run = cp.run_two_steps(N=1500, alpha1=0.2, alpha2=0.2, batch=batch, target="he1", seed=0,
                               dtype="float32")
        ref = run.one_step_reference()
        rel[batch] = (cp.singular_values(run.W2 - ref, 1)[0]
                      / cp.singular_values(ref - run.W0, 1)[0])
    assert rel["reused"] < 0.1
    assert rel["fresh"] > 0.3
