"""Code matrices (Gebel 2009, 5.2) and coupling (5.3; Wu, Lin and Weng 2004) against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from evstat.multiclass import check_code, code_matrix, couple, n_tasks

THESIS_TAB_5_5 = {  # K: (ovr, pairs, sparse, complete)
    3: (3, 3, 24, 6),
    4: (4, 6, 30, 25),
    5: (5, 10, 35, 90),
    6: (6, 15, 39, 301),
    8: (8, 28, 45, 3025),
    10: (10, 45, 50, 28501),
}


@pytest.mark.parametrize("k", sorted(THESIS_TAB_5_5))
def test_task_counts_match_thesis_table(k) -> None:
    want = dict(zip(("ovr", "pairs", "sparse", "complete"), THESIS_TAB_5_5[k]))
    for kind, b in want.items():
        assert n_tasks(k, kind) == b
    for kind in ("ovr", "pairs"):
        assert code_matrix(k, kind).shape == (k, want[kind])
    if k <= 6:  # complete codes built and counted (K = 8, 10 are large but counted above)
        assert code_matrix(k, "complete").shape == (k, want["complete"])
    if k >= 8:
        assert code_matrix(k, "sparse", seed=1).shape == (k, want["sparse"])


def test_complete_code_is_every_task_once() -> None:
    psi = code_matrix(4, "complete").to_numpy()
    cols = {tuple(c) for c in psi.T}
    twins = {tuple(-c) for c in psi.T}
    assert not cols & twins  # no column with its negation
    every = {v for v in itertools.product((-1, 0, 1), repeat=4) if 1 in v and -1 in v}
    assert cols | twins == every
    check_code(code_matrix(4, "complete"))


def test_sparse_code_valid_seeded_and_rows_far_apart() -> None:
    a = code_matrix(list("abcdefghij"), "sparse", seed=3, n_candidates=2000)
    b = code_matrix(list("abcdefghij"), "sparse", seed=3, n_candidates=2000)
    pd.testing.assert_frame_equal(a, b)
    check_code(a)  # valid
    psi = a.to_numpy()
    zeros = (psi == 0).mean()
    assert 0.35 < zeros < 0.65  # P(0) = 1/2
    # the selection keeps the largest minimum row distance among the candidates: no other
    # valid candidate drawn from the same stream beats it (check with a smaller search)
    small = code_matrix(list("abcdefghij"), "sparse", seed=3, n_candidates=500).to_numpy()  # a prefix of the same stream

    def dmin(m):
        return min(np.sum((1 - np.sign(m[i] * m[j])) / 2) for i, j in itertools.combinations(range(10), 2))

    assert dmin(psi) >= dmin(small)


def test_sparse_code_impossible_or_unlucky_says_why() -> None:
    with pytest.raises(ValueError, match="only 12 distinct columns"):
        code_matrix(3, "sparse", seed=1)
    with pytest.raises(ValueError, match="none of the 10000 sparse random 5 x 35"):
        code_matrix(5, "sparse", seed=1)
    with pytest.raises(ValueError, match="pass seed="):
        code_matrix(10, "sparse")
    with pytest.raises(ValueError, match="kind must be one of"):
        code_matrix(3, "dense")
    with pytest.raises(ValueError, match="refused beyond K = 13"):
        code_matrix(14, "complete")


def test_user_code_checked_with_clear_messages() -> None:
    ok = pd.DataFrame({"t1": [1, -1, 0], "t2": [0, 1, -1]}, index=["a", "b", "c"])
    assert check_code(ok, classes=["c", "b", "a"]).index.tolist() == ["c", "b", "a"]
    with pytest.raises(ValueError, match="column 't2' is all zero"):
        check_code(ok.assign(t2=0))
    with pytest.raises(ValueError, match="columns 't1' and 't3' are identical"):
        check_code(ok.assign(t3=ok["t1"]))
    with pytest.raises(ValueError, match=r"entry \('b', 't1'\) is 2"):
        check_code(ok.assign(t1=[1, 2, 0]))
    with pytest.raises(ValueError, match="entry .* is nan"):
        check_code(ok.assign(t1=[1.0, np.nan, -1.0]))
    with pytest.raises(ValueError, match="column 't1' has no -1"):
        check_code(ok.assign(t1=[1, 0, 0]))
    with pytest.raises(ValueError, match="rows 'a' and 'c' are identical"):
        check_code(pd.DataFrame({"t1": [1, -1, 1], "t2": [-1, 1, -1]}, index=["a", "b", "c"]))
    with pytest.raises(ValueError, match="class 'c' takes part in no task"):
        check_code(pd.DataFrame({"t1": [1, -1, 0]}, index=["a", "b", "c"]))
    with pytest.raises(ValueError, match=r"rows for \['d'\], which are not classes"):
        check_code(ok.rename(index={"c": "d"}), classes=["a", "b", "c"])
    with pytest.raises(TypeError, match="must be a pandas DataFrame"):
        check_code(ok.to_numpy())


# ---------------------------------------------------------------- coupling
def _random_r(n, b, seed):
    return np.random.default_rng(seed).uniform(0.02, 0.98, (n, b))


def _mu(p, psi):
    A = p @ (psi == 1)
    return A / (A + p @ (psi == -1))


def _softmax(t):
    e = np.exp(t - t.max())
    return e / e.sum()


@pytest.mark.parametrize("kind,k", [("ovr", 3), ("ovr", 5), ("pairs", 4), ("complete", 3), ("sparse", 8)])
def test_zadrozny_solves_its_defining_equations(kind, k) -> None:
    from scipy import optimize

    code = code_matrix(k, kind, seed=1)
    psi = code.to_numpy()
    R = _random_r(5, psi.shape[1], 11)
    w = np.random.default_rng(2).integers(5, 50, psi.shape[1]).astype(float)
    P = couple(R, code, weights=w, method="zadrozny")
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    I, J = (psi == 1).astype(float), (psi == -1).astype(float)
    interior = 0
    for r, p in zip(R, P):
        lhs = (w * r) @ I.T + (w * (1 - r)) @ J.T
        mu = _mu(p, psi)
        ratio = lhs / ((w * mu) @ I.T + (w * (1 - mu)) @ J.T)
        inside = p > 1e-6
        c = ratio[inside].max()
        # fixed point: one common ratio c on the support; a class driven to 0 has ratio <= c
        np.testing.assert_allclose(ratio[inside], c, rtol=1e-6)
        assert (ratio[~inside] <= c + 1e-6).all()
        if inside.all():  # an interior solution: solve the K equations from scratch
            interior += 1

            def eqs(t):  # lhs_k = c * rhs_k for every k, one common c
                q = _softmax(np.r_[0.0, t[:-1]])
                m = _mu(q, psi)
                return np.exp(t[-1]) * ((w * m) @ I.T + (w * (1 - m)) @ J.T) - lhs

            sol = optimize.least_squares(eqs, np.zeros(k), xtol=1e-15, ftol=1e-15, gtol=1e-15)
            assert np.abs(sol.fun).max() < 1e-8
            np.testing.assert_allclose(_softmax(np.r_[0.0, sol.x[:-1]]), p, atol=1e-6)
    assert interior >= 1 or kind == "ovr"


def test_hastie_tibshirani_minimises_weighted_kl() -> None:
    from scipy import optimize

    code = code_matrix(list("abcd"), "pairs")
    psi = code.to_numpy()
    R = _random_r(6, 6, 5)
    w = np.arange(1.0, 7.0)
    P = couple(R, code, weights=w, method="hastie-tibshirani")
    for r, p in zip(R, P):
        def kl(t):
            mu = _mu(_softmax(np.r_[0.0, t]), psi)
            return np.sum(w * (r * np.log(r / mu) + (1 - r) * np.log((1 - r) / (1 - mu))))

        sol = optimize.minimize(kl, np.zeros(3), method="Nelder-Mead",
                                options={"xatol": 1e-12, "fatol": 1e-15, "maxiter": 20000})
        np.testing.assert_allclose(_softmax(np.r_[0.0, sol.x]), p, atol=1e-5)
    # pairs: Zadrozny's iteration is Hastie-Tibshirani's
    np.testing.assert_allclose(couple(R, code, weights=w, method="zadrozny"), P, atol=1e-10)


def test_wu_lin_weng_minimises_its_quadratic() -> None:
    from scipy import optimize

    code = code_matrix(5, "pairs")
    psi = code.to_numpy()
    R = _random_r(6, 10, 8)
    P = couple(R, code, method="wu-lin-weng")
    pos, neg = np.argmax(psi == 1, axis=0), np.argmax(psi == -1, axis=0)
    for r, p in zip(R, P):
        rr = np.zeros((5, 5))
        rr[pos, neg], rr[neg, pos] = r, 1 - r

        def obj(q):
            return sum((rr[j, i] * q[i] - rr[i, j] * q[j]) ** 2 for i in range(5) for j in range(5) if i != j)

        sol = optimize.minimize(obj, np.full(5, 0.2), method="SLSQP", bounds=[(0, 1)] * 5,
                                constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1}],
                                options={"ftol": 1e-15, "maxiter": 1000})
        np.testing.assert_allclose(sol.x, p, atol=1e-6)
        assert (p >= 0).all()


@pytest.mark.filterwarnings("ignore::FutureWarning")  # SVC(probability=True): deprecated in 1.9
def test_wu_lin_weng_matches_libsvm_through_scikit_learn() -> None:
    from sklearn.datasets import load_iris
    from sklearn.svm import SVC

    X, y = load_iris(return_X_y=True)
    svc = SVC(kernel="rbf", C=1.0, probability=True, random_state=0, decision_function_shape="ovo").fit(X, y)
    dec = svc.decision_function(X)  # pairs (0,1), (0,2), (1,2)
    # libsvm's sigmoid: P(first class of the pair) = 1 / (1 + exp(A f + B))
    r = 1.0 / (1.0 + np.exp(svc.probA_ * dec + svc.probB_))
    r = np.clip(r, 1e-7, 1 - 1e-7)
    ours = couple(r, code_matrix(3, "pairs"), method="wu-lin-weng")
    # libsvm stops its iterative solver at a tolerance of 0.005 / K
    np.testing.assert_allclose(ours, svc.predict_proba(X), atol=2e-3)


def test_consistent_inputs_are_recovered_by_every_method() -> None:
    rng = np.random.default_rng(4)
    P = rng.dirichlet(np.ones(4), 7)
    pairs, ovr = code_matrix(4, "pairs"), code_matrix(4, "ovr")
    Rp = np.stack([_mu(p, pairs.to_numpy()) for p in P])
    for method in ("zadrozny", "hastie-tibshirani", "wu-lin-weng"):
        np.testing.assert_allclose(couple(Rp, pairs, method=method), P, atol=1e-7)
    np.testing.assert_allclose(couple(P, ovr, method="normalise"), P, atol=1e-12)
    np.testing.assert_allclose(couple(P, ovr, method="zadrozny"), P, atol=1e-7)


def test_coupling_bad_input() -> None:
    pairs, ovr = code_matrix(3, "pairs"), code_matrix(3, "ovr")
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        couple([[0.2, 1.2, 0.5]], pairs)
    with pytest.raises(ValueError, match="missing or infinite"):
        couple([[0.2, np.nan, 0.5]], pairs)
    with pytest.raises(ValueError, match=r"shape \(N, 3\)"):
        couple([[0.2, 0.5]], pairs)
    with pytest.raises(ValueError, match="all-pairs codes"):
        couple([[0.2, 0.3, 0.5]], ovr, method="wu-lin-weng")
    with pytest.raises(ValueError, match="one-vs-rest codes"):
        couple([[0.2, 0.3, 0.5]], pairs, method="normalise")
    with pytest.raises(ValueError, match="positive finite"):
        couple([[0.2, 0.3, 0.5]], pairs, weights=[1, 0, 1])
    with pytest.raises(ValueError, match="method must be one of"):
        couple([[0.2, 0.3, 0.5]], pairs, method="pkpd")
