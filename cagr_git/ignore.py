"""The ignore rules of a work tree, as git assembles them: each folder's `.gitignore`, then the
repository's `info/exclude` (in the common git directory, shared by linked worktrees), then the
user's excludes file (`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`).

The shared files are read without blocking and only when they are regular files.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping

from dulwich.ignore import IgnoreFilter, IgnoreFilterManager, read_ignore_patterns

from .config import GitConfig
from .files import read_regular

MAX_IGNORE_BYTES = 64 * 1024 * 1024


def excludes_file(config: GitConfig, environ: Mapping[str, str]) -> str | None:
    """The user's excludes file git reads, or None when there is none to read."""
    home = environ.get("HOME")
    value = config.get("core", "excludesFile")
    if value is not None:
        if value.startswith("~/"):
            return os.path.join(home, value[2:]) if home else None
        return value
    xdg = environ.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else None)
    return os.path.join(xdg, "git", "ignore") if xdg else None


def ignore_rules(
    root: str, commondir: str, config: GitConfig, environ: Mapping[str, str]
) -> IgnoreFilterManager:
    """The work tree's ignore rules (core.ignorecase as configured)."""
    ignorecase = config.boolean("core", "ignoreCase", False)
    shared = []
    for path in (os.path.join(commondir, "info", "exclude"), excludes_file(config, environ)):
        data = read_regular(path, MAX_IGNORE_BYTES, follow=True) if path else None
        if data is not None:
            patterns = read_ignore_patterns(io.BytesIO(data))
            shared.append(IgnoreFilter(patterns, ignorecase, path=path))
    return IgnoreFilterManager(root, shared, ignorecase)
