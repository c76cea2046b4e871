"""Smooth class regions (issue 39 item 3): RegionGrid.refine decides on a finer lattice from
theta, Bel and Pl interpolated between the grid's predictions, without predicting again."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import evstat as ev
from evstat import plotting


@pytest.fixture(scope="module")
def iris():
    d = ev.datasets.load("iris_scores")
    return d[d.set == "calibration"], d[d.set == "test"]


def test_plane_refinement_keeps_the_grid_points(iris):
    cal, test = iris
    fit = ev.eknn("y ~ lr_versicolor + lr_virginica", cal)
    G = plotting.region_grid(fit, test, grid=6)
    fine = G.refine("pessimistic", 0.2, factor=3)
    assert fine.space == "plane" and fine.gx.size == fine.gy.size == 3 * 5 + 1
    on_grid = fine.values.reshape(fine.gy.size, fine.gx.size)[::3, ::3].ravel()
    assert on_grid.tolist() == list(G.decide("pessimistic", 0.2))  # bilinear: exact at the grid's points
    assert fine.gx[0] == G.gx[0] and fine.gx[-1] == G.gx[-1]


def test_simplex_refinement_mostly_agrees_with_the_cells(iris):
    cal, test = iris
    fit = ev.temperature("y ~ logp_setosa + logp_versicolor + logp_virginica", cal)
    G = plotting.region_grid(fit, test, grid=8)
    fine = G.refine("pessimistic", 0.2, factor=4)
    assert fine.space == "simplex" and fine.values.size == (8 * 4) ** 2 == len(fine.triangles)
    assert set(fine.values) <= set(G.decide("pessimistic", 0.2)) | {"reject"}
    # a strategy of the model's own (or a loss) is not decided from the arrays: no refinement
    assert G.refine("credal", 0.2) is None
    # each finer cell's decision is, for most cells, that of the grid cell it lies in
    from evstat.plotting._grid import simplex_lattice, warp

    C, _, _ = simplex_lattice(32)
    q = warp(C) * 8
    coarse = {}
    k = 0
    for a in range(8):
        for b in range(8 - a):
            coarse[a, b, 0] = k
            k += 1
            if a + b <= 6:
                coarse[a, b, 1] = k
                k += 1
    a0, b0 = np.floor(q[:, 0]).astype(int), np.floor(q[:, 1]).astype(int)
    down = (q[:, 0] - a0 + q[:, 1] - b0 > 1) & (a0 + b0 <= 6)
    cell = [coarse[int(i), int(j), int(d)] for i, j, d in zip(a0, b0, down)]
    coarse_d = np.asarray(G.decide("pessimistic", 0.2), dtype=object)
    # the interpolated values of a cell are convex combinations of those of the grid cells that
    # share a vertex with it, so where all of these decide alike the finer cells decide so too;
    # the boundaries move only between cells that decide differently
    T = G.triangles
    around = [np.flatnonzero(np.isin(T, T[t]).any(axis=1)) for t in range(len(T))]
    settled = np.array([len(set(coarse_d[n])) == 1 for n in around])
    cell = np.asarray(cell)
    inside = settled[cell]
    assert inside.mean() > 0.3
    assert (fine.values[inside] == coarse_d[cell][inside]).all()
    assert np.mean(fine.values == coarse_d[cell]) > 0.75


def test_class_regions_smooth_paints_one_image(iris):
    cal, test = iris
    fit = ev.temperature("y ~ logp_setosa + logp_versicolor + logp_virginica", cal)
    ax = plotting.class_regions(fit, test, strategy="pessimistic", reject_cost=0.3, grid=6, smooth=4,
                                second_panel=False)
    painted = [c for c in ax.collections if c.get_rasterized()]
    assert len(painted) == 1 and painted[0].get_array().size == (6 * 4) ** 2
    matplotlib.pyplot.close("all")
