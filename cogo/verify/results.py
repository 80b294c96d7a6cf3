"""Results of the theorem checks: the :class:`TheoremResult` record, a text table and JSON."""
from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

__all__ = ["TheoremResult", "Timer", "format_table", "results_to_json", "all_ok", "plain"]


@dataclass
class TheoremResult:
    """The outcome of one check.

    ``passed`` means "the statement was proven/confirmed"; for a negative
    control (``negative_control=True``) it means "the broken object was
    caught failing".  ``residual`` is the largest residual of the identities
    checked (0.0 when an exact check proved every one exactly 0; for a
    negative control, the largest residual of the conditions that fail).
    ``method`` is ``"exact"`` (sympy / exact integer arithmetic, no floats)
    or ``"numeric"`` (complex128/float64, tolerance stated in ``statement``).
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
        d = asdict(self)
        d["passed"] = bool(self.passed)
        d["residual"] = _finite(float(self.residual))
        d["seconds"] = float(self.seconds)
        d["details"] = plain(self.details)
        return d

    @property
    def status(self) -> str:
        if self.negative_control:
            return "CAUGHT" if self.passed else "MISSED"
        return "PASS" if self.passed else "FAIL"


def _finite(x: float):
    return x if math.isfinite(x) else str(x)


def plain(obj: Any) -> Any:
    """``obj`` with numpy and sympy values turned into JSON-able Python values."""
    import numpy as np

    try:
        import sympy
    except ImportError:  # pragma: no cover
        sympy = None
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return _finite(float(obj))
    if isinstance(obj, (complex, np.complexfloating)):
        return [float(obj.real), float(obj.imag)]
    if isinstance(obj, np.ndarray):
        return plain(obj.tolist())
    if sympy is not None and isinstance(obj, sympy.Basic):
        return str(obj)
    if obj is None or isinstance(obj, str):
        return obj
    return str(obj)


class Timer:
    """``with Timer() as t: ...``; ``t.seconds`` afterwards."""

    def __enter__(self):
        self.t0 = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0
        return False


def all_ok(results: Iterable[TheoremResult]) -> bool:
    """True iff every theorem passed and every negative control was caught."""
    return all(r.passed for r in results)


def format_table(results: list[TheoremResult]) -> str:
    """A readable table: theorem, method, status, residual, seconds; then one line per negative control."""
    rows = [("theorem", "method", "status", "residual", "seconds")]
    for r in results:
        name = ("control: " if r.negative_control else "") + r.name
        rows.append((name, r.method, r.status, f"{r.residual:.3g}", f"{r.seconds:.2f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = []
    for i, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if j < 3 else c.rjust(w) for j, (c, w) in enumerate(zip(row, widths))))
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    controls = [r for r in results if r.negative_control]
    if controls:
        lines.append("")
        lines.append("negative controls (must fail):")
        for r in controls:
            fails = ", ".join(r.details.get("failing_conditions", [])) or "none"
            loss = r.details.get("loss")
            loss_s = f"{loss:.6g}" if isinstance(loss, float) else str(loss)
            exact = r.details.get("loss_exact")
            extra = f" (exactly {exact})" if exact is not None else ""
            lines.append(f"  {r.name} [{r.method}]: fails {fails}; loss {loss_s}{extra}")
    n_thm = sum(1 for r in results if not r.negative_control)
    n_ok = sum(1 for r in results if not r.negative_control and r.passed)
    n_c = len(controls)
    n_caught = sum(1 for r in controls if r.passed)
    total = sum(r.seconds for r in results)
    lines.append("")
    lines.append(f"{n_ok}/{n_thm} theorems pass, {n_caught}/{n_c} negative controls caught, {total:.1f} s")
    return "\n".join(lines)


def results_to_json(results: list[TheoremResult]) -> str:
    """The results as a JSON list of objects (``name``, ``statement``, ``method``, ``passed``,
    ``residual``, ``seconds``, ``negative_control``, ``details``)."""
    return json.dumps([r.to_dict() for r in results], indent=2) + "\n"
