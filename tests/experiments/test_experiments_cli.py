"""`evstat reproduce`: options, exit codes for bad options, and the CI smoke run (2 rounds, 2 data
sets, the whole pipeline through the report)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import evstat.experiments as exps
from evstat.cli import main
from evstat.experiments import cli as ecli


def _run(capsys: pytest.CaptureFixture, argv: list[str]) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["reproduce", "minary2019", "--rounds", "0", "--out", "o"], "argument --rounds: expected a positive integer, got 0"),
        (["reproduce", "minary2019", "--rounds", "two", "--out", "o"], "expected a positive integer, got 'two'"),
        (["reproduce", "minary2019", "--jobs", "0", "--out", "o"], "argument --jobs: expected a positive integer or -1"),
        (["reproduce", "minary2019", "--seed", "-3", "--out", "o"], "argument --seed: expected a non-negative integer"),
        (["reproduce", "minary2019", "--datasets", "adult", "--out", "o"], "argument --datasets: invalid choice: 'adult'"),
        (["reproduce", "minary2019", "--rounds", "2"], "the following arguments are required: --out"),
        (["reproduce", "minary2018", "--out", "o"], "argument STUDY: invalid choice: 'minary2018'"),
        (["reproduce", "--out", "o"], "the following arguments are required: STUDY"),
    ],
)
def test_bad_options_exit_2_with_one_line(capsys: pytest.CaptureFixture, argv: list[str], message: str) -> None:
    status, out, err = _run(capsys, argv)
    assert status == 2
    assert out == ""
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_help_exits_0(capsys: pytest.CaptureFixture) -> None:
    status, out, _ = _run(capsys, ["reproduce", "--help"])
    assert status == 0
    assert "minary2019" in out and "--rounds" in out and "--jobs" in out and "--out" in out


def test_seed_mismatch_in_existing_folder_exits_2(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    (tmp_path / "study.json").write_text(
        '{"study": "minary2019", "seed": 1, "reject_costs": [], "svm": {}, "table2": {}}', encoding="utf-8"
    )
    status, out, err = _run(capsys, ["reproduce", "minary2019", "--rounds", "1", "--datasets", "sonar", "--quiet",
                                     "--out", tmp_path])
    assert status == 2
    assert err.startswith("evstat reproduce: error: ") and "different study setting (seed: 1 there, 2019 now)" in err
    assert "Traceback" not in err


def test_interrupt_exits_130_with_resume_hint(capsys: pytest.CaptureFixture, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import evstat.experiments.minary2019 as mr

    def stop(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr(mr, "run_minary2019", stop)
    status, _, err = _run(capsys, ["reproduce", "minary2019", "--out", tmp_path])
    assert status == 130
    assert "interrupted; run the same command again to resume" in err


def test_parser_defaults_and_command_line() -> None:
    import argparse

    p = argparse.ArgumentParser(prog="evstat")
    ecli.add_reproduce_parser(p.add_subparsers(dest="command"))
    a = p.parse_args(["reproduce", "minary2019", "--out", "out dir", "--datasets", "sonar", "heart", "--jobs", "-1"])
    assert (a.rounds, a.seed, a.jobs, a.quiet, a.no_report, a.frontier_grid) == (100, 2019, -1, False, False, 81)
    assert (a.svm, a.tie) == ("default", "random")
    assert ecli._command(a) == ("evstat reproduce minary2019 --rounds 100 --datasets sonar heart --seed 2019 "
                                "--jobs -1 --svm default --out 'out dir'")
    a = p.parse_args(["reproduce", "minary2019", "--out", "o", "--svm", "tuned", "--tie", "first"])
    assert ecli._command(a) == ("evstat reproduce minary2019 --rounds 100 --seed 2019 --jobs 1 --svm tuned "
                                "--tie first --out o")
    assert ecli.main(["minary2019", "--jobs", "x", "--out", "o"]) == 2


def test_smoke_two_rounds_two_datasets(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    """The CI smoke version of the full study: 2 rounds on sonar and heart, report included."""
    out = tmp_path / "smoke"
    status, stdout, err = _run(capsys, ["reproduce", "minary2019", "--rounds", "2", "--datasets", "sonar", "heart",
                                        "--quiet", "--frontier-grid", "15", "--out", out])
    assert status == 0, err
    assert stdout.strip() == f"wrote {out}"
    for name in ("error_rates.csv", "reject_curves.csv", "reject_015.csv", "summary_error_rates.csv", "claims.csv",
                 "study.json", "report.html"):
        assert (out / name).is_file(), name
    er = pd.read_csv(out / "error_rates.csv")
    methods = exps.available_methods()
    assert len(er) == 2 * (3 + 4) * len(methods)  # rounds x (sonar 3 sizes + heart 4 sizes) x methods
    assert set(er["dataset"]) == {"sonar", "heart"} and er["error_rate"].notna().all()
    assert er["error_rate"].between(0, 1).all()
    claims = pd.read_csv(out / "claims.csv")
    assert {"claim", "comparison", "cells_for", "cells_against", "verdict"} <= set(claims.columns)
    assert len(claims) >= 8
    # 2 rounds are too few for any cell to count: every error-rate comparison is inconclusive
    er_claims = claims[claims["claim"].str.contains(r"\(5\.[23]\)")]
    assert (er_claims["verdict"] == "inconclusive").all()
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    # self-contained: no scripts, no external resources, no URLs
    assert "<script" not in html and "<link" not in html and "<img" not in html
    assert not re.search(r"https?://", html)
    assert re.search(r'(src|href)="(?!#)', html) is None
    for fig in ("fig4", "fig7", "fig8", "fig10"):
        assert f'<figure id="{fig}">' in html
    assert "Fig. 9" not in html  # its data sets (simulated, wdbc, pima) were not run
    assert "The paper&#39;s findings against our numbers" in html
    assert "evstat reproduce minary2019 --rounds 2 --datasets sonar heart" in html
    # the report lists every comparison of claims.csv with its verdict
    for comp in claims["comparison"]:
        assert comp.replace("'", "&#39;").replace("<", "&lt;") in html.replace("&#43;", "+")


@pytest.mark.parametrize("module", ["partition", "ensemble", "methods", "minary2019", "claims", "report", "cli"])
def test_docstring_examples_run(module: str, doctests) -> None:

    doctests(f"evstat.experiments.{module}")


def test_docstring_examples_run_package(doctests) -> None:
    doctests(exps)
