"""The leave-one-out optimiser of the EkNN scales gamma, shared by EkNN (crisp labels,
:func:`evstat.classifiers.fit_gamma`) and the partially supervised EkNN (uncertain labels).

Both minimise a leave-one-out cost over ``log(gamma)`` (one scale per class). The cost has a flat
plateau at very large gamma, where every neighbour's mass is discounted to the vacuous one; a
plain L-BFGS-B run can jump onto it in its first line search (scipy's first step has unit length
along the gradient) and stop there after two or three iterations. So the descent runs in stages
of bounded length, from several starts, with more starts when the optimum is vacuous or on the
search box (:func:`minimise_log_gamma`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from evstat.io import schema
from evstat.io.state import saved
from evstat.results import not_fitted

__all__ = [
    "GammaFit",
    "LOG_GAMMA_RANGE",
    "LOG_STEP",
    "SAVED_COST_RTOL",
    "SAVED_GRADIENT_TOL",
    "STOP_GRADIENT",
    "central_gradient",
    "free_gradient",
    "VACUOUS_TOL",
    "evclass_initial_gamma",
    "GammaFitState",
    "k_rows",
    "minimise_log_gamma",
    "verify_gamma_fit",
]

#: the optimiser keeps log(gamma) within this distance of log(initial gamma) (a factor 1e6)
LOG_GAMMA_RANGE = float(np.log(1e6))
OPTIONS = {"maxiter": 1000, "ftol": 1e-13, "gtol": 1e-10, "maxcor": 10}
#: one L-BFGS-B stage may move each log(gamma_q) by at most this much (a factor 10)
LOG_STEP = float(np.log(10.0))
#: a fit whose leave-one-out masses all have m(Omega) above 1 - VACUOUS_TOL is "vacuous"
VACUOUS_TOL = 1e-6
#: a stage that stops inside its step box with a larger free gradient is continued, and a
#: descent that ends with one is not ``converged`` (see :func:`bounded_descent`)
STOP_GRADIENT = 1e-6
#: step in log(gamma) of :func:`central_gradient`
FD_STEP = 1e-5
#: relative tolerance of a saved leave-one-out cost against its recomputation by ``ev.load``
SAVED_COST_RTOL = 1e-9
#: largest free gradient ``|dC/dlog(gamma_q)|`` a saved ``converged`` optimum may show on load:
#: ten times :data:`STOP_GRADIENT`, the fitter's own rule (margin for rounding on another
#: machine). A gamma moved by 1% gives a gradient of about 1e-4 on the contract data.
SAVED_GRADIENT_TOL = 1e-5
#: the extra starts tried when the best optimum is vacuous or on the box: the first start times
#: 10^k for these k
EXTRA_DECADES = (-3, -2, -1, 1, 2, 3)


@dataclass(frozen=True)
class GammaFit:
    """Result of :func:`fit_gamma`: the best gamma over all starts and how it was reached."""

    gamma: NDArray[np.float64]
    cost: float
    n_iter: int
    converged: bool
    message: str
    start: int
    """Position (in the list of starts tried) of the start that reached the best cost."""
    starts: int
    """Number of starts tried."""
    vacuous: bool
    """Every leave-one-out mass has m(Omega) > 1 - 1e-6 at the optimum."""
    on_bound: bool
    """Some log(gamma_q) is on the search box."""
    warning: str
    """Empty, or why the optimum is suspect (vacuous, on a bound)."""


def _cost_of(fun: Callable[..., Any], jac: bool) -> Callable[[NDArray[np.float64]], float]:
    return (lambda eta: float(fun(eta)[0])) if jac else (lambda eta: float(fun(eta)))


def free_gradient(g: NDArray[np.float64], eta: NDArray[np.float64], lo: NDArray[np.float64],
                  hi: NDArray[np.float64]) -> NDArray[np.float64]:
    """``|g|`` with 0 for the components on the box ``[lo, hi]`` whose gradient points out of
    it (the minimum lies beyond the box there): the size of the optimality condition."""
    g = np.asarray(g, dtype=np.float64)
    out = (np.isclose(eta, lo, rtol=0, atol=1e-6) & (g > 0)) | (np.isclose(eta, hi, rtol=0, atol=1e-6) & (g < 0))
    return np.where(out, 0.0, np.abs(g))


def central_gradient(cost: Callable[[NDArray[np.float64]], float], eta: NDArray[np.float64]) -> NDArray[np.float64]:
    """Central differences of ``cost`` at ``eta`` with step :data:`FD_STEP` (the gradient of
    the costs optimised without an analytic one, for the stopping rule and the load check)."""
    step = np.eye(eta.size) * FD_STEP
    return np.array([(cost(eta + h) - cost(eta - h)) / (2 * FD_STEP) for h in step])


def bounded_descent(fun: Callable[..., Any], jac: bool, eta0: NDArray[np.float64], lo: NDArray[np.float64],
                    hi: NDArray[np.float64]) -> tuple[NDArray[np.float64], float, int, bool, str]:
    """L-BFGS-B in stages, each confined to ``+/- LOG_STEP`` around the stage's start (and to
    the box ``[lo, hi]``); a new stage starts where the last one stopped on its own step box, or
    where it stopped inside it with a gradient beyond :data:`STOP_GRADIENT` (L-BFGS-B's
    relative-decrease rule ``ftol`` can stop it early in a flat valley: a gradient of 1.6e-3
    was seen; a new stage restarts its curvature memory), and the descent ends when a stage
    stops inside it at a stationary point (a local minimum) or gains nothing.

    ``fun(eta)`` returns the cost, or ``(cost, gradient)`` when ``jac`` is True (otherwise
    scipy's finite differences are used). ``converged`` is L-BFGS-B's own verdict and, in
    addition, a free gradient (:func:`free_gradient`; central differences without ``jac``) of
    at most :data:`STOP_GRADIENT` at the returned point: what ``ev.load`` checks again, with
    the tolerance :data:`SAVED_GRADIENT_TOL`."""
    cost_of = _cost_of(fun, jac)

    def gradient(eta: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(fun(eta)[1], dtype=np.float64) if jac else central_gradient(cost_of, eta)

    eta = np.clip(eta0, lo, hi)
    cost = cost_of(eta)
    n_iter, converged, message = 0, False, ""
    from scipy.optimize import minimize  # where first needed (import-time rules)

    for _ in range(200):
        slo, shi = np.maximum(lo, eta - LOG_STEP), np.minimum(hi, eta + LOG_STEP)
        res = minimize(fun, eta, jac=True if jac else None, method="L-BFGS-B",
                       bounds=list(zip(slo, shi, strict=True)), options=OPTIONS)
        n_iter += int(res.nit)
        x = np.asarray(res.x, dtype=np.float64)
        c = cost_of(x)
        converged, message = bool(res.success), str(res.message)
        if not c < cost:  # no gain: stay (never return a worse point than the stage's start)
            break
        eta, cost = x, c
        # stopped on the stage's own step box (not the global one): continue from there
        edge = ((np.isclose(x, slo, rtol=0, atol=1e-9) & (slo > lo))
                | (np.isclose(x, shi, rtol=0, atol=1e-9) & (shi < hi)))
        if not edge.any() and free_gradient(gradient(x), x, lo, hi).max() <= STOP_GRADIENT:
            break
    converged = converged and bool(free_gradient(gradient(eta), eta, lo, hi).max() <= STOP_GRADIENT)
    return eta, cost, n_iter, converged, message


def minimise_log_gamma(
    fun: Callable[..., Any],
    jac: bool,
    starts: Sequence[ArrayLike],
    omega_mass: Callable[[NDArray[np.float64]], NDArray[np.float64]],
) -> GammaFit:
    """Minimise a leave-one-out cost over ``log(gamma)`` from several starts.

    From each start, :func:`bounded_descent`. The search box is ``LOG_GAMMA_RANGE`` around the
    starts (below the smallest, above the largest). The best cost over all starts is kept (the
    first start wins a tie). If that optimum is vacuous (``omega_mass(eta)``, the leave-one-out
    m(Omega) of every training row, all above ``1 - VACUOUS_TOL``) or on the box, six more starts
    are tried (the first start times ``10^-3, ..., 10^3``); if the best optimum is still vacuous
    or on the box, ``warning`` says so.

    Parameters
    ----------
    fun : callable
        ``fun(eta)``: the cost at ``log(gamma) = eta``, or ``(cost, gradient)`` if ``jac``.
    jac : bool
    starts : sequence of array-like, shape (M,)
        Starting gammas (positive), tried in order.
    omega_mass : callable
        ``omega_mass(eta)``: the leave-one-out m(Omega) of every training row.

    Returns
    -------
    GammaFit
    """
    etas = [np.log(np.asarray(g, dtype=np.float64)) for g in starts]
    if not etas:
        raise ValueError("fit_gamma needs at least one start")
    lo = np.min(etas, axis=0) - LOG_GAMMA_RANGE
    hi = np.max(etas, axis=0) + LOG_GAMMA_RANGE

    def status(eta: NDArray[np.float64]) -> tuple[bool, bool]:
        vac = bool(np.all(omega_mass(eta) > 1.0 - VACUOUS_TOL))
        bound = bool(np.any(np.isclose(eta, lo, rtol=0, atol=1e-6) | np.isclose(eta, hi, rtol=0, atol=1e-6)))
        return vac, bound

    best: tuple | None = None
    n_iter = 0
    tried = 0

    def run(queue: list[NDArray[np.float64]]) -> None:
        nonlocal best, n_iter, tried
        for eta0 in queue:
            eta, c, nit, conv, msg = bounded_descent(fun, jac, eta0, lo, hi)
            n_iter += nit
            if best is None or c < best[1]:
                best = (eta, c, conv, msg, tried)
            tried += 1

    run(etas)
    assert best is not None
    vac, bound = status(best[0])
    if vac or bound:
        run([etas[0] + np.log(10.0) * k for k in EXTRA_DECADES])
        vac, bound = status(best[0])
    eta, c, conv, msg, start = best
    why = []
    if vac:
        why.append("every leave-one-out mass is vacuous (m(Omega) > 1 - 1e-6): the cost is on its flat "
                   "plateau and the classifier decides nothing")
    if bound:
        g = np.exp(eta)
        why.append(f"gamma = {np.array2string(g, precision=4)} is on the search box (a factor 1e6 "
                   "around the starts): the minimum may lie outside")
    warning = ("; ".join(why) + f" (best of {tried} starts)") if why else ""
    return GammaFit(gamma=np.exp(eta), cost=float(c), n_iter=n_iter, converged=conv, message=msg,
                    start=int(start), starts=tried, vacuous=vac, on_bound=bound, warning=warning)


_PER_CLASS = schema.Ref("class_frame.levels", "there are {n} classes")


@dataclass(frozen=True, kw_only=True)
class GammaFitState:
    """The saved settings and gamma fit shared by the EkNN and the partially supervised EkNN
    (their ``State`` extends it; :mod:`evstat.io.state`)."""

    k: int = saved(schema.Int(min=1))
    alpha: float = saved(schema.Float(min=0.0, max=1.0))
    lam: float = saved(schema.Float(min=0.0))
    #: one per class
    gamma: list[float] = saved(schema.List(schema.Float(min=0.0), length=_PER_CLASS))
    gamma_init: list[float] = saved(schema.List(schema.Float(min=0.0), length=_PER_CLASS))
    optimized: bool = saved()
    cost_init: float = saved()
    cost: float = saved()
    loo_error: float = saved(schema.Float(min=0.0, max=1.0))
    n_iter: int = saved(schema.Int(min=0))
    converged: bool = saved()
    message: str = saved()


def k_rows(d: Any, root: Any) -> str | None:
    """Schema check of a saved EkNN: ``k`` at most the number of training rows."""
    n = len(d["class_frame"]["codes"])
    return f"k = {d['k']} exceeds the {n} training rows" if d["k"] > n else None


def evclass_initial_gamma(X: ArrayLike, codes: ArrayLike, n_classes: int) -> NDArray[np.float64]:
    """evclass's starting values (``EkNNinit``): ``gamma_q = 1 / (mean Euclidean distance
    between two rows of class q)``.

    evclass stores ``sqrt(gamma)`` = ``1 / sqrt(mean distance)``; in Zouhal and Denoeux's
    parametrisation used here that is ``gamma = 1 / mean distance``. Unlike
    :func:`initial_gamma` it is not scale-free (``gamma d^2`` changes with the unit of the
    scores). A class with fewer than two rows, or no spread, takes the value of the whole
    training set; if that has no spread either, 1.

    Examples
    --------
    >>> evclass_initial_gamma([[0.0], [2.0], [10.0], [11.0], [13.0]], [0, 0, 1, 1, 1], 2).round(4).tolist()
    [0.5, 0.5]
    """
    from scipy.spatial.distance import pdist

    X = np.asarray(X, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.intp)

    def md(rows: NDArray[np.float64]) -> float:
        return float(np.mean(pdist(rows))) if rows.shape[0] >= 2 else 0.0

    overall = md(X)
    out = np.empty(n_classes)
    for q in range(n_classes):
        v = md(X[codes == q])
        if not v > 0:
            v = overall
        out[q] = 1.0 / v if v > 0 else 1.0
    return out


def verify_gamma_fit(fit: Any, source: str, cost_grad: Any, loo_error: float, evclass_start: NDArray[np.float64]) -> None:
    """The load checks of a leave-one-out gamma fit (EkNN and the partially supervised EkNN;
    see :meth:`evstat.classifiers.EkNNClassifier._verify_loaded`): ``cost_grad(eta) -> (cost,
    gradient in eta)`` on the saved rows, ``loo_error`` recomputed at ``gamma``,
    ``evclass_start`` the second start of the optimiser (:func:`evclass_initial_gamma` of the
    training classes). gamma first (its field is named), then the recorded costs and error.

    Without ``optimized``, gamma must equal ``gamma_init``. With it and ``converged``, the free
    gradient (:func:`free_gradient`, the box ``LOG_GAMMA_RANGE`` around the two starts) must be
    at most :data:`SAVED_GRADIENT_TOL`. A fit recorded as not converged (the optimiser's
    verdict) is checked for its recorded numbers only."""
    eta = np.log(fit.gamma.to_numpy())
    eta0 = np.log(fit.gamma_init.to_numpy())
    cost, g = cost_grad(eta)
    if not fit.optimized:
        if not np.array_equal(eta, eta0):
            raise not_fitted(fit, source, "gamma", "optimized is false, so gamma must equal gamma_init")
    elif fit.converged:
        starts = np.vstack([eta0, np.log(evclass_start)])
        lo, hi = starts.min(axis=0) - LOG_GAMMA_RANGE, starts.max(axis=0) + LOG_GAMMA_RANGE
        worst = free_gradient(g, eta, lo, hi)
        if not np.all(np.isfinite(g)) or worst.max() > SAVED_GRADIENT_TOL:
            q = int(np.argmax(worst))
            raise not_fitted(
                fit,
                source, f"gamma[{q}] (class {fit.levels[q]!r})",
                f"the leave-one-out cost is not at a minimum: its gradient in log(gamma) is {g[q]:.3g}, "
                f"beyond {SAVED_GRADIENT_TOL:g} (evstat.classifiers._gamma.SAVED_GRADIENT_TOL)",
            )
    for field, saved, c in (("cost", fit.cost, float(cost)), ("cost_init", fit.cost_init, float(cost_grad(eta0)[0]))):
        if not abs(c - saved) <= SAVED_COST_RTOL * max(abs(c), 1e-300):
            raise not_fitted(fit, source, field, f"the file says {saved!r}, the saved rows give {c!r}")
    if loo_error != fit.loo_error:
        raise not_fitted(fit, source, "loo_error", f"the file says {fit.loo_error!r}, the saved rows give {loo_error!r}")
