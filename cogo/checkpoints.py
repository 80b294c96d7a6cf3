"""Reading and writing network checkpoints (the reference layout, SPEC 1).

A checkpoint is a ``torch.save`` file holding a dict::

    {"model": {"layera.weight": (q, n_G), "layerb.weight": (q, n_G),
               "layerc.weight": (n_G, q)},
     "meta": {"group": "23", ...}}

Bare state dicts (the three keys at top level) and ``.npz`` files with arrays
``Wa``, ``Wb``, ``Wc`` (and optionally a string ``group``) are read too.

Checkpoints are untrusted input: they are loaded with
``torch.load(..., weights_only=True)`` and every array is checked for shape,
dtype and finiteness before use.  Every writer in cogo goes through
:func:`atomic_write` so that an error never leaves a partial output file.
"""
from __future__ import annotations

import contextlib
import io
import os
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from cogo.algebra.groups import FiniteAbelianGroup, parse_group
from cogo.errors import CogoError

__all__ = [
    "CheckpointError",
    "LoadedWeights",
    "atomic_write",
    "atomic_write_text",
    "save_checkpoint",
    "load_weights",
    "WEIGHT_KEYS",
]

WEIGHT_KEYS = ("layera.weight", "layerb.weight", "layerc.weight")

#: Refuse files larger than this (bytes) before reading them.
MAX_CHECKPOINT_BYTES = 2 * 1024**3


class CheckpointError(CogoError):
    """A checkpoint file is missing, malformed, inconsistent or hostile."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb") -> Iterator[Any]:
    """Open a temporary file beside ``path``; rename it onto ``path`` only on success.

    If the body raises, the temporary file is removed and ``path`` is untouched.
    """
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"cannot write {path}: directory {parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, mode) as fh:
            yield fh
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual mode
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8)."""
    with atomic_write(path, "w") as fh:
        fh.write(text)


def save_checkpoint(path: str | os.PathLike, Wa, Wb, Wc, meta: dict | None = None) -> None:
    """Save real weights in the reference layout, atomically.

    ``Wa``, ``Wb``: (q, n_G); ``Wc``: (n_G, q); numpy arrays or torch tensors.
    ``meta`` must hold only plain Python values (str, int, float, bool, None,
    lists, dicts, and tensors) so that ``weights_only=True`` can read it back.
    """
    import torch

    def as_tensor(x):
        if isinstance(x, torch.Tensor):
            return x.detach().cpu().clone()
        return torch.as_tensor(np.asarray(x))

    Wa, Wb, Wc = (as_tensor(x) for x in (Wa, Wb, Wc))
    _check_shapes(Wa.shape, Wb.shape, Wc.shape, where=str(path))
    payload = {"model": dict(zip(WEIGHT_KEYS, (Wa, Wb, Wc))), "meta": dict(meta or {})}
    buf = io.BytesIO()
    torch.save(payload, buf)
    with atomic_write(path, "wb") as fh:
        fh.write(buf.getvalue())


@dataclass
class LoadedWeights:
    """Real weights read from a file, as float64 numpy arrays, with the group."""

    Wa: np.ndarray
    Wb: np.ndarray
    Wc: np.ndarray
    group: FiniteAbelianGroup
    meta: dict = field(default_factory=dict)
    path: str = ""

    @property
    def hidden(self) -> int:
        return self.Wa.shape[0]


def _check_shapes(sa, sb, sc, where: str) -> None:
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


def _to_float64(x: Any, name: str, where: str) -> np.ndarray:
    try:
        import torch

        if isinstance(x, torch.Tensor):
            if x.is_complex():
                raise CheckpointError(f"{where}: {name} is complex; real weights are expected")
            x = x.detach().cpu().to(torch.float64).numpy()
    except ImportError:  # pragma: no cover
        pass
    if not isinstance(x, np.ndarray):
        raise CheckpointError(f"{where}: {name} is a {type(x).__name__}, not an array")
    if not (np.issubdtype(x.dtype, np.floating) or np.issubdtype(x.dtype, np.integer)):
        raise CheckpointError(f"{where}: {name} has unsupported dtype {x.dtype}")
    x = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(x)):
        raise CheckpointError(f"{where}: {name} contains NaN or infinite values")
    return x


def _group_from(meta_group: Any, n: int, where: str, table: Any = None) -> FiniteAbelianGroup:
    if meta_group is None:
        return parse_group(n)
    try:
        if table is not None:  # a non-Abelian group: its Cayley table travels with it (SPEC 9)
            from cogo.algebra.finite_groups import FiniteGroup

            t = table.detach().cpu().numpy() if hasattr(table, "detach") else np.asarray(table)
            try:  # never read a file named by untrusted metadata
                named = None if str(meta_group).lower().endswith(".json") else parse_group(str(meta_group))
            except ValueError:
                named = None
            G = FiniteGroup.from_table(t, str(meta_group), register=named is None)
            if named is not None:
                if named != G:
                    raise CogoError(f"the stored Cayley table is not the table of {meta_group}")
                G = named
        else:
            G = parse_group(meta_group if not isinstance(meta_group, (list, tuple)) else tuple(meta_group))
    except (ValueError, TypeError) as exc:
        raise CheckpointError(f"{where}: bad group in metadata: {exc}") from None
    if G.order != n:
        raise CheckpointError(f"{where}: metadata group {G} has order {G.order} but the weights have {n} columns")
    return G


def load_weights(path: str | os.PathLike, group: Any = None) -> LoadedWeights:
    """Load ``(Wa, Wb, Wc)`` and the group from a ``.pt`` checkpoint or ``.npz`` file.

    Raises :class:`CheckpointError` (a ValueError) with a one-line message for
    a missing, unreadable, malformed, inconsistent or non-finite file.
    ``group`` overrides the group recorded in the file (default: the file's
    ``meta['group']``, else ``Z_n`` with ``n`` the number of weight columns).
    """
    where = str(path)
    p = Path(path)
    if not p.is_file():
        raise CheckpointError(f"{where}: no such file")
    size = p.stat().st_size
    if size == 0:
        raise CheckpointError(f"{where}: empty file")
    if size > MAX_CHECKPOINT_BYTES:
        raise CheckpointError(f"{where}: file of {size} bytes exceeds the {MAX_CHECKPOINT_BYTES}-byte limit")
    meta: dict = {}
    if p.suffix == ".npz":
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
        except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
            raise CheckpointError(f"{where}: not a readable .npz file ({type(exc).__name__}: {exc})") from None
    else:
        import pickle

        import torch

        try:
            obj = torch.load(p, map_location="cpu", weights_only=True)
        except pickle.UnpicklingError as exc:
            if "weights only" in str(exc).lower():
                raise CheckpointError(
                    f"{where}: refused: the file holds objects other than tensors and plain containers, "
                    "which cogo never unpickles (checkpoints are untrusted input)") from None
            raise CheckpointError(f"{where}: not a torch checkpoint (unreadable pickle data)") from None
        except (RuntimeError, EOFError, OSError, ValueError, AttributeError, TypeError, KeyError, IndexError,
                zipfile.BadZipFile, UnicodeDecodeError) as exc:
            text = str(exc)
            if any(t in text for t in ("central directory", "PytorchStreamReader", "zip archive")):
                raise CheckpointError(f"{where}: truncated or corrupt checkpoint (not a readable torch zip archive)") \
                    from None
            if not zipfile.is_zipfile(p):
                raise CheckpointError(f"{where}: not a torch checkpoint (neither a torch zip archive nor a "
                                      "legacy torch file)") from None
            msg = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
            raise CheckpointError(f"{where}: not a loadable weights-only checkpoint ({msg[:160]})") from None
        if not isinstance(obj, dict):
            raise CheckpointError(f"{where}: checkpoint holds a {type(obj).__name__}, not a dict")
        state = obj.get("model", obj)
        if not isinstance(state, dict):
            raise CheckpointError(f"{where}: 'model' entry is a {type(state).__name__}, not a state dict")
        missing = [k for k in WEIGHT_KEYS if k not in state]
        if missing:
            raise CheckpointError(f"{where}: state dict lacks {missing}")
        raw = [state[k] for k in WEIGHT_KEYS]
        m = obj.get("meta", {}) if "model" in obj else {}
        meta = m if isinstance(m, dict) else {}
    Wa, Wb, Wc = (_to_float64(x, k, where) for x, k in zip(raw, WEIGHT_KEYS))
    _check_shapes(Wa.shape, Wb.shape, Wc.shape, where)
    G = parse_group(group) if group is not None else _group_from(meta.get("group"), Wa.shape[1], where, meta.get("group_table"))
    if G.order != Wa.shape[1]:
        raise CheckpointError(f"{where}: group {G} has order {G.order} but the weights have {Wa.shape[1]} columns")
    return LoadedWeights(Wa, Wb, Wc, G, meta, where)
