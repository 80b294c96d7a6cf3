"""``cogo experiment`` over wide grids: what training selects, run by run, in one tidy table.

A :class:`SweepConfig` is every group x width x activation x optimizer x learning rate x weight decay x seed. A
*cell* is one group x width x activation x optimizer x learning rate: its weight decays and seeds share every shape
and train as one batched program (:func:`cogo.solvers.training.train`), one job of ``--executor``
(:mod:`cogo.runtime.executors`). Each checkpoint is written when its batch ends and reused when the same command
runs again (its metadata must match, :func:`cogo.commands.grid.config.reusable`), so an interrupted sweep resumes
and its table is the same.

Each final network is read once (cached beside the checkpoint, keyed by the file's SHA-256):

* final train/test loss and accuracy (from the checkpoint), and whether the run passes the convergence rule
  (``train_acc >= converged_acc``);
* Chughtai et al.'s key irreps and, for ``Z_p``, Nanda et al.'s key frequencies by their authors' definitions
  (:func:`cogo.dynamics.peers.peer_keys`), as canonical key-set strings ``{1,2}`` (:mod:`cogo.commands.grid.selection_laws`);
* for activation ``sqr`` on an Abelian group, the per-frequency blocks of SPEC 8 at the final checkpoint
  (threshold 0.05; :func:`cogo.dynamics.runs.snapshot_record`): their orders and types, the paper's per-run table
  columns, and with ``--verify`` other than ``none`` the nearest catalogue form and its distance per block.

Layout of the output directory::

    OUT/runs.csv (OUT/runs.parquet when pandas and pyarrow are installed)   one row per run
    OUT/keysets.json                                                        laws and the paper's table per config
    OUT/figures/keysets_chughtai.png  keysets_nanda.png  orders.png
    OUT/models/<cell>/d5_q8_wd0.01_seed1.pt  (+ .reading.json)              checkpoints and cached readings
"""
from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import math
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from cogo.algebra.activations import THEORY
from cogo.algebra.group_parsing import parse_group
from cogo.commands.grid import selection_laws as L
from cogo.io.tables import dumps_json
from cogo.io.outputs import atomic_write, atomic_write_text, check_output_dir
from cogo.runtime.errors import CogoError
from cogo.runtime.executors import run_jobs

__all__ = ["SweepConfig", "load_toml", "RUN_COLUMNS", "run_sweep", "dry_run", "read_table", "write_aggregates", "verification_ok"]

#: Bumped whenever a cached reading would change meaning.
READING_VERSION = "1"
#: The columns of runs.csv, in order.
RUN_COLUMNS = ("run", "group", "group_order", "abelian", "cyclic", "hidden", "activation", "optimizer", "lr",
               "weight_decay", "seed", "epochs", "train_loss", "test_loss", "train_acc", "test_acc", "converged",
               "chughtai_keys", "n_chughtai_keys", "nanda_keys", "n_nanda_keys", "nanda_neurons", "live_nodes",
               "blocks", "block_orders", "block_types", *L.TABLE_COLUMNS, "nearest", "max_nearest_distance",
               "checkpoint")
#: TOML keys (the flags' names, ``-`` or ``_``) and the fields they fill.
TOML_KEYS = {"groups": "groups", "hidden": "hidden", "activation": "activations", "activations": "activations",
             "optimizer": "optimizers", "optimizers": "optimizers", "lr": "lrs", "wd": "weight_decays",
             "weight_decays": "weight_decays", "seeds": "seeds", "epochs": "epochs", "verify": "verify",
             "converged_acc": "converged_acc", "test_fraction": "test_fraction", "loss": "loss", "device": "device",
             "probe_epochs": "probe_epochs", "preset": "preset"}


@dataclass
class SweepConfig:
    """A grid: groups x hidden x activations x optimizers x lrs x weight decays x seeds, with the training settings."""

    groups: Sequence[str] = ("23",)
    hidden: Sequence[int] = (512,)
    activations: Sequence[str] = (THEORY,)
    optimizers: Sequence[str] = ("adam",)
    lrs: Sequence[float] = (0.01,)
    weight_decays: Sequence[float] = (5e-5,)
    seeds: Sequence[int] = (1, 2, 3, 4, 5)
    epochs: int = 10000
    test_fraction: float = 0.1
    loss: str = "mse"
    device: str = "cpu"
    verify: str = "none"
    converged_acc: float = 0.0  # a run counts in the laws iff its final train accuracy >= this (0: every run)
    threads: int | None = None
    probe_epochs: int = 3
    preset: str = "default"  # the block reading: "default" or "paper" (cogo.analysis.classify.Settings.preset_named)
    extra: dict = field(default_factory=dict)  # further TrainConfig fields (batch_size, label_noise, top, ridge)

    def cells(self) -> list[tuple[str, int, str, str, float]]:
        """``(group label, hidden, activation, optimizer, lr)`` of every batched program, in grid order."""
        labels = [parse_group(g).label for g in self.groups]
        return list(itertools.product(labels, self.hidden, self.activations, self.optimizers, self.lrs))

    def runs(self) -> int:
        return len(self.cells()) * len(self.weight_decays) * len(self.seeds)

    def train_config(self, cell: tuple, epochs: int | None = None, log_every: int = 50):
        from cogo.solvers.training_config import TrainConfig  # late: torch

        label, hidden, act, opt, lr = cell
        return TrainConfig(group=label, hidden=int(hidden), lr=float(lr), weight_decay=float(self.weight_decays[0]),
                           epochs=self.epochs if epochs is None else epochs, test_fraction=self.test_fraction,
                           loss=self.loss, optimizer=opt, device=self.device, log_every=log_every, activation=act,
                           **self.extra)

    def validate(self) -> "SweepConfig":
        """Raise CogoError (one line) on any bad value; nothing is trained or written."""
        from cogo.solvers.training import validate_run  # late: torch

        for name, v in (("groups", self.groups), ("hidden", self.hidden), ("activation", self.activations),
                        ("optimizer", self.optimizers), ("lr", self.lrs), ("wd", self.weight_decays),
                        ("seeds", self.seeds)):
            if not v:
                raise CogoError(f"the grid has no {name}: give at least one value")
        for g in self.groups:
            parse_group(g)  # one-line error for an unknown group
        labels = [parse_group(g).label for g in self.groups]
        if len(set(labels)) != len(labels):
            raise CogoError(f"duplicate groups in {list(self.groups)}")
        for name, v in (("hidden", self.hidden), ("activation", self.activations), ("optimizer", self.optimizers),
                        ("lr", self.lrs)):
            if len(set(v)) != len(v):
                raise CogoError(f"duplicate values of {name}: {list(v)}")
        if self.verify not in ("exact", "numeric", "both", "none"):
            raise CogoError(f"verify must be exact, numeric, both or none; got {self.verify!r}")
        if self.preset not in ("default", "paper"):
            raise CogoError(f"preset must be default or paper; got {self.preset!r}")
        if not 0.0 <= float(self.converged_acc) <= 1.0:
            raise CogoError(f"converged_acc must be in [0, 1], got {self.converged_acc!r}")
        for cell in self.cells():
            try:
                validate_run(self.train_config(cell), self.seeds, self.weight_decays)
            except ValueError as exc:
                raise CogoError(" ".join(str(exc).split())) from None
        return self


def load_toml(path: str | os.PathLike) -> dict:
    """The grid of a TOML file, as :class:`SweepConfig` field values (keys as the flags: groups, hidden, activation,
    optimizer, lr, wd, seeds ("1-20" or a list), epochs, verify, converged_acc, test_fraction, loss, device).

    Raises CogoError (one line) for an unreadable file, an unknown key or Python 3.10 without ``tomli``.
    """
    try:
        import tomllib  # late: Python >= 3.11
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib  # late: the 3.10 backport, when installed
        except ModuleNotFoundError:
            raise CogoError("reading a TOML grid needs Python >= 3.11 (tomllib) or the tomli package on 3.10") from None
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise CogoError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CogoError(f"{path} is not valid TOML: {' '.join(str(exc).split())}") from None
    out: dict[str, Any] = {}
    for k, v in data.items():
        key = TOML_KEYS.get(k.replace("-", "_"))
        if key is None:
            raise CogoError(f"{path}: unknown key {k!r} (known: {', '.join(sorted(set(TOML_KEYS)))})")
        if key == "seeds" and isinstance(v, str):
            from cogo.commands._args import parse_seeds  # late: argparse helpers
            try:
                v = parse_seeds(v)
            except Exception as exc:  # noqa: BLE001 - argparse's ArgumentTypeError: one line
                raise CogoError(f"{path}: seeds: {exc}") from None
        if key in ("groups", "hidden", "activations", "optimizers", "lrs", "weight_decays", "seeds"):
            v = [str(x) for x in v] if key == "groups" else (list(v) if isinstance(v, list) else [v])
        out[key] = v
    return out


# --------------------------------------------------------------------------- training
def _cell_dir(out: Path, cell: tuple) -> Path:
    label, hidden, act, opt, lr = cell
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(label))
    return out / "models" / f"d{safe}_q{hidden}_{act}_{opt}_lr{float(lr):g}"


def _ckpt(out: Path, cell: tuple, wd: float, seed: int) -> Path:
    from cogo.io.run_names import checkpoint_name  # late: start-up

    return _cell_dir(out, cell) / checkpoint_name(str(cell[0]).replace("/", "_"), int(cell[1]), wd, seed)


def train_cell(tc, seeds: Sequence[int], wds: Sequence[float], paths: dict, threads: int | None = None) -> list[str]:
    """One job: train ``seeds`` x ``wds`` as one batched program, write the checkpoints named in ``paths``
    (``{(wd, seed): path}``; others trained alongside are not written); returns the paths written."""
    from cogo.io.weights import save_checkpoint  # late: torch
    from cogo.solvers.training import train  # late: torch

    written = []
    for r in train(tc, list(seeds), list(wds), progress=False, threads=threads):
        p = paths.get((float(r.weight_decay), int(r.seed)))
        if p is not None:
            Path(p).parent.mkdir(parents=True, exist_ok=True)
            save_checkpoint(p, r.Wa, r.Wb, r.Wc, r.meta())
            written.append(str(p))
    return written


def _train(cfg: SweepConfig, out: Path, executor: Any, log: Callable) -> None:
    from cogo.commands.grid.config import reusable  # late: torch

    calls, names = [], []
    for cell in cfg.cells():
        todo = {}
        for wd in cfg.weight_decays:
            tc = replace(cfg.train_config(cell), weight_decay=float(wd))
            for s in cfg.seeds:
                p = _ckpt(out, cell, float(wd), int(s))
                if not reusable(p, tc, float(wd), int(s)):
                    todo[(float(wd), int(s))] = str(p)
        name = f"{cell[0]} q={cell[1]} {cell[2]} {cell[3]} lr={float(cell[4]):g}"
        if not todo:
            log(f"  {name}: reusing {len(cfg.weight_decays) * len(cfg.seeds)} trained model(s)")
            continue
        wds = sorted({w for w, _ in todo}, key=list(map(float, cfg.weight_decays)).index)
        seeds = sorted({s for _, s in todo}, key=list(map(int, cfg.seeds)).index)
        calls.append((cfg.train_config(cell), seeds, wds, todo, cfg.threads))
        names.append(f"{name} ({len(todo)} model(s))")

    def finished(i: int, paths: list) -> None:
        log(f"  trained {names[i]}")

    if calls:
        log(f"[train] {len(calls)} batched program(s)")
    run_jobs(executor, train_cell, calls, finished, names=names, log=log)


# --------------------------------------------------------------------------- reading
def _fmt(x: Any) -> Any:
    if x is None:
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float):
        return "" if math.isnan(x) else repr(x)
    return x


def _block_columns(blocks: list, nearest: bool) -> dict:
    """The per-run block columns: orders and types per frequency, the paper's table columns, nearest forms."""
    out: dict[str, Any] = {"blocks": len(blocks),
                           "block_orders": ";".join(f"{b['k']}:{b['order']}" for b in blocks),
                           "block_types": ";".join(f"{b['k']}:{b['type']}" for b in blocks)}
    n = len(blocks)
    out["frac_not_order_4_6"] = sum(b["order"] not in (4, 6) for b in blocks) / n if n else None
    for o in (4, 6):
        bo = [b for b in blocks if b["order"] == o]
        out[f"nonfact_order{o}"] = sum(not b["factorable"] for b in bo) / len(bo) if bo else None
        errs = [float(b["error"]) for b in bo if b.get("error") is not None]
        out[f"error_order{o}"] = sum(errs) / len(errs) if errs else None
    fac = [b for b in blocks if b["factorable"]]
    names = dict(zip(L.PAPER_TYPES, ("type_nu_i_xi", "type_nu_i_synab", "type_nu_syn")))
    for t, col in names.items():
        out[col] = sum(b["type"] == t for b in fac) / len(fac) if fac else None
    out["type_others"] = sum(b["type"] not in names for b in fac) / len(fac) if fac else None
    if nearest:
        near = [(b["k"], (b.get("nearest") or {}).get("type"), (b.get("nearest") or {}).get("distance"))
                for b in blocks]
        out["nearest"] = ";".join(f"{k}:{t}@{d:.6g}" for k, t, d in near if t is not None and d is not None)
        ds = [float(d) for _, t, d in near if t is not None and d is not None]
        out["max_nearest_distance"] = max(ds) if ds else None
    return out


def read_run(path: str | os.PathLike, nearest: bool = False, preset: str = "default") -> dict:
    """The reading of one final checkpoint (the columns of :data:`RUN_COLUMNS` it determines), cached beside it;
    ``preset``: the block reading's settings (``"paper"``: the reference classifier's tolerances)."""
    from cogo.analysis.classify import Settings  # late: the classifier
    from cogo.dynamics.peers import is_cyclic, peer_keys  # late: numpy-heavy
    from cogo.dynamics.runs import snapshot_record  # late: the classifier
    from cogo.io.weights import read_checkpoint  # late: torch

    path = Path(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    cache = path.with_suffix(".reading.json")
    key = f"{READING_VERSION}|{digest}|{nearest}|{preset}"
    if cache.is_file():
        try:
            c = json.loads(cache.read_text())
            if c.get("key") == key:
                return c["row"]
        except (OSError, ValueError, AttributeError):
            pass  # unreadable cache: read again
    w = read_checkpoint(path)
    m = w.meta
    G = parse_group(m["group"])
    act = str(m.get("activation", THEORY))
    fin = m.get("final", {})
    keys = peer_keys(w.Wa, w.Wb, w.Wc, m["group"], activation=act)
    row: dict[str, Any] = {
        "group": G.label, "group_order": G.order, "abelian": G.as_product is not None, "cyclic": is_cyclic(G),
        "hidden": int(m["hidden"]), "activation": act, "optimizer": m["optimizer"], "lr": float(m["lr"]),
        "weight_decay": float(m["weight_decay"]), "seed": int(m["seed"]), "epochs": int(m["epochs"]),
        **{k: (None if fin.get(k) is None else float(fin[k])) for k in ("train_loss", "test_loss", "train_acc",
                                                                          "test_acc")},
        "chughtai_keys": L.keyset_string(keys["chughtai"]), "n_chughtai_keys": len(keys["chughtai"]),
        "nanda_keys": L.keyset_string(keys["nanda"]),
        "n_nanda_keys": None if keys["nanda"] is None else len(keys["nanda"]),
        "nanda_neurons": "" if keys["nanda_neurons"] is None else
        ";".join(f"{k}:{v}" for k, v in keys["nanda_neurons"].items()),
    }
    if act == THEORY and G.as_product is not None:
        rec = snapshot_record(w.Wa, w.Wb, w.Wc, group=m["group"],  # SPEC 8 blocks, threshold 0.05 (MIX_THRESHOLD)
                              settings=Settings.preset_named(preset))
        row["live_nodes"] = rec["live_nodes"]
        row.update(_block_columns(rec["blocks"], nearest))
    atomic_write_text(cache, json.dumps({"key": key, "row": row}) + "\n")
    return row


def _row(reading: dict, cfg: SweepConfig, out: Path, path: Path) -> dict:
    r = {c: None for c in RUN_COLUMNS}
    r.update(reading)
    acc = r.get("train_acc")
    r["converged"] = acc is not None and acc >= float(cfg.converged_acc)
    r["checkpoint"] = os.path.relpath(path, out)
    r["run"] = (f"{r['group']}/q{r['hidden']}/{r['activation']}/{r['optimizer']}/lr{float(r['lr']):g}/"
                f"wd{float(r['weight_decay']):g}/seed{r['seed']}")
    return r


def table_text(rows: Sequence[dict]) -> str:
    """runs.csv's text: a header of :data:`RUN_COLUMNS`, one line per run; floats as ``repr``, None as empty."""
    buf = io.StringIO()
    wr = csv.writer(buf, lineterminator="\n")
    wr.writerow(RUN_COLUMNS)
    for r in rows:
        wr.writerow([_fmt(r.get(c)) for c in RUN_COLUMNS])
    return buf.getvalue()


def read_table(path: str | os.PathLike) -> list[dict]:
    """runs.csv back as a list of dicts of strings (what :mod:`cogo.commands.grid.selection_laws` aggregates)."""
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def write_aggregates(rows: Sequence[dict], out: Path, meta: dict) -> dict:
    """Write OUT/keysets.json and the figures from the table's rows; return the JSON written."""

    configs = L.laws(rows)
    figs = {}
    (out / "figures").mkdir(exist_ok=True)
    for name, fig in (("keysets_chughtai", L.figure_keysets(configs, "chughtai")),
                      ("keysets_nanda", L.figure_keysets(configs, "nanda")), ("orders", L.figure_orders(rows))):
        if fig is None:
            continue
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        with atomic_write(out / "figures" / f"{name}.png", "wb") as fh:
            fh.write(buf.getvalue())
        figs[name] = f"figures/{name}.png"
    doc = {"format": "cogo-keysets/1", **meta, "ci_method": L.CI_METHOD,
           "keys": {"chughtai": "key irreps: logit similarity > 0.05 at the end of training (Chughtai et al. 2023); "
                                "family index as cogo.dynamics.peers",
                    "nanda": "key frequencies of Z_p: the frequencies of the live neurons (Nanda et al. 2023); "
                             "null for other groups"},
           "converged_rule": meta.get("converged_rule"), "configurations": configs,
           "paper_table": {"note": "cyclic groups, activation sqr: mean and standard error (sd/sqrt(runs)) over the "
                                   "converged runs; fractions in [0, 1]", "rows": L.paper_table(rows)},
           "figures": figs}
    atomic_write_text(out / "keysets.json", dumps_json(doc))
    return doc


def run_sweep(cfg: SweepConfig, out: str | os.PathLike, executor: Any = None, log: Callable = print,
              command: str = "") -> list[dict]:
    """Train what is missing, read every run, verify the groups (``cfg.verify``), write runs.csv, keysets.json and
    the figures; return the rows."""

    cfg.validate()
    out = check_output_dir(out)
    t0 = time.perf_counter()
    log(f"[sweep] {cfg.runs()} run(s) in {len(cfg.cells())} batched program(s) -> {out}")
    _train(cfg, out, executor, log)
    log("[read] reading every final network")
    rows = []
    for cell in cfg.cells():
        for wd in cfg.weight_decays:
            for s in cfg.seeds:
                p = _ckpt(out, cell, float(wd), int(s))
                rows.append(_row(read_run(p, nearest=cfg.verify != "none", preset=cfg.preset), cfg, out, p))
    atomic_write_text(out / "runs.csv", table_text(rows))
    try:
        import pandas as pd  # late, optional: Parquet beside the CSV
        import pyarrow  # noqa: F401  # late, optional
    except ImportError:
        pass
    else:
        pd.read_csv(out / "runs.csv").to_parquet(out / "runs.parquet", index=False)
    verification = _verify(cfg, log)
    write_aggregates(read_table(out / "runs.csv"), out,
                     {"command": command, "runs": len(rows), "converged_rule": f"train_acc >= {cfg.converged_acc:g}",
                      "preset": cfg.preset,
                      "verification": verification})
    log(f"[done] {len(rows)} run(s) in {time.perf_counter() - t0:.1f} s: {out / 'runs.csv'}, "
        f"{out / 'keysets.json'}, {out / 'figures'}")
    return rows


def _verify(cfg: SweepConfig, log: Callable) -> dict:
    """With ``--verify`` other than none: the theorem checks (SPEC 3-7) of each Abelian group, which certify the
    catalogue whose nearest forms the table names; ``{group: {"passed", "failed", "failures"}}``."""
    if cfg.verify == "none":
        return {}
    from cogo.proofs.registry import run_all  # late: sympy (--verify none needs no exact arithmetic)

    out = {}
    for g in cfg.groups:
        G = parse_group(g)
        if G.as_product is None:
            continue
        log(f"[verify] {G.label} ({cfg.verify})")
        res = [r.to_dict() for r in run_all(G, cfg.verify)]
        bad = [str(r.get("name", r.get("theorem", "?"))) for r in res if not r["passed"]]
        out[G.label] = {"passed": len(res) - len(bad), "failed": len(bad), "failures": bad}
    return out


def verification_ok(doc: dict) -> bool:
    """True when every theorem check of ``keysets.json`` passed (or none was run)."""
    return all(not v["failed"] for v in (doc.get("verification") or {}).values())


# --------------------------------------------------------------------------- dry run
def _timed(tc, models: int, threads: int | None) -> float:
    from cogo.solvers.training import train  # late: torch

    t = time.perf_counter()
    train(tc, list(range(1, models + 1)), [tc.weight_decay], progress=False, threads=threads)
    return time.perf_counter() - t


def dry_run(cfg: SweepConfig, log: Callable = print) -> dict:
    """List the runs (per batched program) and predict the training time from a short probe; write nothing.

    The probe trains one model of each distinct shape (group, width, activation, optimizer) for ``probe_epochs``
    and ``2 probe_epochs`` epochs; the difference is the time of one model-epoch and the rest the set-up. A
    program of ``m`` models and ``E`` epochs is predicted at ``setup + m E t_epoch`` (linear in the models: on a
    CPU about right, on a GPU an upper bound). Reading the networks is not included.
    """
    cfg.validate()
    e = max(1, int(cfg.probe_epochs))
    probes: dict[tuple, tuple[float, float]] = {}
    m = len(cfg.weight_decays) * len(cfg.seeds)
    total, lines = 0.0, []
    t_probe = time.perf_counter()
    first = cfg.cells()[0]
    _timed(cfg.train_config(first, epochs=1, log_every=1), 1, cfg.threads)  # warm-up: first-call costs
    for cell in cfg.cells():
        shape = cell[:4]
        if shape not in probes:
            short = _timed(cfg.train_config(cell, epochs=e, log_every=e), 1, cfg.threads)
            long = _timed(cfg.train_config(cell, epochs=2 * e, log_every=2 * e), 1, cfg.threads)
            per = max(long - short, 1e-6) / e
            probes[shape] = (per, max(0.0, short - per * e))
        per, setup = probes[shape]
        pred = setup + m * cfg.epochs * per
        total += pred
        wds = " ".join(f"{float(w):g}" for w in cfg.weight_decays)
        lines.append(f"  {cell[0]} q={cell[1]} {cell[2]} {cell[3]} lr={float(cell[4]):g}: wd {wds} x seeds "
                     f"{_seeds(cfg.seeds)} = {m} runs, {per * 1e3:.3g} ms per model-epoch, predicted {pred:.0f} s")
    log(f"[dry run] {cfg.runs()} runs in {len(cfg.cells())} batched program(s) of {m} models, {cfg.epochs} epochs "
        f"each, on {cfg.device}:")
    for line in lines:
        log(line)
    log(f"predicted training time: {total:.0f} s ({total / 3600:.2f} h) on {cfg.device}, from a probe of "
        f"{e} and {2 * e} epochs of one model per shape ({time.perf_counter() - t_probe:.1f} s); nothing written")
    return {"runs": cfg.runs(), "programs": len(cfg.cells()), "predicted_s": total}


def _seeds(seeds: Sequence[int]) -> str:
    s = sorted(int(x) for x in seeds)
    return f"{s[0]}-{s[-1]}" if s == list(range(s[0], s[-1] + 1)) and len(s) > 1 else ",".join(map(str, s))
