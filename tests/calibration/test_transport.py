"""Fitted models travel to worker processes (joblib, Dask) and copy through their JSON description
(``__reduce__`` -> ``to_dict`` / ``from_dict``): same predictions, nothing but the description
in the pickle stream."""

from __future__ import annotations

import copy
import pickle

import pandas as pd
import pytest

import evstat as ev

CAL = ev.datasets.simulate_gaussian(80, seed=11)
NEW = ev.datasets.simulate_gaussian(15, seed=12)


@pytest.mark.parametrize(
    "make",
    [
        lambda: ev.evlogit("y ~ x1 + x2", data=CAL),
        lambda: ev.evbinning("y ~ x1", data=CAL, bins=4),
        lambda: ev.isotonic("y ~ x1", data=CAL),
        lambda: ev.disjoint("y ~ x1 + x2", data=CAL),
    ],
    ids=["evlogit", "evbinning", "isotonic", "disjoint"],
)
def test_pickle_and_deepcopy_go_through_the_json_description(make):
    fit = make()
    expect = fit.predict(NEW, type="belief")
    for other in (pickle.loads(pickle.dumps(fit)), copy.deepcopy(fit)):
        assert type(other) is type(fit)
        pd.testing.assert_frame_equal(other.predict(NEW, type="belief"), expect)
    func, args = fit.__reduce__()
    assert func.__name__ == "from_dict" and args == (fit.to_dict(),)
