"""Reproduce cogo's side of the issue-#10 table: d = 23, 5 seeds, `cogo train`, classified two ways.

Trains (or reuses) 5 seeds of the reference experiment with ``cogo train --threads 1``
(d = 23, q = 512, Adam, lr 0.01, wd 5e-5, 10,000 epochs), classifies the checkpoints
with the default settings and with ``--preset paper``, and writes
``benchmarks/results/paper_table.json`` with both rows (the reference's columns,
mean +- standard error over seeds), the published row beside them, whether each
column lies within two standard errors of the published value, and the tolerance curve.

Usage::

    python benchmarks/bench_paper_table.py [--runs DIR] [--epochs 10000] [--seeds 1-5]

Training 5 seeds of 10,000 epochs takes minutes on one thread; pass ``--runs`` to reuse
checkpoints (any ``*.pt`` under DIR).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine_info, write_json  # noqa: E402

#: The published d = 23 rows (percent), from issue #10.
PUBLISHED = {
    "paper code / paper classifier": {"nu=i*xi": 47.1, "nu=i*syn_ab": 11.3, "nu*syn": 39.8, "others": 1.8},
    "paper code / cogo (before #10)": {"nu=i*xi": 47.1, "nu=i*syn_ab": 7.7, "nu*syn": 20.8, "others": 24.4},
    "cogo / cogo (before #10)": {"nu=i*xi": 47.3, "nu=i*syn_ab": 9.1, "nu*syn": 23.6, "others": 20.0},
}


def train(out: Path, epochs: int, seeds: str) -> list[Path]:
    cmd = [sys.executable, "-m", "cogo.cli", "train", "--group", "23", "--hidden", "512", "--wd", "5e-5",
           "--epochs", str(epochs), "--seeds", seeds, "--threads", "1", "--no-progress", "--out", str(out)]
    subprocess.run(cmd, check=True)
    return sorted(out.rglob("*.pt"))


def row(summary: dict) -> dict:
    return {c: {"mean_percent": None if d["mean"] is None else 100 * d["mean"],
                "se_percent": None if d["se"] is None else 100 * d["se"], "n": d["n"]}
            for c, d in summary["paper_columns"].items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", default="/tmp/cogo_paper_table", help="checkpoint directory (trained if empty)")
    ap.add_argument("--epochs", type=int, default=10000)
    ap.add_argument("--seeds", default="1-5")
    args = ap.parse_args()
    from cogo.analysis.classify import Settings, classify_many, tolerance_curve

    runs = Path(args.runs)
    paths = sorted(runs.rglob("*.pt")) if runs.is_dir() else []
    t0 = time.perf_counter()
    if not paths:
        runs.mkdir(parents=True, exist_ok=True)
        paths = train(runs, args.epochs, args.seeds)
    t_train = time.perf_counter() - t0
    out = {"machine": machine_info(), "checkpoints": [str(p) for p in paths], "train_seconds": t_train,
           "published": PUBLISHED, "rows": {}}
    ref = PUBLISHED["paper code / paper classifier"]
    for preset in ("default", "paper"):
        t = time.perf_counter()
        res = classify_many(paths, settings=Settings.preset_named(preset))
        r = row(res.summary)
        within = {c: (r[c]["se_percent"] is not None and abs(r[c]["mean_percent"] - ref[c]) <= 2 * r[c]["se_percent"])
                  for c in r if r[c]["mean_percent"] is not None}
        out["rows"][f"cogo / cogo --preset {preset}"] = {"columns": r, "within_2se_of_published": within,
                                                          "classify_seconds": time.perf_counter() - t}
        if preset == "default":
            out["tolerance_curve"] = tolerance_curve(res.weights, settings=res.settings)
    write_json(Path(__file__).resolve().parent / "results" / "paper_table.json", out)
    for name, r in out["rows"].items():
        print(name, {c: round(v["mean_percent"] or 0, 1) for c, v in r["columns"].items()})
    print("published", ref)


if __name__ == "__main__":
    main()
