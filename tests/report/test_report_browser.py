"""Open a report in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-python):
every figure renders, no console errors, no network requests, key headings visible, JavaScript off.

Outside CI the test is skipped when playwright or Chromium is missing; in CI (CI=true) it fails
with a message saying what to install.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import evstat as ev
from evstat import plotting

CHROMIUM = os.environ.get("EVSTAT_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
HEADINGS = ["Overview", "Comparison of calibrators", "Model summary", "Goodness of fit", "Calibration metrics",
            "Decisions with a reject option", "Figures", "Reproducibility"]


def _require_browser():
    problems = []
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problems.append("the Python package playwright is not installed (pip install playwright; "
                        "never run 'playwright install': the system Chromium is used)")
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        problems.append(f"no Chromium at {CHROMIUM} (apt-get install -y chromium chromium-driver, "
                        "or set EVSTAT_CHROMIUM)")
    if problems:
        message = "browser test needs a headless browser: " + "; ".join(problems)
        if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="module")
def report_file(tmp_path_factory) -> tuple[Path, int]:
    _require_browser()
    d = ev.datasets.load("heart_scores")
    cal, test = d[d.set == "calibration"], d[d.set == "test"]
    fits = {"evlogit": ev.evlogit("y ~ svm1 + svm2", cal), "isotonic": ev.isotonic("y ~ svm1", cal)}
    path = ev.report(fits, tmp_path_factory.mktemp("browser") / "report.html", newdata=test,
                     date="2024-01-01", grid=6)
    n_figures = sum(len(plotting.applicable_kinds(f)) for f in fits.values())
    return path, n_figures


def test_report_in_headless_chromium(report_file):
    _require_browser()
    from playwright.sync_api import sync_playwright

    path, n_figures = report_file
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            context = browser.new_context(java_script_enabled=False, viewport={"width": 1200, "height": 900})
            page = context.new_page()
            console, page_errors, requests = [], [], []
            page.on("console", lambda m: console.append((m.type, m.text)))
            page.on("pageerror", lambda e: page_errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            response = page.goto(path.as_uri(), wait_until="load")
            assert response is None or response.ok
            assert page.title().startswith("evstat calibration report")
            # images: inline SVGs, each laid out with a positive size; any <img> decoded
            sizes = page.evaluate(
                "Array.from(document.querySelectorAll('svg.evstat-figure'))"
                ".map(s => { const r = s.getBoundingClientRect(); return [r.width, r.height]; })"
            )
            assert len(sizes) == n_figures
            assert all(w > 100 and h > 100 for w, h in sizes), sizes
            imgs = page.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth])")
            assert all(done and width > 0 for done, width in imgs), imgs
            # paths inside the SVGs resolve their glyph and clip references (drawn, not empty)
            drawn = page.evaluate(
                "Array.from(document.querySelectorAll('svg.evstat-figure')).map(s => "
                "Array.from(s.querySelectorAll('use')).filter(u => u.getBBox().width > 0).length)"
            )
            assert all(n > 20 for n in drawn), drawn
            for name in HEADINGS:
                heading = page.get_by_role("heading", name=name, exact=True).first
                assert heading.is_visible(), name
            assert page.get_by_role("heading", name="Model: evlogit", exact=True).is_visible()
            assert page.get_by_role("heading", name="Model: isotonic", exact=True).is_visible()
            assert not [m for m in console if m[0] in ("error", "warning")], console
            assert not page_errors, page_errors
            assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
            # without JavaScript the slider and its panels stay hidden; the tables show the report's
            # cost and the static figures they replace (inside <noscript>) are drawn instead
            assert not page.locator(".evstat-controls").first.is_visible()
            assert not page.locator("svg.evstat-panel").first.is_visible()
            titles = page.evaluate("Array.from(document.querySelectorAll('figcaption strong')).map(s => s.textContent)")
            assert "Decision regions." in titles and "Decisions with a reject option." in titles, titles
            # the table of contents links work without JavaScript
            page.get_by_role("link", name="Reproducibility").click()
            assert page.evaluate("location.hash") == "#reproducibility"
            context.close()
        finally:
            browser.close()


SLIDER_COSTS = ["0", "0.05", "0.2", "0.37", "0.5", "0.73", "1"]


def test_reject_cost_slider_matches_fit_decide(tmp_path):
    """Move the slider: the first rows of the decision table, the error-reject points and the
    region cells follow, and agree with fit.decide at that cost."""
    _require_browser()
    import json
    import re

    import numpy as np
    from playwright.sync_api import sync_playwright

    from evstat import metrics

    d = ev.datasets.load("sonar_scores")
    cal, test = d[d.set == "calibration"], d[d.set == "test"]
    fit = ev.evlogit("y ~ svm1 + svm2 + svm3", cal)
    path = ev.report(fit, tmp_path / "slider.html", newdata=test, date="2024-01-01", grid=8)
    y = test["y"].to_numpy()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            problems, requests = [], []
            page.on("console", lambda m: problems.append((m.type, m.text)) if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(("pageerror", str(e))))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(path.as_uri(), wait_until="load")
            slider = page.locator('.evstat-explorer input[type="range"]').first
            assert slider.is_visible()
            data = json.loads(page.locator('.evstat-explorer script[type="application/json"]').first.text_content())
            # one figure per thing: with JavaScript the panels replace the static region and
            # error-reject figures (kept in <noscript>), and each strategy has the colour and dashes
            # of plotting.STRATEGY_STYLE, as in every static figure
            titles = page.evaluate("Array.from(document.querySelectorAll('figcaption strong')).map(s => s.textContent)")
            assert "Decision regions." not in titles and "Decisions with a reject option." not in titles, titles
            assert "Reliability diagram." in titles
            STRATEGY_STYLE = plotting.STRATEGY_STYLE
            strokes = page.evaluate("Array.from(document.querySelectorAll('#m1-err polyline'))"
                                    ".map(p => [p.getAttribute('stroke'), p.getAttribute('stroke-dasharray')])")
            dashes = {"-": None, "--": "6 3", ":": "1.5 2.5"}
            assert strokes == [[STRATEGY_STYLE[s]["color"], dashes[STRATEGY_STYLE[s]["linestyle"]]]
                               for s in ("pessimistic", "optimistic", "probabilistic")], strokes
            initial = slider.input_value()

            def captions() -> tuple[str, str]:
                return (page.locator("#m1-decisions caption").text_content(),
                        page.locator(".evstat-explorer p.note strong").first.text_content())

            table_caption, note = captions()
            assert f"R_rej = {initial} (chosen from the data" in table_caption, table_caption
            assert note.startswith(f"Decisions at R_rej = {initial},"), note
            for cost in SLIDER_COSTS:
                slider.fill(cost)
                assert page.locator(".evstat-explorer output").first.text_content() == cost
                # the captions name the slider's cost, not the report's (issue 39 item 4)
                table_caption, note = captions()
                assert note.startswith(f"Decisions at R_rej = {cost},"), (cost, note)
                assert f"at R_rej = {cost} (" in table_caption, (cost, table_caption)
                if cost != initial:
                    assert f"(set by the slider; the report uses {initial})" in table_caption, table_caption
                    assert "chosen from the data" not in table_caption, table_caption
                rows = page.evaluate("Array.from(document.querySelector('#m1-decisions').tBodies[0].rows)"
                                     ".slice(0, 3).map(r => Array.from(r.cells).map(c => c.textContent))")
                dots = page.evaluate("Array.from(document.querySelectorAll('#m1-err circle[data-strategy]'))"
                                     ".map(c => [c.getAttribute('data-strategy'), +c.getAttribute('cx'), +c.getAttribute('cy')])")
                err = page.locator("#m1-err")
                x0, y0, w, h, top = (float(err.get_attribute(a)) for a in ("data-x0", "data-y0", "data-w", "data-h", "data-top"))
                for row, s, (ds, cx, cy) in zip(rows, ("pessimistic", "optimistic", "probabilistic"), dots):
                    dec = fit.decide(test, strategy=s, reject_cost=float(cost)).astype(str).to_numpy()
                    rej = dec == "reject"
                    errors = int(np.sum(~rej & (dec != y.astype(str))))
                    assert row[:6] == [s, cost, str(int(np.sum(dec == "0"))), str(int(np.sum(dec == "1"))),
                                       str(int(rej.sum())), str(errors)], (cost, row)
                    assert float(row[6]) == pytest.approx(errors / len(y), rel=5e-4, abs=1e-12)
                    decided = int((~rej).sum())
                    if decided:
                        assert float(row[7]) == pytest.approx((decided - errors) / decided, rel=5e-4)
                    else:
                        assert row[7] == "NA"
                    assert float(row[8]) == pytest.approx(rej.mean(), rel=5e-4, abs=1e-12)
                    assert ds == s and cx == pytest.approx(x0 + rej.mean() * w, abs=0.01)
                    assert cy == pytest.approx(y0 + h - errors / len(y) / top * h, abs=0.01)
                # the region cells: the pessimistic strategy's decision on the embedded lattice
                fills = page.evaluate("Array.from(document.querySelectorAll('#m1-reg rect[data-k]')).map(r => r.getAttribute('fill'))")
                c = data["cells"]
                want = metrics.decide_binary(np.array(c["bel"]), np.array(c["pl"]), "pessimistic", float(cost),
                                             p=np.array(c["theta"]))
                codes = [2 if v == "reject" else int(v) for v in want]
                assert fills == [data["shades"][k] for k in codes], cost
            # another strategy for the region panel
            page.locator(".evstat-explorer select").first.select_option("optimistic")
            fills = page.evaluate("Array.from(document.querySelectorAll('#m1-reg rect[data-k]')).map(r => r.getAttribute('fill'))")
            want = metrics.decide_binary(np.array(c["bel"]), np.array(c["pl"]), "optimistic", 1.0, p=np.array(c["theta"]))
            assert fills == [data["shades"][2 if v == "reject" else int(v)] for v in want]
            assert not problems, problems
            assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
            assert re.search(r"R_rej = 0\.\d+ \(chosen from the data", page.content())
        finally:
            browser.close()


def test_k_class_report_from_the_command_line_in_chromium(tmp_path):
    """A K-class report made by the ``evstat`` executable (``--example iris``, several models)
    renders in headless Chromium: every figure laid out, the headings of each model and of the
    comparison visible, no console errors, no network (issue 25 item 1)."""
    _require_browser()
    import subprocess
    import sys

    from playwright.sync_api import sync_playwright

    root = Path(ev.__file__).resolve().parent.parent
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    path = tmp_path / "iris.html"
    done = subprocess.run([str(Path(sys.executable).parent / "evstat"), "report", "--example", "iris", "--method",
                           "eknn", "temperature", "--grid", "5", "--date", "2026-01-01", "-o", str(path)],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            problems, requests = [], []
            page.on("console", lambda m: problems.append((m.type, m.text)) if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(("pageerror", str(e))))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(path.as_uri(), wait_until="load")
            assert page.title().startswith("evstat calibration report")
            sizes = page.evaluate(
                "Array.from(document.querySelectorAll('svg.evstat-figure'))"
                ".map(s => { const r = s.getBoundingClientRect(); return [r.width, r.height]; })"
            )
            assert len(sizes) >= 2 and all(w > 100 and h > 100 for w, h in sizes), sizes
            for name in ("Overview", "Comparison of calibrators", "Model: eknn", "Model: temperature",
                         "Reproducibility"):
                assert page.get_by_role("heading", name=name, exact=True).first.is_visible(), name
            assert not problems, problems
            assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
        finally:
            browser.close()


K_HEADINGS = ["Overview", "Comparison of calibrators", "Model summary", "Goodness of fit", "Calibration metrics",
              "Decisions with a reject option", "Figures", "Reproducibility"]
K_CAPTIONS = ["Measures of the class probabilities of the models", "Decisions at reject cost R_rej = ",
              "Top-label reliability table", "Classwise reliability table",
              "Lower and upper probabilities of each class on the new data", "Decisions on the new data"]


@pytest.fixture(scope="module")
def k_class_report(tmp_path_factory) -> tuple[Path, str]:
    """A K-class report made by the command line (issue 25): evmultinom, eknn and credal_knn on
    the shipped iris scores (K = 3), with the labelled test rows."""
    import subprocess
    import sys

    _require_browser()
    root = tmp_path_factory.mktemp("kbrowser")
    d = ev.datasets.load("iris_scores")
    d[d.set == "calibration"].to_csv(root / "iris_cal.csv", index=False)
    d[d.set == "test"].iloc[::2].to_csv(root / "iris_test.csv", index=False)
    out = root / "k.html"
    cmd = [sys.executable, "-m", "evstat", "report", "y ~ lr_versicolor + lr_virginica",
           "--data", str(root / "iris_cal.csv"), "--newdata", str(root / "iris_test.csv"),
           "--method", "evmultinom", "eknn", "credal_knn", "--grid", "6", "--date", "2024-01-01", "-o", str(out)]
    repo = Path(ev.__file__).resolve().parent.parent
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr
    return out, out.read_text(encoding="utf-8")


@pytest.mark.slow
def test_k_class_report_from_the_command_line_in_headless_chromium(k_class_report):
    _require_browser()
    from playwright.sync_api import sync_playwright

    path, html = k_class_report
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            context = browser.new_context(viewport={"width": 1200, "height": 900})
            page = context.new_page()
            problems, requests = [], []
            page.on("console", lambda m: problems.append((m.type, m.text)) if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(("pageerror", str(e))))
            page.on("request", lambda r: requests.append(r.url))
            response = page.goto(path.as_uri(), wait_until="load")
            assert response is None or response.ok
            assert page.title().startswith("evstat calibration report")
            for name in K_HEADINGS:
                assert page.get_by_role("heading", name=name, exact=True).first.is_visible(), name
            for model in ("evmultinom", "eknn", "credal_knn"):
                assert page.get_by_role("heading", name=f"Model: {model}", exact=True).is_visible(), model
            captions = page.evaluate("Array.from(document.querySelectorAll('caption')).map(c => c.textContent)")
            for want in K_CAPTIONS:
                assert any(c.startswith(want) for c in captions), (want, captions)
            # every figure is laid out with a positive size and draws its glyphs and marks
            sizes = page.evaluate(
                "Array.from(document.querySelectorAll('svg.evstat-figure'))"
                ".map(s => { const r = s.getBoundingClientRect(); return [r.width, r.height]; })"
            )
            # per model: class regions, ignorance map, two reliability diagrams, ternary; one comparison figure
            assert len(sizes) == 3 * 5 + 1, sizes
            assert all(w > 100 and h > 100 for w, h in sizes), sizes
            drawn = page.evaluate(
                "Array.from(document.querySelectorAll('svg.evstat-figure')).map(s => "
                "Array.from(s.querySelectorAll('use')).filter(u => u.getBBox().width > 0).length)"
            )
            assert all(n > 20 for n in drawn), drawn
            titles = page.evaluate("Array.from(document.querySelectorAll('figcaption strong')).map(s => s.textContent)")
            for t in ("Error-reject curves of all models.", "Class regions.", "Top-label reliability diagram.",
                      "Classwise reliability diagram.", "Ternary probability plot."):
                assert t in titles, (t, titles)
            assert "not drawn" not in html
            assert not problems, problems
            assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
            page.get_by_role("link", name="Comparison of calibrators").click()
            assert page.evaluate("location.hash") == "#comparison"
            context.close()
        finally:
            browser.close()
