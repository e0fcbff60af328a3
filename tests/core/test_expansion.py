"""The companion's leading-order expansion (companion/core/expansion.py, book: dv-expansion): the
leave-one-out field against a direct computation of the pre-activation change."""

import numpy as np
import pytest

import companion as cp
from companion.core.expansion import leading_order_sizes, leave_one_out_field, term_vectors


@pytest.fixture(scope="module")
def run():
    return cp.run_two_steps(N=600, alpha1=0.35, alpha2=0.45, batch="reused",
                            activation="tanh", target="he1", seed=0)


def test_leave_one_out_field_is_the_field_of_the_other_samples():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((40, 30)), rng.standard_normal(40)
    h = leave_one_out_field(X, y)
    for i in (0, 7, 39):
        others = np.delete(np.arange(40), i)
        u_minus_i = X[others].T @ y[others] / 40
        assert h[i] == pytest.approx(X[i] @ u_minus_i, rel=1e-12)
    with pytest.raises(ValueError, match="y must have n"):
        leave_one_out_field(X, y[:5])


def test_preactivation_change_splits_into_loo_field_and_self_term(run):
    """delta_ji = <w1_j - w0_j, x_i> = eta1 a_j t_ji with t_ji = m1 h^(-i)_i +
    sigma'(<w0_j, x_i>) y_i ||x_i||^2 / n + xi_ji (mean zero over neurons). Averaged over the
    neurons, t minus the self term is m1 h^(-i); the naive field X u1, which already holds
    the sample's own term, is off by about m1 y_i, and its residual is far larger."""
    n = run.n
    t = (run.W1 - run.W0) @ run.X1.T / (run.eta1 * run.a[:, None])
    self_term = (run.activation.derivative(run.W0 @ run.X1.T, 1)
                 * (run.y1 * np.einsum("ij,ij->i", run.X1, run.X1) / n)[None, :])
    rest = (t - self_term).mean(axis=0)
    m1 = run.activation.m(1)
    loo = m1 * leave_one_out_field(run.X1, run.y1)
    naive = m1 * (run.X1 @ (run.X1.T @ run.y1 / n))
    err_loo = np.sqrt(np.mean((rest - loo) ** 2))
    err_naive = np.sqrt(np.mean((rest - naive) ** 2))
    scale = np.sqrt(np.mean(loo ** 2))
    assert err_loo < 0.05 * scale
    assert err_naive > 10 * err_loo
    # the whole decomposition (not averaged over neurons): the residual xi is a small part
    resid = t - self_term - loo[None, :]
    assert np.mean(resid ** 2) < 0.15 * np.mean(t ** 2)


def test_leading_order_sizes_use_the_term_vectors(run):
    C, V = term_vectors(run, 4)
    assert C[0] == 1.0 and V.shape == (4, run.d)
    sizes = leading_order_sizes(run, 4)
    assert sizes[1] < 1e-8 * sizes[0] and sizes[3] < 1e-8 * sizes[0]     # tanh: odd k absent
    # the first spike: (eta1 + eta2) m1 ||u1|| |<q_1, a>| with q_1 = a / ||a||
    u1 = run.X1.T @ run.y1 / run.n
    first = (run.eta1 + run.eta2) * run.activation.m(1) * np.linalg.norm(u1) * np.linalg.norm(run.a)
    assert sizes[0] == pytest.approx(first, rel=1e-10)
    # counting the self term twice (the naive field) inflates the k = 2 term by about 1.7x
    assert 0 < sizes[2]
