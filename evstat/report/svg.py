"""Deterministic SVG of matplotlib figures, ready to inline in HTML (public: the studies' reports
in :mod:`evstat.experiments` use it too).

matplotlib's SVG output is made reproducible by a fixed ``svg.hashsalt`` (the ids it derives
from hashes) and no date metadata. For inlining, the XML prologue, the DOCTYPE, the metadata
block, comments and the namespace declarations (the HTML parser supplies the SVG namespaces) are
dropped; ids nobody references are dropped and the others (and every reference to them) get a
per-figure prefix, so that several figures in one document never share an id. To keep reports
small, indentation goes and coordinates are rounded to 0.01 pt (figures are a few hundred pt
wide).
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

__all__ = ["HASH_SALT", "figure_svg"]

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
    attrs = f' role="img" aria-label="{escape(label)}" class="evstat-figure"'
    svg = svg.replace("<svg", "<svg" + attrs, 1)
    return Markup(svg.strip())
