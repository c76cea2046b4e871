"""The schema of the model frame (:data:`MODEL_FRAME`, :data:`MODEL_FRAME_K`) and, for the old
import paths, the persistence names that moved to :mod:`evstat.io` (issue 24).

The spec language and :class:`SchemaError` are in :mod:`evstat.io.schema`, the checksum and
the signature in :mod:`evstat.io.integrity`, the bounded JSON reader and its limits in
:mod:`evstat.io.jsonfile`; every name is still importable from here. The formula's own check
(:mod:`evstat.formula.whitelist`) runs when :meth:`evstat.formula.ModelFrame.from_dict`
rebuilds the design.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evstat.formula import limits
from evstat.io.integrity import canonical_json, checksum, sign, verify_checksum, verify_signature
from evstat.io.jsonfile import (
    MAX_BYTES_PER_VALUE,
    MAX_FILE_BYTES,
    MAX_JSON_DEPTH,
    MAX_JSON_DIGITS,
    MAX_JSON_VALUES,
    PADDING_FROM_BYTES,
    SCAN_CHUNK_BYTES,
    read_json,
)
from evstat.io.schema import (
    Bool,
    Dict,
    Float,
    Int,
    Lazy,
    List,
    Map,
    Nullable,
    Ref,
    Refuse,
    Scalar,
    SchemaError,
    Spec,
    Str,
    kind,
    validate,
)

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


def _index_spec(value: Any, path: str) -> Spec:
    typ = value.get("type") if isinstance(value, dict) else None
    if typ == "range":
        return Dict({"type": Str(), "start": Int(), "stop": Int(), "step": Int(), "name": Scalar()})
    if typ == "values":
        return Dict({"type": Str(), "values": List(Scalar(), what="labels"), "dtype": Str(max_len=100),
                     "name": Scalar()})
    if typ == "multi":
        return Dict({"type": Str(), "values": List(List(Scalar(), max_len=100), what="labels"),
                     "names": List(Scalar(), max_len=100)})
    return Refuse(f"must be an object with 'type' one of 'range', 'values', 'multi', got {kind(typ) if typ is not None else 'no type'}")


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
