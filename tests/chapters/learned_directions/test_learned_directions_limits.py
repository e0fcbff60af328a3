"""What the theory says each spike carries (companion/chapters/learned_directions/limits.py):
the fresh level, the expansion's limit, the tabulated finite-N paths."""

from __future__ import annotations

import numpy as np
import pytest

from companion.chapters.learned_directions import limits as lm
from companion.core.finite_n import predicted_terms
from companion.core.network import step_size


def test_noise_moments_by_hand():
    # He_1 + He_3: E[z_2^2 y^2] = 1 + E[z^2 He_3^2] / 6 = 1 + 42 / 6, E[z_1^2 y^2] = 3 + 1
    mom = lm.noise_moments("he1+he3")
    assert mom["z2y2"] == pytest.approx([4.0, 8.0], abs=1e-9)
    assert float(mom["y2"]) == pytest.approx(2.0) and list(mom["mu"]) == pytest.approx([1, 0])
    assert lm.noise_moments("he3")["z2y2"] == pytest.approx([7.0], abs=1e-9)


def test_fresh_level_formula():
    N, a1, a2 = 4096, 0.30, 0.45
    e1, e2 = step_size(N, a1), step_size(N, a2)
    sq = e1 ** 2 + e2 ** 2
    # a direction the fresh batch cannot learn: only the noise, 8/n along beta*_2
    want = sq * 8.0 / N / ((e1 + e2) ** 2 + sq * 2.0)
    assert lm.fresh_level(N, a1, a2, "he1+he3", j=1) == pytest.approx(want, rel=1e-9)
    # a single He_3 direction (mu* = 0): the step sizes cancel, 7 / (n E[y^2])
    assert lm.fresh_level(N, a1, a2, "he3", j=0) == pytest.approx(7.0 / N, rel=1e-9)
    # He_1 alone at large N: the one-step fresh limit of book: dv-first-direction
    big = lm.fresh_level(2 ** 40, 0.2, 0.2, "he1", j=0)
    assert big == pytest.approx(4.0 / (4.0 + 2.0), rel=1e-6)
    # more samples, less noise
    assert lm.fresh_level(N, a1, a2, j=1, psi=2.0) < lm.fresh_level(N, a1, a2, j=1)


def test_limit_content_of_the_expansion():
    lim = lm.limit_content("shifted_tanh", "he1+he3", K=3)
    assert lim[0] == pytest.approx([1 / 3, 0.0], abs=1e-12)       # one step's limit
    assert lim[1] == pytest.approx([0.0, 0.0], abs=1e-12)          # E[z y s] = E[z y^2] = 0
    assert lim[2] == pytest.approx([0.01616, 0.009247], rel=1e-3)  # both directions
    # exact quadrature for polynomial links: more nodes change nothing
    assert lm.limit_content(nodes=30) == pytest.approx(lim, abs=1e-12)
    # tanh is odd: no k = 1 term; He_1 alone: the first spike's one-step limit 1/2
    assert lm.limit_content("tanh", "he1+he3")[1] == pytest.approx([0, 0], abs=1e-12)
    he1 = lm.limit_content("tanh", "he1", K=3)
    assert he1[0, 0] == pytest.approx(0.5) and he1[1, 0] == pytest.approx(0.0, abs=1e-12)


def test_the_finite_n_path_tends_to_the_limit():
    path = lm.content_path()
    lim = lm.limit_content()
    assert path["he3"][-1] == pytest.approx(lim[2, 1], rel=0.02)    # 2^50
    assert path["he1"][-1] == pytest.approx(lim[2, 0], rel=0.02)
    N, top = lm.peak(lm.PATH_LOG2[:23], path["he3"][:23])
    assert 2 ** 16 < N < 2 ** 17 and top == pytest.approx(0.074, abs=0.001)
    assert lm.peak([1, 2, 3], [0.0, 1.0, 0.0]) == (4.0, 1.0)         # the vertex itself
    assert lm.peak([1, 2, 3], [0.0, 1.0, 2.0]) == (8.0, 2.0)         # at the edge: the grid


@pytest.mark.slow
def test_the_tables_are_the_prediction():
    """Entries of CONTENT_PATH and BEYOND_TABLE recomputed with predicted_terms."""
    for j in (12.0, 28):
        p = predicted_terms(int(round(2 ** j)), 0.30, 0.45, "shifted_tanh", "he1+he3", K=3)
        stored = lm.CONTENT_PATH[j]
        assert stored == pytest.approx((p["cos2"][2][0], p["cos2"][2][1], p["strength"][2]),
                                       rel=1e-6)
    for target, j in (("he1+he3", 36), ("he1", 20)):
        p = predicted_terms(2 ** j, *lm.BEYOND_POINT, "shifted_tanh", target, K=3)
        assert lm.BEYOND_TABLE[(target, j)] == pytest.approx(
            (p["strength"][2], p["signal"][2]), rel=1e-6)


def test_beyond_reachable_n():
    far, he1 = lm.beyond("he1+he3"), lm.beyond("he1")
    assert set(lm.BEYOND_TABLE) == {(t, j) for t in ("he1+he3", "he1") for j in lm.BEYOND_LOG2}
    # with He_3 in the labels the k = 2 term grows far beyond reach before it falls
    assert far["strength"].max() > 10 and far["N"][np.argmax(far["strength"])] >= 2 ** 32
    # ... and in the end both fall at the leading-order exponent -0.08
    assert far["slope"][-1] == pytest.approx(-0.08, abs=0.005)
    assert he1["slope"][-1] == pytest.approx(-0.08, abs=0.005)
    assert he1["strength"].max() < 1
