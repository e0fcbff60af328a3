"""What the exercises of book/finite_size.ipynb (section "Exercises") ask for and how their
answers are compared; the values themselves are only in the hashed key
(:mod:`companion.exercises`)."""

from __future__ import annotations

from companion.course.answers import Answer

ANSWERS = {
    "fs-ex-width/N": Answer(
        what="the width at which the k = 2 term at (0.40, 0.25) is 1.5 times its size at "
             "N = 1000",
        rtol=0.02,
        hint="the term grows like N^e with e = alpha2 - k (1/2 - alpha1); solve "
             "(N/1000)^e = 1.5."),
    "fs-ex-width/cost": Answer(
        what="the cost of a two-step run at that width relative to N = 1000",
        rtol=0.05,
        hint="the cost grows like N^3."),
    "fs-ex-bbp/threshold": Answer(
        what="the width at which the term reaches the BBP threshold",
        rtol=0.02,
        hint="the strength is 0.9 (N/1000)^(e_2); the threshold at N = d is phi^(1/4) = 1."),
    "fs-ex-bbp/visible": Answer(
        what="the width at which its outlier reaches 2.1",
        rtol=0.02,
        hint="at N = d an outlier of strength theta sits at theta + 1/theta; solve for "
             "theta first."),
    "fs-ex-growth": Answer(
        what="the growth factor of the k-th spike term between two widths",
        kind="function", rtol=0.01,
        points=[(0.35, 0.45, 2, 500, 8192), (0.35, 0.45, 1, 1000, 4000),
                (0.35, 0.45, 3, 500, 8192), (0.40, 0.25, 2, 1000, 4000),
                (0.20, 0.45, 1, 500, 4000), (0.30, 0.30, 2, 1000, 8000)],
        hint="term k has operator norm of order N^(alpha2 - k (1/2 - alpha1))."),
}
