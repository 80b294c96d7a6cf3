"""Self-checks of ``cogo verify --every-order`` that cannot be skipped: the coverage argument recomputed and tried.

:func:`cogo.proofs.every_order.run.run_every_order` proves each construction by cases, each case covering a set of
orders ``d``.  Its statement "each order in exactly one case, every case proven" is checked twice here:

* :func:`recount`: the number of cases holding each admissible ``d`` up to :data:`VERIFY_RANGE`, counted afresh
  (a loop of its own over the orders, not :func:`cogo.proofs.every_order.run._coverage`), and whether every case
  is ``PASS`` (an ``UNPROVEN`` or ``FAIL`` case never counts as proven).  A construction is proven only when this
  recount and the route's own verdict both say so.
* :data:`SELF_CHECKS`: case lists built by hand, each with the verdicts derived by hand, handed to the route's
  coverage and verdict functions (``coverage``, ``theorem``): an order covered by two cases, an order covered by
  none, an inadmissible (even) order covered, an UNPROVEN case in a complete cover, and a sound cover.  Each is a
  control of the run: CAUGHT iff both functions give the outcome stated beside it.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from typing import Callable

from cogo.proofs.every_order.block_proofs import Case, VERIFY_RANGE

__all__ = ["recount", "SELF_CHECKS", "run_self_checks"]


def recount(cases: list, kind: str, bound: int = VERIFY_RANGE) -> dict:
    """Count, for every ``d`` in ``2..bound``, the cases that hold it; the verdict from these counts alone.

    Admissible: every ``d >= 2`` for z_M (``kind == "z_M"``), every odd ``d >= 3`` otherwise.

    Returns
    -------
    dict
        ``twice`` / ``none`` (admissible orders held by two or more cases / by none), ``inadmissible`` (orders held
        that are not admissible), ``all_pass`` (every case's status is the string ``"PASS"``) and ``proven``
        (all four clean).

    Examples
    --------
    >>> odd = Case("x", "all", "odd d >= 3", lambda d: d % 2 == 1 and d >= 3, "by hand", "PASS")
    >>> recount([odd], "z_F6", 20)["proven"], recount([odd, odd], "z_F6", 20)["twice"][:2]
    (True, [3, 5])
    """
    twice, none, inadmissible = [], [], []
    for d in range(2, bound + 1):
        admissible = d >= 2 if kind == "z_M" else (d >= 3 and d % 2 == 1)
        held = 0
        for c in cases:
            if c.member(d):
                held += 1
        if admissible and held > 1:
            twice.append(d)
        elif admissible and held == 0:
            none.append(d)
        elif not admissible and held:
            inadmissible.append(d)
    all_pass = all(c.status == "PASS" for c in cases) and len(cases) > 0
    return {"twice": twice[:10], "none": none[:10], "inadmissible": inadmissible[:10], "all_pass": all_pass,
            "proven": not twice and not none and not inadmissible and all_pass}


def _case(label: str, member: Callable, status: str = "PASS") -> Case:
    return Case("self-check", label, label, member, "by hand", status)


_ODD = ("odd d >= 3", lambda d: d % 2 == 1 and d >= 3)
#: name -> (kind, cases, coverage ok (by hand), proven (by hand)).  Each case list is read by eye: the membership
#: functions are one line each, and the verdict follows from them.
SELF_CHECKS: dict = {
    "every order, self-check: an order covered by two cases": (
        "z_F6", [_case(*_ODD), _case("d = 7", lambda d: d == 7)], False, False),
    "every order, self-check: an order covered by no case": (
        "z_F6", [_case("odd d >= 3, d != 9", lambda d: d % 2 == 1 and d >= 3 and d != 9)], False, False),
    "every order, self-check: an even order covered": (
        "z_F6", [_case("d >= 3", lambda d: d >= 3)], False, False),
    "every order, self-check: an UNPROVEN case in a complete cover": (
        "z_F6", [_case("odd d >= 3, 3 not dividing d", lambda d: d % 2 == 1 and d >= 3 and d % 3),
               _case("odd d, 3 | d", lambda d: d % 2 == 1 and d % 3 == 0, "UNPROVEN")], True, False),
    "every order, self-check: z_M's cover missing d = 2": (
        "z_M", [_case("d >= 3", lambda d: d >= 3)], False, False),
    "every order, self-check: a sound cover": (
        "z_F6", [_case("odd d >= 5", lambda d: d % 2 == 1 and d >= 5), _case("d = 3", lambda d: d == 3)], True, True),
}


def run_self_checks(coverage: Callable, theorem: Callable) -> list:
    """Each of :data:`SELF_CHECKS` handed to ``coverage(cases, kind)`` and ``theorem(title, kind, parameters,
    cases)`` (the route's own functions) and to :func:`recount`: CAUGHT iff all three give the hand-derived verdict.

    Returns
    -------
    list of dict
        One control row per self-check, in the form ``format_every_order`` prints.
    """
    out = []
    for name, (kind, cases, want_cover, want_proven) in SELF_CHECKS.items():
        cov = coverage(cases, kind)["ok"]
        proven = theorem(name, kind, "none", cases)["proven"]
        mine = recount(cases, kind)
        mine_cover = not mine["twice"] and not mine["none"] and not mine["inadmissible"]
        caught = (cov is want_cover and proven is want_proven and mine_cover is want_cover
                  and mine["proven"] is want_proven)
        out.append({"control": name, "cases": [c.row() for c in cases], "caught": caught,
                    "fails on": [], "expected": [], "same orders": True,
                    "loss": [f"cover {cov}, proven {proven} (recount: cover {mine_cover}, proven {mine['proven']})"],
                    "expected loss": f"cover {want_cover}, proven {want_proven}", "unproven": [],
                    "cases cover each order once": cov, "failing conditions": [], "expected conditions": None,
                    "self_check": True})
    return out
