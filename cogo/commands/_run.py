"""What the commands' ``run`` functions share: user-input checks, the non-sqr report, stale outputs, the command."""
from __future__ import annotations

import contextlib
import shlex
import sys
from pathlib import Path
from typing import Iterator

from cogo.io.tables import dumps_json
from cogo.io.outputs import atomic_write_text, check_output_file
from cogo.runtime.errors import CogoError


@contextlib.contextmanager
def user_input() -> Iterator[None]:
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


def command_line(args) -> str:
    """The command line that was run, as a shell would show it (recorded in reports)."""
    return shlex.join(["cogo", *args.argv])


def other_activation(args, paths, command: str, snapshots: bool = False) -> int | None:
    """Non-sqr networks: one line saying no catalogue form applies, then the per-node report (exit 0)."""
    from cogo.analysis.nodes import activation_reports  # late: start-up (cogo --help reads no network)

    group = getattr(args, "group", None) if command != "verify" else None   # verify --checkpoint: the file's group
    with user_input():
        got = activation_reports(paths, command, group=group, snapshots=snapshots,
                                 dead_threshold=getattr(args, "dead_threshold", None) or 0.01)
    if got is None:
        return None
    text, reports = got
    sys.stdout.write(text)
    out_json = getattr(args, "json", None)
    if out_json:
        check_output_file(out_json, force=getattr(args, "force", False), label="--json")
        atomic_write_text(out_json, dumps_json(reports))
        print(f"wrote {out_json}")
    if command == "verify":  # the verdict (exit 0 = global optimizer) exists for sqr only
        print("verdict: none (no global-optimality statement exists for this activation)")
        return 1
    return 0


def remove_stale(folder: Path, patterns: tuple, written: list) -> None:
    """Remove the files of ``folder`` matching ``patterns`` that this run did not write (an older run's, left by
    --force or a run over fewer inputs): what the folder shows is this run's only."""
    keep = {Path(w).resolve() for w in written}
    for pat in patterns:
        for f in (folder.glob(pat) if folder.is_dir() else ()):
            if f.resolve() not in keep and f.is_file():
                f.unlink()
