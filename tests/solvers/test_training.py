"""Tests of cogo.solvers.training and ``cogo train`` (SPEC 1).

The references here are written independently of the code under test: the
network and loss as one-hot matmuls straight from SPEC 1, answers by modular
arithmetic, and a plain ``nn.Linear`` + autograd + ``torch.optim`` training loop.
"""
from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from cogo.io.weights import read_checkpoint
from cogo.cli import main
from cogo.solvers import training as T
from cogo.solvers.batch import _Batch, init_weights, split_pairs
from cogo.solvers.training import pair_metrics, train
from cogo.solvers.training_config import TrainConfig
from cogo.solvers.training_results import save_run

METRICS = ("train_loss", "test_loss", "train_acc", "test_acc")


# ---------------------------------------------------------------- independent references (SPEC 1)
def answers(orders: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """a, b, c = a + b over all pairs p = a * n + b, by coordinate-wise modular addition."""
    n = int(np.prod(orders))
    p = np.arange(n * n)
    a, b = p // n, p % n
    ca, cb = np.unravel_index(a, orders), np.unravel_index(b, orders)
    c = np.ravel_multi_index(tuple((x + y) % d for x, y, d in zip(ca, cb, orders)), orders)
    return a, b, c


def reference_per_pair(Wa, Wb, Wc, orders, loss="mse"):
    """Per-pair loss and correctness with one-hot inputs and matmuls, as SPEC 1 writes the network."""
    n = Wa.shape[1]
    a, b, c = (torch.as_tensor(x) for x in answers(orders))
    Xa, Xb, E = (F.one_hot(x, n).to(Wa.dtype) for x in (a, b, c))
    o = ((Xa @ Wa.T + Xb @ Wb.T) ** 2) @ Wc.T
    if loss == "mse":
        def P(x):
            return x - x.mean(-1, keepdim=True)
        per = ((P(o) - P(E)) ** 2).sum(-1)
    else:
        per = F.cross_entropy(o, c, reduction="none")
    return per, o.argmax(-1) == c


def reference_train(cfg: TrainConfig, seed: int, wd: float, orders):
    """Plain PyTorch: torch.manual_seed + nn.Linear, one-hot inputs, autograd, torch.optim."""
    n, q = int(np.prod(orders)), cfg.hidden
    torch.manual_seed(seed)
    layers = [torch.nn.Linear(n, q, bias=False), torch.nn.Linear(n, q, bias=False),
              torch.nn.Linear(q, n, bias=False)]
    W = [layer.weight.detach().to(cfg.torch_dtype).clone().requires_grad_(True) for layer in layers]
    tr, te = split_pairs(cfg.group, cfg.test_fraction, seed)
    opt_cls = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW, "sgd": torch.optim.SGD}[cfg.optimizer]
    kw = {"lr": cfg.lr, "weight_decay": wd}
    if cfg.optimizer == "sgd":
        kw["momentum"] = cfg.momentum
    opt = opt_cls(W, **kw)
    hist = []
    for epoch in range(cfg.epochs + 1):
        if epoch % cfg.log_every == 0 or epoch == cfg.epochs:
            with torch.no_grad():
                per, ok = reference_per_pair(*W, orders, cfg.loss)
                hist.append([per[tr].mean().item(), per[te].mean().item(),
                             ok[tr].double().mean().item(), ok[te].double().mean().item()])
        if epoch == cfg.epochs:
            break
        opt.zero_grad()
        per, _ = reference_per_pair(*W, orders, cfg.loss)
        per[tr].mean().backward()
        opt.step()
    return np.array(hist), [w.detach() for w in W]


def hist_array(r) -> np.ndarray:
    return np.array([r.history[k] for k in METRICS], dtype=float).T


# ---------------------------------------------------------------- initialization and split
def test_init_is_nn_linear_default_and_depends_only_on_seed():
    q, n = 40, 11
    torch.manual_seed(7)
    ref = [torch.nn.Linear(n, q, bias=False).weight, torch.nn.Linear(n, q, bias=False).weight,
           torch.nn.Linear(q, n, bias=False).weight]
    got = init_weights(q, n, 7)
    for w, r in zip(got, ref):
        assert w.dtype == torch.float32 and w.shape == r.shape
        assert torch.equal(w, r.detach())
    # U(-1/sqrt(fan_in), 1/sqrt(fan_in)): within the bounds and filling them
    for w, fan_in in zip(got, (n, n, q)):
        bound = 1 / math.sqrt(fan_in)
        assert w.abs().max() <= bound
        assert w.abs().max() > 0.9 * bound
        assert abs(w.mean().item()) < 0.2 * bound
    assert all(torch.equal(x, y) for x, y in zip(init_weights(q, n, 7), got))
    assert not torch.equal(init_weights(q, n, 8)[0], got[0])
    # inside a batch a model starts from its own seed's weights, whatever its neighbours
    cfg = TrainConfig(group="11", hidden=q, epochs=0)
    for r in train(cfg, [3, 7, 9], weight_decays=[0.0, 1e-3], progress=False):
        for w, ref_w in zip((r.Wa, r.Wb, r.Wc), init_weights(q, n, r.seed)):
            assert torch.equal(w, ref_w)


def test_split_is_a_partition_that_depends_only_on_seed():
    n = 13
    tr, te = split_pairs("13", 0.1, 5)
    assert tr.dtype == te.dtype == torch.int64
    assert len(tr) == math.floor(0.9 * n * n) and len(tr) + len(te) == n * n
    assert torch.equal(torch.sort(torch.cat([tr, te])).values, torch.arange(n * n))
    assert torch.equal(tr, tr.sort().values) and torch.equal(te, te.sort().values)
    tr2, te2 = split_pairs(13, 0.1, 5)
    assert torch.equal(tr, tr2) and torch.equal(te, te2)
    assert not torch.equal(te, split_pairs("13", 0.1, 6)[1])
    # the model's split inside a batch is the one of its own seed
    res = train(TrainConfig(group="13", hidden=8, epochs=0), [6, 5], progress=False)
    assert torch.equal(res[1].test_idx, te) and torch.equal(res[0].test_idx, split_pairs("13", 0.1, 6)[1])


# ---------------------------------------------------------------- the loss
@pytest.mark.parametrize("orders,loss", [((11,), "mse"), ((3, 5), "mse"), ((11,), "ce")])
def test_loss_matches_one_hot_reference(orders, loss):
    n, q = int(np.prod(orders)), 17
    gen = torch.Generator().manual_seed(0)
    # nonzero means on purpose (SPEC 5 warns about them)
    Wa = torch.randn(q, n, generator=gen, dtype=torch.float64) + 0.3
    Wb = torch.randn(q, n, generator=gen, dtype=torch.float64) - 0.2
    Wc = torch.randn(n, q, generator=gen, dtype=torch.float64) * 0.1 + 0.05
    label = "x".join(map(str, orders))
    per, ok = pair_metrics(Wa, Wb, Wc, label, loss)
    ref_per, ref_ok = reference_per_pair(Wa, Wb, Wc, orders, loss)
    torch.testing.assert_close(per, ref_per, rtol=1e-12, atol=1e-12)
    assert torch.equal(ok, ref_ok)
    if loss == "mse":  # SPEC 1: ||P(o)||^2 - 2 P(o)[c] + 1 - 1/n per pair
        a, b, c = (torch.as_tensor(x) for x in answers(orders))
        o = (Wa[:, a] + Wb[:, b]).T ** 2 @ Wc.T
        Po = o - o.mean(-1, keepdim=True)
        alt = (Po ** 2).sum(-1) - 2 * Po[torch.arange(n * n), c] + 1 - 1 / n
        torch.testing.assert_close(per, alt, rtol=1e-10, atol=1e-10)
    # batched layout gives the same numbers
    per_b, ok_b = pair_metrics(torch.stack([Wa, 2 * Wa]), torch.stack([Wb, Wb]), torch.stack([Wc, Wc]), label, loss)
    torch.testing.assert_close(per_b[0], per)
    assert torch.equal(ok_b[0], ok)


# ---------------------------------------------------------------- the whole trajectory vs plain PyTorch
# the default suite runs one case per optimizer; the others (4-9 s each) run in CI's slow step
@pytest.mark.parametrize("optimizer,loss,kernel", [
    ("adam", "mse", "grid"), pytest.param("adam", "mse", "gather", marks=pytest.mark.slow),
    pytest.param("adamw", "mse", "grid", marks=pytest.mark.slow),
    ("sgd", "mse", "gather"), pytest.param("adam", "ce", "grid", marks=pytest.mark.slow),
    ("adamw", "ce", "gather"),
])
def test_trajectory_matches_torch_optim_reference(optimizer, loss, kernel):
    sgd = optimizer == "sgd"
    cfg = TrainConfig(group="11", hidden=24, epochs=40, log_every=8, dtype="float64", optimizer=optimizer,
                      loss=loss, lr=0.05 if sgd else 0.01, momentum=0.9 if sgd else 0.0)
    res = train(cfg, [1, 2], weight_decays=[0.0, 0.02], progress=False, kernel=kernel)
    assert [(r.weight_decay, r.seed) for r in res] == [(0.0, 1), (0.0, 2), (0.02, 1), (0.02, 2)]
    for r in res:
        ref_hist, ref_W = reference_train(cfg, r.seed, r.weight_decay, (11,))
        assert r.history["epoch"] == [0, 8, 16, 24, 32, 40]
        np.testing.assert_allclose(hist_array(r), ref_hist, rtol=1e-9, atol=1e-12)
        for w, rw in zip((r.Wa, r.Wb, r.Wc), ref_W):
            torch.testing.assert_close(w, rw, rtol=1e-8, atol=1e-10)


# ---------------------------------------------------------------- batching
@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-10), ("float32", 1e-5)])
def test_batched_equals_single(dtype, rtol):
    cfg = TrainConfig(group="13", hidden=48, epochs=150, log_every=10, dtype=dtype)
    batched = train(cfg, [1, 2, 3], weight_decays=[0.0, 1e-3], progress=False)
    for r in batched:
        alone = train(cfg, [r.seed], weight_decays=[r.weight_decay], progress=False)[0]
        np.testing.assert_allclose(hist_array(r), hist_array(alone), rtol=rtol, atol=0)
        torch.testing.assert_close(r.Wa, alone.Wa, rtol=rtol * 10, atol=1e-6 if dtype == "float32" else 1e-12)
    # the models differ from each other (the batch is not one model repeated)
    assert len({r.final["train_loss"] for r in batched}) == len(batched)


def test_kernels_and_batch_size_do_not_change_results():
    cfg = TrainConfig(group="11", hidden=32, epochs=60, log_every=20, dtype="float64")
    ref = train(cfg, [4, 5, 6], progress=False, kernel="grid")
    for kw in ({"kernel": "gather"}, {"max_batch": 2}, {"max_batch": 1, "kernel": "gather"}):
        other = train(cfg, [4, 5, 6], progress=False, **kw)
        for r, o in zip(ref, other):
            np.testing.assert_allclose(hist_array(o), hist_array(r), rtol=1e-10)
    # a small training fraction picks the gather kernel; still the reference trajectory
    cfg = TrainConfig(group="11", hidden=16, epochs=20, log_every=5, test_fraction=0.6, dtype="float64")
    r = train(cfg, [1], progress=False)[0]
    assert r.kernel == "gather"
    np.testing.assert_allclose(hist_array(r), reference_train(cfg, 1, cfg.weight_decay, (11,))[0], rtol=1e-9)


def test_deterministic_and_final_metrics_are_those_of_final_weights():
    cfg = TrainConfig(group="11", hidden=32, epochs=50, log_every=7)
    r1, r2 = (train(cfg, [3], progress=False)[0] for _ in range(2))
    assert torch.equal(r1.Wa, r2.Wa) and r1.history == r2.history
    assert r1.history["epoch"] == [0, 7, 14, 21, 28, 35, 42, 49, 50]
    per, ok = reference_per_pair(r1.Wa.double(), r1.Wb.double(), r1.Wc.double(), (11,))
    assert r1.final["train_loss"] == pytest.approx(per[r1.train_idx].mean().item(), rel=1e-4)
    assert r1.final["test_loss"] == pytest.approx(per[r1.test_idx].mean().item(), rel=1e-4)
    assert r1.final["test_acc"] == pytest.approx(ok[r1.test_idx].double().mean().item())


# ---------------------------------------------------------------- issue 35: the start of training on a log axis
@pytest.mark.parametrize("kernel", ["grid", "gather"])
def test_log_early_records_the_start_and_changes_nothing_else(kernel):
    import dataclasses

    plain = TrainConfig(group="7", hidden=12, epochs=60, log_every=50, weight_decay=1e-3)
    early = dataclasses.replace(plain, log_early=True)
    a, b = (train(c, [1, 2], progress=False, kernel=kernel, threads=1) for c in (plain, early))
    for ra, rb in zip(a, b):
        assert ra.history["epoch"] == [0, 50, 60]
        assert rb.history["epoch"] == [0, 1, 2, 5, 10, 20, 50, 60]   # 1, 2, 5 x 10^k below log_every
        for w in ("Wa", "Wb", "Wc"):                                   # what is recorded never moves the weights
            assert torch.equal(getattr(ra, w), getattr(rb, w))
        for key in METRICS:
            assert [rb.history[key][i] for i in (0, 6, 7)] == ra.history[key]
        assert rb.history["train_loss"][1] != rb.history["train_loss"][0]   # a real record of epoch 1
    # the value recorded at epoch 5 is that of the weights after 5 updates: a 5-epoch run ends there
    five = train(dataclasses.replace(plain, epochs=5), [1, 2], progress=False, kernel=kernel, threads=1)
    for rb, r5 in zip(b, five):
        assert [rb.history[k][3] for k in METRICS] == [r5.final[k] for k in METRICS]


def test_log_early_is_checked_and_stops_below_log_every():
    with pytest.raises(ValueError, match="log_early must be True or False"):
        TrainConfig(group="7", log_early="yes").validate()
    assert TrainConfig(log_every=1000, log_early=True).early_log_epochs() == [1, 2, 5, 10, 20, 50, 100, 200, 500]
    assert TrainConfig(log_every=1000, epochs=30, log_early=True).early_log_epochs() == [1, 2, 5, 10, 20]
    assert TrainConfig(log_every=1000).early_log_epochs() == []


def test_demo_history_has_points_below_its_log_interval(tmp_path):
    from cogo.cli import build_parser
    from cogo.commands.experiment import grid_config

    demo = grid_config(build_parser().parse_args(["demo"])).train_config("23")
    assert demo.log_every == 50 and demo.early_log_epochs() == [1, 2, 5, 10, 20]
    out = tmp_path / "demo"
    assert main(["demo", "--groups", "7", "--seeds", "1", "--hidden", "12", "--epochs", "60", "--verify", "none",
                 "--out", str(out), "--no-progress"]) == 0
    (ckpt,) = out.rglob("*.pt")
    assert read_checkpoint(ckpt).meta["history"]["epoch"] == [0, 1, 2, 5, 10, 20, 50, 60]


# ---------------------------------------------------------------- convergence
def test_small_run_reaches_full_test_accuracy():  # about 3 s: part of the default run
    cfg = TrainConfig(group="13", hidden=128, epochs=3000)
    res = train(cfg, [1, 2], progress=False)
    for r in res:
        assert r.final["train_acc"] == 1.0
        assert r.final["test_acc"] == 1.0, r.final
        assert r.final["train_loss"] < 1e-2
        assert r.final["train_loss"] < 1e-2 * r.history["train_loss"][0]


def test_product_group_trains(tmp_path):
    out = tmp_path / "p"
    rc = main(["train", "--group", "3x5", "--hidden", "64", "--epochs", "400", "--seeds", "1-2",
               "--out", str(out), "--no-progress", "--plot"])
    assert rc == 0
    for seed in (1, 2):
        ck = torch.load(out / f"d3x5_q64_wd5e-05_seed{seed}.pt", weights_only=True)
        assert ck["meta"]["group"] == "3x5" and ck["meta"]["n"] == 15
        assert ck["meta"]["final"]["train_acc"] == 1.0
        assert ck["meta"]["history"]["train_loss"][-1] < 0.1 * ck["meta"]["history"]["train_loss"][0]
        W = [ck["model"][k].double() for k in ("layera.weight", "layerb.weight", "layerc.weight")]
        per, ok = reference_per_pair(*W, (3, 5))
        assert ok[ck["meta"]["train_idx"]].all()
    assert (out / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------- checkpoints
def test_checkpoint_round_trip(tmp_path):
    cfg = TrainConfig(group="11", hidden=20, epochs=30, log_every=10, snapshot_every=10, weight_decay=1e-3)
    res = train(cfg, [2, 9], progress=False)
    paths = save_run(res, tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["d11_q20_wd0.001_seed2.pt", "d11_q20_wd0.001_seed9.pt", "summary.json"]
    assert paths[-1].endswith("summary.json")
    for r, path in zip(res, paths):
        ck = torch.load(path, weights_only=True)
        m = ck["model"]
        assert m["layera.weight"].shape == (20, 11) and m["layerb.weight"].shape == (20, 11)
        assert m["layerc.weight"].shape == (11, 20)
        assert torch.equal(m["layera.weight"], r.Wa) and torch.equal(m["layerc.weight"], r.Wc)
        meta = ck["meta"]
        for key, value in [("group", "11"), ("hidden", 20), ("lr", 0.01), ("weight_decay", 1e-3), ("epochs", 30),
                           ("test_fraction", 0.1), ("loss", "mse"), ("optimizer", "adam"), ("dtype", "float32"),
                           ("seed", r.seed), ("snapshot_every", 10)]:
            assert meta[key] == value, key
        assert torch.equal(meta["train_idx"], split_pairs("11", 0.1, r.seed)[0])
        assert torch.equal(meta["test_idx"], split_pairs("11", 0.1, r.seed)[1])
        assert meta["final"] == r.final and meta["history"]["epoch"] == [0, 10, 20, 30]
        snaps = meta["snapshots"]
        assert snaps["epoch"] == [0, 10, 20, 30]
        assert snaps["layera.weight"].shape == (4, 20, 11) and snaps["layerc.weight"].shape == (4, 11, 20)
        assert torch.equal(snaps["layera.weight"][0], init_weights(20, 11, r.seed)[0])
        assert torch.equal(snaps["layerb.weight"][-1], r.Wb)
        lw = read_checkpoint(path)
        assert lw.group.label == "11" and lw.hidden == 20
        np.testing.assert_array_equal(lw.Wa, r.Wa.double().numpy())
        np.testing.assert_array_equal(lw.Wc, r.Wc.double().numpy())
        # the recorded final loss is the loss of the saved weights
        per, _ = reference_per_pair(*(torch.from_numpy(x) for x in (lw.Wa, lw.Wb, lw.Wc)), (11,))
        assert meta["final"]["train_loss"] == pytest.approx(per[meta["train_idx"]].mean().item(), rel=1e-4)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["group"] == "11" and summary["config"]["hidden"] == 20
    assert [m["seed"] for m in summary["models"]] == [2, 9]
    assert summary["models"][1]["test_acc"] == res[1].final["test_acc"]
    assert summary["models"][0]["file"] == "d11_q20_wd0.001_seed2.pt"


# ---------------------------------------------------------------- the command line
def test_cli_train_writes_table_and_files(tmp_path, capsys):
    out = tmp_path / "run" / "nested"
    rc = main(["train", "--group", "7", "--hidden", "16", "--epochs", "20", "--seeds", "1,3", "--wd", "0", "1e-3",
               "--optimizer", "adamw", "--loss", "ce", "--dtype", "float64", "--log-every", "5", "--out", str(out),
               "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "test_acc" in text and "summary.json" in text
    names = sorted(p.name for p in out.iterdir())
    assert names == ["d7_q16_wd0.001_seed1.pt", "d7_q16_wd0.001_seed3.pt", "d7_q16_wd0_seed1.pt",
                     "d7_q16_wd0_seed3.pt", "summary.json"]
    meta = torch.load(out / "d7_q16_wd0.001_seed3.pt", weights_only=True)["meta"]
    assert (meta["optimizer"], meta["loss"], meta["dtype"], meta["log_every"]) == ("adamw", "ce", "float64", 5)
    assert meta["seed"] == 3 and meta["weight_decay"] == 1e-3


def _blocked_dir(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    return blocker / "sub"


@pytest.mark.parametrize("extra,needle", [
    (["--optimizer", "rmsprop"], "argument --optimizer: invalid choice"),
    (["--loss", "hinge"], "argument --loss: invalid choice"),
    (["--hidden", "0"], "hidden size"),
    (["--test-fraction", "0"], "test fraction"),
    (["--test-fraction", "1"], "test fraction"),
    (["--test-fraction", "1.5"], "test fraction"),
    (["--group", "3", "--test-fraction", "0.95"], "leaves"),
    (["--epochs", "-1"], "epochs"),
    (["--lr", "0"], "learning rate"),
    (["--wd", "-1"], "weight decay"),
    (["--wd", "1e-4", "1e-4"], "duplicate weight decays"),
    (["--dtype", "float16"], "argument --dtype: invalid choice"),
    (["--group", "2x"], "cannot parse group"),
    (["--log-every", "0"], "log-every"),
    (["--device", "tpu"], "device"),
    (["--momentum", "0.9"], "momentum"),
    (["--threads", "0"], "threads"),
    (["--max-batch", "0"], "max batch"),
    (["--kernel", "fast"], "argument --kernel: invalid choice"),
])
def test_cli_bad_input_is_one_line_error_before_any_work(tmp_path, capsys, monkeypatch, extra, needle):
    def no_training(*a, **k):  # pragma: no cover - must not be reached
        raise AssertionError("training started despite bad input")

    monkeypatch.setattr(T, "_train_batch", no_training)
    out = tmp_path / "out"
    rc = main(["train", "--epochs", "5", "--out", str(out), "--no-progress"] + extra)
    err = capsys.readouterr().err
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cogo: error:"), err
    assert needle in lines[0]
    assert not out.exists()


def test_cli_unwritable_output_dir(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(T, "_train_batch", lambda *a, **k: pytest.fail("training started"))
    rc = main(["train", "--epochs", "5", "--out", str(_blocked_dir(tmp_path)), "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("cogo: error:") and "output directory" in err[0]
    if hasattr(os, "geteuid") and os.geteuid() != 0:  # root ignores permission bits
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        try:
            rc = main(["train", "--epochs", "5", "--out", str(ro), "--no-progress"])
            assert rc == 2 and "not writable" in capsys.readouterr().err
        finally:
            ro.chmod(0o700)


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available here")
def test_cli_missing_cuda(tmp_path, capsys):
    rc = main(["train", "--device", "cuda", "--epochs", "5", "--out", str(tmp_path / "o"), "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "CUDA is not available" in err[0]
    assert not (tmp_path / "o").exists()


def test_library_validation():
    with pytest.raises(ValueError, match="duplicate seeds"):
        train(TrainConfig(group="5", hidden=4, epochs=1), [1, 1], progress=False)
    with pytest.raises(ValueError, match="unknown kernel"):
        train(TrainConfig(group="5", hidden=4, epochs=1), [1], progress=False, kernel="fast")
    with pytest.raises(ValueError, match="working memory"):
        T.validate_run(TrainConfig(group="4096", hidden=4096), [1])
    assert TrainConfig().validate() == TrainConfig()
    d = TrainConfig()
    assert (d.group, d.hidden, d.lr, d.weight_decay, d.epochs, d.test_fraction, d.loss, d.optimizer, d.dtype,
            d.device) == ("23", 512, 0.01, 5e-5, 10000, 0.1, "mse", "adam", "float32", "cpu")


# --------------------------------------------------------------------------- torch.optim vs the hand-written optimizers
class HandWritten:
    """The elementwise Adam / AdamW / SGD that _Batch used before it called torch.optim (kept as the reference)."""

    def __init__(self, batch):
        self.b, self.t, self.buf = batch, 0, None
        self.exp_avg = torch.zeros_like(batch.P)
        self.exp_avg_sq = torch.zeros_like(batch.P)

    @torch.no_grad()
    def step(self):
        b, cfg = self.b, self.b.cfg
        P, g = b.P, b.grad
        self.t += 1
        if cfg.optimizer == "sgd":
            g.addcmul_(P, b.wd)
            if cfg.momentum != 0.0:
                self.buf = g.clone() if self.buf is None else self.buf.mul_(cfg.momentum).add_(g)
                g = self.buf
            P.add_(g, alpha=-cfg.lr)
            return
        beta1, beta2 = cfg.betas
        if cfg.optimizer == "adam":
            g.addcmul_(P, b.wd)
        else:
            P.mul_(b.decay)
        self.exp_avg.lerp_(g, 1 - beta1)
        self.exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        denom = torch.sqrt(self.exp_avg_sq).div_((1 - beta2 ** self.t) ** 0.5).add_(cfg.eps)
        P.addcdiv_(self.exp_avg, denom, value=-cfg.lr / (1 - beta1 ** self.t))


@pytest.mark.parametrize("optimizer,momentum,dtype", [   # three of five in the default suite, all in CI's slow step
    pytest.param("adam", 0.0, "float32", marks=pytest.mark.slow), ("adamw", 0.0, "float32"),
    pytest.param("sgd", 0.0, "float32", marks=pytest.mark.slow), ("sgd", 0.9, "float32"),
    ("adam", 0.0, "float64"),
])
def test_torch_optim_is_bit_identical_to_the_hand_written_optimizers(optimizer, momentum, dtype):
    """Per-model weight decay (0, 1e-3, 5e-2 in one batch) through torch.optim: every weight equal, bit for bit."""
    cfg = TrainConfig(group="7", hidden=12, epochs=0, lr=0.05 if optimizer == "sgd" else 0.01,
                      optimizer=optimizer, momentum=momentum, dtype=dtype)
    models = [(0.0, 1), (1e-3, 2), (5e-2, 3)]
    ours = _Batch(cfg, models, torch.device("cpu"), "grid")
    ref = _Batch(cfg, models, torch.device("cpu"), "grid")
    hand = HandWritten(ref)
    assert torch.equal(ours.P, ref.P)
    for _ in range(60):
        ours.gradient()
        ours.step()
        ref.gradient()
        hand.step()
    assert torch.equal(ours.P, ref.P)
    assert not torch.equal(ours.P[:, 0], _Batch(cfg, models, torch.device("cpu"), "grid").P[:, 0])  # it moved


def test_per_model_weight_decay_is_each_models_own():
    """A batch with decays (0, 5e-2) gives model 1 the trajectory it has alone: the decay is not shared."""
    cfg = TrainConfig(group="7", hidden=12, epochs=0, optimizer="adamw", dtype="float64")
    pair = _Batch(cfg, [(0.0, 1), (5e-2, 1)], torch.device("cpu"), "grid")
    alone = _Batch(cfg, [(5e-2, 1)], torch.device("cpu"), "grid")
    for _ in range(30):
        for b in (pair, alone):
            b.gradient()
            b.step()
    assert torch.allclose(pair.P[:, 1], alone.P[:, 0], rtol=1e-12, atol=0)
    assert not torch.allclose(pair.P[:, 0], pair.P[:, 1])
