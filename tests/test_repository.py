"""The committed tree itself: no unresolved merge-conflict markers in any tracked text file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^(<{7} |>{7} )", re.MULTILINE)  # a lone "=======" is also a Markdown rule


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (an sdist): nothing to scan")
    return [ROOT / line for line in out.splitlines() if line.endswith((".py", ".md", ".toml", ".j2", ".css", ".R", ".txt"))]


def test_no_merge_conflict_markers():
    files = _tracked()
    assert files, "git ls-files listed no text files"
    bad = [str(p.relative_to(ROOT)) for p in files if p.is_file() and MARKER.search(p.read_text(encoding="utf-8", errors="replace"))]
    assert bad == [], f"unresolved merge-conflict markers in {bad}"
