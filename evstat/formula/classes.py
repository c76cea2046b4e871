"""The K-level formula parser: a response of any number (>= 2) of classes and its score design.

:func:`class_frame` is the one public parser for formulas whose response has K >= 2 levels:
the evidential classifiers, the multi-class calibrators (``y ~ s_a + s_b + s_c`` with a
three-level ``y``) and anything else that reads a class column and score columns. It runs the
same evaluation as :func:`~evstat.formula.model_frame` (whitelist, absent, non-numeric,
infinite, missing, constant and collinear columns, factors, stateful transforms, new-data
transforms, JSON persistence); only the response coding differs:

* two levels are coded exactly as by ``model_frame`` (0/1, ``positive=`` names the level
  coded 1, by default the second level in R's order);
* K >= 3 levels are coded 0..K-1 in R's level order (the observed categories in category
  order for a pandas Categorical, else the sorted distinct values, else the order of first
  appearance); ``positive=`` is refused.

The intercept column of the design (if the formula has one) is not among :attr:`ClassFrame.X`
and :attr:`ClassFrame.terms`: score vectors do not involve it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat.formula import schema
from evstat.formula._json import _json_scalar
from evstat.formula.arrays import ArrayData
from evstat.formula.frame import ModelFrame, _evaluate

__all__ = ["CLASS_FRAME", "ClassFrame", "class_frame"]

FORMAT = "evstat.ClassFrame"
FORMAT_VERSION = 1


def _class_frame_check(d: Any, root: Any) -> str | None:
    m = len(d["levels"])
    bad = [i for i, c in enumerate(d["codes"]) if c >= m]
    if bad:
        return f"codes[{bad[0]}] = {d['codes'][bad[0]]} is not a class (there are {m} levels)"
    return None


#: Schema of :meth:`ClassFrame.to_dict` (see :mod:`evstat.formula.schema`). The design is a
#: K-level model frame (files written before the K-level parser hold a two-level placeholder
#: response there; ``levels`` and ``codes`` are authoritative and read by :meth:`from_dict`).
CLASS_FRAME = schema.Dict(
    {
        "format": schema.Str(choices=[FORMAT]),
        "version": schema.Int(choices=[FORMAT_VERSION]),
        "design": schema.MODEL_FRAME_K,
        "levels": schema.List(schema.Scalar(), min_len=2, max_len=62, what="levels"),
        "codes": schema.List(schema.Int(min=0), length=schema.Ref("design.y", "the design has {n} rows"), what="codes"),
        "positive": schema.Scalar(),
        "n_dropped": schema.Int(min=0),
    },
    checks=[_class_frame_check],
    scope=True,
)


@dataclass(frozen=True, eq=False, repr=False)
class ClassFrame:
    """A formula with a K-level response evaluated on data: class codes and the score design.

    Created by :func:`class_frame`. ``X`` and ``codes`` are read-only.

    Attributes
    ----------
    design : evstat.formula.ModelFrame
        The formula as evaluated on the data (with the intercept column, if any); its ``y``
        holds the class codes and its ``classes`` the levels.
    levels : tuple
        The classes, in frame order (two classes: ``(negative, positive)``).
    codes : numpy.ndarray
        Class of every row as a position in ``levels`` (int), shape (n,).
    positive : object or None
        The positive class of a two-class response; None for three or more classes.
    n_dropped : int
        Rows dropped for missing values (``missing="drop"``).
    """

    design: ModelFrame
    levels: tuple
    codes: NDArray[np.intp]
    positive: Any
    n_dropped: int = 0

    def __repr__(self) -> str:
        return (
            f"ClassFrame({self.formula!r}, n={self.n}, classes={self.levels!r}, "
            f"terms={self.terms!r})"
        )

    @property
    def formula(self) -> str:
        """The formula as given."""
        return self.design.formula

    @property
    def response(self) -> str:
        """The class column name."""
        return self.design.response

    @property
    def n(self) -> int:
        """Number of rows."""
        return int(self.codes.shape[0])

    @property
    def n_classes(self) -> int:
        """Number of classes ``K``."""
        return len(self.levels)

    @property
    def is_binary(self) -> bool:
        """True for a two-class response."""
        return len(self.levels) == 2

    @property
    def index(self) -> pd.Index:
        """Index of the rows used, in data order."""
        return self.design.index

    @property
    def _cols(self) -> NDArray[np.intp]:
        return np.array([j for j, t in enumerate(self.design.terms) if t != "Intercept"], dtype=np.intp)

    @property
    def terms(self) -> list[str]:
        """Names of the score (feature) columns of ``X``: the design terms but the intercept."""
        return [t for t in self.design.terms if t != "Intercept"]

    @property
    def X(self) -> NDArray[np.float64]:
        """Score vectors of the rows, shape (n, p) (no intercept column)."""
        X = np.ascontiguousarray(np.asarray(self.design.X)[:, self._cols])
        X.setflags(write=False)
        return X

    @property
    def score_columns(self) -> list[str]:
        """The data columns the right-hand side uses."""
        return self.design.score_columns

    @property
    def counts(self) -> pd.Series:
        """Rows per class, indexed by the levels."""
        c = np.bincount(self.codes, minlength=self.n_classes)
        return pd.Series(c, index=pd.Index(self.levels, dtype=object, name="class"), name="n")

    def labels(self) -> pd.Series:
        """The class of every row (original labels), indexed like the rows used."""
        lev = np.empty(self.n_classes, dtype=object)
        lev[:] = list(self.levels)
        return pd.Series(lev[self.codes], index=self.index, name=self.response)

    def require_numeric(self, who: str, why: str) -> None:
        """:meth:`evstat.formula.ModelFrame.require_numeric` of the design."""
        self.design.require_numeric(who, why)

    def new_X(self, newdata: pd.DataFrame, missing: str = "raise") -> tuple[NDArray[np.float64], pd.Index]:
        """Score vectors of new rows through the design (no intercept column); see
        :meth:`evstat.formula.ModelFrame.new_X`."""
        X, index = self.design.new_X(newdata, missing=missing)
        return np.ascontiguousarray(X[:, self._cols]), index

    @classmethod
    def from_arrays(
        cls,
        X: Any,
        y: Any,
        names: Sequence[str] | None = None,
        levels: Sequence[Any] | None = None,
        *,
        response: str = "y",
        positive: Any = None,
        missing: str = "raise",
        rank_checks: bool = True,
    ) -> ClassFrame:
        """The frame of ``y ~ x1 + ... + xp`` with K >= 2 classes built from a score matrix and
        labels, without parsing a formula or calling patsy: equal to :func:`class_frame` on a
        DataFrame of the same columns (:meth:`evstat.formula.ModelFrame.from_arrays`).

        Examples
        --------
        >>> import numpy as np
        >>> cf = ClassFrame.from_arrays(np.array([[.1], [.5], [.9], [.2], [.4]]), list("bacab"), names=["s"])
        >>> cf.formula, cf.levels, cf.codes.tolist(), cf.terms
        ('y ~ s', ('a', 'b', 'c'), [1, 0, 2, 0, 1], ['s'])
        """
        data = ArrayData(X, y, names=names, levels=levels, response=response)
        return class_frame(data.formula, data, positive=positive, missing=missing, rank_checks=rank_checks)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable description; :meth:`from_dict` rebuilds an equal frame.
        Levels that are not JSON scalars (str, int, float, bool) are stored as ``str()``."""
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "design": self.design.to_dict(),
            "levels": [_json_scalar(v) for v in self.levels],
            "codes": self.codes.astype(int).tolist(),
            "positive": _json_scalar(self.positive),
            "n_dropped": int(self.n_dropped),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ClassFrame:
        """Rebuild a :class:`ClassFrame` from :meth:`to_dict` output.

        Examples
        --------
        >>> import pandas as pd
        >>> from evstat.formula import ClassFrame, class_frame
        >>> cf = class_frame("y ~ s", pd.DataFrame({"y": list("bacab"), "s": [.1, .5, .9, .2, .4]}))
        >>> back = ClassFrame.from_dict(cf.to_dict())
        >>> back.levels, back.codes.tolist()
        (('a', 'b', 'c'), [1, 0, 2, 0, 1])
        """
        if not isinstance(d, Mapping) or d.get("format") != FORMAT:
            raise ValueError(
                f"not an evstat class frame description (expected format {FORMAT!r})"
            )
        if d.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"class frame format version {d.get('version')!r} is not supported (this "
                f"evstat reads version {FORMAT_VERSION}); refit and save the model again"
            )
        schema.validate(d, CLASS_FRAME, "class_frame")
        design = ModelFrame.from_dict(d["design"])
        codes = np.asarray(d["codes"], dtype=np.intp)
        if codes.shape[0] != design.n:
            raise ValueError("inconsistent class frame description: codes and design differ in length")
        codes.setflags(write=False)
        return cls(
            design=design,
            levels=tuple(d["levels"]),
            codes=codes,
            positive=d["positive"],
            n_dropped=int(d["n_dropped"]),
        )


def class_frame(
    formula: str,
    data: pd.DataFrame | ArrayData,
    positive: Any = None,
    missing: str = "raise",
    rank_checks: bool = True,
) -> ClassFrame:
    """Evaluate a formula whose response has K >= 2 classes: class codes and score design.

    The one K-level formula and response parser of evstat (classifiers, multi-class
    calibrators, plots and comparisons of K-class models).

    Parameters
    ----------
    formula : str
        ``"class ~ s1 + s2 + ..."``; the right-hand side as for
        :func:`evstat.formula.model_frame` (factors included; models that work on score axes
        refuse them with :meth:`ClassFrame.require_numeric`).
    data : pandas.DataFrame
        The data.
    positive : object, optional
        Two-class responses only: the level coded 1 (second in frame order); default as
        :func:`~evstat.formula.model_frame` (the second level in R's order).
    missing : {"raise", "drop"}
        Rows with a missing class or score: an error (default) or dropped.
    rank_checks : bool
        True (default, calibrators: a coefficient per design column): at least as many rows
        as design columns, no constant and no collinear design column, as
        :func:`~evstat.formula.model_frame`. False (the classifiers of
        :mod:`evstat.classifiers`: distances, prototypes, trees): these three checks are
        skipped, so that 15 rows with 18 score columns, a constant column or two equal columns
        are accepted, as R's evclass accepts them; non-finite values are still errors.

    Returns
    -------
    ClassFrame

    Notes
    -----
    Scores that sum to one on every row (probabilities of all K classes) are collinear with
    the intercept, and the design check says so: write ``y ~ s_a + s_b + s_c - 1`` or leave
    one class's score out.

    Raises
    ------
    ValueError
        A response with one class, missing values (unless ``missing="drop"``), ``positive``
        with three or more classes, a formula without score terms, and everything
        :func:`~evstat.formula.model_frame` rejects.

    Examples
    --------
    A three-class response and one score column per class, as a multi-class calibrator reads
    it:

    >>> import pandas as pd
    >>> from evstat.formula import class_frame
    >>> d = pd.DataFrame({"y": ["b", "a", "c", "a", "c"], "s_a": [0.1, 0.8, 0.2, 0.7, 0.3],
    ...                   "s_b": [0.7, 0.1, 0.2, 0.3, 0.1], "s_c": [0.2, 0.1, 0.6, 0.1, 0.5]})
    >>> cf = class_frame("y ~ s_a + s_b + s_c", d)
    >>> cf.levels, cf.codes.tolist(), cf.terms
    (('a', 'b', 'c'), [1, 0, 2, 0, 2], ['s_a', 's_b', 's_c'])
    >>> cf.X.shape, cf.counts.tolist()
    ((5, 3), [2, 1, 2])
    >>> cf.new_X(pd.DataFrame({"s_a": [0.5], "s_b": [0.3], "s_c": [0.2]}))[0]
    array([[0.5, 0.3, 0.2]])
    """
    design = _evaluate(formula, data, positive, missing, False, None, two_levels=False,
                       rank_checks=bool(rank_checks))
    if not any(t != "Intercept" for t in design.terms):
        raise ValueError(
            f"formula {formula!r} has no score terms (only {design.terms}); at least one "
            "score column is needed, e.g. 'y ~ s1 + s2'"
        )
    codes = np.asarray(design.y, dtype=np.intp)
    codes.setflags(write=False)
    return ClassFrame(
        design=design, levels=tuple(design.classes), codes=codes, positive=design.positive,
        n_dropped=design.n_dropped,
    )
