"""Many checkpoints read one at a time (a list, a folder, a sweep), optionally in worker processes (SPEC 8).

:func:`cogo.analysis.classify.classify_many` checks every path first (duplicates, and what cannot
fit from the shapes alone, :mod:`cogo.runtime.limits`), then hands the block reading to :func:`read_many`:
each checkpoint is loaded, read and dropped before the next, so memory holds one network's
weights at a time (``keep_weights=False``; the reports are kept, about 0.3 MB each for 63 blocks:
they are the output; they share the first checkpoint's group object, whose cached tables would
otherwise travel back from every worker, 0.5 MB each at d = 127), with a tqdm bar over the checkpoints.  ``workers > 1`` reads them in that many
processes (:class:`concurrent.futures.ProcessPoolExecutor`, results in the order given); each
process loads its own checkpoints, so the weights do not travel between processes (but the first's: it was
read here to decide the reading, and is handed to its worker rather than read twice).

The groups must agree: the first checkpoint decides the reading (blocks for an Abelian group,
SPEC 8; the irreps of SPEC 9 otherwise, which loads every checkpoint first as before) and every
other checkpoint must have its group, else a one-line :class:`cogo.runtime.errors.CogoError` (raised
before any output is written).
"""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterator, NamedTuple, Sequence

from cogo.algebra.activations import THEORY
from cogo.io.checkpoint import Checkpoint, header_shapes
from cogo.io.layouts import DEFAULT_OPTIONS, ReadOptions
from cogo.io.outputs import file_identities
from cogo.io.weights import read_checkpoint
from cogo.runtime.errors import CogoError
from cogo.runtime.limits import classify_estimate, require

__all__ = ["Readers", "OtherActivation", "check_paths", "load_one", "load_sqr", "read_many"]


def check_paths(paths: list, group: Any, options: ReadOptions = DEFAULT_OPTIONS) -> None:
    """Refuse duplicates, and what cannot fit (:mod:`cogo.runtime.limits`) where a file's header tells its shapes.

    No array is read here: a file whose header cannot tell its shapes is checked when it is read
    (:func:`load_one`), still before its arrays are; a :class:`cogo.io.checkpoint.Checkpoint` already
    read is used as it is.
    """
    if not paths:
        raise ValueError("no checkpoint files given")
    seen: dict = {}
    for p in paths:
        keys = file_identities(p)
        p0 = next((seen[k] for k in keys if k in seen), None)
        if p0 is not None:
            raise CogoError(f"{p} is given twice (as {p0}); each checkpoint may count only once")
        seen.update({k: p for k in keys})
    for p in paths:
        if not isinstance(p, Checkpoint) and isinstance(p, (str, os.PathLike)) and os.path.isfile(p):
            head = header_shapes(p, group=group, options=options)
            if head is not None:
                q_, n_ = head[0]
                require(classify_estimate(n_, q_))


def load_one(path: Any, group: Any, options: ReadOptions = DEFAULT_OPTIONS) -> Any:
    """One checkpoint read once (:class:`cogo.io.checkpoint.Checkpoint`) with the reading ``options``, refused from
    its header if it cannot fit."""
    return read_checkpoint(path, group=group, estimate=classify_estimate, options=options)


class OtherActivation(CogoError):
    """A checkpoint of a sweep read with :func:`load_sqr` whose activation is not ``sqr``.

    ``cogo classify`` reads a sweep's files one at a time (in its workers); when one is not an ``sqr``
    network it falls back to the per-node report of every file (:func:`cogo.analysis.nodes.activation_reports`),
    as it does when the first one is not.
    """


def load_sqr(path: Any, group: Any, options: ReadOptions = DEFAULT_OPTIONS) -> Any:
    """:func:`load_one` for a reading that holds ``sqr`` networks only: another activation raises :class:`OtherActivation`."""
    w = load_one(path, group, options)
    if w.activation != THEORY:
        raise OtherActivation(f"{w.path}: the activation is {w.activation}, not sqr")
    return w


class Readers(NamedTuple):
    """How one checkpoint is read (module-level functions, so worker processes can be handed them).

    ``load(path, group)`` -> :class:`cogo.io.checkpoint.Checkpoint`; ``read(loaded, path,
    settings)`` -> the block reading of one network; ``result(reports, settings, weights)`` -> the
    aggregate; ``irreps(loaded, paths, settings)`` -> the irreps reading (SPEC 9); ``render(report)``, if given,
    -> the report's JSON entry, rendered where the report was read (a worker), kept in the aggregate's
    ``json_entries``.
    """

    load: Callable
    read: Callable
    result: Callable
    irreps: Callable
    render: Callable | None = None


def _mixed_groups(seen: dict) -> str:
    """The refusal of checkpoints of different groups (``seen``: group label -> paths)."""
    return ("checkpoints of different groups cannot be aggregated: " + "; ".join(
        f"{g}: {', '.join(ps[:2])}{', ...' if len(ps) > 2 else ''}" for g, ps in seen.items())
        + "; classify each group separately")


def _read_path(task: tuple) -> tuple:
    """Worker: load one checkpoint and read it; returns ``(group label, report or None, weights or None, JSON entry
    or None)``.

    ``task``: ``(source, path, group, settings, keep_weights, readers)``; ``source`` is the path, or the checkpoint
    already read (the first one, read by the caller to decide the reading: it is not read again).
    """
    source, path, group, st, keep_weights, readers = task
    w = readers.load(source, group)
    if w.group.as_product is None:  # cannot join a block reading: refused by the caller
        return str(w.group), None, None, None
    rep = readers.read(w, path, st)
    entry = readers.render(rep) if readers.render is not None else None
    rep.group = None  # the caller puts back the first checkpoint's (equal) group: its cached tables stay here
    return str(w.group), rep, ((w.Wa, w.Wb, w.Wc, w.group) if keep_weights else None), entry


def _results(paths: Sequence, first: Any, group: Any, st: Any, workers: int, keep_weights: bool,
             readers: "Readers") -> Iterator[tuple]:
    """``(group label, report, weights, JSON entry)`` per checkpoint, in order: here, or in ``workers`` processes."""
    if workers <= 1 or len(paths) <= 1:
        for i, p in enumerate(paths):
            w = first if i == 0 else readers.load(p, group)
            if w.group.as_product is None or (i and str(w.group) != str(first.group)):
                yield str(w.group), None, None, None  # the caller refuses before reading it
                return
            rep = readers.read(w, str(p), st)
            yield (str(w.group), rep, ((w.Wa, w.Wb, w.Wc, w.group) if keep_weights else None),
                   readers.render(rep) if readers.render is not None else None)
        return
    tasks = [(first if i == 0 else str(p), str(p), group, st, keep_weights, readers) for i, p in enumerate(paths)]
    with ProcessPoolExecutor(max_workers=min(workers, len(paths))) as pool:
        try:
            yield from pool.map(_read_path, tasks)
        finally:
            pool.shutdown(cancel_futures=True)


def read_many(paths: Sequence[str | os.PathLike], group: Any, st: Any, readers: Readers, progress: bool = False,
              on_loaded: Callable | None = None, workers: int = 1, keep_weights: bool = True) -> Any:
    """Read checkpoints one at a time (module docstring); the paths were checked by the caller.

    ``readers``: how one checkpoint is loaded and read (:class:`Readers`; its ``load`` carries the reading
    options, so worker processes read with them too).  ``on_loaded(loaded)``:
    called before any analysis with the checkpoints that decide the reading (every one for the
    irreps reading; the first for the block reading, whose group every other must share).
    ``keep_weights``: keep each network's ``(Wa, Wb, Wc, group)`` in the result (for
    :func:`cogo.analysis.classify.tolerance_curve`); False keeps memory at one network per process.

    Returns
    -------
    ClassifyResult or IrrepsResult
        As :func:`cogo.analysis.classify.classify_many`.
    """
    items = list(paths)          # paths, or checkpoints already read (cogo.io.checkpoint.Checkpoint): not read again
    paths = [str(p) for p in items]
    first = readers.load(items[0], group)
    if first.group.as_product is None:  # the irreps reading (SPEC 9) of every checkpoint, loaded first as before
        loaded = [first] + [readers.load(p, group) for p in items[1:]]
        seen: dict = {}
        for w, p in zip(loaded, paths):
            seen.setdefault(str(w.group), []).append(p)
        if len(seen) > 1:
            raise CogoError(_mixed_groups(seen))
        if on_loaded is not None:
            on_loaded(loaded)
        return readers.irreps(loaded, paths, st)
    if on_loaded is not None:
        on_loaded([first])
    label = str(first.group)
    bar = None
    if progress and len(paths) > 1:
        from tqdm.auto import tqdm  # late: tqdm

        # on a terminal only (disable=None): a file refused mid-sweep (its arrays are read when its turn comes)
        # ends with one error line, not a bar's carriage returns in a log
        bar = tqdm(total=len(paths), desc="classify", unit="checkpoint", dynamic_ncols=True, leave=False,
                   disable=None)
    reports, weights, entries = [], [], []
    try:
        for p, (g, rep, w, entry) in zip(paths, _results(items, first, group, st, workers, keep_weights, readers)):
            if g != label or rep is None:
                raise CogoError(_mixed_groups({label: paths[:1], g: [p]}))
            rep.group = first.group  # one group object (and its cached tables) for every report
            reports.append(rep)
            entries.append(entry)
            if w is not None:
                weights.append(w)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    result = readers.result(reports, st, weights)
    if readers.render is not None:
        result.json_entries = entries
    return result
