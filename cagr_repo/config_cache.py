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

from cagr_core.globs import Names, PathMatcher, Place
from cagr_core.ruleset import CompiledRule, RuleSet, Selector
from cagr_core.severity import Severity
from cagr_core.templates import Template
from cagr_core.values import frozen
from cagr_core.version import VERSION
from cagr_core.when import When

from .config_files import ConfigFiles
from .settings import Settings, StackRun
from .state import load, remove, save, state_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMAT = 1  # the stored form's version: change it whenever what is stored changes
FOLDER = "config"
KEPT = 4  # configurations kept (the newest; older ones are removed when one is written)
_PLACES = frozenset({"path", "name", "folder", "end", "part"})
# Packages whose code shapes what is kept: a kept configuration lists their loaded modules.
_BUILDERS = frozenset({"cagr_core", "cagr_repo", "wcmatch", "bracex", "attr", "attrs", "cattrs"})


class _Damaged(Exception):
    """The kept file is not what cagr wrote."""


@frozen
class Compiled:
    """What is kept: the compiled rules, the settings, the digest of the rules, and the file
    each rule is declared in."""

    rules: RuleSet
    settings: Settings
    digest: str
    sources: tuple[tuple[str, str], ...]


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
    """Whether every module listed is still the file it was."""
    for entry in entries:
        path, size, modified = _list(entry)
        if _stat(_text(path)) != (size, modified):
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
    payload = json.dumps(_document(compiled), separators=(",", ":")).encode()
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


# Writing: the compiled configuration as plain data.


def _document(kept: Compiled) -> dict[str, Any]:
    settings = kept.settings
    return {
        "rules": [_rule_data(compiled) for compiled in kept.rules.rules],
        "settings": {
            "protected_branch": settings.protected_branch,
            "pr_sections": list(settings.pr_sections),
            "on_turn_end": [[run.run, list(run.paths)] for run in settings.on_turn_end],
            "ci": [[run.run, list(run.paths)] for run in settings.ci],
        },
        "rules_digest": kept.digest,
        "rule_sources": [list(pair) for pair in kept.sources],
        "code": _loaded_code(),
    }


def _rule_data(compiled: CompiledRule) -> dict[str, Any]:
    return {
        "id": compiled.id,
        "kind": compiled.kind,
        "reason": compiled.reason,
        "severity": compiled.severity.value,
        "waive_label": compiled.waive_label,
        "when": compiled.when.value,
        "format": compiled.format,
        "section": compiled.section,
        "contains": compiled.contains,
        "paths": _matcher_data(compiled.selector.paths),
        "ignores": _matcher_data(compiled.selector.ignores),
        "require": [_matcher_data(matcher) for matcher in compiled.require],
        "require_globs": list(compiled.require_globs),
        "require_added": list(compiled.require_added),
        "targets": [template.source for template in compiled.targets],
    }


def _matcher_data(matcher: PathMatcher) -> dict[str, Any]:
    return {
        "patterns": list(matcher.patterns),
        "regexes": list(matcher.regexes),
        "deep": [list(names) for names in matcher.deep],
        "alternatives": [None if a is None else list(a) for a in matcher.alternatives],
        "places": [None if place is None else list(place) for place in matcher.places],
    }


# Reading: every value checked for its type; anything else is damage.


def _read(data: bytes, key: str) -> Compiled:
    stored_key, digest, payload = data.split(b"\n", 2)
    if stored_key.decode() != key or hashlib.sha256(payload).hexdigest() != digest.decode():
        raise _Damaged
    document = _table(json.loads(payload))
    if not _same_code(_list(document["code"])):
        raise _Damaged  # not damaged, but compiled by code that has changed since
    settings = _table(document["settings"])
    rules = RuleSet.of(_rule(_table(item)) for item in _list(document["rules"]))
    return Compiled(
        rules,
        Settings(
            _text_or_none(settings["protected_branch"]),
            _texts(settings["pr_sections"]),
            _runs(settings["on_turn_end"]),
            _runs(settings["ci"]),
        ),
        _text(document["rules_digest"]),
        tuple(_pair(pair) for pair in _list(document["rule_sources"])),
    )


def _rule(item: dict[str, Any]) -> CompiledRule:
    require = tuple(_matcher(_table(entry)) for entry in _list(item["require"]))
    globs = _texts(item["require_globs"])
    added = tuple(_flag(flag) for flag in _list(item["require_added"]))
    if not len(require) == len(globs) == len(added):
        raise _Damaged
    kind = _text(item["kind"])
    if kind not in ("requires", "add_only", "sibling", "pr_body"):
        raise _Damaged
    return CompiledRule(
        _text(item["id"]),
        kind,
        _text(item["reason"]),
        Selector(_matcher(_table(item["paths"])), _matcher(_table(item["ignores"]))),
        severity=Severity(_text(item["severity"])),
        waive_label=_text_or_none(item["waive_label"]),
        when=When(_text(item["when"])),
        format=_text_or_none(item["format"]),
        require=require,
        require_globs=globs,
        require_added=added,
        targets=tuple(_template(_text(source)) for source in _list(item["targets"])),
        section=_text_or_none(item["section"]),
        contains=_text_or_none(item["contains"]),
    )


def _matcher(item: dict[str, Any]) -> PathMatcher:
    return PathMatcher(
        _texts(item["patterns"]),
        _texts(item["regexes"]),
        tuple(_names(names) for names in _list(item["deep"])),
        tuple(None if a is None else _names(a) for a in _list(item["alternatives"])),
        tuple(_place(place) for place in _list(item["places"])),
    )


def _names(value: object) -> Names:
    return tuple(_text_or_none(name) for name in _list(value))


def _place(value: object) -> Place:
    if value is None:
        return None
    kind, key = _texts(value)
    if kind not in _PLACES:
        raise _Damaged
    return (kind, key)


def _pair(value: object) -> tuple[str, str]:
    first, second = _texts(value)
    return (first, second)


def _template(source: str) -> Template:
    return Template(source, tuple(source.split("/")))


def _runs(value: object) -> tuple[StackRun, ...]:
    runs = []
    for entry in _list(value):
        run, paths = _list(entry)
        runs.append(StackRun(_text(run), _texts(paths)))
    return tuple(runs)


def _table(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Damaged
    return value


def _list(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise _Damaged
    return value


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise _Damaged
    return value


def _text_or_none(value: object) -> str | None:
    return None if value is None else _text(value)


def _texts(value: object) -> tuple[str, ...]:
    return tuple(_text(item) for item in _list(value))


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise _Damaged
    return value
