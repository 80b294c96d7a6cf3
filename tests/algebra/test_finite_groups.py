"""Finite groups from Cayley tables, names and permutation groups (SPEC 9)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cogo.algebra.finite_groups import FiniteGroup, direct_product, named_group

from cogo.algebra.group_parsing import as_finite_group
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.group_parsing import parse_group
from cogo.runtime.errors import CogoError

# literature orders, exponents and class counts (numbers known independently of this code)
KNOWN = {  # name: (order, abelian, exponent)
    "S3": (6, False, 6), "S4": (24, False, 12), "A4": (12, False, 6), "A5": (60, False, 30),
    "D5": (10, False, 10), "Q8": (8, False, 4), "Dic3": (12, False, 12), "S3x3": (18, False, 6),
    "Z6": (6, True, 6), "D2": (4, True, 2), "Q16": (16, False, 8),
}


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_named_groups_are_groups(name):
    G = named_group(name)
    order, abelian, exponent = KNOWN[name]
    assert (G.order, G.is_abelian, G.exponent) == (order, abelian, exponent)
    assert G.label == name
    # the table passes the full axiom check and every element has its inverse
    H = FiniteGroup.from_table(G.table, name)
    assert H == G
    ar = np.arange(G.order)
    assert np.all(G.table[ar, G.inverse] == G.identity)
    # brute-force associativity on all triples (small groups only)
    t = G.table
    assert np.array_equal(t[t[:, :, None], ar[None, None, :]], t[ar[:, None, None], t[None, :, :]])


def test_q8_relations():
    G = named_group("Q8")
    # exactly one element of order 2 (-1) and six of order 4
    assert sorted(G.element_orders.tolist()) == [1, 2, 4, 4, 4, 4, 4, 4]
    D4 = named_group("D4")
    assert sorted(D4.element_orders.tolist()) == [1, 2, 2, 2, 2, 2, 4, 4]


def test_dihedral_relations():
    G = named_group("D5")
    # 5 reflections of order 2, 4 rotations of order 5
    assert sorted(G.element_orders.tolist()) == [1] + [2] * 5 + [5] * 4


def test_parse_group_keeps_abelian_path():
    assert isinstance(parse_group("23"), FiniteAbelianGroup)
    assert isinstance(parse_group("3x5"), FiniteAbelianGroup)
    assert parse_group("3x5") == FiniteAbelianGroup((3, 5))
    G = parse_group("S3x3")
    assert isinstance(G, FiniteGroup) and G.order == 18
    assert parse_group(G) is G


def test_permutation_group():
    from sympy.combinatorics.named_groups import AlternatingGroup, SymmetricGroup

    G = FiniteGroup.from_permutation_group(SymmetricGroup(4), label="S4p")
    assert G.order == 24 and not G.is_abelian and G.identity == 0
    assert sorted(G.element_orders.tolist()) == sorted(named_group("S4").element_orders.tolist())
    A = parse_group(AlternatingGroup(4))
    assert A.order == 12 and not A.is_abelian


def test_abelian_as_table():
    G = FiniteAbelianGroup((3, 5))
    F = as_finite_group(G)
    assert F.is_abelian and F.order == 15 and np.array_equal(F.table, G.add_table)


def test_direct_product_order_and_center():
    G = direct_product(named_group("S3"), named_group("Z3"))
    assert G.order == 18 and not G.is_abelian


# ---------------------------------------------------------------- malformed tables
def _s3():
    return named_group("S3").table.copy()


def test_refuses_not_closed():
    t = _s3()
    t[2, 3] = 6
    with pytest.raises(CogoError, match="closure"):
        FiniteGroup.from_table(t)


def test_refuses_non_square():
    with pytest.raises(CogoError, match="square"):
        FiniteGroup.from_table(np.zeros((2, 3), dtype=int))


def test_refuses_no_identity():
    t = (np.arange(3)[:, None] - np.arange(3)[None, :]) % 3     # x*y = x - y: 0 is a right identity only
    with pytest.raises(CogoError, match="identity"):
        FiniteGroup.from_table(t)


def test_refuses_missing_inverse():
    # identity 0, but element 2 has no inverse (row 2 never reaches 0)
    t = np.array([[0, 1, 2], [1, 0, 2], [2, 2, 2]])
    with pytest.raises(CogoError, match="inverse"):
        FiniteGroup.from_table(t)


def test_refuses_non_associative():
    # a Latin square with identity that is not associative (a loop of order 5)
    t = np.array([[0, 1, 2, 3, 4],
                  [1, 0, 3, 4, 2],
                  [2, 4, 0, 1, 3],
                  [3, 2, 4, 0, 1],
                  [4, 3, 1, 2, 0]])
    with pytest.raises(CogoError, match="associativity"):
        FiniteGroup.from_table(t)


def test_group_table_mutation_detected():
    # swapping two entries of a real group table breaks an axiom
    t = named_group("S4").table.copy()
    t[5, 7], t[5, 8] = t[5, 8], t[5, 7]
    with pytest.raises(CogoError):
        FiniteGroup.from_table(t)


def test_too_large_refused_before_building():
    with pytest.raises(CogoError, match="maximum"):
        named_group("S8")                      # 40320 elements: refused from the order alone
    with pytest.raises(CogoError, match="maximum"):
        parse_group("A5x100")


def test_bad_names():
    for bad in ("foo", "S", "Q12", "S3x", "D1"):
        with pytest.raises(CogoError):
            parse_group(bad)


def test_cayley_json(tmp_path):
    p = tmp_path / "mys3.json"
    p.write_text(json.dumps({"name": "myS3", "table": _s3().tolist()}))
    G = FiniteGroup.from_cayley_json(p)
    assert G.label == "myS3" and G.order == 6 and not G.is_abelian
    assert parse_group("myS3") is G                       # registered: labels in checkpoints resolve
    assert parse_group(str(p)) == G
    bad = tmp_path / "bad.json"
    t = _s3()
    t[0, 0] = 9
    bad.write_text(json.dumps(t.tolist()))
    with pytest.raises(CogoError, match="closure"):
        FiniteGroup.from_cayley_json(bad)
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    with pytest.raises(CogoError, match="JSON"):
        parse_group(str(junk))


def test_cyclic_names_keep_the_abelian_path():
    assert parse_group("Z7") == FiniteAbelianGroup((7,))
    assert parse_group("Z3xC5") == FiniteAbelianGroup((3, 5))


def test_abelian_only_attributes_refused_in_one_line():
    from cogo.algebra.finite_groups import NotAbelianError

    G = parse_group("S3")
    with pytest.raises(CogoError, match="needs an Abelian group"):
        G.neg
    with pytest.raises(NotAbelianError, match="not Abelian"):
        G.characters
    assert not hasattr(G, "orders")                 # an AttributeError too, so hasattr stays safe
    with pytest.raises(CogoError, match="Abelian but given by a table"):
        parse_group("D2").neg
    with pytest.raises(CogoError, match="odd order"):
        G.require_odd("z_F6")
