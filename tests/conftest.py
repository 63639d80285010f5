import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.support.git import GIT_ENV

# Shared machines are noisy: no per-example deadline; CI runs more examples than a quick local run.
settings.register_profile("default", deadline=None)
settings.register_profile(
    "ci", deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow]
)
# A long search on demand: pytest --hypothesis-profile=deep tests/property
settings.register_profile(
    "deep", deadline=None, max_examples=5000, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "default")

# Every git the tests start, in any fixture or subprocess, gets the same identity and clock and
# ignores the machine's own git settings (a CI image may have no identity at all).
os.environ.update(GIT_ENV)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh git repository (real git) with a pinned identity and clock."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    return root
