"""Registry of calibrator results classes, for loading saved models by their ``method``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["from_dict", "load", "register"]

_REGISTRY: dict[str, Any] = {}


def register(cls: Any) -> Any:
    """Register a results class under its ``method`` name (used by :func:`load`)."""
    _REGISTRY[cls.method] = cls
    return cls


def load(path: str | Path) -> Any:
    """Load a model saved with ``fit.save(path)`` (JSON with a format version).

    Examples
    --------
    >>> import tempfile, os, evstat as ev
    >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(30, seed=2))
    >>> path = os.path.join(tempfile.mkdtemp(), "fit.json")
    >>> _ = fit.save(path)
    >>> bool((ev.load(path).params == fit.params).all())
    True
    """
    from evstat.calibration.base import FORMAT, FORMAT_VERSION

    path = Path(path)
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"no saved model at {str(path)!r}") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{str(path)!r} is not a JSON file saved by evstat ({err})") from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise ValueError(f"{str(path)!r} is not a model saved by evstat (no 'format': 'evstat' entry)")
    if d.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{str(path)!r} has format version {d.get('format_version')!r}; this evstat reads "
            f"version {FORMAT_VERSION}. Refit and save the model with this version."
        )
    return from_dict(d, source=repr(str(path)))


def from_dict(d: dict[str, Any], source: str = "the description") -> Any:
    """Rebuild a fitted model from ``fit.to_dict()`` (dispatching on its ``method``)."""
    method = d.get("method")
    if method not in _REGISTRY:
        raise ValueError(f"{source} holds an unknown calibrator {method!r}; known: {sorted(_REGISTRY)}")
    return _REGISTRY[method]._from_dict(d)
