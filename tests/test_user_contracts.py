"""What a user is promised (issue #54): every long command resumes with the line it prints on Ctrl-C, every
reading has one table, every help line that lists choices is made from its registry, messages point the right
way, figures keep their series apart.

Each test here fails on the code before issue #54 (checked against its parent commit), but these resume tests,
which pin a contract that already held there: train interrupted before any saved state, experiment, li2-sweep,
and dynamics interrupted while reading its snapshots (the figures' interruption is the one that failed)."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time

import numpy as np
import pytest

from cogo.cli import main

from _helpers import cogo_env, ctrl_c, start_cogo


# ---------------------------------------------------------------- the resume contract: the printed line works
def _printed_command(err: str) -> list[str]:
    """The command the interrupt line says to run (``cogo: interrupted; ...: cogo ARGS``), as argv for main."""
    last = [ln for ln in re.split(r"[\r\n]", err) if ln.startswith("cogo: interrupted")][-1]
    again = shlex.split(last[last.index(": cogo ") + 2:])
    assert again[0] == "cogo"
    return again[1:]


def _interrupt_at(monkeypatch, owner, name: str, after: int) -> None:
    """``owner.name`` raises KeyboardInterrupt (as Ctrl-C would) on its call number ``after + 1``."""
    real, calls = getattr(owner, name), {"n": 0}

    def hooked(*a, **k):
        calls["n"] += 1
        if calls["n"] > after:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(owner, name, hooked)


def _interrupt_then_resume(argv, monkeypatch, capsys, owner, name, after) -> str:
    """Run ``cogo ARGV`` interrupted at the hook, then the command printed; returns the resumed run's stdout."""
    _interrupt_at(monkeypatch, owner, name, after)
    assert main(argv) == 130
    monkeypatch.undo()
    err = capsys.readouterr().err
    again = _printed_command(err)
    rc = main(again)
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


#: the long commands whose interruption and printed resume line the tests below run (a new one needs its test)
RESUME_TESTED = {"train", "experiment", "dynamics", "li2-sweep"}


def test_every_resumable_command_has_its_interrupt_test():
    from cogo.commands import attribute, names

    assert {n for n in names() if attribute(n, "RESUME")} == RESUME_TESTED


@pytest.fixture(scope="module")
def snapshot_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("snaps")
    assert main(["train", "--group", "5", "--hidden", "8", "--epochs", "20", "--snapshot-every", "5",
                 "--seeds", "1-2", "--threads", "1", "--no-progress", "--out", str(d)]) == 0
    return sorted(d.glob("*.pt"))


def test_dynamics_interrupted_while_writing_its_figures_resumes_with_the_printed_command(snapshot_run, tmp_path,
                                                                                         monkeypatch, capsys):
    import cogo.dynamics.runs as runs

    out = tmp_path / "dyn"
    argv = ["dynamics", str(snapshot_run[0]), "--out", str(out), "--workers", "1", "--no-progress"]
    # Ctrl-C after the first figure (the issue: dynamics.json written, 1 of the figures; the rerun was refused)
    text = _interrupt_then_resume(argv, monkeypatch, capsys, runs, "save_png", 1)
    figures = sorted(p.name for p in (out / "figures").glob("*.png"))
    # an Abelian run with progress measures: its dynamics_, progress_ (and peers_), then the two over runs
    ck = snapshot_run[0]
    assert {"dynamics_types.png", "progress_seeds.png", f"dynamics_{ck.stem}.png", f"progress_{ck.stem}.png"} \
        <= set(figures)
    assert (out / "dynamics.json").is_file()
    assert all(f"wrote {out / 'figures' / f}" in text for f in figures)


@pytest.mark.slow
def test_dynamics_sigint_after_its_first_snapshots_then_the_printed_command(tmp_path):
    runs = tmp_path / "runs"
    assert main(["train", "--group", "7", "--hidden", "16", "--epochs", "300", "--snapshot-every", "2",
                 "--threads", "1", "--no-progress", "--out", str(runs)]) == 0
    ck = next(runs.glob("*.pt"))
    out = tmp_path / "dyn"
    p = start_cogo("dynamics", str(ck), "--out", str(out), "--workers", "1", "--threads", "1", "--no-progress")
    t0 = time.monotonic()
    while not any((out / "cache").rglob("*")) and time.monotonic() - t0 < 120 and p.poll() is None:
        time.sleep(0.02)   # the first snapshots are read (cached) ...
    assert p.poll() is None, "dynamics finished before its Ctrl-C: give it more snapshots"
    rc, err = ctrl_c(p)   # ... then Ctrl-C
    assert rc == 130, err[-500:]
    assert not (out / "dynamics.json").exists()
    again = _printed_command(err)
    r = subprocess.run([sys.executable, "-m", "cogo.cli", *again], capture_output=True, text=True, env=cogo_env(),
                       timeout=600)
    assert r.returncode == 0, r.stderr[-500:]
    assert (out / "dynamics.json").is_file()
    for name in (f"dynamics_{ck.stem}.png", f"progress_{ck.stem}.png", "dynamics_types.png", "progress_seeds.png"):
        assert (out / "figures" / name).is_file(), name


def test_train_interrupted_resumes_with_the_printed_command(tmp_path, monkeypatch, capsys):
    from cogo.solvers.batch import _Batch

    out = tmp_path / "run"
    argv = ["train", "--group", "5", "--hidden", "8", "--epochs", "40", "--resume-every", "10", "--seeds", "1-2",
            "--max-batch", "1", "--threads", "1", "--no-progress", "--out", str(out)]
    text = _interrupt_then_resume(argv, monkeypatch, capsys, _Batch, "step", 55)   # in the second model's program
    assert len(list(out.glob("*.pt"))) == 2 and (out / "summary.json").is_file()
    assert not list(out.glob(".*.resume.pt"))
    # finished work is reused: the first program (40 epochs, done) continues from its last state (epoch 30), the
    # second from the state it saved before the interruption (epoch 10: 55 steps = 40 + 15)
    assert re.findall(r"resuming from \S+ at epoch (\d+)", text) == ["30", "10"], text


def test_train_interrupted_before_any_saved_state_resumes_with_the_printed_command(tmp_path, monkeypatch, capsys):
    from cogo.solvers.batch import _Batch

    out = tmp_path / "run"
    argv = ["train", "--group", "5", "--hidden", "8", "--epochs", "20", "--threads", "1", "--no-progress",
            "--out", str(out)]
    _interrupt_then_resume(argv, monkeypatch, capsys, _Batch, "step", 3)
    assert len(list(out.glob("*.pt"))) == 1 and (out / "summary.json").is_file()


@pytest.mark.slow
def test_experiment_interrupted_resumes_with_the_printed_command(tmp_path, monkeypatch, capsys):
    import cogo.commands.grid.run as grid_run

    out = tmp_path / "exp"
    argv = ["experiment", "--groups", "5", "7", "--seeds", "1", "--hidden", "8", "--epochs", "20", "--verify", "none",
            "--dynamics", "10", "--threads", "1", "--no-progress", "--out", str(out)]
    # Ctrl-C while the second group's runs are read over time (the first group is finished)
    _interrupt_then_resume(argv, monkeypatch, capsys, grid_run, "_dynamics", 1)
    assert (out / "report.md").is_file() and (out / "report.json").is_file()
    for g in ("5", "7"):
        assert (out / f"d{g}" / "dynamics" / "dynamics.json").is_file()


def test_li2_sweep_interrupted_resumes_with_the_printed_command(tmp_path, monkeypatch, capsys):
    import json

    import cogo.li2.boundary as boundary

    out = tmp_path / "sweep"
    argv = ["li2-sweep", "--groups", "5", "--x", "1", "2", "--seeds", "1", "--hidden", "8", "--epochs", "20",
            "--threads", "1", "--no-progress", "--out", str(out)]
    real = boundary.sweep

    def interrupted_after_one_cell(cfg, *a, on_cell=None, **k):   # Ctrl-C once the first cell is saved
        def once(rows):
            on_cell(rows)
            raise KeyboardInterrupt
        return real(cfg, *a, on_cell=once, **k)

    monkeypatch.setattr(boundary, "sweep", interrupted_after_one_cell)
    assert main(argv) == 130
    monkeypatch.undo()
    assert len(json.loads((out / "sweep.json").read_text())["rows"]) == 1
    again = _printed_command(capsys.readouterr().err)
    assert main(again) == 0
    assert len(json.loads((out / "sweep.json").read_text())["rows"]) == 2
    assert (out / "fit.json").is_file() and list(out.glob("phase_diagram_lr*.png"))


# ---------------------------------------------------------------- one table type for every reading
@pytest.fixture(scope="module")
def s3_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("s3")
    assert main(["train", "--group", "S3", "--hidden", "12", "--epochs", "30", "--seeds", "1-2", "--snapshot-every",
                 "10", "--threads", "1", "--no-progress", "--out", str(d)]) == 0
    return d


def test_classify_of_an_s3_run_folder_gives_a_frame_one_row_per_checkpoint_and_irrep(s3_run):
    pd = pytest.importorskip("pandas")
    import cogo

    result = cogo.classify(str(s3_run), progress=False)
    df = result.to_pandas()
    assert isinstance(df, pd.DataFrame)
    # S3 has three irreps (trivial, sign: dim 1; standard: dim 2), each its own family; two checkpoints
    assert len(df) == 2 * 3
    assert sorted(df["dim"].tolist()) == [1, 1, 1, 1, 2, 2]
    assert set(df["seed"]) == {1, 2}
    assert (df.groupby("checkpoint")["nodes"].sum() <= 12).all()
    assert list(df.columns[:5]) == ["checkpoint", "group", "seed", "weight_decay", "irrep"]


def test_classify_csv_of_the_irreps_reading(s3_run, tmp_path, capsys):
    import csv

    out = tmp_path / "s3.csv"
    files = sorted(map(str, s3_run.glob("*.pt")))
    assert main(["classify", *files, "--csv", str(out), "--no-progress"]) == 0
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 6 and {r["dim"] for r in rows} == {"1", "2"}
    assert all(0.0 <= float(r["energy_share"]) <= 1.0 for r in rows)


# ---------------------------------------------------------------- help generated from the registries
def _helps():
    """(command, action, its help as printed) for every argument of every command."""
    from cogo.cli import build_parser
    from cogo.commands import names

    for name in names():
        sub = next(a for a in build_parser(name)._actions if a.dest == "command").choices[name]
        fmt = sub._get_formatter()
        for action in sub._actions:
            if action.help:
                yield name, action, " ".join(fmt._expand_help(action).split())


def test_every_choice_of_every_command_is_named_in_its_help():
    missing = [f"cogo {cmd} {a.option_strings or a.dest}: {c}" for cmd, a, text in _helps()
               for c in (a.choices or ()) if not re.search(rf"(?<![\w-]){re.escape(str(c))}(?![\w-])", text)]
    assert not missing, missing


def test_help_lists_the_registries():
    from cogo.commands import _args
    from cogo.io.layouts import LAYOUTS
    from cogo.proofs.trained import VERDICTS
    from cogo.solvers import training_config

    assert _args.VERDICTS == VERDICTS
    assert _args.OPTIMIZERS == training_config.OPTIMIZERS
    helps = {(cmd, (a.option_strings or [a.dest])[0]): text for cmd, a, text in _helps()}
    for where in (("classify", "files"), ("verify", "--checkpoint")):
        for lay in LAYOUTS:   # every layout cogo reads ("keys" is --keys)
            assert (lay.name if lay.name != "keys" else "--keys") in helps[where], (where, lay.name)
        for suffix in (".pt", ".npz", ".safetensors"):
            assert suffix in helps[where], (where, suffix)
    for v in VERDICTS:
        assert f"'{v}'" in helps[("verify", "--checkpoint")], v
    for cmd in ("train", "experiment", "demo"):
        for opt in training_config.OPTIMIZERS:
            assert opt in helps[(cmd, "--optimizer")], (cmd, opt)
    assert "checkpoint" in helps[("verify", "--group")]


def test_no_help_runs_two_help_strings_together():
    from cogo.commands._args import FORCE_HELP

    glued = [f"cogo {cmd} {a.option_strings}" for cmd, a, text in _helps()
             if re.search(r"\. " + re.escape(" ".join(FORCE_HELP.split())), text)]
    assert not glued, glued


def test_train_help_names_muon_and_verify_help_names_safetensors_and_the_verdicts(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    assert "muon: Muon on the hidden layer" in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ".safetensors" in text
    assert "'certified optimizer', 'near a certified optimizer' (exit 0) or 'not near one' (exit 1)" in text


# ---------------------------------------------------------------- messages that point the right way
def _foreign(path, state):
    import torch

    torch.save(state, path)
    return str(path)


def test_keys_reach_a_state_dict_nested_under_a_name_of_the_users_own(tmp_path, capsys):
    import torch

    from cogo.solvers.constructions import z_F6

    Wa, Wb, Wc = (torch.tensor(w, dtype=torch.float64) for w in z_F6(7).to_weights(real=True))
    nested = _foreign(tmp_path / "nested.pt", {"net": {"emb_a": Wa, "emb_b": Wb, "out": Wc}})
    assert main(["classify", nested, "--group", "7", "--no-progress", "--no-verdict"]) == 2
    err = capsys.readouterr().err
    assert "net.emb_a (" in err and "dotted path" in err     # the names --keys can use, and how
    assert main(["classify", nested, "--group", "7", "--no-progress", "--no-verdict",
                 "--keys", "Wa=net.emb_a,Wb=net.emb_b,Wc=net.out"]) == 0
    # a known layout under one name of the user's own is read as it is
    wrapped = _foreign(tmp_path / "wrapped.pt", {"net": {"layera.weight": Wa, "layerb.weight": Wb,
                                                         "layerc.weight": Wc}})
    assert main(["classify", wrapped, "--group", "7", "--no-progress", "--no-verdict"]) == 0
    assert "z_nu * z_syn" in capsys.readouterr().out   # z_F6's order-6 blocks


def test_square_keys_error_with_the_group_given_does_not_say_pass_group(tmp_path, capsys):
    import torch

    g = torch.Generator().manual_seed(0)
    sq = _foreign(tmp_path / "sq.pt", {"A": torch.randn(5, 5, generator=g), "B": torch.randn(5, 5, generator=g),
                                       "C": torch.randn(5, 5, generator=g)})
    assert main(["classify", sq, "--group", "5", "--keys", "Wa=A,Wb=B,Wc=C", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "pass --group" not in err and ":T" in err and ":N" in err and "square" in err
    assert main(["classify", sq, "--group", "5", "--keys", "Wa=A:N,Wb=B:N,Wc=C:N", "--no-progress",
                 "--no-verdict"]) == 0


def test_snap_into_a_missing_folder_creates_it_and_leaves_nothing_when_refused(tmp_path, capsys):
    import numpy as np

    ck = tmp_path / "f6.pt"
    assert main(["construct", "z_F6", "--group", "7", "--out", str(ck)]) == 0
    snap = tmp_path / "new" / "deeper" / "snap.pt"
    assert main(["verify", "--checkpoint", str(ck), "--snap", str(snap), "--no-progress"]) == 0
    assert snap.is_file()
    # a network with no certified snapped optimizer: refused, and no folder stays behind
    rng = np.random.default_rng(0)
    noise = tmp_path / "noise.npz"
    np.savez(noise, Wa=rng.normal(size=(24, 7)), Wb=rng.normal(size=(24, 7)), Wc=rng.normal(size=(7, 24)))
    capsys.readouterr()
    rc = main(["verify", "--checkpoint", str(noise), "--snap", str(tmp_path / "other" / "s.pt"), "--no-progress"])
    assert rc == 2 and "nothing written" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()
    # a file where a folder should be: one line, nothing written
    (tmp_path / "afile").write_text("x")
    assert main(["verify", "--checkpoint", str(ck), "--snap", str(tmp_path / "afile" / "s.pt")]) == 2
    assert "not a directory" in capsys.readouterr().err.lower()


def test_no_seed_none_and_one_group_display_name(tmp_path, capsys):
    ck = tmp_path / "f6.pt"
    assert main(["construct", "z_F6", "--group", "3x5", "--out", str(ck)]) == 0   # no --seed: default parameters
    capsys.readouterr()
    assert main(["verify", "--checkpoint", str(ck), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "None" not in text and "default parameters" in text and "Z_3 x Z_5" in text
    assert main(["classify", str(ck), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "Z_3 x Z_5" in text and "Z_3x5" not in text


def test_figure_titles_of_a_run_without_a_seed_name_its_file(snapshot_run):
    import matplotlib.pyplot as plt

    from cogo.dynamics.figures import figure_progress, figure_run
    from cogo.dynamics.runs import analyse_run

    run = analyse_run(snapshot_run[0], workers=1)
    run["seed"] = None   # a foreign series of checkpoints records no seed
    for fig in (figure_run(run), figure_progress(run)):
        titles = [t.get_text() for t in fig.findobj(plt.Text)]
        assert not any("seed None" in t for t in titles)
        assert any(snapshot_run[0].stem in t for t in titles)
        plt.close(fig)


def test_dynamics_of_an_s3_run_prints_no_empty_block_type_table(s3_run, tmp_path, capsys):
    ck = sorted(s3_run.glob("*.pt"))[0]
    assert main(["dynamics", str(ck), "--out", str(tmp_path / "d"), "--workers", "1", "--no-progress",
                 "--no-figures"]) == 0
    out = capsys.readouterr().out
    assert "block type  " not in out and "final blocks" not in out   # the empty table's header
    assert "no block types: S3 is read through irreducible representations" in out


def test_smallgroup_checkpoint_names_need_no_shell_quoting():
    from cogo.algebra.finite_groups import FiniteGroup, named_group
    from cogo.io.run_names import checkpoint_name
    from cogo.io.snapshots import snapshot_dir_name

    G = FiniteGroup.from_table(named_group("S3").table, "SmallGroup(6,1)")   # GAP's label of S3, without GAP
    name = checkpoint_name(G, 8, 1e-3, 1)
    assert name == "dSmallGroup-6-1_q8_wd0.001_seed1.pt"
    for n in (name, snapshot_dir_name(name)):
        assert shlex.quote(n) == n


# ---------------------------------------------------------------- figures: colours and markers drawn
def _lines(ax):
    from matplotlib.colors import to_hex

    return [(ln.get_label(), to_hex(ln.get_color()), ln.get_linestyle(), ln.get_drawstyle(), ln.get_marker())
            for ln in ax.get_lines()]


@pytest.fixture(scope="module")
def progress_run(snapshot_run):
    from cogo.dynamics.runs import analyse_run

    return analyse_run(snapshot_run[0], workers=1)


def test_grokking_marker_shares_no_colour_with_a_series(progress_run):
    import matplotlib.pyplot as plt

    from cogo.dynamics.figures import figure_progress, figure_progress_seeds

    run = dict(progress_run)
    run["history"] = {"epoch": [0, 10, 20], "test_acc": [0.1, 0.5, 1.0]}   # a grokking epoch (20) to mark
    for fig in (figure_progress(run), figure_progress_seeds([run, run])):
        marked = 0
        for ax in fig.axes:
            lines = _lines(ax)
            markers = [c for lab, c, *_ in lines if lab.startswith("test acc >= 0.99")]
            series = {c for lab, c, *_ in lines if not lab.startswith("test acc >= 0.99")}
            marked += len(markers)
            assert not set(markers) & series, (ax.get_title(), lines)
        assert marked >= 7   # every panel of the measures has its marker
        plt.close(fig)


def test_the_categorical_stage_is_drawn_as_steps_with_markers(progress_run):
    import matplotlib.pyplot as plt

    from cogo.dynamics.figures import figure_progress, figure_progress_seeds

    for fig in (figure_progress(progress_run), figure_progress_seeds([progress_run, progress_run])):
        stage = [ln for ax in fig.axes for ln in ax.get_lines() if ln.get_label().startswith("stage")]
        assert stage, "no stage line"
        for ln in stage:
            assert ln.get_drawstyle() == "steps-post" and ln.get_marker() not in (None, "None", "")
            assert set(np.unique(ln.get_ydata())) <= {0.0, 1.0, 2.0}   # no value between two stages
        plt.close(fig)


def test_eleven_series_get_eleven_looks_from_one_policy():
    import matplotlib.pyplot as plt

    from cogo.dynamics.figures import LINE_STYLES, MARKER_COLOR, PALETTE, series_style
    from cogo.dynamics.peers_report import _panel_per_family

    assert MARKER_COLOR not in PALETTE and len(set(PALETTE)) == len(PALETTE) >= 11
    looks = {(series_style(i)["color"], series_style(i)["ls"]) for i in range(len(PALETTE) * len(LINE_STYLES))}
    assert len(looks) == len(PALETTE) * len(LINE_STYLES)
    fig, ax = plt.subplots()
    names = [f"rho{i}" for i in range(11)]   # 11 irrep families, each above the 0.05 shown
    _panel_per_family(ax, np.arange(3.0), np.full((3, 11), 0.5), names, list(range(11)), "y", "t")
    colours = [c for _, c, *_ in _lines(ax)]
    assert len(colours) == 11 and len(set(colours)) == 11
    plt.close(fig)


def test_s3_types_figure_has_several_x_ticks_and_its_legend_covers_no_bar():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from cogo.dynamics.figures import _figure_key_order

    fams = ["trivial", "sign", "standard"]
    runs = [{"group": "S3", "epochs": [0, 10, 20],
             "progress": {"chughtai": {"families": fams,
                                       "logit_similarity": [[0.0, 0.0, 0.0], [0.0, 0.0, 0.3], [0.0, 0.2, 0.4]]}}}
            for _ in range(2)]
    fig = _figure_key_order(runs)
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    lo, hi = ax.get_xlim()
    assert len([t for t in ax.get_xticks() if lo <= t <= hi]) >= 3
    leg = ax.get_legend().get_window_extent()
    for line in ax.get_lines():   # every point of every bar, in display coordinates
        for x, y in ax.transData.transform(np.column_stack([line.get_xdata(), line.get_ydata()])):
            assert not leg.contains(x, y), (x, y)


# ---------------------------------------------------------------- no RuntimeWarning leaks from the suite
def test_weights_too_large_are_refused_before_any_overflow():
    import warnings

    from cogo.algebra.network import Network

    with warnings.catch_warnings():
        warnings.simplefilter("error")   # the overflow in matmul was a RuntimeWarning the suite leaked
        with pytest.raises(ValueError, match="too large"):
            Network.from_weights(np.full((1, 5), 1e308), np.zeros((1, 5)), np.zeros((5, 1)))
        with pytest.raises(ValueError, match="too large"):
            Network.from_weights(np.zeros((2, 7)), np.zeros((2, 7)), np.full((7, 2), -1e307))
        net = Network.from_weights(np.full((1, 5), 1e300), np.zeros((1, 5)), np.zeros((5, 1)))   # large, finite
        assert np.isfinite(net.z).all()
