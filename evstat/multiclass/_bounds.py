"""Predictions of the K-class likelihood models from their predictive lower and upper probabilities.

Every K-class calibrator fitted by maximum likelihood (evmultinom, temperature, vector and matrix
scaling, Dirichlet calibration) is evidential the same way (notes/evidential-multinomial.md,
section 4): the relative likelihood ``pl(phi) = L(phi) / L(phi_hat)`` of its parameters is a
contour function, and for a set of classes A (or any weight vector ``w`` in [0, 1]^K) the
consonant belief on phi induces

    Bel(A) = int_0^1 min {theta_A(x; phi) : pl(phi) >= omega} d omega,
    Pl(A)  = int_0^1 max {theta_A(x; phi) : pl(phi) >= omega} d omega,

with ``Bel(A) <= theta_hat_A <= Pl(A)`` and ``Pl(A) = 1 - Bel(not A)``. How each family computes
these integrals is its own (its likelihood engine); what it predicts from them is written once
here: :class:`EvidentialBounds` turns ``_events_bounds(X, ws)`` (theta_hat, lower and upper of
each weight vector) into ``predict(type="belief")`` with per-class or ``events=`` columns, the
two-class masses, the lower and upper expected losses of a loss matrix and the decisions of the
one decision engine (:func:`evstat.belief.decide_bounds`).

For K >= 3 the lower probability is coherent but in general not completely monotone (not the
belief function of a mass function), so ``type="mass"`` is refused there; the 2^K table is never
built (the singletons and the events asked for are computed, whatever K).
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat.belief import loss_matrix
from evstat.belief.decision import decide_bounds, label_columns

__all__ = ["EvidentialBounds", "MEMO_EVENTS", "event_name"]

#: weight vectors whose bounds a fit remembers for the last rows asked about
MEMO_EVENTS = 256

Bounds = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]


def event_name(ev: Sequence[Hashable]) -> str:
    """The column name of an event: ``{a, b}``."""
    return "{" + ", ".join(str(c) for c in ev) + "}"


class EvidentialBounds:
    """Mixin of the K-class likelihood models (before the results base in the class's bases).

    A family implements ``_theta_hat(X)`` (the fitted class probabilities, (m, K)) and
    ``_events_bounds(X, ws)`` (theta_hat, lower and upper of each weight vector of ``ws`` for the
    design rows ``X``); ``_has_bounds()`` may return False (a fit without a contour), and the
    results base's probabilistic predictions are used then.
    """

    classes: Any
    n_classes: int

    # ---------------------------------------------------------------- to implement
    def _theta_hat(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        raise NotImplementedError

    def _events_bounds(self, X: NDArray[np.float64], ws: list[NDArray[np.float64]]) -> list[Bounds]:
        raise NotImplementedError

    def _has_bounds(self) -> bool:
        return True

    @property
    def belief_search_size(self) -> int:
        """How many parameters the predictive bounds of one row are searched over: the number
        of free parameters when each row's Bel/Pl cost a constrained optimisation over them
        (evmultinom, matrix and vector scaling, Dirichlet calibration), 0 when they do not
        (temperature: one parameter, its level sets are intervals shared by all rows; a fit
        without a contour). Plotting and the report read it to bound the rows they compute
        Bel/Pl for (:func:`evstat.plotting.belief_rows`).

        Examples
        --------
        >>> import evstat as ev
        >>> d = ev.datasets.load("iris_scores")
        >>> cal = d[d["set"] == "calibration"]
        >>> ev.evmultinom("y ~ lr_versicolor + lr_virginica", cal).belief_search_size
        6
        >>> ev.temperature("y ~ logp_setosa + logp_versicolor + logp_virginica", cal).belief_search_size
        0
        """
        return int(np.size(getattr(self, "params", ()))) if self._has_bounds() else 0

    # ---------------------------------------------------------------- events
    def _weights(self, event: Iterable[Hashable]) -> NDArray[np.float64]:
        members = list(event) if not isinstance(event, (str, bytes)) else [event]
        unknown = [c for c in members if c not in self.classes]
        if unknown or not members:
            raise ValueError(
                f"an event is a non-empty set of classes of {list(self.classes)}; got {members!r}"
                + (f" (unknown: {unknown})" if unknown else "")
            )
        return np.array([1.0 if c in members else 0.0 for c in self.classes])

    def _bounds(self, X: NDArray[np.float64], w: NDArray[np.float64]) -> Bounds:
        """theta_hat, lower and upper of the weights ``w`` for the rows ``X``."""
        return self._cached_bounds(X, [w])[0]

    def _cached_bounds(self, X: NDArray[np.float64], ws: list[NDArray[np.float64]]) -> list[Bounds]:
        """:meth:`_events_bounds`, remembering the answers for the last rows asked about (the
        report, ``decide`` under several strategies and costs, and ``predict`` then ``decide``
        ask for the same rows and events again: they are computed once). The memo holds one
        set of rows (keyed by their bytes) and at most :data:`MEMO_EVENTS` weight vectors; it is
        not saved and never changes an answer."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        xkey = (X.shape, hashlib.blake2b(X.tobytes(), digest_size=16).digest())
        memo = self.__dict__.get("_bounds_memo")
        if memo is None or memo[0] != xkey:
            memo = (xkey, {})
            self.__dict__["_bounds_memo"] = memo
        store: dict[tuple, Bounds] = memo[1]
        keys = [tuple(np.asarray(w, dtype=np.float64).round(15)) for w in ws]
        missing = list(dict.fromkeys(k for k in keys if k not in store))
        if missing:
            got = self._events_bounds(X, [np.array(k) for k in missing])
            if len(store) + len(missing) > MEMO_EVENTS:
                store.clear()
            store.update(zip(missing, got))
            fresh = dict(zip(missing, got))
        else:
            fresh = {}
        return [fresh[k] if k in fresh else store[k] for k in keys]

    def _singletons(self, X: NDArray) -> tuple[NDArray, NDArray, NDArray, NDArray]:
        if not self._has_bounds():
            return super()._singletons(X)  # type: ignore[misc]
        K = self.n_classes
        m = X.shape[0]
        bel, pl = np.empty((m, K)), np.empty((m, K))
        th = self._theta_hat(X) if m else np.empty((0, K))
        ks = [1] if K == 2 else list(range(K))
        for k, (_, b, p) in zip(ks, self._cached_bounds(X, [np.eye(K)[k] for k in ks])):
            bel[:, k], pl[:, k] = b, p
        if K == 2:  # Pl({0}) = 1 - Bel({1}), Bel({0}) = 1 - Pl({1}) (exactly, by the mirror)
            bel[:, 0], pl[:, 0] = 1.0 - pl[:, 1], 1.0 - bel[:, 1]
        ign = np.mean(pl - bel, axis=1) if m else np.empty(0)
        return bel, pl, th, ign

    def _mass_values(self, X: NDArray) -> NDArray:
        if not self._has_bounds():
            return super()._mass_values(X)  # type: ignore[misc]
        if self.n_classes != 2:
            raise ValueError(
                f"type='mass' needs a mass function, but for {self.n_classes} classes the predictive "
                f"lower and upper probabilities of {getattr(self, 'method', 'this model')} are those of a "
                "coherent lower probability, in general not the Bel and Pl of any mass function: use "
                "type='belief' (lower and upper probabilities per class) or events="
            )
        _, b, p = self._bounds(X, np.array([0.0, 1.0]))
        out = np.zeros((X.shape[0], 4))
        out[:, 1], out[:, 2], out[:, 3] = 1.0 - p, b, p - b
        return out

    def _predict_theta_events(
        self, X: NDArray, index: pd.Index, type: str, events: Sequence[Iterable[Hashable]] | None
    ) -> Any:
        """The predictions the families share: ``events=`` (with ``type="belief"`` only) and
        ``type="prob"`` (theta_hat, no bounds computed); None for the other types."""
        if events is not None:
            if type != "belief":
                raise ValueError("events= goes with type='belief' (lower and upper probabilities of the events)")
            return self._predict_events(X, index, events)
        if type == "prob":
            th = self._theta_hat(X)
            return self._present(type, index, bel=th, pl=th, betp=th)  # type: ignore[attr-defined]
        return None

    def _predict_events(self, X: NDArray, index: pd.Index, events: Sequence[Iterable[Hashable]]) -> pd.DataFrame:
        """``predict(type="belief", events=...)``: columns ``(stat, "{a, b}")``."""
        names, ws = [], []
        for ev in events:
            w = self._weights(ev)
            names.append(event_name([c for c in self.classes if w[list(self.classes).index(c)]]))
            ws.append(w)
        if self._has_bounds():
            cols = self._cached_bounds(X, ws)
        else:
            th = self._theta_hat(X)
            cols = [(h, h, h) for h in (th @ w for w in ws)]
        arr = np.hstack([np.column_stack([c[i] for c in cols]) for i in range(3)]) if cols else np.empty((len(X), 0))
        mi = pd.MultiIndex.from_product([["theta", "bel", "pl"], names], names=["stat", "event"])
        return pd.DataFrame(arr, index=index, columns=mi)

    # ---------------------------------------------------------------- decisions
    def expected_losses(
        self, newdata: pd.DataFrame | None = None, loss: pd.DataFrame | None = None, missing: str = "raise"
    ) -> dict[str, pd.DataFrame]:
        """Upper, lower and probabilistic (theta_hat) expected losses of every act: DataFrames
        rows x acts under the keys ``"upper"``, ``"lower"``, ``"prob"`` (``loss`` rows the acts,
        columns the classes; default the 0-1 loss)."""
        L = loss_matrix(list(self.classes)) if loss is None else loss
        X, index = self._design(newdata, missing)  # type: ignore[attr-defined]
        up, lo, pr = self._losses(X, L)
        acts = pd.Index(list(L.index), dtype=object, name="action")
        return {k: pd.DataFrame(v, index=index, columns=acts) for k, v in (("upper", up), ("lower", lo), ("prob", pr))}

    def _losses(self, X: NDArray, L: pd.DataFrame) -> tuple[NDArray, NDArray, NDArray]:
        """Upper, lower and theta_hat-expected losses of every act (rows x acts): the normalised
        rows ``w = (L_a - min L_a) / (max L_a - min L_a)`` as weight vectors, all computed in one
        call of the family's engine; a row and its mirror ``1 - w`` share one computation
        (``h_{1-w} = 1 - h_w``), taken in the form with fewer ones (the 0-1 loss's rows are the
        complements of the singletons, the engines' cheapest events)."""
        mat = label_columns(L, self.classes)
        m = X.shape[0]
        th = self._theta_hat(X)
        up, lo = np.empty((m, mat.shape[0])), np.empty((m, mat.shape[0]))
        wanted: dict[tuple, NDArray] = {}
        plan: list[tuple[int, float, float, tuple | None, bool]] = []
        for a, row in enumerate(mat):
            mn, mx = float(row.min()), float(row.max())
            if mx == mn:
                plan.append((a, mn, mx, None, False))
                continue
            w = (row - mn) / (mx - mn)
            key, mirror = tuple(np.round(w, 15)), tuple(np.round(1.0 - w, 15))
            if key in wanted:
                plan.append((a, mn, mx, key, False))
            elif mirror in wanted or float(np.sum(w)) > float(np.sum(1.0 - w)):
                wanted.setdefault(mirror, 1.0 - w)
                plan.append((a, mn, mx, mirror, True))
            else:
                wanted[key] = w
                plan.append((a, mn, mx, key, False))
        keys = list(wanted)
        if not keys:
            got: dict[tuple, tuple[NDArray, NDArray]] = {}
        elif self._has_bounds():
            got = {k: (b[1], b[2]) for k, b in zip(keys, self._cached_bounds(X, [wanted[k] for k in keys]))}
        else:
            got = {k: (th @ wanted[k], th @ wanted[k]) for k in keys}
        for a, mn, mx, which, mirrored in plan:
            if which is None:
                up[:, a] = lo[:, a] = mn
                continue
            l_, u_ = got[which]
            if mirrored:
                l_, u_ = 1.0 - u_, 1.0 - l_
            up[:, a] = mn + (mx - mn) * u_
            lo[:, a] = mn + (mx - mn) * l_
        return up, lo, th @ mat.T

    def _decide(
        self, X: NDArray, strategy: str, loss: pd.DataFrame | None, rho: float, reject_cost: float | None
    ) -> NDArray:
        """The act of least upper (``"pessimistic"``), lower (``"optimistic"``) or
        theta_hat-expected (``"probabilistic"``, ``"pignistic"``) loss, or the ``rho`` mixture
        (``"hurwicz"``), with 0-1 costs and an optional reject cost, or a loss matrix (rows:
        acts, columns: the classes), through :func:`evstat.belief.decide_bounds` (the tie policy
        of the one engine)."""
        L = self._zero_one_loss(reject_cost) if loss is None else loss  # type: ignore[attr-defined]
        mat = label_columns(L, self.classes)
        if strategy in ("pignistic", "probabilistic"):
            up = lo = None
            pr = self._theta_hat(X) @ mat.T
        else:
            up, lo, pr = self._losses(X, L)
        res = decide_bounds(list(L.index), upper=up, lower=lo, prob=pr, strategy=strategy, rho=rho,
                            scale=float(np.abs(mat).max()))
        return np.asarray(res.choice, dtype=object)
