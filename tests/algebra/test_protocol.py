"""Every finite group of cogo implements the one protocol (cogo.algebra.protocol.Group), and its values are a
group: the axioms are checked on the whole table by an independent O(M^3) computation."""
import numpy as np
import pytest

from cogo.algebra import Cyclic, FiniteAbelianGroup
from cogo.algebra.finite_groups import FiniteGroup, named_group
from cogo.algebra.protocol import Group, check_group_axioms
from cogo.algebra.group_parsing import parse_group
from cogo.li2.energy import li2_group

GROUPS = {
    "Z_7": lambda: Cyclic(7),
    "Z_2 x Z_4": lambda: FiniteAbelianGroup([2, 4]),
    "S3": lambda: named_group("S3"),
    "C3 by table": lambda: FiniteGroup.from_table([[0, 1, 2], [1, 2, 0], [2, 0, 1]], label="C3"),
    "Li2 Z_5": lambda: li2_group(5),
    "Li2 S3": lambda: li2_group("S3"),
}


@pytest.mark.parametrize("name", list(GROUPS))
def test_every_group_implements_the_protocol(name):
    G = GROUPS[name]()
    assert isinstance(G, Group)
    assert check_group_axioms(G) == []
    assert G.table.shape == (G.order, G.order)


@pytest.mark.parametrize("name", ["Z_7", "Z_2 x Z_4", "S3"])
def test_a_label_parses_back_to_the_same_group(name):
    G = GROUPS[name]()
    H = parse_group(G.label)
    assert H.order == G.order and np.array_equal(H.table, G.table)


def _broken(G, **changes):
    class Fake:
        pass

    f = Fake()
    for k in ("order", "label", "table", "identity", "inverse", "is_abelian", "as_product"):
        setattr(f, k, changes.get(k, getattr(G, k)))
    return f


def test_the_axiom_check_can_fail():
    """Negative controls, each breaking one axiom by hand."""
    G = Cyclic(5)
    T = np.array(G.table)
    T2 = T.copy()
    T2[1, 1], T2[1, 2] = T[1, 2], T[1, 1]  # still a Latin row, no longer associative
    assert "not associative" in check_group_axioms(_broken(G, table=T2))
    assert "identity is not neutral" in check_group_axioms(_broken(G, identity=1))
    assert "inverse is wrong" in check_group_axioms(_broken(G, inverse=np.arange(5)))
    assert "is_abelian is wrong" in check_group_axioms(_broken(G, is_abelian=False))
    assert "is_abelian is wrong" in check_group_axioms(_broken(named_group("S3"), is_abelian=True))
    # Z_6 and Z_2 x Z_3 are isomorphic, but the coordinates of Z_2 x Z_3 do not index Z_6's elements
    assert "as_product's coordinates do not index this table" in check_group_axioms(
        _broken(Cyclic(6), as_product=FiniteAbelianGroup([2, 3])))
    assert not isinstance(object(), Group)


@pytest.mark.parametrize("name, has_coordinates", [("Z_7", True), ("Z_2 x Z_4", True), ("S3", False),
                                                   ("C3 by table", False), ("Li2 Z_5", True), ("Li2 S3", False)])
def test_abelian_is_the_coordinates_or_none(name, has_coordinates):
    """``G.as_product``: the Z_d1 x ... x Z_dn that indexes G's elements; None for a table group, an Abelian one too."""
    G = GROUPS[name]()
    if has_coordinates:
        assert isinstance(G.as_product, FiniteAbelianGroup) and np.array_equal(G.as_product.table, G.table)
    else:
        assert G.as_product is None
