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

Targets that are not regular files (``/dev/null``, ``/dev/stdout``, a named pipe) are written in
place: they cannot be replaced, and replacing a device would be wrong. A symbolic link is
followed: the file it points to is replaced and the link kept.

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

import os
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from evstat.exceptions import EvstatError

__all__ = ["SameFileError", "atomic_path", "refuse_same_file", "write_bytes", "write_text"]

PathLike = str | os.PathLike[str]


class SameFileError(EvstatError, ValueError):
    """An output path that is also an input (the message names both and the fix)."""


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
        The folder of ``target`` does not exist.
    IsADirectoryError
        ``target`` is a folder.

    Notes
    -----
    On success: ``fsync`` of the file, permissions of the old target (or ``0o666`` minus the
    umask), :func:`os.replace`, ``fsync`` of the folder. On any exception (including
    ``KeyboardInterrupt``) the temporary file is removed and ``target`` is untouched. A target
    that exists and is not a regular file (a device, a named pipe) is yielded as is: written in
    place, not atomically.

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
    path = Path(os.path.realpath(os.fspath(target)))  # a symbolic link: replace what it points to
    shown = os.fspath(target)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"cannot write {shown!r}: it is a folder; give a file name")
    if st is not None and not stat.S_ISREG(st.st_mode):
        yield path  # /dev/null, /dev/stdout, a named pipe: cannot be replaced
        return
    folder = path.parent
    if not folder.is_dir():
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
    except BaseException:
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(folder)


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
