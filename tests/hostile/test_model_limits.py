"""Bounded memory (issue 23, item 8): models that hold the mass of every set of classes (2**K
per row) check their size limits before they allocate anything of that size."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.belief import MAX_DENSE_ENTRIES, MAX_DENSE_SIZE, check_dense_size
from evstat.classifiers import credal


def _many_classes(k: int, n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    return pd.DataFrame({"y": [f"c{v:02d}" for v in y], "s1": rng.normal(size=n) + y, "s2": rng.normal(size=n)})


def _no_fit(monkeypatch):
    """Make the first step of credal_knn's fit fail loudly: the limit must come before it."""

    def boom(*args, **kwargs):
        raise AssertionError("credal_knn started fitting before checking its class limit")

    monkeypatch.setattr(credal, "ec_dbar", boom)


def test_credal_knn_fifty_classes_refused_at_once(monkeypatch):
    """K = 50, n = 1,500 grew to 24 GB and was killed by the kernel with no message."""
    _no_fit(monkeypatch)
    with pytest.raises(ValueError, match=r"50 classes exceed the limit of 16 \(2\*\*16 = 65,536 sets\)"):
        ev.credal_knn("y ~ s1 + s2", _many_classes(50, 1500), k=5)


def test_credal_knn_seventeen_classes_refused_before_fitting(monkeypatch):
    _no_fit(monkeypatch)
    with pytest.raises(ValueError, match="17 classes exceed the limit of 16"):
        ev.credal_knn("y ~ s1 + s2", _many_classes(17, 170), k=5)


def test_credal_knn_rows_times_subsets_budget(monkeypatch):
    """16 classes are allowed, but not with so many rows that the leave-one-out masses
    (rows x 2**16) exceed MAX_DENSE_ENTRIES."""
    _no_fit(monkeypatch)
    n = MAX_DENSE_ENTRIES // 2**16 + 16
    with pytest.raises(ValueError, match="MAX_DENSE_ENTRIES"):
        ev.credal_knn("y ~ s1 + s2", _many_classes(16, n), k=5)


@pytest.mark.parametrize("fitter", ["eknn", "evnn", "gbt"])
def test_mass_classifiers_refuse_too_many_classes_before_fitting(fitter):
    d = _many_classes(MAX_DENSE_SIZE + 5, 2 * (MAX_DENSE_SIZE + 5))
    with pytest.raises(ValueError, match=f"{MAX_DENSE_SIZE + 5} classes exceed the limit of {MAX_DENSE_SIZE}"):
        getattr(ev, fitter)("y ~ s1 + s2", d)


def test_a_few_classes_still_fit():
    fit = ev.credal_knn("y ~ s1 + s2", _many_classes(4, 80), k=5)
    assert fit.n_classes == 4
    assert fit.predict(_many_classes(4, 8), type="mass").values.shape == (8, 2 ** (4 + 1))


def test_check_dense_size_boundaries():
    check_dense_size(MAX_DENSE_SIZE, "m")
    check_dense_size(16, "m", rows=MAX_DENSE_ENTRIES // 2**16)
    with pytest.raises(ValueError, match="21 classes exceed the limit of 20"):
        check_dense_size(MAX_DENSE_SIZE + 1, "m")
