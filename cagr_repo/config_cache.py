"""The compiled configuration, kept in `<gitdir>/cagr/config/` between calls.

A check reads compiled rules and a few settings. Reading the TOML, structuring it into the config
model (attrs, cattrs), validating every rule and translating its globs (wcmatch) costs a call
more than the check itself, so the result is kept as JSON and read back with the standard
library alone. It is keyed by a digest of the config files' bytes (every source: cagr.toml, each
fragment, pyproject.toml), cagr's version, the Python version and where this cagr is installed,
and it lists the files of the code that compiled it (cagr's own modules and those of wcmatch,
bracex, attrs and cattrs that were loaded, by size and modification time), which must be
unchanged: any edit and any upgrade is a miss, and a miss compiles afresh and keeps the result.
`cagr ci` never reads it (CI trusts no local state).

A kept file that is not exactly what was written (damaged, cut short, of another format) is
ignored and rebuilt, never trusted: it names its key and the sha256 of its payload, and every
value is checked for its type as it is read. Writes are atomic (cagr_repo.state); a few recent
configurations are kept, so switching between branches stays warm.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

from cagr_config import kept
from cagr_config.compiled import Compiled
from cagr_core.data import Damaged
from cagr_core.version import VERSION

from .config_files import ConfigFiles
from .state import load, remove, save, state_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMAT = 3  # the stored form's version: change it whenever what is stored changes
FOLDER = "config"
KEPT = 4  # configurations kept (the newest; older ones are removed when one is written)
# Packages whose code shapes what is kept: a kept configuration lists their loaded modules.
_BUILDERS = frozenset(
    {
        "cagr_core",
        "cagr_config",
        "cagr_git",
        "cagr_repo",
        "wcmatch",
        "bracex",
        "attr",
        "attrs",
        "cattrs",
    }
)


def cache_key(files: ConfigFiles) -> str:
    """The name a configuration compiled from these files is kept under."""
    digest = hashlib.sha256()
    # This install's own place: two installs of one version (a git build in a project's venv
    # and another under pipx, say) may hold different code, and must not read each other's.
    for part in (str(FORMAT), VERSION, sys.version, __file__, files.digest()):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()


def _loaded_code() -> list[list[object]]:
    """Path, size and modification time of each loaded module of the packages that compile a
    configuration (called right after compiling one, so all that took part is loaded)."""
    found = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if name.partition(".")[0] in _BUILDERS and isinstance(path, str):
            found.append([path, *_stat(path)])
    return sorted(found)


def _stat(path: str) -> tuple[int, int]:
    try:
        info = os.stat(path)
    except OSError:
        return (-1, -1)
    return (info.st_size, info.st_mtime_ns)


def _same_code(entries: list[Any]) -> bool:
    """Whether every module listed is still the file it was (False for anything malformed)."""
    for entry in entries:
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            return False
        if list(_stat(entry[0])) != entry[1:]:
            return False
    return True


def cached_config(gitdir: str, files: ConfigFiles) -> Compiled | None:
    """What was kept for these files, or None (never kept, or not trustworthy)."""
    key = cache_key(files)
    data = load(gitdir, _name(key), limit=256 * 1024 * 1024)
    if data is None:
        return None
    try:
        return _read(data, key)
    except Exception:  # whatever is wrong with a kept file, it is rebuilt and written again
        return None


def keep_config(gitdir: str, files: ConfigFiles, compiled: Compiled) -> None:
    """Keep what these files compiled to, for the next call (failures are silent: the next
    call compiles again)."""
    key = cache_key(files)
    document = {**kept.to_data(compiled), "code": _loaded_code()}
    payload = json.dumps(document, separators=(",", ":")).encode()
    head = f"{key}\n{hashlib.sha256(payload).hexdigest()}\n".encode()
    if save(gitdir, _name(key), head + payload):
        _prune(gitdir, keep=_name(key))


def _name(key: str) -> str:
    return f"{FOLDER}/{key[:40]}.json"


def _prune(gitdir: str, keep: str) -> None:
    folder = state_path(gitdir, FOLDER)
    try:
        entries = [entry for entry in os.scandir(folder) if entry.is_file(follow_symlinks=False)]
        entries.sort(key=lambda entry: entry.stat(follow_symlinks=False).st_mtime_ns)
    except OSError:
        return
    for entry in entries[: max(0, len(entries) - KEPT)]:
        if f"{FOLDER}/{entry.name}" != keep:
            remove(gitdir, f"{FOLDER}/{entry.name}")


def _read(data: bytes, key: str) -> Compiled:
    stored_key, digest, payload = data.split(b"\n", 2)
    if stored_key.decode() != key or hashlib.sha256(payload).hexdigest() != digest.decode():
        raise Damaged
    document = json.loads(payload)
    code = document.get("code") if isinstance(document, dict) else None
    if not isinstance(code, list) or not _same_code(code):
        raise Damaged  # not damaged, but compiled by code that has changed since
    return kept.from_data(document)
