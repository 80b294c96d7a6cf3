"""Benchmark: character table, isotypic projectors and irreps of groups of order 120 and 128 (issue 12: < 5 s).

    python benchmarks/bench_groups.py [--groups S5 D64 Q8x16 Dic32 D8x2x2x2 2x2x2x2x2x2x2] [--out benchmarks/results/groups.json]

For each group, from a cold start (caches cleared before every repetition):
the group from its name (Cayley table and axiom check), the character table
(Burnside-Dixon + exact cleaning), the isotypic projectors, and one unitary
irrep per class; best of 3 wall times, plus the largest deviation from the
orthogonality relations and from rho(g) rho(h) = rho(gh) as a sanity check.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine_info, write_json  # noqa: E402

import cogo.algebra.representations as rep  # noqa: E402
from cogo.algebra.finite_groups import FiniteGroup  # noqa: E402
from cogo.algebra.group_parsing import as_finite_group
from cogo.algebra.group_parsing import parse_group  # noqa: E402


def clear() -> None:
    for f in (rep._classes, rep._character_table, rep._projectors, rep._irreps):
        f.cache_clear()


def run(name: str, repeat: int = 3) -> dict:
    best = {"build": np.inf, "character_table": np.inf, "projectors": np.inf, "irreps": np.inf, "total": np.inf}
    for _ in range(repeat):
        clear()
        t0 = time.perf_counter()
        G = parse_group(name)
        if isinstance(G, FiniteGroup):
            G = FiniteGroup.from_table(G.table, G.label)          # full axiom check, as for a user table
        t1 = time.perf_counter()
        ct = rep.character_table(G)
        t2 = time.perf_counter()
        P = rep.isotypic_projectors(G)
        t3 = time.perf_counter()
        R = rep.irreps(G)
        t4 = time.perf_counter()
        for k, v in zip(best, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0)):
            best[k] = min(best[k], v)
    M = G.order
    X = ct.characters
    orth = float(np.abs(X @ X.conj().T / M - np.eye(len(ct))).max())
    t = as_finite_group(G).table
    hom = max(float(np.abs(np.einsum("gij,hjk->ghik", r.matrices, r.matrices) - r.matrices[t]).max()) for r in R)
    proj = float(np.abs(P.sum(0) - np.eye(M)).max())
    return {"group": name, "order": M, "classes": len(ct), "dims": sorted(set(ct.dims.tolist())),
            "seconds": best, "orthogonality_dev": orth, "homomorphism_dev": hom, "projector_sum_dev": proj}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--groups", nargs="+", default=["S5", "D64", "Q8x16", "Dic32", "D8x2x2x2", "2x2x2x2x2x2x2"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "groups.json"))
    ap.add_argument("--threads", type=int, default=None,
                    help="CPU threads (default: cogo's thread policy, 1; issue 21)")
    args = ap.parse_args()
    from cogo.runtime.threads import limit_process

    limit_process(args.threads)
    rows = []
    for name in args.groups:
        r = run(name, args.repeat)
        s = r["seconds"]
        print(f"{name:>10} order {r['order']:4d} classes {r['classes']:4d}  build {s['build']:.3f}s  "
              f"table {s['character_table']:.3f}s  projectors {s['projectors']:.3f}s  irreps {s['irreps']:.3f}s  "
              f"total {s['total']:.3f}s  (orth {r['orthogonality_dev']:.1e}, hom {r['homomorphism_dev']:.1e})")
        rows.append(r)
    write_json(args.out, {"benchmark": "groups", "target_s": 5.0, "machine": machine_info(), "results": rows})


if __name__ == "__main__":
    main()
