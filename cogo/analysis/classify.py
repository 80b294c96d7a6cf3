"""Reading trained networks: blocks, Kronecker factors and catalogue names (SPEC 8).

Pipeline for one network (:func:`read_network`):

1. **Fourier transform** with the convention of SPEC 2 (scale ``(2 n_G)^(1/3)``,
   so a perfect block has ``r_kkk = 1``).
2.-4. **Dead nodes, dominant frequency, mixed nodes, self-conjugate
   frequencies**: :func:`cogo.analysis.blocks.extract_blocks` (SPEC 8.2-8.3,
   SPEC 6), the one rule every reader of a network uses; defaults
   :data:`DEAD_THRESHOLD` = 1e-2 (relative strength) and
   :data:`MIX_THRESHOLD` = 0.05.  A block at a self-conjugate frequency
   (``k = -k``, even groups) is checked against the conditions SPEC 6 leaves
   for it (``abc = 1`` and the R_n sum ``sum (a^2 + b^2) c = 0``), see
   :func:`cogo.analysis.blocks.block_conditions`.
5. **Blocks**: the live nodes of each dominant frequency ``k``; the *order* is
   their number; ``r_kkk`` is ``sum_j a_j b_j c_j`` over the block.
6. **Factorization** (SPEC 8.4-8.5) by :mod:`cogo.analysis.factorization`;
   a block is *factorable* when some grid reconstructs it with relative error at
   most ``factor_tol`` (default 0.05).  The finest such grid is reported,
   unless a coarser grid fits far better: only grids with error at most
   ``EXACT_RATIO * e_min + EXACT_SLACK`` (2 and 0.005; ``e_min`` the best error
   over all shapes) compete, so two different z_xi blocks merged at one
   frequency stay an exact 2 x 4 grid, not a 2 x 2 x 2 with one merged xi.
   Factors ``z_xi`` and ``z_syn,ab`` are fitted with ``|xi| = |alpha| =
   |beta| = 1`` (SPEC 7): the fit is projected onto the circle and the name
   refused when that misfits; ``fitted`` reports the free fit's modulus.
   A special case (``z_nu=i``, ``z_syn``) is a flag (``special``): the
   factor's ``params`` keep the fitted general-form values (``nu``;
   ``alpha``, ``beta``).
   Blocks larger than :data:`cogo.analysis.factorization.MAX_ORDER` (64), and
   blocks whose search exhausts its bound (``SEARCH_BUDGET`` candidate factor
   sets, see that module), are reported ``non-factorable`` with the reason in
   ``search_note``.
7. **Names** (SPEC 8.6), see :func:`name_factor`.
8. **Second opinion**: the eleven monomial sums of SPEC 6 on the block's
   Fourier values (gauge invariant) and ``optimal``: every condition of
   :func:`cogo.analysis.blocks.block_conditions` (``|abc - 1|``, the R_c
   sums, the R_n sum, the R_* sums; per block kind) has residual at most
   the block's own tolerance ``opt_tol`` (reported per block):
   ``3 max(e, 64 eps) s`` (:func:`cogo.analysis.optimality.block_tolerance`),
   ``s = sum_j (|a_j|^2 + |b_j|^2) |c_j|`` the gauge-invariant mass of the
   block's cubic monomials, ``e`` the error of its
   reported reading (reconstruction error and naming residuals; 0 when it has
   none), ``eps`` the unit roundoff of the weights' dtype.  So "optimal"
   means "within what the block's own fit and rounding explain": a block
   rescaled by 1.01 (``|abc - 1| = 0.03``, fit error 0) is not optimal.
   ``Settings(opt_tol=t)`` judges every block with one tolerance ``t``
   instead (the rule before 0.2, with ``t`` = :data:`OPT_TOL` = 0.05).
9. **Network verdict** (:mod:`cogo.analysis.optimality`): the loss on all pairs
   and the largest residual of each SPEC 5 condition of the whole network,
   which sees what blocks alone cannot (cross-frequency terms of mixed nodes).

Naming factors against the catalogue (SPEC 7)
---------------------------------------------
The forms, their fits, canonical representatives, special cases and the
named products are the records of :mod:`cogo.catalogue` (the one registry);
this module loops over it.
A normalized factor (first node ``(1, 1, 1)``) is only defined up to

* the order of its nodes (any node may be the first one; the others are
  renormalized by it),
* the sign gauge of each node, ``(a, b, c) -> (-a, -b, c)``,
* the *stabilizer of its partner*: if ``V`` is the product of the block's other
  factors and ``lam V = V`` (as a node set, modulo signs) for a per-``p``
  multiplier ``lam``, then any node of this factor may be multiplied by
  ``lam`` (the grid is permuted).  For ``z_syn`` the stabilizer is
  ``{1, w, w^2}``; for ``z_{nu=i}`` it is ``{1, (i, -i, 1)}``; it is trivial
  for the other factors with generic parameters.

Every transformed version of the factor is fitted to every catalogue form:
``z_nu(nu)`` ``(1,nu);(1,-nu);(1,-nu^-2)``, ``z_{nu=i}`` (= ``z_nu(+-i)``),
``z_xi(xi, s)`` ``(1,xi);(1,-s i conj xi);(1,s i)``, ``z_syn`` and
``z_syn,ab(alpha, beta)``.  A form *fits* when the root-mean-square
difference per entry is at most ``name_tol`` (default :data:`NAME_TOL` =
0.05; entries have modulus about 1).  Precedence: the parameter-free special
cases ``z_nu=i`` and ``z_syn`` (= ``z_syn,ab(1, 1)``) over the general forms
``z_nu`` and ``z_syn,ab``, provided the special case fits within ``name_tol``
and about as well as the general form (residual at most 3 times the general
form's plus 0.01; so ``z_nu(nu)`` with ``nu`` a degree away from ``i`` stays
``z_nu``, while noise alone never splits a true ``z_nu=i``);
when a factor fits two general forms (e.g. ``z_nu(nu)`` with ``nu^2 = s i`` is
also ``z_xi(nu, s)``) the block decides (below).  No fit: ``unknown``.

Parameters are reported as one canonical representative of their orbit under
the transformations above: the one whose angle, read in
``[-0.01, 2 pi - 0.01)``, is smallest (``z_xi``: ``s = +1`` first, which node
swapping always allows, since ``z_xi(xi, s)`` with its nodes swapped is
``z_xi(conj xi, -s)``; ``z_syn,ab``: smallest angle of ``alpha``, then of
``beta``).  So ``nu`` of ``z_nu * z_syn`` lies in ``[0, 30]`` degrees
(``nu ~ -nu ~ 1/nu ~ w nu``), ``nu`` of a lone ``z_nu`` in ``[0, 90]``,
``xi`` of ``z_nu=i * z_xi`` in ``[0, 90)`` (``xi ~ i xi``) with ``s = +1``,
and ``alpha, beta`` of ``z_nu=i * z_syn,ab`` are defined modulo ``i``.

Block types
-----------
``non-factorable`` (no grid within ``factor_tol``; or a block of prime order
that matches no catalogue factor); ``other factorable`` (a grid exists but
some factor is unknown); otherwise the catalogue family.  For two factors the
families of SPEC 7 come first, in this order: ``z_nu * z_syn`` (7.1, which
also covers ``z_nu=i * z_syn``), ``z_nu=i * z_syn,ab`` (7.2),
``z_nu=i * z_xi`` (7.3).  Otherwise the factor names joined by `` * `` in
the order ``z_nu=i, z_nu, z_xi, z_syn, z_syn,ab`` (e.g.
``z_nu=i * z_nu * z_syn`` for an order-12 block).  A block of order 2 or 3
that is itself a catalogue factor is typed by that factor's name.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] C. F. Van Loan, N. Pitsianis, "Approximation with Kronecker products", Linear Algebra for Large Scale and Real-Time Applications, 1993.
.. [3] facebookresearch/luckmatters, ssl/real-dataset/cogo/ (the paper's code).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from cogo import catalogue as _cat
from cogo.runtime.threads import thread_policy as _thread_policy
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.network import Network
from cogo.algebra.potentials import MONOMIALS, block_sums
from cogo.analysis.blocks import CONDITIONS, DEAD_THRESHOLD, MIX_THRESHOLD, block_conditions, extract_blocks
from cogo.analysis.factorization import (
    FACTOR_TOL,
    BlockFactorization,
    Factorization,
    balance_gauge,
    canonical_node_order,
    factor_block,
    kron_vectors,
    linear_assignment,
    node_features,
)
from cogo.analysis.nearest import nearest_from_reading

__all__ = [
    "DEAD_THRESHOLD",
    "MIX_THRESHOLD",
    "NAME_TOL",
    "OPT_TOL",
    "Settings",
    "FactorName",
    "BlockReport",
    "NetworkReport",
    "ClassifyResult",
    "name_factor",
    "stabilizer",
    "classify_block",
    "read_network",
    "classify_checkpoint",
    "classify_many",
    "summarize",
    "paper_column",
    "tolerance_curve",
    "CURVE_TOLERANCES",
]

#: RMS deviation per entry up to which a factor matches a catalogue form.
NAME_TOL = 0.05
#: A fixed tolerance for the optimality conditions of every block (SPEC 5-6), ``Settings(opt_tol=OPT_TOL)``;
#: the default is each block's own tolerance (module docstring, step 8).
OPT_TOL = 0.05
#: A finer grid is preferred only if its error is at most EXACT_RATIO * (best error) + EXACT_SLACK.
EXACT_RATIO = 2.0
EXACT_SLACK = 0.005
#: Naming and factorization tolerance of the reference classifier (``--preset paper``).
PAPER_TOL = 0.1



def _specific(name: str) -> int:
    """0 for a special case (``z_nu=i``, ``z_syn``), 1 for a general form: the naming precedence."""
    return 0 if _cat.is_special(name) else 1


@dataclass(frozen=True)
class Settings:
    """Thresholds of the analysis (documented in the module docstring).

    >>> Settings().name_tol, Settings(preset="paper").preset
    (0.05, 'paper')
    """

    dead_threshold: float = DEAD_THRESHOLD
    mix_threshold: float = MIX_THRESHOLD
    factor_tol: float = FACTOR_TOL
    name_tol: float = NAME_TOL
    #: None (default): each block's own tolerance (:func:`cogo.analysis.optimality.block_tolerance`); a number:
    #: one tolerance for every block's residuals (the rule before 0.2: :data:`OPT_TOL`)
    opt_tol: float | None = None
    #: ``"default"`` or ``"paper"`` (:func:`Settings.preset`); the paper preset names a special
    #: case (``z_nu=i``, ``z_syn``) whenever it fits within ``name_tol``.
    preset: str = "default"

    @classmethod
    def preset_named(cls, name: str, **overrides) -> "Settings":
        """Settings of a preset: ``"default"`` (the stricter reading) or ``"paper"`` (the reference's).

        ``paper``: a block is factorable when its relative reconstruction error
        is at most 0.1 (the reference accepts a 2 x q/2 grid when the norm of
        its ratio deviations is at most ``sqrt(3 q) * 0.1``, i.e. 0.1 per entry
        of modulus ~1), and a factor is named when every entry is within about
        0.1 of the form (here: rms 0.1 per entry); a special case is named
        whenever it fits within that tolerance; and, as the reference does,
        every node is divided by ``|a_j b_j c_j|^(1/3)`` before factoring, so
        unequal node amplitudes do not count against a block.  The column definitions of the
        reference are in :func:`summarize` (``paper_columns``), for both presets.
        """
        if name == "default":
            return cls(**overrides).validate()
        if name == "paper":
            return cls(**{"factor_tol": PAPER_TOL, "name_tol": PAPER_TOL, "preset": "paper", **overrides}).validate()
        raise ValueError(f"unknown preset {name!r}; choose 'default' or 'paper'")

    def validate(self) -> "Settings":
        if self.preset not in ("default", "paper"):
            raise ValueError(f"unknown preset {self.preset!r}; choose 'default' or 'paper'")
        for k, v in self.__dict__.items():
            if k == "preset" or (k == "opt_tol" and v is None):
                continue
            if not (isinstance(v, (int, float)) and math.isfinite(v) and 0 < v < 1):
                raise ValueError(f"{k.replace('_', '-')} must be a number strictly between 0 and 1, got {v!r}")
        return self


# --------------------------------------------------------------------------- naming
@dataclass
class FactorName:
    """A factor named against the catalogue: ``name``, canonical ``params`` and fit ``residual``.

    ``alternatives`` lists every ``(name, params, residual)`` that fits within
    the tolerance (the block may prefer a less specific one to form a family).
    ``vectors`` is the normalized factor, shape ``(3, m)``.  For an
    ``unknown`` factor of 2 or 3 nodes, ``closest`` is the best-fitting form
    and its residual (above the tolerance), as a hint.

    >>> import numpy as np
    >>> f = name_factor(np.array([[1, -1j], [1, 1j], [1, 1]]))   # (a; b; c) = (1, -i; 1, i; 1, 1)
    >>> f.name, f.params, f.residual
    ('z_nu=i', {'nu': 1j}, 0.0)
    """

    name: str
    params: dict
    residual: float | None
    vectors: np.ndarray
    alternatives: list = field(default_factory=list)
    closest: tuple | None = None
    fitted: dict = field(default_factory=dict)

    @property
    def special(self) -> str | None:
        """The parameter-free special case (``z_nu=i``, ``z_syn``) this factor is within tolerance of, if named so."""
        return self.name if _cat.is_special(self.name) else None

    @property
    def size(self) -> int:
        return int(self.vectors.shape[1])


def stabilizer(V: np.ndarray, tol: float = 0.05) -> np.ndarray:
    """Per-``p`` multipliers ``lam`` (rows, shape (S, 3)) with ``lam V = V`` as a node set modulo signs.

    Candidates are ``V[:, j] / V[:, 0]``; each is kept when every node of
    ``lam V`` has a distinct partner in ``V`` within relative feature distance
    ``tol``.  Always contains ``(1, 1, 1)``.

    Returns
    -------
    complex array (S, 3)
        One row ``lam`` per multiplier that maps the node set to itself (``(1, 1, 1)`` included).

    Examples
    --------
    >>> import numpy as np
    >>> w = np.exp(2j * np.pi / 3)
    >>> S = stabilizer(np.array([[1, w, w * w]] * 3))   # z_syn: multiplying by w permutes its nodes
    >>> S.shape, bool(np.allclose(S ** 3, 1))
    ((3, 3), True)
    """
    V = np.asarray(V, dtype=np.complex128)
    n = V.shape[1]
    if n <= 1 or np.any(V[:, 0] == 0):
        return np.ones((1, 3), dtype=np.complex128)
    F = node_features(V[0], V[1], V[2])
    out = [np.ones(3, dtype=np.complex128)]
    for j in range(1, n):
        lam = V[:, j] / V[:, 0]
        lf = np.array([lam[0] ** 2, lam[0] * lam[1], lam[1] ** 2, lam[2]])
        G = F * lf
        D = np.linalg.norm(G[:, None, :] - F[None, :, :], axis=-1) / np.maximum(np.linalg.norm(G, axis=-1), 1e-300)[:, None]
        # lam V = V as a multiset: an optimal one-to-one matching (Hungarian), every pair within tol.  (Nearest
        # partners were not one-to-one when V repeats a node -- z_nu * z_nu with equal nu -- and float noise
        # decided which copy was nearest, so the stabilizer, and the names, changed with node order.)
        near = D <= tol
        if not (near.any(axis=0).all() and near.any(axis=1).all()):
            continue  # some node has no partner within tol: no matching can pass
        col = linear_assignment(np.round(D, 9))
        if (D[np.arange(n), col] <= tol).all():
            out.append(lam)
    return np.stack(out)


def _variants_2(u: np.ndarray, stab: np.ndarray) -> np.ndarray:
    """Second-node values ``(x, y, z)`` of every transformed version of a 2-node factor: (N, 3)."""
    n1 = u[:, 1] / u[:, 0]
    base = np.stack([n1, 1.0 / n1])  # keep or swap the nodes
    sg = np.array([[1, 1, 1], [-1, -1, 1]])
    v = base[:, None, None, :] * sg[None, :, None, :] * stab[None, None, :, :]
    return v.reshape(-1, 3)


def _variants_3(u: np.ndarray, stab: np.ndarray) -> np.ndarray:
    """Nodes 1, 2 of every transformed version of a 3-node factor: (N, 2, 3)."""
    vs = []
    for f in range(3):
        for g, h in ((0, 1), (0, 2), (1, 2), (1, 0), (2, 0), (2, 1)):
            if f in (g, h) or g == h:
                continue
            vs.append(np.stack([u[:, g] / u[:, f], u[:, h] / u[:, f]]))
    base = np.stack(vs)  # (6, 2, 3)
    sg = np.array([1, 1, 1]), np.array([-1, -1, 1])
    mult = []
    for s1 in sg:
        for s2 in sg:
            for l1 in stab:
                for l2 in stab:
                    mult.append(np.stack([s1 * l1, s2 * l2]))
    mult = np.stack(mult)  # (4 S^2, 2, 3)
    return (base[:, None] * mult[None]).reshape(-1, 2, 3)


def _fits(u: np.ndarray, stab: np.ndarray) -> dict:
    """Every registered family of ``u``'s node count fitted to every disguise of ``u`` (:mod:`cogo.catalogue`).

    Returns ``{name: (family, residuals (N,), params list)}`` in fitting order.
    """
    m = u.shape[1]
    V = _variants_2(u, stab) if m == 2 else _variants_3(u, stab)
    out = {}
    for fam in _cat.fit_order(m):
        res, params = fam.fit(V)
        out[fam.name] = (fam, res, params)
    return out


def name_factor(vectors: Any, partner: Any = None, tol: float = NAME_TOL,
                special_within_tol: bool = False) -> FactorName:
    """Name a normalized factor (3, m) against the catalogue of SPEC 7 (see the module docstring).

    ``special_within_tol``: name a special case (``z_nu=i``, ``z_syn``)
    whenever it fits within ``tol`` (the reference's rule, ``--preset paper``);
    by default it must also fit about as well as its general form.

    ``partner`` is the product of the block's other factors, shape (3, n),
    whose stabilizer may move this factor's nodes; None for a lone factor.

    Returns
    -------
    FactorName
        The catalogue name of the factor (or None), its parameters and the fit diagnostics.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.exp(2j * np.pi / 3)
    >>> f = name_factor(np.array([[1, w, w * w]] * 3))  # z_syn of SPEC 7
    >>> f.name, round(f.residual, 9)
    ('z_syn', 0.0)
    """
    u = np.asarray(vectors, dtype=np.complex128)
    if u.ndim != 2 or u.shape[0] != 3:
        raise ValueError(f"a factor is an array of shape (3, m), got {u.shape}")
    m = u.shape[1]
    stab = stabilizer(partner) if partner is not None else np.ones((1, 3), dtype=np.complex128)
    stab = stab / np.abs(stab)  # catalogue stabilizers are roots of unity; noise must not bias the unit-circle fits
    if m not in (2, 3) or np.any(np.abs(u) < 1e-12) or not np.all(np.isfinite(u)):
        return FactorName("unknown", {}, None, u)
    fits = _fits(u, stab)
    alts = []
    closest = ("unknown", math.inf)
    fitted = {}
    for name, (fam, res, params) in fits.items():
        res = np.nan_to_num(np.asarray(res, dtype=float), nan=np.inf)
        best = float(res.min())
        i0 = int(np.argmin(res))
        fp = dict(params[i0]) if params else {}
        mods = [v for k_, v in fp.items() if k_.startswith("|")]
        if mods:
            fp["modulus"] = float(max(max(m_, 1.0 / m_) if m_ > 0 else math.inf for m_ in mods))
        fp["residual"] = best
        fitted[name] = fp
        if best < closest[1]:
            closest = (name, best)
        if best <= tol:
            idx = np.flatnonzero(res <= min(tol, 2 * best + 0.005))
            alts.append((name, fam.representative([params[i] for i in idx]), best))
    # a special case is kept only when it fits about as well as its general form (module docstring)
    res_of = {n: r for n, _, r in alts}
    for special, general in ((f.name, f.special_of) for f in _cat.families() if f.special_of):
        if special in res_of and general in res_of and res_of[special] > 3 * res_of[general] + 0.01 \
                and not special_within_tol:
            alts = [t for t in alts if t[0] != special]
    # a special case keeps the fitted parameters of its general form (the special name is a flag)
    gen_params = {n: p for n, p, _ in alts}
    alts = [(n, dict(gen_params.get(_cat.general_of(n), {})) if _cat.is_special(n) else p, r) for n, p, r in alts]
    alts.sort(key=lambda t: (_specific(t[0]), round(t[2], 9), _cat.rank(t[0])))  # ties: name order, not noise
    if not alts:
        return FactorName("unknown", {}, None, u, [], closest if math.isfinite(closest[1]) else None, fitted)
    name, params, res = alts[0]
    return FactorName(name, params, res, u, alts, None, fitted)


def _product_type(names: Sequence[str]) -> str:
    if any(n == "unknown" for n in names):
        return "other factorable"
    return " * ".join(sorted(names, key=_cat.rank))


def _choose_names(named: list[FactorName]) -> tuple[str, list[tuple[str, dict, float | None]], bool]:
    """Pick each factor's name so that the block forms a SPEC 7 family if it can; returns (type, names, family)."""
    if len(named) == 2 and all(f.alternatives for f in named):
        for prod in _cat.products():
            fam, roles = prod.name, prod.roles
            for order in ((0, 1), (1, 0)):
                picks = []
                for fi, role in zip(order, roles):
                    ok = [alt for alt in named[fi].alternatives if alt[0] in _cat.serves(role)]
                    if not ok:
                        break
                    ok.sort(key=lambda t: (_specific(t[0]), round(t[2], 9), _cat.rank(t[0])))
                    picks.append((fi, ok[0]))
                else:
                    picks.sort()
                    return fam, [p[1] for p in picks], True
    picks = [(f.name, f.params, f.residual) for f in named]
    return _product_type([p[0] for p in picks]), picks, False


# --------------------------------------------------------------------------- reports
@dataclass
class BlockReport:
    """One block (SPEC 6, 8.3-8.6) of a network.

    ``k``: frequency index (the residue for ``Z_d``), ``k_coords`` its
    coordinates; ``order``: number of nodes; ``nodes``: their indices in the
    network; ``type``: one of :data:`BLOCK_TYPES` or a product of
    :data:`FACTOR_NAMES` (module docstring); ``factors``: dicts with ``name``,
    canonical ``params`` (complex values; ``s`` an int), fit ``residual`` and
    the normalized ``vectors`` (3, m) (unknown factors also carry ``closest``);
    ``error``: relative reconstruction error of the reported factorization
    (for a non-factorable block: the smallest error found over all shapes,
    an upper bound on the true minimum; None for prime orders); ``shape``:
    its grid shape; ``optimal``: every condition of SPEC 5 holds on the block
    alone within ``opt_tol``, ``failed_conditions`` lists those that do not
    (``R_g``, ``R_c``, ``R_n``, ``R_*``); ``r_kkk``: ``sum_j a_j b_j c_j``;
    ``sums``: the eleven monomial sums of SPEC 6 and the R_n sum;
    ``abc_scale``: the common per-node ``a_j b_j c_j`` of the factorization
    (``1/q`` for the catalogue); ``grid``: network node indices on the grid.

    >>> from cogo.catalogue.partial import z_nu_i, z_xi
    >>> y = 4 ** (-1 / 3) * (z_nu_i() * z_xi(1, 1))     # an order-4 block of z_F4/6 (SPEC 7.3)
    >>> b = classify_block(y.a, y.b, y.c, k=2)
    >>> b.order, b.type, b.shape, b.optimal, b.failed_conditions, paper_column(b)
    (4, 'z_nu=i * z_xi', (2, 2), False, ['R_n'], 'nu=i*xi')
    """

    k: int
    k_coords: tuple
    order: int
    nodes: list
    type: str
    factors: list  # of dict(name, params, residual, vectors)
    error: float | None
    shape: tuple | None
    factorable: bool
    optimal: bool
    failed_conditions: list
    r_kkk: complex
    sums: dict
    abc_scale: complex | None = None
    mixed_nodes: int = 0
    self_conjugate: bool = False
    grid: list | None = None
    kind: str = "generic"
    residuals: dict = field(default_factory=dict)
    #: nearest catalogue type, its distance and parameters (:func:`_nearest`)
    nearest: dict | None = None
    #: spread of the node amplitudes |a_j b_j c_j|: (max - min) / mean over the block
    amplitude_spread: float | None = None
    #: why the block was not factored (order above MAX_ORDER, or the search bound reached); None otherwise
    search_note: str | None = None
    #: the tolerance ``optimal`` was judged with (module docstring, step 8)
    opt_tol: float | None = None
    #: distance to the block's snapped certified form (:mod:`cogo.analysis.snap`; None when not computed)
    distance: float | None = None


@dataclass
class NetworkReport:
    """The analysis of one network (SPEC 8): node counts, per-node block frequency and the blocks.

    >>> from cogo.solvers.constructions import z_F46
    >>> rep = read_network(*z_F46(7).to_weights(real=True), group=7)
    >>> rep.hidden, rep.live_nodes, rep.dead_nodes, [(b.k, b.order) for b in rep.blocks]
    (14, 14, 0, [(1, 6), (2, 4), (3, 4)])
    >>> rep.verdict.optimal                             # the whole network is a global optimizer
    True
    """

    group: FiniteAbelianGroup
    hidden: int
    live_nodes: int
    dead_nodes: int
    zero_frequency_nodes: int
    mixed_nodes: int
    node_frequency: list  # per node: frequency index of its block, -1 dead, 0 zero-frequency
    blocks: list
    settings: Settings
    path: str = ""
    meta: dict = field(default_factory=dict)
    seconds: float = 0.0
    verdict: Any = None  # cogo.analysis.optimality.Verdict of the whole network
    snap: Any = None  # cogo.analysis.snap.Snap: the nearest certified optimizer and the distances to it

    def to_dict(self) -> dict:
        """This checkpoint's reading as plain JSON values (one entry of ``cogo classify --json``'s ``checkpoints``)."""
        from cogo.analysis.report import report_json

        return report_json(self)


@dataclass
class ClassifyResult:
    """Reports of many checkpoints and their aggregate (:func:`summarize`).

    >>> import os, tempfile
    >>> from cogo.solvers.constructions import z_F6, to_checkpoint
    >>> with tempfile.TemporaryDirectory() as d:
    ...     paths = [os.path.join(d, f"f6_{s}.pt") for s in (1, 2)]
    ...     for s, p in zip((1, 2), paths):
    ...         to_checkpoint(z_F6(5, seed=s), p)
    ...     result = classify_many(paths)
    >>> len(result.reports), result.summary["blocks"], result.summary["type_distribution"]["z_nu * z_syn"]["mean"]
    (2, 4, 1.0)
    """

    reports: list
    summary: dict
    settings: Settings
    #: the loaded weights ``(Wa, Wb, Wc, group)`` per checkpoint (for :func:`tolerance_curve`); not serialized
    weights: list = field(default_factory=list, repr=False)
    #: :func:`tolerance_curve` output when computed (``cogo classify --plots``)
    tolerance: dict | None = None

    # the reading contract (cogo.analysis.reading.Reading), shared with the irreps reading of SPEC 9
    def to_dict(self) -> dict:
        """Every value as plain JSON (:func:`cogo.analysis.report.to_json_dict`)."""
        from cogo.analysis.report import to_json_dict

        return to_json_dict(self)

    def render_text(self) -> str:
        """The per-block tables and the summary (:func:`cogo.analysis.report.render_text`)."""
        from cogo.analysis.report import render_text

        return render_text(self)

    def render_markdown(self) -> str:
        """The same as Markdown (:func:`cogo.analysis.report.render_markdown`)."""
        from cogo.analysis.report import render_markdown

        return render_markdown(self)

    def render_json(self) -> str:
        """Strict JSON text (:func:`cogo.analysis.report.render_json`)."""
        from cogo.analysis.report import render_json

        return render_json(self)

    def write_outputs(self, json_path: Any = None, markdown_path: Any = None, plots_dir: Any = None,
                      force: bool = False) -> list[str]:
        """Check, render and write the requested outputs atomically (:func:`cogo.analysis.report.write_outputs`)."""
        from cogo.analysis.report import write_outputs

        return write_outputs(self, json_path, markdown_path, plots_dir, force=force)

    def compute_tolerance_curve(self) -> dict | None:
        """:func:`tolerance_curve` of the loaded weights, kept in ``tolerance`` (once; None without weights)."""
        if self.tolerance is None and self.weights:
            self.tolerance = tolerance_curve(self.weights, settings=self.settings)
        return self.tolerance

    def to_records(self) -> list[dict]:
        """One dict per block, flat (:func:`cogo.analysis.records.to_records`; the table of ``cogo classify --csv``)."""
        from cogo.analysis.records import to_records

        return to_records(self)

    def to_pandas(self):
        """The table of :meth:`to_records` as a pandas DataFrame (needs pandas; not a dependency of cogo)."""
        from cogo.analysis.records import to_pandas

        return to_pandas(self)


def _factor_dict(name: str, params: dict, residual, vectors: np.ndarray, closest=None) -> dict:
    d = {"name": name, "params": dict(params), "residual": residual, "vectors": np.asarray(vectors)}
    if _cat.is_special(name):
        d["special"] = name  # a flag: params hold the fitted general-form values
    if name == "unknown" and closest is not None:
        d["closest"] = {"name": closest[0], "residual": float(closest[1])}
    return d


def _name_factorization(fz: Factorization, tol: float, special_within_tol: bool = False) -> tuple[str, list, bool, int]:
    """Name every factor of a factorization; returns (type, factor dicts, family?, number named)."""
    vecs = [f.vectors for f in fz.factors]
    named = []
    for i, v in enumerate(vecs):
        others = [w for j, w in enumerate(vecs) if j != i]
        partner = kron_vectors(others) if others else None
        named.append(name_factor(v, partner, tol, special_within_tol))
    typ, picks, fam = _choose_names(named)
    facs = [_factor_dict(n, p, r, f.vectors, f.closest) for (n, p, r), f in zip(picks, named)]
    n_named = sum(1 for n, _, _ in picks if n != "unknown")
    return typ, facs, fam, n_named


def classify_block(a: Any, b: Any, c: Any, k: int = 0, k_coords: tuple = (), nodes: Sequence[int] | None = None,
                   settings: Settings | None = None, self_conjugate: bool = False,
                   mixed_nodes: int = 0, kind: str | None = None, dtype: str = "float64") -> BlockReport:
    """Factor, name and check one block; with ``nearest`` and ``amplitude_spread`` (near-miss diagnostics).

    ``nearest``: ``{type, distance, params, method}``.  For blocks of order
    2, 3, 4 and 6 (the catalogue's families): :func:`nearest_family`, every
    family fitted directly to the block (``method = "direct fit"``), unless
    the reading already names the block a family of its order within
    :data:`cogo.analysis.nearest.NEAREST_FROM_READING` (default preset): then
    that family at the reading's parameters, its distance the direct fit's
    objective there (``"kronecker"``, :func:`cogo.analysis.nearest.nearest_from_reading`).  For
    other orders: a block typed as a catalogue product gets its own type,
    ``distance`` = the larger of its reconstruction error and the factors'
    naming residuals, and its factors' parameters (``"kronecker"``); any other
    block ``None`` (``"none"``).

    Returns
    -------
    BlockReport
        The block's factorization, catalogue type, condition residuals, optimality flag and near-miss diagnostics.

    Examples
    --------
    >>> from cogo.catalogue.partial import z_nu_i, z_syn
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())        # an order-6 block (SPEC 7.1)
    >>> b = classify_block(x.a, x.b, x.c, k=1)
    >>> b.type, [f["name"] for f in b.factors], b.shape, round(b.error, 9), b.optimal
    ('z_nu * z_syn', ['z_nu=i', 'z_syn'], (2, 3), 0.0, True)
    >>> b.nearest["type"], round(b.nearest["distance"], 9)
    ('z_nu * z_syn', 0.0)
    """
    rep = _classify_block(a, b, c, k, k_coords, nodes, settings, self_conjugate, mixed_nodes, kind, dtype)
    x = np.stack([np.asarray(v, dtype=np.complex128).reshape(-1) for v in (a, b, c)])
    if x.shape[1]:
        amp = np.abs(x[0] * x[1] * x[2])
        rep.amplitude_spread = float((amp.max() - amp.min()) / amp.mean()) if amp.mean() > 0 else None
    if rep.order in _cat.nearest_forms():
        # a block read exactly as a family of its order is its own nearest form (cogo.analysis.nearest)
        rep.nearest = nearest_from_reading(rep, x, (settings or Settings()).preset) or nearest_family(a, b, c)
    elif _is_catalogue(rep.type):
        rep.nearest = _nearest_of(rep)
    else:
        rep.nearest = {"type": None, "distance": None, "params": [], "method": "none"}
    return rep


def _is_catalogue(t: str) -> bool:
    return t not in ("other factorable", "non-factorable")


def _nearest_of(rep: BlockReport) -> dict:
    res = [f["residual"] for f in rep.factors if f.get("residual") is not None]
    dist = max([rep.error or 0.0] + res)
    return {"type": rep.type, "distance": float(dist),
            "params": [{"name": f["name"], **f["params"]} for f in rep.factors], "method": "kronecker"}


_PERMS: dict = {}


def _feature_misfit(F: np.ndarray, G: np.ndarray, perms: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Smallest ``sum_ch min_lam ||F_ch - lam G_pi,ch||^2`` over node orders ``pi``, per model.

    ``F`` (m, 4) block features, ``G`` (K, m, 4) model features; ``perms``
    the node orders tried (default: all ``m! <= 720``).  The per-channel
    complex scale ``lam`` (the per-``p`` scale of SPEC 8.4) is solved in
    closed form.  Returns the residuals (K,) and, per node order, the
    residual of the best model (P,).
    """
    import itertools

    m = F.shape[0]
    if perms is None:
        if m not in _PERMS:
            _PERMS[m] = np.array(list(itertools.permutations(range(m))))  # (P, m)
        perms = _PERMS[m]
    gn = (np.abs(G) ** 2).sum(axis=1)  # (K, 4)
    fn = (np.abs(F) ** 2).sum(axis=0)  # (4,)
    Ck = np.conj(G)[:, None, :, :] * F[None, :, None, :]  # (K, j, l, 4): conj(G_l) F_j
    S = Ck[:, 0, perms[:, 0], :]
    for j in range(1, m):
        S = S + Ck[:, j, perms[:, j], :]  # (K, P, 4)
    res = np.maximum((fn[None, None, :] - np.abs(S) ** 2 / np.maximum(gn[:, None, :], 1e-300)).sum(axis=2), 0.0)
    k = int(np.argmin(np.round(res.min(axis=1) / max(float(fn.sum()), 1e-300), 9)))  # ties: float noise decides nothing
    return res.min(axis=1), res[k]


#: Refinement rounds of :func:`nearest_family` (3 points per parameter, the step halved each round).
_REFINE_ROUNDS = 7
#: Node orders kept from the coarse grid for the refinement rounds.
_KEEP_ORDERS = 24
_COARSE: dict = {}
_cat.on_change(_COARSE.clear)  # a registered form changes what the cached coarse grids mean


def _models(model, cand: np.ndarray, memo: dict | None = None) -> np.ndarray:
    """Balanced features (K, m, 4) of the catalogue models at the parameter rows ``cand`` (degrees).

    The models are built one by one, balanced and featurized all at once (the same operations,
    entry by entry); ``memo`` (parameter tuple -> features) reuses the models already built.
    """
    memo = {} if memo is None else memo
    keys = [tuple(float(v) for v in t) for t in cand]
    new = [k for k in dict.fromkeys(keys) if k not in memo]
    if new:
        pss = [model(k) for k in new]
        m = len(pss[0].a)
        a, b, c = (np.concatenate([np.asarray(getattr(ps, p), dtype=np.complex128).reshape(-1) for ps in pss])
                   for p in "abc")
        ab, bb, cb, _ = balance_gauge(a, b, c)
        F = node_features(ab, bb, cb).reshape(len(new), m, 4)
        for k, f in zip(new, F):
            memo[k] = f
    return np.stack([memo[k] for k in keys])


def _coarse_models(typ: str, model, step: float, period: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The coarse parameter grid of a family and its models (cached: they do not depend on the block)."""
    import itertools

    if typ not in _COARSE:
        cand = np.array(list(itertools.product(*[np.arange(0.0, per, step) for per in period])))
        _COARSE[typ] = (cand, _models(model, cand))
    return _COARSE[typ]


def nearest_family(a: Any, b: Any, c: Any) -> dict:
    """The catalogue family nearest to a block, fitted directly (SPEC 7, gauge of SPEC 8.4).

    Every family of the block's order (order 2: ``z_nu``, ``z_xi``; 3:
    ``z_syn,ab``; 4: ``z_nu=i * z_xi``; 6: ``z_nu * z_syn``,
    ``z_nu=i * z_syn,ab``) is fitted over its continuous parameters (unit
    modulus ``nu``, ``xi``, ``alpha``, ``beta``; ``s = -1`` is ``s = +1`` with
    the nodes swapped) and the gauge: node order (all ``m!``), per-node
    ``(t a, t b, c / t^2)`` and sign (the balanced, sign-invariant features
    ``(a^2, a b, b^2, c)``), per-factor and per-``p`` scaling (a complex scale
    per feature channel).  A coarse grid over the parameters (2 degrees, 4 for
    a lone factor; 15 and 20 for ``alpha, beta``), then 3-point grids per
    parameter around the best, the step halved each round
    (:data:`_REFINE_ROUNDS` rounds: to about 0.02-0.1 degrees).  ``distance``: the relative feature misfit
    ``sqrt(min ||F - lam G||^2 / ||F||^2)`` (features are quadratic in
    ``a, b``: about twice the relative misfit of the entries); ``params``:
    canonical representatives in degrees (``nu`` of ``z_nu * z_syn`` in
    [0, 30], of a lone ``z_nu`` in [0, 90]; ``xi`` of ``z_nu=i * z_xi`` in
    [0, 90); ``alpha, beta`` of ``z_nu=i * z_syn,ab`` modulo 90).  The special
    cases are points of their families (``z_nu=i * z_syn`` is ``z_nu * z_syn``
    at ``nu = 90`` degrees, 30 after folding, and ``z_nu=i * z_syn,ab`` at 0, 0);
    ties go to the family listed first.
    """
    import itertools

    x = np.stack([np.asarray(v, dtype=np.complex128).reshape(-1) for v in (a, b, c)])
    q = x.shape[1]
    forms = {q_: [(typ, nf.model, nf.params, nf.step, nf.period, nf.fold) for typ, nf in v]
             for q_, v in _cat.nearest_forms().items()}
    none = {"type": None, "distance": None, "params": [], "method": "none"}
    if q not in forms or not np.all(np.isfinite(x)):
        return none
    ab, bb, cb, _ = balance_gauge(*x)
    F = node_features(ab, bb, cb)
    F = F[canonical_node_order(F / np.cbrt(max(float(np.abs(ab * bb * cb).mean()), 1e-300)))]  # order-free
    fn = float((np.abs(F) ** 2).sum())
    if fn == 0:
        return none
    best = None
    for typ, model, names, step, period, fold in forms[q]:
        cand, G = _coarse_models(typ, model, step, period)
        memo: dict = {}
        perms = None
        for _ in range(_REFINE_ROUNDS):
            r, per_perm = _feature_misfit(F, G, perms)
            # ties (symmetric blocks fit many node orders and parameters equally) are read to 1e-9, so float
            # noise does not pick among them; the stable order then decides
            per_perm = np.round(per_perm / fn, 9)
            if perms is None:  # the refinement keeps the node orders that fit best on the coarse grid
                perms = _PERMS[q][np.argsort(per_perm, kind="stable")[:_KEEP_ORDERS]]
            else:
                perms = perms[np.argsort(per_perm, kind="stable")]
            i = int(np.argmin(np.round(r / fn, 9)))
            t0, r0 = cand[i], float(r[i])
            step /= 2.0
            cand = np.array(list(itertools.product(*[t + np.arange(-1, 2) * step for t in t0])))
            G = _models(model, cand, memo)
        d = math.sqrt(r0 / fn)
        if best is None or d < best[1] - 1e-12:
            best = (typ, d, {n: round(v, 3) + 0.0 for n, v in zip(names, fold(tuple(t0)))})
    typ, d, params = best
    return {"type": typ, "distance": d, "params": [{"degrees": params}], "method": "direct fit"}


def _classify_block(a: Any, b: Any, c: Any, k: int = 0, k_coords: tuple = (), nodes: Sequence[int] | None = None,
                    settings: Settings | None = None, self_conjugate: bool = False,
                    mixed_nodes: int = 0, kind: str | None = None, dtype: str = "float64") -> BlockReport:
    """Factor, name and check one block ``(a, b, c)`` (SPEC 6, 8.4-8.6); the values are those at frequency ``k``.

    ``kind`` (``"generic"``, ``"quarter"``, ``"self-conjugate"``; see
    :func:`cogo.analysis.blocks.block_kind`) selects the conditions of SPEC 6;
    ``self_conjugate=True`` is the same as ``kind="self-conjugate"``.
    """
    st = settings or Settings()
    kind = kind or ("self-conjugate" if self_conjugate else "generic")
    self_conjugate = kind == "self-conjugate"
    a, b, c = (np.asarray(v, dtype=np.complex128).reshape(-1) for v in (a, b, c))
    q = len(a)
    sums = block_sums(a, b, c) if q else {k_: 0j for k_ in list(MONOMIALS) + ["|a|^2 c + |b|^2 c"]}
    r = complex(np.sum(a * b * c))
    residuals = block_conditions(a, b, c, kind=kind) if q else {}
    rep = BlockReport(k=int(k), k_coords=tuple(k_coords), order=q, nodes=list(nodes if nodes is not None else range(q)),
                      type="non-factorable", factors=[], error=None, shape=None, factorable=False,
                      optimal=False, failed_conditions=list(CONDITIONS),
                      r_kkk=r, sums=sums, mixed_nodes=int(mixed_nodes), self_conjugate=bool(self_conjugate),
                      kind=kind, residuals=residuals)
    _read_block(rep, a, b, c, st)
    _optimality_flag(rep, a, b, c, st, dtype)
    return rep


def _optimality_flag(rep: BlockReport, a: np.ndarray, b: np.ndarray, c: np.ndarray, st: Settings, dtype: str) -> None:
    """Set ``optimal``, ``failed_conditions`` and ``opt_tol`` of a read block (module docstring, step 8).

    The tolerance is ``settings.opt_tol`` when given, else
    :func:`cogo.analysis.optimality.block_tolerance` of the block's scale, the
    error of its reported reading (the grid's reconstruction error and its
    factors' naming residuals; 0 for a block with no reading) and the weights'
    dtype: a block is optimal on its own only as far as its own fit and the
    rounding of its weights can explain its residuals.
    """
    from cogo.analysis.optimality import block_scale, block_tolerance

    if not rep.order:
        return
    if st.opt_tol is not None:
        tol = float(st.opt_tol)
    else:
        fit = max([rep.error or 0.0] + [f["residual"] for f in rep.factors if f.get("residual") is not None]) \
            if rep.factors else 0.0
        tol = block_tolerance(block_scale(a, b, c), fit, dtype)
    rep.opt_tol = tol
    rep.failed_conditions = [name for name in CONDITIONS if rep.residuals[name] > tol]
    rep.optimal = not rep.failed_conditions


def _read_block(rep: BlockReport, a: np.ndarray, b: np.ndarray, c: np.ndarray, st: Settings) -> None:
    """Factor and name a block (SPEC 8.4-8.6): fills ``type``, ``factors``, ``error``, ``shape``, ``grid`` of ``rep``."""
    q = rep.order
    if st.preset == "paper" and q:
        # the reference divides every node by (a_j b_j c_j)^(1/3) before factoring (SPEC 8.4), so unequal
        # node amplitudes are not seen; here by the modulus only (a complex cube root would pick branches)
        amp = np.cbrt(np.abs(a * b * c))
        amp = np.where(amp > 0, amp, 1.0)
        a, b, c = a / amp, b / amp, c / amp
    if q in (2, 3):
        ab_, bb_, cb_, _ = balance_gauge(a, b, c)
        x = np.stack([ab_, bb_, cb_])
        if np.all(np.abs(x[:, 0]) > 0):
            u = x / x[:, :1]
            nf = name_factor(u, None, st.name_tol, st.preset == "paper")
            rep.abc_scale = complex(np.prod(x[:, 0]))
            if nf.name != "unknown":
                rep.type = nf.name
                rep.factors = [_factor_dict(nf.name, nf.params, nf.residual, u)]
        return
    if q < 4:
        return
    bf: BlockFactorization = factor_block(a, b, c, tol=st.factor_tol)
    rep.error = bf.min_error
    rep.search_note = bf.skipped
    exact = bf.exact
    if not exact:
        best = bf.best
        if best is not None:
            rep.shape = tuple(best.shape)
        return
    # A coarser grid that fits exactly wins over a finer one that fits only within tolerance: the
    # eligible shapes fit within EXACT_RATIO times the best error plus EXACT_SLACK (noise of the
    # finer fit); among them the finest, and among its grids the best-named one.
    e_min = min(f.error for f in exact)
    eligible = [f for f in exact if f.error <= EXACT_RATIO * e_min + EXACT_SLACK]
    finest = max(len(f.shape) for f in eligible)
    # every eligible grid of the finest shape is named and the choice is canonical (docs/analysis.md, "Canonical
    # answers"): most factors named, a SPEC 7 family, most special cases (z_nu=i, z_syn: the documented
    # precedence), then the smaller error read to 1e-9, then the canonical key of the factorization; so the same
    # block gets the same type whichever of its equal grids the search listed first
    chosen = None
    for fz in eligible:
        if len(fz.shape) != finest:
            continue
        typ, facs, fam, n_named = _name_factorization(fz, st.name_tol, st.preset == "paper")
        n_special = sum(1 for f in facs if _cat.is_special(f["name"]))
        score = (-n_named, not fam, -n_special) + fz.sort_key
        if chosen is None or score < chosen[0]:
            chosen = (score, fz, typ, facs)
    _, fz, typ, facs = chosen
    # factors listed as the type names them (by size, then the name order of the module docstring; equal names
    # keep their canonical order), the grid's axes with them
    order = sorted(range(len(facs)), key=lambda i: (fz.shape[i], _cat.rank(facs[i]["name"]), i))
    facs = [facs[i] for i in order]
    rep.type = typ
    rep.factors = facs
    rep.error = fz.error
    rep.shape = tuple(fz.shape[i] for i in order)
    rep.factorable = True
    rep.abc_scale = fz.abc_scale
    grid_nodes = np.asarray(rep.nodes)[np.transpose(fz.grid, order)]
    rep.grid = grid_nodes.tolist()


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def read_network(Wa: Any, Wb: Any, Wc: Any, group: Any = None, settings: Settings | None = None,
                 path: str = "", meta: dict | None = None, with_verdict: bool = True,
                 dtype: str | None = None) -> NetworkReport:
    """Analyse a 2-layer quadratic network from its real weights (SPEC 8; steps in the module docstring).

    ``Wa``, ``Wb``: (q, n_G); ``Wc``: (n_G, q); numpy arrays or torch tensors.

    Returns
    -------
    NetworkReport
        The network's blocks, each read (:func:`classify_block`), its verdict (SPEC 5) and the frequency summary.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F46
    >>> Wa, Wb, Wc = z_F46(7).to_weights(real=True)    # z_F4/6 (SPEC 7.3) in real space
    >>> rep = read_network(Wa, Wb, Wc, group=7)
    >>> [(b.k, b.order, b.type) for b in rep.blocks]
    [(1, 6, 'z_nu * z_syn'), (2, 4, 'z_nu=i * z_xi'), (3, 4, 'z_nu=i * z_xi')]
    """
    import time

    from cogo.io.weights import inert_nodes

    t0 = time.perf_counter()
    st = (settings or Settings()).validate()
    from cogo.analysis.optimality import weights_dtype

    dtype = dtype or weights_dtype(Wa, Wb, Wc)  # the file's dtype when read from one (Checkpoint.dtype)
    # nodes that contribute exactly nothing (zero inputs, or zero outputs) are dead under every rule: they are
    # dropped before the Fourier transform (3 x n x q complex) and the verdict, and reported as dead below
    hidden = int(np.shape(Wa)[0])
    W0 = (Wa, Wb, Wc)  # every node: the distance to the snapped optimizer counts the dropped ones too
    inert = inert_nodes(Wa, Wb, Wc, keep_inputs=st.dead_threshold == 0.0)
    keep = np.flatnonzero(~inert)
    if len(keep) < hidden:
        Wa, Wb, Wc = Wa[keep], Wb[keep], Wc[:, keep]
    net = Network.from_weights(Wa, Wb, Wc, group)
    G = net.group
    split = extract_blocks(net, dead_threshold=st.dead_threshold, mix_threshold=st.mix_threshold)
    blocks = [classify_block(bl.a, bl.b, bl.c, k=bl.k, k_coords=bl.k_coords, nodes=keep[bl.nodes].tolist(),
                             settings=st, kind=bl.kind, mixed_nodes=int(bl.mixed.sum()), dtype=dtype)
              for bl in split.blocks]
    verdict = None
    if with_verdict:
        from cogo.analysis.optimality import network_verdict

        verdict = network_verdict(net, Wa=Wa, Wb=Wb, Wc=Wc, group=G, tol=st.opt_tol, split=split, dtype=dtype)
        verdict.hidden = hidden
        if not len(keep):
            verdict.notes.insert(0, f"no live node: all {hidden} hidden nodes contribute exactly nothing")
    node_frequency = np.full(hidden, -1, dtype=np.int64)
    node_frequency[keep] = split.node_frequency
    rep = NetworkReport(group=G, hidden=hidden, live_nodes=split.live_nodes, dead_nodes=hidden - split.live_nodes,
                        zero_frequency_nodes=split.zero_frequency_nodes, mixed_nodes=split.mixed_nodes,
                        node_frequency=node_frequency.tolist(), blocks=blocks, settings=st, path=str(path),
                        meta=dict(meta or {}), seconds=time.perf_counter() - t0, verdict=verdict)
    if with_verdict:  # the nearest certified optimizer: each block's distance (what verify --checkpoint reports)
        from cogo.analysis.snap import attach_snap

        attach_snap(rep, *W0)
        rep.seconds = time.perf_counter() - t0
    return rep


_META_KEYS = ("seed", "weight_decay", "hidden", "lr", "epochs", "optimizer", "loss", "construction", "name",
              "layout", "activation")


def _plain_meta(meta: dict) -> dict:
    out = {}
    for k in _META_KEYS:
        v = meta.get(k)
        if isinstance(v, (bool, int, float, str)) and not (isinstance(v, float) and not math.isfinite(v)):
            out[k] = v
    fin = meta.get("final")
    if isinstance(fin, dict):
        out["final"] = {k: v for k, v in fin.items()
                        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)}
    return out


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def classify_checkpoint(path: str | os.PathLike, group: Any = None,
                        settings: Settings | None = None) -> "NetworkReport | IrrepReport":
    """Load a checkpoint (``.pt`` reference layout or ``.npz``, weights only) and analyse it.

    Returns a :class:`NetworkReport` (the block reading, SPEC 8) for an Abelian
    group and a :class:`cogo.analysis.irreps.IrrepReport` (SPEC 9) otherwise;
    both are :class:`cogo.analysis.reading.Report`.

    Raises :class:`cogo.io.formats.CheckpointError` (a ValueError, one line)
    for a missing, malformed, hostile or inconsistent file.

    Returns
    -------
    NetworkReport or IrrepReport
        The reading of the network: per-frequency blocks for an Abelian group, irreducible
        representations otherwise (both honour :class:`cogo.analysis.reading.Reading`).

    Examples
    --------
    >>> import os, tempfile
    >>> from cogo.solvers.constructions import z_F6, to_checkpoint
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "f6.pt")
    ...     to_checkpoint(z_F6(5), path)
    ...     rep = classify_checkpoint(path)
    >>> str(rep.group), [b.type for b in rep.blocks]
    ('Z_5', ['z_nu * z_syn', 'z_nu * z_syn'])
    >>> classify_checkpoint("no_such_file.pt")
    Traceback (most recent call last):
    ...
    cogo.io.formats.CheckpointError: ...
    """
    from cogo.io.weights import load_weights
    from cogo.runtime.limits import classify_estimate

    w = load_weights(path, group=group, estimate=classify_estimate)  # a path, or a Checkpoint already read
    if w.group.abelian is None:  # irreps reading (SPEC 9); the catalogue needs Z_d1 x ... x Z_dn coordinates
        from cogo.analysis.irreps import read_irreps

        return read_irreps(w.Wa, w.Wb, w.Wc, w.group, dead_threshold=(settings or Settings()).dead_threshold,
                           path=str(path), meta=_plain_meta(w.meta))
    return read_network(w.Wa, w.Wb, w.Wc, w.group, settings=settings, path=str(path), meta=_plain_meta(w.meta),
                        dtype=w.dtype)


def _check_paths(paths: list, group: Any) -> None:
    """Refuse duplicates, and what cannot fit (:mod:`cogo.runtime.limits`) where a file's header tells its shapes.

    No array is read here: a file whose header cannot tell its shapes is checked when it is read
    (:func:`_load_one`), still before its arrays are; a :class:`cogo.io.checkpoint.Checkpoint` already
    read is used as it is.
    """
    from cogo.runtime.errors import CogoError
    from cogo.io.checkpoint import Checkpoint, header_shapes
    from cogo.runtime.limits import classify_estimate, require
    from cogo.io.outputs import same_file

    if not paths:
        raise ValueError("no checkpoint files given")
    for i, p in enumerate(paths):
        for p0 in paths[:i]:
            if same_file(p, p0):
                raise CogoError(f"{p} is given twice (as {p0}); each checkpoint may count only once")
    for p in paths:
        if not isinstance(p, Checkpoint) and isinstance(p, (str, os.PathLike)) and os.path.isfile(p):
            head = header_shapes(p, group=group)
            if head is not None:
                q_, n_ = head[0]
                require(classify_estimate(n_, q_))


def _load_one(path: Any, group: Any) -> Any:
    """One checkpoint read once (:class:`cogo.io.checkpoint.Checkpoint`), refused from its header if it cannot fit."""
    from cogo.io.weights import load_weights
    from cogo.runtime.limits import classify_estimate

    return load_weights(path, group=group, estimate=classify_estimate)


def _read_loaded(w: Any, p: Any, st: Settings) -> NetworkReport:
    """The block reading of one loaded checkpoint; overflowing float arithmetic is refused (one line)."""
    from cogo.runtime.errors import CogoError

    try:
        with np.errstate(over="raise"):
            return read_network(w.Wa, w.Wb, w.Wc, w.group, settings=st, path=str(p), meta=_plain_meta(w.meta),
                                dtype=w.dtype)
    except FloatingPointError as exc:
        raise CogoError(f"{p}: float64 arithmetic overflowed while reading the network ({exc}); "
                        "the weights are too large to analyse") from None


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def classify_many(paths: Sequence[str | os.PathLike], group: Any = None,
                  settings: Settings | None = None, progress: bool = False,
                  on_loaded: Any = None, workers: int = 1,
                  keep_weights: bool = True) -> "ClassifyResult | IrrepsResult":
    """Check every path, then load and analyse the checkpoints one at a time, and aggregate.

    Returns a :class:`ClassifyResult` (Abelian groups, SPEC 8) or a
    :class:`cogo.analysis.irreps.IrrepsResult` (SPEC 9): both implement
    :class:`cogo.analysis.reading.Reading`.

    Refused (CogoError, one line, before any output is written): the same
    file given twice (it would count twice in the error bars), checkpoints
    of different groups (their statistics are not comparable; classify each
    group separately), a checkpoint whose analysis would not fit in memory
    (:mod:`cogo.runtime.limits`; checked for every path before any array is read),
    and overflowing float arithmetic (an error, not a warning).
    ``progress``: a tqdm bar over the checkpoints.  ``on_loaded(loaded)``:
    called before any analysis with the loaded checkpoints that decide the
    reading (:class:`cogo.io.checkpoint.Checkpoint`; the first one for the
    block reading, whose group every other must share; all for the irreps
    reading), a command's last checks.  ``workers``: processes reading the
    checkpoints (:mod:`cogo.analysis.sweep`; 1: this process).
    ``keep_weights``: keep every network's weights in the result (for
    :func:`tolerance_curve`); False holds one network's weights at a time.

    Returns
    -------
    ClassifyResult or IrrepsResult
        The per-checkpoint readings and their aggregate with error bars (both honour
        :class:`cogo.analysis.reading.Report`).

    Examples
    --------
    >>> from cogo.solvers.constructions import to_checkpoint, z_F6
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "f6.pt")
    ...     to_checkpoint(z_F6(5), path)
    ...     result = classify_many([path])
    ...     classify_many([path, path])                 # the same file twice is refused
    Traceback (most recent call last):
    ...
    cogo.runtime.errors.CogoError: ... is given twice (as ...); each checkpoint may count only once
    >>> result.summary["checkpoints"], result.summary["order_counts"]
    (1, {'6': 2})
    """
    from cogo.analysis.sweep import Readers, read_many

    st = (settings or Settings()).validate()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    paths = list(paths)
    _check_paths(paths, group)
    return read_many(paths, group, st, Readers(_load_one, _read_loaded, _result, _irreps), progress=progress,
                     on_loaded=on_loaded, workers=workers, keep_weights=keep_weights)


def _result(reports: list, st: Settings, weights: list) -> "ClassifyResult":
    """The aggregate of block readings (:func:`summarize`)."""
    return ClassifyResult(reports=reports, summary=summarize(reports), settings=st, weights=weights)


def _irreps(loaded: list, paths: list, st: Settings) -> Any:
    """The irreps reading (SPEC 9) of loaded checkpoints of a group given by its Cayley table."""
    from cogo.analysis.irreps import irreps_checkpoints

    return irreps_checkpoints(loaded, paths, dead_threshold=st.dead_threshold, meta_filter=_plain_meta)


#: Tolerances of the tolerance curve (naming and factorization tolerance set together).
CURVE_TOLERANCES = (0.02, 0.035, 0.05, 0.075, 0.1, 0.15, 0.2)


def tolerance_curve(weights: Sequence[tuple], tolerances: Sequence[float] = CURVE_TOLERANCES,
                    settings: Settings | None = None) -> dict:
    """How the block types change with the tolerance: classify again at each ``t`` (``name_tol = factor_tol = t``).

    ``weights``: ``(Wa, Wb, Wc, group)`` per network (``ClassifyResult.weights``).
    Returns ``{"tolerances": [...], "types": {type: [mean fraction per t]},
    "paper_columns": {column: [mean fraction per t]}}``; fractions are of the
    factorable blocks (``types``) and of the factorable order-4/6 blocks
    (``paper_columns``), averaged over the networks.  Cost: one analysis per
    tolerance and network (no network verdict).

    Returns
    -------
    dict
        ``{"tolerances": [...], "types": {type: [mean fraction per t]}, "paper_columns": {column: [...]}}``.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F6
    >>> Wa, Wb, Wc = z_F6(5).to_weights(real=True)
    >>> curve = tolerance_curve([(Wa, Wb, Wc, 5)], tolerances=(0.05, 0.2))
    >>> curve["tolerances"], curve["types"], curve["paper_columns"]["nu*syn"]
    ([0.05, 0.2], {'z_nu * z_syn': [1.0, 1.0]}, [1.0, 1.0])
    """
    from dataclasses import replace

    st = settings or Settings()
    types: dict = {}
    cols: dict = {c: [] for c in _cat.PAPER_COLUMNS}
    tols = [float(t) for t in tolerances]
    for i, t in enumerate(tols):
        sti = replace(st, name_tol=t, factor_tol=t)
        reps = [read_network(Wa, Wb, Wc, g, settings=sti, with_verdict=False) for Wa, Wb, Wc, g in weights]
        sm = summarize(reps)
        for name, d in sm["type_distribution"].items():
            types.setdefault(name, [0.0] * len(tols))[i] = d["mean"] or 0.0
        for c in _cat.PAPER_COLUMNS:
            cols[c].append(sm["paper_columns"][c]["mean"])
    return {"tolerances": tols, "types": types, "paper_columns": cols}


# --------------------------------------------------------------------------- aggregation
def _mse(values: Sequence[float]) -> dict:
    """Mean and standard error (``std(ddof=1) / sqrt(n)``) over checkpoints; None where undefined."""
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=float)
    n = len(v)
    mean = float(v.mean()) if n else None
    se = float(v.std(ddof=1) / math.sqrt(n)) if n > 1 else None
    return {"mean": mean, "se": se, "n": n}


def _frac(num: int, den: int) -> float | None:
    return num / den if den else None


def summarize(reports: Sequence[NetworkReport]) -> dict:
    """Aggregate over checkpoints: each statistic is computed per checkpoint, then mean +- standard error.

    A per-checkpoint statistic that is undefined (e.g. no order-4 block) is
    left out of that statistic's mean; ``n`` says how many checkpoints count.

    Returns
    -------
    dict
        Each statistic's mean, standard error and per-checkpoint values.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F6, z_F46
    >>> reps = [read_network(*z.to_weights(real=True), group=7, with_verdict=False) for z in (z_F6(7), z_F46(7))]
    >>> s = summarize(reps)
    >>> s["checkpoints"], s["order_counts"], s["live_nodes"]["mean"]
    (2, {'4': 2, '6': 4}, 16.0)
    >>> round(s["frac_blocks_optimal"]["mean"], 9)     # per checkpoint 3/3 and 1/3, then the mean
    0.666666667
    """
    per = []
    types: set = set()
    for r in reports:
        bl = r.blocks
        o4 = [b for b in bl if b.order == 4]
        o6 = [b for b in bl if b.order == 6]
        fact = [b for b in bl if b.factorable]
        counts: dict = {}
        for b in fact:
            counts[b.type] = counts.get(b.type, 0) + 1
        types.update(counts)
        per.append({
            "blocks": len(bl),
            "not_4_or_6": _frac(sum(1 for b in bl if b.order not in (4, 6)), len(bl)),
            "nonfact_4": _frac(sum(1 for b in o4 if not b.factorable), len(o4)),
            "nonfact_6": _frac(sum(1 for b in o6 if not b.factorable), len(o6)),
            "err_4": float(np.mean([b.error for b in o4 if b.error is not None])) if any(
                b.error is not None for b in o4) else None,
            "err_6": float(np.mean([b.error for b in o6 if b.error is not None])) if any(
                b.error is not None for b in o6) else None,
            "optimal": _frac(sum(1 for b in bl if b.optimal), len(bl)),
            "types": {t: c / len(fact) for t, c in counts.items()} if fact else None,
            "live": r.live_nodes,
            "paper": _paper_columns(bl),
        })
    orders: dict = {}
    for r in reports:
        for b in r.blocks:
            orders[b.order] = orders.get(b.order, 0) + 1
    known = _cat.block_types()
    type_order = [t for t in known if t in types] + sorted(types - set(known))
    return {
        "checkpoints": len(reports),
        "blocks": int(sum(p["blocks"] for p in per)),
        "order_counts": {str(k): v for k, v in sorted(orders.items())},
        "live_nodes": _mse([p["live"] for p in per]),
        "frac_blocks_not_order_4_or_6": _mse([p["not_4_or_6"] for p in per]),
        "frac_nonfactorable_order_4": _mse([p["nonfact_4"] for p in per]),
        "frac_nonfactorable_order_6": _mse([p["nonfact_6"] for p in per]),
        "mean_error_order_4": _mse([p["err_4"] for p in per]),
        "mean_error_order_6": _mse([p["err_6"] for p in per]),
        "frac_blocks_optimal": _mse([p["optimal"] for p in per]),
        "type_distribution": {t: _mse([(p["types"] or {}).get(t, 0.0) if p["types"] is not None else None
                                       for p in per]) for t in type_order},
        "paper_columns": {c: _mse([p["paper"][c] if p["paper"] is not None else None for p in per])
                          for c in _cat.PAPER_COLUMNS},
    }


def paper_column(b: "BlockReport") -> str | None:
    """The reference's column of a block (None: not counted, i.e. order not 4 or 6, or not factorable).

    ``nu=i*xi``: ``z_nu=i * z_xi``; ``nu=i*syn_ab``: ``z_nu=i * z_syn,ab`` and
    ``z_nu=i * z_syn`` (a ``z_nu * z_syn`` block whose 2-factor is the special
    case ``z_nu=i``: the reference counts it here); ``nu*syn``: the other
    ``z_nu * z_syn`` blocks; ``others``: every other factorable block.

    Returns
    -------
    str or None
        ``'nu=i*xi'``, ``'nu=i*syn_ab'``, ``'nu*syn'`` or ``'others'``; None when the block is not counted.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F46
    >>> rep = read_network(*z_F46(7).to_weights(real=True), group=7, with_verdict=False)
    >>> [paper_column(b) for b in rep.blocks]
    ['nu*syn', 'nu=i*xi', 'nu=i*xi']
    """

    if b.order not in (4, 6) or not b.factorable:
        return None
    return _cat.paper_column(b.type, [f["name"] for f in b.factors])


def _paper_columns(blocks: Sequence["BlockReport"]) -> dict | None:
    cols = [paper_column(b) for b in blocks]
    cols = [c for c in cols if c is not None]
    if not cols:
        return None
    return {c: cols.count(c) / len(cols) for c in _cat.PAPER_COLUMNS}
