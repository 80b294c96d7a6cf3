"""``cogo li2-sweep``: the memorization-generalization boundary of SPEC 9 (Theorem 4): sweep and phase diagram."""
from __future__ import annotations

import json
import time
from dataclasses import asdict

from cogo.commands._args import (DEVICE_HELP, FORCE_HELP, NO_PROGRESS_HELP, add_threads, device_type, flat_groups,
                                 float_type, groups_type, int_type, parse_seeds)
from cogo.commands._run import remove_stale, user_input
from cogo.io.tables import dumps_json, render_table
from cogo.io.outputs import atomic_write, atomic_write_text, mark_input, mark_output
from cogo.runtime import executors
from cogo.runtime.errors import CogoError
from cogo.runtime.threads import set_threads

ORDER = 8
RESUME = "rerun"
LONG = True


def add(subparsers) -> None:
    p = subparsers.add_parser(
        "li2-sweep", help="the memorization-generalization boundary of SPEC 9 (Theorem 4): sweep and phase diagram",
        description="Train Z_M for every group order M, every x = n / (M log M) (train fraction x log(M) / M) and "
                    "every learning rate, seeds batched; write OUT/sweep.json (resumable: cells already there are "
                    "reused), OUT/phase_diagram_lr*.png (test accuracy with the theoretical line x = 2.7482) and "
                    "print the table and the fitted constant. See docs/li2.md.")
    mark_input(p.add_argument("--groups", type=groups_type, nargs="+", default=["11", "17", "23", "31"], metavar="G",
                              help="groups: orders (Z_M), products like 3x5, names like S3 D5 A4, Cayley-table "
                                   ".json files, SmallGroup(24,12) or collections like "
                                   "'smallgroups(order<=16, nonabelian, max_irrep_dim=2)' (default 11 17 23 31)"))
    p.add_argument("--x", type=float_type("x", 0.0, lo_open=True), nargs="+", default=[0.75, 1.5, 2.25, 3.0, 3.75, 4.5],
                   metavar="X", help="values of n / (M log M) (default 0.75 1.5 2.25 3 3.75 4.5)")
    p.add_argument("--seeds", type=parse_seeds, default=parse_seeds("1-3"), help="seeds (default 1-3)")
    p.add_argument("--lr", type=float_type("learning rate", 0.0, lo_open=True), nargs="+", default=[0.01],
                   metavar="LR", help="learning rate(s); several show the learning-rate effect (default 0.01)")
    p.add_argument("--hidden", type=int_type("hidden", 1), default=256, help="hidden nodes (default 256)")
    p.add_argument("--epochs", type=int_type("epochs", 1), default=3000, help="full-batch epochs (default 3000)")
    p.add_argument("--wd", type=float_type("weight decay", 0.0), default=5e-4, help="weight decay (default 5e-4)")
    add_threads(p)
    p.add_argument("--device", type=device_type, default="cpu", help=DEVICE_HELP)
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    mark_output(p.add_argument("--out", required=True, metavar="DIR",
                               help="output directory (created if missing; reused to resume)"), "dir")
    p.add_argument("--force", action="store_true",
                   help="replace the sweep already in OUT (sweep.json of other settings, fit.json, the phase "
                        "diagrams; its cells are not reused); default: resume a sweep of the same settings, refuse "
                        "one of other settings; for each output: " + FORCE_HELP)
    executors.add_arguments(p)  # --executor {inprocess,local,slurm} and the Slurm options (cogo/runtime/executors.py)


def run(args) -> int:
    from cogo.li2.boundary import SweepConfig, dk_law_report, row_key, sweep  # late: start-up
    from cogo.io.outputs import check_output_dir  # late: start-up

    cfg = SweepConfig(groups=flat_groups(args.groups), xs=tuple(args.x), seeds=tuple(args.seeds), lrs=tuple(args.lr),
                      hidden=args.hidden, epochs=args.epochs, weight_decay=args.wd, device=args.device).validate()
    executor = executors.settings_from_args(args, args.out)  # CogoError (one line) if submitit or sbatch is missing
    with user_input():
        out = check_output_dir(args.out)
    set_threads(args.threads)  # the one meaning of --threads: the override of cogo.runtime.threads (None: the rule)
    path = out / "sweep.json"
    done = _resumed_cells(path, cfg, args.force)
    t0 = time.perf_counter()

    def save(rows):  # the cells of an earlier sweep outside this grid stay in sweep.json (never silently dropped)
        keys = {row_key(r) for r in rows}
        kept = [r for k, r in done.items() if k not in keys]
        atomic_write_text(path, dumps_json({"config": _sweep_settings(cfg), "rows": rows + kept}))
    rows = sweep(cfg, log=lambda s: print(s, flush=True), done=done, on_cell=save, executor=executor,
                 progress=not args.no_progress)
    save(rows)
    fits = _print_table_and_fits(rows, cfg.lrs)
    _write_phase_diagrams(rows, cfg, out)
    laws = dk_law_report(rows, cfg.lrs, out, log=lambda s: print(s, flush=True))
    atomic_write_text(out / "fit.json", dumps_json({"fits": fits, "wall_s": time.perf_counter() - t0,
                                                   **({"dk_law": laws} if laws else {})}))
    print(f"wrote {path} and {out / 'fit.json'} ({time.perf_counter() - t0:.0f} s)")
    return 0


def _resumed_cells(path, cfg, force: bool) -> dict:
    """The cells of the sweep already in ``path`` (same settings), by :func:`cogo.li2.boundary.row_key`; a sweep
    of other settings, or a file that is not a sweep, is refused unless ``force`` (then nothing is reused)."""
    from cogo.li2.boundary import row_key  # late: start-up

    if not path.is_file() or force:
        return {}
    try:
        old = json.loads(path.read_text())
        same = old.get("config", {}) == json.loads(dumps_json(_sweep_settings(cfg)))
        done = {row_key(r): r for r in old["rows"]} if same else {}
    except (ValueError, KeyError, TypeError, AttributeError):
        raise CogoError(f"{path} is not a sweep.json written by cogo li2-sweep; use a fresh --out, or --force "
                        "to replace it") from None
    if not same:
        raise CogoError(f"{path} was written with other settings; use a fresh --out, or --force to replace it")
    return done


def _print_table_and_fits(rows: list, lrs) -> list[dict]:
    """Print the mean test accuracy per cell and the fitted boundary per learning rate; return the fits."""
    from cogo.li2.boundary import fit_constant, sweep_table  # late: start-up

    head, body = sweep_table(rows)
    print()
    print("mean test accuracy over seeds:")
    print(render_table(head, body))
    fits = [fit_constant(rows, lr) for lr in lrs]
    for f in fits:
        per = ", ".join(f"{g}: {'-' if v is None else format(v, '.3g')} (theory {f['theory'][g]:.3g})"
                        for g, v in f["per_group"].items())
        c = "none (no crossing)" if f["constant"] is None else format(f["constant"], ".3f")
        sc = "" if f["scaled"] is None or all(d == 1 for d in f["d_max"].values()) else \
            f"; crossing / d_max^2, median over all groups = {f['scaled']:.3f}"
        print(f"lr {f['lr']:g}: fitted boundary n/(M log M), d_max = 1 groups = {c} (paper {f['paper']}){sc}; "
              f"per group: {per}")
    return fits


def _write_phase_diagrams(rows: list, cfg, out) -> None:
    """One phase diagram per learning rate; --force: no diagram of the replaced sweep stays."""
    from cogo.li2.boundary import phase_diagram_png  # late: start-up

    pngs = []
    for lr in cfg.lrs:
        png = out / f"phase_diagram_lr{lr:g}.png"
        with atomic_write(png, "wb") as fh:
            fh.write(phase_diagram_png(rows, lr))
        pngs.append(png)
        print(f"wrote {png}")
    remove_stale(out, ("phase_diagram_lr*.png",), pngs)


def _sweep_settings(cfg) -> dict:
    """The sweep's settings beyond its grid (what a resumed sweep must repeat)."""
    d = asdict(cfg)
    for k in ("xs", "seeds", "lrs", "groups"):
        d.pop(k)
    return d
