"""Integrity of saved models: the canonical serialisation, the plain checksum and the keyed
signature.

* :func:`checksum`: ``"sha256:<hex>"`` of :func:`canonical_json` (keys sorted, no whitespace,
  ASCII, shortest round-trip floats). It detects *accidental* corruption (a truncated copy, a
  changed byte). It is no protection against a deliberate edit: the algorithm is public, so
  whoever changes a number can recompute it.
* :func:`sign`: ``"hmac-sha256:<hex>"``, HMAC-SHA256 with a secret key over the same
  serialisation; without the key it cannot be recomputed, so ``ev.load(path, key=...)``
  refuses an unsigned, forged or changed file (compared in constant time).
* :func:`check_key`: a key of fewer than :data:`MIN_KEY_BYTES` bytes (16) is refused
  (:class:`WeakKeyError`) by ``fit.save(key=...)``, ``ev.load(key=...)`` and ``evstat predict``
  alike, before anything is signed or checked; an empty key is named as such.

docs/guide/saved-models.md says what each protects against.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

from evstat.exceptions import EvstatError
from evstat.io.schema import SchemaError

__all__ = [
    "MIN_KEY_BYTES", "WeakKeyError", "canonical_json", "check_key", "checksum", "sign", "verify_checksum",
    "verify_signature",
]

#: Shortest signing key accepted (bytes; a str key counts its UTF-8 bytes): 16 bytes, 128 bits
#: if random. ``secrets.token_hex(32)`` gives 64.
MIN_KEY_BYTES = 16


class WeakKeyError(EvstatError, ValueError):
    """A signing key that is empty or shorter than :data:`MIN_KEY_BYTES` bytes."""

_CHECKSUM_PREFIX = "sha256:"


def canonical_json(content: Any) -> str:
    """The canonical serialisation the checksum is computed on: keys sorted, no whitespace,
    ASCII only, no NaN/Infinity, Python's shortest round-trip float repr.

    Examples
    --------
    >>> from evstat.io.integrity import canonical_json
    >>> canonical_json({"b": [1.5, 2], "a": "é"})
    '{"a":"\\\\u00e9","b":[1.5,2]}'
    """
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def checksum(content: Mapping[str, Any]) -> str:
    """``"sha256:<hex>"`` of :func:`canonical_json` of ``content`` without its ``"checksum"`` and
    ``"signature"`` keys.

    The checksum detects *accidental* corruption (a truncated copy, a flipped bit, an editor
    that changed a number). It is no protection against a deliberate edit: anyone who changes a
    coefficient can recompute it. Files exchanged between people or systems should be signed
    (:func:`sign`, ``fit.save(path, key=...)``, ``ev.load(path, key=...)``).

    Examples
    --------
    >>> from evstat.io.integrity import checksum
    >>> checksum({"a": 1}) == checksum({"a": 1, "checksum": "anything"})
    True
    >>> checksum({"a": 1}) == checksum({"a": 2})
    False
    """
    body = {k: v for k, v in content.items() if k not in ("checksum", "signature")}
    return _CHECKSUM_PREFIX + hashlib.sha256(canonical_json(body).encode("ascii")).hexdigest()


_SIGNATURE_PREFIX = "hmac-sha256:"


def check_key(key: Any, name: str = "key") -> bytes:
    """The bytes of a signing key, refused if empty or shorter than :data:`MIN_KEY_BYTES`.

    Parameters
    ----------
    key : str or bytes
        The secret (a str counts its UTF-8 bytes).
    name : str
        How the messages name it (``"key"``, ``"--key"``, ``"--key-file 'secret.txt'"``).

    Raises
    ------
    TypeError
        Neither str nor bytes.
    WeakKeyError
        Empty, or shorter than 16 bytes (the message gives the length and the fix).

    Examples
    --------
    >>> check_key("a secret shared by the two labs")
    b'a secret shared by the two labs'
    >>> check_key(b"")
    Traceback (most recent call last):
    ...
    evstat.io.integrity.WeakKeyError: empty key: a signing key must hold at least 16 bytes; use a random secret, e.g. secrets.token_hex(32)
    >>> check_key("a", name="--key")
    Traceback (most recent call last):
    ...
    evstat.io.integrity.WeakKeyError: --key is 1 byte long: a signing key must hold at least 16 bytes (evstat.io.integrity.MIN_KEY_BYTES); use a random secret, e.g. secrets.token_hex(32)
    """
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, (bytes, bytearray)):
        raise TypeError(f"{name} must be a str or bytes (a secret shared by who signs and who loads), got {type(key).__name__}")
    if len(key) == 0:
        raise WeakKeyError(f"empty {name}: a signing key must hold at least {MIN_KEY_BYTES} bytes; use a random "
                           "secret, e.g. secrets.token_hex(32)")
    if len(key) < MIN_KEY_BYTES:
        raise WeakKeyError(f"{name} is {len(key)} byte{'s' if len(key) != 1 else ''} long: a signing key must hold at "
                           f"least {MIN_KEY_BYTES} bytes (evstat.io.integrity.MIN_KEY_BYTES); use a random secret, "
                           "e.g. secrets.token_hex(32)")
    return bytes(key)


_key_bytes = check_key


def sign(content: Mapping[str, Any], key: str | bytes) -> str:
    """``"hmac-sha256:<hex>"``: HMAC-SHA256 with ``key`` of :func:`canonical_json` of ``content``
    without its ``"checksum"`` and ``"signature"`` keys.

    Unlike the checksum, the signature cannot be recomputed without the key: a file signed by
    ``fit.save(path, key=k)`` and loaded by ``ev.load(path, key=k)`` is refused if anything in it
    was changed, or if it was not signed with ``k``.

    Examples
    --------
    >>> from evstat.io.integrity import sign
    >>> k = "a secret shared by the two labs"
    >>> sign({"a": 1}, k) == sign({"a": 1, "checksum": "x"}, k)
    True
    >>> sign({"a": 1}, k) == sign({"a": 1}, "another secret of the labs")
    False
    """
    body = {k: v for k, v in content.items() if k not in ("checksum", "signature")}
    mac = hmac.new(_key_bytes(key), canonical_json(body).encode("ascii"), hashlib.sha256)
    return _SIGNATURE_PREFIX + mac.hexdigest()


def verify_signature(content: Mapping[str, Any], key: str | bytes, source: str) -> None:
    """Refuse ``content`` that is unsigned or whose signature does not match ``key``.

    The comparison takes constant time (:func:`hmac.compare_digest`). The key is checked first
    (:func:`check_key`): an empty or short key is refused as such, whatever the file.
    """
    check_key(key)
    stored = content.get("signature")
    if not isinstance(stored, str) or not stored.startswith(_SIGNATURE_PREFIX):
        raise SchemaError(
            f"{source} is not signed, but a key was given: only a file saved with "
            "fit.save(path, key=...) can be loaded with ev.load(path, key=...); ask its author "
            "for a signed file (or load it without key= if you trust where it came from)"
        )
    try:
        expected = sign(content, key)
    except ValueError:  # non-finite numbers: never written by evstat
        expected = ""
    if not hmac.compare_digest(expected.encode("ascii"), stored.encode("ascii", "replace")):
        raise SchemaError(
            f"{source} has a signature that does not match the key: it was modified after it "
            "was signed, or signed with another key; evstat refuses it"
        )


def verify_checksum(content: Mapping[str, Any], source: str) -> None:
    """Refuse ``content`` whose ``"checksum"`` is absent, malformed or does not match."""
    stored = content.get("checksum")
    if not isinstance(stored, str) or not stored.startswith(_CHECKSUM_PREFIX):
        raise SchemaError(
            f"{source} has no valid 'checksum' entry (expected \"sha256:<64 hex digits>\"); "
            "evstat writes one with every saved model: refit and save the model again"
        )
    try:
        actual = checksum(content)
    except ValueError:  # non-finite numbers (e.g. 1e999 parsed as inf): never written by evstat
        actual = None
    if actual != stored:
        raise SchemaError(
            f"{source} was modified after it was saved: its content does not match its SHA-256 "
            "checksum, so evstat refuses it (a hand-edited parameter would give wrong "
            "predictions silently); refit and save the model again"
        )
