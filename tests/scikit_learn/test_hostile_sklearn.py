"""Hostile inputs to the scikit-learn estimator: a base estimator that fails on extreme X."""

from __future__ import annotations

import warnings

import numpy as np
import pytest


@pytest.mark.parametrize("ensemble", [True, False])
def test_constant_held_out_scores_name_the_base_estimator(ensemble):
    """LogisticRegression on X of 1e300 returns decision values of 0: the calibrator used to
    report "design column 's' is constant", a column the user never named."""
    from sklearn.linear_model import LogisticRegression

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    g = np.random.default_rng(0)
    X = g.normal(size=(80, 2))
    y = (X[:, 0] + g.normal(size=80) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's ConvergenceWarning on such X
        with pytest.raises(ValueError, match=r"the held-out scores of LogisticRegression \(decision_function\) are constant \(all \d+ rows "
                                             r"equal 0\): the base estimator learned nothing"):
            EvidentialCalibratedClassifierCV(LogisticRegression(), ensemble=ensemble).fit(X * 1e300, y)
    clf = EvidentialCalibratedClassifierCV(LogisticRegression(), ensemble=ensemble).fit(X, y)
    p = clf.predict_proba(np.array([[1e300, 0.0], [-1e300, 0.0]]))  # extreme test rows: the limits
    np.testing.assert_array_equal(p, [[0.0, 1.0], [1.0, 0.0]])
