"""Hostile saved-model files: ``ev.load`` gives one clear error and never runs code (issue 9, 1).

Every formula attack writes a marker file if it is executed; each test asserts the error message
*and* that the marker does not exist. Files whose checksum is recomputed after the edit (as an
attacker would) exercise the schema and the formula whitelist; files edited without it
exercise the checksum.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import evstat as ev
from evstat.formula import schema, whitelist  # schema: the old path, re-exports of evstat.io
from evstat.io import jsonfile
from evstat.formula.schema import SchemaError, checksum
from evstat.formula.whitelist import UnsafeFormulaError


@pytest.fixture(scope="module")
def cal() -> pd.DataFrame:
    d = ev.datasets.load("sonar_scores")
    c = d[d["set"] == "calibration"].reset_index(drop=True)
    return c.assign(p1=expit(3 * c["svm1"]))


@pytest.fixture(scope="module")
def fit(cal):
    return ev.evlogit("y ~ svm1 + svm2 + svm3", cal)


@pytest.fixture()
def saved(fit, tmp_path) -> dict:
    return json.loads(fit.save(tmp_path / "fit.json").read_text(encoding="utf-8"))


@pytest.fixture()
def marker(tmp_path, monkeypatch) -> Path:
    """The file an executed attack would create (the working folder is tmp_path)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path / "PWNED"


def _write(path: Path, d: dict, rechecksum: bool = True) -> Path:
    d = dict(d)
    if rechecksum:
        d["checksum"] = checksum(d)
    path.write_text(json.dumps(d), encoding="utf-8")
    return path


def _with_formula(d: dict, formula: str, terms: list[str] | None = None) -> dict:
    mf = dict(d["model_frame"], formula=formula)
    if terms is not None:
        mf["terms"] = terms
    return dict(d, model_frame=mf)


ATTACKS = [
    ("y ~ I(svm2 + 0*__import__('os').system('touch PWNED'))", r"not allowed: the call of \"__import__\('os'\).system\""),
    ("y ~ svm1 + I(__import__('os').system('touch PWNED'))", r"not allowed: the call of"),
    ("y ~ I(open('PWNED', 'w').close())", r"not allowed: the call of \"open\('PWNED', 'w'\).close\""),
    ("y ~ I(open('PWNED', 'w'))", r"the function 'open' is not one of the documented formula functions"),
    ("y ~ I(eval(\"open('PWNED', 'w')\"))", r"the function 'eval' is not one of the documented"),
    ("y ~ I(exec(\"open('PWNED', 'w')\"))", r"the function 'exec' is not one of the documented"),
    ("y ~ np.__class__", r"the attribute access 'np.__class__'"),
    ("y ~ I(np.load('PWNED'))", r"the call of 'np.load'"),
    ("y ~ I(svm1.__class__)", r"the attribute access 'svm1.__class__'"),
    ("y ~ __import__", r"the dunder name '__import__'"),
    ("y ~ Q('__builtins__')", r"the dunder name '__builtins__'"),
    ("y ~ I((lambda: open('PWNED', 'w'))())", r"the call of a lambda"),
    ("y ~ svm1 + lambda s: s", r"uses the Python keyword 'lambda'"),
    ("y ~ I([open('PWNED', 'w') for _ in svm1])", r"a comprehension"),
    ("y ~ I(svm1[0])", r"a subscript"),
    ("y ~ I(getattr(np, 'load'))", r"the function 'getattr' is not one of the documented"),
    ("y ~ I(globals())", r"the function 'globals' is not one of the documented"),
    ("y ~ I(svm1 if open('PWNED', 'w') else svm2)", r"a conditional expression"),
    ("y ~ I((x := open('PWNED', 'w')))", r"an assignment \(:=\)"),
    ("y ~ I(f'{open(1)}')", r"an f-string"),
    ("y ~ I(print)", r"the Python built-in 'print'"),
    ("y ~ I(_patsy_stobj0__center__)", r"the dunder name '_patsy_stobj0__center__'"),
]


# ---------------------------------------------------------------------------------------------
# code in the formula
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("formula,message", ATTACKS)
def test_load_refuses_code_in_formula(saved, tmp_path, marker, formula, message):
    path = _write(tmp_path / "evil.json", _with_formula(saved, formula))
    with pytest.raises(UnsafeFormulaError, match=message):
        ev.load(path)
    assert not marker.exists()


@pytest.mark.parametrize("formula,message", ATTACKS)
def test_fit_refuses_code_in_formula(cal, marker, formula, message):
    with pytest.raises(UnsafeFormulaError, match=message):
        ev.evlogit(formula, cal)
    assert not marker.exists()


def test_issue_reproduction_terms_also_edited(saved, tmp_path, marker):
    # the reproduction of the issue: term and terms edited together, checksum recomputed
    evil = "I(svm2 + 0*__import__('os').system('touch PWNED'))"
    d = _with_formula(saved, f"y ~ svm1 + {evil} + svm3", ["Intercept", "svm1", evil, "svm3"])
    with pytest.raises(UnsafeFormulaError, match="is not allowed"):
        ev.load(_write(tmp_path / "evil.json", d))
    # edited without recomputing the checksum: refused as modified, before the formula is read
    with pytest.raises(SchemaError, match="was modified after it was saved"):
        ev.load(_write(tmp_path / "evil2.json", d, rechecksum=False))
    assert not marker.exists()


def test_code_in_response_and_nested_calibrator(cal, tmp_path, marker):
    fit = ev.evlogit("y ~ svm1", cal)
    d = json.loads(fit.save(tmp_path / "a.json").read_text())
    d["model_frame"]["formula"] = "I(__import__('os').system('touch PWNED')) ~ svm1"
    with pytest.raises(UnsafeFormulaError, match="is not allowed"):
        ev.load(_write(tmp_path / "lhs.json", d))
    dj = json.loads(ev.disjoint("y ~ svm1 + svm2", cal).save(tmp_path / "d.json").read_text())
    dj["calibrators"][1]["model_frame"]["formula"] = "y ~ I(svm2 + 0*__import__('os').system('touch PWNED'))"
    with pytest.raises(UnsafeFormulaError, match="is not allowed"):
        ev.load(_write(tmp_path / "nested.json", dj))
    assert not marker.exists()


def test_classifier_frame_formula_is_checked(cal, tmp_path, marker):
    d = json.loads(ev.eknn("y ~ svm1 + svm2", cal).save(tmp_path / "k.json").read_text())
    d["class_frame"]["design"]["formula"] = "y ~ svm1 + I(svm2 + 0*__import__('os').system('touch PWNED'))"
    with pytest.raises(UnsafeFormulaError, match="is not allowed"):
        ev.load(_write(tmp_path / "k2.json", d))
    assert not marker.exists()


def test_evaluation_environment_has_no_builtins(marker):
    env = whitelist.eval_env()
    for name in ("open", "__import__", "eval", "exec", "getattr", "print"):
        with pytest.raises(NameError):
            env.eval(name)
    assert env.eval("np.log(1.0) + abs(-2)") == 2.0
    assert not hasattr(env.eval("np"), "load")  # np is a namespace of the listed functions only
    # the copies patsy makes keep the property
    with pytest.raises(NameError):
        env.subset(["np"]).eval("open")
    assert set(whitelist.namespace()) == {"np", "numpy", *whitelist.SHORTCUTS, *whitelist.BUILTINS}


def test_whitelist_accepts_the_documented_language(cal):
    ok = [
        "y ~ svm1 + np.log(svm2 + 2) + I(svm3**2)",
        "y ~ center(svm1) + standardize(svm2) + scale(svm3)",
        "y ~ bs(svm1, df=4)",
        'y ~ cr(svm1, df=4, constraints="center")',
        "y ~ np.clip(svm1, -0.5, 0.5) + abs(svm2) + logit(expit(svm3))",
        "y ~ I(np.pi * svm1) + np.where(svm2 > 0, svm2, 0)",
        "y ~ 0 + svm1 + svm2",
        "y ~ svm1 * svm2",
        'Q("y") ~ Q("svm1")',
    ]
    for formula in ok:
        whitelist.check_formula(formula)
        assert ev.evlogit(formula, cal).params.notna().all()


def test_column_named_like_a_builtin_is_allowed(cal):
    data = cal.rename(columns={"svm1": "id", "svm2": "max"})
    fit = ev.evlogit("y ~ id + max", data)
    assert fit.terms == ["Intercept", "id", "max"]
    with pytest.raises(UnsafeFormulaError, match="the Python built-in 'id'"):
        whitelist.check_formula("y ~ id")  # without the data's columns it is the built-in


def test_column_name_with_space(cal):
    data = cal.rename(columns={"svm1": "svm 1"})
    with pytest.raises(ValueError, match=r"'svm 1' in formula 'y ~ svm 1' is a column name .* quote it as Q\(\"svm 1\"\)"):
        ev.evlogit("y ~ svm 1", data)
    with pytest.raises(ValueError, match=r"term 'svm 9' .* not a column name .* quoted, e.g. Q\(\"svm 9\"\)"):
        ev.evlogit("y ~ svm 9", data)
    assert ev.evlogit('y ~ Q("svm 1")', data).terms == ["Intercept", 'Q("svm 1")']


# ---------------------------------------------------------------------------------------------
# schema
# ---------------------------------------------------------------------------------------------


def test_params_of_wrong_length(saved, tmp_path):
    d = dict(saved, params=saved["params"][:3])
    with pytest.raises(SchemaError, match=r"params has 3 values, but the design has 4 columns \(model_frame.terms\)"):
        ev.load(_write(tmp_path / "p.json", d))


def test_strings_for_numbers(saved, tmp_path):
    d = dict(saved, params=[str(v) for v in saved["params"]])
    with pytest.raises(SchemaError, match=r"params\[0\] must be a number, got the string '-?0\.\d+"):
        ev.load(_write(tmp_path / "s.json", d))
    mf = dict(saved["model_frame"], data=dict(saved["model_frame"]["data"], svm2=["1"] * 79))
    with pytest.raises(SchemaError, match=r"model_frame.data\['svm2'\]\[0\] must be a number, got the string '1'"):
        ev.load(_write(tmp_path / "s2.json", dict(saved, model_frame=mf)))


def test_missing_data_key(saved, tmp_path):
    mf = {k: v for k, v in saved["model_frame"].items() if k != "data"}
    with pytest.raises(SchemaError, match="model_frame lacks the required key 'data'"):
        ev.load(_write(tmp_path / "m.json", dict(saved, model_frame=mf)))
    d = {k: v for k, v in saved.items() if k != "params"}
    with pytest.raises(SchemaError, match="lacks the required key 'params'"):
        ev.load(_write(tmp_path / "m2.json", d))


def test_unknown_key_and_wrong_types(saved, tmp_path):
    with pytest.raises(SchemaError, match="has the unknown key 'extra'"):
        ev.load(_write(tmp_path / "u.json", dict(saved, extra=1)))
    with pytest.raises(SchemaError, match=r"targets must be one of \['platt', 'binary'\], got 'x'"):
        ev.load(_write(tmp_path / "t.json", dict(saved, targets="x")))
    mf = dict(saved["model_frame"], y=[2] * 79)
    with pytest.raises(SchemaError, match=r"model_frame.y\[0\] must be one of \[0, 1\], got 2"):
        ev.load(_write(tmp_path / "y.json", dict(saved, model_frame=mf)))
    mf = dict(saved["model_frame"], y=saved["model_frame"]["y"][:-1])
    with pytest.raises(SchemaError, match=r"data\['svm1'\] has 79 values, but y has 78 rows"):
        ev.load(_write(tmp_path / "y2.json", dict(saved, model_frame=mf)))
    mf = dict(saved["model_frame"], index={"type": "evil"})
    with pytest.raises(SchemaError, match="model_frame.index must be an object with 'type' one of"):
        ev.load(_write(tmp_path / "i.json", dict(saved, model_frame=mf)))
    with pytest.raises(SchemaError, match=r"params must be a list, got an object"):
        ev.load(_write(tmp_path / "o.json", dict(saved, params={"a": 1})))


def test_edited_params_fail_the_checksum(saved, tmp_path):
    d = dict(saved, params=[0.0] * 4)  # vacuous predictions, silently accepted before
    with pytest.raises(SchemaError, match="was modified after it was saved: its content does not match its SHA-256 checksum"):
        ev.load(_write(tmp_path / "e.json", d, rechecksum=False))
    # whitespace and key order do not matter (the checksum is over the canonical content)
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(dict(reversed(list(saved.items()))), indent=4), encoding="utf-8")
    assert ev.load(pretty).params.tolist() == saved["params"]
    no_sum = {k: v for k, v in saved.items() if k != "checksum"}
    with pytest.raises(SchemaError, match="has no valid 'checksum' entry"):
        ev.load(_write(tmp_path / "n.json", no_sum, rechecksum=False))


def test_huge_numbers(saved, tmp_path):
    # 1e999 overflows to inf when parsed: the finite-number check names the field
    p = tmp_path / "h.json"
    p.write_text(json.dumps(saved).replace(json.dumps(saved["params"][1]), "1e999", 1))
    with pytest.raises(SchemaError, match=r"params\[1\] must be a finite number, got inf"):
        ev.load(p)
    body = {k: v for k, v in saved.items() if k != "checksum"}
    body["params"] = [1.0, 1e300, 1.0, 1.0]
    p2 = tmp_path / "h2.json"
    p2.write_text(json.dumps({**body, "checksum": checksum(body)}).replace("1e+300", "1e999"))
    with pytest.raises(SchemaError, match=r"params\[1\] must be a finite number, got inf"):
        ev.load(p2)
    # nested, in the calibration data
    mf = dict(saved["model_frame"], data=dict(saved["model_frame"]["data"], svm2=[1e300] * 79))
    body = dict(body, params=saved["params"], model_frame=mf)
    p3 = tmp_path / "h3.json"
    p3.write_text(json.dumps({**body, "checksum": checksum(body)}).replace("1e+300", "-1e999"))
    with pytest.raises(SchemaError, match=r"model_frame.data\['svm2'\]\[0\] must be a finite number, got -inf"):
        ev.load(p3)
    p4 = tmp_path / "h4.json"
    p4.write_text('{"format": "evstat", "format_version": 2, "params": [' + "9" * 5000 + "]}")
    with pytest.raises(ValueError, match=r"is not a valid saved model: it has a number of more than 400 digits"):
        ev.load(p4)  # refused by the streamed scan, before Python's 4300-digit limit
    d5 = dict(saved, params=[10**350, 0, 0, 0])
    with pytest.raises(SchemaError, match=r"params\[0\] is a number too large for a float"):
        ev.load(_write(tmp_path / "h5.json", d5))


@pytest.mark.parametrize("value", [1e308, -1e30, 0.5])
def test_edited_params_with_recomputed_checksum_are_not_the_maximum(saved, tmp_path, value):
    """An edit with a recomputed checksum used to load; predict then failed deep inside the
    profile refits ("array must not contain infs or NaNs", "reference GLM refit with offset did
    not converge") or, for a small edit, gave pl > 1. The score equations are checked at load."""
    params = list(saved["params"])
    params[1] = params[1] + value
    with pytest.raises(ValueError, match=r"the saved coefficients are not the maximum-likelihood estimate of the "
                                         r"saved calibration data: the score equation of '\w+' is off by"):
        ev.load(_write(tmp_path / "p.json", dict(saved, params=params)))
    assert ev.load(_write(tmp_path / "ok.json", saved)).params.tolist() == saved["params"]


def test_deep_nesting(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(ValueError, match="nests more than 64 levels"):
        ev.load(p)  # refused by the streamed scan before parsing (evstat.formula.schema.MAX_JSON_DEPTH)
    p2 = tmp_path / "deep2.json"
    p2.write_text('{"format": "evstat", "format_version": 2, "method": "evlogit", "params": ' + "[" * 500 + "]" * 500 + "}")
    with pytest.raises(ValueError, match="nests more than 64 levels"):
        ev.load(p2)
    p3 = tmp_path / "deep3.json"
    p3.write_text('{"format": "evstat", "format_version": 2, "method": "evlogit", "params": ' + "[" * 50 + "]" * 50 + "}")
    with pytest.raises(ValueError, match="the content lacks the required key 'model_frame'"):
        ev.load(p3)


def test_deep_nesting_with_checksum(saved, tmp_path):
    nested: list = []
    for _ in range(50):
        nested = [nested]
    d = dict(saved, params=nested)
    with pytest.raises(SchemaError, match=r"params has 1 values, but the design has 4 columns"):
        ev.load(_write(tmp_path / "n.json", d))


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_literals(saved, tmp_path, literal):
    p = tmp_path / "nan.json"
    p.write_text(json.dumps(saved).replace(json.dumps(saved["params"][0]), literal, 1))
    with pytest.raises(ValueError, match=f"non-standard JSON literal {literal}"):
        ev.load(p)


def test_files_that_are_not_saved_models(tmp_path, monkeypatch, saved):
    with pytest.raises(ValueError, match="is a folder, not a saved model file"):
        ev.load(tmp_path)
    p = tmp_path / "x.json"
    p.write_text("model: yes\n")
    with pytest.raises(ValueError, match="is not a JSON file saved by evstat"):
        ev.load(p)
    p.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ValueError, match="not UTF-8 text"):
        ev.load(p)
    p.write_text("[1, 2]")
    with pytest.raises(ValueError, match="is not a model saved by evstat"):
        ev.load(p)
    with pytest.raises(FileNotFoundError, match="no saved model at"):
        ev.load(tmp_path / "absent.json")
    big = _write(tmp_path / "big.json", saved)
    monkeypatch.setattr(jsonfile, "MAX_FILE_BYTES", 1000)
    with pytest.raises(ValueError, match=r"is larger than 1000 bytes, the largest saved model evstat reads"):
        ev.load(big)


def test_format_version_and_kind(saved, tmp_path):
    with pytest.raises(ValueError, match="format version 99; this evstat reads version 2"):
        ev.load(_write(tmp_path / "v.json", dict(saved, format_version=99)))
    with pytest.raises(ValueError, match=r"format version 1 \(written by an older evstat, without a checksum\)"):
        ev.load(_write(tmp_path / "v1.json", dict(saved, format_version=1)))
    with pytest.raises(ValueError, match=r"unknown calibrator 'pickle'; known: \["):
        ev.load(_write(tmp_path / "k.json", dict(saved, method="pickle")))
    with pytest.raises(ValueError, match="unknown calibrator"):
        ev.load(_write(tmp_path / "k2.json", dict(saved, method=["evlogit"])))


# ---------------------------------------------------------------------------------------------
# every model kind goes through the same mechanism
# ---------------------------------------------------------------------------------------------

MODELS = {
    "evlogit": ("y ~ svm1 + svm2", {}, "params"),
    "evbinning": ("y ~ svm1 + svm2", {}, "k"),
    "isotonic": ("y ~ svm1", {}, "cuts"),
    "betacal": ("y ~ p1", {}, "active"),
    "disjoint": ("y ~ svm1 + svm2", {}, "calibrators"),
    "eknn": ("y ~ svm1 + svm2", {}, "gamma"),
    "gbt": ("y ~ svm1 + svm2", {}, "radius"),
    "credal_knn": ("y ~ svm1 + svm2", {"rho": "loo"}, "dbar"),
    "evnn": ("y ~ svm1 + svm2", {"seed": 1}, "W"),
}


@pytest.mark.parametrize("method", list(MODELS))
def test_every_model_round_trips_and_is_validated(cal, tmp_path, method):
    formula, kwargs, key = MODELS[method]
    fit = getattr(ev, method)(formula, cal, **kwargs)
    path = fit.save(tmp_path / f"{method}.json")
    d = json.loads(path.read_text())
    assert d["checksum"] == checksum(d) and d["format_version"] == 2
    back = ev.load(path)
    pd.testing.assert_frame_equal(back.predict(cal, type="belief"), fit.predict(cal, type="belief"))
    # a model-specific key removed, checksum recomputed: the schema names it
    with pytest.raises(SchemaError, match=f"lacks the required key '{key}'"):
        ev.load(_write(tmp_path / "missing.json", {k: v for k, v in d.items() if k != key}))
    # edited without the checksum
    frame = "class_frame" if method in ("eknn", "gbt", "credal_knn", "evnn") else "model_frame"
    edited = json.loads(path.read_text())
    data = (edited[frame]["design"] if frame == "class_frame" else edited[frame])["data"]
    first = next(iter(data))
    data[first][0] = data[first][0] * 0.5 + 0.01
    with pytest.raises(SchemaError, match="was modified after it was saved"):
        ev.load(_write(tmp_path / "edited.json", edited, rechecksum=False))


def test_every_registered_model_declares_a_schema():
    from evstat.results import registered

    for method, cls in registered().items():
        spec = cls.schema()
        assert set(spec.required) >= {"format", "format_version", "method"}, method
        assert "checksum" in spec.optional, method


def test_model_specific_consistency(cal, tmp_path):
    d = json.loads(ev.evbinning("y ~ svm1 + svm2", cal).save(tmp_path / "b.json").read_text())
    bad = dict(d, k=[n + 1 for n in d["n"]])
    with pytest.raises(SchemaError, match=r"k\[0\] = \d+ exceeds n\[0\]"):
        ev.load(_write(tmp_path / "b1.json", bad))
    bad = dict(d, cells=[c + 10**6 for c in d["cells"]])
    with pytest.raises(SchemaError, match="cells lists a cell >= n_cells"):
        ev.load(_write(tmp_path / "b2.json", bad))
    bad = dict(d, n_cells=d["n_cells"] + 1)
    with pytest.raises(SchemaError, match=r"n_cells is \d+, but the cuts give \d+ cells"):
        ev.load(_write(tmp_path / "b3.json", bad))
    k = json.loads(ev.eknn("y ~ svm1 + svm2", cal).save(tmp_path / "k.json").read_text())
    with pytest.raises(SchemaError, match=r"gamma has 3 values, but there are 2 classes \(class_frame.levels\)"):
        ev.load(_write(tmp_path / "k1.json", dict(k, gamma=[1.0, 1.0, 1.0])))
    with pytest.raises(SchemaError, match=r"k = 1000 exceeds the 79 training rows"):
        ev.load(_write(tmp_path / "k2.json", dict(k, k=1000)))
    dj = json.loads(ev.disjoint("y ~ svm1 + svm2", cal).save(tmp_path / "d.json").read_text())
    dj["calibrators"][0]["params"] = [1.0]
    with pytest.raises(SchemaError, match=r"calibrators\[0\].params has 1 values, but the design has 2 columns"):
        ev.load(_write(tmp_path / "d1.json", dj))


def test_loading_reads_a_pipe(fit, tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")
    text = fit.save(tmp_path / "fit.json").read_text()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    import threading

    def feed() -> None:
        with open(fifo, "w", encoding="utf-8") as fh:
            fh.write(text)

    t = threading.Thread(target=feed)
    t.start()
    back = ev.load(fifo)
    t.join()
    np.testing.assert_array_equal(back.params.to_numpy(), fit.params.to_numpy())


@pytest.mark.parametrize(
    "name",
    ["evstat.formula.whitelist", "evstat.io.schema", "evstat.io.integrity", "evstat.io.jsonfile", "evstat.io.state", "evstat.results"],
)
def test_docstring_examples(name, doctests):
    doctests(name)


@pytest.mark.parametrize(
    "edit, message",
    [
        ({"response": "x"}, r"response = 'x' is not the response 'y' of the formula"),
        ({"classes": [True, 1]}, r"classes lists a class twice \(or two equal labels such as true and 1\)"),
        ({"classes": [None, 1]}, r"classes holds null"),
        ({"classes": [0, "x"]}, r"positive = 1 must be the second class 'x'"),
        ({"positive": None}, r"positive = None must be the second class 1"),
    ],
)
def test_edited_model_frame_labels_are_refused(saved, tmp_path, edit, message):
    """These edits (checksum recomputed) used to load: a response name that is not the formula's,
    duplicated or null class labels, a positive level that is not the one coded 1."""
    d = dict(saved, model_frame=dict(saved["model_frame"], **edit))
    with pytest.raises(SchemaError, match=message):
        ev.load(_write(tmp_path / "mf.json", d))
