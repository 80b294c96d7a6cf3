"""Reading networks on finite groups through their irreducible representations (SPEC 8-9), and training on them."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from cogo.algebra.finite_groups import FiniteGroup, named_group
from cogo.algebra.groups import Cyclic
from cogo.algebra.group_parsing import parse_group
from cogo.analysis.irreps import CATALOGUE_NOTE, IrrepsResult, irrep_families, read_irreps
from cogo.io.file_formats import CheckpointError
from cogo.io.weights import read_checkpoint, save_checkpoint
from cogo.cli import main


def _node(f: np.ndarray, g: np.ndarray, h: np.ndarray) -> tuple:
    return f, g, h


def _s3_network(rng):
    """Nodes built from known irreps of S3: 3 in the 2-dim irrep, 2 in the sign irrep, 1 mixing, 2 dead."""
    G = named_group("S3")
    table = G.table
    # sign character from the parity of the permutation names (independent of the character table code)
    perms = [tuple(int(c) for c in n.strip("()").split()) for n in G.element_names]
    sign = np.array([np.linalg.det(np.eye(3)[list(p)]) for p in perms])
    # the 2-dim irrep: the permutation matrices restricted to the plane x + y + z = 0
    B = np.array([[1, -1, 0], [1, 1, -2]]) / np.array([[np.sqrt(2)], [np.sqrt(6)]])
    std = np.array([B @ np.eye(3)[list(p)] @ B.T for p in perms])             # (6, 2, 2)
    cols_a, cols_b, cols_c = [], [], []
    for _ in range(3):
        u, v, w = rng.standard_normal((3, 2, 2))
        cols_a.append(np.einsum("gij,ij->g", std, u))
        cols_b.append(np.einsum("gij,ij->g", std, v))
        cols_c.append(np.einsum("gij,ij->g", std, w))
    for _ in range(2):
        s = rng.standard_normal(3)
        cols_a.append(s[0] * sign)
        cols_b.append(s[1] * sign)
        cols_c.append(s[2] * sign)
    u = rng.standard_normal((2, 2))
    mix = np.einsum("gij,ij->g", std, u)
    mix = mix / np.linalg.norm(mix) + sign / np.linalg.norm(sign)            # equal energy in both
    cols_a.append(mix)
    cols_b.append(mix)
    cols_c.append(mix)
    for _ in range(2):
        cols_a.append(np.zeros(6))
        cols_b.append(np.zeros(6))
        cols_c.append(np.zeros(6))
    Wa = np.array(cols_a)
    Wb = np.array(cols_b)
    Wc = np.array(cols_c).T
    assert table.shape == (6, 6)
    return G, Wa, Wb, Wc


def test_reads_known_irreps_of_s3():
    G, Wa, Wb, Wc = _s3_network(np.random.default_rng(1))
    r = read_irreps(Wa, Wb, Wc, G)
    fams = r.families
    dims = [int(r.energy.shape[0]) and len(m) for m in fams]
    assert len(fams) == 3 and dims == [1, 1, 1]             # S3: three real irreps
    from cogo.algebra.representations import character_table

    ct = character_table(G)
    f2 = [f for f, m in enumerate(fams) if ct.dims[m[0]] == 2][0]
    fs = [f for f, m in enumerate(fams) if ct.dims[m[0]] == 1 and m[0] != 0][0]
    assert r.live_nodes == 6 and r.hidden == 8
    assert r.node_family.tolist()[:5] == [f2, f2, f2, fs, fs]
    assert r.node_family.tolist()[6:] == [-1, -1]
    assert r.mixed.tolist() == [False] * 5 + [True, False, False]
    assert r.counts[f2] == 3 + (r.node_family[5] == f2) and r.counts[fs] == 2 + (r.node_family[5] == fs)
    assert r.theory == [0, 2, 8] and r.theory_total == 10
    d = r.to_dict()
    assert d["note"] == CATALOGUE_NOTE and len(d["nodes"]) == 6
    assert sum(f["nodes"] for f in d["families"]) == 6


def test_abelian_reading_pairs_conjugate_frequencies():
    G = Cyclic(7)
    m = np.arange(7)
    rows = [np.cos(2 * np.pi * 2 * m / 7 + 0.3), np.sin(2 * np.pi * 3 * m / 7)]
    Wa = np.array(rows)
    r = read_irreps(Wa, Wa, Wa.T.copy(), G)
    fams = r.families
    assert [sorted(fm) for fm in fams] == [[0], [1, 6], [2, 5], [3, 4]]
    assert [sorted(fams[f]) for f in r.node_family] == [[2, 5], [3, 4]]
    assert r.theory_total == 12                                               # 2|G| - 2
    assert irrep_families("Q8") == [[0], [1], [2], [3], [4]]                  # all self-conjugate


def test_read_irreps_rejects_bad_shapes():
    with pytest.raises(ValueError, match="do not fit"):
        read_irreps(np.zeros((3, 5)), np.zeros((3, 5)), np.zeros((5, 3)), "S3")


# ---------------------------------------------------------------- training and checkpoints on S3
@pytest.fixture(scope="module")
def s3_run(tmp_path_factory):
    from cogo.solvers.training import train
    from cogo.solvers.training_config import TrainConfig
    from cogo.solvers.training_results import save_run

    out = tmp_path_factory.mktemp("s3")
    cfg = TrainConfig(group="S3", hidden=16, epochs=40, lr=0.01, weight_decay=1e-3, log_every=10)
    res = train(cfg, [1, 2], progress=False)
    paths = save_run(res, out)
    return res, paths


def test_training_uses_the_cayley_table(s3_run):
    from cogo.solvers.batch import pair_targets

    a, b, c = pair_targets("S3")
    G = named_group("S3")
    assert torch.equal(c, torch.from_numpy(G.table.reshape(-1).copy()))
    assert not torch.equal(c, (a + b) % 6)                     # not modular addition
    res, paths = s3_run
    assert res[0].config.group == "S3"
    assert res[0].final["train_loss"] < res[0].history["train_loss"][0]


def test_checkpoint_keeps_the_group(s3_run):
    _, paths = s3_run
    w = read_checkpoint(paths[0])
    assert isinstance(w.group, FiniteGroup) and w.group.label == "S3"
    assert torch.equal(torch.load(paths[0], weights_only=True)["meta"]["group_table"],
                       torch.from_numpy(np.array(named_group("S3").table)))


def test_table_group_checkpoint_roundtrip(tmp_path):
    import cogo.algebra.finite_groups as fg

    t = named_group("Q8").table
    G = FiniteGroup.from_table(t, "myQ8", register=True)
    rng = np.random.default_rng(0)
    p = tmp_path / "q.pt"
    save_checkpoint(p, rng.standard_normal((4, 8)), rng.standard_normal((4, 8)), rng.standard_normal((8, 4)),
                    {"group": "myQ8", "group_table": torch.from_numpy(t.copy())})
    fg._REGISTRY.pop("myQ8", None)                               # a fresh process knows no such name
    w = read_checkpoint(p)
    assert w.group == G and w.group.label == "myQ8"


def test_hostile_group_table_refused(tmp_path):
    rng = np.random.default_rng(0)
    bad = named_group("S3").table.copy()
    bad[1, 2] = 7
    p = tmp_path / "bad.pt"
    save_checkpoint(p, rng.standard_normal((4, 6)), rng.standard_normal((4, 6)), rng.standard_normal((6, 4)),
                    {"group": "S3", "group_table": torch.from_numpy(bad)})
    with pytest.raises(CheckpointError, match="closure"):
        read_checkpoint(p)
    q8 = tmp_path / "wrong.pt"
    other = named_group("Z6").table
    save_checkpoint(q8, rng.standard_normal((4, 6)), rng.standard_normal((4, 6)), rng.standard_normal((6, 4)),
                    {"group": "S3", "group_table": torch.from_numpy(other.copy())})
    with pytest.raises(CheckpointError, match="not the table of S3"):
        read_checkpoint(q8)


def test_cli_classify_non_abelian(s3_run, tmp_path, capsys):
    _, paths = s3_run
    js = tmp_path / "r.json"
    assert main(["classify", *paths[:2], "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "Abelian groups only" in out and "Theorem 3" in out and "K = 10" in out
    data = json.loads(js.read_text())
    assert data["format"] == "cogo-irreps/1"
    assert [f["dim"] for f in data["checkpoints"][0]["families"]] == [1, 1, 2]


def test_classify_many_dispatch(s3_run):
    from cogo.analysis.classify import classify_many

    _, paths = s3_run
    assert isinstance(classify_many(paths[:2]), IrrepsResult)


def test_cli_bad_groups(tmp_path, capsys):
    assert main(["train", "--group", "S9", "--epochs", "1", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "maximum" in err
    assert main(["construct", "z_F6", "--group", "S3", "--out", str(tmp_path / "c.pt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "odd order" in err
    assert main(["construct", "z_M", "--group", "S3", "--out", str(tmp_path / "c.pt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs an Abelian group" in err
    assert not (tmp_path / "c.pt").exists()


def test_demo_refuses_non_abelian_in_one_line(tmp_path, capsys):
    # cogo demo's report reads SPEC 8 blocks; cogo experiment takes S3 as a wide grid (test_experiment_sweep.py)
    out = tmp_path / "exp"
    assert main(["demo", "--groups", "23", "S3", "--seeds", "1", "--epochs", "1", "--hidden", "4",
                 "--verify", "none", "--no-progress", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs Abelian groups" in err
    assert not out.exists()
