"""Execute every vignette and compare what it prints with the text committed under each block,
as R CMD check compares a vignette's output with the saved one.

Every ```python block of vignettes/*.md runs in order in one namespace (in a temporary folder);
its standard output is compared with the ```text block that follows it (``vignettes/knit.py``
writes those blocks; re-knit after a deliberate change). The comparison splits both texts into
whitespace-separated tokens and numbers: the words must be equal, and every number must agree
with the committed one to ``RTOL`` relative or ``ATOL`` absolute difference (float results that
differ in the last digits between BLAS builds, optimiser stopping points within their tolerance,
pandas' column widths). A block without a text block must print nothing.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from pathlib import Path

import pytest

VIGNETTES = Path(__file__).resolve().parents[1] / "vignettes"
#: A python block and the text block knit.py wrote below it (the same pattern as knit.py).
PATTERN = re.compile(r"```python\n(.*?)```\n(?:\n?```text\n(.*?)```\n)?", re.S)
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?\b(?:inf|nan|Inf|NaN)\b")
#: Numbers of the executed output and of the committed text agree when within this relative
#: or this absolute difference (the printed numbers have 4-7 significant digits).
RTOL = 1e-3
ATOL = 1e-6


def _blocks(path: Path) -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in PATTERN.finditer(path.read_text(encoding="utf-8"))]


def _tokens(text: str) -> tuple[list[str], list[float]]:
    words, numbers = [], []
    for token in NUMBER.split(text.replace(",", " ")):
        words.extend(token.split())
    numbers = [float(x) for x in NUMBER.findall(text.replace(",", " "))]
    return words, numbers


def compare_output(got: str, want: str, where: str) -> None:
    """Equal words, and numbers equal to ``RTOL`` / ``ATOL``; the message names the first
    difference and the block."""
    gw, gn = _tokens(got)
    ww, wn = _tokens(want)
    if gw != ww:
        k = next((i for i, (a, b) in enumerate(zip(gw, ww)) if a != b), min(len(gw), len(ww)))
        raise AssertionError(
            f"{where}: the printed text differs from the vignette at word {k}: got "
            f"{gw[max(0, k - 3):k + 4]}, committed {ww[max(0, k - 3):k + 4]}\n--- got:\n{got}\n--- committed:\n{want}"
        )
    if len(gn) != len(wn):
        raise AssertionError(f"{where}: {len(gn)} numbers printed, {len(wn)} in the vignette\n--- got:\n{got}")
    for i, (a, b) in enumerate(zip(gn, wn)):
        same = (math.isnan(a) and math.isnan(b)) or a == b or abs(a - b) <= max(ATOL, RTOL * abs(b))
        if not same:
            raise AssertionError(
                f"{where}: number {i} is {a!r}, the vignette says {b!r} (tolerance {RTOL} relative, "
                f"{ATOL} absolute)\n--- got:\n{got}\n--- committed:\n{want}"
            )


def test_vignettes_exist() -> None:
    names = sorted(p.name for p in VIGNETTES.glob("*.md"))
    assert "01-evlogit-sonar.md" in names
    for name in names:
        assert _blocks(VIGNETTES / name), f"{name} has no python blocks"


def test_compare_output_tolerance() -> None:
    compare_output("theta  0.50001  Bel 1e-9\n", "theta 0.5 Bel 0.0\n", "t")
    with pytest.raises(AssertionError, match="number 0 is 0.51, the vignette says 0.5"):
        compare_output("theta 0.51", "theta 0.5", "t")
    with pytest.raises(AssertionError, match="differs from the vignette at word 1"):
        compare_output("theta Pl 0.5", "theta Bel 0.5", "t")


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(VIGNETTES.glob("*.md")), ids=lambda p: p.name)
def test_vignette_output_matches_text(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__vignette__"}
    for i, (code, text) in enumerate(_blocks(path)):
        where = f"{path.name} block {i + 1}"
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                exec(compile(code, where, "exec"), namespace)
        finally:
            plt.close("all")
        compare_output(buf.getvalue(), text or "", where)
