"""Benchmark: the thread policy (cogo.runtime.threads) against every fixed thread count, idle and under load.

For each case (training: group order d, hidden q, models M; classification of
trained checkpoints) and each load condition (0, 1, 2 competing busy processes
that this script spawns itself: ``python -c 'while True: pass'``), it times

* every fixed thread count ``T = 1 .. min(cores, 4)``, and
* the default: what :func:`cogo.runtime.threads.choose_threads` picks at that moment,

and reports ``ratio = time(default) / min_T time(T)`` (goal: at most 1.2 everywhere).
Times are the median of ``--repeats`` runs after one warm-up.  The JSON records the
load average before and after each condition and the cores the process may use;
on a machine shared with other users the "idle" condition is only as idle as they let it be.

Usage::

    python benchmarks/bench_threads.py --quick      # a few minutes: 3 training cases + classify
    python benchmarks/bench_threads.py              # the full grid of d, q, M
    python benchmarks/bench_threads.py --out FILE.json
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

from _common import machine_info, write_json  # noqa: E402
from cogo.runtime import threads as T  # noqa: E402
from cogo.solvers.training import train  # noqa: E402
from cogo.solvers.training_config import TrainConfig  # noqa: E402
from cogo.solvers.training_results import save_run  # noqa: E402

QUICK_CASES = [(11, 64, 1, 300), (23, 512, 5, 40), (71, 512, 1, 20)]
FULL_CASES = QUICK_CASES + [(11, 64, 50, 100), (23, 64, 1, 300), (23, 4096, 1, 10), (71, 512, 5, 5),
                            (127, 64, 1, 20), (127, 512, 1, 3)]


def spawn_busy(k: int) -> list[subprocess.Popen]:
    """Start ``k`` processes that each keep one core busy (a Python busy loop)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(k)]


def stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait(timeout=10)


def timed(fn, repeats: int) -> float:
    fn()  # warm-up
    walls = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls)


def training_case(d: int, q: int, M: int, epochs: int, counts: list[int], repeats: int) -> dict:
    cfg = TrainConfig(group=str(d), hidden=q, epochs=epochs, log_every=max(1, epochs // 4))
    seeds = list(range(1, M + 1))
    elements = T.training_elements(d, q, M)
    row: dict = {"d": d, "q": q, "models": M, "epochs": epochs, "elements_per_op": elements, "fixed_s": {}}
    for t in counts:
        row["fixed_s"][str(t)] = timed(lambda: train(cfg, seeds, progress=False, threads=t), repeats)
    chosen = T.choose_threads("train", elements)
    row["default_threads"] = chosen
    row["default_s"] = timed(lambda: train(cfg, seeds, progress=False), repeats)
    return _ratio(row)


def classify_case(paths: list[str], counts: list[int], repeats: int) -> dict:
    from cogo.analysis.classify import classify_many

    row: dict = {"case": "classify", "checkpoints": len(paths), "fixed_s": {}}
    for t in counts:
        def run(t=t):
            with T.thread_limit(t):
                classify_many(paths, progress=False)
        row["fixed_s"][str(t)] = timed(run, repeats)
    row["default_threads"] = T.choose_threads("classify")

    def run_default():
        with T.thread_limit(T.choose_threads("classify")):
            classify_many(paths, progress=False)
    row["default_s"] = timed(run_default, repeats)
    return _ratio(row)


def _ratio(row: dict) -> dict:
    best_t, best = min(row["fixed_s"].items(), key=lambda kv: kv[1])
    row["best_fixed_threads"] = int(best_t)
    row["ratio_default_to_best"] = row["default_s"] / best
    row["ratio_2_to_1"] = row["fixed_s"].get("2", float("nan")) / row["fixed_s"]["1"]
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="3 training cases and classify (a few minutes)")
    p.add_argument("--repeats", type=int, default=None, help="timed runs per point (default 1 quick, 3 full)")
    p.add_argument("--loads", default="0,1,2", help="numbers of busy competing processes (default 0,1,2)")
    p.add_argument("--out", default=None, help="JSON file (default benchmarks/results/threads[_quick].json)")
    args = p.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 3)
    cases = QUICK_CASES if args.quick else FULL_CASES
    cores = T.available_cores()
    counts = list(range(1, min(cores, T.MAX_THREADS) + 1))
    loads = [int(x) for x in args.loads.split(",")]

    # checkpoints for the classification case: Z_23, q=512, 5 seeds, trained briefly (1 thread)
    tmp = tempfile.mkdtemp(prefix="cogo-bench-threads-")
    res = train(TrainConfig(group="23", hidden=512, epochs=1500, log_every=500), [1, 2, 3], progress=False, threads=1)
    ckpts = [x for x in save_run(res, tmp) if x.endswith(".pt")]

    result = {"benchmark": "threads", "machine": machine_info(), "available_cores": cores,
              "cgroup_cpu_quota": T.cgroup_cpu_quota(), "thread_counts": counts, "repeats": repeats,
              "policy": {"PARALLEL_MIN_ELEMENTS": T.PARALLEL_MIN_ELEMENTS, "MAX_THREADS": T.MAX_THREADS},
              "note": "busy processes are spawned by this script; other users' load is recorded as load averages "
                      "(the machine may be shared)", "conditions": []}
    for k in loads:
        busy = spawn_busy(k)
        try:
            time.sleep(1.0)
            cond = {"busy_processes": k, "loadavg_before": list(os.getloadavg()),
                    "background_load_measured": T.background_load(), "rows": []}
            for d, q, M, epochs in cases:
                row = training_case(d, q, M, epochs, counts, repeats)
                cond["rows"].append(row)
                print(f"busy={k} train d={d} q={q} M={M}: " + ", ".join(
                    f"T={t}: {s:.2f}s" for t, s in row["fixed_s"].items())
                    + f", default(T={row['default_threads']}): {row['default_s']:.2f}s, "
                      f"ratio {row['ratio_default_to_best']:.2f}", flush=True)
            row = classify_case(ckpts, counts, repeats)
            cond["rows"].append(row)
            print(f"busy={k} classify x{len(ckpts)}: " + ", ".join(f"T={t}: {s:.2f}s" for t, s in row["fixed_s"].items())
                  + f", default(T={row['default_threads']}): {row['default_s']:.2f}s, "
                    f"ratio {row['ratio_default_to_best']:.2f}", flush=True)
            cond["loadavg_after"] = list(os.getloadavg())
            result["conditions"].append(cond)
        finally:
            stop(busy)
    ratios = [r["ratio_default_to_best"] for c in result["conditions"] for r in c["rows"]]
    result["max_ratio_default_to_best"] = max(ratios)
    result["goal_max_ratio"] = 1.2
    out = Path(args.out or Path(__file__).parent / "results" / ("threads_quick.json" if args.quick else "threads.json"))
    write_json(out, result)
    print(f"max ratio default/best: {max(ratios):.2f} (goal 1.2)")
    return 0


if __name__ == "__main__":
    torch.set_num_threads(torch.get_num_threads())
    sys.exit(main())
