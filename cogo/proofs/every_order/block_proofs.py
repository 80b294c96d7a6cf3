"""Optimality proved for every group order at once (``cogo verify --every-order``; SPEC 5-7).

The block constructions (z_F6, its SPEC 7.2 variant, z_F4/6 with the hat
correction) have entries that do not depend on ``d``: roots of unity of order
3 and 4 and unit parameters.  ``d`` enters only through which frequencies
coincide modulo ``d``.  For each construction this module

1. describes the network *with its frequencies symbolic*: each family of
   blocks (one block at ``k0``, or a block at every other positive frequency
   ``k``) is the catalogue product of :mod:`cogo.catalogue.partial` with
   symbolic parameters; its nodes carry ``a, b, c`` at the forms ``+-k`` and,
   for the hat, ``c`` at every other block's pair.  The description is
   checked against the library's own exact designs at sample orders (entries,
   hat values, supports read back by :func:`design_from_network`);
2. derives the frequency collisions from these supports (the
   comparisons the general loss of SPEC 5 makes, for an output frequency in
   each family: which nodes have ``c`` there, which index pairs
   ``(k1, k2)`` coincide or equal ``(k, k)`` or contain 0, which sums
   ``m = k1 + k2`` of the self terms coincide or vanish), each relation with
   the set of ``d`` where it can hold (:func:`cogo.proofs.every_order.collisions.relation_set`);
3. certifies each case exactly: outside every collision, the general loss
   term ``l_k`` of each output class, computed from the forms (contributions
   at equal forms add, nothing else merges; the other family's hat terms are
   the cross terms), must be ``-1`` identically in the parameters, so the loss
   ``(1/d) sum_{k != 0} l_k + 1 - 1/d`` is 0 with ``d`` symbolic; a
   relation that holds on a residue class gets its own certificate; the odd
   orders below the one where every family has a block are finitely many and
   are proved by the per-order route (:func:`cogo.proofs.theorems.optimality.optimality`).

z_M (SPEC 7.4) is proved by character sums with ``d`` symbolic
(:mod:`cogo.proofs.every_order.memorization`).  Negative controls run through the same
route: a z_F6 broken exactly where ``3 | d`` must be found failing on that
class only, and the existing controls (z_F4/6 without the hat, z_nu blocks,
the two z_M controls) must fail with their closed-form losses for every ``d``.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import sympy

from cogo.catalogue.partial import PartialSolution
from cogo.proofs.every_order.collisions import D, fadd, fneg, form, fstr, relation_set
from cogo.proofs.certificates.exact_zero import decide_zero

__all__ = ["Family", "BlockModel", "ClassResult", "Case", "output_class", "prove_block_model",
           "relations_of", "unanalysed", "VERIFY_RANGE"]

#: Failing sets of d are compared on every d up to this bound (they are residue classes mod 2 and small
#: primes above a threshold below 10, so agreement here is agreement everywhere).
VERIFY_RANGE = 1000


@dataclass
class Family:
    """Blocks of one shape: ``part`` (symbolic) at the frequency ``var``; ``many``: one block at every positive
    frequency not used by another family, else one block; ``hat``: ``c`` also at every other block's pair;
    ``bracket``: ``(p, symbol)``, the ``c`` values times ``1 + symbol`` with ``symbol = [p var = 0 (mod d)]``."""

    name: str
    var: str
    part: PartialSolution
    many: bool
    hat: bool = False
    bracket: tuple | None = None


@dataclass
class BlockModel:
    """A block construction with symbolic frequencies.  ``gamma(hat, fam)``: the hat value at ``fam``'s blocks;
    ``check(d)``: the library's design at order ``d`` matches the model (a list of problems, empty if so)."""

    kind: str
    title: str
    families: list
    conj: Callable
    parameters: str
    gamma: Callable | None = None
    check: Callable | None = None
    instance: Callable | None = None
    expect_fail: Callable | None = None
    expect_loss: Any = None

    @property
    def min_order(self) -> int:
        """The least odd ``d`` with a block in every family (``(d - 1)/2`` positive frequencies)."""
        singles = sum(1 for f in self.families if not f.many)
        manys = 1 if any(f.many for f in self.families) else 0
        return 2 * (singles + manys) + 1


# --------------------------------------------------------------------------- one output class
def _node_forms(part: PartialSolution, v: str, conj: Callable) -> list:
    """Per node: ``({form: a}, {form: b})`` at ``v`` and ``-v``."""
    fv, fm = form(**{v: 1}), form(**{v: -1})
    return [({fv: a, fm: conj(a)}, {fv: b, fm: conj(b)}) for a, b in zip(part.a, part.b)]


@dataclass
class ClassResult:
    """The general-loss term ``l_k`` at an output ``k = sign * var`` of ``family``, outside the collisions."""

    family: str
    sign: int
    lk: Any
    failing: list
    cross_terms: int
    cross_zero: bool
    keys: tuple = ((), ())

    @property
    def optimal(self) -> bool:
        return self.lk is not None and decide_zero(self.lk + 1) is True and not self.failing and self.cross_zero


def _contributions(groups: list, conj: Callable) -> tuple:
    """Potentials by index form: ``pos[(k1, k2)]`` (r), ``selfs[(p, m)]`` (sum over k' of r_p[k', m - k']),
    and the positions each origin touches (``origin -> set of keys``)."""
    pos: dict = {}
    selfs: dict = {}
    touched: dict = {}
    for origin, forms, cvals in groups:
        for (A, B), c in zip(forms, cvals):
            for f1, x in A.items():
                for f2, y in B.items():
                    pos[(f1, f2)] = pos.get((f1, f2), 0) + x * y * c
                    touched.setdefault(origin, set()).add(("r", f1, f2))
            for p, P in (("a", A), ("b", B)):
                for f1, x in P.items():
                    for f2, y in P.items():
                        m = fadd(f1, f2)
                        selfs[(p, m)] = selfs.get((p, m), 0) + x * y * c
                        touched.setdefault(origin, set()).add((p, m))
    pos = {k: sympy.expand(v) for k, v in pos.items()}
    selfs = {k: sympy.expand(v) for k, v in selfs.items()}
    return pos, selfs, touched


def _is0(x) -> bool:
    return decide_zero(x) is True


def _lk(pos: dict, selfs: dict, kk: tuple, conj: Callable) -> tuple:
    """``l_k`` of SPEC 5 from the potentials by form, and the conditions whose residuals are not proven 0."""
    def abs2(x):
        return sympy.expand(x * conj(x))

    half = sympy.Rational(1, 2)
    z = ()
    rkkk = pos.get(kk, 0)
    lk = -(rkkk + conj(rkkk))
    failing = set() if _is0(rkkk - 1) else {"R_g"}
    for (f1, f2), v in pos.items():
        if f1 != z and f2 != z:
            lk += abs2(v)
            if (f1, f2) != kk and not _is0(v):
                failing.add("R_c")
    dc = pos.get((z, z), 0) + half * (selfs.get(("a", z), 0) + selfs.get(("b", z), 0))
    lk += abs2(dc)
    if not _is0(dc):
        failing.add("R_n")
    ms = {m for (_, m) in selfs if m != z} | {f for (f, g) in pos if g == z and f != z} | \
        {g for (f, g) in pos if f == z and g != z}
    for m in ms:
        for p, key in (("a", (m, z)), ("b", (z, m))):
            v = pos.get(key, 0) + half * selfs.get((p, m), 0)
            lk += abs2(v)
            if not _is0(v):
                failing.add("R_*")
    return sympy.expand(lk), sorted(failing)


def output_class(model: BlockModel, fam: Family, sign: int, brackets: dict | None = None) -> ClassResult:
    """``l_k`` at the output ``k = sign * fam.var``: the family's own block and every other family's hat.

    ``brackets``: values of the bracket symbols (default 0: the relation does not hold).  The cross terms
    (potentials that only another family's nodes touch) are counted and must each be 0.

    Returns
    -------
    ClassResult
        ``l_k`` (must be -1), the conditions that fail, the cross terms and whether they vanish.
    """
    conj = model.conj
    subs = {f.bracket[1]: 0 for f in model.families if f.bracket} | (brackets or {})
    own_c = list(fam.part.c)
    if fam.bracket:
        own_c = [x * (1 + subs[fam.bracket[1]]) for x in own_c]
    own_c = own_c if sign > 0 else [conj(x) for x in own_c]
    groups = [(fam.name, _node_forms(fam.part, fam.var, conj), own_c)]
    for h in model.families:
        if h.hat and h is not fam:
            g = model.gamma(h, fam)
            g = g if sign > 0 else conj(g)
            groups.append((h.name, _node_forms(h.part, h.var, conj), [g] * h.part.q))
    pos, selfs, touched = _contributions(groups, conj)
    kk = (form(**{fam.var: sign}), form(**{fam.var: sign}))
    lk, failing = _lk(pos, selfs, kk, conj)
    own = touched.get(fam.name, set())
    cross = [key for origin, keys in touched.items() if origin != fam.name for key in keys if key not in own]
    values = [pos[(k[1], k[2])] if k[0] == "r" else selfs[(k[0], k[1])] for k in cross]
    cross_zero = all(_is0(v) for k, v in zip(cross, values) if k[1] != ())   # m = 0: R_n, the hat's purpose
    return ClassResult(fam.name, sign, lk, failing, len(cross), cross_zero, (tuple(pos), tuple(selfs)))


# --------------------------------------------------------------------------- collisions from the supports
def relations_of(model: BlockModel, fam: Family) -> list:
    """Every comparison of frequency forms the general loss makes at the output ``k = fam.var``.

    Returns
    -------
    list of (str, tuple, DSet)
        What is compared, the difference form ``L`` (the relation ``L = 0 (mod d)``), where it can hold.
    """
    v = fam.var
    others = [f for f in model.families if not f.many and f is not fam]
    if any(f.many for f in model.families):   # a representative block of the many-block families, not fam's
        others.append(Family("another block", "k'", fam.part, True))
    variables = {v} | {f.var for f in others}
    distinct = {(x, y) for x in variables for y in variables if x != y}
    out = []

    def rel(what, L):
        out.append((what, L, relation_set(L, distinct)))

    kf = form(**{v: 1})
    rel(f"output {v} vs its conjugate -{v} (a block's two frequencies)", fadd(kf, kf))
    if fam.bracket:
        p, sym = fam.bracket
        rel(f"the value {sym} = [{p}{v} = 0] of the construction", form(**{v: p}))
    for o in others:
        u = o.var
        rel(f"c of the block at {u} vs output {v}", form(**{u: 1, v: -1}))
        rel(f"c of the block at {u} vs output {v}", form(**{u: 1, v: 1}))
        if o.hat:
            rel(f"c of the hat at {u} (every pair but +-{u}) vs output {v}", ())
    inputs = [v] + [h.var for h in model.families if h.hat and h is not fam]
    for x in inputs:
        rel(f"a, b at +-{x} vs 0 (zero-mean inputs: no r[0, ., k] term)", form(**{x: 1}))
    sforms = [form(**{x: s}) for x in inputs for s in (1, -1)]
    positions = [(f1, f2) for f1 in sforms for f2 in sforms if _same_block(f1, f2)]
    kk = (kf, kf)
    for i, P in enumerate(positions):
        for Q in [kk] + positions[i + 1:]:
            for c in (0, 1):   # two positions merge iff both indices agree: each difference is a relation
                L = fadd(P[c], fneg(Q[c]))
                if L and P != Q:
                    rel(f"r at ({fstr(P[0])}, {fstr(P[1])}) vs ({fstr(Q[0])}, {fstr(Q[1])}), index {c + 1}", L)
    ms = sorted({fadd(f1, f2) for f1, f2 in positions})
    for i, m in enumerate(ms):
        if m:
            rel(f"self term m = {fstr(m)} vs m = 0 (R_* vs R_n)", m)
        for m2 in ms[i + 1:]:
            rel(f"self terms m = {fstr(m)} vs m = {fstr(m2)}", fadd(m, fneg(m2)))
    return out


def unanalysed(res: ClassResult, rels: list) -> list:
    """The comparisons ``l_k`` of ``res`` relies on that :func:`relations_of` did not analyse (must be none).

    Computing ``l_k`` outside the collisions takes two index forms as different when they differ as forms: each
    such difference (two index pairs, two sums ``m``, an index or ``m`` against 0) must be among the analysed
    relations, so the analysis cannot drift from the computation.
    """
    seen = {L if not L or L[0][1] > 0 else fneg(L) for _, L, _ in rels}
    pos, selfs = res.keys
    diffs = [f for P in pos for f in P] + [m for _, m in selfs]
    diffs += [fadd(P[c], fneg(Q[c])) for P in pos for Q in pos if P != Q for c in (0, 1)]
    diffs += [fadd(m1, fneg(m2)) for _, m1 in selfs for _, m2 in selfs]
    canon = {L if L[0][1] > 0 else fneg(L) for L in diffs if L}
    out = {fstr(L) for L in canon if L not in seen}
    return sorted(out)


def _same_block(f1: tuple, f2: tuple) -> bool:
    return {x for x, _ in f1} == {x for x, _ in f2}


# --------------------------------------------------------------------------- cases and their certificates
@dataclass
class Case:
    """One case of an every-order proof: the orders it covers, how it is proved, the verdict."""

    construction: str
    label: str
    covers: str
    member: Callable
    method: str
    status: str
    loss: Any = None
    details: dict = field(default_factory=dict)

    def row(self) -> dict:
        return {"construction": self.construction, "case": self.label, "d": self.covers, "method": self.method,
                "status": self.status, "loss": None if self.loss is None else str(self.loss), **self.details}


def _generic_loss(model: BlockModel, results: dict):
    """``(1/d) sum_{k != 0} l_k + 1 - 1/d`` when every class of a family has the same ``l_k`` (else None)."""
    singles = [f for f in model.families if not f.many]
    per: dict = {}
    for f in model.families:
        per.setdefault(f.many, set()).update(sympy.simplify(results[(f.name, s)].lk) for s in (1, -1))
    if any(len(vals) != 1 for vals in per.values()):
        return None
    total = sympy.Integer(0)
    for many, vals in per.items():
        count = (D - 1 - 2 * len(singles)) if many else 2 * len(singles)
        total += count * next(iter(vals))
    return sympy.factor(sympy.simplify(total / D + 1 - 1 / D))


def _collision_cases(model: BlockModel, coll: list, results: dict, generic_loss) -> list:
    """A certificate per collision relation: a bracket relation ``p var = 0`` of a family's values is proved with
    the bracket 1 at its ``p - 1`` outputs (the others stay generic); a support collision has no certificate."""
    cases = []
    for what, L, ds in coll:
        fam = next((f for f in model.families if f.bracket and what.startswith("the value")
                    and L == form(**{f.var: f.bracket[0]})), None)
        if fam is None or ds.kind != "divisible":
            cases.append(Case(model.title, f"{fstr(L)} = 0: {what}", ds.describe(), ds.contains,
                              "support collision: no certificate", "UNPROVEN"))
            continue
        p, sym = fam.bracket
        bad = [output_class(model, fam, s, {sym: 1}) for s in (1, -1)]
        ok = all(b.optimal for b in bad)
        loss = None
        if generic_loss is not None and len({sympy.simplify(b.lk) for b in bad}) == 1:
            base = results[(fam.name, 1)].lk
            loss = sympy.factor(sympy.simplify(generic_loss + (p - 1) * (bad[0].lk - base) / D))
        cases.append(Case(model.title, f"{fstr(L)} = 0 (mod d) at {fam.var} = +-d/{p}", f"odd d, {ds.describe()}",
                          lambda d, ds=ds: d % 2 == 1 and ds.contains(d),
                          "symbolic block certificate with the relation imposed",
                          "PASS" if ok else "FAIL", loss,
                          {"failing": sorted({c for b in bad for c in b.failing}),
                           "l_k": [str(b.lk) for b in bad]}))
    return cases


def prove_block_model(model: BlockModel, sample_orders: tuple = (5, 7, 9)) -> list:
    """The every-order proof of a block construction: one :class:`Case` per case, in order.

    Returns
    -------
    list of Case
        The generic case (odd ``d`` at least :attr:`BlockModel.min_order`, outside the collision classes),
        one case per collision class, one per odd order below the generic range (the per-order proof).
    """
    problems = [p for d in sample_orders for p in (model.check(d) if model.check else [])]
    rels = {f.name: relations_of(model, f) for f in model.families}
    coll = [(w, L, ds) for f in model.families for (w, L, ds) in rels[f.name] if ds.collision]
    results = {(f.name, s): output_class(model, f, s) for f in model.families for s in (1, -1)}
    problems += [f"{f}: comparison {L} = 0 not analysed" for (f, _), r in results.items()
                 for L in unanalysed(r, rels[f])]
    ok = all(r.optimal for r in results.values()) and not problems
    gl = _generic_loss(model, results)
    m0 = model.min_order
    primes = sorted({p for _, _, ds in coll if ds.kind == "divisible" for p in ds.primes})
    covers = f"every odd d >= {m0}" + "".join(f", {p} not dividing d" for p in primes)
    n_rel = sum(len(r) for r in rels.values())
    never = sum(1 for r in rels.values() for _, _, ds in r if ds.kind in ("never", "excluded"))
    kinds: dict = {}
    for r in rels.values():
        for _, L, ds in r:
            if L:
                kinds.setdefault(ds.describe(), set()).add(fstr(L if L[0][1] > 0 else fneg(L)))
    generic = Case(model.title, "no collision", covers,
                   lambda d: d % 2 == 1 and d >= m0 and not any(d % p == 0 for p in primes),
                   "symbolic: l_k = -1 per output class, d symbolic", "PASS" if ok else "FAIL", gl,
                   {"relations": n_rel, "impossible for odd d": never,
                    "relations by where they hold": {k: sorted(v) for k, v in sorted(kinds.items())},
                    "collisions": [f"{fstr(L)} = 0 ({ds.describe()}): {w}" for w, L, ds in coll],
                    "classes": {f"{f} ({'+' if s > 0 else '-'}{_var(model, f)})": str(r.lk)
                                for (f, s), r in results.items()},
                    "cross terms": sum(r.cross_terms for r in results.values()),
                    "cross terms 0 (R_n part apart)": all(r.cross_zero for r in results.values()),
                    "failing": sorted({c for r in results.values() for c in r.failing}),
                    "model = library design, every comparison analysed": (problems[:3] if problems else "yes")
                    if model.check else (problems[:3] or "no library design (a control defined by its model)")})
    cases = [generic] + _collision_cases(model, coll, results, gl)
    singles = [f for f in model.families if not f.many]   # the one-block families: present at every d
    single_ok = all(results[(f.name, s)].optimal for f in singles for s in (1, -1))
    for d in range(3, m0, 2):
        ok_d, how = model.instance(d)
        if singles:
            how += " + symbolic l_k of the " + ", ".join(f.name.split(" with")[0] for f in singles)
        cases.append(Case(model.title, f"d = {d}: fewer positive frequencies than families", f"d = {d}",
                          lambda x, d=d: x == d, how, "PASS" if ok_d and single_ok else "FAIL"))
    return cases


def _var(model: BlockModel, name: str) -> str:
    return next(f.var for f in model.families if f.name == name)
