"""The exact point of a snapped network as plain values, and the exact design it describes (``cogo verify --snap``).

:func:`exact_record` writes the nearest certified optimizer of :mod:`cogo.analysis.verdict.snap` as integers and strings
``p/q`` (what a snapped checkpoint's ``meta["exact_point"]`` holds, losslessly); :func:`record_design` rebuilds the
exact :class:`cogo.solvers.designs.BlockDesign` from such a record (untrusted: no expression is parsed), and
:func:`exact_design` is the exact design of a snap, through its record: the network ``cogo verify --checkpoint``
certifies and the one a snapped file carries are one object.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from cogo.algebra.block import Block
from cogo.analysis.verdict.snap import SNAP_TYPES, exact_part, in_order, unit_from_t, unit_t
from cogo.solvers.designs import BlockDesign

__all__ = ["RECORD_FORMAT", "exact_record", "record_design", "exact_design"]


def exact_design(G: Any, snap: Any) -> BlockDesign:
    """The exact design of a snap (:class:`cogo.analysis.verdict.snap.Snap` of kind ``"blocks"``): its record's.

    Examples
    --------
    >>> from cogo.analysis.classify import read_network
    >>> from cogo.solvers.constructions import z_F46
    >>> rep = read_network(*z_F46(7).to_weights(real=True), group=7)
    >>> d = exact_design(rep.group, rep.snap)
    >>> d.exact, [(b.k, b.q) for b in d.blocks]
    (True, [(1, 6), (2, 4), (3, 4)])
    """
    if snap.kind != "blocks":
        raise ValueError("a z_M snap has no block design (its certificate is z_M's)")
    return record_design(G, exact_record(snap.blocks, snap.hat))


#: The format of :func:`exact_record` (what a snapped checkpoint's ``meta["exact_point"]`` holds).
RECORD_FORMAT = "cogo snapped optimizer 1"


def _rational(x: float) -> Fraction:
    return Fraction(float(x)).limit_denominator(10 ** 9)


def exact_record(blocks: list, hat: dict) -> dict:
    """The snapped network's exact point as plain values (what :func:`record_design` rebuilds, losslessly).

    Per snapped block: ``k``, ``type``, ``perm`` (trained node ``j`` of the block is node ``perm[j]`` of the form)
    and each unit point (the family's parameters, ``phase_a``, ``phase_b``) as ``[sign, "p/q"]``, the rational
    ``t`` of ``sign ((1 - t^2) + 2 t i) / (1 + t^2)`` (:func:`unit_t`).  The hat of SPEC 7.3: its carriers, the
    Gaussian rationals ``["p/q", "p/q"]`` of every carrier but the last (nearest the numeric split, denominators
    at most 1e9), the last carrier's value being the one solution of ``sum_B gamma_B D_B = -rn_k``
    (:func:`record_design`).  Only integers and strings: nothing is rounded.
    """
    out = []
    for sb in blocks:
        if not sb.snapped:
            continue
        units = {}
        for name, d in sb.degrees.items():
            sign, t = unit_t(d)
            units[name] = [int(sign), f"{t.numerator}/{t.denominator}"]
        out.append({"k": int(sb.k), "type": str(sb.type), "perm": [int(i) for i in sb.perm], "units": units})
    carriers = sorted(int(k) for k in hat)
    free = {str(kb): {str(k): [str(_rational(g.real)), str(_rational(g.imag))] for k, g in hat[kb].items()}
            for kb in carriers[:-1]}
    return {"format": RECORD_FORMAT, "blocks": out,
            "hat": {"carriers": carriers, "free": free,
                    "frequencies": sorted({int(k) for v in hat.values() for k in v})}}


def _fraction(text: Any) -> Fraction:
    """A rational from the record: a string ``p/q`` (or ``p``) of at most 64 characters; else ValueError."""
    if not isinstance(text, str) or len(text) > 64 or not all(ch in "0123456789-/" for ch in text):
        raise ValueError(f"not a rational p/q: {str(text)[:40]!r}")
    try:
        return Fraction(text)
    except ZeroDivisionError:
        raise ValueError(f"not a rational p/q: {text!r}") from None


def record_design(G: Any, record: Any) -> BlockDesign:
    """The exact design an :func:`exact_record` describes (a snapped file's ``meta["exact_point"]``).

    The record is untrusted (a file's metadata): only integers and strings ``p/q`` are read (no expression is
    parsed), every field is checked.  The design is what it is: whether it is an optimizer is for its exact
    certificate to say (:func:`cogo.proofs.certificates.block_certificate.block_certificate`).

    Raises
    ------
    ValueError
        One line, for a record that is not of :data:`RECORD_FORMAT` or holds a value of the wrong kind.
    """
    import sympy  # late: sympy

    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ValueError(f"the exact point is not a record of format {RECORD_FORMAT!r}")
    rows, hat = record.get("blocks"), record.get("hat")
    if not isinstance(rows, list) or not rows or not isinstance(hat, dict):
        raise ValueError("the exact point has no blocks")
    parts: dict = {}
    for row in rows:
        k, typ, perm, units = (row.get(x) if isinstance(row, dict) else None for x in ("k", "type", "perm", "units"))
        if typ not in SNAP_TYPES or not isinstance(k, int) or isinstance(k, bool) or not 0 < k < G.order \
                or k in parts or not isinstance(units, dict):
            raise ValueError(f"the exact point has a block that is not a family of a global optimizer: {str(row)[:80]}")
        names = (("alpha", "beta") if typ == "z_nu=i * z_syn,ab" else (("nu",) if typ == "z_nu * z_syn" else ("xi",)))
        if set(units) != {*names, "phase_a", "phase_b"}:
            raise ValueError(f"the exact point's block k={k} has unit points {sorted(units)}")
        exact = {}
        for name in (*names, "phase_a", "phase_b"):
            u = units[name]
            if not (isinstance(u, list) and len(u) == 2 and u[0] in (1, -1) and not isinstance(u[0], bool)):
                raise ValueError(f"the exact point's block k={k} has a bad unit point {name}")
            exact[name] = unit_from_t(u[0], _fraction(u[1]))
        part = exact_part(typ, exact)
        m = len(part.a)
        if not (isinstance(perm, list) and sorted(p for p in perm if isinstance(p, int)) == list(range(m))):
            raise ValueError(f"the exact point's block k={k} has no node order of its {m} nodes")
        parts[k] = in_order(part, perm)
    carriers, free, freqs = hat.get("carriers"), hat.get("free"), hat.get("frequencies")
    if not (isinstance(carriers, list) and isinstance(free, dict) and isinstance(freqs, list)
            and all(c in parts for c in carriers) and all(f in parts for f in freqs) and bool(carriers) == bool(freqs)
            and set(free) == {str(c) for c in carriers[:-1]}):
        raise ValueError("the exact point's hat does not match its blocks")
    values: dict = {}
    for kb in carriers[:-1]:
        vk = free[str(kb)]
        if not isinstance(vk, dict) or set(vk) != {str(f) for f in freqs}:
            raise ValueError(f"the exact point's hat on k={kb} does not give every corrected frequency")
        values[kb] = {}
        for f in freqs:
            v = vk[str(f)]
            if not (isinstance(v, list) and len(v) == 2):
                raise ValueError(f"the exact point's hat on k={kb} has a bad value at k={f}")
            re, im = (_fraction(x) for x in v)
            values[kb][f] = (sympy.Rational(re.numerator, re.denominator)
                             + sympy.I * sympy.Rational(im.numerator, im.denominator))
    ext = _solve_hat(parts, carriers, freqs, values)
    blocks = [Block(k, part, dict(ext.get(k, {}))) for k, part in parts.items()]
    return BlockDesign(G, "snapped", blocks, True)


def _solve_hat(parts: dict, carriers: list, freqs: list, values: dict) -> dict:
    """Exact hat values: the given ones on every carrier but the last, the last's solved so R_n is exactly 0.

    At an order-4 frequency ``k`` the carriers ``B`` must satisfy ``sum_B gamma_B D_B = -rn_k`` exactly, with
    ``D_B = sum over B's nodes of |a|^2 + |b|^2`` and ``rn_k`` the R_n sum of the order-4 block (SPEC 7.3).
    """
    import sympy  # late: sympy

    def den(part):
        return sympy.expand(sum((x * sympy.conjugate(x) for x in list(part.a) + list(part.b)), sympy.Integer(0)))

    out: dict = {kb: {} for kb in carriers}
    for k in freqs:
        f = parts[k]
        rn = sympy.expand(sum(((x * sympy.conjugate(x) + y * sympy.conjugate(y)) * z
                               for x, y, z in zip(f.a, f.b, f.c)), sympy.Integer(0)))
        rest = -rn
        for kb in carriers[:-1]:
            out[kb][k] = values[kb][k]
            rest -= out[kb][k] * den(parts[kb])
        out[carriers[-1]][k] = sympy.expand(sympy.radsimp(rest / den(parts[carriers[-1]])))
    return out
