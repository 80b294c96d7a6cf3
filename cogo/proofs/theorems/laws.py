"""Theorems 1-2 (SPEC 3-4): networks form a semiring, and the potentials are ring homomorphisms.

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
from cogo.algebra.potentials import potential, potentials, self_potentials
from cogo.algebra.group_parsing import as_group
from cogo.proofs.certificates.formal import Formal, FormalVariables, formal_network
from cogo.proofs.results import NUM_TOL, TheoremResult, Timer, check_method, make_result
from cogo.proofs.certificates.exact_zero import is_zero_proven as is_zero_exact  # exact, undecided is not zero (cogo.proofs.certificates.exact_zero)

__all__ = ["semiring_laws", "homomorphism", "SYMBOLIC_NODES", "HOMOMORPHISM_ALL_TRIPLES_MAX"]


# =========================================================================== the theorems
# --------------------------------------------------------------------------- random networks (numeric rows)
def _numeric_random_network(G: FiniteAbelianGroup, q: int, rng, hermitian: bool = False) -> Network:
    if hermitian:
        n = G.order
        return Network.from_weights(rng.normal(size=(q, n)), rng.normal(size=(q, n)), rng.normal(size=(n, q)), G)
    return Network(G, rng.normal(size=(3, G.order, q)) + 1j * rng.normal(size=(3, G.order, q)))


def _match_residual(u: Network, v: Network) -> float:
    """max over nodes of u of the distance to the nearest node of v, and vice versa (inf if node counts differ)."""
    u = u.to_numeric() if u.exact else u
    v = v.to_numeric() if v.exact else v
    if u.q != v.q:
        return float("inf")
    if u.q == 0:
        return 0.0
    A = u.z.reshape(-1, u.q).T
    B = v.z.reshape(-1, v.q).T
    D = np.abs(A[:, None, :] - B[None, :, :]).max(axis=2)
    return float(max(D.min(axis=1).max(), D.min(axis=0).max()))


# --------------------------------------------------------------------------- symbolic networks (exact rows 1, 2)
#: Node counts of the symbolic networks x, y, w of rows 1 and 2 (distinct, so that a node-order error shows).
SYMBOLIC_NODES = (2, 3, 2)
#: Up to this order row 2 checks the library's potential tensors at every frequency triple (exact);
#: above, at the triples its statement lists (exact-instances).
HOMOMORPHISM_ALL_TRIPLES_MAX = 31


def _formal_hermitian(G: FiniteAbelianGroup, q: int, V: FormalVariables) -> Network:
    """A real network (``z[p, -k] = conj z[p, k]``) whose free entries are independent indeterminates."""
    n = G.order
    _, vals = V.new((3, n, q))
    _, reals = V.new((3, n, q), real=True)
    z = np.empty((3, n, q), dtype=object)
    for k in range(n):
        kn = int(G.neg[k])
        if kn == k:
            z[:, k, :] = reals[:, k, :]
        elif k < kn:
            z[:, k, :] = vals[:, k, :]
            z[:, kn, :] = np.vectorize(lambda e: e.conjugate(), otypes=[object])(vals[:, k, :])
    return Network(G, z, exact=True)


def _same(u: np.ndarray, v: np.ndarray) -> bool:
    """Entry-by-entry exact equality of two object arrays of the same shape."""
    return u.shape == v.shape and all(a == b for a, b in zip(u.ravel().tolist(), v.ravel().tolist()))


def _kron_expected(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``K[p, k, j1 q2 + j2] = x[p, k, j1] y[p, k, j2]``, entry by entry (SPEC 3)."""
    q1, q2 = x.shape[2], y.shape[2]
    out = np.empty(x.shape[:2] + (q1 * q2,), dtype=object)
    for j1 in range(q1):
        for j2 in range(q2):
            for idx in np.ndindex(*x.shape[:2]):
                out[idx + (j1 * q2 + j2,)] = x[idx + (j1,)] * y[idx + (j2,)]
    return out


def _node_identities_ring() -> dict:
    """Per-node identities behind the semiring laws, proven with sympy for entries at symbolic ``(p, k)``.

    A node is a function ``(p, k) -> C``; ``u[p, k]``, ``v[p, k]``, ``w[p, k]``
    are its entries at a symbolic index, ``s`` a scalar.
    """
    p, k = sympy.symbols("p k", integer=True)
    u, v, w = (sympy.IndexedBase(c) for c in "uvw")
    s = sympy.Symbol("s")
    U, Vv, W = u[p, k], v[p, k], w[p, k]
    ids = {
        "(u v) w = u (v w)": (U * Vv) * W - U * (Vv * W),
        "u v = v u": U * Vv - Vv * U,
        "u 1 = 1 u = u": (U * 1 - U) + (1 * U - U),
        "s (u v) = (s u) v": s * (U * Vv) - (s * U) * Vv,
        "conj(u) conj(v) = conj(u v)": sympy.conjugate(U) * sympy.conjugate(Vv) - sympy.conjugate(U * Vv),
    }
    return {name: is_zero_exact(e) for name, e in ids.items()}


def _node_identities_potential() -> dict:
    """Per-node identities behind the homomorphism (SPEC 4), with sympy, at symbolic frequency indices.

    A node contributes ``u_a[k1] u_b[k2] u_c[k]`` to ``r[k1, k2, k]`` and
    ``u_p[k1] u_p[k2] u_c[k]`` to ``r_p``; node ``(j1, j2)`` of ``x * y`` has
    entries ``u[.] v[.]`` (row 1), so its contribution factors into the
    contributions of ``u`` and ``v``.  Polynomial identities in independent
    symbols, so they also hold when indices coincide (``k1 = k2`` etc.).
    """
    k1, k2, k = sympy.symbols("k1 k2 k", integer=True)
    ua, ub, uc, va, vb, vc = (sympy.IndexedBase(c) for c in ("u_a", "u_b", "u_c", "v_a", "v_b", "v_c"))
    s = sympy.Symbol("s")
    ids = {
        "r: (u_a v_a)[k1] (u_b v_b)[k2] (u_c v_c)[k] = (u_a[k1] u_b[k2] u_c[k]) (v_a[k1] v_b[k2] v_c[k])":
            (ua[k1] * va[k1]) * (ub[k2] * vb[k2]) * (uc[k] * vc[k]) - (ua[k1] * ub[k2] * uc[k]) * (va[k1] * vb[k2] * vc[k]),
        "r_p: (u_p v_p)[k1] (u_p v_p)[k2] (u_c v_c)[k] = (u_p[k1] u_p[k2] u_c[k]) (v_p[k1] v_p[k2] v_c[k])":
            (ua[k1] * va[k1]) * (ua[k2] * va[k2]) * (uc[k] * vc[k]) - (ua[k1] * ua[k2] * uc[k]) * (va[k1] * va[k2] * vc[k]),
        "(s u_a)(s u_b)(s u_c) = s^3 u_a u_b u_c": (s * ua[k1]) * (s * ub[k2]) * (s * uc[k]) - s**3 * ua[k1] * ub[k2] * uc[k],
        "node of 1: 1 * 1 * 1 = 1": sympy.Integer(1) * 1 * 1 - 1,
    }
    return {name: is_zero_exact(e) for name, e in ids.items()}


# --------------------------------------------------------------------------- 1. semiring laws
def _ring_laws(x, y, w, zero, one, s) -> dict:
    """The laws of row 1 as ``{name: (lhs, rhs)}`` on the library's operations (exact and numeric share them)."""
    return {
        "(x+y)+w = x+(y+w)": ((x + y) + w, x + (y + w)),
        "x+y = y+x": (x + y, y + x),
        "(x*y)*w = x*(y*w)": ((x * y) * w, x * (y * w)),
        "x*y = y*x": (x * y, y * x),
        "x*(y+w) = x*y + x*w": (x * (y + w), x * y + x * w),
        "(x+y)*w = x*w + y*w": ((x + y) * w, x * w + y * w),
        "x+0 = x": (x + zero, x),
        "x*1 = x": (x * one, x),
        "1*x = x": (one * x, x),
        "0*x = 0": (zero * x, zero),
        "s.(x*y) = (s.x)*y": (s * (x * y), (s * x) * y),
        "s.(x+y) = s.x + s.y": (s * (x + y), s * x + s * y),
    }


def _semiring_exact(G: FiniteAbelianGroup) -> dict:
    """Row 1, exact: the reduction on networks of indeterminates, then each law under an explicit node bijection."""
    V = FormalVariables()
    q1, q2, q3 = SYMBOLIC_NODES
    x, y, w = (formal_network(G, q, V)[0] for q in SYMBOLIC_NODES)
    s = Formal(V.new((1,))[1][0].t)
    zero, one = Network.zero(G, exact=True), Network.one(G, exact=True)
    red = {  # (i) the reduction, on the library's code
        "x+y is the concatenation": _same((x + y).z, np.concatenate([x.z, y.z], axis=2)),
        "x*y is the Kronecker product (node j1 q2 + j2)": _same((x * y).z, _kron_expected(x.z, y.z)),
        "s.x scales every entry": _same((s * x).z, np.vectorize(lambda e: s * e, otypes=[object])(x.z)),
        "1 is one node of ones": one.q == 1 and all(e == 1 for e in one.z.ravel().tolist()),
        "0 has no nodes": zero.q == 0,
    }
    outcome = {f"reduction: {k}": bool(v) for k, v in red.items()}
    # (ii) the laws on the library's outputs under explicit node bijections
    perms = {"x*y = y*x": [j2 * q1 + j1 for j1 in range(q1) for j2 in range(q2)],  # node of y*x matching (j1, j2)
             "x+y = y+x": list(range(q2, q1 + q2)) + list(range(q2)),
             "x*(y+w) = x*y + x*w": [j1 * q2 + j if j < q2 else q1 * q2 + j1 * q3 + (j - q2) for j1 in range(q1)
                                     for j in range(q2 + q3)]}
    for name, (lhs, rhs) in _ring_laws(x, y, w, zero, one, s).items():
        perm = perms.get(name)
        rz = rhs.z if perm is None else rhs.z[:, :, perm]
        outcome[name] = lhs.q == rhs.q and _same(lhs.z, rz)
    hx, hy = _formal_hermitian(G, q1, V), _formal_hermitian(G, q2, V)
    for name, net in (("x+y real", hx + hy), ("x*y real", hx * hy)):
        outcome[name] = _same(net.z[:, G.neg, :], np.vectorize(lambda e: e.conjugate(), otypes=[object])(net.z))
    outcome.update({f"per node: {k}": v for k, v in _node_identities_ring().items()})
    return outcome


def _semiring_numeric(G: FiniteAbelianGroup, seed: int) -> tuple[dict, float]:
    """Row 1, numeric: random complex128 networks, per-entry tolerance :data:`NUM_TOL`."""
    rng = np.random.default_rng(seed)
    x, y, w = (_numeric_random_network(G, q, rng) for q in (3, 2, 2))
    hx, hy = (_numeric_random_network(G, q, rng, hermitian=True) for q in (2, 2))
    s = complex(rng.normal(), rng.normal())
    outcome: dict = {}
    worst = 0.0
    for name, (lhs, rhs) in _ring_laws(x, y, w, Network.zero(G), Network.one(G), s).items():
        outcome[name] = bool(lhs.equals(rhs, tol=NUM_TOL))
        worst = max(worst, _match_residual(lhs, rhs))
    for name, net in (("x+y real", hx + hy), ("x*y real", hx * hy)):
        outcome[name] = bool(hx.is_real() and hy.is_real() and net.is_real())
        worst = max(worst, float(np.abs(net.z - np.conj(net.z[:, G.neg, :])).max(initial=0.0)))
    return outcome, worst


def semiring_laws(group: Any, method: str = "exact", seed: int = 0) -> TheoremResult:
    """Theorem 1 (SPEC 3): the semiring laws, modulo a permutation of hidden nodes.

    Associativity and commutativity of ``+`` and ``*``, both distributive
    laws, ``x + 0 = x``, ``x * 1 = 1 * x = x``, ``0 * x = 0``, scalars
    (``s.(x*y) = (s.x)*y``, ``s.(x+y) = s.x + s.y``), and real networks stay
    real under ``+`` and ``*``.

    Exact (a proof for the group named, every number of nodes): (i) the
    reduction -- the library's ``+`` concatenates nodes, ``*`` makes node
    ``j1 q2 + j2`` with entries ``x[p,k,j1] y[p,k,j2]``, ``s.`` scales every
    entry, ``1`` is one node of ones, ``0`` has no nodes -- checked entry by
    entry at every ``(p, k)`` of the group on networks of 2, 3 and 2 nodes
    whose entries are independent indeterminates (:mod:`cogo.proofs.certificates.formal`;
    the operations are numpy broadcasts, uniform in the node counts); (ii)
    then every law is an equality of node multisets under an explicit
    bijection (``(j1, j2) -> (j2, j1)`` for ``x*y = y*x``, ...), checked on
    the library's outputs entry by entry, with per-node identities
    (``(uv)w = u(vw)``, ``uv = vu``, ``s(uv) = (su)v``,
    ``conj(u) conj(v) = conj(uv)``) proven by sympy for entries at symbolic
    ``(p, k)``; real networks: Hermitian networks of indeterminates stay
    Hermitian under the library's ``+`` and ``*``.  Numeric: complex128
    networks, per-entry tolerance 1e-10.

    Returns
    -------
    TheoremResult
        Row 1; ``passed`` when every law holds (``details['laws']``: each law's verdict).

    Examples
    --------
    >>> r = semiring_laws(5)                                # a proof for Z_5 on networks of indeterminates
    >>> r.name, r.method, r.passed, r.residual
    ('1. semiring laws', 'exact', True, 0.0)
    """
    method = check_method(method)
    G = as_group(group)
    exact = method == "exact"
    with Timer() as t:
        outcome, worst = (_semiring_exact(G), 0.0) if exact else _semiring_numeric(G, seed)
        passed = all(outcome.values())
        if exact and not passed:
            worst = 1.0  # an exact identity failed (no size is meaningful for indeterminates)
    stmt = ("Networks over " + G.label + " form a commutative semiring modulo node permutation (+ concatenates, "
            "* is the Kronecker product); scalars act; Hermitian (real) networks are closed under + and *")
    if exact:
        q1, q2, q3 = SYMBOLIC_NODES
        stmt += (" -- proof for every number of nodes: (i) the library's + concatenates, * makes node j1*q2+j2 with "
                 "entries x[p,k,j1] y[p,k,j2], s. scales every entry, 1 is one node of ones, 0 has no nodes: checked "
                 f"entry by entry at every (p, k) of {G.label} on networks of {q1}, {q2}, {q3} nodes whose entries "
                 "are independent indeterminates (the operations are numpy broadcasts, uniform in the node counts); "
                 "(ii) so each law is an equality of node multisets under an explicit bijection, checked on the "
                 "library's outputs entry by entry, with the per-node identities (uv)w = u(vw), uv = vu, "
                 "s(uv) = (su)v, conj(u)conj(v) = conj(uv) proven by sympy at symbolic (p, k)")
    else:
        stmt += "; complex128, per-entry tolerance 1e-10"
    return make_result("1. semiring laws", stmt, method, passed, worst, t, laws=outcome, group=G.label)


# --------------------------------------------------------------------------- 2. homomorphism
def _listed_triples(G: FiniteAbelianGroup, rng, count: int = 48) -> list:
    """Frequency triples for the instance check above :data:`HOMOMORPHISM_ALL_TRIPLES_MAX`."""
    n = G.order
    ks = [int(k) for k in rng.choice(n, size=min(n, 4), replace=False)]
    out = set()
    for k in ks:
        kn = int(G.neg[k])
        out.update({(k, k, k), (kn, k, k), (k, kn, k), (0, 0, k), (k, 0, k), (0, k, k)})
    while len(out) < count:
        out.add(tuple(int(v) for v in rng.integers(0, n, size=3)))
    return sorted(out)


def _spec4_codes(codes: np.ndarray, p: str | None) -> np.ndarray:
    """Monomial codes of the SPEC 4 sum, ``C[k1, k2, k, j]`` = code of ``z[a|p, k1, j] z[b|p, k2, j] z[c, k, j]``."""
    i1, i2 = (0, 1) if p is None else ((0, 0) if p == "a" else (1, 1))
    x, y, w = codes[i1], codes[i2], codes[2]
    return x[:, None, None, :] * y[None, :, None, :] * w[None, None, :, :]


def _is_spec4_sum(value: Any, codes: np.ndarray) -> bool:
    """Is the Formal ``value`` the sum of the monomials with the given codes (each with multiplicity)?"""
    want: dict = {}
    for c in codes.tolist():
        want[c] = want.get(c, 0) + 1
    return isinstance(value, Formal) and value.t == want


def _potential_fns(p: str | None):
    """The potential ``r`` (``p`` None) or ``r_p`` as a function of a network, with its printed label."""
    label = "r" if p is None else f"r_{p}"
    return label, (potentials if p is None else (lambda z, p=p: self_potentials(z, p)))


def _homomorphism_exact(G: FiniteAbelianGroup, rng, all_triples: bool) -> tuple[dict, int]:
    """Row 2, exact: the SPEC 4 sums and the four laws as polynomial identities on networks of indeterminates."""
    V = FormalVariables()
    qx, qy, _ = SYMBOLIC_NODES
    (x, cx), (y, _) = formal_network(G, qx, V), formal_network(G, qy, V)
    s = Formal(V.new((1,))[1][0].t)
    one = Network.one(G, exact=True)
    xy, xpy, sx = x * y, x + y, s * x
    s3 = s * s * s
    laws: dict = {}
    if all_triples:  # the whole (n, n, n) tensors of the library's potentials
        for p in (None, "a", "b"):
            label, f = _potential_fns(p)
            rx, ry = f(x), f(y)
            spec = _spec4_codes(cx, p).reshape(-1, qx)
            laws[f"{label}(x) = SPEC 4 sum over nodes (library)"] = all(
                _is_spec4_sum(v, c) for v, c in zip(rx.ravel().tolist(), spec))
            laws[f"{label}(1)"] = all(v == 1 for v in f(one).ravel().tolist())
            laws[f"{label}(+)"] = _same(f(xpy), rx + ry)
            laws[f"{label}(*)"] = _same(f(xy), rx * ry)
            laws[f"{label}(s.)"] = _same(f(sx), np.vectorize(lambda e: s3 * e, otypes=[object])(rx))
        ntriples = G.order ** 3
    else:  # the library's potential() at listed triples
        T = _listed_triples(G, rng)
        ntriples = len(T)
        for p in (None, "a", "b"):
            label = _potential_fns(p)[0]
            ok = {"x = SPEC 4 sum over nodes (library)": True, "1": True, "+": True, "*": True, "s.": True}
            for (k1, k2, k) in T:
                rx, ry = potential(x, k1, k2, k, p), potential(y, k1, k2, k, p)
                ok["x = SPEC 4 sum over nodes (library)"] &= _is_spec4_sum(
                    rx, _spec4_codes(cx[:, [k1, k2, k], :], p)[0, 1, 2])
                ok["1"] &= potential(one, k1, k2, k, p) == 1
                ok["+"] &= potential(xpy, k1, k2, k, p) == rx + ry
                ok["*"] &= potential(xy, k1, k2, k, p) == rx * ry
                ok["s."] &= potential(sx, k1, k2, k, p) == s3 * rx
            laws.update({f"{label}({op})": bool(v) for op, v in ok.items()})
    laws.update({f"per node: {k}": v for k, v in _node_identities_potential().items()})
    return laws, ntriples


def _homomorphism_numeric(G: FiniteAbelianGroup, rng) -> tuple[dict, float]:
    """Row 2, numeric: full tensors of random complex128 networks, relative tolerance :data:`NUM_TOL`."""
    x, y = _numeric_random_network(G, 3, rng), _numeric_random_network(G, 2, rng)
    s = complex(rng.normal(), rng.normal())
    one = Network.one(G)
    laws: dict = {}
    worst = 0.0
    for p in (None, "a", "b"):
        label, f = _potential_fns(p)
        rx, ry = f(x), f(y)
        scale = max(1.0, float(np.abs(rx).max() * np.abs(ry).max()))
        checks = {
            "1": np.abs(f(one) - 1.0).max(),
            "+": np.abs(f(x + y) - rx - ry).max() / scale,
            "*": np.abs(f(x * y) - rx * ry).max() / scale,
            "s.": np.abs(f(s * x) - s**3 * rx).max() / scale,
        }
        for op, v in checks.items():
            laws[f"{label}({op})"] = bool(v <= NUM_TOL)
            worst = max(worst, float(v))
    return laws, worst


def homomorphism(group: Any, method: str = "exact", seed: int = 0) -> TheoremResult:
    """Theorem 2 (SPEC 4): each potential ``r``, ``r_a``, ``r_b`` is a ring homomorphism ``Z -> C``.

    ``r(1) = 1``, ``r(x + y) = r(x) + r(y)``, ``r(x * y) = r(x) r(y)`` and
    ``r(s.x) = s^3 r(x)``.

    Exact: each potential is a sum over nodes of a product of three entries
    (SPEC 4); by row 1, ``+`` concatenates nodes and node ``(j1, j2)`` of
    ``x * y`` has entries ``u[.] v[.]``, so ``r(x + y) = r(x) + r(y)`` and
    ``r(x * y) = sum_{j1, j2} (contribution of u_j1)(contribution of v_j2)
    = r(x) r(y)`` by the per-node factorization, proven with sympy at
    symbolic indices ``(k1, k2, k)`` (:func:`_node_identities_potential`).
    The reduction on the library's code: for networks ``x`` (2 nodes), ``y``
    (3 nodes) and a scalar ``s`` whose entries are independent indeterminates
    (:mod:`cogo.proofs.certificates.formal`), :func:`potentials` and
    :func:`self_potentials` of ``x`` equal the SPEC 4 sums, and
    ``r(x+y) = r(x)+r(y)``, ``r(x*y) = r(x) r(y)``, ``r(s.x) = s^3 r(x)``,
    ``r(1) = 1`` hold as polynomial identities at all ``n^3`` frequency triples
    of the group (``method = exact``) when ``n <= 31``; above, the library's
    :func:`potential` at 48 listed triples (``exact-instances``).  Numeric:
    full tensors of random complex128 networks, relative tolerance 1e-10.

    Returns
    -------
    TheoremResult
        Row 2; with ``method='exact'`` its method is ``exact`` up to order 31 and ``exact-instances`` above.

    Examples
    --------
    >>> r = homomorphism(5)                                 # at all 5^3 frequency triples, exactly
    >>> r.method, r.passed, r.residual
    ('exact', True, 0.0)
    """
    method = check_method(method)
    G = as_group(group)
    rng = np.random.default_rng(seed)
    n = G.order
    all_triples = n <= HOMOMORPHISM_ALL_TRIPLES_MAX
    with Timer() as t:
        if method == "exact":
            laws, ntriples = _homomorphism_exact(G, rng, all_triples)
            worst = 0.0 if all(laws.values()) else 1.0
        else:
            (laws, worst), ntriples = _homomorphism_numeric(G, rng), n ** 3
        passed = all(laws.values())
    stmt = "r, r_a, r_b are ring homomorphisms: r(1)=1, r(x+y)=r(x)+r(y), r(x*y)=r(x)r(y), r(s.x)=s^3 r(x)"
    if method == "exact":
        qx, qy, _ = SYMBOLIC_NODES
        stmt += (" -- proof: each potential is a sum over nodes of a product of three entries (SPEC 4); + "
                 "concatenates and * pairs nodes (row 1), so the laws reduce to the per-node factorization "
                 "(u_a v_a)(u_b v_b)(u_c v_c) = (u_a u_b u_c)(v_a v_b v_c) (and for r_p, s., 1), proven by sympy "
                 "at symbolic indices (k1, k2, k); the reduction checked on the library's "
                 + ("potentials/self_potentials" if all_triples else "potential") +
                 f" for networks over {G.label} of {qx} and {qy} nodes with independent indeterminate entries: "
                 "r(x) is the SPEC 4 sum and the four laws hold as polynomial identities at "
                 + (f"all {ntriples} frequency triples" if all_triples else
                    f"{ntriples} of the {n ** 3} frequency triples (instances: (k,k,k), (-k,k,k), (k,-k,k), (0,0,k), "
                    f"(k,0,k), (0,k,k) for 4 random k, and random triples; seed {seed})"))
    else:
        stmt += "; complex128, relative tolerance 1e-10"
    hmethod = method if method == "numeric" else ("exact" if all_triples else "exact-instances")
    return make_result("2. potentials are ring homomorphisms", stmt, hmethod, passed, worst, t,
                       laws=laws, triples=ntriples, group=G.label)
