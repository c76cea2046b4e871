"""The schema language of saved models: specs, their validation, one error naming the field.

A saved model (``fit.save(path)``) is JSON; :func:`evstat.load` checks its structure with
:func:`validate` against the schema of its results class before any part of it is used. The
specs (:class:`Float`, :class:`Int`, :class:`Str`, :class:`Bool`, :class:`Scalar`,
:class:`List`, :class:`Dict`, :class:`Map`, :class:`Nullable`, :class:`Lazy`,
:class:`Refuse`) check types, shapes, finite numbers, allowed values, required and unknown keys,
and lengths that must agree with another field (``List(Float(), length=Ref("class_frame.levels",
"there are {n} classes"))``); the first problem raises a :class:`SchemaError` naming the field,
e.g. ``params has 3 values, but the design has 4 columns (model_frame.terms)``.

A results class does not write specs by hand for its own fields: it declares its saved state
once, as a dataclass (:mod:`evstat.io.state`), from which the specs, ``to_dict`` and
``from_dict`` are derived. The shared parts that describe data (the model frame of
:mod:`evstat.formula`) declare their specs next to their own ``to_dict``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evstat.exceptions import EvstatError

__all__ = [
    "Bool",
    "Dict",
    "Float",
    "Int",
    "Lazy",
    "List",
    "Map",
    "Nullable",
    "Ref",
    "Refuse",
    "Scalar",
    "SchemaError",
    "Spec",
    "Str",
    "kind",
    "validate",
]


class SchemaError(EvstatError, ValueError):
    """A saved model does not match its schema; the message names the field."""


def kind(value: Any) -> str:
    """A short description of a JSON value for the messages (``the string 'x'``, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {json.dumps(value)}"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {text!r}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"[:60]
    if isinstance(value, list):
        return f"a list of {len(value)} values"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _lookup(root: Any, path: str) -> Any:
    value = root
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


class Ref:
    """A length taken from another field of the same document (a dotted path from the root).

    ``phrase`` describes it in the message, with ``{n}`` for the length, e.g. ``"the design has
    {n} columns"``.
    """

    def __init__(self, path: str, phrase: str) -> None:
        self.path, self.phrase = path, phrase

    def resolve(self, root: Any) -> int | None:
        target = _lookup(root, self.path)
        return len(target) if isinstance(target, (list, dict)) else None


class Spec:
    """Base class of the schema specs: ``check(value, path, root)`` raises :class:`SchemaError`."""

    def check(self, value: Any, path: str, root: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    @staticmethod
    def fail(path: str, message: str) -> SchemaError:
        return SchemaError(f"{path or 'the content'} {message}")


class Float(Spec):
    """A finite JSON number (an integer is accepted); ``nullable`` also accepts null."""

    def __init__(self, nullable: bool = False, min: float | None = None, max: float | None = None) -> None:
        self.nullable, self.min, self.max = nullable, min, max

    def check(self, value: Any, path: str, root: Any) -> None:
        if value is None and self.nullable:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(path, f"must be a number, got {kind(value)}")
        try:
            x = float(value)
        except OverflowError:
            raise self.fail(path, "is a number too large for a float") from None
        if not math.isfinite(x):
            raise self.fail(path, f"must be a finite number, got {value!r} (a number out of range)")
        if self.min is not None and x < self.min:
            raise self.fail(path, f"must be >= {self.min:g}, got {x:g}")
        if self.max is not None and x > self.max:
            raise self.fail(path, f"must be <= {self.max:g}, got {x:g}")


class Int(Spec):
    """A JSON integer (not a float, not a boolean), optionally bounded or from ``choices``."""

    def __init__(self, min: int | None = None, max: int | None = None, choices: Sequence[int] | None = None,
                 nullable: bool = False) -> None:
        self.min, self.max, self.choices, self.nullable = min, max, choices, nullable

    def check(self, value: Any, path: str, root: Any) -> None:
        if value is None and self.nullable:
            return
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"must be an integer, got {kind(value)}")
        if self.choices is not None and value not in self.choices:
            raise self.fail(path, f"must be one of {list(self.choices)}, got {value!r}")
        if self.min is not None and value < self.min:
            raise self.fail(path, f"must be >= {self.min}, got {value}")
        if self.max is not None and value > self.max:
            raise self.fail(path, f"must be <= {self.max}, got {value}")


class Bool(Spec):
    """``true`` or ``false``."""

    def check(self, value: Any, path: str, root: Any) -> None:
        if not isinstance(value, bool):
            raise self.fail(path, f"must be true or false, got {kind(value)}")


class Str(Spec):
    """A string, optionally from ``choices``, at most ``max_len`` characters (default 100,000)."""

    def __init__(self, choices: Sequence[str] | None = None, max_len: int = 100_000, nullable: bool = False) -> None:
        self.choices, self.max_len, self.nullable = choices, max_len, nullable

    def check(self, value: Any, path: str, root: Any) -> None:
        if value is None and self.nullable:
            return
        if not isinstance(value, str):
            raise self.fail(path, f"must be a string, got {kind(value)}")
        if self.choices is not None and value not in self.choices:
            raise self.fail(path, f"must be one of {list(self.choices)}, got {value!r}")
        if len(value) > self.max_len:
            raise self.fail(path, f"is a string of {len(value)} characters (at most {self.max_len})")


class Scalar(Spec):
    """A JSON scalar: string, integer, finite number, boolean or null (levels, index labels)."""

    def check(self, value: Any, path: str, root: Any) -> None:
        if value is None or isinstance(value, (bool, str)):
            if isinstance(value, str):
                Str().check(value, path, root)
            return
        if isinstance(value, int):
            return
        if isinstance(value, float):
            Float().check(value, path, root)
            return
        raise self.fail(path, f"must be a string, number, boolean or null, got {kind(value)}")


class List(Spec):
    """A JSON list of ``item``; ``length`` an int or a :class:`Ref`; ``min_len``/``max_len``."""

    def __init__(self, item: Spec, length: int | Ref | None = None, min_len: int = 0,
                 max_len: int | None = None, what: str = "values") -> None:
        self.item, self.length, self.min_len, self.max_len, self.what = item, length, min_len, max_len, what

    def check(self, value: Any, path: str, root: Any) -> None:
        if not isinstance(value, list):
            raise self.fail(path, f"must be a list, got {kind(value)}")
        n = len(value)
        if isinstance(self.length, int) and n != self.length:
            raise self.fail(path, f"has {n} {self.what}, but must have {self.length}")
        if isinstance(self.length, Ref):
            want = self.length.resolve(root)
            if want is not None and n != want:
                raise self.fail(
                    path, f"has {n} {self.what}, but {self.length.phrase.format(n=want)} ({self.length.path})"
                )
        if n < self.min_len:
            raise self.fail(path, f"has {n} {self.what}, but needs at least {self.min_len}")
        if self.max_len is not None and n > self.max_len:
            raise self.fail(path, f"has {n} {self.what}, but at most {self.max_len} are allowed")
        item = self.item
        if isinstance(item, Float) and not item.nullable and item.min is None and item.max is None:
            # fast path: one pass of type checks, then one finite check
            for i, v in enumerate(value):
                if isinstance(v, bool) or not isinstance(v, (int, float)) or isinstance(v, int) and abs(v) > 2**1023:
                    item.check(v, f"{path}[{i}]", root)
            for i, v in enumerate(value):
                if isinstance(v, float) and not math.isfinite(v):
                    item.check(v, f"{path}[{i}]", root)
            return
        for i, v in enumerate(value):
            item.check(v, f"{path}[{i}]", root)


class Dict(Spec):
    """A JSON object with ``required`` and ``optional`` keys (unknown keys are refused).

    With ``scope=True`` the :class:`Ref` paths inside are relative to this object (for parts that
    are validated on their own too, such as the model frame).

    ``checks`` are callables ``(value, root) -> str | None`` run after the keys are valid; a
    returned string is the error message (prefixed by the path).
    """

    def __init__(self, required: Mapping[str, Spec], optional: Mapping[str, Spec] | None = None,
                 checks: Sequence[Callable[[Any, Any], str | None]] = (), scope: bool = False) -> None:
        self.required, self.optional, self.checks = dict(required), dict(optional or {}), list(checks)
        self.scope = scope  # True: references (Ref) inside are relative to this object

    def check(self, value: Any, path: str, root: Any) -> None:
        if self.scope:
            root = value
        if not isinstance(value, dict):
            raise self.fail(path, f"must be an object, got {kind(value)}")
        missing = [k for k in self.required if k not in value]
        if missing:
            raise self.fail(path, f"lacks the required key {missing[0]!r}" + (
                f" (and {len(missing) - 1} more: {missing[1:]})" if len(missing) > 1 else ""))
        unknown = [k for k in value if k not in self.required and k not in self.optional]
        if unknown:
            raise self.fail(path, f"has the unknown key {str(unknown[0])[:60]!r}")
        for key, spec in [*self.required.items(), *self.optional.items()]:
            if key in value:
                spec.check(value[key], f"{path}.{key}" if path else key, root)
        for fn in self.checks:
            msg = fn(value, root)
            if msg:
                raise self.fail(path, msg) if path else SchemaError(msg)


class Map(Spec):
    """A JSON object with arbitrary string keys and values of one spec."""

    def __init__(self, value: Spec, max_keys: int = 10_000) -> None:
        self.value, self.max_keys = value, max_keys

    def check(self, value: Any, path: str, root: Any) -> None:
        if not isinstance(value, dict):
            raise self.fail(path, f"must be an object, got {kind(value)}")
        if len(value) > self.max_keys:
            raise self.fail(path, f"has {len(value)} keys (at most {self.max_keys})")
        for key, v in value.items():
            self.value.check(v, f"{path}[{key!r}]", root)


class Nullable(Spec):
    """``null`` or a value of ``spec``."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec

    def check(self, value: Any, path: str, root: Any) -> None:
        if value is not None:
            self.spec.check(value, path, root)


class Lazy(Spec):
    """A spec chosen from the value itself (``fn(value) -> Spec``), validated with the value as
    the root of its own references (e.g. the nested calibrators of ``ev.disjoint``)."""

    def __init__(self, fn: Callable[[Any, str], Spec]) -> None:
        self.fn = fn

    def check(self, value: Any, path: str, root: Any) -> None:
        spec = self.fn(value, path)
        spec.check(value, path, value)


def validate(value: Any, spec: Spec, path: str = "") -> None:
    """Check ``value`` (parsed JSON) against ``spec``; raise :class:`SchemaError` naming the field.

    Examples
    --------
    >>> from evstat.io.schema import Dict, Float, List, Ref, Str, validate
    >>> spec = Dict({"terms": List(Str()), "params": List(Float(), length=Ref("terms", "there are {n} terms"))})
    >>> validate({"terms": ["a", "b"], "params": [0.5, -1]}, spec)
    >>> validate({"terms": ["a", "b"], "params": [0.5]}, spec)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.io.schema.SchemaError: params has 1 values, but there are 2 terms (terms)
    >>> validate({"terms": ["a"], "params": ["0.5"]}, spec)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.io.schema.SchemaError: params[0] must be a number, got the string '0.5'
    """
    spec.check(value, path, value)


class Refuse(Spec):
    """A spec that refuses any value with ``message`` (a key that must not be there, an
    unknown model kind)."""

    def __init__(self, message: str) -> None:
        self.message = message

    def check(self, value: Any, path: str, root: Any) -> None:
        raise self.fail(path, self.message)
