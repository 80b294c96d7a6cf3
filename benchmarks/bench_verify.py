"""Benchmark: ``cogo verify --group N --exact`` at the paper's orders 23, 71, 127, per row, with scaling exponents.

    python benchmarks/bench_verify.py [--out benchmarks/results/verify.json] [--orders 23 71 127] [--skip-cli]
                                      [--skip-rows] [--certificates] [--dmax 127] [--max-load 1] [--allow-load]

Records (the machine is named, with its load average before and after each part: on a shared machine compare
only numbers taken in the same run):

* ``cli``: what a user waits for: wall time and CPU time (user + system, child processes included:
  ``RUSAGE_CHILDREN``) of ``cogo verify --exact --group N --no-progress`` in a fresh interpreter (imports
  included) for the first and last order, one right after the other, their peak memory, exit statuses, skipped
  rows and summaries, and both ratios from this one run (targets: CPU at the largest order at most 3 times the
  smallest, peak memory at most 400 MB).  Wall times mean something only on a quiet machine: the benchmark
  refuses to start when the 1-minute load average is above ``--max-load`` (default 1) unless ``--allow-load``
  is given, waits up to ``--settle`` seconds before each command for the load to come down, and records the
  load before and after each command and whether it was quiet;
* ``rows``: for each order, the in-process wall and CPU time of ``run_all(n, 'exact')`` and of every row, every
  row's status; per row the scaling exponent ``log(t_last / t_first) / log(n_last / n_first)`` of CPU seconds;
* ``certificates`` (``--certificates``): the exact theorems ``optimality(d, kind, 'exact')`` for z_F6 and z_F46
  over odd ``d`` up to ``--dmax`` (general loss up to 31, block route above), and their total;
  ``certificates_split`` (``--split``): construction and certificate timed apart;
  ``certificates_cold`` / ``certificate_seeded_d23``: the block certificates of the designs, cold caches.
  ``--orders`` with no value skips the per-order parts (the certificates alone).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine_info, write_json  # noqa: E402

from cogo.solvers.designs import f6_design, f46_design  # noqa: E402
from cogo.proofs import registry as R  # noqa: E402
from cogo.proofs.theorems import optimality as TO  # noqa: E402


def _load() -> list:
    return [round(x, 2) for x in os.getloadavg()]


def _quiet(max_load: float, settle: float) -> list:
    """The load average once its 1-minute figure is at most ``max_load`` (waiting up to ``settle`` seconds)."""
    t0 = time.monotonic()
    while os.getloadavg()[0] > max_load and time.monotonic() - t0 < settle:
        time.sleep(5)
    return _load()


#: A light launcher between the benchmark and the timed command: the command is forked from this small process, so
#: its ru_maxrss starts from the launcher's few MB and not from the benchmark's resident size (ru_maxrss carries the
#: parent's image over the fork and the exec: with torch and sympy imported here, 250 MB).  It reports the
#: command's own wait4 figures (the command and every descendant it waited for) on the pipe named by argv[1].
_LAUNCH = ("import json, os, subprocess, sys\n"
           "fd = int(sys.argv[1])\n"
           "p = subprocess.Popen(sys.argv[2:])\n"
           "_, st, ru = os.wait4(p.pid, 0)\n"
           "os.write(fd, json.dumps([ru.ru_utime, ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(st)]).encode())\n")


def _timed(argv: list) -> dict:
    """Wall and CPU time of one command in a fresh interpreter, its children included, and its peak memory.

    CPU and peak memory: user + system and ``ru_maxrss`` of the command and of every descendant it waited for, as
    ``os.wait4`` reports them for that one process (the figures ``/usr/bin/time`` prints), taken by a light launcher
    (:data:`_LAUNCH`) so that the peak is the command's own; the ``RUSAGE_CHILDREN`` difference of this process
    (launcher included, a few hundredths of a second) alongside.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r_fd, w_fd = os.pipe()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-c", _LAUNCH, str(w_fd), *argv], stdout=subprocess.PIPE, stderr=err,
                                text=True, pass_fds=(w_fd,))
        os.close(w_fd)
        stdout = proc.stdout.read()
        proc.stdout.close()
        proc.wait()
        wall = time.perf_counter() - t0
        with os.fdopen(r_fd, "rb") as fh:
            report = fh.read()
        err.seek(0)
        stderr = err.read()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 or not report:
        raise RuntimeError(f"bench_verify: the launcher failed ({proc.returncode}): {stderr.strip()[-300:]}")
    utime, stime, maxrss, status = json.loads(report)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"seconds": round(wall, 2), "cpu_seconds": round(utime + stime, 2),
            "cpu_user_seconds": round(utime, 2), "cpu_system_seconds": round(stime, 2),
            "cpu_seconds_rusage_children": round(cpu, 2), "peak_rss_mb": round(maxrss / 1024, 1),
            "exit_status": status, "stdout": stdout, "stderr_tail": stderr.strip().splitlines()[-3:]}


def _cli(orders: list, out: dict, max_load: float, settle: float) -> None:
    runs = {}
    for n in (orders[0], orders[-1]):
        load = _quiet(max_load, settle)
        r = _timed([sys.executable, "-m", "cogo.cli", "verify", "--exact", "--group", str(n), "--no-progress"])
        stdout = r.pop("stdout")
        lines = stdout.strip().splitlines()
        skipped = [ln.strip() for ln in lines if "skipped" in ln]
        runs[str(n)] = {**r, "load_before": load, "load_after": _load(), "quiet": load[0] <= max_load,
                        "skipped": skipped,
                        "summary": next((ln for ln in reversed(lines) if "theorems pass" in ln), lines[-1] if lines else "")}
        print(f"cogo verify --exact --group {n}: {r['seconds']:.2f} s wall, {r['cpu_seconds']:.2f} s CPU "
              f"(children included), peak {r['peak_rss_mb']:.0f} MB, exit {r['exit_status']} "
              f"(load {load}); {len(skipped)} skipped", flush=True)
    lo, hi = runs[str(orders[0])], runs[str(orders[-1])]
    out["cli"] = {"runs": runs,
                  "what": "one run of each order, one right after the other, in this one invocation; CPU = user + "
                          "system of the command and its children (os.wait4; RUSAGE_CHILDREN alongside)",
                  f"ratio_{orders[-1]}_over_{orders[0]}": round(hi["seconds"] / lo["seconds"], 2),
                  f"cpu_ratio_{orders[-1]}_over_{orders[0]}": round(hi["cpu_seconds"] / lo["cpu_seconds"], 2),
                  "target_cpu_ratio": 3.0, "target_peak_rss_mb": 400,
                  "quiet": all(r["quiet"] for r in runs.values())}
    print(f"ratio {orders[-1]} / {orders[0]}: {hi['seconds'] / lo['seconds']:.2f} wall, "
          f"{hi['cpu_seconds'] / lo['cpu_seconds']:.2f} CPU (target <= 3)", flush=True)


def _rows(orders: list, out: dict, path: str) -> None:
    out["rows"] = {}
    for n in orders:
        TO.clear_caches()
        load = _load()
        cpu: dict = {}
        last = [time.process_time()]

        def progress(r, cpu=cpu, last=last):  # the CPU seconds of each row (the machine is shared)
            now = time.process_time()
            cpu[f"{r.name} [{r.method}]"] = round(now - last[0], 3)
            last[0] = now

        t0, c0 = time.perf_counter(), time.process_time()
        res = R.run_all(n, "exact", progress=progress)
        wall = time.perf_counter() - t0
        out["rows"][str(n)] = {"seconds": round(wall, 2), "cpu_seconds": round(time.process_time() - c0, 2),
                               "load_before": load, "all_ok": all(r.passed for r in res),
                               "rows": {f"{r.name} [{r.method}]": [round(r.seconds, 3), cpu[f"{r.name} [{r.method}]"],
                                                                   r.status] for r in res},
                               "columns": ["wall s", "CPU s", "status"]}
        write_json(path, out)
        print(f"run_all({n}, 'exact') in process: {wall:.2f} s, all ok: {all(r.passed for r in res)}", flush=True)
    lo, hi = str(orders[0]), str(orders[-1])
    if lo == hi:
        return
    expo = {}
    for name, (_, c_hi, _) in out["rows"][hi]["rows"].items():
        c_lo = out["rows"][lo]["rows"].get(name, [None, None])[1]
        if c_lo and c_hi and c_lo > 1e-2:
            expo[name] = round(math.log(c_hi / c_lo) / math.log(int(hi) / int(lo)), 2)
    out["scaling_exponent"] = {"between": [int(lo), int(hi)], "of": "CPU seconds (rows under 0.01 s left out)",
                               "total": round(math.log(out["rows"][hi]["cpu_seconds"] / out["rows"][lo]["cpu_seconds"])
                                              / math.log(int(hi) / int(lo)), 2), "rows": expo}


def _certificates(dmax: int, out: dict) -> None:
    ds = list(range(3, dmax + 1, 2))
    TO.clear_caches()
    per: dict = {}
    ok = True
    t0 = time.perf_counter()
    for d in ds:
        row = {}
        for kind in ("z_F6", "z_F46"):
            t1 = time.perf_counter()
            ok &= TO.optimality(d, kind, "exact").passed
            row[kind] = round(time.perf_counter() - t1, 3)
        per[str(d)] = row
    total = time.perf_counter() - t0
    out["certificates"] = {"d": [ds[0], ds[-1]], "count": len(ds), "total_seconds": round(total, 2),
                           "all_passed": ok, "per_d_seconds": per}
    print(f"exact optimality certificates of z_F6 and z_F4/6, odd d {ds[0]}..{ds[-1]}: {total:.2f} s, "
          f"all passed: {ok}")


def _certificates_split(ds: list, out: dict) -> None:
    """The same certificates, construction and certificate timed apart (``--split``)."""
    from cogo.solvers import constructions as C
    from cogo.solvers import designs

    TO.clear_caches()
    designs.clear_caches()      # the construction memos start empty here too (they fill up over the orders)
    build = {"z_F6": 0.0, "z_F46": 0.0}
    cert = {"z_F6": 0.0, "z_F46": 0.0}
    ok_split = True
    for d in ds:
        for kind, fn in (("z_F6", C.z_F6), ("z_F46", C.z_F46)):
            t1 = time.perf_counter()
            net = fn(d, seed=1, exact=True)
            t2 = time.perf_counter()
            ok_split &= TO.optimality(d, kind, "exact", net=net).passed
            build[kind] += t2 - t1
            cert[kind] += time.perf_counter() - t2
    out["certificates_split"] = {"construction_seconds": build, "certificate_seconds": cert,
                                 "all_passed": ok_split,
                                 "construction_memos": "cleared before the first order (cogo.solvers.designs."
                                                       "clear_caches)",
                                 "note": "same theorems, the exact network built first (seed 1) and passed as net=; "
                                         "runs after the certificates entry, so sympy's own cache may be warm "
                                         "(small d); a fresh process gives the cold split"}
    cold1 = {}
    for kind, fn in (("z_F6", C.z_F6), ("z_F46", C.z_F46)):
        designs.clear_caches()
        t1 = time.perf_counter()
        fn(ds[-1], seed=1, exact=True)
        cold1[kind] = time.perf_counter() - t1
    out["certificates_split"]["construction_cold_dmax_seconds"] = {"d": ds[-1], **cold1}
    print(f"  building z_F6 / z_F4/6 at d={ds[-1]} alone, construction memos empty: "
          f"{cold1['z_F6']:.2f} / {cold1['z_F46']:.2f} s")
    print(f"  split: building the exact constructions {sum(build.values()):.2f} s "
          f"(z_F6 {build['z_F6']:.2f}, z_F46 {build['z_F46']:.2f}), certificates given them "
          f"{sum(cert.values()):.2f} s, all passed: {ok_split}")


def _certificates_cold(ds: list, out: dict) -> None:
    """The block certificates of the designs with cold caches, and the seeded designs at d = 23."""
    t0 = time.perf_counter()
    ok_cold = True
    for d in ds:
        for mk in (f6_design, f46_design):
            TO.clear_caches()
            ok_cold &= TO.block_certificate(mk(d, exact=True)).optimal
    cold = time.perf_counter() - t0
    out["certificates_cold"] = {"total_seconds": cold, "all_passed": ok_cold,
                                "note": "design certificates only, caches cleared before each design"}
    print(f"same design certificates with cold caches per design: {cold:.2f} s, all passed: {ok_cold}")

    TO.clear_caches()
    t0 = time.perf_counter()
    ok_seed = TO.block_certificate(f6_design(23, seed=1, exact=True)).optimal and \
        TO.block_certificate(f46_design(23, seed=1, exact=True)).optimal
    out["certificate_seeded_d23"] = {"seconds": time.perf_counter() - t0, "all_passed": ok_seed}
    print(f"seeded designs at d=23 (one block type per frequency): "
          f"{out['certificate_seeded_d23']['seconds']:.2f} s, all passed: {ok_seed}")


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="benchmarks/results/verify.json")
    ap.add_argument("--orders", type=int, nargs="*", default=[23, 71, 127])
    ap.add_argument("--skip-cli", action="store_true", help="do not time the cogo verify subprocesses")
    ap.add_argument("--certificates", action="store_true", help="also time the block certificates up to --dmax")
    ap.add_argument("--dmax", type=int, default=127)
    ap.add_argument("--split", action="store_true",
                    help="with --certificates: also time building the constructions apart from their certificates")
    ap.add_argument("--skip-rows", action="store_true", help="do not time the rows in process")
    ap.add_argument("--max-load", type=float, default=1.0,
                    help="refuse to start when the 1-minute load average is above this (default 1)")
    ap.add_argument("--allow-load", action="store_true",
                    help="run on a busy machine anyway; the load is recorded and the run marked not quiet")
    ap.add_argument("--settle", type=float, default=120.0,
                    help="seconds to wait before each timed command for the load to fall to --max-load")
    args = ap.parse_args(argv)
    orders = sorted(args.orders)
    start = _load()
    if start[0] > args.max_load and not args.allow_load:
        ap.exit(2, f"bench_verify: load average {start[0]} is above {args.max_load}: wall times would measure the "
                   "other work on the machine; wait for a quiet machine or pass --allow-load (recorded)\n")
    out: dict = {"machine": {**machine_info(), "loadavg_at_start": start},
                 "quiet": start[0] <= args.max_load, "max_load": args.max_load, "allow_load": args.allow_load,
                 "note": "compare only numbers of one run (ratios); wall times mean something only where quiet is "
                         "true (1-minute load average at most max_load before each command)"}
    if not args.skip_cli and orders:
        _cli(orders, out, args.max_load, args.settle if not args.allow_load else 0.0)
        out["quiet"] = out["quiet"] and out["cli"]["quiet"]
        write_json(args.out, out)
    if orders and not args.skip_rows:
        _rows(orders, out, args.out)
    if args.certificates:
        _certificates(args.dmax, out)
        ds = list(range(3, args.dmax + 1, 2))
        if args.split:
            _certificates_split(ds, out)
        _certificates_cold(ds, out)
    out["machine"]["loadavg_at_end"] = _load()
    write_json(args.out, out)
    return out


if __name__ == "__main__":
    main()
