"""Hypothesis profiles.

"default" (derandomized, 40 examples): what `python -m pytest -q` and CI run, so the README's test
command gives the same verdict on every machine; "explore" (random, 40 examples) and "stress" (random,
400 examples: ``HYPOTHESIS_PROFILE=stress python -m pytest``) search for new counterexamples.  Known
counterexamples found that way are kept as strict xfail tests (tests/analysis/test_factorization.py)."""
import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

# the tests of each package live in tests/<package>/; the shared hypothesis strategies (tests/strategies.py)
# are imported by name from every folder
sys.path.insert(0, str(Path(__file__).resolve().parent))

_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("default", max_examples=40, derandomize=True, **_common)
settings.register_profile("ci", max_examples=40, derandomize=True, **_common)
settings.register_profile("explore", max_examples=40, **_common)
settings.register_profile("stress", max_examples=400, **_common)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default"))


# Tests marked `slow` (the mutation runs, end-to-end training: tens of seconds to minutes) stay out of the
# README's command `python -m pytest -q`, which must finish in about two minutes; `--slow` (or COGO_SLOW=1)
# runs them, and .ci/run does so in a second step.
import pytest  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the tests marked slow (CI runs them: .ci/run)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow") or os.environ.get("COGO_SLOW"):
        return
    skip = pytest.mark.skip(reason="slow: run with --slow (.ci/run does)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
