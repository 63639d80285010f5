import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.support.git import GIT_ENV

# Shared machines are noisy: no per-example deadline. The README's command runs a quick search
# ("default"); .ci/run asks for "ci" (pytest --hypothesis-profile=ci); "deep" is a long search on
# demand: pytest --hypothesis-profile=deep tests/property. Each derives from Hypothesis's own
# defaults, not from whatever it loaded: with CI set it loads its "ci" profile, derandomized.
_HYPOTHESIS = settings.get_profile("default")
settings.register_profile("default", _HYPOTHESIS, deadline=None, max_examples=25)
settings.register_profile(
    "ci",
    _HYPOTHESIS,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "deep",
    _HYPOTHESIS,
    deadline=None,
    max_examples=5000,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("default")

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
