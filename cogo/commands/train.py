"""``cogo train``: train 2-layer quadratic networks on group addition (SPEC 1), all models as one batched program."""
from __future__ import annotations

from cogo.commands._args import (DEVICE_HELP, DTYPES, FORCE_HELP, KERNELS, LOSSES, NO_PROGRESS_HELP, OPTIMIZERS,
                                 add_threads, device_type, float_type, group_type, int_type, optimizer_help,
                                 parse_seeds, training_option_flags)
from cogo.commands._run import user_input
from cogo.io.outputs import mark_input, mark_output
from cogo.runtime.errors import CogoError

ORDER = 3
RESUME = "flag"
LONG = True


def add(subparsers) -> None:
    p = subparsers.add_parser(
        "train", help="train quadratic networks on group addition",
        description="Train 2-layer quadratic networks on group addition (SPEC 1). All (seed, weight decay) "
                    "models train together as one batched tensor program. Writes one checkpoint per model, "
                    "summary.json and, with --plot, curves.png into --out.",
    )
    _model_flags(p)
    mark_output(p.add_argument("--out", required=True, metavar="DIR", help="output directory (created if missing)"),
                "dir")
    _run_flags(p)
    training_option_flags(p)
    p.add_argument("--plot", action="store_true", help="write the training curves to DIR/curves.png")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run from the state it saved in DIR (same command otherwise); the "
                        "result is bit-identical to an uninterrupted run and the snapshots written are kept")
    p.add_argument("--resume-every", type=int_type("resume-every", 0), default=None, metavar="N",
                   help="save the full training state (weights and optimizer) in DIR every N epochs, atomically, so "
                        "that --resume can continue (default 1000; 0: never)")
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    p.add_argument("--force", action="store_true",
                   help="replace checkpoints of the same name already in DIR (default: refuse); " + FORCE_HELP)


def _model_flags(p) -> None:
    """The group, the network and its optimization: --group ... --seeds (in the order of ``cogo train --help``)."""
    mark_input(p.add_argument("--group", type=group_type, default="23",
                              help="group: an order like 23 or a product like 3x5 (default 23), a finite group by "
                                   "name (S3, S4, A4, A5, D5, Q8, Dic3; products S3x3) or a Cayley-table .json "
                                   "file (c = a*b; see docs/groups.md)"))
    p.add_argument("--hidden", type=int_type("hidden size", 1), default=512, help="hidden nodes q (default 512)")
    p.add_argument("--lr", type=float_type("learning rate", 0.0, lo_open=True), default=None,
                   help="learning rate (default 0.01 for Abelian groups, the reference experiment; 0.003 for "
                        "non-Abelian groups, see docs/groups.md)")
    p.add_argument("--wd", type=float_type("weight decay", 0.0), nargs="+", default=None, metavar="WD",
                   help="one or more weight decays, each trained for every seed (default 5e-5 for Abelian "
                        "groups, 2e-3 for non-Abelian groups)")
    p.add_argument("--epochs", type=int_type("epochs", 1), default=10000, help="full-batch epochs (default 10000)")
    p.add_argument("--test-fraction", type=float_type("test fraction", 0.0, 1.0, lo_open=True), default=0.1,
                   help="fraction of all n^2 pairs held out for testing, in (0, 1) (default 0.1)")
    p.add_argument("--loss", default="mse", choices=LOSSES,
                   help="mse: MSE on zero-mean outputs (SPEC 1, default); ce: cross-entropy")
    p.add_argument("--optimizer", default="adam", choices=OPTIMIZERS,
                   help=optimizer_help())
    p.add_argument("--momentum", type=float_type("momentum", 0.0, 1.0), default=0.0,
                   help="SGD momentum in [0, 1) (default 0)")
    p.add_argument("--seeds", type=parse_seeds, default="1",
                   help="seeds, e.g. 1-5 or 1,3,7; each seed fixes one model's split and initialization (default 1)")


def _run_flags(p) -> None:
    """Where and how the run computes and what it keeps: --device ... --threads."""
    p.add_argument("--device", type=device_type, default="cpu", help=DEVICE_HELP)
    p.add_argument("--dtype", default="float32", choices=DTYPES,
                   help="training precision: %(choices)s (default float32)")
    p.add_argument("--log-every", type=int_type("log-every", 1), default=10, metavar="N",
                   help="record full-data loss and accuracy every N epochs (default 10)")
    p.add_argument("--snapshot-every", type=int_type("snapshot-every", 0), default=0, metavar="N",
                   help="keep the weights every N epochs, streamed to DIR/<checkpoint>.snapshots/ as safetensors "
                        "files (read them with cogo dynamics; default 0: off)")
    p.add_argument("--snapshots", type=int_type("snapshots", 0), default=0, metavar="N",
                   help="instead of --snapshot-every: keep the weights at N epochs, always epoch 0 and the last, "
                        "placed by --spacing (default 0: off)")
    p.add_argument("--spacing", choices=("log", "uniform"), default="log",
                   help="how --snapshots places its epochs: log (geometric, every early epoch; default) or uniform")
    p.add_argument("--max-batch", type=int_type("max batch", 1), default=None, metavar="M",
                   help="at most M models per batched program (default: as many as fit in half the free memory)")
    p.add_argument("--kernel", default="auto", choices=KERNELS,
                   help="gradient kernel: all-pairs grid or training-pair gather (default auto); same results")
    add_threads(p)


def run(args) -> int:
    from cogo.solvers.resume import DEFAULT_RESUME_EVERY, state_path  # late: torch
    from cogo.io.outputs import check_output_dir  # late: start-up
    from cogo.solvers.training import train, validate_run  # late: torch
    from cogo.solvers.training_config import TrainConfig  # late: torch
    from cogo.solvers.training_results import check_run_outputs, plot_history, save_run  # late: torch

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
    with user_input():
        seeds, wds, _, size = validate_run(cfg, args.seeds, args.wd, args.max_batch, args.kernel)
        out = check_output_dir(args.out)
        check_run_outputs(cfg, args.seeds, args.wd, out, force=args.force, plot=args.plot)
    resume_every = DEFAULT_RESUME_EVERY if args.resume_every is None else args.resume_every
    models = [(wd, s) for wd in wds for s in seeds]
    states = [state_path(out, cfg, models[i:i + size]) for i in range(0, len(models), size)]
    if not args.resume and not args.force and any(p.exists() for p in states):
        raise CogoError(f"{out} holds the saved state of an interrupted run of these models "
                        f"({next(p.name for p in states if p.exists())}): --resume continues it, --force starts again")
    if defaulted and cfg.group_obj.as_product is None:
        print(f"non-Abelian group {cfg.group}: default {', '.join(defaulted)} (see docs/groups.md)")
    results = train(cfg, args.seeds, weight_decays=args.wd, progress=not args.no_progress,
                    max_batch=args.max_batch, kernel=args.kernel, snapshot_dir=out, threads=args.threads,
                    resume_every=resume_every, resume=args.resume, log=lambda line: print(line, flush=True))
    paths = save_run(results, out)
    _print_results(results)
    print(f"wrote {len(results)} checkpoint(s) to {out}")
    print(f"summary: {paths[-1]}")
    if args.plot:
        print(f"plot: {plot_history(results, out / 'curves.png')}")
    return 0


def _print_results(results) -> None:
    """The final losses and accuracies, one row per model; the clean and corrupted pairs apart (--label-noise)."""
    def fmt(v, spec):
        return format(float("nan") if v is None else v, spec)

    print(f"{'seed':>6} {'wd':>10} {'train_loss':>11} {'test_loss':>11} {'train_acc':>9} {'test_acc':>9}")
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

