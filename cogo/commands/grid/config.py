"""The grid of ``cogo experiment`` and ``cogo demo``: its settings, the resume check, the demo's defaults.

:class:`ExperimentConfig` is every group x weight decay x seed with the training settings;
:func:`check_resume` refuses, before anything is written, to resume into a folder of another grid.
The run is :mod:`cogo.commands.grid.run`, the report :mod:`cogo.commands.grid.report`.
"""
from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

from cogo.algebra.activations import THEORY
from cogo.algebra.group_parsing import parse_group
from cogo.io.outputs import check_output_file
from cogo.runtime.errors import CogoError
from cogo.runtime.limits import require, verify_estimate

__all__ = ["ExperimentConfig", "DEMO_CONFIG", "fresh_directory", "check_resume"]

#: The training options of cogo.solvers.training_options and their defaults (named in the report when changed).
OPTION_DEFAULTS = {"activation": THEORY, "batch_size": 0, "label_noise": 0.0, "top": "trained", "ridge": 1e-3}
#: Hyperparameters whose recorded value must match for a checkpoint to be reused.
#: (The label-noise fraction is not among them: the checkpoint records the corrupted pairs under that key; the
#: report's grid check, :data:`_GRID_KEYS`, holds the fraction.)
_MATCH_KEYS = ("hidden", "lr", "epochs", "test_fraction", "loss", "optimizer", "dtype", "activation", "batch_size",
               "top", "ridge")


@dataclass
class ExperimentConfig:
    """A grid of training runs: every group x weight decay x seed (defaults: the reference experiment)."""

    groups: Sequence[str] = ("23",)
    seeds: Sequence[int] = (1, 2, 3, 4, 5)
    weight_decays: Sequence[float] = (5e-5,)
    hidden: int = 512
    epochs: int = 10000
    lr: float = 0.01
    test_fraction: float = 0.1
    loss: str = "mse"
    optimizer: str = "adam"
    dtype: str = "float32"
    device: str = "cpu"
    verify: str = "both"  # 'exact', 'numeric', 'both' or 'none'
    log_every: int = 50
    dynamics: int = 0  # > 0: snapshot every N epochs and read each run over time (cogo.dynamics.runs)
    threads: int | None = None  # CPU threads; None: the policy of cogo.runtime.threads (results do not depend on it)
    #: the training options of cogo.solvers.training_options (cogo train's flags of the same names)
    activation: str = THEORY
    batch_size: int = 0
    label_noise: float = 0.0
    top: str = "trained"
    ridge: float = 1e-3

    def train_config(self, group: str, weight_decay: float | None = None):
        from cogo.solvers.training_config import TrainConfig  # late: torch

        return TrainConfig(group=parse_group(group).label, hidden=self.hidden, lr=self.lr,
                           weight_decay=self.weight_decays[0] if weight_decay is None else weight_decay,
                           epochs=self.epochs, test_fraction=self.test_fraction, loss=self.loss,
                           optimizer=self.optimizer, dtype=self.dtype, device=self.device,
                           log_every=self.log_every, snapshot_every=int(self.dynamics), activation=self.activation,
                           batch_size=self.batch_size, label_noise=self.label_noise, top=self.top, ridge=self.ridge,
                           log_early=True)  # the curves' epoch axis is logarithmic: record 1, 2, 5, ... too

    def validate(self) -> "ExperimentConfig":
        """Raise ValueError (one line) on any bad value; nothing is trained or written."""
        from cogo.solvers.training import validate_run  # late: torch

        if not self.groups:
            raise CogoError("at least one group is required")
        labels = [parse_group(g).label for g in self.groups]
        if len(set(labels)) != len(labels):
            raise CogoError(f"duplicate groups in {list(self.groups)}")
        for g in self.groups:  # the experiment's classify/verify steps are the Abelian ones (SPEC 3-8)
            if parse_group(g).as_product is None:
                raise CogoError(f"cogo experiment needs Abelian groups Z_d1 x ... x Z_dn; for {g} use cogo train "
                                "and cogo classify (the irreducible-representation reading, SPEC 9)")
        if self.verify not in ("exact", "numeric", "both", "none"):
            raise CogoError(f"verify must be exact, numeric, both or none; got {self.verify!r}")
        if self.threads is not None and (isinstance(self.threads, bool) or not isinstance(self.threads, int)
                                         or self.threads < 1):
            raise CogoError(f"threads must be a positive integer, got {self.threads!r}")
        for g in labels:
            validate_run(self.train_config(g), self.seeds, self.weight_decays)
            if self.verify in ("numeric", "both"):
                n = parse_group(g).order
                require(verify_estimate(n, self.verify, n % 2 == 0))
        return self


#: ``cogo demo``: d=23 at the reference hyperparameters, 5 seeds (about a minute on 2 CPU cores).
DEMO_CONFIG = ExperimentConfig(groups=("23",), seeds=(1, 2, 3, 4, 5))


def fresh_directory(prefix: str = "cogo-demo", parent: str | os.PathLike = ".") -> Path:
    """A directory that does not exist yet: ``PARENT/PREFIX-YYYYmmdd-HHMMSS`` (``-1``, ``-2``, ... appended if needed)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(parent) / f"{prefix}-{stamp}"
    path, i = base, 1
    while path.exists():
        path = Path(f"{base}-{i}")
        i += 1
    return path


# --------------------------------------------------------------------------- training with resume
#: Settings of the grid that a resumed experiment must repeat exactly (``report.json`` ``config``).
_GRID_KEYS = ("groups", "seeds", "weight_decays", "hidden", "epochs", "lr", "test_fraction", "loss", "optimizer",
              "dtype", "log_every", "dynamics", "activation", "batch_size", "label_noise", "top", "ridge")


def check_resume(cfg: ExperimentConfig, out: str | os.PathLike, force: bool = False) -> None:
    """Before anything is written: refuse to resume into ``out`` with other settings (CogoError, one line).

    * ``out/report.json`` of an earlier run must describe the same grid
      (:data:`_GRID_KEYS`): a new grid in an old folder is an error unless
      ``force`` (then the new report describes only the new grid);
    * every checkpoint already in ``out/d*/`` is read now, so a corrupt one in
      any group is reported before any file is rewritten; one that is not part
      of the requested grid (another ``--hidden`` or ``--wd``, which are in the
      file names, another seed or group) or was trained with other settings is
      an error unless ``force``;
    * the report files and figure folder must pass :mod:`cogo.io.outputs`.
    """
    from cogo.io.weights import read_checkpoint  # late: start-up (cogo --help reads no checkpoint)
    from cogo.io.run_names import checkpoint_name  # late: start-up

    out = Path(out)
    if not out.is_dir():
        return
    labels = [parse_group(g).label for g in cfg.groups]
    rep = out / "report.json"
    if rep.exists() and not force:
        try:
            old = json.loads(rep.read_text())["config"]
        except (OSError, ValueError, KeyError, TypeError):
            raise CogoError(f"{rep} is not a readable experiment report; use a fresh --out, or --force") from None
        new = {**asdict(cfg), "groups": labels, "seeds": list(cfg.seeds),
               "weight_decays": [float(w) for w in cfg.weight_decays]}
        diff = []
        defaults = asdict(ExperimentConfig())  # a report of an earlier release lacks the keys added since
        for k in _GRID_KEYS:
            a, b = old.get(k, defaults.get(k) if k not in ("dynamics",) else None), new.get(k)
            if isinstance(b, list):
                same = isinstance(a, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
            else:
                same = a is None and k == "dynamics" and not b or _same(a, b)
            if not same:
                diff.append(f"{k} {a!r} -> {b!r}")
        if diff:
            raise CogoError(f"{out} holds an experiment with other settings ({'; '.join(diff)}); resuming would mix "
                            "them: use a fresh --out, or --force to run the new grid there")
    expected = {}
    for label in labels:
        for wd in cfg.weight_decays:
            for seed in cfg.seeds:
                expected[out / f"d{label}" / checkpoint_name(label, cfg.hidden, wd, seed)] = (label, wd, seed)
    for path in sorted(out.glob("d*/*.pt")):
        w = read_checkpoint(path)  # CheckpointError (one line) for a corrupt file, before anything is written
        if path not in expected:
            if not force:
                raise CogoError(f"{path} is not part of the requested grid (other hidden size, weight decay, seed "
                                "or group); resuming would mix settings: use a fresh --out, or --force")
            continue
        label, wd, seed = expected[path]
        if not force:
            reusable(path, cfg.train_config(label, wd), wd, seed, weights=w)
    for name in ("report.json", "report.md"):
        check_output_file(out / name, force=force, label="report", existing_ok=True)  # resuming replaces the report


def reusable(path: Path, cfg, wd: float, seed: int, weights: Any = None, force: bool = False) -> bool:
    """True if ``path`` is a valid checkpoint trained with exactly these settings.

    A readable checkpoint with other settings raises CogoError: the output
    directory belongs to another experiment (with ``force`` it is retrained).
    """
    from cogo.io.weights import read_checkpoint  # late: start-up (cogo --help reads no checkpoint)

    if not path.is_file():
        return False
    w = weights if weights is not None else read_checkpoint(path)  # CheckpointError (one line) if malformed
    meta = w.meta
    want = {k: getattr(cfg, k) for k in _MATCH_KEYS}
    want.update(group=cfg.group, seed=seed)
    got = {k: meta.get(k) for k in want}
    bad = [k for k in want if not _same(got[k], want[k])]
    if not _same(meta.get("weight_decay"), wd):
        bad.append("weight_decay")
    if bad and force:
        return False
    if bad:
        raise CogoError(
            f"{path} was trained with other settings ({', '.join(f'{k}={got.get(k, meta.get(k))!r}' for k in bad)}); "
            "use a fresh --out directory"
        )
    return True


def _same(a: Any, b: Any) -> bool:
    """Two recorded settings agree (floats to a relative 1e-9)."""
    if isinstance(b, float) or isinstance(a, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=0.0)
        except (TypeError, ValueError):
            return False
    return a == b
