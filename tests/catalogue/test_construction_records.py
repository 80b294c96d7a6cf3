"""The construction records (cogo.catalogue.constructions): one name per construction, and every reader of the table.

Each record must be reachable everywhere a construction is: ``cogo.<name>``, ``cogo construct NAME``, one
theorem-6 row, row 7's counts, the snap types and ``--every-order``; the old spellings are refused with the name
to use, and the checkpoints that recorded them are still read and certified.
"""
from __future__ import annotations

import numpy as np
import pytest

import cogo
from cogo.catalogue import constructions as CC
from cogo.cli import _UsageError, build_parser, main

#: The node counts SPEC 7 states at n = 7 (positive frequencies 1, 2, 3), written by hand: z_F6 and z_F6_ab
#: 6 per frequency, 3 (n - 1) = 18; z_F4/6 6 at k0 and 4 at the two others, 6 + 4 ((n - 1)/2 - 1) = 14; z_M n^2 = 49.
COUNTS_AT_7 = {"z_F6": 18, "z_F6_ab": 18, "z_F46": 14, "z_M": 49}


def test_the_table_is_the_four_constructions_of_spec_7():
    assert CC.NAMES == ("z_F6", "z_F6_ab", "z_F46", "z_M")
    assert set(COUNTS_AT_7) == set(CC.NAMES)


@pytest.mark.parametrize("rec", CC.CONSTRUCTIONS, ids=lambda c: c.name)
def test_every_construction_is_reachable_everywhere(rec):
    # the API: cogo.<name> is its builder, and construct() by name builds the same network, recording the name
    build = CC.resolve(rec.builder)
    assert getattr(cogo, rec.name) is build
    net, meta = cogo.construct(rec.name, 7)
    assert meta["construction"] == rec.name
    assert np.allclose(net.to_weights(real=True)[0], build(7).to_weights(real=True)[0])
    # row 7: the record's counts are SPEC 7's (literals above), and the network has that many nodes
    total, _ = rec.node_counts(7, [1, 2, 3], 1)
    assert total == COUNTS_AT_7[rec.name] == net.q
    # the CLI: cogo construct NAME parses to the name
    assert build_parser("construct").parse_args(["construct", rec.name, "--out", "x.pt"]).kind == rec.name
    # theorem 6: exactly one row names it, with its title and section
    from cogo.proofs.registry import THEOREMS

    rows = [r for r in THEOREMS if r.kwargs.get("construction") == rec.name]
    assert len(rows) == 1 and rows[0].title == f"optimality of {rec.short_title}" and rows[0].section == rec.section
    # the every-order theorem and the snap read the record
    from cogo.analysis.verdict.snap import SNAP_TYPES
    from cogo.proofs.every_order import models as M

    assert [t for t, n in SNAP_TYPES.items() if n == rec.name] == list(rec.snap_types)
    assert (rec.name in [m.kind for m in M.constructions()]) == (rec.every_order is not None)
    if rec.design is not None:
        assert CC.resolve(rec.design)(7).to_network().q == net.q


@pytest.mark.parametrize("rec", CC.CONSTRUCTIONS, ids=lambda c: c.name)
def test_every_construction_is_documented(rec):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert f"`{rec.name}`" in (root / "docs" / "cli.md").read_text()
    assert rec.section.split()[1] in (root / "docs" / "math.md").read_text()


@pytest.mark.parametrize("old,name", [("f6", "z_F6"), ("f6-ab", "z_F6_ab"), ("f46", "z_F46"), ("mem", "z_M")])
def test_old_spellings_are_refused_with_the_name_to_use(old, name):
    from cogo.proofs.theorems.optimality import optimality

    hint = f"{old!r} is the old name of {name}: use {name}"
    for call in (lambda: CC.construction(old), lambda: cogo.construct(old, 7), lambda: optimality(7, old)):
        with pytest.raises(ValueError, match=hint):
            call()
    with pytest.raises(_UsageError, match=hint):
        build_parser("construct").parse_args(["construct", old, "--out", "x.pt"])
    assert CC.from_record(old) is CC.construction(name)            # but a file that recorded it is read


def test_an_unknown_name_lists_the_names():
    with pytest.raises(ValueError, match="choose one of z_F6, z_F6_ab, z_F46, z_M"):
        CC.construction("z_F7")
    assert CC.from_record("z_F7") is None and CC.from_record(None) is None


def test_a_checkpoint_of_the_old_vocabulary_is_still_certified(tmp_path, capsys):
    """A file written before the one vocabulary records ``f6-ab``: it is still recognized as z_F6_ab and certified;
    the same weights recorded as ``f6`` (another construction) are not the file's construction."""
    pytest.importorskip("torch")                                    # a .pt checkpoint
    from cogo.solvers.constructions import construct, to_checkpoint

    net, meta = construct("z_F6_ab", 7, seed=3)
    old = tmp_path / "old.pt"
    to_checkpoint(net, old, {**meta, "construction": "f6-ab"})
    assert main(["verify", "--checkpoint", str(old)]) == 0
    assert "certified global optimizer (exact)" in capsys.readouterr().out
    wrong = tmp_path / "wrong.pt"
    to_checkpoint(net, wrong, {**meta, "construction": "f6"})
    main(["verify", "--checkpoint", str(wrong)])
    out = capsys.readouterr().out
    assert "certified global optimizer (exact)" not in out and "differ from z_F6" in out
