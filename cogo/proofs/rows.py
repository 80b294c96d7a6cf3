"""A row of a check registry: one theorem or control, when it applies and how it is run.

The semiring theorems (:data:`cogo.proofs.registry.THEOREMS`), their negative controls
(:data:`cogo.proofs.registry.CONTROL_ROWS`) and the Li^2 checks (:data:`cogo.li2.theorems.LI2_THEOREMS`) are
tuples of :class:`Row`; every runner and skip list is a query over them.  This module imports nothing of
cogo's but the method names, so every registry can import it.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from cogo.proofs.results import METHODS

__all__ = ["Row", "methods_of", "skipped_rows"]


@dataclass(frozen=True)
class Row:
    """One row of a check registry (module docstring): a theorem or a control, and when it applies.

    ``number``/``title`` as printed, ``section`` of SPEC; ``body`` the name of its function in ``module``
    (a keyword every row names; looked up at each run, so a patched function is the one run); ``methods`` the methods it has (a runner
    asked for another skips it); ``shared`` names the inputs it takes from its runner, computed once per run
    for every row (the Li^2 rows share one ascent run and its seed); ``requires`` the conditions on the
    group, each ``(predicate, reason)``: the row applies when every predicate holds, and :meth:`why_not`
    gives the first failing reason.  Each runner calls the body its own way:
    :func:`cogo.proofs.registry.run_all` as ``body(G, method=m, **kwargs)`` for each method ``m`` of the row,
    :func:`cogo.li2.theorems.run_li2` as ``body(G, **kwargs, **shared)`` (a Li^2 row has one method).
    """

    number: int | str
    title: str
    section: str
    body: str
    kwargs: dict = field(default_factory=dict)
    requires: tuple[tuple[Callable[[Any], bool], str], ...] = ()
    module: str = field(kw_only=True)
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
        """Whether every condition of ``requires`` holds for the group ``G``."""
        return all(pred(G) for pred, _ in self.requires)

    def why_not(self, G: Any) -> str:
        """The reason of the first condition of ``requires`` that ``G`` fails (``""`` when the row applies)."""
        return next((why for pred, why in self.requires if not pred(G)), "")


def methods_of(method: str) -> tuple[str, ...]:
    """``(method,)`` for ``"exact"`` or ``"numeric"``, ``("exact", "numeric")`` for ``"both"`` (else a one-line ``ValueError``)."""
    if method not in ("both", *METHODS):
        raise ValueError(f"method must be 'exact', 'numeric' or 'both', got {method!r}")
    return tuple(METHODS) if method == "both" else (method,)


def skipped_rows(rows: tuple[Row, ...], G: Any, method: str = "both") -> list[str]:
    """One line per row of ``rows`` with a method asked for that does not apply to ``G``, with its reason.

    Returns
    -------
    list of str
        ``"<label>[, <methods>] (<reason>)"``; the methods are named when the row does not have both.

    Examples
    --------
    >>> odd = (lambda G: G % 2 == 1, "needs odd order")
    >>> rows = (Row(1, "a", "SPEC 1", "f", requires=(odd,), module="m"),
    ...         Row("control", "b", "SPEC 1", "g", methods=("exact",), module="m"))
    >>> skipped_rows(rows, 4), skipped_rows(rows, 5)
    (['1. a (needs odd order)'], [])
    """
    wanted = set(methods_of(method))
    return [f"{row.label}{'' if tuple(row.methods) == tuple(METHODS) else ', ' + '/'.join(row.methods)} "
            f"({row.why_not(G)})" for row in rows if wanted & set(row.methods) and not row.applies(G)]
