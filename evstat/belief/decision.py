"""Decisions from mass functions over a loss matrix (Denoeux 1997; Minary et al. 2019, eqs. 8-11).

The loss matrix has one row per action and one column per element of the frame: ``L[a, w]`` is
the cost of action ``a`` when the truth is ``w``. (Denoeux's R function ``evclass::decision``
uses the transpose: rows are classes, columns are actions.) For a mass function ``m`` the expected
losses of action ``a`` are

* upper: ``R*(a) = sum_A m(A) max_{w in A} L[a, w]`` (pessimistic strategy),
* lower: ``R_*(a) = sum_A m(A) min_{w in A} L[a, w]`` (optimistic strategy),
* pignistic: ``sum_w BetP(w) L[a, w]``,
* hurwicz: ``rho R*(a) + (1 - rho) R_*(a)``.

The chosen action minimises the expected loss.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from evstat.belief import _ops
from evstat.belief.frame import Frame
from evstat.belief.mass import MassFunction
from evstat.belief.massarray import MassArray

__all__ = [
    "COMPARE_STRATEGIES",
    "Decision",
    "MINARY_STRATEGIES",
    "REJECT",
    "STRATEGIES",
    "TIE_TOL",
    "binary_decisions",
    "check_rho",
    "check_strategy",
    "choose",
    "decide",
    "decide_bounds",
    "label_columns",
    "loss_matrix",
]

#: The one vocabulary of decision strategies of evstat (every model, metric, report, study and
#: :func:`decide` itself uses it). "pessimistic" minimises the upper expected loss, "optimistic"
#: the lower one, "pignistic" the expected loss under BetP, "probabilistic" the expected loss
#: under the model's probabilistic prediction (theta_hat of a calibrator; BetP of a classifier,
#: and of a bare mass function given to :func:`decide`), "hurwicz" the ``rho`` mixture of the
#: upper and lower expected losses.
STRATEGIES: tuple[str, ...] = ("pessimistic", "optimistic", "pignistic", "probabilistic", "hurwicz")

#: Minary et al.'s (2019) three strategies: the curves of reject plots and the rows of reports.
MINARY_STRATEGIES: tuple[str, ...] = ("pessimistic", "optimistic", "probabilistic")
#: The evidential strategy against the probabilistic one: the default of model comparisons.
COMPARE_STRATEGIES: tuple[str, ...] = ("pessimistic", "probabilistic")

#: Names of earlier versions (``rule="upper"`` of ``decide``, ``"upper"``/``"lower"`` of the
#: calibrators), refused with a message naming the strategy that replaced them.
_LEGACY = {"upper": "pessimistic", "lower": "optimistic"}

#: the expected losses each strategy reads: upper, lower, or under the probabilistic prediction
_NEEDS: dict[str, tuple[str, ...]] = {
    "pessimistic": ("upper",),
    "optimistic": ("lower",),
    "pignistic": ("prob",),
    "probabilistic": ("prob",),
    "hurwicz": ("upper", "lower"),
}

#: The name of the reject action (a class of that name clashes with it and is refused).
REJECT = "reject"

#: The one tie policy: expected losses within TIE_TOL (times max(1, max |L|)) of the minimum are
#: ties, and ties go to the first action in order: the classes in frame order, then reject. So
#: a row is rejected only when the reject cost is strictly lower (by more than TIE_TOL) than the
#: expected loss of every class, and a two-class tie goes to the first (negative) class.
TIE_TOL = 1e-12


def check_strategy(strategy: str, extra: tuple[str, ...] = ()) -> str:
    """Return ``strategy`` if it is one of :data:`STRATEGIES` (or of a model's own ``extra``
    strategies, such as the classifiers' ``"credal"``), else raise a ValueError naming them; a
    legacy name (``"upper"``, ``"lower"``) is an error naming the strategy that replaced it.

    Examples
    --------
    >>> check_strategy("pessimistic")
    'pessimistic'
    >>> check_strategy("upper")
    Traceback (most recent call last):
    ...
    ValueError: the decision rule 'upper' is now strategy='pessimistic' (one vocabulary: evstat.belief.STRATEGIES)
    """
    if isinstance(strategy, str) and strategy in _LEGACY:
        raise ValueError(
            f"the decision rule {strategy!r} is now strategy={_LEGACY[strategy]!r} "
            "(one vocabulary: evstat.belief.STRATEGIES)"
        )
    if not isinstance(strategy, str) or strategy not in (*STRATEGIES, *extra):
        raise ValueError(f"strategy must be one of {(*STRATEGIES, *extra)}, got {strategy!r}")
    return strategy


def check_rho(rho: Any) -> float:
    """``rho`` (the Hurwicz weight of the upper expected loss) as a float in [0, 1].

    Examples
    --------
    >>> check_rho(0)
    0.0
    """
    try:
        r = float(rho)
    except (TypeError, ValueError):
        raise TypeError(f"rho must be a number in [0, 1] (the weight of the upper expected loss); got {rho!r}.") from None
    if not 0.0 <= r <= 1.0:  # also NaN
        raise ValueError(f"rho must lie in [0, 1] (the weight of the upper expected loss); got {rho!r}.")
    return r


def _no_rule(rule: Any) -> None:
    if rule is not None:
        hint = f" ({rule!r} is now {_LEGACY[rule]!r})" if isinstance(rule, str) and rule in _LEGACY else ""
        raise TypeError(f"rule= is now strategy= (one of {STRATEGIES}){hint}")


def binary_decisions(
    bel: np.ndarray | None,
    pl: np.ndarray | None,
    strategy: str = "pessimistic",
    reject_cost: float | None = None,
    p: np.ndarray | None = None,
    rho: float = 0.5,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Closed-form fast path of :func:`decide` on the frame {0, 1} with 0-1 costs and reject.

    ``bel`` = Bel({1}) and ``pl`` = Pl({1}) per row (validated arrays); ``p`` the probability of
    class 1 for ``strategy="probabilistic"`` (default BetP(1) = (bel + pl) / 2). Expected costs of
    deciding 1 and 0 (Minary et al. 2019, eqs. 8-11): upper (pessimistic) 1 - bel and pl, lower
    (optimistic) 1 - pl and bel, pignistic / probabilistic 1 - p and p, hurwicz the ``rho``
    mixture of upper and lower. The tie policy is that of :data:`TIE_TOL`: class 1 needs
    cost(1) < cost(0) - TIE_TOL, reject needs reject_cost < cost - TIE_TOL. These are exactly the
    choices of :func:`decide` over :func:`loss_matrix` (a test checks it on random masses).

    Returns
    -------
    (choice, cost, rejected) : numpy.ndarray
        The chosen class (int 0/1), its expected cost, and a bool mask of rejected rows (all
        False without ``reject_cost``).

    Examples
    --------
    >>> import numpy as np
    >>> c, cost, rej = binary_decisions(np.array([0.7, 0.4]), np.array([0.9, 0.8]), reject_cost=0.35)
    >>> c.tolist(), rej.tolist()
    ([1, 1], [False, True])
    """
    check_strategy(strategy)
    if strategy in ("probabilistic", "pignistic") and bel is None and pl is None:
        if p is None:
            raise ValueError(f'strategy="{strategy}" needs p, or bel and pl (for BetP).')
        pp = np.asarray(p, dtype=np.float64)
        c1, c0 = 1.0 - pp, pp
    else:
        if bel is None or pl is None:
            raise ValueError(
                f'strategy="{strategy}" needs both bel and pl (Bel({{1}}) and Pl({{1}}) per row).'
            )
        b = np.asarray(bel, dtype=np.float64)
        q = np.asarray(pl, dtype=np.float64)
        if strategy == "pessimistic":
            c1, c0 = 1.0 - b, q
        elif strategy == "optimistic":
            c1, c0 = 1.0 - q, b
        elif strategy == "hurwicz":
            r = check_rho(rho)
            c1 = r * (1.0 - b) + (1.0 - r) * (1.0 - q)
            c0 = r * q + (1.0 - r) * b
        else:
            pp = (b + q) / 2.0 if (p is None or strategy == "pignistic") else np.asarray(p, dtype=np.float64)
            if pp.shape != b.shape:
                raise ValueError(f"p has {pp.size} values but bel has {b.size}: give one per row.")
            c1, c0 = 1.0 - pp, pp
    choice = (c1 < c0 - TIE_TOL).astype(np.int64)
    cost = np.where(choice == 1, c1, c0)
    if reject_cost is None:
        rejected = np.zeros(choice.shape, dtype=bool)
    else:
        rejected = float(reject_cost) < cost - TIE_TOL
    return choice, cost, rejected


def _distinct_labels(labels: Iterable[Hashable]) -> tuple:
    """The labels of a sequence, checked as a Frame checks them (but of any number)."""
    if isinstance(labels, (str, bytes)):
        raise TypeError(f"labels must be an iterable of labels, not a single string {labels!r}")
    labs = tuple(labels)
    if not labs:
        raise ValueError("A frame needs at least one label; got an empty list.")
    if len(set(labs)) != len(labs):
        seen: set = set()
        dups = [x for x in labs if x in seen or seen.add(x)]  # type: ignore[func-returns-value]
        raise ValueError(f"Frame labels must be distinct; duplicated: {', '.join(repr(d) for d in dict.fromkeys(dups))}.")
    return labs


def loss_matrix(
    frame: Frame | Sequence[Hashable],
    *,
    reject: float | None = None,
    unknown: float | None = None,
    unknown_label: Hashable = "unknown",
) -> pd.DataFrame:
    """0-1 loss matrix with an optional reject action and an optional unknown-class action.

    Parameters
    ----------
    frame : Frame or sequence of labels
        The frame; the columns of the result are its labels (the true class).
    reject : float, optional
        Adds an action ``"reject"`` with this constant cost whatever the truth (Minary et al.'s
        ``R_rej``, usually in [0, 1]).
    unknown : float, optional
        Adds the action "assign to the unknown class", as in evclass: its cost is ``unknown``
        when the truth is a known class and 0 when the truth is the unknown class. The frame must
        contain an element standing for the unknown class, named by ``unknown_label``; this action
        replaces the 0-1 action of that element and is named ``unknown_label``.
    unknown_label : hashable, default "unknown"
        The frame element that stands for the unknown class (used only with ``unknown``).

    Returns
    -------
    pandas.DataFrame
        One row per action (index ``"action"``): first "decide w" for each known element in
        frame order (0 if the truth is ``w``, else 1), then ``"reject"``, then the unknown action.

    Examples
    --------
    >>> L = loss_matrix([0, 1], reject=0.15)
    >>> L.index.tolist(), L.columns.tolist()
    ([0, 1, 'reject'], [0, 1])
    >>> L.to_numpy()
    array([[0.  , 1.  ],
           [1.  , 0.  ],
           [0.15, 0.15]])
    >>> L = loss_matrix(["a", "b", "unknown"], reject=0.2, unknown=0.25)
    >>> L.index.tolist()
    ['a', 'b', 'reject', 'unknown']
    >>> L.to_numpy()
    array([[0.  , 1.  , 1.  ],
           [1.  , 0.  , 1.  ],
           [0.2 , 0.2 , 0.2 ],
           [0.25, 0.25, 0.  ]])
    """
    # the labels only: a loss matrix is K x K, so a sequence of any length is fine (a Frame, which
    # holds dense set functions, is limited to MAX_DENSE_SIZE elements)
    labels = tuple(frame.labels) if isinstance(frame, Frame) else _distinct_labels(frame)
    k = len(labels)
    base = 1.0 - np.eye(k)
    actions: list[Hashable] = list(labels)
    rows = [base[i] for i in range(k)]
    if "reject" in labels and reject is not None:
        raise ValueError(
            "The frame has an element named 'reject', which clashes with the reject action; "
            "rename that element."
        )
    u = None
    if unknown is not None:
        unknown = _cost(unknown, "unknown")
        if unknown_label not in labels:
            raise ValueError(
                f"unknown={unknown!r} needs an element of the frame standing for the unknown class, "
                f"but the frame {list(labels)!r} has no label {unknown_label!r}. Add it to the frame (for "
                f"example Frame([..., {unknown_label!r}])) or name it with unknown_label=."
            )
        u = labels.index(unknown_label)
        del actions[u], rows[u]
    if reject is not None:
        actions.append("reject")
        rows.append(np.full(k, _cost(reject, "reject")))
    if u is not None:
        actions.append(labels[u])
        row = np.full(k, unknown)
        row[u] = 0.0
        rows.append(row)
    return pd.DataFrame(
        np.array(rows),
        index=pd.Index(actions, name="action", dtype=object),
        columns=pd.Index(list(labels), name="truth"),
    )


def _cost(x: Any, name: str) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number (a cost), got {x!r}.") from None
    if not np.isfinite(v):
        raise ValueError(f"{name} must be a finite cost, got {x!r}.")
    return v


@dataclass(frozen=True)
class Decision:
    """Result of :func:`decide`.

    Attributes
    ----------
    choice : pandas.Series or hashable
        The chosen action: a Series (name ``"action"``, indexed like the MassArray) for a
        MassArray, a single action name for a MassFunction.
    expected_loss : pandas.DataFrame or pandas.Series
        Expected loss of every action: a DataFrame (one row per mass function, one column per
        action) for a MassArray, a Series indexed by action for a MassFunction.
    strategy : str
        The strategy used (one of :data:`STRATEGIES`).
    rho : float or None
        The Hurwicz weight of the upper expected loss (None for the other strategies).
    """

    choice: Any
    expected_loss: pd.DataFrame | pd.Series
    strategy: str
    rho: float | None

    def to_frame(self) -> pd.DataFrame:
        """Expected losses with the chosen action as a last column ``"action"``.

        Examples
        --------
        >>> from evstat.belief import MassArray
        >>> ma = MassArray.from_binary(m0=[0.7, 0.2], m1=[0.1, 0.2], m01=[0.2, 0.6])
        >>> decide(ma, loss_matrix(ma.frame, reject=0.3)).to_frame()["action"].tolist()
        [0, 'reject']
        """
        if isinstance(self.expected_loss, pd.Series):
            df = self.expected_loss.to_frame().T.reset_index(drop=True)
            df["action"] = [self.choice]
            return df
        df = self.expected_loss.copy()
        df["action"] = self.choice
        return df

    def __repr__(self) -> str:
        rho = "" if self.rho is None else f", rho={self.rho:g}"
        if isinstance(self.expected_loss, pd.Series):
            return (
                f"Decision(strategy={self.strategy!r}{rho}): choose {self.choice!r}\n"
                f"expected loss:\n{self.expected_loss.to_string()}"
            )
        counts = self.choice.value_counts(sort=False).to_string()
        return (
            f"Decision(strategy={self.strategy!r}{rho}) for {len(self.choice)} mass functions\n"
            f"actions chosen:\n{counts}"
        )


def label_columns(df: pd.DataFrame, labels: Sequence[Hashable]) -> np.ndarray:
    """The columns ``labels`` of ``df`` as a float64 array, selected by label.

    ``df[list(labels)]`` would read Boolean class labels (``[False, True]``) as a row mask, not
    as column names; this looks every label up in the columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from evstat.belief.decision import label_columns
    >>> label_columns(pd.DataFrame([[0.0, 1.0]], columns=[False, True]), [True, False])
    array([[1., 0.]])
    """
    return df.iloc[:, [df.columns.get_loc(lab) for lab in labels]].to_numpy(dtype=np.float64)


def _read_loss(
    loss: Any, frame: Frame, actions: Sequence[Hashable] | None
) -> tuple[np.ndarray, list[Hashable]]:
    if loss is None:
        if actions is not None:
            raise ValueError("actions= names the rows of an array loss; give loss= too.")
        df = loss_matrix(frame)
        return df.to_numpy(), list(df.index)
    if isinstance(loss, pd.DataFrame):
        if actions is not None:
            raise ValueError(
                "actions= is for array losses; with a DataFrame the index names the actions."
            )
        cols = list(loss.columns)
        missing = [lab for lab in frame.labels if lab not in cols]
        extra = [c for c in cols if c not in frame]
        if missing or extra or len(cols) != frame.size:
            raise ValueError(
                f"The loss DataFrame's columns must be the frame's labels {list(frame.labels)!r} "
                f"(one column per true class); missing {missing!r}, unexpected {extra!r}. "
                "Rows are actions, columns are classes: transpose it if it is the other way round."
            )
        mat = label_columns(loss, frame.labels)
        names = list(loss.index)
    else:
        try:
            mat = np.array(loss, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                "loss must be a DataFrame (index: actions, columns: frame labels) or a numeric "
                f"2-D array; got {type(loss).__name__}."
            ) from None
        if mat.ndim != 2 or mat.shape[1] != frame.size or mat.shape[0] == 0:
            raise ValueError(
                f"The loss matrix has shape {mat.shape}; with rows = actions and columns = the "
                f"{frame.size} elements of the frame {list(frame.labels)!r} it needs shape "
                f"(n_actions, {frame.size}). (evclass's L has classes in rows: pass L.T.)"
            )
        if actions is None:
            names = list(range(mat.shape[0]))
        else:
            names = list(actions)
            if len(names) != mat.shape[0]:
                raise ValueError(
                    f"actions has {len(names)} names but the loss matrix has {mat.shape[0]} rows "
                    "(one per action)."
                )
    if len(set(names)) != len(names):
        raise ValueError(f"Action names must be distinct; got {names!r}.")
    if not np.isfinite(mat).all():
        raise ValueError("The loss matrix contains NaN or infinite costs; give finite costs.")
    return mat, names


def _setwise(mat: np.ndarray, op: Any) -> np.ndarray:
    """``op`` (np.maximum or np.minimum) of each action's losses over every subset, in bitmask
    order, shape (n_actions, 2**K); the empty-set column is 0 (it never carries mass here)."""
    na, k = mat.shape
    identity = -np.inf if op is np.maximum else np.inf
    out = np.full((na, 1), identity)
    for i in range(k):
        out = np.concatenate([out, op(out, mat[:, i : i + 1])], axis=1)
    out[:, 0] = 0.0
    return out


def _expected_t(vals: np.ndarray, mat: np.ndarray, op: Any) -> np.ndarray:
    """``sum_A m(A) op_{w in A} L[a, w]``, shape (n_actions, n): over the focal columns only when
    they are few (large sparse frames), else over all subsets by :func:`_setwise`."""
    k = mat.shape[1]
    cols = np.flatnonzero((vals != 0.0).any(axis=0))
    if cols.size * k < vals.shape[1]:
        member = ((cols[:, None] >> np.arange(k)) & 1).astype(bool)  # (F, K)
        fill = -np.inf if op is np.maximum else np.inf
        losses = np.where(member[None, :, :], mat[:, None, :], fill)  # (n_actions, F, K)
        per_set = losses.max(axis=2) if op is np.maximum else losses.min(axis=2)
        return per_set @ vals[:, cols].T
    return _setwise(mat, op) @ vals.T


def choose(exp_t: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """The one tie policy: position of the chosen action per column of ``exp_t`` (expected
    losses, shape (n_actions, n)): the first action whose loss is within ``TIE_TOL *
    max(1, scale)`` of the minimum (``scale``: the largest absolute loss).

    Examples
    --------
    >>> choose(np.array([[0.3, 0.5], [0.3, 0.2]])).tolist()
    [0, 1]
    """
    tol = TIE_TOL * max(1.0, float(scale))
    return np.argmax(exp_t <= exp_t.min(axis=0) + tol, axis=0)


def decide_bounds(
    actions: Sequence[Hashable],
    *,
    upper: np.ndarray | None = None,
    lower: np.ndarray | None = None,
    prob: np.ndarray | None = None,
    strategy: str = "pessimistic",
    rho: float = 0.5,
    index: pd.Index | None = None,
    rule: Any = None,
    scale: float = 1.0,
) -> Decision:
    """Decisions from precomputed upper and lower expected losses (models whose predictions are
    lower and upper probabilities rather than mass functions, e.g. evmultinom): the strategies and
    the tie policy of :func:`decide`.

    Parameters
    ----------
    actions : sequence
        Names of the actions (columns of the loss arrays).
    upper, lower, prob : arrays (n, n_actions)
        Upper and lower expected losses and the expected loss under the model's probability;
        the strategy reads ``upper`` ("pessimistic"), ``lower`` ("optimistic"), both
        ("hurwicz") or ``prob`` ("pignistic" and "probabilistic").
    strategy : one of :data:`STRATEGIES`
    rho : float
        Hurwicz weight of the upper expected loss.
    index : pandas.Index, optional
        Row labels of the result.
    scale : float
        Largest absolute loss (the tie tolerance is relative to it).

    Examples
    --------
    >>> up = np.array([[0.2, 0.9, 0.5], [0.7, 0.7, 0.5]])
    >>> decide_bounds(["a", "b", "reject"], upper=up, strategy="pessimistic").choice.tolist()
    ['a', 'reject']
    """
    _no_rule(rule)
    strategy = check_strategy(strategy)
    need = _NEEDS[strategy]
    given = {"upper": upper, "lower": lower, "prob": prob}
    for name in need:
        if given[name] is None:
            raise ValueError(f"strategy {strategy!r} needs the {name} expected losses")
    rho_out: float | None = None
    if strategy == "hurwicz":
        rho_out = check_rho(rho)
        exp = rho_out * np.asarray(upper, float) + (1.0 - rho_out) * np.asarray(lower, float)
    else:
        exp = np.asarray(given[need[0]], dtype=float)
    names = list(actions)
    if exp.ndim != 2 or exp.shape[1] != len(names):
        raise ValueError(f"expected losses of shape (n, {len(names)}) needed (one column per action), got {exp.shape}")
    best = choose(exp.T, scale)
    idx = pd.RangeIndex(exp.shape[0]) if index is None else index
    cols = pd.Index(names, name="action", dtype=object)
    choice = pd.Series(np.array(names, dtype=object)[best], index=idx, name="action")
    return Decision(choice=choice, expected_loss=pd.DataFrame(exp, index=idx, columns=cols), strategy=strategy, rho=rho_out)


def decide(
    m: MassFunction | MassArray,
    loss: pd.DataFrame | ArrayLike | None = None,
    *,
    strategy: str = "pessimistic",
    rho: float = 0.5,
    actions: Sequence[Hashable] | None = None,
    rule: Any = None,
) -> Decision:
    """Choose the action of least expected loss for one or many mass functions.

    Parameters
    ----------
    m : MassFunction or MassArray
        Normalised mass function(s) (no mass on the empty set).
    loss : DataFrame or 2-D array, optional
        Loss matrix, rows = actions, columns = the frame's elements: a DataFrame with the frame's
        labels as columns (in any order) and the action names as index, or an
        ``(n_actions, K)`` array with columns in frame order and the names in ``actions``
        (default names: row positions 0, 1, ...). Default: the 0-1 loss
        ``loss_matrix(m.frame)``. Use :func:`loss_matrix` for reject and unknown-class actions.
    strategy : one of :data:`STRATEGIES`
        ``"pessimistic"`` minimises the upper expected loss ``R*(a) = sum_A m(A) max_{w in A}
        L[a, w]``, ``"optimistic"`` the lower one ``R_*(a) = sum_A m(A) min_{w in A} L[a, w]``,
        ``"pignistic"`` (and ``"probabilistic"``: a mass function's probabilistic prediction is
        its BetP) ``sum_w BetP(w) L[a, w]``, ``"hurwicz"`` ``rho R*(a) + (1 - rho) R_*(a)``.
        (Earlier versions called this ``rule=`` with the names "upper" and "lower": both are
        errors naming the new spelling.)
    rho : float in [0, 1], default 0.5
        Hurwicz weight of the *upper* expected loss, i.e. a degree of pessimism: ``rho = 1`` is
        the pessimistic strategy and ``rho = 0`` the optimistic one. (evclass's ``decision(rule="hurwicz")``
        weights the lower expectation by its rho, so its rho is our ``1 - rho``.)
    actions : sequence, optional
        Names of the rows of an array ``loss``.

    Returns
    -------
    Decision
        ``choice``: the chosen action (a Series for a MassArray); ``expected_loss``: the expected
        loss of every action (a DataFrame for a MassArray, rows = mass functions, columns =
        actions); ``strategy``; ``rho``. Ties (expected losses within 1e-12 of the minimum) go to the
        first action in loss-matrix row order.

    Notes
    -----
    With 0-1 losses the upper expected loss of deciding ``w`` is ``1 - Bel({w})`` and the lower
    one is ``1 - Pl({w})`` (Minary et al. 2019, eqs. 10-11), for any mass function. The reject action has
    the same (constant) cost under every strategy.

    Examples
    --------
    >>> from evstat.belief import MassArray
    >>> ma = MassArray.from_binary(m0=[0.8, 0.3, 0.1], m1=[0.1, 0.3, 0.1], m01=[0.1, 0.4, 0.8])
    >>> d = decide(ma, loss_matrix(ma.frame, reject=0.5), strategy="pessimistic")
    >>> d.choice.tolist()
    [0, 'reject', 'reject']
    >>> d.expected_loss.round(2)
    action    0    1  reject
    0       0.2  0.9     0.5
    1       0.7  0.7     0.5
    2       0.9  0.9     0.5
    >>> decide(ma, loss_matrix(ma.frame, reject=0.5), strategy="optimistic").choice.tolist()
    [0, 0, 0]
    """
    if not isinstance(m, (MassFunction, MassArray)):
        raise TypeError(f"decide needs a MassFunction or MassArray, got {type(m).__name__}.")
    _no_rule(rule)
    strategy = check_strategy(strategy)
    need = _NEEDS[strategy]
    rho_out: float | None = check_rho(rho) if strategy == "hurwicz" else None
    frame = m.frame
    mat, names = _read_loss(loss, frame, actions)
    single = isinstance(m, MassFunction)
    vals = m.values[None, :] if single else m.values
    emp = vals[:, 0] > 0
    if emp.any():
        where = "" if single else f" (rows {np.flatnonzero(emp)[:5].tolist()})"
        raise ValueError(
            f"Decisions need normalised mass functions, but there is mass on the empty set{where}; "
            "call .normalize() first (or combine with Dempster's rule)."
        )
    # expected losses as (n_actions, n): reductions over actions then run along contiguous rows
    if need == ("prob",):
        exp_t = mat @ _ops.betp(vals, frame, single=single).T
    else:
        up = _expected_t(vals, mat, np.maximum) if "upper" in need else None
        lo = _expected_t(vals, mat, np.minimum) if "lower" in need else None
        if up is None:
            exp_t = lo
        elif lo is None:
            exp_t = up
        else:
            assert rho_out is not None
            exp_t = rho_out * up + (1.0 - rho_out) * lo
    best = choose(exp_t, float(np.abs(mat).max()))
    exp = exp_t.T
    cols = pd.Index(names, name="action", dtype=object)
    if isinstance(m, MassFunction):  # single
        return Decision(
            choice=names[int(best[0])],
            expected_loss=pd.Series(exp[0], index=cols, name="expected_loss"),
            strategy=strategy,
            rho=rho_out,
        )
    index = m._row_index()
    choice = pd.Series(np.array(names, dtype=object)[best], index=index, name="action")
    return Decision(
        choice=choice,
        expected_loss=pd.DataFrame(exp, index=index, columns=cols),
        strategy=strategy,
        rho=rho_out,
    )
