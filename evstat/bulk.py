"""``evstat predict``: predictions of a saved model for files larger than memory.

The input (CSV or Parquet) is read in chunks of ``--chunksize`` rows; each chunk is predicted
(``fit.predict(chunk, type=...)`` or ``fit.decide(chunk, ...)``) on a local pool of worker
processes (``--jobs``, default every core), or on a Dask cluster when ``--scheduler ADDRESS``
is given; results are written in the input's row order, chunk by chunk, to CSV or Parquet
(chosen by the output's suffix), with a progress bar over rows (``--quiet`` silences it; the
chunks themselves are predicted without bars of their own, also in the worker processes). Peak
memory is a few chunks per worker, whatever the file's size. The model travels to the workers as
its JSON description (``evstat.load`` on each worker), never as a pickle file.

Output columns: ``theta`` (``--type prob``), ``theta, bel, pl`` (``--type belief``) or
``decision`` (``--type decision``), plus the input columns named by ``--keep``; every input row
gives one output row, in order. A model of K >= 3 classes gives one column per class with flat
names, ``theta_<class>`` (``--type prob``) and ``theta_<class>, ..., bel_<class>, ...,
pl_<class>, ...`` (``--type belief``): one header row, in CSV and Parquet alike (the Python
API's two-level ``(stat, class)`` columns would need two header rows).

A model signed with ``fit.save(path, key=...)`` is checked with ``--key-file FILE`` (the secret's
bytes, one trailing line break ignored) or ``--key KEY``: an unsigned, forged or edited file is
refused before anything of it is used (``evstat.load(path, key=...)``), with one line and exit
status 2. ``--key`` puts the secret on the command line, where other users of the machine can
see it (``ps``) and the shell history keeps it: prefer ``--key-file``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd

from evstat.io.messages import one_line

__all__ = ["add_predict_parser", "predict_file", "read_key", "run_predict"]

_TYPES = ("prob", "belief", "decision")
_WORKER_FIT: Any = None


def add_predict_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``predict`` to an argparse subparsers object and return its parser.

    Examples
    --------
    >>> p = argparse.ArgumentParser(prog="evstat")
    >>> _ = add_predict_parser(p.add_subparsers(dest="command"))
    >>> a = p.parse_args(["predict", "fit.json", "--data", "x.parquet", "-o", "out.csv", "--type", "belief"])
    >>> a.model, a.type, a.chunksize, a.scheduler
    ('fit.json', 'belief', 100000, None)
    """
    pr = subparsers.add_parser(
        "predict",
        help="predict for a large CSV/Parquet file with a saved model (chunked, parallel, Dask)",
        description=(
            "Predict with a model saved by fit.save(path) for every row of a CSV or Parquet file,\n"
            "chunk by chunk, on a local process pool or a Dask cluster, writing CSV or Parquet\n"
            "(by the output's suffix) in the input's row order."
        ),
        epilog=(
            "Examples:\n"
            "  evstat predict fit.json --data scores.parquet -o out.parquet --type belief\n"
            "  evstat predict fit.json --data scores.csv -o out.csv --type decision --reject-cost 0.15\n"
            "  evstat predict fit.json --data scores.parquet -o out.parquet --scheduler tcp://host:8786\n"
            "  evstat predict signed.json --key-file secret.txt --data scores.csv -o out.csv"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pr.add_argument("model", metavar="MODEL.json", help="a model saved with fit.save(path)")
    pr.add_argument("--data", required=True, metavar="FILE",
                    help="input rows: .parquet, or CSV with the score columns ('-' reads CSV from standard input)")
    pr.add_argument("-o", "--output", required=True, metavar="FILE", help="output: .csv or .parquet")
    pr.add_argument("--type", choices=_TYPES, default="prob",
                    help="prob (theta), belief (theta, bel, pl) or decision; for K >= 3 classes one column per "
                         "class, theta_<class> (prob) and theta_<class>, bel_<class>, pl_<class> (belief)")
    pr.add_argument("--strategy", default=None,
                    help="decision strategy (--type decision; default: the model's own, pessimistic for the "
                         "two-class calibrators)")
    pr.add_argument("--reject-cost", type=float, default=None, metavar="C", help="reject cost of the decisions (default: none)")
    pr.add_argument("--keep", nargs="+", default=(), metavar="COL", help="input columns copied to the output (ids)")
    pr.add_argument("--chunksize", type=int, default=100_000, metavar="N", help="rows per chunk (default 100000)")
    pr.add_argument("--jobs", type=int, default=-1, metavar="N", help="local worker processes, -1 for every core (default)")
    pr.add_argument("--scheduler", default=None, metavar="ADDRESS", help="run on the Dask cluster of this scheduler")
    pr.add_argument("--sep", default=",", metavar="SEP", help="column separator of a CSV input (default ','; 'tab' for a tab)")
    pr.add_argument("--encoding", default="utf-8", metavar="ENC",
                    help="text encoding of a CSV input (default utf-8; e.g. latin-1 or cp1252)")
    pr.add_argument("--quiet", action="store_true", help="no progress bar")
    signed = pr.add_mutually_exclusive_group()
    signed.add_argument("--key-file", default=None, metavar="FILE",
                        help="a file holding the secret the model was signed with (fit.save(path, key=...)); "
                             "an unsigned or forged model is refused")
    signed.add_argument("--key", default=None, metavar="KEY",
                        help="the secret itself (visible to other users in the process list: prefer --key-file)")
    return pr


def read_key(key: str | None = None, key_file: str | os.PathLike[str] | None = None) -> str | bytes | None:
    """The signing secret of ``--key`` or ``--key-file`` (``None`` when neither is given).

    A key file holds the secret's bytes; one trailing line break (``\\n`` or ``\\r\\n``, as an
    editor or ``echo`` adds) is not part of it. An empty secret, or one shorter than 16 bytes
    (:func:`evstat.io.integrity.check_key`), is refused, naming the option.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "secret.txt")
    >>> _ = open(p, "w").write("a secret shared by the two labs\\n")
    >>> read_key(key_file=p)
    b'a secret shared by the two labs'
    >>> read_key(key="a secret shared by the two labs"), read_key() is None
    ('a secret shared by the two labs', True)
    >>> read_key(key="s3cret")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.io.integrity.WeakKeyError: --key is 6 bytes long: a signing key must hold at least 16 bytes ...
    """
    from evstat.io.integrity import check_key

    if key_file is not None:
        try:
            raw = Path(key_file).read_bytes()
        except OSError as err:
            raise ValueError(f"cannot read --key-file {os.fspath(key_file)!r}: {err.strerror or err}") from None
        secret = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1] if raw.endswith(b"\n") else raw
        if not secret:
            raise ValueError(f"--key-file {os.fspath(key_file)!r} is empty: it must hold the secret the model was signed with")
        check_key(secret, f"the secret in --key-file {os.fspath(key_file)!r}")
        return secret
    if key is not None and not key:
        raise ValueError("--key is empty: give the secret the model was signed with")
    if key is not None:
        check_key(key, "--key")
    return key


class _Writer:
    """Chunks to one CSV or Parquet file (by ``suffix``); ``path`` is the temporary file of
    :func:`evstat.io.atomic.atomic_path`, renamed over the output only when every chunk is in."""

    def __init__(self, path: Path, suffix: str) -> None:
        self.path, self.suffix, self.first = path, suffix, True
        self.pq: Any = None  # pyarrow.parquet.ParquetWriter, opened on the first Parquet chunk

    def write(self, frame: pd.DataFrame) -> None:
        if self.suffix == ".csv":
            frame.to_csv(self.path, mode="w" if self.first else "a", header=self.first, index=False)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.Table.from_pandas(frame, preserve_index=False)
            if self.pq is None:
                self.pq = pq.ParquetWriter(self.path, table.schema)
            self.pq.write_table(table)
        self.first = False

    def close(self) -> None:
        if self.pq is not None:
            self.pq.close()
        elif self.first:  # no rows at all: still write the (empty) file
            pd.DataFrame().to_csv(self.path, index=False)


def _output_suffix(output: Path) -> str:
    suffix = output.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise ValueError(f"-o {str(output)!r}: use a .csv or .parquet file")
    return suffix


def _init_worker(
    description: dict[str, Any], parent_pid: int | None = None, config: dict[str, Any] | None = None
) -> None:
    """A process-pool worker: dies with its parent, leaves Ctrl-C to it, takes the parent's
    evstat settings (a new process starts from the defaults; the compiled kernels serial,
    ``kernel_threads=1``) and rebuilds the model from its JSON
    description (nothing is re-estimated)."""
    global _WORKER_FIT
    from evstat._config import set_config
    from evstat.io.workers import die_with_parent, ignore_sigint
    from evstat.results import from_dict

    if parent_pid is not None:  # the worker ends when the parent does, even on SIGKILL
        die_with_parent(parent_pid)
    ignore_sigint()  # Ctrl-C: the parent reports it and stops the workers
    # the processes already use the cores: the kernels run serially in each
    set_config(**{**(config or {}), "kernel_threads": 1})
    _WORKER_FIT = from_dict(description)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: cancel what waits, terminate the workers (no wait for running chunks)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.join(5)


def flat_columns(pred: pd.Series | pd.DataFrame) -> pd.DataFrame:
    """A prediction as a DataFrame with one level of column names: a Series (two-class ``prob``)
    is ``theta``; K-class ``prob`` columns ``<class>`` become ``theta_<class>``; two-level
    ``(stat, class)`` columns become ``<stat>_<class>``; two-class ``belief`` is unchanged.

    Examples
    --------
    >>> import pandas as pd
    >>> cols = pd.MultiIndex.from_product([["theta", "bel"], ["a", "b"]])
    >>> list(flat_columns(pd.DataFrame([[0.5, 0.5, 0.4, 0.3]], columns=cols)).columns)
    ['theta_a', 'theta_b', 'bel_a', 'bel_b']
    >>> list(flat_columns(pd.DataFrame({"a": [0.2], "b": [0.8]})).columns)
    ['theta_a', 'theta_b']
    """
    if isinstance(pred, pd.Series):
        return pred.to_frame("theta")
    out = pred.copy()
    if isinstance(out.columns, pd.MultiIndex):
        out.columns = [f"{stat}_{cls}" for stat, cls in out.columns]
    elif not {"theta", "bel", "pl"} >= set(map(str, out.columns)):  # K-class "prob": a column per class
        out.columns = [f"theta_{c}" for c in out.columns]
    return out


def _predict_chunk(chunk: pd.DataFrame, opts: dict[str, Any], fit: Any = None) -> pd.DataFrame:
    from evstat._config import config_context

    fit = _WORKER_FIT if fit is None else fit
    # no bar per chunk (in a worker process or not): predict_file shows one bar over all rows,
    # or none with quiet=True
    with config_context(progress_bars=False):
        if opts["type"] == "decision":
            out = fit.decide(chunk, strategy=opts["strategy"], reject_cost=opts["reject_cost"]).to_frame("decision")
            out["decision"] = out["decision"].astype(str)
        else:
            out = flat_columns(fit.predict(chunk, type=opts["type"]))
    clash = [c for c in opts["keep"] if c in out.columns]
    if clash:  # pandas said "cannot insert theta, already exists" (issue 41)
        from evstat.io.tables import TableError

        raise TableError(
            f"--keep {clash[0]!r} is also a column of the output of --type {opts['type']} (its columns: "
            f"{', '.join(map(str, out.columns[:10]))}): rename that input column, or leave it out of --keep")
    for col in reversed(opts["keep"]):
        out.insert(0, col, chunk[col].to_numpy())
    return out.reset_index(drop=True)


def predict_file(
    model: str | Path,
    data: str | Path,
    output: str | Path,
    type: str = "prob",
    strategy: str | None = None,
    reject_cost: float | None = None,
    keep: tuple[str, ...] | list[str] = (),
    chunksize: int = 100_000,
    jobs: int = -1,
    scheduler: str | None = None,
    quiet: bool = False,
    sep: str = ",",
    encoding: str = "utf-8",
    key: str | bytes | None = None,
) -> int:
    """Predict every row of ``data`` with the saved ``model`` and write ``output``.

    Returns the number of rows written. See the module docstring for the columns; ``strategy``
    None decides by the model's own default strategy. With ``key``, ``model`` must be signed
    with it (``fit.save(path, key=key)``; :func:`evstat.load`).

    Examples
    --------
    >>> import os, tempfile, evstat as ev
    >>> d = tempfile.mkdtemp()
    >>> cal = ev.datasets.simulate_gaussian(60, seed=1)
    >>> _ = ev.evlogit("y ~ x1 + x2", data=cal).save(os.path.join(d, "fit.json"))
    >>> cal.to_csv(os.path.join(d, "x.csv"), index=False)
    >>> predict_file(os.path.join(d, "fit.json"), os.path.join(d, "x.csv"), os.path.join(d, "o.csv"),
    ...              type="belief", chunksize=25, jobs=1, quiet=True)
    60
    """
    from tqdm.auto import tqdm

    from evstat.io.atomic import atomic_path, refuse_same_file
    from evstat.results import load

    if type not in _TYPES:
        raise ValueError(f"type must be one of {_TYPES}, got {type!r}")
    if chunksize < 1:
        raise ValueError(f"chunksize must be a positive number of rows, got {chunksize}")
    from evstat.io.tables import check_columns, check_numeric, iter_table

    data, output = os.fspath(data), Path(output)
    refuse_same_file(output, {"--data": data, "MODEL.json": model})
    suffix = _output_suffix(output)
    fit = load(model, key=key)
    description = fit.to_dict()
    json.dumps(description)  # what travels is plain JSON
    # the shared reader of `evstat report` ('-': standard input; duplicate headers refused)
    raw, total, columns = iter_table(data, "--data", chunksize, sep=sep, encoding=encoding)
    check_columns(columns, keep, data, "--data", "--keep")
    check_columns(columns, fit.score_columns, data, "--data", f"model file {os.fspath(model)!r}")
    scores = list(fit.score_columns)

    def checked() -> Iterator[pd.DataFrame]:
        for chunk in raw:  # a stray text cell: named with its row and column, not a dtype error
            check_numeric(chunk, scores, data, "--data")
            yield chunk

    chunks = checked()
    opts = {"type": type, "strategy": strategy, "reject_cost": reject_cost, "keep": list(keep)}
    rows = 0
    # written to a temporary file renamed over `output` at the end: a failed or interrupted run
    # leaves `output` as it was (evstat.io.atomic)
    with atomic_path(output) as tmp:
        writer = _Writer(tmp, suffix)
        bar = tqdm(total=total, unit="rows", disable=quiet, desc="evstat predict")
        try:
            for out in _results(chunks, fit, description, opts, jobs, scheduler):
                writer.write(out)
                rows += len(out)
                bar.update(len(out))
        finally:
            bar.close()
            writer.close()
    return rows


def _results(
    chunks: Iterator[pd.DataFrame], fit: Any, description: dict[str, Any], opts: dict[str, Any], jobs: int, scheduler: str | None
) -> Iterator[pd.DataFrame]:
    """Predicted chunks in input order, at most a few chunks per worker in flight."""
    if scheduler is not None:
        from distributed import Client

        with Client(scheduler) as client:
            remote = client.scatter(fit, broadcast=True)
            window = 2 * max(1, len(client.scheduler_info()["workers"]))
            pending: list[Any] = []
            for chunk in chunks:
                pending.append(client.submit(_predict_chunk, chunk, opts, remote, pure=False))
                if len(pending) >= window:
                    yield pending.pop(0).result()
            for fut in pending:
                yield fut.result()
        return
    n = _jobs(jobs)
    if n == 1:
        for chunk in chunks:
            yield _predict_chunk(chunk, opts, fit)
        return
    # spawned, not forked: a fork copies whatever threads the parent runs (a Dask client, BLAS or
    # OpenMP pools), which is unsafe; the workers rebuild the model from its JSON description
    ctx = multiprocessing.get_context("spawn")
    from evstat._config import get_config

    pool = ProcessPoolExecutor(
        n, mp_context=ctx, initializer=_init_worker, initargs=(description, os.getpid(), get_config())
    )
    try:
        pending = []
        for chunk in chunks:
            pending.append(pool.submit(_predict_chunk, chunk, opts))
            if len(pending) >= 2 * n:
                yield pending.pop(0).result()
        for fut in pending:
            yield fut.result()
    except BaseException:  # an error, Ctrl-C, SIGTERM, or the consumer stopped: no waiting
        _stop(pool)
        raise
    pool.shutdown()


def _jobs(jobs: int) -> int:
    """Worker processes for ``jobs`` (-1: every processor), capped by the processors available."""
    import warnings

    from evstat.io.workers import cap_jobs

    n, note = cap_jobs(jobs)
    if note is not None:
        warnings.warn(note, UserWarning, stacklevel=3)
    return n


def run_predict(args: argparse.Namespace) -> int:
    """Run ``evstat predict`` with parsed arguments; returns the exit status (0 or 2)."""
    from evstat.io.tables import separator

    from evstat.io.atomic import refuse_same_file

    try:
        refuse_same_file(args.output, {"--key-file": args.key_file})
        rows = predict_file(
            args.model, args.data, args.output, type=args.type, strategy=args.strategy,
            reject_cost=args.reject_cost, keep=args.keep, chunksize=args.chunksize, jobs=args.jobs,
            scheduler=args.scheduler, quiet=args.quiet, sep=separator(args.sep), encoding=args.encoding,
            key=read_key(args.key, args.key_file),
        )
    except ImportError as err:
        print(f"evstat predict: error: {err}; Parquet and --scheduler need the dask extra: "
              'pip install "evstat[dask]"', file=sys.stderr)
        return 2
    except (ValueError, TypeError, KeyError, OSError) as err:
        print(f"evstat predict: error: {one_line(err)}", file=sys.stderr)
        return 2
    print(f"wrote {rows} rows to {args.output}")
    return 0
