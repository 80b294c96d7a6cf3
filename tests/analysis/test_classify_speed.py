"""What makes classification fast keeps its answers (issue 37): the nearest form of an exactly read block,
the batched feature keys, the assignment's shortcut, and many checkpoints read one at a time or in workers."""
import itertools

import numpy as np
import pytest

from cogo.analysis.factor.assignment import linear_assignment
from cogo.analysis.classify import Settings, classify_block, classify_many
from cogo.analysis.factor.kronecker import _feature_key, _feature_keys
from cogo.analysis.verdict.nearest import NEAREST_FROM_READING, nearest_family, nearest_from_reading
from cogo.io.weights import save_checkpoint
from cogo.runtime.errors import CogoError
from cogo.solvers.constructions import z_F6, z_F46
from cogo.catalogue.partial import z_nu, z_nu_i, z_syn, z_syn_ab, z_xi

from strategies import scrambled_block as scrambled, unit_deg as unit  # noqa: E402


@pytest.mark.parametrize("ps", [z_nu(unit(17)) * z_syn(), z_nu_i() * z_syn(), z_nu_i() * z_xi(unit(40), 1),
                                z_nu_i() * z_syn_ab(unit(40), unit(70)), z_nu(unit(50)), z_syn_ab(unit(20), unit(75))],
                         ids=["nu*syn", "nu=i*syn", "nu=i*xi", "nu=i*syn_ab", "nu", "syn_ab"])
def test_an_exact_reading_is_its_own_nearest_form_as_the_direct_fit_finds_it(ps):
    """The nearest form of a block read within 1e-3 comes from its reading: the type, the parameters (to the direct
    fit's resolution) and the distance (both at the noise) the parameter search gives."""
    x = scrambled(ps, 3, 1e-5)
    rep = classify_block(*x)
    near, direct = rep.nearest, nearest_family(*x)
    assert near["method"] == "kronecker" and direct["method"] == "direct fit"
    assert near["type"] == direct["type"]
    p, d = near["params"][0]["degrees"], direct["params"][0]["degrees"]
    assert p.keys() == d.keys()
    for k in p:  # the same canonical representative (differences on the circle)
        assert abs((p[k] - d[k] + 45) % 90 - 45) < 0.15, (p, d)  # the fit's grid: 15 deg / 2^7 for alpha, beta
    assert near["distance"] < 1e-3 and direct["distance"] < 1e-3


def test_a_special_factor_within_a_general_form_is_read_at_its_general_residual():
    """nu 0.3 degrees from i: the factor is named z_nu=i (its special residual about 7e-3, above 1e-3), the block
    z_nu * z_syn with the general fit's nu.  The reading's error for that form is the general residual (2e-5), so
    the nearest form comes from the reading, and it is nearer than the direct fit finds (its grid, near the
    special point, stops at about 2e-4)."""
    x = scrambled(z_nu(unit(90.3)) * z_syn(), 3, 1e-5)
    rep = classify_block(*x)
    nu = next(f for f in rep.factors if f["name"].startswith("z_nu"))
    assert rep.type == "z_nu * z_syn" and nu["name"] == "z_nu=i"
    assert NEAREST_FROM_READING < nu["residual"] and nu["general_residual"] < 1e-4
    direct = nearest_family(*x)
    assert rep.nearest["method"] == "kronecker" and rep.nearest["type"] == direct["type"]
    assert rep.nearest["distance"] < 1e-4 and rep.nearest["distance"] <= direct["distance"]
    assert abs(rep.nearest["params"][0]["degrees"]["nu"] - 29.7) < 0.05   # the folded nu: 90.3 - 60


def test_the_reading_is_not_used_beyond_its_tolerance_or_with_the_paper_preset():
    """Negative cases: a block 1% off its family, an unnamed block and the paper preset go through the direct fit."""
    x = scrambled(z_nu(unit(17)) * z_syn(), 5, 0.0)
    x[0] *= 1 + 0.01 * np.array([1, -1, 1, -1, 1, -1])  # unequal amplitudes: read, but not within 1e-3
    rep = classify_block(*x)
    assert rep.type == "z_nu * z_syn" and rep.nearest["method"] == "direct fit"
    assert nearest_from_reading(rep, x) is None
    y = scrambled(z_nu(unit(17)) * z_syn(), 5, 1e-6)
    assert classify_block(*y).nearest["method"] == "kronecker"
    assert classify_block(*y, settings=Settings.preset_named("paper")).nearest["method"] == "direct fit"
    r = classify_block(*np.random.default_rng(1).normal(size=(3, 6)))
    assert r.nearest["method"] == "direct fit" and NEAREST_FROM_READING < r.nearest["distance"]


def test_batched_feature_keys_are_the_keys_one_by_one():
    rng = np.random.default_rng(0)
    M = rng.normal(size=(40, 4)) + 1j * rng.normal(size=(40, 4))
    M[3, 1] = 0.0
    M[5] = np.exp(-1j * 1e-9)  # an angle that reads as 360 degrees: 0
    M[7] = -1.0
    assert _feature_keys(M) == [_feature_key(r) for r in M]
    assert _feature_key(M[5])[0] == 0.0 and _feature_key(M[7])[0] == 180.0
    assert _feature_keys(M[:, 0][:, None]) == [_feature_key(v) for v in M[:, 0]]
    assert _feature_keys(M) == [_key_by_definition(r) for r in M]


def _key_by_definition(row):
    """The key of kronecker._feature_key's docstring, entry by entry with scalars: (angle in [0, 360), log-modulus)."""
    out = []
    for z in row:
        m = abs(complex(z))
        ang = float(np.round(np.mod(np.degrees(np.angle(z)), 360.0), 6))
        if ang >= 360.0 or not m > 0:
            ang = 0.0
        out += [ang + 0.0, float(np.round(np.log(max(m, 1e-300)), 6)) + 0.0]
    return tuple(out)


@pytest.mark.parametrize("seed", range(6))
def test_assignment_is_optimal_with_and_without_the_shortcut(seed):
    """The Hungarian result has the smallest total cost (brute force over all orders), ties included."""
    rng = np.random.default_rng(seed)
    n = 5
    for cost in (rng.uniform(size=(n, n)), np.round(rng.uniform(size=(n, n)), 1),  # ties: the Hungarian runs
                 np.eye(n) * -1.0 + rng.uniform(0, 0.1, size=(n, n)),  # strict row minima, distinct: the shortcut
                 np.ones((n, n))):
        col = linear_assignment(cost)
        assert sorted(col.tolist()) == list(range(n))
        best = min(cost[np.arange(n), list(p)].sum() for p in itertools.permutations(range(n)))
        assert cost[np.arange(n), col].sum() == pytest.approx(best, abs=1e-12)
    diag = np.eye(n) * -1.0 + 0.5
    assert linear_assignment(diag).tolist() == list(range(n))
    perm = rng.permutation(n)
    assert linear_assignment(diag[:, perm]).tolist() == np.argsort(perm).tolist()


def _checkpoints(tmp_path, n, group=11):
    paths = []
    for i in range(n):
        net = (z_F6 if i % 2 else z_F46)(group, seed=i)
        p = tmp_path / f"c{i}.npz"
        Wa, Wb, Wc = net.to_weights()
        np.savez(p, Wa=Wa, Wb=Wb, Wc=Wc)
        paths.append(p)
    return paths


def test_workers_and_one_at_a_time_give_the_same_result(tmp_path):
    paths = _checkpoints(tmp_path, 3)
    one = classify_many(paths, group=11)
    two = classify_many(paths, group=11, workers=2, keep_weights=False)
    assert [r.path for r in two.reports] == [str(p) for p in paths]  # the order given
    assert two.summary == one.summary
    assert [[(b.k, b.type, b.grid, b.nearest) for b in r.blocks] for r in two.reports] == \
        [[(b.k, b.type, b.grid, b.nearest) for b in r.blocks] for r in one.reports]
    assert len(one.weights) == 3 and two.weights == []  # the sweep keeps no weights unless asked
    assert two.compute_tolerance_curve() is None and one.compute_tolerance_curve() is not None


@pytest.mark.parametrize("workers", [1, 2])
def test_each_checkpoint_is_read_once_in_workers_too(tmp_path, workers):
    # the first checkpoint is read by the caller to decide the reading; removing its file then must not
    # matter: neither path (here or in a worker) reads it again
    paths = _checkpoints(tmp_path, 3)
    res = classify_many(paths, group=11, workers=workers, keep_weights=False,
                        on_loaded=lambda loaded: paths[0].unlink())
    assert not paths[0].exists() and [r.path for r in res.reports] == [str(p) for p in paths]
    assert len(res.reports[0].blocks) == 5


@pytest.mark.parametrize("workers", [1, 2])
def test_mixed_groups_are_refused_in_workers_too(tmp_path, workers):
    paths = _checkpoints(tmp_path, 2)
    Wa, Wb, Wc = z_F6(13).to_weights()
    save_checkpoint(tmp_path / "g13.pt", Wa, Wb, Wc, {"group": "13"})
    paths.append(tmp_path / "g13.pt")
    with pytest.raises(CogoError, match="different groups.*Z_13"):
        classify_many(paths, workers=workers)
    with pytest.raises(ValueError, match="workers"):
        classify_many(paths[:1], workers=0)


def test_cli_workers(tmp_path, capsys):
    from cogo.cli import main

    paths = _checkpoints(tmp_path, 2)
    assert main(["classify", *map(str, paths), "--group", "11", "--workers", "2", "--no-progress",
                 "--json", str(tmp_path / "o.json")]) == 0
    out = capsys.readouterr().out
    assert "z_nu * z_syn" in out and (tmp_path / "o.json").exists()
    assert main(["classify", str(paths[0]), "--workers", "0"]) != 0
    assert "--workers: workers must be an integer >= 1" in capsys.readouterr().err


def test_cli_reads_each_file_once_and_one_at_a_time(tmp_path, monkeypatch, capsys):
    """cogo classify holds one network at a time: file i is read after file i-1 was analysed (the old command read
    every file first), and no file twice."""
    import cogo.analysis.classify as C
    import cogo.io.checkpoint as ck
    import cogo.analysis.many_networks as MN
    import cogo.io.weights as wt
    from cogo.cli import main

    paths = _checkpoints(tmp_path, 3)
    log = []
    read, analyse = ck.read_checkpoint, C._read_loaded

    def logged_read(path, *a, **k):
        if not isinstance(path, ck.Checkpoint):  # a checkpoint already read is handed back, not read again
            log.append(("read", str(path)))
        return read(path, *a, **k)

    def logged_analyse(w, p, st):
        log.append(("analyse", str(p)))
        return analyse(w, p, st)

    monkeypatch.setattr(ck, "read_checkpoint", logged_read)
    monkeypatch.setattr(wt, "read_checkpoint", logged_read)
    monkeypatch.setattr(MN, "read_checkpoint", logged_read)   # the reader's binding in the loop over files
    monkeypatch.setattr(C, "_read_loaded", logged_analyse)
    assert main(["classify", *map(str, paths), "--group", "11", "--no-progress", "--no-verdict"]) == 0
    assert log == [(step, str(p)) for p in paths for step in ("read", "analyse")]
    assert capsys.readouterr().out.count("z_nu * z_syn") >= 3


@pytest.mark.parametrize("workers", [1, 2])
def test_cli_a_later_file_of_another_activation_gives_every_files_node_report(tmp_path, capsys, workers):
    from cogo.cli import main

    paths = _checkpoints(tmp_path, 2)
    Wa, Wb, Wc = z_F6(11).to_weights(real=True)
    save_checkpoint(tmp_path / "relu.pt", Wa, Wb, Wc, {"group": "11", "activation": "relu"})
    paths.append(tmp_path / "relu.pt")
    assert main(["classify", *map(str, paths), "--no-progress", "--workers", str(workers),
                 "--json", str(tmp_path / "o.json")]) == 0
    out = capsys.readouterr().out
    assert "activation relu" in out and "no catalogue form is named" in out
    assert all(f"{p}: 11" in out for p in paths)          # the per-node report of every file, the sqr ones too
    assert "z_nu * z_syn" not in out


@pytest.mark.parametrize("relu_first", [True, False])
def test_cli_node_reports_read_every_file_under_the_memory_estimate(tmp_path, capsys, monkeypatch, relu_first):
    """A sweep with a network of another activation still refuses, in one line and before reading its arrays, a file
    too large for the memory (the streamed command must not read the others without the estimate)."""
    from cogo.cli import main

    Wa, Wb, Wc = z_F6(11).to_weights(real=True)
    save_checkpoint(tmp_path / "relu.pt", Wa, Wb, Wc, {"group": "11", "activation": "relu"})
    rng = np.random.default_rng(0)
    big = tmp_path / "big.npz"
    np.savez(big, Wa=rng.normal(size=(512, 127)), Wb=rng.normal(size=(512, 127)), Wc=rng.normal(size=(127, 512)))
    monkeypatch.setenv("COGO_MEMORY_LIMIT", "200M")        # between d = 11's estimate (48 MiB) and d = 127's (736 MiB)
    files = [tmp_path / "relu.pt", big] if relu_first else [big, tmp_path / "relu.pt"]
    rc = main(["classify", *map(str, files), "--no-progress", "--json", str(tmp_path / "o.json")])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("cogo: error:") and err.count("\n") == 1 and "MiB" in err
    assert not (tmp_path / "o.json").exists()
