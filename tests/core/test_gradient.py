"""The descent direction G(W; X, y) = -dL/dW and the two steps (book: dv-two-steps): the
blocked products against the formula as written and against finite differences of the
correlation loss; the update against its two lines."""

import numpy as np
import pytest

import companion as cp


def formula(W, a, X, y, activation="tanh"):
    """G(W; X, y) = (1/n) diag(a) sigma'(W X^T) diag(y) X, as the book writes it."""
    sigma_prime = cp.get_activation(activation).derivative(W @ X.T, 1)
    return np.diag(a) @ sigma_prime @ np.diag(y) @ X / X.shape[0]


@pytest.mark.parametrize("activation", ["tanh", "hermite:0,1,0.5,0.3", "erf", "shifted_tanh"])
def test_descent_direction_is_minus_the_gradient_of_the_loss(activation):
    rng = np.random.default_rng(1)
    N, d, n = 6, 5, 9
    W, a = cp.init_network(N, d, rng)
    X = rng.standard_normal((n, d))
    y = rng.standard_normal(n)
    G = cp.descent_direction(W, a, X, y, activation)
    h = 1e-6
    fd = np.empty_like(W)
    for i in range(N):
        for j in range(d):
            E = np.zeros_like(W)
            E[i, j] = h
            fd[i, j] = (cp.correlation_loss(W + E, a, X, y, activation)
                        - cp.correlation_loss(W - E, a, X, y, activation)) / (2 * h)
    assert np.linalg.norm(G + fd) / np.linalg.norm(fd) < 1e-6      # G = -dL/dW


@pytest.mark.parametrize("N,block", [(37, 5), (37, 1024), (2100, 1024)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_blocked_products_are_the_formula(N, block, dtype, monkeypatch):
    import companion.core.network as net

    monkeypatch.setattr(net, "BLOCK_ROWS", block)
    rng = np.random.default_rng(4)
    W, a = cp.init_network(N, 11, rng, dtype)
    X, y = rng.standard_normal((13, 11)), rng.standard_normal(13)
    G = cp.descent_direction(W, a, X, y, "shifted_tanh")
    assert G.dtype == dtype
    tol = 1e-13 if dtype == np.float64 else 1e-5
    ref = formula(W.astype(float), a.astype(float), X, y, "shifted_tanh")
    np.testing.assert_allclose(G, ref, rtol=tol, atol=tol * np.abs(ref).max())


@pytest.mark.parametrize("N,block", [(37, 5), (37, 1024), (2100, 1024)])
@pytest.mark.parametrize("batch", ["reused", "fresh"])
def test_the_update_is_its_two_lines(N, block, batch, monkeypatch):
    """two_step_update is W1 = W0 + eta1 G(W0; X1, y1), W2 = W1 + eta2 G(W1; X2, y2),
    bit for bit with G = descent_direction, and equal to the formula up to rounding."""
    import companion.core.network as net

    monkeypatch.setattr(net, "BLOCK_ROWS", block)
    rng = np.random.default_rng(2)
    d, n = 11, 13
    W0, a = cp.init_network(N, d, rng)
    X, y = rng.standard_normal((n, d)), rng.standard_normal(n)
    X2, y2 = ((rng.standard_normal((n, d)), rng.standard_normal(n)) if batch == "fresh"
              else (None, None))
    W1, W2 = cp.two_step_update(W0, a, X, y, 3.0, 5.0, X2=X2, y2=y2)
    second = (X, y) if X2 is None else (X2, y2)
    line1 = W0 + 3.0 * cp.descent_direction(W0, a, X, y)
    line2 = line1 + 5.0 * cp.descent_direction(line1, a, *second)
    np.testing.assert_array_equal(W1, line1)
    np.testing.assert_array_equal(W2, line2)
    ref1 = W0 + 3.0 * formula(W0, a, X, y)
    np.testing.assert_allclose(W1, ref1, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(W2, ref1 + 5.0 * formula(ref1, a, *second), rtol=1e-13,
                               atol=1e-15)


def test_one_step_reference_is_one_step_of_eta1_plus_eta2():
    run = cp.run_two_steps(N=40, d=30, n=50, seed=3)
    G1 = cp.descent_direction(run.W0, run.a, run.X1, run.y1)
    np.testing.assert_array_equal(run.one_step_reference(),
                                  run.W0 + (run.eta1 + run.eta2) * G1)


def test_one_step_is_rank_one_plus_small():
    """G(W0) = m1 a u1^T + R with ||R||_op = O(N^-1/2)."""
    rng = np.random.default_rng(3)
    N = 800
    W0, a = cp.init_network(N, N, rng)
    tgt = cp.make_target("he1", N, rng)
    X, y = tgt.sample(N, rng)
    G = cp.descent_direction(W0, a, X, y)
    u1 = X.T @ y / N
    R = G - cp.get_activation("tanh").m(1) * np.outer(a, u1)
    s_G = cp.singular_values(G, 2)
    s_R = cp.singular_values(R, 1)
    assert s_G[0] > 10 * s_G[1]
    assert s_R[0] < 0.2 * s_G[0]
    assert s_R[0] < 5 / np.sqrt(N)


def test_update_rejects_weights_that_overflow():
    rng = np.random.default_rng(5)
    W0, a = cp.init_network(8, 6, rng)
    X, y = rng.standard_normal((10, 6)), rng.standard_normal(10)
    with np.errstate(over="ignore", invalid="ignore"), \
            pytest.raises(ValueError, match="W1 .*NaN or infinite.*"):
        cp.two_step_update(W0, a * 1e300, X, y * 1e300, 1e300, 1.0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tanh_prime_is_accurate_in_the_tails(dtype):
    # the update's tanh' = 4 e / (1 + e)^2, e = exp(-2|z|), against 1 / cosh(z)^2 in extended
    # precision: relative accuracy everywhere, where 1 - tanh(z)^2 cancels to 0 for |z| > 19
    z = np.r_[np.linspace(-30, 30, 20001), 0.0, 1e-300, 700.0, -800.0].astype(dtype)
    got = cp.get_activation("tanh").prime_inplace(z.copy())
    exact = 1.0 / np.cosh(z.astype(np.longdouble)) ** 2
    tiny = np.finfo(dtype).tiny
    ok = exact > tiny
    rel = np.abs(got[ok] - exact[ok]) / exact[ok]
    assert got.dtype == dtype
    assert rel.max() < (2e-15 if dtype == np.float64 else 1e-6)
    assert np.all(got[~ok] <= tiny) and np.all(got >= 0)


@pytest.mark.parametrize("name", ["tanh", "shifted_tanh", "gelu"])
def test_prime_inplace_is_the_first_derivative(name):
    # tanh, tanh(z + 1/2) and GELU take their chunked in-place paths; GELU's computes in
    # float64 with the generic path's operations, so it is that path bit for bit
    act = cp.get_activation(name)
    z = np.random.default_rng(3).standard_normal((301, 250)) * 4   # three chunks, one partial
    for dtype, rtol in ((np.float64, 1e-13), (np.float32, 1e-5)):
        got = act.prime_inplace(z.astype(dtype))
        assert got.dtype == dtype
        np.testing.assert_allclose(got, act.derivative(z, 1), rtol=rtol, atol=1e-7)
        if name == "gelu":
            np.testing.assert_array_equal(got, act.derivative(z.astype(dtype), 1).astype(dtype))
