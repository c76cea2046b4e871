"""The report's reject cost chosen from the data (issue 27): the smallest cost on the 0.01 grid at
which the pessimistic strategy rejects at most a fifth of the rows, shown first, with Minary et
al.'s 0.15 beside it; a given cost is used alone."""

from __future__ import annotations

import re

import numpy as np
import pytest

import evstat as ev
from evstat.report import _cost, render_report
from evstat.report._build import build_context

DATE = "2024-01-02"


def reject_share(fit, data, cost):
    d = fit.decide(data, strategy="pessimistic", reject_cost=cost).astype(str)
    return float(np.mean(d == "reject"))


@pytest.mark.parametrize("seed", range(6))
def test_bisection_is_the_smallest_grid_cost(seed):
    rng = np.random.default_rng(seed)
    bel = rng.uniform(0, 0.6, 50) * rng.uniform(0, 1, 50)
    pl = np.minimum(bel + rng.uniform(0, 0.8, 50), 1.0)
    share = _cost.pessimistic_reject_share(bel, pl)
    chosen = _cost.choose_reject_cost(share)
    scan = [c for c in _cost.COST_GRID if share(c) <= _cost.REJECT_SHARE]  # the slow path: every cost
    assert chosen == scan[0]
    assert share(chosen) <= 0.2 and (chosen == 0.01 or share(round(chosen - 0.01, 2)) > 0.2)
    # the closed form: the pessimistic cost of the best class is min(Pl, 1 - Bel)
    low = np.minimum(pl, 1 - bel)
    assert share(chosen) == np.mean(chosen < low - 1e-12)


def test_chosen_cost_on_sonar_and_the_default_beside_it(fit, sonar):
    html = render_report(fit, sonar.test, date=DATE, grid=5)
    chosen = _cost.choose_reject_cost(lambda c: reject_share(fit, sonar.test, c))
    assert reject_share(fit, sonar.test, 0.15) > 0.9  # the issue: 77 of 79 rejected at 0.15
    assert reject_share(fit, sonar.test, chosen) <= 0.2 < reject_share(fit, sonar.test, round(chosen - 0.01, 2))
    caption = (f"Decisions on the new data (79 rows) at R_rej = {chosen:g} (chosen from the data: the smallest "
               "cost at which the pessimistic strategy rejects at most 20% of the rows) and, beside it, at "
               "Minary et al.&#39;s R_rej = 0.15")
    # the caption as read (its cost and why are spans the slider rewrites: issue 39 item 4)
    assert caption in [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<caption>(.*?)</caption>", html, re.S)]
    ctx, _ = build_context(fit, sonar.test, None, None, DATE, None, 10, 5, None, None)
    dec = ctx["fits"][0].decisions
    assert len(dec) == 1
    rows = dec[0].rows
    assert [r[:2] for r in rows[:6]] == [[s, f"{c:g}"] for c in (chosen, 0.15)
                                         for s in ("pessimistic", "optimistic", "probabilistic")]
    for r in rows[:6]:  # the counts are fit.decide's at that cost
        d = fit.decide(sonar.test, strategy=r[0], reject_cost=float(r[1])).astype(str)
        assert r[2:5] == [str((d == "0").sum()), str((d == "1").sum()), str((d == "reject").sum())]
    assert f"reject_cost = {chosen:g} (chosen from the data)" in html
    assert f"Reject cost R_rej = {chosen:g} (chosen from the data" in html


def test_a_given_cost_is_used_alone(fit, sonar):
    ctx, _ = build_context(fit, sonar.test, None, None, DATE, 0.2, 10, 5, None, None)
    t = ctx["fits"][0].decisions[0]
    assert t.title == "Decisions on the new data (79 rows) at reject cost R_rej = 0.2"
    assert {r[1] for r in t.rows} == {"0.2", ""}


def test_several_calibrators_share_the_largest_cost(fit, sonar):
    iso = ev.isotonic("y ~ svm1", sonar.cal)
    ctx, _ = build_context({"a": fit, "b": iso}, sonar.test, None, None, DATE, None, 10, 5, None, None)
    costs = [_cost.choose_reject_cost(lambda c, f=f: reject_share(f, sonar.test, c)) for f in (fit, iso)]
    for sec in ctx["fits"]:
        assert sec.decisions[0].rows[0][1] == f"{max(costs):g}"
        assert "for every calibrator" in sec.decisions[0].title
    assert re.search(rf"at reject cost R_rej = {max(costs):g}\b|at R_rej = {max(costs):g}\b",
                     " ".join(t.title for t in ctx["comparison"]))


def test_command_line_records_the_cost_only_when_given(tmp_path):
    from evstat.cli import main

    out = tmp_path / "r.html"
    assert main(["report", "--example", "sonar", "--grid", "5", "--date", DATE, "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "--reject-cost" not in html and "(chosen from the data)" in html
    assert main(["report", "--example", "sonar", "--grid", "5", "--date", DATE, "--reject-cost", "0.3",
                 "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "--reject-cost 0.3" in html
    assert "at reject cost R_rej = 0.3<" in re.sub(r"</?span[^>]*>", "", html)  # the slider's spans aside
