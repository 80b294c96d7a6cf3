"""The semiring laws of SPEC 3, modulo node permutation (property-based)."""
import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from cogo.algebra import Cyclic, Network, parse_group
from strategies import groups, network_triples, networks, random_network

TOL = 1e-9  # absolute, per entry; entries are O(1)..O(30) products of normals


@given(network_triples())
def test_addition_associative_commutative(t):
    x, y, z = t
    assert ((x + y) + z).equals(x + (y + z), TOL)
    assert (x + y).equals(y + x, TOL)


@given(network_triples())
def test_multiplication_associative_commutative(t):
    x, y, z = t
    assert ((x * y) * z).equals(x * (y * z), 1e-8)
    assert (x * y).equals(y * x, TOL)


@given(network_triples())
def test_distributive(t):
    x, y, z = t
    assert (x * (y + z)).equals(x * y + x * z, TOL)
    assert ((x + y) * z).equals(x * z + y * z, TOL)


@given(networks())
def test_identities(x):
    G = x.group
    one, zero = Network.one(G), Network.zero(G)
    assert (x * one).equals(x, 0.0) and (one * x).equals(x, 0.0)
    assert (x + zero).equals(x, 0.0) and (zero + x).equals(x, 0.0)
    assert (x * zero).q == 0 and (zero * x).q == 0
    assert (x * zero).equals(zero)


@given(networks(), st.complex_numbers(max_magnitude=3, allow_nan=False, allow_infinity=False))
def test_scalar_multiplication(x, s):
    y = s * x
    np.testing.assert_allclose(y.z, s * x.z)
    assert (x * s).equals(y, 0.0)


@given(network_triples(real=True))
def test_operations_preserve_realness(t):
    x, y, z = t
    assert x.is_real() and y.is_real()
    assert (x + y).is_real()
    assert (x * y * z).is_real(1e-9)


@given(networks(max_q=4))
def test_weights_round_trip(x):
    Wa, Wb, Wc = x.to_weights(real=False)
    back = Network.from_weights(Wa, Wb, Wc, x.group)
    np.testing.assert_allclose(back.z, x.z, atol=1e-12)


@given(networks(max_q=4, real=True))
def test_real_weights_round_trip(x):
    Wa, Wb, Wc = x.to_weights()
    assert Wa.dtype == np.float64
    np.testing.assert_allclose(Network.from_weights(Wa, Wb, Wc, x.group).z, x.z, atol=1e-12)


def test_kronecker_node_order():
    G = Cyclic(3)
    x, y = random_network(G, 2, 1), random_network(G, 3, 2)
    p = x * y
    for j1 in range(2):
        for j2 in range(3):
            np.testing.assert_allclose(p.z[:, :, j1 * 3 + j2], x.z[:, :, j1] * y.z[:, :, j2])


def test_equals_detects_difference_and_permutation():
    G = parse_group("3x3")
    x = random_network(G, 4, 0)
    perm = [2, 0, 3, 1]
    assert x.permute(perm).equals(x)
    y = x.copy()
    y.z[1, 2, 3] += 1e-6
    assert not y.equals(x, 1e-9)
    assert y.equals(x, 1e-5)
    assert not x.equals(x + Network.zero(G) + random_network(G, 1, 5))
    # zero nodes change nothing once dropped
    padded = x + 0 * random_network(G, 2, 3)
    assert not padded.equals(x)
    assert padded.equals(x, drop_zero=True)
    assert padded.drop_zero_nodes().q == 4


def test_duplicated_nodes_matching_is_a_bijection():
    G = Cyclic(3)
    x = random_network(G, 1, 0)
    y = random_network(G, 1, 1)
    assert not (x + x + y).equals(x + y + y)


def test_hermitian_check_fails_for_complex_network():
    x = random_network(Cyclic(5), 2, 0)
    assert not x.is_real()
    with pytest.raises(ValueError, match="not real"):
        x.to_weights()


def test_block_and_selector():
    G = Cyclic(7)
    blk = Network.block(G, 2, [1, 2j], [3, 4], [5, 6])
    assert blk.is_real()
    assert blk.z[0, 2, 1] == 2j and blk.z[0, 5, 1] == -2j
    assert np.count_nonzero(blk.z[:, [0, 1, 3, 4, 6], :]) == 0
    y = Network.selector(G, 2)
    assert (y * blk).equals(blk)
    # product of blocks at the same frequency is the block of the product
    b2 = Network.block(G, 2, [1, 1j], [2, 1], [1, -1])
    prod = blk * b2
    ref = Network.block(G, 2, np.kron([1, 2j], [1, 1j]), np.kron([3, 4], [2, 1]), np.kron([5, 6], [1, -1]))
    assert prod.equals(ref)
    G2 = parse_group("3x5")
    assert Network.block(G2, (1, 2), [1], [1], [1]).is_real()


def test_exact_networks():
    G = Cyclic(3)
    w = sympy.Symbol("w")
    x = Network(G, np.full((3, 3, 2), w, dtype=object))
    assert x.exact
    one = Network.one(G, exact=True)
    assert (x * one).equals(x)
    y = sympy.Rational(1, 2) * x
    assert y.z[0, 0, 0] == w / 2
    xn = Network.block(G, 1, [sympy.Integer(1)], [sympy.I], [sympy.Integer(2)])
    assert xn.exact and xn.is_real()
    assert xn.to_numeric().equals(Network.block(G, 1, [1], [1j], [2]))
    Wa, Wb, Wc = xn.to_weights()
    back = Network.from_weights(Wa, Wb, Wc, G)
    assert back.equals(xn)


def test_to_exact_array_keeps_sympy_entries_and_converts_the_rest():
    from fractions import Fraction

    from cogo.algebra.network import to_exact_array

    r = sympy.sqrt(3) * sympy.I
    out = to_exact_array(np.array([[r, 2], [Fraction(1, 3), sympy.Integer(0)]], dtype=object))
    assert out.shape == (2, 2) and out.dtype == object
    assert out[0, 0] is r                                    # the same expression, not a copy
    assert isinstance(out[0, 1], sympy.Integer) and out[0, 1] == 2
    assert out[1, 0] == sympy.Rational(1, 3) and isinstance(out[1, 0], sympy.Rational)
    with pytest.raises(ValueError, match="float"):
        to_exact_array(np.array([r, np.float64(0.5)], dtype=object))
    src = np.array([r], dtype=object)
    to_exact_array(src)[0] = 0
    assert src[0] is r                                       # the input is never written to


def test_to_numeric_evaluates_every_entry_as_it_would_alone():
    """to_numeric evaluates each distinct entry once: the result must be each entry's own value (bit for bit),
    for repeated values, exact zeros, and entries that are equal as numbers but written differently."""
    import sympy

    from cogo.solvers.constructions import z_F46

    w = sympy.exp(2 * sympy.pi * sympy.I / 7)
    entries = [0, 1, w, w, sympy.Rational(1, 3), sympy.sqrt(2), w ** 2, 1 + w + w ** 2, -w, sympy.Integer(0)]
    z = np.array(entries * 3, dtype=object).reshape(3, 1, 10)
    z = np.concatenate([z] * 7, axis=1)          # (3, 7, 10): every entry at each of the 7 group elements
    net = Network(7, z, exact=True)
    got = net.to_numeric().z
    want = np.array([[[complex(sympy.N(e, 30)) for e in row] for row in plane] for plane in z])
    assert got.dtype == np.complex128 and np.array_equal(got, want)
    big = z_F46(13, exact=True)
    want = np.vectorize(lambda e: complex(sympy.N(e, 30)), otypes=[np.complex128])(big.z)
    assert np.array_equal(big.to_numeric().z, want)
