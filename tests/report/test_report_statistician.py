"""The report read as a statistician (issue 9, section 5): one Seed row, the coefficient table
once, both log-likelihoods labelled so that AIC = -2 LL + 2k can be checked, decision regions
that are not all grey (a second, data-chosen reject cost, and a caption saying why)."""

from __future__ import annotations

import importlib
import re

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.report import render_report

figures = importlib.import_module("evstat.report._figures")

@pytest.fixture(scope="module")
def html(fit, sonar):
    return render_report(fit, sonar.test, date="2024-01-02", grid=5, reject_cost=0.15,
                         provenance={"Seed": "data made with seed 2019"})


def test_one_seed_row(html):
    assert len(re.findall(r"<dt>Seed</dt>", html)) == 1
    assert "<dt>Seed</dt><dd>data made with seed 2019</dd>" in html


def test_coefficient_table_printed_once(html):
    assert html.count("Coefficients with 95% profile-likelihood and Wald intervals") == 1
    assert html.count(">Coefficients<") <= 1  # the report's h3 only, not the summary's table too


def test_both_log_likelihoods_labelled_and_aic_checkable(fit, sonar):
    text = fit.summary().as_text()
    assert "Log-likelihood (Platt targets)" in text and "Log-likelihood (0/1 labels)" in text
    assert fit.aic == pytest.approx(-2 * fit.loglike_labels + 2 * len(fit.params), rel=1e-14)
    assert fit.loglike_labels < fit.loglike or fit.loglike_labels != fit.loglike
    g = fit.glance().iloc[0]
    assert g["aic"] == pytest.approx(-2 * g["loglik_labels"] + 2 * 4, rel=1e-14)
    binary = ev.evlogit("y ~ svm1", sonar.cal, targets="binary")
    t = binary.summary().as_text()
    assert "Log-likelihood (0/1 labels)" in t and "Platt" not in t.split("Goodness of fit")[1]
    assert binary.loglike_labels == pytest.approx(binary.loglike, rel=1e-14)


def test_decision_regions_get_a_data_chosen_cost_and_say_why(fit, html, sonar):
    pred = fit.predict(sonar.test, type="belief")
    costs, why = figures.region_costs(pred, 0.15, "new data")
    low = np.minimum(pred["pl"], 1 - pred["bel"])
    assert (low <= 0.15).mean() < figures.REGION_MIN_DECIDED  # Sonar: pessimistic rejects ~all
    assert costs[0] == 0.15 and costs[1] == pytest.approx(np.ceil(np.quantile(low, 0.25) * 100) / 100)
    # at the second cost the pessimistic strategy classifies about a fourth of the rows
    assert 0.2 <= (low <= costs[1]).mean() <= 0.5
    assert "pessimistic strategy rejects" in why and "chosen from the data" in why
    assert f"R_rej = 0.15 and R_rej = {costs[1]:g}" in html
    assert "is all grey" in html or "mostly grey" in html


def test_decision_regions_single_panel_when_the_cost_shows_regions():
    pred = pd.DataFrame({"theta": [0.1, 0.9], "bel": [0.05, 0.9], "pl": [0.1, 0.95]})
    assert figures.region_costs(pred, 0.15, "rows") == ([0.15], "")
