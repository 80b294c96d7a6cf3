"""cogo's character tables against GAP's: the independent cross-check of SPEC 9 (the ``gap`` extra).

:func:`compare_with_gap` compares, exactly, the conjugacy classes, the irreducible characters and the
Frobenius-Schur indicators that :mod:`cogo.algebra.representations` computes (Burnside-Dixon) for a group
of GAP's SmallGroups library (:mod:`cogo.algebra.smallgroups`) with GAP's own.  Apart from the group
source, so that reading a ``SmallGroup(n,i)`` needs none of the exact arithmetic.

References
----------
.. [1] The GAP Group, GAP -- Groups, Algorithms, and Programming; H. U. Besche, B. Eick, E. A. O'Brien, the SmallGroups library.
"""
from __future__ import annotations

from fractions import Fraction
from math import lcm
from typing import Any

import numpy as np

from cogo.algebra.cyclotomic import CycNumber
from cogo.algebra.representations import character_table
from cogo.algebra.smallgroups import _libgap
from cogo.runtime.errors import CogoError

__all__ = ["compare_with_gap"]


_GAP_TABLE_FN = """function(n, i)
  local G, els, tbl, ords;
  G := SmallGroup(n, i);
  els := Elements(G);
  tbl := CharacterTable(G);
  ords := OrdersClassRepresentatives(tbl);
  return [List(ConjugacyClasses(tbl), c -> List(AsList(c), x -> Position(els, x))),
          List(Irr(tbl), chi -> List([1 .. Length(ords)], c -> CoeffsCyc(chi[c], ords[c]))),
          Indicator(tbl, 2)];
end"""


def _gap_table_data(n: int, i: int) -> tuple[list, list, list]:
    """GAP's classes (1-based positions in ``Elements``), character values and indicators of SmallGroup(n,i).

    Each value ``chi(g)`` (``g`` of order ``o``) comes as GAP's ``CoeffsCyc(chi(g), o)``: its coordinates on
    ``E(o)^0 .. E(o)^(o-1)`` in GAP's (Zumbroich) basis of ``Q(zeta_o)``, ``E(o) = exp(2 pi i / o)``.
    """
    gap = _libgap()
    data = gap.eval(_GAP_TABLE_FN)(n, i).sage()
    num = lambda c: int(c) if c == int(c) else Fraction(str(c))  # noqa: E731  (Sage numbers -> Python)
    vals = [[tuple(num(c) for c in vec) for vec in row] for row in data[1]]
    return [[int(p) for p in cl] for cl in data[0]], vals, [int(v) for v in data[2]]


def compare_with_gap(G: Any, ct: Any = None) -> list[str]:
    """Disagreements between cogo's character table of a ``SmallGroup`` and GAP's (empty: they agree).

    ``G``: a group built by :func:`smallgroup`; ``ct``: the table to check (default cogo's
    :func:`cogo.algebra.representations.character_table`).  Checked, exactly:

    * the conjugacy classes are the same sets of elements (through the shared numbering);
    * the irreducible characters, as functions on the classes, are the same set: each value an
      exact element of ``Q(zeta_o)`` (``o`` the element order), cogo's ``sum_t m_t zeta_o^t`` from its
      integer multiplicities (SPEC 9) against GAP's ``CoeffsCyc``, compared by their canonical
      coordinates (:class:`cogo.algebra.cyclotomic.CycNumber`);
    * each character's Frobenius-Schur indicator (GAP's ``Indicator(tbl, 2)``).
    """
    src = getattr(G, "source", None)
    if not src or src.get("library") != "GAP SmallGroups":
        raise CogoError(f"{G} is not a group of GAP's SmallGroups library")
    n, i = src["id"]
    ct = character_table(G) if ct is None else ct
    pos = np.empty(n, dtype=np.int64)                 # GAP position - 1 -> cogo index
    pos[np.asarray(G._gap_positions)] = np.arange(n)
    # one call into GAP: class members (positions in Elements), character values (CoeffsCyc), indicators
    classes_gap, vals, ind = _gap_table_data(n, i)
    problems: list[str] = []
    gap_class_of = np.full(n, -1, dtype=np.int64)
    for c, members in enumerate(classes_gap):
        gap_class_of[pos[np.asarray(members, dtype=np.int64) - 1]] = c
    # classes: cogo class j <-> the GAP class of its first element; the partitions must coincide
    align = [int(gap_class_of[int(cl[0])]) for cl in ct.classes]
    for j, cl in enumerate(ct.classes):
        if set(np.flatnonzero(gap_class_of == align[j]).tolist()) != set(int(x) for x in cl):
            problems.append(f"class {j} of cogo ({len(cl)} elements) is not a conjugacy class of GAP's")
    if len(set(align)) != len(align) or len(align) != len(classes_gap):
        problems.append(f"cogo has {len(align)} classes, GAP {len(classes_gap)}")
        return problems

    memo: dict = {}

    def key(o: int, coeffs) -> tuple:                    # canonical coordinates in Q(zeta_o): exact equality
        raw = (o, tuple(coeffs))                          # ints (and Fractions, should GAP give any)
        if raw not in memo:
            fr = [Fraction(c) for c in coeffs]
            den = lcm(*(f.denominator for f in fr)) if fr else 1
            v = np.asarray([int(f * den) for f in fr], dtype=object)
            memo[raw] = (o, CycNumber(o, v, Fraction(1, den)).coordinates())
        return memo[raw]

    def cogo_char(k):
        out = []
        for j in range(len(ct.classes)):
            o = int(ct.class_orders[j])
            v = [0] * o
            for t, m in ct.multiplicities[k][j].items():   # chi_k(g_j) = sum_t m_t zeta_o^t (SPEC 9)
                v[int(t) % o] += int(m)
            out.append(key(o, v))
        return tuple(out)

    def gap_char(r):
        return tuple(key(len(vals[r][align[j]]), vals[r][align[j]]) for j in range(len(ct.classes)))

    mine = {(cogo_char(k), int(ct.indicators[k])) for k in range(len(ct.dims))}
    theirs = {(gap_char(r), ind[r]) for r in range(len(vals))}
    if len(mine) != len(ct.dims):
        problems.append("cogo's table repeats a character")
    only_cogo, only_gap = mine - theirs, theirs - mine
    if only_cogo or only_gap:
        problems.append(f"{len(only_cogo)} character(s) (with indicator) of cogo's table are not GAP's and "
                        f"{len(only_gap)} of GAP's are not cogo's")
    return problems
