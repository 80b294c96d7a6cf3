"""The file formats of checkpoints: what is read from a .pt, .npz or .safetensors file, and every check on it.

The ground floor of reading (SPEC 1): files are untrusted input, so every size is bounded before
anything is read (the file, the uncompressed members of a zip, the declared ``.npy`` shapes, the
``.safetensors`` header), ``.pt`` files are read by the restricted reader of :mod:`cogo.io.ptzip` (no torch)
or, for what only torch reads (``bfloat16``, legacy files), ``torch.load(..., weights_only=True)``, and every array
is checked for shape, dtype and finiteness.  :mod:`cogo.io.checkpoint` puts these pieces together into one
:class:`~cogo.io.checkpoint.Checkpoint`; :mod:`cogo.io.weights` re-exports the public names.

References
----------
.. [1] facebookresearch/luckmatters, ssl/real-dataset/cogo/ (the paper's code).
"""
from __future__ import annotations

import io
import json
import math
import pickle
import struct
import sys
import zipfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
from numpy.lib import format as npf

from cogo.algebra.activations import ACTIVATIONS, THEORY, unknown_message
from cogo.algebra.finite_groups import FiniteGroup
from cogo.algebra.groups import FiniteAbelianGroup
from cogo.algebra.group_parsing import as_group
from cogo.io.arrays import as_array
from cogo.io.layouts import DEFAULT_OPTIONS, ReadOptions, read_state, unwrap_state
from cogo.io.ptzip import NeedsTorch, PtFileError, read_pt_arrays
from cogo.runtime.errors import CogoError
from cogo.runtime.limits import available_memory, fmt_bytes

__all__ = ["CheckpointError", "WEIGHT_KEYS", "MAX_CHECKPOINT_BYTES", "max_weight_magnitude", "check_file", "read_raw",
           "check_npz_headers", "check_array_type", "check_shapes", "to_float64", "check_magnitude", "record_activation",
           "group_from_record", "ShapeOnly", "pt_state_without_torch", "pt_shapes_without_torch"]


WEIGHT_KEYS = ("layera.weight", "layerb.weight", "layerc.weight")

#: Refuse files larger than this (bytes) before reading them; the bound applies to the
#: uncompressed size of the members of a zip (.pt, .npz) as well as to the file itself.
MAX_CHECKPOINT_BYTES = 2 * 1024**3

#: Reading needs at most this many times the uncompressed size (the stored arrays, their
#: float64 copies and the checks); it must fit in the available memory (cogo.runtime.limits).
_LOAD_FACTOR = 3


class CheckpointError(CogoError):
    """A checkpoint file is missing, malformed, inconsistent or hostile.

    >>> import os, tempfile
    >>> from cogo.io.weights import read_checkpoint
    >>> tmp = tempfile.TemporaryDirectory()
    >>> junk = os.path.join(tmp.name, "junk.pt")
    >>> with open(junk, "wb") as f:
    ...     _ = f.write(b"junk")
    >>> read_checkpoint(junk)
    Traceback (most recent call last):
    ...
    cogo.io.file_formats.CheckpointError: .../junk.pt: not a torch checkpoint (neither a torch zip archive nor a legacy torch file)
    >>> issubclass(CheckpointError, ValueError)          # one line, like every user error
    True
    >>> tmp.cleanup()
    """





def check_shapes(sa, sb, sc, where: str) -> None:
    """Refuse weights that are not ``(q, n), (q, n), (n, q)`` with ``n >= 2``, ``q >= 1`` (one line naming ``where``)."""
    if len(sa) != 2 or len(sb) != 2 or len(sc) != 2:
        raise CheckpointError(f"{where}: weights must be 2-D, got shapes {tuple(sa)}, {tuple(sb)}, {tuple(sc)}")
    q, n = sa
    if tuple(sb) != (q, n) or tuple(sc) != (n, q):
        raise CheckpointError(
            f"{where}: inconsistent shapes layera {tuple(sa)}, layerb {tuple(sb)}, layerc {tuple(sc)} "
            "(expected (q, n), (q, n), (n, q))"
        )
    if n < 2 or q < 1:
        raise CheckpointError(f"{where}: degenerate shapes (q={q}, n={n})")


def to_float64(x: Any, name: str, where: str) -> np.ndarray:
    """``x`` (a numpy array or a torch tensor) as float64, refused when not real numeric or not finite."""
    check_array_type(x, name, where)
    torch = sys.modules.get("torch")      # a tensor exists only if torch is imported; never import it here
    if torch is not None and isinstance(x, torch.Tensor):
        x = x.detach().cpu().to(torch.float64).numpy()
    x = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(x)):
        raise CheckpointError(f"{where}: {name} contains NaN or infinite values")
    return x


def check_array_type(x: Any, name: str, where: str) -> None:
    """Refuse anything but a real numeric numpy array or torch tensor (one line)."""
    torch = sys.modules.get("torch")      # a tensor exists only if torch is imported; never import it here
    if torch is not None and isinstance(x, torch.Tensor):
        if x.is_complex():
            raise CheckpointError(f"{where}: {name} is complex; real weights are expected")
        if not (x.dtype.is_floating_point or x.dtype in (torch.int8, torch.uint8, torch.int16, torch.int32,
                                                          torch.int64)):
            raise CheckpointError(f"{where}: {name} has unsupported dtype {x.dtype}")
        return
    if not isinstance(x, np.ndarray):
        raise CheckpointError(f"{where}: {name} is a {type(x).__name__}, not an array")
    if np.issubdtype(x.dtype, np.complexfloating):
        raise CheckpointError(f"{where}: {name} is complex; real weights are expected")
    if not (np.issubdtype(x.dtype, np.floating) or np.issubdtype(x.dtype, np.integer)):
        raise CheckpointError(f"{where}: {name} has unsupported dtype {x.dtype}")


def _uncompressed_limit() -> int:
    free = available_memory()
    return MAX_CHECKPOINT_BYTES if free is None else int(min(MAX_CHECKPOINT_BYTES, free // _LOAD_FACTOR))


def _check_uncompressed(p: Path, where: str, size: int) -> None:
    """Bound what reading ``p`` can allocate: the uncompressed zip members, or the file itself."""
    limit = _uncompressed_limit()
    total = size
    if zipfile.is_zipfile(p):
        try:
            with zipfile.ZipFile(p) as zf:
                infos = zf.infolist()
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise CheckpointError(f"{where}: corrupt zip archive ({type(exc).__name__})") from None
        total = sum(max(i.file_size, 0) for i in infos)
        if total > limit:
            raise CheckpointError(f"{where}: the archive's members uncompress to {fmt_bytes(total)}, above the limit "
                                  f"of {fmt_bytes(limit)} for reading a checkpoint (compressed: {fmt_bytes(size)})")
    elif size > limit:
        raise CheckpointError(f"{where}: file of {fmt_bytes(size)} exceeds the limit of {fmt_bytes(limit)} "
                              "for reading a checkpoint")


def check_npz_headers(p: Path, where: str, on_shapes: Callable[[int, int], None] | None) -> None:
    """Read only the .npy headers of Wa, Wb, Wc: dtype, 2-D consistent shapes, declared size within the member."""
    shapes = []
    try:
        with zipfile.ZipFile(p) as zf:
            names = {i.filename: i for i in zf.infolist()}
            missing = [k for k in ("Wa", "Wb", "Wc") if f"{k}.npy" not in names]
            if missing:
                raise CheckpointError(f"{where}: .npz lacks arrays {missing} (needs Wa, Wb, Wc)")
            for k in ("Wa", "Wb", "Wc"):
                info = names[f"{k}.npy"]
                with zf.open(info) as fh:
                    version = npf.read_magic(fh)
                    if version == (1, 0):
                        shape, _, dtype = npf.read_array_header_1_0(fh)
                    elif version == (2, 0):
                        shape, _, dtype = npf.read_array_header_2_0(fh)
                    else:
                        raise CheckpointError(f"{where}: {k} has unsupported .npy version {version}")
                if dtype.hasobject or dtype.kind not in "fiu":
                    raise CheckpointError(f"{where}: {k} has unsupported dtype {dtype}")
                if len(shape) != 2:
                    raise CheckpointError(f"{where}: {k} must be 2-D, got shape {tuple(shape)}")
                declared = int(np.prod(shape, dtype=object)) * dtype.itemsize
                if declared > info.file_size:
                    raise CheckpointError(f"{where}: {k} declares shape {tuple(shape)} ({declared} bytes) but its "
                                          f"member holds only {info.file_size} bytes")
                shapes.append(tuple(int(d) for d in shape))
    except CheckpointError:
        raise
    except (ValueError, OSError, zipfile.BadZipFile, EOFError, SyntaxError, TypeError) as exc:
        raise CheckpointError(f"{where}: not a readable .npz file ({type(exc).__name__})") from None
    check_shapes(*shapes, where)
    if on_shapes is not None:
        on_shapes(shapes[0][0], shapes[0][1])


def npz_member_shapes(p: Path, where: str) -> dict:
    """``{name: shape}`` of every ``.npy`` member of an ``.npz``, from the headers alone (no array is read)."""
    out = {}
    try:
        with zipfile.ZipFile(p) as zf:
            for info in zf.infolist():
                if not info.filename.endswith(".npy"):
                    continue
                with zf.open(info) as fh:
                    version = npf.read_magic(fh)
                    read = npf.read_array_header_1_0 if version == (1, 0) else npf.read_array_header_2_0
                    shape, _, _ = read(fh)
                out[info.filename[:-4]] = tuple(int(d) for d in shape)
    except (ValueError, OSError, zipfile.BadZipFile, EOFError, SyntaxError, TypeError) as exc:
        raise CheckpointError(f"{where}: not a readable .npz file ({type(exc).__name__})") from None
    return out


# ---------------------------------------------------------------- layouts (cogo.io.layouts)
def _unwrap(obj: Any, where: str) -> tuple[dict, str | None]:
    try:
        return unwrap_state(obj, where)
    except CogoError as exc:
        raise CheckpointError(str(exc)) from None


def _read_layout(state: dict, where: str, meta: dict, group: Any,
                 options: ReadOptions = DEFAULT_OPTIONS) -> tuple[list, str]:
    """The three raw matrices and the layout's name, through the registry of :mod:`cogo.io.layouts`."""
    n_hint = None
    try:
        if group is not None:
            n_hint = as_group(group).order
        elif isinstance(meta.get("n"), int):
            n_hint = int(meta["n"])
    except (ValueError, TypeError):
        n_hint = None
    try:
        raw, layout = read_state(state, where, meta=meta, n_hint=n_hint, options=options)
    except CogoError as exc:
        raise CheckpointError(str(exc)) from None
    for x, k in zip(raw, WEIGHT_KEYS):
        check_array_type(x, k, where)
    return raw, layout


def record_activation(meta: dict, where: str, options: ReadOptions = DEFAULT_OPTIONS) -> dict:
    """``meta['activation']``: ``--activation`` (``options.activation``) over the file's, default sqr."""
    act = options.activation or meta.get("activation", THEORY)
    if not isinstance(act, str) or act not in ACTIVATIONS:
        raise CheckpointError(f"{where}: {unknown_message(act)} (the file's metadata)")
    return {**meta, "activation": act}


def safetensors_header(p: Path, where: str) -> dict:
    """The checked JSON header of a .safetensors file (names -> dtype, shape, data offsets); no tensor is read."""
    size = p.stat().st_size
    try:
        with open(p, "rb") as fh:
            head = fh.read(8)
            if len(head) != 8:
                raise CheckpointError(f"{where}: not a safetensors file (truncated header)")
            (hlen,) = struct.unpack("<Q", head)
            if hlen > min(size - 8, 100_000_000):
                raise CheckpointError(f"{where}: not a safetensors file (header of {hlen} bytes)")
            header = json.loads(fh.read(hlen))
    except CheckpointError:
        raise
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{where}: not a safetensors file ({type(exc).__name__})") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{where}: not a safetensors file (header is not a JSON object)")
    for k, info in header.items():
        if k == "__metadata__":
            continue
        if not isinstance(info, dict) or not isinstance(info.get("data_offsets"), list):
            raise CheckpointError(f"{where}: not a safetensors file (bad entry {k!r})")
        a, b = info["data_offsets"]
        if not (isinstance(a, int) and isinstance(b, int) and 0 <= a <= b <= size - 8 - hlen):
            raise CheckpointError(f"{where}: {k} declares data beyond the end of the file")
        if str(info.get("dtype")) not in ("F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U8"):
            raise CheckpointError(f"{where}: {k} has unsupported dtype {info.get('dtype')}")
    return header


def _read_safetensors(p: Path, where: str) -> dict:
    """All tensors of a .safetensors file as numpy arrays; the JSON header is checked first."""
    safetensors_header(p, where)
    try:
        from safetensors.numpy import load_file  # late: safetensors (start-up)

        return dict(load_file(str(p)))
    except Exception as exc:  # a malformed file: one line
        if "bfloat16" in str(exc).lower() or "BF16" in str(exc):
            from safetensors.torch import load_file as load_torch  # late: safetensors, torch

            return dict(load_torch(str(p)))
        raise CheckpointError(f"{where}: not a readable safetensors file ({type(exc).__name__})") from None


def _npz_has_own_keys(p: Path, where: str) -> bool:
    """True when an .npz lacks cogo's Wa, Wb, Wc (it is then read through the layouts of cogo.io.layouts)."""
    try:
        with zipfile.ZipFile(p) as zf:
            names = {i.filename for i in zf.infolist()}
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise CheckpointError(f"{where}: not a readable .npz file (not a zip archive)") from None
    return not {"Wa.npy", "Wb.npy", "Wc.npy"} <= names and any(n.endswith(".npy") for n in names)


def _read_npz_state(p: Path, where: str) -> dict:
    try:
        with np.load(p, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError, MemoryError) as exc:
        raise CheckpointError(f"{where}: not a readable .npz file ({type(exc).__name__}: {exc})") from None


def max_weight_magnitude(q: int, n: int) -> float:
    """The largest ``max |W|`` for which float64 arithmetic on the network stays finite.

    An output is ``o_c = sum_j (a_j[x] + b_j[y])^2 c_j`` with at most ``q``
    nodes, so ``|o| <= 4 q M^3``; the analysis and the loss square such
    sums over ``n^2`` pairs, which stays finite while
    ``(4 q n M^3)^2 < finfo(float64).max``.

    Examples
    --------
    >>> max_weight_magnitude(512, 23) > 1e49               # no trained network comes near it
    True
    >>> round(max_weight_magnitude(1, 1) / max_weight_magnitude(8, 1), 6)   # 8 times the nodes: half the bound
    2.0
    """
    return float((math.sqrt(np.finfo(np.float64).max) / (4.0 * max(q, 1) * max(n, 1))) ** (1.0 / 3.0))


def check_magnitude(Wa: np.ndarray, Wb: np.ndarray, Wc: np.ndarray, where: str) -> None:
    """Refuse weights so large that float64 arithmetic on this network overflows (:func:`max_weight_magnitude`)."""
    q, n = Wa.shape
    m = max(float(np.max(np.abs(W), initial=0.0)) for W in (Wa, Wb, Wc))
    bound = max_weight_magnitude(q, n)
    if m > bound:
        raise CheckpointError(f"{where}: weights as large as {m:.3g} overflow float64 arithmetic on this network "
                              f"(largest usable magnitude for q={q}, n={n}: {bound:.3g})")



class ShapeOnly:
    """What the restricted unpickler of :func:`pt_shapes_without_torch` makes of a tensor: its shape."""

    def __init__(self, shape: tuple):
        self.shape = tuple(int(x) for x in shape)

    def t(self) -> "ShapeOnly":
        """The transposed shape (what the layouts of cogo.io.layouts ask of a tensor)."""
        return ShapeOnly(self.shape[::-1])

    @property
    def T(self) -> "ShapeOnly":  # noqa: N802 - numpy's name
        return self.t()

    def __getitem__(self, index: Any) -> "ShapeOnly":
        # the shape of a slice, from a zero-stride view of one element (nothing of this size is allocated)
        return ShapeOnly(np.broadcast_to(np.zeros((), dtype=bool), self.shape)[index].shape)


def pt_state_without_torch(p: Path) -> Any:
    """The unpickled top object of a ``.pt`` file with every tensor replaced by its shape, or None (no torch).

    A ``.pt`` file is a zip holding ``data.pkl``; its tensors are rebuilt by
    ``torch._utils._rebuild_tensor_v2(storage, offset, size, ...)``.  A restricted unpickler
    allows exactly that, the storage classes and ``collections.OrderedDict``, and keeps only
    each tensor's ``size`` (a :class:`ShapeOnly`); anything else (another class) returns None and the
    caller falls back to ``torch.load(weights_only=True)``.  Safe on hostile input: no other
    global can be loaded, nothing is executed, no tensor data is read.
    """
    class _Restricted(pickle.Unpickler):
        def find_class(self, module: str, name: str):
            if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
                return lambda storage, offset, size, *rest: ShapeOnly(size)
            if module == "torch" and name.endswith("Storage"):
                return object
            if (module, name) == ("collections", "OrderedDict"):
                return dict
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed")

        def persistent_load(self, pid):
            return None

    try:
        with zipfile.ZipFile(p) as z:
            names = [n for n in z.namelist() if n.endswith("/data.pkl")]
            if len(names) != 1 or z.getinfo(names[0]).file_size > 64 * 2**20:
                return None
            return _Restricted(io.BytesIO(z.read(names[0]))).load()
    except Exception:  # noqa: BLE001 - not this simple layout: torch.load decides
        return None


def pt_shapes_without_torch(p: Path) -> list | None:
    """The three weight shapes of a cogo ``.pt`` file from its pickle alone (:func:`pt_state_without_torch`), or None."""
    obj = pt_state_without_torch(p)
    state = obj.get("model", obj) if isinstance(obj, dict) else None
    if not isinstance(state, dict) or not all(isinstance(state.get(k), ShapeOnly) for k in WEIGHT_KEYS):
        return None
    return [state[k].shape for k in WEIGHT_KEYS]


def group_from_record(meta_group: Any, n: int, where: str, table: Any = None) -> FiniteAbelianGroup:
    """The group a file records (``meta['group']``, with its Cayley table when it has one), checked against ``n`` columns;
    ``Z_n`` when nothing is recorded.  A table is never read from a file named by the metadata."""
    if meta_group is None:
        return as_group(n)
    try:
        if table is not None:  # a non-Abelian group: its Cayley table travels with it (SPEC 9)
            t = as_array(table)
            try:  # never read a file named by untrusted metadata
                named = None if str(meta_group).lower().endswith(".json") else as_group(str(meta_group))
            except ValueError:
                named = None
            G = FiniteGroup.from_table(t, str(meta_group), register=named is None)
            if named is not None:
                if named != G:
                    raise CogoError(f"the stored Cayley table is not the table of {meta_group}")
                G = named
        else:
            G = as_group(meta_group if not isinstance(meta_group, (list, tuple)) else tuple(meta_group))
    except (ValueError, TypeError) as exc:
        raise CheckpointError(f"{where}: bad group in metadata: {exc}") from None
    if G.order != n:
        raise CheckpointError(f"{where}: metadata group {G} has order {G.order} but the weights have {n} columns")
    return G


def check_file(p: Path, where: str) -> None:
    """Refuse a directory, a missing, empty or too large file, and a zip whose members are too large."""
    if p.is_dir():
        raise CheckpointError(f"{where}: is a directory, not a checkpoint file (give the .pt or .npz files in it)")
    if not p.is_file():
        raise CheckpointError(f"{where}: no such file")
    size = p.stat().st_size
    if size == 0:
        raise CheckpointError(f"{where}: empty file")
    if size > MAX_CHECKPOINT_BYTES:
        raise CheckpointError(f"{where}: file of {size} bytes exceeds the {MAX_CHECKPOINT_BYTES}-byte limit")
    _check_uncompressed(p, where, size)


def _read_npz_weights(p: Path, where: str, on_shapes: Callable[[int, int], None] | None) -> tuple[list, dict]:
    """The raw ``Wa, Wb, Wc`` of an ``.npz`` holding exactly those arrays (headers checked first), and its meta."""
    meta: dict = {"layout": "npz"}
    check_npz_headers(p, where, on_shapes)
    try:
        with np.load(p, allow_pickle=False) as data:
            missing = [k for k in ("Wa", "Wb", "Wc") if k not in data.files]
            if missing:
                raise CheckpointError(f"{where}: .npz lacks arrays {missing} (needs Wa, Wb, Wc)")
            raw = [data[k] for k in ("Wa", "Wb", "Wc")]
            if "group" in data.files:
                meta["group"] = str(data["group"])
    except CheckpointError:
        raise
    except (ValueError, OSError, zipfile.BadZipFile, EOFError, MemoryError) as exc:
        raise CheckpointError(f"{where}: not a readable .npz file ({type(exc).__name__}: {exc})") from None
    return raw, meta


def _torch_load(p: Path, where: str) -> Any:
    """``torch.load(weights_only=True)`` of the file, every failure turned into a one-line CheckpointError."""
    import torch  # late: torch

    try:
        return torch.load(p, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        with open(p, "rb") as fh:
            head = fh.read(4)
        if (head.startswith(b"PK") or b"PK\x03\x04".startswith(head)) and not zipfile.is_zipfile(p):
            # the start of a zip archive (a torch checkpoint), cut short
            raise CheckpointError(f"{where}: truncated or corrupt checkpoint (not a readable torch zip archive)") \
                from None
        if "weights only" in str(exc).lower():
            raise CheckpointError(
                f"{where}: refused: the file holds objects other than tensors and plain containers, "
                "which cogo never unpickles (checkpoints are untrusted input)") from None
        raise CheckpointError(f"{where}: not a torch checkpoint (unreadable pickle data)") from None
    except (RuntimeError, EOFError, OSError, ValueError, AttributeError, TypeError, KeyError, IndexError,
            zipfile.BadZipFile, UnicodeDecodeError, struct.error, MemoryError, OverflowError) as exc:
        text = str(exc)
        if any(t in text for t in ("central directory", "PytorchStreamReader", "zip archive")):
            raise CheckpointError(f"{where}: truncated or corrupt checkpoint (not a readable torch zip archive)") \
                from None
        if not zipfile.is_zipfile(p):
            raise CheckpointError(f"{where}: not a torch checkpoint (neither a torch zip archive nor a "
                                  "legacy torch file)") from None
        msg = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
        raise CheckpointError(f"{where}: not a loadable weights-only checkpoint ({msg[:160]})") from None


def _pt_load(p: Path, where: str) -> Any:
    """The object of a ``.pt`` file: without torch where :mod:`cogo.io.ptzip` can read it, else ``torch.load``."""
    try:
        return read_pt_arrays(p, where)
    except PtFileError as exc:
        raise CheckpointError(str(exc)) from None
    except NeedsTorch:
        return _torch_load(p, where)


def read_raw(p: Path, where: str, group: Any, on_shapes: Callable[[int, int], None] | None,
              options: ReadOptions = DEFAULT_OPTIONS) -> tuple[list, dict]:
    """The three raw matrices and the file's meta (its ``layout`` recorded), by the file's suffix."""
    meta: dict = {}
    if p.suffix == ".safetensors":
        state = _read_safetensors(p, where)
        raw, layout = _read_layout(state, where, meta, group, options)
    elif p.suffix == ".npz":
        if _npz_has_own_keys(p, where) or options.keys:  # other keys, or --keys: the layouts of cogo.io.layouts
            raw, layout = _read_layout(_read_npz_state(p, where), where, meta, group, options)
            meta = {"layout": layout}
        else:
            raw, meta = _read_npz_weights(p, where, on_shapes)
    else:
        obj = _pt_load(p, where)
        state, wrapper = _unwrap(obj, where)
        m = obj.get("meta", {}) if wrapper is not None else {}
        meta = m if isinstance(m, dict) else {}
        raw, layout = _read_layout(state, where, meta, group, options)
    if p.suffix != ".npz":
        meta = {**meta, "layout": layout}
    return raw, meta


