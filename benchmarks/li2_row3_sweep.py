"""Li^2 row 3 ("maxima nodes reconstruct the target") and its control on every group of GAP's SmallGroups library.

    python benchmarks/li2_row3_sweep.py [--max-order 64] [--jsonl /tmp/li2_row3.jsonl] [--out benchmarks/results/li2_row3_sweep.json]

Needs the ``gap`` extra (``pip install "passagemath-gap>=10.4" "passagemath-gap-pkg-smallgrp-data>=10.4"``).
For each order ``n = 2 .. max-order`` and each ``SmallGroup(n, i)``, :func:`cogo.li2.reconstruction.theorem3` runs
(the row of ``cogo verify --theory li2``: 2 x SPEC 9's ``K = 2 sum_k m_k^2 d_k^2`` nodes at maxima, the
reconstruction residual, then the control without one component); one JSON line per group is appended to
``--jsonl`` as it finishes, so an interrupted sweep resumes where it stopped.  ``--out`` summarizes the lines
(groups done, all passed or not, the largest residual, the seconds per group and in all, the machine), also for a
sweep that has not finished (``complete`` false, ``orders_complete`` the orders fully done).
"""
from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path


def _done(jsonl: Path) -> dict:
    out = {}
    if jsonl.is_file():
        for line in jsonl.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                out[rec["group"]] = rec
    return out


def sweep(max_order: int, jsonl: Path) -> None:
    from cogo.algebra.smallgroups import _libgap
    from cogo.li2.reconstruction import theorem3

    lib = _libgap()
    done = _done(jsonl)
    with jsonl.open("a") as fh:
        for n in range(2, max_order + 1):
            for i in range(1, int(lib.NumberSmallGroups(n)) + 1):
                g = f"SmallGroup({n},{i})"
                if g in done:
                    continue
                t = time.time()
                try:
                    rows = theorem3(g)
                    rec = {"group": g, "passed": [bool(r.passed) for r in rows],
                           "residual": [float(r.residual) for r in rows], "nodes": rows[0].details.get("nodes"),
                           "seconds": time.time() - t}
                except Exception as exc:  # recorded, not hidden: the summary counts it as a failure
                    rec = {"group": g, "error": f"{type(exc).__name__}: {exc}"[:300], "seconds": time.time() - t}
                fh.write(json.dumps(rec) + "\n")
                fh.flush()


def summarize(max_order: int, jsonl: Path) -> dict:
    from cogo.algebra.smallgroups import _libgap

    lib = _libgap()
    recs = list(_done(jsonl).values())
    counts = {n: int(lib.NumberSmallGroups(n)) for n in range(2, max_order + 1)}
    by_order: dict = {}
    for r in recs:
        n = int(r["group"].split("(")[1].split(",")[0])
        by_order.setdefault(n, []).append(r)
    complete = [n for n in counts if len(by_order.get(n, [])) == counts[n]]
    failed = [r["group"] for r in recs if "error" in r or not all(r["passed"])]
    from importlib.metadata import PackageNotFoundError, version

    def ver(pkg: str) -> str:
        try:
            return f"{pkg} {version(pkg)}"
        except PackageNotFoundError:
            return f"{pkg} (not installed)"

    return {
        "command": f"python benchmarks/li2_row3_sweep.py --max-order {max_order}",
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "gap": ", ".join(ver(p) for p in ("passagemath-gap", "passagemath-gap-pkg-smallgrp-data")),
        "threads": "one (OMP_NUM_THREADS=1)",
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}; 2 cores shared with other jobs "
                   "(this project's machine): seconds are wall times under load",
        "groups_total": sum(counts.values()), "groups_done": len(recs), "complete": len(recs) == sum(counts.values()),
        "orders_complete": f"2..{max(n for n in complete if all(m in complete for m in range(2, n + 1)))}"
        if 2 in complete else "none",
        "all_passed": not failed, "failed": failed,
        "largest_residual": max((r["residual"][0] for r in recs if "residual" in r), default=None),
        "seconds_total": round(sum(r["seconds"] for r in recs), 1),
        "seconds_max": max(((round(r["seconds"], 1), r["group"]) for r in recs), default=None),
        "groups": sorted(recs, key=lambda r: tuple(int(x) for x in r["group"][11:-1].split(","))),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-order", type=int, default=64)
    ap.add_argument("--jsonl", type=Path, default=Path("/tmp/li2_row3.jsonl"))
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--summarize-only", action="store_true", help="write --out from --jsonl without sweeping")
    args = ap.parse_args()
    if not args.summarize_only:
        sweep(args.max_order, args.jsonl)
    if args.out is not None:
        args.out.write_text(json.dumps(summarize(args.max_order, args.jsonl), indent=1) + "\n")


if __name__ == "__main__":
    main()
