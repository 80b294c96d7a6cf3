"""A seeded sample of AST mutants of cogo's proof machinery, each shown to ``cogo verify`` (the mutation score).

Every mutant changes one operator or constant inside one function of a target module (``==`` <-> ``!=``,
``<`` <-> ``<=``, ``>`` <-> ``>=``, ``is`` <-> ``is not``, ``in`` <-> ``not in``, ``and`` <-> ``or``, ``+`` <-> ``-``,
``*`` <-> ``/``, ``not x`` -> ``x``, an integer ``c`` -> ``c + 1``, ``True`` <-> ``False``).  The mutated function
is compiled into its own module and patched in, with every ``from ... import`` binding of it (as
``tests/test_mutations.py`` does), the caches emptied, then the rows of ``cogo verify --group G --exact`` run
(controls first) until the first FAIL or MISSED row: **killed** when one fails (or verify raises, or runs past
``--timeout`` seconds), **survived** otherwise.  Functions with decorators other than ``property`` are left out
(the decorator would be lost), and so are module-level statements.

    python benchmarks/mutation_sample.py --per-module 8 --seed 38 \\
        cogo/proofs/certificates/exact_zero.py cogo/algebra/potentials.py cogo/proofs/controls/unseen_inputs.py

writes ``benchmarks/results/mutation_sample.json`` (``--out``): per mutant its module, function, line, the change
and the outcome (the first failing row), and the score per module.  Survivors are to be read by hand: an
equivalent mutant (no input can tell it apart), one only a unit test sees, or a hole in the verifier.
"""
from __future__ import annotations

import argparse
import ast
import copy
import importlib
import inspect
import json
import platform
import random
import signal
import sys
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_SWAP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
         ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.And: ast.Or, ast.Or: ast.And,
         ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}


def _sites(fn: ast.AST) -> list:
    """Every mutation site of a function: ``(path to the node, kind, index)``, in a fixed walk order."""
    out = []
    for i, node in enumerate(ast.walk(fn)):
        if isinstance(node, ast.Compare):
            out += [(i, "cmp", j) for j, op in enumerate(node.ops) if type(op) in _SWAP]
        elif isinstance(node, (ast.BoolOp, ast.BinOp)) and type(node.op) in _SWAP:
            out.append((i, "op", 0))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((i, "not", 0))
        elif isinstance(node, ast.Constant) and type(node.value) in (int, bool):
            out.append((i, "const", 0))
    return out


def _apply(fn: ast.AST, site: tuple) -> tuple[ast.AST, str]:
    """A copy of ``fn`` with the mutation ``site`` applied, and a one-line description."""
    fn = copy.deepcopy(fn)
    i, kind, j = site
    node = list(ast.walk(fn))[i]
    before = ast.unparse(node)
    if kind == "cmp":
        node.ops[j] = _SWAP[type(node.ops[j])]()
    elif kind == "op":
        node.op = _SWAP[type(node.op)]()
    elif kind == "not":
        node.op = ast.UAdd()  # placeholder, replaced below by the operand itself
    else:
        node.value = (not node.value) if isinstance(node.value, bool) else node.value + 1
    if kind == "not":
        for parent in ast.walk(fn):
            for field, value in ast.iter_fields(parent):
                if value is node:
                    setattr(parent, field, node.operand)
                elif isinstance(value, list):
                    parent_list = value
                    for k, v in enumerate(parent_list):
                        if v is node:
                            parent_list[k] = node.operand
        after = ast.unparse(node.operand)
    else:
        after = ast.unparse(node)
    return fn, f"line {getattr(node, 'lineno', '?')}: {before}  ->  {after}"


def _functions(module: types.ModuleType) -> list:
    """``(owner, name, ast of the def)`` of every top-level function and class method of ``module``."""
    tree = ast.parse(inspect.getsource(module))
    out = []
    for node in tree.body:
        defs = [(module, node)] if isinstance(node, ast.FunctionDef) else \
            [(getattr(module, node.name), d) for d in node.body if isinstance(d, ast.FunctionDef)] \
            if isinstance(node, ast.ClassDef) and hasattr(module, node.name) else []
        for owner, d in defs:
            decos = [ast.unparse(x) for x in d.decorator_list]
            if all(x == "property" for x in decos) and hasattr(owner, d.name):
                out.append((owner, d.name, d))
    return out


def _install(owner, name: str, fn_ast: ast.AST, module: types.ModuleType, undo: list) -> None:
    """Compile the mutated def into the module's namespace and patch it in wherever it is bound."""
    fn_ast = copy.deepcopy(fn_ast)
    fn_ast.decorator_list = []
    ns = dict(vars(module))
    exec(compile(ast.Module(body=[fn_ast], type_ignores=[]), f"<mutant of {name}>", "exec"), ns)
    obj = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
    new = property(ns[name]) if isinstance(obj, property) else ns[name]
    targets = [owner] + [m for m in list(sys.modules.values())
                         if getattr(m, "__name__", "").startswith("cogo") and getattr(m, name, None) is obj
                         and m is not owner]
    for t in targets:
        undo.append((t, name, obj))
        setattr(t, name, new)


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _verdict(group, timeout: int) -> str | None:
    """The first FAIL/MISSED row of ``cogo verify --group G --exact`` (controls first), or None."""
    from cogo.proofs import registry
    from cogo.proofs.results import METHODS

    rows = registry.theorem_list(group)
    rows = [r for r in rows if r[0].__name__.startswith("control")] + \
        [r for r in rows if not r[0].__name__.startswith("control")]
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        for fn, kw in rows:
            kw = dict(kw)
            if "exact" not in kw.pop("methods", METHODS):
                continue
            r = fn(group, method="exact", **kw)
            if not r.passed:
                return f"{r.status}: {r.name}"
    except _Timeout:
        return f"timeout after {timeout} s"
    except Exception as exc:  # a crash of verify is a non-zero exit
        return f"error: {type(exc).__name__}: {str(exc)[:120]}"
    finally:
        signal.alarm(0)
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="target modules, as paths under the repository root")
    ap.add_argument("--per-module", type=int, default=8, help="mutants sampled per module (seeded)")
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--group", default="23")
    ap.add_argument("--timeout", type=int, default=240, help="seconds per mutant before it counts as killed")
    ap.add_argument("--deadline", type=float, default=0.0, help="stop starting mutants after this Unix time")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "mutation_sample.json"))
    args = ap.parse_args(argv)
    from cogo.proofs.theorems import optimality as TO

    group = int(args.group) if args.group.isdigit() else args.group
    rng = random.Random(args.seed)
    results, t0 = [], time.time()
    for path in args.files:
        name = path.removesuffix(".py").replace("/", ".")
        module = importlib.import_module(name)
        sites = [(owner, fname, d, s) for owner, fname, d in _functions(module) for s in _sites(d)]
        for owner, fname, d, site in rng.sample(sites, min(args.per_module, len(sites))):
            if args.deadline and time.time() > args.deadline:
                break
            mutated, change = _apply(d, site)
            undo: list = []
            t = time.time()
            try:
                _install(owner, fname, mutated, module, undo)
                TO.clear_caches()
                outcome = _verdict(group, args.timeout)
            except Exception as exc:  # the mutant does not even compile or install: not counted
                outcome = f"not installed: {type(exc).__name__}: {exc}"
            finally:
                for tgt, attr, obj in reversed(undo):
                    setattr(tgt, attr, obj)
                TO.clear_caches()
            row = {"module": name, "function": fname, "line": getattr(d, "lineno", 0), "change": change,
                   "killed_by": outcome, "killed": outcome is not None and not outcome.startswith("not installed"),
                   "seconds": round(time.time() - t, 1), "sites_in_module": len(sites)}
            results.append(row)
            print(f"{'KILLED ' if row['killed'] else 'SURVIVED'} {name}.{fname}: {change} [{outcome}] "
                  f"({row['seconds']} s)", flush=True)
    score = {}
    for r in results:
        s = score.setdefault(r["module"], {"killed": 0, "sampled": 0, "sites": r["sites_in_module"]})
        s["sampled"] += not r["killed_by"] or not r["killed_by"].startswith("not installed")
        s["killed"] += r["killed"]
    doc = {"command": " ".join(sys.argv), "group": str(group), "seed": args.seed, "machine": platform.node(),
           "python": platform.python_version(), "seconds": round(time.time() - t0, 1), "score": score,
           "mutants": results}
    Path(args.out).write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(score))
    return 0


if __name__ == "__main__":
    sys.exit(main())
