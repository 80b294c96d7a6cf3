"""The block designs of SPEC 7.1-7.3 (z_F6, its 7.2 variant, z_F4/6) and their parameters.

A :class:`BlockDesign` is the list of per-frequency blocks of SPEC 6 (a
frequency ``k``, the block's vectors ``(a, b, c)`` at ``k`` and, for z_F4/6,
the constant extensions of ``c`` at other frequencies).  The exact
certificates of :mod:`cogo.proofs.theorems` read the design: its block sums
do not depend on the group order.  :meth:`BlockDesign.to_network` assembles
it in Fourier coordinates (values at ``k``, conjugates at ``-k``, zero
elsewhere, exactly what :meth:`cogo.algebra.network.Network.block` does):
the networks ``z_F6``, ``z_F6_ab``, ``z_F46`` of
:mod:`cogo.solvers.constructions`, from which real weights and checkpoints
are made.  Every design here needs a group of odd order (every frequency
``k != 0`` distinct from ``-k``).

Parameters and their defaults
-----------------------------
Per-frequency parameters (``nu``, ``alpha``, ``beta``, ``xi``, ``s``) are
given as a scalar (the same value at every frequency), a dict keyed by
frequency (index, residue for cyclic groups, or coordinate tuple; the keys
must be among ``group.positive_frequencies``; missing keys take the default)
or a sequence in the order of ``group.positive_frequencies``.

=========  ==========================  =======================================
parameter  default (``seed=None``)     with ``seed=N``
=========  ==========================  =======================================
nu         1                           a rational point of the unit circle
alpha      1                           a rational point of the unit circle
beta       1                           a rational point of the unit circle
xi         1                           a rational point of the unit circle
s          +1                          +1 or -1 with equal probability
k0         first positive frequency    uniform among positive frequencies
=========  ==========================  =======================================

All defaults lie on the unit circle (trained networks show ``|nu| = 1``), so
the constructions are *balanced* (SPEC 7.5).  Seeded values are the exact
points ``((1 - t^2) + 2 t i) / (1 + t^2)`` of the unit circle for a rational
``t`` (the angle is drawn uniformly, then ``t = tan(angle/2)`` is rounded to
a fraction with denominator at most 64), so the same seed gives the same
construction numerically (``exact=False``) and exactly (``exact=True``).
Explicit parameters given with a seed override the drawn ones.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from cogo.algebra._lazy import is_sympy, lazy_module
from cogo.algebra.block import Block
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.network import Network, is_zero_exact
from cogo.algebra.group_parsing import Group, as_group, require_group
from cogo.catalogue.partial import PartialSolution, z_nu, z_nu_i, z_syn, z_syn_ab, z_xi
from cogo.catalogue.partial import clear_caches as _partial_clear_caches

# imported at first use (cogo.algebra._lazy): classify, train and --help never need exact arithmetic
sympy = lazy_module("sympy")

__all__ = [
    "BlockDesign",
    "abc_normalizer",
    "f6_design",
    "f6ab_design",
    "f46_design",
    "z_nu_design",
    "clear_caches",
]

DEFAULT_NU = 1
DEFAULT_ALPHA = 1
DEFAULT_BETA = 1
DEFAULT_XI = 1
DEFAULT_S = 1


# --------------------------------------------------------------------------- designs
@dataclass
class BlockDesign:
    """A network given as per-frequency blocks (SPEC 6), with its parameters.

    ``conj`` is the conjugation used for exact entries (``sympy.conjugate``
    unless symbolic unit-modulus parameters need :func:`cogo.catalogue.partial.unit_conjugate`).
    """

    group: FiniteAbelianGroup
    name: str
    blocks: list
    exact: bool
    params: dict = field(default_factory=dict)
    seed: int | None = None
    conj: Callable | None = None

    @property
    def q(self) -> int:
        """Total number of nodes."""
        return sum(b.q for b in self.blocks)

    def node_counts(self) -> dict:
        """Nodes per frequency index (the order of each block)."""
        out: dict = {}
        for b in self.blocks:
            out[b.k] = out.get(b.k, 0) + b.q
        return out

    def _cj(self, x):
        if not self.exact:
            return np.conj(x)
        f = self.conj or sympy.conjugate
        return f(x)

    def to_network(self) -> Network:
        """Assemble the design in Fourier coordinates: values at ``k``, conjugates at ``-k``, 0 elsewhere."""
        G = self.group
        n, q = G.order, self.q
        if self.exact:
            z = np.full((3, n, q), sympy.Integer(0), dtype=object)
        else:
            z = np.zeros((3, n, q), dtype=np.complex128)
        off = 0
        for blk in self.blocks:
            k, kn = int(blk.k), int(G.neg[blk.k])
            if k == kn:
                raise ValueError(f"a block needs k != -k; frequency {G.coords(k)} of {G} equals its negative")
            sl = slice(off, off + blk.q)
            for p, vec in enumerate((blk.part.a, blk.part.b, blk.part.c)):
                if self.exact:
                    z[p, k, sl] = list(vec)
                    z[p, kn, sl] = [self._cj(x) for x in vec]
                else:
                    z[p, k, sl] = vec
                    z[p, kn, sl] = np.conj(vec)
            for k2, val in blk.c_ext.items():
                k2, k2n = int(k2), int(G.neg[k2])
                if self.exact:
                    vals = [val] * blk.q if not isinstance(val, (list, tuple, np.ndarray)) else list(val)
                    z[2, k2, sl] = vals
                    z[2, k2n, sl] = [self._cj(x) for x in vals]
                else:
                    z[2, k2, sl] = val
                    z[2, k2n, sl] = np.conj(val)
            off += blk.q
        return Network(G, z, exact=self.exact)


# --------------------------------------------------------------------------- parameters
def _is_float_like(v: Any) -> bool:
    return isinstance(v, (float, complex, np.floating, np.complexfloating)) or \
        (is_sympy(v) and v.has(sympy.Float))


def _param_value(v: Any, name: str, exact: bool):
    """An exact sympy number (``exact=True``; floats refused) or a Python complex."""
    if exact:
        if _is_float_like(v):
            raise ValueError(f"exact constructions take exact parameters (int, Fraction, sympy); "
                             f"{name}={v!r} is a float")
        if isinstance(v, Fraction):
            v = sympy.Rational(v.numerator, v.denominator)
        try:
            v = sympy.sympify(v)
        except (sympy.SympifyError, TypeError):
            raise ValueError(f"{name}={v!r} is not a number") from None
        if v == 0:
            raise ValueError(f"{name} must be nonzero")
        return v
    if is_sympy(v):
        v = complex(sympy.N(v, 30))
    try:
        v = complex(v)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={v!r} is not a number") from None
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    if v == 0:
        raise ValueError(f"{name} must be nonzero")
    return v


def _is_unit(v: Any, exact: bool) -> bool:
    if exact:
        if v.free_symbols:
            return False
        return is_zero_exact(v * sympy.conjugate(v) - 1)
    return abs(abs(v) - 1.0) <= 1e-9


def _unit_point(rng: np.random.Generator):
    """A rational point of the unit circle, exact: ``((1-t^2) + 2 t i)/(1+t^2)``, ``t = tan(angle/2)``."""
    angle = float(rng.uniform(-np.pi, np.pi))
    t = Fraction(math.tan(angle / 2)).limit_denominator(64) if abs(angle) < np.pi - 1e-6 else Fraction(10**6)
    re, im = (1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)   # exact, in Fraction: the same sympy number
    return sympy.Rational(re.numerator, re.denominator) + sympy.I * sympy.Rational(im.numerator, im.denominator)


def _keys(G: FiniteAbelianGroup) -> list[int]:
    return [int(k) for k in G.positive_frequencies]


def _freq_key(G: FiniteAbelianGroup, k: Any, name: str) -> int:
    try:
        ki = G.index(k)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{name}: bad frequency {k!r}: {exc}") from None
    if ki not in set(_keys(G)):
        raise ValueError(f"{name}: frequency {k!r} of {G} is not one of the positive frequencies "
                         f"{[G.coords(x) if not G.is_cyclic else x for x in _keys(G)]}")
    return ki


def _is_scalar(v: Any) -> bool:
    return isinstance(v, (numbers.Number, Fraction)) or is_sympy(v) or (np.ndim(v) == 0 and not isinstance(v, dict))


def _per_frequency(value: Any, name: str, G: FiniteAbelianGroup, default: Any, exact: bool,
                   draws: dict | None, convert: Callable) -> dict:
    """Resolve a per-frequency parameter into ``{frequency index: value}``."""
    keys = _keys(G)
    base = {k: (draws[k] if draws is not None else default) for k in keys}
    if value is None:
        out = base
    elif isinstance(value, dict):
        out = dict(base)
        for k, v in value.items():
            out[_freq_key(G, k, name)] = v
    elif _is_scalar(value):
        out = {k: value for k in keys}
    else:
        seq = list(value)
        if len(seq) != len(keys):
            raise ValueError(f"{name}: expected {len(keys)} values (one per positive frequency of {G}), got {len(seq)}")
        out = dict(zip(keys, seq))
    return {k: convert(v, f"{name}[{k}]", exact) for k, v in out.items()}


def _s_value(v: Any, name: str, exact: bool) -> int:
    if is_sympy(v):
        v = int(v) if v.is_integer else v
    if v not in (1, -1) or isinstance(v, bool):
        raise ValueError(f"{name} must be +1 or -1, got {v!r}")
    return int(v)


def _rng(seed: int | None):
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.default_rng(int(seed))


def _draw_units(rng, keys):
    return None if rng is None else {k: _unit_point(rng) for k in keys}


def _design_setup(group: Group, exact: Any, seed: Any, what: str) -> tuple:
    """What every per-frequency design starts from: the checked ``exact`` flag, the group (odd order, else a
    one-line error naming ``what``), the parameter generator of ``seed`` and the positive frequencies."""
    exact = _check_exact_flag(exact)
    G = require_group(group, "_design_setup")  # parsed once, by the public design that called
    G.require_odd(what)
    rng = _rng(seed)
    return exact, G, rng, _keys(G)


def _check_exact_flag(exact: Any) -> bool:
    if not isinstance(exact, (bool, np.bool_)):
        raise ValueError(f"exact must be True or False, got {exact!r}")
    return bool(exact)


def abc_normalizer(m: int, exact: bool = False) -> Any:
    """``m^(-1/3)``: the factor that turns a block with ``abc = m`` into one with ``abc = 1`` (SPEC 7).

    The constructions scale their catalogue products by it (``6^(-1/3) . (z_syn * z_nu)``, ...), since the
    sum potentials are cubic in the weights (SPEC 4).

    Returns
    -------
    sympy.Expr or float
        The exact real cube root ``m^(-1/3)`` (``exact=True``), else its float64 value.

    Examples
    --------
    >>> abc_normalizer(6, exact=True), round(abc_normalizer(8), 15)
    (6**(2/3)/6, 0.5)
    """
    return sympy.Integer(m) ** sympy.Rational(-1, 3) if exact else float(m) ** (-1.0 / 3.0)


def _six_block(nu, exact: bool) -> PartialSolution:
    """``6^(-1/3) . (z_syn * z_nu(nu))`` (SPEC 7.1)."""
    return (z_syn(exact=exact) * z_nu(nu, exact=exact)) * abc_normalizer(6, exact)


# --------------------------------------------------------------------------- 7.1 z_F6
def f6_design(group: Any, nu: Any = None, seed: int | None = None, exact: bool = False) -> BlockDesign:
    """The design of z_F6 (SPEC 7.1): at each positive frequency k the block ``6^(-1/3) . (z_syn * z_nu(nu_k))``.

    ``nu``: scalar, dict or sequence over ``group.positive_frequencies``; any
    nonzero value (default 1; with ``seed`` a rational unit-circle point per
    frequency).  6 nodes per frequency, ``3 (n_G - 1)`` in all.

    Returns
    -------
    BlockDesign
        One 6-node block per positive frequency, parameters ``{"nu": {k: nu_k}}``.
    """
    exact, G, rng, keys = _design_setup(as_group(group), exact, seed, "z_F6")
    nus = _per_frequency(nu, "nu", G, DEFAULT_NU, exact, _draw_units(rng, keys), _param_value)
    cache: dict = {}
    blocks = []
    for k in keys:
        v = nus[k]
        if v not in cache:
            cache[v] = _six_block(v, exact)
        blocks.append(Block(k, cache[v]))
    return BlockDesign(G, "z_F6", blocks, exact, params={"nu": nus}, seed=seed)


# --------------------------------------------------------------------------- 7.2 z_F6 with z_{nu=i} * z_syn,ab
def f6ab_design(group: Any, alpha: Any = None, beta: Any = None, seed: int | None = None,
                exact: bool = False) -> BlockDesign:
    """The design of the SPEC 7.2 variant: blocks ``6^(-1/3) . (z_{nu=i} * z_syn,ab(alpha_k, beta_k))``.

    ``alpha``, ``beta`` must lie on the unit circle (default 1; with ``seed``
    rational unit-circle points).  6 nodes per frequency.

    Returns
    -------
    BlockDesign
        One 6-node block per positive frequency, parameters ``{"alpha": ..., "beta": ...}`` per frequency.
    """
    exact, G, rng, keys = _design_setup(as_group(group), exact, seed, "z_F6 with z_{nu=i} * z_syn,ab blocks")
    drawn_a = _draw_units(rng, keys)
    drawn_b = _draw_units(rng, keys)
    alphas = _per_frequency(alpha, "alpha", G, DEFAULT_ALPHA, exact, drawn_a, _param_value)
    betas = _per_frequency(beta, "beta", G, DEFAULT_BETA, exact, drawn_b, _param_value)
    for name, vals in (("alpha", alphas), ("beta", betas)):
        for k, v in vals.items():
            if not _is_unit(v, exact):
                raise ValueError(f"{name}[{k}] = {v} is not on the unit circle; z_syn,ab needs |{name}| = 1 "
                                 "(its R_n sum vanishes only then)")
    cache: dict = {}
    blocks = []
    for k in keys:
        key = (alphas[k], betas[k])
        if key not in cache:
            cache[key] = (z_nu_i(exact=exact) * z_syn_ab(alphas[k], betas[k], exact=exact)) * abc_normalizer(6, exact)
        blocks.append(Block(k, cache[key]))
    return BlockDesign(G, "z_F6_ab", blocks, exact, params={"alpha": alphas, "beta": betas}, seed=seed)


# --------------------------------------------------------------------------- 7.3 z_F4/6
def _four_block(xi, s: int, exact: bool) -> PartialSolution:
    """``4^(-1/3) . (z_{nu=i} * z_xi(xi, s))`` (SPEC 7.3)."""
    return (z_nu_i(exact=exact) * z_xi(xi, s, exact=exact)) * abc_normalizer(4, exact)


def f46_design(group: Any, k0: Any = None, xi: Any = None, s: Any = None, nu: Any = None,
               seed: int | None = None, exact: bool = False, corrected: bool = True,
               check_unit: bool = True) -> BlockDesign:
    """The design of z_F4/6 (SPEC 7.3).

    At ``k0`` the order-6 block ``6^(-1/3) . (z_syn * z_nu(nu))``; at every
    other positive frequency k the order-4 block
    ``4^(-1/3) . (z_{nu=i} * z_xi(xi_k, s_k))``.  With ``corrected=True``
    (the hat correction) the six nodes of the ``k0`` block get the output
    value ``gamma_k`` at every other frequency k (``conj(gamma_k)`` at -k)::

        gamma_k = -(|a|^2 c + |b|^2 c of the order-4 block at k)
                  / (sum over the six nodes of |a|^2 + |b|^2)

    which makes R_n at k exactly 0.  ``corrected=False`` leaves it out (the
    negative control of SPEC 7.3: positive loss).  ``nu`` (a scalar, default
    1) must lie on the unit circle: the hat correction touches no other
    condition only then (``sum_j conj(a_j) b_j = 3 (1 - |nu|^2)`` over the
    six nodes); ``check_unit=False`` skips the check (for demonstrating just
    that).  ``xi`` must lie on the unit circle too.  ``6 + 4 ((n_G - 1)/2 - 1)`` nodes.

    Returns
    -------
    BlockDesign
        The order-6 block at ``k0`` (with the hat extensions ``gamma_k`` of ``c`` when ``corrected``) and
        one order-4 block at every other positive frequency; parameters ``k0``, ``nu``, ``xi``, ``s``.
    """
    exact, G, rng, keys = _design_setup(as_group(group), exact, seed, "z_F4/6")
    # draw order: k0, nu, xi per frequency, s per frequency
    k0_drawn = int(keys[int(rng.integers(len(keys)))]) if rng is not None else keys[0]
    nu_drawn = _unit_point(rng) if rng is not None else DEFAULT_NU
    xi_drawn = _draw_units(rng, keys)
    s_drawn = None if rng is None else {k: int(rng.choice([1, -1])) for k in keys}
    k0i = k0_drawn if k0 is None else _freq_key(G, k0, "k0")
    if nu is not None and not _is_scalar(nu):
        raise ValueError("nu of z_F4/6 is one value (the order-6 block at k0)")
    nu_v = _param_value(nu_drawn if nu is None else nu, "nu", exact)
    xis = _per_frequency(xi, "xi", G, DEFAULT_XI, exact, xi_drawn, _param_value)
    ss = _per_frequency(s, "s", G, DEFAULT_S, exact, s_drawn, _s_value)
    if check_unit and not _is_unit(nu_v, exact):
        raise ValueError(f"nu = {nu_v} is not on the unit circle: the hat correction of z_F4/6 is orthogonal "
                         "to the other monomials only for |nu| = 1 (sum_j conj(a_j) b_j = 3(1 - |nu|^2))")
    for k in keys:
        if k != k0i and not _is_unit(xis[k], exact):
            raise ValueError(f"xi[{k}] = {xis[k]} is not on the unit circle; z_xi needs |xi| = 1")
    six = _six_block(nu_v, exact)
    four_cache: dict = {}
    fours = {}
    for k in keys:
        if k == k0i:
            continue
        key = (xis[k], ss[k])
        if key not in four_cache:
            four_cache[key] = _four_block(xis[k], ss[k], exact)
        fours[k] = four_cache[key]
    c_ext: dict = {}
    if corrected and fours:
        c_ext = _hat_gammas(six, fours, exact)
    blocks = [Block(k0i, six, c_ext)] + [Block(k, fours[k]) for k in keys if k != k0i]
    params = {"k0": k0i, "nu": nu_v, "xi": {k: v for k, v in xis.items() if k != k0i},
              "s": {k: v for k, v in ss.items() if k != k0i}}
    name = "z_F4/6" if corrected else "z_F4/6 (uncorrected)"
    return BlockDesign(G, name, blocks, exact, params=params, seed=seed)


def _norm_terms(xs) -> list:
    return [x * sympy.conjugate(x) for x in xs]


def _rn_terms(nodes) -> list:
    return [x * sympy.conjugate(x) * z + y * sympy.conjugate(y) * z for x, y, z in nodes]


#: ``_exact_sum`` by (terms, entries): a pure function of immutable sympy values (the seeded
#: blocks recur at every group order); emptied at _SUM_MEMO_MAX entries and by clear_caches().
_SUM_MEMO: dict = {}
_SUM_MEMO_MAX = 1 << 12


def _exact_sum(terms: Callable, entries: tuple):
    """``sympy.expand`` of the sum (from ``Integer(0)``) of ``terms(entries)``, memoized by value."""
    key = (terms, entries)
    out = _SUM_MEMO.get(key)
    if out is None:
        if len(_SUM_MEMO) >= _SUM_MEMO_MAX:
            _SUM_MEMO.clear()
        out = _SUM_MEMO[key] = sympy.expand(sum(terms(entries), sympy.Integer(0)))
    return out


def clear_caches() -> None:
    """Forget the memoized exact sums here and the exact entries of :mod:`cogo.catalogue.partial`."""
    _SUM_MEMO.clear()
    _partial_clear_caches()


def _hat_gammas(six: PartialSolution, fours: dict, exact: bool) -> dict:
    """``gamma_k`` for every order-4 block (vectorized over frequencies numerically, cached per block type exactly)."""
    ks = list(fours)
    if exact:
        den = _exact_sum(_norm_terms, tuple(six.a) + tuple(six.b))
        cache: dict = {}
        out = {}
        for k in ks:
            part = fours[k]
            if id(part) not in cache:
                rn = _exact_sum(_rn_terms, tuple(zip(part.a, part.b, part.c)))   # the R_n sum only
                cache[id(part)] = sympy.expand(sympy.radsimp(-rn / den))
            out[k] = cache[id(part)]
        return out
    den = float(np.sum(np.abs(six.a) ** 2 + np.abs(six.b) ** 2))
    A = np.stack([fours[k].a for k in ks])  # (K, 4)
    B = np.stack([fours[k].b for k in ks])
    C = np.stack([fours[k].c for k in ks])
    rn = ((np.abs(A) ** 2 + np.abs(B) ** 2) * C).sum(axis=1)
    gam = -rn / den
    return {k: complex(g) for k, g in zip(ks, gam)}


# --------------------------------------------------------------------------- negative control: z_nu alone
def z_nu_design(group: Any, nu: Any = None, seed: int | None = None, exact: bool = False) -> BlockDesign:
    """Blocks ``2^(-1/3) . z_nu(nu_k)`` at every positive frequency: r_kkk = 1 but R_c fails (a negative control).

    Returns
    -------
    BlockDesign
        Blocks of two nodes (one block at each positive frequency ``k``), with ``params["nu"][k] = nu_k``.
    """
    exact, G, rng, keys = _design_setup(as_group(group), exact, seed, "the z_nu network")
    nus = _per_frequency(nu, "nu", G, DEFAULT_NU, exact, _draw_units(rng, keys), _param_value)
    blocks = [Block(k, z_nu(nus[k], exact=exact) * abc_normalizer(2, exact)) for k in keys]
    return BlockDesign(G, "z_nu alone", blocks, exact, params={"nu": nus}, seed=seed)


