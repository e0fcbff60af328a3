"""The paper in ten minutes (companion/verdicts.py, book/ten_minutes.ipynb): each statement's
verdict is one of four, computed from its chapter's summaries on the stored runs; the
learnability verdict reads E18 once it is stored; the page's figures read on a phone; the
page states every verdict, links every chapter and takes at most ten minutes by the rule."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from companion import verdicts
from companion.chapters.learned_directions import summaries as ld
from companion.chapters.two_steps import summaries as ts
from companion.core.runs import Run, Runs
from companion.presentation.figures import PHONE_TEXT, smallest_text
from companion.presentation.reading import reading_time

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "ten_minutes.ipynb"


@pytest.fixture(scope="module")
def stored():
    runs = verdicts.stored_runs()
    if any(runs[e] is None for e in verdicts.EXPERIMENTS if e != "E18"):
        pytest.skip("stored runs switched off or absent")
    return runs


def test_every_statement_has_a_verdict_of_the_four(stored):
    v = verdicts.read(stored)
    for s in verdicts.STATEMENTS:
        assert getattr(v, s.key).verdict in verdicts.VERDICTS, s.key
    assert {s.source for s in verdicts.STATEMENTS} == {verdicts.ABSTRACT, verdicts.SUMMARY}


def test_a_verdict_is_absent_without_its_stored_runs():
    v = verdicts.read(dict.fromkeys(verdicts.EXPERIMENTS))
    assert {getattr(v, s.key).verdict for s in verdicts.STATEMENTS} == {verdicts.ABSENT}


def test_the_verdicts_read_what_the_chapters_quote(stored):
    """A verdict's numbers are its chapter's summary values (spot checks of each kind)."""
    v = verdicts.read(stored)
    finite = ts.phase_check(stored["E15"], stored["E16"])
    assert v.count.agree == finite.agree_all and v.count.points == finite.points
    assert v.count.at_limit == str(int(finite.points) - int(finite.below_limit))
    learned = ld.learned(stored["E12"])
    assert v.outliers.k1_he3 == learned.k1_he3 and v.one_step.he1 == learned.k0_he1


@pytest.mark.parametrize("exponents,slopes,verdict", [
    ([-0.08, -0.06, 0.06, 0.08], [-0.1, -0.05, 0.2, 0.3], verdicts.ACROSS),
    ([-0.08, -0.06, 0.06, 0.08], [0.1, -0.05, 0.2, 0.3], verdicts.POINTS),
    ([-0.08, -0.06, 0.06, 0.08], [0.20, 0.23, 0.39, 0.41], verdicts.NOT_SEEN),
    ([-0.08, -0.06, 0.06, 0.08], [0.20, 0.23, -0.1, 0.41], verdicts.CONTRADICTED),
])
def test_the_law_of_a_line_from_its_slopes(exponents, slopes, verdict):
    assert verdicts._law(exponents, slopes) == verdict


def _bounded(decay_below: bool) -> Runs:
    """Synthetic E18 runs at the alpha1 transect's points: the k = 2 strength grows as N^e,
    e = 2 alpha1 + alpha2 - 1 (the law) or, with ``decay_below`` False, as N^0.2
    everywhere; the fresh batch's stays flat."""
    from companion.chapters.learned_directions.learnability import TRANSECTS

    runs = []
    for a1, a2 in TRANSECTS["alpha1"]["points"]:
        e = 2 * a1 + a2 - 1
        for N in (1024, 4096):
            for seed in range(3):
                strength = N ** (e if decay_below else 0.2) * (1 + 0.01 * seed)
                runs.append(Run(dict(N=N, alpha1=a1, alpha2=a2, activation="tanh",
                                     target="bounded"), seed,
                                dict(separate_reused=np.array([5.0, 1.0, strength, 0.1, 0.1]),
                                     separate_fresh=np.array([5.0, 0.5, 0.6 + 0.01 * seed,
                                                              0.1, 0.1]),
                                     own_cos2_reused=np.full((5, 1), 0.3),
                                     own_cos2_fresh=np.full((5, 1), 0.001))))
    return Runs(runs)


def test_the_learnability_verdict_reads_e18_once_it_is_stored(stored):
    """With E18 stored the verdict is the bounded link's; today store.load("E18") is None
    and it is read from the He_3 runs."""
    today = verdicts.learnability(stored)
    assert today.source == "He_3" if stored["E18"] is None else today.source == "bounded"
    law = verdicts.learnability({**stored, "E18": _bounded(decay_below=True)})
    assert law.source == "bounded" and law.verdict == verdicts.ACROSS
    assert law.below.startswith("-") and law.above.startswith("+")
    flat = verdicts.learnability({**stored, "E18": _bounded(decay_below=False)})
    assert flat.verdict == verdicts.NOT_SEEN


@pytest.mark.parametrize("text,value", [("+0.20", 0.2), ("\u22120.08", -0.08),
                                        ("93,000", 93000.0), ("1.2 \u00d7 10\u2075", 1.2e5),
                                        ("0.39 [0.38, 0.40]", 0.39), ("6 of 6", 6.0)])
def test_a_summary_number_is_read_as_written(text, value):
    assert verdicts.number(text) == pytest.approx(value)
    assert np.isnan(verdicts.number("n/a"))


def test_legible_raises_small_text_to_what_a_phone_shows():
    fig, ax = plt.subplots(figsize=(6.4, 3))
    try:
        ax.set_title("a title", fontsize=7)
        ax.set_xlabel("a label", fontsize=14)
        assert smallest_text(fig) < PHONE_TEXT
        verdicts.legible(fig)
        assert smallest_text(fig) >= PHONE_TEXT - 1e-6
        assert ax.xaxis.label.get_fontsize() == 14        # larger text keeps its size
    finally:
        plt.close(fig)


@pytest.mark.slow
@pytest.mark.parametrize("key", [s.key for s in verdicts.STATEMENTS])
def test_every_figure_of_the_page_reads_on_a_phone(stored, key):
    fig = verdicts.figure(key, stored)
    try:
        assert smallest_text(fig) >= PHONE_TEXT - 1e-6
    finally:
        plt.close(fig)


def _markdown() -> str:
    cells = json.loads(PAGE.read_text())["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def test_the_page_states_every_verdict_and_links_its_chapter():
    text = _markdown()
    for s in verdicts.STATEMENTS:
        assert f"{{eval}}`v.{s.key}.verdict`" in text, s.key
        assert f"{{doc}}`{s.chapter}`" in text, s.chapter
    cells = json.loads(PAGE.read_text())["cells"]
    drawn = [c["source"] for c in cells if "verdicts.figure(" in "".join(c["source"])]
    assert len(drawn) == len(verdicts.STATEMENTS)


def test_the_page_takes_at_most_ten_minutes_and_says_so():
    reading = reading_time(PAGE)
    assert reading.minutes <= 10
    cells = json.loads(PAGE.read_text())["cells"]
    opening = next(c for c in cells if c["cell_type"] == "markdown")
    stored = {e["expression"]: "".join(e["result"]["data"]["text/plain"])
              for e in opening["metadata"].get("user_expressions", [])}
    assert "Reading time: about {eval}`reading.minutes` minutes" in "".join(
        opening["source"]).replace("\n", " ")
    assert stored["reading.minutes"] == str(reading.minutes)
