"""Kronecker factorization of a per-frequency block: the entry points (SPEC 8.4-8.5).

A block of order ``q`` is three vectors ``(a, b, c)`` in ``C^q`` (SPEC 6); factoring it means
finding a node grid on which it is a Kronecker product of partial solutions (SPEC 3), and the
factors.  :func:`factor_block` does it for every shape (:func:`factor_shapes`),
:func:`factor_block_shape` for one.  The work is split by concept:

- :mod:`cogo.analysis.factor.kronecker`: what a grid means -- the gauge (:func:`cogo.analysis.factor.kronecker.balance_gauge`), the
  result types, the fit of factors to a grid (:func:`fit_grid`) and the canonical answer;
- :mod:`cogo.analysis.factor.tiling`: where exact grids come from (the tiling search);
- :mod:`cogo.analysis.factor.passes`: the named passes over a pool of candidate grids that make the
  answer (tiling, translates, shapes, split, swap, merge), each with its contract and its cost,
  and the bound on the whole search.

This module reads the block canonically (:func:`_snap`: the sign gauge fixed, entries read to
:data:`SNAP_DECIMALS` decimals, nodes in :func:`cogo.analysis.factor.canonical.canonical_node_order`), runs the passes, maps every
grid back to the caller's nodes and puts it in canonical form, so the answer is a function of the
block up to node order and the per-node gauge.  Several different grids can reconstruct a block
exactly (``z_syn * z_nu(nu) = z_syn * z_nu(w nu)`` up to node order, because z_syn is a group); the
classifier names each alternative against the catalogue (:mod:`cogo.analysis.classify`).  How a
block is factored, and the blocks that shaped each pass, are in docs/analysis.md.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] C. F. Van Loan, N. Pitsianis, "Approximation with Kronecker products", Linear Algebra for Large Scale and Real-Time Applications, 1993.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Sequence

import numpy as np

from cogo.analysis.factor.canonical import canonical_factorizations
from cogo.analysis.factor.passes import CLOSED_FORM_ORDERS, closed_form_fits, run_passes
from cogo.analysis.factor.kronecker import (
    FACTOR_TOL,
    BlockFactorization,
    Factor,
    Factorization,
    _feature_keys,
    _vec,
    balance_gauge,
    factor_shapes,
    fit_grid,
    node_features,
)
from cogo.analysis.factor.tiling import MATCH_TOL, SEARCH_BUDGET

__all__ = [
    "MAX_ORDER",
    "MAX_ALTERNATIVES",
    "SNAP_DECIMALS",
    "REFIT_ERROR",
    "factor_block",
    "factor_blocks",
    "factor_block_shape",
]

#: Most distinct exact grids returned per shape.
MAX_ALTERNATIVES = 6
#: Largest block order that is factored (larger blocks are reported unfactored).
MAX_ORDER = 64


#: Decimals (relative to the block's rounded mean node size) to which the balanced nodes are read before the search.
SNAP_DECIMALS = 10

#: Grids whose error on the canonically read nodes is at most this are refitted to the nodes as given.
REFIT_ERROR = 1e-9


def _prepare(a: Any, b: Any, c: Any):
    a, b, c = _vec(a, "a"), _vec(b, "b"), _vec(c, "c")
    if not (len(a) == len(b) == len(c)):
        raise ValueError(f"block vectors must have equal lengths; got {len(a)}, {len(b)}, {len(c)}")
    ab, bb, cb, t = balance_gauge(a, b, c)
    prod = np.abs(ab * bb * cb)
    s = float(np.cbrt(prod.mean())) if len(a) and prod.mean() > 0 else 1.0
    x = np.stack([ab, bb, cb])
    F = node_features(ab / s, bb / s, cb / s)
    return x, F, t


def factor_block_shape(a: Any, b: Any, c: Any, shape: Sequence[int], match_tol: float = MATCH_TOL,
                       tol: float = FACTOR_TOL, max_alternatives: int = MAX_ALTERNATIVES,
                       _prepared=None) -> list[Factorization]:
    """Factorizations of one block over one grid ``shape`` (SPEC 8.5), best first.

    Returns the exact grids of that shape (error <= ``tol``; found by the
    search of :func:`factor_block` directly or merged from a finer exact grid),
    else the single best grid found by local search (error > ``tol``
    typically).

    Examples
    --------
    >>> from cogo.catalogue.partial import z_nu_i, z_syn
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())
    >>> fs = factor_block_shape(x.a, x.b, x.c, (2, 3))
    >>> fs[0].shape, round(fs[0].error, 9)
    ((2, 3), 0.0)
    """
    shape = tuple(int(m) for m in shape)
    prepared = _prepare(a, b, c) if _prepared is None else _prepared
    q = prepared[1].shape[0]
    if int(np.prod(shape)) != q or any(m < 2 for m in shape) or len(shape) < 2:
        raise ValueError(f"shape {shape} is not a factorization of the block order {q} into factors >= 2")
    shape = tuple(sorted(shape))
    bf = _factor(prepared, [shape], tol, match_tol, max_alternatives, SEARCH_BUDGET)
    return list(bf.by_shape.get(shape, []))


def factor_block(a: Any, b: Any, c: Any, shapes: Iterable[Sequence[int]] | None = None,
                 tol: float = FACTOR_TOL, match_tol: float = MATCH_TOL,
                 budget: int = SEARCH_BUDGET) -> BlockFactorization:
    """Factor a block ``(a, b, c)`` over every shape of :func:`factor_shapes` (or the given ``shapes``).

    Returns a :class:`BlockFactorization`; ``.best`` is the finest
    factorization with relative error at most ``tol`` (else the smallest
    error found) and ``.factorable`` says whether one exists.  Blocks of
    prime order (and order 1) have no shape; blocks larger than
    :data:`MAX_ORDER` are not factored, and a search that used up ``budget``
    candidate sets without an exact grid says so (``.skipped`` says why in
    both cases; the bound is in :mod:`cogo.analysis.factor.passes`).

    Returns
    -------
    BlockFactorization
        Per shape the grids found, best first; ``.best``, ``.factorable``, ``.skipped``.

    Examples
    --------
    >>> from cogo.catalogue.partial import z_nu_i, z_syn, z_xi
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())        # order 6 = 2 x 3 (SPEC 8.5)
    >>> bf = factor_block(x.a, x.b, x.c)
    >>> bf.factorable, bf.best.shape, round(bf.best.error, 9)
    (True, (2, 3), 0.0)
    >>> y = 4 ** (-1 / 3) * (z_nu_i() * z_xi(1, 1))     # order 4 = 2 x 2
    >>> factor_block(y.a, y.b, y.c).best.shape
    (2, 2)
    """

    return factor_blocks([(a, b, c)], None if shapes is None else list(shapes), tol, match_tol, budget)[0]


def factor_blocks(blocks: Sequence[tuple], shapes: Iterable[Sequence[int]] | None = None, tol: float = FACTOR_TOL,
                  match_tol: float = MATCH_TOL, budget: int = SEARCH_BUDGET) -> list[BlockFactorization]:
    """:func:`factor_block` of every ``(a, b, c)`` in ``blocks``: the same answers, block by block.

    The closed-form grids of every block of order 4 or 6 (:func:`cogo.analysis.factor.passes.closed_form_fits`)
    are read in one call per order before the passes run on each block, and the canonical forms of every
    block's grids in one call after (:func:`cogo.analysis.factor.canonical.canonical_factorizations`; a network at
    d = 127 has 63 blocks of order 6).
    """
    prepared = [_prepare(a, b, c) for a, b, c in blocks]
    per = []
    for p in prepared:
        q = p[1].shape[0]
        per.append(factor_shapes(q) if shapes is None else [tuple(sorted(int(m) for m in s)) for s in shapes])
    reads = [_read(p) if p[1].shape[0] in CLOSED_FORM_ORDERS and (2, p[1].shape[0] // 2) in sh else None
             for p, sh in zip(prepared, per)]
    at = [i for i, r in enumerate(reads) if r is not None]
    closed = dict(zip(at, closed_form_fits([(reads[i][0][:, reads[i][4]], reads[i][1][reads[i][4]], tol,
                                             MAX_ALTERNATIVES) for i in at])))
    out = []
    for i, (p, sh) in enumerate(zip(prepared, per)):
        q = p[1].shape[0]
        if q > MAX_ORDER:
            res = BlockFactorization(q=q, tol=float(tol))
            res.skipped = f"block order {q} exceeds {MAX_ORDER}"
            out.append((res, None))
            continue
        out.append(_passes(p, sh, tol, match_tol, MAX_ALTERNATIVES, budget, reads[i], closed.get(i)))
    # every block's grids put in canonical form at once (cogo.analysis.factor.canonical.canonical_factorizations)
    canon = iter(canonical_factorizations([fz for res, nkeys in out if nkeys is not None
                                           for fz in _alternatives(res)]))
    return [res if nkeys is None else _canonical_alternatives(res, nkeys, canon) for res, nkeys in out]


def _snap(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple]]:
    """The balanced nodes ``x`` (3, q) read canonically: ``(x', F', flip, keys)``.

    Every node's sign gauge ``(-a, -b, c)`` is fixed so that ``a`` has angle in ``[0, 180)`` degrees
    (read by :func:`cogo.analysis.factor.kronecker._feature_key`; ``flip`` holds the signs applied), and every entry is rounded to
    :data:`SNAP_DECIMALS` decimals relative to the block's mean node size (itself rounded to 10
    significant digits).  Two copies of one block that differ by node order, the per-node gauge and
    float noise (a real checkpoint's Fourier transform: ~1e-16) then give bit-identical nodes, so the
    heuristic search (:class:`cogo.analysis.factor.tiling.TilingSearch`, the passes) makes the same decisions on both and nodes equal to
    that precision are interchangeable in any order; ``keys`` are the rounded nodes (a total order's
    tie-break).  Changes each entry by at most ``5e-11`` of the mean node size.  :func:`_factor`
    chooses the grids on ``x'``; an exact one (error at most :data:`REFIT_ERROR`: a rank-one fit that
    is well conditioned) has its factors refitted to the nodes as given, so its error stays at machine
    precision; an inexact one keeps the fit to ``x'`` (near-degenerate fits are ill conditioned, and
    their parameters would otherwise move with the noise at the 1e-4 level).
    """
    x = np.asarray(x, dtype=np.complex128)
    q = x.shape[1]
    a_keys = _feature_keys(x[0][:, None]) if q else []
    flip = np.array([-1.0 if abs(x[0, j]) > 0 and a_keys[j][0] >= 180.0 else 1.0 for j in range(q)])
    y = x.copy()
    y[:2] *= flip
    prod = np.abs(y[0] * y[1] * y[2])
    s = float(np.cbrt(prod.mean())) if q and prod.mean() > 0 else 1.0
    s = float(f"{s:.10g}") if s > 0 else 1.0
    re_ = np.round(y.real / s, SNAP_DECIMALS) + 0.0
    im_ = np.round(y.imag / s, SNAP_DECIMALS) + 0.0
    y = (re_ + 1j * im_) * s
    keys = [tuple(r) for r in np.concatenate([re_, im_]).T.tolist()]
    F = node_features(y[0] / s, y[1] / s, y[2] / s)
    return y, F, flip, keys


def _read(prepared) -> tuple:
    """The block as the passes read it: ``(x', F', flip, nkeys, perm)``, :func:`_snap`'s nodes, the feature keys
    of ``F'`` and the canonical node order (by feature key, then rounded node)."""
    x, F, flip, rkeys = _snap(prepared[0])
    nkeys = _feature_keys(F) if len(F) else []
    perm = np.array(sorted(range(len(nkeys)), key=lambda j: (nkeys[j], rkeys[j])), dtype=np.int64)
    return x, F, flip, nkeys, perm


def _factor(prepared, shapes: list, tol: float, match_tol: float, max_alternatives: int,
            budget: int, read: tuple | None = None, closed: list | None = None) -> BlockFactorization:
    """The passes (:mod:`cogo.analysis.factor.passes`) on the block's nodes in canonical order (:func:`cogo.analysis.factor.canonical.canonical_node_order`).

    Every result is mapped back to the caller's node indices and put in canonical form
    (:func:`cogo.analysis.factor.canonical.canonical_factorization`), so the answer is a function of the block up to node
    order and the per-node gauge, not of the order the nodes came in.  ``read``: the block's :func:`_read`,
    ``closed``: its closed-form grids, when computed beforehand (:func:`factor_blocks`).
    """
    res, nkeys = _passes(prepared, shapes, tol, match_tol, max_alternatives, budget, read, closed)
    return _canonical_alternatives(res, nkeys, iter(canonical_factorizations(_alternatives(res))))


def _alternatives(res: BlockFactorization) -> list[Factorization]:
    """Every grid of every shape of ``res``, in order."""
    return [fz for alts in res.by_shape.values() for fz in alts]


def _passes(prepared, shapes: list, tol: float, match_tol: float, max_alternatives: int, budget: int,
            read: tuple | None, closed: list | None) -> tuple[BlockFactorization, list]:
    """:func:`_factor` before the canonical form: the passes' grids mapped back to the caller's nodes; and the
    feature keys of the block's nodes."""
    x0, F0, t = prepared
    x, F, flip, nkeys, perm = read or _read(prepared)

    def subfactor(f: Factor, sub_shapes: list) -> BlockFactorization:
        # a factor of a coarser grid, factored on its own (the split pass), one grid per shape
        return _factor(_prepare(f.a, f.b, f.c), sub_shapes, tol, match_tol, 1, budget)

    res = run_passes(x[:, perm], F[perm], t[perm], shapes, tol, match_tol, max_alternatives, budget, subfactor,
                     closed)
    for shape, alts in res.by_shape.items():
        out = []
        for fz in alts:
            if fz.error <= REFIT_ERROR:
                # an exact grid (well conditioned): its factors fitted to the nodes as given (machine precision)
                fit = fit_grid(x0, F0, perm[fz.grid], reassign=False)
                fz = Factorization.from_fit(fit, t, fz.exact_grid, fz.shape)
            else:
                # an inexact fit (ill conditioned near degenerate values): kept as fitted to the canonical nodes
                signs = np.empty_like(np.asarray(fz.signs, dtype=float))
                signs[perm] = np.asarray(fz.signs, dtype=float) * flip[perm]
                fz = replace(fz, grid=perm[fz.grid], signs=signs, balance=t)
            out.append(fz)
        res.by_shape[shape] = out
    return res, nkeys


def _canonical_alternatives(res: BlockFactorization, nkeys: list, canon) -> BlockFactorization:
    """``res`` with each shape's grids replaced by their canonical forms (the next ones of ``canon``, in
    :func:`_alternatives` order), sorted, and grids equal up to orientation or swapped equal nodes kept once."""
    for shape, alts in res.by_shape.items():
        out = [next(canon) for _ in alts]
        out.sort(key=lambda f: f.sort_key)
        seen, uniq = set(), []
        for fz in out:  # grids that differ only in orientation, or by swapping equal nodes, are one grid
            key = tuple(nkeys[j] for j in fz.grid.reshape(-1))
            if key not in seen:
                seen.add(key)
                uniq.append(fz)
        res.by_shape[shape] = uniq
    return res
