"""Results of the theorem checks: the :class:`TheoremResult` record, a text table and JSON.

Tables and JSON go through :mod:`cogo.io.tables` (one renderer, one encoder;
non-finite numbers become ``null``).

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterable

from cogo.io.tables import dumps_json, render_table, to_plain

__all__ = ["TheoremResult", "Timer", "format_table", "results_to_json", "all_ok", "METHODS", "RESULT_METHODS",
           "LOSS_TOL", "NUM_TOL", "COND_TOL", "check_method", "make_result"]

#: The methods a check can be asked to run.
METHODS = ("exact", "numeric")
#: The method a result reports: ``exact`` (a proof for the group named), ``exact-instances`` (exact
#: arithmetic on the instances the statement lists), ``numeric`` (float64/complex128, stated tolerance).
RESULT_METHODS = ("exact", "exact-instances", "numeric")
#: Numeric threshold for "loss 0": the real-space loss on all pairs, float64.
LOSS_TOL = 1e-20
#: Numeric tolerance for identities between complex128 quantities (relative to their scale).
NUM_TOL = 1e-10
#: Numeric threshold above which a condition residual counts as failing.
COND_TOL = 1e-9


@dataclass
class TheoremResult:
    """The outcome of one check.

    ``passed`` means "the statement was proven/confirmed"; for a negative
    control (``negative_control=True``) it means "the broken object was
    caught failing exactly as predicted" (the named conditions fail and the
    loss equals the independently computed value).  ``residual`` is the
    largest residual of the identities checked (0.0 when an exact check proved
    every one exactly 0; for a negative control, the largest residual of the
    conditions that fail).  ``method``: see :data:`RESULT_METHODS`.

    >>> r = TheoremResult("r(1) = 1", "the potential of the one network is 1", "exact", True, 0.0, 0.01)
    >>> r.passed, r.negative_control, all_ok([r])
    (True, False, True)
    """

    name: str
    statement: str
    method: str
    passed: bool
    residual: float
    seconds: float
    negative_control: bool = False
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return to_plain({"name": self.name, "statement": self.statement, "method": self.method,
                         "passed": bool(self.passed), "residual": float(self.residual),
                         "seconds": float(self.seconds), "negative_control": bool(self.negative_control),
                         "details": self.details})

    @property
    def status(self) -> str:
        if self.negative_control:
            return "CAUGHT" if self.passed else "MISSED"
        return "PASS" if self.passed else "FAIL"


class Timer:
    """``with Timer() as t: ...``; ``t.seconds`` afterwards.

    >>> with Timer() as t:
    ...     total = sum(range(1000))
    >>> t.seconds >= 0.0
    True
    """

    def __enter__(self):
        self.t0 = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0
        return False


def check_method(method: str) -> str:
    """``method`` if it is ``exact`` or ``numeric``; ValueError otherwise.

    Raises
    ------
    ValueError
        ``method`` is neither ``'exact'`` nor ``'numeric'``.

    Examples
    --------
    >>> check_method("exact")
    'exact'
    >>> check_method("fuzzy")
    Traceback (most recent call last):
    ...
    ValueError: method must be 'exact' or 'numeric', got 'fuzzy'
    """
    if method not in METHODS:
        raise ValueError(f"method must be 'exact' or 'numeric', got {method!r}")
    return method


def make_result(name, statement, method, passed, residual, t: Timer, negative_control=False,
                **details) -> TheoremResult:
    """A :class:`TheoremResult` from a finished :class:`Timer`.

    Returns
    -------
    TheoremResult
        With ``seconds`` the timer's elapsed time and ``details`` the keyword arguments beyond those named.

    Raises
    ------
    ValueError
        ``method`` is not one of :data:`RESULT_METHODS`.

    Examples
    --------
    >>> with Timer() as t:
    ...     residual = abs(sum([1, -1]))
    >>> r = make_result("demo", "1 - 1 = 0", "exact", residual == 0, float(residual), t, terms=2)
    >>> r.passed, r.residual, r.details
    (True, 0.0, {'terms': 2})
    """
    if method not in RESULT_METHODS:
        raise ValueError(f"result method must be one of {RESULT_METHODS}, got {method!r}")
    return TheoremResult(name=name, statement=statement, method=method, passed=bool(passed),
                         residual=float(residual), seconds=t.seconds, negative_control=negative_control,
                         details=details)


def all_ok(results: Iterable[TheoremResult]) -> bool:
    """True iff every theorem passed and every negative control was caught.

    Examples
    --------
    >>> ok = TheoremResult("theorem", "...", "exact", True, 0.0, 0.0)
    >>> missed = TheoremResult("control", "...", "exact", False, 0.0, 0.0, negative_control=True)   # not caught
    >>> all_ok([ok]), all_ok([ok, missed])
    (True, False)
    """
    return all(r.passed for r in results)


def format_table(results: list[TheoremResult]) -> str:
    """A readable table: theorem, method, status, residual, seconds; then one line per negative control.

    Returns
    -------
    str
        The table of the theorems, then the controls' lines, then a summary line (passes, controls caught,
        total seconds).

    Examples
    --------
    >>> print(format_table([TheoremResult("r(1) = 1", "...", "exact", True, 0.0, 0.01)]))
    theorem   method  status  residual  seconds
    --------  ------  ------  --------  -------
    r(1) = 1  exact   PASS    0         0.01
    <BLANKLINE>
    1/1 theorems pass, 0/0 negative controls caught, 0.0 s
    """
    rows = []
    for r in results:
        name = ("control: " if r.negative_control else "") + r.name
        rows.append((name, r.method, r.status, f"{r.residual:.3g}", f"{r.seconds:.2f}"))
    lines = [render_table(["theorem", "method", "status", "residual", "seconds"], rows)]
    controls = [r for r in results if r.negative_control]
    if controls:
        lines.append("")
        lines.append("negative controls (must fail exactly as predicted):")
        for r in controls:
            d = r.details
            fails = ", ".join(d.get("failing_conditions", [])) or "none"
            want = ", ".join(d.get("expected_failing", []))
            line = f"  {r.name} [{r.method}]: fails {fails}" + (f" (expected {want})" if want else "")
            if d.get("loss") is not None or d.get("expected_loss") is not None:  # the SPEC 9 controls state no loss
                line += f"; loss {d.get('loss')} (expected {d.get('expected_loss')})"
            lines.append(line)
    n_thm = sum(1 for r in results if not r.negative_control)
    n_ok = sum(1 for r in results if not r.negative_control and r.passed)
    n_caught = sum(1 for r in controls if r.passed)
    total = sum(r.seconds for r in results)
    lines.append("")
    lines.append(f"{n_ok}/{n_thm} theorems pass, {n_caught}/{len(controls)} negative controls caught, {total:.1f} s")
    return "\n".join(lines)


def results_to_json(results: list[TheoremResult]) -> str:
    """The results as a JSON list of objects (``name``, ``statement``, ``method``, ``passed``,
    ``residual``, ``seconds``, ``negative_control``, ``details``), indented by 2.

    Examples
    --------
    >>> import json
    >>> doc = json.loads(results_to_json([TheoremResult("r(1) = 1", "...", "exact", True, 0.0, 0.01)]))
    >>> doc[0]["name"], doc[0]["passed"], sorted(doc[0])[:3]
    ('r(1) = 1', True, ['details', 'method', 'name'])
    """
    return dumps_json([r.to_dict() for r in results], indent=2)
