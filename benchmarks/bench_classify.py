"""Benchmark of ``cogo classify`` (SPEC 8): against the reference's algorithm, per block, and a sweep.

    python benchmarks/bench_classify.py [--out benchmarks/results/classify.json] [--sweep 300] [--workers 2]
        [--before OLD_TREE] [--slow]

1. **cogo against the reference's algorithm**, in one process, on the networks of the reference's
   case: z_F6 at d = 127 (63 order-6 blocks, 378 live nodes) and z_F4/6 (1 order-6 and 62 order-4
   blocks), each padded with dead nodes to 512 hidden nodes, shuffled, every node's sign gauge
   ``(a, b, c) -> (-a, -b, c)`` drawn at random, weight noise 1e-4, saved as a checkpoint.  Timed:
   ``cogo.classify(path)`` (load, Fourier transform, blocks, factorization, names, nearest forms,
   conditions and the network verdict), its parts (the block reading alone,
   ``read_network(..., with_verdict=False)``, and the verdict), and the reference's algorithm
   as ``benchmarks/reference_classifier.py`` re-implements it, with the node-order search run as the
   reference's code runs it (:func:`reference_classifier.node_order_looped`: every node order of every
   order-4/6 block, a few torch operations each; not the reference's code); best of 2 after a warm-up, one thread,
   the calls round-robin (``_common.best_of_each``: a burst of load on the shared machine falls on all alike).
2. **Per block, by order**: ``classify_block`` (factorization, names, nearest form, conditions) and
   ``factor_block`` for catalogue blocks of order 2, 3, 4, 6, 8, 12 (random node order, per-node
   sign and balance gauge, noise 1e-3), and for orders 4-12 the **brute force** of SPEC 8.5, written
   here only: for every shape, all q! node orders, the best rank-1 fit of the sign-invariant features
   (batched numpy); extrapolated from a sample above order 6.
3. **A sweep**: ``--sweep N`` (300) checkpoints like the z_F6 one of 1. (each its own draw of noise,
   order and signs) classified by ``cogo classify DIR/*.npz --workers W`` in a subprocess, wall time
   end to end with the load average around it.
4. **Large blocks**: a random network at d = 127, q = 4096 (blocks of about 65 random nodes), in a
   subprocess with this tree and, with ``--before OLD_TREE`` (a copy of an older commit's tree),
   with that tree; ``--slow`` adds the products with repeated nodes and large orders
   (z_nu * z_syn * z_syn, z_syn * z_syn * z_nu * z_nu, orders 48 and 64) and z_M at d = 24.
"""
from __future__ import annotations

import argparse
import itertools
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import best_of, best_of_each, machine_info, write_json  # noqa: E402

from cogo.analysis.factor.factorization import _prepare, factor_block  # noqa: E402
from cogo.analysis.factor.kronecker import factor_shapes  # noqa: E402
from cogo.catalogue.partial import z_nu, z_nu_i, z_syn, z_syn_ab, z_xi  # noqa: E402
from cogo.analysis.classify import classify_block  # noqa: E402


def block(q: int, seed: int = 0, noise: float = 1e-3) -> np.ndarray:
    """A scrambled catalogue block of order q (4, 6, 8, 12) as (3, q): random node order, gauge, noise."""
    rng = np.random.default_rng(seed)
    u = lambda t: complex(np.exp(1j * t))  # fixed generic parameters (away from the special values)
    ps = {4: lambda: z_nu_i() * z_xi(u(0.7), 1),
          6: lambda: z_nu(u(0.4)) * z_syn(),
          8: lambda: z_nu_i() * z_xi(u(1.9), -1) * z_nu(u(0.4)),
          12: lambda: z_nu_i() * z_nu(u(0.4)) * z_syn_ab(u(2.6), u(4.1))}[q]()
    x = np.stack([ps.a, ps.b, ps.c]) * q ** (-1 / 3)
    x = x[:, rng.permutation(q)]
    t = np.exp(rng.normal(size=q) * 0.4) * rng.choice([-1.0, 1.0], size=q)
    x = x * np.stack([t, t, t ** -2.0])
    return x + noise * (rng.normal(size=(3, q)) + 1j * rng.normal(size=(3, q))) / math.sqrt(2)


# --------------------------------------------------------------------------- the brute-force reference
def _rank1_err2(T: np.ndarray, shape: tuple[int, ...], iters: int = 8) -> np.ndarray:
    """Squared residual of the best rank-1 fit of each tensor in the batch ``T`` (B, C, *shape), summed over C."""
    B, C = T.shape[:2]
    tot = (np.abs(T) ** 2).reshape(B, C, -1).sum(-1)
    if len(shape) == 2:
        s = np.linalg.svd(T, compute_uv=False)[..., 0]
        return (tot - s ** 2).sum(-1)
    k = len(shape)
    us = [np.ones((B, C, m), dtype=complex) / math.sqrt(m) for m in shape]
    for i in range(k):  # HOSVD start
        unf = np.moveaxis(T, i + 2, 2).reshape(B, C, shape[i], -1)
        U, _, _ = np.linalg.svd(unf, full_matrices=False)
        us[i] = U[..., 0]
    L = "abcdefg"[:k]
    for _ in range(iters):
        for i in range(k):
            ops = [np.conj(us[j]) for j in range(k) if j != i]
            sub = ",".join("yz" + L[j] for j in range(k) if j != i)
            w = np.einsum(f"yz{L},{sub}->yz{L[i]}", T, *ops)
            us[i] = w / np.maximum(np.linalg.norm(w, axis=-1, keepdims=True), 1e-300)
    lam = np.einsum(f"yz{L}," + ",".join("yz" + ch for ch in L) + "->yz", T, *[np.conj(u) for u in us])
    return (tot - np.abs(lam) ** 2).sum(-1)


def brute_force(x: np.ndarray, max_orders: int | None = None, batch: int = 20000) -> dict:
    """Best relative feature-fit error per shape over all q! node orders (or the first ``max_orders``)."""
    _, F, _ = _prepare(*x)
    q = F.shape[0]
    Fc = F.T  # (4, q)
    norm2 = float((np.abs(F) ** 2).sum())
    out = {}
    n_orders = math.factorial(q) if max_orders is None else min(max_orders, math.factorial(q))
    for shape in factor_shapes(q):
        best = math.inf
        perms = itertools.islice(itertools.permutations(range(q)), n_orders)
        while True:
            chunk = np.array(list(itertools.islice(perms, batch)), dtype=np.int64)
            if chunk.size == 0:
                break
            T = Fc[:, chunk].transpose(1, 0, 2).reshape((len(chunk), 4) + shape)
            best = min(best, float(_rank1_err2(T, shape).min()))
        out["x".join(map(str, shape))] = math.sqrt(max(best, 0.0) / norm2)
    return {"orders": n_orders, "best_feature_error": out}


# --------------------------------------------------------------------------- benchmarks
def reference_case(name: str, seed: int = 0, net_seed: int = 1, d: int = 127, hidden: int = 512,
                   noise: float = 1e-4) -> tuple:
    """The reference's case: z_F6 or z_F4/6 at d, padded with dead nodes, shuffled, signs flipped, noisy."""
    from cogo.solvers.constructions import z_F6, z_F46

    net = {"z_F6": z_F6, "z_F4/6": z_F46}[name](d, seed=net_seed)
    Wa, Wb, Wc = net.to_weights()
    q = Wa.shape[0]
    rng = np.random.default_rng(seed)
    Wa = np.vstack([Wa, np.zeros((hidden - q, d))])
    Wb = np.vstack([Wb, np.zeros((hidden - q, d))])
    Wc = np.hstack([Wc, np.zeros((d, hidden - q))])
    perm = rng.permutation(hidden)
    sign = rng.choice([-1.0, 1.0], size=hidden)
    Wa, Wb, Wc = Wa[perm] * sign[:, None], Wb[perm] * sign[:, None], Wc[:, perm]
    return tuple(W + noise * rng.normal(size=W.shape) for W in (Wa, Wb, Wc))


def bench_reference(tmp: Path, repeat: int = 2) -> dict:
    """cogo against the reference's algorithm (reference_classifier.py, looped search), one process, best of ``repeat``."""
    import torch

    import reference_classifier as R
    import cogo
    from cogo.analysis.classify import Settings, read_network
    from cogo.analysis.verdict.network_verdict import network_verdict
    from cogo.io.weights import read_checkpoint, save_checkpoint

    torch.set_num_threads(1)
    out = {}
    for name in ("z_F6", "z_F4/6"):
        Wa, Wb, Wc = reference_case(name)
        path = tmp / f"{name.replace('/', '')}_d127_q512.pt"
        save_checkpoint(path, Wa, Wb, Wc, {"group": "127"})
        w = read_checkpoint(path)
        rep = cogo.classify(str(path)).reports[0]  # warm-up (imports, caches)
        def reference(v):
            names = R.reference_names_looped(v.Wa, v.Wb, v.Wc)
            return {n: list(names.values()).count(n) for n in sorted(set(names.values()))}

        ref = reference(w)
        t = best_of_each({"cogo": lambda: cogo.classify(str(path)),
                          "fast": lambda: cogo.classify(str(path), settings=Settings(verdict=False)),
                          "ref": lambda: reference(read_checkpoint(path)),
                          "blocks": lambda: read_network(w.Wa, w.Wb, w.Wc, w.group, with_verdict=False),
                          "verdict": lambda: network_verdict(Wa=w.Wa, Wb=w.Wb, Wc=w.Wc, group=w.group)}, repeat)
        t_cogo, t_fast, t_ref, t_blocks, t_verdict = t["cogo"], t["fast"], t["ref"], t["blocks"], t["verdict"]
        types: dict = {}
        for bl in rep.blocks:
            types[bl.type] = types.get(bl.type, 0) + 1
        out[name] = {"d": 127, "hidden": 512, "live_nodes": rep.live_nodes, "blocks": len(rep.blocks),
                     "block_types": types, "reference_readings": ref,
                     "cogo_classify_seconds": t_cogo, "cogo_classify_no_verdict_seconds": t_fast,
                     "cogo_block_reading_seconds": t_blocks,
                     "cogo_verdict_seconds": t_verdict, "reference_algorithm_seconds": t_ref,
                     "ratio_cogo_over_reference": t_cogo / t_ref,
                     "ratio_cogo_no_verdict_over_reference": t_fast / t_ref,
                     "ratio_block_reading_over_reference": t_blocks / t_ref}
        print(f"{name:7s} d=127 q=512: {len(rep.blocks)} blocks {types}; cogo.classify {t_cogo:.3f} s "
              f"(verdict=False {t_fast:.3f} s, ratio {t_fast / t_ref:.3f}; blocks "
              f"{t_blocks:.3f} s, verdict {t_verdict:.3f} s), reference algorithm {t_ref:.3f} s {ref}: "
              f"ratio {t_cogo / t_ref:.3f} (blocks alone {t_blocks / t_ref:.3f})", flush=True)
    return out


def bench_sweep(tmp: Path, n: int, workers: int, flags: tuple = ()) -> dict:
    """``cogo classify DIR/*.npz --workers W [flags]`` on ``n`` z_F6 checkpoints (reference_case draws), wall time end to end."""
    import os
    import subprocess

    paths = []
    for i in range(n):
        Wa, Wb, Wc = reference_case("z_F6", seed=1000 + i)
        p = tmp / f"sweep_{i:04d}.npz"
        np.savez(p, Wa=Wa, Wb=Wb, Wc=Wc)
        paths.append(str(p))
    cmd = [sys.executable, "-m", "cogo.cli", "classify", *paths, "--group", "127", "--workers", str(workers),
           "--no-progress", "--json", str(tmp / "sweep.json"), "--force", *flags]
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    load1 = os.getloadavg()
    if p.returncode != 0:
        return {"error": p.stderr[-400:], "wall_seconds": wall}
    import json

    summary = json.loads((tmp / "sweep.json").read_text())["summary"]
    out = {"checkpoints": n, "workers": workers, "flags": list(flags), "wall_seconds": wall,
           "seconds_per_checkpoint": wall / n,
           "load_average_before": list(load0), "load_average_after": list(load1),
           "blocks": summary["blocks"],
           "type_distribution": {t: v["mean"] for t, v in summary["type_distribution"].items()}}
    print(f"sweep: {n} checkpoints, --workers {workers} {' '.join(flags)}: {wall:.1f} s wall ({wall / n:.3f} s each); load "
          f"{load0[0]:.1f} -> {load1[0]:.1f}; {out['type_distribution']}", flush=True)
    return out


def bench_blocks(repeat: int, quick: bool) -> dict:
    out = {}
    rng = np.random.default_rng(2)
    for q, ps in ((2, z_nu(complex(np.exp(0.4j)))), (3, z_syn())):  # lone factors: named, not factored
        x = np.stack([ps.a, ps.b, ps.c]) * q ** (-1 / 3)
        x = x + 1e-3 * (rng.normal(size=x.shape) + 1j * rng.normal(size=x.shape)) / math.sqrt(2)
        t_classify = best_of(lambda: classify_block(*x), repeat)
        out[str(q)] = {"order": q, "type": classify_block(*x).type, "classify_seconds": t_classify}
        print(f"order {q:2d} {out[str(q)]['type']:24s} classify {t_classify * 1e3:7.2f} ms")
    for q in (4, 6, 8, 12):
        x = block(q, seed=q)
        bf = factor_block(*x)
        t_factor = best_of(lambda: factor_block(*x), repeat)
        t_classify = best_of(lambda: classify_block(*x), repeat)
        rep = classify_block(*x)
        row = {"order": q, "shape": list(bf.best.shape), "error": bf.best.error, "type": rep.type,
               "factor_seconds": t_factor, "classify_seconds": t_classify}
        total = math.factorial(q)
        if q <= (6 if quick else 8):
            t0 = time.perf_counter()
            bfr = brute_force(x)
            tb = time.perf_counter() - t0
            row.update(brute_force_seconds=tb, brute_force_orders=total, brute_force_extrapolated=False,
                       brute_force_best_feature_error=bfr["best_feature_error"])
        else:
            sample = 20000
            t0 = time.perf_counter()
            brute_force(x, max_orders=sample)
            ts = time.perf_counter() - t0
            row.update(brute_force_seconds=ts / sample * total, brute_force_orders=total,
                       brute_force_extrapolated=True, brute_force_sampled_orders=sample,
                       brute_force_sample_seconds=ts)
        row["speedup_vs_brute_force"] = row["brute_force_seconds"] / t_factor
        out[str(q)] = row
        extra = " (extrapolated)" if row["brute_force_extrapolated"] else ""
        print(f"order {q:2d} {row['type']:24s} factor {t_factor * 1e3:7.2f} ms  classify {t_classify * 1e3:7.2f} ms  "
              f"brute force {row['brute_force_seconds']:.3g} s{extra}  ratio {row['speedup_vs_brute_force']:.3g}")
    return out


SLOW_CASES = ("nu*syn*syn", "syn*syn*nu*nu", "order48", "order64", "z_M d=24", "random d=127 q=4096")

_CASE_CODE = r"""
import json, math, sys, time
import numpy as np
from cogo.catalogue.partial import z_nu, z_nu_i, z_syn, z_xi
from cogo.analysis.classify import classify_block, read_network
u = lambda t: complex(np.exp(1j * t))
def blk(ps, seed, noise=1e-3):
    rng = np.random.default_rng(seed); q = ps.q
    x = np.stack([ps.a, ps.b, ps.c]) * q ** (-1 / 3)
    x = x[:, rng.permutation(q)]
    t = np.exp(rng.normal(size=q) * 0.4) * rng.choice([-1.0, 1.0], size=q)
    x = x * np.stack([t, t, t ** -2.0])
    return x + noise * (rng.normal(size=(3, q)) + 1j * rng.normal(size=(3, q))) / math.sqrt(2)
PS = {"nu*syn*syn": (lambda: z_nu(u(0.4)) * z_syn() * z_syn(), "z_nu * z_syn * z_syn", 12),
      "syn*syn*nu*nu": (lambda: z_syn() * z_syn() * z_nu(u(0.4)) * z_nu(u(1.1)), "z_nu * z_nu * z_syn * z_syn", 2),
      "order48": (lambda: z_nu_i() * z_xi(u(0.7), 1) * z_nu(u(0.4)) * z_nu(u(1.3)) * z_syn(),
                  "z_nu=i * z_nu * z_nu * z_xi * z_syn", 2),
      "order64": (lambda: z_nu_i() * z_xi(u(0.7), 1) * z_nu(u(0.4)) * z_nu(u(1.3)) * z_xi(u(2.0), -1) * z_nu(u(2.9)),
                  "z_nu=i * z_nu * z_nu * z_nu * z_xi * z_xi", 2)}
case = sys.argv[1]
if case in PS:
    make, want, n = PS[case]
    rows = []
    for seed in range(n):
        t0 = time.perf_counter(); r = classify_block(*blk(make(), seed))
        rows.append({"seed": seed, "type": r.type, "shape": list(r.shape or []), "seconds": time.perf_counter() - t0,
                     "right": r.type == want})
        print(json.dumps(rows[-1]), flush=True)
    out = {"expected": want, "right": sum(x["right"] for x in rows), "of": n,
           "seconds_max": max(x["seconds"] for x in rows), "seconds_total": sum(x["seconds"] for x in rows)}
else:
    if case == "z_M d=24":
        from cogo.solvers.constructions import z_M
        Wa, Wb, Wc = z_M(24).to_weights(real=True); d = 24
    else:
        rng = np.random.default_rng(0); d = 127
        Wa, Wb, Wc = rng.normal(size=(4096, d)), rng.normal(size=(4096, d)), rng.normal(size=(d, 4096))
    t0 = time.perf_counter(); r = read_network(Wa, Wb, Wc, d)
    out = {"seconds": time.perf_counter() - t0, "blocks": len(r.blocks), "max_order": max(b.order for b in r.blocks),
           "factorable": sum(b.factorable for b in r.blocks)}
print("RESULT " + json.dumps(out), flush=True)
"""


def _run_case(case: str, tree: str | None, timeout: float) -> dict:
    """Run one slow case in a subprocess on ``tree`` (None: this tree) under ``timeout`` seconds."""
    import json
    import os
    import subprocess

    env = dict(os.environ, OMP_NUM_THREADS="1")
    if tree:
        env["PYTHONPATH"] = str(Path(tree).resolve())
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", _CASE_CODE, case], env=env, capture_output=True, text=True,
                           timeout=timeout, cwd=tree or None)
    except subprocess.TimeoutExpired as exc:
        done = [json.loads(x) for x in (exc.stdout or b"").decode().splitlines() if x.startswith("{")] \
            if isinstance(exc.stdout, bytes) else []
        return {"timed_out": True, "timeout_seconds": timeout, "finished_before_timeout": done}
    lines = [x for x in p.stdout.splitlines() if x.startswith("RESULT ")]
    if not lines:
        return {"error": (p.stderr or "")[-400:], "wall_seconds": time.perf_counter() - t0}
    out = json.loads(lines[-1][7:])
    out["timed_out"] = False
    return out


def bench_slow(before: str | None, timeout: float, cases: tuple = SLOW_CASES) -> dict:
    out = {}
    for case in cases:
        row = {"after": _run_case(case, None, timeout)}
        if before:
            row["before"] = _run_case(case, before, timeout)
        out[case] = row
        print(case, {k: {kk: v[kk] for kk in ("right", "of", "seconds_max", "seconds", "timed_out") if kk in v}
                     for k, v in row.items()}, flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="benchmarks/results/classify.json", help="JSON output path")
    ap.add_argument("--repeat", type=int, default=5, help="timing repetitions per block (best of)")
    ap.add_argument("--quick", action="store_true", help="brute force up to order 6 only (order 8 extrapolated)")
    ap.add_argument("--sweep", type=int, default=300, help="checkpoints in the sweep (0: no sweep)")
    ap.add_argument("--workers", type=int, default=2, help="cogo classify --workers for the sweep")
    ap.add_argument("--before", default=None, help="a copy of an older commit's tree to time the large blocks on")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per large-block case and tree")
    ap.add_argument("--slow", action="store_true", help="also the products with repeated nodes, orders 48, 64, z_M")
    ap.add_argument("--only-slow", action="store_true", help="run only the large-block cases (4.), all of them")
    args = ap.parse_args(argv)
    cases = SLOW_CASES if args.slow or args.only_slow else ("random d=127 q=4096",)
    if args.only_slow:
        write_json(args.out, {"benchmark": "classify (large blocks)", "machine": machine_info(),
                              "before_tree": args.before, "large_blocks": bench_slow(args.before, args.timeout, cases)})
        return 0
    import os

    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as td:
        ref = bench_reference(Path(td))
    blocks = bench_blocks(args.repeat, args.quick)
    with tempfile.TemporaryDirectory() as td:
        sweep = bench_sweep(Path(td), args.sweep, args.workers) if args.sweep else None
        sweep_fast = bench_sweep(Path(td), args.sweep, args.workers, ("--no-verdict",)) if args.sweep else None
    slow = bench_slow(args.before, args.timeout, cases)
    res = {
        "benchmark": "classify",
        "machine": machine_info(),
        "load_average_at_start": list(load0),
        "reference_comparison": ref,
        "ratio_cogo_over_reference_z_F6": ref["z_F6"]["ratio_cogo_over_reference"],
        "blocks": blocks,
        "sweep": sweep,
        "sweep_no_verdict": sweep_fast,
        "large_blocks": slow,
        "before_tree": args.before,
        "ratio_order_6_brute_force_over_cogo": blocks["6"]["speedup_vs_brute_force"],
        "notes": "reference_algorithm_seconds: the reference's algorithm (every node order of every order-4/6 block "
                 "in torch, one order at a time) as benchmarks/reference_classifier.py re-implements it, not the reference's code; the "
                 "reference computes no network verdict, so cogo_block_reading_seconds is the like-for-like part. "
                 "factor_seconds: factor_block over every shape of the order; classify_seconds adds naming, the "
                 "nearest form and the monomial sums. The brute force tries all q! node orders per shape on the "
                 "sign-invariant features; above order 6 (8 with --quick) its time is extrapolated from a sample.",
    }
    write_json(args.out, res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
