"""Make the example score tables ``data/<name>_scores.csv`` (two-class and K-class).

Run from the repository root::

    pip install ".[experiments]" && python data/make_scores.py

It rewrites ``data/{sonar,ionosphere,pima,heart,wdbc,simulated}_scores.csv`` (two classes, the
decision values of three SVMs) and ``data/{iris,vehicle}_scores.csv`` (K classes, section
"K-class tables" below). Running it twice
gives byte-identical files (same seed, deterministic SVMs, values rounded to 10 significant
digits, ``\\n`` line endings). ``python data/make_scores.py --help`` lists the options (output
folder, datasets, seed).

Protocol (after Minary et al. 2019, section 5.2, one random partition instead of 100)
----------------------------------------------------------------------------------
For each binary dataset (and for ``evstat.datasets.simulate_gaussian(360, seed=2019)``):

1. The class is coded ``y = 1`` for the positive class below and ``y = 0`` otherwise.
2. Three non-overlapping SVM training sets of 10, 20 and 20 rows are drawn at random. In the
   paper, the training set of each classifier is halved, one half training the SVM and the other
   calibrating it; 10 and 20 are the SVM halves of Table 2's #Train1 = 20 and #Train2 = 40 rows
   (Heart, Ionosphere, Sonar, Simulated), and 20 is the SVM half of a middle #Train3 of 40 rows
   (the paper varies #Train3 from 10 to 190). The same sizes are used for every dataset, so each
   table has 50 rows fewer than its dataset.
3. Each training set is stratified: it holds ``floor(size * n1 / n + 1/2)`` positive rows
   (``n1`` positives among the ``n`` rows of the dataset), clipped to ``[1, size - 1]`` so both
   classes are present, and the rest negative rows.
4. Each SVM is ``StandardScaler`` fitted on its own training rows followed by
   ``SVC(kernel="rbf", C=1.0, gamma="scale")`` (scikit-learn's LIBSVM; its defaults, no tuning,
   like the paper which gives no hyper-parameters). The score is ``decision_function``, whose
   sign is such that larger values mean the positive class (``y = 1``).
5. All remaining rows (used to train no SVM) are scored by the three SVMs and split at random,
   stratified by class, into a calibration half and a test half. The calibration part gets
   ``floor(N / 2)`` of the ``N`` remaining rows (the test part the odd row, if any), shared
   between the classes in proportion to their counts (largest remainder; a tie goes to class 0).
   The paper's calibration halves are not drawn separately: the calibration part plays their
   role and is larger, so users can take subsets of it (e.g. 45 or 15 rows as in section 5.4).

Randomness: the rows of each class are permuted once by a numpy Generator seeded from the child
``numpy.random.SeedSequence(seed).spawn(1)[0]`` (the default ``seed`` is 2019); the first rows of
the permutation train SVM 1, the next SVM 2, then SVM 3, then calibration, the rest are test.
The simulated data are drawn with ``simulate_gaussian(360, seed=seed)`` from the root seed, so
they can be regenerated directly and are independent of the partition stream.

Positive class (y = 1)
----------------------
sonar ``M`` (mine; ``R`` rock is 0), ionosphere ``bad`` (``good`` is 0), pima ``pos`` (``neg``
is 0), heart ``present`` (``absent`` is 0), wdbc ``malignant`` (``benign`` is 0), simulated class
``1`` (mean (1, 1); class ``0`` has mean (-1, 0)).

Output columns
--------------
``row``     1-based row number in the original CSV (simulated: in the simulated frame);
``svm1``, ``svm2``, ``svm3``  decision values of the SVMs trained on 10, 20 and 20 rows;
``y``       0/1 class code (1 = positive class);
``label``   the original class label (a string; for the simulated data the integer class);
``set``     ``"calibration"`` or ``"test"``.
Rows keep the order of the original dataset. Pima's zeros (the source's coding of missing
values) are used as they are.

K-class tables (iris, K = 3; vehicle, K = 4)
--------------------------------------------
1. The rows of each class are permuted by the same seeded stream as above (child 0 of
   ``SeedSequence(seed)``) and split, per class, into ``"train"`` (the first
   ``floor(n_c / 3)`` rows of a class of ``n_c`` rows), ``"calibration"`` (the next
   ``ceil((n_c - floor(n_c / 3)) / 2)``) and ``"test"`` (the rest): iris 48 / 51 / 51,
   vehicle 280 / 284 / 282.
2. The features are standardised with a ``StandardScaler`` fitted on the train rows only.
3. Two classifiers are fitted on the train rows and score every row (train rows too, so that the
   optimism of training-set scores can be seen; calibrate on ``set == "calibration"`` only):

   * multinomial logistic regression, ``LogisticRegression(C=1.0, max_iter=10000)`` (L2 penalty,
     lbfgs), in three forms. ``lr_<class>`` for every class but the first (in sorted order: iris
     ``setosa``, vehicle ``bus``): the log-ratios ``log(p_class / p_first)``, differences of its
     linear predictors, K - 1 unconstrained columns, the scores for ``evmultinom`` and
     ``matrix_scaling`` (the K probabilities sum to 1, so all K of them are collinear with the
     intercept; softmax is invariant to a common shift of the logits, so the K - 1 log-ratios
     carry everything). ``logp_<class>``: the K log-probabilities ``log p_class`` (logits
     normalised by ``logsumexp``), one column per class as ``temperature`` and
     ``vector_scaling`` want. ``p_<class>``: the K probabilities (``predict_proba``, what most
     users have), one per class as ``dirichlet`` wants;
   * one-vs-rest RBF SVMs, ``OneVsRestClassifier(SVC(kernel="rbf", C=1.0, gamma="scale"))``:
     column ``svm_<class>`` is the decision value of the SVM of that class against the others
     (larger = more that class). The K columns come from K separate fits and are not collinear;
     all K can enter a formula.

Columns: ``row`` (1-based row of the source CSV), ``lr_<class>`` (K - 1), ``logp_<class>``,
``p_<class>``, ``svm_<class>`` (K each),
``y`` (the class label as in the source), ``set`` (``"train"``, ``"calibration"``, ``"test"``).
Values are rounded to 10 significant digits; rows keep the source order.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import logsumexp

import evstat.datasets as evd

SEED = 2019
"""Default seed of the committed tables."""

TRAIN_SIZES = (10, 20, 20)
"""Rows used to train SVM 1, 2 and 3."""

SIMULATED_N = 360
"""Rows of the simulated data set (paper 000, section 5.1)."""

POSITIVE: dict[str, tuple[str, object]] = {
    "sonar": ("Class", "M"),
    "ionosphere": ("Class", "bad"),
    "pima": ("diabetes", "pos"),
    "heart": ("Class", "present"),
    "wdbc": ("Class", "malignant"),
    "simulated": ("y", 1),
}
"""Dataset name -> (class column, label coded y = 1)."""

KCLASS: dict[str, str] = {"iris": "Species", "vehicle": "Class"}
"""K-class dataset name -> class column (section "K-class tables" of the docstring)."""

DATASETS = tuple(POSITIVE)
ALL_DATASETS = DATASETS + tuple(KCLASS)
COLUMNS = ["row", "svm1", "svm2", "svm3", "y", "label", "set"]
SIGNIFICANT_DIGITS = 10


def load_raw(name: str, seed: int = SEED) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return features ``X`` (float), the 0/1 class code ``y`` and the original labels.

    ``seed`` is only used by ``"simulated"`` (``simulate_gaussian(360, seed=seed)``).
    """
    if name not in POSITIVE:
        raise ValueError(f"unknown dataset {name!r}; choose one of: {', '.join(DATASETS)}")
    column, positive = POSITIVE[name]
    frame = (
        evd.simulate_gaussian(SIMULATED_N, seed=seed) if name == "simulated" else evd.load(name)
    )
    labels = frame[column].to_numpy()
    levels = pd.unique(labels)
    if len(levels) != 2 or positive not in set(levels):
        raise ValueError(
            f"dataset {name!r}: class column {column!r} must have two levels including "
            f"{positive!r}, found {list(levels)}"
        )
    X = frame.drop(columns=[column]).to_numpy(dtype=float)
    y = (labels == positive).astype(int)
    return X, y, labels


def _largest_remainder(counts: np.ndarray, total: int) -> np.ndarray:
    """Share ``total`` between classes in proportion to ``counts`` (ties: lower class first)."""
    n = int(counts.sum())
    share = counts * total // n
    remainder = counts * total % n
    missing = total - int(share.sum())
    order = np.lexsort((np.arange(len(counts)), -remainder))  # largest remainder, then class
    share[order[:missing]] += 1
    return share


def assign_roles(y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Give every row a role: ``"svm1"``, ``"svm2"``, ``"svm3"``, ``"calibration"`` or ``"test"``.

    See the module docstring (steps 2, 3 and 5) for the rule.
    """
    y = np.asarray(y)
    n = len(y)
    counts = np.array([(y == 0).sum(), (y == 1).sum()])
    # Per class: numbers of rows for svm1, svm2, svm3.
    take = np.zeros((2, len(TRAIN_SIZES)), dtype=int)
    for j, size in enumerate(TRAIN_SIZES):
        k1 = int(np.floor(size * counts[1] / n + 0.5))
        k1 = min(max(k1, 1), size - 1)
        take[:, j] = (size - k1, k1)
    rest = counts - take.sum(axis=1)
    if np.any(rest < 2):
        raise ValueError(
            f"too few rows: classes have {counts.tolist()} rows, the SVMs take "
            f"{take.sum(axis=1).tolist()} and calibration and test need 1 row of each class"
        )
    n_rest = int(rest.sum())
    cal = _largest_remainder(rest, n_rest // 2)
    cal = np.clip(cal, 1, rest - 1)
    roles = np.empty(n, dtype=object)
    for c in (0, 1):
        idx = rng.permutation(np.flatnonzero(y == c))
        ends = np.cumsum(np.r_[take[c], cal[c]])
        for role, block in zip(
            ("svm1", "svm2", "svm3", "calibration", "test"), np.split(idx, ends), strict=True
        ):
            roles[block] = role
    return roles


def _round_significant(x: np.ndarray, digits: int = SIGNIFICANT_DIGITS) -> np.ndarray:
    return np.array([float(f"{v:.{digits}g}") for v in x], dtype=float)


def make_scores(name: str, seed: int = SEED) -> pd.DataFrame:
    """Return the score table of one dataset (columns ``row, svm1, svm2, svm3, y, label, set``).

    >>> df = make_scores("sonar")
    >>> df.shape, df["set"].value_counts().sort_index().to_dict()
    ((158, 7), {'calibration': 79, 'test': 79})
    """
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    X, y, labels = load_raw(name, seed)
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    roles = assign_roles(y, rng)
    scored = np.flatnonzero((roles == "calibration") | (roles == "test"))
    out = pd.DataFrame({"row": scored + 1})
    for j in range(1, len(TRAIN_SIZES) + 1):
        train = roles == f"svm{j}"
        scaler = StandardScaler().fit(X[train])
        svm = SVC(kernel="rbf", C=1.0, gamma="scale").fit(scaler.transform(X[train]), y[train])
        assert list(svm.classes_) == [0, 1]  # decision_function > 0 means class 1
        values = svm.decision_function(scaler.transform(X[scored]))
        out[f"svm{j}"] = _round_significant(values)
    out["y"] = y[scored]
    out["label"] = labels[scored]
    out["set"] = roles[scored].astype(str)
    return out[COLUMNS]


def assign_kclass_roles(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Give every row a role ``"train"``, ``"calibration"`` or ``"test"``, stratified by class.

    Per class of ``n_c`` rows, in sorted class order: ``floor(n_c / 3)`` train rows, then
    ``ceil((n_c - floor(n_c / 3)) / 2)`` calibration rows, the rest test rows.

    >>> roles = assign_kclass_roles(np.repeat(["a", "b"], 50), np.random.default_rng(0))
    >>> pd.Series(roles).value_counts().sort_index().to_dict()
    {'calibration': 34, 'test': 34, 'train': 32}
    """
    labels = np.asarray(labels)
    roles = np.empty(len(labels), dtype=object)
    for level in np.unique(labels):
        idx = rng.permutation(np.flatnonzero(labels == level))
        n_train = len(idx) // 3
        n_cal = -(-(len(idx) - n_train) // 2)
        if len(idx) - n_train - n_cal < 1 or n_train < 1:
            raise ValueError(f"class {str(level)!r} has {len(idx)} rows; each part needs at least 1")
        for role, block in zip(
            ("train", "calibration", "test"), np.split(idx, [n_train, n_train + n_cal]), strict=True
        ):
            roles[block] = role
    return roles


def make_kclass_scores(name: str, seed: int = SEED) -> pd.DataFrame:
    """Return the K-class score table of ``"iris"`` or ``"vehicle"`` (docstring, K-class tables).

    >>> df = make_kclass_scores("iris")
    >>> [c for c in df.columns if not c.startswith(("logp_", "p_"))]
    ['row', 'lr_versicolor', 'lr_virginica', 'svm_setosa', 'svm_versicolor', 'svm_virginica', 'y', 'set']
    >>> df["set"].value_counts().sort_index().to_dict()
    {'calibration': 51, 'test': 51, 'train': 48}
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    if name not in KCLASS:
        raise ValueError(f"unknown K-class dataset {name!r}; choose one of: {', '.join(KCLASS)}")
    frame = evd.load(name)
    labels = frame[KCLASS[name]].to_numpy()
    X = frame.drop(columns=[KCLASS[name]]).to_numpy(dtype=float)
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    roles = assign_kclass_roles(labels, rng)
    train = roles == "train"
    scaler = StandardScaler().fit(X[train])
    Z, Z_train = scaler.transform(X), scaler.transform(X[train])
    lr = LogisticRegression(C=1.0, max_iter=10000).fit(Z_train, labels[train])
    svm = OneVsRestClassifier(SVC(kernel="rbf", C=1.0, gamma="scale")).fit(Z_train, labels[train])
    classes = [str(c) for c in lr.classes_]
    assert classes == sorted(classes) and classes == [str(c) for c in svm.classes_]
    eta = lr.decision_function(Z)  # linear predictors; log p_k = eta_k - logsumexp(eta)
    log_p = eta - logsumexp(eta, axis=1, keepdims=True)
    out = pd.DataFrame({"row": np.arange(1, len(labels) + 1)})
    for k in range(1, len(classes)):
        out[f"lr_{classes[k]}"] = _round_significant(eta[:, k] - eta[:, 0])
    for k, level in enumerate(classes):
        out[f"logp_{level}"] = _round_significant(log_p[:, k])
    for k, level in enumerate(classes):
        out[f"p_{level}"] = _round_significant(np.exp(log_p[:, k]))
    decision = svm.decision_function(Z)
    for k, level in enumerate(classes):
        out[f"svm_{level}"] = _round_significant(decision[:, k])
    out["y"] = labels
    out["set"] = roles.astype(str)
    return out


def write_scores(name: str, out_dir: str | Path, seed: int = SEED) -> Path:
    """Write ``<out_dir>/<name>_scores.csv`` (two-class or K-class) and return its path."""
    path = Path(out_dir) / f"{name}_scores.csv"
    table = make_kclass_scores(name, seed) if name in KCLASS else make_scores(name, seed)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        table.to_csv(fh, index=False, float_format=f"%.{SIGNIFICANT_DIGITS}g", lineterminator="\n")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry: write the score tables, print one line per file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out-dir", default=str(Path(__file__).resolve().parent),
        help="folder to write to (default: the folder of this script, i.e. data/)",
    )
    parser.add_argument(
        "--datasets", nargs="+", default=list(ALL_DATASETS), choices=ALL_DATASETS,
        help="datasets to score (default: all)",
    )
    parser.add_argument("--seed", type=int, default=SEED, help=f"seed (default {SEED})")
    args = parser.parse_args(argv)
    for name in args.datasets:
        path = write_scores(name, args.out_dir, args.seed)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
