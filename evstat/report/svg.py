"""Deterministic SVG of matplotlib figures, ready to inline in HTML (public: the studies' reports
in :mod:`evstat.experiments` use it too).

matplotlib's SVG output is made reproducible by a fixed ``svg.hashsalt`` (the ids it derives
from hashes) and no date metadata. For inlining, the XML prologue, the DOCTYPE, the metadata
block, comments and the namespace declarations (the HTML parser supplies the SVG namespaces) are
dropped; ids nobody references are dropped and the others (and every reference to them) get a
per-figure prefix, so that several figures in one document never share an id. To keep reports
small, indentation goes and coordinates are rounded to 0.01 pt (figures are a few hundred pt
wide).

Long texts: a line of a figure's text (a title, a legend entry, a tick label: a class label, a
column name) longer than :data:`MAX_FIGURE_TEXT_CHARS` is shortened for display, its first
characters and an ellipsis (:func:`short_label`; tables use :data:`MAX_LABEL_CHARS`); the data
keep the full value. A class label of 100 KB made matplotlib lay out a
legend entry of 100,000 characters, and a report took 115 s (issue 41).
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

__all__ = ["HASH_SALT", "MAX_FIGURE_TEXT_CHARS", "MAX_LABEL_CHARS", "figure_svg", "short_label"]

#: longest line of text a report shows in a table cell or a heading (characters); a longer
#: label is shortened for display (:func:`short_label`), the data keep its full value
MAX_LABEL_CHARS = 80
#: longest line of text in a figure (a title, a legend entry, a tick label); figures' own
#: captions run to about 80 characters, so the bound is wider than :data:`MAX_LABEL_CHARS`
MAX_FIGURE_TEXT_CHARS = 160

#: fixed salt of matplotlib's SVG ids (rcParams["svg.hashsalt"])
HASH_SALT = "evstat-report"

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

_RC: dict[RcKeyType, Any] = {
    "svg.hashsalt": HASH_SALT,
    "svg.fonttype": "path",  # text as glyph outlines: same look in every browser, no fonts needed
    "svg.image_inline": True,
}
_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
_ID = re.compile(r'\s+id="([^"]+)"')
_DECIMALS = re.compile(r"(-?\d+)\.(\d{3,})")
_HREF = re.compile(r'(xlink:href|href)="#([^"]+)"')
_URL = re.compile(r"url\(#([^)]+)\)")
_NS = re.compile(r'\s+xmlns(:\w+)?="[^"]*"')


def _round(m: re.Match[str]) -> str:
    text = f"{float(m.group(0)):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def short_label(text: Any, limit: int | None = None) -> str:
    """``text`` for display: each line at most ``limit`` characters (default
    :data:`MAX_LABEL_CHARS`), a longer one cut with an ellipsis that says how long it was.

    Examples
    --------
    >>> short_label("setosa")
    'setosa'
    >>> short_label("L" * 100_000, limit=30)
    'LLLLLLLLLLLLL… (100,000 chars)'
    """
    limit = MAX_LABEL_CHARS if limit is None else limit
    text = str(text)
    if len(text) <= limit and "\n" not in text:
        return text
    lines = text.split("\n", 20)
    if len(lines) > 20:  # a label of many lines: the first 20
        lines[20] = "…"
    out = []
    for line in lines:
        if len(line) > limit:
            tail = f"… ({len(line):,} chars)"
            line = line[: max(1, limit - len(tail))] + tail
        out.append(line)
    return "\n".join(out)


def _shorten_texts(fig: Any) -> None:
    from matplotlib.text import Text

    for t in fig.findobj(Text):
        text = t.get_text()
        if len(text) > MAX_FIGURE_TEXT_CHARS:
            t.set_text(short_label(text, MAX_FIGURE_TEXT_CHARS))


def figure_svg(fig: Any, prefix: str, label: str = "") -> Markup:
    """Render ``fig`` to an inline ``<svg>`` element (deterministic, ids prefixed).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    prefix : str
        Unique per figure in the document, e.g. ``"f3"``; must be a valid id start.
    label : str
        Accessible name of the image (``aria-label``), escaped here.
    """
    import matplotlib

    _shorten_texts(fig)
    buf = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buf, format="svg", metadata=_METADATA)  # constrained layout: legends fit
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    head_end = svg.index(">")
    svg = _NS.sub("", svg[:head_end]) + svg[head_end:]
    svg = _DECIMALS.sub(_round, svg)
    svg = re.sub(r"\n\s*", " ", svg)  # indentation and line breaks (also inside path data)
    svg = re.sub(r">\s+<", "><", svg)
    referenced = set(m.group(2) for m in _HREF.finditer(svg)) | set(m.group(1) for m in _URL.finditer(svg))
    short: dict[str, str] = {}
    for m in _ID.finditer(svg):  # short ids in order of definition: <prefix>-0, <prefix>-1, ...
        if m.group(1) in referenced and m.group(1) not in short:
            short[m.group(1)] = f"{prefix}-{len(short)}"
    svg = _ID.sub(lambda m: f' id="{short[m.group(1)]}"' if m.group(1) in short else "", svg)
    svg = _HREF.sub(lambda m: f'{m.group(1)}="#{short.get(m.group(2), prefix + "-x")}"', svg)
    svg = _URL.sub(lambda m: f"url(#{short.get(m.group(1), prefix + '-x')})", svg)
    attrs = f' role="img" aria-label="{escape(short_label(label, 4 * MAX_LABEL_CHARS))}" class="evstat-figure"'
    svg = svg.replace("<svg", "<svg" + attrs, 1)
    return Markup(svg.strip())
