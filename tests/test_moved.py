"""Moved names keep working for one release, through the one mechanism cogo._moved.moved."""
import ast
import importlib
from pathlib import Path

import pytest

from cogo._moved import Moved, moved

ROOT = Path(__file__).resolve().parents[1] / "cogo"

#: every plain move of the library, with where it went (the tables that became views of the catalogue registry
#: are checked in tests/test_catalogue.py::test_moved_tables_warn_and_still_work)
MOVED = [
    ("cogo.algebra.groups", "parse_group", "cogo.algebra.spec", "parse_group"),
    ("cogo.algebra.finite_groups", "group_from_spec", "cogo.algebra.spec", "group_from_spec"),
    ("cogo.algebra.finite_groups", "as_finite_group", "cogo.algebra.spec", "as_finite_group"),
    ("cogo.verify.certificates", "checkpoint_report", "cogo.verify.checkpoint", "checkpoint_report"),
    ("cogo.verify.theorems", "run_all", "cogo.verify.registry", "run_all"),
    ("cogo.verify.theorems", "skipped", "cogo.verify.registry", "skipped"),
    ("cogo.verify.theorems", "theorem_list", "cogo.verify.registry", "theorem_list"),
]


@pytest.mark.parametrize("old_module, name, new_module, new_name", MOVED)
def test_a_moved_name_warns_and_is_the_new_object(old_module, name, new_module, new_name):
    old = importlib.import_module(old_module)
    with pytest.warns(DeprecationWarning, match=f"{old_module}.{name} moved to {new_module}.{new_name}"):
        value = getattr(old, name)
    assert value is getattr(importlib.import_module(new_module), new_name)


@pytest.mark.parametrize("module", sorted({m for m, *_ in MOVED}))
def test_other_missing_names_are_attribute_errors(module):
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        getattr(importlib.import_module(module), "no_such_name")


def test_a_view_is_computed_at_each_use():
    calls = []
    getattr_ = moved("m", {"TABLE": Moved("registry()", lambda: calls.append(1) or len(calls))})
    with pytest.warns(DeprecationWarning, match="m.TABLE moved to registry()"):
        assert (getattr_("TABLE"), getattr_("TABLE")) == (1, 2)


def test_every_module_getattr_is_the_one_mechanism():
    """No module writes its own moved-name __getattr__ (cogo/__init__.py's lazy API is not a move)."""
    own = []
    for path in ROOT.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__" and path.name != "__init__.py":
                own.append(str(path.relative_to(ROOT)))
    assert own == []
