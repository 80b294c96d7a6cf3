"""The peers' measures (cogo.dynamics.peers) against independent implementations written here from the authors'
published code, not from cogo: Nanda et al.'s helpers (mechanistic-interpretability-grokking/progress-measures-paper:
fourier_2d_basis_term, get_component_cos_xpy / sin_xpy, test_logits' bias_correction, extract_freq_2d and the
neuron-frequency loop of their notebook), Chughtai et al.'s metrics (bilal-chughtai/rep-theory-mech-interp:
logit_trace_similarity, total_hidden_excluded_and_restricted_loss, percent_total_embed, the standard and sign
representations built from permutation matrices, Cyclic2dRepresentation) and Gromov's / Doshi et al.'s IPR.
Everything float64; tolerance 1e-10 relative unless stated."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from cogo.algebra.group_parsing import as_finite_group, parse_group
from cogo.dynamics.peers import chughtai_hidden_fve, doshi_ipr, peer_keys, peer_measures

RTOL = 1e-10


def _weights(M, q, seed, scale=0.5):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(q, M)) * scale, rng.normal(size=(q, M)) * scale, rng.normal(size=(M, q)) * scale)


# ------------------------------------------------------------------ independent pieces (from the authors' code)
def _table(group):
    FG = as_finite_group(parse_group(group))
    return np.asarray(FG.table), np.asarray(FG.inverse)


def _forward(Wa, Wb, Wc):
    """Hidden activations (M^2, q) and logits (M^2, M) pair by pair, p = a M + b (loops, x^2 activation)."""
    q, M = Wa.shape
    H = np.zeros((M * M, q))
    for a in range(M):
        for b in range(M):
            H[a * M + b] = (Wa[:, a] + Wb[:, b]) ** 2
    return H, H @ Wc.T


def _mse(L, labels):
    """cogo's training loss (SPEC 1), written out: ||(o - mean o) - (e_c - 1/M)||^2 per pair, mean over pairs."""
    M = L.shape[1]
    out = []
    for o, c in zip(L, labels):
        t = -np.ones(M) / M
        t[c] += 1
        out.append(np.sum((o - o.mean() - t) ** 2))
    return float(np.mean(out))


def _ce(L, labels):
    out = []
    for o, c in zip(L, labels):
        m = o.max()
        out.append(m + np.log(np.exp(o - m).sum()) - o[c])
    return float(np.mean(out))


def _nanda_fourier_basis(p):
    """Their notebook's basis: the constant, then cos and sin of each frequency 1 .. p//2, each row normalized."""
    rows = [np.ones(p)]
    for k in range(1, p // 2 + 1):
        rows.append(np.cos(2 * np.pi * np.arange(p) * k / p))
        rows.append(np.sin(2 * np.pi * np.arange(p) * k / p))
    B = np.asarray(rows)
    return B / np.linalg.norm(B, axis=1, keepdims=True)


def _fourier_2d_basis_term(i, j, B):
    return (B[i][:, None] * B[j][None, :]).reshape(-1)


def _nanda_components(L, ks, B):
    """Sum over ks of get_component_cos_xpy + get_component_sin_xpy (each output's logits over the p^2 pairs)."""
    out = np.zeros_like(L)
    for k in ks:
        cos_xpy = (_fourier_2d_basis_term(2 * k - 1, 2 * k - 1, B) - _fourier_2d_basis_term(2 * k, 2 * k, B)) / np.sqrt(2)
        sin_xpy = (_fourier_2d_basis_term(2 * k, 2 * k - 1, B) + _fourier_2d_basis_term(2 * k - 1, 2 * k, B)) / np.sqrt(2)
        for v in (cos_xpy, sin_xpy):
            out += v[:, None] @ (v[None, :] @ L)
    return out


def _nanda_key_freqs(H, p, live, freqs):
    """Their neuron-frequency loop: centred activations, 2-D Fourier, the 3x3 block of each frequency."""
    B = _nanda_fourier_basis(p)
    best = []
    for n in np.flatnonzero(live):
        acts = (H[:, n] - H[:, n].mean()).reshape(p, p)
        F = B @ acts @ B.T
        fracs = []
        for k in freqs:
            idx = [0, 2 * k - 1, 2 * k]
            fracs.append((F[np.ix_(idx, idx)] ** 2).sum() / (F ** 2).sum())
        best.append(freqs[int(np.argmax(fracs))])
    return sorted(set(best))


def _nanda_losses(Wa, Wb, Wc, p, ks, train_idx):
    H, L = _forward(Wa, Wb, Wc)
    labels = np.asarray([(a + b) % p for a in range(p) for b in range(p)])
    comp = _nanda_components(L, ks, _nanda_fourier_basis(p))
    restricted = (L - comp).mean(0, keepdims=True) + comp            # test_logits(bias_correction=True)
    excluded = L - comp
    tr = np.asarray(train_idx)
    return {"restricted_mse": _mse(restricted, labels), "restricted_ce": _ce(restricted, labels),
            "excluded_mse": _mse(excluded[tr], labels[tr]), "excluded_ce": _ce(excluded[tr], labels[tr])}


def _live(Wa, Wb, Wc, thr=0.01):
    s = np.cbrt(np.maximum(np.linalg.norm(Wa, axis=1), np.linalg.norm(Wb, axis=1)) ** 2 * np.linalg.norm(Wc, axis=0))
    return s > thr * s.max()


# ------------------------------------------------------------------ Nanda et al.
@pytest.mark.parametrize("p,seed", [(7, 0), (9, 1), (11, 2)])
def test_nanda_restricted_and_excluded_loss_against_their_projection(p, seed):
    Wa, Wb, Wc = _weights(p, 10, seed)
    keys = peer_keys(Wa, Wb, Wc, p)
    H, _ = _forward(Wa, Wb, Wc)
    want_keys = _nanda_key_freqs(H, p, _live(Wa, Wb, Wc), list(range(1, p // 2 + 1)))
    assert keys["nanda"] == want_keys
    tr = np.random.default_rng(seed).permutation(p * p)[: p * p // 2]
    for ks in (keys["nanda"], [1], [1, p // 2]):
        got = peer_measures(Wa[None], Wb[None], Wc[None], p, {**keys, "nanda": ks}, train_idx=tr)
        want = _nanda_losses(Wa, Wb, Wc, p, ks, tr)
        for k, v in want.items():
            assert got[f"nanda_{k}"][0] == pytest.approx(v, rel=RTOL), (p, ks, k)
    # the comparison can fail: another key set gives another restricted loss
    a = peer_measures(Wa[None], Wb[None], Wc[None], p, {**keys, "nanda": [1]}, train_idx=tr)["nanda_restricted_mse"]
    b = peer_measures(Wa[None], Wb[None], Wc[None], p, {**keys, "nanda": [2]}, train_idx=tr)["nanda_restricted_mse"]
    assert abs(a[0] - b[0]) > 1e-6


def test_nanda_key_frequency_rule_includes_the_last_frequency_their_code_skips():
    """A network whose nodes sit at every frequency: (p-1)/2 is key by the paper; their loop range(1, p//2) misses it."""
    from cogo.solvers.constructions import z_F6

    p = 11
    Wa, Wb, Wc = z_F6(p).to_weights(real=True)
    H, _ = _forward(Wa, Wb, Wc)
    live = _live(Wa, Wb, Wc)
    assert peer_keys(Wa, Wb, Wc, p)["nanda"] == _nanda_key_freqs(H, p, live, list(range(1, p // 2 + 1))) \
        == list(range(1, 6))
    assert 5 not in _nanda_key_freqs(H, p, live, list(range(1, p // 2)))      # their code's loop


def test_nanda_measures_are_none_for_a_group_that_is_not_z_p():
    Wa, Wb, Wc = _weights(6, 8, 0)
    assert peer_keys(Wa, Wb, Wc, "S3")["nanda"] is None
    got = peer_measures(Wa[None], Wb[None], Wc[None], "S3", peer_keys(Wa, Wb, Wc, "S3"))
    assert np.isnan(got["nanda_restricted_mse"]).all() and np.isnan(got["doshi_ipr_Wa"]).all()


# ------------------------------------------------------------------ Chughtai et al.
def _perm_reps(names):
    """Sign and standard representations of S_n from the one-line permutations (their StandardRepresentation)."""
    perms = [tuple(int(t) for t in nm.strip("()").split()) for nm in names]
    n = len(perms[0])
    N = []
    for pm in perms:
        m = np.zeros((n, n))
        m[np.arange(n), list(pm)] = 1
        N.append(m)
    T = np.zeros((n, n))
    for i in range(n - 1):
        T[i, i], T[i, i + 1] = 1, -1
    T[n - 1, n - 1] = 1
    std = np.asarray([(T @ m @ np.linalg.inv(T))[: n - 1, : n - 1] for m in N])
    sign = np.asarray([[[np.linalg.det(m)]] for m in N])
    return {"sign": sign, "standard": std}


def _cyclic_reps(M):
    out = {}
    for k in range(1, (M - 1) // 2 + 1):
        t = 2 * np.pi * k * np.arange(M) / M
        out[k] = np.stack([np.stack([np.cos(t), -np.sin(t)], -1), np.stack([np.sin(t), np.cos(t)], -1)], -2)
    return out


def _chughtai_direct(Wa, Wb, Wc, table, inv, rep, orth_cols=None):
    """Similarity, restricted / excluded loss over all pairs and W_a FVE of one representation, their way."""
    M = table.shape[0]
    H, L = _forward(Wa, Wb, Wc)
    labels = np.asarray([table[a, b] for a in range(M) for b in range(M)])
    cube = np.zeros((M * M, M))
    for i, (a, b) in enumerate(itertools.product(range(M), range(M))):
        for z in range(M):
            cube[i, z] = np.trace(rep[table[table[a, b], inv[z]]])
    Lc = L - L.mean(-1, keepdims=True)
    sim = float(Lc.reshape(-1) @ cube.reshape(-1) / np.linalg.norm(Lc) / np.linalg.norm(cube))
    d = rep.shape[1]
    # their hidden_reps_xy_orth is torch.linalg.qr of rep[labels] (M^2, d^2); for C_n's rank-2 rotation matrices
    # (4 columns) QR's extra columns leave the span, so an orthonormal basis of the span itself is taken here
    U, s, _ = np.linalg.svd(rep[labels].reshape(M * M, d * d), full_matrices=False)
    xy = U[:, s > 1e-9 * s[0]]
    Hr = xy @ (xy.T @ H)
    orth = rep.reshape(M, d * d)[:, : (orth_cols or d * d)]
    orth = np.linalg.qr(orth)[0]
    fve = float(((orth.T @ Wa.T) ** 2).sum() / (Wa ** 2).sum())
    return sim, Hr @ Wc.T, L, labels, fve


@pytest.mark.parametrize("group,seed", [("S3", 0), ("S3", 3), (7, 1)])
def test_chughtai_similarity_restricted_loss_and_fve_against_their_metrics(group, seed):
    G = parse_group(group)
    M = G.order
    table, inv = _table(group)
    Wa, Wb, Wc = _weights(M, 9, seed)
    if M == 7:
        reps = {f"rho{k}+rho{M - k}": (r, 2) for k, r in _cyclic_reps(M).items()}   # their hack: 2 columns for C_n
    else:
        reps = {nm: (r, None) for nm, r in _perm_reps(G.element_names).items()}
    keys = peer_keys(Wa, Wb, Wc, group)
    got = peer_measures(Wa[None], Wb[None], Wc[None], group, keys)
    from cogo.dynamics.families import family_basis

    B = family_basis(group)
    by_name = {"sign": next(f for f in range(len(B)) if B.irrep_dims[f] == 1 and f != B.trivial),
               "standard": next(f for f in range(len(B)) if B.irrep_dims[f] == 2)} if M != 7 else \
        {nm: B.names.index(nm) for nm in reps}
    sims = {}
    for nm, (rep, cols) in reps.items():
        sim, Lr, L, labels, fve = _chughtai_direct(Wa, Wb, Wc, table, inv, rep, cols)
        f = by_name[nm]
        sims[f] = sim
        assert got["chughtai_similarity"][0, f] == pytest.approx(sim, rel=RTOL, abs=1e-12), nm
        assert got["chughtai_fve_Wa"][0, f] == pytest.approx(fve, rel=RTOL), nm
        one = peer_measures(Wa[None], Wb[None], Wc[None], group, {**keys, "chughtai": [f]})
        assert one["chughtai_restricted_mse"][0] == pytest.approx(_mse(Lr, labels), rel=RTOL), nm
        assert one["chughtai_restricted_ce"][0] == pytest.approx(_ce(Lr, labels), rel=RTOL), nm
        assert one["chughtai_excluded_mse"][0] == pytest.approx(_mse(L - Lr, labels), rel=RTOL), nm
    assert keys["chughtai"] == sorted(f for f, s in sims.items() if s > 0.05)


def _their_orth(cols):
    """Their torch.linalg.qr(...)[0] of a matrix of representation functions (full column rank here)."""
    return np.linalg.qr(cols)[0]


def _their_percent_hidden(H, table, rep, rank_cols=None, centre=True):
    """Their percent_hidden at the paper's submission: H (M^2, q) centred per neuron over the pairs; the parts of the
    QR bases of hidden_reps_x = rep[a], hidden_reps_y = rep[b], hidden_reps_xy = rep[a b] (each (M^2, d^2)) in its
    squared norm. ``rank_cols``: the columns kept (their compute_orth_rep's hack for C_n: 2 of the 4 rotation entries,
    whose QR would otherwise add columns outside the span). ``centre=False``: their earlier 'DONT CENTER' version."""
    M, d = table.shape[0], rep.shape[1]
    a = np.repeat(np.arange(M), M)
    b = np.tile(np.arange(M), M)
    ab = table[a, b]
    hidden = H - H.mean(0, keepdims=True) if centre else H
    norm = (hidden ** 2).sum()
    out = {}
    for part, idx in (("a", a), ("b", b), ("ab", ab)):
        orth = _their_orth(rep[idx].reshape(M * M, d * d)[:, : (rank_cols or d * d)])
        out[part] = float(((orth.T @ hidden) ** 2).sum() / norm)
    return out


def _chughtai_cases(group):
    """Their representations of ``group`` (name -> (rep, columns kept)) and cogo's family index of each."""
    from cogo.dynamics.families import family_basis

    G = parse_group(group)
    M = G.order
    B = family_basis(group)
    if group == "S3":
        reps = {nm: (r, None) for nm, r in _perm_reps(G.element_names).items()}
        fam = {"sign": next(f for f in range(len(B)) if B.irrep_dims[f] == 1 and f != B.trivial),
               "standard": next(f for f in range(len(B)) if B.irrep_dims[f] == 2)}
    else:
        reps = {f"rho{k}+rho{M - k}": (r, 2) for k, r in _cyclic_reps(M).items()}
        fam = {nm: B.names.index(nm) for nm in reps}
    return reps, fam


@pytest.mark.parametrize("group,seed", [("S3", 0), ("S3", 3), (7, 1), (9, 2), (11, 4)])
def test_chughtai_hidden_fve_against_their_percent_hidden(group, seed):
    """Their MLP rho(ab) FVE and MLP FVE (percent_hidden_xy, total_percent_hidden) per irrep, 1e-10 relative; their
    earlier uncentred version gives other values (the comparison can fail)."""
    M = parse_group(group).order
    table, _ = _table(group)
    Wa, Wb, Wc = _weights(M, 9, seed)
    H, _ = _forward(Wa, Wb, Wc)
    keys = peer_keys(Wa, Wb, Wc, group)
    got = peer_measures(Wa[None], Wb[None], Wc[None], group, keys)
    reps, fam = _chughtai_cases(group)
    for nm, (rep, cols) in reps.items():
        want = _their_percent_hidden(H, table, rep, cols)
        f = fam[nm]
        assert got["chughtai_fve_hidden_ab"][0, f] == pytest.approx(want["ab"], rel=RTOL, abs=1e-14), nm
        assert got["chughtai_fve_hidden"][0, f] == pytest.approx(sum(want.values()), rel=RTOL, abs=1e-14), nm
        parts = chughtai_hidden_fve(H[None], group)
        for k in ("a", "b"):
            assert parts[k][0, f] == pytest.approx(want[k], rel=RTOL, abs=1e-14), (nm, k)
        uncentred = _their_percent_hidden(H, table, rep, cols, centre=False)["ab"]
        assert abs(uncentred - want["ab"]) > 1e-3 * want["ab"] > 0, nm
    from cogo.dynamics.families import family_basis

    assert abs(got["chughtai_fve_hidden"][0, family_basis(group).trivial]) < 1e-12     # centred: the trivial is 0


def test_chughtai_hidden_fve_separates_functions_of_ab_from_functions_of_a():
    """Activations that are matrix coefficients of S_3's 2-D irrep at ab (at a, at b) score 1 for it in the functions
    g(ab) (g(a), g(b)) and 0 in the other parts and irreps, so a swapped basis is caught."""
    G = parse_group("S3")
    table, _ = _table("S3")
    reps, fam = _chughtai_cases("S3")
    std = reps["standard"][0]
    M = G.order
    a = np.repeat(np.arange(M), M)
    b = np.tile(np.arange(M), M)
    mix = np.random.default_rng(0).normal(size=(4, 5))                # 5 neurons, each a mix of the 4 coefficients
    f, sign = fam["standard"], fam["sign"]
    for part, idx in (("ab", table[a, b]), ("a", a), ("b", b)):
        H = (std[idx].reshape(M * M, 4) @ mix + 3.0)[None]            # plus a constant, which centring removes
        got = chughtai_hidden_fve(H, "S3")
        for k, v in got.items():
            assert v[0, f] == pytest.approx(1.0 if k == part else 0.0, rel=RTOL, abs=1e-12), (part, k)
            assert abs(v[0, sign]) < 1e-12, (part, k)
    zero = chughtai_hidden_fve(np.ones((1, M * M, 3)), "S3")           # no varying activation: 0, not NaN
    assert all(np.all(v == 0) for v in zero.values())


def test_chughtai_hidden_fve_of_a_one_frequency_quadratic_node_by_hand():
    """(cos(w a + s) + cos(w b + t))^2, centred: cos(2wa + 2s) / 2 + cos(2wb + 2t) / 2 + cos(w(a+b) + s+t) +
    cos(w(a-b) + s-t), mean squares 1/8, 1/8, 1/2, 1/2 of 5/4: 0.4 by g(ab) at frequency 1, 0.1 by g(a) and 0.1 by
    g(b) at frequency 2, and the a-b term in none."""
    p = 11
    x = 2 * np.pi * np.arange(p) / p
    h = ((np.cos(x[:, None] + 0.3) + np.cos(x[None, :] - 1.1)) ** 2).reshape(1, p * p, 1)
    got = chughtai_hidden_fve(h, p)                                    # families: {0}, {1, 10}, {2, 9}, ...
    want = {"ab": [0, 0.4, 0, 0, 0, 0], "a": [0, 0, 0.1, 0, 0, 0], "b": [0, 0, 0.1, 0, 0, 0]}
    for k, w in want.items():
        np.testing.assert_allclose(got[k][0], w, rtol=RTOL, atol=1e-14)


# ------------------------------------------------------------------ Gromov / Doshi et al.
def test_doshi_ipr_against_an_explicit_dft():
    rng = np.random.default_rng(0)
    M = 9
    W = rng.normal(size=(5, M))
    F = np.asarray([[sum(w[x] * np.exp(-2j * np.pi * k * x / M) for x in range(M)) for k in range(M)] for w in W])
    P = np.abs(F) ** 2
    want = (P ** 2).sum(1) / P.sum(1) ** 2
    np.testing.assert_allclose(doshi_ipr(W), want, rtol=RTOL)
    x = np.arange(M)
    assert doshi_ipr(np.cos(2 * np.pi * 2 * x / M + 0.3)) == pytest.approx(0.5, rel=RTOL)   # one pair: 1/2
    Wa, Wb, Wc = W[:3], W[2:], rng.normal(size=(M, 3))
    got = peer_measures(Wa[None], Wb[None], Wc[None], M, peer_keys(Wa, Wb, Wc, M))
    live = _live(Wa, Wb, Wc)
    assert got["doshi_ipr_Wa"][0] == pytest.approx(want[:3][live].mean(), rel=RTOL)


# ------------------------------------------------------------------ through cogo dynamics
def _nanda_from_checkpoint(path):
    """Nanda et al.'s key frequencies and restricted loss of a cogo checkpoint's final weights, read with torch."""
    import torch

    d = torch.load(path, weights_only=True)
    m = d["model"]
    Wa, Wb, Wc = (m[k].double().numpy() for k in ("layera.weight", "layerb.weight", "layerc.weight"))
    p = Wa.shape[1]
    H, _ = _forward(Wa, Wb, Wc)
    ks = _nanda_key_freqs(H, p, _live(Wa, Wb, Wc), list(range(1, p // 2 + 1)))
    return ks, _nanda_losses(Wa, Wb, Wc, p, ks, d["meta"]["train_idx"])


def _run_dynamics(tmp_path, group, hidden, epochs, snapshots):
    from cogo.cli import main

    runs = tmp_path / "runs"
    assert main(["train", "--group", str(group), "--seeds", "1", "--hidden", str(hidden), "--epochs", str(epochs),
                 "--snapshots", str(snapshots), "--spacing", "log", "--threads", "1", "--out", str(runs),
                 "--no-progress"]) == 0
    (ckpt,) = runs.glob("*.pt")
    assert main(["dynamics", str(ckpt), "--out", str(tmp_path / "dyn"), "--workers", "1", "--no-figures",
                 "--no-progress"]) == 0
    run = json.loads((tmp_path / "dyn" / "dynamics.json").read_text())["runs"][0]
    from cogo.dynamics.progress import progress_table

    last = progress_table(run)[-1]                                   # the per-snapshot table carries them too
    assert last["nanda_restricted_loss_mse"] == run["progress"]["nanda"]["restricted_loss"]["mse"][-1]
    assert last["chughtai_excluded_loss_ce"] == run["progress"]["chughtai"]["excluded_loss"]["ce"][-1]
    return ckpt, run["progress"]


def test_dynamics_json_reports_nanda_restricted_loss_of_a_z7_run(tmp_path):
    ckpt, pr = _run_dynamics(tmp_path, 7, 32, 60, 8)
    ks, want = _nanda_from_checkpoint(ckpt)
    assert pr["nanda"]["key_frequencies"] == ks
    assert pr["nanda"]["restricted_loss"]["mse"][-1] == pytest.approx(want["restricted_mse"], abs=1e-6)
    assert pr["nanda"]["excluded_loss"]["ce"][-1] == pytest.approx(want["excluded_ce"], abs=1e-6)
    _check_chughtai_hidden_fve(ckpt, pr)


def _check_chughtai_hidden_fve(ckpt, pr):
    """progress.chughtai.fve_hidden at the last snapshot against their percent_hidden of the checkpoint (torch.load)."""
    import torch

    from cogo.dynamics.peers_report import summary_lines

    m = torch.load(ckpt, weights_only=True)["model"]
    Wa, Wb, Wc = (m[k].double().numpy() for k in ("layera.weight", "layerb.weight", "layerc.weight"))
    M = Wa.shape[1]
    H, _ = _forward(Wa, Wb, Wc)
    table, _ = _table(M)
    c = pr["chughtai"]
    reps, fam = _chughtai_cases(M)
    want = {fam[nm]: _their_percent_hidden(H, table, rep, cols) for nm, (rep, cols) in reps.items()}
    for f, w in want.items():
        assert c["fve_hidden"]["ab"][-1][f] == pytest.approx(w["ab"], abs=1e-6)
        assert c["fve_hidden"]["total"][-1][f] == pytest.approx(sum(w.values()), abs=1e-6)
    key_total = sum(sum(want[f].values()) for f in c["key_irreps"])
    assert c["key_irreps"] and c["fve_hidden_key"]["total"][-1] == pytest.approx(key_total, abs=1e-6)
    line = summary_lines({"group": "7", "seed": 1, "progress": pr})[1]
    assert f"MLP FVE {c['fve_hidden_key']['total'][-1]:.3g} (rho(ab) {c['fve_hidden_key']['ab'][-1]:.3g})" in line


@pytest.mark.slow
def test_dynamics_json_reports_nanda_restricted_loss_of_a_z23_run_with_log_snapshots(tmp_path):
    """The issue's check: Z_23, log-spaced snapshots, Nanda et al.'s restricted loss (MSE) to 1e-6 at the end."""
    ckpt, pr = _run_dynamics(tmp_path, 23, 128, 400, 16)
    ks, want = _nanda_from_checkpoint(ckpt)
    assert pr["nanda"]["key_frequencies"] == ks
    assert pr["nanda"]["restricted_loss"]["mse"][-1] == pytest.approx(want["restricted_mse"], abs=1e-6)
    assert pr["nanda"]["excluded_loss"]["mse"][-1] == pytest.approx(want["excluded_mse"], abs=1e-6)
