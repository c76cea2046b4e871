"""The results protocol of ev.eknn and ev.gbt: predict shapes for two and more classes (index and
row order kept), decide (equal to the calibrators' binary decisions; reject option; loss
matrix), augment, tidy/glance/summary, save/load, compare(), and hypothesis invariants
(masses sum to 1, Bel <= BetP <= Pl)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evstat as ev
from evstat.belief import Frame, MassArray, loss_matrix
from evstat.results import Results
from evstat.metrics import decide_binary
from evstat.classifiers import CredalKNNClassifier, EkNNClassifier, EvNNClassifier, GBTClassifier
from evstat.formula import ModelFrame


@pytest.fixture(scope="module")
def binary():
    df = ev.datasets.simulate_gaussian(60, seed=3)
    df["cls"] = np.where(df["y"] == 1, "pos", "neg")
    df.index = np.random.default_rng(0).permutation(np.arange(300, 360))
    return df


@pytest.fixture(scope="module")
def multi():
    rng = np.random.default_rng(1)
    n = 75
    codes = np.arange(n) % 3
    X = rng.normal(size=(n, 2)) + np.array([[0, 0], [2, 0], [0, 2]])[codes]
    df = pd.DataFrame(X, columns=["s1", "s2"])
    df["grp"] = np.array(["lo", "mid", "hi"], dtype=object)[codes]
    return df


@pytest.fixture(scope="module")
def new():
    rng = np.random.default_rng(5)
    return pd.DataFrame(
        {"x2": rng.normal(size=9), "x1": rng.normal(size=9), "s2": rng.normal(size=9) * 2,
         "s1": rng.normal(size=9) * 2, "other": list("abcdefghi")},
        index=[f"r{i}" for i in rng.permutation(9)],
    )


FITTERS = {
    "credal_knn": lambda f, d, **kw: ev.credal_knn(f, d, k=7, outlier=False, **kw),
    "eknn": lambda f, d, **kw: ev.eknn(f, d, k=7, **kw),
    "evnn": lambda f, d, **kw: ev.evnn(f, d, prototypes=4, seed=0, **kw),
    "gbt": lambda f, d, **kw: ev.gbt(f, d, radius=1.2, **kw),
}


@pytest.fixture(scope="module", params=sorted(FITTERS))
def binfit(request, binary):
    return FITTERS[request.param]("cls ~ x1 + x2", binary)


@pytest.fixture(scope="module", params=sorted(FITTERS))
def multifit(request, multi):
    return FITTERS[request.param]("grp ~ s1 + s2", multi)


# ---------------------------------------------------------------------------------------------
# two classes: the calibrators' shapes
# ---------------------------------------------------------------------------------------------


def test_binary_predict_shapes(binfit, new):
    assert isinstance(binfit, Results) and binfit.is_binary
    assert binfit.classes == ("neg", "pos") and binfit.positive == "pos"
    assert not hasattr(binfit, "model_frame")  # one protocol: no calibrator frame borrowed
    p = binfit.predict(new)
    assert isinstance(p, pd.Series) and p.name == "theta" and list(p.index) == list(new.index)
    b = binfit.predict(new, type="belief")
    assert list(b.columns) == ["theta", "bel", "pl"] and list(b.index) == list(new.index)
    ma = binfit.predict(new, type="mass")
    assert isinstance(ma, MassArray) and ma.frame == Frame(["neg", "pos"])
    np.testing.assert_allclose(ma.betp()["pos"].to_numpy(), p.to_numpy(), atol=1e-14)
    np.testing.assert_allclose(ma.bel("pos"), b["bel"].to_numpy(), atol=1e-14)
    np.testing.assert_allclose(ma.pl("pos"), b["pl"].to_numpy(), atol=1e-14)
    np.testing.assert_allclose(b["theta"], p, atol=0)
    pd.testing.assert_frame_equal(binfit.belief_frame(new), b)


def test_binary_positive_swaps_the_frame(binary, new):
    a = ev.eknn("cls ~ x1 + x2", binary, k=7)
    b = ev.eknn("cls ~ x1 + x2", binary, k=7, positive="neg")
    assert b.classes == ("pos", "neg") and b.positive == "neg"
    np.testing.assert_allclose(b.predict(new).to_numpy(), 1.0 - a.predict(new).to_numpy(), atol=1e-12)
    ba, bb = a.predict(new, type="belief"), b.predict(new, type="belief")
    np.testing.assert_allclose(bb["bel"].to_numpy(), 1 - ba["pl"].to_numpy(), atol=1e-12)


@pytest.mark.parametrize("strategy", ["pessimistic", "optimistic", "pignistic", "probabilistic"])
@pytest.mark.parametrize("reject", [None, 0.1, 0.3])
def test_binary_decisions_equal_the_calibrators(binfit, new, strategy, reject):
    b = binfit.predict(new, type="belief")
    # the classifiers decide through evstat.belief.decide on their masses; the closed-form
    # binary path of the same engine must agree (a classifier's probability is BetP)
    if strategy == "probabilistic":
        codes = decide_binary(None, None, strategy, reject, p=b["theta"].to_numpy())
    else:
        codes = decide_binary(b["bel"].to_numpy(), b["pl"].to_numpy(), strategy, reject)
    got = binfit.decide(new, strategy=strategy, reject_cost=reject)
    want = [c if c == "reject" else binfit.classes[int(c)] for c in codes]
    assert got.tolist() == want and list(got.index) == list(new.index)
    assert list(got.cat.categories) == [*binfit.classes, *(["reject"] if reject is not None else [])]


def test_binary_augment_and_default_newdata(binfit, binary):
    aug = binfit.augment()
    assert list(aug.index) == list(binary.index)
    for c in (".theta", ".bel", ".pl", ".ignorance", ".betp", "cls", "x1", "x2"):
        assert c in aug.columns
    assert (aug["cls"] == binary["cls"]).all()
    np.testing.assert_allclose(aug[".ignorance"], aug[".pl"] - aug[".bel"], atol=1e-14)
    pd.testing.assert_series_equal(binfit.predict(), binfit.predict(binary))


def test_compare_accepts_binary_classifiers(binary, new):
    test = ev.datasets.simulate_gaussian(40, seed=9)
    test["cls"] = np.where(test["y"] == 1, "pos", "neg")
    out = ev.compare(
        {"knn": ev.eknn("cls ~ x1 + x2", binary, k=7), "gbt": ev.gbt("cls ~ x1 + x2", binary),
         "logit": ev.evlogit("cls ~ x1 + x2", binary)},
        test, y="cls",
    )
    assert out["model"].tolist() == ["knn", "gbt", "logit"]
    assert out["method"].tolist() == ["eknn", "gbt", "evlogit"]


# ---------------------------------------------------------------------------------------------
# three classes
# ---------------------------------------------------------------------------------------------


def test_multiclass_predict_shapes(multifit, new):
    assert multifit.levels == ("hi", "lo", "mid") and multifit.positive is None
    assert not hasattr(multifit, "model_frame") and multifit.n_classes == 3
    p = multifit.predict(new)
    assert isinstance(p, pd.DataFrame) and list(p.columns) == ["hi", "lo", "mid"]
    assert list(p.index) == list(new.index)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
    b = multifit.predict(new, type="belief")
    assert b.columns.names == ["stat", "class"]
    assert list(b.columns.get_level_values(0).unique()) == ["theta", "bel", "pl"]
    pd.testing.assert_frame_equal(b["theta"], p, check_names=False)
    ma = multifit.predict(new, type="mass")
    assert ma.frame == Frame(["hi", "lo", "mid"]) and list(ma.index) == list(new.index)
    np.testing.assert_allclose(ma.betp().to_numpy(), p.to_numpy(), atol=1e-14)
    np.testing.assert_allclose(ma.contour().to_numpy(), b["pl"].to_numpy(), atol=1e-14)
    np.testing.assert_allclose(
        np.column_stack([ma.bel(c) for c in ma.frame]), b["bel"].to_numpy(), atol=1e-14
    )


def test_multiclass_decisions(multifit, new):
    p = multifit.predict(new)
    d = multifit.decide(new, strategy="pignistic")
    assert list(d.cat.categories) == ["hi", "lo", "mid"]
    assert d.tolist() == p.idxmax(axis=1).tolist()
    r = multifit.decide(new, strategy="pessimistic", reject_cost=0.3)
    assert list(r.cat.categories) == ["hi", "lo", "mid", "reject"]
    bel = multifit.predict(new, type="belief")["bel"]
    best = bel.max(axis=1)
    rejected = (1 - best) > 0.3
    assert (r[rejected] == "reject").all() and (r[~rejected] != "reject").all()
    # a loss matrix: deciding "hi" costs nothing -> always "hi"
    L = loss_matrix(multifit.frame)
    L.loc["hi"] = 0.0
    assert (multifit.decide(new, loss=L) == "hi").all()


def test_multiclass_augment(multifit, multi):
    aug = multifit.augment()
    for c in ("s1", "s2", "grp", ".betp_hi", ".bel_lo", ".pl_mid", ".ignorance", ".class"):
        assert c in aug.columns
    assert (aug["grp"] == multi["grp"]).all()
    betp = aug[[".betp_hi", ".betp_lo", ".betp_mid"]].to_numpy()
    assert aug[".class"].tolist() == [("hi", "lo", "mid")[j] for j in np.argmax(betp, axis=1)]


def test_summary_tidy_glance(binfit, multifit):
    for fit in (binfit, multifit):
        s = fit.summary()
        text = s.as_text()
        assert fit.formula in text and "Classes" in text
        assert "<h3>" in s.as_html() and str(s) == text
        t = fit.tidy()
        if isinstance(fit, EvNNClassifier):  # one row per prototype
            assert t["prototype"].tolist() == list(range(fit.n_prototypes))
        else:
            assert t["class"].tolist() == list(fit.levels)
            assert t["n"].sum() == fit.nobs
        g = fit.glance()
        assert g.shape[0] == 1 and g.loc[0, "method"] == fit.method and g.loc[0, "nobs"] == fit.nobs
        assert repr(fit).startswith(f"<{type(fit).__name__} ({fit.method})")
    if isinstance(multifit, EkNNClassifier):
        assert "L-BFGS-B" in multifit.summary().as_text()
        assert set(multifit.tidy().columns) >= {"gamma", "gamma_init", "scale"}


def test_two_class_plots_refused_three_class_report_written(multifit, tmp_path):
    # K-class reports: tests/report/test_report_kclass.py
    html = multifit.report(tmp_path / "r.html", date="2026-01-01", grid=8).read_text(encoding="utf-8")
    assert "Measures of the class probabilities" in html
    with pytest.raises(ValueError, match=r"plot kind 'reliability' is a two-class figure, but this \w+ fit has 3 classes"):
        multifit.plot("reliability")


def test_belief_round_off_stays_in_unit_interval():
    """Sums of masses can exceed 1 by an ulp; predictions are clipped into [0, 1]."""
    d = pd.DataFrame({"s": np.linspace(0, 1, 30), "y": np.arange(30) % 2})
    for fit in (ev.eknn("y ~ s", d, k=20, alpha=1.0, optimize=False, gamma=[1e-3, 1e-3]), ev.gbt("y ~ s", d, radius=0.05)):
        b = fit.predict(pd.DataFrame({"s": np.linspace(-0.1, 1.1, 997)}), type="belief")
        assert ((b >= 0) & (b <= 1)).all().all()


def test_summary_html_is_escaped():
    d = pd.DataFrame({"s": [0.0, 1, 2, 3, 4, 5], "y": ["<b>", "<b>", "x&y", "x&y", "<b>", "x&y"]})
    html = ev.gbt("y ~ s", d).summary().as_html()
    assert "<b>" not in html
    assert "&lt;b&gt;" in html and "x&amp;y" in html


# ---------------------------------------------------------------------------------------------
# persistence
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["bin", "multi"])
def test_save_load_round_trip(tmp_path, kind, binfit, multifit, new):
    fit = binfit if kind == "bin" else multifit
    path = fit.save(tmp_path / "fit.json")
    d = json.loads(path.read_text())
    assert d["format"] == "evstat" and d["method"] == fit.method
    back = ev.load(path)
    assert type(back) is type(fit)
    assert back.levels == fit.levels and back.positive == fit.positive and back.nobs == fit.nobs
    np.testing.assert_array_equal(back.predict(new, type="mass").values, fit.predict(new, type="mass").values)
    assert back.summary().as_text() == fit.summary().as_text()
    pd.testing.assert_frame_equal(back.tidy(), fit.tidy())
    if isinstance(fit, EkNNClassifier):
        pd.testing.assert_series_equal(back.gamma, fit.gamma)
        assert (back.k, back.alpha, back.lam, back.cost, back.loo_error) == (
            fit.k, fit.alpha, fit.lam, fit.cost, fit.loo_error)
    elif isinstance(fit, EvNNClassifier):
        np.testing.assert_array_equal(back.W, fit.W)
        assert (back.cost, back.seed, back.n_iter) == (fit.cost, fit.seed, fit.n_iter)
    elif isinstance(fit, CredalKNNClassifier):
        pd.testing.assert_series_equal(back.dbar, fit.dbar)
        assert (back.k, back.rho, back.outlier, back.loo_error) == (fit.k, fit.rho, fit.outlier, fit.loo_error)
    else:
        assert isinstance(back, GBTClassifier) and back.radius == fit.radius


def test_save_load_keeps_integer_levels(tmp_path):
    d = pd.DataFrame({"s": [0.0, 1, 2, 3, 4, 5, 6], "y": [3, 1, 2, 3, 1, 2, 1]})
    fit = ev.eknn("y ~ s", d, k=2)
    back = ev.load(fit.save(tmp_path / "m.json"))
    assert back.levels == (1, 2, 3) and back.frame == Frame([1, 2, 3])


# ---------------------------------------------------------------------------------------------
# responses, missing values
# ---------------------------------------------------------------------------------------------


def test_categorical_response_uses_observed_categories_in_order():
    d = pd.DataFrame({"s": [0.0, 1, 2, 3, 4, 5]})
    d["y"] = pd.Categorical(["z", "a", "m", "z", "a", "m"], categories=["z", "m", "q", "a"])
    fit = ev.gbt("y ~ s", d)
    assert fit.levels == ("z", "m", "a")
    assert fit.class_counts.tolist() == [2, 2, 2]


def test_bool_response():
    d = pd.DataFrame({"s": [0.0, 1, 2, 3, 4, 5], "y": [True, False, True, False, True, False]})
    fit = ev.eknn("y ~ s", d, k=2)
    assert fit.classes == (False, True) and fit.positive is True


def test_missing_drop_in_fit_and_predict(multi, new):
    d = multi.copy()
    d.loc[3, "s1"] = np.nan
    d.loc[7, "grp"] = None
    fit = ev.eknn("grp ~ s1 + s2", d, k=5, missing="drop")
    assert fit.nobs == len(d) - 2 and fit.class_frame.n_dropped == 2
    assert 3 not in fit.class_frame.index and 7 not in fit.class_frame.index
    ref = ev.eknn("grp ~ s1 + s2", d.drop(index=[3, 7]), k=5)
    np.testing.assert_array_equal(fit.gamma.to_numpy(), ref.gamma.to_numpy())
    n2 = new.copy()
    n2.iloc[2, n2.columns.get_loc("s2")] = np.nan
    p = fit.predict(n2, missing="drop")
    assert list(p.index) == [i for k, i in enumerate(new.index) if k != 2]
    assert "Training rows" in fit.summary().as_text() and "dropped" in fit.summary().as_text()


def test_neighbors_table(multi):
    fit = ev.eknn("grp ~ s1 + s2", multi, k=4)
    nb = fit.neighbors(multi.iloc[:3])
    assert len(nb) == 12 and nb["rank"].tolist() == [1, 2, 3, 4] * 3
    assert nb["distance"].iloc[0] == 0.0  # a training row is its own nearest neighbour
    loo = fit.neighbors()
    assert len(loo) == 4 * len(multi)
    assert (loo["row"] != loo["neighbor"]).all()


# ---------------------------------------------------------------------------------------------
# invariants (hypothesis)
# ---------------------------------------------------------------------------------------------


@st.composite
def datasets(draw):
    n = draw(st.integers(4, 14))
    M = draw(st.integers(2, 4))
    codes = draw(st.lists(st.integers(0, M - 1), min_size=n, max_size=n))
    codes[:M] = list(range(M))  # every class present
    coords = st.floats(-3, 3, allow_nan=False, width=32)
    xs = draw(st.lists(coords, min_size=n, max_size=n))
    zs = draw(st.lists(coords, min_size=5, max_size=5))
    return np.array(xs, dtype=float), np.array(codes), np.array(zs, dtype=float)


def _check_invariants(fit, new):
    ma = fit.predict(new, type="mass")
    v = ma.values
    assert (v >= 0).all() and v[:, 0].max() == 0.0
    np.testing.assert_allclose(v.sum(axis=1), 1.0, atol=1e-12)
    b = fit.predict(new, type="belief")
    if fit.is_binary:
        th, bel, pl = b["theta"], b["bel"], b["pl"]
    else:
        th, bel, pl = b["theta"].to_numpy(), b["bel"].to_numpy(), b["pl"].to_numpy()
    assert (np.asarray(bel) <= np.asarray(th) + 1e-12).all()
    assert (np.asarray(th) <= np.asarray(pl) + 1e-12).all()
    assert (np.asarray(bel) >= 0).all() and (np.asarray(pl) <= 1).all()  # round-off clipped


@settings(max_examples=40, deadline=None)
@given(datasets(), st.floats(0.05, 1.0), st.floats(0.1, 3.0))
def test_masses_sum_to_one_and_bel_betp_pl_ordered(data, alpha, radius):
    xs, codes, zs = data
    d = pd.DataFrame({"s": xs, "y": [f"c{c}" for c in codes]})
    if d["s"].nunique() < 2:
        return
    new = pd.DataFrame({"s": np.concatenate([zs, xs[:2]])})
    k = min(3, len(d) - 1)
    _check_invariants(ev.eknn("y ~ s", d, k=k, alpha=min(alpha, 0.99)), new)
    _check_invariants(ev.gbt("y ~ s", d, radius=radius), new)
