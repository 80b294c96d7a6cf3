"""Benchmark of cogo.li2 (SPEC 9): the vectorized ascent and the Li^2 rows.

    python benchmarks/bench_li2.py [--out benchmarks/results/li2.json]

Records, for Z_M with M in (23, 61, 127) and for S3, D5, A4 when the non-Abelian groups exist:

* ``ascent``: wall time of projected gradient ascent from 256 random starts (all starts as one
  vectorized program), the number of steps and the fraction converged;
* ``theorem2_ascent`` (Abelian groups): the ascent of the numeric Theorem 2 row (its default number
  of starts, max(128, 10 x #components)) with the energy and gradient summed over the Cayley table
  (``table``, O(S M^2) per step: the code before the FFT path) and by the convolution theorem
  (``fft``, O(S M log M)), with the largest difference of the end points' energies;
* ``exact``: wall time of the exact Theorem 2 row (every component, in Z[zeta_L]);
* ``run_li2``: wall time of every row of ``cogo verify --theory li2`` (Lemma 1 only for M^2 <= 1024).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine_info, write_json  # noqa: E402

from cogo.li2.energy import ascend, li2_group, random_sphere  # noqa: E402
from cogo.li2.theorems import _default_starts, run_li2, theorem2_exact  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/results/li2.json")
    ap.add_argument("--groups", nargs="+", default=["23", "61", "127"])
    ap.add_argument("--no-table", action="store_true", help="skip the slow Cayley-table ascent (the 'before')")
    args = ap.parse_args()
    groups = list(args.groups)
    try:
        import cogo.algebra.representations  # noqa: F401

        groups += ["S3", "D5", "A4"]
    except ImportError:
        pass
    out = {"machine": machine_info(), "groups": {}}
    for spec in groups:
        G = li2_group(spec)
        rec = {}
        t0 = time.perf_counter()
        run = ascend(random_sphere(256, G.order, 0), G)
        rec["ascent"] = {"starts": 256, "seconds": time.perf_counter() - t0, "steps": run.steps,
                         "converged": float(run.converged.mean())}
        if G.as_product is not None:
            S = _default_starts(G)
            W0 = random_sphere(S, G.order, 0)
            rec["theorem2_ascent"] = {"starts": S}
            ends = {}
            for method in (("fft",) if args.no_table else ("table", "fft")):
                t0 = time.perf_counter()
                a = ascend(W0, G, method=method)
                ends[method] = a.E
                rec["theorem2_ascent"][method] = {"seconds": time.perf_counter() - t0, "steps": a.steps,
                                                  "converged": float(a.converged.mean())}
            if len(ends) == 2:
                rec["theorem2_ascent"]["max_abs_energy_difference"] = float(abs(ends["table"] - ends["fft"]).max())
            print(f"{spec}: Theorem 2 ascent, {S} starts: " + ", ".join(
                f"{m} {rec['theorem2_ascent'][m]['seconds']:.2f} s" for m in ends), flush=True)
            t0 = time.perf_counter()
            r = theorem2_exact(G)
            rec["exact"] = {"seconds": time.perf_counter() - t0, "passed": r.passed}
        t0 = time.perf_counter()
        rows = run_li2(G)
        rec["run_li2"] = {"seconds": time.perf_counter() - t0, "all_ok": all(r.passed for r in rows),
                          "rows": {("control: " if r.negative_control else "") + r.name + f" [{r.method}]": r.seconds
                                   for r in rows}}
        out["groups"][spec] = rec
        print(f"{spec}: ascent {rec['ascent']['seconds']:.2f} s ({run.steps} steps), "
              f"exact {rec.get('exact', {}).get('seconds', float('nan')):.2f} s, all rows "
              f"{rec['run_li2']['seconds']:.2f} s, ok={rec['run_li2']['all_ok']}", flush=True)
    write_json(args.out, out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
