"""``Summary``: the printable summary of a fitted model (text and HTML), shared by every model family.

Like statsmodels' ``Summary``: ``as_text()``, ``as_html()``, ``_repr_html_()`` and ``str()``.
A summary is a title, a list of (label, value) header lines, and titled tables (DataFrames)
with optional notes below each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Summary", "format_number"]

_HTML_TEMPLATE = """<div class="evstat-summary">
<h3>{{ title }}</h3>
<table class="evstat-info">
{% for k, v in info %}<tr><th style="text-align:left">{{ k }}</th><td style="text-align:left">{{ v }}</td></tr>
{% endfor %}</table>
{% for t in tables %}
<h4>{{ t.title }}</h4>
<table class="evstat-table">
<thead><tr>{% if t.show_index %}<th></th>{% endif %}{% for c in t.columns %}<th>{{ c }}</th>{% endfor %}</tr></thead>
<tbody>
{% for label, row in t.rows %}<tr>{% if t.show_index %}<th style="text-align:left">{{ label }}</th>{% endif %}{% for v in row %}<td style="text-align:right">{{ v }}</td>{% endfor %}</tr>
{% endfor %}</tbody>
</table>
{% for note in t.notes %}<p class="evstat-note">{{ note }}</p>
{% endfor %}
{% endfor %}
{% for note in notes %}<p class="evstat-note">{{ note }}</p>
{% endfor %}
</div>"""


@cache
def _html_template() -> Any:
    """The compiled HTML template (jinja2, autoescape on), built on first use: jinja2 is not
    imported with evstat (import-time rules, docs/architecture.md)."""
    from jinja2 import Environment

    return Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True).from_string(_HTML_TEMPLATE)


def format_number(x: Any, digits: int = 4) -> str:
    """Format a number as R prints it in summaries: ``digits`` significant digits, p-values
    below 2e-16 as ``<2e-16``, NaN as ``NA``, infinities as ``Inf``/``-Inf``."""
    if x is None:
        return "NA"
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        xf = float(x)
        if np.isnan(xf):
            return "NA"
        if np.isinf(xf):
            return "Inf" if xf > 0 else "-Inf"
        return f"{xf:.{digits}g}"
    return str(x)


@dataclass
class _Table:
    title: str
    frame: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    show_index: bool = True
    formatters: dict[str, Any] = field(default_factory=dict)

    def cells(self) -> list[list[str]]:
        out = []
        for _, row in self.frame.iterrows():
            out.append(
                [self.formatters.get(c, format_number)(row[c]) for c in self.frame.columns]
            )
        return out


class Summary:
    """Printable summary of a fitted calibrator.

    Examples
    --------
    >>> import pandas as pd
    >>> s = Summary("Example", [("n", "10")])
    >>> s.add_table("Numbers", pd.DataFrame({"a": [1.5]}, index=["x"]))
    >>> print(s.as_text().splitlines()[0])
    Example
    """

    def __init__(self, title: str, info: list[tuple[str, str]] | None = None) -> None:
        self.title = title
        self.info: list[tuple[str, str]] = list(info or [])
        self.tables: list[_Table] = []
        self.notes: list[str] = []

    def add_info(self, label: str, value: Any) -> None:
        """Add a ``label: value`` header line."""
        self.info.append((label, value if isinstance(value, str) else format_number(value)))

    def add_table(
        self,
        title: str,
        frame: pd.DataFrame,
        notes: list[str] | None = None,
        show_index: bool = True,
        formatters: dict[str, Any] | None = None,
    ) -> None:
        """Add a titled table; ``formatters`` maps column names to value -> str functions."""
        self.tables.append(_Table(title, frame, list(notes or []), show_index, dict(formatters or {})))

    def add_note(self, note: str) -> None:
        """Add a note printed at the end."""
        self.notes.append(note)

    def as_text(self) -> str:
        """Plain-text rendering (fixed-width columns, as R prints a summary)."""
        lines = [self.title, "=" * len(self.title)]
        if self.info:
            width = max(len(k) for k, _ in self.info)
            lines += [f"{k + ':':<{width + 1}} {v}" for k, v in self.info]
        for t in self.tables:
            lines += ["", t.title + ":"]
            cells = t.cells()
            cols = [str(c) for c in t.frame.columns]
            labels = [str(i) for i in t.frame.index] if t.show_index else []
            lw = max([len(s) for s in labels] + [0]) if t.show_index else 0
            widths = [
                max([len(c)] + [len(r[j]) for r in cells]) for j, c in enumerate(cols)
            ]
            head = (" " * lw + "  " if t.show_index else "") + "  ".join(
                c.rjust(w) for c, w in zip(cols, widths)
            )
            lines.append(head.rstrip())
            for i, r in enumerate(cells):
                lab = (labels[i].ljust(lw) + "  ") if t.show_index else ""
                lines.append(lab + "  ".join(v.rjust(w) for v, w in zip(r, widths)))
            lines += t.notes
        if self.notes:
            lines.append("")
            lines += self.notes
        return "\n".join(lines)

    def as_html(self) -> str:
        """HTML rendering (jinja2, autoescaped: labels containing HTML are shown as text)."""
        tables = [
            {
                "title": t.title,
                "columns": [str(c) for c in t.frame.columns],
                "rows": list(zip([str(i) for i in t.frame.index], t.cells())),
                "notes": t.notes,
                "show_index": t.show_index,
            }
            for t in self.tables
        ]
        return _html_template().render(title=self.title, info=self.info, tables=tables, notes=self.notes)

    def _repr_html_(self) -> str:
        return self.as_html()

    def __str__(self) -> str:
        return self.as_text()

    def __repr__(self) -> str:
        return self.as_text()
