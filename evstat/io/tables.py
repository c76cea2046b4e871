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
* Bounded input: every byte goes through a scan (:class:`_BoundedLines`, numpy, chunk by chunk)
  that refuses a line longer than :data:`MAX_LINE_BYTES` as soon as the chunk that crosses the
  limit is read, before anything parses it; the header is then refused if it has more than
  :data:`MAX_TABLE_COLUMNS` columns, before pandas reads a row. Before these limits a header of
  10 million columns cost 8.6 GB and 449 s before failing, and one line of 200 MB 2.2 GB
  (issue 41). Raise them with the environment variables ``EVSTAT_MAX_LINE_BYTES`` and
  ``EVSTAT_MAX_TABLE_COLUMNS`` or by assigning the constants; the messages say so.
* An interruption (SIGINT, SIGTERM) while pandas reads is raised as itself: pandas turns an
  exception raised by the file's ``read`` into "Error tokenizing data. C error: Calling
  read(nbytes) on source failed", so the reader keeps the exception and raises it again.

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

from evstat._config import env_limit
from evstat.exceptions import EvstatError

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_TABLE_COLUMNS",
    "TableError",
    "check_columns",
    "check_numeric",
    "iter_table",
    "read_table",
    "separator",
]

_SEPARATORS = {";": "';'", "\t": "tab", "|": "'|'"}

#: Longest line of a table (bytes, the header included): 16 MiB, a row of 100,000 numbers of 17
#: digits fits ten times. Raise it with the environment variable ``EVSTAT_MAX_LINE_BYTES``.
MAX_LINE_BYTES = 16 * 2**20
#: Most columns of a table's header: 100,000. Raise it with ``EVSTAT_MAX_TABLE_COLUMNS``.
MAX_TABLE_COLUMNS = 100_000
#: bytes read and scanned at a time
_READ_CHUNK = 2**20


class TableError(EvstatError, ValueError):
    """A table that cannot be read as asked (the message names the file and the fix)."""


def separator(text: str) -> str:
    """``--sep`` as one character (``'tab'`` and ``'\\t'`` for a tab).

    Examples
    --------
    >>> separator("tab") == chr(9), separator(";")
    (True, ';')
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


def _current(name: str) -> int:
    """A limit now: the environment variable ``EVSTAT_<name>`` if set, else the constant
    (:func:`evstat._config.env_limit`)."""
    return env_limit(name, int(globals()[name]), TableError)


def _raise_hint(name: str, needed: str) -> str:
    return (f"raise it with the environment variable EVSTAT_{name}={needed} (or by assigning "
            f"evstat.io.tables.{name}) if the file is genuine")


class _BoundedLines(io.RawIOBase):
    """A binary file whose bytes are scanned as they are read: a line longer than
    :data:`MAX_LINE_BYTES` raises :class:`TableError` before the bytes reach a parser. An
    exception raised while reading (an interruption) is kept in :attr:`error`, so that the
    caller can raise it again when pandas has turned it into a ParserError. Closing it closes
    the file it reads, unless ``owns`` is False (standard input stays open)."""

    def __init__(self, raw: IO[bytes], path: str, what: str, owns: bool = True) -> None:
        super().__init__()
        self.raw, self.path, self.what, self.owns = raw, path, what, owns
        self.limit = _current("MAX_LINE_BYTES")
        self.line = 1  # the line being read (from 1)
        self.length = 0  # its bytes so far
        self.error: BaseException | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self.raw.read(min(len(buffer), _READ_CHUNK))
            if data:
                self._scan(data)
        except BaseException as err:  # noqa: BLE001 - kept and raised again (see the class)
            self.error = err
            raise
        n = len(data)
        buffer[:n] = data
        return n

    def close(self) -> None:
        if not self.closed and self.owns:
            self.raw.close()
        super().close()

    def _refuse(self, line: int) -> TableError:
        return TableError(
            f"{_name(self.path, self.what)}: line {line:,} is longer than {self.limit:,} bytes, the longest line "
            "evstat reads (evstat.io.tables.MAX_LINE_BYTES); it is refused before it is parsed: check the file, "
            f"or {_raise_hint('MAX_LINE_BYTES', str(2 * self.limit))}"
        )

    def _scan(self, data: bytes) -> None:
        import numpy as np

        nl = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        if nl.size == 0:
            self.length += len(data)
            if self.length > self.limit:
                raise self._refuse(self.line)
            return
        if self.length + int(nl[0]) > self.limit:
            raise self._refuse(self.line)
        if nl.size > 1:
            gaps = np.diff(nl) - 1
            k = int(np.argmax(gaps))
            if int(gaps[k]) > self.limit:
                raise self._refuse(self.line + 1 + k)
        self.line += int(nl.size)
        self.length = len(data) - int(nl[-1]) - 1
        if self.length > self.limit:
            raise self._refuse(self.line)


class _Kept(io.StringIO):
    """Text for pandas whose ``read`` keeps an exception raised in it (see :class:`_BoundedLines`)."""

    error: BaseException | None = None

    def read(self, size: int | None = -1) -> str:
        try:
            return super().read(size)
        except BaseException as err:  # noqa: BLE001 - kept and raised again
            self.error = err
            raise


def _check_width(first: str, path: str, what: str, sep: str) -> None:
    """Refuse a header of more than :data:`MAX_TABLE_COLUMNS` columns before it is split (an
    upper bound from the separators; the exact count when quotes may hide some)."""
    limit = _current("MAX_TABLE_COLUMNS")
    bound = first.count(sep) + 1
    if bound <= limit:
        return
    count = bound if '"' not in first else len(next(csv.reader([first], delimiter=sep)))
    if count > limit:
        raise TableError(
            f"the header of {_name(path, what)} has {count:,} columns, more than {limit:,} "
            f"(evstat.io.tables.MAX_TABLE_COLUMNS); it is refused before the rows are read: check --sep and the file, "
            f"or {_raise_hint('MAX_TABLE_COLUMNS', str(count))}"
        )


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
    fh = _BoundedLines(_open_binary(path, what), path, what, owns=path != "-")
    try:
        raw = fh.read()  # every line within MAX_LINE_BYTES, checked chunk by chunk while reading
    except OSError as err:
        raise TableError(f"cannot read {_name(path, what)}: {err.strerror or err}") from None
    finally:
        fh.close()
    _refuse_not_csv(raw[:8], path, what)
    try:
        text = raw.decode(enc)
    except UnicodeDecodeError as err:
        raise _decode_error(err, path, what, encoding) from None
    del raw
    if not text.strip():
        raise TableError(f"cannot read {_name(path, what)} as CSV: it is empty")
    _refuse_not_csv(text[:400], path, what)
    _check_width(text[: text.find("\n")] if "\n" in text else text, path, what, sep)
    try:
        header = next(csv.reader(io.StringIO(text), delimiter=sep))
    except (csv.Error, StopIteration) as err:
        raise TableError(f"cannot read {_name(path, what)} as CSV: {err}") from None
    _check_header(header, path, what, sep)
    source = _Kept(text)
    try:
        frame = pd.read_csv(source, sep=sep)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as err:
        if source.error is not None:  # an interruption, which pandas calls "Error tokenizing data"
            raise source.error from None
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
    guard = _BoundedLines(_open_binary(path, what), path, what, owns=path != "-")
    text = io.TextIOWrapper(io.BufferedReader(guard, buffer_size=_READ_CHUNK), encoding=enc, newline="")
    try:
        first = text.readline()  # within MAX_LINE_BYTES: the guard refuses a longer line
    except UnicodeDecodeError as err:
        text.close()
        raise _decode_error(err, path, what, encoding, exact=False) from None
    except BaseException:
        text.close()
        raise
    if not first.strip():
        raise TableError(f"cannot read {_name(path, what)} as CSV: it is empty")
    _refuse_not_csv(first[:400], path, what)
    _check_width(first, path, what, sep)
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
            if guard.error is not None:  # an interruption or a long line, which pandas calls
                raise guard.error from None  # "Error tokenizing data": raised as itself
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
