"""Formula -> design matrices: response coding, input validation and new-data transforms.

Every evstat model starts here. :func:`model_frame` reads an R-style formula such as
``"y ~ svm1 + svm2 + svm3"`` against a DataFrame and returns a :class:`ModelFrame`: the response
coded 0/1, the design matrix, the term names and a patsy ``DesignInfo`` that transforms new data
exactly as the calibration data were transformed (including the calibration-set state of stateful
transforms such as ``center(s)`` or ``standardize(s)``). :func:`class_frame` reads the same
formulas with a response of any number K >= 2 of classes (classifiers, multi-class
calibrators) and returns a :class:`ClassFrame`.

Modules: :mod:`~evstat.formula._parse` (the split on ``~``: :func:`split_formula`,
:func:`response_name`), :mod:`~evstat.formula.response` (response coding for two and K levels,
:func:`code_response`), :mod:`~evstat.formula.design` (columns, factors, patsy, design checks),
:mod:`~evstat.formula.frame` (:class:`ModelFrame`, :func:`model_frame`),
:mod:`~evstat.formula.classes` (:class:`ClassFrame`, :func:`class_frame`),
:mod:`~evstat.formula._json` (index and level JSON), :mod:`~evstat.formula.schema` (saved-file
schemas), :mod:`~evstat.formula.whitelist` (what a formula may call),
:mod:`~evstat.formula.limits` (how large a formula may be), :mod:`~evstat.formula._dotted` (R's
dotted column names).

Formula language
----------------
* The left-hand side is the response and must be a column name of ``data`` (written bare,
  ``y ~ ...``, or quoted for names that are not Python identifiers, ``Q("my label") ~ ...``).
  Expressions on the left (``I(y == "R") ~ s``) are rejected: choose the class coded 1 with
  ``positive=`` instead.
* Column names with dots, as R writes them (``Species ~ Sepal.Length + np.log(Sepal.Width)``),
  are the data's columns when the data has a column of exactly that name, on both sides; the
  model keeps the formula and the term names as written (``Sepal.Length``,
  ``np.log(Sepal.Width)``). A dotted name that is not a column is refused (misspelt, or
  Python's attribute access), with a message naming the closest column; ``Q("Sepal.Length")``
  works too and is named as written (:mod:`evstat.formula._dotted`).
* The right-hand side is a patsy formula evaluated on the data columns. Terms may use
  ``+``, ``-``, ``:``, ``*``, ``0``/``-1`` (no intercept) and functions. The functions available
  are the numpy functions listed in :mod:`evstat.formula.whitelist` as ``np.<name>`` (``np.log``,
  ``np.exp``, ``np.sqrt``, ``np.clip``, ...); the R-style shortcuts ``log``, ``log1p``, ``log2``,
  ``log10``, ``exp``, ``sqrt`` (numpy) and ``logit``, ``expit`` (scipy.special); the Python
  built-ins ``abs``, ``round``, ``pow``; and patsy's ``I``, ``Q``, ``center``, ``standardize``,
  ``scale``, ``bs``, ``cr``, ``cc``, ``te``. Every formula is checked against that whitelist
  before anything is evaluated (also when a saved model is loaded) and evaluated without Python's
  built-ins, so a formula cannot run other code. The environment is fixed (it does not capture
  the caller's variables), so a fitted model is reproducible and can be saved and reloaded;
  compute anything else as a column first.
* Factor covariates: a text, categorical or logical column, ``C(g)`` (also of a numeric
  column) and a logical expression such as ``I(s > 0)`` are coded as R's ``glm`` codes a
  factor, with treatment contrasts: the first level is the baseline, absorbed by the intercept
  (without an intercept every level gets a column). Levels are ordered as R orders them: the
  categories of a pandas Categorical in their order, ``[False, True]`` for logical columns,
  text sorted by code point (R's ``sort`` in the C locale; R in a language locale may order
  upper and lower case differently: make the column a Categorical to fix the order). Levels
  absent from the rows used are dropped (R's ``drop.unused.levels``); a factor with one level
  is an error. Term names are patsy's, as statsmodels' formula API prints them:
  ``C(sex)[T.M]``, ``sex[T.M]``, ``C(sex)[F]`` (no intercept), ``C(sex)[T.M]:ldose``. The
  levels are stored with the frame (:attr:`ModelFrame.factors`, :meth:`ModelFrame.to_dict`),
  new data are coded on them, and a level the calibration data did not have is an error naming
  the column and the level. Models that work on score axes (binning, isotonic, beta
  calibration, the nearest-neighbour and ball classifiers) refuse factor terms with
  :meth:`ModelFrame.require_numeric`.
* Every other column used on the right must be numeric.
* ``.`` means every column of ``data`` but the response, as in R: ``y ~ .`` uses them all,
  ``y ~ . - id`` all but ``id``, ``y ~ . + np.log(s)`` adds a transform
  (:func:`expand_dot`). The model's formula is the expanded one, as R's ``formula(fit)``.
* Size limits (:mod:`evstat.formula.limits`): at most 200,000 characters, nesting depth 100
  (brackets, runs of signs, the syntax tree of a term), 10,000 terms after expansion,
  formula-level powers up to 32, numbers of at most 100 digits and integer constants within
  63 bits (``2**70`` is refused before it is computed; write ``2.0**70``). A formula beyond a
  limit is refused with a :class:`~evstat.formula.limits.FormulaLimitError` (a ``ValueError``)
  naming the limit, on every path: fitting, the command line and loading a saved model. A
  formula naming 2,000 score columns (written out or as ``.``) is fine.

Nothing is silently dropped or clipped: missing values are an error unless ``missing="drop"``,
infinite values are always an error, and so are non-finite values produced by a transform.
"""

from evstat.formula import limits, schema, whitelist
from evstat.formula._parse import expand_dot, formula_terms, response_name, split_formula
from evstat.formula.classes import CLASS_FRAME, ClassFrame, class_frame
from evstat.formula.design import MAX_DESIGN_ABS
from evstat.formula.frame import FORMAT, FORMAT_VERSION, ModelFrame, model_frame
from evstat.formula.response import EmptyClassWarning, code_response

__all__ = [
    "CLASS_FRAME",
    "FORMAT",
    "FORMAT_VERSION",
    "EmptyClassWarning",
    "MAX_DESIGN_ABS",
    "ClassFrame",
    "ModelFrame",
    "class_frame",
    "code_response",
    "expand_dot",
    "formula_terms",
    "limits",
    "model_frame",
    "response_name",
    "schema",
    "split_formula",
    "whitelist",
]
