"""The paper in ten minutes (book/ten_minutes.ipynb): each statement of the abstract, and of
the AI-written public summary where the abstract is silent, with its verdict in this
companion, one figure and the chapter that shows it.

A verdict is one of :data:`VERDICTS`, computed here, never typed: each statement has a
function that reads the numbers its chapter quotes, from the chapter's own ``summaries``
functions called on the stored paper-scale runs (:func:`companion.core.store.load`), and
decides from them. The four verdicts:

* ``shown across its line``: seen wherever the statement says it holds, over every point the
  companion measured on both sides of the line the statement draws;
* ``shown at points``: seen at the points and sizes measured, which do not cover the range the
  statement speaks of;
* ``not seen at reachable sizes``: a statement about the limit whose effect does not show at
  the sizes a computer reaches (the companion's finite-N prediction says why);
* ``contradicted``: measured against it.

Each figure is its chapter's figure function drawn on the stored runs, with its text raised to
what a phone shows legibly (:func:`legible`). As an entry point this module may read every
chapter's package; the chapters never read it. The summaries functions it reads are listed
in :data:`READS`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Callable

from companion.chapters.learned_directions import figures as ld_figures
from companion.chapters.learned_directions import learnability_summaries as ld_learnability
from companion.chapters.learned_directions import summaries as ld_summaries
from companion.chapters.learned_directions import transect_summaries
from companion.chapters.one_step import figures as os_figures
from companion.chapters.one_step import summaries as os_summaries
from companion.chapters.reuse_vs_fresh import figures as rf_figures
from companion.chapters.reuse_vs_fresh import summaries as rf_summaries
from companion.chapters.two_steps import figures as ts_figures
from companion.chapters.two_steps import summaries as ts_summaries
from companion.core import store
from companion.core.runs import Runs
from companion.presentation.book import Numbers, fmt, fmt_fixed, fmt_signed
from companion.presentation.figures import PHONE_COLUMN, PHONE_TEXT, natural_width, visible_texts

VERDICTS = ("shown across its line", "shown at points", "not seen at reachable sizes",
            "contradicted")
ACROSS, POINTS, NOT_SEEN, CONTRADICTED = VERDICTS
#: the verdict where the stored runs a statement needs are switched off or absent
ABSENT = "n/a"
#: how close a measured value must be to the formula it is read against (relative)
AGREE = 0.05
#: the stored experiments the verdicts read (E18, the learnability line with a bounded link,
#: is read once it is stored; until then ``store.load("E18")`` returns None)
EXPERIMENTS = ("E1", "E2", "E5", "E7", "E11", "E12", "E14", "E15", "E16", "E18")

#: the chapters' summaries functions the verdicts read, as "chapter.module.function"
READS = (
    "one_step.summaries.transition", "one_step.summaries.growth",
    "learned_directions.summaries.learned", "learned_directions.summaries.limits",
    "two_steps.summaries.phase_check", "two_steps.summaries.emergence",
    "reuse_vs_fresh.summaries.headline", "learned_directions.transect_summaries.transects",
    "two_steps.summaries.collapse",
)


def stored_runs() -> dict[str, Runs | None]:
    """The stored runs the verdicts read, by experiment (None where absent)."""
    return {eid: store.load(eid) for eid in EXPERIMENTS}


def number(text) -> float:
    """A number as a summary writes it for prose (``"+0.20"``, ``"−0.08"``, ``"93,000"``,
    ``"1.2 × 10⁵"``, ``"0.39 [0.38, 0.40]"``: its first number) as a float; NaN for
    ``"n/a"``."""
    text = str(text).replace("\u2212", "-").replace(",", "")
    sup = str.maketrans("\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079",
                        "-0123456789")
    m = re.search(r"([-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?)(?:\s*\u00d7\s*10([\u207b\u2070-\u2079"
                  r"\u00b9\u00b2\u00b3]+))?", text)
    if m is None:
        return math.nan
    value = float(m.group(1))
    return value * 10 ** int(m.group(2).translate(sup)) if m.group(2) else value


def numbers_of(text) -> list[float]:
    """Every number of a comma-separated list a summary writes (``"-0.08, +0.06"``)."""
    return [number(part) for part in str(text).split(",") if part.strip()]


def _absent(*runs) -> bool:
    return any(r is None or not len(r) for r in runs)


def _close(measured, predicted) -> bool:
    return abs(number(measured) / number(predicted) - 1) <= AGREE


# -- the statements, one function each ---------------------------------------------------

def regime(stored: dict) -> Numbers:
    """The linear-width regime: with N, n and d proportional the initial weights are a
    Marchenko-Pastur bulk of the update's own size, so one step's spike leaves the bulk only
    past a threshold, where the spiked-matrix formulas put it (one_step's ``transition`` on
    the stored one-step runs at eta = Theta(1), read at eta = 2). Shown at points: N = d = n
    only."""
    e1 = stored.get("E1")
    if _absent(e1):
        return Numbers(verdict=ABSENT, N="n/a", eta_c="n/a", s1="n/a", s1_th="n/a")
    t = os_summaries.transition(e1, e1)
    agree = _close(t.paper_s1, t.paper_s1_th) and _close(t.paper_cos2, t.paper_cos2_th)
    return Numbers(verdict=POINTS if agree else CONTRADICTED, N=t.paper_N, eta_c=t.eta_c,
                   s1=t.paper_s1, s1_th=t.paper_s1_th, cos2=t.paper_cos2,
                   cos2_th=t.paper_cos2_th)


def one_step(stored: dict) -> Numbers:
    """One step: a rank-one update along a single direction, which needs information exponent
    one. From one_step's ``growth`` on the stored runs at eta = N^alpha (the spike's right
    vector on the one direction u1, the spike's size per unit step against the rank-one
    limit) and learned_directions' ``learned`` (the first spike of W2, the one-step direction,
    carries He_1's direction and not He_3's beyond the fresh level)."""
    e2, e12 = stored.get("E2"), stored.get("E12")
    if _absent(e2, e12):
        return Numbers(verdict=ABSENT, N="n/a", overlap="n/a", size="n/a", size_th="n/a",
                       he1="n/a", he3="n/a", he3_fresh="n/a")
    g = os_summaries.growth(e2, e2)
    lrn = ld_summaries.learned(e12)
    single = number(g.overlap_u1_max) >= 1 - AGREE and _close(g.s1_over_eta,
                                                                g.s1_over_eta_limit)
    if not single or lrn.k0_he3_carries == "carries":
        verdict = CONTRADICTED
    else:
        verdict = POINTS if lrn.k0_he1_carries == "carries" else NOT_SEEN
    return Numbers(verdict=verdict, N=g.paper_N2, overlap=g.overlap_u1_max,
                   size=g.s1_over_eta, size_th=g.s1_over_eta_limit, he1=lrn.k0_he1,
                   he3=lrn.k0_he3, he3_fresh=lrn.k0_he3_fresh, N_content=lrn.N)


def outliers(stored: dict) -> Numbers:
    """"Multiple outliers, each corresponding to a learned direction": read with the
    companion's definition of a learned direction (a spike that carries a target direction
    beyond the fresh batch's level, book: ld-def-learned), from learned_directions'
    ``learned`` (He_1 + He_3 target, (0.30, 0.45)) and ``limits`` (what each term carries as
    N grows). Contradicted when an outlier the census counts carries neither direction."""
    e12 = stored.get("E12")
    if _absent(e12):
        return Numbers(verdict=ABSENT, N="n/a", carrying="n/a", k1_counted="n/a",
                       k1_he3="n/a", k1_he3_fresh="n/a", limit_k1="n/a")
    lrn, lim = ld_summaries.learned(e12), ld_summaries.limits()
    k1_counted = number(lrn.k1_counted) > 0
    noise = lrn.k1_he1_carries != "carries" and lrn.k1_he3_carries != "carries"
    verdict = CONTRADICTED if k1_counted and noise else POINTS
    return Numbers(verdict=verdict, N=lrn.N, carrying=lrn.spikes_carrying,
                   k1_counted=lrn.k1_counted, k1_he3=lrn.k1_he3, k1_he3_fresh=lrn.k1_he3_fresh,
                   limit_k1=lim.lim_k1)


def count(stored: dict) -> Numbers:
    """The number of outliers, floor(alpha2 / (1/2 - alpha1)), read by the companion as the
    terms beyond the first spike (1 + Lambda outliers with an activation of every order):
    two_steps' ``phase_check`` (the census at points off every line, against the limit and
    against the finite-N prediction) and ``emergence`` (the spikes one by one)."""
    e15, e16, e11 = stored.get("E15"), stored.get("E16"), stored.get("E11")
    if _absent(e15, e16, e11):
        return Numbers(verdict=ABSENT, points="n/a", at_limit="n/a", N="n/a", agree="n/a",
                       counts="n/a")
    f = ts_summaries.phase_check(e15, e16)
    points, below = int(f.points), int(f.below_limit)
    verdict = ACROSS if below == 0 else POINTS if below < points else NOT_SEEN
    return Numbers(verdict=verdict, points=points, at_limit=points - below, N=f.N_largest,
                   agree=f.agree_all, counts=ts_summaries.emergence(e11).b_st_counts)


def batches(stored: dict) -> Numbers:
    """Fresh batches learn only directions of information exponent one, a reused batch
    learns one of higher exponent for suitable exponents: reuse_vs_fresh's ``headline``
    on the stored He_3 runs (the projection of beta* on W2's top four right vectors, reused
    at (0.35, 0.45) and fresh, against N)."""
    e7 = stored.get("E7")
    if _absent(e7):
        return Numbers(verdict=ABSENT, N="n/a", reused="n/a", reused_first="n/a",
                       fresh="n/a", fresh_slope="n/a", chance="n/a")
    h = rf_summaries.headline(e7)
    reuse_learns = number(h.hi_N) > number(h.hi_Nlo) and number(h.hi_N) > 10 * number(h.chance_N)
    fresh_fades = number(h.fr_slope) < 0
    verdict = (POINTS if reuse_learns and fresh_fades
               else CONTRADICTED if not fresh_fades else NOT_SEEN)
    return Numbers(verdict=verdict, N=h.N, N_first=h.Nlo, reused=h.hi_N, reused_first=h.hi_Nlo,
                   fresh=h.fr_N, fresh_slope=h.fr_slope, chance=h.chance_N,
                   fresh_over_chance=h.fr_over_chance)


def learnability(stored: dict) -> Numbers:
    """Where reuse learns a direction of information exponent three: the summary's
    Lambda >= 2, the companion's 2 alpha1 + alpha2 >= 1 (book: dv-learnability). A law of
    that kind shows as the k = 2 term growing above the line and decaying below it.

    With the bounded link of experiment E18, once it is stored, from the slopes of the k = 2
    term's separate strength in log N at its points (:func:`_law_from_bounded`); until then
    from learned_directions' ``transects`` (He_1 + He_3: the k = 2 term's slopes below and
    above the line) and reuse_vs_fresh's ``headline`` (He_3 alone: reused below the line,
    Lambda = 1, against above it): with He_3 the term grows on both sides at every reachable
    N, so the line shows as a difference of growth, not of level."""
    e18 = stored.get("E18")
    if not _absent(e18):
        return _law_from_bounded(e18)
    e14, e7 = stored.get("E14"), stored.get("E7")
    if _absent(e14, e7):
        return Numbers(verdict=ABSENT, source="n/a", below="n/a", above="n/a",
                       control="n/a", control_first="n/a", reused="n/a", N="n/a")
    tr, h = transect_summaries.transects(e14), rf_summaries.headline(e7)
    exponents, slopes = numbers_of(tr.l_exponents), numbers_of(tr.l_slopes)
    return Numbers(verdict=_law(exponents, slopes), source="He_3", below=tr.l_slope_below,
                   above=tr.l_slope_above, control=h.lo_N, control_first=h.lo_Nlo,
                   reused=h.hi_N, N=h.N)


def _law(exponents, slopes) -> str:
    """The verdict on a line from the k = 2 term's leading-order exponent and measured slope
    at each point: decays below and grows above, across the line; grows above and decays at
    some points below, at points; grows on both sides, not seen; does not grow above it,
    contradicted."""
    below = [s for e, s in zip(exponents, slopes) if e < 0]
    above = [s for e, s in zip(exponents, slopes) if e > 0]
    if not above or min(above) <= 0:
        return CONTRADICTED
    if below and max(below) < 0:
        return ACROSS
    return POINTS if any(s < 0 for s in below) else NOT_SEEN


def _law_from_bounded(runs: Runs) -> Numbers:
    """The learnability verdict from E18 (bounded odd link, reused batch), read from
    learned_directions' section on it (:mod:`~companion.chapters.learned_directions.
    learnability_summaries`): each point's measured growth exponent of the k = 2 term over the
    widest stored range of sizes, against the side of 2 alpha1 + alpha2 = 1 it lies on; and
    where the growth changes sign (``zero``) against the line (``line``), and where it
    changes sign over the largest sizes (``zero_last``, up to ``N_last``)."""
    rows = ld_learnability.slope_table(runs, "alpha1")
    alpha2 = ld_learnability.TRANSECTS["alpha1"]["value"]
    line = ld_learnability.line_alpha1(alpha2)
    exponents = [2 * r["alpha1"] + r["alpha2"] - 1 for r in rows]
    slopes = [r["reused_slope"] for r in rows]
    below = [s for e, s in zip(exponents, slopes) if e < 0]
    above = [s for e, s in zip(exponents, slopes) if e > 0]
    zero = ld_learnability.measured_zero(rows)
    N_low_last, N_last = ld_learnability.growth_ranges(runs)[-1]     # the largest sizes
    zero_last = ld_learnability.measured_zero(
        ld_learnability.slope_table(runs, "alpha1", N_low_last, N_last))

    def span(values):
        return (f"{fmt_signed(min(values))} to {fmt_signed(max(values))}" if values
                else "n/a")
    return Numbers(verdict=_law(exponents, slopes), source="bounded", below=span(below),
                   above=span(above), control="n/a", control_first="n/a", reused="n/a",
                   N=fmt(rows[0]["N_high"]), N_low=fmt(rows[0]["N_low"]),
                   zero="n/a" if zero is None else fmt(zero, 2), line=fmt(line, 3),
                   zero_last="n/a" if zero_last is None else fmt_fixed(zero_last, 2),
                   N_last=fmt(N_last),
                   predicted=fmt(ld_learnability.predicted_zero(rows[0]["N_low"],
                                                                rows[0]["N_high"], alpha2), 2))


def two_as_one(stored: dict) -> Numbers:
    """Below alpha1 + alpha2 = 1/2 the two steps act as one step of eta1 + eta2 (the
    summary's words): two_steps' ``collapse`` on the stored runs at (0.20, 0.20), the
    distance between W2 and the one-step reference relative to the step, against N, reused
    and fresh. Shown at points where the reused distance falls with N; the fresh batch's
    stays at its limit (``fresh_limit``)."""
    e5 = stored.get("E5")
    if _absent(e5):
        return Numbers(verdict=ABSENT, N_first="n/a", N="n/a", reused_first="n/a",
                       reused="n/a", fresh="n/a", fresh_limit="n/a")
    c = ts_summaries.collapse(e5)
    falls = number(c.rel_reused) < number(c.rel_reused_first)
    grows = number(c.rel_reused) > number(c.rel_reused_first) * (1 + AGREE)
    return Numbers(verdict=POINTS if falls else CONTRADICTED if grows else NOT_SEEN,
                   N_first=c.Nfirst, N=c.Nlast, reused_first=c.rel_reused_first,
                   reused=c.rel_reused, fresh=c.rel_fresh, fresh_limit=c.fresh_limit)


# -- the statements' table and figures ---------------------------------------------------

@dataclass(frozen=True)
class Statement:
    """A statement of the page: its key (the name the page reads its verdict by), what it
    says in a few words, whose words they are, the chapter that shows it, its verdict
    function and its figure (the chapter's figure function on the stored runs)."""

    key: str
    says: str
    source: str
    chapter: str
    verdict: Callable[[dict], Numbers]
    figure: Callable[[dict], object]


ABSTRACT, SUMMARY = "abstract", "AI-written summary"

STATEMENTS: tuple[Statement, ...] = (
    Statement("regime", "the linear-width regime", ABSTRACT, "one_step", regime,
              lambda s: os_figures.transition(s["E1"])),
    Statement("one_step", "one step learns one direction", ABSTRACT, "one_step", one_step,
              lambda s: os_figures.growth(s["E2"])),
    Statement("outliers", "each outlier is a learned direction", ABSTRACT,
              "learned_directions", outliers, lambda s: ld_figures.spike_content(s["E12"])),
    Statement("count", "the number of outliers", ABSTRACT, "two_steps", count,
              lambda s: ts_figures.spike_emergence_counts(s["E11"])),
    Statement("batches", "fresh against reused batches", ABSTRACT, "reuse_vs_fresh", batches,
              lambda s: rf_figures.headline_projection(s["E7"])),
    Statement("learnability", "where reuse learns He_3", SUMMARY, "learned_directions",
              learnability, lambda s: ld_figures.learnability_line(s["E18"])),
    Statement("two_as_one", "two steps act as one", SUMMARY, "two_steps", two_as_one,
              lambda s: ts_figures.one_step_collapse(s["E5"])),
)
BY_KEY = {s.key: s for s in STATEMENTS}


def read(stored: dict | None = None) -> SimpleNamespace:
    """Every statement's verdict and numbers, by key (``v.count.verdict``), from the stored
    runs (``stored``: :func:`stored_runs` by default)."""
    stored = stored_runs() if stored is None else stored
    return SimpleNamespace(**{s.key: s.verdict(stored) for s in STATEMENTS})


#: raised text is set this much above the size the rule needs, so that the little it widens
#: the figure does not take it below the rule again (one drawing per figure, not several)
HEADROOM = 1.04


def legible(fig, rounds: int = 1):
    """``fig`` with every text raised to at least :data:`PHONE_TEXT` CSS pixels on a phone
    (:func:`smallest_text`, with :data:`HEADROOM`); larger text keeps its size. Raising text
    can widen the figure: ``rounds`` > 1 measures again and repeats while any text is below
    the rule (tests/test_verdicts.py checks every figure of the page)."""
    for t in fig.texts:           # a note under the panels wraps at the figure's width
        t.set_wrap(True)
    for _ in range(rounds):
        scale = min(1.0, PHONE_COLUMN / natural_width(fig))
        need = PHONE_TEXT / scale * 72 / 100
        small = [t for t in visible_texts(fig) if t.get_fontsize() < need - 1e-9]
        if not small:
            break
        for t in small:
            t.set_fontsize(need * HEADROOM)
    return fig


def figure(key: str, stored: dict | None = None):
    """The figure of statement ``key``: its chapter's figure function on the stored runs,
    legible on a phone (:func:`legible`)."""
    stored = stored_runs() if stored is None else stored
    return legible(BY_KEY[key].figure(stored))
