"""The grid of the class-region and belief-map figures (issue 25): the simplex for probability
scores, one prediction per figure, decisions from the stored arrays equal to ``fit.decide``,
the second panel at the data-chosen cost.

Before: regions were drawn in the plane of two score columns with the others at their medians
(iris setosa test rows inside "decide virginica"), each figure predicted the grid through
``decide`` and again through ``augment``, and no figure had a second panel.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evstat as ev
from evstat import metrics, plotting
from evstat.belief import STRATEGIES
from evstat.plotting._grid import (
    decide_arrays,
    from_simplex,
    simplex_lattice,
    ternary_xy,
    to_simplex,
    warp,
)
from evstat.results import contract_examples

LOGP = "y ~ logp_setosa + logp_versicolor + logp_virginica"


@pytest.fixture(scope="module")
def iris_scores() -> tuple[pd.DataFrame, pd.DataFrame]:
    d = ev.datasets.load("iris_scores")
    return d[d["set"] == "calibration"].reset_index(drop=True), d[d["set"] == "test"].reset_index(drop=True)


@pytest.fixture(scope="module")
def kfit(iris_scores):
    return ev.evmultinom(LOGP, iris_scores[0])


@pytest.fixture(autouse=True)
def _close():
    import matplotlib.pyplot as plt
    yield
    plt.close("all")


# ---------------------------------------------------------------- the simplex map
simplex_rows = st.lists(st.floats(1e-6, 1.0), min_size=3, max_size=3).map(lambda v: np.array(v) / np.sum(v))


@settings(max_examples=200, deadline=None)
@given(simplex_rows)
def test_simplex_map_and_its_inverse_round_trip(p):
    P = p[None, :]
    for transform in ("prob", "log"):
        np.testing.assert_allclose(to_simplex(from_simplex(P, transform), transform), P, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(warp(warp(P), 4.0), P, rtol=1e-9, atol=1e-300)
    # log-probabilities (and any shift of them) map to the same point: softmax
    np.testing.assert_allclose(to_simplex(np.log(P) + 3.7, "log"), P, rtol=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 12))
def test_lattice_cells_contain_their_centres(n):
    from matplotlib.tri import Triangulation
    C, V, T = simplex_lattice(n)
    assert C.shape == (n * n, 3) and T.shape == (n * n, 3)
    assert np.all(C > 0) and np.allclose(C.sum(axis=1), 1) and np.allclose(V.sum(axis=1), 1)
    x, y = ternary_xy(V)
    cx, cy = ternary_xy(C)
    found = Triangulation(x, y, T).get_trifinder()(cx, cy)
    np.testing.assert_array_equal(found, np.arange(n * n))  # each grid row is drawn inside its own cell


def test_score_simplex_detects_probabilities_and_logs(iris_scores):
    cal = iris_scores[0]
    assert plotting.score_simplex(ev.eknn("y ~ p_setosa + p_versicolor + p_virginica", cal, k=5)) == "prob"
    assert plotting.score_simplex(ev.eknn(LOGP, cal, k=5)) == "log"
    assert plotting.score_simplex(ev.eknn("y ~ svm_setosa + svm_versicolor + svm_virginica", cal, k=5)) is None
    assert plotting.score_simplex(ev.eknn("y ~ lr_versicolor + lr_virginica", cal, k=5)) is None


def test_rows_drawn_at_their_own_scores_in_the_cell_that_decides_like_them(kfit, iris_scores):
    """The issue's picture: with the plane at medians, setosa test rows sat in "decide
    virginica"; on the simplex every row is drawn at its own probabilities, and (to the grid's
    resolution) in a cell decided as the row itself."""
    from matplotlib.tri import Triangulation
    test = iris_scores[1]
    G = plotting.region_grid(kfit, test)
    assert G.space == "simplex" and G.transform == "log" and len(G.scores) == 16 ** 2
    x, y = G.coordinates(test)
    px, py = ternary_xy(np.exp(test[list(kfit.score_columns)].to_numpy()))
    np.testing.assert_allclose(x, px, atol=1e-5)  # the table's logs are rounded to 6 digits
    np.testing.assert_allclose(y, py, atol=1e-5)
    Vx, Vy = ternary_xy(G.vertices)
    cell = Triangulation(Vx, Vy, G.triangles).get_trifinder()(x, y)
    assert np.all(cell >= 0)
    own = np.asarray(kfit.decide(test, strategy="probabilistic"), dtype=object)
    drawn = G.decide("probabilistic")[cell]
    assert np.mean(own == drawn) >= 0.9, pd.crosstab(own, drawn)
    setosa = test["y"].to_numpy() == "setosa"
    assert not np.any(drawn[setosa] == "virginica")


# ---------------------------------------------------------------- decisions from the stored arrays
CASES = [(m, k) for m, (_, ks) in sorted(contract_examples().items()) for k in ks]


def _data(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    s1 = 1.0 / (1.0 + np.exp(-(1.2 * (z == 2) - 1.2 * (z == 0) + rng.normal(0, 1, n))))
    s2 = 1.0 / (1.0 + np.exp(-(1.5 * (z == 1) - 0.8 + rng.normal(0, 1, n))))
    return pd.DataFrame({"s1": s1, "s2": s2, "g": rng.choice(["a", "b"], n),
                         "y2": np.where(z == 2, "pos", "neg"), "y3": np.array(["lo", "mid", "hi"], dtype=object)[z]})


@pytest.mark.parametrize("method,k", CASES)
def test_grid_decisions_are_fit_decide(method, k):
    """The fast path (stored theta, Bel, Pl through decide_bounds) against fit.decide on the
    same grid rows, for every registered model, strategy and with/without a reject cost."""
    fit = contract_examples()[method][0]("y2" if k == 2 else "y3", _data(90, 1))
    if len(fit.score_columns) < 2:  # one-score models: no region figures, and they say so
        with pytest.raises(ValueError, match="at least two score columns"):
            plotting.region_grid(fit, grid=6)
        return
    G = plotting.region_grid(fit, grid=6)
    for strategy in STRATEGIES:
        for rc in (None, 0.1, 0.3):
            try:
                ref = np.asarray(fit.decide(G.scores, strategy=strategy, reject_cost=rc, rho=0.3), dtype=object)
            except ValueError:  # a strategy the model refuses: the grid refuses it too
                with pytest.raises(ValueError):
                    G.decide(strategy, rc, 0.3)
                continue
            got = G.decide(strategy, rc, 0.3)
            assert list(got) == list(ref), (method, k, strategy, rc)


def test_decide_arrays_closed_form():
    bel = np.array([[0.7, 0.1, 0.0], [0.3, 0.3, 0.2]])
    pl = np.array([[0.9, 0.2, 0.1], [0.5, 0.6, 0.4]])
    th = np.array([[0.8, 0.15, 0.05], [0.4, 0.4, 0.2]])
    # pessimistic: argmin 1 - bel, reject when R < min(1 - bel): row 1 min is 0.3 -> a; row 2 0.7
    assert list(decide_arrays(["a", "b", "c"], th, bel, pl, "pessimistic", 0.5)) == ["a", "reject"]
    # optimistic: 1 - pl = [0.1, 0.8, 0.9] -> a; [0.5, 0.4, 0.6] -> b below R = 0.45, reject at 0.35
    assert list(decide_arrays(["a", "b", "c"], th, bel, pl, "optimistic", 0.45)) == ["a", "b"]
    assert list(decide_arrays(["a", "b", "c"], th, bel, pl, "optimistic", 0.35)) == ["a", "reject"]
    assert list(decide_arrays(["a", "b", "c"], th, bel, pl, "probabilistic", None)) == ["a", "a"]  # tie: first


# ---------------------------------------------------------------- one prediction per figure
def _count_augment(fit, monkeypatch) -> list[int]:
    calls: list[int] = []
    original = type(fit).augment

    def counting(self, newdata=None, missing="raise"):
        calls.append(len(self.training_data()) if newdata is None else len(newdata))
        return original(self, newdata, missing)

    monkeypatch.setattr(type(fit), "augment", counting)
    return calls


def test_one_grid_prediction_per_figure_and_shared(kfit, iris_scores, monkeypatch):
    from matplotlib.figure import Figure
    from evstat.plotting import _grid

    test = iris_scores[1]
    _grid._PREDICTED.pop(kfit, None)  # the module's fit: no grid kept from another test
    calls = _count_augment(kfit, monkeypatch)
    ax = plotting.class_regions(kfit, newdata=test, reject_cost=0.15, grid=6)
    assert calls == [36, len(test)]  # the grid once (both panels), the drawn rows once (the share)
    assert len(ax.figure.axes) == 2
    calls.clear()
    G = plotting.region_grid(kfit, test, grid=7)
    assert calls == [49]
    plotting.class_regions(kfit, newdata=test, grid=G, ax=Figure().add_subplot())
    plotting.class_contours(kfit, newdata=test, grid=G, ax=Figure().add_subplot())
    plotting.class_contours(kfit, stat="pl", cls="setosa", newdata=test, grid=G, ax=Figure().add_subplot())
    assert calls == [49]  # no prediction beyond the grid's
    # figures drawn one after the other from the same fit share the grid (and the drawn rows)
    calls.clear()
    plotting.class_regions(kfit, newdata=test, reject_cost=0.15, grid=6, ax=Figure().add_subplot())
    plotting.class_contours(kfit, newdata=test, grid=6, ax=Figure().add_subplot())
    assert calls == []


def test_kept_grids_are_the_predictions_and_follow_the_fit(kfit, iris_scores, monkeypatch):
    """predicted_grid keeps a fit's grid predictions: equal to predicting again, returned as
    copies (a caller's change does not reach the next figure), keyed by the rows' values and
    the predictive method, and gone with the fit."""
    import gc

    from evstat.plotting import _grid

    rows = iris_scores[1][list(kfit.score_columns)].iloc[:8]
    th, be, pl, ign = _grid.predicted_grid(kfit, rows)
    th[:] = -1.0
    again = _grid.predicted_grid(kfit, rows)
    fresh = _grid.belief_arrays(kfit, kfit.augment(rows))
    for a, b in zip(again, fresh):
        assert (a is None and b is None) or np.array_equal(a, b, equal_nan=True)
    calls = _count_augment(kfit, monkeypatch)
    _grid.predicted_grid(kfit, rows.iloc[:7])  # other rows: predicted
    _grid.predicted_grid(kfit, rows.assign(**{rows.columns[0]: rows.iloc[:, 0] + 1e-9}))  # other values
    assert calls == [7, 8]
    for i in range(_grid.GRID_CACHE_SIZE + 2):  # the oldest grids are dropped
        _grid.predicted_grid(kfit, rows.iloc[: i + 1])
    assert len(_grid._PREDICTED[kfit]) == _grid.GRID_CACHE_SIZE
    fit = ev.evmultinom("y ~ lr_versicolor + lr_virginica", iris_scores[0])
    _grid.predicted_grid(fit, iris_scores[1][["lr_versicolor", "lr_virginica"]].iloc[:3])
    assert fit in _grid._PREDICTED
    n = len(_grid._PREDICTED)
    del fit
    gc.collect()
    assert len(_grid._PREDICTED) == n - 1


@pytest.mark.parametrize("space", ["simplex", "plane"])
def test_grid_numbers_are_fit_predict_belief_on_the_same_rows(kfit, iris_scores, space):
    """The figures' grid (one augment of the lattice, its far-out rows' face starts in one
    batch) gives what ``fit.predict(rows, type="belief")`` gives for the same rows, row by
    row (issue 25): no second, cheaper path behind the figures."""
    from evstat.likelihood import mlogit_limit as mm

    G = plotting.region_grid(kfit, iris_scores[1], grid=6, space=space)
    ok = np.flatnonzero(np.isfinite(G.scores.to_numpy()).all(axis=1))  # the plane's rows on the simplex
    assert len(ok) >= 20 and np.isnan(G.theta[np.setdiff1d(np.arange(len(G.scores)), ok)]).all()
    ok = ok[::3]  # one row in three, each predicted alone
    rows = G.scores.iloc[ok]
    assert mm._needs_faces(kfit.likelihood, kfit._design(rows)[0]).any()  # far-out rows included
    mm._REGION_CACHE.clear()  # the direct predictions compute their own face starts
    direct = pd.concat([kfit.predict(rows.iloc[[i]], type="belief") for i in range(len(rows))])
    for stat, arr in (("theta", G.theta), ("bel", G.bel), ("pl", G.pl)):
        np.testing.assert_allclose(arr[ok], direct[stat][list(kfit.classes)].to_numpy(), rtol=0, atol=1e-9)
    assert np.all(G.bel[ok] <= G.theta[ok] + 1e-12) and np.all(G.theta[ok] <= G.pl[ok] + 1e-12)


def test_second_panel_at_the_data_chosen_cost(kfit, iris_scores):
    test = iris_scores[1]
    G = plotting.region_grid(kfit, test, grid=6)
    assert G.decided_share("pessimistic", 0.15) < 0.1  # the "entirely reject"
    chosen = G.chosen_reject_cost()

    def share(cost: float) -> float:  # the report's rule on fit.decide, the slow path
        return float(np.mean(np.asarray(kfit.decide(test, strategy="pessimistic", reject_cost=cost)) == "reject"))

    assert chosen == metrics.choose_reject_cost(share)
    assert share(chosen) <= metrics.REJECT_SHARE
    ax = plotting.class_regions(kfit, newdata=test, reject_cost=0.15, grid=G)
    first, second = ax.figure.axes[:2]
    assert first.get_title().startswith("Decisions of evmultinom (pessimistic, reject cost 0.15: 0% of the rows decided)")
    assert f"reject cost {chosen:g}, chosen from the data" in second.get_title()
    legend = [t.get_text() for t in second.get_legend().get_texts()]
    assert "decide versicolor" in legend
    # a cost that decides most rows: one panel
    ax = plotting.class_regions(kfit, newdata=test, reject_cost=0.6, grid=G)
    assert len(ax.figure.axes) == 1


def test_plane_caption_for_scores_off_the_simplex(iris_scores):
    from matplotlib.figure import Figure
    fit = ev.eknn("y ~ svm_setosa + svm_versicolor + svm_virginica", iris_scores[0], k=5)
    G = plotting.region_grid(fit, grid=5)
    assert G.space == "plane" and G.scores.shape == (25, 3)
    assert "svm_virginica held at" in G.caption()
    ax = plotting.class_regions(fit, grid=G, ax=Figure().add_subplot())
    assert "svm_virginica held at" in ax.get_title() and "(calibration median)" in ax.get_title()


def test_bad_grid_and_space(kfit, iris_scores):
    cal, test = iris_scores
    eknn = ev.eknn("y ~ svm_setosa + svm_versicolor + svm_virginica", cal, k=5)
    with pytest.raises(ValueError, match="space='simplex' needs a three-class fit on probability-vector scores.*"
                                         "not the 3 class probabilities"):
        plotting.region_grid(eknn, space="simplex")
    with pytest.raises(ValueError, match="space must be one of"):
        plotting.region_grid(eknn, space="ternary")
    G = plotting.region_grid(kfit, grid=3)
    with pytest.raises(ValueError, match="RegionGrid of another fit"):
        plotting.class_regions(eknn, grid=G)
    with pytest.raises(ValueError, match="other rows than newdata"):
        plotting.class_contours(kfit, newdata=test, grid=G)
    with pytest.raises(TypeError, match="grid must be an int or a RegionGrid"):
        plotting.class_regions(kfit, grid=2.5)
    with pytest.raises(ValueError, match="at least 2 parts per side"):
        plotting.region_grid(kfit, grid=1)
    knn = ev.eknn(LOGP, cal, k=5)
    assert plotting.region_grid(knn, grid=3).space == "simplex"
    assert plotting.region_grid(knn, grid=3, space="plane").space == "plane"


def test_more_than_three_probability_columns_slice_the_simplex():
    """K = 4 log-probabilities: a plane of two columns whose other columns share what the two
    leave (held at their medians, the rows would be off the simplex, which evmultinom refuses)."""
    from matplotlib.figure import Figure
    d = ev.datasets.load("vehicle_scores")
    cal = d[d["set"] == "calibration"]
    cols = [c for c in d.columns if c.startswith("logp_")]
    fit = ev.eknn("y ~ " + " + ".join(cols), cal, k=7)
    assert fit.n_classes == 4 and plotting.score_simplex(fit) == "log"
    G = plotting.region_grid(fit, grid=5)
    assert G.space == "plane" and f"{cols[2]} = " in G.caption() and "of the probability the two leave" in G.caption()
    S = G.scores.to_numpy(dtype=float)
    ok = np.isfinite(S).all(axis=1)
    assert ok.any() and not ok.all()
    np.testing.assert_allclose(np.exp(S[ok]).sum(axis=1), 1.0, rtol=1e-12)
    assert np.isnan(G.theta[~ok]).all()
    ref = np.asarray(fit.decide(G.scores[ok], reject_cost=0.2), dtype=object)
    assert list(G.decide("pessimistic", 0.2)[ok]) == list(ref)
    ax = plotting.class_regions(fit, grid=G, reject_cost=0.2, ax=Figure().add_subplot())
    assert "of the probability" in ax.get_title()
