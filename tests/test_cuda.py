"""Training on a CUDA device: the same program as on the CPU, the same reading of its result.

Every test here needs a CUDA device and is skipped without one (CI has none); they run where a
GPU is lent (``python -m pytest -q -m cuda tests/test_cuda.py``).  The CPU run is the reference:
the device must compute the same loss on the same weights to float32 rounding, and the same seed
trained to the end must read as the same blocks with the same names.  The weights themselves may
differ in the last bits (reductions sum in another order), and Adam can amplify such differences
over 10000 epochs; the last test prints how much they differ.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cogo.analysis.classify import read_network  # noqa: E402
from cogo.io.weights import read_checkpoint  # noqa: E402
from cogo.cli import main  # noqa: E402
from cogo.solvers.training import train  # noqa: E402
from cogo.solvers.training_config import TrainConfig  # noqa: E402

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


def test_cli_trains_on_cuda_and_the_checkpoint_reads_on_the_cpu(tmp_path):
    out = tmp_path / "run"
    rc = main(["train", "--group", "23", "--hidden", "64", "--epochs", "50", "--seeds", "1-2",
               "--device", "cuda", "--out", str(out), "--no-progress"])
    assert rc == 0
    paths = sorted(out.glob("*.pt"))
    assert len(paths) == 2
    w = read_checkpoint(paths[0])
    assert w.Wa.shape == (64, 23) and np.isfinite(w.Wa).all()


def test_the_first_loss_is_the_cpu_loss_to_float32_rounding():
    # epoch 0 of the history is the loss of the initial weights, before any step: the same weights
    # on both devices, so only the kernels' rounding may differ
    cfg = TrainConfig(group="23", hidden=512, epochs=1, log_every=1)
    cpu = train(cfg, seeds=[1, 2], progress=False)
    gpu = train(replace(cfg, device="cuda"), seeds=[1, 2], progress=False)
    for c, g in zip(cpu, gpu):
        assert c.history["epoch"][0] == g.history["epoch"][0] == 0
        lc, lg = c.history["train_loss"][0], g.history["train_loss"][0]
        assert abs(lc - lg) <= 1e-5 * abs(lc), (lc, lg)
        # and a wrong device result would not pass: the loss of another seed differs by far more
    assert abs(cpu[0].history["train_loss"][0] - cpu[1].history["train_loss"][0]) > 1e-4


def test_the_same_seed_reads_as_the_same_blocks_on_both_devices(capsys):
    cfg = TrainConfig(group="23", hidden=512, epochs=10000, log_every=1000)
    cpu = train(cfg, seeds=[1], progress=False)[0]
    gpu = train(replace(cfg, device="cuda"), seeds=[1], progress=False)[0]
    reads = [read_network(r.Wa, r.Wb, r.Wc, group=23) for r in (cpu, gpu)]
    names = [[(b.k, b.order, b.type) for b in rep.blocks] for rep in reads]
    W = [np.concatenate([r.Wa.numpy().ravel(), r.Wb.numpy().ravel(), r.Wc.numpy().ravel()]) for r in (cpu, gpu)]
    rel = float(np.abs(W[0] - W[1]).max() / np.abs(W[0]).max())
    with capsys.disabled():
        print(f"\nZ_23 seed 1, 10000 epochs: max |W_cuda - W_cpu| / max |W_cpu| = {rel:.2e}; "
              f"final train loss cpu {cpu.final['train_loss']:.3e}, cuda {gpu.final['train_loss']:.3e}; "
              f"blocks {names[0]}")
    assert cpu.final["test_acc"] == gpu.final["test_acc"] == 1.0
    assert names[0] == names[1]
