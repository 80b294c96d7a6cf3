"""The speed kernel of the network verdict: the loss and ``R_c`` of a large real network without its ``O(n_G^3 q)``
cross tensor (SPEC 5).

Two routes, each giving the values as defined, to rounding (tests/analysis/test_pair_verdict.py compares them with
the direct definitions):

- :func:`pair_loss_and_cross`: when every node is nearly single-frequency, from each node's frequency pair and its
  leakage (:func:`pair_split`, :func:`pair_sums`): ``O(n_G^3 J + q_live^2 n_G)``, ``J`` the most nodes on one
  frequency;
- :func:`loss_and_cross_residual`: otherwise, from one real-space product and an FFT
  (``O(n_G^3 q_live + n_G^3 log n_G)``).

:func:`cogo.analysis.verdict.network_verdict.network_verdict` picks the route; this module holds no verdict.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cogo.io.arrays import DTYPE_EPS

__all__ = ["PairSplit", "PairSums", "pair_split", "pair_terms", "pair_sums", "pair_loss_and_cross",
           "loss_and_cross_residual", "LEAK_FRACTION", "CROSS_CANDIDATES", "FUSED_MAX_ENTRIES"]


#: :func:`pair_split` gives up (None) when the leakage bound ``delta`` exceeds this fraction of ``M``.
LEAK_FRACTION = 1e-3
#: Most candidate entries :func:`pair_loss_and_cross` sums directly for ``R_c`` before it gives up (None).
CROSS_CANDIDATES = 4096


@dataclass
class PairSplit:
    """Every node split at its frequency pair (:func:`pair_split`): ``z = s + e``."""

    z: np.ndarray        # (3, n, q): the Fourier coordinates (the array given, not a copy)
    e: np.ndarray        # (3, n, q): the leakage, z with each node's entries at its pair set to 0
    f: np.ndarray        # (q,)
    g: np.ndarray        # (q,)
    idx: np.ndarray      # (n, J): the nodes whose pair holds frequency p, padded with q
    ks: np.ndarray       # the k computed: one of each pair {k, -k} (real networks) or all
    delta: float         # the largest |sum_j e_a e_b e_c| any entry can have
    allowance: float     # the rounding allowance of an entry of pair_terms

    @property
    def s(self) -> np.ndarray:
        """(3, n, q): each node's entries at its pair {f_j, g_j = -f_j} (``z - e``, made when asked for)."""
        return self.z - self.e

    def at_pairs(self, p: int, rows: np.ndarray, ix: np.ndarray) -> np.ndarray:
        """``s[p][rows, ix]`` for node indices ``ix`` on the pairs of ``rows`` (broadcast), 0 at the padding ``q``."""
        q = self.z.shape[2]
        return np.where(ix < q, self.z[p][rows, np.minimum(ix, q - 1)], 0.0)


def pair_split(z: np.ndarray, G: Any, real: bool = True) -> PairSplit | None:
    """Split node ``j`` as ``z_j = s_j + e_j``: ``s_j`` its entries at the pair ``{f_j, -f_j}`` of most mass.

    ``delta = sum_j max|e_a,j| max|e_b,j| max|e_c,j|`` bounds every entry of ``sum_j e_a (x) e_b (x) e_c``; the
    rounding allowance of an entry of :func:`pair_terms` is ``2 (J + 8) eps M`` (``J`` the most nodes on one
    frequency, ``M = sum_j max|z_a,j| max|z_b,j| max|z_c,j|``, ``eps = 2^-52``).  ``real``: ``z`` is Hermitian
    (real weights), so one ``k`` of each pair ``{k, -k}`` is computed.  None when there is no node or
    ``delta >`` :data:`LEAK_FRACTION` ``M`` (the nodes are not nearly single-frequency).
    """
    n, q = z.shape[1], z.shape[2]
    if q == 0:
        return None
    neg = G.neg
    absz = np.abs(z)
    M = float(np.prod(absz.max(axis=1), axis=0).sum())
    mass = np.square(absz, out=absz).sum(axis=0)                         # (n, q)
    f = (mass + mass[neg]).argmax(axis=0)
    pair = np.zeros((n, q), dtype=bool)
    pair[f, np.arange(q)] = pair[neg[f], np.arange(q)] = True
    e = np.where(pair, 0.0, z)
    delta = float(np.prod(np.abs(e, out=absz).max(axis=1), axis=0).sum())
    if delta > LEAK_FRACTION * M:
        return None
    p, j = np.nonzero(pair)                                              # (frequency, node), by frequency
    counts = np.bincount(p, minlength=n)
    J = int(counts.max())
    idx = np.full((n, J), q)
    idx[p, np.arange(len(p)) - np.repeat(np.cumsum(counts) - counts, counts)] = j
    ks = np.flatnonzero(np.arange(n) <= neg) if real else np.arange(n)
    return PairSplit(z, e, f, neg[f], idx, ks, delta, 2.0 * (J + 8) * DTYPE_EPS["float64"] * M)


def pair_terms(ps: PairSplit) -> np.ndarray:
    """``X[k1, k2, i] = r[k1, k2, ks[i]] - sum_j e_a[k1, j] e_b[k2, j] e_c[ks[i], j]`` in ``O(n^2 q)``: (n, n, len(ks)).

    ``X = sum_j (s_a (x) z_b (x) z_c + e_a (x) s_b (x) z_c + e_a (x) e_b (x) s_c)_j``: each term has one index on a
    node's pair, so it is one batched product over the nodes on each frequency, not the ``O(n^3 q)`` of every ``r``.
    The whole tensor; :func:`pair_loss_and_cross` reads it a few rows ``k1`` at a time (:func:`_pair_term_rows`).
    """
    return np.concatenate([x.copy() for _, x in _pair_term_rows(ps)], axis=0)


def _pair_term_rows(ps: PairSplit, step: int | None = None):
    """:func:`pair_terms` ``step`` rows ``k1`` at a time (default: about 1 MiB each), as ``(first row, X rows)``.

    The rows are written into one buffer, reused (valid until the next is yielded): the three terms are added where
    they stay in cache, and no array the size of ``X`` is made (its fresh pages cost as much as the sums).
    """
    ks = ps.ks
    n, h = len(ps.z[0]), len(ks)
    q = ps.z.shape[2]
    # node rows gathered from transposed views; the padding q reads node q - 1 with a coefficient 0
    ix1 = np.minimum(ps.idx, q - 1)                                      # the nodes on each k1 (k2)
    ix3 = ix1[ks]                                                         # on each k
    zb, zc, ea, eb = ps.z[1].T, ps.z[2][ks].T, ps.e[0].T, ps.e[1].T       # (q, n), (q, h), (q, n), (q, n)
    c2 = ps.at_pairs(1, np.arange(n)[:, None], ps.idx)[:, None, :]        # (n, 1, J): s_b[k2, j]
    c3 = ps.at_pairs(2, ks[:, None], ps.idx[ks])[:, None, :]              # (h, 1, J): s_c[k, j]
    R2, R3 = zc[ix1], eb[ix3]                                             # (n, J, h), (h, J, n): every row uses them
    step = step or max(1, (1 << 16) // max(n * h, 1))
    X, T2, T3 = (np.empty(shape, dtype=np.complex128) for shape in ((step, n, h), (n, step, h), (h, step, n)))
    for s in range(0, n, step):
        c = min(n, s + step) - s
        ix = ix1[s:s + c]
        L1 = zb[ix] * ps.at_pairs(0, np.arange(s, s + c)[:, None], ps.idx[s:s + c])[..., None]  # (c, J, n_k2)
        x = np.matmul(L1.transpose(0, 2, 1), zc[ix], out=X[:c])                              # s_a on k1
        ea_rows = ea[:, s:s + c]                                                               # (q, c): k1 here
        x += np.matmul(ea_rows[ix1].transpose(0, 2, 1) * c2, R2, out=T2[:, :c]).transpose(1, 0, 2)  # s_b on k2
        x += np.matmul(ea_rows[ix3].transpose(0, 2, 1) * c3, R3, out=T3[:, :c]).transpose(1, 2, 0)  # s_c on k
        yield s, x


@dataclass
class PairSums:
    """What the loss and ``R_c`` need of :func:`pair_terms` ``X`` (:func:`pair_sums`), ``|X|`` masked off ``k = 0``
    and ``k1 = k2 = k``."""

    bulk: np.ndarray      # (h,): sum over k1, k2 != 0 of |X|^2 (masked), per computed k
    plane1: np.ndarray    # (n, h): X[:, 0, :]
    plane2: np.ndarray    # (n - 1, h): X[0, 1:, :]
    diag: np.ndarray      # (h,): X[ks[i], ks[i], i]
    top: float            # the largest masked |X|
    candidates: np.ndarray | None   # flat indices into X of the entries within 2 (delta + allowance) of top


def pair_sums(ps: PairSplit, step: int | None = None) -> PairSums:
    """:class:`PairSums` of :func:`pair_terms`, read a few rows at a time (:func:`_pair_term_rows`).

    The ``R_c`` candidates are the entries with ``|X| >= top - 2 (delta + allowance)``; each block of rows keeps those
    within that margin of its own largest (a superset), filtered by ``top`` at the end.  ``candidates`` is None when
    they number more than :data:`CROSS_CANDIDATES` (or may: a block of rows with more of them whose own largest is
    within the margin of ``top``).
    """
    ks = ps.ks
    n, h = len(ps.z[0]), len(ks)
    margin = 2.0 * (ps.delta + ps.allowance)
    bulk, plane1, diag = np.zeros(h), np.empty((n, h), dtype=np.complex128), np.empty(h, dtype=np.complex128)
    plane2 = np.empty((max(n - 1, 0), h), dtype=np.complex128)
    top, crowded, kept, A = 0.0, -np.inf, [], None
    zero = np.flatnonzero(ks == 0)
    for s, x in _pair_term_rows(ps, step):
        c = len(x)
        plane1[s:s + c] = x[:, 0]
        if s == 0:
            plane2[:] = x[0, 1:]
        i = np.flatnonzero((ks >= s) & (ks < s + c))                      # the diagonal entries in these rows
        diag[i] = x[ks[i] - s, ks[i], i]
        A = np.abs(x, out=None if A is None or len(A) != c else A)
        A[:, :, zero] = 0.0
        A[ks[i] - s, ks[i], i] = 0.0
        lo = 1 if s == 0 else 0                                           # k1 = 0 is a plane, not the bulk
        bulk += np.einsum("abk,abk->k", A[lo:, 1:], A[lo:, 1:])
        m = float(A.max(initial=0.0))
        top = max(top, m)
        at = np.flatnonzero(A >= m - margin)
        if len(at) > CROSS_CANDIDATES:
            crowded = max(crowded, m)
        else:
            kept.append((at + s * n * h, A.reshape(-1)[at]))
    cand = None
    if crowded < top - margin:
        cand = np.concatenate([at[v >= top - margin] for at, v in kept]) if kept else np.zeros(0, dtype=np.int64)
        if len(cand) > CROSS_CANDIDATES:
            cand = None
    return PairSums(bulk, plane1, plane2, diag, top, cand)


def _cross_from_terms(ps: PairSplit, sums: PairSums) -> float | None:
    """The largest ``|r|`` off ``k = 0`` and ``k1 = k2 = k``: no entry but the candidates of :func:`pair_sums` can
    reach it (every entry of ``r - X`` is within ``delta``, of ``X`` within the allowance); they are summed directly.
    None when there are too many."""
    if sums.candidates is None:
        return None
    ks, n = ps.ks, len(ps.z[0])
    k1, k2, i = np.unravel_index(sums.candidates, (n, n, len(ks)))
    r = (ps.z[0][k1] * ps.z[1][k2] * ps.z[2][ks[i]]).sum(axis=1)
    r[(ks[i] == 0) | ((k1 == k2) & (k2 == ks[i]))] = 0.0
    return float(np.abs(r).max(initial=0.0))


def _real_space(ps: PairSplit, p: int, W: np.ndarray, G: Any) -> tuple[np.ndarray, np.ndarray]:
    """Channel ``p``'s pair parts and leakage in real space, (n, q) each: ``(s, W - s)`` (the output channel centred).

    Real-space vectors ``u, v`` of Fourier coordinates ``u_k, v_k`` have ``sum_k conj(u_k) v_k = (lam^2 / n) u . v``
    (Parseval, SPEC 2's scale); centring the output channel over ``m`` drops its ``k = 0`` term.
    """
    q = len(ps.f)
    F = G.characters if p < 2 else np.conj(G.characters)
    cols = np.arange(q)
    s = F[:, ps.f] * ps.z[p][ps.f, cols]                                 # s is z at the pair
    two = ps.g != ps.f
    s[:, two] += F[:, ps.g[two]] * ps.z[p][ps.g[two], cols[two]]
    s = s.real / G.scale
    e = W - s
    if p == 2:
        s, e = s - s.mean(axis=0), e - e.mean(axis=0)
    return s, e


def _square_terms(ps: PairSplit, W: tuple, G: Any) -> tuple[np.ndarray, np.ndarray]:
    """``A[k1, i] = sum_j sq_a[k1, j] z_c[ks[i], j]`` (``sq_a`` the Fourier coordinates of ``W_a^2``), ``B`` alike.

    ``lam A`` is :func:`cogo.algebra.potentials.self_potential_sums` ``C_a`` at the computed ``k`` (for real weights
    ``F^T z_a = lam W_a^T``), so ``A``, ``B`` give ``R_n`` and ``R_*`` as well as the loss's square terms.
    """
    n, q, lam = G.order, len(ps.f), G.scale
    zc = ps.z[2][ps.ks, :q]                                              # (h, q)
    F = np.conj(G.characters) * (lam / n)
    return F @ ((W[0] * W[0]).T @ zc.T), F @ ((W[1] * W[1]).T @ zc.T)   # (n, h) each


def _self_sums(ps: PairSplit, A: np.ndarray, B: np.ndarray, G: Any) -> tuple[float, float]:
    """The largest ``|R_n|`` and ``|R_*|`` from :func:`_square_terms` (``k != 0``; ``R_*``: ``m != 0``)."""
    live = ps.ks != 0
    rn = np.abs(A[0, live] + B[0, live]) * G.scale
    rs = np.abs(np.stack([A[1:, live], B[1:, live]])) * G.scale
    return float(rn.max(initial=0.0)), float(rs.max(initial=0.0))


def _pair_loss(ps: PairSplit, sums: PairSums, W: tuple, G: Any, A: np.ndarray, B: np.ndarray) -> float:
    """The loss of :func:`cogo.algebra.loss.real_loss` from the Fourier potentials (Parseval), exactly.

    ``W``: the real weights ``(W_a, W_b, W_c)``; ``sums``: :func:`pair_sums`; ``A``, ``B``:
    :func:`_square_terms`.  With ``lam^3 = 2 n``, the residual's transform at ``k != 0`` is
    ``rho[k1, k2, k] = 2 r[k1, k2, k] + lam (d_{k2 = 0} A[k1, k] + d_{k1 = 0} B[k2, k]) - 2 d_{k1 = k2 = k}``
    (``A = sum_j sq_a[:, j] z_c[:, j]^T``, ``sq_a`` the coordinates of ``W_a^2``; ``B`` alike) and the loss is
    ``sum |rho|^2 / (4 n)``.  With ``r = X + E`` (:func:`pair_terms`; ``E = sum_j e_a (x) e_b (x) e_c``):
    ``|rho_X|^2`` summed densely (one ``k`` of each pair ``{k, -k}``, counted twice), and the parts of ``E``,
    ``2 Re <rho_X, 2 E> + |2 E|^2``, from (q, q) Gram matrices of the factors (``<u (x) v (x) x, a (x) b (x) c> =
    (u^H a)(v^H b)(x^H c)``, real for real networks: real-space products, :func:`_real_space`): ``<E, E>`` from the
    leakage's, and ``<X, E> = <r, E> - <E, E>`` from those of the whole nodes with the leakage (``r`` is the sum of
    the nodes' products: every part of ``X`` is, and ``<X, E>`` is of the size of ``E``, so nothing cancels).
    """
    n, q, lam, ks = G.order, len(ps.f), G.scale, ps.ks
    w = np.where(ks == 0, 0.0, np.where(G.neg[ks] == ks, 1.0, 2.0))
    # |rho_X|^2: 4 |X|^2 off the planes k1 = 0, k2 = 0 and the diagonal (the bulk), then those entries
    plane1 = 2.0 * sums.plane1 + lam * A                                 # k2 = 0
    plane1[0] += lam * B[0]
    plane2 = 2.0 * sums.plane2 + lam * B[1:]                             # k1 = 0, k2 != 0
    diag = 2.0 * sums.diag - 2.0                                         # k1 = k2 = k (weight 0 at k = 0)
    edges = (np.square(np.abs(plane1)).sum(axis=0) + np.square(np.abs(plane2)).sum(axis=0)
             + np.square(np.abs(diag)))
    dense = float((4.0 * sums.bulk + edges) @ w)
    (sa, ea), (sb, eb), (sc, ec) = (_real_space(ps, p, Wp, G) for p, Wp in enumerate((W[0].T, W[1].T, W[2])))
    # <e_i, e_j> and <z_i, e_j> per channel, up to the factor c = lam^2 / n of Parseval (k != 0 for c: centred):
    # <E, E> = c^3 sum Ha Hb Hc and <r, E> = <X, E> + <E, E> = c^3 sum Za Zb Zc (z = s + e), no product made
    c = lam * lam / n
    P, Q = np.empty((2, q, q))                                           # two (q, q) buffers for the six matrices
    ee = c ** 3 * _triple_sum(P, Q, [(e, e) for e in (ea, eb, ec)])                          # <E, E>
    xe = c ** 3 * _triple_sum(P, Q, [(s_ + e, e) for s_, e in ((sa, ea), (sb, eb), (sc, ec))]) - ee  # <X, E>
    e = ps.e[:, :, :q]
    ekc = e[2][ks]
    pe = lam * ((e[1][0] * (e[0] * ((np.conj(A) * w) @ ekc)).sum(axis=0)).sum()
                + (e[0][0] * (e[1] * ((np.conj(B) * w) @ ekc)).sum(axis=0)).sum())   # <planes, E>
    te = -2.0 * (w @ (e[0][ks] * e[1][ks] * ekc).sum(axis=1))           # <diagonal, E>
    return (dense + 4.0 * (2.0 * xe + float((pe + te).real)) + 4.0 * ee) / (4.0 * n)


def _triple_sum(P: np.ndarray, Q: np.ndarray, pairs: list) -> float:
    """``sum_ij (u_1^T v_1)_ij (u_2^T v_2)_ij (u_3^T v_3)_ij`` for ``pairs = [(u_p, v_p)]``, in the buffers ``P``, ``Q``."""
    (u1, v1), (u2, v2), (u3, v3) = pairs
    np.matmul(u1.T, v1, out=P)
    P *= np.matmul(u2.T, v2, out=Q)
    return float(np.vdot(P, np.matmul(u3.T, v3, out=Q)))


def pair_loss_and_cross(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, z: np.ndarray, G: Any,
                        cheaper_only: bool = True) -> tuple[float, dict] | None:
    """The loss and the largest ``|R_c|``, ``|R_n|``, ``|R_*|`` of a real, nearly single-frequency network; else None.

    ``Wa``, ``Wb`` (q, n), ``Wc`` (n, q): real weights; ``z`` (3, n, q) their network's Fourier coordinates.  With
    :func:`pair_split`, ``r = X + E`` (:func:`pair_terms`, ``O(n^2 q)``), every entry of ``E`` at most ``delta``, every
    entry of ``X`` within the rounding allowance: the largest ``|r|`` (over ``k != 0``, ``(k1, k2) != (k, k)``) lies
    among the entries with ``|X| >= max|X| - 2 (delta + allowance)``, where ``r`` is summed over every node directly
    (the ``R_c`` of :func:`largest_residuals`, to rounding); the loss is exact too (:func:`_pair_loss`, Gram
    matrices for ``E``); ``R_n`` and ``R_*`` from the loss's square terms (:func:`_square_terms`).  Cost: the
    batched products about ``6 n^3 J`` real multiply-adds (``J`` the most nodes on one frequency), the Gram
    matrices ``6 q^2 n``, against the ``n^3 q`` of the real-space product of :func:`loss_and_cross_residual`;
    ``cheaper_only=False`` computes whatever it costs.

    Returns
    -------
    tuple or None
        ``(loss, {"R_c": ..., "R_n": ..., "R_*": ...})``; None when :func:`pair_split` gives up, when the cost
        above exceeds the real-space product's (``cheaper_only``), or when more than :data:`CROSS_CANDIDATES`
        entries are candidates (``R_c`` at the level of the leakage or of the rounding, as for an exact optimizer).
    """
    n, q = z.shape[1], z.shape[2]
    ps = pair_split(z, G)
    if ps is None or (cheaper_only and 6 * n ** 3 * ps.idx.shape[1] + 6 * q * q * n > n ** 3 * q):
        return None
    sums = pair_sums(ps)
    rc = _cross_from_terms(ps, sums)
    if rc is None:
        return None
    A, B = _square_terms(ps, (Wa, Wb, Wc), G)
    rn, rs = _self_sums(ps, A, B, G)
    return _pair_loss(ps, sums, (Wa, Wb, Wc), G, A, B), {"R_c": rc, "R_n": rn, "R_*": rs}


#: Most entries ``n_G^3`` of the real-space cross tensor :func:`loss_and_cross_residual` holds (128 MiB).
FUSED_MAX_ENTRIES = 1 << 24


def loss_and_cross_residual(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, G: Any) -> tuple[float, float] | None:
    """The MSE loss on all pairs and the largest ``|R_c|`` (SPEC 5), from one real-space product; None when not applicable.

    The outputs ``o[a, b, :] = W_c (W_a e_a + W_b e_b)^2`` give the loss as
    :func:`cogo.algebra.loss.real_loss` does (squared residuals summed directly), and their cross part
    ``T[a, b, m] = (o - W_c (W_a e_a)^2 - W_c (W_b e_b)^2) / 2 = sum_j W_a[j, a] W_b[j, b] W_c[m, j]`` is, up to the
    scale ``(lam / n_G)^3``, the inverse Fourier transform of ``r[k1, k2, k] = sum_j a_{k1 j} b_{k2 j} c_{k j}``:
    two real matrix products over ``m`` and FFTs over ``a`` and ``b`` give every ``r`` (``O(n^4 + n^3 log n)``), not
    the ``O(n^3 q)`` complex products of :func:`largest_residuals`.  ``R_c`` is the largest ``|r|`` over ``k != 0`` and
    ``(k1, k2) != (k, k)``.  Only for real weights of ``Z_d1 x ... x Z_dn`` with ``n^3 <=``
    :data:`FUSED_MAX_ENTRIES` (None otherwise); the cross part carries the rounding of ``o`` (``~1e-16 |o|`` per
    entry: ``R_c`` about 2e-16 for z_F6 at d = 127).
    """
    q, n = Wa.shape
    axes = tuple(int(d) for d in G.orders)  # the elements are listed row-major in them (FiniteAbelianGroup.elements)
    if n ** 3 > FUSED_MAX_ENTRIES or q == 0:
        return None
    A2 = (Wa * Wa).T @ Wc.T                            # (n, n): W_c (W_a e_a)^2 per a
    B2 = (Wb * Wb).T @ Wc.T
    WaT, WbT = Wa.T, Wb.T
    C = G.add_table
    T = np.empty((n, n, n))
    step = max(1, (1 << 23) // max(n * q, 1))          # rows a per chunk: (step n, q) activations
    total = 0.0
    for s in range(0, n, step):
        rows = np.arange(s, min(n, s + step))
        h = (WaT[rows][:, None, :] + WbT[None, :, :]).reshape(-1, q)
        o = (np.square(h, out=h) @ Wc.T).reshape(len(rows), n, n)   # in place: h is (rows n, q), the largest array
        r = o - o.mean(axis=2, keepdims=True) + 1.0 / n
        r[np.arange(len(rows))[:, None], np.arange(n)[None, :], C[rows]] -= 1.0
        total += float(np.einsum("abm,abm->", r, r))
        t = T[s:s + len(rows)]                                          # (o - A2 - B2) / 2, in place
        np.subtract(o, A2[rows][:, None, :], out=t)
        t -= B2[None, :, :]
        t /= 2
    d = len(axes)
    # r[k1, k2, k] = sum_{a,b,m} conj(chi_k1(a)) conj(chi_k2(b)) chi_k(m) T.  The sum over m is two real matrix
    # products (T is real) for k over one of each pair {k, -k} (r[-k1, -k2, -k] = conj(r[k1, k2, k]) gives the
    # rest); the sums over a and b are FFTs over the group's cyclic factors.
    half = np.flatnonzero(np.arange(n) <= G.neg)                      # k <= -k: one of each pair
    chi = G.characters[half].T                                        # (n, h): chi_k(m)
    T2 = T.reshape(n * n, n)
    W = np.empty((n * n, len(half)), dtype=np.complex128)
    W.real = T2 @ np.ascontiguousarray(chi.real)
    W.imag = T2 @ np.ascontiguousarray(chi.imag)
    R = np.fft.fftn(W.reshape(axes * 2 + (len(half),)), axes=range(2 * d))
    R = np.abs(R.reshape(n, n, len(half))) * (G.scale / n) ** 3
    R[:, :, half == 0] = 0.0                                          # k = 0
    R[half, half, np.arange(len(half))] = 0.0                         # k1 = k2 = k
    return total / (n * n), float(R.max(initial=0.0))
