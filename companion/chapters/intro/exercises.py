"""What the intro's exercises ask for (book/intro.ipynb, section "Exercises") and how their
answers are compared; the values themselves are only in the hashed key (see
:mod:`companion.exercises`)."""

from __future__ import annotations

from companion.course.answers import Answer

ANSWERS = {
    "intro-ex-tanh/alpha2": Answer(
        what="the smallest alpha2 at which tanh has three outliers in all when alpha1 = 0.40",
        rtol=0.0, atol=5e-3,
        hint="with tanh only the even orders k make outliers; which k is the third outlier?"),
    "intro-ex-tanh/generic": Answer(
        what="the number of outliers of an activation with every order at that point",
        kind="integer",
        hint="every order k = 1..Lambda adds one outlier to the first spike."),
    "intro-ex-line": Answer(
        what="the order k of the phase line through (0.45, 0.45)",
        kind="integer",
        hint="solve alpha2 = k (1/2 - alpha1) for k."),
}
