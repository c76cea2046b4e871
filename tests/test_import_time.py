"""Import-time rules (docs/architecture.md, "Import-time rules"): ``import evstat``, ``evstat
--help`` and ``evstat report --help`` import none of the heavy modules; the public names are
still there (PEP 562). Checked on the modules imported (``python -X importtime``), never on a
time: the speed itself is measured by benchmarks/bench_startup.py."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import evstat

ROOT = Path(evstat.__file__).resolve().parent.parent

#: top-level modules that ``import evstat`` and the command line's help must not import
HEAVY = (
    "statsmodels", "scipy", "matplotlib", "jinja2", "numba", "llvmlite", "sklearn", "dask",
    "distributed", "joblib", "venn_abers", "crepes", "pyarrow", "tqdm", "patsy", "pandas",
)


def _imported(*args: str) -> set[str]:
    """Top-level names of the modules a fresh interpreter imports running ``python -X importtime
    *args`` with this checkout first on the path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run(
        [sys.executable, "-X", "importtime", *args], capture_output=True, text=True, env=env, cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    lines = [ln for ln in run.stderr.splitlines() if ln.startswith("import time:") and "|" in ln]
    assert lines, "python -X importtime printed nothing"
    return {ln.rsplit("|", 1)[1].strip().split(".")[0] for ln in lines}


@pytest.mark.parametrize(
    "args",
    [("-c", "import evstat"), ("-m", "evstat", "--help"), ("-m", "evstat", "report", "--help"),
     ("-c", "import evstat.cli; evstat.cli._build_parser()")],
    ids=["import", "help", "report-help", "parser"],
)
def test_no_heavy_module_at_startup(args):
    mods = _imported(*args)
    assert "evstat" in mods
    assert sorted(mods.intersection(HEAVY)) == []


def test_public_names_are_loaded_on_first_use():
    code = (
        "import sys, evstat as ev; assert 'evstat.calibration' not in sys.modules; "
        "f = ev.evlogit; assert f.__module__ == 'evstat.calibration.logistic', f.__module__; "
        "assert 'evlogit' in dir(ev) and 'report' in dir(ev); assert callable(ev.report); "
        "assert ev.multiclass.evmultinom is ev.evmultinom; print(sorted(set(ev.__all__) - set(dir(ev))))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "[]"


def test_every_public_name_resolves():
    for name in evstat.__all__:
        assert getattr(evstat, name) is not None, name
    with pytest.raises(AttributeError, match="module 'evstat' has no attribute 'evlogitt'"):
        evstat.evlogitt  # noqa: B018


def test_star_import_gives_the_public_names():
    ns: dict[str, object] = {}
    exec("from evstat import *", ns)
    assert set(evstat.__all__) <= set(ns)


@pytest.mark.parametrize("command", ["reproduce", "query", "predict"])
def test_command_listed_with_its_own_help(command):
    """``evstat --help`` lists the commands of other modules without importing them: the
    one-line help shown there is the one of the full parser, built when the command runs."""
    from evstat import cli

    def helps(parser):
        sub = next(a for a in parser._actions if a.dest == "command")
        return {c.dest: c.help for c in sub._choices_actions}

    full, stub = helps(cli._build_parser(command)), helps(cli._build_parser(None))
    assert full[command] == stub[command]
    assert list(full) == list(stub) == ["report", "reproduce", "query", "predict"]
    rest = {"reproduce": ["minary2019", "--out", "o"], "query": ["y ~ s", "--data", "a", "--pool", "b", "-o", "c"],
            "predict": ["m.json", "--data", "d.csv", "-o", "p.csv"]}[command]
    args = cli._build_parser(command).parse_args([command, *rest])
    assert args.command == command


def test_command_of():
    from evstat.cli import _command_of

    assert _command_of(["--version"]) is None
    assert _command_of(["query", "y ~ s"]) == "query"
    assert _command_of(["-h", "report", "--help"]) == "report"


#: imported inside the functions that need them, never at a module's top level (docs/architecture.md,
#: "Import-time rules"); a module-level import would load them for every user of that module
LAZY_ONLY = (
    "statsmodels", "scipy.stats", "scipy.optimize", "scipy.integrate", "scipy.interpolate", "matplotlib",
    "jinja2", "numba", "llvmlite", "tqdm", "sklearn", "dask", "distributed", "joblib", "pyarrow", "venn_abers",
    "crepes",
)
#: the scikit-learn wrapper is the extra's own module: only a user of the extra imports it, and its
#: classes derive from scikit-learn's
TOP_LEVEL_ALLOWED = {"evstat/sklearn.py": {"sklearn"}}


def _top_level_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, module) of the imports that run when the module is imported: its top level and
    class bodies, including ``if``/``try`` blocks there, but not ``if TYPE_CHECKING:`` nor
    function bodies."""
    found: list[tuple[int, str]] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.extend((node.lineno, a.name) for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.extend((node.lineno, f"{node.module}.{a.name}") for a in node.names)
            elif isinstance(node, ast.If):
                if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                for part in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                    visit(part)
            elif isinstance(node, (ast.ClassDef, ast.With)):
                visit(node.body)

    visit(tree.body)
    return found


def test_top_level_imports_follow_the_import_time_rules():
    """No module of evstat imports a LAZY_ONLY module at its top level (found statically, so
    that a module no test imports is checked too). ``evstat/_data`` is skipped: it is the
    repository's data/ folder as installed (CSV files and the scripts that made them, run by
    hand, never imported by evstat)."""
    bad = []
    for path in sorted((ROOT / "evstat").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("evstat/_data/"):
            continue
        for line, name in _top_level_imports(ast.parse(path.read_text(encoding="utf-8"))):
            hit = next((m for m in LAZY_ONLY if name == m or name.startswith(m + ".")), None)
            if hit is not None and hit not in TOP_LEVEL_ALLOWED.get(rel, set()):
                bad.append(f"{rel}:{line} imports {name}")
    assert bad == [], "import these inside the functions that need them:\n" + "\n".join(bad)


def test_top_level_import_finder_sees_what_runs_at_import():
    tree = ast.parse(
        "import os\nfrom scipy import stats\nif TYPE_CHECKING:\n    import sklearn\n"
        "try:\n    import dask\nexcept ImportError:\n    from numba import njit\n"
        "class A:\n    import jinja2\ndef f():\n    import matplotlib\n"
    )
    assert _top_level_imports(tree) == [(1, "os"), (2, "scipy.stats"), (6, "dask"), (8, "numba.njit"), (10, "jinja2")]
