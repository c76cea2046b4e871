"""Array constructors (issue 24, item 1): ``ev.from_arrays(method, X, y)`` /
``ev.<method>.from_arrays(X, y)`` and ``ModelFrame.from_arrays`` / ``ClassFrame.from_arrays``.

For every registered model fitted by name and every class count it supports, the fit from arrays
must be the fit of the formula ``y ~ x1 + ... + xp`` on a DataFrame of the same columns: the same
saved description (frame, parameters, settings: the JSON text is compared, so every parameter is
equal exactly), the same predictions on arrays as the formula fit on DataFrames, and it must get
there without parsing a formula or calling patsy. The formula and options of each model are those
of its contract example (``evstat.results.contract_examples``), recorded by a spy on the fitter.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evstat as ev
from evstat.formula import ClassFrame, ModelFrame, class_frame, model_frame
import evstat.formula.frame as formula_frame
from evstat.formula.arrays import quote_name
from evstat.results import contract_examples, fitters, registered

from contract_data import contract_data

#: models whose array fit takes more than about 5 s beside the formula fit (as in the contract matrix)
HEAVY = {"evmultinom", "venn_abers"}
CASES = [
    pytest.param(m, k, marks=[pytest.mark.slow] if m in HEAVY else [], id=f"{m}-K{k}")
    for m, (_, ks) in sorted(contract_examples().items())
    if m in fitters()
    for k in ks
]


@pytest.fixture(scope="module")
def train() -> pd.DataFrame:
    return contract_data(90, 1)


@pytest.fixture(scope="module")
def new() -> pd.DataFrame:
    d = contract_data(12, 2)
    d.index = pd.Index([f"r{i}" for i in range(len(d))])
    return d


def example_call(method: str, k: int, train: pd.DataFrame) -> tuple[object, str, dict]:
    """The contract example's fit, with the formula and options it passed to the fitter (the
    example calls the fitter through its module's global name, which a spy replaces)."""
    fn = fitters()[method]
    module = sys.modules[fn.__module__]
    calls: list[tuple[str, dict]] = []

    def spy(formula, data, **options):
        calls.append((formula, options))
        return fn(formula, data, **options)

    example, _ = contract_examples()[method]
    setattr(module, method, spy)
    try:
        fit = example("y2" if k == 2 else "y3", train)
    finally:
        setattr(module, method, fn)
    assert calls, f"the contract example of {method} does not call ev.{method}"
    formula, options = calls[0]
    return fit, formula, options


def patsy_refused(*args, **kwargs):
    raise AssertionError("patsy was called")


def plain_terms(formula: str) -> tuple[str, list[str]]:
    lhs, rhs = (t.strip() for t in formula.split("~"))
    names = [t.strip() for t in rhs.split("+")]
    assert all(n.isidentifier() for n in names), formula
    return lhs, names


def no_formula(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every formula parser and patsy raise."""
    import patsy

    import evstat.formula._parse as parse
    import evstat.formula.design as design
    import evstat.formula.frame as frame

    def refuse(*args, **kwargs):
        raise AssertionError("a formula was parsed or patsy was called")

    for mod, name in [(parse, "split_formula"), (frame, "split_formula"), (frame, "expand_dot"),
                      (frame, "_design"), (frame, "_build_X"), (design, "_design"),
                      (design, "_build_X"), (patsy, "dmatrix"), (patsy, "build_design_matrices"),
                      (patsy, "dmatrices")]:
        monkeypatch.setattr(mod, name, refuse)


@pytest.mark.parametrize(("method", "k"), CASES)
def test_from_arrays_is_the_formula_fit(method, k, train, new, monkeypatch):
    ref, formula, options = example_call(method, k, train)
    response, names = plain_terms(formula)
    X, y = train[names].to_numpy(), train[response].to_numpy()
    with monkeypatch.context() as m:
        no_formula(m)
        fit = ev.from_arrays(method, X, y, names=names, response=response, **options)
        # predictions on arrays: no formula, no patsy either
        prob = fit.predict(new[names].to_numpy(), type="prob")
        belief = fit.predict(new[names].to_numpy(), type="belief")
        decided = fit.decide(new[names].to_numpy(), reject_cost=0.3)
    assert type(fit) is type(ref) and fit.formula == ref.formula
    # the same frame, parameters and settings: the saved descriptions are the same text
    assert json.dumps(fit.to_dict(), sort_keys=True) == json.dumps(ref.to_dict(), sort_keys=True)
    ref_prob = ref.predict(new, type="prob")
    np.testing.assert_array_equal(np.asarray(prob, dtype=float), np.asarray(ref_prob, dtype=float))
    np.testing.assert_array_equal(belief.to_numpy(dtype=float), ref.predict(new, type="belief").to_numpy(dtype=float))
    assert decided.tolist() == ref.decide(new, reject_cost=0.3).tolist()
    # an array result has a RangeIndex; a DataFrame with the named columns keeps its index
    assert list(prob.index) == list(range(len(new)))
    pd.testing.assert_series_equal(fit.decide(new, reject_cost=0.3), ref.decide(new, reject_cost=0.3))
    # ev.<method>.from_arrays is the same constructor
    again = getattr(ev, method).from_arrays(X, y, names=names, response=response, **options)
    assert json.dumps(again.to_dict(), sort_keys=True) == json.dumps(fit.to_dict(), sort_keys=True)


@pytest.mark.parametrize(("method", "k"), [("evlogit", 2), ("eknn", 3), ("isotonic", 2), ("temperature", 3)])
def test_array_fits_save_and_load(method, k, train, new, tmp_path, monkeypatch):
    ref, formula, options = example_call(method, k, train)
    response, names = plain_terms(formula)
    fit = ev.from_arrays(method, train[names].to_numpy(), train[response].to_numpy(), names=names,
                         response=response, **options)
    path = fit.save(tmp_path / "fit.json")
    rows = new[names].to_numpy()
    with monkeypatch.context() as m:  # loading and predicting an array fit runs no patsy either
        for name in ("_design", "_build_X"):
            m.setattr(formula_frame, name, patsy_refused)
        back = ev.load(path)
        back_belief = back.predict(rows, type="belief")
    assert type(back) is type(fit) and back.formula == fit.formula
    pd.testing.assert_frame_equal(back_belief, fit.predict(rows, type="belief"))
    pd.testing.assert_frame_equal(back.predict(new, type="belief"), ref.predict(new, type="belief"))


def test_every_registered_fitter_has_an_array_constructor():
    for method, fn in fitters().items():
        assert callable(fn.from_arrays), method
        assert method in fn.from_arrays.__doc__
    assert set(fitters()) <= set(registered())


def test_default_names_levels_and_positive():
    d = ev.datasets.simulate_gaussian(80, seed=4)
    X, y = d[["x1", "x2"]].to_numpy(), d["y"].to_numpy()
    fit = ev.evlogit.from_arrays(X, y)
    assert fit.formula == "y ~ x1 + x2" and list(fit.params.index) == ["Intercept", "x1", "x2"]
    ref = ev.evlogit("y ~ x1 + x2", d)
    np.testing.assert_array_equal(fit.params.to_numpy(), ref.params.to_numpy())
    # levels=(1, 0) makes 0 the positive class, as positive=0 does in the formula
    flipped = ev.evlogit.from_arrays(X, y, levels=[1, 0])
    assert flipped.classes == (1, 0)
    np.testing.assert_allclose(flipped.params.to_numpy(), ev.evlogit("y ~ x1 + x2", d, positive=0).params.to_numpy(),
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(flipped.params.to_numpy(), -fit.params.to_numpy(), rtol=1e-8)
    # a DataFrame X gives its names and its index
    fit_df = ev.from_arrays("evlogit", d[["x1", "x2"]], d["y"])
    assert fit_df.formula == "y ~ x1 + x2"
    pd.testing.assert_series_equal(fit_df.predict(d.head(4)), ref.predict(d.head(4)))


def test_missing_drop_as_the_formula(train):
    d = train.copy()
    d.loc[[3, 7], "s1"] = np.nan
    d.loc[11, "y3"] = None
    a = ClassFrame.from_arrays(d[["s1", "s2"]].to_numpy(), d["y3"].to_numpy(dtype=object), names=["s1", "s2"],
                               response="y3", missing="drop")
    b = class_frame("y3 ~ s1 + s2", d, missing="drop")
    assert a.n_dropped == b.n_dropped == 3
    np.testing.assert_array_equal(a.X, b.X)
    assert a.codes.tolist() == b.codes.tolist() and a.levels == b.levels
    assert list(a.index) == list(b.index)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(6, 30),
    p=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    k=st.sampled_from([2, 3]),
    quoted=st.booleans(),
)
def test_frames_equal_the_formula_frames(n, p, seed, k, quoted):
    """ModelFrame.from_arrays / ClassFrame.from_arrays give exactly the formula's frame, also
    for names a formula must quote (``Q('a b')``: that is the term's name in both)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * rng.choice([1e-3, 1.0, 1e3], p)
    y = np.array(["a", "b", "c"][:k])[np.arange(n) % k]
    pool = ["s 0", "np.log(s)", "lambda", "x.1"] if quoted else ["s0", "s1", "s2", "s3"]
    names = pool[:p]
    data = pd.DataFrame(X, columns=names).assign(y=y)
    formula = "y ~ " + " + ".join(quote_name(c) for c in names)
    if k == 2:
        a, b = ModelFrame.from_arrays(X, y, names=names), model_frame(formula, data)
    else:
        a, b = ClassFrame.from_arrays(X, y, names=names).design, class_frame(formula, data).design
    for attr in ("formula", "response", "terms", "classes", "positive", "score_columns", "n_dropped"):
        assert getattr(a, attr) == getattr(b, attr), attr
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert a.index.equals(b.index)
    new = rng.normal(size=(5, p))
    np.testing.assert_array_equal(a.new_X(new)[0], b.new_X(pd.DataFrame(new, columns=names))[0])
    np.testing.assert_array_equal(a.new_X(pd.DataFrame(new, columns=names))[0], b.new_X(pd.DataFrame(new, columns=names))[0])
    assert a.to_dict() == b.to_dict()


X0 = np.column_stack([np.linspace(-1, 1, 20), np.sin(np.arange(20.0))])
Y0 = np.arange(20) % 2


@pytest.mark.parametrize(
    ("X", "y", "options", "error", "message"),
    [
        (X0[:, 0], Y0, {}, ValueError, r"X must be a 2-D array of shape \(rows, score columns\), got 1 dimension\(s\) \(shape \(20,\)\); one score column is X.reshape\(-1, 1\)"),
        (X0[None], Y0, {}, ValueError, r"X must be a 2-D array .* got 3 dimension\(s\)"),
        (X0, Y0[:19], {}, ValueError, r"y has 19 values but X has 20 rows: give one label per row"),
        (X0, Y0[:, None], {}, ValueError, r"y must be 1-D, got shape \(20, 1\): pass y.ravel\(\)"),
        (np.where(np.arange(20)[:, None] == 4, np.nan, X0), Y0, {}, ValueError,
         r"column 'x1' has missing values in 1 row of 20 \(index 4\): drop or impute them, or pass missing='drop'"),
        (X0, np.where(np.arange(20) == 2, np.nan, Y0), {}, ValueError, r"response column 'y' has missing values in 1 row of 20 \(index 2\)"),
        (np.where(np.arange(20)[:, None] == 5, np.inf, X0), Y0, {}, ValueError, r"column 'x1' has infinite values in 1 row of 20 \(index 5\)"),
        (X0, np.zeros(20), {}, ValueError, r"single class"),
        (X0.astype(str), Y0, {}, ValueError, r"column 'x1' of X is not numeric \(dtype .*; 20 rows\)"),
        (X0 > 0, Y0, {}, ValueError, r"column 'x1' of X is boolean"),
        (X0, Y0, {"names": ["a"]}, ValueError, r"names has 1 entries but X has 2 columns: give one name per column"),
        (X0, Y0, {"names": ["a", "a"]}, ValueError, r"names must be distinct, got \['a'\] more than once"),
        (X0, Y0, {"names": ["", "c"]}, ValueError, r"names must be non-empty text without control characters, got \[''\]"),
        (X0, Y0, {"names": ["y", "c"]}, ValueError, r"the response's name 'y' is also a column name"),
        (X0, Y0, {"levels": [0, 2]}, ValueError, r"y has label\(s\) \[1\] in 10 rows that are not among levels \[0, 2\]: add them to levels"),
        (X0[:, :0], Y0, {}, ValueError, r"X has 20 rows and 0 columns: at least one score column is needed"),
        (np.column_stack([X0, X0[:, 0] * 2]), Y0, {}, ValueError, r"x3"),
        (X0[:0], Y0[:0], {}, ValueError, r"X has 0 rows"),
    ],
    ids=["X-1d", "X-3d", "y-length", "y-2d", "nan-X", "nan-y", "inf-X", "one-class", "text-X", "bool-X",
         "names-length", "names-repeated", "names-empty", "names-response", "levels-unknown",
         "no-columns", "collinear", "no-rows"],
)
def test_bad_arrays(X, y, options, error, message):
    with pytest.raises(error, match=message):
        ev.evlogit.from_arrays(X, y, **options)


def test_bad_arrays_k_classes_and_new_rows():
    X = np.column_stack([np.linspace(0, 1, 30), np.cos(np.arange(30.0))])
    y = np.array(["a", "b", "c"])[np.arange(30) % 3]
    with pytest.raises(ValueError, match=r"response column 'y' has a single class"):
        ev.eknn.from_arrays(X, np.full(30, "a"))
    fit = ev.eknn.from_arrays(X, y, names=["s1", "s2"])
    with pytest.raises(ValueError, match=r"new rows have 3 columns, but the model reads 2 score columns \['s1', 's2'\]"):
        fit.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"new rows as an array must be 2-D \(rows, 2 score columns \['s1', 's2'\]\), got shape \(2,\)"):
        fit.predict(np.ones(2))
    with pytest.raises(TypeError, match=r"sparse matrix"):
        from scipy import sparse

        ev.eknn.from_arrays(sparse.csr_matrix(X), y)
    with pytest.raises(ValueError, match=r"arrays give the formula 'y ~ x1 \+ x2' \(or with ' - 1'\), but the fitter asked for 'y ~ x1'"):
        from evstat.formula.arrays import ArrayData

        ev.evlogit("y ~ x1", ArrayData(X, np.arange(30) % 2))
    with pytest.raises(ValueError, match=r"unknown method 'nope'"):
        ev.from_arrays("nope", X, y)


def test_label_masses_from_arrays(train):
    """The partially supervised EkNN (eknn with label_masses) reads the arrays' row index."""
    levels = ["hi", "lo", "mid"]
    masses = pd.DataFrame(np.where(train["y3"].to_numpy()[:, None] == np.array(levels), 1.0, 0.4),
                          columns=levels, index=train.index)
    ref = ev.eknn("y3 ~ s1 + s2", train, k=5, label_masses=masses)
    fit = ev.eknn.from_arrays(train[["s1", "s2"]].to_numpy(), train["y3"].to_numpy(), names=["s1", "s2"],
                              response="y3", k=5, label_masses=masses)
    assert json.dumps(fit.to_dict(), sort_keys=True) == json.dumps(ref.to_dict(), sort_keys=True)


@pytest.mark.parametrize(("method", "k"), [("evlogit", 2), ("eknn", 3)])
def test_augment_reads_arrays(method, k, train, new):
    """``augment`` of a 2-D array: the score columns named, then the model's columns, as for the
    DataFrame of those columns (with a RangeIndex)."""
    fit, formula, _ = example_call(method, k, train)
    _, names = plain_terms(formula)
    got = fit.augment(new[names].to_numpy())
    want = fit.augment(new[names].reset_index(drop=True))
    pd.testing.assert_frame_equal(got, want)
    assert list(got.columns[: len(names)]) == names
