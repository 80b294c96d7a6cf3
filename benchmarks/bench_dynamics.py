"""Benchmark of ``cogo dynamics``: reading 100 snapshots of a d = 127, q = 512 run.

    python benchmarks/bench_dynamics.py [--out benchmarks/results/dynamics.json] [--workers 2] [--snapshots 100]

The run is synthetic (training d = 127 for 10,000 epochs on 2 shared CPU cores
takes far longer than the benchmark): snapshot ``s`` of ``S`` is
``W_s = t W_F46 + (1 - t) e^{-3 t} W_0`` with ``W_0`` PyTorch's default
initialization (seed 1, all 512 nodes live, every frequency block of order
about 8) and ``W_F46`` the z_F4/6 construction of SPEC 7.3 on Z_127 (254 live
nodes, 62 order-4 blocks and one order-6 block) padded with zero nodes to 512,
its nodes shuffled, and ``t = min(1, (s / (0.6 S))^2)``: the first snapshots
are noise-like (the costly case for the factorization), the last 40% are
trained-like.  The snapshots are streamed to a temporary directory with
:class:`cogo.io.snapshots.SnapshotWriter` (float32, as training writes them).

Measured: wall time of :func:`cogo.dynamics.runs.analyse_run` (load,
vectorized Fourier transform and potentials, per-snapshot classification in
``--workers`` processes; no cache), the time of a second, cached reading
(resumption), and peak resident memory of this process and of the workers
(``ru_maxrss``), and the CPU seconds of the reading (this process and the
workers; on a machine shared with other work the wall time overstates the
cost, CPU seconds / workers does not).  Target: < 30 s on 2 cores.

The reading includes the progress measures of :mod:`cogo.dynamics.progress`
(issue 24); they are also timed alone (``progress_seconds``: the key families
from the last snapshot, then every snapshot a chunk at a time, as
:func:`~cogo.dynamics.runs.analyse_run` does, in this process), so that
their cost can be compared with the rest of the reading: ``progress_over_plain_reading`` = progress CPU seconds
/ (reading CPU seconds - progress CPU seconds), target at most 2.  The synthetic run records no Li^2 statistics
(a run of ``cogo train --snapshots`` does, and its reading skips them), so this is the costlier case.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine_info, write_json  # noqa: E402


def make_run(directory: Path, S: int, d: int = 127, q: int = 512) -> Path:
    from cogo.io.weights import save_checkpoint
    from cogo.io.snapshots import SnapshotWriter
    from cogo.solvers.constructions import construct
    from cogo.solvers.batch import init_weights

    net, _ = construct("z_F46", d)
    Wf = net.to_weights(real=True)
    m = Wf[0].shape[0]
    rng = np.random.default_rng(0)
    perm = rng.permutation(q)
    pad = [np.zeros((q, d)), np.zeros((q, d)), np.zeros((d, q))]
    pad[0][perm[:m]] = Wf[0]
    pad[1][perm[:m]] = Wf[1]
    pad[2][:, perm[:m]] = Wf[2]
    W0 = [w.double().numpy() for w in init_weights(q, d, 1)]
    epochs = [100 * s for s in range(S)]
    wr = SnapshotWriter(directory / "run.snapshots", str(d), d, q, "float32")
    for s, e in enumerate(epochs):
        t = min(1.0, (s / (0.6 * S)) ** 2)
        wr.write(e, *((t * f + (1 - t) * np.exp(-3 * t) * w0).astype(np.float32) for f, w0 in zip(pad, W0)))
    hist = {"epoch": epochs, "train_loss": [None] * S, "test_loss": [None] * S, "train_acc": [None] * S,
            "test_acc": [None] * S}
    path = directory / "run.pt"
    last = [w.astype(np.float32) for w in pad]
    save_checkpoint(path, *last, {"group": str(d), "seed": 1, "history": hist,
                                  "snapshots": {"format": "cogo-snapshots/1", "dir": "run.snapshots",
                                                "epoch": epochs}})
    return path


def _cpu() -> float:
    """User + system CPU seconds of this process and its finished children (the workers)."""
    r, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="benchmarks/results/dynamics.json")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--snapshots", type=int, default=100)
    args = ap.parse_args()
    from cogo.dynamics.runs import analyse_run

    with tempfile.TemporaryDirectory(prefix="cogo-bench-dyn-") as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        path = make_run(tmp, args.snapshots)
        t_make = time.perf_counter() - t0
        size = sum(f.stat().st_size for f in (tmp / "run.snapshots").iterdir())
        t0 = time.perf_counter()
        c0 = _cpu()
        run = analyse_run(path, cache_dir=tmp / "cache", workers=args.workers)
        t_read = time.perf_counter() - t0
        cpu_read = _cpu() - c0
        t0 = time.perf_counter()
        again = analyse_run(path, cache_dir=tmp / "cache", workers=args.workers)
        t_cached = time.perf_counter() - t0
        from cogo.dynamics.progress_reader import ProgressReader
        from cogo.io.snapshots import open_snapshots

        t0 = time.perf_counter()
        c0 = _cpu()
        snaps = open_snapshots(path)
        pr = ProgressReader(snaps, snaps.group)
        for _, Wa, Wb, Wc in snaps.chunks(16):
            pr.add(Wa, Wb, Wc)
        prog = pr.result()
        t_prog = time.perf_counter() - t0
        cpu_prog = _cpu() - c0
    assert again["cached_snapshots"] == args.snapshots
    assert again["progress_cached_snapshots"] == args.snapshots  # the progress measures come from the cache too
    assert len(prog["restricted_loss"]) == args.snapshots
    last = run["snapshots"][-1]
    types: dict = {}
    for b in last["blocks"]:
        types[b["type"]] = types.get(b["type"], 0) + 1
    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rss_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    result = {
        "benchmark": "cogo dynamics: read S snapshots of d=127, q=512 (synthetic run, see the docstring)",
        "machine": machine_info(),
        "snapshots": args.snapshots,
        "workers": args.workers,
        "snapshot_bytes_on_disk": size,
        "write_seconds": t_make,
        "read_seconds": t_read,
        "read_seconds_per_snapshot": t_read / args.snapshots,
        "cached_read_seconds": t_cached,
        "read_cpu_seconds": cpu_read,
        "read_cpu_seconds_per_worker": cpu_read / args.workers,
        "load_average_1min_after": os.getloadavg()[0],
        "target_seconds": 30.0,
        "progress_seconds": t_prog,
        "progress_cpu_seconds": cpu_prog,
        "progress_share_of_read_cpu": cpu_prog / cpu_read,
        # issue 24: the progress measures cost at most 2x the reading without them (same run, CPU seconds)
        "progress_over_plain_reading": cpu_prog / max(cpu_read - cpu_prog, 1e-9),
        "target_progress_over_plain_reading": 2.0,
        "peak_rss_mib_main": rss_self,
        "peak_rss_mib_largest_worker": rss_children,
        "first_snapshot_blocks": len(run["snapshots"][0]["blocks"]),
        "first_snapshot_live_nodes": run["snapshots"][0]["live_nodes"],
        "last_snapshot_types": types,
    }
    for k in ("read_seconds", "read_cpu_seconds", "progress_seconds", "progress_cpu_seconds",
              "progress_over_plain_reading", "load_average_1min_after", "cached_read_seconds", "peak_rss_mib_main", "peak_rss_mib_largest_worker"):
        print(f"{k}: {result[k]:.2f}")
    write_json(args.out, result)


if __name__ == "__main__":
    main()
