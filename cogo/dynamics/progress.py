"""Progress measures over training, per irrep family, vectorized over snapshots: one registry (SPEC 1, 2, 9).

The measures the field compares runs with, computed for a stack of ``S``
snapshots of one network ``o(a, b) = W_c (W_a[:, a] + W_b[:, b])^2`` on a finite
group ``G`` of order ``M`` (SPEC 1; ``c = a b``, Abelian or not).  Irreps are read
in *families* with an orthonormal basis ``Q_f`` of each
(:class:`cogo.dynamics.families.FamilyBasis`, SPEC 9).

* **Logits in the key directions** (Nanda et al. 2023 for ``Z_n``, Chughtai et
  al. 2023 for any group).  The logits ``L(a, b, c)`` over all ``M^2`` pairs and
  ``M`` outputs; the functions of ``x = a b c^-1`` (for ``Z_n``: ``a + b - c``) are
  the directions of the target (``e_c - 1/M`` is ``delta_e(x) - 1/M``).  The
  projection of ``L`` on them is ``psi(a b c^-1)`` with the fibre mean
  ``psi(x) = M^-2 sum_{a,b} L(a, b, x^-1 a b)``; its part in family ``f`` is
  ``Q_f Q_f^T psi``.  **FVE of the centred logits** of family ``f``:
  ``M^2 ||Q_f^T psi||^2 / ||L - mean_c L||^2`` (sums over all pairs).
* **Key families**: family ``f`` is key at a snapshot when its logit FVE is at
  least :data:`cogo.dynamics.families.KEY_FRACTION` times its share of the target,
  ``share_f = sum_{k in f} d_k^2 / (M - 1)``; the key families of the run are
  those key at the last snapshot, and each becomes key at the first snapshot
  from which it stays key to the end.
* **Restricted loss**: the loss (the run's, SPEC 1) of the logits
  ``phi(a b c^-1)``, ``phi = sum_{f key} Q_f Q_f^T psi``, over all pairs (it is
  the same for every pair); **excluded loss**: the loss of ``L - phi(a b c^-1)``
  over the training pairs.
* **FVE of W_a, W_b, W_c** per family: ``||Q_f^T w||^2`` summed over nodes over
  the same sum over all non-trivial families (rows of ``W_a``, ``W_b``, columns
  of ``W_c`` as functions on ``G``; the trivial family, the mean, left out).
* **IPR** (Gromov 2023) of each node's spectrum (:func:`cogo.dynamics.families.node_ipr`).
* **Li^2 kernel statistics** (SPEC 9) on the training pairs
  (:func:`cogo.solvers.li2_record.li2_statistics`) and the **stage** of training (:func:`li2_stage`).

Everything is float64; the snapshots are processed a sub-stack at a time
(memory bounded by :data:`cogo.dynamics.logits.MAX_ELEMENTS`), each step one batched array operation.

**The registry.** Each measure is one :class:`cogo.dynamics.measures.Measure` record of
:data:`MEASURES`: its name (its per-snapshot array in :func:`progress_measures`,
cached per snapshot by :mod:`cogo.dynamics.progress_cache`), how it is computed
from a :class:`cogo.dynamics.measures.Part` of a :class:`Stack` (the
intermediates several measures share, :data:`_SHARED`, computed once per
sub-stack), and how a run shows it: its part of ``run["progress"]`` in
``dynamics.json`` (read by :mod:`cogo.dynamics.progress_reader`), its columns of
:func:`progress_table`, its series and lines in the panels (:data:`PANELS`) of
the progress figures (:mod:`cogo.dynamics.figures`), whether its fall epoch is
reported.  Adding a measure is its computation and its record, in this module.
The peers' measures are records of the same kind
(:data:`cogo.dynamics.peers.PEER_MEASURES`).

References
----------
.. [1] N. Nanda, L. Chan, T. Lieberum, J. Smith, J. Steinhardt, "Progress measures for grokking via mechanistic interpretability", ICLR 2023.
.. [2] B. Chughtai, L. Chan, N. Nanda, "A toy model of universality: reverse engineering how networks learn group operations", ICML 2023.
.. [3] A. Gromov, "Grokking modular arithmetic", arXiv:2301.02679, 2023.
.. [4] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from cogo.algebra.activations import ACTIVATIONS, THEORY, unknown_message
from cogo.algebra.group_parsing import pair_tables, as_group
from cogo.analysis.report.records import Records
from cogo.dynamics.families import family_basis, family_energy, key_families, node_ipr
from cogo.dynamics.logits import at_x, features_and_logits, fibre_mean, pair_losses, substack_step
from cogo.dynamics.measures import Measure, Panel, Part, compute_measures
from cogo.dynamics.peers import PEER_MEASURES
from cogo.io.arrays import as_stack
from cogo.solvers.li2_record import LI2_STATS, li2_statistics, ridge_eta

__all__ = ["LAZY_MOVE", "INDEPENDENT_COS", "STAGES", "IPR_BINS", "IPR_QUANTILES", "PANELS", "MEASURES", "SECTIONS",
           "Stack", "li2_stage", "progress_measures", "fall_epoch", "grok_epoch",
           "progress_table"]

#: Lazy stage: the features ``(W_a, W_b)`` moved less than this (relative to epoch 0).
LAZY_MOVE = 0.1
#: Independent feature learning: ``cos(G_F, Y~ Y~^T F~) >=`` this; interactive below.
INDEPENDENT_COS = 0.9
STAGES = ("lazy", "independent", "interactive")
#: Edges of the IPR histogram (IPR lies in ``[1/F, 1]``).
IPR_BINS = np.linspace(0.0, 1.0, 11)
#: The percentiles of the live nodes' IPR kept per snapshot.
IPR_QUANTILES = (10, 25, 50, 75, 90)


# --------------------------------------------------------------------------- Li^2 stage
def li2_stage(feature_move: np.ndarray, G_F_cos: np.ndarray) -> list:
    """The stage of training at each snapshot (Li^2; the rule of docs/dynamics.md): one of :data:`STAGES` each.

    ``lazy`` when the features moved less than :data:`LAZY_MOVE` from epoch 0
    (``||(W_a, W_b) - (W_a, W_b)_0||_F / ||(W_a, W_b)_0||_F``); otherwise
    ``independent`` when ``cos(G_F, Y~Y~^T F~) >=`` :data:`INDEPENDENT_COS`
    (the backpropagated gradient is each node's own energy gradient, Lemma 1),
    else ``interactive``.

    Examples
    --------
    >>> li2_stage([0.01, 0.5, 0.5, 0.5], [0.2, 0.95, 0.3, float("nan")])
    ['lazy', 'independent', 'interactive', 'interactive']
    """
    out = []
    for m, cs in zip(feature_move, G_F_cos):
        if m < LAZY_MOVE:
            out.append("lazy")
        elif cs >= INDEPENDENT_COS:
            out.append("independent")
        else:
            out.append("interactive")
    return out


# --------------------------------------------------------------------------- what the measures read
class Stack:
    """A stack of snapshots and the settings of :func:`progress_measures`, checked (ValueError, one line).

    ``Wa_all``, ``Wb_all``: every node (the feature movement); ``Wa``, ``Wb``, ``Wc``: without the nodes that
    have no input weight at any snapshot (their features ``sigma(0) = 0`` change no measure), ``keep`` the kept
    nodes of ``q_all``; ``ab``, ``cx``: of :func:`cogo.algebra.group_parsing.pair_tables`; ``tr`` the training pairs and
    ``trc`` the same grouped by answer (the Li^2 sums); ``key`` the key families (from the last snapshot unless
    given); ``step`` the snapshots of one sub-stack.
    """

    def __init__(self, Wa: Any, Wb: Any, Wc: Any, group: Any, train_idx: Any, loss: str, key: Sequence[int] | None,
                 eta: float | None, weight_decay: float | None, W0: tuple | None, dead_threshold: float,
                 activation: str, li2: dict | None):
        self.G = as_group(group)
        self.B = family_basis(self.G)
        self.Wa_all, self.Wb_all, Wc = as_stack(Wa), as_stack(Wb), as_stack(Wc)
        self.S, self.q_all, self.M = self.Wa_all.shape
        _check_measure_args(self.Wa_all, self.Wb_all, Wc, self.G, loss, activation)
        self.sigma = ACTIVATIONS[activation].numpy_
        self.W0, self.loss, self.li2, self.dead_threshold = W0, loss, li2, dead_threshold
        self.Wa, self.Wb, self.Wc, self.keep = _drop_idle(self.Wa_all, self.Wb_all, Wc)
        self.q = len(self.keep)
        _, _, self.ab, self.cx = pair_tables(self.G)
        P = self.M * self.M
        self.tr = np.arange(P) if train_idx is None else np.asarray(train_idx, dtype=np.int64).reshape(-1)
        if self.tr.size == 0 or self.tr.min() < 0 or self.tr.max() >= P:
            raise ValueError(f"training pair indices must lie in [0, {P})")
        self.eta = ridge_eta(weight_decay, len(self.tr)) if eta is None else eta
        self.trc = self.tr[np.argsort(self.ab[self.tr], kind="stable")]
        self.nt = np.arange(len(self.B)) != self.B.trivial
        self.step = substack_step(P, self.q, self.M)
        if key is None:   # the families key at the last snapshot
            fl_last = Part(self, slice(self.S - 1, self.S), _SHARED)["logit_fve"]
            key = np.flatnonzero(key_families(fl_last[-1], self.B))
        self.key = [int(f) for f in key]


def _logits(p: Part) -> dict:
    s = p.stack
    Fh, L = features_and_logits(s.Wa, s.Wb, s.Wc, p.sl, s.sigma)
    return {"features": Fh, "logits": L}


def _logit_fve(p: Part) -> dict:
    """The fibre mean ``psi`` (s, M) of the logits and the FVE of the centred logits per family (s, F)."""
    L, B, nt = p["logits"], p.stack.B, p.stack.nt
    M = L.shape[-1]
    Lc = L - L.mean(-1, keepdims=True)
    psi = fibre_mean(L, p.stack.cx)                             # (s, M)
    fam = B.energies(psi)                                      # ||Q_f^T psi||^2 (s, F)
    tot = np.einsum("spm,spm->s", Lc, Lc)
    return {"psi": psi, "logit_fve": np.where(nt, M * M * fam / np.where(tot > 0, tot, 1.0)[:, None], 0.0)}


def _key_logits(p: Part) -> dict:
    """``phi(a b c^-1)`` (s, P, M), ``phi`` the key families' part of ``psi``: the restricted logits."""
    s = p.stack
    return {"key_logits": at_x(s.B.project(p["psi"], s.key), s.ab, s.G)}


def _li2(p: Part) -> dict:
    """The Li^2 statistics of the part: computed on the training pairs, or as the trainer recorded them."""
    s = p.stack
    if s.li2 is not None:   # recorded by the trainer at these epochs (the same definition, li2_statistics_of)
        s0 = p.sl.start
        return {"li2": {k: np.asarray(s.li2[k], dtype=np.float64)[s0:s0 + p.n] for k in LI2_STATS}}
    st = li2_statistics(p["features"][:, s.trc], s.ab[s.trc], s.M, s.eta)
    q, q_all = s.q, s.q_all
    if q < q_all:  # the dropped nodes' zero rows and columns of F~^T F~ count in its means
        st["FtF_diag"] = st["FtF_diag"] * q / q_all
        st["FtF_offdiag"] = st["FtF_offdiag"] * (q * (q - 1)) / (q_all * (q_all - 1)) if q_all > 1 \
            else 0.0 * st["FtF_offdiag"]
    return {"li2": st}


def _energies(p: Part) -> dict:
    s = p.stack
    E = family_energy(s.Wa[p.sl], s.Wb[p.sl], s.Wc[p.sl], s.B)
    return {"energies": E}


def _ipr_live(p: Part) -> dict:
    """The IPR and liveness of every node of ``q_all`` (the dropped ones: 0 and not live)."""
    s = p.stack
    ipr, live = node_ipr(s.Wa[p.sl], s.Wb[p.sl], s.Wc[p.sl], s.G, s.dead_threshold, energies=p["energies"])
    out_ipr, out_live = np.zeros((p.n, s.q_all)), np.zeros((p.n, s.q_all), dtype=bool)
    out_ipr[:, s.keep], out_live[:, s.keep] = ipr, live
    return {"ipr": out_ipr, "live": out_live}


#: The intermediates a :class:`Part` computes on demand: name -> the function that computes it (and its siblings).
_SHARED: dict = {"features": _logits, "logits": _logits, "psi": _logit_fve, "logit_fve": _logit_fve,
                 "key_logits": _key_logits, "li2": _li2, "energies": _energies, "ipr": _ipr_live, "live": _ipr_live}


def _check_measure_args(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, G: Any, loss: str, activation: str) -> None:
    """Refuse (ValueError, one line) stacks that do not fit ``G``, an unknown loss or activation."""
    S, q, M = Wa.shape
    if M != G.order or Wb.shape != (S, q, M) or Wc.shape != (S, M, q):
        raise ValueError(f"weight stacks of shapes {Wa.shape}, {Wb.shape}, {Wc.shape} do not fit group {G} of order "
                         f"{G.order} (expected (S, q, M), (S, q, M), (S, M, q))")
    if loss not in ("mse", "ce"):
        raise ValueError(f"unknown loss {loss!r}; choose mse or ce")
    if activation not in ACTIVATIONS:
        raise ValueError(unknown_message(activation))


def _drop_idle(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray) -> tuple:
    """``(Wa, Wb, Wc, keep)``: the stacks without the nodes that have no input weight, and the kept nodes."""
    # nodes with no input weight at any snapshot of the stack have features sigma(0) = 0 (every activation here) and
    # change no measure: they are dropped before anything of size q x M^2 is formed
    idle = ~(np.any(Wa != 0, axis=(0, 2)) | np.any(Wb != 0, axis=(0, 2)))
    keep = np.flatnonzero(~idle)
    if len(keep) < Wa.shape[1]:
        Wa, Wb, Wc = Wa[:, keep], Wb[:, keep], Wc[:, :, keep]
    return Wa, Wb, Wc, keep


def _feature_move(p: Part) -> np.ndarray:
    """``||(W_a, W_b) - (W_a, W_b)_0||_F / ||(W_a, W_b)_0||_F`` per snapshot (inf when the epoch-0 features are 0)."""
    s = p.stack
    Wa, Wb = s.Wa_all, s.Wb_all
    A0, B0 = (Wa[0], Wb[0]) if s.W0 is None else (np.asarray(s.W0[0], dtype=np.float64),
                                                  np.asarray(s.W0[1], dtype=np.float64))
    base = math.sqrt(float(np.sum(A0 * A0) + np.sum(B0 * B0)))
    move = np.sqrt(((Wa - A0) ** 2).sum((1, 2)) + ((Wb - B0) ** 2).sum((1, 2)))
    return move / base if base > 0 else np.full(s.S, np.inf)


def _weight_fve(i: int) -> Callable[[Part], np.ndarray]:
    """The FVE per family of layer ``i`` (0: W_a, 1: W_b, 2: W_c), summed over nodes (module docstring)."""
    def compute(p: Part) -> np.ndarray:
        tot = p["energies"][i].sum(1)                              # (S, F) summed over nodes
        nt = p.stack.nt
        den = tot[:, nt].sum(-1, keepdims=True)
        return np.where(nt, tot / np.where(den > 0, den, 1.0), 0.0)
    return compute


def _restricted_loss(p: Part) -> np.ndarray:
    return pair_losses(p["key_logits"], p.stack.ab, p.stack.loss).mean(-1)


def _excluded_loss(p: Part) -> np.ndarray:
    s = p.stack
    return pair_losses((p["logits"] - p["key_logits"])[:, s.tr], s.ab[s.tr], s.loss).mean(-1)


# --------------------------------------------------------------------------- the registry
LOSS = Panel("loss (SPEC 1): train, test, restricted, excluded", "loss (the run's)", True,
             (("train_loss", "train", "-"), ("test_loss", "test", "--")))
LOGIT_FVE = Panel("FVE of the centred logits by the key irreps", "fraction of variance")
WEIGHT_FVE = Panel("FVE of W_a, W_b, W_c: share of ||W||^2 outside the key irreps (1 - Chughtai et al.'s FVE)",
                   "share of ||W||^2 outside the key irreps", True)
IPR = Panel("IPR of the live nodes' irrep spectra", "IPR (cogo: 1 = one family)")
KERNEL = Panel("Li^2 kernel: mean diagonal / off-diagonal", "mean entry", "symlog")
GRADIENT = Panel("Li^2: ||G_F||_F", "value", True)
ALIGNMENT = Panel("Li^2: cos(G_F, Y~Y~^T F~) and feature movement", "value")
STAGE = Panel("stage: 0 lazy, 1 independent, 2 interactive", "stage")
#: The panels of the progress figures, in order (:mod:`cogo.dynamics.figures`).
PANELS = (LOSS, LOGIT_FVE, WEIGHT_FVE, IPR, KERNEL, GRADIENT, ALIGNMENT, STAGE)


def _floats(xs: Sequence) -> np.ndarray:
    """A float array of ``xs`` with None as NaN."""
    return np.asarray([np.nan if x is None else x for x in xs], dtype=float)


def _plain(name: str, *path: str) -> dict:
    """The ``json``, ``table`` and ``series`` hooks of a measure kept as one list at ``path`` of ``run["progress"]``."""
    def get(pr: dict) -> Any:
        for k in path:
            pr = pr[k]
        return pr

    def json(values: dict, reader: Any) -> dict:
        frag: Any = values[name].tolist()
        for k in reversed(path):
            frag = {k: frag}
        return frag
    return {"json": json, "table": lambda pr, i: {name: get(pr)[i]}, "series": lambda pr: {name: _floats(get(pr))}}


def _fve_hooks(w: str) -> dict:
    """Hooks of the FVE of ``w`` (logits, Wa, Wb, Wc): per family in the JSON, summed over the key families."""
    def series(pr: dict) -> dict:
        A = np.asarray(pr["fve"][w], dtype=float)
        key = pr["key"]
        s = {f"fve_{w}_key": A[:, key].sum(1) if key else np.zeros(len(A)), f"fve_{w}_max": A.max(1)}
        ck = (pr.get("chughtai") or {}).get("fve_key", {}).get(w)
        # outside Chughtai et al.'s key irreps (the constant included): not 1 - 1 = 0 when every family is key
        s[f"fve_{w}_out"] = 1.0 - (_floats(ck) if ck is not None else s[f"fve_{w}_key"])
        return s
    return {"json": lambda values, reader: {"fve": {w: values[f"fve_{w}"].tolist()}},
            "table": lambda pr, i: {f"fve_{w}_key": float(sum(pr["fve"][w][i][f] for f in pr["key"]))},
            "series": series}


def _ipr_json(values: dict, reader: Any) -> dict:
    """The live nodes' IPR per snapshot: mean, :data:`IPR_QUANTILES`, histogram on :data:`IPR_BINS`, live count."""
    vals = [row[m] for row, m in zip(values["ipr"], values["live"])]
    qs = {str(p): [float(np.percentile(v, p)) if len(v) else None for v in vals] for p in IPR_QUANTILES}
    hist = [np.histogram(v, bins=IPR_BINS)[0].tolist() for v in vals]
    return {"ipr": {"mean": [float(v.mean()) if len(v) else None for v in vals], "quantiles": qs,
                    "hist": hist, "bins": IPR_BINS.tolist(), "live": [int(m.sum()) for m in values["live"]]}}


def _stage_json(values: dict, reader: Any) -> dict:
    return {"li2": {"stage": list(values["stage"]),
                    "source": "recorded by the trainer at the snapshot epochs" if reader.recorded is not None
                    else "computed from the snapshots",
                    "rule": f"lazy: feature_move < {LAZY_MOVE}; else independent: G_F_cos >= {INDEPENDENT_COS}; "
                            f"else interactive"}}


def _li2_measure(k: str, lines: tuple) -> Measure:
    return Measure(k, lambda p: p["li2"][k], uses=("li2",), **_plain(k, "li2", k), lines=lines)


#: The progress measures, in the order of ``run["progress"]`` and of :func:`progress_table`'s columns.
MEASURES = (
    Measure("restricted_loss", _restricted_loss, uses=("key_logits",), **_plain("restricted_loss", "restricted_loss"),
            lines=((LOSS, "restricted_loss", "cogo restricted (key, functions of abc^-1)", "-"),), falls=True),
    Measure("excluded_loss", _excluded_loss, uses=("logits", "key_logits"), **_plain("excluded_loss", "excluded_loss"),
            lines=((LOSS, "excluded_loss", "cogo excluded (key removed), train pairs", ":"),)),
    Measure("fve_logits", lambda p: p["logit_fve"], uses=("logit_fve",), **_fve_hooks("logits"),
            lines=((LOGIT_FVE, "fve_logits_key", "logits", "-"),)),
    Measure("fve_Wa", _weight_fve(0), "stack", **_fve_hooks("Wa"), lines=((WEIGHT_FVE, "fve_Wa_out", "W_a", "-"),)),
    Measure("fve_Wb", _weight_fve(1), "stack", **_fve_hooks("Wb"), lines=((WEIGHT_FVE, "fve_Wb_out", "W_b", "--"),)),
    Measure("fve_Wc", _weight_fve(2), "stack", **_fve_hooks("Wc"), lines=((WEIGHT_FVE, "fve_Wc_out", "W_c", ":"),)),
    Measure("key_at", lambda values, stack: key_families(values["fve_logits"], stack.B), "after",
            json=lambda values, reader: {"key_at": values["key_at"].tolist()}),
    Measure("ipr", lambda p: p["ipr"], "stack", json=_ipr_json,
            table=lambda pr, i: {"ipr_mean": pr["ipr"]["mean"][i], "ipr_median": pr["ipr"]["quantiles"]["50"][i]},
            series=lambda pr: {"ipr_mean": _floats(pr["ipr"]["mean"]), "ipr_q25": _floats(pr["ipr"]["quantiles"]["25"]),
                               "ipr_q75": _floats(pr["ipr"]["quantiles"]["75"])},
            lines=((IPR, "ipr_mean", "mean", "-"), (IPR, "ipr_q25", "25%", ":"), (IPR, "ipr_q75", "75%", ":"))),
    Measure("live", lambda p: p["live"], "stack", table=lambda pr, i: {"live_nodes": pr["ipr"]["live"][i]}),
    _li2_measure("FtF_diag", ((KERNEL, "FtF_diag", "F~^T F~ diag", "-"),)),
    _li2_measure("FtF_offdiag", ((KERNEL, "FtF_offdiag", "F~^T F~ off-diag", "--"),)),
    _li2_measure("FFt_diag", ((KERNEL, "FFt_diag", "F F^T diag", "-."),)),
    _li2_measure("FFt_offdiag", ((KERNEL, "FFt_offdiag", "F F^T off-diag", ":"),)),
    _li2_measure("G_F_norm", ((GRADIENT, "G_F_norm", "||G_F||", "-"),)),
    _li2_measure("G_F_cos", ((ALIGNMENT, "G_F_cos", "cos(G_F, Y~Y~^T F~)", "-"),)),
    Measure("feature_move", _feature_move, "stack", **_plain("feature_move", "li2", "feature_move"),
            lines=((ALIGNMENT, "feature_move", "|W_ab - W_ab(0)| / |W_ab(0)|", "--"),)),
    Measure("stage", lambda values, stack: li2_stage(values["feature_move"], values["G_F_cos"]), "after",
            labels=True, json=_stage_json, table=lambda pr, i: {"stage": pr["li2"]["stage"][i]},
            series=lambda pr: {"stage": np.asarray([STAGES.index(s) for s in pr["li2"]["stage"]], dtype=float)},
            lines=((STAGE, "stage", "stage", "-"),)),
)
#: The sections of ``run["progress"]`` that open with run-level entries, before their measures' (name -> hook).
SECTIONS = {"li2": lambda reader: {"eta": reader.eta_used}}
if {m.name for m in MEASURES} != {"restricted_loss", "excluded_loss", "fve_logits", "fve_Wa", "fve_Wb", "fve_Wc",
                                  "key_at", "ipr", "live", *LI2_STATS, "feature_move", "stage"}:  # pragma: no cover
    raise RuntimeError("the Li^2 statistics of cogo.solvers.li2_record and the registry's disagree")


# --------------------------------------------------------------------------- all at once
def progress_measures(Wa: Any, Wb: Any, Wc: Any, group: Any, train_idx: Any = None, loss: str = "mse",
                      key: Sequence[int] | None = None, eta: float | None = None, weight_decay: float | None = None,
                      W0: tuple | None = None, dead_threshold: float = 0.01, activation: str = THEORY,
                      li2: dict | None = None) -> dict:
    """Every progress measure of :data:`MEASURES` for a stack of snapshots (module docstring), over the snapshots.

    ``Wa``, ``Wb``: (S, q, M) (or (q, M)); ``Wc``: (S, M, q).  ``train_idx``:
    the training pairs ``a M + b`` (default: all pairs); ``loss``: ``"mse"`` or
    ``"ce"``; ``key``: the key families for the restricted and excluded loss
    (default: those key at the last snapshot of the stack); ``eta``: the ridge
    constant (default :func:`cogo.solvers.li2_record.ridge_eta` of ``weight_decay``); ``W0``: the
    weights at epoch 0 for the feature movement (default: the first snapshot);
    ``activation``: the hidden activation ``sigma`` (:data:`cogo.algebra.activations.ACTIVATIONS`; ``"sqr"``
    is SPEC 1's network; the measures are defined for any, with
    ``F = sigma(W_a[:, a] + W_b[:, b])`` and ``L = F W_c^T``); ``li2``: the
    :data:`cogo.solvers.li2_record.LI2_STATS` of these snapshots as the trainer recorded them (arrays of
    length S, :func:`cogo.solvers.li2_record.li2_statistics_of`), used instead of computing them again.

    Returns
    -------
    dict
        Numpy arrays over the S snapshots: ``restricted_loss``, ``excluded_loss``, ``fve_logits`` (S, F),
        ``fve_Wa``, ``fve_Wb``, ``fve_Wc`` (S, F), ``key_at`` (S, F), ``ipr`` (S, q), ``live`` (S, q), the
        Li^2 statistics, ``feature_move`` and ``stage`` (a list); and ``key`` (the families used)
        and ``eta`` (the ridge constant used).

    Raises
    ------
    ValueError
        One line, for stacks that do not fit the group, an unknown loss or activation, or training pair
        indices outside ``[0, M^2)``.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F6
    >>> Wa, Wb, Wc = z_F6(5).to_weights(real=True)         # a global optimum: loss 0 (SPEC 7)
    >>> pm = progress_measures(Wa, Wb, Wc, 5)
    >>> pm["key"], round(float(pm["restricted_loss"][0]), 9), round(float(pm["excluded_loss"][0]), 9)
    ([1, 2], 0.0, 0.8)
    """
    st = Stack(Wa, Wb, Wc, group, train_idx, loss, key, eta, weight_decay, W0, dead_threshold, activation, li2)
    out = compute_measures(MEASURES, st, _SHARED)
    out["key"] = st.key
    out["eta"] = float(st.eta)
    return out


# --------------------------------------------------------------------------- summaries
def fall_epoch(epochs: Sequence[int], values: Sequence[float | None]) -> int | None:
    """The first epoch at which ``values`` is at or below the geometric mean of its first and last value.

    The "half-way down in log scale" epoch, used to say which of two losses falls first.

    Returns
    -------
    int or None
        That epoch; None when fewer than two values are positive and finite, or the last is not below the first.

    Examples
    --------
    >>> fall_epoch([0, 10, 100, 1000], [1.0, 0.5, 0.05, 0.01])
    100
    """
    pts = [(int(e), float(v)) for e, v in zip(epochs, values) if v is not None and math.isfinite(float(v)) and v > 0]
    if len(pts) < 2:
        return None
    v0, v1 = pts[0][1], pts[-1][1]
    if v1 >= v0:
        return None
    mid = math.sqrt(v0 * v1)
    return next(e for e, v in pts if v <= mid)


def grok_epoch(run: dict, level: float = 0.99) -> int | None:
    """The first epoch of the run's history with test accuracy at least ``level`` (None if never).

    Examples
    --------
    >>> grok_epoch({"history": {"epoch": [0, 10, 20], "test_acc": [0.1, 0.995, 1.0]}})
    10
    """
    h = run.get("history") or {}
    for e, a in zip(h.get("epoch", []), h.get("test_acc", [])):
        if a is not None and a >= level:
            return int(e)
    return None


def progress_table(run: dict) -> Records:
    """One record per snapshot of a run read by :func:`cogo.dynamics.runs.analyse_run`.

    Keys: ``epoch``, ``train_loss``, ``test_loss``, ``train_acc``, ``test_acc``,
    then the columns of each measure of :data:`MEASURES` (``restricted_loss``, ``excluded_loss``,
    ``fve_logits_key`` (sum over the key families), ``fve_Wa_key``, ``fve_Wb_key``, ``fve_Wc_key``,
    ``ipr_mean``, ``ipr_median``, ``live_nodes``, the Li^2 statistics, ``feature_move``, ``stage``), the peers'
    ``nanda_restricted_loss_mse`` ... ``chughtai_excluded_loss_ce`` (when the run has them;
    :mod:`cogo.dynamics.peers`) and ``fve_logits[<family>]`` per family.
    """
    pr = run["progress"]
    names = [f["name"] for f in pr["families"]]
    recs = Records()
    for i, snap in enumerate(run["snapshots"]):
        r = {k: snap.get(k) for k in ("epoch", "train_loss", "test_loss", "train_acc", "test_acc")}
        for m in (*MEASURES, *PEER_MEASURES):       # cogo's, then the peers' (their restricted and excluded losses)
            if m.table is not None:
                r.update(m.table(pr, i))
        for f, nm in enumerate(names):
            r[f"fve_logits[{nm}]"] = pr["fve"]["logits"][i][f]
        recs.append(r)
    return recs
