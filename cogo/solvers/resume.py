"""Resumable training: periodic, atomic checkpoints of a batched program's full state (SPEC 1).

``cogo train --resume-every N`` (default 1000 epochs) saves, every ``N``
epochs, everything the epoch loop of :func:`cogo.solvers.training.train`
carries from one epoch to the next:

* the stacked weights ``P`` (``3 x M x n x q``) after ``epoch`` updates;
* the optimizer's state (``torch.optim`` ``state_dict``: Adam's step count and
  moment estimates, SGD's momentum buffers);
* the recorded history, the epochs already snapshotted and each snapshot
  writer's index (so the snapshot files already written are kept, and the
  index lists them);
* the wall time spent so far.

The file is ``DIR/.<first checkpoint stem>.x<M>.resume.pt`` (one per batched
program), written through :func:`cogo.io.outputs.atomic_write` (a temporary
file renamed into place), so an interruption at any moment leaves the previous
complete state.  It is removed when the program finishes.

``cogo train --resume`` (``train(..., resume=True)``) reads it back (with
``torch.load(weights_only=True)``: the file is untrusted like any
checkpoint), checks that it was written for the same hyperparameters, models,
kernel and device type, and continues at the saved epoch.  The epoch loop is
deterministic given that state (full-batch gradients, no random numbers after
initialization, denormals flushed on every thread, see :mod:`cogo.runtime.threads`),
so the resumed run ends with weights, history and snapshots bit-identical to
an uninterrupted run (``tests/solvers/test_resume.py``).  Without a saved state the
run starts at epoch 0 and says so.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import torch

from cogo.io.run_names import checkpoint_name
from cogo.io.outputs import atomic_write
from cogo.runtime.errors import CogoError

__all__ = ["RESUME_FORMAT", "DEFAULT_RESUME_EVERY", "ResumeState", "state_path"]

RESUME_FORMAT = "cogo-resume/1"
#: epochs between two saved states when the command line does not say (cogo train --resume-every)
DEFAULT_RESUME_EVERY = 1000


def state_path(directory: str | os.PathLike, cfg: Any, models: list[tuple[float, int]]) -> Path:
    """Where the state of the batched program training ``models`` is kept.

    Returns
    -------
    pathlib.Path
        ``directory/.<first checkpoint stem>.x<M>.resume.pt``: a hidden file named after the first model
        of the batch and the number ``M`` of models in it.

    Examples
    --------
    >>> from cogo.solvers.training_config import TrainConfig
    >>> state_path("runs", TrainConfig(group="7", hidden=8), [(0.0, 1), (0.0, 2)]).name
    '.d7_q8_wd0_seed1.x2.resume.pt'
    """
    wd, seed = models[0]
    stem = checkpoint_name(cfg.group, cfg.hidden, wd, seed)[:-3]
    return Path(directory) / f".{stem}.x{len(models)}.resume.pt"


def _plain(x: Any) -> Any:
    """JSON-like copy (lists for tuples) so that saved and current settings compare equal."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


class ResumeState:
    """The saved state of one batched program: :meth:`restore` at the start, :meth:`maybe_save` every epoch.

    ``every``: save when ``epoch % every == 0`` (0: never).  ``log``: where to say what happened.
    """

    def __init__(self, directory: str | os.PathLike | None, cfg: Any, models: list[tuple[float, int]],
                 kernel: str, device: torch.device, every: int = 0, log: Any = None):
        if directory is None:
            raise ValueError("resumable training needs an output directory (snapshot_dir) to keep its state in")
        if every < 0:
            raise ValueError(f"resume interval must be >= 0 epochs, got {every}")
        self.path = state_path(directory, cfg, models)
        self.every = int(every)
        self.log = log or (lambda s: None)
        hp = cfg.hyperparameters()
        hp.pop("weight_decay", None)  # each model's own decay is in "models"
        self.settings = _plain({"hyperparameters": hp, "models": [[float(w), int(s)] for w, s in models],
                                "kernel": kernel, "device_type": device.type})
        self.t0 = time.perf_counter()
        self.elapsed_before = 0.0

    # -- saving --------------------------------------------------------------
    def maybe_save(self, epoch: int, batch: Any, history: list, snap_epochs: list, writers: list,
                   last_epoch: int) -> bool:
        """Save the state before iteration ``epoch`` (weights after ``epoch`` updates) when it is due."""
        if not self.every or epoch == 0 or epoch >= last_epoch or epoch % self.every:
            return False
        state = {
            "format": RESUME_FORMAT, "settings": self.settings, "epoch": int(epoch),
            "P": batch.P.detach().to("cpu", copy=True),
            "optimizer": batch.optimizer.state_dict(),
            "history": history, "snap_epochs": list(snap_epochs),
            "writers": [w.index for w in writers],
            "elapsed": self.elapsed_before + time.perf_counter() - self.t0,
        }
        with atomic_write(self.path, "wb") as fh:
            torch.save(state, fh)
        return True

    def done(self) -> None:
        """The program finished: its results are in the checkpoints; the state is removed."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    # -- restoring -----------------------------------------------------------
    def restore(self, batch: Any, history: list, snap_epochs: list, writers: list) -> int:
        """Load the saved state into ``batch`` and the lists (in place); return the epoch to continue at (0: none)."""
        if not self.path.is_file():
            self.log(f"no saved state {self.path.name} in {self.path.parent}: training from epoch 0")
            return 0
        try:
            state = torch.load(self.path, map_location="cpu", weights_only=True)
        except Exception as exc:  # an untrusted, possibly truncated file: one line
            raise CogoError(f"{self.path}: not a readable training state ({type(exc).__name__}); "
                            "remove it to train from epoch 0") from None
        if not isinstance(state, dict) or state.get("format") != RESUME_FORMAT:
            raise CogoError(f"{self.path}: not a training state written by cogo ({RESUME_FORMAT})")
        if _plain(state.get("settings")) != self.settings:
            raise CogoError(f"{self.path} was saved by a run with other settings (hyperparameters, seeds, weight "
                            "decays, kernel or device); resume with the same command, or remove the file")
        P = state["P"]
        if not isinstance(P, torch.Tensor) or P.shape != batch.P.shape or P.dtype != batch.P.dtype:
            raise CogoError(f"{self.path}: saved weights of shape {getattr(P, 'shape', None)} do not fit this run")
        epoch = int(state["epoch"])
        with torch.no_grad():
            batch.P.copy_(P.to(batch.P.device))
        batch.optimizer.load_state_dict(state["optimizer"])
        history[:] = state["history"]
        snap_epochs[:] = state["snap_epochs"]
        if len(state["writers"]) != len(writers):
            raise CogoError(f"{self.path}: saved with {len(state['writers'])} snapshot writers, this run has "
                            f"{len(writers)}")
        for w, idx in zip(writers, state["writers"]):
            w.index = idx
        self.elapsed_before = float(state.get("elapsed", 0.0))
        self.log(f"resuming from {self.path.name} at epoch {epoch}")
        return epoch
