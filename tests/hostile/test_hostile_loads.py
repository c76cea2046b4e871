"""Loads that should not (issue 41, item 5): JSON with a key twice, signing keys under 16 bytes,
masked arrays. The command-line cases run the real ``evstat`` command."""

from __future__ import annotations

import json

import numpy as np
import pytest

import evstat as ev
from evstat.experiments.store import read_settings
from evstat.formula.arrays import MaskedArrayError
from evstat.io.integrity import MIN_KEY_BYTES, WeakKeyError
from evstat.io.jsonfile import DuplicateKeyError

from hostile_helpers import one_line, run

KEY = "a secret shared by the two labs"


@pytest.fixture(scope="module")
def signed(tmp_path_factory):
    root = tmp_path_factory.mktemp("loads")
    cal = ev.datasets.simulate_gaussian(80, seed=4)
    fit = ev.evlogit("y ~ x1 + x2", data=cal)
    path = fit.save(root / "signed.json", key=KEY)
    cal.to_csv(root / "x.csv", index=False)
    (root / "key.txt").write_text(KEY + "\n")
    return root, fit, path


def _duplicated(path, key, value):
    """The file with ``"key": value`` written once more before the genuine entry (a JSON parser
    keeps the last: the genuine one, which the signature covers; a reader that keeps the first
    sees the forged one)."""
    text = path.read_text()
    assert text.startswith("{")
    return "{" + json.dumps(key) + ": " + json.dumps(value) + "," + text[1:]


@pytest.mark.parametrize("key,value", [("params", [9.0, 9.0, 9.0]), ("method", "evbinning")])
def test_signed_file_with_a_key_twice_is_refused(signed, tmp_path, key, value):
    root, fit, path = signed
    forged = tmp_path / "forged.json"
    forged.write_text(_duplicated(path, key, value))
    for k in (KEY, None):  # before issue 41: loaded, signature and all
        with pytest.raises(DuplicateKeyError, match=f"holds the key '{key}' twice in one object"):
            ev.load(forged, key=k)
    r = run("predict", forged, "--data", root / "x.csv", "-o", tmp_path / "o.csv", "--key-file", root / "key.txt",
            "--quiet", "--jobs", "1")
    line = one_line(r.stderr)
    assert r.returncode == 2 and f"'{forged}' holds the key '{key}' twice" in line
    assert not (tmp_path / "o.csv").exists()


def test_duplicate_key_deep_in_a_model_is_refused(signed, tmp_path):
    _, _, path = signed
    d = json.loads(path.read_text())
    text = json.dumps(d)
    inner = text.replace('"terms":', '"terms": [], "terms":', 1)
    assert inner != text
    (tmp_path / "f.json").write_text(inner)
    with pytest.raises(DuplicateKeyError, match="'terms' twice"):
        ev.load(tmp_path / "f.json")


def test_study_settings_with_a_key_twice_are_not_trusted(tmp_path):
    p = tmp_path / "study.json"
    p.write_text('{"seed": 2019, "seed": 7}')
    assert read_settings(p) is None  # unreadable: the study starts over or the record decides


@pytest.mark.parametrize("key", ["a", "s3cret", b"x" * (MIN_KEY_BYTES - 1)])
def test_short_keys_are_refused_by_save_and_load(signed, tmp_path, key):
    _, fit, path = signed
    n = len(key)
    with pytest.raises(WeakKeyError, match=f"key is {n} bytes? long: a signing key must hold at least 16 bytes"):
        fit.save(tmp_path / "f.json", key=key)
    assert not (tmp_path / "f.json").exists()
    with pytest.raises(WeakKeyError, match=f"key is {n} bytes? long"):
        ev.load(path, key=key)
    fit.save(tmp_path / "ok.json", key=b"x" * MIN_KEY_BYTES)  # 16 bytes: fine


@pytest.mark.parametrize("key", ["", b""])
def test_empty_key_is_named_on_load(signed, key):
    _, fit, path = signed
    with pytest.raises(WeakKeyError, match="^empty key"):  # before: "signature does not match"
        ev.load(path, key=key)
    with pytest.raises(WeakKeyError, match="^empty key"):
        fit.save(path.parent / "never.json", key=key)


def test_short_key_from_the_command_line(signed, tmp_path):
    root, _, _ = signed
    r = run("predict", root / "signed.json", "--data", root / "x.csv", "-o", tmp_path / "o.csv", "--key", "s3cret",
            "--quiet", "--jobs", "1")
    assert r.returncode == 2 and "--key is 6 bytes long: a signing key must hold at least 16 bytes" in one_line(r.stderr)
    (tmp_path / "short.txt").write_text("s3cret\n")
    r = run("predict", root / "signed.json", "--data", root / "x.csv", "-o", tmp_path / "o.csv",
            "--key-file", tmp_path / "short.txt", "--quiet", "--jobs", "1")
    line = one_line(r.stderr)
    assert r.returncode == 2 and f"the secret in --key-file '{tmp_path / 'short.txt'}' is 6 bytes long" in line
    assert not (tmp_path / "o.csv").exists()


def test_masked_arrays_are_refused(signed):
    _, fit, _ = signed
    cal = ev.datasets.simulate_gaussian(80, seed=4)
    X = cal[["x1", "x2"]].to_numpy()
    masked = np.ma.masked_array(X, mask=np.zeros_like(X, dtype=bool))
    masked.mask[3, 1] = True
    with pytest.raises(MaskedArrayError, match="X is a numpy masked array with 1 masked entry"):
        ev.evlogit.from_arrays(masked, cal["y"].to_numpy())
    with pytest.raises(MaskedArrayError, match="y is a numpy masked array"):
        ev.evlogit.from_arrays(X, np.ma.masked_array(cal["y"].to_numpy(), mask=[i == 0 for i in range(len(cal))]))
    for verb in (lambda a: fit.predict(a, type="belief"), fit.decide, fit.augment):
        with pytest.raises(MaskedArrayError, match="newdata is a numpy masked array"):
            verb(masked)
    assert len(fit.predict(masked.data)) == len(X)  # what the message offers


def test_masked_arrays_refused_by_the_scikit_learn_wrapper():
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LogisticRegression

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    cal = ev.datasets.simulate_gaussian(120, seed=5)
    X = np.ma.masked_array(cal[["x1", "x2"]].to_numpy(), mask=False)
    X.mask[0, 0] = True
    clf = EvidentialCalibratedClassifierCV(LogisticRegression(), method="evlogit", cv=2)
    with pytest.raises(MaskedArrayError, match="X is a numpy masked array"):
        clf.fit(X, cal["y"].to_numpy())
    clf.fit(X.data, cal["y"].to_numpy())
    with pytest.raises(MaskedArrayError, match="X is a numpy masked array"):
        clf.predict_proba(X)


def test_examples(doctests):
    doctests("evstat.io.integrity", min_examples=4)
    doctests("evstat.io.jsonfile", min_examples=2)
    doctests("evstat.formula.arrays", min_examples=2)


# ---------------------------------------------------------------- issue 41 item 5: separable fits
def _iris_scaling(method):
    import warnings

    scores = ev.datasets.load("iris_scores")
    cal = scores[scores["set"] == "calibration"]
    test = scores[scores["set"] == "test"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the optimiser's warning on separable rows
        fit = getattr(ev, method)("y ~ logp_setosa + logp_versicolor + logp_virginica", cal)
    return fit, test


def _flat_edit(fit, d: dict, size: float) -> dict:
    """The saved coefficients moved along a flat direction of the information (not a softmax
    shift): the edit the score equations cannot see."""
    X, _ = fit._design(None)
    G = fit._glm_design(np.asarray(X, dtype=float))
    beta = np.asarray(fit._glm_coef(), dtype=float)
    z = np.einsum("nkd,d->nk", G, beta)
    P = np.exp(z - z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    GP = np.einsum("nkd,nk->nd", G, P)
    info = np.einsum("nkd,nk,nke->de", G, P, G) - GP.T @ GP
    w, V = np.linalg.eigh(info)
    Gc = G - G.mean(axis=1, keepdims=True)
    for j in np.argsort(w):
        v = V[:, j]
        if np.abs(np.einsum("nkd,d->nk", Gc, v)).max() > 1e-3:  # moves the probabilities: no shift
            break
    return dict(d, coef=(np.asarray(d["coef"]) + size * v / np.abs(v).max()).tolist())


@pytest.mark.parametrize("method", ["matrix_scaling", "vector_scaling"])
def test_separable_fit_records_what_its_load_check_cannot_verify(method, tmp_path):
    """The issue's finding: vector and matrix scaling on the separable iris scores, coefficients
    edited (checksum recomputed), loaded silently and changed decisions. The edit along a flat
    direction still solves the score equations (no check from the data can refuse it), so the
    fit records it (``load_check``) and an unsigned load warns that only a signature protects
    the file; a signed file refuses the edit."""
    from evstat.formula.schema import checksum
    from evstat.results import UnverifiedLoadWarning

    fit, test = _iris_scaling(method)
    assert fit.load_check.startswith("not the coefficients: the likelihood is flat along")
    assert "only a signature protects them" in fit.load_check
    key = "a key of more than sixteen bytes"
    path = fit.save(tmp_path / "m.json")
    with pytest.warns(UnverifiedLoadWarning, match=r"cannot verify this .* only a signature protects this file"):
        loaded = ev.load(path)
    assert loaded.load_check == fit.load_check
    d = json.loads(path.read_text(encoding="utf-8"))
    edited = _flat_edit(fit, d, 40.0)
    edited["checksum"] = checksum({k: v for k, v in edited.items() if k != "checksum"})
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(edited), encoding="utf-8")
    with pytest.warns(UnverifiedLoadWarning):
        moved = ev.load(bad)
    assert not np.allclose(moved._glm_coef(), fit._glm_coef())
    signed = fit.save(tmp_path / "s.json", key=key)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", UnverifiedLoadWarning)  # a signed load does not warn
        ev.load(signed, key=key)
    s = json.loads(signed.read_text(encoding="utf-8"))
    s_edit = _flat_edit(fit, s, 40.0)
    s_path = tmp_path / "s_edit.json"
    s_path.write_text(json.dumps(s_edit), encoding="utf-8")
    with pytest.raises(ValueError):
        ev.load(s_path, key=key)


def test_fit_with_a_maximum_loads_without_the_warning(tmp_path):
    import warnings

    from evstat.results import UnverifiedLoadWarning

    fit, _ = _iris_scaling("temperature")
    assert fit.load_check.startswith("the score equations on the saved calibration data")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnverifiedLoadWarning)
        ev.load(fit.save(tmp_path / "t.json"))
