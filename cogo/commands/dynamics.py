"""``cogo dynamics``: read a training run over time from its snapshots (or a series of checkpoints)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from cogo.algebra.activations import NAMES as ACTIVATION_NAMES
from cogo.commands._args import (FORCE_HELP, NO_PROGRESS_HELP, activation_help, add_threads, float_type, group_type,
                                 int_type)
from cogo.commands._run import remove_stale, user_input
from cogo.io.outputs import check_output_file, mark_input, mark_output
from cogo.runtime.limits import dynamics_estimate, require
from cogo.runtime.threads import set_threads

ORDER = 5
RESUME = "rerun"
LONG = True


def add(subparsers) -> None:
    p = subparsers.add_parser(
        "dynamics", help="read a training run over time from its snapshots",
        description="Read every snapshot of checkpoints trained with --snapshots N (or of a series of checkpoint "
                    "files, one per epoch): per snapshot the live "
                    "nodes per frequency, each block's order, r_kkk, largest R_c, R_n, R_* residuals, type "
                    "(as cogo classify reads it) and the loss; per frequency the potentials; when each block "
                    "reaches its final type; over many runs, when each block type appears (mean +- s.e.). "
                    "Writes OUT/dynamics.json and OUT/figures/*.png; per-snapshot results are cached in "
                    "OUT/cache so an interrupted reading resumes.")
    mark_input(p.add_argument("files", nargs="+", metavar="RUN",
                              help="checkpoints with snapshots (cogo train --snapshots N); or a series of "
                                   "checkpoints, one per epoch (model00000.pt model00010.pt ...: epochs from the "
                                   "names or the metadata; any layout cogo reads); a folder (a series, or a sweep "
                                   "of runs read as a grid); a quoted glob pattern"))
    mark_output(p.add_argument("--out", required=True, metavar="DIR",
                               help="output directory (created if missing; its cache is reused to resume)"), "dir")
    p.add_argument("--workers", type=int_type("workers", 1), default=None, metavar="W",
                   help="processes classifying snapshots (default: min(2, CPU count))")
    mark_input(p.add_argument("--group", type=group_type, default=None,
                              help="override the group recorded in the files"))
    p.add_argument("--dead-threshold", type=float_type("dead threshold", 0.0, 1.0, lo_open=True), default=None,
                   metavar="X", help="as for cogo classify (default 0.01)")
    p.add_argument("--max-order", type=int_type("max-order", 1), default=12, metavar="M",
                   help="blocks of more than M nodes are not factored, only measured (default 12; 48 factors "
                        "what cogo classify factors)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write OUT/cache")
    p.add_argument("--no-figures", action="store_true", help="write only dynamics.json")
    p.add_argument("--activation", default=None, choices=ACTIVATION_NAMES,
                   help=f"the network's activation: {activation_help()} (default: the file's record, else sqr); "
                        "non-sqr runs get the per-node frequency report per snapshot")
    add_threads(p)
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.add_argument("--force", action="store_true",
                   help="replace the analysis already in OUT (dynamics.json and its figures; figures of runs not "
                        "read this time are removed); default: refuse a finished analysis (an interrupted one has "
                        "no dynamics.json yet and resumes without --force); for each output: " + FORCE_HELP)
    p.set_defaults(keys=None, shared_embedding=False)


def run(args) -> int:
    from cogo.analysis.classify import DEAD_THRESHOLD  # late: start-up (cogo --help reads no network)
    from cogo.dynamics.series import discover_runs  # late: start-up
    from cogo.io.checkpoint import Checkpoint  # late: start-up

    set_threads(args.threads)  # the one meaning of --threads: the override of cogo.runtime.threads (None: the rule)
    thr = DEAD_THRESHOLD if args.dead_threshold is None else args.dead_threshold
    workers = max(1, int(args.workers if args.workers is not None else min(2, os.cpu_count() or 1)))
    with user_input():  # files, folders, globs: the runs they name (a series of checkpoints is one run); each
        # file read once (cogo.io), what cannot fit refused from its header before any array is read
        sources = discover_runs(args.files, group=args.group, estimate=lambda n, q: dynamics_estimate(n, q, workers))
    for s in sources:
        if not isinstance(s, Checkpoint):  # a series: its shapes are known from its first file
            require(dynamics_estimate(s.n, s.hidden, workers))
    files = [s for s in sources if isinstance(s, Checkpoint)]
    return _read_runs(args, sources, files, thr, workers)


def _read_runs(args, sources: list, files: list, thr: float, workers: int) -> int:
    """After the refusal of what cannot fit: check the inputs and the output, read every run, write the results."""
    from cogo.analysis.classify import Settings  # late: start-up
    from cogo.analysis.nodes import activation_reports  # late: start-up
    from cogo.dynamics.runs import analyse_run, render_text, write_dynamics  # late: start-up (after the refusal)
    from cogo.io.snapshots import open_snapshots  # late: start-up
    from cogo.io.outputs import check_output_dir  # late: start-up

    for f in files:  # every input is checked before anything is written
        open_snapshots(f, group=args.group)
    with user_input():
        out = check_output_dir(args.out)
        check_output_file(out / "dynamics.json", inputs=args.files, force=args.force, label="--out")
    with user_input():  # another activation: no catalogue form; the per-node report, then the progress measures
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
    remove_stale(out / "figures", ("dynamics_*.png", "progress_*.png", "peers_*.png"), written)
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
            from tqdm.auto import tqdm  # late: tqdm

            self.bar = tqdm(total=total, desc=self.desc, unit=self.unit, dynamic_ncols=True)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
