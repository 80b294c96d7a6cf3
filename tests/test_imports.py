"""The import graph of cogo/ has no cycle: every module can be read bottom-up.

The graph is built from the source text (``ast``), counting imports inside functions too: a
function-level import that closes a circle is still a circle in the design, only deferred.
"""
import ast
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1] / "cogo"


def _modules() -> dict[str, Path]:
    out = {}
    for p in ROOT.rglob("*.py"):
        parts = p.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def import_graph() -> nx.DiGraph:
    mods = _modules()
    g = nx.DiGraph()
    for name, path in mods.items():
        g.add_node(name)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            g.add_edges_from((name, t) for t in targets if t in mods and t != name)
    return g


def test_the_graph_sees_imports():
    """The walker itself can fail: known edges are found (else an empty graph would pass)."""
    g = import_graph()
    assert g.has_edge("cogo.cli", "cogo.runtime.errors")
    assert g.has_edge("cogo.algebra.loss", "cogo.algebra.network") or g.out_degree("cogo.algebra.loss") > 0
    assert g.number_of_edges() > 50


def test_no_import_cycle():
    """No cycle at all.  (The last one, cogo.solvers.training <-> cogo.solvers.training_options, went when the
    batched trainer moved into cogo.solvers.batch, which the options subclass.)"""
    cycles = sorted(nx.simple_cycles(import_graph()), key=len)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join([*c, c[0]]) for c in cycles[:10])


def test_the_check_fails_on_a_cycle_in_the_tree(tmp_path, monkeypatch):
    """The check above fails when two modules of a tree import each other (a function-level import counts)."""
    pkg = tmp_path / "cogo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("import cogo.b\n")
    (pkg / "b.py").write_text("def f():\n    from cogo.a import x\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", pkg)
    assert [sorted(c) for c in nx.simple_cycles(import_graph())] == [["cogo.a", "cogo.b"]]
