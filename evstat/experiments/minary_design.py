"""The design of the reproduction of Minary et al. (2019): its data sets, calibration sizes and seeds.

The study (:mod:`evstat.experiments.minary2019`), its claims (:mod:`evstat.experiments.claims`)
and its report (:mod:`evstat.experiments.report`) all read these; they live apart from the study
so that the report, which the study's runner writes, does not import the runner back (no import
cycle: minary2019 -> report -> claims -> minary_design).
"""

from __future__ import annotations

import numpy as np

__all__ = ["CURVE_CAL_SIZES", "DATASETS", "DATASET_ID", "FIG8_CAL_SIZES", "FIG8_REJECT_COST", "seed_sequence"]

DATASETS: tuple[str, ...] = ("sonar", "ionosphere", "pima", "heart", "australian", "wdbc", "simulated")
"""The data sets, in the order of tables and figures."""
FIG8_REJECT_COST = 0.15
CURVE_CAL_SIZES = (45, 15)
FIG8_CAL_SIZES = (200, 15)

# spawn-key components: part ids and data set ids are fixed forever (results depend on them)
_PART = {"ensemble": 0, "curves": 1, "fig8": 2, "fig7": 3, "simulated_data": 4, "bootstrap": 5, "ties": 6}
DATASET_ID = {"sonar": 0, "ionosphere": 1, "pima": 2, "heart": 3, "wdbc": 4, "simulated": 5, "australian": 6}


def seed_sequence(seed: int, part: str, dataset: str | None = None, round_: int = 0) -> np.random.SeedSequence:
    """The seed sequence of one unit: ``SeedSequence(seed, spawn_key=(part, data set, round))``.

    Examples
    --------
    >>> seed_sequence(2019, "ensemble", "sonar", 3).spawn_key
    (0, 0, 3)
    """
    d = -1 if dataset is None else DATASET_ID[dataset]
    key = (_PART[part],) if dataset is None else (_PART[part], d, int(round_))
    return np.random.SeedSequence(int(seed), spawn_key=key)
