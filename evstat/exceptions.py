"""The errors and warnings of evstat: one base error, one base warning.

Every error evstat defines derives from :class:`EvstatError` and every warning from
:class:`EvstatWarning`, so ``except ev.EvstatError`` catches evstat's own failures and
``warnings.simplefilter("ignore", ev.EvstatWarning)`` silences evstat's warnings. Each class
keeps its builtin base too (``SchemaError`` is a ``ValueError``, ``EkNNFitWarning`` a
``UserWarning``), so ``except ValueError`` keeps working.

The classes live next to the code that raises them and are importable from there; this module
defines only the two bases and imports nothing, so that every layer can import it
(``tests/test_exceptions.py`` checks that every error and warning class of evstat derives from
them). ``evstat.cli.Terminated`` (SIGTERM) derives from ``BaseException`` on purpose, as
``KeyboardInterrupt`` does, so that ``except Exception`` does not swallow it; it is a signal, not
an error, and stays outside this rule:

==========================  =====================  =========================================
class                       builtin base           raised or warned by
==========================  =====================  =========================================
``SchemaError``             ValueError             a saved model that does not match its schema
``UnsafeFormulaError``      ValueError             a formula outside the whitelist
``FormulaLimitError``       ValueError             a formula beyond the size limits
``TotalConflictError``      ValueError             Dempster's rule on totally conflicting masses
``DogmaticMassError``       ValueError             the cautious rule on a dogmatic mass function
``CommandError``            Exception              the ``evstat`` command line (exit status 2;
                                                   ``evstat.cli``)
``SameFileError``           ValueError             an output that is one of the inputs
                                                   (``evstat.io.atomic``)
``TableError``              ValueError             a table that cannot be read as asked
                                                   (``evstat.io.tables``)
``UnsafePathError``         OSError                a symbolic link or special file in a study
                                                   folder, a named pipe without a reader
                                                   (``evstat.io.atomic``)
``OutputSpaceError``        OSError                an output that did not fit (disk full,
                                                   quota, file size limit; ``evstat.io.atomic``)
``DuplicateKeyError``       ValueError             a JSON file holding a key twice
                                                   (``evstat.io.jsonfile``)
``WeakKeyError``            ValueError             a signing key under 16 bytes
                                                   (``evstat.io.integrity``)
``MaskedArrayError``        TypeError              a numpy masked array (its mask would be
                                                   dropped; ``evstat.formula.arrays``)
``StudyBusyError``          OSError                a study folder another run is writing
                                                   (``evstat.experiments.store``)
``SettingsMismatchError``   ValueError             a study folder of other settings
                                                   (``evstat.experiments.store``)
``EmptyClassWarning``       UserWarning            a response level with no rows
``EmptyCellWarning``        UserWarning            test rows in an empty bin or cell
``ConflictWarning``         UserWarning            disjoint calibration's conflict
``ProfileFallbackWarning``  UserWarning            profile likelihoods refitted by statsmodels
``EkNNFitWarning``          UserWarning            the EkNN fit's search box
``ScalingFitWarning``       UserWarning            the scaling calibrators' optimiser
``UnverifiedLoadWarning``   UserWarning            an unsigned model file whose load check
                                                   cannot verify its estimates (separable or
                                                   non-converged fits; ``evstat.results``)
==========================  =====================  =========================================

Examples
--------
>>> import evstat as ev
>>> from evstat.io.schema import SchemaError
>>> issubclass(SchemaError, ev.EvstatError) and issubclass(SchemaError, ValueError)
True
"""

from __future__ import annotations

__all__ = ["EvstatError", "EvstatWarning"]


class EvstatError(Exception):
    """Base class of every error evstat defines (each also keeps a builtin base such as
    ValueError)."""


class EvstatWarning(UserWarning):
    """Base class of every warning evstat defines."""
