"""Small helpers of the formula package: message formatting and argument checks (private)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

_MISSING_CHOICES = ("raise", "drop")
_SHOW = 5  # how many index labels / levels an error message shows


def _native(value: Any) -> Any:
    """Convert numpy / pandas scalars to the matching Python scalar (for JSON and messages)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _fmt_values(values: list[Any], limit: int = 10) -> str:
    shown = ", ".join(repr(_native(v)) for v in values[:limit])
    if len(values) > limit:
        shown += f", ... ({len(values)} in all)"
    return "[" + shown + "]"


def _fmt_labels(index: pd.Index, mask: np.ndarray) -> str:
    labels = index[mask]
    text = ", ".join(repr(_native(v)) for v in labels[:_SHOW])
    if len(labels) > _SHOW:
        text += ", ..."
    return text


def _rows(k: int) -> str:
    return f"{k} row" if k == 1 else f"{k} rows"


def _check_missing_arg(missing: str) -> None:
    if missing not in _MISSING_CHOICES:
        raise ValueError(f"missing must be 'raise' or 'drop', got {missing!r}")


def _available(columns: pd.Index) -> str:
    cols = [_native(c) for c in columns]
    text = _fmt_values(cols, limit=30)
    if any(isinstance(c, str) and not c.isidentifier() for c in cols):
        text += " (names that are not Python identifiers must be quoted: Q('my col'))"
    return text
