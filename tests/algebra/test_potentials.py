"""Sum potentials are ring homomorphisms Z -> C (SPEC 4), numerically and symbolically."""
import itertools

import numpy as np
import pytest
import sympy
from hypothesis import given

from cogo.algebra import Cyclic, Network, block_sums, potential, potentials, self_potential_sums, self_potentials
from strategies import network_triples, networks, random_network


def _all_potentials(x):
    return potentials(x), self_potentials(x, "a"), self_potentials(x, "b")


def _close(u, v, rel=1e-9):
    scale = max(1.0, np.abs(u).max(initial=0.0), np.abs(v).max(initial=0.0))
    return np.abs(u - v).max(initial=0.0) <= rel * scale


@given(networks())
def test_one_maps_to_one(x):
    for r in _all_potentials(Network.one(x.group)):
        assert np.allclose(r, 1.0)
    for r in _all_potentials(Network.zero(x.group)):
        assert np.allclose(r, 0.0)


@given(network_triples())
def test_additive_and_multiplicative(t):
    x, y, _ = t
    for rx, ry, rs, rp in zip(_all_potentials(x), _all_potentials(y), _all_potentials(x + y), _all_potentials(x * y)):
        assert _close(rs, rx + ry)
        assert _close(rp, rx * ry)


@given(networks())
def test_scalar_scales_by_cube(x):
    s = 0.7 - 1.3j
    for r, rs in zip(_all_potentials(x), _all_potentials(s * x)):
        assert _close(rs, s**3 * r)


def test_tensor_matches_definition():
    G = Cyclic(4)
    x = random_network(G, 3, 7)
    r, ra = potentials(x), self_potentials(x, "a")
    for k1, k2, k in itertools.product(range(4), repeat=3):
        direct = sum(x.z[0, k1, j] * x.z[1, k2, j] * x.z[2, k, j] for j in range(3))
        assert abs(r[k1, k2, k] - direct) < 1e-12
        assert abs(potential(x, k1, k2, k) - direct) < 1e-12
        direct_a = sum(x.z[0, k1, j] * x.z[0, k2, j] * x.z[2, k, j] for j in range(3))
        assert abs(ra[k1, k2, k] - direct_a) < 1e-12
        assert abs(potential(x, k1, k2, k, p="a") - direct_a) < 1e-12


def test_self_potential_sums_match_tensor():
    from cogo.algebra import parse_group

    G = parse_group("2x3")
    x = random_network(G, 4, 3)
    for p in "ab":
        rp = self_potentials(x, p)
        C = self_potential_sums(x, p)
        for m in range(G.order):
            for k in range(G.order):
                ref = sum(rp[kp, G.sub_table[m, kp], k] for kp in range(G.order))
                assert abs(C[m, k] - ref) < 1e-10


def _symbolic_network(G, q, name):
    syms = sympy.symbols(f"{name}0:{3 * G.order * q}")
    return Network(G, np.array(syms, dtype=object).reshape(3, G.order, q))


@pytest.mark.parametrize("q1,q2", [(2, 2), (2, 3), (3, 3)])
def test_homomorphism_symbolic(q1, q2):
    """expand(r(z1*z2) - r(z1) r(z2)) == 0 and expand(r(z1+z2) - r(z1) - r(z2)) == 0, generic symbols."""
    G = Cyclic(3)
    x, y = _symbolic_network(G, q1, "x"), _symbolic_network(G, q2, "y")
    for f in (potentials, lambda z: self_potentials(z, "a"), lambda z: self_potentials(z, "b")):
        rx, ry, rp, rs = f(x), f(y), f(x * y), f(x + y)
        for idx in itertools.product(range(3), repeat=3):
            assert sympy.expand(rp[idx] - rx[idx] * ry[idx]) == 0
            assert sympy.expand(rs[idx] - rx[idx] - ry[idx]) == 0
    assert all(e == 1 for e in potentials(Network.one(G, exact=True)).ravel())


def test_symbolic_detects_a_non_homomorphism():
    """Negative control: a map that is not multiplicative is caught by the same check."""
    G = Cyclic(3)
    x, y = _symbolic_network(G, 2, "x"), _symbolic_network(G, 2, "y")

    def bad(z):  # sum_j a b c + sum_j a: additive but not multiplicative
        r = potentials(z)
        return r + z.a.sum(axis=1)[:, None, None]

    assert any(sympy.expand(bad(x * y)[i] - bad(x)[i] * bad(y)[i]) != 0 for i in itertools.product(range(3), repeat=3))


def test_block_sums_match_potentials_of_the_block():
    """The eleven monomial sums equal the corresponding potential entries of the block network (SPEC 6)."""
    G = Cyclic(7)
    rng = np.random.default_rng(1)
    a, b, c = (rng.normal(size=5) + 1j * rng.normal(size=5) for _ in range(3))
    k = 2
    x = Network.block(G, k, a, b, c)
    s = block_sums(a, b, c)
    r, ra, rb = potentials(x), self_potentials(x, "a"), self_potentials(x, "b")
    nk = 5  # -k
    assert np.isclose(s["abc"], r[k, k, k])
    assert np.isclose(s["conj(a) b c"], r[nk, k, k])
    assert np.isclose(s["a conj(b) c"], r[k, nk, k])
    assert np.isclose(s["conj(a) conj(b) c"], r[nk, nk, k])
    assert np.isclose(s["a b conj(c)"], r[k, k, nk])
    assert np.isclose(s["|a|^2 c"], ra[k, nk, k])
    assert np.isclose(s["|b|^2 c"], rb[nk, k, k])
    assert np.isclose(s["a^2 c"], ra[k, k, k])
    assert np.isclose(s["b^2 c"], rb[k, k, k])
    assert np.isclose(s["conj(a)^2 c"], ra[nk, nk, k])
    assert np.isclose(s["conj(b)^2 c"], rb[nk, nk, k])
    Ca, Cb = self_potential_sums(x, "a"), self_potential_sums(x, "b")
    assert np.isclose(Ca[0, k] + Cb[0, k], 2 * s["|a|^2 c + |b|^2 c"])


def test_block_sums_exact():
    w = sympy.Rational(-1, 2) + sympy.sqrt(3) * sympy.I / 2
    v = [1, w, w**2]
    s = block_sums(v, v, v)
    assert s["abc"] == 3 and s["conj(a) b c"] == 0 and s["a^2 c"] == 3
    with pytest.raises(ValueError, match="equal lengths"):
        block_sums([1, 2], [1], [1, 2])


def test_bad_self_potential_name():
    with pytest.raises(ValueError, match="'a', 'b'"):
        self_potentials(Network.one(3), "c")


def test_block_sums_stay_exact_on_non_sympy_exact_numbers():
    """CycNumber / Fraction entries keep their exact arithmetic (they used to fall to complex128 silently)."""
    from fractions import Fraction

    from cogo.algebra.cyclotomic import CycNumber
    from cogo.algebra.potentials import block_sums

    L = 5
    ea, eb, ec = [0, 1, 3], [2, 4, 1], [3, 0, 2]           # exponents of zeta_5 per node
    root = lambda e: CycNumber.root(L, e % L)              # noqa: E731
    got = block_sums([root(e) for e in ea], [root(e) for e in eb], [root(e) for e in ec])
    # each monomial sum, written as exponents: conj(zeta^e) = zeta^-e, |zeta^e|^2 = 1
    expo = {"abc": (1, 1, 1), "conj(a) b c": (-1, 1, 1), "a conj(b) c": (1, -1, 1), "a b conj(c)": (1, 1, -1),
            "conj(a) conj(b) c": (-1, -1, 1), "|a|^2 c": (0, 0, 1), "|b|^2 c": (0, 0, 1), "a^2 c": (2, 0, 1),
            "b^2 c": (0, 2, 1), "conj(a)^2 c": (-2, 0, 1), "conj(b)^2 c": (0, -2, 1)}
    for key, (sa, sb, sc) in expo.items():
        want = sum((root(sa * x + sb * y + sc * z) for x, y, z in zip(ea, eb, ec)), CycNumber.rational(L, 0))
        assert isinstance(got[key], CycNumber), key
        assert got[key] == want, key
    assert got["|a|^2 c + |b|^2 c"] == 2 * got["|a|^2 c"]
    assert not (got["abc"] == got["a^2 c"])                # the comparison can fail
    f = block_sums([Fraction(1, 2)], [Fraction(1, 3)], [2])
    assert f["abc"] == Fraction(1, 3) and isinstance(f["abc"], Fraction)
    assert isinstance(block_sums([1.0], [2.0], [3.0])["abc"], complex)


def test_network_block_stays_exact_on_cyclotomic_entries():
    """Network.block with CycNumber entries is an exact network (it used to become complex128 silently)."""
    from cogo.algebra.cyclotomic import CycNumber
    from cogo.algebra.network import Network

    w = CycNumber.root(5, 1)
    net = Network.block(5, 1, [w, w ** 2], [w, w ** 0], [w ** 3, w])
    assert net.exact and isinstance(net.z[0, 1, 0], CycNumber)
    assert net.z[0, 1, 1] == w ** 2 and net.z[0, 4, 1] == w ** 3      # the conjugate sits at -k
    assert not Network.block(5, 1, [1.0], [1], [1]).exact


def test_self_potential_sums_of_the_zero_network_are_zero():
    """The zero of the semiring (no nodes) has every potential 0 (SPEC 3-4), exact and float (a mutation-tool
    survivor: the empty exact network's C_p made 1)."""
    for exact in (True, False):
        for p in ("a", "b"):
            C = self_potential_sums(Network.zero(5, exact=exact), p)
            assert C.shape == (5, 5) and all(v == 0 for v in C.ravel()), (exact, p)


def test_block_sums_and_conditions_of_many_blocks_are_each_alone_and_the_definitions():
    # rows of (N, m) arrays, batched: every sum against SPEC 6's definition summed in plain Python, every condition
    # against its definition, and bit for bit what the block gives alone (the classifier uses the batched form)
    from cogo.algebra.block import block_conditions, block_conditions_many
    from cogo.algebra.potentials import block_sums_many
    rng = np.random.default_rng(4)
    A, B, C = (rng.normal(size=(7, 5)) + 1j * rng.normal(size=(7, 5)) for _ in range(3))
    S = block_sums_many(A, B, C)
    for i in range(7):
        a, b, c = [complex(x) for x in A[i]], [complex(x) for x in B[i]], [complex(x) for x in C[i]]
        cj = lambda v: [x.conjugate() for x in v]  # noqa: E731
        dot = lambda *vs: sum(x * y * w for x, y, w in zip(*vs))  # noqa: E731
        sq = lambda v: [x * x for x in v]  # noqa: E731
        want = {"abc": dot(a, b, c), "conj(a) b c": dot(cj(a), b, c), "a conj(b) c": dot(a, cj(b), c),
                "a b conj(c)": dot(a, b, cj(c)), "conj(a) conj(b) c": dot(cj(a), cj(b), c),
                "|a|^2 c": dot(a, cj(a), c), "|b|^2 c": dot(b, cj(b), c), "a^2 c": dot(sq(a), [1] * 5, c),
                "b^2 c": dot(sq(b), [1] * 5, c), "conj(a)^2 c": dot(sq(cj(a)), [1] * 5, c),
                "conj(b)^2 c": dot(sq(cj(b)), [1] * 5, c)}
        alone = block_sums(A[i], B[i], C[i])
        for k, v in want.items():
            assert abs(S[k][i] - v) < 1e-13 and alone[k] == complex(S[k][i]), k
        for kind, conds in zip(("generic", "quarter", "self-conjugate"),
                               (block_conditions_many(A, B, C, kind) for kind in ("generic", "quarter", "self-conjugate"))):
            assert conds[i] == block_conditions(A[i], B[i], C[i], kind)
        g = block_conditions_many(A, B, C)[i]
        assert g["R_g"] == pytest.approx(abs(want["abc"] - 1), abs=1e-13)
        assert g["R_c"] == pytest.approx(max(abs(want[k]) for k in ("conj(a) b c", "a conj(b) c", "a b conj(c)",
                                                                    "conj(a) conj(b) c")), abs=1e-13)
        assert g["R_n"] == pytest.approx(abs(want["|a|^2 c"] + want["|b|^2 c"]), abs=1e-13)
        assert g["R_*"] == pytest.approx(max(abs(want[k]) for k in ("a^2 c", "b^2 c", "conj(a)^2 c",
                                                                                "conj(b)^2 c")), abs=1e-13)
    with pytest.raises(ValueError, match="one shape"):
        block_sums_many(A, B, C[:, :3])


def test_self_potential_sums_of_chosen_rows_are_those_rows():
    """``rows=`` (the streamed form fourier_loss uses on exact scalars) gives exactly those rows of the full sums."""
    import numpy as np
    from cogo.algebra.potentials import self_potential_sums
    from cogo.solvers.constructions import z_F46

    z = z_F46(7, corrected=False, exact=True)
    full = self_potential_sums(z, "a")
    part = self_potential_sums(z, "a", [3, 0, 5])
    assert part.shape == (3, 7) and all(x == y for x, y in zip(part.ravel(), full[[3, 0, 5]].ravel()))
    assert any(x != 0 for x in full[0].ravel())  # the rows compared are not all 0
    zn = z.to_numeric()
    assert np.allclose(self_potential_sums(zn, "b", [2]), self_potential_sums(zn, "b")[[2]])
