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


def test_the_registry_is_the_list_of_fitters():
    """``fitters()``: every registered model with a public fitter, ``ev.<method>``; the class
    counts filter them (issue 24 item 5)."""
    from evstat.results import fitter, fitters, supported_classes

    every = fitters()
    assert set(every) == set(registered()) - {"eknn_partial"}
    for method, fn in every.items():
        assert fn is getattr(ev, method), method
    k3 = fitters(n_classes=3)
    assert {"evmultinom", "temperature", "dirichlet", "eknn", "credal_knn"} <= set(k3)
    assert not {"evlogit", "isotonic", "betacal"} & set(k3)
    assert fitters(n_classes=7) == k3 and set(fitters(n_classes=2)) == set(every)
    assert all(3 in supported_classes(m) for m in k3)
    assert fitter("dirichlet") is ev.dirichlet
    with pytest.raises(ValueError, match="unknown method 'magic'; the registered models are .*evmultinom"):
        fitter("magic")
    with pytest.raises(ValueError, match="n_classes must be an integer of at least 2"):
        fitters(n_classes=1)


def test_a_fitter_must_be_the_public_function_of_its_name():
    from evstat.results import register

    class Fake(Results):
        method = "fake_model"

    with pytest.raises(ValueError, match="the fitter of 'fake_model' must be the public function of that name"):
        register(Fake, fitter=ev.evlogit)


def test_a_model_without_a_declared_state_is_not_registered():
    """Persistence is declared once per results class (evstat.io.state): a class without a
    ``State`` could be neither saved nor loaded, so the registry refuses it."""
    from evstat.results import register, registered

    class Fake(Results):
        method = "fake_model"

    with pytest.raises(NotImplementedError, match="the fake_model model declares no State"):
        register(Fake)
    assert "fake_model" not in registered()


def test_declared_score_kinds():
    kinds = {m: c.capabilities.scores for m, c in registered().items()}
    assert kinds["temperature"] == kinds["vector_scaling"] == "logits"
    assert kinds["dirichlet"] == "probabilities" and kinds["ecoc"] == kinds["gebel_dirichlet"] == "ovr"
    assert kinds["evmultinom"] == kinds["evlogit"] == "any"
    with pytest.raises(ValueError, match="scores must be one of"):
        Capabilities(scores="logit")
