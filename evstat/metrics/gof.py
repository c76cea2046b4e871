"""Goodness-of-fit tests of probabilistic predictions: Hosmer-Lemeshow and Spiegelhalter's z.

(The module is named ``tests`` for statistical tests; the package's unit tests live in
``tests/metrics/``.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import chdtrc, ndtr

from evstat.metrics._binning import assign_bins, r_quantile_type7, r_seq_probs
from evstat.metrics._validation import check_y_p

__all__ = ["HosmerLemeshowResult", "SpiegelhalterResult", "hosmer_lemeshow", "spiegelhalter_z"]


@dataclass(frozen=True)
class HosmerLemeshowResult:
    """Result of :func:`hosmer_lemeshow`; unpacks as ``statistic, df, pvalue``.

    Attributes
    ----------
    statistic : float
        Pearson chi-square sum over groups and both classes of (observed - expected)^2 / expected.
    df : int
        Degrees of freedom, (number of non-empty groups) - 2.
    pvalue : float
        Upper tail of the chi-square distribution with ``df`` degrees of freedom.
    table : pandas.DataFrame
        One row per group (R's factor levels): lower, upper (the breaks), n, observed_0,
        observed_1, expected_0, expected_1.
    """

    statistic: float
    df: int
    pvalue: float
    table: pd.DataFrame = field(repr=False, compare=False)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.statistic, self.df, self.pvalue))


class SpiegelhalterResult(NamedTuple):
    """Result of :func:`spiegelhalter_z`: the z statistic and its two-sided p-value."""

    statistic: float
    pvalue: float


def hosmer_lemeshow(y: ArrayLike, p: ArrayLike, g: int = 10) -> HosmerLemeshowResult:
    """Hosmer-Lemeshow goodness-of-fit test, grouped exactly as R's ``ResourceSelection::hoslem.test``.

    The R code (ResourceSelection 0.3-x) is::

        qq <- unique(quantile(yhat, probs = seq(0, 1, 1/g)))
        cutyhat <- cut(yhat, breaks = qq, include.lowest = TRUE)
        observed <- xtabs(cbind(y0 = 1 - y, y1 = y) ~ cutyhat)
        expected <- xtabs(cbind(yhat0 = 1 - yhat, yhat1 = yhat) ~ cutyhat)
        chisq <- sum((observed - expected)^2 / expected)
        G <- length(unique(cutyhat)); df <- G - 2; p.value <- 1 - pchisq(chisq, df)

    reproduced step by step: ``seq(0, 1, 1/g)`` as R computes it ((0:g) * (1/g), capped at 1), the
    type-7 quantile with R's arithmetic, breaks made unique, right-closed groups with the lowest
    break included, and the Pearson sum over both classes. With distinct predictions this gives g
    groups and df = g - 2, the textbook test.

    Ties (documented choices): tied quantiles are merged (``unique``), so fewer groups are formed
    and df = (number of non-empty groups) - 2, as R does (older ResourceSelection versions stopped
    with "'breaks' are not unique"). Where merging leaves an empty group (possible with very few
    distinct values of p) R's sum is NaN (0/0); here empty groups are skipped. A cell with
    expected count 0 adds 0 when its observed count is 0 too and makes the statistic ``inf``
    otherwise. The p-value is ``scipy.stats.chi2.sf`` (R's ``1 - pchisq`` to within 1e-16).

    Parameters
    ----------
    y : array-like of 0/1 or bool
        Observed classes.
    p : array-like of float in [0, 1]
        Predicted probabilities of class 1 (fitted values).
    g : int, default 10
        Number of groups requested, at least 3.

    Returns
    -------
    HosmerLemeshowResult
        ``statistic``, ``df``, ``pvalue`` and the group ``table``.

    Raises
    ------
    ValueError
        If fewer than 3 non-empty groups can be formed (df would be <= 0).

    Examples
    --------
    >>> y = [0, 0, 1, 0, 1, 1]
    >>> p = [0.1, 0.2, 0.3, 0.5, 0.7, 0.9]
    >>> r = hosmer_lemeshow(y, p, g=3)
    >>> round(r.statistic, 6), r.df, round(r.pvalue, 4)
    (0.936275, 1, 0.3332)
    >>> r.table[["lower", "upper", "n", "observed_1", "expected_1"]].round(4)
        lower   upper  n  observed_1  expected_1
    0  0.1000  0.2667  2         0.0         0.3
    1  0.2667  0.5667  2         1.0         0.8
    2  0.5667  0.9000  2         2.0         1.6
    """
    yy, pp = check_y_p(y, p)
    if isinstance(g, (bool, np.bool_)) or not isinstance(g, (int, np.integer)) or g < 3:
        raise ValueError(f"g (number of groups) must be an integer >= 3; got {g!r}.")
    breaks = np.unique(r_quantile_type7(pp, r_seq_probs(int(g))))
    if breaks.shape[0] < 2:
        raise ValueError(
            f"all {pp.shape[0]} predicted probabilities are equal ({float(pp[0])!r}); the "
            f"Hosmer-Lemeshow test needs at least 3 groups of distinct predictions."
        )
    ids = assign_bins(pp, breaks)
    k = breaks.shape[0] - 1
    yf = yy.astype(float)
    n = np.bincount(ids, minlength=k)
    obs1 = np.bincount(ids, weights=yf, minlength=k)
    obs0 = np.bincount(ids, weights=1.0 - yf, minlength=k)
    exp1 = np.bincount(ids, weights=pp, minlength=k)
    exp0 = np.bincount(ids, weights=1.0 - pp, minlength=k)
    groups = int(np.sum(n > 0))
    if groups < 3:
        raise ValueError(
            f"only {groups} non-empty group(s) could be formed from {pp.shape[0]} rows with "
            f"{np.unique(pp).shape[0]} distinct predicted probabilities (g={g}); the "
            f"Hosmer-Lemeshow test needs at least 3 (df = groups - 2)."
        )
    obs = np.concatenate([obs0[n > 0], obs1[n > 0]])
    exp = np.concatenate([exp0[n > 0], exp1[n > 0]])
    terms = np.zeros_like(obs)
    pos = exp > 0
    terms[pos] = (obs[pos] - exp[pos]) ** 2 / exp[pos]
    terms[~pos & (obs > 0)] = np.inf
    chisq = float(np.sum(terms))
    df = groups - 2
    pval = float(chdtrc(df, chisq))  # scipy.stats.chi2.sf, bit for bit, without importing scipy.stats
    table = pd.DataFrame(
        {
            "lower": breaks[:-1],
            "upper": breaks[1:],
            "n": n.astype(np.int64),
            "observed_0": obs0,
            "observed_1": obs1,
            "expected_0": exp0,
            "expected_1": exp1,
        }
    )
    return HosmerLemeshowResult(chisq, df, pval, table)


def spiegelhalter_z(y: ArrayLike, p: ArrayLike) -> SpiegelhalterResult:
    """Spiegelhalter's (1986) z test of calibration.

    z = sum (y_i - p_i)(1 - 2 p_i) / sqrt(sum (1 - 2 p_i)^2 p_i (1 - p_i)); under the hypothesis
    that y_i ~ Bernoulli(p_i) independently, z is approximately standard normal. The p-value is
    two-sided, ``2 (1 - Phi(|z|))``.

    Parameters
    ----------
    y : array-like of 0/1 or bool
        Observed classes.
    p : array-like of float in [0, 1]
        Predicted probabilities of class 1.

    Returns
    -------
    SpiegelhalterResult
        ``statistic`` (z) and ``pvalue``.

    Raises
    ------
    ValueError
        If the denominator is 0 (every p in {0, 0.5, 1}): the statistic is undefined.

    Examples
    --------
    >>> r = spiegelhalter_z([0, 1, 1, 0], [0.2, 0.9, 0.6, 0.3])
    >>> round(r.statistic, 4), round(r.pvalue, 4)
    (-1.005, 0.3149)
    """
    yy, pp = check_y_p(y, p)
    a = 1.0 - 2.0 * pp
    var = float(np.sum(a * a * pp * (1.0 - pp)))
    if not var > 0.0:
        raise ValueError(
            "Spiegelhalter's z is undefined: its variance sum((1 - 2p)^2 p (1 - p)) is 0 because "
            "every predicted probability is 0, 0.5 or 1."
        )
    z = float(np.sum((yy - pp) * a) / np.sqrt(var))
    return SpiegelhalterResult(z, float(2.0 * ndtr(-abs(z))))  # 2 scipy.stats.norm.sf(|z|), bit for bit
