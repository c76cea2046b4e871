"""The committed full run in reports/minary2019: complete, self-contained, and its claims and
summary recompute from its CSV files.

The committed run predates issue 11 (six data sets with WDBC for Australian, ties to class 0,
default SVMs, fewer claims): its data sets are those of its CSV files, and every claim it lists
must recompute with the same verdict (the current code tests more claims)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evstat.experiments.claims import claims_frame, claims_table
from evstat.experiments.minary2019 import DATASETS, load_results
from evstat.experiments.partition import TABLE2
from evstat.experiments.report import error_summary

ROOT = Path(__file__).resolve().parents[2] / "reports" / "minary2019"

pytestmark = pytest.mark.skipif(not ROOT.is_dir(), reason="reports/minary2019 is not part of this installation (sdist or wheel)")


@pytest.fixture(scope="module")
def results():
    return load_results(ROOT)


def test_full_run_is_complete(results) -> None:
    er = results.error_rates
    assert results.rounds == 100 and set(results.datasets) <= set(DATASETS) and len(results.datasets) >= 6
    expected = 100 * sum(len(TABLE2[d].train3) for d in results.datasets) * len(results.methods)
    assert len(er) == expected
    assert not er.duplicated(["dataset", "round", "train3", "method"]).any()
    assert set(results.methods) == {"joint_logistic", "joint_logistic_prob", "joint_binning", "joint_binning_prob",
                                    "disjoint_logistic", "disjoint_binning", "gbt", "eknn"}
    assert len(results.reject_015) == 100 * 2 * 3
    assert results.reject_curves.groupby("dataset")["round"].nunique().to_dict() == {d: 100 for d in results.datasets}
    settings = json.loads((ROOT / "study.json").read_text(encoding="utf-8"))
    assert settings["seed"] == 2019 and settings["runs"]


def test_summary_and_claims_recompute_from_the_csv_files(results) -> None:
    summary = pd.read_csv(ROOT / "summary_error_rates.csv")
    again = error_summary(results.error_rates)
    np.testing.assert_allclose(summary["mean"], again["mean"], rtol=1e-5)
    np.testing.assert_allclose(summary["se"], again["se"], rtol=1e-5)
    claims = pd.read_csv(ROOT / "claims.csv")
    fresh = claims_frame(claims_table(results)).set_index("comparison").loc[claims["comparison"]]
    assert claims["verdict"].tolist() == fresh["verdict"].tolist()
    np.testing.assert_allclose(claims["pooled_mean"], fresh["pooled_mean"], rtol=1e-5, atol=1e-12)


def test_report_and_readme(results) -> None:
    html = (ROOT / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html and not re.search(r"https?://", html)
    assert "evstat reproduce minary2019 --rounds 100" in html
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`evstat reproduce minary2019 --rounds 100 --jobs 2 --out reports/minary2019`" in readme
    assert "nproc" in readme and "Runtime" in readme
    # every verdict of claims.csv is quoted in the README
    claims = pd.read_csv(ROOT / "claims.csv")
    for comp, verdict in zip(claims["comparison"], claims["verdict"]):
        assert verdict in readme
