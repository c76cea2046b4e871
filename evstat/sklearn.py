"""scikit-learn estimators and scorers around evstat's calibrators.

:class:`EvidentialCalibratedClassifierCV` mirrors scikit-learn's
:class:`sklearn.calibration.CalibratedClassifierCV`: the wrapped classifier's scores are
calibrated by an evstat model, with cross-validation (``cv=k``) or on data the classifier was not
trained on (``cv="prefit"``). Besides ``predict_proba`` it gives ``predict_belief(X)``, the lower
and upper probabilities of every class, and ``predict(X, reject_cost=...)``, which may answer
``reject_label``.

Methods (``method=``) are read from the registry (:func:`evstat.results.fitters`), so every
registered model that calibrates the data's number of classes is one (:func:`methods`), plus
``"sigmoid"``, scikit-learn's name: evlogit for two classes (evidential Platt scaling) and
evmultinom for K >= 3 (multinomial logistic calibration on Platt-Laplace targets, with exact lower
and upper probabilities). Unlike scikit-learn's K-class sigmoid, which calibrates each class
one-vs-rest and renormalises, this is one joint model; ``method="ecoc"`` is the one-vs-rest
counterpart (evlogit per class, coupled).

Scores. Two classes and a model of any scores: ``decision_function``, else ``predict_proba`` of
the positive class, as one column (``decision_function`` or ``predict_proba_1``). K classes (or
a model that needs a column per class): one column per class code, from ``decision_function``
when it has K columns (not for a model of probabilities, ``dirichlet``), else ``predict_proba``
(for a model of logits, temperature and vector scaling, ``predict_log_proba`` or the logs); the
columns are named after the method that gave them (``predict_proba_0``, ...), so that a
message names what the classifier gave. K logits whose rows all sum to one value (a multinomial
model's symmetric logits, e.g. ``LogisticRegression``) are collinear: a model of any scores
(evmultinom, matrix scaling, the classifiers) gets the first K - 1 columns, a model of logits or
one-vs-rest scores their log-softmax. Exact 0 and 1 in ``predict_proba`` (forests, boosted
trees, naive Bayes; ``-inf`` in their logs) are the calibrator's to handle, by the one rule of
:func:`evstat.multiclass.simplex.clip_rule` (clipped at half the smallest positive probability
of the calibration rows; ``calibrated_classifiers_[i].calibrator.summary()`` says how many
rows), so a forest is calibrated as scikit-learn's ``CalibratedClassifierCV`` takes it.

Ensembles (``cv=k, ensemble=True``): each of the k (classifier, calibrator) pairs gives a mass
function per row; the ensemble's is their average (a mixture of belief functions, again a belief
function: Bel and Pl are the averages of the members' Bel and Pl), exactly as
CalibratedClassifierCV averages the members' probabilities. ``decision_function`` is the average
of the members' decision functions.

The module also makes scorers of the evidential metrics (:func:`evidential_scorer`) usable as
``scoring=`` in ``GridSearchCV`` / ``cross_val_score``.


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
from sklearn.model_selection import check_cv
from sklearn.preprocessing import LabelEncoder
from sklearn.svm import LinearSVC
from sklearn.utils import indexable
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _num_samples, check_is_fitted, column_or_1d

from evstat.belief import decide_bounds
from evstat.formula.arrays import refuse_masked
from evstat.metrics import decide_binary, decision_metrics
from evstat.results import fitters, from_arrays, registered, supported_classes

__all__ = ["EvidentialCalibratedClassifierCV", "evidential_scorer", "SCORERS", "SIGMOID", "methods"]

#: relative tolerance for K logits whose rows sum to one value (then collinear columns)
SUM_TOL = 1e-5

#: what ``method="sigmoid"`` (scikit-learn's name) means for 2 and for K >= 3 classes
SIGMOID = {2: "evlogit", 3: "evmultinom"}


def methods(n_classes: int = 2) -> tuple[str, ...]:
    """The ``method`` names for ``n_classes`` classes: ``"sigmoid"`` and every registered model
    that calibrates that many classes (read from the registry, :func:`evstat.results.fitters`).

    Examples
    --------
    >>> "evlogit" in methods(2), "evlogit" in methods(3), "evmultinom" in methods(3)
    (True, False, True)
    """
    return ("sigmoid", *fitters(n_classes=n_classes))


def _resolve(method: Any, n_classes: int) -> str:
    """The registered model behind ``method`` for ``n_classes`` classes, or a ValueError that
    lists the choices."""
    name = SIGMOID[2 if n_classes == 2 else 3] if method == "sigmoid" else method
    if not isinstance(name, str) or name not in fitters():
        raise ValueError(f"method must be one of {methods(2 if n_classes == 2 else 3)}, got {method!r}")
    if (2 if n_classes == 2 else 3) not in supported_classes(name):
        raise ValueError(
            f"Only binary classification is supported by method {method!r} (it calibrates two classes), but y "
            f"has {n_classes}: use one of "
            f"{methods(n_classes)} (e.g. 'sigmoid', which is evmultinom for K classes)"
        )
    return name


class _Layout:
    """How a classifier's outputs become the calibrator's score columns (``s`` for two classes
    and a model of any scores; ``s_0 .. s_{K-1}``, one per class code, otherwise)."""

    def __init__(self, kind: str, n_classes: int) -> None:
        self.kind, self.n_classes = kind, n_classes
        self.drop_last = self.log_softmax = False
        #: the classifier's method that gave the scores (the columns' names say it)
        self.source = "scores"

    def raw(self, estimator: Any, X: Any) -> NDArray[np.float64]:
        """Scores (n,) or (n, K): ``decision_function`` as CalibratedClassifierCV uses it, else
        ``predict_proba``; probabilities for a model of probabilities (dirichlet), their logs for
        a model of logits when the classifier has no decision function of K columns."""
        K = self.n_classes
        has_df = hasattr(estimator, "decision_function")
        if not (has_df or hasattr(estimator, "predict_proba")):
            raise TypeError(
                f"{type(estimator).__name__} has neither decision_function nor predict_proba; "
                "EvidentialCalibratedClassifierCV needs one of them to get scores to calibrate"
            )
        if K == 2 and self.kind == "any":  # one score of the positive class
            if has_df:
                self.source = "decision_function"
                s = np.asarray(estimator.decision_function(X), dtype=float)
                return s.reshape(-1) if s.ndim == 2 and s.shape[1] == 1 else s
            self.source = "predict_proba"
            return np.asarray(estimator.predict_proba(X), dtype=float)[:, 1]
        if self.kind != "probabilities" and has_df:
            S = np.asarray(estimator.decision_function(X), dtype=float)
            if S.ndim == 2 and S.shape[1] == K:
                self.source = "decision_function"
                return S
        if not hasattr(estimator, "predict_proba"):
            raise TypeError(
                f"{type(estimator).__name__} has no predict_proba and no decision_function of {K} columns: "
                f"the calibrator needs {self.kind} scores, one column per class"
            )
        # a model of logits gets the probabilities too, said to be intended (scores="probabilities",
        # no warning): it uses their logs, with exact 0 and 1 (a forest's, naive Bayes') clipped by
        # the one rule (evstat.multiclass.simplex.clip_rule), which -inf logs could not reach
        self.source = "predict_proba"
        return np.asarray(estimator.predict_proba(X), dtype=float)

    @property
    def options(self) -> dict[str, Any]:
        """The calibrator's options the scores ask for: ``scores="probabilities"`` for a model of
        logits given ``predict_proba``."""
        return {"scores": "probabilities"} if self.kind == "logits" and self.source == "predict_proba" else {}

    def fix(self, S: NDArray[np.float64]) -> None:
        """Fitting time: K logits whose rows all sum to one value (a multinomial model's
        symmetric logits) are collinear columns. For a model of any scores (with an intercept of
        its own) the last column is dropped (the others carry the same information); for a
        model of logits or one-vs-rest scores they are replaced by their log-softmax ``z - logsumexp(z)`` (the same
        logits up to a constant per row)."""
        if S.ndim == 2 and S.shape[1] > 2 and np.all(np.isfinite(S)):
            sums = S.sum(axis=1)
            # float32 classifiers (X of float32) give sums equal to ~1e-7 relative
            constant = bool(np.ptp(sums) <= SUM_TOL * max(1.0, float(np.max(np.abs(S)))))
            self.drop_last = constant and self.kind == "any"
            # (probabilities for a model of logits are passed as they are: the model takes their logs)
            self.log_softmax = constant and (self.kind == "ovr" or (self.kind == "logits" and self.source != "predict_proba"))

    def scores(self, S: NDArray[np.float64]) -> tuple[NDArray[np.float64], list[str]]:
        """The calibrator's score matrix (n, p) of the classifier's outputs and its column names,
        those of the classifier's method that gave them: ``decision_function`` (or
        ``predict_proba_1``) for one score, ``predict_proba_0 .. predict_proba_{p-1}`` (the
        class codes; matched to the classes by the models of one score per class) otherwise,
        so that a message names what the user's classifier gave. Arrays all the way: no
        DataFrame, no formula."""
        if S.ndim == 1:
            return S[:, None], [self.source if self.source == "decision_function" else f"{self.source}_1"]
        if self.drop_last:
            S = S[:, :-1]
        if self.log_softmax:
            from scipy.special import log_softmax

            S = log_softmax(S, axis=1)
        return S, [f"{self.source}_{k}" for k in range(S.shape[1])]


class _Pair:
    """One fitted (classifier, calibrator) pair; the calibrator is an evstat results object."""

    def __init__(self, estimator: Any, calibrator: Any, layout: _Layout) -> None:
        self.estimator = estimator
        self.calibrator = calibrator
        self.layout = layout

    def _scores(self, X: Any) -> NDArray[np.float64]:
        refuse_masked(X, "X")
        return self.layout.scores(self.layout.raw(self.estimator, X))[0]

    def _frame(self, X: Any) -> pd.DataFrame:
        """The calibrator's scores of rows ``X`` as a DataFrame of its named columns (what
        :meth:`_scores` gives as an array; the calibrator predicts on either)."""
        refuse_masked(X, "X")
        S, names = self.layout.scores(self.layout.raw(self.estimator, X))
        return pd.DataFrame(S, columns=names)

    def belief(self, X: Any) -> NDArray[np.float64]:
        """Two classes: array (n, 3) of theta_hat, Bel({1}), Pl({1}); K classes: (n, 3K), the
        probabilities, then Bel({k}), then Pl({k}) of the classes in code order."""
        return self.calibrator.predict(self._scores(X), type="belief").to_numpy(dtype=float)

    def prob(self, X: Any) -> NDArray[np.float64]:
        """theta_hat, (n,) or (n, K): cheaper than the belief, which needs the predictive profile."""
        return self.calibrator.predict(self._scores(X), type="prob").to_numpy(dtype=float)


class EvidentialCalibratedClassifierCV(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Evidential calibration of a scikit-learn classifier, like ``CalibratedClassifierCV``.

    Parameters
    ----------
    estimator : classifier, default LinearSVC()
        Two classes: its ``decision_function`` (else ``predict_proba[:, 1]``) is calibrated.
        K classes: one column per class, from ``decision_function`` of shape
        ``(n_samples, n_classes)`` when it has one (and the method takes any scores), else
        ``predict_proba`` (or its logs for a model of logits); the module docstring gives the rule.
    method : str, default "sigmoid"
        ``"sigmoid"`` (evlogit for two classes, evmultinom for more) or the name of any
        registered model that calibrates the data's number of classes (:func:`methods`; e.g.
        ``"isotonic"``, ``"temperature"``, ``"dirichlet"``, ``"eknn"``, ``"ecoc"``).
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
    classes_ : ndarray of shape (n_classes,)
        The class labels (two classes: the second is the positive class of the calibrators).
    method_ : str
        The registered model that calibrates (``"sigmoid"`` resolved).
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
        method: str = "sigmoid",
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
        m = self.method
        tags.classifier_tags.multi_class = m == "sigmoid" or (m in fitters() and 3 in supported_classes(m))
        est = LinearSVC() if self.estimator is None else self.estimator
        tags.input_tags.sparse = est.__sklearn_tags__().input_tags.sparse
        return tags

    # ------------------------------------------------------------------ fitting
    def _calibrate(self, estimator: Any, X: Any, codes: NDArray, scores: NDArray | None = None,
                   layout: _Layout | None = None, prefit: bool = False) -> _Pair:
        """The calibrator of ``estimator``'s scores on rows ``X`` (or of the given ``scores``,
        made by ``layout``) with class codes ``codes``: a :class:`_Pair`. Messages speak of the
        held-out scores under cross-validation and of the scores of the calibration rows under
        ``prefit``; they count rows."""
        if layout is None:
            layout = _Layout(registered()[self.method_].capabilities.scores, len(self.classes_))
        s = layout.raw(estimator, X) if scores is None else scores
        who = type(self.estimator if self.estimator is not None else LinearSVC()).__name__
        what = (f"the scores of {who} ({layout.source}) on the calibration rows" if prefit
                else f"the held-out scores of {who} ({layout.source})")
        s = np.asarray(s, dtype=float)
        bad = ~np.isfinite(s)
        if bad.any():
            rows = bad.reshape(bad.shape[0], -1).any(axis=1)
            r = int(np.flatnonzero(rows)[0])
            kinds = " or ".join(k for k, m in (("NaN", np.isnan(s)), ("infinite", np.isinf(s))) if m.any())
            raise ValueError(
                f"{what} are {kinds} in {int(rows.sum())} of {s.shape[0]} rows (first at row {r}): "
                f"{who}.{layout.source} gave values that are not numbers on these inputs (scale X, or check it "
                "for extreme values); nothing to calibrate"
            )
        if s.size and np.all(s == s.flat[0]):
            raise ValueError(
                f"{what} are constant (all {s.shape[0]} rows equal {s.flat[0]:.6g}): "
                "the base estimator learned nothing that separates the classes (did it converge? "
                "scale X, e.g. StandardScaler, or check X for extreme values); there is no score "
                "to calibrate"
            )
        layout.fix(s)
        S, names = layout.scores(s)
        # arrays, not a formula: the registered model's array constructor (evstat.results.from_arrays)
        return _Pair(estimator, from_arrays(self.method_, S, codes, names=names, **layout.options), layout)

    def fit(self, X: Any, y: Any, **fit_params: Any) -> EvidentialCalibratedClassifierCV:
        """Fit the classifier(s) and the evidential calibrator(s).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Whatever the classifier accepts (passed through unchanged, as in Pipelines).
        y : array-like of shape (n_samples,)
            Two or more classes.
        **fit_params
            Passed to the classifier's ``fit`` (not ``sample_weight``: the calibrators are
            unweighted, so it is refused rather than used for half of the fit).

        Returns
        -------
        self
        """
        from sklearn.frozen import FrozenEstimator

        if "sample_weight" in fit_params:
            raise TypeError(
                "EvidentialCalibratedClassifierCV.fit does not take sample_weight: evstat's "
                "calibrators (and their likelihood-based belief) are unweighted"
            )
        refuse_masked(X, "X")  # its mask would be dropped silently (issue 41)
        refuse_masked(y, "y")
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
        self.method_ = _resolve(self.method, len(self.classes_))
        codes = encoder.transform(y)
        estimator = LinearSVC() if self.estimator is None else self.estimator
        prefit = (isinstance(self.cv, str) and self.cv == "prefit") or isinstance(estimator, FrozenEstimator)
        if isinstance(self.cv, str) and self.cv != "prefit":
            raise ValueError(f"cv must be an int, a splitter, an iterable of splits or 'prefit', got {self.cv!r}")
        if prefit:
            check_is_fitted(estimator)
            pairs = [self._calibrate(estimator, X, codes, prefit=True)]
        else:
            if isinstance(self.cv, int | np.integer):
                counts = np.bincount(codes)
                if counts.min() < self.cv:
                    raise ValueError(
                        f"cv={self.cv} folds need at least {self.cv} rows of each class, but class "
                        f"{self.classes_[counts.argmin()].tolist()!r} has {counts.min()}; lower cv"
                    )
            cv = check_cv(self.cv, codes, classifier=True)
            if self.ensemble:
                pairs = []
                for train, test in cv.split(X, codes):
                    est = clone(estimator).fit(_take(X, train), codes[train], **fit_params)
                    pairs.append(self._calibrate(est, _take(X, test), codes[test]))
            else:  # one calibrator on the out-of-fold scores (cross_val_predict's loop)
                layout = _Layout(registered()[self.method_].capabilities.scores, len(self.classes_))
                oof: NDArray | None = None
                for train, test in cv.split(X, codes):
                    part = layout.raw(clone(estimator).fit(_take(X, train), codes[train], **fit_params), _take(X, test))
                    if oof is None:
                        oof = np.empty((codes.shape[0], *part.shape[1:]))
                    oof[test] = part
                est = clone(estimator).fit(X, codes, **fit_params)
                pairs = [self._calibrate(est, X, codes, scores=oof, layout=layout)]
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
        """Calibrated probabilities, one column per class of ``classes_`` (two classes:
        P(classes_[0]) = 1 - theta_hat, P(classes_[1]) = theta_hat).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        th = self._belief(X, "prob")
        return np.column_stack([1.0 - th, th]) if th.ndim == 1 else th

    def predict_belief(self, X: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Lower and upper probabilities of every class (Bel({k}) and Pl({k}) for the models
        whose predictions are mass functions; evmultinom's exact lower and upper probabilities).

        Returns
        -------
        lower, upper : ndarray of shape (n_samples, n_classes)
            ``lower[:, k]`` and ``upper[:, k]`` bound the probability of ``classes_[k]``;
            lower <= predict_proba <= upper. With two classes upper - lower is the ignorance
            (the same in both columns).
        """
        b = self._belief(X)
        K = len(self.classes_)
        if K == 2:
            bel, pl = b[:, 1], b[:, 2]
            return np.column_stack([1.0 - pl, bel]), np.column_stack([1.0 - bel, pl])
        return b[:, K : 2 * K], b[:, 2 * K :]

    def predict(self, X: Any, reject_cost: float | None = None, strategy: str = "pessimistic") -> NDArray:
        """Predicted classes, optionally with a reject option.

        Parameters
        ----------
        X : array-like
        reject_cost : float in [0, 1], optional
            Without it (default) the class of highest calibrated probability (ties to
            ``classes_[0]``), as CalibratedClassifierCV. With it, the decision of
            :func:`evstat.metrics.decide_binary` under 0-1 costs and this reject cost, where a
            rejected row gets ``reject_label`` (K classes: :func:`evstat.belief.decide_bounds` on
            the expected losses ``1 - lower``, ``1 - upper``, ``1 - p`` of every class).
        strategy : {"pessimistic", "optimistic", "probabilistic"}
            Expected costs used with ``reject_cost`` (upper, lower, or under theta_hat).

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_`` (and ``reject_label``, dtype object, with ``reject_cost``).
        """
        check_is_fitted(self, "calibrated_classifiers_")
        if len(self.classes_) > 2:
            return self._predict_k(X, reject_cost, strategy)
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

    def _predict_k(self, X: Any, reject_cost: float | None, strategy: str) -> NDArray:
        """K classes: the largest calibrated probability (ties to the first class), or with
        ``reject_cost`` the one decision engine on the 0-1 expected losses, ``1 - lower`` (upper),
        ``1 - upper`` (lower) and ``1 - p``, with the reject action at ``reject_cost``."""
        p = self.predict_proba(X)
        if reject_cost is None:
            return self.classes_[np.argmax(p, axis=1)]
        if not 0.0 <= float(reject_cost) <= 1.0:
            raise ValueError(f"reject_cost must lie in [0, 1], got {reject_cost!r}")
        lower, upper = self.predict_belief(X)
        rc = np.full((p.shape[0], 1), float(reject_cost))
        acts = [*range(len(self.classes_)), "reject"]
        d = decide_bounds(acts, upper=np.hstack([1.0 - lower, rc]), lower=np.hstack([1.0 - upper, rc]),
                          prob=np.hstack([1.0 - p, rc]), strategy=strategy)
        chosen = np.asarray(d.choice, dtype=object)
        out = np.empty(chosen.shape[0], dtype=object)
        rejected = chosen == "reject"
        out[rejected] = self.reject_label
        out[~rejected] = self.classes_[chosen[~rejected].astype(int)]
        return out

    def _has_decision_function(self) -> bool:
        """Two classes only: with K classes the calibrated argmax may differ from the
        classifier's, so its decision function would not explain ``predict``."""
        if len(getattr(self, "classes_", ())) > 2:
            return False
        est = getattr(self, "calibrated_classifiers_", None)
        target = est[0].estimator if est else (LinearSVC() if self.estimator is None else self.estimator)
        return hasattr(target, "decision_function")

    @available_if(_has_decision_function)
    def decision_function(self, X: Any) -> NDArray[np.float64]:
        """The classifier's decision function (the average over the ensemble's members).

        Two classes only. With K > 2 classes the method is not available (``hasattr(clf,
        "decision_function")`` is False, as for a classifier without one): the calibrated
        ``predict`` takes the largest calibrated probability, which may differ from the argmax of
        the classifier's K columns, so those columns would not explain the decisions; use
        ``predict_proba`` (n_samples, n_classes) and ``predict_belief`` (lower and upper
        probabilities of each class) instead.

        Returns
        -------
        ndarray of shape (n_samples,)
            Two classes: positive values favour ``classes_[1]``.
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
