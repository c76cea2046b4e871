"""Locate and load the CSV datasets that ship with evstat."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

import pandas as pd


@lru_cache(maxsize=1)
def data_dir() -> Path:
    """Return the folder that holds the shipped CSV files.

    An installed package carries them as ``evstat/_data``; a source checkout run in place
    (``PYTHONPATH=.``) falls back to the repository's ``data/`` folder.

    Examples
    --------
    >>> from evstat.datasets import data_dir
    >>> (data_dir() / "sonar.csv").exists()
    True
    """
    packaged = Path(str(resources.files("evstat"))) / "_data"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / "data"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        "evstat's data folder was not found: reinstall evstat (pip install .) so that "
        "evstat/_data is created, or run from a source checkout that has data/."
    )


def names() -> list[str]:
    """List the names of the shipped datasets (file names without ``.csv``), sorted.

    Examples
    --------
    >>> from evstat.datasets import names
    >>> [n for n in names() if n.startswith("heart")]
    ['heart', 'heart_scores']
    """
    return sorted(p.stem for p in data_dir().glob("*.csv"))


def load(name: str) -> pd.DataFrame:
    """Load a shipped dataset as a DataFrame, the class column kept as it is in the CSV.

    Parameters
    ----------
    name : str
        One of :func:`names`, e.g. ``"sonar"`` or a score table such as ``"sonar_scores"``.
        The data sets are documented in the repository's ``data/README.md``: public benchmark
        data (``sonar``, ``iris``, ``vehicle``, ...), two-class score tables
        (``<name>_scores``: three SVMs' decision values), K-class score tables
        (``iris_scores``, ``vehicle_scores``) and ``digits_logits``, a small neural network's
        logits for scikit-learn's ten digits (columns ``logit_0`` ... ``logit_9``, ``y``,
        ``set``: a calibration and a test split it was not trained on).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ValueError
        If ``name`` is not a shipped dataset; the message lists the available names.

    Examples
    --------
    >>> from evstat.datasets import load
    >>> df = load("sonar")
    >>> df.shape, sorted(df["Class"].unique())
    ((208, 61), ['M', 'R'])
    >>> digits = load("digits_logits")
    >>> digits["set"].value_counts().to_dict(), sorted(digits["y"].unique()) == list(range(10))
    ({'calibration': 454, 'test': 447}, True)
    """
    if not isinstance(name, str):
        raise TypeError(f"dataset name must be a string, got {type(name).__name__}")
    available = names()
    key = name[:-4] if name.endswith(".csv") else name
    if key not in available:
        raise ValueError(
            f"unknown dataset {name!r}; available datasets are: {', '.join(available)}"
        )
    return pd.read_csv(data_dir() / f"{key}.csv")
