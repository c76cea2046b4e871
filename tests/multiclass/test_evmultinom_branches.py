"""evmultinom's profile of theta_k has several local maxima for K >= 3 (the set
{B : theta_k(x; B) <= t} is not convex): the quadrature's nodes must follow the global one.

Found at n = 1000 calibration rows in the setting of ``benchmarks/bench_kclass_figures.py``
(iris scored by a logistic regression trained on 30 rows, calibration rows resampled with
noise, seed 25), on the grid row of the ``decision_regions`` figure with scores about
(0.74, 0.04, 0.22): the Newton solves from the Wald chain and the two face starts landed on
different local maxima from node to node, the computed profile of P(virginica) was not
monotone on the side below its mode (u = 2.8: -1.18, u = 3.6: -4.84), the adaptive quadrature
bisected to its depth limit (53 s CPU) and Bel came out too high. At n = 100 and 300 the
isolated solves show the two branches too, but the chained nodes of the quadrature stay on the
global one; n = 1000 is the smallest size tried that makes Bel wrong.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.likelihood import multinomial as mm
from evstat.likelihood import mlogit_bounds, mlogit_limit, mlogit_panels, mlogit_profile
from evstat.likelihood.quadrature import CC16

ROW = np.array([0.0, -2.94904062, -1.20757412])  # log-ratios of the grid row (0.74, 0.04, 0.22)


def _data(n: int, seed: int = 25) -> pd.DataFrame:
    """The calibration rows of ``benchmarks/bench_kclass_figures.py --n n``."""
    from sklearn.linear_model import LogisticRegression

    iris = ev.datasets.load("iris")
    y = iris["Species"].astype(str).to_numpy()
    X = iris.drop(columns=["Species"]).to_numpy(dtype=float)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    tr, cal = order[:30], order[30:90]
    clf = LogisticRegression(max_iter=1000).fit(X[tr], y[tr])

    def frame(rows: np.ndarray, noise: float = 0.0) -> pd.DataFrame:
        Xr = X[rows] + noise * rng.standard_normal((len(rows), X.shape[1]))
        lp = clf.predict_log_proba(Xr)
        return pd.DataFrame({f"s_{c}": lp[:, j] for j, c in enumerate(clf.classes_)} | {"Species": y[rows]})

    return pd.concat([frame(cal), frame(rng.choice(cal, n - 60), noise=0.3)], ignore_index=True)


@pytest.fixture(scope="module")
def case():
    fit = ev.evmultinom("Species ~ s_setosa + s_versicolor + s_virginica", _data(1000))
    z = ROW - np.log(np.exp(ROW).sum())
    x, _ = fit._design(pd.DataFrame({"s_setosa": [z[0]], "s_versicolor": [z[1]], "s_virginica": [z[2]]}))
    return fit.likelihood, np.asarray(x, dtype=float), np.eye(3)[2]


def _slow_profile(lik: mm.MultinomialLikelihood, x: np.ndarray, w: np.ndarray, u: float, starts: int = 12) -> float:
    """max l(B) s.t. logit theta_w(x; B) = u by SLSQP on the equality constraint from the MLE
    and random starts up to 30 standard errors away, the best feasible solution kept."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(0)
    K, p = lik.K, lik.p

    def f(b: np.ndarray) -> tuple[float, np.ndarray]:
        B = b.reshape(K - 1, p)
        g, _ = mm.multinomial_score_info(B, lik.X, lik.codes, K, lik.T)
        return -float(mm.multinomial_loglik(B, lik.X, lik.codes, K, lik.T)), -g

    def c(b: np.ndarray) -> float:
        return float(mm._grad_g(b.reshape(1, K - 1, p), x[None], w[None])[0][0] - u)

    def cj(b: np.ndarray) -> np.ndarray:
        return mm._grad_g(b.reshape(1, K - 1, p), x[None], w[None])[1][0]

    L = np.linalg.cholesky(lik.cov)
    best = -np.inf
    for s in range(starts):
        b0 = lik.B_hat.ravel() + (s > 0) * rng.choice([1.0, 3.0, 10.0, 30.0]) * (L @ rng.standard_normal(lik.d))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = minimize(f, b0, jac=True, method="SLSQP", constraints=[{"type": "eq", "fun": c, "jac": cj}],
                         options={"maxiter": 500, "ftol": 1e-12})
        if abs(c(r.x)) < 1e-8:
            best = max(best, -float(r.fun))
    return best - float(lik.loglik_hat)


def _quadrature_nodes(lik, x, w, monkeypatch):
    """predictive_bounds, and the (side, u, log pl) of every node its quadrature integrated."""
    seen: list[tuple[int, np.ndarray, np.ndarray]] = []
    integrate = mlogit_panels.adaptive_clenshaw_curtis

    def spy(a, b, evaluate, side, *args, **kw):
        def recorded(rows, uu):
            f, logpl = evaluate(rows, uu)
            seen.append((side, uu[0].copy(), np.asarray(logpl)[0].copy()))
            return f, logpl
        return integrate(a, b, recorded, side, *args, **kw)

    monkeypatch.setattr(mlogit_panels, "adaptive_clenshaw_curtis", spy)
    bounds = mm.predictive_bounds(lik, x, w)
    return bounds, seen


@pytest.mark.slow  # about 50 s: the slow SLSQP maximisations at n = 1000
def test_profile_at_the_quadrature_nodes_is_monotone_and_global(case, monkeypatch):
    lik, x, w = case
    (h, bel, pl), seen = _quadrature_nodes(lik, x, w, monkeypatch)
    u_hat = float(mlogit_panels._wald_u(lik, x, w[None])[0][0])
    for side in (-1, 1):
        u = np.concatenate([s[1] for s in seen if s[0] == side])
        lp = np.concatenate([s[2] for s in seen if s[0] == side])
        order = np.argsort(side * (u - u_hat))  # from the mode outward
        assert np.all(np.diff(lp[order]) <= 1e-6), side  # non-increasing away from the mode (to NODE_TOL)
    # the nodes below the mode against the slow global maximisation (the isolated solves from
    # the three starts gave -4.84 at u = 3.6 and -25.6 / -3.8 / -25.7 at u = -9.1)
    u = np.concatenate([s[1] for s in seen if s[0] == -1])
    lp = np.concatenate([s[2] for s in seen if s[0] == -1])
    pick = np.unique(np.searchsorted(np.sort(u), [-9.1, -3.0, 2.8, 3.6, 6.0, 9.0]).clip(0, u.size - 1))
    for i in np.argsort(u)[pick]:
        slow = _slow_profile(lik, x[0], w, float(u[i]))
        assert lp[i] >= slow - 1e-5, (u[i], lp[i], slow)  # the node is as high as the global maximum
        assert lp[i] <= slow + 1e-3, (u[i], lp[i], slow)  # and a value of the profile
    assert 0.0 <= bel[0] <= h[0] <= pl[0] <= 1.0
    # Bel({virginica}) of an independent computation (the layer-cake integral by Simpson's rule
    # on 801 nodes over u_hat - 20 sd .. u_hat, each node the best of independent Newton solves
    # from 30 random starts up to 30 standard errors away, the two face starts and the Wald
    # start; 198 s CPU, /tmp script of the fix): 0.802151; before the fix 0.8063
    np.testing.assert_allclose(bel[0], 0.802151, atol=5e-6)
    assert pl[0] > 1.0 - 1e-6


def test_agreeing_starts_do_not_make_the_continuation_redundant(case):
    """The shortcut "skip the continuation where the Wald start and the face starts reach the
    same maximiser" (weighed for issues 25/26 and rejected): on another grid row the three chains
    agree at every node of a panel, all on a lower branch, and only the continuation from the
    neighbouring nodes finds the global one (Bel 0.8978 without it, 0.8817 with it)."""
    lik = case[0]
    # grid row 144 of `bench_kclass_figures.py --n 1000` (scores log(0.405, 0.195, 0.405) up to
    # a constant: the log-ratios below), P(virginica), the first panel below the mode
    x = np.array([[1.0, -0.73352354403526232, 0.0]])
    w = np.array([[0.0, 0.0, 1.0]])
    assert mlogit_limit._needs_faces(lik, x)[0]
    u_hat, sig = mlogit_panels._wald_u(lik, x, w)
    a, b = mlogit_panels._side_ends(u_hat, sig, -1, np.array([7.0]))
    uu = (a[:, None] + (b - a)[:, None] * CC16[0][None, :])[:, ::-1]  # from the mode down
    kw = dict(tol=mm.NODE_TOL, max_iter=mm.NODE_MAX_ITER, tail=True, kernel=True)
    chains = [mm.functional_profile(lik, x[:, None], w[:, None], uu, chain=True, **kw)[0][0]]
    starts = mm.face_starts(lik, x, w[0])
    for st_ in starts:
        chains.append(mm.functional_profile(lik, x[:, None], w[:, None], uu, chain=True,
                                            start=st_[:, None, :], **kw)[0][0])
    chains = np.array(chains) - lik.loglik_hat
    assert np.abs(chains - chains[0]).max() <= 1e-6  # the three starts agree at every node
    full, _ = mlogit_panels._continued_profile(lik, x[:, None], w[:, None], uu, np.stack(starts), True)
    gain = full[0] - lik.loglik_hat - chains[0]
    assert gain.min() >= -1e-9
    j = int(np.argmax(gain))
    assert gain[j] > 0.5  # yet the continuation finds a higher branch
    slow = _slow_profile(lik, x[0], w[0], float(uu[0, j]))  # and it is the global maximum there
    assert full[0, j] - lik.loglik_hat >= slow - 1e-5
    assert full[0, j] - lik.loglik_hat <= slow + 1e-3


def test_inward_walk_skips_only_retraced_steps(case, monkeypatch):
    """The inward walk of the continuation skips a node where the kept maximiser at the farther
    node is a chain's and that chain reached this node's value along one branch
    (mlogit_panels._same_branch): on both panels below the modes of the case row and of grid row 144 the
    values equal those of the walk without the shortcut, and the shortcut is taken."""
    lik = case[0]
    for x in (case[1], np.array([[1.0, -0.73352354403526232, 0.0]])):
        w = np.array([[0.0, 0.0, 1.0]])
        u_hat, sig = mlogit_panels._wald_u(lik, x, w)
        a, b = mlogit_panels._side_ends(u_hat, sig, -1, np.array([7.0]))
        uu = (a[:, None] + (b - a)[:, None] * CC16[0][None, :])[:, ::-1]
        starts = np.stack(mm.face_starts(lik, x, w[0]))
        run0, skip0 = mlogit_panels._CONTINUATION
        fast, _ = mlogit_panels._continued_profile(lik, x[:, None], w[:, None], uu, starts, True)
        run1, skip1 = mlogit_panels._CONTINUATION
        assert skip1 - skip0 >= 8 and run1 - run0 >= 16  # outward: every node; inward: some skipped
        with monkeypatch.context() as mp:
            mp.setattr(mlogit_panels, "_same_branch", lambda *args: np.zeros(np.shape(args[0]), dtype=bool))
            full, _ = mlogit_panels._continued_profile(lik, x[:, None], w[:, None], uu, starts, True)
        np.testing.assert_allclose(fast, full, atol=1e-9, rtol=0)


def test_same_branch_rule():
    h = np.array([0.5, 0.5, -0.5, 0.5, 0.5])
    s_k = np.array([-1.0, -1.0, 1.0, -1.0, np.nan])
    s_j = np.array([-2.0, -2.0, 2.0, -2.0, -2.0])
    l_k = np.zeros(5)
    # smooth descent (between -1 and -0.5); a jump up; a smooth step backwards; a fall too far; NaN
    l_j = np.array([-0.7, 0.3, -0.7, -3.0, -0.7])
    assert mlogit_panels._same_branch(l_k, l_j, s_k, s_j, h).tolist() == [True, False, True, False, False]


# ---------------------------------------------------------------- convex sides and later panels
#: rows of the figure's grid in the case's fit (log-ratios): the case row, grid row 144, a row
#: near a vertex and an ordinary one (no face starts)
GRID_ROWS = np.array([
    ROW, [0.0, -0.73352354403526232, 0.0], [0.0, -6.99236417, -4.12658768], [0.0, 2.0, 1.0],
])


def _passes(fn):
    p0 = mlogit_profile._PASSES[0]
    out = fn()
    return out, mlogit_profile._PASSES[0] - p0


def test_convex_sides():
    sides = mlogit_panels._convex_sides(np.array([[0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [0.5, 0.0, 0.0],
                                       [0.0, 0.3, 0.6]]))
    # {theta_k >= t} is convex (a log-sum-exp of affine functions bounded); {theta_k <= t} is not
    # for K >= 3; the complement of a singleton the other way round; a loss row neither
    assert sides[1].tolist() == [True, False, False, True, False]
    assert sides[-1].tolist() == [False, True, True, False, False]
    four, two = mlogit_panels._convex_sides(np.array([[1.0, 0.0, 0.0, 1.0]])), mlogit_panels._convex_sides(np.array([[1.0, 0.0]]))
    assert not four[1][0] and not four[-1][0]  # two classes against two
    assert two[1][0] and two[-1][0]  # K = 2: both sides (a concave problem)


def test_convex_side_certificate_matches_the_multistart_path(case, monkeypatch):
    """On the side where {B : theta_k >= t} is convex the Wald chain's solutions with a slope of
    the side's sign are the global maxima (KKT of a concave maximisation on a convex set), so
    the face chains and the continuation are skipped there: same Bel and Pl as with them, fewer
    passes over the calibration rows."""
    lik = case[0]
    x = np.c_[np.ones(len(GRID_ROWS)), GRID_ROWS[:, 1:]]
    assert mlogit_limit._needs_faces(lik, x)[:3].all() and not mlogit_limit._needs_faces(lik, x)[3]
    for w in np.eye(3):
        c0 = list(mlogit_panels._CERTIFIED)
        fast, p_fast = _passes(lambda: mm.predictive_bounds(lik, x, w))
        assert mlogit_panels._CERTIFIED[0] > c0[0]  # some rows certified
        with monkeypatch.context() as mp:
            mp.setattr(mlogit_bounds, "_convex_sides", lambda ws: {1: np.zeros(len(ws), bool), -1: np.zeros(len(ws), bool)})
            full, p_full = _passes(lambda: mm.predictive_bounds(lik, x, w))
        np.testing.assert_allclose(np.array(fast), np.array(full), atol=1e-9, rtol=0)
        assert p_fast < p_full


def test_certificate_needs_the_sign_of_the_side(case):
    """A Wald chain whose slopes have the wrong sign for the side claimed is not certified: the
    nodes below the mode of grid row 144 (slopes >= 0) taken as side +1 run the whole path."""
    lik = case[0]
    x = np.array([[1.0, -0.73352354403526232, 0.0]])
    w = np.array([[0.0, 0.0, 1.0]])
    u_hat, sig = mlogit_panels._wald_u(lik, x, w)
    a, b = mlogit_panels._side_ends(u_hat, sig, -1, np.array([7.0]))
    uu = (a[:, None] + (b - a)[:, None] * CC16[0][None, :])[:, ::-1]
    starts = np.stack(mm.face_starts(lik, x, w[0]))
    c0 = list(mlogit_panels._CERTIFIED)
    claimed, _ = mlogit_panels._continued_profile(lik, x[:, None], w[:, None], uu, starts, True, side=1, convex=np.array([True]))
    assert mlogit_panels._CERTIFIED[0] == c0[0] and mlogit_panels._CERTIFIED[1] == c0[1] + 1
    plain, _ = mlogit_panels._continued_profile(lik, x[:, None], w[:, None], uu, starts, True)
    np.testing.assert_allclose(claimed, plain, atol=1e-12, rtol=0)
    # the same nodes on their own side (-1) are the non-convex side of {virginica}: not certified
    assert not mlogit_panels._convex_sides(w)[-1][0]


@pytest.mark.slow  # about 20 s: SLSQP maximisations at n = 1000
def test_certified_nodes_are_global_maxima(case):
    """The certified values above the mode of grid row 144 against the slow multi-start SLSQP."""
    lik = case[0]
    x = np.array([[1.0, -0.73352354403526232, 0.0]])
    w = np.array([[0.0, 0.0, 1.0]])
    assert mlogit_panels._convex_sides(w)[1][0]
    u_hat, sig = mlogit_panels._wald_u(lik, x, w)
    a, b = mlogit_panels._side_ends(u_hat, sig, 1, np.array([7.0]))
    uu = (a[:, None] + (b - a)[:, None] * CC16[0][None, :])
    starts = np.stack(mm.face_starts(lik, x, w[0]))
    c0 = mlogit_panels._CERTIFIED[0]
    lp, sl = mlogit_panels._continued_profile(lik, x[:, None], w[:, None], uu, starts, True, side=1, convex=np.array([True]))
    assert mlogit_panels._CERTIFIED[0] == c0 + 1 and np.all(sl[0, 1:] < 0)
    for j in (4, 10, 16):
        slow = _slow_profile(lik, x[0], w[0], float(uu[0, j]), starts=6)
        assert abs(lp[0, j] - lik.loglik_hat - slow) <= 1e-5, (j, lp[0, j] - lik.loglik_hat, slow)


def test_later_panels_start_from_the_best_known_maximiser(case, monkeypatch):
    """A bisected or widened panel's first node is a node already solved: its Wald chain starts
    from the best maximiser found there (recorded in mlogit_panels._Seen) instead of the far Wald start; the same
    Bel and Pl, fewer passes."""
    lik = case[0]
    x = np.c_[np.ones(len(GRID_ROWS)), GRID_ROWS[:, 1:]]
    w = np.eye(3)[2]
    fast, p_fast = _passes(lambda: mm.predictive_bounds(lik, x, w))
    with monkeypatch.context() as mp:
        mp.setattr(mlogit_panels._Seen, "at", lambda self, ids, keys: np.full((ids.size, self.B.shape[2]), np.nan))
        cold, p_cold = _passes(lambda: mm.predictive_bounds(lik, x, w))
    np.testing.assert_allclose(np.array(fast), np.array(cold), atol=1e-9, rtol=0)
    assert p_fast < p_cold


def test_solved_record():
    s = mlogit_panels._Seen(8, 2)
    s.add(np.array([3, 5]), np.array([[1.0, 2.0], [1.0, 2.0]]), np.zeros((2, 2)), np.arange(8.0).reshape(2, 2, 2))
    failed = np.array([[[9.0, 9.0], [np.nan, np.nan]]])  # the second node's solve failed
    s.add(np.array([3]), np.array([[4.0, 5.0]]), np.zeros((1, 2)), failed)
    got = s.at(np.array([3, 5, 3, 7, 3]), np.array([2.0 + 1e-12, 1.0, 5.0, 1.0, 3.0]))
    np.testing.assert_array_equal(got[:2], [[2.0, 3.0], [4.0, 5.0]])
    assert np.isnan(got[2:]).all()  # the failed node, an unknown id, a node not solved
