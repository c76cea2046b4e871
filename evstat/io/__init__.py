"""Files and processes: atomic outputs, the command line's table reader, worker processes.

* :mod:`evstat.io.atomic`: every file evstat writes (``fit.save``, reports, ``evstat predict``,
  the studies' CSV files and figures) goes through :func:`~evstat.io.atomic.atomic_path`: a
  temporary file in the target's folder, flushed to disk, renamed over the target on success;
  on an error or an interruption the target keeps its old content (or does not exist).
* :mod:`evstat.io.workers`: worker processes that die with their parent.
* Persistence of fitted models (issue 24): :mod:`evstat.io.schema` (the spec language of saved
  models and :class:`~evstat.io.schema.SchemaError`), :mod:`evstat.io.state` (a results class
  declares its saved state once, as a dataclass; ``to_dict``, the schema and ``from_dict`` are
  derived from it), :mod:`evstat.io.integrity` (checksum and keyed signature) and
  :mod:`evstat.io.jsonfile` (the bounded JSON reader and its limits).

Below every other layer but :mod:`evstat.exceptions`: it imports nothing else of evstat.
"""
