"""The K-class report's interactive panel (issue 39 item 3): drive the reject-cost slider and the
strategy selector in headless Chromium and compare every decision the page shows (the colour and
label of every row's square, the counts and rates of the first rows of the decision table)
with ``fit.decide`` on the same rows; without JavaScript the panel shows the report's cost.
Also the K-class report's "each thing once": one glossary linked from every table, a comparison
table that fits the page's column."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from markupsafe import escape

import evstat as ev
from evstat.report._kclass import DEFINITIONS

from test_report_browser import ARGS, CHROMIUM, _require_browser

COSTS = ["0", "0.05", "0.2", "0.37", "0.5", "0.73", "1"]
STRATEGIES = ("pessimistic", "optimistic", "probabilistic")


@pytest.fixture(scope="module")
def iris():
    d = ev.datasets.load("iris_scores")
    return d[d.set == "calibration"].reset_index(drop=True), d[d.set == "test"].reset_index(drop=True)


@pytest.fixture(scope="module")
def fits(iris):
    cal, _ = iris
    return {"eknn": ev.eknn("y ~ lr_versicolor + lr_virginica", cal),
            "temperature": ev.temperature("y ~ logp_setosa + logp_versicolor + logp_virginica", cal)}


@pytest.fixture(scope="module")
def page_file(fits, iris, tmp_path_factory):
    _, test = iris
    return ev.report(fits, tmp_path_factory.mktemp("kexplore") / "k.html", newdata=test, date="2024-01-01", grid=4)


def _rows(page, selector):
    return page.evaluate(f"Array.from(document.querySelector('{selector}').tBodies[0].rows)"
                         ".map(r => Array.from(r.cells).map(c => c.textContent))")


def _expected_row(fit, test, strategy, cost):
    dec = fit.decide(test, strategy=strategy, reject_cost=float(cost)).astype(str).to_numpy()
    y = test["y"].astype(str).to_numpy()
    rej = dec == "reject"
    errors = int(np.sum(~rej & (dec != y)))
    counts = [str(int(np.sum(dec == str(c)))) for c in fit.classes]
    return dec, [strategy, cost, *counts, str(int(rej.sum())), str(errors)], errors, rej


@pytest.mark.slow
def test_k_class_slider_and_strategy_match_fit_decide(fits, iris, page_file):
    _require_browser()
    from playwright.sync_api import sync_playwright

    _, test = iris
    n = len(test)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            problems, requests = [], []
            page.on("console", lambda m: problems.append((m.type, m.text)) if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(("pageerror", str(e))))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(page_file.as_uri(), wait_until="load")
            for m, (name, fit) in enumerate(fits.items(), start=1):
                box = page.locator(f"#m{m}-kexplore")
                slider, select = box.locator('input[type="range"]'), box.locator("select")
                assert slider.is_visible() and select.is_visible()
                data = json.loads(box.locator('script[type="application/json"]').text_content())
                assert data["classes"] == [str(c) for c in fit.classes] and len(data["bel"]) == n
                for strategy in STRATEGIES:
                    select.select_option(strategy)
                    for cost in COSTS:
                        slider.fill(cost)
                        assert box.locator("output").text_content() == cost
                        dec = _expected_row(fit, test, strategy, cost)[0]
                        # every row's square: its decision, the colour of that decision
                        shown = page.evaluate(f"Array.from(document.querySelectorAll('#m{m}-strip rect[data-i]'))"
                                              ".map(r => [+r.getAttribute('data-i'), r.getAttribute('data-decision'),"
                                              " r.getAttribute('fill')])")
                        assert len(shown) == n
                        got = np.empty(n, dtype=object)
                        for i, label, colour in shown:
                            got[i] = label
                            k = data["classes"].index(label) if label != "reject" else len(data["classes"])
                            assert colour == data["colours"][k]
                        assert got.tolist() == dec.tolist(), (name, strategy, cost)
                        # the first rows of the decision table: every strategy at the slider's cost
                        for row, st in zip(_rows(page, f"#m{m}-decisions")[:3], STRATEGIES):
                            _, want, errors, rej = _expected_row(fit, test, st, cost)
                            assert row[: len(want)] == want, (name, st, cost, row)
                            decided = int((~rej).sum())
                            assert float(row[len(want)]) == pytest.approx(errors / n, rel=5e-4, abs=1e-12)
                            if decided:
                                assert float(row[len(want) + 1]) == pytest.approx((decided - errors) / decided,
                                                                                  rel=5e-4)
                            else:
                                assert row[len(want) + 1] == "NA"
                            assert float(row[len(want) + 2]) == pytest.approx(rej.mean(), rel=5e-4, abs=1e-12)
            assert not problems, problems
            assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
        finally:
            browser.close()


def test_k_class_panel_without_javascript_and_each_thing_once(fits, iris, page_file):
    """No JavaScript: the controls stay hidden, the squares show the report's cost (pessimistic);
    the definitions are said once and every K-class table links to them; the comparison table
    fits a 1,000 px column and has no column that repeats another."""
    _require_browser()
    from playwright.sync_api import sync_playwright

    _, test = iris
    html = page_file.read_text(encoding="utf-8")
    for anchor, _, text in DEFINITIONS:
        assert html.count(f'id="{anchor}"') == 1
        assert html.count(str(escape(text[:60]))) == 1, anchor
        assert f'href="#{anchor}"' in html
    assert html.count("Gebel (2009) 2.4") == 1
    assert "for evmultinom" not in html
    assert "none (3 classes)" not in html
    rc = float(re.search(r'<output>([0-9.]+)</output>', html).group(1))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            context = browser.new_context(java_script_enabled=False, viewport={"width": 1100, "height": 900})
            page = context.new_page()
            page.goto(page_file.as_uri(), wait_until="load")
            assert not page.locator(".evstat-kexplorer .evstat-controls").first.is_visible()
            for m, fit in enumerate(fits.values(), start=1):
                shown = page.evaluate(f"Array.from(document.querySelectorAll('#m{m}-strip rect[data-i]'))"
                                      ".map(r => [+r.getAttribute('data-i'), r.getAttribute('data-decision')])")
                dec = fit.decide(test, strategy="pessimistic", reject_cost=rc).astype(str).to_numpy()
                assert [d for _, d in sorted(shown)] == dec.tolist()
            # every table of the page fits its column (the page's column is about 1,060 px here)
            wide = page.evaluate("Array.from(document.querySelectorAll('table'))"
                                 ".filter(t => t.scrollWidth > Math.min(1000, t.parentElement.clientWidth))"
                                 ".map(t => t.querySelector('caption').textContent)")
            assert not wide, wide
            heads = page.evaluate("Array.from(document.querySelector('#comparison table').tHead.rows[0].cells)"
                                  ".map(c => c.textContent)")
            assert "method" not in heads and "data" not in heads
            cells = page.evaluate("Array.from(document.querySelector('#comparison table').tBodies[0].rows)"
                                  ".map(r => Array.from(r.cells).map(c => c.textContent))")
            for j in range(len(heads)):
                for k in range(j + 1, len(heads)):
                    assert [r[j] for r in cells] != [r[k] for r in cells], (heads[j], heads[k])
            context.close()
        finally:
            browser.close()
