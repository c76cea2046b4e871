"""Every plot of every calibrator renders without warnings (J = 1, 2, 3), draws what it claims,
and refuses the kinds that do not apply with a clear ValueError."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat import metrics, plotting
from evstat.plotting.contours import choose_rows

pytestmark = pytest.mark.filterwarnings("error")

SCORES = ev.datasets.load("sonar_scores")
CAL = SCORES[SCORES.set == "calibration"].reset_index(drop=True)
TEST = SCORES[SCORES.set == "test"].reset_index(drop=True)
FORMULAS = {1: "y ~ svm1", 2: "y ~ svm1 + svm2", 3: "y ~ svm1 + svm2 + svm3"}

# (calibrator, J) -> fitting function; isotonic and betacal calibrate one score only
CASES = {
    ("evlogit", 1): lambda: ev.evlogit(FORMULAS[1], CAL),
    ("evlogit", 2): lambda: ev.evlogit(FORMULAS[2], CAL),
    ("evlogit", 3): lambda: ev.evlogit(FORMULAS[3], CAL),
    ("evbinning", 1): lambda: ev.evbinning(FORMULAS[1], CAL, bins=4),
    ("evbinning", 2): lambda: ev.evbinning(FORMULAS[2], CAL, bins=3, empty="prior"),
    ("evbinning", 3): lambda: ev.evbinning(FORMULAS[3], CAL, bins=2, empty="prior"),
    ("isotonic", 1): lambda: ev.isotonic(FORMULAS[1], CAL),
    ("betacal", 1): lambda: ev.betacal("y ~ expit(svm1)", CAL),
    ("disjoint", 1): lambda: ev.disjoint(FORMULAS[1], CAL),
    ("disjoint", 2): lambda: ev.disjoint(FORMULAS[2], CAL),
    ("disjoint", 3): lambda: ev.disjoint(FORMULAS[3], CAL, method="evbinning", bins=3),
}
_FITS: dict = {}


def fit_of(case):
    if case not in _FITS:
        _FITS[case] = CASES[case]()
    return _FITS[case]


def small(kind):
    """Cheap settings per kind (evlogit's Bel/Pl cost ~1 ms per row)."""
    return {"decision_regions": {"grid": 8}, "calibration_map": {"grid": 25}, "contours": {"points": 41},
            "belt": {"n_points": 20}}.get(kind, {})


def expected_kinds(method, j):
    kinds = ["reliability"]
    kinds += ["calibration_map", "score_densities"] if j == 1 else ["decision_regions"]
    if method in ("evlogit", "betacal"):
        kinds += ["contours", "profile"]
    return kinds + ["reject_curve", "ignorance", "belt"]


@pytest.fixture(autouse=True)
def _close():
    import matplotlib.pyplot as plt
    yield
    plt.close("all")


@pytest.mark.parametrize("case", list(CASES), ids=lambda c: f"{c[0]}-J{c[1]}")
def test_applicable_kinds(case):
    assert plotting.applicable_kinds(fit_of(case)) == expected_kinds(*case)


@pytest.mark.parametrize("case", list(CASES), ids=lambda c: f"{c[0]}-J{c[1]}")
def test_every_applicable_kind_renders_without_warnings(case):
    from matplotlib.figure import Figure
    fit = fit_of(case)
    for kind in plotting.applicable_kinds(fit):
        fig = Figure(figsize=(6, 4.5), layout="constrained")
        ax = fig.add_subplot()
        newdata = None if kind == "profile" else TEST
        out = fit.plot(kind=kind, newdata=newdata, ax=ax, **small(kind))
        assert out is ax
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title(), kind
        fig.savefig(io.BytesIO(), format="png", dpi=40)
        # the calibration rows (no newdata) work as well
        if kind != "profile":
            fig2 = Figure(layout="constrained")
            ax2 = fit.plot(kind=kind, ax=fig2.add_subplot(), **small(kind))
            legend = ax2.get_legend()
            texts = ax2.get_title() + " ".join(t.get_text() for t in (legend.get_texts() if legend else []))
            assert "calibration" in texts, (kind, texts)


@pytest.mark.parametrize("case", list(CASES), ids=lambda c: f"{c[0]}-J{c[1]}")
def test_inapplicable_kinds_raise_clear_errors(case):
    fit = fit_of(case)
    method, j = case
    if j == 1:
        with pytest.raises(ValueError, match="at least two score columns.*calibration_map"):
            fit.plot(kind="decision_regions")
    else:
        with pytest.raises(ValueError, match=f"one score column.*uses {j}"):
            fit.plot(kind="calibration_map")
    if method not in ("evlogit", "betacal"):
        with pytest.raises(ValueError, match=f"{method} has none"):
            fit.plot(kind="profile")
        with pytest.raises(ValueError, match=f"the {method} calibrator does not provide"):
            fit.plot(kind="contours")


def test_pyplot_figure_when_no_ax():
    import matplotlib.pyplot as plt
    fit = fit_of(("evlogit", 1))
    ax = fit.plot()  # default kind: reliability
    assert ax.figure in [plt.figure(n) for n in plt.get_fignums()]
    assert ax.get_title().startswith("Reliability (evlogit) on the calibration data (79 rows)")


def test_unknown_kind():
    with pytest.raises(ValueError, match=r"unknown plot kind 'histogram'; choose one of \['reliability'"):
        fit_of(("evlogit", 1)).plot(kind="histogram")


# ------------------------------------------------------------------ what is drawn


def test_reliability_points_are_the_reliability_table():
    fit = fit_of(("evlogit", 2))
    ax = plotting.reliability_diagram(fit, TEST, bins=5)
    b = fit.predict(TEST, type="belief")
    rt = metrics.reliability_table(TEST["y"], b["theta"], bins=5)
    lines = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert len(lines) == 1
    np.testing.assert_allclose(lines[0].get_xdata(), rt["mean_prediction"])
    np.testing.assert_allclose(lines[0].get_ydata(), rt["observed_frequency"])
    # the [Bel, Pl] bars are the interval coverage table's means
    cov = metrics.interval_coverage(TEST["y"], b["bel"], b["pl"], b["theta"], bins=5)
    bars = [c for c in ax.collections if c.get_label() == "mean [Bel, Pl] of the bin"][0]
    segs = np.array([s for s in bars.get_segments()])
    np.testing.assert_allclose(segs[:, 0, 1], cov["mean_bel"])
    np.testing.assert_allclose(segs[:, 1, 1], cov["mean_pl"])
    # histogram on the twin axis counts every row
    twin = [a for a in ax.figure.axes if a is not ax][0]
    assert sum(p.get_height() for p in twin.patches) == len(TEST)
    # ... in the diagram's own 5 bins: edges and counts of the reliability table
    every = metrics.reliability_table(TEST["y"], b["theta"], bins=5, drop_empty=False)
    assert len(twin.patches) == 5
    np.testing.assert_allclose([p.get_x() for p in twin.patches], every["lower"])
    np.testing.assert_allclose([p.get_x() + p.get_width() for p in twin.patches], every["upper"])
    np.testing.assert_array_equal([p.get_height() for p in twin.patches], every["n"])


def test_reliability_labels_from_y_argument_and_level_names():
    fit = ev.evlogit("label ~ svm1", CAL, positive="R")
    a1 = plotting.reliability_diagram(fit, TEST.drop(columns=["label"]), y=TEST["label"].to_numpy(), bins=4)
    a2 = plotting.reliability_diagram(fit, TEST, bins=4)
    a3 = plotting.reliability_diagram(fit, TEST.drop(columns=["label"]), y=(TEST["label"] == "R").astype(int), bins=4)
    pts = [[ln for ln in a.get_lines() if ln.get_marker() == "o"][0].get_ydata() for a in (a1, a2, a3)]
    np.testing.assert_array_equal(pts[0], pts[1])
    np.testing.assert_array_equal(pts[0], pts[2])
    assert "P(y = R | s)" in a2.get_xlabel()


def test_calibration_map_curves_are_the_predictions():
    fit = fit_of(("evlogit", 1))
    ax = plotting.calibration_map(fit, grid=11)
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    s = lines[r"$\hat\theta$(s)"].get_xdata()
    assert s.min() == CAL["svm1"].min() and s.max() == CAL["svm1"].max() and s.size == 11
    b = fit.predict(pd.DataFrame({"svm1": s}), type="belief")
    np.testing.assert_allclose(lines[r"$\hat\theta$(s)"].get_ydata(), b["theta"])
    np.testing.assert_allclose(lines["Bel({1} | s)"].get_ydata(), b["bel"])
    np.testing.assert_allclose(lines["Pl({1} | s)"].get_ydata(), b["pl"])
    rugs = [c for c in ax.collections if "rug" in str(c.get_label())]
    assert sum(len(c.get_segments()) for c in rugs) == len(CAL)


def test_contours_rows_and_curves():
    fit = fit_of(("evlogit", 3))
    ax = plotting.predictive_contours(fit, TEST, rows=[3, 10], points=21)
    curves = [ln for ln in ax.get_lines() if ln.get_label().startswith("row ")]
    assert [ln.get_label().split(":")[0] for ln in curves] == ["row 3", "row 10"]
    theta = np.linspace(0, 1, 21)
    expected = fit.predictive_contour(TEST.loc[[3, 10]])(theta)
    np.testing.assert_allclose(np.vstack([ln.get_ydata() for ln in curves]), expected)
    # default: three rows spread over theta_hat, in increasing theta_hat
    ax = plotting.predictive_contours(fit, TEST, points=11)
    th = [float(ln.get_label().split("= ")[1].split(",")[0]) for ln in ax.get_lines() if ln.get_label().startswith("row ")]
    assert len(th) == 3 and th == sorted(th)


def test_choose_rows_by_hand():
    theta = pd.Series([0.9, 0.1, 0.5, 0.45, 0.2, np.nan], index=list("abcdef"))
    # quantiles 1/6, 1/2, 5/6 of [0.9, 0.1, 0.5, 0.45, 0.2] -> 0.2, 0.45, 0.5 => rows e, d, c
    assert choose_rows(theta, 3) == ["e", "d", "c"]
    assert choose_rows(theta, 1) == ["d"]
    assert choose_rows(pd.Series([np.nan, np.nan]), 2) == []
    # never the same row twice
    assert choose_rows(pd.Series([0.3, 0.3, 0.3]), 3) == [0, 1, 2]


def test_profile_reuses_coefficient_profile():
    fit = fit_of(("evlogit", 2))
    ax = plotting.coefficient_profile(fit, "svm2", kind="pl")
    lo, hi = fit.conf_int(0.95).loc["svm2"]
    assert ax.get_title() == f"Profile of svm2: 95% interval [{lo:.3g}, {hi:.3g}]"
    assert ax.get_ylabel() == "relative profile likelihood pl"
    dashed = [ln.get_xdata()[0] for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    np.testing.assert_allclose(dashed, [lo, hi])
    assert plotting.coefficient_profile(fit).get_xlabel() == "coefficient of svm1"  # first non-intercept
    with pytest.raises(ValueError, match="unknown term 'svm9'"):
        plotting.coefficient_profile(fit, "svm9")
    with pytest.raises(ValueError, match="do not pass newdata"):
        fit.plot(kind="profile", newdata=TEST)


def test_reject_curve_lines_are_metrics_reject_curve():
    fit = fit_of(("evbinning", 2))
    ax = plotting.reject_curve(fit, TEST, costs=np.linspace(0, 1, 11))
    b = fit.predict(TEST, type="belief")
    rc = metrics.reject_curve(TEST["y"], b["bel"], b["pl"], p=b["theta"], costs=np.linspace(0, 1, 11))
    lines = ax.get_lines()
    assert len(lines) == 6
    for i, s in enumerate(("pessimistic", "optimistic", "probabilistic")):
        c = rc[rc.strategy == s]
        np.testing.assert_allclose(lines[2 * i].get_ydata(), c["error_rate"])
        np.testing.assert_allclose(lines[2 * i + 1].get_ydata(), c["accuracy"])
    ax = plotting.reject_curve(fit, TEST, x="error_rate", strategies=["pessimistic"])
    assert ax.get_xlabel() == "error rate (wrong / tested)" and len(ax.get_lines()) == 1
    with pytest.raises(ValueError, match="x must be 'reject_cost' or 'error_rate'"):
        plotting.reject_curve(fit, TEST, x="cost")


def test_ignorance_histogram_counts_rows():
    fit = fit_of(("isotonic", 1))
    ax = plotting.ignorance_histogram(fit, TEST, bins=7)
    assert len(ax.patches) == 7
    assert sum(p.get_height() for p in ax.patches) == len(TEST)
    ign = (fit.predict(TEST, type="belief").eval("pl - bel")).to_numpy()
    assert any(f"mean {ign.mean():.3f}" == ln.get_label() for ln in ax.get_lines())
    with pytest.raises(ValueError, match="bins must be a positive integer"):
        plotting.ignorance_histogram(fit, TEST, bins=0)


# ------------------------------------------------------------------ decision regions


def test_decision_regions_title_says_what_is_held():
    fit = fit_of(("evlogit", 3))
    med = float(np.median(CAL["svm3"]))
    ax = plotting.decision_regions(fit, grid=6)
    assert f"svm3 held at {med:.3g} (calibration median)" in ax.get_title()
    ax = plotting.decision_regions(fit, grid=6, scores=("svm3", "svm1"), fixed={"svm2": 0.25})
    assert "svm2 held at 0.25 (fixed)" in ax.get_title()
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("score svm3", "score svm1")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[:3] == [lab for lab in labels if "frontier" in lab]


def test_decision_regions_legend_names_missing_frontiers():
    # 15 calibration rows: the pessimistic strategy rejects the whole plane at R_rej = 0.15
    fit = ev.evlogit("y ~ svm1 + svm2", CAL.iloc[:40:2].reset_index(drop=True))
    ax = plotting.decision_regions(fit, grid=6)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    b = fit.predict(pd.DataFrame({"svm1": CAL.svm1, "svm2": CAL.svm2}), type="belief")
    assert (b["bel"] < 0.85).all() and (b["pl"] > 0.15).all()
    assert "pessimistic frontier (none: rejects everywhere)" in labels
    # with a reject cost of 1 nothing is rejected and every strategy has a class frontier
    ax = plotting.decision_regions(fit_of(("evlogit", 2)), grid=8, reject_cost=1.0)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert all("none" not in lab for lab in labels if "frontier" in lab)


@pytest.mark.parametrize("strategy", ["pessimistic", "optimistic", "probabilistic"])
def test_strategy_costs_decide_as_metrics(strategy):
    """The frontier functions (min cost vs R_rej, cost(1) vs cost(0)) give the decisions of
    metrics.decide_binary away from ties."""
    from evstat.plotting._decision_regions import strategy_costs

    rng = np.random.default_rng(5)
    bel = rng.uniform(0, 1, 400)
    pl = bel + (1 - bel) * rng.uniform(0, 1, 400)
    theta = bel + (pl - bel) * rng.uniform(0, 1, 400)
    for rc in (0.1, 0.15, 0.3, 0.6):
        c0, c1 = strategy_costs(theta, bel, pl, strategy)
        mine = np.where(np.minimum(c0, c1) > rc, "reject", np.where(c1 < c0, "1", "0"))
        clear = (np.abs(np.minimum(c0, c1) - rc) > 1e-9) & (np.abs(c1 - c0) > 1e-9)
        theirs = metrics.decide_binary(bel, pl, strategy, rc, p=theta).astype(str)
        np.testing.assert_array_equal(mine[clear], theirs[clear])


def test_decision_regions_shading_matches_fit_decide():
    """The shaded regions (all strategies decide the negative / the positive class) contain
    exactly the points where fit.decide says so for all three strategies."""
    from matplotlib.colors import to_rgb

    fit = fit_of(("evlogit", 2))
    ax = plotting.decision_regions(fit, grid=16, reject_cost=0.4, points=False)
    regions = {"#CFE6F5": [], "#FBE3B5": []}
    for c in ax.collections:  # contourf bands: one path per band, one face colour
        fc = np.asarray(c.get_facecolor())
        for key in regions:
            if fc.shape[0] == 1 and np.allclose(fc[0, :3], to_rgb(key)):
                regions[key] += list(c.get_paths())
    assert regions["#CFE6F5"] and regions["#FBE3B5"]
    pts = pd.DataFrame({"svm1": [-0.6, 0.6, 0.0, -0.1, -0.7, 0.8], "svm2": [-0.5, 1.0, 0.2, 0.1, -0.7, 1.2]})
    dec = np.array([fit.decide(pts, strategy=s, reject_cost=0.4).astype(str).to_numpy()
                    for s in ("pessimistic", "optimistic", "probabilistic")])
    all_neg, all_pos = (dec == "0").all(axis=0), (dec == "1").all(axis=0)
    # the points cover the three cases: all negative, all positive, some reject
    assert all_neg.any() and all_pos.any() and (~all_neg & ~all_pos).any()
    for i, (x, y) in enumerate(zip(pts.svm1, pts.svm2)):
        in_neg = any(p.contains_point((x, y)) for p in regions["#CFE6F5"])
        in_pos = any(p.contains_point((x, y)) for p in regions["#FBE3B5"])
        assert (in_neg, in_pos) == (bool(all_neg[i]), bool(all_pos[i])), (x, y, dec[:, i])


def test_decision_regions_bad_input():
    fit = fit_of(("evlogit", 3))
    with pytest.raises(ValueError, match=r"'svm7' is not a score column .* choose from \['svm1', 'svm2', 'svm3'\]"):
        plotting.decision_regions(fit, scores=("svm1", "svm7"), grid=5)
    with pytest.raises(ValueError, match="two different columns"):
        plotting.decision_regions(fit, scores=("svm1", "svm1"), grid=5)
    with pytest.raises(ValueError, match="scores must be a pair"):
        plotting.decision_regions(fit, scores="svm1", grid=5)
    with pytest.raises(ValueError, match=r"reject_cost must lie in \[0, 1\], got 1.5"):
        plotting.decision_regions(fit, reject_cost=1.5, grid=5)
    with pytest.raises(ValueError, match="each strategy must be one of"):
        plotting.decision_regions(fit, strategies=["cautious"], grid=5)
    with pytest.raises(ValueError, match="fixed may only set the other score columns"):
        plotting.decision_regions(fit, fixed={"svm1": 0.0}, grid=5)
    with pytest.raises(ValueError, match="grid must be at least 3"):
        plotting.decision_regions(fit, grid=2)
    with pytest.raises(ValueError, match=r"newdata lacks the score column\(s\) \['svm2'\]"):
        plotting.decision_regions(fit, TEST.drop(columns=["svm2"]), grid=5)


# ------------------------------------------------------------------ labels and bad input


def test_missing_labels_are_explained():
    fit = fit_of(("evlogit", 1))
    nolab = TEST.drop(columns=["y"])
    for fn in (plotting.reliability_diagram, plotting.reject_curve):
        with pytest.raises(ValueError, match="needs the observed classes of newdata, but newdata has no column 'y'"):
            fn(fit, nolab)
    # plots that do not need labels work, the rug in grey
    ax = plotting.calibration_map(fit, nolab, grid=10)
    assert any(c.get_label() == "new rows (bottom rug)" for c in ax.collections)
    with pytest.raises(ValueError, match="y has 3 labels but newdata has 79 rows"):
        plotting.reliability_diagram(fit, nolab, y=[0, 1, 0])
    with pytest.raises(ValueError, match=r"y has values \['maybe'\] that are neither the classes \(0, 1\)"):
        plotting.reliability_diagram(fit, nolab, y=["maybe"] * len(nolab))
    with pytest.raises(ValueError, match="y = 'lbl' is not a column of newdata"):
        plotting.reliability_diagram(fit, nolab, y="lbl")
    with pytest.raises(ValueError, match="y was given without newdata"):
        plotting.reliability_diagram(fit, y=TEST["y"])
    with pytest.raises(TypeError, match="newdata must be a pandas DataFrame"):
        plotting.reliability_diagram(fit, TEST.to_numpy(), y=TEST["y"])
    bad = TEST.copy()
    bad["y"] = bad["y"].astype(float)
    bad.loc[0, "y"] = np.nan
    with pytest.raises(ValueError, match="missing values in 1 of 79 rows"):
        plotting.reliability_diagram(fit, bad)


def test_code_labels():
    from evstat.plotting.data import code_labels

    fit = ev.evlogit("label ~ svm1", CAL)  # classes ("M", "R"), positive "R"
    np.testing.assert_array_equal(code_labels(fit, ["R", "M", "R"]), [1, 0, 1])
    np.testing.assert_array_equal(code_labels(fit, [True, False]), [1, 0])
    np.testing.assert_array_equal(code_labels(fit, np.array([1, 0, 0])), [1, 0, 0])
    with pytest.raises(ValueError, match=r"\['X'\] that are neither the classes \('M', 'R'\) .* nor 0/1 codes \(1 = 'R'\)"):
        code_labels(fit, ["R", "X"])
    with pytest.raises(ValueError, match=r"has values \[2\] that are neither"):
        code_labels(fit, [1, 2])
    with pytest.raises(ValueError, match="mixes the classes"):
        code_labels(fit, ["R", 0])


def test_empty_cells_are_left_out_and_said(recwarn):
    from evstat.calibration.binning import EmptyCellWarning

    fit = ev.evbinning("y ~ svm1 + svm2 + svm3", CAL, bins=3)  # 15 of 27 cells empty
    test = TEST.copy()
    # three rows moved to the empty cell (low svm1, high svm2, high svm3)
    test.loc[:2, ["svm1", "svm2", "svm3"]] = [CAL.svm1.min() - 1, CAL.svm2.max() + 1, CAL.svm3.max() + 1]
    assert fit.n[fit.cell_of(test).iloc[:3]].tolist() == [0, 0, 0]
    with pytest.warns(EmptyCellWarning):
        theta = fit.predict(test, type="prob")
    assert int(theta.isna().sum()) == 3
    with pytest.warns(EmptyCellWarning):
        ax = plotting.reliability_diagram(fit, test)
    assert "3 rows without a probability (empty cells) left out" in ax.get_title()
    twin = [a for a in ax.figure.axes if a is not ax][0]
    assert sum(p.get_height() for p in twin.patches) == len(test) - 3
    with pytest.warns(EmptyCellWarning):
        ax = plotting.reject_curve(fit, test)
    assert "3 rows without a probability" in ax.get_title()
    # on the grid of the decision regions empty cells are expected: no warning, a legend entry
    ax = plotting.decision_regions(fit, test, grid=9)
    assert "no probability (empty cell)" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_contours_bad_rows():
    fit = fit_of(("evlogit", 1))
    with pytest.raises(ValueError, match=r"rows \['zz'\] are not index labels of newdata"):
        plotting.predictive_contours(fit, TEST, rows=["zz"])
    with pytest.raises(ValueError, match="rows is empty"):
        plotting.predictive_contours(fit, TEST, rows=[])
    with pytest.raises(ValueError, match="n_rows must be between 1 and 7"):
        plotting.predictive_contours(fit, TEST, n_rows=9)


def test_dollar_in_column_name_is_not_mathtext():
    from matplotlib.figure import Figure
    cal = CAL.rename(columns={"svm1": "cost$1"})
    fit = ev.evlogit('y ~ Q("cost$1")', cal)
    fig = Figure()
    ax = plotting.calibration_map(fit, ax=fig.add_subplot(), grid=10)
    assert ax.get_xlabel() == r"score cost\$1"
    fig.savefig(io.BytesIO(), format="png", dpi=30)
