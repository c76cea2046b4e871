"""evlogit(targets="binary") against published R output of ``glm(..., family = binomial)``,
``confint()`` (profile likelihood, MASS/stats) and ``confint.default()`` (Wald), and against
statsmodels' GLM on the same data.

The reference numbers are R sessions printed in public sources, on data that can be reproduced
exactly here (the factor-covariate references at the end of the file were computed with R on
this machine; the tests themselves never need R):

* mtcars (R's ``datasets::mtcars``, Henderson and Velleman 1981), columns hp, wt, disp, am, vs,
  as written by R's ``write.csv(mtcars)`` (copy in github.com/karthik/rdrop2, mtcars.csv).

  - ``glm(am ~ hp + wt, family = binomial, data = mtcars)``: r-tutor.com, "Significance Test for
    Logistic Regression",
    https://r-tutor.com/elementary-statistics/logistic-regression/significance-test-logistic-regression
  - ``glm(vs ~ wt + disp, family = binomial, data = mtcars)``: D. Lillis, "Generalized Linear
    Models in R, Part 2: Understanding Model Fit in Logistic Regression Output", The Analysis
    Factor, http://www.theanalysisfactor.com/r-glm-model-fit/
  - ``glm(am ~ disp + hp, family = binomial, data = mtcars)``: Statology, "How to Interpret glm
    Output in R", https://www.statology.org/interpret-glm-output-in-r/

* The budworm data of Venables and Ripley (2002, pp. 190-2; the example of R's ``confint.glm``
  help page), printed in full in the R code below. R output of ``confint(budworm.lg0)`` and
  ``confint.default(budworm.lg0)`` posted by josef-pkt in statsmodels pull request #1791
  ("ENH: GLM profile confidence intervals", comment of 2020-05-25),
  https://github.com/statsmodels/statsmodels/pull/1791 ::

      ldose <- rep(0:5, 2)
      numdead <- c(1, 4, 9, 13, 18, 20, 0, 2, 6, 10, 12, 16)
      sex <- factor(rep(c("M", "F"), c(6, 6)))
      SF <- cbind(numdead, numalive = 20 - numdead)
      budworm.lg0 <- glm(SF ~ sex + ldose - 1, family = binomial)
      > confint(budworm.lg0)
      Waiting for profiling to be done...
                 2.5 %    97.5 %
      sexF  -4.4581438 -2.613610
      sexM  -3.1728745 -1.655117
      ldose  0.8228708  1.339058
      > confint.default(budworm.lg0)    # Wald confint
                 2.5 %    97.5 %
      sexF  -4.3914381 -2.554873
      sexM  -3.1279992 -1.616825
      ldose  0.8073069  1.321121

  evlogit takes one row per trial, so the 12 groups of 20 insects are expanded into 240
  Bernoulli rows; the grouped binomial log-likelihood differs from the Bernoulli one by the
  constant sum log C(20, numdead), so estimates, information and profiles are identical.

R's ``confint`` interpolates the profile with a spline, so it agrees with evstat's exact
likelihood-ratio roots to about 1e-4 relative (measured here: at most 3e-5); the tests allow
1e-3 relative. Printed summaries are compared to half a unit of their last printed digit
(plus 1e-6 relative for R's glm convergence tolerance).
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import evstat as ev

MTCARS_CSV = """car,hp,wt,disp,am,vs
Mazda RX4,110,2.62,160,1,0
Mazda RX4 Wag,110,2.875,160,1,0
Datsun 710,93,2.32,108,1,1
Hornet 4 Drive,110,3.215,258,0,1
Hornet Sportabout,175,3.44,360,0,0
Valiant,105,3.46,225,0,1
Duster 360,245,3.57,360,0,0
Merc 240D,62,3.19,146.7,0,1
Merc 230,95,3.15,140.8,0,1
Merc 280,123,3.44,167.6,0,1
Merc 280C,123,3.44,167.6,0,1
Merc 450SE,180,4.07,275.8,0,0
Merc 450SL,180,3.73,275.8,0,0
Merc 450SLC,180,3.78,275.8,0,0
Cadillac Fleetwood,205,5.25,472,0,0
Lincoln Continental,215,5.424,460,0,0
Chrysler Imperial,230,5.345,440,0,0
Fiat 128,66,2.2,78.7,1,1
Honda Civic,52,1.615,75.7,1,1
Toyota Corolla,65,1.835,71.1,1,1
Toyota Corona,97,2.465,120.1,0,1
Dodge Challenger,150,3.52,318,0,0
AMC Javelin,150,3.435,304,0,0
Camaro Z28,245,3.84,350,0,0
Pontiac Firebird,175,3.845,400,0,0
Fiat X1-9,66,1.935,79,1,1
Porsche 914-2,91,2.14,120.3,1,0
Lotus Europa,113,1.513,95.1,1,1
Ford Pantera L,264,3.17,351,1,0
Ferrari Dino,175,2.77,145,1,0
Maserati Bora,335,3.57,301,1,0
Volvo 142E,109,2.78,121,1,1
"""


@pytest.fixture(scope="module")
def mtcars() -> pd.DataFrame:
    return pd.read_csv(io.StringIO(MTCARS_CSV), index_col="car")


@pytest.fixture(scope="module")
def budworm() -> pd.DataFrame:
    ldose = np.tile(np.arange(6.0), 2)
    numdead = np.array([1, 4, 9, 13, 18, 20, 0, 2, 6, 10, 12, 16])
    male = np.repeat([1.0, 0.0], 6)
    rows = []
    for d, k, m in zip(ldose, numdead, male):
        rows += [(1, d, m, 1.0 - m)] * k + [(0, d, m, 1.0 - m)] * (20 - k)
    return pd.DataFrame(rows, columns=["dead", "ldose", "sexM", "sexF"])


def assert_printed(value: float, printed: str) -> None:
    """``value`` rounds to the number R printed: half a unit of its last digit, plus 1e-6
    relative for R's own convergence (glm stops when the relative change of the deviance is
    below 1e-8, so its estimates are not exact to 7 digits)."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    tol = 0.5 * 10.0**-decimals + 1e-6 * abs(float(printed))
    assert abs(value - float(printed)) <= tol, (value, printed)


# (formula, {term: (estimate, std. error)}, null deviance, residual deviance, AIC) as printed
R_SUMMARIES = [
    (
        "am ~ hp + wt",
        {"Intercept": ("18.8663", "7.4436"), "hp": ("0.0363", "0.0177"), "wt": ("-8.0835", "3.0687")},
        "43.230",
        "10.059",
        "16.06",
    ),
    (
        "vs ~ wt + disp",
        {"Intercept": ("1.60859", "2.43903"), "wt": ("1.62635", "1.49068"), "disp": ("-0.03443", "0.01536")},
        "43.86",
        "21.40",
        "27.4",
    ),
    (
        "am ~ disp + hp",
        {"Intercept": ("1.40342", "1.36757"), "disp": ("-0.09518", "0.04800"), "hp": ("0.12170", "0.06777")},
        None,
        None,
        None,
    ),
]


@pytest.mark.parametrize("formula, coefs, null_dev, resid_dev, aic", R_SUMMARIES)
def test_mtcars_glm_summary_matches_r(mtcars, formula, coefs, null_dev, resid_dev, aic):
    fit = ev.evlogit(formula, data=mtcars, targets="binary")
    assert list(fit.params.index) == list(coefs)
    for term, (est, se) in coefs.items():
        assert_printed(fit.params[term], est)
        assert_printed(fit.bse[term], se)
    assert fit.nobs == 32 and fit.df_resid == 29 and fit.df_null == 31
    if null_dev is not None:
        assert_printed(fit.null_deviance, null_dev)
        assert_printed(fit.deviance, resid_dev)
        assert_printed(fit.aic, aic)


@pytest.mark.parametrize("formula", [f for f, *_ in R_SUMMARIES])
def test_mtcars_matches_statsmodels_glm(mtcars, formula):
    import statsmodels.api as sm
    import statsmodels.formula.api as smf
    fit = ev.evlogit(formula, data=mtcars, targets="binary")
    ref = smf.glm(formula, data=mtcars, family=sm.families.Binomial()).fit(tol=1e-14, maxiter=200)
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-6)
    np.testing.assert_allclose(fit.bse.to_numpy(), ref.bse.to_numpy(), rtol=1e-6)
    assert fit.deviance == pytest.approx(ref.deviance, rel=1e-9)
    assert fit.null_deviance == pytest.approx(ref.null_deviance, rel=1e-9)
    assert fit.aic == pytest.approx(ref.aic, rel=1e-9)
    assert fit.loglike == pytest.approx(ref.llf, rel=1e-9)
    assert fit.bic == pytest.approx(fit.aic - 2 * 3 + np.log(32) * 3, rel=1e-14)


R_BUDWORM_PROFILE = pd.DataFrame(
    {"lower": [-4.4581438, -3.1728745, 0.8228708], "upper": [-2.613610, -1.655117, 1.339058]},
    index=["sexF", "sexM", "ldose"],
)
R_BUDWORM_WALD = pd.DataFrame(
    {"lower": [-4.3914381, -3.1279992, 0.8073069], "upper": [-2.554873, -1.616825, 1.321121]},
    index=["sexF", "sexM", "ldose"],
)


def test_budworm_profile_intervals_match_r_confint(budworm):
    fit = ev.evlogit("dead ~ sexF + sexM + ldose - 1", data=budworm, targets="binary")
    assert fit.terms == ["sexF", "sexM", "ldose"]
    ci = fit.conf_int(level=0.95, method="profile")
    np.testing.assert_allclose(ci.to_numpy(), R_BUDWORM_PROFILE.to_numpy(), rtol=1e-3)
    # R's single-parameter call prints more digits for ldose: 0.8228708 1.3390581
    assert ci.loc["ldose", "lower"] == pytest.approx(0.8228708, rel=1e-4)
    assert ci.loc["ldose", "upper"] == pytest.approx(1.3390581, rel=1e-4)


def test_budworm_wald_intervals_match_r_confint_default(budworm):
    fit = ev.evlogit("dead ~ sexF + sexM + ldose - 1", data=budworm, targets="binary")
    ci = fit.conf_int(method="wald")
    for term in R_BUDWORM_WALD.index:
        for side in ("lower", "upper"):
            printed = f"{R_BUDWORM_WALD.loc[term, side]:.7g}"
            assert_printed(ci.loc[term, side], printed)


def test_budworm_with_intercept_matches_statsmodels_grouped_glm(budworm):
    """The Bernoulli expansion gives the grouped binomial fit of statsmodels (R's budworm.lg)."""
    import statsmodels.api as sm
    fit = ev.evlogit("dead ~ sexM + ldose", data=budworm, targets="binary")
    ldose = np.tile(np.arange(6.0), 2)
    numdead = np.array([1, 4, 9, 13, 18, 20, 0, 2, 6, 10, 12, 16])
    X = sm.add_constant(np.c_[np.repeat([1.0, 0.0], 6), ldose])
    grouped = sm.GLM(np.c_[numdead, 20 - numdead], X, family=sm.families.Binomial()).fit(tol=1e-14)
    np.testing.assert_allclose(fit.params.to_numpy(), grouped.params, rtol=1e-6)
    np.testing.assert_allclose(fit.bse.to_numpy(), grouped.bse, rtol=1e-6)
    # AIC differs by the binomial coefficients: grouped AIC = Bernoulli AIC - 2 sum log C(20, k)
    from scipy.special import gammaln

    logc = gammaln(21) - gammaln(numdead + 1) - gammaln(21 - numdead)
    assert fit.aic - 2 * logc.sum() == pytest.approx(grouped.aic, rel=1e-9)


# --- factor covariates: the same budworm data with sex as a text column ------------------------
#
# Reference numbers computed here with R 4.2.2 Patched (2022-11-10 r83330), MASS 7.3-58.2
# (R < 4.4, so confint() on a glm is MASS's profile method), options(digits = 10):
#
#     ldose <- rep(0:5, 2); numdead <- c(1,4,9,13,18,20,0,2,6,10,12,16)
#     sex <- factor(rep(c("M","F"), c(6,6)))
#     SF <- cbind(numdead, numalive = 20 - numdead)
#     f1 <- glm(SF ~ sex + ldose - 1, family = binomial); coef(f1); confint(f1)
#     f2 <- glm(SF ~ sex * ldose, family = binomial); coef(f2); confint(f2)
#
# R names the columns sexF, sexM, ldose (f1) and (Intercept), sexM, ldose, sexM:ldose (f2);
# evstat (as patsy and statsmodels' formula API) names them C(sex)[F], C(sex)[M], ldose and
# Intercept, C(sex)[T.M], ldose, C(sex)[T.M]:ldose. Observed agreement of the profile intervals
# (spline interpolation in R, exact roots in evstat): at most 2.9e-5 relative (7.6e-5 absolute)
# for f1 and 8.5e-5 relative (1.7e-4 absolute) for f2; the tests allow 1e-3 relative, as above.
R_FACTOR_FITS = {
    "dead ~ C(sex) + ldose - 1": (
        ["C(sex)[F]", "C(sex)[M]", "ldose"],
        [-3.473155307, -2.372411944, 1.064213970],
        [[-4.4581437589, -2.613609771], [-3.1728745426, -1.655117468], [0.8228708199, 1.339058119]],
    ),
    "dead ~ C(sex) * ldose": (
        ["Intercept", "C(sex)[T.M]", "ldose", "C(sex)[T.M]:ldose"],
        [-2.9935417552, 0.1749867879, 0.9060364355, 0.3529129887],
        [[-4.1865781779, -2.0018601457], [-1.3710459086, 1.7207570269],
         [0.6023147946, 1.2627462085], [-0.1663096959, 0.9064626756]],
    ),
}


@pytest.fixture(scope="module")
def budworm_sex(budworm) -> pd.DataFrame:
    """The budworm rows with sex as text ("M"/"F"), as R's factor."""
    return pd.DataFrame({"dead": budworm["dead"], "ldose": budworm["ldose"],
                         "sex": np.where(budworm["sexM"] == 1.0, "M", "F")})


@pytest.mark.parametrize("formula", list(R_FACTOR_FITS))
def test_budworm_factor_sex_matches_r_glm_and_confint(budworm_sex, formula):
    terms, coef, profile = R_FACTOR_FITS[formula]
    fit = ev.evlogit(formula, data=budworm_sex, targets="binary")
    assert fit.terms == terms
    np.testing.assert_allclose(fit.params.to_numpy(), coef, rtol=1e-6, atol=1e-8)
    ci = fit.conf_int(level=0.95, method="profile")
    assert list(ci.index) == terms
    np.testing.assert_allclose(ci.to_numpy(), np.array(profile), rtol=1e-3)


def test_budworm_bare_text_column_equals_c_and_numeric_dummies(budworm, budworm_sex):
    """`sex` (text), `C(sex)` and hand-made 0/1 dummies give the same fit; only names differ."""
    bare = ev.evlogit("dead ~ sex + ldose - 1", data=budworm_sex, targets="binary")
    wrapped = ev.evlogit("dead ~ C(sex) + ldose - 1", data=budworm_sex, targets="binary")
    dummies = ev.evlogit("dead ~ sexF + sexM + ldose - 1", data=budworm, targets="binary")
    assert bare.terms == ["sex[F]", "sex[M]", "ldose"]
    np.testing.assert_allclose(bare.params.to_numpy(), dummies.params.to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(wrapped.conf_int().to_numpy(), dummies.conf_int().to_numpy(), rtol=1e-9)
