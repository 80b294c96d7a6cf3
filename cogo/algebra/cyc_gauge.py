"""Exact sympy networks gauge-fixed into ``Q(zeta_L)``: entries as :class:`~cogo.algebra.cyclotomic.CycNumber` (SPEC 8.4).

The constructions of SPEC 7 have entries such as ``6^(-1/3) exp(2 pi i k / n)``: root-of-unity multiples
of per-node real radicals, outside any cyclotomic field.  A node ``(a, b, c)`` and its gauge transform
``(a / t, b / t, c t^2)`` (``t > 0`` real) give the same potentials and loss (every potential term has two
input factors and one output factor), so :func:`cyc_network` and :func:`gauge_fix_nodes` choose per node the
first ``t`` of :func:`gauge_scales` that puts every entry of the node in ``Q(zeta_L)``, and convert the entries
exactly (rational coefficients, ``I``, ``exp(2 pi i r)``, ``(-1)^r``, ``sqrt 2``, ``sqrt 3`` and rational
powers of primes that the gauge cancels).  An entry with no exact form is never approximated: the functions
return None or raise.
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import sympy

from cogo.algebra.cyclotomic import CycNumber
from cogo.algebra.network import Network

__all__ = ["cyc_network", "gauge_fix_nodes", "gauge_scales", "entries_order", "clear_caches"]

_SQRT_ROOTS = {2: (8, 1), 3: (12, 1)}  # sqrt(2) = z8 + z8^-1, sqrt(3) = z12 + z12^-1


def _factor_exponents(base: sympy.Rational, ex: Fraction, acc: dict) -> None:
    for p, m in sympy.factorint(int(base.p)).items():
        acc[p] = acc.get(p, Fraction(0)) + m * ex
    for p, m in sympy.factorint(int(base.q)).items():
        acc[p] = acc.get(p, Fraction(0)) - m * ex


@lru_cache(maxsize=65536)
def _parse_terms(expr: Any) -> tuple | None:
    """``expand(expr)`` as ``((coeff, ((base, exponent), ...)), ...)``, one entry per nonzero product term.

    The part of :func:`_to_cyc` that does not depend on the gauge shift or ``L`` (a pure function of an
    immutable sympy value), so the candidate gauges of :func:`cyc_network` expand each entry once.  None
    when a term's coefficient is not rational.
    """
    e = sympy.expand(sympy.sympify(expr))
    out = []
    for term in sympy.Add.make_args(e):
        if term == 0:
            continue
        coeff, rest = term.as_coeff_Mul()
        if not isinstance(coeff, sympy.Rational):
            return None
        out.append((coeff, tuple(rest.as_powers_dict().items())))
    return tuple(out)


def _term_to_cyc(term: tuple, shift: dict, L: int) -> CycNumber | None:
    """One parsed product term ``q * prod p^(e_p) * I^j * exp(2 pi i r)`` (see :func:`_parse_terms`) times
    ``prod p^(shift_p)`` in Q(zeta_L), or None."""
    coeff, powers = term
    exps = dict(shift)
    out = CycNumber.rational(L, Fraction(int(coeff.p), int(coeff.q)))
    for base, ex in powers:
        if base is sympy.I or base == -1:  # I^j, or (-1)^r = zeta_2^r
            r = sympy.Rational(ex) * (sympy.Rational(1, 4) if base is sympy.I else sympy.Rational(1, 2))
            if not isinstance(r, sympy.Rational) or (L * r).q != 1:
                return None
            out = out * CycNumber.root(L, int(L * r))
        elif base is sympy.E:
            r = sympy.nsimplify(ex / (2 * sympy.pi * sympy.I))
            if not isinstance(r, sympy.Rational) or (L * r).q != 1:
                return None
            out = out * CycNumber.root(L, int(L * r))
        elif isinstance(base, sympy.Rational) and isinstance(ex, sympy.Rational):
            _factor_exponents(base, Fraction(int(ex.p), int(ex.q)), exps)
        else:
            return None
    for p, e in exps.items():
        if e == 0:
            continue
        whole = math.floor(e)
        frac = e - whole
        out = out * (Fraction(p) ** whole)
        if frac == Fraction(1, 2) and p in _SQRT_ROOTS:
            m, _ = _SQRT_ROOTS[p]
            out = out * (CycNumber.root(L, L // m) + CycNumber.root(L, -(L // m)))
        elif frac != 0:
            return None
    return out


def _to_cyc(expr: Any, shift: dict, L: int) -> CycNumber | None:
    terms = _parse_terms(sympy.sympify(expr))
    if terms is None:
        return None
    total = CycNumber.rational(L, 0)
    for term in terms:
        t = _term_to_cyc(term, shift, L)
        if t is None:
            return None
        total = total + t
    return total


def _root_orders(z: np.ndarray) -> int:
    """The smallest ``L`` used: lcm of 4 (if ``I`` occurs), 8 / 12 (if sqrt 2 / sqrt 3 occur) and the
    orders of the roots of unity written ``exp(2 pi i r)`` in the entries."""
    L = 1
    for e in {sympy.sympify(x) for x in z.ravel()}:
        L = math.lcm(L, _entry_order(e))
    return max(L, 4) if L % 4 else L


@lru_cache(maxsize=65536)
def _entry_order(e: sympy.Expr) -> int:
    """The ``L`` of :func:`_root_orders` for one entry (a pure function of an immutable sympy value)."""
    L = 1

    def lcm(a, b):
        return a * b // math.gcd(a, b)

    if e.has(sympy.I):
        L = lcm(L, 4)
    for a in e.atoms(sympy.exp):
        r = sympy.nsimplify(a.args[0] / (2 * sympy.pi * sympy.I))
        if isinstance(r, sympy.Rational):
            L = lcm(L, int(r.q))
    for pw in e.atoms(sympy.Pow):
        if isinstance(pw.base, sympy.Rational) and isinstance(pw.exp, sympy.Rational) and pw.exp.q % 2 == 0:
            primes = set(sympy.factorint(int(pw.base.p))) | set(sympy.factorint(int(pw.base.q)))
            if 2 in primes:
                L = lcm(L, 8)
            if 3 in primes:
                L = lcm(L, 12)
    return L


def gauge_scales(max_m: int = 12, extra: tuple = ()) -> list:
    """Candidate node scales ``t = m^(-1/3)`` (and ``t = m^(-2/3)`` for ``m`` in ``extra``) as prime-exponent dicts.

    Returns
    -------
    list of (str, dict)
        Per candidate scale its name and its prime-exponent dict.

    Examples
    --------
    >>> gauge_scales(3)
    [('1^(-1/3)', {}), ('2^(-1/3)', {2: Fraction(-1, 3)}), ('3^(-1/3)', {3: Fraction(-1, 3)})]
    >>> gauge_scales(1, extra=(4,))[-1]                 # 4^(-2/3) = 2^(-4/3)
    ('4^(-2/3)', {2: Fraction(-4, 3)})
    """
    out = []
    for m in range(1, max_m + 1):
        d: dict = {}
        _factor_exponents(sympy.Integer(m), Fraction(-1, 3), d)
        out.append((f"{m}^(-1/3)", d))
    for m in extra:
        d = {}
        _factor_exponents(sympy.Integer(m), Fraction(-2, 3), d)
        out.append((f"{m}^(-2/3)", d))
    return out


@lru_cache(maxsize=1)
def _node_gauges() -> tuple:
    """``(up, key of up, down, key of down)`` for every scale of ``gauge_scales()``: divide inputs, multiply outputs."""
    out = []
    for _, t in gauge_scales():
        up = {p: -e for p, e in t.items()}
        down = {p: 2 * e for p, e in t.items()}
        out.append((up, tuple(sorted(up.items())), down, tuple(sorted(down.items()))))
    return tuple(out)


#: ``(sympy entry, gauge shift, L) -> CycNumber or None`` (:func:`_to_cyc`, a pure function of its immutable
#: arguments), shared across networks: the seeded constructions of every order repeat the blocks of smaller
#: orders.  Cleared when it outgrows ``_TO_CYC_CACHE_MAX`` entries, and by :func:`clear_caches`.
_TO_CYC_CACHE: dict = {}
_TO_CYC_CACHE_MAX = 200_000


def clear_caches() -> None:
    """Forget the cached sympy -> CycNumber conversions (benchmarks time cold runs with it).

    >>> clear_caches(); len(_TO_CYC_CACHE)
    0
    """
    _TO_CYC_CACHE.clear()
    _parse_terms.cache_clear()
    _entry_order.cache_clear()


def _converter(L: int):
    """``conv(entry, shift, key of shift)``: :func:`_to_cyc` in ``Q(zeta_L)`` through the shared cache."""
    if len(_TO_CYC_CACHE) > _TO_CYC_CACHE_MAX:
        _TO_CYC_CACHE.clear()
    cache = _TO_CYC_CACHE

    def conv(e, sh, key_sh):
        key = (e, key_sh, L)
        if key not in cache:
            cache[key] = _to_cyc(e, sh, L)
        return cache[key]

    return conv


def entries_order(values: Any) -> int:
    """The ``L`` that :func:`cyc_network` would use for these sympy entries (see ``_root_orders``).

    Examples
    --------
    >>> import sympy
    >>> entries_order([sympy.I, sympy.sqrt(3) / 2]), entries_order([1])
    (12, 4)
    """
    return _root_orders(np.asarray(list(values), dtype=object))


def gauge_fix_nodes(a: Any, b: Any, cols: tuple = (), L: int | None = None) -> tuple | None:
    """Per node ``j``, ``(a_j / t_j, b_j / t_j, w_j t_j^2 for w in cols)`` as CycNumbers of ``Q(zeta_L)``, exactly.

    ``t_j`` is the first of ``m^(-1/3)``, ``m = 1..12`` (:func:`gauge_scales`)
    for which every one of the node's values converts exactly (as in
    :func:`cyc_network`).  Any sum over nodes of ``x_j y_j w_j`` with ``x, y``
    among ``a, b, conj(a), conj(b)`` and ``w`` one output value (or its
    conjugate) is unchanged by the gauge, since ``t_j`` is real and positive
    (``t t t^-2 = 1``, SPEC 8.4): so the monomial sums of SPEC 6 of a block are
    computed exactly from the returned values.  ``L`` defaults to
    :func:`entries_order` of all the values.  Returns ``(L, A, B, [W, ...])``
    (lists of CycNumbers), or None when some node fits no candidate (nothing
    is approximated; callers then use sympy).

    Returns
    -------
    tuple or None
        The gauge-fixed nodes, or None when some node has no exact form in ``Q(zeta_L)``.

    Examples
    --------
    >>> import sympy
    >>> t = sympy.Integer(6) ** sympy.Rational(-1, 3)
    >>> L, A, B, (C,) = gauge_fix_nodes([t, t * sympy.I], [t, -t], [[t, t * sympy.I]])
    >>> L, A[1] == CycNumber.root(4, 1), C[0] == sympy.Rational(1, 6)
    (4, True, True)
    >>> gauge_fix_nodes([sympy.sqrt(5)], [1]) is None     # sqrt 5 is no m^(-1/3) multiple of Q(zeta_4)
    True
    """
    a = [sympy.sympify(x) for x in a]
    b = [sympy.sympify(x) for x in b]
    cols = [[sympy.sympify(x) for x in w] for w in cols]
    if any(len(w) != len(a) for w in cols) or len(b) != len(a):
        raise ValueError("gauge_fix_nodes: every vector needs one value per node")
    if L is None:
        L = entries_order(a + b + [x for w in cols for x in w])
    conv = _converter(L)
    A, B, W = [], [], [[] for _ in cols]
    for j in range(len(a)):
        for up, ku, down, kd in _node_gauges():
            vals = [conv(a[j], up, ku), conv(b[j], up, ku)]
            if any(v is None for v in vals):
                continue
            vals += [conv(w[j], down, kd) for w in cols]
            if any(v is None for v in vals):
                continue
            A.append(vals[0])
            B.append(vals[1])
            for i in range(len(cols)):
                W[i].append(vals[2 + i])
            break
        else:
            return None
    return L, A, B, W


def cyc_network(net, extra_scales: tuple = ()):
    """Gauge-fix an exact sympy network into CycNumbers, node by node (SPEC 8.4).

    Each node ``j`` is written ``(t_j u_a, t_j u_b, t_j^-2 u_c)`` with ``u`` in
    ``Q(zeta_L)`` (``L`` = :func:`entries_order` of the entries: a multiple of
    4 and of the orders of the roots of unity in them) and ``t_j`` the first of ``m^(-1/3)``, ``m = 1..12`` (then
    ``m^(-2/3)`` for ``m`` in ``extra_scales``) for which every entry of the
    node converts exactly; the returned network holds ``(u_a, u_b, u_c)``.
    Every potential term of the node is multiplied by ``t_j^2 t_j^-2 = 1``,
    so all potentials (and the loss of SPEC 5) are those of ``net``; the
    real-space function is unchanged as well.  Raises ValueError when a node
    fits no candidate (nothing is approximated).  Returns ``(network, scales)``.

    Returns
    -------
    tuple ``(Network, scales)``
        The gauge-fixed exact network of CycNumbers and the scale ``t_j`` chosen per node.

    Examples
    --------
    >>> from cogo.algebra import fourier_loss
    >>> from cogo.solvers.constructions import z_F6
    >>> net, scales = cyc_network(z_F6(5, exact=True))  # 12 nodes, each 6^(-1/3) times Q(zeta_12) entries
    >>> len(scales), scales[0], fourier_loss(net) == 0   # the loss of SPEC 5, exactly 0
    (12, '6^(-1/3)', True)
    """
    if not net.exact:
        raise ValueError("cyc_network needs an exact network")
    L = _root_orders(net.z)
    cands = gauge_scales(extra=extra_scales)
    z = np.empty(net.z.shape, dtype=object)
    scales = []
    conv = _converter(L)
    for j in range(net.q):
        for name, t in cands:
            up = {p: -e for p, e in t.items()}  # divide a, b by t
            down = {p: 2 * e for p, e in t.items()}  # multiply c by t^2
            col = np.empty((3, net.n), dtype=object)
            ok = True
            for p in range(3):
                sh = down if p == 2 else up
                key_sh = tuple(sorted(sh.items()))
                for k in range(net.n):
                    c = conv(net.z[p, k, j], sh, key_sh)
                    if c is None:
                        ok = False
                        break
                    col[p, k] = c
                if not ok:
                    break
            if ok:
                z[:, :, j] = col
                scales.append(name)
                break
        else:
            raise ValueError(f"node {j}: no gauge m^(-1/3) (m <= 12) puts its entries in Q(zeta_{L})")
    return Network(net.group, z, exact=True), scales
