"""The peers' progress measures, each by its authors' definition and under their name (SPEC 1, 2, 9).

For a stack of ``S`` snapshots of ``o(a, b) = W_c sigma(W_a[:, a] + W_b[:, b])``
on a group ``G`` of order ``M`` (logits ``L(a, b, c)`` over all ``M^2`` pairs),
computed with the run's own loss (SPEC 1: MSE on centred outputs) and with the
cross-entropy, both reported:

* **Nanda et al. 2023** (``Z_p``, the group given as ``Z_p``): the 1-D Fourier
  basis ``1, cos w_k x, sin w_k x`` (``w_k = 2 pi k / p``, each row of unit norm).
  *Key frequencies*: per neuron, the activations over all pairs, centred over
  the pairs, in the 2-D Fourier basis; the fraction of their squared norm in
  the ``3 x 3`` block ``{1, cos w_k, sin w_k}^2`` of frequency ``k``; the
  neuron's frequency is the ``k`` of the largest fraction, and the key
  frequencies are the frequencies of the live neurons (their
  ``np.unique(neuron_freqs)``).  ``k`` runs over ``1 .. (p-1)/2`` as the paper
  states; the authors' code loops over ``range(1, p // 2)`` and so never
  considers ``(p-1)/2``: cogo follows the paper.  A neuron counts when it is
  live (cogo's rule, :func:`cogo.dynamics.families.node_ipr`: a node whose
  weights decayed to nothing has no frequency; the authors' transformer has no
  such neurons).  *Restricted loss*: each output's logits, as a vector over the
  ``p^2`` pairs, projected on the unit directions ``cos w_k(a+b)``,
  ``sin w_k(a+b)`` of the key frequencies, each output's mean over the pairs
  added back (their ``bias_correction``), the loss over all pairs.  *Excluded
  loss*: the logits minus those projections (no mean added), over the
  training pairs.  Not defined for other groups (None).
* **Chughtai, Chan, Nanda 2023** (any group): per irrep family ``f`` (a real
  irrep, or a complex irrep with its conjugate as real weights see it; its
  character ``chi_f``, real), the *logit similarity* ``cos(L - mean_c L,
  chi_f(a b c^-1))`` over all ``(a, b, c)``; *logit FVE* ``sum_f sim_f^2`` over
  the non-trivial families; *key irreps*: ``sim_f > 0.05`` at the last
  snapshot; *restricted loss* (their paper's ``total_hidden_restricted_loss``):
  the hidden activations over all pairs projected on the functions
  ``g(ab)``, ``g`` in the key families' matrix coefficients, through ``W_c``,
  loss over all pairs (no mean added back); *excluded loss*: the rest, over the
  training pairs; *FVE of W_a, W_b, W_c* per family ``||Q_f^T w||^2`` summed
  over nodes over the layer's whole squared norm (the constant included);
  *FVE of the hidden activations* (their ``percent_hidden``,
  :func:`chughtai_hidden_fve`): the activations over all pairs, centred per
  neuron, their share of squared norm in the functions ``g(ab)`` of family
  ``f`` (their "MLP rho(ab) FVE") and in ``g(ab)``, ``g(a)``, ``g(b)`` together
  (their "MLP FVE"), as their code computes them at the paper's submission
  (earlier versions did not centre and had ``g(ab)`` alone).  Their QR of the
  matrix coefficients of a rank-deficient real form (``Z_p``'s 2-D rotations:
  4 columns spanning 2 dimensions) keeps columns outside the span; cogo takes
  the span itself, as their own ``compute_orth_rep`` does for ``C_n``.
  For ``Z_p`` the restricted projection is Nanda et al.'s without the mean.
* **Gromov 2023 / Doshi et al. 2024**: the inverse participation ratio of
  each node's weight vector (row of ``W_a``, ``W_b``, column of ``W_c``) over
  its full discrete Fourier transform ``F_k``, ``k = 0 .. M-1``:
  ``sum_k |F_k|^4 / (sum_k |F_k|^2)^2``; a node in one frequency pair
  ``{k, -k}`` scores 1/2, spread evenly 1/M; the mean over the live nodes, per
  layer (``Z_M`` only).  cogo's own IPR (:func:`cogo.dynamics.families.node_ipr`)
  reads irrep families and the layers together: 1 for one pair, twice this.

References
----------
.. [1] N. Nanda, L. Chan, T. Lieberum, J. Smith, J. Steinhardt, "Progress measures for grokking via mechanistic interpretability", ICLR 2023.
.. [2] B. Chughtai, L. Chan, N. Nanda, "A toy model of universality: reverse engineering how networks learn group operations", ICML 2023.
.. [3] A. Gromov, "Grokking modular arithmetic", arXiv:2301.02679, 2023.
.. [4] D. Doshi, T. He, A. Das, A. Gromov, "To grok or not to grok: disentangling generalization and memorization on corrupted algorithmic datasets", ICLR 2024.

The authors' code read for the definitions: mechanistic-interpretability-grokking/progress-measures-paper
(Nanda et al.) and bilal-chughtai/rep-theory-mech-interp (Chughtai et al.).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from cogo.algebra.activations import ACTIVATIONS, THEORY
from cogo.algebra.representations import character_table
from cogo.algebra.group_parsing import as_finite_group, pair_tables, as_group
from cogo.dynamics.families import family_basis, family_energy, node_ipr
from cogo.dynamics.logits import features_and_logits, fibre_mean, pair_losses, substack_step
from cogo.dynamics.measures import Measure, Part, compute_measures
from cogo.io.arrays import as_stack

__all__ = ["CHUGHTAI_KEY_SIMILARITY", "is_cyclic", "nanda_basis", "nanda_neuron_frequencies", "nanda_directions",
           "family_characters", "chughtai_hidden_fve", "doshi_ipr", "peer_keys", "peer_measures", "PEER_MEASURES",
           "PEER_ARRAYS"]

#: Chughtai et al.'s key irreps: logit similarity above this at the end of training.
CHUGHTAI_KEY_SIMILARITY = 0.05


def is_cyclic(G: Any) -> bool:
    """Whether ``G`` is ``Z_p`` with elements ``0 .. p-1`` and ``a b = a + b mod p`` (Nanda et al.'s task).

    False for any other group, a product such as ``3x5`` included.
    """
    p = G.order
    T = np.asarray(as_finite_group(G).table)
    return bool(np.array_equal(T, (np.arange(p)[:, None] + np.arange(p)[None, :]) % p))


def nanda_basis(p: int) -> tuple[np.ndarray, list]:
    """Nanda et al.'s 1-D Fourier basis of ``R^p``: rows ``1, cos w_1 x, sin w_1 x, ...``, each of unit norm.

    Returns
    -------
    basis : numpy.ndarray
        (p, p), orthonormal rows; row ``2k-1`` is ``cos w_k x``, row ``2k`` is ``sin w_k x`` (``p`` even: the last
        row is ``cos pi x``).
    freq : list of int
        The frequency of each row (0 for the constant).

    Examples
    --------
    >>> B, freq = nanda_basis(5)
    >>> bool(np.allclose(B @ B.T, np.eye(5))), freq
    (True, [0, 1, 1, 2, 2])
    """
    x = np.arange(p)
    rows, freq = [np.ones(p)], [0]
    for k in range(1, p // 2 + 1):
        w = 2 * np.pi * k * x / p
        rows.append(np.cos(w))
        freq.append(k)
        if 2 * k != p:
            rows.append(np.sin(w))
            freq.append(k)
    B = np.asarray(rows)
    return B / np.linalg.norm(B, axis=1, keepdims=True), freq


def nanda_neuron_frequencies(H: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Each neuron's frequency and the fraction it explains (module docstring), for activations H (S, p^2, q).

    Returns
    -------
    freq : numpy.ndarray
        (S, q) int: the ``k`` in ``1 .. p // 2`` whose ``{1, cos w_k, sin w_k}^2`` block holds the largest share of
        the centred activations' 2-D Fourier energy (0 for a neuron with no activation).
    frac : numpy.ndarray
        (S, q): that share.
    """
    B, fr = nanda_basis(p)
    S, _, q = H.shape
    Hc = (H - H.mean(1, keepdims=True)).reshape(S, p, p, q)
    F2 = np.einsum("ia,sabn->sibn", B, Hc)
    F2 = np.einsum("jb,sibn->sijn", B, F2) ** 2                  # (S, p, p, q) squared 2-D coefficients
    tot = F2.sum((1, 2))
    fr = np.asarray(fr)
    ks = np.arange(1, p // 2 + 1)
    share = np.empty((S, len(ks), q))
    for i, k in enumerate(ks):
        idx = np.flatnonzero((fr == 0) | (fr == k))
        share[:, i] = F2[:, idx][:, :, idx].sum((1, 2))
    share /= np.where(tot > 0, tot, 1.0)[:, None, :]
    best = share.argmax(1)
    frac = np.take_along_axis(share, best[:, None, :], 1)[:, 0]
    return np.where(tot > 0, ks[best], 0), frac


def nanda_directions(p: int, ks: Sequence[int]) -> np.ndarray:
    """The unit directions ``cos w_k(a+b)``, ``sin w_k(a+b)`` in ``R^{p^2}`` (pair ``a p + b``) of frequencies ``ks``.

    Returns
    -------
    numpy.ndarray
        (p^2, D), orthonormal columns (``sin pi (a+b) = 0`` for ``k = p/2`` is left out).
    """
    s = (np.arange(p)[:, None] + np.arange(p)[None, :]).reshape(-1)
    cols = []
    for k in ks:
        w = 2 * np.pi * int(k) * s / p
        cols.append(np.cos(w))
        if 2 * int(k) % p:
            cols.append(np.sin(w))
    D = np.asarray(cols).T.reshape(p * p, -1) if cols else np.zeros((p * p, 0))
    return D / np.maximum(np.linalg.norm(D, axis=0, keepdims=True), 1e-300)


def family_characters(G: Any) -> np.ndarray:
    """The real character of each irrep family of :func:`cogo.dynamics.families.family_basis`.

    Returns
    -------
    numpy.ndarray
        ``chi_f(x)`` (F, M): the sum of the family's members' characters (a complex irrep with its conjugate:
        ``2 Re chi``; for ``Z_p``: ``2 cos w_k x``).
    """
    B = family_basis(G)
    chi = character_table(G).characters
    return np.asarray([np.real(chi[fam].sum(0)) for fam in B.families])


def doshi_ipr(W: np.ndarray) -> np.ndarray:
    """Gromov / Doshi et al.'s IPR of each row (..., M) of ``W`` over its full DFT: ``sum |F_k|^4 / (sum |F_k|^2)^2``.

    Returns
    -------
    numpy.ndarray
        The shape of ``W`` without its last axis; NaN for a zero row.

    Examples
    --------
    >>> x = np.arange(7)
    >>> doshi_ipr(np.cos(2 * np.pi * 2 * x / 7)).round(12), doshi_ipr(np.eye(7)[0]).round(12)   # one pair; a spike
    (np.float64(0.5), np.float64(0.142857142857))
    """
    P = np.abs(np.fft.fft(W, axis=-1)) ** 2
    tot = P.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, (P * P).sum(-1) / np.where(tot > 0, tot, 1.0) ** 2, np.nan)


# --------------------------------------------------------------------------- keys (from the last snapshot)
def peer_keys(Wa: Any, Wb: Any, Wc: Any, group: Any, activation: str = THEORY, dead_threshold: float = 0.01) -> dict:
    """Nanda et al.'s key frequencies and Chughtai et al.'s key irreps of one network (the run's last snapshot).

    Returns
    -------
    dict
        ``nanda`` (sorted key frequencies, None unless ``G`` is ``Z_p``), ``nanda_neurons`` (live neurons per
        frequency), ``chughtai`` (key family indices), ``chughtai_similarity`` (per family) and ``node_energy``
        (the live nodes grouped by their main family, and ``||Q_f^T w||^2`` of their ``W_a``, ``W_b``, ``W_c``
        weights per family: the neuron x frequency maps).
    """
    G = as_group(group)
    Wa, Wb, Wc = as_stack(Wa)[-1:], as_stack(Wb)[-1:], as_stack(Wc)[-1:]
    Fh, L = features_and_logits(Wa, Wb, Wc, slice(0, 1), ACTIVATIONS[activation].numpy_)
    sim = _chughtai_similarity(L, G)[0]
    out = {"chughtai": [int(f) for f in np.flatnonzero(sim > CHUGHTAI_KEY_SIMILARITY)],
           "chughtai_similarity": sim.tolist(), "nanda": None, "nanda_neurons": None}
    live = node_ipr(Wa, Wb, Wc, G, dead_threshold)[1][0]
    E = [e[0][live] for e in family_energy(Wa, Wb, Wc, family_basis(G))]      # (live, F) per layer
    dom = (E[0] + E[1] + E[2]).argmax(1) if len(E[0]) else np.zeros(0, dtype=int)
    order = np.argsort(dom, kind="stable")                             # nodes grouped by their main family
    out["node_energy"] = {"nodes": np.flatnonzero(live)[order].tolist(),
                          **{w: e[order].tolist() for w, e in zip(("Wa", "Wb", "Wc"), E)}}
    if is_cyclic(G):
        freq, _ = nanda_neuron_frequencies(Fh, G.order)
        ks, counts = np.unique(freq[0][live & (freq[0] > 0)], return_counts=True)
        out["nanda"] = [int(k) for k in ks]
        out["nanda_neurons"] = {str(int(k)): int(c) for k, c in zip(ks, counts)}
    return out


# --------------------------------------------------------------------------- per snapshot
def _fibre_by_product(L: np.ndarray, ab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``m[x, c] = mean over the M pairs with a b = x of L[p, c]`` (S, M, n) for L (S, P, n), and the pair order used."""
    S, P, n = L.shape
    M = int(round(np.sqrt(P)))
    order = np.argsort(ab, kind="stable")
    return L[:, order].reshape(S, M, P // M, n).mean(2), order


def chughtai_hidden_fve(H: np.ndarray, group: Any) -> dict:
    """Chughtai et al.'s FVE of the hidden activations per irrep family (their ``percent_hidden``), H (S, P, q).

    The activations ``h_n(a, b)`` over the ``P = M^2`` pairs ``a M + b``, centred per neuron over the pairs
    (``H_c``); ``V_f^{ab}``, ``V_f^a``, ``V_f^b``: the functions ``g(ab)``, ``g(a)``, ``g(b)`` of the pairs, ``g`` in
    the span of family ``f``'s matrix coefficients (the span of their ``hidden_reps_xy``, ``hidden_reps_x``,
    ``hidden_reps_y``, which they orthonormalize by QR).  The part of ``V`` is ``||P_V H_c||_F^2 / ||H_c||_F^2``;
    on the pairs ``||P_{V_f^{ab}} h||^2 = M ||Q_f^T m||^2``, ``m(x)`` the mean of ``h`` over the pairs with
    ``ab = x`` (and with ``a = x``, ``b = x`` for ``V_f^a``, ``V_f^b``).

    Returns
    -------
    dict of str to numpy.ndarray
        ``ab``, ``a``, ``b``: each (S, F), the parts of ``V_f^{ab}``, ``V_f^a``, ``V_f^b`` (0 for a network with no
        varying activation).  Their "MLP rho(ab) FVE" is ``ab``, their "MLP FVE" ``ab + a + b``.

    Examples
    --------
    >>> x = 2 * np.pi * np.arange(5) / 5
    >>> h = np.cos(x[:, None] + x[None, :]).reshape(1, 25, 1)          # one neuron: cos w_1 (a + b)
    >>> np.round(chughtai_hidden_fve(h, 5)["ab"], 12).tolist()           # Z_5: families {0}, {1, 4}, {2, 3}
    [[0.0, 1.0, 0.0]]
    """
    G = as_group(group)
    B, M = family_basis(G), G.order
    S, P, q = H.shape
    Hc = H - H.mean(1, keepdims=True)
    tot = np.einsum("spn,spn->s", Hc, Hc)[:, None]
    Hg = Hc.reshape(S, M, M, q)
    means = {"ab": _fibre_by_product(Hc, pair_tables(G)[2])[0], "a": Hg.mean(2), "b": Hg.mean(1)}   # (S, M, q)
    return {k: M * B.energies(np.swapaxes(m, 1, 2)).sum(1) / np.where(tot > 0, tot, 1.0) for k, m in means.items()}


def _chughtai_similarity(L: np.ndarray, G: Any) -> np.ndarray:
    """``cos(L - mean_c L, chi_f(a b c^-1))`` (S, F): ``<Lc, T_f> = M^2 <chi_f, psi>``, ``|T_f|^2 = M^2 |chi_f|^2``."""
    M = G.order
    chi = family_characters(G)
    _, _, _, cx = pair_tables(G)
    Lc = L - L.mean(-1, keepdims=True)
    psi = fibre_mean(Lc, cx)                                          # (S, M): mean of Lc over a b c^-1 = x
    num = M * M * psi @ chi.T                                          # (S, F)
    nl = np.sqrt(np.einsum("spm,spm->s", Lc, Lc))[:, None]
    nt = M * np.linalg.norm(chi, axis=1)[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(nl > 0, num / np.where(nl > 0, nl, 1.0) / nt, 0.0)


def _both_losses(L: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return pair_losses(L, c, "mse").mean(-1), pair_losses(L, c, "ce").mean(-1)


def _nanda(p: Part) -> dict:
    """Nanda et al.'s restricted and excluded loss (MSE, CE) of the part's logits; NaN unless the group is ``Z_p``."""
    s = p.stack
    names = ("nanda_restricted_mse", "nanda_restricted_ce", "nanda_excluded_mse", "nanda_excluded_ce")
    if s.nanda_key is None:
        return {"nanda": {k: np.full(p.n, np.nan) for k in names}}
    L, ab, tr = p["logits"], s.ab, s.tr
    D = nanda_directions(s.G.order, s.nanda_key)
    proj = np.einsum("pd,sdm->spm", D, np.einsum("pd,spm->sdm", D, L))   # each output's logits on the directions
    R = proj + L.mean(1, keepdims=True)                                  # each output's mean added back
    rm, rc = _both_losses(R, ab)
    em, ec = _both_losses((L - proj)[:, tr], ab[tr])
    return {"nanda": dict(zip(names, (rm, rc, em, ec)))}


def _chughtai(p: Part) -> dict:
    """Chughtai et al.'s logit similarity per family and restricted and excluded loss (MSE, CE) of the part."""
    s = p.stack
    L, ab, tr = p["logits"], s.ab, s.tr
    out = {"chughtai_similarity": _chughtai_similarity(L, s.G)}
    m, _ = _fibre_by_product(L, ab)                                    # (S, M_x, M_c)
    proj = np.swapaxes(s.B.project(np.swapaxes(m, 1, 2), list(s.chughtai_key)), 1, 2)   # along x, per output c
    R = proj[:, ab]                                                    # (S, P, M): the restricted logits
    rm, rc = _both_losses(R, ab)
    em, ec = _both_losses((L - R)[:, tr], ab[tr])
    out.update(zip(("chughtai_restricted_mse", "chughtai_restricted_ce", "chughtai_excluded_mse",
                    "chughtai_excluded_ce"), (rm, rc, em, ec)))
    return {"chughtai": out}


def _layers(s: Any) -> tuple:
    """``W_a``, ``W_b`` rows and ``W_c`` columns (as rows) of the whole stack, by layer name."""
    return (("Wa", s.Wa), ("Wb", s.Wb), ("Wc", np.swapaxes(s.Wc, 1, 2)))


def _chughtai_fve(layer: str) -> Any:
    """Chughtai et al.'s FVE of ``layer`` per family: ``||Q_f^T w||^2`` summed over nodes over ``||W||^2``."""
    def compute(p: Part) -> np.ndarray:
        W = dict(_layers(p.stack))[layer]
        tot = (W * W).sum((1, 2))
        E = p.stack.B.energies(W).sum(1)                              # (S, F), summed over nodes
        return E / np.where(tot > 0, tot, 1.0)[:, None]
    return compute


def _doshi_ipr(layer: str) -> Any:
    """Gromov / Doshi et al.'s IPR of ``layer``, mean over the live nodes (NaN unless the group is ``Z_M``)."""
    def compute(p: Part) -> np.ndarray:
        ipr = doshi_ipr(dict(_layers(p.stack))[layer])
        with np.errstate(invalid="ignore"):
            return np.asarray([np.nanmean(r[m]) if m.any() and p.stack.cyc else np.nan
                               for r, m in zip(ipr, p["live"])])
    return compute


class _PeerStack:
    """A stack of snapshots as the peers' measures read it: every node (none dropped), the keys of :func:`peer_keys`."""

    def __init__(self, Wa: Any, Wb: Any, Wc: Any, group: Any, keys: dict, train_idx: Any, activation: str,
                 dead_threshold: float):
        self.G = as_group(group)
        self.B = family_basis(self.G)
        self.Wa, self.Wb, self.Wc = as_stack(Wa), as_stack(Wb), as_stack(Wc)
        self.S, q, M = self.Wa.shape
        P = M * M
        _, _, self.ab, _ = pair_tables(self.G)
        self.tr = np.arange(P) if train_idx is None else np.asarray(train_idx, dtype=np.int64).reshape(-1)
        self.step = substack_step(P, q, M)
        self.cyc = is_cyclic(self.G)
        self.nanda_key = keys.get("nanda") if self.cyc else None
        self.chughtai_key = keys.get("chughtai") or []
        self.sigma = ACTIVATIONS[activation].numpy_
        self.dead_threshold = dead_threshold


def _peer_logits(p: Part) -> dict:
    """The hidden activations (s, P, q) and the logits (s, P, M) of the part, from one forward pass."""
    s = p.stack
    Fh, L = features_and_logits(s.Wa, s.Wb, s.Wc, p.sl, s.sigma)
    return {"hidden": Fh, "logits": L}


def _chughtai_hidden(p: Part) -> dict:
    return {"chughtai_hidden": chughtai_hidden_fve(p["hidden"], p.stack.G)}


def _peer_live(p: Part) -> dict:
    s = p.stack
    return {"live": node_ipr(s.Wa, s.Wb, s.Wc, s.G, s.dead_threshold)[1]}


#: The intermediates of a :class:`cogo.dynamics.measures.Part` of a :class:`_PeerStack`.
_SHARED = {"logits": _peer_logits, "hidden": _peer_logits, "nanda": _nanda, "chughtai": _chughtai,
           "chughtai_hidden": _chughtai_hidden, "live": _peer_live}


def _loss_measure(who: str, kind: str, loss: str) -> Measure:
    """Nanda et al.'s or Chughtai et al.'s restricted or excluded loss (``loss``: mse or ce), a chunk at a time."""
    name = f"{who}_{kind}_{loss}"
    return Measure(name, lambda p: p[who][name], uses=("logits", who),
                   table=lambda pr, i: {f"{who}_{kind}_loss_{loss}": pr[who][f"{kind}_loss"][loss][i]} if pr.get(who)
                   else {})


#: The peers' measures (the module docstring), as records of :class:`cogo.dynamics.measures.Measure`: their JSON
#: sections are :func:`cogo.dynamics.peers_report.peers_result`'s, their figure
#: :func:`cogo.dynamics.peers_report.figure_peers`.
PEER_MEASURES = (
    *(_loss_measure("nanda", kind, loss) for kind in ("restricted", "excluded") for loss in ("mse", "ce")),
    Measure("chughtai_similarity", lambda p: p["chughtai"]["chughtai_similarity"], uses=("logits", "chughtai")),
    *(_loss_measure("chughtai", kind, loss) for kind in ("restricted", "excluded") for loss in ("mse", "ce")),
    Measure("chughtai_fve_hidden_ab", lambda p: p["chughtai_hidden"]["ab"], uses=("hidden", "chughtai_hidden")),
    Measure("chughtai_fve_hidden", lambda p: sum(p["chughtai_hidden"].values()), uses=("hidden", "chughtai_hidden")),
    *(Measure(f"chughtai_fve_{w}", _chughtai_fve(w), "stack") for w in ("Wa", "Wb", "Wc")),
    *(Measure(f"doshi_ipr_{w}", _doshi_ipr(w), "stack") for w in ("Wa", "Wb", "Wc")),
)
#: The per-snapshot arrays of :func:`peer_measures` (the snapshot on the first axis).
PEER_ARRAYS = tuple(m.name for m in PEER_MEASURES)


def peer_measures(Wa: Any, Wb: Any, Wc: Any, group: Any, keys: dict, train_idx: Any = None, activation: str = THEORY,
                  dead_threshold: float = 0.01) -> dict:
    """Every measure of :data:`PEER_MEASURES` for a stack of snapshots, with the keys of :func:`peer_keys`.

    ``Wa``, ``Wb``: (S, q, M); ``Wc``: (S, M, q); ``train_idx``: the training pairs ``a M + b`` (default all).

    Returns
    -------
    dict of str to numpy.ndarray
        The :data:`PEER_ARRAYS`, each with the snapshot on its first axis (per family: (S, F)); Nanda et al.'s
        are NaN unless the group is ``Z_p``, Gromov / Doshi et al.'s too.
    """
    return compute_measures(PEER_MEASURES, _PeerStack(Wa, Wb, Wc, group, keys, train_idx, activation, dead_threshold),
                            _SHARED)
