"""Bayes calibration with class-conditional score densities: ``bayescal`` (Gebel 2009, 4.3).

Bayes' rule with estimated class priors pi_k and score densities f_k,

    P(positive | s) = pi_+ f_+(s) / (pi_- f_-(s) + pi_+ f_+(s)),

computed in log space as expit(log pi_+ + log f_+(s) - log pi_- - log f_-(s)), so that scores far
in the tails give 0 < theta < 1 as long as the floating-point result allows (no 0/0).

``density="gauss"`` (4.3.2): f_k normal with the class mean and the standard deviation with
divisor N_k - 1; priors N_k / N (4.3.1).

``density="alap"`` (4.3.3, Bennett 2002): f_k asymmetric Laplace,

    f(s) = beta gamma / (beta + gamma) exp(-beta (theta - s))   for s <= theta,
           beta gamma / (beta + gamma) exp(-gamma (s - theta))  for s > theta,

fitted per class by maximum likelihood: for a candidate mode theta, with D_l = N_l theta -
sum_{s <= theta} s and D_r = sum_{s > theta} s - N_r theta, the maximising scales are
beta = N / (D_l + sqrt(D_l D_r)) and gamma = N / (D_r + sqrt(D_l D_r)) (the thesis's
estimators, which are the solution of the score equations), and the profile log-likelihood is
N log N - 2 N log(sqrt(D_l) + sqrt(D_r)) - N. The mode with the highest likelihood over the
candidates (the class's observed scores) is kept; ties: the smallest score. Priors are the
smoothed frequencies (N_k + 1) / (N + 2) as the thesis says for this variant.

Guards (the reading notes): a candidate mode at the smallest (D_l = 0) or largest (D_r = 0)
score of its class makes beta or gamma infinite, a one-sided exponential whose density is 0 on
one side, and then P = 0/0 for scores beyond it where the other class's density is 0 too. Those
candidates are excluded (the mode is searched over the scores strictly inside the class's range),
so every fitted density is positive everywhere. A class needs at least 3 distinct scores for
"alap" and 2 for "gauss" (a positive standard deviation); fewer is an error naming the class.

``transform="logit"`` first maps probability scores to log-odds, s -> log(s / (1 - s)) (eq.
4.7), for classifiers that output probabilities (naive Bayes, trees); probabilities of exactly 0
or 1 are moved to [1e-12, 1 - 1e-12] first (the thesis's "clip at 0 and 1"; documented, not
silent: glance counts the rows). Scores outside [0, 1] are an error with this transform.

The belief is Bayesian (Bel = Pl = theta; see :mod:`evstat.calibration.point`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.special import expit

from evstat.calibration.point import PointCalibration
from evstat.formula import ModelFrame, model_frame
from evstat.io import schema
from evstat.io.state import saved
from evstat.results import Capabilities, not_fitted, register
from evstat.summary import Summary

__all__ = ["BayesCalibration", "alap_fit", "alap_logpdf", "bayescal"]

_DENSITIES = ("gauss", "alap")
_TRANSFORMS = ("none", "logit")
#: probabilities are moved into [LOGIT_EPS, 1 - LOGIT_EPS] before the log-odds transform
LOGIT_EPS = 1e-12
_LOG_2PI = float(np.log(2.0 * np.pi))


def alap_logpdf(s: Any, mode: float, beta: float, gamma: float) -> NDArray[np.float64]:
    """Log-density of the asymmetric Laplace distribution Lambda(theta, beta, gamma) (eq. 4.8).

    Examples
    --------
    >>> import numpy as np
    >>> np.exp(alap_logpdf([0.0, 1.0, -1.0], 0.0, 1.0, 1.0)).round(4).tolist()  # Laplace(0, 1)
    [0.5, 0.1839, 0.1839]
    """
    x = np.asarray(s, dtype=np.float64)
    head = np.log(beta) + np.log(gamma) - np.log(beta + gamma)
    return head - np.where(x <= mode, beta * (mode - x), gamma * (x - mode))


def alap_fit(s: Any) -> tuple[float, float, float, float]:
    """Maximum-likelihood asymmetric Laplace fit of a sample (Gebel 2009, 4.3.3, with the guard).

    Returns ``(mode, beta, gamma, loglik)``; the mode is searched over the sample's values
    strictly inside its range (see the module docstring).

    Examples
    --------
    Candidates -1, 0, 1: sqrt(D_l) + sqrt(D_r) = 1 + 3, sqrt(3) + sqrt(6), sqrt(6) + 2, so the
    mode is -1 with beta = 5 / (1 + 3) and gamma = 5 / (9 + 3).

    >>> mode, beta, gamma, ll = alap_fit([-2.0, -1.0, 0.0, 1.0, 5.0])
    >>> mode, beta, round(gamma, 6)
    (-1.0, 1.25, 0.416667)
    """
    x = np.sort(np.asarray(s, dtype=np.float64).ravel())
    n = x.size
    u = np.unique(x)
    if u.size < 3:
        raise ValueError(f"needs at least 3 distinct values, got {u.size}")
    cand = u[1:-1]
    cs = np.concatenate([[0.0], np.cumsum(x)])
    nl = np.searchsorted(x, cand, side="right")  # rows with s <= theta
    sum_l = cs[nl]
    dl = nl * cand - sum_l
    dr = (cs[-1] - sum_l) - (n - nl) * cand
    dl, dr = np.maximum(dl, 0.0), np.maximum(dr, 0.0)  # rounding of the sums
    root = np.sqrt(dl) + np.sqrt(dr)
    ll = n * np.log(n) - 2.0 * n * np.log(root) - n
    i = int(np.argmax(ll))
    r = np.sqrt(dl[i] * dr[i])
    return float(cand[i]), float(n / (dl[i] + r)), float(n / (dr[i] + r)), float(ll[i])


class BayesCalibration(PointCalibration):
    """A fitted Bayes calibration (returned by :func:`bayescal`).

    Attributes
    ----------
    density : {"gauss", "alap"}
    transform : {"none", "logit"}
    params : pandas.DataFrame
        One row per class (negative, positive): ``prior`` and the density's parameters
        (``mean``, ``sd`` for "gauss"; ``mode``, ``beta``, ``gamma`` for "alap").
    """

    method = "bayescal"
    capabilities = Capabilities(densities=True, single_score=True, accepts=("decision",))

    def __init__(
        self,
        mf: ModelFrame,
        density: str = "alap",
        transform: str = "none",
        *,
        params: Any = None,
        n_moved: Any = None,
    ) -> None:
        super().__init__(mf)
        self.density = density
        self.transform = transform
        if params is not None:  # a saved fit (State): nothing is estimated
            self.params = pd.DataFrame(params, index=pd.Index(["negative", "positive"], name="class"))
            self.n_moved = int(n_moved)
            return
        self.params, self.n_moved = self._estimate()

    def _estimate(self) -> tuple[pd.DataFrame, int]:
        """The class priors and density parameters from the saved calibration rows (closed
        forms and the ALAP mode search), and the number of probabilities moved off 0/1."""
        mf = self.model_frame
        density = self.density
        s = self._scores(self.training_scores(), mf.index, "the calibration data")
        n_moved = self._n_moved
        y = np.asarray(mf.y)
        n = s.size
        rows = []
        for code, name in ((0, "negative"), (1, "positive")):
            x = s[y == code]
            level = mf.classes[code]
            nk = x.size
            if density == "gauss":
                sd = float(np.std(x, ddof=1)) if nk >= 2 else 0.0
                if not sd > 0:
                    raise ValueError(
                        f"bayescal(density='gauss') needs a positive standard deviation of "
                        f"{self.score!r} in every class, but the {name} class {level!r} has "
                        f"{nk} rows with {np.unique(x).size} distinct score(s): use density='alap' "
                        "with more data, ev.evlogit, or ev.isotonic"
                    )
                rows.append({"prior": nk / n, "mean": float(np.mean(x)), "sd": sd})
            else:
                if np.unique(x).size < 3:
                    raise ValueError(
                        f"bayescal(density='alap') searches the mode of each class's scores strictly "
                        f"inside its range and needs at least 3 distinct scores per class, but the "
                        f"{name} class {level!r} has {np.unique(x).size} ({nk} rows): use "
                        "density='gauss', ev.evlogit or ev.isotonic"
                    )
                mode, beta, gamma, ll = alap_fit(x)
                rows.append({"prior": (nk + 1.0) / (n + 2.0), "mode": mode, "beta": beta, "gamma": gamma, "loglik_density": ll})
        return pd.DataFrame(rows, index=pd.Index(["negative", "positive"], name="class")), n_moved

    def _verify_loaded(self, source: str) -> None:
        """On load, the priors and density parameters are derived again from the saved
        calibration rows (closed forms; for "alap" the mode with the largest profile likelihood
        among the class's scores and its scale MLEs) and must equal the file's to 1e-12
        relative; so must ``n_moved``. Only computations of the saved rows run (no optimiser)."""
        super()._verify_loaded(source)
        params, n_moved = self._estimate()
        if set(params.columns) != set(self.params.columns):
            raise not_fitted(self, source, "params", f"the file holds {sorted(self.params.columns)}, the fit {sorted(params.columns)}")
        for col in params.columns:
            got, want = self.params[col].to_numpy(), params[col].to_numpy()
            if not np.allclose(got, want, rtol=1e-12, atol=0.0):
                raise not_fitted(self, source, f"params.{col}", f"the file says {got.tolist()}, the saved rows give {want.tolist()}")
        if n_moved != self.n_moved:
            raise not_fitted(self, source, "n_moved", f"the file says {self.n_moved}, the saved rows give {n_moved}")


    # ---------------------------------------------------------------- the map
    def _scores(self, s: NDArray, index: pd.Index, where: str) -> NDArray[np.float64]:
        self._n_moved = 0
        if self.transform == "none":
            return s
        bad = (s < 0) | (s > 1)
        if bad.any():
            labels = ", ".join(repr(v) for v in list(index[bad][:5]))
            raise ValueError(
                f"transform='logit' needs probabilities in [0, 1], but score {self.score!r} of {where} "
                f"is outside in {int(bad.sum())} of {s.size} rows (index {labels}): use transform='none' "
                "for unnormalised scores"
            )
        p = np.clip(s, LOGIT_EPS, 1.0 - LOGIT_EPS)
        self._n_moved = int(np.count_nonzero(p != s))
        return np.log(p) - np.log1p(-p)

    def _log_density(self, s: NDArray, row: pd.Series) -> NDArray[np.float64]:
        if self.density == "gauss":
            z = (s - row["mean"]) / row["sd"]
            return -0.5 * z * z - np.log(row["sd"]) - 0.5 * _LOG_2PI
        return alap_logpdf(s, row["mode"], row["beta"], row["gamma"])

    def log_odds(self, s: Any) -> NDArray[np.float64]:
        """``log(pi_+ f_+(s)) - log(pi_- f_-(s))`` for scores ``s`` (after the transform)."""
        x = np.asarray(s, dtype=np.float64)
        neg, pos = self.params.loc["negative"], self.params.loc["positive"]
        with np.errstate(over="ignore", invalid="ignore"):
            lo = (np.log(pos["prior"]) + self._log_density(x, pos)) - (np.log(neg["prior"]) + self._log_density(x, neg))
        far = ~np.isfinite(lo) & np.isfinite(x)
        if far.any():  # both log-densities overflowed to -inf (|s| near 1e154 for gauss, 1e308 for alap)
            lo[far] = self._log_odds_far(x[far], neg, pos)
        return lo

    def _log_odds_far(self, x: NDArray[np.float64], neg: pd.Series, pos: pd.Series) -> NDArray[np.float64]:
        """The log-odds of scores so far out that each class's log-density overflows, from its
        exact form as a polynomial in ``s`` whose terms cannot give inf - inf: for "gauss"
        ``s (a s + b) + c`` (a quadratic), for "alap" ``slope s + c`` on each side of the two
        modes (a linear function there). The result is finite or the correct +-inf (theta 1
        or 0), never NaN. Used only where the direct difference is not finite."""
        lp, ln = np.log(pos["prior"]), np.log(neg["prior"])
        with np.errstate(over="ignore", invalid="ignore"):
            if self.density == "gauss":
                vp, vn = float(pos["sd"]) ** 2, float(neg["sd"]) ** 2
                a = -0.5 / vp + 0.5 / vn
                b = pos["mean"] / vp - neg["mean"] / vn
                c = (lp - 0.5 * pos["mean"] ** 2 / vp - np.log(pos["sd"])) - (ln - 0.5 * neg["mean"] ** 2 / vn - np.log(neg["sd"]))
                ax = a * x
                out = x * (ax + b) if a != 0 else b * x
                return np.where(np.isfinite(out), out + c, out)

            def head(r: pd.Series) -> float:
                return float(np.log(r["beta"]) + np.log(r["gamma"]) - np.log(r["beta"] + r["gamma"]))

            # left of both modes: log f = head + beta (s - mode); right of both: head - gamma (s - mode)
            left = x <= min(pos["mode"], neg["mode"])
            slope = np.where(left, pos["beta"] - neg["beta"], neg["gamma"] - pos["gamma"])
            const = np.where(left, -pos["beta"] * pos["mode"] + neg["beta"] * neg["mode"],
                             pos["gamma"] * pos["mode"] - neg["gamma"] * neg["mode"])
            const = const + (lp + head(pos)) - (ln + head(neg))
            lin = np.where(slope == 0, 0.0, slope * x)
            return lin + const

    def _theta(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        x = self._scores(s, pd.RangeIndex(s.size), "newdata")
        return expit(self.log_odds(x))

    def _prob_array(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return self._theta(np.asarray(X, dtype=np.float64)[:, self._col])

    def densities(self, s: Any) -> pd.DataFrame:
        """The fitted class-conditional densities ``f_-(s)``, ``f_+(s)`` at scores ``s`` (on the scale
        after the transform), columns named by the classes."""
        x = np.asarray(s, dtype=np.float64)
        return pd.DataFrame(
            {
                self.classes[0]: np.exp(self._log_density(x, self.params.loc["negative"])),
                self.classes[1]: np.exp(self._log_density(x, self.params.loc["positive"])),
            }
        )

    # ---------------------------------------------------------------- verbs
    def tidy(self) -> pd.DataFrame:
        """One row per class and parameter: ``class``, ``term`` (prior, mean, sd or prior, mode,
        beta, gamma), ``estimate``."""
        keep = ["prior", "mean", "sd"] if self.density == "gauss" else ["prior", "mode", "beta", "gamma"]
        out = []
        for code, key in enumerate(("negative", "positive")):
            for term in keep:
                out.append({"class": self.classes[code], "term": term, "estimate": float(self.params.loc[key, term])})
        return pd.DataFrame(out)

    def glance(self) -> pd.DataFrame:
        """One row: method, nobs, n_pos, n_neg, density, transform, n_moved (probabilities moved
        off 0 or 1 before the log-odds), loglik (Bernoulli), brier, mean_ignorance (0)."""
        return self._glance_row(density=self.density, transform=self.transform, n_moved=self.n_moved)

    def summary(self) -> Summary:
        """Summary: formula, density, the per-class parameters and fit statistics."""
        model = {
            "gauss": "Gaussian class-conditional densities (Gebel 2009, 4.3.2), priors N_k/N",
            "alap": "asymmetric Laplace class-conditional densities (Bennett 2002; Gebel 2009, 4.3.3), "
                    "priors (N_k + 1)/(N + 2)",
        }[self.density]
        s = self._point_summary("Bayes calibration (bayescal)", f"P = pi_+ f_+ / (pi_- f_- + pi_+ f_+), {model}")
        if self.transform == "logit":
            s.add_info("Transform", f"log-odds of the score (probabilities moved off 0/1: {self.n_moved})")
        tab = self.params.drop(columns=[c for c in ["loglik_density"] if c in self.params.columns]).copy()
        tab.index = [f"{k} ({c!r})" for k, c in zip(("negative", "positive"), self.classes)]
        s.add_table("Class-conditional densities", tab)
        s.add_table("Fit on the calibration rows", self.glance()[["loglik", "brier"]], show_index=False)
        s.add_note(f"Scores enter as {self.score!r}" + (" on the log-odds scale." if self.transform == "logit" else "."))
        return s

    # ------------------------------------------------------------------ persistence
    @dataclass(frozen=True, kw_only=True)
    class State:
        """What a saved bayescal holds beyond its model frame (evstat.io.state)."""

        density: str = saved(schema.Str(choices=list(_DENSITIES)))
        transform: str = saved(schema.Str(choices=list(_TRANSFORMS)))
        n_moved: int = saved(schema.Int(min=0))
        #: parameter -> its value for the (negative, positive) class
        params: dict[str, list[float]] = saved(
            schema.Map(schema.List(schema.Float(), length=2, what="classes"), max_keys=8),
            encode=lambda frame: {c: [float(v) for v in frame[c]] for c in frame.columns},
        )

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        def columns(d: Mapping[str, Any], root: Any) -> str | None:
            want = {"gauss": {"prior", "mean", "sd"}, "alap": {"prior", "mode", "beta", "gamma", "loglik_density"}}
            have = set(d["params"])
            if have != want[d["density"]]:
                return f"params must hold {sorted(want[d['density']])} for density {d['density']!r}, got {sorted(have)}"
            positive = ["prior", "sd"] if d["density"] == "gauss" else ["prior", "beta", "gamma"]
            for key in positive:
                if any(v <= 0 for v in d["params"][key]):
                    return f"params.{key} must be positive"
            return None

        return [columns]



def bayescal(
    formula: str,
    data: pd.DataFrame,
    density: str = "alap",
    transform: str = "none",
    positive: Any = None,
    missing: str = "raise",
) -> BayesCalibration:
    """Bayes calibration of one score with Gaussian or asymmetric Laplace class densities.

    ``P(positive | s) = pi_+ f_+(s) / (pi_- f_-(s) + pi_+ f_+(s))`` with the class-conditional
    score densities fitted per class (Gebel 2009, 4.3; Bennett 2002 for the asymmetric Laplace
    density "alap"). See :mod:`evstat.calibration._bayescal` for the estimators and the guards.
    The belief is a point mass (Bel = Pl = theta).

    Parameters
    ----------
    formula : str
        One score, e.g. ``"y ~ svm"``.
    data : pandas.DataFrame
        Calibration data.
    density : {"alap", "gauss"}
        Asymmetric Laplace (default; the thesis's "Bayes-ALAP") or Gaussian.
    transform : {"none", "logit"}
        ``"logit"``: the score is a probability, calibrated on its log-odds (eq. 4.7).
    positive, missing
        As :func:`evstat.evlogit`.

    Returns
    -------
    BayesCalibration

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import evstat as ev
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 400)
    >>> cal = pd.DataFrame({"s": rng.normal(2.0 * y - 1.0, 1.0), "y": y})
    >>> fit = ev.bayescal("y ~ s", cal, density="gauss")
    >>> fit.tidy()["term"].tolist()
    ['prior', 'mean', 'sd', 'prior', 'mean', 'sd']
    >>> float(fit.predict(pd.DataFrame({"s": [0.0]})).round(1).iloc[0])
    0.5
    """
    if density not in _DENSITIES:
        raise ValueError(f"density must be 'alap' (asymmetric Laplace) or 'gauss', got {density!r}")
    if transform not in _TRANSFORMS:
        raise ValueError(f"transform must be 'none' (unnormalised scores) or 'logit' (probabilities), got {transform!r}")
    mf = model_frame(formula, data, positive=positive, missing=missing)
    return BayesCalibration(mf, density=density, transform=transform)


register(BayesCalibration, example=lambda y, d: bayescal(f"{y} ~ s1", d), fitter=bayescal)
