"""The results protocol's contract, run on every registered model (evstat.results.register).

Like scikit-learn's ``parametrize_with_checks``: a model joins this suite by registering itself
with an ``example`` fitter; a registered model without one fails here. Each model is checked
with two classes and, where it allows them, three.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.belief import MassArray
from evstat.results import Results, contract_examples

from contract_data import contract_data, contract_fit

EXAMPLES = contract_examples()
CASES = [(m, k) for m, (_, ks) in sorted(EXAMPLES.items()) for k in ks]


@pytest.fixture(scope="module")
def train() -> pd.DataFrame:
    return contract_data(90, 1)


@pytest.fixture(scope="module")
def new() -> pd.DataFrame:
    d = contract_data(7, 2)
    d.index = pd.Index(["r3", "r1", "r3", "r0", "r9", "r1", "r5"])  # repeated labels, not sorted
    return d


_fit = contract_fit


def test_every_model_has_an_example() -> None:
    missing = [m for m, (ex, _) in EXAMPLES.items() if ex is None]
    assert not missing, f"registered without evstat.results.register(..., example=...): {missing}"
    assert {"evlogit", "evbinning", "isotonic", "betacal", "disjoint", "eknn", "gbt", "evmultinom"} <= set(EXAMPLES)


@pytest.mark.parametrize("method,k", CASES)
def test_facts(method, k, train) -> None:
    fit = _fit(method, k, train)
    assert isinstance(fit, Results) and fit.method == method
    assert fit.n_classes == k and fit.nobs == len(train) and len(fit.classes) == k
    assert fit.is_binary == (k == 2)
    assert int(fit.class_counts.sum()) == fit.nobs
    assert fit.positive == ("pos" if k == 2 else None)
    td = fit.training_data()
    assert list(td.index) == list(train.index) and fit.response in td.columns
    assert set(fit.score_columns) <= set(td.columns)
    codes = fit.training_codes()
    assert codes.shape == (fit.nobs,) and set(np.unique(codes)) <= set(range(k))
    assert isinstance(fit.formula, str) and repr(fit)


@pytest.mark.parametrize("method,k", CASES)
def test_predictions_keep_index_and_bounds(method, k, train, new) -> None:
    fit = _fit(method, k, train)
    prob = fit.predict(new, type="prob")
    bel = fit.predict(new, type="belief")
    assert list(prob.index) == list(new.index) and list(bel.index) == list(new.index)
    if k > 2 and not fit.capabilities.k_class_mass:
        # lower/upper probabilities that are not those of a mass function: a clear refusal
        with pytest.raises(ValueError, match="type='mass'"):
            fit.predict(new, type="mass")
        mass = None
    else:
        mass = fit.predict(new, type="mass")
        assert isinstance(mass, MassArray) and len(mass) == len(new)
        np.testing.assert_allclose(mass.values.sum(axis=1), 1.0, atol=1e-12)
        assert (mass.values >= -1e-15).all()
    tol = 1e-10
    if k == 2:
        assert isinstance(prob, pd.Series) and list(bel.columns) == ["theta", "bel", "pl"]
        th, b, p = bel["theta"].to_numpy(), bel["bel"].to_numpy(), bel["pl"].to_numpy()
        assert (0 <= b).all() and (b <= th + tol).all() and (th <= p + tol).all() and (p <= 1).all()
        np.testing.assert_allclose(mass.bel(fit.positive), b, atol=1e-12)
    else:
        assert isinstance(prob, pd.DataFrame) and list(prob.columns) == list(fit.classes)
        np.testing.assert_allclose(prob.sum(axis=1), 1.0, atol=1e-12)
        assert bel.columns.names == ["stat", "class"]
        th, b, p = (bel[s].to_numpy() for s in ("theta", "bel", "pl"))
        assert (0 <= b).all() and (b <= th + tol).all() and (th <= p + tol).all() and (p <= 1).all()
    # rows predicted one by one equal the batch (no dependence on the other rows)
    one = fit.predict(new.iloc[[3]], type="belief")
    np.testing.assert_allclose(one.to_numpy(), bel.iloc[[3]].to_numpy(), atol=1e-12)


@pytest.mark.parametrize("method,k", CASES)
def test_missing_drop_and_repeated_labels(method, k, train, new) -> None:
    fit = _fit(method, k, train)
    bad = new.copy()
    bad.iloc[1, bad.columns.get_loc("s1")] = np.nan
    with pytest.raises(ValueError, match="s1"):
        fit.predict(bad)
    kept = fit.predict(bad, type="belief", missing="drop")
    want = list(bad.index[[0, 2, 3, 4, 5, 6]])
    assert list(kept.index) == want
    aug = fit.augment(bad, missing="drop")  # repeated label "r3", dropped "r1" (first one)
    assert list(aug.index) == want and len(aug) == 6
    np.testing.assert_allclose(aug["s2"].to_numpy(), bad["s2"].to_numpy()[[0, 2, 3, 4, 5, 6]])


@pytest.mark.parametrize("method,k", CASES)
def test_decisions_with_reject(method, k, train, new) -> None:
    fit = _fit(method, k, train)
    for strategy in ev.belief.STRATEGIES:
        d = fit.decide(new, strategy=strategy)
        assert list(d.index) == list(new.index)
        assert list(d.cat.categories) == list(fit.classes)
        r = fit.decide(new, strategy=strategy, reject_cost=0.0)
        assert list(r.cat.categories) == [*fit.classes, "reject"]
        none = fit.decide(new, strategy=strategy, reject_cost=1.0)
        assert not (none == "reject").any()
    with pytest.raises(ValueError, match="strategy must be one of"):
        fit.decide(new, strategy="minimax")
    with pytest.raises(ValueError, match="reject_cost must lie in"):
        fit.decide(new, reject_cost=1.5)


@pytest.mark.parametrize("method,k", CASES)
def test_augment_summary_tidy_glance(method, k, train) -> None:
    fit = _fit(method, k, train)
    aug = fit.augment()
    assert list(aug.index) == list(train.index)
    added = [".theta", ".bel", ".pl", ".ignorance", ".betp"] if k == 2 else [".ignorance", ".class"]
    assert set(added) <= set(aug.columns)
    s = fit.summary()
    assert fit.formula in s.as_text() and "<table" in s.as_html()
    assert isinstance(fit.tidy(), pd.DataFrame) and len(fit.tidy()) >= 1
    g = fit.glance()
    assert isinstance(g, pd.DataFrame) and len(g) == 1


@pytest.mark.parametrize("method,k", CASES)
def test_save_load_round_trip(method, k, train, new, tmp_path) -> None:
    fit = _fit(method, k, train)
    again = ev.load(fit.save(tmp_path / "fit.json"))
    assert type(again) is type(fit) and again.classes == fit.classes
    pd.testing.assert_frame_equal(again.predict(new, type="belief"), fit.predict(new, type="belief"), atol=1e-10)
    pd.testing.assert_frame_equal(again.tidy(), fit.tidy(), atol=1e-10)
    assert again.decide(new, reject_cost=0.2).tolist() == fit.decide(new, reject_cost=0.2).tolist()


@pytest.mark.parametrize("method,k", CASES)
def test_compare(method, k, train, new) -> None:
    fit = _fit(method, k, train)
    y = "y2" if k == 2 else "y3"
    tab = ev.compare([fit], new, y)
    assert tab["model"].tolist() == [method] and int(tab["n"].iloc[0]) == len(new)
    assert 0.0 <= tab["error_rate"].iloc[0] <= 1.0 and 0.0 <= tab["mean_ignorance"].iloc[0] <= 1.0


@pytest.mark.parametrize("method,k", CASES)
def test_bad_input(method, k, train, new) -> None:
    fit = _fit(method, k, train)
    with pytest.raises(TypeError, match="newdata must be a pandas DataFrame"):
        fit.predict(new.to_numpy().tolist())
    # a 2-D array is read as the score columns in order (issue 24, array constructors)
    cols = fit.score_columns
    with pytest.raises(ValueError, match=rf"new rows have 5 columns, but the model reads {len(cols)} score columns"):
        fit.predict(new.to_numpy())
    np.testing.assert_array_equal(np.asarray(fit.predict(new[cols].to_numpy()), dtype=float),
                                  np.asarray(fit.predict(new), dtype=float))
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['s1"):
        fit.predict(new.drop(columns=["s2", "s1"]))
    with pytest.raises(ValueError, match="type must be one of"):
        fit.predict(new, type="odds")


def test_three_class_plot_says_why(train) -> None:
    fit = _fit("eknn", 3, train)
    with pytest.raises(ValueError, match="two-class figure, but this eknn fit has 3 classes"):
        fit.plot("reliability")  # fit.plot() draws the K-class default (tests/plotting/test_plot_defaults.py)


# ---------------------------------------------------------------- the two failures of issue 10
def test_eknn_augment_repeated_index_with_missing_drop() -> None:
    """Raised "Length of values (3) does not match length of index (4)" before the one protocol."""
    d = contract_data(60, 3)
    fit = ev.eknn("y3 ~ s1 + s2", d, k=5)
    new = pd.DataFrame({"s1": [0.2, 0.5, np.nan, 0.7], "s2": [0.3, 0.4, 0.5, 0.6]}, index=[5, 5, 6, 7])
    aug = fit.augment(new, missing="drop")
    assert list(aug.index) == [5, 5, 7]
    np.testing.assert_allclose(aug["s1"].to_numpy(), [0.2, 0.5, 0.7])
    ref = fit.augment(new.iloc[[0, 1, 3]].reset_index(drop=True))
    np.testing.assert_allclose(aug[".ignorance"].to_numpy(), ref[".ignorance"].to_numpy())


def test_compare_three_class_eknn() -> None:
    """Raised "too many values to unpack" before the one protocol."""
    d, t = contract_data(90, 4), contract_data(40, 5)
    a, b = ev.eknn("y3 ~ s1 + s2", d, k=5), ev.gbt("y3 ~ s1 + s2", d)
    tab = ev.compare([a, b], t, "y3")
    assert tab["model"].tolist() == ["eknn", "gbt"]
    assert list(tab.columns) == ["model", "method", "n", "error_rate", "brier", "log_loss", "mean_ignorance"]
    prob = a.predict(t).to_numpy()
    y = ev.formula.code_response(t["y3"], a.classes)
    assert tab["error_rate"].iloc[0] == pytest.approx(np.mean(np.argmax(prob, axis=1) != y))
    onehot = np.eye(3)[y]
    assert tab["brier"].iloc[0] == pytest.approx(np.mean(((prob - onehot) ** 2).sum(axis=1)))
    assert tab["mean_ignorance"].iloc[0] == pytest.approx(a.predict(t, type="mass").values[:, -1].mean())
    with pytest.raises(ValueError, match="values that are not response levels"):
        ev.compare([a], t, t["y2"].to_numpy())
