"""The Gebel (2009) reproduction: thesis tables, claims rules, a small end-to-end run, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

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
    assert ok[["CR", "one_minus_rmse", "WCR", "Cal", "Cal_root"]].apply(lambda c: c.between(0, 1)).all().all()
    # Cal as the thesis's tables report it (the product), Cal_root as eq. 2.6
    np.testing.assert_allclose(ok["Cal"], ok["one_minus_rmse"] * ok["WCR"], atol=1e-4)
    np.testing.assert_allclose(ok["Cal_root"], np.sqrt(ok["one_minus_rmse"] * ok["WCR"]), atol=1e-4)
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


# ------------------------------------------------------------------ the committed runs
REPORTS = Path(__file__).resolve().parents[2] / "reports" / "gebel2009"
RUNS = [p for p in ("two-class", "k-class") if (REPORTS / p / "study.json").is_file()]
KEYS = ["part", "dataset", "classifier", "reduction", "method"]


@pytest.mark.skipif(not RUNS, reason="reports/gebel2009 is not part of this installation (sdist or wheel)")
@pytest.mark.parametrize("run", RUNS)
def test_committed_run_is_complete_and_its_tables_come_from_its_folds(run) -> None:
    """Every data set the run records is there for every classifier, reduction, method and fold;
    table.csv's per-fold means are results.csv's, Cal is (1 - RMSE) WCR as in the thesis's tables
    and Cal_root is eq. 2.6's sqrt((1 - RMSE) WCR), comparison.csv is
    table.csv beside the thesis, and claims.csv is recomputed from table.csv (nothing edited)."""
    folder = REPORTS / run
    study = json.loads((folder / "study.json").read_text())
    res = pd.read_csv(folder / "results.csv")
    table = pd.read_csv(folder / "table.csv")
    part = "two-class" if run == "two-class" else "K-class"
    assert set(res["part"]) == {part} and study["parts"] == [part]
    done = [d.split(":", 1)[1] for d in study["datasets_done"]]
    assert sorted(set(res["dataset"])) == sorted(done) == sorted(set(table["dataset"]))
    units = res[["dataset", "classifier", "reduction", "fold"]].drop_duplicates()
    n_red = len(g.REDUCTIONS[part])
    assert len(units) == study["units_done"] == len(done) * len(g.CLASSIFIERS[part]) * n_red * study["folds"]
    methods = {"two-class": {"svm": 6, "ann": 6, "nb": 6, "tree": 6}, "K-class": {"svm": 8, "ann": 10}}[part]
    cells = table.groupby("classifier").size().to_dict()
    assert cells == {k: v * len(done) * n_red for k, v in methods.items()}
    assert (table["folds"] == study["folds"]).all()
    # per-fold means and failures from results.csv
    res["ok"] = res["error"].isna()
    agg = res.groupby(KEYS).agg(failed=("ok", lambda s: int((~s).sum())), cr=("CR", "mean"), cal=("Cal", "mean"))
    t = table.set_index(KEYS)
    assert (t["folds_failed"] == agg.loc[t.index, "failed"]).all()
    np.testing.assert_allclose(t["CR_fold_mean"], agg.loc[t.index, "cr"], atol=1e-4)
    np.testing.assert_allclose(t["Cal_fold_mean"], agg.loc[t.index, "cal"], atol=1e-4)
    # a pooled value exactly when no fold failed; Gebel's Cal from its parts
    assert (t["CR"].isna() == (t["folds_failed"] > 0)).all()
    ok = t.dropna(subset=["CR"])
    np.testing.assert_allclose(ok["Cal"], ok["one_minus_rmse"] * ok["WCR"], atol=2e-4)
    np.testing.assert_allclose(ok["Cal_root"], np.sqrt(ok["one_minus_rmse"] * ok["WCR"]), atol=2e-4)
    fold_ok = res[res["ok"]]
    np.testing.assert_allclose(fold_ok["Cal"], fold_ok["one_minus_rmse"] * fold_ok["WCR"], rtol=2e-5, atol=2e-6)
    assert ok[["CR", "one_minus_rmse", "WCR", "Cal", "Cal_root"]].apply(lambda c: c.between(0, 1)).all().all()
    # comparison and claims recomputed from table.csv
    comp = pd.read_csv(folder / "comparison.csv")
    again = g.comparison(table)
    assert len(comp) == len(again)
    np.testing.assert_allclose(comp["Cal_ours"].to_numpy(float), again["Cal_ours"].to_numpy(float), atol=1e-4)
    np.testing.assert_allclose(comp["CR_thesis"].to_numpy(float), again["CR_thesis"].to_numpy(float))
    assert comp["CR_ours"].notna().sum() == t["CR"].notna().sum()
    assert comp.loc[comp["CR_ours"].notna() & comp["CR_thesis"].isna(), "method"].isin(
        ["temperature", "dirichlet-kull"]).all()  # our additions; every other cell has the thesis's beside it
    cl = pd.read_csv(folder / "claims.csv")
    thesis = pd.read_csv(g.THESIS_TABLES)
    mine = g.claims(table)
    assert cl["holds_ours"].astype(str).tolist() == mine["holds"].astype(str).tolist()
    assert cl["detail_ours"].fillna("").tolist() == mine["detail"].fillna("").tolist()
    assert cl["holds_thesis"].astype(str).tolist() == g.claims(thesis[thesis["part"] == part])["holds"].astype(str).tolist()
    # the README shows exactly these tables and the command
    readme = (REPORTS / "README.md").read_text()
    assert g.markdown_tables(folder) in readme
    later = [study[k]["command"] for k in ("recomputed", "rerun_diri_direct") if k in study]
    for cmd in study.get("commands", [study["command"]]) + later:
        assert cmd in readme
    if "rerun_diri_direct" in study:  # after the fix of the Beta moments no K-class fit fails
        assert (t["folds_failed"] == 0).all() and res["ok"].all()


@pytest.mark.skipif("two-class" not in RUNS, reason="reports/gebel2009/two-class is not part of this installation")
def test_committed_two_class_verdicts() -> None:
    """The two-class conclusions, recomputed here from the committed table (the rules of
    :func:`claims`, written out): the verdicts the README states."""
    t = pd.read_csv(REPORTS / "two-class" / "table.csv")
    cal2 = ["av", "bay-alap", "ir", "lr", "plr"]
    x = t[t["method"].isin(cal2)].dropna(subset=["Cal"]).copy()
    x["rank"] = x.groupby(["dataset", "classifier"])["Cal"].rank(ascending=False)
    mean_rank = x.groupby("method")["rank"].mean().sort_values()
    base = t[t["method"].isin(["norm", "own"])].set_index(["dataset", "classifier"])["CR"]
    sd = {}
    for m in cal2:
        cr = t[t["method"] == m].set_index(["dataset", "classifier"])["CR"]
        sd[m] = (cr - base.reindex(cr.index)).dropna().std(ddof=1)
    # AV best by mean rank of Cal: not supported (isotonic first, AV last)
    assert mean_rank.index[0] != "av" and mean_rank.index[0] == "ir"
    assert mean_rank.index[1] != "lr"
    # LR, then AV, change CR least (AV first until Ionosphere got the thesis's 32 features), IR and
    # Bayes-ALAP vary more: "AV then LR" is not supported, the overfit rule is
    assert sorted(sd, key=sd.get)[:2] == ["lr", "av"]
    assert min(sd["ir"], sd["bay-alap"]) > max(sd["av"], sd["lr"])
    cl = pd.read_csv(REPORTS / "two-class" / "claims.csv").set_index("claim")
    assert cl.loc[["two_av_most_robust", "two_lr_next", "two_ir_bay_overfit", "two_robust_av_then_lr"],
                  "holds_ours"].astype(str).tolist() == ["False", "False", "True", "False"]


@pytest.mark.skipif("two-class" not in RUNS, reason="reports/gebel2009/two-class is not part of this installation")
def test_committed_cal_is_the_quantity_of_the_thesis_tables() -> None:
    """The finding of the README ("Which Cal the thesis's tables report"), recomputed from the
    committed table: on the naive Bayes's own probabilities (no calibrator; our CR within 0.005 of
    the thesis's on 7 data sets) the product (1 - RMSE) WCR is the thesis's Cal (mean absolute
    difference 0.004), eq. 2.6's root is far above it (0.125 on average)."""
    t = pd.read_csv(REPORTS / "two-class" / "table.csv")
    th = pd.read_csv(g.THESIS_TABLES)
    m = th.merge(t, on=KEYS, suffixes=("_thesis", ""))
    nb = m[(m["classifier"] == "nb") & (m["method"] == "own") & ((m["CR"] - m["CR_thesis"]).abs() <= 0.005)]
    # Ionosphere (CR 0.8177 against 0.823 on the thesis's 32 features) misses the 0.005 by a hair
    assert sorted(nb["dataset"]) == ["banknote-swiss", "breast-cancer", "fourclass", "haberman", "heart", "pima", "sonar"]
    d_prod = (nb["Cal"] - nb["Cal_thesis"]).abs()
    d_root = nb["Cal_root"] - nb["Cal_thesis"]
    assert d_prod.mean() < 0.01 and d_prod.max() < 0.02
    assert d_root.min() > 0.01 and d_root.mean() > 0.1


@pytest.mark.slow
def test_two_class_run_resumes_by_data_set(tmp_path) -> None:
    """Every calibrator runs for the NB (beside its own probability); a second run in the same
    folder keeps the finished data set, adds the new one, and equals one run of both; other
    settings are refused."""
    kw = dict(folds=2, seed=5, jobs=1, parts=("two-class",), quiet=True, classifiers=["nb"])
    first = g.run_gebel2009(tmp_path / "a", datasets=["haberman"], **kw)
    assert first.units == 2
    second = g.run_gebel2009(tmp_path / "a", datasets=["haberman", "heart"], **kw)
    assert second.units == 2  # heart only
    g.run_gebel2009(tmp_path / "b", datasets=["haberman", "heart"], **kw)
    a, b = (pd.read_csv(tmp_path / x / "table.csv").sort_values(KEYS).reset_index(drop=True) for x in "ab")
    assert set(a["method"]) == {"own", "av", "bay-alap", "ir", "lr", "plr"}
    pd.testing.assert_frame_equal(a, b)
    study = json.loads((tmp_path / "a" / "study.json").read_text())
    assert study["datasets_done"] == ["two-class:haberman", "two-class:heart"] and study["units_done"] == 4
    assert set(study["dataset_seconds"]) == set(study["datasets_done"]) and len(study["commands"]) == 2
    with pytest.raises(ValueError, match="run with the same --folds and --seed to resume it"):
        g.run_gebel2009(tmp_path / "a", datasets=["heart"], **{**kw, "folds": 3})


@pytest.mark.skipif(len(RUNS) < 2, reason="reports/gebel2009 is not part of this installation")
def test_observed_offsets_recompute() -> None:
    """The README's sentence on how far our Cal and CR lie above the thesis's, from comparison.csv."""
    readme = (REPORTS / "README.md").read_text()
    parts = []
    for run in ("two-class", "k-class"):
        c = pd.read_csv(REPORTS / run / "comparison.csv").dropna(subset=["Cal_ours", "Cal_thesis", "CR_ours", "CR_thesis"])
        d, e = c["Cal_ours"] - c["Cal_thesis"], c["CR_ours"] - c["CR_thesis"]
        parts.append((len(c), f"{d.mean():.3f}", f"{d.median():.3f}", f"{e.mean():.3f}"))
    (n2, m2, med2, cr2), (nk, mk, medk, crk) = parts
    text = " ".join(readme.split())
    assert f"by {m2} over the {n2} two-class cells (median {med2}) and {mk} over the {nk} K-class cells (median {medk})" in text
    assert f"so is our CR (by {cr2} and {crk};" in text


@pytest.mark.skipif("two-class" not in RUNS, reason="reports/gebel2009/two-class is not part of this installation")
def test_ionosphere_uses_the_thesis_feature_set() -> None:
    """Table 6.1's p = 32 for Ionosphere: V1 (binary) and V2 (constant) are left out, and the
    committed cells were rerun so (the search's winning candidate reproduces them exactly)."""
    X, _, _ = g.load_dataset("ionosphere")
    assert X.shape == (351, 32) and g.FEATURE_DROP["ionosphere"] == ("V1", "V2")
    study = json.loads((REPORTS / "two-class" / "study.json").read_text())
    assert study["feature_sets"]["ionosphere"]["dropped"] == ["V1", "V2"]
    table = pd.read_csv(REPORTS / "two-class" / "table.csv").set_index(KEYS[1:])
    search = pd.read_csv(REPORTS / "which_features_ionosphere.csv")
    won = search[search["dropped"] == "V1+V2"]
    for _, r in won.iterrows():
        assert table.loc[("ionosphere", r["classifier"], "none", r["method"]), "CR"] == pytest.approx(r["CR"], abs=1e-4)
    X, _, _ = g.load_dataset("banknote-swiss")
    assert X.shape == (200, 6)  # not identified: all six kept (README)


def _conclusions():
    import importlib.util

    spec = importlib.util.spec_from_file_location("gebel_conclusions", REPORTS / "conclusions.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_appendix_a_entered_completely() -> None:
    """Tables A.1-A.4: 9 data sets x (9 SVM, 11 ANN methods) per table, values in [0, 1], spot checks."""
    t = pd.read_csv(g.THESIS_TABLES.parent / "gebel2009_thesis_appendix_a.csv")
    assert t.groupby("table").size().to_dict() == {"Tab. A.1": 81, "Tab. A.2": 81, "Tab. A.3": 99, "Tab. A.4": 99}
    assert t[["CR", "Cal"]].apply(lambda c: c.between(0, 1)).all().all()
    a3 = t[(t["table"] == "Tab. A.3") & (t["dataset"] == "iris")].set_index("method")
    assert a3.loc["bay-alap", ["CR", "Cal"]].tolist() == [0.973, 0.959]
    a2 = t[(t["table"] == "Tab. A.2") & (t["dataset"] == "zoo")].set_index("method")
    assert a2.loc["plr", ["CR", "Cal"]].tolist() == [0.92, 0.89]
    # the appendix repeats Tables 6.10-6.13 for the methods they share
    main = pd.read_csv(g.THESIS_TABLES).set_index(["classifier", "reduction", "dataset", "method"])
    shared = t.set_index(["classifier", "reduction", "dataset", "method"])
    common = shared.index.intersection(main.index)
    assert len(common) > 200
    diff = (shared.loc[common, "Cal"] - main.loc[common, "Cal"]).abs()
    assert (diff > 0).sum() <= 3, diff[diff > 0]  # the thesis's tables agree but for typos


@pytest.mark.skipif("k-class" not in RUNS, reason="reports/gebel2009 is not part of this installation")
def test_conclusion_rules_hold_on_the_thesis_numbers() -> None:
    mod = _conclusions()
    cl = pd.DataFrame(mod.judge(mod.thesis_table())).set_index("claim")
    assert list(cl.index) == list(mod.TEXT)
    # rules 1-8 were checked to express the thesis's statements; rules 9-13 (issue 40, fixed before
    # their check) are reported as they come out, on the thesis's numbers too
    assert cl.loc[mod.THESIS_CHECKED, "holds"].tolist() == [True] * len(mod.THESIS_CHECKED), cl.to_string()


@pytest.mark.skipif("k-class" not in RUNS, reason="reports/gebel2009 is not part of this installation")
def test_committed_conclusions_recompute() -> None:
    """conclusions.csv comes from the committed tables by conclusions.py."""
    mod = _conclusions()
    fresh = mod.conclusions()
    committed = pd.read_csv(REPORTS / "conclusions.csv")
    assert committed["claim"].tolist() == fresh["claim"].tolist()
    for col in ("detail_thesis", "detail_ours"):
        assert committed[col].tolist() == fresh[col].tolist()
    assert committed["holds_ours"].astype(str).tolist() == fresh["holds_ours"].astype(str).tolist()
    # the README shows the tables conclusions.py prints
    readme = (REPORTS / "README.md").read_text(encoding="utf-8")
    rows = [line for line in (mod.markdown(fresh) + "\n" + mod.appendix_tables()).splitlines() if line.startswith("|")]
    assert len(rows) > 20 and [r for r in rows if r not in readme] == []


@pytest.mark.slow
@pytest.mark.skipif("k-class" not in RUNS, reason="reports/gebel2009 is not part of this installation")
def test_appendix_units_share_the_main_runs_scores() -> None:
    """methods= reruns a unit's classifiers with the same seeds: LR equals the committed cell."""
    rows = g._unit("K-class", "iris", "ann", "ovr", 0, 10, 2009, methods=("lr", "ir"))
    got = {r["method"]: r for r in rows}
    res = pd.read_csv(REPORTS / "k-class" / "results.csv")
    ref = res[(res["dataset"] == "iris") & (res["classifier"] == "ann") & (res["reduction"] == "ovr")
              & (res["fold"] == 0)].set_index("method")
    assert got["lr"]["Cal"] == pytest.approx(ref.loc["lr", "Cal"], abs=1e-6)
    assert got["ir"]["error"] or 0 <= got["ir"]["Cal"] <= 1
    with pytest.raises(ValueError, match="K-class part only"):
        g._unit("two-class", "heart", "nb", "none", 0, 10, 2009, methods=("lr",))
