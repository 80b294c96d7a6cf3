"""Progress measures (cogo.dynamics.progress) against independent real-space computations, log-spaced snapshots.

Every expected value here is computed directly from its definition (explicit loops over pairs and outputs,
numpy's FFT for Z_n, the isotypic projectors of cogo.algebra.representations or Li^2's n x n formula of
cogo.li2.theorems.gradient_ridge), never by the code under test.  Tolerances: 1e-10 relative (float64).
"""
from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest

from cogo.algebra.group_parsing import as_finite_group
from cogo.algebra.group_parsing import parse_group
from cogo.algebra.representations import isotypic_projectors
from cogo.analysis.report.records import Records
from cogo.dynamics.families import family_basis, key_epochs, node_ipr
from cogo.dynamics.progress import fall_epoch, li2_stage, progress_measures
from cogo.solvers.li2_record import li2_statistics
from cogo.li2.theorems import gradient_ridge
from cogo.io.snapshots import snapshot_epochs

RTOL = 1e-10


def _weights(group, q, seed, scale=0.5):
    M = parse_group(group).order
    rng = np.random.default_rng(seed)
    return rng.normal(size=(q, M)) * scale, rng.normal(size=(q, M)) * scale, rng.normal(size=(M, q)) * scale


def _logits_loops(Wa, Wb, Wc, M):
    """L[a, b, c] = (W_c (W_a[:, a] + W_b[:, b])^2)[c], pair by pair (SPEC 1)."""
    L = np.zeros((M, M, M))
    for a in range(M):
        for b in range(M):
            L[a, b] = Wc @ (Wa[:, a] + Wb[:, b]) ** 2
    return L


def _mse(logits, c, M):
    t = -np.full(M, 1.0 / M)
    t[c] += 1.0
    return float(np.sum((logits - logits.mean() - t) ** 2))


def _restricted_direct_cyclic(L, M, key_freqs):
    """Nanda et al.: least-squares projection of the logit tensor on cos / sin(w_k (a + b - c)) for the key k."""
    a, b, c = np.meshgrid(np.arange(M), np.arange(M), np.arange(M), indexing="ij")
    out = np.zeros_like(L)
    for k in key_freqs:
        for f in (np.cos, np.sin):
            d = f(2 * np.pi * k * (a + b - c) / M)
            out += d * np.sum(L * d) / np.sum(d * d)
    return out


@pytest.mark.parametrize("group,key", [("7", [1, 3]), ("9", [2]), ("5", [])])
def test_restricted_and_excluded_loss_cyclic_match_nanda_directions(group, key):
    M = int(group)
    Wa, Wb, Wc = _weights(group, 6, seed=M)
    L = _logits_loops(Wa, Wb, Wc, M)
    Lr = _restricted_direct_cyclic(L, M, key)
    rng = np.random.default_rng(1)
    train = np.sort(rng.permutation(M * M)[: M * M - 5])
    want_r = np.mean([_mse(Lr[a, b], (a + b) % M, M) for a in range(M) for b in range(M)])
    want_e = np.mean([_mse(L[p // M, p % M] - Lr[p // M, p % M], (p // M + p % M) % M, M) for p in train])
    # the key families of Z_M: family index f holds {f, -f}
    pm = progress_measures(Wa, Wb, Wc, group, train_idx=train, key=key)
    assert pm["restricted_loss"][0] == pytest.approx(want_r, rel=RTOL)
    assert pm["excluded_loss"][0] == pytest.approx(want_e, rel=RTOL)
    # FVE of the centred logits, family by family
    Lc = L - L.mean(-1, keepdims=True)
    for f in range(1, (M + 1) // 2):
        Pf = _restricted_direct_cyclic(L, M, [f])
        assert pm["fve_logits"][0, f] == pytest.approx(np.sum(Pf ** 2) / np.sum(Lc ** 2), rel=1e-9)


def test_restricted_loss_mutation_other_key_differs():
    """A wrong key set (a mutation of the measure) gives another value: the comparison above can fail."""
    Wa, Wb, Wc = _weights("7", 6, seed=3)
    L = _logits_loops(Wa, Wb, Wc, 7)
    right = np.mean([_mse(_restricted_direct_cyclic(L, 7, [1])[a, b], (a + b) % 7, 7) for a in range(7) for b in range(7)])
    wrong = progress_measures(Wa, Wb, Wc, "7", key=[2])["restricted_loss"][0]
    assert abs(wrong - right) > 1e-3


def _restricted_direct_group(Wa, Wb, Wc, G, key_irreps):
    """Any group: fibre means over x = a b c^-1 by loops, the isotypic projectors P_k of SPEC 9 (complex)."""
    FG = as_finite_group(G)
    M = G.order
    T, inv = np.asarray(FG.table), np.asarray(FG.inverse)
    L = _logits_loops(Wa, Wb, Wc, M)
    psi, cnt = np.zeros(M), np.zeros(M)
    for a in range(M):
        for b in range(M):
            for c in range(M):
                x = T[T[a, b], inv[c]]
                psi[x] += L[a, b, c]
                cnt[x] += 1
    psi /= cnt
    P = isotypic_projectors(G)
    phi = np.real(sum(P[k] @ psi for k in key_irreps)) if key_irreps else np.zeros(M)
    Lr = np.zeros_like(L)
    for a in range(M):
        for b in range(M):
            for c in range(M):
                Lr[a, b, c] = phi[T[T[a, b], inv[c]]]
    return L, Lr, psi, P


@pytest.mark.parametrize("name", ["S3", "D5"])
def test_restricted_excluded_and_logit_fve_non_abelian(name):
    G = parse_group(name)
    M = G.order
    T = np.asarray(as_finite_group(G).table)
    Wa, Wb, Wc = _weights(name, 5, seed=M)
    B = family_basis(G)
    fam = len(B) - 1                                   # the last family (a 2-dimensional irrep)
    L, Lr, psi, P = _restricted_direct_group(Wa, Wb, Wc, G, B.families[fam])
    train = np.arange(0, M * M, 2)
    pm = progress_measures(Wa, Wb, Wc, name, train_idx=train, key=[fam])
    want_r = np.mean([_mse(Lr[a, b], T[a, b], M) for a in range(M) for b in range(M)])
    want_e = np.mean([_mse(L[p // M, p % M] - Lr[p // M, p % M], T[p // M, p % M], M) for p in train])
    assert pm["restricted_loss"][0] == pytest.approx(want_r, rel=RTOL)
    assert pm["excluded_loss"][0] == pytest.approx(want_e, rel=RTOL)
    Lc = L - L.mean(-1, keepdims=True)
    for f, members in enumerate(B.families):
        if f == B.trivial:
            continue
        part = np.real(sum(P[k] @ psi for k in members))
        assert pm["fve_logits"][0, f] == pytest.approx(M * M * part @ part / np.sum(Lc ** 2), rel=1e-9)


def test_restricted_loss_of_the_target_itself_is_zero_and_cross_entropy():
    """A network reproducing the target exactly (z_F6 on Z_5, SPEC 7) has restricted loss 0 with every family key,
    and the CE version equals the CE of the restricted logits computed by hand."""
    from cogo.solvers.constructions import z_F6

    Wa, Wb, Wc = z_F6(5).to_weights(real=True)
    pm = progress_measures(Wa, Wb, Wc, 5)
    assert pm["key"] == [1, 2] and abs(pm["restricted_loss"][0]) < 1e-20
    L = _logits_loops(Wa, Wb, Wc, 5)
    Lr = _restricted_direct_cyclic(L, 5, [1, 2])
    ce = np.mean([np.log(np.exp(Lr[a, b]).sum()) - Lr[a, b, (a + b) % 5] for a in range(5) for b in range(5)])
    assert progress_measures(Wa, Wb, Wc, 5, loss="ce")["restricted_loss"][0] == pytest.approx(ce, rel=RTOL)


def test_weight_fve_and_ipr_cyclic_against_fft():
    M, q = 11, 7
    Wa, Wb, Wc = _weights(str(M), q, seed=5)
    pm = progress_measures(Wa, Wb, Wc, str(M))
    for name, W in (("fve_Wa", Wa), ("fve_Wb", Wb), ("fve_Wc", Wc.T)):
        pw = np.abs(np.fft.fft(W, axis=1)) ** 2                     # |w_hat(k)|^2 per node
        fam = np.array([pw[:, k].sum() + pw[:, M - k].sum() for k in range(1, (M + 1) // 2)])
        assert np.allclose(pm[name][0, 1:], fam / fam.sum(), rtol=1e-10, atol=0)
        assert pm[name][0, 0] == 0.0
    # IPR: per layer normalized spectrum over {k, -k}, averaged over the three layers, sum of squares
    spec = 0
    for W in (Wa, Wb, Wc.T):
        pw = np.abs(np.fft.fft(W, axis=1)) ** 2
        fam = np.stack([pw[:, k] + pw[:, M - k] for k in range(1, (M + 1) // 2)], axis=1)
        spec = spec + fam / fam.sum(1, keepdims=True)
    p = spec / 3
    assert np.allclose(pm["ipr"][0], (p ** 2).sum(1), rtol=1e-10, atol=0)


def test_ipr_single_family_node_is_one_and_uniform_is_one_over_F():
    M = 9
    x = np.arange(M)
    one = np.cos(2 * np.pi * 2 * x / M)[None]                       # one node at frequency 2
    spread = sum(np.cos(2 * np.pi * k * x / M + k) for k in range(1, 5))[None]
    ipr, live = node_ipr(np.stack([one, spread])[:, 0][:, None], np.stack([one, spread])[:, 0][:, None],
                         np.stack([one.T, spread.T])[:, :, :1], str(M))
    assert live.all()
    assert ipr[0, 0] == pytest.approx(1.0, abs=1e-12) and ipr[1, 0] == pytest.approx(1 / 4, abs=1e-12)


def test_li2_statistics_against_explicit_matrices_and_gradient_ridge():
    rng = np.random.default_rng(7)
    S, n, q, M = 3, 40, 9, 5
    F = rng.normal(size=(S, n, q)) ** 2
    c = rng.integers(0, M, n)
    Yt = np.eye(M)[c] - np.eye(M)[c].mean(0)
    for eta in (0.0, 0.3, 50.0):
        st = li2_statistics(F, c, M, eta)
        for s in range(S):
            Ft = F[s] - F[s].mean(0)
            K, KK = Ft.T @ Ft, F[s] @ F[s].T
            off = ~np.eye(q, dtype=bool)
            offn = ~np.eye(n, dtype=bool)
            assert st["FtF_diag"][s] == pytest.approx(np.diag(K).mean(), rel=RTOL)
            assert st["FtF_offdiag"][s] == pytest.approx(K[off].mean(), rel=1e-9)
            assert st["FFt_diag"][s] == pytest.approx(np.diag(KK).mean(), rel=RTOL)
            assert st["FFt_offdiag"][s] == pytest.approx(KK[offn].mean(), rel=1e-9)
            Gf = gradient_ridge(F[s], Yt, eta)                       # Li^2's n x n formula
            ref = Yt @ (Yt.T @ Ft)
            assert st["G_F_norm"][s] == pytest.approx(np.linalg.norm(Gf), rel=1e-8, abs=1e-12)
            if np.linalg.norm(Gf) > 1e-8:
                cos = np.sum(Gf * ref) / (np.linalg.norm(Gf) * np.linalg.norm(ref))
                assert st["G_F_cos"][s] == pytest.approx(cos, rel=1e-8)


def test_li2_statistics_from_progress_measures_use_the_training_pairs():
    """progress_measures builds F = (W_a[:, a] + W_b[:, b])^2 on the training pairs: compare with an explicit build."""
    M, q = 7, 6
    Wa, Wb, Wc = _weights("7", q, seed=2)
    train = np.arange(3, M * M, 3)
    F = np.array([(Wa[:, p // M] + Wb[:, p % M]) ** 2 for p in train])
    c = (train // M + train % M) % M
    Yt = np.eye(M)[c] - np.eye(M)[c].mean(0)
    pm = progress_measures(Wa, Wb, Wc, "7", train_idx=train, weight_decay=1e-2)
    assert pm["eta"] == pytest.approx(len(train) * 1e-2 / 2)
    assert pm["G_F_norm"][0] == pytest.approx(np.linalg.norm(gradient_ridge(F, Yt, pm["eta"])), rel=1e-8)


def test_stage_rule_cases_and_key_epochs():
    assert li2_stage([0.05, 0.2, 0.2], [0.1, 0.95, 0.5]) == ["lazy", "independent", "interactive"]
    assert li2_stage([0.1], [0.9]) == ["independent"]                # boundaries belong to the later stage
    assert key_epochs(np.array([[1, 0], [0, 1], [1, 1]], dtype=bool), [0, 5, 9]) == [9, 5]
    assert key_epochs(np.array([[1], [0]], dtype=bool), [0, 5]) == [None]
    assert fall_epoch([0, 1, 2], [1.0, 2.0, 3.0]) is None            # never falls
    assert fall_epoch([0, 5, 9], [1.0, None, 0.01]) == 9


def _trained(group, hidden, lr, wd, epochs, snapshots=6):
    from cogo.solvers.training import train
    from cogo.solvers.training_config import TrainConfig

    cfg = TrainConfig(group=group, hidden=hidden, lr=lr, weight_decay=wd, epochs=epochs, log_every=epochs,
                      snapshots=snapshots)
    r = train(cfg, seeds=[1], weight_decays=[wd], progress=False, threads=1)[0]
    W = [r.snapshots[k].double().numpy() for k in ("layera.weight", "layerb.weight", "layerc.weight")]
    return progress_measures(*W, group, train_idx=r.train_idx.numpy(), weight_decay=wd)


@pytest.mark.slow  # 10-45 s of training and dynamics: CI's slow step runs it
def test_stage_of_runs_built_to_sit_in_each_stage():
    """eta = 0, very wide, small steps: lazy throughout; large weight decay (eta >> the kernel): the
    backpropagated gradient is Y~Y~^T F~ (Lemma 1), independent; small weight decay, trained: interactive."""
    lazy = _trained("7", 2048, 1e-4, 0.0, 50)
    assert lazy["stage"] == ["lazy"] * 6 and lazy["feature_move"][-1] < 0.05
    ind = _trained("7", 64, 0.01, 1.0, 300)
    assert ind["stage"][-3:] == ["independent"] * 3 and ind["G_F_cos"][-1] > 0.99
    inter = _trained("7", 64, 0.01, 5e-5, 1000)
    assert inter["stage"][-4:] == ["interactive"] * 4 and inter["G_F_cos"][-1] < 0.7


def test_records_to_pandas_or_a_clear_import_error(monkeypatch):
    recs = Records([{"epoch": 0, "a": 1.0}, {"epoch": 5, "b": 2.0}])
    assert recs.columns == ["epoch", "a", "b"]
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="needs pandas"):
        recs.to_pandas()


def test_records_to_pandas_when_installed():
    pd = pytest.importorskip("pandas")
    df = Records([{"epoch": 0, "a": 1.0}, {"epoch": 5, "a": 2.0}]).to_pandas()
    assert isinstance(df, pd.DataFrame) and df["a"].tolist() == [1.0, 2.0]


def test_relu_network_logits_and_restricted_loss_against_loops():
    """Another activation (issue 23's relu): the logits W_c relu(W_a[:, a] + W_b[:, b]) by loops, projected as above."""
    M = 7
    Wa, Wb, Wc = _weights("7", 5, seed=11)
    L = np.zeros((M, M, M))
    for a in range(M):
        for b in range(M):
            L[a, b] = Wc @ np.maximum(Wa[:, a] + Wb[:, b], 0.0)
    Lr = _restricted_direct_cyclic(L, M, [2])
    want = np.mean([_mse(Lr[a, b], (a + b) % M, M) for a in range(M) for b in range(M)])
    assert progress_measures(Wa, Wb, Wc, "7", key=[2], activation="relu")["restricted_loss"][0] == \
        pytest.approx(want, rel=RTOL)
    assert abs(progress_measures(Wa, Wb, Wc, "7", key=[2])["restricted_loss"][0] - want) > 1e-5   # sqr differs


def test_bad_input_is_refused_in_one_line():
    Wa, Wb, Wc = _weights("7", 4, seed=0)
    with pytest.raises(ValueError, match="do not fit group"):
        progress_measures(Wa, Wb, Wc, "5")
    with pytest.raises(ValueError, match="training pair indices"):
        progress_measures(Wa, Wb, Wc, "7", train_idx=[49])
    with pytest.raises(ValueError, match="unknown loss"):
        progress_measures(Wa, Wb, Wc, "7", loss="l1")
    with pytest.raises(ValueError, match="unknown activation"):
        progress_measures(Wa, Wb, Wc, "7", activation="tanh")


# --------------------------------------------------------------------------- log-spaced snapshots
def test_snapshot_epochs_log_and_uniform():
    for E in range(0, 60):
        for N in range(1, 70):
            e = snapshot_epochs(E, count=N)
            assert len(e) == min(N, E + 1) and e == sorted(set(e)) and e[0] == 0 and (N < 2 or e[-1] == E)
            u = snapshot_epochs(E, count=N, spacing="uniform")
            assert len(u) == min(N, E + 1) and u[0] == 0 and (N < 2 or u[-1] == E)
    e = snapshot_epochs(10000, count=60)
    ratios = np.diff(np.log(e[12:]))                                 # geometric once the step exceeds 1
    assert ratios.max() - ratios.min() < 0.05
    assert snapshot_epochs(10000, count=60)[:10] == list(range(10))   # every early epoch taken
    assert snapshot_epochs(100, every=30) == [0, 30, 60, 90]            # --snapshot-every unchanged
    with pytest.raises(ValueError, match="not both"):
        snapshot_epochs(100, every=10, count=5)
    with pytest.raises(ValueError, match="unknown snapshot spacing"):
        snapshot_epochs(100, count=5, spacing="cubic")


def test_train_with_log_snapshots_keeps_them_and_their_metrics(tmp_path):
    from cogo.io.snapshots import open_snapshots
    from cogo.solvers.training import train
    from cogo.solvers.training_config import TrainConfig
    from cogo.solvers.training_results import save_run

    cfg = TrainConfig(group="5", hidden=8, epochs=40, log_every=20, snapshots=7, snapshot_spacing="log")
    res = train(cfg, seeds=[1], weight_decays=[0.0], progress=False, snapshot_dir=tmp_path, threads=1)
    path = save_run(res, tmp_path)[0]
    snaps = open_snapshots(path)
    assert snaps.epochs == snapshot_epochs(40, count=7) and snaps.epochs[0] == 0 and snaps.epochs[-1] == 40
    assert set(snaps.epochs) <= set(res[0].history["epoch"])           # metrics at every snapshot epoch
    assert np.allclose(snaps.load(len(snaps) - 1)[0], res[0].Wa.double().numpy())


def test_cli_refuses_both_snapshot_flags(tmp_path, capsys):
    from cogo.cli import main

    out = tmp_path / "o"
    assert main(["train", "--group", "5", "--epochs", "5", "--snapshots", "3", "--snapshot-every", "2",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not both" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.slow
def test_dynamics_cli_on_s3_and_z5_writes_every_measure(tmp_path):
    """End to end, a non-Abelian and an Abelian run: every measure in dynamics.json, the progress figures written."""
    from cogo.cli import main

    for group in ("S3", "5"):
        d = tmp_path / group
        assert main(["train", "--group", group, "--hidden", "8", "--epochs", "30", "--snapshots", "5", "--seeds", "1-2",
                     "--out", str(d / "runs"), "--no-progress", "--threads", "1"]) == 0
        runs = sorted(str(p) for p in (d / "runs").glob("*.pt"))
        assert main(["dynamics", *runs, "--out", str(d / "dyn"), "--workers", "1"]
                    + (["--no-figures"] if group == "5" else [])) == 0
        doc = json.loads((d / "dyn" / "dynamics.json").read_text())
        pr = doc["runs"][0]["progress"]
        S = len(doc["runs"][0]["snapshots"])
        for k in ("restricted_loss", "excluded_loss"):
            assert len(pr[k]) == S and all(math.isfinite(v) for v in pr[k])
        for w in ("logits", "Wa", "Wb", "Wc"):
            assert np.asarray(pr["fve"][w]).shape == (S, len(pr["families"]))
        for k in ("FtF_diag", "FtF_offdiag", "FFt_diag", "FFt_offdiag", "G_F_norm", "G_F_cos", "feature_move", "stage"):
            assert len(pr["li2"][k]) == S
        assert len(pr["ipr"]["mean"]) == S and len(pr["key_epoch"]) == len(pr["families"])
        assert "progress" in doc["aggregate"]
        # the peers' measures under their names: Nanda et al. and Gromov / Doshi et al. for Z_p only
        assert (pr["nanda"] is None) == (group == "S3") and (pr["gromov_doshi"] is None) == (group == "S3")
        assert np.asarray(pr["chughtai"]["logit_similarity"]).shape == (S, len(pr["families"]))
        assert len(pr["chughtai"]["restricted_loss"]["mse"]) == len(pr["chughtai"]["restricted_loss"]["ce"]) == S
        if group == "5":
            assert len(pr["nanda"]["restricted_loss"]["mse"]) == S and set(pr["nanda"]["key_frequencies"]) <= {1, 2}
        if group == "S3":                                              # figures once (they take seconds)
            figs = sorted(f.name for f in (d / "dyn" / "figures").iterdir())
            assert "progress_seeds.png" in figs and sum(f.startswith("progress_d") for f in figs) == 2
            assert sum(f.startswith("peers_d") for f in figs) == 2 and "dynamics_types.png" in figs


def test_dynamics_of_a_relu_run_writes_the_progress_measures(tmp_path, capsys):
    """Another activation: no catalogue reading (the one-line refusal), but the progress measures in dynamics.json."""
    import json

    from cogo.cli import main

    runs, dyn = tmp_path / "runs", tmp_path / "dyn"
    assert main(["train", "--group", "7", "--hidden", "16", "--epochs", "30", "--seeds", "1", "--activation", "relu",
                 "--snapshots", "4", "--spacing", "log", "--threads", "1", "--out", str(runs), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["dynamics", *map(str, sorted(runs.glob("*.pt"))), "--out", str(dyn), "--no-progress",
                 "--no-figures"]) == 0
    out = capsys.readouterr().out
    assert "catalogue" in out.splitlines()[0]
    run = json.loads((dyn / "dynamics.json").read_text())["runs"][0]
    assert run["progress"]["activation"] == "relu" and len(run["progress"]["restricted_loss"]) == 4
    assert all(s["blocks"] == [] for s in run["snapshots"])          # no block reading for relu


def test_training_records_the_li2_statistics_at_the_snapshot_epochs(tmp_path):
    """cogo train records the Li^2 kernel statistics at every snapshot epoch; they equal the statistics recomputed
    from the snapshots by the one definition (bit for bit: the same float64 features), and dynamics uses them."""
    from cogo.dynamics.runs import analyse_run
    from cogo.solvers.li2_record import li2_statistics_of, LI2_STATS, ridge_eta
    from cogo.io.snapshots import open_snapshots
    from cogo.solvers.training import train
    from cogo.solvers.training_config import TrainConfig
    from cogo.solvers.training_results import save_run

    cfg = TrainConfig(group="7", hidden=12, epochs=30, log_every=10, snapshots=5, snapshot_spacing="log")
    res = train(cfg, seeds=[1], weight_decays=[5e-4], progress=False, threads=1)
    path = save_run(res, tmp_path)[0]
    from cogo.io.weights import read_checkpoint

    rec = read_checkpoint(path).meta["snapshots"]["li2"]
    snaps = open_snapshots(path)
    assert rec["epoch"] == [int(e) for e in snaps.epochs] and len(rec["epoch"]) == 5
    tr = res[0].train_idx.numpy()
    assert rec["eta"] == ridge_eta(5e-4, len(tr))
    for i in range(len(snaps)):
        Wa, Wb, _ = snaps.load(i)
        st = li2_statistics_of(Wa, Wb, 7, tr, rec["eta"])
        for k in LI2_STATS:
            assert np.array_equal(np.asarray([rec[k][i]]), st[k], equal_nan=True), (k, i)
    # the features moved: the statistics are not constant over training (a record that ignored the epoch would be)
    assert len(set(rec["FtF_diag"])) == 5
    run = analyse_run(path, workers=1)
    assert run["progress"]["li2"]["source"].startswith("recorded")
    assert run["progress"]["li2"]["FtF_diag"] == pytest.approx(rec["FtF_diag"], rel=0, abs=0)


def test_a_damaged_li2_record_is_refused():
    from cogo.dynamics.progress_reader import recorded_li2

    good = {"epoch": [0, 5], "eta": 0.1, **{k: [1.0, 2.0] for k in ("FtF_diag", "FtF_offdiag", "FFt_diag",
                                                                      "FFt_offdiag", "G_F_norm", "G_F_cos")}}
    assert recorded_li2({"snapshots": {"li2": good}}, [0, 5])["FtF_diag"].tolist() == [1.0, 2.0]
    assert recorded_li2({"snapshots": {}}, [0, 5]) is None
    for bad in ({**good, "epoch": [0, 6]}, {**good, "FtF_diag": [1.0]}, {**good, "eta": -1.0},
                {**good, "G_F_norm": ["x", 1.0]}):
        with pytest.raises(ValueError, match="damaged"):
            recorded_li2({"snapshots": {"li2": bad}}, [0, 5])


def test_nodes_without_inputs_are_dropped_without_changing_any_measure():
    """Nodes whose input weights are 0 at every snapshot have features sigma(0) = 0: dropping them (before the
    q x M^2 features are formed) changes no measure; the reference keeps them with inputs of 1e-300 instead."""
    rng = np.random.default_rng(3)
    S, q, M = 3, 10, 7
    Wa, Wb, Wc = rng.normal(size=(S, q, M)), rng.normal(size=(S, q, M)), rng.normal(size=(S, M, q))
    Wa[:, [2, 5]] = 0.0
    Wb[:, [2, 5]] = 0.0
    ref_a = Wa.copy()
    ref_a[:, [2, 5], 0] = 1e-300  # not exactly 0: kept, features ~1e-600 = 0
    tr = rng.choice(M * M, 35, replace=False)
    for eta in (0.0, 0.5):
        got = progress_measures(Wa, Wb, Wc, "7", train_idx=tr, eta=eta)
        ref = progress_measures(ref_a, Wb, Wc, "7", train_idx=tr, eta=eta)
        for k in ("restricted_loss", "excluded_loss", "fve_logits", "FtF_diag", "FtF_offdiag", "FFt_diag",
                  "FFt_offdiag", "G_F_norm", "G_F_cos", "feature_move"):
            assert np.allclose(got[k], ref[k], rtol=1e-12, atol=0), (k, eta)
        assert np.array_equal(got["live"], ref["live"]) and not got["live"][:, [2, 5]].any()
    empty = progress_measures(np.zeros((2, q, M)), np.zeros((2, q, M)), np.zeros((2, M, q)), "7")
    assert empty["FtF_diag"].tolist() == [0.0, 0.0] and not empty["live"].any()


def test_one_record_adds_a_measure_to_the_arrays_the_cache_the_json_and_the_table(tmp_path, monkeypatch):
    """The registry (cogo.dynamics.progress.MEASURES): a new record, and nothing else, puts its measure in
    progress_measures, the per-snapshot cache, run["progress"] and progress_table, with the values it computes
    (here the largest logit FVE, compared with the max of fve_logits); without it none of them has it, and a cache
    written without it is not taken for one with it."""
    import cogo.dynamics.figures as F
    import cogo.dynamics.progress as P
    import cogo.dynamics.progress_reader as R
    from cogo.dynamics.measures import Measure
    from cogo.dynamics.runs import analyse_run
    from cogo.solvers.training import train
    from cogo.solvers.training_config import TrainConfig
    from cogo.solvers.training_results import save_run

    rec = Measure("fve_logits_top", lambda p: p["logit_fve"].max(-1), uses=("logit_fve",),
                  json=lambda values, reader: {"fve_logits_top": values["fve_logits_top"].tolist()},
                  table=lambda pr, i: {"fve_logits_top": pr["fve_logits_top"][i]})
    cfg = TrainConfig(group="5", hidden=8, epochs=20, log_every=10, snapshots=3)
    path = save_run(train(cfg, [1], progress=False, threads=1), tmp_path / "run")[0]
    plain = analyse_run(path, cache_dir=tmp_path / "cache", workers=1)      # a cache without the new measure
    assert "fve_logits_top" not in plain["progress"] and "fve_logits_top" not in P.progress_table(plain)[-1]
    for mod in (P, R, F):
        monkeypatch.setattr(mod, "MEASURES", (*P.MEASURES, rec))
    run = analyse_run(path, cache_dir=tmp_path / "cache", workers=1)
    assert run["progress_cached_snapshots"] == 0                          # those entries lack it: computed again
    want = np.max(run["progress"]["fve"]["logits"], axis=1)
    assert run["progress"]["fve_logits_top"] == pytest.approx(want, abs=1e-15) and want[-1] > 0
    assert [r["fve_logits_top"] for r in P.progress_table(run)] == run["progress"]["fve_logits_top"]
    again = analyse_run(path, cache_dir=tmp_path / "cache", workers=1)     # from the cache, the new array with it
    assert again["progress_cached_snapshots"] == 3 and again["progress"] == run["progress"]
