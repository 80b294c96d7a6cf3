"""The multi-modular route (cogo.algebra.modular) and the z_M certificate by Fourier inversion
(cogo.proofs.certificates.character_sums) against the reference routes (CycNumber, mem_certificate), negative cases included."""
from fractions import Fraction

import numpy as np
import pytest

from cogo.algebra import fourier_loss, parse_group, published_loss
from cogo.algebra.cyclotomic import CycNumber, exact_real_loss, fourier_network
from cogo.algebra.modular import ModCyc, ModularField, ModulusTooSmall, fourier_network_modular, modular_field
from cogo.solvers.constructions import RootOfUnityNetwork, mem_factors
from cogo.proofs.controls import theorem_rows as KR
from cogo.proofs.theorems import loss_decomposition as TLS
from cogo.proofs.theorems import optimality as TO
from cogo.proofs.certificates.mem_certificate import mem_certificate
from cogo.proofs.certificates.character_sums import _table_ok, character_rows, mem_certificate_inversion


def _pair(L, rng, F):
    """A random element as a CycNumber and as a ModCyc of ``F`` (same vector, same rational scale)."""
    v = rng.integers(-6, 7, size=L)
    s = Fraction(int(rng.integers(-5, 6)) or 1, int(rng.integers(1, 6)))
    return CycNumber(L, v, s), ModCyc.from_vector(F, v, s)


@pytest.mark.parametrize("L", [1, 2, 3, 4, 7, 8, 9, 12, 15, 23, 24])
def test_modcyc_arithmetic_matches_cycnumber_exactly(L):
    rng = np.random.default_rng(L)
    F = modular_field(L, 128)
    for _ in range(6):
        (a, x), (b, y) = _pair(L, rng, F), _pair(L, rng, F)
        for ref, mod in [(a * b + a.conjugate(), x * y + x.conjugate()), (a - b * 3, x - y * 3),
                         (a * a * b - Fraction(2, 7), x * x * y - Fraction(2, 7)), (b ** 3 / 5, y ** 3 / 5)]:
            assert mod.coordinates() == ref.coordinates()
            assert (mod == 0) == ref.is_zero()
        assert (x * y == y * x) and (x - x == 0)


@pytest.mark.parametrize("g", [3, 5, 8, 12, "2x4", "3x3"])
def test_fourier_loss_modular_equals_reference_and_real_loss(g):
    G = parse_group(g)
    rng = np.random.default_rng(7)
    n = G.order
    Wa, Wb = TLS._int_weights(rng, 3, n), TLS._int_weights(rng, 3, n)
    Wc = TLS._int_weights(rng, 3, n).T.copy()
    ref, mod = fourier_network(Wa, Wb, Wc, G), fourier_network_modular(Wa, Wb, Wc, G)
    real = exact_real_loss(Wa, Wb, Wc, G)
    assert fourier_loss(mod) == real and fourier_loss(mod).to_rational() == fourier_loss(ref).to_rational() == real
    pub = published_loss(mod)
    assert not (pub == real) and pub.coordinates() == published_loss(ref).coordinates()
    assert not (fourier_loss(mod) == real + Fraction(1, 10**12))  # a tiny difference is proven nonzero


@pytest.mark.parametrize("L", [5, 12])
def test_both_scalars_share_exact_scalar_rules(L):
    """Subtraction, division, powers and == (cogo.algebra.exact_scalar) agree on both representations; inexact
    operands and other fields are refused, never approximated."""
    import sympy

    rng = np.random.default_rng(L)
    F = modular_field(L, bits=96)
    (c, m), (c2, m2) = _pair(L, rng, F), _pair(L, rng, F)
    for got_c, got_m in [(c - c2, m - m2), (3 - c, 3 - m), (c / Fraction(-2, 3), m / Fraction(-2, 3)),
                         (c ** 3, m ** 3), (c ** 0, m ** 0), (sympy.Rational(1, 2) - c, sympy.Rational(1, 2) - m)]:
        assert got_m.coordinates() == got_c.coordinates()
    assert c ** 2 == c * c and m ** 2 == m * m and not (c ** 2 == c * c + 1) and m ** 2 != m * m + 1
    other_c, other_m = CycNumber.root(2 * L, 1), ModCyc.root(modular_field(L, bits=64), 1)
    for x, other in [(c, other_c), (m, other_m)]:
        assert not (x == other) and x != 0.5
        for bad in [lambda: x - other, lambda: x * other, lambda: x - 0.5, lambda: x * sympy.sqrt(2),
                    lambda: x / 0, lambda: x / c2, lambda: x ** -1, lambda: x ** 1.5]:
            with pytest.raises(TypeError):
                bad()


def test_nonzero_elements_are_decided_nonzero():
    F = modular_field(23, 64)
    w = ModCyc.root(F, 1)
    assert not (w == 1) and not ((w - 1) * (w + 1) == 0)
    assert not (sum((w ** e for e in range(22)), ModCyc.rational(F, 0)) == 0)  # 1 + ... + zeta^21 = -zeta^22 != 0
    assert sum((w ** e for e in range(23)), ModCyc.rational(F, 0)) == 0      # with zeta^22 it is 0


def test_zero_modulo_every_prime_but_not_zero_is_never_called_zero():
    """``M (1 + zeta)`` with M the product of the field's primes: every residue is 0 (it is 0 modulo each p), but
    its coefficient bound 2M exceeds M / 2, so the zero test refuses; a larger modulus proves it nonzero."""
    L = 7
    small = ModularField(L, 20)
    M = small.modulus
    x = (ModCyc.root(small, 0) + ModCyc.root(small, 1)) * M
    assert not np.any(x.r % small.Pf)  # zero modulo every prime of the small field
    with pytest.raises(ModulusTooSmall) as err:
        x.is_zero()
    assert err.value.bits > M.bit_length()
    with pytest.raises(ModulusTooSmall):
        _ = x == 0  # equality does not answer either
    big = ModularField(L, err.value.bits)
    y = (ModCyc.root(big, 0) + ModCyc.root(big, 1)) * M
    assert y.is_zero() is False and y.coordinates() == (Fraction(M), Fraction(M), 0, 0, 0, 0)


def test_bound_is_tracked_through_sums_and_products():
    F = modular_field(5, 64)
    a = ModCyc.from_vector(F, [3, -2, 0, 0, 1])
    b = ModCyc.from_vector(F, [0, 1, 1, 0, 0], Fraction(1, 3))
    assert (a.b, b.b) == (6, 2)
    assert (a * b).b == 12 and (a + a).b == 12 and (a + b).b == 6 * 3 + 2 and (a * 4).b == 24


def test_row3_enlarges_a_too_small_modulus(monkeypatch):
    monkeypatch.setattr(TLS, "DEFAULT_BITS", 8)  # far too small: the row must enlarge it, never guess
    r = TLS.loss_decomposition(11)
    assert r.passed and int(r.details["modulus"].split(", ")[1].split()[0]) > 40


def test_row3_fails_for_a_wrong_loss(monkeypatch):
    monkeypatch.setattr(TLS, "fourier_loss", lambda z: fourier_loss(z) + Fraction(1, 1000))
    r = TLS.loss_decomposition(7)
    assert not r.passed and r.residual > 0


# --------------------------------------------------------------------------- z_M by Fourier inversion
def _perturbed(G, rng, Ua, Ub):
    ph = G._phase
    E = [Ua.E.copy(), Ub.E.copy()]
    for _ in range(int(rng.integers(1, 3))):
        f, p, m = int(rng.integers(2)), int(rng.integers(3)), int(rng.integers(G.order))
        E[f][p, :, int(rng.integers(E[f].shape[2]))] = ph[:, m]
    if rng.random() < 0.3:
        f = int(rng.integers(2))
        E[f] = E[f][:, :, :-1] if rng.random() < 0.5 else np.concatenate([E[f], E[f][:, :, :1]], axis=2)
    return RootOfUnityNetwork(G, E[0], Ua.L), RootOfUnityNetwork(G, E[1], Ub.L)


@pytest.mark.parametrize("g", [2, 3, 4, 5, 6, 8, 9, 12, "2x2", "2x4", "3x3"])
def test_inversion_certificate_equals_reference(g):
    G = parse_group(g)
    rng = np.random.default_rng(G.order)
    Ua, Ub = mem_factors(G)
    seen = set()
    for a, b in [(Ua, Ub)] + [_perturbed(G, rng, Ua, Ub) for _ in range(10)]:
        ref, fast = mem_certificate(a, b), mem_certificate_inversion(a, b)
        assert fast.zero == ref.zero
        for c in ref.zero:
            assert fast.max_abs[c] == pytest.approx(ref.max_abs[c], rel=1e-9, abs=1e-12)
        seen.add(tuple(ref.failing))
    assert () in seen and len(seen) > 1  # the certified z_M and some failing perturbations


def test_inversion_declines_rows_that_are_not_characters_and_the_row_falls_back():
    Ua, Ub = mem_factors(7)
    E = Ua.E.copy()
    E[2, 3, :] = (E[2, 3, :] + 1) % 7  # c at one frequency rotated: no longer a character in any node
    bad = RootOfUnityNetwork(Ua.group, E, 7)
    assert character_rows(bad) is None and mem_certificate_inversion(bad, Ub) is None
    r = TO.optimality(7, "z_M", "exact", factors=(bad, Ub))
    assert not r.passed and "R_g" in r.details["failing_conditions"] and "Z[zeta_L]" in r.details["route"]
    assert "routes agree" not in r.details


def test_phase_table_premises_are_checked():
    G = parse_group(5)
    assert _table_ok.__wrapped__(G)
    broken = parse_group(5)
    ph = G._phase.copy()
    ph[2, 3] = (ph[2, 3] + 1) % 5
    broken.__dict__["_phase"] = ph
    assert not _table_ok.__wrapped__(broken)
    degenerate = parse_group(5)
    degenerate.__dict__["_phase"] = np.zeros_like(ph)
    assert not _table_ok.__wrapped__(degenerate)


def test_routes_cross_checked_at_every_order_and_a_disagreement_fails(monkeypatch):
    r = TO.optimality(23, "z_M", "exact")
    assert r.passed and r.details["routes agree"] is True and "reference route loss" not in r.details
    # above 31 the second route is the exact loss by Parseval (0 for z_M), not the O(n^5) character sums
    above = TO.optimality(37, "z_M", "exact")
    assert above.passed and above.details["routes agree"] is True and above.details["reference route loss"] == "0"
    assert "inversion" in above.details["route"] and "Parseval" in above.details["route"]
    assert KR.control_mem_certificate(37).status == "CAUGHT"
    # a reference route that certifies everything: the row and its control must both fail
    monkeypatch.setattr(TO, "mem_certificate", lambda a, b: mem_certificate_inversion(*mem_factors(a.group)))
    assert KR.control_mem_certificate(11).status != "CAUGHT"
