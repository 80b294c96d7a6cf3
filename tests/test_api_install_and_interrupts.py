"""The install, the curated Python API, interrupting (Ctrl-C), threads restored, common flags, outputs never
silently replaced (issue #36).

Each test here fails on the code before issue #36 (checked against its parent commit)."""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import cogo
from cogo.cli import main

from _helpers import ctrl_c, start_cogo

ROOT = Path(__file__).resolve().parents[1]


def _digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _tree(d: Path) -> dict:
    return {str(p.relative_to(d)): _digest(p) for p in sorted(d.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------- the install reaches this project only
def test_the_distribution_is_not_named_cogo():
    text = (ROOT / "pyproject.toml").read_text()
    name = re.search(r'^\[project\]\s*(?:#.*\n)*\s*name\s*=\s*"([^"]+)"', text, re.M)
    assert name is not None and name.group(1) not in ("cogo", "Cogo", "COGO")


#: `pip install [options] cogo` or `cogo[extra]` (quoted or not, with or without a version): the index's `cogo`
INDEX_COGO = re.compile(r"pip install\s+(?:-\S+\s+)*['\"]?cogo(?:\[[^\]]*\])?['\"]?(?=[\s`<>=!~;|&)]|$)")


def _pages():
    return [ROOT / "README.md", ROOT / ".ci" / "run", ROOT / "pyproject.toml", *sorted((ROOT / "docs").glob("*.md")),
            *sorted((ROOT / "cogo").rglob("*.py"))]


def test_no_install_line_names_the_index_project_cogo():
    """`pip install cogo`, `cogo[gap]`, 'cogo[cluster]' would fetch PyPI's unrelated `cogo`: only the checkout."""
    assert INDEX_COGO.search('pip install "cogo[gap]"') and INDEX_COGO.search("pip install -U cogo")
    assert not INDEX_COGO.search('pip install -e ".[gap]" in the cogo checkout')
    readme = (ROOT / "README.md").read_text()
    assert 'pip install -e ".[dev]"' in readme
    for f in _pages():
        for i, line in enumerate(f.read_text().splitlines(), 1):
            assert not INDEX_COGO.search(line), (f.name, i, line)


def test_install_hints_in_messages_install_from_the_checkout():
    from cogo.algebra.smallgroups import INSTALL_HINT

    assert 'pip install -e ".[gap]"' in INSTALL_HINT and "cogo[gap]" not in INSTALL_HINT


# ---------------------------------------------------------------- the Python API
def test_dir_of_cogo_is_the_curated_api():
    names = dir(cogo)
    for leak in ("Any", "annotations", "importlib"):
        assert leak not in names
    public = [n for n in names if not n.startswith("_")]
    assert set(cogo.__all__) <= set(public)
    for n in public:   # every other public name is a submodule already imported
        assert n in cogo.__all__ or type(getattr(cogo, n)).__name__ in ("module", "_CallablePackage"), n
    for n in ("fourier_loss", "real_loss", "save", "load", "classify", "train", "verify"):
        assert n in cogo.__all__


def test_the_losses_are_exported_and_never_negative():
    assert cogo.fourier_loss(cogo.z_F6(23)) == 0.0                      # was -3.6e-16
    assert cogo.fourier_loss(cogo.z_F6(5, exact=True)) == 0             # exact: exactly 0, not clipped
    # the clip hides no loss: a network that is not an optimum keeps its loss, equal to the real-space one
    z = cogo.z_F46(7)
    W = z.to_weights(real=True)
    bad = (2.0 * W[0], W[1], W[2])
    from cogo.algebra.network import Network

    real = cogo.real_loss(*bad, group=7)
    assert real > 1e-3
    assert abs(cogo.fourier_loss(Network.from_weights(*bad, group=7)) - real) < 1e-9 * max(1.0, real)


def test_save_beside_load(tmp_path):
    net = cogo.z_F6(7)
    p = cogo.save(net, tmp_path / "f6.pt")
    w = cogo.load(p)
    assert np.allclose(w.Wa, net.to_weights(real=True)[0]) and str(w.group) == "Z_7"
    before = _digest(p)
    with pytest.raises(cogo.CogoError, match="force=True"):
        cogo.save(cogo.z_M(7), p)
    assert _digest(p) == before
    cogo.save(w, p, force=True)                                          # a loaded checkpoint saves again
    assert np.array_equal(cogo.load(p).Wc, w.Wc)
    with pytest.raises(cogo.CogoError, match="cannot save"):
        cogo.save([w], tmp_path / "list.pt")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    d = tmp_path_factory.mktemp("trained")
    results = cogo.train(7, seeds=[1, 2], epochs=30, hidden=16)
    paths = [cogo.save(r, d / f"seed{r.seed}.pt") for r in results]
    return d, results, paths


def test_classify_takes_every_source_and_returns_one_type(trained):
    from cogo.analysis.classify import ClassifyResult

    d, results, paths = trained
    readings = {
        "path": cogo.classify(paths[0]),
        "list": cogo.classify([paths[0]]),
        "str": cogo.classify(str(paths[0])),
        "loaded": cogo.classify(cogo.load(paths[0])),
        "result": cogo.classify(results[0]),
    }
    for how, r in readings.items():
        assert type(r) is ClassifyResult and len(r.reports) == 1, how
    types = {how: [b.type for b in r.reports[0].blocks] for how, r in readings.items()}
    assert len({tuple(t) for t in types.values()}) == 1, types           # the same network, the same reading
    both = {"folder": cogo.classify(d), "train output": cogo.classify(results), "paths": cogo.classify(paths)}
    for how, r in both.items():
        assert type(r) is ClassifyResult and len(r.reports) == 2, how
    assert both["train output"].reports[0].path == "<training result d7_q16_wd5e-05_seed1>"
    assert [Path(r.path).name for r in both["folder"].reports] == ["seed1.pt", "seed2.pt"]
    assert callable(readings["path"].to_pandas)
    for bad in (3, [], object()):
        with pytest.raises(cogo.CogoError, match="checkpoint path"):
            cogo.classify(bad)
    import types

    w = cogo.load(paths[0])
    wrong = types.SimpleNamespace(Wa=w.Wa, Wb=w.Wb, Wc=w.Wc, group="S3")     # 7 columns, a group of order 6
    with pytest.raises(cogo.CogoError) as exc:
        cogo.classify(wrong)
    assert str(exc.value).startswith("<SimpleNamespace #0>: ") and "cogo-classify-" not in str(exc.value)


def test_construct_takes_the_function_names(tmp_path, capsys):
    from cogo.solvers.constructions import construct

    for name, fn in (("z_F6", cogo.z_F6), ("z_F6_ab", cogo.z_F6_ab), ("z_F46", cogo.z_F46), ("z_M", cogo.z_M)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")                                 # the names themselves never warn
            net, meta = construct(name, 7)
        assert np.allclose(net.to_weights(real=True)[0], fn(7).to_weights(real=True)[0]), name
    with pytest.raises(ValueError, match="use z_F6_ab"):                  # an old spelling is not a name
        construct("f6-ab", 7)
    assert construct("z_F6_ab", 7)[1]["construction"] == "z_F6_ab"        # one vocabulary: the file records the name
    assert main(["construct", "z_F6_ab", "--group", "7", "--out", str(tmp_path / "a.pt")]) == 0
    assert np.allclose(cogo.load(tmp_path / "a.pt").Wa, cogo.z_F6_ab(7).to_weights(real=True)[0])
    capsys.readouterr()
    assert main(["construct", "f6-ab", "--group", "7", "--out", str(tmp_path / "b.pt")]) == 2  # the old name: refused
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'f6-ab' is the old name of z_F6_ab: use z_F6_ab" in err, err
    assert not (tmp_path / "b.pt").exists()
    assert main(["verify", "--checkpoint", str(tmp_path / "a.pt")]) == 0   # still certified exactly
    assert "certified global optimizer (exact)" in capsys.readouterr().out


# ---------------------------------------------------------------- flags: one vocabulary
def test_construct_speaks_the_common_flags(tmp_path):
    assert main(["construct", "z_F6", "--group", "7", "--out", str(tmp_path / "c.pt"), "--threads", "1",
                 "--no-progress"]) == 0


def test_every_command_that_writes_takes_force_and_every_one_that_computes_threads_and_no_progress():
    import argparse

    from cogo.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        flags = {s for a in p._actions for s in a.option_strings}
        assert {"--force", "--threads", "--no-progress"} <= flags, name
        if name in ("train", "experiment", "demo", "li2-sweep", "dynamics", "construct"):
            assert "--out" in flags, name


# ---------------------------------------------------------------- outputs are never silently replaced
@pytest.fixture(scope="module")
def snapshot_runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("snaps")
    assert main(["train", "--group", "5", "--hidden", "8", "--epochs", "20", "--snapshot-every", "10",
                 "--seeds", "1-2", "--threads", "1", "--no-progress", "--out", str(d)]) == 0
    return sorted(d.glob("*.pt"))


@pytest.mark.slow  # 10-45 s of training and dynamics: CI's slow step runs it
def test_dynamics_refuses_an_earlier_analysis_and_force_leaves_no_stale_figure(snapshot_runs, tmp_path, capsys):
    out = tmp_path / "dyn"
    assert main(["dynamics", *map(str, snapshot_runs), "--out", str(out), "--workers", "1", "--no-progress"]) == 0
    before = _tree(out)
    assert main(["dynamics", str(snapshot_runs[0]), "--out", str(out), "--workers", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "already exists" in err[0] and "--force" in err[0]
    assert _tree(out) == before                                            # the 2-run analysis is unchanged
    assert main(["dynamics", str(snapshot_runs[0]), "--out", str(out), "--workers", "1", "--no-progress",
                 "--force"]) == 0
    assert len(json.loads((out / "dynamics.json").read_text())["runs"]) == 1
    figs = sorted(p.name for p in (out / "figures").glob("*_d5_*seed2.png"))
    assert figs == [], figs                                                # seed 2's figures are gone
    assert sorted((out / "figures").glob("*_d5_*seed1.png"))


@pytest.mark.slow  # builds the snapshot runs (about 9 s): CI's slow step
def test_dynamics_shows_a_bar_not_lines(snapshot_runs, tmp_path, capsys):
    assert main(["dynamics", str(snapshot_runs[0]), "--out", str(tmp_path / "d"), "--workers", "1"]) == 0
    cap = capsys.readouterr()
    assert "snapshots read" not in cap.out and "dynamics d5_q8" in cap.err and "snapshot" in cap.err


def _sweep(out, *extra):
    return main(["li2-sweep", "--groups", "5", "--x", "1", *extra, "--seeds", "1", "--epochs", "2", "--hidden", "4",
                 "--threads", "1", "--no-progress", "--out", str(out)])


def test_li2_sweep_force_and_no_silent_shrink(tmp_path, capsys):
    out = tmp_path / "sweep"
    assert _sweep(out, "--wd", "1e-3") == 0
    assert _sweep(out, "--x", "1", "2", "--wd", "1e-3") == 0               # the same settings: resumed, extended
    rows = json.loads((out / "sweep.json").read_text())["rows"]
    assert sorted(r["x"] for r in rows) == [1.0, 2.0]
    assert _sweep(out, "--wd", "1e-3") == 0                                # a smaller grid: no cell is lost
    assert sorted(r["x"] for r in json.loads((out / "sweep.json").read_text())["rows"]) == [1.0, 2.0]
    before = _tree(out)
    capsys.readouterr()
    assert _sweep(out, "--wd", "2e-3") == 2                                # other settings: refused, unchanged
    assert "--force" in capsys.readouterr().err
    assert _tree(out) == before
    assert _sweep(out, "--wd", "2e-3", "--lr", "0.02", "--force") == 0
    doc = json.loads((out / "sweep.json").read_text())
    assert doc["config"]["weight_decay"] == 2e-3 and sorted(r["x"] for r in doc["rows"]) == [1.0]
    assert sorted(p.name for p in out.glob("phase_diagram_lr*.png")) == ["phase_diagram_lr0.02.png"]


def test_a_train_folder_takes_more_seeds(tmp_path, capsys):
    args = ["train", "--group", "5", "--hidden", "8", "--epochs", "3", "--threads", "1", "--no-progress",
            "--out", str(tmp_path)]
    assert main([*args, "--seeds", "1-2"]) == 0
    assert main([*args, "--seeds", "3"]) == 0                              # was: refused (summary.json exists)
    doc = json.loads((tmp_path / "summary.json").read_text())
    assert doc["seeds"] == [1, 2, 3] and len(doc["models"]) == 3
    assert sorted(m["file"] for m in doc["models"]) == sorted(p.name for p in tmp_path.glob("*.pt"))
    before = (tmp_path / "summary.json").read_text()
    capsys.readouterr()
    assert main([*args[:4], "9", *args[5:], "--seeds", "4"]) == 2         # other settings (hidden 9): refused
    assert "other settings" in capsys.readouterr().err
    assert (tmp_path / "summary.json").read_text() == before and not list(tmp_path.glob("*q9*"))


# ---------------------------------------------------------------- the memory message
def test_the_memory_refusal_does_not_contradict_itself(monkeypatch):
    import cogo.solvers.training as T
    from cogo.solvers.training_config import TrainConfig

    monkeypatch.setattr(T, "_available_bytes", lambda device: int(22.41 * 2**30))
    with pytest.raises(cogo.CogoError) as exc:
        T.validate_run(TrainConfig(group="1009", hidden=4096), [1])
    msg = str(exc.value)
    gib = [float(x) for x in re.findall(r"(\d+\.\d+) GiB", msg)]
    need, share, free = gib
    assert need > share and free == 22.41 and abs(share - free / 2) < 0.01, msg
    assert "half" in msg and "\n" not in msg


# ---------------------------------------------------------------- threads: cli.main leaves them as they were
@pytest.mark.slow  # builds the snapshot runs (about 9 s): CI's slow step
def test_main_restores_torch_and_blas_threads(snapshot_runs, tmp_path):
    import torch
    from threadpoolctl import threadpool_info, threadpool_limits

    from cogo.runtime.threads import threads_override

    before = torch.get_num_threads()
    torch.set_num_threads(3)
    try:
        with threadpool_limits(limits=3, user_api="blas"):
            blas = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
            assert main(["dynamics", str(snapshot_runs[0]), "--out", str(tmp_path / "d"), "--workers", "1",
                         "--threads", "1", "--no-progress"]) == 0
            assert (torch.get_num_threads(), threads_override()) == (3, None)
            assert _sweep(tmp_path / "s", "--threads", "1") == 0
            assert (torch.get_num_threads(), threads_override()) == (3, None)
            assert [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"] == blas
    finally:
        torch.set_num_threads(before)


# ---------------------------------------------------------------- Ctrl-C: one line, exit 130, a way to resume
def _interrupt(tmp_path, when):
    p = start_cogo("train", "--group", "23", "--hidden", "64", "--epochs", "1000000", "--out", str(tmp_path / "run"))
    err = b""
    if when == "training":   # once the bar shows the epochs running
        os.set_blocking(p.stderr.fileno(), False)
        t0 = time.monotonic()
        while b"epoch/s" not in err and time.monotonic() - t0 < 120 and p.poll() is None:
            err += p.stderr.read() or b""
            time.sleep(0.05)
        assert b"epoch/s" in err
        os.set_blocking(p.stderr.fileno(), True)
    else:
        time.sleep(when)
    return ctrl_c(p, err)


@pytest.mark.parametrize("when", [1.0, pytest.param(4.0, marks=pytest.mark.slow), "training"])
def test_ctrl_c_prints_one_line_and_how_to_resume(tmp_path, when):
    rc, err = _interrupt(tmp_path, when)
    assert rc == 130, err
    assert "Traceback" not in err
    last = re.split(r"[\r\n]", err.rstrip("\n"))[-1]
    assert last.startswith("cogo: interrupted; resume with --resume"), err[-500:]
    assert err.count("cogo: interrupted") == 1
    assert "--out " + str(tmp_path / "run") + " --resume" in last
