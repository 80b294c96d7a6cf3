"""The checkpoint claim: the file (its sha256) holds the real weights of the certified network, rounded.

The file is read here without torch or numpy: ``.npz`` is a zip of ``.npy`` arrays (a header, then raw
little-endian data), ``.safetensors`` is a JSON header and raw data, ``.pt`` is a zip whose ``data.pkl`` is
unpickled by :class:`_Unpickler`, which admits only the names a tensor state needs (anything else is refused)
and reads each storage as raw little-endian bytes.  The exact weight of node j at element x is
(SPEC 2, with the per-node gauge t_j of the certificate, lambda = (2 n)^(1/3)):

    W_a[j, x] = t_j / lambda sum_k u_a[k, j] chi_k(x),   W_c[x, j] = 1 / (t_j^2 lambda) sum_k u_c[k, j] conj(chi_k(x))

with chi_k(x) = exp(2 pi i sum_i k_i x_i / d_i); it is evaluated in decimal arithmetic with 40 digits
(far below the stated tolerance), and every file weight must lie within the certificate's relative tolerance
(at most 1e-13 of the largest weight) of it.
"""
from __future__ import annotations

import ast
import json
import os
import pickle
import struct
import zipfile
from decimal import Decimal, getcontext

from cogo_check.arith import Group
from cogo_check.base import Bad, sha256

MAX_TOLERANCE = 1e-13


def _npy(raw: bytes) -> tuple:
    """(shape, flat values) of a little-endian float .npy."""
    if raw[:6] != b"\x93NUMPY":
        raise Bad("not an .npy array")
    hl, start = (struct.unpack("<H", raw[8:10])[0], 10) if raw[6] == 1 else (struct.unpack("<I", raw[8:12])[0], 12)
    head = ast.literal_eval(raw[start:start + hl].decode("latin1"))
    fmt = {"<f8": "d", "<f4": "f"}.get(head["descr"])
    if fmt is None or head["fortran_order"]:
        raise Bad(f"unsupported .npy dtype {head['descr']!r}")
    shape = tuple(head["shape"])
    count = 1
    for s in shape:
        count *= s
    return shape, struct.unpack(f"<{count}{fmt}", raw[start + hl:start + hl + count * struct.calcsize(fmt)])


class _Unpickler(pickle.Unpickler):
    """Only the names of a torch state dict; storages are resolved to raw bytes of the zip."""

    def __init__(self, fh, zf: zipfile.ZipFile, prefix: str):
        super().__init__(fh)
        self.zf, self.prefix = zf, prefix

    def find_class(self, module, name):
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return self._tensor
        if module == "torch" and name in ("DoubleStorage", "FloatStorage"):
            return name
        if (module, name) == ("collections", "OrderedDict"):
            return dict
        raise pickle.UnpicklingError(f"refused {module}.{name}")

    def persistent_load(self, pid):
        if pid[0] != "storage":
            raise pickle.UnpicklingError("unknown persistent id")
        return pid[1], self.zf.read(f"{self.prefix}data/{pid[2]}")

    @staticmethod
    def _tensor(storage, offset, size, stride, *rest):
        kind, raw = storage
        fmt = "d" if kind == "DoubleStorage" else "f"
        vals = struct.unpack(f"<{len(raw) // struct.calcsize(fmt)}{fmt}", raw)
        size = tuple(size)
        if len(size) != 2:
            raise pickle.UnpicklingError("a weight must be 2-D")
        flat = [vals[offset + i * stride[0] + j * stride[1]] for i in range(size[0]) for j in range(size[1])]
        return size, tuple(flat)


def read_weights(path: str) -> list:
    """``[(shape, flat row-major values)]`` of W_a (q, n), W_b (q, n), W_c (n, q)."""
    if path.endswith(".npz"):
        with zipfile.ZipFile(path) as zf:
            return [_npy(zf.read(f"{k}.npy")) for k in ("Wa", "Wb", "Wc")]
    if path.endswith(".safetensors"):
        with open(path, "rb") as fh:
            raw = fh.read()
        hl = struct.unpack("<Q", raw[:8])[0]
        head = json.loads(raw[8:8 + hl])
        out = []
        for k in ("Wa", "Wb", "Wc") if "Wa" in head else ("layera.weight", "layerb.weight", "layerc.weight"):
            h = head[k]
            fmt = {"F64": "d", "F32": "f"}[h["dtype"]]
            b, e = h["data_offsets"]
            out.append((tuple(h["shape"]), struct.unpack(f"<{(e - b) // struct.calcsize(fmt)}{fmt}",
                                                         raw[8 + hl + b:8 + hl + e])))
        return out
    with zipfile.ZipFile(path) as zf:
        pkl = next(n for n in zf.namelist() if n.endswith("data.pkl"))
        with zf.open(pkl) as fh:
            obj = _Unpickler(fh, zf, pkl[: -len("data.pkl")]).load()
    state = obj.get("model", obj)
    return [state[k] for k in ("layera.weight", "layerb.weight", "layerc.weight")]


def _cexp(num: int, den: int) -> tuple:
    """(cos, sin) of 2 pi num/den in Decimal (Taylor series after reduction to [0, 2 pi))."""
    x = _PI * 2 * Decimal(num % den) / Decimal(den)
    c, s, term, i = Decimal(0), Decimal(0), Decimal(1), 0
    while True:
        if i % 4 == 0:
            c += term
        elif i % 4 == 1:
            s += term
        elif i % 4 == 2:
            c -= term
        else:
            s -= term
        i += 1
        term = term * x / i
        if abs(term) < Decimal(10) ** -45 and i > 10:
            return c, s


def _pi() -> Decimal:
    """pi by Machin's formula, 16 atan(1/5) - 4 atan(1/239)."""
    getcontext().prec = 50

    def atan_inv(m):
        total, power, k, sign = Decimal(0), Decimal(1) / m, 1, 1
        while power > Decimal(10) ** -55:
            total += sign * power / k
            power /= m * m
            k += 2
            sign = -sign
        return total
    return 16 * atan_inv(5) - 4 * atan_inv(239)


_PI = _pi()


def exact_weights(G: Group, net: dict) -> list:
    """The real weights W_a (q, n), W_b (q, n), W_c (n, q) of a fourier-cyclotomic network, as Decimals."""
    getcontext().prec = 50
    n, q, L = G.order, net["nodes"], net["L"]
    t = []
    for base, ex in net["gauge"]:
        num, den = (int(v) for v in ex.split("/"))
        t.append(Decimal(base) ** (Decimal(num) / Decimal(den)))
    lam = (Decimal(2 * n)) ** (Decimal(1) / Decimal(3))
    roots = {e: _cexp(e, L) for e in range(L)}
    M = 1
    for d in G.factors:
        M *= d
    chi = {}
    W = {"a": [[Decimal(0)] * n for _ in range(q)], "b": [[Decimal(0)] * n for _ in range(q)],
         "c": [[Decimal(0)] * q for _ in range(n)]}
    for p in "abc":
        for j, k, den, terms in net["entries"][p]:
            re = sum(c * roots[e % L][0] for e, c in terms) / den
            im = sum(c * roots[e % L][1] for e, c in terms) / den
            scale = t[j] / lam if p != "c" else 1 / (t[j] * t[j] * lam)
            for xi, x in enumerate(G.elements):
                phase = sum(ki * xv * (M // d) for ki, xv, d in zip(k, x, G.factors)) % M
                if p == "c":
                    phase = (-phase) % M
                if phase not in chi:
                    chi[phase] = _cexp(phase, M)
                cr, ci = chi[phase]
                v = (re * cr - im * ci) * scale  # the real part; the imaginary parts cancel (Hermitian)
                if p == "c":
                    W[p][xi][j] += v
                else:
                    W[p][j][xi] += v
    return [W["a"], W["b"], W["c"]]


def check_checkpoint(cert: dict, where: str) -> str:
    """The file named by the certificate has its sha256 and holds the certified network's weights."""
    ck = cert["checkpoint"]
    path = os.path.join(where, os.path.basename(ck["file"]))
    if not os.path.exists(path):
        raise Bad(f"checkpoint {ck['file']} not found next to the certificate")
    if sha256(path) != ck["sha256"]:
        raise Bad(f"checkpoint {ck['file']}: sha256 differs from the certified file's")
    tol = float(ck["tolerance"])
    if not (0 <= tol <= MAX_TOLERANCE):
        raise Bad(f"tolerance {tol} above the checker's {MAX_TOLERANCE}")
    G = Group(cert["group"]["factors"])
    exact = exact_weights(G, cert["network"])
    try:
        got = read_weights(path)
    except Exception as exc:  # any unreadable or refused file (pickle names outside a tensor state included)
        raise Bad(f"checkpoint {ck['file']} unreadable: {type(exc).__name__}: {exc}") from None
    scale = max(abs(v) for W in exact for row in W for v in row)
    worst = Decimal(0)
    for W, (shape, flat) in zip(exact, got):
        if tuple(shape) != (len(W), len(W[0])):
            raise Bad(f"checkpoint: shape {shape} != ({len(W)}, {len(W[0])})")
        for i, row in enumerate(W):
            for j, v in enumerate(row):
                worst = max(worst, abs(Decimal(flat[i * len(row) + j]) - v))
    if worst > Decimal(tol) * scale:
        raise Bad(f"checkpoint: a weight differs from the exact one by {float(worst / scale):.3g} of the largest "
                   f"weight (tolerance {tol})")
    return f"{os.path.basename(path)} (sha256 ok) holds the exact weights within {float(worst / scale):.2g} relative"
