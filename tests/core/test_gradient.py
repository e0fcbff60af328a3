"""The matrix gradient (book: dv-two-steps) against finite differences of the correlation loss."""

import numpy as np
import pytest

import companion as cp


@pytest.mark.parametrize("activation", ["tanh", "hermite:0,1,0.5,0.3", "erf", "shifted_tanh"])
def test_gradient_matches_finite_differences(activation):
    rng = np.random.default_rng(1)
    N, d, n = 6, 5, 9
    W, a = cp.init_network(N, d, rng)
    X = rng.standard_normal((n, d))
    y = rng.standard_normal(n)
    G = cp.gradient(W, a, X, y, activation)
    h = 1e-6
    fd = np.empty_like(W)
    for i in range(N):
        for j in range(d):
            E = np.zeros_like(W)
            E[i, j] = h
            # G is the NEGATIVE gradient of the loss.
            fd[i, j] = -(cp.correlation_loss(W + E, a, X, y, activation)
                         - cp.correlation_loss(W - E, a, X, y, activation)) / (2 * h)
    assert np.linalg.norm(G - fd) / np.linalg.norm(fd) < 1e-6


def test_gradient_blocks_do_not_change_the_result():
    rng = np.random.default_rng(2)
    W, a = cp.init_network(37, 11, rng)
    X, y = rng.standard_normal((13, 11)), rng.standard_normal(13)
    full = cp.gradient(W, a, X, y, block_rows=1000)
    blocked = cp.gradient(W, a, X, y, block_rows=5)
    np.testing.assert_allclose(blocked, full, rtol=1e-12, atol=1e-15)


def test_one_step_is_rank_one_plus_small():
    """G(W0) = m1 a u1^T + R with ||R||_op = O(N^-1/2)."""
    rng = np.random.default_rng(3)
    N = 800
    W0, a = cp.init_network(N, N, rng)
    tgt = cp.make_target("he1", N, rng)
    X, y = tgt.sample(N, rng)
    G = cp.gradient(W0, a, X, y)
    u1 = X.T @ y / N
    R = G - cp.get_activation("tanh").m(1) * np.outer(a, u1)
    s_G = cp.singular_values(G, 2)
    s_R = cp.singular_values(R, 1)
    assert s_G[0] > 10 * s_G[1]
    assert s_R[0] < 0.2 * s_G[0]
    assert s_R[0] < 5 / np.sqrt(N)


def test_update_does_not_depend_on_the_threads(monkeypatch):
    # a large update shares its row blocks out over one worker per BLAS thread
    # (companion.core.blas; here forced at a small size); with one thread or two, the same W1 and W2
    from threadpoolctl import threadpool_limits

    import companion.core.network as net

    monkeypatch.setattr(net, "_SPLIT_WORK", 1)

    rng = np.random.default_rng(4)
    N, d, n = 300, 120, 150
    W0, a = cp.init_network(N, d, rng)
    X, y = rng.standard_normal((n, d)), rng.standard_normal(n)
    with threadpool_limits(limits=2, user_api="blas"):
        two = cp.two_step_update(W0, a, X, y, 3.0, 5.0)
    with threadpool_limits(limits=1, user_api="blas"):
        one = cp.two_step_update(W0, a, X, y, 3.0, 5.0)
    # the update as the book writes it (book: dv-two-steps), W + eta G, with G from the gradient
    W1 = W0 + 3.0 * cp.gradient(W0, a, X, y)
    W2 = W1 + 5.0 * cp.gradient(W1, a, X, y)
    for got in (two, one):
        np.testing.assert_allclose(got[0], W1, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(got[1], W2, rtol=1e-13, atol=1e-15)


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


def test_update_blocks_bound_the_memory_with_many_threads(monkeypatch):
    # one block per worker, a worker per BLAS thread: with many threads the blocks shrink so
    # that at most 2048 rows of sigma'(W X^T) are alive, as estimate_run_bytes counts
    import companion.core.network as net

    for threads, N in ((1, 5000), (2, 5000), (2, 1500), (16, 16384), (64, 16384), (4, 3)):
        monkeypatch.setattr(net, "blas_threads", lambda t=threads: t)
        workers, rows = net._blocks(N, N, N)
        assert 1 <= workers <= min(threads, N) and workers * rows <= max(2048, 64 * threads)
        assert workers * rows >= min(N, 1024)      # blocks no smaller than they need be


@pytest.mark.parametrize("name", ["tanh", "shifted_tanh", "gelu"])
def test_prime_inplace_is_the_first_derivative(name):
    # tanh and tanh(z + 1/2) take the chunked in-place path, GELU the generic one
    act = cp.get_activation(name)
    z = np.random.default_rng(3).standard_normal((7, 50)) * 4
    for dtype, rtol in ((np.float64, 1e-13), (np.float32, 1e-5)):
        got = act.prime_inplace(z.astype(dtype))
        assert got.dtype == dtype
        np.testing.assert_allclose(got, act.derivative(z, 1), rtol=rtol, atol=1e-7)
