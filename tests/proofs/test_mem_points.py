"""cogo.proofs.certificates.mem_points: the z_M controls at every order, from integer point counts.

The closed forms are derived by hand (module docstrings of cogo.proofs.controls.broken_constructions and
cogo.proofs.controls.unseen_inputs): z_M loss 0; W_c doubled (n - 1)/n, R_g alone fails; node (0, 0) removed
(n - 1)(n + 7)/(2 n^3), all four fail; b of U_b's node 0 at frequency 0 set to -1: 4 (n - 1)/n^3, R_c alone.
"""
from fractions import Fraction

import numpy as np
import pytest

from cogo.algebra.group_parsing import parse_group
from cogo.proofs.controls import broken_constructions as KC
from cogo.proofs import registry as R
from cogo.proofs.controls.unseen_inputs import control_mem_zero_frequency
from cogo.proofs.certificates.mem_points import mem_points, points_certificate, points_loss


def _by_hand(n: int) -> dict:
    return {"": (Fraction(0), []), "doubled": (Fraction(n - 1, n), ["R_g"]),
            "dropped": (Fraction((n - 1) * (n + 7), 2 * n ** 3), ["R_g", "R_c", "R_n", "R_*"]),
            "zero-frequency": (Fraction(4 * (n - 1), n ** 3), ["R_c"])}


@pytest.mark.parametrize("group", [2, 3, 4, 9, 12, "3x3", "2x4", 37])
def test_points_give_the_hand_derived_loss_and_conditions(group):
    G = parse_group(group)
    for defect, (loss, failing) in _by_hand(G.order).items():
        P = mem_points(G, defect)
        assert points_loss(P) == loss and points_certificate(P).failing == failing, defect


def test_points_agree_with_the_full_network_where_it_is_built():
    """Up to order 31 the controls build z_M in full (numeric residuals, exact real-space loss): same outcome."""
    G = parse_group(13)
    for name, defect in (("z_M, output weights doubled", "doubled"), ("z_M without node (0, 0)", "dropped")):
        r = KC.run_control(name, G, "exact")
        P = mem_points(G, defect)
        assert "gauged rational weights" in r.details["route"] and r.passed
        assert r.details["failing_conditions"] == points_certificate(P).failing
        assert r.details["loss"] == str(points_loss(P))
    r = control_mem_zero_frequency(G)
    assert r.passed and r.details["points route agrees"] is True


@pytest.mark.parametrize("method", ["exact", "numeric"])
def test_every_z_m_control_runs_and_is_caught_at_127(method):
    # nothing is skipped at 127 (row 6's two-route control included: above order 31 z_M's second route is the
    # exact loss by Parseval); every z_M control of the loss runs
    assert R.skipped(127) == []
    for fn in (KC.control_mem_doubled, KC.control_mem_dropped, control_mem_zero_frequency):
        r = fn(127, method)
        assert r.status == "CAUGHT" and "point counts" in r.details["route"], (fn.__name__, r.details)
    assert KC.control_mem_dropped(127).details["loss"] == str(Fraction(126 * 134, 2 * 127 ** 3))


def test_a_wrong_network_is_missed_above_31(monkeypatch):
    """Mutation: the 'dropped' control handed z_M itself, or the doubled network, is reported MISSED."""
    for wrong in ("", "doubled"):
        monkeypatch.setitem(KC._MEM_DEFECT, "z_M without node (0, 0)", wrong)
        for method in ("exact", "numeric"):
            r = KC.control_mem_dropped(37, method)
            assert r.status == "MISSED" and not r.details["conditions_match"], (wrong, method)
    monkeypatch.setattr("cogo.proofs.controls.unseen_inputs.mem_points", lambda G, d: mem_points(G, "dropped"))
    assert control_mem_zero_frequency(37).status == "MISSED"


def test_unknown_defect_is_refused():
    with pytest.raises(ValueError, match="unknown defect"):
        mem_points(parse_group(5), "tripled")


@pytest.mark.parametrize("spec", [5, 7, "3x3", "2x4", 33])
def test_rows_by_sums_reads_the_factor_rows_by_hand(spec):
    # U_a's node j reads input a at element j and outputs at j (its b row is the trivial character): by hand its
    # a row is chi(., -j), its b row chi(., 0), its c row chi(., j); U_b the same with a and b exchanged.  The
    # phase lookup of the inversion route gives the same rows by another computation.
    from cogo.algebra.group_parsing import parse_group
    from cogo.proofs.certificates.character_sums import character_rows
    from cogo.proofs.certificates.mem_points import rows_by_sums
    from cogo.solvers.constructions import mem_factors

    G = parse_group(spec)
    n = G.order
    neg = np.argmax(G.add_table == 0, axis=1)
    j = np.arange(n)
    Ua, Ub = mem_factors(G)
    want = {"a": [neg[j], np.zeros(n, dtype=np.int64), j], "b": [np.zeros(n, dtype=np.int64), neg[j], j]}
    for U, key in ((Ua, "a"), (Ub, "b")):
        got = rows_by_sums(U)
        assert all(np.array_equal(got[c], want[key][c]) for c in range(3)), key
        assert all(np.array_equal(got[c], character_rows(U)[c]) for c in range(3))
    E = Ua.E.copy()
    E[0, 1, 0] = (E[0, 1, 0] + 1) % Ua.L            # one phase moved: row 0 of U_a is no character any more
    assert rows_by_sums(type(Ua)(G, E, Ua.L)) is None
