"""Predictions of a fitted model on a grid of score rows, computed once and shared by the figures.

:func:`region_grid` evaluates ``fit.augment`` once on a grid of score rows and keeps, for every
grid row, the class probabilities theta, the lower and upper probabilities Bel({k}) and Pl({k})
and the ignorance; :func:`evstat.plotting.class_regions` (both of its panels) and
:func:`evstat.plotting.class_contours` take the result as ``grid=`` instead of predicting again,
and so can the report. Which grid:

* **The simplex** (ternary, K = 3), when the fit's score columns are the K class probabilities
  (rows summing to one) or their logs (rows whose exponentials sum to one), detected as the
  models detect them (:func:`evstat.multiclass.simplex.detect_simplex`): a point of the triangle is a probability vector p, and the score vector it stands for
  is p itself or log p, the inverse of the map that placed the rows (p = s, or p = exp(s)
  normalised), so every grid row is a score vector the model can meet and every data row is
  drawn where its own scores are. The grid (:func:`simplex_lattice`) is a triangular lattice
  uniform in q = p**(1/4) (normalised), not in p, each small triangle coloured by the
  prediction at its centre. Why: the models read such scores like log p (evmultinom's linear
  predictor on log-probabilities, the log-ratios it takes from probabilities), so decisions
  change at p = 1e-5 as much as at p = 0.3; a lattice uniform in p (tried first) coloured the
  corner where iris setosa rows with log p(virginica) = -10 lie by the decision at
  log p = -4.3 (its cells' centres come no closer to an edge), so those rows sat in a region
  that was not theirs. A lattice uniform in Aitchison's log-ratio coordinates over the rows'
  range (tried second) resolved the edges but drew the centre of the triangle as a few huge,
  sheared cells and left the rest blank. The q-lattice covers the whole triangle, its cells
  shrink toward the edges (the centres of the outermost ones have p of about 1e-6 relative to
  the rest), and it does not depend on the data.
  Scores that are logits but not normalised (not log-probabilities) are not detected, since no
  single point of the simplex stands for them (softmax forgets a constant shift); pass
  log-softmax scores for the simplex picture.
* **A plane** of two score columns otherwise (features, logits, K - 1 log-ratios, K > 3
  probabilities, or an explicit ``scores=``/``fixed=``), on a ``grid`` x ``grid`` lattice over
  the data's range, the other score columns held at their calibration medians or at ``fixed``;
  the figure's title says at which values. For probability-vector scores in a plane (K > 3,
  or ``scores=``/``space="plane"``) the plane is a slice of the simplex: the other columns
  share the probability the plane's two leave, 1 - p(sx) - p(sy), in proportion to their
  calibration medians, so every grid row is a probability vector (or its log); the part of
  the plane where p(sx) + p(sy) >= 1 is left blank.

The predictions of a grid are kept per fit (:func:`predicted_grid`): the figures drawn one
after the other from one fit (and the report's) predict a grid once.

Decisions on the grid (:meth:`RegionGrid.decide`) come from the stored arrays without predicting
again: with 0-1 costs and a reject cost R, the expected losses of deciding class k are
1 - Bel({k}) (upper), 1 - Pl({k}) (lower) and 1 - theta_k (under the probability), and those of
rejecting R, for every model (for a mass function the upper expected loss of an indicator loss
is one minus the belief of the class; for evmultinom's coherent lower probability, one minus
the lower probability); :func:`evstat.belief.decide_bounds` applies the strategies and the tie
policy of ``fit.decide`` (:data:`FAST_STRATEGIES`). The model's own strategies (``"credal"``),
``"pignistic"`` (BetP is theta for a classifier, (Bel + Pl) / 2 for a binary calibrator), loss
matrices and grids with missing probabilities (empty cells) go through ``fit.decide`` on the
stored grid rows.
``tests/plotting/test_grid.py`` checks both paths against ``fit.decide`` for every registered
model.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from evstat.belief import REJECT
from evstat.belief.decision import check_rho, check_strategy
from evstat.metrics import REJECT_SHARE, choose_reject_cost, decide_classes
from evstat.multiclass.simplex import detect_simplex
from evstat.plotting._plane import Plane, choose_plane, new_points, on_lattice
from evstat.plotting.data import quiet_empty_cells
from evstat.results import check_reject_cost

__all__ = [
    "PLANE_GRID",
    "SMOOTH",
    "FineGrid",
    "SIMPLEX_GRID",
    "RegionGrid",
    "from_simplex",
    "predicted_grid",
    "region_grid",
    "score_simplex",
    "simplex_lattice",
    "to_simplex",
]

#: default points per axis of a plane grid (20**2 = 400 predictions)
PLANE_GRID = 20
#: default parts per side of the simplex grid (16**2 = 256 predictions; :func:`simplex_lattice`)
SIMPLEX_GRID = 16
#: the strategies decided from the stored arrays: those that read Bel and Pl, or theta (the
#: model's probability); "pignistic" reads BetP, which is theta for a classifier but
#: (Bel + Pl) / 2 for a binary calibrator, so it goes through ``fit.decide``
FAST_STRATEGIES = ("pessimistic", "optimistic", "hurwicz", "probabilistic")
#: the values of ``space=``
SPACES = ("auto", "simplex", "plane")
_SQRT3_2 = np.sqrt(3.0) / 2.0


def _space_of(S: np.ndarray) -> str | None:
    """``"prob"``, ``"log"`` or None for a score matrix (rows = score vectors), by the models'
    own detection (:func:`evstat.multiclass.simplex.detect_simplex`)."""
    return {"probabilities": "prob", "log-probabilities": "log"}.get(str(detect_simplex(S)))


def score_simplex(results: Any) -> str | None:
    """How the fit's score columns lie on the probability simplex: ``"prob"`` (each calibration
    row is K probabilities summing to one), ``"log"`` (K log-probabilities) or None (not K
    columns, or not on the simplex; also for two classes).

    Examples
    --------
    >>> import evstat as ev
    >>> d = ev.datasets.load("iris_scores")
    >>> cal = d[d["set"] == "calibration"]
    >>> score_simplex(ev.temperature("y ~ logp_setosa + logp_versicolor + logp_virginica", cal))
    'log'
    >>> score_simplex(ev.evmultinom("y ~ lr_versicolor + lr_virginica", cal)) is None
    True
    """
    cols = list(results.score_columns)
    if results.n_classes < 3 or len(cols) != results.n_classes:
        return None
    train = results.training_data()
    try:
        S = np.column_stack([np.asarray(train[c], dtype=float) for c in cols])
    except (TypeError, ValueError):
        return None
    return _space_of(S)


def to_simplex(S: Any, transform: str) -> np.ndarray:
    """Score vectors (rows) as points of the simplex: ``"prob"`` p = s / sum(s) (s clipped at
    0), ``"log"`` p = exp(s) / sum(exp(s)) (the softmax, so log-probabilities map to themselves
    exactly and any row to its normalised version).

    Examples
    --------
    >>> to_simplex([[0.2, 0.3, 0.5]], "prob").tolist()
    [[0.2, 0.3, 0.5]]
    >>> to_simplex(np.log([[0.2, 0.3, 0.5]]), "log").round(12).tolist()
    [[0.2, 0.3, 0.5]]
    """
    S = np.asarray(S, dtype=float)
    if transform == "prob":
        P = np.clip(S, 0.0, None)
        return P / P.sum(axis=1, keepdims=True)
    if transform == "log":
        E = np.exp(S - S.max(axis=1, keepdims=True))
        return E / E.sum(axis=1, keepdims=True)
    raise ValueError(f"transform must be 'prob' or 'log', got {transform!r}")


def from_simplex(P: Any, transform: str) -> np.ndarray:
    """The score vectors of points ``P`` of the open simplex: p (``"prob"``) or log p
    (``"log"``), the inverse of :func:`to_simplex` on the simplex.

    Examples
    --------
    >>> from_simplex([[0.25, 0.25, 0.5]], "log").round(4).tolist()
    [[-1.3863, -1.3863, -0.6931]]
    """
    P = np.asarray(P, dtype=float)
    if transform == "prob":
        return P.copy()
    if transform == "log":
        with np.errstate(divide="ignore"):
            return np.log(P)
    raise ValueError(f"transform must be 'prob' or 'log', got {transform!r}")


def ternary_xy(P: Any) -> tuple[np.ndarray, np.ndarray]:
    """Plane coordinates of three-class probability vectors (the layout of
    :func:`evstat.plotting.ternary_coordinates`: first column lower left, second top, third
    lower right)."""
    P = np.asarray(P, dtype=float)
    return 0.5 * P[:, 1] + P[:, 2], _SQRT3_2 * P[:, 1]


#: the grid is uniform in q = p**WARP / sum(p**WARP) (:func:`simplex_lattice`)
WARP = 0.25


def warp(P: Any, power: float = WARP) -> np.ndarray:
    """``p**power`` normalised to sum one: a bijection of the simplex onto itself fixing its
    corners, edges and centre (its inverse is ``warp(Q, 1 / power)``).

    Examples
    --------
    >>> P = np.array([[0.2, 0.3, 0.5], [1e-6, 1e-3, 1 - 1e-3 - 1e-6]])
    >>> bool(np.allclose(warp(warp(P), 1 / WARP), P, rtol=1e-12, atol=0))
    True
    """
    P = np.asarray(P, dtype=float)
    L = power * np.log(P)
    E = np.exp(L - L.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def simplex_lattice(n: int, power: float = WARP) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The grid of the simplex figures: ``(centres, vertices, triangles)``.

    The triangle of q = :func:`warp` (p) cut into ``n`` parts per side (``n**2`` small
    triangles, vertices (a, b, n - a - b) / n), mapped back to p: uniform in p**(1/4), so its
    cells shrink toward the edges, where scores read as log p change fastest (module
    docstring). Returns the centroids of the mapped triangles (the grid rows: inside the cell
    drawn for them, every probability positive, at least about ``n**-4 / 3`` relative to the
    others, so the log is finite), the vertices (probability vectors) and the triangles (rows
    of three vertex positions, in the order of the centroids).

    Examples
    --------
    >>> C, V, T = simplex_lattice(4)
    >>> C.shape, V.shape, T.shape, bool(np.allclose(C.sum(axis=1), 1)), bool(C.min() > 0)
    ((16, 3), (15, 3), (16, 3), True, True)
    """
    n = int(n)
    pos: dict[tuple[int, int], int] = {}
    verts: list[tuple[float, float, float]] = []
    for a in range(n + 1):
        for b in range(n + 1 - a):
            pos[a, b] = len(verts)
            verts.append((a / n, b / n, (n - a - b) / n))
    tris = []
    for a in range(n):
        for b in range(n - a):
            tris.append((pos[a, b], pos[a + 1, b], pos[a, b + 1]))
            if a + b <= n - 2:
                tris.append((pos[a + 1, b], pos[a, b + 1], pos[a + 1, b + 1]))
    Q, T = np.array(verts), np.array(tris, dtype=np.intp)
    with np.errstate(divide="ignore"):
        V = warp(Q, 1.0 / power)  # the corners and edges (q = 0) map to themselves
    V = np.where(Q == 0.0, 0.0, V)
    # the centroid of the drawn (straight-edged) triangle, so that it lies inside it; never on
    # an edge, since no small triangle has all three vertices on one edge
    return V[T].mean(axis=1), V, T


@dataclass(eq=False)
class RegionGrid:
    """The predictions of ``results`` on a grid of score rows (:func:`region_grid`).

    Attributes
    ----------
    results : Results
        The fit.
    space : {"plane", "simplex"}
    scores : pandas.DataFrame
        The grid rows (the fit's score columns), in the order of the arrays.
    theta, bel, pl : numpy.ndarray, shape (rows, K)
        Probability, Bel({k}) and Pl({k}) of every class (columns in ``results.classes`` order).
    ignorance : numpy.ndarray or None
        ``augment``'s ``.ignorance`` (None for a model without one).
    newdata : pandas.DataFrame or None
        The rows the figures draw (None: the training rows).
    plane : Plane or None
        The plane (``space="plane"``): its columns and held values; ``gx``, ``gy`` its axes.
    transform : {"prob", "log"} or None
        How a point p of the simplex maps to scores (``space="simplex"``): p or log p.
    simplex : numpy.ndarray or None
        The grid rows as probability vectors (``space="simplex"``); ``vertices`` (probability
        vectors) and ``triangles`` (one per grid row) the cells drawn.
    """

    results: Any
    space: str
    scores: pd.DataFrame
    theta: np.ndarray
    bel: np.ndarray
    pl: np.ndarray
    ignorance: np.ndarray | None
    newdata: pd.DataFrame | None = None
    plane: Plane | None = None
    gx: np.ndarray | None = None
    gy: np.ndarray | None = None
    transform: str | None = None
    simplex: np.ndarray | None = None
    vertices: np.ndarray | None = None
    triangles: np.ndarray | None = None
    _decided: dict[Any, np.ndarray] = field(default_factory=dict, repr=False)
    _rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    # ---------------------------------------------------------------- decisions
    def decide(self, strategy: str | None = None, reject_cost: float | None = None, rho: float = 0.5,
               **decide_args: Any) -> np.ndarray:
        """What ``results.decide(self.scores, strategy, reject_cost, rho=rho, **decide_args)``
        answers on every grid row (an object array), from the stored arrays for the loss-based
        strategies with 0-1 costs (module docstring), else through ``decide``; cached."""
        caps = self.results.capabilities
        strategy = caps.default_strategy if strategy is None else strategy
        key = (strategy, None if reject_cost is None else float(reject_cost), float(rho))
        if decide_args:
            return self._slow(strategy, reject_cost, rho, decide_args)
        if key not in self._decided:
            fast = (strategy in FAST_STRATEGIES and REJECT not in self.results.classes
                    and all(np.isfinite(a).all() for a in (self.theta, self.bel, self.pl)))
            if fast:  # the checks of decide, with its messages
                check_strategy(strategy, caps.extra_strategies)
                check_reject_cost(reject_cost)
                check_rho(rho)
                self._decided[key] = decide_arrays(self.results.classes, self.theta, self.bel, self.pl, strategy,
                                                   reject_cost, rho)
            else:
                self._decided[key] = self._slow(strategy, reject_cost, rho, {})
        return self._decided[key]

    def refine(self, strategy: str | None = None, reject_cost: float | None = None, rho: float = 0.5,
               factor: int | None = None) -> FineGrid | None:
        """The decisions of the class-region figures on a lattice ``factor`` times finer than the
        grid (:data:`SMOOTH`), from theta, Bel({k}) and Pl({k}) interpolated linearly between the
        grid's predictions: region boundaries drawn between grid rows instead of along the edges
        of their cells, at no extra prediction (issue 39). Linear interpolation keeps
        0 <= Bel <= theta <= Pl <= 1 (a convex combination of ordered values). On a plane the
        interpolation is bilinear over the lattice of the grid; on the simplex it is linear over
        pieces of the grid's triangles (each cut at its centroid, the grid row) in the lattice's
        uniform coordinates q = p**(1/4) (normalised: :func:`simplex_lattice`). None when the decision
        is not one the arrays determine (the model's own strategies, a reject class), or when
        grid rows with scores have no probability (empty cells)."""
        caps = self.results.capabilities
        strategy = caps.default_strategy if strategy is None else strategy
        if strategy not in FAST_STRATEGIES or REJECT in self.results.classes:
            return None
        scored = np.isfinite(self.scores.to_numpy(dtype=float)).all(axis=1)
        arrays = (self.theta, self.bel, self.pl)
        if not all(np.isfinite(a[scored]).all() for a in arrays):
            return None
        check_strategy(strategy, caps.extra_strategies)
        check_reject_cost(reject_cost)
        check_rho(rho)
        f = SMOOTH if factor is None else int(factor)
        K = self.theta.shape[1]
        if self.space == "plane":
            from scipy.interpolate import RegularGridInterpolator

            assert self.gx is not None and self.gy is not None
            fx = np.linspace(self.gx[0], self.gx[-1], f * (self.gx.size - 1) + 1)
            fy = np.linspace(self.gy[0], self.gy[-1], f * (self.gy.size - 1) + 1)
            FX, FY = np.meshgrid(fx, fy)
            pts = np.column_stack([FY.ravel(), FX.ravel()])
            fine = [RegularGridInterpolator((self.gy, self.gx), a.reshape(self.gy.size, self.gx.size, K))(pts)
                    for a in arrays]
            out = FineGrid("plane", _decide_finite(self.results.classes, fine, strategy, reject_cost, rho), gx=fx, gy=fy)
            return out
        assert self.simplex is not None
        n = int(round(np.sqrt(len(self.scores))))
        C, V, T = simplex_lattice(n * f)
        # in the lattice coordinates of q = warp(p), where both lattices are uniform
        # (simplex_lattice) and every cell of the finer one lies in one cell of the grid: each
        # grid triangle is cut into three at its centroid (the grid row, its own value) and its
        # vertices (the mean of the cells around them); the values are linear on these pieces:
        # continuous, equal to the grid's at its rows, no extrapolation at the edges. (Linear
        # interpolation over a Delaunay triangulation of the centroids, tried first, is
        # degenerate on their honeycomb and drew spikes.)
        assert self.triangles is not None
        Tc = self.triangles
        cell: dict[tuple[int, int, int], int] = {}
        for a in range(n):  # the order of simplex_lattice's triangles
            for b in range(n - a):
                cell[a, b, 0] = len(cell)
                if a + b <= n - 2:
                    cell[a, b, 1] = len(cell)
        qa, qb = (warp(C)[:, j] * n for j in (0, 1))
        a0 = np.clip(np.floor(qa), 0, n - 1).astype(np.intp)
        b0 = np.clip(np.floor(qb), 0, n - 1).astype(np.intp)
        fa, fb = qa - a0, qb - b0
        down = (fa + fb > 1.0) & (a0 + b0 <= n - 2)
        t = np.array([cell[int(i), int(j), int(d)] for i, j, d in zip(a0, b0, down)], dtype=np.intp)
        L = np.where(down[:, None], np.column_stack([1.0 - fb, 1.0 - fa, fa + fb - 1.0]),
                     np.column_stack([1.0 - fa - fb, fa, fb]))
        L = np.clip(L, 0.0, None)
        L /= L.sum(axis=1, keepdims=True)
        vid = Tc[t]
        incident = np.bincount(Tc.ravel(), minlength=int(Tc.max()) + 1).astype(float)
        fine = []
        for arr in arrays:
            at_vertices = np.zeros((incident.size, K))
            np.add.at(at_vertices, Tc.ravel(), np.repeat(arr, 3, axis=0))
            at_vertices /= incident[:, None]
            fine.append(np.einsum("nj,njk->nk", L, at_vertices[vid]))
        return FineGrid("simplex", _decide_finite(self.results.classes, fine, strategy, reject_cost, rho),
                        vertices=V, triangles=T)

    def _slow(self, strategy: str, reject_cost: float | None, rho: float, decide_args: Mapping[str, Any]) -> np.ndarray:
        """``fit.decide`` on the grid rows with scores (rows off the simplex stay None)."""
        ok = np.isfinite(self.scores.to_numpy(dtype=float)).all(axis=1)
        out = np.full(len(self.scores), None, dtype=object)
        with quiet_empty_cells():
            d = self.results.decide(self.scores[ok], strategy=strategy, reject_cost=reject_cost, rho=rho, **decide_args)
        out[ok] = np.asarray(d, dtype=object)
        return out

    def row_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """theta, Bel, Pl (rows, K) of the drawn rows (``newdata``, else the training rows);
        predicted on first use and kept."""
        if self._rows is None:
            rows = self.results.training_data() if self.newdata is None else self.newdata
            cols = list(self.results.score_columns)
            try:
                S = rows[cols].apply(pd.to_numeric, errors="raise")
            except (KeyError, TypeError, ValueError):  # augment says what is wrong
                with quiet_empty_cells():
                    th, be, pl, _ = belief_arrays(self.results, self.results.augment(self.newdata))
            else:  # shared with the other figures of the fit (predicted_grid)
                th, be, pl, _ = predicted_grid(self.results, S)
            self._rows = (th, be, pl)
        return self._rows

    def decided_share(self, strategy: str | None = None, reject_cost: float | None = None, rho: float = 0.5) -> float:
        """The share of the drawn rows decided (not rejected) at ``reject_cost``."""
        caps = self.results.capabilities
        strategy = caps.default_strategy if strategy is None else strategy
        th, be, pl = self.row_arrays()
        if th.shape[0] == 0:
            return 1.0
        d = decide_arrays(self.results.classes, th, be, pl, strategy, reject_cost, rho)
        return float(np.mean(d != REJECT))

    def chosen_reject_cost(self, share: float = REJECT_SHARE) -> float:
        """The data-chosen reject cost of the drawn rows: the smallest cost at which the
        pessimistic strategy rejects at most ``share`` of them
        (:func:`evstat.metrics.choose_reject_cost`, the report's rule)."""
        th, be, pl = self.row_arrays()
        classes = self.results.classes

        def rejected(cost: float) -> float:
            if th.shape[0] == 0:
                return 0.0
            return float(np.mean(decide_arrays(classes, th, be, pl, "pessimistic", cost, 0.5) == REJECT))

        return choose_reject_cost(rejected, share)

    # ---------------------------------------------------------------- geometry
    def coordinates(self, rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Where rows (with the score columns) are drawn: their two plane columns, or their
        score vectors mapped to the simplex (NaN for rows with missing or non-numeric scores)."""
        if self.space == "plane":
            assert self.plane is not None
            return new_points(rows, self.plane.sx, self.plane.sy)
        cols = list(self.results.score_columns)
        S = np.column_stack([pd.to_numeric(rows[c], errors="coerce").to_numpy(dtype=float) for c in cols])
        ok = np.isfinite(S).all(axis=1)
        x, y = np.full(len(rows), np.nan), np.full(len(rows), np.nan)
        if ok.any():
            x[ok], y[ok] = ternary_xy(to_simplex(S[ok], str(self.transform)))
        return x, y

    def caption(self) -> str:
        """How the picture's points map to score vectors (one sentence)."""
        if self.space == "simplex":
            what = "probabilities" if self.transform == "prob" else "log-probabilities"
            cols = ", ".join(self.results.score_columns)
            inv = "p" if self.transform == "prob" else "log p"
            return (f"the simplex of the scores {cols} ({what}): a point p stands for the score vector {inv}, "
                    "rows are drawn at their own scores")
        assert self.plane is not None
        held = ", ".join(f"{c} = {v:.3g} of the probability the two leave" if self.plane.source[c] == SHARE
                         else f"{c} held at {v:.3g} ({self.plane.source[c]})" for c, v in self.plane.held.items())
        return f"the plane of {self.plane.sx} and {self.plane.sy}" + (f"; {held}" if held else "")


#: the class-region figures paint a lattice this many times finer per axis than the grid of
#: predictions (:meth:`RegionGrid.refine`): smooth boundaries for no extra prediction
SMOOTH = 4


@dataclass(eq=False)
class FineGrid:
    """Decisions on the finer lattice of :meth:`RegionGrid.refine`: ``values`` (an object array,
    None where unknown) per cell of the plane lattice ``gx`` x ``gy`` (row-major in y) or per
    triangle of the simplex (``vertices``, ``triangles``)."""

    space: str
    values: np.ndarray
    gx: np.ndarray | None = None
    gy: np.ndarray | None = None
    vertices: np.ndarray | None = None
    triangles: np.ndarray | None = None


def _decide_finite(classes: Sequence[Any], arrays: Sequence[np.ndarray], strategy: str, reject_cost: float | None,
                   rho: float) -> np.ndarray:
    th, be, pl = arrays
    ok = np.isfinite(th).all(axis=1) & np.isfinite(be).all(axis=1) & np.isfinite(pl).all(axis=1)
    out = np.full(th.shape[0], None, dtype=object)
    if ok.any():
        # rounding of the interpolation may leave Bel a hair above Pl: clip to the order it keeps
        b, q = np.clip(be[ok], 0.0, 1.0), np.clip(pl[ok], 0.0, 1.0)
        out[ok] = decide_arrays(classes, np.clip(th[ok], 0.0, 1.0), np.minimum(b, q), np.maximum(b, q), strategy,
                                reject_cost, rho)
    return out


def decide_arrays(classes: Sequence[Any], theta: np.ndarray, bel: np.ndarray, pl: np.ndarray, strategy: str,
                  reject_cost: float | None, rho: float = 0.5) -> np.ndarray:
    """Decisions with 0-1 costs (and a reject action at ``reject_cost``) from theta, Bel({k}),
    Pl({k}) arrays (rows, K): :func:`evstat.metrics.decide_classes`, the one array path of the
    K-class decisions (the report's too), in this module's argument order."""
    return decide_classes(bel, pl, theta, strategy=strategy, reject_cost=reject_cost, classes=list(classes), rho=rho)


def belief_arrays(results: Any, aug: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """theta, Bel, Pl (rows, K) and the ignorance from ``augment``'s columns: two classes
    ``.theta``, ``.bel``, ``.pl`` of the positive class (the negative one by complement),
    otherwise ``.betp_<class>``, ``.bel_<class>``, ``.pl_<class>``."""
    if results.is_binary:
        t, b, p = (aug[c].to_numpy(dtype=float) for c in (".theta", ".bel", ".pl"))
        theta, bel, pl = np.column_stack([1 - t, t]), np.column_stack([1 - p, b]), np.column_stack([1 - b, p])
    else:
        theta, bel, pl = (np.column_stack([aug[f"{s}{c}"].to_numpy(dtype=float) for c in results.classes])
                          for s in (".betp_", ".bel_", ".pl_"))
    ign = aug[".ignorance"].to_numpy(dtype=float) if ".ignorance" in aug.columns else None
    return theta, bel, pl, ign


def _space(results: Any, space: str, scores: Any, fixed: Any) -> str | None:
    """The simplex transform to use, or None for the plane; errors name the fix."""
    if space not in SPACES:
        raise ValueError(f"space must be one of {SPACES}, got {space!r}")
    if space == "plane":
        return None
    transform = score_simplex(results)
    usable = transform is not None and results.n_classes == 3 and scores is None and fixed is None
    if space == "simplex" and not usable:
        why = ("scores= or fixed= choose a plane" if transform is not None and results.n_classes == 3
               else f"it has {results.n_classes} classes (the ternary picture is for K = 3)" if transform is not None
               else f"its score columns {list(results.score_columns)} are not the {results.n_classes} class "
                    "probabilities (rows summing to one) nor their logs")
        raise ValueError(f"space='simplex' needs a three-class fit on probability-vector scores, but {why}; "
                         "use space='plane'")
    return transform if usable else None


#: the most classes the class-region and belief-map figures draw (a plane or simplex of ten
#: classes is not readable; see :func:`evstat.plotting.applicable_kinds`)
MAX_REGION_CLASSES = 4


def region_grid(
    results: Any,
    newdata: pd.DataFrame | None = None,
    *,
    grid: int | None = None,
    scores: Sequence[str] | None = None,
    fixed: Mapping[str, float] | None = None,
    space: str = "auto",
) -> RegionGrid:
    """Predict ``results`` once on the grid of its class-region and belief-map figures.

    Parameters
    ----------
    results : evstat.results.Results
    newdata : pandas.DataFrame, optional
        The rows the figures draw (default: the training rows); a plane spans them too.
    grid : int, optional
        Parts per side of the simplex grid (default :data:`SIMPLEX_GRID`) or points per axis of
        the plane (default :data:`PLANE_GRID`); ``grid**2`` predictions either way.
    scores : pair of str, optional
        The plane's two score columns (default: the first two of the formula); implies the plane.
    fixed : mapping, optional
        Values of the other score columns of the plane (default: their calibration medians).
    space : {"auto", "simplex", "plane"}
        ``"auto"``: the simplex for a three-class fit whose scores are the class probabilities
        or their logs (:func:`score_simplex`) unless ``scores``/``fixed`` are given, else the
        plane (module docstring).

    Returns
    -------
    RegionGrid
        Pass it as ``grid=`` to :func:`evstat.plotting.class_regions` and
        :func:`evstat.plotting.class_contours` to draw from the same predictions.

    Examples
    --------
    >>> import evstat as ev
    >>> d = ev.datasets.load("iris_scores")
    >>> fit = ev.temperature("y ~ logp_setosa + logp_versicolor + logp_virginica",
    ...                      d[d["set"] == "calibration"])
    >>> g = region_grid(fit, grid=10)
    >>> g.space, g.transform, g.theta.shape, g.triangles.shape
    ('simplex', 'log', (100, 3), (100, 3))
    """
    if results.n_classes > MAX_REGION_CLASSES:
        k, j = results.n_classes, len(results.score_columns)
        raise ValueError(
            f"class regions and belief maps are drawn for at most {MAX_REGION_CLASSES} classes: this "
            f"{results.method} fit has {k}, and a plane of two of its {j} score columns with the other "
            f"{max(j - 2, 0)} held fixed shows {k} colours of a slice few rows lie near (and costs a belief "
            "prediction per grid point); draw 'class_reliability', 'classwise_reliability' or "
            "fit.predict(type='belief') per class instead"
        )
    transform = _space(results, space, scores, fixed)
    classes = list(results.classes)

    def evaluate(g: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        return predicted_grid(results, g)

    if transform is not None:
        n = SIMPLEX_GRID if grid is None else int(grid)
        if n < 2:
            raise ValueError(f"grid must be at least 2 parts per side of the simplex, got {grid}")
        C, V, T = simplex_lattice(n)
        Sg = from_simplex(C, transform)
        g = pd.DataFrame({c: Sg[:, j] for j, c in enumerate(results.score_columns)})
        th, be, pl, ign = evaluate(g)
        return RegionGrid(results, "simplex", g, th, be, pl, ign, newdata, transform=transform, simplex=C,
                          vertices=V, triangles=T)
    n = PLANE_GRID if grid is None else int(grid)
    plane = choose_plane(results, scores, fixed, n, newdata)
    on_simplex = score_simplex(results)
    if on_simplex is not None and fixed is None:
        # probability-vector scores in a plane (K > 3, or scores=/space="plane"): the other
        # columns share what the plane's two leave, in proportion to their calibration medians,
        # so every grid row is a probability vector (models such as evmultinom refuse others)
        P_held = to_simplex(np.array([[plane.held[c] for c in plane.held]]), on_simplex)[0]
        for c, w in zip(plane.held, P_held):
            plane.held[c], plane.source[c] = float(w), SHARE
    frames: list[pd.DataFrame] = []

    def evaluate_plane(g: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        if on_simplex is not None and fixed is None:
            g = _slice(g, plane, on_simplex)
        frames[:] = [g]
        ok = np.isfinite(g.to_numpy(dtype=float)).all(axis=1)
        if ok.all():
            return evaluate(g)
        th, be, pl = (np.full((len(g), len(classes)), np.nan) for _ in range(3))
        ign: np.ndarray | None = None
        if ok.any():
            t, b, q, i = evaluate(g[ok])
            th[ok], be[ok], pl[ok] = t, b, q
            if i is not None:
                ign = np.full(len(g), np.nan)
                ign[ok] = i
        return th, be, pl, ign

    gx, gy, (th, be, pl, ign) = on_lattice(plane, n, evaluate_plane)
    assert len(classes) == th.shape[1]
    return RegionGrid(results, "plane", frames[0], th, be, pl, ign, newdata, plane=plane, gx=gx, gy=gy)


#: grids of predictions kept per fit by :func:`predicted_grid` (the most recent ones)
GRID_CACHE_SIZE = 4
_PREDICTED: weakref.WeakKeyDictionary[Any, dict[bytes, tuple[Any, ...]]] = weakref.WeakKeyDictionary()


def predicted_grid(results: Any, g: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """theta, Bel, Pl and the ignorance of ``results`` on the grid rows ``g``
    (:func:`belief_arrays` of ``results.augment(g)``), computed once per fit and grid.

    A fit's figures share their grid (the region and belief-map figures, the report's panels,
    and figures drawn one after the other): the answers of the last :data:`GRID_CACHE_SIZE`
    grids of each fit are kept (weakly: they go with the fit), keyed by the grid's columns and
    values (their bytes) and the fit's ``predictive_method``. A fitted model's predictions do
    not change (the fits are not refitted in place), so a kept grid is the answer of predicting
    again; copies are returned.

    Examples
    --------
    >>> import evstat as ev
    >>> d = ev.datasets.load("iris_scores")
    >>> fit = ev.temperature("y ~ logp_setosa + logp_versicolor + logp_virginica", d[d["set"] == "calibration"])
    >>> g = d[d["set"] == "test"].iloc[:5][list(fit.score_columns)]
    >>> a, b = predicted_grid(fit, g), predicted_grid(fit, g)
    >>> bool(np.array_equal(a[1], b[1])) and a[1] is not b[1]
    True
    """
    import hashlib

    values = np.ascontiguousarray(g.to_numpy(dtype=float))
    key = hashlib.sha256(repr((list(g.columns), values.shape, getattr(results, "predictive_method", None))).encode()
                         + values.tobytes()).digest()
    try:
        kept = _PREDICTED.setdefault(results, {})
    except TypeError:  # a fit that cannot be weakly referenced: no cache
        kept = {}
    if key not in kept:
        with quiet_empty_cells():
            kept[key] = belief_arrays(results, results.augment(g))
        while len(kept) > GRID_CACHE_SIZE:
            kept.pop(next(iter(kept)))
    return tuple(None if a is None else a.copy() for a in kept[key])  # type: ignore[return-value]


#: how the other columns of a plane of probability-vector scores are set (the title says it)
SHARE = "share of what the two leave"


def _slice(g: pd.DataFrame, plane: Plane, transform: str) -> pd.DataFrame:
    """The lattice ``g`` of a plane of probability-vector scores with the other columns set to
    their shares of 1 - p(sx) - p(sy); rows where p(sx) + p(sy) >= 1 are NaN (off the simplex)."""
    def prob(v: np.ndarray) -> np.ndarray:
        return np.clip(v, 0.0, None) if transform == "prob" else np.exp(v)

    px, py = prob(g[plane.sx].to_numpy(dtype=float)), prob(g[plane.sy].to_numpy(dtype=float))
    rest = 1.0 - px - py
    ok = (rest > 1e-12) & (px > 0) & (py > 0)
    out = g.copy()
    for c, w in plane.held.items():
        v = np.full(len(g), np.nan)
        v[ok] = from_simplex((rest[ok] * w)[:, None], transform)[:, 0]
        out[c] = v
    out.loc[~ok, [plane.sx, plane.sy]] = np.nan
    return out
