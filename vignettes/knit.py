"""Re-run a vignette and refresh its printed outputs.

Each ```python block of the Markdown file is executed in order in one namespace; whatever it
prints replaces the ```text block that immediately follows it (a block is added if missing,
none if nothing is printed). Usage, from the repository root:

    python vignettes/knit.py vignettes/01-evlogit-sonar.md
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

PATTERN = re.compile(r"```python\n(.*?)```\n(?:\n?```text\n.*?```\n)?", re.S)


def knit(path: Path) -> None:
    src = path.read_text(encoding="utf-8")
    ns: dict[str, object] = {"__name__": "__vignette__"}
    out: list[str] = []
    pos = 0
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            for m in PATTERN.finditer(src):
                out.append(src[pos : m.start()])
                code = m.group(1)
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    exec(compile(code, str(path), "exec"), ns)
                import matplotlib.pyplot as plt

                plt.close("all")
                block = f"```python\n{code}```\n"
                printed = buf.getvalue()
                if printed:
                    block += f"\n```text\n{printed.rstrip()}\n```\n"
                out.append(block)
                pos = m.end()
        finally:
            os.chdir(cwd)
    out.append(src[pos:])
    path.write_text("".join(out), encoding="utf-8")


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        knit(Path(arg))
