(function () {
  "use strict";
  var root = document.getElementById("phase-explorer");
  var data = JSON.parse(document.getElementById("pe-data").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var MAXA = 0.49, MAXROWS = 10;

  // Lambda with the rule of companion.core.theory.lambda_count (same floor tolerance)
  function lambdaCount(a1, a2) { return Math.floor(a2 / (0.5 - a1) + data.floor_tol); }
  // companion.core.theory.phase_line: the k >= 1 with alpha2 = k (1/2 - alpha1), else null
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
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
  }

  // ---- math: TeX for the MathJax of the page (the book's), plain text where there is none --
  // m("\\alpha_1", "α₁") is a span that MathJax typesets; without MathJax on the page (a
  // notebook viewer without it) the span shows its plain form instead.
  function m(tex, plain) {
    return "<span class=\"pe-m\" data-plain=\"" + esc(plain) + "\">\\(" + tex + "\\)</span>";
  }
  function plainMath(node) {
    var spans = node.querySelectorAll("span.pe-m[data-plain]");
    for (var i = 0; i < spans.length; i++) { spans[i].textContent = spans[i].dataset.plain; }
  }
  // Set the content of an element and remember it for typesetting. The book loads MathJax
  // after this script runs, and its start-up typesets the page as it then is; later changes
  // are typeset by typeset() below, one after the other (MathJax's start-up promise).
  var pending = [];
  function setHTML(node, h) {
    var MJ = window.MathJax;
    if (MJ && typeof MJ.typesetClear === "function") { MJ.typesetClear([node]); }
    node.innerHTML = h;
    pending.push(node);
  }
  function typeset() {
    var nodes = pending, MJ = window.MathJax;
    pending = [];
    if (!MJ) { nodes.forEach(plainMath); return; }
    if (typeof MJ.typesetPromise !== "function" || !MJ.startup || !MJ.startup.promise) {
      return;                     // still loading: its start-up typesets these nodes
    }
    MJ.startup.promise = MJ.startup.promise
      .then(function () { return MJ.typesetPromise(nodes); })
      .catch(function (err) { root.setAttribute("data-math-error", String(err)); });
  }

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

  // the stored experiments by what they measured (their codes are the registry's)
  function sourceNames(p) {
    var names = [];
    p.sources.forEach(function (e) {
      var n = data.experiments[e] || e;
      if (names.indexOf(n) < 0) { names.push(n); }
    });
    return names;
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
                                 "font-size": 14, "font-style": "italic" }, "α₁"));
    svg.appendChild(el("text", { x: 14, y: sy(0.25), "text-anchor": "middle", "font-size": 14,
                                 "font-style": "italic", transform: "rotate(-90 14 " + sy(0.25) + ")" },
                       "α₂"));
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
                                       "): " + sourceNames(p).join(", ")));
      svg.appendChild(ring);
    });
    svg.appendChild(el("text", { x: X0 + 6, y: Y0 - 8, "font-size": 11, fill: "#555" },
                       "shaded: this Λ; rings: stored runs"));
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
    var h = "<table id=\"pe-terms-table\"><tr><th><i>k</i></th><th>left vector</th>" +
            "<th>exponent</th><th>as " + m("N \\to \\infty", "N → ∞") + "</th>" +
            "<th class=\"pe-l\">with " + (act === "tanh" ? "tanh" : "every order") + "</th></tr>";
    for (var k = 0; k <= shown; k++) {
      var e = exponent(a1, a2, k), cls, word;
      if (k === 0) { cls = "grows"; word = "grows (first spike)"; }
      else if (Math.abs(e) <= data.line_tol) { cls = "edge"; word = "on the line: stays of order 1"; }
      else if (e > 0) { cls = "grows"; word = "grows"; }
      else { cls = "vanishes"; word = "vanishes"; }
      var exists = termExists(k, act);
      var spike = exists && k <= lam;
      h += "<tr data-k=\"" + k + "\"><td>" + k + "</td><td>" + m("a^{\\circ " + (k + 1) + "}", "a^∘" + (k + 1)) + "</td><td>" +
           signed2(e) + "</td><td class=\"" + cls + "\">" + word + "</td><td class=\"pe-l " +
           (exists ? "" : "absent") + "\">" + (exists ? (spike ? "present: an outlier" :
           "present, no outlier") : "absent (odd order)") + "</td></tr>";
    }
    h += "</table>";
    if (kmax > shown) {
      h += "<p class=\"pe-note\">Terms k = " + (shown + 1) + ".." + lam +
           " also grow (not listed).</p>";
    }
    setHTML($("pe-terms"), h);
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
        notes.push("term k = " + k + " should shrink as N grows (exponent " + signed2(e) +
                   ") but its strength grows from " + first.strength[i] + " to " +
                   last.strength[i] + " between N = " + first.N + " and " + last.N);
      } else if (e > data.line_tol && k <= lambdaCount(a1, a2) && l < +last.threshold) {
        notes.push("term k = " + k + " grows (exponent " + signed2(e) +
                   ") but its strength is still below the threshold " + last.threshold +
                   " at N = " + last.N + " (" + last.strength[i] +
                   "): no outlier of its own yet");
      }
    });
    return notes.length ? "<p class=\"pe-note pe-disagree\">Finite width against the limit, " +
      esc(s.label) + ": " + notes.join("; ") + ".</p>" : "";
  }

  function table(id, attrs, head, rows) {
    return "<div class=\"pe-scroll\"><table" + (id ? " id=\"" + id + "\"" : "") + attrs +
      "><tr>" + head.join("") + "</tr>" + rows.join("") + "</table></div>";
  }
  function tr(cells) { return "<tr><td>" + cells.join("</td><td>") + "</td></tr>"; }

  function spikeTables(p, act) {
    var h = "";
    p.spikes.filter(function (s) { return s.choice === act; }).forEach(function (s) {
      h += "<p><b>Number of spikes of " + m("W_2", "W₂") + "</b>, " + esc(s.label) + ", " +
           m("\\mathrm{He}_1", "He₁") + " target. A spike is counted when it lies 2% above " +
           "the bulk of a run whose labels carry no signal and its left vector lies on the " +
           "powers of " + m("a", "a") + "; the first spike included. The companion derives " +
           s.limit + " as " + m("N \\to \\infty", "N → ∞") + ".</p>";
      var rows = s.rows.map(function (r) {
        var mean = +r.mean, pc = r.predicted_count;
        var cmp = (mean === pc) ? "equal" : (mean < pc ? "fewer" : "more");
        var strengths = r.strength.map(function (v, i) {
          return v + " <span class=\"pe-pred\">(" + r.predicted[i] + ")</span>"; });
        return "<tr><td>" + r.N + (r.float32 ? "*" : "") + "</td><td>" + r.seeds +
               "</td><td>" + r.mean + "</td><td>" + r.min + "–" + r.max + "</td><td>" +
               strengths.join("</td><td>") + "</td><td>" + r.threshold + "</td><td>" + pc +
               "</td><td class=\"pe-l\">" + cmp + "</td></tr>";
      });
      h += table(null, " class=\"pe-spikes\" data-activation=\"" + esc(s.activation) + "\"",
                 ["<th><i>N</i></th><th>seeds</th><th>mean</th><th>range</th>",
                  "<th>strength <i>k</i> = 1</th><th>2</th><th>3</th>",
                  "<th>threshold</th><th>predicted</th>",
                  "<th class=\"pe-l\">against the prediction</th>"], rows) +
           strengthNotes(s, +p.alpha1, +p.alpha2);
    });
    if (h) {
      h += "<p class=\"pe-note\">Mean, range: of the number of spikes over the seeds. " +
           "Strength <i>k</i>: the separate strength of term <i>k</i> (its part orthogonal " +
           "to the earlier terms), measured, and in brackets as the finite-N prediction " +
           "gives it at this N (chapter Two steps: the saturation-aware mean field, not the " +
           "limit's exponents). A term makes an outlier of its own once its strength passes " +
           "the threshold, what the count needs against the null runs' bulk edge (about " +
           "1.22 for an edge of 2; more where the steps widen the bulk, as GELU's do). " +
           "Predicted: 1 + the number of terms <i>k</i> = 1..4 predicted above the " +
           "threshold, the count this N should show. *: run in single precision (float32) " +
           "to fit in memory.</p>";
    }
    return h;
  }

  function termSizes(t) {
    var rows = t.rows.map(function (r) { return tr([r.N, r.seeds].concat(r.T)); });
    rows.push("<tr><td colspan=\"2\">local slope " + t.slope_N[0] + "–" + t.slope_N[1] +
              "</td><td>" + t.slope.join("</td><td>") + "</td></tr>");
    rows.push("<tr><td colspan=\"2\">exponent as " + m("N \\to \\infty", "N → ∞") +
              "</td><td>" + t.exponent.join("</td><td>") + "</td></tr>");
    return "<p><b>Sizes of the terms</b> " + m("T_k", "Tₖ") + ": the size of " +
      m("W_2 - W_0", "W₂ − W₀") + " along the part of " + m("a^{\\circ(k+1)}", "a^∘(k+1)") +
      " orthogonal to the lower powers (" + esc(data.experiments[t.source] || t.source) +
      ", tanh, " + m("\\mathrm{He}_1", "He₁") + " target, mean over the seeds):</p>" +
      table("pe-term-sizes", "", ["<th><i>N</i></th><th>seeds</th>",
        [0, 1, 2, 3].map(function (k) {
          return "<th>" + m("T_" + k, "T" + "₀₁₂₃"[k]) + "</th>";
        }).join("")], rows) +
      "<p class=\"pe-note\">" + m("T_1", "T₁") + " and " + m("T_3", "T₃") + " belong to odd " +
      "orders, which tanh does not have: they show the noise level of the measurement, not " +
      "a term. At these widths the local slopes are not yet the exponents of the limit " +
      "(compare the last two rows), so a point near a phase line can land on the wrong " +
      "side.</p>";
  }

  function he3Table(rows) {
    return "<p><b>Learning a " + m("\\mathrm{He}_3", "He₃") + " target</b> (tanh): the " +
      "squared projection of the hidden direction " + m("\\beta^*", "β*") + " on the top 4 " +
      "right singular vectors of " + m("W_2", "W₂") + ": near 1 when the network has " +
      "learned it; chance, what 4 random directions give, is about " + m("4/d", "4/d") +
      ":</p>" + table("pe-he3", "", ["<th class=\"pe-l\">batch</th><th><i>N</i></th>",
        "<th>seeds</th><th>projection</th><th>chance</th>",
        "<th class=\"pe-l\">the companion derives</th>"],
      rows.map(function (r) {
        return "<tr><td class=\"pe-l\">" + r.batch + "</td><td>" + r.N + "</td><td>" +
          r.seeds + "</td><td>" + r.projection + "</td><td>" + r.chance +
          "</td><td class=\"pe-l\">" + (r.learnable ? "learned" : "not learned") + "</td></tr>";
      }));
  }

  function collapseTable(rows) {
    return "<p><b>Two steps against one</b> (tanh, " + m("\\mathrm{He}_1", "He₁") +
      " target): how far " + m("W_2", "W₂") + " lies from " + m("W_\\mathrm{ref}", "W_ref") +
      ", one step of size " + m("\\eta_1 + \\eta_2", "η₁ + η₂") + ", relative to that " +
      "step: " + m("\\|W_2 - W_\\mathrm{ref}\\| / \\|W_\\mathrm{ref} - W_0\\|",
                   "‖W₂ − W_ref‖ / ‖W_ref − W₀‖") + " (small: two steps act as one):</p>" +
      table("pe-collapse", "", ["<th class=\"pe-l\">batch</th><th><i>N</i></th>",
        "<th>seeds</th><th>relative difference</th>"],
      rows.map(function (r) {
        return "<tr><td class=\"pe-l\">" + r.batch + "</td><td>" + r.N + "</td><td>" +
          r.seeds + "</td><td>" + r.rel_diff + "</td></tr>";
      }));
  }

  function measured() {
    var box = $("pe-measured");
    if (data.points.length === 0) {
      setHTML(box, "<p class=\"pe-off\">The stored runs are switched off " +
        "(COMPANION_PAPER_DATA=off): no measured values.</p>");
      return;
    }
    var hit = nearest();
    if (!hit) {
      setHTML(box, "<p id=\"pe-nothing\">Nothing stored within " + data.radius +
        " of this point. Stored points: " + data.points.map(function (p) {
          return "(" + p.alpha1 + ", " + p.alpha2 + ")"; }).join(", ") +
        " (rings on the diagram; click one).</p>");
      return;
    }
    var p = hit.point, act = state.activation;
    var h = "<p id=\"pe-stored-point\">Stored runs at <b>(" + p.alpha1 + ", " + p.alpha2 +
         ")</b>" + (hit.distance > 1e-9 ? " (the nearest, " + hit.distance.toFixed(3) +
         " away)" : "") + ": " + m("\\Lambda", "Λ") + " = " + p.lambda + (p.on_line ?
         ", on the phase line of term k = " + p.on_line : "") + "; " +
         sourceNames(p).join(", ") + ". Reused batch unless a row says otherwise. These " +
         "are measurements at finite width; where they disagree with the limit, the page " +
         "says so.</p>";
    var spikes = p.spikes ? spikeTables(p, act) : "";
    h += spikes;
    if (p.terms) { h += termSizes(p.terms); }
    if (p.he3) { h += he3Table(p.he3); }
    if (p.collapse) { h += collapseTable(p.collapse); }
    if (!spikes) {
      h += "<p class=\"pe-note\">No spike counts stored here for " +
           (act === "tanh" ? "tanh" : "an activation with every order") + ".</p>";
    }
    setHTML(box, h);
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
    setHTML($("pe-line"), line ? "(on the phase line " +
      m("\\alpha_2 = " + line + "(1/2 - \\alpha_1)", "α₂ = " + line + "(1/2 − α₁)") +
      ": term k = " + line + " neither grows nor shrinks, a knife-edge)" :
      (lam === 0 ? "(" + m("\\alpha_1 + \\alpha_2 \\lt 1/2", "α₁ + α₂ < 1/2") +
       ": two steps act as one)" : ""));
    $("pe-count").textContent = String(spikeCount(a1, a2, act));
    setHTML($("pe-count-rule"), act === "tanh" ?
      "= " + m("1 + \\lfloor \\Lambda/2 \\rfloor", "1 + ⌊Λ/2⌋") + " (tanh is odd)" :
      "= " + m("1 + \\Lambda", "1 + Λ") + " (every order)");
    dot.setAttribute("cx", sx(a1)); dot.setAttribute("cy", sy(a2));
    drawRegion(); termsTable(); measured(); writeAddress(); typeset();
  }

  readAddress();
  drawStatic();
  if (!window.MathJax) { plainMath(root); }
  $("pe-alpha1").addEventListener("input", function (e) {
    state.alpha1 = Number(e.target.value); update(); });
  $("pe-alpha2").addEventListener("input", function (e) {
    state.alpha2 = Number(e.target.value); update(); });
  $("pe-activation").addEventListener("change", function (e) {
    state.activation = e.target.value; update(); });
  update();
  root.setAttribute("data-ready", "1");
})();
