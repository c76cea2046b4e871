"""The Gebel (2009) reproduction: thesis tables, claims rules, a small end-to-end run, the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evstat.experiments import gebel2009 as g
from evstat.experiments.cli import main


def test_thesis_tables_entered_completely() -> None:
    t = pd.read_csv(g.THESIS_TABLES)
    sizes = t.groupby("table").size().to_dict()
    assert sizes == {"Tab. 6.3": 54, "Tab. 6.4": 54, "Tab. 6.5": 54, "Tab. 6.6": 54,
                     "Tab. 6.10": 54, "Tab. 6.11": 54, "Tab. 6.12": 72, "Tab. 6.13": 72}
    assert t[["CR", "Cal"]].apply(lambda c: c.between(0, 1)).all().all()
    # spot checks against the reading notes (Tab. 6.3, Sonar and Heart)
    sonar = t[(t["table"] == "Tab. 6.3") & (t["dataset"] == "sonar")].set_index("method")
    assert sonar.loc["norm", ["CR", "Cal"]].tolist() == [0.783, 0.452]
    assert sonar.loc["av", ["CR", "Cal"]].tolist() == [0.788, 0.633]
    heart = t[(t["table"] == "Tab. 6.3") & (t["dataset"] == "heart")].set_index("method")
    assert heart.loc["lr", ["CR", "Cal"]].tolist() == [0.814, 0.733]


def test_claim_rules_hold_on_the_thesis_numbers() -> None:
    """Each rule states a conclusion of the thesis; on the thesis's own tables it must hold."""
    cl = g.claims(pd.read_csv(g.THESIS_TABLES))
    assert cl["holds"].tolist() == [True] * len(g.CLAIMS), cl[["claim", "detail"]].to_string()


def test_claim_rule_detects_the_opposite() -> None:
    t = pd.read_csv(g.THESIS_TABLES)
    worse = t.copy()
    sel = (worse["part"] == "K-class") & (worse["classifier"] == "svm") & (worse["reduction"] == "ovr")
    worse.loc[sel & (worse["method"] == "diri-gmean"), "Cal"] = 0.1
    cl = g.claims(worse).set_index("claim")
    assert not cl.loc["svm_ovr_gmean_best", "holds"]


@pytest.mark.slow
def test_small_run_end_to_end(tmp_path) -> None:
    res = g.run_gebel2009(tmp_path, folds=2, seed=3, jobs=1, parts=("K-class",), datasets=["iris"], quiet=True,
                          classifiers=["svm"])
    table = pd.read_csv(tmp_path / "table.csv")
    assert set(table["method"]) == {"norm", "av", "lr", "diri-gmean", "diri-gtrim", "diri-prod", "temperature",
                                     "dirichlet-kull"}
    ok = table.dropna(subset=["CR"])
    assert ok[["CR", "one_minus_rmse", "WCR", "Cal"]].apply(lambda c: c.between(0, 1)).all().all()
    np.testing.assert_allclose(ok["Cal"], np.sqrt(ok["one_minus_rmse"] * ok["WCR"]), atol=1e-4)
    # one-vs-rest with 3 classes: nothing to trim, g-trim = g-mean (a sanity check)
    ovr = ok[ok["reduction"] == "ovr"].set_index(["classifier", "method"])
    assert ovr.loc[("svm", "diri-gmean"), "CR"] == ovr.loc[("svm", "diri-gtrim"), "CR"]
    comp = pd.read_csv(tmp_path / "comparison.csv")
    iris = comp[(comp["dataset"] == "iris") & comp["CR_thesis"].notna() & comp["CR_ours"].notna()]
    assert len(iris) == 12  # 6 of the thesis's methods x 2 reductions
    cl = pd.read_csv(tmp_path / "claims.csv")
    assert {"holds_thesis", "holds_ours"} <= set(cl.columns)
    study = json.loads((tmp_path / "study.json").read_text())
    assert study["folds"] == 2 and study["units_done"] == res.units == 4
    # same seed, same numbers (one unit again)
    res_rows = pd.read_csv(tmp_path / "results.csv")
    again = pd.DataFrame(g._unit("K-class", "iris", "svm", "pairs", 1, 2, 3)).drop(columns="_pred")
    mine = res_rows[(res_rows["reduction"] == "pairs") & (res_rows["fold"] == 1)].reset_index(drop=True)
    np.testing.assert_allclose(again["Cal"].to_numpy(), mine["Cal"].to_numpy(), atol=1e-6)


def test_cli_bad_input(capsys) -> None:
    assert main(["gebel2009", "--datasets", "sonar", "--parts", "K-class", "--folds", "1", "--out", "x"]) == 2
    assert main(["gebel2009", "--datasets", "yeast", "--out", "x"]) == 2
    err = capsys.readouterr().err
    assert "gebel2009 has no data set ['yeast']" in err


def test_load_dataset() -> None:
    X, y, classes = g.load_dataset("breast-cancer")
    assert X.shape == (683, 9) and classes == ["benign", "malignant"]
    with pytest.raises(ValueError, match="unknown data set"):
        g.load_dataset("mnist")
