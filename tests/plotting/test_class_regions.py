"""Decision regions and belief maps for any number of classes (issue 13: the plots work for every
classifier): the colours drawn are exactly what ``fit.decide`` answers on the lattice."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat import plotting
from evstat.plotting._plane import choose_plane, on_lattice


@pytest.fixture(scope="module")
def iris() -> pd.DataFrame:
    d = ev.datasets.load("iris")
    return d.rename(columns={"Species": "y", "petal length (cm)": "pl", "petal width (cm)": "pw",
                             "sepal length (cm)": "sl"})


@pytest.fixture(scope="module")
def fits(iris):
    return {
        "eknn": ev.eknn("y ~ pl + pw", iris, k=5),
        "credal_knn": ev.credal_knn("y ~ pl + pw", iris, k=5),
        "evnn": ev.evnn("y ~ pl + pw", iris, prototypes=6, seed=1),
    }


@pytest.fixture(autouse=True)
def _close():
    import matplotlib.pyplot as plt
    yield
    plt.close("all")


def _lattice_frame(fit, grid):
    plane = choose_plane(fit, None, None, grid)
    return on_lattice(plane, grid, lambda g: g)


def _mesh(ax) -> QuadMesh:
    from matplotlib.collections import QuadMesh
    meshes = [c for c in ax.collections if isinstance(c, QuadMesh)]
    assert len(meshes) == 1
    return meshes[0]


@pytest.mark.parametrize("name", ["eknn", "credal_knn", "evnn"])
def test_regions_are_the_decisions_on_the_lattice(fits, name):
    from matplotlib.figure import Figure
    fit = fits[name]
    strategy = "credal"
    ax = plotting.class_regions(fit, strategy=strategy, grid=25, ax=Figure().add_subplot())
    gx, gy, g = _lattice_frame(fit, 25)
    decided = list(fit.decide(g, strategy=strategy))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    drawn = np.asarray(_mesh(ax).get_array()).reshape(gy.size, gx.size)
    # the legend lists the answers present, in code order; each code's cells are that answer
    answers = [t.removeprefix("decide ") for t in legend if t.startswith("decide ")]
    codes = sorted({int(v) for v in np.unique(drawn)})
    assert len(codes) == len(answers)
    for code, text in zip(codes, answers):
        cells = np.flatnonzero(drawn.ravel() == code)
        shown = {("{" + ", ".join(sorted(map(str, d))) + "}") if isinstance(d, frozenset) else str(d)
                 for d in (decided[i] for i in cells)}
        assert shown == {text}, (name, code, text, shown)
    assert {"decide setosa", "decide versicolor", "decide virginica"} <= set(legend)


def test_credal_knn_regions_show_meta_classes_and_outliers(fits):
    from matplotlib.figure import Figure
    ax = plotting.class_regions(fits["credal_knn"], strategy="credal", grid=40, ax=Figure().add_subplot())
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "decide {versicolor, virginica}" in legend
    assert "decide outlier" in legend
    assert ax.get_title() == "Decisions of credal_knn (credal)"


def test_reject_and_strategy_reach_decide(fits):
    from matplotlib.figure import Figure
    fit = fits["eknn"]
    ax = plotting.class_regions(fit, strategy="pessimistic", reject_cost=0.05, grid=20, ax=Figure().add_subplot())
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "decide reject" in legend
    assert "reject cost 0.05" in ax.get_title()
    gx, gy, g = _lattice_frame(fit, 20)
    n_reject = int((fit.decide(g, strategy="pessimistic", reject_cost=0.05) == "reject").sum())
    code = legend.index("decide reject")
    assert int((np.asarray(_mesh(ax).get_array()) == code).sum()) == n_reject > 0


@pytest.mark.parametrize("name", ["eknn", "credal_knn", "evnn"])
def test_belief_map_ignorance_is_augment(fits, name, monkeypatch):
    """The field handed to matplotlib's contourf is augment's ignorance on the lattice rows
    (captured at the drawing call; the lattice and augment computed here independently)."""
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    fit = fits[name]
    drawn = []
    contourf = Axes.contourf

    def spy(self, *args, **kwargs):
        drawn.append(np.ma.filled(np.ma.asarray(args[2], dtype=float), np.nan))
        return contourf(self, *args, **kwargs)

    monkeypatch.setattr(Axes, "contourf", spy)
    ax = plotting.class_contours(fit, grid=20, ax=Figure().add_subplot())
    assert ax.get_title() == f"ignorance ({name})"
    gx, gy, g = _lattice_frame(fit, 20)
    ign = fit.augment(g)[".ignorance"].to_numpy()
    assert np.all((ign >= 0) & (ign <= 1))
    assert len(drawn) == 1 and drawn[0].shape == (gy.size, gx.size)
    np.testing.assert_allclose(drawn[0].ravel(), ign, rtol=0, atol=1e-12)


def test_belief_map_class_statistics(fits, iris):
    from matplotlib.figure import Figure
    fit = fits["evnn"]
    for stat, col in (("theta", "theta"), ("bel", "bel"), ("pl", "pl")):
        ax = plotting.class_contours(fit, stat=stat, cls="setosa", grid=15, ax=Figure().add_subplot())
        assert "of setosa" in ax.get_title()
    G = plotting.region_grid(fit, grid=4)  # the arrays the belief map draws
    b = fit.predict(G.scores, type="belief")
    np.testing.assert_allclose(G.pl[:, 2] - G.bel[:, 2], b[("pl", "virginica")] - b[("bel", "virginica")])
    np.testing.assert_allclose(G.theta[:, 0], b[("theta", "setosa")])


def test_two_class_models_and_complements():
    from matplotlib.figure import Figure
    d = ev.datasets.simulate_gaussian(60, seed=3)
    fit = ev.evlogit("y ~ x1 + x2", data=d)
    G = plotting.region_grid(fit, grid=3)
    b = fit.predict(G.scores, type="belief")
    np.testing.assert_allclose(G.bel[:, 0], 1 - b["pl"])  # the negative class by complement
    np.testing.assert_allclose(G.pl[:, 0], 1 - b["bel"])
    np.testing.assert_allclose(G.theta[:, 1], b["theta"])
    ax = plotting.class_regions(fit, strategy="pessimistic", reject_cost=0.2, grid=12, ax=Figure().add_subplot())
    assert ax.get_xlabel() == "x1"
    ax = fit.plot(kind="belief_map", stat="width", grid=12, ax=Figure().add_subplot())
    assert ax.get_title().startswith("Pl - Bel of")


def test_plot_dispatch_for_three_classes(fits, iris):
    from matplotlib.figure import Figure
    fit = fits["eknn"]
    k_kinds = ["class_reliability", "classwise_reliability", "ternary"]  # tests/plotting/test_probability_plots.py
    assert plotting.applicable_kinds(fit) == ["decision_regions", "belief_map", *k_kinds]
    for kind in ["decision_regions", "belief_map"]:
        fig = Figure(layout="constrained")
        ax = fit.plot(kind=kind, newdata=iris.iloc[::5], ax=fig.add_subplot(), grid=15)
        assert ax.get_xlabel() == "pl" and ax.get_title()
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert "new rows, y = setosa" in legend
        fig.savefig(io.BytesIO(), format="png", dpi=40)
    ax = fit.plot(kind="decision_regions", grid=10, ax=Figure().add_subplot())
    assert ax.get_title().startswith("Decisions of eknn (pessimistic)")
    one = ev.eknn("y ~ pl", iris, k=5)
    assert plotting.applicable_kinds(one) == k_kinds


def test_fixed_and_held_columns(iris):
    from matplotlib.figure import Figure
    fit = ev.eknn("y ~ pl + pw + sl", iris, k=5)
    ax = plotting.class_regions(fit, scores=("pw", "sl"), fixed={"pl": 4.0}, grid=10, ax=Figure().add_subplot())
    assert "pl held at 4 (fixed)" in ax.get_title()
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("pw", "sl")


def test_bad_input(fits, iris):
    fit = fits["eknn"]
    with pytest.raises(ValueError, match="stat must be one of"):
        plotting.class_contours(fit, stat="mass")
    with pytest.raises(ValueError, match="cls = 'rose' is not a class of this fit"):
        plotting.class_contours(fit, stat="pl", cls="rose")
    with pytest.raises(ValueError, match="levels must be at least 2"):
        plotting.class_contours(fit, levels=1)
    with pytest.raises(ValueError, match="'sl' is not a score column"):
        plotting.class_regions(fit, scores=("pl", "sl"))
    with pytest.raises(ValueError, match="grid must be at least 3"):
        plotting.class_regions(fit, grid=2)
    with pytest.raises(ValueError, match="y has 2 labels but newdata has 5 rows"):
        plotting.class_regions(fit, newdata=iris.head(5), y=["setosa", "setosa"], grid=5)
    with pytest.raises(ValueError, match="not response levels"):
        plotting.class_regions(fit, newdata=iris.head(3), y=["setosa", "rose", "setosa"], grid=5)
    with pytest.raises(ValueError, match="y was given without newdata"):
        plotting.class_regions(fit, y=["setosa"], grid=5)
    with pytest.raises(ValueError, match="strategy"):
        plotting.class_regions(fit, strategy="bold", grid=5)
    with pytest.raises(ValueError, match="plot kind 'reject_curve' is a two-class figure.*3 classes"):
        fit.plot(kind="reject_curve")
    one = ev.eknn("y ~ pl", iris, k=5)
    with pytest.raises(ValueError, match="at least two score columns"):
        one.plot(kind="decision_regions")
