"""Factor covariates in the model frame: text, categorical and logical columns and ``C(g)``
with R's treatment coding, new data, saving and reloading, and the models that refuse them.

The R reference (budworm data, ``confint(glm(...))``) is in
tests/calibration/test_evlogit_r_reference.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import patsy
import pytest

import evstat as ev
from evstat.formula import ModelFrame, model_frame
from evstat.formula.schema import SchemaError

HOSTILE = "__import__('os').system('touch PWNED') ') + Q('x"


@pytest.fixture
def df() -> pd.DataFrame:
    rng = np.random.default_rng(10)
    n = 60
    g = np.array(["b", "c", "a"])[np.arange(n) % 3]
    s = rng.normal(size=n)
    eta = -0.5 + 1.2 * s + np.select([g == "b", g == "c"], [0.8, -0.6], 0.0)
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    return pd.DataFrame({"y": y, "g": g, "s": s})


def test_text_column_levels_sorted_first_is_baseline_names_as_patsy(df):
    mf = model_frame("y ~ C(g) + s", df)
    assert mf.factors == {"g": ["a", "b", "c"]}
    ref = patsy.dmatrix("C(g) + s", df)  # what statsmodels' formula API builds and prints
    assert mf.terms == list(ref.design_info.column_names) == ["Intercept", "C(g)[T.b]", "C(g)[T.c]", "s"]
    np.testing.assert_array_equal(mf.X, np.asarray(ref))
    assert model_frame("y ~ g + s", df).terms == ["Intercept", "g[T.b]", "g[T.c]", "s"]
    # no intercept: every level gets a column, as R's 'sexF sexM'
    assert model_frame("y ~ g + s - 1", df).terms == ["g[a]", "g[b]", "g[c]", "s"]
    # an interaction with a score column
    assert model_frame("y ~ g:s", df).terms == ["Intercept", "g[a]:s", "g[b]:s", "g[c]:s"]
    assert model_frame("y ~ g * s", df).categorical_terms() == ["g", "g:s"]
    assert model_frame("y ~ g + s", df).column("g").tolist() == df["g"].tolist()


def test_evlogit_with_a_factor_equals_hand_made_dummies(df):
    fit = ev.evlogit("y ~ C(g) + s", data=df)
    d = df.assign(gb=(df["g"] == "b").astype(float), gc=(df["g"] == "c").astype(float))
    ref = ev.evlogit("y ~ gb + gc + s", data=d)
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    new = pd.DataFrame({"g": ["c", "a"], "s": [0.3, -1.0]})
    newd = new.assign(gb=[0.0, 0.0], gc=[1.0, 0.0])
    np.testing.assert_allclose(fit.predict(new, type="prob").to_numpy(dtype=float),
                               ref.predict(newd, type="prob").to_numpy(dtype=float), rtol=1e-10)


def test_unseen_level_in_newdata_names_column_and_level(df):
    mf = model_frame("y ~ C(g) + s", df)
    with pytest.raises(ValueError, match=r"column 'g' of newdata has level\(s\) \['z'\] in 1 row \(index 1\) "
                                         r"that the calibration data did not have; .*\['a', 'b', 'c'\]"):
        mf.new_X(pd.DataFrame({"g": ["a", "z"], "s": [0.0, 1.0]}))
    fit = ev.evlogit("y ~ C(g) + s", data=df)
    with pytest.raises(ValueError, match=r"column 'g' of newdata has level\(s\) \['z'\]"):
        fit.predict(pd.DataFrame({"g": ["z"], "s": [0.0]}))


def test_missing_factor_values_raise_or_drop(df):
    d = df.copy()
    d.loc[[2, 5], "g"] = None
    with pytest.raises(ValueError, match=r"column 'g' has missing values in 2 rows of 60 \(index 2, 5\)"):
        model_frame("y ~ g + s", d)
    mf = model_frame("y ~ g + s", d, missing="drop")
    assert mf.n == 58 and mf.n_dropped == 2
    X, idx = mf.new_X(pd.DataFrame({"g": ["a", None], "s": [0.0, 1.0]}), missing="drop")
    assert X.shape == (1, 4) and list(idx) == [0]
    with pytest.raises(ValueError, match=r"column 'g' of newdata has missing values in 1 row"):
        mf.new_X(pd.DataFrame({"g": ["a", None], "s": [0.0, 1.0]}))


def test_levels_dropped_with_missing_rows_and_single_level_error(df):
    d = df.copy()
    d.loc[d["g"] == "c", "s"] = np.nan  # dropping these rows leaves levels a and b
    assert model_frame("y ~ g + s", d, missing="drop").factors == {"g": ["a", "b"]}
    with pytest.raises(ValueError, match=r"factor column 'g' has a single level 'a' in all 20 rows"):
        model_frame("y ~ g + s", df[df["g"] == "a"])


def test_mixed_types_and_unsupported_values_are_errors(df):
    with pytest.raises(ValueError, match=r"factor column 'g' mixes types .*astype\(str\)"):
        model_frame("y ~ g", df.assign(g=np.array(["a", 1] * 30, dtype=object)))
    with pytest.raises(ValueError, match=r"column 'g' holds tuple values"):
        model_frame("y ~ g", df.assign(g=pd.Series([(1, 2), (3, 4)] * 30, dtype=object)))


def test_numeric_column_in_c_is_a_factor(df):
    d = df.assign(dose=np.arange(60) % 3 + 1.0)
    mf = model_frame("y ~ C(dose) + s", d)
    assert mf.terms == ["Intercept", "C(dose)[T.2.0]", "C(dose)[T.3.0]", "s"]
    back = ModelFrame.from_dict(json.loads(json.dumps(mf.to_dict())))
    np.testing.assert_array_equal(back.X, mf.X)
    with pytest.raises(ValueError, match=r"cannot evaluate formula .*7\.0"):
        mf.new_X(pd.DataFrame({"dose": [7.0], "s": [0.0]}))


def test_save_and_reload_keeps_levels_and_never_evaluates_a_level(df, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    levels = {"a": "a", "b": HOSTILE, "c": "c\"; import os #"}
    d = df.assign(g=df["g"].map(levels), flag=df["s"] > 0.5)
    fit = ev.evlogit("y ~ C(g) + flag + s", data=d)
    assert fit.model_frame.factors == {"g": sorted(levels.values()), "flag": [False, True]}
    path = fit.save(tmp_path / "fit.json")
    back = ev.load(path)
    assert not (tmp_path / "PWNED").exists()
    assert back.terms == fit.terms and back.model_frame.factors == fit.model_frame.factors
    new = d.drop(columns="y").iloc[:7]
    pd.testing.assert_series_equal(back.predict(new, type="prob"), fit.predict(new, type="prob"))
    stored = json.loads(path.read_text())
    frame = stored["model_frame"] if "model_frame" in stored else stored
    assert HOSTILE in json.dumps(frame)


def _frame_dict(df) -> dict:
    return json.loads(json.dumps(model_frame("y ~ C(g) + s", df).to_dict()))


def test_schema_refuses_bad_factor_descriptions(df):
    ModelFrame.from_dict(_frame_dict(df))  # the untouched description loads
    d = _frame_dict(df)
    d["factors"]["g"][1] = {"__class__": "os.system"}
    with pytest.raises(SchemaError, match=r"factors"):
        ModelFrame.from_dict(d)
    d = _frame_dict(df)
    d["data"]["g"][0] = 3.0
    with pytest.raises(SchemaError, match=r"level codes of factor 'g': integers from 0 to 2"):
        ModelFrame.from_dict(d)
    d = _frame_dict(df)
    d["data"]["g"][0] = 0.5
    with pytest.raises(SchemaError, match=r"level codes of factor 'g'"):
        ModelFrame.from_dict(d)
    d = _frame_dict(df)
    d["factors"]["h"] = ["a", "b"]
    with pytest.raises(SchemaError, match=r"factors names the column 'h', which is not in score_columns"):
        ModelFrame.from_dict(d)
    d = _frame_dict(df)
    d["factors"]["g"] = ["a", "a", "c"]
    with pytest.raises(SchemaError, match=r"lists a level twice"):
        ModelFrame.from_dict(d)
    d = _frame_dict(df)
    d["formula"] = "y ~ C(g, __import__('os'))"
    with pytest.raises(Exception, match=r"(?i)not allowed|unsafe|refus"):
        ModelFrame.from_dict(d)


@pytest.mark.parametrize(
    ("make", "who", "why"),
    [
        (lambda f, d: ev.evbinning(f, d), "evbinning", "cuts every score axis into intervals"),
        (lambda f, d: ev.isotonic(f, d), "isotonic", "increases along one score axis"),
        (lambda f, d: ev.betacal(f, d), "betacal", r"log\(s\) and log\(1 - s\)"),
        (lambda f, d: ev.eknn(f, d), "eknn", "Euclidean distances"),
        (lambda f, d: ev.credal_knn(f, d), "credal_knn", "Euclidean distances"),
        (lambda f, d: ev.evnn(f, d), "evnn", "Euclidean distances"),
        (lambda f, d: ev.gbt(f, d), "gbt", "Euclidean balls"),
    ],
)
def test_score_axis_models_refuse_factor_terms_by_name(df, make, who, why):
    d = df.assign(s=1 / (1 + np.exp(-df["s"])))  # scores in (0, 1) for betacal
    with pytest.raises(ValueError, match=rf"{who} cannot use the factor term 'C\(g\)' of formula "
                                         rf"'y ~ C\(g\) \+ s' \(dummy columns \['C\(g\)\[T.b\]', "
                                         rf"'C\(g\)\[T.c\]'\]\): it .*{why}"):
        make("y ~ C(g) + s", d)
