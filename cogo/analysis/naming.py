"""Naming a block against the catalogue: its factors, its type (SPEC 7, 8.6).

A block read as a Kronecker product (:mod:`cogo.analysis.factor.factorization`) is named factor by factor
(:func:`name_factor`) and then as a whole (:func:`name_block`): the type of the block, its named
factors and the grid they sit on.  The forms, their fits, canonical representatives, special cases
and the named products are the records of :mod:`cogo.catalogue` (the one registry); this module
loops over it.

Naming factors against the catalogue (SPEC 7)
---------------------------------------------
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

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] H. W. Kuhn, "The Hungarian method for the assignment problem", Naval Research Logistics Quarterly 2, 1955.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from cogo import catalogue as _cat
from cogo.analysis.factor.assignment import linear_assignment
from cogo.analysis.factor.factorization import factor_blocks
from cogo.analysis.factor.kronecker import BlockFactorization, Factorization, balance_gauge, kron_vectors, node_features
from cogo.analysis.report.network_report import BlockReport

__all__ = ["NAME_TOL", "EXACT_RATIO", "EXACT_SLACK", "FactorName", "stabilizer", "stabilizers", "name_factor", "name_block", "name_blocks"]

#: RMS deviation per entry up to which a factor matches a catalogue form.
NAME_TOL = 0.05
#: A finer grid is preferred only if its error is at most EXACT_RATIO * (best error) + EXACT_SLACK.
EXACT_RATIO = 2.0
EXACT_SLACK = 0.005


def _specific(name: str) -> int:
    """0 for a special case (``z_nu=i``, ``z_syn``), 1 for a general form: the naming precedence."""
    return 0 if _cat.is_special(name) else 1


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
    ``tol``.  Always contains ``(1, 1, 1)``.  :func:`stabilizers` gives those of many ``V`` at once.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.exp(2j * np.pi / 3)
    >>> S = stabilizer(np.array([[1, w, w * w]] * 3))   # z_syn: multiplying by w permutes its nodes
    >>> S.shape, bool(np.allclose(S ** 3, 1))
    ((3, 3), True)
    """
    return stabilizers([V], tol)[0]


def stabilizers(Vs: Sequence[np.ndarray], tol: float = 0.05) -> list[np.ndarray]:
    """:func:`stabilizer` of every ``V`` (3, n) of ``Vs``: the distances of every ``V`` of one node count at once."""
    out: list = [None] * len(Vs)
    by_n: dict = {}
    for i, V in enumerate(Vs):
        V = np.asarray(V, dtype=np.complex128)
        if V.shape[1] <= 1 or np.any(V[:, 0] == 0):
            out[i] = np.ones((1, 3), dtype=np.complex128)
        else:
            by_n.setdefault(V.shape[1], []).append((i, V))
    for n, items in by_n.items():
        V = np.stack([v for _, v in items])                                     # (B, 3, n)
        F = node_features(V[:, 0], V[:, 1], V[:, 2])                            # (B, n, 4)
        lams = (V[:, :, 1:] / V[:, :, :1]).transpose(0, 2, 1)                   # (B, n - 1, 3): every candidate
        lf = np.stack([lams[..., 0] ** 2, lams[..., 0] * lams[..., 1], lams[..., 1] ** 2, lams[..., 2]], axis=-1)
        G = F[:, None] * lf[:, :, None, :]                                      # (B, n - 1, n, 4)
        D = (np.linalg.norm(G[:, :, :, None, :] - F[:, None, None, :, :], axis=-1)
             / np.maximum(np.linalg.norm(G, axis=-1), 1e-300)[..., None])       # (B, n - 1, n, n)
        near = D <= tol
        # every node of lam V has a partner within tol, and every node of V is one: else no matching can pass
        ok = near.any(axis=-2).all(axis=-1) & near.any(axis=-1).all(axis=-1)
        # lam V = V as a multiset: an optimal one-to-one matching (Hungarian), every pair within tol.  (Nearest
        # partners were not one-to-one when V repeats a node -- z_nu * z_nu with equal nu -- and float noise
        # decided which copy was nearest, so the stabilizer, and the names, changed with node order.)
        R = np.round(D, 9)
        rows = np.arange(n)
        # linear_assignment's shortcut for every matrix at once: each row's minimum strict and in its own column
        best = R.argmin(axis=-1)
        short = np.isfinite(R).all(axis=(-2, -1))
        if n > 1:
            part, cols = np.partition(R, 1, axis=-1), np.sort(best, axis=-1)
            short &= (part[..., 0] < part[..., 1]).all(axis=-1) & (cols[..., 1:] != cols[..., :-1]).all(axis=-1)
        for b, (i, _) in enumerate(items):
            keep = [np.ones(3, dtype=np.complex128)]
            for j in np.flatnonzero(ok[b]).tolist():
                col = best[b, j] if short[b, j] else linear_assignment(R[b, j])
                if (D[b, j][rows, col] <= tol).all():
                    keep.append(lams[b, j])
            out[i] = np.stack(keep)
    return out


def _variants_2(u: np.ndarray, stab: np.ndarray) -> np.ndarray:
    """Second-node values ``(x, y, z)`` of every transformed version of a 2-node factor: (N, 3)."""
    n1 = u[:, 1] / u[:, 0]
    base = np.stack([n1, 1.0 / n1])  # keep or swap the nodes
    sg = np.array([[1, 1, 1], [-1, -1, 1]])
    v = base[:, None, None, :] * sg[None, :, None, :] * stab[None, None, :, :]
    return v.reshape(-1, 3)


_V3_FGH = np.array([(f, g, h) for f in range(3) for g, h in ((0, 1), (0, 2), (1, 2), (1, 0), (2, 0), (2, 1))
                    if f not in (g, h)], dtype=np.int64).T   # (3, 6): the base node f and the next two, g and h
_SIGNS = np.array([[1, 1, 1], [-1, -1, 1]])


def _variants_3(u: np.ndarray, stab: np.ndarray) -> np.ndarray:
    """Nodes 1, 2 of every transformed version of a 3-node factor: (N, 2, 3).

    Every base node ``f`` with the other two in either order (6), times a sign gauge and a partner-stabilizer
    multiplier per node (``(2 S)^2``), in that nesting (signs of node 1, of node 2, multipliers of node 1, of node 2).
    """
    f, g, h = _V3_FGH
    base = np.stack([(u[:, g] / u[:, f]).T, (u[:, h] / u[:, f]).T], axis=1)              # (6, 2, 3)
    S = len(stab)
    A = _SIGNS[:, None, :] * stab[None, :, :]                                           # (2, S, 3): sign s, stab l
    first = np.broadcast_to(A[:, None, :, None, :], (2, 2, S, S, 3))
    second = np.broadcast_to(A[None, :, None, :, :], (2, 2, S, S, 3))
    mult = np.stack([first, second], axis=-2).reshape(-1, 2, 3)                        # (4 S^2, 2, 3)
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


def _fits_many(requests: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[dict]:
    """:func:`_fits` of many factors ``(u, stab)`` at once: per node count, each family fits every disguise in one call.

    The rows of each factor are taken back out of the family's runs (:class:`cogo.catalogue.Family`,
    ``fit``), so every factor gets the residuals and parameters :func:`_fits` gives it alone.
    """
    out: list = [None] * len(requests)
    for m, variants in ((2, _variants_2), (3, _variants_3)):
        idx = [i for i, (u, _) in enumerate(requests) if u.shape[1] == m]
        if not idx:
            continue
        Vs = [variants(*requests[i]) for i in idx]
        starts = np.cumsum([0] + [len(V) for V in Vs])
        N = int(starts[-1])
        V = np.concatenate(Vs)
        for i in idx:
            out[i] = {}
        for fam in _cat.fit_order(m):
            res, params = fam.fit(V)
            res = np.asarray(res)
            runs, left = divmod(len(res), N)
            if left or runs < 1:
                raise ValueError(f"{fam.name}.fit returned {len(res)} residuals for {N} rows: not runs of {N} "
                                 "(cogo.catalogue.Family, fit)")
            for r, i in enumerate(idx):
                rows = np.concatenate([np.arange(h * N + starts[r], h * N + starts[r + 1]) for h in range(runs)])
                take = params.take(rows) if isinstance(params, _cat.RowParams) else [params[j] for j in rows]
                out[i][fam.name] = (fam, res[rows], take)
    return out


def name_factor(vectors: Any, partner: Any = None, tol: float = NAME_TOL,
                special_within_tol: bool = False, fits: dict | None = None) -> FactorName:
    """Name a normalized factor (3, m) against the catalogue of SPEC 7 (see the module docstring).

    ``special_within_tol``: name a special case (``z_nu=i``, ``z_syn``)
    whenever it fits within ``tol`` (the reference's rule, ``--preset paper``);
    by default it must also fit about as well as its general form.

    ``partner`` is the product of the block's other factors, shape (3, n),
    whose stabilizer may move this factor's nodes; None for a lone factor.
    ``fits``: the fits of this factor's disguises already computed (:func:`_naming_request`,
    :func:`_fits_many`; what :func:`name_blocks` does for a whole network).

    Examples
    --------
    >>> import numpy as np
    >>> w = np.exp(2j * np.pi / 3)
    >>> f = name_factor(np.array([[1, w, w * w]] * 3))  # z_syn of SPEC 7
    >>> f.name, round(f.residual, 9)
    ('z_syn', 0.0)
    """
    u = np.asarray(vectors, dtype=np.complex128)
    if fits is None:
        req = _naming_request(u, partner)
        if req is None:
            return FactorName("unknown", {}, None, u)
        fits = _fits(*req)
    alts = []
    closest = ("unknown", math.inf)
    fitted = {}
    for name, (fam, res, params) in fits.items():
        res = np.asarray(res, dtype=float)
        if not np.isfinite(res).all():
            res = np.nan_to_num(res, nan=np.inf)
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


def _naming_request(vectors: Any, partner: Any = None) -> tuple[np.ndarray, np.ndarray] | None:
    """``(u, stab)``: the factor and its partner's stabilizer (on the unit circle), or None when it cannot be named."""
    return _naming_requests([(vectors, partner)])[0]


def _naming_requests(pairs: Sequence[tuple]) -> list:
    """:func:`_naming_request` of every ``(vectors, partner)`` of ``pairs``, the stabilizers all at once."""
    out: list = []
    partners, at = [], []
    for vectors, partner in pairs:
        u = np.asarray(vectors, dtype=np.complex128)
        if u.ndim != 2 or u.shape[0] != 3:
            raise ValueError(f"a factor is an array of shape (3, m), got {u.shape}")
        m = u.shape[1]
        if m not in (2, 3) or np.any(np.abs(u) < 1e-12) or not np.all(np.isfinite(u)):
            out.append(None)
            continue
        out.append([u, np.ones((1, 3), dtype=np.complex128)])
        if partner is not None:
            partners.append(partner)
            at.append(len(out) - 1)
    for i, stab in zip(at, stabilizers(partners)):
        out[i][1] = stab
    # catalogue stabilizers are roots of unity; noise must not bias the unit-circle fits
    return [None if r is None else (r[0], r[1] / np.abs(r[1])) for r in out]


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


def _factor_dict(name: str, params: dict, residual, vectors: np.ndarray, closest=None, fitted=None) -> dict:
    """A factor of a block report; ``fitted``: :attr:`FactorName.fitted` (a special case then records its general
    form's residual as ``general_residual``: its ``params`` are that form's)."""
    d = {"name": name, "params": dict(params), "residual": residual, "vectors": np.asarray(vectors)}
    if _cat.is_special(name):
        d["special"] = name  # a flag: params hold the fitted general-form values
        general = (fitted or {}).get(_cat.general_of(name) or "", {}).get("residual")
        if general is not None:
            d["general_residual"] = float(general)
    if name == "unknown" and closest is not None:
        d["closest"] = {"name": closest[0], "residual": float(closest[1])}
    return d


def _factor_requests(fz: Factorization) -> list:
    """Per factor of ``fz``: ``(vectors, partner)`` (the product of the other factors; None for a lone factor)."""
    vecs = [f.vectors for f in fz.factors]
    out = []
    for i, v in enumerate(vecs):
        others = [w for j, w in enumerate(vecs) if j != i]
        out.append((v, kron_vectors(others) if others else None))
    return out


def _name_factorization(fz: Factorization, tol: float, special_within_tol: bool = False,
                        fits: Sequence | None = None) -> tuple[str, list, bool, int]:
    """Name every factor of a factorization; returns (type, factor dicts, family?, number named).

    ``fits``: per factor, its fits already computed (None for a factor that cannot be named), as
    :func:`name_blocks` gives them; else each factor is fitted here.
    """
    if fits is None:
        named = [name_factor(v, partner, tol, special_within_tol) for v, partner in _factor_requests(fz)]
    else:  # a factor without fits cannot be named (_naming_request)
        named = [name_factor(f.vectors, None, tol, special_within_tol, fits=ft) if ft is not None
                 else FactorName("unknown", {}, None, np.asarray(f.vectors, dtype=np.complex128))
                 for f, ft in zip(fz.factors, fits)]
    typ, picks, fam = _choose_names(named)
    facs = [_factor_dict(n, p, r, f.vectors, f.closest, f.fitted) for (n, p, r), f in zip(picks, named)]
    n_named = sum(1 for n, _, _ in picks if n != "unknown")
    return typ, facs, fam, n_named


def name_block(rep: BlockReport, a: np.ndarray, b: np.ndarray, c: np.ndarray, st: Any) -> None:
    """Factor and name a block (SPEC 8.4-8.6): fills ``type``, ``factors``, ``error``, ``shape``, ``grid`` of ``rep``.

    ``st``: the :class:`cogo.analysis.classify.Settings` of the reading (``factor_tol``, ``name_tol``,
    ``preset``).  A grid that fits within ``factor_tol`` is kept when its error is at most
    :data:`EXACT_RATIO` times the best error plus :data:`EXACT_SLACK`; the finest such shape wins.
    """
    name_blocks([(rep, a, b, c)], st)


def name_blocks(items: Sequence[tuple], st: Any) -> None:
    """:func:`name_block` of every ``(rep, a, b, c)`` in ``items``, the catalogue fits of all their factors at once.

    Each block is factored on its own; the disguises of every factor of every grid to name are then fitted
    in one call per family (:func:`_fits_many`), and each block is named from its own fits: the same
    answer as :func:`name_block` one block at a time, with a few numpy calls per network instead of per
    factor (a network at d = 127 has 63 blocks).
    """
    items_in = [(rep,) + _as_read(a, b, c, st) for rep, a, b, c in items]
    at = [i for i, it in enumerate(items_in) if it[0].order >= 4]
    bfs = dict(zip(at, factor_blocks([items_in[i][1:] for i in at], tol=st.factor_tol)))
    plans = [_plan_block(rep, a, b, c, st, bfs.get(i)) for i, (rep, a, b, c) in enumerate(items_in)]
    grids = [grid for plan in plans for grid in plan or ()]
    made = iter(_naming_requests([pair for grid in grids for pair in grid[1]]))
    reqs, slots = [], []
    for grid in grids:
        grid[1] = [next(made) for _ in grid[1]]
        for j, r in enumerate(grid[1]):
            if r is not None:
                slots.append((grid[2], j))
                reqs.append(r)
    for (fits, j), f in zip(slots, _fits_many(reqs)):
        fits[j] = f
    for (rep, _, _, _), plan in zip(items, plans):
        if plan is not None:
            _finish_block(rep, plan, st)


def _as_read(a: np.ndarray, b: np.ndarray, c: np.ndarray, st: Any) -> tuple:
    """The block's nodes as they are factored and named: as given, or under ``preset="paper"`` each divided by
    its amplitude."""
    if st.preset == "paper" and len(a):
        # the reference divides every node by (a_j b_j c_j)^(1/3) before factoring (SPEC 8.4), so unequal
        # node amplitudes are not seen; here by the modulus only (a complex cube root would pick branches)
        amp = np.cbrt(np.abs(a * b * c))
        amp = np.where(amp > 0, amp, 1.0)
        a, b, c = a / amp, b / amp, c / amp
    return a, b, c


def _plan_block(rep: BlockReport, a: np.ndarray, b: np.ndarray, c: np.ndarray, st: Any,
                bf: BlockFactorization | None) -> list | None:
    """The block factored (:func:`name_block`'s first half): the grids to name, as ``[fz, requests, fits]``.

    ``a``, ``b``, ``c``: the nodes as read (:func:`_as_read`); ``bf``: their
    :func:`cogo.analysis.factor.factorization.factor_block` (order 4 and up; read with the other blocks').  None when
    the block is already read (order 2 or 3, named here; order below 4; no exact grid).  The requests are
    ``(vectors, partner)`` per factor until :func:`name_blocks` makes them (:func:`_naming_requests`).
    """
    q = rep.order
    if q in (2, 3):
        ab_, bb_, cb_, _ = balance_gauge(a, b, c)
        x = np.stack([ab_, bb_, cb_])
        if np.all(np.abs(x[:, 0]) > 0):
            u = x / x[:, :1]
            nf = name_factor(u, None, st.name_tol, st.preset == "paper")
            rep.abc_scale = complex(np.prod(x[:, 0]))
            if nf.name != "unknown":
                rep.type = nf.name
                rep.factors = [_factor_dict(nf.name, nf.params, nf.residual, u, fitted=nf.fitted)]
        return None
    if q < 4:
        return None
    rep.error = bf.min_error
    rep.search_note = bf.skipped
    exact = bf.exact
    if not exact:
        best = bf.best
        if best is not None:
            rep.shape = tuple(best.shape)
        return None
    # A coarser grid that fits exactly wins over a finer one that fits only within tolerance: the
    # eligible shapes fit within EXACT_RATIO times the best error plus EXACT_SLACK (noise of the
    # finer fit); among them the finest, and among its grids the best-named one.
    e_min = min(f.error for f in exact)
    eligible = [f for f in exact if f.error <= EXACT_RATIO * e_min + EXACT_SLACK]
    finest = max(len(f.shape) for f in eligible)
    plan = []
    for fz in eligible:
        if len(fz.shape) == finest:
            reqs = _factor_requests(fz)  # (vectors, partner): made naming requests for the whole network at once
            plan.append([fz, reqs, [None] * len(reqs)])
    return plan


def _finish_block(rep: BlockReport, plan: list, st: Any) -> None:
    """:func:`name_block`'s second half: name the planned grids from their fits and keep the canonical choice."""
    # every eligible grid of the finest shape is named and the choice is canonical (docs/analysis.md, "Canonical
    # answers"): most factors named, a SPEC 7 family, most special cases (z_nu=i, z_syn: the documented
    # precedence), then the smaller error read to 1e-9, then the canonical key of the factorization; so the same
    # block gets the same type whichever of its equal grids the search listed first
    chosen = None
    for fz, _, fits in plan:
        typ, facs, fam, n_named = _name_factorization(fz, st.name_tol, st.preset == "paper", fits)
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
