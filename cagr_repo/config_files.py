"""Which configuration files a checkout has, their bytes, and a digest of them (standard library).

Sources, in this order: `cagr.toml` at the root, `pyproject.toml` (its `[tool.cagr]` table; one
that cannot hold that table is read but is no source, so a project's own edits to it are no
config edits), and `.cagr/**/*.toml` fragments in path order (`.cagr/review-evals/` is not
config). Only regular
files inside the repository are read; anything else is a problem to report, never skipped. The
gate's fast path digests these bytes without parsing TOML, so a config edit invalidates a record.
"""

from __future__ import annotations

import os
import stat

from cagr_config.sources import (
    FRAGMENTS,
    NOT_CONFIG,
    PYPROJECT,
    ROOT_FILE,
    fragment_order,
    may_hold,
)

MAX_CONFIG_BYTES = 16 * 1024 * 1024

# The digest runs on the PR gate's path: the interpreter's own SHA-256 loads in about a third of
# the time hashlib takes to load its OpenSSL bindings (docs/performance.md).
TYPE_CHECKING = False  # not typing's: the PR gate digests the files
if TYPE_CHECKING:
    from hashlib import sha256
else:
    try:
        from _sha2 import sha256  # Python 3.12 and later
    except ImportError:
        try:
            from _sha256 import sha256  # Python 3.11
        except ImportError:  # a build without them
            from hashlib import sha256


class ConfigFiles:
    """The config files found: (name, bytes) for those read, (name, problem) for the rest."""

    __slots__ = ("problems", "read")

    def __init__(self) -> None:
        self.read: list[tuple[str, bytes]] = []
        self.problems: list[tuple[str, str]] = []

    def configure_cagr(self) -> bool:
        """Whether these files set cagr up (a problem with one counts: it may be the
        configuration)."""
        return bool(self.problems or self.sources())

    def sources(self) -> list[tuple[str, bytes]]:
        """The files read that can hold configuration: all but a pyproject.toml that cannot
        hold `[tool.cagr]`."""
        return [(name, data) for name, data in self.read if name != PYPROJECT or may_hold(data)]

    def digest(self) -> str:
        """sha256 over every source's name and bytes (and every problem), in source order."""
        digest = sha256()
        for name, data in self.sources():
            digest.update(name.encode("utf-8", "surrogateescape") + b"\0" + data + b"\0")
        for name, problem in self.problems:
            digest.update(b"!" + name.encode("utf-8", "surrogateescape") + b"\0" + problem.encode())
        return digest.hexdigest()


def _inside(root: str, path: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _read(root: str, name: str, found: ConfigFiles) -> None:
    path = os.path.join(root, name)
    if not _inside(root, path):
        found.problems.append((name, "links outside the repository; cagr does not follow it"))
        return
    try:
        info = os.stat(path)
    except OSError as error:
        found.problems.append((name, f"cannot be read ({error.strerror}); fix or remove it"))
        return
    if stat.S_ISDIR(info.st_mode):
        found.problems.append((name, "is a directory, not a TOML file; rename it"))
        return
    if not stat.S_ISREG(info.st_mode):
        found.problems.append((name, "is not a regular file; cagr reads only regular files"))
        return
    if info.st_size > MAX_CONFIG_BYTES:
        found.problems.append(
            (name, f"is larger than the {MAX_CONFIG_BYTES // (1024 * 1024)} MiB cagr reads")
        )
        return
    try:
        # Non-blocking, and checked again once open: a file swapped for a FIFO meanwhile must
        # not block the read forever.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        found.problems.append((name, f"cannot be read ({error.strerror}); fix or remove it"))
        return
    try:
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                found.problems.append(
                    (name, "is not a regular file; cagr reads only regular files")
                )
                return
            found.read.append((name, handle.read(MAX_CONFIG_BYTES + 1)))
    except OSError as error:
        found.problems.append((name, f"cannot be read ({error.strerror}); fix or remove it"))


def _fragment_names(root: str, found: ConfigFiles) -> list[str]:
    """`.cagr/**/*.toml`, following linked folders that stay inside the repository."""
    names: list[str] = []
    seen: set[str] = set()
    stack = [FRAGMENTS]
    while stack:
        folder = stack.pop()
        absolute = os.path.join(root, folder)
        if not _inside(root, absolute):
            found.problems.append((folder, "links outside the repository; cagr does not follow it"))
            continue
        real = os.path.realpath(absolute)
        if real in seen:
            continue  # a link back to a folder already read
        seen.add(real)
        try:
            entries = sorted(os.scandir(absolute), key=lambda entry: entry.name)
        except OSError as error:
            found.problems.append((folder, f"cannot be listed ({error.strerror})"))
            continue
        for entry in entries:
            name = f"{folder}/{entry.name}"
            if (name + "/").startswith(NOT_CONFIG):
                continue
            if entry.name.endswith(".toml"):
                names.append(name)  # a folder of that name is reported when it is read
                continue
            try:
                is_dir = entry.is_dir()  # follows links; _inside() checks where they lead
            except OSError:
                is_dir = False
            if is_dir:
                stack.append(name)
    return fragment_order(names)


def find_config_files(root: str) -> ConfigFiles:
    """Every config source of the checkout at `root` (a real path), read."""
    found = ConfigFiles()
    for name in (ROOT_FILE, PYPROJECT):
        if os.path.lexists(os.path.join(root, name)):
            _read(root, name, found)
    fragments = os.path.join(root, FRAGMENTS)
    if os.path.isdir(fragments):
        for name in _fragment_names(root, found):
            _read(root, name, found)
    elif os.path.lexists(fragments) and os.path.islink(fragments):
        found.problems.append((FRAGMENTS, "is a link to nothing; fix or remove it"))
    return found


def waive_labels(files: ConfigFiles) -> dict[str, list[str]]:
    """Each `waive_label` the rules in these files name, with the ids of its rules. Files that
    are not valid TOML name none here (the check reports them). TOML is parsed only when
    asked: the gate asks only for a command that adds labels."""
    import tomllib  # noqa: PLC0415  # the gate's fast path parses no TOML

    found: dict[str, list[str]] = {}
    for name, data in files.read:
        try:
            table = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        if name == PYPROJECT:
            table = (
                table.get("tool", {}).get("cagr", {}) if isinstance(table.get("tool"), dict) else {}
            )
        changes = table.get("changes") if isinstance(table, dict) else None
        rules = changes.get("rules") if isinstance(changes, dict) else None
        for rule in rules if isinstance(rules, list) else []:
            label = rule.get("waive_label") if isinstance(rule, dict) else None
            if isinstance(label, str):
                found.setdefault(label, []).append(str(rule.get("id")))
    return found
