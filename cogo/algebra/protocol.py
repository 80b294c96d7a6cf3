"""The one protocol every finite group of cogo implements (SPEC 1, 9).

A group is its multiplication table: elements are the indices ``0 .. order - 1``.

* ``order``: ``M = |G|``;
* ``label``: the name a command line and a checkpoint use (it parses back:
  :func:`cogo.algebra.group_parsing.parse_group`);
* ``table``: ``(M, M)`` int64, ``table[g, h]`` the index of ``g h``;
* ``identity``: the index of the identity; ``inverse``: ``(M,)`` int64;
* ``is_abelian``;
* ``as_product``: the :class:`cogo.algebra.groups.FiniteAbelianGroup` whose
  coordinates ``Z_d1 x ... x Z_dn`` index the elements (characters, the Fourier
  transform of SPEC 2, everything SPEC 3-8 needs), or ``None`` for a group known
  only by its table (an Abelian one too: its elements carry no coordinates).

Three classes implement it: :class:`cogo.algebra.groups.FiniteAbelianGroup`
(``Z_d1 x ... x Z_dn`` in coordinates, with its Fourier transform, SPEC 2),
:class:`cogo.algebra.finite_groups.FiniteGroup` (any group by its Cayley
table, SPEC 9) and :class:`cogo.li2.energy.Li2Group` (a group with the
isotypic components the Li^2 energy needs).  The irreducible representations
of any of them are :func:`cogo.algebra.representations.irreps` and
:func:`cogo.algebra.representations.character_table`: representation theory is
a layer above the groups, so a group object never imports it.  Code that needs
the coordinates and characters of ``Z_d1 x ... x Z_dn`` asks ``G.as_product``
(``None``: read the group by its irreps), never ``hasattr`` nor the class.

>>> from cogo.algebra import Cyclic
>>> from cogo.algebra.finite_groups import named_group
>>> [isinstance(G, Group) for G in (Cyclic(5), named_group("S3"))]
[True, True]

References
----------
.. [1] J.-P. Serre, "Linear Representations of Finite Groups", Springer GTM 42, 1977.
.. [2] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [3] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Group", "check_group_axioms"]


@runtime_checkable
class Group(Protocol):
    """A finite group as a multiplication table (module docstring)."""

    order: int
    label: str
    table: np.ndarray
    identity: int
    inverse: np.ndarray
    is_abelian: bool
    as_product: Any


def check_group_axioms(G: Group) -> list[str]:
    """The group axioms the protocol's values fail (empty: a group), checked on the whole table (``O(M^3)``).

    Closure (a Latin square of indices), associativity, the identity and the
    inverses, ``is_abelian`` against ``table == table.T``, and ``as_product`` (when not ``None``) against the
    table its coordinates give.

    Examples
    --------
    >>> from cogo.algebra import Cyclic
    >>> check_group_axioms(Cyclic(6))
    []
    """
    T = np.asarray(G.table)
    M = int(G.order)
    bad = []
    if T.shape != (M, M) or T.min(initial=0) < 0 or T.max(initial=0) >= M:
        return ["table is not an (order x order) table of indices"]
    if not all(len(set(r)) == M for r in T) or not all(len(set(c)) == M for c in T.T):
        bad.append("not a Latin square")
    r = np.arange(M)
    if not np.array_equal(T[T[:, :, None], r[None, None, :]], T[r[:, None, None], T[None, :, :]]):  # (gh)k = g(hk)
        bad.append("not associative")
    e = int(G.identity)
    if not (np.array_equal(T[e], np.arange(M)) and np.array_equal(T[:, e], np.arange(M))):
        bad.append("identity is not neutral")
    inv = np.asarray(G.inverse)
    if not (np.all(T[np.arange(M), inv] == e) and np.all(T[inv, np.arange(M)] == e)):
        bad.append("inverse is wrong")
    if bool(G.is_abelian) != bool(np.array_equal(T, T.T)):
        bad.append("is_abelian is wrong")
    A = getattr(G, "as_product", None)
    if A is not None and not np.array_equal(np.asarray(A.table), T):
        bad.append("as_product's coordinates do not index this table")
    return bad
