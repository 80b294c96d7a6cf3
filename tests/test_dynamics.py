"""Tests of training snapshots and of cogo.analysis.dynamics (reading a training run over time)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from cogo.solvers.training import TrainConfig, init_weights, train


# ---------------------------------------------------------------- issue 10: snapshots are copies
@pytest.mark.parametrize("seeds", [[3], [3, 4]])
def test_snapshots_are_copies_not_views_of_the_live_weights(seeds):
    """Every snapshot holds the weights of its own epoch: the first one is the initialization.

    Old bug: ``_Batch.weights()`` returned ``P[2].contiguous().cpu()``, a view of the
    live ``W_c`` on the CPU, so every snapshot's ``layerc.weight`` was the final ``W_c``.
    """
    cfg = TrainConfig(group="7", hidden=8, epochs=6, log_every=3, snapshot_every=3, weight_decay=1e-3)
    for r in train(cfg, seeds, progress=False):
        s = r.snapshots
        assert s["epoch"] == [0, 3, 6]
        Wa0, Wb0, Wc0 = init_weights(8, 7, r.seed)
        for key, w0, wf in zip(("layera.weight", "layerb.weight", "layerc.weight"), (Wa0, Wb0, Wc0),
                               (r.Wa, r.Wb, r.Wc)):
            assert torch.equal(s[key][0], w0), key
            assert torch.equal(s[key][-1], wf), key
            assert not torch.equal(s[key][0], s[key][1]), key
            assert not torch.equal(s[key][1], s[key][2]), key


# ---------------------------------------------------------------- streamed snapshot storage
def test_streamed_snapshots_round_trip_and_match_in_memory(tmp_path):
    from cogo.snapshots import open_snapshots
    from cogo.solvers.training import save_run

    cfg = TrainConfig(group="7", hidden=8, epochs=6, log_every=3, snapshot_every=3, weight_decay=1e-3)
    mem = train(cfg, [5], progress=False)[0]
    streamed = train(cfg, [5], progress=False, snapshot_dir=tmp_path)[0]
    assert streamed.snapshots == {"format": "cogo-snapshots/1", "dir": "d7_q8_wd0.001_seed5.snapshots",
                                  "epoch": [0, 3, 6]}
    d = tmp_path / "d7_q8_wd0.001_seed5.snapshots"
    assert sorted(p.name for p in d.iterdir()) == ["epoch_0000000.safetensors", "epoch_0000003.safetensors",
                                                  "epoch_0000006.safetensors", "index.json"]
    path = save_run([streamed], tmp_path)[0]
    ck = torch.load(path, weights_only=True)
    assert ck["meta"]["snapshots"]["dir"] == d.name
    snaps = open_snapshots(path)
    assert snaps.epochs == [0, 3, 6] and snaps.files is not None
    for i in range(3):
        for j, key in enumerate(("layera.weight", "layerb.weight", "layerc.weight")):
            np.testing.assert_array_equal(snaps.load(i)[j], mem.snapshots[key][i].double().numpy())
    # the older in-memory layout is read too, with the same values
    old = save_run([mem], tmp_path / "old")[0]
    snaps_old = open_snapshots(old)
    assert snaps_old.arrays is not None
    for (i1, *w1), (i2, *w2) in zip(snaps.chunks(2), snaps_old.chunks(2)):
        assert i1 == i2
        for x, y in zip(w1, w2):
            np.testing.assert_array_equal(x, y)


def test_hostile_snapshot_storage_is_refused(tmp_path):
    from cogo.checkpoints import CheckpointError, save_checkpoint
    from cogo.snapshots import open_snapshots
    from cogo.solvers.training import save_run

    cfg = TrainConfig(group="5", hidden=4, epochs=2, log_every=1, snapshot_every=1)
    r = train(cfg, [1], progress=False, snapshot_dir=tmp_path)[0]
    path = save_run([r], tmp_path)[0]
    meta = torch.load(path, weights_only=True)["meta"]
    # a directory name that escapes the checkpoint's folder
    bad = dict(meta, snapshots=dict(meta["snapshots"], dir="../x.snapshots"))
    save_checkpoint(tmp_path / "bad.pt", r.Wa, r.Wb, r.Wc, bad)
    with pytest.raises(CheckpointError, match="bad snapshot directory"):
        open_snapshots(tmp_path / "bad.pt")
    # no snapshots at all
    save_checkpoint(tmp_path / "none.pt", r.Wa, r.Wb, r.Wc, {"group": "5"})
    with pytest.raises(CheckpointError, match="no snapshots"):
        open_snapshots(tmp_path / "none.pt")
    snaps = open_snapshots(path)
    # a corrupt file, and one larger than three float64 arrays plus the header bound
    f = snaps.files[1]
    with open(f, "wb") as fh:
        fh.write(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}......")
    with pytest.raises(CheckpointError, match="not a readable safetensors"):
        snaps.load(1)
    with open(f, "wb") as fh:
        fh.write(b"\0" * (3 * 5 * 4 * 8 + (1 << 20) + 1))
    with pytest.raises(CheckpointError, match="exceeds"):
        snaps.load(1)
    snaps.load(0)
