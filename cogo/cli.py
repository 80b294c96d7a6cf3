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
import sys
from typing import Sequence

from cogo import __version__

EXIT_USAGE = 2


class CLIError(Exception):
    """A user error: printed as one line, exit status 2."""


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
def _add_verify(sub) -> None:
    p = sub.add_parser("verify", help="prove the theorems exactly and numerically",
                       description="Check every theorem of SPEC 3-7 on a group and run the negative controls.")
    p.add_argument("--group", default="23", help="group: an order like 23 or a product like 3x5 (default 23)")
    m = p.add_mutually_exclusive_group()
    m.add_argument("--exact", dest="method", action="store_const", const="exact", help="exact (sympy) checks only")
    m.add_argument("--numeric", dest="method", action="store_const", const="numeric", help="numeric checks only")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.set_defaults(method="both", func=_cmd_verify)


def _cmd_verify(args) -> int:
    raise CLIError("cogo verify is not implemented yet")


# ---------------------------------------------------------------- construct
def _add_construct(sub) -> None:
    p = sub.add_parser("construct", help="write a construction of SPEC 7 as a checkpoint")
    p.add_argument("kind", choices=["f6", "f6-ab", "f46", "mem"], help="which global optimizer")
    p.add_argument("--group", default="23", help="group order or product (default 23)")
    p.add_argument("--seed", type=int, default=None, help="draw the free parameters from this seed (default: fixed documented values)")
    p.add_argument("-o", "--output", required=True, metavar="FILE.pt", help="checkpoint to write")
    p.set_defaults(func=_cmd_construct)


def _cmd_construct(args) -> int:
    raise CLIError("cogo construct is not implemented yet")


# ---------------------------------------------------------------- train
def _add_train(sub) -> None:
    p = sub.add_parser("train", help="train quadratic networks on group addition")
    p.set_defaults(func=_cmd_train)


def _cmd_train(args) -> int:
    raise CLIError("cogo train is not implemented yet")


# ---------------------------------------------------------------- classify
def _add_classify(sub) -> None:
    p = sub.add_parser("classify", help="factor and classify trained checkpoints")
    p.set_defaults(func=_cmd_classify)


def _cmd_classify(args) -> int:
    raise CLIError("cogo classify is not implemented yet")


# ---------------------------------------------------------------- experiment / demo
def _add_experiment(sub) -> None:
    p = sub.add_parser("experiment", help="train, classify and verify a grid; write a report")
    p.set_defaults(func=_cmd_experiment)


def _cmd_experiment(args) -> int:
    raise CLIError("cogo experiment is not implemented yet")


def _add_demo(sub) -> None:
    p = sub.add_parser("demo", help="a small real experiment on built-in defaults (a few minutes on CPU)")
    p.set_defaults(func=_cmd_demo)


def _cmd_demo(args) -> int:
    raise CLIError("cogo demo is not implemented yet")


# ---------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cogo",
        description="Verify, exactly and numerically, the structure of the solutions "
                    "quadratic networks learn for group addition.",
    )
    parser.add_argument("--version", action="version", version=f"cogo {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in (_add_verify, _add_construct, _add_train, _add_classify, _add_experiment, _add_demo):
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except (CLIError, ValueError) as exc:
        msg = " ".join(str(exc).split())
        print(f"cogo: error: {msg}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("cogo: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
