"""The per-frequency blocks of a network (SPEC 6, SPEC 8.2-8.3): the one place they are extracted.

:func:`extract_blocks` splits the hidden nodes of a network (numeric or exact)
into dead nodes, zero-frequency nodes and per-frequency blocks; classification
(:mod:`cogo.analysis.classify`), the network verdict (:mod:`cogo.analysis.verdict.network_verdict`)
and the theorem verifier use it, so every reader of a network applies the same rules:

1. **Dead nodes** (SPEC 8.2).  A node's *strength* is the gauge-invariant
   ``(A^2 C)^(1/3)`` with ``A = max_k max(|z[a,k,j]|, |z[b,k,j]|)`` and
   ``C = max_k |z[c,k,j]|`` (invariant under ``(t a, t b, c / t^2)``).  A node is
   dead when its strength is at most ``dead_threshold`` times the strongest
   node's (relative rule, default :data:`DEAD_THRESHOLD` = 1e-2), or, with
   ``dead_threshold=0``, when it is exactly 0 (exact networks: every entry
   proven 0; numeric: every entry 0.0).
2. **Dominant frequency** (SPEC 8.3).  Frequencies are taken in classes
   ``{k, -k}`` represented by the smaller index.  A node's class maximizes its
   input energy ``sum |z[a]|^2 + |z[b]|^2`` over the class (``|z[a]|`` alone in
   SPEC 8.3; adding ``b`` keeps the rule symmetric in the inputs; ties go to
   the smaller index).  Class 0 makes a *zero-frequency* node (no block).
3. **Mixed nodes**.  After balancing the node (``t^3 = ||c|| / sqrt(||a|| ||b||)``)
   its amplitude per class is the root of the energy of ``t a, t b, c / t^2``
   there; the node *mixes frequencies* when the second largest class amplitude
   exceeds ``mix_threshold`` (default :data:`MIX_THRESHOLD` = 0.05) times the
   largest.  Mixed nodes stay in the block of their dominant class; its values
   there are the block's, the rest is reported by ``mix_ratio`` (a block made
   only of its own values is exactly optimal iff the conditions of
   :func:`block_conditions` hold; cross-frequency terms are judged by the
   network verdict, :mod:`cogo.analysis.verdict.network_verdict`).
4. **Self-conjugate classes** (SPEC 6, even groups).  When ``k = -k`` the block
   has one value per node (real for real weights), the only potentials it
   makes at output ``k`` are ``r[k,k,k] = sum a b c`` and the self sums
   ``sum_p r_p[k, k, k] = sum (a^2 + b^2) c`` (index ``m = 2k = 0``: the R_n
   sum); there is no R_c or R_* triple.  When ``2k = -2k`` but ``k != -k``
   (``k = n/4``), the R_* sums at ``m = 2k`` and ``m = -2k`` are one index,
   so their sum (``a^2 c + conj(a)^2 c``) must vanish, not each term.
   :func:`block_conditions` implements the three cases.

Example
-------
>>> from cogo.algebra import Network
>>> from cogo.catalogue.partial import z_nu_i, z_syn
>>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())
>>> net = Network.block(7, 2, x.a, x.b, x.c)
>>> split = extract_blocks(net)
>>> [(b.k, b.order, b.kind) for b in split.blocks]
[(2, 6, 'generic')]
>>> max(split.blocks[0].conditions().values()) < 1e-12
True

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# the one block type and its conditions live in cogo.algebra.block (solvers build blocks, analysis extracts them)
from cogo.algebra.block import CONDITIONS, Block, _numeric, block_conditions  # noqa: F401
from cogo.algebra.network import is_zero_exact

__all__ = [
    "DEAD_THRESHOLD",
    "MIX_THRESHOLD",
    "Block",
    "BlockSplit",
    "extract_blocks",
    "frequency_classes",
    "block_conditions",
    "block_kind",
    "CONDITIONS",
]

#: Relative strength at or below which a node is dead (SPEC 8.2).
DEAD_THRESHOLD = 1e-2
#: Second-largest / largest class amplitude above which a node mixes frequencies.
MIX_THRESHOLD = 0.05


@dataclass
class BlockSplit:
    """The nodes of a network split as SPEC 8.2-8.3 (see the module docstring).

    ``node_frequency[j]``: the block frequency of node ``j``, ``-1`` for a dead
    node, ``0`` for a zero-frequency node; ``live``, ``mixed``: bool per node;
    ``strength``, ``mix_ratio``: float per node; ``blocks``: by increasing ``k``.

    >>> import numpy as np
    >>> from cogo.algebra import Network
    >>> from cogo.solvers.constructions import z_F6
    >>> split = extract_blocks(Network.sum([z_F6(5), 1e-3 * Network.one(5)]))   # a weak (dead) node appended
    >>> split.counts(), split.live_nodes, split.dead_nodes, int(split.node_frequency[-1])
    ({1: 6, 2: 6}, 12, 1, -1)
    """

    group: Any
    hidden: int
    live: np.ndarray
    strength: np.ndarray
    node_frequency: np.ndarray
    mixed: np.ndarray
    mix_ratio: np.ndarray
    blocks: list

    @property
    def live_nodes(self) -> int:
        return int(self.live.sum())

    @property
    def dead_nodes(self) -> int:
        return int(self.hidden - self.live.sum())

    @property
    def zero_frequency_nodes(self) -> int:
        return int(np.sum(self.live & (self.node_frequency == 0)))

    @property
    def mixed_nodes(self) -> int:
        return int(self.mixed.sum())

    def counts(self) -> dict[int, int]:
        """Order of every block, keyed by frequency."""
        return {b.k: b.order for b in self.blocks}


def frequency_classes(group: Any) -> tuple[np.ndarray, np.ndarray]:
    """Representative (smaller index) of each class ``{k, -k}``, and the class id of every frequency index.

    Returns
    -------
    reps : numpy.ndarray
        The representative of each class, increasing (class 0 is ``{0}``).
    cls : numpy.ndarray
        For every frequency index, the position of its class in ``reps``.

    Examples
    --------
    >>> from cogo.algebra import Cyclic
    >>> reps, cls = frequency_classes(Cyclic(5))        # classes {0}, {1, 4}, {2, 3}
    >>> reps.tolist(), cls.tolist()
    ([0, 1, 2], [0, 1, 2, 2, 1])
    """
    k = np.arange(group.order)
    rep = np.minimum(k, group.neg)
    reps = np.unique(rep)
    return reps, np.searchsorted(reps, rep)


def block_kind(group: Any, k: int) -> str:
    """``"self-conjugate"`` (``k = -k``), ``"quarter"`` (``2k = -2k`` only) or ``"generic"`` (SPEC 6).

    Examples
    --------
    >>> from cogo.algebra import Cyclic
    >>> [block_kind(Cyclic(8), k) for k in (1, 2, 3, 4)]   # 2 + 2 = -(2 + 2) in Z_8; 4 = -4
    ['generic', 'quarter', 'generic', 'self-conjugate']
    """
    neg = group.neg
    if neg[k] == k:
        return "self-conjugate"
    k2 = group.add_table[k, k]
    return "quarter" if neg[k2] == k2 else "generic"


def extract_blocks(net: Any, dead_threshold: float = DEAD_THRESHOLD,
                   mix_threshold: float = MIX_THRESHOLD) -> BlockSplit:
    """Split the nodes of ``net`` (a :class:`cogo.algebra.Network`, numeric or exact) into blocks (SPEC 8.2-8.3).

    Rules in the module docstring.  Decisions use complex128 magnitudes; the
    block values are the network's own entries (exact for an exact network).
    ``dead_threshold``: relative strength in ``[0, 1)``; 0 keeps every node
    that is not exactly zero.  Cost ``O(n_G q)``.

    Raises
    ------
    ValueError
        When ``dead_threshold`` is outside ``[0, 1)``.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F46
    >>> split = extract_blocks(z_F46(7))                # one order-6 block (with the hat: mixed) and two order-4
    >>> split.counts(), [b.kind for b in split.blocks], split.mixed_nodes
    ({1: 6, 2: 4, 3: 4}, ['generic', 'generic', 'generic'], 6)
    """
    if not (0.0 <= dead_threshold < 1.0):
        raise ValueError(f"dead_threshold must lie in [0, 1), got {dead_threshold!r}")
    G = net.group
    z = net.z
    zn = _numeric(z)
    q = zn.shape[2]
    absz = np.abs(zn)
    A = np.maximum(absz[0].max(axis=0, initial=0.0), absz[1].max(axis=0, initial=0.0))
    C = absz[2].max(axis=0, initial=0.0)
    strength = np.cbrt(A * A * C)
    top = float(strength.max(initial=0.0))
    if dead_threshold == 0.0:
        # keep every node whose inputs are not exactly 0 (a node with a = b = 0 makes no potential)
        if z.dtype == object:
            live = np.array([not all(is_zero_exact(e) for e in z[:2, :, j].ravel()) for j in range(q)], dtype=bool)
        else:
            live = A > 0
    else:
        live = strength > dead_threshold * top if top > 0 else np.zeros(q, dtype=bool)
    reps, cls = frequency_classes(G)
    nc = len(reps)
    E_in = np.zeros((nc, q))
    np.add.at(E_in, cls, absz[0] ** 2 + absz[1] ** 2)
    na, nb, ncn = (np.linalg.norm(zn[p], axis=0) for p in range(3))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where((na > 0) & (nb > 0) & (ncn > 0), np.cbrt(ncn / np.sqrt(na * nb)), 1.0)
    E_all = np.zeros((nc, q))
    np.add.at(E_all, cls, (absz[0] ** 2 + absz[1] ** 2) * t ** 2 + absz[2] ** 2 / t ** 4)
    dom = np.argmax(E_in, axis=0) if q else np.zeros(0, dtype=np.int64)
    srt = np.sort(np.sqrt(E_all), axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mix_ratio = np.where(srt[-1] > 0, srt[-2] / np.where(srt[-1] > 0, srt[-1], 1.0), 0.0) \
            if nc > 1 else np.zeros(q)
    mixed = live & (mix_ratio > mix_threshold)
    node_freq = np.full(q, -1, dtype=np.int64)
    node_freq[live] = reps[dom[live]]
    blocks = []
    for kc in np.unique(node_freq[live & (node_freq > 0)]):
        k = int(kc)
        nodes = np.flatnonzero(live & (node_freq == k))
        blocks.append(Block(k=k, k_coords=G.coords(k), nodes=nodes, a=z[0, k, nodes], b=z[1, k, nodes],
                            c=z[2, k, nodes], kind=block_kind(G, k), mixed=mixed[nodes],
                            mix_ratio=mix_ratio[nodes]))
    return BlockSplit(group=G, hidden=q, live=live, strength=strength, node_frequency=node_freq,
                      mixed=mixed, mix_ratio=mix_ratio, blocks=blocks)


