"""Reading a trained network on any finite group through its irreducible representations (SPEC 8-9).

For a network ``o(a, b) = W_c (W_a[:, a] + W_b[:, b])^2`` trained on ``c = a * b``
over a finite group ``G`` (``M = |G|``), each hidden node ``j`` has three
functions on ``G``: its input weights ``W_a[j, :]``, ``W_b[j, :]`` and its output
weights ``W_c[:, j]``.  Their energy in irrep ``k`` is the squared norm of the
isotypic projection (SPEC 9, :func:`cogo.algebra.representations.isotypic_energy`)::

    E_k(j) = t^2 (||P_k W_a[j]||^2 + ||P_k W_b[j]||^2) + ||P_k W_c[:, j]||^2 / t^4

with the balancing ``t = (||W_c[:, j]|| / sqrt(||W_a[j]|| ||W_b[j]||))^(1/3)``
of SPEC 8.4 (the rescaling ``(a, b, c) -> (t a, t b, c / t^2)`` leaves the
function unchanged).  Real weights have equal energy in an irrep and in its
complex conjugate, so irreps are read in *families*: a real or quaternionic
irrep alone, a complex irrep with its conjugate (the local maxima of the
energy of SPEC 9 live in one real irrep or one conjugate pair).

* A node is dead when ``(A^2 C)^(1/3)`` (``A`` the larger input norm, ``C``
  the output norm) is below ``dead_threshold`` times the strongest node's.
* A live node *lives in* the family holding most of its energy; it *mixes*
  when the second family holds more than ``mix_threshold`` of its energy.
* Beside the count of live nodes per family stands the count Theorem 3 of
  the scaling-law work says suffices: ``2 m_k^2 d_k^2`` per nontrivial irrep
  (``m_k = 1``), ``K = 2 sum_k m_k^2 d_k^2`` in all (``2|G| - 2`` for Abelian
  groups).

This reading works for every finite group, Abelian ones included; the
Kronecker-factor catalogue of SPEC 7 (:mod:`cogo.analysis.classify`) exists
for Abelian groups only, and the report says so.

References
----------
.. [1] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
.. [2] J.-P. Serre, "Linear Representations of Finite Groups", Springer GTM 42, 1977.
.. [3] B. Chughtai, L. Chan, N. Nanda, "A toy model of universality: reverse engineering how networks learn group operations", ICML 2023.
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from cogo.io.arrays import as_array

from cogo.algebra.group_parsing import as_group
from cogo.algebra.representations import character_table, isotypic_energy, theorem3_nodes
from cogo.io.tables import dumps_json, render_table, to_plain
from cogo.io.outputs import atomic_write_text
from cogo.analysis.report.records import Records
from cogo.analysis.report.render import check_output_paths
from cogo.runtime.errors import CogoError

__all__ = ["IrrepReport", "IrrepsResult", "read_irreps", "irreps_checkpoints", "irrep_families",
           "DEAD_THRESHOLD", "MIX_THRESHOLD", "CATALOGUE_NOTE"]

DEAD_THRESHOLD = 0.01
MIX_THRESHOLD = 0.1
CATALOGUE_NOTE = ("the Kronecker-factor catalogue of SPEC 7 is defined for Abelian groups only; "
                  "this is the irreducible-representation reading of SPEC 9")


def irrep_families(G: Any) -> list[list[int]]:
    """Irreps grouped as real weights see them: each irrep (index in the character table) with its complex conjugate, in table order.

    Examples
    --------
    >>> irrep_families(5), irrep_families("S3")        # Z_5: {k, -k}; S3: three real irreps
    ([[0], [1, 4], [2, 3]], [[0], [1], [2]])
    """

    ct = character_table(G)
    fam, seen = [], set()
    for k in range(len(ct)):
        if k in seen:
            continue
        c = int(ct.conjugate[k])
        members = [k] if c == k else [k, c]
        seen.update(members)
        fam.append(members)
    return fam


def _family_name(ct, members: list[int]) -> str:
    return "+".join(f"rho{k}" for k in members)


@dataclass
class IrrepReport:
    """The irreducible-representation reading of one network (module docstring).

    >>> from cogo.solvers.constructions import z_F6
    >>> rep = read_irreps(*z_F6(5).to_weights(real=True), group=5)   # z_F6: 6 nodes at each k = 1, 2
    >>> rep.families, rep.counts, rep.theory, rep.live_nodes
    ([[0], [1, 4], [2, 3]], [0, 6, 6], [0, 4, 4], 12)
    """

    group: Any
    hidden: int
    live: np.ndarray                 # (q,) bool
    energy: np.ndarray               # (K, q) balanced energy per irrep and node
    families: list                   # list of lists of irrep indices
    node_family: np.ndarray          # (q,) family index of each live node, -1 dead
    mixed: np.ndarray                # (q,) bool
    counts: list                     # live nodes per family
    theory: list                     # Theorem 3 count per family (m_k = 1)
    theory_total: int
    path: str = ""
    meta: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def live_nodes(self) -> int:
        return int(self.live.sum())

    @property
    def family_energy(self) -> np.ndarray:
        """Energy per family and node, shape ``(F, q)``."""
        return np.stack([self.energy[m].sum(0) for m in self.families])

    def to_dict(self) -> dict:
        ct = character_table(self.group)
        fe = self.family_energy
        tot = fe.sum(0)
        share = np.divide(fe, tot, out=np.zeros_like(fe), where=tot > 0)
        nodes = []
        for j in np.flatnonzero(self.live):
            nodes.append({"node": int(j), "family": int(self.node_family[j]),
                          "lives_in": _family_name(ct, self.families[self.node_family[j]]),
                          "mixed": bool(self.mixed[j]),
                          "energy_per_irrep": self.energy[:, j].tolist(),
                          "share_per_family": share[:, j].tolist()})
        return {
            "path": self.path, "group": self.group.label, "order": int(self.group.order),
            **({"group_source": dict(self.group.source)} if getattr(self.group, "source", None) else {}),
            "abelian": bool(_is_abelian(self.group)), "hidden": self.hidden,
            "live_nodes": self.live_nodes, "dead_nodes": int(self.hidden - self.live_nodes),
            "mixed_nodes": int(self.mixed.sum()), "note": CATALOGUE_NOTE,
            "irreps": [{"index": k, "dim": int(ct.dims[k]), "kind": ct.kind(k), "conjugate": int(ct.conjugate[k])}
                       for k in range(len(ct))],
            "families": [{"irreps": m, "name": _family_name(ct, m), "dim": int(ct.dims[m[0]]),
                          "kind": ct.kind(m[0]), "nodes": int(c), "theorem3_nodes": int(t)}
                         for m, c, t in zip(self.families, self.counts, self.theory)],
            "theorem3_total": int(self.theory_total),
            "nodes": nodes, "meta": self.meta, "seconds": self.seconds,
        }


def _is_abelian(G) -> bool:
    return bool(G.is_abelian)


def read_irreps(Wa: Any, Wb: Any, Wc: Any, group: Any, dead_threshold: float = DEAD_THRESHOLD,
                mix_threshold: float = MIX_THRESHOLD, path: str = "", meta: dict | None = None) -> IrrepReport:
    """Per-node energy per irrep, the family each live node lives in, mixing nodes and counts (module docstring).

    ``Wa``, ``Wb``: (q, M); ``Wc``: (M, q); numpy arrays or torch tensors; ``group`` anything
    :func:`cogo.algebra.group_parsing.parse_group` accepts.

    Raises
    ------
    ValueError
        When the weight shapes do not fit the group.

    Examples
    --------
    >>> from cogo.algebra.representations import isotypic_projectors
    >>> W = isotypic_projectors("S3").real[2][:4]       # rows of the projector onto the irrep rho2 (d = 2)
    >>> rep = read_irreps(W, W, W.T, "S3")
    >>> rep.node_family.tolist(), rep.counts, rep.theory, rep.theory_total   # Theorem 3: 2 d^2 = 8 for rho2
    ([2, 2, 2, 2], [0, 0, 4], [0, 2, 8], 10)
    """
    t0 = time.perf_counter()
    G = as_group(group)
    Wa, Wb, Wc = (as_array(x, dtype=np.float64) for x in (Wa, Wb, Wc))
    q, M = Wa.shape
    if M != G.order or Wb.shape != (q, M) or Wc.shape != (M, q):
        raise ValueError(f"weights of shapes {Wa.shape}, {Wb.shape}, {Wc.shape} do not fit group {G} of order "
                         f"{G.order} (expected (q, M), (q, M), (M, q))")
    na, nb, nc = np.linalg.norm(Wa, axis=1), np.linalg.norm(Wb, axis=1), np.linalg.norm(Wc, axis=0)
    A = np.maximum(na, nb)
    strength = np.cbrt(A * A * nc)
    top = float(strength.max(initial=0.0))
    live = strength > dead_threshold * top if top > 0 else np.zeros(q, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where((na > 0) & (nb > 0) & (nc > 0), np.cbrt(nc / np.sqrt(na * nb)), 1.0)
    E = (isotypic_energy(G, Wa.T) + isotypic_energy(G, Wb.T)) * t ** 2 + isotypic_energy(G, Wc) / t ** 4
    E = np.maximum(E, 0.0)
    families = irrep_families(G)
    FE = np.stack([E[m].sum(0) for m in families])                   # (F, q)
    order = np.sort(FE, axis=0)
    tot = FE.sum(0)
    dom = np.argmax(FE, axis=0)
    second = order[-2] if len(families) > 1 else np.zeros(q)
    mixed = live & (second > mix_threshold * np.where(tot > 0, tot, 1.0))
    node_family = np.where(live, dom, -1)
    counts = [int(np.sum(node_family == f)) for f in range(len(families))]
    th = theorem3_nodes(G)
    theory = [int(sum(th["per_irrep"][k] for k in m)) for m in families]
    return IrrepReport(G, q, live, E, families, node_family, mixed, counts, theory, th["total"], path=str(path),
                       meta=dict(meta or {}), seconds=time.perf_counter() - t0)


# --------------------------------------------------------------------------- many checkpoints
#: the columns of the irreps reading's table (:meth:`IrrepsResult.to_records`), in this order
IRREP_COLUMNS = ("checkpoint", "group", "seed", "weight_decay", "irrep", "dim", "kind", "nodes", "mixing",
                 "energy_share", "theorem3_nodes")


@dataclass
class IrrepsResult:
    """Irreducible-representation readings of several checkpoints, with text/JSON/Markdown rendering.

    >>> from cogo.algebra.representations import isotypic_projectors
    >>> W = isotypic_projectors("S3").real[2][:4]       # 4 nodes living in the 2-dimensional irrep of S3
    >>> result = IrrepsResult([read_irreps(W, W, W.T, "S3")])
    >>> print(result.render_text().splitlines()[0])
    (network)  [S3: order 6, non-Abelian, 3 irreps; 4 hidden nodes: 4 live, 0 dead, 0 mixing]
    """

    reports: list
    dead_threshold: float = DEAD_THRESHOLD
    mix_threshold: float = MIX_THRESHOLD

    def to_dict(self) -> dict:
        return {"format": "cogo-irreps/1", "note": CATALOGUE_NOTE, "dead_threshold": self.dead_threshold,
                "mix_threshold": self.mix_threshold, "checkpoints": [r.to_dict() for r in self.reports],
                "summary": self._summary()}

    @property
    def summary(self) -> dict:
        """Per group: mean and standard error over checkpoints of the live nodes per family (a dict, as
        :attr:`cogo.analysis.classify.ClassifyResult.summary`; calling it, the old method, still works for one
        release)."""
        return self._summary()

    def _summary(self) -> dict:
        out: dict = {}
        by_group: dict = {}
        for r in self.reports:
            by_group.setdefault(r.group.label, []).append(r)
        for lab, rs in by_group.items():
            ct = character_table(rs[0].group)
            fams = []
            for f, m in enumerate(rs[0].families):
                v = np.asarray([r.counts[f] for r in rs], dtype=float)
                fams.append({"name": _family_name(ct, m), "dim": int(ct.dims[m[0]]), "kind": ct.kind(m[0]),
                             "nodes_mean": float(v.mean()),
                             "nodes_se": float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else None,
                             "theorem3_nodes": rs[0].theory[f]})
            live = np.asarray([r.live_nodes for r in rs], dtype=float)
            out[lab] = {"checkpoints": len(rs), "live_mean": float(live.mean()),
                        "mixed_mean": float(np.mean([r.mixed.sum() for r in rs])),
                        "theorem3_total": rs[0].theory_total, "families": fams}
        return out

    def _tables(self, markdown: bool) -> str:
        out = []
        for r in self.reports:
            ct = character_table(r.group)
            kind = "Abelian" if _is_abelian(r.group) else "non-Abelian"
            src = getattr(r.group, "source", None)  # GAP's name of a SmallGroup(n,i) (cogo.algebra.smallgroups)
            head = (f"{r.path or '(network)'}  [{r.group.label}{f' = ' + src['name'] if src else ''}: "
                    f"order {r.group.order}, {kind}, {len(ct)} irreps; "
                    f"{r.hidden} hidden nodes: {r.live_nodes} live, {r.hidden - r.live_nodes} dead, "
                    f"{int(r.mixed.sum())} mixing]")
            out.append(("### " if markdown else "") + head)
            out.append(("" if markdown else "  ") + "note: " + CATALOGUE_NOTE)
            rows = []
            fe = r.family_energy
            share_all = fe[:, r.live].sum(1) / max(fe[:, r.live].sum(), 1e-300)
            for f, m in enumerate(r.families):
                rows.append([_family_name(ct, m), str(int(ct.dims[m[0]])), ct.kind(m[0]), str(r.counts[f]),
                             str(int(r.mixed[r.node_family == f].sum())), f"{share_all[f]:.3f}", str(r.theory[f])])
            rows.append(["total", "", "", str(r.live_nodes), str(int(r.mixed.sum())), "1.000",
                         f"K = {r.theory_total}"])
            out.append(render_table(["irrep", "dim", "kind", "nodes", "mixing", "energy share",
                                     "Theorem 3 (m_k=1)"], rows, markdown=markdown, indent="" if markdown else "  "))
            live = np.flatnonzero(r.live)
            if len(r.families) <= 8 and len(live):
                tot = fe.sum(0)
                nrows = []
                for j in live[:64]:
                    nrows.append([str(j), _family_name(ct, r.families[r.node_family[j]]),
                                  "yes" if r.mixed[j] else ""] + [f"{fe[f, j] / tot[j]:.3f}" for f in
                                                                  range(len(r.families))])
                out.append(("" if markdown else "  ") + "energy share per node and irrep:")
                out.append(render_table(["node", "lives in", "mixing"] + [_family_name(ct, m) for m in r.families],
                                        nrows, markdown=markdown, indent="" if markdown else "  "))
                if len(live) > 64:
                    out.append(f"  ... {len(live) - 64} more live nodes (all in --json)")
            out.append("")
        if len(self.reports) > 1:
            for lab, s in self._summary().items():
                out.append(f"summary over {s['checkpoints']} checkpoints of {lab}: live {s['live_mean']:.1f}, "
                           f"mixing {s['mixed_mean']:.1f} (means)")
                rows = [[f["name"], str(f["dim"]), f["kind"],
                         f"{f['nodes_mean']:.2f}" + (f" +- {f['nodes_se']:.2f}" if f["nodes_se"] is not None else ""),
                         str(f["theorem3_nodes"])] for f in s["families"]]
                out.append(render_table(["irrep", "dim", "kind", "nodes (mean +- se)", "Theorem 3 (m_k=1)"], rows,
                                        markdown=markdown, indent="" if markdown else "  "))
                out.append("")
        return "\n".join(out)

    def to_records(self) -> Records:
        """One row per checkpoint and irrep family (the table of the text output; ``cogo classify --csv``).

        Columns (:data:`IRREP_COLUMNS`): ``checkpoint``, ``group``, ``seed``, ``weight_decay`` (from the
        checkpoint's metadata, None when absent), ``irrep`` (the family's name), ``dim``, ``kind``, ``nodes``
        (live nodes living in it), ``mixing`` (of those, nodes with energy in another family too),
        ``energy_share`` (its share of the live nodes' energy) and ``theorem3_nodes`` (Theorem 3's count, m_k = 1).

        >>> from cogo.algebra.representations import isotypic_projectors
        >>> W = isotypic_projectors("S3").real[2][:4]       # 4 nodes living in the 2-dimensional irrep of S3
        >>> rows = IrrepsResult([read_irreps(W, W, W.T, "S3")]).to_records()
        >>> [(r["dim"], r["nodes"]) for r in rows]
        [(1, 0), (1, 0), (2, 4)]
        """
        rows = []
        for r in self.reports:
            ct = character_table(r.group)
            meta = getattr(r, "meta", None) or {}
            fe = r.family_energy
            share = fe[:, r.live].sum(1) / max(fe[:, r.live].sum(), 1e-300)
            for f, m in enumerate(r.families):
                rows.append({"checkpoint": r.path, "group": r.group.label, "seed": meta.get("seed"),
                             "weight_decay": meta.get("weight_decay"), "irrep": _family_name(ct, m),
                             "dim": int(ct.dims[m[0]]), "kind": ct.kind(m[0]), "nodes": int(r.counts[f]),
                             "mixing": int(r.mixed[r.node_family == f].sum()), "energy_share": float(share[f]),
                             "theorem3_nodes": int(r.theory[f])})
        return Records(rows, fixed=IRREP_COLUMNS)

    def to_pandas(self):
        """The table of :meth:`to_records` as a pandas DataFrame (needs pandas; not a dependency of cogo)."""
        return self.to_records().to_pandas()

    def render_text(self) -> str:
        return self._tables(markdown=False)

    def render_markdown(self) -> str:
        return "# Irreducible-representation reading (SPEC 9)\n\n" + self._tables(markdown=True)

    def render_json(self) -> str:
        return dumps_json(self.to_dict())

    def write_outputs(self, json_path: Any = None, markdown_path: Any = None, plots_dir: Any = None,
                      force: bool = False) -> list[str]:
        """Check every path (:mod:`cogo.io.outputs`), render in memory, write atomically; no plots for this reading."""
        if plots_dir is not None:
            raise CogoError("--plots needs the block reading of an Abelian group (SPEC 8); the irreps reading "
                            "(SPEC 9) has no plots: drop --plots")
        check_output_paths(json_path, markdown_path, None, force=force)

        files = []
        if json_path is not None:
            files.append((Path(json_path), self.render_json()))
        if markdown_path is not None:
            files.append((Path(markdown_path), self.render_markdown()))
        written = []
        for p, text in files:
            atomic_write_text(p, text)
            written.append(str(p))
        return written


def irreps_checkpoints(loaded: Sequence[Any], paths: Sequence[str | os.PathLike],
                       dead_threshold: float = DEAD_THRESHOLD, meta_filter: Any = None) -> IrrepsResult:
    """Read already loaded checkpoints (:class:`cogo.io.checkpoint.Checkpoint`) through their irreps: one :func:`read_irreps` report each, in order.

    Examples
    --------
    >>> from cogo.algebra import Cyclic
    >>> from cogo.io.checkpoint import Checkpoint
    >>> from cogo.solvers.constructions import z_F6
    >>> loaded = [Checkpoint(*z_F6(5).to_weights(real=True), Cyclic(5))]
    >>> result = irreps_checkpoints(loaded, ["f6.pt"])
    >>> [(r.path, r.counts) for r in result.reports]
    [('f6.pt', [0, 6, 6])]
    """
    reports = []
    for w, p in zip(loaded, paths):
        meta = meta_filter(w.meta) if meta_filter is not None else {}
        reports.append(read_irreps(w.Wa, w.Wb, w.Wc, w.group, dead_threshold=dead_threshold, path=str(p),
                                   meta=to_plain(meta)))
    return IrrepsResult(reports, dead_threshold=dead_threshold)
