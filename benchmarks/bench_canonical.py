"""Long run of the canonical-answer property (tests/analysis/test_canonical.py): misread count over random draws.

A *misread* is a draw whose report through ``classify_checkpoint`` differs (to 6 decimals; grid cells by
their nodes' features) between the checkpoint and a copy with its hidden nodes permuted, gauge-transformed
``(s a, s b, c / s^2)`` with random signs, and (in some draws) dead nodes appended.  Draws: catalogue products
of orders 4 to 64 from every family, with special (nu = i, alpha = 1, ...), near-degenerate (0.02-0.05 rad
off) and generic angles, repeated factors as often as chance gives them.

    nice -n 10 python benchmarks/bench_canonical.py --draws 300 [--seed 0] [--out benchmarks/results/canonical.json]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))           # strategies, conftest helpers
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "analysis"))  # test_canonical

from _common import machine_info, write_json  # noqa: E402

_SPECIAL = [0.0, np.pi / 2, np.pi, 3 * np.pi / 2, np.pi / 3, 2 * np.pi / 3]


def draw_angle(rng) -> float:
    r = rng.integers(3)
    if r == 0:
        return float(rng.choice(_SPECIAL))
    if r == 1:
        return float(rng.choice(_SPECIAL) + rng.choice([0.02, -0.02, 0.05]))
    return round(float(rng.uniform(0, 2 * np.pi)), 3)


def draw_product(rng):
    from cogo.catalogue.partial import z_nu, z_nu_i, z_syn, z_syn_ab, z_xi

    u = lambda t: complex(np.exp(1j * t))  # noqa: E731
    while True:
        facs, names, size = [], [], 1
        for _ in range(int(rng.integers(2, 7))):
            kind = str(rng.choice(["z_nu", "z_nu=i", "z_xi", "z_syn", "z_syn,ab"]))
            f = {"z_nu": lambda: z_nu(u(draw_angle(rng))), "z_nu=i": z_nu_i,
                 "z_xi": lambda: z_xi(u(draw_angle(rng)), int(rng.choice([1, -1]))), "z_syn": z_syn,
                 "z_syn,ab": lambda: z_syn_ab(u(draw_angle(rng)), u(draw_angle(rng)))}[kind]()
            if size * len(f.a) > 64:
                break
            facs.append(f)
            names.append(kind)
            size *= len(f.a)
        if len(facs) >= 2 and size >= 4:
            ps = facs[0]
            for f in facs[1:]:
                ps = ps * f
            return ps, names


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--draws", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="benchmarks/results/canonical.json")
    args = ap.parse_args(argv)
    from test_canonical import check_same_report

    rng = np.random.default_rng(args.seed)
    misreads, orders = [], []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        for i in range(args.draws):
            ps, names = draw_product(rng)
            dead = int(rng.choice([0, 0, 3, 40]))
            seed = int(rng.integers(2**16))
            _, _, diff = check_same_report(Path(d), ps, seed, dead)
            orders.append(len(ps.a))
            if diff is not None:
                misreads.append({"draw": i, "factors": names, "seed": seed, "dead": dead, "difference": diff})
                print(f"misread {i}: {' * '.join(names)}: {diff}", flush=True)
            if (i + 1) % 25 == 0:
                print(f"{i + 1}/{args.draws} draws, {len(misreads)} misread(s), {time.perf_counter() - t0:.0f} s",
                      flush=True)
    write_json(args.out, {"machine": machine_info(), "command": " ".join(["benchmarks/bench_canonical.py"] + (argv or sys.argv[1:])),
                          "draws": args.draws, "seed": args.seed, "misreads": len(misreads),
                          "orders": {str(k): orders.count(k) for k in sorted(set(orders))},
                          "seconds": round(time.perf_counter() - t0, 1), "details": misreads})
    print(f"{len(misreads)} misread(s) in {args.draws} draws")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
