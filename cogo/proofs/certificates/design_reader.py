"""The design reader: the per-frequency blocks of an exact network, with the block structure proven exactly.

:func:`design_from_network` reads the blocks off an exact network and checks, on the network itself, the premise
of the block-independence lemma of :mod:`cogo.proofs.certificates.block_certificate` (every node's inputs supported on one pair
``{k, -k}``) and Hermitian symmetry; :func:`cogo.proofs.certificates.block_certificate.block_certificate` then certifies the design.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import sympy

from cogo.algebra.network import Network
from cogo.catalogue.partial import PartialSolution
from cogo.algebra.block import Block
from cogo.solvers.designs import BlockDesign
from cogo.analysis.block_extraction import extract_blocks
from cogo.proofs.certificates.exact_zero import is_zero_proven as is_zero_exact  # exact, undecided is not zero (cogo.proofs.certificates.exact_zero)

__all__ = ["design_from_network", "clear_caches"]

_S_ZERO = sympy.S.Zero


def _nz(x) -> bool:
    """Structurally nonzero (conservative: an unsimplified zero counts as nonzero)."""
    return not (x is _S_ZERO or x == 0)


#: ``(x, y) -> is_zero_exact(y - conjugate(x))`` for sympy's conjugation; a pure function of two immutable
#: sympy values, so the answers are shared across networks (the seeded constructions of every order repeat
#: the blocks of the smaller orders).  Cleared by :func:`clear_caches`.
_HERMITIAN_CACHE: dict = {}


def clear_caches() -> None:
    """Forget the cached Hermitian-pair answers (:func:`cogo.proofs.certificates.block_certificate.clear_caches` calls this)."""
    _HERMITIAN_CACHE.clear()


def _hermitian_pair(x, y, cj: Callable, use_cache: bool) -> bool:
    """Exactly: is ``y`` the conjugate of ``x``?"""
    if not use_cache:
        return is_zero_exact(y - cj(x))
    key = (x, y)
    hit = _HERMITIAN_CACHE.get(key)
    if hit is None:
        hit = _HERMITIAN_CACHE[key] = is_zero_exact(y - cj(x))
    return hit


def design_from_network(net: Network, conj: Callable | None = None) -> tuple[BlockDesign, list[str]]:
    """Read the per-frequency blocks off an exact network, checking the block structure exactly.

    The nodes are grouped by :func:`cogo.analysis.block_extraction.extract_blocks` with
    ``dead_threshold=0`` (the one block extraction of cogo), run on the
    structural support of the entries (1 where an entry is not structurally
    0: nodes with ``a = b = 0``, which contribute to no potential, are dropped,
    and a node supported on one pair lands in that pair's block); the block
    values are read exactly from the network.
    The premise of the block-independence lemma (:mod:`cogo.proofs.certificates.block_certificate`) is then
    proven exactly on the network: every kept node has ``a`` and ``b``
    supported on its block's pair ``{k, -k}`` (``k != 0``; a node of the zero
    class or with inputs at another frequency is a problem), and Hermitian
    symmetry holds (every entry at ``-k`` the conjugate of the entry at ``k``).
    ``c`` at other frequencies becomes the block's ``c_ext`` (a scalar when
    all its nodes share the value).

    Returns
    -------
    design : BlockDesign
        The blocks read from ``net`` (named ``"read from network"``, exact).
    problems : list of str
        The structure problems found (Hermitian symmetry, nodes outside their pair); empty when sound.

    Raises
    ------
    ValueError
        ``net`` is not exact.

    Examples
    --------
    >>> from cogo.proofs.certificates.block_certificate import block_certificate
    >>> from cogo.solvers.constructions import z_F6
    >>> design, problems = design_from_network(z_F6(5, exact=True))
    >>> [(b.k, b.q) for b in design.blocks], problems, block_certificate(design).loss
    ([(1, 6), (2, 6)], [], 0)
    """
    if not net.exact:
        raise ValueError("design_from_network needs an exact network")
    G = net.group
    cj = conj or sympy.conjugate
    z = net.z
    nz = np.vectorize(_nz, otypes=[bool])(z) if z.size else np.zeros(z.shape, dtype=bool)
    # Hermitian symmetry, exactly, on entries that are not both structurally 0
    problems = _hermitian_problems(z, nz, G.order, G.neg, cj, conj is None)
    # the grouping of cogo.analysis.block_extraction on the structural support (1 where an entry is not structurally 0):
    # a node supported on one pair {k, -k} lands in the block of k whatever its values; values are read
    # exactly from ``net`` below, and a node with inputs outside its pair is reported, not grouped
    split = extract_blocks(Network(G, nz.astype(np.complex128)), dead_threshold=0.0)
    neg = G.neg
    supports = nz[0] | nz[1]  # (k, j)
    in_block: set = set()
    for blk in split.blocks:
        if blk.self_conjugate:
            problems.append(f"block at frequency index {blk.k} = -{blk.k}: blocks need k != -k")
        allowed = {int(blk.k), int(neg[blk.k])}
        for j in blk.nodes.tolist():
            supp = set(np.flatnonzero(supports[:, j]).tolist())
            if supp <= allowed:
                in_block.add(j)
            else:
                problems.append(f"node {j}: inputs supported on frequencies {sorted(supp)}, not on one pair k, -k "
                                "(k != 0)")
    for j in np.flatnonzero(split.live & (split.node_frequency == 0)).tolist():
        supp = np.flatnonzero(supports[:, j]).tolist()
        problems.append(f"node {j}: inputs supported on frequencies {supp}, not on one pair k, -k (k != 0)")
    blocks = _read_blocks(split, z, nz, [int(k) for k in G.positive_frequencies], in_block)
    return BlockDesign(G, "read from network", blocks, True, conj=conj), problems


def _hermitian_problems(z: np.ndarray, nz: np.ndarray, n: int, neg: Any, cj: Callable,
                        use_cache: bool) -> list[str]:
    """One problem per ``(p, k)`` whose entries at ``-k`` are not the conjugates of those at ``k`` (exact)."""
    problems: list[str] = []
    for p in range(3):
        for k in range(n):
            kn = int(neg[k])
            if kn < k:
                continue
            for j in np.flatnonzero(nz[p, k] | nz[p, kn]).tolist():
                if not _hermitian_pair(z[p, k, j], z[p, kn, j], cj, use_cache):
                    problems.append(f"Hermitian symmetry fails at p={'abc'[p]}, k={k}, node {j}")
                    break
    return problems


def _read_blocks(split: Any, z: np.ndarray, nz: np.ndarray, keys: list[int], in_block: set) -> list:
    """The :class:`Block` of each pair, its values read exactly from ``z`` (``c`` elsewhere as ``c_ext``)."""
    blocks = []
    for blk in split.blocks:
        js = [j for j in blk.nodes.tolist() if j in in_block]
        if not js or blk.self_conjugate:
            continue
        k = int(blk.k)
        part = PartialSolution("block", np.asarray([z[0, k, j] for j in js], dtype=object),
                               np.asarray([z[1, k, j] for j in js], dtype=object),
                               np.asarray([z[2, k, j] for j in js], dtype=object))
        ext = {}
        for k2 in keys:
            if k2 == k or not nz[2, k2, js].any():
                continue
            col = [z[2, k2, j] for j in js]
            ext[k2] = col[0] if all(x == col[0] for x in col) else tuple(col)
        blocks.append(Block(k, part, ext))
    return blocks
