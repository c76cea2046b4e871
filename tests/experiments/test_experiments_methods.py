"""The compared methods of Minary et al. (2019), 5.2-5.3: hand-checked errors on tiny problems,
Dempster's rule against its closed form, the disjoint path against ev.disjoint, failures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evstat as ev
from evstat.experiments.ensemble import (
    GRID_LOG2C,
    GRID_LOG2G,
    _libsvm_predict,
    fit_svm,
    grid_order,
    score_table,
    svm_scores,
    train_svm,
    tune_svm,
)
from evstat.experiments.methods import (
    METHODS,
    Prediction,
    available_methods,
    dempster_binary,
    method_errors,
    predict_methods,
)

COLS = ["svm1", "svm2", "svm3"]


# ------------------------------------------------------------------------------ problem L
def _separated_half(j: int) -> pd.DataFrame:
    """10 rows: 5 negatives with every score in [-2.5, -1.5], 5 positives in [1.5, 2.5]."""
    r = np.random.default_rng(100 + j)
    base = np.r_[np.full(5, -2.0), np.full(5, 2.0)]
    frame = pd.DataFrame({c: base + r.uniform(-0.5, 0.5, 10) for c in COLS})
    frame["y"] = np.r_[np.zeros(5, int), np.ones(5, int)]
    return frame


SEP_HALVES = [_separated_half(j) for j in range(3)]
# Test rows at the cluster centres; rows 3 and 4 are deliberately mislabelled.
SEP_TEST = pd.DataFrame({
    "svm1": [-2.0, 2.0, 2.2, -1.9, -2.2], "svm2": [-2.0, 2.0, 1.9, -2.1, -2.0],
    "svm3": [-2.0, 2.0, 2.1, -2.0, -1.8], "y": [0, 1, 0, 1, 0],
})


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_on_separated_clusters(method: str) -> None:
    # Hand check: the two classes form clusters 3 units apart in every score, so every method
    # decides the class of the cluster a test row sits in: 0, 1, 1, 0, 0. GBT's ball of radius
    # 1 around a centre holds the 15 rows of that cluster only (they are within sqrt(3)/2), the
    # 15 nearest neighbours of EkNN are that cluster, binning cells and bins hold one class
    # each, and the logistic fits are steep. With the labels 0, 1, 0, 1, 0 rows 3 and 4 are
    # errors: 2 / 5 = 0.4.
    pred = predict_methods(SEP_HALVES, SEP_TEST, [method])
    assert pred[method].decisions().tolist() == [0, 1, 1, 0, 0]
    err = method_errors(SEP_TEST["y"].to_numpy(), pred)
    assert err.loc[0, "n_errors"] == 2 and err.loc[0, "error_rate"] == pytest.approx(0.4)
    assert err.loc[0, "note"] == ""


# ------------------------------------------------------------------------------ problem B
def _lattice_half() -> pd.DataFrame:
    """Scores 0, 1, ..., 8 on all three axes, labels 0 0 0 1 1 0 1 1 1.

    svm2 and svm3 get shifts of 0.01 and 0.02 on some rows so that the columns are not collinear
    (evstat refuses collinear designs); the shifts move no score across a bin boundary, and
    leave every axis between 0 and 8."""
    v = np.arange(9.0)
    return pd.DataFrame({"svm1": v, "svm2": v + 0.01 * (v % 2), "svm3": v + 0.02 * np.isin(v, [3, 7]),
                         "y": [0, 0, 0, 1, 1, 0, 1, 1, 1]})


LAT_HALVES = [_lattice_half() for _ in range(3)]
LAT_TEST = pd.DataFrame({
    "svm1": [1.0, 4.0, 7.0, 0.0, 5.0], "svm2": [1.0, 4.0, 7.0, 8.0, 5.0], "svm3": [1.0, 4.0, 7.0, 8.0, 5.0],
    "y": [0, 1, 0, 1, 0],
})


def _binomial_betp(k: int, n: int) -> float:
    """(Bel + Pl)/2 of the binomial likelihood contour, by quadrature of eqs. 25-26 (notes s. 3)."""
    from scipy.integrate import quad

    th = k / n

    def pl(u: float) -> float:
        return float(np.exp(k * np.log(u / th) + (n - k) * np.log((1 - u) / (1 - th))))

    bel = th - quad(pl, 0, th)[0]
    plaus = th + quad(pl, th, 1)[0]
    return (bel + plaus) / 2


def test_joint_binning_hand_computed() -> None:
    # Joint cells (B_M = 3): every axis cut uniformly between 0 and 8 at 8/3 and 16/3. The 27
    # calibration rows lie on the diagonal: cell 0 (scores 0-2) k = 0 of n = 9, cell 1 (3-5)
    # k = 6 of 9, cell 2 (6-8) k = 9 of 9; off-diagonal cells are empty.
    # Test rows: (1,1,1) cell 0 -> 0; (4,4,4) cell 1 -> 1 (BetP of k=6, n=9 is > 1/2, checked
    # by quadrature below); (7,7,7) cell 2 -> 1; (0,8,8) empty cell -> vacuous, a tie -> 0;
    # (5,5,5) cell 1 -> 1. Labels 0 1 0 1 0: errors at rows 3, 4, 5 -> 3/5.
    assert _binomial_betp(6, 9) > 0.5
    pred = predict_methods(LAT_HALVES, LAT_TEST, ["joint_binning"])["joint_binning"]
    assert pred.decisions().tolist() == [0, 1, 1, 0, 1]
    assert pred.bel[3] == 0.0 and pred.pl[3] == 1.0
    assert method_errors(LAT_TEST["y"], {"jb": pred})["error_rate"].iloc[0] == pytest.approx(3 / 5)


def test_joint_binning_prob_hand_computed() -> None:
    # k/n: 0, 2/3, 1, empty -> the calibration positive rate 15/27 > 1/2 -> 1, 2/3.
    # Decisions 0 1 1 1 1 against labels 0 1 0 1 0: errors at rows 3 and 5 -> 2/5.
    pred = predict_methods(LAT_HALVES, LAT_TEST, ["joint_binning_prob"])["joint_binning_prob"]
    np.testing.assert_allclose(pred.p, [0.0, 2 / 3, 1.0, 15 / 27, 2 / 3])
    assert method_errors(LAT_TEST["y"], {"jbp": pred})["error_rate"].iloc[0] == pytest.approx(2 / 5)


def test_disjoint_binning_hand_computed() -> None:
    # B_U = 9 bins per score between 0 and 8 (width 8/9): every integer score has its own bin
    # holding one row of the half. A bin with a positive row gives m({1}) = Bel = 1/2,
    # m({0,1}) = 1/2 (k = n = 1: Bel = n/(n+1)); a negative row gives m({0}) = 1/2.
    # (1,1,1): three times {0}: 1/2 -> 0. (4,4,4) -> 1. (7,7,7) -> 1.
    # (0,8,8): {0}:1/2 (+) {1}:1/2 (+) {1}:1/2. The two positives give {1}: 3/4, frame 1/4;
    # with {0}: K = 3/8, m({1}) = (3/8)/(5/8) = 0.6, m({0}) = (1/8)/(5/8) = 0.2 -> 1.
    # (5,5,5): bin of 5 holds a negative -> 0. Labels 0 1 0 1 0: one error (row 3) -> 1/5.
    pred = predict_methods(LAT_HALVES, LAT_TEST, ["disjoint_binning"])["disjoint_binning"]
    assert pred.decisions().tolist() == [0, 1, 1, 1, 0]
    assert pred.bel[3] == pytest.approx(0.6) and pred.pl[3] == pytest.approx(0.8)
    assert pred.bel[1] == pytest.approx(1 - 0.5**3) and pred.pl[1] == pytest.approx(1.0)
    assert method_errors(LAT_TEST["y"], {"db": pred})["error_rate"].iloc[0] == pytest.approx(1 / 5)


def test_gbt_hand_computed() -> None:
    # Ball of radius 1 around (t,t,t) holds the rows (i,i,i) with sqrt(3)|i - t| <= 1, i.e.
    # i = t: three rows of one class. Pl of that class = 3/15 or 3/12, the other 0: after
    # normalisation all mass on that class. (0,8,8) is at distance > 6 of every row: vacuous ->
    # tie -> 0. Decisions 0 1 1 0 0, labels 0 1 0 1 0: errors at rows 3 and 4 -> 2/5.
    pred = predict_methods(LAT_HALVES, LAT_TEST, ["gbt"])["gbt"]
    assert pred.decisions().tolist() == [0, 1, 1, 0, 0]
    np.testing.assert_allclose(pred.bel, [0, 1, 1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(pred.pl, [0, 1, 1, 1, 0], atol=1e-12)
    assert method_errors(LAT_TEST["y"], {"gbt": pred})["error_rate"].iloc[0] == pytest.approx(2 / 5)


# ------------------------------------------------------------------------------ Dempster's rule
def _dempster_closed_form(b1, p1, b2, p2):  # notes, section 7
    m1 = (1 - p1, b1, p1 - b1)
    m2 = (1 - p2, b2, p2 - b2)
    K = m1[0] * m2[1] + m1[1] * m2[0]
    one = (m1[1] * m2[1] + m1[1] * m2[2] + m1[2] * m2[1]) / (1 - K)
    zero = (m1[0] * m2[0] + m1[0] * m2[2] + m1[2] * m2[0]) / (1 - K)
    return one, 1 - zero


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 0.95), st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=8))
def test_dempster_binary_matches_closed_form(rows: list[tuple[float, float, float]]) -> None:
    # three mass functions per row: bel <= pl from sorted pairs
    b = np.array([[min(r[0], r[1]) * 0.9 for r in rows], [r[2] * 0.5 for r in rows], [0.1 for _ in rows]])
    p = np.array([[max(r[0], r[1]) * 0.9 + 0.05 for r in rows], [0.5 + r[2] * 0.5 for r in rows], [0.9 for _ in rows]])
    cb, cp, n_bad = dempster_binary(b, p)
    eb, ep = _dempster_closed_form(b[0], p[0], b[1], p[1])
    eb, ep = _dempster_closed_form(eb, ep, b[2], p[2])
    np.testing.assert_allclose(cb, eb, atol=1e-12)
    np.testing.assert_allclose(cp, ep, atol=1e-12)
    assert n_bad == 0


def test_dempster_binary_total_conflict_is_vacuous_and_counted() -> None:
    # row 1: Bel = 1 against Pl = 0 (K = 1); row 0 combines normally
    b = np.array([[0.2, 1.0], [0.1, 0.0]])
    p = np.array([[0.6, 1.0], [0.7, 0.0]])
    cb, cp, n_bad = dempster_binary(b, p)
    assert n_bad == 1
    assert (cb[1], cp[1]) == (0.0, 1.0)
    eb, ep = _dempster_closed_form(0.2, 0.6, 0.1, 0.7)
    assert cb[0] == pytest.approx(eb) and cp[0] == pytest.approx(ep)


def test_dempster_binary_single_source_unchanged() -> None:
    cb, cp, n = dempster_binary(np.array([[0.3, 0.0]]), np.array([[0.8, 1.0]]))
    np.testing.assert_allclose(cb, [0.3, 0.0])
    np.testing.assert_allclose(cp, [0.8, 1.0])
    assert n == 0


# ------------------------------------------------------------------------------ cross-checks
@pytest.mark.filterwarnings("ignore::evstat.calibration.binning.EmptyCellWarning")
@pytest.mark.parametrize("method, fitter", [("disjoint_logistic", "evlogit"), ("disjoint_binning", "evbinning")])
def test_disjoint_path_equals_ev_disjoint_when_halves_coincide(method: str, fitter: str) -> None:
    # with three identical calibration halves, calibrating svm_j on half j is ev.disjoint on that half
    h = SEP_HALVES[0]
    test = pd.DataFrame({c: np.linspace(-3, 3, 13) + 0.1 * k for k, c in enumerate(COLS)})
    mine = predict_methods([h, h, h], test, [method])[method]
    ref = ev.disjoint("y ~ svm1 + svm2 + svm3", h, method=fitter, bins=9).predict(test, type="belief")
    np.testing.assert_allclose(mine.bel, ref["bel"], atol=1e-12)
    np.testing.assert_allclose(mine.pl, ref["pl"], atol=1e-12)


def test_disjoint_calibrates_each_score_on_its_own_half() -> None:
    # half 3 relabelled: only svm3's calibration changes
    h3 = SEP_HALVES[2].copy()
    h3["y"] = 1 - h3["y"]
    a = predict_methods(SEP_HALVES, SEP_TEST, ["disjoint_binning"])["disjoint_binning"]
    b = predict_methods([SEP_HALVES[0], SEP_HALVES[1], h3], SEP_TEST, ["disjoint_binning"])["disjoint_binning"]
    assert not np.allclose(a.bel, b.bel)
    # and column 3's own calibrator reproduces it
    cols = []
    for j, half in enumerate([SEP_HALVES[0], SEP_HALVES[1], h3]):
        c = f"svm{j + 1}"
        cols.append(ev.evbinning(f"y ~ {c}", half[[c, "y"]], bins=9).predict(SEP_TEST[[c]], type="belief"))
    eb, ep, _ = dempster_binary(np.array([c["bel"] for c in cols]), np.array([c["pl"] for c in cols]))
    np.testing.assert_allclose(b.bel, eb)
    np.testing.assert_allclose(b.pl, ep)


def test_joint_logistic_matches_evlogit_on_concatenated_halves() -> None:
    pred = predict_methods(SEP_HALVES, SEP_TEST, ["joint_logistic", "joint_logistic_prob"])
    fit = ev.evlogit("y ~ svm1 + svm2 + svm3", pd.concat(SEP_HALVES, ignore_index=True))
    b = fit.predict(SEP_TEST, type="belief")
    np.testing.assert_allclose(pred["joint_logistic"].bel, b["bel"])
    np.testing.assert_allclose(pred["joint_logistic"].pl, b["pl"])
    np.testing.assert_allclose(pred["joint_logistic_prob"].p, b["theta"])
    assert pred["joint_logistic"].p is None and pred["joint_logistic_prob"].bel is None


def test_without_reject_both_evidential_strategies_agree() -> None:
    # 5.2: with 0-1 costs and no reject, the pessimistic and optimistic strategies pick the
    # class of highest belief; the stored decisions are the pessimistic ones
    r = np.random.default_rng(4)
    test = pd.DataFrame({c: r.normal(0, 1.5, 200) for c in COLS})
    pred = predict_methods(SEP_HALVES, test, ["joint_logistic"])["joint_logistic"]
    fit = ev.evlogit("y ~ svm1 + svm2 + svm3", pd.concat(SEP_HALVES, ignore_index=True))
    opt = fit.decide(test, strategy="optimistic").astype(int).to_numpy()
    pes = fit.decide(test, strategy="pessimistic").astype(int).to_numpy()
    assert np.array_equal(opt, pes)
    assert np.array_equal(pred.decisions(), pes)
    assert np.array_equal(pred.decisions(), (pred.bel + pred.pl > 1).astype(int))


# ------------------------------------------------------------------------------ failures, input
def test_a_failing_method_gets_a_note_and_no_error_rate() -> None:
    bad = SEP_HALVES[2].copy()
    bad["svm3"] = 1.0  # constant score: its own evidential logistic calibration cannot be fitted
    pred = predict_methods([SEP_HALVES[0], SEP_HALVES[1], bad], SEP_TEST, ["disjoint_logistic", "joint_binning"])
    err = method_errors(SEP_TEST["y"].to_numpy(), pred)
    row = err.set_index("method").loc["disjoint_logistic"]
    assert np.isnan(row["error_rate"]) and np.isnan(row["n_errors"])
    assert row["note"].startswith("failed: ValueError") and "svm3" in row["note"]
    assert err.set_index("method").loc["joint_binning", "error_rate"] == pytest.approx(0.4)


def test_predict_methods_bad_input() -> None:
    with pytest.raises(ValueError, match=r"unknown methods \['svm'\]"):
        predict_methods(SEP_HALVES, SEP_TEST, ["svm"])


def test_prediction_decisions_ties_go_to_class_zero() -> None:
    assert Prediction(p=np.array([0.5, 0.50001, 0.2])).decisions().tolist() == [0, 1, 0]
    assert Prediction(bel=np.array([0.0, 0.3]), pl=np.array([1.0, 0.71])).decisions().tolist() == [0, 1]


def test_method_errors_counts() -> None:
    pred = {"a": Prediction(p=np.array([0.9, 0.1, 0.7, 0.2])), "b": Prediction(note="failed: x")}
    err = method_errors(np.array([1, 1, 0, 0]), pred)
    assert err["n_errors"].iloc[0] == 2 and err["error_rate"].iloc[0] == 0.5
    assert np.isnan(err["error_rate"].iloc[1]) and err["note"].iloc[1] == "failed: x"
    assert err["n_test"].tolist() == [4, 4]


def test_methods_registry() -> None:
    assert list(METHODS) == ["joint_logistic", "joint_logistic_prob", "joint_binning", "joint_binning_prob",
                             "disjoint_logistic", "disjoint_binning", "gbt", "eknn"]
    assert {m.framework for m in METHODS.values()} == {"evidential", "probabilistic"}
    assert set(available_methods()) <= set(METHODS)


# ------------------------------------------------------------------------------ SVMs
def test_train_svm_sign_and_bad_input() -> None:
    X = np.array([[0.0, 1.0], [1.0, 0.0], [3.0, 4.0], [4.0, 3.0]])
    svm = train_svm(X, [0, 0, 1, 1])
    assert svm.decision_function([[0.5, 0.5]])[0] < 0 < svm.decision_function([[3.5, 3.5]])[0]
    # the SVC is rbf with C = 1, gamma = "scale" after standardisation
    svc = svm.steps[-1][1]
    assert (svc.kernel, svc.C, svc.gamma) == ("rbf", 1.0, "scale")
    with pytest.raises(ValueError, match=r"needs training rows of both classes 0 and 1; its 2 rows have classes \[1\]"):
        train_svm(X[:2], [1, 1])
    with pytest.raises(ValueError, match="one row per label"):
        train_svm(X, [0, 1])


def test_svm_scores_match_individual_svms() -> None:
    r = np.random.default_rng(0)
    X = r.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    sets = [np.arange(0, 10), np.arange(10, 20)]
    s = svm_scores(X, y, sets, rows=np.arange(20, 40))
    for j, tr in enumerate(sets):
        np.testing.assert_allclose(s[:, j], train_svm(X[tr], y[tr]).decision_function(X[20:]))
    t = score_table(s, y[20:], np.arange(20, 40))
    assert list(t.columns) == ["svm1", "svm2", "y"] and list(t.index) == list(range(20, 40))


# ------------------------------------------------------------------------------ ties (issue 11)
def test_method_errors_counts_ties_and_applies_one_policy() -> None:
    y = np.array([1, 0, 1, 0, 1, 0])
    pred = {
        "joint_binning": Prediction(bel=np.array([0.0, 0.0, 0.6, 0.1, 0.3, 0.0]), pl=np.array([1.0, 1.0, 0.9, 0.3, 0.7, 1.0])),
        "joint_logistic_prob": Prediction(p=np.array([0.5, 0.5, 0.9, 0.1, 0.5, 0.2])),
    }
    first = method_errors(y, pred, tie="first").set_index("method")
    assert first.loc["joint_binning", "n_ties"] == 4 and first.loc["joint_logistic_prob", "n_ties"] == 3
    # class 0 for every tie: the tied positives (rows 0 and 4) are errors
    assert first.loc["joint_binning", "n_errors"] == 2 and first.loc["joint_logistic_prob", "n_errors"] == 2
    r1 = method_errors(y, pred, tie="random", seed=np.random.SeedSequence(5, spawn_key=(1, 2)))
    r2 = method_errors(y, pred, tie="random", seed=np.random.SeedSequence(5, spawn_key=(1, 2)))
    pd.testing.assert_frame_equal(r1, r2)
    # a method's draws do not depend on which other methods run
    alone = method_errors(y, {"joint_logistic_prob": pred["joint_logistic_prob"]}, tie="random",
                          seed=np.random.SeedSequence(5, spawn_key=(1, 2)))
    assert alone["n_errors"].iloc[0] == r1.set_index("method").loc["joint_logistic_prob", "n_errors"]
    with pytest.raises(ValueError, match="tie must be one of"):
        method_errors(y, pred, tie="last")


def test_random_ties_are_fair_over_many_rows() -> None:
    n = 4000
    pred = {"gbt": Prediction(bel=np.zeros(n), pl=np.ones(n))}  # every row vacuous
    err = method_errors(np.zeros(n, dtype=int), pred, tie="random", seed=11)
    assert err["n_ties"].iloc[0] == n
    assert abs(err["error_rate"].iloc[0] - 0.5) < 4 * 0.5 / np.sqrt(n)


# ------------------------------------------------------------------------------ SVM tuning (issue 11)
def _tiny(n: int = 16, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    r = np.random.default_rng(seed)
    y = np.tile([0, 1], n // 2)
    X = r.normal(size=(n, 2)) + 1.2 * y[:, None]
    return X, y


def test_libsvm_fast_path_equals_svc() -> None:
    from sklearn.svm import SVC

    X, y = _tiny(30, 1)
    Xt = np.random.default_rng(2).normal(size=(40, 2))
    for c, g in ((-5, 3), (1, -3), (15, -15), (3, 1)):
        fast = _libsvm_predict(np.ascontiguousarray(X), y.astype(float), Xt, 2.0 ** c, 2.0 ** g)
        slow = SVC(kernel="rbf", C=2.0 ** c, gamma=2.0 ** g).fit(X, y).predict(Xt)
        np.testing.assert_array_equal(fast, slow)


def test_tune_svm_equals_a_brute_force_grid_search() -> None:
    """The slow path: scikit-learn's SVC and StratifiedKFold on the standardised rows, every
    grid pair, the most correct rows, ties as grid.py breaks them."""
    from sklearn.model_selection import StratifiedKFold
    from sklearn.svm import SVC

    X, y = _tiny(16, 3)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    scores = {}
    for c in GRID_LOG2C:
        for g in GRID_LOG2G:
            ok = 0
            for tr, te in StratifiedKFold(5).split(Z, y):
                ok += int(np.sum(SVC(C=2.0 ** c, gamma=2.0 ** g).fit(Z[tr], y[tr]).predict(Z[te]) == y[te]))
            scores[(c, g)] = ok
    # grid.py's rule, written out: the first best pair in its search order, except that a pair
    # with the same gamma and a smaller C replaces it
    best_rate, best_c, best_g = -1, 0, 0
    for c, g in grid_order(GRID_LOG2C, GRID_LOG2G):
        if scores[(c, g)] > best_rate or (scores[(c, g)] == best_rate and g == best_g and c < best_c):
            best_rate, best_c, best_g = scores[(c, g)], c, g
    assert best_rate == max(scores.values())
    assert tune_svm(X, y) == (2.0 ** best_c, 2.0 ** best_g, 5)
    assert len(GRID_LOG2C) == 11 and len(GRID_LOG2G) == 10


def test_grid_order_is_grid_pys() -> None:
    """grid.py (LIBSVM 3.x, calculate_jobs) on its default ranges, worked by hand: c_seq =
    permute_sequence(-5..15 by 2) = 5, -1, 11, -3, 9, 3, 15, -5, 7, 1, 13; g_seq =
    permute_sequence(3..-15 by -2) = -7, -1, -13, 1, -11, -5, -15, 3, -9, -3; the grid is then
    refined alternately: (c0, g0), (c1, g0), (c0, g1), (c1, g1), (c2, g0), (c2, g1), ..."""
    order = grid_order(GRID_LOG2C, GRID_LOG2G)
    assert order[:9] == [(5, -7), (-1, -7), (5, -1), (-1, -1), (11, -7), (11, -1), (5, -13), (-1, -13), (11, -13)]
    assert sorted(order) == sorted((c, g) for c in GRID_LOG2C for g in GRID_LOG2G)
    assert grid_order([1], [2]) == [(1, 2)]


def test_tune_svm_folds_and_fallback() -> None:
    X, y = _tiny(6, 4)
    assert tune_svm(X, y)[2] == 3  # 3 rows per class: 3 folds
    X1 = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    assert tune_svm(X1, np.array([0, 0, 0, 1])) == (1.0, 0.5, 0)  # one positive: LIBSVM's defaults, 1/d
    m = fit_svm(X, y, "tuned")
    assert (m.tuned_C, m.tuned_gamma) == tune_svm(X, y)[:2]
    assert m[-1].C == m.tuned_C and m[-1].gamma == m.tuned_gamma
    d = fit_svm(X, y, "default")
    assert d[-1].C == 1.0 and d[-1].gamma == "scale"
    with pytest.raises(ValueError, match="svm must be one of"):
        fit_svm(X, y, "grid")
    with pytest.raises(ValueError, match="both classes"):
        fit_svm(X, np.zeros(6, dtype=int), "tuned")
