"""The classify JSON is written without a second walk over its values (issue 37): that holds only if
``to_json_dict`` gives plain JSON values, checked here type by type."""
import math

import numpy as np

from cogo.analysis.classify import ClassifyResult, Settings, read_network
from cogo.analysis.report.render import render_json, to_json_dict
from cogo.analysis.report.summary import summarize
from cogo.io.tables import dumps_json
from cogo.solvers.constructions import z_F6, z_F46


def _not_plain(x, path="$"):
    """The first place in ``x`` that is not a plain JSON value (exact Python types), or None."""
    t = type(x)
    if x is None or t in (str, bool, int):
        return None
    if t is float:
        return None if math.isfinite(x) else path
    if t is list:
        return next((p for i, v in enumerate(x) if (p := _not_plain(v, f"{path}[{i}]"))), None)
    if t is dict:
        bad = next((f"{path}.{k!r}" for k in x if type(k) is not str), None)
        return bad or next((p for k, v in x.items() if (p := _not_plain(v, f"{path}.{k}"))), None)
    return f"{path}: {t.__name__}"


def _results():
    rng = np.random.default_rng(0)
    reps = [read_network(*z_F46(7).to_weights(real=True), group=7)]
    Wa, Wb, Wc = z_F6(11).to_weights(real=True)
    Wa, Wb, Wc = (w + 1e-3 * rng.normal(size=w.shape) for w in (Wa, Wb, Wc))   # a trained-like net: verdict, snap
    reps.append(read_network(Wa, Wb, Wc, group=11))
    Wa, Wb, Wc = (rng.normal(size=s) for s in ((20, 9), (20, 9), (9, 20)))     # nothing named
    reps.append(read_network(Wa, Wb, Wc, group=9, settings=Settings(verdict=False)))
    return [ClassifyResult([r], summarize([r]), Settings()) for r in reps]


def test_the_json_dict_is_plain_and_written_as_the_walked_one():
    for res in _results():
        d = to_json_dict(res)
        assert _not_plain(d) is None, _not_plain(d)
        assert render_json(res) == dumps_json(d, compact_depth=4)   # the walk would change nothing


def test_the_plainness_check_can_fail():
    assert _not_plain({"a": [1, np.int64(2)]}) == "$.a[1]: int64"
    assert _not_plain({"a": float("nan")}) == "$.a"
    assert _not_plain({1: 2}) == "$.1"


def test_entries_rendered_where_each_checkpoint_is_read_are_the_json_of_the_whole(tmp_path):
    """classify_many(render_json=True) (cogo classify's sweep: the workers render their own checkpoints) writes the
    same text as the whole rendered at once; a result without entries, or with stale ones, renders itself."""
    from cogo.analysis.classify import classify_many

    paths = []
    for i, net in enumerate([z_F6(11, seed=1), z_F46(11, seed=2), z_F6(11, seed=3)]):
        p = tmp_path / f"c{i}.npz"
        Wa, Wb, Wc = net.to_weights(real=True)
        np.savez(p, Wa=Wa, Wb=Wb, Wc=Wc)
        paths.append(p)
    for workers in (1, 2):
        res = classify_many(paths, group=11, workers=workers, render_json=True, keep_weights=False)
        assert res.json_entries is not None and len(res.json_entries) == 3
        whole = dumps_json(to_json_dict(res), compact_depth=4)
        assert render_json(res) == whole
        res.json_entries = res.json_entries[:2]            # not one per report: rendered from the reports
        assert render_json(res) == whole
    assert classify_many(paths, group=11).json_entries is None
