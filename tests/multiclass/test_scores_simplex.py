"""Scores as users have them (issue 25, item 6): a probability matrix (``predict_proba``) or its
logs given to evmultinom and the scaling calibrators; Dirichlet calibration's default ODIR with
the strength chosen by cross-validation. Each model is checked against an independent
computation on the transformed columns written out by hand."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

import evstat as ev
from evstat.multiclass.scaling import ODIR_GRID, stratified_folds
from evstat.multiclass.simplex import SIMPLEX_TOL, ProbabilityScoresWarning, detect_simplex

COLS = ["p_a", "p_b", "p_c"]
FORMULA = "y ~ p_a + p_b + p_c"


def _probs(n: int, seed: int) -> pd.DataFrame:
    """A classifier's probabilities (rows summing to 1), informative about the class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    z = 1.5 * np.eye(3)[y] + rng.normal(0, 1, (n, 3))
    d = pd.DataFrame(special.softmax(z, axis=1), columns=COLS)
    d["y"] = np.array(["a", "b", "c"], dtype=object)[y]
    return d


def _logs(d: pd.DataFrame) -> pd.DataFrame:
    return d.assign(**{c: np.log(d[c]) for c in COLS})


def _no_warning(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ProbabilityScoresWarning)
        return fn(*args, **kwargs)


# ---------------------------------------------------------------- detection
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 6), st.integers(1, 40))
def test_detection_invariants(seed: int, k: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k) * 0.7, n)
    P = np.maximum(P, 1e-300)
    P /= P.sum(axis=1, keepdims=True)
    assert detect_simplex(P) == "probabilities"
    assert detect_simplex(P[:, rng.permutation(k)]) == "probabilities"  # column order
    assert detect_simplex(P[rng.permutation(n)]) == "probabilities"  # row order
    assert detect_simplex(np.log(P)) == "log-probabilities"
    bumped = P.copy()
    bumped[rng.integers(n), :] *= 1 + 10 * SIMPLEX_TOL * k  # one row's sum off by more than the tolerance
    assert detect_simplex(bumped) is None
    assert detect_simplex(P[:, :1]) is None  # one column is no probability vector
    assert detect_simplex(rng.normal(0, 1, (n + 1, k))) is None  # scores: some entry < 0 or a sum != 1
    neg = P.copy()
    neg[0, 0] = -1e-3
    assert detect_simplex(neg) is None


def test_detection_tolerance_and_nonfinite() -> None:
    P = np.array([[0.2, 0.3, 0.5]])
    assert detect_simplex(P + SIMPLEX_TOL / 10) == "probabilities"  # float32 round-off
    assert detect_simplex(P + SIMPLEX_TOL) is None  # sum 1 + 3e-6
    assert detect_simplex(np.array([[0.5, np.nan], [0.5, 0.5]])) is None
    assert detect_simplex(np.empty((0, 3))) is None


# ---------------------------------------------------------------- evmultinom
def test_evmultinom_takes_a_probability_matrix_as_log_ratios() -> None:
    d = _probs(120, 0)
    fit = ev.evmultinom(FORMULA, d)  # was: "not of full column rank" (the columns sum to 1)
    assert fit.scores == "probabilities"
    assert fit.terms == ["Intercept", "ln(p_b/p_a)", "ln(p_c/p_a)"]
    # independent: the log-ratios written out by hand, fitted as ordinary scores
    hand = pd.DataFrame({"r_b": np.log(d.p_b / d.p_a), "r_c": np.log(d.p_c / d.p_a), "y": d.y})
    ref = ev.evmultinom("y ~ r_b + r_c", hand, scores="raw")
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-12, atol=1e-12)
    test = _probs(30, 1)
    hand_test = pd.DataFrame({"r_b": np.log(test.p_b / test.p_a), "r_c": np.log(test.p_c / test.p_a)})
    np.testing.assert_allclose(fit.predict(test, type="belief").to_numpy(),
                               ref.predict(hand_test, type="belief").to_numpy(), rtol=0, atol=1e-12)
    text = str(fit.summary())
    assert "are probabilities" in text and "2 log-ratios ln(p_k / p_a)" in text


def test_evmultinom_probabilities_and_their_logs_give_one_fit() -> None:
    d = _probs(100, 2)
    a = ev.evmultinom(FORMULA, d)
    b = ev.evmultinom(FORMULA, _logs(d))
    assert b.scores == "log-probabilities"
    np.testing.assert_allclose(a.params.to_numpy(), b.params.to_numpy(), atol=1e-9)
    test = _probs(20, 3)
    np.testing.assert_allclose(a.predict(test).to_numpy(), b.predict(_logs(test)).to_numpy(), atol=1e-9)


def test_evmultinom_identity_is_in_the_model() -> None:
    """Coefficients [0 | I] give back the input probabilities (the design is the log-ratios)."""
    d = _probs(60, 4)
    fit = ev.evmultinom(FORMULA, d)
    B = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    G = fit._glm_design(fit._design(d)[0])
    P = special.softmax(np.einsum("nkd,d->nk", G, B.ravel()), axis=1)
    np.testing.assert_allclose(P, d[COLS].to_numpy(), atol=1e-12)


def test_evmultinom_scores_save_load_and_raw_files() -> None:
    d = _probs(80, 5)
    fit = ev.evmultinom(FORMULA, d)
    back = ev.results.from_dict(json.loads(json.dumps(fit.to_dict())))
    assert back.scores == "probabilities"
    np.testing.assert_array_equal(back.predict(d).to_numpy(), fit.predict(d).to_numpy())
    raw = ev.evmultinom("y ~ p_a + p_b", d)  # two columns: no simplex, used as given
    assert raw.scores == "raw"
    old = raw.to_dict()
    old.pop("scores")
    old.pop("checksum", None)
    assert ev.results.from_dict(old).scores == "raw"  # files written before the key load as raw


def test_evmultinom_score_errors_say_what_to_do() -> None:
    d = _probs(80, 6)
    with pytest.raises(ValueError, match=r"scores='probabilities' but the score columns \['p_a', 'p_b'\] are not"):
        ev.evmultinom("y ~ p_a + p_b", d, scores="probabilities")
    with pytest.raises(ValueError, match="scores must be one of"):
        ev.evmultinom(FORMULA, d, scores="logit")
    fit = ev.evmultinom(FORMULA, d)
    with pytest.raises(ValueError, match=r"2 of 3 rows of the new data are not .*same kind of scores"):
        fit.predict(pd.DataFrame({"p_a": [0.2, 2.0, 0.5], "p_b": [0.3, 0.0, 0.5], "p_c": [0.5, 0.0, 0.5]}).iloc[[1, 0, 1]])
    zero = d.copy()
    zero.loc[3, COLS] = [0.0, 0.4, 0.6]
    # an exact 0 is clipped by the one rule (issue 37; tests/calibration/test_score_kinds.py), and said
    assert "1 of 80 rows had exact 0 or 1 probabilities" in ev.evmultinom(FORMULA, zero).summary().as_text()
    collinear = d.assign(p_c=2 * d.p_a + 1)  # no simplex: the formula layer's collinearity error stays
    with pytest.raises(ValueError, match="collinear"):
        ev.evmultinom(FORMULA, collinear)


# ---------------------------------------------------------------- scaling calibrators
@pytest.mark.parametrize("name", ["temperature", "vector_scaling", "matrix_scaling"])
def test_scaling_warns_on_probabilities_and_uses_their_logs(name: str) -> None:
    d = _probs(150, 7)
    fitter = getattr(ev, name)
    with pytest.warns(ProbabilityScoresWarning, match=rf"{name} is defined on logits.*predict_log_proba"):
        fit = fitter(FORMULA, d)
    assert fit.scores == "probabilities"
    ref = _no_warning(fitter, FORMULA, _logs(d))  # log-probabilities are logits: no warning
    assert ref.scores == "log-probabilities"
    explicit = _no_warning(fitter, FORMULA, d, scores="probabilities")
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), atol=1e-8)
    np.testing.assert_allclose(explicit.params.to_numpy(), fit.params.to_numpy(), atol=0)
    test = _probs(20, 8)
    np.testing.assert_allclose(fit.predict(test).to_numpy(), ref.predict(_logs(test)).to_numpy(), atol=1e-8)
    assert "fitted on" in str(fit.summary()) and "are probabilities" in str(fit.summary())
    raw = _no_warning(fitter, FORMULA, _logs(d), scores="raw")  # the logs as plain scores: same fit
    np.testing.assert_allclose(raw.params.to_numpy(), ref.params.to_numpy(), atol=1e-8)


def test_temperature_on_probabilities_is_softmax_of_log_p_over_t() -> None:
    """Independent: scipy's bounded search of T in softmax(ln p / T) (the issue's T = 0.13 came
    from taking p itself as logits)."""
    from scipy import optimize

    d = _probs(200, 9)
    with pytest.warns(ProbabilityScoresWarning):
        fit = ev.temperature(FORMULA, d)
    L = np.log(d[COLS].to_numpy())
    y = pd.Categorical(d["y"]).codes

    def nll(T: float) -> float:
        Z = L / T
        return -np.sum(Z[np.arange(len(y)), y] - special.logsumexp(Z, axis=1))

    res = optimize.minimize_scalar(nll, bounds=(0.01, 100), method="bounded", options={"xatol": 1e-10})
    assert fit.temperature == pytest.approx(res.x, rel=1e-6)
    assert 0.3 < fit.temperature < 3  # a sane temperature on sane probabilities


def test_scaling_scores_save_load_and_new_data_check() -> None:
    d = _probs(100, 10)
    fit = ev.temperature(FORMULA, d, scores="probabilities")
    back = ev.results.from_dict(json.loads(json.dumps(fit.to_dict())))
    assert back.scores == "probabilities"
    np.testing.assert_array_equal(back.predict(d).to_numpy(), fit.predict(d).to_numpy())
    with pytest.raises(ValueError, match="temperature was fitted on probability vectors"):
        fit.predict(d.assign(p_a=d.p_a * 3))
    pairs = d.rename(columns={"p_a": "a_b", "p_b": "a_c", "p_c": "b_c"})
    with pytest.raises(ValueError, match="needs one score column per class"):
        ev.temperature("y ~ a_b + a_c + b_c", pairs, code="pairs", scores="probabilities")


# ---------------------------------------------------------------- Dirichlet: ODIR by default
def test_dirichlet_default_is_odir_chosen_by_cross_validation() -> None:
    d = _probs(90, 11)
    fit = ev.dirichlet(FORMULA, d)
    assert fit.penalised and fit.reg_lambda in ODIR_GRID and fit.reg_mu == fit.reg_lambda
    assert list(fit.cv_results.columns) == ["reg_lambda", "reg_mu", "log_loss"]
    assert fit.reg_lambda == ODIR_GRID[int(np.argmin(fit.cv_results["log_loss"]))]
    assert "chosen by 3-fold cross-validation" in str(fit.summary())
    chosen = ev.dirichlet(FORMULA, d, reg_lambda=fit.reg_lambda)  # then the fit on all rows
    np.testing.assert_array_equal(fit.params.to_numpy(), chosen.params.to_numpy())
    mu = ev.dirichlet(FORMULA, d, reg_mu=0.5)
    assert (mu.cv_results["reg_mu"] == 0.5).all() and mu.reg_mu == 0.5


@pytest.mark.slow
def test_dirichlet_cross_validation_by_hand() -> None:
    d = _probs(90, 11)
    fit = ev.dirichlet(FORMULA, d)
    # independent: the same folds, each strength fitted with the public fixed-lambda path and
    # scored by predict() on the held-out rows
    codes = pd.Categorical(d["y"]).codes
    fold = stratified_folds(codes, 3, 0)
    losses = []
    for lam in ODIR_GRID:
        total = 0.0
        for f in range(3):
            m = ev.dirichlet(FORMULA, d[fold != f], reg_lambda=lam)
            P = m.predict(d[fold == f]).to_numpy()
            with np.errstate(divide="ignore"):  # a weak penalty may give a held-out row probability 0
                total -= np.sum(np.log(P[np.arange(P.shape[0]), codes[fold == f]]))
        losses.append(total / len(d))
    # the selection's warm-started Newton fits against L-BFGS + Newton from the identity: the
    # same minimum to the optimisers' tolerance
    np.testing.assert_allclose(fit.cv_results["log_loss"].to_numpy(), losses, rtol=1e-5)
    assert fit.reg_lambda == ODIR_GRID[int(np.argmin(losses))]


def test_dirichlet_plain_fit_and_the_separated_case() -> None:
    """reg_lambda=0 is plain maximum likelihood (MNLogit on ln p); on a small separable set it
    runs away (the issue's coefficients near 100), while the default stays bounded."""
    import statsmodels.api as sm

    d = _probs(150, 12)
    plain = ev.dirichlet(FORMULA, d, reg_lambda=0)
    assert not plain.penalised and plain.cv_results is None
    X = sm.add_constant(np.log(d[COLS]))
    ref = sm.MNLogit(pd.Categorical(d["y"]).codes, X).fit(disp=0, method="newton", tol=1e-12, maxiter=200)
    np.testing.assert_allclose(plain.params.to_numpy().reshape(2, 4), ref.params.to_numpy().T, atol=1e-6)
    assert "Unregularised" in str(plain.summary())
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 6)
    z = 6.0 * np.eye(3)[y] + rng.normal(0, 0.3, (18, 3))
    sep = pd.DataFrame(special.softmax(z, axis=1), columns=COLS).assign(y=np.array(list("abc"))[y])
    with pytest.warns(ev.multiclass.ScalingFitWarning, match="did not converge"):
        runaway = ev.dirichlet(FORMULA, sep, reg_lambda=0)
    # ODIR leaves the diagonal of W free: the rows' log-probabilities put every row's class
    # first, so W = c I separates them and the penalised likelihood has no maximum either (it
    # was reported converged, coefficients where the optimiser's tolerance stopped it)
    with pytest.warns(ev.multiclass.ScalingFitWarning, match="diagonal of W"):
        default = ev.dirichlet(FORMULA, sep)
    assert not default.converged and not runaway.converged
    W = default.params.to_numpy().reshape(3, 4)[:, 1:]
    assert np.all(np.diag(W) > 3 * np.abs(W - np.diag(np.diag(W))).max())  # the free diagonal ran
    # one row of each class whose largest score is another class's: no longer separable along
    # the diagonal, so the penalised fit has its minimum and is quiet
    mixed = pd.concat([sep, sep.iloc[[0, 6, 12]].assign(y=["b", "c", "a"])], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ev.multiclass.ScalingFitWarning)
        quiet = ev.dirichlet(FORMULA, mixed, reg_lambda=1e-2)
    assert quiet.converged


def test_dirichlet_log_probabilities_and_cv_errors() -> None:
    d = _probs(90, 13)
    a = ev.dirichlet(FORMULA, d, reg_lambda=1e-3)
    b = ev.dirichlet(FORMULA, _logs(d), reg_lambda=1e-3)  # logs recognised (were refused: values <= 0)
    assert b.scores == "log-probabilities"
    np.testing.assert_allclose(a.params.to_numpy(), b.params.to_numpy(), atol=1e-10)
    tiny = d.iloc[:10].copy()
    tiny["y"] = ["a"] * 9 + ["b"]
    with pytest.raises(ValueError, match="at least 2 calibration rows of every class; the smallest class has 1"):
        ev.dirichlet("y ~ p_a + p_b", tiny.assign(p_b=1 - tiny.p_a))
    with pytest.raises(ValueError, match="reg_lambda must be a number >= 0 or 'cv'"):
        ev.dirichlet(FORMULA, d, reg_lambda="auto")
    with pytest.raises(ValueError, match="folds must be an integer >= 2"):
        ev.dirichlet(FORMULA, d, folds=1)
    same = ev.dirichlet(FORMULA, d, seed=5)
    again = ev.dirichlet(FORMULA, d, seed=5)
    np.testing.assert_array_equal(same.cv_results.to_numpy(), again.cv_results.to_numpy())
