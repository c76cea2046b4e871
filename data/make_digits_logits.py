"""Make ``data/digits_logits.csv``: a small network's logits on scikit-learn's digits (K = 10).

Run from the repository root::

    pip install ".[experiments]" && python data/make_digits_logits.py

A real ten-class example for the K-class calibrators (issue 36 item 4): the pre-softmax outputs
of a small neural network, out of sample, for a calibration split and a test split. The data are
scikit-learn's ``load_digits`` (the 1,797 8 x 8 images of the UCI "Optical Recognition of
Handwritten Digits" test set, which ship inside scikit-learn: nothing is downloaded).

Protocol
--------
1. Split (numpy only, ``np.random.default_rng(np.random.SeedSequence(2019).spawn(1)[0])``): the
   rows of each digit, in digit order, are permuted and split into ``floor(n / 2)`` train rows,
   ``ceil((n - floor(n / 2)) / 2)`` calibration rows and the rest test rows (the rule of
   ``make_scores.py``'s K-class tables with a half instead of a third for training). That gives
   896 train, 454 calibration and 447 test rows.
2. Network: the pixels divided by 16 (their range is 0..16), then scikit-learn's
   ``MLPClassifier(hidden_layer_sizes=(32,), activation="relu", solver="lbfgs", alpha=1e-2,
   max_iter=500, random_state=0)`` fitted on the train rows only, so that the calibration and
   test logits are out of sample. lbfgs is deterministic for a given ``random_state`` (no
   mini-batches); the network fits its training rows exactly and is over-confident on new
   rows, which is what calibration is for.
3. Logits: computed from the fitted weights with our own matrix products (not a private method
   of scikit-learn): ``h = max(0, X W1 + b1)``, ``z = h W2 + b2`` with ``W1, W2 = coefs_`` and
   ``b1, b2 = intercepts_``; ``z`` is the output layer before the softmax. The script checks that
   ``softmax(z)`` equals ``predict_proba`` (to 1e-10) and that the class order ``classes_`` is
   0..9.
4. Values are rounded to 10 significant digits, ``\\n`` line endings.

Columns: ``row`` (1-based row of ``load_digits()``), ``logit_0`` .. ``logit_9`` (the class
logits, matched to the classes 0..9 by the ``<prefix>_<class>`` rule of the K-class
calibrators), ``y`` (the digit, 0..9) and ``set`` (``calibration`` or ``test``; the train rows
are not in the table).

Reproducibility: running the script twice gives a byte-identical file. The split depends only
on numpy's Generator and the data; the logits on scikit-learn's MLP and the floating-point
arithmetic of the machine. The committed file was made with scikit-learn
:data:`SKLEARN_VERSION` (numpy :data:`NUMPY_VERSION`); the tests compare a fresh run with it:
the columns ``row``, ``y``, ``set`` exactly, the logits to 1e-6 relative with that
scikit-learn version, and with another version only the decisions (argmax agreeing on 97 % of
the rows), since another version's optimiser may stop at a slightly different network.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

SEED = 2019
#: the versions that made the committed file
SKLEARN_VERSION = "1.9.1"
NUMPY_VERSION = "2.4.6"
SIGNIFICANT_DIGITS = 10
HIDDEN = (32,)
CLASSES = list(range(10))
COLUMNS = ["row", *[f"logit_{k}" for k in CLASSES], "y", "set"]
FILE = "digits_logits.csv"


def assign_roles(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``"train"``, ``"calibration"`` or ``"test"`` for every row, stratified by class.

    >>> roles = assign_roles(np.repeat([0, 1], 10), np.random.default_rng(0))
    >>> pd.Series(roles).value_counts().sort_index().to_dict()
    {'calibration': 6, 'test': 4, 'train': 10}
    """
    labels = np.asarray(labels)
    roles = np.empty(len(labels), dtype=object)
    for level in np.unique(labels):
        idx = rng.permutation(np.flatnonzero(labels == level))
        n_train = len(idx) // 2
        n_cal = -(-(len(idx) - n_train) // 2)
        for role, block in zip(
            ("train", "calibration", "test"), np.split(idx, [n_train, n_train + n_cal]), strict=True
        ):
            roles[block] = role
    return roles


def logits(net: object, X: np.ndarray) -> np.ndarray:
    """The output layer of a fitted ``MLPClassifier`` (ReLU hidden layers) before the softmax,
    from its weights ``coefs_`` and ``intercepts_``."""
    h = np.asarray(X, dtype=np.float64)
    coefs, intercepts = net.coefs_, net.intercepts_  # type: ignore[attr-defined]
    for W, b in zip(coefs[:-1], intercepts[:-1], strict=True):
        h = np.maximum(h @ W + b, 0.0)
    return h @ coefs[-1] + intercepts[-1]


def _round_significant(x: np.ndarray, digits: int = SIGNIFICANT_DIGITS) -> np.ndarray:
    return np.array([float(f"{v:.{digits}g}") for v in np.ravel(x)], dtype=float).reshape(np.shape(x))


def make_digits_logits(seed: int = SEED) -> pd.DataFrame:
    """The table of ``data/digits_logits.csv`` (module docstring).

    >>> df = make_digits_logits()
    >>> df.shape, df["set"].value_counts().sort_index().to_dict()
    ((901, 13), {'calibration': 454, 'test': 447})
    """
    from scipy.special import softmax
    from sklearn.datasets import load_digits
    from sklearn.neural_network import MLPClassifier

    digits = load_digits()
    X, y = digits.data / 16.0, digits.target.astype(np.int64)
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    roles = assign_roles(y, rng)
    train = roles == "train"
    net = MLPClassifier(hidden_layer_sizes=HIDDEN, activation="relu", solver="lbfgs", alpha=1e-2,
                        max_iter=500, random_state=0).fit(X[train], y[train])
    assert net.classes_.tolist() == CLASSES
    kept = np.flatnonzero(~train)
    z = logits(net, X[kept])
    np.testing.assert_allclose(softmax(z, axis=1), net.predict_proba(X[kept]), rtol=0, atol=1e-10)
    out = pd.DataFrame({"row": kept + 1})
    for k in CLASSES:
        out[f"logit_{k}"] = _round_significant(z[:, k])
    out["y"] = y[kept]
    out["set"] = roles[kept].astype(str)
    return out[COLUMNS]


def write(out_dir: str | Path, seed: int = SEED) -> Path:
    """Write ``<out_dir>/digits_logits.csv`` and return its path."""
    path = Path(out_dir) / FILE
    table = make_digits_logits(seed)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        table.to_csv(fh, index=False, float_format=f"%.{SIGNIFICANT_DIGITS}g", lineterminator="\n")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry: write the table, print its path and the versions used."""
    import sklearn

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--out-dir", default=str(Path(__file__).resolve().parent),
        help="folder to write to (default: the folder of this script, i.e. data/)",
    )
    parser.add_argument("--seed", type=int, default=SEED, help=f"seed (default {SEED})")
    args = parser.parse_args(argv)
    path = write(args.out_dir, args.seed)
    print(f"wrote {path} (scikit-learn {sklearn.__version__}, numpy {np.__version__}; "
          f"the committed file: scikit-learn {SKLEARN_VERSION}, numpy {NUMPY_VERSION})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
