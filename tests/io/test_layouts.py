"""Tests of the checkpoint layouts (cogo.io.layouts through cogo.io.weights.read_checkpoint).

The files are small synthetic ones with exactly the keys and shapes the reference code
writes (``facebookresearch/luckmatters``, ``ssl/real-dataset/cogo``: at HEAD ``W.weight``
(q, 2n), ``V.weight`` (n, q), a fixed ``embedding.weight`` (n, n) and a ``results`` list
beside ``model``; at commit ba2de90 ``layera/layerb/layerc.weight`` and the same
embedding), and of a shared-embedding network (``nn.Embedding`` + ``nn.Linear``).  The
weights are a known optimum (z_M of SPEC 7), so a correct reading is also a correct
network: its loss on all pairs, computed here by the reference forward pass, is ~0.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from cogo.io.file_formats import CheckpointError
from cogo.io.weights import read_checkpoint
from cogo.cli import main
from cogo.io import layouts
from cogo.io.layouts import read_options
from cogo.runtime.errors import CogoError
from cogo.solvers.constructions import z_M

N = 5


def _opt():
    Wa, Wb, Wc = (torch.from_numpy(np.ascontiguousarray(w)).float() for w in z_M(N).to_weights(real=True))
    return Wa, Wb, Wc


def _head_state(Wa, Wb, Wc, E=None):
    n = Wa.shape[1]
    return {"embedding.weight": torch.eye(n) if E is None else E, "W.weight": torch.cat([Wa, Wb], 1),
            "V.weight": Wc}


def _head_forward(state, a, b):
    """The reference code's forward (HEAD): V (sigma(W [E[a]; E[b]]))."""
    E, W, V = state["embedding.weight"].double(), state["W.weight"].double(), state["V.weight"].double()
    x = torch.cat([E[a], E[b]], 1)
    return (W @ x.T).T.pow(2) @ V.T


def _cogo_forward(w, a, b):
    h = w.Wa[:, a] + w.Wb[:, b]
    return (w.Wc @ h ** 2).T


@pytest.mark.parametrize("wrapper", [None, "model", "state_dict"])
def test_head_layout(tmp_path, wrapper):
    Wa, Wb, Wc = _opt()
    st = _head_state(Wa, Wb, Wc)
    obj = st if wrapper is None else {wrapper: st, "results": [{"epoch": 0, "train_acc": 1.0}]}
    path = tmp_path / "model00300.pt"
    torch.save(obj, path)
    w = read_checkpoint(path)
    assert w.layout == "head" and w.activation == "sqr"
    assert np.array_equal(w.Wa, Wa.double().numpy()) and np.array_equal(w.Wb, Wb.double().numpy())
    assert np.array_equal(w.Wc, Wc.double().numpy())


def test_head_nonidentity_embedding_is_composed(tmp_path):
    Wa, Wb, Wc = _opt()
    E = torch.from_numpy(np.random.default_rng(0).normal(size=(N, N))).float()
    st = _head_state(Wa, Wb, Wc, E)
    torch.save({"model": st}, tmp_path / "e.pt")
    w = read_checkpoint(tmp_path / "e.pt")
    a, b = np.repeat(np.arange(N), N), np.tile(np.arange(N), N)
    ref = _head_forward(st, torch.as_tensor(a), torch.as_tensor(b)).numpy()
    assert np.allclose(_cogo_forward(w, a, b), ref, rtol=1e-5, atol=1e-5)
    assert not np.allclose(w.Wa, Wa.double().numpy(), atol=1e-3)                # E was not ignored


def test_ba2de90_layout_with_embedding(tmp_path):
    Wa, Wb, Wc = _opt()
    st = {"embedding.weight": torch.eye(N), "layera.weight": Wa, "layerb.weight": Wb, "layerc.weight": Wc}
    torch.save({"model": st, "results": []}, tmp_path / "m.pt")
    w = read_checkpoint(tmp_path / "m.pt")
    assert w.layout == "ba2de90" and np.array_equal(w.Wc, Wc.double().numpy())


@pytest.mark.parametrize("out_key", ["linear.weight", "V.weight", "W_U"])
def test_shared_embedding_layout(tmp_path, out_key):
    rng = np.random.default_rng(1)
    E = torch.from_numpy(rng.normal(size=(N, 8))).float()        # nn.Embedding(n, q).weight
    U = torch.from_numpy(rng.normal(size=(N, 8))).float()        # nn.Linear(q, n).weight
    st = {"embedding.weight": E, out_key: U} if out_key != "W_U" else {"W_E": E, "W_U": U.T.contiguous()}
    torch.save(st, tmp_path / "s.pt")
    w = read_checkpoint(tmp_path / "s.pt")
    assert w.layout == "shared"
    assert np.array_equal(w.Wa, w.Wb) and np.array_equal(w.Wa, E.double().numpy().T)
    assert np.array_equal(w.Wc, U.double().numpy())


def test_safetensors_and_npz_layouts(tmp_path):
    from safetensors.torch import save_file

    Wa, Wb, Wc = _opt()
    st = _head_state(Wa, Wb, Wc)
    save_file(st, str(tmp_path / "h.safetensors"))
    np.savez(tmp_path / "h.npz", **{k: v.numpy() for k, v in st.items()})
    for f in ("h.safetensors", "h.npz"):
        w = read_checkpoint(tmp_path / f)
        assert w.layout == "head" and np.array_equal(w.Wa, Wa.double().numpy())
    np.savez(tmp_path / "own.npz", Wa=Wa.numpy(), Wb=Wb.numpy(), Wc=Wc.numpy())
    assert read_checkpoint(tmp_path / "own.npz").layout == "npz"


def test_corrupt_safetensors_is_one_line(tmp_path):
    p = tmp_path / "x.safetensors"
    p.write_bytes(b"\xff" * 8 + b"{}")
    with pytest.raises(CheckpointError, match="not a safetensors file"):
        read_checkpoint(p)


@pytest.mark.parametrize("extra,word", [({"V.bias": torch.zeros(N)}, "bias terms V.bias"),
                                        ({"bn.running_mean": torch.zeros(8), "bn.weight": torch.ones(8)},
                                         "BatchNorm bn.running_mean"),
                                        ({"other_layers.0.weight": torch.zeros(8, 8)},
                                         "extra layers/entries other_layers.0.weight")])
def test_outside_the_model_is_refused(tmp_path, extra, word, capsys):
    Wa, Wb, Wc = _opt()
    st = {**_head_state(Wa, Wb, Wc), **extra}
    torch.save({"model": st}, tmp_path / "x.pt")
    with pytest.raises(CheckpointError, match="refused") as e:
        read_checkpoint(tmp_path / "x.pt")
    assert word in str(e.value) and "\n" not in str(e.value)
    assert main(["classify", str(tmp_path / "x.pt"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and word in err


def test_unknown_layout_lists_keys_and_what_to_pass(tmp_path):
    torch.save({"enc.weight": torch.zeros(8, N), "dec.weight": torch.zeros(N, 8)}, tmp_path / "u.pt")
    with pytest.raises(CheckpointError) as e:
        read_checkpoint(tmp_path / "u.pt")
    msg = str(e.value)
    assert "enc.weight (8, 5)" in msg and "dec.weight (5, 8)" in msg and "--keys" in msg


def _docs_layout_rows() -> dict:
    """``{layout: keys (shapes)}`` of the table under "## Layouts" in docs/cli.md."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    section = text.split("\n## Layouts\n", 1)[1].split("\n## ", 1)[0]
    rows = [ln.split(" | ", 1) for ln in section.splitlines() if ln.startswith("| `")]
    return {name.strip("| `"): doc.rstrip(" |") for name, doc in rows}


def test_every_layout_is_one_record_and_one_docs_row():
    """The registry is the one list of layouts: names unique, each row of docs/cli.md its record's doc line."""
    names = [r.name for r in layouts.LAYOUTS]
    assert len(set(names)) == len(names) and {"cogo", "ba2de90", "head", "shared", "npz", "keys"} <= set(names)
    assert _docs_layout_rows() == {r.name: r.doc for r in layouts.LAYOUTS}
    assert all(r.detect is not None and r.read is not None for r in layouts.LAYOUTS if r.name != "npz")


def test_a_new_layout_is_one_record(monkeypatch):
    """A record added to LAYOUTS is detected and read through it, with no other change; before it, no layout fits."""
    state = {"enc": np.ones((8, N)), "dec": np.ones((N, 8))}
    with pytest.raises(CogoError, match="no known checkpoint layout"):
        layouts.read_state(state, "x.pt")
    rec = layouts.Layout("encdec", "`enc` (q, n) for both operands, `dec` (n, q)",
                         detect=lambda keys, meta, opts: {"enc", "dec"} <= keys,
                         read=lambda st, where, name, opts, n: ([st["enc"], st["enc"], st["dec"]], name),
                         one_embedding=True)
    monkeypatch.setattr(layouts, "LAYOUTS", layouts.LAYOUTS + (rec,))
    (Wa, Wb, Wc), name = layouts.read_state(state, "x.pt")
    assert name == "encdec" and Wa.shape == (8, N) and Wc.shape == (N, 8)
    assert layouts.detect_layout(state) == "encdec" and layouts.detect_layout({"dec": 0}) is None


def test_explicit_keys_orientation(tmp_path, capsys):
    Wa, Wb, Wc = _opt()                       # q = 25, n = 5
    torch.save({"enc1": Wa, "enc2": Wb, "dec": Wc}, tmp_path / "k.pt")
    path = tmp_path / "k.pt"
    # shapes fit two readings ((q, n) as stored, or everything transposed); only the first has q >= n
    o = read_options(keys="Wa=enc1,Wb=enc2,Wc=dec")
    assert np.array_equal(read_checkpoint(path, options=o).Wa, Wa.double().numpy())
    w = read_checkpoint(path, group=N, options=o)       # the group order settles it too
    assert np.array_equal(w.Wa, Wa.double().numpy()) and w.layout == "keys"
    # a square network (q = n) fits both readings with q >= n: ambiguous, and the error says what to pass
    sq = torch.zeros(N, N)
    torch.save({"enc1": sq, "enc2": sq, "dec": sq}, tmp_path / "sq.pt")
    with pytest.raises(CheckpointError, match="ambiguous") as e:
        read_checkpoint(tmp_path / "sq.pt", options=o)
    assert "enc1 (5, 5)" in str(e.value) and "--group" in str(e.value) and ":T" in str(e.value)
    assert np.array_equal(read_checkpoint(path, options=read_options(keys="Wa=enc1:N,Wb=enc2:N,Wc=dec:N")).Wc,
                          Wc.double().numpy())
    # transposed storage, marked with :T
    torch.save({"enc1": Wa.T.contiguous(), "enc2": Wb.T.contiguous(), "dec": Wc.T.contiguous()}, path)
    assert np.array_equal(read_checkpoint(path, options=read_options(keys="Wa=enc1:T,Wb=enc2:T,Wc=dec:T")).Wb,
                          Wb.double().numpy())
    # the CLI flag, a shared embedding, and a key the file lacks
    torch.save({"emb": Wa, "out": Wc}, path)
    assert main(["classify", str(path), "--group", "5", "--keys", "Wa=emb,Wc=out", "--shared-embedding",
                 "--no-progress"]) == 0
    assert "layout keys+shared" in capsys.readouterr().out
    assert main(["classify", str(path), "--group", "5", "--keys", "Wa=emb,Wc=nope", "--shared-embedding",
                 "--no-progress"]) == 2
    assert "names 'nope', which the file lacks" in capsys.readouterr().err


def test_head_checkpoint_through_classify_and_verify(tmp_path, capsys):
    Wa, Wb, Wc = _opt()
    torch.save({"model": _head_state(Wa, Wb, Wc), "results": []}, tmp_path / "h.pt")
    assert main(["classify", str(tmp_path / "h.pt"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "layout head, activation sqr" in out and "25 hidden nodes" in out
    assert main(["verify", "--checkpoint", str(tmp_path / "h.pt")]) == 0       # z_M is a global optimizer
    out = capsys.readouterr().out
    assert "layout head" in out and "numeric (secondary): optimal within tolerance 1.42e-10" in out  # float32: its t
    assert "verdict: near a certified optimizer" in out and "z_M" in out      # z_M rounded to float32: near z_M
    # a mutated reading (V taken as W_a's partner transposed) would not be optimal: the layout matters
    torch.save({"model": {"W.weight": torch.cat([Wb, Wa], 1), "V.weight": Wc.flip(0)}}, tmp_path / "bad.pt")
    assert main(["verify", "--checkpoint", str(tmp_path / "bad.pt")]) == 1


def test_the_reading_options_reach_every_file_and_every_worker(tmp_path):
    """--keys travels as a parameter (no context variable in cogo.io): a sweep of foreign files read in two worker
    processes reads every one of them with the key map, as one process does."""
    import json
    from pathlib import Path

    from cogo.solvers.constructions import z_F6

    Wa, Wb, Wc = (torch.as_tensor(x) for x in z_F6(5).to_weights(real=True))
    paths = []
    for i in range(3):
        p = tmp_path / f"foreign{i}.pt"
        torch.save({"enc1": Wa, "enc2": Wb, "dec": Wc}, p)
        paths.append(str(p))
    outs = []
    for workers in ("1", "2"):
        out = tmp_path / f"c{workers}.json"
        assert main(["classify", *paths, "--group", "5", "--keys", "Wa=enc1,Wb=enc2,Wc=dec", "--workers", workers,
                     "--json", str(out), "--no-progress"]) == 0
        outs.append(json.loads(out.read_text()))
    assert outs[0]["summary"]["checkpoints"] == outs[1]["summary"]["checkpoints"] == 3
    assert outs[0]["summary"]["order_counts"] == outs[1]["summary"]["order_counts"] == {"6": 6}
    src = "\n".join(p.read_text() for p in (Path(layouts.__file__).parent).glob("*.py"))
    assert "ContextVar" not in src and "contextvars" not in src
