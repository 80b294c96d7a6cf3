"""The ``cogo`` commands: one module per command (the parser and ``main`` stay in :mod:`cogo.cli`).

The registry is this package itself: every public module here (a name without a leading underscore, not a
subpackage) is a command, ``cogo/commands/<name>.py`` for ``cogo <name>`` (an underscore of the module's name is
a hyphen of the command's: ``li2_sweep.py`` is ``cogo li2-sweep``).  A command module holds

- ``ORDER``: its place in ``cogo --help`` (the workflow's order);
- ``add(subparsers)``: its parser (``subparsers.add_parser(...)``, its arguments);
- ``run(args) -> int``: what it does, returning the exit status;
- optionally ``RESUME``: how an interrupted run continues, printed by ``cogo.cli`` after Ctrl-C: ``"flag"`` (the
  same command with ``--resume``) or ``"rerun"`` (the same command again: finished work in its ``--out`` is reused);
- optionally ``LONG = True``: a run works for minutes (it trains, or reads a run's every snapshot).

Adding a command is adding its module (and its section of docs/cli.md).  The shared argument vocabulary is
:mod:`cogo.commands._args`, what the ``run`` functions share :mod:`cogo.commands._run`; the engine of
``cogo experiment`` and ``cogo demo`` is the subpackage :mod:`cogo.commands.grid`.  A command's module is
imported only when that command runs or its parser is built, so each keeps its top-level imports light
(what ``cogo --help`` loads anyway) and imports the rest inside ``run``.
"""
from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def names() -> list[str]:
    """The commands' names, read from the module names (nothing is imported), in file-name order."""
    return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(__path__)
                  if not m.ispkg and not m.name.startswith("_"))


def command_module(name: str) -> ModuleType:
    """The module of the command ``name`` (one of :func:`names`), imported now."""
    return importlib.import_module(f"{__name__}.{name.replace('-', '_')}")


def attribute(name: str, attr: str, default=None):
    """The command ``name``'s optional attribute (``RESUME``, ``LONG``), its module imported now; ``default`` for a
    name that is no command."""
    return getattr(command_module(name), attr, default) if name in names() else default


def command_modules() -> list[ModuleType]:
    """Every command's module, in the order of ``cogo --help`` (their ``ORDER``)."""
    return sorted((command_module(n) for n in names()), key=lambda m: m.ORDER)
