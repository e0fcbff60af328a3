"""What the exercises of book/two_steps.ipynb (section "Exercises") ask for and how their
answers are compared; the values themselves are only in the hashed key
(:mod:`companion.exercises`)."""

from __future__ import annotations

from companion.course.answers import Answer

#: points off every phase line (a count is a knife-edge on a line), spread over the square
COUNT_POINTS = ((0.10, 0.10), (0.20, 0.45), (0.30, 0.38), (0.38, 0.45), (0.40, 0.35),
                (0.45, 0.32), (0.45, 0.47), (0.25, 0.40), (0.42, 0.33), (0.05, 0.49))

ANSWERS: dict[str, Answer] = {
    "ts-ex-predict/lambda": Answer(
        what="Lambda(0.40, 0.35)",
        kind="integer",
        hint="Lambda = floor(alpha2 / (1/2 - alpha1))."),
    "ts-ex-predict/exponents": Answer(
        what="the growth exponents of the terms k = 0, 1, 2, 3 at (0.40, 0.35)",
        kind="numbers", size=4, rtol=0.0, atol=5e-3,
        hint="the first spike grows as N^max(alpha1, alpha2); term k >= 1 as "
             "N^(alpha2 - k (1/2 - alpha1))."),
    "ts-ex-generic/exponent": Answer(
        what="the growth exponent of the k = 1 term at (0.20, 0.45)",
        rtol=0.0, atol=5e-3,
        hint="term k grows as N^(alpha2 - k (1/2 - alpha1))."),
    "ts-ex-delta/lambda": Answer(
        what="Lambda(0.45, 0.30)",
        kind="integer",
        hint="Lambda = floor(alpha2 / (1/2 - alpha1)); mind the small denominator."),
    "ts-ex-delta/tanh": Answer(
        what="the number of outliers in all that the companion predicts for tanh at "
             "(0.45, 0.30)",
        kind="integer",
        hint="the first spike, plus one per even order k <= Lambda."),
    "ts-ex-exponent/norm": Answer(
        what="the limit of N^2 ||a^{o3}||^2 for a with entries N(0, 1/N)",
        rtol=0.0, atol=0.01,
        hint="write a_j = zeta_j / sqrt(N) and use the law of large numbers on "
             "sum_j a_j^6; E zeta^6 is a double factorial."),
    "ts-ex-exponent/exponent": Answer(
        what="the growth exponent of the k = 2 term at (0.38, 0.45)",
        rtol=0.0, atol=5e-3,
        hint="multiply the sizes of C_2 (eta2 eta1^2) and of a^{o3} (N^-1), "
             "with ||v_2|| of order one."),
    "ts-ex-exponent/lambda": Answer(
        what="Lambda(0.38, 0.45), the largest k whose exponent is not negative",
        kind="integer",
        hint="solve alpha2 - k (1/2 - alpha1) >= 0 for the largest whole k."),
    "ts-ex-count": Answer(
        what="the companion's count of outliers of W2 for tanh (a function of alpha1 "
             "and alpha2)",
        kind="function", rtol=0.0, atol=0.0, points=COUNT_POINTS,
        hint="tanh keeps only the even orders k <= Lambda; the first spike counts "
             "too."),
}
