"""The guards in force, kept where the before-shell-command hook reads them without compiling
the configuration: `<gitdir>/cagr/guards.json`, beside the gate record.

It holds the configured guards (their word patterns as regular expressions), the built-in
guards turned off, `[git] protected_branch` (a force push to it is guarded), and a signature of
the configuration files: each one's size, modification time and inode, and which files there
are. The hook trusts the file only while that signature is the checkout's; otherwise it loads
the configuration once (the kept compiled form when the files' bytes are known, else compiled)
and writes the file again. Standard library and the core's values: it runs on every shell
command an agent makes.
"""

from __future__ import annotations

import json
import os

from cagr_config.sources import FRAGMENTS, NOT_CONFIG, PYPROJECT, ROOT_FILE
from cagr_core.data import Damaged, array, table, text_or_none, texts
from cagr_core.guards import Guard, guard_data, guard_from_data

from .state import load, save

GUARD_FILE = "guards.json"
_FORMAT = 1


class KnownGuards:
    """The guards in force in one checkout: the configured ones, the built-ins turned off, and
    the branch a force push to is guarded (`[git] protected_branch`; None: the default)."""

    __slots__ = ("configured", "disabled", "protected_branch")

    def __init__(
        self,
        configured: tuple[Guard, ...] = (),
        disabled: frozenset[str] = frozenset(),
        protected_branch: str | None = None,
    ) -> None:
        self.configured = configured
        self.disabled = disabled
        self.protected_branch = protected_branch


def signature(root: str) -> list[list[object]]:
    """What changes when a configuration file is edited, added or removed: (name, size,
    mtime in ns, inode) of cagr.toml, pyproject.toml and every file under `.cagr/`."""
    found: list[list[object]] = []
    for name in (ROOT_FILE, PYPROJECT):
        _stat(root, name, found)
    fragments = os.path.join(root, FRAGMENTS)
    if os.path.isdir(fragments):
        for folder, folders, files in os.walk(fragments):
            folders.sort()
            relative = os.path.relpath(folder, root).replace(os.sep, "/")
            if (relative + "/").startswith(NOT_CONFIG):
                folders.clear()
                continue
            for name in sorted(files):
                _stat(root, f"{relative}/{name}", found)
    return found


def _stat(root: str, name: str, found: list[list[object]]) -> None:
    try:
        st = os.lstat(os.path.join(root, name))
    except OSError:
        return
    found.append([name, st.st_size, st.st_mtime_ns, st.st_ino])


def read_guard_file(gitdir: str, root: str) -> KnownGuards | None:
    """The guards kept for this checkout's configuration, or None when the file is absent,
    damaged, or was written for other configuration files."""
    data = load(gitdir, GUARD_FILE, 4 * 1024 * 1024)
    if data is None:
        return None
    try:
        document = table(json.loads(data))
        if document.get("format") != _FORMAT or document.get("signature") != signature(root):
            return None
        return _known(document)
    except (ValueError, KeyError, Damaged, RecursionError):
        return None


def read_last_guards(gitdir: str) -> KnownGuards | None:
    """The guards last kept, whatever configuration they came from (for a configuration that
    does not load now: its last valid guards stay in force)."""
    data = load(gitdir, GUARD_FILE, 4 * 1024 * 1024)
    if data is None:
        return None
    try:
        return _known(table(json.loads(data)))
    except (ValueError, KeyError, Damaged, RecursionError):
        return None


def _known(document: dict[str, object]) -> KnownGuards:
    return KnownGuards(
        tuple(guard_from_data(item) for item in array(document["guards"])),
        frozenset(texts(document["disabled"])),
        text_or_none(document["protected_branch"]),
    )


def write_guard_file(
    gitdir: str, root: str, known: KnownGuards, seen: list[list[object]] | None = None
) -> bool:
    """Keep the guards in force for the configuration files whose signature was `seen` (taken
    before they were read: an edit meanwhile then reads as stale, never as these guards')."""
    document = {
        "format": _FORMAT,
        "signature": signature(root) if seen is None else seen,
        "guards": [guard_data(guard) for guard in known.configured],
        "disabled": sorted(known.disabled),
        "protected_branch": known.protected_branch,
    }
    return save(gitdir, GUARD_FILE, json.dumps(document, separators=(",", ":")).encode())
