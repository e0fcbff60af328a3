#!/usr/bin/env python3
"""The exercises' answer key (instructors' material; not installed with the package).

``EXPECTED`` computes every checkable answer with the package (never a typed number), and
``MISTAKES`` the values of likely mistakes, each with a sentence about the mistake that does
not name the right value. The package keeps only the hashed form of both
(``companion/exercises/key.json``, package data; how and why:
``companion/core/answers.py``), so that
``check`` can say "Right", the direction and the likely mistake without holding the value.

    python -m publish answer-key           # print every answer (the instructors' key)
    python -m publish answer-key --write   # regenerate companion/exercises/key.json
    python -m publish answer-key --check   # exit 1 if key.json is not what --write writes

tests/test_checkers.py checks that the stored key is current.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
KEY_FILE = ROOT / "companion" / "exercises" / "key.json"

from companion.chapters.finite_size.experiments import spike_growth_table  # noqa: E402
from companion.chapters.learned_directions.experiments import E12_TARGET  # noqa: E402
from companion.chapters.learned_directions.limits import (  # noqa: E402
    fresh_level,
    limit_content,
)
from companion.chapters.one_step.experiments import (  # noqa: E402
    noise_level,
    threshold_eta,
    transition_theory,
)
from companion.chapters.reuse_vs_fresh.experiments import bounded_odd_link  # noqa: E402
from companion.core.activations import shifted_tanh  # noqa: E402
from companion.core.gaussian import (  # noqa: E402
    gaussian_expectation,
    normalized_hermite_moment,
)
from companion.core.targets import make_link, target_moments  # noqa: E402
from companion.core.theory import (  # noqa: E402
    first_direction_alignment,
    is_learnable,
    lambda_boundary,
    lambda_count,
    n_spikes,
    one_step_prediction,
    phase_line,
    spike_exponent,
    u1_alignment,
)
from companion.course.answers import Answer, fine_cells, key_entry  # noqa: E402
from companion.exercises import ANSWERS  # noqa: E402

# --- one_step -------------------------------------------------------------------------------

def _he1():
    # only the moments of the target enter (mu*, E[y^2]); the directions are not used
    return target_moments("he1")


def _cos2_limit(eta: float, psi: float) -> float:
    """cos^2(v1, beta*) of one step, He_1 target, tanh, N = d, n = psi d (os-conj-bbp)."""
    d = 1000
    n = round(psi * d)
    return float(one_step_prediction(eta, _he1(), "tanh", N=d, d=d, n=n)["cos2"][0])


def _he2_noise() -> float:
    d = 1000
    return d * noise_level(target_moments("he2"), 0, d, d)


def _psi_level(psi: float) -> float:
    return float(u1_alignment(_he1().mu_star, _he1().second_moment, psi)[0])


# --- learned_directions ----------------------------------------------------------------------

def _moment(link, p: int, q: int = 0) -> float:
    """E[z^q g(z)^p] of a Hermite link, exactly (integers and E z^m = (m - 1)!!)."""
    return normalized_hermite_moment(link.hermite, p, q)


def _e12_noise() -> tuple[float, float, float]:
    """(E[z_2^2 y^2], E[y^2], mu*_2) of E12's target y = g_1(z_1) + g_2(z_2), computed
    exactly (never quadrature: the key must not hold rounding noise of 8): expand y^2 with
    z_1 independent of z_2 (book: dv-fresh-level)."""
    g1, g2 = target_moments(E12_TARGET).links
    z2y2 = (_moment(g1, 2) * _moment(g2, 0, 2) + 2 * _moment(g1, 1) * _moment(g2, 1, 2)
            + _moment(g2, 2, 2))
    y2 = _moment(g1, 2) + 2 * _moment(g1, 1) * _moment(g2, 1) + _moment(g2, 2)
    return z2y2, y2, _moment(g2, 1, 1)


def _first_step_level(with_norm: bool = True, with_mean: bool = True) -> float:
    """The limit of d cos^2(u_1, beta*_2), n = d: the variance of u_1 along beta*_2 (times
    n) over its squared norm |mu*|^2 + E[y^2] (ld-ex-noise); the flags drop a part of the
    norm (likely mistakes)."""
    z2y2, y2, mu2 = _e12_noise()
    mu = target_moments(E12_TARGET).mu_star
    norm = (float(mu @ mu) if with_mean else 0.0) + y2
    return (z2y2 - mu2 ** 2) / (norm if with_norm else 1.0)


# --- reuse_vs_fresh ---------------------------------------------------------------------------

def _he1_limit(batch: str, psi: float = 1.0, eta1: float = 1.0, eta2: float = 1.0) -> float:
    """The first-direction alignment limit for a He_1 target (rf-ex-fresh)."""
    link = make_link("he1")
    return float(first_direction_alignment(batch, link.mu_star, link.moment(2), psi,
                                           eta1, eta2)[0])


def _first_learning_order() -> int:
    """The smallest Lambda at which a reused batch learns He_3 with tanh, from
    :func:`companion.is_learnable` at alpha1 = 0.40 (1/2 - alpha1 = 0.1), where
    alpha2 = 0.1 k + 0.01 gives Lambda = k."""
    target = target_moments("he3")
    for k in range(1, 5):
        if is_learnable(target, 0, "reused", 0.40, 0.1 * k + 0.01, "tanh"):
            return k
    raise RuntimeError("He_3 is not learnable up to Lambda = 4")


# --- finite_size ----------------------------------------------------------------------------

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


def _tanh_count_every_order(alpha1: float, alpha2: float) -> int:
    return 1 + lambda_count(alpha1, alpha2)


def _tanh_count_no_first_spike(alpha1: float, alpha2: float) -> int:
    return n_spikes(alpha1, alpha2, "tanh") - 1


#: label -> a function of no arguments computing the right answer with the package
EXPECTED: dict[str, Callable[[], Any]] = {
    # tanh keeps only even orders: its third outlier is the term k = 4 (intro-conj-count)
    "intro-ex-tanh/alpha2": lambda: float(lambda_boundary(4, 0.40)),
    "intro-ex-tanh/generic":
        lambda: n_spikes(0.40, float(lambda_boundary(4, 0.40)), shifted_tanh()),
    "intro-ex-line": lambda: phase_line(0.45, 0.45),
    "os-ex-psi": lambda: _psi_level(4.0),
    "os-ex-phi": lambda: threshold_eta("he1", "tanh", N=500, d=1000, n=1000),
    "os-ex-erf/eta_c": lambda: threshold_eta("he1", "erf", N=1000),
    "os-ex-erf/s1":
        lambda: float(transition_theory([2.0], "he1", "erf", N=1000)["s1"][0]),
    "os-ex-noise": _he2_noise,
    "os-ex-formula": lambda: _cos2_limit,
    "ts-ex-predict/lambda": lambda: lambda_count(0.40, 0.35),
    "ts-ex-predict/exponents": lambda: [spike_exponent(0.40, 0.35, k) for k in range(4)],
    "ts-ex-generic/exponent": lambda: spike_exponent(0.20, 0.45, 1),
    "ts-ex-delta/lambda": lambda: lambda_count(0.45, 0.30),
    "ts-ex-delta/tanh": lambda: n_spikes(0.45, 0.30, "tanh"),
    # sum_j a_j^6 = N E[a^6] = N * E[zeta^6] / N^3
    "ts-ex-exponent/norm": lambda: gaussian_expectation(lambda z: z ** 6),
    "ts-ex-exponent/exponent": lambda: spike_exponent(0.38, 0.45, 2),
    "ts-ex-exponent/lambda": lambda: lambda_count(0.38, 0.45),
    "ts-ex-count": lambda: partial(n_spikes, activation="tanh"),
    "ld-ex-noise/z2y2": lambda: _e12_noise()[0],
    "ld-ex-noise/level": _first_step_level,
    "ld-ex-fresh/level": lambda: fresh_level(1024, 0.30, 0.45, E12_TARGET, j=1),
    "ld-ex-limit/psi1": lambda: list(limit_content(psi=1.0)[2]),
    "ld-ex-limit/psi4": lambda: list(limit_content(psi=4.0)[2]),
    "rf-ex-gentle/zg3": lambda: bounded_odd_link("gentle").z_moment(3),
    "rf-ex-psi/reused": lambda: _he1_limit("reused", psi=2.0),
    "rf-ex-psi/fresh": lambda: _he1_limit("fresh", psi=2.0),
    "rf-ex-he3/zg3": lambda: make_link("he3").z_moment(3),
    "rf-ex-he3/order": _first_learning_order,
    "rf-ex-fresh/equal": lambda: _he1_limit("fresh"),
    "rf-ex-fresh/n1000": lambda: _he1_limit("fresh", eta1=1000 ** 0.40, eta2=1000 ** 0.25),
    "rf-ex-zmoment": lambda: make_link("he3").z_moment,
    "fs-ex-width/N": lambda: float(_slow_k2()["N_for_factor"]),
    "fs-ex-width/cost": lambda: float((_slow_k2()["N_for_factor"] / 1000) ** 3),
    "fs-ex-bbp/threshold": lambda: _width_for(BBP_PHI ** 0.25),
    "fs-ex-bbp/visible": lambda: _width_for(_visible_strength()),
    "fs-ex-growth": lambda: _growth,
}

#: label -> [(a function of no arguments giving what the mistake gives, the sentence)]
MISTAKES: dict[str, list[tuple[Callable[[], Any], str]]] = {
    "intro-ex-tanh/alpha2": [
        (lambda: float(lambda_boundary(2, 0.40)),
         "this counts every order k as an outlier; with tanh only the even orders do."),
        (lambda: float(lambda_boundary(3, 0.40)),
         "this is where Lambda reaches 3, but with tanh the term k = 3 makes no outlier."),
    ],
    "intro-ex-tanh/generic": [
        (lambda: lambda_count(0.40, float(lambda_boundary(4, 0.40))),
         "this counts the orders k but not the first spike."),
        (lambda: n_spikes(0.40, float(lambda_boundary(4, 0.40)), "tanh"),
         "this is tanh's count; an activation with every order has an outlier for each k."),
    ],
    "os-ex-psi": [(lambda: _psi_level(1.0), "this is the level at psi = 1.")],
    "os-ex-phi": [(lambda: threshold_eta("he1", "tanh", N=1000, d=1000, n=1000),
                   "this is the threshold at phi = 1 (theta = 1).")],
    "os-ex-erf/eta_c": [(lambda: threshold_eta("he1", "tanh", N=1000),
                         "this is the threshold of tanh; erf has its own m1.")],
    "os-ex-erf/s1": [(lambda: float(transition_theory([2.0], "he1", "tanh", N=1000)["s1"][0]),
                      "this is the value for tanh; erf has its own m1.")],
    "os-ex-noise": [
        (lambda: gaussian_expectation(lambda z: z ** 6) / 2,
         "this drops the -1 of He_2(z) = z^2 - 1."),
        (lambda: gaussian_expectation(lambda z: z ** 2)
         * gaussian_expectation(lambda z: (z ** 2 - 1) ** 2) / 2,
         "this factors E[z^2 y^2] as E[z^2] E[y^2]; z and y are not independent."),
    ],
    "ts-ex-predict/lambda": [
        (lambda: int(round(0.35 / (0.5 - 0.40) + 1e-9)),
         "Lambda is a floor, not a rounding: the last term must not have a negative "
         "exponent."),
    ],
    "ts-ex-delta/tanh": [
        (lambda: n_spikes(0.45, 0.30, "tanh") - 1, "this leaves out the first spike."),
        (lambda: 1 + lambda_count(0.45, 0.30),
         "this counts every order k; with tanh only the even orders make outliers."),
    ],
    "ts-ex-count": [
        (lambda: _tanh_count_every_order,
         "this counts every order k; with tanh only the even orders make outliers."),
        (lambda: _tanh_count_no_first_spike, "this leaves out the first spike."),
    ],
    "ld-ex-noise/z2y2": [
        (lambda: _e12_noise()[0] - 1.0,
         "this leaves out the He_1 part of y: E[z_1^2 z_2^2] = 1 adds to it."),
        (lambda: _e12_noise()[1],
         "this factors E[z_2^2 y^2] as E[z_2^2] E[y^2]; z_2 and y are not independent."),
    ],
    "ld-ex-noise/level": [
        (lambda: _first_step_level(with_norm=False),
         "this is the variance along beta*_2 (times n); cos^2 divides it by |u_1|^2."),
        (lambda: _first_step_level(with_mean=False),
         "this leaves the mean mu* . beta* out of |u_1|^2."),
    ],
    "ld-ex-fresh/level": [
        (lambda: _first_step_level() / 1024,
         "this is the first step's direction u_1 alone; the fresh batch's first spike "
         "follows eta1 u_1 + eta2 u_2."),
    ],
    "ld-ex-limit/psi4": [(lambda: list(limit_content(psi=1.0)[2]),
                          "this is the limit at psi = 1.")],
    "rf-ex-psi/reused": [(lambda: _he1_limit("reused"), "this is the level at psi = 1.")],
    "rf-ex-psi/fresh": [(lambda: _he1_limit("fresh"), "this is the level at psi = 1.")],
    "rf-ex-he3/zg3": [(lambda: make_link("he3").z_moment(3) * 6 ** 1.5,
                       "this leaves out the normalisation 6^(3/2) of g = He_3/sqrt(6).")],
    "rf-ex-fresh/equal": [
        (lambda: _he1_limit("reused"),
         "this is the reused-batch limit; a fresh batch averages two independent noises."),
    ],
    "fs-ex-width/cost": [(lambda: float((_slow_k2()["N_for_factor"] / 1000) ** 2),
                          "this lets the cost grow like N^2; a two-step run costs N^3.")],
    "fs-ex-bbp/visible": [
        (lambda: _width_for(VISIBLE_S1),
         "this takes 2.1 as the strength theta; 2.1 is where the outlier sits, "
         "theta + 1/theta."),
    ],
}


def _values(spec: Answer, value: Any) -> list[float]:
    """The compared numbers of an answer (a function is evaluated at the test points)."""
    if spec.kind == "function":
        return [float(value(*point)) for point in spec.points]
    if spec.kind == "numbers":
        return [float(v) for v in np.ravel(value)]
    return [float(value)]


def expected_values(label: str) -> list[float]:
    return _values(ANSWERS[label], EXPECTED[label]())


def build_key() -> dict:
    """label -> the hashed key of every checkable answer."""
    missing = sorted(set(ANSWERS) ^ set(EXPECTED))
    if missing:
        raise RuntimeError(f"answers without an expected value, or the reverse: {missing}")
    key = {}
    for label in sorted(ANSWERS):
        spec = ANSWERS[label]
        values = expected_values(label)
        if len(values) != spec.entries:
            raise RuntimeError(f"{label}: {len(values)} values, the spec compares "
                               f"{spec.entries}")
        mistakes = MISTAKES.get(label, [])
        wrong = [_values(spec, compute()) for compute, _ in mistakes]
        for (_, sentence), w in zip(mistakes, wrong):
            if all(set(fine_cells(spec, a)) & set(fine_cells(spec, b))
                   for a, b in zip(w, values)):
                raise RuntimeError(f"{label}: the likely mistake {sentence!r} gives the right "
                                   f"answer")
        key[label] = {
            "mistakes": [sentence for _, sentence in mistakes],
            "entries": [key_entry(spec, label, i, v, [(w[i], j) for j, w in enumerate(wrong)])
                        for i, v in enumerate(values)],
        }
    return key


def render(key: dict) -> str:
    """The key as package data: JSON, one line per answer (readable diffs)."""
    lines = [f"  {json.dumps(label)}: {json.dumps(key[label], sort_keys=True)}"
             for label in sorted(key)]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help=f"rewrite {KEY_FILE.name}")
    group.add_argument("--check", action="store_true", help=f"check {KEY_FILE.name}")
    args = parser.parse_args(argv)
    if args.write or args.check:
        text = render(build_key())
        if args.write:
            KEY_FILE.write_text(text)
            print(f"wrote {KEY_FILE.relative_to(ROOT)}")
            return 0
        current = KEY_FILE.exists() and KEY_FILE.read_text() == text
        print(f"{KEY_FILE.relative_to(ROOT)} is {'current' if current else 'STALE: run --write'}")
        return 0 if current else 1
    for label in sorted(ANSWERS):
        values = ", ".join(f"{v:.6g}" for v in expected_values(label))
        print(f"{label}: {values}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
