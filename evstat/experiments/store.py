"""The studies' resumable store: what a rerun trusts, and why.

A study (``evstat reproduce ...``) runs many independent *units* (a data set and round, a sigma of
the grid, ...) and writes their rows to CSV files in its output folder, so that an interrupted
run resumes where it stopped. Resuming from a file only because it *parses* is wrong: a file cut
in half still parses, and a last line cut in the middle parses with missing cells (issue 23,
item 5: ``ramel2018`` kept half of Experiment 1 and moved 46.7% of its claims). So:

* :func:`read_rows` reads a study's CSV file and keeps only rows that are complete: a last line
  without its newline (a write cut short) is dropped, the columns must be exactly the expected
  ones (else the file is not trusted at all: ``None``), and rows with a missing or non-numeric
  cell in a column that may not have one are dropped.
* :class:`Store` keeps a *completion record* (``completed.json`` in the folder, rewritten
  atomically after each unit): for each finished unit its number of rows and the SHA-256 of its
  rows as written (:func:`digest`: the unit's rows sorted, serialised with the study's float
  format). On a rerun a unit counts as done only if its rows are all there and their digest
  matches the record; any other unit is recomputed, and its leftover rows are removed first.
* A folder without a record (written before the record existed, such as the committed runs in
  ``reports/``) is read in *legacy* mode: a unit counts as done when :func:`read_rows` finds all
  its expected rows. A record that cannot be read is replaced by an empty one (everything is
  recomputed), never trusted.
* Units whose results are whole tables (``peers``, ``credal-knn``) keep them as files of their
  own: :meth:`Store.save_frames` writes them atomically with every float's shortest exact text
  and records the SHA-256 of each file; :meth:`Store.load_frames` returns them only if every file
  matches the record (never in legacy mode), read back exactly (every float as written). A study that always continues from the frames *as read back* gives the same
  files whether a unit was computed now or in an interrupted earlier run.
* A settings file (``study.json``) that cannot be read (:func:`read_settings` gives ``None``)
  ties the folder's rows to no setting: the study starts over (:meth:`Store.reset`).

Every file is written with :mod:`evstat.io.atomic` (a temporary file renamed on success), except
the unit rows appended to a history file, whose cut tails are exactly what the checks above find.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from evstat.io.atomic import atomic_path, write_text

__all__ = ["RECORD", "Store", "digest", "file_digest", "read_rows", "read_settings", "save_figure", "write_csv"]

#: name of the completion record in a study's folder
RECORD = "completed.json"


def digest(rows: pd.DataFrame, columns: Sequence[str], sort_by: Sequence[str], float_format: str = "%.10g") -> str:
    """SHA-256 of ``rows`` as a study writes them (``columns`` in order, sorted by ``sort_by``,
    floats with ``float_format``): the same for the rows computed and the rows read back.

    Examples
    --------
    >>> a = pd.DataFrame({"k": [2, 1], "v": [0.5, 1 / 3]})
    >>> b = pd.read_csv(io.StringIO(a.to_csv(index=False, float_format="%.10g")))
    >>> digest(a, ["k", "v"], ["k"]) == digest(b, ["k", "v"], ["k"])
    True
    >>> digest(a, ["k", "v"], ["k"]) == digest(b.assign(v=[0.5, 0.3]), ["k", "v"], ["k"])
    False
    """
    frame = rows.loc[:, list(columns)].sort_values(list(sort_by), kind="stable")
    text = frame.to_csv(index=False, float_format=float_format, lineterminator="\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_rows(path: str | Path, columns: Sequence[str], required: Iterable[str] = (),
              numeric: Iterable[str] = ()) -> pd.DataFrame | None:
    """The complete rows of a study's CSV file, or ``None`` if it cannot be trusted at all.

    Parameters
    ----------
    path : path-like
        The CSV file.
    columns : sequence of str
        The columns it must have (any order; exactly these).
    required : iterable of str
        Columns where a missing cell makes the row incomplete (dropped).
    numeric : iterable of str
        Columns that must hold numbers: a row with text there is dropped.

    Returns
    -------
    pandas.DataFrame or None
        ``None`` for an absent, empty or unreadable file, or one with other columns.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "h.csv")
    >>> _ = open(p, "w").write("k,v\\n1,0.5\\n2,0.25\\n3,0.1")   # the last line was cut: no newline
    >>> read_rows(p, ["k", "v"], required=["k", "v"], numeric=["v"])["k"].tolist()
    [1, 2]
    >>> _ = open(p, "w").write("k,v\\n1,0.5\\n2,\\n")             # a missing cell
    >>> read_rows(p, ["k", "v"], required=["v"])["k"].tolist()
    [1]
    >>> read_rows(p, ["k", "w"]) is None                          # other columns: not trusted
    True
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None
    if not raw.endswith(b"\n"):  # a write cut short: the last line is incomplete
        raw = raw[: raw.rfind(b"\n") + 1]
    if not raw.strip():
        return None
    try:
        frame = pd.read_csv(io.BytesIO(raw), index_col=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return None
    if sorted(frame.columns) != sorted(columns):
        return None
    keep = pd.Series(True, index=frame.index)
    for col in required:
        keep &= frame[col].notna()
    for col in numeric:
        keep &= pd.to_numeric(frame[col], errors="coerce").notna() | frame[col].isna()
    frame = frame[keep]
    for col in numeric:
        frame[col] = pd.to_numeric(frame[col])
    return frame.loc[:, list(columns)].reset_index(drop=True)


def read_settings(path: str | Path) -> dict[str, Any] | None:
    """A study's settings file (a JSON object), or ``None`` if it is absent, cut short or not an
    object: a caller that finds the file present but unreadable starts over (:meth:`Store.reset`).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "study.json")
    >>> _ = open(p, "w").write('{"seed": 3, "runs": [')
    >>> read_settings(p) is None, os.path.exists(p)
    (True, True)
    >>> _ = open(p, "w").write('{"seed": 3}')
    >>> read_settings(p)
    {'seed': 3}
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_csv(frame: pd.DataFrame, path: str | Path, **kwargs: Any) -> Path:
    """``frame.to_csv(path, index=False, **kwargs)``, atomically (:mod:`evstat.io.atomic`).

    Examples
    --------
    >>> import tempfile, os
    >>> p = write_csv(pd.DataFrame({"a": [1, 2]}), os.path.join(tempfile.mkdtemp(), "a.csv"))
    >>> p.read_text()
    'a\\n1\\n2\\n'
    """
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False, **kwargs)
    return Path(path)


def save_figure(fig: Any, path: str | Path, **kwargs: Any) -> Path:
    """``fig.savefig(path, **kwargs)`` for a matplotlib figure, atomically (the image's format
    from ``path``'s suffix, which the temporary file keeps)."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, **kwargs)
    return Path(path)


#: read floats back exactly: pandas 3 does by default (and deprecates the option), pandas 2 needs it
_EXACT: dict[str, Any] = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def _read_frame(path: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(path, **_EXACT)
    except pd.errors.EmptyDataError:  # a unit without rows was written as an empty frame
        return pd.DataFrame()


def file_digest(path: str | Path) -> str | None:
    """SHA-256 of a file's bytes (``None`` if it cannot be read).

    Examples
    --------
    >>> file_digest("/nonexistent/file") is None
    True
    """
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _complete_file(path: Path) -> bool:
    try:
        raw = Path(path).read_bytes()
    except OSError:
        return False
    return raw.endswith(b"\n") and b"\n" in raw.rstrip(b"\n")  # a header and rows, not cut short


class Store:
    """The completion record of a study's folder (see the module docstring).

    Parameters
    ----------
    folder : path-like
        The study's output folder.

    Examples
    --------
    >>> import tempfile
    >>> s = Store(tempfile.mkdtemp())
    >>> s.legacy
    True
    >>> rows = pd.DataFrame({"unit": "a", "q": [0, 1], "v": [0.5, 0.25]})
    >>> s.mark("a", rows, ["unit", "q", "v"], ["q"])
    >>> s.legacy, s.is_done("a", rows, ["unit", "q", "v"], ["q"], expected=2)
    (False, True)
    >>> s.is_done("a", rows.iloc[:1], ["unit", "q", "v"], ["q"], expected=2)   # rows missing
    False
    >>> Store(s.folder).is_done("a", rows.assign(v=0.0), ["unit", "q", "v"], ["q"], expected=2)
    False
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / RECORD
        self.legacy = not self.path.exists()
        self.units: dict[str, dict[str, Any]] = {}
        if not self.legacy:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                units = data.get("units", {}) if isinstance(data, Mapping) else {}
                self.units = {str(k): dict(v) for k, v in units.items() if isinstance(v, Mapping)}
            except (OSError, ValueError, TypeError, AttributeError):
                self.units = {}  # unreadable: trust nothing, recompute

    def is_done(self, key: str, rows: pd.DataFrame | None, columns: Sequence[str], sort_by: Sequence[str],
                expected: int | None = None, float_format: str = "%.10g") -> bool:
        """Whether unit ``key`` is complete in ``rows`` (its rows as read by :func:`read_rows`).

        With a record: its row count and digest must match the record. Without one (legacy):
        ``expected`` rows must be there (``None``: any number but zero)."""
        if rows is None or len(rows) == 0:
            return False
        if self.legacy:
            return expected is None or len(rows) == expected
        rec = self.units.get(key)
        if rec is None or rec.get("rows") != len(rows) or (expected is not None and len(rows) != expected):
            return False
        return rec.get("sha256") == digest(rows, columns, sort_by, float_format)

    def files_done(self, key: str, paths: Sequence[Path]) -> bool:
        """Whether unit ``key``'s ``paths`` all exist and match the record (:meth:`mark_files`).

        Without a record (legacy): each file exists and ends with a newline (not cut short)."""
        if self.legacy:
            return all(_complete_file(p) for p in paths)
        rec = self.units.get(key, {}).get("files")
        if not isinstance(rec, Mapping):
            return False
        return all(rec.get(Path(p).name) == file_digest(p) for p in paths)

    def mark_files(self, key: str, paths: Sequence[Path]) -> None:
        """Record unit ``key`` as complete with the SHA-256 of each of its ``paths``."""
        self.units[key] = {"files": {Path(p).name: file_digest(p) for p in paths}}
        self.save()

    def mark(self, key: str, rows: pd.DataFrame, columns: Sequence[str], sort_by: Sequence[str],
             float_format: str = "%.10g") -> None:
        """Record unit ``key`` as complete with ``rows`` (call after its rows are written)."""
        self.units[key] = {"rows": int(len(rows)), "sha256": digest(rows, columns, sort_by, float_format)}
        self.save()

    def adopt(self, key: str, rows: pd.DataFrame, columns: Sequence[str], sort_by: Sequence[str],
              float_format: str = "%.10g") -> None:
        """Record a unit found complete in legacy mode (no rewrite of the record yet)."""
        self.units[key] = {"rows": int(len(rows)), "sha256": digest(rows, columns, sort_by, float_format)}

    def forget(self, keys: Iterable[str]) -> None:
        """Drop units from the record (in memory; :meth:`save` writes it)."""
        for key in list(keys):
            self.units.pop(key, None)

    def save_frames(self, key: str, paths: Sequence[Path], frames: Sequence[pd.DataFrame]) -> None:
        """Write unit ``key``'s ``frames`` to ``paths`` (CSV, atomically, floats exact) and record
        the unit as complete with the SHA-256 of each file."""
        for frame, path in zip(frames, paths, strict=True):
            write_csv(frame, path)
        self.mark_files(key, paths)

    def load_frames(self, key: str, paths: Sequence[Path]) -> list[pd.DataFrame] | None:
        """Unit ``key``'s frames as :meth:`save_frames` wrote them, or ``None`` when the unit must
        be computed: not in the record, a file missing, cut short or changed, or a folder
        without a record (legacy: such files are never trusted).

        Examples
        --------
        >>> import tempfile
        >>> s = Store(tempfile.mkdtemp())
        >>> p = [s.folder / "u1.csv"]
        >>> s.load_frames("u1", p) is None
        True
        >>> s.save_frames("u1", p, [pd.DataFrame({"x": [0.1, 1 / 3]})])
        >>> s.load_frames("u1", p)[0]["x"].tolist() == [0.1, 1 / 3]
        True
        >>> _ = p[0].write_bytes(p[0].read_bytes()[:-3])                 # cut short
        >>> s.load_frames("u1", p) is None
        True
        """
        if self.legacy or not self.files_done(key, paths):
            return None
        try:
            return [_read_frame(Path(p)) for p in paths]
        except (OSError, ValueError, pd.errors.ParserError):
            return None

    def reset(self, paths: Iterable[Path] = ()) -> None:
        """Start over: remove ``paths`` (the study's files that are no longer tied to a setting)
        and write an empty record, so that nothing found later in the folder is trusted."""
        for p in paths:
            Path(p).unlink(missing_ok=True)
        self.units = {}
        self.save()

    def save(self) -> None:
        """Rewrite the record atomically (after this, the folder is no longer legacy)."""
        body = {"format": 1, "note": "units complete in this folder: rows and SHA-256 of their rows "
                "(evstat.experiments.store); a unit whose rows do not match is recomputed",
                "units": dict(sorted(self.units.items()))}
        write_text(self.path, json.dumps(body, indent=1) + "\n")
        self.legacy = False
