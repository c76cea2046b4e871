"""The command line's one table reader: ``evstat report``, ``evstat predict`` and ``evstat query``.

* :func:`read_table` reads a whole CSV file (``report``, ``query``); :func:`iter_table` reads a
  CSV or Parquet file chunk by chunk (``predict``, files larger than memory). Both take ``'-'``
  for standard input, accept named pipes (``<(cat cal.csv)``), and check the header the same
  way: duplicate column names are refused (pandas would rename the second ``a`` to ``a.1``), and
  a file that reads as one column containing ``;``, a tab or ``|`` gets an error suggesting
  ``--sep``.
* Text is decoded with ``encoding`` (default UTF-8, a byte-order mark is skipped); a file that is
  not in that encoding gets an error naming the file, the byte offset and the fix
  (``--encoding latin-1``) instead of Python's bare codec message.
* :func:`check_numeric` finds the first cell of a score column that is not a number and names
  it, its column, its data row and its line in the file.

Errors are :class:`TableError` (a ``ValueError``): one line, naming the file and the fix.
"""

from __future__ import annotations

import codecs
import csv
import io
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from evstat.exceptions import EvstatError

__all__ = ["TableError", "check_columns", "check_numeric", "iter_table", "read_table", "separator"]

_SEPARATORS = {";": "';'", "\t": "tab", "|": "'|'"}


class TableError(EvstatError, ValueError):
    """A table that cannot be read as asked (the message names the file and the fix)."""


def separator(text: str) -> str:
    """``--sep`` as one character (``'tab'`` and ``'\\t'`` for a tab).

    Examples
    --------
    >>> separator("tab"), separator(";")
    ('\t', ';')
    """
    sep = "\t" if text in ("tab", "\\t", "TAB") else text
    if len(sep) != 1 or sep in "\"\r\n":
        raise TableError(f"--sep must be one character such as ',' ';' '|' or 'tab', got {text!r}")
    return sep


def _name(path: str, what: str) -> str:
    return f"{what} from standard input" if path == "-" else f"{what} file {path!r}"


def _encoding(encoding: str) -> str:
    """The codec name of ``--encoding``; one line for an unknown codec or one that does not decode
    bytes to text (``rot13``, ``base64``: Python's LookupError was a traceback, issue 41).

    Examples
    --------
    >>> _encoding("latin-1"), _encoding("UTF8")
    ('iso8859-1', 'utf-8-sig')
    >>> _encoding("rot13")
    Traceback (most recent call last):
    ...
    evstat.io.tables.TableError: --encoding 'rot13' is not a text encoding (the rot-13 codec turns text into text or bytes into bytes, it does not decode a file); use e.g. utf-8, latin-1 or cp1252
    """
    try:
        info = codecs.lookup(encoding)
    except (LookupError, TypeError, ValueError):
        raise TableError(f"--encoding {str(encoding)[:80]!r} is not a known text encoding; use e.g. utf-8 or latin-1") from None
    if not getattr(info, "_is_text_encoding", True):  # CPython's mark of rot13, base64, zlib, ...
        raise TableError(f"--encoding {str(encoding)[:80]!r} is not a text encoding (the {info.name} codec turns text "
                         "into text or bytes into bytes, it does not decode a file); use e.g. utf-8, latin-1 or cp1252")
    name = info.name
    return "utf-8-sig" if name == "utf-8" else name


def _decode_error(err: UnicodeDecodeError, path: str, what: str, encoding: str, exact: bool = True) -> TableError:
    name = codecs.lookup(encoding).name
    hint = "--encoding latin-1 (or cp1252)" if name == "utf-8" else "another --encoding"
    where = f" at offset {err.start}" if exact else ""
    return TableError(
        f"cannot read {_name(path, what)}: not {name} text (byte 0x{err.object[err.start]:02x}{where}: "
        f"{err.reason}); pass {hint}, or save the file as UTF-8"
    )


#: how files that are not CSV begin: (test on the first bytes, what the file is)
_NOT_CSV_BYTES = ((b"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook?)"), (b"PAR1", "a Parquet file"),
                  (b"\x89HDF", "an HDF5 file"))


def _refuse_not_csv(start: str | bytes, path: str, what: str) -> None:
    """Refuse a file that is plainly not a CSV table: JSON (a saved evstat model given as data,
    say) or a binary format, naming what it looks like, instead of reading its first character
    as a column name.

    Examples
    --------
    >>> _refuse_not_csv('{"format": "evstat", "method": "evlogit"}', "model.json", "--data")
    Traceback (most recent call last):
    ...
    evstat.io.tables.TableError: --data file 'model.json' is not a CSV file: it is JSON (a model saved with fit.save? that is the MODEL.json of 'evstat predict MODEL.json --data ROWS.csv'); --data takes a CSV table whose first line names the columns
    """
    if isinstance(start, bytes):
        for magic, kind in _NOT_CSV_BYTES:
            if start.startswith(magic):
                raise TableError(f"{_name(path, what)} is not a CSV file: it is {kind}; "
                                 f"{what} takes a CSV table whose first line names the columns")
        return
    head = start.lstrip("\ufeff \t\r\n")
    if head[:1] in ("{", "["):
        saved = head[:1] == "{"  # an object: often a model saved with fit.save
        hint = (" (a model saved with fit.save? that is the MODEL.json of 'evstat predict MODEL.json "
                "--data ROWS.csv')" if saved else "")
        raise TableError(f"{_name(path, what)} is not a CSV file: it is JSON{hint}; "
                         f"{what} takes a CSV table whose first line names the columns")


def _check_header(header: list[str], path: str, what: str, sep: str) -> None:
    seen: set[str] = set()
    dups = []
    for h in header:
        if h in seen:
            dups.append(h)
        seen.add(h)
    if dups:
        raise TableError(
            f"{_name(path, what)} has duplicate column names {sorted(set(dups))} (pandas would rename the "
            f"second {dups[0]!r} to '{dups[0]}.1'); column names must be unique: rename them"
        )
    if len(header) == 1:
        for cand, shown in _SEPARATORS.items():
            if cand != sep and cand in header[0]:
                raise TableError(
                    f"{_name(path, what)} reads as a single column {header[0][:60]!r} with separator "
                    f"{sep!r}; it looks separated by {shown}: pass --sep {shown}"
                )


def _open_binary(path: str, what: str) -> IO[bytes]:
    if path == "-":
        buffer = getattr(sys.stdin, "buffer", None)  # a text stream without one: in-process callers
        return buffer if buffer is not None else io.BytesIO(sys.stdin.read().encode("utf-8"))
    p = Path(path)
    if p.is_dir():
        raise TableError(f"{_name(path, what)} not found (it is a folder)")
    if not p.exists():
        raise TableError(f"{_name(path, what)} not found")
    try:
        return open(p, "rb")  # regular files and pipes (<(cat cal.csv) is /dev/fd/N)
    except OSError as err:
        raise TableError(f"cannot read {_name(path, what)}: {err.strerror or err}") from None


def read_table(path: str, what: str, sep: str = ",", encoding: str = "utf-8") -> Any:
    """A whole CSV file (``'-'``: standard input) as a DataFrame, header checked.

    Parameters
    ----------
    path : str
        File name, ``'-'`` for standard input, or a named pipe.
    what : str
        How the command names it in messages (``"--data"``).
    sep : str
        Column separator (one character).
    encoding : str
        Text encoding (default UTF-8; a byte-order mark is skipped).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    TableError
        Absent, empty, undecodable, duplicate column names, one column that looks separated by
        another character, no rows, or not CSV.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(p, "wb").write("y,caf\\xe9\\n1,2\\n".encode("latin-1"))
    >>> read_table(p, "--data")
    Traceback (most recent call last):
    ...
    evstat.io.tables.TableError: cannot read --data file '...t.csv': not utf-8 text (byte 0xe9 at offset 5: invalid continuation byte); pass --encoding latin-1 (or cp1252), or save the file as UTF-8
    >>> list(read_table(p, "--data", encoding="latin-1").columns)
    ['y', 'café']
    """
    import pandas as pd

    enc = _encoding(encoding)
    fh = _open_binary(path, what)
    try:
        raw = fh.read()
    except OSError as err:
        raise TableError(f"cannot read {_name(path, what)}: {err.strerror or err}") from None
    finally:
        if path != "-":
            fh.close()
    _refuse_not_csv(raw[:8], path, what)
    try:
        text = raw.decode(enc)
    except UnicodeDecodeError as err:
        raise _decode_error(err, path, what, encoding) from None
    if not text.strip():
        raise TableError(f"cannot read {_name(path, what)} as CSV: it is empty")
    _refuse_not_csv(text[:400], path, what)
    try:
        header = next(csv.reader(io.StringIO(text), delimiter=sep))
    except (csv.Error, StopIteration) as err:
        raise TableError(f"cannot read {_name(path, what)} as CSV: {err}") from None
    _check_header(header, path, what, sep)
    try:
        frame = pd.read_csv(io.StringIO(text), sep=sep)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as err:
        raise TableError(f"cannot read {_name(path, what)} as CSV: {err}".replace("\n", " ")) from None
    if frame.empty:
        raise TableError(f"{_name(path, what)} has no rows")
    return frame


def iter_table(path: str, what: str, chunksize: int, sep: str = ",", encoding: str = "utf-8",
               ) -> tuple[Iterator[Any], int | None, list[str]]:
    """Chunks of a CSV or Parquet file (``'-'``: CSV on standard input), header checked.

    Parameters
    ----------
    path : str
        ``.parquet`` file, or a CSV file (any other name, ``'-'``, a named pipe).
    what : str
        How the command names it (``"--data"``).
    chunksize : int
        Rows per chunk.
    sep, encoding : str
        As in :func:`read_table` (CSV only).

    Returns
    -------
    (iterator of DataFrame, int or None, list of str)
        The chunks (each with a ``RangeIndex`` continuing the file's data rows: row ``i`` of the
        file, counted from 0 after the header, has index ``i``), the row count when known without
        reading the file (Parquet), and the column names.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(p, "w").write("a,b\\n1,2\\n3,4\\n5,6\\n")
    >>> chunks, total, cols = iter_table(p, "--data", chunksize=2)
    >>> cols, total, [c.index.tolist() for c in chunks]
    (['a', 'b'], None, [[0, 1], [2]])
    """
    import pandas as pd

    if path != "-" and Path(path).suffix.lower() == ".parquet":
        if not Path(path).is_file():
            raise TableError(f"{_name(path, what)} not found")
        import pyarrow.parquet as pq

        try:
            f = pq.ParquetFile(path)
        except Exception as err:  # pyarrow raises its own error types for a corrupt file
            raise TableError(f"cannot read {_name(path, what)} as Parquet: {err}") from None
        columns = list(f.schema_arrow.names)
        _check_header(columns, path, what, sep)

        def batches() -> Iterator[Any]:
            start = 0
            for b in f.iter_batches(batch_size=chunksize):
                frame = b.to_pandas()
                frame.index = pd.RangeIndex(start, start + len(frame))
                start += len(frame)
                yield frame

        return batches(), f.metadata.num_rows, columns
    enc = _encoding(encoding)
    raw = _open_binary(path, what)
    text = io.TextIOWrapper(raw if isinstance(raw, io.BufferedIOBase) else io.BufferedReader(raw),  # type: ignore[type-var]
                            encoding=enc, newline="")
    try:
        first = text.readline()
    except UnicodeDecodeError as err:
        raise _decode_error(err, path, what, encoding, exact=False) from None
    if not first.strip():
        raise TableError(f"cannot read {_name(path, what)} as CSV: it is empty")
    _refuse_not_csv(first[:400], path, what)
    try:
        header = next(csv.reader([first], delimiter=sep))
    except (csv.Error, StopIteration) as err:
        raise TableError(f"cannot read {_name(path, what)} as CSV: {err}") from None
    _check_header(header, path, what, sep)

    def chunks() -> Iterator[Any]:
        try:
            reader = pd.read_csv(text, sep=sep, header=None, names=header, index_col=False,
                                 chunksize=chunksize)
            yield from reader
        except UnicodeDecodeError as err:
            raise _decode_error(err, path, what, encoding, exact=False) from None
        except (pd.errors.ParserError, ValueError) as err:
            raise TableError(f"cannot read {_name(path, what)} as CSV: {err}".replace("\n", " ")) from None
        finally:
            if path == "-":
                text.detach()  # standard input stays open
            else:
                text.close()

    return chunks(), None, header


def check_columns(columns: Iterable[str], wanted: Iterable[str], path: str, what: str, option: str) -> None:
    """Refuse ``wanted`` columns absent from ``columns``, naming them and listing those available.

    Examples
    --------
    >>> check_columns(["id", "x1"], ["id", "nonexistent_col"], "s.csv", "--data", "--keep")
    Traceback (most recent call last):
    ...
    evstat.io.tables.TableError: --keep: column 'nonexistent_col' is not in --data file 's.csv'; its columns are 'id', 'x1'
    """
    have = list(columns)
    missing = [w for w in wanted if w not in have]
    if missing:
        listed = ", ".join(repr(c) for c in have[:30]) + (f", ... ({len(have)} columns)" if len(have) > 30 else "")
        cols = "columns " + ", ".join(repr(m) for m in missing) + " are" if len(missing) > 1 else f"column {missing[0]!r} is"
        raise TableError(f"{option}: {cols} not in {_name(path, what)}; its columns are {listed}")


def check_numeric(frame: Any, columns: Iterable[str], path: str, what: str, mostly: bool = False) -> None:
    """Refuse a non-numeric cell in ``columns`` of ``frame``, quoting the cell, its column and row.

    ``frame``'s index counts the file's data rows from 0 (as :func:`iter_table` numbers them);
    the message gives the data row (from 1) and the line of the file (the header is line 1).
    Missing cells are not checked here (the model's own missing-value rule applies). With
    ``mostly=True`` only columns whose non-missing cells are mostly numbers are checked (a text
    column may be a factor of the formula).

    Examples
    --------
    >>> import pandas as pd
    >>> check_numeric(pd.DataFrame({"x": ["0.5", "1e-3", "oops", None]}), ["x"], "s.csv", "--data")
    Traceback (most recent call last):
    ...
    evstat.io.tables.TableError: --data file 's.csv': column 'x' has a non-numeric cell 'oops' in data row 3 (line 4 of the file); scores must be numbers: fix or remove that row
    """
    import pandas as pd

    for col in columns:
        if col not in frame.columns:
            continue
        s = frame[col]
        if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
            continue
        if pd.api.types.is_bool_dtype(s.dtype) or isinstance(s.dtype, pd.CategoricalDtype):
            continue  # the model's own checks name these
        as_num = pd.to_numeric(s, errors="coerce")
        bad = s.index[as_num.isna() & s.notna()]
        if mostly and len(bad) * 2 >= int(s.notna().sum()):
            continue  # text: a factor, not a score column with a stray cell
        if len(bad):
            row = int(bad[0]) if isinstance(frame.index, pd.RangeIndex) else int(frame.index.get_loc(bad[0]))
            raise TableError(
                f"{_name(path, what)}: column {col!r} has a non-numeric cell {str(s.loc[bad[0]])[:60]!r} in data row "
                f"{row + 1} (line {row + 2} of the file); scores must be numbers: fix or remove that row"
            )
