"""The K-class report has the two-class report's finish (issue 25, item 4): a second class-region
panel at a data-chosen cost, top-label and classwise reliability with Bel/Pl bands, per-class
lower/upper probabilities, the decision table, and several K-class models compared in one table
and one error-reject figure. Numbers in the report are checked against the models' own
predictions and decisions."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat import metrics
from evstat.report import _figures as figures
from evstat.report._cost import choose_reject_cost
from evstat.report._kclass import class_bounds_table, kclass_decisions


@pytest.fixture(scope="module")
def data():
    d = ev.datasets.load("iris_scores")
    return d[d.set == "calibration"], d[d.set == "test"]


@pytest.fixture(scope="module")
def temp(data):
    return ev.temperature("y ~ logp_setosa + logp_versicolor + logp_virginica", data[0])


@pytest.fixture(scope="module")
def three(data, temp):
    cal = data[0]
    return [ev.evmultinom("y ~ lr_versicolor + lr_virginica", cal),
            ev.dirichlet("y ~ p_setosa + p_versicolor + p_virginica", cal), temp]


def captions(html: str) -> list[str]:
    return re.findall(r"<caption>(.*?)</caption>", html)


def section(html: str, anchor: str) -> str:
    start = html.index(f'<section id="{anchor}"')
    return html[start: html.index("</section>", start)]


def rows_of(html: str, caption_start: str) -> list[list[str]]:
    """The body cells of the first table whose caption starts with ``caption_start``."""
    i = html.index(f"<caption>{caption_start}")
    body = html[i: html.index("</table>", i)]
    return [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r) for r in re.findall(r"<tr>(.*?)</tr>", body, re.S)][1:]


def header_of(html: str, caption_start: str) -> list[str]:
    i = html.index(f"<caption>{caption_start}")
    head = html[i: html.index("</tr>", i)]
    return [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", head, re.S)]


@pytest.mark.slow
def test_second_class_region_panel_when_the_cost_decides_under_a_tenth(data, tmp_path):
    cal, test = data
    temp = ev.credal_knn("y ~ lr_versicolor + lr_virginica", cal)  # Bel({k}) <= 0.93 on every test row
    b = temp.predict(test, type="belief")
    low = (1 - b["bel"]).min(axis=1)
    rc = 0.05
    assert (low <= rc).mean() < figures.REGION_MIN_DECIDED
    html = temp.report(tmp_path / "r.html", newdata=test, date="2026-01-01", grid=6, reject_cost=rc).read_text(encoding="utf-8")
    cap = re.search(r"<strong>Class regions\.</strong>(.*?)</figcaption>", html).group(1)
    second = choose_reject_cost(
        lambda c: float(np.mean(temp.decide(test, strategy="pessimistic", reject_cost=c).astype(object) == "reject")))
    assert f"R_rej = 0.05 and R_rej = {second:g}" in cap
    assert "chosen from the data" in cap and "min_k 1 - Bel({k})" in cap
    # at the second cost the pessimistic strategy rejects at most a fifth of the rows
    d = temp.decide(test, strategy="pessimistic", reject_cost=second)
    assert float(np.mean(d == "reject")) <= 0.2
    # one figure, two panels side by side: twice the width of a one-panel figure (6.4 in = 460.8 pt)
    i = html.index("<strong>Class regions.</strong>")
    fig = html[html.rindex("<figure", 0, i): i]
    assert re.search(r'<svg[^>]*width="([0-9.]+)pt"', fig).group(1) == "921.6"
    # at the report's chosen cost the figure has one panel
    html2 = temp.report(tmp_path / "s.html", newdata=test, date="2026-01-01", grid=6).read_text(encoding="utf-8")
    cap2 = re.search(r"<strong>Class regions\.</strong>(.*?)</figcaption>", html2).group(1)
    assert " and R_rej" not in cap2 and "second panel" not in cap2
    i = html2.index("<strong>Class regions.</strong>")
    assert re.search(r'<svg[^>]*width="([0-9.]+)pt"', html2[html2.rindex("<figure", 0, i): i]).group(1) == "460.8"


def test_reliability_tables_carry_the_bel_pl_bands(temp, data, tmp_path):
    test = data[1]
    html = temp.report(tmp_path / "r.html", newdata=test, date="2026-01-01", grid=6).read_text(encoding="utf-8")
    y = ev.formula.code_response(test["y"], temp.classes)
    b = temp.predict(test, type="belief")
    P, bel, pl = (b[s].to_numpy() for s in ("theta", "bel", "pl"))
    for view, start in (("top-label", "Top-label reliability table"), ("classwise", "Classwise reliability table")):
        cov = metrics.class_interval_coverage(y, bel, pl, P, view=view, bins=10)
        rows = rows_of(html, start)
        assert len(rows) == len(cov)
        j = header_of(html, start).index("mean Bel")
        got = [float(r[j]) for r in rows]
        assert got == pytest.approx(cov["mean_bel"].to_numpy(), rel=5e-4, abs=5e-5)  # 4 digits shown
        assert [r[-1] for r in rows] == ["yes" if c else "no" for c in cov["covered"]]
    assert re.search(r"covers the accuracy \(the observed frequency of the argmax class\) in \d+ of \d+ non-empty bins", html)
    # both reliability figures of the report draw the band
    for title in ("Top-label reliability diagram", "Classwise reliability diagram"):
        i = html.index(f"<strong>{title}.</strong>")
        assert "mean Bel" in html[i: html.index("</figcaption>", i)]


@pytest.mark.parametrize("view", ["top-label", "classwise"])
def test_class_reliability_diagram_draws_the_band(temp, data, view):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    test = data[1]
    y = ev.formula.code_response(test["y"], temp.classes)
    b = temp.predict(test, type="belief")
    cov = metrics.class_interval_coverage(y, b["bel"].to_numpy(), b["pl"].to_numpy(), b["theta"].to_numpy(),
                                          view=view, bins=10)
    ax = ev.plotting.class_reliability_diagram(temp, test, ax=Figure().subplots(), view=view)
    assert "mean [Bel, Pl] of the bin" in [t.get_text() for t in ax.get_legend().get_texts()]
    segs = np.concatenate([c.get_segments() for c in ax.collections 
                           if type(c).__name__ == "LineCollection" and c.get_linewidth()[0] >= 4])
    # one vertical segment per bin from mean Bel to mean Pl
    lows = sorted(round(float(min(sg[:, 1])), 9) for sg in segs)
    assert lows == sorted(round(float(v), 9) for v in cov["mean_bel"])
    plain = ev.plotting.class_reliability_diagram(temp, test, ax=Figure().subplots(), view=view, band=False)
    assert "mean [Bel, Pl] of the bin" not in [t.get_text() for t in plain.get_legend().get_texts()]


def test_per_class_lower_and_upper_probabilities(temp, data):
    test = data[1]
    y = ev.formula.code_response(test["y"], temp.classes)
    tab = class_bounds_table(temp, test, y, "new data")
    b = temp.predict(test, type="belief")
    assert [r[0] for r in tab.rows] == [str(c) for c in temp.classes]
    cols = tab.columns
    for j, c in enumerate(temp.classes):
        row = dict(zip(cols, tab.rows[j]))
        assert float(row["mean Bel"]) == pytest.approx(b[("bel", c)].mean(), rel=5e-4)
        assert float(row["mean Pl"]) == pytest.approx(b[("pl", c)].mean(), rel=5e-4)
        assert float(row["observed frequency"]) == pytest.approx(np.mean(y == j), rel=5e-4)
        cov = b[("bel", c)].mean() <= np.mean(y == j) <= b[("pl", c)].mean()
        assert row["covered"] == ("yes" if cov else "no")


def test_decision_table_counts_are_fit_decide(temp, data):
    test = data[1]
    y = ev.formula.code_response(test["y"], temp.classes)
    tab = kclass_decisions(temp, test, y, "new data", [0.07, 0.15])
    assert tab.columns[:2] == ["strategy", "R_rej"] and "reject rate" in tab.columns and "errors" in tab.columns
    assert len(tab.rows) == 2 * 3 + 2
    for row in tab.rows:
        r = dict(zip(tab.columns, row))
        s = r["strategy"].split(",")[0]
        s = "pessimistic" if s == "evidential" else s
        rc = float(r["R_rej"]) if r["R_rej"] else None
        d = temp.decide(test, strategy=s, reject_cost=rc).astype(object).to_numpy()
        for c in temp.classes:
            assert int(r[f"decide {c}"]) == int(np.sum(d == c))
        assert int(r["rejected"]) == int(np.sum(d == "reject"))
        truth = np.asarray(temp.classes, dtype=object)[y]
        assert int(r["errors"]) == int(np.sum((d != "reject") & (d != truth)))


@pytest.mark.slow
def test_chosen_cost_equals_the_slow_path(temp, data, tmp_path):
    """The report's K-class cost from one belief prediction equals the bisection over fit.decide."""
    test = data[1]

    def share(cost):
        return float(np.mean(temp.decide(test, strategy="pessimistic", reject_cost=cost).astype(object) == "reject"))

    rc = choose_reject_cost(share)
    html = temp.report(tmp_path / "r.html", newdata=test, date="2026-01-01", grid=6).read_text(encoding="utf-8")
    assert f"Reject cost R_rej = {rc:g} (chosen from the data" in html


@pytest.mark.slow
def test_three_k_class_methods_in_one_report(three, data, tmp_path):
    """evmultinom, dirichlet and temperature fitted on the same rows: one comparison table of the
    measures, one of the decisions at the report's cost, one error-reject figure; a list of fits
    is named by method."""
    cal, test = data
    html = ev.report(fits=three, path=tmp_path / "r.html", newdata=test.iloc[::3], date="2026-01-01",
                     grid=5).read_text(encoding="utf-8")
    cmp = section(html, "comparison")
    caps = captions(cmp)
    assert caps[0] == "Measures of the class probabilities of the models"
    assert caps[1].startswith("Decisions at reject cost R_rej = ")
    assert cmp.count("<svg") == 1 and "Error-reject curves of all models" in cmp
    models = [r[0] for r in rows_of(cmp, "Measures of the class probabilities of the models")]
    assert models == ["evmultinom", "dirichlet", "temperature"]
    for name in models:
        assert f"Model: {name}" in html
    # the comparison's decisions are those of fit.decide at the report's cost
    rc = float(re.search(r"Decisions at reject cost R_rej = ([0-9.]+)", cmp).group(1))
    drow = rows_of(cmp, "Decisions at reject cost")[6]  # temperature, pessimistic (a line per model and strategy)
    assert drow[:2] == ["temperature", "pessimistic"]
    new = test.iloc[::3]
    d = three[2].decide(new, strategy="pessimistic", reject_cost=rc).astype(object).to_numpy()
    assert float(drow[4]) == pytest.approx(np.mean(d == "reject"), abs=1e-6)


def test_plotting_probability_examples(doctests):
    """class_belief and the band of class_reliability_diagram (the report's K-class figures)."""
    doctests("evstat.plotting.probability")
