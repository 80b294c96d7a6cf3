"""Tests of cogo.algebra.smallgroups (GAP's SmallGroups library, SPEC 9) and of the boundary analysis across groups.

Expected values come from the literature, never from the code under test: the number of groups of each
order (OEIS A000001) and of the Abelian ones (A000688), the element orders of S4, which irreps Q8 and
D8 have (Frobenius-Schur indicators). The tests that need GAP skip without the extra `gap`; the ones
about the refusal without it run everywhere (GAP is hidden from the import system).
"""
import json
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from cogo.algebra.gap_check import compare_with_gap

import cogo.algebra.smallgroups as sg
from cogo.algebra import finite_groups
from cogo.algebra.group_parsing import parse_group
from cogo.cli import main
from cogo.runtime.errors import CogoError

HAVE_GAP = sg.gap_available()
needs_gap = pytest.mark.skipif(not HAVE_GAP, reason='GAP is not installed: pip install -e ".[gap]"')

#: OEIS A000001, number of groups of order n = 1..64
A000001 = [1, 1, 1, 2, 1, 2, 1, 5, 2, 2, 1, 5, 1, 2, 1, 14, 1, 5, 1, 5, 2, 2, 1, 15, 2, 2, 5, 4, 1, 4, 1, 51, 1, 2,
           1, 14, 1, 2, 2, 14, 1, 6, 1, 4, 2, 2, 1, 52, 2, 5, 1, 5, 1, 15, 2, 13, 2, 2, 1, 13, 1, 2, 4, 267]
#: OEIS A000688, number of Abelian groups of order n = 1..16
A000688 = [1, 1, 1, 2, 1, 1, 1, 3, 2, 1, 1, 2, 1, 1, 1, 5]


@pytest.fixture
def no_gap(monkeypatch):
    """GAP hidden: its modules cannot be imported and nothing GAP built earlier is cached."""
    monkeypatch.setitem(sys.modules, "sage.all__sagemath_gap", None)
    monkeypatch.setitem(sys.modules, "sage.libs.gap.libgap", None)
    monkeypatch.setattr(sg, "_LIBGAP", None)
    monkeypatch.setattr(sg, "_CACHE", {})
    monkeypatch.setattr(finite_groups, "_REGISTRY", {})


# --------------------------------------------------------------------------- syntax (no GAP needed)
@pytest.mark.parametrize("text, ok", [("SmallGroup(24,12)", True), (" SmallGroup( 24 , 12 ) ", True),
                                      ("smallgroup(6,1)", True), ("SG(8,4)", True), ("SmallGroup(24)", False),
                                      ("SmallGroup(24,x)", False), ("S4", False), ("24", False)])
def test_smallgroup_spec_recognition(text, ok):
    assert sg.is_smallgroup_spec(text) is ok


@pytest.mark.parametrize("spec, words", [
    ("smallgroups(nonabelian)", "upper bound"),
    ("smallgroups(order<=64, abelian, nonabelian)", "both"),
    ("smallgroups(order<=64, colour=red)", "cannot read the term"),
    ("smallgroups(order<=5000)", "orders up to"),
    ("smallgroups(order<=9, max_irrep_dim<=2..3)", "range"),
])
def test_collection_syntax_refused_in_one_line_before_gap(spec, words, no_gap):
    with pytest.raises(CogoError) as exc:
        sg.expand_collection(spec)
    assert words in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize("n, i, words", [(1024, 1, "except 1024"), (2001, 1, "orders 1 to 2000"),
                                         (24, 0, "from 1"), (5000, 1, "orders 1 to 2000")])
def test_ids_outside_the_library_refused_without_gap(n, i, words, no_gap):
    with pytest.raises(CogoError, match=words):
        sg.smallgroup(n, i)


# --------------------------------------------------------------------------- without the extra
def test_without_gap_one_line_says_how_to_install(no_gap):
    with pytest.raises(CogoError) as exc:
        parse_group("SmallGroup(24,12)")
    msg = str(exc.value)
    assert 'pip install -e ".[gap]"' in msg and "\n" not in msg
    with pytest.raises(CogoError, match=r"\.\[gap\]"):
        sg.expand_collection("smallgroups(order<=8, nonabelian)")
    assert not sg.gap_available()
    assert parse_group("S4").order == 24           # nothing else depends on GAP


def test_cli_without_gap_refuses_in_one_line_exit_2(tmp_path):
    code = ("import sys; sys.modules['sage.all__sagemath_gap'] = None; from cogo.cli import main; "
            f"sys.exit(main(['train', '--group', 'SmallGroup(24,12)', '--epochs', '2', '--out', {str(tmp_path / 'r')!r}]))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and 'pip install -e ".[gap]"' in lines[0] and lines[0].startswith("cogo: error:")
    assert not (tmp_path / "r").exists()


def test_checkpoint_of_a_smallgroup_loads_without_gap(tmp_path, no_gap):
    """The Cayley table travels in the checkpoint: classify needs no GAP (S3's table stands in for SmallGroup(6,1))."""
    from cogo.io.weights import read_checkpoint, save_checkpoint
    import torch

    S3 = finite_groups.named_group("S3")
    rng = np.random.default_rng(0)
    Wa, Wb, Wc = rng.standard_normal((4, 6)), rng.standard_normal((4, 6)), rng.standard_normal((6, 4))
    path = tmp_path / "sg.pt"
    save_checkpoint(path, Wa, Wb, Wc, {"group": "SmallGroup(6,1)", "group_table": torch.from_numpy(np.array(S3.table)),
                                       "group_source": {"library": "GAP SmallGroups", "id": [6, 1], "name": "S3"}})
    w = read_checkpoint(path)
    assert w.group.label == "SmallGroup(6,1)" and w.group.order == 6 and not w.group.is_abelian
    assert np.array_equal(w.group.table, S3.table)
    assert w.meta["group_source"]["id"] == [6, 1]


# --------------------------------------------------------------------------- with GAP
@needs_gap
def test_smallgroup_24_12_is_s4():
    G = parse_group("SmallGroup(24, 12)")
    assert G.label == "SmallGroup(24,12)" and G.order == 24 and not G.is_abelian and G.identity == 0
    assert G.source == {"library": "GAP SmallGroups", "id": [24, 12], "name": "S4"}
    # S4: 1 identity, 9 involutions (6 transpositions + 3 double transpositions), 8 three-cycles, 6 four-cycles
    assert Counter(G.element_orders.tolist()) == {1: 1, 2: 9, 3: 8, 4: 6}
    assert parse_group("SmallGroup(24,12)") is G           # built once


@needs_gap
def test_q8_and_d8_are_told_apart_by_their_indicators():
    from cogo.algebra.representations import character_table

    q8, d8 = parse_group("SmallGroup(8,4)"), parse_group("SmallGroup(8,3)")
    assert (q8.source["name"], d8.source["name"]) == ("Q8", "D8")
    assert sorted(character_table(q8).indicators.tolist()) == [-1, 1, 1, 1, 1]
    assert sorted(character_table(d8).indicators.tolist()) == [1, 1, 1, 1, 1]


@needs_gap
def test_ids_beyond_the_count_refused():
    with pytest.raises(CogoError, match="there are 15 groups of order 24"):
        parse_group("SmallGroup(24,16)")
    assert main(["train", "--group", "SmallGroup(7,2)", "--out", "/nonexistent/x"]) == 2


@needs_gap
def test_collections_match_the_counts_of_the_literature():
    members = sg.collection_members("smallgroups(order<=16)")
    per_order = Counter(m["id"][0] for m in members)
    assert [per_order[n] for n in range(2, 17)] == A000001[1:16]
    ab = Counter(m["id"][0] for m in members if m["abelian"])
    assert [ab[n] for n in range(2, 17)] == A000688[1:16]
    # non-Abelian groups of order <= 16: 1 (6) + 2 (8) + 1 (10) + 3 (12) + 1 (14) + 9 (16) = 17; only A4 has d_max 3
    nonab = sg.expand_collection("smallgroups(order<=16, nonabelian)")
    assert len(nonab) == 17 and all(s.startswith("SmallGroup(") for s in nonab)
    d2 = sg.expand_collection("smallgroups(order<=16, nonabelian, max_irrep_dim=2)")
    assert set(nonab) - set(d2) == {"SmallGroup(12,3)"}
    assert sg.expand_collection("smallgroups(order=12..12, max_irrep_dim>=3)") == ["SmallGroup(12,3)"]
    # Abelian members become their product of cyclic groups, the Abelian path
    assert sg.expand_collection("smallgroups(order=8, abelian)") == ["8", "2x4", "2x2x2"]
    with pytest.raises(CogoError, match="no group"):
        sg.expand_collection("smallgroups(order<=16, abelian, max_irrep_dim=2)")


@needs_gap
@pytest.mark.parametrize("gid", [(6, 1), (8, 3), (8, 4), (12, 3), (21, 1), (24, 3), (24, 12), (32, 49), (48, 28)])
def test_character_tables_agree_with_gap(gid):
    assert compare_with_gap(sg.smallgroup(*gid)) == []


#: The fixed sample of the GAP cross-checks run in CI (the gap extra installed; the whole 586-group run below stays
#: a slow test): every group of order <= 16 (A000001: 42 groups) and 14 larger ones chosen for what they exercise --
#: irrational and non-real characters (21,1), (39,1), (55,1), (57,1), irreps of dimension 3 to 5 (24,12) S4, (60,5) A5,
#: (48,28), a quaternionic one (24,3) SL(2,3), and big 2- and 3-groups (27,3), (27,4), (32,49), (64,138).
GAP_SAMPLE = [(n, i) for n in range(1, 17) for i in range(1, A000001[n - 1] + 1)] + [
    (18, 3), (20, 3), (21, 1), (24, 3), (24, 12), (27, 3), (27, 4), (32, 49), (39, 1), (48, 28), (55, 1), (57, 1),
    (60, 5), (64, 138)]


def _gap_product_problems(G, n: int, i: int, pairs: int = 150) -> list:
    """cogo's table against GAP's own products: ``g * h`` of GAP's elements (not its MultiplicationTable, which the
    conversion reads) must be the element cogo's table names, through ``G._gap_positions``; every pair for n <= 16,
    ``pairs`` fixed pairs above; element 0 is GAP's identity, named ``e``, the others carry GAP's names."""
    gap = sg._libgap()
    Ggap = gap.SmallGroup(n, i)
    els = Ggap.Elements()
    perm = [int(p) for p in G._gap_positions]
    rng = np.random.default_rng(n * 1000 + i)
    todo = [(a, b) for a in range(n) for b in range(n)] if n <= 16 else \
        [tuple(int(v) for v in rng.integers(0, n, 2)) for _ in range(pairs)]
    bad = [] if G.identity == 0 and perm[0] == int(gap.Position(els, Ggap.Identity())) - 1 \
        else [("identity", G.identity)]
    names = list(G.element_names)
    bad += [("name", j) for j in range(1, n) if names[j] != str(els[perm[j]])][:3] + ([("name", 0)] if names[0] != "e" else [])
    for a, b in todo:
        prod = int(gap.Position(els, els[perm[a]] * els[perm[b]])) - 1
        if perm[int(G.table[a, b])] != prod:
            bad.append((a, b))
    return bad


@needs_gap
def test_gap_sample_tables_and_products_agree_with_gap():
    """The CI sample: cogo's character table, classes and indicators (compare_with_gap) and its Cayley table (GAP's
    products) of each group of GAP_SAMPLE.  A character table alone cannot see a transposed Cayley table (the opposite
    group has the same classes and the conjugate characters): the products can."""
    assert len(GAP_SAMPLE) == sum(A000001[:16]) + 14 == 56
    bad = {}
    for n, i in GAP_SAMPLE:
        G = sg.smallgroup(n, i)
        problems = compare_with_gap(G) + [f"products {p}" for p in _gap_product_problems(G, n, i)[:3]]
        if problems:
            bad[(n, i)] = problems
    assert bad == {}


@needs_gap
@pytest.mark.parametrize("defect", ["transposed", "identity not first", "names shifted"])
def test_gap_sample_catches_a_defective_table_conversion(defect, monkeypatch):
    """Mutation-style: a defect injected into the conversion of GAP's table (cogo.algebra.smallgroups.smallgroup) must
    make the CI sample fail on S3 = SmallGroup(6,1) or Q8 = SmallGroup(8,4)."""
    import inspect
    import textwrap

    src = textwrap.dedent(inspect.getsource(sg.smallgroup))
    old, new = {"transposed": ("table = pos[T[np.ix_(perm, perm)]]", "table = pos[T[np.ix_(perm, perm)]].T"),
                "identity not first": ("perm = np.asarray([e] + [j for j in range(n) if j != e], dtype=np.int64)",
                                       "perm = np.asarray([j for j in range(n) if j != e] + [e], dtype=np.int64)"),
                "names shifted": ("G._gap_positions = perm", "G._gap_positions = np.roll(perm, 1)")}[defect]
    assert old in src
    ns = dict(vars(sg), _CACHE={})  # its own empty cache: no group converted before answers for the mutant
    exec(compile(src.replace(old, new), "<mutant of smallgroup>", "exec"), ns)
    monkeypatch.setattr(sg, "smallgroup", ns["smallgroup"])
    found = []
    for n, i in ((6, 1), (8, 4)):
        try:
            G = sg.smallgroup(n, i)
            found += compare_with_gap(G) + _gap_product_problems(G, n, i)
        except CogoError as exc:  # the axioms refuse the converted table: also a failure of the sample
            found.append(str(exc))
    assert found


@needs_gap
@pytest.mark.parametrize("defect", ["indicator", "value", "classes"])
def test_compare_with_gap_catches_a_wrong_table(defect):
    """Mutation-style: a table with one defect injected must disagree with GAP's."""
    import copy
    import dataclasses

    from cogo.algebra.representations import character_table

    G = sg.smallgroup(8, 4)                              # Q8
    ct = character_table(G)
    if defect == "indicator":                            # call the quaternionic irrep real
        ind = ct.indicators.copy()
        ind[ind == -1] = 1
        bad = dataclasses.replace(ct, indicators=ind)
    elif defect == "value":                              # the 2-dim character at an order-4 class: 0 -> 1 + (-1)
        mult = copy.deepcopy(ct.multiplicities)
        j = int(np.flatnonzero(ct.class_orders == 4)[0])
        k = int(np.flatnonzero(ct.dims == 2)[0])
        mult[k][j] = {0: 1, 1: 1}                        # 1 + i instead of i + (-i)
        bad = dataclasses.replace(ct, multiplicities=mult)
    else:                                                # merge two classes
        classes = list(ct.classes)
        classes[1] = np.concatenate([classes[1], classes[2]])
        bad = dataclasses.replace(ct, classes=classes)
    assert compare_with_gap(G, bad) != []


@needs_gap
@pytest.mark.slow
def test_every_group_of_order_up_to_64_agrees_with_gap():
    """cogo's Burnside-Dixon tables and indicators against GAP's for all 586 groups of order <= 64 (A000001)."""
    n_checked, bad = 0, []
    for n in range(1, 65):
        for i in range(1, A000001[n - 1] + 1):
            problems = compare_with_gap(sg.smallgroup(n, i))
            n_checked += 1
            if problems:
                bad.append((n, i, problems))
    assert n_checked == sum(A000001) == 586
    assert bad == []


# --------------------------------------------------------------------------- commands
@needs_gap
def test_cli_train_and_classify_a_smallgroup(tmp_path, capsys):
    import torch

    out = tmp_path / "r"
    rc = main(["train", "--group", "SmallGroup(6,1)", "--hidden", "16", "--epochs", "20", "--seeds", "1",
               "--threads", "1", "--no-progress", "--out", str(out)])
    assert rc == 0
    (ckpt,) = out.glob("*.pt")
    meta = torch.load(ckpt, weights_only=True)["meta"]
    assert meta["group"] == "SmallGroup(6,1)"
    assert meta["group_source"] == {"library": "GAP SmallGroups", "id": [6, 1], "name": "S3"}
    assert meta["group_table"].shape == (6, 6)
    capsys.readouterr()
    assert main(["classify", str(ckpt), "--json", str(tmp_path / "c.json")]) == 0
    text = capsys.readouterr().out
    assert "SmallGroup(6,1) = S3: order 6, non-Abelian, 3 irreps" in text
    rep = json.loads((tmp_path / "c.json").read_text())
    assert rep["checkpoints"][0]["group_source"]["name"] == "S3"


@needs_gap
def test_cli_li2_sweep_takes_a_collection(tmp_path, capsys):
    out = tmp_path / "s"
    rc = main(["li2-sweep", "--groups", "smallgroups(order<=8, nonabelian)", "--x", "2", "--seeds", "1",
               "--epochs", "3", "--hidden", "8", "--threads", "1", "--out", str(out)])
    assert rc == 0
    rows = json.loads((out / "sweep.json").read_text())["rows"]
    assert [(r["group"], r["gap_name"], r["gap_id"]) for r in rows] == [
        ("SmallGroup(6,1)", "S3", [6, 1]), ("SmallGroup(8,3)", "D8", [8, 3]), ("SmallGroup(8,4)", "Q8", [8, 4])]
    assert all(isinstance(r["learned_d2"], int) for r in rows)
    fit = json.loads((out / "fit.json").read_text())
    assert "dk_law" in fit and (out / "boundary_lr0.01.png").is_file()
    assert main(["li2-sweep", "--groups", "smallgroups(order<=8, colour)", "--out", str(tmp_path / "z")]) == 2
    assert not (tmp_path / "z").exists()


@needs_gap
def test_cli_experiment_expands_a_collection(capsys, tmp_path):
    """Abelian members are products of cyclic groups (the experiment's path); non-Abelian ones keep the demo's refusal
    (cogo experiment runs them as a wide grid)."""
    from cogo.cli import build_parser
    from cogo.commands.experiment import _sweep_config

    args = build_parser().parse_args(["experiment", "--groups", "smallgroups(order=8, abelian)", "11",
                                      "--out", str(tmp_path / "e")])
    assert tuple(_sweep_config(args, {}).groups) == ("8", "2x4", "2x2x2", "11")   # the grid the command runs
    assert main(["demo", "--groups", "smallgroups(order<=6, nonabelian)", "--out", str(tmp_path / "f")]) == 2
    assert "needs Abelian groups" in capsys.readouterr().err


# --------------------------------------------------------------------------- the boundary across groups
def _rows(spec):
    """Rows of a synthetic sweep: (group, M, d_max, [(x, [acc per seed])])."""
    out = []
    for g, M, d, pts in spec:
        for x, accs in pts:
            for s, a in enumerate(accs, start=1):
                out.append({"group": g, "M": M, "d_max": d, "x": x, "lr": 0.01, "seed": s, "test_acc": a,
                            "wall_s": 1.0})
    return out


def test_seed_crossings_by_hand():
    from cogo.li2.boundary import seed_crossings

    rows = _rows([("G", 8, 2, [(1.0, [0.0, 0.0, 0.6]), (2.0, [0.4, 1.0, 0.9]), (3.0, [0.8, 1.0, 1.0])])])
    c = seed_crossings(rows)["G"]
    # seed 1: 0.4 -> 0.8 between x = 2 and 3: 2.25; seed 2: 0 -> 1 between 1 and 2: 1.5; seed 3 starts above 1/2
    assert c["per_seed"] == {1: 2.25, 2: 1.5, 3: "below"}
    assert c["x_star"] == pytest.approx(1.875) and c["se"] == pytest.approx(0.375)
    assert (c["n_crossed"], c["n_seeds"], c["wall_s"]) == (2, 3, 3.0)
    never = seed_crossings(_rows([("H", 8, 2, [(1.0, [0.1]), (2.0, [0.2])])]))["H"]
    assert never["per_seed"] == {1: None} and never["x_star"] is None


def test_seed_crossings_count_a_capped_split_once():
    """Past the cap on the train fraction two x repeat the same split: x is the effective n / (M log M)."""
    from cogo.li2.boundary import seed_crossings

    M = 6
    rows = [{"group": "S", "M": M, "d_max": 2, "x": x, "lr": 0.01, "seed": 1, "test_acc": a, "n_train": n,
             "wall_s": 0.0} for x, a, n in [(1.0, 0.0, 10), (4.0, 1.0, 34), (5.0, 1.0, 34)]]
    c = seed_crossings(rows)["S"]
    lo, hi = 10 / (M * np.log(M)), 34 / (M * np.log(M))
    assert c["per_seed"][1] == pytest.approx(lo + 0.5 * (hi - lo))


@pytest.mark.parametrize("p_true", [0.0, 1.0, 2.0])
def test_dk_law_recovers_the_exponent(p_true):
    """Groups whose crossings follow x* = 2.5 d^p exactly: the fit returns p and c; the ratios follow."""
    from cogo.li2.boundary import dk_law

    spec = []
    for g, d in [("a", 1), ("b", 2), ("c", 2), ("d", 3)]:
        x0 = 2.5 * d ** p_true
        spec.append((g, 10, d, [(x0 - 0.5, [0.0, 0.0]), (x0 + 0.5, [1.0, 1.0])]))
    law = dk_law(_rows(spec))
    assert law["fit_dmax"]["p"] == pytest.approx(p_true, abs=1e-9)
    assert law["fit_dmax"]["c"] == pytest.approx(2.5, rel=1e-9)
    assert law["ratios"][3]["measured"] == pytest.approx(3 ** p_true)
    assert law["ratios"][3]["theorem4_d2"] == 9 and law["ratios"][3]["linear_d_over_2"] == 3
    assert law["by_dmax"][2]["fitted"] == 2 and law["by_dmax"][3]["theorem4_paper"] == pytest.approx(2.7482 * 9)


def test_sweep_trains_a_capped_split_once_and_the_copy_equals_training_it():
    """Z_5 at x = 3 and x = 4: both past the cap (train fraction 1 - 1.5/25), one cell trained, the other copied."""
    from cogo.li2.boundary import SweepConfig, sweep, train_cell

    cfg = SweepConfig(groups=(5,), xs=(3.0, 4.0), seeds=(1, 2), hidden=8, epochs=5)
    assert cfg.fraction(5, 3.0) == cfg.fraction(5, 4.0) == 1 - 1.5 / 25
    logged = []
    rows = sweep(cfg, log=logged.append)
    assert len(logged) == 1 and "x=3 " in logged[0]                   # one cell trained
    assert [(r["x"], r["seed"]) for r in rows] == [(3.0, 1), (3.0, 2), (4.0, 1), (4.0, 2)]
    assert [r.get("same_split_as_x") for r in rows] == [None, None, 3.0, 3.0]
    direct = train_cell(cfg, 5, 4.0, 0.01, [1, 2])                   # training the x = 4 cell anyway
    for r, d in zip(rows[2:], direct):
        assert (r["n_train"], r["test_acc"], r["test_loss"]) == (d["n_train"], d["test_acc"], d["test_loss"])


def test_dk_law_nonabelian_fit_leaves_out_the_abelian_groups():
    """x* = 3 at d = 1 but 2 d at d >= 2 (4 and 6): the d >= 2 fit is exactly linear, the fit over all is not."""
    from cogo.li2.boundary import dk_law

    spec = [(g, 10, d, [(x0 - 0.5, [0.0]), (x0 + 0.5, [1.0])]) for g, d, x0 in [("a", 1, 3.0), ("b", 2, 4.0),
                                                                             ("c", 3, 6.0)]]
    law = dk_law(_rows(spec))
    assert law["fit_dmax_nonabelian"]["p"] == pytest.approx(1.0, abs=1e-9)
    assert law["fit_dmax_nonabelian"]["c"] == pytest.approx(2.0, rel=1e-9)
    assert abs(law["fit_dmax"]["p"] - 1.0) > 0.2
