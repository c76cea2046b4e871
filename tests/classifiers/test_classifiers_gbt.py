"""GBT-based classifier (ev.gbt): eqs. 59-65 by hand, the closed ball, vacuous rows (empty
ball: normalisation constant 0; ball holding everything: every Pl = 1), the GBT as the
conjunctive combination of one mass function per class (evstat.belief.combine), a brute-force
path, and the closed-form contour."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.belief import Frame, MassArray, MassFunction, TotalConflictError, combine
from evstat.classifiers import gbt_masses

TRAIN = pd.DataFrame({"s": [0.0, 0.5, 2.0, 3.0], "y": [0, 0, 1, 1]}, index=list("abcd"))


def test_binary_hand_example_eqs_62_to_65():
    """N(0) = N(1) = 2, radius 1.

    s = 1.0: the closed ball [0, 2] holds 0 and 2 (both at distance exactly 1) and 0.5, so
    Pl[0] = 2/2, Pl[1] = 1/2: eq. 62 m({0}) = 1 (1 - 1/2) = 1/2, eq. 63 m({1}) = 0,
    eq. 64 m({0, 1}) = 1/2, eq. 65 m(empty) = 0.
    s = 1.5: the ball [0.5, 2.5] holds 0.5 and 2: Pl = (1/2, 1/2), each of m({0}), m({1}),
    m({0, 1}), m(empty) is 1/4, so each normalised mass is 1/3 (eq. 61).
    """
    fit = ev.gbt("y ~ s", TRAIN, radius=1.0)
    new = pd.DataFrame({"s": [1.0, 1.5]}, index=["p", "q"])
    counts = fit.ball_counts(new)
    assert counts.to_numpy().tolist() == [[2, 1], [1, 1]]
    np.testing.assert_allclose(fit.class_plausibility(new).to_numpy(), [[1.0, 0.5], [0.5, 0.5]])
    ma = fit.predict(new, type="mass")
    assert ma.frame == Frame([0, 1]) and list(ma.index) == ["p", "q"]
    np.testing.assert_allclose(ma.values, [[0, 0.5, 0, 0.5], [0, 1 / 3, 1 / 3, 1 / 3]], atol=1e-15)
    b = fit.predict(new, type="belief")
    np.testing.assert_allclose(b.to_numpy(), [[0.25, 0.0, 0.5], [0.5, 1 / 3, 2 / 3]], atol=1e-15)
    np.testing.assert_allclose(fit.predict(new).to_numpy(), [0.25, 0.5], atol=1e-15)


def test_ball_is_closed():
    """A training row at distance exactly r is inside; just beyond it is outside."""
    fit = ev.gbt("y ~ s", TRAIN, radius=0.5)
    c = fit.ball_counts(pd.DataFrame({"s": [1.0, 1.0 + 1e-12, 2.5]}))
    # s = 1.0: 0.5 at distance 0.5 (inside), s = 2.5: 2 and 3 at distance 0.5 (inside)
    assert c.to_numpy().tolist() == [[1, 0], [0, 0], [0, 2]]


def test_three_class_hand_example():
    """s = 0..5 with classes a, b, c, a, b, c (N = 2 each), radius 1, x = 1.5: the ball
    [0.5, 2.5] holds s = 1 (b) and s = 2 (c): Pl = (0, 1/2, 1/2). Unnormalised
    m({b}) = m({c}) = m({b, c}) = m(empty) = 1/4; normalised 1/3 each; Bel({b}) = 1/3,
    Pl({b}) = 2/3, BetP(b) = 1/3 + 1/6 = 1/2, BetP(a) = 0."""
    train = pd.DataFrame({"s": [0.0, 1, 2, 3, 4, 5], "y": list("abcabc")})
    fit = ev.gbt("y ~ s", train, radius=1.0)
    new = pd.DataFrame({"s": [1.5]})
    v = fit.predict(new, type="mass").values[0]
    want = np.zeros(8)
    want[[2, 4, 6]] = 1 / 3  # {b} = bit 1, {c} = bit 2, {b, c}
    np.testing.assert_allclose(v, want, atol=1e-15)
    p = fit.predict(new, type="prob")
    assert list(p.columns) == ["a", "b", "c"]
    np.testing.assert_allclose(p.to_numpy()[0], [0.0, 0.5, 0.5], atol=1e-15)
    b = fit.predict(new, type="belief")
    np.testing.assert_allclose(b["bel"].to_numpy()[0], [0.0, 1 / 3, 1 / 3], atol=1e-15)
    np.testing.assert_allclose(b["pl"].to_numpy()[0], [0.0, 2 / 3, 2 / 3], atol=1e-15)


def test_empty_ball_is_vacuous_and_normalisation_constant_is_zero_only_then():
    fit = ev.gbt("y ~ s", TRAIN, radius=1.0)
    far = pd.DataFrame({"s": [10.0, -5.0]})
    assert fit.ball_counts(far).to_numpy().sum() == 0
    np.testing.assert_array_equal(fit.predict(far, type="mass").values, [[0, 0, 0, 1.0]] * 2)
    np.testing.assert_array_equal(fit.predict(far, type="belief").to_numpy(), [[0.5, 0.0, 1.0]] * 2)
    # the constant 1 - m(empty) = 1 - prod(1 - Pl_k) is 0 iff every Pl_k is 0
    pl = np.array([[0.0, 0.0, 0.0], [0.0, 1e-300, 0.0], [1.0, 0.0, 0.0]])
    out = gbt_masses(pl)
    np.testing.assert_array_equal(out[0], np.eye(8)[7])
    assert out[1, 2] == 1.0 and out[2, 1] == 1.0  # one class plausible: categorical


def test_every_pl_one_gives_the_vacuous_mass_function():
    """A ball holding every training row: Pl_k = 1 for all k, so only A = Omega has a non-zero
    product (eq. 59): vacuous."""
    fit = ev.gbt("y ~ s", TRAIN, radius=100.0)
    v = fit.predict(pd.DataFrame({"s": [1.0]}), type="mass").values
    np.testing.assert_array_equal(v, [[0, 0, 0, 1.0]])
    np.testing.assert_array_equal(gbt_masses(np.ones((1, 3)))[0], np.eye(8)[7])


def test_gbt_equals_conjunctive_combination_of_one_mass_per_class():
    """m(A) = prod_{k in A} Pl_k prod_{k not in A} (1 - Pl_k) is the conjunctive combination of
    m_k(Omega) = Pl_k, m_k(Omega minus {w_k}) = 1 - Pl_k; eq. 61 is Dempster's normalisation."""
    rng = np.random.default_rng(0)
    labels = ["u", "v", "w", "x"]
    frame = Frame(labels)
    pl = rng.uniform(size=(20, 4))
    pl[0, 1] = 0.0
    pl[1, 2] = 1.0
    got = gbt_masses(pl)
    for i in range(pl.shape[0]):
        ms = [
            MassFunction(frame, {tuple(labels): pl[i, k], tuple(lab for lab in labels if lab != labels[k]): 1 - pl[i, k]})
            for k in range(4)
        ]
        conj = combine(*ms, rule="conjunctive").values
        np.testing.assert_allclose(conj, [math.prod(pl[i, k] if a >> k & 1 else 1 - pl[i, k] for k in range(4)) for a in range(16)], atol=1e-15)
        np.testing.assert_allclose(got[i], combine(*ms, rule="dempster").values, atol=1e-14)
        unnorm = MassArray(frame, conj[None, :], unnormalized=True).normalize().values[0]
        np.testing.assert_allclose(got[i], unnorm, atol=1e-14)
    with pytest.raises(TotalConflictError):  # all Pl = 0: Dempster undefined; gbt says vacuous
        combine(*[MassFunction(frame, {tuple(lab for lab in labels if lab != labels[k]): 1.0}) for k in range(4)])


def slow_gbt(Xt, codes, Xq, M, r):
    """Brute force: count with math.dist, products over all subsets, eq. 61."""
    N = np.bincount(codes, minlength=M)
    out = []
    for x in Xq:
        cnt = [0] * M
        for j, xt in enumerate(Xt):
            if math.dist(x, xt) <= r:
                cnt[codes[j]] += 1
        p = [cnt[k] / N[k] for k in range(M)]
        raw = [math.prod(p[k] if a >> k & 1 else 1 - p[k] for k in range(M)) for a in range(1 << M)]
        z = 1 - raw[0]
        out.append([0.0] * ((1 << M) - 1) + [1.0] if z == 0 else [0.0] + [v / z for v in raw[1:]])
    return np.array(out)


@pytest.mark.parametrize("M,p,r", [(2, 2, 1.0), (3, 2, 0.8), (4, 3, 1.5)])
def test_prediction_equals_brute_force(M, p, r):
    rng = np.random.default_rng(M * 10 + p)
    n = 40
    codes = np.arange(n) % M
    X = rng.normal(size=(n, p)) + codes[:, None] * 0.7
    d = pd.DataFrame(X, columns=[f"s{j}" for j in range(p)])
    d["y"] = [f"k{c}" for c in codes]
    fit = ev.gbt("y ~ " + " + ".join(d.columns[:-1]), d, radius=r)
    Q = rng.normal(scale=2.0, size=(60, p))
    new = pd.DataFrame(Q, columns=d.columns[:-1])
    got = fit.predict(new, type="mass").values
    np.testing.assert_allclose(got, slow_gbt(X, codes, Q, M, r), atol=1e-14)
    # the contour in closed form: Pl({w_k}) = Pl_k / (1 - m(empty)), Bel({w_k}) likewise
    pl = fit.class_plausibility(new).to_numpy()
    z = 1 - np.prod(1 - pl, axis=1)
    ok = z > 0
    b = fit.predict(new, type="belief") if M > 2 else None
    if b is not None:
        np.testing.assert_allclose(b["pl"].to_numpy()[ok], pl[ok] / z[ok, None], atol=1e-14)
        others = np.stack([np.prod(np.delete(1 - pl, k, axis=1), axis=1) for k in range(M)], axis=1)
        np.testing.assert_allclose(b["bel"].to_numpy()[ok], (pl * others)[ok] / z[ok, None], atol=1e-14)
        np.testing.assert_allclose(b["pl"].to_numpy()[~ok], 1.0)


def test_subsets_in_bitmask_order():
    """gbt_masses puts class k on bit k: compare with an explicit loop over subsets."""
    pl = np.array([[0.2, 0.7, 0.4]])
    z = 1 - 0.8 * 0.3 * 0.6
    want = [0.0] + [
        math.prod(pl[0, k] if a >> k & 1 else 1 - pl[0, k] for k in range(3)) / z for a in range(1, 8)
    ]
    np.testing.assert_allclose(gbt_masses(pl)[0], want, atol=1e-15)
    assert list(itertools.accumulate(gbt_masses(pl)[0]))[-1] == pytest.approx(1.0)


def test_chunked_equals_unchunked_and_row_order_invariance(monkeypatch):
    import evstat.classifiers.neighbors as nb

    rng = np.random.default_rng(4)
    d = pd.DataFrame(rng.normal(size=(50, 2)), columns=["a", "b"])
    d["y"] = np.where(rng.uniform(size=50) < 0.4, "n", "m")
    new = pd.DataFrame(rng.normal(size=(33, 2)), columns=["a", "b"])
    fit = ev.gbt("y ~ a + b", d, radius=0.7)
    full = fit.predict(new, type="mass").values
    monkeypatch.setattr(nb, "CHUNK_ENTRIES", 120)
    np.testing.assert_array_equal(fit.predict(new, type="mass").values, full)
    perm = d.iloc[rng.permutation(50)]
    np.testing.assert_array_equal(ev.gbt("y ~ a + b", perm, radius=0.7).predict(new, type="mass").values, full)
