"""Docstrings in one style (numpydoc), checked without importing cogo.

* Every numpydoc section header is underlined with dashes of its own length, and doctest examples
  that follow a section are in the ``Examples`` section (numpydoc puts it last).
* Every citation ``.. [n] ...`` in a docstring is one line, and that line is one of the one-line
  citations of ``docs/references.md``: the bibliography is defined in one place.
* The papers a module follows are cited once, in its docstring; a function or class cites only what
  its module does not (a References section repeated in every function is boilerplate).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ("Parameters", "Returns", "Yields", "Raises", "Warns", "See Also", "Notes", "References",
            "Examples", "Attributes", "Other Parameters", "Methods")
_HEADER = re.compile(r"^(\s*)(" + "|".join(SECTIONS) + r")\s*\n\1(-+)\s*$", re.M)
_CITE = re.compile(r"^\s*\.\. \[\d+\] (.*)$")


def _modules():
    return sorted((ROOT / "cogo").rglob("*.py"))


def bad_underlines(doc: str) -> list[str]:
    """Section headers whose dash line is not as long as the header."""
    return [m.group(2) for m in _HEADER.finditer(doc) if len(m.group(3)) != len(m.group(2))]


def examples_outside_examples(doc: str) -> bool:
    """Whether doctest lines follow a numpydoc section other than ``Examples`` (they would render inside it)."""
    heads = list(_HEADER.finditer(doc))
    if not heads:
        return False
    last = heads[-1]
    return last.group(2) != "Examples" and ">>>" in doc[last.end():]


def citation_lines(doc: str) -> list[tuple[str, str | None]]:
    """``(citation, following line)`` for every ``.. [n]`` entry of a docstring."""
    lines = doc.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = _CITE.match(line)
        if m:
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            cont = nxt if nxt.strip() and not _CITE.match(nxt) and nxt.startswith(" " * (len(line) - len(line.lstrip()) + 3)) else None
            out.append((m.group(1).strip(), cont))
    return out


def _bibliography() -> set[str]:
    text = (ROOT / "docs" / "references.md").read_text()
    return set(re.findall(r"^\| \w+ \| `(.+)` \|$", text, re.M))


def _docstrings(tree: ast.Module):
    yield "module", ast.get_docstring(tree) or ""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, ast.get_docstring(node) or ""


def redundant_references(source: str) -> list[str]:
    """Functions and classes whose References cite only papers the module's own References cite."""
    tree = ast.parse(source)
    module = {c for c, _ in citation_lines(ast.get_docstring(tree) or "")}
    out = []
    for name, doc in list(_docstrings(tree))[1:]:
        cites = {c for c, _ in citation_lines(doc)}
        if cites and cites <= module:
            out.append(name)
    return out


# ------------------------------------------------------------------ the checks can fail
def test_the_checks_catch_what_they_are_for():
    assert bad_underlines("Returns\n----\nint") == ["Returns"]
    assert citation_lines('.. [1] A. B., "T",\n   second line.') == [('A. B., "T",', "   second line.")]
    assert examples_outside_examples("Text.\n\nReturns\n-------\nint\n\n>>> f(1)\n2")
    assert not examples_outside_examples("Text.\n\nReturns\n-------\nint\n\nExamples\n--------\n>>> f(1)\n2")
    assert not examples_outside_examples(">>> f(1)\n2")
    cite = ".. [1] A. B., T, 2024."
    assert redundant_references(f'"""M.\n\n{cite}\n"""\ndef f():\n    """F.\n\n    {cite}\n    """\n') == ["f"]
    assert redundant_references(f'"""M."""\ndef f():\n    """F.\n\n    {cite}\n    """\n') == []
    assert "not a citation" not in _bibliography()
    assert len(_bibliography()) >= 10


# ------------------------------------------------------------------ the tree
@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_sections_and_citations_are_numpydoc(path):
    bib = _bibliography()
    problems = []
    for name, doc in _docstrings(ast.parse(path.read_text())):
        problems += [f"{name}: underline of {h}" for h in bad_underlines(doc)]
        if examples_outside_examples(doc):
            problems.append(f"{name}: examples after a section other than Examples")
        for cite, cont in citation_lines(doc):
            if cont is not None:
                problems.append(f"{name}: citation on two lines ({cite[:40]}...)")
            elif cite not in bib:
                problems.append(f"{name}: citation not in docs/references.md: {cite[:60]}")
    problems += [f"{name}: References only repeat the module's" for name in redundant_references(path.read_text())]
    assert problems == []
