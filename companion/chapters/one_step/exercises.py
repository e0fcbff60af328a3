"""What the exercises of book/one_step.ipynb (section "Exercises") ask for and how their answers
are compared; the values themselves are only in the hashed key (:mod:`companion.exercises`)."""

from __future__ import annotations

from companion.course.answers import Answer

ANSWERS = {
    "os-ex-psi": Answer(
        what="the level at which cos^2(v1, beta*) saturates for He_1 with psi = 4",
        rtol=0.01,
        hint="the noise of u1 has squared norm E[y^2]/psi; psi is no longer 1."),
    "os-ex-phi": Answer(
        what="the threshold eta_c of one step at phi = 1/2 (He_1, tanh, psi = 1)",
        rtol=0.01,
        hint="the spike detaches at theta = phi^(1/4), not at theta = 1."),
    "os-ex-erf/eta_c": Answer(
        what="the threshold eta_c for erf at N = d = n (He_1 target)",
        rtol=0.01,
        hint="only m1 = E erf'(zeta) changes; erf'(z) = 2 exp(-z^2) / sqrt(pi)."),
    "os-ex-erf/s1": Answer(
        what="the predicted top singular value for erf at eta = 2, N = d = n",
        rtol=0.01,
        hint="at N = d, s1 = theta + 1/theta with theta = eta m1 sqrt(mu*^2 + E[y^2])."),
    "os-ex-noise": Answer(
        what="the limit of d cos^2(u1, beta*) for y = He_2(z)/sqrt(2)",
        rtol=0.01,
        hint="mu* = 0, so the level is E[z^2 y^2] / E[y^2]; expand with E z^(2m) = "
             "(2m-1)!!."),
    "os-ex-formula": Answer(
        what="the limit of cos^2(v1, beta*) as a function of (eta, psi) (He_1, tanh, N = d)",
        kind="function", rtol=0.01, atol=1e-3,
        points=[(0.5, 1.0), (1.5, 1.0), (2.0, 1.0), (3.0, 1.0), (1.0, 4.0), (2.0, 4.0),
                (3.0, 0.5), (6.0, 2.0)],
        hint="theta = eta m1 sqrt(1 + 1/psi); below theta = 1 the limit is 0; above it "
             "multiply 1 - 1/theta^2 by the alignment of u1."),
}
