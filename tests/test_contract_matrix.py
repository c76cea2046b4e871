"""The contract matrix (issue 24, item 8): every registered model x {pandas, Dask} x every decision
strategy (with ``rho`` and a loss matrix where the strategy takes them) x {fresh, saved and
loaded}. Dask, in-memory and reloaded answers must be the same.

The reference is the fresh fit's in-memory answer. For each model (two classes and, where it
allows them, three; ``evstat.results.contract_examples``) and each source (the fresh fit, and
the fit saved and loaded with ``ev.load``):

* ``predict(type="prob")`` and ``predict(type="belief")``, on a pandas frame and on a Dask frame
  of three partitions (computed by Dask's synchronous scheduler: the partition-wise path of
  ``evstat.lazy``, without a cluster; tests/test_dask.py runs a LocalCluster);
* ``decide`` for every strategy of ``evstat.belief.STRATEGIES`` and of the class's
  ``capabilities.extra_strategies``: alone, with ``reject_cost``, and with an asymmetric loss
  matrix with a reject action (loss-based strategies); ``"hurwicz"`` with ``rho`` = 0, 0.3, 1
  as well, where ``rho = 1`` must decide as ``"pessimistic"`` and ``rho = 0`` as
  ``"optimistic"`` (the check that caught Dask dropping ``rho``).

Decisions must be equal exactly (values, categories, index and order). Probabilities of the
reloaded fit on pandas must be equal exactly too (a load reconstructs; it estimates nothing:
tests/test_no_refit.py); a Dask partition batches other rows than the whole frame, so its
probabilities may differ in the last bits (relative 1e-12). ``newdata`` has a repeated, unsorted
index, which every answer must keep.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.belief import STRATEGIES
from evstat.results import Results, contract_examples, registered

from contract_data import contract_data, contract_fit

EXAMPLES = contract_examples()
#: models whose matrix takes more than about 5 s: evmultinom's predictive integrals, venn_abers
#: (the venn-abers package predicts slowly), ecoc and disjoint (a model per task or per score)
HEAVY = {"evmultinom", "venn_abers", "ecoc", "disjoint"}
#: the fresh source runs by default; the reloaded one (the same checks after ev.load) is marked slow
CASES = [
    pytest.param(m, k, src, marks=[pytest.mark.slow] if m in HEAVY or src == "loaded" else [], id=f"{m}-K{k}-{src}")
    for m, (_, ks) in sorted(EXAMPLES.items())
    for k in ks
    for src in ("fresh", "loaded")
]
#: the Hurwicz weight tried besides the default 0.5 (and 0 and 1, which must equal the optimistic
#: and pessimistic strategies)
RHO = 0.3
REJECT_COST = 0.3
#: a Dask partition batches other rows than the whole frame: probabilities equal to the last bits
DASK_RTOL, DASK_ATOL = 1e-12, 1e-15


@pytest.fixture(scope="module")
def train() -> pd.DataFrame:
    return contract_data(90, 1)


@pytest.fixture(scope="module")
def new() -> pd.DataFrame:
    d = contract_data(12, 2)
    d.index = pd.Index([f"r{i}" for i in np.random.default_rng(3).integers(0, 20, len(d))])  # repeated, unsorted
    return d


_fit = contract_fit


@pytest.fixture(scope="module", autouse=True)
def _dask_installed() -> None:
    """Every test here needs Dask: skip without it (imported here, not at collection, issue 26)."""
    pytest.importorskip("dask.dataframe")


def loss_for(classes: list) -> pd.DataFrame:
    """An asymmetric loss matrix with a reject action: deciding class i when the truth is j
    costs 1 + 0.5 j (i != j), rejecting costs 0.35 whatever the truth."""
    k = len(classes)
    L = np.array([[0.0 if i == j else 1.0 + 0.5 * j for j in range(k)] for i in range(k)] + [[0.35] * k])
    return pd.DataFrame(L, index=pd.Index([*classes, "reject"], name="action"), columns=list(classes))


def decision_cases(fit: Results) -> list[tuple[str, dict]]:
    """(label, keyword arguments of decide) for every strategy the model has."""
    cases: list[tuple[str, dict]] = []
    for s in STRATEGIES:
        cases += [(s, {"strategy": s}), (f"{s}, reject_cost", {"strategy": s, "reject_cost": REJECT_COST}),
                  (f"{s}, loss", {"strategy": s, "loss": loss_for(list(fit.classes))})]
        if s == "hurwicz":  # rho = 0 and 1: test_hurwicz_rho_spans_optimistic_to_pessimistic
            cases += [(f"hurwicz rho={RHO}", {"strategy": s, "rho": RHO}),
                      (f"hurwicz rho={RHO}, reject_cost", {"strategy": s, "rho": RHO, "reject_cost": REJECT_COST}),
                      (f"hurwicz rho={RHO}, loss", {"strategy": s, "rho": RHO, "loss": loss_for(list(fit.classes))})]
    for s in fit.capabilities.extra_strategies:
        cases.append((s, {"strategy": s}))
    return cases


def _dask(frame: pd.DataFrame):
    import dask.dataframe as dd

    return dd.from_pandas(frame, npartitions=3, sort=False)  # 4 rows per partition


def _computed(lazy):
    assert type(lazy).__module__.startswith("dask"), f"not lazy: {type(lazy)}"
    return lazy.compute(scheduler="synchronous")


def _same_decisions(got: pd.Series, want: pd.Series, what: str) -> None:
    assert list(got.index) == list(want.index), f"{what}: index or order changed"
    if isinstance(want.dtype, pd.CategoricalDtype):
        assert isinstance(got.dtype, pd.CategoricalDtype), f"{what}: not categorical ({got.dtype})"
        assert list(got.cat.categories) == list(want.cat.categories), f"{what}: other actions"
    assert got.astype(object).tolist() == want.astype(object).tolist(), (
        f"{what}: {int((got.astype(object).to_numpy() != want.astype(object).to_numpy()).sum())} of {len(want)} "
        "decisions differ")


def _score_columns(fit: Results) -> list[str]:
    """The score columns of a contract example's formula (``y ~ s1 + s2``, ``y ~ s1``, with or
    without ``- 1``)."""
    rhs = fit.formula.split("~", 1)[1].replace("- 1", "").replace("-1", "")
    cols = [t.strip() for t in rhs.split("+")]
    assert all(c in ("s1", "s2") for c in cols), f"{fit.method}: not a formula of plain scores: {fit.formula}"
    return cols


def _on(fit: Results, source: str, new: pd.DataFrame, call: str, **kw):
    """``fit.<call>(...)`` by the route of ``source``: the fresh fit answers on a 2-D array of its
    score columns (no formula, no patsy: an independent route to the same design), the reloaded
    fit on the DataFrame; the answer carries ``new``'s index (an array's is a RangeIndex)."""
    if source != "fresh":
        return getattr(fit, call)(new, **kw)
    got = getattr(fit, call)(new[_score_columns(fit)].to_numpy(), **kw)
    assert isinstance(got.index, pd.RangeIndex) and len(got) == len(new)
    return got.set_axis(new.index)


@pytest.mark.parametrize("method,k,source", CASES)
def test_dask_in_memory_and_reloaded_answers_agree(method, k, source, train, new, tmp_path) -> None:
    """Every cell compares two routes: the fresh fit on a DataFrame (the reference) against the
    fresh fit on arrays (``source="fresh"``) or the reloaded fit on the DataFrame (``"loaded"``),
    and the fit of the cell on Dask."""
    fresh = _fit(method, k, train)
    fit = fresh if source == "fresh" else ev.load(fresh.save(tmp_path / "fit.json"))
    assert type(fit) is type(fresh) and list(fit.classes) == list(fresh.classes)
    ddf = _dask(new)
    for kind in ("prob", "belief"):
        want = fresh.predict(new, type=kind)
        got = _on(fit, source, new, "predict", type=kind)
        check = pd.testing.assert_series_equal if want.ndim == 1 else pd.testing.assert_frame_equal
        check(got, want, check_exact=True, obj=f"{method} {source} predict({kind!r}) on pandas")
        # Dask stores a text index as its own string dtype (dask's convert-string): same labels
        check(_computed(fit.predict(ddf, type=kind)), want, check_exact=False, rtol=DASK_RTOL, atol=DASK_ATOL,
              check_index_type=False, obj=f"{method} {source} predict({kind!r}) on Dask")
    for label, kw in decision_cases(fresh):
        want = fresh.decide(new, **kw)
        _same_decisions(_on(fit, source, new, "decide", **kw), want, f"{method} K={k} {source} decide({label}) on pandas")
        _same_decisions(_computed(fit.decide(ddf, **kw)), want, f"{method} K={k} {source} decide({label}) on Dask")


@pytest.mark.parametrize("method,k", [pytest.param(m, k, marks=[pytest.mark.slow] if m in HEAVY else [])
                                      for m, (_, ks) in sorted(EXAMPLES.items()) for k in ks])
def test_hurwicz_rho_spans_optimistic_to_pessimistic(method, k, train, new) -> None:
    """rho is the weight of the upper expected loss: rho = 1 decides as "pessimistic", rho = 0 as
    "optimistic", on pandas and on Dask (a dispatch that drops rho gives rho = 0.5's answer)."""
    fit = _fit(method, k, train)
    ddf = _dask(new)
    for rho, same_as in ((1.0, "pessimistic"), (0.0, "optimistic")):
        for extra in ({}, {"reject_cost": REJECT_COST}, {"loss": loss_for(list(fit.classes))}):
            want = fit.decide(new, strategy=same_as, **extra)
            what = f"{method} K={k} hurwicz rho={rho} {extra and list(extra)[0] or ''}"
            _same_decisions(fit.decide(new, strategy="hurwicz", rho=rho, **extra), want, what)
            _same_decisions(_computed(fit.decide(ddf, strategy="hurwicz", rho=rho, **extra)), want, what + " (Dask)")


def test_the_matrix_covers_every_registered_model_and_strategy() -> None:
    """Every registered model is in the matrix with its class counts, and every strategy a class
    declares is tried (a model registered later joins by itself)."""
    assert set(EXAMPLES) == set(registered())
    assert {(p.values[0], p.values[1]) for p in CASES} == {(m, k) for m, (_, ks) in EXAMPLES.items() for k in ks}
    fit = ev.eknn("y3 ~ s1 + s2", contract_data(60, 7), k=5)
    labels = [label for label, _ in decision_cases(fit)]
    assert {"credal", "hurwicz rho=0.3, loss", "pignistic, loss", "probabilistic, reject_cost"} <= set(labels)
    assert len(labels) == 3 * len(STRATEGIES) + 3 + 1
