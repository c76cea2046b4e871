"""Combination rules on dense mass arrays (the numerical kernels behind :func:`combine`).

Every kernel takes two arrays of masses whose last axis has length ``2**K`` (bitmask order of
:class:`~evstat.belief.Frame`), either one mass function each (1-D) or batches of the same number
of rows (2-D, combined row by row), and returns a new array of the broadcast shape. The kernels do
not validate their inputs; :func:`evstat.belief.combine` does.

Two exact routes compute the conjunctive and disjunctive sums:

* ``"pairs"``: sum ``m1(B) m2(C)`` over the pairs of focal columns directly, vectorised over rows
  (no subtraction, so no round-off on structurally zero masses); used when the focal sets are few;
* ``"moebius"``: pointwise product of commonality functions (conjunctive) or implicability
  functions (disjunctive), then the inverse fast Moebius transform, ``O(K 2**K)`` per row; used
  when the focal sets are many. Round-off negatives in ``[-1e-12, 0)`` are set to 0.

``method="auto"`` picks the cheaper one; both are tested against brute-force sums.

A two-element frame without mass on the empty set has closed forms on its three columns
(``_binary_*``), which combine a million pairs of mass functions in a few tens of milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from evstat.exceptions import EvstatError
from evstat.belief.transforms import _zeta

__all__ = [
    "RULES",
    "TotalConflictError",
    "conjunctive",
    "disjunctive",
    "dempster",
    "yager",
    "dubois_prade",
    "average",
    "cautious",
    "conflict_degree",
    "DogmaticMassError",
    "log_weights",
]

#: Names of the combination rules accepted by :func:`evstat.belief.combine`.
RULES = ("dempster", "conjunctive", "disjunctive", "yager", "dubois_prade", "cautious", "average")

#: Normalising constants ``1 - K`` at or below this are treated as total conflict.
TOTAL_CONFLICT_TOL = 1e-12

_ROUNDOFF = 1e-12
_CHUNK_ELEMENTS = 1 << 22


class TotalConflictError(EvstatError, ValueError):
    """Dempster's rule is undefined because the conflict ``K`` equals 1.

    ``rows`` holds the positions (in a batch) of the mass functions in total conflict; it is
    ``None`` for a single pair of mass functions.
    """

    def __init__(self, message: str, rows: np.ndarray | None = None) -> None:
        super().__init__(message)
        self.rows = rows


# --------------------------------------------------------------------------- helpers
def _k_of(n: int) -> int:
    return n.bit_length() - 1


def _broadcast(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Return 2-D float arrays of equal shape and whether the inputs were both 1-D."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    single = a.ndim == 1 and b.ndim == 1
    a2 = np.atleast_2d(a)
    b2 = np.atleast_2d(b)
    if a2.shape[0] != b2.shape[0]:
        if a2.shape[0] == 1:
            a2 = np.broadcast_to(a2, b2.shape)
        elif b2.shape[0] == 1:
            b2 = np.broadcast_to(b2, a2.shape)
        else:
            raise ValueError(
                f"Cannot combine batches of {a2.shape[0]} and {b2.shape[0]} mass functions row by "
                "row; give batches of the same length (or a single mass function to combine with "
                "every row)."
            )
    return a2, b2, single


def _clean(out: np.ndarray) -> np.ndarray:
    out[(out < 0.0) & (out >= -_ROUNDOFF)] = 0.0
    return out


def _row_chunks(n: int, width: int):
    step = max(1, _CHUNK_ELEMENTS // max(1, width))
    for start in range(0, n, step):
        yield slice(start, min(n, start + step))


def _focal_cols(x: np.ndarray) -> np.ndarray:
    return np.flatnonzero((x != 0.0).any(axis=0))


def _pairs(
    a: np.ndarray, b: np.ndarray, target: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> np.ndarray:
    """Sum ``a[:, B] * b[:, C]`` into column ``target(B, C)`` over all focal pairs."""
    n, size = a.shape
    out = np.zeros((n, size))
    ca, cb = _focal_cols(a), _focal_cols(b)
    if ca.size == 0 or cb.size == 0:
        return out
    tgt = target(ca[:, None], cb[None, :]).ravel()
    order = np.argsort(tgt, kind="stable")
    tsorted = tgt[order]
    starts = np.flatnonzero(np.r_[True, tsorted[1:] != tsorted[:-1]])
    uniq = tsorted[starts]
    flat_a = np.repeat(np.arange(ca.size), cb.size)[order]
    flat_b = np.tile(np.arange(cb.size), ca.size)[order]
    for rows in _row_chunks(n, ca.size * cb.size):
        prods = a[rows][:, ca[flat_a]] * b[rows][:, cb[flat_b]]
        out[rows, uniq] = np.add.reduceat(prods, starts, axis=1)
    return out


def _moebius_product(a: np.ndarray, b: np.ndarray, *, superset: bool) -> np.ndarray:
    n, size = a.shape
    k = _k_of(size)
    out = np.empty((n, size))
    for rows in _row_chunks(n, 2 * size):
        qa = _zeta(np.array(a[rows]), k, superset=superset, inverse=False)
        qb = _zeta(np.array(b[rows]), k, superset=superset, inverse=False)
        qa *= qb
        out[rows] = _zeta(qa, k, superset=superset, inverse=True)
    return _clean(out)


def _use_pairs(a: np.ndarray, b: np.ndarray, method: str) -> bool:
    if method == "pairs":
        return True
    if method == "moebius":
        return False
    if method != "auto":
        raise ValueError(f"method must be 'auto', 'pairs' or 'moebius', got {method!r}.")
    size = a.shape[1]
    fa = _focal_cols(a).size
    fb = _focal_cols(b).size
    return fa * fb <= 2 * max(1, _k_of(size)) * size


def _is_binary_normal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape[1] == 4 and not a[:, 0].any() and not b[:, 0].any()


def _out(x: np.ndarray, single: bool) -> np.ndarray:
    return x[0] if single else x


# --------------------------------------------------------------------------- binary closed forms
def _binary_conjunctive(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Conjunctive rule on a 2-element frame, no mass on the empty set (columns 1, 2, 3)."""
    x1, y1, o1 = a[:, 1], a[:, 2], a[:, 3]
    x2, y2, o2 = b[:, 1], b[:, 2], b[:, 3]
    out = np.empty((a.shape[0], 4))
    out[:, 0] = x1 * y2 + y1 * x2
    out[:, 1] = x1 * (x2 + o2) + o1 * x2
    out[:, 2] = y1 * (y2 + o2) + o1 * y2
    out[:, 3] = o1 * o2
    return out


def _binary_disjunctive(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x1, y1, o1 = a[:, 1], a[:, 2], a[:, 3]
    x2, y2, o2 = b[:, 1], b[:, 2], b[:, 3]
    out = np.empty((a.shape[0], 4))
    out[:, 0] = 0.0
    out[:, 1] = x1 * x2
    out[:, 2] = y1 * y2
    out[:, 3] = o1 * (x2 + y2 + o2) + (x1 + y1) * o2 + x1 * y2 + y1 * x2
    return out


def _binary_dempster(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dempster's rule on a 2-element frame by its closed form on {0, 1}
    (Minary et al. 2019, section 4; the disjoint approach of Xu et al. 2016)."""
    out = _binary_conjunctive(a, b)
    norm = out[:, 1] + out[:, 2] + out[:, 3]  # = 1 - K, without cancellation
    _check_conflict(norm)
    out[:, 1:] /= norm[:, None]
    out[:, 0] = 0.0
    return out


def _binary_yager(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = _binary_conjunctive(a, b)
    out[:, 3] += out[:, 0]
    out[:, 0] = 0.0
    return out


# --------------------------------------------------------------------------- rules
def _check_conflict(norm: np.ndarray) -> None:
    bad = norm <= TOTAL_CONFLICT_TOL
    if bad.any():
        rows = np.flatnonzero(bad)
        raise TotalConflictError(
            "Dempster's rule is undefined for mass functions in total conflict (K = 1: no pair "
            "of focal sets intersects).",
            rows,
        )


def conjunctive(a: np.ndarray, b: np.ndarray, *, method: str = "auto") -> np.ndarray:
    """Unnormalised conjunctive rule: ``m(A) = sum_{B cap C = A} m1(B) m2(C)``, keeps m(empty).

    Examples
    --------
    >>> conjunctive(np.array([0, .6, 0, .4]), np.array([0, 0, .5, .5]))
    array([0.3, 0.3, 0.2, 0.2])
    """
    a2, b2, single = _broadcast(a, b)
    if method == "auto" and _is_binary_normal(a2, b2):
        return _out(_binary_conjunctive(a2, b2), single)
    if _use_pairs(a2, b2, method):
        out = _pairs(a2, b2, np.bitwise_and)
    else:
        out = _moebius_product(a2, b2, superset=True)
    return _out(out, single)


def disjunctive(a: np.ndarray, b: np.ndarray, *, method: str = "auto") -> np.ndarray:
    """Disjunctive rule: ``m(A) = sum_{B cup C = A} m1(B) m2(C)`` (product of implicabilities).

    Examples
    --------
    >>> disjunctive(np.array([0, .6, .2, .2]), np.array([0, .5, 0, .5]))
    array([0. , 0.3, 0. , 0.7])
    """
    a2, b2, single = _broadcast(a, b)
    if method == "auto" and _is_binary_normal(a2, b2):
        return _out(_binary_disjunctive(a2, b2), single)
    if _use_pairs(a2, b2, method):
        out = _pairs(a2, b2, np.bitwise_or)
    else:
        out = _moebius_product(a2, b2, superset=False)
    return _out(out, single)


def _normalise(out: np.ndarray) -> np.ndarray:
    norm = out[:, 1:].sum(axis=1)
    _check_conflict(norm)
    out[:, 1:] /= norm[:, None]
    out[:, 0] = 0.0
    return out


def dempster(a: np.ndarray, b: np.ndarray, *, method: str = "auto") -> np.ndarray:
    """Dempster's rule: the conjunctive rule normalised by ``1 - K``, ``K = m(empty)``.

    Raises :class:`TotalConflictError` (a ValueError) when ``1 - K <= 1e-12``.

    Examples
    --------
    >>> dempster(np.array([0, .6, 0, .4]), np.array([0, 0, .5, .5])).round(6)
    array([0.      , 0.428571, 0.285714, 0.285714])
    """
    a2, b2, single = _broadcast(a, b)
    if method == "auto" and _is_binary_normal(a2, b2):
        return _out(_binary_dempster(a2, b2), single)
    out = conjunctive(a2, b2, method=method)
    return _out(_normalise(out), single)


def yager(a: np.ndarray, b: np.ndarray, *, method: str = "auto") -> np.ndarray:
    """Yager's rule: the conjunctive rule with the conflict ``K`` moved to the whole frame.

    Examples
    --------
    >>> yager(np.array([0, .6, 0, .4]), np.array([0, 0, .5, .5]))
    array([0. , 0.3, 0.2, 0.5])
    """
    a2, b2, single = _broadcast(a, b)
    if method == "auto" and _is_binary_normal(a2, b2):
        return _out(_binary_yager(a2, b2), single)
    out = conjunctive(a2, b2, method=method)
    out[:, -1] += out[:, 0]
    out[:, 0] = 0.0
    return _out(out, single)


def _dp_target(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    inter = x & y
    return np.where(inter != 0, inter, x | y)


def _subset_convolution(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``h(A) = sum_{B subset of A} a(B) b(A minus B)`` by ranked zeta transforms, per row."""
    n, size = a.shape
    k = _k_of(size)
    card = np.zeros(1, dtype=np.int64)
    for _ in range(k):
        card = np.concatenate([card, card + 1])
    out = np.empty((n, size))
    for rows in _row_chunks(n, 3 * (k + 1) * size):
        m = rows.stop - rows.start
        fa = np.zeros((k + 1, m, size))
        fb = np.zeros((k + 1, m, size))
        for r in range(k + 1):
            cols = card == r
            fa[r][:, cols] = a[rows][:, cols]
            fb[r][:, cols] = b[rows][:, cols]
        fa = _zeta(fa, k, superset=False, inverse=False)
        fb = _zeta(fb, k, superset=False, inverse=False)
        h = np.zeros((k + 1, m, size))
        for r in range(k + 1):
            for i in range(r + 1):
                h[r] += fa[i] * fb[r - i]
        h = _zeta(h, k, superset=False, inverse=True)
        out[rows] = h[card, :, np.arange(size)].T
    return _clean(out)


def dubois_prade(a: np.ndarray, b: np.ndarray, *, method: str = "auto") -> np.ndarray:
    """Dubois and Prade's rule: each conflicting product ``m1(B) m2(C)`` (``B cap C`` empty) goes
    to ``B cup C`` instead of the empty set. Inputs must be normalised (no mass on the empty set).

    Examples
    --------
    >>> dubois_prade(np.array([0, .6, 0, .4]), np.array([0, 0, .5, .5]))
    array([0. , 0.3, 0.2, 0.5])
    """
    a2, b2, single = _broadcast(a, b)
    if method == "auto" and _is_binary_normal(a2, b2):
        # on two elements the union of two disjoint non-empty sets is the frame: Yager's rule
        return _out(_binary_yager(a2, b2), single)
    if _use_pairs(a2, b2, method):
        out = _pairs(a2, b2, _dp_target)
    else:
        out = conjunctive(a2, b2, method="moebius")
        out[:, 0] = 0.0
        out += _subset_convolution(a2, b2)
        out[:, 0] = 0.0
    return _out(out, single)


def average(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Mean of the two mass functions.

    Examples
    --------
    >>> average(np.array([0, .6, 0, .4]), np.array([0, 0, .5, .5]))
    array([0.  , 0.3 , 0.25, 0.45])
    """
    a2, b2, single = _broadcast(a, b)
    return _out((a2 + b2) / 2.0, single)


def conflict_degree(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Degree of conflict ``K = sum_{B cap C = empty} m1(B) m2(C)`` (scalar for 1-D inputs).

    Examples
    --------
    >>> float(conflict_degree(np.array([0, .6, 0, .4]), np.array([0, 0, .5, .5])))
    0.3
    """
    a2, b2, single = _broadcast(a, b)
    out = conjunctive(a2, b2)[:, 0]
    return out[0] if single else out


#: Pairwise kernels by rule name (``average`` is handled separately for n-ary means).
class DogmaticMassError(EvstatError, ValueError):
    """The cautious rule needs nondogmatic mass functions (``m(frame) > 0``); ``rows`` holds the
    positions (in a batch) of those that are not, or None for a single mass function."""

    def __init__(self, message: str, rows: np.ndarray | None = None) -> None:
        super().__init__(message)
        self.rows = rows


def log_weights(m: np.ndarray) -> np.ndarray:
    """Logarithms of the weights of the canonical conjunctive decomposition (Denoeux 2008).

    A nondogmatic mass function is ``m = (conj)_{A != frame} A^{w(A)}``, where ``A^w`` is the
    simple mass function with ``m(A) = 1 - w`` and ``m(frame) = w``, and
    ``ln w(A) = -sum_{B >= A} (-1)^{|B| - |A|} ln q(B)`` (q the commonality function; an
    inverse Moebius transform over supersets of ``ln q``). ``-ln w(A)`` is the weight of evidence
    for A. The entry of the frame itself is set to 0 (no simple component).

    Examples
    --------
    On {a, b}: m({a}) = 0.3, m({b}) = 0.2, m(frame) = 0.5 gives w({a}) = q(frame) / q({a}) =
    0.5 / 0.8 and w({b}) = 0.5 / 0.7.

    >>> np.exp(log_weights(np.array([0.0, 0.3, 0.2, 0.5])))[1:3].round(6)
    array([0.625   , 0.714286])
    """
    a = np.atleast_2d(np.asarray(m, dtype=float))
    k = _k_of(a.shape[-1])
    omega = a[:, -1]
    if np.any(~(omega > 0)):
        rows = np.flatnonzero(~(omega > 0))
        raise DogmaticMassError(
            f"the cautious rule needs nondogmatic mass functions (m(frame) > 0), but "
            f"{rows.size} of {a.shape[0]} have m(frame) = 0 (rows {rows[:10].tolist()}); give "
            "them a little ignorance first (discount them, e.g. by 1e-6)",
            rows if a.ndim == 2 and np.ndim(m) == 2 else None,
        )
    q = _zeta(a.copy(), k, superset=True, inverse=False)
    lnq = np.log(np.maximum(q, np.finfo(float).tiny))
    lnw = -_zeta(lnq, k, superset=True, inverse=True)
    lnw[:, -1] = 0.0
    return lnw if np.ndim(m) == 2 else lnw[0]


def cautious(a: np.ndarray, b: np.ndarray, *, method: str = "auto") -> np.ndarray:
    """Denoeux's normalised cautious rule for non-distinct sources (Denoeux 2008, AIJ 172).

    Both mass functions are decomposed canonically (:func:`log_weights`); the combination keeps,
    for every nonempty ``A != frame``, the smaller weight ``w12(A) = min(w1(A), w2(A))`` (the
    larger weight of evidence: evidence counted once, not twice), and the simple mass functions
    ``A^{w12(A)}`` are combined by Dempster's rule. Commutative, associative and idempotent
    (``m (cautious) m = m``), unlike Dempster's rule, which assumes distinct (independent)
    sources. Raises :class:`DogmaticMassError` for inputs with ``m(frame) = 0`` and
    :class:`TotalConflictError` when the result would be in total conflict. ``method`` is
    accepted for the kernels' common signature; the rule always uses the Moebius transforms.

    On the binary frame, with ``b = m({1})``, ``p = Pl({1})``: ``w({1}) = (p - b) / p`` and
    ``w({0}) = (p - b) / (1 - b)``; with ``W1``, ``W0`` the minima over the sources and
    ``K = (1 - W1)(1 - W0)``, the result is ``m({1}) = (1 - W1) W0 / (1 - K)``,
    ``m({0}) = (1 - W0) W1 / (1 - K)``, ``m(frame) = W1 W0 / (1 - K)``.

    Examples
    --------
    >>> m = np.array([0.0, 0.3, 0.2, 0.5])
    >>> bool(np.allclose(cautious(m, m), m))
    True

    By hand: ``w1 = (0.5/0.8, 0.5/0.7)``, ``w2 = (0.4/1, 0.4/0.4)`` on ({a}, {b}), so
    ``W = (0.4, 5/7)``, ``K = 0.6 x 2/7``; m({a}) = 0.6 x 5/7 / (1 - K) = 15/29, m({b}) = 4/29,
    m(frame) = 10/29:

    >>> cautious(m, np.array([0.0, 0.6, 0.0, 0.4])).round(6)
    array([0.      , 0.517241, 0.137931, 0.344828])
    """
    a2, b2, single = _broadcast(a, b)
    k = _k_of(a2.shape[-1])
    lnw = np.minimum(log_weights(a2), log_weights(b2))
    lnw[:, 0] = 0.0  # the normalised rule: no component on the empty set
    total = lnw.sum(axis=1)
    # ln q(B) = sum of ln w(A) over the A that do not contain B = total - sum over A >= B
    lnq = total[:, None] - _zeta(lnw.copy(), k, superset=True, inverse=False)
    q = np.exp(lnq)
    out = _zeta(q, k, superset=True, inverse=True)
    out = _clean(out)
    return _out(_normalise(out), single)


#: the pairwise kernels with a ``method`` choice (the cautious rule, defined for nondogmatic
#: mass functions only, is dispatched separately by :func:`evstat.belief.combine`)
KERNELS: dict[str, Callable[..., np.ndarray]] = {
    "dempster": dempster,
    "conjunctive": conjunctive,
    "disjunctive": disjunctive,
    "yager": yager,
    "dubois_prade": dubois_prade,
}
