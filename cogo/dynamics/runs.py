"""How the structure emerges: reading a training run snapshot by snapshot (SPEC 5, 6, 8).

A run trained with ``snapshot_every = N`` keeps its weights every ``N`` epochs
(:mod:`cogo.io.snapshots`).  :func:`analyse_run` reads every snapshot and records

* per snapshot: the epoch, train/test loss and accuracy (from the run's
  history; the loss of SPEC 1), the live, dead and zero-frequency node counts;
* per frequency ``k`` (one per class ``{k, -k}``, all nodes of the network,
  computed for a chunk of snapshots at once): the network potential
  ``r[k,k,k]`` (R_g asks for 1) and the largest modulus of the same-frequency
  potentials of each other condition of SPEC 5: R_c ``max |r[-k,k,k]|,
  |r[k,-k,k]|, |r[k,k,-k]|, |r[-k,-k,k]|``, R_n ``|sum_p r_p[k,-k,k] + r_p[-k,k,k]|``
  restricted to the class of ``k`` (the SPEC 6 sum ``|a|^2 c + |b|^2 c``), R_*
  ``max_p |r_p[k,k,k]|, |r_p[-k,-k,k]|`` (``a^2 c``, ``conj(a)^2 c``, ...);
  with the node count of the block at ``k`` (its order; 0 when there is none);
* per block, exactly what ``cogo classify`` reports for that snapshot
  (:func:`cogo.analysis.classify.read_network`): frequency, order, ``r_kkk``,
  the largest residual of R_c, R_n and R_* of the block alone, its type,
  whether it is optimal, its factorization error and, when the classifier
  provides it, the ``nearest`` catalogue form and its distance.

and, for the run, when each final block reaches its final type and keeps it
to the end (:func:`formation`).  :func:`aggregate` summarizes many runs (seeds):
for each block type, the epoch at which it first appears and the mean epoch at
which blocks settle into it, mean +- standard error over runs.

A run is a checkpoint with its snapshots or a series of checkpoint files, one
per epoch (:mod:`cogo.dynamics.series`); the progress measures of
:mod:`cogo.dynamics.progress` and the peers' measures by their authors'
definitions (:mod:`cogo.dynamics.peers`) are read with it.

Reading is resumable: the record of each snapshot is cached as JSON under a
key made of the SHA-256 of its weights and the analysis settings, so a second
reading (or one after an interruption) analyses only what is new.  Snapshots
are loaded a chunk at a time (bounded memory); the Fourier transform and the
per-frequency potentials are computed for a whole chunk in one matrix product;
the per-block classification, which dominates, runs in ``workers`` processes.
The figures of a run are drawn by :mod:`cogo.dynamics.figures`.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from cogo.algebra.activations import THEORY
from cogo.algebra.network import Network
from cogo.algebra.potentials import MONOMIALS
from cogo.algebra.group_parsing import as_group
from cogo.analysis.block_extraction import extract_blocks
from cogo.analysis.classify import Settings, classify_block
from cogo.analysis.verdict.network_verdict import block_scale, block_tolerance
from cogo.dynamics.figures import figure_progress, figure_progress_seeds, figure_run, figure_seeds, save_png
from cogo.dynamics.peers_report import PEERS, figure_peers, summary_lines
from cogo.dynamics.progress import grok_epoch
from cogo.dynamics.progress_reader import ProgressReader, aggregate_progress
from cogo.io.tables import dumps_json, render_table, to_plain
from cogo.io.outputs import atomic_write_text
from cogo.io.snapshots import Snapshots, open_snapshots, read_snapshot_file

__all__ = ["DYNAMICS_FORMAT", "snapshot_record", "frequency_potentials", "analyse_run", "formation",
           "aggregate", "write_dynamics", "render_text"]

DYNAMICS_FORMAT = "cogo-dynamics/1"
#: Bumped whenever a cached per-snapshot record would change meaning.
_CACHE_VERSION = "2"  # 2: the per-block "optimal" flag is judged with the block's own tolerance
_METRICS = ("train_loss", "test_loss", "train_acc", "test_acc")
_ROLES = {"R_c": [k for k, v in MONOMIALS.items() if v == "R_c"],
          "R_*": [k for k, v in MONOMIALS.items() if v == "R_*"]}


# --------------------------------------------------------------------------- one snapshot
def _tol(st, bl) -> float:
    """The optimality tolerance of a block not factored here: ``settings.opt_tol``, else its own (no fit: 0 error)."""
    return float(st.opt_tol) if st.opt_tol is not None else block_tolerance(block_scale(bl.a, bl.b, bl.c))


def _block_residuals(b: Any) -> dict:
    """Largest residual of R_c, R_n, R_* of a block alone (SPEC 6), from the classifier's own numbers."""
    res = getattr(b, "residuals", None)
    if isinstance(res, dict) and all(c in res for c in ("R_c", "R_n", "R_*")):
        return {c: float(res[c]) for c in ("R_c", "R_n", "R_*")}
    s = b.sums
    return {"R_c": max(abs(s[m]) for m in _ROLES["R_c"]), "R_n": abs(s["|a|^2 c + |b|^2 c"]),
            "R_*": max(abs(s[m]) for m in _ROLES["R_*"])}


#: Blocks with more nodes than this are not factored while reading a run (see :func:`snapshot_record`).
MAX_ORDER = 12
NOT_FACTORED = "not factored (large)"


def snapshot_record(Wa: Any, Wb: Any, Wc: Any, group: Any = None, settings: Settings | None = None,
                    max_order: int | None = MAX_ORDER) -> dict:
    """What ``cogo classify`` reads in one network (SPEC 8), as plain JSON values.

    ``{"live_nodes", "dead_nodes", "zero_frequency_nodes", "mixed_nodes", "blocks": [{"k", "order",
    "type", "factorable", "optimal", "error", "r_kkk", "R_c", "R_n", "R_*", "nearest"}]}``.
    The blocks are those of :func:`cogo.analysis.block_extraction.extract_blocks` and each is
    classified by :func:`cogo.analysis.classify.classify_block` with the same
    arguments :func:`cogo.analysis.classify.read_network` uses, except that a
    block of more than ``max_order`` nodes (early in training every frequency
    holds dozens of nodes; factoring such a block costs seconds and no catalogue
    solution of SPEC 7 has more than 12) gets type ``"not factored (large)"``,
    with its ``r_kkk`` and condition residuals.  ``max_order=None`` factors
    every block as ``cogo classify`` does.

    Returns
    -------
    dict
        ``live_nodes``, ``dead_nodes``, ``zero_frequency_nodes``, ``mixed_nodes`` and one ``blocks`` row per block of
        SPEC 8 (the keys above), as plain JSON values.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F46
    >>> rec = snapshot_record(*z_F46(7).to_weights(real=True), group=7)
    >>> rec["live_nodes"], [(b["k"], b["order"], b["type"], b["optimal"]) for b in rec["blocks"]]
    (14, [(1, 6, 'z_nu * z_syn', True), (2, 4, 'z_nu=i * z_xi', False), (3, 4, 'z_nu=i * z_xi', False)])
    """
    st = (settings or Settings()).validate()
    net = Network.from_weights(Wa, Wb, Wc, group)
    split = extract_blocks(net, dead_threshold=st.dead_threshold, mix_threshold=st.mix_threshold)
    blocks = []
    for bl in split.blocks:
        if max_order is None or bl.order <= max_order:
            b = classify_block(bl.a, bl.b, bl.c, k=bl.k, k_coords=bl.k_coords, nodes=bl.nodes.tolist(), settings=st,
                               kind=bl.kind, mixed_nodes=int(bl.mixed.sum()))
            row = {"k": int(b.k), "order": int(b.order), "type": b.type, "factorable": bool(b.factorable),
                   "optimal": bool(b.optimal), "error": b.error, "r_kkk": complex(b.r_kkk), **_block_residuals(b)}
            near = getattr(b, "nearest", None)
            row["nearest"] = to_plain(near) if near is not None else None
        else:
            res = bl.conditions()
            row = {"k": int(bl.k), "order": bl.order, "type": NOT_FACTORED, "factorable": False,
                   "optimal": bool(all(float(v) <= _tol(st, bl) for v in res.values()) and not bl.self_conjugate),
                   "error": None, "r_kkk": complex(np.sum(np.asarray(bl.a) * np.asarray(bl.b) * np.asarray(bl.c))),
                   **{c: float(res[c]) for c in ("R_c", "R_n", "R_*") if c in res}, "nearest": None}
        blocks.append(row)
    return to_plain({"live_nodes": split.live_nodes, "dead_nodes": split.dead_nodes,
                     "zero_frequency_nodes": split.zero_frequency_nodes, "mixed_nodes": split.mixed_nodes,
                     "blocks": blocks})


def _cache_key(W: Sequence[np.ndarray], group_label: str, settings: Settings, max_order: int | None) -> str:
    h = hashlib.sha256()
    h.update(f"{_CACHE_VERSION}|{group_label}|{sorted(settings.__dict__.items())}|{max_order}".encode())
    for w in W:
        h.update(str(w.shape).encode())
        h.update(np.ascontiguousarray(w, dtype=np.float64).tobytes())
    return h.hexdigest()


def _cached_record(W: Sequence[np.ndarray], group_label: str, settings: Settings, cache_dir: str | None,
                   max_order: int | None = MAX_ORDER) -> tuple[dict, bool]:
    """The record of one snapshot, from the cache when present; returns (record, was_cached)."""
    path = None
    if cache_dir is not None:
        path = Path(cache_dir) / f"{_cache_key(W, group_label, settings, max_order)}.json"
        if path.is_file():
            try:
                rec = json.loads(path.read_text())
                if isinstance(rec, dict) and isinstance(rec.get("blocks"), list):
                    return rec, True
            except (ValueError, OSError):
                pass  # unreadable cache entry: recompute it
    rec = snapshot_record(*W, group=group_label, settings=settings, max_order=max_order)
    if path is not None:
        atomic_write_text(path, json.dumps(rec) + "\n")
    return rec, False


def _worker(args: tuple) -> tuple[int, dict, bool]:
    i, source, n, q, group_label, settings, cache_dir, max_order = args
    if isinstance(source, str):
        W = read_snapshot_file(source, n, q)
    else:
        W = source
    rec, hit = _cached_record(W, group_label, settings, cache_dir, max_order)
    return i, rec, hit


# --------------------------------------------------------------------------- vectorized potentials
def frequency_potentials(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, group: Any) -> dict:
    """Same-frequency potentials of a stack of networks (SPEC 4-6), all at once.

    ``Wa, Wb``: (S, q, n); ``Wc``: (S, n, q).  Fourier coordinates as SPEC 2
    (scale ``(2 n_G)^(1/3)``) for the whole stack in one matrix product.
    Returns ``k`` (the class representatives ``k != 0``) and, each of shape
    (S, K): ``r_kkk`` (complex ``r[k,k,k]``), ``R_c``, ``R_n``, ``R_*``: the
    largest modulus of the SPEC 6 monomial sums of that condition over all
    ``q`` nodes at frequency ``k`` (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from cogo.solvers.constructions import z_F6
    >>> Wa, Wb, Wc = z_F6(5).to_weights(real=True)     # a stack of one network
    >>> fp = frequency_potentials(Wa[None], Wb[None], Wc[None], 5)
    >>> fp["k"].tolist(), np.round(fp["r_kkk"].real, 9).tolist(), float(np.abs(fp["R_n"]).max()) < 1e-12   # R_g: r = 1
    ([1, 2], [[1.0, 1.0]], True)
    """
    G = as_group(group)
    n = G.order
    F = G.characters
    s = G.scale / n
    ks = np.unique(np.minimum(np.arange(n), G.neg))
    ks = ks[ks != 0]
    Fk = F[ks]                                                    # (K, n)
    A = np.matmul(np.conj(Fk), np.swapaxes(Wa, 1, 2)) * s         # (S, K, q)  z[a, k, j]
    B = np.matmul(np.conj(Fk), np.swapaxes(Wb, 1, 2)) * s
    C = np.matmul(Fk, Wc) * s
    cA, cB, cC = np.conj(A), np.conj(B), np.conj(C)
    tot = lambda x: x.sum(-1)
    r = tot(A * B * C)
    Rc = np.max(np.abs(np.stack([tot(cA * B * C), tot(A * cB * C), tot(A * B * cC), tot(cA * cB * C)])), axis=0)
    Rn = np.abs(tot((A * cA + B * cB) * C))
    Rs = np.max(np.abs(np.stack([tot(A * A * C), tot(B * B * C), tot(cA * cA * C), tot(cB * cB * C)])), axis=0)
    return {"k": ks, "r_kkk": r, "R_c": Rc, "R_n": Rn.real if np.iscomplexobj(Rn) else Rn, "R_*": Rs}


# --------------------------------------------------------------------------- a run
def _history_at(meta: dict, epochs: Sequence[int]) -> list[dict]:
    h = meta.get("history") if isinstance(meta, dict) else None
    out = [{k: None for k in _METRICS} for _ in epochs]
    if not isinstance(h, dict) or not isinstance(h.get("epoch"), list):
        return out
    pos = {int(e): i for i, e in enumerate(h["epoch"]) if isinstance(e, (int, float))}
    for row, e in zip(out, epochs):
        i = pos.get(int(e))
        if i is not None:
            for k in _METRICS:
                v = h.get(k, [])
                row[k] = v[i] if i < len(v) and isinstance(v[i], (int, float)) else None
    return out


def analyse_run(path: Any, settings: Settings | None = None, cache_dir: str | os.PathLike | None = None,
                workers: int | None = None, chunk: int = 16, group: Any = None,
                log: Callable[[str], None] | None = None, max_order: int | None = MAX_ORDER,
                progress: Callable[[int, int], None] | None = None) -> dict:
    """Read every snapshot of a checkpoint trained with ``--snapshot-every`` (module docstring).

    ``path``: the checkpoint, or an opened :class:`cogo.io.snapshots.Snapshots` (a series of checkpoint files,
    :func:`cogo.dynamics.series.discover_runs`).
    ``cache_dir``: where per-snapshot records are cached (None: no cache);
    ``workers``: processes for the per-block classification (default
    ``min(2, cpu_count)``; 1 = in this process); ``chunk``: snapshots loaded
    at a time; ``max_order``: see :func:`snapshot_record`; ``progress(done, total)``: called after each
    chunk with the snapshots read so far (``cogo dynamics`` feeds a bar with it; else ``log`` gets a line).

    Returns
    -------
    dict
        The run's record (format ``cogo-dynamics/1``), plain JSON values: the settings, ``epochs``, ``history``,
        ``snapshots`` (one :func:`snapshot_record` each, with the epoch's losses and accuracies), ``frequencies``
        (:func:`frequency_potentials` and the block order per ``k``), ``formation``, ``progress`` (the progress
        measures of :mod:`cogo.dynamics.progress`) and the counts of cached snapshots.

    Examples
    --------
    >>> import tempfile
    >>> from cogo.solvers.training import train
    >>> from cogo.solvers.training_config import TrainConfig
    >>> from cogo.solvers.training_results import save_run
    >>> cfg = TrainConfig(group="5", hidden=8, epochs=20, log_every=10, snapshot_every=10)   # a 20-epoch run
    >>> results = train(cfg, seeds=[1], weight_decays=[0.0], progress=False, threads=1)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     run = analyse_run(save_run(results, d)[0], workers=1)
    >>> run["format"], [s["epoch"] for s in run["snapshots"]], len(run["formation"]) == len(run["snapshots"][-1]["blocks"])
    ('cogo-dynamics/1', [0, 10, 20], True)
    """
    st = (settings or Settings()).validate()
    snaps = path if isinstance(path, Snapshots) else open_snapshots(path, group=group)
    path = snaps.path if isinstance(path, Snapshots) else path
    G = snaps.group
    q = snaps.hidden
    workers = max(1, int(workers if workers is not None else min(2, os.cpu_count() or 1)))
    if cache_dir is not None:
        Path(cache_dir).mkdir(parents=True, exist_ok=True)
    S = len(snaps)
    abelian = G.as_product is not None
    prog = ProgressReader(snaps, G, cache_dir=cache_dir, extra=PEERS)
    # the SPEC 5-8 block reading is for x^2 networks of Z_d1 x ... x Z_dn; the progress measures are for every
    # group and activation
    read_blocks = abelian and prog.activation == THEORY
    records, pots, ks, hits = _read_snapshots(path, snaps, st, prog, read_blocks, workers, chunk, cache_dir,
                                              max_order, log, progress)
    hist = _history_at(snaps.meta, snaps.epochs)
    rows = []
    for e, rec, hrow in zip(snaps.epochs, records, hist):
        rows.append({"epoch": int(e), **hrow, **(rec if rec is not None else {"blocks": []})})
    meta = snaps.meta
    out = {
        "format": DYNAMICS_FORMAT,
        "path": str(path),
        "group": G.label,
        "hidden": q,
        "seed": meta.get("seed"),
        "weight_decay": meta.get("weight_decay"),
        "settings": dict(st.__dict__),
        "max_order": max_order,
        "epochs": [int(e) for e in snaps.epochs],
        "history": {k: list(v) for k, v in meta.get("history", {}).items()} if isinstance(meta.get("history"), dict) else None,
        "snapshots": rows,
        "frequencies": _frequency_table(records, pots, ks, read_blocks, S),
        "cached_snapshots": int(hits),
    }
    out["formation"] = formation(out)
    out["progress"] = prog.result(out)
    out["progress_cached_snapshots"] = int(prog.hits)
    return to_plain(out)


def _read_snapshots(path: str | os.PathLike, snaps: Any, st: Settings, prog: Any, read_blocks: bool, workers: int,
                    chunk: int, cache_dir: str | os.PathLike | None, max_order: int | None,
                    log: Callable[[str], None] | None,
                    progress: Callable[[int, int], None] | None = None) -> tuple[list, dict, Any, int]:
    """Read the snapshots a chunk at a time: progress measures, potentials, block records (in ``workers``)."""
    G = snaps.group
    n, q = snaps.n, snaps.hidden
    S = len(snaps)
    records: list = [None] * S
    pots = {key: [] for key in ("r_kkk", "R_c", "R_n", "R_*")}
    ks = None
    hits = 0
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        for idx, Wa, Wb, Wc in snaps.chunks(chunk):
            prog.add(Wa, Wb, Wc)
            if not read_blocks:
                if progress is not None:
                    progress(idx[-1] + 1, S)
                continue
            fp = frequency_potentials(Wa, Wb, Wc, G)
            ks = fp["k"]
            for key in pots:
                pots[key].append(fp[key])
            tasks = [(i, snaps.files[i] if snaps.files is not None else (Wa[j], Wb[j], Wc[j]), n, q, G.label, st,
                      None if cache_dir is None else str(cache_dir), max_order) for j, i in enumerate(idx)]
            done = pool.map(_worker, tasks) if pool is not None else map(_worker, tasks)
            for i, rec, hit in done:
                records[i] = rec
                hits += hit
            if progress is not None:
                progress(idx[-1] + 1, S)
            elif log is not None:
                log(f"  {path}: {idx[-1] + 1}/{S} snapshots read")
    finally:
        if pool is not None:
            pool.shutdown()
    return records, pots, ks, hits


def _frequency_table(records: list, pots: dict, ks: Any, read_blocks: bool, S: int) -> dict:
    """The run's ``frequencies``: each ``k``, the order of its block and its potentials, per snapshot."""
    if not read_blocks:
        ks = np.zeros(0, dtype=int)
        pots = {key: [np.zeros((S, 0))] for key in pots}
    P = {key: np.concatenate(v) for key, v in pots.items()}
    order = np.zeros((S, len(ks)), dtype=int)
    kpos = {int(k): i for i, k in enumerate(ks)}
    for s_, rec in enumerate(records):
        for b in (rec or {"blocks": []})["blocks"]:
            if b["k"] in kpos:
                order[s_, kpos[b["k"]]] = b["order"]
    return {"k": [int(k) for k in ks], "order": order.tolist(),
            "r_kkk": P["r_kkk"].tolist(), "R_c": P["R_c"].tolist(), "R_n": P["R_n"].tolist(),
            "R_*": P["R_*"].tolist()}


def formation(run: dict) -> list[dict]:
    """For each block of the last snapshot: its final type, order, and the epoch from which it keeps that type.

    ``settled``: the first snapshot epoch from which, at every later snapshot,
    a block at the same frequency has the final type; ``first``: the first
    epoch at which it had that type at all.

    Returns
    -------
    list of dict
        One ``{k, type, order, settled, first}`` per block of the last snapshot (``[]`` for a run without snapshots).

    Examples
    --------
    >>> def snap(epoch, typ, order):                    # the block at k = 1 of one snapshot
    ...     return {"epoch": epoch, "blocks": [{"k": 1, "type": typ, "order": order}]}
    >>> run = {"snapshots": [snap(0, "non-factorable", 9), snap(100, "z_nu * z_syn", 6),
    ...                      snap(200, "non-factorable", 7), snap(300, "z_nu * z_syn", 6), snap(400, "z_nu * z_syn", 6)]}
    >>> formation(run)                                  # first seen at 100, kept from 300 on
    [{'k': 1, 'type': 'z_nu * z_syn', 'order': 6, 'settled': 300, 'first': 100}]
    """
    rows = run["snapshots"]
    if not rows:
        return []
    out = []
    for fb in rows[-1]["blocks"]:
        k, typ = fb["k"], fb["type"]
        has = [any(b["k"] == k and b["type"] == typ for b in r["blocks"]) for r in rows]
        i = len(rows) - 1
        while i > 0 and has[i - 1]:
            i -= 1
        first = next(j for j, h in enumerate(has) if h)
        out.append({"k": k, "type": typ, "order": fb["order"], "settled": rows[i]["epoch"],
                    "first": rows[first]["epoch"]})
    return out


def _mean_se(values: Sequence[float | None]) -> dict:
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=float)
    return {"mean": float(v.mean()) if len(v) else None,
            "se": float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else None, "n": int(len(v))}


def aggregate(runs: Sequence[dict]) -> dict:
    """Over many runs (seeds): per block type, when it first appears and when blocks settle into it.

    For each type and run: ``first_appearance`` = the first snapshot epoch
    with a block of that type; ``settled`` = the mean over the run's final
    blocks of that type of their settling epoch (:func:`formation`).  Each is
    then mean +- standard error (``std(ddof=1) / sqrt(n)``) over the runs
    where it is defined; ``n`` counts them.  Also the grokking epoch (test
    accuracy >= 0.99) and the epoch at which the last block settles.

    Returns
    -------
    dict
        ``runs``, per block type ``first_appearance``, ``settled`` and ``final_blocks`` (each ``{mean, se, n}``),
        ``grokking_epoch``, ``all_settled_epoch`` and, when the runs have them, the aggregated ``progress``.

    Examples
    --------
    >>> def snap(epoch, typ, order):
    ...     return {"epoch": epoch, "blocks": [{"k": 1, "type": typ, "order": order}]}
    >>> run = {"snapshots": [snap(0, "non-factorable", 9), snap(100, "z_nu * z_syn", 6), snap(200, "z_nu * z_syn", 6)],
    ...        "history": {"epoch": [0, 100, 200], "test_acc": [0.1, 0.5, 1.0]}}
    >>> run["formation"] = formation(run)
    >>> agg = aggregate([run, run])                     # two identical seeds: standard error 0
    >>> agg["types"]["z_nu * z_syn"]["settled"], agg["grokking_epoch"]
    ({'mean': 100.0, 'se': 0.0, 'n': 2}, {'mean': 200.0, 'se': 0.0, 'n': 2})
    """
    types: list = []
    for r in runs:
        for row in r["snapshots"]:
            for b in row["blocks"]:
                if b["type"] not in types:
                    types.append(b["type"])
    out = {"runs": len(runs), "types": {}}
    for t in types:
        firsts, settles, counts = [], [], []
        for r in runs:
            firsts.append(next((row["epoch"] for row in r["snapshots"] if any(b["type"] == t for b in row["blocks"])),
                               None))
            f = [x["settled"] for x in r["formation"] if x["type"] == t]
            settles.append(float(np.mean(f)) if f else None)
            counts.append(len(f))
        out["types"][t] = {"first_appearance": _mean_se(firsts), "settled": _mean_se(settles),
                           "final_blocks": _mean_se(counts)}
    out["grokking_epoch"] = _mean_se([grok_epoch(r) for r in runs])
    out["all_settled_epoch"] = _mean_se([max((x["settled"] for x in r["formation"]), default=None) for r in runs])
    if any(r.get("progress") for r in runs):
        out["progress"] = aggregate_progress(runs)
    return out


def write_dynamics(runs: Sequence[dict], out: str | os.PathLike, figures: bool = True) -> list[str]:
    """Write ``OUT/dynamics.json`` (runs and aggregate) and, with ``figures``, ``OUT/figures/*.png``; returns the paths, in that order.

    The figures are written first and ``dynamics.json`` last: it marks a finished analysis, so an analysis
    interrupted while drawing leaves none and the same command resumes it (``cogo dynamics`` refuses to
    replace a finished one without ``--force``).

    Examples
    --------
    >>> import json, os, tempfile
    >>> from pathlib import Path
    >>> run = {"snapshots": [{"epoch": e, "blocks": [{"k": 1, "type": "z_nu * z_syn", "order": 6}]} for e in (0, 100)]}
    >>> run["formation"] = formation(run)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     written = write_dynamics([run], os.path.join(d, "dyn"), figures=False)
    ...     doc = json.loads(Path(written[0]).read_text())
    >>> [os.path.basename(p) for p in written], doc["format"]
    (['dynamics.json'], 'cogo-dynamics/1')
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    agg = aggregate(runs)
    p = out / "dynamics.json"
    paths = [str(p)]
    if figures:
        fd = out / "figures"
        fd.mkdir(exist_ok=True)
        for r in runs:
            if r["frequencies"]["k"]:  # the SPEC 5-8 block reading (Abelian groups)
                paths.append(save_png(figure_run(r), fd / f"dynamics_{Path(r['path']).stem}.png"))
            if r.get("progress"):
                paths.append(save_png(figure_progress(r), fd / f"progress_{Path(r['path']).stem}.png"))
            if (r.get("progress") or {}).get("chughtai"):
                paths.append(save_png(figure_peers(r), fd / f"peers_{Path(r['path']).stem}.png"))
        paths.append(save_png(figure_seeds(agg, runs), fd / "dynamics_types.png"))
        if any(r.get("progress") for r in runs):
            paths.append(save_png(figure_progress_seeds(runs), fd / "progress_seeds.png"))
    atomic_write_text(p, dumps_json({"format": DYNAMICS_FORMAT, "runs": list(runs), "aggregate": agg}))
    return paths


def render_text(runs: Sequence[dict]) -> str:
    """A plain-text summary: per run and block type, how many final blocks and when they settled.

    Returns
    -------
    str
        One header line and a table (block type, final blocks, first appears, settles, runs), ending in a newline.

    Examples
    --------
    >>> run = {"snapshots": [{"epoch": e, "blocks": [{"k": 1, "type": "z_nu * z_syn", "order": 6}]} for e in (0, 100)]}
    >>> run["formation"] = formation(run)
    >>> print(render_text([run]).splitlines()[0])
    1 run(s), 2 snapshots; test accuracy >= 0.99 from epoch - (mean over runs)
    """
    agg = aggregate(runs)
    rows = []
    for t, v in agg["types"].items():
        f = lambda d: "-" if d["mean"] is None else (f"{d['mean']:.0f}" + (f" +- {d['se']:.0f}" if d["se"] is not None else ""))
        rows.append([t, f(v["final_blocks"]), f(v["first_appearance"]), f(v["settled"]), str(v["settled"]["n"])])
    g = agg["grokking_epoch"]["mean"]
    grok = "-" if g is None else f"{g:.0f}"
    lines = [f"{len(runs)} run(s), {sum(len(r['snapshots']) for r in runs)} snapshots; "
             f"test accuracy >= 0.99 from epoch {grok} (mean over runs)"]
    if rows:
        lines.append(render_table(["block type", "final blocks", "first appears (epoch)", "settles (epoch)", "runs"],
                                  rows))
    else:   # no table of nothing: say why there is no block type
        blockless = sorted({str(r.get("group")) for r in runs if not r["frequencies"]["k"]})
        lines.append(f"no block types: {', '.join(blockless)} "
                     + ("is" if len(blockless) == 1 else "are") + " read through irreducible representations "
                     "(SPEC 9), not per-frequency blocks (SPEC 8); the progress measures follow"
                     if blockless else "no block types: no snapshot has a block of live nodes")
    for r in runs:
        lines.extend(summary_lines(r))
    return "\n".join(lines) + "\n"
