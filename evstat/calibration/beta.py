"""Beta calibration: ``betacal`` (Kull, Silva Filho and Flach 2017), probabilistic and evidential.

Beta calibration maps a score ``s`` in (0, 1) (a classifier's probability estimate) by

    logit P(y = 1 | s) = a ln s - b ln(1 - s) + c,

a logistic GLM on the two design columns ``ln s`` and ``-ln(1 - s)``. Because it is a GLM, the
evidential version is exactly that of :func:`evstat.evlogit` on those columns: likelihood
``L(beta)`` with Platt's smoothed targets (or the labels), contour ``pl(beta) = L / L(beta_hat)``,
profile-likelihood intervals, and the predictive contour on theta of every test score with
Bel({1}), Pl({1}) by Minary et al. (2019), eqs. 25-26 and 54-58. :class:`BetaCalibration` is a
:class:`~evstat.calibration.logistic.LogitCalibration` whose design is built from the score.

Exact 0 and 1 (a forest's ``predict_proba[:, 1]``): the one rule of the K-class calibrators
(:func:`evstat.calibration.clipping.clip_rule`) on the probability vector ``(1 - s, s)``: eps is
half the smallest positive value of ``s`` and ``1 - s`` over the calibration rows, an entry
below it is raised to eps and the vector renormalised, so ``ln s`` and ``ln(1 - s)`` are finite;
new data get the fit's eps, and the summary says how many rows were clipped. Scores outside
[0, 1] (a decision function) are refused: use evlogit for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.special import log_expit

from evstat.calibration.base import CalibrationResults, score_axes
from evstat.calibration.logistic import _TARGETS, LogitCalibration, _targets, fit_logistic_likelihood
from evstat.results import Capabilities, register
from evstat.summary import Summary, format_number
from evstat.formula import ModelFrame, model_frame
from evstat.io import schema
from evstat.io.state import saved

__all__ = ["BetaCalibration", "betacal"]

_PARAMETERS = ("abm", "ab", "am")
_LOG2 = float(np.log(2.0))


def _check_parameters(parameters: str) -> str:
    if parameters not in _PARAMETERS:
        raise ValueError(
            f"parameters must be 'abm' (a, b and the midpoint m: 3 parameters, the default), "
            f"'ab' (m fixed at 0.5) or 'am' (a = b), got {parameters!r}"
        )
    return parameters


def _check_unit(s: NDArray, term: str, index: pd.Index, where: str, closed: bool = False) -> None:
    """Scores in (0, 1), or in [0, 1] with ``closed`` (the clipping rule handles 0 and 1)."""
    bad = ~((s >= 0.0) & (s <= 1.0)) if closed else ~((s > 0.0) & (s < 1.0))
    if bad.any():
        labels = ", ".join(repr(v) for v in list(index[bad][:5])) + (", ..." if bad.sum() > 5 else "")
        raise ValueError(
            f"beta calibration needs scores {'in [0, 1]' if closed else 'strictly between 0 and 1'} (probability "
            f"estimates), but score {term!r} of {where} is outside {'[0, 1]' if closed else '(0, 1)'} in "
            f"{int(bad.sum())} of {s.size} rows "
            f"(index {labels}; range [{np.min(s):.6g}, {np.max(s):.6g}]): calibrate unbounded "
            "scores such as SVM decision values with ev.evlogit, or map them into (0, 1) first"
        )


def _pair_logs(s: NDArray) -> NDArray:
    """``ln(1 - s), ln s`` as two columns (``-inf`` at exact 1 and 0)."""
    with np.errstate(divide="ignore"):
        return np.column_stack([np.log1p(-s), np.log(s)])


def _log_eps(s: NDArray) -> float:
    """ln eps of the clipping rule for scores ``s`` in [0, 1] (half the smallest positive value
    of ``s`` and ``1 - s``; module docstring)."""
    from evstat.calibration.clipping import clip_log_eps

    return clip_log_eps(_pair_logs(s), "log-probabilities")


def _features(s: NDArray, parameters: str, x: str, log_eps: float | None = None) -> tuple[NDArray, list[str]]:
    """The full beta-calibration design for scores ``s`` in (0, 1) (in [0, 1] with the clipping
    rule at ``log_eps``) and its term names."""
    if log_eps is None:
        ls = np.log(s)
        l1s = np.log1p(-s)
    else:
        from evstat.calibration.clipping import clip_rule

        L = clip_rule(_pair_logs(s), log_eps)
        l1s, ls = L[:, 0], L[:, 1]
    n = s.size
    if parameters == "abm":
        return np.column_stack([np.ones(n), ls, -l1s]), ["Intercept", f"log({x})", f"-log(1-{x})"]
    if parameters == "am":
        return np.column_stack([np.ones(n), ls - l1s]), ["Intercept", f"logit({x})"]
    return np.column_stack([_LOG2 + ls, -(_LOG2 + l1s)]), [f"log(2*{x})", f"-log(2*(1-{x}))"]


class BetaCalibration(LogitCalibration):
    """A fitted (evidential) beta calibration (returned by :func:`betacal`).

    Everything of :class:`~evstat.calibration.logistic.LogitCalibration` applies (``params``,
    ``bse``, ``conf_int``, ``profile``, ``likelihood_contour``, ``predictive_contour``,
    ``predictive_method``, ...), on the beta-calibration design columns:

    * ``parameters="abm"``: ``Intercept`` (c), ``log(s)`` (a), ``-log(1-s)`` (b);
    * ``parameters="am"``: ``Intercept`` (c), ``logit(s)`` (a = b);
    * ``parameters="ab"``: ``log(2*s)`` (a), ``-log(2*(1-s))`` (b), no intercept (m = 0.5).

    Attributes
    ----------
    parameters : {"abm", "ab", "am"}
    score : str
        The design column calibrated (must lie in [0, 1]; exact 0 and 1 clipped at the fit's eps).
    dropped : str or None
        With ``"abm"``, the term removed because its coefficient was negative (Kull et al.'s
        rule), else None.
    a, b, c, m : float
        Kull et al.'s parameters: ``logit p = a ln s - b ln(1 - s) + c``; ``m`` is the score
        calibrated to 0.5 (NaN where it does not exist).
    """

    method = "betacal"
    capabilities = Capabilities(profiles=True, contours=True, refit=True, single_score=True, accepts=("decision",))

    def __init__(
        self,
        mf: ModelFrame,
        parameters: str = "abm",
        targets: str = "platt",
        refit_negative: bool = True,
        params: ArrayLike | None = None,
        active: list[int] | None = None,
        log_eps: float | None = None,
    ) -> None:
        self.model_frame = mf
        self.parameters = _check_parameters(parameters)
        self.refit_negative = bool(refit_negative)
        cols = score_axes(mf, "betacal")
        if len(cols) > 1:
            raise ValueError(
                f"betacal calibrates one score in (0, 1), but formula {mf.formula!r} has "
                f"{len(cols)} score columns {[mf.terms[j] for j in cols]}: fit one score, e.g. "
                "'y ~ p', or use ev.disjoint(..., method='betacal')"
            )
        self._col = cols[0]
        self.score = mf.terms[self._col]
        s = np.asarray(mf.X)[:, self._col]
        # a new fit fixes the rule's eps; a fit saved by older evstat has none (0 and 1 refused)
        _check_unit(s, self.score, mf.index, "the calibration data", closed=params is None or log_eps is not None)
        if params is None and log_eps is None:
            log_eps = _log_eps(s)
        #: ln eps of the rule for exact 0 and 1 (module docstring); None: a fit of older evstat
        self.log_eps = None if log_eps is None else float(log_eps)
        Z, terms = _features(s, self.parameters, self.score, self.log_eps)
        self._all_terms = terms
        if params is None:
            active = list(range(len(terms)))
            if self.parameters == "abm" and self.refit_negative:
                lik, _ = fit_logistic_likelihood(Z, _targets(np.asarray(mf.y), targets), terms, None, targets)
                a, b = lik.beta_hat[1], lik.beta_hat[2]
                if a < 0:
                    active = [0, 2]
                elif b < 0:
                    active = [0, 1]
        else:
            active = list(range(len(terms))) if active is None else [int(j) for j in active]
        self._active = active
        self._Z = np.ascontiguousarray(Z[:, active])
        LogitCalibration.__init__(self, mf, targets, params, design=(self._Z, [terms[j] for j in active]))

    # ------------------------------------------------------------------ design
    @property
    def dropped(self) -> str | None:
        """The term dropped by Kull et al.'s rule for a negative coefficient (``"abm"``)."""
        gone = [t for j, t in enumerate(self._all_terms) if j not in self._active]
        return gone[0] if gone else None

    def _design(self, newdata: pd.DataFrame | None, missing: str = "raise") -> tuple[NDArray, pd.Index]:
        if newdata is None:
            return self._Z, self.model_frame.index
        X, index = CalibrationResults._design(self, newdata, missing)
        s = X[:, self._col]
        _check_unit(s, self.score, index, "newdata", closed=self.log_eps is not None)
        Z, _ = _features(s, self.parameters, self.score, self.log_eps)
        return np.ascontiguousarray(Z[:, self._active]), index

    _glm_by_terms = False  # its coefficients belong to log(s), -log(1 - s), not to formula terms

    def _glm_settings(self) -> dict[str, Any]:
        return {"parameters": self.parameters, "targets": self.targets, "refit_negative": self.refit_negative,
                "positive": self.positive}

    def _glm_refit(self, formula: str, data: pd.DataFrame, **settings: Any) -> BetaCalibration:
        return betacal(formula, data, **settings)

    # ------------------------------------------------------------------ Kull et al.'s parameters
    def _coef(self, j: int) -> float:
        return float(self._lik.beta_hat[self._active.index(j)]) if j in self._active else 0.0

    @property
    def a(self) -> float:
        """Coefficient of ``ln s``."""
        return self._coef(1) if self.parameters in ("abm", "am") else self._coef(0)

    @property
    def b(self) -> float:
        """Coefficient of ``-ln(1 - s)`` (equal to ``a`` for ``"am"``)."""
        if self.parameters == "am":
            return self._coef(1)
        return self._coef(2) if self.parameters == "abm" else self._coef(1)

    @property
    def c(self) -> float:
        """The constant: ``logit p = a ln s - b ln(1 - s) + c``."""
        if self.parameters == "ab":
            return (self.a - self.b) * _LOG2
        return self._coef(0)

    @property
    def m(self) -> float:
        """The midpoint: the score whose calibrated probability is 0.5 (Kull et al.'s m).

        Exactly 0.5 for ``"ab"``. Otherwise the root of ``a ln m - b ln(1 - m) + c = 0``,
        which is unique when a, b >= 0 (not both 0); NaN when the calibration map does not cross
        0.5 in (0, 1).
        """
        if self.parameters == "ab":
            return 0.5
        a, b, c = self.a, self.b, self.c

        def g(u: float) -> float:  # logit of the calibrated probability at s = expit(u)
            return a * float(log_expit(u)) - b * float(log_expit(-u)) + c

        lo, hi = -745.0, 745.0
        glo, ghi = g(lo), g(hi)
        if not (np.isfinite(glo) and np.isfinite(ghi)) or glo * ghi > 0:
            return float("nan")
        if glo == 0.0:
            return float(np.exp(log_expit(lo)))
        from scipy.optimize import brentq  # where first needed (import-time rules)

        u = brentq(g, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500)
        return float(np.exp(log_expit(u)))

    @property
    def kull_map(self) -> tuple[float, float, float]:
        """``(a, b, m)`` as the ``map_`` of Kull et al.'s reference code."""
        return self.a, self.b, self.m

    # ------------------------------------------------------------------ verbs
    def glance(self) -> pd.DataFrame:
        """As :meth:`LogitCalibration.glance`, plus ``parameters``, ``a``, ``b``, ``m`` and
        ``dropped`` (the term removed for a negative coefficient, or None)."""
        g = super().glance()
        g.insert(1, "parameters", self.parameters)
        g["a"] = self.a
        g["b"] = self.b
        g["m"] = self.m
        g["dropped"] = self.dropped
        return g

    def summary(self, level: float = 0.95) -> Summary:
        """The evlogit summary on the beta design, with Kull et al.'s a, b, m."""
        s = super().summary(level)
        s.title = "Evidential beta calibration (betacal)"
        model = {
            "abm": "logit(p) = a log(s) - b log(1-s) + c",
            "am": "logit(p) = a logit(s) + c  (a = b)",
            "ab": "logit(p) = a log(2s) - b log(2(1-s))  (m = 0.5, no intercept)",
        }[self.parameters]
        extra = [
            ("Model", f"beta calibration '{self.parameters}': {model}, s = {self.score}"),
            ("Kull et al.", f"a = {format_number(self.a, 6)}, b = {format_number(self.b, 6)}, "
                            f"m = {format_number(self.m, 6)}"),
        ]
        if self.dropped is not None:
            extra.append(("Dropped", f"{self.dropped} (negative coefficient; refitted without it, as Kull et al.)"))
        if self.log_eps is not None:
            from evstat.calibration.clipping import clip_note, clipped_rows

            s_cal = np.asarray(self.model_frame.X)[:, self._col]
            n_clip = int(clipped_rows(_pair_logs(s_cal), "log-probabilities", self.log_eps).sum())
            extra.append(("Exact 0 and 1", clip_note(n_clip, s_cal.size, self.log_eps)))
        s.info[1:1] = extra
        return s

    # ------------------------------------------------------------------ persistence
    @dataclass(frozen=True, kw_only=True)
    class State:
        """What a saved betacal holds beyond its model frame (evstat.io.state)."""

        targets: str = saved(schema.Str(choices=list(_TARGETS)))
        parameters: str = saved(schema.Str(choices=list(_PARAMETERS)))
        refit_negative: bool = saved()
        #: the terms of (log s, -log(1 - s), 1) kept in the fit, and their coefficients
        active: list[int] = saved(schema.List(schema.Int(min=0, max=2), min_len=1, max_len=3, what="terms"),
                                  attribute="_active", encode=list)
        params: list[float] = saved(schema.List(schema.Float(), length=schema.Ref("active", "active lists {n} terms")),
                                    attribute="_lik.beta_hat")
        #: ln eps of the rule for exact 0 and 1; absent in files of older evstat (0 and 1 refused)
        log_eps: float | None = saved(schema.Float(nullable=True), encode=lambda v: None if v is None else float(v),
                                      default=None)




def betacal(
    formula: str,
    data: pd.DataFrame,
    parameters: str = "abm",
    targets: str = "platt",
    refit_negative: bool = True,
    positive: Any = None,
    missing: str = "raise",
) -> BetaCalibration:
    """Beta calibration (Kull, Silva Filho and Flach 2017) with its evidential version.

    Fits ``logit P(y = positive | s) = a ln s - b ln(1 - s) + c`` to one score ``s`` in (0, 1)
    as a logistic GLM on the design columns ``ln s`` and ``-ln(1 - s)``, then proceeds exactly
    as :func:`evstat.evlogit` on that design: profile-likelihood intervals for the
    coefficients, and for every test score the predictive contour on theta (the relative profile
    likelihood of the linear predictor) and Bel({1}), Pl({1}) (Minary et al. 2019, eqs. 25-26).

    Parameters
    ----------
    formula : str
        One score in [0, 1] (exact 0 and 1 clipped): ``"y ~ p"`` (the formula's intercept plays no role; ``parameters``
        decides the model). Patsy transforms work, e.g. ``"y ~ expit(svm1)"``.
    data : pandas.DataFrame
        Calibration data.
    parameters : {"abm", "ab", "am"}
        ``"abm"`` (default): a, b and c free (3 parameters). ``"am"``: a = b, i.e.
        ``logit p = a logit(s) + c`` (2 parameters). ``"ab"``: m fixed at 0.5, i.e. the
        design ``ln(2s)``, ``-ln(2(1 - s))`` without intercept, as Kull et al.'s reference code.
    targets : {"platt", "binary"}
        Platt's smoothed targets (default, as evlogit: the maximum-likelihood estimate always
        exists) or the 0/1 labels (Kull et al.'s reference code, which fits an unpenalised
        logistic regression on the labels).
    refit_negative : bool
        With ``"abm"``: if the fitted a is negative, refit without ``ln s`` (a = 0); else if b
        is negative, refit without ``-ln(1 - s)`` (b = 0), as Kull et al.'s reference code
        (R and Python ``betacal``), so that the map is monotone. The evidential inference is
        then that of the reduced model. ``"ab"`` and ``"am"`` are never refitted (neither are
        they in the reference code).
    positive, missing
        As :func:`evstat.evlogit`.

    Returns
    -------
    BetaCalibration

    Raises
    ------
    ValueError
        Scores outside [0, 1] (use evlogit for unbounded scores; exact 0 and 1 are clipped by the
        rule of the module docstring), more than one score column, or an unknown ``parameters``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import evstat as ev
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0.02, 0.98, 200)
    >>> cal = pd.DataFrame({"p": s, "y": (rng.uniform(size=200) < s**2).astype(int)})
    >>> fit = ev.betacal("y ~ p", cal)
    >>> fit.terms
    ['Intercept', 'log(p)', '-log(1-p)']
    >>> b = fit.predict(pd.DataFrame({"p": [0.1, 0.5, 0.9]}), type="belief")
    >>> bool(((b.bel <= b.theta) & (b.theta <= b.pl)).all())
    True
    """
    _check_parameters(parameters)
    mf = model_frame(formula, data, positive=positive, missing=missing)
    return BetaCalibration(mf, parameters=parameters, targets=targets, refit_negative=refit_negative)


register(BetaCalibration, example=lambda y, d: betacal(f"{y} ~ s1", d), fitter=betacal)
