"""evmultinom on extreme test rows (issue 16: scores of 1e10 hung).

Rows ``x = r v`` with r up to 1e300 (and -1e300, mixed signs, one huge column among several):
every answer finite and coherent (0 <= Bel <= theta_hat <= Pl <= 1, Pl(A) = 1 - Bel(complement));
continuity between the quadrature (r sd <= WIDE_SCALE) and the exact limit r -> inf (the
difference falls like 1 / (r sd), measured constant below 0.13); the limit's class contours
against scipy's SLSQP; the quadrature against the reference path at moderate r; K = 2 against
evlogit(targets="binary"), which has its own limit; decisions with a loss matrix; bad input.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.likelihood.mlogit_limit import _pair_sd
from evstat.likelihood.multinomial import (
    WIDE_SCALE,
    limit_bounds,
    predictive_bounds,
    region_contours,
    scaled_probs,
)
from evstat.likelihood.predictive import row_scale

SCORES = [1.0, 10.0, 1e3, 1e6, 1e10, 1e50, 1e150, 1e300, -1e300]


def _data(n: int, K: int, J: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = np.r_[np.arange(K), rng.integers(0, K, n - K)]
    d = {"y": np.array(list("abcdefg"))[z]}
    for j in range(J):
        d[f"s{j + 1}"] = 0.8 * z * (1 + j) * (-1) ** j + rng.normal(0, 1, n)
    return pd.DataFrame(d)


_FITS: dict[tuple[int, int], ev.multiclass.MultinomCalibration] = {}


def _fit(K: int, J: int) -> ev.multiclass.MultinomCalibration:
    if (K, J) not in _FITS:
        _FITS[K, J] = ev.evmultinom("y ~ " + " + ".join(f"s{j + 1}" for j in range(J)), _data(60, K, J, seed=K + J))
    return _FITS[K, J]


def _rows(J: int, s: float) -> pd.DataFrame:
    if J == 1:
        return pd.DataFrame({"s1": [s]})
    return pd.DataFrame({"s1": [s, s, s], "s2": [0.5, -s, s]})  # one huge column; mixed; both


def _check_coherent(fit: ev.multiclass.MultinomCalibration, new: pd.DataFrame) -> pd.DataFrame:
    b = fit.predict(new, type="belief")
    arr = b.to_numpy()
    assert np.all(np.isfinite(arr))
    th, bel, pl = b["theta"].to_numpy(), b["bel"].to_numpy(), b["pl"].to_numpy()
    assert np.all((0 <= bel) & (bel <= th + 1e-15) & (th <= pl + 1e-15) & (pl <= 1))
    np.testing.assert_allclose(th.sum(axis=1), 1.0, atol=1e-12)
    # Pl(A) = 1 - Bel(complement of A) for the singletons
    comp = [[c for c in fit.classes if c != k] for k in fit.classes]
    e = fit.predict(new, type="belief", events=comp)
    np.testing.assert_allclose(pl, 1.0 - e["bel"].to_numpy(), atol=2e-8)
    np.testing.assert_allclose(bel, 1.0 - e["pl"].to_numpy(), atol=2e-8)
    return b


@pytest.mark.parametrize("K,J", [(3, 1), (3, 2), (4, 1), (4, 2)])
def test_sweep_finite_and_coherent_fast_subset(K: int, J: int) -> None:
    fit = _fit(K, J)
    for s in (1e10, 1e300, -1e300):
        _check_coherent(fit, _rows(J, s))


@pytest.mark.slow
@pytest.mark.parametrize("K,J", [(3, 1), (3, 2), (4, 1), (4, 2)])
def test_sweep_finite_and_coherent(K: int, J: int) -> None:
    fit = _fit(K, J)
    for s in SCORES:
        _check_coherent(fit, _rows(J, s))


def test_issue_reproduction_returns_the_limit() -> None:
    rng = np.random.default_rng(0)
    n = 60
    s = rng.normal(size=n)
    y = np.where(s + rng.normal(size=n) > 0.5, "c", np.where(s + rng.normal(size=n) > -0.5, "b", "a"))
    f = ev.evmultinom("y ~ s", pd.DataFrame(dict(y=y, s=s)))
    b6 = f.predict(pd.DataFrame(dict(s=[1e6])), type="belief")
    b10 = f.predict(pd.DataFrame(dict(s=[1e10, 1e300])), type="belief")
    c = region_contours(f.likelihood, [[1e-10, 1.0]])
    assert c[0].tolist()[2] == 1.0  # class c is the arg max for s -> +inf
    np.testing.assert_allclose(b10["pl"]["a"], c[0, 0], atol=1e-9)
    np.testing.assert_allclose(b10["bel"]["c"], 1 - c[0, :2].max(), atol=1e-9)
    # at r = 1e6 (quadrature) Pl({a}) was 3e-7 before the fix (nodes out to u_hat missed the
    # mass near u = 0); it is within O(1 / (r sd)) of the limit
    assert abs(b6["pl"]["a"].iloc[0] - b10["pl"]["a"].iloc[0]) < 1e-6


@pytest.mark.parametrize("K,J", [(3, 1), pytest.param(4, 2, marks=pytest.mark.slow)])
def test_continuity_quadrature_to_limit(K: int, J: int) -> None:
    """Below WIDE_SCALE the quadrature; its distance to the limit falls like 1 / (r sd)."""
    fit = _fit(K, J)
    lik = fit.likelihood
    dirs = [np.r_[1.0, np.ones(J)], np.r_[1.0, -np.ones(J)], np.r_[1.0, 1.0, -1.0][: J + 1]]
    for d in dirs:
        for r in (1e3, 1e5, 1e7):
            x = np.r_[1.0, r * d[1:]][None, :]
            V, rr = row_scale(x)
            S = float(rr[0] * _pair_sd(lik, V)[0])
            assert S <= WIDE_SCALE
            c = region_contours(lik, V)
            for k in range(K):
                w = np.eye(K)[k]
                _, lo, up = predictive_bounds(lik, x, w)
                l_, u_ = limit_bounds(c, w)
                err = max(abs(lo[0] - l_[0]), abs(up[0] - u_[0]))
                # slack 2e-8: the quadrature's own error (the tail rule moves Bel/Pl by up to
                # about 5e-10 per bound; CI saw 1.04e-8 over 0.5 / S at K = 4, J = 2)
                assert err <= 0.5 / S + 2e-8, (d, r, k, err, S)


def test_limit_region_contours_against_slsqp() -> None:
    for K, J in [(3, 1), (4, 2)]:
        lik = _fit(K, J).likelihood
        V = np.array([np.r_[0.0, np.ones(J)], np.r_[0.0, -np.ones(J)], np.r_[1e-3, 1.0, -1.0][: J + 1]])
        fast = region_contours(lik, V)
        ref = region_contours(lik, V, method="reference")
        np.testing.assert_allclose(fast, ref, atol=1e-7)
        assert np.all(fast.max(axis=1) == 1.0)


def test_limit_bounds_worked_example() -> None:
    c = np.array([[0.2, 1.0, 0.5]])
    # consonant belief with contour c: Bel(A) = 1 - max_{k not in A} c_k, Pl(A) = max_{k in A} c_k
    lo, up = limit_bounds(c, [1.0, 1.0, 0.0])
    assert lo.tolist() == [0.5] and up.tolist() == [1.0]
    lo, up = limit_bounds(c, [1.0, 0.0, 1.0])
    assert lo.tolist() == [0.0] and up.tolist() == [0.5]
    # a loss row: lower = sum of the level gaps times the smallest weight reached
    lo, up = limit_bounds(c, [0.3, 0.9, 0.0])
    np.testing.assert_allclose([lo[0], up[0]], [0.5 * 0.9 + 0.3 * 0.0 + 0.2 * 0.0, 0.9])


def test_scaled_probs_never_nan() -> None:
    B = np.array([[0.5, 2.0], [-1.0, 3.0]])
    P = scaled_probs(B, np.array([[1.0, 1e308], [1.0, -1e308], [1.0, 0.0], [0.0, 0.0]]))
    assert np.all(np.isfinite(P))
    np.testing.assert_allclose(P[:2], [[0, 0, 1], [1, 0, 0]], atol=0)
    np.testing.assert_allclose(P[3], [1 / 3] * 3)


@pytest.mark.slow
@pytest.mark.parametrize("s", [1.0])  # the reference path costs minutes per row beyond (face starts)
def test_moderate_rows_against_reference(s: float) -> None:
    lik = _fit(3, 1).likelihood
    x = np.array([[1.0, s]])
    for k in range(3):
        w = np.eye(3)[k]
        h, lo, up = predictive_bounds(lik, x, w)
        h2, lo2, up2 = predictive_bounds(lik, x, w, method="reference")
        np.testing.assert_allclose([h[0], lo[0], up[0]], [h2[0], lo2[0], up2[0]], atol=1e-6)


def test_reference_path_at_extreme_rows_is_the_limit_by_slsqp() -> None:
    lik = _fit(3, 2).likelihood
    x = np.array([[1.0, 1e300, -1e300], [1.0, 1e50, 0.5]])
    for k in range(3):
        w = np.eye(3)[k]
        a = predictive_bounds(lik, x, w)
        b = predictive_bounds(lik, x, w, method="reference")
        np.testing.assert_allclose(np.array(a), np.array(b), atol=1e-7)


@pytest.mark.parametrize("s", [1e3, 1e6, 1e10, 1e50, 1e300, -1e300])
def test_two_classes_equal_evlogit_at_extreme_scores(s: float) -> None:
    rng = np.random.default_rng(5)
    n = 40
    z = rng.integers(0, 2, n)
    d = pd.DataFrame({"y": np.array(["n", "p"])[z], "s": z + rng.normal(0, 1, n)})
    m = ev.evmultinom("y ~ s", d, targets="binary")
    g = ev.evlogit("y ~ s", d, targets="binary", positive="p")
    new = pd.DataFrame({"s": [s]})
    a = m.predict(new, type="belief")
    b = g.predict(new, type="belief")
    np.testing.assert_allclose(a[["theta", "bel", "pl"]].to_numpy(), b[["theta", "bel", "pl"]].to_numpy(), atol=1e-7)


def test_decisions_with_a_loss_matrix_on_extreme_rows() -> None:
    fit = _fit(4, 2)
    lik = fit.likelihood
    cls = list(fit.classes)
    L = pd.DataFrame(
        [[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, 1], [3, 2, 1, 0], [0.4, 0.4, 0.4, 0.4]],
        index=cls + ["reject"], columns=cls, dtype=float,
    )
    new = pd.DataFrame({"s1": [1e300, -1e300, 1e10], "s2": [0.5, 1e300, -1e10]})
    el = fit.expected_losses(new, loss=L)
    up, lo, pr = el["upper"].to_numpy(), el["lower"].to_numpy(), el["prob"].to_numpy()
    assert np.all(np.isfinite(up)) and np.all(np.isfinite(lo))
    assert np.all((lo <= pr + 1e-12) & (pr <= up + 1e-12))
    # against the limit computed here: the consonant belief on the classes with contour c
    X = np.c_[np.ones(3), new.to_numpy()]
    V, _ = row_scale(X)
    c = region_contours(lik, V)
    for i in range(3):
        order = np.argsort(-c[i], kind="stable")
        levels = np.r_[1.0, c[i][order][1:], 0.0]
        for a, act in enumerate(L.index):
            row = L.loc[act, cls].to_numpy()[order]
            e_up = sum((levels[j] - levels[j + 1]) * row[: j + 1].max() for j in range(4))
            e_lo = sum((levels[j] - levels[j + 1]) * row[: j + 1].min() for j in range(4))
            np.testing.assert_allclose([up[i, a], lo[i, a]], [e_up, e_lo], atol=1e-9)
    for strategy in ("pessimistic", "optimistic", "probabilistic"):
        dec = fit.decide(new, strategy=strategy, loss=L)
        assert dec.notna().all() and len(dec) == 3
    dec = fit.decide(new, strategy="pessimistic", reject_cost=0.3)
    assert set(dec.astype(str)) <= set(cls) | {"reject"}


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_infinite_or_missing_scores_name_the_column(bad: float) -> None:
    fit = _fit(3, 2)
    new = pd.DataFrame({"s1": [0.0, 1.0], "s2": [0.0, bad]})
    with pytest.raises(ValueError, match="column 's2'"):
        fit.predict(new, type="belief")
    with pytest.raises(ValueError, match="column 's2'"):
        fit.predict(new, type="prob")
    with pytest.raises(ValueError, match="column 's2'"):
        fit.decide(new, reject_cost=0.2)


def test_predictive_bounds_rejects_non_finite_design_rows() -> None:
    lik = _fit(3, 1).likelihood
    with pytest.raises(ValueError, match="rows \\[1\\] hold inf or NaN"):
        predictive_bounds(lik, [[1.0, 0.0], [1.0, np.inf]], np.eye(3)[0])


def test_far_rows_find_the_global_maximum_of_the_profile() -> None:
    """The constraint set {B : theta_A(B) = t} is not convex: from the Wald start alone the
    Newton stopped on a local maximum (face with class c instead of b) and gave Bel({d}) = 0.84
    at x = (1, 100, 100, 100) although Bel({d}) = 1 - Pl({a, b, c}) <= 1 - Pl({b}) = 0.70."""
    rng = np.random.default_rng(3)
    n, K = 200, 4
    z = rng.integers(0, K, n)
    d = {f"s{j}": 0.8 * z * (j + 1) * (-1) ** j + rng.normal(size=n) for j in range(3)}
    d["y"] = np.array(list("abcd"))[z]
    fit = ev.evmultinom("y ~ s0 + s1 + s2", pd.DataFrame(d))
    lik = fit.likelihood
    for r in (30.0, 100.0, 1e4):
        x = np.array([[1.0, r, r, r]])
        pl = [predictive_bounds(lik, x, np.eye(K)[k])[2][0] for k in range(K)]
        bel_d = predictive_bounds(lik, x, np.eye(K)[3])[1][0]
        assert bel_d <= 1 - max(pl[:3]) + 1e-9, (r, bel_d, pl)
    c = region_contours(lik, row_scale(np.array([[1.0, 1e4, 1e4, 1e4]]))[0])
    np.testing.assert_allclose(bel_d, 1 - c[0, :3].max(), atol=1e-3)  # r sd = 4.6e3: O(1 / (r sd))


def test_contour_of_far_rows_is_the_limit() -> None:
    fit = _fit(3, 1)
    new = pd.DataFrame({"s1": [1e6, 1e300, -1e300]})
    for ev_ in (["a"], ["c"], ["a", "b"]):
        c = fit.contour(new, ev_, [0.0, 0.2, 0.5, 0.9, 1.0])
        assert np.all(np.isfinite(c)) and np.all((c >= 0) & (c <= 1))
        np.testing.assert_allclose(c[1, 1:4], c[1, 1], rtol=0, atol=0)  # constant in t
        np.testing.assert_allclose(c[0, 1:4], c[1, 1:4], atol=1e-5)  # r = 1e6 near the limit
        # consistent with the bounds: int_0^1 pl_A = Pl - Bel in the limit
        b = fit.predict(new.iloc[1:2], type="belief", events=[ev_])
        np.testing.assert_allclose(c[1, 1], (b["pl"] - b["bel"]).to_numpy()[0, 0], atol=1e-12)
