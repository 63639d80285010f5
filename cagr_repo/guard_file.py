"""The guards in force, kept where the before-shell-command hook reads them without compiling
the configuration: `<gitdir>/cagr/guards.json`, beside the gate record.

It holds the configured guards (their word patterns as regular expressions), the built-in
guards turned off, `[git] protected_branch` (a force push to it is guarded), each configured
guard's program word (what a command must name for a guard to look at it), and what was
watched when it was written: the work tree and git directory it is for, and the size,
modification time and inode of each configuration file (cagr.toml, pyproject.toml, everything
under `.cagr/`) and of each folder under `.cagr/` (a file added or removed changes its folder's),
or that the file was absent. The hook trusts the file only while all of that is unchanged;
otherwise it loads the configuration once (its kept compiled form when the files' bytes are
known, else compiled) and writes the file again.

Reading it is on every shell command an agent makes: this module imports the standard library
and cagr_git's non-blocking reader only; the guards themselves are built (cagr_core.guards) only
for a command that may trip one.
"""

from __future__ import annotations

import os

from cagr_git.files import read_regular
from cagr_repo import json_read

TYPE_CHECKING = False  # not typing's: every agent shell command reads this module
if TYPE_CHECKING:
    from typing import Any

    from cagr_core.guards import Guard

GUARD_FILE = "guards.json"
_FORMAT = 2
_LIMIT = 4 * 1024 * 1024


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

    @property
    def programs(self) -> tuple[str, ...]:
        """Each configured pattern's program word, as written."""
        return tuple(p.source.split()[0] for g in self.configured for p in g.patterns)


def watched(root: str) -> list[list[Any]]:
    """What changes when a configuration file is edited, added or removed: (name, size, mtime
    in ns, inode) of cagr.toml, pyproject.toml and every file and folder under `.cagr/` (a
    name with no more: absent)."""
    from cagr_config.sources import FRAGMENTS, PYPROJECT, ROOT_FILE  # noqa: PLC0415

    found: list[list[Any]] = [_stat(root, ROOT_FILE), _stat(root, PYPROJECT)]
    fragments = os.path.join(root, FRAGMENTS)
    found.append(_stat(root, FRAGMENTS))
    if os.path.isdir(fragments) and not os.path.islink(fragments):
        for folder, folders, files in os.walk(fragments):
            folders.sort()
            relative = os.path.relpath(folder, root).replace(os.sep, "/")
            found.extend(_stat(root, f"{relative}/{name}") for name in sorted(folders + files))
    return found


def _stat(root: str, name: str) -> list[Any]:
    try:
        st = os.lstat(os.path.join(root, name))
    except OSError:
        return [name]
    return [name, st.st_size, st.st_mtime_ns, st.st_ino]


def _unchanged(root: str, seen: object) -> bool:
    """Whether every watched path is as it was (absent ones still absent)."""
    return isinstance(seen, list) and all(
        isinstance(entry, list) and entry and _stat(root, entry[0]) == entry for entry in seen
    )


def quick_look(gitdir: str, root: str) -> tuple[tuple[str, ...], frozenset[str]] | None:
    """The configured guards' program words and the built-ins turned off, from a guard file
    written for this checkout as its configuration files are; None when there is none such.
    Only what tells whether a command may trip a guard, read with the standard library."""
    document = _document(gitdir, root)
    if document is None:
        return None
    programs, disabled = document.get("programs"), document.get("disabled")
    if not isinstance(programs, list) or not isinstance(disabled, list):
        return None
    if not all(isinstance(item, str) for item in (*programs, *disabled)):
        return None
    return tuple(programs), frozenset(disabled)


def _document(gitdir: str, root: str) -> dict[str, Any] | None:
    state = os.path.join(gitdir, "cagr")
    if os.path.islink(state):
        return None  # cagr neither reads nor writes through a link (cagr_repo.state)
    data = read_regular(os.path.join(state, GUARD_FILE), _LIMIT)
    if data is None:
        return None
    try:
        document = json_read.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(document, dict) or document.get("format") != _FORMAT:
        return None
    if document.get("root") != root or document.get("gitdir") != gitdir:
        return None
    return document if _unchanged(root, document.get("watched")) else None


def read_guard_file(gitdir: str, root: str) -> KnownGuards | None:
    """The guards kept for this checkout's configuration, or None when the file is absent,
    damaged, or was written for other configuration files."""
    document = _document(gitdir, root)
    return None if document is None else _known(document)


def read_last_guards(gitdir: str) -> KnownGuards | None:
    """The guards last kept, whatever configuration they came from (for a configuration that
    does not load now: its last valid guards stay in force)."""
    data = read_regular(os.path.join(gitdir, "cagr", GUARD_FILE), _LIMIT)
    if data is None or os.path.islink(os.path.join(gitdir, "cagr")):
        return None
    try:
        document = json_read.loads(data)
    except (ValueError, RecursionError):
        return None
    return _known(document) if isinstance(document, dict) else None


def _known(document: dict[str, Any]) -> KnownGuards | None:
    from cagr_core.data import Damaged, array, text_or_none, texts  # noqa: PLC0415
    from cagr_core.guards import guard_from_data  # noqa: PLC0415

    try:
        return KnownGuards(
            tuple(guard_from_data(item) for item in array(document["guards"])),
            frozenset(texts(document["disabled"])),
            text_or_none(document["protected_branch"]),
        )
    except (KeyError, ValueError, Damaged):
        return None


def write_guard_file(
    gitdir: str, root: str, known: KnownGuards, seen: list[list[Any]] | None = None
) -> bool:
    """Keep the guards in force for the configuration files as `seen` (watched before they
    were read: an edit meanwhile then reads as stale, never as these guards')."""
    from cagr_core.guards import guard_data  # noqa: PLC0415

    from .state import save  # noqa: PLC0415

    document = {
        "format": _FORMAT,
        "root": root,
        "gitdir": gitdir,
        "watched": watched(root) if seen is None else seen,
        "programs": list(known.programs),
        "guards": [guard_data(guard) for guard in known.configured],
        "disabled": sorted(known.disabled),
        "protected_branch": known.protected_branch,
    }
    import json  # noqa: PLC0415  # json imports re: the fast path only reads

    return save(gitdir, GUARD_FILE, json.dumps(document, separators=(",", ":")).encode())
