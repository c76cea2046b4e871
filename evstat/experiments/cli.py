"""The ``evstat reproduce`` subcommand: run a paper's experiments and write their report.

::

    evstat reproduce minary2019 --rounds 100 --jobs 2 --svm default --out reports/minary2019/svm-default
    evstat reproduce minary2019 --rounds 2 --datasets sonar heart --quiet --out /tmp/smoke
    evstat reproduce credal-knn --runs 10 --out reports/credal-knn

:func:`add_reproduce_parser` adds the subcommand to the ``evstat`` parser's subparsers and
:func:`run_reproduce` runs it. Bad options print one line on stderr and exit with status 2; an
interruption (Ctrl-C) exits with status 130 and the same command resumes the run.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from typing import Any

from evstat.io.messages import one_line

__all__ = ["STUDIES", "add_reproduce_parser", "main", "run_reproduce"]

STUDIES = ("minary2019", "ramel2018", "credal-knn", "peers", "gebel2009", "evmultinom")
"""Studies ``evstat reproduce`` knows."""


def _bounded_int(what: str, ok: Callable[[int], bool]) -> Callable[[str], int]:
    """An argparse type: a whole number for which ``ok`` holds (the message names ``what``)."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not ok(v):
            raise argparse.ArgumentTypeError(f"expected {what}, got {v}")
        return v

    return parse


_positive_int = _bounded_int("a positive integer", lambda v: v >= 1)
_nonnegative_int = _seed = _bounded_int("a non-negative integer", lambda v: v >= 0)
_jobs = _bounded_int("a positive integer or -1 (every core)", lambda v: v >= 1 or v == -1)


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

    from evstat.experiments.credal_knn import K_GRID, REAL_DATASETS

    from evstat.experiments.gebel2009 import DATASETS as _GEBEL

    from evstat.experiments.evmultinom import DATASETS as _EVMN

    DATASETS = tuple(dict.fromkeys(_MINARY + _RAMEL + REAL_DATASETS + _GEBEL + _EVMN))

    rep = subparsers.add_parser(
        "reproduce",
        help="reproduce a paper's experiments (CSV results and an HTML report); needs "
             "pip install \"evstat[experiments]\"",
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
            "Writes exp1_*.csv, exp2_*.csv, claims.csv and settings.json into --out.\n"
            "credal-knn: Liu, Pan and Dezert, 'Evidential classifier for imprecise data based on\n"
            "belief functions' (EC, Test 1.2, Simulation 2, real data with 2-fold CV) and the\n"
            "examples of Denoeux's lecture (EkNN, evidential neural network, partially supervised\n"
            "EkNN). Writes CSV files, figures (PNG) and claims.csv into --out.\n"
            "gebel2009: Gebel (2009), 'Multivariate calibration of classifier scores into the\n"
            "probability space', Tables 6.3-6.6 (two classes) and 6.10-6.13 (K classes): CR and Cal of\n"
            "the uni- and multivariate calibrators by --folds-fold cross-validation, beside the thesis's\n"
            "numbers. Writes results.csv, table.csv, comparison.csv, claims.csv, study.json into --out.\n"
            "peers: evidential joint logistic calibration against Venn-ABERS (inductive, cross) and a\n"
            "split-conformal classifier on simulated data with a known P(y = 1 | s) (--reps per cell)\n"
            "and on the real data sets with the Minary protocol (--rounds per data set); needs\n"
            "pip install \"evstat[peers]\" too. Writes CSV files, figures and study.json into --out.\n"
            "evmultinom: the reject study of Minary et al. (2019), section 5.4, carried to K classes (issue 16):\n"
            "three SVMs with probability outputs, joint calibration sets of 15, 45 and 200 rows on Iris, Wine,\n"
            "Glass, Vehicle and Segment; evidential multinomial calibration against Dirichlet calibration,\n"
            "temperature scaling, EkNN and the credal K-NN (--rounds per data set). Writes error_rates.csv,\n"
            "reject_curves.csv, tables.md, curve figures and study.json into --out.\n"
            "Needs the experiments extra (scikit-learn, joblib), which 'pip install .' does not\n"
            "install: pip install \"evstat[experiments]\" (or pip install \".[experiments]\")."
        ),
        epilog=(
            "Examples:\n"
            "  evstat reproduce minary2019 --rounds 100 --jobs 2 --svm default --out reports/minary2019/svm-default\n"
            "  evstat reproduce minary2019 --rounds 100 --jobs 2 --svm tuned --out reports/minary2019/svm-tuned\n"
            "  evstat reproduce minary2019 --rounds 2 --datasets sonar heart --quiet --out smoke\n"
            "  evstat reproduce ramel2018 --rounds 100 --jobs 2 --out reports/ramel2018\n"
            "  evstat reproduce credal-knn --runs 10 --out reports/credal-knn\n"
            "  evstat reproduce peers --reps 100 --rounds 100 --jobs 2 --out reports/peers\n"
            "  evstat reproduce gebel2009 --folds 10 --jobs 2 --out reports/gebel2009\n"
            "  evstat reproduce evmultinom --rounds 10 --jobs 2 --out reports/evmultinom"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rep.add_argument("study", choices=STUDIES, metavar="STUDY", help=f"the study: {', '.join(STUDIES)}")
    rep.add_argument("--rounds", type=_positive_int, default=100, metavar="R",
                     help="random partitions per data set (default 100, as the paper)")
    rep.add_argument("--datasets", nargs="+", choices=DATASETS, metavar="NAME", default=None,
                     help=f"data sets (default all): {', '.join(DATASETS)}")
    rep.add_argument("--runs", type=_positive_int, default=10, metavar="R",
                     help="credal-knn: Monte-Carlo runs of Simulation 2 and repetitions of the 2-fold "
                          "cross-validation (default 10, as the paper's Monte-Carlo runs)")
    rep.add_argument("--k-grid", type=_positive_int, nargs="+", default=list(K_GRID), metavar="K",
                     help=f"credal-knn: K of Simulation 2 (default {' '.join(map(str, K_GRID))})")
    rep.add_argument("--no-lecture", action="store_true",
                     help="credal-knn: skip the examples of Denoeux's lecture (EkNN, evidential NN, partial EkNN)")
    rep.add_argument("--folds", type=_positive_int, default=10, metavar="F",
                     help="gebel2009: outer cross-validation folds (default 10, as the thesis)")
    rep.add_argument("--parts", nargs="+", choices=("two-class", "K-class"), default=["two-class", "K-class"],
                     metavar="PART", help="gebel2009: two-class (Tables 6.3-6.6) and/or K-class (6.10-6.13) (default both)")
    rep.add_argument("--reps", type=_nonnegative_int, default=100, metavar="R",
                     help="peers: repetitions per simulated cell (default 100; 0 skips the simulated part)")
    rep.add_argument("--sizes", type=_positive_int, nargs="+", default=None, metavar="N",
                     help="peers: calibration sizes of the simulated part (default 15 45 200 1000)")
    rep.add_argument("--our-rounds", type=_nonnegative_int, default=None, metavar="K",
                     help="ramel2018: run our strategies (EIR, HS-batch5) on the first K rounds only "
                          "(default: every round); the paper's RS, HS, PS run on all --rounds")
    rep.add_argument("--n-test", type=_positive_int, default=100, metavar="N",
                     help="peers: test rows per simulated repetition (default 100)")
    rep.add_argument("--seed", type=_seed, default=2019, metavar="S", help="root seed (default 2019, for every study)")
    rep.add_argument("--jobs", type=_jobs, default=1, metavar="N",
                     help="parallel worker processes, -1 for every core (default 1); results do not depend on it")
    rep.add_argument("--scheduler", default=None, metavar="ADDRESS",
                     help="run the units on the Dask cluster of this scheduler (joblib's dask backend; "
                          "same CSV files as a local run)")
    rep.add_argument("--quiet", action="store_true", help="no progress bar")
    rep.add_argument("--no-report", action="store_true", help="write the CSV files only")
    rep.add_argument("--frontier-grid", type=_positive_int, default=81, metavar="G",
                     help="grid points per axis of Fig. 7 (default 81)")
    rep.add_argument("--svm", choices=("default", "tuned"), default="default",
                     help="minary2019: SVM hyper-parameters: default = C 1, gamma 'scale'; tuned = C and gamma by "
                          "cross-validation on each SVM's training rows over LIBSVM grid.py's grid (default: default)")
    rep.add_argument("--tie", choices=("random", "first"), default="random",
                     help="minary2019: tie policy of every method's decisions without reject: random (from the round's seed) "
                          "or first (class 0) (default: random)")
    rep.add_argument("--out", required=True, metavar="DIR", help="output folder (created; reused to resume)")
    rep.add_argument("--wait", action="store_true",
                     help="if another run is writing --out, wait for it to end (default: refuse at once)")
    return rep


def _command(args: argparse.Namespace) -> str:
    parts = ["evstat", "reproduce", args.study, "--rounds", str(args.rounds)]
    if args.datasets:
        parts += ["--datasets", *args.datasets]
    parts += ["--seed", str(args.seed), "--jobs", str(args.jobs), "--svm", args.svm]
    if args.tie != "random":
        parts += ["--tie", args.tie]
    if args.frontier_grid != 81:
        parts += ["--frontier-grid", str(args.frontier_grid)]
    if args.quiet:
        parts.append("--quiet")
    if args.no_report:
        parts.append("--no-report")
    parts += ["--out", args.out]
    return " ".join(shlex.quote(p) for p in parts)


#: what ``evstat reproduce`` needs beyond ``pip install evstat``: import name -> package name
EXTRAS = {"sklearn": "scikit-learn", "joblib": "joblib"}


def missing_extras() -> list[str]:
    """The packages of the ``experiments`` extra that cannot be imported (package names).

    Examples
    --------
    >>> isinstance(missing_extras(), list)
    True
    """
    import importlib

    missing = []
    for module, package in EXTRAS.items():
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(package)
    return missing


def run_reproduce(args: argparse.Namespace) -> int:
    """Run ``evstat reproduce`` with parsed arguments; returns the exit status (0, 2 or 130).

    With ``--scheduler ADDRESS`` the study's joblib loops run on that Dask cluster (joblib's
    ``dask`` backend, at least two jobs); units are seeded by their index, so the CSV files are
    the same as a local run's."""
    missing = missing_extras()
    if missing:
        print(
            f"evstat reproduce: error: needs {' and '.join(missing)}, which 'pip install evstat' does not "
            'install: run pip install "evstat[experiments]" (or pip install ".[experiments]" in a checkout)',
            file=sys.stderr,
        )
        return 2
    scheduler = getattr(args, "scheduler", None)
    if scheduler is not None:
        import joblib

        try:
            from distributed import Client
        except ImportError:
            print('evstat reproduce: error: --scheduler needs the dask extra: pip install "evstat[dask]"', file=sys.stderr)
            return 2

        try:
            client = Client(scheduler)
        except (OSError, ValueError, TimeoutError) as err:
            print(f"evstat reproduce: error: cannot reach the Dask scheduler {scheduler!r}: {err}", file=sys.stderr)
            return 2
        local = argparse.Namespace(**{**vars(args), "scheduler": None, "on_dask": True,
                                      "jobs": max(args.jobs, 2) if args.jobs != -1 else -1})
        try:
            with joblib.parallel_config(backend="dask"):
                return run_reproduce(local)
        finally:
            client.close()
    if not getattr(args, "on_dask", False):  # local workers: at most one per processor
        from evstat.io.workers import cap_jobs

        jobs, note = cap_jobs(args.jobs)
        if note is not None:
            print(f"evstat: warning: {note}", file=sys.stderr)
            args = argparse.Namespace(**{**vars(args), "jobs": jobs})
    from evstat.experiments.store import study_folder

    def say(text: str) -> None:
        print(f"evstat reproduce: note: {' '.join(text.split())}", file=sys.stderr)

    # one writer per folder, no link followed, no special file opened (issue 41); the study's own
    # function takes the same folder again (a process holds its lock once)
    try:
        with study_folder(args.out, wait=getattr(args, "wait", False), note=say):
            return _dispatch(args)
    except OSError as err:  # the folder: busy, a link or a special file in it, not a folder
        print(f"evstat reproduce: error: {one_line(err)}", file=sys.stderr)
        return 2


def _dispatch(args: argparse.Namespace) -> int:
    from evstat.experiments.minary2019 import run_minary2019

    if args.study == "ramel2018":
        return _run_ramel2018(args)
    if args.study == "credal-knn":
        return _run_credal_knn(args)
    if args.study == "gebel2009":
        return _run_gebel2009(args)
    if args.study == "peers":
        return _run_peers(args)
    if args.study == "evmultinom":
        return _run_evmultinom(args)
    return _run_study(
        lambda: run_minary2019(
            args.out, rounds=args.rounds, datasets=args.datasets, seed=args.seed, jobs=args.jobs,
            quiet=args.quiet, report=not args.no_report, command=_command(args), frontier_grid=args.frontier_grid,
            svm=args.svm, tie=args.tie,
        ),
        f"evstat reproduce: interrupted; run the same command again to resume from {args.out}",
        lambda res: f"{res.units_run} units computed in {res.seconds:.0f} s",
        lambda res: res.out,
        args.quiet,
    )


def _run_ramel2018(args: argparse.Namespace) -> int:
    from evstat.experiments.ramel2018 import run_ramel2018

    parts = ["evstat", "reproduce", "ramel2018", "--rounds", str(args.rounds)]
    if args.datasets:
        parts += ["--datasets", *args.datasets]
    if args.our_rounds is not None:
        parts += ["--our-rounds", str(args.our_rounds)]
    parts += ["--seed", str(args.seed), "--jobs", str(args.jobs)]
    if args.quiet:
        parts.append("--quiet")
    if args.no_report:
        parts.append("--no-report")
    parts += ["--out", args.out]
    command = " ".join(shlex.quote(p) for p in parts)
    return _run_study(
        lambda: run_ramel2018(args.out, rounds=args.rounds, seed=args.seed, jobs=args.jobs,
                            datasets=args.datasets, quiet=args.quiet, command=command,
                            our_rounds=args.our_rounds, report=not args.no_report),
        f"evstat reproduce: interrupted; run the same command again to resume from {args.out}",
        lambda res: f"{res['units_run']} units computed in {res['seconds']:.0f} s",
        lambda res: res['out'],
        args.quiet,
        errors=(ValueError, TypeError, OSError, ImportError),
    )


def _run_gebel2009(args: argparse.Namespace) -> int:
    from evstat.experiments.gebel2009 import DATASETS, run_gebel2009

    wrong = [d for d in (args.datasets or []) if d not in DATASETS]
    if wrong:
        print(f"evstat reproduce: error: gebel2009 has no data set {wrong}; choose from {', '.join(DATASETS)}",
              file=sys.stderr)
        return 2
    if args.folds < 2:
        print("evstat reproduce: error: --folds must be at least 2", file=sys.stderr)
        return 2
    parts = ["evstat", "reproduce", "gebel2009", "--folds", str(args.folds), "--parts", *args.parts]
    if args.datasets:
        parts += ["--datasets", *args.datasets]
    parts += ["--seed", str(args.seed), "--jobs", str(args.jobs)]
    if args.quiet:
        parts.append("--quiet")
    parts += ["--out", args.out]
    return _run_study(
        lambda: run_gebel2009(args.out, folds=args.folds, seed=args.seed, jobs=args.jobs, parts=tuple(args.parts),
                            datasets=args.datasets, quiet=args.quiet, command=" ".join(shlex.quote(p) for p in parts)),
        f"evstat reproduce: interrupted; the tables in {args.out} hold the data sets finished so far",
        lambda res: f"{res.units} units computed in {res.seconds:.0f} s",
        lambda res: res.out,
        args.quiet,
    )


def _run_credal_knn(args: argparse.Namespace) -> int:
    from evstat.experiments.credal_knn import REAL_DATASETS, run_credal_knn

    wrong = [d for d in (args.datasets or []) if d not in REAL_DATASETS]
    if wrong:
        print(f"evstat reproduce: error: credal-knn has no data set {wrong}; choose from "
              f"{', '.join(REAL_DATASETS)}", file=sys.stderr)
        return 2
    parts = ["evstat", "reproduce", "credal-knn", "--runs", str(args.runs)]
    if args.datasets:
        parts += ["--datasets", *args.datasets]
    parts += ["--seed", str(args.seed), "--k-grid", *map(str, args.k_grid)]
    if args.no_lecture:
        parts.append("--no-lecture")
    if args.quiet:
        parts.append("--quiet")
    parts += ["--out", args.out]
    return _run_study(
        lambda: run_credal_knn(
            args.out, runs=args.runs, seed=args.seed, k_grid=tuple(args.k_grid),
            datasets=tuple(args.datasets or REAL_DATASETS), lecture=not args.no_lecture,
            quiet=args.quiet, command=" ".join(shlex.quote(p) for p in parts),
        ),
        "evstat reproduce: interrupted; run the same command again to start over",
        lambda res: f"done in {res.seconds:.0f} s",
        lambda res: res.out,
        args.quiet,
    )


def _run_peers(args: argparse.Namespace) -> int:
    import importlib

    from evstat.experiments.peers import N_CALS, REAL_DATASETS, run_peers

    for module, package in (("venn_abers", "venn-abers"), ("crepes", "crepes")):
        try:
            importlib.import_module(module)
        except ImportError:
            print(f'evstat reproduce: error: peers needs {package}: pip install "evstat[peers]"', file=sys.stderr)
            return 2
    wrong = [d for d in (args.datasets or []) if d not in REAL_DATASETS]
    if wrong:
        print(f"evstat reproduce: error: peers has no data set {wrong}; choose from {', '.join(REAL_DATASETS)}",
              file=sys.stderr)
        return 2
    sizes = tuple(args.sizes or N_CALS)
    if min(sizes) < 10:
        print("evstat reproduce: error: --sizes must be at least 10 rows", file=sys.stderr)
        return 2
    parts = ["evstat", "reproduce", "peers", "--reps", str(args.reps), "--rounds", str(args.rounds)]
    if args.sizes:
        parts += ["--sizes", *map(str, sizes)]
    if args.datasets:
        parts += ["--datasets", *args.datasets]
    parts += ["--n-test", str(args.n_test), "--seed", str(args.seed), "--jobs", str(args.jobs)]
    if args.quiet:
        parts.append("--quiet")
    parts += ["--out", args.out]
    return _run_study(
        lambda: run_peers(args.out, reps=args.reps, rounds=args.rounds, seed=args.seed, n_cals=sizes,
                        datasets=tuple(args.datasets or REAL_DATASETS), n_test=args.n_test, jobs=args.jobs,
                        quiet=args.quiet, command=" ".join(shlex.quote(p) for p in parts)),
        "evstat reproduce: interrupted; run the same command again to start over",
        lambda res: f"done in {res.seconds:.0f} s",
        lambda res: res.out,
        args.quiet,
    )



def _run_evmultinom(args: argparse.Namespace) -> int:
    from evstat.experiments.evmultinom import DATASETS, run_evmultinom

    wrong = [d for d in (args.datasets or []) if d not in DATASETS]
    if wrong:
        print(f"evstat reproduce: error: evmultinom has no data set {wrong}; choose from {', '.join(DATASETS)}",
              file=sys.stderr)
        return 2
    parts = ["evstat", "reproduce", "evmultinom", "--rounds", str(args.rounds)]
    if args.datasets:
        parts += ["--datasets", *args.datasets]
    parts += ["--seed", str(args.seed), "--jobs", str(args.jobs)]
    if args.quiet:
        parts.append("--quiet")
    parts += ["--out", args.out]
    return _run_study(
        lambda: run_evmultinom(args.out, rounds=args.rounds, seed=args.seed, jobs=args.jobs, datasets=args.datasets,
                               quiet=args.quiet, command=" ".join(shlex.quote(p) for p in parts)),
        "evstat reproduce: interrupted; run the same command again to start over",
        lambda res: f"{res.units} units computed in {res.seconds:.0f} s",
        lambda res: res.out,
        args.quiet,
    )


def _run_study(run: Any, interrupted: str, done: Any, out: Any, quiet: bool,
               errors: tuple[type[BaseException], ...] = (ValueError, TypeError, OSError)) -> int:
    """Run a study for ``evstat reproduce``: status 130 with ``interrupted`` on Ctrl-C, status 2 with
    the error's one line on ``errors``; otherwise print ``done(res)`` (unless ``quiet``) and
    ``wrote out(res)``, status 0."""
    try:
        res = run()
    except KeyboardInterrupt:
        print(interrupted, file=sys.stderr)
        return 130
    except errors as err:
        print(f"evstat reproduce: error: {one_line(err)}", file=sys.stderr)
        return 2
    if not quiet:
        print(done(res), file=sys.stderr)
    print(f"wrote {out(res)}")
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
