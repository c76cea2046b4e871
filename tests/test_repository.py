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


def test_papers_are_named_by_authors_and_year_in_user_facing_text():
    """Issue 39 item 2: the source papers' file numbers ("paper 000" ... "paper 004") are the
    developers' shorthand; evstat's sources (docstrings, messages, summaries, report text) and
    the documentation name them by authors and year (Minary et al. 2019, Gebel 2009, Liu, Pan
    and Dezert 2013, Ramel et al. 2018, Denoeux 2017)."""
    import re
    import subprocess

    root = Path(__file__).resolve().parent.parent
    files = subprocess.run(["git", "ls-files", "evstat", "docs", "README.md", "vignettes"], cwd=root,
                           capture_output=True, text=True, check=True).stdout.split()
    pattern = re.compile(r"\bpapers? 00[0-4]\b")
    hits = [f"{f}:{i}" for f in files if f.endswith((".py", ".md", ".html", ".txt", ".j2"))
            for i, line in enumerate((root / f).read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert hits == []
