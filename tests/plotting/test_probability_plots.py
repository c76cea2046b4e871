"""Ternary plot, top-label / classwise reliability diagrams, class-conditional score densities,
and the calibration map of Gebel's calibrators."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat import plotting


@pytest.fixture(scope="module")
def iris() -> pd.DataFrame:
    d = ev.datasets.load("iris")
    return d.rename(columns={"Species": "y", "petal length (cm)": "pl", "petal width (cm)": "pw"})


@pytest.fixture(scope="module")
def fit3(iris):
    return ev.eknn("y ~ pl + pw", iris.iloc[::2], k=7)


def svm_like(n=200, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame({"s": rng.normal(2.0 * y - 1.0, 1.0), "y": np.where(y == 1, "pos", "neg")})


def render(ax):
    ax.figure.savefig(io.BytesIO(), format="png", dpi=30)


def test_ternary_coordinates_corners_and_borders():
    x, h = plotting.ternary_coordinates(np.eye(3))
    np.testing.assert_allclose(np.c_[x, h], [[0, 0], [0.5, np.sqrt(3) / 2], [1, 0]], atol=1e-15)
    # a point on a decision border (two classes tie) lies on the segment centre -> edge midpoint
    p = np.array([[0.4, 0.4, 0.2]])
    x, h = plotting.ternary_coordinates(p)
    cx, ch = plotting.ternary_coordinates([[1 / 3] * 3])
    mx, mh = plotting.ternary_coordinates([[0.5, 0.5, 0]])
    cross = (mx - cx) * (h - ch) - (mh - ch) * (x - cx)
    assert abs(cross[0]) < 1e-12


def test_ternary_plot_points_and_markers(fit3, iris):
    from matplotlib.figure import Figure
    new = iris.iloc[1::2]
    ax = plotting.ternary_plot(fit3, new, ax=Figure().add_subplot())
    offsets = np.vstack([c.get_offsets() for c in ax.collections])
    assert offsets.shape[0] == len(new)
    p = fit3.predict(new, type="prob").to_numpy()
    x, h = plotting.ternary_coordinates(p)
    assert {tuple(np.round(r, 12)) for r in offsets} == {tuple(np.round(r, 12)) for r in np.c_[x, h]}
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "assigned setosa" in legend and "observed virginica" in legend
    assert "new data (75 rows)" in ax.get_title()
    render(ax)
    two = ev.eknn("y ~ s", svm_like(), k=5)
    with pytest.raises(ValueError, match="ternary plot shows three classes, but this eknn fit has 2 classes"):
        plotting.ternary_plot(two)


def test_class_reliability_diagrams(fit3, iris):
    from matplotlib.figure import Figure
    new = iris.iloc[1::2]
    for view in ("top-label", "classwise"):
        ax = plotting.class_reliability_diagram(fit3, new, view=view, bins=5, ax=Figure().add_subplot())
        assert "ECE = " in ax.get_title()
        render(ax)
    e = ev.metrics.top_label_ece(ev.formula.code_response(new["y"], fit3.classes), fit3.predict(new).to_numpy(), bins=5)
    ax = fit3.plot("class_reliability", newdata=new, bins=5, ax=Figure().add_subplot())
    assert f"ECE = {e:.3f}" in ax.get_title()
    ax = fit3.plot("classwise_reliability", bins=5, ax=Figure().add_subplot())
    assert len(ax.get_lines()) == 1 + 3  # diagonal and one line per class
    with pytest.raises(ValueError, match="needs the observed classes of newdata.*pass y="):
        plotting.class_reliability_diagram(fit3, new.drop(columns="y"))
    with pytest.raises(ValueError, match="view"):
        plotting.class_reliability_diagram(fit3, new, view="diagonal")


def test_score_densities_and_calibration_maps():
    from matplotlib.figure import Figure
    cal = svm_like(300, seed=1)
    bay = ev.bayescal("y ~ s", cal, density="gauss")
    ax = plotting.score_densities(bay, ax=Figure().add_subplot())
    lines = ax.get_lines()
    assert len(lines) == 2  # the fitted densities
    f = bay.densities(lines[0].get_xdata())
    np.testing.assert_allclose(lines[0].get_ydata(), f["neg"].to_numpy())
    render(ax)
    for fit in (ev.normcal("y ~ s", cal), ev.plr("y ~ s", cal, step=0.1), bay, ev.avcal("y ~ s", cal)):
        assert "calibration_map" in plotting.applicable_kinds(fit)
        ax = fit.plot("calibration_map", grid=40, ax=Figure().add_subplot())
        theta = [ln for ln in ax.get_lines() if ln.get_label() == r"$\hat\theta$(s)"][0]
        s = theta.get_xdata()
        np.testing.assert_allclose(theta.get_ydata(), fit.predict(pd.DataFrame({"s": s})).to_numpy())
        render(ax)
    with pytest.raises(ValueError, match="score 'x' is not a score column"):
        plotting.score_densities(bay, score="x")
