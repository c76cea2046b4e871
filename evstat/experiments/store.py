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
* The record is bound to the settings that determine the rows (``Store(folder, settings=...)``:
  the seed, the data sets, the protocol): it holds them and their SHA-256. A run whose settings
  differ from the record's is refused (:class:`SettingsMismatchError`, naming the setting), so
  rows of one seed are never reused by a run of another, even when the settings file was edited
  or removed (issue 41, item 2). A record with settings is never replaced by one without.
* A settings file (``study.json``) that cannot be read (:func:`read_settings` gives ``None``)
  ties the folder's rows to no setting: the study starts over (:meth:`Store.reset`), unless the
  record is bound to this run's settings (:attr:`Store.bound`), which then vouch for the rows.

Every file is written with :mod:`evstat.io.atomic` (a temporary file renamed on success), except
the unit rows appended to a history file (:func:`evstat.io.atomic.open_append`), whose cut tails
are exactly what the checks above find.

:func:`study_folder` is where a study runs (issue 41, items 1 and 2): it refuses a folder holding
a symbolic link or a special file (:func:`evstat.io.atomic.check_folder`), takes the folder's
lock (:func:`folder_lock`: one writer per folder; a second run is refused with the holder's pid
and host, or waits), and confines every write of the study to the folder
(:func:`evstat.io.atomic.confined`: no link followed, no special file opened). Every file the
study reads in the folder is read with :func:`evstat.io.atomic.read_regular` (no link followed,
no named pipe waited on).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from evstat.exceptions import EvstatError
from evstat.io.atomic import atomic_path, check_folder, confined, open_regular, read_regular, write_text
from evstat.io.jsonfile import loads_strict

__all__ = [
    "LOCK", "RECORD", "SettingsMismatchError", "Store", "StudyBusyError", "digest", "file_digest", "folder_lock",
    "read_rows", "read_settings", "save_figure", "settings_digest", "study_folder", "write_csv",
]

#: name of the completion record in a study's folder
RECORD = "completed.json"
#: name of the lock file of a study's folder (present while a run holds it, or after a killed run)
LOCK = ".evstat.lock"
#: largest completion record or settings file read (bytes); a study's record is a few hundred KB
MAX_RECORD_BYTES = 64 * 2**20


class StudyBusyError(EvstatError, OSError):
    """A study folder that another run is writing (the message names its pid and host)."""


class SettingsMismatchError(EvstatError, ValueError):
    """A study folder whose rows were computed with other settings than the run's."""


def _holder(fd: int) -> str:
    """Who holds a lock file, from what it wrote in it (at most 4 KB read)."""
    try:
        info = loads_strict(os.pread(fd, 4096, 0), "the lock file", "lock file")  # the one JSON reader
    except (OSError, ValueError):
        info = None
    if not isinstance(info, dict):
        return "a run that has not yet written its pid"
    pid, host, since = (str(info.get(k, "?"))[:80] for k in ("pid", "host", "started"))
    return f"pid {pid} on host {host}, since {since}"


@contextmanager
def folder_lock(folder: str | Path, wait: bool = False, note: Callable[[str], None] | None = None) -> Iterator[Path]:
    """Hold the lock of a study folder: one run writes a folder at a time.

    An advisory lock (``fcntl.flock``) on :data:`LOCK` in ``folder``, which holds the holder's
    pid, host and start time. The kernel releases the lock when its holder ends, however it
    ends, so the lock of a killed run is taken over by the next run (with a note); the file is
    removed when the run ends normally.

    Parameters
    ----------
    folder : path-like
        The study's folder (it exists).
    wait : bool
        Wait for the holder to end instead of refusing (interruptible: Ctrl-C stops the wait).
    note : callable, optional
        Called with one line when the run waits or takes over a killed run's lock.

    Raises
    ------
    StudyBusyError
        Another run holds the lock and ``wait`` is false; the message names its pid and host.

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> with folder_lock(d):
    ...     with folder_lock(d):          # doctest: +ELLIPSIS
    ...         pass
    Traceback (most recent call last):
    ...
    evstat.experiments.store.StudyBusyError: study folder '...' is in use by another run (pid ... on host ..., since ...): two runs would compute its rows twice; wait for that run to end, run again with --wait to wait for it, or choose another --out folder
    """
    import fcntl

    folder = Path(folder)
    path = folder / LOCK
    while True:
        fd = open_regular(path, os.O_RDWR | os.O_CREAT)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                if not wait:
                    raise StudyBusyError(
                        f"study folder {str(folder)!r} is in use by another run ({holder}): two runs would compute "
                        "its rows twice; wait for that run to end, run again with --wait to wait for it, or choose "
                        "another --out folder") from None
                if note is not None:
                    note(f"study folder {str(folder)!r} is in use by another run ({holder}); waiting for it to end")
                fcntl.flock(fd, fcntl.LOCK_EX)  # interruptible: a signal's exception ends the wait
            try:  # the path must still name the file locked (a holder that ended removed it)
                same = os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)
    try:
        if os.fstat(fd).st_size and note is not None:
            note(f"took over the lock of a run that ended without releasing it ({_holder(fd)})")
        import datetime as dt

        me = {"pid": os.getpid(), "host": socket.gethostname(),
              "started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(me) + "\n").encode("utf-8"), 0)
        yield path
    finally:
        try:
            path.unlink(missing_ok=True)  # while locked: a waiting run then retries on a new file
        finally:
            os.close(fd)


@contextmanager
def study_folder(out: str | Path, wait: bool = False, note: Callable[[str], None] | None = None) -> Iterator[Path]:
    """The folder of a study run: created, checked, locked and confined for the block.

    The folder is created if absent; a folder holding a symbolic link or a special file (at any
    depth) is refused, naming it (:func:`evstat.io.atomic.check_folder`); its lock is held
    (:func:`folder_lock`; ``wait`` and ``note`` as there); and every write of the block into it
    follows no link and opens no special file (:func:`evstat.io.atomic.confined`). A folder
    created here is removed again if it is still empty at the end (a run that failed early).

    Examples
    --------
    >>> import os, tempfile
    >>> d = os.path.join(tempfile.mkdtemp(), "study")
    >>> with study_folder(d) as out:
    ...     _ = (out / "rows.csv").write_text("x\\n")
    ...     sorted(p.name for p in out.iterdir())
    ['.evstat.lock', 'rows.csv']
    >>> os.listdir(d)                                 # the lock is released and its file removed
    ['rows.csv']
    >>> with study_folder(os.path.join(tempfile.mkdtemp(), "empty")) as out:
    ...     pass
    >>> out.exists()                                  # created here and left empty: removed
    False
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"--out {str(out)!r} is not a folder: give the folder of the study's files")
    created = not os.path.lexists(out)
    out.mkdir(parents=True, exist_ok=True)
    real = os.path.realpath(out)
    if real in _HELD:  # this process holds it already (the command line around a study's function)
        _HELD[real] += 1
        try:
            with confined(out):
                yield out
        finally:
            _HELD[real] -= 1
        return
    try:
        check_folder(out)
        with folder_lock(out, wait=wait, note=note), confined(out):
            _HELD[real] = 1
            try:
                yield out
            finally:
                del _HELD[real]
    finally:
        if created:  # a run that failed before writing anything leaves no empty folder behind
            try:
                out.rmdir()
            except OSError:  # not empty: what was written stays (a rerun resumes from it)
                pass


#: the study folders this process holds the lock of (real path -> nesting depth)
_HELD: dict[str, int] = {}


def settings_digest(settings: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a study's row-determining settings.

    Examples
    --------
    >>> settings_digest({"seed": 1, "datasets": ["sonar"]}) == settings_digest({"datasets": ["sonar"], "seed": 1})
    True
    """
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _difference(recorded: Mapping[str, Any], now: Mapping[str, Any]) -> str:
    keys = sorted(set(recorded) | set(now), key=str)
    diff = [k for k in keys if recorded.get(k) != now.get(k)]
    shown = "; ".join(f"{k}: {str(recorded.get(k))[:60]} there, {str(now.get(k))[:60]} now" for k in diff[:3])
    return shown + (f"; and {len(diff) - 3} more" if len(diff) > 3 else "")


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
        raw = read_regular(path)  # no link followed, no named pipe waited on
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
    """A study's settings file (a JSON object), or ``None`` if it is absent, cut short, not an
    object, nested too deeply or holds a key twice: a caller that finds the file present but
    unreadable starts over (:meth:`Store.reset`) unless the record vouches for the rows.

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
        data = _read_json(Path(path), "study settings file")
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _read_json(path: Path, what: str) -> Any:
    """A study's JSON file: a regular file (no link followed), within :data:`MAX_RECORD_BYTES`,
    parsed by the one strict reader (duplicate keys, depth and NaN refused: ``ValueError``)."""
    raw = read_regular(path)
    if len(raw) > MAX_RECORD_BYTES:
        raise ValueError(f"{str(path)!r} is larger than {MAX_RECORD_BYTES} bytes: it is not a {what} of evstat")
    return loads_strict(raw, repr(str(path)), what)


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
        return pd.read_csv(io.BytesIO(read_regular(path)), **_EXACT)
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
        return hashlib.sha256(read_regular(path)).hexdigest()
    except OSError:
        return None


def _complete_file(path: Path) -> bool:
    try:
        raw = read_regular(path)
    except OSError:
        return False
    return raw.endswith(b"\n") and b"\n" in raw.rstrip(b"\n")  # a header and rows, not cut short


class Store:
    """The completion record of a study's folder (see the module docstring).

    Parameters
    ----------
    folder : path-like
        The study's output folder.
    settings : mapping, optional
        The settings that determine the rows (seed, data sets, protocol; JSON values). The
        record holds them and their SHA-256; a record bound to other settings is refused.

    Raises
    ------
    SettingsMismatchError
        The record holds rows computed with other ``settings`` (the message names them).

    Attributes
    ----------
    bound : bool
        The record was already bound to these ``settings`` (they vouch for the rows even when
        the study's settings file cannot be read).

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

    def __init__(self, folder: str | Path, settings: Mapping[str, Any] | None = None) -> None:
        self.folder = Path(folder)
        self.path = self.folder / RECORD
        self.legacy = not os.path.lexists(self.path)
        self.units: dict[str, dict[str, Any]] = {}
        # JSON values as a file holds them (tuples as lists), so that equal settings compare equal
        self.settings = None if settings is None else json.loads(json.dumps(dict(settings)))
        self._recorded: dict[str, Any] | None = None
        self.bound = False
        if self.legacy:
            return
        try:
            data = _read_json(self.path, "completion record")
            units = data.get("units", {}) if isinstance(data, Mapping) else {}
            self.units = {str(k): dict(v) for k, v in units.items() if isinstance(v, Mapping)}
            recorded = data.get("settings")
            if isinstance(recorded, dict) and data.get("settings_sha256") == settings_digest(recorded):
                self._recorded = recorded
            elif recorded is not None:
                self.units = {}  # settings that do not match their own digest: trust nothing
        except (OSError, ValueError, TypeError, AttributeError):
            self.units = {}  # unreadable (cut, too deep, a key twice, a link): trust nothing, recompute
        if self.settings is not None and self._recorded is not None:
            if self._recorded != self.settings:
                raise SettingsMismatchError(
                    f"{str(self.path)!r} records rows computed with other settings than this run's "
                    f"({_difference(self._recorded, self.settings)}); the folder's settings file was edited, "
                    "removed or belongs to another run: rerun with the settings recorded there, or choose "
                    "another --out folder")
            self.bound = True

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
        body: dict[str, Any] = {
            "format": 1, "note": "units complete in this folder: rows and SHA-256 of their rows "
            "(evstat.experiments.store); a unit whose rows do not match is recomputed; a run with other "
            "settings is refused"}
        settings = self.settings if self.settings is not None else self._recorded
        if settings is not None:
            body["settings"] = settings
            body["settings_sha256"] = settings_digest(settings)
        body["units"] = dict(sorted(self.units.items()))
        write_text(self.path, json.dumps(body, indent=1) + "\n")
        self.legacy = False
