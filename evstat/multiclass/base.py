"""The K-class results of the multi-class calibrators, and how score columns meet classes.

:class:`MulticlassResults` is the one results protocol (:class:`evstat.results.Results`, in its
K-class form from :class:`evstat.classifiers.ClassifierResults`) for calibrators whose prediction
is a probability vector p(x) over the K classes. "belief" and "mass" are the Bayesian mass
functions m({k}) = p_k (Bel = Pl = BetP = p, no ignorance), so decisions go through the one
engine of :mod:`evstat.belief.decision` and every strategy agrees with the expected-cost
decision under p.

Score columns and classes (:func:`score_design`). The right-hand side of ``y ~ s_a + s_b + s_c``
lists the score columns. A column belongs to a task of a code matrix (:mod:`.codes`):

* ``code=None`` or ``"ovr"``: one column per class, matched by name: the column named like the
  class, or ending in ``_<class>`` (``s_a``, ``svm_a`` for class ``a``);
* ``code="pairs"``: one column per pair, named ``<k1>_<k2>`` or ending in ``_<k1>_<k2>``, for
  the classes k1 before k2 in the response's order (the task's positive class is k1);
* ``code=<DataFrame>``: rows the classes, columns named like the score columns (or their
  suffix as above), entries -1 / 0 / +1.

Every task needs exactly one column and every column exactly one task; otherwise a ValueError
names the column and the classes. Two exceptions, for the models that ask for them
(``by_order=True``, ``ratios=True``: temperature, vector scaling, dirichlet) and the default
code: K columns whose names do not name the classes are matched to the classes **by order**
(first column, first class in the response's order; the summary says so), and K - 1 columns
are **log-ratios** ``ln(p_k / p_1)`` against the first class (the baseline of R's
``nnet::multinom`` and evmultinom), whose logit is 0: named like the other K - 1 classes
(``lr_versicolor``, ``lr_virginica``), or matched to them by order when no name names a class.
K - 1 columns named for classes that leave out another class than the first are refused as
before (more likely a forgotten column than a baseline). The baseline's position in ``order``
is -1 (:data:`BASELINE`). A code row for a class that has no calibration rows (e.g. an
unused category of a Categorical response) is refused: such a class cannot be calibrated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat.formula import ClassFrame, class_frame
from evstat.belief import check_dense_size
from evstat.classifiers.base import ClassifierResults
from evstat.results import Capabilities
from evstat.io import schema, state
from evstat.io.state import saved
from evstat.multiclass.codes import KINDS, check_code, code_matrix
from evstat.summary import Summary

__all__ = ["BASELINE", "MulticlassResults", "score_design"]

#: the position in ``order`` of the baseline class of K - 1 log-ratio columns (no column: logit 0)
BASELINE = -1

#: rows of predictions computed at once (bounds the memory of the (rows, K, params) designs)
CHUNK = 20_000


def _matches(term: str, task: str) -> bool:
    return term == task or term.endswith("_" + task)


def score_design(
    formula: str,
    data: pd.DataFrame,
    code: Any = None,
    missing: str = "raise",
    seed: Any = None,
    who: str = "this calibrator",
    match: bool = True,
    by_order: bool = False,
    ratios: bool = False,
    rank_checks: bool = True,
) -> tuple[ClassFrame, pd.DataFrame, NDArray[np.intp]]:
    """Evaluate a multi-class calibrator's formula and match its score columns to the tasks.

    Returns
    -------
    (ClassFrame, pandas.DataFrame, numpy.ndarray)
        The training frame, the code matrix (rows the classes in frame order, columns the task
        names) and, for every task, the position of its column among the frame's terms.
    """
    # the calibrators add their own intercepts; K probability columns summing to 1 would be
    # collinear with the formula's, so it is removed ("- 1" is appended)
    formula = f"{formula} - 1"
    # rank_checks=False for a model whose parameters stay identifiable with collinear columns
    # (temperature, vector scaling: a multinomial model's K logits sum to 0 in every row)
    try:
        cf = class_frame(formula, data, missing=missing, rank_checks=rank_checks)
    except ValueError as err:
        raise _log_zero_hint(err, data) from None
    cf.design.require_numeric(who, "it reads one score column per class or task")
    levels = list(cf.levels)
    terms = cf.terms
    resp = data[cf.response]
    absent: list[Any] = []
    if isinstance(resp.dtype, pd.CategoricalDtype):
        absent = [c for c in resp.cat.categories if c not in levels]
    if not match:
        return cf, code_matrix(levels, "ovr"), np.arange(len(terms), dtype=np.intp)
    default_code = code is None or (isinstance(code, str) and code == "ovr")
    if code is None:
        code = "ovr"
    if default_code and (by_order or ratios):
        matched = _by_order(terms, levels, by_order, ratios)
        if matched is not None:
            return cf, code_matrix(levels, "ovr"), matched
    if isinstance(code, str):
        if code not in KINDS:
            raise ValueError(f"code must be one of {KINDS} or a DataFrame (rows the classes, columns the tasks), got {code!r}")
        codef = code_matrix(levels, code, seed=seed)
    else:
        if isinstance(code, pd.DataFrame):
            extra = [c for c in code.index if c not in levels]
            if extra and any(c in absent for c in extra):
                raise ValueError(
                    f"code has rows for {extra}, classes without rows in the calibration data (response "
                    f"{cf.response!r} has {len(levels)} observed classes {levels}): a class absent from the "
                    "calibration data cannot be calibrated; drop those rows or add calibration rows of that class"
                )
        codef = check_code(code, classes=levels)
    tasks = [str(t) for t in codef.columns]
    order = np.empty(len(tasks), dtype=np.intp)
    used: dict[int, str] = {}
    for j, t in enumerate(tasks):
        hits = [i for i, term in enumerate(terms) if _matches(term, t)]
        if len(hits) != 1:
            if not hits:
                raise ValueError(
                    f"no score column of formula {formula!r} belongs to task {t!r} of the code (columns "
                    f"{terms}): name the columns like the classes ({levels}) or their tasks (e.g. 's_{t}'), "
                    "or pass code= a DataFrame whose columns are the score columns"
                )
            raise ValueError(
                f"score columns {[terms[i] for i in hits]} all match task {t!r}: rename them so that each "
                "task has one column"
            )
        i = hits[0]
        if i in used:
            raise ValueError(f"score column {terms[i]!r} matches two tasks, {used[i]!r} and {t!r}: rename it")
        used[i] = t
        order[j] = i
    unused = [terms[i] for i in range(len(terms)) if i not in used]
    if unused:
        ab = [c for c in absent if any(_matches(u, str(c)) for u in unused)]
        if ab:
            raise ValueError(
                f"score column(s) {unused} belong to class(es) {ab}, which have no rows in the calibration data "
                f"(response {cf.response!r}: observed classes {levels}). A class absent from the calibration data "
                "cannot be calibrated: add rows of that class or drop the column"
            )
        raise ValueError(
            f"score column(s) {unused} of formula {formula!r} match no class of response {cf.response!r} "
            f"(classes {levels}; tasks {tasks}): name score columns like the classes (e.g. 's_{levels[0]}'), "
            "drop the column, or pass code= a DataFrame with one column per score column"
        )
    return cf, codef, order


def _log_zero_hint(err: ValueError, data: Any) -> ValueError:
    """The formula layer's error for infinite scores, with the fix when the column looks like
    log-probabilities with ``ln 0 = -inf`` (``predict_log_proba`` of a forest): give the
    probabilities, whose exact zeros the clipping rule handles."""
    import re

    m = re.match(r"column '(.+?)' has infinite values", str(err))
    if m is None or not isinstance(data, pd.DataFrame) or m.group(1) not in data.columns:
        return err
    col = pd.to_numeric(data[m.group(1)], errors="coerce").to_numpy(dtype=float)
    if not (np.isneginf(col).any() and not np.isposinf(col).any() and np.nanmax(col) <= 1e-6):
        return err
    return ValueError(
        f"{err}. Column {m.group(1)!r} looks like log-probabilities with -inf for an exact 0 "
        "(predict_log_proba of a forest or naive Bayes): give the probabilities (predict_proba, or "
        "np.exp of the column) instead, whose exact zeros are clipped by evstat's one rule and said in "
        "the summary (evstat.multiclass.simplex)"
    )


def _by_order(terms: list[str], levels: list[Any], by_order: bool, ratios: bool) -> NDArray[np.intp] | None:
    """The column of every class when the names do not settle it (module docstring): K columns
    that do not each name one class, by order; K - 1 columns, log-ratios against the baseline.
    None: the names decide (or fail with their message)."""
    k = len(levels)
    names = [str(v) for v in levels]
    hits = [[c for c, lev in enumerate(names) if _matches(t, lev)] for t in terms]
    one_each = all(len(h) == 1 for h in hits) and len({h[0] for h in hits if h}) == len(terms)
    unnamed = not any(hits)  # no column names a class (some do: the names decide, or fail)
    if by_order and len(terms) == k and unnamed:
        return np.arange(k, dtype=np.intp)
    # named K - 1 columns are log-ratios only when the class they leave out is the first (R's and
    # evmultinom's baseline): leaving out another is more likely a forgotten column (the names' error)
    named_ratios = one_each and 0 not in {h[0] for h in hits}
    if ratios and len(terms) == k - 1 and (named_ratios or unnamed):
        order = np.full(k, BASELINE, dtype=np.intp)
        order[1:] = [hits.index([c]) for c in range(1, k)] if named_ratios else np.arange(k - 1)
        return order
    return None


def code_to_dict(code: pd.DataFrame) -> dict[str, Any]:
    """JSON form of a code matrix (the classes are the frame's levels)."""
    return {"tasks": [str(t) for t in code.columns], "values": code.to_numpy(dtype=np.int64).tolist()}


CODE = schema.Dict(
    {
        "tasks": schema.List(schema.Str(max_len=500), min_len=1, max_len=100_000, what="tasks"),
        "values": schema.List(schema.List(schema.Int(min=-1, max=1), what="entries"), min_len=2, what="rows"),
    }
)


def code_from_dict(d: Mapping[str, Any], levels: tuple) -> pd.DataFrame:
    df = pd.DataFrame(d["values"], index=pd.Index(list(levels), dtype=object, name="class"),
                      columns=pd.Index(list(d["tasks"]), dtype=object, name="task"))
    return check_code(df)


@dataclass(frozen=True, kw_only=True)
class MulticlassState:
    """What every saved multi-class calibrator holds beyond its class frame (evstat.io.state):
    the code matrix and the score column of every task; the families' ``State`` extends it."""

    code: dict[str, Any] = saved(CODE, encode=code_to_dict)
    order: list[int] = saved(schema.List(schema.Int(min=BASELINE), min_len=1, what="positions"))


class MulticlassResults(ClassifierResults):
    """Base class of the fitted multi-class calibrators (not instantiated directly).

    Subclasses implement ``_probs_block(X)`` (class probabilities of rows of the design, (m, K)),
    ``_param_frame()`` (tidy rows), and a ``State`` extending :class:`MulticlassState` for
    persistence (with :meth:`_check_saved`).
    """

    method: ClassVar[str] = "multiclass"
    title: ClassVar[str] = "Multi-class calibration"
    #: the calibrators' papers decide by the largest calibrated probability (the Bayes rule)
    capabilities: ClassVar[Capabilities] = replace(ClassifierResults.capabilities, default_strategy="probabilistic")
    decision_rule: ClassVar[str] = (
        "the Bayes rule of the calibrators' papers (Guo et al. 2017, Kull et al. 2019, Gebel 2009): the class "
        "of largest calibrated probability, with reject_cost the reject when 1 - max p exceeds it; the masses "
        "are Bayesian (Bel = Pl = p), so every loss-based strategy decides the same"
    )

    def __init__(self, cf: ClassFrame, code: Any, order: Any, **fields: Any) -> None:
        """``code`` a code matrix (or its saved form), ``order`` the score column of every task;
        ``fields``: the other fields of a saved fit (the class's :attr:`State`), set as they are
        (nothing is estimated) and checked by :meth:`_check_saved`."""
        super().__init__(cf)
        self.code = code if isinstance(code, pd.DataFrame) else code_from_dict(code, cf.levels)
        self.order = np.asarray(order, dtype=np.intp)
        if fields:
            if (self.order >= len(cf.terms)).any():
                raise ValueError("the saved model's task columns are not columns of its formula")
            assert self.State is not None
            state.assign(self.State, self, fields)
            self._check_saved()

    def _check_saved(self) -> None:
        """Raise ValueError when the fields of a saved fit do not fit together (lengths that the
        schema cannot tie to the frame)."""

    @property
    def tasks(self) -> list[str]:
        """The task names (columns of :attr:`code`)."""
        return [str(t) for t in self.code.columns]

    @property
    def task_columns(self) -> list[str]:
        """The score column of every task, in task order."""
        terms = self.terms
        return [terms[i] if i != BASELINE else "(baseline: logit 0)" for i in self.order]

    @property
    def by_order(self) -> bool:
        """Whether the score columns were matched to the classes by order (their names do not
        name the classes; :func:`score_design`)."""
        names = [str(t) for t in self.tasks]
        return any(i != BASELINE and not _matches(self.terms[i], t) for i, t in zip(self.order, names))

    # ---------------------------------------------------------------- probabilities
    def _probs_block(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        raise NotImplementedError

    def probs(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Class probabilities (len(X), K) of design rows, computed in chunks of :data:`CHUNK`."""
        out = np.empty((X.shape[0], self.n_classes))
        for a in range(0, X.shape[0], CHUNK):
            out[a : a + CHUNK] = self._probs_block(np.asarray(X[a : a + CHUNK], dtype=np.float64))
        return out

    def _singletons(self, X):
        p = self.probs(X)
        return p, p.copy(), p.copy(), np.zeros(X.shape[0])

    def _mass_values(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        check_dense_size(self.n_classes, f"{self.method}'s type='mass'")
        p = self.probs(X)
        v = np.zeros((X.shape[0], 1 << self.n_classes))
        v[:, 1 << np.arange(self.n_classes)] = p
        return v

    # ---------------------------------------------------------------- broom verbs
    def _param_frame(self) -> pd.DataFrame:
        raise NotImplementedError

    def _n_params(self) -> int:
        return int(len(self._param_frame()))

    def loglik(self) -> float:
        """Log-likelihood of the training rows under the fitted probabilities."""
        p = self.probs(np.asarray(self._X))
        pk = p[np.arange(self.nobs), self.training_codes()]
        with np.errstate(divide="ignore"):
            return float(np.sum(np.log(pk)))

    def tidy(self) -> pd.DataFrame:
        """One row per fitted parameter: ``term``, ``estimate`` (and ``std_error`` where the model
        has one)."""
        return self._param_frame().reset_index(drop=True)

    def glance(self) -> pd.DataFrame:
        """nobs, classes, tasks, number of parameters, training log-likelihood, AIC, BIC."""
        ll = self.loglik()
        k = self._n_params()
        return pd.DataFrame(
            [{
                "method": self.method,
                "nobs": self.nobs,
                "n_classes": self.n_classes,
                "n_tasks": len(self.tasks),
                "df": k,
                "logLik": ll,
                "AIC": -2 * ll + 2 * k,
                "BIC": -2 * ll + np.log(self.nobs) * k,
            }]
        )

    def _summary_notes(self) -> list[str]:
        return []

    def summary(self) -> Summary:
        """Formula, classes, the tasks and their columns, and the fitted parameters."""
        s = Summary(f"{self.title} ({self.method})")
        cf = self.class_frame
        s.add_info("Formula", self.formula)
        s.add_info("Training rows", f"{cf.n}" + (f" ({cf.n_dropped} dropped: missing values)" if cf.n_dropped else ""))
        s.add_info("Classes", ", ".join(f"{lev} ({int(c)})" for lev, c in self.class_counts.items()))
        s.add_info("Tasks", ", ".join(f"{t} <- {c}" for t, c in zip(self.tasks, self.task_columns)))
        s.add_info("Default decision", self.default_decision())
        g = self.glance().iloc[0]
        s.add_info("Log-likelihood", float(g["logLik"]))
        s.add_table("Parameters", self._param_frame().set_index("term"))
        code = self.code.copy()
        code.columns = [str(c) for c in code.columns]
        if code.shape[1] <= 30:
            s.add_table("Code matrix (rows classes, columns tasks)", code)
        for note in self._summary_notes():
            s.add_note(note)
        return s
