"""The claim table behind the book's registry page: each claim of the paper
(book: dv-paper-two-steps), each reading the companion derives, and the predecessors'
one-step results the book builds on, mapped to the numbered figure that shows it, the test
that checks it and the stored paper-scale data behind it.

This table is the single source of truth; the page ``book/registry.md`` is generated from
it (``python -m companion.claims > book/registry.md``) and ``tests/test_claims.py`` checks
that the page is up to date and that every entry exists (the figure in exactly one chapter,
the test, the experiment and its data file), and that every experiment is mapped.

A claim types no number: where it quotes one it writes ``⟨name.key⟩``, the value ``key``
of the chapter's summaries function :data:`SUMMARIES` names ``name``, called on the stored
runs as the chapter calls it, so that the registry reads the numbers the chapters print
(``tests/test_claims.py`` compares each with its chapter's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from companion.chapters.finite_size import summaries as fs_summaries
from companion.chapters.learned_directions import learnability_summaries, transect_summaries
from companion.chapters.learned_directions import summaries as ld_summaries
from companion.chapters.reuse_vs_fresh import summaries as rf_summaries
from companion.chapters.two_steps import summaries as ts_summaries
from companion.core import store
from companion.presentation.book import power
from companion.reproduce import CATALOG

#: The paper's abstract (arXiv 2605.17767), word for word: the only text of the paper the
#: companion could read, and so the only text a "the paper states" box or sentence may quote
#: (``tests/test_paper_states.py``). The math, which the plain-text copy of the abstract
#: renders as "N^alpha1"-like run-together symbols, is written here in LaTeX; the words are
#: unchanged.
ABSTRACT = (
    "We study feature learning in two-layer neural networks within the linear-width regime, "
    "where the number of hidden neurons, sample size, and input dimension scale "
    "proportionally. While recent work has analyzed feature learning via a single step of "
    "gradient descent on the first layer weights in this regime, such one-step update "
    "schemes are fundamentally limited: the update to the weights is approximately "
    "rank-one, captures only a single direction, and requires the target function to have "
    "an information exponent of one. In this paper, we go beyond one-step updates to "
    "provide a full characterization of the features learned during the second step of "
    r"gradient descent with step-sizes $\eta_1 \asymp N^{\alpha_1}$ and "
    r"$\eta_2 \asymp N^{\alpha_2}$ for $\alpha_1, \alpha_2 \in [0,0.5)$, where $N$ is "
    "the number of hidden neurons. We derive a spectral characterization of the updated "
    "weights, demonstrating they behave as a spiked random matrix with multiple outliers, "
    "each corresponding to a learned direction. We show that the number of the outliers is "
    r"determined by the parameters $\alpha_1, \alpha_2$ through "
    r"$\lfloor \frac{\alpha_2}{1/2 - \alpha_1} \rfloor$. Furthermore, by analyzing the "
    "alignment between the learned directions and the target function, we identify a gap "
    "between training with independent versus reused batches. While independent batches "
    "restrict learning to directions with an information exponent of one, batch reuse "
    "enables the second update to capture directions even when the information exponent "
    r"exceeds one, provided that $\alpha_1, \alpha_2$ are chosen properly. This shows that "
    "the benefits of batch reuse, previously observed in narrow-width regimes, persist in "
    "the linear-width limit as well. By characterizing these early-phase evolutions, our "
    "work proposes a tractable framework for studying optimization and feature learning "
    "phenomenology in modern overparameterized networks."
)

#: Where ``python -m companion reproduce --scale paper`` results ship (``companion.core.store``).
DATA_DIR = "companion/data/paper"
#: Where the book's build draws each experiment's figure as a PDF (publish/extensions/registry_figures.py)
FIGURES_DIR = "_build/figures"


@dataclass(frozen=True)
class Source:
    """Where a group of the registry's numbers comes from: the chapter that quotes them, its
    summaries function and the stored experiments it is called with, in order."""

    chapter: str
    function: Callable
    experiments: tuple = ()

    @property
    def name(self) -> str:
        """``chapter.module.function``, as the report to the lead lists it."""
        module = self.function.__module__.removeprefix("companion.chapters.")
        return f"{module}.{self.function.__name__}"


#: The chapters' summaries functions the registry reads: a claim writes a number as
#: ⟨name.key⟩ (name a key here, key one of the function's numbers)
SUMMARIES: dict[str, Source] = {
    "finite": Source("two_steps", ts_summaries.phase_check, ("E15", "E16")),
    "content": Source("learned_directions", ld_summaries.spike_content, ("E12",)),
    "learned": Source("learned_directions", ld_summaries.learned, ("E12",)),
    "limits": Source("learned_directions", ld_summaries.limits),
    "tr": Source("learned_directions", transect_summaries.transects, ("E14",)),
    "learn": Source("learned_directions", learnability_summaries.learnability, ("E18",)),
    "readout": Source("reuse_vs_fresh", rf_summaries.readout, ("E17",)),
    "calib": Source("finite_size", fs_summaries.calibration, ("E13",)),
}
#: a number in a claim: ⟨name.key⟩
PLACEHOLDER = re.compile("⟨(\\w+)\\.(\\w+)⟩")


@lru_cache(maxsize=1)
def numbers() -> dict[str, dict[str, str]]:
    """Every group of :data:`SUMMARIES` on the stored runs ("n/a" where they are absent)."""
    return {name: src.function(*(store.load(e) for e in src.experiments)).as_dict()
            for name, src in SUMMARIES.items()}


#: a number in a program's notation, as a summary may still write a size ("1.0e6")
_PROGRAM = re.compile(r"[-+]?\d+(?:\.\d+)?e[-+]?\d+")


def _reader(match) -> str:
    mantissa, exponent = match.group(0).split("e")
    mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    ten = power(10, int(exponent))
    return ten if mantissa == "1" else f"{mantissa} \u00d7 {ten}"


def shown(value: str) -> str:
    """A summary's value as the registry writes it: a number in a program's notation
    (``"1.0e6"``, ``"1.9e5"``) as a reader writes it (``"10⁶"``, ``"1.9 × 10⁵"``), every
    other value unchanged."""
    return _PROGRAM.sub(_reader, value)


def fill(text: str, values: dict | None = None) -> str:
    """``text`` with each ⟨name.key⟩ replaced by its value (:func:`numbers`)."""
    values = numbers() if values is None else values
    return PLACEHOLDER.sub(lambda m: shown(values[m.group(1)][m.group(2)]), text)


@dataclass(frozen=True)
class Claim:
    claim: str          # the claim, in the paper's words where it is the paper's
    source: str         # paper (abstract) / AI-written summary / companion derives / ...
    figure: str         # the :name: of the figure that shows it
    test: str           # tests/<file>.py::<function>
    experiments: tuple = ()   # ids of ``python -m companion reproduce`` behind the figure

    @property
    def data(self) -> list[str]:
        return [f"{DATA_DIR}/{e}.csv" for e in self.experiments]


CLAIMS: list[Claim] = [
    Claim('One step: "the update to the weights is approximately rank-one, captures only a '
          'single direction"',
          "paper (abstract)", "fig-os-rank-one",
          "tests/chapters/one_step/test_one_step_experiments.py::test_gradient_is_rank_one_plus_vanishing_remainder"),
    Claim('One step "requires the target function to have an information exponent of one"',
          "paper (abstract)", "fig-os-he3",
          "tests/chapters/one_step/test_one_step_experiments.py::test_directions_he3_invisible_he1_learned"),
    Claim(r"One step at $\eta = \Theta(1)$: a BBP transition of the top singular value and "
          "its alignment", "predecessors", "fig-os-transition",
          "tests/chapters/one_step/test_one_step_experiments.py::test_transition_unit_shapes_reproducible_and_bbp",
          ("E1",)),
    Claim(r"One step at $\eta = N^\alpha$: the spike grows, its alignment saturates at "
          r"$\cos^2(u_1, \beta^*)$", "predecessors", "fig-os-growth",
          "tests/chapters/one_step/test_one_step_experiments.py::"
          "test_growth_unit_spike_grows_and_alignment_saturates_at_u1", ("E2",)),
    Claim('Two steps: the updated weights "behave as a spiked random matrix with multiple '
          'outliers, each corresponding to a learned direction"', "paper (abstract)",
          "fig-ts-spectrum",
          "tests/chapters/two_steps/test_two_steps_experiments.py::test_spectrum_with_null_shapes_and_first_spike",
          ("E10",)),
    Claim(r"The number of outliers is determined by $\alpha_1, \alpha_2$ through "
          r"$\lfloor \alpha_2 / (1/2 - \alpha_1) \rfloor$; "
          r"$\Lambda = \min(L - 1, \lfloor \alpha_2 / (1/2 - \alpha_1) \rfloor)$, $L$ the "
          "degree of the polynomial expansion",
          "paper (abstract); the cap $L - 1$ from an AI-written summary, not endorsed by the "
          "authors", "fig-ts-phase",
          "tests/core/test_theory.py::test_lambda_on_a_grid_matches_the_formula",
          # E14 (transects across alpha1 + alpha2 = 1/2 and 2 alpha1 + alpha2 = 1) tests this
          # claim and the next by crossing their lines (its own row: fig-ts-transects)
          ("E3", "E14")),
    Claim(r"Read as terms beyond the first spike: $1 + \Lambda$ outliers when every order "
          r"exists, $1 + \lfloor \Lambda/2 \rfloor$ for an odd activation; they appear one by "
          "one as $N$ grows",
          "companion derives, measures", "fig-ts-emergence",
          "tests/chapters/two_steps/test_two_steps_experiments.py::test_spike_emergence_run_at_a_tiny_size",
          ("E11",)),
    Claim(r"At a finite $N$ the census counts the terms whose predicted separate strength "
          r"clears its need: the finite-$N$ phase diagram, predicted at $N$ = "
          r"⟨finite.Ns_pred⟩, approaches the formula's lines slowly; checked by simulation "
          "at ⟨finite.points⟩ points off the lines (⟨finite.agree_all⟩ runs agree, exact interval "
          "⟨finite.agree_all_ci⟩)", "companion derives, measures",
          "fig-ts-finite-phase",
          "tests/chapters/two_steps/test_two_steps_phase_check.py::"
          "test_the_phase_diagram_s_count_at_a_tiny_size_is_the_census_s", ("E15", "E16")),
    Claim(r"Each term crosses the spiked-matrix threshold when its separate strength, growing "
          r"as $N^{\alpha_2 - k(1/2 - \alpha_1)}$, passes it; the last terms are out of reach",
          "companion derives, measures", "fig-ts-emergence",
          "tests/core/test_spikes.py::test_census_counts_spikes_on_the_powers_of_a_above_the_null_edge",
          ("E11",)),
    Claim(r"Term $k$ of $W_2$ has size $N^{\alpha_2 - k(1/2 - \alpha_1)}$; at laptop sizes "
          "the measured slopes exceed it", "companion derives, measures", "fig-ts-exponents",
          "tests/chapters/two_steps/test_two_steps_experiments.py::"
          "test_first_spike_grows_and_even_term_beats_odd_floor", ("E4",)),
    Claim(r"If $\alpha_1 + \alpha_2 < 1/2$, the second update is effectively one step of "
          r"size $\eta_1 + \eta_2$", "AI-written summary, not endorsed by the authors", "fig-ts-one-step",
          "tests/chapters/two_steps/test_two_steps_experiments.py::"
          "test_two_steps_act_as_one_only_with_a_reused_batch", ("E5",)),
    Claim('"Independent batches restrict learning to directions with an information exponent '
          'of one"', "paper (abstract)", "fig-rf-he3",
          "tests/core/test_learning.py::test_he3_learned_only_with_reuse", ("E7", "E14")),
    Claim("The first spike carries the information-exponent-one direction in both batch "
          "settings, a little better with a fresh batch ($2n$ samples in all)",
          "companion derives, measures", "fig-rf-first-direction",
          "tests/chapters/reuse_vs_fresh/test_reuse_vs_fresh_experiments.py::"
          "test_first_direction_unit_reproducible_and_science", ("E6",)),
    Claim(r"Batch reuse lets the second update capture directions of higher information "
          r"exponent, e.g. $\mathrm{He}_3$, if $\Lambda \ge 2$",
          r"paper (abstract); the condition $\Lambda \ge 2$ from an AI-written summary, not "
          "endorsed by the authors", "fig-rf-he3",
          "tests/core/test_learning.py::test_he3_learned_only_with_reuse", ("E7", "E14")),
    Claim(r"The $\mathrm{He}_3$ direction is carried by one outlier whose left vector lies on "
          r"$a^{\circ 3}$, the $k = 2$ term", "companion derives, measures", "fig-rf-outlier",
          "tests/chapters/reuse_vs_fresh/test_reuse_vs_fresh_experiments.py::"
          "test_beta_carrier_finds_the_vector_and_its_left_weights", ("E7",)),
    Claim("Other targets: even links are never learned; a mixture and a bounded odd link "
          "only with reuse", "companion derives, measures", "fig-rf-targets",
          "tests/chapters/reuse_vs_fresh/test_reuse_vs_fresh_experiments.py::"
          "test_reuse_learns_bounded_odd_target_fresh_does_not", ("E8",)),
    Claim(r"Which activations allow it: $\tanh$ and $\tanh(z + 1/2)$ by the expansion; ReLU "
          "lies outside it (measured only)", "companion derives, measures", "fig-rf-activations",
          "tests/chapters/reuse_vs_fresh/test_reuse_vs_fresh_experiments.py::"
          "test_projection_unit_relu_reused_has_no_prediction", ("E9",)),
    Claim(r"Distinct spikes carry distinct directions: with a $\mathrm{He}_1 + \mathrm{He}_3$ "
          r"target and a reused batch the first spike carries $\mathrm{He}_1$ and the $k = 2$ "
          r"spike $\mathrm{He}_3$ (and some $\mathrm{He}_1$), beyond what the fresh batch's "
          r"spikes carry at the same $N$ and seed (the control with the same data noise; the "
          r"null run only repeats chance $1/d$); the $k = 1$ spike carries neither (at "
          r"$N$ = ⟨content.N⟩ a $\cos^2$ of ⟨content.k1_he3⟩ with $\mathrm{He}_3$, at its "
          r"fresh level ⟨learned.k1_he3_fresh⟩, against ⟨content.k2_he3⟩ for the $k = 2$ "
          r"spike)",
          "companion measures", "fig-ts-content",
          "tests/chapters/learned_directions/test_learned_directions_experiments.py::"
          "test_stored_e12_the_k2_spike_carries_he3_beyond_every_null_spike", ("E12",)),
    Claim(r"In the limit the $k = 2$ spike's own part carries both directions, more "
          r"$\mathrm{He}_1$ than $\mathrm{He}_3$ ($\cos^2$ ⟨limits.lim_k2_he1⟩ and "
          r"⟨limits.lim_k2_he3⟩), the $k = 1$ term neither (⟨limits.lim_k1⟩ with either); by the "
          r"finite-$N$ mean field its $\mathrm{He}_3$ content peaks first, near $N \approx$ "
          r"⟨limits.N_peak⟩", "companion derives",
          "fig-ld-path",
          "tests/chapters/learned_directions/test_learned_directions_limits.py::"
          "test_limit_content_of_the_expansion", ("E12",)),
    Claim(r"Across the lines: the $k = 1$ term's growth changes sign at "
          r"$\alpha_1 + \alpha_2 = 1/2$ (slopes in $\log N$ ⟨tr.c_slopes⟩), with a $k = 1$ "
          r"spike counted in ⟨tr.c_counted⟩ of ⟨tr.c_units⟩ runs up to $N$ = ⟨tr.N_max⟩; across "
          r"$2 \alpha_1 + \alpha_2 = 1$ the $k = 2$ term ⟨tr.l_sides⟩ and carries "
          r"$\mathrm{He}_3$ there, the line showing only as a change of its growth "
          "rate (slopes ⟨tr.l_slope_below⟩ below, ⟨tr.l_slope_above⟩ above; by the "
          "prediction, a limit no reachable $N$ sees with this target's heavy-tailed labels; "
          "a bounded link shows it, next entry)",
          "companion measures", "fig-ts-transects",
          "tests/chapters/learned_directions/test_learned_directions_summaries.py::"
          "test_the_stored_transects_in_numbers_and_in_a_table", ("E14",)),
    Claim(r"The learnability line seen at finite $N$: with a bounded odd link of information "
          r"exponent $3$ (no linear part) and a reused batch, the $k = 2$ term's growth in "
          r"$\log N$ changes sign along $\alpha_2$ = ⟨learn.alpha2⟩ at $\alpha_1 \approx$ "
          r"⟨learn.zero⟩ (⟨learn.seeds⟩ seeds, $N$ = ⟨learn.N_low⟩ to ⟨learn.N_high⟩; the "
          r"finite-$N$ prediction: ⟨learn.predicted_zero⟩), below the limit's line "
          r"⟨learn.line⟩; both zeros move towards the line as $N$ grows (from $N$ = "
          r"⟨learn.range_last⟩: measured ⟨learn.zero_last⟩, predicted ⟨learn.pred_last⟩); the "
          r"fresh batch's term barely grows (slopes ⟨learn.fresh_span⟩)",
          "companion measures, derives", "fig-ld-learnability",
          "tests/chapters/learned_directions/test_learnability.py::"
          "test_stored_e18_the_growth_changes_sign_below_the_line_as_predicted", ("E18",)),
    Claim(r"A ridge readout on $\sigma(W x)$ (the companion's own measurement; the paper "
          r"states nothing on test error): one step lowers the $\mathrm{He}_1$ test error below "
          r"$W_0$'s (⟨readout.h1_a_w0⟩ to ⟨readout.h1_a_w1⟩ at $N$ = ⟨readout.N⟩); at "
          r"$N \le$ ⟨readout.N⟩ the fresh batch's $W_2$ predicts better than the reused one "
          r"(reused minus fresh: ⟨readout.h1_a_gap⟩) and no first layer fits a pure "
          r"$\mathrm{He}_3$ target", "companion measures",
          "fig-rf-readout",
          "tests/chapters/reuse_vs_fresh/test_reuse_vs_fresh_readout.py::"
          "test_one_step_lowers_the_first_order_error_on_unstored_seeds", ("E17",)),
    Claim("The census counts a rank-one term on the powers of $a$ once its strength passes "
          "about the BBP value raised by the census's margin over the null run's edge (half "
          "the seeds count it at ⟨calib.thr_range⟩ over the sizes, where that value is "
          "⟨calib.margin_range⟩; terms of known strength planted into null runs)",
          "companion measures",
          "fig-fs-calibration",
          "tests/chapters/finite_size/test_finite_size_calibration.py::test_stored_e13_half_detection_near_the_bbp_value",
          ("E13",)),
    Claim(r"The headline needs seeds: the spread of the $\mathrm{He}_3$ projection at finite "
          "$N$",
          "companion measures", "fig-fs-spread",
          "tests/chapters/finite_size/test_finite_size_experiments.py"
          "::test_headline_spread_and_ordering", ("E7",)),
]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _test_cell(test: str) -> str:
    """``tests/test_x.py::test_what_it_checks`` as words and the test's file name (its folder
    is the test's path in the repository): short enough to wrap on a phone."""
    path, _, func = test.partition("::")
    words = func.removeprefix("test_").replace("_", " ")
    return f"*{words}* (`{Path(path).name}`)"


#: the experiments' titles (plain text, which the command line prints) with their math as
#: the book writes it, for the registry's table; tests/test_claims.py checks that no ASCII
#: math is left on the page
TITLE_MATH = [
    (r"\beta = Theta\(1\)", r"$\\eta = \\Theta(1)$"),
    (r"\beta = N\^alpha", r"$\\eta = N^\\alpha$"),
    (r"\bLambda\(alpha1, alpha2\)", r"$\\Lambda(\\alpha_1, \\alpha_2)$"),
    (r"\balpha1 \+ alpha2 < 1/2", r"$\\alpha_1 + \\alpha_2 < 1/2$"),
    (r"\(He_2\+He_3\)/sqrt2", r"$(\\mathrm{He}_2 + \\mathrm{He}_3)/\\sqrt 2$"),
    (r"\bhe1\+he3\b", r"$\\mathrm{He}_1 + \\mathrm{He}_3$"),
    (r"\bHe_(\d)\b", r"$\\mathrm{He}_\1$"),
    (r"\btanh\(z\+0\.5\)", r"$\\tanh(z + 0.5)$"),
    (r"(?<![\\$\w])tanh\b(?!\()", r"$\\tanh$"),
    (r"\bW2\b", r"$W_2$"),
    (r"\bs1\b", r"$s_1$"),
    (r"\bq_3\b", r"$q_3$"),
    (r"\bvs eta\b", r"vs $\\eta$"),
    (r"(?<= )N\b", r"$N$"),
]


def math_title(title: str) -> str:
    """An experiment's title with its math as MyST math (:data:`TITLE_MATH`, each applied
    outside the math written before it)."""
    for pattern, math in TITLE_MATH:
        parts = re.split(r"(\$[^$]*\$)", title)
        title = "".join(part if i % 2 else re.sub(pattern, math, part)
                        for i, part in enumerate(parts))
    return title


def stored_kinds(eid: str) -> list[str]:
    """The stored files of experiment ``eid`` that exist (``csv``, ``json``, ``npz``)."""
    folder = Path(__file__).resolve().parent / "data" / "paper"
    return [kind for kind in ("csv", "json", "npz") if (folder / f"{eid}.{kind}").is_file()]


def _downloads(eid: str, kinds, pdf: bool = True) -> str:
    """Download links to the stored files of experiment ``eid`` of the given kinds that exist,
    and to its figure as a PDF (``pdf``): a build product, drawn from the stored runs by
    publish/extensions/registry_figures.py into ``_build/figures/`` (so linked only where the runs
    are stored). The build copies every linked file into the book."""
    have = [kind for kind in stored_kinds(eid) if kind in kinds]
    links = [f"{{download}}`{kind.upper()} <../{DATA_DIR}/{eid}.{kind}>`" for kind in have]
    if pdf and "npz" in stored_kinds(eid):
        links.append(f"{{download}}`PDF <../{FIGURES_DIR}/{eid}.pdf>`")
    return ", ".join(links)


def render() -> str:
    """The registry page (MyST markdown) generated from :data:`CLAIMS` and the catalog."""

    lines = [
        "# Registry: claims, figures, tests, data",
        "",
        "<!-- Generated by `python -m companion.claims > book/registry.md` from the table in",
        "     companion/claims.py; edit the table there, never this page. -->",
        "",
        "Each claim of the paper, each reading the companion derives from it, and the "
        "predecessors' one-step results the book builds on: the figure that shows it, the "
        "test that checks it (under `tests/`), and the stored paper-scale runs behind the "
        "figure, as tables (CSV) and the figure itself (PDF). `tests/test_claims.py` checks "
        "that every entry exists. The numbers are the chapters' own: each is computed by the "
        "summaries function its chapter quotes it from, on the same stored runs, and the "
        "test compares each with its chapter's. {doc}`ten_minutes` gives each statement of "
        "the abstract its verdict in this companion.",
        "",
    ]
    for c in CLAIMS:
        data = "; ".join(f"{e} ({_downloads(e, ('csv',))})" for e in c.experiments)
        lines.append(f"- **{c.source[0].upper() + c.source[1:]}.** {fill(c.claim)}. Shown in "
                     f"{{numref}}`{c.figure}`; checked by {_test_cell(c.test)}"
                     + (f"; data: {data}." if data else "."))
    lines += [
        "",
        "(reg-experiments)=",
        "## The experiments",
        "",
        "`python -m companion reproduce` computes each experiment at the book's size "
        "(`small`) or at paper scale (`paper`); the chapters draw the stored paper-scale runs "
        f"in `{DATA_DIR}/`, offered here as tables (CSV), metadata (JSON), the runs "
        "themselves (NPZ) and the figure drawn from them (PDF).",
        "",
        "| id | what | book sizes | paper sizes | stored data |",
        "|---|---|---|---|---|",
    ]
    for eid, entry in CATALOG.items():
        exp = entry.experiment

        def sizes(scale):
            z = exp.sizes[scale]
            keep = {k: v for k, v in z.items() if k in ("N", "Ns", "seeds")}
            text = ", ".join(f"{k} {v}" for k, v in keep.items()).replace("Ns ", "N ")
            if z.get("float32_from") == 0:
                text += " (float32)"
            elif "float32_from" in z:
                text += f" (float32 from {z['float32_from']})"
            if "float32" in z:          # E12: one larger size in float32, at fewer units
                text += f"; {z['float32']['N']} in float32, seeds {z['float32']['seeds']}"
            for g in z.get("more", []):  # E18: larger sizes at some points only
                text += f"; {g['N']} at {len(g['points'])} points, seeds {g['seeds']}"
            text = text.replace("[", "").replace("]", "")
            return re.sub(r"\bN (?=\d)", "$N$ ", text)

        lines.append(f"| {eid} | {_cell(math_title(exp.title))} | {sizes('small')} | "
                     f"{sizes('paper')} | "
                     f"{_downloads(eid, ('csv', 'json', 'npz')) or '-'} |")
    lines += [
        "",
        "## Reproduce and use the data",
        "",
        "```bash",
        "python -m companion reproduce                   # every figure at the book's size",
        "python -m companion reproduce --scale paper --jobs 2 --out results/paper",
        "python -m companion reproduce --only E4,E11 --scheduler tcp://HOST:8786",
        "```",
        "",
        "Each experiment writes `E<k>.png` and `E<k>.pdf` (drawn by the same function as the "
        "chapter's figure), `E<k>.csv` (tidy, long form: one row per run and entry, every "
        "parameter and the seed as columns, each quantity named), `E<k>.json` (package "
        "version, scale, date, the parameters of every run) and "
        "`E<k>.npz` (the runs themselves). Runs are cached under `OUT/cache`, keyed by every "
        "parameter, the seed, the package version and a fingerprint of the numerics' source: "
        "a rerun reuses them, an interrupted run resumes, a damaged entry is recomputed.",
        "",
        "The stored runs ship with the package and the chapters read them with "
        "`companion.core.store.load`; the switch is the environment variable "
        "`COMPANION_PAPER_DATA` (unset: the shipped copy; a folder: that folder; `off`: "
        "none, and the chapters say so). To work with the numbers yourself:",
        "",
        "```python",
        "from companion.core import store",
        "from companion.chapters.two_steps import figures",
        "runs = store.load(\"E11\")                       # Runs: parameters, seed, results",
        "runs.where(activation=\"shifted_tanh\", alpha1=0.38, N=4096).values(\"n_outliers\")",
        "fig = figures.spike_emergence_counts(runs)     # the book's figure, redrawn",
        "```",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    sys.stdout.write(render())
