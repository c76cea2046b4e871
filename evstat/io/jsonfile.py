"""The bounded, strict JSON reader of saved models and its limits.

:func:`read_json` refuses a file larger than :data:`MAX_FILE_BYTES` from its size, before
reading a byte; it then reads the file in chunks of :data:`SCAN_CHUNK_BYTES` and scans each with
numpy for the nesting depth (:data:`MAX_JSON_DEPTH`), the longest run of digits
(:data:`MAX_JSON_DIGITS`), an upper bound on the number of values (:data:`MAX_JSON_VALUES`),
an upper bound on the memory of the parsed values (:data:`MAX_PARSED_BYTES`: a 509 MB file of
short strings took 3.3 GB before it, issue 41)
and, beyond :data:`PADDING_FROM_BYTES`, padding (:data:`MAX_BYTES_PER_VALUE`), refusing a file
as soon as the chunk that crosses a limit is read. The non-standard literals ``NaN`` and
``Infinity``, invalid UTF-8, invalid JSON and an object holding a key twice
(:class:`DuplicateKeyError`: the parser would keep the last value silently, so a signed file
could show one value and load another) are refused with one clear error.

:func:`loads_strict` is the same parse for bytes already read (a study's completion record and
settings file): every JSON file evstat reads goes through it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from evstat.exceptions import EvstatError

__all__ = [
    "DuplicateKeyError",
    "MAX_BYTES_PER_VALUE",
    "MAX_FILE_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_JSON_DIGITS",
    "MAX_JSON_VALUES",
    "MAX_PARSED_BYTES",
    "PARSED_BYTES_PER",
    "PADDING_FROM_BYTES",
    "SCAN_CHUNK_BYTES",
    "loads_strict",
    "read_json",
]

#: Largest saved-model file :func:`read_json` reads (bytes): 512 MiB, about 20 million stored
#: numbers (a model stores its calibration data).
MAX_FILE_BYTES = 512 * 2**20
#: Most JSON values (numbers, strings, lists, objects) a saved model may hold: 2**25, about
#: 1 GiB of Python objects; counted (from above) while the file is streamed, before parsing.
MAX_JSON_VALUES = 2**25
#: Deepest nesting of lists and objects in a saved model (evstat's files nest about 8 levels).
MAX_JSON_DEPTH = 64
#: Most digits in a run (a number literal); float64 needs 17, Python refuses beyond 4300.
MAX_JSON_DIGITS = 400
#: Python memory a parsed file may take, estimated from above while the file is streamed (see
#: :data:`PARSED_BYTES_PER`): twice :data:`MAX_FILE_BYTES`, 1 GiB (about 20 million numbers);
#: with ``read_json(max_bytes=m)`` it is ``2 * m``.
MAX_PARSED_BYTES = 2 * MAX_FILE_BYTES
#: The estimate's cost of one JSON value, one string and one object (bytes of Python objects,
#: from above: a float is 24 bytes and its list slot 8, an integer of 18 digits 36, a string 49
#: plus its characters, an object's dict and the key-value pairs the duplicate-key check holds
#: about 200 per key); the characters of strings are bounded by the file's size.
PARSED_BYTES_PER = {"value": 48, "string": 128, "object": 256}
#: Bytes read and scanned at a time: the scan's working memory (a few times this).
SCAN_CHUNK_BYTES = 2**20
#: Beyond :data:`PADDING_FROM_BYTES` bytes, a saved model is made of numbers: more than this
#: many bytes per JSON value is padding (whitespace, a giant string), refused while streaming.
MAX_BYTES_PER_VALUE = 256
PADDING_FROM_BYTES = 16 * 2**20


class DuplicateKeyError(EvstatError, ValueError):
    """A JSON object that holds a key twice (the message names the key and the file)."""


class _Duplicate(EvstatError, ValueError):
    """Raised inside the parser; :func:`_parse` turns it into :class:`DuplicateKeyError`."""

    def __init__(self, key: str) -> None:
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _Duplicate(k)
            seen.add(k)
    return out


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"the non-standard JSON literal {name} (a saved model never contains NaN or infinite numbers)")


class _JsonScan:
    """The streamed pre-parse scan of :func:`read_json` (depth, digits, values), chunk by chunk."""

    def __init__(self, name: str, what: str, parsed_limit: int | None = None) -> None:
        self.name, self.what = name, what
        self.depth = 0
        self.digits = 0  # length of the digit run that ends the previous chunk
        self.values = 1
        self.quotes = 0
        self.objects = 0
        self.non_ascii = False
        self.size = 0
        self.parsed_limit = MAX_PARSED_BYTES if parsed_limit is None else parsed_limit

    def parsed_bytes(self) -> int:
        """The estimate (from above) of the Python memory of the values scanned so far."""
        per = PARSED_BYTES_PER
        # one character beyond ASCII makes Python store the whole text, and a string, with up to
        # 4 bytes per character: count the text four times then (evstat writes ASCII only)
        wide = 3 * self.size if self.non_ascii else 0
        return per["value"] * self.values + per["string"] * (self.quotes // 2 + 1) + per["object"] * self.objects + wide

    def _refuse(self, why: str) -> ValueError:
        return ValueError(f"{self.name} is not a valid {self.what}: {why}; it is not a file saved by evstat")

    def feed(self, chunk: bytes) -> None:
        b = np.frombuffer(chunk, dtype=np.uint8)
        self.size += b.size
        opens = (b == 91) | (b == 123)  # '[' '{'
        step = opens.astype(np.int32) - ((b == 93) | (b == 125))  # ']' '}'
        depth = self.depth + np.cumsum(step, dtype=np.int32)
        if depth.size and int(depth.max()) > MAX_JSON_DEPTH:
            raise self._refuse(
                f"its JSON nests more than {MAX_JSON_DEPTH} levels (evstat.io.jsonfile.MAX_JSON_DEPTH)"
            )
        self.depth = int(depth[-1]) if depth.size else self.depth
        self.values += int(np.count_nonzero(b == 44)) + int(np.count_nonzero(opens))  # ',' '[' '{'
        if self.values > MAX_JSON_VALUES:
            raise self._refuse(
                f"it holds more than {MAX_JSON_VALUES:,} JSON values (evstat.io.jsonfile.MAX_JSON_VALUES, "
                "about 1 GiB once parsed)"
            )
        self.quotes += int(np.count_nonzero(b == 34))  # '"' (escaped ones too: from above)
        self.objects += int(np.count_nonzero(b == 123))
        self.non_ascii = self.non_ascii or bool(b.size and int(b.max()) >= 128)
        if self.parsed_bytes() > self.parsed_limit:
            raise self._refuse(
                f"its first {self.size:,} bytes would take more than {self.parsed_limit:,} bytes of memory once "
                "parsed (evstat.io.jsonfile.MAX_PARSED_BYTES: strings and objects cost more than numbers); a saved "
                "model is made of numbers"
            )
        if self.size > PADDING_FROM_BYTES and self.size > MAX_BYTES_PER_VALUE * self.values:
            raise self._refuse(
                f"its first {self.size:,} bytes hold at most {self.values:,} JSON values, more than "
                f"{MAX_BYTES_PER_VALUE} bytes per value (evstat.io.jsonfile.MAX_BYTES_PER_VALUE): "
                "padding or a giant string, not the numbers of a saved model"
            )
        digit = (b >= 48) & (b <= 57)
        # run lengths of digits: positions where a run starts / ends
        edges = np.flatnonzero(np.diff(np.concatenate(([0], digit.view(np.int8), [0]))))
        starts, ends = edges[::2], edges[1::2]
        if starts.size:
            runs = ends - starts
            if starts[0] == 0:
                runs[0] += self.digits
            longest = int(runs.max())
            self.digits = int(runs[-1]) if ends[-1] == b.size else 0
        else:
            longest, self.digits = 0, 0
        if longest > MAX_JSON_DIGITS:
            raise self._refuse(
                f"it has a number of more than {MAX_JSON_DIGITS} digits (evstat.io.jsonfile.MAX_JSON_DIGITS)"
            )


def read_json(path: str | Path, what: str = "saved model", max_bytes: int | None = None) -> Any:
    """Read a JSON file strictly and within bounds; one clear ``ValueError`` for anything else.

    Parameters
    ----------
    path : str or pathlib.Path
        A regular file (a FIFO such as ``<(cat fit.json)`` works too).
    what : str
        What the file should be, for the messages.
    max_bytes : int, optional
        Largest size read (default :data:`MAX_FILE_BYTES`).

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        A folder, a file larger than ``max_bytes``, invalid UTF-8, invalid JSON, ``NaN`` or
        ``Infinity`` literals, a number of more than :data:`MAX_JSON_DIGITS` digits, nesting
        deeper than :data:`MAX_JSON_DEPTH` or more than :data:`MAX_JSON_VALUES` values.

    Notes
    -----
    Bounded work before parsing: a regular file's size is checked with ``stat`` before a byte
    is read. The file is then read in chunks of :data:`SCAN_CHUNK_BYTES` (1 MiB), and each
    chunk is scanned with numpy (no Python loop per byte) for the nesting depth (brackets and
    braces), the longest run of digits and an upper bound on the number of values (commas and
    opening brackets; characters inside strings are counted too, so the bound is from above);
    beyond :data:`PADDING_FROM_BYTES` (16 MiB) read, more than :data:`MAX_BYTES_PER_VALUE` bytes
    per value is padding (a saved model that large is made of numbers). A file beyond a limit
    is refused as soon as the chunk that crosses it is read, holding what was read so far plus
    the scan's temporaries (about 10 MiB). The scan also estimates from above the Python memory
    of the parsed values (:data:`PARSED_BYTES_PER`; the text four times over once a byte is not
    ASCII) and refuses beyond :data:`MAX_PARSED_BYTES` (``2 * max_bytes`` when given). Only a
    file within every limit is parsed, from its text (the bytes are released first): the peak
    is at most about ``4 * max_bytes`` plus the scan's temporaries whatever the file holds
    (2 GiB at the 512 MiB default; measured by ``tests/hostile/test_hostile_inputs.py``), about
    2.5 times its size for a genuine model of numbers.

    Examples
    --------
    >>> import os, tempfile
    >>> from evstat.io.jsonfile import read_json
    >>> p = os.path.join(tempfile.mkdtemp(), "x.json")
    >>> _ = open(p, "w").write('{"a": NaN}')
    >>> read_json(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: '...x.json' is not a valid saved model: the non-standard JSON literal NaN (a saved model never contains NaN or infinite numbers)
    """
    limit = MAX_FILE_BYTES if max_bytes is None else max_bytes
    p = Path(path)
    name = repr(str(p))
    if p.is_dir():
        raise ValueError(f"{name} is a folder, not a {what} file: pass the path of the .json file")
    if not p.exists():
        raise FileNotFoundError(f"no {what} at {name}")
    too_large = ValueError(
        f"{name} is larger than {limit} bytes, the largest {what} evstat reads "
        "(evstat.io.jsonfile.MAX_FILE_BYTES); it is not a file saved by evstat"
    )
    try:
        if p.is_file() and p.stat().st_size > limit:
            raise too_large  # before reading a byte (a FIFO has no size: it is counted below)
        scan = _JsonScan(name, what, None if max_bytes is None else 2 * limit)
        chunks: list[bytes] = []
        size = 0
        with p.open("rb") as fh:
            while True:
                chunk = fh.read(min(SCAN_CHUNK_BYTES, limit + 1 - size))
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:
                    raise too_large
                scan.feed(chunk)
                chunks.append(chunk)
    except OSError as err:
        raise ValueError(f"cannot read {name}: {err.strerror or err}") from None
    raw = b"".join(chunks)
    chunks.clear()
    text = _text(raw, name)
    del raw  # the parse holds the text and the values, not the bytes too
    return _parse_text(text, name, what)


def loads_strict(raw: bytes, name: str, what: str) -> Any:
    """Parse JSON bytes as strictly as :func:`read_json` (the same scan and limits but the size).

    Parameters
    ----------
    raw : bytes
        The file's content.
    name : str
        The file, as the messages name it.
    what : str
        What the file should be, for the messages.

    Raises
    ------
    DuplicateKeyError
        An object holds a key twice.
    ValueError
        Invalid UTF-8 or JSON, NaN or Infinity, too deep, too many values or digits.

    Examples
    --------
    >>> loads_strict(b'{"seed": 1, "seed": 2}', "'study.json'", "study settings file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.io.jsonfile.DuplicateKeyError: 'study.json' holds the key 'seed' twice in one object: ...
    """
    scan = _JsonScan(name, what)
    for start in range(0, len(raw), SCAN_CHUNK_BYTES):
        scan.feed(raw[start:start + SCAN_CHUNK_BYTES])
    return _parse(raw, name, what)


def _text(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{name} is not a JSON file saved by evstat (not UTF-8 text: {err.reason} at byte {err.start})") from None


def _parse(raw: bytes, name: str, what: str) -> Any:
    return _parse_text(_text(raw, name), name, what)


def _parse_text(text: str, name: str, what: str) -> Any:
    try:
        return json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)
    except _Duplicate as dup:
        raise DuplicateKeyError(
            f"{name} holds the key {dup.key[:80]!r} twice in one object: a JSON reader keeps one of the two "
            f"values silently, so evstat refuses it; it is not a {what} written by evstat (remove the duplicate "
            "or write the file again)") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{name} is not a JSON file saved by evstat ({err})") from None
    except RecursionError:
        raise ValueError(f"{name} is not a valid {what}: its JSON is nested too deeply") from None
    except ValueError as err:  # NaN/Infinity literals, integers of > 4300 digits
        raise ValueError(f"{name} is not a valid {what}: {' '.join(str(err).split())}") from None
