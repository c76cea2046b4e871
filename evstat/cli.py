"""The ``evstat`` command: calibration reports from the command line.

::

    evstat report "y ~ svm1 + svm2 + svm3" --data cal.csv --newdata test.csv -o report.html
    evstat report --example sonar -o sonar-report.html
    evstat reproduce minary2019 --out reports/minary2019/svm-default    (see evstat.experiments.cli)
    evstat query "y ~ svm1 + svm2" --data lab.csv --pool pool.csv -n 10 -o next.csv  (evstat.active.cli)

Errors (a missing file, a bad formula, an absent column, ...) print one line on stderr and exit
with status 2, without a traceback. :func:`main` takes the argument list, so the command runs
in-process too: ``evstat.cli.main(["report", "--example", "sonar", "-o", "r.html"])``.

Input files: ``--data -`` reads standard input and named pipes work (``--data <(cat cal.csv)``);
``--sep`` sets the column separator (``--sep ';'``, ``--sep tab``), and a file that reads as a
single column containing ``;``, a tab or ``|`` gets an error suggesting ``--sep``. Duplicate
column names are refused (pandas would silently rename the second ``a`` to ``a.1``). ``--grid``
is at most :data:`MAX_GRID`. A single-score calibrator (``isotonic``, ``betacal``) asked for with
a formula of several scores is skipped with a warning shown in the report (or fitted per score and
combined with ``--method disjoint --disjoint-base isotonic``).
"""

from __future__ import annotations

import argparse
import inspect
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from evstat.exceptions import EvstatError

__all__ = ["EXAMPLES", "EXIT_SIGINT", "EXIT_SIGTERM", "MAX_GRID", "METHOD_NAMES", "Terminated", "main", "methods"]

#: Largest --grid: the decision-region figure evaluates Bel/Pl at grid**2 points (500**2 =
#: 250,000 rows; 20,000 was killed for memory before this bound existed).
MAX_GRID = 500

#: --example names: the shipped score tables (evstat.datasets.load(name + "_scores"))
EXAMPLES = ("sonar", "ionosphere", "pima", "heart", "wdbc", "simulated", "iris", "vehicle", "digits")
#: the K-class ones among them (K = 3, 4 and 10): their default formula depends on the model
K_EXAMPLES = ("iris", "vehicle", "digits")
#: examples whose table is not ``<name>_scores``: the table and the script that made it
_EXAMPLE_TABLES = {"digits": ("digits_logits", "data/make_digits_logits.py")}
EXAMPLE_FORMULA = "y ~ svm1 + svm2 + svm3"
#: the models ``--method`` fits, in the order the help lists them, with the class counts each
#: accepts (3 stands for every K >= 3). The registry (:func:`evstat.results.fitters`) is the list
#: of models; this is its copy for ``--help``, which must not import the models (pandas, scipy),
#: and tests/test_cli.py checks that the two are equal, so it cannot drift.
METHOD_NAMES: dict[str, tuple[int, ...]] = {
    "evlogit": (2,), "evbinning": (2,), "isotonic": (2,), "betacal": (2,), "disjoint": (2,),
    "venn_abers": (2,), "plr": (2,), "normcal": (2,), "avcal": (2,), "bayescal": (2,),
    "evmultinom": (2, 3), "temperature": (2, 3), "vector_scaling": (2, 3), "matrix_scaling": (2, 3),
    "dirichlet": (2, 3), "gebel_dirichlet": (2, 3), "ecoc": (2, 3), "eknn": (2, 3), "credal_knn": (2, 3),
    "evnn": (2, 3), "gbt": (2, 3),
}
#: the models of ``evstat report`` without ``--method``, for two and for K >= 3 classes; a default
#: model that cannot read the formula's columns (its ``Capabilities.accepts``) is skipped with a
#: note in the report, while one asked for with ``--method`` is an error naming why
DEFAULT_METHODS: dict[int, tuple[str, ...]] = {2: ("evlogit",), 3: ("evmultinom",)}
#: the per-score calibrators ``--method disjoint`` combines (evstat.calibration._disjoint.METHODS;
#: tests/test_cli.py checks the copy)
DISJOINT_BASES = ("evlogit", "evbinning", "isotonic", "betacal")


def _two_class_only() -> list[str]:
    return [m for m, k in METHOD_NAMES.items() if 3 not in k]


def _k_class() -> list[str]:
    return [m for m, k in METHOD_NAMES.items() if 3 in k]


def methods(n_classes: int | None = None) -> dict[str, Callable[..., Any]]:
    """The models ``--method`` fits, ``{name: fitting function}``, read from the registry
    (:func:`evstat.results.fitters`); with ``n_classes=K``, those that accept K classes.

    Examples
    --------
    >>> import evstat as ev
    >>> methods()["evlogit"] is ev.evlogit, "evmultinom" in methods(n_classes=3)
    (True, True)
    """
    from evstat.results import fitters

    found = fitters(n_classes)
    order = [m for m in METHOD_NAMES if m in found] + [m for m in found if m not in METHOD_NAMES]
    return {m: found[m] for m in order}


def _single_score(name: str) -> bool:
    """Whether the registered model ``name`` calibrates one score (its declared capability)."""
    from evstat.results import registered

    return bool(registered()[name].capabilities.single_score)


class CommandError(EvstatError):
    """A user error: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors print one line (``evstat report: error: ...``) and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


#: the commands defined in other modules: ``{command: (module, function adding its parser, the
#: one-line help of ``evstat --help``)}``. Only the command being run gets its full parser, so
#: ``evstat --help`` and ``evstat report --help`` import none of those modules (nor pandas, scipy,
#: statsmodels); tests/test_cli.py checks that each one-line help is the full parser's.
_COMMANDS = {
    "reproduce": (
        "evstat.experiments.cli", "add_reproduce_parser",
        "reproduce a paper's experiments (CSV results and an HTML report); needs "
        "pip install \"evstat[experiments]\"",
    ),
    "query": ("evstat.active.cli", "add_query_parser",
              "the unlabelled rows to label next (active evidential calibration)"),
    "predict": ("evstat.bulk", "add_predict_parser",
                "predict for a large CSV/Parquet file with a saved model (chunked, parallel, Dask)"),
}


#: every command of ``evstat``, in the order of ``evstat --help``
_COMMAND_NAMES = ("report", *_COMMANDS)
_HELP_HINTS = tuple(f"'evstat {c} --help'" for c in _COMMAND_NAMES)


def _or(words: Iterable[str]) -> str:
    """``a, b, c or d``."""
    w = list(words)
    return w[0] if len(w) == 1 else f"{', '.join(w[:-1])} or {w[-1]}"


def _command_of(argv: Sequence[str]) -> str | None:
    """The command of an argument list: its first word that is not an option (the top-level
    parser's options, ``--help`` and ``--version``, take no value)."""
    return next((a for a in argv if not a.startswith("-")), None)


def _build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``evstat`` parser; of the commands of :data:`_COMMANDS`, only ``command`` gets its
    full parser (the others are listed with their one-line help)."""
    import importlib

    parser = _Parser(
        prog="evstat",
        description="evstat: evidential (belief-function) calibration of classifier scores.",
        # Every command, from the one list of commands (a new command is named without editing this).
        epilog=f"Run {_or(_HELP_HINTS)} for the options of a command.",
    )
    from evstat import __version__

    parser.add_argument("--version", action="version", version=f"evstat {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    rep = sub.add_parser(
        "report",
        help="fit calibrators and write a self-contained HTML report",
        description=(
            "Fit one or several calibrators of the classifier scores in a CSV file and write a\n"
            "self-contained HTML report: model summary, coefficients with profile intervals,\n"
            "calibration metrics, decisions with a reject option and figures. Errors print one\n"
            "line and exit with status 2."
        ),
        epilog=(
            "Examples:\n"
            "  evstat report --example sonar -o sonar-report.html\n"
            "  evstat report --example iris --method evmultinom temperature dirichlet eknn -o iris-report.html\n"
            "  evstat report --example digits --method temperature vector_scaling evmultinom -o digits-report.html\n"
            "  evstat report \"y ~ svm1 + svm2\" --data cal.csv --newdata test.csv "
            "--method evlogit evbinning --bins 3 -o report.html\n"
            "  evstat report \"y ~ svm1 + svm2\" --data cal.csv --pool unlabelled.csv --queries 10 -o report.html\n"
            f"Methods for two classes: {', '.join(_two_class_only())}.\n"
            f"Methods for two or more classes: {', '.join(_k_class())}."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rep.add_argument(
        "formula", nargs="?", metavar="FORMULA",
        help="R-style formula, e.g. \"y ~ svm1 + svm2 + svm3\": the response column (two or more "
             f"classes) left of '~', score columns right (default with a two-class --example: \"{EXAMPLE_FORMULA}\")",
    )
    src = rep.add_mutually_exclusive_group()
    src.add_argument("--data", metavar="CAL.csv",
                     help="CSV file of calibration rows (response and scores); '-' reads standard input, "
                          "named pipes such as <(cat cal.csv) work")
    src.add_argument(
        "--example", choices=EXAMPLES, metavar="NAME",
        help="use a shipped score table instead of --data: " + ", ".join(EXAMPLES)
             + " (calibration rows set == 'calibration', test rows set == 'test'). Two classes: "
             + ", ".join(e for e in EXAMPLES if e not in K_EXAMPLES) + ", three SVM scores svm1..svm3. "
               "K classes: iris (K = 3), vehicle (K = 4); without a FORMULA each model gets the columns "
               "data/README.md gives for it: the K - 1 log-ratios lr_* (evmultinom and every model of any "
               "scores), the log-probabilities logp_* (temperature, vector_scaling), the one-vs-rest SVM "
               "scores svm_* (ecoc, gebel_dirichlet), the probabilities p_* (dirichlet). digits (K = 10): "
               "a small network's ten logits logit_0..logit_9 of scikit-learn's digits (digits_logits), "
               "the same columns for every model",
    )
    rep.add_argument(
        "--newdata", metavar="TEST.csv",
        help="CSV file of test rows ('-': standard input); with the response column the metrics use "
             "them (default: the example's test rows, else none: metrics in-sample)",
    )
    rep.add_argument(
        "--method", nargs="+", metavar="METHOD", default=None,
        help="model(s) to fit, one or more of the registered models listed below (default: evlogit for "
             "a two-class response, evmultinom for K classes); several give a comparison section",
    )
    rep.add_argument(
        "--bins", type=int, metavar="B", default=None,
        help="bins per score axis of evbinning (default 3; B^J joint cells for J scores)",
    )
    rep.add_argument(
        "--reject-cost", type=float, metavar="C", default=None,
        help="reject cost R_rej in [0, 1] of the decisions (a misclassification costs 1; default: chosen "
             "from the data, the smallest cost at which the pessimistic strategy rejects at most a fifth "
             "of the rows, shown beside Minary et al.'s 0.15)",
    )
    rep.add_argument("--positive", metavar="LEVEL", default=None,
                     help="response level coded 1 of a two-class response (default: 1/True, else the second level in sorted order)")
    rep.add_argument("--title", default=None, help="report title (default: from the formula)")
    rep.add_argument("--date", default=None,
                     help="date printed in the footer (default today; fix it for byte-identical output)")
    rep.add_argument("--grid", type=int, default=None, metavar="G",
                     help=f"grid points per axis of the decision-region figure (default 40 for two classes; for "
                          f"K classes the plotting default, 16 per side of the simplex or 20 x 20; at most {MAX_GRID}: "
                          "the figure evaluates G^2 points)")
    rep.add_argument("--sep", default=",", metavar="SEP",
                     help="column separator of the CSV files: one character, e.g. ';' or 'tab' (default ',')")
    rep.add_argument("--encoding", default="utf-8", metavar="ENC",
                     help="text encoding of the CSV files (default utf-8; e.g. latin-1 or cp1252)")
    rep.add_argument("--missing", choices=("raise", "drop"), default="raise",
                     help="rows with missing values: an error (raise, default) or dropped (drop)")
    rep.add_argument("--disjoint-base", default="evlogit", metavar="METHOD",
                     choices=DISJOINT_BASES,
                     help="calibrator of each score in --method disjoint: evlogit (default), evbinning, "
                          "isotonic or betacal")
    rep.add_argument("--pool", metavar="POOL.csv", default=None,
                     help="CSV of unlabelled rows (the score columns): adds a section forecasting how the "
                          "ignorance on the pool would fall under Hartley, pignistic and random sampling "
                          "(evstat.active.outlook; the two-class fits that declare a refit: evlogit, evbinning, "
                          "isotonic, betacal)")
    rep.add_argument("--queries", type=int, metavar="Q", default=10,
                     help="with --pool: labels to forecast (default 10)")
    rep.add_argument("--draws", type=int, metavar="D", default=5,
                     help="with --pool: simulated labellings per strategy, labels drawn from the model (default 5); "
                          "the cost is 3 x D x Q refits")
    rep.add_argument("-o", "--output", required=True, metavar="REPORT.html", help="HTML file to write")
    for name, (module, adder, short) in _COMMANDS.items():
        if name == command:  # `evstat reproduce` (evstat.experiments), `query` (evstat.active), `predict` (evstat.bulk)
            getattr(importlib.import_module(module), adder)(sub)
        else:
            sub.add_parser(name, help=short)
    return parser


def _separator(text: str) -> str:
    """--sep as one character ('tab' and '\\t' for a tab)."""
    from evstat.io.tables import separator

    return separator(text)


def _read_csv(path: str, what: str, sep: str = ",", encoding: str = "utf-8", formula: str | None = None) -> Any:
    """A whole CSV file through the shared reader (:func:`evstat.io.tables.read_table`); with a
    ``formula``, a score column of numbers holding a stray non-numeric cell is refused naming
    the cell, its row and column (:func:`evstat.io.tables.check_numeric`)."""
    from evstat.io.tables import check_numeric, read_table

    frame = read_table(path, what, sep=sep, encoding=encoding)
    if formula is not None and "~" in formula:
        check_numeric(frame, _formula_columns(formula, frame.columns), path, what, mostly=True)
    return frame


def _formula_columns(formula: str, columns: Any) -> list[str]:
    """Columns named on the right of ``~`` (bare names and ``Q("...")``)."""
    import re

    rhs = formula.split("~", 1)[1]
    names = set(re.findall(r"[A-Za-z_.][A-Za-z0-9_.]*", rhs)) | set(re.findall(r"Q\(\s*[\"'](.+?)[\"']\s*\)", rhs))
    return [c for c in columns if c in names]


def _fit(name: str, fn: Callable[..., Any], formula: str, data: Any, bins: int | None, positive: Any,
         missing: str = "raise", disjoint_base: str = "evlogit") -> Any:
    params = inspect.signature(fn).parameters
    kwargs: dict[str, Any] = {}
    if positive is not None:
        kwargs["positive"] = positive
    if missing != "raise" and "missing" in params:
        kwargs["missing"] = missing
    if bins is not None and name in ("evbinning", "disjoint") and "bins" in params:
        kwargs["bins"] = bins
    if name == "disjoint" and "method" in params:
        kwargs["method"] = disjoint_base
    return fn(formula, data, **kwargs)


def _n_scores(formula: str, data: Any, positive: Any, missing: str) -> int:
    """Number of score terms (design columns but the intercept) of ``formula`` on ``data``."""
    from evstat.formula import model_frame

    mf = model_frame(formula, data, positive=positive, missing=missing)
    return sum(1 for t in mf.terms if t != "Intercept")


def _skip_message(name: str, formula: str, k: int) -> str:
    return (
        f"--method {name} skipped: {name} calibrates one score, but formula {formula!r} has {k} score "
        f"terms; for {name} give a one-score formula (e.g. \"y ~ svm1\"), or calibrate each score "
        f"with {name} and combine them with --method disjoint --disjoint-base {name}"
    )


def _cannot_read(name: str, formula: str, data: Any, n_classes: int, missing: str) -> str | None:
    """Why model ``name`` cannot read the score columns of ``formula`` (None when it can, or when
    the formula cannot be evaluated here: the fitter then names the problem), from the kinds of
    scores it declares (``Capabilities.accepts``) and what the columns are
    (:func:`evstat.multiclass.simplex.score_kind`)."""
    import numpy as np

    from evstat.formula import class_frame
    from evstat.multiclass.simplex import KIND_WORDS, score_kind
    from evstat.results import registered

    accepts = registered()[name].capabilities.accepts
    if n_classes < 2 or set(accepts) >= set(KIND_WORDS):
        return None
    try:
        cf = class_frame(f"{formula} - 1", data, missing=missing, rank_checks=False)
    except Exception:  # noqa: BLE001 - the fitter's own message is the better one
        return None
    kind = score_kind(np.asarray(cf.design.X, dtype=float), n_classes)
    if kind in accepts:
        return None
    cols = [t for t in cf.terms if t != "Intercept"]
    return (f"{name} cannot read the score columns {cols} of formula {formula!r}: they are {KIND_WORDS[kind]} "
            f"({len(cols)} columns for {n_classes} classes), and {name} reads "
            + "; ".join(KIND_WORDS[k] for k in accepts)
            + " (give such columns in a FORMULA, or choose another --method)")


#: API advice -> what the command line offers instead (every suggestion must be doable here)
_ADVICE = (
    ("pass missing='drop'", "pass --missing drop"),
    ("or pass missing='drop'", "or pass --missing drop"),
    ("pass positive=<the level coded 1>", "pass --positive LEVEL"),
    ("remove positive=", "remove --positive"),
    ("use ev.disjoint(..., method='isotonic')", "use --method disjoint --disjoint-base isotonic"),
    ("use ev.disjoint(..., method='betacal')", "use --method disjoint --disjoint-base betacal"),
    ("ev.disjoint(..., method='isotonic')", "--method disjoint --disjoint-base isotonic"),
    ("ev.disjoint(..., method='betacal')", "--method disjoint --disjoint-base betacal"),
    ("with ev.evlogit", "with --method evlogit"),
    ("or ev.evbinning", "or --method evbinning"),
    ("refit with empty='prior'", "use fewer --bins"),
)


def _cli_advice(text: str) -> str:
    """Rewrite the Python API's advice in an error message as command-line options."""
    import re

    for old, new in _ADVICE:
        text = text.replace(old, new)
    text = re.sub(r"positive=(?!<)", "--positive ", text)
    text = re.sub(r"convert it, e\.g\. pd\.to_numeric\(data\[(.+?)\]\)", r"fix column \1 in the CSV file", text)
    text = re.sub(r"convert it to a number first, e\.g\. data\[(.+?)\]\.astype\(float\)",
                  r"write column \1 as numbers (0/1) in the CSV file", text)
    return text


def _response_levels(formula: str, data: Any) -> tuple[str | None, list[Any]]:
    """The response column of ``formula`` and its observed levels in ``data`` (``(None, [])`` when
    the formula or the column cannot be read: the fitter then names the problem)."""
    from evstat.formula import response_name
    from evstat.formula.response import observed_levels

    try:
        col = response_name(formula)
    except (TypeError, ValueError):
        return None, []
    if col not in data.columns:
        return col, []
    return col, observed_levels(data[col].dropna())


def _check_methods(names: Sequence[str], column: str | None, levels: list[Any]) -> None:
    """Unknown names, repeats, and two-class models for a K-class response, each with the fix."""
    available = methods()
    unknown = [m for m in names if m not in available]
    if unknown:
        raise CommandError(f"unknown method {unknown[0]!r}; choose from {', '.join(available)}")
    if len(set(names)) != len(names):
        raise CommandError(f"--method lists a calibrator twice: {' '.join(names)}")
    if len(levels) > 2:
        k_class = methods(n_classes=len(levels))
        two = [m for m in names if m not in k_class]
        if two:
            shown = ", ".join(map(str, levels[:6])) + (", ..." if len(levels) > 6 else "")
            raise CommandError(
                f"--method {two[0]} calibrates two classes, but response {column!r} has {len(levels)} classes "
                f"({shown}); use a model for K classes: --method {' | '.join(k_class)} (several give a comparison)"
            )


#: the score columns of the K-class example tables for each kind a model declares
#: (``Capabilities.scores``; data/README.md, "Which columns for which model")
_EXAMPLE_PREFIX = {"any": "lr_", "logits": "logp_", "ovr": "svm_", "probabilities": "p_"}


def _example_formula(table: Any, name: str) -> str:
    """The default formula of model ``name`` on a K-class example table: the K - 1 log-ratios
    ``lr_`` for a model of any scores (evmultinom, matrix scaling, eknn, ...), the K
    log-probabilities ``logp_`` for temperature and vector scaling, the K one-vs-rest SVM scores
    ``svm_`` for ecoc and gebel_dirichlet, the K probabilities ``p_`` for dirichlet."""
    from evstat.results import registered

    prefix = _EXAMPLE_PREFIX[registered()[name].capabilities.scores]
    if not any(c.startswith(prefix) for c in table.columns):  # digits_logits: the logits for every model
        prefix = "logit_"
    return "y ~ " + " + ".join(c for c in table.columns if c.startswith(prefix))


def _report(args: argparse.Namespace) -> str:
    import evstat
    from evstat.report import report

    if args.reject_cost is not None and not 0.0 <= args.reject_cost <= 1.0:
        raise CommandError(f"--reject-cost must lie in [0, 1], got {args.reject_cost:g}")
    if args.bins is not None and args.bins < 1:
        raise CommandError(f"--bins must be a positive integer, got {args.bins}")
    if args.grid is not None and args.grid < 3:
        raise CommandError(f"--grid must be at least 3, got {args.grid}")
    if args.grid is not None and args.grid > MAX_GRID:
        raise CommandError(
            f"--grid {args.grid} is too large: the decision-region figure evaluates grid^2 = "
            f"{args.grid ** 2:,} points; use at most {MAX_GRID} (default 40 for two classes)"
        )
    sep = _separator(args.sep)
    if args.data == "-" and args.newdata == "-":
        raise CommandError("--data and --newdata cannot both read standard input ('-'): give a file for one of them")
    if args.disjoint_base != "evlogit" and "disjoint" not in (args.method or ()):
        raise CommandError(f"--disjoint-base {args.disjoint_base} applies to --method disjoint, which is not in --method")
    if args.pool is None and (args.queries != 10 or args.draws != 5):
        raise CommandError("--queries and --draws apply to --pool, which was not given")
    if args.queries < 1 or args.draws < 1:
        raise CommandError(f"--queries and --draws must be at least 1, got {args.queries} and {args.draws}")
    if args.pool == "-" and "-" in (args.data, args.newdata):
        raise CommandError("--pool and --data/--newdata cannot both read standard input ('-'): give a file for one of them")
    if args.method is not None:
        _check_methods(args.method, None, [])
    out = Path(args.output)
    from evstat.io.atomic import refuse_same_file

    refuse_same_file(out, {"--data": args.data, "--newdata": args.newdata, "--pool": args.pool})
    if out.parent != Path("") and not out.parent.is_dir():
        raise CommandError(f"cannot write {args.output!r}: folder {str(out.parent)!r} does not exist")

    provenance: dict[str, str] = {}
    seed = None
    table = None
    if args.example:
        table_name, script = _EXAMPLE_TABLES.get(args.example, (f"{args.example}_scores", "data/make_scores.py"))
        table = evstat.datasets.load(table_name)
        cal = table[table["set"] == "calibration"].reset_index(drop=True)
        test = table[table["set"] == "test"].reset_index(drop=True)
        formula = args.formula or (EXAMPLE_FORMULA if args.example not in K_EXAMPLES
                                   else _example_formula(table, "evmultinom"))
        if args.newdata:
            test = _read_csv(args.newdata, "--newdata", sep, args.encoding, formula)
        provenance["Data"] = (
            f"example score table {table_name} shipped with evstat ({table.shape[0]} rows x "
            f"{table.shape[1]} columns; calibration rows: set == 'calibration', test rows: "
            f"set == 'test'; made by {script})"
        )
        seed = 2019
        title = args.title or f"evstat calibration report: {args.example} example scores"
    else:
        if not args.data:
            raise CommandError("give the calibration data with --data CAL.csv, or use --example NAME")
        if not args.formula:
            raise CommandError("give a FORMULA such as \"y ~ svm1 + svm2\" (the response left of '~')")
        cal = _read_csv(args.data, "--data", sep, args.encoding, args.formula)
        test = _read_csv(args.newdata, "--newdata", sep, args.encoding, args.formula) if args.newdata else None
        formula = args.formula
        data_name = "standard input" if args.data == "-" else args.data
        provenance["Data"] = f"--data {data_name} ({cal.shape[0]} rows x {cal.shape[1]} columns)" + (
            f"; --newdata {'standard input' if args.newdata == '-' else args.newdata}" if args.newdata else ""
        )
        title = args.title
    column, levels = _response_levels(formula, cal)
    k_class = len(levels) > 2
    names = list(args.method) if args.method is not None else list(DEFAULT_METHODS[3 if k_class else 2])
    _check_methods(names, column, levels)
    if k_class and args.positive is not None:
        raise CommandError(
            f"--positive names the class coded 1 of a two-class response, but response {column!r} has "
            f"{len(levels)} classes: remove --positive"
        )
    # one formula for every model, but on a K-class example table without a FORMULA each model
    # gets the columns its declared kind of scores asks for
    formulas = {n: _example_formula(table, n) if table is not None and args.example in K_EXAMPLES
                and not args.formula else formula for n in names}
    from evstat.formula.response import level_from_text

    positive = level_from_text(args.positive, cal, formula)
    available = methods()
    fits = {}
    notes: list[str] = []
    for name in names:
        k = _n_scores(formulas[name], cal, positive, args.missing) if _single_score(name) else 1
        if k > 1:
            notes.append(_skip_message(name, formulas[name], k))
            continue
        why = _cannot_read(name, formulas[name], cal, len(levels), args.missing)
        if why is not None:
            if args.method is not None:  # asked for by name: an error
                raise CommandError(why)
            notes.append(f"--method {name} skipped (a default model, not asked for): {why}")
            continue
        fits[name] = _fit(name, available[name], formulas[name], cal, args.bins, positive, args.missing,
                          args.disjoint_base)
    if not fits:
        raise CommandError(notes[0].replace(" skipped:", ":", 1) + " (no other --method was given)")
    for note in notes:
        warnings.warn(note, UserWarning, stacklevel=1)
    if len(set(formulas.values())) > 1:
        provenance["Formulas"] = "; ".join(f"{n}: {f}" for n, f in formulas.items() if n in fits) + (
            " (the columns data/README.md gives for each model; pass a FORMULA to use one for all)"
        )
    argv = ["evstat", "report"] + ([repr(args.formula)] if args.formula else [])
    provenance["Command"] = " ".join(
        argv
        + ([f"--example {args.example}"] if args.example else [f"--data {args.data}"])
        + ([f"--newdata {args.newdata}"] if args.newdata else [])
        + ["--method " + " ".join(names)]
        + ([f"--bins {args.bins}"] if args.bins is not None else [])
        + ([f"--sep {args.sep!r}"] if args.sep != "," else [])
        + ([f"--encoding {args.encoding}"] if args.encoding != "utf-8" else [])
        + ([f"--missing {args.missing}"] if args.missing != "raise" else [])
        + ([f"--disjoint-base {args.disjoint_base}"] if args.disjoint_base != "evlogit" else [])
        + ([f"--pool {args.pool} --queries {args.queries} --draws {args.draws}"] if args.pool else [])
        + ([f"--reject-cost {args.reject_cost:g}"] if args.reject_cost is not None else [])
        + ([f"--date {args.date}"] if args.date else [])
        + [f"-o {out.name}"]
    )
    if seed is not None:
        provenance["Seed"] = "the example score tables were made with seed 2019"
    pool = _read_csv(args.pool, "--pool", sep, args.encoding, formula) if args.pool else None
    report(
        fits if len(fits) > 1 else next(iter(fits.values())), out, newdata=test, title=title,
        date=args.date, reject_cost=args.reject_cost, grid=args.grid,
        seed=None, provenance=provenance, notes=notes, pool=pool, queries=args.queries, draws=args.draws,
    )
    return str(out)


def _one_line(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    if isinstance(err, KeyError) and text.startswith("'") and text.endswith("'"):
        text = f"column {text} not found"
    from evstat.io.messages import one_line

    return one_line(_cli_advice(one_line(text)))


def _show_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
    print(f"evstat: warning: {' '.join(str(message).split())}", file=sys.stderr)


class Terminated(BaseException):
    """Raised in the main thread on SIGTERM (like ``KeyboardInterrupt`` on SIGINT), so that
    ``finally`` blocks run: unfinished outputs are removed (:mod:`evstat.io.atomic`) and worker
    processes stopped. A ``BaseException``: ``except Exception`` does not swallow it."""


#: exit status after a signal: 128 + the signal number, as shells report it
EXIT_SIGINT, EXIT_SIGTERM = 130, 143


def _raise_terminated(signum: int, frame: Any) -> NoReturn:
    raise Terminated()


def _interrupted(message: str, status: int, as_command: bool) -> int:
    """Report a signal in one line. Run as the command (``argv`` None), leave at once: the
    unfinished outputs are already removed and the workers stopped (their ``finally`` blocks ran),
    and a worker pool's threads or queues must not hold the exit up."""
    if message:
        print(message, file=sys.stderr)
    if as_command:
        import os

        if "multiprocessing" in sys.modules:  # release the stopped pool's semaphores (else the
            from multiprocessing import util  # resource tracker warns of "leaked" ones); the
            util._run_finalizers(0)  # type: ignore[attr-defined]  # private, not in typeshed; joins of priority < 0, which can block, are skipped
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``evstat`` command with ``argv`` (default ``sys.argv[1:]``); returns the exit status.

    Status 0 on success, 2 on a usage or input error (one line on stderr, no traceback), 130 on
    SIGINT (Ctrl-C) and 143 on SIGTERM (one line on stderr, no traceback; outputs not finished
    are not written: an existing output keeps its old content).

    Examples
    --------
    >>> import os, tempfile
    >>> out = os.path.join(tempfile.mkdtemp(), "r.html")
    >>> main(["report", "y ~ svm1", "--example", "sonar", "--grid", "10", "-o", out])  # doctest: +ELLIPSIS
    wrote .../r.html
    0
    """
    import signal
    import threading

    command = "evstat"
    in_main = threading.current_thread() is threading.main_thread()
    old_term = signal.signal(signal.SIGTERM, _raise_terminated) if in_main else None
    old_warn = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        parser = _build_parser(_command_of(words))
        try:
            args = parser.parse_args(words)
        except SystemExit as exc:  # --help, --version, usage errors (already printed)
            return int(exc.code or 0)
        if args.command is None:
            print(f"evstat: error: choose a command: {_or(_COMMAND_NAMES)} (see 'evstat --help')", file=sys.stderr)
            return 2
        command = f"evstat {args.command}"
        status = _run(args)
        if status == EXIT_SIGINT:  # a command that reported Ctrl-C itself (evstat reproduce)
            return _interrupted("", status, argv is None)
        return status
    except (MemoryError, RecursionError) as err:  # input too large or too deep for this machine
        print(f"{command}: error: {type(err).__name__}: {_one_line(err)}: the input is too large or too "
              "deeply nested for this machine", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return _interrupted(f"{command}: interrupted (SIGINT); outputs not finished were not written",
                            EXIT_SIGINT, argv is None)
    except Terminated:
        return _interrupted(f"{command}: terminated (SIGTERM); outputs not finished were not written",
                            EXIT_SIGTERM, argv is None)
    finally:
        warnings.showwarning = old_warn
        if in_main:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if old_term is None else old_term)


def _run(args: argparse.Namespace) -> int:
    """Dispatch a parsed command; returns its exit status."""
    if args.command == "reproduce":
        from evstat.experiments.cli import run_reproduce

        return run_reproduce(args)
    if args.command == "predict":
        from evstat.bulk import run_predict

        return run_predict(args)
    if args.command == "query":
        from evstat.active.cli import run_query

        return run_query(args)
    try:
        path = _report(args)
    except (CommandError, ValueError, TypeError, KeyError, FileNotFoundError, OSError) as err:
        print(f"evstat report: error: {_one_line(err)}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
