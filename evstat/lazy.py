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
the decisions) and index type of the real result. ``type="mass"`` has no DataFrame form and is
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
    meta_in = newdata._meta_nonempty
    meta = _call(meta_in, fit, method, kwargs).iloc[:0]
    return newdata.map_partitions(_call, fit, method, kwargs, meta=meta, align_dataframes=False)
