"""What a single mass function and a batch of them share, for the functions that take either.

:func:`evstat.belief.combine` and the measures of :mod:`evstat.belief.measures` accept a
:class:`~evstat.belief.MassFunction` or a :class:`~evstat.belief.MassArray`. They depend on this
base, not on the two classes, so that the classes can offer them as methods (``m.combine(...)``,
``m.conflict(...)``) without an import cycle: mass -> combination -> _base, never back.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["MassBase"]


class MassBase:
    """Base of :class:`MassFunction` (``batch = False``) and :class:`MassArray`
    (``batch = True``): both have ``frame``, ``values`` and the constructor
    ``_from_values(frame, values[, index])``."""

    __slots__ = ()

    #: True for a batch of mass functions (one per row), False for one mass function
    batch: ClassVar[bool] = False
    frame: Any
    values: Any

    @classmethod
    def _from_values(cls, frame: Any, values: Any, *args: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError
