"""Model files that lie (issue 23, item 11), for the families beyond the linear-predictor models
(whose score equations tests/hostile/test_model_files.py checks): every family whose parameters
are computed from its saved data re-derives them on load, so an edited number with a
recomputed plain checksum is refused with a message naming the field, and the untouched file
loads. An attacker's edit: change the number, recompute the plain SHA-256 (anyone can).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.formula import schema
from evstat.formula.schema import SchemaError


def _data(n: int = 90, seed: int = 1) -> pd.DataFrame:
    # the contract suite's data (tests/test_contract.py)
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    s1 = 1.0 / (1.0 + np.exp(-(1.2 * (z == 2) - 1.2 * (z == 0) + rng.normal(0, 1, n))))
    s2 = 1.0 / (1.0 + np.exp(-(1.5 * (z == 1) - 0.8 + rng.normal(0, 1, n))))
    return pd.DataFrame({"s1": s1, "s2": s2, "y2": np.where(z == 2, "pos", "neg"),
                         "y3": np.array(["lo", "mid", "hi"], dtype=object)[z]})


def _soft(d: pd.DataFrame, y: str) -> pd.DataFrame:
    levels = sorted(pd.unique(d[y]))
    return pd.DataFrame({lev: np.where(d[y] == lev, 1.0, 0.3) for lev in levels}, index=d.index)


FITS = {
    "eknn": lambda y, d: ev.eknn(f"{y} ~ s1 + s2", d, k=5),
    "eknn_fixed": lambda y, d: ev.eknn(f"{y} ~ s1 + s2", d, k=5, optimize=False),
    "eknn_partial": lambda y, d: ev.eknn(f"{y} ~ s1 + s2", d, k=5, label_masses=_soft(d, y)),
    "credal_knn": lambda y, d: ev.credal_knn(f"{y} ~ s1 + s2", d, k=5),
    "credal_knn_loo": lambda y, d: ev.credal_knn(f"{y} ~ s1 + s2", d, k=5, rho="loo"),
    "evnn": lambda y, d: ev.evnn(f"{y} ~ s1 + s2", d, prototypes=4, seed=1, maxiter=100),
    "normcal": lambda y, d: ev.normcal(f"{y} ~ s1", d),
    "isotonic": lambda y, d: ev.isotonic(f"{y} ~ s1", d),
    "evbinning": lambda y, d: ev.evbinning(f"{y} ~ s1 + s2", d, bins=3),
    "evbinning_quantile": lambda y, d: ev.evbinning(f"{y} ~ s1", d, bins=4, breaks="quantile"),
    "plr": lambda y, d: ev.plr(f"{y} ~ s1", d),
    "bayescal": lambda y, d: ev.bayescal(f"{y} ~ s1", d),
    "bayescal_gauss": lambda y, d: ev.bayescal(f"{y} ~ s1", d, density="gauss"),
    "bayescal_logit": lambda y, d: ev.bayescal(f"{y} ~ s1", d, transform="logit"),
    "avcal": lambda y, d: ev.avcal(f"{y} ~ s1", d),
    "venn_abers": lambda y, d: ev.venn_abers(f"{y} ~ s1", d),
    "venn_abers_inductive": lambda y, d: ev.venn_abers(f"{y} ~ s1 + s2", d),
    "venn_abers_cross": lambda y, d: ev.venn_abers(f"{y} ~ s1 + s2", d, method="cross", n_splits=3),
}
BINARY_ONLY = {"normcal", "isotonic", "evbinning", "evbinning_quantile", "plr", "bayescal", "bayescal_gauss",
               "bayescal_logit", "avcal", "venn_abers", "venn_abers_inductive", "venn_abers_cross"}


def _plr_weights_and_objective(d: dict) -> None:
    """A PLR weight moved and the objective recomputed to match it: only the gradient is left."""
    from evstat.calibration._plr import plr_objective
    from evstat.likelihood import platt_targets

    data = _data()
    y = (data["y2"] == "pos").to_numpy(dtype=float)
    d["weights"][2] += 0.05
    d["objective"] = plr_objective(d["weights"], data["s1"].to_numpy(), platt_targets(y), d["knots"], d["penalty"])


def _mul(key: str, i: int, factor: float):
    def edit(d: dict) -> None:
        d[key][i] *= factor
    return edit


def _swap(key: str):
    """Exchange the values of the first two classes (a class swap of the parameters)."""
    def edit(d: dict) -> None:
        d[key][0], d[key][1] = d[key][1], d[key][0]
    return edit


def _set(key: str, value):
    def edit(d: dict) -> None:
        d[key] = value
    return edit


def _move_count(d: dict) -> None:
    """One positive moved from one cell to another: the sums (checked by the schema) stay."""
    k, n = d["k"], d["n"]
    src = next(i for i, v in enumerate(k) if v > 0)
    dst = next(i for i in range(len(k)) if i != src and k[i] < n[i])
    k[src] -= 1
    k[dst] += 1


# (family, edit, the field the message must name)
CASES = [
    ("eknn", _mul("gamma", 0, 1.02), r"gamma\[0\]"),
    ("eknn", _swap("gamma"), r"gamma\[\d\]"),
    ("eknn", _set("cost", 0.01), "whose cost "),
    ("eknn", _set("loo_error", 0.0), "loo_error"),
    ("eknn_fixed", _mul("gamma", 1, 1.5), "gamma is not"),
    ("eknn_partial", _mul("gamma", 0, 1.05), r"gamma\[0\]"),
    ("credal_knn", _mul("dbar", 0, 1.001), r"dbar\[0\]"),
    ("credal_knn", _swap("dbar"), r"dbar\[0\]"),
    ("credal_knn", _set("loo_error", 0.0), "loo_error"),
    ("credal_knn_loo", lambda d: d.__setitem__("rho", 5.0 if d["rho"] != 5.0 else 2.0), "rho"),
    ("evnn", lambda d: d["W"][0].__setitem__(0, d["W"][0][0] + 0.1), r"parameters \(W, gamma, beta, eta\)"),
    ("evnn", _mul("eta", 1, 0.5), r"parameters \(W, gamma, beta, eta\)"),
    ("evnn", _set("cost_init", 0.001), "cost_init"),
    ("normcal", _set("scale", 0.5), "scale"),
    ("isotonic", _move_count, r"count k of block"),
    ("isotonic", _mul("score_max", 0, 1.0001), r"score_max of block 0"),
    ("evbinning", _move_count, r"count k of cell"),
    ("evbinning", lambda d: d["cuts"][0].__setitem__(0, d["cuts"][0][0] + 0.01), "(count . of cell|cuts of axis 's1')"),
    ("evbinning", lambda d: d["ranges"][1].__setitem__(0, d["ranges"][1][0] - 0.01), "ranges of axis 's2'"),
    ("evbinning_quantile", lambda d: d["cuts"][0].__setitem__(1, d["cuts"][0][1] + 1e-9), "cuts of axis 's1'"),
    ("plr", lambda d: d["weights"].__setitem__(0, d["weights"][0] + 0.05), "objective"),
    ("plr", _plr_weights_and_objective, "weights"),
    ("plr", lambda d: d["knots"].__setitem__(1, d["knots"][1] + 1e-6), "knots"),
    ("plr", lambda d: d["knots"].__setitem__(0, d["knots"][0] - 0.01), "knots"),
    ("plr", _set("n_pairs", 3), "n_pairs"),
    ("bayescal", lambda d: _mul("mode", 1, 1.01)(d["params"]), r"params\.mode"),
    ("bayescal", lambda d: _swap("prior")(d["params"]), r"params\.prior"),
    ("bayescal", lambda d: _mul("gamma", 0, 1.2)(d["params"]), r"params\.gamma"),
    ("bayescal_gauss", lambda d: _mul("sd", 0, 1.01)(d["params"]), r"params\.sd"),
    ("bayescal_gauss", lambda d: _swap("mean")(d["params"]), r"params\.mean"),
    ("bayescal_logit", _set("n_moved", 2), "n_moved"),
    ("avcal", _set("scale", 0.5), "scale"),
    ("avcal", lambda d: _mul("p_t", 1, 0.99)(d["partitions"]), r"partitions\.positive\.p_t"),
    ("avcal", lambda d: _mul("n_a", 1, 1.01)(d["partitions"]), r"partitions\.positive\.n_a"),
    ("avcal", lambda d: d["partitions"]["n_opt"].__setitem__(1, d["partitions"]["n_opt"][1] + 1.0),
     r"partitions\.positive\.objective"),
    ("avcal", lambda d: d["partitions"]["n_opt"].__setitem__(1, 1e6), r"partitions\.positive\.n_opt"),
    ("venn_abers", lambda d: d["c"].__setitem__(3, d["c"][3] + 1e-9), "whose c "),
    ("venn_abers", lambda d: d["p1"].__setitem__(2, 1.0), "whose p1 "),
    ("venn_abers_inductive", lambda d: d["coef"][1].__setitem__(0, d["coef"][1][0] + 0.2), r"coef\[1\]"),
    ("venn_abers_inductive", lambda d: d["cal_rows"][0].__setitem__(0, d["cal_rows"][0][0] + 1), r"cal_rows\[0\]"),
    ("venn_abers_cross", _mul("intercept", 2, 1.5), r"coef\[2\]"),
    ("venn_abers_cross", lambda d: d.__setitem__("cal_rows", [d["cal_rows"][1], d["cal_rows"][0], d["cal_rows"][2]]),
     r"cal_rows\[0\]"),
]


def _ids(case) -> str:
    family, _, field = case
    return f"{family}-{field}"


def _save(family: str, y: str, tmp_path: Path):
    fit = FITS[family](y, _data())
    return fit, fit.save(tmp_path / f"{family}.json")


@pytest.mark.parametrize("family,edit,field", CASES, ids=[_ids(c) for c in CASES])
def test_an_edited_parameter_with_recomputed_checksum_is_refused(family, edit, field, tmp_path):
    y = "y2" if family in BINARY_ONLY else "y3"
    fit, path = _save(family, y, tmp_path)
    d = json.loads(path.read_text())
    edit(d)
    d["checksum"] = schema.checksum(d)  # what any attacker can do
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(d))
    with pytest.raises(SchemaError, match=field) as err:
        ev.load(edited)
    assert "is not what the fit gives on its saved data" in str(err.value)
    assert "edited after it was fitted" in str(err.value)
    # the untouched file loads and predicts as the fit
    back = ev.load(path)
    new = _data(7, 2)
    pd.testing.assert_frame_equal(pd.DataFrame(back.predict(new, type="belief")), pd.DataFrame(fit.predict(new, type="belief")))


@pytest.mark.parametrize(
    "family,y", [(f, y) for f in sorted(FITS) for y in ("y2", "y3") if y == "y2" or f not in BINARY_ONLY]
)
def test_genuine_files_load(family, y, tmp_path):
    """Every genuine fit passes its own re-verification, on other data too (no false alarm)."""
    for seed in (3, 4):
        fit = FITS[family](y, _data(70 + 20 * seed, seed))
        assert ev.load(fit.save(tmp_path / f"{seed}.json")).method == fit.method


def test_gbt_has_nothing_estimated_to_verify(tmp_path):
    """gbt stores its training rows and its radius (a setting): predictions are counts in the
    saved rows, so there is no estimate to re-derive; a changed radius is a different,
    consistent model that only a signature can catch."""
    fit = ev.gbt("y3 ~ s1 + s2", _data())
    path = fit.save(tmp_path / "gbt.json", key="a secret of at least 16 bytes")
    d = json.loads(path.read_text())
    d["radius"] = 0.5
    d["checksum"] = schema.checksum(d)
    path.write_text(json.dumps(d))
    assert ev.load(path).radius == 0.5
    with pytest.raises(SchemaError, match="signature that does not match"):
        ev.load(path, key="a secret of at least 16 bytes")


def test_a_consistent_relabelling_is_caught_only_by_the_signature(tmp_path):
    """Swapping the class labels of a K-NN model (levels reversed, codes and parameters kept) is
    the fit of a relabelled data set: self-consistent, so it loads; signed, it is refused."""
    fit = ev.credal_knn("y2 ~ s1 + s2", _data(), k=5)
    path = fit.save(tmp_path / "fit.json", key="a secret of at least 16 bytes")
    d = json.loads(path.read_text())
    cf = d["class_frame"]
    cf["levels"] = list(reversed(cf["levels"]))
    if "positive" in cf:
        cf["positive"] = cf["levels"][1]
    d["checksum"] = schema.checksum(d)
    path.write_text(json.dumps(d))
    with pytest.raises(SchemaError, match="signature that does not match"):
        ev.load(path, key="a secret of at least 16 bytes")


def test_relabelled_rows_are_caught(tmp_path):
    """Changing the class of saved training rows (the codes) moves gamma off its optimum."""
    fit = ev.eknn("y3 ~ s1 + s2", _data(), k=5)
    path = fit.save(tmp_path / "fit.json")
    d = json.loads(path.read_text())
    codes = d["class_frame"]["codes"]
    for i in range(0, len(codes), 3):
        codes[i] = (codes[i] + 1) % 3
    d["checksum"] = schema.checksum(d)
    path.write_text(json.dumps(d))
    with pytest.raises(SchemaError, match=r"(gamma\[\d\]|cost|loo_error)"):
        ev.load(path)


def test_the_eknn_optimiser_ends_at_a_stationary_point():
    """The load check's premise: a converged EkNN fit has a free gradient of at most
    STOP_GRADIENT. On this data set L-BFGS-B's relative-decrease rule stopped its first stage
    early (gradient 1.6e-3, cost 0.12768); the descent now continues with a new stage."""
    from evstat.classifiers._eknn import eknn_loo_cost
    from evstat.classifiers._gamma import STOP_GRADIENT
    from evstat.classifiers.neighbors import knn

    fit = ev.eknn("y2 ~ s1 + s2", _data(120, 1), k=5)
    cf = fit.class_frame
    idx, d2 = knn(cf.X, cf.X, 5, exclude_self=True)
    cost, g = eknn_loo_cost(np.log(fit.gamma.to_numpy()), cf.codes[idx], d2, cf.codes, fit.alpha, fit.lam)
    assert fit.converged and np.max(np.abs(g)) <= STOP_GRADIENT
    assert cost == pytest.approx(fit.cost) and cost < 0.12768 - 1e-3


def test_disjoint_checks_each_calibrator(tmp_path):
    """ev.disjoint nests one calibrator per score column: each runs its own load check."""
    fit = ev.disjoint("y2 ~ s1 + s2", _data(), method="isotonic")
    path = fit.save(tmp_path / "fit.json")
    assert ev.load(path).method == "disjoint"
    d = json.loads(path.read_text())
    _move_count(d["calibrators"][1])
    d["checksum"] = schema.checksum(d)
    path.write_text(json.dumps(d))
    with pytest.raises(SchemaError, match=r"\(calibrators\[1\]\) holds a isotonic model whose count k of block"):
        ev.load(path)


def _ecoc_data(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    d = pd.DataFrame({f"s_{k}": rng.normal(0, 1, n) + 2 * (z == i) for i, k in enumerate("abc")})
    d["y"] = np.array(["a", "b", "c"])[z]
    return d


def _flip_first_label(d: dict) -> None:
    y = d["calibrators"][1]["model_frame"]["y"]
    y[0] = 1 - y[0]


@pytest.mark.parametrize(
    "calibrator,edit,field",
    [
        ("evlogit", lambda d: d["weights"].__setitem__(0, d["weights"][0] + 1), r"weights\[0\]"),
        ("normcal", _flip_first_label, r"calibrators\[1\]"),
        ("bayescal", lambda d: _mul("prior", 0, 1.01)(d["calibrators"][2]["params"]), r"params\.prior"),
        ("plr", lambda d: d["calibrators"][0]["weights"].__setitem__(1, d["calibrators"][0]["weights"][1] + 0.05), "objective"),
    ],
)
def test_ecoc_checks_its_tasks_and_their_models(calibrator, edit, field, tmp_path):
    """ecoc: task weights are the tasks' row counts, each task model was fitted on its task's rows,
    and each task model passes its own family's check (the message names the task model)."""
    fit = ev.ecoc("y ~ s_a + s_b + s_c", _ecoc_data(), calibrator=calibrator)
    path = fit.save(tmp_path / "ecoc.json")
    assert ev.load(path).method == "ecoc"
    d = json.loads(path.read_text())
    edit(d)
    d["checksum"] = schema.checksum(d)
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(d))
    with pytest.raises(SchemaError, match=field) as err:
        ev.load(edited)
    assert "is not what the fit gives on its saved data" in str(err.value)


@pytest.mark.parametrize(
    "combine,edit,field",
    [
        ("gmean", lambda d: _mul("alpha", 0, 1.01)(d), "alpha"),
        ("prod", lambda d: _swap("beta")(d), "beta"),
        ("gmean", lambda d: _mul("scale", 1, 1.5)(d), "scale"),
        ("gtrim", lambda d: _swap("prior")(d), "prior"),
        ("gmean", lambda d: d.__setitem__("m", 10**6), "m"),
    ],
)
def test_gebel_dirichlet_checks_its_moments(combine, edit, field, tmp_path):
    """gebel_dirichlet: scale, the Beta moments, the class shares and m's range are derived again
    from the saved rows."""
    d0 = _ecoc_data(150, 3)
    fit = ev.gebel_dirichlet("y ~ s_a + s_b + s_c", d0, combine=combine, m_search="refine")
    path = fit.save(tmp_path / "gd.json")
    assert ev.load(path).m == fit.m
    d = json.loads(path.read_text())
    edit(d)
    d["checksum"] = schema.checksum(d)
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(d))
    with pytest.raises(SchemaError, match=field) as err:
        ev.load(edited)
    assert "is not what the fit gives on its saved data" in str(err.value)
