import os

from hypothesis import HealthCheck, settings

# Shared machines are noisy: no per-example deadline; CI runs more examples than a quick local run.
settings.register_profile("default", deadline=None)
settings.register_profile(
    "ci", deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "default")
