"""Coupling: class probabilities from the calibrated probabilities of binary tasks.

Given a code matrix Psi (K x B; :mod:`evstat.multiclass.codes`) and, for every row, the
calibrated probabilities r_b = P(positive group of task b | x, the class is in task b), find
class probabilities p (a probability vector of length K) whose implied task probabilities

    mu_b(p) = sum_{k in I_b} p_k / sum_{k in I_b u J_b} p_k     (I_b: psi_kb = +1, J_b: -1)

match the r_b (Gebel 2009, eq. 5.6). There are more equations than free parameters, so each
method defines its own compromise:

``"zadrozny"`` (Zadrozny 2001; thesis 5.3; any code)
    the fixed point of the iteration, with task weights n_b (the number of training rows of
    task b; default 1):

        p_k <- p_k [sum_{b: k in I_b} n_b r_b + sum_{b: k in J_b} n_b (1 - r_b)] /
                   [sum_{b: k in I_b} n_b mu_b + sum_{b: k in J_b} n_b (1 - mu_b)],

    renormalised, started at the uniform vector, until the largest change is below ``tol``.
    Its defining equations (the fixed point): numerator_k = c denominator_k for every k with
    one common c > 0 (c = 1 for pairs, where both sides sum to sum_b n_b). (For a general code this is
    *not* the stationary point of the weighted Kullback-Leibler divergence; it is for pairs.)
``"hastie-tibshirani"`` (Hastie and Tibshirani 1998; all-pairs codes only)
    the minimiser of the weighted Kullback-Leibler divergence
    sum_b n_b [r_b log(r_b / mu_b) + (1 - r_b) log((1 - r_b) / (1 - mu_b))], whose stationary
    equations sum_{j != i} n_ij mu_ij = sum_{j != i} n_ij r_ij are solved by the same iteration
    (the Zadrozny iteration restricted to pairs is Hastie and Tibshirani's).
``"wu-lin-weng"`` (Wu, Lin and Weng 2004, method 2, as LIBSVM and scikit-learn's SVC; pairs only)
    the minimiser of sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2 subject to sum p = 1, with
    r_ij the probability of class i against j (r_ji = 1 - r_ij); solved exactly as the linear
    system [[Q, 1], [1', 0]] [p, b] = [0, 1], Q_ii = sum_{s != i} r_si^2, Q_ij = -r_ji r_ij
    (Wu et al. show the solution is nonnegative). LIBSVM solves the same problem iteratively
    to a tolerance of 0.005 / K and clips the r_ij to [1e-7, 1 - 1e-7]; evstat solves it
    exactly and clips nothing (weights are not used by this method).
``"normalise"`` (the thesis's baseline; one-vs-rest codes only)
    p_k = r_{b(k)} / sum_j r_{b(j)}, with b(k) the task whose positive group is class k; a row
    whose r are all 0 gets the uniform vector (documented choice).

Every method returns rows that are probability vectors (nonnegative, summing to 1). Inputs are
checked: r must be finite and in [0, 1], and of shape (N, B) for the code's B tasks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from evstat.multiclass.codes import check_code

__all__ = ["COUPLINGS", "couple", "is_ovr", "is_pairs"]

#: the coupling methods of :func:`couple`
COUPLINGS = ("zadrozny", "hastie-tibshirani", "wu-lin-weng", "normalise")


def is_pairs(psi: NDArray[np.int64]) -> bool:
    """True when every column has exactly one +1 and one -1 and every pair of classes occurs once."""
    k, b = psi.shape
    if b != k * (k - 1) // 2:
        return False
    if not (((psi == 1).sum(axis=0) == 1) & ((psi == -1).sum(axis=0) == 1)).all():
        return False
    pairs = {frozenset(np.flatnonzero(psi[:, j] != 0).tolist()) for j in range(b)}
    return len(pairs) == b


def is_ovr(psi: NDArray[np.int64]) -> bool:
    """True when the columns are one-vs-rest tasks, one per class (up to column order)."""
    k, b = psi.shape
    if b != k or not ((psi != 0).all()):
        return False
    pos = (psi == 1).sum(axis=0)
    return bool((pos == 1).all() and len(set(np.argmax(psi == 1, axis=0).tolist())) == k)


def _as_code(code: Any) -> NDArray[np.int64]:
    if isinstance(code, pd.DataFrame):
        return check_code(code).to_numpy(dtype=np.int64)
    psi = np.asarray(code)
    if psi.ndim != 2:
        raise ValueError(f"code must be a 2-D (K, B) matrix, got shape {psi.shape}")
    return check_code(pd.DataFrame(psi)).to_numpy(dtype=np.int64)


def couple(
    r: ArrayLike,
    code: Any,
    weights: ArrayLike | None = None,
    method: str = "zadrozny",
    tol: float = 1e-10,
    max_iter: int = 10_000,
) -> NDArray[np.float64]:
    """Class probabilities (N, K) from calibrated task probabilities (N, B).

    Parameters
    ----------
    r : array-like, shape (N, B)
        P(positive group of task b | x) per row and task, in [0, 1] (task order = code columns).
    code : pandas.DataFrame or array-like, shape (K, B)
        The code matrix (entries -1, 0, +1), validated as :func:`evstat.multiclass.codes.check_code`.
    weights : array-like, shape (B,), optional
        Task weights n_b (``"zadrozny"``, ``"hastie-tibshirani"``): Zadrozny weights each task by
        its number of training rows. Default: all 1.
    method : {"zadrozny", "hastie-tibshirani", "wu-lin-weng", "normalise"}
        See the module docstring.
    tol, max_iter : float, int
        Convergence tolerance (largest change of a probability) and iteration limit of the
        iterative methods.

    Returns
    -------
    numpy.ndarray, shape (N, K)
        Class probabilities, rows summing to 1, classes in the code's row order.

    Examples
    --------
    >>> import numpy as np
    >>> from evstat.multiclass import code_matrix, couple
    >>> code = code_matrix(["a", "b", "c"], "pairs")
    >>> p = np.array([[0.5, 0.2, 0.3]])           # consistent task probabilities:
    >>> r = np.array([[0.5 / 0.7, 0.5 / 0.8, 0.2 / 0.5]])
    >>> np.round(couple(r, code, method="wu-lin-weng"), 6)
    array([[0.5, 0.2, 0.3]])
    >>> np.round(couple(r, code, method="zadrozny"), 6)
    array([[0.5, 0.2, 0.3]])
    """
    if method not in COUPLINGS:
        raise ValueError(f"method must be one of {COUPLINGS}, got {method!r}")
    psi = _as_code(code)
    k, b = psi.shape
    R = np.asarray(r, dtype=np.float64)
    if R.ndim == 1 and b == 1:
        R = R[:, None]
    if R.ndim != 2 or R.shape[1] != b:
        raise ValueError(f"r must have shape (N, {b}) for a code with {b} tasks, got {R.shape}")
    if not np.isfinite(R).all():
        bad = np.flatnonzero(~np.isfinite(R).all(axis=1))
        raise ValueError(f"r has missing or infinite values in {bad.size} rows (first: row {bad[0]}); coupling needs probabilities")
    if (R < 0).any() or (R > 1).any():
        bad = np.flatnonzero(((R < 0) | (R > 1)).any(axis=1))
        raise ValueError(
            f"r has values outside [0, 1] in {bad.size} rows (first: row {bad[0]}); calibrate the task scores "
            "into probabilities first"
        )
    if weights is None:
        w = np.ones(b)
    else:
        w = np.asarray(weights, dtype=np.float64).ravel()
        if w.shape != (b,) or not np.isfinite(w).all() or (w <= 0).any():
            raise ValueError(f"weights must be {b} positive finite numbers (one per task), got {np.asarray(weights)!r}")
    if method == "normalise":
        if not is_ovr(psi):
            raise ValueError("method='normalise' is for one-vs-rest codes (one task per class, class against the rest)")
        order = np.argmax(psi == 1, axis=1)  # task of each class
        q = R[:, order]
        s = q.sum(axis=1, keepdims=True)
        out = np.where(s > 0, q / np.where(s > 0, s, 1.0), 1.0 / k)
        return out
    if method in ("hastie-tibshirani", "wu-lin-weng") and not is_pairs(psi):
        raise ValueError(
            f"method={method!r} couples all-pairs codes (each task one class against one other, every pair "
            "once); use method='zadrozny' for other codes"
        )
    if method == "wu-lin-weng":
        return _wu_lin_weng(R, psi)
    return _zadrozny(R, psi, w, tol, max_iter)


def _zadrozny(R: NDArray, psi: NDArray, w: NDArray, tol: float, max_iter: int) -> NDArray[np.float64]:
    n, b = R.shape
    k = psi.shape[0]
    I = (psi == 1).astype(np.float64)  # (K, B)
    J = (psi == -1).astype(np.float64)
    num = (R * w) @ I.T + ((1.0 - R) * w) @ J.T  # (N, K), fixed
    P = np.full((n, k), 1.0 / k)
    active = np.arange(n)
    for _ in range(max_iter):
        if active.size == 0:
            break
        Pa = P[active]
        A = Pa @ I
        S = A + Pa @ J
        mu = np.divide(A, S, out=np.full_like(A, 0.5), where=S > 0)
        den = (mu * w) @ I.T + ((1.0 - mu) * w) @ J.T
        new = Pa * np.divide(num[active], den, out=np.ones_like(den), where=den > 0)
        tot = new.sum(axis=1, keepdims=True)
        new = np.divide(new, tot, out=np.full_like(new, 1.0 / k), where=tot > 0)
        change = np.abs(new - Pa).max(axis=1)
        P[active] = new
        active = active[change > tol]
    return P


def _wu_lin_weng(R: NDArray, psi: NDArray) -> NDArray[np.float64]:
    n, b = R.shape
    k = psi.shape[0]
    pos = np.argmax(psi == 1, axis=0)
    neg = np.argmax(psi == -1, axis=0)
    # rr[:, i, j] = r_ij = P(class i | i or j)
    rr = np.zeros((n, k, k))
    rr[:, pos, neg] = R
    rr[:, neg, pos] = 1.0 - R
    Q = -rr.transpose(0, 2, 1) * rr  # Q_ij = -r_ji r_ij
    diag = (rr.transpose(0, 2, 1) ** 2).sum(axis=2)  # sum_s r_si^2 (r_ii = 0)
    idx = np.arange(k)
    Q[:, idx, idx] = diag
    A = np.zeros((n, k + 1, k + 1))
    A[:, :k, :k] = Q
    A[:, :k, k] = 1.0
    A[:, k, :k] = 1.0
    rhs = np.zeros((n, k + 1))
    rhs[:, k] = 1.0
    sol = np.linalg.solve(A, rhs[..., None])[..., 0]
    p = sol[:, :k]
    # the solution is nonnegative (Wu et al. 2004, Theorem 2); remove round-off only
    p = np.clip(p, 0.0, None)
    return p / p.sum(axis=1, keepdims=True)
