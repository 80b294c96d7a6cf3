"""Groups: tables and characters against brute-force tuple arithmetic."""
import itertools

import numpy as np
import pytest
import sympy

from cogo.algebra import Cyclic, FiniteAbelianGroup, parse_group, root_of_unity
from cogo.algebra.network import is_zero_exact


@pytest.mark.parametrize("orders", [(7,), (8,), (3, 5), (2, 4), (2, 2, 3)])
def test_tables_match_tuple_arithmetic(orders):
    G = FiniteAbelianGroup(orders)
    elems = list(itertools.product(*[range(d) for d in orders]))  # C order
    assert G.order == len(elems)
    for i, x in enumerate(elems):
        assert G.coords(i) == x
        assert G.index(x) == i
        neg = tuple((-c) % d for c, d in zip(x, orders))
        assert G.neg[i] == elems.index(neg)
        for j, y in enumerate(elems):
            s = tuple((u + v) % d for u, v, d in zip(x, y, orders))
            assert G.add_table[i, j] == elems.index(s)
            t = tuple((u - v) % d for u, v, d in zip(x, y, orders))
            assert G.sub_table[i, j] == elems.index(t)
            phase = sum(u * v / d for u, v, d in zip(x, y, orders))
            assert abs(G.characters[i, j] - np.exp(2j * np.pi * phase)) < 1e-12


@pytest.mark.parametrize("orders", [(5,), (6,), (3, 3)])
def test_characters_orthogonal_and_exact(orders):
    G = FiniteAbelianGroup(orders)
    F = G.characters
    np.testing.assert_allclose(F @ F.conj().T, G.order * np.eye(G.order), atol=1e-12)
    E = G.exact_characters()
    for i in range(G.order):
        for j in range(G.order):
            assert abs(complex(sympy.N(E[i, j])) - F[i, j]) < 1e-12


def test_root_of_unity_exact_identities():
    w = root_of_unity(3, 1)
    assert is_zero_exact(1 + w + w**2)
    assert is_zero_exact(w**3 - 1)
    assert root_of_unity(4, 1) == sympy.I
    assert not is_zero_exact(1 + w)
    z5 = root_of_unity(5, 1)
    assert is_zero_exact(sum(z5**j for j in range(5)))


def test_positive_frequencies_cover_pairs():
    G = parse_group("3x5")
    pos = set(G.positive_frequencies.tolist())
    neg = {int(G.neg[k]) for k in pos}
    assert pos.isdisjoint(neg) and len(pos | neg) == G.order - 1
    assert Cyclic(23).positive_frequencies.tolist() == list(range(1, 12))


def test_odd_requirement():
    Cyclic(9).require_odd()
    with pytest.raises(ValueError, match="odd order"):
        Cyclic(8).require_odd("z_F6")


@pytest.mark.parametrize("bad", ["", "x3", "3x", "23.5", "abc", "3x-5", "1", "0", "3x1"])
def test_parse_group_rejects(bad):
    with pytest.raises(ValueError):
        parse_group(bad)


def test_parse_group_forms():
    assert parse_group("23") == Cyclic(23) == parse_group(23)
    assert parse_group("3x5").orders == (3, 5)
    assert parse_group((3, 5)) == parse_group("3X5")
    assert parse_group("3x5").label == "3x5"
    with pytest.raises(ValueError, match="exceeds"):
        parse_group(100000)
    with pytest.raises(ValueError, match="integers"):
        FiniteAbelianGroup((3.0,))
    with pytest.raises(ValueError, match="coordinates"):
        parse_group("3x5").index((1, 2, 3))
    with pytest.raises(ValueError, match="out of range"):
        parse_group("3x5").index(15)


@pytest.mark.parametrize("orders", [(7,), (2, 4), (3, 3), (2, 3, 4)])
def test_elements_are_row_major_so_an_fft_is_the_fourier_transform(orders):
    # optimality.loss_and_cross_residual and proofs.character_sums take an FFT over the factors' axes for
    # sum_m f(m) chi_k(m): that needs element i to be the i-th coordinate tuple in C order
    G = FiniteAbelianGroup(orders)
    assert G.elements.tolist() == [list(t) for t in itertools.product(*(range(d) for d in orders))]
    f = np.random.default_rng(1).normal(size=G.order)
    by_fft = (np.fft.ifftn(f.reshape(orders)) * G.order).reshape(-1)
    assert np.allclose(G.characters @ f, by_fft, atol=1e-12)
