"""The canonical answer: one representative of a block's node order and of a factorization (SPEC 8.4-8.5).

The same block has many equal readings: its nodes in any order and any per-node gauge, each
factor started at any of its elements, each element's sign gauge free, factors of equal size in
either order.  :func:`canonical_node_order` and :func:`canonical_factorization` pick one by the
values alone (the keys of :func:`cogo.analysis.factor.kronecker._feature_keys`), so the answer is a
function of the block (docs/analysis.md, "Canonical answers").
"""
from __future__ import annotations

import numpy as np

from cogo.analysis.factor.kronecker import _TINY, Factor, Factorization, _feature_key, _feature_keys

__all__ = ["canonical_node_order", "canonical_factorization", "canonical_factorizations"]


def canonical_node_order(F: np.ndarray) -> np.ndarray:
    """The canonical order of a block's nodes: by :func:`cogo.analysis.factor.kronecker._feature_key` of their balanced features (stable).

    The features ``(a^2, a b, b^2, c)`` of the balanced nodes are invariant under the per-node gauge
    ``(s a, s b, c / s^2)`` (signs included), so the order is a function of the block up to node
    permutation; nodes equal to :data:`cogo.analysis.factor.kronecker.KEY_DECIMALS` decimals keep their relative order (they are
    interchangeable).

    Examples
    --------
    >>> import numpy as np
    >>> F = np.array([[2, 1, 1, 1], [1, 1, 1, 1], [1j, 1, 1, 1]], dtype=complex)
    >>> canonical_node_order(F).tolist()              # angle 0 before 90 degrees; modulus 1 before 2
    [1, 0, 2]
    """
    keys = _feature_keys(np.asarray(F)) if len(F) else []
    return np.array(sorted(range(len(keys)), key=lambda j: keys[j]), dtype=np.int64)


def _orient_factors(Vs: list) -> list[tuple[int, np.ndarray, list[int], tuple] | None]:
    """Canonical orientation of each factor ``V`` (3, m) of ``Vs``: ``(base, signs per element, element order, key)``.

    For every choice of the *base* element the factor is divided by it (per ``p``); every other
    element's sign gauge ``(a, b) -> (-a, -b)`` is fixed so that its ``a`` has angle in ``[0, 180)``
    degrees; the others are sorted by :func:`cogo.analysis.factor.kronecker._feature_key`; the base whose sorted key sequence is
    smallest wins (ties: the first); ``key`` is that sequence (the keys of the oriented factor's elements
    after the base).  None when an entry is 0 (no normalization exists).  The keys of every base of every
    factor with the same size and bases are read at once (:func:`cogo.analysis.factor.kronecker._feature_keys`, entry by
    entry: each factor's as read alone).
    """
    out: list = [None] * len(Vs)
    groups: dict = {}
    for i, V in enumerate(Vs):
        bases = np.flatnonzero(~(np.abs(V) < _TINY).any(axis=0))
        if len(bases):
            groups.setdefault((V.shape[1], tuple(bases.tolist())), []).append(i)
    for (m, bases), idx in groups.items():
        B, n, bases = len(bases), len(idx), np.array(bases, dtype=np.int64)
        V = Vs[idx[0]][None] if n == 1 else np.stack([Vs[i] for i in idx])   # (n, 3, m)
        N2 = V[:, None, :, :] / np.swapaxes(V[:, :, bases], 1, 2)[:, :, :, None]   # (n, B, 3, m): by each base
        ang = np.array([k[0] for k in _feature_keys(N2[:, :, 0, :].reshape(-1, 1))]).reshape(n, B, m)
        sig = np.where((ang >= 180.0) & (np.arange(m)[None, :] != bases[:, None]), -1.0, 1.0)
        N2[:, :, :2, :] *= sig[:, :, None, :]
        col_keys = _feature_keys(np.swapaxes(N2, 2, 3).reshape(-1, 3))
        for k, i in enumerate(idx):
            best = None
            for j, base in enumerate(bases.tolist()):
                ck = col_keys[(k * B + j) * m:(k * B + j + 1) * m]
                others = sorted((e for e in range(m) if e != base), key=lambda e: ck[e])
                key = tuple(ck[e] for e in others)
                if best is None or key < best[0]:
                    best = (key, base, sig[k, j], others)
            key, base, sig_b, others = best
            out[i] = (base, sig_b, [base] + others, key)
    return out


def canonical_factorization(fz: Factorization) -> Factorization:
    """The canonical representative of a factorization (docs/analysis.md, "Canonical answers").

    The same block has many equal factorizations: every factor may start at any of its elements
    (the factors are normalized to their first element), each element's sign gauge ``(-a, -b, c)``
    is free, and factors of equal size may be listed in either order.  The representative: each
    factor oriented by :func:`_orient_factors`, ``scale_a`` at an angle in ``[0, 180)`` degrees (the
    sign gauge of all nodes at once), then the factors sorted by size and, for equal sizes, by
    their key sequence.  The reconstruction (:meth:`cogo.analysis.factor.kronecker.Factorization.reconstruct`), the
    error and the node partition are unchanged; the grid, the factors, ``scale`` and ``signs``
    move together.

    Examples
    --------
    >>> import numpy as np
    >>> from cogo.analysis.factor.factorization import factor_block
    >>> from cogo.catalogue.partial import z_nu_i, z_syn
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())
    >>> f = factor_block(x.a, x.b, x.c).best             # already canonical: a second pass changes nothing
    >>> g = canonical_factorization(f)
    >>> g.grid.tolist() == f.grid.tolist(), bool(np.allclose(g.reconstruct(), f.reconstruct()))
    (True, True)
    """
    return canonical_factorizations([fz])[0]


def canonical_factorizations(fzs: list) -> list[Factorization]:
    """:func:`canonical_factorization` of every factorization of ``fzs``, their factors oriented at once
    (:func:`_orient_factors`): the same answers, one by one."""
    Vs = [[np.asarray(f.vectors, dtype=np.complex128) for f in fz.factors] for fz in fzs]
    orients = iter(_orient_factors([V for vs in Vs for V in vs]))
    return [_canonical(fz, vs, [next(orients) for _ in vs]) for fz, vs in zip(fzs, Vs)]


def _canonical(fz: Factorization, Vs: list, orients: list) -> Factorization:
    """:func:`canonical_factorization` of ``fz`` given its factors ``Vs`` (3, m_i) and their orientations
    (:func:`_orient_factors`)."""
    grid = fz.grid.copy()
    signs = np.array(fz.signs, dtype=float).copy()
    scale = np.array(fz.scale, dtype=np.complex128).copy()
    vecs = []
    keys = []
    for i, (V, o) in enumerate(zip(Vs, orients)):
        if o is None:
            vecs.append(V)
            keys.append(())
            continue
        base, sig, order, key = o
        for e in range(V.shape[1]):
            if sig[e] < 0:
                signs[np.take(grid, e, axis=i).reshape(-1)] *= -1.0
        scale = scale * V[:, base]
        N = V / V[:, base:base + 1]
        N[:2] *= sig
        N = N[:, order]
        grid = np.take(grid, order, axis=i)
        vecs.append(N)
        keys.append(key)  # the keys of N[:, 1:] (its columns as _orient_factors read them, the same values)
    if abs(scale[0]) > 0 and _feature_key(scale[0])[0] >= 180.0:
        # the global sign gauge (-a, -b, c) of every node at once: scale_a at an angle in [0, 180) degrees
        scale[:2] *= -1.0
        signs = -signs
    ax = sorted(range(len(vecs)), key=lambda i: (vecs[i].shape[1], keys[i]))
    grid = np.transpose(grid, ax).copy()
    vecs = [vecs[i] for i in ax]
    return Factorization(tuple(grid.shape), grid, [Factor(*v) for v in vecs], scale, fz.error, signs,
                         fz.balance, fz.exact_grid)
