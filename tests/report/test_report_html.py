"""The HTML report: sections per calibrator, escaping, self-containment, determinism, numbers."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat import metrics, plotting
from evstat.calibration.summary import format_number
from evstat.report import render_report
from evstat.report._build import build_context
from evstat.report.svg import figure_svg

pytestmark = pytest.mark.filterwarnings("error")

SCORES = ev.datasets.load("sonar_scores")
CAL = SCORES[SCORES.set == "calibration"].reset_index(drop=True)
TEST = SCORES[SCORES.set == "test"].reset_index(drop=True)
DATE = "2024-01-02"
FAST = {"grid": 6, "reject_cost": 0.15}  # the default cost is chosen from the data: test_report_cost.py

CASES = {
    "evlogit": lambda: ev.evlogit("y ~ svm1 + svm2 + svm3", CAL),
    "evbinning": lambda: ev.evbinning("y ~ svm1 + svm2", CAL, bins=3, empty="prior"),
    "isotonic": lambda: ev.isotonic("y ~ svm1", CAL),
    "betacal": lambda: ev.betacal("y ~ expit(svm2)", CAL),
    "disjoint": lambda: ev.disjoint("y ~ svm1 + svm2", CAL),
}
_FITS: dict = {}
_HTML: dict = {}


def fit_of(name):
    if name not in _FITS:
        _FITS[name] = CASES[name]()
    return _FITS[name]


def html_of(name):
    if name not in _HTML:
        _HTML[name] = render_report(fit_of(name), TEST, date=DATE, **FAST)
    return _HTML[name]


def headings(html, level):
    return [re.sub(r"<[^>]+>", "", h) for h in re.findall(rf"<h{level}[^>]*>(.*?)</h{level}>", html, re.S)]


def captions(html):
    """The captions' text as read (the decision table's wraps its cost in spans the slider rewrites)."""
    return [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<caption>(.*?)</caption>", html, re.S)]


@pytest.mark.parametrize("name", list(CASES))
def test_sections_of_every_calibrator(name):
    fit = fit_of(name)
    html = html_of(name)
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    h2 = headings(html, 2)
    assert h2 == ["Overview", f"Model: {name}", "Reproducibility"]  # named once: name == method
    h3 = headings(html, 3)
    for h in ("Model summary", "Goodness of fit", "Calibration metrics", "Decisions with a reject option", "Figures"):
        assert h in h3
    has_coef = name in ("evlogit", "betacal", "disjoint")
    assert ("Coefficients" in h3) == has_coef
    caps = captions(html)
    for c in ("Scores on the new data (79 rows)", "Calibration tests of theta_hat on the new data (79 rows)",
              "Reliability table (10 equal-width bins of theta_hat) and coverage of the [Bel, Pl] band",
              "Decisions on the new data (79 rows) at reject cost R_rej = 0.15",
              "Ignorance m({0,1}) = Pl - Bel"):
        assert c in caps, c
    assert not any(c.startswith("Interval coverage") for c in caps)
    # one inline SVG per figure: every applicable plot kind (the two reject-curve panels share one)
    assert html.count('class="evstat-figure"') == len(plotting.applicable_kinds(fit))
    assert html.count("<figure") == html.count("<figcaption>") == html.count('class="evstat-figure"')
    # the model summary's own tables are shown, without its coefficient table, which the report
    # prints once (with Wald intervals too)
    summ = fit.summary()
    for t in summ.tables:
        if t.title in ("Coefficients", "Goodness of fit") or t.title.startswith("Ignorance"):
            assert f"<caption>{t.title}</caption>" not in html.replace("&#39;", "'"), t.title
        else:
            assert f"<caption>{t.title}</caption>" in html.replace("&#39;", "'"), t.title
    assert html.count("Coefficients with 95% profile-likelihood") <= 1


def test_coefficients_are_profile_and_wald_intervals():
    fit = fit_of("evlogit")
    ctx, _ = build_context(fit, TEST, None, None, DATE, 0.15, 10, 6, None, None)
    t = ctx["fits"][0].coefficients
    assert t.columns == ["term", "Estimate", "Std. error", "z value", "Pr(>|z|)", "profile lower",
                         "profile upper", "Wald lower", "Wald upper"]
    prof, wald = fit.conf_int(method="profile"), fit.conf_int(method="wald")
    for row, term in zip(t.rows, fit.params.index):
        assert row[0] == term
        assert row[5:] == [format_number(v) for v in (prof.loc[term, "lower"], prof.loc[term, "upper"],
                                                       wald.loc[term, "lower"], wald.loc[term, "upper"])]


def test_metric_tables_hold_the_metrics():
    fit = fit_of("evlogit")
    ctx, _ = build_context(fit, TEST, None, None, DATE, 0.2, 5, 6, None, None)
    sec = ctx["fits"][0]
    b = fit.predict(TEST, type="belief")
    y = TEST["y"].to_numpy()
    tables = {t.title: t for t in sec.metrics + sec.decisions}
    sp = metrics.score_predictions(y, b.theta, bel=b.bel, pl=b.pl).drop("mean_ignorance")
    assert tables["Scores on the new data (79 rows)"].rows == [[format_number(v) if i else "79" for i, v in enumerate(sp)]]
    hl = metrics.hosmer_lemeshow(y, b.theta, g=10)
    sz = metrics.spiegelhalter_z(y, b.theta)
    gof = tables["Calibration tests of theta_hat on the new data (79 rows)"].rows
    assert gof[0] == ["Hosmer-Lemeshow (g = 10)", format_number(hl.statistic), str(hl.df), format_number(hl.pvalue)]
    assert gof[1] == ["Spiegelhalter z", format_number(sz.statistic), "", format_number(sz.pvalue)]
    rt = metrics.reliability_table(y, b.theta, bins=5)
    rel = tables["Reliability table (5 equal-width bins of theta_hat) and coverage of the [Bel, Pl] band"]
    assert [r[3] for r in rel.rows] == [str(n) for n in rt["n"]]
    cov = metrics.interval_coverage(y, b.bel, b.pl, b.theta, bins=5)
    assert [r[-3:] for r in rel.rows] == [[format_number(lo), format_number(hi), "yes" if c else "no"]
                                          for lo, hi, c in zip(cov.mean_bel, cov.mean_pl, cov.covered)]
    dec = tables["Decisions on the new data (79 rows) at reject cost R_rej = 0.2"]
    assert dec.columns == ["strategy", "R_rej", "decide 0", "decide 1", "rejected", "errors", "error rate",
                           "accuracy", "reject rate"]
    for row, s in zip(dec.rows, ("pessimistic", "optimistic", "probabilistic")):
        dm = metrics.decision_metrics(y, metrics.decide_binary(b.bel, b.pl, s, 0.2, p=b.theta))
        assert row[:2] == [s, "0.2"]
        assert row[5:] == [str(int(dm["n_errors"]))] + [format_number(dm[k]) for k in ("error_rate", "accuracy", "reject_rate")]
        d = fit.decide(TEST, strategy=s, reject_cost=0.2).astype(str)
        assert row[2:5] == [str((d == "0").sum()), str((d == "1").sum()), str((d == "reject").sum())]
    # decisions without reject: both evidential strategies pick the class of highest BetP
    assert dec.rows[3][0] == "evidential, no reject (BetP > 0.5)" and dec.rows[3][4] == "0"


def test_escaping_of_html_in_column_names_and_labels():
    bad = "<script>alert(1)</script>"
    cal = CAL.rename(columns={"svm1": bad}).assign(label=lambda d: np.where(d.y == 1, "<b>R</b>", "M"))
    test = TEST.rename(columns={"svm1": bad})
    fit = ev.evlogit(f'y ~ Q("{bad}")', cal)
    html = render_report(fit, test, title=f"Report on {bad}", date=DATE, **FAST)
    assert set(re.findall(r"<script[^>]*>", html.lower())) == {'<script type="application/json">', "<script>"}
    assert "alert(1)</script>" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    fit2 = ev.evlogit("label ~ svm2", cal, positive="<b>R</b>")
    html2 = render_report(fit2, date=DATE, **FAST)
    assert "<b>R</b>" not in html2 and "&lt;b&gt;R&lt;/b&gt;" in html2
    # the class names in the slider's JSON cannot close its script element
    assert '"classes":["M","\\u003cb\\u003eR\\u003c/b\\u003e"]' in html2


def test_self_contained_and_static():
    html = html_of("evlogit")
    low = html.lower()
    for bad in ("http:", "https:", "<link", "@import", "<iframe", " src=", "javascript:", "url(http",
                "fetch(", "xmlhttprequest", "import(", "eval(", "new function"):
        assert bad not in low, bad
    # scripts: the slider's data (JSON) and one inline script, nothing loaded
    assert set(re.findall(r"<script[^>]*>", low)) == {'<script type="application/json">', "<script>"}
    assert low.count("<script>") == 1
    assert '<meta charset="utf-8">' in html and "<style>" in html
    # internal anchors of the table of contents all exist
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), "duplicate ids"
    for target in re.findall(r'href="#([^"]+)"', html):
        assert target in ids, target


def test_byte_identical_and_only_the_date_changes():
    fit = fit_of("isotonic")
    a = render_report(fit, TEST, date=DATE, **FAST)
    b = render_report(fit, TEST, date=DATE, **FAST)
    assert a == b
    c = render_report(fit, TEST, date="2030-12-31", **FAST)
    diff = [(x, y) for x, y in zip(a.splitlines(), c.splitlines()) if x != y]
    assert len(a.splitlines()) == len(c.splitlines())
    assert diff == [(f"<dt>Date</dt><dd>{DATE}</dd>", "<dt>Date</dt><dd>2030-12-31</dd>")]
    import datetime

    today = render_report(fit, TEST, **FAST)
    assert f"<dt>Date</dt><dd>{datetime.date.today().isoformat()}</dd>" in today


def test_report_file_and_fit_method(tmp_path):
    fit = fit_of("betacal")
    p1 = ev.report(fit, tmp_path / "a.html", newdata=TEST, date=DATE, **FAST)
    p2 = fit.report(tmp_path / "b.html", newdata=TEST, date=DATE, **FAST)
    assert p1 == tmp_path / "a.html" and p2 == tmp_path / "b.html"
    assert p1.read_bytes() == p2.read_bytes() == html_of("betacal").encode("utf-8")
    assert len(p1.read_bytes()) < 1_500_000


def test_the_old_argument_order_says_what_to_write(tmp_path):
    """``ev.report(fit, path)``, object first as in statsmodels and scikit-learn (issue 25 item 9);
    the old ``ev.report(path, fit)`` is a TypeError that shows the new call, and writes nothing."""
    from evstat.report import report

    fit = fit_of("isotonic")
    old = tmp_path / "old.html"
    fix = r"ev\.report takes the model first, then the path: ev\.report\(fit, '.*old\.html'\) or fit\.report"
    with pytest.raises(TypeError, match=fix):
        ev.report(old, fit, date=DATE, **FAST)
    with pytest.raises(TypeError, match=fix):
        ev.report(str(old), fits=fit)
    with pytest.raises(TypeError, match=fix):
        report(str(old), fit)
    assert not old.exists()


def test_report_takes_the_arguments_of_render_report_after_the_path():
    """The options are declared once, on ``render_report``; ``report`` shows them with ``path``
    after ``fits`` (help, the API pages) and passes them on."""
    import inspect

    from evstat.report import render_report, report

    want = list(inspect.signature(render_report).parameters)
    assert list(inspect.signature(report).parameters) == [want[0], "path", *want[1:]]
    assert inspect.signature(report).parameters["bins"].default == 10
    with pytest.raises(TypeError, match="unexpected keyword argument 'bin'"):
        report(fit_of("isotonic"), "never-written.html", bin=3)


def test_comparison_of_several_calibrators():
    fits = {"joint logit": fit_of("evlogit"), "binning": fit_of("evbinning"), "disjoint": fit_of("disjoint")}
    ctx, _ = build_context(fits, TEST, "y", "Three calibrators", DATE, 0.15, 10, 6, 7, {"Command": "x"})
    scores = ctx["comparison"][0]
    expected = ev.compare(fits, TEST, y="y")
    assert [r[0] for r in scores.rows] == list(expected.model)
    for row, (_, e) in zip(scores.rows, expected.iterrows()):
        assert row[4:] == [format_number(e[k]) for k in ("error_rate", "brier", "log_loss", "ece",
                                                          "mean_ignorance", "betp_brier")]
    assert ctx["repro"]["seed"] == "7" and ("Command", "x") in ctx["repro"]["extra"]
    iso = fit_of("isotonic")
    html = render_report([iso, iso], TEST, date=DATE, **FAST)
    assert "Model: isotonic<" in html and "Model: isotonic_2 (isotonic)" in html
    assert "(isotonic) (isotonic)" not in html and "Model: isotonic (isotonic)" not in html
    assert 'id="model-isotonic"' in html and 'id="model-isotonic_2"' in html
    html = render_report({"a b": iso, "a-b": iso}, date=DATE, **FAST)
    assert 'id="model-a-b"' in html and 'id="model-a-b-2"' in html
    assert "<h2>Comparison of calibrators</h2>" in html


def test_without_newdata_or_labels_metrics_are_in_sample():
    fit = fit_of("isotonic")
    html = render_report(fit, date=DATE, **FAST)
    assert "every metric is computed on the calibration data (in-sample)" in html
    assert "Scores on the calibration data (79 rows, in-sample)" in captions(html)
    html = render_report(fit, TEST.drop(columns=["y"]), date=DATE, **FAST)
    assert "have no labels" in html
    caps = captions(html)
    assert "Scores on the calibration data (79 rows, in-sample)" in caps
    assert "Decisions on the new data (79 rows) at reject cost R_rej = 0.15" in caps
    assert "Decisions on the calibration data (79 rows, in-sample) at reject cost R_rej = 0.15" in caps
    # labels from y=
    html = render_report(fit, TEST.drop(columns=["y"]), y=TEST["y"].to_numpy(), date=DATE, **FAST)
    assert "Scores on the new data (79 rows)" in captions(html)


def test_warnings_are_reported_and_reissued():
    from evstat.calibration.binning import EmptyCellWarning

    fit = ev.evbinning("y ~ svm1 + svm2 + svm3", CAL, bins=3)
    test = TEST.copy()
    test.loc[:2, ["svm1", "svm2", "svm3"]] = [CAL.svm1.min() - 1, CAL.svm2.max() + 1, CAL.svm3.max() + 1]
    with pytest.warns(EmptyCellWarning, match="3 of 79 rows fall in empty cells"):
        html = render_report(fit, test, date=DATE, **FAST)
    assert "<h2>Notes and warnings</h2>" in html
    assert "EmptyCellWarning: 3 of 79 rows fall in empty cells" in html
    assert "3 of 79 rows of the new data (79 rows) have no probability theta_hat" in html
    assert "Scores on the new data (79 rows)" in captions(html)


def test_bad_input(tmp_path):
    fit = fit_of("isotonic")
    with pytest.raises(TypeError, match="fits must be a fitted calibrator"):
        render_report("evlogit")
    with pytest.raises(TypeError, match=r"fits\['a'\] is a int, not a fitted evstat calibrator"):
        render_report({"a": 1})
    with pytest.raises(ValueError, match="fits is empty"):
        render_report({})
    with pytest.raises(ValueError, match=r"reject_cost must lie in \[0, 1\]"):
        render_report(fit, reject_cost=1.5)
    with pytest.raises(ValueError, match="bins must be a positive integer"):
        render_report(fit, bins=0)
    with pytest.raises(ValueError, match="grid must be at least 3"):
        render_report(fit, grid=1)
    with pytest.raises(TypeError, match="date must be a string"):
        render_report(fit, date=20240101)
    with pytest.raises(TypeError, match="newdata must be a pandas DataFrame"):
        render_report(fit, TEST.to_numpy())
    with pytest.raises(FileNotFoundError, match="folder .* does not exist"):
        ev.report(fit, tmp_path / "nope" / "r.html")
    with pytest.raises(ValueError, match="y has 2 labels but newdata has 79 rows"):
        render_report(fit, TEST, y=[0, 1])


def test_figure_svg_is_deterministic_and_inline_ready():
    from matplotlib.figure import Figure
    def make():
        fig = Figure(figsize=(3, 2))
        ax = fig.add_subplot()
        ax.plot([0, 1, 2], [0.123456, 1, 0.5], marker="o")
        ax.set_title("T <&> 1")
        return fig

    a, b = figure_svg(make(), "q1", "my <label>"), figure_svg(make(), "q1", "my <label>")
    assert a == b
    assert a.startswith('<svg role="img" aria-label="my &lt;label&gt;" class="evstat-figure"')
    assert "xmlns" not in a and "<metadata" not in a and "<!--" not in a and "<?xml" not in a
    ids = re.findall(r'\sid="([^"]+)"', a)
    assert ids and all(i.startswith("q1-") for i in ids)
    refs = re.findall(r'href="#([^"]+)"', a) + re.findall(r"url\(#([^)]+)\)", a)
    assert refs and set(refs) <= set(ids)
    assert not re.search(r"\d\.\d{3,}", a)  # coordinates rounded to 0.01
    c = figure_svg(make(), "q2")
    assert re.sub(r"q2-", "q1-", c).replace('aria-label=""', 'aria-label="my &lt;label&gt;"') == a


def test_pandas_index_and_row_order_do_not_matter():
    fit = fit_of("isotonic")
    shuffled = TEST.sample(frac=1.0, random_state=3)
    shuffled.index = [f"r{i}" for i in range(len(shuffled))]
    a, _ = build_context(fit, TEST, None, None, DATE, 0.15, 10, 6, None, None)
    b, _ = build_context(fit, shuffled, None, None, DATE, 0.15, 10, 6, None, None)
    ta = {t.title: t.rows for t in a["fits"][0].metrics}
    tb = {t.title: t.rows for t in b["fits"][0].metrics}
    assert ta == tb
    assert isinstance(pd.Index(shuffled.index), pd.Index)


def test_library_deprecations_are_reissued_not_reported(monkeypatch):
    import warnings

    from evstat.report import _build

    original = _build.metrics.ignorance_summary

    def noisy(*args, **kwargs):
        warnings.warn("old API", DeprecationWarning)
        warnings.warn("about <your> data", UserWarning)
        return original(*args, **kwargs)

    monkeypatch.setattr(_build.metrics, "ignorance_summary", noisy)
    with pytest.warns(DeprecationWarning, match="old API"), pytest.warns(UserWarning, match="about <your> data"):
        html = render_report(fit_of("isotonic"), TEST, date=DATE, **FAST)
    assert "UserWarning: about &lt;your&gt; data" in html
    assert "old API" not in html


def test_committed_example_reports():
    """reports/examples holds a report per shipped score table, small and self-contained, and
    its README gives the command that made each."""
    from pathlib import Path

    from evstat.cli import EXAMPLES

    root = Path(__file__).resolve().parents[2] / "reports" / "examples"
    if not root.is_dir():
        pytest.skip("reports/examples is not part of this installation (sdist or wheel)")
    readme = (root / "README.md").read_text(encoding="utf-8")
    for name in list(EXAMPLES) + ["sonar-evlogit"]:
        path = root / f"{name}.html"
        assert path.is_file(), path
        assert path.stat().st_size < 1_500_000
        html = path.read_text(encoding="utf-8")
        assert "http" not in html and " src=" not in html
        assert set(re.findall(r"<script[^>]*>", html)) <= {'<script type="application/json">', "<script>"}
        assert html.count("<svg") >= 6
        assert f"-o reports/examples/{name}.html`" in readme
