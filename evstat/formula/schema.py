"""Schemas of saved models, their validation on load, and the content checksum.

A saved model (``fit.save(path)``) is JSON. :func:`evstat.load` reads it with
:func:`read_json` (a bounded, strict JSON reader) and checks it with one mechanism for every
model, before any part of it is used:

1. **Structure** (:func:`validate`): each model class declares the schema of its keys with the
   small spec language below (:class:`Float`, :class:`Int`, :class:`Str`, :class:`Bool`,
   :class:`Scalar`, :class:`List`, :class:`Dict`, :class:`Map`, :class:`Lazy`); the shared parts
   (the model frame of the calibrators, :data:`MODEL_FRAME`) are declared once here. Types,
   shapes, finite numbers, allowed values, required and unknown keys, and lengths that must agree
   with another field (``List(Float(), length=Ref("model_frame.terms", "the design has {n}
   columns"))``) are checked; the first problem raises a :class:`SchemaError` naming the field,
   e.g. ``params has 3 values, but the design has 4 columns (model_frame.terms)``.
2. **Integrity** (:func:`checksum`): ``save`` stores ``"checksum": "sha256:<hex>"``, the SHA-256
   of the canonical serialisation of the rest of the content (:func:`canonical_json`: keys sorted,
   no whitespace, ASCII, shortest round-trip floats). A file whose content does not match is
   refused with a message saying that it was modified after it was saved. The checksum detects
   edits and corruption; it is not a signature (anyone can recompute it). Loading an untrusted
   file is nevertheless safe, because nothing in it is evaluated except formulas that pass
   :mod:`evstat.formula.whitelist`. :func:`evstat.load` checks the schema first (a malformed
   field is named even in an edited file), then the checksum.
3. **Formulas**: :meth:`evstat.formula.ModelFrame.from_dict` checks the stored formula against
   the whitelist before patsy rebuilds the design.

JSON limits (:func:`read_json`): files larger than :data:`MAX_FILE_BYTES` are refused before
reading; the non-standard literals ``NaN``, ``Infinity`` and ``-Infinity`` are refused (a saved
model never contains them); numbers that overflow a float become ``inf`` and are refused by the
finite-number check with the field's name; integers with more digits than Python converts
(4300), nesting deeper than Python's parser allows, invalid UTF-8 and invalid JSON are refused
with one clear error.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evstat.exceptions import EvstatError
from evstat.formula import limits

__all__ = [
    "MAX_BYTES_PER_VALUE",
    "MAX_FILE_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_JSON_DIGITS",
    "MAX_JSON_VALUES",
    "PADDING_FROM_BYTES",
    "SCAN_CHUNK_BYTES",
    "MODEL_FRAME",
    "MODEL_FRAME_K",
    "Bool",
    "Dict",
    "Float",
    "Int",
    "Lazy",
    "List",
    "Map",
    "Nullable",
    "Ref",
    "Scalar",
    "SchemaError",
    "Spec",
    "Str",
    "canonical_json",
    "checksum",
    "read_json",
    "sign",
    "validate",
    "verify_checksum",
    "verify_signature",
]

#: Largest saved-model file :func:`read_json` reads (bytes): 512 MiB, about 20 million stored
#: numbers (a model stores its calibration data).
MAX_FILE_BYTES = 512 * 2**20
#: Most JSON values (numbers, strings, lists, objects) a saved model may hold: 2**25, about
#: 1 GiB of Python objects; counted (from above) while the file is streamed, before parsing.
MAX_JSON_VALUES = 2**25
#: Deepest nesting of lists and objects in a saved model (evstat's files nest about 8 levels).
MAX_JSON_DEPTH = 64
#: Most digits in a run (a number literal); float64 needs 17, Python refuses beyond 4300.
MAX_JSON_DIGITS = 400
#: Bytes read and scanned at a time: the scan's working memory (a few times this).
SCAN_CHUNK_BYTES = 2**20
#: Beyond :data:`PADDING_FROM_BYTES` bytes, a saved model is made of numbers: more than this
#: many bytes per JSON value is padding (whitespace, a giant string), refused while streaming.
MAX_BYTES_PER_VALUE = 256
PADDING_FROM_BYTES = 16 * 2**20
_CHECKSUM_PREFIX = "sha256:"


class SchemaError(EvstatError, ValueError):
    """A saved model does not match its schema; the message names the field."""


def _kind(value: Any) -> str:
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
            raise self.fail(path, f"must be a number, got {_kind(value)}")
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
            raise self.fail(path, f"must be an integer, got {_kind(value)}")
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
            raise self.fail(path, f"must be true or false, got {_kind(value)}")


class Str(Spec):
    """A string, optionally from ``choices``, at most ``max_len`` characters (default 100,000)."""

    def __init__(self, choices: Sequence[str] | None = None, max_len: int = 100_000, nullable: bool = False) -> None:
        self.choices, self.max_len, self.nullable = choices, max_len, nullable

    def check(self, value: Any, path: str, root: Any) -> None:
        if value is None and self.nullable:
            return
        if not isinstance(value, str):
            raise self.fail(path, f"must be a string, got {_kind(value)}")
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
        raise self.fail(path, f"must be a string, number, boolean or null, got {_kind(value)}")


class List(Spec):
    """A JSON list of ``item``; ``length`` an int or a :class:`Ref`; ``min_len``/``max_len``."""

    def __init__(self, item: Spec, length: int | Ref | None = None, min_len: int = 0,
                 max_len: int | None = None, what: str = "values") -> None:
        self.item, self.length, self.min_len, self.max_len, self.what = item, length, min_len, max_len, what

    def check(self, value: Any, path: str, root: Any) -> None:
        if not isinstance(value, list):
            raise self.fail(path, f"must be a list, got {_kind(value)}")
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
            raise self.fail(path, f"must be an object, got {_kind(value)}")
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
            raise self.fail(path, f"must be an object, got {_kind(value)}")
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
    >>> from evstat.formula.schema import Dict, Float, List, Ref, Str, validate
    >>> spec = Dict({"terms": List(Str()), "params": List(Float(), length=Ref("terms", "there are {n} terms"))})
    >>> validate({"terms": ["a", "b"], "params": [0.5, -1]}, spec)
    >>> validate({"terms": ["a", "b"], "params": [0.5]}, spec)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.formula.schema.SchemaError: params has 1 values, but there are 2 terms (terms)
    >>> validate({"terms": ["a"], "params": ["0.5"]}, spec)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.formula.schema.SchemaError: params[0] must be a number, got the string '0.5'
    """
    spec.check(value, path, value)


# ---------------------------------------------------------------------------------------------
# the model frame (shared by every calibrator) and its index
# ---------------------------------------------------------------------------------------------


def _index_spec(value: Any, path: str) -> Spec:
    kind = value.get("type") if isinstance(value, dict) else None
    if kind == "range":
        return Dict({"type": Str(), "start": Int(), "stop": Int(), "step": Int(), "name": Scalar()})
    if kind == "values":
        return Dict({"type": Str(), "values": List(Scalar(), what="labels"), "dtype": Str(max_len=100),
                     "name": Scalar()})
    if kind == "multi":
        return Dict({"type": Str(), "values": List(List(Scalar(), max_len=100), what="labels"),
                     "names": List(Scalar(), max_len=100)})
    return _Fail(f"must be an object with 'type' one of 'range', 'values', 'multi', got {_kind(kind) if kind is not None else 'no type'}")


class _Fail(Spec):
    def __init__(self, message: str) -> None:
        self.message = message

    def check(self, value: Any, path: str, root: Any) -> None:
        raise self.fail(path, self.message)


def _index_length(index: Mapping[str, Any]) -> int:
    if index["type"] == "range":
        step = index["step"]
        if step == 0:
            return -1
        return len(range(index["start"], index["stop"], step))
    return len(index["values"])


def _frame_checks(d: Any, root: Any) -> str | None:
    n = len(d["y"])
    cols = d["score_columns"]
    if sorted(d["data"]) != sorted(cols):
        return (f"data has the columns {sorted(d['data'])[:10]}, but score_columns lists "
                f"{sorted(cols)[:10]}; they must be the same")
    for c in cols:
        if len(d["data"][c]) != n:
            return f"data[{c!r}] has {len(d['data'][c])} values, but y has {n} rows; they must be equal"
    if d["index"]["type"] == "range" and d["index"]["step"] == 0:
        return "index.step must not be 0"
    if _index_length(d["index"]) != n:
        return f"index has {_index_length(d['index'])} labels, but y has {n} rows; they must be equal"
    if len(set(cols)) != len(cols):
        return "score_columns lists a column twice"
    classes = d["classes"]
    if any(c is None for c in classes):
        return "classes holds null: every class is a label (text, number or logical)"
    if len(set(map(repr, classes))) != len(classes) or len(set(classes)) != len(classes):
        return f"classes lists a class twice (or two equal labels such as true and 1): {classes[:10]}"
    if len(classes) == 2 and repr(d["positive"]) != repr(classes[1]):
        return f"positive = {d['positive']!r} must be the second class {classes[1]!r} (the level coded 1)"
    if len(classes) > 2 and d["positive"] is not None:
        return f"positive = {d['positive']!r} must be null for {len(classes)} classes (it names the level coded 1 of two)"
    try:
        from evstat.formula._parse import response_name

        lhs = response_name(d["formula"])
    except Exception:  # noqa: BLE001  (the formula's own check reports a malformed formula)
        lhs = d["response"]
    if lhs != d["response"]:
        from evstat.formula.whitelist import check_formula

        check_formula(d["formula"])  # code in the formula: the whitelist's error comes first
        return f"response = {d['response']!r} is not the response {lhs!r} of the formula {d['formula']!r}"
    for c, levels in d.get("factors", {}).items():
        if c not in cols:
            return f"factors names the column {c!r}, which is not in score_columns"
        if len(set(map(repr, levels))) != len(levels):
            return f"factors[{c!r}] lists a level twice"
        codes = d["data"][c]
        if any(not (float(v).is_integer() and 0 <= v < len(levels)) for v in codes):
            return (f"data[{c!r}] must hold the level codes of factor {c!r}: integers from 0 to "
                    f"{len(levels) - 1}")
    return None


def _class_codes_check(d: Any, root: Any) -> str | None:
    k = len(d["classes"])
    bad = next((i for i, c in enumerate(d["y"]) if c >= k), None)
    if bad is not None:
        return f"y[{bad}] = {d['y'][bad]} is not a class (there are {k} classes)"
    return None


def _model_frame_spec(two_levels: bool) -> Dict:
    return Dict(
        {
            "format": Str(choices=["evstat.ModelFrame"]),
            "version": Int(choices=[1]),
            "formula": Str(max_len=limits.MAX_LENGTH),  # the formula's own limit
            "response": Str(max_len=10_000),
            "classes": (List(Scalar(), length=2, what="levels") if two_levels
                        else List(Scalar(), min_len=2, max_len=100_000, what="levels")),
            "positive": Scalar(),
            "terms": List(Str(max_len=10_000), min_len=1, max_len=100_000, what="terms"),
            "score_columns": List(Str(max_len=10_000), max_len=100_000, what="columns"),
            "data": Map(List(Float())),
            "y": List(Int(choices=(0, 1)) if two_levels else Int(min=0), min_len=1, what="rows"),
            "index": Lazy(_index_spec),
            "n_dropped": Int(min=0),
        },
        optional={"factors": Map(List(Scalar(), min_len=1, max_len=100_000, what="levels"))},
        checks=[_frame_checks] if two_levels else [_frame_checks, _class_codes_check],
    )


#: Schema of :meth:`evstat.formula.ModelFrame.to_dict` (format ``"evstat.ModelFrame"``, version 1)
#: of a two-level response: the model frame of the calibrators.
MODEL_FRAME = _model_frame_spec(two_levels=True)
#: The same for a response of K >= 2 levels (``y`` holds codes 0..K-1): the design of
#: :class:`evstat.formula.ClassFrame`.
MODEL_FRAME_K = _model_frame_spec(two_levels=False)


# ---------------------------------------------------------------------------------------------
# checksum and reading
# ---------------------------------------------------------------------------------------------


def canonical_json(content: Any) -> str:
    """The canonical serialisation the checksum is computed on: keys sorted, no whitespace,
    ASCII only, no NaN/Infinity, Python's shortest round-trip float repr.

    Examples
    --------
    >>> from evstat.formula.schema import canonical_json
    >>> canonical_json({"b": [1.5, 2], "a": "é"})
    '{"a":"\\\\u00e9","b":[1.5,2]}'
    """
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def checksum(content: Mapping[str, Any]) -> str:
    """``"sha256:<hex>"`` of :func:`canonical_json` of ``content`` without its ``"checksum"`` and
    ``"signature"`` keys.

    The checksum detects *accidental* corruption (a truncated copy, a flipped bit, an editor
    that changed a number). It is no protection against a deliberate edit: anyone who changes a
    coefficient can recompute it. Files exchanged between people or systems should be signed
    (:func:`sign`, ``fit.save(path, key=...)``, ``ev.load(path, key=...)``).

    Examples
    --------
    >>> from evstat.formula.schema import checksum
    >>> checksum({"a": 1}) == checksum({"a": 1, "checksum": "anything"})
    True
    >>> checksum({"a": 1}) == checksum({"a": 2})
    False
    """
    body = {k: v for k, v in content.items() if k not in ("checksum", "signature")}
    return _CHECKSUM_PREFIX + hashlib.sha256(canonical_json(body).encode("ascii")).hexdigest()


_SIGNATURE_PREFIX = "hmac-sha256:"


def _key_bytes(key: Any) -> bytes:
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, (bytes, bytearray)):
        raise TypeError(f"key must be a str or bytes (a secret shared by who signs and who loads), got {type(key).__name__}")
    if len(key) == 0:
        raise ValueError("key must not be empty: use a secret of at least 16 random bytes, e.g. secrets.token_hex(32)")
    return bytes(key)


def sign(content: Mapping[str, Any], key: str | bytes) -> str:
    """``"hmac-sha256:<hex>"``: HMAC-SHA256 with ``key`` of :func:`canonical_json` of ``content``
    without its ``"checksum"`` and ``"signature"`` keys.

    Unlike the checksum, the signature cannot be recomputed without the key: a file signed by
    ``fit.save(path, key=k)`` and loaded by ``ev.load(path, key=k)`` is refused if anything in it
    was changed, or if it was not signed with ``k``.

    Examples
    --------
    >>> from evstat.formula.schema import sign
    >>> sign({"a": 1}, "secret") == sign({"a": 1, "checksum": "x"}, "secret")
    True
    >>> sign({"a": 1}, "secret") == sign({"a": 1}, "other secret")
    False
    """
    body = {k: v for k, v in content.items() if k not in ("checksum", "signature")}
    mac = hmac.new(_key_bytes(key), canonical_json(body).encode("ascii"), hashlib.sha256)
    return _SIGNATURE_PREFIX + mac.hexdigest()


def verify_signature(content: Mapping[str, Any], key: str | bytes, source: str) -> None:
    """Refuse ``content`` that is unsigned or whose signature does not match ``key``.

    The comparison takes constant time (:func:`hmac.compare_digest`).
    """
    stored = content.get("signature")
    if not isinstance(stored, str) or not stored.startswith(_SIGNATURE_PREFIX):
        raise SchemaError(
            f"{source} is not signed, but a key was given: only a file saved with "
            "fit.save(path, key=...) can be loaded with ev.load(path, key=...); ask its author "
            "for a signed file (or load it without key= if you trust where it came from)"
        )
    try:
        expected = sign(content, key)
    except ValueError:  # non-finite numbers: never written by evstat
        expected = ""
    if not hmac.compare_digest(expected.encode("ascii"), stored.encode("ascii", "replace")):
        raise SchemaError(
            f"{source} has a signature that does not match the key: it was modified after it "
            "was signed, or signed with another key; evstat refuses it"
        )


def verify_checksum(content: Mapping[str, Any], source: str) -> None:
    """Refuse ``content`` whose ``"checksum"`` is absent, malformed or does not match."""
    stored = content.get("checksum")
    if not isinstance(stored, str) or not stored.startswith(_CHECKSUM_PREFIX):
        raise SchemaError(
            f"{source} has no valid 'checksum' entry (expected \"sha256:<64 hex digits>\"); "
            "evstat writes one with every saved model: refit and save the model again"
        )
    try:
        actual = checksum(content)
    except ValueError:  # non-finite numbers (e.g. 1e999 parsed as inf): never written by evstat
        actual = None
    if actual != stored:
        raise SchemaError(
            f"{source} was modified after it was saved: its content does not match its SHA-256 "
            "checksum, so evstat refuses it (a hand-edited parameter would give wrong "
            "predictions silently); refit and save the model again"
        )


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"the non-standard JSON literal {name} (a saved model never contains NaN or infinite numbers)")


class _JsonScan:
    """The streamed pre-parse scan of :func:`read_json` (depth, digits, values), chunk by chunk."""

    def __init__(self, name: str, what: str) -> None:
        self.name, self.what = name, what
        self.depth = 0
        self.digits = 0  # length of the digit run that ends the previous chunk
        self.values = 1
        self.size = 0

    def _refuse(self, why: str) -> ValueError:
        return ValueError(f"{self.name} is not a valid {self.what}: {why}; it is not a file saved by evstat")

    def feed(self, chunk: bytes) -> None:
        b = np.frombuffer(chunk, dtype=np.uint8)
        self.size += b.size
        opens = (b == 91) | (b == 123)  # '[' '{'
        step = opens.astype(np.int32) - ((b == 93) | (b == 125))  # ']' '}'
        depth = self.depth + np.cumsum(step, dtype=np.int32)
        if depth.size and int(depth.max()) > MAX_JSON_DEPTH:
            raise self._refuse(
                f"its JSON nests more than {MAX_JSON_DEPTH} levels (evstat.formula.schema.MAX_JSON_DEPTH)"
            )
        self.depth = int(depth[-1]) if depth.size else self.depth
        self.values += int(np.count_nonzero(b == 44)) + int(np.count_nonzero(opens))  # ',' '[' '{'
        if self.values > MAX_JSON_VALUES:
            raise self._refuse(
                f"it holds more than {MAX_JSON_VALUES:,} JSON values (evstat.formula.schema.MAX_JSON_VALUES, "
                "about 1 GiB once parsed)"
            )
        if self.size > PADDING_FROM_BYTES and self.size > MAX_BYTES_PER_VALUE * self.values:
            raise self._refuse(
                f"its first {self.size:,} bytes hold at most {self.values:,} JSON values, more than "
                f"{MAX_BYTES_PER_VALUE} bytes per value (evstat.formula.schema.MAX_BYTES_PER_VALUE): "
                "padding or a giant string, not the numbers of a saved model"
            )
        digit = (b >= 48) & (b <= 57)
        # run lengths of digits: positions where a run starts / ends
        edges = np.flatnonzero(np.diff(np.concatenate(([0], digit.view(np.int8), [0]))))
        starts, ends = edges[::2], edges[1::2]
        if starts.size:
            runs = ends - starts
            if starts[0] == 0:
                runs[0] += self.digits
            longest = int(runs.max())
            self.digits = int(runs[-1]) if ends[-1] == b.size else 0
        else:
            longest, self.digits = 0, 0
        if longest > MAX_JSON_DIGITS:
            raise self._refuse(
                f"it has a number of more than {MAX_JSON_DIGITS} digits (evstat.formula.schema.MAX_JSON_DIGITS)"
            )


def read_json(path: str | Path, what: str = "saved model", max_bytes: int | None = None) -> Any:
    """Read a JSON file strictly and within bounds; one clear ``ValueError`` for anything else.

    Parameters
    ----------
    path : str or pathlib.Path
        A regular file (a FIFO such as ``<(cat fit.json)`` works too).
    what : str
        What the file should be, for the messages.
    max_bytes : int, optional
        Largest size read (default :data:`MAX_FILE_BYTES`).

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        A folder, a file larger than ``max_bytes``, invalid UTF-8, invalid JSON, ``NaN`` or
        ``Infinity`` literals, a number of more than :data:`MAX_JSON_DIGITS` digits, nesting
        deeper than :data:`MAX_JSON_DEPTH` or more than :data:`MAX_JSON_VALUES` values.

    Notes
    -----
    Bounded work before parsing: a regular file's size is checked with ``stat`` before a byte
    is read. The file is then read in chunks of :data:`SCAN_CHUNK_BYTES` (1 MiB), and each
    chunk is scanned with numpy (no Python loop per byte) for the nesting depth (brackets and
    braces), the longest run of digits and an upper bound on the number of values (commas and
    opening brackets; characters inside strings are counted too, so the bound is from above);
    beyond :data:`PADDING_FROM_BYTES` (16 MiB) read, more than :data:`MAX_BYTES_PER_VALUE` bytes
    per value is padding (a saved model that large is made of numbers). A file beyond a limit
    is refused as soon as the chunk that crosses it is read, holding what was read so far plus
    the scan's temporaries (about 10 MiB). Only a file within every limit is parsed; the parse
    then holds the file's bytes, its text and at most :data:`MAX_JSON_VALUES` Python values:
    about 2 GiB for a genuine model at the 512 MiB cap, in proportion below.

    Examples
    --------
    >>> import os, tempfile
    >>> from evstat.formula.schema import read_json
    >>> p = os.path.join(tempfile.mkdtemp(), "x.json")
    >>> _ = open(p, "w").write('{"a": NaN}')
    >>> read_json(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: '...x.json' is not a valid saved model: the non-standard JSON literal NaN (a saved model never contains NaN or infinite numbers)
    """
    limit = MAX_FILE_BYTES if max_bytes is None else max_bytes
    p = Path(path)
    name = repr(str(p))
    if p.is_dir():
        raise ValueError(f"{name} is a folder, not a {what} file: pass the path of the .json file")
    if not p.exists():
        raise FileNotFoundError(f"no {what} at {name}")
    too_large = ValueError(
        f"{name} is larger than {limit} bytes, the largest {what} evstat reads "
        "(evstat.formula.schema.MAX_FILE_BYTES); it is not a file saved by evstat"
    )
    try:
        if p.is_file() and p.stat().st_size > limit:
            raise too_large  # before reading a byte (a FIFO has no size: it is counted below)
        scan = _JsonScan(name, what)
        chunks: list[bytes] = []
        size = 0
        with p.open("rb") as fh:
            while True:
                chunk = fh.read(min(SCAN_CHUNK_BYTES, limit + 1 - size))
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:
                    raise too_large
                scan.feed(chunk)
                chunks.append(chunk)
    except OSError as err:
        raise ValueError(f"cannot read {name}: {err.strerror or err}") from None
    raw = b"".join(chunks)
    del chunks
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{name} is not a JSON file saved by evstat (not UTF-8 text: {err.reason} at byte {err.start})") from None
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as err:
        raise ValueError(f"{name} is not a JSON file saved by evstat ({err})") from None
    except RecursionError:
        raise ValueError(f"{name} is not a valid {what}: its JSON is nested too deeply") from None
    except ValueError as err:  # NaN/Infinity literals, integers of > 4300 digits
        raise ValueError(f"{name} is not a valid {what}: {' '.join(str(err).split())}") from None
