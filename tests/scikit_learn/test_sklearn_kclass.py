"""evstat.sklearn with K classes (issue 25, item 5): the methods come from the registry,
``"sigmoid"`` is evlogit / evmultinom, the calibrators equal direct evstat fits on the scores,
``predict_belief`` bounds ``predict_proba`` class by class, decisions with reject, and
CalibrationDisplay in the two-class case."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import log_softmax

import evstat as ev
from evstat.belief import decide_bounds

LABELS = np.array(["setosa", "versicolor", "virginica"])


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(150)
    X, y = X[idx][:, :2], LABELS[y[idx]]  # two features: the classes overlap
    base = LogisticRegression(max_iter=500).fit(X[:60], y[:60])
    return base, X[60:120], y[60:120], X[120:]


def test_methods_are_the_registry() -> None:
    from evstat.sklearn import methods

    assert methods(3) == ("sigmoid", *ev.results.fitters(n_classes=3))
    assert methods(2) == ("sigmoid", *ev.results.fitters(n_classes=2))
    assert "evlogit" in methods(2) and "evlogit" not in methods(3)


def test_sigmoid_is_evmultinom_on_the_k_minus_1_logits(iris) -> None:
    from evstat.sklearn import EvidentialCalibratedClassifierCV

    base, Xc, yc, Xt = iris
    clf = EvidentialCalibratedClassifierCV(base, cv="prefit").fit(Xc, yc)
    assert clf.method_ == "evmultinom" and clf.classes_.tolist() == LABELS.tolist()
    Z = base.decision_function(Xc)  # symmetric multinomial logits: rows sum to 0, so K - 1 columns
    np.testing.assert_allclose(Z.sum(axis=1), 0, atol=1e-9)
    codes = pd.Categorical(yc, categories=LABELS).codes
    fit = ev.evmultinom("y ~ s_0 + s_1", pd.DataFrame({"s_0": Z[:, 0], "s_1": Z[:, 1], "y": codes}))
    Zt = base.decision_function(Xt)
    b = fit.predict(pd.DataFrame({"s_0": Zt[:, 0], "s_1": Zt[:, 1]}), type="belief")
    lower, upper = clf.predict_belief(Xt)
    np.testing.assert_allclose(clf.predict_proba(Xt), b["theta"].to_numpy(), atol=1e-12)
    np.testing.assert_allclose(lower, b["bel"].to_numpy(), atol=1e-12)
    np.testing.assert_allclose(upper, b["pl"].to_numpy(), atol=1e-12)
    assert lower.shape == (len(Xt), 3)
    assert np.all(lower <= clf.predict_proba(Xt) + 1e-12) and np.all(clf.predict_proba(Xt) <= upper + 1e-12)
    assert np.any(upper - lower > 0.01)  # evidential: the bounds are not the probabilities


def test_temperature_on_log_softmax_and_dirichlet_on_probabilities(iris) -> None:
    from evstat.sklearn import EvidentialCalibratedClassifierCV

    base, Xc, yc, Xt = iris
    codes = pd.Categorical(yc, categories=LABELS).codes
    cols = ["s_0", "s_1", "s_2"]
    temp = EvidentialCalibratedClassifierCV(base, method="temperature", cv="prefit").fit(Xc, yc)
    L = log_softmax(base.decision_function(Xc), axis=1)
    ref = ev.temperature("y ~ s_0 + s_1 + s_2", pd.DataFrame(L, columns=cols).assign(y=codes))
    assert temp.calibrated_classifiers_[0].calibrator.temperature == pytest.approx(ref.temperature, rel=1e-10)
    diri = EvidentialCalibratedClassifierCV(base, method="dirichlet", cv="prefit").fit(Xc, yc)
    ref = ev.dirichlet("y ~ s_0 + s_1 + s_2", pd.DataFrame(base.predict_proba(Xc), columns=cols).assign(y=codes))
    np.testing.assert_allclose(diri.predict_proba(Xt), ref.predict(pd.DataFrame(base.predict_proba(Xt), columns=cols)),
                               atol=1e-12)


def test_ensemble_averages_k_class_members_and_decides_with_reject(iris) -> None:
    from sklearn.svm import LinearSVC

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    _, Xc, yc, Xt = iris
    clf = EvidentialCalibratedClassifierCV(LinearSVC(), method="eknn", cv=3, reject_label="?").fit(Xc, yc)
    members = [p.calibrator.predict(p._frame(Xt), type="belief") for p in clf.calibrated_classifiers_]
    lower, upper = clf.predict_belief(Xt)
    np.testing.assert_allclose(lower, np.mean([m["bel"].to_numpy() for m in members], axis=0), atol=1e-14)
    np.testing.assert_allclose(upper, np.mean([m["pl"].to_numpy() for m in members], axis=0), atol=1e-14)
    p = clf.predict_proba(Xt)
    np.testing.assert_array_equal(clf.predict(Xt), LABELS[np.argmax(p, axis=1)])
    got = clf.predict(Xt, reject_cost=0.3, strategy="pessimistic")
    # by hand: decide the class of largest lower probability unless 1 - that exceeds 0.3
    best = np.argmax(lower, axis=1)
    expect = np.where(1 - lower.max(axis=1) > 0.3, "?", LABELS[best])
    assert got.tolist() == expect.tolist()
    assert "?" in set(got)


def test_k_class_errors_name_the_choices(iris) -> None:
    from evstat.sklearn import EvidentialCalibratedClassifierCV

    base, Xc, yc, _ = iris
    with pytest.raises(ValueError, match=r"Only binary classification is supported by method 'isotonic' \(it calibrates two classes\), but y has 3: use one of \('sigmoid'"):
        EvidentialCalibratedClassifierCV(base, method="isotonic", cv="prefit").fit(Xc, yc)
    with pytest.raises(ValueError, match=r"method must be one of \('sigmoid', .*'evmultinom'.*got 'softmax'"):
        EvidentialCalibratedClassifierCV(base, method="softmax", cv="prefit").fit(Xc, yc)


def test_calibration_display_two_classes() -> None:
    from sklearn.datasets import make_classification
    from sklearn.naive_bayes import GaussianNB

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    import matplotlib

    matplotlib.use("Agg")
    from sklearn.calibration import CalibrationDisplay

    X, y = make_classification(300, n_features=5, random_state=0)
    clf = EvidentialCalibratedClassifierCV(GaussianNB(), cv=3).fit(X[:200], y[:200])
    assert clf.method_ == "evlogit"
    disp = CalibrationDisplay.from_estimator(clf, X[200:], y[200:], n_bins=5)
    assert disp.prob_pred.shape == disp.prob_true.shape and len(disp.prob_pred) >= 2
    np.testing.assert_allclose(disp.y_prob, clf.predict_proba(X[200:])[:, 1])
