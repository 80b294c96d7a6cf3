"""``cogo demo``: a small real experiment on built-in defaults, written to a fresh folder."""
from __future__ import annotations

from cogo.commands._run import command_line, user_input
from cogo.commands.experiment import grid_config, grid_flags, run_and_print
from cogo.commands.grid.config import fresh_directory
from cogo.io.outputs import mark_output

ORDER = 7
LONG = True


def add(subparsers) -> None:
    p = subparsers.add_parser("demo", help="a small real experiment on built-in defaults (a few minutes on CPU)",
                              description="Train Z_23 at the reference hyperparameters (q=512, Adam lr 0.01, wd "
                                          "5e-5, 10000 epochs) for 5 seeds, classify the models, verify the "
                                          "constructions, and write the report to a fresh directory "
                                          "cogo-demo-DATE-TIME.")
    grid_flags(p, demo=True)
    mark_output(p.add_argument("--out", default=None, metavar="DIR",
                               help="output directory (default: a fresh cogo-demo-DATE-TIME)"), "dir")


def run(args) -> int:
    with user_input():
        cfg = grid_config(args).validate()
    out = args.out or str(fresh_directory("cogo-demo"))
    print(f"cogo demo: writing to {out}", flush=True)
    return run_and_print(cfg, out, args, command_line(args))
