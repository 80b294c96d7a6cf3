"""`cogo experiment` / `cogo demo` on a tiny configuration: files, numbers, resume, bad input."""
import json
import os
import re

import pytest

from cogo.cli import main

TINY = ["--groups", "7", "3x3", "--seeds", "1-2", "--hidden", "24", "--epochs", "300", "--verify", "numeric",
        "--no-progress"]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("exp") / "run"
    rc = main(["experiment", *TINY, "--out", str(out)])
    return rc, out


def _md_rows(text, first_cell):
    return [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.startswith(f"| {first_cell}")]


def test_files_written(tiny_run):
    rc, out = tiny_run
    assert rc == 0
    report = json.loads((out / "report.json").read_text())
    assert (out / "report.md").is_file()
    assert [g["group"] for g in report["groups"]] == ["7", "3x3"]
    for g in report["groups"]:
        for rel in g["checkpoints"] + [g["classification_markdown"], g["figures"]["curves"], g["figures"]["orders"],
                                       *g["figures"]["angles"].values()]:
            assert (out / rel).is_file(), rel
        assert (out / rel).stat().st_size > 0
    assert len(report["training"]) == 4
    assert not [p for p in out.rglob("*.tmp")]


def test_markdown_numbers_match_json(tiny_run):
    _, out = tiny_run
    report = json.loads((out / "report.json").read_text())
    md = (out / "report.md").read_text()
    # training table: one row per model, values as in the JSON
    for t in report["training"]:
        name = {"7": "Z_7", "3x3": "Z_3 x Z_3"}[t["group"]]   # the one display name of a group (issue #54)
        rows = [r for r in _md_rows(md, name) if r[1] == str(t["seed"])]
        assert len(rows) == 1
        r = rows[0]
        assert float(r[3]) == pytest.approx(t["train_loss"], rel=1e-3)
        assert float(r[4]) == pytest.approx(t["test_loss"], rel=1e-3)
        assert float(r[6]) == pytest.approx(t["test_acc"], abs=1e-4)
    for g in report["groups"]:
        s = g["classification"]["summary"]
        blocks = sum(len(c["blocks"]) for c in g["classification"]["checkpoints"])
        assert s["blocks"] == blocks == sum(g["order_histogram"].values())
        assert f"{s['blocks']} blocks in {s['checkpoints']} model(s)" in md
        frac = s["frac_blocks_not_order_4_or_6"]
        row = _md_rows(md, "blocks not of order 4 or 6")
        assert any(r[1].startswith(f"{frac['mean']:.3f}") for r in row)
        # the order histogram agrees with the per-block orders
        orders = {}
        for c in g["classification"]["checkpoints"]:
            for b in c["blocks"]:
                orders[str(b["order"])] = orders.get(str(b["order"]), 0) + 1
        assert orders == g["order_histogram"]
    for grp, res in report["verification"].items():
        for r in res:
            status = ("CAUGHT" if r["passed"] else "MISSED") if r["negative_control"] else (
                "PASS" if r["passed"] else "FAIL")
            name = ("control: " if r["negative_control"] else "") + r["name"]
            assert any(row[0] == name and row[1] == r["method"] and row[2] == status
                       for row in _md_rows(md, name.split(" ")[0]))


def test_resume_reuses_models(tiny_run, capsys):
    _, out = tiny_run
    ckpts = sorted((out / "d7").glob("*.pt"))
    before = {p: p.stat().st_mtime_ns for p in ckpts}
    os.unlink(ckpts[0])  # as if the run had been interrupted before this model was written
    rc = main(["experiment", *TINY, "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    assert "reusing 1 trained model" in text and "training seeds [1]" in text
    assert ckpts[0].is_file()
    assert ckpts[1].stat().st_mtime_ns == before[ckpts[1]]


def test_resume_refuses_other_settings(tiny_run, capsys):
    _, out = tiny_run
    args = [a if a != "300" else "400" for a in TINY]
    rc = main(["experiment", *args, "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "other settings" in err[0] and "epochs" in err[0]


@pytest.mark.parametrize("bad,msg", [
    (["--groups", "0"], "group"),
    (["--hidden", "0"], "hidden"),
    (["--device", "cuda"], "cuda"),
    (["--groups", "7", "7"], "duplicate"),
])
def test_bad_input_writes_nothing(tmp_path, capsys, bad, msg):
    out = tmp_path / "never"
    args = list(TINY)
    for flag in bad[::2]:  # drop the default value of an overridden flag
        if flag in args:
            i = args.index(flag)
            j = i + 1
            while j < len(args) and not args[j].startswith("--"):
                j += 1
            del args[i:j]
    rc = main(["experiment", *args, *bad, "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and re.search(msg, err[0], re.I), err
    assert not out.exists()


def test_demo_defaults_and_fresh_directory(tmp_path, monkeypatch):
    from cogo.cli import build_parser
    from cogo.commands.grid.config import fresh_directory

    args = build_parser().parse_args(["demo"])
    assert args.groups == ["23"] and args.hidden == 512 and args.epochs == 10000 and args.seeds == [1, 2, 3, 4, 5]
    assert args.wd == [5e-5] and args.lr == 0.01
    a = fresh_directory("cogo-demo", tmp_path)
    a.mkdir()
    b = fresh_directory("cogo-demo", tmp_path)
    assert a != b and not b.exists()


# ------------------------------------------------------------------ issue 16: resume never mixes settings
def _copy_run(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


def _mtimes(out):
    return {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}


def _with(args, flag, *values):
    args = list(args)
    i = args.index(flag)
    j = i + 1
    while j < len(args) and not args[j].startswith("--"):
        j += 1
    return args[:i] + [flag, *values] + args[j:]


@pytest.mark.parametrize("flag,values,needle", [
    ("--hidden", ["32"], "hidden"),      # part of the checkpoint file names
    ("--seeds", ["1-3"], "seeds"),       # a new grid in an old folder
])
def test_resume_with_other_settings_writes_nothing(tiny_run, tmp_path, capsys, flag, values, needle):
    _, src = tiny_run
    out = _copy_run(src, tmp_path / "run")
    before = _mtimes(out)
    rc = main(["experiment", *_with(TINY, flag, *values), "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and needle in err[0] and "--force" in err[0], err
    assert _mtimes(out) == before


def test_resume_with_other_weight_decay_writes_nothing(tiny_run, tmp_path, capsys):
    _, src = tiny_run
    out = _copy_run(src, tmp_path / "run")
    before = _mtimes(out)
    rc = main(["experiment", *TINY, "--wd", "1e-3", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "weight_decays" in err[0], err
    assert _mtimes(out) == before
    # without report.json (an interrupted first run), the checkpoints on disk still say which grid this is
    (out / "report.json").unlink()
    before = _mtimes(out)
    rc = main(["experiment", *TINY, "--wd", "1e-3", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "not part of the requested grid" in err[0], err
    assert _mtimes(out) == before


def test_corrupt_checkpoint_in_second_group_found_before_writing(tiny_run, tmp_path, capsys):
    _, src = tiny_run
    out = _copy_run(src, tmp_path / "run")
    victim = sorted((out / "d3x3").glob("*.pt"))[0]
    victim.write_bytes(victim.read_bytes()[:200])
    before = _mtimes(out)
    rc = main(["experiment", *TINY, "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and victim.name in err[0], err
    assert _mtimes(out) == before  # d7's classification files and the report untouched


def test_force_runs_a_new_grid_in_an_old_folder(tiny_run, tmp_path, capsys):
    _, src = tiny_run
    out = _copy_run(src, tmp_path / "run")
    args = _with(_with(TINY, "--groups", "7"), "--verify", "none")
    rc = main(["experiment", *_with(args, "--hidden", "16"), "--out", str(out), "--force"])
    capsys.readouterr()
    assert rc == 0
    report = json.loads((out / "report.json").read_text())
    assert report["config"]["hidden"] == 16 and [g["group"] for g in report["groups"]] == ["7"]
    assert all("_q16_" in t["path"] for t in report["training"])  # the report describes only the new grid


def test_experiment_takes_the_training_options_and_names_no_catalogue_form_for_relu(tmp_path, capsys):
    """cogo experiment --activation relu (and the other options of cogo train): the checkpoints record them, and the
    report gives the per-node reading with no catalogue name (the catalogue holds for x^2 only)."""
    from cogo.io.weights import read_checkpoint

    out = tmp_path / "ex"
    rc = main(["experiment", "--groups", "7", "--seeds", "1", "--hidden", "12", "--epochs", "30", "--activation",
               "relu", "--batch-size", "16", "--label-noise", "0.1", "--verify", "none", "--out", str(out),
               "--no-progress"])
    text = capsys.readouterr().out
    assert rc == 0 and "no catalogue form is named" in text
    (ck,) = sorted((out / "d7").glob("*.pt"))
    meta = read_checkpoint(ck).meta
    assert (meta["activation"], meta["batch_size"]) == ("relu", 16)
    assert len(meta["label_noise"]["pairs"]) == round(0.1 * len(meta["train_idx"]))  # the corrupted pairs, recorded
    report = json.loads((out / "report.json").read_text())
    (g,) = report["groups"]
    assert g["classification"] is None and g["nodes"]["activation"] == "relu"
    assert report["config"]["activation"] == "relu"
    for f in ("report.md", "report.json", "d7/classification.md", "d7/classification.json"):
        assert not re.search(r"z_(nu|syn|xi)", (out / f).read_text()), f
    # the same grid with x^2: catalogue names appear (the check above is not vacuous)
    out2 = tmp_path / "sq"
    assert main(["experiment", "--groups", "7", "--seeds", "1", "--hidden", "12", "--epochs", "30", "--verify",
                 "none", "--out", str(out2), "--no-progress"]) == 0
    assert json.loads((out2 / "report.json").read_text())["groups"][0]["classification"] is not None


def test_demo_accepts_the_training_options():
    from cogo.cli import build_parser

    args = build_parser().parse_args(["demo", "--activation", "silu", "--optimizer", "muon", "--top", "ridge",
                                      "--ridge", "0.01"])
    from cogo.commands.experiment import grid_config

    cfg = grid_config(args)
    tc = cfg.train_config("23")
    assert (tc.activation, tc.optimizer, tc.top, tc.ridge) == ("silu", "muon", "ridge", 0.01)
