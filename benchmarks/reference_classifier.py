"""The reference classifier's reading of a network, re-implemented to compare with cogo's (issue 35).

What this re-implements
-----------------------
``analyze_solution`` and ``summarize46`` of ``ssl/real-dataset/cogo/factorize_sol.py``
(with ``analyze_component_v2`` and ``check_component``) and the Fourier transform of
``load_model_traj`` in ``ssl/real-dataset/cogo/analyze_util.py``, in
facebookresearch/luckmatters at commit 625b5f7de69dc321f24376f5c6fe3446af3a364b
(2025-10-18), the code behind Table 2 of the CoGO paper (Y. Tian, arXiv:2410.01779).
Written from a reading of that code, not copied.  The algorithm:

1. Fourier coefficients without cogo's scale: ``A[k, j] = (1/d) sum_x Wa[j, x] e^{-2 pi i k x / d}``,
   the same for ``B``; ``C[k, j] = (1/d) sum_x Wc[x, j] e^{+2 pi i k x / d}`` (the opposite sign:
   cogo's convention of SPEC 2 without the factor ``(2d)^(1/3)``).
2. Each node's frequency is the ``k`` in ``0..(d-1)/2`` (``0`` included) with the largest ``|A[k, j]|``;
   a node is dead when that largest value is at most 0.05 (absolute).  Only ``A`` decides.
3. For each ``k = 1..(d-1)/2`` the block is its nodes; only blocks of 4 or 6 nodes are read.
4. Node order: over all ``q!`` orders of the block's nodes, the one whose output ratios
   ``C[k, first half] / C[k, second half]`` are most nearly constant (smallest
   ``|| ratio - mean(ratio) ||``; the first such order in ``itertools.permutations`` order).
   Only ``C`` decides the order.
5. Sign fix: with ``t = A[k, second half] / A[k, first half]``, every first-half node with
   ``|t_j - t_0| > 0.2`` gets ``(a, b) -> (-a, -b)``.
6. ``ratio = (second half) / (first half)`` for each of ``A, B, C``; ``err`` = Frobenius norm of
   ``ratio`` minus its row means.  Non-factorable when ``err > 0.1 sqrt(3 q)``; those blocks leave
   the denominator.  Factor 1 (order 2): columns ``1`` and the row means of ``ratio``;
   factor 2 (order ``q/2``): the first half, each row divided by its first node.
7. Each factor's columns are divided by the principal cube root of ``a b c`` (column-wise), then
   (tolerance 0.1): order 2: ``c ~ +-i`` -> ``xi``; else ``c ~ 1`` and ``a ~ +-i`` -> ``4c``
   (``z_nu=i``); else ``a + b ~ 0`` -> ``nu``; else unknown.  Order 3: columns with
   ``Re a > 0`` get ``(a, b) -> (-a, -b)``; all conjugated when ``Im c`` of column 1 is negative;
   column 1 within ``0.1 sqrt 3`` (vector norm) of ``(w, w, w)`` and column 2 of ``conj`` -> ``syn``;
   else ``c_1 ~ w`` and ``c_2 ~ conj w`` -> ``syn-ab``; else unknown.
8. The two labels sorted as strings name the block: order 4 ``(4c, xi)`` -> ``nu=i*xi``;
   order 6 ``(nu, syn)`` -> ``nu*syn``; order 6 ``(4c, syn-ab)`` or ``(4c, syn)`` ->
   ``nu=i*syn_ab``; any other factorable block -> ``others``.  Column percentages per network:
   count over the factorable order-4 and order-6 blocks; mean and standard error over seeds.

Points of interpretation (where the reference is silent, ambiguous or cannot run)
-------------------------------------------------------------------------------
* Precision: the reference reads float32 weights into complex64 (``cfloat``), its characters
  built from float32 cosines and ``v ** i``.  Here the characters are complex128 and the
  arithmetic runs in ``dtype`` (complex64 by default, as the reference; complex128 on request).
  Only ties in step 4 (exact constructions) and values within rounding of a threshold can differ.
* Step 4 on a tie: the reference keeps the first minimum (strict ``<``); here ``argmin`` (the
  first).  An error that is NaN (a zero ``C`` entry) never wins, as in the reference; if every
  order is NaN the reference would fail, here the block is ``non-factorable``.
* Step 7: the reference's order-2 "unnormalized" branch returns a bare string that its caller
  cannot unpack (it would stop); after the normalization it can only be reached by rounding.
  Here it is a label like any other (the block is then ``others``).
* Names: the reference counts only.  Here every block gets a name: the four columns above,
  ``non-factorable`` (order 4 or 6, step 6), or ``order-m`` for ``m`` nodes, ``m`` not 4 or 6
  (the reference skips those).

Usage::

    python benchmarks/reference_classifier.py --root CHECKPOINTS [--dims 23 71 127]
        [--out benchmarks/results/reference_classifier.json]

compares, per block, with ``cogo`` ``--preset paper`` on the checkpoints ``ROOT/d{d}/*.pt``.
"""
from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np

DEAD = 0.05          # step 2
SIGN_TOL = 0.2       # step 5
TOL = 0.1            # steps 6-7
W3 = complex(math.cos(2 * math.pi / 3), math.sin(2 * math.pi / 3))
COLUMNS = ("nu=i*xi", "nu=i*syn_ab", "nu*syn", "others")


def fourier(Wa, Wb, Wc, dtype=np.complex64):
    """Step 1: ``(A, B, C)``, each ``(d, q)`` (frequency, node), in ``dtype``."""
    Wa, Wb, Wc = (np.asarray(W, dtype=np.float64) for W in (Wa, Wb, Wc))
    d = Wa.shape[1]
    x = np.arange(d)
    E = np.exp(2j * np.pi * np.outer(x, x) / d)            # E[x, k] = e^{2 pi i k x / d}, symmetric
    E, Wa, Wb, Wc = E.astype(dtype), Wa.astype(dtype), Wb.astype(dtype), Wc.astype(dtype)
    A = (Wa @ E.conj() / d).T
    B = (Wb @ E.conj() / d).T
    C = (Wc.T @ E / d).T
    return A, B, C


def frequencies(A) -> dict:
    """Step 2-3: ``{k: [node indices]}`` for ``k = 1..(d-1)/2`` (nodes in index order)."""
    d = A.shape[0]
    mag = np.abs(A[: (d - 1) // 2 + 1])
    best, top = mag.argmax(axis=0), mag.max(axis=0)
    live = top > DEAD
    return {k: [int(j) for j in np.nonzero(live & (best == k))[0]] for k in range(1, (d - 1) // 2 + 1)}


@lru_cache(maxsize=None)
def _perms(q: int) -> np.ndarray:
    return np.array(list(itertools.permutations(range(q))), dtype=np.intp)


def node_order(c) -> tuple | None:
    """Step 4: the first order of the nodes whose ratios ``c[first half] / c[second half]`` vary least."""
    q = len(c)
    P = _perms(q)
    cp = c[P]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = cp[:, : q // 2] / cp[:, q // 2:]
        err = np.sqrt((np.abs(ratio - ratio.mean(axis=1, keepdims=True)) ** 2).sum(axis=1))
    err = np.where(np.isfinite(err), err, np.inf)
    i = int(np.argmin(err))
    return None if not np.isfinite(err[i]) else tuple(int(v) for v in P[i])


def node_order_looped(c) -> tuple | None:
    """Step 4 as the reference's code runs it: one order at a time, a few torch operations each.

    The same search and the same answer as :func:`node_order` (the first order with the smallest error); it
    exists so that ``benchmarks/bench_classify.py`` times the reference's algorithm at the cost its own code
    pays (``q!`` small torch operations per block), not at the cost of this module's vectorized search.
    """
    import torch

    c = torch.as_tensor(np.asarray(c))
    q = len(c)
    h = q // 2
    best, best_perm = math.inf, None
    for perm in itertools.permutations(range(q)):
        g = c[list(perm)]
        r = g[:h] / g[h:]
        e = float((r - r.mean()).abs().pow(2).sum().sqrt())
        if e < best:
            best, best_perm = e, perm
    return best_perm


def factor(F, perm):
    """Steps 5-6 for the block ``F`` (3, q) in the node order ``perm``: ``(factor1, factor2, err)``."""
    F = F[:, list(perm)].copy()
    h = F.shape[1] // 2
    t = F[0, h:] / F[0, :h]
    flip = np.abs(t - t[0]) > SIGN_TOL
    F[:2, :h][:, flip] *= -1
    first, second = F[:, :h], F[:, h:]
    ratio = second / first
    err = float(np.sqrt((np.abs(ratio - ratio.mean(axis=1, keepdims=True)) ** 2).sum()))
    m = ratio.mean(axis=1)
    f1 = np.stack([np.ones(3, dtype=m.dtype), m], axis=1)
    f2 = first / first[:, :1]
    return f1, f2, err


def _near(x, y) -> bool:
    return abs(x - y) < TOL


def label(X) -> str:
    """Step 7: the label of one factor ``X`` (3, m), ``m`` = 2 or 3."""
    X = X / np.power(X.prod(axis=0, keepdims=True), 1.0 / 3.0)     # principal cube root
    if X.shape[1] == 2:
        a, b, c = X[:, 1]
        if not _near(a * b * c, 1):
            return "order-2-unnormalized"
        if _near(c, 1j) or _near(c, -1j):
            return "order-2-xi"
        if _near(c, 1) and (_near(a, 1j) or _near(a, -1j)):
            return "order-2-4c"
        return "order-2-nu" if abs(a + b) < TOL else "order-2-unknown"
    if X.shape[1] == 3:
        for i in (1, 2):
            if not _near(X[:, i].prod(), 1):
                return f"order-3-unnormalized-{i}"
        X = X.copy()
        for i in (1, 2):
            if X[0, i].real > 0:
                X[:2, i] *= -1
        if X[2, 1].imag < 0:
            X = X.conj()
        w, wc = W3, W3.conjugate()
        if np.linalg.norm(X[:, 1] - w) < TOL * math.sqrt(3) and np.linalg.norm(X[:, 2] - wc) < TOL * math.sqrt(3):
            return "order-3-syn"
        if _near(X[2, 1], w) and _near(X[2, 2], wc):
            return "order-3-syn-ab"
        return "order-3-unknown"
    return "error"


def block_name(q: int, labels: tuple) -> str:
    """Step 8: the column of a factorable block of ``q`` nodes with the sorted ``labels``."""
    if q == 4 and labels == ("order-2-4c", "order-2-xi"):
        return "nu=i*xi"
    if q == 6 and labels == ("order-2-nu", "order-3-syn"):
        return "nu*syn"
    if q == 6 and labels in (("order-2-4c", "order-3-syn-ab"), ("order-2-4c", "order-3-syn")):
        return "nu=i*syn_ab"
    return "others"


def read_block(F, perm=None, search=None) -> dict:
    """Steps 4-8 for one block ``F`` (3, q), q = 4 or 6; ``perm`` overrides the search of step 4.

    ``search``: the step-4 search, :func:`node_order` (default) or :func:`node_order_looped`.
    """
    q = F.shape[1]
    perm = (search or node_order)(F[2]) if perm is None else tuple(perm)
    if perm is None:
        return {"name": "non-factorable", "err": None, "labels": None, "perm": None}
    f1, f2, err = factor(F, perm)
    labels = tuple(sorted((label(f1), label(f2))))
    factorable = err <= math.sqrt(3 * q) * TOL
    return {"name": block_name(q, labels) if factorable else "non-factorable", "err": err, "labels": labels,
            "perm": perm, "factor1": f1, "factor2": f2}


def near_tie_names(F, ratio: float = 2.0) -> dict:
    """Names the block would get under every node order whose step-4 error is within ``ratio`` x the minimum.

    Not part of the reference: a measure of how much its name rests on the tie-breaking of step 4.

    Returns
    -------
    dict
        ``{name: smallest step-4 error among the orders giving it}`` (the reference's own order included).
    """
    q = F.shape[1]
    P = _perms(q)
    cp = F[2][P]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio_ = cp[:, : q // 2] / cp[:, q // 2:]
        err = np.sqrt((np.abs(ratio_ - ratio_.mean(axis=1, keepdims=True)) ** 2).sum(axis=1))
    err = np.where(np.isfinite(err), err, np.inf)
    out: dict = {}
    for i in np.nonzero(err <= ratio * err.min())[0]:
        name = read_block(F, perm=P[i])["name"]
        out[name] = min(out.get(name, np.inf), float(err[i]))
    return out


def reference_blocks(Wa, Wb, Wc, dtype=np.complex64, near_ties: bool = False, search=None) -> dict:
    """Every frequency's block: ``{k: {"nodes", "name", ...}}`` for each ``k`` with at least one live node.

    ``near_ties``: also each order-4/6 block's :func:`near_tie_names`; ``search``: as for :func:`read_block`.
    """
    A, B, C = fourier(Wa, Wb, Wc, dtype)
    out = {}
    for k, nodes in frequencies(A).items():
        if not nodes:
            continue
        if len(nodes) in (4, 6):
            F = np.stack([A[k, nodes], B[k, nodes], C[k, nodes]])
            rec = read_block(F, search=search)
            if near_ties:
                rec["near_ties"] = near_tie_names(F)
        else:
            rec = {"name": f"order-{len(nodes)}"}
        out[k] = {"nodes": nodes, **rec}
    return out


def reference_names(Wa, Wb, Wc, dtype=np.complex64) -> dict:
    """``{k: name}``: the reference's name of the block at each frequency with live nodes (module docstring)."""
    return {k: r["name"] for k, r in reference_blocks(Wa, Wb, Wc, dtype).items()}


def reference_names_looped(Wa, Wb, Wc) -> dict:
    """:func:`reference_names` with the reference's own one-order-at-a-time search (for timing)."""
    return {k: r["name"] for k, r in reference_blocks(Wa, Wb, Wc, search=node_order_looped).items()}


def columns(names) -> dict | None:
    """The reference's column fractions of one network (step 8); None without factorable order-4/6 blocks."""
    names = [n for n in names if n in COLUMNS]
    if not names:
        return None
    return {c: names.count(c) / len(names) for c in COLUMNS}


def mean_se(values) -> dict:
    """Mean and standard error (``std(ddof=1) / sqrt(n)``, as the reference's ``print_row``) over seeds."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    n = len(v)
    return {"mean": float(v.mean()) if n else None, "se": float(v.std(ddof=1) / math.sqrt(n)) if n > 1 else None,
            "n": n}


# --------------------------------------------------------------------------- comparison with cogo
PUBLISHED = {23: {"nu=i*xi": 47.1, "nu=i*syn_ab": 11.3, "nu*syn": 39.8, "others": 1.8},
             71: {"nu=i*xi": 72.57, "nu=i*syn_ab": 4.00, "nu*syn": 21.14, "others": 2.29},
             127: None}


def cogo_label(b) -> str:
    """cogo's block in the reference's vocabulary: its paper column, ``non-factorable`` or ``order-m``."""
    from cogo.analysis.report.summary import paper_column

    col = paper_column(b)
    if col is not None:
        return col
    return "non-factorable" if b.order in (4, 6) else f"order-{b.order}"


def _c(z) -> list:
    return [round(float(np.real(z)), 4), round(float(np.imag(z)), 4)]


def _block_detail(seed, k, ref: dict, b) -> dict:
    out = {"seed": seed, "k": k, "reference": ref["name"] if ref else "absent",
           "cogo": cogo_label(b) if b is not None else "absent",
           "same_nodes": bool(ref and b is not None and sorted(ref["nodes"]) == sorted(b.nodes))}
    if ref and ref.get("near_ties"):
        out["ref_near_tie_names"] = {n: round(e, 5) for n, e in ref["near_ties"].items()}
    if ref and ref.get("labels"):
        out.update(ref_labels=list(ref["labels"]), ref_err=round(ref["err"], 4),
                   ref_factor1=[_c(z) for z in ref["factor1"][:, 1]],
                   ref_factor2=[[_c(z) for z in col] for col in ref["factor2"][:, 1:].T])
    if b is not None:
        out.update(cogo_type=b.type, cogo_factors=[
            {"name": f["name"], "params": {p: _c(v) if isinstance(v, complex) else v for p, v in f["params"].items()},
             "residual": None if f.get("residual") is None else round(float(f["residual"]), 4)} for f in b.factors])
    return out


def compare_checkpoint(path, seed) -> dict:
    """Both readings of one checkpoint, block by block (keyed by frequency)."""
    from cogo.analysis.classify import Settings, classify_checkpoint
    from cogo.io.weights import read_checkpoint

    w = read_checkpoint(path)
    ref = reference_blocks(w.Wa, w.Wb, w.Wc, np.complex64, near_ties=True)
    ref128 = reference_names(w.Wa, w.Wb, w.Wc, np.complex128)
    rep = classify_checkpoint(path, settings=Settings.preset_named("paper"))
    cogo = {int(b.k): b for b in rep.blocks}
    ks = sorted(set(ref) | set(cogo))
    return {"path": str(path), "seed": seed,
            "blocks": [_block_detail(seed, k, ref.get(k), cogo.get(k)) for k in ks],
            "ref_names": {k: r["name"] for k, r in ref.items()}, "ref128_names": ref128,
            "cogo_names": {k: cogo_label(b) for k, b in cogo.items()}, "live_ref": sum(len(r["nodes"]) for r in ref.values()),
            "live_cogo": rep.live_nodes}


def _row(per_network: list) -> dict:
    return {c: {k: (None if v is None else round(100 * v, 2)) if k != "n" else v
                for k, v in mean_se([None if p is None else p[c] for p in per_network]).items()} for c in COLUMNS}


def summarize_d(d: int, runs: list) -> dict:
    """Rows, confusion table and disagreements of one group order."""
    conf: dict = {}
    for r in runs:
        for blk in r["blocks"]:
            conf.setdefault(blk["reference"], {}).setdefault(blk["cogo"], 0)
            conf[blk["reference"]][blk["cogo"]] += 1
    blocks = [b for r in runs for b in r["blocks"]]
    return {
        "d": d, "checkpoints": [r["path"] for r in runs],
        "published": PUBLISHED.get(d),
        "reference_complex64": _row([columns(r["ref_names"].values()) for r in runs]),
        "reference_complex128": _row([columns(r["ref128_names"].values()) for r in runs]),
        "cogo_paper": _row([columns(r["cogo_names"].values()) for r in runs]),
        "confusion_reference_vs_cogo": conf,
        "blocks": len(blocks), "same_nodes": sum(b["same_nodes"] for b in blocks),
        "complex64_vs_complex128_name_changes": sum(
            r["ref_names"].get(k) != r["ref128_names"].get(k) for r in runs for k in r["ref_names"]),
        "live_nodes_reference": [r["live_ref"] for r in runs], "live_nodes_cogo": [r["live_cogo"] for r in runs],
        "disagreements": [b for b in blocks if b["reference"] != b["cogo"]],
        "per_seed_reference_counts": [{c: list(r["ref_names"].values()).count(c) for c in COLUMNS + ("non-factorable",)}
                                      for r in runs],
        "near_ties_2x": [{k: b[k] for k in ("seed", "k", "reference", "cogo", "ref_near_tie_names")}
                         for b in blocks if len(b.get("ref_near_tie_names", {})) > 1],
    }


def _print(s: dict) -> None:
    print(f"d = {s['d']}: {s['blocks']} blocks, same nodes {s['same_nodes']}, "
          f"complex64 vs complex128 name changes {s['complex64_vs_complex128_name_changes']}")
    for name in ("published", "reference_complex64", "reference_complex128", "cogo_paper"):
        row = s[name]
        if row is None:
            print(f"  {name:22s} not available")
            continue
        cells = [f"{row[c]:6.2f}" if not isinstance(row[c], dict) else
                 f"{row[c]['mean']:6.2f} +- {row[c]['se']:4.2f}" for c in COLUMNS]
        print(f"  {name:22s} " + " | ".join(cells))
    print(f"  blocks whose reference name changes under a node order within 2x of the best: {len(s['near_ties_2x'])}")
    cogo_cols = sorted({c for v in s["confusion_reference_vs_cogo"].values() for c in v})
    print("  reference \\ cogo: " + ", ".join(cogo_cols))
    for ref, row in sorted(s["confusion_reference_vs_cogo"].items()):
        print(f"  {ref:16s} " + " ".join(f"{row.get(c, 0):5d}" for c in cogo_cols))


def main(argv=None) -> None:
    import argparse
    import subprocess
    import sys
    import time
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import machine_info, write_json

    ap = argparse.ArgumentParser(description="The reference classifier's reading vs cogo --preset paper, per block.")
    ap.add_argument("--root", required=True,
                    help="checkpoints under ROOT/d{d}/*.pt (the reference cells of bench_gpu_sweep.py, unpacked)")
    ap.add_argument("--dims", type=int, nargs="+", default=[23, 71, 127])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "reference_classifier.json"))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    result = {"command": "python benchmarks/reference_classifier.py " + " ".join(sys.argv[1:] if argv is None else argv),
              "reference": "facebookresearch/luckmatters 625b5f7de69dc321f24376f5c6fe3446af3a364b "
                           "ssl/real-dataset/cogo/factorize_sol.py", "machine": machine_info(), "dims": {}}
    try:
        result["cogo_commit"] = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                               cwd=Path(__file__).parent).stdout.strip()
    except OSError:
        pass
    for d in args.dims:
        paths = sorted(Path(args.root, f"d{d}").glob("*.pt"))
        runs = [compare_checkpoint(p, i + 1) for i, p in enumerate(paths)]
        s = summarize_d(d, runs)
        _print(s)
        result["dims"][str(d)] = s
    result["seconds"] = round(time.perf_counter() - t0, 1)
    write_json(args.out, result)


if __name__ == "__main__":
    main()
