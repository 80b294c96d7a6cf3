"""The registry of the checks ``cogo verify`` runs: one row per theorem, its section, when it applies.

Every theorem of SPEC 3-7 is a :class:`Row` of :data:`THEOREMS` (its number and title as printed, the
SPEC section, the function of :mod:`cogo.proofs.theorems` with its keyword arguments, and the rule that
says whether it applies to a group, with the reason when it does not).  :func:`theorem_list`,
:func:`skipped` and :func:`run_all` are queries over it, followed by the negative controls of
:func:`cogo.proofs.controls.controls_for`.  A new theorem is one row here and its function.

The theorem functions never import this module, and the controls call the theorem functions
directly, so the import graph of :mod:`cogo.proofs` is acyclic.  The theorems are those of CoGO [1]_.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from typing import Any, Callable

from cogo.algebra.spec import parse_group
from cogo.runtime.threads import thread_policy as _thread_policy
from cogo.proofs.controls import CONTROL_ROWS, controls_for
from cogo.proofs.results import METHODS, TheoremResult
from cogo.proofs.rows import Row, methods_of, skipped_rows

__all__ = ["Row", "THEOREMS", "theorem_list", "skipped", "run_all"]

_ODD = "needs odd order: every k != 0 distinct from -k"


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
    least two negative controls (:func:`cogo.proofs.controls.controls_for`).

    Returns
    -------
    list of tuple
        ``(function, kwargs)`` pairs: the rows of :data:`THEOREMS` that apply, then the controls.

    Examples
    --------
    >>> [f.__name__ for f, kwargs in theorem_list(4)][:5]   # theorems first, then the controls
    ['semiring_laws', 'homomorphism', 'loss_decomposition', 'composition', 'membership_table']
    >>> sum(f.__name__.startswith("control") for f, kwargs in theorem_list(4))   # 4 + 6 block-route + zero + formal + two z_M rows + row 5 + 4 unseen
    19
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


def skipped(group: Any, method: str = "both") -> list[str]:
    """The theorem rows and the controls that do not run on the group, each with its reason.

    Returns
    -------
    list of str
        One line per row of :data:`THEOREMS` and of :data:`cogo.proofs.controls.CONTROL_ROWS` (with a method
        asked for) that does not apply: its label and the reason.

    Examples
    --------
    >>> skipped(5)
    []
    >>> skipped(4)[0]
    '6. optimality of z_F6 (needs odd order: every k != 0 distinct from -k)'
    >>> skipped(37)                   # z_M above order 31 is not built twice more for its two controls
    ['control: z_M, output weights doubled (needs order <= 31 or no pair k != -k: z_M is built in full, with n^2 nodes)', 'control: z_M without node (0, 0) (needs order <= 31 or no pair k != -k: z_M is built in full, with n^2 nodes)']
    """
    G = parse_group(group)
    return skipped_rows(THEOREMS, G, method) + skipped_rows(CONTROL_ROWS, G, method)


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def run_all(group: Any = 23, method: str = "both", progress: Callable | None = None,
            full_loss: bool = False) -> list[TheoremResult]:
    """Run every theorem (exact, numeric or both) and every negative control on ``group``.

    Returns the list of :class:`TheoremResult`, in the order of
    :func:`theorem_list`, exact before numeric.  ``progress(result)`` is
    called after each check.  ``full_loss=True`` computes the exact general
    loss of every construction even above :data:`cogo.proofs.theorems.GENERAL_LOSS_MAX_ORDER`.

    Returns
    -------
    list of TheoremResult
        In the order of :func:`theorem_list`, exact before numeric.

    Examples
    --------
    >>> results = run_all(2, method="numeric")              # Z_2: theorems, the three z_M controls and row 5's
    >>> len(results), all(r.passed for r in results), sum(r.negative_control for r in results)
    (12, True, 4)
    """
    methods = methods_of(method)
    G = parse_group(group)
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
