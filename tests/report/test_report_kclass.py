"""HTML reports of K-class fits: measures, reliability, decisions, figures (eknn, evnn, credal_knn
on iris)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat import plotting
from evstat.report._kclass import BOOT, BOOT_SEED, kclass_measures


@pytest.fixture(scope="module")
def iris() -> pd.DataFrame:
    d = ev.datasets.load("iris")
    return d.rename(columns={"Species": "y", "petal length (cm)": "pl", "petal width (cm)": "pw"})


@pytest.fixture(scope="module")
def fit3(iris):
    return ev.eknn("y ~ pl + pw", iris.iloc[::2], k=7)


def captions(html: str) -> list[str]:
    return re.findall(r"<caption>(.*?)</caption>", html)


def test_three_class_report_on_new_data(fit3, iris, tmp_path):
    new = iris.iloc[1::2]
    html = fit3.report(tmp_path / "r.html", newdata=new, date="2026-01-01", grid=10).read_text(encoding="utf-8")
    caps = captions(html)
    assert "Measures of the class probabilities on the new data (75 rows)" in caps
    assert any(c.startswith("Top-label reliability table") for c in caps)
    dec = [c for c in caps if c.startswith("Decisions on the new data (75 rows) at R_rej = ")]
    assert len(dec) == 1 and "chosen from the data" in dec[0] and "R_rej = 0.15" in dec[0]
    assert html.count('class="evstat-figure"') == len(plotting.applicable_kinds(fit3)) == 5
    assert "not drawn" not in html and html.count('class="evstat-kexplorer"') == 1  # the K-class panel
    for title in ("Ternary probability plot", "Top-label reliability diagram", "Classwise reliability diagram"):
        assert title in html
    # the numbers in the report are those of evstat.metrics
    m = kclass_measures(fit3, new, ev.formula.code_response(new["y"], fit3.classes), 10)
    P = fit3.predict(new).to_numpy()
    y = ev.formula.code_response(new["y"], fit3.classes)
    assert m["CR"] == ev.metrics.correctness_rate(y, P)
    assert m["Cal"] == ev.metrics.cal(y, P)
    ci = ev.metrics.top_label_ece(y, P, bins=10, n_boot=BOOT, seed=BOOT_SEED)
    assert (m["top-label ECE"], m["top-label ECE 95% lower"]) == (ci.estimate, ci.lower)
    # byte-identical apart from nothing (the date is fixed)
    again = fit3.report(tmp_path / "s.html", newdata=new, date="2026-01-01", grid=10).read_text(encoding="utf-8")
    assert again == html


@pytest.mark.slow
def test_unlabelled_new_data_and_in_sample(fit3, iris, tmp_path):
    nolab = iris.iloc[1::2].drop(columns="y")
    html = fit3.report(tmp_path / "r.html", newdata=nolab, date="2026-01-01", grid=8).read_text(encoding="utf-8")
    caps = captions(html)
    assert "Measures of the class probabilities on the calibration data (75 rows, in-sample)" in caps
    assert "Decisions on the new data (75 rows) at reject cost R_rej = 0.15" in captions(
        fit3.report(tmp_path / "r2.html", newdata=nolab, date="2026-01-01", grid=8, reject_cost=0.15).read_text(encoding="utf-8"))
    html2 = ev.report(fit3, tmp_path / "q.html", date="2026-01-01", grid=8).read_text(encoding="utf-8")
    assert "in-sample" in html2 and "setosa: 25" in html2


@pytest.mark.slow
def test_several_k_class_models_compared(iris, tmp_path):
    train, test = iris.iloc[::2], iris.iloc[1::2]
    fits = {
        "eknn": ev.eknn("y ~ pl + pw", train, k=7),
        "evnn": ev.evnn("y ~ pl + pw", train, seed=1),
        "credal": ev.credal_knn("y ~ pl + pw", train),
    }
    html = ev.report(fits, tmp_path / "r.html", newdata=test, date="2026-01-01", grid=8).read_text(encoding="utf-8")
    assert "Measures of the class probabilities of the models" in captions(html)
    # each model's figures and the comparison's one error-reject figure
    assert html.count('class="evstat-figure"') == sum(len(plotting.applicable_kinds(f)) for f in fits.values()) + 1


@pytest.mark.slow
def test_mixed_two_and_three_class_models(iris, tmp_path):
    d = iris.assign(two=np.where(iris["y"] == "setosa", "setosa", "other"))
    fits = {"k3": ev.eknn("y ~ pl + pw", d, k=5), "k2": ev.evlogit("two ~ pl", d.iloc[50:].assign(two=lambda x: np.where(x.pw > 1.7, "a", "b")))}
    html = ev.report(fits, tmp_path / "r.html", date="2026-01-01", grid=8).read_text(encoding="utf-8")
    assert "Measures of the class probabilities of the models" in captions(html)
