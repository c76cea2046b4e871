"""evmultinom's quadrature: the shortcuts of its speed work (issues 25 and 26) and the ones it
must not take.

* A side of the layer-cake integral whose length in t is below ``tol`` (``h_hat`` below the
  mode, ``1 - h_hat`` above: the contour is at most 1) is not integrated; the answer moves by
  at most that length against the integration of the side.
* Coherence on random rows, ordinary and far out (face starts, continuation, envelope) and
  beyond ``WIDE_SCALE`` (the limit): ``0 <= Bel <= theta_hat <= Pl <= 1`` and
  ``Bel(A) = 1 - Pl(not A)``.

Agreeing starts are no licence to skip the continuation: tests/multiclass/test_evmultinom_branches.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evstat as ev
from evstat.likelihood import multinomial as mm
from evstat.likelihood import mlogit_bounds, mlogit_panels


def _data(n: int, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = np.r_[np.arange(3), rng.integers(0, 3, n - 3)]
    return pd.DataFrame({"y": np.array(list("abc"))[z], "s1": 0.8 * z + rng.normal(0, 1, n),
                         "s2": -1.6 * z + rng.normal(0, 1, n)})


@pytest.fixture(scope="module")
def lik() -> mm.MultinomialLikelihood:
    return ev.evmultinom("y ~ s1 + s2", _data(60)).likelihood


def _sides(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, np.ndarray]]:
    """Spy on the quadrature's panels: (side, row ids) of every call."""
    seen: list[tuple[int, np.ndarray]] = []
    panels = mlogit_panels._panels

    def spy(lik, x, w, a, b, side, acc, profile, *args, ids=None, **kw):
        seen.append((side, np.arange(x.shape[0]) if ids is None else np.asarray(ids).copy()))
        return panels(lik, x, w, a, b, side, acc, profile, *args, ids=ids, **kw)

    monkeypatch.setattr(mlogit_bounds, "_panels", spy)
    return seen


def test_a_side_shorter_than_tol_is_not_integrated(lik, monkeypatch):
    # theta_hat of class a 2.2e-18 (r sd 7.8: face starts, far from WIDE_SCALE)
    x = np.array([[1.0, 12.0, -25.0], [1.0, 0.3, -0.2]])
    w = np.array([1.0, 0.0, 0.0])
    h = mm.scaled_probs(lik.B_hat, x) @ w
    assert h[0] < 1e-12 and 1e-3 < h[1] < 1 - 1e-3
    assert not mm.wide_rows(lik, x).any()
    seen = _sides(monkeypatch)
    h1, bel, pl = mm.predictive_bounds(lik, x, w)
    # w = e_a is integrated as 1 - w (the lexicographically smaller), whose side above the mode
    # has length h_hat(a) < tol: row 0 is integrated on the other side only, row 1 on both
    lower = [ids for side, ids in seen if side < 0]
    upper = [ids for side, ids in seen if side > 0]
    assert 0 not in np.concatenate(upper) and 0 in np.concatenate(lower)
    assert 1 in np.concatenate(upper) and 1 in np.concatenate(lower)
    assert bel[0] == h1[0]  # the neglected side counts 0: Bel = theta_hat, within h_hat < tol of it
    # against the integral of that side (tol below h_hat: no side is skipped)
    monkeypatch.undo()
    _, bel2, pl2 = mm.predictive_bounds(lik, x, w, tol=1e-14)
    assert 0.0 <= bel2[0] <= bel[0] and bel[0] - bel2[0] <= h[0]
    np.testing.assert_allclose(pl, pl2, atol=1e-9, rtol=0)
    np.testing.assert_allclose(bel[1], bel2[1], atol=1e-9, rtol=0)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    s=st.lists(st.floats(-1.0, 1.0), min_size=2, max_size=2),
    scale=st.sampled_from([1.0, 3.0, 30.0, 1e12]),
    members=st.sets(st.integers(0, 2), min_size=1, max_size=2),
)
def test_coherent_on_random_rows_near_and_far(lik, s, scale, members):
    x = np.array([[1.0, scale * s[0], scale * s[1]]])
    w = np.array([1.0 if k in members else 0.0 for k in range(3)])
    h, bel, pl = mm.predictive_bounds(lik, x, w)
    assert np.all(np.isfinite([h, bel, pl]))
    assert 0.0 <= bel[0] <= h[0] <= pl[0] <= 1.0
    hc, belc, plc = mm.predictive_bounds(lik, x, 1.0 - w)  # the complement
    assert abs(h[0] + hc[0] - 1.0) <= 1e-12
    assert abs(bel[0] - (1.0 - plc[0])) <= 1e-12 and abs(pl[0] - (1.0 - belc[0])) <= 1e-12


def _envelope_reference(ids, uu, logpl, side, seen):
    """The envelope row by row (the implementation before it was vectorised)."""
    out = np.array(logpl, dtype=float)
    for r, i in enumerate(ids):
        us, ls = seen.setdefault(int(i), ([], []))
        us.append(uu[r].copy())
        ls.append(np.where(np.isnan(out[r]), -np.inf, out[r]))
        ua, la = np.concatenate(us), np.concatenate(ls)
        key = -side * ua
        order = np.argsort(key, kind="stable")
        run = np.maximum.accumulate(la[order])
        pos = np.searchsorted(key[order], -side * uu[r], side="right") - 1
        out[r] = np.where(run[pos] > out[r] + mm.NODE_TOL, run[pos], out[r])
    return out


@pytest.mark.parametrize("side", [-1, 1])
def test_vectorised_envelope_equals_the_row_by_row_one(side):
    rng = np.random.default_rng(side + 5)
    rows = 150
    fast, ref = mlogit_panels._Seen(rows), {}
    for _ in range(6):  # batches as the quadrature makes them: bisected panels repeat their row
        ids = np.sort(rng.choice(rows, size=90))
        a = rng.uniform(-20, 20, ids.size)
        uu = a[:, None] + rng.uniform(0.1, 5.0, ids.size)[:, None] * np.linspace(0.0, 1.0, 17)[None, :]
        uu = uu[:, ::-1] if side < 0 else uu
        logpl = -np.abs(rng.normal(0.0, 3.0, uu.shape)) - 1e-7 * rng.integers(0, 20, uu.shape)
        logpl[rng.random(uu.shape) < 0.03] = np.nan
        got = mlogit_panels._envelope(ids, uu, logpl, side, fast)
        want = _envelope_reference(ids, uu, logpl, side, ref)
        np.testing.assert_array_equal(got, want)
        assert np.any(got > logpl)  # it raised some nodes
