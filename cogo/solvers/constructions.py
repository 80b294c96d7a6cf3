"""Global optimizers of SPEC 7 as networks: z_F6, its 7.2 variant, z_F4/6 and z_M; by name and as checkpoints.

z_F6, z_F6_ab and z_F46 are their block designs (:mod:`cogo.solvers.designs`,
where their parameters are described) assembled in Fourier coordinates;
z_M (SPEC 7.4) is the product of its two root-of-unity factors
(:func:`mem_factors`) and works for every group order, the others need an
odd one.  :func:`construct` builds any of them by its name (:data:`NAMES`)
and :func:`to_checkpoint` writes its real weights.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cogo._version import __version__
from cogo.algebra._lazy import is_sympy, lazy_module
from cogo.algebra.groups import FiniteAbelianGroup, root_of_unity
from cogo.algebra.network import Network
from cogo.algebra.group_parsing import as_group
from cogo.catalogue.constructions import NAMES as CATALOGUE_NAMES
from cogo.catalogue.constructions import construction, resolve
from cogo.io.weights import save_checkpoint
from cogo.runtime.limits import construct_estimate, require
from cogo.solvers.designs import BlockDesign, _check_exact_flag, f6_design, f6ab_design, f46_design

# imported at first use (cogo.algebra._lazy): classify, train and --help never need exact arithmetic
sympy = lazy_module("sympy")

__all__ = [
    "z_F6",
    "z_F6_ab",
    "z_F46",
    "z_M",
    "mem_factors",
    "RootOfUnityNetwork",
    "NAMES",
    "construction_name",
    "construct",
    "to_checkpoint",
    "parameters_meta",
]

#: The names of the constructions (the records of :mod:`cogo.catalogue.constructions`): the functions that build
#: them (``cogo.z_F6``, ...), the names ``construct`` and ``cogo construct`` take and checkpoints record.
NAMES = CATALOGUE_NAMES


def construction_name(name: str) -> str:
    """The construction's name (:data:`NAMES`) for ``name``; an older spelling is refused with the name to use.

    Raises
    ------
    ValueError
        An unknown name, or an older spelling such as ``"f6-ab"`` (the message names ``z_F6_ab``).

    Examples
    --------
    >>> construction_name("z_F6_ab")
    'z_F6_ab'
    """
    return construction(name).name


def z_F6(group: Any, nu: Any = None, seed: int | None = None, exact: bool = False) -> Network:
    """z_F6 (SPEC 7.1) as a network; see :func:`cogo.solvers.designs.f6_design` for the parameters.

    Returns
    -------
    Network
        The blocks of :func:`cogo.solvers.designs.f6_design` assembled in Fourier coordinates: ``3 (n_G - 1)`` nodes.

    Examples
    --------
    >>> from cogo.algebra import condition_residuals, real_loss
    >>> z = z_F6(11)
    >>> z.q                                   # 6 nodes at each of the 5 positive frequencies
    30
    >>> condition_residuals(z).holds()
    {'R_g': True, 'R_c': True, 'R_n': True, 'R_*': True}
    >>> real_loss(*z.to_weights(real=True), group=11) < 1e-20
    True
    """
    return f6_design(group, nu=nu, seed=seed, exact=exact).to_network()


def z_F6_ab(group: Any, alpha: Any = None, beta: Any = None, seed: int | None = None,
            exact: bool = False) -> Network:
    """The SPEC 7.2 variant of z_F6 as a network; see :func:`cogo.solvers.designs.f6ab_design`.

    Returns
    -------
    Network
        :func:`cogo.solvers.designs.f6ab_design`'s network, as many nodes as z_F6.

    Examples
    --------
    >>> from cogo.algebra import real_loss
    >>> z = z_F6_ab(7, seed=3)                # alpha, beta: rational points on the unit circle
    >>> z.q, real_loss(*z.to_weights(real=True), group=7) < 1e-20
    (18, True)
    """
    return f6ab_design(group, alpha=alpha, beta=beta, seed=seed, exact=exact).to_network()


def z_F46(group: Any, k0: Any = None, xi: Any = None, s: Any = None, nu: Any = None,
          seed: int | None = None, exact: bool = False, corrected: bool = True) -> Network:
    """z_F4/6 (SPEC 7.3) as a network; see :func:`cogo.solvers.designs.f46_design` (``corrected=False``: the negative control).

    Returns
    -------
    Network
        The design of :func:`cogo.solvers.designs.f46_design` in Fourier coordinates, ``6 + 4 ((n_G - 1)/2 - 1)`` nodes.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from cogo.algebra import real_loss
    >>> z = z_F46(11)
    >>> z.q                                   # 6 + 4 x 4
    22
    >>> real_loss(*z.to_weights(real=True), group=11) < 1e-20
    True
    >>> bare = z_F46(11, corrected=False)     # without the hat: loss 2 (d - 3) / d = 16/11
    >>> round(real_loss(*bare.to_weights(real=True), group=11) * 11, 9)
    16.0
    """
    return f46_design(group, k0=k0, xi=xi, s=s, nu=nu, seed=seed, exact=exact, corrected=corrected).to_network()


# --------------------------------------------------------------------------- 7.4 z_M
@dataclass
class RootOfUnityNetwork:
    """A network whose entries are roots of unity ``exp(2 pi i E / L)``, as integer exponents.

    ``E`` has shape ``(3, n_G, q)`` (entries mod ``L``, the group exponent).
    Used for the factors ``sum_j u_a^j`` and ``sum_j u_b^j`` of z_M, whose
    potentials are character sums that :mod:`cogo.proofs` evaluates in exact
    cyclotomic arithmetic.
    """

    group: FiniteAbelianGroup
    E: np.ndarray
    L: int

    def to_network(self, exact: bool = False) -> Network:
        G = self.group
        if not exact:
            return Network(G, np.exp(2j * np.pi * (self.E % self.L) / self.L))
        cache = {int(t): root_of_unity(self.L, int(t)) for t in np.unique(self.E % self.L)}
        z = np.empty(self.E.shape, dtype=object)
        for idx, t in np.ndenumerate(self.E % self.L):
            z[idx] = cache[int(t)]
        return Network(G, z, exact=True)


def _phase(G: FiniteAbelianGroup) -> np.ndarray:
    """``<k, m>`` as an integer multiple of ``1 / exponent`` (mod exponent): ``chi(k, m) = zeta_L^phase``.

    The one definition is the group's (``FiniteAbelianGroup._phase``, cached); do not modify the array.
    """
    return G._phase


def mem_factors(group: Any) -> tuple[RootOfUnityNetwork, RootOfUnityNetwork]:
    """The two factors of z_M (SPEC 7.4): ``U_a = sum_j u_a^j`` and ``U_b = sum_j u_b^j``.

    ``u_a^j``: ``a = (conj chi(k, j))_k``, ``b = 1``, ``c = (chi(k, j))_k``;
    ``u_b^j``: ``a = 1``, ``b = (conj chi(k, j))_k``, ``c = (chi(k, j))_k``
    (for ``Z_d``: ``chi(k, j) = w_d^(k j)``).  Node ``j`` of each factor is the element ``j``.

    Returns
    -------
    U_a, U_b : RootOfUnityNetwork
        The two factors, ``n_G`` nodes each.
    """
    G = as_group(group)
    L = G.exponent
    ph = _phase(G)  # [k, j]
    zero = np.zeros_like(ph)
    Ua = np.stack([(-ph) % L, zero, ph])
    Ub = np.stack([zero, (-ph) % L, ph])
    return RootOfUnityNetwork(G, Ua, L), RootOfUnityNetwork(G, Ub, L)


def z_M(group: Any, exact: bool = False) -> Network:
    """Perfect memorization (SPEC 7.4): ``n_G^(-2/3) . U_a * U_b``, ``n_G^2`` nodes, any group order.

    Node ``(j1, j2)`` (index ``j1 n_G + j2``) has one-hot real input weights
    (at ``j1`` for ``a``, at ``j2`` for ``b``); with the quadratic activation it
    is active on the ``2 n_G - 1`` pairs with ``a = j1`` or ``b = j2``, four
    times as strongly on ``(j1, j2)``, and the centring removes the rest
    (SPEC 7.4).  ``exact=True`` gives sympy roots of unity (radicals only when
    the exponent divides 24 or 8).

    Its ``3 x n_G x n_G^2`` coordinates take about ``200 n_G^3`` bytes: a group too
    large for the available memory (or ``COGO_MEMORY_LIMIT``) is refused with a
    one-line :class:`~cogo.runtime.errors.CogoError` before anything is allocated
    (:func:`cogo.runtime.limits.construct_estimate`).

    Returns
    -------
    Network
        ``n_G^2`` nodes, node ``(j1, j2)`` at index ``j1 n_G + j2``.

    Raises
    ------
    CogoError
        One line, before anything is allocated, when the network does not fit in the memory allowed.

    Examples
    --------
    >>> import numpy as np
    >>> from cogo.algebra import real_loss
    >>> z = z_M(4)                            # any order, even ones too
    >>> Wa, Wb, Wc = z.to_weights(real=True)
    >>> z.q, real_loss(Wa, Wb, Wc, group=4) < 1e-20
    (16, True)
    >>> (np.abs(Wa[1 * 4 + 2]) > 1e-9).astype(int)   # node (1, 2) reads input a = 1 only
    array([0, 1, 0, 0])
    """
    exact = _check_exact_flag(exact)
    G = as_group(group)
    require(construct_estimate("z_M", G.order, exact=exact, loss=False))  # CogoError before allocating
    Ua, Ub = mem_factors(G)
    net = Ua.to_network(exact) * Ub.to_network(exact)
    s = sympy.Integer(G.order) ** sympy.Rational(-2, 3) if exact else float(G.order) ** (-2.0 / 3.0)
    return s * net


# --------------------------------------------------------------------------- dispatch and export
def _pair(v: Any) -> list:
    c = complex(sympy.N(v, 30)) if is_sympy(v) else complex(v)
    return [float(c.real), float(c.imag)]


def parameters_meta(design: BlockDesign) -> dict:
    """The design's parameters as plain values: complex numbers as ``[re, im]``, per-frequency dicts keyed by index.

    Returns
    -------
    dict
        Parameter name to ``[re, im]`` (a scalar), ``int`` (``k0``), or ``{str(index): value}`` per
        frequency (``s`` as ``+-1``, the others as ``[re, im]``).
    """
    out: dict = {}
    for name, v in design.params.items():
        if isinstance(v, dict):
            out[name] = {str(k): (x if name == "s" else _pair(x)) for k, x in v.items()}
        elif name == "k0":
            out[name] = int(v)
        else:
            out[name] = _pair(v)
    return out


def construct(kind: str, group: Any, seed: int | None = None, exact: bool = False) -> tuple[Network, dict]:
    """Build a construction by its name, the name of its function (``z_F6``, ``z_F6_ab``, ``z_F46``, ``z_M``).

    The older spellings (``f6``, ``f6-ab``, ``f46``, ``mem``: what checkpoints recorded before the one vocabulary)
    are refused with a ValueError naming the function (:mod:`cogo.catalogue.constructions`).

    Returns the network and its metadata (group label, construction name,
    parameters as ``[re, im]`` lists, seed, cogo version).

    Returns
    -------
    net : Network
        The construction (exact when ``exact=True``).
    meta : dict
        ``group``, ``construction`` (the name), ``seed``, ``cogo_version``, ``name`` (as reports print it) and
        ``parameters`` (:func:`parameters_meta`; ``{}`` for ``z_M``).

    Raises
    ------
    ValueError
        An unknown ``kind``.

    Examples
    --------
    >>> net, meta = construct("z_F46", 7)
    >>> net.q, meta["name"], meta["group"], meta["construction"]
    (14, 'z_F4/6', '7', 'z_F46')
    """
    G = as_group(group)
    rec = construction(kind)
    meta = {"group": G.label, "construction": rec.name, "seed": seed, "cogo_version": __version__}
    if rec.design is None:
        net = resolve(rec.builder)(G, exact=exact)
        meta.update(name=rec.name, parameters={})
        return net, meta
    design = resolve(rec.design)(G, seed=seed, exact=exact)
    meta.update(name=design.name, parameters=parameters_meta(design))
    return design.to_network(), meta


def to_checkpoint(net: Network, path: Any, meta: dict | None = None) -> None:
    """Write the real weights of ``net`` as a checkpoint (keys ``layera.weight`` (q, n), ``layerb.weight`` (q, n),
    ``layerc.weight`` (n, q), plus ``meta``), atomically.  The network must be real (Hermitian)."""
    num = net.to_numeric() if net.exact else net
    Wa, Wb, Wc = num.to_weights(real=True)
    m = {"group": net.group.label, "cogo_version": __version__}
    m.update(meta or {})
    save_checkpoint(path, Wa, Wb, Wc, m)
