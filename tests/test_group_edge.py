"""A group is parsed once, at the edge (issue 50): the commands parse ``--group``; everything below takes the group.

The count wraps :func:`cogo.algebra.group_parsing.parse_group` itself (every module's binding of it), so a call through
:func:`cogo.algebra.group_parsing.as_group` on an unparsed value is counted; a parsed group passed down is not parsed again.
The default suite counts at order 7 (tests/algebra/test_group_parsing.py); the issue's own measure, at 23, is slow.
"""
import sys

import numpy as np
import pytest

from cogo.algebra import finite_groups
from cogo.algebra import group_parsing as spec
from cogo.algebra.groups import Cyclic
from cogo.algebra.network import Network
from cogo.algebra.group_parsing import as_group, names_group, parse_group, require_group
from cogo.cli import main
from cogo.io.checkpoint import check_given_group
from cogo.io.file_formats import CheckpointError
from cogo.solvers import designs

MOST = 5  # the bound for one verify run


def _count_parse_group(monkeypatch) -> list:
    """Wrap ``parse_group`` in spec and in every loaded cogo module bound to it; the list grows by one per call."""
    import cogo.commands.verify  # noqa: F401  (the command's own binding is wrapped too)

    original, calls = spec.parse_group, []

    def counting(group, *a, **k):
        calls.append(type(group).__name__)
        return original(group, *a, **k)

    for name, mod in list(sys.modules.items()):
        if name.startswith("cogo") and getattr(mod, "parse_group", None) is original:
            monkeypatch.setattr(mod, "parse_group", counting)
    return calls


@pytest.mark.slow  # the issue's own measure (benchmarks/parse_group_calls.py): about 35 s on 2 shared cores
def test_verify_23_exact_parses_its_group_at_most_five_times(monkeypatch, capsys):
    calls = _count_parse_group(monkeypatch)
    assert main(["verify", "--group", "23", "--exact", "--no-progress"]) == 0
    assert "11/11 theorems pass" in capsys.readouterr().out
    assert 1 <= len(calls) <= MOST, calls  # 402 before issue 50


def test_as_group_returns_a_parsed_group_without_parsing_and_parses_anything_else(monkeypatch):
    G, S3 = parse_group(23), parse_group("S3")
    calls = _count_parse_group(monkeypatch)
    assert as_group(G) is G and as_group(S3) is S3 and calls == []
    assert as_group("3x5").orders == (3, 5) and calls == ["str"]  # the one route from a spec: parse_group
    with pytest.raises(ValueError, match="cannot"):
        as_group("no such group")


@pytest.mark.parametrize("bad", [23, "23", (23,)], ids=["int", "str", "tuple"])
def test_internal_code_refuses_an_unparsed_group(bad):
    z = np.zeros((3, 23, 1), dtype=complex)
    with pytest.raises(TypeError, match=r"Network\._of_checked takes a parsed group .*as_group"):
        Network._of_checked(bad, z)
    with pytest.raises(TypeError, match=r"_design_setup takes a parsed group"):
        designs._design_setup(bad, False, 0, "z_F6")
    assert Network._of_checked(parse_group(23), z).group.order == 23  # a parsed one is taken as it is
    assert require_group(Cyclic(23), "f") == Cyclic(23)


def test_a_recorded_name_is_compared_without_parsing_only_when_that_decides(monkeypatch):
    G = parse_group("3x5")
    assert names_group("Z_3 x Z_5", G) and names_group("3x5", G)
    assert not names_group("15", G) and not names_group("Z_15", G) and not names_group(15, G)
    assert not names_group("S3", parse_group("S3"))  # a table group's name is parsed
    # a table registered under the printed name: that name parses to the table, so it must be parsed
    t = np.asarray(parse_group("S3").table)
    monkeypatch.setitem(finite_groups._REGISTRY, "Z_6", finite_groups.FiniteGroup.from_table(t, "Z_6",
                                                                                         register=False))
    assert not names_group("Z_6", Cyclic(6))
    with pytest.raises(CheckpointError, match="records the group S3|records the group Z_6"):
        check_given_group(Cyclic(6), {"group": "Z_6"}, "f.npz")
    check_given_group(G, {"group": "Z_3 x Z_5"}, "f.npz")  # the same group: nothing to say
    with pytest.raises(CheckpointError, match="records the group Z_3 x Z_5, not the Z_15 given"):
        check_given_group(parse_group(15), {"group": "Z_3 x Z_5"}, "f.npz")
