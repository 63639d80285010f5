"""Adversarial cases' tools: the rule they break, a branch to break it on, processes run as
the user, folders the user cannot write."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from tests.support.git import GIT_ENV, commit, git, write

RULE = """
[[changes.rules]]
id = "schema-out"
kind = "requires"
paths = ["src/schema.ts"]
require = ["schema/out.json"]
reason = "Regenerate schema/out.json (`make schema`) and include it in this change."
examples.invalid = [{ changes = [{ path = "src/schema.ts", status = "M" }] }]
examples.valid = [{ changes = [{ path = "src/schema.ts", status = "M" }, { path = "schema/out.json", status = "M" }] }]
"""


class Outcome(NamedTuple):
    code: int
    out: str
    err: str


def build_feature(root: Path) -> Path:
    """The recipes' setup in `root` (an empty folder): the control run exits 1."""
    git(root, "init", "-q", "-b", "main")
    write(root, "cagr.toml", RULE)
    write(root, "src/schema.ts", "one\n")
    write(root, "schema/out.json", "{}\n")
    commit(root, "base")
    git(root, "checkout", "-q", "-b", "feature")
    write(root, "src/schema.ts", "two\n")
    return root


def _drop_dac_override() -> None:
    """In a child before exec: as root, give up the capabilities that bypass file permissions
    (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so a mode-000 folder is really unreadable."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            os._exit(97)


def run_process(
    args: list[str],
    cwd: Path,
    *,
    env: dict[str, str] | None = None,
    permissions_apply: bool = False,
    timeout: float = 60,
) -> Outcome:
    """`python -m cagr_cli ARGS` in a new process, with a timeout: a hang is a test failure, not
    a stuck suite. `permissions_apply`: file permissions hold even when the tests run as root."""
    full_env = {key: value for key, value in os.environ.items() if key != "CAGR_DEBUG"}
    full_env.update({**GIT_ENV, **(env or {})})
    result = subprocess.run(
        [sys.executable, "-m", "cagr_cli", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_drop_dac_override if permissions_apply else None,
        check=False,
    )
    return Outcome(result.returncode, result.stdout, result.stderr)


def denied(folder: Path) -> bool:
    """Whether listing `folder` really fails where file permissions apply (see run_process)."""
    probe = [sys.executable, "-c", f"import os; os.listdir({str(folder)!r})"]
    result = subprocess.run(probe, preexec_fn=_drop_dac_override, capture_output=True, check=False)
    return result.returncode == 1 and b"PermissionError" in result.stderr


def unwritable(folder: Path) -> bool:
    """Whether creating a file in `folder` really fails where file permissions apply."""
    probe = f"import os; os.close(os.open({str(folder / '.probe')!r}, os.O_CREAT | os.O_WRONLY))"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        preexec_fn=_drop_dac_override,
        capture_output=True,
        check=False,
    )
    return result.returncode == 1 and b"PermissionError" in result.stderr
