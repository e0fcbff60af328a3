"""The table of experiments (book: reg-experiments): for each id, the experiment (its
unit function and units, defined in the chapter's module under :mod:`companion.core.experiment`),
the figure function that draws it (a chapter's ``figures`` module) and the shape of its tidy CSV.
One explicit table: nothing is registered as a side effect of an import.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from companion.chapters.finite_size import calibration as finite_size_calibration
from companion.chapters.finite_size import figures as finite_size_figures
from companion.chapters.learned_directions import experiments as learned_directions
from companion.chapters.learned_directions import figures as learned_directions_figures
from companion.chapters.learned_directions import learnability as learned_directions_learnability
from companion.chapters.learned_directions import transects as learned_directions_transects
from companion.chapters.one_step import experiments as one_step
from companion.chapters.one_step import figures as one_step_figures
from companion.chapters.reuse_vs_fresh import experiments as reuse_vs_fresh
from companion.chapters.reuse_vs_fresh import figures as reuse_vs_fresh_figures
from companion.chapters.two_steps import experiments as two_steps
from companion.chapters.two_steps import figures as two_steps_figures
from companion.core.experiment import Experiment
from companion.reproduce import tidy


@dataclass(frozen=True)
class Entry:
    """An experiment, the figure that draws its runs, and how its runs become CSV rows."""

    experiment: Experiment
    figure: Callable
    rows: Callable = tidy.rows_per_run


#: rows per run and term of W2 (k = 0, 1, ...: ``terms``, ``separate``, ``leading``), per run
#: and singular value (rank 1, 2, ...: ``s`` and ``cos2``), and per run and spike of the census
#: (rank 1, 2, ...: ``s``, ``weight``, ``order`` and the null run's)
BY_TERM = tidy.rows_by_suffix("k")
BY_RANK = tidy.rows_by_suffix("rank", start=1)
BY_SPIKE = tidy.rows_along("s", index="rank", start=1)

CATALOG: dict[str, Entry] = {
    "E1": Entry(one_step.TRANSITION, one_step_figures.transition, tidy.rows_along("eta")),
    "E2": Entry(one_step.GROWTH, one_step_figures.growth, tidy.rows_along("alpha")),
    "E3": Entry(two_steps.PHASE_DIAGRAM, two_steps_figures.phase_diagram, BY_TERM),
    "E4": Entry(two_steps.EXPONENT_CHECK, two_steps_figures.exponents, BY_TERM),
    "E5": Entry(two_steps.ONE_STEP_COLLAPSE, two_steps_figures.one_step_collapse, BY_TERM),
    "E6": Entry(reuse_vs_fresh.FIRST_DIRECTION, reuse_vs_fresh_figures.first_direction),
    "E7": Entry(reuse_vs_fresh.HEADLINE, reuse_vs_fresh_figures.headline_projection, BY_RANK),
    "E8": Entry(reuse_vs_fresh.OTHER_TARGETS, reuse_vs_fresh_figures.other_targets, BY_RANK),
    "E9": Entry(reuse_vs_fresh.ACTIVATION_ABLATION, reuse_vs_fresh_figures.activation_ablation,
                BY_RANK),
    "E10": Entry(two_steps.SPECTRUM, two_steps_figures.spectrum_beside_null, tidy.spectrum_rows),
    "E11": Entry(two_steps.SPIKES_ONE_BY_ONE, two_steps_figures.spike_emergence_counts, BY_SPIKE),
    "E12": Entry(learned_directions.LEARNED_DIRECTIONS, learned_directions_figures.spike_content,
                 learned_directions.spike_rows),
    "E13": Entry(finite_size_calibration.CALIBRATION, finite_size_figures.census_calibration,
                 tidy.rows_along("strengths")),
    "E14": Entry(learned_directions_transects.TRANSECTS_E14, learned_directions_figures.transects,
                 learned_directions_transects.transect_rows),
    "E15": Entry(two_steps.PHASE_PREDICTION, two_steps_figures.predicted_phase_diagram,
                 tidy.rows_along("alpha2")),
    "E16": Entry(two_steps.GRID_CHECK, two_steps_figures.grid_check, BY_SPIKE),
    "E17": Entry(reuse_vs_fresh.READOUT, reuse_vs_fresh_figures.readout_errors_by_N,
                 tidy.readout_rows),
    "E18": Entry(learned_directions_learnability.LEARNABILITY,
                 learned_directions_figures.learnability_line,
                 learned_directions_learnability.learnability_rows),
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


def imported_modules(start: str, base: Path | None = None) -> tuple[str, ...]:
    """``start`` (a module's path in the package without ``.py``, such as
    ``"chapters/learned_directions/transects"``) and every module of the package it imports,
    directly or through others, read from their syntax trees: what can decide the numbers of
    a unit function defined there. A package's ``__init__`` counts only where a name is taken
    from it (``from companion.core import network`` takes the module ``network``)."""
    base = _package(base)
    seen: set[str] = set()
    todo = [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for module, names in _imports((base / f"{name}.py").read_text()):
            todo += _modules_named(module, list(names), base)
    return tuple(sorted(seen))


@lru_cache(maxsize=512)
def _imports(source: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The absolute imports of a module's ``source``: (module, names taken from it) for each
    ``from module import names``, (module, ()) for each ``import module``; parsed once per
    source text (every experiment's key reads the same modules)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.module, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.Import):
            out += [(alias.name, ()) for alias in node.names]
    return tuple(out)


def _modules_named(dotted: str, names: list[str], base: Path) -> list[str]:
    """The package's module files that ``from dotted import names`` (or ``import dotted``)
    runs code of: the module itself, or a package's submodules named in ``names`` and its
    ``__init__`` for any other name."""
    parts = dotted.split(".")
    if parts[0] != base.name:
        return []
    path = "/".join(parts[1:])
    if path and (base / f"{path}.py").is_file():
        return [path]
    package = base / path if path else base
    if not (package / "__init__.py").is_file():
        return []
    prefix = f"{path}/" if path else ""
    subs = [f"{prefix}{n}" for n in names if (package / f"{n}.py").is_file()]
    init = [f"{prefix}__init__"] if len(subs) < len(names) or not names else []
    return subs + init


def _package(base: Path | None) -> Path:
    return Path(__file__).resolve().parents[1] if base is None else base


def code_fingerprint(base: Path | None = None, modules=None) -> str:
    """12 hex digits of SHA-256 over what ``modules`` (default: those of every experiment in
    :data:`CATALOG`, :func:`numerics_modules`) do (:func:`code_behaviour`: their syntax trees
    without docstrings; the unit functions live there). It joins the package version in every
    cache key, so that a change of the numerics never reuses a stale run even when nobody
    bumps the version, while a comment or a docstring can be edited without discarding hours
    of stored runs; figure and report code is left out, because redrawing a figure needs no
    new runs. ``base``: the package's folder (default: this package)."""
    base = _package(base)
    h = hashlib.sha256()
    for name in numerics_modules(base) if modules is None else modules:
        h.update(name.encode() + b"\0")
        h.update(code_behaviour((base / f"{name}.py").read_text()).encode())
    return h.hexdigest()[:12]


def numerics_modules(base: Path | None = None) -> tuple[str, ...]:
    """Every module that can decide the numbers of some experiment (:func:`imported_modules`
    of each unit function's module)."""
    return tuple(sorted({m for entry in CATALOG.values()
                         for m in experiment_modules(entry.experiment, base)}))


def experiment_modules(experiment: Experiment, base: Path | None = None) -> tuple[str, ...]:
    """The modules that can decide ``experiment``'s numbers: its unit function's module and
    what that imports (:func:`imported_modules`). A change to another chapter's units, or a
    figure routine, leaves its cache keys alone, so that a long run can resume while other
    code changes."""
    start = "/".join(experiment.unit.__module__.split(".")[1:])
    return imported_modules(start, base)


def experiment_fingerprint(experiment: Experiment, base: Path | None = None) -> str:
    """:func:`code_fingerprint` over :func:`experiment_modules`: the code part of the
    experiment's cache keys."""
    return code_fingerprint(base, experiment_modules(experiment, base))
