"""One parser for every way a group is written (SPEC 1, SPEC 9): the group-spec language of cogo.

``parse_group`` turns an order (``23``), a product (``"3x5"``, ``(3, 5)``, the printed ``"Z_3 x Z_5"``),
a name (``"S3"``, ``"Q8x2"``), a Cayley-table ``.json`` file, a registered table label, GAP's
``"SmallGroup(n,i)"`` (the ``gap`` extra) or a sympy ``PermutationGroup`` into a group object:
:class:`cogo.algebra.groups.FiniteAbelianGroup` for ``Z_d1 x ... x Z_dn`` (an Abelian table included,
by its invariant factors), :class:`cogo.algebra.finite_groups.FiniteGroup` otherwise.  A group's printed
name parses back to the same group.

The group sources (named families, tables, GAP) live in their own modules; this module only dispatches,
so they never import it and the import graph stays acyclic.  A new source is one branch of
:func:`group_from_spec`.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

import re
from typing import Any, Sequence, Union

import numpy as np

from cogo.algebra.finite_groups import (NAMED_GROUPS_HELP, FiniteGroup, _refuse_order, _split_product, named_group,
                                        registered_table)
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.smallgroups import from_spec as _smallgroup_from_spec  # GAP is imported at the first SmallGroup
from cogo.algebra.smallgroups import is_smallgroup_spec
from cogo.runtime.errors import CogoError

__all__ = ["pair_tables", "parse_group", "as_group", "require_group", "names_group", "Group", "GroupLike",
           "group_from_spec", "as_finite_group", "display_name"]

#: The one group type below the edge: what :func:`parse_group` returns (the Abelian path's group or a table's).
Group = Union[FiniteAbelianGroup, FiniteGroup]
#: What a user may write for a group, accepted at the edge only (:mod:`cogo.api`, the commands, public
#: constructors such as ``Network(..., group=23)``): an order, a product, a name, a path or a parsed group.
GroupLike = Union[str, int, Sequence[int], FiniteAbelianGroup, FiniteGroup]


_GROUP_RE = re.compile(r"^\s*\d+\s*(?:[xX*]\s*\d+\s*)*$")


def parse_group(spec: "str | int | Sequence[int] | FiniteAbelianGroup | Any") -> "FiniteAbelianGroup | Any":
    """Parse a group: ``'23'``, ``'3x5'``, ``23``, ``(3, 5)`` give :class:`FiniteAbelianGroup` (as always);
    ``'S3'``, ``'A5'``, ``'D5'``, ``'Q8'``, ``'Dic3'``, ``'S3x3'``, a Cayley-table ``.json`` path, a
    registered table label or a sympy ``PermutationGroup`` give a
    :class:`cogo.algebra.finite_groups.FiniteGroup` (SPEC 9).

    Returns
    -------
    FiniteAbelianGroup or FiniteGroup
        The group the spec names.

    Examples
    --------
    >>> parse_group('3x5')
    FiniteAbelianGroup((3, 5))
    >>> parse_group('S3')
    FiniteGroup('S3', order=6)
    """
    if isinstance(spec, FiniteAbelianGroup):
        return spec
    if isinstance(spec, FiniteGroup):
        return spec
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        return FiniteAbelianGroup((int(spec),))
    if isinstance(spec, str):
        if _GROUP_RE.match(spec):
            return FiniteAbelianGroup(int(t) for t in re.split(r"[xX*]", spec))
        if not spec.strip():
            raise CogoError(f"cannot parse group {spec!r}: expected {NAMED_GROUPS_HELP}")
        return group_from_spec(spec)
    if type(spec).__name__ == "PermutationGroup":
        return FiniteGroup.from_permutation_group(spec)
    try:
        return FiniteAbelianGroup(tuple(spec))
    except TypeError:
        raise CogoError(f"cannot interpret {spec!r} as a group") from None


def as_group(group: "GroupLike") -> "Group":
    """``group`` itself when it is already a parsed :data:`Group`, else :func:`parse_group` of it.

    The coercion every function below the edge applies to its ``group`` parameter: a group the edge parsed
    passes through untouched (no parsing, no copy); only a value a user wrote is parsed, once.

    >>> G = parse_group(23)
    >>> as_group(G) is G, as_group("3x5")
    (True, FiniteAbelianGroup((3, 5)))
    """
    if isinstance(group, (FiniteAbelianGroup, FiniteGroup)):
        return group
    return parse_group(group)


def require_group(group: Any, where: str) -> "Group":
    """``group``, which a private function below the edge takes already parsed; a ``TypeError`` naming ``where``
    otherwise (a caller that skipped :func:`as_group` is a bug, not a user's input to parse).

    >>> require_group(23, "f")
    Traceback (most recent call last):
    ...
    TypeError: f takes a parsed group (FiniteAbelianGroup or FiniteGroup), not int 23: coerce it at the edge with cogo.algebra.group_parsing.as_group
    """
    if isinstance(group, (FiniteAbelianGroup, FiniteGroup)):
        return group
    raise TypeError(f"{where} takes a parsed group (FiniteAbelianGroup or FiniteGroup), not "
                    f"{type(group).__name__} {group!r}: coerce it at the edge with cogo.algebra.group_parsing.as_group")


def names_group(text: Any, G: "Group") -> bool:
    """True when ``text`` is the label or the printed name of the Abelian group ``G`` and no table is registered
    under it: then :func:`parse_group` of ``text`` is ``G`` (a printed name parses back), so a recorded name is
    compared without parsing it again.  False means only "not decided this way": parse it.

    >>> G = parse_group("3x5")
    >>> names_group("Z_3 x Z_5", G), names_group("3x5", G), names_group("15", G)
    (True, True, False)
    """
    if not isinstance(G, FiniteAbelianGroup) or not isinstance(text, str) or text not in (G.label, str(G)):
        return False
    return bool(_GROUP_RE.match(text)) or registered_table(text) is None  # a registered table's label wins


def display_name(label: Any) -> str:
    """The one display name of a group's label, as ``str(parse_group(label))`` prints it (every report and figure).

    ``Z_23`` for a cyclic group given by its order, ``Z_3 x Z_5`` for a product, the label itself otherwise.

    >>> display_name("23"), display_name("S3"), display_name("3x5"), display_name(7)
    ('Z_23', 'S3', 'Z_3 x Z_5', 'Z_7')
    """
    s = str(label)
    parts = s.split("x")
    if all(p.isdigit() for p in parts):
        return " x ".join(f"Z_{p}" for p in parts)
    return s


def group_from_spec(spec: str) -> FiniteGroup:
    """A non-Abelian-path group from a string: a registered label, a ``.json`` Cayley table, or a name.

    Returns
    -------
    FiniteGroup or FiniteAbelianGroup
        The group (cyclic factors only give the Abelian path's group).

    Examples
    --------
    >>> group_from_spec("Z3xZ5"), group_from_spec("A4")   # cyclic factors only: the Abelian path
    (FiniteAbelianGroup((3, 5)), FiniteGroup('A4', order=12))

    A table (a ``.json`` file, or the label of one read before) that is Abelian is
    returned as its product of cyclic groups :meth:`FiniteGroup.as_abelian`, so it gets
    everything Abelian groups get (the semiring theorems, the block reading, the defaults).
    """
    s = str(spec).strip()
    reg = registered_table(s)
    if reg is not None:
        return reg.as_abelian() or reg
    if is_smallgroup_spec(s):  # kept as GAP numbers it, with its id (an Abelian one too)
        return _smallgroup_from_spec(s)
    if s.lower().endswith(".json"):  # an Abelian table is its product of cyclic groups (invariant factors)
        G = FiniteGroup.from_cayley_json(s)
        return G.as_abelian() or G
    toks = _split_product(s)
    cyc = [re.fullmatch(r"(?:Z_?|C_?)?(\d+)", t) for t in toks]
    if toks and all(cyc):                       # only cyclic factors: the Abelian path (Z7, Z3xZ5)
        order = 1
        for m in cyc:
            order *= int(m.group(1))
            _refuse_order(order, f"group {s}")
        return FiniteAbelianGroup(int(m.group(1)) for m in cyc)
    return named_group(s)


def as_finite_group(G: Any) -> FiniteGroup:
    """``G`` as a :class:`FiniteGroup` (an Abelian ``Z_d1 x ... x Z_dn`` becomes its addition table).

    Examples
    --------
    >>> G = as_finite_group(5)
    >>> G, int(G.table[3, 4])                       # 3 + 4 = 2 in Z_5
    (FiniteGroup('5', order=5), 2)
    """

    if isinstance(G, FiniteGroup):
        return G
    if isinstance(G, FiniteAbelianGroup):
        return FiniteGroup.from_abelian(G)
    return as_finite_group(parse_group(G))


def pair_tables(G: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every pair ``p = a M + b`` of ``G``: indices ``a, b`` and answers ``ab`` (each (M^2,)), and ``cx`` (M, M^2).

    ``cx[x, p]`` is the ``c`` with ``a b c^-1 = x``, i.e. ``x^-1 a b`` (the fibre of ``x``, SPEC 9).

    >>> a, b, ab, cx = pair_tables(3)
    >>> ab.tolist(), cx[1].tolist()
    ([0, 1, 2, 1, 2, 0, 2, 0, 1], [2, 0, 1, 0, 1, 2, 1, 2, 0])
    """
    FG = as_finite_group(G)
    M = FG.order
    T = np.asarray(FG.table)
    p = np.arange(M * M)
    a, b = p // M, p % M
    ab = T[a, b]
    cx = T[np.asarray(FG.inverse)[:, None], ab[None, :]]           # c with a b c^-1 = x
    return a, b, ab, cx
