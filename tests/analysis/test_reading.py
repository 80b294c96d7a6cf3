"""Both readings of networks -- blocks (Abelian groups, SPEC 8) and irreps (any finite group, SPEC 9) -- honour the
one contract of cogo.analysis.reading, so a caller (the CLI included) never asks which one it holds."""
import json

import numpy as np
import pytest

from cogo.algebra.representations import isotypic_projectors
from cogo.analysis.classify import classify_checkpoint, classify_many
from cogo.analysis.reading import Reading, Report
from cogo.io.weights import save_checkpoint
from cogo.solvers.constructions import z_F6


@pytest.fixture(params=["Z5", "S3"])
def checkpoint(request, tmp_path):
    path = tmp_path / f"{request.param}.pt"
    if request.param == "Z5":
        Wa, Wb, Wc = z_F6(5).to_weights(real=True)
        save_checkpoint(path, Wa, Wb, Wc, meta={"group": "5"})
        return path, "cogo-classify/1", 12
    W = isotypic_projectors("S3").real[2][:4]  # 4 nodes in the 2-dimensional irrep of S3
    save_checkpoint(path, W, W, W.T, meta={"group": "S3"})
    return path, "cogo-irreps/1", 4


def test_both_readings_honour_the_contract(checkpoint, tmp_path):
    path, fmt, live = checkpoint
    result = classify_many([path])
    assert isinstance(result, Reading)
    d = result.to_dict()
    assert d["format"] == fmt and len(d["checkpoints"]) == 1
    assert isinstance(result.summary, dict) and result.summary
    assert json.loads(result.render_json()) == json.loads(json.dumps(d))
    assert result.render_markdown().startswith("# ") and str(path) in result.render_text()
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    assert result.write_outputs(out_json, out_md) == [str(out_json), str(out_md)]
    assert json.loads(out_json.read_text())["format"] == fmt
    # the outputs policy holds for both: an existing result is not replaced without force
    from cogo.runtime.errors import CogoError

    with pytest.raises(CogoError):
        result.write_outputs(out_json)
    assert result.write_outputs(out_json, force=True) == [str(out_json)]
    rep = classify_checkpoint(path)
    assert isinstance(rep, Report) and rep.live_nodes == live
    assert rep.to_dict()["path"] == str(path) and rep.hidden == live


def test_a_non_reading_is_not_a_reading():
    assert not isinstance(object(), Reading) and not isinstance({"reports": []}, Reading)
