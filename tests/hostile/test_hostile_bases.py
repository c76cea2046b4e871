"""Bounded model matrices (issue 41, item 3): the columns of every spline, tensor product and
interaction are counted from the formula before anything is allocated, on the API, the command
line and ``ev.load``; over a limit, one line naming the limit and how to raise it. Error messages
are capped in length.

Before: ``y ~ bs(svm1, df=100000)`` still fitted after 300 s (also in a model file, through
``evstat predict``), ``te(cr(svm1, df=300), cr(svm2, df=300), cr(svm3, df=300))`` asked for
15.9 GiB, and the design-column error of a large tensor spline was one line of 52 MB. The cases
that hung run in a subprocess with a generous timeout (a regression fails instead of hanging).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.formula import limits, schema
from evstat.formula.limits import FormulaLimitError
from evstat.io.messages import MAX_MESSAGE_CHARS, one_line as cap
from hostile_helpers import env, one_line, run

TIMEOUT = 300  # seconds for one subprocess; the refusals take well under a second of work

SPLINE = "y ~ bs(svm1, df=100000)"
TENSOR = "y ~ te(cr(svm1, df=300), cr(svm2, df=300), cr(svm3, df=300))"


def _data(n: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"y": np.repeat([0, 1], n // 2), "svm1": rng.normal(size=n),
                         "svm2": rng.normal(size=n), "svm3": rng.normal(size=n)})


def _run_python(code: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=TIMEOUT, env={**env(), **(extra_env or {})})


def _saved_with_formula(tmp_path: Path, formula: str) -> Path:
    """A genuine saved evlogit whose formula is replaced, checksum recomputed (as an attacker would)."""
    fit = ev.evlogit("y ~ svm1 + svm2", _data())
    path = fit.save(tmp_path / "fit.json")
    d = json.loads(path.read_text())
    d.pop("checksum")

    def replace(node):
        if isinstance(node, dict):
            return {k: (formula if k == "formula" else replace(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [replace(v) for v in node]
        return node

    d = replace(d)
    d["checksum"] = schema.checksum(d)
    path.write_text(json.dumps(d))
    return path


def test_huge_spline_and_tensor_refused_by_the_api_naming_the_limit(tmp_path):
    """In a subprocess: before the limits the spline fitted for more than 300 s."""
    data = tmp_path / "cal.csv"
    _data().to_csv(data, index=False)
    proc = _run_python(
        f"""
        import pandas as pd, evstat as ev
        d = pd.read_csv({str(data)!r})
        for formula in [{SPLINE!r}, {TENSOR!r}, "y ~ bs(svm1, df=40):bs(svm2, df=40)"]:
            try:
                ev.evlogit(formula, d)
                print("FITTED")
            except ValueError as err:
                print("REFUSED", type(err).__name__, str(err).replace(chr(10), " "))
        """
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 3, proc.stdout[-2000:]
    for line, cols in zip(lines, ["100,000", "27,000,000", "1,600"]):
        assert line.startswith("REFUSED FormulaLimitError"), line[:300]
        assert f"has {cols} basis columns; the limit is 1,000 (evstat.formula.limits.MAX_BASIS_COLUMNS)" in line
        assert "EVSTAT_MAX_BASIS_COLUMNS=" in line and len(line) < 600


def test_huge_spline_refused_by_the_command_line(tmp_path):
    data = tmp_path / "cal.csv"
    _data().to_csv(data, index=False)
    for formula in (SPLINE, TENSOR):
        proc = run("report", formula, "--data", data, "-o", tmp_path / "r.html", timeout=TIMEOUT)
        assert proc.returncode == 2, proc.stderr[-2000:]
        line = one_line(proc.stderr)
        assert "MAX_BASIS_COLUMNS" in line and "EVSTAT_MAX_BASIS_COLUMNS" in line, line
        assert len(line) < 700
        assert not (tmp_path / "r.html").exists()


def test_huge_spline_in_a_model_file_refused_by_load_and_predict(tmp_path):
    """The formula of a saved model (checksum recomputed) hung ``evstat predict``."""
    path = _saved_with_formula(tmp_path, SPLINE)
    proc = _run_python(
        f"""
        import evstat as ev
        try:
            ev.load({str(path)!r})
            print("LOADED")
        except ValueError as err:
            print("REFUSED", type(err).__name__, str(err).replace(chr(10), " "))
        """
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("REFUSED FormulaLimitError") and "MAX_BASIS_COLUMNS" in proc.stdout
    new = tmp_path / "new.csv"
    _data().drop(columns="y").to_csv(new, index=False)
    cli = run("predict", path, "--data", new, "-o", tmp_path / "out.csv", "--quiet", timeout=TIMEOUT)
    assert cli.returncode == 2, cli.stderr[-2000:]
    assert "MAX_BASIS_COLUMNS" in one_line(cli.stderr)
    assert not (tmp_path / "out.csv").exists()


def test_the_limit_is_raised_by_the_environment_variable(tmp_path):
    """EVSTAT_MAX_BASIS_COLUMNS lowers or raises the limit for the command line; the message's
    advice works."""
    data = tmp_path / "cal.csv"
    _data().to_csv(data, index=False)
    low = subprocess.run(
        [sys.executable, "-m", "evstat", "report", "y ~ bs(svm1, df=5)", "--data", str(data), "-o",
         str(tmp_path / "r.html")],
        capture_output=True, text=True, timeout=TIMEOUT, env={**env(), "EVSTAT_MAX_BASIS_COLUMNS": "4"},
        cwd=str(Path(ev.__file__).resolve().parent.parent),
    )
    assert low.returncode == 2 and "has 5 basis columns; the limit is 4" in one_line(low.stderr)
    bad = _run_python("import evstat.formula.limits as l; l.current('MAX_BASIS_COLUMNS')",
                      {"EVSTAT_MAX_BASIS_COLUMNS": "many"})
    assert "EVSTAT_MAX_BASIS_COLUMNS='many' is not a positive integer" in bad.stderr


def test_limits_are_module_constants_read_when_checked(monkeypatch):
    d = _data(60)
    ev.evlogit("y ~ bs(svm1, df=5)", d)  # within the defaults
    monkeypatch.setattr(limits, "MAX_BASIS_COLUMNS", 4)
    with pytest.raises(FormulaLimitError, match=r"has 5 basis columns; the limit is 4"):
        ev.evlogit("y ~ bs(svm1, df=5)", d)
    monkeypatch.setattr(limits, "MAX_BASIS_COLUMNS", 1000)
    monkeypatch.setattr(limits, "MAX_DESIGN_COLUMNS", 10)
    with pytest.raises(FormulaLimitError, match=r"MAX_DESIGN_COLUMNS.*EVSTAT_MAX_DESIGN_COLUMNS"):
        ev.evlogit("y ~ bs(svm1, df=6) + bs(svm2, df=6)", d)
    monkeypatch.setattr(limits, "MAX_DESIGN_COLUMNS", 20_000)
    monkeypatch.setattr(limits, "MAX_DESIGN_CELLS", 100)
    with pytest.raises(FormulaLimitError, match=r"design matrix of 60 rows x 3 columns .*MAX_DESIGN_CELLS"):
        ev.evlogit("y ~ svm1 + np.log(svm2 + 10)", d)


def test_design_cells_use_the_exact_columns_of_factor_levels(monkeypatch):
    """A factor's levels are known only from the data: the cells are checked once patsy knows the
    columns, before the matrix is built."""
    d = _data(60).assign(g=[f"g{i % 30}" for i in range(60)])
    monkeypatch.setattr(limits, "MAX_DESIGN_CELLS", 60 * 20)
    with pytest.raises(FormulaLimitError, match=r"60 rows x 30 columns"):
        ev.evlogit("y ~ C(g)", d)


@pytest.mark.parametrize("code, columns", [
    ("bs(s, df=7)", 7), ("bs(s, 5)", 5), ("bs(s, knots=[0.2, 0.5])", 6), ("bs(s, knots=[0.2, 0.5], degree=2)", 5),
    ("cr(s, df=6)", 6), ("cc(s, knots=[0.3, 0.6])", 6), ("te(cr(a, df=4), cc(b, df=5))", 20),
    ("np.log(s)", 1), ("center(s)", 1), ("bs(s, df=2**20)", 2**20), ("bs(s, df=1e300)", 2**62),  # counts are capped at 2**62
], ids=lambda v: v if isinstance(v, str) else None)
def test_basis_columns_bound_patsy_from_above(code, columns):
    """The count from the text is at least patsy's (checked below for the small ones)."""
    assert limits.basis_columns(code) == columns


def test_basis_columns_are_at_least_patsys():
    import patsy

    x = np.linspace(0, 1, 200)
    frame = {"s": x, "a": x, "b": x[::-1]}
    for code in ["bs(s, df=7)", "bs(s, knots=[0.2, 0.5])", "bs(s, knots=[0.2, 0.5], degree=2)",
                 "bs(s, knots=[0.2, 0.5], include_intercept=True)", "cr(s, df=6)", "cr(s, knots=[0.3, 0.6])",
                 "cc(s, knots=[0.3, 0.6])", "te(cr(a, df=4), cc(b, df=5))"]:
        assert limits.basis_columns(code) >= patsy.dmatrix(code + " - 1", frame).shape[1], code


def test_collinearity_message_of_a_wide_tensor_is_capped():
    """The message listed every design column (52 MB for a large tensor spline): now a few."""
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"y": np.repeat([0, 1], 600), "a": rng.normal(size=1200), "b": rng.normal(size=1200)})
    with pytest.raises(ValueError) as info:
        ev.evlogit("y ~ te(cr(a, df=12), cr(b, df=12))", d)  # the tensor's columns sum to 1: the intercept
    text = str(info.value)
    assert "collinear" in text or "linearly dependent" in text
    assert len(text) < 2500 and "more" in text and "\n" not in text


def test_rows_fewer_than_columns_message_is_capped():
    with pytest.raises(ValueError, match=r"in all\)") as info:
        ev.evlogit("y ~ bs(svm1, df=300)", _data(100))
    assert len(str(info.value)) < 2500


def test_command_line_messages_are_capped():
    assert cap("x" * 10_000_000).endswith(f"(10,000,000 characters, cut to {MAX_MESSAGE_CHARS:,})")
    assert len(cap("x" * 10_000_000)) == MAX_MESSAGE_CHARS
    assert cap("a\n b\tc") == "a b c"


@pytest.mark.parametrize("formula, what", [
    ("y ~ bs(svm1, knots=svm1)", "the knots of bs() must be a list of numbers"),
    ("y ~ cr(svm1, knots=np.log(svm2 + 10))", "the knots of cr() must be a list of numbers"),
    ("y ~ bs(svm1, df=svm1)", "the df of bs() must be a number"),
])
def test_data_dependent_spline_sizes_refused_from_the_text(formula, what):
    """knots=svm1 gives one knot per row: patsy built the whole basis (20,000 rows: 20,003
    columns, still evaluating after 300 s) while finding out how many columns it has, before any
    size check could run. A basis's size must be readable from the formula."""
    with pytest.raises(FormulaLimitError, match=re.escape(what)):
        ev.evlogit(formula, _data(60))
    assert ev.evlogit("y ~ bs(svm1, df=2 + 2, knots=None)", _data(60)).params.size == 5


def test_design_cells_from_the_text_before_patsy_evaluates_a_basis(monkeypatch):
    """patsy evaluates every factor on all rows to count its columns, so bs(svm1, df=1000) on a
    million rows (8 GB) is refused from the text, before patsy is called."""
    import evstat.formula.design as design

    def boom(*args, **kwargs):
        raise AssertionError("patsy evaluated the basis before the cells were checked")

    monkeypatch.setattr(design.patsy, "design_matrix_builders", boom)
    rng = np.random.default_rng(0)
    n = 1_000_000
    d = pd.DataFrame({"y": np.repeat([0, 1], n // 2), "svm1": rng.normal(size=n)})
    with pytest.raises(FormulaLimitError, match=r"1,000,000 rows x 1,001 columns .*7\.5 GiB.*MAX_DESIGN_CELLS"):
        ev.evlogit("y ~ bs(svm1, df=1000)", d)
