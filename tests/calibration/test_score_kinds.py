"""Every kind of score a classifier gives (issue 37, item 2).

Real classifiers on sklearn's wine (three classes) and breast cancer (two): a RandomForest (exact
0 and 1 in ``predict_proba``), GaussianNB (probabilities that underflow to 0) and
HistGradientBoosting, through formulas, arrays, the command line and the scikit-learn wrapper.
The one rule for exact 0 and 1 (:func:`evstat.multiclass.simplex.clip_rule`) is recomputed here
by hand; K logits matched to the classes by order, K - 1 log-ratios against the first class, and
bad inputs with their messages.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import log_softmax, softmax

import evstat as ev
from evstat.multiclass.simplex import ProbabilityScoresWarning

COLS = ["p_0", "p_1", "p_2"]
LOG_MODELS = ["temperature", "vector_scaling", "matrix_scaling", "dirichlet", "evmultinom"]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProbabilityScoresWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def wine():
    """Train / calibration / test rows of sklearn's wine, and three fitted classifiers."""
    from sklearn.datasets import load_wine
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    X, y = load_wine(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    Xfit, Xcal, yfit, ycal = train_test_split(Xtr, ytr, test_size=0.5, random_state=0, stratify=ytr)
    models = {
        "forest": RandomForestClassifier(n_estimators=100, random_state=0),
        "naive_bayes": GaussianNB(),
        "boosting": HistGradientBoostingClassifier(max_iter=50, random_state=0),
    }
    for m in models.values():
        m.fit(Xfit, yfit)
    return {"models": models, "Xcal": Xcal, "ycal": ycal, "Xte": Xte, "yte": yte}


def _frame(P: np.ndarray, y=None) -> pd.DataFrame:
    d = pd.DataFrame(P, columns=COLS)
    return d if y is None else d.assign(y=y)


def _by_hand(P: np.ndarray, eps: float) -> np.ndarray:
    """The rule, written out: entries below eps raised to eps, those rows renormalised."""
    Q = P.copy()
    low = (Q < eps).any(axis=1)
    Q[low] = np.maximum(Q[low], eps)
    Q[low] /= Q[low].sum(axis=1, keepdims=True)
    return Q


# ---------------------------------------------------------------- the rule, exactly
def test_forest_probabilities_have_exact_zeros(wine) -> None:
    P = wine["models"]["forest"].predict_proba(wine["Xcal"])
    assert (P == 0).any(axis=1).sum() > 10  # the case of the issue: refused before


def test_dirichlet_and_matrix_scaling_features_by_hand(wine) -> None:
    """Their design is ln p of the clipped matrix (their fits on a forest separate the rows, so the
    coefficients are compared through the features, not the fits)."""
    P = wine["models"]["forest"].predict_proba(wine["Xcal"])
    eps = P[P > 0].min() / 2
    for name in ("dirichlet", "matrix_scaling"):
        fit = _quiet(getattr(ev, name), "y ~ p_0 + p_1 + p_2", _frame(P, wine["ycal"]))
        np.testing.assert_allclose(fit._features(P, "new data"), np.log(_by_hand(P, eps)), rtol=1e-13, atol=1e-15)
        assert f"clipped at eps = {eps:.4g}" in fit.summary().as_text()


@pytest.mark.parametrize("name", ["temperature", "evmultinom"])  # (the others separate a forest's rows)
def test_clipping_rule_by_hand(wine, name: str) -> None:
    rf = wine["models"]["forest"]
    P, Pt = rf.predict_proba(wine["Xcal"]), rf.predict_proba(wine["Xte"])
    eps = P[P > 0].min() / 2  # half the smallest positive probability of the calibration data
    n_clip = int((P == 0).any(axis=1).sum())
    kw: dict = {}
    fit = _quiet(getattr(ev, name), "y ~ p_0 + p_1 + p_2", _frame(P, wine["ycal"]), **kw)
    assert fit.log_eps == pytest.approx(np.log(eps), abs=1e-14)
    text = fit.summary().as_text()
    assert f"{n_clip} of {P.shape[0]} rows had exact 0 or 1 probabilities; clipped at eps = {eps:.4g}" in text
    # the same fit on the logs of the hand-clipped matrix (nothing left to clip there)
    ref = _quiet(getattr(ev, name), "y ~ p_0 + p_1 + p_2", _frame(np.log(_by_hand(P, eps)), wine["ycal"]), **kw)
    np.testing.assert_allclose(np.asarray(fit.params, dtype=float), np.asarray(ref.params, dtype=float),
                               rtol=1e-7, atol=1e-9)
    # new data: clipped at the fit's eps, not their own
    assert (Pt == 0).any()
    got = fit.predict(_frame(Pt), type="prob").to_numpy()
    want = ref.predict(_frame(np.log(_by_hand(Pt, eps))), type="prob").to_numpy()
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-10)


def test_rows_without_zeros_are_used_as_given(wine) -> None:
    """A matrix without exact zeros gives the fit on its plain logs (no renormalisation)."""
    P = wine["models"]["boosting"].predict_proba(wine["Xcal"])
    assert (P > 0).all()
    fit = _quiet(ev.temperature, "y ~ p_0 + p_1 + p_2", _frame(P, wine["ycal"]))
    ref = ev.temperature("y ~ p_0 + p_1 + p_2", _frame(np.log(P), wine["ycal"]))
    assert fit.temperature == pytest.approx(ref.temperature, rel=1e-12)
    assert "0 of" in fit.summary().as_text()  # said even when nothing was clipped


# ---------------------------------------------------------------- every path
@pytest.mark.parametrize("clf", ["forest", "naive_bayes", "boosting"])
@pytest.mark.parametrize("name", LOG_MODELS)
def test_formula_path_every_classifier(wine, clf: str, name: str) -> None:
    m = wine["models"][clf]
    P, Pt = m.predict_proba(wine["Xcal"]), m.predict_proba(wine["Xte"])
    fit = _quiet(getattr(ev, name), "y ~ p_0 + p_1 + p_2", _frame(P, wine["ycal"]))
    p = fit.predict(_frame(Pt), type="prob").to_numpy()
    assert np.isfinite(p).all() and np.allclose(p.sum(axis=1), 1.0)
    # (quiet: on a nearly separated fit, e.g. vector scaling of naive Bayes' probabilities, the
    # profile intervals of evstat.likelihood.linear_softmax overflow and are NA, with a RuntimeWarning)
    assert "rows had exact 0 or 1 probabilities" in _quiet(fit.summary).as_text()


@pytest.mark.parametrize("clf", ["forest", "naive_bayes", "boosting"])
def test_array_path_equals_formula_path(wine, clf: str) -> None:
    m = wine["models"][clf]
    P = m.predict_proba(wine["Xcal"])
    a = _quiet(ev.from_arrays, "temperature", P, wine["ycal"], names=COLS)
    b = _quiet(ev.temperature, "y ~ p_0 + p_1 + p_2", _frame(P, wine["ycal"]))
    assert a.temperature == pytest.approx(b.temperature, rel=1e-12)
    assert a.log_eps == b.log_eps


@pytest.mark.slow
@pytest.mark.parametrize("clf", ["forest", "naive_bayes", "boosting"])
@pytest.mark.parametrize("method", ["temperature", "dirichlet", "sigmoid"])
def test_wrapper_prefit_just_works(wine, clf: str, method: str) -> None:
    from evstat.sklearn import EvidentialCalibratedClassifierCV

    m = wine["models"][clf]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ProbabilityScoresWarning)  # the wrapper says probabilities are intended
        warnings.simplefilter("ignore", RuntimeWarning)
        cal = EvidentialCalibratedClassifierCV(m, method=method, cv="prefit").fit(wine["Xcal"], wine["ycal"])
    p = cal.predict_proba(wine["Xte"])
    assert np.isfinite(p).all() and np.allclose(p.sum(axis=1), 1.0)
    fit = cal.calibrated_classifiers_[0].calibrator
    source = cal.calibrated_classifiers_[0].layout.source  # boosting: its K-column decision_function
    assert source == ("decision_function" if clf == "boosting" and method != "dirichlet" else "predict_proba")
    if method != "sigmoid" and source == "predict_proba":  # (evmultinom gets the first K - 1 columns)
        assert fit.log_eps is not None
        assert "rows had exact 0 or 1 probabilities" in _quiet(fit.summary).as_text()
    assert "s_0" not in _quiet(fit.summary).as_text()  # the columns are named after predict_proba


@pytest.mark.slow
def test_wrapper_cross_validated_forest_and_binary_forest() -> None:
    from sklearn.datasets import load_breast_cancer, load_wine
    from sklearn.ensemble import RandomForestClassifier

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    X, y = load_wine(return_X_y=True)
    cal = _quiet(EvidentialCalibratedClassifierCV(RandomForestClassifier(50, random_state=0), method="temperature",
                                                  cv=3).fit, X, y)
    assert np.isfinite(cal.predict_proba(X[:5])).all()
    X, y = load_breast_cancer(return_X_y=True)
    rf = RandomForestClassifier(50, random_state=0).fit(X[:300], y[:300])
    for method in ("betacal", "temperature", "sigmoid"):  # one probability column, or two
        c = _quiet(EvidentialCalibratedClassifierCV(rf, method=method, cv="prefit").fit, X[300:450], y[300:450])
        assert np.isfinite(c.predict_proba(X[450:])).all()


def test_betacal_forest_probability_column(wine) -> None:
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier

    X, y = load_breast_cancer(return_X_y=True)
    rf = RandomForestClassifier(100, random_state=0).fit(X[:250], y[:250])
    s = rf.predict_proba(X[250:400])[:, 1]
    exact = int(((s == 0) | (s == 1)).sum())
    assert exact > 0
    fit = ev.betacal("y ~ p", pd.DataFrame({"p": s, "y": y[250:400]}))
    pos = np.r_[s, 1 - s]
    eps = pos[pos > 0].min() / 2
    assert fit.log_eps == pytest.approx(np.log(eps), abs=1e-12)
    assert f"{exact} of 150 rows had exact 0 or 1 probabilities; clipped at eps = {eps:.4g}" in fit.summary().as_text()
    # the design by hand: (1 - s, s) clipped and renormalised
    Q = _by_hand(np.column_stack([1 - s, s]), eps)
    ref = ev.evlogit("y ~ ls + l1s", pd.DataFrame({"ls": np.log(Q[:, 1]), "l1s": -np.log(Q[:, 0]), "y": y[250:400]}))
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-8)


# ---------------------------------------------------------------- logits, by order and as K - 1 log-ratios
@pytest.fixture(scope="module")
def iris_logits():
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])
    idx = np.random.default_rng(0).permutation(150)
    tr, ca, te = idx[:50], idx[50:110], idx[110:]
    lr = LogisticRegression(C=0.05, max_iter=1000).fit(X[tr], y[tr])
    return lr.decision_function(X[ca]), names[y[ca]], lr.decision_function(X[te])


@pytest.mark.parametrize("name", ["temperature", "vector_scaling"])
def test_logits_matched_by_order(iris_logits, name: str) -> None:
    Z, labels, Zt = iris_logits
    assert np.allclose(Z.sum(axis=1), 0)  # a multinomial model's logits: collinear, accepted
    by_order = getattr(ev, name)("species ~ z1 + z2 + z3",
                                 pd.DataFrame(Z, columns=["z1", "z2", "z3"]).assign(species=labels))
    named = getattr(ev, name)("species ~ s_setosa + s_versicolor + s_virginica",
                              pd.DataFrame(Z, columns=["s_setosa", "s_versicolor", "s_virginica"]).assign(species=labels))
    np.testing.assert_allclose(by_order.params.to_numpy(), named.params.to_numpy(), rtol=1e-10)
    assert by_order.by_order and not named.by_order
    text = by_order.summary().as_text()
    assert "Columns matched to classes by order (their names do not name the classes): z1 -> 'setosa', " \
           "z2 -> 'versicolor', z3 -> 'virginica'." in text
    assert "by order" not in named.summary().as_text()
    np.testing.assert_allclose(by_order.predict(pd.DataFrame(Zt, columns=["z1", "z2", "z3"])).to_numpy(),
                               named.predict(pd.DataFrame(Zt, columns=["s_setosa", "s_versicolor", "s_virginica"])).to_numpy(),
                               rtol=1e-10)


def test_partly_named_columns_are_not_matched_by_order(iris_logits) -> None:
    Z, labels, _ = iris_logits
    d = pd.DataFrame(Z, columns=["s_virginica", "s_setosa", "z"]).assign(species=labels)
    with pytest.raises(ValueError, match="belongs to task 'versicolor'"):
        ev.temperature("species ~ s_virginica + s_setosa + z", d)


@pytest.mark.parametrize("columns", [["r2", "r3"], ["lr_versicolor", "lr_virginica"]])
def test_k_minus_1_log_ratios(iris_logits, columns, tmp_path) -> None:
    Z, labels, Zt = iris_logits
    R, Rt = Z[:, 1:] - Z[:, :1], Zt[:, 1:] - Zt[:, :1]
    d = pd.DataFrame(R, columns=columns).assign(species=labels)
    formula = "species ~ " + " + ".join(columns)
    t = ev.temperature(formula, d)
    full = ev.temperature("species ~ s_setosa + s_versicolor + s_virginica",
                          pd.DataFrame(Z, columns=["s_setosa", "s_versicolor", "s_virginica"]).assign(species=labels))
    assert t.scores == "log-ratios"
    assert t.temperature == pytest.approx(full.temperature, rel=1e-9)  # softmax(z / T) ignores the shift
    np.testing.assert_allclose(t.predict(pd.DataFrame(Rt, columns=columns)).to_numpy(),
                               softmax(Zt / full.temperature, axis=1), rtol=1e-8)
    assert re.search(r"are log-ratios ln\(p_k / p_setosa\) against the baseline class 'setosa'", t.summary().as_text())
    # dirichlet on log-ratios is dirichlet on the probabilities they stand for
    P = softmax(Z, axis=1)
    di = ev.dirichlet(formula, d, reg_lambda=1e-2)
    dp = ev.dirichlet("species ~ p_setosa + p_versicolor + p_virginica",
                      pd.DataFrame(P, columns=["p_setosa", "p_versicolor", "p_virginica"]).assign(species=labels),
                      reg_lambda=1e-2)
    np.testing.assert_allclose(di.predict(pd.DataFrame(Rt, columns=columns)).to_numpy(),
                               dp.predict(pd.DataFrame(softmax(Zt, axis=1),
                                                       columns=["p_setosa", "p_versicolor", "p_virginica"])).to_numpy(),
                               rtol=1e-6, atol=1e-9)
    back = ev.load(t.save(tmp_path / "t.json"))  # saved and loaded as a fit on K - 1 log-ratios
    assert back.scores == "log-ratios"
    np.testing.assert_array_equal(back.predict(pd.DataFrame(Rt, columns=columns)).to_numpy(),
                                  t.predict(pd.DataFrame(Rt, columns=columns)).to_numpy())


def test_named_ratios_leaving_out_another_class_are_refused(iris_logits) -> None:
    """K - 1 columns named for the first two classes look like a forgotten column, not log-ratios."""
    Z, labels, _ = iris_logits
    d = pd.DataFrame(Z[:, :2], columns=["s_setosa", "s_versicolor"]).assign(species=labels)
    with pytest.raises(ValueError, match="no score column .* belongs to task 'virginica'"):
        ev.temperature("species ~ s_setosa + s_versicolor", d)


def test_binary_decision_function_column() -> None:
    from sklearn.datasets import load_breast_cancer
    from sklearn.svm import LinearSVC

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    svm = LinearSVC(C=0.01).fit(X[:300], y[:300])
    d = pd.DataFrame({"svm": svm.decision_function(X[300:450]), "y": y[300:450]})
    for name in ("evlogit", "isotonic", "evmultinom"):
        fit = getattr(ev, name)("y ~ svm", d)
        assert np.isfinite(np.asarray(fit.predict(pd.DataFrame({"svm": [-3.0, 0.0, 3.0]})), dtype=float)).all()


# ---------------------------------------------------------------- bad inputs
def test_bad_probability_inputs_name_the_problem(wine) -> None:
    P = wine["models"]["forest"].predict_proba(wine["Xcal"])
    y = wine["ycal"]
    nan = P.copy()
    nan[4, 1] = np.nan
    with pytest.raises(ValueError, match=r"column 'p_1' has missing values in 1 row"):
        ev.temperature("y ~ p_0 + p_1 + p_2", _frame(nan, y), scores="probabilities")
    neg = P.copy()
    neg[7] = [-0.1, 0.6, 0.5]
    with pytest.raises(ValueError, match=r"are not rows of probabilities summing to 1 .*1 of 62 rows are not "
                                         r"\(first: row 7, a negative probability -0.1\)"):
        ev.temperature("y ~ p_0 + p_1 + p_2", _frame(neg, y), scores="probabilities")
    off = P.copy()
    off[[2, 9]] *= 0.9
    with pytest.raises(ValueError, match=r"2 of 62 rows are not \(first: row 2, a row sum of 0.9, not 1\)"):
        ev.dirichlet("y ~ p_0 + p_1 + p_2", _frame(off, y), scores="probabilities")
    fit = _quiet(ev.evmultinom, "y ~ p_0 + p_1 + p_2", _frame(P, y))
    with pytest.raises(ValueError, match=r"1 of 2 rows of the new data are not \(first: row 1, .*a negative probability"):
        fit.predict(_frame(np.array([[0.2, 0.3, 0.5], [1.1, -0.1, 0.0]])))
    with pytest.raises(ValueError, match=r"1 of 2 rows of the new data are not .*a row sum of 0.5, not 1"):
        fit.predict(_frame(np.array([[0.2, 0.3, 0.5], [0.25, 0.25, 0.0]])))


def test_wrapper_messages_count_rows_and_know_prefit() -> None:
    from sklearn.base import BaseEstimator, ClassifierMixin

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    class Broken(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.classes_ = np.unique(y)
            self.fitted_ = True
            return self

        def predict_proba(self, X):
            P = np.full((len(X), 3), 1 / 3)
            P[::10] = np.nan  # whole rows: 3 cells each
            return P

    X = np.random.default_rng(0).normal(size=(30, 2))
    y = np.repeat([0, 1, 2], 10)
    with pytest.raises(ValueError) as err:
        EvidentialCalibratedClassifierCV(Broken().fit(X, y), method="temperature", cv="prefit").fit(X, y)
    msg = str(err.value)
    assert "the scores of Broken (predict_proba) on the calibration rows are NaN in 3 of 30 rows" in msg
    assert "held-out" not in msg
    with pytest.raises(ValueError, match=r"the held-out scores of Broken \(predict_proba\) are NaN in \d+ of \d+ rows"):
        EvidentialCalibratedClassifierCV(Broken(), method="temperature", cv=2).fit(X, y)


# ---------------------------------------------------------------- declared capabilities, report, command line
def test_every_model_declares_what_it_reads() -> None:
    from evstat.results import SCORE_INPUTS, registered

    caps = {name: cls.capabilities for name, cls in registered().items()}
    assert all(c.accepts and set(c.accepts) <= set(SCORE_INPUTS) for c in caps.values())
    assert caps["temperature"].accepts == ("probabilities", "log-probabilities", "class-scores", "log-ratios")
    assert "log-ratios" not in caps["ecoc"].accepts
    assert caps["isotonic"].accepts == ("decision",)
    assert set(caps["evmultinom"].accepts) == set(SCORE_INPUTS)


@pytest.fixture(scope="module")
def forest_csvs(wine, tmp_path_factory):
    d = tmp_path_factory.mktemp("forest")
    rf = wine["models"]["forest"]
    _frame(rf.predict_proba(wine["Xcal"]), wine["ycal"]).to_csv(d / "cal.csv", index=False)
    _frame(rf.predict_proba(wine["Xte"]), wine["yte"]).to_csv(d / "test.csv", index=False)
    return d


@pytest.mark.slow
def test_command_line_report_and_predict(forest_csvs, tmp_path, capsys) -> None:
    from evstat.cli import main

    d = forest_csvs
    out = tmp_path / "r.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main(["report", "y ~ p_0 + p_1 + p_2", "--data", str(d / "cal.csv"), "--newdata", str(d / "test.csv"),
                       "--method", "temperature", "dirichlet", "--grid", "5", "-o", str(out)])
    assert status == 0
    html = out.read_text(encoding="utf-8")
    assert "rows had exact 0 or 1 probabilities; clipped at eps = 0.005" in html
    cal = pd.read_csv(d / "cal.csv")
    fit = _quiet(ev.temperature, "y ~ p_0 + p_1 + p_2", cal)
    fit.save(tmp_path / "t.json")
    assert main(["predict", str(tmp_path / "t.json"), "--data", str(d / "test.csv"), "-o", str(tmp_path / "p.csv"),
                 "--jobs", "1"]) == 0
    got = pd.read_csv(tmp_path / "p.csv")
    want = fit.predict(pd.read_csv(d / "test.csv")[COLS], type="prob").to_numpy()
    np.testing.assert_allclose(got.to_numpy(dtype=float)[:, -3:], want, rtol=1e-9)


def test_command_line_skips_a_default_model_it_cannot_feed(forest_csvs, tmp_path, monkeypatch, capsys) -> None:
    import evstat.cli as cli

    d = forest_csvs
    cal = pd.read_csv(d / "cal.csv")
    cal.assign(r1=np.log((cal.p_1 + 0.01) / (cal.p_0 + 0.01)), r2=np.log((cal.p_2 + 0.01) / (cal.p_0 + 0.01))) \
       .to_csv(tmp_path / "ratios.csv", index=False)
    monkeypatch.setitem(cli.DEFAULT_METHODS, 3, ("evmultinom", "ecoc"))
    out = tmp_path / "r.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cli.main(["report", "y ~ r1 + r2", "--data", str(tmp_path / "ratios.csv"), "--grid", "5",
                         "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "--method ecoc skipped (a default model, not asked for): ecoc cannot read the score columns" in html
    # asked for by name: an error, with why
    assert cli.main(["report", "y ~ r1 + r2", "--data", str(tmp_path / "ratios.csv"), "--method", "ecoc",
                     "-o", str(tmp_path / "e.html")]) == 2
    assert "error: ecoc cannot read the score columns ['r1', 'r2']" in capsys.readouterr().err


def test_a_fit_saved_before_the_rule_refuses_zeros_as_it_did(wine) -> None:
    P = wine["models"]["forest"].predict_proba(wine["Xcal"])
    ok = ~(P == 0).any(axis=1)
    fit = _quiet(ev.temperature, "y ~ p_0 + p_1 + p_2", _frame(P[ok], wine["ycal"][ok]))
    d = fit.to_dict()
    d.pop("log_eps")  # as evstat before issue 37 wrote it
    d.pop("checksum", None)
    old = ev.results.from_dict(d)
    assert old.log_eps is None
    with pytest.raises(ValueError, match=r"saved by an older evstat, which had no rule for exact zeros.*refit it"):
        old.predict(_frame(P[~ok][:3]))


def test_the_rule_keeps_rows_on_the_simplex_and_the_order_of_entries() -> None:
    from evstat.multiclass.simplex import clip_log_eps, clip_rule

    rng = np.random.default_rng(5)
    P = rng.dirichlet([0.3, 0.3, 0.3, 0.3], size=200)
    P[rng.random(P.shape) < 0.2] = 0.0
    P[P.sum(axis=1) == 0, 0] = 1.0
    P /= P.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore"):
        L = np.log(P)
    le = clip_log_eps(P, "probabilities")
    Q = np.exp(clip_rule(L, le))
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, rtol=1e-12)
    assert (Q > 0).all()
    for i in range(P.shape[0]):  # within a row, the order of the entries is kept (ties stay ties)
        a, b = P[i][:, None], P[i][None, :]
        qa, qb = Q[i][:, None], Q[i][None, :]
        assert not ((a < b) & ~(qa < qb)).any()
    untouched = (P > 0).all(axis=1)
    np.testing.assert_array_equal(Q[untouched], np.exp(L[untouched]))


def test_minus_infinite_log_probabilities_get_the_fix(wine) -> None:
    P = wine["models"]["forest"].predict_proba(wine["Xcal"])
    with np.errstate(divide="ignore"):
        L = np.log(P)
    with pytest.raises(ValueError, match=r"has infinite values.*looks like log-probabilities with -inf for an exact 0.*"
                                         r"give the probabilities"):
        ev.temperature("y ~ p_0 + p_1 + p_2", _frame(L, wine["ycal"]))
