"""Capabilities are declared once per results class (``capabilities = Capabilities(...)``) and read
by decide, plotting and the report instead of probing for methods; this checks every registered
class's declaration against what the class has, so a declaration cannot drift from the code."""

from __future__ import annotations

import pytest

import evstat as ev
from evstat.results import Capabilities, Results, registered


@pytest.mark.parametrize("method,cls", sorted(registered().items()))
def test_declared_capabilities_match_the_members(method, cls):
    caps = cls.capabilities
    assert isinstance(caps, Capabilities)
    assert caps.profiles == (callable(getattr(cls, "profile", None)) and hasattr(cls, "params")), method
    assert caps.contours == callable(getattr(cls, "predictive_contour", None)), method
    assert caps.densities == callable(getattr(cls, "densities", None)), method
    assert caps.refit == (cls._refit is not Results._refit), method
    assert caps.default_strategy in (*ev.belief.STRATEGIES, *caps.extra_strategies)


def test_the_declarations_drive_decide_and_plot_kinds():
    d = ev.datasets.simulate_gaussian(60, seed=1)
    kinds = ev.plotting.applicable_kinds(ev.evlogit("y ~ x1 + x2", d))
    assert "profile" in kinds and "contours" in kinds
    kinds = ev.plotting.applicable_kinds(ev.evbinning("y ~ x1 + x2", d, bins=3))
    assert "profile" not in kinds and "contours" not in kinds
    assert ev.evmultinom("y ~ x1", d).capabilities.k_class_mass is False
    assert "credal" in ev.eknn("y ~ x1", d, k=5).capabilities.extra_strategies


def test_a_bad_declaration_is_refused():
    with pytest.raises(ValueError, match="strategy must be one of"):
        Capabilities(default_strategy="credal")
    assert Capabilities(default_strategy="credal", extra_strategies=("credal",)).default_strategy == "credal"


def test_refit_is_declared_and_read_by_active_learning():
    d = ev.datasets.simulate_gaussian(40, seed=3)
    for fit in (ev.evlogit("y ~ x1", d.iloc[:25], targets="binary"), ev.evbinning("y ~ x1", d.iloc[:25], bins=3),
                ev.isotonic("y ~ x1", d.iloc[:25])):
        again = fit.refit(d)
        assert type(again) is type(fit) and again.nobs == 40 and fit.nobs == 25
    assert ev.evlogit("y ~ x1", d, targets="binary").refit(d).targets == "binary"
    disjoint = ev.disjoint("y ~ x1", d)
    with pytest.raises(ValueError, match="disjoint does not declare how to refit itself .*evlogit"):
        disjoint.refit(d)
    with pytest.raises(ValueError, match="update\\(\\) knows how to refit evlogit.*not 'disjoint'"):
        ev.active.update(disjoint, d.iloc[:0])
