"""The block constructions and block controls of ``cogo verify --every-order``, with symbolic frequencies (SPEC 7).

Each :class:`~cogo.proofs.every_order.block_proofs.BlockModel` is built from the catalogue
of :mod:`cogo.catalogue.partial` with symbolic parameters (``nu`` any nonzero
number for z_F6, unit ``alpha``, ``beta``, ``nu``, ``xi`` elsewhere) and
carries ``check(d)``: the library's exact design at order ``d`` (seed 1) has
one block per positive frequency, each equal to the model's family at the
design's parameters (and the hat values ``gamma_k`` equal to the model's),
and its network reads back into exactly these blocks
(:func:`cogo.proofs.certificates.design_reader.design_from_network`: supports at ``+-k``
only, Hermitian).  ``instance(d)`` is the per-order proof
(:func:`cogo.proofs.theorems.optimality.optimality`) for the finitely many orders below
the symbolic range.

The controls are broken on purpose, and their expected failing orders and
losses are derived by hand:

* ``z_F6, c doubled where 3k = 0 (mod d)``: the block at ``k = d/3`` (which
  exists exactly when ``3 | d``) has ``abc = 2``, so ``l_k = -4 + 4 = 0``
  at ``+-d/3`` instead of ``-1``: loss ``2/d`` for ``3 | d``, 0 otherwise.
* ``z_F4/6 without the hat``: ``l_k = -1 + |1 + s i|^2 = 1`` at the
  ``d - 3`` outputs of the order-4 blocks: loss ``2 (d - 3)/d`` for odd
  ``d >= 5`` (SPEC 7.3); ``d = 3`` has no order-4 block and passes.
* ``z_nu blocks`` (``nu = 1``, scale ``2^(-1/3)``): ``r_kkk = 1`` and the
  three R_c sums ``conj(a) b c``, ``a conj(b) c``, ``conj(a) conj(b) c``
  are 1 at each output, ``l_k = -2 + 1 + 3 = 2``: loss ``3 (d - 1)/d`` for
  every odd ``d`` (``cogo.proofs.controls.broken_constructions``: ``(4P + n - 1)/n``, ``P = (n-1)/2``).
* ``z_syn blocks`` (scale ``3^(-1/3)``): only R_* fails, ``a^2 c = b^2 c = 1``,
  ``l_k = -2 + 1 + 2 |1/2|^2 = -1/2``: loss ``(d - 1)/(2 d)`` for every odd ``d``
  (``cogo.proofs.controls.broken_constructions``, ``block route: R_* only``: ``(n - 1 - P)/n``).
* ``z_F4/6 with every hat value tripled``: R_n at each order-4 output is
  ``(1 + s i) - 3 (1 + s i) = -2 (1 + s i)``, ``l_k = -1 + 8 = 7`` there, ``-1``
  at ``+-k0``: loss ``8 (d - 3)/d`` for odd ``d >= 5``; ``d = 3`` has no hat and passes.
* ``order-4 blocks without hat`` (``4^(-1/3) z_{nu=i} * z_xi(1, +1)`` at every
  frequency): ``l_k = -1 + |1 + i|^2 = 1``: loss ``2 (d - 1)/d``.
* ``z_nu(1) * z_xi(1, +1) blocks`` (scale ``4^(-1/3)``): only ``conj(a) b c = 1``,
  ``l_k = -2 + 1 + 1 = 0``: loss ``(d - 1)/d`` (``block route: R_c only``).
* ``unbalanced order-4 blocks`` (the R_n term's form): the order-4 block above with ``a`` of nodes 0, 2 doubled
  and their ``b`` halved (``cogo.proofs.controls.unseen_inputs``, ``unbalanced nodes``): ``abc``, R_c and R_* do not
  move, ``R_n = sum |a|^2 c + sum |b|^2 c = (8 + 2 i)/4 + (1/2 + 2 i)/4 = 17/8 + i``, ``l_k = -1 + 353/64 = 289/64``
  at every ``k != 0``: loss ``(d - 1)/d (289/64 + 1) = 353 (d - 1)/(64 d)``; only R_n fails.  A form that reads
  ``|a|^2`` for ``|b|^2`` (equal on balanced nodes) gives another loss.
* ``z_F4/6 with the hat on a z_syn block`` (the cross terms): the order-6 block at ``k0`` replaced by
  ``t z_syn`` (``t = 3^(-1/3)``, ``a = b = c = t w^j``, ``j = 0, 1, 2``) carrying the hat ``gamma = -R/(6 t^2)``
  that cancels R_n (``R = 1 + s i`` the order-4 block's R_n term ``sum (|a|^2 + |b|^2) c``, the self sums at
  ``m = 0`` counting ``(k, -k)`` and ``(-k, k)``).  At an order-4 output the hat nodes add the cross terms
  ``r[k0, -k0] = r[-k0, k0] = sum a conj(b) gamma = 3 t^2 gamma = -(1 + s i)/2`` (``sum a b = sum a^2 = 0``
  over ``w^(2j)``): ``l_k = -1 + 2 |1 + s i|^2/4 = 0`` there, R_c fails; at ``+-k0`` the z_syn block alone,
  ``l = -1/2`` (R_* fails): loss ``(2 (-1/2) + 0 (d - 3))/d + (d - 1)/d = (d - 2)/d`` for every odd ``d``
  (``d = 3``: z_syn alone, ``(2 (-1/2))/3 + 2/3 = 1/3``; the per-order case fails, its z_syn class not ``-1``).

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import sympy

from cogo.algebra.network import Network
from cogo.catalogue.constructions import CONSTRUCTIONS, construction, resolve
from cogo.catalogue.partial import PartialSolution, unit_conjugate, z_nu, z_nu_i, z_syn, z_syn_ab, z_xi
from cogo.solvers import constructions as C
from cogo.solvers import designs
from cogo.proofs.every_order.collisions import D
from cogo.proofs.certificates.design_reader import design_from_network
from cogo.proofs.every_order.block_proofs import BlockModel, Family
from cogo.proofs.theorems.optimality import optimality
from cogo.proofs.certificates.exact_zero import decide_zero

__all__ = ["constructions", "controls", "bracket_control_network", "CONTROL_EXPECT"]

_NU, _NUB, _AL, _BE, _XI = sympy.symbols("nu nu_bar alpha beta xi")
_B3 = sympy.Symbol("b3")

#: Hand-derived expectations of the block controls (module docstring): the failing orders, the loss there and the
#: conditions that fail.
CONTROL_EXPECT = {
    "z_F6, c doubled where 3k = 0 (mod d)": (lambda d: d % 2 == 1 and d % 3 == 0, 2 / D, ["R_g"]),
    "z_F4/6 without the hat correction": (lambda d: d % 2 == 1 and d >= 5, 2 * (D - 3) / D, ["R_n"]),
    "z_F4/6 with every hat value tripled": (lambda d: d % 2 == 1 and d >= 5, 8 * (D - 3) / D, ["R_n"]),
    "z_nu blocks": (lambda d: d % 2 == 1, 3 * (D - 1) / D, ["R_c"]),
    "z_syn blocks": (lambda d: d % 2 == 1, (D - 1) / (2 * D), ["R_*"]),
    "order-4 blocks without hat": (lambda d: d % 2 == 1, 2 * (D - 1) / D, ["R_n"]),
    "z_nu(1) * z_xi(1, +1) blocks": (lambda d: d % 2 == 1, (D - 1) / D, ["R_c"]),
    "unbalanced order-4 blocks": (lambda d: d % 2 == 1, 353 * (D - 1) / (64 * D), ["R_n"]),
    "z_F4/6 with the hat on a z_syn block": (lambda d: d % 2 == 1, (D - 2) / D, ["R_c", "R_*"]),
}


def _six(exact_nu) -> PartialSolution:
    return (z_syn(exact=True) * z_nu(exact_nu, exact=True)) * designs.abc_normalizer(6, True)


def _four(xi, s: int) -> PartialSolution:
    return (z_nu_i(exact=True) * z_xi(xi, s, exact=True)) * designs.abc_normalizer(4, True)


def _free_conj(e):
    """Conjugation with ``nu`` any nonzero complex number: ``conj(nu)`` is the independent ``nu_bar``."""
    return sympy.expand(sympy.conjugate(e).subs({sympy.conjugate(_NU): _NUB, sympy.conjugate(_NUB): _NU}))


def _same(part: PartialSolution, model: PartialSolution, subs: dict) -> bool:
    return all(decide_zero(sympy.expand(x - sympy.sympify(y).subs(subs))) is True
               for u, v in ((part.a, model.a), (part.b, model.b), (part.c, model.c)) for x, y in zip(u, v))


def _design_problems(design, expected: Callable) -> list:
    """The design has one block per positive frequency, each as the model says, and reads back into them."""
    G = design.group
    keys = sorted(int(k) for k in G.positive_frequencies)
    out = []
    if sorted(int(b.k) for b in design.blocks) != keys:
        out.append(f"d = {G.order}: blocks not one per positive frequency")
    for b in design.blocks:
        out += [f"d = {G.order}, k = {b.k}: {p}" for p in expected(b)]
    _, problems = design_from_network(design.to_network())
    return out + [f"d = {G.order}: {p}" for p in problems]


def _instance(kind: str) -> Callable:
    def run(d: int) -> tuple:
        r = optimality(d, kind, "exact")
        return r.passed, f"per-order proof optimality({d}, {kind!r}, 'exact')"

    return run


def _net_instance(build: Callable) -> Callable:
    def run(d: int) -> tuple:
        r = optimality(d, "z_F6", "exact", net=build(d))
        return r.passed, f"per-order proof optimality({d}, net=...)"

    return run


# --------------------------------------------------------------------------- the constructions
def _f6(bracket: bool = False) -> BlockModel:
    fam = Family("order-6 block", "k", _six(_NU), True, bracket=(3, _B3) if bracket else None)

    def check(d):
        des = designs.f6_design(d, seed=1, exact=True)
        if bracket:
            des = _bracket_design(des)

        def exp(b):
            nu = des.params["nu"][int(b.k)]
            part = fam.part
            if bracket and (3 * int(b.k)) % d == 0:
                part = PartialSolution(part.name, part.a, part.b, part.c * 2)
            return [] if _same(b.part, part, {_NU: nu, _NUB: sympy.conjugate(nu)}) else ["entries differ"]

        return _design_problems(des, exp)

    title = "z_F6, c doubled where 3k = 0 (mod d)" if bracket else construction("z_F6").title
    return BlockModel("z_F6", title, [fam], _free_conj, "nu any nonzero number (nu_bar independent)",
                      check=check, instance=_instance("z_F6"))


def _f6ab() -> BlockModel:
    fam = Family("order-6 block", "k", (z_nu_i(exact=True) * z_syn_ab(_AL, _BE)) * designs.abc_normalizer(6, True), True)

    def check(d):
        des = designs.f6ab_design(d, seed=1, exact=True)

        def exp(b):
            k = int(b.k)
            ok = _same(b.part, fam.part, {_AL: des.params["alpha"][k], _BE: des.params["beta"][k]})
            return [] if ok else ["entries differ"]

        return _design_problems(des, exp)

    return BlockModel("z_F6_ab", construction("z_F6_ab").title, [fam], unit_conjugate(_AL, _BE),
                      "|alpha| = |beta| = 1", check=check, instance=_instance("z_F6_ab"))


def _f46(hat: bool = True) -> BlockModel:
    conj = unit_conjugate(_NU, _XI)
    six = Family("order-6 block at k0" + (" with the hat" if hat else ""), "k0", _six(_NU), False, hat=hat)
    fours = [Family(f"order-4 block s={s:+d}", "k", _four(_XI, s), True) for s in (1, -1)]

    def gamma(h: Family, fam: Family):
        rn = sum((a * conj(a) + b * conj(b)) * c for a, b, c in zip(fam.part.a, fam.part.b, fam.part.c))
        den = sum(a * conj(a) + b * conj(b) for a, b in zip(h.part.a, h.part.b))
        return sympy.expand(sympy.radsimp(-sympy.expand(rn) / sympy.expand(den)))

    def check(d):
        des = designs.f46_design(d, seed=1, exact=True, corrected=hat)
        P = des.params
        subs0 = {_NU: P["nu"]}

        def exp(b):
            k = int(b.k)
            if k == P["k0"]:
                out = [] if _same(b.part, six.part, subs0) else ["order-6 entries differ"]
                for k2, g in b.c_ext.items():
                    fam = fours[0] if P["s"][int(k2)] == 1 else fours[1]
                    want = gamma(six, fam).subs({_XI: P["xi"][int(k2)], **subs0})
                    out += [] if decide_zero(sympy.expand(g - want)) is True else [f"hat value at {k2} differs"]
                others = {int(x) for x in des.group.positive_frequencies} - {k}
                if {int(x) for x in b.c_ext} != (others if hat else set()):
                    out.append("hat extensions not exactly at the other positive frequencies")
                return out
            fam = fours[0] if P["s"][k] == 1 else fours[1]
            return [] if _same(b.part, fam.part, {_XI: P["xi"][k]}) else ["order-4 entries differ"]

        return _design_problems(des, exp)

    title = construction("z_F46").title if hat else "z_F4/6 without the hat correction"
    inst = _instance("z_F46") if hat else _net_instance(lambda d: C.z_F46(d, seed=1, exact=True, corrected=False))
    return BlockModel("z_F46", title, [six] + fours, conj, "|nu| = |xi| = 1, s = +-1 per frequency, k0 any",
                      gamma=gamma if hat else None, check=check, instance=inst)


def _znu() -> BlockModel:
    fam = Family("z_nu(1) block", "k", z_nu(1, exact=True) * designs.abc_normalizer(2, True), True)

    def check(d):
        des = designs.z_nu_design(d, exact=True)
        return _design_problems(des, lambda b: [] if _same(b.part, fam.part, {}) else ["entries differ"])

    return BlockModel("znu", "z_nu blocks", [fam], sympy.conjugate, "nu = 1", check=check)


def _zsyn() -> BlockModel:
    fam = Family("z_syn block", "k", z_syn(exact=True) * designs.abc_normalizer(3, True), True)
    return BlockModel("zsyn", "z_syn blocks", [fam], sympy.conjugate, "none")


def _plain(title: str, part: PartialSolution) -> BlockModel:
    """One block family at every positive frequency, no library design (a control defined by its model)."""
    return BlockModel("plain", title, [Family(title.rstrip("s"), "k", part, True)], sympy.conjugate, "none")


def _hat_tripled() -> BlockModel:
    model = _f46()
    gamma = model.gamma
    model.title, model.check, model.gamma = "z_F4/6 with every hat value tripled", None, lambda h, f: 3 * gamma(h, f)
    return model


def _unbalanced() -> PartialSolution:
    """``4^(-1/3) z_{nu=i} * z_xi(1, +1)`` with ``a`` of nodes 0, 2 doubled and their ``b`` halved (docstring)."""
    four = _four(1, 1)
    f = [2, 1, 2, 1]
    return PartialSolution("unbalanced order-4 block", np.asarray([sympy.expand(x * g) for x, g in zip(four.a, f)],
                           dtype=object), np.asarray([sympy.expand(x / g) for x, g in zip(four.b, f)], dtype=object),
                           four.c)


def _hat_on_zsyn() -> BlockModel:
    """z_F4/6 with its order-6 block at ``k0`` replaced by ``3^(-1/3) z_syn`` carrying the hat (docstring)."""
    model = _f46()
    h = model.families[0]
    model.families[0] = Family("z_syn block at k0 with the hat", h.var,
                               z_syn(exact=True) * designs.abc_normalizer(3, True), False, hat=True)
    model.title, model.check = "z_F4/6 with the hat on a z_syn block", None
    return model


def constructions() -> list:
    """The models (BlockModel) of the theorem: each construction's of the catalogue that has one (z_F6, its SPEC 7.2
    variant, z_F4/6 with the hat correction; :mod:`cogo.catalogue.constructions`)."""
    return [resolve(c.every_order)() for c in CONSTRUCTIONS if c.every_order]


def controls() -> list:
    """The block negative controls.

    Returns
    -------
    list of BlockModel
        z_F6 broken where ``3 | d``, z_F4/6 without the hat correction and with it tripled, z_nu blocks, z_syn
        blocks, order-4 blocks without the hat, ``z_nu(1) * z_xi(1, +1)`` blocks (R_c only), unbalanced order-4
        blocks (the R_n form: ``|a|^2`` and ``|b|^2`` differ), z_F4/6 with the hat on a z_syn block (cross terms).
    """
    four = (z_nu_i(exact=True) * z_xi(1, 1, exact=True)) * designs.abc_normalizer(4, True)
    rc_only = (z_nu(1, exact=True) * z_xi(1, 1, exact=True)) * designs.abc_normalizer(4, True)
    return [_f6(bracket=True), _f46(hat=False), _hat_tripled(), _znu(), _zsyn(),
            _plain("order-4 blocks without hat", four), _plain("z_nu(1) * z_xi(1, +1) blocks", rc_only),
            _plain("unbalanced order-4 blocks", _unbalanced()), _hat_on_zsyn()]


# --------------------------------------------------------------------------- the control broken where 3 | d
def _bracket_design(des):
    """``des`` with ``c`` doubled in the block at ``k`` with ``3 k = 0 (mod d)`` (there is one iff ``3 | d``)."""
    d = des.group.order
    blocks = []
    for b in des.blocks:
        if (3 * int(b.k)) % d == 0:
            p = b.part
            b = type(b)(b.k, PartialSolution(p.name, p.a, p.b, np.asarray([2 * x for x in p.c], dtype=object)),
                        dict(b.c_ext))
        blocks.append(b)
    return designs.BlockDesign(des.group, des.name + " (c doubled where 3k = 0)", blocks, True, dict(des.params), des.seed)


def bracket_control_network(d: int) -> Network:
    """The control ``z_F6, c doubled where 3k = 0 (mod d)`` at order ``d`` (seed 1), exact.

    Returns
    -------
    Network
        z_F6 (seed 1) with the output values of the block at ``k = d/3`` doubled when ``3 | d``; z_F6 itself
        otherwise.
    """
    return _bracket_design(designs.f6_design(d, seed=1, exact=True)).to_network()
