"""Distances to the nearest certified optimizer (cogo.analysis.verdict.snap) on trained and perturbed networks.

Usage::

    python benchmarks/verdict_distances.py RUN.pt [RUN.pt ...] [--out benchmarks/results/verdict_distances.json]

For each checkpoint: the network distance, the worst block, the loss relative to the zero network's, the verdict,
and per block its order, classify's type, the nearest certified form, the distance (None when the block is not in a
family of a global optimizer) and the relative loss at its frequency.  Also, as a
scale: z_F6, z_F4/6 and the 7.2 variant on Z_23 with relative weight noise 1e-5 .. 5e-2, and z_F6 rounded to
bfloat16.  The summary gives the distances per block type (min / median / max).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine_info, write_json  # noqa: E402


def _one(path: str) -> dict:
    from cogo.proofs.trained import verify_checkpoint

    v = verify_checkpoint(path)
    no = v.nearest_optimum
    return {"path": path, "verdict": v.verdict, "distance": no["distance"], "worst_block": no["worst_block"],
            "loss": no["loss_trained"], "relative_loss": no["relative_loss"], "blocks_away": no["blocks_away"],
            "blocks": [{k: b[k] for k in ("k", "order", "type", "nearest", "distance", "relative_loss")}
                       for b in v.blocks]}


def _perturbed() -> list:
    import torch

    from cogo.algebra.loss import real_loss
    from cogo.analysis.classify import read_network
    from cogo.proofs.trained import zero_network_loss
    from cogo.solvers.constructions import z_F6, z_F6_ab, z_F46

    rows = []
    rng = np.random.default_rng(0)
    for name, net in (("z_F6", z_F6(23, seed=1)), ("z_F4/6", z_F46(23, seed=1)), ("7.2", z_F6_ab(23, seed=1))):
        W0 = net.to_weights(real=True)
        for e in (1e-5, 1e-4, 1e-3, 1e-2, 3e-2, 5e-2):
            W = [w * (1 + e * rng.standard_normal(w.shape)) for w in W0]
            rows.append({"network": name, "noise": e, "distance": read_network(*W, group=23).snap.distance,
                         "relative_loss": real_loss(*W, group=23) / zero_network_loss(23)})
    Wb = [torch.as_tensor(w).to(torch.bfloat16).double().numpy() for w in z_F6(23, seed=1).to_weights(real=True)]
    rows.append({"network": "z_F6", "noise": "bfloat16 rounding", "distance": read_network(*Wb, group=23).snap.distance,
                 "relative_loss": real_loss(*Wb, group=23) / zero_network_loss(23)})
    return rows


def _summary(runs: list) -> dict:
    by: dict = {}
    for r in runs:
        for b in r["blocks"]:
            if b["distance"] is not None:
                by.setdefault(f"order {b['order']}: {b['type']} -> {b['nearest']}", []).append(b["distance"])
    return {k: {"count": len(v), "min": float(np.min(v)), "median": float(np.median(v)), "max": float(np.max(v))}
            for k, v in sorted(by.items())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "verdict_distances.json"))
    args = ap.parse_args()
    runs = [_one(f) for f in args.files]
    for r in runs:
        wb = r["worst_block"] or {}
        print(f"{r['path']}: {r['verdict']}, distance {r['distance']:.3g}, worst block {wb.get('distance', 0):.3g}, "
              f"loss {r['loss']:.3g}, relative loss {r['relative_loss']:.3g}")
    doc = {"machine": machine_info(), "runs": runs, "per_block_type": _summary(runs), "perturbed": _perturbed()}
    for k, s in doc["per_block_type"].items():
        print(f"  {k}: {s['count']} blocks, distance {s['min']:.3g} / {s['median']:.3g} / {s['max']:.3g}")
    for r in doc["perturbed"]:
        print(f"  {r['network']} noise {r['noise']}: distance {r['distance']:.3g}, relative loss {r['relative_loss']:.3g}")
    write_json(args.out, doc)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
