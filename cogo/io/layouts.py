"""Checkpoint layouts: the registry of state-dict layouts cogo reads (SPEC 1).

Every layout maps a state dict (names -> 2-D tensors or arrays) onto the three
weight matrices of SPEC 1, ``W_a`` (q, n), ``W_b`` (q, n), ``W_c`` (n, q), with
``o(a, b) = W_c sigma(W_a[:, a] + W_b[:, b])``.  :func:`read_state` finds the
layout, checks that nothing outside the model is in the state dict (bias
terms, BatchNorm, extra layers are refused with one line naming them) and
returns the raw matrices with the layout's name, which every report records.

Each layout is one :class:`Layout` record of :data:`LAYOUTS`: its name, how a
state dict in it is recognized, its reader, and its row of the table in
docs/cli.md ("Layouts"; tests/io/test_layouts.py checks the table against the
records).  Adding a layout is one record and its reader function here, and
that row.  The layouts: ``cogo`` (``cogo train`` / ``construct``: the keys
``layera/layerb/layerc.weight`` under ``model`` with a cogo ``meta``),
``ba2de90`` (the same keys, the reference code at commit ba2de90), ``head``
(``W.weight`` (q, 2n) = [W_a W_b], ``V.weight`` (n, q) = W_c: the reference
code at HEAD, ``modular_addition_simple2.py``), ``shared`` (one embedding for
both operands, ``W_a = W_b``, in ``torch.nn`` conventions), ``npz`` (arrays
``Wa``, ``Wb``, ``Wc``: a file format, recognized and read by
:mod:`cogo.io.file_formats`) and ``keys`` (any state dict through an explicit key
map, ``--keys``).

The same layouts are read from ``.safetensors`` files.  An explicit key map
(:func:`parse_key_map`) names ``Wa``, ``Wb``, ``Wc`` (or ``W`` for one
``(q, 2n)`` hidden matrix, or ``Wa`` and ``Wc`` alone with a shared
embedding); a key ending in ``:T`` is transposed, ``:N`` taken as stored, and
otherwise shapes decide the orientation when only one reading fits (and the
group order, when known, must be the group axis); else one line lists the keys
and shapes found and what to pass.

The layouts ``ba2de90`` and ``head`` are those of the papers' reference code [1]_ (CoGO [2]_, Li^2 [3]_).

References
----------
.. [1] facebookresearch/luckmatters, ssl/real-dataset/cogo/ (the paper's code).
.. [2] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [3] Y. Tian, "Provable scaling laws of feature emergence from learning dynamics of grokking" (Li^2), arXiv:2509.21519, 2025.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from cogo.io.arrays import as_array
from cogo.algebra.activations import ACTIVATIONS, unknown_message
from cogo.runtime.errors import CogoError

__all__ = ["LAYOUTS", "Layout", "ReadOptions", "DEFAULT_OPTIONS", "read_options", "parse_key_map",
           "detect_layout", "read_state", "unwrap_state"]

_WRAPPERS = ("model", "state_dict")
_REFERENCE_KEYS = ("layera.weight", "layerb.weight", "layerc.weight")
_SHARED_OUT = ("linear.weight", "output.weight", "unembed.weight", "V.weight")


@dataclass(frozen=True)
class ReadOptions:
    """How to read foreign checkpoints: explicit key map, shared embedding, activation override."""

    keys: Mapping[str, str] | None = None
    shared_embedding: bool = False
    activation: str | None = None
    #: read with the group given even where it contradicts the group the file records (``--force-group``)
    force_group: bool = False


#: ``read(state, where, name, options, n_hint) -> ([Wa, Wb, Wc], the layout name recorded)``.
Reader = Callable[[Mapping[str, Any], str, str, ReadOptions, "int | None"], "tuple[list[Any], str]"]
#: ``detect(keys of the state dict, the file's meta, options) -> whether the state dict is in this layout``.
Detector = Callable[[set, "Mapping[str, Any] | None", ReadOptions], bool]


@dataclass(frozen=True)
class Layout:
    """One checkpoint layout of :data:`LAYOUTS`: its name, how it is recognized, how it is read, its docs row.

    ``detect``: whether a state dict (its keys, the file's ``meta``, the reading options) is in this
    layout; the first record of :data:`LAYOUTS` that says yes reads it.  None for ``npz``, a file format
    that :mod:`cogo.io.file_formats` recognizes and reads itself.  ``read``: the matrices ``W_a`` (q, n),
    ``W_b`` (q, n), ``W_c`` (n, q) of SPEC 1 as stored, with the name recorded; it refuses (one line)
    whatever in the state dict is outside the model.  ``one_embedding``: ``--shared-embedding`` may be
    given with this layout.  ``doc``: the keys and shapes, the layout's row of the table in docs/cli.md.
    """

    name: str
    doc: str
    detect: Detector | None = None
    read: Reader | None = None
    one_embedding: bool = False


#: The options of a plain read: the layouts recognized by their keys, the file's activation, its group honoured.
DEFAULT_OPTIONS = ReadOptions()


def read_options(keys: Mapping[str, str] | str | None = None, shared_embedding: bool = False,
                 activation: str | None = None, force_group: bool = False) -> ReadOptions:
    """The :class:`ReadOptions` of ``--keys``, ``--shared-embedding``, ``--activation``, ``--force-group``, checked.

    Every reader takes them as its ``options`` parameter (:func:`cogo.io.checkpoint.read_checkpoint`,
    :func:`read_state`, ...); the edge (a command's flags, :mod:`cogo.api`'s keywords) builds them once.

    Returns
    -------
    ReadOptions
        ``keys`` parsed by :func:`parse_key_map`.

    Raises
    ------
    cogo.runtime.errors.CogoError
        For a key map that cannot be read or an activation outside :data:`ACTIVATIONS`.

    Examples
    --------
    >>> dict(read_options(keys="Wa=enc,Wb=enc2,Wc=dec").keys)
    {'Wa': 'enc', 'Wb': 'enc2', 'Wc': 'dec'}
    """
    if isinstance(keys, str):
        keys = parse_key_map(keys, shared_embedding)
    if activation is not None and activation not in ACTIVATIONS:
        raise CogoError(unknown_message(activation))
    return ReadOptions(dict(keys) if keys else None, bool(shared_embedding), activation, bool(force_group))


def parse_key_map(text: str, shared_embedding: bool | None = False) -> dict[str, str]:
    """Parse ``Wa=KEY,Wb=KEY,Wc=KEY`` (or ``W=KEY,Wc=KEY``; ``Wa=KEY,Wc=KEY`` with a shared embedding).

    ``shared_embedding=None``: the syntax alone (what either setting of ``--shared-embedding`` accepts;
    the command line checks this before it knows the flag).

    Returns
    -------
    dict of str to str
        The matrix names of SPEC 1 (``Wa``, ``Wb``, ``Wc`` or ``W``) to the state-dict keys (with any ``:T``/``:N``).

    Raises
    ------
    cogo.runtime.errors.CogoError
        For a part that cannot be read, a name given twice, or a set of names that does not make a network.

    Examples
    --------
    >>> parse_key_map("Wa=emb.weight,Wc=out.weight:T", shared_embedding=True)
    {'Wa': 'emb.weight', 'Wc': 'out.weight:T'}
    >>> parse_key_map("Wa=emb_a,Wb=emb_b,Wc=unembed", shared_embedding=None)   # two embeddings: no flag needed
    {'Wa': 'emb_a', 'Wb': 'emb_b', 'Wc': 'unembed'}
    >>> parse_key_map("Wa=x")
    Traceback (most recent call last):
    ...
    cogo.runtime.errors.CogoError: --keys needs Wa, Wb and Wc (or W and Wc; with --shared-embedding Wa and Wc), got Wa
    """
    if shared_embedding is None:
        try:
            return parse_key_map(text, False)
        except CogoError:
            return parse_key_map(text, True)
    out: dict[str, str] = {}
    for part in [p for p in str(text).split(",") if p.strip()]:
        name, sep, key = part.partition("=")
        name, key = name.strip(), key.strip()
        if not sep or name not in ("Wa", "Wb", "Wc", "W") or not key:
            raise CogoError(f"--keys: cannot read {part!r}; write Wa=KEY,Wb=KEY,Wc=KEY (or W=KEY,Wc=KEY)")
        if name in out:
            raise CogoError(f"--keys names {name} twice")
        out[name] = key
    names = set(out)
    ok = names in ({"Wa", "Wb", "Wc"}, {"W", "Wc"}) or (shared_embedding and names == {"Wa", "Wc"})
    if shared_embedding and "Wb" in out and out["Wb"] != out.get("Wa"):
        raise CogoError("--shared-embedding: Wb must be the same key as Wa (or left out)")
    if shared_embedding and names == {"Wa", "Wb", "Wc"}:
        ok = True
    if not ok:
        raise CogoError("--keys needs Wa, Wb and Wc (or W and Wc; with --shared-embedding Wa and Wc), got "
                        + ", ".join(sorted(names)))
    return out


def unwrap_state(obj: Any, where: str) -> tuple[dict, str | None]:
    """The state dict inside ``obj`` (itself, or its ``model`` / ``state_dict`` entry) and the wrapper's name.

    Returns
    -------
    tuple of (dict, str or None)
        ``(state, wrapper)``: the state dict and ``"model"`` / ``"state_dict"``, or None when ``obj`` is bare.

    Raises
    ------
    cogo.runtime.errors.CogoError
        When ``obj`` or its wrapped entry is not a dict.
    """
    if not isinstance(obj, dict):
        raise CogoError(f"{where}: checkpoint holds a {type(obj).__name__}, not a dict")
    for w in _WRAPPERS:
        if w in obj:
            state = obj[w]
            if not isinstance(state, dict):
                raise CogoError(f"{where}: '{w}' entry is a {type(state).__name__}, not a state dict")
            return state, w
    return obj, None


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in getattr(x, "shape", ()))


def _listing(state: Mapping[str, Any], limit: int = 8) -> str:
    items = [f"{k} {_shape(v)}" for k, v in state.items()]
    return ", ".join(items[:limit]) + (f", ... ({len(items)} keys)" if len(items) > limit else "")


def _refuse_extras(state: Mapping[str, Any], used: set[str], where: str, layout: str) -> None:
    """One line naming bias terms, BatchNorm entries and extra layers (they are outside SPEC 1's model)."""
    extra = [k for k in state if k not in used]
    if not extra:
        return
    bias = [k for k in extra if k.endswith(".bias") or k.split(".")[-1] in ("b", "bias") or k.startswith("b_")]
    bn = [k for k in extra if k not in bias and (re.search(r"(^|\.)(bn|batchnorm|norm)\d*(\.|$)", k.lower())
                                                  or k.split(".")[-1] in ("running_mean", "running_var",
                                                                          "num_batches_tracked"))]
    other = [k for k in extra if k not in bias and k not in bn]
    parts = []
    if bias:
        parts.append("bias terms " + ", ".join(bias[:4]) + (" ..." if len(bias) > 4 else ""))
    if bn:
        parts.append("BatchNorm " + ", ".join(bn[:4]) + (" ..." if len(bn) > 4 else ""))
    if other:
        parts.append("extra layers/entries " + ", ".join(other[:4]) + (" ..." if len(other) > 4 else ""))
    raise CogoError(f"{where}: refused: the {layout} network also has " + "; ".join(parts)
                    + " (outside the model of SPEC 1: o = W_c sigma(W_a[:, a] + W_b[:, b]), no bias, no other layer)")


def _t(x: Any) -> Any:
    return x.T if isinstance(x, np.ndarray) else x.t()


def _is_identity(x: Any) -> bool:
    a = as_array(x, dtype=np.float64)
    return a.ndim == 2 and a.shape[0] == a.shape[1] and np.array_equal(a, np.eye(a.shape[0]))


def _matmul(x: Any, y: Any) -> Any:
    if hasattr(x, "detach"):
        return (x.detach().double() @ y.detach().double())
    return np.asarray(x, dtype=np.float64) @ np.asarray(y, dtype=np.float64)


def _embedding(state: Mapping[str, Any], used: set, Wa: Any, Wb: Any, n: int, where: str) -> tuple[Any, Any]:
    """Compose the reference code's input embedding ``embedding.weight`` (n, n) into W_a, W_b.

    The reference code feeds ``E[a]`` (row ``a`` of a fixed identity matrix) to the first layer,
    so ``h = W_a E[a]^T + W_b E[b]^T``: an identity changes nothing, another (n, n) matrix is
    composed in exactly (``W_a E^T``).
    """
    E = state["embedding.weight"]
    used.add("embedding.weight")
    if _shape(E) != (n, n):
        raise CogoError(f"{where}: embedding.weight {_shape(E)} does not fit a first layer with {n} inputs "
                        f"(expected ({n}, {n}))")
    if _is_identity(E):
        return Wa, Wb
    return _matmul(Wa, _t(E)), _matmul(Wb, _t(E))


def _need_2d(state: Mapping[str, Any], keys: list[str], where: str) -> None:
    for k in keys:
        if len(_shape(state[k])) != 2:
            raise CogoError(f"{where}: {k} must be a 2-D matrix, got shape {_shape(state[k])}")


def detect_layout(state: Mapping[str, Any], meta: Mapping[str, Any] | None = None,
                  options: ReadOptions | None = None) -> str | None:
    """The name of the first layout of :data:`LAYOUTS` that recognizes ``state``, or None.

    ``options``: the reading options (default :data:`DEFAULT_OPTIONS`; a key map selects the ``keys`` layout).

    >>> detect_layout({"W.weight": 0, "V.weight": 0}), detect_layout({"W_E": 0, "W_U": 0}), detect_layout({})
    ('head', 'shared', None)
    """
    layout = _detect(set(state), meta, options if options is not None else DEFAULT_OPTIONS)
    return layout.name if layout is not None else None


def _detect(keys: set, meta: Mapping[str, Any] | None, opts: ReadOptions) -> Layout | None:
    return next((r for r in LAYOUTS if r.detect is not None and r.detect(keys, meta, opts)), None)


def read_state(state: Mapping[str, Any], where: str, meta: Mapping[str, Any] | None = None,
               n_hint: int | None = None, options: ReadOptions | None = None) -> tuple[list[Any], str]:
    """``([Wa, Wb, Wc], layout)`` read from a state dict (raw tensors or arrays, reference orientation).

    ``n_hint``: the group order when known (``--group`` or the file's metadata); it
    settles the orientation of an explicit key map.  ``options``: the reading options (default
    :data:`DEFAULT_OPTIONS`).  Raises :class:`cogo.runtime.errors.CogoError` (one line)
    when no layout fits, the orientation is ambiguous, or the state dict holds
    anything outside the model.

    Returns
    -------
    tuple of (list, str)
        ``([Wa, Wb, Wc], layout)``: the raw matrices ``W_a`` (q, n), ``W_b`` (q, n), ``W_c`` (n, q) of SPEC 1, as
        stored (tensors or arrays), and the name of the layout in :data:`LAYOUTS`.

    Raises
    ------
    cogo.runtime.errors.CogoError
        When no layout fits, the orientation is ambiguous, or the state dict holds anything outside the model.

    Examples
    --------
    >>> import numpy as np
    >>> W, V = np.zeros((8, 10)), np.zeros((5, 8))                # HEAD: W (q, 2n), V (n, q)
    >>> (Wa, Wb, Wc), layout = read_state({"W.weight": W, "V.weight": V}, "f.pt")
    >>> layout, Wa.shape, Wb.shape, Wc.shape
    ('head', (8, 5), (8, 5), (5, 8))
    >>> read_state({"W.weight": W, "V.weight": V, "V.bias": np.zeros(5)}, "f.pt")
    Traceback (most recent call last):
    ...
    cogo.runtime.errors.CogoError: f.pt: refused: the head network also has bias terms V.bias (outside the model of SPEC 1: o = W_c sigma(W_a[:, a] + W_b[:, b]), no bias, no other layer)
    """
    opts = options if options is not None else DEFAULT_OPTIONS
    state = _flatten(state)   # a state dict nested under names of the user's own: dotted keys (net.W.weight)
    layout = _detect(set(state), meta, opts)
    if layout is None and not opts.keys and (inner := _common_prefix_stripped(state)) is not None:
        layout = _detect(set(inner), meta, opts)   # one name around everything ({'net': {...}}): what is inside
        state = inner if layout is not None else state
    if layout is not None:
        if opts.shared_embedding and not layout.one_embedding:
            raise CogoError(f"{where}: --shared-embedding given but the file is in the {layout.name} layout "
                            "(two embeddings); leave the flag out")
        return layout.read(state, where, layout.name, opts, n_hint)
    raise CogoError(f"{where}: no known checkpoint layout; found {_listing(state) or 'no keys'}; pass "
                    "--keys Wa=KEY,Wb=KEY,Wc=KEY (or W=KEY,Wc=KEY; add --shared-embedding for one embedding), "
                    "each KEY as listed here (a nested entry by its dotted path, e.g. net.W.weight)")


def _flatten(state: Mapping[str, Any], prefix: str = "") -> Mapping[str, Any]:
    """``state`` with every nested dict's entries as dotted keys (``{'net': {'W.weight': w}}``: ``net.W.weight``);
    ``state`` itself when nothing is nested."""
    if not prefix and not any(isinstance(v, Mapping) for v in state.values()):
        return state
    out: dict = {}
    for k, v in state.items():
        if isinstance(v, Mapping):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _common_prefix_stripped(state: Mapping[str, Any]) -> dict | None:
    """The state without the first component shared by every (dotted) key, or None when there is none."""
    heads = {k.split(".", 1)[0] for k in state}
    if len(heads) != 1 or not all("." in k for k in state):
        return None
    return {k.split(".", 1)[1]: v for k, v in state.items()}


# ---------------------------------------------------------------- the readers (Layout.read)
def _read_reference(state: Mapping[str, Any], where: str, layout: str, opts: ReadOptions, n_hint: int | None
                    ) -> tuple[list[Any], str]:
    """``[Wa, Wb, Wc]`` of the ``cogo`` / ``ba2de90`` layouts (a stored one-hot embedding composed in)."""
    ks = list(_REFERENCE_KEYS)
    used = set(ks)
    Wa, Wb = state[ks[0]], state[ks[1]]
    if "embedding.weight" in state:    # the reference code keeps its fixed one-hot embedding in the state
        _need_2d(state, ks, where)
        Wa, Wb = _embedding(state, used, Wa, Wb, _shape(Wa)[1], where)
    _refuse_extras(state, used, where, layout)
    return [Wa, Wb, state[ks[2]]], layout


def _read_head(state: Mapping[str, Any], where: str, layout: str, opts: ReadOptions, n_hint: int | None
               ) -> tuple[list[Any], str]:
    """``[Wa, Wb, Wc]`` of the ``head`` layout: ``W.weight`` (q, 2n) split in two, ``V.weight`` (n, q)."""
    ks = ["W.weight", "V.weight"]
    _need_2d(state, ks, where)
    used = set(ks)
    W, V = state["W.weight"], state["V.weight"]
    q, two_n = _shape(W)
    if two_n % 2 or _shape(V) != (two_n // 2, q):
        raise CogoError(f"{where}: HEAD layout needs W.weight (q, 2n) and V.weight (n, q), got W.weight "
                        f"{_shape(W)}, V.weight {_shape(V)} (a network with more than two operands or "
                        "another hidden layer is outside the model)")
    n = two_n // 2
    Wa, Wb = W[:, :n], W[:, n:]
    if "embedding.weight" in state:
        Wa, Wb = _embedding(state, used, Wa, Wb, n, where)
    _refuse_extras(state, used, where, layout)
    return [Wa, Wb, V], layout


def _read_shared(state: Mapping[str, Any], where: str, layout: str, opts: ReadOptions, n_hint: int | None
                 ) -> tuple[list[Any], str]:
    """``[Wa, Wa, Wc]`` of the ``shared`` layout: one embedding for both operands, and its output layer."""
    if {"W_E", "W_U"} <= set(state):
        E, U, used = state["W_E"], _t(state["W_U"]), {"W_E", "W_U"}
        _need_2d(state, ["W_E", "W_U"], where)
    else:
        out = [k for k in _SHARED_OUT if k in state]
        if len(out) > 1:
            raise CogoError(f"{where}: shared-embedding layout with several output layers {out}; "
                            "name one with --keys Wa=embedding.weight,Wc=KEY --shared-embedding")
        _need_2d(state, ["embedding.weight", out[0]], where)
        E, U, used = state["embedding.weight"], state[out[0]], {"embedding.weight", out[0]}
    n, q = _shape(E)
    if _shape(U) != (n, q):
        raise CogoError(f"{where}: shared embedding {_shape(E)} (n, q) and output {_shape(U)} (expected "
                        f"({n}, {q}) as torch.nn stores it) do not fit")
    _refuse_extras(state, used, where, "shared-embedding")
    Wa = _t(E)
    return [Wa, Wa, U], layout


def _read_keys(state: Mapping[str, Any], where: str, layout: str, opts: ReadOptions, n_hint: int | None
               ) -> tuple[list[Any], str]:
    """``[Wa, Wb, Wc]`` through the key map of ``--keys`` (``keys+shared`` with one embedding)."""
    km = dict(opts.keys or {})
    spec: dict[str, tuple[str, str | None]] = {}
    for name, key in km.items():
        flag = None
        if key.endswith(":T") or key.endswith(":N"):
            key, flag = key[:-2], key[-1]
        if key not in state:
            raise CogoError(f"{where}: --keys names {key!r}, which the file lacks; found {_listing(state)}")
        spec[name] = (key, flag)
    _need_2d(state, [k for k, _ in spec.values()], where)
    shared = opts.shared_embedding or ("Wb" in spec and spec["Wb"][0] == spec["Wa"][0])
    if "W" in spec:
        hidden_names = ["W"]
    else:
        hidden_names = ["Wa"] + ([] if shared or "Wb" not in spec else ["Wb"])
    # orientation: every reading (hidden transposed or not) x (Wc transposed or not) that fits
    fixed_h = {spec[nm][1] for nm in hidden_names} - {None}
    fixed_c = spec["Wc"][1]
    if len(fixed_h) > 1:
        raise CogoError(f"{where}: --keys marks the hidden matrices with different orientations (:T and :N)")
    cand = []
    for th in ([fixed_h.pop() == "T"] if fixed_h else [False, True]):
        for tc in ([fixed_c == "T"] if fixed_c else [False, True]):
            hs = [_shape(state[spec[nm][0]])[::-1] if th else _shape(state[spec[nm][0]]) for nm in hidden_names]
            cs = _shape(state[spec["Wc"][0]])[::-1] if tc else _shape(state[spec["Wc"][0]])
            q, cols = hs[0]
            if any(h != hs[0] for h in hs):
                continue
            n = cols // 2 if "W" in spec else cols
            if "W" in spec and cols % 2:
                continue
            if cs != (n, q) or (n_hint is not None and n != n_hint):
                continue
            cand.append((th, tc, q, n))
    found = ", ".join(f"{nm}={k} {_shape(state[k])}" for nm, (k, _) in spec.items())
    if not cand:
        raise CogoError(f"{where}: --keys: {found} fit no reading W_a, W_b (q, n), W_c (n, q)"
                        + (f" with group order {n_hint}" if n_hint is not None else ""))
    if len(cand) > 1:
        # a reading with fewer hidden nodes than group elements is the transposed file's (as for files read
        # without --keys): when exactly one reading has q >= n, it is the one
        plausible = [c for c in cand if c[2] >= c[3]]
        if len(plausible) != 1 and n_hint is not None:   # square matrices: the group order fits both readings
            raise CogoError(f"{where}: --keys: the orientation of {found} is ambiguous even with the group order "
                            f"{n_hint} (the matrices are square: q = n); end a key with :T (transpose) or :N (as "
                            "stored)")
        if len(plausible) != 1:
            raise CogoError(f"{where}: --keys: the orientation of {found} is ambiguous; pass --group with the "
                            "group order, or end a key with :T (transpose) or :N (as stored)")
        cand = plausible
    th, tc = cand[0][:2]
    mats = {nm: (_t(state[k]) if (tc if nm == "Wc" else th) else state[k]) for nm, (k, _) in spec.items()}
    if "W" in spec:
        n = _shape(mats["W"])[1] // 2
        Wa, Wb = mats["W"][:, :n], mats["W"][:, n:]
    else:
        Wa = mats["Wa"]
        Wb = Wa if shared else mats["Wb"]
    _refuse_extras(state, {k for k, _ in spec.values()}, where, "keys")
    return [Wa, Wb, mats["Wc"]], layout + ("+shared" if shared else "")


# ---------------------------------------------------------------- the registry
#: Every layout cogo reads, in the order they are tried (a key map first: ``--keys`` decides over the keys).
LAYOUTS: tuple[Layout, ...] = (
    Layout("keys", "any state dict through `--keys Wa=KEY,Wb=KEY,Wc=KEY` (or `W=KEY,Wc=KEY`; with "
           "`--shared-embedding`, `Wa=KEY,Wc=KEY`)",
           detect=lambda keys, meta, opts: bool(opts.keys), read=_read_keys, one_embedding=True),
    # cogo's writers put a ``meta`` dict beside ``model``; the reference code does not
    Layout("cogo", "`layera.weight` (q, n), `layerb.weight` (q, n), `layerc.weight` (n, q) under `model`, with "
           "`meta`",
           detect=lambda keys, meta, opts: set(_REFERENCE_KEYS) <= keys and bool(meta), read=_read_reference),
    Layout("ba2de90", "the same three keys, bare or under `model`/`state_dict` (the paper's code at commit ba2de90)",
           detect=lambda keys, meta, opts: set(_REFERENCE_KEYS) <= keys, read=_read_reference),
    Layout("head", "`W.weight` (q, 2n) = [W_a W_b] and `V.weight` (n, q) = W_c, bare or under `model`/`state_dict` "
           "(the paper's code at HEAD)",
           detect=lambda keys, meta, opts: {"W.weight", "V.weight"} <= keys, read=_read_head),
    Layout("shared", "one embedding for both operands (W_a = W_b): `embedding.weight` (n, q) with `linear.weight`, "
           "`output.weight`, `unembed.weight` or `V.weight` (n, q); or `W_E` (n, q) with `W_U` (q, n)",
           detect=lambda keys, meta, opts: ("embedding.weight" in keys and any(k in keys for k in _SHARED_OUT))
           or {"W_E", "W_U"} <= keys,
           read=_read_shared, one_embedding=True),
    Layout("npz", "`.npz` arrays `Wa`, `Wb`, `Wc` (other `.npz` and `.safetensors` files are read through the "
           "layouts above)"),
)
