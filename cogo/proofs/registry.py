"""The registry of the checks ``cogo verify`` runs: one row per theorem and per negative control.

Every theorem of SPEC 3-7 is a :class:`Row` of :data:`THEOREMS` (its number and title as printed, the
SPEC section, the module and name of its function with its keyword arguments, and the rule that says
whether it applies to a group, with the reason when it does not); every negative control is a row of
:data:`CONTROL_ROWS`.  :func:`theorem_list`, :func:`skipped`, :func:`controls_for` and :func:`run_all` are
queries over them.  A new theorem (or control) is its function in a module and one row here.

The contract of a theorem function (the modules of ``cogo.proofs.theorems``): ``f(group, method='exact'|'numeric', ...)``
returns a :class:`~cogo.proofs.results.TheoremResult`; ``method`` is ``"exact"`` when the row is a proof for the
group named (sympy / exact cyclotomic arithmetic, never floats), ``"exact-instances"`` when it is exact arithmetic
on the instances its statement lists, ``"numeric"`` for complex128/float64 checks with a stated tolerance.  The
object to check is an optional argument, so a broken object can be handed in and must be reported failing; the
modules of ``cogo.proofs.controls`` do exactly that.

The theorem functions never import this module, and the controls call the theorem functions
directly, so the import graph of :mod:`cogo.proofs` is acyclic.  The theorems are those of CoGO [1]_.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

from typing import Any, Callable

from cogo.runtime.threads import thread_policy as _thread_policy
from cogo.algebra.group_parsing import as_group
from cogo.catalogue.constructions import CONSTRUCTIONS
from cogo.proofs.controls.block_route import BLOCK_CONTROLS
from cogo.proofs.controls.broken_constructions import CONTROLS, NEEDS_PAIR, control_name
from cogo.proofs.controls.trained_verdict import TRAINED_CONTROLS, TRAINED_WHY, trained_applies
from cogo.proofs.controls.theorem_rows import (MEMBERSHIP_CONTROL, MEM_CERT_CONTROL, MEM_COUNT_CONTROL, MEM_ROUTES_CONTROL,
                                       NODE_CONTROL, OCCAM_CONTROL)
from cogo.proofs.results import METHODS, TheoremResult
from cogo.proofs.rows import Row, methods_of, skipped_rows

__all__ = ["Row", "THEOREMS", "CONTROL_ROWS", "theorem_list", "skipped", "controls_for", "run_all"]

_ODD = "needs odd order: every k != 0 distinct from -k"


def _odd(G: Any) -> bool:
    return bool(G.is_odd)


_NEED_ODD = ((_odd, _ODD),)
_LAWS, _LOSS, _ZERO_SETS = "cogo.proofs.theorems.laws", "cogo.proofs.theorems.loss_decomposition", "cogo.proofs.theorems.zero_sets"
_OPTIMALITY, _COUNTS, _OCCAM = ("cogo.proofs.theorems.optimality", "cogo.proofs.theorems.node_counts",
                                "cogo.proofs.theorems.occam")

#: Every theorem row, in the order ``cogo verify`` prints them.
THEOREMS: tuple[Row, ...] = (
    Row(1, "semiring laws", "SPEC 3", "semiring_laws", module=_LAWS),
    Row(2, "potentials are ring homomorphisms", "SPEC 4", "homomorphism", module=_LAWS),
    Row(3, "exact loss decomposition", "SPEC 5", "loss_decomposition", module=_LOSS),
    Row(4, "composition of zero sets", "SPEC 6", "composition", module=_ZERO_SETS),
    Row(5, "membership table of SPEC 7", "SPEC 7", "membership_table", module=_ZERO_SETS),
    # theorem 6: one row per construction of the catalogue (cogo.catalogue.constructions)
    *(Row(6, f"optimality of {c.short_title}", c.section, "optimality", {"construction": c.name},
          _NEED_ODD if c.odd_only else (), module=_OPTIMALITY) for c in CONSTRUCTIONS),
    Row(7, "node counts", "SPEC 7", "node_counts", module=_COUNTS),
    Row(8, "Occam's razor", "SPEC 7", "occam", module=_OCCAM),
)

# --------------------------------------------------------------------------- the negative controls
_PAIR = (lambda G: len(G.positive_frequencies) >= 1, NEEDS_PAIR)
_ODD_F6 = (lambda G: bool(G.is_odd), "needs odd order: z_F6 is its base")
_ODD_TWO_PAIRS = (lambda G: G.is_odd and len(G.positive_frequencies) >= 2,
                  "needs odd order and two frequency pairs: z_F4/6 is its base")
_TWO_PAIRS = (lambda G: len(G.positive_frequencies) >= 2, "needs two frequency pairs k != -k: its hat reaches a second")


def _control_row(module: str, name: str, body: str, requires: tuple, methods: tuple = METHODS,
             section: str = "SPEC 6-7") -> Row:
    """A control row: ``body`` of ``cogo.proofs.controls.<module>`` (looked up by name, so a patched control is run)."""
    return Row("control", name, section, body, requires=requires, module=f"cogo.proofs.controls.{module}", methods=methods)


def _construction(name: str, body: str) -> Row:
    """A row of :data:`cogo.proofs.controls.broken_constructions.CONTROLS`, with the rule it states."""
    return _control_row("broken_constructions", name, body, ((CONTROLS[name][3], CONTROLS[name][4]),))


def _block_route(name: str) -> Row:
    """A row of :data:`cogo.proofs.controls.block_route.BLOCK_CONTROLS` (its function is named after it)."""
    hat = BLOCK_CONTROLS[name][1] is None  # the hat control: z_F4/6 is its base
    return _control_row("block_route", name, control_name(name), (_PAIR, _ODD_TWO_PAIRS) if hat else (_PAIR,),
                    METHODS if BLOCK_CONTROLS[name][4] is None else ("exact",))


def _unseen(name: str, body: str, requires: tuple, methods: tuple = METHODS, section: str = "SPEC 6-7.3") -> Row:
    """A row of :mod:`cogo.proofs.controls.unseen_inputs` (the inputs the proof machinery had never been shown)."""
    return _control_row("unseen_inputs", name, body, requires, methods, section)


#: Every negative control, in the order ``cogo verify`` runs them: :func:`controls_for` and :func:`skipped`
#: are queries over it.
CONTROL_ROWS: tuple[Row, ...] = (
    _construction("z_nu blocks", "control_z_nu_blocks"),
    _construction("order-4 blocks without hat", "control_order4_blocks"),
    _construction("z_F4/6 without hat correction", "control_uncorrected_f46"),
    _construction("perturbed z_F6", "control_perturbed_f6"),
    _construction("z_M, output weights doubled", "control_mem_doubled"),
    _construction("z_M without node (0, 0)", "control_mem_dropped"),
    *(_block_route(name) for name in BLOCK_CONTROLS),
    _control_row("exact_tools", "exact zero test", "control_exact_zero_test", (), ("exact",), "SPEC 7"),
    _control_row("exact_tools", "formal indeterminates", "control_formal", (), ("exact",), "SPEC 3-4"),
    _control_row("exact_tools", "exact equality: Network.equals and the unit-circle check", "control_equality",
                 (), ("exact",), "SPEC 3, 7.2"),
    _control_row("theorem_rows", MEM_COUNT_CONTROL, "control_mem_node_counts", (), ("exact",), "SPEC 7.4"),
    _control_row("theorem_rows", MEM_CERT_CONTROL, "control_mem_certificate", (), ("exact",), "SPEC 7.4"),
    _control_row("theorem_rows", MEM_ROUTES_CONTROL, "control_mem_routes", (), ("exact",), "SPEC 7.4"),
    _control_row("theorem_rows", MEMBERSHIP_CONTROL, "control_membership", (), METHODS, "SPEC 7"),
    _control_row("theorem_rows", "optimality row: z_F6 with c of one block doubled", "control_optimality_row",
             (_ODD_F6,), METHODS, "SPEC 7.1"),
    _control_row("theorem_rows", NODE_CONTROL, "control_node_counts", (_ODD_F6,), METHODS, "SPEC 7"),
    _control_row("theorem_rows", OCCAM_CONTROL, "control_occam", (_ODD_F6,), ("exact",), "SPEC 7"),
    _unseen("block route: hat read per node", "control_hat_per_node", (_PAIR, _TWO_PAIRS)),
    _unseen("block route: hat on an order-6 block with nu = 2", "control_hat_nu2", (_PAIR, _TWO_PAIRS)),
    _unseen("block route: unbalanced nodes", "control_unbalanced", (_PAIR,)),
    _unseen("block route: irrational loss", "control_irrational_loss", (_PAIR,), section="SPEC 5-6"),
    _unseen("z_M, U_b node 0 reading b = -1 at frequency 0", "control_mem_zero_frequency", (), section="SPEC 5, 7.4"),
    _unseen("exact zero test and route comparison: undecidable and conflicting inputs", "control_zero_test_unseen",
            (), ("exact",), "SPEC 5-7"),
    *(_control_row("trained_verdict", name, control_name(name), ((trained_applies, TRAINED_WHY),), ("exact",),
                   "SPEC 5-7.3") for name in TRAINED_CONTROLS),
)


def controls_for(group: Any, with_kwargs: bool = False) -> list:
    """The control functions that apply to the group (at least two for every group): a query over
    :data:`CONTROL_ROWS`.

    Groups with a pair ``k != -k`` get the block controls; the two z_M controls run on every group (z_M built
    in full up to order :data:`cogo.proofs.controls.broken_constructions.MEM_CONTROL_MAX_ORDER`, its integer point counts
    above: :mod:`cogo.proofs.certificates.mem_points`).

    Returns
    -------
    list
        The control functions, or ``(function, kwargs)`` pairs with ``with_kwargs=True`` (``kwargs``
        ``{"methods": ("exact",)}`` for a control with no numeric form).

    Examples
    --------
    >>> [f.__name__ for f in controls_for(2)][2:9]         # Z_2: no pair k != -k: the z_M controls, then
    ['control_exact_zero_test', 'control_formal', 'control_equality', 'control_mem_node_counts', 'control_mem_certificate', 'control_mem_routes', 'control_membership']
    >>> len(controls_for(7))          # 6 + 7 block-route + zero test + formal + equality + three z_M rows + row 5 + rows 6, 7, 8, + 6 + 7 verdicts
    36
    >>> [f.__name__ for f in controls_for(2)][9:]          # and those of cogo.proofs.controls.unseen_inputs
    ['control_mem_zero_frequency', 'control_zero_test_unseen']
    """
    G = as_group(group)
    out = [(row.fn, {} if row.methods == METHODS else {"methods": row.methods})
           for row in CONTROL_ROWS if row.applies(G)]
    return out if with_kwargs else [fn for fn, _ in out]


def theorem_list(group: Any, full_loss: bool = False) -> list:
    """``(function, kwargs)`` for every check that applies to the group, theorems first, then controls.

    Even groups get theorems 1-5, z_M optimality, node counts and Occam's razor
    (with z_M); the order-6/4 constructions need odd order.  Every group runs at
    least two negative controls (:func:`controls_for`).

    Examples
    --------
    >>> [f.__name__ for f, kwargs in theorem_list(4)][:5]   # theorems first, then the controls
    ['semiring_laws', 'homomorphism', 'loss_decomposition', 'composition', 'membership_table']
    >>> sum(f.__name__.startswith("control") for f, kwargs in theorem_list(4))   # 4 + 6 block-route + zero + formal + equality + three z_M rows + row 5 + 4 unseen
    21
    """
    G = as_group(group)
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

    Examples
    --------
    >>> skipped(5)
    []
    >>> skipped(4)[0]
    '6. optimality of z_F6 (needs odd order: every k != 0 distinct from -k)'
    >>> skipped(127)                  # every control runs (z_M's: point counts and Parseval above 31)
    []
    """
    G = as_group(group)
    return skipped_rows(THEOREMS, G, method) + skipped_rows(CONTROL_ROWS, G, method)


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def run_all(group: Any = 23, method: str = "both", progress: Callable | None = None,
            full_loss: bool = False) -> list[TheoremResult]:
    """Run every theorem (exact, numeric or both) and every negative control on ``group``.

    Returns the list of :class:`TheoremResult`, in the order of
    :func:`theorem_list`, exact before numeric.  ``progress(result)`` is
    called after each check.  ``full_loss=True`` computes the exact general
    loss of every construction even above :data:`cogo.proofs.theorems.optimality.GENERAL_LOSS_MAX_ORDER`.

    Examples
    --------
    >>> results = run_all(2, method="numeric")              # Z_2: theorems, the three z_M controls and row 5's
    >>> len(results), all(r.passed for r in results), sum(r.negative_control for r in results)
    (12, True, 4)
    """
    methods = methods_of(method)
    G = as_group(group)
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
