"""The ridge readout on sigma(W x) (companion/core/readout.py): the solve against a direct
least-squares solve, its ridgeless limit, the validation choice of lambda, the split of the
error by link, bad inputs, determinism and the command line's ``--readout``."""

import json
import subprocess
import sys

import numpy as np
import pytest

import companion as cp
from companion.core.network import STREAMS, draw_run
from companion.core.readout import (
    LAMBDA_GRID,
    WEIGHTS,
    Ridge,
    choose_lambda,
    features,
    lambda_grid,
    readout_errors,
    readout_samples,
)


def _problem(n, N, seed=0, m=None):
    rng = np.random.default_rng(seed)
    Phi = np.tanh(rng.standard_normal((n, N)) + 0.5)      # features with a nonzero mean
    y = rng.standard_normal(n if m is None else (n, m)) + 0.3
    return Phi, y


def _augmented_solve(Phi, y, lam):
    """argmin (1/n)||y - b - Phi a||^2 + lam ||a||^2 by lstsq on the stacked system
    [[Phi, 1], [sqrt(n lam) I, 0]] [a; b] = [y; 0] (b unpenalized)."""
    n, N = Phi.shape
    A = np.block([[Phi, np.ones((n, 1))], [np.sqrt(n * lam) * np.eye(N), np.zeros((N, 1))]])
    rhs = np.concatenate([y, np.zeros(N)])
    sol = np.linalg.lstsq(A, rhs, rcond=None)[0]
    return sol[:N], sol[N]


@pytest.mark.parametrize("n,N", [(30, 12), (12, 30), (20, 20)])
def test_ridge_matches_a_direct_least_squares_solve(n, N):
    Phi, y = _problem(n, N)
    lam = 0.05
    ridge = Ridge(Phi, y)
    a, b = _augmented_solve(Phi, y, lam)
    np.testing.assert_allclose(ridge.coef(lam), a, rtol=1e-10, atol=1e-12)
    assert ridge.intercept(lam) == pytest.approx(b, rel=1e-10, abs=1e-12)
    Phi_new = _problem(7, N, seed=1)[0]
    np.testing.assert_allclose(ridge.predict(Phi_new, lam), Phi_new @ a + b, rtol=1e-10)
    # and the normal equations on the centred features
    Pc = Phi - Phi.mean(0)
    direct = np.linalg.solve(Pc.T @ Pc + n * lam * np.eye(N), Pc.T @ (y - y.mean()))
    np.testing.assert_allclose(ridge.coef(lam), direct, rtol=1e-9, atol=1e-12)


def test_ridgeless_limit_is_least_squares_when_n_exceeds_N():
    Phi, y = _problem(40, 10)
    ridge = Ridge(Phi, y)
    sol = np.linalg.lstsq(np.column_stack([Phi, np.ones(40)]), y, rcond=None)[0]
    np.testing.assert_allclose(ridge.coef(0.0), sol[:10], rtol=1e-9)
    assert ridge.intercept(0.0) == pytest.approx(sol[10], rel=1e-9)
    np.testing.assert_allclose(ridge.coef(1e-12 * ridge.scale), sol[:10], rtol=1e-6)


def test_ridgeless_limit_is_the_minimum_norm_interpolator_when_N_exceeds_n():
    Phi, y = _problem(10, 40)
    ridge = Ridge(Phi, y)
    Pc, yc = Phi - Phi.mean(0), y - y.mean()
    a_min = np.linalg.lstsq(Pc, yc, rcond=None)[0]               # minimum-norm solution
    np.testing.assert_allclose(ridge.coef(0.0), a_min, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(ridge.coef(1e-10 * ridge.scale), a_min, rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(ridge.predict(Phi, 0.0), y, atol=1e-9)      # interpolates


def test_several_label_columns_are_fitted_as_each_alone_and_add_up():
    Phi, Y = _problem(25, 15, m=3)
    lam = 0.1
    both = Ridge(Phi, Y)
    for j in range(3):
        np.testing.assert_allclose(both.coef(lam)[:, j], Ridge(Phi, Y[:, j]).coef(lam),
                                   rtol=1e-10, atol=1e-13)
    summed = Ridge(Phi, Y.sum(axis=1))            # linear in the labels: the split is exact
    np.testing.assert_allclose(summed.coef(lam), both.coef(lam).sum(axis=1), rtol=1e-9,
                               atol=1e-12)


def test_the_validation_choice_is_the_grid_point_with_the_smallest_validation_error():
    Phi, y = _problem(40, 25, seed=2)
    Phi_val, y_val = _problem(60, 25, seed=3)
    y = y + Phi[:, 0] * 2.0                      # something to learn, so the minimum is inside
    y_val = y_val + Phi_val[:, 0] * 2.0
    ridge = Ridge(Phi, y)
    grid = [1e-4, 1e-2, 1e-1, 1.0, 10.0, 1e3]
    chosen = choose_lambda(ridge, Phi_val, y_val, grid)
    direct = []
    for g in grid:
        a, b = _augmented_solve(Phi, y, g * ridge.scale)
        direct.append(np.mean((Phi_val @ a + b - y_val) ** 2))
    np.testing.assert_allclose(chosen["validation_mse"], direct, rtol=1e-8)
    assert chosen["index"] == int(np.argmin(direct))
    assert chosen["lam"] == pytest.approx(grid[chosen["index"]] * ridge.scale)
    assert 0 < chosen["index"] < len(grid) - 1


def test_the_default_grid_is_in_units_of_the_feature_scale():
    assert LAMBDA_GRID[0] == pytest.approx(1e-6) and LAMBDA_GRID[-1] == pytest.approx(1e5)
    np.testing.assert_allclose(np.diff(np.log10(LAMBDA_GRID)), 0.5)
    Phi, y = _problem(30, 20)
    ridge, scaled = Ridge(Phi, y), Ridge(3.0 * Phi, y)
    assert scaled.scale == pytest.approx(9.0 * ridge.scale)
    Phi_val, y_val = _problem(30, 20, seed=5)
    a = choose_lambda(ridge, Phi_val, y_val)
    b = choose_lambda(scaled, 3.0 * Phi_val, y_val)
    assert a["index"] == b["index"]
    np.testing.assert_allclose(a["validation_mse"], b["validation_mse"], rtol=1e-8)


@pytest.fixture(scope="module")
def run():
    return cp.run_two_steps(N=64, alpha1=0.3, alpha2=0.45, activation="shifted_tanh",
                            target="he1+he3", seed=5, noise=0.2)


def test_readout_report_and_its_split(run):
    res = readout_errors(run, n_test=300)
    assert (res["n_train"], res["n_val"], res["n_test"]) == (64, 64, 300)
    assert res["var_y_theory"] == pytest.approx(2.04)
    for w in WEIGHTS:
        rec = res[w]
        assert rec["mse"] > 0 and rec["relative"] == pytest.approx(rec["mse"] / res["var_y"])
        assert len(rec["component_mse"]) == len(rec["component_relative"]) == 2
        assert rec["noise_mse"] > 0
        total = sum(rec["component_mse"]) + rec["noise_mse"] + rec["cross"]
        assert total == pytest.approx(rec["mse"], rel=1e-12)
        assert rec["lam"] == pytest.approx(rec["lam_over_scale"] * rec["feature_scale"])
        assert rec["validation_mse"] == min(rec["validation_curve"])


def test_readout_of_W0_by_hand(run):
    """The W0 entry is a ridge on sigma(X W0^T) of the readout's own samples."""
    res = readout_errors(run, n_train=50, n_val=40, n_test=70, grid=[0.1, 1.0])
    s = readout_samples(run.target, run.seed, 50, 40, 70)
    act = run.activation
    ridge = Ridge(features(run.W0, s["train"].X, act), s["train"].y)
    chosen = choose_lambda(ridge, features(run.W0, s["validation"].X, act), s["validation"].y,
                           [0.1, 1.0])
    pred = ridge.predict(features(run.W0, s["test"].X, act), chosen["lam"])
    assert res["W0"]["mse"] == pytest.approx(np.mean((pred - s["test"].y) ** 2), rel=1e-10)
    assert res["var_y"] == pytest.approx(np.var(s["test"].y))


def test_readout_samples_are_their_own_streams_and_leave_the_run_s_draws_alone(run):
    s = readout_samples(run.target, 5, 64, 64, 64)
    assert not np.allclose(s["train"].X, run.X1)
    assert not np.allclose(s["train"].X, s["test"].X)
    # the run's streams are the first children of its seed, whatever is appended after them
    old = dict(zip(STREAMS[:5], np.random.default_rng(5).spawn(5)))
    X1_old = run.target.sample(64, old["batch1"])[0]
    np.testing.assert_array_equal(X1_old, draw_run(64, 64, 64, run.target, seed=5).X1)
    np.testing.assert_array_equal(run.X1, X1_old)
    comps = s["test"].components
    np.testing.assert_allclose(comps.sum(axis=1) + s["test"].noise, s["test"].y)
    np.testing.assert_allclose(comps[:, 0], s["test"].X @ run.target.directions[0])


def test_same_seed_same_numbers_and_seeds_differ(run):
    a = readout_errors(run, n_test=200)
    b = readout_errors(cp.run_two_steps(N=64, alpha1=0.3, alpha2=0.45,
                                        activation="shifted_tanh", target="he1+he3", seed=5,
                                        noise=0.2), n_test=200)
    assert a == b
    c = readout_errors(cp.run_two_steps(N=64, alpha1=0.3, alpha2=0.45,
                                        activation="shifted_tanh", target="he1+he3", seed=6,
                                        noise=0.2), n_test=200)
    assert c["W1"]["mse"] != a["W1"]["mse"]


@pytest.mark.parametrize("kwargs,word", [
    ({"n_train": 0}, "n_train"), ({"n_train": 2.5}, "n_train"), ({"n_train": True}, "n_train"),
    ({"n_test": -4}, "n_test"), ({"n_val": "ten"}, "n_val"), ({"grid": []}, "grid"),
    ({"grid": [1.0, -1.0]}, "grid"), ({"grid": [np.nan]}, "grid"), ({"grid": "abc"}, "grid"),
    ({"weights": ()}, "weights"), ({"weights": ("W3",)}, "weights"), ({"weights": 2}, "weights"),
])
def test_bad_readout_input_names_the_parameter(run, kwargs, word):
    with pytest.raises(ValueError, match=word):
        readout_errors(run, **kwargs)


def test_a_selection_of_weights_is_fitted_as_in_the_full_report(run):
    full = readout_errors(run)
    part = readout_errors(run, weights=("W2", "W0"))
    assert [k for k in part if k in WEIGHTS] == ["W2", "W0"]
    for w in ("W2", "W0"):
        assert part[w]["mse"] == full[w]["mse"]


def test_bad_ridge_input_names_the_parameter(run):
    Phi, y = _problem(10, 5)
    ridge = Ridge(Phi, y)
    with pytest.raises(ValueError, match="lam"):
        ridge.coef(-0.1)
    with pytest.raises(ValueError, match="lam"):
        ridge.coef(np.inf)
    with pytest.raises(ValueError, match="y"):
        Ridge(Phi, y[:-1])
    with pytest.raises(ValueError, match="Phi"):
        Ridge(Phi[0], y)
    with pytest.raises(ValueError, match="Phi"):
        ridge.predict(Phi[:, :3], 1.0)
    with pytest.raises(ValueError, match="seed"):
        readout_samples(run.target, -1, 5, 5, 5)
    with pytest.raises(ValueError, match="run"):
        readout_errors("run")
    freed = cp.run_two_steps(N=32, seed=1)
    freed.X1 = freed.y1 = None
    with pytest.raises(ValueError, match="first batch"):
        readout_errors(freed)
    assert lambda_grid(None) is LAMBDA_GRID


def test_cli_readout_flag_adds_the_key_and_nothing_else():
    def cli(*extra):
        res = subprocess.run([sys.executable, "-m", "companion", "simulate", "--N", "96",
                              "--target", "he1+he3", "--seed", "2", "--json", *extra],
                             capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stderr
        return json.loads(res.stdout)

    plain, with_readout = cli(), cli("--readout")
    assert "readout" not in plain
    ro = with_readout.pop("readout")
    plain.pop("seconds"), with_readout.pop("seconds")
    assert plain == with_readout
    assert (ro["n_train"], ro["n_val"], ro["n_test"]) == (96, 96, 384)
    for w in WEIGHTS:
        assert set(ro[w]) >= {"mse", "relative", "lam", "lam_over_scale", "component_mse",
                              "component_relative", "noise_mse", "cross"}
        assert len(ro[w]["component_mse"]) == 2
