"""``cogo classify``: factor and classify trained checkpoints (SPEC 8; the irreps reading of SPEC 9)."""
from __future__ import annotations

import sys

from cogo.algebra.activations import THEORY
from cogo.algebra.group_parsing import parse_group
from cogo.commands._args import (FORCE_HELP, NO_PROGRESS_HELP, add_threads, checkpoint_files_help, float_type,
                                 group_inputs, group_type, int_type, reader_flags, reading_options)
from cogo.commands._run import other_activation, user_input
from cogo.io.outputs import mark_input, mark_output
from cogo.runtime.errors import CogoError
from cogo.runtime.limits import classify_estimate
from cogo.runtime.threads import threads

ORDER = 4


def add(subparsers) -> None:
    p = subparsers.add_parser(
        "classify", help="factor and classify trained checkpoints",
        description="Read trained 2-layer quadratic networks (SPEC 8): prune dead nodes, split the live ones "
                    "into per-frequency blocks, factor each block into Kronecker factors, name the factors "
                    "against the catalogue of SPEC 7 and aggregate over the checkpoints (mean +- standard "
                    "error). Prints a text table; every input is read and checked before any output is written.")
    mark_input(p.add_argument("files", nargs="+", metavar="FILE",
                              help=f"checkpoints: {checkpoint_files_help()}"))
    mark_output(p.add_argument("--json", metavar="FILE", help="also write the full results as JSON"))
    mark_output(p.add_argument("--markdown", metavar="FILE", help="also write the tables as Markdown"))
    mark_output(p.add_argument("--csv", metavar="FILE",
                               help="also write one row per block (checkpoint, group, k, order, type, factors' "
                                    "parameters, nearest form and distance, conditions) as CSV; for the irreps "
                                    "reading one row per checkpoint and irrep family (nodes, mixing, energy share, "
                                    "Theorem 3's count)"))
    mark_output(p.add_argument("--plots", metavar="DIR",
                               help="also write histograms of the angles of xi, nu, alpha, beta (PNG; Abelian "
                                    "groups only: refused for the irreps reading of a non-Abelian group)"), "dir")
    mark_input(p.add_argument("--group", type=group_type, default=None,
                              help="override the group recorded in the files (e.g. 23, 3x5, S3 or a Cayley-table "
                                   ".json); a non-Abelian group gets the irreducible-representation reading "
                                   "(SPEC 9)"))
    p.add_argument("--dead-threshold", type=float_type("dead threshold", 0.0, 1.0, lo_open=True), default=None,
                   metavar="X",
                   help="a node is dead when its strength is below X times the strongest node's (default 0.01)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.add_argument("--preset", choices=("default", "paper"), default="default",
                   help="tolerances: 'default' (factor and name within 0.05, the stricter reading) or 'paper' "
                        "(the reference classifier's 0.1, special cases named whenever within it); the table of "
                        "the reference's columns is printed either way")
    p.add_argument("--no-verdict", action="store_true",
                   help="the block reading only (what the reference classifier computes): skip the network "
                        "verdict (loss on all pairs, R_c, the optimal flag) and the nearest certified optimizer "
                        "(every distance); about half of the time on z_F6 at d = 127, for sweeps that need the "
                        "type table only")
    add_threads(p)
    p.add_argument("--workers", type=int_type("workers", 1), default=1, metavar="W",
                   help="processes reading the checkpoints, each one at a time (default 1: this process)")
    reader_flags(p)


def run(args) -> int:
    from cogo.analysis.classify import DEAD_THRESHOLD, Settings, classify_many  # late: start-up
    from cogo.analysis.report.records import write_csv  # late: start-up
    from cogo.analysis.report.render import check_output_paths  # late: start-up
    from cogo.analysis.many_networks import OtherActivation  # late: start-up
    from cogo.io.checkpoint import read_checkpoint  # late: start-up

    thr = DEAD_THRESHOLD if args.dead_threshold is None else args.dead_threshold
    options = reading_options(args)  # --keys, --shared-embedding, --activation, --force-group
    group = parse_group(args.group) if args.group is not None else None
    inputs = [*args.files, *group_inputs(args.group)]
    with user_input():
        check_output_paths(args.json, args.markdown, args.plots, inputs=inputs, force=args.force, csv_path=args.csv)

    def abelian_only(loaded) -> None:  # before any analysis: what the irreps reading (SPEC 9) cannot give
        other = next((w.group for w in loaded if w.group.as_product is None), None)
        if other is not None and args.plots is not None:
            raise CogoError(f"--plots needs the block reading of an Abelian group (SPEC 8); {other} is read "
                            "through its irreducible representations (SPEC 9), which has no plots: drop --plots")

    # each file read once (cogo.io), one at a time (in the workers too): a sweep holds one network per process.  The
    # first decides the reading; every file is refused from its header when the work cannot fit (classify_many)
    with user_input():
        first = read_checkpoint(args.files[0], group=group, estimate=classify_estimate, options=options)

    def node_reports() -> int:  # not sqr networks: every file's per-node report, each read under the memory estimate
        with user_input():
            rest = [read_checkpoint(f, group=group, estimate=classify_estimate, options=options) for f in args.files[1:]]
        return other_activation(args, [first, *rest], "classify")

    if first.activation != THEORY:
        return node_reports()
    try:
        with threads(args.threads):
            result = classify_many([first, *args.files[1:]], group=group,
                                   settings=Settings.preset_named(getattr(args, "preset", "default"),
                                                                  dead_threshold=thr, verdict=not args.no_verdict),
                                   progress=not args.no_progress, on_loaded=abelian_only,
                                   workers=args.workers, keep_weights=args.plots is not None, sqr_only=True,
                                   render_json=args.json is not None, options=options)
    except OtherActivation:  # a later file is not an sqr network: the per-node report of every file, as for the first
        return node_reports()   # (the files analysed before it are read a second time: a rare path)
    # either reading (blocks, SPEC 8; irreps, SPEC 9) honours one contract: cogo.analysis.reading.Reading
    text = result.render_text()
    written = result.write_outputs(args.json, args.markdown, args.plots, force=args.force)
    if args.csv is not None:  # either reading's one table (result.to_records()): blocks, or irrep families
        written.append(write_csv(result, args.csv))
    sys.stdout.write(text)
    for rep in getattr(result, "reports", None) or []:
        meta = getattr(rep, "meta", None) or {}
        print(f"read {getattr(rep, 'path', '')}: layout {meta.get('layout', 'cogo')}, activation "
              f"{meta.get('activation', THEORY)}")
    for path in written:
        print(f"wrote {path}")
    return 0
