"""The results protocol of the evidential classifiers (two or more classes).

:class:`ClassifierResults` implements the one results protocol :class:`evstat.results.Results`
for a response with ``M >= 2`` classes: the prediction of a row is a mass function on the frame
of the response's levels. With two classes every verb returns exactly what a calibrator returns
(so :func:`evstat.compare`, plots and reports accept a two-class classifier); with more classes
the outputs gain a class dimension:

============  ==============================================  ==============================================
``type``      two classes ``(negative, positive)``             ``M >= 3`` classes
============  ==============================================  ==============================================
``"prob"``    Series ``theta`` = BetP({positive})              DataFrame of BetP, one column per class
``"belief"``  DataFrame [theta, bel, pl] of {positive}         DataFrame with two-level columns
                                                               ``(stat, class)``, ``stat`` in
                                                               ``theta`` (BetP), ``bel``, ``pl``
``"mass"``    MassArray on the frame (negative, positive)      MassArray on the frame of the levels
============  ==============================================  ==============================================

``fit.predict(new, type="belief")["pl"]`` is then the DataFrame of Pl({w}) per class (the
contour function). Subclasses implement ``_mass_values(X)`` (dense masses, one column per
subset in bitmask order) and may override ``_singletons(X)`` with a closed form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat.belief import Frame, MassArray
from evstat.belief import decide as belief_decide
from evstat.formula import CLASS_FRAME, ClassFrame, schema
from evstat.results import Capabilities, Results
from evstat.summary import Summary

__all__ = ["ClassifierResults", "OUTLIER"]

#: the credal decision for the whole frame (the ignorant class: an outlier)
OUTLIER = "outlier"

#: rows of dense masses processed at once (times 2**M entries)
_DENSE_ENTRIES = 1 << 21


def clip01(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """Clip round-off (sums of masses can exceed 1 by an ulp) into [0, 1], in place."""
    return np.clip(a, 0.0, 1.0, out=a)


class ClassifierResults(Results):
    """Base class of fitted evidential classifiers (not instantiated directly).

    Attributes
    ----------
    class_frame : evstat.formula.ClassFrame
        The training data as the formula saw them: ``X`` (score vectors), ``codes`` (classes as
        positions in ``levels``), ``levels``.
    frame : evstat.belief.Frame
        The frame of discernment: the response's levels in order (two classes:
        ``(negative, positive)``).
    """

    method: ClassVar[str] = "classifier"

    def __init__(self, class_frame: ClassFrame) -> None:
        self.class_frame = class_frame
        self._X = class_frame.X
        self._codes = class_frame.codes

    # ---------------------------------------------------------------- basic facts
    @property
    def frame(self) -> Frame:
        """The frame of discernment (:class:`evstat.belief.Frame`), built on first use: a frame
        holds dense set functions (at most :data:`evstat.belief.MAX_DENSE_SIZE` elements), which
        a model of many classes that predicts lower and upper probabilities never needs."""
        f = self.__dict__.get("_frame_obj")
        if f is None:
            f = Frame(list(self.class_frame.levels))
            self.__dict__["_frame_obj"] = f
        return f

    @property
    def formula(self) -> str:
        """The formula the model was fitted with."""
        return self.class_frame.formula

    @property
    def levels(self) -> tuple:
        """The classes in frame order."""
        return tuple(self.class_frame.levels)

    @property
    def classes(self) -> tuple:
        """The classes in frame order (two classes: ``(negative, positive)``)."""
        return self.levels

    @property
    def nobs(self) -> int:
        """Number of training rows."""
        return self.class_frame.n

    @property
    def response(self) -> str:
        """The class column's name."""
        return self.class_frame.response

    @property
    def score_columns(self) -> list[str]:
        """The data columns the right-hand side uses."""
        return list(self.class_frame.score_columns)

    @property
    def n_dropped(self) -> int:
        """Training rows dropped for missing values."""
        return int(self.class_frame.n_dropped)

    def training_codes(self) -> NDArray[np.intp]:
        """The class of every training row as its position in :attr:`classes`."""
        return np.asarray(self._codes, dtype=np.intp)

    def training_data(self) -> pd.DataFrame:
        """The training rows' score columns (as the formula saw them) and class labels."""
        cf = self.class_frame
        base = pd.DataFrame({c: np.asarray(cf.design.column(c)) for c in cf.score_columns}, index=cf.index)
        base[cf.response] = cf.labels().to_numpy()
        return base

    @property
    def terms(self) -> list[str]:
        """The score columns of the distance (design terms without the intercept)."""
        return self.class_frame.terms

    def __repr__(self) -> str:
        counts = ", ".join(f"{lev!r}: {int(c)}" for lev, c in self.class_counts.items())
        return (
            f"<{type(self).__name__} ({self.method}): {self.formula!r}, n = {self.nobs} "
            f"({counts})>"
        )

    # ---------------------------------------------------------------- to implement
    def _mass_values(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Dense masses, shape (len(X), 2**M), columns in bitmask order."""
        raise NotImplementedError

    def _singletons(
        self, X: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Bel({w}), Pl({w}), BetP({w}) per class (each (m, M)) and m(frame) (m,).

        Default: from the dense masses, chunked over rows; subclasses override with closed
        forms when they have them.
        """
        M = self.n_classes
        m = X.shape[0]
        bel = np.empty((m, M))
        pl = np.empty((m, M))
        betp = np.empty((m, M))
        ign = np.empty(m)
        masks = np.arange(1 << M)
        card = self.frame.cardinalities().astype(np.float64)
        inv = np.zeros_like(card)
        inv[1:] = 1.0 / card[1:]
        member = ((masks[:, None] >> np.arange(M)[None, :]) & 1).astype(np.float64)  # (2**M, M)
        single = np.zeros((1 << M, M))
        single[1 << np.arange(M), np.arange(M)] = 1.0
        step = max(1, _DENSE_ENTRIES // (1 << M))
        for a in range(0, m, step):
            v = self._mass_values(X[a : a + step])
            bel[a : a + step] = v @ single
            pl[a : a + step] = v @ member
            betp[a : a + step] = (v * inv) @ member
            ign[a : a + step] = v[:, -1]
        return clip01(bel), clip01(pl), clip01(betp), clip01(ign)

    # ---------------------------------------------------------------- design
    def _design(self, newdata: pd.DataFrame | None, missing: str = "raise") -> tuple[NDArray, pd.Index]:
        if newdata is None:
            return np.asarray(self._X), self.class_frame.index
        self._check_newdata(newdata)
        return self.class_frame.new_X(newdata, missing=missing)

    # ---------------------------------------------------------------- prediction
    def _class_index(self) -> pd.Index:
        return pd.Index(list(self.levels), dtype=object, name="class")

    def _predict(self, X: NDArray[np.float64], index: pd.Index, type: str, **options: Any) -> Any:
        """Two classes: ``"prob"`` a Series ``theta`` = BetP({positive}); ``"belief"`` a
        DataFrame [theta, bel, pl] (BetP, Bel, Pl of {positive}); ``"mass"`` a
        :class:`evstat.belief.MassArray` on the frame (negative, positive). Three or more
        classes: ``"prob"`` a DataFrame of BetP with one column per class; ``"belief"`` a
        DataFrame with two-level columns ``(stat, class)``, ``stat`` in ``"theta"`` (BetP),
        ``"bel"`` (Bel({w})), ``"pl"`` (Pl({w})); ``"mass"`` a MassArray on the frame of the
        levels. Without ``newdata`` the training rows are classified as new rows (each is its
        own nearest neighbour / lies in its own ball)."""
        if options:
            raise TypeError(f"{self.method}.predict takes no option(s) {sorted(options)}")
        if type == "mass":
            return self._present(type, index, values=self._mass_values(X))
        bel, pl, betp, _ = self._singletons(X)
        return self._present(type, index, bel=bel, pl=pl, betp=betp)

    def _present(
        self,
        type: str,
        index: pd.Index,
        *,
        values: NDArray[np.float64] | None = None,
        bel: NDArray[np.float64] | None = None,
        pl: NDArray[np.float64] | None = None,
        betp: NDArray[np.float64] | None = None,
    ) -> Any:
        """The output of ``predict(type=...)`` from dense masses (``"mass"``) or from the
        per-class Bel, Pl and BetP (``"prob"``, ``"belief"``)."""
        if type == "mass":
            assert values is not None
            return MassArray(self.frame, values, index=index)
        assert bel is not None and pl is not None and betp is not None
        if self.is_binary:
            if type == "prob":
                return pd.Series(betp[:, 1], index=index, name="theta")
            return pd.DataFrame({"theta": betp[:, 1], "bel": bel[:, 1], "pl": pl[:, 1]}, index=index)
        cls = self._class_index()
        if type == "prob":
            return pd.DataFrame(betp, index=index, columns=cls)
        cols = pd.MultiIndex.from_product(
            [pd.Index(["theta", "bel", "pl"], dtype=object), cls], names=["stat", "class"]
        )
        return pd.DataFrame(np.hstack([betp, bel, pl]), index=index, columns=cols)

    def belief_frame(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> pd.DataFrame:
        """Same as ``predict(newdata, type="belief")``."""
        return self.predict(newdata, type="belief", missing=missing)

    #: the credal decision of Liu, Pan and Dezert (2013), beside the loss-based strategies;
    #: the default is Denoeux's rule (``decision_rule``)
    capabilities: ClassVar[Capabilities] = Capabilities(default_strategy="pessimistic", extra_strategies=("credal",))
    #: the paper's decision rule that ``capabilities.default_strategy`` implements (docstrings, summary)
    decision_rule: ClassVar[str] = (
        "the minimal upper expected loss (Denoeux 1997; evclass's decision(rule = 'upper')); with masses on "
        "the classes and the whole frame only, the class it chooses without reject is the class of maximal "
        "mass, Bel, Pl and BetP alike (Denoeux 1995)"
    )

    def default_decision(self) -> str:
        """What ``decide(newdata)`` does without ``strategy=``: the default strategy (a declared
        capability) and the paper's rule behind it.

        Examples
        --------
        >>> import evstat as ev
        >>> d = ev.datasets.simulate_gaussian(60, seed=0)
        >>> ev.credal_knn("y ~ x1", d, k=5).default_decision().split(":")[0]
        "strategy='credal'"
        """
        return f"strategy={self.capabilities.default_strategy!r}: {self.decision_rule}"

    def _decide(
        self, X: NDArray[np.float64], strategy: str, loss: pd.DataFrame | None, rho: float, reject_cost: float | None
    ) -> NDArray:
        """Through :func:`evstat.belief.decide` on the predicted mass functions (with 0-1 costs
        ``"pessimistic"`` chooses the class of largest Bel({w}), ``"optimistic"`` the largest
        Pl({w}); ``"pignistic"`` and ``"probabilistic"`` are the same here: the probabilistic
        prediction is BetP)."""
        L = self._zero_one_loss(reject_cost) if loss is None else loss
        ma = MassArray(self.frame, self._mass_values(X))
        return np.asarray(belief_decide(ma, L, strategy=strategy, rho=rho).choice, dtype=object)

    def _decide_extra(self, X: NDArray[np.float64], index: pd.Index, strategy: str) -> pd.Series:
        """``strategy="credal"``: the credal decision of Liu, Pan and Dezert (2013), the
        focal set of maximal mass (ties to the lower bitmask), which may be a class, a
        meta-class (a union of classes) or the whole frame, reported as the outlier class: an
        object Series whose entries are a class label (a singleton), a ``frozenset`` of class
        labels (a meta-class) or the string ``"outlier"`` (:data:`OUTLIER`); the credal
        measures of :mod:`evstat.metrics` (``credal_rates``, ``credal_confusion``) read it."""
        return self._present_credal(self._credal_masks(X), index)

    # ---------------------------------------------------------------- credal decisions
    def _credal_masks(self, X: NDArray[np.float64]) -> NDArray[np.intp]:
        """Bitmask of the focal set of maximal mass per row (ties to the lower mask); 0 for the
        whole frame (the outlier class). Chunked over rows."""
        M = self.n_classes
        full = (1 << M) - 1
        out = np.empty(X.shape[0], dtype=np.intp)
        step = max(1, _DENSE_ENTRIES // (1 << M))
        for a in range(0, X.shape[0], step):
            v = self._mass_values(X[a : a + step])
            out[a : a + step] = np.argmax(v[:, 1:], axis=1) + 1
        out[out == full] = 0
        return out

    def _present_credal(self, masks: NDArray[np.intp], index: pd.Index) -> pd.Series:
        """Credal decisions as labels (singletons), frozensets (meta-classes) and OUTLIER."""
        M = self.n_classes
        levels = list(self.levels)
        names = np.empty(1 << M, dtype=object)
        names[0] = OUTLIER
        for mk in range(1, 1 << M):
            members = [levels[j] for j in range(M) if mk >> j & 1]
            names[mk] = members[0] if len(members) == 1 else frozenset(members)
        return pd.Series(names[np.asarray(masks, dtype=np.intp)], index=index, name="decision", dtype=object)

    # ---------------------------------------------------------------- broom verbs
    def _augment_columns(self, newdata: pd.DataFrame | None, missing: str) -> pd.DataFrame:
        """Two classes: ``.theta`` (= BetP({positive})), ``.bel``, ``.pl``, ``.ignorance``
        (m(frame) = Pl - Bel) and ``.betp``, as for the calibrators. Three or more classes:
        ``.betp_<class>``, ``.bel_<class>``, ``.pl_<class>`` for every class, ``.ignorance``
        (m(frame)) and ``.class`` (the class of largest BetP, ties to the first)."""
        X, index = self._design(newdata, missing)
        bel, pl, betp, ign = self._singletons(X)
        out: dict[str, Any] = {}
        if self.is_binary:
            out = {".theta": betp[:, 1], ".bel": bel[:, 1], ".pl": pl[:, 1], ".ignorance": ign, ".betp": betp[:, 1]}
            return pd.DataFrame(out, index=index)
        for stat, values in ((".betp_", betp), (".bel_", bel), (".pl_", pl)):
            for j, lev in enumerate(self.classes):
                out[f"{stat}{lev}"] = values[:, j]
        out[".ignorance"] = ign
        lev = np.empty(self.n_classes, dtype=object)
        lev[:] = list(self.classes)
        out[".class"] = lev[np.argmax(betp, axis=1)] if len(index) else np.empty(0, dtype=object)
        return pd.DataFrame(out, index=index)

    def _summary_head(self, title: str) -> Summary:
        s = Summary(title)
        cf = self.class_frame
        s.add_info("Formula", self.formula)
        s.add_info("Training rows", f"{cf.n}" + (f" ({cf.n_dropped} dropped: missing values)" if cf.n_dropped else ""))
        s.add_info("Classes", ", ".join(f"{lev} ({int(c)})" for lev, c in self.class_counts.items()))
        s.add_info("Score columns", ", ".join(self.terms) + " (Euclidean distance on these columns as given; not rescaled)")
        s.add_info("Default decision", self.default_decision())
        return s

    # ---------------------------------------------------------------- persistence
    def _frame_dict(self) -> dict[str, Any]:
        return self.class_frame.to_dict()

    _frame_key: ClassVar[str] = "class_frame"

    @classmethod
    def _frame_schema(cls) -> schema.Spec:
        return CLASS_FRAME

    @classmethod
    def _class_frame_from(cls, d: Mapping[str, Any]) -> ClassFrame:
        return ClassFrame.from_dict(d["class_frame"])

    @classmethod
    def _frame_from_dict(cls, d: Mapping[str, Any]) -> ClassFrame:
        return cls._class_frame_from(d)
