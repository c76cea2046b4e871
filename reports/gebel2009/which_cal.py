"""Which Cal do the thesis's tables report? The checks behind README.md's section of that name.

    OMP_NUM_THREADS=1 python reports/gebel2009/which_cal.py            # all three parts, ~2 min CPU
    OMP_NUM_THREADS=1 python reports/gebel2009/which_cal.py readings   # part 1 only, ~15 s

1. ``readings``: the Gaussian naive Bayes's own probabilities (no calibrator, so nothing of the
   study's calibration protocol is involved), pooled over the study's 10 folds (seed 2009), scored
   by 40 readings of the thesis's measures - RMSE (eq. 2.4) with the root per row or over all rows,
   with or without the 1/K, or of the true class only; WCR (eq. 2.5) with 1/K^2 or 1/K, absolute or
   squared differences, or Cf_kj read literally as the mean confidence in the *assigned* class;
   Cal as their geometric mean (eq. 2.6) or their product - and compared with the thesis's Cal
   (Tab. 6.5, row P_NB) on the data sets where our CR is within 0.005 of the thesis's.
2. ``bound``: the range of Cal that simply normalised scores (confidence in the assigned class in
   [0.5, (1 + rho)/(2 rho)], rho = 1.05) can reach at the thesis's CR, under the root and the
   product, assuming both partitions T_0, T_1 have the same correctness (without that assumption a
   small partition of confident errors can lower WCR almost at will).
3. ``svm``: SVM + norm / lr / av on heart, sonar, pima, with the calibrators fitted on cross-fitted
   scores (the study) or on the training scores of the classifier itself; and the Cal of norm if
   the normalising max |s| were f times ours.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd

from evstat.experiments import gebel2009 as g
from evstat.metrics import cal

RHO = 1.05
THESIS = pd.read_csv(g.THESIS_TABLES)


def _onehot(y: np.ndarray, k: int) -> np.ndarray:
    o = np.zeros((len(y), k))
    o[np.arange(len(y)), y] = 1.0
    return o


def rmse(y: np.ndarray, P: np.ndarray, kind: str) -> float:
    k = P.shape[1]
    d2 = (_onehot(y, k) - P) ** 2
    return {
        "row, 1/K (eq. 2.4)": lambda: np.mean(np.sqrt(d2.sum(1) / k)),
        "global, 1/K": lambda: np.sqrt(np.mean(d2.sum(1) / k)),
        "row, no 1/K": lambda: np.mean(np.sqrt(d2.sum(1))),
        "global, no 1/K": lambda: np.sqrt(np.mean(d2.sum(1))),
        "true class, global": lambda: np.sqrt(np.mean((1 - P[np.arange(len(y)), y]) ** 2)),
    }[kind]()


def wcr(y: np.ndarray, P: np.ndarray, kind: str) -> float:
    k = P.shape[1]
    a = _onehot(P.argmax(1), k)
    nk = a.sum(0)
    ne = nk > 0
    cf = (a.T @ P)[ne] / nk[ne][:, None]
    cr = (a.T @ _onehot(y, k))[ne] / nk[ne][:, None]
    if kind == "assigned-class Cf":
        cf = np.repeat(np.diag((a.T @ P) / np.where(nk > 0, nk, 1))[ne][:, None], k, axis=1)
    return {
        "abs, 1/K^2 (eq. 2.5)": lambda: 1 - np.abs(cf - cr).sum() / k**2,
        "abs, 1/K": lambda: 1 - np.abs(cf - cr).sum() / k,
        "squared, 1/K^2": lambda: 1 - ((cf - cr) ** 2).sum() / k**2,
        "assigned-class Cf": lambda: 1 - np.abs(cf - cr).sum() / k**2,
    }[kind]()


RMSES = ("row, 1/K (eq. 2.4)", "global, 1/K", "row, no 1/K", "global, no 1/K", "true class, global")
WCRS = ("abs, 1/K^2 (eq. 2.5)", "abs, 1/K", "squared, 1/K^2", "assigned-class Cf")


def _labels(ds: str) -> tuple[np.ndarray, np.ndarray]:
    X, yl, classes = g.load_dataset(ds)
    return X, np.asarray(pd.Index(classes, dtype=object).get_indexer(yl))


def readings() -> None:
    from sklearn.naive_bayes import GaussianNB
    from sklearn.preprocessing import StandardScaler

    rows = []
    for ds in g.DATASETS_TWO:
        X, y = _labels(ds)
        P = np.zeros((len(y), 2))
        for tr, te in g._folds("two-class", ds, y, 10, 2009):
            sc = StandardScaler().fit(X[tr])
            P[te] = GaussianNB().fit(sc.transform(X[tr]), y[tr]).predict_proba(sc.transform(X[te]))
        t = THESIS[(THESIS["classifier"] == "nb") & (THESIS["dataset"] == ds) & (THESIS["method"] == "own")].iloc[0]
        cr = float(np.mean(P.argmax(1) == y))
        for r in RMSES:
            a = 1 - rmse(y, P, r)
            for w in WCRS:
                b = wcr(y, P, w)
                for form, v in (("root", np.sqrt(a * b) if a > 0 and b > 0 else np.nan), ("product", a * b)):
                    rows.append({"dataset": ds, "CR": cr, "CR_thesis": t["CR"], "RMSE": r, "WCR": w, "Cal": form,
                                 "value": v, "Cal_thesis": t["Cal"]})
    d = pd.DataFrame(rows)
    same = d[(d["CR"] - d["CR_thesis"]).abs() <= 0.005].copy()
    print(f"NB own probabilities: our CR within 0.005 of the thesis's on {same['dataset'].nunique()} data sets "
          f"(left out: {sorted(set(d['dataset']) - set(same['dataset']))})\n")
    printed = same[(same["RMSE"] == RMSES[0]) & (same["WCR"] == WCRS[0])].pivot_table(
        index=["dataset", "CR", "CR_thesis", "Cal_thesis"], columns="Cal", values="value").reset_index()
    print(printed.round(3).to_string(index=False), "\n")
    same["diff"] = same["value"] - same["Cal_thesis"]
    s = same.groupby(["RMSE", "WCR", "Cal"])["diff"].agg(
        mean_diff="mean", mean_abs_diff=lambda x: x.abs().mean(), max_abs_diff=lambda x: x.abs().max())
    print(s.sort_values("mean_abs_diff").round(3).head(8).to_string(), "\n")


def bound() -> None:
    qmax = (1 + RHO) / (2 * RHO)
    q = np.linspace(0.5, qmax, 401)
    a, b = np.meshgrid(q, q)  # confidence of the correct rows, of the wrong rows
    rows = []
    for _, r in THESIS[(THESIS["part"] == "two-class") & (THESIS["method"] == "norm")].iterrows():
        c = r["CR"]
        omr = 1 - (c * (1 - a) + (1 - c) * b)
        w = 1 - np.abs(c * a + (1 - c) * b - c)
        rows.append({"classifier": r["classifier"], "dataset": r["dataset"], "CR_thesis": c, "Cal_thesis": r["Cal"],
                     "root_min": np.sqrt(omr * w).min(), "root_max": np.sqrt(omr * w).max(),
                     "product_min": (omr * w).min(), "product_max": (omr * w).max()})
    d = pd.DataFrame(rows)
    d["below_root_min"] = d["Cal_thesis"] < d["root_min"]
    d["in_product_range"] = d["Cal_thesis"].between(d["product_min"], d["product_max"])
    print(d.round(3).to_string(index=False))
    print(f"\nthesis's norm Cal below the root's minimum: {int(d['below_root_min'].sum())} of {len(d)}; "
          f"inside the product's range: {int(d['in_product_range'].sum())} of {len(d)}\n")


def svm(datasets: tuple[str, ...] = ("heart", "sonar", "pima")) -> None:
    rows, scale = [], []
    for ds in datasets:
        X, y = _labels(ds)
        P: dict[tuple[str, str], np.ndarray] = {}
        S, M = np.zeros(len(y)), np.zeros(len(y))
        for f, (tr, te) in enumerate(g._folds("two-class", ds, y, 10, 2009)):
            key = (0, g.DATASETS.index(ds), 0, 0, f)  # the study's seeds of (two-class, ds, svm, none, fold)
            rs = int(np.random.SeedSequence(2009, spawn_key=key).generate_state(1)[0] % (2**31 - 1))
            from sklearn.preprocessing import StandardScaler

            sc = StandardScaler().fit(X[tr])
            xtr, xte = sc.transform(X[tr]), sc.transform(X[te])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                params = g._svm_params(xtr, y[tr], rs)
                s_cf, st = g._crossfit("svm", params, xtr, y[tr], xte, rs)
                s_in = g._score("svm", g._make("svm", params, rs).fit(xtr, y[tr]), xtr)
                for src, s in (("cross-fitted", s_cf), ("training", s_in)):
                    for m in ("norm", "lr", "av"):
                        p = g._calibrate_two(m, "svm", s, y[tr], st)
                        P.setdefault((src, m), np.zeros(len(y)))[te] = p
            S[te], M[te] = st, np.abs(s_cf).max()
        for (src, m), p in P.items():
            t = THESIS[(THESIS["classifier"] == "svm") & (THESIS["dataset"] == ds) & (THESIS["method"] == m)].iloc[0]
            rows.append({"dataset": ds, "method": m, "scores": src, "CR": float(np.mean((p > 0.5) == y)),
                         "CR_thesis": t["CR"], "Cal": cal(y, p, root=False), "Cal_root": cal(y, p),
                         "Cal_thesis": t["Cal"]})
        t = THESIS[(THESIS["classifier"] == "svm") & (THESIS["dataset"] == ds) & (THESIS["method"] == "norm")].iloc[0]
        row = {"dataset": ds, "Cal_thesis": t["Cal"]}
        for f in (1, 1.5, 2, 3):
            row[f"f={f}"] = cal(y, (np.clip(S, -M, M) + RHO * f * M) / (2 * RHO * f * M), root=False)
        scale.append(row)
    print(pd.DataFrame(rows).sort_values(["dataset", "method", "scores"]).round(3).to_string(index=False), "\n")
    print("norm's Cal (product) if max |s| were f times ours:")
    print(pd.DataFrame(scale).round(3).to_string(index=False))


if __name__ == "__main__":
    parts = sys.argv[1:] or ["readings", "bound", "svm"]
    for part in parts:
        print(f"== {part}")
        {"readings": readings, "bound": bound, "svm": svm}[part]()
