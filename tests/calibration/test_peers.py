"""Venn-ABERS and split-conformal peers (evstat[peers]): outputs of the packages unchanged,
checked against hand computations on two-valued scores, in ev.compare and the reject curves."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.comparison import reject_curves

#: every test here needs evstat[peers] (skipped without it; imported by the fixture, not at collection)
pytestmark = pytest.mark.usefixtures("peer_packages")


def two_valued(k0: int, n0: int, k1: int, n1: int) -> pd.DataFrame:
    """k0 positives among n0 rows at s = 0, k1 among n1 at s = 1."""
    s = np.r_[np.zeros(n0), np.ones(n1)]
    y = np.r_[np.ones(k0), np.zeros(n0 - k0), np.ones(k1), np.zeros(n1 - k1)].astype(int)
    return pd.DataFrame({"s": s, "y": y})


def test_inductive_venn_abers_on_a_two_valued_score_by_hand():
    cal = two_valued(2, 6, 4, 6)  # frequencies 1/3 < 2/3: adding one point keeps them ordered
    fit = ev.venn_abers("y ~ s", cal)
    b = fit.predict(pd.DataFrame({"s": [0.0, 1.0]}), type="belief")
    p0 = np.array([2 / 7, 4 / 7])  # the test point labelled 0 joins its score's group
    p1 = np.array([3 / 7, 5 / 7])
    np.testing.assert_allclose(b["bel"], p0, rtol=1e-12)
    np.testing.assert_allclose(b["pl"], p1, rtol=1e-12)
    np.testing.assert_allclose(b["theta"], p1 / (1 - p0 + p1), rtol=1e-12)


def test_inductive_venn_abers_pools_violators_by_hand():
    cal = two_valued(3, 4, 1, 4)  # decreasing frequencies: PAV pools the two scores
    b = ev.venn_abers("y ~ s", cal).predict(pd.DataFrame({"s": [0.0, 1.0]}), type="belief")
    # s = 0 labelled 1: 4/5 > 1/4, pooled (3 + 1 + 1)/9; labelled 0: 3/5 > 1/4, pooled 4/9
    # s = 1 labelled 1: 3/4 vs 2/5 -> pooled 5/9; labelled 0: 3/4 vs 1/5 -> pooled 4/9
    np.testing.assert_allclose(b["pl"], [5 / 9, 5 / 9], rtol=1e-12)
    np.testing.assert_allclose(b["bel"], [4 / 9, 4 / 9], rtol=1e-12)


def test_compare_table_by_hand_with_truth_and_reject():
    cal = two_valued(2, 6, 4, 6)
    test = pd.DataFrame({"s": [0.0, 0.0, 1.0, 1.0, 1.0], "y": [0, 1, 1, 1, 0],
                         "p": [0.3, 0.3, 0.6, 0.6, 0.6]})
    tab = ev.compare({"va": ev.venn_abers("y ~ s", cal)}, test, y="y", truth="p").iloc[0]
    p0 = np.array([2, 2, 4, 4, 4]) / 7
    p1 = np.array([3, 3, 5, 5, 5]) / 7
    th = p1 / (1 - p0 + p1)
    y = test.y.to_numpy()
    assert tab["width"] == pytest.approx(1 / 7)
    assert tab["mean_ignorance"] == pytest.approx(1 / 7)
    assert tab["brier"] == pytest.approx(np.mean((th - y) ** 2))
    assert tab["log_loss"] == pytest.approx(-np.mean(y * np.log(th) + (1 - y) * np.log(1 - th)))
    # truth 0.3 lies outside [2/7, 3/7]? 2/7 = 0.2857 <= 0.3 <= 0.4286: covered; 0.6 in [4/7, 5/7]: covered
    assert tab["coverage"] == pytest.approx(1.0)
    assert tab["mse"] == pytest.approx(np.mean((th - test.p.to_numpy()) ** 2))
    # no interval straddles 1/2: nothing rejected; decisions 0, 0, 1, 1, 1 -> 3 of 5 correct
    assert tab["reject_rate"] == 0.0 and tab["accuracy"] == pytest.approx(3 / 5)
    assert np.isnan(tab["set_size"]) and np.isnan(tab["label_coverage"])


def test_straddling_interval_is_rejected():
    cal = two_valued(3, 4, 1, 4)  # [4/9, 5/9] straddles 1/2 everywhere
    fit = ev.venn_abers("y ~ s", cal)
    new = pd.DataFrame({"s": [0.0, 1.0], "y": [1, 0]})
    assert list(fit.decide(new, reject_cost=0.5)) == ["reject", "reject"]
    assert list(fit.decide(new, reject_cost=0.6)) == [0, 0]  # 1 - 4/9 = 5/9 < 0.6: decided (tie to 0)
    assert ev.compare({"va": fit}, new, y="y").iloc[0]["reject_rate"] == 1.0


def test_split_conformal_on_a_two_valued_score_by_hand():
    from sklearn.model_selection import train_test_split

    cal = two_valued(3, 10, 8, 10)
    cp = ev.split_conformal("y ~ s", cal, confidence=0.8, seed=3)
    X, y = cal[["s"]].to_numpy(), cal.y.to_numpy()
    Xp, Xc, yp, yc = train_test_split(X, y, test_size=0.5, random_state=3, shuffle=True, stratify=y)
    new = pd.DataFrame({"s": [0.0, 1.0]})
    th = cp.predict(new, type="prob").to_numpy()
    # an unpenalised logistic regression on a two-valued score fits the group frequencies
    freq = np.array([yp[Xp[:, 0] == v].mean() for v in (0.0, 1.0)])
    np.testing.assert_allclose(th, freq, atol=1e-4)
    prob_cal = np.where(Xc[:, 0] == 0.0, th[0], th[1])
    alpha_cal = np.where(yc == 1, 1 - prob_cal, prob_cal)  # hinge: 1 - p_hat(true class)
    pv = cp.p_values(new).to_numpy()
    for i in range(2):
        for c, alpha in ((0, th[i]), (1, 1 - th[i])):
            assert pv[i, c] == pytest.approx((np.sum(alpha_cal >= alpha) + 1) / (alpha_cal.size + 1))
    sets = cp.predict(new, type="set").to_numpy()
    np.testing.assert_array_equal(sets, pv >= 1 - 0.8)
    b = cp.set_belief(new)
    np.testing.assert_array_equal(b["size"], sets.sum(axis=1))
    dec = cp.decide(new)
    for i in range(2):
        want = (0 if sets[i, 0] else 1) if sets[i].sum() == 1 else "reject"
        assert dec.iloc[i] == want


def test_conformal_row_of_compare_and_curve():
    d = ev.datasets.load("pima_scores")
    cal, test = d[d.set == "calibration"], d[d.set == "test"].head(120)
    cp = ev.split_conformal("y ~ svm1 + svm2", cal, confidence=0.9, seed=1)
    row = ev.compare({"cp": cp}, test, y="y", truth=np.full(len(test), 0.4)).iloc[0]
    sets = cp.predict(test, type="set").to_numpy()
    y = test.y.to_numpy()
    th = cp.predict(test, type="prob").to_numpy()
    assert row["set_size"] == pytest.approx(sets.sum(axis=1).mean())
    assert row["label_coverage"] == pytest.approx(sets[np.arange(y.size), y].mean())
    assert row["reject_rate"] == pytest.approx(np.mean(sets.sum(axis=1) != 1))
    assert row["brier"] == pytest.approx(np.mean((th - y) ** 2))
    assert row["mse"] == pytest.approx(np.mean((th - 0.4) ** 2))
    assert np.isnan(row["coverage"]) and np.isnan(row["width"])
    cur = reject_curves({"cp": cp}, test, "y", confidences=[0.9])
    assert cur.iloc[0]["reject_rate"] == pytest.approx(row["reject_rate"])
    assert cur.iloc[0]["strategy"] == "conformal" and cur.iloc[0]["confidence"] == 0.9


@pytest.mark.filterwarnings("ignore:All-NaN slice:RuntimeWarning")
def test_outputs_are_the_packages():
    from venn_abers.venn_abers import VennAbers, VennAbersCV
    from sklearn.linear_model import LogisticRegression

    d = ev.datasets.load("pima_scores")
    cal, test = d[d.set == "calibration"], d[d.set == "test"].head(50)
    s = cal.svm1.to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        va = VennAbers().fit(p_cal=np.c_[1 - s, s], y_cal=cal.y.to_numpy())
        pp, p01 = va.predict_proba(p_test=np.c_[1 - test.svm1, test.svm1])
    b = ev.venn_abers("y ~ svm1", cal).predict(test, type="belief")
    np.testing.assert_array_equal(b["theta"], pp[:, 1])
    np.testing.assert_array_equal(b[["bel", "pl"]].to_numpy(), p01)
    X, Xt = cal[["svm1", "svm2", "svm3"]].to_numpy(), test[["svm1", "svm2", "svm3"]].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        cv = VennAbersCV(LogisticRegression(C=np.inf, max_iter=1000), inductive=False, n_splits=4,
                         random_state=7, shuffle=True)
        cv.fit(X, cal.y.to_numpy())
        pp, p01 = cv.predict_proba(Xt, p0_p1_output=True, loss="brier")
    b = ev.venn_abers("y ~ svm1 + svm2 + svm3", cal, method="cross", n_splits=4, seed=7).predict(test, type="belief")
    np.testing.assert_allclose(b["theta"], pp[:, 1], rtol=1e-12)
    np.testing.assert_allclose(b["bel"], p01[:, :4].mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(b["pl"], p01[:, 4:].mean(axis=1), rtol=1e-12)
    p0, p1 = p01[:, :4], p01[:, 4:]  # the Brier merge by hand (Vovk, Petej and Fedorova 2015)
    np.testing.assert_allclose(b["theta"], (p1 + p0**2 / 2 - p1**2 / 2).mean(axis=1), rtol=1e-12)
    assert ((b.bel <= b.theta) & (b.theta <= b.pl)).all()


def test_seeded_and_reproducible_and_numpy_state_kept():
    d = ev.datasets.load("pima_scores")
    cal, test = d[d.set == "calibration"], d[d.set == "test"].head(40)
    before = np.geterr()
    a = ev.venn_abers("y ~ svm1 + svm2", cal, method="inductive", seed=5).predict(test, type="belief")
    b = ev.venn_abers("y ~ svm1 + svm2", cal, method="inductive", seed=5).predict(test, type="belief")
    c = ev.venn_abers("y ~ svm1 + svm2", cal, method="inductive", seed=6).predict(test, type="belief")
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a.to_numpy(), c.to_numpy())
    assert np.geterr() == before  # importing venn_abers sets np.seterr globally; evstat restores it
    s1 = ev.split_conformal("y ~ svm1", cal, seed=2).p_values(test)
    s2 = ev.split_conformal("y ~ svm1", cal, seed=2).p_values(test)
    pd.testing.assert_frame_equal(s1, s2)


def test_save_load_refits_the_same_predictor(tmp_path):
    d = ev.datasets.load("pima_scores")
    cal, test = d[d.set == "calibration"], d[d.set == "test"].head(30)
    fit = ev.venn_abers("y ~ svm1 + svm2", cal, method="cross", n_splits=3, seed=4)
    back = ev.load(fit.save(tmp_path / "va.json"))
    pd.testing.assert_frame_equal(back.predict(test, type="belief"), fit.predict(test, type="belief"))


def test_bad_input():
    small = two_valued(2, 4, 3, 4)
    with pytest.raises(ValueError, match="method must be one of"):
        ev.venn_abers("y ~ s", small, method="full")
    with pytest.raises(ValueError, match="n_splits <= the size of the smaller class"):
        ev.venn_abers("y ~ s", small, method="cross", n_splits=5)
    tiny = two_valued(1, 3, 0, 3)  # one positive: no split leaves it in both parts
    with pytest.raises(ValueError, match="each needs both classes: give more calibration rows"):
        ev.split_conformal("y ~ s", tiny)
    with pytest.raises(ValueError, match="confidence must be a fraction in"):
        ev.split_conformal("y ~ s", two_valued(4, 10, 6, 10), confidence=1.5)
    with pytest.raises(ValueError, match="seed must be an integer"):
        ev.venn_abers("y ~ s", small, seed=-1)
    fit = ev.venn_abers("y ~ s", small)
    new = pd.DataFrame({"s": [0.0, 1.0], "y": [0, 1]})
    with pytest.raises(ValueError, match="truth has 1 values but newdata has 2 rows"):
        ev.compare({"va": fit}, new, y="y", truth=[0.2])
    with pytest.raises(ValueError, match="truth must lie in \\[0, 1\\]"):
        ev.compare({"va": fit}, new, y="y", truth=[0.2, 1.5])
    with pytest.raises(ValueError, match="'q' is not a column of newdata"):
        ev.compare({"va": fit}, new, y="y", truth="q")


@pytest.mark.parametrize("name", ["evstat.calibration.peers", "evstat.comparison", "evstat.plotting.reject"])
def test_docstring_examples(name, doctests):
    doctests(name)


def test_reject_curves_on_one_axes():
    import matplotlib

    matplotlib.use("Agg")
    d = ev.datasets.load("pima_scores")
    cal, test = d[d.set == "calibration"], d[d.set == "test"].head(100)
    fits = {"evlogit": ev.evlogit("y ~ svm1", cal), "va": ev.venn_abers("y ~ svm1", cal),
            "cp": ev.split_conformal("y ~ svm1", cal)}
    cur = reject_curves(fits, test, "y", costs=[0.0, 0.5, 1.0], confidences=[0.6, 0.9])
    assert set(cur.strategy) == {"pessimistic", "probabilistic", "conformal"}
    va = cur[(cur.model == "va") & (cur.strategy == "pessimistic")].set_index("reject_cost")
    assert va.loc[0.5, "reject_rate"] == pytest.approx(ev.compare({"va": fits["va"]}, test, "y").iloc[0]["reject_rate"])
    assert va.loc[1.0, "reject_rate"] == 0.0
    ax = ev.plotting.compare_reject_curves(fits, test, "y", costs=[0.0, 0.5, 1.0], confidences=[0.6, 0.9])
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["evlogit: pessimistic", "evlogit: probabilistic", "va: pessimistic", "va: probabilistic", "cp: conformal"]


@pytest.mark.slow
def test_report_with_peers(tmp_path):
    d = ev.datasets.load("pima_scores")
    cal, test = d[d.set == "calibration"], d[d.set == "test"].head(80)
    fits = {"evlogit": ev.evlogit("y ~ svm1", cal), "venn-abers": ev.venn_abers("y ~ svm1", cal),
            "conformal": ev.split_conformal("y ~ svm1", cal)}
    html = ev.report(fits, tmp_path / "r.html", newdata=test, date="2026-01-01").read_text()
    assert "Intervals and prediction sets" in html and "Error-reject curves of all models" in html
    assert "Model: venn-abers (venn_abers)" in html and "Model: conformal" not in html
    tab = ev.compare(fits, test, "y")
    assert f"{tab.set_index('model').loc['conformal', 'set_size']:.4g}"[:4] in html
    with pytest.raises(ValueError, match="needs at least one calibrator"):
        ev.report({"conformal": fits["conformal"]}, tmp_path / "s.html", newdata=test)
