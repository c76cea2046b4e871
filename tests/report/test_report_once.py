"""The report says each thing once (issue 27, item 3): one goodness-of-fit table with the glance
facts folded in, one reliability table with the band's coverage, one ignorance summary, the
model named once, every column header explained, the histogram in the diagram's bins, and a
coverage line that says what to expect."""

from __future__ import annotations

import html as htmllib
import itertools
import re

import numpy as np
import pytest

import evstat as ev
from evstat import metrics
from evstat.report import render_report
from evstat.report import _coverage

DATE = "2024-01-02"


@pytest.fixture(scope="module")
def html(fit, sonar):
    return render_report(fit, sonar.test, date=DATE, grid=5)


def tables(html):
    """[(caption, headers, rows of cell texts)] of every table of the page."""
    out = []
    for t in re.findall(r"<table>(.*?)</table>", html, re.S):
        cap = re.search(r"<caption>(.*?)</caption>", t, re.S)
        heads = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", t, re.S)]
        rows = [[htmllib.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)]
                for r in re.findall(r"<tr>(.*?)</tr>", t, re.S)]
        out.append((htmllib.unescape(cap.group(1)) if cap else "", heads, [r for r in rows if r]))
    return out


def cells(html):
    return [c for _, _, rows in tables(html) for r in rows for c in r]


def test_fit_statistics_once_with_the_glance_facts_folded_in(fit, html):
    c = cells(html)
    for label in ("Log-likelihood (Platt targets)", "Log-likelihood (0/1 labels)", "Null deviance",
                  "Residual deviance", "AIC", "BIC", "Classes separated"):
        assert c.count(label) == 1, label
    # the values too: AIC and the deviance are printed once, in the one table
    fmt = ev.summary.format_number
    assert c.count(fmt(fit.aic, 6)) == 1 and c.count(fmt(fit.deviance, 6)) == 1
    assert "glance" not in " ".join(cap for cap, _, _ in tables(html)).lower()
    gof = [t for t in tables(html) if t[0].startswith("Goodness of fit")]
    assert len(gof) == 1 and gof[0][1] == ["statistic", "value", "df"]
    assert [r[0] for r in gof[0][2]][-2:] == ["BIC", "Classes separated"]
    assert gof[0][2][-2][1] == fmt(fit.bic, 6)
    assert "<h3" in html and html.count(">Goodness of fit<") == 1


def test_one_reliability_table_with_the_coverage_column(html):
    rel = [t for t in tables(html) if "eliability" in t[0] or "overage" in t[0]]
    assert len(rel) == 1
    caption, heads, rows = rel[0]
    assert heads == ["bin", "from", "to", "n", "mean theta_hat", "observed frequency", "Wilson 95% lower",
                     "Wilson 95% upper", "mean Bel", "mean Pl", "covered"]
    assert len(rows) == 10 and {r[-1] for r in rows} <= {"yes", "no"}


def test_one_ignorance_summary(html):
    ign = [t for t in tables(html) if "gnorance" in t[0]]
    assert len(ign) == 1
    _, heads, rows = ign[0]
    assert heads[0] == "rows" and [r[0] for r in rows] == ["calibration rows", "new data (79 rows)"]
    for _, heads, _ in tables(html):  # no "mean ignorance" column repeats it
        assert "mean ignorance" not in heads


def test_model_named_once(html):
    assert "Model: evlogit (evlogit)" not in html
    assert "(evlogit)" not in re.sub(r"<svg.*?</svg>", "", html, flags=re.S)
    assert re.findall(r"<h2>(Model:[^<]*)</h2>", html) == ["Model: evlogit"]
    assert "<p class=\"lead\">Evidential logistic calibration; metrics on the new data (79 rows).</p>" in html


@pytest.mark.parametrize("which", ["evlogit", "several", "evbinning", "isotonic"])
def test_every_column_header_is_explained(fit, html, which, sonar):
    if which == "evlogit":
        page = html
    elif which == "several":
        page = render_report({"joint": fit, "iso": ev.isotonic("y ~ svm1", sonar.cal)}, sonar.test, date=DATE, grid=5)
    elif which == "evbinning":
        page = render_report(ev.evbinning("y ~ svm1 + svm2", sonar.cal, bins=3, empty="prior"), sonar.test, date=DATE, grid=5)
    else:
        page = render_report(ev.isotonic("y ~ svm1", sonar.cal), date=DATE, grid=5)
    heads = re.findall(r'<th[^>]*scope="col"[^>]*>(.*?)</th>', page, re.S)
    assert len(heads) > 30
    for h in heads:
        if not h:
            continue  # the empty header over a summary table's row labels
        m = re.fullmatch(r'<abbr title="([^"]+)">(.+)</abbr>', h)
        assert m, f"header {h!r} has no explanation"
        assert len(m.group(1)) > 5 and m.group(1).lower() != m.group(2).lower()
    assert 'title="Number of score columns (classifiers) the model combines">J</abbr>' in page


def test_k_class_report_headers_explained_and_fit_facts_once(tmp_path):
    iris = ev.datasets.load("iris").rename(columns={"Species": "y", "petal length (cm)": "pl", "petal width (cm)": "pw"})
    k = ev.evmultinom("y ~ pl + pw", iris.iloc[::2])
    page = render_report(k, iris.iloc[1::2], date=DATE, grid=5)
    for h in re.findall(r'<th[^>]*scope="col"[^>]*>(.*?)</th>', page, re.S):
        assert not h or h.startswith("<abbr title="), h
    c = cells(page)
    assert c.count("AIC") == 1 and c.count("BIC") == 1 and c.count("Residual deviance") == 1
    assert "Model: evmultinom (evmultinom)" not in page
    # one ignorance table; the per-class bounds table names its column "the ignorance per class"
    # (issue 36 item 5), not a second table of it
    assert sum(cap.startswith("Ignorance") for cap, _, _ in tables(page)) == 1
    assert sum("gnorance" in cap and not cap.endswith("the ignorance per class") for cap, _, _ in tables(page)) == 1


def test_histogram_uses_the_diagrams_bins(html):
    assert "the grey histogram (right axis) counts the rows in the same 10 bins" in html


def test_coverage_line_says_what_to_expect(fit, html, sonar):
    b = fit.predict(sonar.test, type="belief")
    ic = metrics.interval_coverage(sonar.test["y"], b.bel, b.pl, b.theta, bins=10)
    m = re.search(r"covers the observed frequency in (\d+) of (\d+) non-empty bins\. If every row&#39;s "
                  r"theta_hat were its true probability, we would expect about ([\d.]+) of (\d+)", html)
    assert m, "coverage line missing"
    assert int(m.group(1)) == int(ic.covered.sum()) and int(m.group(2)) == int(m.group(4)) == len(ic)
    # the expectation checked by simulation: draw the labels from theta_hat, count covered bins
    rng = np.random.default_rng(27)
    th = b.theta.to_numpy()
    ids = np.searchsorted(np.linspace(0, 1, 11)[1:-1], th, side="left")
    draws = rng.random((20000, th.size)) < th
    hits = np.zeros(20000)
    for k, (lo, hi) in zip(np.unique(ids), zip(ic.mean_bel, ic.mean_pl)):
        freq = draws[:, ids == k].mean(axis=1)
        hits += (lo <= freq) & (freq <= hi)
    assert float(m.group(3)) == pytest.approx(hits.mean(), abs=0.06)
    assert "is not a confidence interval for a bin" in html


def test_poisson_binomial_against_binomial_and_enumeration():
    from scipy import stats

    np.testing.assert_allclose(_coverage.poisson_binomial_pmf(np.full(12, 0.3)), stats.binom.pmf(np.arange(13), 12, 0.3),
                               rtol=1e-12, atol=1e-15)
    p = np.array([0.1, 0.5, 0.9, 0.33, 0.7])
    brute = np.zeros(6)
    for outcome in itertools.product([0, 1], repeat=5):
        o = np.array(outcome)
        brute[o.sum()] += np.prod(np.where(o == 1, p, 1 - p))
    np.testing.assert_allclose(_coverage.poisson_binomial_pmf(p), brute, rtol=1e-12)


def test_normal_approximation_of_large_bins_is_close(monkeypatch):
    rng = np.random.default_rng(1)
    th = rng.uniform(0.3, 0.5, 3000)
    args = (th, np.array([0.0, 1.0]), np.array([0.39]), np.array([0.41]))
    exact = _coverage.expected_covered(*args)
    monkeypatch.setattr(_coverage, "EXACT_ROWS", 100)
    approx = _coverage.expected_covered(*args)
    assert 0.3 < exact < 0.95 and approx == pytest.approx(exact, abs=0.01)
    with pytest.raises(ValueError, match="1 non-empty bins but 2 band values"):
        _coverage.expected_covered(th, np.array([0.0, 1.0]), np.array([0.1, 0.2]), np.array([0.3, 0.4]))
