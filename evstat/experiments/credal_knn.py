"""Reproduction of the credal K-NN study (EC; Liu, Pan and Dezert, paper 002) and of the examples
of Denoeux's lecture on evidential classifiers (paper 004): :func:`run_credal_knn`.

Parts (files written into ``out``):

1. **Test 1.2** (002, Fig. 4): three 2-D Gaussian classes, 50 + 50 rows per class, K = 9;
   credal decisions of K-NN, EkNN (maximal mass: a class or the outlier class) and EC (rho = 3)
   on the test rows (``test12_decisions.csv``, ``test12_rates.csv``, ``fig_test12.png``).
2. **Simulation 2** (002, Table 2): four classes, ``4 x N`` training rows for N in 100, 150, 200,
   ``4 x 100`` test rows, K in ``k_grid``, ``runs`` Monte-Carlo runs; error, imprecision and
   outlier rates of K-NN, weighted K-NN (Dudani), EkNN, EC with rho = 3 and rho = 5
   (``sim2_rates.csv`` one row per run, N, K and method; ``sim2_table.csv`` the means at the K of
   lowest mean error of each method, as the paper's table).
3. **Real data** (002, Tables 4-7): Iris, Ecoli (cp, im, imU), breast cancer (Wisconsin
   original, the 683 complete rows), Yeast (CYT, NUC, ME3); stratified 2-fold cross-validation
   repeated ``runs`` times, rho of EC by leave-one-out on each training fold, no outlier class
   (m(Omega) redistributed), K in ``real_k`` (``real_rates.csv``, ``real_table.csv``).
4. **Findings** (``claims.csv``): the paper's qualitative statements tested on the data: EC has
   the lowest error of the methods at the cost of imprecision; rho = 5 has more imprecision, less
   error and fewer outliers than rho = 3 (Simulation 2); EC has the lowest error on the real data.
5. **Lecture examples** (004): EkNN on evclass's Ionosphere split (test error against K,
   ``eknn_ionosphere.csv``, ``fig_eknn_ionosphere.png``); the evidential neural network on
   evclass's Glass split (7 prototypes) and on Vowel (33, 44, 55 prototypes) over several seeds
   (``evnn_errors.csv``); its decision regions on Iris petal measurements (``fig_evnn_iris.png``);
   the partially supervised EkNN on Ionosphere with a growing share of uncertain labels
   (``partial_ionosphere.csv``, ``fig_partial_ionosphere.png``).

Randomness: every unit (part, setting, run) draws from ``numpy.random.SeedSequence(seed,
spawn_key=...)``; the same seed gives the same files.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import evstat as ev
from evstat.belief import Frame, MassArray
from evstat.classifiers import OUTLIER
from evstat.classifiers.neighbors import knn
from evstat.datasets import data_dir, simulate_credal_sim2, simulate_credal_test12
from evstat.metrics import credal_rates

__all__ = ["K_GRID", "REAL_DATASETS", "CredalStudy", "knn_vote", "run_credal_knn", "weighted_knn_vote"]

#: K of Simulation 2 (the paper: "K ranging from 5 to 25")
K_GRID = (5, 10, 15, 20, 25)
#: K of the real-data tables
REAL_K = (5, 10, 15)
N_GRID = (100, 150, 200)
REAL_DATASETS = ("iris", "ecoli", "breast-cancer", "yeast")
METHODS = ("K-NN", "WK-NN", "EkNN", "EC rho=3", "EC rho=5")


# ------------------------------------------------------------------------------------------------
# the classical rules
# ------------------------------------------------------------------------------------------------


def knn_vote(Xtr: np.ndarray, ytr: np.ndarray, Xte: np.ndarray, k: int, n_classes: int) -> np.ndarray:
    """Majority vote of the ``k`` nearest training rows (ties: the tied class with the nearest
    neighbour).

    Examples
    --------
    >>> import numpy as np
    >>> knn_vote(np.array([[0.0], [1.0], [5.0]]), np.array([0, 0, 1]), np.array([[4.0]]), 3, 2).tolist()
    [0]
    """
    idx, _ = knn(Xte, Xtr, k)
    lab = ytr[idx]
    counts = np.zeros((len(Xte), n_classes))
    np.add.at(counts, (np.repeat(np.arange(len(Xte)), k), lab.ravel()), 1.0)
    # tie-break: earliest rank among the tied classes
    rank = np.full((len(Xte), n_classes), k, dtype=float)
    for j in range(k - 1, -1, -1):
        rank[np.arange(len(Xte)), lab[:, j]] = j
    score = counts - rank / (k + 1.0)
    return np.argmax(score, axis=1)


def weighted_knn_vote(Xtr: np.ndarray, ytr: np.ndarray, Xte: np.ndarray, k: int, n_classes: int) -> np.ndarray:
    """Dudani's distance-weighted K-NN: weight ``(d_K - d_j) / (d_K - d_1)`` (1 when ``d_K =
    d_1``); ties to the first class.

    Examples
    --------
    >>> import numpy as np
    >>> weighted_knn_vote(np.array([[0.0], [1.0], [5.0]]), np.array([0, 0, 1]), np.array([[4.0]]), 3, 2).tolist()
    [1]
    """
    idx, d2 = knn(Xte, Xtr, k)
    d = np.sqrt(d2)
    span = d[:, -1:] - d[:, :1]
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(span > 0, (d[:, -1:] - d) / span, 1.0)
    votes = np.zeros((len(Xte), n_classes))
    np.add.at(votes, (np.repeat(np.arange(len(Xte)), k), ytr[idx].ravel()), w.ravel())
    return np.argmax(votes, axis=1)


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------


def _rng(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def _formula(cols: list[str]) -> str:
    return "y ~ " + " + ".join(f'Q("{c}")' for c in cols)


def _eknn_quiet(formula: str, data: pd.DataFrame, k: int) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ev.eknn(formula, data, k=k)


def _rates(y: np.ndarray, dec: Any, method: str, **keys: Any) -> dict[str, Any]:
    r = credal_rates(list(y), list(dec))
    out = {**keys, "method": method, "error": r["error"], "imprecision": r["imprecision"],
           "imprecision_2": r.get("imprecision_2", 0.0), "imprecision_3": r.get("imprecision_3", 0.0),
           "outlier": r["outlier"]}
    return out


def _all_methods(train: pd.DataFrame, test: pd.DataFrame, cols: list[str], k: int, *, outlier: bool,
                 rhos: tuple[Any, ...]) -> dict[str, list]:
    """Decisions of every method on ``test`` (lists of labels / frozensets / OUTLIER)."""
    f = _formula(cols)
    levels = sorted(train["y"].unique())
    codes = pd.Categorical(train["y"], categories=levels).codes.astype(np.intp)
    Xtr, Xte = train[cols].to_numpy(float), test[cols].to_numpy(float)
    lev = np.asarray(levels, dtype=object)
    out: dict[str, list] = {
        "K-NN": list(lev[knn_vote(Xtr, codes, Xte, k, len(levels))]),
        "WK-NN": list(lev[weighted_knn_vote(Xtr, codes, Xte, k, len(levels))]),
    }
    ek = _eknn_quiet(f, train, k)
    out["EkNN"] = list(ek.decide(test, strategy="credal") if outlier else ek.decide(test, strategy="pignistic").astype(object))
    for rho in rhos:
        fit = ev.credal_knn(f, train, k=k, rho=rho, outlier=outlier)
        name = "EC" if rho == "loo" else f"EC rho={rho:g}"
        out[name] = list(fit.decide(test, strategy="credal"))
        if rho == "loo":
            out["_rho"] = [fit.rho]
    return out


# ------------------------------------------------------------------------------------------------
# parts
# ------------------------------------------------------------------------------------------------


def test12(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Test 1.2: (train, test with decisions, rates)."""
    train, test = simulate_credal_test12(100, seed=_rng(seed, 1))
    dec = _all_methods(train, test, ["x1", "x2"], 9, outlier=True, rhos=(3.0,))
    rows = []
    table = test.copy()
    for m in ("K-NN", "EkNN", "EC rho=3"):
        table[m] = [d if not isinstance(d, frozenset) else "{" + ", ".join(sorted(d)) + "}" for d in dec[m]]
        rows.append(_rates(test["y"].to_numpy(), dec[m], m))
    return train, test, table, pd.DataFrame(rows)


def simulation2(seed: int, runs: int, k_grid: tuple[int, ...], progress: Callable[[str], None]) -> pd.DataFrame:
    rows = []
    for ni, N in enumerate(N_GRID):
        for r in range(runs):
            train, test = simulate_credal_sim2(N, 100, seed=_rng(seed, 2, ni, r))
            for k in k_grid:
                dec = _all_methods(train, test, ["x1", "x2"], k, outlier=True, rhos=(3.0, 5.0))
                for m in METHODS:
                    rows.append(_rates(test["y"].to_numpy(), dec[m], m, N=N, run=r, K=k))
            progress(f"simulation 2: N = {N}, run {r + 1}/{runs}")
    return pd.DataFrame(rows)


def load_real(name: str) -> tuple[pd.DataFrame, list[str]]:
    """A real data set of 002 with its class column renamed ``y`` (classes as the paper)."""
    df = pd.read_csv(data_dir() / f"{name}.csv")
    if name == "iris":
        y = df.pop("Species")
    else:
        y = df.pop("Class")
    df["y"] = y.astype(str)
    if name == "ecoli":
        df = df[df["y"].isin(["cp", "im", "imU"])]
    elif name == "yeast":
        df = df[df["y"].isin(["CYT", "NUC", "ME3"])]
    elif name == "breast-cancer":
        df = df.dropna()
    cols = [c for c in df.columns if c != "y" and df[c].std() > 0]
    return df.reset_index(drop=True), cols


def _two_folds(y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Stratified halves: fold 0/1 per row (each class split at random into equal halves)."""
    fold = np.empty(len(y), dtype=int)
    for c in np.unique(y):
        rows = np.flatnonzero(y == c)
        perm = rng.permutation(rows)
        fold[perm[: len(rows) // 2]] = 0
        fold[perm[len(rows) // 2 :]] = 1
    return fold


def real_data(seed: int, runs: int, ks: tuple[int, ...], datasets: tuple[str, ...],
              progress: Callable[[str], None]) -> pd.DataFrame:
    rows = []
    for di, name in enumerate(datasets):
        df, cols = load_real(name)
        for r in range(runs):
            fold = _two_folds(df["y"].to_numpy(), _rng(seed, 3, di, r))
            for k in ks:
                for f in (0, 1):
                    train, test = df[fold != f], df[fold == f]
                    # Ecoli's lip and chg are constant on some training folds of cp/im/imU: dropped there
                    use = [c for c in cols if train[c].nunique() > 1]
                    dec = _all_methods(train, test, use, k, outlier=False, rhos=("loo",))
                    for m in ("K-NN", "WK-NN", "EkNN", "EC"):
                        row = _rates(test["y"].to_numpy(), dec[m], m, dataset=name, run=r, K=k, fold=f)
                        row["n_test"] = len(test)
                        row["rho"] = dec["_rho"][0] if m == "EC" else np.nan
                        rows.append(row)
            progress(f"real data: {name}, run {r + 1}/{runs}")
    return pd.DataFrame(rows)


def ionosphere_evclass() -> tuple[pd.DataFrame, list[str]]:
    """Ionosphere in evclass's row order (its first 176 rows train, the rest test)."""
    df = pd.read_csv(data_dir() / "ionosphere.csv")
    order = pd.read_csv(data_dir() / "ionosphere-evclass-order.csv")["row"].to_numpy() - 1
    df = df.iloc[order].reset_index(drop=True).rename(columns={"Class": "y"})
    cols = [c for c in df.columns if c != "y" and df[c].std() > 0]
    return df, cols


def eknn_ionosphere() -> pd.DataFrame:
    df, cols = ionosphere_evclass()
    tr, te = df.iloc[:176], df.iloc[176:]
    rows = []
    for k in range(1, 16):
        fit = _eknn_quiet(_formula(cols), tr, k)
        err = float(np.mean(fit.decide(te, strategy="pignistic").astype(str).to_numpy() != te["y"].to_numpy()))
        rows.append({"K": k, "loo_error": fit.loo_error, "test_error": err})
    return pd.DataFrame(rows)


def evnn_errors(seed: int, seeds: int, vowel_protos: tuple[int, ...],
                vowel_inits: tuple[str, ...] = ("pooled", "per_class")) -> pd.DataFrame:
    """Test errors of ``ev.evnn`` on evclass's Glass split (7 prototypes, evclass's pooled
    initialisation) and on Vowel (``vowel_protos`` prototypes, each initialisation of
    ``vowel_inits``; ``"per_class"`` is evclass's ``nprotoPerClass``: 33, 44, 55 prototypes are 3,
    4, 5 per class), one row per data set, prototype count, initialisation and seed."""
    rows = []
    g = pd.read_csv(data_dir() / "glass-evclass.csv").rename(columns={"Class": "y"})
    g["y"] = g["y"].astype(str)
    gcols = [c for c in g.columns if c != "y"]
    v = pd.read_csv(data_dir() / "vowel.csv").rename(columns={"Class": "y"})
    v["y"] = v["y"].astype(str)
    vcols = [c for c in v.columns if c != "y"]
    for s in range(seeds):
        sd = int(np.random.SeedSequence(seed, spawn_key=(5, s)).generate_state(1)[0])
        for name, df, cols, ntr, protos, inits in (("glass", g, gcols, 89, (7,), ("pooled",)),
                                                   ("vowel", v, vcols, 528, vowel_protos, vowel_inits)):
            tr, te = df.iloc[:ntr], df.iloc[ntr:]
            for init in inits:
                for r in protos:
                    t0 = time.time()
                    fit = ev.evnn(_formula(cols), tr, prototypes=r, seed=sd, init=init)
                    err = float(np.mean(fit.decide(te, strategy="pignistic").astype(str).to_numpy() != te["y"].to_numpy()))
                    rows.append({"data": name, "prototypes": r, "init": init, "seed": sd, "train_error": fit.train_error,
                                 "test_error": err, "n_iter": fit.n_iter, "seconds": round(time.time() - t0, 2)})
    return pd.DataFrame(rows)


def partial_ionosphere(seed: int, runs: int, shares: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)) -> pd.DataFrame:
    """Noisy and uncertain labels on Ionosphere (evclass split, K = 10).

    For a share ``s`` of the training rows, drawn at random, a noise level ``p ~ U(0, 1)`` is
    drawn and, with probability ``p``, the label is replaced by a class drawn uniformly (it may
    stay the same). *Crisp*: the clean labels. *Noisy-crisp*: the noisy labels as if they were
    sure. *Uncertain*: the noisy label discounted by ``p``, ``m({noisy}) = 1 - p``, ``m(Omega) =
    p`` (Denoeux and Zouhal 2001's possibilistic labels: plausibility 1 for the noisy label, ``p``
    for the other).
    """
    df, cols = ionosphere_evclass()
    tr, te = df.iloc[:176].copy(), df.iloc[176:]
    levels = sorted(tr["y"].unique())
    fr = Frame(levels)
    codes = pd.Categorical(tr["y"], categories=levels).codes.astype(int)
    f = _formula(cols)
    crisp_err = float(np.mean(_eknn_quiet(f, tr, 10).decide(te, strategy="pignistic").astype(str).to_numpy()
                              != te["y"].to_numpy()))
    rows = []
    for si, s in enumerate(shares):
        for r in range(runs):
            rng = _rng(seed, 6, si, r)
            chosen = rng.random(len(tr)) < s
            p = rng.uniform(size=len(tr))
            flip = chosen & (rng.random(len(tr)) < p)
            noisy = codes.copy()
            noisy[flip] = rng.integers(0, len(levels), size=int(flip.sum()))
            noisy_df = tr.assign(y=np.asarray(levels, dtype=object)[noisy])
            e_noisy = _eknn_quiet(f, noisy_df, 10)
            vals = np.zeros((len(tr), 1 << len(levels)))
            w = np.where(chosen, p, 0.0)
            vals[np.arange(len(tr)), 1 << noisy] = 1.0 - w
            vals[:, -1] += w
            e_unc = ev.eknn(f, noisy_df, k=10, label_masses=MassArray(fr, vals, index=tr.index))
            row = {"share": s, "run": r, "crisp": crisp_err}
            for name, fit in (("noisy_crisp", e_noisy), ("uncertain", e_unc)):
                row[name] = float(np.mean(fit.decide(te, strategy="pignistic").astype(str).to_numpy()
                                          != te["y"].to_numpy()))
            row["flipped"] = int(np.sum(noisy != codes))
            rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------------
# tables, claims and figures
# ------------------------------------------------------------------------------------------------


def sim2_table(rates: pd.DataFrame) -> pd.DataFrame:
    """Means over runs at the K of lowest mean error of each method and N."""
    mean = rates.groupby(["N", "method", "K"], sort=False).mean(numeric_only=True).reset_index()
    best = mean.loc[mean.groupby(["N", "method"], sort=False)["error"].idxmin()]
    return best.drop(columns=["run"]).reset_index(drop=True)


def real_table(rates: pd.DataFrame) -> pd.DataFrame:
    """Rates pooled over the two folds (weighted by test size), averaged over runs."""
    r = rates.copy()
    for c in ("error", "imprecision", "imprecision_2", "imprecision_3", "outlier"):
        r[c] = r[c] * r["n_test"]
    g = r.groupby(["dataset", "K", "method", "run"], sort=False).sum(numeric_only=True)
    for c in ("error", "imprecision", "imprecision_2", "imprecision_3", "outlier"):
        g[c] = g[c] / g["n_test"]
    rho = rates.groupby(["dataset", "K", "method"], sort=False)["rho"].mean()
    out = g.groupby(["dataset", "K", "method"], sort=False)[["error", "imprecision", "imprecision_2", "outlier"]].mean()
    out["rho_mean"] = rho
    return out.reset_index()


def claims(sim: pd.DataFrame, real: pd.DataFrame | None) -> pd.DataFrame:
    rows = []
    tab = sim2_table(sim)
    for N, t in tab.groupby("N"):
        e = t.set_index("method")["error"]
        imp = t.set_index("method")["imprecision"]
        others = e[["K-NN", "WK-NN", "EkNN"]].min()
        rows.append({"claim": f"Sim2 N={N}: EC (rho 3 and 5) has a lower error than K-NN, WK-NN and EkNN at their best K",
                     "value": f"EC3 {e['EC rho=3']:.4f}, EC5 {e['EC rho=5']:.4f}, best other {others:.4f}",
                     "holds": bool(max(e["EC rho=3"], e["EC rho=5"]) < others)})
        rows.append({"claim": f"Sim2 N={N}: EC pays with imprecision (meta-class rate > 0)",
                     "value": f"EC3 {imp['EC rho=3']:.4f}, EC5 {imp['EC rho=5']:.4f}",
                     "holds": bool(min(imp["EC rho=3"], imp["EC rho=5"]) > 0)})
    # rho 5 vs rho 3 at the same K, averaged over runs and K
    m = sim.groupby(["N", "method"])[["error", "imprecision", "outlier"]].mean()
    for N in sorted(sim["N"].unique()):
        a, b = m.loc[(N, "EC rho=3")], m.loc[(N, "EC rho=5")]
        for what, sign in (("imprecision", ">"), ("error", "<"), ("outlier", "<")):
            holds = b[what] > a[what] if sign == ">" else b[what] < a[what]
            if what == "outlier" and a[what] == 0 and b[what] == 0:
                holds = True
            rows.append({"claim": f"Sim2 N={N}: rho = 5 gives {'more' if sign == '>' else 'less'} {what} than rho = 3 "
                                  "(mean over runs and K)",
                         "value": f"rho3 {a[what]:.4f}, rho5 {b[what]:.4f}", "holds": bool(holds)})
    if real is not None and len(real):
        tab = real_table(real)
        for (name, k), t in tab.groupby(["dataset", "K"], sort=False):
            e = t.set_index("method")["error"]
            rows.append({"claim": f"{name} K={k}: EC has the lowest error (true class outside the decided set)",
                         "value": ", ".join(f"{mm} {e[mm]:.4f}" for mm in ("K-NN", "WK-NN", "EkNN", "EC")),
                         "holds": bool(e["EC"] < e[["K-NN", "WK-NN", "EkNN"]].min())})
    return pd.DataFrame(rows)


_MARK = {"single": "o", "meta2": "*", "meta3": "h", "outlier": "X"}


def _plot_credal(ax: Any, test: pd.DataFrame, decisions: list, title: str, classes: list[str]) -> None:
    colors = dict(zip(classes, ["tab:blue", "tab:green", "tab:red", "tab:purple"]))
    X = test[["x1", "x2"]].to_numpy()
    kinds: dict[str, list[int]] = {}
    for i, d in enumerate(decisions):
        key = d if isinstance(d, str) else "{" + ", ".join(sorted(d)) + "}"
        kinds.setdefault(key, []).append(i)
    for key, rows in sorted(kinds.items()):
        pts = X[rows]
        if key == OUTLIER:
            ax.scatter(pts[:, 0], pts[:, 1], marker="X", s=70, c="magenta", label="outlier")
        elif key in colors:
            ax.scatter(pts[:, 0], pts[:, 1], marker="o", s=18, c=colors[key], label=key)
        else:
            ax.scatter(pts[:, 0], pts[:, 1], marker="*" if key.count(",") == 1 else "h", s=90, c="black",
                       label=key)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="best")


def figures(out: Path, train: pd.DataFrame, t12: pd.DataFrame, ion: pd.DataFrame | None, part: pd.DataFrame | None,
            seed: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    classes = sorted(train["y"].unique())
    fig, axes = plt.subplots(1, 4, figsize=(17, 4.2))
    for c, col in zip(classes, ["tab:blue", "tab:green", "tab:red"]):
        tr = train[train["y"] == c]
        axes[0].scatter(tr["x1"], tr["x2"], s=14, c=col, label=f"{c} (train)")
    axes[0].set_title("(a) training data", fontsize=10)
    axes[0].legend(fontsize=7)
    for ax, m in zip(axes[1:], ("K-NN", "EkNN", "EC rho=3")):
        dec = [d if not (isinstance(d, str) and d.startswith("{")) else frozenset(d.strip("{}").split(", "))
               for d in t12[m]]
        _plot_credal(ax, t12, dec, f"{m} (K = 9)", classes)
    fig.tight_layout()
    fig.savefig(out / "fig_test12.png", dpi=110)
    plt.close(fig)
    if ion is not None:
        fig, ax = plt.subplots(figsize=(5.5, 3.8))
        ax.plot(ion["K"], ion["loo_error"], "o-", label="LOO error (training)")
        ax.plot(ion["K"], ion["test_error"], "s-", label="test error")
        ax.axhline(13 / 175, ls=":", c="gray", label="Denoeux: 0.0743 at K = 10")
        ax.set_xlabel("K")
        ax.set_ylabel("error rate")
        ax.set_title("EkNN on Ionosphere (evclass split)", fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "fig_eknn_ionosphere.png", dpi=110)
        plt.close(fig)
    # evidential neural network on iris petals: decision regions and m(Omega)
    iris = pd.read_csv(data_dir() / "iris.csv").rename(columns={"Species": "y"})
    cols = ["petal length (cm)", "petal width (cm)"]
    fit = ev.evnn(_formula(cols), iris, prototypes=6, seed=int(np.random.SeedSequence(seed, spawn_key=(7,)).generate_state(1)[0]))
    gx, gy = np.meshgrid(np.linspace(0, 8, 161), np.linspace(-0.5, 3.5, 81))
    grid = pd.DataFrame({cols[0]: gx.ravel(), cols[1]: gy.ravel()})
    bel = fit.predict(grid, type="belief")
    cls = np.argmax(bel["theta"].to_numpy(), axis=1)
    ign = 1.0 - bel["bel"].to_numpy().sum(axis=1)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    axes[0].contourf(gx, gy, cls.reshape(gx.shape), levels=[-0.5, 0.5, 1.5, 2.5], alpha=0.3,
                     colors=["tab:blue", "tab:green", "tab:red"])
    cs = axes[1].contourf(gx, gy, ign.reshape(gx.shape), levels=np.linspace(0, 1, 11), cmap="Greys")
    fig.colorbar(cs, ax=axes[1], label="m(Omega)")
    for ax in axes:
        for c, col in zip(sorted(iris["y"].unique()), ["tab:blue", "tab:green", "tab:red"]):
            t = iris[iris["y"] == c]
            ax.scatter(t[cols[0]], t[cols[1]], s=10, c=col, label=c)
        ax.scatter(fit.W[:, 0], fit.W[:, 1], marker="P", s=120, c="black", label="prototypes")
        ax.set_xlabel(cols[0])
        ax.set_ylabel(cols[1])
    axes[0].set_title("Evidential NN (6 prototypes): class of largest BetP", fontsize=10)
    axes[1].set_title("Evidential NN: ignorance m(Omega)", fontsize=10)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "fig_evnn_iris.png", dpi=110)
    plt.close(fig)
    if part is not None:
        m = part.groupby("share")[["crisp", "noisy_crisp", "uncertain"]].mean()
        fig, ax = plt.subplots(figsize=(5.5, 3.8))
        for c, lab in (("crisp", "clean labels"), ("noisy_crisp", "noisy labels as crisp"),
                       ("uncertain", "noisy labels as uncertain (m(Omega) = p)")):
            ax.plot(m.index, m[c], "o-", label=lab)
        ax.set_xlabel("share of training labels with noise")
        ax.set_ylabel("test error (K = 10)")
        ax.set_title("Partially supervised EkNN, Ionosphere", fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "fig_partial_ionosphere.png", dpi=110)
        plt.close(fig)


# ------------------------------------------------------------------------------------------------
# the runner
# ------------------------------------------------------------------------------------------------


@dataclass
class CredalStudy:
    """What :func:`run_credal_knn` wrote."""

    out: Path
    seconds: float
    claims: pd.DataFrame


def run_credal_knn(
    out: str | Path,
    runs: int = 10,
    seed: int = 2019,
    k_grid: tuple[int, ...] = K_GRID,
    real_k: tuple[int, ...] = REAL_K,
    datasets: tuple[str, ...] = REAL_DATASETS,
    evnn_seeds: int = 5,
    vowel_prototypes: tuple[int, ...] = (33, 44, 55),
    lecture: bool = True,
    quiet: bool = False,
    command: str | None = None,
) -> CredalStudy:
    """Run the credal K-NN study and the lecture examples; write CSVs, figures and claims.

    Parameters
    ----------
    out : path
        Output folder (created).
    runs : int, default 10
        Monte-Carlo runs of Simulation 2 and repetitions of the 2-fold cross-validation (the
        paper: 10 and 1).
    seed : int
        Root seed.
    k_grid, real_k : tuple of int
        K of Simulation 2 and of the real-data tables.
    datasets : tuple of str
        Real data sets (subset of :data:`REAL_DATASETS`).
    evnn_seeds : int
        Seeds of the evidential neural network checks.
    vowel_prototypes : tuple of int
        Prototype counts on Vowel (Denoeux: 33 to 55).
    lecture : bool
        Run part 5 (the lecture examples).
    quiet : bool
        No progress lines.
    command : str, optional
        Recorded in ``study.json``.

    Returns
    -------
    CredalStudy

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     res = run_credal_knn(d, runs=1, k_grid=(9,), real_k=(5,), datasets=("iris",),
    ...                          lecture=False, quiet=True)
    ...     sorted(p.name for p in res.out.glob("*.csv"))[:3]
    ['claims.csv', 'real_rates.csv', 'real_table.csv']
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    bad = [d for d in datasets if d not in REAL_DATASETS]
    if bad:
        raise ValueError(f"unknown data set(s) {bad}; choose from {list(REAL_DATASETS)}")
    t0 = time.time()

    def progress(msg: str) -> None:
        if not quiet:
            print(f"[{time.time() - t0:7.1f} s] {msg}", flush=True)

    train, _, t12, t12_rates = test12(seed)
    t12.to_csv(out / "test12_decisions.csv", index=False)
    t12_rates.to_csv(out / "test12_rates.csv", index=False)
    progress("test 1.2 done")
    sim = simulation2(seed, runs, tuple(k_grid), progress)
    sim.to_csv(out / "sim2_rates.csv", index=False)
    sim2_table(sim).to_csv(out / "sim2_table.csv", index=False)
    real = real_data(seed, runs, tuple(real_k), tuple(datasets), progress) if datasets else None
    if real is not None:
        real.to_csv(out / "real_rates.csv", index=False)
        real_table(real).to_csv(out / "real_table.csv", index=False)
    ion = part = None
    if lecture:
        ion = eknn_ionosphere()
        ion.to_csv(out / "eknn_ionosphere.csv", index=False)
        progress("EkNN ionosphere done")
        evnn_errors(seed, evnn_seeds, tuple(vowel_prototypes)).to_csv(out / "evnn_errors.csv", index=False)
        progress("evidential NN done")
        part = partial_ionosphere(seed, runs)
        part.to_csv(out / "partial_ionosphere.csv", index=False)
        progress("partial EkNN done")
    cl = claims(sim, real)
    cl.to_csv(out / "claims.csv", index=False)
    figures(out, train, t12, ion, part, seed)
    seconds = time.time() - t0
    (out / "study.json").write_text(json.dumps(
        {"study": "credal-knn", "command": command, "runs": runs, "seed": seed, "k_grid": list(k_grid),
         "real_k": list(real_k), "datasets": list(datasets), "evnn_seeds": evnn_seeds,
         "vowel_prototypes": list(vowel_prototypes), "lecture": lecture, "seconds": round(seconds, 1)},
        indent=2) + "\n")
    return CredalStudy(out=out, seconds=seconds, claims=cl)
