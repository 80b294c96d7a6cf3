"""Benchmark: batched training of many models versus a loop of single-model runs (SPEC 1).

Measures model-epochs per second for ``--seeds`` models (default 8) at
``d = --group`` (default 23), ``q = --hidden`` (default 512), in three ways,
all in this process, with the same number of epochs and the same metric
logging (full-data loss and accuracy every ``--log-every`` epochs):

* ``batched``: one call ``cogo.solvers.training.train(cfg, seeds)``, all models
  in one batched tensor program;
* ``loop``: ``train(cfg, [seed])`` once per seed: the same code, one model at a time;
* ``batched_autograd``: the same batched program (stacked weights, all pairs,
  test pairs masked, ``torch.optim.Adam``) with the gradient from autograd
  instead of the hand-written backward;
* ``optimizer_step``: one ``torch.optim`` Adam step on the stacked tensor (as
  training does it) against the hand-written elementwise Adam it replaced;
* ``reference_loop``: a conventional single-model PyTorch script, once per seed:
  ``nn.Linear`` layers applied to one-hot inputs, autograd and ``torch.optim.Adam``
  (the way the reference experiment is usually written).

Each measurement is repeated ``--repeats`` times after a warm-up; the median
wall time is reported.  ``--grid`` instead times the batched training of 5 seeds
at defaults for d in {23, 71, 127} (meant for a GPU: ``--device cuda``).

Usage::

    python benchmarks/bench_training.py [--device cpu] [--epochs 200] [--out benchmarks/results/training.json]
    python benchmarks/bench_training.py --grid --device cuda [--epochs 10000]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

from cogo import __version__
from cogo.algebra.group_parsing import parse_group
from cogo.io.outputs import atomic_write_text
from cogo.solvers.batch import init_weights, pair_targets, split_pairs
from cogo.solvers.training import train, validate_run
from cogo.solvers.training_config import TrainConfig


def machine_info(device: str) -> dict:
    info = {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "python": sys.version.split()[0],
        "cpu_count": os.cpu_count(),
        "torch_version": str(torch.__version__),
        "torch_num_threads": torch.get_num_threads(),
        "mkl": torch.backends.mkl.is_available(),
        "cogo_version": __version__,
        "device": device,
        "load_average_1_5_15": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    if device.startswith("cuda"):
        info["cuda_device"] = torch.cuda.get_device_name(torch.device(device))
        info["cuda_version"] = torch.version.cuda
    return info


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def reference_single(cfg: TrainConfig, seed: int) -> float:
    """A conventional single-model run (nn.Linear on one-hot inputs, autograd, torch.optim.Adam).

    Same initialization, split, loss, optimizer and logging as :func:`train`; returns the
    final training loss.
    """
    nn, F = torch.nn, torch.nn.functional
    G = parse_group(cfg.group)
    n, q = G.order, cfg.hidden
    dev, dt = torch.device(cfg.device), cfg.torch_dtype
    torch.manual_seed(seed)
    layers = [nn.Linear(n, q, bias=False), nn.Linear(n, q, bias=False), nn.Linear(q, n, bias=False)]
    la, lb, lc = (layer.to(dev, dt) for layer in layers)
    tr, _ = split_pairs(G, cfg.test_fraction, seed)
    a, b, c = (t.to(dev) for t in pair_targets(G))
    Xa, Xb = F.one_hot(a, n).to(dt), F.one_hot(b, n).to(dt)
    Y = F.one_hot(c, n).to(dt) - 1.0 / n
    tr = tr.to(dev)
    opt = torch.optim.Adam([la.weight, lb.weight, lc.weight], lr=cfg.lr, weight_decay=cfg.weight_decay)

    def per_pair(idx=None):
        xa, xb, y = (Xa, Xb, Y) if idx is None else (Xa[idx], Xb[idx], Y[idx])
        o = lc((la(xa) + lb(xb)) ** 2)
        return ((o - o.mean(-1, keepdim=True) - y) ** 2).sum(-1), o

    last = float("nan")
    for epoch in range(cfg.epochs + 1):
        if epoch % cfg.log_every == 0 or epoch == cfg.epochs:
            with torch.no_grad():
                per, o = per_pair()
                mask = torch.zeros(n * n, dtype=torch.bool, device=dev)
                mask[tr] = True
                last = per[mask].mean().item()
                (o.argmax(-1) == c)[~mask].double().mean().item()
        if epoch == cfg.epochs:
            break
        opt.zero_grad(set_to_none=True)
        per, _ = per_pair(tr)
        per.mean().backward()
        opt.step()
    return last


def batched_autograd(cfg: TrainConfig, seeds: list[int], weight_decay: float) -> list[float]:
    """The batched program of :func:`train` (grid kernel: all pairs, test pairs masked) with an autograd backward.

    Same initialization, split, loss, per-model L2 weight decay, ``torch.optim.Adam`` and metric
    logging; returns each model's final training loss.
    """
    G = parse_group(cfg.group)
    n, q, M = G.order, cfg.hidden, len(seeds)
    dev, dt = torch.device(cfg.device), cfg.torch_dtype
    P = torch.empty(3, M, n, q, dtype=dt)
    mask = torch.zeros(M, n * n, dtype=dt)
    for m, s in enumerate(seeds):
        Wa, Wb, Wc = init_weights(q, n, s)
        P[0, m], P[1, m], P[2, m] = Wa.t(), Wb.t(), Wc
        mask[m, split_pairs(G, cfg.test_fraction, s)[0]] = 1.0
    P = P.to(dev).requires_grad_(True)
    mask = mask.to(dev)
    N = mask[0].sum()
    _, _, c = pair_targets(G)
    T = (torch.nn.functional.one_hot(c, n).to(dt) - 1.0 / n).to(dev)
    opt = torch.optim.Adam([P], lr=cfg.lr, betas=cfg.betas, eps=cfg.eps)
    last = [float("nan")] * M
    for epoch in range(cfg.epochs + 1):
        h = P[0].unsqueeze(2) + P[1].unsqueeze(1)                               # (M, n, n, q)
        o = torch.bmm((h * h).view(M, n * n, q), P[2].transpose(1, 2))          # (M, n^2, n)
        r = o - o.mean(-1, keepdim=True) - T
        per = (r * r).sum(-1)                                                   # (M, n^2)
        if epoch % cfg.log_every == 0 or epoch == cfg.epochs:
            with torch.no_grad():
                last = ((per * mask).sum(1) / N).tolist()
                ((o.argmax(-1) == c.to(dev)).to(dt) * (1 - mask)).sum(1).tolist()
        if epoch == cfg.epochs:
            break
        opt.zero_grad(set_to_none=True)
        ((per * mask).sum(1) / N).sum().backward()
        with torch.no_grad():
            P.grad.add_(P, alpha=weight_decay)                                  # L2, as train() does per model
        opt.step()
    return last


def hand_written_adam_step(P, g, exp_avg, exp_avg_sq, t, lr=0.01, betas=(0.9, 0.999), eps=1e-8):
    """The elementwise Adam that training used before torch.optim (bit-identical, tests/solvers/test_training.py)."""
    beta1, beta2 = betas
    exp_avg.lerp_(g, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2)
    denom = torch.sqrt(exp_avg_sq).div_((1 - beta2 ** t) ** 0.5).add_(eps)
    P.addcdiv_(exp_avg, denom, value=-lr / (1 - beta1 ** t))


def bench_optimizer_step(cfg: TrainConfig, M: int, steps: int = 200) -> dict:
    """Seconds per Adam step on the stacked (3, M, n, q) tensor: torch.optim vs the hand-written update."""
    n = parse_group(cfg.group).order
    gen = torch.Generator().manual_seed(0)
    shape = (3, M, n, cfg.hidden)
    P1 = torch.randn(shape, generator=gen, dtype=cfg.torch_dtype)
    G = torch.randn(shape, generator=gen, dtype=cfg.torch_dtype)
    P2 = P1.clone()
    P1.grad = G
    opt = torch.optim.Adam([P1], lr=cfg.lr, foreach=True)  # as training constructs it
    m, v = torch.zeros_like(P2), torch.zeros_like(P2)
    out = {}
    for name, step in (("torch_optim", lambda t: opt.step()),
                       ("hand_written", lambda t: hand_written_adam_step(P2, G, m, v, t, cfg.lr))):
        walls = []
        for rep in range(3):
            t0 = time.perf_counter()
            for t in range(1, steps + 1):
                step(rep * steps + t)
            walls.append((time.perf_counter() - t0) / steps)
        out[name + "_s_per_step"] = statistics.median(walls)
    out["identical_after_steps"] = bool(torch.equal(P1, P2))
    out["shape"] = list(shape)
    return out


def timed(fn, repeats: int, device: str) -> tuple[float, list[float], object]:
    walls, out = [], None
    for _ in range(repeats):
        _sync(device)
        t0 = time.perf_counter()
        out = fn()
        _sync(device)
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls), walls, out


def bench_batched_vs_loop(args) -> dict:
    seeds = list(range(1, args.seeds + 1))
    cfg = TrainConfig(group=args.group, hidden=args.hidden, epochs=args.epochs, device=args.device,
                      log_every=args.log_every)
    validate_run(cfg, seeds)
    # warm-up (allocator, thread pool, kernels)
    train(dataclass_replace(cfg, epochs=min(20, args.epochs)), seeds, progress=False, threads=args.threads)
    train(dataclass_replace(cfg, epochs=min(20, args.epochs)), seeds[:1], progress=False, threads=args.threads)
    me = args.seeds * args.epochs
    out: dict = {"config": {**cfg.hyperparameters(), "seeds": seeds, "repeats": args.repeats}}

    wall, walls, res_b = timed(lambda: train(cfg, seeds, progress=False, threads=args.threads), args.repeats,
                               args.device)
    out["batched"] = {"wall_s": wall, "walls_s": walls, "model_epochs_per_s": me / wall, "kernel": res_b[0].kernel,
                      "threads": res_b[0].threads}

    def loop():
        return [r for s in seeds for r in train(cfg, [s], progress=False, threads=args.threads)]

    wall, walls, res_l = timed(loop, args.repeats, args.device)
    out["loop"] = {"wall_s": wall, "walls_s": walls, "model_epochs_per_s": me / wall}
    rel = max(abs(rb.final["train_loss"] - rl.final["train_loss"]) / abs(rl.final["train_loss"])
              for rb, rl in zip(res_b, res_l))
    out["batched_vs_loop_final_train_loss_max_rel_diff"] = rel
    out["ratio_batched_vs_loop"] = out["batched"]["model_epochs_per_s"] / out["loop"]["model_epochs_per_s"]

    wall, walls, res_a = timed(lambda: batched_autograd(cfg, seeds, cfg.weight_decay), args.repeats, args.device)
    out["batched_autograd"] = {"wall_s": wall, "walls_s": walls, "model_epochs_per_s": me / wall,
                               "what": "the same batched program, gradient by autograd, torch.optim.Adam"}
    out["batched_autograd_vs_batched_final_train_loss_max_rel_diff"] = max(
        abs(r.final["train_loss"] - x) / abs(x) for r, x in zip(res_b, res_a))
    out["ratio_batched_vs_batched_autograd"] = (out["batched"]["model_epochs_per_s"]
                                                / out["batched_autograd"]["model_epochs_per_s"])
    if args.device == "cpu":
        out["optimizer_step"] = bench_optimizer_step(cfg, len(seeds))

    if not args.no_reference:
        def ref_loop():
            return [reference_single(cfg, s) for s in seeds]

        wall, walls, res_r = timed(ref_loop, max(1, args.repeats - 1), args.device)
        out["reference_loop"] = {"wall_s": wall, "walls_s": walls, "model_epochs_per_s": me / wall,
                                 "what": "nn.Linear on one-hot inputs + autograd + torch.optim.Adam, one model at a time"}
        out["reference_vs_batched_final_train_loss_max_rel_diff"] = max(
            abs(r.final["train_loss"] - x) / abs(x) for r, x in zip(res_b, res_r))
        out["ratio_batched_vs_reference_loop"] = (out["batched"]["model_epochs_per_s"]
                                                  / out["reference_loop"]["model_epochs_per_s"])
    return out


def bench_grid(args) -> dict:
    rows = []
    for d in (23, 71, 127):
        cfg = TrainConfig(group=str(d), hidden=args.hidden, epochs=args.epochs, device=args.device,
                          log_every=args.log_every)
        seeds = list(range(1, 6))
        validate_run(cfg, seeds)
        _sync(args.device)
        t0 = time.perf_counter()
        res = train(cfg, seeds, progress=not args.no_progress, threads=args.threads)
        _sync(args.device)
        wall = time.perf_counter() - t0
        rows.append({"d": d, "seeds": seeds, "epochs": args.epochs, "wall_s": wall,
                     "model_epochs_per_s": len(seeds) * args.epochs / wall, "kernel": res[0].kernel,
                     "final": [r.final for r in res]})
        print(f"d={d}: {wall:.1f} s for 5 x {args.epochs} epochs; "
              f"test acc {[r.final['test_acc'] for r in res]}", flush=True)
    return {"grid": rows, "config": {"hidden": args.hidden, "epochs": args.epochs, "log_every": args.log_every}}


def dataclass_replace(cfg: TrainConfig, **kw) -> TrainConfig:
    import dataclasses

    return dataclasses.replace(cfg, **kw)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cpu")
    p.add_argument("--epochs", type=int, default=None, help="epochs per model (default 200; --grid: 10000)")
    p.add_argument("--group", default="23")
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--seeds", type=int, default=8, help="number of models (seeds 1..N)")
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=None,
                   help="CPU threads for training (default: the thread policy, cogo.runtime.threads.choose_threads)")
    p.add_argument("--no-reference", action="store_true", help="skip the conventional nn.Module baseline")
    p.add_argument("--grid", action="store_true", help="time d in {23, 71, 127} x 5 seeds at defaults instead")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--out", default=None, help="JSON file (default benchmarks/results/training[_grid].json)")
    args = p.parse_args(argv)
    if args.epochs is None:
        args.epochs = 10000 if args.grid else 200
    out = Path(args.out or Path(__file__).parent / "results" / ("training_grid.json" if args.grid else "training.json"))
    out.parent.mkdir(parents=True, exist_ok=True)
    result = {"benchmark": "training_grid" if args.grid else "training_batched_vs_loop",
              "machine": machine_info(args.device)}
    result.update(bench_grid(args) if args.grid else bench_batched_vs_loop(args))
    text = json.dumps(result, indent=2)
    atomic_write_text(out, text + "\n")
    print(text)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
