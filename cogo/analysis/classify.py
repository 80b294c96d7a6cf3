"""Reading trained networks: blocks, Kronecker factors and catalogue names (SPEC 8).

Pipeline for one network (:func:`read_network`):

1. **Fourier transform** with the convention of SPEC 2 (scale ``(2 n_G)^(1/3)``,
   so a perfect block has ``r_kkk = 1``).
2.-4. **Dead nodes, dominant frequency, mixed nodes, self-conjugate
   frequencies**: :func:`cogo.analysis.block_extraction.extract_blocks` (SPEC 8.2-8.3,
   SPEC 6), the one rule every reader of a network uses; defaults
   :data:`DEAD_THRESHOLD` = 1e-2 (relative strength) and
   :data:`MIX_THRESHOLD` = 0.05.  A block at a self-conjugate frequency
   (``k = -k``, even groups) is checked against the conditions SPEC 6 leaves
   for it (``abc = 1`` and the R_n sum ``sum (a^2 + b^2) c = 0``), see
   :func:`cogo.analysis.block_extraction.block_conditions`.
5. **Blocks**: the live nodes of each dominant frequency ``k``; the *order* is
   their number; ``r_kkk`` is ``sum_j a_j b_j c_j`` over the block.
6. **Factorization** (SPEC 8.4-8.5) by :mod:`cogo.analysis.factor.factorization`;
   a block is *factorable* when some grid reconstructs it with relative error at
   most ``factor_tol`` (default 0.05).  The finest such grid is reported,
   unless a coarser grid fits far better: only grids with error at most
   ``EXACT_RATIO * e_min + EXACT_SLACK`` (2 and 0.005, :mod:`cogo.analysis.naming`;
   ``e_min`` the best error over all shapes) compete, so two different z_xi blocks merged at one
   frequency stay an exact 2 x 4 grid, not a 2 x 2 x 2 with one merged xi.
   Factors ``z_xi`` and ``z_syn,ab`` are fitted with ``|xi| = |alpha| =
   |beta| = 1`` (SPEC 7): the fit is projected onto the circle and the name
   refused when that misfits; ``fitted`` reports the free fit's modulus.
   A special case (``z_nu=i``, ``z_syn``) is a flag (``special``): the
   factor's ``params`` keep the fitted general-form values (``nu``;
   ``alpha``, ``beta``).
   Blocks larger than :data:`cogo.analysis.factor.factorization.MAX_ORDER` (64), and
   blocks whose search exhausts its bound (``SEARCH_BUDGET`` candidate factor
   sets, see that module), are reported ``non-factorable`` with the reason in
   ``search_note``.
7. **Names** (SPEC 8.6): :mod:`cogo.analysis.naming` (the rules, the block types).
8. **Second opinion**: the eleven monomial sums of SPEC 6 on the block's
   Fourier values (gauge invariant) and ``optimal``: every condition of
   :func:`cogo.analysis.block_extraction.block_conditions` (``|abc - 1|``, the R_c
   sums, the R_n sum, the R_* sums; per block kind) has residual at most
   the block's own tolerance ``opt_tol`` (reported per block):
   ``3 max(e, 64 eps) s`` (:func:`cogo.analysis.verdict.network_verdict.block_tolerance`),
   ``s = sum_j (|a_j|^2 + |b_j|^2) |c_j|`` the gauge-invariant mass of the
   block's cubic monomials, ``e`` the error of its
   reported reading (reconstruction error and naming residuals; 0 when it has
   none), ``eps`` the unit roundoff of the weights' dtype.  So "optimal"
   means "within what the block's own fit and rounding explain": a block
   rescaled by 1.01 (``|abc - 1| = 0.03``, fit error 0) is not optimal.
   ``Settings(opt_tol=t)`` judges every block with one tolerance ``t``
   instead (the rule before 0.2, with ``t`` = :data:`OPT_TOL` = 0.05).
9. **Network verdict** (:mod:`cogo.analysis.verdict.network_verdict`): the loss on all pairs
   and the largest residual of each SPEC 5 condition of the whole network,
   which sees what blocks alone cannot (cross-frequency terms of mixed nodes).

Where the pieces are
--------------------
This module holds the entry points (:func:`classify_block`, :func:`read_network`,
:func:`classify_checkpoint`, :func:`classify_many`, :func:`tolerance_curve`), their
:class:`Settings` and :class:`ClassifyResult`.  Naming a block is :mod:`cogo.analysis.naming`; the
nearest catalogue form :mod:`cogo.analysis.verdict.nearest`; the report of one network
:mod:`cogo.analysis.report.network_report`; the aggregate over checkpoints :mod:`cogo.analysis.report.summary`;
reading many checkpoints (checks, worker processes) :mod:`cogo.analysis.many_networks`.

References
----------
.. [1] Y. Tian, "Composing global optimizers to reasoning tasks via algebraic objects in neural nets" (CoGO), arXiv:2410.01779, 2024.
.. [2] facebookresearch/luckmatters, ssl/real-dataset/cogo/ (the paper's code).
"""
from __future__ import annotations

import functools
import math
import os
import time
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import numpy as np

from cogo import catalogue as _cat
from cogo.algebra.block import block_conditions_many
from cogo.algebra.network import Network
from cogo.algebra.potentials import MONOMIALS, block_sums, block_sums_many
from cogo.analysis.block_extraction import CONDITIONS, DEAD_THRESHOLD, MIX_THRESHOLD, block_conditions, extract_blocks
from cogo.analysis.irreps import IrrepReport, IrrepsResult, irreps_checkpoints, read_irreps
from cogo.analysis.factor.kronecker import FACTOR_TOL
from cogo.analysis.naming import NAME_TOL, name_block, name_blocks
from cogo.analysis.verdict.nearest import nearest_family, nearest_from_readings
from cogo.analysis.report.network_report import BlockReport, NetworkReport
from cogo.analysis.verdict.network_verdict import block_scale, block_tolerance, network_verdict
from cogo.analysis.report.paper_measures import REFERENCE_ORDERS, reference_errors
from cogo.analysis.report.records import to_pandas, to_records
from cogo.analysis.report.render import (render_json, render_json_entry, render_markdown, render_text, to_json_dict,
                                  write_outputs)
from cogo.analysis.verdict.snap import attach_snap
from cogo.analysis.report.summary import summarize
from cogo.analysis.many_networks import Readers, check_paths, load_one, load_sqr, read_many
from cogo.io.arrays import weights_dtype
from cogo.io.layouts import DEFAULT_OPTIONS, ReadOptions
from cogo.io.weights import inert_nodes
from cogo.runtime.errors import CogoError
from cogo.runtime.threads import thread_policy as _thread_policy

__all__ = [
    "DEAD_THRESHOLD",
    "MIX_THRESHOLD",
    "OPT_TOL",
    "PAPER_TOL",
    "Settings",
    "ClassifyResult",
    "classify_block",
    "classify_blocks",
    "read_network",
    "classify_checkpoint",
    "classify_many",
    "tolerance_curve",
    "CURVE_TOLERANCES",
]

#: A fixed tolerance for the optimality conditions of every block (SPEC 5-6), ``Settings(opt_tol=OPT_TOL)``;
#: the default is each block's own tolerance (module docstring, step 8).
OPT_TOL = 0.05
#: Naming and factorization tolerance of the reference classifier (``--preset paper``).
PAPER_TOL = 0.1



@dataclass(frozen=True)
class Settings:
    """Thresholds of the analysis (documented in the module docstring).

    >>> Settings().name_tol, Settings(preset="paper").preset
    (0.05, 'paper')
    """

    dead_threshold: float = DEAD_THRESHOLD
    mix_threshold: float = MIX_THRESHOLD
    factor_tol: float = FACTOR_TOL
    name_tol: float = NAME_TOL
    #: None (default): each block's own tolerance (:func:`cogo.analysis.verdict.network_verdict.block_tolerance`); a number:
    #: one tolerance for every block's residuals (the rule before 0.2: :data:`OPT_TOL`)
    opt_tol: float | None = None
    #: ``"default"`` or ``"paper"`` (:func:`Settings.preset`); the paper preset names a special
    #: case (``z_nu=i``, ``z_syn``) whenever it fits within ``name_tol``.
    preset: str = "default"
    #: False: the block reading only (what the reference classifier computes); the network verdict (loss on
    #: all pairs, R_c, the optimal flag) and the nearest certified optimizer (every distance) are not computed
    verdict: bool = True

    @classmethod
    def preset_named(cls, name: str, **overrides) -> "Settings":
        """Settings of a preset: ``"default"`` (the stricter reading) or ``"paper"`` (the reference's).

        ``paper``: a block is factorable when its relative reconstruction error
        is at most 0.1 (the reference accepts a 2 x q/2 grid when the norm of
        its ratio deviations is at most ``sqrt(3 q) * 0.1``, i.e. 0.1 per entry
        of modulus ~1), and a factor is named when every entry is within about
        0.1 of the form (here: rms 0.1 per entry); a special case is named
        whenever it fits within that tolerance; and, as the reference does,
        every node is divided by ``|a_j b_j c_j|^(1/3)`` before factoring, so
        unequal node amplitudes do not count against a block.  The column definitions of the
        reference are in :func:`cogo.analysis.report.summary.summarize` (``paper_columns``), for both presets.
        """
        if name == "default":
            return cls(**overrides).validate()
        if name == "paper":
            return cls(**{"factor_tol": PAPER_TOL, "name_tol": PAPER_TOL, "preset": "paper", **overrides}).validate()
        raise ValueError(f"unknown preset {name!r}; choose 'default' or 'paper'")

    def validate(self) -> "Settings":
        if self.preset not in ("default", "paper"):
            raise ValueError(f"unknown preset {self.preset!r}; choose 'default' or 'paper'")
        for k, v in self.__dict__.items():
            if k == "preset" or (k == "opt_tol" and v is None):
                continue
            if k == "verdict":
                if not isinstance(v, bool):
                    raise ValueError(f"verdict must be True or False, got {v!r}")
                continue
            if not (isinstance(v, (int, float)) and math.isfinite(v) and 0 < v < 1):
                raise ValueError(f"{k.replace('_', '-')} must be a number strictly between 0 and 1, got {v!r}")
        return self


@dataclass
class ClassifyResult:
    """Reports of many checkpoints and their aggregate (:func:`cogo.analysis.report.summary.summarize`).

    >>> import os, tempfile
    >>> from cogo.solvers.constructions import z_F6, to_checkpoint
    >>> with tempfile.TemporaryDirectory() as d:
    ...     paths = [os.path.join(d, f"f6_{s}.pt") for s in (1, 2)]
    ...     for s, p in zip((1, 2), paths):
    ...         to_checkpoint(z_F6(5, seed=s), p)
    ...     result = classify_many(paths)
    >>> len(result.reports), result.summary["blocks"], result.summary["type_distribution"]["z_nu * z_syn"]["mean"]
    (2, 4, 1.0)
    """

    reports: list
    summary: dict
    settings: Settings
    #: the loaded weights ``(Wa, Wb, Wc, group)`` per checkpoint (for :func:`tolerance_curve`); not serialized
    weights: list = field(default_factory=list, repr=False)
    #: :func:`tolerance_curve` output when computed (``cogo classify --plots``)
    tolerance: dict | None = None
    #: each checkpoint's JSON entry, rendered where it was read (``classify_many(..., render_json=True)``, what
    #: ``cogo classify`` does: a sweep's workers render their own); :func:`render_json` splices them
    json_entries: list | None = field(default=None, repr=False)

    # the reading contract (cogo.analysis.reading.Reading), shared with the irreps reading of SPEC 9
    def to_dict(self) -> dict:
        """Every value as plain JSON (:func:`cogo.analysis.report.render.to_json_dict`)."""
        return to_json_dict(self)

    def render_text(self) -> str:
        """The per-block tables and the summary (:func:`cogo.analysis.report.render.render_text`)."""
        return render_text(self)

    def render_markdown(self) -> str:
        """The same as Markdown (:func:`cogo.analysis.report.render.render_markdown`)."""
        return render_markdown(self)

    def render_json(self) -> str:
        """Strict JSON text (:func:`cogo.analysis.report.render.render_json`)."""
        return render_json(self)

    def write_outputs(self, json_path: Any = None, markdown_path: Any = None, plots_dir: Any = None,
                      force: bool = False) -> list[str]:
        """Check, render and write the requested outputs atomically (:func:`cogo.analysis.report.render.write_outputs`)."""
        return write_outputs(self, json_path, markdown_path, plots_dir, force=force)

    def compute_tolerance_curve(self) -> dict | None:
        """:func:`tolerance_curve` of the loaded weights, kept in ``tolerance`` (once; None without weights)."""
        if self.tolerance is None and self.weights:
            self.tolerance = tolerance_curve(self.weights, settings=self.settings)
        return self.tolerance

    def to_records(self) -> list[dict]:
        """One dict per block, flat (:func:`cogo.analysis.report.records.to_records`; the table of ``cogo classify --csv``)."""
        return to_records(self)

    def to_pandas(self):
        """The table of :meth:`to_records` as a pandas DataFrame (needs pandas; not a dependency of cogo)."""
        return to_pandas(self)


def classify_block(a: Any, b: Any, c: Any, k: int = 0, k_coords: tuple = (), nodes: Sequence[int] | None = None,
                   settings: Settings | None = None, self_conjugate: bool = False,
                   mixed_nodes: int = 0, kind: str | None = None, dtype: str = "float64") -> BlockReport:
    """Factor, name and check one block; with ``nearest`` and ``amplitude_spread`` (near-miss diagnostics).

    ``nearest``: ``{type, distance, params, method}``.  For blocks of order
    2, 3, 4 and 6 (the catalogue's families): :func:`cogo.analysis.verdict.nearest.nearest_family`, every
    family fitted directly to the block (``method = "direct fit"``), unless
    the reading already names the block a family of its order within
    :data:`cogo.analysis.verdict.nearest.NEAREST_FROM_READING` (default preset): then
    that family at the reading's parameters, its distance the direct fit's
    objective there (``"kronecker"``, :func:`cogo.analysis.verdict.nearest.nearest_from_reading`).  For
    other orders: a block typed as a catalogue product gets its own type,
    ``distance`` = the larger of its reconstruction error and the factors'
    naming residuals, and its factors' parameters (``"kronecker"``); any other
    block ``None`` (``"none"``).

    Examples
    --------
    >>> from cogo.catalogue.partial import z_nu_i, z_syn
    >>> x = 6 ** (-1 / 3) * (z_nu_i() * z_syn())        # an order-6 block (SPEC 7.1)
    >>> b = classify_block(x.a, x.b, x.c, k=1)
    >>> b.type, [f["name"] for f in b.factors], b.shape, round(b.error, 9), b.optimal
    ('z_nu * z_syn', ['z_nu=i', 'z_syn'], (2, 3), 0.0, True)
    >>> b.nearest["type"], round(b.nearest["distance"], 9)
    ('z_nu * z_syn', 0.0)
    """
    return classify_blocks([dict(a=a, b=b, c=c, k=k, k_coords=k_coords, nodes=nodes, self_conjugate=self_conjugate,
                                 mixed_nodes=mixed_nodes, kind=kind)], settings, dtype)[0]


def classify_blocks(blocks: Sequence[dict], settings: Settings | None = None, dtype: str = "float64") -> list[BlockReport]:
    """:func:`classify_block` of every block of a network, the catalogue fits of all their factors at once.

    ``blocks``: one dict of :func:`classify_block`'s block arguments each (``a``, ``b``, ``c`` and optionally
    ``k``, ``k_coords``, ``nodes``, ``self_conjugate``, ``mixed_nodes``, ``kind``).  The answers are
    :func:`classify_block`'s, block by block (:func:`cogo.analysis.naming.name_blocks`).
    """
    st = settings or Settings()
    items = [_block_report(**spec, **pre) for spec, pre in zip(blocks, _block_sums_of(blocks))]
    name_blocks(items, st)
    reports, xs = [], []
    for spec, (rep, a, b, c) in zip(blocks, items):
        _optimality_flag(rep, a, b, c, st, dtype)
        x = np.stack([a, b, c])
        if x.shape[1]:
            amp = np.abs(x[0] * x[1] * x[2])
            rep.amplitude_spread = float((amp.max() - amp.min()) / amp.mean()) if amp.mean() > 0 else None
        reports.append(rep)
        xs.append(x)
    # the paper table's error by the reference's definition (cogo.analysis.report.paper_measures), every block of 4 or 6 nodes
    ref = [i for i, rep in enumerate(reports) if rep.order in REFERENCE_ORDERS]
    for i, e in zip(ref, reference_errors([xs[i] for i in ref])):
        reports[i].reference_err = e
    # the nearest form: a block read exactly as a family of its order is its own (cogo.analysis.verdict.nearest), every such
    # block of the network at once; else the direct fit
    forms = _cat.nearest_forms()
    near = [i for i, rep in enumerate(reports) if rep.order in forms]
    for i, got in zip(near, nearest_from_readings([(reports[i], xs[i]) for i in near], st.preset)):
        reports[i].nearest = got or nearest_family(blocks[i]["a"], blocks[i]["b"], blocks[i]["c"])
    for rep in reports:
        if rep.order in forms:
            continue
        if _is_catalogue(rep.type):
            rep.nearest = _nearest_of(rep)
        else:
            rep.nearest = {"type": None, "distance": None, "params": [], "method": "none"}
    return reports


def _is_catalogue(t: str) -> bool:
    return t not in ("other factorable", "non-factorable")


def _nearest_of(rep: BlockReport) -> dict:
    res = [f["residual"] for f in rep.factors if f.get("residual") is not None]
    dist = max([rep.error or 0.0] + res)
    return {"type": rep.type, "distance": float(dist),
            "params": [{"name": f["name"], **f["params"]} for f in rep.factors], "method": "kronecker"}


def _block_sums_of(blocks: Sequence[dict]) -> list[dict]:
    """The monomial sums and SPEC 6 conditions of every block of ``blocks`` (``classify_blocks``' dicts), the blocks of
    one order and kind at once (:func:`cogo.algebra.potentials.block_sums_many`,
    :func:`cogo.algebra.block.block_conditions_many`: each block's values as alone); ``{}`` for a block of no node."""
    out: list = [{} for _ in blocks]
    groups: dict = {}
    for i, spec in enumerate(blocks):
        x = [np.asarray(spec[p], dtype=np.complex128).reshape(-1) for p in "abc"]
        if len(x[0]) and len(x[0]) == len(x[1]) == len(x[2]):
            kind = spec.get("kind") or ("self-conjugate" if spec.get("self_conjugate") else "generic")
            groups.setdefault((len(x[0]), kind), []).append((i, x))
    for (_, kind), members in groups.items():
        A, B, C = (np.stack([x[p] for _, x in members]) for p in range(3))
        sums = {k: v.tolist() for k, v in block_sums_many(A, B, C).items()}
        for j, ((i, _), res) in enumerate(zip(members, block_conditions_many(A, B, C, kind))):
            out[i] = {"sums": {k: v[j] for k, v in sums.items()}, "residuals": res}
    return out


def _block_report(a: Any, b: Any, c: Any, k: int = 0, k_coords: tuple = (), nodes: Sequence[int] | None = None,
                  self_conjugate: bool = False, mixed_nodes: int = 0, kind: str | None = None,
                  sums: dict | None = None, residuals: dict | None = None) -> tuple:
    """The report of one block ``(a, b, c)`` at frequency ``k`` before it is read: its sums, its SPEC 6 conditions
    (``kind``: ``"generic"``, ``"quarter"``, ``"self-conjugate"``, :func:`cogo.analysis.block_extraction.block_kind`;
    ``self_conjugate=True`` is ``kind="self-conjugate"``) and ``r_kkk``; returns ``(rep, a, b, c)``, the values complex.
    ``sums``, ``residuals``: the block's :func:`cogo.algebra.potentials.block_sums` and
    :func:`cogo.analysis.block_extraction.block_conditions` when already computed (:func:`_block_sums_of`)."""
    kind = kind or ("self-conjugate" if self_conjugate else "generic")
    self_conjugate = kind == "self-conjugate"
    a, b, c = (np.asarray(v, dtype=np.complex128).reshape(-1) for v in (a, b, c))
    q = len(a)
    if sums is None:
        sums = block_sums(a, b, c) if q else {k_: 0j for k_ in list(MONOMIALS) + ["|a|^2 c + |b|^2 c"]}
    r = complex(sums["abc"]) if q else 0j  # r_kkk = sum_j a_j b_j c_j, the sum "abc"
    if residuals is None:
        residuals = block_conditions(a, b, c, kind=kind) if q else {}
    rep = BlockReport(k=int(k), k_coords=tuple(k_coords), order=q, nodes=list(nodes if nodes is not None else range(q)),
                      type="non-factorable", factors=[], error=None, shape=None, factorable=False,
                      optimal=False, failed_conditions=list(CONDITIONS),
                      r_kkk=r, sums=sums, mixed_nodes=int(mixed_nodes), self_conjugate=bool(self_conjugate),
                      kind=kind, residuals=residuals)
    return rep, a, b, c


def _optimality_flag(rep: BlockReport, a: np.ndarray, b: np.ndarray, c: np.ndarray, st: Settings, dtype: str) -> None:
    """Set ``optimal``, ``failed_conditions`` and ``opt_tol`` of a read block (module docstring, step 8).

    The tolerance is ``settings.opt_tol`` when given, else
    :func:`cogo.analysis.verdict.network_verdict.block_tolerance` of the block's scale, the
    error of its reported reading (the grid's reconstruction error and its
    factors' naming residuals; 0 for a block with no reading) and the weights'
    dtype: a block is optimal on its own only as far as its own fit and the
    rounding of its weights can explain its residuals.
    """

    if not rep.order:
        return
    if st.opt_tol is not None:
        tol = float(st.opt_tol)
    else:
        fit = max([rep.error or 0.0] + [f["residual"] for f in rep.factors if f.get("residual") is not None]) \
            if rep.factors else 0.0
        tol = block_tolerance(block_scale(a, b, c), fit, dtype)
    rep.opt_tol = tol
    rep.failed_conditions = [name for name in CONDITIONS if rep.residuals[name] > tol]
    rep.optimal = not rep.failed_conditions


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def read_network(Wa: Any, Wb: Any, Wc: Any, group: Any = None, settings: Settings | None = None,
                 path: str = "", meta: dict | None = None, with_verdict: bool = True,
                 dtype: str | None = None) -> NetworkReport:
    """Analyse a 2-layer quadratic network from its real weights (SPEC 8; steps in the module docstring).

    ``Wa``, ``Wb``: (q, n_G); ``Wc``: (n_G, q); numpy arrays or torch tensors.

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F46
    >>> Wa, Wb, Wc = z_F46(7).to_weights(real=True)    # z_F4/6 (SPEC 7.3) in real space
    >>> rep = read_network(Wa, Wb, Wc, group=7)
    >>> [(b.k, b.order, b.type) for b in rep.blocks]
    [(1, 6, 'z_nu * z_syn'), (2, 4, 'z_nu=i * z_xi'), (3, 4, 'z_nu=i * z_xi')]
    """
    t0 = time.perf_counter()
    st = (settings or Settings()).validate()
    with_verdict = with_verdict and st.verdict
    dtype = dtype or weights_dtype(Wa, Wb, Wc)  # the file's dtype when read from one (Checkpoint.dtype)
    # nodes that contribute exactly nothing (zero inputs, or zero outputs) are dead under every rule: they are
    # dropped before the Fourier transform (3 x n x q complex) and the verdict, and reported as dead below
    hidden = int(np.shape(Wa)[0])
    W0 = (Wa, Wb, Wc)  # every node: the distance to the snapped optimizer counts the dropped ones too
    inert = inert_nodes(Wa, Wb, Wc, keep_inputs=st.dead_threshold == 0.0)
    keep = np.flatnonzero(~inert)
    if len(keep) < hidden:
        Wa, Wb, Wc = Wa[keep], Wb[keep], Wc[:, keep]
    net = Network.from_weights(Wa, Wb, Wc, group)
    G = net.group
    split = extract_blocks(net, dead_threshold=st.dead_threshold, mix_threshold=st.mix_threshold)
    blocks = classify_blocks([dict(a=bl.a, b=bl.b, c=bl.c, k=bl.k, k_coords=bl.k_coords, nodes=keep[bl.nodes].tolist(),
                                   kind=bl.kind, mixed_nodes=int(bl.mixed.sum())) for bl in split.blocks],
                             settings=st, dtype=dtype)
    verdict = None
    if with_verdict:
        verdict = network_verdict(net, Wa=Wa, Wb=Wb, Wc=Wc, group=G, tol=st.opt_tol, split=split, dtype=dtype,
                                  block_reports=blocks)  # each block's conditions and flags, computed once
        verdict.hidden = hidden
        if not len(keep):
            verdict.notes.insert(0, f"no live node: all {hidden} hidden nodes contribute exactly nothing")
    node_frequency = np.full(hidden, -1, dtype=np.int64)
    node_frequency[keep] = split.node_frequency
    rep = NetworkReport(group=G, hidden=hidden, live_nodes=split.live_nodes, dead_nodes=hidden - split.live_nodes,
                        zero_frequency_nodes=split.zero_frequency_nodes, mixed_nodes=split.mixed_nodes,
                        node_frequency=node_frequency.tolist(), blocks=blocks, settings=st, path=str(path),
                        meta=dict(meta or {}), seconds=time.perf_counter() - t0, verdict=verdict)
    if with_verdict:  # the nearest certified optimizer: each block's distance (what verify --checkpoint reports)
        attach_snap(rep, *W0, z=net.z if len(keep) == hidden else None)  # every node kept: the same transform
        rep.seconds = time.perf_counter() - t0
    return rep


_META_KEYS = ("seed", "weight_decay", "hidden", "lr", "epochs", "optimizer", "loss", "construction", "name",
              "layout", "activation")


def _plain_meta(meta: dict) -> dict:
    out = {}
    for k in _META_KEYS:
        v = meta.get(k)
        if isinstance(v, (bool, int, float, str)) and not (isinstance(v, float) and not math.isfinite(v)):
            out[k] = v
    fin = meta.get("final")
    if isinstance(fin, dict):
        out["final"] = {k: v for k, v in fin.items()
                        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)}
    return out


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def classify_checkpoint(path: str | os.PathLike, group: Any = None,
                        settings: Settings | None = None) -> "NetworkReport | IrrepReport":
    """Load a checkpoint (``.pt`` reference layout or ``.npz``, weights only) and analyse it.

    Returns a :class:`cogo.analysis.report.network_report.NetworkReport` (the block reading, SPEC 8) for an
    Abelian group and a :class:`cogo.analysis.irreps.IrrepReport` (SPEC 9) otherwise; both are
    :class:`cogo.analysis.reading.Report`.

    Raises :class:`cogo.io.file_formats.CheckpointError` (a ValueError, one line)
    for a missing, malformed, hostile or inconsistent file.

    Examples
    --------
    >>> import os, tempfile
    >>> from cogo.solvers.constructions import z_F6, to_checkpoint
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "f6.pt")
    ...     to_checkpoint(z_F6(5), path)
    ...     rep = classify_checkpoint(path)
    >>> str(rep.group), [b.type for b in rep.blocks]
    ('Z_5', ['z_nu * z_syn', 'z_nu * z_syn'])
    >>> classify_checkpoint("no_such_file.pt")
    Traceback (most recent call last):
    ...
    cogo.io.file_formats.CheckpointError: ...
    """
    w = load_one(path, group)  # a path, or a Checkpoint already read
    if w.group.as_product is None:  # irreps reading (SPEC 9); the catalogue needs Z_d1 x ... x Z_dn coordinates
        return read_irreps(w.Wa, w.Wb, w.Wc, w.group, dead_threshold=(settings or Settings()).dead_threshold,
                           path=str(path), meta=_plain_meta(w.meta))
    return read_network(w.Wa, w.Wb, w.Wc, w.group, settings=settings, path=str(path), meta=_plain_meta(w.meta),
                        dtype=w.dtype)


def _read_loaded(w: Any, p: Any, st: Settings) -> NetworkReport:
    """The block reading of one loaded checkpoint; overflowing float arithmetic is refused (one line)."""
    try:
        with np.errstate(over="raise"):
            return read_network(w.Wa, w.Wb, w.Wc, w.group, settings=st, path=str(p), meta=_plain_meta(w.meta),
                                dtype=w.dtype)
    except FloatingPointError as exc:
        raise CogoError(f"{p}: float64 arithmetic overflowed while reading the network ({exc}); "
                        "the weights are too large to analyse") from None


@_thread_policy("classify")  # the thread policy applies from Python too (cogo.runtime.threads)
def classify_many(paths: Sequence[str | os.PathLike], group: Any = None,
                  settings: Settings | None = None, progress: bool = False,
                  on_loaded: Any = None, workers: int = 1,
                  keep_weights: bool = True, sqr_only: bool = False,
                  render_json: bool = False, options: ReadOptions = DEFAULT_OPTIONS) -> "ClassifyResult | IrrepsResult":
    """Check every path, then load and analyse the checkpoints one at a time, and aggregate.

    Returns a :class:`ClassifyResult` (Abelian groups, SPEC 8) or a
    :class:`cogo.analysis.irreps.IrrepsResult` (SPEC 9): both implement
    :class:`cogo.analysis.reading.Reading`.

    Refused (CogoError, one line, before any output is written): the same
    file given twice (it would count twice in the error bars), checkpoints
    of different groups (their statistics are not comparable; classify each
    group separately), a checkpoint whose analysis would not fit in memory
    (:mod:`cogo.runtime.limits`; checked for every path before any array is read),
    and overflowing float arithmetic (an error, not a warning).
    ``progress``: a tqdm bar over the checkpoints.  ``on_loaded(loaded)``:
    called before any analysis with the loaded checkpoints that decide the
    reading (:class:`cogo.io.checkpoint.Checkpoint`; the first one for the
    block reading, whose group every other must share; all for the irreps
    reading), a command's last checks.  ``workers``: processes reading the
    checkpoints (:mod:`cogo.analysis.many_networks`; 1: this process).
    ``keep_weights``: keep every network's weights in the result (for
    :func:`tolerance_curve`); False holds one network's weights at a time.
    ``sqr_only``: a checkpoint whose activation is not ``sqr`` raises
    :class:`cogo.analysis.many_networks.OtherActivation` when it is read (``cogo classify``
    then gives the per-node report of every file).  ``render_json``: each
    checkpoint's JSON entry is rendered where it is read (in its worker), so
    :meth:`ClassifyResult.render_json` only splices (the reports are final once read).  ``options``: how every
    file is read (:func:`cogo.io.layouts.read_options`: ``--keys`` and the like), in the workers too.

    Examples
    --------
    >>> from cogo.solvers.constructions import to_checkpoint, z_F6
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "f6.pt")
    ...     to_checkpoint(z_F6(5), path)
    ...     result = classify_many([path])
    ...     classify_many([path, path])                 # the same file twice is refused
    Traceback (most recent call last):
    ...
    cogo.runtime.errors.CogoError: ... is given twice (as ...); each checkpoint may count only once
    >>> result.summary["checkpoints"], result.summary["order_counts"]
    (1, {'6': 2})
    """
    st = (settings or Settings()).validate()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    paths = list(paths)
    check_paths(paths, group, options)
    readers = Readers(functools.partial(load_sqr if sqr_only else load_one, options=options), _read_loaded, _result,
                      _irreps, render_json_entry if render_json else None)
    return read_many(paths, group, st, readers, progress=progress,
                     on_loaded=on_loaded, workers=workers, keep_weights=keep_weights)


def _result(reports: list, st: Settings, weights: list) -> "ClassifyResult":
    """The aggregate of block readings (:func:`cogo.analysis.report.summary.summarize`)."""
    return ClassifyResult(reports=reports, summary=summarize(reports), settings=st, weights=weights)


def _irreps(loaded: list, paths: list, st: Settings) -> Any:
    """The irreps reading (SPEC 9) of loaded checkpoints of a group given by its Cayley table."""
    return irreps_checkpoints(loaded, paths, dead_threshold=st.dead_threshold, meta_filter=_plain_meta)


#: Tolerances of the tolerance curve (naming and factorization tolerance set together).
CURVE_TOLERANCES = (0.02, 0.035, 0.05, 0.075, 0.1, 0.15, 0.2)


def tolerance_curve(weights: Sequence[tuple], tolerances: Sequence[float] = CURVE_TOLERANCES,
                    settings: Settings | None = None) -> dict:
    """How the block types change with the tolerance: classify again at each ``t`` (``name_tol = factor_tol = t``).

    ``weights``: ``(Wa, Wb, Wc, group)`` per network (``ClassifyResult.weights``).
    Returns ``{"tolerances": [...], "types": {type: [mean fraction per t]},
    "paper_columns": {column: [mean fraction per t]}}``; fractions are of the
    factorable blocks (``types``) and of the factorable order-4/6 blocks
    (``paper_columns``), averaged over the networks.  Cost: one analysis per
    tolerance and network (no network verdict).

    Examples
    --------
    >>> from cogo.solvers.constructions import z_F6
    >>> Wa, Wb, Wc = z_F6(5).to_weights(real=True)
    >>> curve = tolerance_curve([(Wa, Wb, Wc, 5)], tolerances=(0.05, 0.2))
    >>> curve["tolerances"], curve["types"], curve["paper_columns"]["nu*syn"]
    ([0.05, 0.2], {'z_nu * z_syn': [1.0, 1.0]}, [1.0, 1.0])
    """
    st = settings or Settings()
    types: dict = {}
    cols: dict = {c: [] for c in _cat.PAPER_COLUMNS}
    tols = [float(t) for t in tolerances]
    for i, t in enumerate(tols):
        sti = replace(st, name_tol=t, factor_tol=t)
        reps = [read_network(Wa, Wb, Wc, g, settings=sti, with_verdict=False) for Wa, Wb, Wc, g in weights]
        sm = summarize(reps)
        for name, d in sm["type_distribution"].items():
            types.setdefault(name, [0.0] * len(tols))[i] = d["mean"] or 0.0
        for c in _cat.PAPER_COLUMNS:
            cols[c].append(sm["paper_columns"][c]["mean"])
    return {"tolerances": tols, "types": types, "paper_columns": cols}
