"""Execute every vignette: all ```python blocks of each vignettes/*.md, in order, in one namespace."""

from __future__ import annotations

import os
import re
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

VIGNETTES = Path(__file__).resolve().parents[1] / "vignettes"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks(path: Path) -> list[str]:
    return BLOCK.findall(path.read_text(encoding="utf-8"))


def test_vignettes_exist() -> None:
    names = sorted(p.name for p in VIGNETTES.glob("*.md"))
    assert "01-evlogit-sonar.md" in names
    for name in names:
        assert _blocks(VIGNETTES / name), f"{name} has no python blocks"


#: vignettes that fit many models (more than ~5 s): marked slow
SLOW = {"07-multiclass-calibration.md"}


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW else p for p in sorted(VIGNETTES.glob("*.md"))],
    ids=lambda p: p.name,
)
def test_vignette_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict[str, object] = {"__name__": "__vignette__"}
    for i, code in enumerate(_blocks(path)):
        try:
            exec(compile(code, f"{path.name}[block {i + 1}]", "exec"), namespace)
        finally:
            plt.close("all")
    assert os.getcwd() == str(tmp_path)
