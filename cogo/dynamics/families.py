"""Irrep families of a finite group as real weights see them, and what the progress measures read per family (SPEC 9).

Irreps are read in *families* (:func:`cogo.analysis.irreps.irrep_families`: a
real or quaternionic irrep alone, a complex one with its conjugate; for
``Z_n`` the frequency classes ``{k, -k}``); the orthogonal projector of a family
is the real part of the sum of the isotypic projectors of
:func:`cogo.algebra.representations.isotypic_projectors` over its members, and
``Q_f`` an orthonormal basis of its image (:class:`FamilyBasis`).  Here: the
energy of each node per family, its inverse participation ratio (Gromov 2023,
with the Fourier modes of ``Z_n`` replaced by irrep families), and which
families are *key* (:func:`key_families`, :func:`key_epochs`).

References
----------
.. [1] A. Gromov, "Grokking modular arithmetic", arXiv:2301.02679, 2023.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from cogo.algebra.representations import character_table, isotypic_projectors
from cogo.algebra.group_parsing import as_group
from cogo.analysis.irreps import irrep_families
from cogo.analysis.nodes import inverse_participation_ratio

__all__ = ["KEY_FRACTION", "FamilyBasis", "family_basis", "family_energy", "node_ipr", "key_families", "key_epochs"]

#: A family is key when its logit FVE is at least this fraction of its share of the target.
KEY_FRACTION = 0.5


class FamilyBasis:
    """An orthonormal real basis of ``R^M`` adapted to the irrep families of ``G`` (module docstring).

    ``Q`` (M, M): columns ``start[f]:stop[f]`` span family ``f``; ``families``
    (lists of irrep indices), ``names``, ``dims`` (``sum d_k^2``), ``share``
    (``dims / (M - 1)``, 0 for the trivial family), ``trivial`` (its index).
    """

    def __init__(self, G: Any):
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
    """The :class:`FamilyBasis` of ``group`` (cached per group: the same object between calls).

    Examples
    --------
    >>> B = family_basis(5)                                 # Z_5: {0}, {1, 4}, {2, 3}
    >>> B.names, B.dims.tolist(), B.share.tolist()
    (['rho0', 'rho1+rho4', 'rho2+rho3'], [1, 2, 2], [0.0, 0.5, 0.5])
    >>> family_basis("S3").dims.tolist()                    # S3: trivial, sign, the 2-dimensional irrep
    [1, 1, 4]
    """
    return _basis(as_group(group))


def family_energy(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, basis: FamilyBasis) -> tuple:
    """Energy ``||Q_f^T w||^2`` per family of every node's ``W_a`` row, ``W_b`` row and ``W_c`` column: three (S, q, F) arrays.
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


def key_families(fve_logits: np.ndarray, basis: FamilyBasis, fraction: float = KEY_FRACTION) -> np.ndarray:
    """Boolean (..., F): family ``f`` is key when its logit FVE >= ``fraction * share_f`` (module docstring); the trivial family never is.

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
    """Per family (column of ``key_at``): the first snapshot epoch from which it is key at every later snapshot (None if not key at the end).

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


