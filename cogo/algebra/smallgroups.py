"""Groups from GAP's SmallGroups library (SPEC 9), behind the optional extra ``gap``.

``SmallGroup(n,i)`` is the ``i``-th group of order ``n`` in the SmallGroups
library of GAP (every group of order up to 2000 except 1024, up to
isomorphism; the numbering is GAP's, e.g. ``SmallGroup(24,12)`` is S4).  This
module asks GAP, through the ``passagemath-gap`` wheels
(``pip install -e ".[gap]"`` in the checkout), for the group's elements and multiplication
table and builds a :class:`cogo.algebra.finite_groups.FiniteGroup` from it:
the table goes through the same axiom checks as any Cayley table, element
``0`` is the identity, and element ``j >= 1`` is GAP's ``Elements(G)[pos]``
(GAP's sorted list with the identity moved to the front).  Nothing else in
cogo imports GAP: it is loaded at the first ``SmallGroup(...)`` or
``smallgroups(...)`` that needs it, and without the extra that call raises
one :class:`cogo.runtime.errors.CogoError` line saying how to install it.

The group records where it came from in ``G.source``
(``{"library": "GAP SmallGroups", "id": [n, i], "name": <StructureDescription>}``);
training writes it into the checkpoint (``meta["group_source"]``, beside
the Cayley table ``meta["group_table"]``), so a checkpoint is read, classified
and checked without GAP.

Collections (:func:`expand_collection`) name many groups at once, for
``cogo li2-sweep --groups`` and ``cogo experiment --groups``::

    smallgroups(order<=64, nonabelian, max_irrep_dim=2)
    smallgroups(order=12..39, nonabelian, max_irrep_dim=3)

Terms, separated by commas (all must hold): ``order`` and ``max_irrep_dim``
(the largest irreducible degree ``d_max``) with ``=``, ``<=``, ``>=``, ``<``,
``>`` or a range ``A..B``; ``abelian`` or ``nonabelian``.  The order needs an
upper bound.  A non-Abelian member expands to its label ``SmallGroup(n,i)``;
an Abelian member to its product of cyclic groups (``2x4``, GAP's
``AbelianInvariants``), the same group up to isomorphism, so that it gets
everything cogo does for ``Z_d1 x ... x Z_dn``.

:func:`cogo.algebra.gap_check.compare_with_gap` checks cogo's own character table and
Frobenius-Schur indicators (Burnside-Dixon, :mod:`cogo.algebra.representations`)
against GAP's, exactly: every character value is a sum of roots of unity,
``chi(g) = sum_t m_t zeta_o^t``, and the integer multiplicities ``m_t`` of both
sides (cogo's from its cleaned multiplicities, GAP's from ``CoeffsCyc``) are compared after the
classes are aligned through the shared element numbering.

References
----------
H. U. Besche, B. Eick, E. A. O'Brien, "A millennium project: constructing small groups",
Int. J. Algebra Comput. 12 (2002).  The GAP Group, GAP -- Groups, Algorithms, and Programming.
Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), and
Z. Li, Y. Tian et al., "Li^2: provable scaling laws of grokking" (the non-Abelian collection drawn from
SmallGroups, filtered by the largest irrep dimension).
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from cogo.algebra.finite_groups import FiniteGroup
from cogo.algebra.groups import MAX_ORDER
from cogo.runtime.errors import CogoError

__all__ = ["INSTALL_HINT", "is_smallgroup_spec", "is_collection_spec", "smallgroup", "expand_collection",
           "collection_members", "gap_available"]

#: The one line shown when GAP is needed but not installed.
INSTALL_HINT = ('GAP groups need the optional extra: pip install -e ".[gap]" in the cogo checkout '
                "(the passagemath-gap and passagemath-gap-pkg-smallgrp-data wheels)")

#: Orders the SmallGroups library holds: 1..2000 except 1024 (cogo's own limit MAX_ORDER applies too).
LIBRARY_MAX_ORDER = 2000

_SG_RE = re.compile(r"^\s*(?:SmallGroup|SG)\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*$", re.IGNORECASE)
_COLL_RE = re.compile(r"^\s*smallgroups\s*\((.*)\)\s*$", re.IGNORECASE | re.DOTALL)
_TERM_RE = re.compile(r"^(order|max_irrep_dim)\s*(<=|>=|==|=|<|>)\s*(\d+)(?:\s*\.\.\s*(\d+))?$")

_CACHE: dict[tuple[int, int], Any] = {}
_LIBGAP: Any = None


def gap_available() -> bool:
    """True when GAP (the ``gap`` extra) can be imported; never raises."""
    try:
        _libgap()
    except CogoError:
        return False
    return True


def _libgap():
    global _LIBGAP
    if _LIBGAP is None:
        try:
            import sage.all__sagemath_gap  # noqa: F401  # late: gap (optional; sets up libgap's element classes)
            from sage.libs.gap.libgap import libgap  # late: gap (optional)
        except ImportError:
            raise CogoError(INSTALL_HINT) from None
        _LIBGAP = libgap
    return _LIBGAP


def is_smallgroup_spec(spec: Any) -> bool:
    """Whether ``spec`` is written ``SmallGroup(n,i)`` (or ``SG(n,i)``); GAP is not needed to say so.

    Examples
    --------
    >>> is_smallgroup_spec("SmallGroup(24, 12)"), is_smallgroup_spec("S4")
    (True, False)
    """
    return isinstance(spec, str) and _SG_RE.match(spec) is not None


def is_collection_spec(spec: Any) -> bool:
    """Whether ``spec`` is a collection ``smallgroups(...)`` (its syntax is checked later).

    Examples
    --------
    >>> is_collection_spec("smallgroups(order<=16, nonabelian)"), is_collection_spec("S3")
    (True, False)
    """
    return isinstance(spec, str) and _COLL_RE.match(spec) is not None


def _check_id(n: int, i: int) -> None:
    if n < 1 or n > LIBRARY_MAX_ORDER or n == 1024:
        raise CogoError(f"SmallGroup({n},{i}): GAP's SmallGroups library holds the orders 1 to "
                        f"{LIBRARY_MAX_ORDER} except 1024")
    if n > MAX_ORDER:
        raise CogoError(f"SmallGroup({n},{i}) has order {n}, above the supported maximum {MAX_ORDER}")
    if i < 1:
        raise CogoError(f"SmallGroup({n},{i}): the library numbers the groups of each order from 1")


def smallgroup(n: int, i: int):
    """``SmallGroup(n,i)`` of GAP's library as a :class:`~cogo.algebra.finite_groups.FiniteGroup` (SPEC 9).

    The label is ``SmallGroup(n,i)``; ``G.source`` holds the GAP id and GAP's
    ``StructureDescription`` (e.g. ``S4``); ``G.element_names`` GAP's names of the
    elements (``e`` for the identity).  Raises :class:`CogoError` (one line) without the
    ``gap`` extra, for an id the library does not have, or above cogo's order limit.
    """
    n, i = int(n), int(i)
    _check_id(n, i)
    key = (n, i)
    if key in _CACHE:
        return _CACHE[key]
    gap = _libgap()
    nr = int(gap.NrSmallGroups(n))
    if i > nr:
        raise CogoError(f"SmallGroup({n},{i}): there {'is' if nr == 1 else 'are'} {nr} group"
                        f"{'' if nr == 1 else 's'} of order {n} in GAP's SmallGroups library")
    Ggap = gap.SmallGroup(n, i)
    els = Ggap.Elements()
    T = np.asarray([[int(v) for v in row] for row in gap.MultiplicationTable(els)], dtype=np.int64) - 1
    e = int(gap.Position(els, Ggap.Identity())) - 1
    perm = np.asarray([e] + [j for j in range(n) if j != e], dtype=np.int64)   # cogo index -> GAP position - 1
    pos = np.empty(n, dtype=np.int64)
    pos[perm] = np.arange(n)
    table = pos[T[np.ix_(perm, perm)]]
    names = ["e"] + [str(els[int(j)]) for j in perm[1:]]
    label = f"SmallGroup({n},{i})"
    G = FiniteGroup.from_table(table, label, elements=names)
    G.source = {"library": "GAP SmallGroups", "id": [n, i], "name": str(Ggap.StructureDescription())}
    G._gap_positions = perm  # GAP's Elements(G)[perm[j]] (0-based) is cogo's element j
    _CACHE[key] = G
    return G


def from_spec(spec: str):
    """The group of a ``SmallGroup(n,i)`` string (CogoError if it is not one)."""
    m = _SG_RE.match(spec) if isinstance(spec, str) else None
    if m is None:
        raise CogoError(f"not a SmallGroup(n,i) spec: {spec!r}")
    return smallgroup(int(m.group(1)), int(m.group(2)))


def _parse_collection(spec: str) -> dict:
    m = _COLL_RE.match(spec)
    if m is None:
        raise CogoError(f"not a collection: {spec!r}; expected smallgroups(order<=N, nonabelian, max_irrep_dim=D)")
    bounds = {"order": [1, None], "max_irrep_dim": [1, None]}
    kind = None
    terms = [t.strip() for t in m.group(1).split(",")]
    for t in terms:
        tl = t.lower().replace(" ", "")
        if tl in ("abelian", "nonabelian", "non-abelian"):
            k = "abelian" if tl == "abelian" else "nonabelian"
            if kind is not None and kind != k:
                raise CogoError(f"{spec}: both abelian and nonabelian asked for")
            kind = k
            continue
        tm = _TERM_RE.match(tl)
        if tm is None:
            raise CogoError(f"{spec}: cannot read the term {t!r}; terms are order<=N, order=A..B, "
                            "max_irrep_dim=D (or <=, >=, <, >, A..B), abelian, nonabelian")
        what, op, a, b = tm.group(1), tm.group(2), int(tm.group(3)), tm.group(4)
        lo, hi = bounds[what]
        if b is not None:
            if op not in ("=", "=="):
                raise CogoError(f"{spec}: write a range as {what}=A..B")
            lo, hi = max(lo, a), min(hi, int(b)) if hi is not None else int(b)
        elif op in ("=", "=="):
            lo, hi = max(lo, a), min(hi, a) if hi is not None else a
        elif op == "<=":
            hi = min(hi, a) if hi is not None else a
        elif op == "<":
            hi = min(hi, a - 1) if hi is not None else a - 1
        elif op == ">=":
            lo = max(lo, a)
        else:
            lo = max(lo, a + 1)
        bounds[what] = [lo, hi]
    olo, ohi = bounds["order"]
    if ohi is None:
        raise CogoError(f"{spec}: give the order an upper bound (order<=N)")
    if ohi > min(LIBRARY_MAX_ORDER, MAX_ORDER):
        raise CogoError(f"{spec}: orders up to {min(LIBRARY_MAX_ORDER, MAX_ORDER)} only")
    return {"order": (max(olo, 2), ohi), "max_irrep_dim": tuple(bounds["max_irrep_dim"]), "kind": kind}


def collection_members(spec: str) -> list[dict]:
    """The groups of a collection: ``{"id": [n, i], "abelian": bool, "d_max": int, "label": str}`` each.

    ``label`` is ``SmallGroup(n,i)`` for a non-Abelian group and the product of cyclic
    groups (GAP's ``AbelianInvariants``, e.g. ``2x4``) for an Abelian one.  The syntax is
    read (and refused in one line) before GAP is asked.

    Returns
    -------
    list of dict
        One dict per group of the collection, in (order, id) order.
    """
    c = _parse_collection(spec)
    gap = _libgap()
    (olo, ohi), (dlo, dhi), kind = c["order"], c["max_irrep_dim"], c["kind"]
    out = []
    for n in range(olo, ohi + 1):
        if n == 1024:
            continue
        for i in range(1, int(gap.NrSmallGroups(n)) + 1):
            G = gap.SmallGroup(n, i)
            ab = bool(G.IsAbelian())
            if (kind == "abelian" and not ab) or (kind == "nonabelian" and ab):
                continue
            d = 1 if ab else max(int(p[0]) for p in G.CharacterDegrees())
            if d < dlo or (dhi is not None and d > dhi):
                continue
            label = "x".join(str(int(v)) for v in G.AbelianInvariants()) if ab else f"SmallGroup({n},{i})"
            out.append({"id": [n, i], "abelian": ab, "d_max": d, "label": label})
    return out


def expand_collection(spec: str) -> list[str]:
    """The group labels of a collection ``smallgroups(...)`` (module docstring), in (order, id) order.

    CogoError (one line) for a malformed collection, one that holds no group, or without GAP.
    """
    labels = [m["label"] for m in collection_members(spec)]
    if not labels:
        raise CogoError(f"{spec}: no group of GAP's SmallGroups library satisfies these terms")
    return labels
