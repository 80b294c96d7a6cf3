"""The command line as a user types it: one-line usage errors, cogo's own errors only, tracebacks for bugs,
the recorded command, and the cost-aware loss of `cogo construct`."""
import subprocess
import sys

import numpy as np
import pytest

import cogo.commands.grid.run as grid_run
from cogo.cli import build_parser, main
from cogo.commands import _args, construct, verify
from cogo.commands.grid.report import order_histogram
from cogo.runtime.errors import CogoError


def one_line_error(capsys):
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("cogo: error:"), err
    return lines[0]


# --------------------------------------------------------------------------- usage errors: one line, exit 2
@pytest.mark.parametrize("argv,needle", [
    (["experiment", "--loss", "hinge", "--out", "x"], "argument --loss: invalid choice: 'hinge'"),
    (["train", "--hidden", "abc", "--out", "x"], "argument --hidden: hidden size must be an integer >= 1, got 'abc'"),
    (["train", "--out", "x", "--epochs", "1.5"], "argument --epochs"),
    (["train", "--out", "x", "--lr", "nan"], "argument --lr"),
    (["train", "--out", "x", "--wd", "inf"], "argument --wd"),
    (["train", "--out", "x", "--momentum", "1"], "argument --momentum"),
    (["train", "--out", "x", "--seeds", "5-1"], "argument --seeds"),
    (["train"], "the following arguments are required: --out"),
    (["train", "--out", "x", "--bogus"], "unrecognized arguments: --bogus"),
    (["experiment", "--groups", "7", "banana", "--out", "x"], "argument --groups"),
    (["experiment", "--device", "tpu", "--out", "x"], "argument --device"),
    (["demo", "--test-fraction", "1"], "argument --test-fraction"),
    (["classify", "f.pt", "--dead-threshold", "0"], "argument --dead-threshold"),
    (["construct", "f7", "--out", "x.pt"], "argument NAME: unknown construction 'f7'; choose one of z_F6, z_F6_ab, z_F46, z_M"),
    # the previous release's spellings are refused, each naming what to write instead
    (["construct", "f6-ab", "--out", "x.pt"],
     "argument NAME: unknown construction 'f6-ab': 'f6-ab' is the old name of z_F6_ab: use z_F6_ab"),
    (["construct", "mem", "--out", "x.pt"], "'mem' is the old name of z_M: use z_M"),
    (["construct", "z_F6", "-o", "x.pt"], "the following arguments are required: --out"),
    (["construct", "z_F6", "--out", "x.pt", "--output", "y.pt"], "unrecognized arguments: --output y.pt"),
    (["construct", "z_F6", "--seed", "-1", "--out", "x.pt"], "argument --seed"),
    (["verify", "--group", "1"], "argument --group"),
    (["verify", "--exact", "--numeric"], "not allowed with argument"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_usage_error_is_one_line_exit_2(argv, needle, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    line = one_line_error(capsys)
    assert needle in line
    assert "--help" in line  # points at the full usage instead of printing it
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_usage_error_as_typed_in_a_shell(tmp_path):
    """The installed entry point: `python -m cogo.cli experiment --loss hinge` prints one line (was 8)."""
    r = subprocess.run([sys.executable, "-m", "cogo.cli", "experiment", "--loss", "hinge", "--out", "x"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("cogo: error: argument --loss"), r.stderr


def test_help_and_no_command(capsys):
    with pytest.raises(SystemExit) as e:
        main(["train", "--help"])
    assert e.value.code == 0
    assert "--hidden" in capsys.readouterr().out
    assert main([]) == 2  # no command: the usage goes to stderr
    assert "COMMAND" in capsys.readouterr().err


def test_the_registry_is_the_commands_folder():
    """Every public module of cogo/commands is a command with ORDER, add and run; `cogo --help` lists them in order."""
    import argparse

    from cogo import commands

    eight = ["verify", "construct", "train", "classify", "dynamics", "experiment", "demo", "li2-sweep"]
    assert set(eight) <= set(commands.names()) and "grid" not in commands.names()  # the engine is no command
    for m in commands.command_modules():
        assert callable(m.add) and callable(m.run) and isinstance(m.ORDER, int), m.__name__
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert sorted(sub.choices) == commands.names()
    assert [c for c in sub.choices if c in eight] == eight  # the workflow's order (ORDER), not the files' order
    only = next(a for a in build_parser("train")._actions if isinstance(a, argparse._SubParsersAction))
    assert list(only.choices) == ["train"]


def test_choices_match_the_library():
    from cogo.solvers import batch, training_config

    assert _args.LOSSES == training_config.LOSSES
    assert _args.OPTIMIZERS == training_config.OPTIMIZERS
    assert _args.DTYPES == tuple(training_config.DTYPES)
    assert _args.KERNELS == batch.KERNELS
    from cogo.catalogue.constructions import NAMES
    from cogo.solvers import constructions

    assert constructions.NAMES == NAMES


def test_every_option_with_a_value_is_typed_or_has_choices():
    """No option reaches the command as a raw string that could fail late, except paths and free text."""
    free = {"--out", "--json", "--markdown", "--csv", "--plots", "files", "--checkpoint", "--snap",  # paths
            "--certificates",
            "--slurm-partition"}  # a name only the cluster knows
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        for a in p._actions:
            if a.nargs == 0 or a.dest in ("help", "method"):
                continue
            flags = set(a.option_strings) or {a.dest}
            if flags & free:
                continue
            assert a.type is not None or a.choices is not None, (name, flags)


# --------------------------------------------------------------------------- cogo's own errors vs bugs
def test_cogo_error_becomes_one_line(monkeypatch, capsys):
    def boom(args):
        raise CogoError("the group is\nunsupported")

    monkeypatch.setattr(verify, "run", boom)
    assert main(["verify", "--group", "5"]) == 2
    assert one_line_error(capsys) == "cogo: error: the group is unsupported"


@pytest.mark.parametrize("exc", [ValueError("internal invariant broken"), KeyError("x"), ZeroDivisionError()])
def test_internal_bug_keeps_its_traceback(monkeypatch, exc):
    """A plain ValueError (or any non-CogoError) from inside a command is a bug, not a user error."""
    def boom(args):
        raise exc

    monkeypatch.setattr(verify, "run", boom)
    with pytest.raises(type(exc)):
        main(["verify", "--group", "5"])


def test_validation_errors_of_the_library_are_user_errors(tmp_path, capsys):
    """A ValueError from the checks that run before any work (here: training's validate_run) is a user error."""
    assert main(["train", "--group", "3", "--test-fraction", "0.95", "--out", str(tmp_path / "o"),
                 "--no-progress"]) == 2
    assert "leaves" in one_line_error(capsys)
    assert not (tmp_path / "o").exists()


# --------------------------------------------------------------------------- the command recorded in the report
def test_report_records_the_command_that_was_run(monkeypatch, tmp_path):
    seen = {}

    def fake_run(cfg, out, progress=True, log=print, command="", **other):
        seen["command"] = command
        return {"training": [], "groups": [], "verification": {}}

    monkeypatch.setattr(grid_run, "run_experiment", fake_run)
    monkeypatch.setattr(sys, "argv", ["pytest", "something", "else"])  # must not be what gets recorded
    out = tmp_path / "my run"
    main(["experiment", "--groups", "7", "--hidden", "8", "--epochs", "3", "--out", str(out), "--no-progress"])
    assert seen["command"] == f"cogo experiment --groups 7 --hidden 8 --epochs 3 --out '{out}' --no-progress"


# --------------------------------------------------------------------------- construct: a loss whose cost fits
def test_construct_loss_on_all_pairs_when_cheap(tmp_path, capsys):
    assert main(["construct", "z_F46", "--group", "11", "--out", str(tmp_path / "c.pt")]) == 0
    out = capsys.readouterr().out
    assert "(all 121 pairs)" in out
    loss = float(out.split("real-space loss ")[1].split()[0])
    assert 0 <= loss < 1e-20


def test_construct_loss_on_a_sample_when_expensive(monkeypatch, tmp_path, capsys):
    from cogo.algebra.group_parsing import parse_group
    from cogo.solvers.constructions import z_F46

    G = parse_group("11")
    Wa, Wb, Wc = z_F46(G).to_weights(real=True)
    q = Wa.shape[0]
    monkeypatch.setattr(construct, "LOSS_BUDGET", 40 * q * 11)  # 40 pairs' worth
    loss, on = construct.construct_loss(Wa, Wb, Wc, G)
    assert on.startswith("40 random pairs of 121") and loss < 1e-20
    broken = Wc.copy()
    broken[0, :] += 1.0  # output 0 wrong (a change of one node's column would be centred away)
    assert construct.construct_loss(Wa, Wb, broken, G)[0] > 1e-3
    monkeypatch.setattr(construct, "LOSS_BUDGET", q * 11 - 1)  # not even one pair
    loss, on = construct.construct_loss(Wa, Wb, Wc, G)
    assert np.isnan(loss) and on.startswith("skipped")


def test_construct_even_order_is_a_user_error(tmp_path, capsys):
    assert main(["construct", "z_F6", "--group", "2x3", "--out", str(tmp_path / "c.pt")]) == 2
    assert "odd order" in one_line_error(capsys)
    assert not (tmp_path / "c.pt").exists()


# --------------------------------------------------------------------------- figures
def test_plotting_never_switches_the_callers_backend(tmp_path):
    import matplotlib

    from cogo.solvers.training import train
    from cogo.solvers.training_config import TrainConfig
    from cogo.solvers.training_results import plot_history

    before = matplotlib.get_backend()
    matplotlib.use("svg")  # the caller's choice; cogo must leave it alone
    try:
        res = train(TrainConfig(group="5", hidden=8, epochs=4, log_every=2), [1, 2], progress=False)
        plot_history(res, tmp_path / "curves.png")
        assert (tmp_path / "curves.png").read_bytes()[:4] == b"\x89PNG"
        block = type("B", (), {"order": 6})
        png = order_histogram([type("R", (), {"blocks": [block, block]})], "5")
        assert png[:4] == b"\x89PNG"
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)


def test_empty_order_histogram_is_not_drawn():

    assert order_histogram([type("R", (), {"blocks": []})], "5") is None
