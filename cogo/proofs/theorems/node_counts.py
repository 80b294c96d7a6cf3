"""Theorem 7 (SPEC 7): the node counts of the constructions.

A theorem function of the registry (:mod:`cogo.proofs.registry` states the contract every row keeps).

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import sympy

from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.network import Network
from cogo.algebra.group_parsing import as_group
from cogo.solvers import constructions as C
from cogo.catalogue.constructions import CONSTRUCTIONS, construction, resolve
from cogo.solvers.constructions import RootOfUnityNetwork, _phase
from cogo.analysis.block_extraction import extract_blocks
from cogo.proofs.certificates.mem_certificate import character_sum_onehot
from cogo.proofs.results import TheoremResult, Timer, check_method, make_result

__all__ = ["node_counts"]


# --------------------------------------------------------------------------- 7. node counts
def _expected_counts(kind: str, G: FiniteAbelianGroup, k0: int | None = None) -> tuple[int, dict]:
    """Node counts stated by SPEC 7 (total, per positive frequency): the construction's record."""
    return construction(kind).node_counts(G.order, [int(k) for k in G.positive_frequencies], k0)


def _mem_onehot_exact(G: FiniteAbelianGroup, Ua: RootOfUnityNetwork, Ub: RootOfUnityNetwork) -> tuple[bool, int]:
    """Exactly: z_M = n^(-2/3) Ua * Ub has n^2 nodes, node (j1, j2) with one-hot real weights at j1, j2, j1 + j2.

    Up to order 31 the product's character sums are computed directly.  Above,
    through the factor structure, checked exactly on the integer exponents:
    ``b`` of ``Ua`` and ``a`` of ``Ub`` are 1 (exponent 0), so the product's
    ``a`` row is ``Ua``'s and its ``b`` row is ``Ub``'s; the product's ``c``
    exponent equals the character of ``j1 + j2``; then the factors' rows and
    the characters are shown one-hot by exact character sums.
    """
    n = G.order
    q = Ua.E.shape[2] * Ub.E.shape[2]
    jj = np.arange(q)
    j1, j2 = jj // n, jj % n
    if n <= 31:
        E = (Ua.E[:, :, :, None] + Ub.E[:, :, None, :]).reshape(3, n, -1)
        prod = RootOfUnityNetwork(G, E, Ua.L)
        onehot = [character_sum_onehot(prod, p) for p in range(3)]
        where_ok = (onehot[0][1] == j1.tolist() and onehot[1][1] == j2.tolist()
                    and onehot[2][1] == G.add_table[j1, j2].tolist())
        return q == n * n and all(o[0] for o in onehot) and where_ok, q
    L = Ua.L
    ph = _phase(G)
    structure = (not np.any(Ua.E[1] % L) and not np.any(Ub.E[0] % L) and Ua.E.shape[2] == n == Ub.E.shape[2]
                 and np.array_equal((Ua.E[2][:, :, None] + Ub.E[2][:, None, :]) % L, ph[:, G.add_table]))
    if not structure:
        return False, q
    a_ok, a_where = character_sum_onehot(Ua, 0)
    b_ok, b_where = character_sum_onehot(Ub, 1)
    c_ok, c_where = character_sum_onehot(RootOfUnityNetwork(G, np.stack([ph, ph, ph]), L), 2)
    ok = a_ok and b_ok and c_ok and a_where == list(range(n)) and b_where == list(range(n)) \
        and c_where == list(range(n))
    return q == n * n and ok, q


def _support_counts(net: Network) -> tuple[dict, int]:
    """Nodes per positive frequency and in all, counted on an exact network's entries (SPEC 6 supports).

    A node is counted when some entry is not structurally 0; it belongs to the
    positive frequency ``k`` when its ``a`` and ``b`` are supported on
    ``{k, -k}`` exactly (a node with inputs elsewhere is counted under ``None``).
    Independent of :class:`cogo.solvers.designs.BlockDesign` bookkeeping.
    """
    G = net.group
    z = net.z
    nz = np.vectorize(lambda x: not (x is sympy.S.Zero or x == 0), otypes=[bool])(z)
    per: dict = {}
    total = 0
    pos = {int(k) for k in G.positive_frequencies}
    for j in range(net.q):
        if not nz[:, :, j].any():
            continue
        total += 1
        supp = set(np.flatnonzero(nz[0, :, j] | nz[1, :, j]).tolist())
        ks = [k for k in pos if supp and supp <= {k, int(G.neg[k])}]
        key = ks[0] if len(ks) == 1 else None
        per[key] = per.get(key, 0) + 1
    return per, total


def _mem_count(G: Any, C: Any, method: str, nets: dict | None, mem: tuple | None) -> tuple[bool, int]:
    """Row 7's z_M entry: ``(n^2 nodes with one-hot real weights, node count)``, exactly or numerically."""
    Ua, Ub = mem if mem is not None else C.mem_factors(G)
    if method == "exact":
        return _mem_onehot_exact(G, Ua, Ub)
    nt = (nets or {}).get("z_M") or C.z_M(G)
    Wa, Wb, Wc = nt.to_weights(real=True)
    q = nt.q

    def one_per(W):
        return bool(np.all((np.abs(W) > 1e-9 * np.abs(W).max()).sum(axis=1) == 1))

    ok = q == G.order ** 2 and one_per(Wa) and one_per(Wb) and one_per(Wc.T)
    return ok, q


def node_counts(group: Any, method: str = "exact", nets: dict | None = None,
                mem: tuple | None = None) -> TheoremResult:
    """Theorem 7 (SPEC 7): node counts.

    z_F6 and its 7.2 variant: 6 nodes per frequency, ``3 (n - 1)`` in all;
    z_F4/6: 6 at ``k0`` and 4 at every other frequency, ``6 + 4((n-1)/2 - 1)``;
    z_M: ``n^2`` nodes whose real weights are one-hot (node ``(j1, j2)``:
    ``W_a`` at ``j1``, ``W_b`` at ``j2``, ``W_c`` at ``j1 + j2``).  Exact:
    counts on the exact networks' entries (:func:`_support_counts`: nonzero
    nodes, each at the pair its inputs are supported on), which must equal the
    closed forms above and the designs' own counts, and the one-hot property
    from exact character sums.  Numeric: the blocks of the numeric networks by
    :func:`cogo.analysis.block_extraction.extract_blocks` (live nodes, SPEC 8.2, grouped by
    dominant frequency, SPEC 8.3), and real weights with one entry above 1e-9 per
    node.  Odd-order constructions are skipped for even groups.
    ``nets`` (kind -> network; exact networks for ``exact``) replaces the constructions (not z_M's for
    ``exact``); ``mem`` (z_M's factors ``(U_a, U_b)``, exact) replaces z_M's for ``exact``.

    Returns
    -------
    TheoremResult
        Row 7, the counts found and expected per construction in ``details['counts']``.

    Examples
    --------
    >>> r = node_counts(5)                                  # 3 (n - 1) = 12 for z_F6, n^2 = 25 one-hot nodes for z_M
    >>> r.name, r.passed
    ('7. node counts', True)
    """
    method = check_method(method)
    G = as_group(group)
    kinds = [c for c in CONSTRUCTIONS if G.is_odd or not c.odd_only]
    verdict: dict = {}
    counts: dict = {}
    with Timer() as t:
        for rec in kinds:
            kind = rec.name
            if rec.design is None:
                ok, q = _mem_count(G, C, method, nets, mem)
                verdict["z_M"] = bool(ok)
                counts["z_M"] = {"total": q}
                continue
            title = rec.title
            if method == "exact":
                d = resolve(rec.design)(G, exact=True)
                nt = (nets or {}).get(kind) or d.to_network()
                if not nt.exact:
                    raise ValueError("node_counts(method='exact') needs exact networks")
                per, total = _support_counts(nt)  # counted on the network itself, not the design's bookkeeping
                k0 = d.params.get("k0")
                if per != d.node_counts() or total != d.q:
                    verdict[title.split(" (")[0] + ": design and network agree"] = False
            else:
                nt = (nets or {}).get(kind) or resolve(rec.builder)(G)
                split = extract_blocks(nt.to_numeric() if nt.exact else nt)  # SPEC 8.2-8.3, the one extraction
                per = split.counts()
                total = split.live_nodes
                k0 = max(per, key=per.get) if per else None   # the hat's frequency (z_F46; the others ignore it)
            exp_total, exp_per = _expected_counts(kind, G, k0)
            verdict[title.split(" (")[0]] = bool(total == exp_total and per == exp_per)
            counts[title.split(" (")[0]] = {"total": total, "expected": exp_total,
                                           "per_frequency": sorted(set(per.values()))}
        passed = all(verdict.values())
    stmt = ("node counts: z_F6 and 7.2 have 6 per frequency (3(n-1)); z_F4/6 has 6 + 4((n-1)/2 - 1); "
            "z_M has n^2 nodes with one-hot real weights")
    return make_result("7. node counts", stmt, method, passed, 0.0, t, constructions=verdict, counts=counts)
