"""The ``evstat query`` subcommand: which pool rows to label next.

::

    evstat query "y ~ svm1 + svm2 + svm3" --data labelled.csv --pool pool.csv -n 10 \\
        --strategy hartley -o to_label.csv

fits the calibrator on the labelled rows, ranks the pool rows by the strategy
(:func:`evstat.active.query`) and writes the chosen rows (all their columns, their 0-based row
number in the pool file as ``pool_row``, and their current ``bel``, ``pl``, ``ignorance``,
``betp``, the ``criterion`` and the ``rank``). A person labels them, appends them to the labelled
file, removes them from the pool, and runs the command again. With a K-level response and a
K-class model the columns are ``bel_<class>``, ``pl_<class>``, ``betp_<class>`` and the
generalised Hartley measure as ``ignorance`` (:func:`evstat.active.query`, "K >= 3 classes").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from evstat.io.messages import one_line

__all__ = ["add_query_parser", "run_query"]


def add_query_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``query`` to an argparse subparsers object and return its parser.

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser(prog="evstat")
    >>> _ = add_query_parser(p.add_subparsers(dest="command"))
    >>> a = p.parse_args(["query", "y ~ s", "--data", "a.csv", "--pool", "b.csv", "-o", "c.csv"])
    >>> a.n, a.strategy, a.method, a.seed
    (1, 'hartley', 'evlogit', 0)
    """
    from evstat.active._query import STRATEGIES

    q = subparsers.add_parser(
        "query",
        help="the unlabelled rows to label next (active evidential calibration)",
        description=(
            "Fit a calibrator on the labelled rows and choose the pool rows whose labels would\n"
            "help most (Ramel, Pichon and Delmotte 2018): hartley = largest ignorance Pl - Bel,\n"
            "pignistic = largest entropy of BetP, random, eir = largest expected fall of the\n"
            "pool's mean ignorance. Writes the chosen rows with their Bel, Pl and ignorance.\n"
            "A K-level response works with the K-class models (--method eknn, credal_knn, ...):\n"
            "hartley ranks by the generalised Hartley measure of the rows' mass functions,\n"
            "pignistic by the entropy of BetP; n > 1 rows need --batch top (no refits)."
        ),
        epilog=(
            "Example:\n"
            "  evstat query \"y ~ svm1 + svm2 + svm3\" --data labelled.csv --pool pool.csv -n 10 "
            "--strategy hartley -o to_label.csv"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    q.add_argument("formula", metavar="FORMULA", help="R-style formula, e.g. \"y ~ svm1 + svm2 + svm3\"")
    q.add_argument("--data", required=True, metavar="LABELLED.csv", help="CSV of labelled rows (response and scores)")
    q.add_argument("--pool", required=True, metavar="POOL.csv", help="CSV of unlabelled rows (the score columns)")
    q.add_argument("-n", type=int, default=1, metavar="N", help="rows to return (default 1)")
    q.add_argument("--strategy", choices=list(STRATEGIES), default="hartley", metavar="S",
                   help=f"query strategy: {', '.join(STRATEGIES)} (default hartley)")
    q.add_argument("--batch", choices=["greedy", "top"], default="greedy",
                   help="how n > 1 rows are chosen: greedy with refits on expected labels (default), or top n")
    q.add_argument("--method", default="evlogit", metavar="M",
                   help="the model, any registered one by name (default evlogit; 'evstat report --help' lists "
                        "them); greedy batches and eir refit it, which the models that declare refit support "
                        "(evlogit, evbinning, isotonic, betacal), others need --batch top")
    q.add_argument("--bins", type=int, default=None, metavar="B", help="bins per axis of evbinning (default 3)")
    q.add_argument("--positive", default=None, metavar="LEVEL", help="response level coded 1")
    q.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the tie-breaking and random draws (default 0)")
    q.add_argument("-o", "--output", required=True, metavar="TO_LABEL.csv", help="CSV file to write")
    return q


def _read(path: str, what: str) -> Any:
    """The shared reader of the command line (:func:`evstat.io.tables.read_table`)."""
    from evstat.io.tables import read_table

    return read_table(path, what)


def _fit(method: str, formula: str, data: Any, kwargs: dict[str, Any], bins: int | None) -> Any:
    """Fit the registered model ``method`` by name (the registry is the list of models)."""
    import inspect

    from evstat.results import fitter

    fn = fitter(method)
    if bins is not None:
        if "bins" not in inspect.signature(fn).parameters:
            raise ValueError(f"--bins applies to evbinning, not to --method {method}")
        kwargs["bins"] = bins
    return fn(formula, data, **kwargs)


def run_query(args: argparse.Namespace) -> int:
    """Run ``evstat query`` with parsed arguments; returns the exit status (0 or 2)."""
    from evstat.active._query import query
    from evstat.formula.response import level_from_text

    from evstat.io.atomic import atomic_path, refuse_same_file

    try:
        refuse_same_file(args.output, {"--data": args.data, "--pool": args.pool})
        data = _read(args.data, "--data")
        pool = _read(args.pool, "--pool")
        pool.index.name = "pool_row"
        kwargs: dict[str, Any] = {}
        pos = level_from_text(args.positive, data, args.formula)
        if pos is not None:
            kwargs["positive"] = pos
        fit = _fit(args.method, args.formula, data, kwargs, args.bins)
        chosen = query(fit, pool, n=args.n, strategy=args.strategy, seed=args.seed, batch=args.batch)
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(args.output) as tmp:
            chosen.to_csv(tmp, index=True, float_format="%.10g")
    except (ValueError, TypeError, KeyError, OSError) as err:
        print(f"evstat query: error: {one_line(err)}", file=sys.stderr)
        return 2
    print(f"wrote {args.output} ({len(chosen)} row{'s' if len(chosen) != 1 else ''} to label)")
    return 0
