"""Code matrices: reductions of a K-class problem to B binary tasks (Gebel 2009, section 5.2).

A code matrix Psi (K x B, rows the classes, columns the tasks) has entries in {-1, 0, +1}: in
task b the classes with psi_kb = +1 form the positive group, those with -1 the negative group,
and the classes with 0 are left out (Allwein, Schapire and Singer 2000). evstat returns it as a
pandas DataFrame of int, index the classes, columns the task names.

Kinds (:func:`code_matrix`)
---------------------------
* ``"ovr"`` one-vs-rest (thesis Tab. 5.2): B = K, +1 on the diagonal, -1 elsewhere; task names
  are the class names.
* ``"pairs"`` all pairs (Tab. 5.3): B = K(K-1)/2, the pair (k1, k2) with k1 before k2 has +1 for
  k1 and -1 for k2; task names ``"<k1>_<k2>"``.
* ``"sparse"`` the sparse random code (5.2.2): B = round(15 log2 K) columns, entries drawn
  independently, 0 with probability 1/2 and -1, +1 with probability 1/4 each; ``n_candidates``
  (10,000 in the thesis) matrices are drawn and among the *valid* ones (every column has a -1
  and a +1, no two columns identical) the one whose rows are furthest apart is kept: largest
  minimum Hamming distance d_H(psi_k1, psi_k2) = sum_b (1 - sign(psi_k1,b psi_k2,b)) / 2 over
  pairs of rows (ties: the first drawn). [!] The thesis writes "minimal" Hamming distance; the
  error-correcting argument it cites (Dietterich and Bakiri 1995; Allwein et al. 2000) needs the
  rows far apart, so the largest minimum distance is used (reading notes, erratum). Task names
  ``"t1"``, ``"t2"``, ... As the thesis proves (Fig. 5.3), a valid matrix is almost never drawn
  for K < 8: then a ValueError says so (for K = 3 there are only 12 distinct valid columns, fewer
  than B = 24).
* ``"complete"`` the complete code (5.2.3): every valid column once up to sign (a column and its
  negation are the same binary task), (3^K - 2^(K+1) + 1) / 2 columns, in lexicographic order
  with the first nonzero entry +1; refused for K > 13 (Allwein et al.: intractable).

Task counts (thesis Tab. 5.5): for K = 3, 4, 5, 6, 8, 10 one-vs-rest 3, 4, 5, 6, 8, 10; pairs 3,
6, 10, 15, 28, 45; sparse 24, 30, 35, 39, 45, 50; complete 6, 25, 90, 301, 3025, 28501
(:func:`n_tasks`).

User-given matrices (:func:`check_code`): entries must be -1, 0 or +1; every column must have a
+1 and a -1 (an all-zero column, or a task with one side only, is refused); no two columns may
be identical; every class must take part in some task and no two classes may have identical
rows (they could not be told apart). Negated twins are allowed (they are the same task with the
sign flipped, e.g. the two columns of a two-class code).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["KINDS", "check_code", "code_matrix", "n_tasks"]

#: the kinds of :func:`code_matrix`
KINDS = ("ovr", "pairs", "sparse", "complete")
#: largest K of the complete code (Allwein et al. 2000: intractable beyond)
MAX_COMPLETE = 13


def n_tasks(n_classes: int, kind: str) -> int:
    """Number of binary tasks B of a code of ``kind`` for K = ``n_classes`` (thesis Tab. 5.5).

    Examples
    --------
    >>> [n_tasks(k, "sparse") for k in (3, 4, 5, 6, 8, 10)]
    [24, 30, 35, 39, 45, 50]
    >>> [n_tasks(k, "complete") for k in (3, 4, 5, 6, 8, 10)]
    [6, 25, 90, 301, 3025, 28501]
    """
    k = int(n_classes)
    if k < 2:
        raise ValueError(f"a code needs at least two classes, got {n_classes}")
    if kind == "ovr":
        return k
    if kind == "pairs":
        return k * (k - 1) // 2
    if kind == "sparse":
        return int(math.floor(15.0 * math.log2(k) + 0.5))
    if kind == "complete":
        return (3**k - 2 ** (k + 1) + 1) // 2
    raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")


def _frame(psi: np.ndarray, classes: Sequence[Any], tasks: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame(
        psi.astype(np.int64),
        index=pd.Index(list(classes), dtype=object, name="class"),
        columns=pd.Index(list(tasks), dtype=object, name="task"),
    )


def _row_distance(psi: np.ndarray) -> float:
    """Minimum Hamming distance between rows (zeros count one half, as the thesis's formula)."""
    k = psi.shape[0]
    best = np.inf
    for a, b in itertools.combinations(range(k), 2):
        d = float(np.sum((1.0 - np.sign(psi[a] * psi[b])) / 2.0))
        best = min(best, d)
    return best


def _valid_columns(psi: np.ndarray) -> bool:
    pos = (psi == 1).any(axis=0)
    neg = (psi == -1).any(axis=0)
    if not (pos & neg).all():
        return False
    return len({col.tobytes() for col in psi.T}) == psi.shape[1]


def code_matrix(
    classes: Sequence[Any] | int,
    kind: str = "ovr",
    seed: int | np.random.Generator | None = None,
    n_candidates: int = 10_000,
) -> pd.DataFrame:
    """The code matrix of a reduction of K classes to binary tasks (thesis 5.2).

    Parameters
    ----------
    classes : sequence or int
        The class labels (rows, in this order), or K (then the classes are 0..K-1).
    kind : {"ovr", "pairs", "sparse", "complete"}
        One-vs-rest, all pairs, sparse random or complete code (see the module docstring).
    seed : int or numpy.random.Generator, optional
        Seed of the sparse random code (required for ``"sparse"``, ignored otherwise).
    n_candidates : int
        Random matrices drawn for ``"sparse"`` (the thesis's 10,000).

    Returns
    -------
    pandas.DataFrame
        Entries -1, 0, +1 (int), index the classes (named ``"class"``), columns the tasks.

    Raises
    ------
    ValueError
        Fewer than two or repeated classes; an unknown kind; ``"sparse"`` without a seed or when no
        valid matrix was drawn (the message gives the thesis's reason and the fix);
        ``"complete"`` for K > 13.

    Examples
    --------
    >>> code = code_matrix(["a", "b", "c"], "pairs")
    >>> code.columns.tolist(), code.to_numpy().tolist()
    (['a_b', 'a_c', 'b_c'], [[1, 1, 0], [-1, 0, 1], [0, -1, -1]])
    >>> code_matrix(10, "sparse", seed=1).shape
    (10, 50)
    """
    if isinstance(classes, bool):
        raise TypeError(f"classes must be the class labels or their number, got {classes!r}.")
    if isinstance(classes, (int, np.integer)):
        classes = list(range(int(classes)))
    classes = list(classes)
    k = len(classes)
    if k < 2:
        raise ValueError(f"a code matrix needs at least two classes, got {classes}")
    if len({repr(c) for c in classes}) != k or len(set(map(str, classes))) != k:
        raise ValueError(f"classes must be distinct (also as text), got {classes}")
    b = n_tasks(k, kind)
    if kind == "ovr":
        psi = 2 * np.eye(k, dtype=np.int64) - 1
        return _frame(psi, classes, [str(c) for c in classes])
    if kind == "pairs":
        pairs = list(itertools.combinations(range(k), 2))
        psi = np.zeros((k, len(pairs)), dtype=np.int64)
        for j, (a, c) in enumerate(pairs):
            psi[a, j], psi[c, j] = 1, -1
        return _frame(psi, classes, [f"{classes[a]}_{classes[c]}" for a, c in pairs])
    if kind == "complete":
        if k > MAX_COMPLETE:
            raise ValueError(
                f"the complete code for K = {k} classes has {b} tasks; it is refused beyond "
                f"K = {MAX_COMPLETE} (Allwein et al. 2000: intractable). Use kind='pairs' or 'sparse'"
            )
        cols = []
        for v in itertools.product((1, 0, -1), repeat=k):
            arr = np.array(v)
            nz = arr[arr != 0]
            if nz.size and nz[0] == 1 and (arr == -1).any():
                cols.append(arr)
        psi = np.array(cols, dtype=np.int64).T
        assert psi.shape[1] == b
        return _frame(psi, classes, [f"t{j + 1}" for j in range(b)])
    # sparse random code
    if seed is None:
        raise ValueError("kind='sparse' draws random matrices: pass seed= (an int) so the code is reproducible")
    if int(n_candidates) < 1:
        raise ValueError(f"n_candidates must be a positive integer, got {n_candidates}")
    distinct = 3**k - 2 ** (k + 1) + 1  # columns with a +1 and a -1
    if distinct < b:
        raise ValueError(
            f"a sparse random code for K = {k} classes has B = round(15 log2 K) = {b} tasks, but only "
            f"{distinct} distinct columns with a +1 and a -1 exist, so no valid matrix can be drawn "
            "(Gebel 2009, 5.2.2: the sparse code is only reasonable for K >= 9). Use kind='ovr' or 'pairs'"
        )
    rng = np.random.default_rng(seed)
    best, best_d = None, -np.inf
    chunk = 500
    drawn = 0
    while drawn < n_candidates:
        m = min(chunk, n_candidates - drawn)
        u = rng.random((m, k, b))
        cand = np.where(u < 0.5, 0, np.where(u < 0.75, -1, 1)).astype(np.int64)
        drawn += m
        for psi in cand:
            if not _valid_columns(psi):
                continue
            d = _row_distance(psi)
            if d > best_d:
                best, best_d = psi, d
    if best is None:
        p_col = 1.0 - 2.0 * 0.75**k + 0.5**k
        raise ValueError(
            f"none of the {n_candidates} sparse random {k} x {b} matrices drawn with seed={seed!r} is valid "
            f"(every column needs a -1 and a +1, probability {p_col:.3f} per column, and no two columns may be "
            "identical; Gebel 2009, 5.2.2 and Fig. 5.3: a valid matrix is rare for K < 9). Use kind='ovr' or "
            "'pairs', another seed, or more n_candidates"
        )
    return _frame(best, classes, [f"t{j + 1}" for j in range(b)])


def check_code(code: Any, classes: Sequence[Any] | None = None, what: str = "code") -> pd.DataFrame:
    """Validate a user-given code matrix (rows the classes, columns the tasks).

    Parameters
    ----------
    code : pandas.DataFrame
        Entries -1, 0, +1; index the classes, columns the task names.
    classes : sequence, optional
        The classes the rows must be (in any order); the result is reordered to them.
    what : str
        Name of the argument in the messages.

    Returns
    -------
    pandas.DataFrame
        The code with int entries (rows in the order of ``classes`` when given).

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame; entries other than -1, 0, +1 (or missing); an all-zero column, a column
        without a +1 or without a -1; two identical columns; a class in no task; two classes
        with identical rows; rows that are not the classes.

    Examples
    --------
    >>> import pandas as pd
    >>> check_code(pd.DataFrame({"t1": [1, -1, 0], "t2": [0, 0, 0]}, index=["a", "b", "c"]))
    Traceback (most recent call last):
    ...
    ValueError: code column 't2' is all zero: every task needs a +1 (positive) and a -1 (negative) class; drop the column
    """
    if not isinstance(code, pd.DataFrame):
        raise TypeError(
            f"{what} must be a pandas DataFrame with one row per class and one column per task "
            f"(entries -1, 0, +1), or one of {KINDS}; got {type(code).__name__}"
        )
    if code.shape[0] < 2 or code.shape[1] < 1:
        raise ValueError(f"{what} has shape {code.shape}: it needs a row per class (at least 2) and a column per task")
    if code.index.has_duplicates or code.columns.has_duplicates:
        raise ValueError(f"{what} has repeated class (row) or task (column) names; make them unique")
    raw = code.to_numpy(dtype=object)
    ok = np.vectorize(lambda v: not isinstance(v, bool) and isinstance(v, (int, float, np.integer, np.floating))
                      and v in (-1, 0, 1))(raw) if raw.size else np.zeros(0, bool)
    if not ok.all():
        i, j = map(int, np.argwhere(~ok)[0])
        raise ValueError(
            f"{what} entry ({code.index[i]!r}, {code.columns[j]!r}) is {raw[i, j]!r}; entries must be -1 "
            "(negative class), 0 (left out) or +1 (positive class)"
        )
    psi = raw.astype(np.float64).astype(np.int64)
    for j, name in enumerate(code.columns):
        col = psi[:, j]
        if not col.any():
            raise ValueError(
                f"{what} column {name!r} is all zero: every task needs a +1 (positive) and a -1 (negative) "
                "class; drop the column"
            )
        if not (col == 1).any() or not (col == -1).any():
            side = "+1" if not (col == 1).any() else "-1"
            raise ValueError(
                f"{what} column {name!r} has no {side}: every task needs a +1 (positive) and a -1 "
                "(negative) class"
            )
    seen: dict[bytes, Any] = {}
    for j, name in enumerate(code.columns):
        key = psi[:, j].tobytes()
        if key in seen:
            raise ValueError(
                f"{what} columns {seen[key]!r} and {name!r} are identical (the same binary task twice); drop one"
            )
        seen[key] = name
    for i, c in enumerate(code.index):
        if not psi[i].any():
            raise ValueError(f"{what} row {c!r} is all zero: class {c!r} takes part in no task; add it to one")
    rows: dict[bytes, Any] = {}
    for i, c in enumerate(code.index):
        key = psi[i].tobytes()
        if key in rows:
            raise ValueError(
                f"{what} rows {rows[key]!r} and {c!r} are identical: the tasks cannot tell these classes apart"
            )
        rows[key] = c
    out = pd.DataFrame(psi, index=pd.Index(list(code.index), dtype=object, name="class"),
                       columns=pd.Index([str(c) for c in code.columns], dtype=object, name="task"))
    if classes is not None:
        want = list(classes)
        have = list(out.index)
        missing = [c for c in want if c not in have]
        extra = [c for c in have if c not in want]
        if extra:
            raise ValueError(
                f"{what} has rows for {extra}, which are not classes of the response {want} (a class absent "
                "from the calibration data cannot be calibrated): drop those rows or add rows of that class"
            )
        if missing:
            raise ValueError(f"{what} has no rows for the classes {missing}; give one row per class {want}")
        out = out.loc[want]
    return out
