"""The one group-spec parser (cogo.algebra.spec): every written form, printed names parse back, moved names warn."""
import warnings

import pytest

from cogo.algebra.finite_groups import FiniteGroup
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.spec import parse_group

FORMS = ["23", "3x5", "2x2x3", "S3", "S4", "A4", "D5", "Q8", "Dic3", "S3x3", "Q8x2"]


@pytest.mark.parametrize("spec", FORMS)
def test_a_printed_name_parses_back(spec):
    G = parse_group(spec)
    H = parse_group(str(G))
    assert type(H) is type(G) and H.order == G.order
    if isinstance(G, FiniteAbelianGroup):
        assert H.orders == G.orders
    else:
        assert (H.table == G.table).all()


def test_printed_abelian_names_are_the_products_written_by_hand():
    assert parse_group("Z_23").orders == (23,)
    assert parse_group("Z_3 x Z_5").orders == (3, 5)
    assert parse_group("Z3xZ5").orders == (3, 5)
    assert isinstance(parse_group("S3"), FiniteGroup)


def test_the_library_uses_no_moved_name():
    """Importing and using the whole library through its own paths raises no DeprecationWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        from cogo.li2.energy import li2_group

        li2_group("S3")
        parse_group("Q8x2")
