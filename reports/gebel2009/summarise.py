"""Markdown tables for the README from a finished (or interrupted) run folder.

    python reports/gebel2009/summarise.py reports/gebel2009/two-class
    python reports/gebel2009/summarise.py reports/gebel2009/k-class

(``evstat.experiments.gebel2009.markdown_tables``; tests/experiments/test_gebel2009.py checks
that the README holds exactly these tables for the committed runs.)
"""

from __future__ import annotations

import sys

from evstat.experiments.gebel2009 import markdown_tables

if __name__ == "__main__":
    print(markdown_tables(sys.argv[1]))
