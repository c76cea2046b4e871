"""Evidential calibration against its nearest peers: :func:`run_peers` (issue 17).

Methods (every one fitted on the same calibration rows and scored on the same test rows):

* ``evlogit``: evidential joint logistic calibration (:func:`evstat.evlogit`), [Bel, Pl] and
  theta_hat;
* ``va_inductive``: inductive Venn-ABERS (:func:`evstat.venn_abers`; one score: on the score
  itself, all rows; three scores: on the unpenalised logistic regression of the scores, fitted
  on half of the rows, the other half calibrating), [p0, p1] and the point estimate;
* ``va_cross``: cross Venn-ABERS, ``min(5, smaller class)`` stratified folds, on the logistic
  regression of the scores; the interval is the envelope of the folds' [p0, p1];
* ``conformal``: split-conformal classifier (:func:`evstat.split_conformal`, crepes), logistic
  regression fitted on half of the rows, conformalised on the other half; sets at confidence
  0.9; its point estimate is the logistic regression's probability.

Part 1, simulated data (``sim_metrics.csv``, ``sim_curves.csv``): scores ``s`` standard normal
(three scores: correlation 0.5), linear predictor ``eta`` = ``s`` or the standardised
``w . s`` with ``w = (1, 0.6, 0.3)``, and the true P(y = 1 | s):

* ``logistic``: ``expit(1.5 eta)`` (well specified for evlogit);
* ``steep``: ``0.1 + 0.8 expit(8 eta)`` (monotone, a steep sigmoid between plateaus at 0.1 and
  0.9: misspecified for the logistic family, not for isotonic regression);
* ``imbalanced``: ``expit(-2.5 + 1.5 eta)`` (about 12% positives; logistic, well specified).

Calibration sizes 15, 45, 200, 1000, a fresh test set of ``n_test`` rows per repetition. A
calibration sample with fewer than two rows of a class is redrawn (recorded in ``redraws``): no
method can be fitted without both classes, and two rows per class are the least the split
methods need. A method that still fails (e.g. the split of 15 rows leaves a class with one
row) gives a row with NaN measures and the error in ``note``.

Part 2, real data (``real_metrics.csv``, ``real_curves.csv``): the protocol of the Minary study's
reject curves (section 5.4, :func:`evstat.experiments.minary2019.curves_round`): per round three
SVMs trained on 30 rows each, nested calibration sets of 45 and 15 rows, 100 test rows (Sonar
50), on Sonar, Ionosphere, Pima, Heart, WDBC and Australian; formulas ``y ~ svm1`` and
``y ~ svm1 + svm2 + svm3``. The same measures without the truth.

Measures per (unit, method): :func:`evstat.comparison.interval_scores` /
:func:`evstat.comparison.set_scores` (the rows of :func:`evstat.compare`): ``width``,
``set_size``, ``label_coverage``, ``coverage`` and ``mse`` (truth), ``brier``, ``log_loss``,
``error_rate``, ``reject_rate`` and ``accuracy`` at R_rej = 1/2. Curves: counts of decided and
wrong rows of the pessimistic and probabilistic strategies at reject costs 0, 0.05, ..., 1
(intervals) and of the conformal sets at confidences :data:`CONFIDENCES`, summed over
repetitions (pooled curves, as :func:`evstat.experiments.claims.pooled_curves`).

Where each method wins (``wins.csv``, computed, nothing fixed in advance): per cell and measure
(``mse``, ``brier``, ``log_loss``), the method with the lowest mean and the paired difference
to the runner-up across repetitions; the win is *clear* when the runner-up is worse by more than
``Z = 2`` standard errors (:data:`evstat.experiments.claims.Z`), else *unclear*.

Every unit draws from ``SeedSequence(seed, spawn_key=(part, setting..., repetition))``, so the
files do not depend on ``jobs`` or the order of the units.

Resuming: each finished unit's metric and curve rows are kept in ``out/.units/`` and entered into
the completion record there (:meth:`evstat.experiments.store.Store.save_frames`: the SHA-256 of
each file). The same command run again reuses the units whose files match the record and computes
the others (a file cut short, edited or missing, or no record: recomputed, never trusted); the
study's files are always built from the units' files as read back, so a resumed run writes the
same files as an uninterrupted one (apart from the wall-clock ``seconds`` column).
"""

from __future__ import annotations

import json
import os
import platform
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit

from evstat.experiments.claims import Z, verdict
from evstat.experiments.store import Store, save_figure, study_folder, write_csv
from evstat.io.atomic import write_text

__all__ = ["CONFIDENCES", "METHODS", "curve_ranks", "markdown_tables", "N_CALS", "TRUTHS", "PeersResults", "real_unit", "run_peers", "sim_unit",
           "simulate", "wins"]

STUDY = "peers"
TRUTHS = ("logistic", "steep", "imbalanced")
N_CALS = (15, 45, 200, 1000)
SCORES = (1, 3)
METHODS = ("evlogit", "va_inductive", "va_cross", "conformal")
REAL_DATASETS = ("sonar", "ionosphere", "pima", "heart", "wdbc", "australian")
REAL_CAL_SIZES = (45, 15)
COSTS = np.round(np.linspace(0.0, 1.0, 21), 3)
CONFIDENCES = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99)
CONFIDENCE = 0.9
W3 = np.array([1.0, 0.6, 0.3])
RHO = 0.5
MEASURES = ("width", "set_size", "label_coverage", "coverage", "mse", "brier", "log_loss", "error_rate",
            "reject_rate", "accuracy")
WIN_MEASURES = ("mse", "brier", "log_loss")
_TRUTH_ID = {t: i for i, t in enumerate(TRUTHS)}
_REAL_ID = {d: i for i, d in enumerate(REAL_DATASETS)}


def simulate(truth: str, n: int, J: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` rows of scores ``s1..sJ``, the true ``p`` = P(y = 1 | s) and ``y`` (module docstring).

    Examples
    --------
    >>> d = simulate("steep", 5, 3, np.random.default_rng(0))
    >>> list(d.columns), bool(d.p.between(0.1, 0.9).all())
    (['s1', 's2', 's3', 'p', 'y'], True)
    """
    if truth not in TRUTHS:
        raise ValueError(f"truth must be one of {TRUTHS}, got {truth!r}")
    if J == 1:
        s = rng.standard_normal((n, 1))
        eta = s[:, 0]
    else:
        cov = np.full((J, J), RHO) + (1 - RHO) * np.eye(J)
        s = rng.multivariate_normal(np.zeros(J), cov, size=n, method="cholesky")
        w = W3[:J]
        eta = s @ w / np.sqrt(w @ cov @ w)
    if truth == "logistic":
        p = expit(1.5 * eta)
    elif truth == "steep":
        p = 0.1 + 0.8 * expit(8.0 * eta)
    else:
        p = expit(-2.5 + 1.5 * eta)
    y = (rng.random(n) < p).astype(np.int64)
    d = pd.DataFrame(s, columns=[f"s{j + 1}" for j in range(J)])
    d["p"] = p
    d["y"] = y
    return d


def _fit(method: str, formula: str, cal: pd.DataFrame, seed: int) -> Any:
    import evstat as ev

    if method == "evlogit":
        return ev.evlogit(formula, cal)
    if method == "va_inductive":
        return ev.venn_abers(formula, cal, method="inductive", seed=seed)
    if method == "va_cross":
        k = int(min(5, np.bincount(cal["y"].to_numpy(), minlength=2).min()))
        return ev.venn_abers(formula, cal, method="cross", n_splits=k, seed=seed)
    return ev.split_conformal(formula, cal, confidence=CONFIDENCE, seed=seed)


def _method_rows(formula: str, cal: pd.DataFrame, test: pd.DataFrame, seed: int, truth: Any,
                 keys: dict[str, Any]) -> tuple[list[dict[str, Any]], list[pd.DataFrame]]:
    from evstat.calibration.peers import ConformalSets
    from evstat.comparison import interval_scores, set_scores
    from evstat.metrics import reject_curve

    y = test["y"].to_numpy()
    rows, curves = [], []
    for method in METHODS:
        row: dict[str, Any] = {**keys, "method": method}
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit = _fit(method, formula, cal, seed)
                if isinstance(fit, ConformalSets):
                    th = fit.predict(test, type="prob").to_numpy()
                    pv = fit.p_values(test).to_numpy()
                    sc = set_scores(y, th, pv >= 1.0 - CONFIDENCE, truth)
                    cur = []
                    for c in CONFIDENCES:
                        bel, pl, _ = ConformalSets.set_mass(pv >= 1.0 - c)
                        r = reject_curve(y, bel, pl, costs=[0.5], strategies=["pessimistic"]).iloc[0]
                        cur.append({"strategy": "conformal", "parameter": c, "error_rate": r["error_rate"],
                                    "reject_rate": r["reject_rate"]})
                    cf = pd.DataFrame(cur)
                else:
                    b = fit.predict(test, type="belief")
                    th, bel, pl = (b[c].to_numpy() for c in ("theta", "bel", "pl"))
                    sc = interval_scores(y, th, bel, pl, truth)
                    cf = reject_curve(y, bel, pl, p=th, costs=COSTS, strategies=["pessimistic", "probabilistic"])
                    cf = cf.rename(columns={"reject_cost": "parameter"})
            row.update({m: float(sc.get(m, np.nan)) for m in MEASURES})
            row["note"] = ""
            n = len(test)
            curves.append(pd.DataFrame({
                **keys, "method": method, "strategy": cf["strategy"].to_numpy(), "parameter": cf["parameter"].to_numpy(),
                "n_test": n, "n_decided": np.round(n * (1 - cf["reject_rate"].to_numpy())).astype(np.int64),
                "n_errors": np.round(n * cf["error_rate"].to_numpy()).astype(np.int64)}))
        except Exception as err:  # noqa: BLE001 - any failure of a method is recorded in its row, not fatal
            row.update({m: np.nan for m in MEASURES})
            row["note"] = f"failed: {type(err).__name__}: {' '.join(str(err).split())[:200]}"
        row["seconds"] = round(time.perf_counter() - t0, 3)
        rows.append(row)
    return rows, curves


def _formula(J: int) -> str:
    return "y ~ " + " + ".join(f"s{j + 1}" for j in range(J))


def sim_unit(truth: str, J: int, n_cal: int, rep: int, seed: int, n_test: int = 100) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One repetition of the simulated part: (metric rows, curve rows).

    Examples
    --------
    >>> m, c = sim_unit("logistic", 1, 45, 0, 17, n_test=40)
    >>> m["method"].tolist(), bool(m["note"].eq("").all())
    (['evlogit', 'va_inductive', 'va_cross', 'conformal'], True)
    """
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, _TRUTH_ID[truth], J, n_cal, rep)))
    redraws = 0
    while True:
        cal = simulate(truth, n_cal, J, rng)
        if np.bincount(cal["y"], minlength=2).min() >= 2:
            break
        redraws += 1
    test = simulate(truth, n_test, J, rng)
    keys = {"truth": truth, "scores": J, "n_cal": n_cal, "rep": rep}
    method_seed = int(rng.integers(2**31))
    rows, curves = _method_rows(_formula(J), cal.drop(columns="p"), test, method_seed, test["p"].to_numpy(), keys)
    m = pd.DataFrame(rows)
    m.insert(4, "redraws", redraws)
    m.insert(5, "n_pos", int(cal["y"].sum()))
    return m, pd.concat(curves, ignore_index=True) if curves else pd.DataFrame()


def real_unit(dataset: str, rnd: int, seed: int, svm: str = "default") -> tuple[pd.DataFrame, pd.DataFrame]:
    """One round of the real-data part on one data set (Minary section 5.4 partition and SVMs),
    both calibration sizes and both formulas: (metric rows, curve rows)."""
    from evstat.experiments.ensemble import fit_svm, score_table
    from evstat.experiments.minary2019 import dataset_arrays
    from evstat.experiments.partition import reject_partition

    X, y = dataset_arrays(dataset, seed)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, _REAL_ID[dataset], rnd)))
    test_size = 50 if dataset == "sonar" else 100
    p = reject_partition(y, rng, (30, 30, 30), REAL_CAL_SIZES, test_size)
    models = [fit_svm(X[r], y[r], svm) for r in p.svm]

    def scores(rows: np.ndarray) -> pd.DataFrame:
        t = score_table(np.column_stack([m.decision_function(X[rows]) for m in models]), y[rows], rows)
        return t.rename(columns={"svm1": "s1", "svm2": "s2", "svm3": "s3"})

    test = scores(p.test)
    method_seed = int(rng.integers(2**31))
    ms, cs = [], []
    for n in REAL_CAL_SIZES:
        cal = scores(p.cal[n])
        for J in SCORES:
            keys = {"dataset": dataset, "scores": J, "n_cal": n, "rep": rnd}
            rows, curves = _method_rows(_formula(J), cal, test, method_seed, None, keys)
            ms.append(pd.DataFrame(rows))
            cs.extend(curves)
    return pd.concat(ms, ignore_index=True), pd.concat(cs, ignore_index=True)


def pooled(curves: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Curve counts summed over repetitions; error rate = errors / tested, accuracy = correct /
    decided (NaN when nothing is decided)."""
    keys = [*by, "method", "strategy", "parameter"]
    g = curves.groupby(keys, sort=False)[["n_test", "n_decided", "n_errors"]].sum().reset_index()
    g["reps"] = curves.groupby(keys, sort=False).size().to_numpy()
    g["error_rate"] = g["n_errors"] / g["n_test"]
    dec = g["n_decided"].to_numpy(dtype=float)
    g["accuracy"] = np.where(dec > 0, (dec - g["n_errors"]) / np.where(dec > 0, dec, 1), np.nan)
    g["reject_rate"] = 1 - g["n_decided"] / g["n_test"]
    return g


def wins(metrics: pd.DataFrame, by: Sequence[str], measures: Sequence[str] = WIN_MEASURES) -> pd.DataFrame:
    """Per cell and measure (lower is better): the best method by mean, the runner-up, their
    paired difference across repetitions and whether the win is clear (> Z standard errors).

    Examples
    --------
    >>> m = pd.DataFrame({"cell": 1, "rep": np.repeat(np.arange(12), 2), "method": ["a", "b"] * 12,
    ...                   "mse": np.tile([0.01, 0.02], 12) + np.linspace(0, 1e-3, 24)})
    >>> wins(m, ["cell"], ["mse"])[["best", "runner_up", "status"]].values.tolist()
    [['a', 'b', 'clear']]
    """
    out = []
    for key, cell in metrics.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        for measure in measures:
            wide = cell.pivot_table(index="rep", columns="method", values=measure, aggfunc="first").dropna(axis=1, how="all")
            if wide.shape[1] < 2:
                continue
            means = wide.mean().sort_values()
            best, second = means.index[0], means.index[1]
            d = (wide[second] - wide[best]).dropna()
            se = float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else np.nan
            clear = d.size >= 10 and np.isfinite(se) and float(d.mean()) > Z * se
            out.append({**dict(zip(by, key)), "measure": measure, "best": best, "runner_up": second,
                        "best_mean": float(means.iloc[0]), "runner_up_mean": float(means.iloc[1]),
                        "diff": float(d.mean()), "se": se, "n_pairs": int(d.size),
                        "status": "clear" if clear else "unclear",
                        "ranking": " < ".join(means.index)})
    return pd.DataFrame(out)


def first_look(sim: pd.DataFrame) -> pd.DataFrame:
    """The issue's first look, checked on the one-score cells: widths and coverages at 200 rows,
    and "evlogit's point estimate beats inductive Venn-ABERS' from 45 rows on" (paired MSE
    differences per size, verdict of :func:`evstat.experiments.claims.verdict`), per truth."""
    rows = []
    one = sim[sim.scores == 1]
    for truth, t in one.groupby("truth", sort=False):
        at200 = t[t.n_cal == 200].groupby("method")[["width", "coverage"]].mean().reindex(["evlogit", "va_inductive"])
        n_for = n_against = 0
        cells = []
        for n in [v for v in (45, 200, 1000) if v in set(t.n_cal)]:
            c = t[t.n_cal == n].pivot_table(index="rep", columns="method", values="mse", aggfunc="first")
            d = (c["va_inductive"] - c["evlogit"]).dropna()
            se = float(d.std(ddof=1) / np.sqrt(d.size))
            ok = d.size >= 10  # as claims.MIN_ROUNDS
            st = "for" if ok and d.mean() > Z * se else ("against" if ok and d.mean() < -Z * se else "unclear")
            n_for += st == "for"
            n_against += st == "against"
            cells.append(f"{n}: {d.mean():+.5f} (se {se:.5f}, {st})")
        rows.append({
            "truth": truth,
            "evlogit_width_200": at200.loc["evlogit", "width"], "va_width_200": at200.loc["va_inductive", "width"],
            "evlogit_coverage_200": at200.loc["evlogit", "coverage"], "va_coverage_200": at200.loc["va_inductive", "coverage"],
            "mse_va_minus_evlogit": "; ".join(cells),
            "claim_evlogit_better_point_from_45": verdict(n_for, n_against, len(cells)),
        })
    return pd.DataFrame(rows)


@dataclass
class PeersResults:
    out: Path
    seconds: float
    sim: pd.DataFrame | None
    real: pd.DataFrame | None


def _canonical(frame: pd.DataFrame, first: str, order: Sequence[str]) -> pd.DataFrame:
    rank = {v: i for i, v in enumerate(order)}
    mrank = {m: i for i, m in enumerate(METHODS)}
    key = [frame[first].map(rank), frame["scores"], frame["n_cal"], frame["rep"], frame["method"].map(mrank)]
    return frame.iloc[np.lexsort(key[::-1])].reset_index(drop=True)


def _write_part(out: Path, part: str, metrics: pd.DataFrame, curves: pd.DataFrame, by: list[str],
                measures: Sequence[str]) -> None:
    write_csv(metrics, out / f"{part}_metrics.csv", float_format="%.6g")
    write_csv(pooled(curves, by), out / f"{part}_curves.csv", float_format="%.6g")
    g = metrics.groupby([*by, "method"], sort=False)
    summ = g[list(MEASURES)].mean().reset_index()
    summ["reps"] = g.size().to_numpy()
    summ["failed"] = g["note"].apply(lambda s: int(s.astype(object).fillna("").ne("").sum())).to_numpy()
    write_csv(summ, out / f"{part}_summary.csv", float_format="%.4g")
    write_csv(wins(metrics, by, measures), out / f"{part}_wins.csv", float_format="%.4g")
    if part == "sim":
        write_csv(first_look(metrics), out / "first_look.csv", float_format="%.4g")


#: repetitions (simulated) and rounds (real) per checkpoint block
BLOCK_REPS, BLOCK_ROUNDS = 5, 3


def run_peers(
    out: str | Path,
    reps: int = 100,
    rounds: int = 100,
    seed: int = 2019,
    n_cals: Sequence[int] = N_CALS,
    truths: Sequence[str] = TRUTHS,
    datasets: Sequence[str] = REAL_DATASETS,
    n_test: int = 100,
    jobs: int = 1,
    quiet: bool = False,
    command: str = "",
    wait: bool = False, note: Callable[[str], None] | None = None,
) -> PeersResults:
    """Run the study and write its CSV files and ``study.json`` into ``out`` (module docstring).

    ``reps`` repetitions per simulated cell, ``rounds`` per real data set (0 skips a part). The
    work runs in blocks (:data:`BLOCK_REPS` repetitions and :data:`BLOCK_ROUNDS` rounds each);
    after every block all files are rewritten from the units done so far, in canonical order, and
    ``study.json`` records ``reps_done`` and ``rounds_done``: files of a run stopped after a block
    equal those of a complete run with ``--reps reps_done --rounds rounds_done``. Rerun in the same
    ``out``, it reuses the units recorded complete in ``out/.units/`` (module docstring).
    ``wait`` and ``note`` as :func:`evstat.experiments.store.study_folder`: one run writes a
    folder at a time, and a folder holding a symbolic link or a special file is refused.
    """
    out = Path(out)
    # created, checked for links and special files, locked, writes confined (issue 41)
    with study_folder(out, wait=wait, note=note):
        t0 = time.perf_counter()
        sim_m: list[pd.DataFrame] = []
        sim_c: list[pd.DataFrame] = []
        real_m: list[pd.DataFrame] = []
        real_c: list[pd.DataFrame] = []
        reps_done = rounds_done = 0
        settings = {"study": STUDY, "command": command, "seed": seed, "reps": reps, "rounds": rounds,
                    "n_cals": list(n_cals), "truths": list(truths), "datasets": list(datasets), "n_test": n_test,
                    "confidence": CONFIDENCE, "costs": COSTS.tolist(), "confidences": list(CONFIDENCES),
                    "jobs": jobs, "machine": f"{platform.machine()}, {os.cpu_count()} cores",
                    "python": platform.python_version()}
        try:
            from importlib.metadata import version

            settings["packages"] = {p: version(p) for p in ("venn-abers", "crepes", "scikit-learn", "numpy")}
        except Exception:  # pragma: no cover - metadata missing
            pass
        store = Store(out / ".units")
        store.folder.mkdir(exist_ok=True)
        sim = real = None
        while reps_done < reps or rounds_done < rounds:
            r1 = min(reps, reps_done + BLOCK_REPS)
            d1 = min(rounds, rounds_done + BLOCK_ROUNDS)
            units: list[tuple[Callable[..., Any], tuple]] = [(sim_unit, (t, J, n, r, seed, n_test)) for r in range(reps_done, r1)
                     for t in truths for J in SCORES for n in n_cals]
            n_sim = len(units)
            units += [(real_unit, (d, r, seed)) for r in range(rounds_done, d1) for d in datasets]
            res = _run_units(units, jobs, quiet, f"reps {reps_done}-{r1}, rounds {rounds_done}-{d1}", store)
            if n_sim:
                sim_m += [m for m, _ in res[:n_sim]]
                sim_c += [c for _, c in res[:n_sim]]
                sim = _canonical(pd.concat(sim_m, ignore_index=True), "truth", truths)
                _write_part(out, "sim", sim, pd.concat(sim_c, ignore_index=True), ["truth", "scores", "n_cal"], WIN_MEASURES)
            if len(res) > n_sim:
                real_m += [m for m, _ in res[n_sim:]]
                real_c += [c for _, c in res[n_sim:]]
                real = _canonical(pd.concat(real_m, ignore_index=True), "dataset", datasets)
                _write_part(out, "real", real, pd.concat(real_c, ignore_index=True), ["dataset", "scores", "n_cal"],
                            ("brier", "log_loss"))
            reps_done, rounds_done = r1, d1
            settings.update({"reps_done": reps_done, "rounds_done": rounds_done,
                             "seconds": round(time.perf_counter() - t0, 1)})
            write_text(out / "study.json", json.dumps(settings, indent=1), encoding="utf-8")
            figures(out)
        seconds = time.perf_counter() - t0
        return PeersResults(out=out, seconds=seconds, sim=sim, real=real)


def _unit_paths(store: Store, f: Callable[..., Any], args: tuple) -> tuple[str, list[Path]]:
    """A unit's key in the completion record (its function and every argument: a unit of another
    seed or test size is another unit) and its two files (metric rows, curve rows)."""
    key = "/".join(map(str, ("sim" if f is sim_unit else "real", *args)))
    stem = key.replace("/", "_")
    return key, [store.folder / f"{stem}_metrics.csv", store.folder / f"{stem}_curves.csv"]


def _run_units(units: list[tuple[Callable[..., Any], tuple]], jobs: int, quiet: bool, what: str,
               store: Store) -> list[Any]:
    """Each unit's (metrics, curves): from its files when they match the completion record,
    else computed, written and recorded as it finishes; always as read back from its files."""
    from joblib import Parallel, delayed

    from evstat.io.workers import guarded
    from tqdm.auto import tqdm

    paths = [_unit_paths(store, f, a) for f, a in units]
    res: list[Any] = [store.load_frames(key, p) for key, p in paths]
    todo = [i for i, r in enumerate(res) if r is None]
    it = tqdm(todo, desc=what, disable=quiet, mininterval=5)
    if jobs == 1:
        finished: Any = ((i, units[i][0](*units[i][1])) for i in it)
    else:
        finished = zip(todo, Parallel(n_jobs=jobs, batch_size=1, return_as="generator")(
            delayed(guarded(units[i][0]))(*units[i][1]) for i in it), strict=True)
    for i, frames in finished:
        key, files = paths[i]
        store.save_frames(key, files, frames)
        res[i] = store.load_frames(key, files)
    return [tuple(r) for r in res]


def figures(out: Path) -> None:
    """Error-accuracy curves (pooled) of every cell, from the CSV files."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    colours = {"evlogit": "C0", "va_inductive": "C1", "va_cross": "C2", "conformal": "C3"}
    styles = {"pessimistic": "-", "probabilistic": "--", "conformal": "-."}
    for part, rows_key in (("sim", "truth"), ("real", "dataset")):
        path = out / f"{part}_curves.csv"
        if not path.exists():
            continue
        c = pd.read_csv(path)
        row_vals = list(dict.fromkeys(c[rows_key]))
        grid = [(r, J) for r in row_vals for J in SCORES]
        sizes = sorted(c["n_cal"].unique())
        fig = Figure(figsize=(3.2 * len(sizes), 2.6 * len(grid)), layout="constrained")
        axes = fig.subplots(len(grid), len(sizes), squeeze=False)
        for i, (r, J) in enumerate(grid):
            for j, n in enumerate(sizes):
                ax = axes[i, j]
                cell = c[(c[rows_key] == r) & (c.scores == J) & (c.n_cal == n)]
                for (m, s), cs in cell.groupby(["method", "strategy"], sort=False):
                    ok = cs["accuracy"].notna()
                    ax.plot(cs["error_rate"][ok], cs["accuracy"][ok], color=colours[m], linestyle=styles[s],
                            linewidth=1.2, label=f"{m}: {s}")
                ax.set_title(f"{r}, {J} score{'s' if J > 1 else ''}, n = {n}", fontsize=8)
                ax.tick_params(labelsize=7)
                if i == len(grid) - 1:
                    ax.set_xlabel("error rate", fontsize=7)
                if j == 0:
                    ax.set_ylabel("accuracy (decided)", fontsize=7)
        h, lab = axes[0, 0].get_legend_handles_labels()
        fig.legend(h, lab, loc="outside lower center", ncol=4, fontsize=7, frameon=False)
        save_figure(fig, out / f"fig_{part}_curves.png", dpi=90)


def curve_ranks(curves: pd.DataFrame, by: Sequence[str], points: int = 101) -> pd.DataFrame:
    """Per cell, the mean accuracy of every (method, strategy) pooled curve over the error-rate
    range that all of them cover (accuracy interpolated linearly in the error rate, as
    :func:`evstat.experiments.claims.accuracy_gap`), and its rank (1 = highest). Descriptive:
    pooled curves carry no standard error.

    Examples
    --------
    >>> c = pd.DataFrame({"cell": 1, "method": ["a", "a", "b", "b"], "strategy": "pessimistic",
    ...                   "error_rate": [0.0, 0.2, 0.0, 0.2], "accuracy": [1.0, 0.8, 0.9, 0.8]})
    >>> curve_ranks(c, ["cell"])[["method", "rank"]].values.tolist()
    [['a', 1], ['b', 2]]
    """
    out = []
    for key, cell in curves.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        ok = cell[cell["accuracy"].notna()]
        groups = list(ok.groupby(["method", "strategy"], sort=False))
        if not groups:
            continue
        lo = max(float(g["error_rate"].min()) for _, g in groups)
        hi = min(float(g["error_rate"].max()) for _, g in groups)
        rows = []
        for (m, st), g in groups:
            if hi > lo:
                g = g.groupby("error_rate")["accuracy"].mean().sort_index()
                grid = np.linspace(lo, hi, points)
                acc = float(np.interp(grid, g.index.to_numpy(float), g.to_numpy(float)).mean())
            else:
                acc = np.nan
            rows.append({**dict(zip(by, key)), "method": m, "strategy": st, "error_from": lo, "error_to": hi,
                         "mean_accuracy": acc})
        r = pd.DataFrame(rows)
        r["rank"] = r["mean_accuracy"].rank(ascending=False, method="min").astype("Int64")
        out.append(r)
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


def markdown_tables(out: str | Path) -> str:
    """The README's tables, from the CSV files of a run (so the numbers in the README are the
    files' numbers): per simulated cell the mean width, coverage, MSE, Brier, log loss and
    reject rate of every method; the wins per measure; the first look; the real-data means and
    wins.

    Examples
    --------
    >>> markdown_tables("no-such-folder")  # a folder without the CSV files gives no tables
    ''
    """
    out = Path(out)
    lines: list[str] = []

    def fmt(v: Any, nd: int = 3) -> str:
        return "" if pd.isna(v) else (f"{v:.{nd}f}" if isinstance(v, float) else str(v))

    sim_path = out / "sim_summary.csv"
    if sim_path.exists():
        lines += _summary_lines(
            out, "sim", ["truth", "scores", "n", "method", "width", "coverage", "MSE", "Brier", "log loss", "set size",
                         "reject at 1/2", "failed"],
            lambda r: [r.truth, r.scores, r.n_cal, r.method, fmt(r.width), fmt(r.coverage, 2), fmt(r.mse, 4),
                       fmt(r.brier, 4), fmt(r.log_loss, 3), fmt(r.set_size, 2), fmt(r.reject_rate, 2), r.failed],
        )
        w = pd.read_csv(out / "sim_wins.csv")
        lines += _table(["measure", "truth", "scores", "n", "best (clear?)", "ranking"],
                        ([r.measure, r.truth, r.scores, r.n_cal, f"{r.best} ({r.status})", r.ranking] for _, r in w.iterrows()))
        lines += _rank_lines(pd.read_csv(out / "sim_curves.csv"), ["truth", "scores", "n_cal"])
        fl = pd.read_csv(out / "first_look.csv")
        lines += _table(
            ["truth", "width at 200: evlogit / VA", "coverage at 200: evlogit / VA", "MSE(VA) - MSE(evlogit) by n",
             "evlogit better from 45 rows on"],
            ([r.truth, f"{fmt(r.evlogit_width_200)} / {fmt(r.va_width_200)}",
              f"{fmt(r.evlogit_coverage_200, 2)} / {fmt(r.va_coverage_200, 2)}", r.mse_va_minus_evlogit,
              r.claim_evlogit_better_point_from_45] for _, r in fl.iterrows()),
        )
    real_path = out / "real_summary.csv"
    if real_path.exists():
        lines += _summary_lines(
            out, "real", ["data set", "scores", "n", "method", "width", "Brier", "log loss", "set size", "label in set",
                          "reject at 1/2", "accuracy (decided)", "failed"],
            lambda r: [r.dataset, r.scores, r.n_cal, r.method, fmt(r.width), fmt(r.brier, 4), fmt(r.log_loss, 3),
                       fmt(r.set_size, 2), fmt(r.label_coverage, 2), fmt(r.reject_rate, 2), fmt(r.accuracy, 3), r.failed],
        )
        lines += _rank_lines(pd.read_csv(out / "real_curves.csv"), ["dataset", "scores", "n_cal"])
    return "\n".join(lines)


def _table(header: list[str], rows: Any) -> list[str]:
    """A Markdown table (header, rule, one line per row of cells) and the blank line after it."""
    return ([f"| {' | '.join(header)} |", "|" + "---|" * len(header)]
            + [f"| {' | '.join(str(c) for c in row)} |" for row in rows] + [""])


def _summary_lines(out: Path, part: str, header: list[str], cells: Callable[[Any], list[Any]]) -> list[str]:
    """The summary table of ``<part>_summary.csv`` (a row's cells by ``cells``) and the table of
    wins per measure and method of ``<part>_wins.csv``."""
    s = pd.read_csv(out / f"{part}_summary.csv")
    w = pd.read_csv(out / f"{part}_wins.csv")
    wins = ([m, b, int((g.status == "clear").sum()), int((g.status != "clear").sum())]
            for (m, b), g in w.groupby(["measure", "best"], sort=True))
    return (_table(header, (cells(r) for _, r in s.iterrows()))
            + _table(["measure", "method", "clear wins", "unclear firsts"], wins))


def _rank_lines(curves: pd.DataFrame, by: list[str]) -> list[str]:
    r = curve_ranks(curves, by)
    if r.empty:
        return []
    cells = r.groupby(by, sort=False).ngroups
    lines = [f"| curve (method: strategy) | highest mean accuracy (of {cells} cells) | mean rank |", "|---|---|---|"]
    g = r.groupby(["method", "strategy"], sort=False)["rank"]
    for (m, st), ranks in g:
        lines.append(f"| {m}: {st} | {int((ranks == 1).sum())} | {float(ranks.astype(float).mean()):.2f} |")
    lines.append("")
    return lines
