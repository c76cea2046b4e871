"""Atomic outputs: a file is either its old content, or the complete new one.

Every file evstat writes goes through :func:`atomic_path` (or its shorthands
:func:`write_text` and :func:`write_bytes`):

1. the content is written to a temporary file *in the target's folder* (same file system, so the
   rename below is atomic), named ``.<name>.<random>.part<suffix>`` (hidden, same suffix, so
   pandas and matplotlib pick the same format and compression as for the target);
2. on success the temporary file is flushed to disk (``fsync``), given the target's permissions
   (those of the old file if there was one, else ``0o666`` minus the umask), and renamed over the
   target with :func:`os.replace`; the folder is then flushed too;
3. on any error or interruption (an exception, ``KeyboardInterrupt`` on SIGINT, the command
   line's SIGTERM handler) the temporary file is removed and the target is not touched.

So a reader never sees a half-written file, a failed or interrupted command leaves the old output
in place, and two processes writing the same target concurrently each write their own temporary
file: the target ends as one complete output (the last rename wins), never a mix. A process
killed with SIGKILL cannot clean up: its hidden ``.part`` file may remain next to the target
(the target itself is untouched); it is safe to delete.

Targets that are not regular files are checked before anything opens them (issue 41, item 1):
a character device (``/dev/null``, a terminal) is written in place; a named pipe (``-o
/dev/stdout | head``, ``-o >(gzip > out.gz)``) is written in place only if a process reads it,
which a non-blocking open tells at once (a pipe without a reader is refused instead of blocking
forever in ``open``); a block device or a socket is refused. A symbolic link given as the output
is followed: the file it points to is replaced and the link kept; a link that points into a
folder that does not exist is named in the error.

Study folders (``evstat reproduce --out DIR``) are stricter. Inside :func:`confined`, a write to
a file in the folder (or a folder below it) never follows a symbolic link and never opens a
special file: the target must be a regular file or absent, and its folder must be inside the
confined folder once every link is resolved (:class:`UnsafePathError` otherwise, naming the
file). :func:`check_folder` refuses a folder that holds a link or a special file before a study
reads anything, :func:`open_append` appends without following a link, and :func:`read_regular`
reads a regular file only, without following a link (a named pipe never blocks a study).

:func:`refuse_same_file` refuses an output that is one of the inputs (same path, a symbolic or
hard link to it): writing it would destroy the input it is computed from.

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> target = os.path.join(d, "out.txt")
>>> _ = write_text(target, "old\\n")
>>> try:
...     with atomic_path(target) as tmp:
...         _ = tmp.write_text("half of the new con")
...         raise RuntimeError("the computation failed")
... except RuntimeError:
...     pass
>>> open(target).read()          # the old content, and no temporary file left
'old\\n'
>>> os.listdir(d)
['out.txt']
"""

from __future__ import annotations

import contextvars
import errno
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from evstat.exceptions import EvstatError

__all__ = [
    "OutputSpaceError", "SameFileError", "UnsafePathError", "atomic_path", "check_folder", "confined", "open_append", "open_regular",
    "read_regular",
    "refuse_same_file", "write_bytes", "write_text",
]

PathLike = str | os.PathLike[str]


class SameFileError(EvstatError, ValueError):
    """An output path that is also an input (the message names both and the fix)."""


class UnsafePathError(EvstatError, OSError):
    """A path evstat will not open: a symbolic link or a special file in a study folder, a named
    pipe that no process reads, a block device (the message names the file and the fix)."""


class OutputSpaceError(EvstatError, OSError):
    """An output that did not fit: a full disk, a quota, a file size limit (the message names the
    output; the old content is kept)."""


#: the real paths of the folders a study writes (:func:`confined`); innermost last
_CONFINED: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("evstat_confined", default=())

#: flags of every open of a study file: no link followed, no wait on a named pipe, not inherited
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _confining(path: str) -> str | None:
    """The confined folder (real path) that the real folder of ``path`` is inside, if any."""
    folders = _CONFINED.get()
    if not folders:
        return None
    parent = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    for folder in reversed(folders):
        if _inside(parent, folder):
            return folder
    return None


def _refuse_in_study(path: str, what: str, fix: str) -> UnsafePathError:
    return UnsafePathError(f"study folder file {path!r} is {what}: evstat never writes or reads through it; {fix}")


def _check_study_target(shown: str, folder: str) -> None:
    """Refuse a study file that is a link or a special file, or whose folder leaves ``folder``."""
    try:
        st = os.lstat(shown)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise _refuse_in_study(shown, f"a symbolic link to {os.readlink(shown)!r}",
                               "remove the link (or put a copy of the file in its place) and run again")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise _refuse_in_study(shown, _kind(st.st_mode), "remove it and run again")
    parent = os.path.realpath(os.path.dirname(os.path.abspath(shown)))
    if not _inside(parent, folder):  # pragma: no cover - a folder swapped for a link during the run
        raise _refuse_in_study(shown, f"in {parent!r}, outside the study folder {folder!r}",
                               "remove the link among its folders and run again")


@contextmanager
def confined(folder: PathLike) -> Iterator[Path]:
    """Within the block, writes by :func:`atomic_path` to files in ``folder`` (or below it) are
    confined to it: no symbolic link is followed and no special file is opened.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> os.symlink(os.path.join(tempfile.mkdtemp(), "elsewhere.csv"), os.path.join(d, "rows.csv"))
    >>> _ = write_text(os.path.join(d, "rows.csv"), "x\\n")       # an output: the link is followed
    >>> with confined(d):
    ...     write_text(os.path.join(d, "rows.csv"), "x\\n")       # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.io.atomic.UnsafePathError: study folder file '...rows.csv' is a symbolic link to '...elsewhere.csv': evstat never writes or reads through it; remove the link (or put a copy of the file in its place) and run again
    """
    real = os.path.realpath(os.fspath(folder))
    token = _CONFINED.set((*_CONFINED.get(), real))
    try:
        yield Path(folder)
    finally:
        _CONFINED.reset(token)


#: most entries :func:`check_folder` looks at (a study folder holds a few thousand files at most)
MAX_FOLDER_ENTRIES = 1_000_000


def check_folder(folder: PathLike) -> None:
    """Refuse a study folder holding a symbolic link or a special file (at any depth), naming it.

    The folder itself may be a link (the user named it); nothing inside it may be.

    Raises
    ------
    UnsafePathError
        The first link, named pipe, device or socket found, with the fix.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> check_folder(d)
    >>> os.mkfifo(os.path.join(d, "exp2_history.csv"))
    >>> check_folder(d)                      # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.io.atomic.UnsafePathError: study folder file '...exp2_history.csv' is a named pipe (FIFO): evstat never writes or reads through it; remove it and run again
    """
    root = os.fspath(folder)
    stack = [root]
    seen = 0
    while stack:
        here = stack.pop()
        with os.scandir(here) as entries:
            for entry in entries:
                seen += 1
                if seen > MAX_FOLDER_ENTRIES:
                    raise UnsafePathError(f"study folder {root!r} holds more than {MAX_FOLDER_ENTRIES:,} entries: "
                                          "it is not a study folder of evstat; choose another --out folder")
                mode = entry.stat(follow_symlinks=False).st_mode
                if stat.S_ISDIR(mode):
                    stack.append(entry.path)
                elif stat.S_ISLNK(mode):
                    raise _refuse_in_study(entry.path, f"a symbolic link to {os.readlink(entry.path)!r}",
                                           "remove the link (or put a copy of the file in its place) and run again")
                elif not stat.S_ISREG(mode):
                    raise _refuse_in_study(entry.path, _kind(mode), "remove it and run again")


def open_regular(path: PathLike, flags: int, mode: int = 0o666) -> int:
    """``os.open(path, flags, mode)`` without following a symbolic link or waiting on a named pipe:
    the descriptor of a regular file (in blocking mode), or :class:`UnsafePathError` naming the
    link or special file."""
    shown = os.fspath(path)
    try:
        fd = os.open(shown, flags | _NOFOLLOW, mode)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise _refuse_in_study(shown, f"a symbolic link to {os.readlink(shown)!r}",
                                   "remove the link (or put a copy of the file in its place) and run again") from None
        if err.errno == errno.ENXIO:  # a named pipe opened for writing, without a reader
            raise _refuse_in_study(shown, "a named pipe (FIFO)", "remove it and run again") from None
        raise
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(f"{shown!r} is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise _refuse_in_study(shown, _kind(st.st_mode), "remove it and run again")
        if hasattr(os, "set_blocking"):  # O_NONBLOCK served the open only
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: PathLike) -> bytes:
    """The bytes of a regular file, read without following a symbolic link; a link, a named pipe
    or a device is refused (:class:`UnsafePathError`) without waiting.

    Raises
    ------
    FileNotFoundError
        No such file.

    Examples
    --------
    >>> import os, tempfile
    >>> p = write_text(os.path.join(tempfile.mkdtemp(), "rows.csv"), "x\\n1\\n")
    >>> read_regular(p)
    b'x\\n1\\n'
    """
    fd = open_regular(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def open_append(path: PathLike, encoding: str = "utf-8") -> IO[str]:
    """A text file opened to append (created if absent), without following a symbolic link; a link
    or a special file is refused (:class:`UnsafePathError`) without waiting.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "h.csv")
    >>> with open_append(p) as fh:
    ...     _ = fh.write("a\\n")
    >>> with open_append(p) as fh:
    ...     _ = fh.write("b\\n")
    >>> open(p).read()
    'a\\nb\\n'
    """
    fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    return os.fdopen(fd, "a", encoding=encoding, newline="")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - folders that cannot be opened (some platforms)
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - file systems without directory fsync
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_path(target: PathLike) -> Iterator[Path]:
    """A temporary path to write instead of ``target``; renamed over it when the block succeeds.

    Parameters
    ----------
    target : str or path-like
        The file to write. Its folder must exist.

    Yields
    ------
    pathlib.Path
        Where to write, in ``target``'s folder, with ``target``'s suffix. Write and close it
        inside the block (a streaming writer may write it in many steps).

    Raises
    ------
    FileNotFoundError
        The folder of ``target`` does not exist (a dangling symbolic link is named as such).
    IsADirectoryError
        ``target`` is a folder.
    UnsafePathError
        ``target`` is a named pipe that no process reads, a block device or a socket; or, inside
        :func:`confined`, a symbolic link or any special file in the study folder.
    OutputSpaceError
        The content did not fit (a full disk, a quota, a file size limit): the ``OSError`` of the
        writer, with ``target`` named (the old content is kept).

    Notes
    -----
    On success: ``fsync`` of the file, permissions of the old target (or ``0o666`` minus the
    umask), :func:`os.replace`, ``fsync`` of the folder. On any exception (including
    ``KeyboardInterrupt``) the temporary file is removed and ``target`` is untouched. A target
    that exists and is a character device (``/dev/null``) or a named pipe with a reader is
    yielded as is: written in place, not atomically.

    Examples
    --------
    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("x\\n1\\n")
    ...     os.path.exists(target), tmp.suffix, tmp.name.startswith(".a.csv.")
    (False, '.csv', True)
    >>> open(target).read()
    'x\\n1\\n'
    """
    shown = os.fspath(target)
    study = _confining(shown)
    if study is not None:  # a study's file: no link followed, no special file (module docstring)
        _check_study_target(shown, study)
        path = Path(os.path.abspath(shown))
    else:
        path = Path(os.path.realpath(shown))  # a symbolic link: replace what it points to
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"cannot write {shown!r}: it is a folder; give a file name")
    if st is not None and not stat.S_ISREG(st.st_mode):
        with _special_output(path, shown, st.st_mode):
            yield path  # /dev/null, /dev/stdout, a named pipe with a reader: cannot be replaced
        return
    folder = path.parent
    if not folder.is_dir():
        if os.path.islink(shown):
            raise FileNotFoundError(f"cannot write {shown!r}: it is a symbolic link to {os.readlink(shown)!r}, "
                                    f"whose folder {str(folder)!r} does not exist; remove the link or give another file name")
        raise FileNotFoundError(f"cannot write {shown!r}: folder {str(Path(shown).parent)!r} does not exist")
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part" + path.suffix, dir=folder)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
        os.chmod(tmp, mode)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as err:
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        if isinstance(err, OSError) and err.errno in _FULL and not isinstance(err, EvstatError):
            raise _full(err, shown) from None
        raise
    _fsync_dir(folder)


#: errors of a full disk, a quota or a file size limit: named with the output (issue 41, item 6)
_FULL = {getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG") if hasattr(errno, name)}


def _full(err: OSError, shown: str) -> OutputSpaceError:
    reason = err.strerror or str(err)
    out = OutputSpaceError(f"cannot write {shown!r}: {reason} (errno {err.errno}); the old content, if any, is kept: "
                           "free space on its file system (or raise the limit), or write it elsewhere")
    out.errno = err.errno
    return out


@contextmanager
def _special_output(path: Path, shown: str, mode: int) -> Iterator[None]:
    """Check an output that is not a regular file before the writer opens it: a character device
    is written; a named pipe only while a process reads it (a non-blocking open fails at once
    without one, so it never blocks); a block device or a socket is refused."""
    if stat.S_ISCHR(mode):
        yield
        return
    if not stat.S_ISFIFO(mode):
        raise UnsafePathError(f"cannot write {shown!r}: it is {_kind(mode)}, not a file; give a file name")
    try:  # held open while the writer writes, so the pipe keeps a writer
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        if err.errno != errno.ENXIO:
            raise
        raise UnsafePathError(f"cannot write {shown!r}: it is a named pipe (FIFO) that no process reads, so writing "
                              "it would wait forever; start its reader first, or give a file name") from None
    try:
        yield
    finally:
        os.close(fd)


def write_bytes(target: PathLike, data: bytes) -> Path:
    """Write ``data`` to ``target`` atomically (see :func:`atomic_path`); returns ``Path(target)``.

    Examples
    --------
    >>> import os, tempfile
    >>> p = write_bytes(os.path.join(tempfile.mkdtemp(), "b.bin"), b"\\x00\\x01")
    >>> p.read_bytes()
    b'\\x00\\x01'
    """
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)
    return Path(target)


def write_text(target: PathLike, text: str, encoding: str = "utf-8", newline: str | None = None) -> Path:
    """Write ``text`` to ``target`` atomically (see :func:`atomic_path`); returns ``Path(target)``.

    Examples
    --------
    >>> import os, tempfile
    >>> p = write_text(os.path.join(tempfile.mkdtemp(), "t.txt"), "caf\\u00e9\\n", newline="\\n")
    >>> p.read_bytes()
    b'caf\\xc3\\xa9\\n'
    """
    with atomic_path(target) as tmp:
        with open(tmp, "w", encoding=encoding, newline=newline) as fh:
            fh.write(text)
    return Path(target)


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): compare where they would be
        return os.path.realpath(a) == os.path.realpath(b)


def refuse_same_file(output: PathLike | None, inputs: Mapping[str, PathLike | None] | Iterable[tuple[str, PathLike | None]],
                     output_name: str = "-o") -> None:
    """Refuse an ``output`` that is one of the ``inputs`` (same path, or a link to the same file).

    Parameters
    ----------
    output : path-like or None
        The file about to be written (``None`` or ``'-'``: nothing to check).
    inputs : mapping or iterable of (name, path)
        The files read, by their option name (``{"--data": "cal.csv"}``); ``None`` and ``'-'``
        (standard input) are skipped.
    output_name : str
        How the output is named in the message (default ``-o``).

    Raises
    ------
    SameFileError
        The output is one of the inputs; the message names both and the fix.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> data = write_text(os.path.join(d, "scores.csv"), "x\\n1\\n")
    >>> refuse_same_file(os.path.join(d, "out.csv"), {"--data": data})   # fine
    >>> refuse_same_file(os.path.join(d, ".", "scores.csv"), {"--data": data})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.io.atomic.SameFileError: -o '...scores.csv' is the same file as --data '...scores.csv': writing it would destroy the input; choose another output file
    """
    if output is None or os.fspath(output) == "-":
        return
    items = inputs.items() if isinstance(inputs, Mapping) else inputs
    out = os.fspath(output)
    for name, value in items:
        if value is None or os.fspath(value) == "-":
            continue
        if _same(out, os.fspath(value)):
            raise SameFileError(
                f"{output_name} {out!r} is the same file as {name} {os.fspath(value)!r}: writing it would "
                "destroy the input; choose another output file"
            )
