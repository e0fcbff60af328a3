"""What the exercises of book/reuse_vs_fresh.ipynb (section "Exercises") ask for and how their
answers are compared; the values themselves are only in the hashed key
(:mod:`companion.exercises`)."""

from __future__ import annotations

from companion.course.answers import Answer

ANSWERS: dict[str, Answer] = {
    "rf-ex-gentle/zg3": Answer(
        what="E[z g^3] of the gentle bounded link",
        rtol=0.01,
        hint="the link object computes its own Gaussian moments (z_moment)."),
    "rf-ex-psi/reused": Answer(
        what="the reused-batch limit of cos^2(v1, beta*) for He_1 at psi = 2",
        rtol=0.0, atol=2e-3,
        hint="the noise of u1 has squared norm E[y^2]/psi."),
    "rf-ex-psi/fresh": Answer(
        what="the fresh-batch limit of cos^2(v1, beta*) for He_1 at psi = 2 and "
             "eta1 = eta2",
        rtol=0.0, atol=2e-3,
        hint="averaging two independent noises halves their squared norm when "
             "eta1 = eta2."),
    "rf-ex-he3/zg3": Answer(
        what="E[z g(z)^3] for g = He_3/sqrt(6)",
        rtol=0.0, atol=0.05,
        hint="expand z (z^3 - 3z)^3 and use E z^(2m) = (2m - 1)!!; do not forget "
             "the 6^(3/2)."),
    "rf-ex-he3/order": Answer(
        what="the smallest Lambda at which a reused batch learns He_3 with tanh",
        kind="integer",
        hint="the first power of y that sees beta* is y^(r+1) with r = 2, and term "
             "k needs r <= k with k - r even."),
    "rf-ex-fresh/equal": Answer(
        what="the fresh-batch limit of cos^2(v1, beta*) for He_1, psi = 1, eta1 = eta2",
        rtol=0.0, atol=2e-3,
        hint="ubar = eta1 u1 + eta2 u2: add the signals coherently and the noises "
             "in quadrature."),
    "rf-ex-fresh/n1000": Answer(
        what="the fresh-batch limit for He_1, psi = 1, at the step sizes of "
             "(0.40, 0.25) and N = 1000",
        rtol=0.0, atol=2e-3,
        hint="eta_t = N^alpha_t; put both into your formula."),
    "rf-ex-zmoment": Answer(
        what="E[z g(z)^p] for g = He_3/sqrt(6)",
        kind="function", rtol=1e-6, atol=1e-6, points=((1,), (2,), (3,), (4,), (5,)),
        hint="numpy.polynomial.hermite_e.hermegauss gives nodes and weights for the "
             "weight exp(-z^2/2); divide the weights by sqrt(2 pi)."),
}
