"""The claim table: one table mapping each claim of the paper (SPEC section 0) to where
the book shows it, the function that computes it, the experiment of
``python -m companion reproduce`` that regenerates it, the test that checks it and the
paper-scale data file.

This table is the single source of truth; the book page ``book/registry.md`` is generated
from it (``python -m companion.claims > book/registry.md``) and a test checks that the page
is up to date and that every entry exists (the notebook and the heading in it, the
function, the test, the data file or the explicit mark "not yet computed").
"""

from __future__ import annotations

from dataclasses import dataclass

NOT_YET = "not yet computed"

#: Paper-scale data committed under ``companion/data/paper/`` (``--scale paper``), or :data:`NOT_YET`.
PAPER_DATA: dict[str, str] = {f"E{k}": f"companion/data/paper/E{k}.csv" for k in range(1, 12)}


@dataclass(frozen=True)
class Claim:
    claim: str          # the claim, as SPEC section 0 lists it
    source: str         # "paper (abstract)", "paper (summary)" or "predecessor"
    chapter: str        # notebook path, relative to the repository
    section: str        # heading text in that notebook (as written in its markdown)
    function: str       # importable companion function that computes it
    experiments: tuple  # experiment ids of ``python -m companion reproduce``
    test: str           # tests/<file>.py::<function>

    @property
    def data(self) -> list[str]:
        return [PAPER_DATA[e] for e in self.experiments]


CLAIMS: list[Claim] = [
    Claim("Linear-width regime: N, n, d grow together (N ~ n ~ d); W0's singular values fill "
          "the Marchenko-Pastur bulk", "paper (abstract)", "book/intro.ipynb",
          "## The linear-width regime", "companion.spectra.mp_edges", ("E10",),
          "tests/test_spectra.py::test_mp_edges_match_W0_at_N_equals_d_1000"),
    Claim("One step (the predecessors): the gradient is rank one plus a vanishing remainder; "
          "a BBP transition at eta = Theta(1)", "predecessor", "book/one_step.ipynb",
          "## The transition at $\\eta = \\Theta(1)$",
          "companion.experiments.one_step.transition_unit", ("E1",),
          "tests/test_experiments_one_step.py::test_transition_unit_shapes_reproducible_and_bbp"),
    Claim("One step with eta = N^alpha: the spike grows, its alignment saturates at "
          "cos^2(u1, beta*)", "predecessor", "book/one_step.ipynb",
          "## Large steps: $\\eta = N^\\alpha$", "companion.experiments.one_step.growth_unit",
          ("E2",),
          "tests/test_experiments_one_step.py::"
          "test_growth_unit_spike_grows_and_alignment_saturates_at_u1"),
    Claim("Two GD steps on the first layer with eta_t ~ N^alpha_t, alpha_t in [0, 1/2)",
          "paper (abstract)", "book/two_steps.ipynb", "## The statement",
          "companion.experiments.two_steps.two_step_run", ("E3",),
          "tests/test_experiments_two_steps.py::test_sweep_shapes_and_reproducible"),
    Claim("W2 is a spiked random matrix whose outliers are the learned directions",
          "paper (abstract)", "book/two_steps.ipynb",
          "## The spectrum of $W_2$ beside a null run",
          "companion.experiments.two_steps.spectrum_with_null", ("E10",),
          "tests/test_experiments_two_steps.py::test_spectrum_with_null_shapes_and_first_spike"),
    Claim("Number of added spikes floor(alpha2 / (1/2 - alpha1)), Lambda = min(L - 1, that) "
          "with L the activation's degree", "paper (abstract, summary)",
          "book/two_steps.ipynb", "## The phase diagram", "companion.theory.lambda_count",
          ("E3",), "tests/test_theory.py::test_lambda_capped_by_polynomial_degree"),
    Claim("Term k of W2 has size N^(alpha2 - k(1/2 - alpha1)) (the companion's exponent "
          "check of the count)", "companion derivation", "book/two_steps.ipynb",
          "## The exponent check", "companion.experiments.two_steps.two_step_sweep", ("E4",),
          "tests/test_experiments_two_steps.py::"
          "test_first_spike_grows_and_even_term_beats_odd_floor"),
    Claim("alpha1 + alpha2 < 1/2: two steps act as one step with eta1 + eta2",
          "paper (summary)", "book/two_steps.ipynb", "## When two steps act as one",
          "companion.experiments.two_steps.two_step_sweep", ("E5",),
          "tests/test_experiments_two_steps.py::"
          "test_two_steps_act_as_one_only_with_a_reused_batch"),
    Claim("Fresh batches learn only information-exponent-one directions (first direction: "
          "reused vs fresh alignment)", "paper (abstract)", "book/reuse_vs_fresh.ipynb",
          "## The first learned direction",
          "companion.experiments.reuse_vs_fresh.first_direction_unit", ("E6", "E8"),
          "tests/test_experiments_reuse_vs_fresh.py::"
          "test_first_direction_unit_reproducible_and_science"),
    Claim("Reused batches learn directions of higher information exponent for suitable "
          "alphas (other targets, activations)", "paper (abstract)",
          "book/reuse_vs_fresh.ipynb", "## Other targets",
          "companion.experiments.reuse_vs_fresh.projection_unit", ("E8", "E9"),
          "tests/test_experiments_reuse_vs_fresh.py::"
          "test_reuse_learns_bounded_odd_target_fresh_does_not"),
    Claim("The He_3 example: learned with reuse if Lambda >= 2 (the companion derives the "
          "converse), not with a fresh batch",
          "paper (summary)", "book/reuse_vs_fresh.ipynb",
          "## A $\\mathrm{He}_3$ direction, learned only with reuse",
          "companion.experiments.reuse_vs_fresh.projection_unit", ("E7",),
          "tests/test_learning.py::test_he3_learned_only_with_reuse"),
    Claim("The He_3 headline needs seeds: its spread at finite N", "companion measurement",
          "book/finite_size.ipynb", "## One seed is not a result",
          "companion.experiments.finite_size.headline_unit", ("E7",),
          "tests/test_experiments_finite_size.py::test_headline_spread_and_ordering"),
]

_CHAPTER_DOC = {"book/intro.ipynb": "intro", "book/one_step.ipynb": "one_step",
                "book/two_steps.ipynb": "two_steps", "book/reuse_vs_fresh.ipynb": "reuse_vs_fresh",
                "book/finite_size.ipynb": "finite_size"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render() -> str:
    """The book page (MyST markdown) generated from :data:`CLAIMS` and :data:`PAPER_DATA`."""
    from .reproduce import CATALOG
    lines = [
        "# Figure registry",
        "",
        "<!-- Generated by `python -m companion.claims > book/registry.md` from the table in",
        "     companion/claims.py; edit the table there, never this page. -->",
        "",
        "Each claim of the paper (and the predecessors' one-step results the book builds on), "
        "where the book shows it, the function that computes it, the experiment of "
        "`python -m companion reproduce` that regenerates its figure and data, the test that "
        "checks it, and the paper-scale data file. A test (`tests/test_reproduce.py`) checks "
        "that every entry exists.",
        "",
        "| claim | stated by | chapter, section | function | experiment | test | paper-scale data |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in CLAIMS:
        section = c.section.lstrip("#").strip()
        data = ", ".join(sorted({f"`{d}`" if d != NOT_YET else d for d in c.data}))
        lines.append(
            f"| {_cell(c.claim)} | {c.source} | {{doc}}`{_CHAPTER_DOC[c.chapter]}`, "
            f"\"{_cell(section)}\" | `{c.function}` | {', '.join(c.experiments)} | "
            f"`{c.test}` | {data} |")
    lines += [
        "",
        "## The experiments",
        "",
        "| id | what | computed by | small (book) | paper | paper-scale data |",
        "|---|---|---|---|---|---|",
    ]
    for eid, entry in CATALOG.items():
        exp = entry.experiment
        small = ", ".join(f"{k} {v}" for k, v in exp.sizes["small"].items())
        paper = ", ".join(f"{k} {v}" for k, v in exp.sizes["paper"].items())
        d = PAPER_DATA[eid]
        lines.append(f"| {eid} | {_cell(exp.title)} | `{exp.unit.__module__}.{exp.unit.__name__}` "
                     f"| {small} | {paper} | {d if d == NOT_YET else f'`{d}`'} |")
    lines += [
        "",
        "## Reproduce and use the data",
        "",
        "```bash",
        "python -m companion reproduce                      # every figure at the book's size",
        "python -m companion reproduce --scale paper --jobs 2 --out results/paper",
        "python -m companion reproduce --only E4,E7 --scheduler tcp://HOST:8786  # on a Dask cluster",
        "```",
        "",
        "Each experiment writes `E<k>.png`, `E<k>.pdf`, `E<k>.csv` (tidy: one row per run, with "
        "every parameter and the seed as columns; E1 and E2 one row per run and step size or "
        "exponent; E10 one row per singular value), `E<k>.json` (package version, scale, "
        "date, parameters of every run) and `E<k>.npz` (the runs themselves, from which the "
        "figure is redrawn). Runs are cached under `OUT/cache`, keyed by every parameter, the "
        "seed, the package version and a fingerprint of the numerics' source: a rerun reuses "
        "them, an interrupted run resumes, a damaged entry is recomputed.",
        "",
        "The paper-scale data files are committed under `companion/data/paper/` (`.csv`, `.json` and "
        "`.npz` per experiment). The chapters read them instead of recomputing: the one-step "
        "and two-step chapters end with a section \"At paper scale\" that redraws E1, E2 "
        "and E3 to E5, E10 from the stored runs (`companion.store.load`), and "
        "the reused-versus-fresh chapter draws E6 to E9 next to its own runs. The switch is "
        "the environment variable `COMPANION_PAPER_DATA`: unset, the chapters read "
        "`companion/data/paper/`; set to a folder (a downloaded copy, in Colab), they read that; set to "
        "`off`, they leave the stored runs out and say so. To work with the numbers yourself:",
        "",
        "```python",
        "from companion import store",
        "from companion.figures import reuse_vs_fresh as figures",
        "runs = store.load(\"E7\")                    # Runs: parameters, seed, results",
        "reused = runs.where(batch=\"reused\", alpha1=0.35, N=4096).values(\"projection\")",
        "fig = figures.headline_projection(runs)     # the figure, redrawn",
        "```",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    sys.stdout.write(render())
