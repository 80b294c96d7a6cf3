"""The registry of the checks ``cogo verify`` runs: one row per theorem, its section, when it applies.

Every theorem of SPEC 3-7 is a :class:`Row` of :data:`THEOREMS` (its number and title as printed, the
SPEC section, the function of :mod:`cogo.verify.theorems` with its keyword arguments, and the rule that
says whether it applies to a group, with the reason when it does not).  :func:`theorem_list`,
:func:`skipped` and :func:`run_all` are queries over it, followed by the negative controls of
:func:`cogo.verify.controls.controls_for`.  A new theorem is one row here and its function.

The theorem functions never import this module, and the controls call the theorem functions
directly, so the import graph of :mod:`cogo.verify` is acyclic.  The theorems are those of CoGO [1]_.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from cogo.algebra.spec import parse_group
from cogo.threads import thread_policy as _thread_policy
from cogo.verify.controls import controls_for
from cogo.verify.results import METHODS, TheoremResult

__all__ = ["Row", "THEOREMS", "theorem_list", "skipped", "run_all"]

_ODD = "need odd order: every k != 0 distinct from -k"


@dataclass(frozen=True)
class Row:
    """One theorem row of a registry (:data:`THEOREMS` here, :data:`cogo.li2.theorems.LI2_THEOREMS` for SPEC 9).

    ``number``/``title`` as printed, ``section`` of SPEC; ``body`` the name of its function in ``module``
    (looked up at each run, so a patched function is the one run), called as ``body(G, method=..., **kwargs)``
    when the row has both ``methods``, ``body(G, **kwargs)`` when it has one; ``shared`` names the inputs it
    takes from its runner, computed once per run for every row (the Li^2 rows share one ascent run and its
    seed); ``requires`` the conditions on the group, each ``(predicate, reason)``: the row applies when
    every predicate holds, and :meth:`why_not` gives the first failing reason.
    """

    number: int | str
    title: str
    section: str
    body: str
    kwargs: dict = field(default_factory=dict)
    requires: tuple[tuple[Callable[[Any], bool], str], ...] = ()
    module: str = "cogo.verify.theorems"
    methods: tuple[str, ...] = METHODS
    shared: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """``"6. optimality of z_F6"`` for a numbered theorem, ``"control: ..."`` / ``"Lemma 1: ..."`` otherwise."""
        return f"{self.number}. {self.title}" if isinstance(self.number, int) else f"{self.number}: {self.title}"

    @property
    def fn(self) -> Callable[..., Any]:
        return getattr(importlib.import_module(self.module), self.body)

    def applies(self, G: Any) -> bool:
        """Whether every condition of ``requires`` holds for the group ``G``.

        Returns
        -------
        bool
            True when the row runs on ``G``.
        """
        return all(pred(G) for pred, _ in self.requires)

    def why_not(self, G: Any) -> str:
        """The reason of the first condition of ``requires`` that ``G`` fails.

        Returns
        -------
        str
            The reason, or ``""`` when the row applies.
        """
        return next((why for pred, why in self.requires if not pred(G)), "")


def _odd(G: Any) -> bool:
    return bool(G.is_odd)


_NEED_ODD = ((_odd, _ODD),)


#: Every theorem row, in the order ``cogo verify`` prints them.
THEOREMS: tuple[Row, ...] = (
    Row(1, "semiring laws", "SPEC 3", "semiring_laws"),
    Row(2, "potentials are ring homomorphisms", "SPEC 4", "homomorphism"),
    Row(3, "exact loss decomposition", "SPEC 5", "loss_decomposition"),
    Row(4, "composition of zero sets", "SPEC 6", "composition"),
    Row(5, "membership table of SPEC 7", "SPEC 7", "membership_table"),
    Row(6, "optimality of z_F6", "SPEC 7.1", "optimality", {"construction": "f6"}, _NEED_ODD),
    Row(6, "optimality of z_F6 with z_{nu=i} * z_syn,ab blocks", "SPEC 7.2", "optimality",
        {"construction": "f6-ab"}, _NEED_ODD),
    Row(6, "optimality of z_F4/6 with the hat correction", "SPEC 7.3", "optimality", {"construction": "f46"},
        _NEED_ODD),
    Row(6, "optimality of z_M memorization", "SPEC 7.4", "optimality", {"construction": "mem"}),
    Row(7, "node counts", "SPEC 7", "node_counts"),
    Row(8, "Occam's razor", "SPEC 7", "occam"),
)


def theorem_list(group: Any, full_loss: bool = False) -> list:
    """``(function, kwargs)`` for every check that applies to the group, theorems first, then controls.

    Even groups get theorems 1-5, z_M optimality, node counts and Occam's razor
    (with z_M); the order-6/4 constructions need odd order.  Every group runs at
    least two negative controls (:func:`cogo.verify.controls.controls_for`).

    Returns
    -------
    list of tuple
        ``(function, kwargs)`` pairs: the rows of :data:`THEOREMS` that apply, then the controls.

    Examples
    --------
    >>> [f.__name__ for f, kwargs in theorem_list(4)][:5]   # theorems first, then the controls
    ['semiring_laws', 'homomorphism', 'loss_decomposition', 'composition', 'membership_table']
    >>> sum(f.__name__.startswith("control") for f, kwargs in theorem_list(4))   # 4 + 6 block-route + zero + formal + two z_M rows + row 5
    15
    """
    G = parse_group(group)
    out = []
    for row in THEOREMS:
        if row.applies(G):
            kw = dict(row.kwargs)
            if row.body == "optimality":
                kw["full_loss"] = full_loss
            out.append((row.fn, kw))
    out += controls_for(G, with_kwargs=True)  # kwargs {"methods": ("exact",)}: a control with no numeric form
    return out


def skipped(group: Any) -> list[str]:
    """Checks that do not apply to the group (even order: the order-6/4 constructions).

    Returns
    -------
    list of str
        One line per row that does not apply: its title and the reason.

    Examples
    --------
    >>> skipped(5), skipped(4)
    ([], ['6. optimality of z_F6, 7.2, z_F4/6 (need odd order: every k != 0 distinct from -k)'])
    """
    G = parse_group(group)
    out = [row for row in THEOREMS if not row.applies(G)]
    if not out:
        return []
    sections = [r.section.replace("SPEC ", "") for r in out]
    names = {"7.1": "z_F6", "7.2": "7.2", "7.3": "z_F4/6"}
    return [f"{out[0].number}. optimality of " + ", ".join(names.get(s, s) for s in sections)
            + f" ({out[0].why_not(G)})"]


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.threads)
def run_all(group: Any = 23, method: str = "both", progress: Callable | None = None,
            full_loss: bool = False) -> list[TheoremResult]:
    """Run every theorem (exact, numeric or both) and every negative control on ``group``.

    Returns the list of :class:`TheoremResult`, in the order of
    :func:`theorem_list`, exact before numeric.  ``progress(result)`` is
    called after each check.  ``full_loss=True`` computes the exact general
    loss of every construction even above :data:`cogo.verify.theorems.GENERAL_LOSS_MAX_ORDER`.

    Returns
    -------
    list of TheoremResult
        In the order of :func:`theorem_list`, exact before numeric.

    Examples
    --------
    >>> results = run_all(2, method="numeric")              # Z_2: theorems, the two z_M controls and row 5's
    >>> len(results), all(r.passed for r in results), sum(r.negative_control for r in results)
    (11, True, 3)
    """
    if method not in ("both", *METHODS):
        raise ValueError(f"method must be 'exact', 'numeric' or 'both', got {method!r}")
    G = parse_group(group)
    methods = list(METHODS) if method == "both" else [method]
    results = []
    for fn, kw in theorem_list(G, full_loss=full_loss):
        kw = dict(kw)
        only = kw.pop("methods", METHODS)
        for m in methods:
            if m not in only:
                continue
            r = fn(G, method=m, **kw)
            results.append(r)
            if progress is not None:
                progress(r)
    return results
