"""Benchmark: ``cogo verify --group N --exact`` at the paper's orders 23, 71, 127, per row, with scaling exponents.

    python benchmarks/bench_verify.py [--out benchmarks/results/verify.json] [--orders 23 71 127] [--skip-cli]
                                      [--certificates] [--dmax 127]

Records (the machine is named, with its load average before and after each part: on a shared machine compare
only numbers taken in the same run):

* ``cli``: wall and CPU time of ``cogo verify --exact --group N`` in a fresh interpreter (imports included) for
  the first and last order, one right after the other, their exit statuses and summaries, and the ratios
  (target: the largest order within 5 times the smallest);
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
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine_info, write_json  # noqa: E402

from cogo.solvers.designs import f6_design, f46_design  # noqa: E402
from cogo.proofs import registry as R  # noqa: E402
from cogo.proofs import theorems_optimality as TO  # noqa: E402


def _load() -> list:
    return [round(x, 2) for x in os.getloadavg()]


def _cli(orders: list, out: dict) -> None:
    runs = {}
    for n in (orders[0], orders[-1]):
        load = _load()
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "cogo.cli", "verify", "--exact", "--group", str(n)],
                              capture_output=True, text=True)
        wall = time.perf_counter() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime
        runs[str(n)] = {"seconds": round(wall, 2), "cpu_seconds": round(cpu, 2), "exit_status": proc.returncode,
                        "load_before": load, "summary": proc.stdout.strip().splitlines()[-1] if proc.stdout else ""}
        print(f"cogo verify --exact --group {n}: {wall:.2f} s ({cpu:.2f} s CPU), exit {proc.returncode} "
              f"(load {load})", flush=True)
    lo, hi = runs[str(orders[0])], runs[str(orders[-1])]
    out["cli"] = {"runs": runs, f"ratio_{orders[-1]}_over_{orders[0]}": round(hi["seconds"] / lo["seconds"], 2),
                  f"cpu_ratio_{orders[-1]}_over_{orders[0]}": round(hi["cpu_seconds"] / lo["cpu_seconds"], 2),
                  "target_ratio": 5.0}
    print(f"ratio {orders[-1]} / {orders[0]}: {hi['seconds'] / lo['seconds']:.2f} wall, "
          f"{hi['cpu_seconds'] / lo['cpu_seconds']:.2f} CPU (target <= 5)", flush=True)


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
    args = ap.parse_args(argv)
    orders = sorted(args.orders)
    out: dict = {"machine": {**machine_info(), "loadavg_at_start": _load()},
                 "note": "shared 2-core machine: compare only numbers of one run (ratios), see load_before"}
    if not args.skip_cli and orders:
        _cli(orders, out)
        write_json(args.out, out)
    if orders:
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
