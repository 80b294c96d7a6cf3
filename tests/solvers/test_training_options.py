"""Tests of the training options (cogo.solvers.training_options): activation, Muon, minibatches,
label noise, the ridge top layer.

Each option is compared with an independent reference: a plain autograd training loop
on one-hot matmuls straight from SPEC 1 (float64), with ``torch.optim`` optimizers, the
documented minibatch order and label draw, and the ridge solution computed in numpy.
Each test also checks that ignoring the option would change the result.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from cogo.io.weights import read_checkpoint
from cogo.cli import main
from cogo.solvers.batch import init_weights, split_pairs
from cogo.solvers.training import train
from cogo.solvers.training_config import TrainConfig
from cogo.solvers.training_results import save_run
from cogo.solvers.training_options import corrupt_labels, minibatch_order

N_GROUP, Q, EPOCHS = 7, 12, 6


def _act(h, name):
    return {"sqr": lambda x: x ** 2, "relu": torch.relu, "silu": lambda x: x * torch.sigmoid(x),
            "relusqr": lambda x: torch.relu(x) ** 2}[name](h)


def reference(cfg: TrainConfig, seed: int, wd: float, epochs: int):
    """Autograd + torch.optim on one-hot matmuls (SPEC 1), float64: final (Wa, Wb, Wc) and noisy pairs."""
    n, q = N_GROUP, cfg.hidden
    Wa0, Wb0, Wc0 = (w.double() for w in init_weights(q, n, seed))
    tr, _ = split_pairs(n, cfg.test_fraction, seed)
    p = torch.arange(n * n)
    a, b = p // n, p % n
    c = (a + b) % n
    c_used = c.clone()
    noisy = None
    if cfg.label_noise:
        pos, lab = corrupt_labels(c[tr], n, cfg.label_noise, seed)
        c_used[tr[pos]] = lab
        noisy = (tr[pos], lab)
    X = torch.cat([F.one_hot(a, n), F.one_hot(b, n)], 1).double()                 # (n^2, 2n)
    Y = F.one_hot(c_used, n).double() - 1.0 / n
    W = torch.cat([Wa0, Wb0], 1).clone().requires_grad_(True)                      # (q, 2n)
    Wc = Wc0.clone().requires_grad_(True)
    if cfg.optimizer == "muon":
        opts = [torch.optim.Muon([W], lr=cfg.lr, weight_decay=wd), torch.optim.Adam([Wc], lr=cfg.lr, weight_decay=wd)]
    else:
        opts = [torch.optim.Adam([W, Wc], lr=cfg.lr, weight_decay=wd)]

    def features(idx):
        return _act(X[idx] @ W.T, cfg.activation)

    def ridge():
        Fn = features(tr).detach().numpy()
        sol = np.linalg.solve(Fn.T @ Fn + cfg.ridge * np.eye(q), Fn.T @ Y[tr].numpy())
        with torch.no_grad():
            Wc.copy_(torch.from_numpy(sol.T))

    gen = minibatch_order(len(tr), seed) if cfg.batch_size else None
    for _ in range(epochs):
        batches = [tr]
        if gen is not None:
            order = tr[torch.randperm(len(tr), generator=gen)]
            batches = [order[i:i + cfg.batch_size] for i in range(0, len(tr), cfg.batch_size)]
        for idx in batches:
            if cfg.top == "ridge":
                ridge()
            o = features(idx) @ Wc.T
            r = o - o.mean(1, keepdim=True) - Y[idx]
            loss = (r * r).sum(1).mean()
            for opt in opts:
                opt.zero_grad()
            loss.backward()
            if cfg.top == "ridge":
                Wc.grad = None
            for opt in opts:
                opt.step()
    if cfg.top == "ridge":
        ridge()
    n_ = n
    Wd = W.detach()
    return (Wd[:, :n_], Wd[:, n_:], Wc.detach()), noisy


def _cfg(**kw):
    base = dict(group=str(N_GROUP), hidden=Q, epochs=EPOCHS, lr=0.01, weight_decay=1e-3, dtype="float64",
                log_every=EPOCHS, test_fraction=0.3)
    base.update(kw)
    return TrainConfig(**base)


def _trained(cfg, seed=3, threads=1):
    return train(cfg, seeds=[seed], weight_decays=[cfg.weight_decay], progress=False, threads=threads)[0]


def _maxdiff(r, ref):
    return max(float((x.double() - y).abs().max()) for x, y in zip((r.Wa, r.Wb, r.Wc), ref))


OPTIONS = [dict(activation="relu"), dict(activation="silu"), dict(activation="relusqr"),
           dict(optimizer="muon"), dict(batch_size=10), dict(label_noise=0.3), dict(top="ridge", ridge=0.05),
           dict(activation="relu", optimizer="muon", batch_size=13, label_noise=0.2, top="ridge")]


@pytest.mark.parametrize("kw", OPTIONS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_option_matches_reference_and_is_not_ignored(kw):
    cfg = _cfg(**kw)
    r = _trained(cfg)
    ref, _ = reference(cfg, 3, cfg.weight_decay, EPOCHS)
    assert _maxdiff(r, ref) < 1e-9
    # the option matters: the reference setting (every option off) gives other weights
    plain, _ = reference(_cfg(), 3, cfg.weight_decay, EPOCHS)
    assert _maxdiff(r, plain) > 1e-4


@pytest.mark.parametrize("kw", [pytest.param(kw, marks=pytest.mark.slow) if "batch_size" in kw else kw  # 6-9 s each: CI's slow step
                                for kw in OPTIONS[:1] + OPTIONS[3:]],
                         ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_options_bit_identical_across_thread_counts(kw):
    cfg = _cfg(group="11", hidden=24, epochs=20, dtype="float32", **kw)
    r1 = train(cfg, seeds=[1, 2], weight_decays=[0.0, 1e-3], progress=False, threads=1)
    r2 = train(cfg, seeds=[1, 2], weight_decays=[0.0, 1e-3], progress=False, threads=2)
    for x, y in zip(r1, r2):
        for u, v in zip((x.Wa, x.Wb, x.Wc), (y.Wa, y.Wb, y.Wc)):
            assert torch.equal(u, v)


def test_options_batched_equals_alone():
    """A model's trajectory does not depend on the other models of its batch (every option at once)."""
    cfg = _cfg(**OPTIONS[-1])
    both = train(cfg, seeds=[1, 3], weight_decays=[1e-3], progress=False, threads=1)
    alone = _trained(cfg, seed=3)
    assert _maxdiff(both[1], (alone.Wa.double(), alone.Wb.double(), alone.Wc.double())) < 1e-12


def test_ridge_top_is_the_closed_form_on_final_features():
    cfg = TrainConfig(group="11", hidden=32, epochs=60, lr=0.01, top="ridge", ridge=1e-3, log_every=60)
    r = _trained(cfg, seed=2)
    n = 11
    Wa, Wb, Wc = (x.double().numpy() for x in (r.Wa, r.Wb, r.Wc))
    tr = r.train_idx.numpy()
    a, b = tr // n, tr % n
    Fm = (Wa[:, a] + Wb[:, b]).T ** 2                                            # (N, q) final features
    Y = np.eye(n)[(a + b) % n] - 1.0 / n
    sol = np.linalg.solve(Fm.T @ Fm + 1e-3 * np.eye(32), Fm.T @ Y).T             # (n, q)
    assert np.abs(Wc - sol).max() <= 1e-6 * max(1.0, np.abs(sol).max())
    trained = _trained(TrainConfig(group="11", hidden=32, epochs=60, lr=0.01, log_every=60), seed=2)
    assert np.abs(trained.Wc.double().numpy() - sol).max() > 1e-3             # a trained top is not that


def test_ridge_needs_mse_and_positive_eta():
    with pytest.raises(ValueError, match="--loss mse"):
        _cfg(top="ridge", loss="ce").validate()
    with pytest.raises(ValueError, match="ridge must be"):
        _cfg(top="ridge", ridge=0.0).validate()
    with pytest.raises(ValueError, match="batch size"):
        _cfg(batch_size=10_000).validate()
    with pytest.raises(ValueError, match="label noise"):
        _cfg(label_noise=1.0).validate()
    with pytest.raises(ValueError, match="activation"):
        _cfg(activation="tanh").validate()


def test_label_noise_recorded_and_reported_apart(tmp_path):
    cfg = TrainConfig(group="11", hidden=48, epochs=400, lr=0.02, label_noise=0.2, log_every=400)
    r = _trained(cfg, seed=1)
    N = len(r.train_idx)
    pairs, labels = r.extra["label_noise"]["pairs"], r.extra["label_noise"]["labels"]
    assert len(pairs) == round(0.2 * N) and bool(torch.isin(pairs, r.train_idx).all())
    true = (pairs // 11 + pairs % 11) % 11
    assert bool((labels != true).all())
    f = r.final
    # the network memorizes the wrong labels: corrupted pairs match the corrupted label, not the true one
    assert f["corrupted_acc_noisy_label"] > 0.9 and f["corrupted_acc_true_label"] < 0.1
    assert f["clean_train_acc"] > 0.9
    path = save_run(r, tmp_path)[0]
    w = read_checkpoint(path)
    # the .pt is read without torch (cogo.io.ptzip): the recorded tensors come back as arrays of the same values
    assert w.meta["label_noise"]["pairs"].tolist() == pairs.tolist()
    assert w.meta["label_noise"]["labels"].tolist() == labels.tolist()


def test_activation_recorded_and_honoured_by_classify(tmp_path, capsys):
    assert main(["train", "--group", "7", "--hidden", "16", "--epochs", "50", "--activation", "relu",
                 "--out", str(tmp_path), "--no-progress"]) == 0
    path = next(tmp_path.glob("*.pt"))
    assert read_checkpoint(path).activation == "relu"
    capsys.readouterr()
    assert main(["classify", str(path), "--no-progress", "--json", str(tmp_path / "c.json")]) == 0
    out = capsys.readouterr().out
    assert "activation relu" in out and "no catalogue form is named" in out and "dominant" in out
    assert "z_" not in out and "non-factorable" not in out                      # no catalogue form named
    assert main(["verify", "--checkpoint", str(path)]) == 1                      # no verdict for relu
    assert "verdict: none" in capsys.readouterr().out
    # an sqr run is read with the catalogue, and says so
    assert main(["classify", str(path), "--no-progress", "--activation", "sqr"]) == 0
    assert "activation sqr" in capsys.readouterr().out


@pytest.mark.parametrize("kw", [dict(optimizer="muon", batch_size=16), dict(top="ridge", label_noise=0.2,
                                                                             activation="silu")],
                         ids=["muon+batch", "ridge+noise+silu"])
def test_resume_with_options_is_bit_identical(tmp_path, monkeypatch, kw):
    from cogo.solvers.training_options import OptionsBatch

    cfg = _cfg(group="7", epochs=60, dtype="float32", **kw)
    run = dict(seeds=[1, 2], weight_decays=[1e-3], progress=False, threads=1, resume_every=20)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ref = train(cfg, snapshot_dir=tmp_path / "a", **run)
    cls = OptionsBatch
    real, calls = cls.step, {"n": 0}

    def step(self):
        calls["n"] += 1
        if calls["n"] > 45:
            raise KeyboardInterrupt
        return real(self)

    monkeypatch.setattr(cls, "step", step)
    with pytest.raises(KeyboardInterrupt):
        train(cfg, snapshot_dir=tmp_path / "b", **run)
    monkeypatch.undo()
    res = train(cfg, snapshot_dir=tmp_path / "b", resume=True, **run)
    for r0, r1 in zip(ref, res):
        for a, b in ((r0.Wa, r1.Wa), (r0.Wb, r1.Wb), (r0.Wc, r1.Wc)):
            assert torch.equal(a, b)
