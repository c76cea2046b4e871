"""K-class Brier score and log loss, top-label and classwise ECE, class reliability tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evstat.metrics as M


def dirichlet_data(n: int = 200, k: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k) * 0.7, size=n)
    y = np.array([rng.choice(k, p=row) for row in p])
    return y, p


def slow_ece(y01, p, bins):
    """Loop over bins [0, 1/B], (1/B, 2/B], ...: sum_b n_b/N |mean p - mean y|."""
    edges = np.linspace(0, 1, bins + 1)
    tot = 0.0
    for b in range(bins):
        m = (p > edges[b]) & (p <= edges[b + 1]) if b > 0 else (p >= 0) & (p <= edges[1])
        if m.any():
            tot += m.sum() / len(p) * abs(p[m].mean() - y01[m].mean())
    return tot


def test_brier_matches_sklearn_and_binary():
    from sklearn.metrics import brier_score_loss

    y, p = dirichlet_data()
    labels = np.array(["a", "b", "c"])
    assert M.brier_score(y, p) == pytest.approx(brier_score_loss(labels[y], p, labels=list(labels)), rel=1e-12)
    df = pd.DataFrame(p, columns=list(labels))
    assert M.brier_score(labels[y], df) == pytest.approx(np.mean(np.sum((p - np.eye(3)[y]) ** 2, axis=1)), rel=1e-12)
    # two columns: halved by default, the binary value; not halved on request
    y2, p2 = dirichlet_data(k=2, seed=1)
    assert M.brier_score(y2, p2) == pytest.approx(M.brier_score(y2, p2[:, 1]), rel=1e-12)
    assert M.brier_score(y2, p2, scale_by_half=False) == pytest.approx(2 * M.brier_score(y2, p2[:, 1]), rel=1e-12)
    # the binary behaviour is unchanged
    assert M.brier_score([0, 1, 1, 0], [0.0, 0.5, 1.0, 0.5]) == 0.125


def test_log_loss_matches_sklearn():
    from sklearn.metrics import log_loss as sk_log_loss

    y, p = dirichlet_data(seed=2)
    assert M.log_loss(y, p) == pytest.approx(sk_log_loss(y, p, labels=[0, 1, 2]), rel=1e-12)
    df = pd.DataFrame(p, columns=["lo", "mid", "hi"])
    names = np.array(["lo", "mid", "hi"])[y]
    assert M.log_loss(names, df) == pytest.approx(M.log_loss(y, p), rel=1e-15)
    # explicit labels for an array, in column order
    assert M.log_loss(names, p, labels=["lo", "mid", "hi"]) == M.log_loss(y, p)
    # extremes: probability 0 on the observed class is clipped to eps, or inf with eps=0
    hard = np.array([[1.0, 0.0, 0.0]])
    assert M.log_loss([1], hard) == pytest.approx(-np.log(np.finfo(float).eps))
    assert M.log_loss([1], hard, eps=0) == np.inf
    assert M.log_loss([1], [0.0]) == pytest.approx(36.0437, abs=1e-4)


def test_top_label_ece_against_loop_and_binary_ece():
    y, p = dirichlet_data(300, 4, seed=3)
    pred = p.argmax(axis=1)
    conf = p.max(axis=1)
    correct = (pred == y).astype(int)
    for bins in (5, 15):
        assert M.top_label_ece(y, p, bins=bins) == pytest.approx(slow_ece(correct, conf, bins), abs=1e-12)
        assert M.top_label_ece(y, p, bins=bins) == M.ece(correct, conf, bins=bins)


def test_classwise_ece_against_loop():
    y, p = dirichlet_data(250, 3, seed=4)
    want = np.mean([slow_ece((y == k).astype(int), p[:, k], 10) for k in range(3)])
    assert M.classwise_ece(y, p, bins=10) == pytest.approx(want, abs=1e-12)
    q = M.classwise_ece(y, p, bins=10, strategy="quantile")
    assert q == pytest.approx(np.mean([M.ece((y == k).astype(int), p[:, k], bins=10, strategy="quantile") for k in range(3)]))


def test_bootstrap_intervals_are_seeded():
    y, p = dirichlet_data(150, 3, seed=5)
    for fn in (M.top_label_ece, M.classwise_ece):
        a = fn(y, p, n_boot=200, seed=7)
        b = fn(y, p, n_boot=200, seed=7)
        assert a == b and isinstance(a, M.BootstrapEstimate)
        assert a.estimate == fn(y, p) and a.lower <= a.upper and a.n_boot == 200 and a.level == 0.95
    # classwise: a replicate is the classwise ECE on one resample of the rows
    rng = np.random.default_rng(11)
    idx = rng.integers(0, 150, size=(1, 150))[0]
    one = M.classwise_ece(y, p, n_boot=1, seed=11)
    assert one.lower == pytest.approx(M.classwise_ece(y[idx], p[idx]), abs=1e-12)


def test_class_reliability_table_views():
    y, p = dirichlet_data(200, 3, seed=6)
    df = pd.DataFrame(p, columns=["x", "y", "z"])
    names = np.array(["x", "y", "z"])[y]
    top = M.class_reliability_table(names, df, "top-label", bins=5)
    assert top["n"].sum() == 200
    ece = (top["n"] * (top["mean_prediction"] - top["observed_frequency"]).abs()).sum() / 200
    assert ece == pytest.approx(M.top_label_ece(names, df, bins=5), abs=1e-12)
    cw = M.class_reliability_table(names, df, "classwise", bins=5)
    assert list(cw["class"].unique()) == ["x", "y", "z"]
    assert (cw.groupby("class")["n"].sum() == 200).all()
    with pytest.raises(ValueError, match="view"):
        M.class_reliability_table(names, df, "per-class")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 6), n=st.integers(1, 60))
def test_ranges(seed, k, n):
    y, p = dirichlet_data(n, k, seed=seed)
    assert 0 <= M.brier_score(y, p, scale_by_half=False) <= 2
    assert M.log_loss(y, p) >= 0
    for fn in (M.top_label_ece, M.classwise_ece):
        assert 0 <= fn(y, p, bins=7) <= 1
    assert 0 <= M.ability_to_separate(p) <= 1 + 1e-12
    assert 1 - 2 * k / (k - 1) - 1e-12 <= M.garczarek_accuracy(y, p) <= 1


def test_bad_input():
    df = pd.DataFrame({"a": [0.5, 0.2], "b": [0.5, 0.8]})
    with pytest.raises(ValueError, match=r"y has 1 value\(s\) that are not among the 2 classes \['a', 'b'\].*'c'.*row 1"):
        M.brier_score(["a", "c"], df)
    with pytest.raises(ValueError, match="each row of p must sum to 1"):
        M.log_loss([0, 1], [[0.5, 0.6], [0.2, 0.8]])
    with pytest.raises(ValueError, match="y must hold class indices 0..2"):
        M.top_label_ece([0, 3], [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    with pytest.raises(ValueError, match="labels lists 3 classes but p has 2 columns"):
        M.classwise_ece(["a", "b"], df.to_numpy(), labels=["a", "b", "c"])
    with pytest.raises(ValueError, match="labels must be distinct"):
        M.log_loss(["a", "b"], df.to_numpy(), labels=["a", "a"])
