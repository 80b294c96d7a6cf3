"""Tests of training snapshots and of cogo.dynamics.runs (reading a training run over time)."""
from __future__ import annotations

import json
import numpy as np
import pytest
import torch

from cogo.solvers.batch import init_weights
from cogo.solvers.training import train
from cogo.solvers.training_config import TrainConfig


# ---------------------------------------------------------------- issue 10: snapshots are copies
@pytest.mark.parametrize("seeds", [[3], [3, 4]])
def test_snapshots_are_copies_not_views_of_the_live_weights(seeds):
    """Every snapshot holds the weights of its own epoch: the first one is the initialization.

    Old bug: ``_Batch.weights()`` returned ``P[2].contiguous().cpu()``, a view of the
    live ``W_c`` on the CPU, so every snapshot's ``layerc.weight`` was the final ``W_c``.
    """
    cfg = TrainConfig(group="7", hidden=8, epochs=6, log_every=3, snapshot_every=3, weight_decay=1e-3)
    for r in train(cfg, seeds, progress=False):
        s = r.snapshots
        assert s["epoch"] == [0, 3, 6]
        Wa0, Wb0, Wc0 = init_weights(8, 7, r.seed)
        for key, w0, wf in zip(("layera.weight", "layerb.weight", "layerc.weight"), (Wa0, Wb0, Wc0),
                               (r.Wa, r.Wb, r.Wc)):
            assert torch.equal(s[key][0], w0), key
            assert torch.equal(s[key][-1], wf), key
            assert not torch.equal(s[key][0], s[key][1]), key
            assert not torch.equal(s[key][1], s[key][2]), key


# ---------------------------------------------------------------- streamed snapshot storage
def test_streamed_snapshots_round_trip_and_match_in_memory(tmp_path):
    from cogo.io.snapshots import open_snapshots
    from cogo.solvers.training_results import save_run

    cfg = TrainConfig(group="7", hidden=8, epochs=6, log_every=3, snapshot_every=3, weight_decay=1e-3)
    mem = train(cfg, [5], progress=False)[0]
    streamed = train(cfg, [5], progress=False, snapshot_dir=tmp_path)[0]
    li2 = streamed.snapshots.pop("li2")  # the Li^2 statistics at the snapshot epochs (tests/dynamics/test_progress.py)
    assert li2["epoch"] == [0, 3, 6] and li2 == mem.snapshots["li2"]  # the same, streamed or in memory
    assert streamed.snapshots == {"format": "cogo-snapshots/1", "dir": "d7_q8_wd0.001_seed5.snapshots",
                                  "epoch": [0, 3, 6]}
    d = tmp_path / "d7_q8_wd0.001_seed5.snapshots"
    assert sorted(p.name for p in d.iterdir()) == ["epoch_0000000.safetensors", "epoch_0000003.safetensors",
                                                  "epoch_0000006.safetensors", "index.json"]
    path = save_run([streamed], tmp_path)[0]
    ck = torch.load(path, weights_only=True)
    assert ck["meta"]["snapshots"]["dir"] == d.name
    snaps = open_snapshots(path)
    assert snaps.epochs == [0, 3, 6] and snaps.files is not None
    for i in range(3):
        for j, key in enumerate(("layera.weight", "layerb.weight", "layerc.weight")):
            np.testing.assert_array_equal(snaps.load(i)[j], mem.snapshots[key][i].double().numpy())
    # the older in-memory layout is read too, with the same values
    old = save_run([mem], tmp_path / "old")[0]
    snaps_old = open_snapshots(old)
    assert snaps_old.arrays is not None
    for (i1, *w1), (i2, *w2) in zip(snaps.chunks(2), snaps_old.chunks(2)):
        assert i1 == i2
        for x, y in zip(w1, w2):
            np.testing.assert_array_equal(x, y)


def test_hostile_snapshot_storage_is_refused(tmp_path):
    from cogo.io.file_formats import CheckpointError
    from cogo.io.weights import save_checkpoint
    from cogo.io.snapshots import open_snapshots
    from cogo.solvers.training_results import save_run

    cfg = TrainConfig(group="5", hidden=4, epochs=2, log_every=1, snapshot_every=1)
    r = train(cfg, [1], progress=False, snapshot_dir=tmp_path)[0]
    path = save_run([r], tmp_path)[0]
    meta = torch.load(path, weights_only=True)["meta"]
    # a directory name that escapes the checkpoint's folder
    bad = dict(meta, snapshots=dict(meta["snapshots"], dir="../x.snapshots"))
    save_checkpoint(tmp_path / "bad.pt", r.Wa, r.Wb, r.Wc, bad)
    with pytest.raises(CheckpointError, match="bad snapshot directory"):
        open_snapshots(tmp_path / "bad.pt")
    # no snapshots at all
    save_checkpoint(tmp_path / "none.pt", r.Wa, r.Wb, r.Wc, {"group": "5"})
    with pytest.raises(CheckpointError, match="no snapshots"):
        open_snapshots(tmp_path / "none.pt")
    snaps = open_snapshots(path)
    # a corrupt file, and one larger than three float64 arrays plus the header bound
    f = snaps.files[1]
    with open(f, "wb") as fh:
        fh.write(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}......")
    with pytest.raises(CheckpointError, match="not a readable safetensors"):
        snaps.load(1)
    with open(f, "wb") as fh:
        fh.write(b"\0" * (3 * 5 * 4 * 8 + (1 << 20) + 1))
    with pytest.raises(CheckpointError, match="exceeds"):
        snaps.load(1)
    snaps.load(0)


# ---------------------------------------------------------------- reading a run over time
def _fake_run(tmp_path, group="11", ts=(0.0, 0.3, 0.6, 0.9, 1.0), seed=0):
    """A run whose snapshots move from noise to z_F4/6 (SPEC 7.3): W_t = t W + (1 - t) noise."""
    from cogo.io.weights import save_checkpoint
    from cogo.io.snapshots import SnapshotWriter
    from cogo.solvers.constructions import construct

    net, _ = construct("z_F46", group)
    W = net.to_weights(real=True)
    q, n = W[0].shape
    rng = np.random.default_rng(seed)
    noise = [rng.normal(size=w.shape) * 0.3 for w in W]
    epochs = [10 * i for i in range(len(ts))]
    name = f"run{seed}"
    wr = SnapshotWriter(tmp_path / f"{name}.snapshots", group, n, q, "float64")
    for e, t in zip(epochs, ts):
        wr.write(e, *(t * w + (1 - t) * x for w, x in zip(W, noise)))
    hist = {"epoch": epochs, "train_loss": [1.0] * len(ts), "test_loss": [1.0] * len(ts),
            "train_acc": [0.0] * (len(ts) - 1) + [1.0], "test_acc": [0.0] * (len(ts) - 1) + [1.0]}
    path = tmp_path / f"{name}.pt"
    save_checkpoint(path, *W, {"group": group, "seed": seed, "history": hist,
                               "snapshots": {"format": "cogo-snapshots/1", "dir": wr.dir.name, "epoch": epochs}})
    return path, W


def test_last_snapshot_equals_cogo_classify_of_the_final_checkpoint(tmp_path, capsys):
    import json

    from cogo.dynamics.runs import analyse_run
    from cogo.cli import main

    path, _ = _fake_run(tmp_path)
    run = analyse_run(path, workers=1)
    assert main(["classify", str(path), "--json", str(tmp_path / "c.json")]) == 0
    ref = json.loads((tmp_path / "c.json").read_text())["checkpoints"][0]
    last = run["snapshots"][-1]
    assert last["epoch"] == 40
    assert last["live_nodes"] == ref["live_nodes"] == 22
    assert [(b["k"], b["order"], b["type"]) for b in last["blocks"]] == \
        [(b["k"], b["order"], b["type"]) for b in ref["blocks"]]
    assert sorted(b["type"] for b in last["blocks"]) == ["z_nu * z_syn"] + ["z_nu=i * z_xi"] * 4
    for mine, theirs in zip(last["blocks"], ref["blocks"]):
        assert mine["r_kkk"] == pytest.approx(theirs["r_kkk"], abs=1e-12)
        assert mine["optimal"] == theirs["optimal"] and mine["factorable"] == theirs["factorable"]
        assert mine["error"] == pytest.approx(theirs["error"], abs=1e-12)
        s = theirs["sums"]
        mod = lambda key: abs(complex(*s[key]))
        assert mine["R_n"] == pytest.approx(mod("|a|^2 c + |b|^2 c"), abs=1e-12)
        assert mine["R_c"] == pytest.approx(max(mod(k) for k in ("conj(a) b c", "a conj(b) c", "a b conj(c)",
                                                                 "conj(a) conj(b) c")), abs=1e-12)
        assert mine["R_*"] == pytest.approx(max(mod(k) for k in ("a^2 c", "b^2 c", "conj(a)^2 c",
                                                                 "conj(b)^2 c")), abs=1e-12)
    # the first snapshot is noise: no block of the final catalogue types yet
    assert not any(b["type"] in ("z_nu * z_syn", "z_nu=i * z_xi") for b in run["snapshots"][0]["blocks"])
    # two worker processes give the same records
    assert analyse_run(path, workers=2)["snapshots"] == run["snapshots"]
    # blocks above max_order are measured, not factored; the measurements agree
    small = analyse_run(path, workers=1, max_order=4)["snapshots"][-1]["blocks"]
    assert [b["type"] for b in small] == ["not factored (large)"] + ["z_nu=i * z_xi"] * 4
    assert small[0]["order"] == 6 and small[0]["error"] is None
    for key in ("r_kkk", "R_c", "R_n", "R_*"):
        assert small[0][key] == pytest.approx(last["blocks"][0][key], abs=1e-12)


def test_frequency_potentials_are_the_network_potentials(tmp_path):
    """Checked against the full tensors r[k1,k2,k] and r_p[k1,k2,k] of cogo.algebra.potentials (SPEC 4)."""
    from cogo.algebra import Network
    from cogo.algebra.potentials import potentials, self_potentials
    from cogo.dynamics.runs import frequency_potentials

    rng = np.random.default_rng(3)
    S, q, n = 3, 6, 7
    Wa, Wb, Wc = rng.normal(size=(S, q, n)), rng.normal(size=(S, q, n)), rng.normal(size=(S, n, q))
    fp = frequency_potentials(Wa, Wb, Wc, n)
    assert list(fp["k"]) == [1, 2, 3]
    for s in range(S):
        net = Network.from_weights(Wa[s], Wb[s], Wc[s], n)
        r, ra, rb = potentials(net), self_potentials(net, "a"), self_potentials(net, "b")
        for i, k in enumerate((1, 2, 3)):
            m = (-k) % n
            assert fp["r_kkk"][s, i] == pytest.approx(r[k, k, k], abs=1e-12)
            assert fp["R_c"][s, i] == pytest.approx(max(abs(r[m, k, k]), abs(r[k, m, k]), abs(r[k, k, m]),
                                                        abs(r[m, m, k])), abs=1e-12)
            assert fp["R_n"][s, i] == pytest.approx(abs(ra[k, m, k] + rb[k, m, k]), abs=1e-12)
            assert fp["R_*"][s, i] == pytest.approx(max(abs(ra[k, k, k]), abs(rb[k, k, k]), abs(ra[m, m, k]),
                                                        abs(rb[m, m, k])), abs=1e-12)


def _blocks(*kt):
    return [{"k": k, "type": t, "order": 4} for k, t in kt]


def test_formation_and_aggregate_by_hand():
    from cogo.dynamics.runs import aggregate, formation

    A, X = "z_nu=i * z_xi", "non-factorable"
    run1 = {"snapshots": [{"epoch": 0, "blocks": _blocks((1, X), (2, X))},
                          {"epoch": 100, "blocks": _blocks((1, A), (2, X))},
                          {"epoch": 200, "blocks": _blocks((1, X), (2, A))},   # k=1 leaves its final type
                          {"epoch": 300, "blocks": _blocks((1, A), (2, A))}],
            "history": {"epoch": [0, 100, 200, 300], "test_acc": [0.0, 0.5, 0.995, 1.0]}}
    run1["formation"] = formation(run1)
    assert run1["formation"] == [{"k": 1, "type": A, "order": 4, "settled": 300, "first": 100},
                                 {"k": 2, "type": A, "order": 4, "settled": 200, "first": 200}]
    run2 = {"snapshots": [{"epoch": 0, "blocks": _blocks((3, X))}, {"epoch": 100, "blocks": _blocks((3, A))}],
            "history": {"epoch": [0, 100], "test_acc": [0.0, 1.0]}}
    run2["formation"] = formation(run2)
    agg = aggregate([run1, run2])
    t = agg["types"][A]
    assert t["first_appearance"]["mean"] == 100 and t["first_appearance"]["se"] == 0 and t["first_appearance"]["n"] == 2
    # settled: run1 mean(300, 200) = 250, run2 100 -> mean 175, s.e. = std([250, 100], ddof=1) / sqrt(2) = 75
    assert t["settled"]["mean"] == 175 and t["settled"]["se"] == pytest.approx(75.0)
    assert agg["types"][X]["settled"]["n"] == 0 and agg["types"][X]["first_appearance"]["mean"] == 0
    assert agg["grokking_epoch"]["mean"] == 150


def test_reading_is_resumable_from_the_cache(tmp_path):
    from cogo.dynamics.runs import analyse_run

    path, _ = _fake_run(tmp_path)
    cache = tmp_path / "cache"
    first = analyse_run(path, cache_dir=cache, workers=1)
    assert first["cached_snapshots"] == 0 and len(list(cache.glob("*.json"))) == 5
    assert (cache / "progress").is_dir()  # the progress measures' own cache (test below)
    # a corrupt cache entry is recomputed, the others are reused
    victim = sorted(cache.glob("*.json"))[0]
    victim.write_text("{broken")
    again = analyse_run(path, cache_dir=cache, workers=1)
    assert again["cached_snapshots"] == 4 and again["snapshots"] == first["snapshots"]
    assert analyse_run(path, cache_dir=cache, workers=1)["cached_snapshots"] == 5


@pytest.mark.slow  # about 15 s end to end: `cogo dynamics` on the command line is also in test_user_contracts.py
def test_cli_dynamics_writes_json_and_figures(tmp_path, capsys):
    import json

    from cogo.cli import main

    p1, _ = _fake_run(tmp_path, seed=1)
    p2, _ = _fake_run(tmp_path, seed=2)
    out = tmp_path / "dyn"
    assert main(["dynamics", str(p1), str(p2), "--out", str(out), "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "z_nu=i * z_xi" in text and "wrote" in text
    data = json.loads((out / "dynamics.json").read_text())
    assert data["format"] == "cogo-dynamics/1" and len(data["runs"]) == 2
    assert data["aggregate"]["types"]["z_nu * z_syn"]["final_blocks"]["mean"] == 1
    for name in ("dynamics_run1.png", "dynamics_run2.png", "dynamics_types.png"):
        assert (out / "figures" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a checkpoint without snapshots: one-line error, exit 2, nothing written
    from cogo.io.weights import save_checkpoint

    W = [np.ones((4, 5)), np.ones((4, 5)), np.ones((5, 4))]
    save_checkpoint(tmp_path / "plain.pt", *W, {"group": "5"})
    assert main(["dynamics", str(tmp_path / "plain.pt"), "--out", str(tmp_path / "none")]) == 2
    assert "no snapshots" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()


@pytest.mark.slow  # about 15 s end to end: `cogo dynamics` on the command line is also in test_user_contracts.py
def test_experiment_dynamics_reads_every_run(tmp_path):
    import json

    from cogo.cli import main

    out = tmp_path / "exp"
    rc = main(["experiment", "--groups", "7", "--seeds", "1", "--hidden", "12", "--epochs", "40",
               "--dynamics", "20", "--verify", "none", "--no-progress", "--out", str(out)])
    assert rc == 0
    data = json.loads((out / "d7" / "dynamics" / "dynamics.json").read_text())
    assert [r["epochs"] for r in data["runs"]] == [[0, 20, 40]]
    assert [r["seed"] for r in data["runs"]] == [1]
    rep = json.loads((out / "report.json").read_text())
    assert rep["groups"][0]["dynamics"]["json"] == "d7/dynamics/dynamics.json"
    assert (out / "d7" / "dynamics" / "figures" / "dynamics_types.png").is_file()


def test_a_second_reading_takes_the_progress_measures_from_the_cache(tmp_path, monkeypatch):
    """cogo dynamics caches the progress measures per snapshot: reading a run again computes none of them, and gives
    the same result; a changed run (other weights) is not served from the cache."""
    import cogo.dynamics.progress_reader as P
    from cogo.dynamics.runs import analyse_run
    from cogo.solvers.training_results import save_run

    cfg = TrainConfig(group="7", hidden=8, epochs=20, log_every=10, snapshots=4)
    path = save_run(train(cfg, [3], progress=False, threads=1), tmp_path / "run")[0]
    first = analyse_run(path, cache_dir=tmp_path / "cache", workers=1)
    assert first["progress_cached_snapshots"] == 0

    def boom(*a, **k):
        raise AssertionError("progress_measures recomputed")

    monkeypatch.setattr(P, "progress_measures", boom)
    again = analyse_run(path, cache_dir=tmp_path / "cache", workers=1)
    assert again["progress_cached_snapshots"] == 4 and again["progress"] == first["progress"]
    # another run (another seed: other weights) misses the cache and must compute
    other = save_run(train(cfg, [4], progress=False, threads=1), tmp_path / "run2")[0]
    with pytest.raises(AssertionError, match="recomputed"):
        analyse_run(other, cache_dir=tmp_path / "cache", workers=1)


def test_dynamics_refuses_what_cannot_fit_before_reading_a_snapshot(tmp_path, monkeypatch, capsys):
    """The estimate (cogo.runtime.limits.dynamics_estimate) is checked from the checkpoint's shapes: with too little memory
    the command exits 2 with one line quoting it, writes nothing, and never opens a snapshot (there is none here)."""
    from cogo.io.weights import save_checkpoint
    from cogo.cli import main
    from cogo.runtime.limits import dynamics_estimate

    W = [np.zeros((8, 7), np.float32), np.zeros((8, 7), np.float32), np.zeros((7, 8), np.float32)]
    run = tmp_path / "run.pt"
    save_checkpoint(run, *W, {"group": "7", "snapshots": {"format": "cogo-snapshots/1", "dir": "missing.snapshots",
                                                          "epoch": [0, 10]}})
    need = dynamics_estimate(7, 8, workers=1).bytes
    monkeypatch.setenv("COGO_MEMORY_LIMIT", str(int(need) - 1))
    out = tmp_path / "dyn"
    assert main(["dynamics", str(run), "--out", str(out), "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs about" in err[0] and "q=8" in err[0]
    assert not out.exists()
    # with enough memory the same file gets past the estimate and fails on its missing snapshots instead
    monkeypatch.setenv("COGO_MEMORY_LIMIT", str(int(need) + 1))
    assert main(["dynamics", str(run), "--out", str(out), "--workers", "1"]) == 2
    assert "needs about" not in capsys.readouterr().err


# ---------------------------------------------------------------- series of checkpoints (cogo.dynamics.series)
def _head_series(d, epochs, n=5, q=6, seed=0, name="model{:05d}.pt"):
    """Files in the reference code's HEAD layout (W.weight (q, 2n), V.weight (n, q)), one per epoch."""
    import torch

    rng = np.random.default_rng(seed)
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for e in epochs:
        p = d / name.format(e)
        torch.save({"W.weight": torch.tensor(rng.normal(size=(q, 2 * n))),
                    "V.weight": torch.tensor(rng.normal(size=(n, q)))}, p)
        paths.append(p)
    return paths


def test_dynamics_reads_the_reference_head_series_given_as_files(tmp_path, capsys):
    from cogo.cli import main
    from cogo.io.weights import read_checkpoint

    paths = _head_series(tmp_path / "ref", (0, 10, 20, 100))
    out = tmp_path / "dyn"
    assert main(["dynamics", *map(str, reversed(paths)), "--out", str(out), "--workers", "1", "--no-figures",
                 "--no-progress"]) == 0
    run = json.loads((out / "dynamics.json").read_text())["runs"][0]
    assert run["epochs"] == [0, 10, 20, 100]                       # from the names, sorted
    assert run["path"] == str((tmp_path / "ref").resolve())
    assert len(run["snapshots"]) == 4 and run["group"] == "5"
    # the last snapshot is the last file's weights, read as W_a = W[:, :n], W_b = W[:, n:], W_c = V
    w = read_checkpoint(paths[-1])
    from cogo.dynamics.runs import snapshot_record

    assert run["snapshots"][-1]["live_nodes"] == snapshot_record(w.Wa, w.Wb, w.Wc, group=5)["live_nodes"]


def test_dynamics_reads_a_glob_a_folder_and_a_sweep_folder_as_a_grid(tmp_path):
    from cogo.dynamics.series import discover_runs

    _head_series(tmp_path / "one", (0, 5, 50))
    got = discover_runs([str(tmp_path / "one" / "model*.pt")])
    assert len(got) == 1 and got[0].epochs == [0, 5, 50]
    got = discover_runs([str(tmp_path / "one")])
    assert len(got) == 1 and got[0].epochs == [0, 5, 50]
    _head_series(tmp_path / "sweep" / "a", (0, 1, 2), seed=1)
    _head_series(tmp_path / "sweep" / "b", (0, 3), seed=2)
    grid = discover_runs([str(tmp_path / "sweep")])
    assert [r.epochs for r in grid] == [[0, 1, 2], [0, 3]]
    assert grid[1].load(1)[0].shape == (6, 5)


def test_a_training_folder_is_its_runs_not_also_their_snapshot_folders(tmp_path):
    """The folder cogo train writes (checkpoints with snapshots, each beside its <name>.snapshots folder of
    safetensors files): one run per checkpoint; the snapshot folders are not read again as series of their own."""
    from cogo.cli import main
    from cogo.dynamics.series import discover_runs

    assert main(["train", "--group", "5", "--hidden", "6", "--epochs", "10", "--snapshots", "3", "--seeds", "1-2",
                 "--threads", "1", "--out", str(tmp_path / "runs"), "--no-progress"]) == 0
    assert len(list((tmp_path / "runs").glob("*.snapshots"))) == 2
    got = discover_runs([str(tmp_path / "runs")])
    assert sorted(str(r.path) for r in got) == sorted(str(p) for p in (tmp_path / "runs").glob("*.pt"))
    # a sub-folder that is not a snapshot folder is still read (a series inside the training folder)
    _head_series(tmp_path / "runs" / "extra", (0, 4))
    assert len(discover_runs([str(tmp_path / "runs")])) == 3


def test_a_series_epoch_comes_from_the_metadata_before_the_name(tmp_path):
    from cogo.io.weights import save_checkpoint
    from cogo.dynamics.series import discover_runs

    rng = np.random.default_rng(0)
    for i, e in enumerate((7, 3)):
        save_checkpoint(tmp_path / f"ckpt{i}.pt", rng.normal(size=(4, 5)), rng.normal(size=(4, 5)),
                        rng.normal(size=(5, 4)), meta={"group": "5", "epoch": e})
    (run,) = discover_runs([str(tmp_path / "ckpt0.pt"), str(tmp_path / "ckpt1.pt")])
    assert run.epochs == [3, 7] and run.sources[0].endswith("ckpt1.pt")


def test_bad_series_are_refused_in_one_line(tmp_path, capsys):
    from cogo.cli import main

    a = _head_series(tmp_path / "x", (0,), name="model{:05d}.pt")[0]
    b = _head_series(tmp_path / "y", (0,), name="model{:05d}.pt")[0]
    nameless = _head_series(tmp_path / "z", (0,), name="final.pt")[0]
    other = _head_series(tmp_path / "w", (10,), n=7, q=8)[0]  # q >= n: read as stored
    for args, msg in (([a, b], "give epoch 0"), ([a, nameless], "no epoch"), ([a, other], "differ"),
                      ([tmp_path / "nothing*.pt"], "matches no file"), ([tmp_path / "empty"], "no such")):
        (tmp_path / "empty").mkdir(exist_ok=True)
        code = main(["dynamics", *map(str, args), "--out", str(tmp_path / "o"), "--no-progress"])
        err = capsys.readouterr().err.strip().splitlines()
        assert code != 0 and len(err) == 1, (args, err)
        assert msg in err[0] or (msg == "no such" and "no checkpoint" in err[0]), (msg, err)
        assert not (tmp_path / "o" / "dynamics.json").exists()
