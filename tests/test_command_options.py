"""The options every command shares, enumerated from the parser: one output policy (no output onto an input or over
a result), groups read as written by every command, the thread policy from Python, one meaning per common option,
a flat table of blocks (issue #21).

Each test here fails on the code before issue #21 (checked against its parent commit)."""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from cogo.cli import build_parser, main
from cogo.commands._args import DEVICE_HELP, FORCE_HELP, NO_PROGRESS_HELP
from cogo.io.outputs import INPUT_ATTR, OUTPUT_ATTR
from cogo.runtime.threads import POLICY_HELP


# ---------------------------------------------------------------- fixtures: an input checkpoint and input tables
def _z_table(n):
    return [[(a + b) % n for b in range(n)] for a in range(n)]


def _f21_table():
    """The Frobenius group Z_7 x| Z_3 (order 21, non-Abelian): (a1, b1)(a2, b2) = (a1 + 2^b1 a2, b1 + b2)."""
    els = [(a, b) for a in range(7) for b in range(3)]
    idx = {e: i for i, e in enumerate(els)}
    return [[idx[((a1 + pow(2, b1) * a2) % 7, (b1 + b2) % 3)] for (a2, b2) in els] for (a1, b1) in els]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    assert main(["construct", "z_F46", "--group", "7", "--out", str(d / "x.pt")]) == 0
    (d / "z7.json").write_text(json.dumps({"name": "myZ7", "table": _z_table(7)}))
    (d / "s3named.json").write_text(json.dumps({"name": "S3", "table": _z_table(6)}))
    (d / "F21.json").write_text(json.dumps({"table": _f21_table()}))
    v4 = [[a ^ b for b in range(4)] for a in range(4)]
    (d / "klein.json").write_text(json.dumps({"name": "klein", "table": v4}))
    return d


def _digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    err = [e for e in err if not e.startswith("cogo: ") or e.startswith("cogo: error:")]
    assert len(err) == 1 and err[0].startswith("cogo: error:"), err
    return err[0]


# ---------------------------------------------------------------- the parser, enumerated
def _subparsers() -> dict[str, argparse.ArgumentParser]:
    p = build_parser()
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


PATHLIKE = ("FILE", "DIR", ".pt", ".json", "RUN")
OUTPUT_NAMES = {"--json", "--out", "--markdown", "--csv", "--plots"}


def test_every_path_option_is_declared_an_input_or_an_output():
    """A new option naming a file must say what it is, so the output policy test below cannot miss it."""
    for name, p in _subparsers().items():
        for a in p._actions:
            looks = any(t in str(a.metavar or "") for t in PATHLIKE) or OUTPUT_NAMES & set(a.option_strings)
            if looks:
                assert getattr(a, OUTPUT_ATTR, None) or getattr(a, INPUT_ATTR, None), (name, a.option_strings)


# a minimal command per subcommand, and the input files it reads ("X": a checkpoint, "T": an Abelian table)
TEMPLATES = {
    "verify": (["verify", "--checkpoint", "X"], ["X"]),
    "construct": (["construct", "z_F6", "--group", "T"], ["T"]),
    "train": (["train", "--group", "T", "--epochs", "1", "--hidden", "4", "--no-progress"], ["T"]),
    "classify": (["classify", "X"], ["X"]),
    "dynamics": (["dynamics", "X"], ["X"]),
    "experiment": (["experiment", "--groups", "T", "--epochs", "1", "--hidden", "4", "--seeds", "1", "--verify",
                    "none", "--no-progress"], ["T"]),
    "demo": (["demo", "--groups", "T", "--epochs", "1", "--hidden", "4", "--seeds", "1", "--verify", "none",
              "--no-progress"], ["T"]),
    "li2-sweep": (["li2-sweep", "--groups", "T", "--x", "1", "--seeds", "1", "--epochs", "1", "--hidden", "4"],
                  ["T"]),
}


def _argv(template, files):
    sub = {"X": str(files / "x.pt"), "T": str(files / "z7.json")}
    return [sub.get(t, t) for t in template]


def _output_options():
    out = []
    for name, p in _subparsers().items():
        for a in p._actions:
            kind = getattr(a, OUTPUT_ATTR, None)
            if kind:
                out.append((name, a.option_strings[0], kind))
    return out


def test_templates_cover_every_subcommand():
    assert set(TEMPLATES) == set(_subparsers())


@pytest.mark.parametrize("name,flag,kind", _output_options())
def test_no_output_onto_an_input(files, capsys, name, flag, kind):
    """Every output option of every subcommand, pointed at each input of the command: exit 2, one line, unchanged."""
    template, inputs = TEMPLATES[name]
    for key in inputs:
        target = files / ("x.pt" if key == "X" else "z7.json")
        before = _digest(target)
        rc = main(_argv(template, files) + [flag, str(target)])
        assert rc == 2, (name, flag, target)
        _one_line_error(capsys)
        assert _digest(target) == before


@pytest.mark.parametrize("name,flag,kind", _output_options())
def test_no_output_over_an_existing_result(files, tmp_path, capsys, name, flag, kind):
    """An existing file is never replaced without --force (a directory option refuses a file outright)."""
    template, _ = TEMPLATES[name]
    old = tmp_path / "old-result"
    old.write_text("a result\n")
    rc = main(_argv(template, files) + [flag, str(old)])
    assert rc == 2, (name, flag)
    _one_line_error(capsys)
    assert old.read_text() == "a result\n"


def test_verify_checkpoint_json_onto_the_checkpoint(files, capsys):
    x = files / "x.pt"
    before = _digest(x)
    assert main(["verify", "--checkpoint", str(x), "--json", str(x)]) == 2
    assert "is an input of this command" in _one_line_error(capsys)
    assert _digest(x) == before


def test_construct_does_not_overwrite_a_checkpoint_without_force(tmp_path, capsys):
    out = tmp_path / "run.pt"
    assert main(["construct", "z_F6", "--group", "7", "--out", str(out)]) == 0
    before = _digest(out)
    assert main(["construct", "z_M", "--group", "7", "--out", str(out)]) == 2
    assert "already exists" in _one_line_error(capsys)
    assert _digest(out) == before
    assert main(["construct", "z_M", "--group", "7", "--out", str(out), "--force"]) == 0
    assert _digest(out) != before


# ---------------------------------------------------------------- common options: one meaning everywhere
TRAINING = {"train", "experiment", "demo", "li2-sweep"}


def test_common_options_mean_the_same_everywhere():
    for name, p in _subparsers().items():
        acts = {s: a for a in p._actions for s in a.option_strings}
        if name in TRAINING:   # every command that trains takes the training options
            for flag in ("--device", "--threads", "--no-progress"):
                assert flag in acts, (name, flag)
        if name in TRAINING | {"classify", "verify", "dynamics"}:   # every command that computes takes --threads
            assert "--threads" in acts, name
        if any(getattr(a, OUTPUT_ATTR, None) == "file" for a in p._actions):
            assert "--force" in acts, name
        if "--no-progress" in acts:
            a = acts["--no-progress"]
            assert isinstance(a, argparse._StoreTrueAction) and a.help == NO_PROGRESS_HELP, name
        if "--device" in acts:
            a = acts["--device"]
            assert a.default == "cpu" and a.help == DEVICE_HELP and a.type("cpu") == "cpu", name
            with pytest.raises(argparse.ArgumentTypeError):
                a.type("tpu")
        if "--threads" in acts:
            a = acts["--threads"]
            assert a.default is None and a.help == POLICY_HELP and a.type("3") == 3, name
            with pytest.raises(argparse.ArgumentTypeError):
                a.type("0")
        if "--force" in acts:
            a = acts["--force"]
            assert isinstance(a, argparse._StoreTrueAction) and "replace" in a.help, name
            if any(getattr(x, OUTPUT_ATTR, None) == "file" for x in p._actions):
                assert FORCE_HELP in a.help, name
        if "--json" in acts:
            assert getattr(acts["--json"], OUTPUT_ATTR, None) == "file", name


def test_li2_sweep_device_reaches_the_config(tmp_path, monkeypatch):
    import cogo.li2.boundary as B

    seen = {}

    def fake_sweep(cfg, **kw):
        seen["device"], seen["progress"] = cfg.device, kw.get("progress")
        raise SystemExit(0)

    monkeypatch.setattr(B, "sweep", fake_sweep)
    with pytest.raises(SystemExit):
        main(["li2-sweep", "--groups", "5", "--x", "1", "--seeds", "1", "--epochs", "1", "--hidden", "4",
              "--device", "cpu", "--no-progress", "--out", str(tmp_path / "s")])
    assert seen == {"device": "cpu", "progress": False}


def test_experiment_help_says_what_it_does_with_non_abelian_groups():
    text = " ".join(_subparsers()["experiment"].format_help().split())
    assert "non-Abelian groups (S3, D5, a non-commutative table) make a wide grid" in text


def test_a_directory_given_as_a_checkpoint_is_named_a_directory(tmp_path, capsys):
    assert main(["classify", str(tmp_path)]) == 2
    assert "is a directory" in _one_line_error(capsys)


def test_verify_checkpoint_says_blocks_fail_only_on_their_own(files, capsys):
    main(["verify", "--checkpoint", str(files / "x.pt")])
    out = capsys.readouterr().out
    line = next(l for l in out.splitlines() if "blocks failing" in l)
    assert "on their own" in line and "R_n" in line
    assert "verdict: certified optimizer (certified global optimizer (exact)" in out  # issue 27: only from exact arithmetic


def test_li2_control_lines_state_nothing_unknown(capsys):
    assert main(["verify", "--theory", "li2", "--group", "S3", "--numeric", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "negative controls" in out
    assert "expected ?" not in out and "loss None" not in out


def test_classify_plots_refused_for_the_irreps_reading_and_its_csv_written(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", "--group", "S3", "--epochs", "2", "--hidden", "8", "--out", str(run), "--no-progress"]) == 0
    ckpt = next(run.glob("*.pt"))
    target = tmp_path / "plots"
    assert main(["classify", str(ckpt), "--plots", str(target)]) == 2
    assert "--plots" in _one_line_error(capsys)
    assert not target.exists()
    # the irreps reading has its table (issue #54): one row per irrep family of S3 (trivial, sign, standard)
    assert main(["classify", str(ckpt), "--csv", str(tmp_path / "b.csv"), "--no-progress"]) == 0
    assert len((tmp_path / "b.csv").read_text().splitlines()) == 1 + 3


# ---------------------------------------------------------------- groups read as written
def test_a_table_named_like_a_built_in_group_is_refused(files, capsys):
    for argv in (["verify", "--theory", "li2", "--group"], ["train", "--out", "r", "--group"], ["classify", "x.pt", "--group"]):
        assert main(argv + [str(files / "s3named.json")]) == 2
        assert "built-in group" in _one_line_error(capsys)


def test_a_table_with_an_unknown_name_is_read_by_every_command(files, tmp_path, capsys):
    f21 = str(files / "F21.json")
    # read and checked, not refused as an unknown name (exit 2); every Li^2 row holds on it (row 3 included)
    assert main(["verify", "--theory", "li2", "--group", f21, "--numeric", "--no-progress"]) == 0
    cap = capsys.readouterr()
    assert "F21 (order 21)" in cap.out and "error" not in cap.err
    run = tmp_path / "run"
    assert main(["train", "--group", f21, "--epochs", "2", "--hidden", "8", "--out", str(run), "--no-progress"]) == 0
    assert main(["classify", *map(str, run.glob("*.pt"))]) == 0


def test_an_abelian_table_is_its_product_of_cyclic_groups(files, tmp_path, capsys):
    from cogo.algebra.groups import FiniteAbelianGroup
    from cogo.algebra.group_parsing import parse_group

    assert parse_group(str(files / "klein.json")) == FiniteAbelianGroup((2, 2))
    assert parse_group(str(files / "z7.json")) == FiniteAbelianGroup((7,))
    z7 = str(files / "z7.json")
    run = tmp_path / "run"
    assert main(["train", "--group", z7, "--epochs", "2", "--hidden", "8", "--out", str(run), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "non-Abelian" not in out and (run / "d7_q8_wd5e-05_seed1.pt").is_file()   # Abelian defaults, Z_7
    assert main(["classify", str(run / "d7_q8_wd5e-05_seed1.pt")]) == 0
    assert main(["verify", "--group", str(files / "klein.json"), "--exact", "--no-progress"]) == 0
    assert main(["construct", "z_F6", "--group", z7, "--out", str(tmp_path / "f6.pt")]) == 0


@pytest.mark.parametrize("orders,factors", [((2, 4), (2, 4)), ((4, 2), (2, 4)), ((3, 3), (3, 3)), ((3, 4), (12,)),
                                            ((2, 2, 3), (2, 6)), ((16,), (16,)), ((2, 3, 5), (30,))])
def test_abelian_tables_in_any_numbering_give_their_invariant_factors(orders, factors):
    """Z_d1 x ... written in a shuffled numbering: invariant factors by hand (d_1 | d_2 | ...), and an isomorphism."""
    from cogo.algebra.finite_groups import FiniteGroup
    from cogo.algebra.groups import FiniteAbelianGroup

    A0 = FiniteAbelianGroup(orders)
    perm = np.random.default_rng(sum(orders)).permutation(A0.order)      # table index -> A0 index
    inv = np.argsort(perm)
    table = inv[A0.add_table[perm[:, None], perm[None, :]]]
    G = FiniteGroup.from_table(table, "shuffled")
    assert G.invariant_factors == factors
    phi, A = G.abelian_isomorphism(), G.as_abelian()
    assert sorted(phi.tolist()) == list(range(A.order))
    assert (phi[G.table] == A.add_table[phi[:, None], phi[None, :]]).all()


@pytest.mark.parametrize("form", ["23", "3x5", "S3", "S3x3", "Q8", "z7.json", "F21.json", "klein.json"])
def test_every_group_form_round_trips_through_every_command(files, form):
    """The label a command passes on names the group that was given (was: a table's name re-read as a built-in)."""
    from cogo.algebra.group_parsing import as_finite_group
    from cogo.algebra.group_parsing import parse_group
    from cogo.li2.energy import li2_group

    spec = str(files / form) if form.endswith(".json") else form
    given = parse_group(spec)
    for name, p in _subparsers().items():
        for a in p._actions:
            if a.dest in ("group", "groups"):
                label = a.type(spec)
                assert parse_group(str(label)) == given, (name, form)
                assert np.array_equal(li2_group(str(label)).table, as_finite_group(given).table), (name, form)


# ---------------------------------------------------------------- the thread policy from Python
def test_heavy_entry_points_run_under_the_thread_policy(monkeypatch):
    from threadpoolctl import threadpool_info, threadpool_limits

    import cogo.algebra.representations as R
    from cogo.runtime import threads as T

    if not threadpool_info():
        pytest.skip("no BLAS library visible to threadpoolctl")
    seen = []
    real = R._irreps

    def spy(G, seed):
        seen.append(max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"))
        return real.__wrapped__(G, seed)

    monkeypatch.setattr(R, "_irreps", spy)
    with threadpool_limits(limits=4, user_api="blas"):      # a plain interpreter on a machine with cores
        R.irreps("S3")
        with T.threads(2):
            R.irreps("S3")
    assert seen == [1, 2]


# ---------------------------------------------------------------- the flat table of blocks
def test_classify_csv_one_row_per_block(files, tmp_path, capsys):
    out = tmp_path / "blocks.csv"
    assert main(["classify", str(files / "x.pt"), "--csv", str(out), "--no-progress"]) == 0
    rows = list(csv.DictReader(out.open()))
    # z_F4/6 on Z_7 (SPEC 7.3): one order-6 block and two order-4 blocks z_{nu=i} * z_xi that fail R_n alone
    assert [(r["k"], r["order"]) for r in rows] == [("1", "6"), ("2", "4"), ("3", "4")]
    assert [r["failed_conditions"] for r in rows] == ["", "R_n", "R_n"]
    assert all(r["checkpoint"].endswith("x.pt") and r["group"] == "Z_7" for r in rows)
    assert rows[1]["f1_name"] == "z_nu=i" and abs(float(rows[1]["f1_nu_deg"]) - 90.0) < 1e-9
    for c in ("type", "nearest", "nearest_distance", "R_n", "shape"):
        assert c in rows[0]


def test_to_records_and_to_pandas(files, monkeypatch):
    from cogo.analysis.classify import classify_many

    res = classify_many([files / "x.pt"])
    recs = res.to_records()
    assert len(recs) == sum(len(r.blocks) for r in res.reports) == 3
    assert len({tuple(r) for r in recs}) == 1                       # one set of columns
    monkeypatch.setitem(sys.modules, "pandas", None)                # pandas missing: a clear ImportError
    with pytest.raises(ImportError, match="pip install pandas"):
        res.to_pandas()
    monkeypatch.undo()
    pd = pytest.importorskip("pandas")
    df = res.to_pandas()
    assert list(df["order"]) == [6, 4, 4] and isinstance(df, pd.DataFrame)
