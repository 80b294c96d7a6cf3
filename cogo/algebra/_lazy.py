"""Deferred imports of the libraries that most commands never need (sympy, networkx).

``import sympy`` alone costs about 0.4 s and networkx about 0.1 s, while
``cogo classify``, ``cogo train`` and ``cogo --help`` do only numeric work.
A module that needs them writes ``sympy = lazy_module("sympy")``: the name
behaves like the module (``sympy.expand``, ``sympy.Basic``), and the real
import happens at the first attribute access.  :func:`is_sympy` answers
"is this a sympy object?" without importing sympy: if sympy was never
imported, no sympy object can exist.

After the import, the stand-in replaces itself by the real module in the
namespace of the module that called :func:`lazy_module` (every global name
bound to it), so hot loops that read ``sympy.expand`` pay one ordinary
global lookup, not a ``__getattr__`` call.

>>> m = lazy_module("fractions")
>>> m.Fraction(1, 2)
Fraction(1, 2)
>>> is_sympy(0.5), is_sympy(3)
(False, False)
"""
from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

__all__ = ["LazyModule", "lazy_module", "is_sympy"]


class LazyModule:
    """Stands for the module ``name``, imported at the first attribute access (then cached)."""

    __slots__ = ("_name", "_module", "_owners")

    def __init__(self, name: str, owners: list | None = None) -> None:
        self._name = name
        self._module: ModuleType | None = None
        self._owners: list = owners if owners is not None else []   # module namespaces to rebind on import

    def _load(self) -> ModuleType:
        if self._module is None:
            self._module = importlib.import_module(self._name)
            for ns in self._owners:   # rebind every global name of this stand-in to the real module
                for key in [k for k, v in ns.items() if v is self]:
                    ns[key] = self._module
            self._owners = []
        return self._module

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._load(), attr)

    def __dir__(self) -> list[str]:
        return dir(self._load())

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not yet imported"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> LazyModule:
    """A stand-in for ``import name`` that imports the module when first used.

    Called at module level, the stand-in rebinds the caller's global names to
    the real module once it is imported (see the module docstring).
    """
    caller = sys._getframe(1)
    owners = [caller.f_globals] if caller.f_globals is caller.f_locals else []
    return LazyModule(name, owners)


def is_sympy(x: Any) -> bool:
    """``isinstance(x, sympy.Basic)``, without importing sympy when it is not loaded yet."""
    mod = sys.modules.get("sympy")
    return mod is not None and hasattr(mod, "Basic") and isinstance(x, mod.Basic)
