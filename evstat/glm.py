"""R's modelling verbs for the likelihood-based models: ``predict(type="link" | "response",
se_fit=True)``, ``resid``, ``anova`` / ``lr_test`` and ``update`` (issue 27).

The models that have them (evlogit, betacal, evmultinom, temperature, vector_scaling,
matrix_scaling, dirichlet) are all multinomial logistic models whose class logits are linear in
the coefficients: for a row x, ``logit_k(x) = G_k(x) . beta`` (``G`` the row's logit design, one
row per class, ``beta`` the ``d`` coefficients) and ``p_k = softmax_k(logit(x))``. Two classes
are K = 2 of the same model (evlogit: ``G_0 = 0``, ``G_1 = x``). Every verb here is written once
on that form; a model supplies its ``G``, ``beta``, covariance and fitting targets
(:class:`GlmVerbs`, the hooks ``_glm_design``, ``_glm_coef``, ``_glm_cov``, ``_glm_targets``).

Link and response (R's ``predict.glm``). The link of class k is ``eta_k = log(p_k / p_0)``
(the first class the reference, as R's ``glm`` for two classes and ``nnet::multinom`` for K),
so ``eta_k = (G_k - G_0) . beta``; its standard error is ``sqrt(J V J')`` with
``J = G_k - G_0`` and ``V`` the covariance of ``beta`` (the inverse observed information). The
response is ``p_k``; its standard error is the delta method, ``J = dp_k / dbeta =
p_k (G_k - sum_j p_j G_j)``, which for two classes is ``p (1 - p) se(eta)`` as in
``predict.glm(type = "response", se.fit = TRUE)``.

Return shapes (consistent with ``type="prob"`` and ``"belief"``): two classes, a Series (named
``"link"`` or ``"response"``, the positive class) or with ``se_fit=True`` a DataFrame
``[fit, se_fit]``; K >= 3 classes, a DataFrame with one column per class but the reference
(``"link"``) or per class (``"response"``), or with ``se_fit=True`` two-level columns
``(stat, class)``, ``stat`` in ``fit``, ``se_fit`` (as ``"belief"``'s ``(stat, class)``).

Residuals (R's ``residuals.glm``), on the calibration rows, indexed like them. With ``y`` the
fitting response (the targets the likelihood uses: Platt's smoothed targets by default, as R's
``glm`` given that fractional response; 0/1 with ``targets="binary"``) and ``mu`` the fitted
probability of the positive class: ``"response"`` ``y - mu``; ``"pearson"``
``(y - mu) / sqrt(mu (1 - mu))``; ``"working"`` ``(y - mu) / max(mu (1 - mu), eps)`` (R's
``mu.eta`` bound); ``"deviance"`` ``sign(y - mu) sqrt(d_i)``,
``d_i = 2 [y log(y / mu) + (1 - y) log((1 - y) / (1 - mu))]``, so that the squares sum to the
residual deviance. K >= 3 classes: ``"response"``, ``"pearson"``, ``"working"`` are DataFrames
with one column per class of ``y_k - p_k`` and the same per-class scalings (R's
``residuals(multinom)`` is the response one), ``"deviance"`` a Series of
``sqrt(d_i)``, ``d_i = 2 sum_k y_k log(y_k / p_k)`` (``sqrt(-2 log p_y)`` for 0/1 labels;
unsigned: every row's observed class has ``y - p >= 0``), whose squares again sum to the
deviance. All in log space (log-softmax), so probabilities that round to 0 or 1 give finite
deviance residuals.

Analysis of deviance (R's ``anova(fit0, fit1, test = "Chisq")``). For fits of the same family
on the same rows, the table ``Resid. Df, Resid. Dev, Df, Deviance, Pr(>Chi)`` with
``Resid. Df = n (K - 1) - d`` (``n - p`` for two classes, as R's glm; as ``anova.multinom`` for
K), ``Df`` and ``Deviance`` the differences to the previous row, and the chi-squared p-value of
``Deviance * sign(Df)`` on ``|Df|`` degrees of freedom (R's ``stat.anova``: NA when ``Df = 0``
or the statistic is negative). Checked before anything is computed, each with a message: the
fits are likelihood models of one family (two or K classes, the same targets), on the same rows
(count, index, response values, and the values of shared score columns) and consecutive fits are
nested (the column space of the smaller model's logit design ``G_k - G_0``, stacked over rows and
classes, lies in the larger one's: a reparametrisation such as ``s`` versus ``I(2 * s)`` is
nested, ``y ~ s1`` and ``y ~ s2`` are not). The statistic is the likelihood ratio of the
fitting targets (with Platt's targets, the difference of the smoothed deviances, as R's glm on
that response).

``update`` (R's ``update`` and ``update.formula``). ``.`` on the left stands for the old
response and on the right for the old right-hand side; terms are then added (``+ x``) or removed
(``- x``, ``- 1``) by patsy's term algebra (which has R's rules for ``*``, ``:``, ``**``,
``-``), and the terms are ordered as R orders them (by degree, then first appearance). The
refit keeps every other setting of the fit (targets, positive level, code matrix, ...); without
``data=`` it refits on the calibration rows the fit used (their score and response columns).
"""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat.formula import split_formula
from evstat.results import RESULT_TYPES, Results

__all__ = [
    "AnovaTable",
    "GLM_TYPES",
    "GlmVerbs",
    "LRTest",
    "RESIDUAL_TYPES",
    "anova",
    "lr_test",
    "update_formula",
]

#: the ``predict(type=...)`` values of the linear-predictor models (R's ``predict.glm`` types)
GLM_TYPES = ("link", "response")
#: the ``resid(type=...)`` values (R's ``residuals.glm`` types)
RESIDUAL_TYPES = ("deviance", "pearson", "response", "working")
#: entries of the (rows x classes x coefficients) logit design built at once (bounds memory)
BLOCK_ENTRIES = 1 << 22
#: relative residual of a smaller design's column after projection on the larger design above
#: which the fits are not nested
NESTED_TOL = 1e-7
_EPS = float(np.finfo(float).eps)


# ------------------------------------------------------------------------------------------------
# update.formula
# ------------------------------------------------------------------------------------------------


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError) as err:
        raise ValueError(f"cannot read formula side {text!r}: {err}") from None
    return [t for t in toks if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT,
                                               tokenize.DEDENT)]


def _replace_dot(side: str, by: str) -> tuple[str, bool]:
    """``side`` with every standalone ``.`` (not an attribute access such as ``np.log``, not a
    decimal point) replaced by ``by``; and whether there was one."""
    toks = _tokens(side)
    out, found, last = [], False, 0
    lines = side.splitlines(keepends=True) or [""]
    starts = np.cumsum([0] + [len(s) for s in lines]).tolist()

    def offset(pos: tuple[int, int]) -> int:
        return int(starts[pos[0] - 1]) + pos[1]

    for i, t in enumerate(toks):
        if t.type == tokenize.OP and t.string == ".":
            prev = toks[i - 1] if i else None
            after = toks[i + 1] if i + 1 < len(toks) else None
            attribute = (prev is not None and (prev.type == tokenize.NAME or prev.string in (")", "]"))
                         and after is not None and after.type == tokenize.NAME)
            if not attribute:
                a, b = offset(t.start), offset(t.end)
                out.append(side[last:a])
                out.append(by)
                last, found = b, True
    out.append(side[last:])
    return "".join(out), found


def _rhs_terms(rhs: str) -> tuple[bool, list[str]]:
    """Whether the right-hand side ``rhs`` has an intercept, and its other terms' names after
    patsy's term algebra, in R's order (by degree, then first appearance)."""
    from patsy import PatsyError

    from evstat.formula import formula_terms, limits

    text = f"y ~ {rhs}"
    limits.check_text(text)  # the formula's size limits (FormulaLimitError names the limit)
    try:
        terms = formula_terms(text).rhs_termlist  # patsy's terms without recursion; x.1 kept whole
    except PatsyError as err:
        raise ValueError(f"cannot simplify the right-hand side {rhs[:200]!r}: {err}") from None
    intercept = any(len(t.factors) == 0 for t in terms)
    rest = sorted((t for t in terms if t.factors), key=lambda t: len(t.factors))  # stable: R's order
    return intercept, [t.name() for t in rest]


def _render_rhs(rhs: str) -> str:
    """The right-hand side simplified (:func:`_rhs_terms`); ``- 1`` at the end when there is no
    intercept, as R prints it."""
    intercept, names = _rhs_terms(rhs)
    if not names:
        return "1" if intercept else "0"
    return " + ".join(names) + ("" if intercept else " - 1")


def update_formula(old: str, new: str) -> str:
    """R's ``update.formula``: the formula ``new`` with ``.`` standing for the sides of ``old``.

    On the left of ``new``, ``.`` is the old response (a missing left-hand side keeps it); on the
    right, ``.`` is the old right-hand side. The result is simplified as R does (``- x``
    removes a term, ``- 1`` the intercept; ``*``, ``:``, ``**`` by patsy's rules, which are R's)
    and its terms ordered by degree, then by first appearance. Nothing is evaluated.

    Parameters
    ----------
    old : str
        The fitted formula, ``"y ~ svm1 + svm2 + svm3"``.
    new : str
        ``"~ . - svm3"``, ``". ~ . + svm4"``, ``"~ svm1"``, ``"z ~ ."``.

    Returns
    -------
    str

    Examples
    --------
    >>> update_formula("y ~ svm1 + svm2 + svm3", "~ . - svm3")
    'y ~ svm1 + svm2'
    >>> update_formula("y ~ svm1 * svm2", "~ . - svm1")
    'y ~ svm2 + svm1:svm2'
    >>> update_formula("y ~ np.log(s) + t", ". ~ . - 1")
    'y ~ np.log(s) + t - 1'
    """
    if not isinstance(new, str) or not isinstance(old, str):
        raise TypeError(f"formulas must be strings, got {type(old).__name__} and {type(new).__name__}")
    old_lhs, old_rhs = split_formula(old)
    text = new.strip()
    if text.startswith("~"):
        new_lhs, new_rhs = "", text[1:].strip()
        if "~" in new_rhs:
            split_formula("y " + text)  # raises the parser's message for a second "~"
    else:
        if "~" not in text:
            raise ValueError(
                f"the new formula {new!r} has no '~': write the change as a formula, e.g. '~ . - svm3' "
                "(drop svm3), '~ . + svm4' (add svm4) or '. ~ svm1' (a new right-hand side)"
            )
        new_lhs, new_rhs = split_formula(text)
    if not new_rhs:
        raise ValueError(f"the new formula {new!r} has an empty right-hand side: write '~ .' to keep the old one")
    lhs = old_lhs if not new_lhs else _replace_dot(new_lhs, old_lhs)[0]
    rhs, _ = _replace_dot(new_rhs, f"({old_rhs})")
    return f"{lhs.strip()} ~ {_render_rhs(rhs)}"


# ------------------------------------------------------------------------------------------------
# the verbs of one fit
# ------------------------------------------------------------------------------------------------


def _log_softmax(L: NDArray[np.float64]) -> NDArray[np.float64]:
    top = L.max(axis=1, keepdims=True)
    return L - (top + np.log(np.exp(L - top).sum(axis=1, keepdims=True)))


class GlmVerbs(Results):
    """The glm verbs of a model whose class logits are linear in its coefficients (a mixin:
    listed after the family's results base, ``class LogitCalibration(CalibrationResults,
    GlmVerbs)``, so that the family's members come first).

    Provides :meth:`_predict_glm` (called by the family's ``_predict`` hook for ``type="link"``
    and ``"response"``; ``Results.predict`` accepts them through :attr:`result_types`),
    :meth:`predict_glm`, :meth:`resid` / :meth:`residuals`, :meth:`update`, and the facts
    :func:`anova` reads. A family implements the hooks below.
    """

    result_types: ClassVar[tuple[str, ...]] = (*RESULT_TYPES, *GLM_TYPES)

    # ---------------------------------------------------------------- hooks
    def _glm_design(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """The logit design ``G`` of design rows ``X``: shape (rows, K, d)."""
        raise NotImplementedError

    def _glm_coef(self) -> NDArray[np.float64]:
        """The ``d`` coefficients ``beta``."""
        raise NotImplementedError

    def _glm_cov(self) -> NDArray[np.float64] | None:
        """Their covariance (inverse observed information), or None where there is none."""
        raise NotImplementedError

    def _glm_targets(self) -> NDArray[np.float64]:
        """The fitting response of the training rows, (n, K), rows summing to 1."""
        raise NotImplementedError

    def _glm_targets_name(self) -> str:
        """How the targets are made, for the family's name (``"Platt targets"``, ``"0/1 labels"``)."""
        return "0/1 labels"

    def _glm_term_names(self) -> list[str]:
        """Names of the ``d`` coefficients."""
        raise NotImplementedError

    def _glm_penalised(self) -> bool:
        """True when the fit maximises a penalised likelihood (no anova, no standard errors)."""
        return False

    def _glm_penalty(self) -> NDArray[np.float64] | None:
        """The ridge weights ``w`` of a penalised fit that minimises ``NLL(beta) + n beta' diag(w)
        beta`` (dirichlet's ODIR), for the load check; None when the penalty is not of that form."""
        return None

    #: whether every coefficient belongs to a term of the formula (``anova(fit)`` of one fit
    #: refits the formula's terms one at a time): evlogit, evmultinom
    _glm_by_terms: ClassVar[bool] = False

    def _glm_settings(self) -> dict[str, Any]:
        """The fitter's keyword arguments that reproduce this fit's settings (for update)."""
        raise NotImplementedError

    def _glm_refit(self, formula: str, data: pd.DataFrame, **settings: Any) -> GlmVerbs:
        """Fit the same model with ``formula`` on ``data`` (the public fitter)."""
        raise NotImplementedError

    def _glm_formula(self) -> str:
        """The formula as the user wrote it (what ``update`` edits)."""
        return self.formula

    def _design(self, newdata: pd.DataFrame | None, missing: str = "raise") -> tuple[NDArray, pd.Index]:
        """Design rows and index of ``newdata`` (the training rows for None); the family's."""
        raise NotImplementedError

    def _glm_old_formula(self) -> str:
        """The formula ``update`` edits, with a ``.`` of the fitted formula (every other column)
        expanded into the fitted terms, as R's ``formula(fit)``."""
        f = self._glm_formula()
        lhs, rhs = split_formula(f)
        if not _replace_dot(rhs, "")[1]:
            return f
        frame = getattr(self, "model_frame", None)
        if frame is None:
            frame = getattr(getattr(self, "class_frame", None), "design", None)
        info = getattr(frame, "design_info", None)
        if info is None:
            raise ValueError(f"cannot update {f!r}: its '.' cannot be expanded; refit with the terms written out")
        names = [t.name() for t in info.terms if t.factors]
        intercept = any(not t.factors for t in info.terms)
        return f"{lhs} ~ " + (" + ".join(names) or "1") + ("" if intercept or not names else " - 1")

    #: the largest Newton decrement ``U' I^-1 U`` (twice the log-likelihood a Newton step from
    #: the saved coefficients would gain) that a saved maximum-likelihood fit may have: a
    #: converged fit has about 1e-10, an edited coefficient far more; the margin leaves room for
    #: fits that stopped near a boundary (separation), whose loads must not be refused
    _GLM_OPTIMUM_TOL: ClassVar[float] = 1e-2

    #: an eigenvalue of the information below this fraction of the largest is a flat direction
    #: (the separable iris scores: 1e-14 relative; a fit with a maximum: above 1e-6 in the tests)
    _GLM_FLAT: ClassVar[float] = 1e-9

    def _glm_check(self) -> tuple[float, int]:
        """The load check's two numbers on the saved (or fitted) data: the Newton decrement
        ``U' I^+ U`` of the score equations at the coefficients (of the penalised likelihood for
        a ridge penalty), and the number of *flat* directions, along which the information
        vanishes beyond the model's exact invariances (directions ``v`` with every ``G_i v``
        constant across the classes: a softmax shift, found from the design alone). A flat
        direction is one along which the likelihood is constant to rounding at the coefficients:
        the scores separate some calibration rows (their probabilities are 0 and 1), and
        coefficients moved along it solve the score equations as well. Computed once per fit."""
        memo = self.__dict__.get("_glm_check_memo")
        if memo is not None:
            return memo
        pen = self._glm_penalty()
        beta = np.asarray(self._glm_coef(), dtype=np.float64)
        X, _ = self._design(None)
        G = self._glm_design(np.asarray(X, dtype=np.float64))
        T = np.asarray(self._glm_targets(), dtype=np.float64)
        logp = _log_softmax(G @ beta)
        P = np.exp(logp)
        n, K, d = G.shape
        U = np.einsum("nkd,nk->d", G, T - P)
        GP = np.einsum("nkd,nk->nd", G, P)
        A = G.reshape(n * K, d)  # the sums over rows and classes as matrix products (BLAS)
        info = A.T @ (A * P.reshape(n * K, 1)) - GP.T @ GP
        if self._glm_penalised() and pen is not None:
            U = U - 2.0 * n * pen * beta
            info = info + 2.0 * n * np.diag(pen)
        decrement = float(U @ np.linalg.pinv(info, hermitian=True) @ U)
        Gc = (G - G.mean(axis=1, keepdims=True)).reshape(n * K, d)
        ev_info = np.linalg.eigvalsh(info)
        ev_shift = np.linalg.eigvalsh(Gc.T @ Gc)
        flat = int(np.sum(ev_info <= self._GLM_FLAT * max(float(ev_info.max(initial=0.0)), 1e-300)))
        exact = int(np.sum(ev_shift <= 1e-10 * max(float(ev_shift.max(initial=0.0)), 1e-300)))
        out = (decrement, max(flat - exact, 0))
        self.__dict__["_glm_check_memo"] = out
        return out

    def _unverified(self) -> str | None:
        """Why the load check cannot verify the coefficients: the fit did not converge (its
        recorded ``converged`` is False), or the information at them is flat along some
        direction (separable calibration rows); None when it can (:attr:`load_check`). Penalised
        fits whose penalty is not a ridge are not checked here (None)."""
        if self._glm_penalised() and self._glm_penalty() is None:
            return None
        if getattr(self, "converged", True) is False:
            return ("the maximum-likelihood fit did not converge, so its coefficients are not the unique solution of "
                    "the score equations")
        _, flat = self._glm_check()
        if flat:
            return (f"the likelihood is flat along {flat} direction{'s' if flat > 1 else ''} of the coefficients at "
                    "the fit (the scores separate some calibration rows), so coefficients moved along "
                    f"{'them' if flat > 1 else 'it'} solve the score equations too")
        return None

    @property
    def load_check(self) -> str:
        """What :func:`evstat.load` verifies of this fit's coefficients on its saved data: the
        score equations (a Newton decrement at most :attr:`_GLM_OPTIMUM_TOL`), or why it cannot
        (a fit that did not converge, or separable calibration rows: then only a signature
        protects a saved file, and an unsigned load warns with
        :class:`evstat.results.UnverifiedLoadWarning`).

        Examples
        --------
        >>> import evstat as ev
        >>> d = ev.datasets.load("sonar_scores")
        >>> fit = ev.evlogit("y ~ svm1", d[d.set == "calibration"])
        >>> fit.load_check.startswith("the score equations")
        True
        """
        if self._glm_penalised() and self._glm_penalty() is None:
            return "nothing of the coefficients (a penalised fit whose penalty is not a ridge); only a signature protects them"
        why = self._unverified()
        if why:
            return f"not the coefficients: {why}; only a signature protects them"
        dec, _ = self._glm_check()
        return (f"the score equations on the saved calibration data (Newton decrement {dec:.3g} <= "
                f"{self._GLM_OPTIMUM_TOL:g})")

    def _verify_loaded(self, source: str) -> None:
        """A loaded maximum-likelihood fit must solve its score equations on the saved data.

        The score is ``U = sum_i G_i' (t_i - p_i)`` with ``p_i = softmax(G_i beta)`` and the
        information ``I = sum_i G_i' (diag p_i - p_i p_i') G_i``; the file is refused when the
        Newton decrement ``U' I^+ U`` exceeds :attr:`_GLM_OPTIMUM_TOL` (an edited coefficient,
        even with a recomputed checksum). A penalised fit with a ridge penalty
        (:meth:`_glm_penalty`, dirichlet's ODIR: ``NLL + n beta' diag(w) beta``) is checked on
        its own optimality condition, ``U - 2 n w beta = 0`` with the information ``I + 2 n
        diag(w)``; other penalised fits are not checked here. A consistent edit of the class
        labels (swapped classes and ``positive``) keeps the score equations and is caught only
        by a signature (``ev.load(path, key=...)``). Where the fit did not converge or the
        calibration rows are separable the check cannot verify the coefficients
        (:meth:`_unverified`, :attr:`load_check`): :func:`evstat.load` then warns for an
        unsigned file.
        """
        super()._verify_loaded(source)
        if self._glm_penalised() and self._glm_penalty() is None:
            return
        decrement, _ = self._glm_check()
        if not np.isfinite(decrement) or decrement > self._GLM_OPTIMUM_TOL:
            from evstat.io.schema import SchemaError

            what = " (of the penalised likelihood)" if self._glm_penalised() else ""
            raise SchemaError(
                f"{source} holds {self.method} coefficients that are not the maximum-likelihood "
                f"estimate{what} on its saved calibration data (the score equations are off: Newton "
                f"decrement {decrement:.3g} > {self._GLM_OPTIMUM_TOL:g}); the file was edited after "
                "it was fitted. Refit and save the model again"
            )

    # ---------------------------------------------------------------- derived facts
    @property
    def glm_family(self) -> str:
        """The likelihood: ``"binomial logit, Platt targets"``, ``"multinomial logit, 0/1
        labels"``, ...; fits compared by :func:`anova` must share it."""
        kind = "binomial" if self.n_classes == 2 else "multinomial"
        return f"{kind} logit, {self._glm_targets_name()}"

    def _blocks(self, m: int) -> range:
        d = max(1, int(self._glm_coef().size))
        step = max(1, BLOCK_ENTRIES // (self.n_classes * d))
        return range(0, m, step)

    def _glm_logits(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        beta = self._glm_coef()
        out = np.empty((X.shape[0], self.n_classes))
        step = self._blocks(X.shape[0]).step
        for a in self._blocks(X.shape[0]):
            out[a : a + step] = np.einsum("mkd,d->mk", self._glm_design(X[a : a + step]), beta)
        return out

    def _glm_reduced_design(self) -> NDArray[np.float64]:
        """``G_k - G_0`` of the training rows for k >= 1, stacked: (n (K - 1), d)."""
        X, _ = self._design(None)
        G = self._glm_design(np.asarray(X, dtype=np.float64))
        return (G[:, 1:, :] - G[:, :1, :]).reshape(-1, G.shape[2])

    @property
    def glm_deviance(self) -> float:
        """``2 sum_i sum_k y_ik log(y_ik / p_ik)`` of the fitting targets (R's residual deviance;
        evlogit's and evmultinom's ``deviance``)."""
        from scipy.special import xlogy

        T = self._glm_targets()
        X, _ = self._design(None)
        logp = _log_softmax(self._glm_logits(np.asarray(X, dtype=np.float64)))
        return float(2.0 * (np.sum(xlogy(T, T)) - np.sum(np.where(T > 0, T * logp, 0.0))))

    @property
    def glm_df_resid(self) -> int:
        """``n (K - 1) - d``: R's residual degrees of freedom (glm: ``n - p``; multinom)."""
        return int(self.nobs * (self.n_classes - 1) - self._glm_coef().size)

    # ---------------------------------------------------------------- inference members
    # statsmodels' names, from one implementation fed by each family's params, bse, covariance
    # (_glm_cov) and likelihood (_glm_design, _glm_targets); evlogit and evmultinom define
    # their own (same conventions), the scaling calibrators take these (issue 38 item 1)
    def _glm_shaped(self, values: NDArray[np.float64], name: str) -> pd.Series | pd.DataFrame:
        params = getattr(self, "params")
        if isinstance(params, pd.DataFrame):
            return pd.DataFrame(np.asarray(values).reshape(params.shape), index=params.index, columns=params.columns)
        return pd.Series(np.asarray(values), index=params.index, name=name)

    @property
    def tvalues(self) -> pd.Series | pd.DataFrame:
        """Wald statistics ``estimate / std_error`` (R's ``z value``; NaN without standard
        errors, e.g. a penalised fit)."""
        est = np.asarray(getattr(self, "params"), dtype=float)
        se = np.asarray(getattr(self, "bse"), dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            return self._glm_shaped(est / se, "z")

    @property
    def pvalues(self) -> pd.Series | pd.DataFrame:
        """Two-sided Wald p-values ``2 Phi(-|z|)`` (R's ``Pr(>|z|)``)."""
        from scipy.special import ndtr

        z = np.asarray(self.tvalues, dtype=float)
        return self._glm_shaped(2.0 * ndtr(-np.abs(z)), "p_value")

    def cov_params(self) -> pd.DataFrame:
        """Covariance of the estimates (inverse observed information), indexed by term (NaN
        where the fit has none: a penalised fit)."""
        names = list(getattr(self, "params").index)
        cov = self._glm_cov()
        arr = np.full((len(names), len(names)), np.nan) if cov is None else np.asarray(cov, dtype=float)
        return pd.DataFrame(arr, index=names, columns=names)

    def _glm_loglik(self, T: NDArray[np.float64]) -> float:
        """``sum_i sum_k T_ik log p_ik`` at the fitted coefficients on the calibration rows."""
        X, _ = self._design(None)
        logp = _log_softmax(self._glm_logits(np.asarray(X, dtype=np.float64)))
        return float(np.sum(np.where(T > 0, T * logp, 0.0)))

    @property
    def loglike(self) -> float:
        """Log-likelihood of the fitting targets at the fitted coefficients (of the likelihood
        alone for a penalised fit, without its penalty)."""
        return self._glm_loglik(np.asarray(self._glm_targets(), dtype=np.float64))

    @property
    def llf(self) -> float:
        """statsmodels' name of :attr:`loglike` (``LikelihoodModelResults.llf``; R's ``logLik``)."""
        return self.loglike

    @property
    def loglike_labels(self) -> float:
        """Log-likelihood of the 0/1 labels at the fitted coefficients (equal to :attr:`loglike`
        for 0/1 targets): the one the AIC uses, as R's glm and multinom."""
        return self._glm_loglik(np.eye(self.n_classes)[self.training_codes()])

    @property
    def df_model(self) -> int:
        """Number of estimated coefficients (R's ``attr(logLik, "df")`` of a glm)."""
        return int(self._glm_coef().size)

    @property
    def aic(self) -> float:
        """``-2 loglike_labels + 2 df_model`` (R's ``AIC``); NaN for a penalised fit, whose
        effective number of parameters is not its number of coefficients."""
        if self._glm_penalised():
            return float("nan")
        return -2.0 * self.loglike_labels + 2.0 * self.df_model

    @property
    def bic(self) -> float:
        """``-2 loglike_labels + log(n) df_model`` (R's ``BIC``); NaN for a penalised fit."""
        if self._glm_penalised():
            return float("nan")
        return -2.0 * self.loglike_labels + np.log(self.nobs) * self.df_model

    @property
    def deviance(self) -> float:
        """Residual deviance of the fitting targets (:attr:`glm_deviance`; ``-2 loglike`` for
        0/1 targets)."""
        return self.glm_deviance

    @property
    def df_resid(self) -> int:
        """Residual degrees of freedom ``n (K - 1) - df_model`` (:attr:`glm_df_resid`)."""
        return self.glm_df_resid

    # ---------------------------------------------------------------- predict
    def _glm_columns(self, type: str) -> pd.Index:
        classes = list(self.classes[1:] if type == "link" else self.classes)
        return pd.Index(classes, dtype=object, name="class")

    def predict_glm(
        self, newdata: pd.DataFrame | None = None, type: str = "link", missing: str = "raise", se_fit: bool = False
    ) -> Any:
        """R's ``predict.glm(type = "link" | "response", se.fit = )``: see the module docstring
        (:mod:`evstat.glm`) for the formulas and the return shapes.

        Examples
        --------
        >>> import numpy as np, evstat as ev
        >>> cal = ev.datasets.simulate_gaussian(60, seed=1)
        >>> fit = ev.evlogit("y ~ x1 + x2", data=cal, targets="binary")
        >>> p = fit.predict(cal.head(3), type="response", se_fit=True)
        >>> list(p.columns), bool(np.allclose(p["fit"], fit.predict(cal.head(3)), rtol=1e-12))
        (['fit', 'se_fit'], True)
        """
        if type not in GLM_TYPES:
            raise ValueError(
                f"se_fit=True goes with type='link' or 'response' (R's predict.glm), got type={type!r}; "
                "type='response' is the probability of type='prob'"
            )
        return self.predict(newdata, type=type, missing=missing, se_fit=se_fit)

    def _predict_glm(self, X: NDArray[np.float64], index: pd.Index, type: str, se_fit: bool) -> Any:
        """:meth:`predict_glm` on design rows (the hook the family's ``_predict`` calls for
        ``type="link" | "response"`` or ``se_fit=True``; ``Results.predict`` has checked the
        type and dispatched Dask input)."""
        if type not in GLM_TYPES:
            raise ValueError(
                f"se_fit=True goes with type='link' or 'response' (R's predict.glm), got type={type!r}; "
                "type='response' is the probability of type='prob'"
            )
        V = self._glm_cov() if se_fit else None
        if se_fit and V is None:
            raise ValueError(
                f"se_fit=True needs the covariance of the coefficients, which this {self.method} fit does "
                "not have (a penalised fit, e.g. dirichlet with reg_lambda > 0, or a singular information "
                "matrix); predict with se_fit=False"
            )
        X = np.asarray(X, dtype=np.float64)
        m, K = X.shape[0], self.n_classes
        width = K - 1 if type == "link" else K
        fit, se = np.empty((m, width)), np.full((m, width), np.nan)
        beta = self._glm_coef()
        step = self._blocks(m).step
        for a in self._blocks(m):
            G = self._glm_design(X[a : a + step])
            L = np.einsum("mkd,d->mk", G, beta)
            if type == "link":
                fit[a : a + step] = L[:, 1:] - L[:, :1]
                J = G[:, 1:, :] - G[:, :1, :]
            else:
                P = np.exp(_log_softmax(L))
                fit[a : a + step] = P
                J = P[:, :, None] * (G - np.einsum("mk,mkd->md", P, G)[:, None, :])
            if V is not None:
                se[a : a + step] = np.sqrt(np.maximum(np.einsum("mkd,de,mke->mk", J, V, J), 0.0))
        if self.is_binary:
            col = 0 if type == "link" else 1
            if not se_fit:
                return pd.Series(fit[:, col], index=index, name=type)
            return pd.DataFrame({"fit": fit[:, col], "se_fit": se[:, col]}, index=index)
        cols = self._glm_columns(type)
        if not se_fit:
            return pd.DataFrame(fit, index=index, columns=cols)
        mi = pd.MultiIndex.from_product([pd.Index(["fit", "se_fit"], dtype=object), cols], names=["stat", "class"])
        return pd.DataFrame(np.hstack([fit, se]), index=index, columns=mi)

    # ---------------------------------------------------------------- residuals
    def resid(self, type: str = "deviance") -> pd.Series | pd.DataFrame:
        """Residuals of the calibration rows, as R's ``residuals.glm`` (index kept).

        Parameters
        ----------
        type : {"deviance", "pearson", "response", "working"}
            See the module docstring of :mod:`evstat.glm` (two classes: Series of the positive
            class; K >= 3 classes: a DataFrame with a column per class, a Series for
            ``"deviance"``).

        Returns
        -------
        pandas.Series or pandas.DataFrame

        Examples
        --------
        >>> import numpy as np, evstat as ev
        >>> cal = ev.datasets.simulate_gaussian(60, seed=1)
        >>> fit = ev.evlogit("y ~ x1 + x2", data=cal)
        >>> r = fit.resid("deviance")
        >>> bool(np.isclose((r ** 2).sum(), fit.deviance)), bool(r.index.equals(cal.index))
        (True, True)
        """
        from scipy.special import xlogy

        if type not in RESIDUAL_TYPES:
            raise ValueError(f"type must be one of {RESIDUAL_TYPES} (R's residuals.glm), got {type!r}")
        X, index = self._design(None)
        logp = _log_softmax(self._glm_logits(np.asarray(X, dtype=np.float64)))
        T = self._glm_targets()
        P = np.exp(logp)
        if type == "deviance":
            d = 2.0 * (np.sum(xlogy(T, T), axis=1) - np.sum(np.where(T > 0, T * logp, 0.0), axis=1))
            r = np.sqrt(np.maximum(d, 0.0))
            if self.is_binary:
                r = np.where(T[:, 1] - P[:, 1] < 0, -r, r)
            return pd.Series(r, index=index, name="deviance")
        R = T - P
        if type != "response":
            # mu (1 - mu) from the log-probabilities: exact where mu rounds to 1
            var = np.exp(logp + np.log(np.maximum(-np.expm1(logp), 1e-300)))
            R = R / np.sqrt(var) if type == "pearson" else R / np.maximum(var, _EPS)
        if self.is_binary:
            return pd.Series(R[:, 1], index=index, name=type)
        return pd.DataFrame(R, index=index, columns=self._glm_columns("response"))

    def residuals(self, type: str = "deviance") -> pd.Series | pd.DataFrame:
        """Alias of :meth:`resid` (R's ``residuals``)."""
        return self.resid(type)

    # ---------------------------------------------------------------- update
    def update(self, formula: str | None = None, data: pd.DataFrame | None = None, **settings: Any) -> GlmVerbs:
        """Refit with a changed formula, data or setting, as R's ``update``.

        Parameters
        ----------
        formula : str, optional
            The change, read by :func:`update_formula` with the fit's formula as the old one:
            ``"~ . - svm3"`` drops svm3, ``"~ . + svm4"`` adds svm4, ``". ~ svm1"`` replaces the
            right-hand side. None keeps the formula.
        data : pandas.DataFrame, optional
            The data to refit on; default the calibration rows the fit used (the score and
            response columns of :meth:`training_data`), so a formula naming another column needs
            ``data=``.
        **settings
            Other arguments of the model's fitter to change (``targets="binary"``, ...); the
            others keep this fit's values.

        Returns
        -------
        The refitted model (a new object; this one is unchanged).

        Examples
        --------
        >>> import evstat as ev
        >>> cal = ev.datasets.simulate_gaussian(60, seed=1)
        >>> fit = ev.evlogit("y ~ x1 + x2", data=cal)
        >>> small = fit.update("~ . - x2")
        >>> small.formula, bool((small.params == ev.evlogit("y ~ x1", cal).params).all())
        ('y ~ x1', True)
        """
        new_formula = self._glm_formula() if formula is None else update_formula(self._glm_old_formula(), formula)
        kept: list[str] | None = None
        if data is None:
            data = self.training_data()
            kept = [str(c) for c in data.columns]
        elif not isinstance(data, pd.DataFrame):
            raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
        kwargs = {**self._glm_settings(), **settings}
        try:
            return self._glm_refit(new_formula, data, **kwargs)
        except ValueError as err:
            if kept is None:
                raise
            raise ValueError(
                f"update: refitting {new_formula!r} failed: {err} (without data=, the refit uses the calibration "
                f"rows the fit kept, columns {kept}: pass data= for other columns)"
            ) from None


# ------------------------------------------------------------------------------------------------
# analysis of deviance
# ------------------------------------------------------------------------------------------------


class AnovaTable(pd.DataFrame):
    """An analysis-of-deviance table (a DataFrame with R's column names and an R-style print).

    Columns ``Resid. Df``, ``Resid. Dev``, ``Df``, ``Deviance``, ``Pr(>Chi)``; one row per
    model (index 1, 2, ...); :attr:`heading` holds the title and the models' formulas. Returned
    by :func:`anova`.
    """

    _metadata = ["heading"]

    @property
    def _constructor(self) -> type:
        return pd.DataFrame  # slices and arithmetic are plain DataFrames

    def __repr__(self) -> str:  # as R prints it
        return self.as_text()

    def as_text(self) -> str:
        """The table as R prints ``anova(..., test = "Chisq")`` (blank for NA)."""
        def num(fmt: str) -> Any:
            return lambda v: "" if pd.isna(v) else format(v, fmt)

        body = pd.DataFrame(self).to_string(na_rep="", formatters={
            "Resid. Df": num("d"), "Resid. Dev": num(".4f"), "Df": lambda v: "" if pd.isna(v) else str(int(v)),
            "Deviance": num(".4f"), "Pr(>Chi)": lambda v: "" if pd.isna(v) else f"{v:.4g}",
        })
        return "\n".join(list(getattr(self, "heading", [])) + ["", body])

    def _repr_html_(self) -> str:
        head = "".join(f"<p>{line}</p>" for line in getattr(self, "heading", []) if line)
        return head + pd.DataFrame(self).to_html(na_rep="")


@dataclass(frozen=True)
class LRTest:
    """A likelihood-ratio test of two nested fits (returned by :func:`lr_test`).

    Attributes
    ----------
    statistic : float
        ``2 (l1 - l0)``: the difference of the residual deviances.
    df : int
        The difference of the numbers of coefficients.
    p_value : float
        ``P(chi2_df > statistic)``.
    formulas : tuple of str
        The smaller and the larger model's formulas.
    """

    statistic: float
    df: int
    p_value: float
    formulas: tuple[str, str]

    def __str__(self) -> str:
        return (
            f"Likelihood-ratio test: {self.formulas[0]} (smaller) against {self.formulas[1]}: "
            f"chi-squared = {self.statistic:.4f} on {self.df} df, p = {self.p_value:.4g}"
        )


def _check_fit(fit: Any, i: int) -> GlmVerbs:
    if not isinstance(fit, GlmVerbs):
        method = getattr(fit, "method", type(fit).__name__)
        raise TypeError(
            f"anova compares fitted likelihood models (evlogit, betacal, evmultinom, temperature, "
            f"vector_scaling, matrix_scaling, dirichlet); argument {i + 1} is {method!r}, which has no "
            "likelihood to compare"
        )
    if fit._glm_penalised():
        raise ValueError(
            f"argument {i + 1} ({fit.method}) is a penalised fit (reg_lambda/reg_mu > 0): its objective "
            "is not a likelihood, so no likelihood-ratio test applies; refit without the penalty"
        )
    return fit


def _nested(small: NDArray[np.float64], big: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Per column of ``small``: does it lie in the column space of ``big``?"""
    scale = np.linalg.norm(big, axis=0)
    scale[scale == 0] = 1.0
    U, s, _ = np.linalg.svd(big / scale, full_matrices=False)
    U = U[:, s > s[0] * 1e-10] if s.size and s[0] > 0 else U[:, :0]
    res = small - U @ (U.T @ small)
    norm = np.linalg.norm(small, axis=0)
    return np.linalg.norm(res, axis=0) <= NESTED_TOL * np.maximum(norm, 1e-300)


def _check_same_rows(a: GlmVerbs, b: GlmVerbs, i: int) -> None:
    if a.response != b.response:
        raise ValueError(
            f"models 1 and {i + 1} have different responses ({a.response!r} and {b.response!r}): "
            "anova compares fits of one response"
        )
    if a.glm_family != b.glm_family:
        raise ValueError(
            f"models 1 and {i + 1} are of different families ({a.glm_family!r} and {b.glm_family!r}): "
            "a likelihood ratio compares fits of one likelihood; refit with the same targets"
        )
    if a.nobs != b.nobs:
        raise ValueError(
            f"models 1 and {i + 1} were fitted on different rows (n = {a.nobs} and n = {b.nobs}; e.g. "
            "missing='drop' dropped rows with missing values in a column only one of them uses): fit "
            "both on the same rows"
        )
    ia, ib = a.training_data().index, b.training_data().index
    if not ia.equals(ib):
        raise ValueError(
            f"models 1 and {i + 1} were fitted on different rows (same count {a.nobs}, different index): "
            "fit both on the same rows"
        )
    if a.classes != b.classes or not np.array_equal(a._glm_targets(), b._glm_targets()):
        raise ValueError(
            f"models 1 and {i + 1} have different response values on their {a.nobs} rows (or classes "
            f"{list(a.classes)} and {list(b.classes)}): fit both on the same data"
        )
    da, db = a.training_data(), b.training_data()
    for c in da.columns:
        if c in db.columns and c != a.response:
            va, vb = da[c].to_numpy(), db[c].to_numpy()
            if not (va.shape == vb.shape and pd.Series(va).equals(pd.Series(vb))):
                raise ValueError(
                    f"models 1 and {i + 1} were fitted on different data: column {c!r} differs on their "
                    f"{a.nobs} rows; fit both on the same data"
                )


def anova(*fits: Any) -> AnovaTable:
    """Analysis of deviance of nested fits, as R's ``anova(fit0, fit1, ..., test = "Chisq")``.

    Parameters
    ----------
    *fits
        Two or more fits of one family (e.g. evlogit with the same targets; evmultinom, matrix
        scaling, ...) on the same rows, each nested in the next or the next in it (see
        :mod:`evstat.glm`). The order is kept, as R's: a larger model first gives negative
        ``Df`` and ``Deviance``. One evlogit or evmultinom fit: R's ``anova(fit, test =
        "Chisq")``, the formula's terms added one at a time (in R's order), each sub-model
        refitted on the same rows.

    Returns
    -------
    AnovaTable
        A DataFrame with columns ``Resid. Df``, ``Resid. Dev``, ``Df``, ``Deviance``,
        ``Pr(>Chi)`` (R's names) and rows 1, 2, ...; prints as R's table. For one fit, R's
        columns ``Df``, ``Deviance``, ``Resid. Df``, ``Resid. Dev``, ``Pr(>Chi)`` and rows
        ``NULL`` (the intercept-only model; without an intercept every logit 0) and the terms.

    Raises
    ------
    TypeError
        A model without a likelihood (evbinning, eknn, ...).
    ValueError
        No fit; one fit of a model whose coefficients are not formula terms; different responses, families (targets), rows or data; a pair of
        consecutive fits that are not nested (the message names the terms); a penalised fit.

    Examples
    --------
    >>> import evstat as ev
    >>> cal = ev.datasets.simulate_gaussian(80, seed=3)
    >>> f0 = ev.evlogit("y ~ x1", cal, targets="binary")
    >>> f1 = ev.evlogit("y ~ x1 + x2", cal, targets="binary")
    >>> tab = ev.anova(f0, f1)
    >>> list(tab.columns)
    ['Resid. Df', 'Resid. Dev', 'Df', 'Deviance', 'Pr(>Chi)']
    >>> tab["Resid. Df"].tolist(), round(float(tab["Deviance"].iloc[1]), 6) == round(f0.deviance - f1.deviance, 6)
    ([78, 77], True)
    >>> ev.anova(f1).index.tolist()  # one fit: terms added sequentially
    ['NULL', 'x1', 'x2']
    """
    if len(fits) == 1 and isinstance(fits[0], (list, tuple)):
        fits = tuple(fits[0])
    if len(fits) == 1:
        return _sequential_anova(_check_fit(fits[0], 0))
    if len(fits) < 2:
        raise ValueError("anova needs one fit (terms added sequentially) or two or more nested fits, got none")
    checked = [_check_fit(f, i) for i, f in enumerate(fits)]
    for i, f in enumerate(checked[1:], start=1):
        _check_same_rows(checked[0], f, i)
    designs = [f._glm_reduced_design() for f in checked]
    for i in range(1, len(checked)):
        a, b = checked[i - 1], checked[i]
        Ja, Jb = designs[i - 1], designs[i]
        small, big, js, jb = (a, b, Ja, Jb) if Ja.shape[1] <= Jb.shape[1] else (b, a, Jb, Ja)
        ok = _nested(js, jb)
        if not ok.all() and Ja.shape[1] == Jb.shape[1] and _nested(jb, js).all():  # same size: either way
            ok = np.ones(js.shape[1], dtype=bool)
        if not ok.all():
            names = [n for n, good in zip(small._glm_term_names(), ok) if not good]
            raise ValueError(
                f"models {i} and {i + 1} are not nested: the terms {names} of {small._glm_formula()!r} are not "
                f"in the span of the terms of {big._glm_formula()!r}; anova's likelihood-ratio test needs each model "
                "to be a special case of the next (or the next of it)"
            )
    rdf = np.array([f.glm_df_resid for f in checked], dtype=float)
    dev = np.array([f.glm_deviance for f in checked])
    df = np.r_[np.nan, -np.diff(rdf)]
    ddev = np.r_[np.nan, -np.diff(dev)]
    table = AnovaTable(
        {"Resid. Df": rdf.astype(int), "Resid. Dev": dev, "Df": df, "Deviance": ddev, "Pr(>Chi)": _chisq(df, ddev)},
        index=pd.RangeIndex(1, len(checked) + 1),
    )
    methods = {f.method for f in checked}
    table.heading = ["Analysis of Deviance Table", f"Family: {checked[0].glm_family}", f"Response: {checked[0].response}",
                     ""] + [f"Model {i + 1}: {f._glm_formula()}" + (f" ({f.method})" if len(methods) > 1 else "")
                            for i, f in enumerate(checked)]
    return table


def _chisq(df: NDArray[np.float64], ddev: NDArray[np.float64]) -> NDArray[np.float64]:
    """R's ``stat.anova(test = "Chisq")``: the p-value of ``Deviance * sign(Df)`` on ``|Df|``
    degrees of freedom; NA where ``Df`` is 0 or NA or that statistic is negative."""
    from scipy.stats import chi2

    with np.errstate(invalid="ignore"):
        vals = ddev * np.sign(df)
        vals[(df == 0) | ~(vals >= 0)] = np.nan
        ok = ~np.isnan(vals)
        p = np.full(df.shape, np.nan)
        p[ok] = chi2.sf(vals[ok], np.abs(df[ok]))
    return p


def _sequential_anova(fit: GlmVerbs) -> AnovaTable:
    """R's ``anova(fit, test = "Chisq")`` of one fit: its formula's terms added one at a time
    (in R's order), each sub-model refitted with :meth:`GlmVerbs.update` on the same rows; the
    ``NULL`` row is the intercept-only model (class probabilities the mean targets), or without
    an intercept the model with every logit 0 (probabilities 1/K), as R's."""
    from scipy.special import xlogy

    if not fit._glm_by_terms:
        raise ValueError(
            f"anova of one {fit.method} fit adds its formula's terms one at a time, which needs "
            "coefficients that belong to formula terms (evlogit, evmultinom); compare fits with "
            "ev.anova(fit0, fit1)"
        )
    intercept, names = _rhs_terms(split_formula(fit._glm_old_formula())[1])
    T = fit._glm_targets()
    n, K = T.shape
    base = np.broadcast_to(T.mean(axis=0) if intercept else np.full(K, 1.0 / K), T.shape)
    rdf = [n * (K - 1) - ((K - 1) if intercept else 0)]
    dev = [float(2.0 * (np.sum(xlogy(T, T)) - np.sum(xlogy(T, base))))]
    for j in range(1, len(names) + 1):
        sub = fit if j == len(names) else fit.update(". ~ " + " + ".join(names[:j]) + ("" if intercept else " - 1"))
        rdf.append(sub.glm_df_resid)
        dev.append(sub.glm_deviance)
    r, d = np.array(rdf, dtype=float), np.array(dev)
    df, ddev = np.r_[np.nan, -np.diff(r)], np.r_[np.nan, -np.diff(d)]
    table = AnovaTable(
        {"Df": df, "Deviance": ddev, "Resid. Df": r.astype(int), "Resid. Dev": d, "Pr(>Chi)": _chisq(df, ddev)},
        index=pd.Index(["NULL", *names], dtype=object),
    )
    table.heading = ["Analysis of Deviance Table", f"Family: {fit.glm_family}", f"Response: {fit.response}",
                     "Terms added sequentially (first to last)"]
    return table


def lr_test(fit0: Any, fit1: Any) -> LRTest:
    """Likelihood-ratio test of two nested fits (the one-line form of :func:`anova`).

    The fits may be given in either order; the smaller one is the null model. The same checks as
    :func:`anova` (family, rows, nesting).

    Returns
    -------
    LRTest
        ``statistic`` (difference of deviances), ``df`` (difference of the numbers of
        coefficients), ``p_value``.

    Examples
    --------
    >>> import evstat as ev
    >>> cal = ev.datasets.simulate_gaussian(80, seed=3)
    >>> big = ev.evlogit("y ~ x1 + x2", cal)
    >>> t = ev.lr_test(big, big.update("~ . - x2"))
    >>> t.df, bool(0 <= t.p_value <= 1)
    (1, True)
    """
    pair = sorted([fit0, fit1], key=lambda f: f._glm_coef().size if isinstance(f, GlmVerbs) else 0)
    tab = anova(*pair)
    stat, df, p = float(tab["Deviance"].iloc[1]), int(tab["Df"].iloc[1]), float(tab["Pr(>Chi)"].iloc[1])
    if df == 0:
        raise ValueError(
            f"the two fits have the same number of coefficients ({pair[0]._glm_coef().size}): a likelihood-ratio "
            "test needs one model nested in the other with fewer coefficients"
        )
    return LRTest(statistic=stat, df=df, p_value=p, formulas=(pair[0]._glm_formula(), pair[1]._glm_formula()))
