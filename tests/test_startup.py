"""Start-up cost: commands import only what they use (sympy, networkx, matplotlib, ... lazily).

Each check runs in a fresh interpreter (this test process has imported everything already) and
reads ``sys.modules`` after the command.  The times are in docs/performance.md ("Start-up time").
"""
import json
import os
import subprocess
import sys

import pytest

from cogo.cli import main

#: Libraries that neither `cogo --help`, `cogo train --help` nor `cogo classify` need.
HEAVY = ("sympy", "mpmath", "networkx", "matplotlib", "scipy", "submitit", "safetensors")


def _modules_after(code: str) -> dict[str, bool]:
    """Which of HEAVY (and torch) are in sys.modules after running ``code`` in a fresh interpreter."""
    probe = (f"{code}\nimport json, sys\n"
             f"print('@@' + json.dumps({{m: m in sys.modules for m in {HEAVY + ('torch',)!r}}}))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert out.returncode == 0, out.stderr
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("@@")][-1]
    return json.loads(line[2:])


def _cli(argv) -> str:
    return ("import contextlib, io\nfrom cogo.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            f"    try:\n        rc = main({list(argv)!r})\n    except SystemExit as e:\n        rc = e.code\n"
            "assert rc == 0, rc\n")


def test_probe_sees_an_import():
    """The probe itself can fail: a command that does import sympy is reported as such."""
    seen = _modules_after("import sympy")
    assert seen["sympy"] and seen["mpmath"] and not seen["torch"]


def test_import_cli_is_light():
    seen = _modules_after("import cogo.cli")
    assert not any(seen.values()), seen


@pytest.mark.parametrize("argv", [["--help"], ["train", "--help"], ["classify", "--help"], ["verify", "--help"]])
def test_help_imports_nothing_heavy(argv):
    seen = _modules_after(_cli(argv))
    assert not any(seen.values()), seen


def test_classify_needs_no_exact_arithmetic(tmp_path):
    ckpt = tmp_path / "f6.pt"
    assert main(["construct", "z_F6", "--group", "7", "--out", str(ckpt)]) == 0
    seen = _modules_after(_cli(["classify", str(ckpt), "--no-progress"]))
    assert not seen["torch"]  # a plain .pt checkpoint is read without torch (cogo.io.ptzip)
    assert not any(seen[m] for m in HEAVY), seen


def test_numeric_construction_needs_no_sympy():
    seen = _modules_after("from cogo.solvers.constructions import construct\n"
                          "net, meta = construct('z_F6', 7)\nassert net.group.order == 7 and not net.exact")
    assert not any(seen[m] for m in HEAVY), seen


def test_exact_arithmetic_still_loads_sympy_on_demand():
    """The lazy names behave like the modules: exact work imports sympy when it starts."""
    code = ("import sys\nfrom cogo.algebra.groups import root_of_unity\n"
            "assert 'sympy' not in sys.modules\n"
            "from cogo.algebra.network import is_zero_exact\n"
            "assert is_zero_exact(root_of_unity(4, 1) ** 2 + 1)\n"
            "assert not is_zero_exact(root_of_unity(4, 1) - 1)\n")
    seen = _modules_after(code)
    assert seen["sympy"] and not seen["networkx"]


def test_lazy_module_imports_at_first_use():
    from cogo.algebra._lazy import is_sympy, lazy_module

    m = lazy_module("json")
    assert "not yet imported" in repr(m)
    assert m.dumps([1]) == "[1]"
    assert "imported" in repr(m) and "not yet" not in repr(m)
    with pytest.raises(AttributeError):
        m.no_such_name
    import sympy

    assert is_sympy(sympy.Integer(2)) and not is_sympy(2) and not is_sympy(2.0)


def test_classify_npz_needs_no_torch(tmp_path):
    """An .npz checkpoint is read with numpy alone: neither torch nor exact arithmetic is imported.

    (Random weights mix frequencies, so the block search may use networkx here.)"""
    import numpy as np

    rng = np.random.default_rng(0)
    path = tmp_path / "w.npz"
    np.savez(path, Wa=rng.standard_normal((16, 7)), Wb=rng.standard_normal((16, 7)), Wc=rng.standard_normal((7, 16)))
    seen = _modules_after(_cli(["classify", str(path), "--group", "7", "--no-progress"]))
    assert not seen["torch"], seen
    assert not seen["sympy"] and not seen["mpmath"], seen


def test_a_command_imports_no_other_command_module():
    """`cogo classify ...` builds and imports its own command module only (cogo.commands is the registry)."""
    code = (_cli(["classify", "--help"]) + "import json, sys\n"
            "print('@@' + json.dumps(sorted(m for m in sys.modules if m.startswith('cogo.commands.'))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("@@")][-1][2:])
    assert "cogo.commands.classify" in loaded                                  # the probe sees the one it ran
    assert not [m for m in loaded if m.rsplit(".", 1)[-1] in ("verify", "train", "experiment", "demo", "dynamics",
                                                              "li2_sweep", "construct") or ".grid" in m], loaded
