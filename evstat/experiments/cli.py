"""The ``evstat reproduce`` subcommand: run a paper's experiments and write their report.

::

    evstat reproduce minary2019 --rounds 100 --jobs 2 --out reports/minary2019
    evstat reproduce minary2019 --rounds 2 --datasets sonar heart --quiet --out /tmp/smoke

:func:`add_reproduce_parser` adds the subcommand to the ``evstat`` parser's subparsers and
:func:`run_reproduce` runs it. Bad options print one line on stderr and exit with status 2; an
interruption (Ctrl-C) exits with status 130 and the same command resumes the run.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

__all__ = ["STUDIES", "add_reproduce_parser", "main", "run_reproduce"]

STUDIES = ("minary2019", "ramel2018")
"""Studies ``evstat reproduce`` knows."""


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {v}")
    return v


def _jobs(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer or -1 (every core), got {text!r}") from None
    if v < 1 and v != -1:
        raise argparse.ArgumentTypeError(f"expected a positive integer or -1 (every core), got {v}")
    return v


def _seed(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {v}")
    return v


def add_reproduce_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``reproduce`` to an argparse subparsers object and return its parser.

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser(prog="evstat")
    >>> _ = add_reproduce_parser(p.add_subparsers(dest="command"))
    >>> a = p.parse_args(["reproduce", "minary2019", "--rounds", "2", "--out", "o"])
    >>> a.study, a.rounds, a.jobs, a.seed
    ('minary2019', 2, 1, 2019)
    """
    from evstat.experiments.minary2019 import DATASETS as _MINARY
    from evstat.experiments.ramel2018 import DATASETS as _RAMEL

    DATASETS = tuple(dict.fromkeys(_MINARY + _RAMEL))

    rep = subparsers.add_parser(
        "reproduce",
        help="reproduce a paper's experiments (CSV results and an HTML report)",
        description=(
            "Reproduce the experiments of a paper. minary2019: Minary, Pichon, Mercier, Lefevre\n"
            "and Droit (2019), 'Evidential joint calibration of binary SVM classifiers', section 5:\n"
            "ensembles of three SVMs on repeated random partitions (Table 2), error rates of the\n"
            "joint and disjoint evidential calibrations, GBT and EkNN (Figs. 4 and 6), and the\n"
            "reject option (Figs. 7-10). Writes error_rates.csv, reject_curves.csv, reject_015.csv,\n"
            "summary_error_rates.csv, claims.csv and report.html into --out. An interrupted run\n"
            "resumes from the CSV files when the same command is run again.\n"
            "ramel2018: Ramel, Pichon and Delmotte (2018), 'Active evidential calibration of binary\n"
            "SVM classifiers': Hartley, pignistic and random sampling (and evstat's expected\n"
            "ignorance reduction and greedy batches) on a binary-output classifier (Fig. 1, closed\n"
            "form and counts) and on three SVMs with joint evidential logistic calibration (Fig. 2).\n"
            "Writes exp1_*.csv, exp2_*.csv, claims.csv and settings.json into --out."
        ),
        epilog=(
            "Examples:\n"
            "  evstat reproduce minary2019 --rounds 100 --jobs 2 --out reports/minary2019\n"
            "  evstat reproduce minary2019 --rounds 2 --datasets sonar heart --quiet --out smoke\n"
            "  evstat reproduce ramel2018 --rounds 100 --jobs 2 --out reports/ramel2018"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rep.add_argument("study", choices=STUDIES, metavar="STUDY", help=f"the study: {', '.join(STUDIES)}")
    rep.add_argument("--rounds", type=_positive_int, default=100, metavar="R",
                     help="random partitions per data set (default 100, as the paper)")
    rep.add_argument("--datasets", nargs="+", choices=DATASETS, metavar="NAME", default=None,
                     help=f"data sets (default all): {', '.join(DATASETS)}")
    rep.add_argument("--seed", type=_seed, default=2019, metavar="S", help="root seed (default 2019, for every study)")
    rep.add_argument("--jobs", type=_jobs, default=1, metavar="N",
                     help="parallel worker processes, -1 for every core (default 1); results do not depend on it")
    rep.add_argument("--quiet", action="store_true", help="no progress bar")
    rep.add_argument("--no-report", action="store_true", help="write the CSV files only")
    rep.add_argument("--frontier-grid", type=_positive_int, default=81, metavar="G",
                     help="grid points per axis of Fig. 7 (default 81)")
    rep.add_argument("--out", required=True, metavar="DIR", help="output folder (created; reused to resume)")
    return rep


def _command(args: argparse.Namespace) -> str:
    parts = ["evstat", "reproduce", args.study, "--rounds", str(args.rounds)]
    if args.datasets:
        parts += ["--datasets", *args.datasets]
    parts += ["--seed", str(args.seed), "--jobs", str(args.jobs)]
    if args.frontier_grid != 81:
        parts += ["--frontier-grid", str(args.frontier_grid)]
    if args.quiet:
        parts.append("--quiet")
    if args.no_report:
        parts.append("--no-report")
    parts += ["--out", args.out]
    return " ".join(shlex.quote(p) for p in parts)


def run_reproduce(args: argparse.Namespace) -> int:
    """Run ``evstat reproduce`` with parsed arguments; returns the exit status (0, 2 or 130)."""
    from evstat.experiments.minary2019 import run_minary2019

    if args.study == "ramel2018":
        return _run_ramel2018(args)
    try:
        res = run_minary2019(
            args.out, rounds=args.rounds, datasets=args.datasets, seed=args.seed, jobs=args.jobs,
            quiet=args.quiet, report=not args.no_report, command=_command(args), frontier_grid=args.frontier_grid,
        )
    except KeyboardInterrupt:
        print(f"evstat reproduce: interrupted; run the same command again to resume from {args.out}",
              file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError) as err:
        print(f"evstat reproduce: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(f"{res.units_run} units computed in {res.seconds:.0f} s", file=sys.stderr)
    print(f"wrote {res.out}")
    return 0


def _run_ramel2018(args: argparse.Namespace) -> int:
    from evstat.experiments.ramel2018 import run_ramel2018

    parts = ["evstat", "reproduce", "ramel2018", "--rounds", str(args.rounds)]
    if args.datasets:
        parts += ["--datasets", *args.datasets]
    parts += ["--seed", str(args.seed), "--jobs", str(args.jobs)]
    if args.quiet:
        parts.append("--quiet")
    parts += ["--out", args.out]
    command = " ".join(shlex.quote(p) for p in parts)
    try:
        res = run_ramel2018(args.out, rounds=args.rounds, seed=args.seed, jobs=args.jobs,
                            datasets=args.datasets, quiet=args.quiet, command=command)
    except KeyboardInterrupt:
        print(f"evstat reproduce: interrupted; run the same command again to resume from {args.out}",
              file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError, ImportError) as err:
        print(f"evstat reproduce: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(f"{res['units_run']} units computed in {res['seconds']:.0f} s", file=sys.stderr)
    print(f"wrote {res['out']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``evstat reproduce`` on its own (``python -m evstat.experiments.cli minary2019 ...``).

    Examples
    --------
    >>> main(["minary2019", "--rounds", "0", "--out", "x"])
    2
    """

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> Any:
            self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")

    parser = _Parser(prog="evstat")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    add_reproduce_parser(sub)
    try:
        args = parser.parse_args(["reproduce", *(sys.argv[1:] if argv is None else argv)])
    except SystemExit as exc:
        return int(exc.code or 0)
    return run_reproduce(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
