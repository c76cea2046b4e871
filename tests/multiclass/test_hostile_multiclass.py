"""Hostile inputs to the K-class scaling calibrators: the unit of the scores.

Scores times c must give coefficients divided by c and the same probabilities. Before the fix,
fit_linear_softmax's convergence test was on the gradient in the original units (which grows
with the scores): from scores of about 1e20 it warned that the fit did not converge, and from
1e100 (matrix, vector scaling) it stopped far from the optimum with wrong probabilities; and
temperature/vector scaling started at T = 1, whose logits saturate the softmax for scores of 1e5
(flat objective: L-BFGS stalled at the start, probabilities off by 0.47).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.multiclass.scaling import fit_linear_softmax


@pytest.fixture(scope="module")
def three() -> pd.DataFrame:
    g = np.random.default_rng(3)
    n = 150
    z = g.integers(0, 3, n)
    S = g.normal(0, 1, (n, 3)) + 2 * np.eye(3)[z]
    return pd.DataFrame(S, columns=["s_a", "s_b", "s_c"]).assign(y=np.array(["a", "b", "c"])[z])


@pytest.mark.parametrize("method", ["temperature", "vector_scaling", "matrix_scaling"])
@pytest.mark.parametrize("scale", [1e-100, 1e5, 1e20, 1e100, 1e140])
def test_scaling_is_equivariant_under_the_unit_of_the_scores(three, method, scale):
    cols = ["s_a", "s_b", "s_c"]
    fitter = getattr(ev, method)
    ref = fitter("y ~ s_a + s_b + s_c", three)
    big = three.copy()
    big[cols] = big[cols] * scale
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ScalingFitWarning: the fit converges
        fit = fitter("y ~ s_a + s_b + s_c", big)
    np.testing.assert_allclose(fit.predict(big.head(20), type="prob").to_numpy(),
                               ref.predict(three.head(20), type="prob").to_numpy(), atol=1e-9)
    # the score coefficients scale with 1/c, intercepts (b[...]) do not
    unit = np.array([1.0 if name.startswith(("b[", "Intercept")) else scale for name in ref.params.index])
    np.testing.assert_allclose(fit.params.to_numpy() * unit, ref.params.to_numpy(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(fit.bse.to_numpy() * unit, ref.bse.to_numpy(), rtol=1e-5)


def test_fit_linear_softmax_start_with_saturated_logits_reaches_the_optimum():
    g = np.random.default_rng(0)
    n, k = 60, 3
    z = g.integers(0, k, n)
    F = g.normal(0, 1, (n, k)) + 1.5 * np.eye(k)[z]
    Y = np.eye(k)[z]
    t1, _, c1 = fit_linear_softmax(F[:, :, None], Y, np.ones(1))
    t2, _, c2 = fit_linear_softmax(F[:, :, None], Y, np.array([1e6]))  # logits of 1e6 at the start
    assert c1 and c2
    np.testing.assert_allclose(t2, t1, rtol=1e-9)


@pytest.mark.parametrize("method", ["eknn", "temperature", "matrix_scaling", "evlogit"])
def test_categorical_response_with_an_empty_category_warns(three, method):
    """A declared class without calibration rows was dropped silently (a 3-category response
    became a 2-class model); R's multinom warns "group 'b' is empty"."""
    d = three[three.y != "b"].copy()
    d["y"] = pd.Categorical(d["y"], categories=["a", "b", "c"])
    f = "y ~ s_a + s_c" if method == "evlogit" else "y ~ s_a + s_b + s_c"
    kw = {"code": pd.DataFrame({"s_a": [1, -1], "s_c": [-1, 1]}, index=["a", "c"])} if method == "temperature" else {}
    if method == "temperature":
        f = "y ~ s_a + s_c"
    with pytest.warns(ev.formula.EmptyClassWarning, match=r"categories \['a', 'b', 'c'\], but \['b'\] has no rows .* "
                                                          r"fitted on the 2 observed classes \['a', 'c'\]"):
        fit = getattr(ev, method)(f, d, **kw)
    assert tuple(fit.classes) == ("a", "c")
    d["y"] = d["y"].cat.remove_unused_categories()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ev.formula.EmptyClassWarning)
        getattr(ev, method)(f, d, **kw)


def test_evnn_with_unstandardised_scores_says_why_it_cannot_start():
    """With scores of 1e5 every activation of evclass's start (gamma = 0.1) underflowed: the
    fit 'converged' at once to m(Omega) = 1 for every row (cost = initial cost, error 2/3)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from contract_data import contract_data as _data

    d = _data(90, 1)
    big = d.assign(s1=d.s1 * 1e5, s2=d.s2 * 1e5)
    with pytest.raises(ValueError, match=r"evnn cannot start: .* is 0 \(gamma = 0\.1.* the score columns \['s1', 's2'\] "
                                         r"span up to 8\.97e\+04\), so the cost has no gradient"):
        ev.evnn("y3 ~ s1 + s2", big, prototypes=4, seed=1, maxiter=100)
    fit = ev.evnn("y3 ~ s1 + s2", d.assign(s1=d.s1 * 100, s2=d.s2 * 100), prototypes=4, seed=1, maxiter=100)
    assert fit.cost < fit.cost_init
