"""The record of a progress measure and the loop that computes a list of them over a stack of snapshots.

A progress measure is one :class:`Measure` record: its name, how it is computed
from a :class:`Part` of a stack of snapshots, and how a run shows it (its part
of ``run["progress"]`` in ``dynamics.json``, its columns of
:func:`cogo.dynamics.progress.progress_table`, its series and lines in the
progress figures).  :func:`compute_measures` runs a list of them over a stack,
a sub-stack of snapshots at a time for the measures that read the logits
(memory bounded by :data:`cogo.dynamics.logits.MAX_ELEMENTS`), each
intermediate they share computed once per sub-stack and freed after its last
reader.  The registries: cogo's measures
(:data:`cogo.dynamics.progress.MEASURES`) and the peers'
(:data:`cogo.dynamics.peers.PEER_MEASURES`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

__all__ = ["Panel", "Measure", "Part", "compute_measures"]


@dataclass(frozen=True)
class Panel:
    """One panel of the progress figures: its title, y label and y scale (``True``: log, ``"symlog"``, ``False``),
    and the lines it draws from the run's own record (``(series, label, style)``, before the measures' lines)."""

    title: str
    ylabel: str
    logy: Any = False
    run_lines: tuple = ()


@dataclass(frozen=True)
class Measure:
    """One progress measure: what it computes and how a run shows it.

    ``name``: its array over the snapshots (the snapshot on the first axis; a list of str when ``labels``),
    cached per snapshot.  ``compute(part)``: its values at the snapshots of a :class:`Part`; ``scope``:
    ``"chunk"`` (a sub-stack of logits at a time), ``"stack"`` (the whole stack at once) or ``"after"``
    (``compute(values, stack)`` from the measures before it, over the whole stack); ``uses``: the
    :class:`Part` intermediates of a chunk measure, freed after their last reader.  ``json(values, reader)``:
    its part of ``run["progress"]`` (merged into it; ``reader`` a
    :class:`cogo.dynamics.progress_reader.ProgressReader`), None when another part writes it;
    ``table(progress, i)``: its columns of :func:`cogo.dynamics.progress.progress_table` at snapshot ``i``;
    ``series(progress)``: its float series for the figures; ``lines``: the ``(panel, series, label, style)`` it
    draws; ``falls``: its :func:`cogo.dynamics.progress.fall_epoch` is reported and aggregated over runs.
    """

    name: str
    compute: Callable
    scope: str = "chunk"
    uses: tuple = ()
    labels: bool = False
    json: Callable | None = None
    table: Callable | None = None
    series: Callable | None = None
    lines: tuple = ()
    falls: bool = False


class Part:
    """The snapshots ``sl`` of a stack: ``part[name]`` is an intermediate several measures read, computed once
    when first asked for by ``shared[name](part)`` (which returns it with its siblings, a dict);
    :meth:`forget` frees it."""

    def __init__(self, stack: Any, sl: slice, shared: dict):
        self.stack, self.sl, self.shared = stack, sl, shared
        self.n = len(range(*sl.indices(stack.S)))
        self._values: dict = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._values:
            self._values.update(self.shared[name](self))
        return self._values[name]

    def forget(self, name: str) -> None:
        self._values.pop(name, None)


def compute_measures(measures: tuple, stack: Any, shared: dict) -> dict:
    """The arrays of ``measures`` over a stack of ``stack.S`` snapshots, chunk measures ``stack.step`` at a time.

    ``shared``: the intermediates of a :class:`Part` (name -> the function computing it and its siblings).
    """
    out: dict = {}
    whole = Part(stack, slice(0, stack.S), shared)
    for m in measures:
        if m.scope == "stack":
            out[m.name] = m.compute(whole)
    chunk = [m for m in measures if m.scope == "chunk"]
    last_use = {u: i for i, m in enumerate(chunk) for u in m.uses}
    parts: dict = {m.name: [] for m in chunk}
    for s0 in range(0, stack.S, stack.step):
        part = Part(stack, slice(s0, min(stack.S, s0 + stack.step)), shared)
        for i, m in enumerate(chunk):
            parts[m.name].append(m.compute(part))
            for u in m.uses:
                if last_use[u] == i:
                    part.forget(u)
    for m in measures:
        if m.scope == "chunk":
            out[m.name] = np.concatenate(parts[m.name])
        elif m.scope == "after":
            out[m.name] = m.compute(out, stack)
    return out
