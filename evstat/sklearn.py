"""scikit-learn estimators and scorers around evstat's calibrators.

:class:`EvidentialCalibratedClassifierCV` mirrors scikit-learn's
:class:`sklearn.calibration.CalibratedClassifierCV`: the wrapped classifier's scores
(``decision_function``, else ``predict_proba`` of the positive class) are calibrated by an evstat
calibrator (``"evlogit"``, the evidential counterpart of ``method="sigmoid"``, or ``"isotonic"``),
with cross-validation (``cv=k``) or on data the classifier was not trained on (``cv="prefit"``).
Besides ``predict_proba`` it gives ``predict_belief(X)``, the lower and upper probabilities
(Bel, Pl) of every class, and ``predict(X, reject_cost=...)``, which may answer ``reject_label``.

Ensembles (``cv=k, ensemble=True``): each of the k (classifier, calibrator) pairs gives a mass
function per row; the ensemble's is their average (a mixture of belief functions, again a belief
function: Bel and Pl are the averages of the members' Bel and Pl), exactly as
CalibratedClassifierCV averages the members' probabilities. ``decision_function`` is the average
of the members' decision functions.

The module also makes scorers of the evidential metrics (:func:`evidential_scorer`) usable as
``scoring=`` in ``GridSearchCV`` / ``cross_val_score``.

Multi-class problems are refused with a clear error until evstat has multi-class calibrators.

Examples
--------
>>> from sklearn.datasets import make_classification
>>> from sklearn.linear_model import LogisticRegression
>>> from evstat.sklearn import EvidentialCalibratedClassifierCV
>>> X, y = make_classification(300, n_features=5, random_state=0)
>>> clf = EvidentialCalibratedClassifierCV(LogisticRegression(), cv=3).fit(X, y)
>>> lower, upper = clf.predict_belief(X[:2])
>>> bool(((lower <= clf.predict_proba(X[:2])) & (clf.predict_proba(X[:2]) <= upper)).all())
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import check_cv, cross_val_predict
from sklearn.preprocessing import LabelEncoder
from sklearn.svm import LinearSVC
from sklearn.utils import indexable
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _num_samples, check_is_fitted, column_or_1d

from evstat.calibration import evlogit, isotonic
from evstat.metrics import decide_binary, decision_metrics

__all__ = ["EvidentialCalibratedClassifierCV", "evidential_scorer", "SCORERS"]

#: calibrators usable as ``method``: one score column ``s``, response ``y`` coded 0/1
METHODS: dict[str, Callable[..., Any]] = {"evlogit": evlogit, "isotonic": isotonic}
_FORMULA = "y ~ s"


def _scores(estimator: Any, X: Any) -> NDArray[np.float64]:
    """The binary classifier's score of the positive class, as CalibratedClassifierCV uses it."""
    if hasattr(estimator, "decision_function"):
        s = np.asarray(estimator.decision_function(X), dtype=float)
    elif hasattr(estimator, "predict_proba"):
        s = np.asarray(estimator.predict_proba(X), dtype=float)[:, 1]
    else:
        raise TypeError(
            f"{type(estimator).__name__} has neither decision_function nor predict_proba; "
            "EvidentialCalibratedClassifierCV needs one of them to get scores to calibrate"
        )
    return s.reshape(-1) if s.ndim == 2 and s.shape[1] == 1 else s


class _Pair:
    """One fitted (classifier, calibrator) pair; the calibrator is an evstat results object."""

    def __init__(self, estimator: Any, calibrator: Any) -> None:
        self.estimator = estimator
        self.calibrator = calibrator

    def belief(self, X: Any) -> NDArray[np.float64]:
        """Array (n, 3) of theta_hat, Bel({1}), Pl({1})."""
        frame = pd.DataFrame({"s": _scores(self.estimator, X)})
        return self.calibrator.predict(frame, type="belief").to_numpy(dtype=float)

    def prob(self, X: Any) -> NDArray[np.float64]:
        """theta_hat (n,): cheaper than the belief, which needs the predictive profile."""
        frame = pd.DataFrame({"s": _scores(self.estimator, X)})
        return self.calibrator.predict(frame, type="prob").to_numpy(dtype=float)


class EvidentialCalibratedClassifierCV(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Evidential calibration of a scikit-learn classifier, like ``CalibratedClassifierCV``.

    Parameters
    ----------
    estimator : classifier, default LinearSVC()
        Its ``decision_function`` (else ``predict_proba[:, 1]``) is calibrated.
    method : {"evlogit", "isotonic"}, default "evlogit"
        The evstat calibrator: evidential logistic calibration on Platt's targets (the
        evidential ``"sigmoid"``) or isotonic calibration with evidential blocks.
    cv : int, cross-validation generator, iterable or "prefit", default 5
        ``k``: stratified k-fold; each fold's classifier is trained on the other folds and its
        calibrator on the fold. ``"prefit"`` (or a ``sklearn.frozen.FrozenEstimator``): the
        classifier is already fitted and all of ``X, y`` calibrates it.
    ensemble : bool, default True
        With ``cv=k``: keep the k pairs and average their predictions (see the module
        docstring); False: one calibrator on the out-of-fold scores of all rows, the classifier
        refitted on all rows.
    reject_label : object, default "reject"
        What ``predict(X, reject_cost=...)`` answers for a rejected row.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The class labels; the second is the positive class of the calibrators.
    calibrated_classifiers_ : list
        The fitted (classifier, calibrator) pairs; ``.calibrator`` is an evstat results object
        (``summary()``, ``params``, ``conf_int()``, ...).
    n_features_in_ : int
        Number of features seen by the classifier, when it records it.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = make_classification(300, n_features=5, random_state=0)
    >>> clf = EvidentialCalibratedClassifierCV(LogisticRegression(), cv=3).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    >>> clf.predict(X[:6], reject_cost=0.1).tolist()
    ['reject', 1, 'reject', 'reject', 0, 0]
    """

    def __init__(
        self,
        estimator: Any = None,
        method: str = "evlogit",
        cv: Any = 5,
        ensemble: bool = True,
        reject_label: Any = "reject",
    ) -> None:
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.ensemble = ensemble
        self.reject_label = reject_label

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        est = LinearSVC() if self.estimator is None else self.estimator
        tags.input_tags.sparse = est.__sklearn_tags__().input_tags.sparse
        return tags

    # ------------------------------------------------------------------ fitting
    def _calibrate(self, s: NDArray, y01: NDArray) -> Any:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {tuple(METHODS)}, got {self.method!r}")
        who = type(self.estimator if self.estimator is not None else LinearSVC()).__name__
        s = np.asarray(s, dtype=float)
        bad = ~np.isfinite(s)
        if bad.any():
            raise ValueError(
                f"the held-out scores of {who} are NaN or infinite in {int(bad.sum())} of {s.size} "
                f"rows (first at row {int(np.flatnonzero(bad)[0])}): the base estimator failed on "
                "these inputs (scale X, or check it for extreme values); nothing to calibrate"
            )
        if s.size and np.all(s == s[0]):
            raise ValueError(
                f"the held-out scores of {who} are constant (all {s.size} rows equal {s[0]:.6g}): "
                "the base estimator learned nothing that separates the classes (did it converge? "
                "scale X, e.g. StandardScaler, or check X for extreme values); there is no score "
                "to calibrate"
            )
        return METHODS[self.method](_FORMULA, pd.DataFrame({"s": s, "y": y01}))

    def fit(self, X: Any, y: Any, **fit_params: Any) -> EvidentialCalibratedClassifierCV:
        """Fit the classifier(s) and the evidential calibrator(s).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Whatever the classifier accepts (passed through unchanged, as in Pipelines).
        y : array-like of shape (n_samples,)
            Two classes.
        **fit_params
            Passed to the classifier's ``fit`` (not ``sample_weight``: the calibrators are
            unweighted, so it is refused rather than used for half of the fit).

        Returns
        -------
        self
        """
        from sklearn.frozen import FrozenEstimator

        if self.method not in METHODS:
            raise ValueError(f"method must be one of {tuple(METHODS)}, got {self.method!r}")
        if "sample_weight" in fit_params:
            raise TypeError(
                "EvidentialCalibratedClassifierCV.fit does not take sample_weight: evstat's "
                "calibrators (and their likelihood-based belief) are unweighted"
            )
        X, y = indexable(X, y)
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        if _num_samples(X) == 0:
            raise ValueError("X has 0 rows: calibration needs rows of both classes")
        shape = getattr(X, "shape", None)
        if shape is not None and len(shape) == 2 and shape[1] == 0:
            raise ValueError(f"0 feature(s) (shape={tuple(shape)}) while a minimum of 1 is required.")
        encoder = LabelEncoder().fit(y)
        self.classes_ = encoder.classes_
        if len(self.classes_) == 1:
            raise ValueError(
                f"y has only one class ({self.classes_[0].tolist()!r}): calibration needs two classes"
            )
        if type_of_target(y) != "binary":
            raise ValueError(
                f"Only binary classification is supported: y has "
                f"{len(self.classes_)} classes; evstat has no multi-class calibrator yet "
                "(use one-vs-rest or sklearn's CalibratedClassifierCV)"
            )
        y01 = encoder.transform(y)
        estimator = LinearSVC() if self.estimator is None else self.estimator
        prefit = (isinstance(self.cv, str) and self.cv == "prefit") or isinstance(estimator, FrozenEstimator)
        if isinstance(self.cv, str) and self.cv != "prefit":
            raise ValueError(f"cv must be an int, a splitter, an iterable of splits or 'prefit', got {self.cv!r}")
        if prefit:
            check_is_fitted(estimator)
            pairs = [_Pair(estimator, self._calibrate(_scores(estimator, X), y01))]
        else:
            if isinstance(self.cv, int | np.integer):
                counts = np.bincount(y01)
                if counts.min() < self.cv:
                    raise ValueError(
                        f"cv={self.cv} folds need at least {self.cv} rows of each class, but class "
                        f"{self.classes_[counts.argmin()].tolist()!r} has {counts.min()}; lower cv"
                    )
            cv = check_cv(self.cv, y01, classifier=True)
            if self.ensemble:
                pairs = []
                for train, test in cv.split(X, y01):
                    est = clone(estimator).fit(_take(X, train), y01[train], **fit_params)
                    pairs.append(_Pair(est, self._calibrate(_scores(est, _take(X, test)), y01[test])))
            else:
                est = clone(estimator)
                name = "decision_function" if hasattr(est, "decision_function") else "predict_proba"
                oof = np.asarray(cross_val_predict(est, X, y01, cv=cv, method=name, params=fit_params), dtype=float)
                if oof.ndim == 2:
                    oof = oof[:, 1] if oof.shape[1] == 2 else oof.reshape(-1)
                est.fit(X, y01, **fit_params)
                pairs = [_Pair(est, self._calibrate(oof, y01))]
        self.calibrated_classifiers_ = pairs
        first = pairs[0].estimator
        if hasattr(first, "n_features_in_"):
            self.n_features_in_ = first.n_features_in_
        if hasattr(first, "feature_names_in_"):
            self.feature_names_in_ = first.feature_names_in_
        return self

    # --------------------------------------------------------------- prediction
    def _belief(self, X: Any, what: str = "belief") -> NDArray[np.float64]:
        check_is_fitted(self, "calibrated_classifiers_")
        out = getattr(self.calibrated_classifiers_[0], what)(X)
        for pair in self.calibrated_classifiers_[1:]:
            out = out + getattr(pair, what)(X)
        return out / len(self.calibrated_classifiers_)

    def predict_proba(self, X: Any) -> NDArray[np.float64]:
        """Calibrated probabilities: columns P(classes_[0]), P(classes_[1]) = theta_hat.

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        th = self._belief(X, "prob")
        return np.column_stack([1.0 - th, th])

    def predict_belief(self, X: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Lower and upper probabilities (Bel, Pl) of every class.

        Returns
        -------
        lower, upper : ndarray of shape (n_samples, 2)
            ``lower[:, k] = Bel({classes_[k]})`` and ``upper[:, k] = Pl({classes_[k]})``;
            lower <= predict_proba <= upper, and upper - lower is the ignorance (the same in
            both columns).
        """
        b = self._belief(X)
        bel, pl = b[:, 1], b[:, 2]
        return np.column_stack([1.0 - pl, bel]), np.column_stack([1.0 - bel, pl])

    def predict(self, X: Any, reject_cost: float | None = None, strategy: str = "pessimistic") -> NDArray:
        """Predicted classes, optionally with a reject option.

        Parameters
        ----------
        X : array-like
        reject_cost : float in [0, 1], optional
            Without it (default) the class of highest calibrated probability (ties to
            ``classes_[0]``), as CalibratedClassifierCV. With it, the decision of
            :func:`evstat.metrics.decide_binary` under 0-1 costs and this reject cost, where a
            rejected row gets ``reject_label``.
        strategy : {"pessimistic", "optimistic", "probabilistic"}
            Expected costs used with ``reject_cost`` (upper, lower, or under theta_hat).

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_`` (and ``reject_label``, dtype object, with ``reject_cost``).
        """
        check_is_fitted(self, "calibrated_classifiers_")
        if reject_cost is None:
            return self.classes_[(self._belief(X, "prob") > 0.5).astype(int)]
        b = self._belief(X)
        codes = decide_binary(b[:, 1], b[:, 2], strategy=strategy, reject_cost=reject_cost, p=b[:, 0])
        out = np.empty(codes.shape[0], dtype=object)
        rejected = np.array([c == "reject" for c in codes], dtype=bool)
        out[rejected] = self.reject_label
        decided = ~rejected
        out[decided] = self.classes_[codes[decided].astype(int)]
        return out

    def _has_decision_function(self) -> bool:
        est = getattr(self, "calibrated_classifiers_", None)
        target = est[0].estimator if est else (LinearSVC() if self.estimator is None else self.estimator)
        return hasattr(target, "decision_function")

    @available_if(_has_decision_function)
    def decision_function(self, X: Any) -> NDArray[np.float64]:
        """The classifier's decision function (the average over the ensemble's members).

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "calibrated_classifiers_")
        vals = [np.asarray(p.estimator.decision_function(X), dtype=float) for p in self.calibrated_classifiers_]
        return np.mean(vals, axis=0)


def _take(X: Any, rows: NDArray) -> Any:
    from sklearn.utils import _safe_indexing

    return _safe_indexing(X, rows)


# ---------------------------------------------------------------------------- scorers
#: metric -> (description, higher is better after the sign applied)
SCORERS = {
    "error_rate": "minus the error rate at the reject cost (errors over all rows; a rejected row is no error)",
    "accuracy": "accuracy over the decided rows at the reject cost",
    "reject_rate": "minus the share of rejected rows",
    "mean_ignorance": "minus the mean ignorance Pl - Bel",
}


def _final_step(estimator: Any, X: Any) -> tuple[Any, Any]:
    """The estimator that has ``predict_belief`` and its input: a Pipeline's last step after
    the transforms of the others (Pipeline passes only scikit-learn's own methods through)."""
    from sklearn.pipeline import Pipeline

    while isinstance(estimator, Pipeline) or hasattr(estimator, "best_estimator_"):
        if not isinstance(estimator, Pipeline):  # a fitted GridSearchCV and the like
            estimator = estimator.best_estimator_
            continue
        if len(estimator.steps) > 1:
            X = estimator[:-1].transform(X)
        estimator = estimator.steps[-1][1]
    if not hasattr(estimator, "predict_belief"):
        raise TypeError(
            f"evidential scorers need an estimator with predict_belief (such as "
            f"EvidentialCalibratedClassifierCV), got {type(estimator).__name__}"
        )
    return estimator, X


class _EvidentialScorer:
    def __init__(self, metric: str, reject_cost: float | None, strategy: str) -> None:
        self.metric, self.reject_cost, self.strategy = metric, reject_cost, strategy

    def __repr__(self) -> str:
        return f"evidential_scorer({self.metric!r}, reject_cost={self.reject_cost!r}, strategy={self.strategy!r})"

    def __call__(self, estimator: Any, X: Any, y: Any) -> float:
        estimator, X = _final_step(estimator, X)
        lower, upper = estimator.predict_belief(X)
        if self.metric == "mean_ignorance":
            return -float(np.mean(upper[:, 1] - lower[:, 1]))
        classes = np.asarray(estimator.classes_)
        yy = np.asarray(y)
        unknown = ~np.isin(yy, classes)
        if unknown.any():
            raise ValueError(f"y has labels {sorted(set(yy[unknown].tolist()))} that are not in classes_ {classes.tolist()}")
        y01 = (yy == classes[1]).astype(int)
        p = estimator.predict_proba(X)[:, 1]
        dec = decide_binary(lower[:, 1], upper[:, 1], strategy=self.strategy, reject_cost=self.reject_cost, p=p)
        m = decision_metrics(y01, dec)
        sign = 1.0 if self.metric == "accuracy" else -1.0
        return sign * float(m[self.metric])


def evidential_scorer(
    metric: str = "error_rate", reject_cost: float | None = None, strategy: str = "pessimistic"
) -> Callable[[Any, Any, Any], float]:
    """A scorer ``scorer(estimator, X, y)`` of an evidential metric, for ``scoring=``.

    Higher is better, as scikit-learn expects: losses are negated.

    Parameters
    ----------
    metric : {"error_rate", "accuracy", "reject_rate", "mean_ignorance"}
        ``"error_rate"``: minus E / N at the reject cost; ``"accuracy"``: C / D over the decided
        rows (NaN when all are rejected); ``"reject_rate"``: minus R / N
        (:func:`evstat.metrics.decision_metrics`, Minary et al. 2019 section 5.4);
        ``"mean_ignorance"``: minus the mean of Pl({1}) - Bel({1}).
    reject_cost : float in [0, 1], optional
        Reject cost of the decisions (None: no reject option).
    strategy : {"pessimistic", "optimistic", "probabilistic"}
        Expected costs of the decisions (see :func:`evstat.metrics.decide_binary`).

    Returns
    -------
    callable
        Works with any estimator that has ``predict_belief``, ``predict_proba`` and ``classes_``,
        and with a Pipeline ending in one.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_val_score
    >>> X, y = make_classification(200, n_features=4, random_state=1)
    >>> clf = EvidentialCalibratedClassifierCV(LogisticRegression(), cv=3)
    >>> s = cross_val_score(clf, X, y, cv=2, scoring=evidential_scorer("error_rate", reject_cost=0.1))
    >>> bool((s <= 0).all())
    True
    """
    if metric not in SCORERS:
        raise ValueError(f"metric must be one of {tuple(SCORERS)}, got {metric!r}")
    if reject_cost is not None and not 0.0 <= float(reject_cost) <= 1.0:
        raise ValueError(f"reject_cost must lie in [0, 1], got {reject_cost!r}")
    if strategy not in ("pessimistic", "optimistic", "probabilistic"):
        raise ValueError(f"strategy must be 'pessimistic', 'optimistic' or 'probabilistic', got {strategy!r}")
    return _EvidentialScorer(metric, reject_cost, strategy)
