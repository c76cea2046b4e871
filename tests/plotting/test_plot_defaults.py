"""``fit.plot()`` without arguments, its signature, and a DataFrame where the kind goes (issue 25).

Before: ``fit.plot()`` raised "plot kind 'reliability' is a two-class figure" for every K-class
model (and "two-class plots are not implemented" for evmultinom with two classes),
``fit.plot(test)`` raised ``TypeError: unhashable type: 'DataFrame'`` and ``help(fit.plot)``
showed ``plot(*args, **kwargs)`` for evmultinom.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat import plotting
from evstat.results import contract_examples, registered

EXAMPLES = contract_examples()
CASES = [(m, k) for m, (_, ks) in sorted(EXAMPLES.items()) for k in ks]


def _data(n: int, seed: int) -> pd.DataFrame:
    """The contract suite's data (tests/test_contract.py): two scores, two- and three-level labels."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    s1 = 1.0 / (1.0 + np.exp(-(1.2 * (z == 2) - 1.2 * (z == 0) + rng.normal(0, 1, n))))
    s2 = 1.0 / (1.0 + np.exp(-(1.5 * (z == 1) - 0.8 + rng.normal(0, 1, n))))
    return pd.DataFrame({"s1": s1, "s2": s2, "g": rng.choice(["a", "b"], n),
                         "y2": np.where(z == 2, "pos", "neg"),
                         "y3": np.array(["lo", "mid", "hi"], dtype=object)[z]})


TRAIN, NEW = _data(90, 1), _data(30, 2)
_FITS: dict = {}


def _fit(method: str, k: int):
    if (method, k) not in _FITS:
        _FITS[method, k] = EXAMPLES[method][0]("y2" if k == 2 else "y3", TRAIN)
    return _FITS[method, k]


@pytest.fixture(autouse=True)
def _close():
    import matplotlib.pyplot as plt
    yield
    plt.close("all")


@pytest.mark.parametrize("method,k", CASES)
def test_plot_without_arguments_draws_the_default(method, k):
    from matplotlib.figure import Figure
    fit = _fit(method, k)
    ax = fit.plot(ax=Figure().add_subplot())
    expected = "Reliability" if k == 2 else "Top-label reliability"
    assert ax.get_title().startswith(expected), ax.get_title()
    assert plotting.default_kind(fit) == ("reliability" if k == 2 else "class_reliability")
    assert plotting.default_kind(fit) in plotting.applicable_kinds(fit)


@pytest.mark.parametrize("method,k", [c for c in CASES if c[1] == 3] + [("evlogit", 2)])
def test_dataframe_as_first_argument_is_newdata(method, k):
    from matplotlib.figure import Figure
    fit = _fit(method, k)
    ax = fit.plot(NEW, ax=Figure().add_subplot())
    ref = fit.plot(newdata=NEW, ax=Figure().add_subplot())
    assert ax.get_title() == ref.get_title()
    assert "30 rows" in ax.get_title() or "new data" in ax.get_title()


def test_dataframe_as_kind_with_newdata_is_a_clear_error():
    fit = _fit("eknn", 3)
    with pytest.raises(TypeError, match=r"got a DataFrame as kind and newdata as well.*fit.plot\(kind, newdata=...\)"):
        fit.plot(NEW, NEW)
    with pytest.raises(TypeError, match=r"kind must be a plot kind name \(a str\).*got int"):
        fit.plot(3)
    with pytest.raises(TypeError, match="kind must be a plot kind name"):
        fit.plot(NEW.to_numpy())


def test_two_class_figures_of_a_k_class_model_still_refused():
    with pytest.raises(ValueError, match=r"'reliability' is a two-class figure, but this eknn fit has 3 classes"):
        _fit("eknn", 3).plot("reliability")


def test_two_class_evmultinom_plots_but_not_profiles():
    from matplotlib.figure import Figure
    two = _fit("evmultinom", 2)
    assert two.plot(ax=Figure().add_subplot()).get_title().startswith("Reliability (evmultinom)")
    with pytest.raises(ValueError, match="targets='binary'"):
        two.plot("profile")


@pytest.mark.parametrize("method", sorted(registered()))
def test_signature_is_explicit(method):
    cls = registered()[method]
    params = inspect.signature(cls.plot).parameters
    assert list(params)[:3] == ["self", "kind", "newdata"]
    assert params["kind"].default is None and params["newdata"].default is None
    assert params["ax"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["kind"].kind is params["newdata"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert not any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params.values())
    doc = inspect.getdoc(cls.plot) or ""
    assert "kind" in doc and "newdata" in doc
