"""What every column of the report means: the tooltips of the table headers (``<abbr title>``),
and the labels of the ``glance()`` facts folded into the goodness-of-fit table."""

from __future__ import annotations

from typing import Any

__all__ = ["GLANCE", "HEADERS", "INFO_OF_GLANCE", "tip"]

#: header text -> explanation (shown as the header's tooltip)
HEADERS: dict[str, str] = {
    # overview and comparison
    "model": "The name of the calibrator in this report (its method in parentheses when the name differs)",
    "method": "The evstat fitting function that made the model",
    "formula": "The model formula: response ~ score columns",
    "calibration rows": "Rows the model was fitted on, with the counts of the positive (N+) and negative (N-) class",
    "J": "Number of score columns (classifiers) the model combines",
    "positive class": "The response level coded 1: theta, Bel and Pl are probabilities of this class",
    "evaluated on": "The rows the scores of this line are computed on",
    "K": "Number of classes",
    "classes": "The classes of the model, in frame order (K-class models have no positive class)",
    "data": "The rows the measures of this line are computed on",
    # scores
    "n": "Number of rows",
    "error rate": "Share of rows misclassified (for a decision rule: errors / all rows, rejects count as not wrong)",
    "Brier": "Mean squared difference between the predicted probability and the 0/1 outcome (lower is better)",
    "log loss": "Mean of -log(predicted probability of the observed class) (lower is better)",
    "ECE (10 bins)": "Expected calibration error: row-weighted mean |mean theta_hat - observed frequency| over 10 equal-width bins",
    "ECE": "Expected calibration error: row-weighted mean |mean prediction - observed frequency| over equal-width bins",
    "Brier of BetP": "Brier score of the pignistic probability BetP = (Bel + Pl) / 2",
    "mean ignorance": "Mean of Pl - Bel = m({0,1}), the mass left on 'either class'",
    # tests and fit statistics
    "test": "The calibration test",
    "statistic": "The test statistic, or the name of the fit statistic",
    "df": "Degrees of freedom",
    "p-value": "Probability under perfect calibration of a statistic at least this extreme",
    "value": "The value of the statistic",
    # reliability
    "bin": "Bin number, from 0",
    "from": "Lower edge of the bin (excluded, except for the first bin)",
    "to": "Upper edge of the bin (included)",
    "mean theta_hat": "Mean predicted probability theta_hat of the rows in the bin",
    "observed frequency": "Share of the bin's rows whose class is the positive class",
    "Wilson 95% lower": "Lower end of the 95% Wilson score interval of the observed frequency",
    "Wilson 95% upper": "Upper end of the 95% Wilson score interval of the observed frequency",
    "mean Bel": "Mean lower probability Bel({1}) of the bin's rows",
    "mean Pl": "Mean upper probability Pl({1}) of the bin's rows",
    "covered": "Whether the observed frequency lies in [mean Bel, mean Pl]",
    # ignorance
    "rows": "Which rows the line summarises",
    "mean": "Mean over the rows",
    "min": "Smallest value over the rows",
    "q05": "5% quantile",
    "q25": "25% quantile (lower quartile)",
    "median": "Median (50% quantile)",
    "q50": "Median (50% quantile)",
    "q75": "75% quantile (upper quartile)",
    "q95": "95% quantile",
    "max": "Largest value over the rows",
    # decisions
    "strategy": "Decision strategy: pessimistic = minimise the upper expected cost, optimistic = the lower, "
                "probabilistic = the expected cost under theta_hat",
    "R_rej": "Reject cost (a misclassification costs 1): reject when every class costs more than R_rej",
    "decided": "Rows given a class",
    "rejected": "Rows rejected (no class given)",
    "reject": "Rows rejected (no class given)",
    "errors": "Rows given the wrong class",
    "accuracy": "Correct / decided (rejected rows left out)",
    "reject rate": "Rejected / all rows",
    # coefficients
    "term": "Coefficient of the linear predictor (GLM sign convention theta = expit(beta . x))",
    "Estimate": "Maximum-likelihood estimate",
    "Std. error": "Standard error from the observed information",
    "Std. Error": "Standard error from the observed information",
    "z value": "Estimate / standard error (Wald statistic)",
    "Pr(>|z|)": "Two-sided p-value of the Wald test of a zero coefficient",
    "profile lower": "Lower end of the 95% profile-likelihood (likelihood-ratio) interval",
    "profile upper": "Upper end of the 95% profile-likelihood (likelihood-ratio) interval",
    "Wald lower": "Lower end of the 95% Wald interval, estimate - 1.96 std. error",
    "Wald upper": "Upper end of the 95% Wald interval, estimate + 1.96 std. error",
    "95% lower": "Lower end of the 95% profile-likelihood interval",
    "95% upper": "Upper end of the 95% profile-likelihood interval",
    "estimate": "Estimated parameter",
    "std_error": "Standard error of the estimate",
    # model summaries (cells, blocks, per-column models, K-class models)
    "cut points": "Interior cut points between the bins of the score",
    "bins": "Number of bins of the score",
    "k": "Positive-class rows in the cell or block",
    "theta": "Estimated probability theta_hat of the positive class in the cell or block",
    "Bel": "Lower probability Bel({1}) of the positive class",
    "Pl": "Upper probability Pl({1}) of the positive class",
    "score_min": "Smallest score in the block",
    "score_max": "Largest score in the block",
    "interval": "Score interval the block covers",
    "estimates": "Coefficients of the per-column calibrator",
    "gamma": "Scale parameter gamma of the class (evidential k-NN / network)",
    "gamma_init": "Starting value of gamma before optimisation",
    "scale": "Distance scale of the class",
    "alpha": "Mass parameter alpha",
    "dbar": "Mean distance between the class's rows",
    "lambda": "Scale parameter lambda",
    "t": "Threshold parameter t",
    "task": "Binary task of the code matrix",
    "column": "Score column of the task",
    "top-label ECE": "Expected calibration error of the confidence max_k P(k | x)",
    "classwise ECE": "Mean over classes of the expected calibration error of P(k | x)",
    "top-label ECE 95% lower": "Lower end of the bootstrap 95% percentile interval of the top-label ECE",
    "top-label ECE 95% upper": "Upper end of the bootstrap 95% percentile interval of the top-label ECE",
    "classwise ECE 95% lower": "Lower end of the bootstrap 95% percentile interval of the classwise ECE",
    "classwise ECE 95% upper": "Upper end of the bootstrap 95% percentile interval of the classwise ECE",
    "mean confidence": "Mean confidence max_k P(k | x) of the bin's rows",
    "class": "The class k the line is about",
    "mean P(k | x)": "Mean probability P(k | x) of class k over the rows (of the bin)",
    "median Bel": "Median over the rows of the lower probability Bel({k}) of the class",
    "median Pl": "Median over the rows of the upper probability Pl({k}) of the class",
    "mean width": "Mean over the rows of Pl({k}) - Bel({k}), the ignorance about the class",
    "90% of widths below": "90% quantile over the rows of Pl({k}) - Bel({k})",
    "CR": "Correctness rate: share of rows whose most probable class is the observed one",
    "1 - RMSE": "One minus the root mean squared error of the class probabilities",
    "WCR": "Well-calibration ratio (Gebel 2009)",
    "Cal": "sqrt((1 - RMSE) WCR), Gebel's calibration measure",
    "AS": "Garczarek's ability to separate",
    "Ac": "Garczarek's accuracy",
    "now": "Mean ignorance on the pool before any new label",
    "fall": "Relative fall of the mean ignorance from now to the last query",
}

#: glance() column -> (label in the goodness-of-fit table, explanation)
GLANCE: dict[str, tuple[str, str]] = {
    "loglik": ("Log-likelihood", "Maximised log-likelihood"),
    "logLik": ("Log-likelihood", "Maximised log-likelihood"),
    "loglik_labels": ("Log-likelihood (0/1 labels)", "Log-likelihood of the 0/1 labels at the estimate"),
    "deviance": ("Residual deviance", "-2 x (log-likelihood - log-likelihood of the saturated model)"),
    "null_deviance": ("Null deviance", "Deviance of the intercept-only model"),
    "df_null": ("Null deviance df", "Rows - 1"),
    "df_residual": ("Residual deviance df", "Rows - parameters"),
    "df": ("Parameters (df)", "Number of estimated parameters"),
    "aic": ("AIC", "Akaike information criterion, -2 log-likelihood + 2 parameters"),
    "AIC": ("AIC", "Akaike information criterion, -2 log-likelihood + 2 parameters"),
    "bic": ("BIC", "Bayesian information criterion, -2 log-likelihood + log(n) parameters"),
    "BIC": ("BIC", "Bayesian information criterion, -2 log-likelihood + log(n) parameters"),
    "separated": ("Classes separated", "Whether a hyperplane of the scores separates the classes completely"),
    "brier": ("Brier score (calibration rows)", "In-sample Brier score of theta_hat"),
    "n_axes": ("Binned scores", "Number of score columns binned"),
    "min_cell_n": ("Smallest cell", "Rows in the smallest non-empty cell"),
    "min_block_n": ("Smallest block", "Rows in the smallest PAV block"),
    "base_method": ("Per-column calibrator", "Calibrator fitted to each score column"),
    "n_columns": ("Score columns", "Number of per-column calibrators combined"),
    "mean_conflict": ("Mean conflict", "Mean conflict mass of the combination on the calibration rows"),
    "conflict": ("Conflict handling", "What the combination does with conflicting mass"),
    "optimized": ("Parameters optimised", "Whether the parameters were optimised (else left at their starting values)"),
    "converged": ("Converged", "Whether the optimiser reported convergence"),
    "n_iter": ("Iterations", "Iterations of the optimiser"),
    "cost_init": ("Starting cost", "The optimised cost at the starting values"),
    "warning": ("Optimiser warning", "The optimiser's message, if any"),
    "loo_imprecision": ("LOO imprecision", "Leave-one-out share of rows assigned a set of classes"),
    "loo_outlier": ("LOO outliers", "Leave-one-out share of rows assigned to the outlier class"),
    "rho_method": ("rho chosen by", "How the parameter rho was chosen"),
    "outlier": ("Outlier class", "Whether an outlier class is used"),
    "init": ("Initialisation", "How the prototypes were initialised"),
    "optimizer": ("Optimiser", "The optimiser used"),
    "penalty": ("Penalty", "Penalty of the knot search"),
    "knot1": ("First knot", "Score of the first knot"),
    "knot2": ("Second knot", "Score of the second knot"),
    "n_pairs": ("Knot pairs searched", "Candidate knot pairs evaluated"),
    "objective": ("Objective", "Value of the optimised objective"),
    "density": ("Density family", "Family of the class-conditional score densities"),
    "transform": ("Score transform", "Transform applied to the score before fitting the densities"),
    "n_moved": ("Scores moved", "Scores moved inside the densities' support"),
    "underlying": ("Underlying calibrator", "The calibrator the Venn-ABERS predictor wraps"),
    "n_blocks": ("PAV blocks", "Blocks of the pool-adjacent-violators fit"),
    "n_cells": ("Cells", "Cells of the joint binning"),
    "n_empty": ("Empty cells", "Cells without calibration rows"),
    "targets": ("Targets", "The fitted targets (Platt's or the 0/1 labels)"),
    "k": ("K", "Number of neighbours"),
    "alpha": ("alpha", "Mass parameter alpha"),
    "lam": ("lambda", "Scale parameter lambda"),
    "mu": ("mu", "Regularisation parameter mu"),
    "rho": ("rho", "Parameter rho"),
    "cost": ("Cost", "The optimised cost"),
    "loo_error": ("LOO error rate", "Leave-one-out error rate"),
    "train_error": ("Training error rate", "Error rate on the training rows"),
    "prototypes": ("Prototypes", "Number of prototypes"),
    "radius": ("Radius", "Radius of the balls"),
    "mean_ball": ("Mean ball size", "Mean number of training rows in a ball"),
    "n_tasks": ("Tasks", "Binary tasks of the code matrix"),
    "combination": ("Combination", "Rule combining the per-column beliefs"),
    "prob": ("Probability", "How the point probability is formed"),
    "va_method": ("Variant", "Venn-ABERS variant"),
    "scale": ("Scale", "Fitted scale"),
}

#: glance() facts printed elsewhere in the report: the model heading, the overview row, the
#: ignorance table, the calibration-data line
SHOWN_ELSEWHERE = frozenset({"method", "nobs", "n_pos", "n_neg", "n_classes", "mean_ignorance", "ignorance_rows"})

#: glance() column -> the summary header lines that already show it (any of them)
INFO_OF_GLANCE: dict[str, tuple[str, ...]] = {
    "targets": ("Targets",),
    "n_cells": ("Cells",),
    "n_empty": ("Empty cells",),
    "n_blocks": ("PAV blocks",),
    "k": ("K",),
    "alpha": ("alpha",),
    "lam": ("lambda",),
    "mu": ("mu",),
    "rho": ("rho",),
    "cost": ("LOO cost", "Training cost"),
    "loo_error": ("LOO error rate", "LOO error rate (BetP)"),
    "train_error": ("Training error rate",),
    "prototypes": ("Prototypes",),
    "radius": ("Radius",),
    "mean_ball": ("Mean ball size",),
    "n_tasks": ("Tasks",),
    "combination": ("Combination",),
    "prob": ("Probability",),
    "va_method": ("Variant",),
    "logLik": ("Log-likelihood",),
}

#: the summary's goodness-of-fit rows (by label prefix) that show a glance() fact
GOF_OF_GLANCE: dict[str, tuple[str, ...]] = {
    "loglik": ("Log-likelihood",),
    "loglik_labels": ("Log-likelihood (0/1 labels)",),
    "deviance": ("Residual deviance",),
    "null_deviance": ("Null deviance",),
    "df_null": ("Null deviance",),
    "df_residual": ("Residual deviance",),
    "aic": ("AIC",),
    "df": ("Log-likelihood",),
}


def tip(header: Any, extra: dict[str, str] | None = None) -> str:
    """The explanation of a column header ("" when none is known)."""
    text = str(header)
    if extra and text in extra:
        return extra[text]
    if text in HEADERS:
        return HEADERS[text]
    if text.startswith("decide "):
        return f"Rows given the class {text[len('decide '):]}"
    strategy, _, measure = text.partition(" ")
    if strategy in ("pessimistic", "optimistic", "probabilistic") and measure in ("error", "accuracy", "reject"):
        what = {"error": "Error rate (errors / all rows)", "accuracy": "Accuracy (correct / decided)",
                "reject": "Reject rate (rejected / all rows)"}[measure]
        return f"{what} of the {strategy} strategy"
    if text.startswith("u_"):
        return f"Prototype membership of class {text[2:]}"
    return ""
