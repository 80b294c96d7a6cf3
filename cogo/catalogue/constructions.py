"""The global optimizers of SPEC 7 as records: one :class:`Construction` per construction, in one table.

A construction (z_F6, its SPEC 7.2 variant z_F6_ab, z_F4/6, z_M) is everything the
library does with it, in one record: its name (the function that builds it, and
the one name the command line, the API and the JSON outputs use), the older
spellings it had (refused as names, with the name to use; still read from the
checkpoints that recorded them), its block design and its exact builder, the
route of its exact certificate (row 6 of ``cogo verify``), its node counts
(row 7), its model for ``cogo verify --every-order``, and the block types a
trained network is snapped to when it is near it (``cogo verify --checkpoint``).

Who reads the table: ``cogo construct`` and :func:`cogo.solvers.constructions.construct`
(the names and builders), :data:`cogo.proofs.registry.THEOREMS` (one row 6 per record),
:func:`cogo.proofs.theorems.optimality.optimality` (title, design, certificate
route), :func:`cogo.proofs.theorems.node_counts.node_counts` (the expected counts),
:data:`cogo.analysis.verdict.snap.SNAP_TYPES` and :func:`cogo.proofs.every_order.models.constructions`.

The catalogue is a floor below the solvers and the proofs, so the builder, the
design and the every-order model are named ``"module:function"`` and imported
when first used (:func:`resolve`), as the theorem rows of :mod:`cogo.proofs.registry`
name their modules.  Adding a construction is one :class:`Construction` in
:data:`CONSTRUCTIONS` (this file) and its design or builder (:mod:`cogo.solvers.designs`
or :mod:`cogo.solvers.constructions`); its family certificate, when it brings a new
block family, is a branch of :func:`cogo.proofs.theorems.optimality.family_certificate`.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Construction", "CONSTRUCTIONS", "NAMES", "FAMILY", "CHARACTER_SUMS", "construction", "from_record", "resolve", "unknown_message"]

#: Row 6's exact routes: a block construction's network is certified exactly and its block family symbolically
#: for every parameter value; z_M's by character sums (SPEC 7.4).
FAMILY, CHARACTER_SUMS = "block family", "character sums"


def _blocks(per: int, hat: int | None = None) -> Callable[[int, list, Any], tuple[int, dict]]:
    """Node counts of a construction with ``per`` nodes at every positive frequency (``hat`` at ``k0``)."""
    def counts(n: int, keys: list, k0: Any = None) -> tuple[int, dict]:
        per_k = {k: (hat if hat is not None and k == k0 else per) for k in keys}
        return sum(per_k.values()), per_k
    return counts


def _one_hot(n: int, keys: list, k0: Any = None) -> tuple[int, dict]:
    """z_M: n^2 one-hot nodes, no per-frequency blocks."""
    return n * n, {}


@dataclass(frozen=True)
class Construction:
    """One global optimizer of SPEC 7 and everything the library does with it.

    Attributes
    ----------
    name : str
        The one name: the function that builds it (``cogo.z_F6_ab``), ``cogo construct NAME``, the API's
        ``construction=`` and ``meta["construction"]`` of the checkpoints it writes.
    title : str
        What reports print (``"z_F6 with z_{nu=i} * z_syn,ab blocks (SPEC 7.2)"``).
    aliases : tuple of str
        Older spellings (``"f6-ab"``): refused as names with a hint, read from the checkpoints that recorded them.
    design : str or None
        ``"module:function"`` of its block design (:mod:`cogo.solvers.designs`); None for z_M.
    builder : str
        ``"module:function"`` of the function that builds it as a network.
    certificate : str
        Row 6's exact route: :data:`FAMILY` or :data:`CHARACTER_SUMS`.
    node_counts : callable
        ``(n, positive frequencies, k0) -> (total, {k: nodes})``: the node counts SPEC 7 states (row 7).
    every_order : str or None
        ``"module:function"`` of its model for ``cogo verify --every-order`` (a ``BlockModel``); None when the
        every-order theorem proves it otherwise (z_M, through its character sums).
    snap_types : tuple of str
        The block types (:class:`cogo.catalogue.Product` names) whose snapped blocks its family certificate covers.
    odd_only : bool
        Needs a group of odd order (every ``k != -k``, SPEC 6).
    """

    name: str
    title: str
    aliases: tuple[str, ...]
    design: str | None
    builder: str
    certificate: str
    node_counts: Callable[..., tuple[int, dict]]
    every_order: str | None = None
    snap_types: tuple[str, ...] = ()
    odd_only: bool = True

    @property
    def short_title(self) -> str:
        """The title without its SPEC section (``"z_F4/6 with the hat correction"``)."""
        return self.title.split(" (")[0]

    @property
    def section(self) -> str:
        """The section of docs/math.md it is stated in (``"SPEC 7.3"``), read from its title."""
        return self.title.rsplit("(", 1)[1].rstrip(")")


_SOLVERS, _DESIGNS, _EVERY = "cogo.solvers.constructions", "cogo.solvers.designs", "cogo.proofs.every_order.models"

#: Every construction, in the order ``cogo verify`` prints them.
CONSTRUCTIONS: tuple[Construction, ...] = (
    Construction("z_F6", "z_F6 (SPEC 7.1)", ("f6",), f"{_DESIGNS}:f6_design", f"{_SOLVERS}:z_F6", FAMILY,
                 _blocks(6), f"{_EVERY}:_f6", ("z_nu * z_syn",)),
    Construction("z_F6_ab", "z_F6 with z_{nu=i} * z_syn,ab blocks (SPEC 7.2)", ("f6-ab",),
                 f"{_DESIGNS}:f6ab_design", f"{_SOLVERS}:z_F6_ab", FAMILY, _blocks(6), f"{_EVERY}:_f6ab",
                 ("z_nu=i * z_syn,ab",)),
    Construction("z_F46", "z_F4/6 with the hat correction (SPEC 7.3)", ("f46",), f"{_DESIGNS}:f46_design",
                 f"{_SOLVERS}:z_F46", FAMILY, _blocks(4, hat=6), f"{_EVERY}:_f46", ("z_nu=i * z_xi",)),
    Construction("z_M", "z_M memorization (SPEC 7.4)", ("mem",), None, f"{_SOLVERS}:z_M", CHARACTER_SUMS, _one_hot,
                 None, (), odd_only=False),
)
#: The names, in table order.
NAMES: tuple[str, ...] = tuple(c.name for c in CONSTRUCTIONS)
_BY_NAME = {c.name: c for c in CONSTRUCTIONS}
_BY_ALIAS = {a: c for c in CONSTRUCTIONS for a in c.aliases}


def unknown_message(name: Any) -> str:
    """The one message for a name that is not a construction's: an older spelling names the one to use.

    Examples
    --------
    >>> unknown_message("f6-ab")
    "unknown construction 'f6-ab': 'f6-ab' is the old name of z_F6_ab: use z_F6_ab"
    """
    old = _BY_ALIAS.get(name) if isinstance(name, str) else None
    if old is not None:
        return f"unknown construction {name!r}: {name!r} is the old name of {old.name}: use {old.name}"
    return f"unknown construction {name!r}; choose one of {', '.join(NAMES)}"


def construction(name: str) -> Construction:
    """The record of the construction called ``name`` (one of :data:`NAMES`).

    Raises
    ------
    ValueError
        Any other name; an older spelling (``"f6-ab"``, ``"mem"``) with the name to use (:func:`unknown_message`).

    Examples
    --------
    >>> construction("z_F46").title
    'z_F4/6 with the hat correction (SPEC 7.3)'
    """
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise ValueError(unknown_message(name)) from None


def from_record(recorded: Any) -> Construction | None:
    """The construction a checkpoint's ``meta["construction"]`` records: its name, or an older spelling of it.

    Files written before the one vocabulary recorded ``f6``, ``f6-ab``, ``f46`` or ``mem``; they are read as
    they were written.  None for anything else.
    """
    if not isinstance(recorded, str):
        return None
    return _BY_NAME.get(recorded) or _BY_ALIAS.get(recorded)


def resolve(ref: str) -> Any:
    """The object ``"module:attribute"`` names, imported now (the records name what lives on higher floors)."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)
