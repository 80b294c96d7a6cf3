"""Progress measures over training, per irrep, vectorized over snapshots (SPEC 1, 2, 9).

The measures the field compares runs with, computed for a stack of ``S``
snapshots of one network ``o(a, b) = W_c (W_a[:, a] + W_b[:, b])^2`` on a finite
group ``G`` of order ``M`` (SPEC 1; ``c = a b``, Abelian or not).  Irreps are read
in *families* as real weights see them (:func:`cogo.analysis.irreps.irrep_families`:
a real or quaternionic irrep alone, a complex one with its conjugate; for
``Z_n`` the frequency classes ``{k, -k}``); the orthogonal projector of a family
is the real part of the sum of the isotypic projectors of
:func:`cogo.algebra.representations.isotypic_projectors` over its members
(SPEC 9), and ``Q_f`` an orthonormal basis of its image.

* **Logits in the key directions** (Nanda et al. 2023 for ``Z_n``, Chughtai et
  al. 2023 for any group).  The logits ``L(a, b, c)`` over all ``M^2`` pairs and
  ``M`` outputs; the functions of ``x = a b c^-1`` (for ``Z_n``: ``a + b - c``) are
  the directions of the target (``e_c - 1/M`` is ``delta_e(x) - 1/M``).  The
  projection of ``L`` on them is ``psi(a b c^-1)`` with the fibre mean
  ``psi(x) = M^-2 sum_{a,b} L(a, b, x^-1 a b)``; its part in family ``f`` is
  ``Q_f Q_f^T psi``.  **FVE of the centred logits** of family ``f``:
  ``M^2 ||Q_f^T psi||^2 / ||L - mean_c L||^2`` (sums over all pairs).
* **Key families**: family ``f`` is key at a snapshot when its logit FVE is at
  least :data:`KEY_FRACTION` times its share of the target,
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
* **IPR** (Gromov 2023) of each node's spectrum (:func:`node_ipr`).
* **Li^2 kernel statistics** (SPEC 9) on the training pairs (:func:`li2_statistics`)
  and the **stage** of training (:func:`li2_stage`).

Everything is float64; the snapshots are processed a sub-stack at a time
(memory bounded by :data:`MAX_ELEMENTS`), each step one batched array operation.

References
----------
.. [1] N. Nanda, L. Chan, T. Lieberum, J. Smith, J. Steinhardt, "Progress measures for grokking via mechanistic interpretability", ICLR 2023.
.. [2] B. Chughtai, L. Chan, N. Nanda, "A toy model of universality: reverse engineering how networks learn group operations", ICML 2023.
.. [3] A. Gromov, "Grokking modular arithmetic", arXiv:2301.02679, 2023.
.. [4] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from cogo.algebra.activations import ACTIVATIONS
from cogo.algebra.spec import pair_tables
from cogo.io.arrays import as_array, as_stack
from cogo.solvers.li2_record import LI2_STATS, li2_statistics, ridge_eta
from cogo.analysis.nodes import inverse_participation_ratio
from cogo.analysis.records import Records

__all__ = ["KEY_FRACTION", "LAZY_MOVE", "INDEPENDENT_COS", "STAGES", "IPR_BINS", "MAX_ELEMENTS", "FamilyBasis",
           "family_basis", "family_energy", "node_ipr", "progress_measures", "key_families", "key_epochs",
           "recorded_li2", "li2_stage", "fall_epoch",
           "progress_table"]

#: A family is key when its logit FVE is at least this fraction of its share of the target.
KEY_FRACTION = 0.5
#: Lazy stage: the features ``(W_a, W_b)`` moved less than this (relative to epoch 0).
LAZY_MOVE = 0.1
#: Independent feature learning: ``cos(G_F, Y~ Y~^T F~) >=`` this; interactive below.
INDEPENDENT_COS = 0.9
STAGES = ("lazy", "independent", "interactive")
#: Edges of the IPR histogram (IPR lies in ``[1/F, 1]``).
IPR_BINS = np.linspace(0.0, 1.0, 11)
#: Largest number of float64 elements of one intermediate array (``S' M^2 q``).
MAX_ELEMENTS = 1 << 23


# --------------------------------------------------------------------------- families
class FamilyBasis:
    """An orthonormal real basis of ``R^M`` adapted to the irrep families of ``G`` (module docstring).

    ``Q`` (M, M): columns ``start[f]:stop[f]`` span family ``f``; ``families``
    (lists of irrep indices), ``names``, ``dims`` (``sum d_k^2``), ``share``
    (``dims / (M - 1)``, 0 for the trivial family), ``trivial`` (its index).
    """

    def __init__(self, G: Any):
        from cogo.algebra.representations import character_table, isotypic_projectors
        from cogo.analysis.irreps import irrep_families

        self.group = G
        M = G.order
        P = isotypic_projectors(G)
        ct = character_table(G)
        self.families = irrep_families(G)
        self.names = ["+".join(f"rho{k}" for k in fam) for fam in self.families]
        cols, self.start, self.stop = [], [], []
        for fam in self.families:
            Pf = np.real(P[fam].sum(0))
            w, V = np.linalg.eigh((Pf + Pf.T) / 2)
            V = V[:, w > 0.5]
            self.start.append(sum(c.shape[1] for c in cols))
            cols.append(V)
            self.stop.append(self.start[-1] + V.shape[1])
        self.Q = np.concatenate(cols, axis=1)
        if self.Q.shape != (M, M):  # pragma: no cover - the projectors sum to the identity
            raise RuntimeError(f"family bases of {G} span {self.Q.shape[1]} of {M} dimensions")
        self.dims = np.array([self.stop[f] - self.start[f] for f in range(len(self.families))])
        self.trivial = next(f for f, fam in enumerate(self.families) if 0 in fam)
        self.share = np.where(np.arange(len(self.families)) == self.trivial, 0.0, self.dims / max(M - 1, 1))
        self.kinds = [ct.kind(fam[0]) for fam in self.families]
        self.irrep_dims = [int(ct.dims[fam[0]]) for fam in self.families]
        self._edges = np.array(self.start)

    def __len__(self) -> int:
        return len(self.families)

    def energies(self, X: np.ndarray) -> np.ndarray:
        """``||Q_f^T x||^2`` of every vector ``x`` on the last axis of ``X`` (..., M) -> (..., F)."""
        C = X @ self.Q
        return np.add.reduceat(C * C, self._edges, axis=-1)

    def project(self, X: np.ndarray, families: Sequence[int]) -> np.ndarray:
        """``sum_{f in families} Q_f Q_f^T x`` along the last axis."""
        idx = np.concatenate([np.arange(self.start[f], self.stop[f]) for f in families]) if len(families) else \
            np.zeros(0, dtype=int)
        Qk = self.Q[:, idx]
        return (X @ Qk) @ Qk.T


@lru_cache(maxsize=8)
def _basis(G: Any) -> FamilyBasis:
    return FamilyBasis(G)


def family_basis(group: Any) -> FamilyBasis:
    """The :class:`FamilyBasis` of ``group`` (cached per group).

    Returns
    -------
    FamilyBasis
        The orthonormal basis ``Q`` adapted to the irrep families of the group (SPEC 9), shared between calls.

    Examples
    --------
    >>> B = family_basis(5)                                 # Z_5: {0}, {1, 4}, {2, 3}
    >>> B.names, B.dims.tolist(), B.share.tolist()
    (['rho0', 'rho1+rho4', 'rho2+rho3'], [1, 2, 2], [0.0, 0.5, 0.5])
    >>> family_basis("S3").dims.tolist()                    # S3: trivial, sign, the 2-dimensional irrep
    [1, 1, 4]
    """
    from cogo.algebra.spec import parse_group

    return _basis(parse_group(group))


def family_energy(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, basis: FamilyBasis) -> tuple:
    """Energy per family of every node's ``W_a`` row, ``W_b`` row and ``W_c`` column: three (S, q, F) arrays.

    Returns
    -------
    tuple of numpy.ndarray
        ``||Q_f^T w||^2`` for the rows of ``W_a``, the rows of ``W_b`` and the columns of ``W_c``, each (S, q, F).
    """
    return basis.energies(Wa), basis.energies(Wb), basis.energies(np.swapaxes(Wc, -1, -2))


# --------------------------------------------------------------------------- IPR
def node_ipr(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, group: Any, dead_threshold: float = 0.01,
             energies: tuple | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Inverse participation ratio of each node's irrep-family spectrum, and which nodes are live.

    For node ``j`` and layer ``l`` in ``(W_a row, W_b row, W_c column)``, the
    spectrum ``s_l(f) = ||Q_f^T w_l||^2 / sum_{f' != trivial} ||Q_f'^T w_l||^2``
    over the non-trivial families ``f``; the node's spectrum is the mean of its
    three layers' (a layer with no non-trivial energy left out), and
    ``IPR_j = sum_f p_j(f)^2``: 1 for a node in one family, ``1/F`` for a node
    spread evenly over ``F`` families (Gromov 2023, with the Fourier modes of
    ``Z_n`` replaced by irrep families, SPEC 9).  A node is live when
    ``(max(|w_a|, |w_b|)^2 |w_c|)^(1/3)`` exceeds ``dead_threshold`` times the
    strongest node's (as :func:`cogo.analysis.irreps.read_irreps`).
    Stacks (S, q, M), (S, q, M), (S, M, q) -> IPR (S, q), live (S, q).

    The ratio itself is :func:`cogo.analysis.nodes.inverse_participation_ratio`
    (one definition); this function supplies the spectrum of the progress
    measures (non-trivial families, layers weighted equally).

    Returns
    -------
    ipr : numpy.ndarray
        (S, q): the IPR of each node's spectrum, in ``[1/F, 1]`` (0 for a node with no non-trivial energy).
    live : numpy.ndarray
        (S, q) bool: the node's strength exceeds ``dead_threshold`` times the strongest node's.

    Examples
    --------
    >>> import numpy as np
    >>> from cogo.solvers.constructions import z_F6
    >>> Wa, Wb, Wc = z_F6(5).to_weights(real=True)         # every node lives at one frequency
    >>> ipr, live = node_ipr(Wa[None], Wb[None], Wc[None], 5)
    >>> np.round(ipr[live], 12).tolist() == [1.0] * int(live.sum()), int(live.sum())
    (True, 12)
    """
    B = family_basis(group)
    Ea, Eb, Ec = energies if energies is not None else family_energy(Wa, Wb, Wc, B)
    nt = np.arange(len(B)) != B.trivial
    spec, have = 0.0, 0
    for E in (Ea, Eb, Ec):
        e = E[..., nt]
        tot = e.sum(-1, keepdims=True)
        ok = tot > 0
        spec = spec + np.where(ok, e / np.where(ok, tot, 1.0), 0.0)
        have = have + ok
    p = spec / np.maximum(have, 1)
    ipr = inverse_participation_ratio(np.moveaxis(p, -1, 0))
    na, nb = np.linalg.norm(Wa, axis=-1), np.linalg.norm(Wb, axis=-1)
    nc = np.linalg.norm(Wc, axis=-2)
    strength = np.cbrt(np.maximum(na, nb) ** 2 * nc)
    top = strength.max(axis=-1, keepdims=True, initial=0.0)
    live = (strength > dead_threshold * top) & (top > 0)
    return ipr, live


# --------------------------------------------------------------------------- logits
def _losses(L: np.ndarray, c: np.ndarray, loss: str) -> np.ndarray:
    """Per-pair loss (SPEC 1) of logits ``L`` (S, P, M) with answers ``c`` (P,): MSE on centred outputs or CE."""
    M = L.shape[-1]
    if loss == "mse":
        R = L - L.mean(-1, keepdims=True)
        R[..., np.arange(len(c)), c] -= 1.0
        R += 1.0 / M
        return (R * R).sum(-1)
    mx = L.max(-1, keepdims=True)
    lse = (mx[..., 0] + np.log(np.exp(L - mx).sum(-1)))
    return lse - L[..., np.arange(len(c)), c]


def _fibre_mean(L: np.ndarray, cx: np.ndarray) -> np.ndarray:
    """``psi(x) = mean_p L[p, x^-1 a_p b_p]`` for a stack (S, P, M) -> (S, M)."""
    P = L.shape[-2]
    return np.stack([L[:, np.arange(P), cx[x]].mean(-1) for x in range(cx.shape[0])], axis=-1)


def _at_x(phi: np.ndarray, ab: np.ndarray, G: Any) -> np.ndarray:
    """``phi(a b c^-1)`` for every pair and output: (S, M) -> (S, P, M)."""
    from cogo.algebra.spec import as_finite_group

    FG = as_finite_group(G)
    x = np.asarray(FG.table)[ab[:, None], np.asarray(FG.inverse)[None, :]]   # (P, M): (a b) c^-1
    return phi[:, x]


def key_families(fve_logits: np.ndarray, basis: FamilyBasis, fraction: float = KEY_FRACTION) -> np.ndarray:
    """Boolean (..., F): family ``f`` is key when its logit FVE >= ``fraction * share_f`` (module docstring).

    Returns
    -------
    numpy.ndarray
        Bool, the shape of ``fve_logits``; the trivial family is never key.

    Examples
    --------
    >>> import numpy as np
    >>> B = family_basis(5)                                 # shares 0, 1/2, 1/2
    >>> key_families(np.array([[0.0, 0.6, 0.2], [0.0, 0.3, 0.26]]), B).tolist()
    [[False, True, False], [False, True, True]]
    """
    nt = np.arange(len(basis)) != basis.trivial
    return (fve_logits >= fraction * basis.share) & nt


def key_epochs(key_at: np.ndarray, epochs: Sequence[int]) -> list:
    """Per family: the first snapshot epoch from which it is key at every later snapshot (None if not key at the end).

    Returns
    -------
    list of int or None
        One entry per family (column of ``key_at``).

    Examples
    --------
    >>> import numpy as np
    >>> key_epochs(np.array([[0, 0], [1, 0], [0, 1], [1, 1], [1, 1]], dtype=bool), [0, 1, 2, 4, 8])
    [4, 2]
    """
    key_at = np.asarray(key_at, dtype=bool)
    out = []
    for f in range(key_at.shape[1]):
        col = key_at[:, f]
        if not col[-1]:
            out.append(None)
            continue
        i = len(col) - 1
        while i > 0 and col[i - 1]:
            i -= 1
        out.append(int(epochs[i]))
    return out


# --------------------------------------------------------------------------- Li^2
def li2_stage(feature_move: np.ndarray, G_F_cos: np.ndarray) -> list:
    """The stage of training at each snapshot (Li^2; the rule of docs/dynamics.md).

    ``lazy`` when the features moved less than :data:`LAZY_MOVE` from epoch 0
    (``||(W_a, W_b) - (W_a, W_b)_0||_F / ||(W_a, W_b)_0||_F``); otherwise
    ``independent`` when ``cos(G_F, Y~Y~^T F~) >=`` :data:`INDEPENDENT_COS`
    (the backpropagated gradient is each node's own energy gradient, Lemma 1),
    else ``interactive``.

    Returns
    -------
    list of str
        One of :data:`STAGES` per snapshot.

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


# --------------------------------------------------------------------------- all at once
def progress_measures(Wa: Any, Wb: Any, Wc: Any, group: Any, train_idx: Any = None, loss: str = "mse",
                      key: Sequence[int] | None = None, eta: float | None = None, weight_decay: float | None = None,
                      W0: tuple | None = None, dead_threshold: float = 0.01, activation: str = "sqr",
                      li2: dict | None = None) -> dict:
    """Every progress measure of a stack of snapshots (module docstring), as arrays over snapshots.

    ``Wa``, ``Wb``: (S, q, M) (or (q, M)); ``Wc``: (S, M, q).  ``train_idx``:
    the training pairs ``a M + b`` (default: all pairs); ``loss``: ``"mse"`` or
    ``"ce"``; ``key``: the key families for the restricted and excluded loss
    (default: those key at the last snapshot of the stack); ``eta``: the ridge
    constant (default :func:`ridge_eta` of ``weight_decay``); ``W0``: the
    weights at epoch 0 for the feature movement (default: the first snapshot);
    ``activation``: the hidden activation ``sigma`` (:data:`ACTIVATIONS`; ``"sqr"``
    is SPEC 1's network; the measures are defined for any, with
    ``F = sigma(W_a[:, a] + W_b[:, b])`` and ``L = F W_c^T``); ``li2``: the
    :data:`LI2_STATS` of these snapshots as the trainer recorded them (arrays of
    length S, :func:`li2_statistics_of`), used instead of computing them again.

    Returns
    -------
    dict
        Numpy arrays over the S snapshots: ``restricted_loss``, ``excluded_loss``, ``fve_logits`` (S, F),
        ``fve_Wa``, ``fve_Wb``, ``fve_Wc`` (S, F), ``key_at`` (S, F), ``ipr`` (S, q), ``live`` (S, q), the
        :func:`li2_statistics` entries, ``feature_move`` and ``stage`` (a list); and ``key`` (the families used)
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
    from cogo.algebra.spec import parse_group

    G = parse_group(group)
    B = family_basis(G)
    Wa, Wb, Wc = as_stack(Wa), as_stack(Wb), as_stack(Wc)
    S, q, M = Wa.shape
    _check_measure_args(Wa, Wb, Wc, G, loss, activation)
    sigma = ACTIVATIONS[activation].numpy_
    out: dict = {"feature_move": _feature_move(Wa, Wb, W0)}
    q_all = q
    Wa, Wb, Wc, keep = _drop_idle(Wa, Wb, Wc)   # put back below
    q = len(keep)
    a, b, ab, cx = pair_tables(G)
    P = M * M
    tr = np.arange(P) if train_idx is None else np.asarray(train_idx, dtype=np.int64).reshape(-1)
    if tr.size == 0 or tr.min() < 0 or tr.max() >= P:
        raise ValueError(f"training pair indices must lie in [0, {P})")
    if eta is None:
        eta = ridge_eta(weight_decay, len(tr))
    trc = tr[np.argsort(ab[tr], kind="stable")]                    # training pairs grouped by answer (Li^2 sums)
    nt = np.arange(len(B)) != B.trivial
    _weight_measures(out, Wa, Wb, Wc, G, B, nt, dead_threshold, keep, q_all)
    _logit_measures(out, Wa, Wb, Wc, G, B, nt, sigma, (ab, cx, tr, trc), loss, key, eta, li2)
    if li2 is None and q < q_all:  # the dropped nodes' zero rows and columns of F~^T F~ count in its means
        out["FtF_diag"] = out["FtF_diag"] * q / q_all
        out["FtF_offdiag"] = out["FtF_offdiag"] * (q * (q - 1)) / (q_all * (q_all - 1)) if q_all > 1 else 0.0 * out["FtF_offdiag"]
    out["key_at"] = key_families(out["fve_logits"], B)
    out["eta"] = float(eta)
    out["stage"] = li2_stage(out["feature_move"], out["G_F_cos"])
    return out


def _check_measure_args(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, G: Any, loss: str, activation: str) -> None:
    """Refuse (ValueError, one line) stacks that do not fit ``G``, an unknown loss or activation."""
    S, q, M = Wa.shape
    if M != G.order or Wb.shape != (S, q, M) or Wc.shape != (S, M, q):
        raise ValueError(f"weight stacks of shapes {Wa.shape}, {Wb.shape}, {Wc.shape} do not fit group {G} of order "
                         f"{G.order} (expected (S, q, M), (S, q, M), (S, M, q))")
    if loss not in ("mse", "ce"):
        raise ValueError(f"unknown loss {loss!r}; choose mse or ce")
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}; choose one of {', '.join(ACTIVATIONS)}")


def _drop_idle(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray) -> tuple:
    """``(Wa, Wb, Wc, keep)``: the stacks without the nodes that have no input weight, and the kept nodes."""
    # nodes with no input weight at any snapshot of the stack have features sigma(0) = 0 (every activation here) and
    # change no measure: they are dropped before anything of size q x M^2 is formed
    idle = ~(np.any(Wa != 0, axis=(0, 2)) | np.any(Wb != 0, axis=(0, 2)))
    keep = np.flatnonzero(~idle)
    if len(keep) < Wa.shape[1]:
        Wa, Wb, Wc = Wa[:, keep], Wb[:, keep], Wc[:, :, keep]
    return Wa, Wb, Wc, keep


def _feature_move(Wa: np.ndarray, Wb: np.ndarray, W0: tuple | None) -> np.ndarray:
    """``||(W_a, W_b) - (W_a, W_b)_0||_F / ||(W_a, W_b)_0||_F`` per snapshot (inf when the epoch-0 features are 0)."""
    S = Wa.shape[0]
    A0, B0 = (Wa[0], Wb[0]) if W0 is None else (np.asarray(W0[0], dtype=np.float64), np.asarray(W0[1], dtype=np.float64))
    base = math.sqrt(float(np.sum(A0 * A0) + np.sum(B0 * B0)))
    move = np.sqrt(((Wa - A0) ** 2).sum((1, 2)) + ((Wb - B0) ** 2).sum((1, 2)))
    return move / base if base > 0 else np.full(S, np.inf)


def _weight_measures(out: dict, Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, G: Any, B: FamilyBasis,
                     nt: np.ndarray, dead_threshold: float, keep: np.ndarray, q_all: int) -> None:
    """``out``'s FVE of ``W_a``, ``W_b``, ``W_c`` per family and the IPR and liveness of every node (of ``q_all``)."""
    S = Wa.shape[0]
    # weights: FVE per family and IPR (one matmul per layer for the whole stack)
    E = family_energy(Wa, Wb, Wc, B)
    for name, En in zip(("fve_Wa", "fve_Wb", "fve_Wc"), E):
        tot = En.sum(1)                                            # (S, F) summed over nodes
        den = tot[:, nt].sum(-1, keepdims=True)
        out[name] = np.where(nt, tot / np.where(den > 0, den, 1.0), 0.0)
    ipr, live = node_ipr(Wa, Wb, Wc, G, dead_threshold, energies=E)
    out["ipr"], out["live"] = np.zeros((S, q_all)), np.zeros((S, q_all), dtype=bool)
    out["ipr"][:, keep], out["live"][:, keep] = ipr, live


def _logits(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, sl: slice, sigma: Any) -> tuple[np.ndarray, np.ndarray]:
    """Hidden features (s, P, q) and logits (s, P, M) of the snapshots ``sl`` over all pairs ``p = a M + b``."""
    q, M = Wa.shape[1], Wa.shape[2]
    P = M * M
    H = (Wa[sl][:, :, :, None] + Wb[sl][:, :, None, :]).reshape(len(Wa[sl]), q, P)   # (s, q, P), p = a M + b
    Fh = np.swapaxes(sigma(H), 1, 2)                           # hidden features (s, P, q)
    return Fh, Fh @ np.swapaxes(Wc[sl], 1, 2)                  # logits (s, P, M)


def _logit_fve(L: np.ndarray, cx: np.ndarray, B: FamilyBasis, nt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The fibre mean ``psi`` (s, M) of logits ``L`` and the FVE of the centred logits per family (s, F)."""
    M = L.shape[-1]
    Lc = L - L.mean(-1, keepdims=True)
    psi = _fibre_mean(L, cx)                                   # (s, M)
    fam = B.energies(psi)                                      # ||Q_f^T psi||^2 (s, F)
    tot = np.einsum("spm,spm->s", Lc, Lc)
    return psi, np.where(nt, M * M * fam / np.where(tot > 0, tot, 1.0)[:, None], 0.0)


def _logit_measures(out: dict, Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, G: Any, B: FamilyBasis,
                    nt: np.ndarray, sigma: Any, tables: tuple, loss: str, key: Sequence[int] | None, eta: float,
                    li2: dict | None) -> None:
    """``out``'s key families, logit FVE, restricted and excluded loss and Li^2 statistics, a sub-stack at a time."""
    ab, cx, tr, trc = tables
    S, q, M = Wa.shape
    P = M * M
    # logits, a sub-stack at a time; the key families first (from the last snapshot) unless given
    step = max(1, MAX_ELEMENTS // max(1, P * max(q, M)))
    if key is None:
        fl_last = _logit_fve(_logits(Wa, Wb, Wc, slice(S - 1, S), sigma)[1], cx, B, nt)[1]
        key = [int(f) for f in np.flatnonzero(key_families(fl_last[-1], B))]
    key = [int(f) for f in key]
    out["key"] = key
    names = ("restricted_loss", "excluded_loss", "fve_logits", "FtF_diag", "FtF_offdiag", "FFt_diag", "FFt_offdiag",
             "G_F_norm", "G_F_cos")
    parts: dict = {k: [] for k in names}
    for s0 in range(0, S, step):
        Fh, L = _logits(Wa, Wb, Wc, slice(s0, min(S, s0 + step)), sigma)
        psi, fl = _logit_fve(L, cx, B, nt)
        parts["fve_logits"].append(fl)
        Lk = _at_x(B.project(psi, key), ab, G)                     # phi(a b c^-1), phi = key part of psi
        parts["restricted_loss"].append(_losses(Lk, ab, loss).mean(-1))
        parts["excluded_loss"].append(_losses((L - Lk)[:, tr], ab[tr], loss).mean(-1))
        del L, Lk
        if li2 is None:
            st = li2_statistics(Fh[:, trc], ab[trc], M, eta)
        else:  # recorded by the trainer at these epochs (the same definition, li2_statistics_of)
            st = {k2: np.asarray(li2[k2], dtype=np.float64)[s0:s0 + len(Fh)] for k2 in LI2_STATS}
        for k2, v in st.items():
            parts[k2].append(v)
    for k2 in names:
        out[k2] = np.concatenate(parts[k2])


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


def progress_table(run: dict) -> Records:
    """One record per snapshot of a run read by :func:`cogo.dynamics.runs.analyse_run`.

    Keys: ``epoch``, ``train_loss``, ``test_loss``, ``train_acc``, ``test_acc``,
    ``restricted_loss``, ``excluded_loss``, ``fve_logits_key`` (sum over the key
    families), ``fve_Wa_key``, ``fve_Wb_key``, ``fve_Wc_key``, ``ipr_mean``,
    ``ipr_median``, ``live_nodes``, the Li^2 statistics, ``feature_move``,
    ``stage``, the peers' ``nanda_restricted_loss_mse`` ... ``chughtai_excluded_loss_ce`` (when the run has them;
    :mod:`cogo.dynamics.peers`) and ``fve_logits[<family>]`` per family.

    Returns
    -------
    Records
        One record per snapshot, with the keys above.
    """
    pr = run["progress"]
    names = [f["name"] for f in pr["families"]]
    key = pr["key"]
    recs = Records()
    for i, snap in enumerate(run["snapshots"]):
        r = {k: snap.get(k) for k in ("epoch", "train_loss", "test_loss", "train_acc", "test_acc")}
        r["restricted_loss"] = pr["restricted_loss"][i]
        r["excluded_loss"] = pr["excluded_loss"][i]
        for w in ("logits", "Wa", "Wb", "Wc"):
            r[f"fve_{w}_key"] = float(sum(pr["fve"][w][i][f] for f in key))
        r["ipr_mean"] = pr["ipr"]["mean"][i]
        r["ipr_median"] = pr["ipr"]["quantiles"]["50"][i]
        r["live_nodes"] = pr["ipr"]["live"][i]
        for k in ("FtF_diag", "FtF_offdiag", "FFt_diag", "FFt_offdiag", "G_F_norm", "G_F_cos", "feature_move"):
            r[k] = pr["li2"][k][i]
        r["stage"] = pr["li2"]["stage"][i]
        for who in ("nanda", "chughtai"):            # the peers' own restricted and excluded losses (both losses)
            if pr.get(who):
                for kind in ("restricted_loss", "excluded_loss"):
                    for loss in ("mse", "ce"):
                        r[f"{who}_{kind}_{loss}"] = pr[who][kind][loss][i]
        for f, nm in enumerate(names):
            r[f"fve_logits[{nm}]"] = pr["fve"]["logits"][i][f]
        recs.append(r)
    return recs


# --------------------------------------------------------------------------- a run (cogo dynamics)
_QUANTILES = (10, 25, 50, 75, 90)


def recorded_li2(meta: dict, epochs: Sequence[int]) -> dict | None:
    """The Li^2 statistics a checkpoint recorded at its snapshot epochs (``meta["snapshots"]["li2"]``), checked.

    Returns ``{stat: float64 array (S,), "eta": float}`` when the record holds
    every :data:`LI2_STATS` entry at exactly ``epochs``; None when there is none
    (runs trained before it was recorded); a malformed record raises
    ValueError (one line): a checkpoint is untrusted input.

    Returns
    -------
    dict or None
        ``{stat: float64 array (S,), "eta": float}``, or None when the checkpoint recorded none.

    Raises
    ------
    ValueError
        One line, when the record does not match ``epochs`` or holds values that are not numbers.
    """
    snaps = meta.get("snapshots") if isinstance(meta, dict) else None
    rec = snaps.get("li2") if isinstance(snaps, dict) else None
    if rec is None:
        return None
    S = len(epochs)
    ok = isinstance(rec, dict) and [int(e) for e in rec.get("epoch", [])] == [int(e) for e in epochs] \
        and isinstance(rec.get("eta"), (int, float)) and math.isfinite(rec["eta"]) and rec["eta"] >= 0
    out: dict = {}
    for k in LI2_STATS if ok else ():
        v = rec.get(k)
        if not isinstance(v, (list, tuple)) or len(v) != S or not all(isinstance(x, (int, float)) for x in v):
            ok = False
            break
        out[k] = np.asarray(v, dtype=np.float64)
    if not ok:
        raise ValueError("the checkpoint's recorded Li^2 statistics (meta['snapshots']['li2']) do not match its "
                         f"{S} snapshot epochs; the file is damaged")
    out["eta"] = float(rec["eta"])
    return out


class _ProgressCache:
    """Per-snapshot progress measures on disk (:class:`ProgressReader`): ``.npz`` files, written atomically."""

    def __init__(self, directory: Any, reader: "ProgressReader"):
        import hashlib
        from pathlib import Path

        self.reader = reader
        self.dir = Path(directory) / "progress"
        self.dir.mkdir(parents=True, exist_ok=True)
        h = hashlib.sha256(f"{PROGRESS_CACHE_VERSION}|{reader.G.label}|{reader.loss}|{reader.activation}|"
                           f"{reader.weight_decay!r}|{reader.eta!r}".encode())
        for a in ([] if reader.train_idx is None else [reader.train_idx]) + list(reader.W0):
            h.update(str(np.shape(a)).encode())
            h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
        self.context = h

    def _hash(self, tag: str, W: Sequence[np.ndarray], li2: dict | None) -> str:
        h = self.context.copy()
        h.update(tag.encode())
        for w in W:
            h.update(str(np.shape(w)).encode())
            h.update(np.ascontiguousarray(w, dtype=np.float64).tobytes())
        if li2 is not None:
            h.update(np.asarray([np.asarray(li2[k], dtype=np.float64).ravel() for k in LI2_STATS]).tobytes())
        return h.hexdigest()

    def key(self, last: Sequence[np.ndarray], li2: dict | None) -> list | None:
        got = self.load("key-" + self._hash("key", last, li2))
        return None if got is None else [int(f) for f in got["key"]]

    def save_key(self, last: Sequence[np.ndarray], li2: dict | None, key: list) -> None:
        self.save("key-" + self._hash("key", last, li2), {"key": np.asarray(key, dtype=np.int64)})

    def name(self, Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, li2: dict | None) -> str:
        r = self.reader   # the key families (cogo's, Nanda et al.'s, Chughtai et al.'s) decide the restricted losses
        keys = repr((r.key, r.peer_keys.get("nanda"), r.peer_keys.get("chughtai")))
        return self._hash("snapshot" + keys, (Wa, Wb, Wc), li2)

    def load(self, name: str) -> dict | None:
        path = self.dir / f"{name}.npz"
        try:
            with np.load(path, allow_pickle=False) as z:
                return {k: z[k] for k in z.files}
        except (OSError, ValueError, KeyError):
            return None  # absent or unreadable: recompute

    def save(self, name: str, arrays: dict) -> None:
        import io

        from cogo.io.outputs import atomic_write

        buf = io.BytesIO()
        np.savez(buf, **arrays)
        with atomic_write(self.dir / f"{name}.npz", "wb") as fh:
            fh.write(buf.getvalue())


#: Bump when the progress measures change meaning: cached values of an older version are not reused.
PROGRESS_CACHE_VERSION = "2"   # 2: the peers' measures (cogo.dynamics.peers) are cached too
#: The per-snapshot entries of :func:`progress_measures` (arrays with the snapshot as first axis).
_PER_SNAPSHOT = ("restricted_loss", "excluded_loss", "fve_logits", "fve_Wa", "fve_Wb", "fve_Wc", "key_at", "ipr",
                 "live", *LI2_STATS, "feature_move")


class ProgressReader:
    """Accumulates :func:`progress_measures` over the chunks of a run's snapshots (:mod:`cogo.dynamics.runs`).

    The key families are fixed first, from the last snapshot; the feature
    movement is measured from the first snapshot (epoch 0 when the run kept it).
    ``result(run)`` gives the JSON-ready ``run["progress"]``.  With
    ``cache_dir`` every snapshot's measures are kept there (one ``.npz`` per
    snapshot, named by a SHA-256 of the weights and of everything the
    measures depend on: group, loss, activation, ridge constant, training
    pairs, the first snapshot, the key families and the recorded Li^2
    statistics), so reading a run again computes nothing it has read before;
    ``hits`` counts the snapshots read from it.  ``extra``: more measures read
    alongside (:data:`cogo.dynamics.peers_report.PEERS`, the peers' measures):
    ``keys(last, G, activation)`` once, ``measures(...)`` per chunk (arrays named
    ``extra.names``, cached with the rest), ``result(...)`` merged into the result.
    """

    def __init__(self, snaps: Any, group: Any, cache_dir: Any = None, extra: Any = None):
        from cogo.algebra.spec import parse_group

        self.G = parse_group(group)
        self.basis = family_basis(self.G)
        meta = snaps.meta if isinstance(snaps.meta, dict) else {}
        tr = meta.get("train_idx")
        self.train_idx = None if tr is None else as_array(tr, dtype=np.int64).reshape(-1)
        self.loss = meta.get("loss") if meta.get("loss") in ("mse", "ce") else "mse"
        self.weight_decay = meta.get("weight_decay") if isinstance(meta.get("weight_decay"), (int, float)) else 0.0
        act = meta.get("activation", "sqr")
        self.activation = act if act in ACTIVATIONS else "sqr"
        self.epochs = [int(e) for e in snaps.epochs]
        self.recorded = recorded_li2(meta, self.epochs)
        self.eta = self.recorded["eta"] if self.recorded is not None else None
        self.W0 = snaps.load(0)
        self.cache = None if cache_dir is None else _ProgressCache(cache_dir, self)
        last = snaps.load(len(snaps) - 1)
        tail = None if self.recorded is None else {k: self.recorded[k][-1:] for k in LI2_STATS}
        self.key = self.cache.key(last, tail) if self.cache is not None else None
        if self.key is None:
            self.key = progress_measures(*last, self.G, train_idx=self.train_idx, loss=self.loss, eta=self.eta,
                                         weight_decay=self.weight_decay, W0=self.W0, activation=self.activation,
                                         li2=tail)["key"]
            if self.cache is not None:
                self.cache.save_key(last, tail, self.key)
        self.extra = extra
        self.peer_keys = extra.keys(last, self.G, self.activation) if extra is not None else {}
        self._names = _PER_SNAPSHOT + (tuple(extra.names) if extra is not None else ())
        self.parts: list = []
        self._pos = 0
        self.hits = 0

    def add(self, Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray) -> None:
        S = len(Wa)
        li2 = None if self.recorded is None else {k: self.recorded[k][self._pos:self._pos + S] for k in LI2_STATS}
        self._pos += S
        names = [self.cache.name(Wa[i], Wb[i], Wc[i], None if li2 is None else {k: v[i] for k, v in li2.items()})
                 for i in range(S)] if self.cache is not None else None
        got = [self.cache.load(nm) for nm in names] if names is not None else None
        if got is not None and all(g is not None for g in got):
            self.hits += S
            part = {k: np.stack([g[k] for g in got]) for k in self._names}
            part.update(stage=[str(g["stage"]) for g in got], eta=float(got[0]["eta"]), key=list(self.key))
        else:
            part = progress_measures(Wa, Wb, Wc, self.G, train_idx=self.train_idx, loss=self.loss, key=self.key,
                                     eta=self.eta, weight_decay=self.weight_decay, W0=self.W0,
                                     activation=self.activation, li2=li2)
            if self.extra is not None:
                part.update(self.extra.measures(Wa, Wb, Wc, self.G, self.peer_keys, self.train_idx, self.activation))
            for i, nm in enumerate(names or []):
                self.cache.save(nm, {**{k: np.asarray(part[k][i]) for k in self._names},
                                     "stage": np.asarray(part["stage"][i]), "eta": np.asarray(part["eta"])})
        self.parts.append(part)

    def result(self, run: dict | None = None) -> dict:
        B = self.basis
        cat = lambda k: np.concatenate([np.asarray(p[k]) for p in self.parts])
        ipr, live = cat("ipr"), cat("live")
        vals = [row[m] for row, m in zip(ipr, live)]
        qs = {str(p): [float(np.percentile(v, p)) if len(v) else None for v in vals] for p in _QUANTILES}
        hist = [np.histogram(v, bins=IPR_BINS)[0].tolist() for v in vals]
        key_at = cat("key_at")
        out = {
            "families": [{"name": nm, "irreps": fam, "dim": d, "kind": kd, "share": float(sh)}
                         for nm, fam, d, kd, sh in zip(B.names, B.families, B.irrep_dims, B.kinds, B.share)],
            "key": list(self.key), "key_names": [B.names[f] for f in self.key],
            "key_rule": f"fve_logits >= {KEY_FRACTION} x share at the last snapshot",
            "key_epoch": key_epochs(key_at, self.epochs),
            "loss": self.loss, "activation": self.activation,
            "restricted_loss": cat("restricted_loss").tolist(), "excluded_loss": cat("excluded_loss").tolist(),
            "fve": {w: cat(f"fve_{w}").tolist() for w in ("logits", "Wa", "Wb", "Wc")},
            "key_at": key_at.tolist(),
            "ipr": {"mean": [float(v.mean()) if len(v) else None for v in vals], "quantiles": qs,
                    "hist": hist, "bins": IPR_BINS.tolist(), "live": [int(m.sum()) for m in live]},
            "li2": {"eta": float(self.parts[0]["eta"]) if self.parts else None,
                    **{k: cat(k).tolist() for k in ("FtF_diag", "FtF_offdiag", "FFt_diag", "FFt_offdiag",
                                                     "G_F_norm", "G_F_cos", "feature_move")},
                    "stage": [s for p in self.parts for s in p["stage"]],
                    "source": "recorded by the trainer at the snapshot epochs" if self.recorded is not None
                    else "computed from the snapshots",
                    "rule": f"lazy: feature_move < {LAZY_MOVE}; else independent: G_F_cos >= {INDEPENDENT_COS}; "
                            f"else interactive"},
        }
        if self.extra is not None:
            out.update(self.extra.result({k: cat(k) for k in self.extra.names}, self.peer_keys, B, self.loss))
        if run is not None:
            test = [r.get("test_loss") for r in run["snapshots"]]
            out["fall_epoch"] = {"restricted_loss": fall_epoch(self.epochs, out["restricted_loss"]),
                                 "test_loss": fall_epoch(self.epochs, test),
                                 "train_loss": fall_epoch(self.epochs, [r.get("train_loss") for r in run["snapshots"]])}
        return out


def aggregate_progress(runs: Sequence[dict]) -> dict:
    """Over runs: when the restricted and the test loss fall (:func:`fall_epoch`), median and range, and in how
    many runs the restricted loss falls first; per key family, when it becomes key.

    >>> run = {"progress": {"fall_epoch": {"restricted_loss": 20, "test_loss": 50, "train_loss": 10},
    ...                     "families": [{"name": "rho0"}, {"name": "rho1+rho4"}], "key_epoch": [None, 30]}}
    >>> agg = aggregate_progress([run, run])
    >>> agg["restricted_before_test"], agg["fall_epoch"]["test_loss"]["median"], agg["key_epoch"]["rho1+rho4"]["n"]
    (2, 50.0, 2)
    """
    runs = [r for r in runs if r.get("progress")]

    def stats(vals):
        v = np.asarray([x for x in vals if x is not None], dtype=float)
        return {"median": float(np.median(v)) if len(v) else None, "min": float(v.min()) if len(v) else None,
                "max": float(v.max()) if len(v) else None, "n": int(len(v))}

    fe = {k: stats([r["progress"].get("fall_epoch", {}).get(k) for r in runs])
          for k in ("restricted_loss", "test_loss", "train_loss")}
    before = sum(1 for r in runs if None not in (r["progress"].get("fall_epoch", {}).get("restricted_loss"),
                                                r["progress"].get("fall_epoch", {}).get("test_loss"))
                 and r["progress"]["fall_epoch"]["restricted_loss"] < r["progress"]["fall_epoch"]["test_loss"])
    names: list = []
    for r in runs:
        for f in r["progress"]["families"]:
            if f["name"] not in names:
                names.append(f["name"])
    ke = {}
    for nm in names:
        vals = []
        for r in runs:
            fams = [f["name"] for f in r["progress"]["families"]]
            if nm in fams:
                vals.append(r["progress"]["key_epoch"][fams.index(nm)])
        ke[nm] = stats(vals)
    return {"runs": len(runs), "fall_epoch": fe, "restricted_before_test": before, "key_epoch": ke}


# --------------------------------------------------------------------------- figures
def group_title(label: Any) -> str:
    """``Z_23`` for a cyclic group given by its order, ``Z_3 x Z_5`` for a product, the label otherwise.

    Returns
    -------
    str
        The group's name as figures and summaries print it.

    Examples
    --------
    >>> group_title("23"), group_title("S3"), group_title("3x5")
    ('Z_23', 'S3', 'Z_3 x Z_5')
    """
    s = str(label)
    if s.isdigit():
        return f"Z_{s}"
    parts = s.split("x")
    if len(parts) > 1 and all(p.isdigit() for p in parts):
        return " x ".join(f"Z_{p}" for p in parts)
    return s


def _series(run: dict) -> dict:
    """The scalar series of one run, each a float array over its snapshots (NaN where missing)."""
    pr = run["progress"]
    key = pr["key"]
    f = lambda xs: np.asarray([np.nan if x is None else x for x in xs], dtype=float)
    snaps = run["snapshots"]
    out = {"epoch": f([s["epoch"] for s in snaps]), "train_loss": f([s.get("train_loss") for s in snaps]),
           "test_loss": f([s.get("test_loss") for s in snaps]), "test_acc": f([s.get("test_acc") for s in snaps]),
           "restricted_loss": f(pr["restricted_loss"]), "excluded_loss": f(pr["excluded_loss"]),
           "ipr_mean": f(pr["ipr"]["mean"]), "ipr_q25": f(pr["ipr"]["quantiles"]["25"]),
           "ipr_q75": f(pr["ipr"]["quantiles"]["75"])}
    for w in ("logits", "Wa", "Wb", "Wc"):
        A = np.asarray(pr["fve"][w], dtype=float)
        out[f"fve_{w}_key"] = A[:, key].sum(1) if key else np.zeros(len(A))
        out[f"fve_{w}_max"] = A.max(1)
        ck = (pr.get("chughtai") or {}).get("fve_key", {}).get(w)
        # outside Chughtai et al.'s key irreps (the constant included): not 1 - 1 = 0 when every family is key
        out[f"fve_{w}_out"] = 1.0 - (f(ck) if ck is not None else out[f"fve_{w}_key"])
    for k in ("FtF_diag", "FtF_offdiag", "FFt_diag", "FFt_offdiag", "G_F_norm", "G_F_cos", "feature_move"):
        out[k] = f(pr["li2"][k])
    out["stage"] = np.asarray([STAGES.index(s) for s in pr["li2"]["stage"]], dtype=float)
    return out


def _grok(run: dict, level: float = 0.99) -> int | None:
    h = run.get("history") or {}
    for e, a in zip(h.get("epoch", []), h.get("test_acc", [])):
        if a is not None and a >= level:
            return int(e)
    return None


#: (title, [(series, label, style)], y log scale) of each panel of the progress figures.
_PANELS = [
    ("loss (SPEC 1): train, test, restricted, excluded",
     [("train_loss", "train", "-"), ("test_loss", "test", "--"), ("restricted_loss", "cogo restricted (key, functions of abc^-1)", "-"),
      ("excluded_loss", "cogo excluded (key removed), train pairs", ":")], True),
    ("FVE of the centred logits by the key irreps", [("fve_logits_key", "logits", "-")], False),
    ("FVE of W_a, W_b, W_c: share of ||W||^2 outside the key irreps (1 - Chughtai et al.'s FVE)",
     [("fve_Wa_out", "W_a", "-"), ("fve_Wb_out", "W_b", "--"), ("fve_Wc_out", "W_c", ":")], True),
    ("IPR of the live nodes' irrep spectra", [("ipr_mean", "mean", "-"), ("ipr_q25", "25%", ":"),
                                              ("ipr_q75", "75%", ":")], False),
    ("Li^2 kernel: mean diagonal / off-diagonal",
     [("FtF_diag", "F~^T F~ diag", "-"), ("FtF_offdiag", "F~^T F~ off-diag", "--"), ("FFt_diag", "F F^T diag", "-."),
      ("FFt_offdiag", "F F^T off-diag", ":")], "symlog"),
    ("Li^2: ||G_F||_F", [("G_F_norm", "||G_F||", "-")], True),
    ("Li^2: cos(G_F, Y~Y~^T F~) and feature movement",
     [("G_F_cos", "cos(G_F, Y~Y~^T F~)", "-"), ("feature_move", "|W_ab - W_ab(0)| / |W_ab(0)|", "--")], False),
    ("stage: 0 lazy, 1 independent, 2 interactive", [("stage", "stage", "-")], False),
]


#: The y-axis label of each progress panel, by the start of its title.
_YLABELS = {"loss": "loss (the run's)", "FVE of the centred logits by the key irreps": "fraction of variance",
            "FVE of W_a, W_b, W_c": "share of ||W||^2 outside the key irreps", "IPR of the live nodes' irrep spectra": "IPR (cogo: 1 = one family)",
            "Li^2 kernel": "mean entry", "Li^2": "value", "stage": "stage",
            "FVE of the centred logits per irrep family": "fraction of variance"}


def _panel_axes(fig, n: int):
    cols = 2
    rows = (n + cols - 1) // cols
    axes = fig.subplots(rows, cols).ravel()   # not shared: every panel keeps its epoch labels
    for ax in axes[n:]:
        ax.set_visible(False)
    return axes[:n]


def _decorate(ax, title: str, logy: bool, grok: float | None, grok_label: str) -> None:
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlabel("epoch (log scale; 0 linear)")
    if logy == "symlog":
        ax.set_yscale("symlog", linthresh=1e-3)
    elif logy:
        ax.set_yscale("log")
    if grok is not None:
        ax.axvline(grok, color="C2", lw=1.0, ls="--", label=grok_label)
    ax.set_title(title, fontsize=9)
    ax.set_ylabel(_YLABELS.get(title.split(":")[0].split(" (")[0], "value"), fontsize=8)
    ax.set_xlim(left=0)
    ax.legend(fontsize=6, loc="best")


def figure_progress(run: dict):
    """The progress measures of one run against log epoch, one panel per measure (a matplotlib Figure).

    The epoch where test accuracy first reaches 0.99 is marked in every panel.
    """
    from matplotlib.figure import Figure

    s = _series(run)
    grok = _grok(run)
    fig = Figure(figsize=(12, 16), layout="constrained")
    kn = run["progress"]["key_names"]
    keys = ", ".join(kn) if len(kn) <= 4 else f"{len(kn)} of {len(run['progress']['families']) - 1} families"
    fig.suptitle(f"{group_title(run['group'])}, q={run['hidden']}, seed {run.get('seed')}: progress measures "
                 f"(cogo's key families: {keys or 'none'})", fontsize=10)
    axes = _panel_axes(fig, len(_PANELS) + 1)
    for ax, (title, lines, logy) in zip(axes, _PANELS):
        for i, (k, lab, ls) in enumerate(lines):
            y = s[k]
            ok = np.isfinite(y) & ((y > 0) if logy is True else True)
            ax.plot(s["epoch"][ok], y[ok], ls=ls, color=f"C{i}" if k != "stage" else "k", lw=1.2, label=lab,
                    drawstyle="steps-post" if k == "stage" else "default")
        _decorate(ax, title, logy, grok, "test acc >= 0.99")
    ax = axes[-1]
    pr = run["progress"]
    A = np.asarray(pr["fve"]["logits"], dtype=float)
    for f, fam in enumerate(pr["families"]):
        if f in pr["key"] or A[:, f].max() > 0.05:
            ax.plot(s["epoch"], A[:, f], lw=1.0, label=fam["name"] if len(pr["families"]) <= 13 else None)
    _decorate(ax, "FVE of the centred logits per irrep family (key and > 0.05)", False, grok, "test acc >= 0.99")
    return fig


def figure_progress_seeds(runs: Sequence[dict]):
    """The same panels over many runs (seeds): median and range (lowest to highest run) per snapshot.

    Runs are put on the epochs of the first run (linear interpolation in log epoch where they differ);
    the median epoch where test accuracy reaches 0.99 is marked.
    """
    from matplotlib.figure import Figure

    runs = [r for r in runs if r.get("progress")]
    S = [_series(r) for r in runs]
    ep = S[0]["epoch"]
    x = np.log1p(ep)
    groks = [g for g in (_grok(r) for r in runs) if g is not None]
    grok = float(np.median(groks)) if groks else None
    fig = Figure(figsize=(12, 13), layout="constrained")
    fig.suptitle(f"{group_title(runs[0]['group'])}, q={runs[0]['hidden']}: progress measures over {len(runs)} run(s), "
                 f"median and range", fontsize=10)
    for ax, (title, lines, logy) in zip(_panel_axes(fig, len(_PANELS)), _PANELS):
        for i, (k, lab, ls) in enumerate(lines):
            Y = []
            for s in S:
                y = s[k]
                ok = np.isfinite(y)
                Y.append(np.interp(x, np.log1p(s["epoch"][ok]), y[ok]) if ok.sum() >= 2 else np.full(len(x), np.nan))
            Y = np.asarray(Y)
            with np.errstate(all="ignore"):
                med, lo, hi = np.nanmedian(Y, 0), np.nanmin(Y, 0), np.nanmax(Y, 0)
            ok = np.isfinite(med) & ((med > 0) if logy is True else True)
            col = f"C{i}" if k != "stage" else "k"
            ax.plot(ep[ok], med[ok], ls=ls, color=col, lw=1.2, label=f"{lab} (median)")
            if len(runs) > 1:
                ax.fill_between(ep[ok], lo[ok], hi[ok], color=col, alpha=0.15, lw=0)
        _decorate(ax, title, logy, grok, "test acc >= 0.99 (median)")
    return fig
