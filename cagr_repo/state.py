"""cagr's own state in the worktree's git directory (`<gitdir>/cagr/`), written atomically.

Nothing else under `.git` is ever written. A state file that cannot be read is treated as absent.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from dulwich.repo import Repo

GATE_RECORD = "gate.json"
RECORD_VERSION = 1


def state_dir(repo: Repo) -> Path:
    """`<gitdir>/cagr/`, in this worktree's own git directory (`.git/worktrees/NAME` for a
    linked worktree), so worktrees never share state."""
    return Path(repo.controldir()) / "cagr"


def write_atomically(path: Path, data: bytes) -> bool:
    """Write via a temporary file and rename; False (nothing written) when that fails."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except OSError:
        Path(temp).unlink(missing_ok=True)
        return False
    return True


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
