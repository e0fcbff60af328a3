"""Bad input gets a clear ValueError naming the parameter."""

import numpy as np
import pytest

import companion as cp
import companion.core.network as net
from companion.core import validation


@pytest.mark.parametrize("kwargs,match", [
    ({"alpha1": 0.5}, "alpha1"), ({"alpha1": -0.1}, "alpha1"), ({"alpha2": 0.7}, "alpha2"),
    ({"alpha2": float("nan")}, "alpha2"), ({"alpha1": "0.3"}, "alpha1"),
    ({"N": 0}, "N"), ({"N": -5}, "N"), ({"N": 10.5}, "N"), ({"d": 0}, "d"), ({"n": 2.5}, "n"),
    ({"N": True}, "N"),
    ({"activation": "sigmoid"}, "activation"), ({"target": "he7"}, "target"),
    ({"target": "he1+"}, "target"), ({"batch": "stale"}, "batch"), ({"seed": -1}, "seed"),
    ({"dtype": "int32"}, "dtype"), ({"noise": -1.0}, "noise"), ({"c1": -1.0}, "c1"),
    ({"c2": 0.0}, "c2"),
    ({"N": 200_000, "d": 200_000}, "memory"),
])
def test_run_two_steps_rejects_bad_input(kwargs, match):
    args = {"N": 20}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        cp.run_two_steps(**args)


@pytest.mark.parametrize("kwargs,match", [
    ({"N": 0}, "N"), ({"d": 2.5}, "d"), ({"n": -1}, "n"), ({"seed": -1}, "seed"),
    ({"seed": 1.0}, "seed"), ({"batch": "Fresh"}, "batch"), ({"dtype": "int32"}, "dtype"),
])
def test_draw_run_checks_its_own_input(kwargs, match):
    args = {"N": 6, "d": 5, "n": 4}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        net.draw_run(**args)


def test_a_run_checks_each_size_once(monkeypatch):
    """run_two_steps checks N, d and n once; the draws and steps below it take them checked."""
    calls = []

    def counted(value, name):
        calls.append(name)
        return validation.positive_int(value, name)

    monkeypatch.setattr(net, "positive_int", counted)
    cp.run_two_steps(N=12, d=10, n=8)
    assert sorted(calls) == ["N", "d", "n"]


def test_memory_is_checked_before_allocating():
    with pytest.raises(ValueError, match="GiB"):
        cp.init_network(10**6, 10**6, np.random.default_rng(0))


def test_descent_direction_rejects_mismatched_shapes_and_nonfinite_data():
    rng = np.random.default_rng(0)
    W, a = cp.init_network(5, 4, rng)
    X, y = rng.standard_normal((7, 4)), rng.standard_normal(7)
    with pytest.raises(ValueError, match="X must have d = 4"):
        cp.descent_direction(W, a, X[:, :3], y)
    with pytest.raises(ValueError, match="a must have N = 5"):
        cp.descent_direction(W, a[:4], X, y)
    with pytest.raises(ValueError, match="y must have n = 7"):
        cp.descent_direction(W, a, X, y[:6])
    Xbad = X.copy()
    Xbad[0, 0] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        cp.descent_direction(W, a, Xbad, y)
    ybad = y.copy()
    ybad[1] = np.inf
    with pytest.raises(ValueError, match="y contains NaN or infinite"):
        cp.descent_direction(W, a, X, ybad)
    with pytest.raises(ValueError, match="activation"):
        cp.descent_direction(W, a, X, y, activation="swish")


def test_finite_check_sees_every_nonfinite_entry_and_no_overflowing_sum():
    # the check sums first (one pass, no temporary) and confirms entry by entry: an infinite
    # sum of finite entries passes, inf - inf (a NaN sum) and a lone NaN are caught
    from companion.core.validation import finite_array

    huge = np.full((3, 3), 1e308)
    assert finite_array(huge, "W", 2) is huge
    assert finite_array(np.full((3, 3), 3e38, dtype=np.float32), "W", 2).dtype == np.float32
    for bad in ([[1.0, np.nan]], [[np.inf, -np.inf]], [[1e308, 1e308, np.inf]], [[-np.inf, 0]]):
        with pytest.raises(ValueError, match="W contains NaN or infinite values"):
            finite_array(np.array(bad), "W", 2)


def test_theory_functions_validate():
    with pytest.raises(ValueError, match="alpha1"):
        cp.lambda_count(0.5, 0.1)
    with pytest.raises(ValueError, match="L must be a positive integer"):
        cp.lambda_count(0.3, 0.3, L=0)
    with pytest.raises(ValueError, match="k must be"):
        cp.spike_exponent(0.3, 0.3, -1)
    with pytest.raises(ValueError, match="phi"):
        cp.mp_edges(0)
    with pytest.raises(ValueError, match="batch"):
        cp.first_direction_alignment("both", 1.0, 1.0)
    with pytest.raises(ValueError, match="k must be at most"):
        cp.top_singular(np.eye(3), 4)
    with pytest.raises(ValueError, match="rng"):
        cp.make_target("he1", 10)
    with pytest.raises(ValueError, match="Hermite coefficients"):
        cp.get_activation("hermite:a,b")
