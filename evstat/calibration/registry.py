"""Registry of calibrator results classes, for loading saved models by their ``method``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evstat.formula.schema import SchemaError, Spec, read_json, validate, verify_checksum

__all__ = ["from_dict", "load", "register", "schema_of"]

_REGISTRY: dict[str, Any] = {}


def register(cls: Any) -> Any:
    """Register a results class under its ``method`` name (used by :func:`load`)."""
    _REGISTRY[cls.method] = cls
    return cls


def load(path: str | Path) -> Any:
    """Load a model saved with ``fit.save(path)`` (JSON with a format version).

    Loading never runs code: the file is read by a bounded, strict JSON reader
    (:func:`evstat.formula.schema.read_json`), its SHA-256 checksum is verified (a file modified
    after it was saved is refused), the whole content is validated against the model's schema
    (types, shapes, finite numbers, consistent lengths; one error naming the field), and the
    stored formula must pass :mod:`evstat.formula.whitelist` before patsy rebuilds the design.
    The schema is checked first (so a malformed field is named even in an edited file), then
    the checksum (so a well-formed but edited file is refused as modified).

    Parameters
    ----------
    path : str or pathlib.Path
        The ``.json`` file (a named pipe such as ``<(cat fit.json)`` works too).

    Returns
    -------
    CalibrationResults
        The fitted model, of the class that saved it.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        Anything else, with a message naming the problem: a folder, not JSON, too large, another
        format or format version, an unknown model kind, a checksum mismatch, a field that does
        not match the schema (:class:`evstat.formula.schema.SchemaError`), a formula outside the
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
    from evstat.calibration.base import FORMAT, FORMAT_VERSION

    path = Path(path)
    source = repr(str(path))
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
    return _build(d, source, verify=True)


def _known(d: Mapping[str, Any], source: str) -> type:
    method = d.get("method")
    if not isinstance(method, str) or method not in _REGISTRY:
        shown = repr(method)[:60]
        raise ValueError(f"{source} holds an unknown calibrator {shown}; known: {sorted(_REGISTRY)}")
    return _REGISTRY[method]


def schema_of(d: Any, path: str = "") -> Spec:
    """The schema of a saved model description, chosen by its ``method`` (for nested models)."""
    if not isinstance(d, dict):
        return _Refuse("must be a saved model (an object)")
    method = d.get("method")
    if not isinstance(method, str) or method not in _REGISTRY:
        return _Refuse(f"holds an unknown calibrator {repr(method)[:60]}; known: {sorted(_REGISTRY)}")
    return _REGISTRY[method].schema()


class _Refuse(Spec):
    def __init__(self, message: str) -> None:
        self.message = message

    def check(self, value: Any, path: str, root: Any) -> None:
        raise self.fail(path or "the description", self.message)


def from_dict(d: dict[str, Any], source: str = "the description") -> Any:
    """Rebuild a fitted model from ``fit.to_dict()`` (dispatching on its ``method``).

    The description is validated against the model's schema first (see :func:`load`); the
    checksum is checked by :func:`load` only (``to_dict()`` has none).
    """
    return _build(d, source, verify=False)


def _build(d: dict[str, Any], source: str, verify: bool) -> Any:
    """Schema first (precise, field-level messages), then the checksum, then the model (whose
    formula the whitelist checks before patsy evaluates it)."""
    cls = _known(d, source)
    try:
        validate(d, cls.schema())
    except SchemaError as err:
        raise SchemaError(f"{source} does not match the schema of a saved {cls.method} model: {err}") from None
    if verify:
        verify_checksum(d, source)
    try:
        return cls._from_dict(d)
    except (KeyError, IndexError, TypeError, AttributeError) as err:  # defensive: schema-valid but inconsistent
        raise ValueError(
            f"{source} holds an inconsistent {cls.method} model ({type(err).__name__}: {err}); refit and save it again"
        ) from None
