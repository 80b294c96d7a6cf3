"""The reference sweep on one GPU: train it, time it against the device's limits, classify it.

The sweep is the reference code's own (``sweep.log`` beside ``modular_addition_simple2.py`` in
facebookresearch/luckmatters, ssl/real-dataset/cogo, commit ba2de90): d in {23, 71, 127},
q in {256, 512, 1024, 2048}, weight decay in {1e-5, 5e-5, 1e-4, 2e-4, 5e-4}, seeds 1-5, Adam
lr 0.01, 10000 full-batch epochs, MSE, 10% of the pairs held out: 300 runs.  cogo trains each
(d, q) cell as ONE batched program holding its 25 (weight decay, seed) models
(:func:`cogo.solvers.training.train`), so the sweep is 12 programs.

What it measures, per cell:

* a probe of ``--probe-epochs`` epochs first (after a warm-up), for every cell: seconds per
  epoch, model-epochs per second and the achieved TFLOP/s of the training step, counted as
  ``6 n^3 q`` floating-point operations per model and epoch (the three batched products of the
  all-pairs kernel: ``o = W_c h^2``, ``dW_c = g^T h^2``, ``dh^2 = g W_c``, each ``2 n^2 q n``),
  against the device's measured dense float32 matrix-product rate;
* then the full runs, cheapest-first within the priority order (the reference cells q = 512
  first), for as long as the probe's prediction fits the time budget (``--budget`` seconds of
  training); a cell that does not fit is reported with its predicted time, never silently dropped;
* the classification of every trained checkpoint with ``--preset paper`` (on the machine's CPU
  cores, one process per cell), aggregated per cell and per d.

Usage (on a machine with a CUDA device; the device tool's lease runs it in one call)::

    python benchmarks/bench_gpu_sweep.py --out $OUT --budget 330

It writes ``OUT/gpu_sweep.json`` and ``OUT/reference_checkpoints.tar`` (the q = 512, wd = 5e-5
checkpoints, for re-checking the table on another machine).  Copy the JSON to
``benchmarks/results/gpu_sweep.json`` to commit it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tarfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import machine_info  # noqa: E402

GROUPS = (23, 71, 127)
HIDDEN = (256, 512, 1024, 2048)
WDS = (1e-5, 5e-5, 1e-4, 2e-4, 5e-4)
SEEDS = (1, 2, 3, 4, 5)
REFERENCE = {"hidden": 512, "wd": 5e-5}      # the reference setting (cogo demo's), the table's cell

#: The published CoGO table rows (percent of order-4/6 blocks), columns as cogo's paper_columns.
PUBLISHED = {
    "23": {"nu=i*xi": 47.1, "nu=i*syn_ab": 11.3, "nu*syn": 39.8, "others": 1.8},
    "71": {"nu=i*xi": 72.57, "nu=i*syn_ab": 4.00, "nu*syn": 21.14, "others": 2.29},
}


def matmul_peak(dtype_name: str, n: int = 8192, reps: int = 10) -> float:
    """Dense n x n x n matrix-product rate on the device (TFLOP/s), random data, median of ``reps``."""
    import torch

    dt = getattr(torch, dtype_name)
    a = torch.randn(n, n, device="cuda", dtype=dt)
    b = torch.randn(n, n, device="cuda", dtype=dt)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        a @ b
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    times.sort()
    return 2 * n**3 / times[len(times) // 2] / 1e12


def cell_config(d: int, q: int, epochs: int, device: str):
    from cogo.solvers.training_config import TrainConfig

    return TrainConfig(group=str(d), hidden=q, epochs=epochs, lr=0.01, device=device, log_every=max(1, epochs // 10))


def timed_train(cfg, seeds, wds):
    import torch

    from cogo.solvers.training import train

    sync = torch.cuda.synchronize if cfg.device.startswith("cuda") else (lambda: None)
    sync()
    t0 = time.perf_counter()
    res = train(cfg, seeds=list(seeds), weight_decays=list(wds), progress=False)
    sync()
    return res, time.perf_counter() - t0


def flops_per_model_epoch(d: int, q: int) -> float:
    return 6.0 * d**3 * q


def probe(cells, args, peak32: float) -> dict:
    out = {}
    timed_train(cell_config(*cells[0], 5, args.device), SEEDS, WDS)          # warm-up: CUDA context, kernels
    for d, q in cells:
        # seconds per epoch as the difference of a run of 2P and one of P epochs: set-up and the
        # final evaluation cancel
        _, short = timed_train(cell_config(d, q, args.probe_epochs, args.device), SEEDS, WDS)
        _, long = timed_train(cell_config(d, q, 2 * args.probe_epochs, args.device), SEEDS, WDS)
        m = len(SEEDS) * len(WDS)
        per_epoch = max(long - short, 1e-9) / args.probe_epochs
        tflops = flops_per_model_epoch(d, q) * m / per_epoch / 1e12
        out[f"d{d}_q{q}"] = {"d": d, "q": q, "models": m, "probe_epochs": args.probe_epochs,
                             "seconds_per_epoch": per_epoch, "model_epochs_per_s": m / per_epoch,
                             "tflops": tflops, "fraction_of_fp32_peak": tflops / peak32,
                             "setup_seconds": max(0.0, short - per_epoch * args.probe_epochs),
                             "predicted_full_seconds": per_epoch * args.epochs + max(0.0, short - per_epoch
                                                                                     * args.probe_epochs)}
        print(f"probe d={d} q={q}: {per_epoch * 1e3:.2f} ms/epoch, {m / per_epoch:.0f} model-epochs/s, "
              f"{tflops:.1f} TFLOP/s ({100 * tflops / peak32:.0f}% of fp32 peak)", flush=True)
    return out


def classify_cell(paths: list[str]) -> dict:
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch

    torch.set_num_threads(1)
    from cogo.analysis.classify import Settings, classify_many

    res = classify_many(paths, settings=Settings.preset_named("paper"))
    sm = res.summary
    return {"paper_columns": sm["paper_columns"], "order_counts": sm.get("order_counts"),
            "checkpoints": sm["checkpoints"]}


def train_cells(order, probes, args, out_dir: Path) -> dict:
    from cogo.solvers.training_results import save_run

    done, spent = {}, 0.0
    for d, q in order:
        key = f"d{d}_q{q}"
        pred = probes[key]["predicted_full_seconds"]
        if spent + pred > args.budget:
            done[key] = {"trained": False, "reason": f"predicted {pred:.0f} s does not fit the budget "
                                                     f"({args.budget - spent:.0f} s left)"}
            print(f"skip d={d} q={q}: {done[key]['reason']}", flush=True)
            continue
        cfg = cell_config(d, q, args.epochs, args.device)
        res, sec = timed_train(cfg, SEEDS, WDS)
        spent += sec
        paths = save_run(res, out_dir / key)
        m = len(res)
        done[key] = {"trained": True, "seconds": sec, "models": m,
                     "model_epochs_per_s": m * args.epochs / sec,
                     "tflops": flops_per_model_epoch(d, q) * m * args.epochs / sec / 1e12,
                     "final_train_loss_max": max(float(r.final["train_loss"]) for r in res),
                     "final_test_acc_min": min(float(r.final["test_acc"]) for r in res),
                     "paths": {f"{r.weight_decay:g}/{r.seed}": p for r, p in zip(res, paths)}}
        print(f"trained d={d} q={q}: {sec:.1f} s ({spent:.0f} s of {args.budget:.0f})", flush=True)
    return done


def classify_all(trained: dict, workers: int) -> dict:
    jobs = {}
    for key, cell in trained.items():
        if not cell.get("trained"):
            continue
        for wd in WDS:
            paths = [p for k, p in cell["paths"].items() if k.split("/")[0] == f"{wd:g}"]
            jobs[f"{key}_wd{wd:g}"] = paths
    out = {}
    with ProcessPoolExecutor(max_workers=workers) as ex:
        futs = {k: ex.submit(classify_cell, v) for k, v in jobs.items()}
        for k, f in futs.items():
            try:
                out[k] = f.result()
            except Exception as exc:  # one bad cell must not hide the rest
                out[k] = {"error": f"{type(exc).__name__}: {exc}"}
    return out


def table(classes: dict) -> dict:
    """Rows per d: the reference cell (q = 512, wd = 5e-5) and every classified cell of that d pooled."""
    rows = {}
    for d in GROUPS:
        ref = classes.get(f"d{d}_q{REFERENCE['hidden']}_wd{REFERENCE['wd']:g}")
        row = {"published": PUBLISHED.get(str(d))}
        if ref and "paper_columns" in ref:
            row["reference_cell"] = {c: {"mean_percent": None if v["mean"] is None else 100 * v["mean"],
                                         "se_percent": None if v["se"] is None else 100 * v["se"], "n": v["n"]}
                                     for c, v in ref["paper_columns"].items()}
        rows[str(d)] = row
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=10000)
    ap.add_argument("--probe-epochs", type=int, default=100)
    ap.add_argument("--budget", type=float, default=330.0, help="seconds of full training to spend at most")
    ap.add_argument("--device", default="cuda", help="cuda (default); cpu only to try the script on a tiny sweep")
    ap.add_argument("--groups", type=int, nargs="+", default=list(GROUPS), help="a subset of d, to try the script")
    ap.add_argument("--hidden", type=int, nargs="+", default=list(HIDDEN), help="a subset of q, to try the script")
    ap.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 2))
    args = ap.parse_args()
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("bench_gpu_sweep: no CUDA device", file=sys.stderr)
        return 2
    out_dir = Path(args.out)
    t_all = time.perf_counter()
    result = {"machine": machine_info(), "sweep": {"groups": GROUPS, "hidden": HIDDEN, "weight_decays": WDS,
                                                    "seeds": SEEDS, "epochs": args.epochs, "lr": 0.01},
              "command": " ".join(sys.argv)}
    on_gpu = args.device.startswith("cuda")
    result["peak_tflops"] = ({"float32": matmul_peak("float32"), "bfloat16": matmul_peak("bfloat16")} if on_gpu
                             else {"float32": float("nan"), "bfloat16": float("nan")})
    print("peaks", result["peak_tflops"], flush=True)
    cells = [(d, q) for d in args.groups for q in args.hidden]
    result["probe"] = probe(cells, args, result["peak_tflops"]["float32"])
    ref = [c for c in ((d, REFERENCE["hidden"]) for d in args.groups) if c in cells]
    rest = sorted((c for c in cells if c not in ref), key=lambda c: result["probe"][f"d{c[0]}_q{c[1]}"]
                  ["predicted_full_seconds"])
    runs = out_dir / "runs"
    try:
        result["train"] = train_cells(ref + rest, result["probe"], args, runs)
    except Exception:
        result["train_error"] = traceback.format_exc()
        print(result["train_error"], flush=True)
        result.setdefault("train", {})
    t_cls = time.perf_counter()
    result["classify"] = classify_all(result["train"], args.workers)
    result["classify_seconds"] = time.perf_counter() - t_cls
    result["table"] = table(result["classify"])
    trained = [c for c in result["train"].values() if c.get("trained")]
    result["summary"] = {"cells_trained": len(trained), "runs_trained": sum(c["models"] for c in trained),
                         "train_seconds": sum(c["seconds"] for c in trained),
                         "predicted_whole_sweep_seconds": sum(p["predicted_full_seconds"]
                                                              for p in result["probe"].values()),
                         "wall_seconds": time.perf_counter() - t_all}
    for cell in result["train"].values():
        cell.pop("paths", None)
    (out_dir / "gpu_sweep.json").write_text(json.dumps(result, indent=2, default=str) + "\n")
    with tarfile.open(out_dir / "reference_checkpoints.tar", "w") as tar:
        for d in GROUPS:
            folder = runs / f"d{d}_q{REFERENCE['hidden']}"
            for p in sorted(folder.glob(f"*wd{REFERENCE['wd']:g}_*.pt")) if folder.is_dir() else []:
                tar.add(p, arcname=f"d{d}/{p.name}")
    print(json.dumps(result["summary"], indent=1))
    print(json.dumps(result["table"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
