"""R's dotted column names in formulas (issue 37, item 5): ``Species ~ Sepal.Length + Sepal.Width``.

A dotted name that is a column of the data is that column, as in R, for every model, the saved
file, ``update``, ``predict``, ``anova`` and the command line; term names read as written. A
dotted name that is not a column is still refused (never evaluated), with a message naming the
closest column and ``Q("...")``. Hostile names (dunder parts, calls, module chains) stay refused
even when the data has a column of that name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.formula import model_frame
from evstat.formula._dotted import dotted_tokens, quote_dotted, shown_code
from evstat.formula.schema import checksum
from evstat.formula.whitelist import UnsafeFormulaError, check_formula

#: R's ``names(iris)`` (what ``write.csv(iris)`` writes)
R_IRIS = ["Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width", "Species"]
PLAIN = ["sl", "sw", "pl", "pw", "Species"]


@pytest.fixture(scope="module")
def iris() -> pd.DataFrame:
    d = ev.datasets.load("iris")
    d.columns = R_IRIS
    return d


@pytest.fixture(scope="module")
def two(iris) -> pd.DataFrame:
    return iris[iris.Species != "setosa"].reset_index(drop=True)


def plain(d: pd.DataFrame) -> pd.DataFrame:
    return d.rename(columns=dict(zip(R_IRIS, PLAIN)))


@pytest.fixture()
def marker(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path / "PWNED"


# ---------------------------------------------------------------------------------------------
# the rewrite
# ---------------------------------------------------------------------------------------------


def test_rewrite_only_whole_name_tokens_that_are_columns():
    cols = ["y", "Sepal.Length", "a.b", "x.1"]
    got, shown = quote_dotted('y ~ Sepal.Length + np.log(a.b) + Q("a.b") + I(2.5 * x.1) + a.bc + np.pi', cols)
    assert got == 'y ~ Q("Sepal.Length") + np.log(Q("a.b")) + Q("a.b") + I(2.5 * Q("x.1")) + a.bc + np.pi'
    assert shown == {'Q("Sepal.Length")': "Sepal.Length", 'Q("a.b")': "a.b", 'Q("x.1")': "x.1"}
    # strings, numbers and calls are never rewritten
    assert quote_dotted("y ~ C(g, Treatment('a.b')) + I(a.b(1)) + 1.5", cols)[0] == "y ~ C(g, Treatment('a.b')) + I(a.b(1)) + 1.5"
    assert [t for *_, t in dotted_tokens("y ~ .5 + 1.e3 + .x + a..b + . - ..")] == [".x", "a..b"]
    assert [t for *_, t in dotted_tokens("y ~ f.g (x) + f.h")] == ["f.h"]
    assert quote_dotted("y ~ Sepal.Length", None) == ("y ~ Sepal.Length", {})
    assert shown_code('Q("a.b"):np.log(Q("a.b"))', shown) == "a.b:np.log(a.b)"


def test_checked_formula_accepts_dotted_columns_only():
    check_formula("Species ~ Sepal.Length + np.log(Sepal.Width)", columns=R_IRIS)
    with pytest.raises(UnsafeFormulaError, match="attribute access|not a column"):
        check_formula("Species ~ Sepal.Length")  # without the data: not known to be a column


# ---------------------------------------------------------------------------------------------
# fits: the same numbers as plain names, names as R writes them
# ---------------------------------------------------------------------------------------------


def test_evmultinom_on_r_iris(iris):
    k = ev.evmultinom("Species ~ Sepal.Length + Sepal.Width", iris)
    ref = ev.evmultinom("Species ~ sl + sw", plain(iris))
    assert k.formula == "Species ~ Sepal.Length + Sepal.Width"
    assert list(k.params.columns) == ["Intercept", "Sepal.Length", "Sepal.Width"]
    np.testing.assert_allclose(k.params.to_numpy(), ref.params.to_numpy(), rtol=0, atol=0)
    tidy = k.tidy()
    assert set(tidy["term"]) == {"Intercept", "Sepal.Length", "Sepal.Width"}
    new = iris.iloc[[0, 60, 120]]
    pd.testing.assert_frame_equal(k.predict(new, type="prob"), ref.predict(plain(new), type="prob"))


def test_evlogit_names_are_rs(two):
    """Term names as R's ``names(coef(glm(...)))`` prints them for the same formula:
    ``(Intercept) Sepal.Length log(Sepal.Width) Sepal.Length:Petal.Length`` (R 4.x)."""
    f = ev.evlogit("Species ~ Sepal.Length + log(Sepal.Width) + Sepal.Length:Petal.Length", two)
    assert list(f.params.index) == ["Intercept", "Sepal.Length", "log(Sepal.Width)", "Sepal.Length:Petal.Length"]
    ref = ev.evlogit("Species ~ sl + log(sw) + sl:pl", plain(two))
    np.testing.assert_array_equal(f.params.to_numpy(), ref.params.to_numpy())
    text = f.summary().as_text()
    assert "Sepal.Length:Petal.Length" in text and "Q(" not in text
    assert list(f.tidy()["term"]) == list(f.params.index)
    lo, hi = f.profile("Sepal.Length").conf_int()
    np.testing.assert_allclose([lo, hi], ref.profile("sl").conf_int(), rtol=1e-10)
    assert list(f.conf_int(method="wald").index) == list(f.params.index)


def test_quoted_names_stay_quoted(two):
    """Q("...") is named as written, as Q("svm 1") always was; the values are the same."""
    q = ev.evlogit('Species ~ Q("Sepal.Length") + np.log(Sepal.Width)', two)
    assert list(q.params.index) == ["Intercept", 'Q("Sepal.Length")', "np.log(Sepal.Width)"]
    bare = ev.evlogit("Species ~ Sepal.Length + np.log(Sepal.Width)", two)
    np.testing.assert_array_equal(q.params.to_numpy(), bare.params.to_numpy())
    spaced = two.rename(columns={"Sepal.Length": "sepal length"})
    s = ev.evlogit('Species ~ Q("sepal length")', spaced)
    assert list(s.params.index) == ["Intercept", 'Q("sepal length")']


def test_dot_expands_to_bare_dotted_names(iris, two):
    k = ev.evmultinom("Species ~ .", iris)
    assert k.formula == "Species ~ (Sepal.Length + Sepal.Width + Petal.Length + Petal.Width)"
    assert list(k.params.columns) == ["Intercept", *R_IRIS[:4]]
    f = ev.evlogit("Species ~ . - Petal.Width", two)
    assert list(f.params.index) == ["Intercept", "Sepal.Length", "Sepal.Width", "Petal.Length"]


def test_factor_and_stateful_transforms(two):
    d = two.assign(**{"Big.Sepal": np.where(two["Sepal.Length"] > 6.2, "big", "small")})
    mf = model_frame("Species ~ center(Sepal.Length) + Big.Sepal", d)
    assert mf.terms == ["Intercept", "Big.Sepal[T.small]", "center(Sepal.Length)"]
    assert mf.score_columns == ["Sepal.Length", "Big.Sepal"]
    X, _ = mf.new_X(d.iloc[:3])
    np.testing.assert_array_equal(X, mf.X[:3])


def test_dotted_response(two):
    d = two.rename(columns={"Species": "Iris.Species"})
    f = ev.evlogit("Iris.Species ~ Sepal.Length", d)
    assert f.response == "Iris.Species"
    assert list(f.params.index) == ["Intercept", "Sepal.Length"]


def test_every_model_reads_dotted_scores(two):
    """Each registered model on a dotted score column (a smoke test of the user edge)."""
    d = two.assign(**{"svm.score": two["Petal.Length"] - 4.8 + 0.1 * two["Sepal.Width"]})
    for fitter in (ev.evlogit, ev.isotonic, ev.evbinning):
        fit = fitter("Species ~ svm.score", d)
        assert fit.predict(d.iloc[:4], type="prob").shape[0] == 4
        assert "svm.score" in fit.formula


# ---------------------------------------------------------------------------------------------
# new data, saved models, update, anova
# ---------------------------------------------------------------------------------------------


def test_predict_new_data_and_missing_column(two):
    f = ev.evlogit("Species ~ Sepal.Length + np.log(Sepal.Width)", two)
    new = two.iloc[[5, 1, 70]][["Sepal.Width", "Sepal.Length"]]
    got = f.predict(new, type="belief")
    assert list(got.index) == [5, 1, 70]
    with pytest.raises(ValueError, match="Sepal.Width"):
        f.predict(new.drop(columns=["Sepal.Width"]))


def test_save_load(two, iris, tmp_path):
    f = ev.evlogit("Species ~ Sepal.Length + center(Petal.Length)", two)
    g = ev.load(f.save(tmp_path / "f.json"))
    assert g.formula == f.formula and list(g.params.index) == list(f.params.index)
    pd.testing.assert_frame_equal(g.predict(two, type="belief"), f.predict(two, type="belief"))
    k = ev.evmultinom("Species ~ Sepal.Length + Sepal.Width", iris)
    k2 = ev.load(k.save(tmp_path / "k.json"))
    assert list(k2.params.columns) == ["Intercept", "Sepal.Length", "Sepal.Width"]
    pd.testing.assert_frame_equal(k2.predict(iris.iloc[::10], type="prob"), k.predict(iris.iloc[::10], type="prob"))


def test_update_and_anova(two):
    f = ev.evlogit("Species ~ Sepal.Length + Sepal.Width + Petal.Length", two)
    u = f.update("~ . - Sepal.Width")
    assert u.formula == "Species ~ Sepal.Length + Petal.Length"
    ref = ev.evlogit("Species ~ sl + pl", plain(two))
    np.testing.assert_array_equal(u.params.to_numpy(), ref.params.to_numpy())
    table = ev.anova(f)
    assert list(table.index) == ["NULL", "Sepal.Length", "Sepal.Width", "Petal.Length"]
    dot = ev.evlogit("Species ~ .", two)
    assert dot.update("~ . - Petal.Width").formula == "Species ~ Sepal.Length + Sepal.Width + Petal.Length"


# ---------------------------------------------------------------------------------------------
# refused: not a column, hostile names
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "term,message",
    [
        ("Sepal.Lenght", r"'Sepal.Lenght' is not a column of data \(did you mean 'Sepal.Length'\?\).*Q\(\"Sepal.Lenght\"\)"),
        ("np.foo", r"the attribute access 'np.foo'"),
        ("os.system", r"'os.system' is not a column of data"),
        ("I(os.system('touch PWNED'))", r"the call of 'os.system'"),
        ("Sepal.Length.real", r"'Sepal.Length.real' is not a column"),
        ("Sepal.Length.__class__", r"the attribute access 'Sepal.Length.__class__'"),
        ("__import__.x", r"the attribute access '__import__.x'"),
        ("a.__class__", r"the attribute access 'a.__class__'"),
        ("np.__class__.x", r"the attribute access 'np.__class__.x'"),
    ],
)
def test_refused_dotted_names(two, marker, term, message):
    with pytest.raises(UnsafeFormulaError, match=message):
        ev.evlogit(f"Species ~ {term}", two)
    assert not marker.exists()


def test_hostile_column_names_are_not_a_way_in(two, marker):
    """A data column whose name is code is never a reason to evaluate it: dunder parts are
    never rewritten, a call of a dotted column stays a call, and a module chain that is a
    column is just that column (looked up by name, not evaluated)."""
    d = two.assign(**{"a.__class__": 1.0, "__import__.x": 2.0, "os.system": two["Sepal.Length"] * 2,
                      'a.b") + open("PWNED': 3.0})
    for formula, message in [
        ("Species ~ a.__class__", "attribute access 'a.__class__'"),
        ("Species ~ __import__.x", "attribute access '__import__.x'"),
        ("Species ~ I(os.system('touch PWNED'))", "the call of 'os.system'"),
        ('Species ~ a.b") + open("PWNED', "cannot parse|not allowed|not a column"),
    ]:
        with pytest.raises((UnsafeFormulaError, ValueError), match=message):
            ev.evlogit(formula, d)
    f = ev.evlogit("Species ~ os.system", d)
    assert list(f.params.index) == ["Intercept", "os.system"]
    assert not marker.exists()


def test_load_refuses_edited_dotted_formula(two, tmp_path, marker):
    f = ev.evlogit("Species ~ Sepal.Length", two)
    saved = json.loads(f.save(tmp_path / "f.json").read_text(encoding="utf-8"))
    for formula, terms in [
        ("Species ~ Sepal.Length.__class__", ["Intercept", "Sepal.Length.__class__"]),
        ("Species ~ I(Sepal.Length('touch PWNED'))", ["Intercept", "I(Sepal.Length('touch PWNED'))"]),
        ("Species ~ os.system", ["Intercept", "os.system"]),
    ]:
        d = dict(saved, model_frame=dict(saved["model_frame"], formula=formula, terms=terms))
        d["checksum"] = checksum(d)
        path = tmp_path / "evil.json"
        path.write_text(json.dumps(d), encoding="utf-8")
        with pytest.raises(ValueError, match="not allowed|not a column|not found"):
            ev.load(path)
    assert not marker.exists()


# ---------------------------------------------------------------------------------------------
# the command line on R's write.csv(iris)
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow  # three subprocesses: about 13 s on the shared machine
def test_command_line_on_r_csv(iris, tmp_path):
    csv = tmp_path / "iris.csv"
    r = iris.copy()
    r.index = range(1, len(r) + 1)
    r.to_csv(csv, quoting=2)  # as write.csv(iris): a quoted header with "" for the row names
    assert csv.read_text(encoding="utf-8").splitlines()[0] == '"","Sepal.Length","Sepal.Width","Petal.Length","Petal.Width","Species"'
    root = Path(ev.__file__).resolve().parent.parent
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    out = tmp_path / "r.html"
    done = subprocess.run([sys.executable, "-m", "evstat", "report", "Species ~ Sepal.Length + Sepal.Width",
                           "--data", str(csv), "--method", "evmultinom", "-o", str(out)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    html = out.read_text(encoding="utf-8")
    assert "Sepal.Length" in html and "Q(&#34;" not in html and 'Q("' not in html
    k = ev.evmultinom("Species ~ Sepal.Length + Sepal.Width", iris)
    k.save(tmp_path / "k.json")
    pred = tmp_path / "p.csv"
    done = subprocess.run([sys.executable, "-m", "evstat", "predict", str(tmp_path / "k.json"), "--data", str(csv),
                           "-o", str(pred), "--type", "prob", "--jobs", "1", "--quiet"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    got = pd.read_csv(pred)
    np.testing.assert_allclose(got["theta_setosa"], k.predict(iris, type="prob")["setosa"], rtol=0, atol=1e-12)
    bad = subprocess.run([sys.executable, "-m", "evstat", "report", "Species ~ Sepal.Lenght", "--data", str(csv),
                          "--method", "evmultinom", "-o", str(out)], capture_output=True, text=True, env=env, timeout=600)
    assert bad.returncode == 2 and "did you mean 'Sepal.Length'" in bad.stderr


def test_names_with_digits_and_keywords_after_dots():
    """``x.1`` (Python reads ``x`` and the number ``.1``) and ``weight.in.kg`` (``in`` is a Python
    keyword; patsy's own example of a name it cannot read unquoted) are whole names: fitted,
    named, updated and tested sequentially as written."""
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"x.1": rng.normal(size=200), "weight.in.kg": rng.normal(size=200), "a.b_c": rng.normal(size=200)})
    d["y"] = (d["x.1"] + d["weight.in.kg"] + rng.normal(size=200) > 0).astype(int)
    f = ev.evlogit("y ~ x.1 + weight.in.kg + a.b_c", d)
    assert list(f.params.index) == ["Intercept", "x.1", "weight.in.kg", "a.b_c"]
    assert f.update("~ . - a.b_c").formula == "y ~ x.1 + weight.in.kg"
    assert list(ev.anova(f).index) == ["NULL", "x.1", "weight.in.kg", "a.b_c"]
    assert ev.evlogit("y ~ .", d).update("~ . - x.1").formula == "y ~ weight.in.kg + a.b_c"
    from evstat.glm import update_formula

    assert update_formula("y ~ x.1 * Sepal.Length + np.log(s)", "~ . - x.1:Sepal.Length") == "y ~ x.1 + Sepal.Length + np.log(s)"


def test_arrays_name_dotted_columns_as_the_formula_does(two, tmp_path):
    """``from_arrays(names=["Sepal.Length", ...])`` is the fit of the formula ``Species ~
    Sepal.Length + ...``: same formula, terms and coefficients; it saves and loads."""
    cols = ["Sepal.Length", "Petal.Length"]
    arr = ev.evlogit.from_arrays(two[cols].to_numpy(), two["Species"].to_numpy(), names=cols, response="Species")
    frm = ev.evlogit("Species ~ Sepal.Length + Petal.Length", two)
    assert arr.formula == frm.formula == "Species ~ Sepal.Length + Petal.Length"
    assert list(arr.params.index) == list(frm.params.index) == ["Intercept", *cols]
    np.testing.assert_allclose(arr.params.to_numpy(), frm.params.to_numpy(), rtol=1e-12, atol=1e-12)
    back = ev.load(arr.save(tmp_path / "a.json"))
    assert list(back.params.index) == ["Intercept", *cols]
    np.testing.assert_array_equal(back.predict(two[cols].to_numpy()), arr.predict(two[cols].to_numpy()))
