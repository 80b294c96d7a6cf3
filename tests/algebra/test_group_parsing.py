"""The one group-spec parser (cogo.algebra.group_parsing): every written form, printed names parse back, moved names warn."""
import warnings

import pytest

from cogo.algebra.finite_groups import FiniteGroup
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.group_parsing import as_group, parse_group

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


def test_a_group_is_parsed_once_at_the_edge(monkeypatch):
    """`cogo verify --group 5 --exact` parses its group at the edge only (issue 50's rule; the benchmark
    benchmarks/parse_group_calls.py counts the same at 23: 3 calls): at most 5 parse_group calls in the whole run,
    every module that holds the name wrapped, as_group's parse included."""
    import contextlib
    import io
    import pkgutil
    import importlib

    import cogo
    from cogo.algebra import group_parsing as spec
    from cogo.cli import main

    original, calls = spec.parse_group, []

    def counting(group, *a, **k):
        calls.append(type(group).__name__)
        return original(group, *a, **k)

    for m in pkgutil.walk_packages(cogo.__path__, "cogo."):
        try:
            mod = importlib.import_module(m.name)
        except Exception:  # an optional extra (gap, cluster) not installed
            continue
        if getattr(mod, "parse_group", None) is original:
            monkeypatch.setattr(mod, "parse_group", counting)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["verify", "--group", "5", "--exact", "--no-progress"]) == 0
    assert 1 <= len(calls) <= 5, calls


def test_as_group_passes_a_parsed_group_through_and_parses_the_rest():
    G = parse_group("3x5")
    assert as_group(G) is G
    assert as_group("3x5") == G and as_group(15) != G
    with pytest.raises(ValueError):
        as_group("no such group")
