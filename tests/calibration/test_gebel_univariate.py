"""Gebel's (2009) univariate calibrators: normcal, plr, bayescal, avcal.

Worked examples, slow obviously-correct reference paths (brute-force knot search with scipy,
direct likelihood maximisation, a loop over N with scipy.stats.beta), properties, bad input.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import betainc, expit

import evstat as ev
from evstat.calibration._avcal import _candidates, av_search
from evstat.calibration._bayescal import alap_fit
from evstat.calibration._plr import plr_basis
from evstat.likelihood import platt_targets


def svm_like(n: int = 200, seed: int = 0, shift: float = 1.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({"s": rng.normal(shift * (2.0 * y - 1.0), 1.0), "y": y})


@pytest.mark.parametrize(
    "name", ["evstat.calibration._normcal", "evstat.calibration._plr", "evstat.calibration._bayescal", "evstat.calibration._avcal", "evstat.metrics.gebel"]
)
def test_docstring_examples(name, doctests):
    doctests(name)


# ------------------------------------------------------------------ normcal
def test_normcal_equation_4_1_and_clipping():
    cal = pd.DataFrame({"s": [-2.0, -0.5, 0.5, 1.0], "y": [0, 0, 1, 1]})
    fit = ev.normcal("y ~ s", cal)
    assert fit.scale == 2.0 and fit.rho == 1.05
    s = np.array([-2.0, -1.0, 0.0, 0.3, 2.0])
    np.testing.assert_allclose(fit.predict(pd.DataFrame({"s": s})).to_numpy(), (s + 2.1) / 4.2, rtol=1e-15)
    far = fit.predict(pd.DataFrame({"s": [-1e6, 1e6]})).to_numpy()
    np.testing.assert_allclose(far, [0.1 / 4.2, 4.1 / 4.2])  # clipped to +-M
    one = ev.normcal("y ~ s", cal, rho=1.0)
    assert one.predict(pd.DataFrame({"s": [-2.0, 2.0]})).tolist() == [0.0, 1.0]
    strict = ev.normcal("y ~ s", cal, beyond="raise")
    with pytest.raises(ValueError, match=r"1 of 2 scores of 's' lie beyond the calibration range \[-2, 2\].*beyond='clip'"):
        strict.predict(pd.DataFrame({"s": [0.0, 2.5]}))
    b = fit.predict(pd.DataFrame({"s": [0.5]}), type="belief").iloc[0]
    assert b.theta == b.bel == b.pl


def test_normcal_bad_input():
    cal = pd.DataFrame({"s": [-2.0, -0.5, 0.5, 1.0], "y": [0, 0, 1, 1]})
    with pytest.raises(ValueError, match="rho must be a finite number >= 1"):
        ev.normcal("y ~ s", cal, rho=0.9)
    with pytest.raises(ValueError, match=r"design column .s. is constant \(all 4 rows equal 0\)"):
        ev.normcal("y ~ s", cal.assign(s=0.0))
    with pytest.raises(ValueError, match="beyond must be 'clip'"):
        ev.normcal("y ~ s", cal, beyond="wrap")
    with pytest.raises(ValueError, match="normcal calibrates one score.*2 score columns"):
        ev.normcal("y ~ s + t", cal.assign(t=cal.s**2))


# ------------------------------------------------------------------ plr
def thesis_objective(w, s, c, knots, lam):
    """O_plr,reg written as in the thesis: a sum over the partitions M_1..M_3 (the last closed,
    outside points on the end segments), c in {-1, +1}, plus the slope-change penalty."""
    tot = 0.0
    for j in (1, 2, 3):
        lo, hi = knots[j - 1], knots[j]
        if j == 1:
            m = s < hi
        elif j == 2:
            m = (s >= lo) & (s < hi)
        else:
            m = s >= lo
        x = s[m]
        g = w[j] * (x - lo) / (hi - lo) + w[j - 1] * (x - hi) / (lo - hi)
        tot += np.sum(np.logaddexp(0.0, -c[m] * g))
    d = [(w[j] - w[j - 1]) / (knots[j] - knots[j - 1]) for j in (1, 2, 3)]
    return tot + lam * ((d[1] - d[0]) ** 2 + (d[2] - d[1]) ** 2)


def cross_entropy_objective(w, s, t, knots, lam):
    g = plr_basis(s, knots) @ w
    d = np.diff(w) / np.diff(knots)
    return np.sum(np.logaddexp(0.0, g) - t * g) + lam * np.sum(np.diff(d) ** 2)


def brute_force_plr(s, y, targets, step, lam=0.001):
    from scipy import optimize

    q = np.unique(np.quantile(s[y == 1], np.arange(1, round(1 / step)) * step))
    q = q[(q > s.min()) & (q < s.max())]
    best = (np.inf, None, None)
    for a in range(q.size):
        for b in range(a + 1, q.size):
            knots = np.array([s.min(), q[a], q[b], s.max()])
            if targets == "binary":
                f = lambda w: thesis_objective(w, s, 2.0 * y - 1.0, knots, lam)  # noqa: E731
            else:
                f = lambda w: cross_entropy_objective(w, s, platt_targets(y), knots, lam)  # noqa: E731
            r = optimize.minimize(f, np.zeros(4), method="BFGS", options={"gtol": 1e-9})
            if r.fun < best[0]:
                best = (r.fun, knots, r.x)
    return best


@pytest.mark.parametrize("targets", ["platt", "binary"])
def test_plr_against_brute_force(targets):
    cal = svm_like(120, seed=5, shift=0.6)
    s, y = cal.s.to_numpy(), cal.y.to_numpy()
    fit = ev.plr("y ~ s", cal, targets=targets, step=0.1)
    f, knots, w = brute_force_plr(s, y, targets, 0.1)
    np.testing.assert_allclose(fit.knots, knots)
    np.testing.assert_allclose(fit.weights, w, atol=2e-4)
    assert fit.objective == pytest.approx(f, rel=1e-7)
    assert fit.n_pairs == 36


@pytest.mark.slow
def test_plr_default_grid_against_brute_force():
    cal = svm_like(150, seed=6, shift=0.8)
    fit = ev.plr("y ~ s", cal)
    f, knots, w = brute_force_plr(cal.s.to_numpy(), cal.y.to_numpy(), "platt", 0.05)
    np.testing.assert_allclose(fit.knots, knots)
    assert fit.objective == pytest.approx(f, rel=1e-7)


def test_plr_knots_extrapolation_and_tidy():
    cal = svm_like(300, seed=1)
    fit = ev.plr("y ~ s", cal)
    s = cal.s.to_numpy()
    assert fit.knots[0] == s.min() and fit.knots[3] == s.max()
    q = np.quantile(s[cal.y == 1], np.arange(1, 20) / 20)
    assert np.isclose(q, fit.knots[1], rtol=1e-14).any() and np.isclose(q, fit.knots[2], rtol=1e-14).any()
    # g(theta_j) = w_j; linear with the end slopes outside the range
    g = fit.log_odds(pd.DataFrame({"s": fit.knots})).to_numpy()
    np.testing.assert_allclose(g, fit.weights, atol=1e-12)
    far = fit.log_odds(pd.DataFrame({"s": [s.max() + 1.0, s.min() - 2.0]})).to_numpy()
    np.testing.assert_allclose(far, [fit.weights[3] + fit.slopes[2], fit.weights[0] - 2.0 * fit.slopes[0]])
    t = fit.tidy()
    assert t["term"].tolist() == ["w0", "w1", "w2", "w3"]
    np.testing.assert_allclose(t["prob"], expit(fit.weights))
    p = fit.predict(pd.DataFrame({"s": [-1e6, 1e6]}))  # no overflow
    assert p.between(0, 1).all() and np.isfinite(p).all()
    assert fit.glance().loc[0, "n_pairs"] == fit.n_pairs


def test_plr_bad_input():
    cal = svm_like(100, seed=2)
    with pytest.raises(ValueError, match="targets must be 'platt'"):
        ev.plr("y ~ s", cal, targets="labels")
    with pytest.raises(ValueError, match="penalty must be a finite number >= 0"):
        ev.plr("y ~ s", cal, penalty=-1)
    with pytest.raises(ValueError, match="step must be a quantile step"):
        ev.plr("y ~ s", cal, step=0.7)
    few = cal.assign(s=np.where(cal.y == 1, 1.0, cal.s))
    with pytest.raises(ValueError, match=r"gives 1 such value\(s\) \(51 positive rows, 1 distinct scores\)"):
        ev.plr("y ~ s", few)
    sep = pd.DataFrame({"s": np.r_[np.linspace(-3, -1, 30), np.linspace(1, 3, 30)], "y": np.r_[np.zeros(30), np.ones(30)]})
    with pytest.raises(ValueError, match="no finite estimate.*separates the classes.*targets='platt'"):
        ev.plr("y ~ s", sep, targets="binary")
    ok = ev.plr("y ~ s", sep)  # smoothed targets: finite
    assert np.all(np.isfinite(ok.weights))


# ------------------------------------------------------------------ bayescal
def test_bayescal_gauss_is_bayes_rule():
    from scipy import stats

    cal = svm_like(300, seed=3)
    fit = ev.bayescal("y ~ s", cal, density="gauss")
    s = np.array([-2.0, 0.1, 1.5])
    neg, pos = cal.s[cal.y == 0], cal.s[cal.y == 1]
    fp = stats.norm.pdf(s, pos.mean(), pos.std(ddof=1)) * len(pos) / len(cal)
    fn = stats.norm.pdf(s, neg.mean(), neg.std(ddof=1)) * len(neg) / len(cal)
    np.testing.assert_allclose(fit.predict(pd.DataFrame({"s": s})).to_numpy(), fp / (fp + fn), rtol=1e-12)
    far = fit.predict(pd.DataFrame({"s": [-1e6, 1e6]}))  # log space: no 0/0
    assert np.isfinite(far).all() and far.between(0, 1).all()


def direct_alap_mle(x):
    """Maximise the asymmetric Laplace likelihood (scipy's laplace_asymmetric) numerically over
    (beta, gamma) for each candidate mode strictly inside the range."""
    from scipy import optimize, stats

    best = (-np.inf, None)
    for m in np.unique(x)[1:-1]:
        def nll(v):
            beta, gamma = np.exp(v)
            kappa, scale = np.sqrt(gamma / beta), 1.0 / np.sqrt(beta * gamma)
            return -np.sum(stats.laplace_asymmetric.logpdf(x, kappa, loc=m, scale=scale))
        r = optimize.minimize(nll, np.zeros(2), method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})
        if -r.fun > best[0]:
            best = (-r.fun, (m, *np.exp(r.x)))
    return best


def test_alap_fit_against_direct_likelihood():
    from scipy import stats

    rng = np.random.default_rng(4)
    x = np.r_[rng.exponential(0.5, 25) + 1.0, 1.0 - rng.exponential(2.0, 15)]
    mode, beta, gamma, ll = alap_fit(x)
    best_ll, (m, b, g) = direct_alap_mle(x)
    assert mode == m
    np.testing.assert_allclose([beta, gamma], [b, g], rtol=1e-4)
    assert ll == pytest.approx(best_ll, rel=1e-8)
    kappa, scale = np.sqrt(gamma / beta), 1.0 / np.sqrt(beta * gamma)
    assert ll == pytest.approx(np.sum(stats.laplace_asymmetric.logpdf(x, kappa, loc=mode, scale=scale)), rel=1e-12)


def test_bayescal_alap_priors_and_guard():
    cal = svm_like(200, seed=7)
    fit = ev.bayescal("y ~ s", cal)
    n1 = int(cal.y.sum())
    assert fit.params.loc["positive", "prior"] == pytest.approx((n1 + 1) / 202)
    for code, key in ((0, "negative"), (1, "positive")):
        x = cal.s[cal.y == code]
        assert x.min() < fit.params.loc[key, "mode"] < x.max()  # endpoints excluded (D_l, D_r > 0)
    s = np.array([-1.0, 0.0, 2.0])
    d = fit.densities(s)
    ref = fit.params.loc["positive", "prior"] * d[1] / (fit.params.loc["positive", "prior"] * d[1] + fit.params.loc["negative", "prior"] * d[0])
    np.testing.assert_allclose(fit.predict(pd.DataFrame({"s": s})).to_numpy(), ref.to_numpy(), rtol=1e-12)
    assert set(fit.tidy()["term"]) == {"prior", "mode", "beta", "gamma"}


def test_bayescal_logit_transform():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 200)
    p = expit(rng.normal(2.0 * y - 1.0, 1.2))
    p[:3] = [0.0, 1.0, 0.5]
    cal = pd.DataFrame({"p": p, "y": y})
    fit = ev.bayescal("y ~ p", cal, density="gauss", transform="logit")
    assert fit.n_moved == 2 and fit.glance().loc[0, "n_moved"] == 2
    th = fit.predict(pd.DataFrame({"p": [0.0, 0.3, 1.0]}))
    assert th.between(0, 1).all()
    with pytest.raises(ValueError, match="transform='logit' needs probabilities in \\[0, 1\\].*1 of 2 rows"):
        fit.predict(pd.DataFrame({"p": [0.5, 1.5]}))


def test_bayescal_bad_input():
    cal = svm_like(100, seed=9)
    with pytest.raises(ValueError, match="density must be 'alap'"):
        ev.bayescal("y ~ s", cal, density="normal")
    with pytest.raises(ValueError, match="transform must be 'none'"):
        ev.bayescal("y ~ s", cal, transform="log")
    flat = cal.assign(s=np.where(cal.y == 1, 2.0, cal.s))
    with pytest.raises(ValueError, match="positive class 1 has \\d+ rows with 1 distinct score"):
        ev.bayescal("y ~ s", flat, density="gauss")
    two = cal.assign(s=np.where(cal.y == 1, np.where(cal.index % 2 == 0, 1.0, 2.0), cal.s))
    with pytest.raises(ValueError, match="at least 3 distinct scores per class.*positive class 1 has 2"):
        ev.bayescal("y ~ s", two)


# ------------------------------------------------------------------ avcal
def reference_av(p, y, max_n=None):
    """Algorithm 2, looped with scipy.stats.beta: returns calibrated P(positive) per row and the
    chosen N per partition (maximising correct + Ac on the partition)."""
    from scipy import stats

    assigned = (p > 0.5).astype(int)
    out = p.copy()
    nopt = {}
    for k in (0, 1):
        m = assigned == k
        a = np.where(k == 1, p, 1 - p)[m]
        yk = y[m]
        pa, S = a.mean(), a.var(ddof=1)
        na = pa * (1 - pa) / S - 1
        pt = np.mean(yk == k)
        lo, hi = sorted([m.sum(), na])
        best = (-np.inf, None, None)
        for n in range(int(np.ceil(lo)), int(np.floor(hi)) + 1):
            q = stats.beta.ppf(stats.beta.cdf(a, pa * na, (1 - pa) * na), pt * n, (1 - pt) * n)
            pp = q if k == 1 else 1 - q
            ac = 1 - 2 * np.mean((yk - pp) ** 2 + ((1 - yk) - (1 - pp)) ** 2)
            o = np.sum((pp > 0.5) == yk) + ac
            if o > best[0]:
                best = (o, n, pp)
        nopt[k] = best[1]
        out[m] = best[2]
    return out, nopt


def test_avcal_against_reference_loop():
    cal = svm_like(160, seed=10, shift=0.8)
    fit = ev.avcal("y ~ s", cal)
    s = cal.s.to_numpy()
    p = (s + 1.05 * np.abs(s).max()) / (2.1 * np.abs(s).max())
    ref, nopt = reference_av(p, cal.y.to_numpy())
    assert fit.partitions["n_opt"].tolist() == [nopt[0], nopt[1]]
    np.testing.assert_allclose(fit.fittedvalues, ref, rtol=1e-9, atol=1e-12)
    t = fit.tidy()
    assert t["kind"].tolist() == ["beta", "beta"] and not t["gridded"].any()
    assert t["n"].sum() == len(cal)
    # moments: N_A solves Var = p(1 - p)/(N + 1)  (the erratum)
    r = fit.partitions.loc["positive"]
    a = p[p > 0.5]
    assert a.var(ddof=1) == pytest.approx(r.p_a * (1 - r.p_a) / (r.n_a + 1), rel=1e-12)


def _same(a, b):
    return (a[0] == b[0] or (np.isnan(a[0]) and np.isnan(b[0]))) and a[1] == b[1]


@pytest.mark.parametrize("case", range(24))
def test_av_search_bounded_equals_exhaustive(case):
    """The branch-and-bound search of N gives the exhaustive search's N and objective, with
    continuous, tied (few distinct values, as tree scores) and extreme (0 and 1) u, both
    partitions, candidate ranges from a few to hundreds of integers and geometric grids."""
    rng = np.random.default_rng(100 + case)
    n = int(rng.integers(17, 200))
    k = case % 2
    p_t = float(rng.uniform(0.52, 0.995))
    y = (rng.uniform(size=n) < (p_t if k == 1 else 1 - p_t)).astype(np.int64)
    kind = (case // 2) % 4
    if kind == 0:
        u = rng.uniform(size=n)
    elif kind == 1:
        u = rng.choice(rng.uniform(size=int(rng.integers(2, 9))), size=n)
    elif kind == 2:
        u = rng.beta(0.2, 0.2, size=n)
        u[: n // 10] = 0.0
        u[n // 10 : n // 5] = 1.0
    else:
        u = np.sort(rng.beta(3.0, 0.4, size=n))  # most values near 1, labels in order
        y = np.sort(y)
    lo = float(rng.integers(1, 40))
    cand = np.arange(lo, lo + rng.integers(9, 2 * n), dtype=float)
    if case % 3 == 0:
        cand, _ = _candidates(lo, float(n * 20), 50)
    fast = av_search(u, y, k, p_t, cand)
    slow = av_search(u, y, k, p_t, cand, exhaustive=True)
    assert _same(fast, slow), (fast, slow)
    assert np.isfinite(slow[1])


def test_av_search_ties_go_to_the_smallest_n():
    # every u at 0 or 1: the calibrated values are 0 and 1 for every N, so O_av is flat
    u = np.r_[np.zeros(30), np.ones(30)]
    y = np.r_[np.zeros(30, dtype=np.int64), np.ones(30, dtype=np.int64)]
    cand = np.arange(3.0, 200.0)
    assert av_search(u, y, 1, 0.5 + 1e-3, cand) == av_search(u, y, 1, 0.5 + 1e-3, cand, exhaustive=True)
    assert av_search(u, y, 1, 0.5 + 1e-3, cand)[0] == 3.0


@pytest.mark.slow
def test_avcal_bounded_search_at_large_n():
    """avcal's N (fast search) equals the exhaustive search's on a calibration set of 3,000 rows
    (the size at which the exhaustive search took about 15 s)."""
    cal = svm_like(3000, seed=14, shift=0.7)
    fit = ev.avcal("y ~ s", cal)
    s = cal.s.to_numpy()
    M = np.abs(s).max()
    p = (s + 1.05 * M) / (2.1 * M)
    y = cal.y.to_numpy()
    for k, key in enumerate(("negative", "positive")):
        r = fit.partitions.loc[key]
        m = (p > 0.5) if k == 1 else ~(p > 0.5)
        a = p[m] if k == 1 else 1 - p[m]
        u = betainc(r.p_a * r.n_a, (1 - r.p_a) * r.n_a, a)
        cand, _ = _candidates(float(m.sum()), r.n_a, fit.max_candidates)
        n_opt, obj = av_search(u, y[m], k, r.p_t, cand, exhaustive=True)
        assert (r.n_opt, r.objective) == (n_opt, obj)


def test_avcal_probability_input_and_monotone_within_partitions():
    cal = svm_like(300, seed=11).assign(p=lambda d: expit(1.3 * d.s))
    fit = ev.avcal("y ~ p", cal, prescale="none")
    grid = np.linspace(0, 1, 401)
    th = fit.predict(pd.DataFrame({"p": grid})).to_numpy()
    assert np.all((th >= 0) & (th <= 1))
    lo, hi = th[grid <= 0.5], th[grid > 0.5]
    assert np.all(np.diff(lo) >= -1e-12) and np.all(np.diff(hi) >= -1e-12)
    with pytest.raises(ValueError, match="prescale='none'\\) needs probabilities in \\[0, 1\\].*1 of 2 rows"):
        fit.predict(pd.DataFrame({"p": [0.5, -0.1]}))


def test_avcal_guards():
    # every row assigned positive: T_- empty -> identity; perfect positives -> degenerate
    cal = pd.DataFrame({"s": [0.6, 0.7, 0.8, 0.9, 0.95, 0.65], "y": [0, 1, 1, 1, 1, 0]})
    fit = ev.avcal("y ~ s", cal, prescale="none")
    assert fit.tidy()["kind"].tolist() == ["identity", "beta"]
    assert fit.predict(pd.DataFrame({"s": [0.3]})).iloc[0] == 0.3
    perfect = pd.DataFrame({"s": [0.1, 0.2, 0.3, 0.7, 0.8, 0.9], "y": [0, 0, 0, 1, 1, 1]})
    pf = ev.avcal("y ~ s", perfect, prescale="none")
    assert pf.tidy()["kind"].tolist() == ["degenerate", "degenerate"]
    assert pf.predict(pd.DataFrame({"s": [0.05, 0.99]})).tolist() == [0.0, 1.0]
    const = pd.DataFrame({"s": [0.3, 0.3, 0.3, 0.7, 0.8, 0.9, 0.6], "y": [0, 1, 0, 1, 1, 0, 1]})
    cf = ev.avcal("y ~ s", const, prescale="none")
    assert cf.tidy()["kind"].tolist()[0] == "constant"
    assert cf.predict(pd.DataFrame({"s": [0.2]})).iloc[0] == pytest.approx(1 / 3)


def test_avcal_grid_when_the_range_is_large():
    cal = svm_like(200, seed=12, shift=1.5)
    full = ev.avcal("y ~ s", cal)
    small = ev.avcal("y ~ s", cal, max_candidates=3)
    assert small.tidy()["gridded"].any() or (full.tidy()["n_opt"] == small.tidy()["n_opt"]).all()
    with pytest.raises(ValueError, match="max_candidates must be an integer >= 2"):
        ev.avcal("y ~ s", cal, max_candidates=1)
    with pytest.raises(ValueError, match="prescale must be 'normcal'"):
        ev.avcal("y ~ s", cal, prescale="scale")


# ------------------------------------------------------------------ all four
FITTERS = {
    "normcal": lambda d: ev.normcal("y ~ s", d),
    "plr": lambda d: ev.plr("y ~ s", d, step=0.1),
    "bayescal-gauss": lambda d: ev.bayescal("y ~ s", d, density="gauss"),
    "bayescal-alap": lambda d: ev.bayescal("y ~ s", d),
    "avcal": lambda d: ev.avcal("y ~ s", d),
}


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.floats(0.0, 3.0), scale=st.floats(1e-3, 1e3))
def test_probabilities_and_point_masses(seed, shift, scale):
    cal = svm_like(60, seed=seed, shift=shift).assign(s=lambda d: d.s * scale)
    new = pd.DataFrame({"s": np.r_[-1e12, np.linspace(-5, 5, 11) * scale, 1e12]})
    for name, fitter in FITTERS.items():
        fit = fitter(cal)
        b = fit.predict(new, type="belief")
        assert b.notna().all().all(), name
        assert ((b.theta >= 0) & (b.theta <= 1)).all(), name
        assert (b.bel == b.theta).all() and (b.pl == b.theta).all(), name
        m = fit.predict(new, type="mass").values
        np.testing.assert_allclose(m.sum(axis=1), 1.0)
        assert np.all(m[:, -1] == 0.0)
    th = ev.normcal("y ~ s", cal).predict(new)
    assert th.is_monotonic_increasing


@pytest.mark.parametrize("name", list(FITTERS))
def test_save_load_and_summary(name, tmp_path):
    cal = svm_like(150, seed=13)
    fit = FITTERS[name](cal)
    back = ev.load(fit.save(tmp_path / "fit.json"))
    new = pd.DataFrame({"s": [-3.0, -0.2, 0.0, 0.4, 9.0]}, index=list("edcba"))
    pd.testing.assert_series_equal(back.predict(new), fit.predict(new))
    assert list(fit.predict(new).index) == list("edcba")
    text = fit.summary().as_text()
    assert "Bel({1}) = Pl({1}) = theta" in text
    assert fit.glance().loc[0, "mean_ignorance"] == 0.0


def test_edited_file_refused(tmp_path):
    fit = ev.plr("y ~ s", svm_like(100, seed=14), step=0.1)
    path = fit.save(tmp_path / "plr.json")
    d = json.loads(path.read_text())
    d["knots"] = [3.0, 2.0, 1.0, 4.0]
    path.write_text(json.dumps(d))
    with pytest.raises(ValueError, match="knots must be strictly increasing"):
        ev.load(path)


# ------------------------------------------------------------------ AS and Ac
def test_as_and_ac_hand_computed():
    p = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [1 / 3, 1 / 3, 1 / 3]])
    y = [0, 2, 1]
    # assigned 0, 1, 0: squared distances .09+.04+.01 = .14, .04+.25+.09 = .38, 4/9 + 2/9 = 2/3
    want_as = 1 - 1.5 * (0.14 + 0.38 + 2 / 3) / 3
    assert ev.metrics.ability_to_separate(p) == pytest.approx(want_as, rel=1e-12)
    # true 0, 2, 1: .14, .04+.25+.49 = .78, 2/3
    want_ac = 1 - 1.5 * (0.14 + 0.78 + 2 / 3) / 3
    assert ev.metrics.garczarek_accuracy(y, p) == pytest.approx(want_ac, rel=1e-12)


def test_ac_is_standardised_brier_and_binary_matches_two_columns():
    from sklearn.metrics import brier_score_loss

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 50)
    p = rng.uniform(size=50)
    assert ev.metrics.garczarek_accuracy(y, p) == pytest.approx(1 - 4 * brier_score_loss(y, p), rel=1e-12)
    two = np.c_[1 - p, p]
    assert ev.metrics.garczarek_accuracy(y, two) == ev.metrics.garczarek_accuracy(y, p)
    assert ev.metrics.ability_to_separate(two) == ev.metrics.ability_to_separate(p)
    with pytest.raises(ValueError, match="each row of p must sum to 1"):
        ev.metrics.ability_to_separate([[0.5, 0.6]])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["avcal", "bayescal-alap"])
def test_report_and_plots(name, tmp_path):
    from evstat import plotting

    cal = svm_like(200, seed=15)
    fit = FITTERS[name](cal.iloc[:150])
    html = fit.report(tmp_path / "r.html", newdata=cal.iloc[150:], date="2026-01-01", grid=8).read_text(encoding="utf-8")
    assert html.count('class="evstat-figure"') == len(plotting.applicable_kinds(fit)) == 6  # with the belt
    assert "Class-conditional score densities" in html and "not drawn" not in html
