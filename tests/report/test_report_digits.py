"""Ten classes on every surface (issue 36 item 5): the report and fit.plot() on the shipped
digits_logits example (a small network's logits of scikit-learn's ten digits).

What a reader of ten classes gets: top-label and classwise reliability (tables and diagrams, the
classwise one as a panel per class) with [Bel, Pl] bands, the lower and upper probabilities and
the ignorance of each class, decisions with reject; no class-region, belief-map or ternary
figure (one note says why). A model whose Bel/Pl of one row are an optimisation over many
parameters (evmultinom at K = 10: 99) gets them for BAND_ROWS rows spread by confidence, named
in every caption that uses them.
"""

from __future__ import annotations

import html as htmllib
import re

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat import plotting
from evstat.plotting.probability import BAND_ROWS, BAND_SEARCH, belief_rows

FORMULA = "y ~ " + " + ".join(f"logit_{k}" for k in range(10))


@pytest.fixture(scope="module")
def digits() -> tuple[pd.DataFrame, pd.DataFrame]:
    d = ev.datasets.load("digits_logits")
    return (d[d["set"] == "calibration"].reset_index(drop=True), d[d["set"] == "test"].reset_index(drop=True))


@pytest.fixture(scope="module")
def temp(digits):
    return ev.temperature(FORMULA, digits[0])


def captions(html: str) -> list[str]:
    return [htmllib.unescape(c) for c in re.findall(r"<caption>(.*?)</caption>", html)]


def notes(html: str) -> list[str]:
    return [htmllib.unescape(c) for c in re.findall(r'<p class="note">(.*?)</p>', html, re.S)]


def test_digits_report_has_reliability_and_ignorance_per_class_and_no_simplex(temp, digits, tmp_path):
    cal, test = digits
    html = temp.report(tmp_path / "r.html", newdata=test, date="2026-01-01").read_text(encoding="utf-8")
    caps = captions(html)
    assert "Measures of the class probabilities on the new data (447 rows)" in caps
    assert any(c.startswith("Top-label reliability table") for c in caps)
    assert any(c.startswith("Classwise reliability table") for c in caps)
    ign = [c for c in caps if c.startswith("Lower and upper probabilities of each class")]
    assert ign == ["Lower and upper probabilities of each class on the new data (447 rows)"]
    # the per-class ignorance column is mean Pl({k}) - Bel({k}) of predict(type='belief'), 3 decimals
    b = temp.predict(test, type="belief")
    width = (b["pl"] - b["bel"]).mean()
    assert (width > 0).all()  # temperature at K = 10 is evidential: a real interval per class
    table = html[html.index("Lower and upper probabilities of each class on the new data (447 rows)</caption>"):]
    table = table[:table.index("</table>")]
    heads = [htmllib.unescape(h) for h in re.findall(r"<abbr[^>]*>(.*?)</abbr>", table)]
    col = heads.index("mean Pl - Bel")
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in re.findall(r"<tr><td>.*?</tr>", table)]
    assert [c[0] for c in cells] == [str(k) for k in range(10)]
    np.testing.assert_allclose([float(c[col]) for c in cells], width.to_numpy(), rtol=1e-3)
    # figures: the two reliability diagrams only, no region, map or ternary figure, said once
    assert html.count('class="evstat-figure"') == 2 == len(plotting.applicable_kinds(temp))
    for title in ("Top-label reliability diagram", "Classwise reliability diagram"):
        assert title in html
    for title in ("Class regions", "Ignorance map", "Ternary probability plot"):
        assert title not in html
    said = [n for n in notes(html) if n.startswith("No class-region, belief-map or ternary figures for K = 10")]
    assert len(said) == 1 and "one panel per class" in said[0]
    assert "not drawn" not in html and html.count('class="evstat-kexplorer"') == 1  # the K-class panel
    # temperature searches no parameters per row: every Bel/Pl table uses all 447 rows
    assert not any("spread evenly by confidence" in c for c in caps)
    again = temp.report(tmp_path / "s.html", newdata=test, date="2026-01-01").read_text(encoding="utf-8")
    assert again == html


def test_fit_plot_at_ten_classes(temp, digits):
    from matplotlib.figure import Figure

    cal, test = digits
    vec = ev.vector_scaling(FORMULA, cal)  # evidential=False by default: Bel = Pl, fast
    for fit in (temp, vec):
        kinds = plotting.applicable_kinds(fit)
        assert kinds == ["class_reliability", "classwise_reliability"]
        assert plotting.default_kind(fit) in kinds
        for kind in kinds:
            ax = fit.plot(kind, newdata=test, ax=Figure().add_subplot())
            assert ax.figure is not None and fit.method in ax.get_title()
        ax = fit.plot()  # the default kind on the calibration rows
        assert ax.get_title().startswith("Top-label reliability")
        # the classwise diagram of ten classes: one inset panel per class
        ax = fit.plot("classwise_reliability", newdata=test, ax=Figure().add_subplot())
        assert len(ax.child_axes) == 10 and "one panel per class" in ax.get_title()
        assert [a.get_title() for a in ax.child_axes] == [f"class {k}" for k in range(10)]
        # kinds that cannot be drawn for ten classes: a clear error naming what to draw instead
        for kind in ("decision_regions", "class_regions", "belief_map"):
            with pytest.raises(ValueError, match=r"at most 4 classes: this .* fit has 10.*draw 'class_reliability'"):
                fit.plot(kind)
        with pytest.raises(ValueError, match="ternary plot shows three classes.*10 classes"):
            fit.plot("ternary")
        with pytest.raises(ValueError, match="two-class figure"):
            fit.plot("calibration_map")


def test_region_grid_refuses_many_classes(temp):
    with pytest.raises(ValueError, match="at most 4 classes"):
        plotting.region_grid(temp, grid=5)


def test_belief_rows_bound_only_models_that_search_per_row(temp, digits):
    cal, test = digits
    assert temp.belief_search_size == 0 and belief_rows(temp, test) is None
    assert ev.vector_scaling(FORMULA, cal).belief_search_size == 0  # no contour by default
    assert ev.vector_scaling(FORMULA, cal, evidential=True).belief_search_size == 19 > BAND_SEARCH
    em = ev.evmultinom(FORMULA, cal)
    assert em.belief_search_size == 99
    rows = belief_rows(em, test)
    assert rows is not None and rows.size == BAND_ROWS and np.all(np.diff(rows) > 0)
    # spread evenly over the rows ranked by confidence: the least and the most confident are in
    conf = em.predict(test).to_numpy().max(axis=1)
    assert conf[rows].min() == conf.min() and conf[rows].max() == conf.max()
    assert belief_rows(em, test.iloc[:BAND_ROWS]) is None  # few rows: all of them
    assert belief_rows(em) is not None  # the calibration rows too


def test_three_classes_keep_their_regions():
    d = ev.datasets.load("iris_scores")
    cal = d[d["set"] == "calibration"]
    fit = ev.evmultinom("y ~ lr_versicolor + lr_virginica", cal)
    assert fit.belief_search_size == 6 and belief_rows(fit) is None
    assert plotting.applicable_kinds(fit)[:2] == ["decision_regions", "belief_map"]


@pytest.mark.slow
def test_digits_report_of_three_models_from_the_command_line(tmp_path, capsys):
    """The command of the guide (docs/guide/k-class.md, "Ten classes"): temperature, vector scaling
    and evmultinom side by side; evmultinom's Bel/Pl of BAND_ROWS rows, said where used."""
    from evstat import cli

    out = tmp_path / "digits.html"
    status = cli.main(["report", "--example", "digits", "--method", "temperature", "vector_scaling", "evmultinom",
                       "--date", "2026-01-01", "-o", str(out)])
    assert status == 0
    html = out.read_text(encoding="utf-8")
    caps = captions(html)
    assert "Measures of the class probabilities of the models" in caps
    assert sum(c.startswith("Lower and upper probabilities of each class") for c in caps) == 3
    sub = f"new data (447 rows; Bel/Pl of {BAND_ROWS} of them, spread evenly by confidence)"
    assert f"Lower and upper probabilities of each class on the {sub}" in caps
    assert sum(sub in c for c in caps) == 4  # two reliability tables, the bounds, the decisions
    ign = html[html.index("<caption>Ignorance m(Omega)</caption>", html.index("<h2>Model: evmultinom</h2>")):]
    assert htmllib.escape(sub, quote=False) in ign[:ign.index("</table>")]  # the rows of the ignorance table
    why = [n for n in notes(html) if n.startswith("evmultinom: the lower and upper probabilities of one row")]
    assert len(why) == 1 and "99 parameters" in why[0]
    assert sum(n.startswith("No class-region, belief-map or ternary figures") for n in notes(html)) == 1
    assert html.count('class="evstat-figure"') == 3 * 2 + 1  # two reliability diagrams per model, the error-reject curves
    assert "Ternary" not in html and "Class regions" not in html
    assert "digits_logits" in html and "make_digits_logits.py" in html


@pytest.mark.slow
def test_evmultinom_plots_at_ten_classes_with_bounded_bands(digits):
    """evmultinom at K = 10 (99 parameters): each default kind draws, its bands from BAND_ROWS
    rows (the title says so), in seconds rather than the minutes of all 447 rows."""
    from matplotlib.figure import Figure

    cal, test = digits
    em = ev.evmultinom(FORMULA, cal)
    for kind in plotting.applicable_kinds(em):
        ax = em.plot(kind, newdata=test, ax=Figure().add_subplot())
        assert f"Bel/Pl of {BAND_ROWS} of the 447 rows, evenly spread by confidence" in ax.get_title()
    with pytest.raises(ValueError, match="at most 4 classes"):
        em.plot("belief_map")
