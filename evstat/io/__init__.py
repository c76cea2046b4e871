"""Files and processes: atomic outputs, the command line's table reader, worker processes.

* :mod:`evstat.io.atomic`: every file evstat writes (``fit.save``, reports, ``evstat predict``,
  the studies' CSV files and figures) goes through :func:`~evstat.io.atomic.atomic_path`: a
  temporary file in the target's folder, flushed to disk, renamed over the target on success;
  on an error or an interruption the target keeps its old content (or does not exist).
* :mod:`evstat.io.workers`: worker processes that die with their parent.

The lowest layer of evstat: it imports nothing else of evstat.
"""
