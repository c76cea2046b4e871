"""The results protocol on evlogit: predict (index and row order), decide (strategies, reject
option, ties), augment, tidy/glance, summary (text and escaped HTML), save/load."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import evstat as ev


@pytest.fixture(scope="module")
def cal() -> pd.DataFrame:
    df = ev.datasets.simulate_gaussian(40, seed=1)
    df["cls"] = np.where(df["y"] == 1, "pos", "neg")
    df.index = np.random.default_rng(0).permutation(np.arange(500, 540))
    return df


@pytest.fixture(scope="module")
def fit(cal):
    return ev.evlogit("cls ~ x1 + x2", data=cal)


@pytest.fixture(scope="module")
def new() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return pd.DataFrame(
        {"x2": rng.normal(size=12), "x1": rng.normal(scale=1.5, size=12), "other": list("abcdefghijkl")},
        index=[f"r{i}" for i in rng.permutation(12)],
    )


# ---------------------------------------------------------------------------------------------
# predict
# ---------------------------------------------------------------------------------------------


def test_predict_keeps_index_and_row_order(fit, new):
    prob = fit.predict(new)
    assert isinstance(prob, pd.Series) and prob.name == "theta"
    assert list(prob.index) == list(new.index)
    X = np.c_[np.ones(len(new)), new[["x1", "x2"]].to_numpy()]
    np.testing.assert_allclose(prob.to_numpy(), expit(X @ fit.params.to_numpy()), rtol=1e-14)
    bel = fit.predict(new, type="belief")
    assert list(bel.columns) == ["theta", "bel", "pl"] and list(bel.index) == list(new.index)
    # row by row gives the same as the batch (no mixing of rows)
    rev = new.iloc[::-1]
    pd.testing.assert_frame_equal(fit.predict(rev, type="belief"), bel.iloc[::-1], atol=1e-12, rtol=0)
    one = fit.predict(new.iloc[[3]], type="belief")
    pd.testing.assert_frame_equal(one, bel.iloc[[3]], atol=1e-12, rtol=0)


def test_predict_without_newdata_uses_calibration_rows(fit, cal):
    b = fit.predict(type="belief")
    assert list(b.index) == list(cal.index)
    pd.testing.assert_frame_equal(b, fit.predict(cal, type="belief"))
    pd.testing.assert_frame_equal(fit.calibration_belief(), b)
    pd.testing.assert_series_equal(fit.predict(), fit.fittedvalues, check_names=False)


def test_predict_mass_frame_and_values(fit, new):
    m = fit.predict(new, type="mass")
    b = fit.predict(new, type="belief")
    assert list(m.frame) == ["neg", "pos"]
    assert list(m.index) == list(new.index)
    np.testing.assert_allclose(m.bel("pos"), b["bel"], atol=1e-15)
    np.testing.assert_allclose(m.pl("pos"), b["pl"], atol=1e-12)
    np.testing.assert_allclose(m.bel("neg"), 1 - b["pl"], atol=1e-15)
    np.testing.assert_allclose(m.values.sum(axis=1), 1.0, atol=1e-12)


def test_predict_missing_drop(fit, new):
    bad = new.copy()
    bad.iloc[[2, 7], 0] = np.nan
    with pytest.raises(ValueError, match=r"column 'x2' of newdata has missing values in 2 rows of 12"):
        fit.predict(bad)
    b = fit.predict(bad, type="belief", missing="drop")
    keep = new.index.delete([2, 7])
    assert list(b.index) == list(keep)
    pd.testing.assert_frame_equal(b, fit.predict(new.loc[keep], type="belief"))


def test_predict_empty_newdata(fit, new):
    assert fit.predict(new.iloc[:0], type="belief").shape == (0, 3)
    assert len(fit.predict(new.iloc[:0])) == 0
    assert len(fit.decide(new.iloc[:0])) == 0


# ---------------------------------------------------------------------------------------------
# decide
# ---------------------------------------------------------------------------------------------


def hand_costs(b: pd.DataFrame, strategy: str) -> tuple[np.ndarray, np.ndarray]:
    """(cost of deciding negative, cost of deciding positive) under 0-1 losses."""
    bel, pl, th = b["bel"].to_numpy(), b["pl"].to_numpy(), b["theta"].to_numpy()
    if strategy == "pessimistic":  # upper expected costs: R*(pos) = 1 - Bel({pos}), R*(neg) = Pl({pos})
        return pl, 1 - bel
    if strategy == "optimistic":  # lower expected costs: R_*(pos) = 1 - Pl({pos}), R_*(neg) = Bel({pos})
        return bel, 1 - pl
    if strategy == "pignistic":
        betp = (bel + pl) / 2
        return betp, 1 - betp
    return th, 1 - th  # probabilistic


def hand_decide(b: pd.DataFrame, strategy: str, reject_cost: float | None) -> list:
    """Documented conventions: ties between the classes go to the negative class, ties between
    a class and reject go to the class (reject only when strictly cheaper)."""
    c_neg, c_pos = hand_costs(b, strategy)
    out = np.where(c_pos < c_neg, "pos", "neg").astype(object)
    if reject_cost is not None:
        out[reject_cost < np.minimum(c_neg, c_pos)] = "reject"
    return list(out)


@pytest.mark.parametrize("strategy", ["pessimistic", "optimistic", "pignistic", "probabilistic"])
@pytest.mark.parametrize("reject_cost", [None, 0.1, 0.25, 0.4])
def test_decide_matches_hand_rules(fit, strategy, reject_cost):
    grid = pd.DataFrame({"x1": np.linspace(-3, 3, 41), "x2": np.linspace(1, -1, 41)})
    b = fit.predict(grid, type="belief")
    c_neg, c_pos = hand_costs(b, strategy)
    clear = np.abs(c_neg - c_pos) > 1e-9
    if reject_cost is not None:
        clear &= np.abs(np.minimum(c_neg, c_pos) - reject_cost) > 1e-9
    d = fit.decide(grid, strategy=strategy, reject_cost=reject_cost)
    assert d.name == "decision" and list(d.index) == list(grid.index)
    expected = ["neg", "pos"] + ([] if reject_cost is None else ["reject"])
    assert list(d.cat.categories) == expected
    assert list(d[clear]) == list(np.array(hand_decide(b, strategy, reject_cost), dtype=object)[clear])
    assert clear.sum() >= 38


def test_decide_strategies_differ_in_the_expected_direction(fit):
    grid = pd.DataFrame({"x1": np.linspace(-3, 3, 61), "x2": np.zeros(61)})
    rc = 0.3
    n_rej = {s: int((fit.decide(grid, strategy=s, reject_cost=rc) == "reject").sum()) for s in
             ("pessimistic", "pignistic", "optimistic")}
    # the pessimistic upper costs are the largest, so it rejects most
    assert n_rej["pessimistic"] >= n_rej["pignistic"] >= n_rej["optimistic"]
    assert n_rej["pessimistic"] > n_rej["optimistic"]


def test_decide_reject_cost_bounds(fit, new):
    assert (fit.decide(new, reject_cost=0.0) == "reject").all()  # every class costs > 0
    assert not (fit.decide(new, reject_cost=1.0) == "reject").any()


def test_decide_ties_go_to_negative_then_to_the_class():
    """A calibration set symmetric under (s, y) -> (-s, 1 - y) gives beta_0 = 0 and, at s = 0,
    a contour symmetric about 1/2: Bel + Pl = 1, so every strategy has tied class costs."""
    s = np.random.default_rng(0).normal(size=10) + 1
    df = pd.DataFrame({"s": np.r_[s, -s], "y": [1] * 10 + [0] * 10})
    fit = ev.evlogit("y ~ s", data=df)
    zero = pd.DataFrame({"s": [0.0]}, index=["mid"])
    b = fit.predict(zero, type="belief")
    assert float(b["bel"].iloc[0] + b["pl"].iloc[0]) == pytest.approx(1.0, abs=1e-12)
    assert float(b["theta"].iloc[0]) == pytest.approx(0.5, abs=1e-14)
    for strategy in ("pessimistic", "optimistic", "pignistic", "probabilistic"):
        assert fit.decide(zero, strategy=strategy).tolist() == [0]
        c_neg, _ = hand_costs(b, strategy)
        # reject cost equal to the class cost: the class wins
        assert fit.decide(zero, strategy=strategy, reject_cost=float(c_neg[0])).tolist() == [0]
        assert fit.decide(zero, strategy=strategy, reject_cost=float(c_neg[0]) - 1e-6).tolist() == ["reject"]


def test_decide_categories_follow_response_levels(cal):
    num = ev.evlogit("y ~ x1", data=cal)
    d = num.decide(cal.head(5), reject_cost=0.2)
    assert list(d.cat.categories) == [0, 1, "reject"]
    d2 = num.decide(cal.head(5))
    assert list(d2.cat.categories) == [0, 1]


# ---------------------------------------------------------------------------------------------
# broom verbs
# ---------------------------------------------------------------------------------------------


def test_augment_columns_and_values(fit, new):
    aug = fit.augment(new)
    assert list(aug.columns) == list(new.columns) + [".theta", ".bel", ".pl", ".ignorance", ".betp"]
    assert list(aug.index) == list(new.index)
    pd.testing.assert_frame_equal(aug[list(new.columns)], new)
    b = fit.predict(new, type="belief")
    np.testing.assert_array_equal(aug[".theta"], b["theta"])
    np.testing.assert_array_equal(aug[".bel"], b["bel"])
    np.testing.assert_array_equal(aug[".pl"], b["pl"])
    np.testing.assert_allclose(aug[".ignorance"], b["pl"] - b["bel"], rtol=1e-15)
    np.testing.assert_allclose(aug[".betp"], (b["pl"] + b["bel"]) / 2, rtol=1e-15)
    assert "x1" in new.columns and ".theta" not in new.columns  # newdata untouched


def test_augment_calibration_data(fit, cal):
    aug = fit.augment()
    assert list(aug.columns) == ["x1", "x2", "cls", ".theta", ".bel", ".pl", ".ignorance", ".betp"]
    assert list(aug.index) == list(cal.index)
    assert list(aug["cls"]) == list(cal["cls"])  # the original labels, not 0/1


def test_augment_missing_drop(fit, new):
    bad = new.copy()
    bad.iloc[4, 1] = np.nan
    aug = fit.augment(bad, missing="drop")
    assert list(aug.index) == list(new.index.delete(4))


def test_augment_missing_drop_with_duplicate_index(fit):
    bad = pd.DataFrame({"x1": [0.1, np.nan, 0.3], "x2": [0.0, 0.0, 0.0]}, index=[5, 5, 6])
    aug = fit.augment(bad, missing="drop")
    assert len(aug) == 2
    assert list(aug.index) == [5, 6]


def test_augment_keeps_duplicate_index_without_missing(fit):
    dup = pd.DataFrame({"x1": [0.1, 0.2, 0.3], "x2": [0.0, 0.0, 0.0]}, index=[5, 5, 6])
    aug = fit.augment(dup)
    assert list(aug.index) == [5, 5, 6]
    assert aug[".theta"].is_monotonic_increasing


def test_tidy_consistent_with_params_and_conf_int(fit):
    t = fit.tidy()
    assert list(t.columns) == ["term", "estimate", "std_error", "statistic", "p_value", "conf_low", "conf_high"]
    assert t.shape == (3, 7) and list(t["term"]) == fit.terms
    np.testing.assert_array_equal(t["estimate"], fit.params)
    np.testing.assert_array_equal(t["std_error"], fit.bse)
    np.testing.assert_allclose(t["statistic"], fit.params / fit.bse, rtol=1e-15)
    np.testing.assert_array_equal(t["p_value"], fit.pvalues)
    ci = fit.conf_int()
    np.testing.assert_array_equal(t["conf_low"], ci["lower"])
    np.testing.assert_array_equal(t["conf_high"], ci["upper"])
    w = fit.tidy(level=0.9, conf_method="wald")
    np.testing.assert_allclose(w["conf_low"], fit.conf_int(0.9, method="wald")["lower"], rtol=1e-15)


def test_glance_one_row(fit, cal):
    g = fit.glance()
    assert g.shape[0] == 1
    row = g.iloc[0]
    assert row["method"] == "evlogit" and row["targets"] == "platt"
    assert (row["nobs"], row["n_pos"], row["n_neg"]) == (40, 20, 20)
    assert (row["df_null"], row["df_residual"]) == (39, 37)
    assert row["loglik"] == fit.loglike and row["aic"] == fit.aic and row["bic"] == fit.bic
    assert row["deviance"] == fit.deviance and row["null_deviance"] == fit.null_deviance
    b = fit.predict(type="belief")
    assert row["mean_ignorance"] == pytest.approx(float((b["pl"] - b["bel"]).mean()), rel=1e-14)


# ---------------------------------------------------------------------------------------------
# summary
# ---------------------------------------------------------------------------------------------


def test_summary_text(fit):
    s = fit.summary()
    text = s.as_text()
    assert str(s) == text and repr(s) == text
    assert "cls ~ x1 + x2" in text
    assert "N+ = 20" in text and "N- = 20" in text
    assert "positive = 'pos'" in text
    for term in fit.terms:
        assert term in text
    assert "profile" in text
    assert "Platt" in text and "0.9545" in text  # (N+ + 1)/(N+ + 2) = 21/22
    assert f"{fit.params['x1']:.4g}" in text


def test_summary_binary_targets_text(cal):
    s = ev.evlogit("y ~ x1", data=cal, targets="binary").summary(level=0.9).as_text()
    assert "binary" in s and "90%" in s


def test_summary_html_escapes_names(cal):
    df = cal.assign(**{"<b>x</b>": cal["x2"]})
    fit = ev.evlogit('y ~ x1 + Q("<b>x</b>")', data=df)
    assert fit.terms[-1] == 'Q("<b>x</b>")'
    s = fit.summary()
    html = s.as_html()
    assert "<b>x</b>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html
    assert s._repr_html_() == html
    assert '<b>x</b>' in s.as_text()  # plain text is not escaped


def test_repr(fit):
    r = repr(fit)
    assert "evlogit" in r and "cls ~ x1 + x2" in r and "n = 40" in r


# ---------------------------------------------------------------------------------------------
# save / load
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("targets", ["platt", "binary"])
def test_save_load_round_trip(fit, cal, new, tmp_path, targets):
    f = fit if targets == "platt" else ev.evlogit("cls ~ x1 + x2", data=cal, targets="binary")
    path = f.save(tmp_path / "model.json")
    d = json.loads(path.read_text(encoding="utf-8"))
    assert d["format"] == "evstat" and d["format_version"] == 2 and d["method"] == "evlogit"
    g = ev.load(path)
    assert type(g) is type(f) and g.targets == targets
    pd.testing.assert_series_equal(g.params, f.params, check_exact=True)
    assert g.terms == f.terms and g.classes == f.classes and g.formula == f.formula
    np.testing.assert_allclose(
        g.predict(new, type="belief").to_numpy(), f.predict(new, type="belief").to_numpy(), rtol=0, atol=1e-12
    )
    pd.testing.assert_frame_equal(g.conf_int(), f.conf_int(), atol=1e-10, rtol=0)
    assert g.deviance == pytest.approx(f.deviance, rel=1e-12)
    assert g.decide(new, reject_cost=0.2).tolist() == f.decide(new, reject_cost=0.2).tolist()


def test_load_rejects_tampered_files(fit, tmp_path):
    path = fit.save(tmp_path / "model.json")
    d = json.loads(path.read_text(encoding="utf-8"))
    bad = dict(d, format_version=99)
    (tmp_path / "v.json").write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="format version 99; this evstat reads version 2"):
        ev.load(tmp_path / "v.json")
    (tmp_path / "f.json").write_text(json.dumps(dict(d, format="other")))
    with pytest.raises(ValueError, match="not a model saved by evstat"):
        ev.load(tmp_path / "f.json")
    (tmp_path / "m.json").write_text(json.dumps(dict(d, method="nope")))
    with pytest.raises(ValueError, match="unknown calibrator 'nope'"):
        ev.load(tmp_path / "m.json")
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a JSON file saved by evstat"):
        ev.load(tmp_path / "x.json")
    with pytest.raises(FileNotFoundError, match="no saved model"):
        ev.load(tmp_path / "absent.json")
    # never pickle: the file is plain JSON text
    assert path.read_text(encoding="utf-8").lstrip().startswith("{")


def test_predict_in_blocks_with_progress_bar(fit, monkeypatch, capsys):
    """Large predictions are computed in blocks of BLOCK_ROWS rows (bounded memory) with a tqdm
    bar from PROGRESS_MIN_ROWS rows; the result does not depend on the blocking."""
    from evstat.calibration import logistic

    grid = pd.DataFrame({"x1": np.linspace(-3, 3, 23), "x2": np.linspace(2, -2, 23)}, index=np.arange(23)[::-1])
    whole = fit.predict(grid, type="belief")
    monkeypatch.setattr(logistic, "BLOCK_ROWS", 5)
    with ev.config_context(progress_min_rows=10):
        blocked = fit.predict(grid, type="belief")
    pd.testing.assert_frame_equal(blocked, whole, atol=1e-12, rtol=0)
    assert "evlogit Bel/Pl" in capsys.readouterr().err
    with ev.config_context(progress_min_rows=None, progress_min_seconds=None):
        pd.testing.assert_frame_equal(fit.predict(grid, type="belief"), whole, atol=1e-12, rtol=0)
    assert "evlogit Bel/Pl" not in capsys.readouterr().err


def test_save_load_with_dropped_rows_and_stateful_transforms(tmp_path):
    cal = ev.datasets.simulate_gaussian(40, seed=1)
    cal.loc[[3, 7], "x1"] = np.nan
    cal["s"] = np.exp(cal["x2"]) + 1.0
    fit = ev.evlogit("y ~ x1 + np.log(s) + center(x2)", data=cal, missing="drop")
    g = ev.load(fit.save(tmp_path / "m.json"))
    assert g.nobs == 38 and g.terms == fit.terms
    pd.testing.assert_series_equal(g.params, fit.params, check_exact=True)
    new = pd.DataFrame({"x1": [0.3, -1.0], "x2": [5.0, -5.0], "s": [2.0, 7.0]})  # center() keeps the calibration mean
    pd.testing.assert_frame_equal(g.predict(new, type="belief"), fit.predict(new, type="belief"), atol=1e-12, rtol=0)
    assert "2 dropped for missing values" in g.summary().as_text()


def test_statsmodels_aliases():
    """params, bse and llf where a statsmodels user looks for them (docs/architecture.md)."""
    import statsmodels.api as sm

    d = ev.datasets.simulate_gaussian(60, seed=4)
    fit = ev.evlogit("y ~ x1", d, targets="binary")
    glm = sm.GLM(d["y"], sm.add_constant(d[["x1"]]), family=sm.families.Binomial()).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), glm.params.to_numpy(), rtol=1e-6)
    np.testing.assert_allclose(fit.bse.to_numpy(), glm.bse.to_numpy(), rtol=1e-4)
    assert fit.llf == fit.loglike and abs(fit.llf - glm.llf) < 1e-8
