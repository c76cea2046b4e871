"""Shared setup of the report tests: the Sonar example scores split into their calibration and
test rows (fixture ``sonar``), and evidential logistic calibration of the three SVMs on the
calibration rows (fixture ``fit``)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import pytest

import evstat as ev


@dataclass(frozen=True)
class Split:
    """A score table's calibration rows and test rows, each indexed 0, 1, ..."""

    cal: pd.DataFrame
    test: pd.DataFrame


@pytest.fixture(scope="session")
def sonar() -> Split:
    scores = ev.datasets.load("sonar_scores")
    return Split(cal=scores[scores.set == "calibration"].reset_index(drop=True),
                 test=scores[scores.set == "test"].reset_index(drop=True))


@pytest.fixture(scope="module")
def fit(sonar: Split):
    return ev.evlogit("y ~ svm1 + svm2 + svm3", sonar.cal)
