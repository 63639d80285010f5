"""Find and read the configuration files of a checkout, then hand their data to the core.

Sources, in this order: `cagr.toml` at the root, `[tool.cagr]` in `pyproject.toml`, and
`.cagr/**/*.toml` fragments (sorted; `.cagr/review-evals/` is not config).
"""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path
from typing import Any

from attrs import frozen

from cagr_core import RuleSet
from cagr_core.config import ConfigIssue, LoadedConfig, combine
from cagr_core.errors import CagrError, RuleError
from cagr_core.structure import rules_digest, structure_config

ROOT_FILE = "cagr.toml"
PYPROJECT = "pyproject.toml"
FRAGMENTS = ".cagr"
NOT_CONFIG = ".cagr/review-evals/"


class ConfigErrors(CagrError):
    """The configuration is invalid; nothing may be evaluated (exit code 2)."""

    def __init__(self, issues: list[ConfigIssue]) -> None:
        self.issues = issues
        super().__init__("\n".join(str(issue) for issue in issues))


@frozen
class RepoConfig:
    """The combined, validated configuration of one checkout, compiled and digested."""

    root: Path
    loaded: LoadedConfig
    rules: RuleSet
    raw_digest: str  # of the config files' bytes: cheap, for invalidating gate records
    rules_digest: str  # of the effective change rules: stable across formatting and order


def find_root(start: Path) -> Path:
    """The work tree containing `start` (the nearest folder with `.git`), else `start` itself."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def config_files(root: Path) -> list[Path]:
    """The configuration files that exist, in source order."""
    files = [root / name for name in (ROOT_FILE, PYPROJECT) if (root / name).exists()]
    fragments = root / FRAGMENTS
    if fragments.is_dir():
        for path in sorted(fragments.rglob("*.toml")):
            if not path.relative_to(root).as_posix().startswith(NOT_CONFIG):
                files.append(path)
    return files


def _read(root: Path, path: Path) -> tuple[bytes | None, ConfigIssue | None]:
    name = path.relative_to(root).as_posix()
    try:
        if not path.resolve().is_relative_to(root):
            return None, ConfigIssue(
                name, "", "links outside the repository; cagr does not follow it"
            )
        if path.is_dir():
            return None, ConfigIssue(name, "", "is a directory, not a TOML file; rename it")
        return path.read_bytes(), None
    except OSError as error:
        return None, ConfigIssue(name, "", f"cannot be read ({error.strerror or error})")


def _parse(name: str, data: bytes) -> tuple[dict[str, Any] | None, ConfigIssue | None]:
    try:
        return tomllib.loads(data.decode("utf-8")), None
    except UnicodeDecodeError as error:
        return None, ConfigIssue(name, "", f"is not UTF-8 ({error.reason} at byte {error.start})")
    except tomllib.TOMLDecodeError as error:
        return None, ConfigIssue(name, "", f"is not valid TOML: {error}")


def load_config(root: Path) -> RepoConfig:
    """Read, validate, combine and compile every source; ConfigErrors lists every problem."""
    issues: list[ConfigIssue] = []
    parts = []
    raw = hashlib.sha256()
    for path in config_files(root):
        name = path.relative_to(root).as_posix()
        data, issue = _read(root, path)
        if issue is None and data is not None:
            raw.update(name.encode("utf-8", "surrogateescape") + b"\0" + data + b"\0")
            table, issue = _parse(name, data)
        if issue is not None:
            issues.append(issue)
            continue
        assert table is not None
        if name == PYPROJECT:
            table = table.get("tool", {}).get("cagr")
            if table is None:
                continue
            if not isinstance(table, dict):
                issues.append(ConfigIssue(name, "tool.cagr", "must be a table"))
                continue
        config, found = structure_config(table, name)
        issues.extend(found)
        if config is not None:
            parts.append((name, config))
    loaded, found = combine(parts)
    issues.extend(found)
    if issues:
        raise ConfigErrors(issues)
    try:
        rules = RuleSet.compile(loaded.config.changes.rules)
    except RuleError as error:  # validation should have caught it; never evaluate a bad rule
        raise ConfigErrors(
            [ConfigIssue(loaded.source_of(error.rule_id), error.key, error.message)]
        ) from error
    return RepoConfig(
        root, loaded, rules, raw.hexdigest(), rules_digest(loaded.config.changes.rules)
    )
