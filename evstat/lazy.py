"""Partition-wise prediction of dask DataFrames (the one place where fitted models meet Dask).

``fit.predict(ddf, ...)`` and ``fit.decide(ddf, ...)`` call :func:`dispatch` first: when
``newdata`` is a ``dask.dataframe.DataFrame`` the call becomes
``ddf.map_partitions(method, ...)``, a lazy dask collection whose partitions are the pandas
results of the same call on the input's partitions. So the output keeps the input's index and
divisions, and every row gets the value the in-memory call gives it (the models predict row by
row; the last bits may differ with the rows batched together in vectorised linear algebra). The model travels to the workers through its JSON description (``__reduce__`` of the
results objects); nothing else of evstat is needed there beyond an installed evstat.

The metadata (``meta``) is the method applied to dask's non-empty stand-in of the input
(``ddf._meta_nonempty``), cut to zero rows: the column names, dtypes (including the categories of
the decisions) and index type of the real result. The stand-in's made-up values (``1.0`` in every
number column) are not valid input for every model (beta calibration needs scores in (0, 1),
Dirichlet calibration probabilities), so the columns the model was fitted on are filled with
rows of its training data (:func:`_stand_in`); the index stays dask's. ``type="mass"`` has no DataFrame form and is
refused for dask input.

This module imports nothing from evstat and nothing from dask unless dask input arrives.
"""

from __future__ import annotations

from typing import Any

__all__ = ["dispatch", "is_dask_frame"]

NOT_DASK = object()


def is_dask_frame(obj: Any) -> bool:
    """True for a dask DataFrame (checked without importing dask)."""
    mod = type(obj).__module__ or ""
    return mod.split(".")[0] == "dask" and hasattr(obj, "map_partitions") and hasattr(obj, "columns")


def _call(part: Any, fit: Any, method: str, kwargs: dict[str, Any]) -> Any:
    return getattr(fit, method)(part, **kwargs)


def _stand_in(newdata: Any, fit: Any) -> Any:
    """Dask's non-empty stand-in of ``newdata`` with the model's own columns filled from its
    training rows: input the model accepts, whatever its domain."""
    stand_in = newdata._meta_nonempty.copy()
    try:
        rows = fit.training_data()
    except (AttributeError, NotImplementedError, TypeError, ValueError):  # pragma: no cover - not a Results
        return stand_in
    cols = [c for c in rows.columns if c in stand_in.columns]
    if len(rows) and cols:
        take = [i % len(rows) for i in range(len(stand_in))]
        for c in cols:
            stand_in[c] = rows[c].iloc[take].to_numpy()
    return stand_in


def dispatch(fit: Any, method: str, newdata: Any, **kwargs: Any) -> Any:
    """``fit.<method>(newdata, **kwargs)`` partition by partition when ``newdata`` is a dask
    DataFrame, else the sentinel ``NOT_DASK`` (the caller goes on in memory).

    Examples
    --------
    >>> import evstat as ev
    >>> import dask.dataframe as dd
    >>> cal = ev.datasets.simulate_gaussian(60, seed=1)
    >>> fit = ev.evlogit("y ~ x1 + x2", data=cal)
    >>> lazy = fit.predict(dd.from_pandas(cal, npartitions=3), type="belief")
    >>> list(lazy.columns), lazy.npartitions
    (['theta', 'bel', 'pl'], 3)
    >>> import numpy as np
    >>> bool(np.allclose(lazy.compute(), fit.predict(cal, type="belief"), rtol=1e-12, atol=1e-15))
    True
    """
    if not is_dask_frame(newdata):
        return NOT_DASK
    if kwargs.get("type") == "mass":
        raise ValueError(
            "type='mass' gives a MassArray, which has no dask form; use type='belief' "
            "(Bel and Pl determine the binary masses) or compute the partitions first"
        )
    meta = _call(_stand_in(newdata, fit), fit, method, kwargs).iloc[:0]
    return newdata.map_partitions(_call, fit, method, kwargs, meta=meta, align_dataframes=False)
