"""evmultinom: evidential multinomial calibration (issue 16).

Checks: K = 2 against evlogit(targets="binary"); the fast path against the scipy reference path;
coherence (Bel <= theta <= Pl, Pl(A) = 1 - Bel(complement), monotone in A); ignorance shrinks
with duplicated data; invariance to the order of the levels and of the score columns
(hypothesis); coefficient estimates against R's nnet::multinom (numbers from
tests/multiclass/data/evmultinom_r.R, R 4.2.2, nnet 7.3.18); profile intervals against a direct
root finding of the profile (scipy); decisions through the one engine; bad input.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evstat as ev
from evstat.belief import MassArray, decide, decide_bounds, loss_matrix
from evstat.likelihood.multinomial import (
    coefficient_profile_loglik,
    functional_profile,
    functional_profile_reference,
    multinomial_loglik,
    multinomial_targets,
    predictive_bounds,
)

DATA = Path(__file__).parent / "data"


def _data(n: int, K: int = 3, J: int = 2, seed: int = 0, sep: float = 1.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = np.r_[np.arange(K), rng.integers(0, K, n - K)]  # every class present
    d = {"y": np.array(list("abcdefg"))[z]}
    for j in range(J):
        d[f"s{j + 1}"] = sep * (z == (j % K)) - 0.5 * sep * (z == ((j + 1) % K)) + rng.normal(0, 1, n)
    return pd.DataFrame(d)


@pytest.fixture(scope="module")
def fit3() -> ev.multiclass.MultinomCalibration:
    return ev.evmultinom("y ~ s1 + s2", _data(80, 3, 2, seed=1))


@pytest.fixture(scope="module")
def new3() -> pd.DataFrame:
    return pd.DataFrame({"s1": [0.0, 1.5, -2.0, 4.0, 0.3], "s2": [0.0, -1.0, 2.5, -3.0, 0.7]})


# ---------------------------------------------------------------- K = 2 is evlogit
def test_two_classes_equal_evlogit_binary() -> None:
    rng = np.random.default_rng(5)
    n = 40
    z = rng.integers(0, 2, n)
    d = pd.DataFrame({"y": z, "s1": z + rng.normal(0, 1, n), "s2": rng.normal(0, 1, n) - 0.5 * z})
    new = pd.DataFrame({"s1": [0.0, 1.0, 3.0, -2.0, 8.0], "s2": [0.0, 0.5, -1.0, 2.0, -6.0]})
    a = ev.evlogit("y ~ s1 + s2", d, targets="binary")
    b = ev.evmultinom("y ~ s1 + s2", d, targets="binary")
    np.testing.assert_allclose(b.params.to_numpy().ravel(), a.params.to_numpy(), atol=1e-10)
    pa, pb = a.predict(new, type="belief"), b.predict(new, type="belief")
    assert list(pb.columns) == ["theta", "bel", "pl"]
    np.testing.assert_allclose(pb.to_numpy(), pa.to_numpy(), atol=1e-8, rtol=0)
    t = np.linspace(0.005, 0.995, 23)
    np.testing.assert_allclose(b.contour(new, [1], t), a.predictive_contour(new)(t), atol=1e-8, rtol=0)
    beta = np.array([[-1.0, 2.0, -1.5], [0.5, 0.5, 0.5]])
    np.testing.assert_allclose(b.likelihood_contour(beta[:, None, :]), a.likelihood_contour(beta), atol=1e-12)
    np.testing.assert_allclose(b.predict(new, type="mass").values, a.predict(new, type="mass").values, atol=1e-8)
    assert b.aic == pytest.approx(a.aic, rel=1e-10) and b.deviance == pytest.approx(a.deviance, rel=1e-10)


def test_two_classes_platt_targets_equal_evlogit_platt() -> None:
    """The K-class smoothed targets are Platt's for K = 2: evmultinom(targets="platt") is evlogit's
    default fit, contour, Bel and Pl, deviances and AIC, on separated data too."""
    rng = np.random.default_rng(8)
    n = 15
    z = np.r_[0, 1, rng.integers(0, 2, n - 2)]
    d = pd.DataFrame({"y": z, "s1": 3.0 * z + rng.normal(0, 0.3, n), "s2": rng.normal(0, 1, n)})
    new = pd.DataFrame({"s1": [0.0, 1.5, 3.0, -2.0, 8.0], "s2": [0.0, 0.5, -1.0, 2.0, -6.0]})
    a = ev.evlogit("y ~ s1 + s2", d)
    assert a.targets == "platt" and a.separated
    b = ev.evmultinom("y ~ s1 + s2", d)
    assert b.targets == "platt"
    np.testing.assert_allclose(b.likelihood.T[:, 1], a.t, atol=1e-15)
    np.testing.assert_allclose(b.params.to_numpy().ravel(), a.params.to_numpy(), atol=1e-9)
    np.testing.assert_allclose(b.predict(new, type="belief").to_numpy(), a.predict(new, type="belief").to_numpy(),
                               atol=1e-8, rtol=0)
    t = np.linspace(0.005, 0.995, 23)
    np.testing.assert_allclose(b.contour(new, [1], t), a.predictive_contour(new)(t), atol=1e-8, rtol=0)
    beta = np.array([[-1.0, 2.0, -1.5], [0.5, 0.5, 0.5]])
    np.testing.assert_allclose(b.likelihood_contour(beta[:, None, :]), a.likelihood_contour(beta), atol=1e-12)
    assert b.loglike == pytest.approx(a.loglike, rel=1e-12)
    assert b.deviance == pytest.approx(a.deviance, rel=1e-9)
    assert b.null_deviance == pytest.approx(a.null_deviance, rel=1e-12)
    assert b.aic == pytest.approx(a.aic, rel=1e-10)
    with pytest.raises(ValueError, match="with targets='binary' the maximum-likelihood estimate"):
        ev.evmultinom("y ~ s1 + s2", d, targets="binary")


def test_platt_targets_closed_form() -> None:
    """T_ik = (1{y_i = k} N_{y_i} + 1) / (N_{y_i} + K): rows sum to 1, Laplace's rule per class."""
    codes = np.array([0, 0, 0, 1, 2, 2])
    T = multinomial_targets(codes, 4)
    np.testing.assert_allclose(T.sum(axis=1), 1.0)
    np.testing.assert_allclose(T[0], [4 / 7, 1 / 7, 1 / 7, 1 / 7])
    np.testing.assert_allclose(T[3], [1 / 5, 2 / 5, 1 / 5, 1 / 5])
    np.testing.assert_allclose(T[4], [1 / 6, 1 / 6, 3 / 6, 1 / 6])
    np.testing.assert_array_equal(multinomial_targets(codes, 4, "binary"), np.eye(4)[codes])
    with pytest.raises(ValueError, match="targets must be 'platt'"):
        multinomial_targets(codes, 4, "laplace")


def test_separated_three_classes_platt_finite() -> None:
    """Completely separated K = 3 data: an error with binary targets, a finite fit with Platt's,
    whose bounds are coherent and widen as the calibration set shrinks."""
    sep = pd.DataFrame({"y": list("aaaaabbbbbccccc"), "s1": np.r_[np.arange(5.0), 10 + np.arange(5.0), 20 + np.arange(5.0)]})
    with pytest.raises(ValueError, match="separate the classes of 'y'.*targets='platt'"):
        ev.evmultinom("y ~ s1", sep, targets="binary")
    fit = ev.evmultinom("y ~ s1", sep)
    assert np.isfinite(fit.params.to_numpy()).all() and np.isfinite(fit.bse.to_numpy()).all()
    g = fit.likelihood.T.sum(axis=0) - np.eye(3)[fit.likelihood.codes].sum(axis=0)
    np.testing.assert_allclose(g, 0.0, atol=1e-12)  # smoothing keeps the class totals
    b = fit.predict(pd.DataFrame({"s1": [2.0, 12.0, 30.0]}), type="belief")
    th, bel, pl = (b[s].to_numpy() for s in ("theta", "bel", "pl"))
    assert ((bel <= th + 1e-12) & (th <= pl + 1e-12)).all() and (np.argmax(th, axis=1) == [0, 1, 2]).all()


# ---------------------------------------------------------------- fast vs reference
@pytest.mark.slow
@pytest.mark.parametrize(
    "K,J,n,event",
    [(3, 1, 15, [0]), (3, 3, 1000, [1, 2]), (4, 2, 40, [2]), (4, 3, 200, [0, 3])],
)
def test_fast_path_equals_reference(K, J, n, event) -> None:
    fit = ev.evmultinom("y ~ " + " + ".join(f"s{j + 1}" for j in range(J)), _data(n, K, J, seed=K + J + n, sep=0.8))
    rng = np.random.default_rng(n)
    x = np.c_[np.ones(1), rng.normal(0, 1.5, (1, J))]  # one row: the reference takes minutes per row
    w = np.isin(np.arange(K), event).astype(float)
    h, lo, up = predictive_bounds(fit.likelihood, x, w)
    h2, lo2, up2 = predictive_bounds(fit.likelihood, x, w, method="reference")
    np.testing.assert_allclose(lo, lo2, atol=1e-6, rtol=0)
    np.testing.assert_allclose(up, up2, atol=1e-6, rtol=0)
    np.testing.assert_allclose(h, h2, atol=1e-14)


@pytest.mark.slow
def test_profile_fast_equals_reference_nodes() -> None:
    """The KKT Newton profile equals the scipy (brentq + BFGS) profile at single nodes, for sets
    and for a fractional weight (a loss row)."""
    fit = ev.evmultinom("y ~ s1 + s2", _data(50, 3, 2, seed=3))
    x = np.array([[1.0, 0.5, -0.3], [1.0, 3.0, 2.0]])
    for w in ([1.0, 0.0, 0.0], [0.0, 1.0, 1.0], [0.2, 1.0, 0.0]):
        u = np.array([-3.0, 0.4, 2.5])
        lp, _ = functional_profile(fit.likelihood, x[:, None, :], np.array(w), u[None, :])
        ref = functional_profile_reference(fit.likelihood, x[:, None, :], np.array(w), u[None, :])
        np.testing.assert_allclose(lp, ref, atol=1e-7, rtol=0)


# ---------------------------------------------------------------- coherence
def test_coherence_bounds_complement_monotone(fit3, new3) -> None:
    b = fit3.predict(new3, type="belief")
    th, bel, pl = (b[s].to_numpy() for s in ("theta", "bel", "pl"))
    assert ((0 <= bel) & (bel <= th + 1e-12) & (th <= pl + 1e-12) & (pl <= 1)).all()
    np.testing.assert_allclose(th.sum(axis=1), 1.0)
    assert (bel.sum(axis=1) <= 1 + 1e-9).all() and (pl.sum(axis=1) >= 1 - 1e-9).all()
    ev_ = fit3.predict(new3, type="belief", events=[["a"], ["b", "c"], ["a", "b"], ["a", "b", "c"]])
    # Pl(A) = 1 - Bel(complement): {a} vs {b, c}
    np.testing.assert_allclose(ev_[("pl", "{a}")], 1 - ev_[("bel", "{b, c}")], atol=1e-8)
    np.testing.assert_allclose(ev_[("bel", "{a}")], 1 - ev_[("pl", "{b, c}")], atol=1e-8)
    # monotone: {a} within {a, b} within the frame
    assert (ev_[("bel", "{a}")] <= ev_[("bel", "{a, b}")] + 1e-9).all()
    assert (ev_[("pl", "{a}")] <= ev_[("pl", "{a, b}")] + 1e-9).all()
    np.testing.assert_allclose(ev_[("bel", "{a, b, c}")], 1.0)
    np.testing.assert_allclose(ev_[("pl", "{a, b, c}")], 1.0)
    np.testing.assert_allclose(ev_[("bel", "{a}")], bel[:, 0], atol=1e-12)


def test_ignorance_shrinks_with_duplicated_data(new3) -> None:
    d = _data(40, 3, 2, seed=7)
    dd = pd.concat([d, d], ignore_index=True)
    for targets in ("binary", "platt"):  # Platt's targets move with N, so theta_hat only for binary
        one = ev.evmultinom("y ~ s1 + s2", d, targets=targets).predict(new3, type="belief")
        two = ev.evmultinom("y ~ s1 + s2", dd, targets=targets).predict(new3, type="belief")
        if targets == "binary":
            np.testing.assert_allclose(one["theta"].to_numpy(), two["theta"].to_numpy(), atol=1e-8)
        w1 = (one["pl"] - one["bel"]).to_numpy()
        w2 = (two["pl"] - two["bel"]).to_numpy()
        assert (w2 < w1).all()


@pytest.mark.slow
@settings(max_examples=4, deadline=None)
@given(perm=st.permutations([0, 1, 2]), swap=st.booleans(), seed=st.integers(0, 50))
def test_invariant_to_level_and_column_order(perm, swap, seed) -> None:
    d = _data(45, 3, 2, seed=seed)
    new = pd.DataFrame({"s1": [0.2, -1.0], "s2": [1.0, 0.4]})
    base = ev.evmultinom("y ~ s1 + s2", d).predict(new, type="belief")
    names = np.array(["a", "b", "c"])
    relabel = {a: b for a, b in zip(names, names[list(perm)])}
    d2 = d.assign(y=pd.Categorical(d["y"].map(relabel), categories=list(names[list(perm)])[::-1]))
    f2 = ev.evmultinom("y ~ s2 + s1" if swap else "y ~ s1 + s2", d2)
    other = f2.predict(new, type="belief")
    for stat in ("theta", "bel", "pl"):
        for c in names:
            np.testing.assert_allclose(other[(stat, relabel[c])], base[(stat, c)], atol=1e-7)


# ---------------------------------------------------------------- inference
def test_estimates_equal_r_nnet_multinom() -> None:
    """R 4.2.2, nnet 7.3.18: tests/multiclass/data/evmultinom_r.R (reltol 1e-14)."""
    d = pd.read_csv(DATA / "evmultinom_r.csv")
    fit = ev.evmultinom("y ~ s1 + s2", d, targets="binary")
    lines = dict(line.split(maxsplit=1) for line in (DATA / "evmultinom_r.txt").read_text().splitlines())
    coef = np.array(lines["coef"].split(), dtype=float)
    se = np.array(lines["se"].split(), dtype=float)
    np.testing.assert_allclose(fit.params.to_numpy().ravel(), coef, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(fit.bse.to_numpy().ravel(), se, rtol=1e-5)
    assert fit.deviance == pytest.approx(float(lines["deviance"]), rel=1e-10)
    assert fit.aic == pytest.approx(float(lines["aic"]), rel=1e-10)
    assert list(fit.params.index) == ["b", "c"] and list(fit.params.columns) == ["Intercept", "s1", "s2"]


@pytest.mark.slow
def test_profile_intervals_equal_direct_root_finding() -> None:
    from scipy.optimize import brentq, minimize
    from scipy.stats import chi2

    d = _data(40, 3, 1, seed=11)
    fit = ev.evmultinom("y ~ s1", d, targets="binary")  # the labels' likelihood, as `direct` below
    lik = fit.likelihood
    ci = fit.conf_int(0.95)
    K, p = lik.K, lik.p
    cut = lik.loglik_hat - 0.5 * chi2.ppf(0.95, 1)

    def direct(j: int, b: float) -> float:  # max over the other coefficients, by scipy BFGS
        rest = [i for i in range(lik.d) if i != j]

        def nll(g):
            beta = np.empty(lik.d)
            beta[rest], beta[j] = g, b
            return -float(multinomial_loglik(beta.reshape(K - 1, p), lik.X, lik.codes, K))

        return -minimize(nll, lik.B_hat.ravel()[rest], method="BFGS", options={"gtol": 1e-10}).fun

    for j in (1, 2):
        est, se = lik.B_hat.ravel()[j], np.sqrt(lik.cov[j, j])
        lo = brentq(lambda b: direct(j, b) - cut, est - 10 * se, est, xtol=1e-10)
        hi = brentq(lambda b: direct(j, b) - cut, est, est + 10 * se, xtol=1e-10)
        np.testing.assert_allclose(ci.iloc[j].to_numpy(), [lo, hi], atol=1e-6)
        lp, _ = coefficient_profile_loglik(lik, j, [lo, hi])
        np.testing.assert_allclose(lp, cut, atol=1e-8)
    wald = fit.conf_int(0.95, method="wald")
    assert list(wald.index.names) == ["class", "term"]
    prof = fit.profile("b", "s1")
    assert prof["pl"].max() == pytest.approx(1.0) and (prof["pl"] <= 1).all()


def test_summary_tidy_glance(fit3) -> None:
    text = fit3.summary().as_text()
    assert "b: s1" in text and "Residual deviance" in text and "baseline 'a'" in text
    t = fit3.tidy()
    assert list(t.columns[:3]) == ["class", "term", "estimate"] and len(t) == 6
    assert (t["conf_low"] < t["estimate"]).all() and (t["estimate"] < t["conf_high"]).all()
    g = fit3.glance()
    assert g["df"].iloc[0] == 6 and g["aic"].iloc[0] == pytest.approx(-2 * fit3.loglike_labels + 12)
    binary = ev.evmultinom("y ~ s1 + s2", _data(80, 3, 2, seed=1), targets="binary")
    assert fit3.loglike_labels < binary.loglike == pytest.approx(binary.loglike_labels)  # the labels' maximum
    assert "Targets" in text and "Platt-Laplace" in text


# ---------------------------------------------------------------- decisions
@pytest.mark.slow
def test_decisions_zero_one_and_reject(fit3, new3) -> None:
    b = fit3.predict(new3, type="belief")
    bel, pl = b["bel"].to_numpy(), b["pl"].to_numpy()
    classes = np.array(fit3.classes, dtype=object)
    pes = fit3.decide(new3, strategy="pessimistic")
    assert (pes.to_numpy() == classes[np.argmax(bel, axis=1)]).all()
    opt = fit3.decide(new3, strategy="optimistic")
    assert (opt.to_numpy() == classes[np.argmax(pl, axis=1)]).all()
    pro = fit3.decide(new3, strategy="probabilistic")
    assert (pro.to_numpy() == classes[np.argmax(b["theta"].to_numpy(), axis=1)]).all()
    rc = 0.3
    rej = fit3.decide(new3, strategy="pessimistic", reject_cost=rc).to_numpy()
    want = np.where(rc < 1 - bel.max(axis=1) - 1e-12, "reject", classes[np.argmax(bel, axis=1)])
    assert (rej == want).all()
    e = fit3.expected_losses(new3, loss_matrix(fit3.frame, reject=rc))
    np.testing.assert_allclose(e["upper"][["a", "b", "c"]].to_numpy(), 1 - bel, atol=1e-12)
    np.testing.assert_allclose(e["lower"][["a", "b", "c"]].to_numpy(), 1 - pl, atol=1e-12)


def test_general_loss_matrix(fit3, new3) -> None:
    L = pd.DataFrame([[0.0, 1.0, 4.0], [2.0, 0.0, 1.0], [0.5, 0.5, 0.5]], index=["a", "b", "hold"],
                     columns=["a", "b", "c"])
    e = fit3.expected_losses(new3, L)
    up, lo, pr = e["upper"].to_numpy(), e["lower"].to_numpy(), e["prob"].to_numpy()
    assert (lo <= pr + 1e-12).all() and (pr <= up + 1e-12).all()
    # act "a": f = theta_b + 4 theta_c; normalised weights (0, 1/4, 1)
    h, l_, u_ = predictive_bounds(fit3.likelihood, fit3._design(new3)[0], np.array([0.0, 0.25, 1.0]))
    np.testing.assert_allclose(up[:, 0], 4 * u_, atol=1e-12)
    np.testing.assert_allclose(lo[:, 0], 4 * l_, atol=1e-12)
    d = fit3.decide(new3, strategy="pessimistic", loss=L)
    assert (d.to_numpy() == np.array(["a", "b", "hold"], dtype=object)[np.argmin(up, axis=1)]).all()
    assert list(d.cat.categories) == ["a", "b", "hold"]


def test_decide_bounds_agrees_with_decide_on_mass_functions() -> None:
    """The engine's two entries agree: decide() on masses and decide_bounds() on the masses'
    upper and lower expected losses (same rules, same tie policy)."""
    rng = np.random.default_rng(0)
    v = rng.dirichlet(np.ones(7), 50)
    ma = MassArray(ev.Frame(["a", "b", "c"]), np.c_[np.zeros(50), v])
    L = loss_matrix(ma.frame, reject=0.4)
    up = decide(ma, L, strategy="pessimistic").expected_loss
    lo = decide(ma, L, strategy="optimistic").expected_loss
    for rule in ("pessimistic", "optimistic", "hurwicz"):
        a = decide(ma, L, strategy=rule, rho=0.3).choice
        b = decide_bounds(list(L.index), upper=up.to_numpy(), lower=lo.to_numpy(), strategy=rule, rho=0.3)
        assert a.tolist() == b.choice.tolist()
    with pytest.raises(ValueError, match="needs the lower expected losses"):
        decide_bounds(["a"], upper=np.zeros((2, 1)), strategy="optimistic")


# ---------------------------------------------------------------- bad input
def test_bad_input(fit3, new3) -> None:
    with pytest.raises(ValueError, match="type='mass' needs a mass function"):
        fit3.predict(new3, type="mass")
    with pytest.raises(ValueError, match="unknown: \\['z'\\]"):
        fit3.predict(new3, type="belief", events=[["a", "z"]])
    with pytest.raises(ValueError, match="events= goes with type='belief'"):
        fit3.predict(new3, type="prob", events=[["a"]])
    with pytest.raises(ValueError, match="lacks the class column"):
        fit3.decide(new3, loss=pd.DataFrame([[0.0, 1.0]], columns=["a", "b"]))
    with pytest.raises(ValueError, match="only 5 calibration rows: with targets='binary'"):
        ev.evmultinom("y ~ s1 + s2", _data(5, 3, 2), targets="binary")
    with pytest.raises(ValueError, match="3 rows for 4 design columns"):
        ev.evmultinom("y ~ s1 + s2 + s3", _data(3, 3, 3))
    sep = pd.DataFrame({"y": list("aaabbbccc"), "s1": [0, 1, 2, 10, 11, 12, 20, 21, 22.0]})
    with pytest.raises(ValueError, match="separate the classes of 'y'"):
        ev.evmultinom("y ~ s1", sep, targets="binary")
    with pytest.raises(ValueError, match="targets must be 'platt'"):
        ev.evmultinom("y ~ s1", sep, targets="laplace")
    with pytest.raises(ValueError, match="class 'a' has no coefficients"):
        fit3.profile("a", "s1")


def test_save_load_and_doctest_example(fit3, new3, tmp_path) -> None:
    again = ev.load(fit3.save(tmp_path / "m.json"))
    pd.testing.assert_frame_equal(again.params, fit3.params)
    pd.testing.assert_frame_equal(again.predict(new3, type="belief"), fit3.predict(new3, type="belief"), atol=1e-12)
    import json

    d = json.loads((tmp_path / "m.json").read_text())
    d["params"] = d["params"][:1]
    d.pop("checksum")
    with pytest.raises(ValueError, match="params must be 2 rows"):
        ev.results.from_dict(d)


@pytest.mark.slow
def test_three_class_report_and_two_class_refusal(fit3, tmp_path) -> None:
    new = _data(40, 3, 2, seed=9)
    html = fit3.report(tmp_path / "r.html", newdata=new, date="2026-01-01", grid=8).read_text(encoding="utf-8")
    assert "evmultinom" in html and "<svg" in html and "not drawn" not in html
    two = ev.evmultinom("y ~ s1 + s2", _data(40, 2, 2, seed=2))
    with pytest.raises(ValueError, match="targets='binary'"):
        two.report(tmp_path / "r2.html")
    with pytest.raises(ValueError, match="targets='binary'"):
        two.plot("profile")
