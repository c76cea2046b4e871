"""The one results protocol of evstat: every fitted model, for K >= 2 classes.

A model family (the binary calibrators of :mod:`evstat.calibration`, the evidential classifiers
of :mod:`evstat.classifiers`, and later ones) returns a subclass of :class:`Results`. The
protocol is the same for every model; binary calibration is its K = 2 case:

============  ==============================================  ==============================================
verb          K = 2 classes ``(negative, positive)``           K >= 3 classes
============  ==============================================  ==============================================
``predict``   ``"prob"``: Series ``theta`` = P(positive);      ``"prob"``: DataFrame, one column per class;
              ``"belief"``: DataFrame [theta, bel, pl] of      ``"belief"``: two-level columns
              {positive}; ``"mass"``: MassArray on             ``(stat, class)``, ``stat`` in theta, bel,
              (negative, positive)                             pl; ``"mass"``: MassArray on the classes
``decide``    Categorical of the classes (and ``"reject"``)    the same
``augment``   ``.theta .bel .pl .ignorance .betp``             ``.betp_<c> .bel_<c> .pl_<c> .ignorance
                                                               .class``
============  ==============================================  ==============================================

Every verb keeps the index and row order of ``newdata``, repeated labels included
(``augment`` selects rows by position). Decisions use the one engine of
:mod:`evstat.belief.decision` (its strategies, its tie policy).

Upward calls. ``fit.plot()`` and ``fit.report()`` need the presentation layer (plotting,
report), which sits above the models. They go through one lazy hook, :func:`upward`, that
imports ``evstat.plotting`` or ``evstat.report`` by name on first use; nothing else in the
model layers imports upward (the import-linter contract in ``pyproject.toml`` checks it). The
registry is the other name-based import: ``import evstat`` imports no model, so the first read
of the registry (:func:`load`, :func:`registered`, ...) imports the model packages
(``_MODEL_PACKAGES``), whose modules register themselves.

Persistence. ``fit.save(path)`` writes JSON ``{"format": "evstat", "format_version": 2,
"method": ..., ...}``; :func:`load` dispatches on ``method`` through the registry that
:func:`register` fills (every model class registers itself, so ``ev.load`` and the contract
tests know it without a list to update). A class declares its saved state once, as a
``State`` dataclass (:mod:`evstat.io.state`): its part of ``to_dict``, its schema and
``from_dict`` are derived from it.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
import sys
import warnings
from abc import ABC, abstractmethod
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from evstat.exceptions import EvstatWarning
from evstat.belief.decision import REJECT, STRATEGIES, check_rho, check_strategy, label_columns, loss_matrix
from evstat.io import integrity, schema, state
from evstat.io.atomic import write_text
from evstat.io.jsonfile import read_json
from evstat.io.schema import Lazy, List, Ref, Refuse, SchemaError, Spec, validate
from evstat.formula.arrays import ArrayData, refuse_masked, rows_frame
from evstat.lazy import NOT_DASK, dispatch

__all__ = [
    "Capabilities",
    "FORMAT",
    "FORMAT_VERSION",
    "REJECT",
    "RESULT_TYPES",
    "SCORE_INPUTS",
    "SCORE_KINDS",
    "STRATEGIES",
    "Results",
    "UnverifiedLoadWarning",
    "check_reject_cost",
    "contract_examples",
    "fitter",
    "fitters",
    "from_arrays",
    "from_dict",
    "load",
    "not_fitted",
    "register",
    "registered",
    "saved_models",
    "schema_of",
    "supported_classes",
    "upward",
]

FORMAT = "evstat"
#: Version 2 (issue 9) added the ``checksum`` entry and full schema validation.
FORMAT_VERSION = 2
#: the values of ``predict(type=...)``
RESULT_TYPES = ("prob", "belief", "mass")
#: R's predict.glm types, offered by the models with a linear predictor (evstat.glm.GlmVerbs)
_LINEAR_TYPES = ("link", "response")

#: The one lazy hook upward: verb -> (module, function) of the presentation layer.
_UPWARD = {"plot": ("evstat.plotting", "plot"), "report": ("evstat.report", "report")}

#: the values of :attr:`Capabilities.scores`
SCORE_KINDS = ("any", "logits", "ovr", "probabilities")

#: the kinds of score columns a model may read (:attr:`Capabilities.accepts`; what the columns
#: are: :func:`evstat.multiclass.simplex.score_kind`): K class probabilities (exact 0 and 1
#: allowed: evstat.multiclass.simplex.clip_rule), their logs, K class scores (logits, one-vs-rest
#: scores: one column per class, named like the classes or matched by order), K - 1 log-ratios
#: against the first class, one decision function (or probability) of a two-class classifier, any
#: other number of score columns (several classifiers' scores)
SCORE_INPUTS = ("probabilities", "log-probabilities", "class-scores", "log-ratios", "decision", "scores")


class UnverifiedLoadWarning(EvstatWarning):
    """An unsigned model file whose load check cannot verify its estimates (e.g. a maximum-
    likelihood fit on separable calibration data: coefficients moved along the separating
    direction solve the score equations too); only a signature protects such a file
    (``fit.save(path, key=...)``, ``ev.load(path, key=...)``)."""


@dataclass(frozen=True)
class Capabilities:
    """What a results class supports, declared once per class (``capabilities = Capabilities(...)``)
    and read by ``decide``, plotting, the report and the contract tests (instead of probing for
    methods); ``tests/test_capabilities.py`` checks every registered class's declaration
    against its members.

    Attributes
    ----------
    profiles : bool
        Coefficients with a profile likelihood: ``params``, ``profile(...)``,
        ``conf_int(method="profile")`` (the ``"profile"`` figure, the report's coefficient table).
    contours : bool
        A predictive contour ``predictive_contour(newdata)`` (the ``"contours"`` figure).
    densities : bool
        Fitted class-conditional score densities ``densities(s)`` (bayescal).
    k_class_mass : bool
        ``predict(type="mass")`` for K >= 3. False for a model whose K-class predictions are lower
        and upper probabilities that are not those of a mass function (evmultinom): it refuses
        ``type="mass"`` for K >= 3 with a message, and the contract tests check that refusal.
    refit : bool
        ``fit.refit(data)`` fits the same formula with the same options on other data (what
        active learning's ``update`` calls).
    default_strategy : str
        The strategy of ``decide(strategy=None)``.
    extra_strategies : tuple of str
        The model's own, non loss-based decision strategies beyond
        :data:`evstat.belief.STRATEGIES` (the evidential classifiers' ``"credal"``).
    single_score : bool
        The model calibrates one score column (isotonic, betacal, ...): its fitter refuses a
        formula of several scores; the command line skips it (with a note) for such a formula.
    scores : {"any", "logits", "ovr", "probabilities"}
        The score columns the model expects: ``"any"`` real scores (a regression on them);
        ``"logits"``, one logit per class matched to the classes by ``<prefix>_<class>`` names
        (temperature and vector scaling); ``"ovr"``, one one-vs-rest score per class, matched
        the same way (or per task of a code); ``"probabilities"``, one probability per class
        (Dirichlet calibration). The command line's ``--example`` picks its columns by it.
    accepts : tuple of str
        The kinds of score columns the model can read, among :data:`SCORE_INPUTS` (default:
        all). The command line reads it to skip a default model that cannot read the given
        columns (saying why in the report) and to refuse a requested one with the reason.
    """

    profiles: bool = False
    contours: bool = False
    densities: bool = False
    k_class_mass: bool = True
    refit: bool = False
    default_strategy: str = "pessimistic"
    extra_strategies: tuple[str, ...] = ()
    single_score: bool = False
    scores: str = "any"
    accepts: tuple[str, ...] = SCORE_INPUTS

    def __post_init__(self) -> None:
        if self.scores not in SCORE_KINDS:
            raise ValueError(f"scores must be one of {SCORE_KINDS}, got {self.scores!r}")
        unknown = [k for k in self.accepts if k not in SCORE_INPUTS]
        if unknown or not self.accepts:
            raise ValueError(f"accepts must be a non-empty tuple of {SCORE_INPUTS}, got {self.accepts!r}")
        check_strategy(self.default_strategy, self.extra_strategies)


_REGISTRY: dict[str, type[Results]] = {}
#: method -> (example fitter, class counts it supports), for the contract tests
_EXAMPLES: dict[str, tuple[Callable[[str, pd.DataFrame], Any], tuple[int, ...]]] = {}
#: method -> the public function that fits it (``ev.<method>``), for the models fitted by name
_FITTERS: dict[str, Callable[..., Any]] = {}
#: method -> the class counts it accepts, among (2, 3) (3 stands for every K >= 3)
_N_CLASSES: dict[str, tuple[int, ...]] = {}
#: the packages whose modules register the models: all their modules are imported (importlib,
#: like :func:`upward`) the first time the registry is read, since ``import evstat`` imports no model
_MODEL_PACKAGES = ("evstat.calibration", "evstat.classifiers", "evstat.multiclass")


_LOADED = [False]


def _registry() -> dict[str, type[Results]]:
    """The registry, after importing every module of the model packages (once)."""
    if not _LOADED[0]:
        import pkgutil

        for package in _MODEL_PACKAGES:
            pkg = importlib.import_module(package)
            for info in pkgutil.iter_modules(pkg.__path__, f"{package}."):
                importlib.import_module(info.name)
        _LOADED[0] = True
    return _REGISTRY


def upward(verb: str) -> Any:
    """The presentation-layer function behind ``fit.plot`` (``"plot"``) or ``fit.report``
    (``"report"``), imported on first use (the one documented upward call of the model layers).

    Examples
    --------
    >>> upward("plot").__module__
    'evstat.plotting'
    """
    module, name = _UPWARD[verb]
    return getattr(importlib.import_module(module), name)


def check_reject_cost(reject_cost: Any) -> float | None:
    """``reject_cost`` as a float in [0, 1] (0-1 costs are used for the classes), or None.

    Examples
    --------
    >>> check_reject_cost(0.25)
    0.25
    """
    if reject_cost is None:
        return None
    try:
        rc = float(reject_cost)
    except (TypeError, ValueError):
        raise TypeError(f"reject_cost must be a number in [0, 1], got {reject_cost!r}") from None
    if not 0.0 <= rc <= 1.0 or np.isnan(rc):
        raise ValueError(
            f"reject_cost must lie in [0, 1] (0-1 costs are used for the classes), got {reject_cost!r}"
        )
    return rc


def register(
    cls: Any,
    example: Callable[[str, pd.DataFrame], Any] | None = None,
    n_classes: tuple[int, ...] = (2,),
    fitter: Callable[..., Any] | None = None,
) -> type:
    """Register a results class under its ``method`` name, for :func:`load` and for the
    contract tests (``tests/test_contract.py`` runs on every registered model, like
    scikit-learn's ``parametrize_with_checks``).

    Parameters
    ----------
    cls : type
        A :class:`Results` subclass with a ``method`` name and a declared ``State`` (the
        dataclass of its saved fields, :mod:`evstat.io.state`).
    example : callable, optional
        ``example(response, data)`` fits the model on the contract data: columns ``s1``, ``s2``
        (scores in (0, 1)), ``g`` (a factor) and the response named ``response`` (``"y2"``,
        two classes ``"neg"``/``"pos"``; ``"y3"``, three classes). A model registered without
        one fails the contract tests.
    n_classes : tuple of int
        The class counts the model accepts among (2, 3); 3 stands for every K >= 3.
    fitter : callable, optional
        The public function that fits the model, ``fitter(formula, data, **options)`` (``ev.evlogit``
        for evlogit): the command line, active learning and the scikit-learn wrapper fit models by
        name through :func:`fitter`. A model registered without one (the partial EkNN, which
        ``ev.eknn(..., label_masses=...)`` fits) is loaded and tested but not fitted by name.
        Registration gives the fitter its array constructor, ``fitter.from_arrays(X, y, ...)``
        (:func:`from_arrays`).
    """
    if fitter is not None and getattr(fitter, "__name__", None) != cls.method:
        raise ValueError(
            f"the fitter of {cls.method!r} must be the public function of that name, "
            f"got {getattr(fitter, '__name__', fitter)!r}"
        )
    cls._declared_state()  # a model that cannot be saved and loaded is not registered
    _REGISTRY[cls.method] = cls
    _N_CLASSES[cls.method] = tuple(n_classes)
    if fitter is not None:
        _FITTERS[cls.method] = fitter
        setattr(fitter, "from_arrays", _array_constructor(cls.method))
    if example is not None:
        _EXAMPLES[cls.method] = (example, tuple(n_classes))
    return cls


def contract_examples() -> dict[str, tuple[Callable[[str, pd.DataFrame], Any] | None, tuple[int, ...]]]:
    """``{method: (example fitter or None, class counts)}`` for every registered model."""
    reg = _registry()
    return {m: _EXAMPLES.get(m, (None, _N_CLASSES.get(m, (2,)))) for m in reg}


def fitters(n_classes: int | None = None) -> dict[str, Callable[..., Any]]:
    """``{method: public fitting function}`` of every registered model fitted by name, in the
    registry's order; with ``n_classes=K``, those that accept a K-class response.

    The registry is the only list of models: the command line (``--method``), active learning
    and the scikit-learn wrapper read it here. What a model supports beyond the class count is
    its class's :class:`Capabilities` (``registered()[method].capabilities``).

    Parameters
    ----------
    n_classes : int, optional
        Keep the models that accept this number of classes (at least 2).

    Examples
    --------
    >>> import evstat as ev
    >>> fitters()["evlogit"] is ev.evlogit
    True
    >>> "evmultinom" in fitters(n_classes=3), "evlogit" in fitters(n_classes=3)
    (True, False)
    """
    reg = _registry()
    if n_classes is None:
        return {m: f for m, f in sorted(_FITTERS.items()) if m in reg}
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 2:
        raise ValueError(f"n_classes must be an integer of at least 2, got {n_classes!r}")
    key = 2 if n_classes == 2 else 3
    # in name order: the registry fills in import order, which differs between processes
    return {m: f for m, f in sorted(_FITTERS.items()) if m in reg and key in _N_CLASSES.get(m, (2,))}


def fitter(method: str) -> Callable[..., Any]:
    """The public function that fits the registered model ``method`` (``ev.<method>``).

    Raises
    ------
    ValueError
        For a name that no registered model fits, naming the ones that exist.

    Examples
    --------
    >>> import evstat as ev
    >>> fitter("evmultinom") is ev.evmultinom
    True
    """
    found = fitters()
    if method not in found:
        raise ValueError(f"unknown method {method!r}; the registered models are {', '.join(found)}")
    return found[method]


def from_arrays(
    method: str,
    X: Any,
    y: Any,
    /,
    *,
    names: Sequence[str] | None = None,
    levels: Sequence[Any] | None = None,
    response: str = "y",
    **options: Any,
) -> Any:
    """Fit the registered model ``method`` on a score matrix and labels, without a formula.

    The array constructor of every family (``ev.from_arrays("evlogit", X, y)`` is
    ``ev.evlogit.from_arrays(X, y)``): the same fit as ``fitter(method)("y ~ x1 + ... + xp",
    data)`` on a DataFrame of the same columns (same parameters, same predictions), but the
    frame is built from the arrays (:class:`evstat.formula.arrays.ArrayData`): no formula is
    parsed and patsy is not called. Arguments are ``(X, y)`` in scikit-learn's order
    (statsmodels' ``Logit(endog, exog)`` puts the labels first). The fit predicts on a 2-D
    array of the same columns (or a DataFrame with the named columns), saves and loads as a
    formula fit; ``fit.formula`` is ``"y ~ x1 + ... + xp"``.

    Parameters
    ----------
    method : str
        A registered model fitted by name (:func:`fitters`).
    X : array-like of shape (n, p), or pandas.DataFrame
        Numeric scores (a DataFrame gives its column names and index).
    y : array-like of shape (n,)
        The class of every row.
    names : sequence of str, optional
        Names of the columns of ``X`` (distinct; a name that is not an identifier is
        ``Q('a b')`` in the formula); default ``x1 .. xp``. The models
        that match score columns to classes (temperature, vector scaling, ``ecoc``, ...) need
        names such as ``s_<class>``.
    levels : sequence, optional
        The classes in frame order (two classes: ``(negative, positive)``); default R's order
        of the observed labels.
    response : str, default "y"
        The response's name in the formula and in ``fit.response``.
    **options
        The model's own options (``positive=``, ``missing=``, ``bins=``, ...), as for its fitter.

    Examples
    --------
    >>> import numpy as np
    >>> import evstat as ev
    >>> d = ev.datasets.simulate_gaussian(60, seed=1)
    >>> X, y = d[["x1", "x2"]].to_numpy(), d["y"].to_numpy()
    >>> a = ev.from_arrays("evlogit", X, y)
    >>> b = ev.evlogit("y ~ x1 + x2", d)
    >>> a.formula, bool(np.allclose(a.params.to_numpy(), b.params.to_numpy(), rtol=1e-12, atol=0))
    ('y ~ x1 + x2', True)
    >>> bool(np.array_equal(a.predict(X[:5]).to_numpy(), b.predict(d.head(5)).to_numpy()))
    True
    """
    fit = fitter(method)
    data = ArrayData(X, y, names=names, levels=levels, response=response)
    return fit(data.formula, data, **options)


def _array_constructor(method: str) -> Callable[..., Any]:
    """``ev.<method>.from_arrays``: :func:`from_arrays` of ``method``."""

    def from_arrays_(X: Any, y: Any, /, **options: Any) -> Any:
        return from_arrays(method, X, y, **options)

    from_arrays_.__name__ = from_arrays_.__qualname__ = "from_arrays"
    from_arrays_.__doc__ = (
        f"Fit {method} on a score matrix ``X`` (n, p) and labels ``y`` (n,), without a formula: "
        f"``evstat.from_arrays({method!r}, X, y, **options)`` (see there); the options "
        f"(``names=``, ``levels=``, ``response=`` and {method}'s own) are keywords."
    )
    return from_arrays_


def supported_classes(method: str) -> tuple[int, ...]:
    """The class counts the registered model ``method`` accepts, among (2, 3) (3: every K >= 3).

    Examples
    --------
    >>> supported_classes("evlogit"), supported_classes("eknn")
    ((2,), (2, 3))
    """
    _registry()
    return _N_CLASSES[method]


def registered() -> dict[str, type[Results]]:
    """``{method: results class}`` of every registered model (a copy).

    Examples
    --------
    >>> import evstat as ev
    >>> "evlogit" in registered() and "eknn" in registered()
    True
    """
    return dict(_registry())


def load(path: str | Path, key: str | bytes | None = None) -> Any:
    """Load a model saved with ``fit.save(path)`` (JSON with a format version).

    Loading never runs code: the file is read by a bounded, strict JSON reader
    (:func:`evstat.io.jsonfile.read_json`), its SHA-256 checksum is verified (a file modified
    after it was saved is refused), the whole content is validated against the model's schema
    (types, shapes, finite numbers, consistent lengths; one error naming the field), and the
    stored formula must pass :mod:`evstat.formula.whitelist` before patsy rebuilds the design.
    The schema is checked first (so a malformed field is named even in an edited file), then
    the checksum (so a well-formed but edited file is refused as modified).

    The SHA-256 checksum only detects accidental corruption: whoever edits a coefficient can
    recompute it. With ``key``, the file must carry the HMAC-SHA256 signature that
    ``fit.save(path, key=key)`` wrote; an unsigned file, a file signed with another key and a
    file changed after it was signed are refused (docs/guide/saved-models.md).

    Parameters
    ----------
    path : str or pathlib.Path
        The ``.json`` file (a named pipe such as ``<(cat fit.json)`` works too).
    key : str or bytes, optional
        The secret the file was signed with (``fit.save(path, key=...)``; at least 16 bytes: an
        empty or shorter key is refused, :class:`evstat.io.integrity.WeakKeyError`). Without it
        the signature, if any, is not checked.

    Returns
    -------
    Results
        The fitted model, of the class that saved it.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        Anything else, with a message naming the problem: a folder, not JSON, too large, another
        format or format version, an unknown model kind, a checksum mismatch, a field that does
        not match the schema (:class:`evstat.io.schema.SchemaError`), a formula outside the
        whitelist (:class:`evstat.formula.whitelist.UnsafeFormulaError`).

    Examples
    --------
    >>> import tempfile, os, evstat as ev
    >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(30, seed=2))
    >>> path = os.path.join(tempfile.mkdtemp(), "fit.json")
    >>> _ = fit.save(path)
    >>> bool((ev.load(path).params == fit.params).all())
    True
    """
    path = Path(path)
    source = repr(str(path))
    if key is not None:
        integrity.check_key(key)  # an empty or short key is refused as such, whatever the file
    try:
        d = read_json(path, "saved model")
    except FileNotFoundError:
        raise FileNotFoundError(f"no saved model at {source}") from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise ValueError(f"{source} is not a model saved by evstat (no 'format': 'evstat' entry)")
    version = d.get("format_version")
    if version != FORMAT_VERSION:
        older = (
            " (written by an older evstat, without a checksum)"
            if isinstance(version, int) and not isinstance(version, bool) and 0 < version < FORMAT_VERSION
            else ""
        )
        raise ValueError(
            f"{source} has format version {str(version)[:20]}{older}; this evstat reads "
            f"version {FORMAT_VERSION}. Refit and save the model with this version."
        )
    if key is not None:
        integrity.verify_signature(d, key, source)  # before anything of the file is used
    return _build(d, source, verify=True, signed=key is not None)


def _known(d: Mapping[str, Any], source: str) -> type[Results]:
    method = d.get("method")
    if not isinstance(method, str) or method not in _registry():
        shown = repr(method)[:60]
        raise ValueError(f"{source} holds an unknown calibrator {shown}; known: {sorted(_REGISTRY)}")
    return _REGISTRY[method]


def schema_of(d: Any, path: str = "") -> Spec:
    """The schema of a saved model description, chosen by its ``method`` (for nested models)."""
    if not isinstance(d, dict):
        return Refuse("must be a saved model (an object)")
    method = d.get("method")
    if not isinstance(method, str) or method not in _registry():
        return Refuse(f"holds an unknown calibrator {repr(method)[:60]}; known: {sorted(_REGISTRY)}")
    return _REGISTRY[method].schema()


def from_dict(d: dict[str, Any], source: str = "the description") -> Any:
    """Rebuild a fitted model from ``fit.to_dict()`` (dispatching on its ``method``).

    The description is validated against the model's schema first (see :func:`load`); the
    checksum is checked by :func:`load` only (``to_dict()`` has none).
    """
    return _build(d, source, verify=False)


def saved_models(what: str, length: Ref | None = None, min_len: int = 0) -> Any:
    """A :class:`State` field holding fitted models of any registered kind (the per-column
    calibrators of disjoint, the task models of ecoc): saved whole (``to_dict``), each checked
    against the schema of its own ``method`` and rebuilt by :func:`from_dict`; the fitted
    attribute is a list of fits or a dict whose values are the fits.

    Examples
    --------
    >>> import dataclasses
    >>> f = saved_models("task models", min_len=1)
    >>> type(f.metadata["spec"]).__name__
    'List'
    """
    return state.saved(
        List(Lazy(schema_of), length=length, min_len=min_len, what=what),
        encode=lambda fits: [fit.to_dict() for fit in (fits.values() if isinstance(fits, Mapping) else fits)],
        decode=lambda descriptions: [from_dict(d) for d in descriptions],
    )


def not_fitted(fit: Any, source: str, field: str, detail: str) -> SchemaError:
    """The error of a family's load check (``Results._verify_loaded``): ``field`` of the file
    ``source`` is not what the fit gives on the saved data (``detail`` says how it differs).

    Examples
    --------
    >>> str(not_fitted(type("F", (), {"method": "eknn"})(), "'f.json'", "gamma[0]", "a detail"))[:58]
    "'f.json' holds a eknn model whose gamma[0] is not what the"
    """
    return SchemaError(
        f"{source} holds a {fit.method} model whose {field} is not what the fit gives on its "
        f"saved data ({detail}); the file was edited after it was fitted (a recomputed "
        "checksum does not make it genuine). Refit and save the model again"
    )


def _build(d: dict[str, Any], source: str, verify: bool, signed: bool = False) -> Any:
    """Schema first (precise, field-level messages), then the checksum, then the model (whose
    formula the whitelist checks before patsy evaluates it), then the family's load check; an
    unsigned file whose check cannot verify the estimates (``Results._unverified``) warns
    (:class:`UnverifiedLoadWarning`)."""
    cls = _known(d, source)
    try:
        validate(d, cls.schema())
    except SchemaError as err:
        raise SchemaError(f"{source} does not match the schema of a saved {cls.method} model: {err}") from None
    if verify:
        integrity.verify_checksum(d, source)
    try:
        fit = cls._from_saved(d)
    except (KeyError, IndexError, TypeError, AttributeError) as err:  # defensive: schema-valid but inconsistent
        raise ValueError(
            f"{source} holds an inconsistent {cls.method} model ({type(err).__name__}: {err}); refit and save it again"
        ) from None
    if verify:
        fit._verify_loaded(source)  # a family's re-verification of its estimate on the saved data
        why = fit._unverified()
        if why and not signed:
            warnings.warn(
                f"{source}: the load check cannot verify this {cls.method} model's estimates ({why}); an edit of "
                "them would load unnoticed, whatever the checksum: only a signature protects this file "
                "(fit.save(path, key=...) and ev.load(path, key=...))",
                UnverifiedLoadWarning,
                stacklevel=3,
            )
    return fit


class Results(ABC):
    """Base class of every fitted evstat model (K >= 2 classes; not instantiated directly).

    Subclasses implement the abstract members; the base supplies ``n_classes``, ``is_binary``,
    ``positive``, ``class_counts``, ``augment`` (by position, so repeated index labels work),
    ``to_dict``/``save``, and ``plot``/``report`` through :func:`upward`.
    """

    method: ClassVar[str] = "model"
    #: what the model supports, declared once per class (read by plotting, the report, decide
    #: and the contract tests instead of probing for methods)
    capabilities: ClassVar[Capabilities] = Capabilities()

    # ---------------------------------------------------------------- facts
    @property
    @abstractmethod
    def formula(self) -> str:
        """The formula the model was fitted with."""

    @property
    @abstractmethod
    def classes(self) -> tuple:
        """The classes in frame order (two classes: ``(negative, positive)``)."""

    @property
    @abstractmethod
    def nobs(self) -> int:
        """Number of training (calibration) rows."""

    @property
    @abstractmethod
    def response(self) -> str:
        """The response column's name."""

    @property
    @abstractmethod
    def score_columns(self) -> list[str]:
        """The data columns the right-hand side of the formula uses."""

    @property
    @abstractmethod
    def n_dropped(self) -> int:
        """Training rows dropped for missing values (``missing="drop"``)."""

    @abstractmethod
    def training_data(self) -> pd.DataFrame:
        """The training rows as the formula saw them: the score columns and the response column
        (original labels), indexed like the training data."""

    @abstractmethod
    def training_codes(self) -> np.ndarray:
        """The class of every training row as its position in :attr:`classes` (int)."""

    @property
    def n_classes(self) -> int:
        """Number of classes K."""
        return len(self.classes)

    @property
    def is_binary(self) -> bool:
        """True for two classes."""
        return self.n_classes == 2

    @property
    def positive(self) -> Any:
        """The class coded 1 of a two-class model (the second class); None for K >= 3."""
        return self.classes[1] if self.is_binary else None

    @property
    def class_counts(self) -> pd.Series:
        """Training rows per class."""
        c = np.bincount(np.asarray(self.training_codes(), dtype=np.intp), minlength=self.n_classes)
        return pd.Series(c, index=pd.Index(list(self.classes), dtype=object, name="class"), name="n")

    # ---------------------------------------------------------------- array hooks to implement
    @abstractmethod
    def _design(self, newdata: pd.DataFrame | None, missing: str = "raise") -> tuple[np.ndarray, pd.Index]:
        """The design rows of ``newdata`` (the training rows when None) and their index."""

    @abstractmethod
    def _predict(self, X: np.ndarray, index: pd.Index, type: str, **options: Any) -> Any:
        """The output of ``predict(type=...)`` for design rows ``X`` (``type`` already checked
        against :attr:`result_types`); ``options`` are the family's own keywords (evmultinom's
        ``events``)."""

    @abstractmethod
    def _decide(
        self, X: np.ndarray, strategy: str, loss: pd.DataFrame | None, rho: float, reject_cost: float | None
    ) -> np.ndarray:
        """The chosen action of every design row (object array of action names).

        ``loss`` is None for 0-1 costs (plus the reject action when ``reject_cost`` is a float);
        otherwise a checked loss matrix, one row per action, the classes as columns in
        :attr:`classes` order (and ``reject_cost`` is None). ``strategy`` is one of
        :data:`evstat.belief.STRATEGIES`; ``rho`` is checked."""

    def refit(self, data: pd.DataFrame | ArrayData) -> Any:
        """The same model (formula and options) fitted on ``data``; ``self`` is unchanged. For the
        models that declare ``capabilities.refit`` (active learning's ``update`` calls it).
        ``data`` is a DataFrame, or :class:`~evstat.formula.arrays.ArrayData` whose ``formula``
        is the fit's (a fit of plain score columns: its frame is built from the arrays).

        Examples
        --------
        >>> import evstat as ev
        >>> d = ev.datasets.simulate_gaussian(40, seed=3)
        >>> ev.evlogit("y ~ x1", d.iloc[::2]).refit(d).nobs
        40
        """
        if not self.capabilities.refit:
            have = ", ".join(m for m, c in _registry().items() if c.capabilities.refit)
            raise ValueError(
                f"{self.method} does not declare how to refit itself (the models that do: {have}); "
                f"fit it again with its own function on the new data"
            )
        if not isinstance(data, (pd.DataFrame, ArrayData)):
            raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
        return self._refit(data)

    def _refit(self, data: Any) -> Any:
        """The hook of :meth:`refit` (models with ``capabilities.refit``): ``data`` a DataFrame
        or :class:`~evstat.formula.arrays.ArrayData` of the same formula, handed to the fitter."""
        raise NotImplementedError

    def _decide_extra(self, X: np.ndarray, index: pd.Index, strategy: str) -> pd.Series:
        """Decisions of a strategy of ``capabilities.extra_strategies`` (not loss-based)."""
        raise NotImplementedError(f"{self.method} declares no strategy {strategy!r}")

    # ---------------------------------------------------------------- the verbs (template methods)
    #: the values ``predict(type=...)`` accepts
    result_types: ClassVar[tuple[str, ...]] = RESULT_TYPES

    def predict(
        self, newdata: pd.DataFrame | None = None, type: str = "prob", missing: str = "raise", **options: Any
    ) -> Any:
        """Predict for new score rows (the training rows when ``newdata`` is None).

        Parameters
        ----------
        newdata : pandas.DataFrame or dask.dataframe.DataFrame, optional
            Must contain the score columns of the formula; other columns are ignored. A dask
            DataFrame gives a lazy dask result computed partition by partition
            (:mod:`evstat.lazy`).
        type : {"prob", "belief", "mass"}, or ``"link"``, ``"response"`` (linear-predictor models)
            Two classes ``(negative, positive)``: ``"prob"`` a Series ``theta`` = P(positive)
            (theta_hat of a calibrator, BetP of a classifier); ``"belief"`` a DataFrame
            [theta, bel, pl] of {positive}; ``"mass"`` a :class:`evstat.belief.MassArray` on the
            classes (m({positive}) = Bel, m({negative}) = 1 - Pl, m(frame) = Pl - Bel for a
            calibrator). Three or more classes: ``"prob"`` a DataFrame, a column per class;
            ``"belief"`` two-level columns ``(stat, class)``, ``stat`` in theta, bel, pl (so
            ``pred["pl"]`` is the contour function); ``"mass"`` a MassArray on the classes.
            The models with a linear predictor (``"link"`` in :attr:`result_types`: evlogit,
            betacal, evmultinom, the scaling calibrators) add R's ``predict.glm`` types
            ``"link"`` and ``"response"``, with ``se_fit=True`` (:mod:`evstat.glm`).
        missing : {"raise", "drop"}
            Rows of ``newdata`` with missing scores: an error, or dropped from the result.
        **options
            The model's own options: ``se_fit`` (linear-predictor models), evmultinom's
            ``events=`` (lower and upper probabilities of sets of classes).

        Returns
        -------
        pandas.Series, pandas.DataFrame or evstat.belief.MassArray
            Indexed like ``newdata``, in its row order.
        """
        lazy = dispatch(self, "predict", newdata, type=type, missing=missing, **options)
        if lazy is not NOT_DASK:  # a dask DataFrame: partition-wise, lazy (evstat.lazy)
            return lazy
        linear = "link" in self.result_types
        if type in _LINEAR_TYPES and not linear or options.get("se_fit") and not linear:
            have = ", ".join(m for m, c in _registry().items() if "link" in c.result_types)
            raise ValueError(
                f"type={type!r}{' with se_fit=True' if options.get('se_fit') else ''} needs a model "
                f"with a linear predictor ({have}), as R's predict.glm; {self.method} has none: use "
                "type='prob' for its probabilities"
            )
        if type not in self.result_types:
            raise ValueError(f"type must be one of {self.result_types}, got {type!r}")
        X, index = self._design(newdata, missing)
        return self._predict(X, index, type, **options)

    def decide(
        self,
        newdata: pd.DataFrame | None = None,
        strategy: str | None = None,
        reject_cost: float | None = None,
        missing: str = "raise",
        *,
        loss: pd.DataFrame | None = None,
        rho: float = 0.5,
    ) -> pd.Series:
        """Decide the class of each row, with 0-1 costs and an optional reject option, or with a
        loss matrix; the one decision entry point of every model.

        Through the one engine of :mod:`evstat.belief.decision` (its strategies, its tie
        policy): ``"pessimistic"`` minimises the upper expected loss (0-1 costs: the class of
        largest Bel({w}); Minary et al. 2019, eqs. 8-11), ``"optimistic"`` the lower one (largest
        Pl({w})), ``"pignistic"`` the expected loss under BetP, ``"probabilistic"`` the
        expected loss under the model's probabilistic prediction (theta_hat of a calibrator,
        BetP of a classifier), ``"hurwicz"`` the ``rho`` mixture of the upper and lower expected
        losses. With ``reject_cost`` a row is rejected when that constant cost is strictly lower
        than the expected loss of every class. Ties go to the first action in order: the
        classes in frame order, then reject (:data:`evstat.belief.TIE_TOL`).

        Parameters
        ----------
        newdata : pandas.DataFrame or dask.dataframe.DataFrame, optional
            Score rows (the training rows when None); a dask DataFrame gives a lazy result.
        strategy : str, optional
            One of :data:`evstat.belief.STRATEGIES`, or of the model's
            ``capabilities.extra_strategies``
            (the evidential classifiers' ``"credal"``: the focal set of maximal mass, which may
            be a class, a meta-class or the outlier class; an object Series). Default: the
            model's ``capabilities.default_strategy``.
        reject_cost : float in [0, 1], optional
            Cost of the reject action (0-1 costs for the classes).
        missing : {"raise", "drop"}
        loss : pandas.DataFrame, optional
            A loss matrix (rows = actions, columns = the classes), e.g. from
            :func:`evstat.belief.loss_matrix`; replaces the 0-1 costs (then ``reject_cost`` must
            be None).
        rho : float in [0, 1], default 0.5
            Hurwicz weight of the upper expected loss (``strategy="hurwicz"``).

        Returns
        -------
        pandas.Series
            Categorical with categories the actions (the classes, then ``"reject"`` if
            ``reject_cost`` is given; the loss matrix's rows if ``loss`` is), indexed like
            ``newdata``.

        Examples
        --------
        >>> import evstat as ev
        >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(200, seed=1))
        >>> fit.decide(ev.datasets.simulate_gaussian(5, seed=2), reject_cost=0.2).tolist()
        [0, 'reject', 0, 1, 1]
        """
        lazy = dispatch(
            self, "decide", newdata, strategy=strategy, reject_cost=reject_cost, missing=missing, loss=loss, rho=rho
        )
        if lazy is not NOT_DASK:  # a dask DataFrame: partition-wise, lazy (evstat.lazy)
            return lazy
        caps = self.capabilities
        if strategy is None:
            strategy = caps.default_strategy
            if strategy in caps.extra_strategies and (reject_cost is not None or loss is not None):
                strategy = "pessimistic"  # costs ask for a loss-based rule; the credal rule takes none
        strategy = check_strategy(strategy, caps.extra_strategies)
        r = check_rho(rho)
        if strategy in caps.extra_strategies:
            if reject_cost is not None or loss is not None:
                raise ValueError(
                    f"strategy={strategy!r} is not loss-based; it takes neither reject_cost nor loss"
                )
            X, index = self._design(newdata, missing)
            return self._decide_extra(X, index, strategy)
        rc = check_reject_cost(reject_cost)
        L = None if loss is None else self._check_loss(loss, rc)
        if rc is not None and REJECT in self.classes:
            raise ValueError(
                f"a class is named {REJECT!r}, which clashes with the reject action of "
                f"reject_cost={reject_cost!r}; rename that class (e.g. "
                f"data[{self.response!r}].replace({{{REJECT!r}: 'rejected'}})) and refit, or decide "
                "without reject_cost (or with a loss matrix)"
            )
        X, index = self._design(newdata, missing)
        actions = list(L.index) if L is not None else [*self.classes, *([REJECT] if rc is not None else [])]
        chosen = np.asarray(self._decide(X, strategy, L, r, rc), dtype=object)
        cat = pd.Categorical(chosen, categories=pd.Index(actions, dtype=object))
        return pd.Series(cat, index=index, name="decision")

    def _check_loss(self, loss: Any, reject_cost: float | None) -> pd.DataFrame:
        """The loss matrix as floats with the classes as columns in frame order, checked."""
        if reject_cost is not None:
            raise ValueError(
                "give either reject_cost (0-1 costs plus a reject action) or loss (a full loss "
                "matrix), not both: add a reject row to the loss matrix instead"
            )
        if not isinstance(loss, pd.DataFrame):
            raise TypeError(
                "loss must be a DataFrame with one row per action and the classes as columns, e.g. "
                f"evstat.belief.loss_matrix({list(self.classes)!r}, reject=0.2); got {type(loss).__name__}"
            )
        missing_cols = [c for c in self.classes if c not in loss.columns]
        if missing_cols:
            raise ValueError(
                f"the loss matrix lacks the class column(s) {missing_cols}; its columns must be the "
                f"classes {list(self.classes)}"
            )
        if not loss.index.is_unique:
            raise ValueError(f"the loss matrix's actions (its rows) must be distinct, got {list(loss.index)}")
        # by label: df[[False, True]] would read Boolean class labels as a row mask
        values = label_columns(loss, self.classes)
        if not np.isfinite(values).all():
            raise ValueError("the loss matrix contains NaN or infinite costs; give finite costs")
        return pd.DataFrame(values, index=loss.index, columns=pd.Index(list(self.classes), dtype=object))

    def _zero_one_loss(self, reject_cost: float | None) -> pd.DataFrame:
        """The 0-1 loss matrix on the classes, with a reject row when ``reject_cost`` is given."""
        return loss_matrix(list(self.classes), reject=reject_cost)

    @abstractmethod
    def summary(self) -> Any:
        """A :class:`evstat.calibration.Summary` (as_text, as_html)."""

    @abstractmethod
    def tidy(self) -> pd.DataFrame:
        """One row per parameter or component (broom's tidy)."""

    @abstractmethod
    def glance(self) -> pd.DataFrame:
        """One row of model-level statistics (broom's glance)."""

    @abstractmethod
    def _augment_columns(self, newdata: pd.DataFrame | None, missing: str) -> pd.DataFrame:
        """The columns ``augment`` adds, indexed by the kept positions of ``newdata`` (which has
        a RangeIndex), or by the training index when ``newdata`` is None."""

    #: key and schema of the training-frame description every saved model of the class holds
    _frame_key: ClassVar[str] = "model_frame"

    @classmethod
    @abstractmethod
    def _frame_schema(cls) -> Spec:
        """The schema of the training frame's description."""

    @abstractmethod
    def _frame_dict(self) -> dict[str, Any]:
        """The training frame's description (stored under :attr:`_frame_key`)."""

    #: The saved state of the class, declared once: a dataclass of :func:`evstat.io.state.saved`
    #: fields from which the class's part of :meth:`to_dict`, its keys in :meth:`schema` (a
    #: field with a default is optional: older files lack it) and the rebuilding by
    #: :func:`load` (``cls(frame, **fields)``) are derived (:mod:`evstat.io.state`). Every
    #: registered class declares one (:func:`register` refuses a class without).
    State: ClassVar[type | None] = None

    @classmethod
    def _declared_state(cls) -> type:
        if cls.State is None:
            raise NotImplementedError(
                f"the {cls.method} model declares no State, so it cannot be saved, validated or loaded; "
                "declare its saved fields as a dataclass (evstat.io.state)"
            )
        return cls.State

    @classmethod
    def _frame_from_dict(cls, d: Mapping[str, Any]) -> Any:
        """The training frame rebuilt from the saved description (under :attr:`_frame_key`)."""
        raise NotImplementedError

    @classmethod
    def _from_saved(cls, d: Mapping[str, Any]) -> Results:
        """Rebuild a fit from :meth:`to_dict`'s description, schema-checked (nothing is
        estimated again): the frame and :attr:`State`'s fields, passed to the constructor as
        ``cls(frame, **fields)``."""
        build: Any = cls  # a family's constructor: (frame, **fields)
        return build(cls._frame_from_dict(d), **state.decode(cls._declared_state(), d))

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        """Cross-field checks ``(d, root) -> message or None`` run after the keys are valid."""
        return []

    @classmethod
    def schema(cls) -> schema.Dict:
        """The schema of a saved model of this class, checked by :func:`evstat.load`.

        The common keys (``format``, ``format_version``, ``method``, the training frame and the
        optional ``checksum`` and ``signature``) plus the fields of the class's :attr:`State`;
        see :mod:`evstat.io.schema`.
        """
        required, optional = state.specs(cls._declared_state())
        return schema.Dict(
            {
                "format": schema.Str(choices=[FORMAT]),
                "format_version": schema.Int(choices=[FORMAT_VERSION]),
                "method": schema.Str(choices=[cls.method]),
                cls._frame_key: cls._frame_schema(),
                **required,
            },
            optional={"checksum": schema.Str(max_len=100), "signature": schema.Str(max_len=100), **optional},
            checks=cls._schema_checks(),
        )

    # ---------------------------------------------------------------- shared verbs
    def _check_newdata(self, newdata: Any) -> None:
        refuse_masked(newdata, "newdata")
        if newdata is not None and not isinstance(newdata, (pd.DataFrame, np.ndarray)):
            raise TypeError(
                f"newdata must be a pandas DataFrame with the score columns "
                f"{self.score_columns} (or a 2-D array of them in this order), got {type(newdata).__name__}"
            )

    def augment(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> pd.DataFrame:
        """``newdata`` (or the training data's score and response columns) with the model's
        prediction columns added (see the module docstring); rows dropped by
        ``missing="drop"`` are left out, the others keep their index and order."""
        self._check_newdata(newdata)
        if isinstance(newdata, np.ndarray):  # a 2-D array of the score columns in order
            newdata = rows_frame(newdata, self.score_columns)
        if newdata is None:
            cols = self._augment_columns(None, missing)
            out = self.training_data().copy()
        else:
            # positions, not labels, select the kept rows (the index may repeat labels)
            cols = self._augment_columns(newdata.reset_index(drop=True), missing)
            out = newdata.iloc[np.asarray(cols.index, dtype=np.intp)].copy()
        for c in cols.columns:
            out[c] = cols[c].to_numpy()
        return out

    def plot(self, kind: str | None = None, newdata: pd.DataFrame | None = None, *, y: Any = None,
             ax: Any = None, **kwargs: Any) -> Any:
        """Draw a figure of the fitted model; returns the matplotlib Axes.

        Parameters
        ----------
        kind : str, optional
            The figure (:data:`evstat.plotting.KINDS`; ``evstat.plotting.applicable_kinds(fit)``
            lists those that apply to this model). Two classes: ``"reliability"`` (the default),
            ``"calibration_map"`` (one score column), ``"decision_regions"`` (two or more),
            ``"contours"`` (models with a predictive contour, e.g. evlogit), ``"profile"``
            (coefficient profiles), ``"reject_curve"``, ``"ignorance"``, ``"class_regions"``,
            ``"belief_map"``, ``"score_densities"``. Three or more classes:
            ``"class_reliability"`` (the default: top-label reliability with 95% intervals),
            ``"classwise_reliability"``, ``"decision_regions"`` (= ``"class_regions"``),
            ``"belief_map"`` and ``"ternary"`` (K = 3); the two-class kinds are refused with a
            message. A kind that does not apply raises ValueError.
        newdata : pandas.DataFrame, optional
            Rows to evaluate and draw (default: the training rows). A DataFrame passed as the
            first argument (``fit.plot(test)``) is taken as ``newdata`` with the default kind.
        y : str or array-like, optional
            Labels of ``newdata`` (default: its response column).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).
        **kwargs
            Passed to the plotting function (see :func:`evstat.plotting.plot`), e.g. ``grid=``,
            ``reject_cost=``, ``bins=``, ``strategy=``.

        Returns
        -------
        matplotlib.axes.Axes
        """
        return upward("plot")(self, kind, newdata, y=y, ax=ax, **kwargs)

    def report(
        self,
        path: str | Path,
        newdata: pd.DataFrame | None = None,
        y: Any = None,
        title: str | None = None,
        date: Any = None,
        **kwargs: Any,
    ) -> Path:
        """Write a self-contained HTML report of this model (any number of classes; see
        :func:`evstat.report.report`). ``newdata`` with labels (the response column, or ``y``)
        is used for the metrics; ``date`` fixes the only line that changes between runs."""
        return upward("report")(self, path, newdata=newdata, y=y, title=title, date=date, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable description (format ``"evstat"``, with a format version)."""
        d: dict[str, Any] = {"format": FORMAT, "format_version": FORMAT_VERSION, "method": self.method}
        d[self._frame_key] = self._frame_dict()
        d.update(state.encode(self._declared_state(), self))  # the settings and estimates
        return d

    def _verify_loaded(self, source: str) -> None:
        """Re-verify, after :func:`load`, that the parameters are what the family estimates from
        the saved data (optimality conditions, re-derived counts); raise ``SchemaError`` if not.
        The base has nothing to check; families override it (evstat.glm.GlmVerbs: the score
        equations of the likelihood; the table in docs/guide/saved-models.md lists every
        family's check). Only checks run here: nothing is estimated again
        (``tests/test_no_refit.py`` counts the estimator calls)."""

    def _unverified(self) -> str | None:
        """Why the load check cannot verify this fit's estimates (None: it can, or the family
        has nothing to verify); :func:`load` warns for an unsigned file when it cannot. The base
        says None; :class:`evstat.glm.GlmVerbs` reports separable or non-converged fits."""
        return None

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        """Copies (``copy.deepcopy``) and transport to worker processes (joblib, Dask) go through
        :meth:`to_dict` and :func:`from_dict`, as ``save``/``load`` do: what travels is the JSON
        description, and rebuilding it runs nothing but the whitelisted formula. Files stay JSON
        (never pickle files)."""
        return (from_dict, (self.to_dict(),))

    def save(self, path: str | Path, key: str | bytes | None = None) -> Path:
        """Save the fitted model as JSON (never pickle); reload with :func:`evstat.load`.

        The file holds :meth:`to_dict` and a ``"checksum"`` entry, the SHA-256 of its canonical
        serialisation (:func:`evstat.io.integrity.checksum`): :func:`evstat.load` refuses a
        file whose content was changed by accident. The checksum is no protection against a
        deliberate edit (it can be recomputed); with ``key`` (a secret str or bytes of at least
        16 bytes, :func:`evstat.io.integrity.check_key`) the file also carries an HMAC-SHA256
        signature (:func:`evstat.io.integrity.sign`), and
        ``ev.load(path, key=key)`` refuses a file that is unsigned, signed with another key or
        changed after it was signed.

        Examples
        --------
        >>> import tempfile, os, evstat as ev
        >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(30, seed=2))
        >>> path = fit.save(os.path.join(tempfile.mkdtemp(), "fit.json"), key="our shared secret")
        >>> ev.load(path, key="our shared secret").method
        'evlogit'
        >>> ev.load(path, key="another shared secret")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        evstat.io.schema.SchemaError: ... has a signature that does not match the key: ...
        """
        path = Path(path)
        if key is not None:
            integrity.check_key(key)  # before the work: empty or under 16 bytes refused (WeakKeyError)
        d = self.to_dict()
        if key is not None:
            d["signature"] = integrity.sign(d, key)
        d["checksum"] = integrity.checksum(d)
        # atomic (evstat.io.atomic): an interrupted save leaves the old file, never half a model
        write_text(path, json.dumps(d, indent=1, allow_nan=False), encoding="utf-8")
        return path
