"""The interactive phase-diagram explorer (book page ``book/explorer.ipynb``, issue 12).

One self-contained HTML page: inline style, inline plain JavaScript (no library, no server,
no network), and the data it shows embedded as JSON. The reader moves alpha1 and alpha2 and
picks ``tanh`` (odd) or ``generic`` (an activation with every order, such as
tanh(z + 1/2)) and sees

* the point on the phase diagram with the lines alpha2 = k (1/2 - alpha1) (SPEC 3.2);
* Lambda (the paper's formula, SPEC 0 and 3.2) in the element ``#lambda``, and the number
  of outliers the companion derives: 1 + Lambda, or 1 + floor(Lambda / 2) for an odd
  activation (SPEC 3.2, parity);
* the growth exponent alpha2 - k (1/2 - alpha1) of each term of the expansion (SPEC 3.2),
  which grow, which lie on a phase line (exponent zero) and which vanish, and which exist
  for the activation;
* where a stored paper-scale run (:mod:`companion.store`, SPEC 4: E4/E3 term sizes, E11
  spike counts and separate strengths, E7 He_3 projections, E5 two steps against one) lies
  within :data:`RADIUS` of the point, its measured values with N and the number of seeds.

The JavaScript computes Lambda with the rule of :func:`companion.theory.lambda_count` (the
same floor tolerance, read from the package, not retyped), and the page keeps its state in
the address (``?alpha1=0.38&alpha2=0.45&activation=generic``). Every number shown from the
stored runs is aggregated here (means over the seeds, local slopes) and rounded with
:func:`companion.book.fmt`, so the page is the same on every CPU; the JavaScript only
looks up the nearest stored point.
"""

from __future__ import annotations

import html
import inspect
import json

import numpy as np

from . import store, theory
from .book import fmt, fmt_signed
from .experiments.two_steps import local_slopes, sweep_runs

#: a stored point is shown when it lies within this distance of the reader's point
RADIUS = 0.03
#: the point the page shows without an address
DEFAULT = {"alpha1": 0.38, "alpha2": 0.45, "activation": "tanh"}
#: the two choices of the page, and the stored activations (E11) that stand for each
ACTIVATIONS = {"tanh": ("tanh",), "generic": ("shifted_tanh", "gelu")}
_LABEL = {"tanh": "tanh", "shifted_tanh": "tanh(z + 1/2)", "gelu": "GELU"}
#: orders k of the terms the stored E3/E4/E5 runs measure (terms_0 ... terms_3)
_TERMS = 4


def _pairs(runs) -> list[tuple[float, float]]:
    return [tuple(map(float, p)) for p in runs.groups("alpha1", "alpha2")]


def _term_sizes(runs, source: str, a1: float, a2: float) -> dict:
    """E3/E4 (reused batch, tanh, He_1): mean term sizes T_0..T_3 per N, and the local
    growth exponent of each term between the two largest sizes (geometric mean over the
    seeds, :func:`companion.experiments.two_steps.local_slopes`) against the companion's
    exponent (:func:`companion.theory.spike_exponent`)."""
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


def _spike_counts(runs, a1: float, a2: float) -> list[dict]:
    """E11 (reused batch, He_1, c1 = c2 = 1): per activation and N, the mean, range and
    seeds of the spike count of W2 (census against the null run, first spike included),
    the mean separate strength of the terms k = 1..3, and the companion's limit
    (:func:`companion.theory.n_spikes`)."""
    sel = sweep_runs(runs).where(alpha1=a1, alpha2=a2, c1=1.0, c2=1.0)
    out = []
    for act in sel.unique("activation"):
        mine = sel.where(activation=act)
        rows = []
        for N in sorted(mine.unique("N")):
            at = mine.where(N=N)
            counts = at.values("n_outliers")
            rows.append({"N": int(N), "seeds": len(at), "mean": fmt(counts.mean()),
                         "min": fmt(int(counts.min())), "max": fmt(int(counts.max())),
                         "strength": [fmt(at.mean(f"strength_k{k}")) for k in (1, 2, 3)],
                         "float32": bool(at[0].params.get("dtype") == "float32")})
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
    W0 + (eta1 + eta2) G(W0), per batch and N (SPEC 3.2: small when Lambda = 0, reused)."""
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
        for a1, a2 in _pairs(loaded["E11"].where(c1=1.0, c2=1.0)):
            p = point(a1, a2)
            p["spikes"] = _spike_counts(loaded["E11"], a1, a2)
            p["sources"].append("E11")
    return [points[k] for k in sorted(points)]


def explorer_data(root=None) -> dict:
    """Everything the page's script needs: the stored points (:func:`stored_points`), the
    tolerances of :func:`companion.theory.lambda_count` and :func:`~companion.theory.phase_line`
    (read from the package), the default state and the search radius."""
    return {
        "floor_tol": theory._FLOOR_TOL,
        "line_tol": inspect.signature(theory.phase_line).parameters["tol"].default,
        "radius": RADIUS, "default": DEFAULT, "points": stored_points(root),
        "data_off": store.data_dir() is None and root is None,
    }


def _json_for_script(data: dict) -> str:
    """JSON that is safe inside a <script> element (no ``</``, no ``<!--``)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":")).replace("<", "\\u003c")


def explorer_html(root=None) -> str:
    """The explorer as one HTML fragment (a ``<div>`` with inline style and script), the data
    of :func:`explorer_data` embedded."""
    return (_TEMPLATE.replace("/*DATA*/", _json_for_script(explorer_data(root)))
            .replace("<!--DEFAULT-LAMBDA-->", html.escape(str(theory.lambda_count(
                DEFAULT["alpha1"], DEFAULT["alpha2"])))))


def show_explorer(root=None):
    """The explorer for a notebook: an :class:`IPython.display.HTML` object."""
    from IPython.display import HTML
    return HTML(explorer_html(root))


_TEMPLATE = r"""<div id="phase-explorer" class="phase-explorer">
<style>
.phase-explorer { font-size: 0.95rem; line-height: 1.4; max-width: 760px; }
.phase-explorer .pe-top { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.phase-explorer svg { width: 100%; max-width: 420px; height: auto; border: 1px solid #ccc;
  background: #fff; cursor: crosshair; }
.phase-explorer .pe-controls { flex: 1 1 240px; min-width: 240px; }
.phase-explorer label { display: block; margin: 0.4rem 0 0.1rem; font-weight: 600; }
.phase-explorer input[type=range] { width: 100%; }
.phase-explorer .pe-big { font-size: 1.5rem; font-weight: 700; }
.phase-explorer .pe-msg { color: #a00; min-height: 1.2em; }
.phase-explorer table { border-collapse: collapse; margin: 0.4rem 0; font-size: 0.85rem; }
.phase-explorer th, .phase-explorer td { border: 1px solid #ccc; padding: 2px 6px;
  text-align: right; }
.phase-explorer th { background: #f3f3f3; }
.phase-explorer td.pe-l, .phase-explorer th.pe-l { text-align: left; }
.phase-explorer .grows { color: #067d17; font-weight: 600; }
.phase-explorer .edge { color: #b35c00; font-weight: 600; }
.phase-explorer .vanishes { color: #777; }
.phase-explorer .absent { color: #999; text-decoration: line-through; }
.phase-explorer .pe-note { font-size: 0.85rem; color: #444; }
.phase-explorer .pe-off { color: #a00; font-weight: 600; }
.phase-explorer h4 { margin: 0.8rem 0 0.2rem; font-size: 1rem; }
</style>
<div class="pe-top">
<svg id="pe-diagram" viewBox="0 0 420 400" role="img"
 aria-label="Phase diagram: alpha1 on the horizontal axis from 0 to 1/2, alpha2 on the vertical axis from 0 to 1/2, the lines alpha2 = k (1/2 - alpha1) labelled by k, stored runs as rings and the chosen point as a red dot"></svg>
<div class="pe-controls">
<label for="pe-alpha1">alpha1 (first step, eta1 ~ N^alpha1): <span id="pe-alpha1-value"></span></label>
<input type="range" id="pe-alpha1" min="0" max="0.49" step="0.01">
<label for="pe-alpha2">alpha2 (second step, eta2 ~ N^alpha2): <span id="pe-alpha2-value"></span></label>
<input type="range" id="pe-alpha2" min="0" max="0.49" step="0.01">
<label for="pe-activation">activation</label>
<select id="pe-activation">
<option value="tanh">tanh (odd: only even orders k)</option>
<option value="generic">every order, e.g. tanh(z + 1/2)</option>
</select>
<p class="pe-msg" id="pe-message" role="status"></p>
<p>Lambda = <span class="pe-big" id="lambda"><!--DEFAULT-LAMBDA--></span>
<span id="pe-line"></span></p>
<p>Outliers of W2 in the limit: <span class="pe-big" id="pe-count"></span>
<span id="pe-count-rule"></span></p>
<p class="pe-note">The paper states: the number of outliers is set by
Lambda = min(L - 1, floor(alpha2 / (1/2 - alpha1))) (here L is infinite: tanh is not a
polynomial). The companion derives: W2 has the first spike plus one per existing term
k = 1..Lambda, that is 1 + Lambda outliers with an activation that has every order and
1 + floor(Lambda/2) with an odd one (tanh).</p>
<p class="pe-note">Link to this view: <a id="pe-link" href="">this address</a></p>
</div>
</div>
<h4>The terms of the expansion (the companion derives)</h4>
<p class="pe-note">Term k of W2 - W0 has operator norm of order
N^(alpha2 - k (1/2 - alpha1)) (k = 0: the first spike, N^max(alpha1, alpha2)).</p>
<div id="pe-terms"></div>
<h4>Stored paper-scale runs near this point (the companion measures)</h4>
<div id="pe-measured"></div>
<script type="application/json" id="pe-data">/*DATA*/</script>
<script>
(function () {
  "use strict";
  var root = document.getElementById("phase-explorer");
  var data = JSON.parse(document.getElementById("pe-data").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var MAXA = 0.49, MAXROWS = 10;

  // Lambda with the rule of companion.theory.lambda_count (same floor tolerance)
  function lambdaCount(a1, a2) { return Math.floor(a2 / (0.5 - a1) + data.floor_tol); }
  // companion.theory.phase_line: the k >= 1 with alpha2 = k (1/2 - alpha1), else null
  function phaseLine(a1, a2) {
    var k = Math.round(a2 / (0.5 - a1));
    return (k >= 1 && Math.abs(a2 - k * (0.5 - a1)) <= data.line_tol) ? k : null;
  }
  function exponent(a1, a2, k) { return k === 0 ? Math.max(a1, a2) : a2 - k * (0.5 - a1); }
  function termExists(k, act) { return k === 0 || act !== "tanh" || k % 2 === 0; }
  function spikeCount(a1, a2, act) {
    var lam = lambdaCount(a1, a2), n = 1;
    for (var k = 1; k <= lam; k++) { if (termExists(k, act)) { n++; } }
    return n;
  }
  window.companionExplorer = { lambdaCount: lambdaCount, phaseLine: phaseLine,
    exponent: exponent, termExists: termExists, spikeCount: spikeCount };

  function fixed2(x) { var s = x.toFixed(2); return (s === "-0.00") ? "0.00" : s; }
  function signed2(x) { var s = fixed2(x); return (s === "0.00" || s[0] === "-") ? s : "+" + s; }
  function esc(s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;"); }

  // ---- state: the address -------------------------------------------------------------
  var state = { alpha1: data["default"].alpha1, alpha2: data["default"].alpha2,
                activation: data["default"].activation };
  function readAddress() {
    var q = new URLSearchParams(window.location.search), msgs = [];
    ["alpha1", "alpha2"].forEach(function (name) {
      if (!q.has(name)) { return; }
      var raw = q.get(name), v = Number(raw);
      if (raw.trim() === "" || !isFinite(v)) {
        msgs.push(name + "=" + raw + " in the address is not a number; showing " +
                  state[name] + ".");
      } else if (v < 0 || v > MAXA) {
        var c = Math.min(Math.max(v, 0), MAXA);
        msgs.push(name + "=" + raw + " lies outside [0, 1/2); clamped to " + c + ".");
        state[name] = c;
      } else { state[name] = v; }
    });
    if (q.has("activation")) {
      var act = q.get("activation");
      if (act === "tanh" || act === "generic") { state.activation = act; }
      else { msgs.push("activation=" + act + " is neither tanh nor generic; showing " +
                       state.activation + "."); }
    }
    $("pe-message").textContent = msgs.join(" ");
  }
  function writeAddress() {
    var q = new URLSearchParams(window.location.search);
    q.set("alpha1", String(state.alpha1)); q.set("alpha2", String(state.alpha2));
    q.set("activation", state.activation);
    var url = window.location.pathname + "?" + q.toString() + window.location.hash;
    try { window.history.replaceState(null, "", url); } catch (e) { /* file: quirks */ }
    $("pe-link").setAttribute("href", "?" + q.toString());
  }

  // ---- the phase diagram (SVG) ----------------------------------------------------------
  var NS = "http://www.w3.org/2000/svg", X0 = 50, Y0 = 350, W = 350, H = 330;
  function sx(a1) { return X0 + W * a1 / 0.5; }
  function sy(a2) { return Y0 - H * a2 / 0.5; }
  function el(tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  var svg = $("pe-diagram"), dot, regionLayer;
  function drawStatic() {
    regionLayer = el("g", {}); svg.appendChild(regionLayer);
    svg.appendChild(el("rect", { x: X0, y: sy(0.5), width: W, height: H, fill: "none",
                                 stroke: "#333" }));
    [0, 0.1, 0.2, 0.3, 0.4, 0.5].forEach(function (t) {
      svg.appendChild(el("line", { x1: sx(t), y1: Y0, x2: sx(t), y2: Y0 + 5, stroke: "#333" }));
      svg.appendChild(el("text", { x: sx(t), y: Y0 + 18, "text-anchor": "middle",
                                   "font-size": 12 }, String(t)));
      svg.appendChild(el("line", { x1: X0 - 5, y1: sy(t), x2: X0, y2: sy(t), stroke: "#333" }));
      svg.appendChild(el("text", { x: X0 - 8, y: sy(t) + 4, "text-anchor": "end",
                                   "font-size": 12 }, String(t)));
    });
    svg.appendChild(el("text", { x: X0 + W / 2, y: Y0 + 40, "text-anchor": "middle",
                                 "font-size": 14 }, "alpha1"));
    svg.appendChild(el("text", { x: 14, y: sy(0.25), "text-anchor": "middle", "font-size": 14,
                                 transform: "rotate(-90 14 " + sy(0.25) + ")" }, "alpha2"));
    var clip = el("clipPath", { id: "pe-clip" });
    clip.appendChild(el("rect", { x: X0, y: sy(0.5), width: W, height: H }));
    svg.appendChild(clip);
    var lines = el("g", { "clip-path": "url(#pe-clip)" });
    for (var k = 1; k <= 12; k++) {
      // alpha2 = k (1/2 - alpha1) from alpha1 = max(0, 1/2 - 1/(2k)) to 1/2
      var a1s = Math.max(0, 0.5 - 0.5 / k);
      lines.appendChild(el("line", { x1: sx(a1s), y1: sy(k * (0.5 - a1s)), x2: sx(0.5),
        y2: sy(0), stroke: k === 2 ? "#222" : "#666", "stroke-width": k === 2 ? 2 : 1,
        "class": "pe-phase-line", "data-k": k }));
    }
    svg.appendChild(lines);
    // labels: k = 1 halfway down its line, k = 2..6 above the top edge where they leave it
    svg.appendChild(el("text", { x: sx(0.2) - 4, y: sy(0.3) - 5, "font-size": 12,
                                 "text-anchor": "end" }, "k = 1"));
    for (var j = 2; j <= 6; j++) {
      svg.appendChild(el("text", { x: sx(0.5 - 0.5 / j), y: sy(0.5) - 5, "font-size": 12,
                                   "text-anchor": "middle" }, j === 2 ? "k = 2" : String(j)));
    }
    svg.appendChild(el("text", { x: sx(0.5) - 2, y: sy(0.5) - 5, "font-size": 11,
                                 "text-anchor": "end" }, ""));
    data.points.forEach(function (p) {
      var ring = el("circle", { cx: sx(+p.alpha1), cy: sy(+p.alpha2), r: 6, fill: "none",
                                stroke: "#1f5fbf", "stroke-width": 2, "class": "pe-stored" });
      ring.appendChild(el("title", {}, "stored runs at (" + p.alpha1 + ", " + p.alpha2 +
                                       "): " + p.sources.join(", ")));
      svg.appendChild(ring);
    });
    svg.appendChild(el("text", { x: X0 + 6, y: Y0 - 8, "font-size": 11, fill: "#555" },
                       "shade: Lambda; rings: stored runs"));
    dot = el("circle", { r: 6, fill: "#d62728", stroke: "#000", id: "pe-point" });
    svg.appendChild(dot);
    svg.addEventListener("click", function (ev) {
      var pt = svg.createSVGPoint(); pt.x = ev.clientX; pt.y = ev.clientY;
      var loc = pt.matrixTransform(svg.getScreenCTM().inverse());
      var a1 = Math.round(100 * 0.5 * (loc.x - X0) / W) / 100;
      var a2 = Math.round(100 * 0.5 * (Y0 - loc.y) / H) / 100;
      if (a1 < 0 || a1 > MAXA || a2 < 0 || a2 > MAXA) { return; }
      state.alpha1 = a1; state.alpha2 = a2; $("pe-message").textContent = ""; update();
    });
  }
  function drawRegion() {
    // shade the region of the current Lambda: between the lines k = lam and k = lam + 1
    while (regionLayer.firstChild) { regionLayer.removeChild(regionLayer.firstChild); }
    var lam = lambdaCount(state.alpha1, state.alpha2), pts = [], n = 60, i, a1;
    for (i = 0; i <= n; i++) {
      a1 = 0.5 * i / n; pts.push([a1, Math.min(0.5, lam * (0.5 - a1))]);
    }
    for (i = n; i >= 0; i--) {
      a1 = 0.5 * i / n; pts.push([a1, Math.min(0.5, (lam + 1) * (0.5 - a1))]);
    }
    regionLayer.appendChild(el("polygon", { points: pts.map(function (p) {
      return sx(p[0]).toFixed(1) + "," + sy(p[1]).toFixed(1); }).join(" "),
      fill: "#fde7c4", stroke: "none" }));
  }

  // ---- tables ---------------------------------------------------------------------------
  function termsTable() {
    var a1 = state.alpha1, a2 = state.alpha2, act = state.activation;
    var lam = lambdaCount(a1, a2), kmax = Math.max(lam + 1, 3), shown = Math.min(kmax, MAXROWS);
    var h = "<table id=\"pe-terms-table\"><tr><th>k</th><th>left vector</th>" +
            "<th>exponent</th><th>in the limit</th><th class=\"pe-l\">with " +
            (act === "tanh" ? "tanh" : "every order") + "</th></tr>";
    for (var k = 0; k <= shown; k++) {
      var e = exponent(a1, a2, k), cls, word;
      if (k === 0) { cls = "grows"; word = "grows (first spike)"; }
      else if (Math.abs(e) <= data.line_tol) { cls = "edge"; word = "on the edge: Theta(1)"; }
      else if (e > 0) { cls = "grows"; word = "grows"; }
      else { cls = "vanishes"; word = "vanishes"; }
      var exists = termExists(k, act);
      var spike = exists && k <= lam;
      h += "<tr data-k=\"" + k + "\"><td>" + k + "</td><td>a^o" + (k + 1) + "</td><td>" +
           signed2(e) + "</td><td class=\"" + cls + "\">" + word + "</td><td class=\"pe-l " +
           (exists ? "" : "absent") + "\">" + (exists ? (spike ? "present: an outlier" :
           "present, no outlier") : "absent (odd order)") + "</td></tr>";
    }
    h += "</table>";
    if (kmax > shown) {
      h += "<p class=\"pe-note\">Terms k = " + (shown + 1) + ".." + lam +
           " also grow (not listed).</p>";
    }
    $("pe-terms").innerHTML = h;
  }

  function nearest() {
    var best = null, bd = Infinity;
    data.points.forEach(function (p) {
      var d = Math.hypot(+p.alpha1 - state.alpha1, +p.alpha2 - state.alpha2);
      if (d < bd) { bd = d; best = p; }
    });
    return bd <= data.radius + 1e-12 ? { point: best, distance: bd } : null;
  }

  // where the stored strengths disagree with the limit, said in words (from the data)
  function strengthNotes(s, a1, a2) {
    var first = s.rows[0], last = s.rows[s.rows.length - 1], notes = [];
    [1, 2, 3].forEach(function (k, i) {
      var e = exponent(a1, a2, k), f = +first.strength[i], l = +last.strength[i];
      if (!termExists(k, s.choice)) { return; }
      if (e < -data.line_tol && l > f) {
        notes.push("term k = " + k + " should shrink in the limit (exponent " + signed2(e) +
                   ") but its strength grows from " + first.strength[i] + " to " +
                   last.strength[i] + " over N = " + first.N + ".." + last.N);
      } else if (e > data.line_tol && k <= lambdaCount(a1, a2) && l < 1) {
        notes.push("term k = " + k + " grows in the limit (exponent " + signed2(e) +
                   ") but is still below the threshold 1 at N = " + last.N + " (" +
                   last.strength[i] + "): no outlier of its own yet");
      }
    });
    return notes.length ? "<p class=\"pe-note pe-disagree\">Finite N against the limit, " +
      esc(s.label) + ": " + notes.join("; ") + ".</p>" : "";
  }

  function measured() {
    var box = $("pe-measured");
    if (data.points.length === 0) {
      box.innerHTML = "<p class=\"pe-off\">The stored runs are switched off " +
        "(COMPANION_PAPER_DATA=off): no measured values.</p>";
      return;
    }
    var hit = nearest();
    if (!hit) {
      box.innerHTML = "<p id=\"pe-nothing\">Nothing stored within " + data.radius +
        " of this point. Stored points: " + data.points.map(function (p) {
          return "(" + p.alpha1 + ", " + p.alpha2 + ")"; }).join(", ") +
        " (rings on the diagram; click one).</p>";
      return;
    }
    var p = hit.point, act = state.activation, h = "";
    h += "<p id=\"pe-stored-point\">Stored runs at <b>(" + p.alpha1 + ", " + p.alpha2 +
         ")</b>" + (hit.distance > 1e-9 ? " (the nearest, " + hit.distance.toFixed(3) +
         " away)" : "") + ": Lambda = " + p.lambda + (p.on_line ? ", on the line k = " +
         p.on_line + " (knife-edge)" : "") + "; experiments " + p.sources.join(", ") +
         ". Reused batch unless a row says otherwise. These are finite-N measurements; " +
         "where they disagree with the limit the table says so.</p>";
    if (p.spikes) {
      var sets = p.spikes.filter(function (s) { return s.choice === act; });
      sets.forEach(function (s) {
        h += "<p><b>Spike count of W2</b>, " + esc(s.label) + ", He_1 target (E11: census " +
             "against a null run, first spike included; the companion derives " + s.limit +
             " in the limit):</p><table class=\"pe-spikes\" data-activation=\"" +
             s.activation + "\"><tr><th>N</th><th>seeds</th><th>mean count</th>" +
             "<th>range</th><th>strength k=1</th><th>k=2</th><th>k=3</th>" +
             "<th class=\"pe-l\">against the limit</th></tr>";
        s.rows.forEach(function (r) {
          var m = +r.mean;
          var cmp = (m === s.limit) ? "equal" : (m < s.limit ? "below (finite N)" :
                    "above (finite N)");
          h += "<tr><td>" + r.N + (r.float32 ? "*" : "") + "</td><td>" + r.seeds +
               "</td><td>" + r.mean + "</td><td>" + r.min + "-" + r.max + "</td><td>" +
               r.strength.join("</td><td>") + "</td><td class=\"pe-l\">" + cmp +
               "</td></tr>";
        });
        h += "</table>" + strengthNotes(s, +p.alpha1, +p.alpha2);
      });
      if (sets.length) {
        h += "<p class=\"pe-note\">Strength: the separate strength of term k (its part " +
             "orthogonal to the earlier terms); a term makes its own outlier once it passes " +
             "about 1 (the BBP threshold at N = d), clearly from about 1.4; the threshold is " +
             "higher where the updates widen the bulk, as GELU's do (chapter Two steps). " +
             "* float32.</p>";
      }
    }
    if (p.terms) {
      var t = p.terms;
      h += "<p><b>Term sizes</b> T_k (projection of W2 - W0 on the k-th Gram-Schmidt power " +
           "of a; " + t.source + ", tanh, He_1 target, mean over the seeds):</p>" +
           "<table id=\"pe-term-sizes\"><tr><th>N</th><th>seeds</th><th>T_0</th>" +
           "<th>T_1</th><th>T_2</th><th>T_3</th></tr>";
      t.rows.forEach(function (r) {
        h += "<tr><td>" + r.N + "</td><td>" + r.seeds + "</td><td>" + r.T.join("</td><td>") +
             "</td></tr>";
      });
      h += "<tr><td colspan=\"2\">local slope " + t.slope_N[0] + "-" + t.slope_N[1] +
           "</td><td>" + t.slope.join("</td><td>") + "</td></tr><tr><td colspan=\"2\">" +
           "exponent (limit)</td><td>" + t.exponent.join("</td><td>") + "</td></tr></table>" +
           "<p class=\"pe-note\">T_1 and T_3 are odd orders, absent for tanh: they show the " +
           "noise floor of the projection, not a term. At these sizes the local slopes are " +
           "not yet the exponents of the limit (compare the last two rows), so a point " +
           "near a line can land on the wrong side.</p>";
    }
    if (p.he3) {
      h += "<p><b>He_3 target</b> (E7, tanh): squared projection of beta* on the top-4 " +
           "right singular subspace of W2 (chance: about 4/d):</p><table id=\"pe-he3\">" +
           "<tr><th class=\"pe-l\">batch</th><th>N</th><th>seeds</th><th>projection</th>" +
           "<th>chance</th><th class=\"pe-l\">the companion derives</th></tr>";
      p.he3.forEach(function (r) {
        h += "<tr><td class=\"pe-l\">" + r.batch + "</td><td>" + r.N + "</td><td>" +
             r.seeds + "</td><td>" + r.projection + "</td><td>" + r.chance +
             "</td><td class=\"pe-l\">" + (r.learnable ? "learned" : "not learned") +
             "</td></tr>";
      });
      h += "</table>";
    }
    if (p.collapse) {
      h += "<p><b>Two steps against one step</b> with eta1 + eta2 (E5, tanh, He_1): " +
           "relative difference ||W2 - W_ref|| / ||W_ref - W0||:</p><table id=\"pe-collapse\">" +
           "<tr><th class=\"pe-l\">batch</th><th>N</th><th>seeds</th><th>rel. difference</th>" +
           "</tr>";
      p.collapse.forEach(function (r) {
        h += "<tr><td class=\"pe-l\">" + r.batch + "</td><td>" + r.N + "</td><td>" +
             r.seeds + "</td><td>" + r.rel_diff + "</td></tr>";
      });
      h += "</table>";
    }
    if (!p.spikes || !p.spikes.some(function (s) { return s.choice === act; })) {
      h += "<p class=\"pe-note\">No spike counts stored here for " +
           (act === "tanh" ? "tanh" : "an activation with every order") + ".</p>";
    }
    box.innerHTML = h;
  }

  // ---- update ---------------------------------------------------------------------------
  function update() {
    var a1 = state.alpha1, a2 = state.alpha2, act = state.activation;
    $("pe-alpha1").value = String(a1); $("pe-alpha2").value = String(a2);
    $("pe-alpha1-value").textContent = String(a1);
    $("pe-alpha2-value").textContent = String(a2);
    $("pe-activation").value = act;
    var lam = lambdaCount(a1, a2), line = phaseLine(a1, a2);
    $("lambda").textContent = String(lam);
    $("pe-line").textContent = line ? "(on the line alpha2 = " + line +
      " (1/2 - alpha1): the term k = " + line + " is Theta(1), a knife-edge)" :
      (lam === 0 ? "(alpha1 + alpha2 < 1/2: two steps act as one)" : "");
    $("pe-count").textContent = String(spikeCount(a1, a2, act));
    $("pe-count-rule").textContent = act === "tanh" ? "= 1 + floor(Lambda/2) (tanh is odd)" :
      "= 1 + Lambda (every order)";
    dot.setAttribute("cx", sx(a1)); dot.setAttribute("cy", sy(a2));
    drawRegion(); termsTable(); measured(); writeAddress();
  }

  readAddress();
  drawStatic();
  $("pe-alpha1").addEventListener("input", function (e) {
    state.alpha1 = Number(e.target.value); update(); });
  $("pe-alpha2").addEventListener("input", function (e) {
    state.alpha2 = Number(e.target.value); update(); });
  $("pe-activation").addEventListener("change", function (e) {
    state.activation = e.target.value; update(); });
  update();
  root.setAttribute("data-ready", "1");
})();
</script>
</div>
"""
