"""The README's 60-second tour runs as written and prints what the README shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from .conftest import GIT_ENV

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
TOUR = re.search(r"^(git init -q -b main demo.*?)^```$", README, re.DOTALL | re.MULTILINE)
SHOWN = re.search(r"cagr rules check +# exit 1:\n```\n\n```\n(.*?)```", README, re.DOTALL)


def test_the_tour_prints_what_the_readme_shows(tmp_path: Path) -> None:
    assert TOUR is not None
    assert SHOWN is not None
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, **GIT_ENV, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        ["bash", "-c", TOUR.group(1)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    printed = re.sub(r"\b[0-9a-f]{7}\b", "1a2b3c4", result.stdout.split("all passed\n", 1)[1])
    assert printed == SHOWN.group(1)
