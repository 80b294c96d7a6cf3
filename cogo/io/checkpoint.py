"""One checkpoint, read once: :class:`Checkpoint` and :func:`read_checkpoint`.

Every command and the Python API read a checkpoint file through :func:`read_checkpoint`, exactly once:

1. the file is bounded (size, the uncompressed members of a zip: :func:`cogo.io.file_formats.check_file`);
2. the weight shapes ``(q, n)`` are read from the file's header alone -- the ``.npy`` headers of an
   ``.npz``, the JSON header of a ``.safetensors`` file, the pickle of a ``.pt`` file with every tensor
   replaced by its shape (no torch import, no tensor data) -- through the layouts of
   :mod:`cogo.io.layouts`, and the caller's memory estimate (``estimate(n, q)``, :mod:`cogo.runtime.limits`) is
   required before any array is read;
3. the arrays are read (one ``torch.load(weights_only=True)`` or one ``numpy.load``), checked and
   converted to float64 once.

The result carries everything a command needs (weights, group, layout, activation, stored dtype,
metadata, snapshots), so commands hand the object down instead of the path: ``cogo classify`` and
``cogo verify --checkpoint`` are two views of one reading.  :func:`cogo.io.weights.read_checkpoint` is
this function.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from cogo.algebra.activations import THEORY
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.group_parsing import as_group, names_group, parse_group
from cogo.io.arrays import weights_dtype
from cogo.io import file_formats as F
from cogo.io.file_formats import CheckpointError, WEIGHT_KEYS
from cogo.io.layouts import DEFAULT_OPTIONS, ReadOptions, read_state, unwrap_state
from cogo.runtime.errors import CogoError
from cogo.runtime.limits import require

__all__ = ["Checkpoint", "read_checkpoint", "header_shapes", "peek_shapes", "check_given_group"]


@dataclass
class Checkpoint:
    """A network read from a file: float64 weights of SPEC 1, the group, the file's metadata.

    ``Wa``, ``Wb`` (q, n) and ``Wc`` (n, q); ``dtype`` the coarsest floating dtype the file stored the
    weights in (``float64`` for integers; the numeric tolerances follow it); ``meta`` the file's metadata
    with its ``layout`` and ``activation``.  ``str(ckpt)`` and ``os.fspath(ckpt)`` are its path, so a
    checkpoint stands where a path is expected.

    >>> import os, tempfile
    >>> from cogo.io.weights import save_checkpoint
    >>> from cogo.solvers.constructions import z_F6
    >>> Wa, Wb, Wc = z_F6(5).to_weights(real=True)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     save_checkpoint(os.path.join(d, "f6.pt"), Wa, Wb, Wc, meta={"group": "5"})
    ...     w = read_checkpoint(os.path.join(d, "f6.pt"))
    >>> w.Wa.shape, w.Wc.shape, w.Wa.dtype, str(w.group), w.meta["group"], w.layout, w.activation
    ((12, 5), (5, 12), dtype('float64'), 'Z_5', '5', 'cogo', 'sqr')
    """

    Wa: np.ndarray
    Wb: np.ndarray
    Wc: np.ndarray
    group: FiniteAbelianGroup
    meta: dict = field(default_factory=dict)
    path: str = ""
    #: the coarsest floating dtype the file stored the weights in (``float64`` for integers)
    dtype: str = "float64"

    @property
    def hidden(self) -> int:
        return self.Wa.shape[0]

    @property
    def activation(self) -> str:
        """sigma of the network: ``--activation``, else the file's ``meta['activation']``, else ``'sqr'``."""
        return str(self.meta.get("activation", THEORY))

    @property
    def layout(self) -> str:
        """The name of the layout read, a record of :data:`cogo.io.layouts.LAYOUTS` (or ``keys+shared``)."""
        return str(self.meta.get("layout", "cogo"))

    @property
    def snapshots(self) -> Any:
        """The file's snapshot record (``meta['snapshots']``, see :mod:`cogo.io.snapshots`), or None."""
        return self.meta.get("snapshots")

    def __fspath__(self) -> str:
        return self.path

    def __str__(self) -> str:
        return self.path


def _regrouped(ck: Checkpoint, group: Any, options: ReadOptions) -> Checkpoint:
    """A checkpoint already read, under the group given (checked against its columns and its recorded group)."""
    if group is None:
        return ck
    G = as_group(group)
    if G == ck.group:
        return ck
    if G.order != ck.Wa.shape[1]:
        raise CheckpointError(f"{ck.path}: group {G} has order {G.order} but the weights have {ck.Wa.shape[1]} columns")
    check_given_group(G, ck.meta, ck.path, force_group=options.force_group)
    return Checkpoint(ck.Wa, ck.Wb, ck.Wc, G, ck.meta, ck.path, ck.dtype)


def _n_hint(meta: dict, group: Any) -> int | None:
    try:
        if group is not None:
            return as_group(group).order
        if isinstance(meta.get("n"), int):
            return int(meta["n"])
    except (ValueError, TypeError):
        return None
    return None


def _layout_shapes(state: Any, meta: dict, group: Any, options: ReadOptions) -> tuple[int, int] | None:
    """``(q, n)`` of a state dict of shapes (:class:`cogo.io.file_formats.ShapeOnly`) through the layouts, or None."""
    try:
        st, _ = unwrap_state(state, "")
        (Wa, Wb, Wc), _ = read_state(st, "", meta=meta, n_hint=_n_hint(meta, group), options=options)
        shapes = [tuple(x.shape) for x in (Wa, Wb, Wc)]
        F.check_shapes(*shapes, "")
    except Exception:  # noqa: BLE001 - not decidable from the header: the full read gives the one-line reason
        return None
    return int(shapes[0][0]), int(shapes[0][1])


def _header_meta(obj: Any) -> dict:
    m = obj.get("meta", {}) if isinstance(obj, dict) and ("model" in obj or "state_dict" in obj) else {}
    return m if isinstance(m, dict) else {}


def header_shapes(path: str | os.PathLike, group: Any = None,
                  options: ReadOptions = DEFAULT_OPTIONS) -> tuple[tuple[int, int], dict] | None:
    """``((q, n), meta)`` of a checkpoint from its header alone, or None where the header cannot tell.

    No array is read and torch is not imported: ``.npz`` (the ``.npy`` headers), ``.safetensors``
    (its JSON header), ``.pt`` (its pickle, tensors replaced by their shapes); every layout of
    :mod:`cogo.io.layouts`, with the reading ``options``.  ``meta``: what the header says of the
    file's metadata (its ``group``, for the orientation check), ``{}`` when it says nothing.
    """
    p, where = Path(path), str(path)
    if p.suffix == ".npz":
        members = F.npz_member_shapes(p, where)
        if {"Wa", "Wb", "Wc"} <= set(members) and not options.keys:
            got: list = []
            F.check_npz_headers(p, where, lambda q, n: got.append((q, n)))
            meta = {"group": True} if "group" in members else {}
            return got[0], meta
        state = {k: F.ShapeOnly(s) for k, s in members.items()}
        meta = {}
    elif p.suffix == ".safetensors":
        header = F.safetensors_header(p, where)
        state = {k: F.ShapeOnly(v.get("shape", ())) for k, v in header.items() if k != "__metadata__"}
        meta = {}
    else:
        obj = F.pt_state_without_torch(p)
        if obj is None:
            return None
        state, meta = obj, _header_meta(obj)
    shapes = _layout_shapes(state, meta, group, options)
    return None if shapes is None else (shapes, meta)


def _check_orientation(q: int, n: int, group_known: bool, where: str) -> None:
    """Refuse a file that may be stored transposed: fewer hidden nodes than columns and no group to decide."""
    if group_known or q >= n:
        return
    raise CheckpointError(
        f"{where}: W_a is ({q}, {n}): {q} hidden nodes on a group of order {n}, or a transposed file of {n} "
        f"hidden nodes on a group of order {q}; the file records no group to decide: pass --group {n} to read it "
        f"as stored, or --group {q} --keys Wa=Wa:T,Wb=Wb:T,Wc=Wc:T (keys as in the file) to transpose it")


def _group_known(meta: dict, group: Any) -> bool:
    return group is not None or meta.get("group") is not None


def read_checkpoint(path: "str | os.PathLike | Checkpoint", group: Any = None,
                    estimate: Callable[[int, int], Any] | None = None,
                    on_shapes: Callable[[int, int], None] | None = None,
                    options: ReadOptions = DEFAULT_OPTIONS) -> Checkpoint:
    """Read a checkpoint once (module docstring): ``.pt``, ``.npz`` or ``.safetensors``, every layout; a
    :class:`Checkpoint` already read is returned as is (under ``group`` when one is given, checked as a file's).

    ``group`` overrides the group recorded in the file (default: the file's ``meta['group']``, else
    ``Z_n`` with ``n`` the number of weight columns; a file with fewer hidden nodes than columns and no
    group is refused, since it may be stored transposed).  ``estimate(n, q)``: the caller's
    :class:`cogo.runtime.limits.Estimate` of its work on the network, required (:func:`cogo.runtime.limits.require`)
    from the header's shapes before any array is read (and again from the arrays' shapes when the
    header cannot tell).  ``on_shapes(q, n)``: called once the shapes are known, before the weights
    are converted.  ``options``: how to read a foreign file (:func:`cogo.io.layouts.read_options`: ``--keys``,
    ``--shared-embedding``, ``--activation``, ``--force-group``).  Finite weights so large that the network's squared output overflows float64 are
    refused (:func:`cogo.io.file_formats.max_weight_magnitude`).

    Raises
    ------
    CheckpointError
        One line, for a missing, unreadable, malformed, inconsistent, too large or non-finite file.
    cogo.runtime.errors.CogoError
        When ``estimate`` says the work cannot fit (:func:`cogo.runtime.limits.require`).

    Examples
    --------
    >>> import os, tempfile
    >>> from cogo.solvers.constructions import z_F6
    >>> Wa, Wb, Wc = z_F6(5).to_weights(real=True)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     np.savez(os.path.join(d, "f6.npz"), Wa=Wa, Wb=Wb, Wc=Wc)
    ...     w = read_checkpoint(os.path.join(d, "f6.npz"))     # no meta: the group is Z_n, n = the columns
    ...     np.savez(os.path.join(d, "t.npz"), Wa=Wa.T, Wb=Wb.T, Wc=Wc.T)
    ...     read_checkpoint(os.path.join(d, "t.npz"))          # 5 nodes on Z_12, or transposed?
    Traceback (most recent call last):
    ...
    cogo.io.file_formats.CheckpointError: .../t.npz: W_a is (5, 12): 5 hidden nodes on a group of order 12, or a transposed file of 12 hidden nodes on a group of order 5; ...
    >>> str(w.group), w.Wb.shape
    ('Z_5', (12, 5))
    """
    if isinstance(path, Checkpoint):
        return _regrouped(path, group, options)
    where = str(path)
    p = Path(path)
    F.check_file(p, where)

    def check(q: int, n: int) -> None:
        if estimate is not None:
            require(estimate(n, q))
        if on_shapes is not None:
            on_shapes(q, n)

    head = header_shapes(p, group, options)
    if head is not None:  # before any array is read
        (q, n), hmeta = head
        _check_orientation(q, n, _group_known(hmeta, group), where)
        check(q, n)
    raw, meta = F.read_raw(p, where, group, None, options)
    return _validated(raw, meta, where, group, options, None if head is not None else check)


def checkpoint_from_arrays(Wa: Any, Wb: Any, Wc: Any, meta: dict | None = None, where: str = "<in memory>",
                           group: Any = None, options: ReadOptions = DEFAULT_OPTIONS,
                           estimate: Callable[[int, int], Any] | None = None) -> Checkpoint:
    """A :class:`Checkpoint` of weights in memory, validated exactly as :func:`read_checkpoint` validates a file's.

    ``Wa``, ``Wb`` (q, n) and ``Wc`` (n, q): numpy arrays or torch tensors; ``meta``: what a file would record
    (its ``group``, ``activation``, ...); ``where``: how errors and reports name the network; ``estimate(n, q)``:
    the caller's estimate of its work, required before the arrays are converted.  No file is written.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F6
    >>> c = checkpoint_from_arrays(*z_F6(5).to_weights(real=True), meta={"group": "5"}, where="<z_F6>")
    >>> str(c.group), c.Wa.shape, c.path
    ('Z_5', (12, 5), '<z_F6>')
    >>> checkpoint_from_arrays(np.full((3, 2), np.nan), np.ones((3, 2)), np.ones((2, 3)), where="<bad>")
    Traceback (most recent call last):
    ...
    cogo.io.file_formats.CheckpointError: <bad>: layera.weight contains NaN or infinite values
    """
    return _validated([Wa, Wb, Wc], dict(meta or {}), where, group, options,
                      lambda q, n: require(estimate(n, q)) if estimate is not None else None)


def _validated(raw: list, meta: dict, where: str, group: Any, options: ReadOptions,
               check: Callable[[int, int], None] | None) -> Checkpoint:
    """The checks every reading ends with (types, shapes, orientation, finiteness, magnitude, group): the
    :class:`Checkpoint`.  ``check(q, n)``: the caller's size check, when the header did not already run it."""
    meta = F.record_activation(meta, where, options)
    shapes = [tuple(getattr(x, "shape", ())) for x in raw]
    for x, k in zip(raw, WEIGHT_KEYS):
        F.check_array_type(x, k, where)
    F.check_shapes(*shapes, where)
    if check is not None:
        _check_orientation(shapes[0][0], shapes[0][1], _group_known(meta, group), where)
        check(shapes[0][0], shapes[0][1])
    Wa, Wb, Wc = (F.to_float64(x, k, where) for x, k in zip(raw, WEIGHT_KEYS))
    F.check_magnitude(Wa, Wb, Wc, where)
    G = as_group(group) if group is not None else F.group_from_record(meta.get("group"), Wa.shape[1], where,
                                                                     meta.get("group_table"))
    if G.order != Wa.shape[1]:
        raise CheckpointError(f"{where}: group {G} has order {G.order} but the weights have {Wa.shape[1]} columns")
    if group is not None:
        check_given_group(G, meta, where, force_group=options.force_group)
    return Checkpoint(Wa, Wb, Wc, G, meta, where, weights_dtype(*raw))


def check_given_group(G: Any, meta: dict, where: str, force_group: bool = False) -> None:
    """Refuse a group given for a file (``--group``) that contradicts the group the file records.

    Two groups of one order that differ (``Z_15`` and ``Z_3 x Z_5``, ``Z_16`` and ``Z_4 x Z_4``) number the
    weight columns differently: reading a file with the other one misreads every column.  A file that records
    no group (or a record that cannot be read) takes the group given; ``force_group`` (``--force-group``,
    ``read_options(force_group=True)``) takes it whatever the file records.  (Orders that differ are refused before this.)

    Raises
    ------
    CheckpointError
        One line naming both groups, when they differ and the reading is not forced.

    Examples
    --------
    >>> check_given_group(parse_group("3x5"), {"group": "3x5"}, "f.npz")       # the same group: nothing to say
    >>> check_given_group(parse_group("3x5"), {}, "f.npz")                     # nothing recorded: the group given
    >>> check_given_group(parse_group(15), {"group": "3x5"}, "f.npz")
    Traceback (most recent call last):
    ...
    cogo.io.file_formats.CheckpointError: f.npz: the file records the group Z_3 x Z_5, not the Z_15 given (the same order, ...
    """
    recorded = meta.get("group")
    if recorded is None or force_group:
        return
    if meta.get("group_table") is None and names_group(recorded, G):
        return  # the group's own label or printed name, which parses back to the group itself: nothing to parse
    try:
        R = F.group_from_record(recorded, G.order, where, meta.get("group_table"))
    except (ValueError, CogoError):  # an unreadable record contradicts nothing: the group given decides
        return
    if R != G:
        raise CheckpointError(f"{where}: the file records the group {R}, not the {G} given (the same order, "
                              "another numbering of the weight columns): give the recorded group, or read it as "
                              "the one given with --force-group (read_options(force_group=True))")


def peek_shapes(path: str | os.PathLike, group: Any = None, options: ReadOptions = DEFAULT_OPTIONS) -> tuple[int, int]:
    """``(q, n)`` of a checkpoint's weights without reading the arrays where the header tells them.

    Bad files raise :class:`CheckpointError` (one line), as :func:`read_checkpoint` would; a layout whose
    header cannot tell the shapes is read (:func:`read_checkpoint`).
    """
    p, where = Path(path), str(path)
    F.check_file(p, where)
    head = header_shapes(p, group, options)
    if head is not None:
        return head[0]
    return tuple(read_checkpoint(path, group=group, options=options).Wa.shape)  # type: ignore[return-value]
