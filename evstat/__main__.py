"""``python -m evstat``: the ``evstat`` command (see :mod:`evstat.cli`)."""

from __future__ import annotations

import sys

from evstat.cli import main

if __name__ == "__main__":
    sys.exit(main())
