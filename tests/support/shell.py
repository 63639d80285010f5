"""Bash as the oracle of what a command line runs: a stand-in program that records each call
(its arguments and folder), and a way to run a line through bash and read what it recorded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_RECORDER = """#!/bin/sh
exec "{python}" -c 'import json, os, sys
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps({{"argv": sys.argv[1:], "cwd": os.getcwd()}}) + "\\n")' "$@"
"""


def fake_program(folder: Path, name: str) -> Path:
    """`folder` holding a program `name` that records its calls; returns `folder`."""
    (folder / name).write_text(_RECORDER.format(python=sys.executable))
    (folder / name).chmod(0o755)
    return folder


def bash_runs(
    form: str, cwd: Path, fakes: Path, variables: dict[str, str] | None = None
) -> list[dict]:
    """What the fake programs in `fakes` recorded when bash ran `form` in `cwd` with
    `variables` in its environment (a login shell's profile puts the fakes first again, after
    the system profile resets the PATH)."""
    log = cwd.parent / "fake.log"
    log.unlink(missing_ok=True)
    home = fakes / "home"
    home.mkdir(exist_ok=True)
    for profile in (".bash_profile", ".profile"):
        (home / profile).write_text(f'PATH="{fakes}:$PATH"\n')
    path = f"{fakes}{os.pathsep}{os.environ['PATH']}"
    env = {**os.environ, "PATH": path, "FAKE_LOG": str(log), "HOME": str(home), **(variables or {})}
    subprocess.run(
        ["bash", "-c", form], cwd=cwd, env=env, capture_output=True, timeout=20, check=False
    )
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]
