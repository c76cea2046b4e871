"""Internal composition goes through arrays, not formula strings (issue 24, item 1).

Formulas are the user-facing edge: ecoc and disjoint parse the user's formula once (patsy
evaluates it once on the training data and once per prediction on new data) and fit and
predict their per-task or per-column models from arrays; the scikit-learn wrapper and active
learning's refit of a fit of plain score columns never parse a formula. The counters below wrap
every formula entry of evstat.formula (the split on ``~``, patsy's evaluation and its new-data
transform); before the change, ecoc parsed one formula per task at fitting and ran patsy per task at
every prediction, and the wrapper built ``"y ~ s_0 + s_1 + ..."`` for every calibrator (the columns are now
named after the classifier's method, ``decision_function_0``, ...).
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import evstat as ev
import evstat.formula.design as design
import evstat.formula.frame as frame

from contract_data import contract_data


@pytest.fixture()
def parses(monkeypatch):
    """Counts of formula splits (``split_formula``), patsy design evaluations (``_design``) and
    new-data transforms through patsy (``_build_X``)."""
    count: Counter = Counter()
    for mod, name in [(frame, "split_formula"), (frame, "_design"), (frame, "_build_X"),
                      (design, "_design"), (design, "_build_X")]:
        original = getattr(mod, name)

        def counted(*args, _original=original, _name=name, **kwargs):
            count[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(mod, name, counted)
    return count


@pytest.fixture(scope="module")
def train() -> pd.DataFrame:
    return contract_data(120, 5)


@pytest.fixture(scope="module")
def new() -> pd.DataFrame:
    return contract_data(15, 6)


def test_ecoc_parses_the_users_formula_once(train, new, parses):
    fit = ev.ecoc("y3 ~ s1 + s2", train, code=pd.DataFrame([[1, -1], [-1, 1], [1, 1]], index=["hi", "lo", "mid"],
                                                           columns=["s1", "s2"]))
    assert parses == {"split_formula": 2, "_design": 1}  # the user's formula, once (split twice by _evaluate)
    parses.clear()
    fit.predict(new, type="belief")
    # the user's design of plain score columns is stacked without patsy (issue 36 item 6);
    # the task models read arrays
    assert parses == {}
    parses.clear()
    fit.predict(new[["s1", "s2"]].to_numpy(), type="prob")
    assert parses == {}


def test_disjoint_parses_the_users_formula_once(train, new, parses):
    fit = ev.disjoint("y2 ~ s1 + np.log(s2)", train)
    assert parses == {"split_formula": 2, "_design": 1}
    assert list(fit.calibrators) == ["s1", "np.log(s2)"]
    assert fit.calibrators["np.log(s2)"].formula == "y2 ~ Q('np.log(s2)')"
    parses.clear()
    fit.predict(new, type="belief")
    assert parses == {"_build_X": 1}


def test_disjoint_outputs_unchanged_by_the_array_path(train, new):
    """The per-column calibrators equal the formula fits they replace (saved description, predictions)."""
    fit = ev.disjoint("y2 ~ s1 + np.log(s2)", train)
    by_formula = ev.evlogit("y2 ~ Q('np.log(s2)')", pd.DataFrame({"y2": train["y2"], "np.log(s2)": np.log(train["s2"])}))
    sub = fit.calibrators["np.log(s2)"]
    assert json.dumps(sub.to_dict(), sort_keys=True) == json.dumps(by_formula.to_dict(), sort_keys=True)
    back = ev.results.from_dict(fit.to_dict())
    pd.testing.assert_frame_equal(back.predict(new, type="belief"), fit.predict(new, type="belief"))


@pytest.mark.parametrize("method", ["evlogit", "isotonic", "eknn"])
def test_sklearn_wrapper_parses_no_formula(method, parses):
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    X, y = make_classification(200, n_features=4, random_state=1)
    clf = EvidentialCalibratedClassifierCV(LogisticRegression(), method=method, cv=2).fit(X, y)
    clf.predict_proba(X[:7])
    clf.predict(X[:7], reject_cost=0.2)
    clf.predict_belief(X[:7])
    assert parses == {}
    # the score column is named after the classifier's method (issue 37 item 2)
    assert clf.calibrated_classifiers_[0].calibrator.formula == "y ~ decision_function"


def test_sklearn_wrapper_k_classes_parses_no_formula(parses):
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    X, y = make_classification(240, n_features=5, n_informative=3, n_redundant=0, n_classes=3, random_state=2)
    for method in ("temperature", "ecoc"):
        clf = EvidentialCalibratedClassifierCV(LogisticRegression(max_iter=500), method=method, cv="prefit")
        clf.estimator.fit(X[:120], y[:120])
        clf.fit(X[120:], y[120:])
        clf.predict_proba(X[:9])
        clf.predict(X[:9], reject_cost=0.3)
        assert parses == {}, method
        cols = " + ".join(f"decision_function_{k}" for k in range(3))
        assert clf.calibrated_classifiers_[0].calibrator.formula == f"y ~ {cols} - 1"  # their own intercepts


def test_active_update_refits_plain_formulas_from_arrays(parses):
    d = ev.datasets.simulate_gaussian(60, seed=7)
    fit = ev.evlogit("y ~ x1 + x2", d.iloc[:40])
    parses.clear()
    grown = ev.active.update(fit, d.iloc[40:])
    assert parses == {}  # the grown rows went to the refit as arrays
    ref = ev.evlogit("y ~ x1 + x2", d)
    assert json.dumps(grown.to_dict(), sort_keys=True) == json.dumps(ref.to_dict(), sort_keys=True)
    # a formula with a transform is its only description: that refit parses it, as before
    fit_log = ev.evlogit("y ~ x1 + np.exp(x2)", d.iloc[:40])
    parses.clear()
    grown = ev.active.update(fit_log, d.iloc[40:])
    assert parses["_design"] == 1
    assert grown.formula == "y ~ x1 + np.exp(x2)"


def test_refit_takes_arrays_of_its_own_formula():
    from evstat.formula.arrays import ArrayData

    d = ev.datasets.simulate_gaussian(50, seed=8)
    fit = ev.isotonic("y ~ x1", d.iloc[:30])
    grown = fit.refit(ArrayData(d[["x1"]], d["y"]))
    assert grown.nobs == 50 and grown.formula == "y ~ x1"
    with pytest.raises(ValueError, match=r"arrays give the formula 'y ~ x1 \+ x2' \(or with ' - 1'\), but the fitter asked for 'y ~ x1'"):
        fit.refit(ArrayData(d[["x1", "x2"]], d["y"]))
    with pytest.raises(TypeError, match="data must be a pandas DataFrame, got ndarray"):
        fit.refit(d[["x1"]].to_numpy())
