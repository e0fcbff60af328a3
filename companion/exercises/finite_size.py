"""Checkable answers to the exercises of book/finite_size.ipynb (section "Exercises"). Each expected
value is computed by the package when it is checked (:mod:`companion.exercises`)."""

from __future__ import annotations

from ..experiments.finite_size import spike_growth_table
from ..theory import spike_exponent
from ._answer import Answer

#: the data of the exercise fs-ex-bbp (stated in its text): the term k = 2 at
#: (alpha1, alpha2) = (0.38, 0.45), supposed to have strength 0.9 at N = 1000 (N = d = n)
BBP_POINT, BBP_K, BBP_N_REF, BBP_STRENGTH = (0.38, 0.45), 2, 1000, 0.9
#: phi = N/d = 1: the BBP threshold phi^(1/4), and the strength at which the outlier is
#: clearly visible (theta + 1/theta >= 2.1 against the edge 2: theta >= about 1.4)
BBP_PHI, VISIBLE_S1 = 1.0, 2.1


def _width_for(strength: float) -> float:
    e = spike_exponent(*BBP_POINT, BBP_K)
    return BBP_N_REF * (strength / BBP_STRENGTH) ** (1.0 / e)


def _visible_strength() -> float:
    # the theta > 1 solving theta + 1/theta = VISIBLE_S1 (N = d)
    s = VISIBLE_S1
    return (s + (s * s - 4.0) ** 0.5) / 2.0


def _growth(alpha1: float, alpha2: float, k: int, N_from: float, N_to: float) -> float:
    return (N_to / N_from) ** spike_exponent(alpha1, alpha2, k)


def _slow_k2() -> dict:
    return spike_growth_table([(0.40, 0.25)], N_ref=1000, factor=1.5)[-1]


ANSWERS = {
    "fs-ex-width/N": Answer(
        what="the width at which the k = 2 term at (0.40, 0.25) is 1.5 times its size at "
             "N = 1000",
        expected=lambda: float(_slow_k2()["N_for_factor"]),
        rtol=0.02,
        hint="the term grows like N^e with e = alpha2 - k (1/2 - alpha1); solve "
             "(N/1000)^e = 1.5."),
    "fs-ex-width/cost": Answer(
        what="the cost of a two-step run at that width relative to N = 1000",
        expected=lambda: float((_slow_k2()["N_for_factor"] / 1000) ** 3),
        rtol=0.05,
        hint="the cost grows like N^3."),
    "fs-ex-bbp/threshold": Answer(
        what="the width at which the term reaches the BBP threshold",
        expected=lambda: _width_for(BBP_PHI ** 0.25),
        rtol=0.02,
        hint="the strength is 0.9 (N/1000)^(e_2); the threshold at N = d is phi^(1/4) = 1."),
    "fs-ex-bbp/visible": Answer(
        what="the width at which its outlier reaches 2.1",
        expected=lambda: _width_for(_visible_strength()),
        rtol=0.02,
        hint="at N = d an outlier of strength theta sits at theta + 1/theta; solve for "
             "theta first."),
    "fs-ex-growth": Answer(
        what="the growth factor of the k-th spike term between two widths",
        expected=lambda: _growth,
        kind="function", rtol=0.01,
        points=[(0.35, 0.45, 2, 500, 8192), (0.35, 0.45, 1, 1000, 4000),
                (0.35, 0.45, 3, 500, 8192), (0.40, 0.25, 2, 1000, 4000),
                (0.20, 0.45, 1, 500, 4000), (0.30, 0.30, 2, 1000, 8000)],
        hint="term k has operator norm of order N^(alpha2 - k (1/2 - alpha1))."),
}
