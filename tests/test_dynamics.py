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
