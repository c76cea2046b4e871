"""Multi-class calibration: reductions to binary tasks, coupling, Dirichlet and scaling calibrators.

* :func:`code_matrix`, :func:`check_code`, :func:`n_tasks` - code matrices (Gebel 2009, 5.2);
* :func:`couple` - class probabilities from calibrated task probabilities (5.3; Wu, Lin and
  Weng 2004);
"""

from __future__ import annotations

from evstat.multiclass.codes import KINDS, check_code, code_matrix, n_tasks
from evstat.multiclass.coupling import COUPLINGS, couple

__all__ = ["COUPLINGS", "KINDS", "check_code", "code_matrix", "couple", "n_tasks"]
