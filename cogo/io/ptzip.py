"""The tensors of a ``.pt`` file read without torch: a restricted unpickler over the zip, storages as numpy arrays.

A ``torch.save`` file (the zip format, torch >= 1.6) is a zip archive holding ``<name>/data.pkl`` (a
pickle) and one member ``<name>/data/<key>`` per storage (raw little-endian bytes).  In the pickle a
tensor is ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)`` and a
storage is a persistent id ``('storage', torch.<Type>Storage, key, location, numel)``.  Importing torch
costs seconds; reading three matrices this way costs milliseconds, so ``cogo classify F.pt`` and
``cogo verify --checkpoint F.pt`` never import torch for a plain checkpoint.  The mirror,
:func:`write_pt_bytes`, writes numpy arrays in a plain tree the way ``torch.save`` does (importing torch
costs about 290 MB of memory, the writer nothing), for the files ``cogo verify`` writes for its controls.

What is unpickled is decided by name, before anything is built, as strictly as
``torch.load(weights_only=True)`` or more (:func:`read_pt_arrays`):

* allowed here: ``torch._utils._rebuild_tensor_v2`` (a dense CPU tensor without backward hooks),
  the storage types of the numpy dtypes in :data:`STORAGE_DTYPES`, ``collections.OrderedDict``;
  the tree of the result may hold only dicts, lists, tuples, strings, numbers, booleans, None and arrays;
* left to torch (:class:`NeedsTorch`: the caller falls back to ``torch.load(weights_only=True)``, which
  applies its own allow-list): every other ``torch.*`` global (``bfloat16`` storages, parameters, sizes,
  devices, quantized or sparse tensors), the few builtins torch's weights-only unpickler allows (``set``,
  ``complex``, ``bytearray``, ``collections.Counter``, ``_codecs.encode``), a tensor with more elements than
  its storage (an expanded view, which a copy could blow up) or views copying more than twice the storages read,
  a big-endian archive, a legacy (non-zip) file;
* refused (:class:`PtFileError`, one line; a :class:`~cogo.io.file_formats.CheckpointError` to the caller): any
  other global (``os.system``, ``builtins.open``, ...), which torch's weights-only unpickler refuses too; a
  storage whose bytes do not match its declared size; a tensor whose offset, size and strides reach outside
  its storage; a truncated archive.

Nothing named by the file is ever called: the unpickler's ``find_class`` returns only the functions of
this module, and the tensors are placeholders (:class:`_Tensor`) that refuse pickle's ``BUILD`` until
the tree is checked and they are replaced by copies of the storage's bytes.

The format and the allow-list this reader is a subset of are PyTorch's ``torch/serialization.py`` and
``torch/_weights_only_unpickler.py``.
"""
from __future__ import annotations

import collections
import functools
import io
import math
import pickle
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["read_pt_arrays", "write_pt_bytes", "NeedsTorch", "PtFileError", "STORAGE_DTYPES", "REFUSED"]

#: The storage types read here and their numpy dtypes (little-endian); any other one is left to torch.
STORAGE_DTYPES = {
    "DoubleStorage": "<f8", "FloatStorage": "<f4", "HalfStorage": "<f2",
    "LongStorage": "<i8", "IntStorage": "<i4", "ShortStorage": "<i2", "CharStorage": "i1", "ByteStorage": "u1",
    "BoolStorage": "?", "ComplexDoubleStorage": "<c16", "ComplexFloatStorage": "<c8",
}

#: Globals outside torch that torch's weights-only unpickler allows: not read here, left to torch.
_TORCH_ALLOWS = {("collections", "Counter"), ("_codecs", "encode"), ("builtins", "bytearray"),
                 ("builtins", "set"), ("builtins", "complex")}

#: The one line for a file naming a global that no weights-only reader unpickles.
REFUSED = ("refused: the file holds objects other than tensors and plain containers, "
           "which cogo never unpickles (checkpoints are untrusted input)")

_KEY = re.compile(r"^[0-9A-Za-z_]{1,64}$")
_MAX_PICKLE = 64 * 2**20


class NeedsTorch(Exception):
    """The file is (perhaps) a valid checkpoint that only ``torch.load(weights_only=True)`` can read."""


class PtFileError(ValueError):
    """A refused or corrupt ``.pt`` file: the one-line message (the caller raises it as a CheckpointError)."""


class _Refused(Exception):
    """A global no weights-only reader allows: the file is refused."""


class _StorageType:
    """What ``find_class`` makes of ``torch.<Type>Storage``: a name and a dtype, nothing callable."""

    __slots__ = ("name", "dtype")

    def __init__(self, name: str):
        self.name, self.dtype = name, np.dtype(STORAGE_DTYPES[name])


class _Storage:
    """One storage of the archive: its dtype and its elements (a read-only 1-D numpy array)."""

    __slots__ = ("data",)

    def __init__(self, data: np.ndarray):
        self.data = data


class _Tensor:
    """A placeholder for a tensor until the whole tree is unpickled and checked (refuses ``BUILD``)."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray):
        self.array = array

    def __setstate__(self, state: Any) -> None:
        raise NeedsTorch("a tensor with state")


def _int_tuple(x: Any) -> tuple[int, ...]:
    if not isinstance(x, tuple) or not all(type(v) is int and v >= 0 for v in x):
        raise NeedsTorch("size or stride is not a tuple of non-negative integers")
    return x


def _rebuild_tensor_v2(storage: Any, offset: Any, size: Any, stride: Any, requires_grad: Any = False,
                       hooks: Any = None, metadata: Any = None, *, budget: dict) -> _Tensor:
    """``torch._utils._rebuild_tensor_v2`` for a dense tensor: a strided view of the storage, copied, bounds checked.

    ``budget['left']``: the elements still allowed to be copied (twice the storages read so far, in all): views
    that overlap more than that are left to torch rather than copied many times over."""
    if not isinstance(storage, _Storage) or type(offset) is not int or offset < 0:
        raise NeedsTorch("not a plain storage")
    size, stride = _int_tuple(size), _int_tuple(stride)
    if len(size) != len(stride) or type(requires_grad) is not bool or hooks or metadata:
        raise NeedsTorch("hooks, metadata or mismatched strides")
    data = storage.data
    if math.prod(size) > min(data.size, budget["left"]):  # an expanded (stride 0) or much overlapping view:
        raise NeedsTorch("a tensor with more elements than its storage")  # copies could exhaust memory
    budget["left"] -= math.prod(size)
    if 0 not in size:
        last = offset + sum((s - 1) * st for s, st in zip(size, stride))
        if last >= data.size:
            raise _Refused(f"a tensor of size {size} and strides {stride} at offset {offset} reaches beyond its "
                           f"storage of {data.size} elements")
        view = np.lib.stride_tricks.as_strided(data[offset:], shape=size,
                                               strides=tuple(st * data.itemsize for st in stride), writeable=False)
    else:
        view = np.zeros(size, dtype=data.dtype)
    return _Tensor(np.array(view, dtype=data.dtype.newbyteorder("=")))


def _checked(obj: Any, depth: int = 0) -> Any:
    """The unpickled tree with every placeholder replaced by its array; only plain containers and values."""
    if depth > 100:
        raise _Refused("a structure nested over 100 levels deep")
    if isinstance(obj, _Tensor):
        return obj.array
    if type(obj) is dict:
        return {_checked(k, depth + 1): _checked(v, depth + 1) for k, v in obj.items()}
    if type(obj) is list:
        return [_checked(v, depth + 1) for v in obj]
    if type(obj) is tuple:
        return tuple(_checked(v, depth + 1) for v in obj)
    if obj is None or type(obj) in (str, int, float, bool, bytes):
        return obj
    raise _Refused(f"an object of type {type(obj).__name__}")


def _archive(z: zipfile.ZipFile) -> str:
    """The prefix of the archive's records (``<name>/``): the one directory holding ``data.pkl``."""
    names = [n for n in z.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
    if len(names) != 1:
        raise NeedsTorch("not one data.pkl")
    return names[0][: -len("data.pkl")]


def read_pt_arrays(p: Path, where: str) -> Any:
    """The object of a zip ``.pt`` file, its tensors as numpy arrays, without torch (module docstring).

    Raises
    ------
    NeedsTorch
        When only torch can read the file (``torch.load(weights_only=True)`` then decides).
    PtFileError
        One line, for a hostile file (a global that no weights-only reader allows, a tensor outside its
        storage, a storage of the wrong size) or a truncated archive.

    Examples
    --------
    >>> import pickle, tempfile, zipfile, os
    >>> d = tempfile.mkdtemp(); path = os.path.join(d, "evil.pt")
    >>> with zipfile.ZipFile(path, "w") as z:
    ...     z.writestr("evil/data.pkl", b"cos\\nsystem\\n(S'echo hi'\\ntR.")
    >>> read_pt_arrays(Path(path), path)
    Traceback (most recent call last):
    ...
    cogo.io.ptzip.PtFileError: .../evil.pt: refused: the file holds objects other than tensors ... (os.system)
    """
    try:
        with open(p, "rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise PtFileError(f"{where}: unreadable file ({type(exc).__name__})") from None
    if not zipfile.is_zipfile(p):
        if head.startswith(b"PK") or (head and b"PK\x03\x04".startswith(head)):
            raise PtFileError(f"{where}: truncated or corrupt checkpoint (not a readable torch zip archive)")
        raise NeedsTorch("not a zip archive (a legacy torch file?)")
    try:
        with zipfile.ZipFile(p) as z:
            prefix = _archive(z)
            if prefix + "byteorder" in z.namelist() and z.read(prefix + "byteorder").strip() != b"little":
                raise NeedsTorch("a big-endian archive")
            if z.getinfo(prefix + "data.pkl").file_size > _MAX_PICKLE:
                raise NeedsTorch("a pickle over 64 MiB")
            return _checked(_unpickle(z, prefix, z.read(prefix + "data.pkl")))
    except NeedsTorch:
        raise
    except _Refused as exc:
        raise PtFileError(f"{where}: {REFUSED} ({exc})") from None
    except PtFileError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, KeyError, zipfile.LargeZipFile) as exc:
        raise PtFileError(f"{where}: truncated or corrupt checkpoint (not a readable torch zip archive: "
                              f"{type(exc).__name__})") from None
    except Exception as exc:  # noqa: BLE001 - a malformed pickle: torch's reader gives its verdict
        raise NeedsTorch(f"{type(exc).__name__}") from None


def _unpickle(z: zipfile.ZipFile, prefix: str, data: bytes) -> Any:
    storages: dict[str, _Storage] = {}
    budget = {"left": 0}
    rebuild = functools.partial(_rebuild_tensor_v2, budget=budget)

    class _Restricted(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
                return rebuild
            if (module, name) == ("collections", "OrderedDict"):
                return dict
            if module == "torch" and name in STORAGE_DTYPES:
                return _StorageType(name)
            if module == "torch" or module.startswith("torch.") or (module, name) in _TORCH_ALLOWS:
                raise NeedsTorch(f"{module}.{name}")
            raise _Refused(f"{module}.{name}")

        def persistent_load(self, pid: Any) -> _Storage:
            if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"
                    and isinstance(pid[1], _StorageType) and isinstance(pid[2], str) and _KEY.match(pid[2])
                    and isinstance(pid[3], str) and type(pid[4]) is int and pid[4] >= 0):
                raise NeedsTorch("not a plain storage id")
            stype, key, numel = pid[1], pid[2], pid[4]
            if key not in storages:
                raw = z.read(f"{prefix}data/{key}")
                if len(raw) != numel * stype.dtype.itemsize:
                    raise _Refused(f"storage {key} holds {len(raw)} bytes, not the {numel} x "
                                   f"{stype.dtype.itemsize} it declares")
                storages[key] = _Storage(np.frombuffer(raw, dtype=stype.dtype))
                budget["left"] += 2 * numel  # tied weights (one storage, two names) are read here; more is torch's
            if storages[key].data.dtype != stype.dtype:
                raise NeedsTorch("one storage read with two dtypes")
            return storages[key]

    return _Restricted(io.BytesIO(data)).load()


class _Global:
    """A global the pickle names (``torch._utils._rebuild_tensor_v2``, ``torch.DoubleStorage``) without importing it."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args: Any) -> None:  # pickle's save_reduce wants a callable; never called
        raise TypeError("a placeholder")


_REBUILD = _Global("torch._utils", "_rebuild_tensor_v2")
_STORAGE_OF = {np.dtype(v): k for k, v in STORAGE_DTYPES.items()}


class _StorageOut:
    __slots__ = ("key", "array")

    def __init__(self, key: str, array: np.ndarray):
        self.key, self.array = key, array


class _Writer(pickle._Pickler):  # the pure-Python pickler: its dispatch table can name _Global
    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, fh: Any):
        super().__init__(fh, protocol=2)
        self.storages: list[_StorageOut] = []

    def _save_global(self, obj: _Global) -> None:
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("ascii"))
        self.memoize(obj)

    dispatch[_Global] = _save_global

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, _StorageOut):
            return ("storage", _Global("torch", _STORAGE_OF[obj.array.dtype]), obj.key, "cpu", obj.array.size)
        return None

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, np.ndarray):
            a = np.array(obj, dtype=obj.dtype.newbyteorder("<"), order="C")  # keeps a 0-d array 0-d
            if a.dtype not in _STORAGE_OF:
                raise TypeError(f"no storage type for dtype {obj.dtype}")
            st = _StorageOut(str(len(self.storages)), a)
            self.storages.append(st)
            stride = tuple(s // a.itemsize for s in a.strides) if a.size else (0,) * a.ndim
            return _REBUILD, (st, 0, tuple(a.shape), stride, False, collections.OrderedDict())
        return NotImplemented


def _plain(obj: Any, depth: int = 0) -> None:
    if depth > 100:
        raise TypeError("a structure nested over 100 levels deep")
    if isinstance(obj, dict):
        for k, v in obj.items():
            _plain(k, depth + 1), _plain(v, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _plain(v, depth + 1)
    elif not (obj is None or type(obj) in (str, int, float, bool) or isinstance(obj, np.ndarray)):
        raise TypeError(f"an object of type {type(obj).__name__}")


def write_pt_bytes(obj: Any, name: str = "archive") -> bytes:
    """The bytes ``torch.save(obj)`` writes, for a tree of dicts, lists, tuples, plain values and numpy arrays.

    Each array becomes a tensor of its dtype (one storage each; a dtype outside :data:`STORAGE_DTYPES` is refused
    with TypeError, as is any other object): ``torch.load(..., weights_only=True)`` and :func:`read_pt_arrays`
    read the file back, equal to the array.  Unlike torch's, the zip members are not aligned to 64 bytes (torch
    reads them all the same; only its ``mmap=True`` would copy).

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp(); path = Path(d, "w.pt")
    >>> _ = path.write_bytes(write_pt_bytes({"model": {"w": np.eye(2)}, "meta": {"group": "3"}}))
    >>> out = read_pt_arrays(path, str(path))
    >>> out["model"]["w"].tolist(), out["meta"]
    ([[1.0, 0.0], [0.0, 1.0]], {'group': '3'})
    """
    _plain(obj)
    pkl = io.BytesIO()
    w = _Writer(pkl)
    w.dump(obj)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr(f"{name}/data.pkl", pkl.getvalue())
        z.writestr(f"{name}/byteorder", "little")
        for st in w.storages:
            z.writestr(f"{name}/data/{st.key}", st.array.tobytes())
        z.writestr(f"{name}/version", "3\n")
    return out.getvalue()
