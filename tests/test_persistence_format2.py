"""Format-2 files written by an older evstat still load and predict the same (issue 24, item 3).

tests/data/format2/ holds, for every registered model and class count of the contract suite,
the contract example saved by main before persistence moved to one declaration per results
class (``evstat.io.state``), and its belief predictions on nine new rows
(tests/data/format2/make.py wrote them). Each file must load (schema, checksum, the family's
re-verification) and predict the same to 1e-8 (the prediction code itself may move in the last digits), and writing it again must give the same
description: the declared state reads and writes exactly what the hand-written
``_to_dict``/``_from_dict`` did. The one exception is venn_abers, whose files now also hold the
venn-abers package's fitted state (``ADDED``): an older file lacks it, loads by fitting the
package once (the only way: the file has nothing else), and is written again with it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

import evstat as ev

HERE = Path(__file__).parent / "data" / "format2"
sys.path.insert(0, str(HERE))
from make import data  # noqa: E402  (the generator's data, one definition)

FILES = sorted(HERE.glob("*.json"))
#: keys a model writes now that its format-2 files lack (optional in its schema)
ADDED = {"venn_abers": {"c", "p0", "p1", "coef", "intercept", "n_iter", "cal_rows"},
         # the scaling calibrators' evidential flag (issue 36): an old file lacks it and predicts
         # Bel = Pl = theta_hat as it did (False), and is written again with it
         **{m: {"evidential", "log_eps"} for m in ("temperature", "vector_scaling", "matrix_scaling", "dirichlet")},
         # the eps of the rule for exact 0 and 1 (issue 37): an old file lacks it (null: zeros
         # refused, as they were), and is written again with it
         **{m: {"log_eps"} for m in ("betacal", "evmultinom")}}


def test_there_is_a_file_for_every_model():
    from evstat.results import contract_examples

    want = {f"{m}-{k}" for m, (ex, ks) in contract_examples().items() if ex is not None for k in ks}
    assert want <= {p.stem for p in FILES}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_old_file_loads_and_predicts_the_same(path):
    fit = ev.load(path)
    want = pd.read_csv(path.with_suffix(".csv"), index_col=0, header=[0, 1] if path.stem.endswith("-3") else 0)
    got = pd.DataFrame(fit.predict(data(9, 2), type="belief"))
    assert got.shape == want.shape
    # the prediction code may move in the last digits (evmultinom's quadrature: pinned elsewhere)
    assert abs(got.to_numpy(dtype=float) - want.to_numpy(dtype=float)).max() <= 1e-8
    saved = json.loads(path.read_text())
    again = fit.to_dict()
    added = ADDED.get(saved["method"], set())
    assert set(again) - set(saved) == added
    assert {k: v for k, v in again.items() if k not in added} == {
        k: v for k, v in saved.items() if k not in ("checksum", "signature")
    }


def test_an_old_venn_abers_file_is_written_again_with_the_package_state(tmp_path):
    """Loading a venn_abers file without the package's state fits the package (once); saved
    again, the file holds the state, and loading that file estimates nothing and predicts the
    same (tests/test_no_refit.py counts the calls)."""
    old = ev.load(HERE / "venn_abers-2.json")
    again = ev.load(old.save(tmp_path / "again.json"))
    assert again.to_dict() == old.to_dict()
    assert len(again.to_dict()["cal_rows"]) == again.n_splits
    new = data(9, 2)
    pd.testing.assert_frame_equal(again.predict(new, type="belief"), old.predict(new, type="belief"))
