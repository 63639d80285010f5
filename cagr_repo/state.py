"""cagr's own state in the worktree's git directory (`<gitdir>/cagr/`), written atomically.

Nothing else under `.git` is ever written. A state file that cannot be read is treated as absent.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from dulwich.repo import Repo

from .gitrepo import gitdir
from .trees import write_atomically

STATE = "cagr"
GATE_RECORD = "gate.json"
RECORD_VERSION = 1


def state_dir(repo: Repo) -> Path:
    return gitdir(repo) / STATE


def identity(repo: Repo) -> dict[str, str]:
    """Which repository and worktree a record belongs to (real paths, so links agree)."""
    return {
        "repository": os.path.realpath(repo.commondir()),
        "worktree": os.path.realpath(repo.path),
        "gitdir": os.path.realpath(repo.controldir()),
    }


def write_gate_record(repo: Repo, record: dict[str, Any]) -> bool:
    """Write the committed-check record; False when it could not be written."""
    data = {"version": RECORD_VERSION, **identity(repo), **record}
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=True) + "\n"
    return write_atomically(state_dir(repo) / GATE_RECORD, text.encode("ascii"))


def read_gate_record(repo: Repo) -> dict[str, Any] | None:
    try:
        data = json.loads((state_dir(repo) / GATE_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != RECORD_VERSION:
        return None
    return data
