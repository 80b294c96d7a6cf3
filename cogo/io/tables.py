"""One table renderer and one JSON encoder for every report cogo writes.

JSON convention (verify, classify, experiment, dynamics alike): numpy scalars become
Python numbers, complex numbers become ``[re, im]``, sympy values become their
string, and a non-finite float (nan, inf) becomes ``null``; the encoder runs with
``allow_nan=False`` so a stray non-finite value can never produce invalid JSON.
"""
from __future__ import annotations

import json
import math
from typing import Any, Sequence

import numpy as np

__all__ = ["render_table", "to_plain", "dumps_json", "dumps_json_at", "RenderedJSON"]


def render_table(head: Sequence[str], rows: Sequence[Sequence[str]], *, markdown: bool = False,
                 indent: str = "") -> str:
    """Render ``rows`` under ``head`` as an aligned plain-text table or a Markdown table.

    Returns
    -------
    str
        The table's lines joined by newlines (no trailing newline); plain text with columns two spaces apart, or
        Markdown with ``|`` escaped in the cells.

    Examples
    --------
    >>> print(render_table(["k", "type"], [["1", "z_F6"], ["10", "other"]]))
    k   type
    --  -----
    1   z_F6
    10  other
    >>> print(render_table(["a", "b"], [["x|y", "1"]], markdown=True))
    | a | b |
    |---|---|
    | x\\|y | 1 |
    """
    head = [str(h) for h in head]
    rows = [[str(c) for c in r] for r in rows]
    if markdown:
        esc = lambda s: s.replace("|", "\\|")
        out = ["| " + " | ".join(esc(h) for h in head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
        return "\n".join(out)
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(head)]
    line = lambda cells: (indent + "  ".join(c.ljust(w) for c, w in zip(cells, widths))).rstrip()
    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])


def _float(x: float) -> float | None:
    return x if math.isfinite(x) else None


def to_plain(obj: Any) -> Any:
    """``obj`` with numpy, complex and sympy values turned into JSON values (non-finite -> ``None``).

    Returns
    -------
    object
        Dicts (string keys), lists, bools, ints, finite floats, strings and ``None`` only: what ``json`` writes.

    Examples
    --------
    >>> import numpy as np
    >>> to_plain({"x": np.float64("nan"), "z": 1 + 2j, "v": np.arange(2)})
    {'x': None, 'z': [1.0, 2.0], 'v': [0, 1]}
    """
    t = type(obj)
    if t is float:  # the common types first, by exact type (a report holds hundreds of thousands of values)
        return obj if math.isfinite(obj) else None
    if t is str or t is int or t is bool or obj is None:
        return obj
    if t is dict:
        return {str(k): to_plain(v) for k, v in obj.items()}
    if t is list or t is tuple:
        return [to_plain(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return _float(float(obj))
    if isinstance(obj, (complex, np.complexfloating)):
        return [_float(float(obj.real)), _float(float(obj.imag))]
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fc" and np.isfinite(obj).all():  # finite numbers: numpy's tolist, no walk
            if obj.dtype.kind == "c":
                return np.stack([obj.real, obj.imag], axis=-1).astype(np.float64).tolist()
            return obj.astype(np.float64).tolist()
        if obj.dtype.kind in "iub":
            return obj.tolist()
        return to_plain(obj.tolist())
    if obj is None or isinstance(obj, str):
        return obj
    return str(obj)  # sympy values, paths, enums


def dumps_json(obj: Any, indent: int = 1, compact_depth: int | None = None, plain: bool = False) -> str:
    """``json.dumps(to_plain(obj))`` with ``allow_nan=False`` and a trailing newline.

    ``plain``: ``obj`` already holds plain JSON values only (what :func:`to_plain` returns; a report's
    ``to_json_dict``), so it is not walked again (a sweep's report holds millions of values).

    ``compact_depth``: containers nested this deep (the top level is depth 0) are written on one line each by
    the C encoder (``json.dumps`` with an ``indent`` is pure Python: about three times slower on a sweep's
    report); the levels above are indented.  None: every level indented.

    Examples
    --------
    >>> print(dumps_json({"a": [{"k": 1, "v": [1, 2]}, {"k": 2, "v": []}]}, compact_depth=2), end="")
    {
     "a": [
      {"k": 1, "v": [1, 2]},
      {"k": 2, "v": []}
     ]
    }
    """
    obj = obj if plain else to_plain(obj)
    if compact_depth is None:
        return json.dumps(obj, indent=indent, allow_nan=False) + "\n"
    return _dump(obj, 0, indent, compact_depth) + "\n"


class RenderedJSON(str):
    """JSON text already rendered at its place (:func:`dumps_json_at`): :func:`dumps_json` writes it as it is."""


def dumps_json_at(plain: Any, depth: int, compact_depth: int, indent: int = 1) -> RenderedJSON:
    """The text :func:`dumps_json` (with ``compact_depth``) writes for the plain value ``plain`` nested ``depth``
    levels deep (its first line unindented, the others indented for that depth), to be placed there as a
    :class:`RenderedJSON` (a sweep's workers render their own checkpoints' entries).

    Examples
    --------
    >>> doc = {"a": [{"k": 1, "v": [1, 2]}]}
    >>> entry = dumps_json_at({"k": 1, "v": [1, 2]}, 2, compact_depth=2)
    >>> dumps_json({"a": [entry]}, compact_depth=2) == dumps_json(doc, compact_depth=2)
    True
    """
    return RenderedJSON(_dump(plain, depth, indent, compact_depth))


def _dump(x: Any, depth: int, indent: int, compact_depth: int) -> str:
    if type(x) is RenderedJSON:
        return x
    if depth >= compact_depth or not isinstance(x, (dict, list)) or not x:
        return json.dumps(x, allow_nan=False)
    pad, inner = " " * (indent * depth), " " * (indent * (depth + 1))
    if isinstance(x, dict):
        items = [f"{inner}{json.dumps(str(k))}: {_dump(v, depth + 1, indent, compact_depth)}" for k, v in x.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    items = [inner + _dump(v, depth + 1, indent, compact_depth) for v in x]
    return "[\n" + ",\n".join(items) + "\n" + pad + "]"
