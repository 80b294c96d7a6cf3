"""The curated top-level API: ``import cogo`` is cheap and its names are the modules' own objects."""
import subprocess
import sys

import numpy as np
import pytest

import cogo


def test_import_cogo_is_light():
    code = ("import cogo, sys, json; print(json.dumps([m for m in ('sympy', 'networkx', 'torch', 'matplotlib')"
            " if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_names_are_the_modules_objects():
    from cogo.algebra.group_parsing import parse_group
    from cogo.algebra.network import Network
    from cogo.solvers.constructions import z_F6

    assert cogo.group is parse_group and cogo.Network is Network and cogo.z_F6 is z_F6
    assert set(cogo.__all__) <= set(dir(cogo))


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'classify_checkpoint'"):
        cogo.classify_checkpoint  # noqa: B018  (not curated: it lives in cogo.analysis.classify)


def test_classify_and_verify_as_the_readme_shows(tmp_path):
    path = tmp_path / "f6.pt"
    cogo.solvers.constructions.to_checkpoint(cogo.z_F6(7), str(path))
    rep = cogo.classify(str(path))
    assert [b.type for b in rep.reports[0].blocks] == ["z_nu * z_syn"] * 3      # SPEC 7.1: every block of z_F6
    many = cogo.classify([str(path)])
    assert many.summary["checkpoints"] == 1 and type(many) is type(rep)         # one result type (issue 36)
    v = cogo.verify(checkpoint=str(path))
    assert v.optimal
    w = cogo.load(str(path))
    assert w.Wa.shape == (18, 7) and str(w.group) == "Z_7"
    results = cogo.verify(group=3, method="numeric")
    assert results and all(r.passed for r in results)


def test_verify_checkpoint_rejects_a_non_optimizer(tmp_path):
    """A network that is not an optimizer is judged so (the front adds no leniency of its own)."""
    rng = np.random.default_rng(0)
    path = tmp_path / "r.npz"
    np.savez(path, Wa=rng.normal(size=(8, 7)), Wb=rng.normal(size=(8, 7)), Wc=rng.normal(size=(7, 8)))
    assert not cogo.verify(checkpoint=str(path)).optimal


def test_verify_is_still_the_package():
    import cogo.proofs.theorems.optimality

    assert cogo.proofs.theorems.optimality is cogo.proofs.theorems.optimality and callable(cogo.verify)
    assert cogo.proofs.run_all is cogo.proofs.registry.run_all


def test_train_front(tmp_path):
    res = cogo.train(7, seeds=[1], hidden=8, epochs=5, log_every=5)
    assert len(res) == 1 and res[0].Wa.shape[1] == 7


def test_an_in_memory_network_is_classified_without_writing_a_file(tmp_path, monkeypatch):
    """cogo.classify of a loaded network: no temporary file (every writer made to fail), the file route's answer."""
    import tempfile

    import cogo.api as api_mod
    import cogo.io.weights as weights_mod

    path = tmp_path / "f6.pt"
    cogo.solvers.constructions.to_checkpoint(cogo.z_F6(7), str(path))
    by_file = cogo.classify(str(path))
    w = cogo.load(str(path))

    def no_file(*a, **k):
        raise AssertionError("an in-memory network was written to a file")

    for mod, name in ((weights_mod, "save_checkpoint"), (api_mod, "save_checkpoint"), (tempfile, "TemporaryDirectory"),
                      (tempfile, "mkstemp"), (tempfile, "NamedTemporaryFile")):
        monkeypatch.setattr(mod, name, no_file)
    from types import SimpleNamespace

    net = SimpleNamespace(Wa=w.Wa, Wb=w.Wb, Wc=w.Wc, group=w.group)   # weights in memory, as a user builds them
    in_memory = cogo.classify(net)
    assert [b.type for b in in_memory.reports[0].blocks] == [b.type for b in by_file.reports[0].blocks]
    assert in_memory.summary["order_counts"] == by_file.summary["order_counts"] == {"6": 3}
    assert in_memory.reports[0].path.startswith("<")        # named as what it is, not as a temporary file


def test_an_in_memory_network_with_nan_is_refused_in_one_line_naming_it():
    from cogo.io.file_formats import CheckpointError

    class Net:
        group = 7
        Wa = np.full((18, 7), np.nan)
        Wb = np.ones((18, 7))
        Wc = np.ones((7, 18))

    with pytest.raises(CheckpointError, match=r"^<Net #0>: layera.weight contains NaN"):
        cogo.classify(Net())
