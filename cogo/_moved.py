"""Names that moved keep working for one release: the one mechanism, a module ``__getattr__`` (PEP 562).

A module whose public name moved writes ``__getattr__ = moved(__name__, {old: new, ...})``.  ``new`` is where
the name lives now, ``"package.module.attr"`` (imported on use, so no import cycle is made), or a
:class:`Moved` with the text the warning gives and a function that returns the value (for a table that became
a view of a registry).  Each use of an old name warns with a ``DeprecationWarning`` that says where it went;
any other missing name raises the usual ``AttributeError``.
"""
from __future__ import annotations

import importlib
import warnings
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Moved", "moved"]


@dataclass(frozen=True)
class Moved:
    """Where a name went (``new``, as the warning prints it) and how to get its value now (``get``)."""

    new: str
    get: Callable[[], Any]


def _resolve(path: str) -> Any:
    module, _, attr = path.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def moved(module: str, names: dict[str, str | Moved]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that serves each moved name of ``module`` with a ``DeprecationWarning``.

    Parameters
    ----------
    module : str
        The module's ``__name__``.
    names : dict
        Old name -> ``"package.module.attr"`` where it lives now, or a :class:`Moved`.

    Returns
    -------
    callable
        ``__getattr__(name)`` for the module.

    Examples
    --------
    >>> import warnings
    >>> getattr_ = moved("old.place", {"sqrt": "math.sqrt"})
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     getattr_("sqrt")(4.0), str(w[0].message)
    (2.0, 'old.place.sqrt moved to math.sqrt; the old name will be removed in the next release')
    """
    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        entry = names[name]
        new = entry.new if isinstance(entry, Moved) else entry
        warnings.warn(f"{module}.{name} moved to {new}; the old name will be removed in the next release",
                      DeprecationWarning, stacklevel=2)
        return entry.get() if isinstance(entry, Moved) else _resolve(entry)

    return __getattr__
