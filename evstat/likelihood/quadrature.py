"""The one adaptive integrator of the predictive lower and upper probabilities (evlogit's
:func:`~evstat.likelihood.predictive.predictive_belief` and evmultinom's
:func:`~evstat.likelihood.multinomial.predictive_bounds`; issue 24, item 4).

Vectorised adaptive Clenshaw-Curtis quadrature over one interval per row: every panel is
evaluated at the 17 nodes of the rule of order 16, whose odd nodes form the rule of order 8
(nested: no extra evaluation); a panel is accepted when the two rules differ by at most
``acc`` (for analytic integrands the errors fall geometrically with the order, so the accepted
order-16 value is far more accurate than ``acc``), otherwise it is bisected, all rows and
panels at once. The nodes of each panel are handed to the integrand as one *path* ordered from
the end nearest the mode of the contour (``side = -1``: from the upper end downwards; ``+1``:
from the lower end upwards), so that the profile kernels solve them by continuation, each node
started from its predecessors' solutions.

(Nested rules of orders 12 and 6 bisected so many more panels that the nodes per row rose from
44 to 103 on a mix of ordinary and far-out rows: evlogit's measurement, recorded in
:mod:`evstat.likelihood.predictive`.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import overload

import numpy as np
from numpy.typing import NDArray

__all__ = ["CC8", "CC16", "adaptive_clenshaw_curtis", "clenshaw_curtis"]


def clenshaw_curtis(N: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Clenshaw-Curtis nodes (on [0, 1], from 0 to 1) and weights of order ``N`` (even).

    Examples
    --------
    >>> u, w = clenshaw_curtis(8)
    >>> float(w.sum()), bool(np.isclose(w @ u**3, 0.25))  # exact for polynomials of degree <= 8
    (1.0, True)
    """
    k = np.arange(N + 1)
    j = np.arange(1, N // 2 + 1)
    b = np.where(2 * j == N, 1.0, 2.0)
    s = (b[None, :] * np.cos(2.0 * np.outer(k, j) * np.pi / N) / (4.0 * j**2 - 1.0)).sum(axis=1)
    c = np.where((k == 0) | (k == N), 1.0, 2.0)
    w = c / N * (1.0 - s)
    return (1.0 - np.cos(k * np.pi / N)) / 2.0, w / 2.0


CC16 = clenshaw_curtis(16)
CC8 = clenshaw_curtis(8)

#: ``evaluate(rows, nodes) -> (f, aux)``: the integrand at ``nodes`` (panels, 17) of the rows
#: ``rows`` (panels,), the nodes of each panel in path order; ``aux`` (same shape, or None) is
#: whatever else the caller wants back from the first depth (e.g. log-contours or slopes)
Integrand = Callable[[NDArray[np.intp], NDArray[np.float64]], tuple[NDArray[np.float64], NDArray | None]]


@overload
def adaptive_clenshaw_curtis(
    a: NDArray[np.float64], b: NDArray[np.float64],
    evaluate: Callable[[NDArray[np.intp], NDArray[np.float64]], tuple[NDArray[np.float64], NDArray]],
    side: int, acc: float, max_depth: int = 40,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray]: ...
@overload
def adaptive_clenshaw_curtis(
    a: NDArray[np.float64], b: NDArray[np.float64], evaluate: Integrand, side: int, acc: float,
    max_depth: int = 40,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray | None]: ...
def adaptive_clenshaw_curtis(
    a: NDArray[np.float64], b: NDArray[np.float64], evaluate: Integrand, side: int, acc: float,
    max_depth: int = 40,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray | None]:
    """Integrals of ``f`` over ``[a_i, b_i]`` for every row i, by adaptive Clenshaw-Curtis
    quadrature (module docstring).

    Parameters
    ----------
    a, b : arrays (m,)
        The interval of each row (one initial panel per row).
    evaluate : callable
        ``evaluate(rows, nodes) -> (f, aux)`` (see :data:`Integrand`); the nodes of a panel come
        in path order: descending for ``side < 0``, ascending otherwise; the panel's ends are
        ``a`` and ``b`` exactly.
    side : int
        -1 or +1, the direction of the paths (from the end nearest the mode).
    acc : float
        Panel acceptance: order-16 and order-8 values within ``acc``.
    max_depth : int
        Bisections at most; panels still unresolved at the last depth are accepted.

    Returns
    -------
    integral : array (m,)
    nodes, f, aux : arrays (m, 17) (aux None if ``evaluate`` gave none)
        The first depth's nodes (ascending), integrand and ``aux``, one panel per row: for the
        callers' tail checks at the interval ends.

    Examples
    --------
    >>> f = lambda rows, t: (np.exp(-t**2), None)
    >>> val, *_ = adaptive_clenshaw_curtis(np.array([-9.0]), np.array([9.0]), f, 1, 1e-12)
    >>> bool(abs(val[0] - np.sqrt(np.pi)) < 1e-12)
    True
    """
    if not acc > 0:
        raise ValueError(f"acc must be positive, got {acc}")
    u16, w16 = CC16
    _, w8 = CC8
    m = a.shape[0]
    rows = np.arange(m)
    a, b = np.array(a, dtype=float), np.array(b, dtype=float)
    integral = np.zeros(m)
    order = slice(None, None, -1) if side < 0 else slice(None)
    first: tuple[NDArray, NDArray, NDArray | None] = (np.empty((0, 17)), np.empty((0, 17)), None)
    for depth in range(max_depth):
        nodes = a[:, None] + (b - a)[:, None] * u16[None, :]
        nodes[:, 0], nodes[:, -1] = a, b
        f, aux = evaluate(rows, np.ascontiguousarray(nodes[:, order]))
        f = f[:, order]
        aux = None if aux is None else aux[:, order]
        k16 = (b - a) * (f @ w16)
        k8 = (b - a) * (f[:, ::2] @ w8)
        if depth == 0:
            first = (nodes, f, aux)
        ok = (np.abs(k16 - k8) <= acc) | (depth == max_depth - 1)
        np.add.at(integral, rows[ok], k16[ok])
        if ok.all():
            break
        bad = ~ok
        mid = 0.5 * (a[bad] + b[bad])
        rows = np.concatenate([rows[bad], rows[bad]])
        a, b = np.concatenate([a[bad], mid]), np.concatenate([mid, b[bad]])
    return integral, first[0], first[1], first[2]
