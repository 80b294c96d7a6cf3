"""The every-order claims: the cases of each construction cover every admissible order exactly once.

The admissible orders are the checker's own (the statement of SPEC 7.1-7.4): odd d >= 3 for the block
constructions z_F6, z_F6 (7.2) and z_F4/6, every d >= 2 for z_M.  Each case lists the orders it contains up
to a bound; the checker recomputes, independently of the case list's own claims, that every admissible
d <= bound lies in exactly one case, no inadmissible d lies in any, every case is PASS (an UNPROVEN case is
never counted), every output class of each case has l_k = -1 (then the loss is
(1/d) (d - 1)(-1) + 1 - 1/d = 0), and that each case has at least one instance order whose actual network
is certified by its own loss certificate in the same directory.
"""
from __future__ import annotations

from fractions import Fraction

from cogo_check.base import Bad


def admissible(title: str, d: int) -> bool:
    return d >= 2 if title.startswith("z_M") else (d >= 3 and d % 2 == 1)


def check_every_order(cert: dict, passed: set) -> str:
    """Check the coverage claim; ``passed``: the names of the claims of the directory that hold."""
    title, bound, cases = cert.get("construction", ""), cert.get("bound"), cert.get("cases", [])
    if not isinstance(bound, int) or bound < 31 or not cases:
        raise Bad(f"bad every-order certificate (bound {bound!r}, {len(cases)} cases)")
    count: dict = {}
    for c in cases:
        if c.get("status") != "PASS":
            raise Bad(f"case {c.get('case')!r} is {c.get('status')}, not PASS: it covers nothing")
        for d in c.get("members", []):
            if not isinstance(d, int) or not 2 <= d <= bound:
                raise Bad(f"case {c.get('case')!r}: bad order {d!r}")
            if not admissible(title, d):
                raise Bad(f"case {c.get('case')!r} contains the inadmissible order d = {d}")
            count[d] = count.get(d, 0) + 1
        for cls, lk in c.get("l_k per output class", {}).items():
            vals = lk if isinstance(lk, list) else [lk]
            if any(v is None or Fraction(str(v)) != -1 for v in vals):
                raise Bad(f"case {c.get('case')!r}: l_k = {lk} at {cls}, not -1")
        inst = c.get("instances") or []
        if not inst or not set(inst) <= set(c.get("members", [])):
            raise Bad(f"case {c.get('case')!r}: no instance among its orders")
        if not c.get("l_k per output class") and set(c.get("members", [])) != set(inst):
            raise Bad(f"case {c.get('case')!r}: neither l_k = -1 per class stated nor every order an instance")
        for d in inst:
            if f"every order instance: {title} at d = {d}" not in passed:
                raise Bad(f"case {c.get('case')!r}: its instance d = {d} is not certified in this directory")
    bad = [d for d in range(2, bound + 1) if admissible(title, d) and count.get(d, 0) != 1]
    if bad:
        raise Bad(f"orders not in exactly one case: {bad[:10]}")
    return (f"each admissible d <= {bound} in exactly one of {len(cases)} case(s), every case PASS with "
            f"l_k = -1 per class")
