/* evstat report: the reject-cost slider. Plain JavaScript, no network, no library.
   Decisions as evstat.belief.binary_decisions: with 0-1 costs, the cost of deciding the
   positive class c1 and the negative class c0 are (1 - Bel, Pl) for the pessimistic strategy,
   (1 - Pl, Bel) for the optimistic one and (1 - theta, theta) for the probabilistic one; the
   positive class needs c1 < c0 - TIE_TOL, reject needs R_rej < cost - TIE_TOL. */
(function () {
  "use strict";
  function decide(strategy, b, q, p, rc, tol) {
    var c1, c0;
    if (strategy === "pessimistic") { c1 = 1.0 - b; c0 = q; }
    else if (strategy === "optimistic") { c1 = 1.0 - q; c0 = b; }
    else { c1 = 1.0 - p; c0 = p; }
    var choice = (c1 < c0 - tol) ? 1 : 0;
    var cost = choice === 1 ? c1 : c0;
    return (rc < cost - tol) ? 2 : choice;
  }
  function fmt(x) {  /* as Python's "%.4g" (evstat.summary.format_number) */
    if (!isFinite(x)) { return "NA"; }
    if (x === 0) { return "0"; }
    var r = Number(x.toPrecision(4));
    var e = Math.floor(Math.log10(Math.abs(r)));
    if (e < -4 || e >= 4) {
      var parts = r.toExponential(3).split("e");
      var mant = parts[0].indexOf(".") >= 0 ? parts[0].replace(/0+$/, "").replace(/\.$/, "") : parts[0];
      var ex = parseInt(parts[1], 10);
      return mant + "e" + (ex < 0 ? "-" : "+") + (Math.abs(ex) < 10 ? "0" : "") + Math.abs(ex);
    }
    return String(r);
  }
  function tally(data, strategy, rc) {
    var rows = data.rows, n = rows.bel.length, t = {neg: 0, pos: 0, rej: 0, errors: 0, n: n};
    for (var i = 0; i < n; i++) {
      var d = decide(strategy, rows.bel[i], rows.pl[i], rows.theta[i], rc, data.tol);
      if (d === 2) { t.rej++; } else if (d === 1) { t.pos++; } else { t.neg++; }
      if (rows.y !== null && d !== 2 && d !== rows.y[i]) { t.errors++; }
    }
    return t;
  }
  function setup(box) {
    var data = JSON.parse(box.querySelector('script[type="application/json"]').textContent);
    var input = box.querySelector('input[type="range"]');
    var output = box.querySelector("output");
    var select = box.querySelector("select");
    var table = document.getElementById(box.getAttribute("data-table"));
    var err = box.querySelector("svg[data-top]");
    var cells = [];
    var layer = box.querySelector("g.evstat-cells");
    if (layer && data.cells) {  /* the region panel's n x n cells, row 0 at the bottom */
      var n = +layer.getAttribute("data-n"), side = +layer.getAttribute("data-side");
      var gx0 = +layer.getAttribute("data-x0"), gy0 = +layer.getAttribute("data-y0"), cw = side / n;
      for (var k = 0; k < n * n; k++) {
        var r = document.createElementNS(layer.namespaceURI, "rect");
        r.setAttribute("data-k", String(k));
        r.setAttribute("x", (gx0 + (k % n) * cw).toFixed(2));
        r.setAttribute("y", (gy0 + side - (Math.floor(k / n) + 1) * cw).toFixed(2));
        r.setAttribute("width", (cw + 0.3).toFixed(2));
        r.setAttribute("height", (cw + 0.3).toFixed(2));
        layer.appendChild(r);
        cells.push(r);
      }
    }
    /* the cost in the captions (the table's and this block's): the slider's, and why */
    var initial = input.value;
    var costs = [], whys = [];
    [table ? table.caption : null, box].forEach(function (el) {
      if (!el) { return; }
      Array.prototype.forEach.call(el.querySelectorAll(".evstat-cost"), function (c) { costs.push(c); });
      Array.prototype.forEach.call(el.querySelectorAll(".evstat-cost-why"), function (c) { whys.push([c, c.textContent]); });
    });
    function update() {
      var rc = parseFloat(input.value);
      output.textContent = input.value;
      costs.forEach(function (c) { c.textContent = input.value; });
      whys.forEach(function (w) {
        w[0].textContent = input.value === initial ? w[1] : " (set by the slider; the report uses " + initial + ")";
      });
      data.strategies.forEach(function (s, i) {
        var t = tally(data, s, rc);
        if (table) {
          var tr = table.tBodies[0].rows[i];
          var values = [input.value, String(t.neg), String(t.pos), String(t.rej)];
          if (data.rows.y !== null) {
            var decided = t.neg + t.pos;
            values.push(String(t.errors), fmt(t.errors / t.n),
                        fmt(decided > 0 ? (decided - t.errors) / decided : NaN), fmt(t.rej / t.n));
          }
          for (var j = 0; j < values.length; j++) { tr.cells[j + 1].textContent = values[j]; }
        }
        if (err && data.rows.y !== null) {
          var dot = err.querySelector('circle[data-strategy="' + s + '"]');
          var x0 = +err.getAttribute("data-x0"), y0 = +err.getAttribute("data-y0");
          var w = +err.getAttribute("data-w"), h = +err.getAttribute("data-h"), top = +err.getAttribute("data-top");
          dot.setAttribute("cx", (x0 + (t.rej / t.n) * w).toFixed(2));
          dot.setAttribute("cy", (y0 + h - (t.errors / t.n) / top * h).toFixed(2));
        }
      });
      if (data.cells && cells.length) {
        var s = select ? select.value : "pessimistic";
        for (var k = 0; k < cells.length; k++) {
          var d = decide(s, data.cells.bel[k], data.cells.pl[k], data.cells.theta[k], rc, data.tol);
          cells[k].setAttribute("fill", data.shades[d]);
        }
      }
    }
    input.addEventListener("input", update);
    input.addEventListener("change", update);
    if (select) { select.addEventListener("change", update); }
    box.hidden = false;
    box.querySelector(".evstat-controls").hidden = false;
    update();
  }
  Array.prototype.forEach.call(document.querySelectorAll(".evstat-explorer"), setup);
})();
