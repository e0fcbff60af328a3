"""The finite-N prediction of the spike terms (companion/core/finite_n.py, dv-finite-n)."""

import numpy as np
import pytest

import companion as cp
from companion.core import finite_n
from companion.core.spikes import separate_strengths


def _measured(N, a1, a2, act, target, seeds, null=False):
    out = []
    for seed in seeds:
        run = cp.run_two_steps(N=N, alpha1=a1, alpha2=a2, activation=act, target=target,
                               seed=seed, null_labels=null)
        out.append(separate_strengths(run.W2 - run.W0, run.a, 4))
    return np.mean(out, axis=0)


@pytest.mark.parametrize("act", ["tanh", "shifted_tanh"])
def test_prediction_matches_a_direct_simulation_at_a_small_size(act):
    """N = 512, (0.38, 0.45), He_1 target, seeds 11 and 12: every term k = 0..2 (signal and
    floor: tanh's k = 1 is floor only) within 12% of the seed mean, and far closer than the
    Taylor expansion's 4 to 10 times."""
    N, a1, a2 = 512, 0.38, 0.45
    meas = _measured(N, a1, a2, act, "he1", (11, 12))
    pred = finite_n.predicted_terms(N, a1, a2, act, "he1", K=4)
    np.testing.assert_allclose(pred["strength"][:3], meas[:3], rtol=0.12)
    if act == "tanh":            # odd orders: no mean field (symmetry), only the floor
        assert pred["signal"][1] < 1e-8 and pred["signal"][3] < 1e-8
    else:
        assert pred["signal"][1] > pred["floor"][1]


def test_null_prediction_matches_a_null_simulation():
    """The null run (labels of an independent sample) at N = 512: its terms k = 0, 1 within
    15% (the first spike is the label noise's; the k = 1 term is not a learned direction)."""
    N, a1, a2 = 512, 0.38, 0.45
    meas = _measured(N, a1, a2, "shifted_tanh", "he1+he3", (21, 22), null=True)
    pred = finite_n.predicted_terms(N, a1, a2, "shifted_tanh", "he1+he3", K=4, null=True)
    np.testing.assert_allclose(pred["strength"][:2], meas[:2], rtol=0.15)
    assert np.all(pred["cos2"] == 0)


def test_power_functions_are_orthonormal_and_the_first_is_g():
    g, w = finite_n._gauss(finite_n.G_NODES)
    P = finite_n.power_functions(g, 4, w)
    np.testing.assert_allclose((P * w) @ P.T, np.eye(4), atol=1e-10)
    np.testing.assert_allclose(P[0], g, atol=1e-12)
    np.testing.assert_allclose(P[1], g ** 2 / np.sqrt(3), atol=1e-10)   # E g^3 = 0


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="batch"):
        finite_n.predicted_terms(512, 0.3, 0.38, batch="fresh")
    with pytest.raises(ValueError, match="activation"):
        finite_n.predicted_terms(512, 0.3, 0.38, activation="relu")
    with pytest.raises(ValueError, match="N"):
        finite_n.predicted_terms(0, 0.3, 0.38)


def test_predicted_crossing_is_where_the_prediction_reaches_the_threshold():
    out = finite_n.predicted_crossing(0.38, 0.45, "shifted_tanh", k=1, threshold=1.5,
                                      log2_N=(9, 12))
    s = out["strength"]
    assert np.all(np.diff(s) > 0) and s[0] < 1.5 < s[-1]
    assert out["low"] <= out["N"] <= out["high"] and 512 < out["N"] < 4096
    j = np.searchsorted(s, 1.5)
    assert out["Ns"][j - 1] < out["N"] <= out["Ns"][j]
    never = finite_n.predicted_crossing(0.38, 0.45, "tanh", k=1, threshold=1.5, log2_N=(9, 10),
                                        signal_only=True)      # tanh's k = 1: no mean field
    assert never["N"] == float("inf")
    with pytest.raises(ValueError, match="log2_N"):
        finite_n.predicted_crossing(0.38, 0.45, log2_N=(10, 9))


def test_a_term_does_not_depend_on_how_many_are_asked_and_results_are_fresh_arrays():
    five = finite_n.predicted_terms(1024, 0.38, 0.45, "shifted_tanh", K=5)
    three = finite_n.predicted_terms(1024, 0.38, 0.45, "shifted_tanh", K=3)
    for key in ("strength", "signal", "floor"):
        np.testing.assert_allclose(three[key], five[key][:3], rtol=1e-12)
    assert three["gram"].shape == (3, 3) and three["cos2"].shape == (3, 1)
    three["strength"][:] = -1.0            # a caller's change does not reach the cache
    again = finite_n.predicted_terms(1024, 0.38, 0.45, "shifted_tanh", K=3)
    np.testing.assert_allclose(again["strength"], five["strength"][:3], rtol=1e-12)
