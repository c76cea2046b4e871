"""evstat.sklearn: the scikit-learn estimator against direct evstat fits, scikit-learn's own
estimator checks, Pipeline / GridSearchCV / clone, the scorers and bad input."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pandas as pd
import pytest

import estimator_check_ids
import evstat as ev
from evstat.metrics import decide_binary, decision_metrics


@pytest.mark.parametrize("check_id", estimator_check_ids.check_ids())
def test_sklearn_estimator_checks(check_id, request):
    """scikit-learn's checks (``parametrize_with_checks``), built when the first one runs
    (estimator_check_ids.py: not at collection)."""
    found = estimator_check_ids.checks().get(check_id)
    assert found is not None, (f"scikit-learn generates no check {check_id!r}: regenerate the list with "
                               "python tests/scikit_learn/estimator_check_ids.py")
    estimator, check, marks = found
    for mark in marks:  # expected failures (NOT_APPLICABLE), as parametrize_with_checks marks them
        request.applymarker(mark)
    check(estimator)


def test_check_ids_are_scikit_learns():
    """The recorded ids are exactly those that scikit-learn generates for the estimators, in order
    (so that no check is missed or stale), and there are checks of all four estimators."""
    generated = list(estimator_check_ids.checks())
    recorded = estimator_check_ids.check_ids()
    assert recorded == generated, (
        f"missing {sorted(set(generated) - set(recorded))[:5]}, stale {sorted(set(recorded) - set(generated))[:5]}; "
        "regenerate with python tests/scikit_learn/estimator_check_ids.py")
    names = {k.split(")-", 1)[0] + ")" for k in recorded}
    assert len(names) == 4 and len(recorded) > 4 * 40


@pytest.fixture(scope="module")
def data():
    from sklearn.datasets import make_classification

    X, y = make_classification(340, n_features=6, n_informative=3, random_state=3)
    return X[:300], y[:300], X[300:], y[300:]


def test_prefit_equals_direct_evlogit_on_the_scores(data):
    from sklearn.frozen import FrozenEstimator
    from sklearn.linear_model import LogisticRegression

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    X, y, Xt, _ = data
    base = LogisticRegression().fit(X[:150], y[:150])
    clf = EvidentialCalibratedClassifierCV(base, cv="prefit").fit(X[150:], y[150:])
    cal = pd.DataFrame({"s": base.decision_function(X[150:]), "y": y[150:]})
    fit = ev.evlogit("y ~ s", data=cal)
    b = fit.predict(pd.DataFrame({"s": base.decision_function(Xt)}), type="belief")
    lower, upper = clf.predict_belief(Xt)
    np.testing.assert_allclose(clf.predict_proba(Xt)[:, 1], b.theta, rtol=0, atol=1e-14)
    np.testing.assert_allclose(lower[:, 1], b.bel, rtol=0, atol=1e-14)
    np.testing.assert_allclose(upper[:, 1], b.pl, rtol=0, atol=1e-14)
    np.testing.assert_allclose(lower[:, 0], 1 - b.pl, rtol=0, atol=1e-14)
    np.testing.assert_allclose(upper[:, 0], 1 - b.bel, rtol=0, atol=1e-14)
    np.testing.assert_array_equal(clf.decision_function(Xt), base.decision_function(Xt))
    pd.testing.assert_series_equal(clf.calibrated_classifiers_[0].calibrator.params,  # named after the method
                                   fit.params.rename({"s": "decision_function"}))
    # a FrozenEstimator means prefit too
    frozen = EvidentialCalibratedClassifierCV(FrozenEstimator(base)).fit(X[150:], y[150:])
    np.testing.assert_array_equal(frozen.predict_proba(Xt), clf.predict_proba(Xt))


@pytest.mark.slow
def test_ensemble_averages_the_members_masses(data):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    X, y, Xt, _ = data
    clf = EvidentialCalibratedClassifierCV(LogisticRegression(), cv=4).fit(X, y)
    assert len(clf.calibrated_classifiers_) == 4
    members = []
    for train, test in StratifiedKFold(4).split(X, y):
        est = LogisticRegression().fit(X[train], y[train])
        fit = ev.evlogit("y ~ s", data=pd.DataFrame({"s": est.decision_function(X[test]), "y": y[test]}))
        members.append(fit.predict(pd.DataFrame({"s": est.decision_function(Xt)}), type="belief").to_numpy())
    mean = np.mean(members, axis=0)
    lower, upper = clf.predict_belief(Xt)
    np.testing.assert_allclose(clf.predict_proba(Xt)[:, 1], mean[:, 0], atol=1e-12)
    np.testing.assert_allclose(lower[:, 1], mean[:, 1], atol=1e-12)
    np.testing.assert_allclose(upper[:, 1], mean[:, 2], atol=1e-12)
    assert np.all(lower <= clf.predict_proba(Xt) + 1e-15)
    assert np.all(clf.predict_proba(Xt) <= upper + 1e-15)
    np.testing.assert_allclose(clf.predict_proba(Xt).sum(axis=1), 1.0)
    np.testing.assert_allclose(upper[:, 0] - lower[:, 0], upper[:, 1] - lower[:, 1], atol=1e-15)
    dfs = [p.estimator.decision_function(Xt) for p in clf.calibrated_classifiers_]
    np.testing.assert_allclose(clf.decision_function(Xt), np.mean(dfs, axis=0))


def test_no_ensemble_calibrates_the_out_of_fold_scores(data):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    X, y, Xt, _ = data
    clf = EvidentialCalibratedClassifierCV(LogisticRegression(), cv=3, ensemble=False).fit(X, y)
    cv = StratifiedKFold(3)
    oof = cross_val_predict(LogisticRegression(), X, y, cv=cv, method="decision_function")
    fit = ev.evlogit("y ~ s", data=pd.DataFrame({"s": oof, "y": y}))
    pd.testing.assert_series_equal(clf.calibrated_classifiers_[0].calibrator.params,  # named after the method
                                   fit.params.rename({"s": "decision_function"}))
    full = LogisticRegression().fit(X, y)
    expect = fit.predict(pd.DataFrame({"s": full.decision_function(Xt)}), type="prob")
    np.testing.assert_allclose(clf.predict_proba(Xt)[:, 1], expect, atol=1e-14)


@pytest.mark.slow
def test_predict_with_and_without_reject_and_string_labels(data):
    from sklearn.linear_model import LogisticRegression

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    X, y, Xt, _ = data
    labels = np.where(y == 1, "spam", "ham")
    clf = EvidentialCalibratedClassifierCV(LogisticRegression(), cv=3, reject_label="?").fit(X, labels)
    assert clf.classes_.tolist() == ["ham", "spam"]
    proba = clf.predict_proba(Xt)
    np.testing.assert_array_equal(clf.predict(Xt), clf.classes_[(proba[:, 1] > 0.5).astype(int)])
    lower, upper = clf.predict_belief(Xt)
    for strategy in ("pessimistic", "optimistic", "probabilistic"):
        got = clf.predict(Xt, reject_cost=0.2, strategy=strategy)
        codes = decide_binary(lower[:, 1], upper[:, 1], strategy, reject_cost=0.2, p=proba[:, 1])
        expect = np.array(["?" if c == "reject" else clf.classes_[c] for c in codes], dtype=object)
        np.testing.assert_array_equal(got, expect)
    assert "?" in set(clf.predict(Xt, reject_cost=0.2))
    # a rejected row is one whose upper expected costs both exceed the reject cost
    rej = clf.predict(Xt, reject_cost=0.2) == "?"
    assert np.all(np.minimum(1 - lower[rej, 1], upper[rej, 1]) > 0.2)


@pytest.mark.slow
def test_pipeline_gridsearch_clone_and_scorers(data):
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from evstat.sklearn import EvidentialCalibratedClassifierCV, evidential_scorer

    X, y, Xt, yt = data
    pipe = make_pipeline(StandardScaler(), EvidentialCalibratedClassifierCV(LogisticRegression(), cv=3))
    grid = GridSearchCV(
        pipe,
        {"evidentialcalibratedclassifiercv__estimator__C": [0.01, 1.0]},
        scoring=evidential_scorer("error_rate", reject_cost=0.1),
        cv=2,
    ).fit(X[:120], y[:120])
    assert grid.best_params_["evidentialcalibratedclassifiercv__estimator__C"] in (0.01, 1.0)
    assert np.all(grid.cv_results_["mean_test_score"] <= 0)
    fitted = grid.best_estimator_
    # the scorers equal the metrics computed by hand
    lower, upper = fitted[-1].predict_belief(fitted[:-1].transform(Xt))
    p = fitted.predict_proba(Xt)[:, 1]
    m = decision_metrics(yt, decide_binary(lower[:, 1], upper[:, 1], "pessimistic", 0.1, p=p))
    assert evidential_scorer("error_rate", 0.1)(fitted, Xt, yt) == -m["error_rate"]
    assert evidential_scorer("accuracy", 0.1)(fitted, Xt, yt) == m["accuracy"]
    assert evidential_scorer("reject_rate", 0.1)(fitted, Xt, yt) == -m["reject_rate"]
    assert evidential_scorer("accuracy", 0.1)(grid, Xt, yt) == evidential_scorer("accuracy", 0.1)(fitted, Xt, yt)
    fitted = fitted.steps[-1][1]
    Xt = grid.best_estimator_[:-1].transform(Xt)
    assert evidential_scorer("mean_ignorance")(fitted, Xt, yt) == pytest.approx(-np.mean(upper[:, 1] - lower[:, 1]))
    # clone gives an unfitted estimator with equal parameters
    est = fitted
    c = clone(est)
    assert not hasattr(c, "calibrated_classifiers_")
    assert c.get_params(deep=False).keys() == est.get_params(deep=False).keys()
    assert repr(evidential_scorer("accuracy", 0.1)).startswith("evidential_scorer('accuracy'")


def test_fitted_estimator_copies_through_the_json_description(data):
    from sklearn.linear_model import LogisticRegression

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    X, y, Xt, _ = data
    clf = EvidentialCalibratedClassifierCV(LogisticRegression(), cv=3).fit(X, y)
    for other in (pickle.loads(pickle.dumps(clf)), copy.deepcopy(clf)):
        np.testing.assert_array_equal(other.predict_belief(Xt), clf.predict_belief(Xt))
    cal = clf.calibrated_classifiers_[0].calibrator
    assert cal.__reduce__()[1][0] == cal.to_dict()


def test_isotonic_method(data):
    from sklearn.linear_model import LogisticRegression

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    X, y, Xt, _ = data
    base = LogisticRegression().fit(X[:150], y[:150])
    clf = EvidentialCalibratedClassifierCV(base, method="isotonic", cv="prefit").fit(X[150:], y[150:])
    fit = ev.isotonic("y ~ s", data=pd.DataFrame({"s": base.decision_function(X[150:]), "y": y[150:]}))
    b = fit.predict(pd.DataFrame({"s": base.decision_function(Xt)}), type="belief")
    lower, upper = clf.predict_belief(Xt)
    np.testing.assert_allclose(lower[:, 1], b.bel, atol=1e-14)
    np.testing.assert_allclose(upper[:, 1], b.pl, atol=1e-14)


def test_estimator_without_decision_function_uses_predict_proba(data):
    from sklearn.naive_bayes import GaussianNB

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    X, y, Xt, _ = data
    clf = EvidentialCalibratedClassifierCV(GaussianNB(), cv="prefit")
    assert not hasattr(clf, "decision_function")
    base = GaussianNB().fit(X[:150], y[:150])
    clf = EvidentialCalibratedClassifierCV(base, cv="prefit").fit(X[150:], y[150:])
    fit = ev.evlogit("y ~ s", data=pd.DataFrame({"s": base.predict_proba(X[150:])[:, 1], "y": y[150:]}))
    np.testing.assert_allclose(
        clf.predict_proba(Xt)[:, 1], fit.predict(pd.DataFrame({"s": base.predict_proba(Xt)[:, 1]})), atol=1e-14
    )


def test_bad_input_messages(data):
    from sklearn.linear_model import LogisticRegression

    from evstat.sklearn import EvidentialCalibratedClassifierCV, evidential_scorer

    X, y, _, _ = data
    with pytest.raises(ValueError, match=r"Only binary classification is supported by method 'evlogit' \(it calibrates two classes\), but y has 3: use one of \('sigmoid', "):
        EvidentialCalibratedClassifierCV(LogisticRegression(), method="evlogit").fit(X, y + (np.arange(len(y)) % 3 == 0))
    with pytest.raises(ValueError, match=r"method must be one of \('sigmoid', 'avcal', 'bayescal', .*got 'platt'"):
        EvidentialCalibratedClassifierCV(LogisticRegression(), method="platt").fit(X, y)
    yy = y.copy()
    yy[:] = 0
    yy[:2] = 1
    with pytest.raises(ValueError, match="cv=5 folds need at least 5 rows of each class, but class 1 has 2"):
        EvidentialCalibratedClassifierCV(LogisticRegression()).fit(X, yy)
    with pytest.raises(ValueError, match="only one class"):
        EvidentialCalibratedClassifierCV(LogisticRegression()).fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="cv must be an int"):
        EvidentialCalibratedClassifierCV(LogisticRegression(), cv="prefitted").fit(X, y)
    with pytest.raises(ValueError, match="metric must be one of"):
        evidential_scorer("brier")
    with pytest.raises(ValueError, match=r"reject_cost must lie in \[0, 1\]"):
        evidential_scorer("accuracy", reject_cost=2)
    clf = EvidentialCalibratedClassifierCV(LogisticRegression(), cv=3).fit(X, y)
    with pytest.raises(ValueError, match=r"labels \[7\] that are not in classes_"):
        evidential_scorer("accuracy", 0.1)(clf, X[:3], [0, 1, 7])
    with pytest.raises(TypeError, match="need an estimator with predict_belief"):
        evidential_scorer("accuracy", 0.1)(LogisticRegression().fit(X, y), X[:3], y[:3])


def test_docstring_examples(doctests):
    import evstat.sklearn as evsk

    doctests(evsk)
