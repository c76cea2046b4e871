"""Loading, copying and shipping a fit to a worker reconstruct; they never re-estimate (issue 24).

For every registered model (the contract examples, two and three classes) the test watches every
Python function call (``sys.setprofile``) during ``ev.load``, ``copy.deepcopy`` and a pickle round
trip (what Dask and joblib do to send a model to a worker) and counts the calls of estimators:

* library estimators: any function named ``fit*`` in statsmodels, scikit-learn, venn_abers or
  crepes (statsmodels' ``GLM.fit``, ``IsotonicRegression.fit``, ...), scipy's optimisers
  (``minimize``, ``minimize_scalar``, ``least_squares``, ``brentq``, ``root_scalar``,
  ``curve_fit``);
* evstat's own: ``newton_mle``, the public fitters (``ev.evlogit``, ``ev.eknn``, ...) and every
  function whose name starts with ``fit`` or ``_fit`` except ``fit_logistic_likelihood``, which
  with saved coefficients only checks the score equations (a check, not an estimation; the
  ``GLM.fit`` and ``newton_mle`` it would call are counted).

The count must be zero. The answers of the copies equal the original's (the contract suite
checks save/load answers in more detail).
"""

from __future__ import annotations

import copy
import pickle
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.results import contract_examples

from contract_data import contract_data

EXAMPLES = contract_examples()
CASES = [(m, k) for m, (_, ks) in sorted(EXAMPLES.items()) for k in ks]

_LIBRARIES = ("statsmodels", "sklearn", "venn_abers", "crepes")
_OPTIMISERS = {"minimize", "minimize_scalar", "least_squares", "brentq", "root_scalar", "curve_fit", "brent", "fminbound"}
_CHECKS = {"fit_logistic_likelihood"}


def _fitters() -> set[str]:
    return {m for m in EXAMPLES if callable(getattr(ev, m, None))} | {"evlogit", "newton_mle"}


def _is_estimator(code, fitters: set[str]) -> bool:
    name, path = code.co_name, code.co_filename.replace("\\", "/")
    top = path.split("site-packages/")[-1].split("/")[0] if "site-packages/" in path else ""
    if top in _LIBRARIES:
        return name.startswith("fit")
    if top == "scipy":
        return "/optimize/" in path and name in _OPTIMISERS
    if "/evstat/" in path:
        if name in _CHECKS:
            return False
        return name in fitters or name.startswith(("fit", "_fit"))
    return False


def _count_estimator_calls(action):
    fitters = _fitters()
    seen: list[str] = []
    known: dict = {}

    def hook(frame, event, arg):
        if event == "call":
            code = frame.f_code
            hit = known.get(code)
            if hit is None:
                hit = known[code] = _is_estimator(code, fitters)
            if hit:
                seen.append(f"{code.co_filename.split('site-packages/')[-1]}:{code.co_name}")

    sys.setprofile(hook)
    try:
        out = action()
    finally:
        sys.setprofile(None)
    return out, seen


TRAIN = contract_data(90, 1)
NEW = contract_data(9, 2)


def test_the_counter_sees_a_fit():
    """The watch works: fitting evlogit calls newton_mle, and the statsmodels GLM behind
    ``fit.glm`` (built on first access) is seen as a library estimator."""
    fit, seen = _count_estimator_calls(lambda: ev.evlogit("y2 ~ s1", TRAIN))
    assert any(s.endswith(":newton_mle") for s in seen) and any(s.endswith(":evlogit") for s in seen)
    _, seen = _count_estimator_calls(lambda: fit.glm)
    assert any(s.endswith(":fit") and "statsmodels" in s for s in seen)


@pytest.mark.parametrize("method,k", CASES)
def test_load_copy_and_transport_estimate_nothing(method, k, tmp_path: Path):
    example, _ = EXAMPLES[method]
    fit = example("y2" if k == 2 else "y3", TRAIN)
    path = fit.save(tmp_path / "fit.json")
    want = fit.predict(NEW, type="belief")
    for what, action in (
        ("ev.load", lambda: ev.load(path)),
        ("copy.deepcopy", lambda: copy.deepcopy(fit)),
        ("pickle (Dask/joblib transport)", lambda: pickle.loads(pickle.dumps(fit))),
    ):
        twin, seen = _count_estimator_calls(action)
        assert not seen, f"{method} (K = {k}): {what} re-estimated: {sorted(set(seen))}"
        pd.testing.assert_frame_equal(twin.predict(NEW, type="belief"), want, check_exact=False, rtol=1e-9, atol=1e-12)
