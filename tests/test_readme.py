"""The README's 60-second tour runs as written and prints what the README shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.git import GIT_ENV

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
TOUR = re.search(r"^(git init -q -b main demo.*?)^```$", README, re.DOTALL | re.MULTILINE)
SHOWN = re.search(r"cagr rules check +# exit 1:\n```\n\n```\n(.*?)```", README, re.DOTALL)
WARN = re.search(r"^(echo 'severity = \"warn\"'.*?)^```$", README, re.DOTALL | re.MULTILINE)
WARN_SHOWN = re.search(r"cagr rules check +# exit 0:\n```\n\n```\n(.*?)```", README, re.DOTALL)


def _run(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, **GIT_ENV, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def _shown(text: str) -> str:
    return re.sub(r"\b[0-9a-f]{7}\b", "1a2b3c4", text)


def test_the_tour_prints_what_the_readme_shows(tmp_path: Path) -> None:
    assert TOUR is not None
    assert SHOWN is not None
    result = _run(TOUR.group(1), tmp_path)
    assert result.returncode == 1, result.stderr
    assert _shown(result.stdout.split("all passed\n", 1)[1]) == SHOWN.group(1)


def test_a_rule_introduced_as_a_warning(tmp_path: Path) -> None:
    assert TOUR is not None
    assert WARN is not None
    assert WARN_SHOWN is not None
    _run(TOUR.group(1), tmp_path)
    result = _run(WARN.group(1), tmp_path / "demo")
    assert result.returncode == 0, result.stderr
    assert _shown(result.stdout) == WARN_SHOWN.group(1)
    error = _run(
        "sed -i 's/^severity = .*/severity = \"error\"/' cagr.toml && cagr rules check",
        tmp_path / "demo",
    )
    assert error.returncode == 1
