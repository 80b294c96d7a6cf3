"""The one block type of SPEC 6 and the conditions a block alone must meet (SPEC 5-6).

A *block* is a set of hidden nodes that live at one frequency pair ``{k, -k}``
with values ``(a, b, c)`` at ``k`` (SPEC 6).  The constructions build blocks
(:mod:`cogo.solvers.constructions`), the readers extract them from a network
(:func:`cogo.analysis.block_extraction.extract_blocks`); both use :class:`Block`.
:func:`block_conditions` gives the largest residual of each SPEC 5 condition
of a block alone (:data:`CONDITIONS`).

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["CONDITIONS", "Block", "block_conditions", "block_conditions_many"]

#: The conditions of SPEC 5, in report order.
CONDITIONS = ("R_g", "R_c", "R_n", "R_*")


def _numeric(z: np.ndarray) -> np.ndarray:
    if z.dtype == object:
        import sympy  # late: sympy (numeric blocks never need it)

        f = np.vectorize(lambda e: complex(sympy.N(e)), otypes=[np.complex128])
        return f(z) if z.size else z.astype(np.complex128)
    return np.asarray(z, dtype=np.complex128)



@dataclass
class Block:
    """One block of SPEC 6: nodes with values ``(a, b, c)`` at frequency ``k`` (conjugates at ``-k``).

    The one block type: the constructions build blocks (``Block(k, part,
    c_ext)``, :mod:`cogo.solvers.constructions`) and the readers extract them
    (:func:`cogo.analysis.block_extraction.extract_blocks`).

    ``k``: frequency index (the smaller of ``k, -k``); ``part``: the
    :class:`cogo.catalogue.partial.PartialSolution` a designed block is made of
    (its values become ``a, b, c``); ``c_ext``: for a design, other frequency
    indices ``k'`` mapped to the value the block's output weights take there (a
    scalar, the hat correction of SPEC 7.3, or a vector over the nodes; empty for
    plain blocks); ``k_coords``: its group
    coordinates; ``nodes``: network node indices (int array; ``0 .. q-1`` for a
    design); ``a, b, c``: the nodes' values at ``k`` (complex128, or sympy objects for an exact network);
    ``kind``: ``"generic"``, ``"quarter"`` (``2k = -2k``, ``k != -k``) or
    ``"self-conjugate"`` (``k = -k``); ``mixed``: per node, whether it mixes
    frequencies; ``mix_ratio``: per node, second largest / largest class amplitude.

    >>> from cogo.analysis.block_extraction import extract_blocks
    >>> from cogo.solvers.constructions import z_F46
    >>> b = extract_blocks(z_F46(7)).blocks[1]          # an order-4 block of z_F4/6 (SPEC 7.3)
    >>> b.k, b.order, b.kind, b.nodes.tolist()
    (2, 4, 'generic', [6, 7, 8, 9])
    >>> round(b.conditions()["R_n"], 9)                 # alone it violates R_n: |1 + s i| = sqrt(2)
    1.414213562
    """

    k: int
    part: Any = None
    c_ext: dict = field(default_factory=dict)
    k_coords: tuple = ()
    nodes: np.ndarray | None = None
    a: np.ndarray | None = None
    b: np.ndarray | None = None
    c: np.ndarray | None = None
    kind: str = "generic"
    mixed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    mix_ratio: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self) -> None:
        if self.part is not None and self.a is None:  # a designed block: its values are its partial solution's
            self.a, self.b, self.c = self.part.a, self.part.b, self.part.c
        if self.a is None:
            raise ValueError("a block needs its values: a partial solution (part) or a, b, c")
        if self.nodes is None:
            self.nodes = np.arange(len(self.a))

    @property
    def order(self) -> int:
        """The number of nodes."""
        return int(len(self.nodes))

    @property
    def q(self) -> int:
        """The number of nodes (the name the constructions use)."""
        return self.order

    @property
    def self_conjugate(self) -> bool:
        return self.kind == "self-conjugate"

    def values(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(a, b, c)`` at ``k``."""
        return self.a, self.b, self.c

    def conditions(self) -> dict[str, float]:
        """Largest residual of each SPEC 5 condition of this block alone (:func:`block_conditions`)."""
        return block_conditions(self.a, self.b, self.c, kind=self.kind)


def block_conditions(a: Any, b: Any, c: Any, kind: str = "generic") -> dict[str, float]:
    """Largest residual of each condition of SPEC 5 for one block alone (SPEC 6), float64.

    ``kind`` (see :func:`cogo.analysis.block_extraction.block_kind`):

    - ``"generic"``: ``R_g = |abc - 1|``; ``R_c`` the largest of the four R_c
      monomial sums of SPEC 6; ``R_n = | |a|^2 c + |b|^2 c |``; ``R_*`` the
      largest of the four R_* monomial sums.
    - ``"quarter"`` (``2k = -2k``): as generic, but the R_* sums at
      ``m = 2k = -2k`` are one potential: ``R_* = max_p |p^2 c + conj(p)^2 c|``.
    - ``"self-conjugate"`` (``k = -k``): ``R_g = |abc - 1|``,
      ``R_n = |sum (a^2 + b^2) c|``; no R_c or R_* triple exists (0).

    The scale is SPEC 6's monomial sums; the network's R_n residual of SPEC 5
    at a generic or quarter block is twice this one (``k' = k`` and ``k' = -k``
    both contribute ``|a|^2 c``).  Exact entries are evaluated numerically.
    Returns ``{"R_g", "R_c", "R_n", "R_*"}``.

    Examples
    --------
    >>> from cogo.catalogue.partial import z_nu_i, z_syn, z_xi
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())        # an order-6 block (SPEC 7.1): every condition holds
    >>> {k: round(v, 9) for k, v in block_conditions(x.a, x.b, x.c).items()}
    {'R_g': 0.0, 'R_c': 0.0, 'R_n': 0.0, 'R_*': 0.0}
    >>> y = 4 ** (-1 / 3) * (z_nu_i() * z_xi(1, 1))     # an order-4 block (SPEC 7.3): all but R_n
    >>> {k: round(v, 9) for k, v in block_conditions(y.a, y.b, y.c).items()}
    {'R_g': 0.0, 'R_c': 0.0, 'R_n': 1.414213562, 'R_*': 0.0}
    """

    a, b, c = (_numeric(np.asarray(v).reshape(-1)) for v in (a, b, c))
    return block_conditions_many(a[None], b[None], c[None], kind)[0]


def block_conditions_many(A: Any, B: Any, C: Any, kind: str = "generic") -> list[dict[str, float]]:
    """:func:`block_conditions` of many numeric blocks of one order and kind at once: block ``i`` is row ``i`` of
    ``A``, ``B``, ``C`` (N, m).  The sums of all blocks in one call each; each modulus taken alone, as for one
    block (numpy's vectorized modulus may differ from it in the last bit).  Returns one dict per block."""
    a, b, c = (np.asarray(v, dtype=np.complex128) for v in (A, B, C))
    if a.ndim != 2 or b.shape != a.shape or c.shape != a.shape:
        raise ValueError(f"blocks are rows of three arrays of one shape (N, m); got {a.shape}, {b.shape}, {c.shape}")
    if kind not in ("generic", "quarter", "self-conjugate"):
        raise ValueError(f"unknown block kind {kind!r}")

    def sums(*terms):  # per term, the sum of every block, as Python complex numbers
        return [t.sum(axis=1).tolist() for t in terms]
    if kind == "self-conjugate":
        g, n = sums(a * b * c, (a * a + b * b) * c)
        return [{"R_g": abs(gi - 1), "R_c": 0.0, "R_n": abs(ni), "R_*": 0.0} for gi, ni in zip(g, n)]
    ca, cb, cc = np.conj(a), np.conj(b), np.conj(c)
    g, n = sums(a * b * c, (a * ca + b * cb) * c)
    rc = sums(ca * b * c, a * cb * c, a * b * cc, ca * cb * c)
    if kind == "quarter":
        rs = sums((a * a + ca * ca) * c, (b * b + cb * cb) * c)
    else:
        rs = sums(a * a * c, b * b * c, ca * ca * c, cb * cb * c)
    return [{"R_g": abs(g[i] - 1), "R_c": max(abs(t[i]) for t in rc), "R_n": abs(n[i]),
             "R_*": max(abs(t[i]) for t in rs)} for i in range(len(a))]
