"""The one output policy of every cogo command.

Every file a command writes is checked here *before* any work starts, and
written afterwards through :func:`atomic_write` (a
temporary file renamed onto the destination), so an error never leaves a
partial file.  The rules:

* never write onto an input: an output that is (or resolves to, or is a hard
  link of) one of the command's input files is refused, ``--force`` or not;
* never write over an existing result: an output file that already exists is
  refused unless the user passes ``--force`` (commands that resume into their
  own output directory, ``cogo experiment`` and ``cogo li2-sweep``, say so and
  replace only their own report files);
* an output that is a directory is refused;
* an output that exists and is a FIFO, a device, a socket or a symbolic link
  is refused unless the user passes ``--force`` (an atomic write would
  replace the special file or the link itself by a regular file, never
  write through it);
* the destination directory must exist and accept a new file (checked by
  creating and removing a temporary file there), so a read-only folder is
  reported in one line before the work, not as a traceback after it;
* two outputs of one command must not name the same file.

Violations raise :class:`cogo.runtime.errors.CogoError` (one line; exit status 2).
"""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from cogo.runtime.errors import CogoError

__all__ = ["atomic_write", "atomic_write_text", "check_output_file", "check_output_dir", "check_outputs", "parent_made",
           "same_file", "file_identities", "mark_output", "mark_input",
           "OUTPUT_ATTR", "INPUT_ATTR"]

#: attribute set on an argparse action that names an output (value: ``'file'`` or ``'dir'``); the tests enumerate
#: every such option of every subcommand and try it against an input and an existing result
OUTPUT_ATTR = "cogo_output"
#: attribute set on an argparse action whose value may name an input file (checkpoints, Cayley tables)
INPUT_ATTR = "cogo_input"


def mark_output(action, kind: str = "file"):
    """Tag an argparse action as an output option of kind ``'file'`` or ``'dir'``; returns the action.

    Raises
    ------
    ValueError
        When ``kind`` is neither ``'file'`` nor ``'dir'``.

    Examples
    --------
    >>> import argparse
    >>> a = mark_output(argparse.ArgumentParser().add_argument("--json"), "file")
    >>> getattr(a, OUTPUT_ATTR)
    'file'
    """
    if kind not in ("file", "dir"):
        raise ValueError(f"output kind must be 'file' or 'dir', got {kind!r}")
    setattr(action, OUTPUT_ATTR, kind)
    return action


def mark_input(action):
    """Tag an argparse action whose value may name an input file; returns the action."""
    setattr(action, INPUT_ATTR, True)
    return action


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """True if ``a`` and ``b`` name the same file (same inode, or the same resolved path).

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     same_file(os.path.join(d, "a"), os.path.join(d, ".", "a")), same_file(os.path.join(d, "a"), os.path.join(d, "b"))
    (True, False)
    """
    try:
        if os.path.samefile(a, b):
            return True
    except OSError:
        pass
    try:
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, RuntimeError):
        return False


def file_identities(path: str | os.PathLike) -> tuple:
    """The keys under which :func:`same_file` finds ``path`` equal to another: its inode (when it exists) and its
    resolved path; two paths name the same file exactly when they share a key.  One ``stat`` and one ``resolve``
    per path, so many paths are checked for duplicates in linear time (a sweep gives hundreds)."""
    keys = []
    try:
        st = os.stat(path)
        keys.append(("inode", st.st_dev, st.st_ino))
    except (OSError, ValueError):
        pass
    try:
        keys.append(("path", str(Path(path).resolve())))
    except (OSError, RuntimeError):
        pass
    return tuple(keys)


def _kind(mode: int) -> str | None:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


def _check_writable_dir(d: Path, what: str) -> None:
    """Create and remove a temporary file in ``d``; CogoError (one line) if that fails."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".cogo-write-test.", dir=d)
    except OSError as exc:
        raise CogoError(f"cannot write {what}: directory {d} is not writable ({exc.strerror or exc})") from None
    os.close(fd)
    try:
        os.unlink(tmp)
    except OSError:  # pragma: no cover - a file we just created
        pass


def check_output_file(path: str | os.PathLike, inputs: Iterable[str | os.PathLike] = (), force: bool = False,
                      label: str = "output", existing_ok: bool = False, parents: bool = False) -> Path:
    """Check that a file can be written at ``path`` under the policy above; write nothing; return the Path.

    ``parents``: a missing directory is accepted when its nearest existing ancestor is a writable directory
    (the writer creates it, :func:`make_parent`, as the commands create their ``--out`` folders).

    ``inputs``: the command's input files (never overwritten).  ``force``:
    allow replacing an existing file, FIFO, device, socket or symbolic link.
    ``existing_ok``: an existing regular file may be replaced without
    ``force`` (only for a command's own resumable report files).
    ``label`` names the flag in messages (``--json``, ``-o``, ...).

    Raises
    ------
    cogo.runtime.errors.CogoError
        One line, when writing there would overwrite an input, a directory or a link to one, an existing file,
        link, FIFO, device or socket (without ``force``), or when the directory is missing or not writable.

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> check_output_file(os.path.join(tmp.name, "report.json")).name   # writable: nothing is written
    'report.json'
    >>> weights = os.path.join(tmp.name, "w.pt")
    >>> check_output_file(weights, inputs=[weights], label="--json")
    Traceback (most recent call last):
    ...
    cogo.runtime.errors.CogoError: --json .../w.pt is an input of this command; refusing to overwrite it
    >>> open(os.path.join(tmp.name, "old.json"), "w").close()
    >>> check_output_file(os.path.join(tmp.name, "old.json"), label="--json")
    Traceback (most recent call last):
    ...
    cogo.runtime.errors.CogoError: --json .../old.json already exists; use --force to replace it
    >>> tmp.cleanup()
    """
    out = Path(path)
    if str(path) == "":
        raise CogoError(f"{label}: empty file name")
    for inp in inputs:
        if same_file(out, inp):
            raise CogoError(f"{label} {out} is an input of this command; refusing to overwrite it")
    try:
        lst = os.lstat(out)
    except FileNotFoundError:
        lst = None
    except OSError as exc:
        raise CogoError(f"cannot write {label} {out}: {exc.strerror or exc}") from None
    if lst is not None:
        if stat.S_ISLNK(lst.st_mode):
            try:
                target_is_dir = out.is_dir()
            except OSError:
                target_is_dir = False
            if target_is_dir:
                raise CogoError(f"cannot write {label} {out}: it is a symbolic link to a directory")
            if not force:
                raise CogoError(f"{label} {out} is a symbolic link to {os.readlink(out)}; writing would replace the "
                                "link by a regular file (use --force to do that)")
        elif stat.S_ISDIR(lst.st_mode):
            raise CogoError(f"cannot write {label} {out}: it is a directory")
        else:
            kind = _kind(lst.st_mode)
            if kind is not None and not force:
                raise CogoError(f"{label} {out} is {kind}; writing would replace it by a regular file "
                                "(use --force to do that)")
            if kind is None and not force and not existing_ok:
                raise CogoError(f"{label} {out} already exists; use --force to replace it")
    parent = out.parent if str(out.parent) else Path(".")
    if parents:
        while not os.path.lexists(parent) and parent != parent.parent:
            parent = parent.parent   # the nearest existing ancestor: a directory the folders are created in
    if not parent.is_dir():
        raise CogoError(f"cannot write {label} {out}: directory {parent} does not exist"
                        if not os.path.lexists(parent) else f"cannot write {label} {out}: {parent} is not a directory")
    _check_writable_dir(parent, f"{label} {out}")
    return out


@contextlib.contextmanager
def parent_made(path: str | os.PathLike) -> Iterator[Path]:
    """Create the folders above ``path`` that are missing (checked by ``check_output_file(..., parents=True)``) for
    the write inside the block; when the write fails they are removed again (nothing stays behind).

    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> with parent_made(os.path.join(tmp.name, "a", "b", "x.txt")) as out:
    ...     _ = out.write_text("x")
    >>> sorted(os.listdir(os.path.join(tmp.name, "a", "b")))
    ['x.txt']
    >>> tmp.cleanup()
    """
    out = Path(path)
    made, d = [], out.parent
    while not os.path.lexists(d) and d != d.parent:
        made.append(d)
        d = d.parent
    for d in reversed(made):
        d.mkdir()
    try:
        yield out
    except BaseException:
        for d in made:   # the innermost first; one that is not empty stays
            try:
                d.rmdir()
            except OSError:
                break
        raise


def check_output_dir(path: str | os.PathLike, create: bool = True, label: str = "output directory") -> Path:
    """Check (and with ``create`` make) a directory that will receive files; CogoError (one line) otherwise.

    A symbolic link to a directory is accepted (files are written inside it,
    the link itself is never replaced).  Nothing stays behind but the
    directory itself.

    Raises
    ------
    cogo.runtime.errors.CogoError
        One line, when ``path`` is empty, is not a directory, or cannot be created or written in.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = check_output_dir(os.path.join(d, "runs"))      # created
    ...     p.name, p.is_dir(), os.listdir(p)                  # and nothing left inside
    ('runs', True, [])
    """
    d = Path(path)
    if str(path) == "":
        raise CogoError(f"{label}: empty name")
    if d.exists() and not d.is_dir():
        raise CogoError(f"{label} {d} exists and is not a directory")
    if not d.exists():
        if not create:
            parent = d.parent if str(d.parent) else Path(".")
            if not parent.is_dir():
                raise CogoError(f"cannot create {label} {d}: directory {parent} does not exist")
            _check_writable_dir(parent, f"{label} {d}")
            return d
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CogoError(f"cannot create {label} {d}: {exc.strerror or exc}") from None
    _check_writable_dir(d, f"{label} {d}")
    return d


def check_outputs(outputs: Sequence[tuple[str, str | os.PathLike | None]],
                  inputs: Iterable[str | os.PathLike] = (), force: bool = False,
                  existing_ok: bool = False) -> list[Path]:
    """Check several output files of one command: each by :func:`check_output_file`, and no two the same.

    ``outputs``: ``(label, path)`` pairs; ``None`` paths are skipped.
    Returns the checked paths in order.

    Returns
    -------
    list of pathlib.Path
        The checked paths, in the order of ``outputs`` (``None`` ones left out).

    Raises
    ------
    cogo.runtime.errors.CogoError
        As :func:`check_output_file`, or when two outputs name the same file.

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> [p.name for p in check_outputs([("--json", os.path.join(tmp.name, "r.json")), ("--markdown", None)])]
    ['r.json']
    >>> same = os.path.join(tmp.name, "r")
    >>> check_outputs([("--json", same), ("--markdown", same)])
    Traceback (most recent call last):
    ...
    cogo.runtime.errors.CogoError: --json and --markdown name the same file .../r
    >>> tmp.cleanup()
    """
    inputs = list(inputs)
    done: list[tuple[str, Path]] = []
    for label, p in outputs:
        if p is None:
            continue
        out = check_output_file(p, inputs=inputs, force=force, label=label, existing_ok=existing_ok)
        for other_label, other in done:
            if same_file(out, other):
                raise CogoError(f"{other_label} and {label} name the same file {out}")
        done.append((label, out))
    return [p for _, p in done]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb") -> Iterator[Any]:
    """Open a temporary file beside ``path``; rename it onto ``path`` only on success.

    If the body raises, the temporary file is removed and ``path`` is untouched.

    Yields
    ------
    file object
        The temporary file, opened with ``mode``; it becomes ``path`` when the ``with`` body completes.

    Raises
    ------
    ValueError
        When the directory of ``path`` does not exist.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "out.txt")
    ...     with atomic_write(path, "w") as f:
    ...         _ = f.write("complete")
    ...     try:
    ...         with atomic_write(path, "w") as f:          # fails half-way: the old file stays, no temporary left
    ...             _ = f.write("partial")
    ...             raise RuntimeError("interrupted")
    ...     except RuntimeError:
    ...         pass
    ...     open(path).read(), os.listdir(d)
    ('complete', ['out.txt'])
    """
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"cannot write {path}: directory {parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, mode) as fh:
            yield fh
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual mode
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8).

    >>> import os, tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as d:
    ...     atomic_write_text(os.path.join(d, "note.txt"), "r(1) = 1")
    ...     Path(d, "note.txt").read_text()
    'r(1) = 1'
    """
    with atomic_write(path, "w") as fh:
        fh.write(text)
