"""The ``cogo`` command line.

Commands (each documented in README.md):

``cogo verify``      prove the theorems of SPEC 3-7 exactly and numerically
``cogo construct``   write a catalogue construction (SPEC 7) as a checkpoint
``cogo train``       train quadratic networks on group addition (SPEC 1)
``cogo classify``    factor and classify trained checkpoints (SPEC 8)
``cogo experiment``  train, classify and verify a grid; write a report
``cogo demo``        a small real experiment on built-in defaults

Every user error (bad flags, bad files, impossible sizes) prints one line
``cogo: error: ...`` on stderr and exits with status 2, before any output
file is written.
"""
from __future__ import annotations

import argparse
import contextlib
import math
import shlex
import sys
from pathlib import Path
from typing import Callable, Iterator, Sequence

from cogo._version import __version__
from cogo.algebra.activations import NAMES as ACTIVATION_NAMES
from cogo.runtime.errors import CogoError

EXIT_USAGE = 2

# the choices of cogo.solvers.training (LOSSES, OPTIMIZERS, DTYPES, KERNELS), repeated here so that
# building the parser does not import torch; tests/test_cli.py checks that they agree
LOSSES = ("mse", "ce")
OPTIMIZERS = ("adam", "adamw", "sgd", "muon")
DTYPES = ("float32", "float64")
KERNELS = ("auto", "grid", "gather")


class _UsageError(Exception):
    """A command line that argparse rejects (unknown flag, bad value): one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one error path: a usage error is one line, not the whole usage text."""

    def error(self, message: str):  # type: ignore[override]
        raise _UsageError(f"{' '.join(message.split())} (see '{self.prog} --help')")


@contextlib.contextmanager
def _user_input() -> Iterator[None]:
    """Checks of the user's input: a ValueError raised inside is a user error (CogoError).

    Wrap only the validation that runs before any work; a ValueError raised
    later is a bug and keeps its traceback.
    """
    try:
        yield
    except CogoError:
        raise
    except ValueError as exc:
        raise CogoError(" ".join(str(exc).split())) from exc


# ---------------------------------------------------------------- argument types
def _int_type(what: str, lo: int) -> Callable[[str], int]:
    def conv(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = None
        if v is None or v < lo:
            raise argparse.ArgumentTypeError(f"{what} must be an integer >= {lo}, got {text!r}")
        return v
    return conv


def _float_type(what: str, lo: float, hi: float = math.inf, lo_open: bool = False,
                hi_open: bool = True) -> Callable[[str], float]:
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


class _GroupLabel(str):
    """A group's label (what commands pass on) that remembers the file it was read from, if any (an input)."""

    path: str | None = None


def _group_type(text: str) -> str:
    """``--group``: an order like 23, a product like 3x5, a name or a Cayley-table .json; returns the group's label.

    The label of a table read from a file remembers the file (``.path``): it is an input of the command,
    which no output may overwrite.
    """
    from cogo.algebra.spec import parse_group

    try:
        label = _GroupLabel(parse_group(text).label)
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


_ANNOUNCED: set = set()


def _group_inputs(*groups) -> list[str]:
    """The Cayley-table files among the groups given (inputs of the command)."""
    out = []
    for g in groups:
        for x in (g if isinstance(g, (list, tuple)) else [g]):
            for y in (x if isinstance(x, (list, tuple)) else [x]):  # --groups: a collection gives a list
                if getattr(y, "path", None):
                    out.append(y.path)
    return out


#: the one meaning of --force for a command that writes named output files (cogo.io.outputs)
FORCE_HELP = ("replace an output that already exists (a file, or a symbolic link, FIFO or device, replaced by a "
              "regular file); an output that is one of the command's inputs is refused even so")
#: the one meaning of --no-progress
NO_PROGRESS_HELP = "no progress bars"
#: the one meaning of --device
DEVICE_HELP = "cpu (default) or cuda[:N]; refused at once when it does not exist"


def _output(action, kind: str = "file"):
    from cogo.io.outputs import mark_output

    return mark_output(action, kind)


def _input(action):
    from cogo.io.outputs import mark_input

    return mark_input(action)


def _groups_type(text: str) -> "str | list[str]":
    """``--groups`` item: a group (its label, as ``--group``) or a collection ``smallgroups(...)`` (a list of labels;
    cogo.algebra.smallgroups)."""
    from cogo.algebra.smallgroups import expand_collection, is_collection_spec

    if not is_collection_spec(text):
        return _group_type(text)
    try:
        return [_group_type(g) for g in expand_collection(text)]
    except (ValueError, TypeError, argparse.ArgumentTypeError) as exc:
        raise argparse.ArgumentTypeError(" ".join(str(exc).split())) from None


def _flat_groups(items) -> tuple:
    """The ``--groups`` values flattened (a collection gives several), in order."""
    return tuple(g for it in items for g in ([it] if isinstance(it, str) else it))


def _device_type(text: str) -> str:
    """``--device``: cpu or cuda[:N], refused here when it does not exist."""
    from cogo.solvers.training_config import check_device

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


# ---------------------------------------------------------------- verify
def _reader_flags(p) -> None:
    """--keys, --shared-embedding, --activation: how to read foreign checkpoints (cogo.io.layouts)."""
    p.add_argument("--keys", type=_keys_type, default=None, metavar="MAP",
                   help="read any state dict through an explicit key map Wa=KEY,Wb=KEY,Wc=KEY (or W=KEY,Wc=KEY "
                        "for one (q, 2n) hidden matrix); end a key with :T to transpose it (docs/cli.md#layouts)")
    p.add_argument("--shared-embedding", action="store_true",
                   help="one embedding for both operands (W_a = W_b): --keys Wa=KEY,Wc=KEY")
    p.add_argument("--activation", default=None, choices=ACTIVATION_NAMES,
                   help="the network's activation (default: the file's record, else sqr); the catalogue and "
                        "theorems hold for sqr only, other activations get the per-node frequency report")


def _keys_type(text: str) -> str:
    """``--keys``: the syntax is checked at parse time (which names are needed, once --shared-embedding is known)."""
    from cogo.io.layouts import parse_key_map

    try:
        parse_key_map(text, shared_embedding=None)  # the syntax; the flag is checked when the file is read
    except CogoError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _reading(args):
    """The reading options of cogo.io.layouts for this command (a context manager)."""
    import contextlib

    if not hasattr(args, "shared_embedding"):
        return contextlib.nullcontext()
    from cogo.io.layouts import read_options

    return read_options(keys=args.keys, shared_embedding=args.shared_embedding, activation=args.activation)


def _other_activation(args, paths, command: str, snapshots: bool = False) -> int | None:
    """Non-sqr networks: one line saying no catalogue form applies, then the per-node report (exit 0)."""
    from cogo.analysis.nodes import activation_reports

    group = getattr(args, "group", None) if command != "verify" else None   # verify --checkpoint: the file's group
    with _user_input():
        got = activation_reports(paths, command, group=group, snapshots=snapshots,
                                 dead_threshold=getattr(args, "dead_threshold", None) or 0.01)
    if got is None:
        return None
    text, reports = got
    sys.stdout.write(text)
    out_json = getattr(args, "json", None)
    if out_json:
        from cogo.io.outputs import atomic_write_text
        from cogo.io.formatting import dumps_json
        from cogo.io.outputs import check_output_file

        check_output_file(out_json, force=getattr(args, "force", False), label="--json")
        atomic_write_text(out_json, dumps_json(reports))
        print(f"wrote {out_json}")
    if command == "verify":  # the verdict (exit 0 = global optimizer) exists for sqr only
        print("verdict: none (no global-optimality statement exists for this activation)")
        return 1
    return 0


def _add_verify(sub) -> None:
    p = sub.add_parser("verify", help="prove the theorems exactly and numerically",
                       description="Check every theorem of SPEC 3-7 on a group and run the negative controls. "
                                   "Prints one row per theorem (status, largest residual, seconds); exit status 0 "
                                   "iff every theorem passes and every negative control is caught failing.")
    _input(p.add_argument("--group", type=_group_type, default="23",
                          help="group: an order like 23 or a product like 3x5 (default 23), or an Abelian "
                               "Cayley-table .json (read as its product of cyclic groups); with --theory li2 also "
                               "a name such as S3 or any Cayley-table .json"))
    p.add_argument("--theory", choices=["semiring", "li2"], default="semiring",
                   help="semiring: the theorems of SPEC 3-7 (default); li2: the energy landscape of SPEC 9 "
                        "(Theorems 2, 3, Lemma 1; see docs/li2.md)")
    m = p.add_mutually_exclusive_group()
    m.add_argument("--exact", dest="method", action="store_const", const="exact", help="exact (sympy) checks only")
    m.add_argument("--numeric", dest="method", action="store_const", const="numeric", help="numeric checks only")
    _output(p.add_argument("--json", metavar="FILE", help="also write the results as JSON (a list of objects), "
                                                          "written only after every check ran"))
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.add_argument("--threads", type=_int_type("threads", 1), default=None, metavar="T", help=_threads_help())
    _input(p.add_argument("--checkpoint", metavar="FILE", default=None,
                   help="instead of the theorems: is the network in FILE (.pt or .npz) a global optimizer? "
                        "numeric verdict for any network, exact certificate for a `cogo construct` checkpoint"))
    _reader_flags(p)
    p.add_argument("--tol", type=_tol_type, default=None, metavar="T",
                   help="with --checkpoint: the numeric verdict is 'optimal within tolerance T' iff the float64 "
                        "loss on all pairs is <= T (default 1e4 eps^2 of the file's dtype: 4.9e-28 for float64, "
                         "1.4e-10 for float32, never above 1e-6 of the zero network's loss); secondary information")
    p.add_argument("--every-order", action="store_true",
                   help="instead of one group: prove z_F6, z_F6 (7.2), z_F4/6 and z_M optimal for every admissible "
                        "order d at once (frequency collisions, symbolic certificates, controls; docs/verify.md)")
    p.add_argument("--max-distance", type=_tol_type, default=None, metavar="D",
                   help="with --checkpoint: 'near a certified optimizer' means a distance of at most D to the "
                        "snapped network (default 0.05; docs/verify.md)")
    _output(p.add_argument("--snap", metavar="OUT.pt", default=None,
                           help="with --checkpoint: write the nearest certified optimizer (the snapped network) as a "
                                "checkpoint, its exact parameters in its meta"))
    p.set_defaults(method="both", func=_cmd_verify)


def _tol_type(text: str) -> float:
    """A tolerance: a finite number >= 0 (argparse type)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad tolerance {text!r}: expected a number >= 0") from None
    if not (v >= 0) or v == float("inf"):
        raise argparse.ArgumentTypeError(f"bad tolerance {text!r}: expected a finite number >= 0")
    return v


def _verify_progress(G, method: str, off: bool):
    """A tqdm callback for run_all (one tick per check), or None."""
    from cogo.runtime.limits import progress_callback
    from cogo.proofs.registry import theorem_list

    return progress_callback(len(theorem_list(G)) * (2 if method == "both" else 1), f"verify {G}", off=off)


def _cmd_verify(args) -> int:
    from cogo.runtime.threads import threads as _threads

    with _threads(args.threads):
        if args.checkpoint is not None:
            return _verify_checkpoint(args)
        if args.every_order:
            from cogo.proofs.every_order_run import cli_every_order

            return cli_every_order(args)
        return _verify_theorems(args)


def _verify_theorems(args) -> int:
    from cogo.algebra.spec import parse_group
    from cogo.io.outputs import atomic_write_text
    from cogo.proofs.results import all_ok, format_table, results_to_json
    from cogo.runtime.limits import require, verify_estimate
    from cogo.io.outputs import check_output_file
    from cogo.proofs.registry import run_all, skipped

    inputs = _group_inputs(args.group)
    if args.theory == "li2":
        from cogo.li2.energy import li2_group
        from cogo.li2.theorems import run_li2, skipped_li2

        G = li2_group(args.group)  # CogoError (one line) on a bad or unavailable group
        if args.json:
            check_output_file(args.json, inputs=inputs, force=args.force, label="--json")
        print(f"cogo verify --theory li2: {G.name} (order {G.order}), method {args.method}", flush=True)
        results = run_li2(G, args.method)
        notes = skipped_li2(G, args.method)
    else:
        G = parse_group(args.group)
        if G.abelian is None:  # a table group (SPEC 9): SPEC 3-7 are about Z_d1 x ... x Z_dn
            why = ("is Abelian but given by a name or table: write it as a product like 3x5"
                   if getattr(G, "is_abelian", False) else "is not Abelian")
            raise CogoError(f"the semiring theorems (SPEC 3-7) need a finite Abelian group Z_d1 x ... x Z_dn; "
                            f"{G} {why}, or use --theory li2 (SPEC 9, any finite group)")
        if args.json:
            check_output_file(args.json, inputs=inputs, force=args.force, label="--json")
        if args.method != "exact":
            require(verify_estimate(G.order, args.method, G.order % 2 == 0))
        print(f"cogo verify: {G} (order {G.order}), method {args.method}", flush=True)
        results = run_all(G, args.method, progress=_verify_progress(G, args.method, args.no_progress))
        notes = skipped(G, args.method)
    print(format_table(results))
    for note in notes:
        print(f"skipped: {note}")
    if args.json:
        atomic_write_text(args.json, results_to_json(results))
        print(f"wrote {args.json}")
    return 0 if all_ok(results) else 1


def _verify_checkpoint(args) -> int:
    """``cogo verify --checkpoint FILE``: how far the network is from its nearest certified optimizer (read once)."""
    from cogo.io.outputs import atomic_write_text
    from cogo.io.formatting import dumps_json
    from cogo.io.checkpoint import read_checkpoint
    from cogo.runtime.limits import verify_checkpoint_estimate
    from cogo.io.outputs import check_output_file

    with _user_input():
        inputs = [args.checkpoint, *_group_inputs(args.group)]
        for flag, out in (("--json", args.json), ("--snap", args.snap)):  # never onto the checkpoint itself
            if out:
                check_output_file(out, inputs=inputs, force=args.force, label=flag)
        ckpt = read_checkpoint(args.checkpoint, estimate=verify_checkpoint_estimate)  # the file's group
    if (rc := _other_activation(args, [ckpt], "verify")) is not None:
        return rc
    from cogo.proofs.trained import DEFAULT_MAX_DISTANCE, verify_checkpoint

    with _user_input():
        v = verify_checkpoint(ckpt, tol=args.tol,
                              max_distance=DEFAULT_MAX_DISTANCE if args.max_distance is None else args.max_distance)
    sys.stdout.write(v.render_text())
    if args.snap:
        from cogo.proofs.trained import write_snapped

        with _user_input():
            write_snapped(v, args.snap)
        print(f"wrote {args.snap}")
    if args.json:
        atomic_write_text(args.json, dumps_json(v.to_dict()))
        print(f"wrote {args.json}")
    return v.exit_code


# ---------------------------------------------------------------- construct
#: cogo construct's names (the functions' names, cogo.solvers.constructions.NAMES) and the previous release's
#: names they replace (accepted with a warning until the next release); repeated here so that building the
#: parser imports nothing heavy (tests/test_cli.py checks that they agree)
CONSTRUCTIONS = {"z_F6": "f6", "z_F6_ab": "f6-ab", "z_F46": "f46", "z_M": "mem"}


def _warn_old(old: str, new: str) -> None:
    """One line on stderr: an old spelling was used (accepted until the next release)."""
    print(f"cogo: warning: {old} is the old spelling of {new}; it is accepted until the next release",
          file=sys.stderr)


class _OldSpellings(argparse._StoreAction):
    """Store the value; an option string other than the first (the name) is an old spelling: warn, then store."""

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string is not None and option_string != self.option_strings[0]:
            _warn_old(option_string, self.option_strings[0])
        super().__call__(parser, namespace, values, option_string)


def _construction_type(text: str) -> str:
    """``cogo construct NAME``: a construction's name, or its old name (a warning)."""
    if text in CONSTRUCTIONS:
        return text
    old = {k: n for n, k in CONSTRUCTIONS.items()}
    if text in old:
        _warn_old(text, old[text])
        return old[text]
    raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {', '.join(CONSTRUCTIONS)})")


def _add_construct(sub) -> None:
    p = sub.add_parser("construct", help="write a construction of SPEC 7 as a checkpoint")
    p.add_argument("kind", type=_construction_type, metavar="NAME",
                   help=f"which global optimizer: {', '.join(CONSTRUCTIONS)} (the functions cogo.z_F6, ...; the "
                        f"old names {', '.join(CONSTRUCTIONS.values())} are accepted until the next release)")
    _input(p.add_argument("--group", type=_group_type, default="23",
                          help="group order or product (default 23), or an Abelian Cayley-table .json"))
    p.add_argument("--seed", type=_int_type("seed", 0), default=None, help="draw the free parameters from this seed (default: fixed documented values)")
    _output(p.add_argument("--out", "-o", "--output", dest="output", action=_OldSpellings, required=True,
                           metavar="FILE.pt", help="checkpoint to write (-o and --output: old spellings)"))
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.add_argument("--threads", type=_int_type("threads", 1), default=None, metavar="T", help=_threads_help())
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.set_defaults(func=_cmd_construct)


#: ``cogo construct`` evaluates the real-space loss on all pairs when that costs at most this many
#: multiply-adds (n^2 pairs x q nodes x n outputs; about a second), else on a random sample of pairs.
LOSS_BUDGET = 2e9


def _construct_loss(Wa, Wb, Wc, G) -> tuple[float, str]:
    """Real-space loss (SPEC 1) of a construction with a cost that fits its size, and what it was computed on."""
    import numpy as np

    from cogo.algebra.loss import real_loss

    n, q = G.order, Wa.shape[0]
    per_pair = float(q) * n
    if per_pair * n * n <= LOSS_BUDGET:
        return real_loss(Wa, Wb, Wc, group=G), f"all {n * n} pairs"
    sample = int(LOSS_BUDGET // per_pair)
    if sample < 1:
        return math.nan, (f"skipped: one pair costs {per_pair:.1e} multiply-adds; "
                          "the exact certificate is `cogo verify`")
    pairs = np.sort(np.random.default_rng(0).choice(n * n, size=sample, replace=False))
    # real_loss is the mean over the pairs given; a sample of pairs estimates the loss on all of them
    return real_loss(Wa, Wb, Wc, pairs=pairs, group=G), (
        f"{sample} random pairs of {n * n}; all pairs would cost {per_pair * n * n:.1e} multiply-adds")


def _cmd_construct(args) -> int:
    from cogo.algebra.spec import parse_group
    from cogo.runtime.limits import construct_estimate, require
    from cogo.io.outputs import check_output_file
    from cogo.solvers.constructions import construct, to_checkpoint

    G = parse_group(args.group)
    out = check_output_file(args.output, inputs=_group_inputs(args.group), force=args.force, label="--out")
    kind = CONSTRUCTIONS[args.kind]  # the kind the estimates and the checkpoint record
    if kind != "mem" and G.order % 2 == 0:
        raise CogoError(f"construction {args.kind} needs a group of odd order (every k != -k, SPEC 6); "
                        f"{G} has order {G.order}; z_M works for every order")
    est = require(construct_estimate(kind, G.order))
    if est.seconds > 5 and not args.no_progress:
        print(f"cogo construct: {est}", flush=True)
    from cogo.runtime.threads import threads as _threads

    with _threads(args.threads):
        net, meta = construct(args.kind, G, seed=args.seed)
        Wa, Wb, Wc = net.to_weights(real=True)
        loss, on = _construct_loss(Wa, Wb, Wc, G)
    meta.update(nodes=int(net.q), real_space_loss=float(loss) if math.isfinite(loss) else None,
                real_space_loss_on=on)
    to_checkpoint(net, out, meta)
    print(f"wrote {out}: {meta['name']} on {G}, {net.q} nodes, real-space loss {loss:.3g} ({on})")
    return 0


# ---------------------------------------------------------------- train
def _training_option_flags(p) -> None:
    """The training options beyond the reference setting (cogo.solvers.training_options), one definition for
    cogo train, cogo experiment and cogo demo."""
    p.add_argument("--activation", default="sqr", choices=ACTIVATION_NAMES,
                   help="sigma of the hidden layer (default sqr = x^2; recorded in the checkpoint; other activations "
                        "get the per-node frequency report, never a catalogue name)")
    p.add_argument("--batch-size", type=_int_type("batch size", 0), default=0, metavar="B",
                   help="minibatches of B training pairs, a fresh order every epoch (default 0: full batch)")
    p.add_argument("--label-noise", type=_float_type("label noise", 0.0, 1.0), default=0.0, metavar="P",
                   help="give a fraction P of the training pairs a wrong label (recorded; accuracy on clean and "
                        "corrupted pairs reported apart)")
    p.add_argument("--top", choices=("trained", "ridge"), default="trained",
                   help="output layer: trained (default) or the ridge solution on the current features at every "
                        "step (the Li^2 setting; --loss mse)")
    p.add_argument("--ridge", type=_float_type("ridge", 0.0, lo_open=True), default=1e-3, metavar="ETA",
                   help="regularization of --top ridge (default 1e-3)")


def _add_train(sub) -> None:
    p = sub.add_parser(
        "train", help="train quadratic networks on group addition",
        description="Train 2-layer quadratic networks on group addition (SPEC 1). All (seed, weight decay) "
                    "models train together as one batched tensor program. Writes one checkpoint per model, "
                    "summary.json and, with --plot, curves.png into --out.",
    )
    _input(p.add_argument("--group", type=_group_type, default="23",
                          help="group: an order like 23 or a product like 3x5 (default 23), a finite group by name "
                               "(S3, S4, A4, A5, D5, Q8, Dic3; products S3x3) or a Cayley-table .json file "
                               "(c = a*b; see docs/groups.md)"))
    p.add_argument("--hidden", type=_int_type("hidden size", 1), default=512, help="hidden nodes q (default 512)")
    p.add_argument("--lr", type=_float_type("learning rate", 0.0, lo_open=True), default=None,
                   help="learning rate (default 0.01 for Abelian groups, the reference experiment; 0.003 for "
                        "non-Abelian groups, see docs/groups.md)")
    p.add_argument("--wd", type=_float_type("weight decay", 0.0), nargs="+", default=None, metavar="WD",
                   help="one or more weight decays, each trained for every seed (default 5e-5 for Abelian "
                        "groups, 2e-3 for non-Abelian groups)")
    p.add_argument("--epochs", type=_int_type("epochs", 1), default=10000, help="full-batch epochs (default 10000)")
    p.add_argument("--test-fraction", type=_float_type("test fraction", 0.0, 1.0, lo_open=True), default=0.1,
                   help="fraction of all n^2 pairs held out for testing, in (0, 1) (default 0.1)")
    p.add_argument("--loss", default="mse", choices=LOSSES,
                   help="mse: MSE on zero-mean outputs (SPEC 1, default); ce: cross-entropy")
    p.add_argument("--optimizer", default="adam", choices=OPTIMIZERS,
                   help="adam (L2 weight decay, default), adamw (decoupled decay) or sgd")
    p.add_argument("--momentum", type=_float_type("momentum", 0.0, 1.0), default=0.0,
                   help="SGD momentum in [0, 1) (default 0)")
    p.add_argument("--seeds", type=parse_seeds, default="1",
                   help="seeds, e.g. 1-5 or 1,3,7; each seed fixes one model's split and initialization (default 1)")
    _output(p.add_argument("--out", required=True, metavar="DIR", help="output directory (created if missing)"), "dir")
    p.add_argument("--device", type=_device_type, default="cpu", help=DEVICE_HELP)
    p.add_argument("--dtype", default="float32", choices=DTYPES, help="training precision (default float32)")
    p.add_argument("--log-every", type=_int_type("log-every", 1), default=10, metavar="N",
                   help="record full-data loss and accuracy every N epochs (default 10)")
    p.add_argument("--snapshot-every", type=_int_type("snapshot-every", 0), default=0, metavar="N",
                   help="keep the weights every N epochs, streamed to DIR/<checkpoint>.snapshots/ as safetensors "
                        "files (read them with cogo dynamics; default 0: off)")
    p.add_argument("--snapshots", type=_int_type("snapshots", 0), default=0, metavar="N",
                   help="instead of --snapshot-every: keep the weights at N epochs, always epoch 0 and the last, "
                        "placed by --spacing (default 0: off)")
    p.add_argument("--spacing", choices=("log", "uniform"), default="log",
                   help="how --snapshots places its epochs: log (geometric, every early epoch; default) or uniform")
    p.add_argument("--max-batch", type=_int_type("max batch", 1), default=None, metavar="M",
                   help="at most M models per batched program (default: as many as fit in half the free memory)")
    p.add_argument("--kernel", default="auto", choices=KERNELS,
                   help="gradient kernel: all-pairs grid or training-pair gather (default auto); same results")
    p.add_argument("--threads", type=_int_type("threads", 1), default=None, metavar="T", help=_threads_help())
    _training_option_flags(p)
    p.add_argument("--plot", action="store_true", help="write the training curves to DIR/curves.png")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run from the state it saved in DIR (same command otherwise); the "
                        "result is bit-identical to an uninterrupted run and the snapshots written are kept")
    p.add_argument("--resume-every", type=_int_type("resume-every", 0), default=None, metavar="N",
                   help="save the full training state (weights and optimizer) in DIR every N epochs, atomically, so "
                        "that --resume can continue (default 1000; 0: never)")
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.add_argument("--force", action="store_true",
                   help="replace checkpoints of the same name already in DIR (default: refuse); " + FORCE_HELP)
    p.set_defaults(func=_cmd_train)


def _cmd_train(args) -> int:
    from cogo.io.outputs import check_output_dir
    from cogo.solvers.training import train, validate_run
    from cogo.solvers.training_config import TrainConfig
    from cogo.solvers.training_results import check_run_outputs, plot_history, save_run

    # every check happens here, before any training or output
    cfg = TrainConfig(group=args.group, hidden=args.hidden, lr=args.lr, weight_decay=args.wd[0] if args.wd else None,
                      epochs=args.epochs, test_fraction=args.test_fraction, loss=args.loss,
                      optimizer=args.optimizer, momentum=args.momentum, dtype=args.dtype, device=args.device,
                      log_every=args.log_every, snapshot_every=args.snapshot_every,
                      activation=args.activation, batch_size=args.batch_size, label_noise=args.label_noise,
                      top=args.top, ridge=args.ridge,
                      snapshots=args.snapshots, snapshot_spacing=args.spacing)
    defaulted = [f"{name} {value:g}" for name, value, given in
                 (("lr", cfg.lr, args.lr), ("weight decay", cfg.weight_decay, args.wd)) if given is None]
    if args.wd is None:
        args.wd = [cfg.weight_decay]
    with _user_input():
        seeds, wds, _, size = validate_run(cfg, args.seeds, args.wd, args.max_batch, args.kernel)
        out = check_output_dir(args.out)
        check_run_outputs(cfg, args.seeds, args.wd, out, force=args.force, plot=args.plot)
    from cogo.solvers.resume import DEFAULT_RESUME_EVERY, state_path

    resume_every = DEFAULT_RESUME_EVERY if args.resume_every is None else args.resume_every
    models = [(wd, s) for wd in wds for s in seeds]
    states = [state_path(out, cfg, models[i:i + size]) for i in range(0, len(models), size)]
    if not args.resume and not args.force and any(p.exists() for p in states):
        raise CogoError(f"{out} holds the saved state of an interrupted run of these models "
                        f"({next(p.name for p in states if p.exists())}): --resume continues it, --force starts again")
    if defaulted and cfg.group_obj.abelian is None:
        print(f"non-Abelian group {cfg.group}: default {', '.join(defaulted)} (see docs/groups.md)")
    results = train(cfg, args.seeds, weight_decays=args.wd, progress=not args.no_progress,
                    max_batch=args.max_batch, kernel=args.kernel, snapshot_dir=out, threads=args.threads,
                    resume_every=resume_every, resume=args.resume, log=lambda line: print(line, flush=True))
    paths = save_run(results, out)
    print(f"{'seed':>6} {'wd':>10} {'train_loss':>11} {'test_loss':>11} {'train_acc':>9} {'test_acc':>9}")

    def fmt(v, spec):
        return format(float("nan") if v is None else v, spec)

    for r in results:
        f = r.final
        print(f"{r.seed:>6} {r.weight_decay:>10.3g} {fmt(f['train_loss'], '11.4g')} {fmt(f['test_loss'], '11.4g')} "
              f"{fmt(f['train_acc'], '9.4f')} {fmt(f['test_acc'], '9.4f')}")
    for r in results:
        if "clean_train_acc" in r.final:  # --label-noise: the clean and corrupted training pairs apart
            f = r.final
            print(f"  seed {r.seed} wd {r.weight_decay:.3g}: clean training pairs acc {fmt(f['clean_train_acc'], '.4f')}"
                  f"; corrupted pairs acc (true label) {fmt(f['corrupted_acc_true_label'], '.4f')}, "
                  f"(corrupted label) {fmt(f['corrupted_acc_noisy_label'], '.4f')}")
    bad = sum(r.final["train_loss"] is None for r in results)
    if bad:
        print(f"warning: {bad} model(s) diverged (non-finite loss); try a smaller --lr")
    print(f"wrote {len(results)} checkpoint(s) to {out}")
    print(f"summary: {paths[-1]}")
    if args.plot:
        print(f"plot: {plot_history(results, out / 'curves.png')}")
    return 0


def _threads_help() -> str:
    from cogo.runtime.threads import POLICY_HELP

    return POLICY_HELP


# ---------------------------------------------------------------- classify
def _add_classify(sub) -> None:
    p = sub.add_parser(
        "classify", help="factor and classify trained checkpoints",
        description="Read trained 2-layer quadratic networks (SPEC 8): prune dead nodes, split the live ones "
                    "into per-frequency blocks, factor each block into Kronecker factors, name the factors "
                    "against the catalogue of SPEC 7 and aggregate over the checkpoints (mean +- standard "
                    "error). Prints a text table; every input is read and checked before any output is written.")
    _input(p.add_argument("files", nargs="+", metavar="FILE",
                          help="checkpoints: .pt in the reference layout (loaded with weights_only=True) or .npz "
                               "with Wa, Wb, Wc"))
    _output(p.add_argument("--json", metavar="FILE", help="also write the full results as JSON"))
    _output(p.add_argument("--markdown", metavar="FILE", help="also write the tables as Markdown"))
    _output(p.add_argument("--csv", metavar="FILE",
                           help="also write one row per block (checkpoint, group, k, order, type, factors' "
                                "parameters, nearest form and distance, conditions) as CSV"))
    _output(p.add_argument("--plots", metavar="DIR",
                           help="also write histograms of the angles of xi, nu, alpha, beta (PNG; Abelian groups "
                                "only: refused for the irreps reading of a non-Abelian group)"), "dir")
    _input(p.add_argument("--group", type=_group_type, default=None,
                   help="override the group recorded in the files (e.g. 23, 3x5, S3 or a Cayley-table .json); "
                        "a non-Abelian group gets the irreducible-representation reading (SPEC 9)"))
    p.add_argument("--dead-threshold", type=_float_type("dead threshold", 0.0, 1.0, lo_open=True), default=None,
                   metavar="X",
                   help="a node is dead when its strength is below X times the strongest node's (default 0.01)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.add_argument("--preset", choices=("default", "paper"), default="default",
                   help="tolerances: 'default' (factor and name within 0.05, the stricter reading) or 'paper' "
                        "(the reference classifier's 0.1, special cases named whenever within it); the table of "
                        "the reference's columns is printed either way")
    p.add_argument("--threads", type=_int_type("threads", 1), default=None, metavar="T", help=_threads_help())
    p.add_argument("--workers", type=_int_type("workers", 1), default=1, metavar="W",
                   help="processes reading the checkpoints, each one at a time (default 1: this process)")
    _reader_flags(p)
    p.set_defaults(func=_cmd_classify)


def _cmd_classify(args) -> int:
    from cogo.algebra.spec import parse_group
    from cogo.analysis.classify import DEAD_THRESHOLD, Settings, classify_many
    from cogo.analysis.report import check_output_paths

    thr = DEAD_THRESHOLD if args.dead_threshold is None else args.dead_threshold
    group = parse_group(args.group) if args.group is not None else None
    inputs = [*args.files, *_group_inputs(args.group)]
    with _user_input():
        check_output_paths(args.json, args.markdown, args.plots, inputs=inputs, force=args.force)
        if args.csv is not None:
            from cogo.io.outputs import check_outputs

            check_outputs([("--json", args.json), ("--markdown", args.markdown), ("--csv", args.csv)],
                          inputs=inputs, force=args.force)

    def abelian_only(loaded) -> None:  # before any analysis: what the irreps reading (SPEC 9) cannot give
        other = next((w.group for w in loaded if w.group.abelian is None), None)
        for flag, given in (("--plots", args.plots), ("--csv", args.csv)):
            if other is not None and given is not None:
                raise CogoError(f"{flag} needs the block reading of an Abelian group (SPEC 8); {other} is read "
                                f"through its irreducible representations (SPEC 9), which has no {flag[2:]}: "
                                f"drop {flag}")

    from cogo.io.checkpoint import read_checkpoint
    from cogo.runtime.limits import classify_estimate

    with _user_input():  # each file read once (cogo.io), refused from its header when the work cannot fit
        loaded = [read_checkpoint(f, group=group, estimate=classify_estimate) for f in args.files]
    if (rc := _other_activation(args, loaded, "classify")) is not None:
        return rc
    from cogo.runtime.threads import threads as _threads

    with _threads(args.threads):
        result = classify_many(loaded, group=group,
                               settings=Settings.preset_named(getattr(args, "preset", "default"), dead_threshold=thr),
                               progress=not args.no_progress, on_loaded=abelian_only,
                               workers=args.workers, keep_weights=args.plots is not None)
    # either reading (blocks, SPEC 8; irreps, SPEC 9) honours one contract: cogo.analysis.reading.Reading
    text = result.render_text()
    written = result.write_outputs(args.json, args.markdown, args.plots, force=args.force)
    if args.csv is not None:  # Abelian only (refused above for the irreps reading)
        from cogo.analysis.records import write_csv

        written.append(write_csv(result, args.csv))
    sys.stdout.write(text)
    for rep in getattr(result, "reports", None) or []:
        meta = getattr(rep, "meta", None) or {}
        print(f"read {getattr(rep, 'path', '')}: layout {meta.get('layout', 'cogo')}, activation "
              f"{meta.get('activation', 'sqr')}")
    for path in written:
        print(f"wrote {path}")
    return 0


# ---------------------------------------------------------------- dynamics
def _add_dynamics(sub) -> None:
    p = sub.add_parser(
        "dynamics", help="read a training run over time from its snapshots",
        description="Read every snapshot of checkpoints trained with --snapshots N (or of a series of checkpoint "
                    "files, one per epoch): per snapshot the live "
                    "nodes per frequency, each block's order, r_kkk, largest R_c, R_n, R_* residuals, type "
                    "(as cogo classify reads it) and the loss; per frequency the potentials; when each block "
                    "reaches its final type; over many runs, when each block type appears (mean +- s.e.). "
                    "Writes OUT/dynamics.json and OUT/figures/*.png; per-snapshot results are cached in "
                    "OUT/cache so an interrupted reading resumes.")
    _input(p.add_argument("files", nargs="+", metavar="RUN",
                          help="checkpoints with snapshots (cogo train --snapshots N); or a series of checkpoints, "
                               "one per epoch (model00000.pt model00010.pt ...: epochs from the names or the "
                               "metadata; any layout cogo reads); a folder (a series, or a sweep of runs read as "
                               "a grid); a quoted glob pattern"))
    _output(p.add_argument("--out", required=True, metavar="DIR",
                           help="output directory (created if missing; its cache is reused to resume)"), "dir")
    p.add_argument("--workers", type=_int_type("workers", 1), default=None, metavar="W",
                   help="processes classifying snapshots (default: min(2, CPU count))")
    _input(p.add_argument("--group", type=_group_type, default=None, help="override the group recorded in the files"))
    p.add_argument("--dead-threshold", type=_float_type("dead threshold", 0.0, 1.0, lo_open=True), default=None,
                   metavar="X", help="as for cogo classify (default 0.01)")
    p.add_argument("--max-order", type=_int_type("max-order", 1), default=12, metavar="M",
                   help="blocks of more than M nodes are not factored, only measured (default 12; 48 factors "
                        "what cogo classify factors)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write OUT/cache")
    p.add_argument("--no-figures", action="store_true", help="write only dynamics.json")
    p.add_argument("--activation", default=None, choices=ACTIVATION_NAMES,
                   help="the network's activation (default: the file's record, else sqr); non-sqr runs get the "
                        "per-node frequency report per snapshot")
    p.add_argument("--threads", type=_int_type("threads", 1), default=None, metavar="T", help=_threads_help())
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.add_argument("--force", action="store_true",
                   help="replace the analysis already in OUT (dynamics.json and its figures; figures of runs not "
                        "read this time are removed); default: refuse. " + FORCE_HELP)
    p.set_defaults(func=_cmd_dynamics, keys=None, shared_embedding=False)


def _cmd_dynamics(args) -> int:
    from cogo.analysis.classify import DEAD_THRESHOLD, Settings
    from cogo.runtime.threads import set_threads

    set_threads(args.threads)  # the one meaning of --threads: the override of cogo.runtime.threads (None: the rule)
    thr = DEAD_THRESHOLD if args.dead_threshold is None else args.dead_threshold
    from cogo.runtime.limits import dynamics_estimate, require

    import os

    workers = max(1, int(args.workers if args.workers is not None else min(2, os.cpu_count() or 1)))
    from cogo.io.checkpoint import Checkpoint
    from cogo.dynamics.series import discover_runs

    with _user_input():  # files, folders, globs: the runs they name (a series of checkpoints is one run); each
        # file read once (cogo.io), what cannot fit refused from its header before any array is read
        sources = discover_runs(args.files, group=args.group, estimate=lambda n, q: dynamics_estimate(n, q, workers))
    for s in sources:
        if not isinstance(s, Checkpoint):  # a series: its shapes are known from its first file
            require(dynamics_estimate(s.n, s.hidden, workers))
    files = [s for s in sources if isinstance(s, Checkpoint)]
    from cogo.dynamics.runs import analyse_run, render_text, write_dynamics  # after the refusal: torch and the rest
    from cogo.io.snapshots import open_snapshots
    from cogo.io.outputs import check_output_dir

    for f in files:  # every input is checked before anything is written
        open_snapshots(f, group=args.group)
    with _user_input():
        out = check_output_dir(args.out)
        from cogo.io.outputs import check_output_file

        check_output_file(out / "dynamics.json", inputs=args.files, force=args.force, label="--out")
    from cogo.analysis.nodes import activation_reports

    with _user_input():  # another activation: no catalogue form; the per-node report, then the progress measures
        got = activation_reports(files, "dynamics", group=args.group, snapshots=True, dead_threshold=thr) \
            if files else None
    if got is not None:
        sys.stdout.write(got[0])
    cache = None if args.no_cache else out / "cache"
    runs = []
    for f in sources:
        bar = _CountBar(f"dynamics {Path(str(getattr(f, 'path', f))).stem}", "snapshot", off=args.no_progress)
        try:
            runs.append(analyse_run(f, Settings(dead_threshold=thr), cache_dir=cache, workers=workers,
                                    group=args.group, progress=bar, max_order=args.max_order))
        finally:
            bar.close()
    written = write_dynamics(runs, out, figures=not args.no_figures)
    # --force: none of the old run's figures stays
    _remove_stale(out / "figures", ("dynamics_*.png", "progress_*.png", "peers_*.png"), written)
    sys.stdout.write(render_text(runs))
    for path in written:
        print(f"wrote {path}")
    return 0


class _CountBar:
    """A tqdm bar fed with ``(done, total)`` counts (the ``progress`` callback of the readers); nothing with ``off``."""

    def __init__(self, desc: str, unit: str, off: bool = False) -> None:
        self.desc, self.unit, self.off, self.bar = desc, unit, off, None

    def __call__(self, done: int, total: int) -> None:
        if self.off:
            return
        if self.bar is None:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=self.desc, unit=self.unit, dynamic_ncols=True)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _remove_stale(folder: Path, patterns: tuple, written: list) -> None:
    """Remove the files of ``folder`` matching ``patterns`` that this run did not write (an older run's, left by
    --force or a run over fewer inputs): what the folder shows is this run's only."""
    keep = {Path(w).resolve() for w in written}
    for pat in patterns:
        for f in (folder.glob(pat) if folder.is_dir() else ()):
            if f.resolve() not in keep and f.is_file():
                f.unlink()


# ---------------------------------------------------------------- experiment / demo
def _experiment_flags(p, demo: bool) -> None:
    from cogo.commands.experiment import DEMO_CONFIG, ExperimentConfig

    d = DEMO_CONFIG if demo else ExperimentConfig()
    seeds = ",".join(map(str, d.seeds)) if demo else "1-5"
    _input(p.add_argument("--groups", type=_groups_type, nargs="+", default=list(d.groups), metavar="G",
                          help=f"Abelian groups, e.g. 23 71 127 or 3x5, or an Abelian Cayley-table .json (default "
                               f"{' '.join(d.groups)}), or a collection 'smallgroups(order<=16, abelian)' (GAP); "
                               "non-Abelian groups (S3, D5, a non-commutative table) are "
                               "refused: the report reads blocks of Z_d1 x ... x Z_dn (SPEC 8); train and classify "
                               "them with cogo train and cogo classify"))
    p.add_argument("--seeds", type=parse_seeds, default=parse_seeds(seeds), help=f"seeds, e.g. 1-5 (default {seeds})")
    p.add_argument("--wd", type=_float_type("weight decay", 0.0), nargs="+", default=list(d.weight_decays),
                   metavar="WD", help="weight decay(s) (default 5e-5)")
    p.add_argument("--hidden", type=_int_type("hidden size", 1), default=d.hidden,
                   help=f"hidden nodes q (default {d.hidden})")
    p.add_argument("--epochs", type=_int_type("epochs", 0), default=d.epochs,
                   help=f"full-batch epochs (default {d.epochs})")
    p.add_argument("--lr", type=_float_type("learning rate", 0.0, lo_open=True), default=d.lr,
                   help=f"learning rate (default {d.lr})")
    p.add_argument("--test-fraction", type=_float_type("test fraction", 0.0, 1.0, lo_open=True),
                   default=d.test_fraction, help="held-out pairs, in (0, 1) (default 0.1)")
    p.add_argument("--loss", choices=LOSSES, default=d.loss, help="training loss (default mse)")
    p.add_argument("--optimizer", choices=OPTIMIZERS, default=d.optimizer,
                   help="adam (default), adamw, sgd or muon (Muon on the hidden layer, Adam on the output layer)")
    _training_option_flags(p)
    p.add_argument("--device", type=_device_type, default=d.device, help=DEVICE_HELP)
    p.add_argument("--verify", choices=["exact", "numeric", "both", "none"], default=d.verify,
                   help="which theorem checks to run per group (default both)")
    p.add_argument("--dynamics", type=_int_type("dynamics", 0), default=0, metavar="N",
                   help="snapshot every N epochs and read each run over time (as cogo dynamics) into "
                        "OUT/dG/dynamics/ (default 0: off)")
    p.add_argument("--threads", type=_int_type("threads", 1), default=None, metavar="T", help=_threads_help())
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.add_argument("--force", action="store_true",
                   help="run this grid in an output directory that holds another experiment (its report is replaced; "
                        "its other checkpoints are left alone and not reported)")


def _add_experiment(sub) -> None:
    p = sub.add_parser("experiment", help="train, classify and verify a grid; write a report",
                       description="Train every group x weight decay x seed (batched over seeds), classify every "
                                   "model, verify the constructions and write OUT/report.md and OUT/report.json. "
                                   "Models already trained in OUT are reused, so an interrupted run can be resumed.")
    _experiment_flags(p, demo=False)
    _output(p.add_argument("--out", required=True, metavar="DIR",
                           help="output directory (created if missing; reused to resume)"), "dir")
    from cogo.runtime.executors import add_arguments as _executor_flags

    _executor_flags(p)  # --executor {inprocess,local,slurm} and the Slurm options (cogo/runtime/executors.py)
    p.set_defaults(func=_cmd_experiment)


def _experiment_config(args):
    from cogo.commands.experiment import ExperimentConfig

    return ExperimentConfig(groups=_flat_groups(args.groups), seeds=tuple(args.seeds), weight_decays=tuple(args.wd),
                            hidden=args.hidden, epochs=args.epochs, lr=args.lr, test_fraction=args.test_fraction,
                            loss=args.loss, optimizer=args.optimizer, device=args.device, verify=args.verify,
                            dynamics=args.dynamics, threads=args.threads, activation=args.activation,
                            batch_size=args.batch_size, label_noise=args.label_noise, top=args.top, ridge=args.ridge)


def _run_and_print(cfg, out, args, command: str) -> int:
    from cogo.commands.experiment import run_experiment, summary_text, verification_ok
    from cogo.runtime.executors import settings_from_args
    from cogo.io.outputs import check_output_dir

    executor = settings_from_args(args, out)  # inprocess for cogo demo; CogoError if submitit/sbatch is missing
    with _user_input():
        check_output_dir(out)

    report = run_experiment(cfg, out, progress=not args.no_progress, command=command,
                            log=lambda s: print(s, flush=True), force=args.force, executor=executor)
    print()
    print(summary_text(report), end="")
    print()
    print(f"report: {Path(out) / 'report.md'}  (data: {Path(out) / 'report.json'}, figures: {Path(out) / 'figures'})")
    return 0 if verification_ok(report) else 1


def _cmd_experiment(args) -> int:
    with _user_input():
        cfg = _experiment_config(args).validate()
    return _run_and_print(cfg, args.out, args, _command(args))


def _add_demo(sub) -> None:
    p = sub.add_parser("demo", help="a small real experiment on built-in defaults (a few minutes on CPU)",
                       description="Train Z_23 at the reference hyperparameters (q=512, Adam lr 0.01, wd 5e-5, "
                                   "10000 epochs) for 5 seeds, classify the models, verify the constructions, "
                                   "and write the report to a fresh directory cogo-demo-DATE-TIME.")
    _experiment_flags(p, demo=True)
    _output(p.add_argument("--out", default=None, metavar="DIR",
                           help="output directory (default: a fresh cogo-demo-DATE-TIME)"), "dir")
    p.set_defaults(func=_cmd_demo)


def _cmd_demo(args) -> int:
    from cogo.commands.experiment import fresh_directory

    with _user_input():
        cfg = _experiment_config(args).validate()
    out = args.out or str(fresh_directory("cogo-demo"))
    print(f"cogo demo: writing to {out}", flush=True)
    return _run_and_print(cfg, out, args, _command(args))


# ---------------------------------------------------------------- li2-sweep
def _add_li2_sweep(sub) -> None:
    p = sub.add_parser(
        "li2-sweep", help="the memorization-generalization boundary of SPEC 9 (Theorem 4): sweep and phase diagram",
        description="Train Z_M for every group order M, every x = n / (M log M) (train fraction x log(M) / M) and "
                    "every learning rate, seeds batched; write OUT/sweep.json (resumable: cells already there are "
                    "reused), OUT/phase_diagram_lr*.png (test accuracy with the theoretical line x = 2.7482) and "
                    "print the table and the fitted constant. See docs/li2.md.")
    _input(p.add_argument("--groups", type=_groups_type, nargs="+", default=["11", "17", "23", "31"], metavar="G",
                          help="groups: orders (Z_M), products like 3x5, names like S3 D5 A4, Cayley-table "
                               ".json files, SmallGroup(24,12) or collections like "
                               "'smallgroups(order<=16, nonabelian, max_irrep_dim=2)' (default 11 17 23 31)"))
    p.add_argument("--x", type=_float_type("x", 0.0, lo_open=True), nargs="+", default=[0.75, 1.5, 2.25, 3.0, 3.75, 4.5],
                   metavar="X", help="values of n / (M log M) (default 0.75 1.5 2.25 3 3.75 4.5)")
    p.add_argument("--seeds", type=parse_seeds, default=parse_seeds("1-3"), help="seeds (default 1-3)")
    p.add_argument("--lr", type=_float_type("learning rate", 0.0, lo_open=True), nargs="+", default=[0.01],
                   metavar="LR", help="learning rate(s); several show the learning-rate effect (default 0.01)")
    p.add_argument("--hidden", type=_int_type("hidden", 1), default=256, help="hidden nodes (default 256)")
    p.add_argument("--epochs", type=_int_type("epochs", 1), default=3000, help="full-batch epochs (default 3000)")
    p.add_argument("--wd", type=_float_type("weight decay", 0.0), default=5e-4, help="weight decay (default 5e-4)")
    p.add_argument("--threads", type=_int_type("threads", 1), default=None, metavar="T", help=_threads_help())
    p.add_argument("--device", type=_device_type, default="cpu", help=DEVICE_HELP)
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    _output(p.add_argument("--out", required=True, metavar="DIR",
                           help="output directory (created if missing; reused to resume)"), "dir")
    p.add_argument("--force", action="store_true",
                   help="replace the sweep already in OUT (sweep.json of other settings, fit.json, the phase "
                        "diagrams; its cells are not reused); default: resume a sweep of the same settings, refuse "
                        "one of other settings. " + FORCE_HELP)
    from cogo.runtime.executors import add_arguments as _executor_flags

    _executor_flags(p)  # --executor {inprocess,local,slurm} and the Slurm options (cogo/runtime/executors.py)
    p.set_defaults(func=_cmd_li2_sweep)


def _cmd_li2_sweep(args) -> int:
    import json
    import time

    from cogo.io.outputs import atomic_write, atomic_write_text
    from cogo.io.formatting import dumps_json, render_table
    from cogo.li2.boundary import SweepConfig, fit_constant, phase_diagram_png, row_key, sweep, sweep_table
    from cogo.io.outputs import check_output_dir

    cfg = SweepConfig(groups=_flat_groups(args.groups), xs=tuple(args.x), seeds=tuple(args.seeds), lrs=tuple(args.lr),
                      hidden=args.hidden, epochs=args.epochs, weight_decay=args.wd, device=args.device).validate()
    from cogo.runtime.executors import settings_from_args

    executor = settings_from_args(args, args.out)  # CogoError (one line) if submitit or sbatch is missing
    with _user_input():
        out = check_output_dir(args.out)
    from cogo.runtime.threads import set_threads

    set_threads(args.threads)  # the one meaning of --threads: the override of cogo.runtime.threads (None: the rule)
    path = out / "sweep.json"
    done = {}
    if path.is_file() and not args.force:
        try:
            old = json.loads(path.read_text())
            same = old.get("config", {}) == json.loads(dumps_json(_sweep_settings(cfg)))
            done = {row_key(r): r for r in old["rows"]} if same else {}
        except (ValueError, KeyError, TypeError, AttributeError):
            raise CogoError(f"{path} is not a sweep.json written by cogo li2-sweep; use a fresh --out, or --force "
                            "to replace it") from None
        if not same:
            raise CogoError(f"{path} was written with other settings; use a fresh --out, or --force to replace it")
    t0 = time.perf_counter()

    def save(rows):  # the cells of an earlier sweep outside this grid stay in sweep.json (never silently dropped)
        keys = {row_key(r) for r in rows}
        kept = [r for k, r in done.items() if k not in keys]
        atomic_write_text(path, dumps_json({"config": _sweep_settings(cfg), "rows": rows + kept}))
    rows = sweep(cfg, log=lambda s: print(s, flush=True), done=done, on_cell=save, executor=executor,
                 progress=not args.no_progress)
    save(rows)
    head, body = sweep_table(rows)
    print()
    print("mean test accuracy over seeds:")
    print(render_table(head, body))
    fits = [fit_constant(rows, lr) for lr in cfg.lrs]
    for f in fits:
        per = ", ".join(f"{g}: {'-' if v is None else format(v, '.3g')} (theory {f['theory'][g]:.3g})"
                        for g, v in f["per_group"].items())
        c = "none (no crossing)" if f["constant"] is None else format(f["constant"], ".3f")
        sc = "" if f["scaled"] is None or all(d == 1 for d in f["d_max"].values()) else \
            f"; crossing / d_max^2, median over all groups = {f['scaled']:.3f}"
        print(f"lr {f['lr']:g}: fitted boundary n/(M log M), d_max = 1 groups = {c} (paper {f['paper']}){sc}; "
              f"per group: {per}")
    pngs = []
    for lr in cfg.lrs:
        png = out / f"phase_diagram_lr{lr:g}.png"
        with atomic_write(png, "wb") as fh:
            fh.write(phase_diagram_png(rows, lr))
        pngs.append(png)
        print(f"wrote {png}")
    _remove_stale(out, ("phase_diagram_lr*.png",), pngs)  # --force: no diagram of the replaced sweep stays
    from cogo.li2.boundary import dk_law_report  # groups with d_max > 1: x* per group over seeds and the d_k law

    laws = dk_law_report(rows, cfg.lrs, out, log=lambda s: print(s, flush=True))
    atomic_write_text(out / "fit.json", dumps_json({"fits": fits, "wall_s": time.perf_counter() - t0,
                                                   **({"dk_law": laws} if laws else {})}))
    print(f"wrote {path} and {out / 'fit.json'} ({time.perf_counter() - t0:.0f} s)")
    return 0


def _sweep_settings(cfg) -> dict:
    from dataclasses import asdict

    d = asdict(cfg)
    for k in ("xs", "seeds", "lrs", "groups"):
        d.pop(k)
    return d


# ---------------------------------------------------------------- main
def _command(args) -> str:
    """The command line that was run, as a shell would show it (recorded in reports)."""
    return shlex.join(["cogo", *args.argv])


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``cogo`` parser; a usage error raises an internal exception that :func:`main` prints as one line.

    ``only``: build just that subcommand (start-up: ``cogo classify`` then
    never imports what other commands need, e.g. cogo.commands.experiment).
    """
    parser = _Parser(
        prog="cogo",
        description="Verify, exactly and numerically, the structure of the solutions "
                    "quadratic networks learn for group addition.",
    )
    parser.add_argument("--version", action="version", version=f"cogo {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    adders = (_add_verify, _add_construct, _add_train, _add_classify, _add_dynamics, _add_experiment, _add_demo, _add_li2_sweep)
    if only is not None:
        adders = tuple(a for a in adders if a.__name__ == f"_add_{only}") or adders
    for add in adders:
        add(sub)
    return parser


def _error(message: str) -> int:
    print(f"cogo: error: {' '.join(str(message).split())}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``cogo ARGV`` (default ``sys.argv[1:]``) and return the exit status.

    0: success; 1: a check failed (``verify``, ``experiment``); 2: a user error,
    printed as ONE line ``cogo: error: ...`` on stderr (a usage error from
    argparse, or a :class:`cogo.runtime.errors.CogoError`); 130: interrupted (Ctrl-C at
    any moment, start-up included: one line ``cogo: interrupted; ...`` on a line of
    its own, saying how to resume, never a traceback).  Any other exception is a bug in
    cogo and propagates with its traceback.  The thread settings (``--threads``) hold
    for the command only: torch's and BLAS's thread counts are restored after it
    (:func:`cogo.runtime.threads.preserved`).
    """
    argv = [str(a) for a in (sys.argv[1:] if argv is None else argv)]
    try:
        return _main(argv)
    except KeyboardInterrupt:
        _close_progress_bars()
        print(f"cogo: interrupted{_resume_hint(argv)}", file=sys.stderr, flush=True)
        return 130


def _main(argv: list) -> int:
    parser = build_parser(only="classify" if argv[:1] == ["classify"] else None)
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        return _error(str(exc))
    args.argv = argv
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    from cogo.runtime.threads import preserved

    try:
        with preserved(), _reading(args):
            return int(args.func(args) or 0)
    except CogoError as exc:
        return _error(str(exc))


def _close_progress_bars() -> None:
    """End every open tqdm bar (its line), so that what follows starts on a line of its own."""
    tqdm = sys.modules.get("tqdm.std")
    for bar in list(getattr(getattr(tqdm, "tqdm", None), "_instances", None) or []):
        try:
            bar.close()
        except Exception:  # pragma: no cover - a bar half torn down by the interrupt
            pass


def _resume_hint(argv: list) -> str:
    """What to run after an interruption: the resumable commands say how they continue."""
    cmd = argv[:1]
    if cmd == ["train"]:
        again = shlex.join(["cogo", *(argv if "--resume" in argv else [*argv, "--resume"])])
        out = next((a.split("=", 1)[1] if "=" in a else argv[i + 1] for i, a in enumerate(argv)
                    if (a == "--out" and i + 1 < len(argv)) or a.startswith("--out=")), None)
        saved = out is not None and Path(out).is_dir() and any(Path(out).glob(".*.resume.pt"))
        where = ("from the state saved in --out" if saved else
                 "no state saved yet, so from epoch 0; one is saved every --resume-every epochs, default 1000")
        return f"; resume with --resume ({where}): {again}"
    if cmd in (["experiment"], ["li2-sweep"], ["dynamics"]):
        return f"; run the same command to resume (finished work in its --out is reused): {shlex.join(['cogo', *argv])}"
    return ""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
