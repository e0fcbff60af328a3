"""What the exercises of book/learned_directions.ipynb (section "Exercises") ask for and how
their answers are compared; the values themselves are only in the hashed key
(:mod:`companion.exercises`)."""

from __future__ import annotations

from companion.course.answers import Answer

ANSWERS: dict[str, Answer] = {
    "ld-ex-noise/z2y2": Answer(
        what="E[z_2^2 y^2] for y = He_1(z_1) + He_3(z_2)/sqrt(6)",
        rtol=0.01,
        hint="expand y^2; z_1 and z_2 are independent, and E z^(2m) = (2m - 1)!!."),
    "ld-ex-noise/level": Answer(
        what="the limit of d cos^2(u_1, beta*_2) for that target with n = d",
        rtol=0.01,
        hint="divide the variance of u_1 along beta*_2 by the squared norm of u_1, "
             "its mean and its noise in all d directions."),
    "ld-ex-fresh/level": Answer(
        what="the predicted cos^2 of the fresh batch's first spike with beta*_2 at "
             "(0.30, 0.45), N = d = n = 1024",
        rtol=0.02,
        hint="the spike follows eta1 u_1 + eta2 u_2: the means add, the two noises "
             "add in quadrature (book: dv-fresh-level)."),
    "ld-ex-limit/psi1": Answer(
        what="the N -> infinity cos^2 of the k = 2 term's own part with beta*_1 and "
             "with beta*_2 at psi = 1",
        kind="numbers", size=2, rtol=0.02,
        hint="limit_content of companion.chapters.learned_directions.limits; row k = 2."),
    "ld-ex-limit/psi4": Answer(
        what="the N -> infinity cos^2 of the k = 2 term's own part with beta*_1 and "
             "with beta*_2 at psi = n/d = 4",
        kind="numbers", size=2, rtol=0.02,
        hint="limit_content takes psi; row k = 2, one column per target direction."),
}
