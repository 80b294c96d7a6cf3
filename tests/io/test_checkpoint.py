"""cogo.io.weights: untrusted files are refused with one clear line; writes are atomic."""
import os
import stat
from pathlib import Path

import numpy as np
import pytest
import torch

from cogo.io.file_formats import CheckpointError
from cogo.io.outputs import atomic_write
from cogo.io.weights import read_checkpoint, save_checkpoint


class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))  # would create the marker file if unpickled


def test_malicious_pickle_is_refused_without_running_code(tmp_path):
    marker = tmp_path / "PWNED"
    path = tmp_path / "evil.pt"
    torch.save({"model": _Evil(str(marker))}, path)
    with pytest.raises(CheckpointError) as err:
        read_checkpoint(path)
    msg = str(err.value)
    assert "refused" in msg and "\n" not in msg
    assert "weights_only` set to `False" not in msg and "False" not in msg  # never advise unsafe loading
    assert not marker.exists()


@pytest.mark.parametrize("content,needle", [
    (b"hello world", "not a torch checkpoint"),
    (b"", "empty file"),
])
def test_non_checkpoints(tmp_path, content, needle):
    path = tmp_path / "x.pt"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match=needle):
        read_checkpoint(path)


def test_truncated_checkpoint(tmp_path):
    good = tmp_path / "good.pt"
    save_checkpoint(good, np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 2)), {"group": "3"})
    bad = tmp_path / "bad.pt"
    bad.write_bytes(good.read_bytes()[:60])
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        read_checkpoint(bad)
    assert read_checkpoint(good).group.order == 3


@pytest.mark.parametrize("cut", [1, 2, 3, 4, 10, 100, 1000, -10, "junk", "junk-zip"])
def test_truncated_or_junk_pt_gives_one_line_checkpoint_error(tmp_path, cut):
    """Any prefix of a real checkpoint, or a few junk bytes, is a one-line CheckpointError (never EOFError,
    struct.error or a traceback); b"junk" used to raise struct.error from torch's legacy reader."""
    good = tmp_path / "good.pt"
    save_checkpoint(good, np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 2)), {"group": "3"})
    data = good.read_bytes()
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"junk" if cut == "junk" else b"PK\x03\x04junk" if cut == "junk-zip" else data[:cut])
    with pytest.raises(CheckpointError) as err:
        read_checkpoint(bad)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(str(bad))
    if cut != "junk":
        assert "truncated or corrupt" in msg or "not a torch checkpoint" in msg, msg


def test_cli_truncated_checkpoint_one_line(tmp_path, capsys):
    from cogo.cli import main

    good = tmp_path / "good.pt"
    save_checkpoint(good, np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 2)), {"group": "3"})
    for content in (b"junk", good.read_bytes()[:100]):
        bad = tmp_path / "bad.pt"
        bad.write_bytes(content)
        assert main(["verify", "--checkpoint", str(bad)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("cogo: error:")


def test_metadata_group_must_match(tmp_path):
    path = tmp_path / "g.pt"
    save_checkpoint(path, np.ones((2, 6)), np.ones((2, 6)), np.ones((6, 2)), {"group": "7"})
    with pytest.raises(CheckpointError, match="order 7"):
        read_checkpoint(path)
    save_checkpoint(path, np.ones((2, 6)), np.ones((2, 6)), np.ones((6, 2)), {"group": "2x3"})
    assert read_checkpoint(path).group.orders == (2, 3)


def test_atomic_write_leaves_nothing_on_error(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        with atomic_write(target, "w") as fh:
            fh.write("partial")
            raise RuntimeError("boom")
    assert not target.exists() and list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="does not exist"):
        with atomic_write(tmp_path / "missing" / "x.txt", "w") as fh:
            fh.write("x")


def test_atomic_write_gives_the_usual_mode(tmp_path):
    target = tmp_path / "out.txt"
    with atomic_write(target, "w") as fh:
        fh.write("ok")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    assert target.read_text() == "ok"


def test_shapes_of_a_pt_file_are_read_without_torch_and_without_its_arrays(tmp_path):
    """peek_shapes reads a cogo .pt file's weight shapes from its pickle alone (a restricted unpickler): the same
    shapes as torch.load, for a trained checkpoint with tensors in its meta; a pickle naming any other global is not
    unpickled (a hostile file gets None here, then torch's weights-only refusal)."""
    import io
    import pickle
    import zipfile

    import torch

    from cogo.io.file_formats import pt_shapes_without_torch
    from cogo.io.weights import read_checkpoint
    from cogo.solvers.training import train
    from cogo.solvers.training_config import TrainConfig
    from cogo.solvers.training_results import save_run

    path = save_run(train(TrainConfig(group="5", hidden=6, epochs=3, log_every=1), [1], progress=False,
                          threads=1), tmp_path)[0]
    w = read_checkpoint(path)
    assert pt_shapes_without_torch(Path(path)) == [tuple(w.Wa.shape), tuple(w.Wb.shape), tuple(w.Wc.shape)]

    class Evil:
        def __reduce__(self):
            return (print, ("owned",))

    bad = tmp_path / "evil.pt"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps({"layera.weight": Evil()}))
    assert pt_shapes_without_torch(bad) is None
    assert pt_shapes_without_torch(tmp_path / "nothing.pt") is None
    ref = tmp_path / "ref.pt"
    torch.save({"W.weight": torch.zeros(4, 10), "V.weight": torch.zeros(5, 4)}, ref)
    assert pt_shapes_without_torch(ref) is None  # another layout: torch.load decides (cogo.io.layouts)


def test_a_recorded_name_is_parsed_when_a_table_is_registered_under_it():
    """The shortcut of check_given_group (a recorded name equal to the group's printed name is not parsed) must not
    hide a Cayley table registered under that very name: S3's table registered as "Z_6" is not the cyclic Z_6."""
    from cogo.algebra import finite_groups as FG
    from cogo.algebra.group_parsing import parse_group
    from cogo.io.checkpoint import check_given_group
    from cogo.io.file_formats import CheckpointError

    s3 = parse_group("S3")
    FG.FiniteGroup.from_table(s3.table, "Z_6", register=True)
    try:
        with pytest.raises(CheckpointError, match="records the group"):
            check_given_group(parse_group(6), {"group": "Z_6"}, "f.pt")
    finally:
        FG._REGISTRY.pop("Z_6", None)
    check_given_group(parse_group(6), {"group": "Z_6"}, "f.pt")   # nothing registered: the same group
