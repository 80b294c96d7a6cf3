"""Exact cyclotomic arithmetic (cogo.algebra.cyclotomic) against sympy's polynomial remainder by Phi_L."""
from fractions import Fraction

import numpy as np
import pytest
import sympy

from cogo.algebra import fourier_loss, parse_group, real_loss
from cogo.algebra.cyc_gauge import cyc_network
from cogo.algebra.cyclotomic import CycNumber, Cyclotomic, exact_real_loss, fourier_network
from cogo.algebra.network import is_zero_exact

x = sympy.Symbol("x")


def _sympy_coords(v, L, den=1):
    """Coordinates of (1/den) sum_e v[e] x^e modulo Phi_L, by sympy Poly.rem, padded to phi(L)."""
    p = sympy.Poly(sum(int(c) * x**e for e, c in enumerate(v)), x, domain="QQ")
    r = p.rem(sympy.Poly(sympy.cyclotomic_poly(L, x), x, domain="QQ"))
    coeffs = [Fraction(int(c.p), int(c.q)) / den for c in r.all_coeffs()[::-1]]
    deg = int(sympy.totient(L))
    return tuple(coeffs + [Fraction(0)] * (deg - len(coeffs)))


@pytest.mark.parametrize("L", [1, 2, 3, 4, 6, 7, 12, 15, 23, 24, 25])
def test_reduction_matches_sympy_rem(L):
    rng = np.random.default_rng(L)
    cyc = Cyclotomic(L)
    for _ in range(5):
        v = rng.integers(-9, 10, size=2 * L)
        ours = tuple(Fraction(int(c)) for c in cyc.from_counts(v[None, :])[0])
        assert ours == _sympy_coords(v, L)


@pytest.mark.parametrize("L", [3, 7, 12, 23, 24])
def test_cycnumber_product_sum_conjugate_match_sympy(L):
    rng = np.random.default_rng(100 + L)
    for _ in range(4):
        u, w = rng.integers(-5, 6, size=L), rng.integers(-5, 6, size=L)
        du, dw = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        a, b = CycNumber(L, u, Fraction(1, du)), CycNumber(L, w, Fraction(1, dw))
        pu = sympy.Poly(sum(int(c) * x**e for e, c in enumerate(u)), x) * sympy.Rational(1, du)
        pw = sympy.Poly(sum(int(c) * x**e for e, c in enumerate(w)), x) * sympy.Rational(1, dw)
        phi = sympy.Poly(sympy.cyclotomic_poly(L, x), x)

        def coords(poly):
            r = poly.rem(phi)
            cs = [Fraction(int(c.p), int(c.q)) for c in r.all_coeffs()[::-1]]
            return tuple(cs + [Fraction(0)] * (int(sympy.totient(L)) - len(cs)))

        assert (a * b).coordinates() == coords(pu * pw)
        assert (a + b).coordinates() == coords(pu + pw)
        assert (a - b).coordinates() == coords(pu - pw)
        # conjugation: x^e -> x^(L - e), i.e. zeta -> zeta^-1
        pc = sympy.Poly(sum(int(c) * x**((-e) % L) for e, c in enumerate(u)), x) * sympy.Rational(1, du)
        assert sympy.conjugate(a).coordinates() == coords(pc)
        assert complex(a * b) == pytest.approx(complex(a) * complex(b), abs=1e-9)


def test_zero_test_and_refusals():
    L = 5
    assert CycNumber(L, np.ones(L, dtype=np.int64)) == 0  # 1 + zeta + ... + zeta^4 = 0
    assert not (CycNumber.root(L, 1) == 0)
    with pytest.raises(TypeError):
        CycNumber.root(L, 1) * 0.5  # floats are never mixed in
    with pytest.raises(TypeError):
        CycNumber.root(L, 1) + CycNumber.root(7, 1)
    big = CycNumber.root(L, 1, 3**40)  # coefficients beyond int64 switch to Python integers
    assert (big * big - CycNumber.root(L, 2, 3**80)) == 0


@pytest.mark.parametrize("group", [5, 8, "3x3"])
def test_fourier_network_has_the_potentials_of_from_weights(group):
    G = parse_group(group)
    rng = np.random.default_rng(3)
    Wa, Wb = rng.integers(-3, 4, size=(2, G.order)), rng.integers(-3, 4, size=(2, G.order))
    Wc = rng.integers(-3, 4, size=(G.order, 2))
    exact = fourier_loss(fourier_network(Wa, Wb, Wc, G))
    assert exact == exact_real_loss(Wa, Wb, Wc, G)
    assert float(exact_real_loss(Wa, Wb, Wc, G)) == pytest.approx(real_loss(Wa, Wb, Wc, group=G), rel=1e-12)


def test_cyc_network_gauge_keeps_the_loss():
    from cogo.solvers.constructions import z_F46

    net = z_F46(7, exact=True, corrected=False)
    cz, scales = cyc_network(net)
    assert set(scales) == {"4^(-1/3)", "6^(-1/3)"}
    # 2 (n - 3) / n (SPEC 7.3: 16/11 at n = 11), independently: float64 real-space loss
    assert fourier_loss(cz) == Fraction(8, 7)
    assert real_loss(*net.to_numeric().to_weights(), group=7) == pytest.approx(8 / 7, rel=1e-12)


def test_exact_real_loss_rational_weights():
    """Rational weights (Fractions, sympy Rationals) give the float64 real-space loss; floats are refused."""
    rng = np.random.default_rng(5)
    G = 6
    Wa = np.vectorize(lambda v: Fraction(int(v), 3), otypes=[object])(rng.integers(-3, 4, size=(4, G)))
    Wb = rng.integers(-3, 4, size=(4, G)).astype(object)
    Wc = np.vectorize(lambda v: sympy.Rational(int(v), 2), otypes=[object])(rng.integers(-3, 4, size=(G, 4)))
    exact = exact_real_loss(Wa, Wb, Wc, G)
    f = [np.asarray([[float(x) for x in row] for row in W]) for W in (Wa, Wb, Wc)]
    assert float(exact) == pytest.approx(real_loss(*f, group=G), rel=1e-12)
    assert exact_real_loss(Wa * 3, Wb * 3, Wc * 2, G) != exact  # not scale invariant: the loss is not homogeneous
    with pytest.raises(TypeError):
        exact_real_loss(f[0], Wb, Wc, G)


def test_fast_operators_keep_exactness_and_refuse_mixed_orders():
    a, z = CycNumber.root(12, 1), CycNumber.rational(12, 0)
    assert (z * a).is_zero() and (a * z).is_zero() and (a + z) == a and (z + a) == a
    with pytest.raises(TypeError):
        a + CycNumber.root(8, 1)
    with pytest.raises(TypeError):
        z * CycNumber.root(8, 1)          # a zero of another field is still refused
    with pytest.raises(TypeError):
        a + 0.5                           # floats never enter


def test_to_sympy_is_the_same_number():
    rng = np.random.default_rng(3)
    for L in (3, 4, 12, 24):
        x = CycNumber(L, rng.integers(-4, 5, size=L), Fraction(2, 7))
        s = x.to_sympy()
        assert not s.free_symbols and not s.has(sympy.Float)
        assert abs(complex(sympy.N(s, 30)) - complex(x)) < 1e-12
        y = x + CycNumber.root(L, 1)
        assert abs(complex(sympy.N(y.to_sympy(), 30)) - complex(x)) > 0.5   # a different number reads differently
    assert CycNumber.rational(12, Fraction(-8, 7)).to_sympy() == sympy.Rational(-8, 7)
    assert (CycNumber.root(12, 2) + CycNumber.root(12, 10)).to_sympy() == 1   # zeta^2 + zeta^-2 = 2 cos(pi/3)


def test_gauge_fix_nodes_preserves_every_node_monomial():
    from cogo.algebra.cyc_gauge import gauge_fix_nodes
    from cogo.solvers.designs import f46_design

    d = f46_design(11, exact=True, seed=1)
    six = d.blocks[0]
    w = [next(iter(six.c_ext.values()))] * six.q          # a hat weight: gamma_k = 6^(2/3) x Q(i)
    L, A, B, (Cc, W) = gauge_fix_nodes(six.part.a, six.part.b, [six.part.c, w])
    for j in range(six.q):
        a, b, c = six.part.a[j], six.part.b[j], six.part.c[j]
        for lhs, rhs in ((A[j] * B[j] * Cc[j], a * b * c), (A[j].conjugate() * B[j] * W[j], sympy.conjugate(a) * b * w[j]),
                         (A[j] * A[j].conjugate() * Cc[j], a * sympy.conjugate(a) * c)):
            assert abs(complex(lhs) - complex(sympy.N(rhs, 30))) < 1e-12   # numbers (exactness: tests above)
    assert gauge_fix_nodes([sympy.sqrt(5)], [1], [[1]]) is None
    assert gauge_fix_nodes([sympy.Integer(2) ** sympy.Rational(1, 5)], [1]) is None


@pytest.mark.parametrize("L", [5, 12, 24])
def test_equality_hash_and_zero_use_the_canonical_coordinates(L):
    """Different representations of one element of Q(zeta_L) (the relation Phi_L(zeta) = 0, a common factor of
    numerator and denominator) are equal with equal hashes; different elements are not; checked against sympy."""
    rng = np.random.default_rng(L)
    z = sympy.exp(2 * sympy.pi * sympy.I / L)
    phi = [int(c) for c in sympy.Poly(sympy.cyclotomic_poly(L, sympy.Symbol("x")), sympy.Symbol("x")).all_coeffs()[::-1]]
    for _ in range(5):
        v = rng.integers(-3, 4, size=L)
        x = CycNumber(L, v, Fraction(1, 3))
        rel = np.zeros(L, dtype=np.int64)
        rel[: len(phi)] = phi                                # Phi_L(zeta) = 0: adding it changes the vector only
        y = CycNumber(L, 2 * (v + 5 * rel), Fraction(1, 6))  # same value: (2 v + 10 Phi) / 6
        assert y == x and x == y and hash(x) == hash(y)
        assert x.coordinates() == y.coordinates()
        w = x + CycNumber.root(L, 1, Fraction(1, 7))
        assert not (w == x) and w != x
        d = y - x
        assert d.is_zero() and d.coordinates() == (Fraction(0),) * len(x.coordinates())
        assert {x: 1}[y] == 1                                # usable as a dict key across representations
        e = sympy.expand(sum(int(c) * z**i for i, c in enumerate(v)) / 3 - (w.to_sympy()))
        assert sympy.simplify(e) != 0 and not (x - w).is_zero()
    r = CycNumber(L, 4 * rel + 6 * np.eye(L, dtype=np.int64)[0], Fraction(1, 4))  # 6/4 = 3/2, rational
    assert r.to_rational() == Fraction(3, 2) and r == Fraction(3, 2) and not CycNumber.root(L, 1).to_rational()


# --------------------------------------------------------------------------- cogo.algebra.cyc_format
def test_minimal_polynomials_by_hand():
    """Minimal polynomials known by hand: sqrt 2 = zeta_8 + zeta_8^-1 (x^2 - 2), zeta_5 (Phi_5), 2 cos(2 pi/7)
    (x^3 + x^2 - 2x - 1), i (x^2 + 1), a rational (degree 1)."""
    from cogo.algebra.cyc_format import galois_conjugates, minimal_polynomial

    r2 = CycNumber.root(8, 1) + CycNumber.root(8, -1)
    F = Fraction
    assert minimal_polynomial(r2) == [F(1), F(0), F(-2)]
    assert minimal_polynomial(CycNumber.root(5, 1)) == [F(1)] * 5
    assert minimal_polynomial(CycNumber.root(7, 1) + CycNumber.root(7, -1)) == [F(1), F(1), F(-2), F(-1)]
    assert minimal_polynomial(CycNumber.root(24, 6)) == [F(1), F(0), F(1)]
    assert minimal_polynomial(CycNumber.rational(24, F(-3, 4))) == [F(1), F(3, 4)]
    assert len(galois_conjugates(r2 * r2)) == 1                       # 2: rational


def test_format_exact_is_reduced_and_exact():
    """One readable form: the rational itself; otherwise radicals (L | 24) with the minimal polynomial and the
    value, never the unreduced vector of Q[x]/(x^L - 1)."""
    from cogo.algebra.cyc_format import format_exact

    r2 = CycNumber.root(24, 3) + CycNumber.root(24, -3)                # sqrt 2 in Q(zeta_24)
    x = (CycNumber.rational(24, 33) - 22 * r2) / 23
    unreduced = x + (1 + CycNumber.root(24, 8) + CycNumber.root(24, 16)) * 7   # + 7 (1 + w + w^2) = + 0
    for v in (x, unreduced):
        assert format_exact(v) == ("33/23 - 22*sqrt(2)/23 (minimal polynomial x**2 - 66*x/23 + 121/529; "
                                   "approx. 0.0820565925126917)")
    assert format_exact(unreduced - x + Fraction(5, 7)) == "5/7"
    assert format_exact(CycNumber.root(7, 1) + CycNumber.root(7, -1)).startswith("2*cos(2*pi/7) (minimal polynomial")
    assert "CycNumber" not in format_exact(unreduced)
    i = CycNumber.root(4, 1)                                          # not real: 1 + 2i, not its conjugate
    assert format_exact(1 + 2 * i) == "1 + 2*I (minimal polynomial x**2 - 2*x + 5; approx. 1+2j)"
