"""Where the training jobs of a sweep run: in this process, as local subprocesses, or on a Slurm cluster.

``cogo li2-sweep`` and ``cogo experiment`` cut their work into *jobs*; a job is
one batched training program (every seed of one sweep cell, or every
untrained seed of one group x weight decay of an experiment).  :func:`run_jobs`
runs a list of jobs on the executor that :class:`ExecutorSettings` names and
hands each result to a callback as it arrives, so the caller gathers results
(and saves its resumable state) exactly as when it trains in-process:

* ``inprocess`` (default): the jobs run one after another in this process;
* ``local``: each job is a subprocess started by submitit's ``LocalExecutor``
  (at most ``max_jobs`` at once); useful to check a cluster run on one machine;
* ``slurm``: each job is a Slurm job submitted by submitit's ``SlurmExecutor``
  (partition, time limit, CPUs and GPUs per job from the settings).  The output
  directory must be on a file system the compute nodes share.

submitit (https://github.com/facebookincubator/submitit) is an optional
dependency (``pip install -e '.[cluster]'`` in the checkout), imported only when a job leaves
this process.  Job files and logs go to ``OUT/jobs/``.

Determinism: training is deterministic per seed on CPU for a given thread
count; a job sets torch's thread count to ``threads`` (``--threads``) before it
trains, so ``--executor local`` gives the numbers of ``--executor inprocess``.
"""
from __future__ import annotations

import argparse
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from cogo.runtime.errors import CogoError
from cogo.runtime.threads import thread_limit

__all__ = ["EXECUTORS", "ExecutorSettings", "run_jobs", "add_arguments", "settings_from_args"]

EXECUTORS = ("inprocess", "local", "slurm")


@dataclass
class ExecutorSettings:
    """Which executor runs the jobs, and its few options (see the module docstring).

    >>> s = ExecutorSettings()                           # the default: jobs run here, one after another
    >>> s.kind, s.max_jobs, s.kind in EXECUTORS
    ('inprocess', None, True)
    """

    kind: str = "inprocess"
    folder: str | None = None  # job files and logs; the commands use OUT/jobs
    max_jobs: int | None = None  # jobs running at once (default: local 1, slurm all)
    threads: int | None = None  # torch threads inside each job (None: torch's default there)
    slurm_partition: str | None = None
    slurm_time: int = 60  # minutes per job
    slurm_cpus: int = 1  # CPUs per job
    slurm_gpus: int = 0  # GPUs per job
    poll_s: float | None = None  # seconds between status checks (default: local 0.2, slurm 15)

    @property
    def remote(self) -> bool:
        return self.kind != "inprocess"

    def validate(self) -> "ExecutorSettings":
        """Raise CogoError (one line) on a bad setting or a missing submitit / sbatch; starts nothing."""
        if self.kind not in EXECUTORS:
            raise CogoError(f"executor must be one of {', '.join(EXECUTORS)}; got {self.kind!r}")
        for name in ("max_jobs", "slurm_time", "slurm_cpus", "threads"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or int(v) != v or v < 1):
                raise CogoError(f"{name.replace('_', '-')} must be a positive integer, got {v!r}")
        if self.slurm_gpus < 0:
            raise CogoError(f"slurm-gpus must be >= 0, got {self.slurm_gpus!r}")
        if not self.remote:
            return self
        _submitit(self.kind)
        if self.kind == "slurm" and shutil.which("sbatch") is None:
            raise CogoError("--executor slurm needs the Slurm command sbatch, which is not on PATH "
                            "(run on a Slurm login node, or use --executor local)")
        if self.folder is None:
            raise CogoError("the executor needs a folder for its job files")
        return self


def _submitit(kind: str):
    try:
        import submitit  # late: submitit (optional)
    except ImportError:
        raise CogoError(f"--executor {kind} needs submitit, which is not installed: "
                        "pip install -e '.[cluster]' in the cogo checkout, or pip install submitit") from None
    return submitit


def _call(fn: Callable, args: tuple, threads: int | None) -> Any:
    """What a job runs: ``fn(*args)`` at torch's (and BLAS's) thread count ``threads``, restored after (in-process
    jobs leave the caller's count as it was)."""
    if threads is None:
        return fn(*args)
    import torch  # noqa: F401  # late: torch (cogo.runtime.threads.thread_limit limits torch only once it is imported)

    with thread_limit(int(threads)):
        return fn(*args)


def _executor(s: ExecutorSettings):
    submitit = _submitit(s.kind)
    Path(s.folder).mkdir(parents=True, exist_ok=True)
    if s.kind == "local":
        ex = submitit.LocalExecutor(folder=s.folder)
        ex.update_parameters(timeout_min=7 * 24 * 60)  # submitit's local default is 2 minutes
    else:
        ex = submitit.SlurmExecutor(folder=s.folder)
        params = dict(time=int(s.slurm_time), cpus_per_task=int(s.slurm_cpus), ntasks_per_node=1, nodes=1)
        if s.slurm_partition:
            params["partition"] = s.slurm_partition
        if s.slurm_gpus:
            params["gpus_per_node"] = int(s.slurm_gpus)
        ex.update_parameters(**params)
    return ex


def run_jobs(settings: ExecutorSettings | None, fn: Callable, calls: Sequence[tuple],
             on_result: Callable[[int, Any], None], names: Sequence[str] | None = None,
             log: Callable[[str], None] = print) -> None:
    """Run ``fn(*calls[i])`` for every ``i`` on the executor; ``on_result(i, value)`` as each one finishes.

    ``fn`` must be importable (a module-level function) for the remote executors.
    In-process, the jobs run in order and an exception propagates unchanged.
    Remotely, at most ``max_jobs`` jobs run at once; results are handed over in
    the order they finish (the caller orders them); a failed job does not stop
    the others, and at the end one CogoError names the failures and their logs
    (whatever finished was already handed to ``on_result``, so the same command
    resumes).  Ctrl-C cancels the jobs still running.

    >>> results = {}
    >>> run_jobs(None, pow, [(2, 3), (3, 2)], lambda i, value: results.__setitem__(i, value), log=lambda line: None)
    >>> results                                          # on_result(i, fn(*calls[i])) for every job
    {0: 8, 1: 9}
    """
    settings = settings or ExecutorSettings()
    names = list(names) if names is not None else [f"job {i}" for i in range(len(calls))]
    if not settings.remote:
        for i, args in enumerate(calls):
            on_result(i, _call(fn, tuple(args), settings.threads))
        return
    if not calls:
        return
    settings.validate()
    ex = _executor(settings)
    cap = settings.max_jobs or (1 if settings.kind == "local" else len(calls))
    poll = settings.poll_s if settings.poll_s is not None else (0.2 if settings.kind == "local" else 15.0)
    pending = list(range(len(calls)))
    running: dict[int, Any] = {}
    failed: list[str] = []
    try:
        while pending or running:
            free = cap - len(running)
            if free > 0 and pending:
                batch, pending = pending[:free], pending[free:]
                jobs = []
                with ex.batch():  # one sbatch array on Slurm
                    for i in batch:
                        jobs.append(ex.submit(_call, fn, tuple(calls[i]), settings.threads))
                for i, job in zip(batch, jobs):
                    running[i] = job
                    log(f"  submitted {names[i]} ({settings.kind} job {job.job_id})")
            finished = [i for i, job in running.items() if job.done()]
            if not finished:
                time.sleep(poll)
                continue
            for i in finished:
                job = running.pop(i)
                try:
                    value = job.result()
                except Exception as exc:  # noqa: BLE001 - a job's own failure, reported with its log
                    failed.append(f"{names[i]}: {_last_error(exc)} (log {job.paths.stderr})")
                    log(f"  FAILED {names[i]}: see {job.paths.stderr}")
                    continue
                on_result(i, value)
    except BaseException:
        for job in running.values():
            try:
                job.cancel(check=False)
            except Exception:  # noqa: BLE001 - best effort while interrupting
                pass
        raise
    if failed:
        raise CogoError(f"{len(failed)} of {len(calls)} job(s) failed; finished ones are saved, the same command "
                        f"resumes; first failure: {failed[0]}")


def _last_error(exc: BaseException) -> str:
    """The ``Type: message`` line of a job's traceback (submitit puts it between two dashed rules), else line 1."""
    text = str(exc).strip()
    parts = text.split("----------------------")
    body = parts[1] if len(parts) >= 3 else text
    lines = [ln.strip() for ln in body.splitlines() if ln.strip() and not ln.startswith((" ", "\t"))]
    return lines[-1] if lines else (text.splitlines()[0] if text else repr(exc))


# ----------------------------------------------------------------------------- command line
def add_arguments(p) -> None:
    """The executor flags shared by ``cogo li2-sweep`` and ``cogo experiment`` (see docs/li2.md).

    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_arguments(parser)
    >>> args = parser.parse_args(["--executor", "inprocess", "--slurm-time", "30"])
    >>> args.executor, args.slurm_time, args.max_jobs
    ('inprocess', 30, None)
    """
    g = p.add_argument_group("where the training jobs run (one job = the seeds of one batched program)")
    g.add_argument("--executor", choices=EXECUTORS, default="inprocess",
                   help="inprocess (default): one after another here; local: subprocesses via submitit; "
                        "slurm: Slurm jobs via submitit (pip install -e '.[cluster]'); job files in OUT/jobs")
    g.add_argument("--max-jobs", type=_positive("max-jobs"), default=None, metavar="N",
                   help="jobs running at once (default: local 1, slurm all)")
    g.add_argument("--slurm-partition", default=None, metavar="NAME", help="Slurm partition (default: the cluster's)")
    g.add_argument("--slurm-time", type=_positive("slurm-time"), default=60, metavar="MIN",
                   help="time limit of each Slurm job in minutes (default 60)")
    g.add_argument("--slurm-cpus", type=_positive("slurm-cpus"), default=1, metavar="C",
                   help="CPUs per Slurm job (default 1; pass --threads C to use them)")
    g.add_argument("--slurm-gpus", type=_positive("slurm-gpus", 0), default=0, metavar="G",
                   help="GPUs per Slurm job (default 0; with --device cuda)")


def _positive(name: str, lo: int = 1):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"{name} must be >= {lo}, got {v}")
        return v

    return parse


def settings_from_args(args, out: str | Path) -> ExecutorSettings:
    """The :class:`ExecutorSettings` of parsed command-line flags; job files in ``OUT/jobs``; validated.

    Raises
    ------
    cogo.runtime.errors.CogoError
        One line, on a bad setting or a missing submitit / sbatch.

    Examples
    --------
    >>> import argparse, os, tempfile
    >>> parser = argparse.ArgumentParser()
    >>> add_arguments(parser)
    >>> with tempfile.TemporaryDirectory() as out:
    ...     s = settings_from_args(parser.parse_args([]), out)
    ...     s.kind, os.path.relpath(s.folder, out)
    ('inprocess', 'jobs')
    """
    return ExecutorSettings(kind=getattr(args, "executor", "inprocess"), folder=str(Path(out) / "jobs"),
                            max_jobs=getattr(args, "max_jobs", None), threads=getattr(args, "threads", None),
                            slurm_partition=getattr(args, "slurm_partition", None),
                            slurm_time=getattr(args, "slurm_time", 60), slurm_cpus=getattr(args, "slurm_cpus", 1),
                            slurm_gpus=getattr(args, "slurm_gpus", 0)).validate()
