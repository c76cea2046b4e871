"""scikit-learn's estimator checks of evstat.sklearn, without importing scikit-learn at collection
(issue 26, item 5).

``parametrize_with_checks`` builds its parameters when the test module is imported, which
imports scikit-learn and with it scipy.stats, .optimize and .integrate into every collection of
the suite. The test instead takes the checks' ids from ``estimator_check_ids.txt`` (one per line,
in scikit-learn's order) and builds the checks when a test first runs, with
``parametrize_with_checks`` itself (:func:`checks`): the same estimators, checks, marks and ids.
``test_check_ids_are_scikit_learns`` fails when the installed scikit-learn generates another list;
regenerate it with ``python tests/scikit_learn/estimator_check_ids.py``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

IDS_FILE = Path(__file__).with_suffix(".txt")

#: scikit-learn checks that do not apply, with the reason (none today: every check passes; the
#: array-API check is skipped by scikit-learn itself unless SCIPY_ARRAY_API=1)
NOT_APPLICABLE: dict[str, str] = {}


def check_ids() -> list[str]:
    """The ids of the checks, as recorded in ``estimator_check_ids.txt``."""
    return IDS_FILE.read_text().split("\n")[:-1]


def estimators() -> list[Any]:
    """The estimators checked: two-class evlogit and isotonic, K-class evmultinom and temperature."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB

    from evstat.sklearn import EvidentialCalibratedClassifierCV

    return [
        EvidentialCalibratedClassifierCV(LogisticRegression(), method="evlogit", cv=3),
        EvidentialCalibratedClassifierCV(GaussianNB(), method="isotonic", cv=3, ensemble=False),
        # K classes (the checks then use multi-class data too): evmultinom, and temperature
        EvidentialCalibratedClassifierCV(LogisticRegression(), cv=3),
        EvidentialCalibratedClassifierCV(GaussianNB(), method="temperature", cv=3, ensemble=False),
    ]


@functools.cache
def checks() -> dict[str, tuple[Any, Any, tuple[Any, ...]]]:
    """``id -> (estimator, check, marks)`` in scikit-learn's order, from ``parametrize_with_checks``
    (the parameters and the id function of the mark it returns; an id is the ids of the values
    joined by ``-``, as pytest makes it)."""
    from sklearn.utils.estimator_checks import parametrize_with_checks

    mark = parametrize_with_checks(estimators(), expected_failed_checks=lambda est: NOT_APPLICABLE).mark
    idfn = mark.kwargs["ids"]
    out: dict[str, tuple[Any, Any, tuple[Any, ...]]] = {}
    for param in mark.args[1]:
        values, marks = (param.values, tuple(param.marks)) if hasattr(param, "values") else (tuple(param), ())
        key = "-".join(idfn(v) for v in values)
        if key in out:
            raise ValueError(f"two checks share the id {key!r}")
        out[key] = (values[0], values[1], marks)
    return out


if __name__ == "__main__":
    IDS_FILE.write_text("".join(f"{k}\n" for k in checks()))
    print(f"wrote {len(checks())} ids to {IDS_FILE}")
