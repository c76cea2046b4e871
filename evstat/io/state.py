"""The saved state of a results class, declared once (issue 24): a dataclass from which its
part of ``to_dict``, its schema and ``from_dict`` are derived.

Before, each model declared its persistence three times (``_to_dict`` writing the keys,
``_schema_fields`` their specs, ``_from_dict`` reading them back), and the three drifted. Now a
results class declares

.. code-block:: python

    @dataclass(frozen=True, kw_only=True)
    class State:
        radius: float = saved(Float(min=0.0))            # the spec; the type gives the default
        gamma: list[float] = saved(PER_CLASS_POSITIVE)     # a shape: one value per class
        warning: str = saved(default="")                   # absent in older files: optional key

and the results base (:class:`evstat.results.Results`) derives

* the keys the class writes: each field's attribute of the fitted object, encoded for JSON
  (:func:`encode`: numpy arrays, pandas Series and numpy scalars become lists and numbers, or the
  field's own ``encode``);
* their schema (:func:`specs`): the field's spec, or one derived from its annotation
  (:func:`spec_of`: ``float``, ``int``, ``bool``, ``str``, ``list[...]``, ``X | None``); a field
  with a default is an optional key (files of older evstat versions lack it);
* the keyword arguments of the class's constructor (:func:`decode`): the stored value, decoded by
  the field's ``decode`` (e.g. ``numpy.asarray``), or the default when the key is absent.

Why the standard library's dataclasses and not pydantic v2: the state is a handful of typed
fields whose specs evstat already checks with its own messages (naming the field, the file and
the fix, as the hostile-load tests require); dataclasses add no dependency to a package whose
``import evstat`` must stay light, and their ``fields()`` and ``metadata`` carry the spec and
the codecs. pydantic would bring its own error format, a compiled core and a second validation
path beside the schema language (docs/architecture.md).

Examples
--------
>>> from dataclasses import dataclass
>>> from evstat.io.schema import Float
>>> @dataclass(frozen=True, kw_only=True)
... class State:
...     radius: float = saved(Float(min=0.0))
...     note: str = saved(default="")
>>> required, optional = specs(State)
>>> sorted(required), sorted(optional)
(['radius'], ['note'])
>>> class Fit:
...     radius, note = 0.5, "ok"
>>> encode(State, Fit())
{'radius': 0.5, 'note': 'ok'}
>>> decode(State, {"radius": 2.0})
{'radius': 2.0, 'note': ''}
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from evstat.io import schema

__all__ = ["assign", "decode", "encode", "floats", "saved", "spec_of", "specs", "to_json"]

_NO_DEFAULT: Any = dataclasses.MISSING


def saved(
    spec: schema.Spec | None = None,
    *,
    default: Any = _NO_DEFAULT,
    encode: Callable[[Any], Any] | None = None,
    decode: Callable[[Any], Any] | None = None,
    attribute: str | None = None,
) -> Any:
    """A field of a saved state.

    Parameters
    ----------
    spec : evstat.io.schema.Spec, optional
        The field's schema; default: derived from its annotation (:func:`spec_of`).
    default : optional
        The value of a file that lacks the key (files of older evstat versions); with a default
        the key is optional in the schema.
    encode : callable, optional
        The fitted object's attribute -> a JSON value (default :func:`to_json`).
    decode : callable, optional
        The stored JSON value -> the constructor's argument (default: as stored).
    attribute : str, optional
        The fitted object's attribute, when it is not named like the field (a dotted path such
        as ``"_lik.beta_hat"`` reads an attribute of an attribute).
    """
    meta = {"spec": spec, "encode": encode, "decode": decode, "attribute": attribute}
    return dataclasses.field(default=default, metadata=meta)


def to_json(value: Any) -> Any:
    """A fitted attribute as a JSON value: arrays and Series as (nested) lists, numpy scalars as
    Python numbers, everything else as it is.

    Examples
    --------
    >>> import numpy as np
    >>> to_json(np.arange(3.0)), to_json(np.int64(2)), to_json("x")
    ([0.0, 1.0, 2.0], 2, 'x')
    """
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, (str, bytes)):
        return tolist()
    item = getattr(value, "item", None)
    if callable(item) and not isinstance(value, (list, dict, str)):
        return item()
    return value


def floats(value: Any) -> Any:
    """A decoder: the stored list (or nested lists) as a float64 numpy array.

    Examples
    --------
    >>> floats([1, 2.5]).dtype.name
    'float64'
    """
    return np.asarray(value, dtype=np.float64)


def spec_of(annotation: Any) -> schema.Spec:
    """The schema of a JSON value of the type ``annotation``.

    ``float`` is a finite number, ``int`` an integer, ``bool`` true or false, ``str`` a string
    of at most 10,000 characters, ``list[T]`` a list of ``T``, ``T | None`` null or ``T``,
    ``Any`` any JSON scalar.

    Examples
    --------
    >>> type(spec_of(list[float])).__name__, type(spec_of(int | None)).__name__
    ('List', 'Nullable')
    """
    if annotation is float:
        return schema.Float()
    if annotation is bool:
        return schema.Bool()
    if annotation is int:
        return schema.Int()
    if annotation is str:
        return schema.Str(max_len=10_000)
    if annotation is Any:
        return schema.Scalar()
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list and len(args) == 1:
        return schema.List(spec_of(args[0]))
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return schema.Nullable(spec_of(rest[0]))
    raise TypeError(f"no default schema for the annotation {annotation!r}: give the field a spec (saved(spec))")


def _fields(state: type) -> list[tuple[dataclasses.Field, Any]]:
    # the defining module's names (a class defined by exec'd code has no module in sys.modules)
    module = sys.modules.get(state.__module__)
    hints = typing.get_type_hints(state, globalns=vars(module) if module is not None else {})
    return [(f, hints[f.name]) for f in dataclasses.fields(state)]


def specs(state: type) -> tuple[dict[str, schema.Spec], dict[str, schema.Spec]]:
    """``(required, optional)`` specs of the keys of ``state`` (a field with a default is
    optional: older files lack it)."""
    required: dict[str, schema.Spec] = {}
    optional: dict[str, schema.Spec] = {}
    for f, hint in _fields(state):
        spec = f.metadata.get("spec") or spec_of(hint)
        (required if f.default is _NO_DEFAULT else optional)[f.name] = spec
    return required, optional


def encode(state: type, fit: Any) -> dict[str, Any]:
    """The keys of ``state`` read from the fitted object ``fit``, as JSON values."""
    out = {}
    for f in dataclasses.fields(state):
        value = fit
        for name in (f.metadata.get("attribute") or f.name).split("."):
            value = getattr(value, name)
        out[f.name] = (f.metadata.get("encode") or to_json)(value)
    return out


def decode(state: type, d: Mapping[str, Any]) -> dict[str, Any]:
    """The constructor's keyword arguments from a validated saved description ``d``: each
    field's stored value (decoded), or its default when the key is absent. The dataclass is
    instantiated on the way, so a field the schema let through but the declaration does not
    know fails here, not later."""
    values = {}
    for f in dataclasses.fields(state):
        if f.name in d:
            dec = f.metadata.get("decode")
            values[f.name] = dec(d[f.name]) if dec else d[f.name]
    obj = state(**values)
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(state)}


def assign(state: type, fit: Any, values: Mapping[str, Any]) -> None:
    """Set the attributes of ``fit`` from decoded ``values`` of ``state`` (the inverse of
    :func:`encode`, for constructors that take the saved fields as keyword arguments and store
    them as they are); a field read from a dotted path cannot be set this way.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True, kw_only=True)
    ... class State:
    ...     radius: float = saved(attribute="r")
    >>> class Fit:
    ...     pass
    >>> fit = Fit()
    >>> assign(State, fit, {"radius": 2.0})
    >>> fit.r
    2.0
    """
    known = {f.name: f for f in dataclasses.fields(state)}
    for name, value in values.items():
        if name not in known:
            raise TypeError(f"{name!r} is not a field of {state.__qualname__}")
        attribute = known[name].metadata.get("attribute") or name
        if "." in attribute:
            raise TypeError(f"field {name!r} is read from {attribute!r}, which assign cannot set")
        setattr(fit, attribute, value)
