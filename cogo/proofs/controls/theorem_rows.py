"""Negative controls of the theorem rows 5-8: each row handed a broken object, with its outcome derived by hand.

The membership table (row 5), the z_M certificate and the general loss of row 6, the node counts (row 7) and
Occam's razor (row 8) must fail on these inputs exactly as stated beside each control.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from cogo.algebra.network import Network
from cogo.algebra.group_parsing import as_group
from cogo.catalogue.partial import PartialSolution
from cogo.solvers import constructions
from cogo.algebra.block import Block
from cogo.solvers.constructions import RootOfUnityNetwork
from cogo.solvers.designs import BlockDesign
from cogo.proofs.results import TheoremResult, Timer, check_method, make_result
from cogo.proofs.theorems.node_counts import node_counts
from cogo.proofs.theorems.occam import occam
from cogo.proofs.theorems.optimality import optimality
from cogo.proofs.theorems.zero_sets import _catalogue_factors, membership_table
from cogo.proofs.certificates.exact_zero import decide_zero
from cogo.solvers import designs

__all__ = ["control_node_counts", "control_mem_node_counts", "control_mem_certificate", "control_membership",
           "control_occam", "control_optimality_row", "control_mem_routes", "NODE_CONTROL", "OCCAM_CONTROL", "MEM_COUNT_CONTROL",
           "MEM_CERT_CONTROL", "MEMBERSHIP_CONTROL", "MEM_ROUTES_CONTROL"]


# =========================================================================== consistency-row controls
# The node-count row (7) and the Occam row (8) handed a broken object, with the outcome derived by hand:
# * node counts: z_F6 without its node 0 (a node of the block at the first frequency): 3(n-1) - 1 nodes, 5 at that
#   frequency: the z_F6 entry of the row fails, the other constructions pass.
# * Occam: z' = z_F6 with c of its first block doubled (abc = 2 there): z' is not optimal (R_g), not balanced
#   (||c||^2 of that block is 4 times ||a||^2), the prefactor identity and ||y*z'||^2 = 2^(1/3) ||z'||^2 (a
#   property of the Kronecker product, true for every z') still hold.
NODE_CONTROL = "node counts: z_F6 without node 0"
OCCAM_CONTROL = "Occam: z' with c of one block doubled"


def control_node_counts(group: Any, method: str = "exact", nets: dict | None = None) -> TheoremResult:
    """The node-count row handed z_F6 without node 0: must fail for z_F6 only (see above).

    >>> r = control_node_counts(7)
    >>> r.status, r.details["constructions"]["z_F6"]
    ('CAUGHT', False)
    """
    method = check_method(method)
    G = as_group(group)
    with Timer() as t:
        if nets is None:
            net = constructions.z_F6(G, exact=method == "exact")
            nets = {"z_F6": Network(G, net.z[:, :, 1:], exact=net.exact)}
        r = node_counts(G, method, nets=nets)
        v = r.details["constructions"]
        others = [ok for name, ok in v.items() if name != "z_F6" and not name.startswith("z_F6:")]
        caught = not r.passed and v.get("z_F6") is False and all(others)
    return make_result(NODE_CONTROL, "the node-count row handed z_F6 without node 0 (3(n-1) - 1 nodes, 5 at the "
                       "first frequency): CAUGHT iff the z_F6 entry fails and every other construction passes",
                       method, caught, 0.0, t, negative_control=True, constructions=v,
                       failing_conditions=sorted(k for k, ok in v.items() if not ok), expected_failing=["z_F6"],
                       loss="n/a", expected_loss="n/a")


# * node counts of z_M (exact): the row is handed z_M's factors with one defect each, derived by hand.
#   - U_a without its last node: U_a * U_b has n (n - 1) nodes, not n^2 (every node is still one-hot, at the right
#     places), so only the count fails;
#   - U_a with node 0's a row replaced by node 1's: every node is still one-hot and there are n^2 nodes, but node
#     (0, j2) has a at 1 instead of 0 (it is no longer the network of SPEC 7.4: its output c sits at j2, not 1 + j2),
#     so only the positions fail;
#   - U_a with node 0's c row replaced by node 1's (a and b rows untouched): n^2 nodes, a and b one-hot at the right
#     places, but node (0, j2) has c = chi(k, 1 + j2) instead of chi(k, j2) = chi(k, 0 + j2): its output one-hot sits
#     at 1 + j2, not at j1 + j2 = j2, so only the c positions fail (the product route's c one-hot positions and the
#     route above order 31's check c(U_a) + c(U_b) = phase of j1 + j2 must both refuse it).
#   Each is CAUGHT iff the row's z_M entry fails; other constructions are not run by the control.
MEM_COUNT_CONTROL = "node counts: z_M with one defective factor node"


def control_mem_node_counts(group: Any, method: str = "exact", factors: list | None = None) -> TheoremResult:
    """The node-count row handed z_M's factors with a node dropped, then with a node's a, then c, one-hot moved.

    ``factors`` (a list of ``(label, (U_a, U_b))``) replaces the three defective pairs (testing the control).

    Returns
    -------
    TheoremResult
        CAUGHT when the node-count row rejects every defective z_M (``details["z_M entry"]`` per defect).

    Examples
    --------
    >>> r = control_mem_node_counts(5)
    >>> r.status, sorted(r.details["z_M entry"].values())
    ('CAUGHT', [False, False, False])
    >>> sorted(r.details["z_M entry"])[0]
    "U_a node 0's a row moved to node 1's"
    """
    G = as_group(group)
    with Timer() as t:
        if factors is None:
            Ua, Ub = constructions.mem_factors(G)
            dropped = RootOfUnityNetwork(G, Ua.E[:, :, :-1], Ua.L)
            E = Ua.E.copy()
            E[0, :, 0] = E[0, :, 1]  # node 0's a row is node 1's: one-hot at 1
            moved = RootOfUnityNetwork(G, E, Ua.L)
            E = Ua.E.copy()
            E[2, :, 0] = E[2, :, 1]  # node 0's c row is node 1's: node (0, j2) outputs at 1 + j2
            moved_c = RootOfUnityNetwork(G, E, Ua.L)
            factors = [("U_a without its last node", (dropped, Ub)), ("U_a node 0's a row moved to node 1's", (moved, Ub)),
                       ("U_a node 0's c row moved to node 1's", (moved_c, Ub))]
        entry = {}
        for label, pair in factors:
            r = node_counts(G, "exact", mem=pair)
            entry[label] = bool(r.details["constructions"]["z_M"])
        caught = not any(entry.values())
    return make_result(MEM_COUNT_CONTROL, "the node-count row handed z_M's factors with one defect each (U_a "
                       "without its last node: n(n-1) nodes; node 0's a row, then its c row, moved to node 1's: a "
                       "one-hot at the wrong place): CAUGHT iff the row's z_M entry fails every time", "exact", caught,
                       0.0, t,
                       negative_control=True, **{"z_M entry": entry},
                       failing_conditions=sorted(k for k, ok in entry.items() if not ok),
                       expected_failing=sorted(entry), loss="n/a", expected_loss="n/a")


# * the z_M certificate (row 6's homomorphism route, every order) handed z_M with U_a's node 0 reading a at element 1
#   (its c row unchanged): by hand, the n nodes (0, j2) contribute conj chi(k, 1) instead of 1 to
#   r[k,k,k] = n^-2 sum_{j1,j2} conj chi(k,j1) conj chi(k,j2) chi(k,j1+j2), so r[k,k,k] = 1 + (conj chi(k,1) - 1)/n
#   != 1 wherever chi(k, 1) != 1: R_g fails and the network is not optimal (pairs (0, j2) lost their node).
MEM_CERT_CONTROL = "optimality row: z_M with node 0 of U_a reading a at 1"


def control_mem_certificate(group: Any, method: str = "exact", factors: tuple | None = None) -> TheoremResult:
    """Row 6's z_M certificate handed a network that is not z_M (see above): CAUGHT iff not optimal, R_g failing.

    ``factors`` (``(U_a, U_b)``) replaces the defective pair (testing the control).

    Examples
    --------
    >>> r = control_mem_certificate(5)
    >>> r.status, "R_g" in r.details["failing_conditions"]
    ('CAUGHT', True)
    """
    G = as_group(group)
    with Timer() as t:
        if factors is None:
            Ua, Ub = constructions.mem_factors(G)
            E = Ua.E.copy()
            E[0, :, 0] = E[0, :, 1]
            factors = (RootOfUnityNetwork(G, E, Ua.L), Ub)
        r = optimality(G, "z_M", "exact", factors=factors)
        failing = list(r.details.get("failing_conditions", []))
        agree = r.details.get("routes agree", True)  # the row decides z_M by two routes
        caught = not r.passed and "R_g" in failing and agree
    return make_result(MEM_CERT_CONTROL, "the z_M certificate (homomorphism route) handed U_a * U_b with node 0 of "
                       "U_a reading a at element 1: by hand r[k,k,k] = 1 + (conj chi(k,1) - 1)/n, so CAUGHT iff the "
                       "row fails with R_g among its failing conditions (and its two routes agree: Fourier inversion "
                       "and, up to order 31, Z[zeta_L] character sums, above it the exact loss by Parseval)", "exact", caught, 0.0, t, routes_agree=agree,
                       negative_control=True, failing_conditions=failing, expected_failing=["R_g (at least)"],
                       loss="n/a", expected_loss="n/a")


# * row 6's two z_M routes made to disagree: Fourier inversion reads z_M itself (optimal: every condition sum 0, row 6
#   proves it), the second route (character sums in Z[zeta_L] up to order 31; above it the exact loss of SPEC 5 by
#   Parseval on integer point counts, nonzero for a network failing R_g) reads the z_M of the control above
#   (node 0 of U_a reading a at 1: R_g fails by hand there).  One route says optimal, the other not: the row must FAIL
#   with "routes agree" False, whatever the inversion route's own verdict.
MEM_ROUTES_CONTROL = "optimality row: z_M's two routes disagree"


def _mem_broken_factors(G: Any) -> tuple:
    """z_M's ``(U_a, U_b)`` with node 0 of U_a reading a at element 1 (its c row unchanged)."""
    Ua, Ub = constructions.mem_factors(G)
    E = Ua.E.copy()
    E[0, :, 0] = E[0, :, 1]
    return RootOfUnityNetwork(G, E, Ua.L), Ub


def control_mem_routes(group: Any, method: str = "exact", reference: tuple | None = None) -> TheoremResult:
    """Row 6 (z_M) with its reference route handed a broken z_M (see above): CAUGHT iff the row fails, its routes
    reported disagreeing and the reference route failing R_g.

    ``reference`` (``(U_a, U_b)``) replaces what the reference route reads (testing the control).

    Examples
    --------
    >>> r = control_mem_routes(5)
    >>> r.status, r.details["routes_agree"]
    ('CAUGHT', False)
    """
    G = as_group(group)
    with Timer() as t:
        r = optimality(G, "z_M", "exact", reference_factors=reference if reference is not None
                       else _mem_broken_factors(G))
        agree = r.details.get("routes agree")
        ref_failing = list(r.details.get("reference route failing_conditions", []))
        caught = not r.passed and agree is False and "R_g" in ref_failing
    return make_result(MEM_ROUTES_CONTROL, "row 6 for z_M, its Fourier-inversion route reading z_M (optimal) and its "
                       "second route (Z[zeta_L] character sums up to order 31, the exact loss by Parseval above) reading z_M "
                       "with node 0 of U_a at element 1 (R_g fails by hand): "
                       "CAUGHT iff the row FAILS with its routes reported disagreeing (reference failing R_g)",
                       "exact", caught, 0.0, t, negative_control=True, routes_agree=agree, row_passed=r.passed,
                       failing_conditions=ref_failing, expected_failing=["R_g (at least), reference route only"],
                       loss="n/a", expected_loss="n/a")


# * the membership table (row 5) handed the catalogue with z_nu's second c entry doubled: by hand
#   sum a^2 c = 1 * 1 + nu^2 * (-2 nu^-2) = -1 (was 0), and z_syn's a^2 c is 3, so the union Z(z_syn) | Z(z_nu) no
#   longer contains a^2 c: exactly the 7.1 union check fails (Z(z_nu=i) | Z(z_syn,ab) and Z(z_nu=i) | Z(z_xi) do not
#   involve z_nu); every sum is still decided.
MEMBERSHIP_CONTROL = "membership row: z_nu with its second c doubled"
_MEMBERSHIP_FAILS = ["z_F6 block z_syn * z_nu (7.1): union of the factors' zero sets contains the sums it needs"]


def control_membership(group: Any, method: str = "exact", factors: list | None = None) -> TheoremResult:
    """Row 5 handed a wrong catalogue (see above): CAUGHT iff exactly the 7.1 union check fails.

    ``factors`` (rows as :func:`cogo.proofs.theorems.zero_sets.membership_table` takes them) replaces the broken catalogue.

    Examples
    --------
    >>> control_membership(7, "numeric").status
    'CAUGHT'
    """
    method = check_method(method)
    G = as_group(group)
    with Timer() as t:
        if factors is None:
            factors = []
            for name, form, part, conj, points in _catalogue_factors(method, np.random.default_rng(0)):
                if form == "z_nu":
                    c = part.c.copy()
                    c[1] = c[1] * 2
                    part = PartialSolution(part.name, part.a, part.b, c, part.params)
                factors.append((name, form, part, conj, points))
        r = membership_table(G, method, factors=factors)
        failing = sorted(k for k, ok in r.details["checks"].items() if not ok)
        caught = failing == _MEMBERSHIP_FAILS
    return make_result(MEMBERSHIP_CONTROL, "the membership table handed the catalogue with z_nu's second c entry "
                       "doubled (a^2 c = -1, by hand): CAUGHT iff exactly the union check of the z_F6 block "
                       "z_syn * z_nu fails", method, caught, 0.0, t, negative_control=True,
                       failing_conditions=failing, expected_failing=_MEMBERSHIP_FAILS, loss="n/a",
                       expected_loss="n/a")


def control_occam(group: Any, method: str = "exact", design: Any = None) -> TheoremResult:
    """The Occam row handed z' = z_F6 with c of its first block doubled (exact; see above).

    >>> r = control_occam(7)
    >>> r.status, sorted(k for k, ok in r.details["checks"].items() if not ok)
    ('CAUGHT', ["z' = z_F6 certified optimal (exact loss 0)", "z' balanced (exact)"])
    """
    method = check_method(method)
    G = as_group(group)
    with Timer() as t:
        if design is None:
            d = designs.f6_design(G, exact=True)
            blk = d.blocks[0]
            part = PartialSolution(blk.part.name + " (c doubled)", blk.part.a, blk.part.b,
                                   np.asarray([2 * v for v in blk.part.c], dtype=object))
            design = BlockDesign(G, "z_F6, c of one block doubled", [Block(blk.k, part)] + list(d.blocks[1:]), True)
        r = occam(G, "exact", zprime_design=design)
        checks = r.details["checks"]
        want_false = {"z' = z_F6 certified optimal (exact loss 0)", "z' balanced (exact)"}
        caught = (not r.passed and {k for k, ok in checks.items() if not ok} == want_false and len(checks) == 4)
    return make_result(OCCAM_CONTROL, "the Occam row handed z' = z_F6 with c of one block doubled: CAUGHT iff "
                       "exactly 'z' optimal' and 'z' balanced' fail (the prefactor identity and the norm ratio "
                       "2^(1/3) hold for every z')", "exact", caught, 0.0, t, negative_control=True, checks=checks,
                       failing_conditions=sorted(k for k, ok in checks.items() if not ok),
                       expected_failing=sorted(want_false), loss="n/a", expected_loss="n/a")



# =========================================================================== the optimality row itself
def control_optimality_row(group: Any, method: str = "exact", net: Any = None) -> TheoremResult:
    """Row 6 handed z_F6 with c of its first block doubled (odd groups): it must FAIL with the exact loss 2/n.

    By hand: that block has abc = 2 and every other sum 0, so l_k = -4 + 4 = 0 instead of -1 at one pair; the
    loss of SPEC 5 goes from 0 to (2/n)(0 - (-1)) = 2/n.  The row's own route is used (the general loss up to
    order 31, the block route above), so a row that certifies something else (another construction, or a
    cached result) is caught.

    >>> r = control_optimality_row(7)
    >>> r.status, r.details["loss"]
    ('CAUGHT', '2/7')
    """
    method = check_method(method)
    G = as_group(group)
    want = Fraction(2, G.order)
    with Timer() as t:
        if net is None:
            d = designs.f6_design(G, exact=True)
            blk = d.blocks[0]
            part = PartialSolution("c doubled", blk.part.a, blk.part.b, np.asarray([2 * v for v in blk.part.c],
                                                                                   dtype=object))
            net = BlockDesign(G, "z_F6, c of one block doubled", [Block(blk.k, part)] + list(d.blocks[1:]),
                              True).to_network()
        if method == "exact":
            r = optimality(G, "z_F6", "exact", net=net)
            got = r.details.get("loss_exact")
            loss_ok = got is not None and decide_zero(sympy.sympify(got) - sympy.Rational(2, G.order)) is True
        else:
            r = optimality(G, "z_F6", "numeric", net=net.to_numeric())
            got = r.details["real_space_loss"].get("given")
            loss_ok = got is not None and abs(got - float(want)) <= 1e-9
        caught = not r.passed and loss_ok
    return make_result("optimality row: z_F6 with c of one block doubled", "row 6 handed z_F6 with c of its first "
                       "block doubled: CAUGHT iff it fails with the loss 2/n derived by hand", method, caught, 0.0, t,
                       negative_control=True, loss=str(got), expected_loss=str(want),
                       failing_conditions=["row 6 fails" if not r.passed else "row 6 passes"],
                       expected_failing=["row 6 fails"])
