"""The matrix gradient of SPEC section 2 against finite differences of the correlation loss."""

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
    """SPEC 3.1: G(W0) = m1 a u1^T + R with ||R||_op = O(N^-1/2)."""
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
