"""JSON forms of levels and of a pandas Index (private to the formula package)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from evstat.formula._util import _native


def _json_scalar(value: Any) -> Any:
    value = _native(value)
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return str(value)


def _index_to_json(index: pd.Index) -> dict[str, Any]:
    if isinstance(index, pd.RangeIndex):
        return {
            "type": "range",
            "start": int(index.start),
            "stop": int(index.stop),
            "step": int(index.step),
            "name": _json_scalar(index.name),
        }
    if isinstance(index, pd.MultiIndex):
        return {
            "type": "multi",
            "values": [[_json_scalar(v) for v in row] for row in index.tolist()],
            "names": [_json_scalar(nm) for nm in index.names],
        }
    return {
        "type": "values",
        "values": [_json_scalar(v) for v in index.tolist()],
        "dtype": str(index.dtype),
        "name": _json_scalar(index.name),
    }


def _index_from_json(d: Mapping[str, Any]) -> pd.Index:
    kind = d.get("type")
    if kind == "range":
        return pd.RangeIndex(d["start"], d["stop"], d["step"], name=d.get("name"))
    if kind == "multi":
        return pd.MultiIndex.from_tuples([tuple(v) for v in d["values"]], names=d["names"])
    if kind == "values":
        try:
            return pd.Index(d["values"], dtype=d.get("dtype"), name=d.get("name"))
        except (TypeError, ValueError):
            return pd.Index(d["values"], name=d.get("name"))
    raise ValueError(f"unknown index type {kind!r} in model frame description")

