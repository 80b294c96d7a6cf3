"""``cogo verify``: prove the theorems of SPEC 3-7 (or SPEC 9) on a group, or judge one checkpoint."""
from __future__ import annotations

import argparse
import sys

from cogo.algebra.group_parsing import parse_group
from cogo.commands._args import (FORCE_HELP, NO_PROGRESS_HELP, add_threads, group_inputs, group_type, reader_flags,
                                 reading_options)
from cogo.commands._args import checkpoint_files_help, verdicts_help  # the help of --checkpoint (issue #54)
from cogo.commands._run import other_activation, user_input
from cogo.io.tables import dumps_json
from cogo.io.outputs import atomic_write_text, check_output_file, mark_input, mark_output, parent_made
from cogo.runtime.errors import CogoError
from cogo.runtime.limits import progress_callback, require, verify_checkpoint_estimate, verify_estimate
from cogo.runtime.threads import threads

ORDER = 1


def add(subparsers) -> None:
    p = subparsers.add_parser(
        "verify", help="prove the theorems exactly and numerically",
        description="Check every theorem of SPEC 3-7 on a group and run the negative controls. Prints one row per "
                    "theorem (status, largest residual, seconds); exit status 0 iff every theorem passes and every "
                    "negative control is caught failing.")
    mark_input(p.add_argument("--group", type=group_type, default=None,
                              help="group: an order like 23 or a product like 3x5 (default 23), or an Abelian "
                                   "Cayley-table .json (read as its product of cyclic groups); with --theory li2 "
                                   "also a name such as S3 or any Cayley-table .json; with --checkpoint: the "
                                   "file's group (default: the group it records, else Z_n), as cogo classify "
                                   "reads it"))
    p.add_argument("--theory", choices=["semiring", "li2"], default="semiring",
                   help="semiring: the theorems of SPEC 3-7 (default); li2: the energy landscape of SPEC 9 "
                        "(Theorems 2, 3, Lemma 1; see docs/li2.md)")
    m = p.add_mutually_exclusive_group()
    m.add_argument("--exact", dest="method", action="store_const", const="exact", help="exact (sympy) checks only")
    m.add_argument("--numeric", dest="method", action="store_const", const="numeric", help="numeric checks only")
    mark_output(p.add_argument("--json", metavar="FILE", help="also write the results as JSON (a list of objects), "
                                                              "written only after every check ran"))
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    add_threads(p)
    mark_input(p.add_argument("--checkpoint", metavar="FILE", default=None,
                              help="instead of the theorems: is the network in FILE a global optimizer? "
                                   f"FILE: {checkpoint_files_help()}. One of three verdicts: {verdicts_help()}; "
                                   "numeric for any network, an exact certificate for a `cogo construct` "
                                   "checkpoint"))
    reader_flags(p)
    p.add_argument("--tol", type=tol_type, default=None, metavar="T",
                   help="with --checkpoint: the numeric verdict is 'optimal within tolerance T' iff the float64 "
                        "loss on all pairs is <= T (default 1e4 eps^2 of the file's dtype: 4.9e-28 for float64, "
                        "1.4e-10 for float32, never above 1e-6 of the zero network's loss); secondary information")
    p.add_argument("--every-order", action="store_true",
                   help="instead of one group: prove z_F6, z_F6 (7.2), z_F4/6 and z_M optimal for every admissible "
                        "order d at once (frequency collisions, symbolic certificates, controls; docs/verify.md)")
    p.add_argument("--max-distance", type=tol_type, default=None, metavar="D",
                   help="with --checkpoint: 'near a certified optimizer' means a distance of at most D to the "
                        "snapped network, for the network and for every block (default 0.05; docs/verify.md)")
    p.add_argument("--max-relative-loss", type=tol_type, default=None, metavar="R",
                   help="with --checkpoint: 'near a certified optimizer' also needs a loss of at most R times the "
                        "zero network's loss 1 - 1/n (default 0.01; docs/verify.md)")
    mark_output(p.add_argument("--snap", metavar="OUT.pt", default=None,
                               help="with --checkpoint: write the nearest certified optimizer (the snapped network) "
                                    "as a checkpoint, its exact parameters in its meta (a missing folder is "
                                    "created)"))
    mark_output(p.add_argument("--certificates", metavar="DIR", default=None,
                               help="also write one certificate (JSON) per exact claim into DIR, with DIR/index.json, "
                                    "for the independent checker `cogo-check DIR` (docs/verify.md); written only "
                                    "after every check ran, never partially"), "dir")
    p.set_defaults(method="both")


def tol_type(text: str) -> float:
    """A tolerance: a finite number >= 0 (argparse type)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad tolerance {text!r}: expected a number >= 0") from None
    if not (v >= 0) or v == float("inf"):
        raise argparse.ArgumentTypeError(f"bad tolerance {text!r}: expected a finite number >= 0")
    return v


def run(args) -> int:
    with threads(args.threads):
        if args.checkpoint is not None:
            return _verify_checkpoint(args)
        if args.every_order:
            from cogo.proofs.every_order.run import cli_every_order  # late: sympy

            if getattr(args, "certificates", None):
                from cogo.proofs.export import check_target  # late: only with --certificates
                check_target(args.certificates, args.force)
            rc = cli_every_order(args)
            if getattr(args, "certificates", None):
                from cogo.proofs.export import every_order_certificates, write_certificates  # late: sympy

                rows, certs = every_order_certificates()
                write_certificates(args.certificates, "cogo verify --every-order", rows, certs)
                print(f"wrote {len(certs)} certificates and index.json to {args.certificates}")
            return rc
        return _verify_theorems(args)


def _verify_theorems(args) -> int:
    """The theorem rows of SPEC 3-7 (``--theory semiring``) or SPEC 9 (``--theory li2``) on ``--group``."""
    from cogo.proofs.registry import run_all, skipped, theorem_list  # late: sympy
    from cogo.proofs.results import all_ok, format_table, results_to_json  # late: sympy

    if args.group is None:  # the default group of the theorems (--checkpoint's is the file's)
        args.group = group_type("23")

    inputs = group_inputs(args.group)
    if args.theory == "li2":
        from cogo.li2.energy import li2_group  # late: start-up (cogo verify --help needs no group table)
        from cogo.li2.theorems import run_li2, skipped_li2  # late: sympy

        G = li2_group(args.group)  # CogoError (one line) on a bad or unavailable group
        if getattr(args, "certificates", None):
            raise CogoError("--certificates: the certificates are for the semiring theorems (SPEC 5-7), not --theory li2")
        if args.json:
            check_output_file(args.json, inputs=inputs, force=args.force, label="--json")
        print(f"cogo verify --theory li2: {G.name} (order {G.order}), method {args.method}", flush=True)
        results = run_li2(G, args.method)
        notes = skipped_li2(G, args.method)
    else:
        G = parse_group(args.group)
        if G.as_product is None:  # a table group (SPEC 9): SPEC 3-7 are about Z_d1 x ... x Z_dn
            why = ("is Abelian but given by a name or table: write it as a product like 3x5"
                   if getattr(G, "is_abelian", False) else "is not Abelian")
            raise CogoError(f"the semiring theorems (SPEC 3-7) need a finite Abelian group Z_d1 x ... x Z_dn; "
                            f"{G} {why}, or use --theory li2 (SPEC 9, any finite group)")
        if args.json:
            check_output_file(args.json, inputs=inputs, force=args.force, label="--json")
        if getattr(args, "certificates", None):
            from cogo.proofs.export import check_target  # late: only with --certificates
            check_target(args.certificates, args.force)
        if args.method != "exact":
            require(verify_estimate(G.order, args.method, G.order % 2 == 0))
        print(f"cogo verify: {G} (order {G.order}), method {args.method}", flush=True)
        ticks = len(theorem_list(G)) * (2 if args.method == "both" else 1)
        results = run_all(G, args.method, progress=progress_callback(ticks, f"verify {G}", off=args.no_progress))
        notes = skipped(G, args.method)
    print(format_table(results))
    for note in notes:
        print(f"skipped: {note}")
    if args.json:
        atomic_write_text(args.json, results_to_json(results))
        print(f"wrote {args.json}")
    if getattr(args, "certificates", None):
        from cogo.proofs.export import export_run  # late: sympy

        count = export_run(args.certificates, G, results, f"cogo verify --group {args.group} --{args.method}")
        print(f"wrote {count} certificates and index.json to {args.certificates} (check them: cogo-check "
              f"{args.certificates})")
    return 0 if all_ok(results) else 1


def _verify_checkpoint(args) -> int:
    """``cogo verify --checkpoint FILE``: how far the network is from its nearest certified optimizer (read once)."""
    from cogo.io.checkpoint import read_checkpoint  # late: start-up (cogo verify --help reads no checkpoint)

    with user_input():
        inputs = [args.checkpoint, *group_inputs(args.group)]
        for flag, out in (("--json", args.json), ("--snap", args.snap)):  # never onto the checkpoint itself
            if out:   # --snap's folder is created when missing, as the commands' --out folders are
                check_output_file(out, inputs=inputs, force=args.force, label=flag, parents=flag == "--snap")
        if getattr(args, "certificates", None):
            from cogo.proofs.export import check_target  # late: only with --certificates
            check_target(args.certificates, args.force)
        # --group as cogo classify reads it (a group contradicting the file's record: refused, unless --force-group)
        ckpt = read_checkpoint(args.checkpoint, group=args.group, estimate=verify_checkpoint_estimate,
                               options=reading_options(args))
    if (rc := other_activation(args, [ckpt], "verify")) is not None:
        return rc
    from cogo.proofs.trained import (DEFAULT_MAX_DISTANCE, DEFAULT_MAX_RELATIVE_LOSS, verify_checkpoint,  # late: sympy
                                     write_snapped)

    with user_input():
        v = verify_checkpoint(ckpt, tol=args.tol,
                              max_distance=DEFAULT_MAX_DISTANCE if args.max_distance is None else args.max_distance,
                              max_relative_loss=(DEFAULT_MAX_RELATIVE_LOSS if args.max_relative_loss is None
                                                 else args.max_relative_loss))
    sys.stdout.write(v.render_text())
    if args.snap:
        with user_input(), parent_made(args.snap) as snap:   # a missing folder is created (removed on failure)
            write_snapped(v, snap)
        print(f"wrote {args.snap}")
    if args.json:
        atomic_write_text(args.json, dumps_json(v.to_dict()))
        print(f"wrote {args.json}")
    if getattr(args, "certificates", None):
        from cogo.proofs.export import write_checkpoint_certificates  # late: sympy

        count = write_checkpoint_certificates(args.certificates, args.checkpoint, ckpt.group, v)
        print(f"wrote {count} certificate(s) and index.json to {args.certificates}")
    return v.exit_code

