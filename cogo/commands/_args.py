"""The argument vocabulary the commands share: value types, flag groups and help texts (one definition each).

Every type here converts one command-line string or raises :class:`argparse.ArgumentTypeError`, which the
parser of :mod:`cogo.cli` prints as one usage line (exit 2) before any work.  Nothing here imports more than
``cogo --help`` already loads: the checks that need a heavier module import it when they run.
"""
from __future__ import annotations

import argparse
import math
import sys
from typing import Any, Callable

from cogo.algebra.activations import ACTIVATIONS, NAMES as ACTIVATION_NAMES
from cogo.algebra.activations import THEORY
from cogo.algebra.smallgroups import expand_collection, is_collection_spec
from cogo.algebra.group_parsing import parse_group
from cogo.runtime.errors import CogoError
from cogo.runtime.threads import POLICY_HELP

# the choices of cogo.solvers.training (LOSSES, OPTIMIZERS, DTYPES, KERNELS), repeated here so that
# building the parser does not import torch; tests/commands/test_cli.py checks that they agree
LOSSES = ("mse", "ce")
#: what each optimizer of cogo.solvers.training_config.OPTIMIZERS is: --optimizer's help is made from it
OPTIMIZER_NOTES = {"adam": "L2 weight decay", "adamw": "decoupled weight decay", "sgd": "with --momentum",
                   "muon": "Muon on the hidden layer, Adam on the output layer"}
OPTIMIZERS = tuple(OPTIMIZER_NOTES)
DTYPES = ("float32", "float64")
KERNELS = ("auto", "grid", "gather")

#: the verdicts of ``cogo verify --checkpoint`` (cogo.proofs.trained.VERDICTS, in order of strength), repeated
#: here so that building the parser does not import sympy; tests/test_user_contracts.py checks that they agree
VERDICTS = ("certified optimizer", "near a certified optimizer", "not near one")
#: the checkpoint files cogo reads (cogo.io.file_formats: by the file's suffix)
CHECKPOINT_SUFFIXES = (".pt", ".safetensors", ".npz")


def optimizer_help(default: str = "adam") -> str:
    """--optimizer's help: every choice of :data:`OPTIMIZERS` with what it is (so none can be left out)."""
    return "; ".join(f"{k}{' (default)' if k == default else ''}: {v}" for k, v in OPTIMIZER_NOTES.items())


def activation_help() -> str:
    """The activations cogo trains and reads (cogo.algebra.activations.ACTIVATIONS), each with its formula."""
    return ", ".join(f"{a.name} = {a.formula}" for a in ACTIVATIONS.values())


def checkpoint_files_help() -> str:
    """What a checkpoint file may be: every suffix and every layout of cogo.io.layouts.LAYOUTS (read from it)."""
    from cogo.io.layouts import LAYOUTS  # late: start-up (numpy only; cogo --help builds one command's parser)

    names = [lay.name for lay in LAYOUTS if lay.name not in ("keys", "npz")]
    return (f"{CHECKPOINT_SUFFIXES[0]} (read without torch where it can be: tensors and plain containers only, as "
            f"torch.load(weights_only=True) allows), {', '.join(CHECKPOINT_SUFFIXES[1:-1])} or "
            f"{CHECKPOINT_SUFFIXES[-1]} files in any layout cogo reads: {', '.join(names)}, npz (arrays Wa, Wb, "
            "Wc), or any state dict through --keys (docs/cli.md#layouts)")


def verdicts_help() -> str:
    """The three verdicts of ``cogo verify --checkpoint``, in order (exit 0 for the first two)."""
    return f"'{VERDICTS[0]}', '{VERDICTS[1]}' (exit 0) or '{VERDICTS[2]}' (exit 1)"


#: the one meaning of --force for a command that writes named output files (cogo.io.outputs)
FORCE_HELP = ("replace an output that already exists (a file, or a symbolic link, FIFO or device, replaced by a "
              "regular file); an output that is one of the command's inputs is refused even so")
#: the one meaning of --no-progress
NO_PROGRESS_HELP = "no progress bars"
#: the one meaning of --device
DEVICE_HELP = "cpu (default) or cuda[:N]; refused at once when it does not exist"


def int_type(what: str, lo: int) -> Callable[[str], int]:
    """An integer >= ``lo`` (argparse type)."""
    def conv(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = None
        if v is None or v < lo:
            raise argparse.ArgumentTypeError(f"{what} must be an integer >= {lo}, got {text!r}")
        return v
    return conv


def float_type(what: str, lo: float, hi: float = math.inf, lo_open: bool = False,
               hi_open: bool = True) -> Callable[[str], float]:
    """A finite number in the interval from ``lo`` to ``hi`` (open or closed at either end; argparse type)."""
    def conv(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            v = math.nan
        ok = math.isfinite(v) and (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)
        if not ok:
            rng = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
            raise argparse.ArgumentTypeError(f"{what} must be a finite number in {rng}, got {text!r}")
        return v
    return conv


def add_threads(p) -> None:
    """``--threads T``: the one definition (cogo.runtime.threads)."""
    p.add_argument("--threads", type=int_type("threads", 1), default=None, metavar="T", help=POLICY_HELP)


class GroupLabel(str):
    """A group's label (what commands pass on) that remembers the file it was read from, if any (an input)."""

    path: str | None = None


#: the Abelian Cayley tables already announced on stderr (once per process)
_ANNOUNCED: set = set()


def group_type(text: str) -> str:
    """``--group``: an order like 23, a product like 3x5, a name or a Cayley-table .json; returns the group's label.

    The label of a table read from a file remembers the file (``.path``): it is an input of the command,
    which no output may overwrite.
    """
    try:
        label = GroupLabel(parse_group(text).label)
    except (ValueError, TypeError) as exc:
        raise argparse.ArgumentTypeError(" ".join(str(exc).split())) from None
    if str(text).strip().lower().endswith(".json"):
        label.path = str(text).strip()
        if label not in _ANNOUNCED and not any(c.isalpha() for c in label):  # an Abelian table: say what it is
            _ANNOUNCED.add(label)
            print(f"cogo: {label.path} is an Abelian Cayley table, read as its product of cyclic groups "
                  f"Z_{' x Z_'.join(label.split('x'))} (invariant factors; element numbering of that product: "
                  "FiniteGroup.from_cayley_json(path).abelian_isomorphism() maps the table's to it)",
                  file=sys.stderr)
    return label


def groups_type(text: str) -> "str | list[str]":
    """``--groups`` item: a group (its label, as ``--group``) or a collection ``smallgroups(...)`` (a list of labels;
    cogo.algebra.smallgroups)."""
    if not is_collection_spec(text):
        return group_type(text)
    try:
        return [group_type(g) for g in expand_collection(text)]
    except (ValueError, TypeError, argparse.ArgumentTypeError) as exc:
        raise argparse.ArgumentTypeError(" ".join(str(exc).split())) from None


def group_inputs(*groups) -> list[str]:
    """The Cayley-table files among the groups given (inputs of the command)."""
    out = []
    for g in groups:
        for x in (g if isinstance(g, (list, tuple)) else [g]):
            for y in (x if isinstance(x, (list, tuple)) else [x]):  # --groups: a collection gives a list
                if getattr(y, "path", None):
                    out.append(y.path)
    return out


def flat_groups(items) -> tuple:
    """The ``--groups`` values flattened (a collection gives several), in order."""
    return tuple(g for it in items for g in ([it] if isinstance(it, str) else it))


def device_type(text: str) -> str:
    """``--device``: cpu or cuda[:N], refused here when it does not exist."""
    from cogo.solvers.training_config import check_device  # late: torch

    try:
        check_device(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(" ".join(str(exc).split())) from None
    return text


def parse_seeds(text: str) -> list[int]:
    """Parse ``'1-5'``, ``'1,3,7'`` or ``'1-3,9'`` into a sorted list of distinct seeds."""
    seeds: set[int] = set()
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part[1:]:
                lo, hi = part.split("-", 1) if not part.startswith("-") else (part, part)
                lo_i, hi_i = int(lo), int(hi)
                if hi_i < lo_i:
                    raise ValueError
                seeds.update(range(lo_i, hi_i + 1))
            else:
                seeds.add(int(part))
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad seed list {text!r}: use forms like 1-5 or 1,3,7") from None
    if not seeds or min(seeds) < 0:
        raise argparse.ArgumentTypeError(f"bad seed list {text!r}: seeds must be non-negative integers")
    return sorted(seeds)


def keys_type(text: str) -> str:
    """``--keys``: the syntax is checked at parse time (which names are needed, once --shared-embedding is known)."""
    from cogo.io.layouts import parse_key_map  # late: start-up (cogo --help never reads a checkpoint)

    try:
        parse_key_map(text, shared_embedding=None)  # the syntax; the flag is checked when the file is read
    except CogoError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def reader_flags(p) -> None:
    """--keys, --shared-embedding, --activation: how to read foreign checkpoints (cogo.io.layouts)."""
    p.add_argument("--keys", type=keys_type, default=None, metavar="MAP",
                   help="read any state dict through an explicit key map Wa=KEY,Wb=KEY,Wc=KEY (or W=KEY,Wc=KEY "
                        "for one (q, 2n) hidden matrix); end a key with :T to transpose it (docs/cli.md#layouts)")
    p.add_argument("--shared-embedding", action="store_true",
                   help="one embedding for both operands (W_a = W_b): --keys Wa=KEY,Wc=KEY")
    p.add_argument("--activation", default=None, choices=ACTIVATION_NAMES,
                   help=f"the network's activation: {activation_help()} (default: the file's record, else sqr); "
                        "the catalogue and theorems hold for sqr only, other activations get the per-node "
                        "frequency report")
    p.add_argument("--force-group", action="store_true",
                   help="read the files with --group even where it contradicts the group a file records (same "
                        "order, another numbering of the columns: refused without this flag)")


def reading_options(args) -> Any:
    """The :class:`cogo.io.layouts.ReadOptions` of :func:`reader_flags` (the defaults for a command without them)."""
    from cogo.io.layouts import read_options  # late: start-up (cogo --help reads no checkpoint)

    return read_options(keys=getattr(args, "keys", None), shared_embedding=getattr(args, "shared_embedding", False),
                        activation=getattr(args, "activation", None), force_group=getattr(args, "force_group", False))


def training_option_flags(p) -> None:
    """The training options beyond the reference setting (cogo.solvers.training_options), one definition for
    cogo train, cogo experiment and cogo demo."""
    p.add_argument("--activation", default=THEORY, choices=ACTIVATION_NAMES,
                   help=f"sigma of the hidden layer: {activation_help()} (default {THEORY}; recorded in the "
                        "checkpoint; other activations get the per-node frequency report, never a catalogue name)")
    p.add_argument("--batch-size", type=int_type("batch size", 0), default=0, metavar="B",
                   help="minibatches of B training pairs, a fresh order every epoch (default 0: full batch)")
    p.add_argument("--label-noise", type=float_type("label noise", 0.0, 1.0), default=0.0, metavar="P",
                   help="give a fraction P of the training pairs a wrong label (recorded; accuracy on clean and "
                        "corrupted pairs reported apart)")
    p.add_argument("--top", choices=("trained", "ridge"), default="trained",
                   help="output layer: trained (default) or the ridge solution on the current features at every "
                        "step (the Li^2 setting; --loss mse)")
    p.add_argument("--ridge", type=float_type("ridge", 0.0, lo_open=True), default=1e-3, metavar="ETA",
                   help="regularization of --top ridge (default 1e-3)")
