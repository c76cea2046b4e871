"""Model files (issue 23, items 9 and 11): the reader refuses oversize or malformed content
early and within a memory budget; keyed signatures (HMAC-SHA256) refuse unsigned, forged and
edited files; mutated genuine files load or are refused with an evstat error, never anything
else."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evstat as ev
from evstat.formula import schema  # the old path: its names are re-exports of evstat.io
from evstat.io import jsonfile
from evstat.formula.schema import SchemaError, read_json
from evstat.results import Results, contract_examples

KEY = "a shared secret of the two labs"
EXAMPLES = contract_examples()
METHODS = sorted(m for m, (ex, _) in EXAMPLES.items() if ex is not None)


def _data(n: int = 90, seed: int = 1) -> pd.DataFrame:
    # the contract suite's data (tests/test_contract.py)
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    s1 = 1.0 / (1.0 + np.exp(-(1.2 * (z == 2) - 1.2 * (z == 0) + rng.normal(0, 1, n))))
    s2 = 1.0 / (1.0 + np.exp(-(1.5 * (z == 1) - 0.8 + rng.normal(0, 1, n))))
    return pd.DataFrame({"s1": s1, "s2": s2, "g": rng.choice(["a", "b"], n), "y2": np.where(z == 2, "pos", "neg")})


_FITS: dict[str, Results] = {}


def _fit(method: str) -> Results:
    if method not in _FITS:
        _FITS[method] = EXAMPLES[method][0]("y2", _data())
    return _FITS[method]


def _numbers(node, path=()):
    """Paths of the float leaves of a saved model, in document order."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k not in ("checksum", "signature"):
                yield from _numbers(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _numbers(v, (*path, i))
    elif isinstance(node, float):
        yield path


def _set(node, path, value):
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def _get(node, path):
    for p in path:
        node = node[p]
    return node


def _rewrite(path: Path, d: dict) -> None:
    """Write ``d`` as an attacker would: the plain checksum recomputed, the signature kept."""
    d["checksum"] = schema.checksum(d)
    path.write_text(json.dumps(d))


def _edit_a_parameter(d: dict) -> tuple:
    """Change a stored number that is not calibration data (a parameter where there is one)."""
    paths = list(_numbers(d))
    params = [p for p in paths if not any(k in ("model_frame", "class_frame", "data", "y") for k in p if isinstance(k, str))]
    target = (params or paths)[0]
    _set(d, target, _get(d, target) * 1.5 + 0.25)
    return target


# -- signatures -----------------------------------------------------------------------------------


def test_signed_file_loads_and_predicts_the_same(tmp_path):
    fit = ev.evlogit("y2 ~ s1 + s2", _data())
    path = fit.save(tmp_path / "fit.json", key=KEY)
    d = json.loads(path.read_text())
    assert d["signature"].startswith("hmac-sha256:") and len(d["signature"]) == len("hmac-sha256:") + 64
    back = ev.load(path, key=KEY)
    pd.testing.assert_series_equal(back.predict(_data(7, 2)), fit.predict(_data(7, 2)))
    assert ev.load(path).method == "evlogit"  # a signed file also loads without a key
    assert ev.load(path, key=KEY.encode()).method == "evlogit"  # bytes and str keys agree


def test_unsigned_file_is_refused_with_a_key(tmp_path):
    path = ev.evlogit("y2 ~ s1 + s2", _data()).save(tmp_path / "fit.json")
    with pytest.raises(SchemaError, match="is not signed, but a key was given"):
        ev.load(path, key=KEY)


def test_forged_signature_is_refused(tmp_path):
    """Signed with another key (or a signature copied from another file)."""
    fit = ev.evlogit("y2 ~ s1 + s2", _data())
    path = fit.save(tmp_path / "fit.json", key="the attacker's key")
    with pytest.raises(SchemaError, match="signature that does not match the key"):
        ev.load(path, key=KEY)
    other = ev.evlogit("y2 ~ s1", _data()).save(tmp_path / "other.json", key=KEY)
    d = json.loads(path.read_text())
    d["signature"] = json.loads(other.read_text())["signature"]
    _rewrite(path, d)
    with pytest.raises(SchemaError, match="signature that does not match the key"):
        ev.load(path, key=KEY)


def test_swapped_classes_and_flipped_positive_are_caught_by_the_signature(tmp_path):
    """Issue 23, item 11: evlogit with its classes swapped and `positive` flipped loads with a
    recomputed checksum and inverts every decision (the file stays self-consistent, so no
    re-verification can see it); a signed file refuses it."""
    fit = ev.evlogit("y2 ~ s1 + s2", _data())
    path = fit.save(tmp_path / "fit.json", key=KEY)
    d = json.loads(path.read_text())
    mf = d["model_frame"]
    mf["classes"] = list(reversed(mf["classes"]))
    mf["positive"] = mf["classes"][1]
    _rewrite(path, d)
    with pytest.raises(SchemaError, match="signature that does not match the key"):
        ev.load(path, key=KEY)


def test_bad_keys_are_refused(tmp_path):
    fit = ev.evlogit("y2 ~ s1 + s2", _data())
    with pytest.raises(ValueError, match="empty key"):
        fit.save(tmp_path / "fit.json", key="")
    with pytest.raises(TypeError, match="key must be a str or bytes"):
        fit.save(tmp_path / "fit.json", key=123)


@pytest.mark.slow  # fits every registered model
@pytest.mark.parametrize("method", METHODS)
def test_every_family_edited_parameter_with_recomputed_checksum_is_refused_when_signed(method, tmp_path):
    """For every registered family: change a stored number, recompute the plain checksum (which
    anyone can), and load with the key: refused with a clear message."""
    path = _fit(method).save(tmp_path / "fit.json", key=KEY)
    d = json.loads(path.read_text())
    _edit_a_parameter(d)
    _rewrite(path, d)
    with pytest.raises(SchemaError, match="modified after it was signed, or signed with another key"):
        ev.load(path, key=KEY)
    genuine = _fit(method).save(tmp_path / "genuine.json", key=KEY)
    assert ev.load(genuine, key=KEY).method == method


# -- the reader's limits ----------------------------------------------------------------------------


def test_oversize_file_refused_before_reading(tmp_path):
    """A sparse file just over the cap: refused from its size (stat), not by reading 512 MiB."""
    p = tmp_path / "big.json"
    with p.open("wb") as fh:
        fh.truncate(schema.MAX_FILE_BYTES + 1)
    with pytest.raises(ValueError, match="larger than 536870912 bytes"):
        ev.load(p)


def test_padding_refused_while_streaming(tmp_path):
    """Issue 23, item 9: a file just under the cap was refused after 2 min 16 s and 8.2 GB. A
    file of 17 MiB of padding is refused once 16 MiB are read (MAX_BYTES_PER_VALUE)."""
    p = tmp_path / "pad.json"
    with p.open("w") as fh:
        fh.write('{"format": "evstat", "format_version": 2, "x": "')
        fh.write("a" * (17 * 2**20))
        fh.write('"}')
    with pytest.raises(ValueError, match="MAX_BYTES_PER_VALUE"):
        ev.load(p)


def test_too_many_values_refused_while_streaming(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonfile, "MAX_JSON_VALUES", 1000)
    p = tmp_path / "many.json"
    p.write_text(json.dumps({"format": "evstat", "x": [0.5] * 2000}))
    with pytest.raises(ValueError, match="more than 1,000 JSON values"):
        read_json(p)


@pytest.mark.parametrize(
    "text, match",
    [
        ("[" * 100_000 + "]" * 100_000, "nests more than 64 levels"),
        ('{"a": [' + "9" * 5000 + "]}", "more than 400 digits"),
        ('{"a": ' + "1" * 300 + "." + "5" * 300 + "}", None),  # 300-digit runs are within the limit
    ],
)
def test_deep_nesting_and_huge_numbers_refused_early(tmp_path, text, match):
    p = tmp_path / "x.json"
    p.write_text(text)
    if match is None:
        assert isinstance(read_json(p), dict)
    else:
        with pytest.raises(ValueError, match=match):
            read_json(p)


def test_digit_runs_across_chunk_boundaries(tmp_path, monkeypatch):
    """The streamed scan carries a digit run from one chunk to the next."""
    monkeypatch.setattr(jsonfile, "SCAN_CHUNK_BYTES", 64)
    p = tmp_path / "x.json"
    p.write_text('{"pad": "' + "x" * 50 + '", "a": [' + "7" * 450 + "]}")
    with pytest.raises(ValueError, match="more than 400 digits"):
        read_json(p)
    p.write_text('{"pad": "' + "x" * 50 + '", "a": [' + "7" * 399 + "]}")
    assert read_json(p)["a"][0] == int("7" * 399)


# -- fuzzing genuine files ------------------------------------------------------------------------

_GENUINE: dict[str, bytes] = {}


def _genuine() -> bytes:
    if "evlogit" not in _GENUINE:
        import tempfile

        folder = Path(tempfile.mkdtemp())
        _GENUINE["evlogit"] = ev.evlogit("y2 ~ s1 + s2", _data(40, 3)).save(folder / "fit.json").read_bytes()
    return _GENUINE["evlogit"]


def _load_bytes(raw: bytes, tmp: Path) -> None:
    p = tmp / "m.json"
    p.write_bytes(raw)
    try:
        fit = ev.load(p)
    except ValueError as err:  # SchemaError, FormulaLimitError, UnsafeFormulaError are ValueErrors
        assert str(err)
        return
    assert isinstance(fit, Results)


@settings(max_examples=40, deadline=10_000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_bytes_of_a_genuine_file(tmp_path, data):
    """Truncations and byte changes of a genuine file: loaded or refused with a ValueError."""
    raw = bytearray(_genuine())
    kind = data.draw(st.sampled_from(["truncate", "flip", "insert"]))
    at = data.draw(st.integers(0, len(raw) - 1))
    if kind == "truncate":
        raw = raw[:at]
    elif kind == "flip":
        raw[at] = data.draw(st.integers(0, 255))
    else:
        raw[at:at] = data.draw(st.sampled_from([b"[", b"{", b"9" * 500, b"1e999", b"NaN", b'"', b"\\", b"\xff"]))
    _load_bytes(bytes(raw), tmp_path)


@settings(max_examples=40, deadline=10_000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_values_with_recomputed_checksum(tmp_path, data):
    """A stored number or string replaced and the checksum recomputed (a deliberate edit): the
    model loads (the checksum cannot tell) or is refused with a ValueError; signed, it is refused."""
    d = json.loads(_genuine())
    paths = list(_numbers(d))
    target = data.draw(st.sampled_from(paths))
    value = data.draw(st.one_of(
        st.floats(allow_nan=False, allow_infinity=False), st.integers(-10**6, 10**6),
        st.sampled_from(["y2 ~ I(9**9**9)", "x", None, [], {}, True]),
    ))
    _set(d, target, value)
    d["checksum"] = schema.checksum(d)
    _load_bytes(json.dumps(d).encode(), tmp_path)


# -- re-verification on load (item 11) ---------------------------------------------------------

GLM_METHODS = ["evlogit", "betacal", "evmultinom", "temperature", "vector_scaling", "matrix_scaling", "dirichlet"]


@pytest.mark.parametrize("method", [m for m in GLM_METHODS if m in EXAMPLES])
def test_likelihood_families_refuse_an_edited_coefficient_with_recomputed_checksum(method, tmp_path):
    """Issue 23, item 11: changed coefficients of temperature, vector and matrix scaling,
    evmultinom (and dirichlet, betacal) loaded with a recomputed plain checksum and moved
    predictions by up to 0.68. A maximum-likelihood fit must solve its score equations on the
    saved data (evstat.glm.GlmVerbs._verify_loaded; evlogit and betacal have their own check)."""
    fit = _fit(method)
    genuine = fit.save(tmp_path / "genuine.json")
    back = ev.load(genuine)
    pd.testing.assert_frame_equal(
        pd.DataFrame(back.predict(_data(7, 2))), pd.DataFrame(fit.predict(_data(7, 2)))
    )
    d = json.loads(genuine.read_text())
    _edit_a_parameter(d)
    edited = tmp_path / "edited.json"
    _rewrite(edited, d)
    with pytest.raises(ValueError, match="not the maximum-likelihood estimate"):
        ev.load(edited)  # SchemaError from GlmVerbs; evlogit's own check raises a ValueError
