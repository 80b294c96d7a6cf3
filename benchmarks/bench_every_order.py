"""Benchmark: ``cogo verify --every-order`` (target < 300 s on this project's shared 2-core machine).

    python benchmarks/bench_every_order.py [--out benchmarks/results/every_order.json] [--repeat 2]

Records, per run in a fresh interpreter (imports included): the wall time, the CPU time of the child
(user + system, ``resource.getrusage``), the exit status and the load average before the run (the
machine is shared: the CPU time is the figure that does not depend on the other jobs).
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine_info, write_json  # noqa: E402


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="benchmarks/results/every_order.json")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    runs = []
    for _ in range(args.repeat):
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "cogo.cli", "verify", "--every-order"], capture_output=True,
                              text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        runs.append({"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "exit_status": proc.returncode,
                     "load_average_1min_before": round(load, 2), "summary": proc.stdout.strip().splitlines()[-1]})
        print(runs[-1])
    out = {"machine": machine_info(), "target_wall_s": 300.0, "command": "cogo verify --every-order", "runs": runs}
    write_json(args.out, out)
    return out


if __name__ == "__main__":
    main()
