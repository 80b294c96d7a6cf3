"""Peak memory against the estimate of cogo.runtime.limits, over a grid of checkpoint sizes (issue 20).

For every group order ``d``, hidden size ``q`` and live fraction (0, 1 %, 100 %: random normal weights on that
share of the nodes, exact zeros elsewhere) an ``.npz`` checkpoint is written and read by ``cogo classify`` and
``cogo verify --checkpoint``, each in its own process, one at a time, under ``prlimit --as`` (a hard cap, so a
wrong estimate cannot take the machine) and ``COGO_MEMORY_LIMIT`` (what the commands believe is available).
Recorded per run: exit status, wall time, stderr lines, the peak resident memory (``VmHWM`` of the child at exit),
the baseline (the same interpreter importing the same modules and doing nothing), and the estimate.  A run
*fits* when the command ran (exit 0 or 1: 1 is "not a global optimizer"); then ``ratio = (peak - baseline) /
estimate`` must be at most 1 (the estimates of cogo.runtime.limits are resident memory above the interpreter's
baseline).  A run that does not fit must be refused: exit 2, one line, in under a second of its own work.

    nice -n 10 python benchmarks/bench_memory.py [--quick] [--limit 4G] [--out benchmarks/results/memory.json]

``cogo dynamics`` is measured on synthetic runs of the same sizes (a ``.pt`` checkpoint and three snapshots
written as ``cogo train --snapshots`` writes them, the same live fraction), ``--workers 1`` (one process, so its
peak is the whole command's), against :func:`cogo.runtime.limits.dynamics_estimate`; its baseline also imports torch
(reading a ``.pt`` file does).  A run the estimate refuses gets no snapshot files (it must be refused from the
checkpoint's shapes before any snapshot is read; its one line must quote the estimate).

    nice -n 10 python benchmarks/bench_memory.py --commands dynamics --merge benchmarks/results/memory.json
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine_info, write_json  # noqa: E402

CAP = 6_000_000_000  # prlimit --as for every child (bytes)


# The child reports its own peak: VmHWM of /proc/self/status at exit (per address space, so it starts afresh at
# exec; ru_maxrss would carry the benchmark's own resident size over the fork and the exec).
_WRAP = """
import atexit, os, sys
def _hwm():
    with open("/proc/self/status") as f:
        kb = [l.split()[1] for l in f if l.startswith("VmHWM")][0]
    with open(os.environ["BENCH_HWM_FILE"], "w") as f:
        f.write(kb)
atexit.register(_hwm)
if sys.argv[1] == "-c":
    exec(sys.argv[2])
else:
    from cogo.cli import main
    raise SystemExit(main(sys.argv[1:]))
"""


def run_child(args: list[str], env: dict) -> dict:
    """Run ``python _WRAP ARGS`` (``cogo`` arguments, or ``-c CODE``) under the caps; its peak and exit status."""
    hwm = Path(tempfile.mkstemp(prefix="hwm")[1])
    env = dict(env, BENCH_HWM_FILE=str(hwm))
    t0 = time.perf_counter()
    p = subprocess.run(["prlimit", f"--as={CAP}", "nice", "-n", "10", sys.executable, "-c", _WRAP] + args, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    secs = time.perf_counter() - t0
    peak = int(hwm.read_text() or 0) * 1024 if hwm.stat().st_size else None
    hwm.unlink()
    err = p.stderr.strip()
    return {"rc": p.returncode, "seconds": round(secs, 3), "peak_bytes": peak,
            "stderr_lines": len(err.splitlines()), "stderr": err.splitlines()[-1][:300] if err else ""}


def write_case(path: Path, d: int, q: int, live: float, seed: int = 0) -> int:
    rng = np.random.default_rng(seed)
    n_live = int(round(live * q))
    Wa = np.zeros((q, d), dtype=np.float32)
    Wb = np.zeros((q, d), dtype=np.float32)
    Wc = np.zeros((d, q), dtype=np.float32)
    if n_live:
        idx = rng.choice(q, n_live, replace=False)
        Wa[idx] = rng.normal(size=(n_live, d)) * 0.1
        Wb[idx] = rng.normal(size=(n_live, d)) * 0.1
        Wc[:, idx] = rng.normal(size=(d, n_live)) * 0.1
    (np.savez if live else np.savez_compressed)(path, Wa=Wa, Wb=Wb, Wc=Wc)
    return n_live


def write_run(directory: Path, d: int, q: int, live: float, snapshots: bool = True, seed: int = 0) -> Path:
    """A synthetic training run: the checkpoint and three snapshots (epochs 0, 50, 100) as ``cogo train`` writes them."""
    from cogo.io.weights import save_checkpoint
    from cogo.io.snapshots import SnapshotWriter

    directory.mkdir(parents=True, exist_ok=True)
    f = directory / "w.npz"
    write_case(f, d, q, live, seed)
    with np.load(f) as z:
        W = [z["Wa"], z["Wb"], z["Wc"]]
    f.unlink()
    epochs = [0, 50, 100]
    if snapshots:
        wr = SnapshotWriter(directory / "run.snapshots", str(d), d, q, "float32")
        for e in epochs:
            wr.write(e, *((0.5 + e / 200.0) * w for w in W))
    path = directory / "run.pt"
    save_checkpoint(path, *W, {"group": str(d), "seed": 1, "history": {"epoch": epochs},
                               "snapshots": {"format": "cogo-snapshots/1", "dir": "run.snapshots", "epoch": epochs}})
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="d in (23, 128), q in (512, 4096) only")
    ap.add_argument("--limit", default="4G", help="COGO_MEMORY_LIMIT for the commands (default 4G)")
    ap.add_argument("--out", default="benchmarks/results/memory.json")
    ap.add_argument("--commands", nargs="+", default=["classify", "verify", "dynamics"],
                    choices=["classify", "verify", "dynamics"], help="which commands to measure (default all)")
    ap.add_argument("--merge", default=None, metavar="JSON",
                    help="keep the rows of the other commands from this earlier result")
    args = ap.parse_args(argv)
    from cogo.runtime.limits import _parse_bytes, classify_estimate, dynamics_estimate, verify_checkpoint_estimate

    ds = (23, 128) if args.quick else (23, 128, 1024)
    qs = (512, 4096) if args.quick else (512, 4096, 65536)
    lives = (0.0, 0.01, 1.0)
    env = dict(os.environ, COGO_MEMORY_LIMIT=args.limit, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    limit = _parse_bytes(args.limit)
    # the baseline: the interpreter with numpy and cogo.cli (what every command imports first); what the commands
    # import lazily beyond that is part of the estimate (cogo.runtime.limits.MODULES_BYTES)
    base_cls = base_ver = run_child(["-c", "import numpy, cogo.cli"], env)
    base_dyn = run_child(["-c", "import numpy, torch, cogo.cli"], env)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for d in ds:
            for q in qs:
                for live in lives:
                    f = Path(tmp) / f"w_{d}_{q}_{live}.npz"
                    n_live = write_case(f, d, q, live)
                    cases = [c for c in (("classify", classify_estimate(d, q), base_cls),
                                         ("verify --checkpoint", verify_checkpoint_estimate(d, q), base_ver),
                                         ("dynamics", dynamics_estimate(d, q, workers=1), base_dyn))
                             if c[0].split()[0] in args.commands]
                    for cmd, est, base in cases:
                        if cmd == "dynamics":
                            run = write_run(Path(tmp) / f"run_{d}_{q}_{live}", d, q, live,
                                            snapshots=est.bytes <= limit)
                            argv_ = ["dynamics", str(run), "--out", str(run.parent / "dyn"), "--workers", "1",
                                     "--threads", "1", "--no-figures", "--no-progress"]
                        else:
                            argv_ = (["classify", str(f), "--threads", "1"] if cmd == "classify"
                                     else ["verify", "--checkpoint", str(f)])
                        r = run_child(argv_, env)
                        fits = est.bytes <= limit
                        row = {"command": cmd, "d": d, "q": q, "live_fraction": live, "live_nodes": n_live,
                               "file_bytes": f.stat().st_size, "estimate_bytes": int(est.bytes),
                               "baseline_bytes": base["peak_bytes"], "fits": fits, **r}
                        if fits:
                            row["ratio"] = round((r["peak_bytes"] - base["peak_bytes"]) / est.bytes, 4)
                            row["ok"] = r["rc"] in (0, 1) and row["ratio"] <= 1.0
                        else:
                            row["ok"] = r["rc"] == 2 and r["stderr_lines"] == 1 and "needs about" in r["stderr"]
                            row["refused_under_1s"] = r["seconds"] < 1.0
                        rows.append(row)
                        print(f"{cmd:20s} d={d:5d} q={q:6d} live={live:<5} rc={r['rc']} {r['seconds']:7.2f} s "
                              f"peak {r['peak_bytes'] / 2**20:8.1f} MiB est {est.bytes / 2**20:10.1f} MiB "
                              f"{'ratio ' + str(row.get('ratio')) if fits else 'refused'} ok={row['ok']}", flush=True)
                    f.unlink()
    if args.merge:
        import json

        old = json.loads(Path(args.merge).read_text())
        rows = [r for r in old["rows"] if r["command"].split()[0] not in args.commands] + rows
    write_json(args.out, {"machine": machine_info(), "command": "benchmarks/bench_memory.py " + " ".join(argv or sys.argv[1:]),
                          "memory_limit": args.limit, "prlimit_as": CAP,
                          "baseline": {"classify": base_cls, "verify": base_ver, "dynamics": base_dyn}, "rows": rows,
                          "all_ok": all(r["ok"] for r in rows), "max_ratio": max((r.get("ratio", 0) for r in rows))})
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
