"""Time the independent checker ``cogo-check`` on the certificates of ``cogo verify --group N --exact``.

For each order: ``cogo verify --group N --exact --certificates DIR`` (timed, not the point), then
``python -m cogo_check DIR`` in a fresh process, one core (pure Python, single thread), best of ``--repeat``.
The issue's targets: seconds at N = 23, at most a minute at N = 127.

    python benchmarks/bench_checker.py                       # orders 23 and 127, writes results/checker.json
    python benchmarks/bench_checker.py --orders 23 --reuse /tmp/certs   # re-use DIR/<N> written earlier
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COGO = "import sys; from cogo.cli import main; sys.exit(main(sys.argv[1:]))"


def _run(args: list) -> tuple[float, subprocess.CompletedProcess, float]:
    """(wall seconds, the process, its CPU seconds: user + system, from the children's rusage)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "OMP_NUM_THREADS": "1"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return time.perf_counter() - t0, r, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--orders", type=int, nargs="+", default=[23, 127])
    ap.add_argument("--reuse", default=None, help="a folder holding <N>/ from an earlier run (no cogo verify)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "checker.json"))
    args = ap.parse_args()
    base = Path(args.reuse) if args.reuse else Path(os.environ.get("TMPDIR", "/tmp")) / f"cogo-certs-{os.getpid()}"
    out = {"machine": {"python": platform.python_version(), "platform": platform.platform(),
                       "cpu_count": os.cpu_count(), "load": os.getloadavg(), "date": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
           "command": " ".join(sys.argv), "orders": {}}
    for n in args.orders:
        d = base / str(n)
        entry: dict = {}
        if not args.reuse:
            secs, r, _ = _run(["-c", COGO, "verify", "--group", str(n), "--exact", "--no-progress", "--certificates",
                            str(d)])
            if r.returncode != 0:
                print(r.stdout[-2000:], r.stderr, file=sys.stderr)
                return 1
            entry["cogo_verify_seconds"] = round(secs, 2)
        times, cpus = [], []
        for _ in range(args.repeat):
            secs, r, cpu = _run(["-m", "cogo_check", str(d)])
            if r.returncode != 0:
                print(r.stdout, file=sys.stderr)
                return 1
            times.append(secs)
            cpus.append(cpu)
        entry.update(checker_seconds_best=round(min(times), 3), checker_seconds_all=[round(t, 3) for t in times],
                     checker_cpu_seconds_best=round(min(cpus), 3),
                     summary=r.stdout.strip().splitlines()[-1],
                     certificates_bytes=sum(f.stat().st_size for f in d.glob("*.json")))
        out["orders"][str(n)] = entry
        print(n, entry, flush=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
