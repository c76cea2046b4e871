/* evstat report: the K-class reject-cost slider and strategy selector. Plain JavaScript, no
   network, no library. Decisions as evstat.metrics.decide_classes (= fit.decide, 0-1 costs):
   the cost of class k is 1 - Bel({k}) (pessimistic), 1 - Pl({k}) (optimistic) or 1 - P(k | x)
   (probabilistic), that of rejecting R_rej; the first action (classes in frame order, then
   reject) whose cost is within TIE_TOL of the least cost is chosen (evstat.belief.decision.choose). */
(function () {
  "use strict";
  function decide(data, strategy, i, rc) {
    var K = data.classes.length, costs = new Array(K + 1), low = Infinity, k;
    var v = strategy === "pessimistic" ? data.bel[i] : strategy === "optimistic" ? data.pl[i] : data.theta[i];
    for (k = 0; k < K; k++) { costs[k] = 1.0 - v[k]; }
    costs[K] = rc;
    for (k = 0; k <= K; k++) { if (costs[k] < low) { low = costs[k]; } }
    for (k = 0; k <= K; k++) { if (costs[k] <= low + data.tol) { return k; } }
    return K;
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
    var K = data.classes.length, n = data.bel.length, counts = [], errors = 0, codes = new Array(n);
    for (var k = 0; k <= K; k++) { counts.push(0); }
    for (var i = 0; i < n; i++) {
      var d = decide(data, strategy, i, rc);
      codes[i] = d;
      counts[d]++;
      if (data.y !== null && d !== K && d !== data.y[i]) { errors++; }
    }
    return {counts: counts, errors: errors, n: n, codes: codes};
  }
  function values(data, t, cost) {
    var K = data.classes.length, out = [cost];
    for (var k = 0; k <= K; k++) { out.push(String(t.counts[k])); }
    if (data.y !== null) {
      var decided = t.n - t.counts[K];
      out.push(String(t.errors), fmt(t.errors / t.n),
               fmt(decided > 0 ? (decided - t.errors) / decided : NaN), fmt(t.counts[K] / t.n));
    }
    return out;
  }
  function fill(tr, vals) {
    for (var j = 0; j < vals.length; j++) { tr.cells[j + 1].textContent = vals[j]; }
  }
  function setup(box) {
    var data = JSON.parse(box.querySelector('script[type="application/json"]').textContent);
    var K = data.classes.length;
    var input = box.querySelector('input[type="range"]');
    var output = box.querySelector("output");
    var select = box.querySelector("select");
    var table = document.getElementById(box.getAttribute("data-table"));
    var cells = box.querySelectorAll("rect[data-i]");
    function update() {
      var rc = parseFloat(input.value), s = select.value;
      output.textContent = input.value;
      var t = tally(data, s, rc);
      for (var c = 0; c < cells.length; c++) {
        var d = t.codes[+cells[c].getAttribute("data-i")];
        cells[c].setAttribute("fill", data.colours[d]);
        cells[c].setAttribute("data-decision", d < K ? data.classes[d] : "reject");
      }
      if (table) {
        data.strategies.forEach(function (st, i) {
          fill(table.tBodies[0].rows[i], values(data, st === s ? t : tally(data, st, rc), input.value));
        });
      }
    }
    input.addEventListener("input", update);
    input.addEventListener("change", update);
    select.addEventListener("change", update);
    box.querySelector(".evstat-controls").hidden = false;
    update();
  }
  Array.prototype.forEach.call(document.querySelectorAll(".evstat-kexplorer"), setup);
})();
