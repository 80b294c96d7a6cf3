"""Benchmark: ``cogo verify --group 23 --exact`` (target < 60 s on 2 cores), and the exact run at n = 71, 127.

    python benchmarks/bench_verify.py [--out benchmarks/results/verify.json] [--orders 71 127] [--dmax 127]

Records:

* ``cli_verify_exact_d23``: wall time of ``cogo verify --exact --group 23`` in a fresh interpreter
  (imports included) and its exit status;
* ``run_all_exact``: for each order in ``--orders`` (default 71 127), the in-process time of
  ``run_all(n, 'exact')`` with the time of every row (above order 31 optimality uses the block route;
  the loss decomposition and the controls run the exact general loss on the group itself);
* ``certificates``: for every odd d up to ``--dmax``, the exact theorem ``optimality(d, kind, 'exact')``
  for f6 and f46 (general loss up to 31, block route above), and the total;
* ``certificates_split`` (``--split``): the same, construction and certificate timed apart (construction
  memos cleared first), and the construction of z_F6 / z_F4/6 at ``--dmax`` alone with empty memos;
* ``certificates_cold`` / ``certificate_seeded_d23``: the block certificates of the designs, cold caches.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine_info, write_json  # noqa: E402

from cogo.solvers.constructions import f6_design, f46_design  # noqa: E402
from cogo.verify import registry as R  # noqa: E402
from cogo.verify import theorems as T  # noqa: E402


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="benchmarks/results/verify.json")
    ap.add_argument("--dmax", type=int, default=127)
    ap.add_argument("--orders", type=int, nargs="*", default=[71, 127])
    ap.add_argument("--skip-cli", action="store_true", help="do not time the cogo verify subprocess")
    ap.add_argument("--split", action="store_true",
                    help="also time building the constructions apart from their certificates")
    args = ap.parse_args(argv)
    out: dict = {"machine": machine_info(), "targets": {"cli_verify_exact_d23_s": 60.0, "certificates_total_s": 10.0}}

    if not args.skip_cli:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "cogo.cli", "verify", "--exact", "--group", "23"],
                              capture_output=True, text=True)
        wall = time.perf_counter() - t0
        out["cli_verify_exact_d23"] = {"seconds": wall, "exit_status": proc.returncode,
                                       "summary": proc.stdout.strip().splitlines()[-1] if proc.stdout else ""}
        print(f"cogo verify --exact --group 23: {wall:.2f} s, exit {proc.returncode}")

    out["run_all_exact"] = {}
    for n in [23] + list(args.orders):
        T.clear_caches()
        t0 = time.perf_counter()
        res = R.run_all(n, "exact")
        wall = time.perf_counter() - t0
        out["run_all_exact"][str(n)] = {"seconds": wall, "all_ok": all(r.passed for r in res),
                                        "checks": {f"{r.name} [{r.method}]": r.seconds for r in res}}
        write_json(args.out, out)
        print(f"run_all({n}, 'exact') in process: {wall:.2f} s, all ok: {all(r.passed for r in res)}", flush=True)

    ds = list(range(3, args.dmax + 1, 2))
    T.clear_caches()
    per: dict = {}
    ok = True
    t0 = time.perf_counter()
    for d in ds:
        row = {}
        for kind in ("f6", "f46"):
            t1 = time.perf_counter()
            r = T.optimality(d, kind, "exact")
            row[kind] = time.perf_counter() - t1
            ok &= r.passed
        per[str(d)] = row
    total = time.perf_counter() - t0
    out["certificates"] = {"d": [ds[0], ds[-1]], "count": len(ds), "total_seconds": total, "all_passed": ok,
                           "per_d_seconds": per}
    print(f"exact optimality certificates of z_F6 and z_F4/6, odd d {ds[0]}..{ds[-1]}: {total:.2f} s, "
          f"all passed: {ok}")

    if args.split:
        from cogo.solvers import constructions as C
        T.clear_caches()
        C.clear_caches()      # the construction memos start empty here too (they fill up over the orders)
        build = {"f6": 0.0, "f46": 0.0}
        cert = {"f6": 0.0, "f46": 0.0}
        ok_split = True
        for d in ds:
            for kind, fn in (("f6", C.z_F6), ("f46", C.z_F46)):
                t1 = time.perf_counter()
                net = fn(d, seed=1, exact=True)
                t2 = time.perf_counter()
                ok_split &= T.optimality(d, kind, "exact", net=net).passed
                build[kind] += t2 - t1
                cert[kind] += time.perf_counter() - t2
        out["certificates_split"] = {"construction_seconds": build, "certificate_seconds": cert,
                                     "all_passed": ok_split,
                                     "construction_memos": "cleared before the first order (cogo.solvers.constructions."
                                                           "clear_caches)",
                                     "note": "same theorems, the exact network built first (seed 1) and passed as net=; "
                                             "runs after the certificates entry, so sympy's own cache may be warm "
                                             "(small d); a fresh process gives the cold split"}
        cold1 = {}
        for kind, fn in (("f6", C.z_F6), ("f46", C.z_F46)):
            C.clear_caches()
            t1 = time.perf_counter()
            fn(ds[-1], seed=1, exact=True)
            cold1[kind] = time.perf_counter() - t1
        out["certificates_split"]["construction_cold_dmax_seconds"] = {"d": ds[-1], **cold1}
        print(f"  building z_F6 / z_F4/6 at d={ds[-1]} alone, construction memos empty: "
              f"{cold1['f6']:.2f} / {cold1['f46']:.2f} s")
        print(f"  split: building the exact constructions {sum(build.values()):.2f} s "
              f"(f6 {build['f6']:.2f}, f46 {build['f46']:.2f}), certificates given them "
              f"{sum(cert.values()):.2f} s, all passed: {ok_split}")

    t0 = time.perf_counter()
    ok_cold = True
    for d in ds:
        for mk in (f6_design, f46_design):
            T.clear_caches()
            ok_cold &= T.block_certificate(mk(d, exact=True)).optimal
    cold = time.perf_counter() - t0
    out["certificates_cold"] = {"total_seconds": cold, "all_passed": ok_cold,
                                "note": "design certificates only, caches cleared before each design"}
    print(f"same design certificates with cold caches per design: {cold:.2f} s, all passed: {ok_cold}")

    T.clear_caches()
    t0 = time.perf_counter()
    ok_seed = T.block_certificate(f6_design(23, seed=1, exact=True)).optimal and \
        T.block_certificate(f46_design(23, seed=1, exact=True)).optimal
    out["certificate_seeded_d23"] = {"seconds": time.perf_counter() - t0, "all_passed": ok_seed}
    print(f"seeded designs at d=23 (one block type per frequency): "
          f"{out['certificate_seeded_d23']['seconds']:.2f} s, all passed: {ok_seed}")
    write_json(args.out, out)
    return out


if __name__ == "__main__":
    main()
