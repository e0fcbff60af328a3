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


# -- the leading-order constant of a term in the population (book: dv-leading-order) ------
def test_leading_order_constant_of_he3_is_the_closed_form():
    """For He_3 (mu* = 0) the field is h = xi, independent of the sample, and every
    expectation is a product of exact Gaussian moments: c_2 = sqrt(6)/2 sqrt(E[z w]^2 +
    E[w^2]) with w = y (A xi^2 + B y xi + C y^2), A = m3 m1^2, B = 2 kappa21 m1, C = kappa22."""
    from companion.core.expansion import leading_order_constants
    from companion.core.gaussian import normalized_hermite_moment as M

    act = cp.get_activation("tanh")
    m1 = act.m(1)
    A, B, C = act.m(3) * m1 ** 2, 2 * act.kappa(2, 1) * m1, act.kappa(2, 2)
    Ey = lambda p: M(3, p)                                       # noqa: E731
    xi = {0: 1, 2: 1, 4: 3}
    Ew2 = (A * A * Ey(2) * xi[4] + B * B * Ey(4) * xi[2] + C * C * Ey(6)
           + 2 * A * C * Ey(4) * xi[2])
    Ezw = C * M(3, 3, 1)
    exact = np.sqrt(6) / 2 * np.sqrt(Ezw ** 2 + Ew2)
    got = leading_order_constants("he3", "tanh", K=3)
    assert got[2] == pytest.approx(exact, rel=1e-10)
    assert got[1] == 0 and got[0] == 0                     # tanh is odd: m2 = kappa_1r = 0


def test_the_labels_sixth_moment_makes_he3_s_constant_large():
    from companion.core.expansion import leading_order_constants

    c = {t: leading_order_constants(t, "tanh", K=3, nodes=30)[2]
         for t in ("he1", "he1+he3", "bounded")}
    assert c["he1+he3"] > 10 * c["bounded"] and c["he1+he3"] > 10 * c["he1"]


def test_leading_order_constant_against_the_runs_own_leading_order():
    # a bounded link, whose sample moments are near the population's: one run's own leading
    # order scatters by a factor up to two around c_2 N^0.15 at this size; the median of 12
    # seeds is within 30% of it
    from companion.core.expansion import leading_order_constants, leading_order_sizes

    c = leading_order_constants("bounded", "tanh", K=3)[2]
    N = 768
    ratios = [leading_order_sizes(cp.run_two_steps(N=N, alpha1=0.35, alpha2=0.45,
                                                   target="bounded", seed=s), 3)[2]
              / (c * N ** 0.15) for s in range(12)]
    assert 0.7 < np.median(ratios) < 1.3


def test_leading_order_crossing():
    from companion.core.expansion import leading_order_crossing

    assert leading_order_crossing(100.0, -0.05, 1.0) == pytest.approx(100.0 ** 20)
    assert leading_order_crossing(0.5, -0.05, 1.0) == 1.0
    with pytest.raises(ValueError, match="exponent"):
        leading_order_crossing(100.0, 0.1, 1.0)
