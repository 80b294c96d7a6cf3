"""One contract per registry, which every entry passes: documented, in its docs table, reachable from the CLI.

The registries (docs/architecture.md, "what adding one touches"): the commands (:mod:`cogo.commands`), the
activations (:data:`cogo.algebra.activations.ACTIVATIONS`), the checkpoint layouts
(:data:`cogo.io.layouts.LAYOUTS`), the progress measures (:data:`cogo.dynamics.progress.MEASURES`), the theorem
and control rows (:mod:`cogo.proofs.registry`) and the constructions (:mod:`cogo.catalogue.constructions`).  Each
test is parametrized over the registry's entries, so a new entry that skips its documentation or its place in
the command line fails here by name.
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pytest

from cogo import commands
from cogo.algebra.activations import ACTIVATIONS
from cogo.catalogue.constructions import CONSTRUCTIONS
from cogo.cli import _resume_hint, build_parser
from cogo.dynamics.progress import MEASURES
from cogo.io.layouts import LAYOUTS
from cogo.proofs.registry import CONTROL_ROWS, THEOREMS, controls_for, theorem_list

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _text(name: str) -> str:
    return (ROOT / name).read_text()


# ---------------------------------------------------------------- commands
@pytest.mark.parametrize("name", commands.names())
def test_every_command_keeps_the_contract(name, capsys):
    from tests.test_docs import command_names_in_cli_page

    m = commands.command_module(name)
    assert callable(m.add) and callable(m.run) and isinstance(m.ORDER, int)
    assert name in command_names_in_cli_page(_text("docs/cli.md"))                   # its section of docs/cli.md
    assert re.search(rf"^\| `cogo {re.escape(name)}\b", _text("README.md"), re.M)     # its row of the README's table
    choices = {c.dest: c.help for c in next(a for a in build_parser()._actions
                                            if isinstance(a, argparse._SubParsersAction))._choices_actions}
    assert choices.get(name), f"cogo --help gives {name} no help line"
    with pytest.raises(SystemExit) as exc:                                            # reachable: cogo NAME --help
        build_parser(name).parse_args([name, "--help"])
    assert exc.value.code == 0 and f"usage: cogo {name}" in capsys.readouterr().out
    resume = getattr(m, "RESUME", None)
    assert resume in (None, "flag", "rerun")
    hint = _resume_hint([name, "--out", "somewhere"])
    assert (hint == "") == (resume is None)
    assert resume != "flag" or "--resume" in hint
    assert resume != "rerun" or "run the same command to resume" in hint


def test_the_resume_hint_follows_the_registry(monkeypatch):
    """Mutation: a command that stops declaring RESUME loses its hint (the hint is read from the registry)."""
    train = commands.command_module("train")
    assert "--resume" in _resume_hint(["train", "--out", "x"])
    monkeypatch.delattr(train, "RESUME")
    assert _resume_hint(["train", "--out", "x"]) == ""


# ---------------------------------------------------------------- activations
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_every_activation_keeps_the_contract(name):
    torch = pytest.importorskip("torch")   # the parser of cogo train checks --device with torch
    act = ACTIVATIONS[name]
    cli = _text("docs/cli.md")
    flag = re.search(r"`--activation \{([a-z,]+)\}`", cli)
    assert flag and name in flag.group(1).split(","), "the --activation row of docs/cli.md"
    assert f"`{name}`" in cli, "the activation table of docs/cli.md"
    p = build_parser()
    for argv in (["train", "--out", "x", "--activation", name], ["classify", "f.pt", "--activation", name]):
        assert p.parse_args(argv).activation == name                                   # reachable from the CLI
    x = np.array([-1.5, -0.25, 0.0, 0.5, 2.0])
    y = act.numpy(x)
    assert x.tolist() == [-1.5, -0.25, 0.0, 0.5, 2.0]                                 # numpy() leaves x alone
    t = torch.tensor(x, dtype=torch.float64)
    assert np.allclose(act.torch_(t).numpy(), y, rtol=1e-12, atol=1e-15)               # the torch form agrees
    h = 1e-6   # central difference of the numpy form against grad_mul_ (away from relu's kink at 0)
    xs = np.array([-1.5, -0.25, 0.5, 2.0])
    fd = (act.numpy(xs + h) - act.numpy(xs - h)) / (2 * h)
    grad = act.grad_mul_(torch.ones(4, dtype=torch.float64), torch.tensor(xs, dtype=torch.float64)).numpy()
    assert np.allclose(grad, fd, rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- layouts
def _docs_layout_rows() -> dict:
    """``{layout: keys (shapes)}`` of the table under "## Layouts" in docs/cli.md (as tests/io/test_layouts.py reads it)."""
    section = _text("docs/cli.md").split("\n## Layouts\n", 1)[1].split("\n## ", 1)[0]
    rows = [ln.split(" | ", 1) for ln in section.splitlines() if ln.startswith("| `")]
    return {name.strip("| `"): doc.rstrip(" |") for name, doc in rows}


@pytest.mark.parametrize("rec", LAYOUTS, ids=lambda r: r.name)
def test_every_layout_keeps_the_contract(rec):
    assert _docs_layout_rows().get(rec.name) == rec.doc                               # its row of docs/cli.md
    # reachable: cogo classify / verify --checkpoint detect it from a file (npz: by its file format)
    assert (rec.detect is not None and rec.read is not None) or rec.name == "npz"
    if rec.one_embedding:                                                             # --shared-embedding applies
        assert "--shared-embedding" in rec.doc or rec.name == "shared"


# ---------------------------------------------------------------- progress measures
@pytest.fixture(scope="module")
def measured():
    from cogo.dynamics.progress import progress_measures

    rng = np.random.default_rng(0)
    S, q, M = 3, 6, 5
    Wa, Wb, Wc = rng.normal(size=(S, q, M)), rng.normal(size=(S, q, M)), rng.normal(size=(S, M, q))
    return S, progress_measures(Wa, Wb, Wc, 5)


@pytest.mark.parametrize("rec", MEASURES, ids=lambda r: r.name)
def test_every_progress_measure_keeps_the_contract(rec, measured):
    table = _text("docs/dynamics.md").split("The records of `MEASURES`", 1)[1].split("\n\n", 2)[1]
    assert f"| `{rec.name}` |" in table                                                # its row of docs/dynamics.md
    S, out = measured
    assert len(out[rec.name]) == S                                                    # computed per snapshot
    # reachable: `cogo dynamics` shows it (dynamics.json, the table, a figure) or a later measure reads it
    assert rec.json is not None or rec.table is not None or rec.series is not None or rec.lines \
        or any(rec.name in m.uses for m in MEASURES), rec.name


# ---------------------------------------------------------------- theorem and control rows
_GROUPS = (7, 23, 4, 2, 35)


@pytest.mark.parametrize("row", THEOREMS + CONTROL_ROWS, ids=lambda r: f"{r.number}:{r.title}")
def test_every_row_keeps_the_contract(row):
    verify = _text("docs/verify.md")
    if row.number == "control":
        assert row.title in verify                                                    # its line of docs/verify.md
    else:
        assert re.search(rf"^\| {row.number}\. ", verify, re.M)                        # its row of the rows table
    sections = set(re.findall(r"^#+ (\d+(?:\.\d+)*)\.? ", _text("docs/math.md"), re.M))
    for n in re.findall(r"\d+(?:\.\d+)?", row.section):
        assert n in sections or n.split(".")[0] in sections, (row.section, n)
    assert callable(row.fn)
    # reachable: `cogo verify --group G` runs it for one of a few groups
    listed = []
    for g in _GROUPS:
        listed += [f for f, _ in theorem_list(g)] if row.number != "control" else controls_for(g)
    assert row.fn in listed


# ---------------------------------------------------------------- constructions
@pytest.mark.parametrize("rec", CONSTRUCTIONS, ids=lambda c: c.name)
def test_every_construction_keeps_the_contract(rec):
    """The full contract is tests/catalogue/test_construction_records.py; here, what every registry keeps."""
    assert f"`{rec.name}`" in _text("docs/cli.md") and f"`{rec.name}`" in _text("README.md")
    assert build_parser().parse_args(["construct", rec.name, "--out", "x.pt"]).kind == rec.name


def test_an_unknown_activation_is_one_message_everywhere():
    """The library, the readers and the measures refuse an unknown activation with the registry's one message."""
    from cogo.algebra.activations import activation, unknown_message
    from cogo.dynamics.progress import progress_measures
    from cogo.io.layouts import read_options
    from cogo.runtime.errors import CogoError
    from cogo.solvers.li2_record import li2_statistics_of

    msg = "unknown activation 'tanh'; choose one of sqr, relu, silu, relusqr"      # the four records, by hand
    assert unknown_message("tanh") == msg
    W = np.ones((1, 2, 3))
    calls = (lambda: activation("tanh"), lambda: progress_measures(W, W, np.ones((1, 3, 2)), 3, activation="tanh"),
             lambda: li2_statistics_of(W, W, 3, np.arange(9), 1.0, activation="tanh"))
    for call in calls:
        with pytest.raises(ValueError) as exc:
            call()
        assert str(exc.value) == msg
    with pytest.raises(CogoError) as exc:
        read_options(activation="tanh")
    assert str(exc.value) == msg
