"""The table of experiments (E1 to E17, book: reg-experiments): for each id, the experiment (its
unit function and units, defined in the chapter's module under :mod:`companion.core.experiment`),
the figure function that draws it (a chapter's ``figures`` module) and the shape of its tidy CSV.
One explicit table: nothing is registered as a side effect of an import.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from companion.chapters.finite_size import calibration as x5
from companion.chapters.finite_size import figures as f5
from companion.chapters.learned_directions import experiments as x4
from companion.chapters.learned_directions import figures as f4
from companion.chapters.learned_directions import transects as x6
from companion.chapters.one_step import experiments as x1
from companion.chapters.one_step import figures as f1
from companion.chapters.reuse_vs_fresh import experiments as x3
from companion.chapters.reuse_vs_fresh import figures as f3
from companion.chapters.two_steps import experiments as x2
from companion.chapters.two_steps import figures as f2
from companion.core.experiment import Experiment
from companion.reproduce import tidy


@dataclass(frozen=True)
class Entry:
    """An experiment, the figure that draws its runs, and how its runs become CSV rows."""

    experiment: Experiment
    figure: Callable
    rows: Callable = tidy.rows_per_run


CATALOG: dict[str, Entry] = {
    "E1": Entry(x1.TRANSITION, f1.transition, tidy.rows_along("eta")),
    "E2": Entry(x1.GROWTH, f1.growth, tidy.rows_along("alpha")),
    "E3": Entry(x2.PHASE_DIAGRAM, f2.phase_diagram),
    "E4": Entry(x2.EXPONENT_CHECK, f2.exponents),
    "E5": Entry(x2.ONE_STEP_COLLAPSE, f2.one_step_collapse),
    "E6": Entry(x3.FIRST_DIRECTION, f3.first_direction),
    "E7": Entry(x3.HEADLINE, f3.headline_projection),
    "E8": Entry(x3.OTHER_TARGETS, f3.other_targets),
    "E9": Entry(x3.ACTIVATION_ABLATION, f3.activation_ablation),
    "E10": Entry(x2.SPECTRUM, f2.spectrum_beside_null, tidy.spectrum_rows),
    "E11": Entry(x2.SPIKES_ONE_BY_ONE, f2.spike_emergence_counts),
    "E12": Entry(x4.LEARNED_DIRECTIONS, f4.spike_content, x4.spike_rows),
    "E13": Entry(x5.CALIBRATION, f5.census_calibration, tidy.rows_along("strengths")),
    "E14": Entry(x6.TRANSECTS_E14, f4.transects, x6.transect_rows),
    "E15": Entry(x2.PHASE_PREDICTION, f2.predicted_phase_diagram, tidy.rows_along("alpha2")),
    "E16": Entry(x2.GRID_CHECK, f2.grid_check),
    "E17": Entry(x3.READOUT, f3.readout_errors_by_N),
}
EXPERIMENT_IDS = list(CATALOG)

#: what each experiment's JSON sidecar says beyond the sizes and parameters
SIDECAR: dict[str, dict] = {"E11": {"headline": {
    "points": [{"alpha1": 0.30, "alpha2": 0.38, "lambda": 1,
                "shows": "1 + Lambda = 2 outliers with every order (tanh: 1)"},
               {"alpha1": 0.38, "alpha2": 0.45, "lambda": 3,
                "shows": "the count climbs from 2 to 3 with N (tanh: 2); k = 3 out of reach"}],
    "activations": {"every order": ["shifted_tanh", "gelu"], "control (odd)": ["tanh"]},
    "count": "singular values of W2 above the null run's bulk edge (powers of a projected "
             "out) by 2%, with left vectors on the powers of a (weight >= 0.25); the first "
             "spike included"}}}

#: modules whose code decides the numbers of a run (not the figures): their source is hashed
#: into every cache key by :func:`code_fingerprint`
NUMERICS_MODULES = ("core/activations", "core/alignment", "core/expansion", "core/gaussian",
                    "core/network", "core/spectra", "core/spikes", "core/targets",
                    "core/theory", "core/validation", "core/finite_n", "core/readout",
                    "chapters/one_step/experiments", "chapters/two_steps/experiments",
                    "chapters/reuse_vs_fresh/experiments",
                    "chapters/learned_directions/experiments", "chapters/learned_directions/transects",
                    "chapters/finite_size/calibration")


def code_behaviour(source: str) -> str:
    """What a module's source does, without what it says: the dump of its syntax tree with
    every docstring removed (comments, blank lines and line numbers are not in the tree).
    Fixing a typo in a comment or a docstring, or re-wrapping a line, keeps it; changing an
    expression, a constant or a default changes it."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                node.body = body[1:]
    return ast.dump(tree, annotate_fields=False)


def code_fingerprint(base: Path | None = None, modules=NUMERICS_MODULES) -> str:
    """12 hex digits of SHA-256 over what ``modules`` (default: all of
    :data:`NUMERICS_MODULES`) do (:func:`code_behaviour`: their syntax trees without
    docstrings; the unit functions live there). It joins the package version in every cache
    key, so that a change of the numerics never reuses a stale run even when nobody bumps the
    version, while a comment or a docstring can be edited without discarding hours of stored
    runs; figure and report code is left out, because redrawing a figure needs no new runs.
    ``base``: the package's folder (default: this package)."""
    h = hashlib.sha256()
    if base is None:
        base = Path(__file__).resolve().parents[1]
    for name in modules:
        h.update(name.encode() + b"\0")
        h.update(code_behaviour((base / f"{name}.py").read_text()).encode())
    return h.hexdigest()[:12]


def experiment_modules(experiment: Experiment) -> tuple[str, ...]:
    """The modules of :data:`NUMERICS_MODULES` that can decide ``experiment``'s numbers: the
    core's and those of the chapter that defines its unit function. A new experiment in
    another chapter, or a change to another chapter's units, leaves its cache keys alone, so
    that a long run can resume while other chapters change."""
    chapter = "/".join(experiment.unit.__module__.split(".")[1:3])
    return tuple(m for m in NUMERICS_MODULES
                 if m.startswith("core/") or m.startswith(chapter + "/"))


def experiment_fingerprint(experiment: Experiment, base: Path | None = None) -> str:
    """:func:`code_fingerprint` over :func:`experiment_modules`: the code part of the
    experiment's cache keys."""
    return code_fingerprint(base, experiment_modules(experiment))
