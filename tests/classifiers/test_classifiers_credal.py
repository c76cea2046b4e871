"""ev.credal_knn (EC of Liu, Pan and Dezert 2013): Example 3, the product-form fusion against the full
combination of evstat.belief on the frame with w0, the closed-form decision against the argmax of
the dense masses, rho by leave-one-out against refits, the no-outlier setting, persistence and
bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evstat as ev
from evstat.belief import Frame, MassFunction, combine
from evstat.classifiers import OUTLIER, ec_dbar, ec_masses, ec_support
from evstat.classifiers.neighbors import knn
from evstat.classifiers.credal import RHO_GRID, UNKNOWN, _credal_masks


def slow_fusion(neigh: list[tuple[int, float]], h: int) -> MassFunction:
    """The EC combination done literally on the frame {w1..wh, w0}: per-neighbour bbas,
    averaging within each class, discounting by n_s / max n, then the Dubois-Prade rule (each
    conflict to the union of the focal sets involved)."""
    fr = Frame([*range(h), UNKNOWN])
    by_class: dict[int, list[MassFunction]] = {}
    for s, ms in neigh:
        by_class.setdefault(s, []).append(MassFunction(fr, {s: ms, tuple(fr.labels): 1 - ms}))
    nmax = max(len(v) for v in by_class.values())
    parts = []
    for s, bbas in sorted(by_class.items()):
        avg = bbas[0] if len(bbas) == 1 else combine(*bbas, rule="average")
        parts.append(avg.discount(len(bbas) / nmax))
    return parts[0] if len(parts) == 1 else combine(*parts, rule="dubois_prade")


def fast_as_dict(v: np.ndarray, h: int) -> dict[frozenset, float]:
    out = {}
    for mk in range(1, 1 << h):
        out[frozenset(j for j in range(h) if mk >> j & 1)] = v[mk]
    out[frozenset([*range(h), UNKNOWN])] = v[0]
    return out


def test_example_3_of_the_paper():
    # K = 5: neighbours of w1 give 0.7, 0.6, 0.8; of w2 0.9, 0.7
    neigh = [(0, 0.7), (0, 0.6), (0, 0.8), (1, 0.9), (1, 0.7)]
    slow = slow_fusion(neigh, 2)
    want = {frozenset([0]): 0.32666666666666666, frozenset([1]): 0.16, frozenset([0, 1]): 0.37333333333333335,
            frozenset([0, 1, UNKNOWN]): 0.14}
    for A, v in want.items():
        assert slow[A] == pytest.approx(v, abs=1e-12)
    fast = ec_masses([[0.7, 0.8 * 2 / 3]])[0]
    np.testing.assert_allclose(fast, [0.14, 0.32666666666666666, 0.16, 0.37333333333333335], atol=1e-15)
    # from distances: pick d so that expit(rho - d / dbar) gives the example's masses
    lab = np.array([[0, 0, 0, 1, 1]])
    ms = np.array([0.7, 0.6, 0.8, 0.9, 0.7])
    d = 3.0 - np.log(ms / (1 - ms))  # dbar = 1, rho = 3
    a = ec_support(lab, d[None, :], [1.0, 1.0], 3.0)
    np.testing.assert_allclose(a, [[0.7, 0.8 * 2 / 3]], atol=1e-14)
    # the decision is the meta-class {w1, w2}
    assert _credal_masks(np.log(a), outlier=True).tolist() == [3]


@settings(max_examples=60, deadline=None)
@given(
    h=st.integers(2, 4),
    neigh=st.lists(st.tuples(st.integers(0, 3), st.floats(1e-6, 1 - 1e-6)), min_size=1, max_size=9),
)
def test_product_form_equals_the_full_combination(h, neigh):
    neigh = [(s % h, m) for s, m in neigh]
    slow = slow_fusion(neigh, h)
    lab = np.array([[s for s, _ in neigh]])
    ms = np.array([m for _, m in neigh])
    a = ec_support(lab, (3.0 - np.log(ms / (1 - ms)))[None, :], np.ones(h), 3.0, h)
    v = ec_masses(a)[0]
    assert v.sum() == pytest.approx(1.0, abs=1e-12)
    assert (v >= 0).all()
    for A, val in fast_as_dict(v, h).items():
        assert slow[A] == pytest.approx(val, abs=1e-10)
    # every other subset (those with w0 but not Omega) has no mass
    total = sum(slow[A] for A in fast_as_dict(v, h))
    assert total == pytest.approx(1.0, abs=1e-10)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=5), st.booleans())
def test_closed_form_decision_is_the_argmax_of_the_masses(a, outlier):
    a = np.array([a])
    v = ec_masses(a)[0]
    if np.any(np.isclose(a, 0.5, atol=1e-9)):
        return  # ties
    with np.errstate(divide="ignore"):
        got = _credal_masks(np.log(a), outlier)[0]
    if outlier:
        assert v[got] == pytest.approx(v.max(), abs=1e-15)
        assert got == int(np.argmax(v))
    else:
        if v[1:].max() > 0:
            assert v[got] == pytest.approx(v[1:].max(), abs=1e-15)


@pytest.fixture(scope="module")
def gauss3():
    """Test 1.2 of the paper: three 2-D Gaussian classes, 50 + 50 per class."""
    return ev.datasets.simulate_credal_test12(seed=12)


def test_fitted_masses_equal_the_slow_combination(gauss3):
    train, test = gauss3
    fit = ev.credal_knn("y ~ x1 + x2", train, k=9, rho=3.0)
    dbar = fit.dbar.to_numpy()
    # dbar by brute force
    X = train[["x1", "x2"]].to_numpy()
    codes = fit.class_frame.codes
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(D, np.inf)
    per = np.sort(D, axis=1)[:, :9].mean(axis=1)
    np.testing.assert_allclose(dbar, [per[codes == s].mean() for s in range(3)], rtol=1e-12)
    ma = fit.predict(test.iloc[:40], type="mass")
    assert ma.frame.labels == (*fit.levels, UNKNOWN)
    Xt = test[["x1", "x2"]].to_numpy()[:40]
    idx, d2 = knn(Xt, X, 9)
    for i in range(0, 40, 7):
        neigh = [(int(codes[j]), 1 / (1 + math.exp((math.sqrt(dd) - 3.0 * dbar[codes[j]]) / dbar[codes[j]])))
                 for j, dd in zip(idx[i], d2[i])]
        slow = slow_fusion(neigh, 3)
        np.testing.assert_allclose(ma.values[i], slow.values, atol=1e-12)


def test_credal_decisions_and_outliers(gauss3):
    train, test = gauss3
    fit = ev.credal_knn("y ~ x1 + x2", train, k=9)
    far = pd.DataFrame({"x1": [40.0, 3.0], "x2": [40.0, 1.6]})
    dec = fit.decide(far, strategy="credal")
    assert dec.iloc[0] == OUTLIER
    dec = fit.decide(test, strategy="credal")
    assert dec.index.equals(test.index)
    kinds = {type(d).__name__ for d in dec}
    assert "frozenset" in kinds  # meta-classes occur on Test 1.2
    # the class-frame masses move m(Omega) to the set of all classes
    mass = fit.predict(test, type="mass").values
    cls = ev.classifiers.CredalKNNClassifier._mass_values(fit, test[["x1", "x2"]].to_numpy())
    np.testing.assert_allclose(cls[:, 1:7], mass[:, 1:7], atol=1e-15)
    np.testing.assert_allclose(cls[:, 7], mass[:, 7] + mass[:, -1], atol=1e-15)
    # credal rates: a larger rho gives no more outliers
    r3 = ev.metrics.credal_rates(test["y"], dec)
    r5 = ev.metrics.credal_rates(test["y"], ev.credal_knn("y ~ x1 + x2", train, k=9, rho=5.0).decide(test, strategy="credal"))
    assert r5["outlier"] <= r3["outlier"]
    assert r3["precise"] + r3["imprecision"] + r3["outlier"] == pytest.approx(1.0)


def test_no_outlier_setting_redistributes(gauss3):
    train, test = gauss3
    a = ev.credal_knn("y ~ x1 + x2", train, k=9, outlier=True)
    b = ev.credal_knn("y ~ x1 + x2", train, k=9, outlier=False)
    far = pd.concat([test, pd.DataFrame({"x1": [40.0, 1e6], "x2": [40.0, -1e6], "y": ["w1", "w1"]})],
                    ignore_index=True)
    mb = b.predict(far, type="mass")
    assert mb.frame == Frame(list(b.levels))
    np.testing.assert_allclose(mb.values.sum(axis=1), 1.0, atol=1e-12)
    me = a.predict(far, type="mass").values
    h = 3
    mo = me[:, -1]
    ok = 1 - mo > 1e-12
    np.testing.assert_allclose(mb.values[ok, 1:], me[ok, 1 : 1 << h] / (1 - mo[ok, None]), atol=1e-10)
    db = b.decide(far, strategy="credal")
    assert OUTLIER not in set(db)
    assert db.iloc[-1] in b.levels  # the limit of the redistribution: a class
    # predictions agree where no outlier was decided
    da = a.decide(far, strategy="credal")
    same = (da != OUTLIER).to_numpy()
    assert (da[same] == db[same]).all()


def test_rho_by_leave_one_out_equals_refits(gauss3):
    train, _ = gauss3
    fit = ev.credal_knn("y ~ x1 + x2", train, k=9, rho="loo")
    assert fit.rho_method == "loo" and fit.loo_path["rho"].tolist() == RHO_GRID.tolist()
    errs = []
    for r in RHO_GRID[::6]:
        f = ev.credal_knn("y ~ x1 + x2", train, k=9, rho=float(r))
        p = f.predict_loo("prob")
        errs.append(float(np.mean(p.idxmax(axis=1).to_numpy() != train["y"].to_numpy())))
        assert f.loo_error == pytest.approx(errs[-1])
    np.testing.assert_allclose(fit.loo_path["loo_error"].to_numpy()[::6], errs)
    best = fit.loo_path["loo_error"].min()
    assert fit.loo_error == best
    assert fit.rho == fit.loo_path.loc[fit.loo_path["loo_error"] == best, "rho"].iloc[0]


def test_save_load_and_verbs(gauss3, tmp_path):
    train, test = gauss3
    fit = ev.credal_knn("y ~ x1 + x2", train, k=7, rho="loo", outlier=False)
    path = tmp_path / "ec.json"
    fit.save(path)
    json.loads(path.read_text())
    back = ev.load(path)
    pd.testing.assert_frame_equal(back.predict(test), fit.predict(test))
    pd.testing.assert_series_equal(back.decide(test, strategy="credal"), fit.decide(test, strategy="credal"))
    assert back.rho == fit.rho and back.loo_path.equals(fit.loo_path)
    t = fit.tidy()
    assert list(t.columns) == ["class", "n", "dbar", "lambda", "t"]
    g = fit.glance()
    assert g.loc[0, "loo_outlier"] == 0.0
    assert "rho" in fit.summary().as_text()


def test_eknn_credal_decision_uses_its_focal_sets(gauss3):
    train, test = gauss3
    fit = ev.eknn("y ~ x1 + x2", train, k=9, gamma=[0.5, 0.5, 0.5], optimize=False)
    dec = fit.decide(pd.concat([test, pd.DataFrame({"x1": [60.0], "x2": [60.0]})]), strategy="credal")
    assert dec.iloc[-1] == OUTLIER  # m(Omega) is the largest mass far from the data
    assert set(dec.iloc[:-1]) <= set(fit.levels) | {OUTLIER}


@pytest.mark.parametrize(
    "kw, err, match",
    [
        ({"k": 200}, ValueError, "k = 200 neighbours needs more training rows"),
        ({"k": 0}, ValueError, "k must be at least 1"),
        ({"rho": 0.0}, ValueError, r"rho must lie in \(0, 10\]"),
        ({"rho": 11}, ValueError, "the paper recommends 2 to 5"),
        ({"rho": "auto"}, ValueError, "or 'loo'"),
        ({"rho": None}, TypeError, "rho must be a number"),
        ({"outlier": "yes"}, TypeError, "outlier must be True or False"),
    ],
)
def test_bad_input(gauss3, kw, err, match):
    train, _ = gauss3
    with pytest.raises(err, match=match):
        ev.credal_knn("y ~ x1 + x2", train, **kw)


def test_reserved_class_names_and_credal_options(gauss3):
    train, test = gauss3
    bad = train.assign(y=train["y"].replace({"w1": "outlier"}))
    with pytest.raises(ValueError, match="rename that class"):
        ev.credal_knn("y ~ x1 + x2", bad)
    fit = ev.credal_knn("y ~ x1 + x2", train)
    with pytest.raises(ValueError, match="neither reject_cost nor loss"):
        fit.decide(test, strategy="credal", reject_cost=0.2)
    with pytest.raises(ValueError, match="'credal'"):
        fit.decide(test, strategy="maximal")


def test_dbar_example_and_support_absent_class():
    assert ec_dbar([[0.0], [1.0], [3.0], [7.0]], [0, 0, 1, 1], 2, k=1).tolist() == [1.0, 3.0]
    a = ec_support([[0, 0]], [[0.0, 1.0]], [1.0, 1.0, 1.0], 3.0)
    assert a[0, 1] == 0.0 and a[0, 2] == 0.0
    v = ec_masses(a)[0]
    assert v[1] == pytest.approx(a[0, 0]) and v[0] == pytest.approx(1 - a[0, 0])
