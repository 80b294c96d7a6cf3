"""Per-node Fourier reading valid for any activation (SPEC 1, SPEC 2, SPEC 9).

The semiring, its theorems and the catalogue of SPEC 3-7 hold for
``sigma(x) = x^2`` only.  For another activation (``relu``, ``silu``,
``relusqr``) cogo names no catalogue form; what it reports is what applies to
any 2-layer network ``o(a, b) = W_c sigma(W_a[:, a] + W_b[:, b])`` on a group:

* per live node ``j``, the energy of its three weight vectors
  ``a_j = W_a[j, :]``, ``b_j = W_b[j, :]``, ``c_j = W_c[:, j]`` in each
  frequency class ``{k, -k}`` (SPEC 2; for a non-Abelian group, in each
  irrep with its conjugate, SPEC 9) -- :func:`node_spectrum`;
* the dominant class and its share of the node's energy;
* the inverse participation ratio of the node's normalized spectrum
  ``p_k = E_k / sum E`` -- :func:`inverse_participation_ratio`,
  ``IPR = sum_k p_k^2`` (1 for a single-frequency node, ``1/K`` for a node
  spread evenly over ``K`` classes);
* the fraction of live nodes that are single-frequency (share at least
  :data:`SINGLE_SHARE`);
* the accuracy and the loss of SPEC 1 on all ``n^2`` pairs, with the
  network's own activation (:func:`network_metrics`).

The per-neuron frequency reading follows [1]_, the irreps of a non-Abelian group [2]_ (their
characters: [4]_), the IPR of the features [3]_ [5]_.

References
----------
.. [1] N. Nanda, L. Chan, T. Lieberum, J. Smith, J. Steinhardt, "Progress measures for grokking via mechanistic interpretability", ICLR 2023.
.. [2] B. Chughtai, L. Chan, N. Nanda, "A toy model of universality: reverse engineering how networks learn group operations", ICML 2023.
.. [3] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
.. [4] J.-P. Serre, "Linear Representations of Finite Groups", Springer GTM 42, 1977.
.. [5] A. Gromov, "Grokking modular arithmetic", arXiv:2301.02679, 2023.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cogo.algebra.activations import THEORY, activation
from cogo.algebra.group_parsing import as_group
from cogo.algebra.representations import isotypic_energy
from cogo.analysis.irreps import irrep_families
from cogo.io.snapshots import open_snapshots
from cogo.io.weights import read_checkpoint

__all__ = ["activate", "node_spectrum", "inverse_participation_ratio",
           "network_metrics", "NodeReport", "node_report", "catalogue_refusal", "SINGLE_SHARE"]

#: A live node is single-frequency when its dominant class holds at least this share of its energy.
SINGLE_SHARE = 0.9

#: Default dead-node threshold (relative strength), as for cogo classify.
DEAD_THRESHOLD = 0.01


def activate(x: np.ndarray, activation_name: str) -> np.ndarray:
    """``sigma(x)`` (float64, a new array) for the activation named (:data:`cogo.algebra.activations.ACTIVATIONS`).

    >>> activate(np.array([-1.0, 2.0]), "relusqr").tolist(), activate(np.array([-1.0, 2.0]), "sqr").tolist()
    ([0.0, 4.0], [1.0, 4.0])
    """
    return activation(activation_name).numpy(x)


def node_spectrum(Wa: Any, Wb: Any, Wc: Any, group: Any) -> tuple[np.ndarray, list[str]]:
    """``E[f, j]``: energy of node ``j``'s vectors ``a_j, b_j, c_j`` in frequency class ``f``; and the class names.

    ``E[f, j] = ||P_f a_j||^2 + ||P_f b_j||^2 + ||P_f c_j||^2`` with ``P_f`` the
    isotypic projector onto the class ``f`` (``{k, -k}`` for an Abelian group,
    SPEC 2; an irrep with its conjugate, SPEC 9), so each column sums to
    ``||a_j||^2 + ||b_j||^2 + ||c_j||^2``.  ``Wa``, ``Wb``: (q, n); ``Wc``: (n, q).

    Returns
    -------
    E : numpy.ndarray
        (F, q): the energy of each node in each frequency class (irrep family), non-negative.
    names : list of str
        The class names: the representative ``k`` (its coordinates for a product of cyclic groups), or
        ``rho<i>+rho<j>`` for the irreps of a non-Abelian group.

    Examples
    --------
    >>> n = 7; x = np.arange(n)
    >>> Wa = np.stack([np.cos(2 * np.pi * 2 * x / n), np.cos(2 * np.pi * 3 * x / n)])   # frequencies 2 and 3
    >>> E, names = node_spectrum(Wa, Wa, Wa.T, n)
    >>> [names[i] for i in E.argmax(0)], [round(float(e), 9) for e in E.sum(0)]
    (['2', '3'], [10.5, 10.5])
    """
    G = as_group(group)
    Wa, Wb, Wc = (np.asarray(x, dtype=np.float64) for x in (Wa, Wb, Wc))
    E = isotypic_energy(G, Wa.T) + isotypic_energy(G, Wb.T) + isotypic_energy(G, Wc)   # (K, q)
    fam = irrep_families(G)
    names = _class_names(G, fam)
    FE = np.stack([E[m].sum(0) for m in fam])
    return np.maximum(FE, 0.0), names


def _class_names(G: Any, fam: list[list[int]]) -> list[str]:
    if G.as_product is not None:
        # the isotypic energies come in character-table order; for Z_d1 x ... that is the element order
        names = []
        for m in fam:
            k = int(min(m))
            names.append(str(k) if G.is_cyclic else str(G.coords(k)).replace(" ", ""))
        return names
    return ["+".join(f"rho{k}" for k in m) for m in fam]


def inverse_participation_ratio(E: np.ndarray) -> np.ndarray:
    """``IPR_j = sum_f p_fj^2`` with ``p_fj = E[f, j] / sum_f E[f, j]`` (0 for a node with no energy).

    Returns
    -------
    numpy.ndarray
        (q,): the IPR of each column of ``E``, in ``[1/F, 1]`` (0 for a column with no energy).

    Examples
    --------
    >>> inverse_participation_ratio(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0]])).tolist()
    [1.0, 0.5, 0.0]
    """
    E = np.asarray(E, dtype=np.float64)
    tot = E.sum(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(tot > 0, E / np.where(tot > 0, tot, 1.0), 0.0)
    return (p * p).sum(0)


def network_metrics(Wa: Any, Wb: Any, Wc: Any, group: Any, activation: str = THEORY) -> dict:
    """Accuracy and mean loss of SPEC 1 (``||P(o) - P(e_c)||^2``) on all ``n^2`` pairs, with ``sigma``.

    Returns
    -------
    dict
        ``accuracy`` (fraction of the ``n^2`` pairs whose largest output is the answer) and ``loss`` (the mean
        loss of SPEC 1).

    Examples
    --------
    >>> from cogo.solvers.constructions import z_M
    >>> Wa, Wb, Wc = z_M(5).to_weights(real=True)
    >>> m = network_metrics(Wa, Wb, Wc, 5)
    >>> m["accuracy"], m["loss"] < 1e-20
    (1.0, True)
    """
    G = as_group(group)
    n = G.order
    Wa, Wb, Wc = (np.asarray(x, dtype=np.float64) for x in (Wa, Wb, Wc))
    table = np.asarray(G.add_table, dtype=np.int64)
    correct, loss = 0, 0.0
    for a in range(n):
        h = Wa[:, a][None, :] + Wb.T                        # (n, q): rows b
        o = activate(h, activation) @ Wc.T                   # (n, n)
        c = table[a]
        r = o - o.mean(1, keepdims=True)
        r[np.arange(n), c] -= 1.0
        r += 1.0 / n
        loss += float((r * r).sum())
        correct += int((o.argmax(1) == c).sum())
    return {"accuracy": correct / (n * n), "loss": loss / (n * n)}


def catalogue_refusal(activation: str, command: str) -> str:
    """The one line classify, verify and dynamics print for a non-``sqr`` network.

    Returns
    -------
    str
        ``cogo <command>: activation <activation>: ...``, one line, ending with a colon.
    """
    return (f"cogo {command}: activation {activation}: the semiring, its theorems and the catalogue of SPEC 3-7 "
            "hold for sigma(x) = x^2 only; no catalogue form is named. Per-node Fourier report instead:")


@dataclass
class NodeReport:
    """Per-node frequency reading of one network (module docstring)."""

    group: str
    activation: str
    layout: str
    hidden: int
    live: np.ndarray
    dominant: list[str]
    share: np.ndarray
    ipr: np.ndarray
    single_fraction: float
    metrics: dict
    path: str = ""
    class_names: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        idx = np.flatnonzero(self.live)
        return {
            "path": self.path, "group": self.group, "activation": self.activation, "layout": self.layout,
            "hidden": self.hidden, "live": int(len(idx)), "single_frequency_fraction": self.single_fraction,
            "accuracy": self.metrics["accuracy"], "loss": self.metrics["loss"],
            "nodes": [{"node": int(j), "dominant": self.dominant[j], "share": float(self.share[j]),
                       "ipr": float(self.ipr[j])} for j in idx],
        }

    def render_text(self, max_rows: int = 40) -> str:
        idx = np.flatnonzero(self.live)
        lines = [f"{self.path or 'network'}: {self.group}, {self.hidden} hidden nodes, activation {self.activation}, "
                 f"layout {self.layout}",
                 f"  accuracy on all pairs {self.metrics['accuracy']:.4f}, loss on all pairs {self.metrics['loss']:.4g}",
                 f"  live nodes {len(idx)}; single-frequency (share >= {SINGLE_SHARE}) "
                 f"{self.single_fraction:.3f}; mean IPR {float(self.ipr[idx].mean()) if len(idx) else 0.0:.3f}"]
        counts: dict[str, int] = {}
        for j in idx:
            counts[self.dominant[j]] = counts.get(self.dominant[j], 0) + 1
        lines.append("  nodes per dominant frequency: " + (", ".join(f"{k}: {v}" for k, v in sorted(
            counts.items(), key=lambda kv: -kv[1])) or "none"))
        lines.append(f"  {'node':>5} {'dominant':>10} {'share':>7} {'IPR':>7}")
        for j in idx[:max_rows]:
            lines.append(f"  {j:>5} {self.dominant[j]:>10} {self.share[j]:>7.3f} {self.ipr[j]:>7.3f}")
        if len(idx) > max_rows:
            lines.append(f"  ... {len(idx) - max_rows} more nodes (--json lists all)")
        return "\n".join(lines) + "\n"


def node_report(Wa: Any, Wb: Any, Wc: Any, group: Any, activation: str = THEORY, layout: str = "",
                dead_threshold: float = DEAD_THRESHOLD, path: str = "") -> NodeReport:
    """Per live node: dominant class, its share, IPR; the single-frequency fraction; accuracy and loss.

    A node is live when its strength ``(max(|a_j|, |b_j|)^2 |c_j|)^(1/3)`` is
    above ``dead_threshold`` times the strongest node's (as cogo classify).

    Examples
    --------
    >>> n = 7; x = np.arange(n)
    >>> Wa = np.stack([np.cos(2 * np.pi * 2 * x / n), np.cos(2 * np.pi * 2 * x / n) + np.cos(2 * np.pi * x / n)])
    >>> rep = node_report(Wa, Wa, Wa.T, n, activation="relu")
    >>> rep.dominant, [round(float(s), 3) for s in rep.share], rep.single_fraction
    (['2', '1'], [1.0, 0.5], 0.5)
    """
    G = as_group(group)
    Wa, Wb, Wc = (np.asarray(x, dtype=np.float64) for x in (Wa, Wb, Wc))
    na, nb, nc = np.linalg.norm(Wa, axis=1), np.linalg.norm(Wb, axis=1), np.linalg.norm(Wc, axis=0)
    strength = np.cbrt(np.maximum(na, nb) ** 2 * nc)
    top = float(strength.max(initial=0.0))
    live = strength > dead_threshold * top if top > 0 else np.zeros(len(na), dtype=bool)
    E, names = node_spectrum(Wa, Wb, Wc, G)
    tot = E.sum(0)
    dom = E.argmax(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(tot > 0, E.max(0) / np.where(tot > 0, tot, 1.0), 0.0)
    ipr = inverse_participation_ratio(E)
    nl = int(live.sum())
    single = float((share[live] >= SINGLE_SHARE).sum() / nl) if nl else 0.0
    return NodeReport(G.label if hasattr(G, "label") else str(G), activation, layout, int(Wa.shape[0]), live,
                      [names[i] for i in dom], share, ipr, single, network_metrics(Wa, Wb, Wc, G, activation),
                      path=path, class_names=names)


def activation_reports(paths: Any, command: str, group: Any = None, dead_threshold: float = DEAD_THRESHOLD,
                       snapshots: bool = False) -> tuple[str, list[dict]] | None:
    """For ``cogo classify / verify / dynamics``: None when every file is ``sqr``; else the text and dicts to print.

    Every file is read first (:func:`cogo.io.weights.read_checkpoint`, with the
    reading options of :mod:`cogo.io.layouts`).  When any network's activation is
    not ``sqr`` the text starts with :func:`catalogue_refusal` (one line) and
    holds a :class:`NodeReport` per file; with ``snapshots`` (``cogo dynamics``)
    also one line per snapshot: epoch, accuracy, loss, single-frequency
    fraction and mean IPR of the live nodes.
    """
    loaded = [read_checkpoint(p, group=group) for p in paths]
    acts = sorted({w.activation for w in loaded})
    if acts == [THEORY]:
        return None
    lines = [catalogue_refusal("/".join(a for a in acts if a != THEORY), command)]
    out = []
    for w, p in zip(loaded, paths):
        rep = node_report(w.Wa, w.Wb, w.Wc, w.group, activation=w.activation, layout=w.layout,
                          dead_threshold=dead_threshold, path=str(p))
        d = rep.to_dict()
        lines.append(rep.render_text().rstrip("\n"))
        if snapshots:
            snaps = open_snapshots(p, group=group)
            rows = []
            lines.append(f"  {'epoch':>8} {'accuracy':>9} {'loss':>10} {'single':>7} {'mean IPR':>9}")
            for i, ep in enumerate(snaps.epochs):
                Wa, Wb, Wc = snaps.load(i)
                r = node_report(Wa, Wb, Wc, w.group, activation=w.activation, dead_threshold=dead_threshold)
                live = np.flatnonzero(r.live)
                mipr = float(r.ipr[live].mean()) if len(live) else 0.0
                rows.append({"epoch": int(ep), "accuracy": r.metrics["accuracy"], "loss": r.metrics["loss"],
                             "single_frequency_fraction": r.single_fraction, "mean_ipr": mipr})
                lines.append(f"  {int(ep):>8} {r.metrics['accuracy']:>9.4f} {r.metrics['loss']:>10.4g} "
                             f"{r.single_fraction:>7.3f} {mipr:>9.3f}")
            d["snapshots"] = rows
        out.append(d)
    return "\n".join(lines) + "\n", out
