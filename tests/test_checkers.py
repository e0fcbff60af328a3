"""The exercises' checkers (``companion.exercises.check``): they accept a right answer however a
student computes it, refuse every kind of wrong answer with a message that says what is wrong,
and never let the value be recovered.

* the hashed key in the package is the one the instructors' answer key (publish/answer_key.py)
  computes now;
* the right answer passes as the key computes it, in the forms a student's computation gives
  (numpy scalars, 0-d arrays, a count off a whole number by rounding, anywhere within the
  tolerance), and as the book's own solutions compute it;
* a wrong value, a wrong type, a wrong shape and a function that raises are each refused with
  a message naming the problem; a direction, when given, is true; a likely mistake is named;
* nothing leaks: the package holds no value and no code that computes one, no feedback holds a
  distance or ratio, and the value and another value of its coarse cell give the same
  feedback to every wrong answer, so no number of wrong tries (two in particular) narrows it
  below a coarse cell (a factor of two, eight tolerances, four whole numbers).
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.course import answers as _answer
from companion.course.answers import Answer, compare, key_entry
from companion.exercises import ANSWERS, check
from publish import answer_key

ROOT = Path(__file__).resolve().parents[1]

LABELS = sorted(ANSWERS)
SCALAR = [k for k in LABELS if ANSWERS[k].kind in ("number", "integer")]
EXPECTED = {label: answer_key.EXPECTED[label]() for label in LABELS}
VALUES = {label: answer_key.expected_values(label) for label in LABELS}


def _tol(spec: Answer, value: float) -> float:
    return 0.5 if spec.whole else spec.atol + spec.rtol * abs(value)


def _perturbed(spec: Answer, value: float, share: float) -> float:
    """``value`` moved by ``share`` of its tolerance (a count: left as it is)."""
    return value if spec.whole else value + share * _tol(spec, value)


# --- the key is current ---------------------------------------------------------------------

def test_the_stored_key_is_what_the_answer_key_computes():
    text = answer_key.render(answer_key.build_key())
    assert answer_key.KEY_FILE.read_text() == text, (
        "companion/exercises/key.json is stale: run python -m publish answer-key --write")


#: the CPU flags (as /proc/cpuinfo names them) that an OpenBLAS kernel family needs: forced
#: onto a CPU without them, its kernels stop the process with an illegal instruction
#: (SIGILL), which says nothing about the key
KERNEL_FLAGS = {"Haswell": {"avx2", "fma"}, "SkylakeX": {"avx512f", "avx512bw", "avx512vl"},
                "Prescott": {"pni"}}      # SSE3, which Linux calls pni


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {f for line in text.splitlines() if line.startswith("flags")
            for f in line.split(":", 1)[1].split()}


@pytest.mark.slow
@pytest.mark.parametrize("coretype", [
    c if KERNEL_FLAGS[c] <= _cpu_flags() else pytest.param(c, marks=pytest.mark.skip(
        reason=f"this CPU lacks {', '.join(sorted(KERNEL_FLAGS[c] - _cpu_flags()))}"))
    for c in ("Haswell", "SkylakeX", "Prescott")])
def test_the_key_is_the_same_under_another_cpus_blas_kernels(coretype):
    """Another CPU's BLAS (its OpenBLAS kernel family, played with OPENBLAS_CORETYPE in a
    fresh process) computes the same key: no stored answer depends on the last bits of a
    sum (an answer that is exactly 0 is computed as 0, not as rounding noise of a sign)."""
    env = {**os.environ, "OPENBLAS_CORETYPE": coretype}
    out = subprocess.run([sys.executable, "-m", "publish", "answer-key", "--check"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, (coretype, out.stdout, out.stderr)


def test_the_answers_that_vanish_are_exactly_zero():
    """E[z g^p] for g = He_3/sqrt(6) vanishes at p = 1 (orthogonality), 2 and 4 (parity)."""
    assert VALUES["rf-ex-zmoment"][0] == VALUES["rf-ex-zmoment"][1] == 0.0
    assert VALUES["rf-ex-zmoment"][3] == 0.0


def test_every_answer_has_an_expected_value_and_the_right_count_of_numbers():
    assert set(answer_key.EXPECTED) == set(ANSWERS)
    for label in LABELS:
        assert len(VALUES[label]) == ANSWERS[label].entries, label


# --- right answers, as students compute them ----------------------------------------------------

@pytest.mark.parametrize("label", LABELS)
def test_the_right_answer_passes_in_every_form(label):
    spec, right = ANSWERS[label], EXPECTED[label]
    forms = [right]
    if spec.kind in ("number", "integer"):
        v = float(right)
        forms += [np.float64(v), np.float32(v) if not spec.whole else np.int64(round(v)),
                  np.array(v), v * (1 + 2e-16), v - 1e-14 * max(1.0, abs(v))]
        if not spec.whole:
            forms += [_perturbed(spec, v, 0.99), _perturbed(spec, v, -0.99)]
        else:
            forms += [int(round(v)), float(round(v)) + 1e-12 * max(1, abs(v)),
                      np.float64(round(v)) - 1e-13]
    elif spec.kind == "numbers":
        vs = [float(v) for v in right]
        forms += [tuple(vs), np.array(vs), [np.float64(v) for v in vs],
                  [_perturbed(spec, v, 0.9 * (-1) ** i) for i, v in enumerate(vs)]]
    else:
        forms += [lambda *a: np.float64(right(*a)), lambda *a: np.array(right(*a)),
                  lambda *a: _perturbed(spec, float(right(*a)), 0.9)]
        if spec.whole:
            forms += [lambda *a: float(right(*a)) + 3e-15]
    for form in forms:
        verdict = check(label, form)
        assert verdict and verdict.message.startswith("Right"), (label, form, verdict)


@pytest.mark.parametrize("label, answer", [
    ("intro-ex-line", 0.45 / (0.5 - 0.45)),            # 9.000000000000002
    ("ts-ex-delta/lambda", 0.30 / (0.5 - 0.45)),       # 6.000000000000001
    ("ts-ex-delta/lambda", math.floor(0.30 / (0.5 - 0.45) + 1e-9)),
    ("intro-ex-tanh/alpha2", 4 * (0.5 - 0.40)),        # 0.3999999999999999
    ("ts-ex-exponent/norm", 5 * 3 * 1),                # (2m-1)!! for m = 3
    ("ts-ex-predict/exponents", [0.40, 0.35 - 0.1, 0.35 - 0.2, 0.35 - 0.3]),
    ("os-ex-noise", (15 - 2 * 3 + 1) / 2),
])
def test_right_answers_in_the_forms_of_a_hand_computation(label, answer):
    assert check(label, answer), check(label, answer)


SOLUTION_CHECK = re.compile(r"""check\(\s*["']([\w/-]+)["']""")


def _solution_cells():
    for stem in ["intro", "one_step", "two_steps", "learned_directions", "reuse_vs_fresh",
                 "finite_size"]:
        nb = json.loads((ROOT / "book" / f"{stem}.ipynb").read_text())
        for cell in nb["cells"]:
            source = "".join(cell["source"])
            if (cell["cell_type"] == "code" and "solution" in cell["metadata"].get("tags", [])
                    and SOLUTION_CHECK.search(source)):
                yield pytest.param(source, id=SOLUTION_CHECK.findall(source)[0])


@pytest.mark.slow
@pytest.mark.parametrize("source", list(_solution_cells()))
def test_the_books_solutions_pass_their_checks(source):
    """Each solution, run as a student runs it (fresh names, its own imports), passes every
    check it calls, with the checker of this package (not the stored output)."""
    tree = ast.parse("\n".join(ln for ln in source.splitlines()
                               if not ln.lstrip().startswith(("%", "!"))))
    if tree.body and isinstance(tree.body[-1], ast.Expr):   # a notebook shows the last value
        tree.body[-1] = ast.Expr(ast.Call(ast.Name("print", ast.Load()), [tree.body[-1].value], []))
        ast.fix_missing_locations(tree)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(tree, "<solution>", "exec"), {"__name__": "__solution__"})
    shown = out.getvalue()
    calls = len(SOLUTION_CHECK.findall(source))
    assert shown.count("Right:") == calls and "Not yet" not in shown, shown


# --- wrong answers ----------------------------------------------------------------------------

def _far(spec: Answer, value: float, factor: float) -> float:
    if spec.whole:
        return round(value * factor) + (10 if factor > 1 else -10)
    return value * factor + math.copysign(20 * _tol(spec, value), factor - 1)


@pytest.mark.parametrize("label", LABELS)
def test_a_wrong_value_is_refused_with_a_true_direction(label):
    spec = ANSWERS[label]
    values = VALUES[label]
    for factor, word in ((1.6, "too high"), (0.4, "too low")):
        wrong = [_far(spec, v, factor) if abs(v) > 1e-9 else
                 v + math.copysign(20 * _tol(spec, v), factor - 1) for v in values]
        answer = {"numbers": wrong, "function": lambda *a, _w=wrong: _w[
            spec.points.index(a)]}.get(spec.kind, wrong[0])
        verdict = check(label, answer)
        assert not verdict and verdict.message.startswith("Not yet"), (label, verdict)
        message = verdict.message
        said = {w for w in ("too high", "too low") if w in message}
        assert said <= {word}, f"{label}: says {said} for an answer that is {word}: {message}"


@pytest.mark.parametrize("label", [k for k in LABELS if not ANSWERS[k].whole])
def test_the_tolerance_is_at_most_one_and_a_half_times_the_stated_one(label):
    spec = ANSWERS[label]
    values = VALUES[label]
    for share in (1.6, -1.6):
        wrong = [_perturbed(spec, v, share) for v in values]
        answer = {"numbers": wrong, "function": lambda *a, _w=wrong: _w[
            spec.points.index(a)]}.get(spec.kind, wrong[0])
        assert not check(label, answer), (label, share)


def _bad_scalars():
    return [("a string", "9", "string"), ("a list", [9], "list of 1 item"),
            ("None", None, "None is not a number"), ("nan", float("nan"), "nan"),
            ("infinity", float("inf"), "finite"), ("a truth value", True, "truth value"),
            ("a complex number", 1 + 2j, "complex"), ("an array", np.ones(3), "shape (3,)"),
            ("a dict", {"x": 1}, "dict")]


@pytest.mark.parametrize("label", SCALAR)
@pytest.mark.parametrize("what, answer, says", _bad_scalars(), ids=[b[0] for b in _bad_scalars()])
def test_a_wrong_type_gets_a_clear_message(label, what, answer, says):
    verdict = check(label, answer)
    assert not verdict and says in verdict.message and "Give " in verdict.message, verdict


def test_a_count_that_is_not_whole_is_refused():
    verdict = check("intro-ex-line", 9.5)
    assert not verdict and "not a whole number" in verdict.message


@pytest.mark.parametrize("answer, says", [
    ([None, 0.25, 0.15, 0.05], "number 1 of the list: None is not a number"),
    ([0.4, "0.25", 0.15, 0.05], "number 2 of the list: the string"),
    ([0.4, 0.25, float("nan"), 0.05], "number 3 of the list: nan"),
    ([0.4, 0.25, 0.15], "3 numbers given, 4 asked for"),
    (np.zeros((2, 2)), "shape (2, 2)"),
    (0.4, "is not a list of 4 numbers"),
    ({0.4, 0.25, 0.15, 0.05}, "no order"),
    ("0.4 0.25 0.15 0.05", "is not a list of 4 numbers"),
])
def test_a_list_of_the_wrong_shape_or_entries_gets_a_clear_message(answer, says):
    verdict = check("ts-ex-predict/exponents", answer)
    assert not verdict and says in verdict.message, verdict


def _raises(*args):
    raise ValueError("alpha out of range")


@pytest.mark.parametrize("answer, says", [
    (_raises, "raised ValueError: alpha out of range when called with (0.1, 0.1)"),
    (lambda a1, a2: 1 / 0, "raised ZeroDivisionError"),
    (lambda a1: 1, "raised TypeError"),
    (lambda a1, a2: None, "None is not a number"),
    (lambda a1, a2: "3", "the string '3' is not a number"),
    (lambda a1, a2: float("nan"), "nan is not a number"),
    (lambda a1, a2: 2.5, "2.5 is not a whole number"),
    (lambda a1, a2: [1, 2], "not one number"),
    (3, "not callable"),
    (None, "not callable"),
])
def test_a_function_that_raises_or_returns_no_number_gets_a_clear_message(answer, says):
    verdict = check("ts-ex-count", answer)
    assert not verdict and says in verdict.message, verdict


@pytest.mark.parametrize("label", LABELS)
def test_no_answer_yet_and_an_unknown_label(label):
    assert not check(label, ...) and check(label, ...).message.startswith("No answer yet")
    with pytest.raises(KeyError, match="no checker"):
        check(label + "-no-such-part", 1)


def _mistakes():
    for label, listed in answer_key.MISTAKES.items():
        for compute, sentence in listed:
            yield pytest.param(label, compute, sentence, id=f"{label}:{sentence[:20]}")


@pytest.mark.parametrize("label, compute, sentence", list(_mistakes()))
def test_each_likely_mistake_is_named(label, compute, sentence):
    verdict = check(label, compute())
    assert not verdict and f"A likely mistake: {sentence}" in verdict.message, verdict


# --- nothing leaks ----------------------------------------------------------------------------

def test_the_package_holds_no_value_and_no_code_that_computes_one():
    public = {f.name for f in Answer.__dataclass_fields__.values()}
    assert public == {"what", "kind", "rtol", "atol", "points", "hint", "size"}
    for spec in ANSWERS.values():
        assert not hasattr(spec, "expected") and not hasattr(spec, "value")
    # the chapters' exercise modules import nothing of the package but the comparison
    # (companion.course.answers): the functions that compute the values (theory, experiments)
    # are not reachable from them
    modules = sorted((ROOT / "companion" / "chapters").glob("*/exercises.py"))
    assert len(modules) == 6      # one per chapter with exercises
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                assert node.module == "companion.course.answers", (
                    f"{path} imports {node.module} (level {node.level})")
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith(("companion", "publish", "answer_key"))
                               for a in node.names), path
    folder = ROOT / "companion" / "exercises"
    assert "answer_key" not in "".join(p.read_text() for p in folder.glob("[!_]*.py"))


def _stored_strings(obj):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _stored_strings(k)
            yield from _stored_strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _stored_strings(v)
    else:
        yield obj


#: a number as the checker writes it: 0.25, -3, 1.652 × 10⁶, 10⁻⁴ (companion.presentation.book.fmt)
NUMBER = re.compile(r"-?(?:\d+(?:\.\d+)? × 10[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+|10[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+|\d+(?:\.\d+)?)")
_SUPER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def _value(shown: str) -> float:
    """The value of a number as :data:`NUMBER` finds it."""
    if "10" in shown and any(c in shown for c in "⁰¹²³⁴⁵⁶⁷⁸⁹"):
        mantissa, _, ten = shown.rpartition("10")
        mantissa = mantissa.replace("×", "").strip()
        factor = {"": 1.0, "-": -1.0}.get(mantissa) or float(mantissa)
        return factor * 10.0 ** int(ten.translate(_SUPER))
    return float(shown)


@pytest.mark.parametrize("label", LABELS)
def test_the_stored_key_holds_hashes_and_words_only(label):
    from companion.exercises import key
    KEY = key()
    stored = KEY[label]
    assert set(stored) == {"mistakes", "entries"}
    spec = ANSWERS[label]
    for entry in stored["entries"]:
        assert len(entry["fine"]) == _answer.FINE_STORED
        assert sorted(entry["coarse"].values()).count("near") == 3
        assert set(entry["coarse"].values()) == {"low", "near", "high"}
        for item in [*entry["fine"], *entry["coarse"], *entry["mistakes"]]:
            assert re.fullmatch(r"[0-9a-f]{24}", item), item
        assert all(isinstance(i, int) for v in entry["mistakes"].values() for i in v)
    # the mistakes' sentences name no number that is the answer
    for sentence in stored["mistakes"]:
        for shown in NUMBER.findall(sentence):
            for v in VALUES[label]:
                assert abs(_value(shown) - v) > _tol(spec, v), (label, sentence)


def _twin(spec: Answer, value: float) -> float:
    """Another value in the coarse cell of ``value`` whose fine cells are all different."""
    home, cells = _answer.coarse_cell(spec, value), set(_answer.fine_cells(spec, value))
    if spec.whole:
        steps = [value + s for s in (1, -1, 2, -2, 3, -3)]
    else:
        tol = _tol(spec, value)
        steps = [value + s * m * tol for m in np.arange(3.5, 200, 0.5) for s in (1, -1)]
    for other in steps:
        if (_answer.coarse_cell(spec, other) == home
                and not cells & set(_answer.fine_cells(spec, other))):
            return float(other)
    raise AssertionError(f"no twin for {value}")


def _tries(spec: Answer, value: float, twin: float) -> list[float]:
    tol, scale = _tol(spec, value), max(abs(value), 1.0)
    tries = [0.0, -value, value * 1e3, value * 1e-3, -1.0, 1.0, 2.0, 10.0]
    tries += [value * f for f in (0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.05, 1.1, 1.3, 2, 5)]
    tries += [c + k * tol for c in (value, twin) for k in (-12, -6, -3, -2, 2, 3, 6, 12)]
    tries += [(value + twin) / 2, 2 * twin - value, scale * 7.3]
    if spec.whole:
        # every whole number near the value, and the rest rounded
        tries = sorted({float(round(t)) for t in tries}
                       | {float(n) for n in range(int(value) - 30, int(value) + 31)})
    return tries


@pytest.mark.parametrize("label", LABELS)
def test_wrong_tries_cannot_tell_the_value_from_another_in_its_coarse_cell(label):
    """Whatever wrong answers a student tries (any number of them, so two as well), the
    feedback is the same whether the value is the companion's or another value of its
    coarse cell: the tries determine at most the coarse cell, which is much wider than the
    tolerance. The stored keys of both have the same shape."""
    spec = ANSWERS[label]
    values = VALUES[label]
    from companion.exercises import key
    KEY = key()
    mistakes = [answer_key._values(spec, compute()) for compute, _ in
                answer_key.MISTAKES.get(label, [])]
    for i, value in enumerate(values):
        twin = _twin(spec, value)
        assert twin != value if spec.whole else abs(twin - value) > 3 * _tol(spec, value)
        mine = [(m[i], j) for j, m in enumerate(mistakes)]
        keys = [key_entry(spec, label, i, v, mine) for v in (value, twin)]
        assert keys[0] == KEY[label]["entries"][i]
        assert [len(k["fine"]) for k in keys] == [_answer.FINE_STORED] * 2
        assert sorted(keys[0]["coarse"].values()) == sorted(keys[1]["coarse"].values())
        scalar = Answer(what="x", kind="integer" if spec.whole else "number",
                        rtol=spec.rtol, atol=spec.atol, hint="h")
        wrong_tries = 0
        for x in _tries(spec, value, twin):
            verdicts = [_answer._verdict(spec, label, i, k, x) for k in keys]
            if verdicts[0][0] or verdicts[1][0]:
                continue            # right for one of them: that is not a wrong try
            wrong_tries += 1
            said = [(v[1], tuple(sorted(k["mistakes"].get(v[2], []))))
                    for v, k in zip(verdicts, keys)]
            assert said[0] == said[1], (label, i, x, said)
            if spec.kind in ("number", "integer"):
                shown = [compare(scalar, {"entries": [k], "mistakes": KEY[label]["mistakes"]},
                                 label, x).message for k in keys]
                assert shown[0] == shown[1], (label, x, shown)
        assert wrong_tries >= 20


@pytest.mark.parametrize("label", SCALAR)
def test_no_feedback_holds_a_distance_or_a_ratio(label):
    spec = ANSWERS[label]
    value = VALUES[label][0]
    for x in _tries(spec, value, _twin(spec, value)):
        message = check(label, x).message
        if message.startswith("Right"):
            continue
        rest = message.replace(spec.what, "").replace(spec.hint, "")
        for sentence in answer_key.MISTAKES.get(label, []):
            rest = rest.replace(sentence[1], "")
        shown = NUMBER.findall(rest)
        allowed = {_answer._show(spec, x) if not spec.whole else str(int(round(x)))}
        assert set(shown) <= allowed, (label, x, message)
        assert "%" not in rest and " by " not in rest, message


def test_the_issues_examples_no_longer_give_the_answer_away():
    line = check("intro-ex-line", 2).message
    assert "7" not in line and "too low" in line
    noise = check("os-ex-noise", 4).message
    assert "%" not in noise and "20" not in noise
    count = check("ts-ex-count", ...).message
    assert "floor" not in count and "Lambda/2" not in count


# --- the form alone (the assignments' public tests) ----------------------------------------------

@pytest.mark.parametrize("label", LABELS)
def test_check_form_accepts_any_value_of_the_right_form_and_names_a_wrong_one(label):
    from companion.exercises import check_form
    spec = ANSWERS[label]
    right = {"integer": 12345, "number": -3.5, "numbers": [7.0] * spec.size,
             "function": lambda *a: 1}[spec.kind]
    assert check_form(label, right) and check_form(label, right).message.startswith("Right form")
    assert check_form(label, EXPECTED[label])
    for wrong in ("1", None, ...):
        verdict = check_form(label, wrong)
        assert not verdict and "Right" not in verdict.message, (label, wrong, verdict)
