"""``cogo construct``: write a catalogue construction of SPEC 7 as a checkpoint, with its real-space loss."""
from __future__ import annotations

import argparse
import math

import numpy as np

from cogo.algebra.loss import real_loss
from cogo.algebra.group_parsing import parse_group
from cogo.catalogue.constructions import CONSTRUCTIONS, NAMES, construction
from cogo.commands._args import FORCE_HELP, NO_PROGRESS_HELP, add_threads, group_inputs, group_type, int_type
from cogo.io.outputs import check_output_file, mark_input, mark_output
from cogo.runtime.errors import CogoError
from cogo.runtime.limits import construct_estimate, require
from cogo.runtime.threads import threads

ORDER = 2

#: ``cogo construct`` evaluates the real-space loss on all pairs when that costs at most this many
#: multiply-adds (n^2 pairs x q nodes x n outputs; about a second), else on a random sample of pairs.
LOSS_BUDGET = 2e9


def construction_type(text: str) -> str:
    """``cogo construct NAME``: a construction's name; an older spelling (such as f6-ab) is refused with the name
    to use (:func:`cogo.catalogue.constructions.construction`)."""
    try:
        return construction(text).name
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add(subparsers) -> None:
    p = subparsers.add_parser("construct", help="write a construction of SPEC 7 as a checkpoint")
    p.add_argument("kind", type=construction_type, metavar="NAME",
                   help=f"which global optimizer: {', '.join(NAMES)} (the functions cogo.z_F6, ...)")
    mark_input(p.add_argument("--group", type=group_type, default="23",
                              help="group order or product (default 23), or an Abelian Cayley-table .json"))
    p.add_argument("--seed", type=int_type("seed", 0), default=None,
                   help="draw the free parameters from this seed (default: fixed documented values)")
    mark_output(p.add_argument("--out", dest="output", required=True, metavar="FILE.pt", help="checkpoint to write"))
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    add_threads(p)
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)


def construct_loss(Wa, Wb, Wc, G) -> tuple[float, str]:
    """Real-space loss (SPEC 1) of a construction with a cost that fits its size, and what it was computed on."""
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


def run(args) -> int:
    from cogo.solvers.constructions import construct, to_checkpoint  # late: start-up (numeric constructions)

    G = parse_group(args.group)
    out = check_output_file(args.output, inputs=group_inputs(args.group), force=args.force, label="--out")
    rec = construction(args.kind)
    if rec.odd_only and G.order % 2 == 0:
        raise CogoError(f"construction {args.kind} needs a group of odd order (every k != -k, SPEC 6); "
                        f"{G} has order {G.order}; {', '.join(c.name for c in CONSTRUCTIONS if not c.odd_only)} "
                        "works for every order")
    est = require(construct_estimate(rec.name, G.order))
    if est.seconds > 5 and not args.no_progress:
        print(f"cogo construct: {est}", flush=True)
    with threads(args.threads):
        net, meta = construct(args.kind, G, seed=args.seed)
        Wa, Wb, Wc = net.to_weights(real=True)
        loss, on = construct_loss(Wa, Wb, Wc, G)
    meta.update(nodes=int(net.q), real_space_loss=float(loss) if math.isfinite(loss) else None,
                real_space_loss_on=on)
    to_checkpoint(net, out, meta)
    print(f"wrote {out}: {meta['name']} on {G}, {net.q} nodes, real-space loss {loss:.3g} ({on})")
    return 0
