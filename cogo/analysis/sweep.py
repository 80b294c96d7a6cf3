"""Many checkpoints read one at a time (a list, a folder, a sweep), optionally in worker processes (SPEC 8).

:func:`cogo.analysis.classify.classify_many` checks every path first (duplicates, and what cannot
fit from the shapes alone, :mod:`cogo.limits`), then hands the block reading to :func:`read_many`:
each checkpoint is loaded, read and dropped before the next, so memory holds one network's
weights at a time (``keep_weights=False``; the reports, a few tens of kB each, are kept: they are
the output), with a tqdm bar over the checkpoints.  ``workers > 1`` reads them in that many
processes (:class:`concurrent.futures.ProcessPoolExecutor`, results in the order given); each
process loads its own checkpoints, so the weights never travel between processes.

The groups must agree: the first checkpoint decides the reading (blocks for an Abelian group,
SPEC 8; the irreps of SPEC 9 otherwise, which loads every checkpoint first as before) and every
other checkpoint must have its group, else a one-line :class:`cogo.errors.CogoError` (raised
before any output is written).
"""
from __future__ import annotations

import os
from typing import Any, Callable, Iterator, Sequence

__all__ = ["read_many"]


def _mixed_groups(seen: dict) -> str:
    """The refusal of checkpoints of different groups (``seen``: group label -> paths)."""
    return ("checkpoints of different groups cannot be aggregated: " + "; ".join(
        f"{g}: {', '.join(ps[:2])}{', ...' if len(ps) > 2 else ''}" for g, ps in seen.items())
        + "; classify each group separately")


def _read_path(task: tuple) -> tuple:
    """Worker: load one checkpoint and read it; returns ``(group label, report or None, weights or None)``."""
    from cogo.analysis.classify import _load_one, _read_loaded

    path, group, st, keep_weights = task
    w = _load_one(path, group)
    if w.group.abelian is None:  # cannot join a block reading: refused by the caller
        return str(w.group), None, None
    rep = _read_loaded(w, path, st)
    return str(w.group), rep, ((w.Wa, w.Wb, w.Wc, w.group) if keep_weights else None)


def _results(paths: Sequence, first: Any, group: Any, st: Any, workers: int, keep_weights: bool) -> Iterator[tuple]:
    """``(group label, report, weights)`` per checkpoint, in order: here, or in ``workers`` processes."""
    from cogo.analysis.classify import _load_one, _read_loaded

    if workers <= 1 or len(paths) <= 1:
        for i, p in enumerate(paths):
            w = first if i == 0 else _load_one(p, group)
            if w.group.abelian is None or (i and str(w.group) != str(first.group)):
                yield str(w.group), None, None  # the caller refuses before reading it
                return
            yield str(w.group), _read_loaded(w, p, st), ((w.Wa, w.Wb, w.Wc, w.group) if keep_weights else None)
        return
    from concurrent.futures import ProcessPoolExecutor

    tasks = [(str(p), group, st, keep_weights) for p in paths]
    with ProcessPoolExecutor(max_workers=min(workers, len(paths))) as pool:
        try:
            yield from pool.map(_read_path, tasks)
        finally:
            pool.shutdown(cancel_futures=True)


def read_many(paths: Sequence[str | os.PathLike], group: Any, st: Any, progress: bool = False,
              on_loaded: Callable | None = None, workers: int = 1, keep_weights: bool = True) -> Any:
    """Read checkpoints one at a time (module docstring); the paths were checked by the caller.

    ``on_loaded(loaded)``: called before any analysis with the checkpoints that decide the
    reading (every one for the irreps reading; the first for the block reading, whose group every
    other must share).  ``keep_weights``: keep each network's ``(Wa, Wb, Wc, group)`` in the
    result (for :func:`cogo.analysis.classify.tolerance_curve`); False keeps memory at one network.

    Returns
    -------
    ClassifyResult or IrrepsResult
        As :func:`cogo.analysis.classify.classify_many`.
    """
    from cogo.analysis.classify import ClassifyResult, _load_one, _plain_meta, summarize
    from cogo.errors import CogoError

    paths = [str(p) for p in paths]
    first = _load_one(paths[0], group)
    if first.group.abelian is None:
        # a group given by its Cayley table: the catalogue of SPEC 7 is Abelian-only; read irreps (SPEC 9)
        from cogo.analysis.irreps import irreps_checkpoints

        loaded = [first] + [_load_one(p, group) for p in paths[1:]]
        seen: dict = {}
        for w, p in zip(loaded, paths):
            seen.setdefault(str(w.group), []).append(p)
        if len(seen) > 1:
            raise CogoError(_mixed_groups(seen))
        if on_loaded is not None:
            on_loaded(loaded)
        return irreps_checkpoints(loaded, paths, dead_threshold=st.dead_threshold, meta_filter=_plain_meta)
    if on_loaded is not None:
        on_loaded([first])
    label = str(first.group)
    bar = None
    if progress and len(paths) > 1:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(paths), desc="classify", unit="checkpoint", dynamic_ncols=True, leave=False)
    reports, weights = [], []
    try:
        for p, (g, rep, w) in zip(paths, _results(paths, first, group, st, workers, keep_weights)):
            if g != label or rep is None:
                raise CogoError(_mixed_groups({label: paths[:1], g: [p]}))
            reports.append(rep)
            if w is not None:
                weights.append(w)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return ClassifyResult(reports=reports, summary=summarize(reports), settings=st, weights=weights)
