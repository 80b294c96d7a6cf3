"""Series of checkpoints read as one training run over time (``cogo dynamics`` inputs).

A run over time is given to ``cogo dynamics`` in any of these forms; each
argument is one of

* a checkpoint with its own snapshots (``cogo train --snapshots N`` or
  ``--snapshot-every N``, :mod:`cogo.io.snapshots`): one run;
* a checkpoint without snapshots, one of a **series**: consecutive such
  arguments form one run, one file per epoch (the reference code's HEAD layout
  writes ``model00000.pt``, ``model00010.pt``, ... every N epochs; any layout
  :func:`cogo.io.weights.read_checkpoint` reads is accepted);
* a folder: its checkpoints with snapshots are one run each (a sweep folder
  read as a grid); otherwise its checkpoint files are one series; sub-folders
  holding series are one run each (``sweep/run_a/model*.pt``, ...), except the
  ``<name>.snapshots`` folders of the checkpoints read (their snapshots);
* a glob pattern (``'runs/model*.pt'``, quoted so that the shell leaves it),
  expanded and then read as the files it names.

The epoch of a file of a series is its metadata's ``epoch`` when it records
one, else the last integer in its name (``model00010.pt`` -> 10); a file with
neither, or two files with the same epoch, is refused (one line).  Every file
of a series is read through :func:`_read` (the one place a file is opened),
one at a time when its snapshot is needed; the series holds only the names.
"""
from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from cogo.io.snapshots import Snapshots
from cogo.io.weights import read_checkpoint
from cogo.runtime.errors import CogoError

__all__ = ["CHECKPOINT_SUFFIXES", "SeriesSnapshots", "epoch_from_name", "discover_runs", "open_series"]

#: The files a folder is searched for (the formats :func:`cogo.io.weights.read_checkpoint` reads).
CHECKPOINT_SUFFIXES = (".pt", ".pth", ".npz", ".safetensors")
_GLOB = re.compile(r"[*?\[]")


def _read(path: str, group: Any = None, estimate: Any = None) -> Any:
    """The one call that opens a file of a series: :func:`cogo.io.weights.read_checkpoint`.

    ``estimate(n, q)``: the work's memory estimate, checked from the file's header before any array is read.
    """
    return read_checkpoint(path, group=group, estimate=estimate)


def epoch_from_name(path: str | os.PathLike) -> int | None:
    """The epoch a series file's name gives: the last integer in its name without its suffix, or None.

    Examples
    --------
    >>> epoch_from_name("runs/model00010.pt"), epoch_from_name("ckpt_e250.pth"), epoch_from_name("final.pt")
    (10, 250, None)
    """
    found = re.findall(r"\d+", Path(path).stem)
    return int(found[-1]) if found else None


@dataclass
class SeriesSnapshots(Snapshots):
    """The snapshots of a run kept as one checkpoint file per epoch (module docstring).

    ``sources`` are the files in epoch order; :meth:`load` reads one through
    :func:`_read`.  ``files`` is None (the weights are passed on as arrays).
    """

    sources: list = field(default_factory=list)

    def source(self, i: int) -> str:
        return str(self.sources[i])

    def load(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        w = _read(self.sources[i], self.group)
        if w.Wa.shape != (self.hidden, self.n):
            raise CogoError(f"{self.sources[i]}: weights of shape {w.Wa.shape}, the series' first file has "
                            f"{(self.hidden, self.n)}")
        return w.Wa, w.Wb, w.Wc


def _has_snapshots(meta: Any) -> bool:
    return isinstance(meta, dict) and isinstance(meta.get("snapshots"), dict)


def open_series(paths: Sequence[str | os.PathLike], group: Any = None, name: str | None = None) -> SeriesSnapshots:
    """One run from checkpoint files, one per epoch; each file read and checked now (untrusted input).

    ``name``: the run's name (default: the common folder of the files).

    Returns
    -------
    SeriesSnapshots
        The files in epoch order, their epochs, the group, ``n``, ``q``; ``meta`` and ``final`` are those of
        the last file.

    Raises
    ------
    cogo.runtime.errors.CogoError
        One line: a file gives no epoch, two give the same, or the files differ in group or shape.
    """
    if not paths:
        raise CogoError("a series of checkpoints needs at least one file")
    rows = []
    first = None
    for p in paths:
        w = _read(str(p), group)
        first = first or w
        if w.Wa.shape != first.Wa.shape or str(w.group) != str(first.group):
            raise CogoError(f"{p}: group {w.group}, weights {w.Wa.shape} differ from {paths[0]}'s "
                            f"({first.group}, {first.Wa.shape}): not one run")
        e = w.meta.get("epoch") if isinstance(w.meta, dict) else None
        e = int(e) if isinstance(e, (int, np.integer)) and not isinstance(e, bool) and e >= 0 else epoch_from_name(p)
        if e is None:
            raise CogoError(f"{p}: the checkpoint has no snapshots (cogo train --snapshots N), and as a file of a "
                            "series of checkpoints it gives no epoch in its metadata or its name (e.g. model00010.pt)")
        rows.append((e, str(p), w))
    rows.sort(key=lambda r: r[0])
    eps = [r[0] for r in rows]
    dup = sorted({e for e in eps if eps.count(e) > 1})
    if dup:
        raise CogoError(f"two files of the series give epoch {dup[0]}: "
                        + ", ".join(p for e, p, _ in rows if e == dup[0]))
    last = rows[-1][2]
    q, n = last.Wa.shape
    meta = dict(last.meta) if isinstance(last.meta, dict) else {}
    meta.pop("snapshots", None)
    label = name or os.path.commonpath([str(Path(r[1]).parent.resolve()) for r in rows])
    return SeriesSnapshots(path=str(label), group=last.group, n=n, hidden=q, epochs=eps, files=None, meta=meta,
                           final=(last.Wa, last.Wb, last.Wc), sources=[r[1] for r in rows])


def _checkpoints_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in CHECKPOINT_SUFFIXES)


def _expand(arg: str) -> list[str]:
    if _GLOB.search(arg) and not os.path.exists(arg):
        got = sorted(glob.glob(arg))
        if not got:
            raise CogoError(f"{arg}: the pattern matches no file")
        return got
    return [arg]


def _folder_runs(folder: Path, group: Any, estimate: Any = None) -> list:
    """A folder: its checkpoints with snapshots (one run each), else its files as one series; then sub-folders
    (not the snapshot folders of its checkpoints: their files are those runs' snapshots, not another run)."""
    files = [str(p) for p in _checkpoints_in(folder)]
    runs: list = []
    plain = []
    for f in files:
        ck = _read(f, group, estimate)
        (runs.append(ck) if _has_snapshots(ck.meta) else plain.append(f))
    if plain:
        runs.append(open_series(plain, group, name=str(folder)))
    owned = {ck.meta["snapshots"].get("dir") for ck in runs if _has_snapshots(getattr(ck, "meta", None))}
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if sub.name not in owned and _checkpoints_in(sub):
            runs.extend(_folder_runs(sub, group, estimate))
    if not runs:
        raise CogoError(f"{folder}: no checkpoint ({', '.join(CHECKPOINT_SUFFIXES)}) in the folder or its sub-folders")
    return runs


def discover_runs(args: Sequence[str], group: Any = None, estimate: Any = None) -> list:
    """The runs named by ``cogo dynamics`` arguments (module docstring), every file read and checked.

    ``estimate(n, q)``: the memory the work needs, checked from each file's header before its arrays are read.

    Returns
    -------
    list
        Per run, in the order given: a checkpoint read once (:class:`cogo.io.checkpoint.Checkpoint`, a run
        with its own snapshots, for :func:`cogo.io.snapshots.open_snapshots`) or a :class:`SeriesSnapshots`.

    Raises
    ------
    cogo.runtime.errors.CogoError
        One line, for a missing file, a pattern matching nothing, a folder without checkpoints or a bad series.
    """
    runs: list = []
    pending: list = []

    def flush():
        if pending:
            runs.append(open_series(list(pending), group))
            pending.clear()

    for arg in args:
        for item in _expand(str(arg)):
            p = Path(item)
            if p.is_dir():
                flush()
                runs.extend(_folder_runs(p, group, estimate))
                continue
            ck = _read(item, group, estimate)
            if _has_snapshots(ck.meta):
                flush()
                runs.append(ck)
            else:
                pending.append(item)
    flush()
    return runs
