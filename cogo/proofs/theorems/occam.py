"""Theorem 8 (SPEC 7.5): Occam's razor -- a zero-loss path from y * z' to the smaller z'.

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
from cogo.algebra.loss import real_loss
from cogo.algebra.network import Network
from cogo.algebra.potentials import potential
from cogo.algebra.group_parsing import as_group
from cogo.catalogue.partial import PartialSolution
from cogo.solvers import constructions as C
from cogo.algebra.block import Block
from cogo.solvers.designs import abc_normalizer, BlockDesign
from cogo.proofs.certificates.block_certificate import ZeroTest, block_certificate
from cogo.proofs.certificates.mem_certificate import mem_certificate
from cogo.proofs.results import LOSS_TOL, TheoremResult, Timer, check_method, make_result
from cogo.proofs.certificates.exact_zero import is_zero_proven as is_zero_exact  # exact, undecided is not zero (cogo.proofs.certificates.exact_zero)
from cogo.solvers import designs

__all__ = ["occam"]


# --------------------------------------------------------------------------- 8. Occam's razor
def _design_norm2(d: BlockDesign):
    """Exact ``||z||^2 = sum |z[p,k,j]|^2`` of a design (each block counted at k and -k)."""
    cj = d.conj or sympy.conjugate
    tot = sympy.Integer(0)
    for blk in d.blocks:
        for vec in (blk.part.a, blk.part.b, blk.part.c):
            tot += 2 * sum((x * cj(x) for x in vec), sympy.Integer(0))
        for val in blk.c_ext.values():
            vals = list(val) if isinstance(val, (list, tuple)) else [val] * blk.q
            tot += 2 * sum((x * cj(x) for x in vals), sympy.Integer(0))
    return sympy.expand(tot)


def _times_constant(d: BlockDesign, y: PartialSolution) -> BlockDesign:
    """``y * d`` for a frequency-independent ``y`` (same vectors at every frequency)."""
    blocks = []
    for blk in d.blocks:
        ext = {}
        for k2, val in blk.c_ext.items():
            vals = list(val) if isinstance(val, (list, tuple)) else [val] * blk.q
            ext[k2] = tuple(sympy.expand(v * w) for v in vals for w in y.c)
        blocks.append(Block(blk.k, blk.part * y, ext))
    return BlockDesign(d.group, f"y * {d.name}", blocks, True, conj=d.conj)


def _balanced_exact(d: BlockDesign) -> bool:
    cj = d.conj or sympy.conjugate
    for blk in d.blocks:
        if blk.c_ext:
            return False
        na, nb, nc = (sympy.expand(sum((x * cj(x) for x in v), sympy.Integer(0)))
                      for v in (blk.part.a, blk.part.b, blk.part.c))
        if not (is_zero_exact(na - nb) and is_zero_exact(na - nc)):
            return False
    return True


def _occam_exact(G: FiniteAbelianGroup, kind: str, zprime_design: BlockDesign | None) -> tuple[dict, float]:
    """Row 8, exact: the prefactor's potentials are 1 identically in ``t``; z' certified; norms and balance of z_F6."""
    checks: dict = {}
    Z = ZeroTest()
    t = sympy.Symbol("t", positive=True)
    yv = abc_normalizer(2, exact=True)
    vals = [sympy.cbrt(t), sympy.cbrt(1 - t) * yv, sympy.cbrt(1 - t) * yv]
    pref = Network(G, np.asarray([[vals] * G.order] * 3, dtype=object), exact=True)
    k1 = int(G.positive_frequencies[0]) if len(G.positive_frequencies) else 1
    trip = [(k1, k1, k1), (0, 0, 0), (k1, 0, int(G.neg[k1]))]
    checks["r, r_a, r_b of the prefactor = t + (1-t) = 1 identically in t (library potential)"] = all(
        Z(potential(pref, *tr, p) - 1) for tr in trip for p in (None, "a", "b"))
    if kind == "z_F6":
        d = zprime_design if zprime_design is not None else designs.f6_design(G, exact=True)
        cert = block_certificate(d)
        checks["z' = z_F6 certified optimal (exact loss 0)"] = cert.optimal
        ypart = PartialSolution("y", *(np.asarray([yv, yv], dtype=object) for _ in range(3)))
        n1, n2 = _design_norm2(d), _design_norm2(_times_constant(d, ypart))
        checks["||y*z'||^2 = 2^(1/3) ||z'||^2 (exact, Kronecker product of the design)"] = Z(n2 - sympy.cbrt(2) * n1)
        checks["z' balanced (exact)"] = _balanced_exact(d)
    else:
        cert = mem_certificate(*C.mem_factors(G))
        checks["z' = z_M certified optimal (exact character sums)"] = cert.optimal
    return checks, Z.worst


def _occam_numeric(G: FiniteAbelianGroup, kind: str, zprime: Network | None, points: int,
                   seed: int) -> tuple[dict, float]:
    """Row 8, numeric: real-space loss along the path, its endpoints, the norm ratio and 40 random ``y``."""
    checks: dict = {}
    zp = zprime if zprime is not None else (C.z_F6(G) if kind == "z_F6" else C.z_M(G))
    zp = zp.to_numeric() if zp.exact else zp
    y = Network(G, np.full((3, G.order, 2), abc_normalizer(2), dtype=np.complex128))
    one = Network.one(G)
    losses = [real_loss(*((np.cbrt(tv) * one + np.cbrt(1.0 - tv) * y) * zp).to_weights(real=True), group=G)
              for tv in np.linspace(0.0, 1.0, points)]
    worst = max(losses)
    checks[f"loss < 1e-20 at all {points} points"] = worst < LOSS_TOL
    z1 = (one + 0.0 * y) * zp
    z0 = (0.0 * one + y) * zp
    checks["z(1) = z' + zero nodes"] = z1.equals(zp, tol=1e-12, drop_zero=True)
    checks["z(0) = y * z' + zero nodes"] = z0.equals(y * zp, tol=1e-12, drop_zero=True)
    n1 = float(np.sum(np.abs(zp.z) ** 2))
    n2 = float(np.sum(np.abs((y * zp).z) ** 2))
    checks["||y*z'||^2 / ||z'||^2 = 2^(1/3)"] = abs(n2 / n1 - 2 ** (1 / 3)) <= 1e-12
    P = np.sum(np.abs(zp.z) ** 2, axis=2)  # (3, n)
    checks["z' balanced"] = bool(np.abs(P - P[0:1]).max() <= 1e-10 * P.max())
    rng = np.random.default_rng(seed)
    ratios = []
    for _ in range(40):
        qy = int(rng.integers(1, 4))
        Y = rng.normal(size=(3, G.order, qy)) + 1j * rng.normal(size=(3, G.order, qy))
        rk = (Y[0] * Y[1] * Y[2]).sum(axis=1)
        Y = Y * (rk ** (-1.0 / 3.0))[None, :, None]
        ratios.append(float(np.sum(np.abs((Network(G, Y) * zp).z) ** 2)) / n1)
    checks["||z'|| <= ||y*z'|| for 40 random y with r_kkk(y) = 1"] = min(ratios) >= 1 - 1e-12
    return checks, worst


def occam(group: Any, method: str = "exact", zprime: Network | None = None, points: int = 101,
          seed: int = 0, zprime_design: BlockDesign | None = None) -> TheoremResult:
    """Theorem 8 (SPEC 7.5): Occam's razor.

    With ``y`` two nodes of value ``2^(-1/3)`` (``r(y) = 1`` at every
    triple, ``r_a = r_b = 1``) and ``z'`` = z_F6 (z_M for even groups),
    ``z(t) = (t^(1/3) . 1 + (1-t)^(1/3) . y) * z'`` has loss 0 for every
    ``t`` in [0, 1], joins ``y * z'`` (t = 0) to ``z'`` (t = 1) up to zero
    nodes, and ``||y * z'||^2 = 2^(1/3) ||z'||^2 >= ||z'||^2``; for balanced
    ``z'`` and any ``y`` with ``r_kkk(y) = 1``, ``||z'|| <= ||y * z'||``
    (Hoelder and AM-GM).  Exact: with ``t`` a symbol, every potential of the
    prefactor is identically 1 (the library's potential at triples with zero
    and nonzero indices; the prefactor has the same entries at every
    frequency, so every triple gives the same value), so by the homomorphism
    ``z(t)`` has the potentials -- hence the loss -- of ``z'`` (certified
    exactly); for odd groups the norm ratio of the Kronecker product and the
    balance of ``z'`` = z_F6 exactly (for even groups ``z'`` = z_M and the
    norm statement is not checked exactly).  The endpoints ``z(1) = z'``,
    ``z(0) = y * z'`` (plus zero nodes) hold by definition of the prefactor.  Numeric: real-space
    loss < 1e-20 at ``points`` values of t, endpoints, the norm ratio, and the
    inequality for 40 random ``y`` normalized to ``r_kkk(y) = 1``.  ``zprime``
    (numeric) or ``zprime_design`` (exact, odd groups) replaces ``z'``.

    Returns
    -------
    TheoremResult
        Row 8: the path ``z(t)``, its endpoints and the norm inequality, each check in ``details``.

    Examples
    --------
    >>> r = occam(5)
    >>> r.name, r.method, r.passed
    ("8. Occam's razor", 'exact', True)
    """
    method = check_method(method)
    G = as_group(group)
    kind = "z_F6" if G.is_odd else "z_M"
    with Timer() as t_:
        checks, worst = _occam_exact(G, kind, zprime_design) if method == "exact" else \
            _occam_numeric(G, kind, zprime, points, seed)
        passed = all(checks.values())
    stmt = ("z(t) = (t^(1/3).1 + (1-t)^(1/3).y) * z' has loss 0 for all t in [0,1] (y = two nodes 2^(-1/3)), joins "
            "y*z' to z', and ||z'|| <= ||y*z'|| for balanced z'"
            + ("" if method == "exact" else f"; real-space loss < 1e-20 at {points} points, float64"))
    return make_result("8. Occam's razor", stmt, method, passed, worst, t_, checks=checks,
                       zprime=kind)
