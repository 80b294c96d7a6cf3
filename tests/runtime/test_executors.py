"""Tests of cogo.runtime.executors: `--executor local` (submitit subprocesses) gives the in-process numbers, resumes,
reports failed jobs, and refuses in one line what cannot run (no submitit, no sbatch).

A Slurm run cannot be tested on this machine (no cluster); only its refusal without sbatch is.
Every training here is tiny (Z_5, q = 8, a few epochs) so that each test takes a few seconds.
"""
import json
import math
import shutil
import sys

import pytest

from cogo.cli import main
from cogo.runtime.errors import CogoError
from cogo.runtime.executors import ExecutorSettings, run_jobs

SWEEP = ["li2-sweep", "--groups", "5", "--seeds", "1-2", "--epochs", "5", "--hidden", "8", "--threads", "1"]


def _rows(path):
    data = json.loads((path / "sweep.json").read_text())
    for r in data["rows"]:
        r.pop("wall_s")  # a timing: the only field allowed to differ
    return data


@pytest.mark.slow  # a subprocess per job imports torch: tens of seconds on 2 shared cores
def test_li2_sweep_local_executor_equals_inprocess_and_resumes(tmp_path, capsys):
    pytest.importorskip("submitit")
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(SWEEP + ["--x", "1", "3", "--out", str(a)]) == 0
    # b: the cell x=1 in-process first, then the full grid on the local executor: only x=3 is a job
    assert main(SWEEP + ["--x", "1", "--out", str(b)]) == 0
    capsys.readouterr()
    assert main(SWEEP + ["--x", "1", "3", "--out", str(b), "--executor", "local", "--max-jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("submitted ") == 1 and "x=3 lr=0.01 seeds [1, 2] (local job" in out
    assert (b / "jobs").is_dir()
    ra, rb = _rows(a), _rows(b)
    assert len(ra["rows"]) == 4 and ra == rb  # same numbers, same order, same config
    # everything done: the same command on the executor submits nothing
    assert main(SWEEP + ["--x", "1", "3", "--out", str(b), "--executor", "local"]) == 0
    assert "submitted" not in capsys.readouterr().out


@pytest.mark.slow  # a subprocess per job imports torch: tens of seconds on 2 shared cores
def test_experiment_local_executor_writes_the_in_process_weights(tmp_path, capsys):
    pytest.importorskip("submitit")
    import torch

    from cogo.commands.grid.config import ExperimentConfig
    from cogo.solvers.training import train

    b = tmp_path / "b"
    assert main(["experiment", "--groups", "5", "--seeds", "1-2", "--epochs", "5", "--hidden", "8", "--verify", "none",
                 "--no-progress", "--out", str(b), "--executor", "local"]) in (0, 1)
    out = capsys.readouterr().out
    # one job trained both seeds; the per-group step then found them trained (the resume path)
    assert "1 job(s) on the local executor" in out and "reusing 2 trained model(s)" in out
    assert "training seeds" not in out
    report = json.loads((b / "report.json").read_text())
    assert [t["seed"] for t in report["training"]] == [1, 2]
    # the same batched program in this process gives the same weights and final numbers
    tc = ExperimentConfig(groups=("5",), seeds=(1, 2), hidden=8, epochs=5).train_config("5", 5e-5)
    for r, t in zip(train(tc, [1, 2], [5e-5], progress=False), report["training"]):
        ck = torch.load(b / t["path"], weights_only=True)["model"]
        assert len(ck) == 3 and all(torch.equal(w.to(v.dtype), v) for w, v in zip((r.Wa, r.Wb, r.Wc), (
            ck["layera.weight"], ck["layerb.weight"], ck["layerc.weight"])))
        assert t["test_loss"] == r.final["test_loss"] and t["train_acc"] == r.final["train_acc"]


def test_failed_job_is_reported_after_the_others(tmp_path):
    pytest.importorskip("submitit")
    got = {}
    s = ExecutorSettings(kind="local", folder=str(tmp_path / "jobs"), max_jobs=2)
    with pytest.raises(CogoError, match=r"1 of 2 job\(s\) failed.*math domain error") as exc:
        run_jobs(s, math.sqrt, [(4.0,), (-1.0,)], lambda i, v: got.__setitem__(i, v), log=lambda s: None)
    assert got == {0: 2.0}  # the good job's result was handed over before the error
    assert "\n" not in str(exc.value)


def test_inprocess_runs_in_order_and_propagates():
    seen = []
    run_jobs(None, math.sqrt, [(9.0,), (16.0,)], lambda i, v: seen.append((i, v)))
    assert seen == [(0, 3.0), (1, 4.0)]
    with pytest.raises(ValueError, match="math domain error"):
        run_jobs(ExecutorSettings(), math.sqrt, [(-1.0,)], lambda i, v: None)


def test_missing_submitit_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "submitit", None)  # import submitit -> ImportError
    out = tmp_path / "sw"
    assert main(SWEEP + ["--x", "1", "--out", str(out), "--executor", "local"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "needs submitit" in err and "pip install -e '.[cluster]'" in err
    assert not out.exists()  # refused before anything was created
    with pytest.raises(CogoError, match="needs submitit"):
        ExecutorSettings(kind="slurm", folder=str(tmp_path)).validate()
    # in-process needs no submitit
    assert ExecutorSettings().validate().kind == "inprocess"


@pytest.mark.skipif(shutil.which("sbatch") is not None, reason="a Slurm cluster is present")
def test_slurm_without_sbatch_is_refused(tmp_path, capsys):
    # without the cluster extra the refusal names submitit first (test_missing_submitit_is_one_line)
    pytest.importorskip("submitit", reason="the 'cluster' extra (submitit) is not installed")
    out = tmp_path / "sw"
    argv = SWEEP + ["--x", "1", "--out", str(out), "--executor", "slurm", "--slurm-partition", "cpu",
                    "--slurm-time", "30"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("cogo: error:") and "sbatch" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_bad_executor_flags(tmp_path, capsys):
    for extra in (["--executor", "dask"], ["--max-jobs", "0"], ["--slurm-time", "-5"]):
        assert main(SWEEP + ["--x", "1", "--out", str(tmp_path / "x")] + extra) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
    with pytest.raises(CogoError, match="executor must be one of"):
        ExecutorSettings(kind="ray").validate()


def test_verify_semiring_refuses_a_nonabelian_group(capsys):
    assert main(["verify", "--group", "S3"]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""  # refused before the header line
    err = cap.err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("cogo: error:")
    assert "Abelian" in err and "--theory li2" in err
