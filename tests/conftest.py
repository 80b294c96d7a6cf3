"""Hypothesis profiles: "default" (random, 40 examples), "ci" (derandomized; chosen when CI is set),
"stress" (random, 400 examples: ``HYPOTHESIS_PROFILE=stress python -m pytest``)."""
import os

from hypothesis import HealthCheck, settings

_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("default", max_examples=40, **_common)
settings.register_profile("ci", max_examples=40, derandomize=True, **_common)
settings.register_profile("stress", max_examples=400, **_common)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default"))
