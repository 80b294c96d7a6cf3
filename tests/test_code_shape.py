"""The shape of the code: no function in cogo/ is longer than 80 lines (a function a reader can hold).

Checked from the source (no import). A long function is split into named steps, each with its own
docstring, rather than allowed here.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 80


def long_functions(source: str, limit: int = MAX_LINES) -> list[tuple[str, int]]:
    """``(name, lines)`` of every function (nested ones too) longer than ``limit`` lines."""
    return [(n.name, n.end_lineno - n.lineno + 1) for n in ast.walk(ast.parse(source))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno + 1 > limit]


def test_the_check_catches_a_long_function():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    assert long_functions(f"def f():\n{body}\n") == [("f", MAX_LINES + 1)]
    assert long_functions(f"def f():\n{body}\n", limit=MAX_LINES + 1) == []


@pytest.mark.parametrize("path", sorted((ROOT / "cogo").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_function_over_80_lines(path):
    assert long_functions(path.read_text()) == []
