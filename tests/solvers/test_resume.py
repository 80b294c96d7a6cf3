"""Resumable training (issue #21): an interrupted run continued with resume=True is bit-identical to one
that was never interrupted, and the snapshots written before the interruption are kept."""
from __future__ import annotations

import pytest
import torch

from cogo.cli import main
from cogo.solvers import training as T
from cogo.solvers.batch import _Batch
from cogo.solvers.resume import state_path
from cogo.solvers.training_config import TrainConfig


def _run(tmp, cfg, interrupt_after=None, resume=False, monkeypatch=None):
    if interrupt_after is not None:
        calls = {"n": 0}
        real = _Batch.step

        def step(self):
            calls["n"] += 1
            if calls["n"] > interrupt_after:
                raise KeyboardInterrupt
            return real(self)

        monkeypatch.setattr(_Batch, "step", step)
    try:
        return T.train(cfg, [1, 2], weight_decays=[1e-3], progress=False, snapshot_dir=tmp, threads=1,
                       resume_every=40, resume=resume)
    finally:
        if interrupt_after is not None:
            monkeypatch.undo()


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_resume_is_bit_identical(tmp_path, monkeypatch, optimizer):
    cfg = TrainConfig(group="7", hidden=16, epochs=200, log_every=10, snapshot_every=25, optimizer=optimizer,
                        momentum=0.9 if optimizer == "sgd" else 0.0)
    ref = _run(tmp_path / "a", cfg)
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path / "b", cfg, interrupt_after=130, monkeypatch=monkeypatch)   # the last state: epoch 120
    state = state_path(tmp_path / "b", cfg, [(1e-3, 1), (1e-3, 2)])
    assert state.is_file()
    snap_dir = tmp_path / "b" / "d7_q16_wd0.001_seed1.snapshots"
    before = {p.name: p.read_bytes() for p in snap_dir.glob("epoch_*.safetensors")}
    assert "epoch_0000125.safetensors" in before                                 # written after the saved state
    res = _run(tmp_path / "b", cfg, resume=True)
    assert not state.exists()                                                    # removed once finished
    for r0, r1 in zip(ref, res):
        for a, b in ((r0.Wa, r1.Wa), (r0.Wb, r1.Wb), (r0.Wc, r1.Wc)):
            assert torch.equal(a, b)
        assert r0.history == r1.history
        assert r0.final == r1.final
    ref_dir = tmp_path / "a" / "d7_q16_wd0.001_seed1.snapshots"
    assert sorted(p.name for p in snap_dir.iterdir()) == sorted(p.name for p in ref_dir.iterdir())
    assert (snap_dir / "index.json").read_bytes() == (ref_dir / "index.json").read_bytes()
    for p in ref_dir.glob("epoch_*.safetensors"):                               # same arrays, bit for bit
        # (not the same bytes: safetensors writes its metadata entries in no fixed order)
        assert _arrays(snap_dir / p.name) == _arrays(p), p.name
    for name, data in before.items():
        if int(name[6:13]) <= 120:                                             # up to the saved state: kept as written
            assert (snap_dir / name).read_bytes() == data, name
        else:                                                                  # after it: written again, same arrays
            assert _arrays(snap_dir / name) == _arrays(ref_dir / name)


def _arrays(path):
    from safetensors.numpy import load_file

    return {k: v.tobytes() for k, v in sorted(load_file(str(path)).items())}


def test_resume_refuses_other_settings_and_a_leftover_state(tmp_path, monkeypatch, capsys):
    cfg = TrainConfig(group="7", hidden=16, epochs=100, log_every=10)
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path, cfg, interrupt_after=50, monkeypatch=monkeypatch)
    other = TrainConfig(group="7", hidden=16, epochs=100, log_every=10, lr=0.02)
    assert state_path(tmp_path, other, [(1e-3, 1), (1e-3, 2)]).is_file()        # the same file name: lr is not in it
    from cogo.runtime.errors import CogoError

    with pytest.raises(CogoError, match="other settings"):
        _run(tmp_path, other, resume=True)
    # the command line: a leftover state is neither ignored nor silently replaced
    argv = ["train", "--group", "7", "--hidden", "16", "--epochs", "100", "--seeds", "1-2", "--wd", "1e-3",
            "--log-every", "10", "--resume-every", "40", "--out", str(tmp_path), "--no-progress", "--threads", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--resume continues it" in err[0]
    rc = main(argv + ["--resume"])
    assert rc == 0, capsys.readouterr().err
    assert "resuming from" in capsys.readouterr().out
