"""The floors of cogo (docs/architecture.md): every import runs down, none up, and no module imports itself back.

Read from the source with :mod:`ast` (nothing is imported): every ``import cogo...`` and ``from cogo... import``,
at module level or inside a function, is an arrow.  A floor may import any floor below it and its own, never one
above; inside a floor, modules form no cycle.  ``python tests/test_layers.py`` prints the floors and the arrows
between them (the picture of docs/architecture.md).
"""
from __future__ import annotations

import ast
import collections
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The floors, bottom first: (name, module prefixes).  A module belongs to the floor of its longest prefix.
FLOORS = (
    ("runtime", ("cogo.runtime", "cogo._version")),
    ("algebra", ("cogo.algebra",)),
    ("io", ("cogo.io",)),
    ("catalogue", ("cogo.catalogue",)),
    ("solvers", ("cogo.solvers",)),
    ("analysis", ("cogo.analysis",)),
    ("dynamics", ("cogo.dynamics",)),
    ("proofs", ("cogo.proofs",)),
    ("li2", ("cogo.li2",)),
    ("api", ("cogo.api",)),
    ("commands", ("cogo.commands", "cogo.cli")),
    ("package", ("cogo",)),
)
RANK = {name: i for i, (name, _) in enumerate(FLOORS)}
MAX_MODULE_LINES = 800


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(source: str, module: str, is_package: bool = False, root: Path = ROOT) -> list[tuple[str, int, bool]]:
    """``(imported module, line, inside a function)`` for every cogo import of ``source``."""
    package = module if is_package else module.rpartition(".")[0]
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                if target == "cogo" or target.startswith("cogo."):
                    # ``from cogo.x import y``: y may itself be a module (cogo.x.y)
                    for alias in child.names:
                        sub = f"{target}.{alias.name}"
                        found.append((sub if (root / (sub.replace('.', '/') + '.py')).exists()
                                      or (root / sub.replace('.', '/')).is_dir() else target, child.lineno, inner))
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name == "cogo" or alias.name.startswith("cogo."):
                        found.append((alias.name, child.lineno, inner))
            visit(child, inner)

    visit(ast.parse(source), False)
    return found


def floor_of(module: str) -> str:
    best, floor = "", None
    for name, prefixes in FLOORS:
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > len(best):
                best, floor = p, name
    if floor is None:
        raise AssertionError(f"{module} is on no floor: add it to FLOORS")
    return floor


def graph(root: Path = ROOT) -> dict[str, list[tuple[str, int, bool]]]:
    out = {}
    for path in sorted((root / "cogo").rglob("*.py")):
        m = module_name(path, root)
        out[m] = imports_of(path.read_text(), m, path.name == "__init__.py", root)
    return out


def back_arrows(g: dict) -> list[str]:
    return [f"{a}:{line} -> {b} ({floor_of(a)} imports {floor_of(b)}, a floor above it)"
            for a, targets in g.items() for b, line, _ in targets if RANK[floor_of(b)] > RANK[floor_of(a)]]


def cycles(g: dict) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), over modules of cogo."""
    adj = {a: sorted({b for b, _, _ in ts if b in g and b != a and not a.startswith(b + ".")}) for a, ts in g.items()}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in adj:
        if v not in index:
            strong(v)
    return out


def test_the_check_sees_a_back_arrow_and_a_cycle(tmp_path):
    pkg = tmp_path / "cogo"
    (pkg / "algebra").mkdir(parents=True)
    (pkg / "proofs").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "algebra" / "__init__.py").write_text("")
    (pkg / "proofs" / "__init__.py").write_text("")
    (pkg / "algebra" / "a.py").write_text("def f():\n    from cogo.proofs.b import g\n")
    (pkg / "proofs" / "b.py").write_text("from cogo.proofs import c\n")
    (pkg / "proofs" / "c.py").write_text("import cogo.proofs.b\n")
    g = graph(tmp_path)
    assert back_arrows(g) == ["cogo.algebra.a:2 -> cogo.proofs.b (algebra imports proofs, a floor above it)"]
    assert cycles(g) == [["cogo.proofs.b", "cogo.proofs.c"]]


def test_no_import_runs_up_a_floor():
    assert back_arrows(graph()) == []


def test_no_import_cycle():
    assert cycles(graph()) == []


def unmarked_late_imports(source: str, module: str) -> list[int]:
    """Lines of imports of cogo inside a function that do not say why they are late (``# late: <reason>``)."""
    lines = source.splitlines()
    tree = ast.parse(source)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and node.col_offset > 0:
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            if any(n == "cogo" or n.startswith("cogo.") for n in names) and not any(
                    "# late:" in lines[i] for i in range(node.lineno - 1, node.end_lineno)):
                out.append(node.lineno)
    return out


def test_the_late_import_check_sees_an_unmarked_one():
    src = "def f():\n    from cogo.io import outputs\n    from cogo.io import weights  # late: start-up\n"
    assert unmarked_late_imports(src, "cogo.x") == [2]


@pytest.mark.parametrize("path", sorted((ROOT / "cogo").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_late_import_says_why(path):
    """Imports sit at the top; one inside a function carries ``# late: <reason>`` (``grep -rn "# late:" cogo``)."""
    assert unmarked_late_imports(path.read_text(), module_name(path)) == []


@pytest.mark.parametrize("path", sorted((ROOT / "cogo").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_under_800_lines(path):
    assert path.read_text().count("\n") <= MAX_MODULE_LINES


def picture(g: dict) -> str:
    """The floors top down, each with its lines and the floors it imports (arrow counts)."""
    lines = collections.Counter()
    for path in (ROOT / "cogo").rglob("*.py"):
        lines[floor_of(module_name(path))] += path.read_text().count("\n")
    arrows = collections.Counter((floor_of(a), floor_of(b)) for a, ts in g.items() for b, _, _ in ts
                                 if floor_of(a) != floor_of(b))
    rows = []
    for name, _ in reversed(FLOORS):
        down = ", ".join(f"{b} {n}" for (a, b), n in sorted(arrows.items(), key=lambda kv: -RANK[kv[0][1]]) if a == name)
        rows.append(f"{name:<10} {lines[name]:>6} lines  -> {down or '(nothing of cogo)'}")
    return "\n".join(rows)


if __name__ == "__main__":
    g = graph()
    print(picture(g))
    print(f"back arrows: {len(back_arrows(g))}, cycles: {len(cycles(g))}")
