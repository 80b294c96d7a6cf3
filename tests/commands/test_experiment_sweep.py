"""`cogo experiment` over wide grids: the laws of key sets, Wilson coverage, resume, dry run, bad input."""
import json

import numpy as np
import pytest

from cogo.cli import main
from cogo.commands.grid import selection_laws as L
from cogo.commands.grid import sweep as S

BASE = {"group": "7", "hidden": "8", "activation": "sqr", "optimizer": "adam", "lr": "0.01", "weight_decay": "0.0",
        "cyclic": "true"}


def _rows(sets, converged=None):
    conv = converged or [True] * len(sets)
    return [{**BASE, "seed": str(i + 1), "converged": "true" if c else "false", "chughtai_keys": s, "nanda_keys": s}
            for i, (s, c) in enumerate(zip(sets, conv))]


# --------------------------------------------------------------------------- aggregation against hand-computed laws
def test_keyset_law_hand_computed():
    # 6 converged runs: {1,2} three times, {1} twice, {2} once; a 7th run not converged ({3}) is left out.
    rows = _rows(["{1,2}", "{1,2}", "{1}", "{1,2}", "{2}", "{1}", "{3}"], [True] * 6 + [False])
    (c,) = L.laws(rows)
    assert (c["runs"], c["converged"]) == (7, 6)
    law = c["chughtai"]
    assert law["runs"] == 6
    assert list(law["sets"]) == ["{1,2}", "{1}", "{2}"]               # by count, then string
    assert [v["count"] for v in law["sets"].values()] == [3, 2, 1]
    assert [v["p"] for v in law["sets"].values()] == pytest.approx([0.5, 1 / 3, 1 / 6])
    # Wilson 95% intervals of 3/6, 2/6, 1/6 (the closed form with z = 1.959964, by hand):
    assert law["sets"]["{1,2}"]["ci95"] == pytest.approx([0.187616, 0.812384], abs=1e-6)
    assert law["sets"]["{1}"]["ci95"] == pytest.approx([0.096771, 0.700007], abs=1e-6)
    assert law["sets"]["{2}"]["ci95"] == pytest.approx([0.030053, 0.563503], abs=1e-6)
    # multiplicity of each key over runs: 1 is key in 5 of 6, 2 in 4 of 6; 3 never (its run did not converge)
    assert {k: v["count"] for k, v in law["keys"].items()} == {"1": 5, "2": 4}
    assert law["keys"]["1"]["ci95"] == pytest.approx([0.436497, 0.969947], abs=1e-6)
    assert {k: v["count"] for k, v in law["sizes"].items()} == {"1": 3, "2": 3}


def test_laws_split_configurations_and_nanda_undefined():
    rows = _rows(["{1}", "{1}"]) + [{**r, "weight_decay": "0.01"} for r in _rows(["{2}"])]
    rows += [{**r, "group": "S3", "cyclic": "false", "nanda_keys": ""} for r in _rows(["{2}", "{1,2}"])]
    cs = L.laws(rows)
    assert [(c["group"], c["weight_decay"], c["runs"]) for c in cs] == [("7", "0.0", 2), ("7", "0.01", 1), ("S3", "0.0", 2)]
    assert list(cs[1]["chughtai"]["sets"]) == ["{2}"]
    assert cs[2]["nanda"] is None                     # Nanda's key frequencies: Z_p only


def test_paper_table_mean_and_standard_error():
    rows = [{**BASE, "seed": str(i), "converged": "true", "frac_not_order_4_6": v, "error_order4": e}
            for i, (v, e) in enumerate([("0.0", "0.01"), ("0.5", ""), ("0.25", "0.03")])]
    rows.append({**BASE, "seed": "9", "activation": "relu", "converged": "true", "frac_not_order_4_6": "1.0"})
    (t,) = L.paper_table(rows)                       # the relu run is not in the paper's table
    assert t["runs"] == 3
    # mean 0.25; sample sd of (0, 0.5, 0.25) = 0.25; se = 0.25 / sqrt(3) = 0.144338
    assert t["frac_not_order_4_6"]["mean"] == pytest.approx(0.25)
    assert t["frac_not_order_4_6"]["se"] == pytest.approx(0.144338, abs=1e-6)
    # the run without order-4 blocks does not enter that column: mean of 0.01 and 0.03, se = 0.01414/sqrt(2) = 0.01
    assert (t["error_order4"]["mean"], t["error_order4"]["runs"]) == (pytest.approx(0.02), 2)
    assert t["error_order4"]["se"] == pytest.approx(0.01)


def test_block_columns_hand_computed():
    blocks = [{"k": 1, "order": 6, "type": "z_nu * z_syn", "factorable": True, "error": 0.04},
              {"k": 2, "order": 4, "type": "z_nu=i * z_xi", "factorable": True, "error": 0.001},
              {"k": 3, "order": 4, "type": "non-factorable", "factorable": False, "error": None},
              {"k": 4, "order": 3, "type": "non-factorable", "factorable": False, "error": None}]
    c = S._block_columns(blocks, nearest=False)
    assert c["block_orders"] == "1:6;2:4;3:4;4:3"
    assert c["frac_not_order_4_6"] == 0.25 and c["nonfact_order4"] == 0.5 and c["nonfact_order6"] == 0.0
    assert (c["error_order4"], c["error_order6"]) == (0.001, 0.04)
    assert (c["type_nu_i_xi"], c["type_nu_syn"], c["type_nu_i_synab"], c["type_others"]) == (0.5, 0.5, 0.0, 0.0)


# --------------------------------------------------------------------------- the intervals cover at their level
def _coverage(z):
    rng = np.random.default_rng(55)
    cov = []
    for n in (20, 50, 100):
        for p in (0.1, 0.3, 0.5, 0.8):
            xs = rng.binomial(n, p, size=2000)
            ci = {x: L.wilson(int(x), n, z) for x in np.unique(xs)}
            cov.append(np.mean([ci[x][0] <= p <= ci[x][1] for x in xs]))
    return np.array(cov)


def test_wilson_covers_at_its_level():
    cov = _coverage(L.Z95)
    assert 0.935 <= cov.mean() <= 0.965, cov
    assert cov.min() >= 0.90, cov
    narrow = _coverage(1.0)                          # a 68% interval: the same check fails for it
    assert narrow.mean() < 0.8


def test_wilson_bad_input():
    with pytest.raises(ValueError):
        L.wilson(3, 0)
    with pytest.raises(ValueError):
        L.wilson(5, 4)


# --------------------------------------------------------------------------- resume gives the same table
TINY = ["--groups", "5", "--hidden", "4", "--activation", "sqr", "relu", "--wd", "0", "1e-2", "--seeds", "1-2",
        "--epochs", "60", "--verify", "none", "--no-progress"]


def test_resume_after_interruption_same_table(tmp_path, monkeypatch):
    full = tmp_path / "full"
    assert main(["experiment", *TINY, "--out", str(full)]) == 0
    table = (full / "runs.csv").read_text()
    assert len(table.splitlines()) == 1 + 8              # header + 1 group x 1 width x 2 activations x 2 wd x 2 seeds
    law = json.loads((full / "keysets.json").read_text())
    assert len(law["configurations"]) == 4 and "Wilson" in law["ci_method"]
    assert (full / "figures" / "keysets_chughtai.png").stat().st_size > 0

    real, calls = S.train_cell, []

    def dies_on_second(*a, **k):
        calls.append(a)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    part = tmp_path / "part"
    monkeypatch.setattr(S, "train_cell", dies_on_second)
    assert main(["experiment", *TINY, "--out", str(part)]) == 130
    assert not (part / "runs.csv").exists()
    calls.clear()
    monkeypatch.setattr(S, "train_cell", lambda *a, **k: (calls.append(a), real(*a, **k))[1])
    assert main(["experiment", *TINY, "--out", str(part)]) == 0
    assert len(calls) == 1                               # only the interrupted program trained again
    assert (part / "runs.csv").read_text() == table      # checkpoints are named relative to --out
    laws = json.loads((part / "keysets.json").read_text())
    assert laws["configurations"] == law["configurations"] and laws["paper_table"] == law["paper_table"]
    assert main(["experiment", *TINY, "--out", str(part)]) == 0   # a third run reuses all: the same table
    assert (part / "runs.csv").read_text() == table


# --------------------------------------------------------------------------- dry run
def test_dry_run_counts_300_and_trains_nothing(tmp_path, monkeypatch, capsys):
    probed = []

    def fake(tc, models, threads):                       # the probe, measured as 1 ms per model-epoch + 0.5 s
        probed.append((tc.epochs, models))
        return 0.5 + 1e-3 * tc.epochs * models

    monkeypatch.setattr(S, "_timed", fake)
    out = tmp_path / "D2"
    rc = main(["experiment", "--groups", "23", "71", "127", "--hidden", "256", "512", "1024", "2048", "--wd", "1e-5",
               "5e-5", "1e-4", "2e-4", "5e-4", "--seeds", "1-5", "--dry-run", "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    assert "300 runs in 12 batched program(s) of 25 models" in text
    assert text.count("= 25 runs") == 12
    assert not out.exists()                              # nothing written
    assert max(e for e, _ in probed) <= 6 and all(m == 1 for _, m in probed)   # a probe, never the grid
    # each program: setup 0.5 + 25 models x 10000 epochs x 1 ms = 250.5 s; 12 programs: 3006 s
    assert "predicted training time: 3006 s" in text


# --------------------------------------------------------------------------- TOML and bad input
def test_toml_grid_and_flags_win(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(S, "_timed", lambda tc, models, threads: 0.001 * tc.epochs)
    f = tmp_path / "grid.toml"
    f.write_text('groups = ["5", "S3"]\nhidden = [2, 8]\nactivation = ["sqr", "relu"]\nwd = [0, 1e-2]\n'
                 'seeds = "1-20"\nepochs = 2000\nverify = "none"\n')
    assert main(["experiment", "--config", str(f), "--dry-run", "--out", str(tmp_path / "x")]) == 0
    assert "320 runs in 8 batched program(s) of 40 models, 2000 epochs" in capsys.readouterr().out
    assert main(["experiment", "--config", str(f), "--seeds", "1-3", "--dry-run", "--out", str(tmp_path / "x")]) == 0
    assert "48 runs in 8 batched program(s) of 6 models" in capsys.readouterr().out
    f.write_text('groups = ["5"]\nwidth = 3\n')
    assert main(["experiment", "--config", str(f), "--dry-run", "--out", str(tmp_path / "x")]) == 2
    assert "unknown key 'width'" in capsys.readouterr().err


@pytest.mark.parametrize("bad, says", [(["--groups", "Q7"], "Q7"), (["--seeds", "5-1"], "seeds"),
                                       (["--hidden", "2", "2"], "duplicate"), (["--preset", "loose"], "--preset"),
                                       (["--converged-acc", "1.5"], "converged")])
def test_bad_input_one_line_exit_2(tmp_path, capsys, bad, says):
    out = tmp_path / "D"
    args = ["experiment", "--groups", "5", "--hidden", "2", "8", "--seeds", "1-2", "--epochs", "5", "--verify", "none"]
    rc = main([*args, *bad, "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("cogo: error:") and says in err
    assert not out.exists()


# --------------------------------------------------------------------------- --verify certifies the catalogue
def test_verify_failure_is_exit_1(tmp_path, monkeypatch):
    import cogo.proofs.registry as registry

    args = ["experiment", "--groups", "5", "--hidden", "2", "4", "--seeds", "1", "--epochs", "20", "--verify",
            "numeric", "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "ok")]) == 0
    doc = json.loads((tmp_path / "ok" / "keysets.json").read_text())
    assert doc["verification"]["5"]["failed"] == 0 and doc["verification"]["5"]["passed"] > 0
    real = registry.run_all

    def one_broken(G, mode, **k):                     # inject a defect: the first check fails
        res = real(G, mode, **k)
        res[0].passed = False
        return res

    monkeypatch.setattr(registry, "run_all", one_broken)
    assert main([*args, "--out", str(tmp_path / "bad")]) == 1
    doc = json.loads((tmp_path / "bad" / "keysets.json").read_text())
    assert doc["verification"]["5"]["failed"] == 1


@pytest.mark.slow  # a subprocess per job imports torch
def test_local_executor_gives_the_in_process_table(tmp_path):
    pytest.importorskip("submitit")
    args = ["experiment", "--groups", "5", "S3", "--hidden", "4", "--seeds", "1-2", "--epochs", "50", "--verify", "none",
            "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--out", str(tmp_path / "b"), "--executor", "local"]) == 0
    assert (tmp_path / "a" / "runs.csv").read_text() == (tmp_path / "b" / "runs.csv").read_text()
