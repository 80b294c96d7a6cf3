"""The catalogue of SPEC 7 in one place: every factor family and every named product.

A *factor family* (:class:`Family`) is one form of SPEC 7 -- ``z_nu``,
``z_{nu=i}``, ``z_xi``, ``z_syn``, ``z_syn,ab`` -- with everything the library
does with it: its constructor (:mod:`cogo.catalogue.partial`), its vectorized
fit to a measured factor, the canonical representative of its parameter orbit,
the special case it is of, the parameters the reports histogram, its direct
fit for the nearest-form search, and the rows it contributes to the exact
membership table (theorem 5 of :mod:`cogo.proofs`).  A *product*
(:class:`Product`) is a named block family of SPEC 7 (``z_nu * z_syn``, 7.1;
``z_{nu=i} * z_syn,ab``, 7.2; ``z_{nu=i} * z_xi``, 7.3): the families that
play its roles, its direct fit, its column of the reference's table and the
sums its construction needs.

Classification (:mod:`cogo.analysis.classify`), the reports
(:mod:`cogo.analysis.report.render`) and the membership table
(:func:`cogo.proofs.theorems.zero_sets.membership_table`) loop over this registry and
hold no catalogue name of their own.  Adding a family is one
:func:`register_family` call (and, if it forms a named block, one
:func:`register_product`) plus its tests; :func:`registered` does both for the
duration of a ``with`` block (tests, experiments).

Conventions (SPEC 7, SPEC 8.6): a 2-node factor is read from the values
``(x, y, z)`` of its second node after the first is normalized to
``(1, 1, 1)``; a 3-node factor from its second and third nodes, shape
``(2, 3)``.  :mod:`cogo.analysis.classify` enumerates every disguise of a
measured factor (node order, sign gauge, partner stabilizer) as rows of such
arrays; a family's ``fit`` scores every row at once and returns one residual
(root-mean-square difference per entry) and one parameter dict per row, and
``canonical`` picks the documented representative among the rows that fit.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] facebookresearch/luckmatters, ssl/real-dataset/cogo/ (the paper's code).
"""
from __future__ import annotations

import contextlib
import operator
from collections.abc import Sequence as _SequenceABC
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from cogo.algebra.potentials import MONOMIALS
# the module, not its names: the catalogue builds from the one definition of each factor, read at each call
from cogo.catalogue import partial as P

__all__ = [
    "Param",
    "RowParams",
    "NearestForm",
    "Family",
    "Product",
    "PAPER_COLUMNS",
    "UNKNOWN",
    "register_family",
    "register_product",
    "registered",
    "families",
    "family",
    "products",
    "factor_names",
    "block_types",
    "rank",
    "serves",
    "is_special",
    "general_of",
    "fit_order",
    "nearest_forms",
    "angle_params",
    "paper_column",
    "angle",
    "syn_ab_fold",
]

#: The name of a factor that fits no family.
UNKNOWN = "unknown"
#: The columns of the reference's table (fractions of the factorable blocks of order 4 and 6).
PAPER_COLUMNS = ("nu=i*xi", "nu=i*syn_ab", "nu*syn", "others")
#: Canonical angles are read in ``[LO, 2 pi + LO)`` (radians), so a value a hair below 0 reads as 0.
LO = -0.01
W3 = np.exp(2j * np.pi / 3)


# --------------------------------------------------------------------------- records
@dataclass(frozen=True)
class Param:
    """A parameter of a family: ``name``, its ``domain`` (``"unit"``: ``|x| = 1``; ``"nonzero"``; ``"sign"``)."""

    name: str
    domain: str = "unit"


@dataclass(frozen=True)
class NearestForm:
    """A family fitted directly to a block by :func:`cogo.analysis.verdict.nearest.nearest_family`.

    ``model(degrees)`` builds the form (a :class:`cogo.catalogue.partial.PartialSolution`) at the
    parameter angles ``degrees`` (a tuple, one per name of ``params``); ``step`` is the coarse grid
    step in degrees, ``period`` the period of each angle, ``fold(degrees)`` the canonical
    representative of the orbit (rounded to 3 decimals by the caller).
    """

    model: Callable[[tuple], Any]
    params: tuple
    step: float
    period: tuple
    fold: Callable[[tuple], tuple]


@dataclass(frozen=True)
class Family:
    """One factor form of SPEC 7 (module docstring).

    Parameters
    ----------
    name : str
        The printed name (``"z_nu"``); the order of registration is the order
        names take in a product's type (``z_nu=i, z_nu, z_xi, z_syn, z_syn,ab``).
    nodes : int
        Number of hidden nodes, 2 or 3.
    params : tuple of Param
        The free parameters (none for a special case).
    build : callable
        ``build(*values, exact=False)`` -> :class:`cogo.catalogue.partial.PartialSolution`.
    fit : callable
        ``fit(V)`` -> ``(residuals, params)`` for the disguises ``V`` of a measured factor (shape (N, 3)
        for 2 nodes, (N, 2, 3) for 3 nodes; module docstring): ``k N`` residuals and a sequence of ``k N``
        parameter dicts (a list, or :class:`RowParams`), in ``k`` runs of ``N`` rows, one run per value
        of a discrete parameter (``z_xi``: ``s = +1`` then ``s = -1``; ``k = 1`` for the others).  Each row
        is fitted on its own (the same numbers whatever other rows ``V`` holds), so the disguises of many
        factors are fitted in one call (:func:`cogo.analysis.naming.name_blocks`).
    canonical : callable, optional
        ``canonical(candidates)`` -> the representative among the fitting rows' parameter dicts
        (default: the first).
    special_of : str, optional
        The general family this is a parameter-free point of (``z_nu=i`` of ``z_nu``).
    angle_params : tuple of str
        Parameters the reports histogram as angles (``cogo classify --plots``).
    nearest : NearestForm, optional
        The direct fit of a lone factor of this family (blocks of order ``nodes``).
    rows : callable, optional
        ``rows(method, rng)`` -> membership-table rows ``(row name, partial solution, conj, points)``
        (exact: symbolic parameters, ``conj`` and witness ``points``; numeric: random parameters,
        ``conj`` and ``points`` None).
    section : str
        Where SPEC (docs/math.md) defines it.
    """

    name: str
    nodes: int
    params: tuple
    build: Callable[..., Any]
    fit: Callable[[np.ndarray], tuple]
    canonical: Callable[[list], dict] | None = None
    special_of: str | None = None
    angle_params: tuple = ()
    nearest: NearestForm | None = None
    rows: Callable[[str, Any], list] | None = None
    section: str = "7"

    def representative(self, candidates: list) -> dict:
        """The canonical parameters among ``candidates`` (the parameter dicts of the rows that fit)."""
        if not candidates:
            return {}
        return dict(self.canonical(candidates)) if self.canonical is not None else dict(candidates[0])


@dataclass(frozen=True)
class Product:
    """A named block family of SPEC 7: a product of factor families, one per role.

    ``roles``: the family of each factor (a role held by a general family is also served by its
    special cases: :func:`serves`); ``nearest``: its direct fit (blocks of order ``prod(nodes)``); ``paper_column`` its
    column of the reference's table, ``paper_special`` a column that replaces it when a factor is
    named as the given special case (``z_nu * z_syn`` with ``z_nu=i``: the reference counts it with
    7.2); ``construction``: the label of the construction block that uses it and ``needs`` the sums
    (SPEC 6) that block must make vanish (theorem 5).
    """

    name: str
    roles: tuple
    section: str = "7"
    nearest: NearestForm | None = None
    paper_column: str = "others"
    paper_special: dict = field(default_factory=dict)
    construction: str | None = None
    needs: tuple = ()


# --------------------------------------------------------------------------- the registry
_FAMILIES: dict[str, Family] = {}
_PRODUCTS: dict[str, Product] = {}
#: Callables that forget what was derived from the registry (classify's caches of fitted models).
_ON_CHANGE: list[Callable[[], None]] = []


def on_change(callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback()`` whenever the registry changes (caches of derived data)."""
    _ON_CHANGE.append(callback)
    return callback


def _changed() -> None:
    for cb in _ON_CHANGE:
        cb()


def register_family(fam: Family) -> Family:
    """Add a factor family to the catalogue (see :class:`Family`); returns it.

    Raises ValueError (one line) for a name already registered or reserved, or a
    node count other than 2 or 3.  A special case may be registered before its
    general family (the order of registration is the order of names in a type).
    """
    if not isinstance(fam, Family):
        raise TypeError(f"register_family takes a Family, got {type(fam).__name__}")
    if fam.name in _FAMILIES or fam.name == UNKNOWN or " * " in fam.name:
        raise ValueError(f"a factor family named {fam.name!r} is already registered (or the name is reserved)")
    if fam.nodes not in (2, 3):
        raise ValueError(f"family {fam.name!r}: factors of 2 or 3 nodes are read (SPEC 8.4), got {fam.nodes}")
    _FAMILIES[fam.name] = fam
    _changed()
    return fam


def register_product(prod: Product) -> Product:
    """Add a named block family (see :class:`Product`); every role must be a registered general family."""
    if not isinstance(prod, Product):
        raise TypeError(f"register_product takes a Product, got {type(prod).__name__}")
    if prod.name in _PRODUCTS:
        raise ValueError(f"a product named {prod.name!r} is already registered")
    bad = [r for r in prod.roles if r not in _FAMILIES]
    if bad or len(prod.roles) < 2:
        raise ValueError(f"product {prod.name!r}: roles {bad or prod.roles} are not two or more registered families")
    if prod.paper_column not in PAPER_COLUMNS or not set(prod.paper_special.values()) <= set(PAPER_COLUMNS):
        raise ValueError(f"product {prod.name!r}: paper columns are one of {PAPER_COLUMNS}")
    _PRODUCTS[prod.name] = prod
    _changed()
    return prod


@contextlib.contextmanager
def registered(*records: Family | Product) -> Iterator[None]:
    """Register ``records`` (families first, in order) for the duration of a ``with`` block.

    Examples
    --------
    >>> from cogo.catalogue import Family, registered, factor_names
    >>> toy = Family("z_toy", 2, (), build=None, fit=lambda V: (np.full(len(V), np.inf), [{}] * len(V)))
    >>> with registered(toy):
    ...     "z_toy" in factor_names()
    True
    >>> "z_toy" in factor_names()
    False
    """
    added: list = []
    try:
        for r in records:
            if isinstance(r, Family):
                register_family(r)
                added.append(("f", r.name))
            else:
                register_product(r)
                added.append(("p", r.name))
        yield
    finally:
        for kind, name in reversed(added):
            (_FAMILIES if kind == "f" else _PRODUCTS).pop(name, None)
        _changed()


# --------------------------------------------------------------------------- views
def families() -> tuple[Family, ...]:
    """Every registered factor family, in registration (name) order."""
    return tuple(_FAMILIES.values())


def family(name: str) -> Family:
    """The family of a name; KeyError (naming the known ones) otherwise."""
    try:
        return _FAMILIES[name]
    except KeyError:
        raise KeyError(f"no factor family {name!r}; known: {', '.join(_FAMILIES)}") from None


def products() -> tuple[Product, ...]:
    """Every registered product, in precedence order (a block that could form two takes the first)."""
    return tuple(_PRODUCTS.values())


def factor_names() -> tuple[str, ...]:
    """Every factor name a report can give, in the order of a product's type, then ``"unknown"``.

    Examples
    --------
    >>> factor_names()
    ('z_nu=i', 'z_nu', 'z_xi', 'z_syn', 'z_syn,ab', 'unknown')
    """
    return tuple(_FAMILIES) + (UNKNOWN,)


def block_types() -> tuple[str, ...]:
    """The products' names, then ``"other factorable"`` and ``"non-factorable"`` (SPEC 8.6).

    Examples
    --------
    >>> block_types()
    ('z_nu * z_syn', 'z_nu=i * z_syn,ab', 'z_nu=i * z_xi', 'other factorable', 'non-factorable')
    """
    return tuple(_PRODUCTS) + ("other factorable", "non-factorable")


def rank(name: str) -> int:
    """Position of a factor name in a product's type (``unknown`` last)."""
    names = factor_names()
    return names.index(name) if name in names else len(names)


def is_special(name: str) -> bool:
    """Whether ``name`` is a parameter-free special case (``z_nu=i``, ``z_syn``)."""
    f = _FAMILIES.get(name)
    return f is not None and f.special_of is not None


def general_of(name: str) -> str | None:
    """The general family a special case is of (None for a general family)."""
    f = _FAMILIES.get(name)
    return None if f is None else f.special_of


def serves(role: str) -> tuple[str, ...]:
    """The factor names that can play a product role: the family itself and its special cases.

    Examples
    --------
    >>> serves("z_nu"), serves("z_syn,ab"), serves("z_xi")
    (('z_nu=i', 'z_nu'), ('z_syn', 'z_syn,ab'), ('z_xi',))
    """
    return tuple(n for n, f in _FAMILIES.items() if n == role or f.special_of == role)


def fit_order(nodes: int) -> tuple[Family, ...]:
    """The families of ``nodes`` nodes in fitting order: each general family, then its special cases."""
    out: list = []
    for f in _FAMILIES.values():
        if f.nodes == nodes and f.special_of is None:
            out.append(f)
            out.extend(s for s in _FAMILIES.values() if s.special_of == f.name)
    out.extend(f for f in _FAMILIES.values() if f.nodes == nodes and f not in out)
    return tuple(out)


def nearest_forms() -> dict[int, list[tuple[str, NearestForm]]]:
    """The direct fits by block order: every family's and product's :class:`NearestForm`.

    Lone factors first (registration order), then products (precedence order); ties in the nearest
    search go to the form listed first.  Kept until the registry changes (read for every block).
    """
    if not _NEAREST_FORMS:
        _NEAREST_FORMS.update(_nearest_forms())
    return {q: list(v) for q, v in _NEAREST_FORMS.items()}


_NEAREST_FORMS: dict = {}


def _nearest_forms() -> dict[int, list[tuple[str, NearestForm]]]:
    out: dict = {}
    for f in _FAMILIES.values():
        if f.nearest is not None:
            out.setdefault(f.nodes, []).append((f.name, f.nearest))
    for p in _PRODUCTS.values():
        if p.nearest is not None:
            q = int(np.prod([_FAMILIES[r].nodes for r in p.roles]))
            out.setdefault(q, []).append((p.name, p.nearest))
    return out


def angle_params() -> dict[str, str]:
    """Parameter name -> family, for the parameters the reports histogram as angles.

    Examples
    --------
    >>> angle_params()
    {'nu': 'z_nu', 'xi': 'z_xi', 'alpha': 'z_syn,ab', 'beta': 'z_syn,ab'}
    """
    return {p: f.name for f in _FAMILIES.values() for p in f.angle_params}


def paper_column(block_type: str, factor_names_: Sequence[str]) -> str:
    """The reference's column of a factorable block of order 4 or 6 (:data:`PAPER_COLUMNS`).

    Examples
    --------
    >>> paper_column("z_nu * z_syn", ["z_nu=i", "z_syn"]), paper_column("z_nu * z_syn", ["z_nu", "z_syn"])
    ('nu=i*syn_ab', 'nu*syn')
    """
    p = _PRODUCTS.get(block_type)
    if p is None:
        return "others"
    for special, col in p.paper_special.items():
        if special in factor_names_:
            return col
    return p.paper_column


# --------------------------------------------------------------------------- angles
def angle(z: np.ndarray) -> np.ndarray:
    """Angles (radians) read in ``[LO, 2 pi + LO)``: the order in which canonical representatives are chosen."""
    return np.mod(np.angle(z) - LO, 2 * np.pi) + LO


def _deg(t: float, period: float, mirror: bool) -> float:
    """An angle (degrees) folded into ``[0, period)`` and, with ``mirror``, onto ``[0, period / 2]``."""
    t = float(np.mod(t, period))
    if t > period - 1e-9:
        t = 0.0
    return min(t, period - t) if mirror else t


def syn_ab_fold(t: tuple, period: float) -> tuple:
    """The canonical ``(alpha, beta)`` (degrees) of a ``z_syn,ab`` factor: the smallest of its orbit.

    Starting the factor at its second node (and renormalizing) maps ``(alpha, beta)`` to
    ``(beta / alpha, 1 / alpha)``, so the orbit under node relabelling is the three angle pairs
    ``(A, B)``, ``(B - A, -A)``, ``(-B, A - B)``; each angle is read modulo ``period`` (360, or
    90 beside ``z_nu=i``, whose stabilizer multiplies any node by ``i``), rounded to 3 decimals,
    and the lexicographically smallest pair is the representative.

    Examples
    --------
    >>> syn_ab_fold((40.0, 70.0), 90.0), syn_ab_fold((30.0, 50.0), 90.0), syn_ab_fold((20.0, 60.0), 90.0)
    ((20.0, 60.0), (20.0, 60.0), (20.0, 60.0))
    """
    A, B = float(t[0]), float(t[1])

    def rd(v: float) -> float:
        v = round(float(np.mod(v, period)), 3)
        return 0.0 if v >= period else v + 0.0

    return min((rd(A), rd(B)), (rd(B - A), rd(-A)), (rd(-B), rd(A - B)))


def _u(deg: float) -> complex:
    return complex(np.exp(1j * np.deg2rad(deg)))


class RowParams(_SequenceABC):
    """The parameter dicts of a fit's rows, each built when it is read.

    A fit scores thousands of disguises per network and the naming reads the parameters of a few
    (the best row, the rows within tolerance), so the dicts are made on access: ``make(i)`` builds row
    ``i``'s.  Indexing, ``len``, iteration and :meth:`take` behave as on the list of all dicts.

    Examples
    --------
    >>> p = RowParams(3, lambda i: {"x": 2 * i})
    >>> len(p), p[2], p[-1], list(p.take([1, 0]))
    (3, {'x': 4}, {'x': 4}, [{'x': 2}, {'x': 0}])
    """

    __slots__ = ("_n", "_make")

    def __init__(self, n: int, make: Callable[[int], dict]):
        self._n = int(n)
        self._make = make

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._make(j) for j in range(*i.indices(self._n))]
        i = operator.index(i)
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(f"row {i} of {self._n}")
        return self._make(i)

    def take(self, rows: Sequence[int]) -> "RowParams":
        """The rows ``rows`` (indices into this sequence), in that order, as a sequence of their own."""
        rows = [int(r) for r in rows]
        n, make = self._n, self._make
        if any(not 0 <= r < n for r in rows):
            raise IndexError(f"rows outside 0..{n - 1}")
        return RowParams(len(rows), lambda i: make(rows[i]))


def _rms(V: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Root-mean-square difference per entry, row by row (NaN rows: infinite)."""
    flat = V.reshape(len(V), -1)
    d = np.sqrt(np.mean(np.abs(flat - np.broadcast_to(pred, V.shape).reshape(len(V), -1)) ** 2, axis=1))
    return d if np.isfinite(d).all() else np.nan_to_num(d, nan=np.inf)


# --------------------------------------------------------------------------- the five families of SPEC 7
def _fit_nu(V: np.ndarray) -> tuple:
    """``z_nu(nu)``: second node ``(nu, -nu, -nu^-2)``; ``nu`` by least squares over the first two entries."""
    nu = (V[:, 0] - V[:, 1]) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        pred = np.stack([nu, -nu, -1.0 / nu ** 2], axis=1)
    return _rms(V, pred), RowParams(len(nu), lambda i: {"nu": complex(nu[i])})


def _fit_nu_i(V: np.ndarray) -> tuple:
    """``z_{nu=i}``: second node ``(i, -i, 1)``."""
    return _rms(V, np.array([1j, -1j, 1.0])), RowParams(len(V), lambda i: {})


def _fit_xi(V: np.ndarray) -> tuple:
    """``z_xi(xi, s)``: second node ``(xi, -s i conj(xi), s i)``, ``|xi| = 1``; both signs (rows of ``s = +1`` first).

    ``xi`` is the least-squares fit over complex values projected onto the unit circle (SPEC 7);
    ``|xi|`` in the parameters is the free fit's modulus (a diagnostic).
    """
    x, y = V[:, 0], V[:, 1]
    n = len(V)
    res, xis, frees = [], [], []
    for s in (1, -1):
        xi_free = (x - s * 1j * np.conj(y)) / 2
        with np.errstate(divide="ignore", invalid="ignore"):
            xi = xi_free / np.abs(xi_free)
        pred = np.stack([xi, -s * 1j * np.conj(xi), np.full_like(xi, s * 1j)], axis=1)
        res.append(_rms(V, pred))
        xis.append(xi)
        frees.append(xi_free)

    def make(i: int) -> dict:
        h, j = divmod(i, n)
        return {"xi": complex(xis[h][j]), "s": 1 - 2 * h, "|xi|": float(abs(frees[h][j]))}

    return np.concatenate(res), RowParams(2 * n, make)


def _fit_syn_ab(V: np.ndarray) -> tuple:
    """``z_syn,ab(alpha, beta)``: nodes 1, 2 ``(alpha w, w / alpha, w)``, ``(beta w^2, w^2 / beta, w^2)``, unit moduli."""
    x1, y1 = V[:, 0, 0], V[:, 0, 1]
    x2, y2 = V[:, 1, 0], V[:, 1, 1]
    w, w2 = W3, W3 ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        al_free = (x1 / w + w / y1) / 2
        be_free = (x2 / w2 + w2 / y2) / 2
        al = al_free / np.abs(al_free)
        be = be_free / np.abs(be_free)
        pred = np.stack([np.stack([al * w, w / al, np.full_like(al, w)], 1),
                         np.stack([be * w2, w2 / be, np.full_like(be, w2)], 1)], 1)
    return _rms(V, pred), RowParams(len(V), lambda i: {"alpha": complex(al[i]), "beta": complex(be[i]),
                                                       "|alpha|": float(abs(al_free[i])),
                                                       "|beta|": float(abs(be_free[i]))})


def _fit_syn(V: np.ndarray) -> tuple:
    """``z_syn``: nodes 1, 2 ``(w, w, w)``, ``(w^2, w^2, w^2)``."""
    return _rms(V, np.array([[W3] * 3, [W3 ** 2] * 3])), RowParams(len(V), lambda i: {})


def _smallest(key: str) -> Callable[[list], dict]:
    def pick(cands: list) -> dict:
        return cands[int(np.argmin(angle(np.array([p[key] for p in cands]))))]
    return pick


def _canonical_xi(cands: list) -> dict:
    """``s = +1`` first (node swapping maps ``z_xi(xi, s)`` to ``z_xi(conj xi, -s)``), then the smallest angle."""
    pref = [p for p in cands if p["s"] == 1] or cands
    return _smallest("xi")(pref)


def _canonical_syn_ab(cands: list) -> dict:
    """Smallest angle of ``alpha`` (within 0.02 rad), then of ``beta``."""
    aa = angle(np.array([p["alpha"] for p in cands]))
    bb = angle(np.array([p["beta"] for p in cands]))
    near = np.flatnonzero(aa <= aa.min() + 0.02)
    return cands[int(near[np.argmin(bb[near])])]


# membership-table rows (theorem 5): exact rows use symbols on the unit circle (conj(x) = 1/x) and exact witness
# points; numeric rows use random parameters
_UNIT_POINTS = ((3, 4, 5), (5, 12, 13), (-8, 15, 17))
_REAL_POINTS = ((2, 1), (-1, 3), (5, 1))


def _unit_points():
    import sympy  # late: sympy

    return [sympy.Rational(p, r) + sympy.I * sympy.Rational(q, r) for p, q, r in _UNIT_POINTS]


def _rows_syn(method: str, rng) -> list:
    return [("z_syn", P.z_syn(exact=method == "exact"), None, [{}] if method == "exact" else None)]


def _rows_nu_i(method: str, rng) -> list:
    return [("z_nu=i", P.z_nu_i(exact=method == "exact"), None, [{}] if method == "exact" else None)]


def _rows_syn_ab(method: str, rng) -> list:
    if method == "exact":
        import sympy  # late: sympy

        al, be = sympy.symbols("alpha beta")
        U = _unit_points()
        return [("z_syn,ab(alpha, beta), |alpha|=|beta|=1", P.z_syn_ab(al, be), P.unit_conjugate(al, be),
                 [{al: u, be: v} for u in U for v in U])]
    u = [complex(np.exp(1j * rng.uniform(-np.pi, np.pi))) for _ in range(2)]
    return [("z_syn,ab(alpha, beta)", P.z_syn_ab(u[0], u[1]), None, None)]


def _rows_nu(method: str, rng) -> list:
    if method == "exact":
        import sympy  # late: sympy

        nu, nub = sympy.symbols("nu nu_bar")

        def cj(e):
            return sympy.expand(sympy.conjugate(e).subs({sympy.conjugate(nu): nub}))

        pts = [{nu: sympy.Rational(p, q), nub: sympy.Rational(p, q)} for p, q in _REAL_POINTS]
        pts += [{nu: u, nub: sympy.conjugate(u)} for u in _unit_points()]
        return [("z_nu(nu), any nu != 0", P.z_nu(nu), cj, pts)]
    return [("z_nu(nu)", P.z_nu(complex(rng.normal(), rng.normal())), None, None)]


def _rows_xi(method: str, rng) -> list:
    if method == "exact":
        import sympy  # late: sympy

        xi = sympy.Symbol("xi")
        U = _unit_points()
        return [(f"z_xi(xi, {s:+d}), |xi|=1", P.z_xi(xi, s), P.unit_conjugate(xi), [{xi: u} for u in U])
                for s in (1, -1)]
    u = [complex(np.exp(1j * rng.uniform(-np.pi, np.pi))) for _ in range(2)]
    return [(f"z_xi(xi, {s:+d})", P.z_xi(v, s), None, None) for s, v in zip((1, -1), u)]


def _register_spec7() -> None:
    """The catalogue of SPEC 7, in the order names take in a product's type."""
    register_family(Family(
        "z_nu=i", 2, (), build=lambda exact=False: P.z_nu_i(exact=exact), fit=_fit_nu_i, special_of="z_nu",
        rows=_rows_nu_i))
    register_family(Family(
        "z_nu", 2, (Param("nu", "nonzero"),), build=lambda nu, exact=None: P.z_nu(nu, exact=exact), fit=_fit_nu,
        canonical=_smallest("nu"), angle_params=("nu",), rows=_rows_nu,
        nearest=NearestForm(lambda t: P.z_nu(_u(t[0])), ("nu",), 4.0, (360.0,), lambda t: (_deg(t[0], 180, True),))))
    register_family(Family(
        "z_xi", 2, (Param("xi"), Param("s", "sign")), build=lambda xi, s=1, exact=None: P.z_xi(xi, s, exact=exact),
        fit=_fit_xi, canonical=_canonical_xi, angle_params=("xi",), rows=_rows_xi,
        nearest=NearestForm(lambda t: P.z_xi(_u(t[0]), 1), ("xi",), 4.0, (360.0,),
                            lambda t: (_deg(t[0], 360, False),))))
    register_family(Family(
        "z_syn", 3, (), build=lambda exact=False: P.z_syn(exact=exact), fit=_fit_syn, special_of="z_syn,ab",
        rows=_rows_syn))
    register_family(Family(
        "z_syn,ab", 3, (Param("alpha"), Param("beta")),
        build=lambda alpha=1, beta=1, exact=None: P.z_syn_ab(alpha, beta, exact=exact), fit=_fit_syn_ab,
        canonical=_canonical_syn_ab, angle_params=("alpha", "beta"), rows=_rows_syn_ab,
        nearest=NearestForm(lambda t: P.z_syn_ab(_u(t[0]), _u(t[1])), ("alpha", "beta"), 20.0, (360.0, 360.0),
                            lambda t: syn_ab_fold(t, 360.0))))
    rn = "|a|^2 c + |b|^2 c"
    all_but_abc = tuple(m for m in MONOMIALS if m != "abc") + (rn,)
    rc = ("conj(a) b c", "a conj(b) c", "a b conj(c)", "conj(a) conj(b) c")
    rs = ("a^2 c", "b^2 c", "conj(a)^2 c", "conj(b)^2 c")
    register_product(Product(
        "z_nu * z_syn", ("z_nu", "z_syn"), "7.1", paper_column="nu*syn", paper_special={"z_nu=i": "nu=i*syn_ab"},
        construction="z_F6 block z_syn * z_nu (7.1)", needs=all_but_abc,
        nearest=NearestForm(lambda t: P.z_nu(_u(t[0])) * P.z_syn(), ("nu",), 2.0, (60.0,),
                            lambda t: (_deg(t[0], 60, True),))))
    register_product(Product(
        "z_nu=i * z_syn,ab", ("z_nu=i", "z_syn,ab"), "7.2", paper_column="nu=i*syn_ab",
        construction="7.2 block z_nu=i * z_syn,ab", needs=all_but_abc,
        nearest=NearestForm(lambda t: P.z_nu_i() * P.z_syn_ab(_u(t[0]), _u(t[1])), ("alpha", "beta"), 15.0,
                            (90.0, 90.0), lambda t: syn_ab_fold(t, 90.0))))
    register_product(Product(
        "z_nu=i * z_xi", ("z_nu=i", "z_xi"), "7.3", paper_column="nu=i*xi",
        construction="z_F4/6 order-4 block z_nu=i * z_xi (7.3, R_n left to the hat)", needs=rc + rs,
        nearest=NearestForm(lambda t: P.z_nu_i() * P.z_xi(_u(t[0]), 1), ("xi",), 2.0, (90.0,),
                            lambda t: (_deg(t[0], 90, False),))))


_register_spec7()

on_change(_NEAREST_FORMS.clear)  # a registered form changes the direct fits by order
