"""Every `cogo` command that README.md and docs/ show parses, and no sequence of them collides (issue #21).

A newcomer runs the commands of a page in order in one folder.  A command that writes
an output an earlier command of the same page already wrote (the same checkpoint of
`cogo train --out`, the same `--out` / `--json` / `--csv` / `--markdown` file) is refused
there without `--force` (cogo.io.outputs), so the page would fail: this test finds such
pairs from the argument parser, without running anything.  (Running every block, as
tests/test_docs.py does for the tutorial, is not done here: the README's blocks train for
minutes to hours.)
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from cogo import commands
from cogo.cli import _UsageError, build_parser
from cogo.io.outputs import OUTPUT_ATTR

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PLACEHOLDER = re.compile(r"\b(FILE|DIR|DYN|RUN|OUT|G|WD|N|X)\b|\.\.\.|[\[\]|<>{}]")


def _commands(text: str) -> list[tuple[int, str, bool]]:
    """(line, command, strict) for every cogo command of a page, in order.

    strict: a command of a code block (``$ cogo ...`` in a transcript, any ``cogo ...`` line of a
    bash block or an indented block), which must parse; inline code mentions are often partial
    (``cogo classify``) and are checked for collisions only when they parse.
    """
    out: list[tuple[int, str, bool]] = []
    lines, fence, joined = text.splitlines(), False, []
    for line in lines:   # an inline code span broken over two lines is one command (keeps line count)
        if line.strip().startswith("```"):
            fence = not fence
        if joined and not fence and joined[-1].count("`") % 2 == 1 and not joined[-1].strip().startswith("```"):
            joined[-1] = joined[-1] + " " + line
            joined.append("")
        else:
            joined.append(line)
    lines = joined
    fence = None
    for i, line in enumerate(lines):
        st = line.strip()
        if st.startswith("```"):
            fence = None if fence is not None else (st[3:].strip() or "text")
            continue
        if fence is not None or line.startswith("    "):
            shell = fence in ("bash", "sh", "console") or fence is None
            if st.startswith("$ "):
                cmd = st[2:]
            elif shell:
                cmd = st
            else:
                continue
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if cmd.startswith("cogo ") and not nxt.startswith("cogo: error"):   # error transcripts are refused on purpose
                out.append((i + 1, cmd.split("  #")[0].split(" # ")[0].strip(), True))
        else:
            for m in re.finditer(r"`(cogo [^`]+)`", line):
                out.append((i + 1, m.group(1), False))
    return [(n, c, strict) for n, c, strict in out if not PLACEHOLDER.search(c.replace("cogo:", ""))]


def _outputs(argv: list[str], strict: bool = True):
    p = build_parser()
    try:
        args = p.parse_args(argv)
    except _UsageError as exc:
        if not strict:
            return None, []
        raise AssertionError(f"documented command does not parse: cogo {shlex.join(argv)}: {exc}")
    except SystemExit:
        return None, []
    sub = next(a for a in p._actions if hasattr(a, "choices") and isinstance(a.choices, dict)).choices[argv[0]]
    outs = []
    for a in sub._actions:
        if getattr(a, OUTPUT_ATTR, None) == "file" and getattr(args, a.dest, None):
            outs.append(str(Path(getattr(args, a.dest))))
    if argv[0] == "train":
        from cogo.io.run_names import checkpoint_name

        for wd in args.wd or [None]:
            for s in args.seeds:
                outs.append(str(Path(args.out) / f"{args.group}/{args.hidden}/{wd}/{s}"))
    return args, outs


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_documented_commands_parse_and_do_not_collide(page):
    written: dict[str, int] = {}
    for line, cmd, strict in _commands(page.read_text()):
        for part in cmd.split("&&"):
            argv = shlex.split(part.strip())
            if not argv or argv[0] != "cogo" or len(argv) < 2:
                continue
            if strict and "SmallGroup(" in part:   # a GAP group parses only with the optional gap extra
                from cogo.algebra.smallgroups import gap_available

                strict = gap_available()
            args, outs = _outputs(argv[1:], strict)
            if args is None or getattr(args, "force", False) or getattr(args, "resume", False):
                continue
            for o in outs:
                assert o not in written, (f"{page.name}:{line}: `{part.strip()}` writes {o}, already written at "
                                          f"line {written[o]}; a newcomer running the page in order is refused")
                written[o] = line


def test_the_collision_check_catches_the_old_readme():
    """The README before issue #21: the dynamics recipe reused runs/d23 of the table above it."""
    old = ("| `cogo train --group 23 --seeds 1-5 --out runs/d23` | trains |\n"
           "(not committed): `cogo train --group 23 --seeds 1 --snapshot-every 100 --threads 1 --out runs/d23`\n")
    written = {}
    with pytest.raises(AssertionError):
        for line, cmd, strict in _commands(old):
            args, outs = _outputs(shlex.split(cmd)[1:], strict)
            for o in outs:
                assert o not in written
                written[o] = line


# ---------------------------------------------------------------- running the pages (slow)
#: seconds one documented command may run here; a command still running then has passed every check the
#: command makes before its work (cogo checks everything first), and is stopped; the rest of that page is
#: left to the static test above, because its later commands read what the stopped one would have written
RUN_LIMIT_S = 45
#: the commands that may still be working at RUN_LIMIT_S (they train, for minutes on the pages); any other
#: command still running then fails, and a stopped one must end as cogo ends on Ctrl-C (exit 130, one line)
LONG_COMMANDS = tuple(n for n in commands.names() if commands.attribute(n, "LONG", False))
#: a command documented as interrupted (``# Ctrl-C after a while``) gets its Ctrl-C after this many seconds
INTERRUPT_AFTER_S = 10


def _run_page(page: Path, workdir: Path) -> list[str]:
    import os
    import signal
    import subprocess
    import sys

    env = dict(os.environ, OMP_NUM_THREADS="1", COGO_THREADS="1")
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    done = []
    text = page.read_text().splitlines()
    for line, cmd, strict in _commands(page.read_text()):
        if not strict:
            continue
        run = cmd + " --no-progress" if _takes_no_progress(cmd) else cmd
        interrupted = "Ctrl-C" in text[line - 1]   # the page shows it interrupted: it gets its Ctrl-C
        # Ctrl-C as a user's terminal delivers it: a test run started in the background (SIGINT ignored, and the
        # ignoring inherited) must not make every command deaf to it
        proc = subprocess.Popen(["bash", "-c", run], cwd=workdir, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            out, err = proc.communicate(timeout=INTERRUPT_AFTER_S if interrupted else RUN_LIMIT_S)
        except subprocess.TimeoutExpired:
            rc, err = _interrupt(proc)
            where = f"{page.name}:{line}: `{cmd}`"
            assert interrupted or shlex.split(cmd)[1] in LONG_COMMANDS, f"{where} still ran after {RUN_LIMIT_S} s"
            last = err.strip().splitlines()[-1] if err.strip() else ""
            assert rc == 130 and last.startswith("cogo: interrupted"), f"{where} did not stop as on Ctrl-C: {rc} {err[-300:]}"
            if interrupted:   # the documented line: how to resume
                assert last.startswith("cogo: interrupted; resume with --resume (") and \
                    last.endswith(f"): {run} --resume"), f"{where}: {last}"
                done.append(f"{page.name}:{line} interrupted after {INTERRUPT_AFTER_S} s as documented: {cmd}")
                continue
            done.append(f"{page.name}:{line} started, stopped after {RUN_LIMIT_S} s: {cmd}")
            break
        if proc.returncode == 2 and ("submitit" in err or "sbatch" in err):   # the optional cluster extra
            done.append(f"{page.name}:{line} needs the cluster extra: {cmd}")
            break
        if proc.returncode == 2 and 'pip install -e ".[gap]"' in err:      # the optional gap extra (GAP groups)
            done.append(f"{page.name}:{line} needs the gap extra: {cmd}")
            break
        assert proc.returncode == 0, f"{page.name}:{line}: `{cmd}` exited {proc.returncode} in a fresh folder: {err[-500:]}"
        done.append(f"{page.name}:{line} ran: {cmd}")
    return done


def _interrupt(proc) -> tuple[int, str]:
    """Ctrl-C to a running command's process group (SIGKILL if it does not stop in 30 s): its exit status and stderr."""
    import os
    import signal
    import subprocess

    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
    return proc.returncode, err


def _takes_no_progress(cmd: str) -> bool:
    argv = shlex.split(cmd)
    return (len(argv) > 1 and argv[1] in commands.names()
            and "--no-progress" not in argv and "&&" not in argv and "|" not in argv)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_documented_commands_run_in_a_fresh_folder(page, tmp_path):
    """Each page's commands, in order, in a fresh folder: each exits 0, or (a command that trains) is still working
    after RUN_LIMIT_S and stops on Ctrl-C as cogo does; a command the page shows interrupted gets its Ctrl-C."""
    log = _run_page(page, tmp_path)
    print("\n".join(log))


def test_a_command_still_running_at_the_limit_fails_unless_it_trains(tmp_path, monkeypatch):
    """The run check can fail: a documented `cogo verify` still running at the limit is an error, not a pass."""
    import sys

    me = sys.modules[__name__]
    page = tmp_path / "page.md"
    page.write_text("```\n$ cogo verify --group 23\n```\n")
    monkeypatch.setattr(me, "RUN_LIMIT_S", 0.5)
    with pytest.raises(AssertionError, match="still ran after"):
        me._run_page(page, tmp_path)
