"""The ``cogo`` command line: the parser and :func:`main`; each command is a module of :mod:`cogo.commands`.

The commands are the registry :mod:`cogo.commands` (one module each, documented in docs/cli.md); ``cogo --help``
lists them in the workflow's order, each with its help line.

Every user error (bad flags, bad files, impossible sizes) prints one line
``cogo: error: ...`` on stderr and exits with status 2, before any output
file is written.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Sequence

from cogo._version import __version__
from cogo.commands import attribute, command_module, command_modules, names
from cogo.runtime.errors import CogoError
from cogo.runtime.threads import preserved

EXIT_USAGE = 2


class _UsageError(Exception):
    """A command line that argparse rejects (unknown flag, bad value): one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one error path: a usage error is one line, not the whole usage text."""

    def error(self, message: str):  # type: ignore[override]
        raise _UsageError(f"{' '.join(message.split())} (see '{self.prog} --help')")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``cogo`` parser; a usage error raises an internal exception that :func:`main` prints as one line.

    ``only``: build just that command's parser (:func:`main` does, for the command it runs: the
    modules of the other commands are never imported); an unknown name builds them all.
    """
    parser = _Parser(
        prog="cogo",
        description="Verify, exactly and numerically, the structure of the solutions "
                    "quadratic networks learn for group addition.",
    )
    parser.add_argument("--version", action="version", version=f"cogo {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in ([command_module(only)] if only in names() else command_modules()):
        module.add(sub)
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
    program = argv is None  # the process itself (the console script, python -m cogo.cli), not a caller in Python
    argv = [str(a) for a in (sys.argv[1:] if argv is None else argv)]
    try:
        return _main(argv)
    except KeyboardInterrupt:
        _close_progress_bars()
        print(f"cogo: interrupted{_resume_hint(argv)}", file=sys.stderr, flush=True)
        if program:  # the process ends here with 130: interpreter shutdown after an interrupt in a half-done import
            sys.stdout.flush()  # (torch's) could still end it by signal (rc -2 seen in CI); what unwinding
            os._exit(130)  # had to undo (temporary folders, partial writes) is undone by now
        return 130


def _main(argv: list) -> int:
    parser = build_parser(only=argv[0] if argv else None)
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        return _error(str(exc))
    args.argv = argv
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        with preserved():
            return int(command_module(args.command).run(args) or 0)
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
    """What to run after an interruption: the resumable commands (their ``RESUME``, :mod:`cogo.commands`) say how
    they continue."""
    try:
        how = attribute(argv[0], "RESUME") if argv else None
    except Exception:  # pragma: no cover - interrupted inside the command module's own import: say nothing
        how = None
    if how == "flag":
        again = shlex.join(["cogo", *(argv if "--resume" in argv else [*argv, "--resume"])])
        out = next((a.split("=", 1)[1] if "=" in a else argv[i + 1] for i, a in enumerate(argv)
                    if (a == "--out" and i + 1 < len(argv)) or a.startswith("--out=")), None)
        saved = out is not None and Path(out).is_dir() and any(Path(out).glob(".*.resume.pt"))
        where = ("from the state saved in --out" if saved else
                 "no state saved yet, so from epoch 0; one is saved every --resume-every epochs, default 1000")
        return f"; resume with --resume ({where}): {again}"
    if how == "rerun":
        return f"; run the same command to resume (finished work in its --out is reused): {shlex.join(['cogo', *argv])}"
    return ""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
