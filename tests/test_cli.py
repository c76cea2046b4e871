"""The evstat command: help, reports from CSV files and examples, one-line errors with status 2."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import evstat as ev
from evstat import cli
from evstat.cli import main

pytestmark = pytest.mark.filterwarnings("error")


@pytest.fixture(scope="module")
def csvs(tmp_path_factory) -> dict[str, Path]:
    d = ev.datasets.load("heart_scores")
    root = tmp_path_factory.mktemp("cli")
    files = {
        "cal": root / "cal.csv",
        "test": root / "test.csv",
        "nolabel": root / "test_nolabel.csv",
        "empty": root / "empty.csv",
        "garbage": root / "garbage.csv",
    }
    d[d.set == "calibration"].to_csv(files["cal"], index=False)
    d[d.set == "test"].to_csv(files["test"], index=False)
    d[d.set == "test"].drop(columns=["y", "label"]).to_csv(files["nolabel"], index=False)
    files["empty"].write_text("", encoding="utf-8")
    files["garbage"].write_bytes(b'a,b\n1,"2\n')
    return files


ROOT = Path(ev.__file__).resolve().parent.parent


def evstat_exe(*args, stdin=None) -> subprocess.CompletedProcess:
    """Run the installed ``evstat`` executable (this checkout first on the path)."""
    exe = Path(sys.executable).parent / "evstat"
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, env=env, timeout=600,
                          input=stdin)


def run(capsys, args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_help_documents_every_option(capsys):
    status, out, _ = run(capsys, ["--help"])
    assert status == 0
    assert "report" in out and "fit calibrators and write a self-contained HTML report" in out
    status, out, _ = run(capsys, ["report", "--help"])
    assert status == 0
    for opt in ("FORMULA", "--data CAL.csv", "--example NAME", "--newdata TEST.csv", "--method METHOD",
                "--bins B", "--reject-cost C", "--positive LEVEL", "--title TITLE", "--date DATE",
                "--grid G", "-o REPORT.html, --output REPORT.html"):
        assert opt in out, opt
    for name in cli.EXAMPLES:
        assert name in out
    for name in cli.methods():
        assert name in out
    assert "evstat report --example sonar -o sonar-report.html" in out
    status, out, _ = run(capsys, ["--version"])
    assert status == 0 and out.strip() == f"evstat {ev.__version__}"


def test_methods_are_the_registry():
    """The command line's models are the registry's (issue 24 item 5): the help's static name
    table equals the registry, names and class counts, so neither can drift from the other."""
    from evstat.results import fitters, registered, supported_classes

    assert {m: supported_classes(m) for m in fitters()} == cli.METHOD_NAMES
    assert list(cli.methods()) == list(cli.METHOD_NAMES)
    for name, fn in cli.methods().items():
        assert fn is getattr(ev, name) and name in registered()
    assert set(cli.methods(n_classes=3)) == {m for m, k in cli.METHOD_NAMES.items() if 3 in k}
    from evstat.calibration._disjoint import METHODS

    assert tuple(METHODS) == cli.DISJOINT_BASES


def test_single_score_models_are_skipped_by_their_declaration(capsys, csvs, tmp_path):
    """Every model that declares ``single_score`` (not a list in the command line) is skipped
    with a note for a formula of several scores; plr was not in the old list."""
    from evstat.results import registered

    single = {m for m, c in registered().items() if c.capabilities.single_score}
    assert {"isotonic", "betacal", "plr", "normcal", "avcal", "bayescal"} == single
    done = evstat_exe("report", "y ~ svm1 + svm2", "--data", csvs["cal"], "--method", "evlogit", "plr",
                      "--grid", "5", "-o", tmp_path / "r.html")
    assert done.returncode == 0 and "--method plr skipped: plr calibrates one score" in done.stderr, done.stderr
    assert "--method plr skipped" in (tmp_path / "r.html").read_text(encoding="utf-8")


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    "args, message",
    [
        (["report", "y ~ svm1", "--data", "{dir}/nope.csv", "-o", "{out}"], "--data file '.*nope.csv' not found"),
        (["report", "y ~ svm1 +", "--data", "{cal}", "-o", "{out}"], "cannot parse the right-hand side of formula 'y ~ svm1 \\+'"),
        (["report", "y ~ svmX", "--data", "{cal}", "-o", "{out}"], r"column\(s\) \['svmX'\] used in formula 'y ~ svmX' not found"),
        (["report", "yy ~ svm1", "--data", "{cal}", "-o", "{out}"], "response column 'yy' of formula 'yy ~ svm1' not found"),
        (["report", "y svm1", "--data", "{cal}", "-o", "{out}"], "formula"),
        (["report", "y ~ svm1", "--data", "{cal}", "--newdata", "{nolabel}", "--method", "evlogit",
          "--title", "x", "-o", "{out}", "--reject-cost", "-1"], r"--reject-cost must lie in \[0, 1\], got -1"),
        (["report", "y ~ svm1", "--data", "{cal}", "--method", "magic", "-o", "{out}"],
         "unknown method 'magic'; choose from evlogit, evbinning, isotonic, betacal, disjoint, venn_abers, .*, evmultinom, .*, gbt"),
        (["report", "y ~ svm1", "--data", "{cal}", "--method", "evlogit", "evlogit", "-o", "{out}"], "lists a calibrator twice"),
        (["report", "y ~ svm1 + svm2", "--data", "{cal}", "--method", "isotonic", "-o", "{out}"], "isotonic calibrates one score"),
        (["report", "y ~ svm1", "--data", "{cal}", "--bins", "0", "--method", "evbinning", "-o", "{out}"], "--bins must be a positive integer"),
        (["report", "y ~ svm1", "--data", "{cal}", "--bins", "two", "-o", "{out}"], "argument --bins: invalid int value: 'two'"),
        (["report", "y ~ svm1", "--data", "{cal}"], "the following arguments are required: -o/--output"),
        (["report", "y ~ svm1", "--data", "{cal}", "--example", "sonar", "-o", "{out}"], "not allowed with argument --data"),
        (["report", "--example", "wine", "-o", "{out}"], "argument --example: invalid choice: 'wine'"),
        (["report", "y ~ svm1", "-o", "{out}"], "give the calibration data with --data CAL.csv, or use --example NAME"),
        (["report", "--data", "{cal}", "-o", "{out}"], "give a FORMULA"),
        (["report", "y ~ svm1", "--data", "{empty}", "-o", "{out}"], "cannot read --data file '.*empty.csv' as CSV"),
        (["report", "y ~ svm1", "--data", "{garbage}", "-o", "{out}"], "cannot read --data file '.*garbage.csv' as CSV"),
        (["report", "y ~ svm1", "--data", "{dir}", "-o", "{out}"], "not found \\(it is a folder\\)"),
        (["report", "y ~ svm1", "--data", "{cal}", "-o", "{dir}/no/such/dir/r.html"], "folder '.*no/such/dir' does not exist"),
        (["report", "y ~ svm3", "--data", "{cal}", "--newdata", "{nolabel}", "--positive", "2", "-o", "{out}"],
         "positive"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        ([], "choose a command: report"),
    ],
)
def test_errors_are_one_line_with_status_2(capsys, csvs, tmp_path, args, message):
    fill = {"cal": csvs["cal"], "nolabel": csvs["nolabel"], "empty": csvs["empty"], "garbage": csvs["garbage"],
            "dir": tmp_path, "out": tmp_path / "r.html"}
    status, out, err = run(capsys, [a.format(**fill) for a in args])
    assert status == 2
    line = one_error_line(err)
    assert line.startswith(("evstat report: error: ", "evstat: error: ")), line
    assert re.search(message, line), line
    assert not (tmp_path / "r.html").exists()


def test_report_from_csv_files(capsys, csvs, tmp_path):
    out = tmp_path / "heart.html"
    status, stdout, err = run(capsys, ["report", "label ~ svm1 + svm2", "--data", csvs["cal"], "--newdata", csvs["test"],
                                        "--method", "evlogit", "evbinning", "--bins", "2", "--reject-cost", "0.2",
                                        "--positive", "present", "--title", "Heart <test>", "--date", "2024-05-06",
                                        "--grid", "5", "-o", out])
    assert (status, err) == (0, "")
    assert stdout == f"wrote {out}\n"
    html = out.read_text(encoding="utf-8")
    assert "<title>Heart &lt;test&gt;</title>" in html
    assert "<h2>Model: evlogit</h2>" in html and "<h2>Model: evbinning</h2>" in html
    assert "<h2>Comparison of calibrators</h2>" in html
    assert re.search(r"<tr><td>evlogit</td>.*<td>present</td></tr>", html)  # the overview's positive class
    # the caption's cost follows the slider (issue 39 item 4): a span the page's script rewrites
    assert re.search(r"Decisions on the new data \(110 rows\) at reject cost R_rej = <span[^>]*>0.2</span>", html)
    assert "<tr><td>pessimistic</td><td class=\"num\">0.2</td>" in html
    assert "<dt>Cells</dt><dd>4 (2 x 2), 0 empty</dd>" in html  # --bins reached evbinning
    assert "<dt>Command</dt><dd>evstat report &#39;label ~ svm1 + svm2&#39; --data " in html
    assert "<dt>Date</dt><dd>2024-05-06</dd>" in html


def test_numeric_positive_level_and_unlabelled_newdata(capsys, csvs, tmp_path):
    out = tmp_path / "r.html"
    status, _, err = run(capsys, ["report", "y ~ svm1", "--data", csvs["cal"], "--newdata", csvs["nolabel"],
                                   "--positive", "0", "--grid", "5", "-o", out])
    assert (status, err) == (0, "")
    html = out.read_text(encoding="utf-8")
    # the overview's row of the model: its last cell is the positive class
    row = re.search(r"<tr><td>evlogit</td>(.*?)</tr>", html).group(1)
    assert re.findall(r"<td[^>]*>(.*?)</td>", row)[-1] == "0"
    assert "have no labels" in html


def test_example_report_is_byte_identical_with_a_date(capsys, tmp_path):
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    for out in (a, b):
        status, _, err = run(capsys, ["report", "y ~ svm1", "--example", "sonar", "--date", "2024-01-01",
                                       "--grid", "5", "-o", out])
        assert (status, err) == (0, "")
    text = a.read_text(encoding="utf-8")
    assert text.replace("-o a.html", "-o b.html") == b.read_text(encoding="utf-8")
    assert "example score table sonar_scores shipped with evstat (158 rows x 7 columns" in text
    assert "the example score tables were made with seed 2019" in text
    assert "evstat calibration report: sonar example scores" in text
    assert "Scores on the new data (79 rows)" in text


def test_example_with_newdata(capsys, tmp_path):
    """--example with --newdata: the new rows are read with the example's formula (found by the
    type checker: the formula was used before it was set, an UnboundLocalError)."""
    table = ev.datasets.load("sonar_scores")
    path = tmp_path / "new.csv"
    table[table["set"] == "test"].head(30).to_csv(path, index=False)
    status, _, err = run(capsys, ["report", "--example", "sonar", "--newdata", path, "--grid", "5",
                                   "-o", tmp_path / "r.html"])
    assert (status, err) == (0, "")
    assert "Scores on the new data (30 rows)" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_warnings_print_one_line(capsys, csvs, tmp_path):
    """Rows in empty cells: the warning is one 'evstat: warning:' line, the report is written."""
    import pandas as pd

    cal = pd.read_csv(csvs["cal"])
    test = pd.read_csv(csvs["test"])
    test.loc[:1, ["svm1", "svm2"]] = [cal.svm1.min() - 5, cal.svm2.max() + 5]
    fit = ev.evbinning("y ~ svm1 + svm2", cal, bins=6)
    if fit.n[fit.cell_of(test.iloc[:2])].sum() != 0:
        pytest.fail("the test rows should fall in empty cells")
    path = tmp_path / "t.csv"
    test.to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # as outside the test suite: shown, not raised
        status, _, err = run(capsys, ["report", "y ~ svm1 + svm2", "--data", csvs["cal"], "--newdata", path,
                                       "--method", "evbinning", "--bins", "6", "--grid", "5", "-o", tmp_path / "r.html"])
    assert status == 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and re.match(r"evstat: warning: \d+ of 110 rows fall in empty cells", lines[0]), err
    assert (tmp_path / "r.html").is_file()


def test_python_dash_m_evstat(tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")
    out = tmp_path / "r.html"
    ok = subprocess.run([sys.executable, "-m", "evstat", "report", "y ~ svm2", "--example", "pima",
                         "--grid", "5", "-o", str(out)], capture_output=True, text=True, env=env, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == f"wrote {out}\n" and out.is_file()
    bad = subprocess.run([sys.executable, "-m", "evstat", "report", "y ~ svm1", "--data", str(tmp_path / "x.csv"),
                          "-o", str(out)], capture_output=True, text=True, env=env, timeout=300)
    assert bad.returncode == 2
    assert bad.stderr == f"evstat report: error: --data file '{tmp_path / 'x.csv'}' not found\n"


# --- K classes on the command line (issue 25 item 1) ---------------------------------------------


@pytest.fixture(scope="module")
def iris_csvs(tmp_path_factory) -> dict[str, Path]:
    d = ev.datasets.load("iris_scores")
    root = tmp_path_factory.mktemp("iris")
    files = {"cal": root / "cal.csv", "test": root / "test.csv", "nolabel": root / "nolabel.csv"}
    d[d.set == "calibration"].to_csv(files["cal"], index=False)
    d[d.set == "test"].to_csv(files["test"], index=False)
    d[d.set == "test"].drop(columns=["y"]).to_csv(files["nolabel"], index=False)
    return files


def test_k_class_report_with_several_models(iris_csvs, tmp_path):
    """A K-level response and K-class models by name give one report with a section per model
    and one comparison (it used to stop with 'calibration needs a two-class response')."""
    out = tmp_path / "k.html"
    done = evstat_exe("report", "y ~ lr_versicolor + lr_virginica", "--data", iris_csvs["cal"], "--newdata",
                      iris_csvs["test"], "--method", "eknn", "credal_knn", "--grid", "5", "--date", "2026-01-01",
                      "-o", out)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {out}\n"
    html = out.read_text(encoding="utf-8")
    heads = re.findall(r"<h2>(.*?)</h2>", html)
    assert "Comparison of calibrators" in heads
    assert any("eknn" in h for h in heads) and any("credal_knn" in h for h in heads)
    assert "--method eknn credal_knn" in html


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--method", "eknn", "evlogit"],
         r"--method evlogit calibrates two classes, but response 'y' has 3 classes \(setosa, versicolor, "
         r"virginica\); use a model for K classes: --method evmultinom \| temperature \| .*eknn \| credal_knn"),
        ([], r"--method evlogit calibrates two classes"),  # not the default: the default is evmultinom
        (["--method", "eknn", "--positive", "setosa"],
         r"--positive names the class coded 1 of a two-class response, but response 'y' has 3 classes: "
         r"remove --positive"),
        # temperature reads the K - 1 log-ratios now (issue 37); a model that cannot is refused by its
        # declared capabilities, with why
        (["--method", "ecoc"], r"ecoc cannot read the score columns \['lr_versicolor', 'lr_virginica'\] .* "
                               r"K - 1 log-ratios against the first class"),
    ],
)
def test_k_class_errors_say_what_to_do(iris_csvs, tmp_path, extra, message):
    if not extra:  # without --method a K-class response gets evmultinom, never evlogit
        from evstat.cli import _build_parser

        args = _build_parser().parse_args(["report", "y ~ x", "--data", "d.csv", "-o", "o.html"])
        assert args.method is None
        return
    done = evstat_exe("report", "y ~ lr_versicolor + lr_virginica", "--data", iris_csvs["cal"], *extra,
                      "-o", tmp_path / "k.html")
    assert done.returncode == 2
    line = one_error_line(done.stderr)
    assert line.startswith("evstat report: error: ") and re.search(message, line), line
    assert not (tmp_path / "k.html").exists()


def test_k_class_example_picks_each_models_columns(tmp_path):
    """``--example iris``: without a FORMULA each model gets the columns its declared kind of
    scores asks for (data/README.md), and the footer says which."""
    out = tmp_path / "iris.html"
    done = evstat_exe("report", "--example", "iris", "--method", "eknn", "temperature", "dirichlet", "--grid", "5",
                      "--date", "2026-01-01", "-o", out)
    assert done.returncode == 0, done.stderr
    html = out.read_text(encoding="utf-8")
    assert ("eknn: y ~ lr_versicolor + lr_virginica; temperature: y ~ logp_setosa + logp_versicolor + "
            "logp_virginica; dirichlet: y ~ p_setosa + p_versicolor + p_virginica") in html
    assert "example score table iris_scores" in html
    heads = re.findall(r"<h2>(.*?)</h2>", html)
    assert "Comparison of calibrators" in heads and len([h for h in heads if h.startswith("Model")]) == 3


@pytest.mark.slow
def test_k_class_example_defaults_to_evmultinom(tmp_path):
    out = tmp_path / "iris.html"
    done = evstat_exe("report", "--example", "iris", "--grid", "4", "--date", "2026-01-01", "-o", out)
    assert done.returncode == 0, done.stderr
    html = out.read_text(encoding="utf-8")
    assert "--method evmultinom" in html and "<h2>Model: evmultinom</h2>" in html
    assert "Formulas" not in html  # one model, one formula: lr_versicolor + lr_virginica
    assert "lr_versicolor + lr_virginica" in html


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_k_class_predict_writes_one_header_row(iris_csvs, tmp_path, suffix):
    """``evstat predict`` of a K-class model: one header row of flat names (it wrote two,
    ``theta,theta,...`` then the classes, and ``--type prob`` failed)."""
    import pandas as pd

    cal = pd.read_csv(iris_csvs["cal"])
    fit = ev.eknn("y ~ lr_versicolor + lr_virginica", cal, k=5)
    fit.save(tmp_path / "k.json")
    new = pd.read_csv(iris_csvs["nolabel"])
    want = fit.predict(new, type="belief")
    classes = ["setosa", "versicolor", "virginica"]
    for kind, stats in (("belief", ("theta", "bel", "pl")), ("prob", ("theta",))):
        out = tmp_path / f"{kind}{suffix}"
        done = evstat_exe("predict", tmp_path / "k.json", "--data", iris_csvs["nolabel"], "-o", out, "--type", kind,
                          "--keep", "row", "--jobs", "1", "--quiet")
        assert done.returncode == 0, done.stderr
        got = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
        assert list(got.columns) == ["row"] + [f"{s}_{c}" for s in stats for c in classes]
        if suffix == ".csv":
            assert out.read_text(encoding="utf-8").splitlines()[0] == ",".join(got.columns)
        for s in stats:
            for c in classes:
                np.testing.assert_allclose(got[f"{s}_{c}"], want[(s, c)], rtol=0, atol=1e-12)
    out = tmp_path / f"decision{suffix}"
    done = evstat_exe("predict", tmp_path / "k.json", "--data", iris_csvs["nolabel"], "-o", out,
                      "--type", "decision", "--jobs", "1", "--quiet")
    assert done.returncode == 0, done.stderr
    got = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
    assert list(got["decision"]) == [str(v) for v in fit.decide(new)]
