"""DataFrames -> table dictionaries for the report templates (public: the studies' reports use
it too; cells formatted, not escaped:
the template autoescapes every cell, header and note)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from evstat.report._glossary import tip
from evstat.report.svg import MAX_LABEL_CHARS, short_label
from evstat.summary import format_number

__all__ = ["Table", "cell", "table"]


@dataclass
class Table:
    """A titled table: header cells, rows of cells (strings), notes."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    numeric: list[bool] = field(default_factory=list)
    #: one explanation per column (the header's tooltip; "" for none)
    tips: list[str] = field(default_factory=list)
    #: the table element's id ("" for none)
    id: str = ""
    #: the caption as HTML when it differs from ``title`` (spans a script rewrites); None: ``title``
    caption: Any = None


#: numbers smaller than this in magnitude are rounding noise (e.g. 5.6e-17 for an exact 0) and print as 0
TINY = 1e-12


def cell(value: Any, digits: int = 4) -> str:
    """A value as text: numbers with ``digits`` significant digits (R style, NaN as NA),
    magnitudes below 1e-12 as 0, booleans as yes/no."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if value is None:
        return "NA"
    if isinstance(value, (float, np.floating)) and 0.0 < abs(float(value)) < TINY:
        return "0"
    if isinstance(value, (int, np.integer, float, np.floating)):
        return format_number(value, digits)
    try:
        if pd.isna(value):
            return "NA"
    except (TypeError, ValueError):
        pass
    return str(value)


def table(
    frame: pd.DataFrame,
    title: str,
    columns: Mapping[str, str] | None = None,
    index: str | None = None,
    notes: Sequence[str] = (),
    formatters: Mapping[str, Callable[[Any], str]] | None = None,
    tips: Mapping[str, str] | None = None,
) -> Table:
    """A :class:`Table` from ``frame``.

    ``columns`` renames (and selects, in its order) columns; ``index``, when given, is the header
    of a first column holding the index labels. Every header gets a tooltip: ``tips`` (by shown
    header) first, then the report's glossary of column names.
    """
    formatters = dict(formatters or {})
    cols = list(columns) if columns else [str(c) for c in frame.columns]
    heads = [columns[c] for c in cols] if columns else cols
    rows: list[list[str]] = []
    for label, (_, r) in zip(frame.index, frame.iterrows()):
        row = [formatters.get(c, cell)(r[c]) for c in cols]
        if index is not None:
            row.insert(0, str(label))
        rows.append([short_label(v) if len(v) > MAX_LABEL_CHARS else v for v in row])
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) for c in cols]
    if index is not None:
        heads = [index] + heads
        numeric = [False] + numeric
    # a label longer than MAX_LABEL_CHARS (a class, a column name) is shortened for display; the
    # data (and the explorer's JSON) keep the full value
    return Table(title=title, columns=[short_label(h) for h in heads], rows=rows, notes=list(notes), numeric=numeric,
                 tips=[short_label(tip(h, dict(tips or {})), 4 * MAX_LABEL_CHARS) for h in heads])
