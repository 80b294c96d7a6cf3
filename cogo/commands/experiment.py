"""``cogo experiment``: train, classify and verify a grid; write a report (the engine: :mod:`cogo.commands.grid`).

Its flags, the grid they make and the run with its terminal summary are shared with ``cogo demo``
(:mod:`cogo.commands.demo`), which differs only in its defaults and its output folder.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from cogo.algebra.activations import THEORY
from cogo.algebra.group_parsing import parse_group
from cogo.commands._args import (ACTIVATION_NAMES, DEVICE_HELP, LOSSES, NO_PROGRESS_HELP, OPTIMIZERS, add_threads,
                                 device_type, flat_groups, float_type, groups_type, int_type, optimizer_help,
                                 parse_seeds, training_option_flags)
from cogo.commands._run import command_line, user_input
from cogo.commands.grid.config import DEMO_CONFIG, ExperimentConfig
from cogo.commands.grid.sweep import SweepConfig, load_toml
from cogo.io.outputs import mark_input, mark_output
from cogo.runtime.errors import CogoError
from cogo.runtime import executors

ORDER = 6
RESUME = "rerun"
LONG = True


def add(subparsers) -> None:
    p = subparsers.add_parser("experiment", help="train, classify and verify a grid; write a report",
                              conflict_handler="resolve",  # sweep_flags widens --hidden, --activation, ...
                              description="Train every group x weight decay x seed (batched over seeds), classify "
                                          "every model, verify the constructions and write OUT/report.md and "
                                          "OUT/report.json. Models already trained in OUT are reused, so an "
                                          "interrupted run can be resumed.")
    grid_flags(p, demo=False)
    sweep_flags(p)
    mark_output(p.add_argument("--out", required=True, metavar="DIR",
                               help="output directory (created if missing; reused to resume)"), "dir")
    executors.add_arguments(p)  # --executor {inprocess,local,slurm} and the Slurm options (cogo/runtime/executors.py)


def run(args) -> int:
    with user_input():
        toml = args.config or {}
        sweep = _sweep_config(args, toml)
    wide = (args.config is not None or args.dry_run or args.sweep or args.preset or args.converged_acc is not None
            or len(sweep.hidden) > 1 or len(sweep.activations) > 1
            or len(sweep.optimizers) > 1 or len(sweep.lrs) > 1 or any(parse_group(g).as_product is None
                                                                         for g in sweep.groups))
    if wide:
        return _run_sweep(sweep, args)
    args.hidden, args.activation, args.optimizer, args.lr = (sweep.hidden[0], sweep.activations[0],
                                                             sweep.optimizers[0], sweep.lrs[0])
    args.groups, args.seeds, args.wd, args.epochs, args.verify = (list(sweep.groups), list(sweep.seeds),
                                                                  list(sweep.weight_decays), sweep.epochs, sweep.verify)
    with user_input():
        cfg = grid_config(args).validate()
    return run_and_print(cfg, args.out, args, command_line(args))


def sweep_flags(p) -> None:
    """The axes that make ``cogo experiment`` a wide grid (:mod:`cogo.commands.grid.sweep`): several widths,
    activations, optimizers and learning rates, a TOML grid, the convergence rule, the dry run."""
    d = ExperimentConfig()
    mark_input(p.add_argument("--groups", type=groups_type, nargs="+", default=None, metavar="G",
                              help=f"groups, e.g. 23 71 127, 3x5, a Cayley-table .json or a collection "
                                   f"'smallgroups(order<=16)' (GAP) (default {' '.join(d.groups)}); non-Abelian groups "
                                   "(S3, D5, a non-commutative table) make a wide grid: the key irreps and the law of "
                                   "key sets, no SPEC 8 blocks"))
    p.add_argument("--hidden", type=int_type("hidden size", 1), nargs="+", default=None, metavar="Q",
                   help=f"hidden nodes q, one or several (default {d.hidden})")
    p.add_argument("--activation", nargs="+", default=None, choices=ACTIVATION_NAMES, metavar="ACT",
                   help=f"sigma of the hidden layer, one or several of {', '.join(ACTIVATION_NAMES)} (default sqr)")
    p.add_argument("--optimizer", nargs="+", default=None, choices=OPTIMIZERS, metavar="OPT",
                   help="optimizer(s): adam (default), adamw, sgd, muon")
    p.add_argument("--lr", type=float_type("learning rate", 0.0, lo_open=True), nargs="+", default=None,
                   metavar="LR", help=f"learning rate(s) (default {d.lr})")
    p.add_argument("--seeds", type=parse_seeds, default=None, help="seeds, e.g. 1-20 or 1,3,7 (default 1-5)")
    mark_input(p.add_argument("--config", metavar="FILE.toml", default=None, type=toml_type,
                              help="the grid from a TOML file (keys as the flags: groups, hidden, activation, "
                                   "optimizer, lr, wd, seeds, epochs, verify, converged_acc); flags given on the "
                                   "command line win"))
    p.add_argument("--converged-acc", type=float_type("converged accuracy", 0.0, 1.0), default=None, metavar="A",
                   help="convergence rule of a wide grid: a run enters the laws iff its final train accuracy >= A "
                        "(default 0: every run)")
    p.add_argument("--preset", choices=("default", "paper"), default=None,
                   help="the block reading of a wide grid, as cogo classify --preset: default, or paper (the reference "
                        "classifier's tolerances, for the paper's table)")
    p.add_argument("--dry-run", action="store_true",
                   help="list the runs and predict the training time from a short probe; write nothing")
    p.add_argument("--sweep", action="store_true",
                   help="run even a one-width grid as a wide grid: OUT/runs.csv, OUT/keysets.json (implied by several "
                        "--hidden/--activation/--optimizer/--lr values, a non-Abelian group, --config, --preset, "
                        "--converged-acc or --dry-run)")
    for name in ("wd", "epochs", "verify"):  # None: not given (a TOML value or the default fills it)
        p.set_defaults(**{name: None})


def toml_type(path: str) -> dict:
    """``--config``: the grid of a TOML file (:func:`cogo.commands.grid.sweep.load_toml`), read and checked now."""
    try:
        return load_toml(path)
    except CogoError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _sweep_config(args, toml: dict):
    """The wide grid of the flags over the TOML file over the defaults (not yet validated)."""
    d = ExperimentConfig()
    given = {"groups": flat_groups(args.groups) if args.groups else None, "hidden": args.hidden,
             "activations": args.activation, "optimizers": args.optimizer, "lrs": args.lr,
             "weight_decays": args.wd, "seeds": args.seeds, "epochs": args.epochs, "verify": args.verify,
             "converged_acc": args.converged_acc, "preset": args.preset}
    defaults = {"groups": list(d.groups), "hidden": [d.hidden], "activations": [THEORY],
                "optimizers": [d.optimizer], "lrs": [d.lr], "weight_decays": list(d.weight_decays),
                "seeds": list(d.seeds), "epochs": d.epochs, "verify": "both", "converged_acc": 0.0,
                "preset": "default"}
    vals = {k: (given[k] if given[k] is not None else toml.get(k, defaults[k])) for k in given}
    vals["groups"] = [str(g) for g in vals["groups"]]
    extra = {"batch_size": args.batch_size, "label_noise": args.label_noise, "top": args.top, "ridge": args.ridge}
    return SweepConfig(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in vals.items()},
                       test_fraction=toml.get("test_fraction", args.test_fraction), loss=toml.get("loss", args.loss),
                       device=toml.get("device", args.device), threads=args.threads, extra=extra,
                       probe_epochs=int(toml.get("probe_epochs", 3)))


def _run_sweep(cfg, args) -> int:
    from cogo.commands.grid.sweep import dry_run, run_sweep, verification_ok  # late: torch

    with user_input():
        cfg.validate()
        if args.dry_run:
            dry_run(cfg, log=lambda s: print(s, flush=True))
            return 0
        executor = executors.settings_from_args(args, args.out)
    run_sweep(cfg, args.out, executor=executor, log=lambda s: print(s, flush=True), command=command_line(args))
    doc = json.loads((Path(args.out) / "keysets.json").read_text())
    return 0 if verification_ok(doc) else 1


def grid_flags(p, demo: bool) -> None:
    """The flags of the grid, with the defaults of ``cogo demo`` (``demo``) or of ``cogo experiment``."""
    d = DEMO_CONFIG if demo else ExperimentConfig()
    seeds = ",".join(map(str, d.seeds)) if demo else "1-5"
    mark_input(p.add_argument("--groups", type=groups_type, nargs="+", default=list(d.groups), metavar="G",
                              help=f"Abelian groups, e.g. 23 71 127 or 3x5, or an Abelian Cayley-table .json "
                                   f"(default {' '.join(d.groups)}), or a collection 'smallgroups(order<=16, "
                                   "abelian)' (GAP); non-Abelian groups (S3, D5, a non-commutative table) are "
                                   "refused: the report reads blocks of Z_d1 x ... x Z_dn (SPEC 8); train and "
                                   "classify them with cogo train and cogo classify"))
    p.add_argument("--seeds", type=parse_seeds, default=parse_seeds(seeds), help=f"seeds, e.g. 1-5 (default {seeds})")
    p.add_argument("--wd", type=float_type("weight decay", 0.0), nargs="+", default=list(d.weight_decays),
                   metavar="WD", help="weight decay(s) (default 5e-5)")
    p.add_argument("--hidden", type=int_type("hidden size", 1), default=d.hidden,
                   help=f"hidden nodes q (default {d.hidden})")
    p.add_argument("--epochs", type=int_type("epochs", 0), default=d.epochs,
                   help=f"full-batch epochs (default {d.epochs})")
    p.add_argument("--lr", type=float_type("learning rate", 0.0, lo_open=True), default=d.lr,
                   help=f"learning rate (default {d.lr})")
    p.add_argument("--test-fraction", type=float_type("test fraction", 0.0, 1.0, lo_open=True),
                   default=d.test_fraction, help="held-out pairs, in (0, 1) (default 0.1)")
    p.add_argument("--loss", choices=LOSSES, default=d.loss, help="training loss: %(choices)s (default mse)")
    p.add_argument("--optimizer", choices=OPTIMIZERS, default=d.optimizer,
                   help=optimizer_help(d.optimizer))
    training_option_flags(p)
    p.add_argument("--device", type=device_type, default=d.device, help=DEVICE_HELP)
    p.add_argument("--verify", choices=["exact", "numeric", "both", "none"], default=d.verify,
                   help="which theorem checks to run per group: %(choices)s (default both)")
    p.add_argument("--dynamics", type=int_type("dynamics", 0), default=0, metavar="N",
                   help="snapshot every N epochs and read each run over time (as cogo dynamics) into "
                        "OUT/dG/dynamics/ (default 0: off)")
    add_threads(p)
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.add_argument("--force", action="store_true",
                   help="run this grid in an output directory that holds another experiment (its report is replaced; "
                        "its other checkpoints are left alone and not reported)")


def grid_config(args) -> ExperimentConfig:
    """The grid the flags of :func:`grid_flags` describe (not yet validated)."""
    return ExperimentConfig(groups=flat_groups(args.groups), seeds=tuple(args.seeds), weight_decays=tuple(args.wd),
                            hidden=args.hidden, epochs=args.epochs, lr=args.lr, test_fraction=args.test_fraction,
                            loss=args.loss, optimizer=args.optimizer, device=args.device, verify=args.verify,
                            dynamics=args.dynamics, threads=args.threads, activation=args.activation,
                            batch_size=args.batch_size, label_noise=args.label_noise, top=args.top, ridge=args.ridge)


def run_and_print(cfg: ExperimentConfig, out, args, command: str) -> int:
    """Run the grid into ``out``, print its summary; exit status 0 iff every verification passed."""
    from cogo.commands.grid.report import summary_text, verification_ok  # late: torch
    from cogo.commands.grid.run import run_experiment  # late: torch
    from cogo.io.outputs import check_output_dir  # late: start-up

    executor = executors.settings_from_args(args, out)  # inprocess for cogo demo; CogoError without submitit/sbatch
    with user_input():
        check_output_dir(out)

    report = run_experiment(cfg, out, progress=not args.no_progress, command=command,
                            log=lambda s: print(s, flush=True), force=args.force, executor=executor)
    print()
    print(summary_text(report), end="")
    print()
    print(f"report: {Path(out) / 'report.md'}  (data: {Path(out) / 'report.json'}, figures: {Path(out) / 'figures'})")
    return 0 if verification_ok(report) else 1
