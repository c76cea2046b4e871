"""Write the committed format-2 model files of tests/test_persistence_format2.py.

Run once with the evstat of main *before* a change to persistence, so that the files are what
an older evstat wrote (here: main at f625ce5, before issue 24's one-declaration persistence):

    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=<old checkout> python tests/data/format2/make.py

For every registered model and class count of the contract suite it saves the contract
example fitted on the contract data (tests/test_contract.py) as ``<method>-<K>.json`` and the
belief predictions on nine new rows as ``<method>-<K>.csv`` (17 significant digits).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import evstat as ev
from evstat.results import contract_examples

HERE = Path(__file__).parent


def data(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    s1 = 1.0 / (1.0 + np.exp(-(1.2 * (z == 2) - 1.2 * (z == 0) + rng.normal(0, 1, n))))
    s2 = 1.0 / (1.0 + np.exp(-(1.5 * (z == 1) - 0.8 + rng.normal(0, 1, n))))
    return pd.DataFrame({"s1": s1, "s2": s2, "g": rng.choice(["a", "b"], n),
                         "y2": np.where(z == 2, "pos", "neg"),
                         "y3": np.array(["lo", "mid", "hi"], dtype=object)[z]})


def main() -> None:
    train, new = data(60, 1), data(9, 2)
    warnings.simplefilter("ignore")
    for method, (example, ks) in sorted(contract_examples().items()):
        if example is None:
            continue
        for k in ks:
            fit = example("y2" if k == 2 else "y3", train)
            fit.save(HERE / f"{method}-{k}.json")
            pd.DataFrame(fit.predict(new, type="belief")).to_csv(HERE / f"{method}-{k}.csv", float_format="%.17g")
    print(ev.__file__)


if __name__ == "__main__":
    main()
