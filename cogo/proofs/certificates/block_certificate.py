"""Exact certificates (SPEC 5-7): the per-frequency block certificate and the exact general loss.

* :func:`block_certificate` -- every condition of SPEC 5 and the exact loss of
  a network made of per-frequency blocks (SPEC 6), from the eleven monomial
  sums of each block and the constant-vector sums of hat-corrected blocks
  (SPEC 7.3).  Values do not depend on the group order, so they are cached
  per block type.  The blocks of an exact network are read by
  :func:`cogo.proofs.certificates.design_reader.design_from_network`.
* :func:`general_loss_certificate` -- the exact general loss of SPEC 5 of an
  exact network, computed by :func:`cogo.algebra.fourier_loss` itself on the
  network gauge-fixed into ``Q(zeta_L)`` (:func:`cogo.algebra.cyc_gauge.cyc_network`).

The z_M certificate by character sums is :mod:`cogo.proofs.certificates.mem_certificate`.

Why blocks at different frequencies do not interact (SPEC 6)
------------------------------------------------------------
A node of a block at ``k0`` has ``a`` and ``b`` supported on ``{k0, -k0}``.
A potential ``r[k1, k2, k]`` or ``r_p[k1, k2, k]`` sums, over nodes, products
with one ``a``/``b`` factor at ``k1`` and one at ``k2``; a node contributes
only if ``k1, k2`` lie in its ``{k0, -k0}``.  So every potential is a sum over
the blocks at ``+-k1`` (which must be those at ``+-k2``) of that block's
monomial sum -- its ``c`` read at ``k``.  At ``k = +-k0`` these are the eleven
monomial sums of the block; at another ``k`` (only where a hat correction
puts a constant ``gamma_k`` into ``c``) they are ``gamma_k`` times the sums
of the monomials with ``c`` replaced by 1.  For odd ``|G|``, ``2 k0 = +-2 k``
forces ``k0 = +-k``, so the R_* sums at ``m = +-2 k0`` of different blocks
never meet either.  :func:`cogo.proofs.certificates.design_reader.design_from_network` checks the premise (exact
supports of every node) on the network itself.  Hence, at each ``k != 0``
(``l_{-k} = l_k`` by Hermitian symmetry):

* R_g: ``abc - 1`` of the block at k;
* R_c: ``conj(a) b c``, ``a conj(b) c``, ``a b conj(c)``, ``conj(a) conj(b) c``
  of the block at k; ``gamma_k`` times ``sum ab``, ``sum conj(a) b``,
  ``sum a conj(b)``, ``sum conj(a) conj(b)`` of every hat block;
* R_n: ``2 (|a|^2 c + |b|^2 c) + 2 gamma_k sum (|a|^2 + |b|^2)``;
* R_*: ``a^2 c, b^2 c, conj(a)^2 c, conj(b)^2 c`` of the block at k,
  ``gamma_k`` times ``sum a^2, sum b^2, sum conj(a)^2, sum conj(b)^2`` of a hat block;

and the loss of SPEC 5 is ``(2/n) sum_{k in K+} l_k + 1 - 1/n`` with
``l_k = -2 Re(abc) + |abc|^2 + sum |R_c entries at c-frequency k|^2
+ |R_n|^2 / 4 + sum |R_* entries|^2 / 4``.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] L. C. Washington, "Introduction to Cyclotomic Fields", Springer GTM 83, 2nd ed., 1997.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import numpy as np
import sympy

from cogo.algebra.cyc_gauge import clear_caches as clear_cyc_caches
from cogo.algebra.cyc_gauge import cyc_network, entries_order, gauge_fix_nodes
from cogo.algebra.cyclotomic import CycNumber
from cogo.algebra.loss import fourier_loss
from cogo.algebra.network import Network
from cogo.algebra.potentials import block_sums
from cogo.catalogue.partial import PartialSolution
from cogo.solvers.designs import BlockDesign
from cogo.proofs.certificates.design_reader import clear_caches as clear_reader_caches
from cogo.proofs.certificates.exact_zero import decide_zero
from cogo.proofs.certificates.exact_zero import is_zero_proven as is_zero_exact  # exact, undecided is not zero (cogo.proofs.certificates.exact_zero)

__all__ = ["CONDITION_MONOMIALS", "CONST_MONOMIALS", "BlockCertificate", "block_certificate", "constant_vector_sums",
           "general_loss_certificate", "clear_caches", "ZeroTest", "magnitude"]

#: Monomial sums of a block, per condition (SPEC 6).
CONDITION_MONOMIALS = {
    "R_g": ("abc",),
    "R_c": ("conj(a) b c", "a conj(b) c", "a b conj(c)", "conj(a) conj(b) c"),
    "R_n": ("|a|^2 c + |b|^2 c",),
    "R_*": ("a^2 c", "b^2 c", "conj(a)^2 c", "conj(b)^2 c"),
}
#: The R_c monomials whose c sits at the block's own frequency +k (``a b conj(c)`` sits at -k).
_RC_AT_K = ("conj(a) b c", "a conj(b) c", "conj(a) conj(b) c")
#: Products of one a/b pair with c replaced by a constant (SPEC 7.3), by condition.
CONST_MONOMIALS = {
    "R_c": ("ab", "conj(a) b", "a conj(b)", "conj(a) conj(b)"),
    "R_*": ("a^2", "b^2", "conj(a)^2", "conj(b)^2"),
    "R_n": ("|a|^2 + |b|^2",),
}

_ZERO = sympy.Integer(0)


def _expand(x):
    return sympy.expand(x)


def _abs2(x, conj: Callable) -> Any:
    return sympy.expand(x * conj(x))


def magnitude(x) -> float:
    """|x| as a Python float (reporting only; decisions are exact).

    Expressions with free symbols are evaluated at a fixed sample point
    (the i-th symbol in name order at ``(i + 2)/7 + i/(i + 3)``).

    Examples
    --------
    >>> import sympy
    >>> round(magnitude(sympy.sqrt(2)), 12), round(magnitude(-3 + 4 * sympy.I), 12)
    (1.414213562373, 5.0)
    """
    x = sympy.sympify(x)
    if x == 0:
        return 0.0
    if x.free_symbols:
        syms = sorted(x.free_symbols, key=lambda v: v.name)
        x = x.subs({v: sympy.Rational(i + 2, 7) + sympy.I * sympy.Rational(1, i + 3) for i, v in enumerate(syms)})
    try:
        return float(abs(complex(sympy.N(x, 30))))
    except (TypeError, ValueError):
        return float("inf")


class ZeroTest:
    """The exact zero test (:func:`cogo.proofs.certificates.exact_zero.decide_zero`) that remembers the largest ``|x|`` of what
    was proven nonzero and counts what it could not decide (``undecided``: never read as zero).

    >>> import sympy
    >>> zt = ZeroTest()
    >>> zt(sympy.sqrt(2) * sympy.sqrt(3) - sympy.sqrt(6)), zt(sympy.sqrt(2) - 1)
    (True, False)
    >>> round(zt.worst, 6)                                   # |sqrt(2) - 1|, the largest nonzero seen
    0.414214
    """

    def __init__(self):
        self.worst = 0.0
        self.undecided = 0

    def __call__(self, x) -> bool:
        d = decide_zero(x)
        if d is True:
            return True
        if d is None:  # not decided exactly (cogo.proofs.certificates.exact_zero): counted, and never a zero
            self.undecided += 1
        else:
            self.worst = max(self.worst, magnitude(x))
        return False


def constant_vector_sums(part: PartialSolution, weights: Any = None, conj: Callable | None = None) -> dict:
    """Sums over nodes of the a/b monomials with ``c`` replaced by ``weights`` (default 1), exactly.

    Keys: ``ab``, ``conj(a) b``, ``a conj(b)``, ``conj(a) conj(b)``, ``a^2``, ``b^2``,
    ``conj(a)^2``, ``conj(b)^2`` and ``|a|^2 + |b|^2``.  With constant weights
    1 these are the inner products of SPEC 7.3 ("the constant vector is
    orthogonal to every other monomial vector").

    Returns
    -------
    dict
        Monomial name (the nine keys above) to its exact sum over the nodes.

    Examples
    --------
    >>> from cogo.solvers.designs import f6_design
    >>> s = constant_vector_sums(f6_design(5, exact=True).blocks[0].part)   # the order-6 block, |nu| = 1
    >>> {key: v for key, v in s.items() if v != 0}           # orthogonal to the constant vector but for |a|^2 + |b|^2
    {'|a|^2 + |b|^2': 2*6**(1/3)}
    """
    cj = conj or sympy.conjugate
    A = [sympy.sympify(x) for x in part.a]
    B = [sympy.sympify(x) for x in part.b]
    w = [sympy.Integer(1)] * len(A) if weights is None else [sympy.sympify(x) for x in weights]
    cA = [cj(x) for x in A]
    cB = [cj(x) for x in B]

    def tot(vals):
        return sympy.expand(sum((v * wi for v, wi in zip(vals, w)), _ZERO))

    return {
        "ab": tot([x * y for x, y in zip(A, B)]),
        "conj(a) b": tot([x * y for x, y in zip(cA, B)]),
        "a conj(b)": tot([x * y for x, y in zip(A, cB)]),
        "conj(a) conj(b)": tot([x * y for x, y in zip(cA, cB)]),
        "a^2": tot([x * x for x in A]),
        "b^2": tot([x * x for x in B]),
        "conj(a)^2": tot([x * x for x in cA]),
        "conj(b)^2": tot([x * x for x in cB]),
        "|a|^2 + |b|^2": tot([x * y + u * v for x, y, u, v in zip(A, cA, B, cB)]),
    }


# --------------------------------------------------------------------------- block certificate
@dataclass
class BlockCertificate:
    """Outcome of :func:`block_certificate`.

    ``residuals[cond]``: list of ``(frequency index, label, exact value)`` for
    every residual of that condition; ``zero[cond]``: whether all are proven
    exactly 0; ``max_abs[cond]``: the largest ``|value|`` (evaluated, for
    reporting); ``loss``: the exact loss (SPEC 5) from the block formula;
    ``structure``: problems with the block structure (empty when fine).

    >>> from cogo.solvers.designs import f46_design
    >>> cert = block_certificate(f46_design(7, exact=True, corrected=False))   # z_F4/6 without the hat (SPEC 7.3)
    >>> cert.zero, cert.loss, cert.structure                 # R_n is not 0; loss 2 (d - 3) / d exactly
    ({'R_g': True, 'R_c': True, 'R_n': False, 'R_*': True}, 8/7, [])
    """

    residuals: dict
    zero: dict
    max_abs: dict
    loss: Any
    structure: list = field(default_factory=list)
    per_block_type: int = 0
    undecided: list = field(default_factory=list)
    #: the routes that computed the frequencies ("Q(zeta_L)", "sympy"): a certificate asked for the sympy route
    #: must not report the other (the negative controls check it)
    routes: set = field(default_factory=set)

    @property
    def failing(self) -> list[str]:
        """Conditions not proven exactly 0 (proven nonzero, or undecided: see ``undecided``), and "structure"."""
        return [c for c, ok in self.zero.items() if not ok] + (["structure"] if self.structure else [])

    @property
    def optimal(self) -> bool:
        """All conditions proven exactly 0, the structure sound, nothing undecided and the exact loss proven 0."""
        return not self.failing and not self.undecided and is_zero_exact(self.loss)

    @property
    def status(self) -> str:
        """``certified`` (exact proof of loss 0), ``undecided`` (some value the exact zero test could not
        decide, :mod:`cogo.proofs.certificates.exact_zero`) or ``refuted``."""
        if self.optimal:
            return "certified"
        loss_d = decide_zero(self.loss)
        return "undecided" if (self.undecided or loss_d is None) and not self.structure else "refuted"

    @property
    def largest(self) -> float:
        return max(self.max_abs.values(), default=0.0)


_SUMS_CACHE: dict = {}
_CONST_CACHE: dict = {}
_TYPE_CACHE: dict = {}


def _part_key(part: PartialSolution) -> tuple:
    return (tuple(part.a), tuple(part.b), tuple(part.c))


def _cached(cache: dict, key, fn, use: bool):
    if not use:
        return fn()
    if key not in cache:
        cache[key] = fn()
    return cache[key]


def clear_caches() -> None:
    """Forget cached block sums (benchmarks call this to time cold runs).

    >>> from cogo.solvers.designs import f6_design
    >>> clear_caches()                                       # the next certificate starts cold, same result
    >>> block_certificate(f6_design(5, exact=True)).loss
    0
    """
    _SUMS_CACHE.clear()
    _CONST_CACHE.clear()
    _TYPE_CACHE.clear()
    clear_reader_caches()
    clear_cyc_caches()


#: The factors ``(input, input, output)`` of each monomial sum of SPEC 6 (``A`` = conj(a), ...), as in
#: :func:`cogo.algebra.potentials.block_sums`; with the output replaced by constant weights they give the
#: sums of :func:`constant_vector_sums`.  ``tests/proofs/test_verify.py`` compares both routes.
_BLOCK_FACTORS = {
    "abc": "abc", "conj(a) b c": "Abc", "a conj(b) c": "aBc", "a b conj(c)": "abC", "conj(a) conj(b) c": "ABc",
    "|a|^2 c": "aAc", "|b|^2 c": "bBc", "a^2 c": "aac", "b^2 c": "bbc", "conj(a)^2 c": "AAc", "conj(b)^2 c": "BBc",
}
_CONST_FACTORS = {
    "ab": "abc", "conj(a) b": "Abc", "a conj(b)": "aBc", "conj(a) conj(b)": "ABc",
    "a^2": "aac", "b^2": "bbc", "conj(a)^2": "AAc", "conj(b)^2": "BBc", "|a|^2": "aAc", "|b|^2": "bBc",
}


def _cyc_sums(A: list, B: list, C: list, factors: dict, zero: CycNumber) -> dict:
    """``sum_j x_j y_j w_j`` for every ``factors`` entry, in exact ``Q(zeta_L)`` arithmetic."""
    f = {"a": A, "b": B, "c": C, "A": [x.conjugate() for x in A], "B": [x.conjugate() for x in B],
         "C": [x.conjugate() for x in C]}
    out = {}
    for name, (x, y, w) in factors.items():
        tot = zero
        for u, v, t in zip(f[x], f[y], f[w]):
            tot = tot + u * v * t
        out[name] = tot
    return out


def _own_residuals(S: dict, res: dict, expand: Callable) -> tuple:
    """Append the residuals of a frequency's own block sums ``S`` to ``res`` (R_g, R_c, R_*).

    Shared by the sympy and the ``Q(zeta_L)`` routes; returns ``abc``, the R_n
    sum so far and the R_c terms that enter ``l_k``.
    """
    abc = S["abc"]
    res["R_g"].append(("abc - 1", expand(abc - 1)))
    for m in CONDITION_MONOMIALS["R_c"]:
        res["R_c"].append((m, S[m]))
    for m in CONDITION_MONOMIALS["R_*"]:
        res["R_*"].append((m, S[m]))
    return abc, S["|a|^2 c + |b|^2 c"], [S[m] for m in _RC_AT_K]


def _frequency_terms_cyc(own: PartialSolution | None, hats: tuple) -> dict | None:
    """:func:`_frequency_terms` (complex conjugation) in exact ``Q(zeta_L)`` arithmetic, or None.

    Every node is gauge-fixed into ``Q(zeta_L)`` by
    :func:`cogo.algebra.cyc_gauge.gauge_fix_nodes` (inputs divided by a real
    ``t_j = m^(-1/3)``, the output values -- ``c`` for the block's own sums,
    the hat weights for the constant-vector sums -- multiplied by ``t_j^2``);
    every quantity below is a sum of such gauge-invariant node terms, so the
    values are those of the sympy route, computed without sympy.  Zero tests
    are exact (reduction modulo ``Phi_L``); values are reported as sympy
    numbers.  None when some node has no such gauge (the caller uses sympy).
    """
    hat_w = [list(val) if isinstance(val, tuple) else [val] * part.q for part, val in hats]
    vals = [] if own is None else list(own.a) + list(own.b) + list(own.c)
    for (part, _), w in zip(hats, hat_w):
        vals += list(part.a) + list(part.b) + w
    if not vals:
        return None
    L = entries_order(vals)
    zero = CycNumber.rational(L, 0)
    res: dict = {c: [] for c in CONDITION_MONOMIALS}
    if own is not None:
        g = gauge_fix_nodes(own.a, own.b, [own.c], L)
        if g is None:
            return None
        S = _cyc_sums(g[1], g[2], g[3][0], _BLOCK_FACTORS, zero)
        S["|a|^2 c + |b|^2 c"] = S["|a|^2 c"] + S["|b|^2 c"]
    else:
        S = {m: zero for m in (*_BLOCK_FACTORS, "|a|^2 c + |b|^2 c")}
    abc, rn, rc_terms = _own_residuals(S, res, lambda x: x)
    for (part, _), w in zip(hats, hat_w):
        g = gauge_fix_nodes(part.a, part.b, [w], L)
        if g is None:
            return None
        V = _cyc_sums(g[1], g[2], g[3][0], _CONST_FACTORS, zero)
        for m in CONST_MONOMIALS["R_c"]:
            res["R_c"].append((f"hat: {m} * c", V[m]))
            rc_terms.append(V[m])
        for m in CONST_MONOMIALS["R_*"]:
            res["R_*"].append((f"hat: {m} * c", V[m]))
        rn = rn + V["|a|^2"] + V["|b|^2"]
    Rn = 2 * rn
    res["R_n"].append(("2 sum_p sum |p|^2 c", Rn))
    lk = -(abc + abc.conjugate()) + abc * abc.conjugate()
    for v in rc_terms:
        lk = lk + v * v.conjugate()
    lk = lk + Rn * Rn.conjugate() / 4
    for _, v in res["R_*"]:
        lk = lk + v * v.conjugate() / 4
    zero_flags = {c: all(v.is_zero() for _, v in vals) for c, vals in res.items()}
    mags = {c: max((0.0 if v.is_zero() else abs(complex(v)) for _, v in vals), default=0.0)
            for c, vals in res.items()}
    res = {c: [(lab, v.to_sympy()) for lab, v in vals] for c, vals in res.items()}
    return {"res": res, "zero": zero_flags, "mag": mags, "lk": lk.to_sympy(), "undecided": [], "route": "Q(zeta_L)"}


def _frequency_terms(own: PartialSolution | None, hats: tuple, conj: Callable, use_cache: bool,
                     fast: bool = False) -> dict:
    """Residuals and ``l_k`` at one frequency from its own block and the hat blocks reaching it.

    ``fast`` (complex conjugation only): try :func:`_frequency_terms_cyc` first.
    """
    if fast:
        T = _frequency_terms_cyc(own, hats)
        if T is not None:
            return T
    res: dict = {c: [] for c in CONDITION_MONOMIALS}
    if own is not None:
        S = _cached(_SUMS_CACHE, _part_key(own), lambda: block_sums(own.a, own.b, own.c, conj=conj), use_cache)
    else:
        S = {m: _ZERO for m in ("abc", *CONDITION_MONOMIALS["R_c"], "|a|^2 c", "|b|^2 c",
                                "|a|^2 c + |b|^2 c", *CONDITION_MONOMIALS["R_*"])}
    abc, rn, rc_terms = _own_residuals(S, res, _expand)
    for hat_part, val in hats:
        if isinstance(val, tuple):  # a vector over the hat block's nodes
            V = constant_vector_sums(hat_part, weights=val, conj=conj)
            scale = sympy.Integer(1)
        else:
            V = _cached(_CONST_CACHE, _part_key(hat_part), lambda: constant_vector_sums(hat_part, conj=conj),
                        use_cache)
            scale = val
        for m in CONST_MONOMIALS["R_c"]:
            v = _expand(scale * V[m])
            res["R_c"].append((f"hat: {m} * c", v))
            rc_terms.append(v)
        for m in CONST_MONOMIALS["R_*"]:
            res["R_*"].append((f"hat: {m} * c", _expand(scale * V[m])))
        rn = rn + scale * V["|a|^2 + |b|^2"]
    Rn = _expand(2 * rn)
    res["R_n"].append(("2 sum_p sum |p|^2 c", Rn))
    lk = -(abc + conj(abc)) + _abs2(abc, conj)
    lk += sum((_abs2(v, conj) for v in rc_terms), _ZERO)
    lk += _abs2(Rn, conj) / 4
    lk += sum((_abs2(v, conj) for _, v in res["R_*"]), _ZERO) / 4
    dec = {c: [decide_zero(v) for _, v in vals] for c, vals in res.items()}
    zero = {c: all(d is True for d in ds) for c, ds in dec.items()}
    und = [f"{c}: {lab}" for c, vals in res.items() for (lab, _), d in zip(vals, dec[c]) if d is None]
    mags = {c: max((magnitude(v) for _, v in vals), default=0.0) for c, vals in res.items()}
    return {"res": res, "zero": zero, "mag": mags, "lk": _expand(lk), "undecided": und, "route": "sympy"}


def block_certificate(design: BlockDesign, use_cache: bool = True, fast: bool = True) -> BlockCertificate:
    """Prove (or refute) global optimality of a block design exactly (SPEC 5-7).

    Checks the structure (blocks at distinct positive frequencies ``k != -k``,
    hat extensions only at other positive frequencies), then evaluates every
    residual of R_g, R_c, R_n, R_* at every ``k != 0`` and the exact loss
    from the block sums (see the module docstring for why this is complete).
    Per-frequency results are cached by block type: they do not depend on
    the group order.  Only exact designs are accepted.

    Returns
    -------
    BlockCertificate
        The residuals, which conditions are proven exactly 0, the exact loss and the structure problems.

    Raises
    ------
    ValueError
        The design is not exact.

    Examples
    --------
    >>> from cogo.solvers.designs import f6_design
    >>> cert = block_certificate(f6_design(7, exact=True))   # z_F6 (SPEC 7.1): every residual proven 0
    >>> cert.zero, cert.loss
    ({'R_g': True, 'R_c': True, 'R_n': True, 'R_*': True}, 0)
    """
    if not design.exact:
        raise ValueError("block_certificate needs an exact design (sympy entries)")
    G = design.group
    conj = design.conj or sympy.conjugate
    use_cache = use_cache and design.conj is None
    fast = fast and design.conj is None
    keys = [int(k) for k in G.positive_frequencies]
    own, hats, problems = _design_blocks(design, keys)
    residuals: dict = {c: [] for c in CONDITION_MONOMIALS}
    zero = {c: True for c in CONDITION_MONOMIALS}
    mags = {c: 0.0 for c in CONDITION_MONOMIALS}
    total_l = _ZERO
    types = set()
    undecided: list = []
    routes: set = set()
    for k in keys:
        part = own.get(k)
        hk = tuple(hats[k])
        tkey = (_part_key(part) if part is not None else None,
                tuple((_part_key(p), v) for p, v in hk), bool(fast))  # the route is part of the key
        types.add(tkey)
        T = _cached(_TYPE_CACHE, tkey, lambda: _frequency_terms(part, hk, conj, use_cache, fast), use_cache)
        for c in CONDITION_MONOMIALS:
            residuals[c].extend((k, lab, v) for lab, v in T["res"][c])
            zero[c] = zero[c] and T["zero"][c]
            mags[c] = max(mags[c], T["mag"][c])
        total_l += T["lk"]
        undecided.extend(f"k={k} {u}" for u in T.get("undecided", []))
        routes.add(T["route"])
    n = G.order
    loss = sympy.expand(2 * total_l / n + 1 - sympy.Rational(1, n))
    return BlockCertificate(residuals, zero, mags, loss, problems, len(types), undecided, routes)


def _design_blocks(design: BlockDesign, keys: list[int]) -> tuple[dict, dict, list[str]]:
    """``(own, hats, problems)``: each frequency's own block, the hat extensions of ``c`` there, structure problems."""
    G = design.group
    keyset = set(keys)
    problems: list[str] = []
    if not G.is_odd:
        problems.append(f"{G} has even order: some k != 0 equals -k, blocks are not defined there")
    own: dict = {}
    hats: dict = {k: [] for k in keys}
    for blk in design.blocks:
        k = int(blk.k)
        if k not in keyset:
            problems.append(f"block at frequency index {k}, which is not a positive frequency representative")
            continue
        if k in own:
            problems.append(f"two blocks at frequency index {k} (merge them into one block)")
            continue
        own[k] = blk.part
        for k2, val in blk.c_ext.items():
            k2 = int(k2)
            if k2 not in keyset or k2 == k:
                problems.append(f"block at {k} extends c to frequency index {k2} (must be another positive frequency)")
                continue
            if isinstance(val, (list, tuple, np.ndarray)):
                val = tuple(sympy.sympify(x) for x in val)
                if len(val) != blk.q:
                    problems.append(f"c extension of the block at {k} has {len(val)} values for {blk.q} nodes")
                    continue
            else:
                val = sympy.sympify(val)
            hats[k2].append((blk.part, val))
    return own, hats, problems



def general_loss_certificate(net: Network, extra_scales: tuple = ()) -> dict:
    """The exact loss of an exact network from the library's general loss (SPEC 5), in ``Q(zeta_L)``.

    The network is gauge-fixed node by node into ``Q(zeta_L)`` by
    :func:`cogo.algebra.cyc_gauge.cyc_network` (``(t a, t b, c / t^2)``
    leaves every potential term, hence the loss, unchanged), then
    :func:`cogo.algebra.fourier_loss` -- the same function that computes every
    loss in cogo -- runs on it in exact arithmetic.

    Returns
    -------
    dict
        ``loss`` (a Fraction when the loss is rational, else None), ``value`` (the exact element of
        ``Q(zeta_L)``), ``L``, ``scales`` (the distinct gauge scales of the nodes, sorted) and ``nodes``.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F6, z_F46
    >>> cert = general_loss_certificate(z_F6(5, exact=True))  # the library's fourier_loss, exactly in Q(zeta_12)
    >>> cert["loss"], cert["L"], cert["nodes"]
    (Fraction(0, 1), 12, 12)
    >>> general_loss_certificate(z_F46(7, exact=True, corrected=False))["loss"]   # 2 (d - 3) / d
    Fraction(8, 7)
    """
    cz, scales = cyc_network(net, extra_scales=extra_scales)
    val = fourier_loss(cz)
    q = Fraction(int(val.p), int(val.q)) if isinstance(val, sympy.Rational) else val.to_rational()
    L = cz.z.ravel()[0].L if cz.z.size and hasattr(cz.z.ravel()[0], "L") else None
    return {"loss": q, "value": val, "L": L, "scales": sorted(set(scales)), "nodes": net.q}


