"""Benchmark of ``cogo classify`` (SPEC 8): a whole checkpoint, and block factorization vs brute force.

    python benchmarks/bench_classify.py [--out benchmarks/results/classify.json] [--quick]

1. **Time per checkpoint** at d = 127, q = 512: z_F6 (63 order-6 blocks,
   378 live nodes) and z_F4/6 (1 order-6 + 62 order-4 blocks, 254 live nodes),
   each padded with dead nodes to 512 hidden nodes, shuffled, with weight
   noise 1e-4, saved as a checkpoint; timed end to end
   (:func:`cogo.analysis.classify.classify_checkpoint`: load, Fourier
   transform, pruning, factorization, naming, monomial sums).
2. **Time to factor one block** of order 4, 6, 8, 12 (catalogue products,
   random node order, per-node sign and balance gauge, noise 1e-3) with
   :func:`cogo.analysis.factorization.factor_block` (all shapes), and with the
   full :func:`cogo.analysis.classify.classify_block` (plus naming), against the
   **brute-force reference** of SPEC 8.5, written here only: for every shape,
   try all q! node orders and keep the best rank-1 fit of the sign-invariant
   features (same balancing as cogo; batched numpy, 2-mode shapes by SVD,
   more modes by a few power iterations).  At q = 12 (479,001,600 orders)
   the brute force is not run: its time is extrapolated from the measured
   cost per order on a sample of orders, and reported as such.
3. **No slow blocks** (issue 10): products with repeated nodes and large
   orders -- z_nu * z_syn * z_syn (order 18, 12 node orders),
   z_syn * z_syn * z_nu * z_nu (36), an order-48 and an order-64 product --,
   z_M at d = 24 (576 nodes, blocks of up to 82 nodes) and a random
   network at d = 127, q = 4096 (blocks of about 65 random nodes), each
   timed with this tree and, with ``--before COMMIT_TREE`` (a ``git worktree``
   of an older commit), with that tree in a subprocess under ``--timeout``
   seconds (a timeout is recorded as such).  Brute force is out of reach at
   these orders (18! orders and up).
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
from _common import best_of, machine_info, write_json  # noqa: E402

from cogo.analysis.factorization import _prepare, factor_block, factor_shapes  # noqa: E402
from cogo.solvers.partial import z_nu, z_nu_i, z_syn, z_syn_ab, z_xi  # noqa: E402
from cogo.analysis.classify import classify_block, classify_checkpoint  # noqa: E402


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
def bench_checkpoints(tmp: Path, repeat: int) -> dict:
    from cogo.checkpoints import save_checkpoint
    from cogo.solvers.constructions import z_F6, z_F46

    out = {}
    rng = np.random.default_rng(0)
    for name, net in (("z_F6", z_F6(127, seed=1)), ("z_F4/6", z_F46(127, seed=1))):
        Wa, Wb, Wc = net.to_weights()
        q, d = Wa.shape
        pad = 512 - q
        Wa = np.vstack([Wa, np.zeros((pad, d))])
        Wb = np.vstack([Wb, np.zeros((pad, d))])
        Wc = np.hstack([Wc, np.zeros((d, pad))])
        perm = rng.permutation(512)
        Wa, Wb, Wc = (W + 1e-4 * rng.normal(size=W.shape) for W in (Wa[perm], Wb[perm], Wc[:, perm]))
        path = tmp / f"{name.replace('/', '')}_d127_q512.pt"
        save_checkpoint(path, Wa, Wb, Wc, {"group": "127"})
        rep = classify_checkpoint(path)
        types: dict = {}
        for b in rep.blocks:
            types[b.type] = types.get(b.type, 0) + 1
        t = best_of(lambda: classify_checkpoint(path), repeat)
        out[name] = {"d": 127, "hidden": 512, "live_nodes": rep.live_nodes, "blocks": len(rep.blocks),
                     "block_types": types, "seconds_per_checkpoint": t}
        print(f"checkpoint {name:7s} d=127 q=512: {rep.live_nodes} live, {len(rep.blocks)} blocks {types}: "
              f"{t:.3f} s")
    return out


def bench_blocks(repeat: int, quick: bool) -> dict:
    out = {}
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
from cogo.solvers.partial import z_nu, z_nu_i, z_syn, z_xi
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


def bench_slow(before: str | None, timeout: float) -> dict:
    out = {}
    for case in SLOW_CASES:
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
    ap.add_argument("--repeat", type=int, default=5, help="timing repetitions (best of)")
    ap.add_argument("--quick", action="store_true", help="brute force up to order 6 only (order 8 extrapolated)")
    ap.add_argument("--before", default=None, help="a worktree of an older commit to time the slow cases on")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per slow case and tree")
    ap.add_argument("--only-slow", action="store_true", help="run only the slow-block cases (3.)")
    args = ap.parse_args(argv)
    if args.only_slow:
        write_json(args.out, {"benchmark": "classify (slow blocks)", "machine": machine_info(),
                              "before_tree": args.before, "slow_blocks": bench_slow(args.before, args.timeout)})
        return 0
    slow = bench_slow(args.before, args.timeout)
    with tempfile.TemporaryDirectory() as td:
        ckpt = bench_checkpoints(Path(td), max(1, args.repeat // 2))
    blocks = bench_blocks(args.repeat, args.quick)
    res = {
        "benchmark": "classify",
        "machine": machine_info(),
        "checkpoints": ckpt,
        "blocks": blocks,
        "slow_blocks": slow,
        "before_tree": args.before,
        "ratio_order_6_brute_force_over_cogo": blocks["6"]["speedup_vs_brute_force"],
        "order_12_factor_ms": blocks["12"]["factor_seconds"] * 1e3,
        "order_12_under_50ms": blocks["12"]["factor_seconds"] < 0.05,
        "notes": "factor_seconds: factor_block over every shape of the order; classify_seconds adds naming and "
                 "the monomial sums. The brute force tries all q! node orders per shape on the sign-invariant "
                 "features; at order 12 (and order 8 with --quick) its time is extrapolated from a sample.",
    }
    write_json(args.out, res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
