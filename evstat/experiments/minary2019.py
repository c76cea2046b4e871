"""Reproduction of the experiments of Minary et al. (2019), section 5: :func:`run_minary2019`.

Three parts, each repeated for ``rounds`` random partitions (default 100):

1. **Ensemble study** (section 5.2-5.3, Figs. 4 and 6), file ``error_rates.csv``. For each data
   set and #Train3 size of Table 2 (:data:`evstat.experiments.partition.TABLE2`): three SVMs on
   the SVM halves of three training sets, the methods of :mod:`evstat.experiments.methods`
   fitted on the calibration halves, error rates on the test set. One row per round, data set,
   size and method.
2. **Reject curves** (section 5.4, Figs. 9-10), file ``reject_curves.csv``. Three SVMs on 30 rows
   each, evidential joint logistic calibration on 45 rows and on 15 of them (nested), 100 test
   rows (Sonar 50); error rate and accuracy of the pessimistic, optimistic and probabilistic
   strategies for reject costs R_rej = 0, 0.025, ..., 1 (stored as counts: ``n_decided``,
   ``n_errors``; the optimistic and probabilistic strategies only up to R_rej = 0.5, beyond which
   they reject nothing, so their curve ends there).
3. **Reject at R_rej = 0.15** (section 5.4, Fig. 8), file ``reject_015.csv``: fresh simulated
   data each round (the paper's 3 x 30 SVM rows + 200 calibration rows + 100 test rows = 390
   exceed the 360 rows of the simulated data set, and the paper says the rows were "generated"),
   calibration on 200 and on 15 of them.

Fig. 7 (decision frontiers in the feature space, one realisation) is drawn by the report.

Data sets: sonar, ionosphere, pima (the paper's Diabetes), heart, australian, wdbc (a seventh
data set, not in the paper; sizes in ``TABLE2``) and ``simulated``: 360 rows of
:func:`evstat.datasets.simulate_gaussian` (180 per class), drawn once per study from the seed.
Positive classes as in ``data/make_scores.py``: sonar ``M``, ionosphere ``bad``, pima ``pos``,
heart ``present``, wdbc ``malignant``; australian ``1``.

Settings (in ``study.json``; a folder holds one setting): ``svm`` (``"default"``: C = 1,
gamma = "scale"; ``"tuned"``: C and gamma by cross-validation on each SVM's own training rows,
:func:`evstat.experiments.ensemble.tune_svm`) and ``tie`` (the tie policy of every method's
decisions without reject, :func:`evstat.experiments.methods.method_errors`: ``"random"``, the
default, draws from the round's own seed sequence; ``"first"`` gives class 0).

Randomness and parallelism: every (part, data set, round) unit draws from its own
``numpy.random.SeedSequence(seed, spawn_key=(part, data set, round))``, so results do not depend
on the order in which units run, on ``jobs``, on which data sets are selected, or on
interruptions. Units run in parallel with joblib; each unit's rows are appended to its CSV as
soon as it finishes and the unit is entered into the folder's completion record
(:mod:`evstat.experiments.store`: its row count and the SHA-256 of its rows). A rerun skips only
the units whose rows are complete and match the record; any other unit (rows missing, cut short,
edited, or appended without their record entry) is removed and recomputed, and an unreadable
``study.json`` starts the folder over. When all units are done, the CSVs are rewritten in
canonical order, so an interrupted-and-resumed run, or a run with ``jobs = 2``, gives the same
files as an uninterrupted run with ``jobs = 1``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat.experiments.ensemble import SVM_C, SVM_GAMMA, SVM_SETTINGS, fit_svm, score_table
from evstat.experiments.methods import TIES, available_methods, method_errors, predict_methods
from evstat.experiments.minary_design import (
    CURVE_CAL_SIZES,
    DATASET_ID,
    DATASETS,
    FIG8_CAL_SIZES,
    FIG8_REJECT_COST,
    seed_sequence,
)
from evstat.experiments.partition import TABLE2, ensemble_partitions, reject_partition
from evstat.experiments.store import Store, read_rows, read_settings, study_folder
from evstat.io.atomic import open_append, write_text

__all__ = [
    "DATASETS",
    "FIG8_REJECT_COST",
    "POSITIVE",
    "REJECT_COSTS",
    "StudyResults",
    "curves_round",
    "dataset_arrays",
    "ensemble_round",
    "fig8_round",
    "frontiers",
    "load_results",
    "run_minary2019",
]

STUDY = "minary2019"

POSITIVE: dict[str, tuple[str, Any]] = {
    "sonar": ("Class", "M"),
    "ionosphere": ("Class", "bad"),
    "pima": ("diabetes", "pos"),
    "heart": ("Class", "present"),
    "australian": ("Class", 1),
    "wdbc": ("Class", "malignant"),
    "simulated": ("y", 1),
}
"""Data set -> (class column, label coded 1), as ``data/make_scores.py``."""

SIMULATED_N = 360
from evstat.metrics.evidential import DECISION_STRATEGIES as STRATEGIES  # noqa: E402  (Minary et al.'s three)
REJECT_COSTS: NDArray[np.float64] = np.round(np.linspace(0.0, 1.0, 41), 3)
"""R_rej grid of the reject curves (steps of 0.025)."""
SVM_SIZES = (30, 30, 30)
FORMULA = "y ~ svm1 + svm2 + svm3"


FILES = {"ensemble": "error_rates.csv", "curves": "reject_curves.csv", "fig8": "reject_015.csv"}
KEYS = {
    "ensemble": ["dataset", "round", "train3", "method"],
    "curves": ["dataset", "round", "n_cal", "strategy", "reject_cost"],
    "fig8": ["round", "n_cal", "strategy"],
}
COLUMNS = {
    "ensemble": ["round", "dataset", "train3", "n_cal", "method", "n_test", "n_errors", "error_rate", "n_ties",
                 "note"],
    "curves": ["round", "dataset", "n_cal", "strategy", "reject_cost", "n_test", "n_decided", "n_errors", "note"],
    "fig8": ["round", "n_cal", "strategy", "reject_cost", "n_test", "n_decided", "n_errors", "error_rate",
             "accuracy", "reject_rate", "note"],
}
_TEXT = {"dataset", "method", "strategy", "note"}
#: columns that must hold numbers (a cell may be empty where a method failed)
NUMERIC = {part: [c for c in cols if c not in _TEXT] for part, cols in COLUMNS.items()}
#: columns whose cells may never be empty: a row without one is incomplete
REQUIRED = {part: [*KEYS[part], "n_test"] for part in COLUMNS}


def _rng(seed: int, part: str, dataset: str | None = None, round_: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed_sequence(seed, part, dataset, round_))


@lru_cache(maxsize=16)
def dataset_arrays(name: str, seed: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Features ``X`` and 0/1 classes ``y`` of a data set (``seed`` only used by ``"simulated"``).

    Examples
    --------
    >>> X, y = dataset_arrays("sonar", 2019)
    >>> X.shape, int(y.sum())
    ((208, 60), 111)
    """
    import evstat.datasets as evd

    if name not in POSITIVE:
        raise ValueError(f"unknown data set {name!r}; choose from {', '.join(DATASETS)}")
    column, positive = POSITIVE[name]
    if name == "simulated":
        frame = evd.simulate_gaussian(SIMULATED_N, seed=_rng(seed, "simulated_data"))
    else:
        frame = evd.load(name)
    y = (frame[column].to_numpy() == positive).astype(np.int64)
    X = frame.drop(columns=[column]).to_numpy(dtype=float)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def _scores(models: Sequence[Any], X: NDArray, y: NDArray, rows: NDArray) -> pd.DataFrame:
    s = np.column_stack([m.decision_function(X[rows]) for m in models])
    return score_table(s, y[rows], rows)


# ------------------------------------------------------------------------------ the units
def ensemble_round(dataset: str, round_: int, seed: int, methods: Sequence[str] | None = None,
                   svm: str = "default", tie: str = "random") -> pd.DataFrame:
    """One round of the ensemble study (Figs. 4, 6) on one data set: rows of ``error_rates.csv``.

    ``svm`` is the SVM setting (:data:`evstat.experiments.ensemble.SVM_SETTINGS`), ``tie`` the
    tie policy of the decisions (:data:`evstat.experiments.methods.TIES`); random ties of
    #Train3 size ``t`` draw from ``SeedSequence(seed, spawn_key=(6, data set, round, t))``.

    Examples
    --------
    >>> df = ensemble_round("sonar", 0, 2019, methods=["joint_logistic_prob"])
    >>> df[["train3", "n_cal", "n_test"]].values.tolist()
    [[10, 35, 58], [50, 55, 58], [90, 75, 58]]
    >>> df["n_ties"].tolist()
    [0.0, 0.0, 0.0]
    """
    methods = available_methods() if methods is None else list(methods)
    X, y = dataset_arrays(dataset, seed)
    parts = ensemble_partitions(y, TABLE2[dataset], _rng(seed, "ensemble", dataset, round_))
    first = parts[min(parts)]
    svm12 = [fit_svm(X[first.svm[j]], y[first.svm[j]], svm) for j in (0, 1)]
    ties = seed_sequence(seed, "ties", dataset, round_)
    frames = []
    for t in sorted(parts):
        p = parts[t]
        models = [*svm12, fit_svm(X[p.svm[2]], y[p.svm[2]], svm)]
        halves = [_scores(models, X, y, rows) for rows in p.cal]
        test = _scores(models, X, y, p.test)
        tseed = np.random.SeedSequence(ties.entropy, spawn_key=(*ties.spawn_key, int(t)))
        err = method_errors(test["y"].to_numpy(), predict_methods(halves, test, methods), tie=tie, seed=tseed)
        err.insert(0, "round", int(round_))
        err.insert(1, "dataset", dataset)
        err.insert(2, "train3", int(t))
        err.insert(3, "n_cal", int(sum(len(h) for h in halves)))
        frames.append(err)
    return pd.concat(frames, ignore_index=True)[COLUMNS["ensemble"]]


def _evlogit_belief(cal: pd.DataFrame, test: pd.DataFrame) -> tuple[pd.DataFrame | None, str]:
    import evstat as ev

    try:
        return ev.evlogit(FORMULA, cal).predict(test, type="belief"), ""
    except (ValueError, RuntimeError, ArithmeticError, np.linalg.LinAlgError) as err:
        return None, f"failed: {type(err).__name__}: {' '.join(str(err).split())[:300]}"


def curves_round(dataset: str, round_: int, seed: int, costs: Sequence[float] | None = None,
                 svm: str = "default") -> pd.DataFrame:
    """One round of the reject-curve study (Figs. 9-10) on one data set: rows of ``reject_curves.csv``.

    Examples
    --------
    >>> df = curves_round("sonar", 0, 2019, costs=[0.15, 1.0])
    >>> df.groupby("n_cal").size().to_dict(), int(df["n_test"].iloc[0])
    ({15: 4, 45: 4}, 50)
    """
    from evstat.metrics import reject_curve

    cs = REJECT_COSTS if costs is None else np.asarray(costs, dtype=float)
    X, y = dataset_arrays(dataset, seed)
    test_size = 50 if dataset == "sonar" else 100
    p = reject_partition(y, _rng(seed, "curves", dataset, round_), SVM_SIZES, CURVE_CAL_SIZES, test_size)
    models = [fit_svm(X[rows], y[rows], svm) for rows in p.svm]
    test = _scores(models, X, y, p.test)
    frames = []
    for n in CURVE_CAL_SIZES:
        b, note = _evlogit_belief(_scores(models, X, y, p.cal[n]), test)
        if b is None:
            curve = pd.DataFrame(
                [(s, c, np.nan, np.nan) for s in STRATEGIES for c in cs],
                columns=["strategy", "reject_cost", "error_rate", "reject_rate"],
            )
        else:
            curve = reject_curve(test["y"], b["bel"], b["pl"], p=b["theta"], costs=cs, strategies=STRATEGIES)
        # the optimistic and probabilistic strategies reject nothing from R_rej = 0.5 on (their
        # chosen cost is at most 1/2), so their rows beyond 0.5 would repeat the 0.5 row
        curve = curve[(curve["strategy"] == "pessimistic") | (curve["reject_cost"] <= 0.5)]
        nt = len(test)
        frames.append(pd.DataFrame({
            "round": int(round_), "dataset": dataset, "n_cal": int(n), "strategy": curve["strategy"],
            "reject_cost": curve["reject_cost"], "n_test": nt,
            "n_decided": np.round(nt * (1.0 - curve["reject_rate"].to_numpy())),
            "n_errors": np.round(nt * curve["error_rate"].to_numpy()), "note": note,
        }))
    return pd.concat(frames, ignore_index=True)[COLUMNS["curves"]]


def fig8_round(round_: int, seed: int, svm: str = "default") -> pd.DataFrame:
    """One round of the R_rej = 0.15 study (Fig. 8): fresh simulated data, rows of ``reject_015.csv``.

    Examples
    --------
    >>> df = fig8_round(0, 2019)
    >>> df[["n_cal", "strategy"]].values.tolist()[:3]
    [[200, 'pessimistic'], [200, 'optimistic'], [200, 'probabilistic']]
    """
    import evstat as ev
    from evstat.metrics import decide_binary, decision_metrics

    rng = _rng(seed, "fig8", "simulated", round_)
    n = sum(SVM_SIZES) + max(FIG8_CAL_SIZES) + 100
    data = ev.datasets.simulate_gaussian(n, seed=rng)
    X, y = data[["x1", "x2"]].to_numpy(), data["y"].to_numpy()
    p = reject_partition(y, rng, SVM_SIZES, FIG8_CAL_SIZES, 100)
    models = [fit_svm(X[rows], y[rows], svm) for rows in p.svm]
    test = _scores(models, X, y, p.test)
    rows = []
    for nc in FIG8_CAL_SIZES:
        b, note = _evlogit_belief(_scores(models, X, y, p.cal[nc]), test)
        for s in STRATEGIES:
            if b is None:
                m = pd.Series({"n": len(test), "n_decided": np.nan, "n_errors": np.nan, "error_rate": np.nan,
                               "accuracy": np.nan, "reject_rate": np.nan})
            else:
                d = decide_binary(b["bel"], b["pl"], s, FIG8_REJECT_COST, p=b["theta"])
                m = decision_metrics(test["y"], d)
            rows.append({"round": int(round_), "n_cal": int(nc), "strategy": s, "reject_cost": FIG8_REJECT_COST,
                         "n_test": int(m["n"]), "n_decided": m["n_decided"], "n_errors": m["n_errors"],
                         "error_rate": m["error_rate"], "accuracy": m["accuracy"], "reject_rate": m["reject_rate"],
                         "note": note})
    return pd.DataFrame(rows, columns=COLUMNS["fig8"])


@dataclass
class Frontiers:
    """Fig. 7: decisions on a grid of the feature space for each calibration size and strategy."""

    x1: NDArray[np.float64]
    x2: NDArray[np.float64]
    decisions: dict[tuple[int, str], NDArray[np.int64]]  # (n_cal, strategy) -> (len(x2), len(x1)), 0/1/2=reject
    cal: dict[int, pd.DataFrame]  # n_cal -> calibration rows: x1, x2, y
    reject_share: dict[tuple[int, str], float] = field(default_factory=dict)


def frontiers(seed: int, grid: int = 121, reject_cost: float = FIG8_REJECT_COST, svm: str = "default") -> Frontiers:
    """Fig. 7: decision regions in the feature space of the simulated data at R_rej = 0.15.

    290 simulated rows: three SVMs on 30 rows each and the joint logistic calibration on the
    remaining 200 rows, then on 15 of them. Every point of a ``grid x grid`` lattice of the
    feature space is scored by the SVMs, calibrated, and decided with each strategy.

    Examples
    --------
    >>> f = frontiers(2019, grid=11)
    >>> f.decisions[(15, "pessimistic")].shape
    (11, 11)
    """
    import evstat as ev
    from evstat.metrics import decide_binary

    rng = _rng(seed, "fig7")
    n = sum(SVM_SIZES) + max(FIG8_CAL_SIZES)
    data = ev.datasets.simulate_gaussian(n, seed=rng)
    X, y = data[["x1", "x2"]].to_numpy(), data["y"].to_numpy()
    p = reject_partition(y, rng, SVM_SIZES, FIG8_CAL_SIZES, 0)
    models = [fit_svm(X[rows], y[rows], svm) for rows in p.svm]
    x1 = np.linspace(-4.5, 4.5, grid)
    x2 = np.linspace(-3.5, 4.5, grid)
    g1, g2 = np.meshgrid(x1, x2)
    G = np.column_stack([g1.ravel(), g2.ravel()])
    gs = pd.DataFrame({f"svm{j + 1}": m.decision_function(G) for j, m in enumerate(models)})
    out = Frontiers(x1=x1, x2=x2, decisions={}, cal={})
    for nc in FIG8_CAL_SIZES:
        rows = p.cal[nc]
        cal = _scores(models, X, y, rows)
        out.cal[nc] = pd.DataFrame({"x1": X[rows, 0], "x2": X[rows, 1], "y": y[rows]})
        b = ev.evlogit(FORMULA, cal).predict(gs, type="belief")
        for s in STRATEGIES:
            d = decide_binary(b["bel"], b["pl"], s, reject_cost, p=b["theta"])
            code = np.array([2 if v == "reject" else int(v) for v in d], dtype=np.int64).reshape(g1.shape)
            out.decisions[(nc, s)] = code
            out.reject_share[(nc, s)] = float(np.mean(code == 2))
    return out


# ------------------------------------------------------------------------------ orchestration
@dataclass(frozen=True)
class Unit:
    part: str
    dataset: str
    round: int


def _run_unit(unit: Unit, seed: int, methods: tuple[str, ...], svm: str = "default", tie: str = "random") -> pd.DataFrame:
    if unit.part == "ensemble":
        return ensemble_round(unit.dataset, unit.round, seed, methods, svm=svm, tie=tie)
    if unit.part == "curves":
        return curves_round(unit.dataset, unit.round, seed, svm=svm)
    return fig8_round(unit.round, seed, svm=svm)


def _expected_rows(unit: Unit, methods: Sequence[str]) -> int:
    if unit.part == "ensemble":
        return len(TABLE2[unit.dataset].train3) * len(methods)
    if unit.part == "curves":
        return len(CURVE_CAL_SIZES) * (len(REJECT_COSTS) + 2 * int(np.sum(REJECT_COSTS <= 0.5)))
    return len(FIG8_CAL_SIZES) * len(STRATEGIES)


def _unit_of(part: str, dataset: str, round_: int) -> Unit:
    return Unit(part, dataset, int(round_))


def _read_csv(path: Path, part: str) -> pd.DataFrame | None:
    """The complete rows of a results CSV (:func:`evstat.experiments.store.read_rows`), or None
    for a file that is absent or cannot be trusted."""
    frame = read_rows(path, COLUMNS[part], required=REQUIRED[part], numeric=NUMERIC[part])
    if frame is not None:
        frame["note"] = frame["note"].astype(object).map(lambda v: v if pd.isna(v) else str(v))
    return frame


def _key(unit: Unit) -> str:
    return f"{unit.part}/{unit.dataset}/{unit.round}"


def _units_in(part: str, frame: pd.DataFrame) -> dict[Unit, pd.DataFrame]:
    if part == "fig8":
        return {_unit_of(part, "simulated", r): g for r, g in frame.groupby("round", sort=False)}
    return {_unit_of(part, d, r): g for (d, r), g in frame.groupby(["dataset", "round"], sort=False)}


def _settings(seed: int, methods: Sequence[str], svm: str = "default", tie: str = "random") -> dict[str, Any]:
    from evstat import __version__

    return {
        "study": STUDY,
        "seed": int(seed),
        "evstat_version": __version__,
        "methods": list(methods),
        "reject_costs": [float(c) for c in REJECT_COSTS],
        "svm": ({"setting": "default", "kernel": "rbf", "C": SVM_C, "gamma": SVM_GAMMA, "standardised": True}
                if svm == "default" else
                {"setting": "tuned", "kernel": "rbf", "standardised": True,
                 "C": "2^c, c in -5, -3, ..., 15 (LIBSVM grid.py)", "gamma": "2^g, g in 3, 1, ..., -15 (grid.py)",
                 "selection": "most rows correct in min(5, smaller class) stratified unshuffled folds; "
                              "ties to the smaller C, then the smaller gamma"}),
        "tie": tie,
        "table2": {k: {"train1": v.train1, "train2": v.train2, "train3": list(v.train3), "test": v.test}
                   for k, v in TABLE2.items()},
    }


_SETTINGS_FILE = "study.json"


#: the settings that determine a folder's rows (the completion record is bound to them)
_ROW_SETTINGS = ("study", "seed", "reject_costs", "svm", "tie", "table2")


def _check_settings(out: Path, settings: dict[str, Any]) -> tuple[list[dict[str, Any]], Store]:
    """Refuse a folder of another setting (its ``study.json``, then its completion record, which
    is bound to the settings that determine the rows: an edited ``study.json`` is caught there);
    write the settings; return the earlier runs' log and the folder's store."""
    path = out / _SETTINGS_FILE
    runs: list[dict[str, Any]] = []
    old = read_settings(path) if os.path.lexists(path) else None
    if old is not None:
        for key in _ROW_SETTINGS:
            if old.get(key) != settings[key]:
                raise ValueError(
                    f"{str(out)!r} holds results of a different study setting ({key}: "
                    f"{old.get(key)!r} there, {settings[key]!r} now): rerun with the same "
                    f"--seed to resume it, or choose a new --out folder"
                )
        runs = list(old.get("runs", []))
    # the record is bound to the settings that determine the rows: another seed is refused (issue 41)
    store = Store(out, settings={k: settings[k] for k in _ROW_SETTINGS})
    if os.path.lexists(path) and old is None and not store.bound:  # cut short or corrupt: rows tied to no setting
        store.reset(out / f for f in FILES.values())
    _write_settings(out, settings, runs)
    return runs, store


def _write_settings(out: Path, settings: dict[str, Any], runs: list[dict[str, Any]]) -> None:
    write_text(out / _SETTINGS_FILE, json.dumps({**settings, "runs": runs}, indent=1) + "\n", encoding="utf-8")


def _run_record(units: int, seconds: float, jobs: int, rounds: int, datasets: Sequence[str],
                command: str | None) -> dict[str, Any]:
    import datetime as dt

    from evstat.experiments.report import machine_info

    info = machine_info()
    return {
        "finished": dt.datetime.now().isoformat(timespec="seconds"), "units_run": int(units),
        "seconds": round(float(seconds), 1), "jobs": int(jobs), "rounds": int(rounds), "datasets": list(datasets),
        "command": command or "", "cores": info["cores"], "cpu": info["cpu"],
    }


def _canonical(part: str, frame: pd.DataFrame, methods: Sequence[str]) -> pd.DataFrame:
    f = frame.copy()
    f["_d"] = f["dataset"].map(DATASET_ID) if "dataset" in f else 0
    order = {"ensemble": ["_d", "round", "train3", "_m"], "curves": ["_d", "round", "_n", "_s", "reject_cost"],
             "fig8": ["round", "_n", "_s"]}[part]
    if part == "ensemble":
        f["_m"] = f["method"].map({m: i for i, m in enumerate(methods)}).fillna(len(methods))
    else:
        f["_n"] = -f["n_cal"]
        f["_s"] = f["strategy"].map({s: i for i, s in enumerate(STRATEGIES)})
    f = f.sort_values(order, kind="stable").drop(columns=[c for c in ("_d", "_m", "_n", "_s") if c in f])
    return f[COLUMNS[part]].reset_index(drop=True)


def _write_csv(frame: pd.DataFrame, path: Path, append: bool = False) -> None:
    header = not (append and path.exists() and path.stat().st_size > 0)
    text = frame.to_csv(index=False, header=header, float_format="%.10g", lineterminator="\n")
    if not append:  # a rewrite: atomic (evstat.io.atomic), the old file stays until the new one is complete
        write_text(path, text, encoding="utf-8", newline="")
        return
    # appended, not atomic: a cut tail is dropped by _read_csv, and the unit, not yet in the
    # completion record, is recomputed
    with open_append(path) as fh:  # no link followed, no special file opened (issue 41)
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


@dataclass
class StudyResults:
    """The results of :func:`run_minary2019` (also :func:`load_results`)."""

    out: Path
    seed: int
    rounds: int
    datasets: list[str]
    methods: list[str]
    error_rates: pd.DataFrame
    reject_curves: pd.DataFrame
    reject_015: pd.DataFrame
    seconds: float = float("nan")
    units_run: int = 0
    runs: list[dict[str, Any]] = field(default_factory=list)
    """The log of the runs that computed units in ``out`` (from ``study.json``)."""
    svm: str = "default"
    """The SVM setting."""
    tie: str = "random"
    """The tie policy."""

    def frontiers(self, grid: int = 121) -> Frontiers:
        """Fig. 7's decision frontiers for this study's seed and SVM setting (:func:`frontiers`)."""
        return frontiers(self.seed, grid=grid, svm=self.svm)


def _plan(rounds: int, datasets: Sequence[str]) -> list[Unit]:
    """Every unit, round by round (an interrupted run leaves whole early rounds)."""
    units = []
    for r in range(rounds):
        units += [Unit(part, d, r) for d in datasets for part in ("ensemble", "curves")]
        units.append(Unit("fig8", "simulated", r))
    return units


def _validate(rounds: Any, datasets: Any, seed: Any, jobs: Any) -> tuple[int, list[str], int, int]:
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise ValueError(f"rounds must be a positive integer (the paper uses 100), got {rounds!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or (jobs < 1 and jobs != -1):
        raise ValueError(f"jobs must be a positive integer, or -1 for every core, got {jobs!r}")
    ds = list(DATASETS) if datasets is None else list(datasets)
    if isinstance(datasets, str):
        ds = [datasets]
    bad = [d for d in ds if d not in DATASETS]
    if bad or not ds:
        raise ValueError(f"unknown data sets {bad}; choose from {', '.join(DATASETS)}")
    ds = [d for d in DATASETS if d in ds]  # canonical order, no duplicates
    return int(rounds), ds, int(seed), int(jobs)


def run_minary2019(
    out: str | Path,
    rounds: int = 100,
    datasets: Sequence[str] | None = None,
    seed: int = 2019,
    jobs: int = 1,
    quiet: bool = False,
    methods: Sequence[str] | None = None,
    report: bool = True,
    command: str | None = None,
    frontier_grid: int = 81,
    svm: str = "default",
    tie: str = "random",
    wait: bool = False,
    note: Callable[[str], None] | None = None,
) -> StudyResults:
    """Run (or resume) the reproduction of Minary et al. (2019), section 5, and write its report.

    Parameters
    ----------
    out : str or Path
        Output folder (created). Holds ``error_rates.csv``, ``reject_curves.csv``,
        ``reject_015.csv``, ``study.json`` (the settings), ``summary_error_rates.csv``,
        ``claims.csv`` and ``report.html``.
    rounds : int
        Random partitions per data set (the paper: 100).
    datasets : sequence of str, optional
        Subset of :data:`DATASETS` (default all). Fig. 7 and Fig. 8 use fresh simulated data and
        always run.
    seed : int
        Root seed (default 2019).
    jobs : int
        Parallel worker processes (joblib; -1: every core). Results do not depend on it.
    quiet : bool
        No progress bar.
    methods : sequence of str, optional
        Methods of the ensemble study (default: every available one).
    report : bool
        Write the summary tables, the claims and ``report.html`` (default True).
    command : str, optional
        The command line, printed in the report.
    frontier_grid : int
        Grid points per axis of Fig. 7 (its cost grows as the square).
    svm : {"default", "tuned"}
        SVM setting: C = 1 and gamma = "scale", or C and gamma tuned by cross-validation on each
        SVM's training rows (:func:`evstat.experiments.ensemble.tune_svm`).
    tie : {"random", "first"}
        Tie policy of every method's decisions without reject (random: from the round's seed).
    wait : bool
        If another run holds ``out``, wait for it to end (default: refuse,
        :class:`evstat.experiments.store.StudyBusyError`).
    note : callable, optional
        Receives one-line notes (waiting, a killed run's lock taken over).

    Returns
    -------
    StudyResults

    Notes
    -----
    The folder is the run's alone (:func:`evstat.experiments.store.study_folder`: no symbolic
    link or special file in it, one writer, no write through a link). The completion record is
    bound to the settings that determine the rows (study, seed, reject costs, SVM setting, tie
    policy, Table 2): a run with other settings is refused, even if ``study.json`` was edited.

    Examples
    --------
    >>> import tempfile
    >>> res = run_minary2019(tempfile.mkdtemp(), rounds=1, datasets=["sonar"], quiet=True,
    ...                      methods=["joint_logistic"], report=False)
    >>> res.error_rates.groupby("train3").size().to_dict()
    {10: 1, 50: 1, 90: 1}
    """
    from joblib import Parallel, delayed

    from evstat.io.workers import guarded
    from tqdm.auto import tqdm

    rounds, ds, seed, jobs = _validate(rounds, datasets, seed, jobs)
    meths = tuple(available_methods() if methods is None else methods)
    unknown = [m for m in meths if m not in available_methods()]
    if unknown or not meths:
        raise ValueError(f"unknown or unavailable methods {unknown}; choose from {available_methods()}")
    out = Path(out)
    if svm not in SVM_SETTINGS:
        raise ValueError(f"svm must be one of {SVM_SETTINGS}, got {svm!r}")
    if tie not in TIES:
        raise ValueError(f"tie must be one of {TIES}, got {tie!r}")
    with study_folder(out, wait=wait, note=note):
        settings = _settings(seed, meths, svm, tie)
        runs, store = _check_settings(out, settings)
        t0 = time.perf_counter()

        # what is done already: complete units that match the completion record (evstat.experiments.store)
        done: set[Unit] = set()
        for part, fname in FILES.items():
            frame = _read_csv(out / fname, part)
            if frame is None:  # absent, or not trusted at all
                (out / fname).unlink(missing_ok=True)
                continue
            keep = []
            for unit, g in _units_in(part, frame).items():
                ok = not g.duplicated(KEYS[part]).any() and (part != "ensemble" or set(g["method"]) == set(meths))
                if ok and store.is_done(_key(unit), g, COLUMNS[part], KEYS[part], expected=_expected_rows(unit, meths)):
                    if store.legacy:
                        store.adopt(_key(unit), g, COLUMNS[part], KEYS[part])
                    done.add(unit)
                    keep.append(g)
            kept = pd.concat(keep, ignore_index=True) if keep else frame.iloc[0:0]
            # the file keeps only the complete units: the others (and a cut tail) are recomputed
            _write_csv(kept[COLUMNS[part]], out / fname)
        store.forget(set(store.units) - {_key(u) for u in done})
        store.save()
        todo = [u for u in _plan(rounds, ds) if u not in done]

        if todo:
            runner = Parallel(n_jobs=jobs, return_as="generator")
            results = runner(delayed(guarded(_run_unit))(u, seed, meths, svm, tie) for u in todo)
            with tqdm(total=len(todo), disable=quiet, desc=STUDY, unit="unit", dynamic_ncols=True) as bar:
                for unit, frame in zip(todo, results, strict=True):
                    rows = frame[COLUMNS[unit.part]]
                    _write_csv(rows, out / FILES[unit.part], append=True)
                    store.mark(_key(unit), rows, COLUMNS[unit.part], KEYS[unit.part])
                    bar.update(1)
        seconds = time.perf_counter() - t0
        if todo:
            runs.append(_run_record(len(todo), seconds, jobs, rounds, ds, command))
            _write_settings(out, settings, runs)

        frames = {}
        for part, fname in FILES.items():
            frame = _read_csv(out / fname, part)
            frame = pd.DataFrame(columns=COLUMNS[part]) if frame is None else frame
            frame = _canonical(part, frame, meths)
            _write_csv(frame, out / fname)
            frames[part] = frame
        res = StudyResults(
            out=out, seed=seed, rounds=rounds, datasets=ds, methods=list(meths),
            error_rates=_select(frames["ensemble"], rounds, ds), reject_curves=_select(frames["curves"], rounds, ds),
            reject_015=frames["fig8"][frames["fig8"]["round"] < rounds].reset_index(drop=True),
            seconds=seconds, units_run=len(todo), runs=runs, svm=svm, tie=tie,
        )
        if report:
            from evstat.experiments.report import write_outputs

            write_outputs(res, command=command, frontier_grid=frontier_grid)
        return res


def _select(frame: pd.DataFrame, rounds: int, datasets: Iterable[str]) -> pd.DataFrame:
    sel = frame["round"].lt(rounds) & frame["dataset"].isin(list(datasets))
    return frame[sel].reset_index(drop=True)


def load_results(out: str | Path, rounds: int | None = None, datasets: Sequence[str] | None = None) -> StudyResults:
    """Read the CSVs of a finished run (e.g. ``reports/minary2019/svm-default``) back into :class:`StudyResults`.

    Parameters
    ----------
    out : str or Path
        The run's folder.
    rounds, datasets : optional
        Restrict to the first ``rounds`` rounds and to these data sets (default: all present).

    Examples
    --------
    >>> import tempfile
    >>> from evstat.experiments.claims import claims_frame, claims_table
    >>> d = tempfile.mkdtemp()
    >>> _ = run_minary2019(d, rounds=1, datasets=["heart"], quiet=True, methods=["joint_binning"],
    ...                    report=False)
    >>> res = load_results(d)
    >>> res.rounds, res.datasets, len(res.error_rates), res.runs[0]["units_run"]
    (1, ['heart'], 4, 3)
    >>> claims_frame(claims_table(res))["verdict"].unique().tolist()
    ['inconclusive']
    """
    out = Path(out)
    settings = read_settings(out / _SETTINGS_FILE)
    if settings is None:
        raise ValueError(f"{str(out / _SETTINGS_FILE)!r} is absent or cannot be read: {str(out)!r} is not a finished "
                         "minary2019 run; run the study again with the same --out to complete it")
    frames = {}
    for part, fname in FILES.items():
        f = _read_csv(out / fname, part)
        frames[part] = pd.DataFrame(columns=COLUMNS[part]) if f is None else f
    r = int(frames["ensemble"]["round"].max()) + 1 if rounds is None else int(rounds)
    ds = [d for d in DATASETS if d in set(frames["ensemble"]["dataset"])] if datasets is None else list(datasets)
    return StudyResults(
        out=out, seed=int(settings["seed"]), rounds=r, datasets=ds, methods=list(settings["methods"]),
        error_rates=_select(frames["ensemble"], r, ds), reject_curves=_select(frames["curves"], r, ds),
        reject_015=frames["fig8"][frames["fig8"]["round"] < r].reset_index(drop=True),
        runs=list(settings.get("runs", [])),
        svm=str(settings.get("svm", {}).get("setting", "default")), tie=str(settings.get("tie", "first")),
    )
