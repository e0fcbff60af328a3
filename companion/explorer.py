"""The interactive phase-diagram explorer (book page ``book/explorer.ipynb``).

One self-contained HTML fragment: inline style, inline plain JavaScript (no library, no
server, no network), and the data it shows embedded as JSON. Its markup, style and script
are package data, ``companion/explorer_page/`` (``page.html``, ``explorer.css``,
``explorer.js``), read with :mod:`importlib.resources` and joined by :func:`explorer_html`.
The reader moves alpha1 and alpha2 and picks ``tanh`` (odd) or ``generic`` (an activation
with every order, such as tanh(z + 1/2)) and sees

* the point on the phase diagram with the lines alpha2 = k (1/2 - alpha1);
* Lambda (the paper's formula, ``ts-thm-paper``) in the element ``#lambda``, and the number
  of outliers the companion derives: 1 + Lambda, or 1 + floor(Lambda / 2) for an odd
  activation (``ts-conj-parity``);
* the growth exponent alpha2 - k (1/2 - alpha1) of each term of the expansion
  (``ts-conj-expansion``), which grow, which lie on a phase line (exponent zero) and which
  vanish, and which exist for the activation;
* where a stored paper-scale run (:mod:`companion.core.store`; the registry page lists them:
  E3/E4 term sizes, E11 spike counts and separate strengths, E7 He_3 projections, E5 two
  steps against one, ``ts-conj-one-step``) lies within :data:`RADIUS` of the point, its
  measured values with N and the number of seeds.

Math is written in TeX for the MathJax of the page it is shown in (the book's: MathJax
typesets the fragment, whose root carries the class ``mathjax_process``, and the script
typesets what it rewrites); where a page has no MathJax, each formula shows a plain form.

The JavaScript computes Lambda with the rule of :func:`companion.core.theory.lambda_count` (the
same floor tolerance, read from the package, not retyped), and the page keeps its state in
the address (``?alpha1=0.38&alpha2=0.45&activation=generic``). Every number shown from the
stored runs is aggregated here (means over the seeds, local slopes) and rounded with
:func:`companion.presentation.book.fmt`, so the page is the same on every CPU; the JavaScript only
looks up the nearest stored point.
"""

from __future__ import annotations

import html
import inspect
import json
from importlib import resources

import numpy as np

from companion.chapters.two_steps.experiments import local_slopes
from companion.chapters.two_steps.summaries import spike_predictions
from companion.core import store, theory
from companion.core.experiment import sweep_runs
from companion.core.spikes import spike_counts
from companion.presentation.book import fmt, fmt_signed

#: a stored point is shown when it lies within this distance of the reader's point
RADIUS = 0.03
#: the point the page shows without an address
DEFAULT = {"alpha1": 0.38, "alpha2": 0.45, "activation": "tanh"}
#: the two choices of the page, and the stored activations (E11) that stand for each
ACTIVATIONS = {"tanh": ("tanh",), "generic": ("shifted_tanh", "gelu")}
_LABEL = {"tanh": "tanh", "shifted_tanh": "tanh(z + 1/2)", "gelu": "GELU"}
#: orders k of the terms the stored E3/E4/E5 runs measure (terms_0 ... terms_3)
_TERMS = 4
#: what each stored experiment measured, as the page names it (the codes are the registry's)
EXPERIMENTS = {"E3": "term sizes (phase diagram)", "E4": "term sizes (exponent check)",
               "E5": "two steps against one", "E7": "learning He₃", "E11": "spike counts"}
#: the package data of the page: the markup and the files it takes in
PAGE_DIR = "explorer_page"
_PARTS = {"/*CSS*/": "explorer.css", "/*SCRIPT*/": "explorer.js"}


def _pairs(runs) -> list[tuple[float, float]]:
    return [tuple(map(float, p)) for p in runs.groups("alpha1", "alpha2")]


def _term_sizes(runs, source: str, a1: float, a2: float) -> dict:
    """E3/E4 (reused batch, tanh, He_1): mean term sizes T_0..T_3 per N, and the local
    growth exponent of each term between the two largest sizes (geometric mean over the
    seeds, :func:`companion.chapters.two_steps.experiments.local_slopes`) against the companion's
    exponent (:func:`companion.core.theory.spike_exponent`)."""
    sel = sweep_runs(runs).where(alpha1=a1, alpha2=a2, batch="reused")
    Ns = sorted(sel.unique("N"))
    rows = [{"N": int(N), "seeds": len(sel.where(N=N)),
             "T": [fmt(sel.where(N=N).mean(f"terms_{k}")) for k in range(_TERMS)]}
            for N in Ns]
    slopes = []
    for k in range(_TERMS):
        values = np.array([sel.where(N=N).values(f"terms_{k}") for N in Ns[-2:]], float)
        slopes.append(fmt_signed(local_slopes(Ns[-2:], values)["slope"][-1]))
    return {"source": source, "activation": "tanh", "target": "He_1", "batch": "reused",
            "rows": rows, "slope": slopes, "slope_N": [int(Ns[-2]), int(Ns[-1])],
            "exponent": [fmt_signed(theory.spike_exponent(a1, a2, k)) for k in range(_TERMS)]}


def _spike_counts(counts: dict, predictions: dict, a1: float, a2: float) -> list[dict]:
    """E11 (reused batch, He_1, c1 = c2 = 1) at one point, from the chapter's table
    (:func:`companion.chapters.two_steps.summaries.spike_counts`): per activation and N, the mean,
    range and seeds of the spike count of W2 (census against the null run, first spike
    included), the mean separate strength of the terms k = 1..3; beside them the finite-N
    prediction (:func:`companion.chapters.two_steps.summaries.spike_predictions`, book: dv-finite-n):
    the predicted strengths, the census's threshold and the predicted count; and the
    companion's limit (:func:`companion.core.theory.n_spikes`)."""
    out = []
    for (p1, p2, act), row in counts.items():
        if (p1, p2) != (a1, a2):
            continue
        pred = predictions[(p1, p2, act)]
        rows = [{"N": int(N), "seeds": int(row["seeds"][i]), "mean": fmt(row["mean"][i]),
                 "min": fmt(int(row["min"][i])), "max": fmt(int(row["max"][i])),
                 "strength": [fmt(v) for v in row["strength"][i]],
                 "predicted": [fmt(v) for v in pred["predicted"][i][:3]],
                 "threshold": fmt(pred["threshold"][i]),
                 "predicted_count": int(pred["count"][i]),
                 "float32": bool(row["float32"][i])} for i, N in enumerate(row["N"])]
        out.append({"activation": act, "label": _LABEL.get(act, act),
                    "choice": next(c for c, acts in ACTIVATIONS.items() if act in acts),
                    "limit": theory.n_spikes(a1, a2, act, "reused"), "rows": rows})
    return out


def _he3(runs, a1: float, a2: float) -> list[dict]:
    """E7 (tanh, He_3 target): mean squared projection of beta* on the top-4 right singular
    subspace of W2, per batch and N, with the chance level and the package's prediction."""
    sel = runs.where(alpha1=a1, alpha2=a2)
    rows = []
    for (batch, N), at in sorted(sel.groups("batch", "N").items(),
                                 key=lambda kv: (kv[0][0] != "reused", kv[0][1])):
        rows.append({"batch": batch, "N": int(N), "seeds": len(at),
                     "projection": fmt(at.mean("projection")), "chance": fmt(at.mean("chance")),
                     "learnable": bool(at[0]["learnable"])})
    return rows


def _collapse(runs, a1: float, a2: float) -> list[dict]:
    """E5 (tanh, He_1): mean relative difference between W2 and the one-step reference
    W0 + (eta1 + eta2) G(W0), per batch and N (``ts-conj-one-step``: small when Lambda = 0,
    reused)."""
    sel = runs.where(alpha1=a1, alpha2=a2)
    return [{"batch": b, "N": int(N), "seeds": len(at), "rel_diff": fmt(at.mean("rel_diff"))}
            for (b, N), at in sorted(sel.groups("batch", "N").items(),
                                     key=lambda kv: (kv[0][0] != "reused", kv[0][1]))]


def stored_points(root=None) -> list[dict]:
    """Every (alpha1, alpha2) of the stored runs (E3, E4, E5, E7, E11) with what was measured
    there, aggregated over the seeds; ``[]`` when the stored runs are switched off."""
    loaded = {e: store.load(e, root) for e in ("E3", "E4", "E5", "E7", "E11")}
    points: dict[tuple, dict] = {}

    def point(a1, a2):
        key = (round(a1, 6), round(a2, 6))
        return points.setdefault(key, {
            "alpha1": fmt(a1), "alpha2": fmt(a2), "lambda": theory.lambda_count(a1, a2),
            "on_line": theory.phase_line(a1, a2), "sources": []})

    e4_pairs = set(_pairs(loaded["E4"])) if loaded["E4"] is not None else set()
    for eid in ("E4", "E3"):           # E4 (6 seeds, up to 8192) where it ran, else E3
        runs = loaded[eid]
        if runs is None:
            continue
        for a1, a2 in _pairs(runs):
            if eid == "E3" and (a1, a2) in e4_pairs:
                continue
            p = point(a1, a2)
            p["terms"] = _term_sizes(runs, eid, a1, a2)
            p["sources"].append(eid)
    if loaded["E5"] is not None:
        for a1, a2 in _pairs(loaded["E5"]):
            p = point(a1, a2)
            p["collapse"] = _collapse(loaded["E5"], a1, a2)
            p["sources"].append("E5")
    if loaded["E7"] is not None:
        for a1, a2 in _pairs(loaded["E7"]):
            p = point(a1, a2)
            p["he3"] = _he3(loaded["E7"], a1, a2)
            p["sources"].append("E7")
    if loaded["E11"] is not None:
        counts = spike_counts(loaded["E11"])
        predictions = spike_predictions(loaded["E11"])
        for a1, a2 in _pairs(loaded["E11"].where(c1=1.0, c2=1.0)):
            p = point(a1, a2)
            p["spikes"] = _spike_counts(counts, predictions, a1, a2)
            p["sources"].append("E11")
    return [points[k] for k in sorted(points)]


def explorer_data(root=None) -> dict:
    """Everything the page's script needs: the stored points (:func:`stored_points`), the
    tolerances of :func:`companion.core.theory.lambda_count` and :func:`~companion.core.theory.phase_line`
    (read from the package), the default state and the search radius."""
    return {
        "floor_tol": theory._FLOOR_TOL,
        "line_tol": inspect.signature(theory.phase_line).parameters["tol"].default,
        "radius": RADIUS, "default": DEFAULT, "points": stored_points(root),
        "experiments": EXPERIMENTS,
        "data_off": store.data_dir() is None and root is None,
    }


def _json_for_script(data: dict) -> str:
    """JSON that is safe inside a <script> element (no ``</``, no ``<!--``)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":")).replace("<", "\\u003c")


def page_file(name: str) -> str:
    """The text of one file of the page (``page.html``, ``explorer.css``, ``explorer.js``),
    read from the installed package."""
    return (resources.files("companion") / PAGE_DIR / name).read_text(encoding="utf-8")


def template() -> str:
    """The page without its data: ``page.html`` with the style and the script put in."""
    page = page_file("page.html")
    for marker, name in _PARTS.items():
        text = page_file(name)
        closing = "</style" if name.endswith(".css") else "</script"
        if closing in text.lower() or "<!--" in text:
            raise ValueError(f"{PAGE_DIR}/{name} contains {closing!r} or '<!--', "
                             "which would end the element it is put in")
        if page.count(marker) != 1:
            raise ValueError(f"{PAGE_DIR}/page.html must hold {marker} exactly once")
        page = page.replace(marker, text.rstrip("\n"))
    return page


def explorer_html(root=None) -> str:
    """The explorer as one HTML fragment (a ``<div>`` with inline style and script), the data
    of :func:`explorer_data` embedded."""
    return (template().replace("/*DATA*/", _json_for_script(explorer_data(root)))
            .replace("<!--DEFAULT-LAMBDA-->", html.escape(str(theory.lambda_count(
                DEFAULT["alpha1"], DEFAULT["alpha2"])))))


def show_explorer(root=None):
    """The explorer for a notebook: an :class:`IPython.display.HTML` object."""
    from IPython.display import HTML
    return HTML(explorer_html(root))
