"""Reading configuration sources: TOML bytes -> the config model -> the compiled configuration.

Sources are (name, bytes) pairs, as cagr_repo.config_files finds them on disk or in a commit's
tree: `cagr.toml`, `pyproject.toml` (its `[tool.cagr]` table) and `.cagr/**/*.toml`. Each is
parsed and structured into a Config (cattrs), validated, and the parts combined (lists of tables
add up, a scalar set twice is an issue); `compile_config` turns the result into what a check
reads. Every problem is reported at once, with its file and key path.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from cagr_core.errors import ConfigIssue, RuleError
from cagr_git.revision_syntax import syntax_problem
from cagr_manifests.toml_bounds import parts_problem

from .compile import compile_guards, compile_rules
from .compiled import Compiled, Settings, StackRun
from .document import Config, LoadedConfig, combine
from .sources import PYPROJECT
from .validate import rules_digest, structure_config

_BOM = b"\xef\xbb\xbf"
_HEAD_ITSELF = re.compile(r"(?:HEAD|@)(?:~\d*|\^\d*|\^\{[^}]*\})*")  # HEAD, @, HEAD~1, @^


def _parse(name: str, data: bytes) -> tuple[dict[str, Any] | None, ConfigIssue | None]:
    if data.startswith(_BOM):
        return None, ConfigIssue(
            name, "", "starts with a byte-order mark, which TOML does not allow; remove it"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, ConfigIssue(name, "", f"is not UTF-8 ({error.reason} at byte {error.start})")
    too_deep = parts_problem(text)  # before tomllib, whose time grows with their square
    if too_deep is not None:
        return None, ConfigIssue(name, "", too_deep)
    try:
        return tomllib.loads(text), None
    except tomllib.TOMLDecodeError as error:
        return None, ConfigIssue(name, "", f"is not valid TOML: {error}")
    except ValueError:  # an integer with more digits than Python converts
        return None, ConfigIssue(name, "", "holds a number with more digits than cagr reads")
    except RecursionError:
        return None, ConfigIssue(name, "", "nests too deeply to read; flatten its arrays or tables")


def cagr_table(name: str, data: bytes) -> tuple[dict[str, Any] | None, ConfigIssue | None]:
    """The cagr table of one source: the whole file, or pyproject's `[tool.cagr]` (None: absent)."""
    table, issue = _parse(name, data)
    if table is None or name != PYPROJECT:
        return table, issue
    tool = table.get("tool", {})
    if not isinstance(tool, dict):
        return None, ConfigIssue(name, "tool", "must be a table (it holds [tool.cagr])")
    cagr = tool.get("cagr")
    if cagr is not None and not isinstance(cagr, dict):
        return None, ConfigIssue(name, "tool.cagr", "must be a table")
    return cagr, None


def _target_problems(name: str, config: Config) -> list[ConfigIssue]:
    """`[git] protected_branch` must be a name git can resolve as one commit, as `--base`."""
    branch = config.git.protected_branch
    problem = syntax_problem(branch) if branch is not None and branch.strip() else None
    if problem is None and branch is not None and _HEAD_ITSELF.fullmatch(branch):
        return [
            ConfigIssue(
                name,
                "git.protected_branch",
                f"{branch!r} is this checkout's own HEAD, so every change would be compared"
                " with itself and pass. Name the branch changes merge into, e.g. main.",
            )
        ]
    if problem is None:
        return []
    return [ConfigIssue(name, "git.protected_branch", f"{problem[0]} Name the branch.")]


def combine_sources(
    read: list[tuple[str, bytes]], problems: list[tuple[str, str]]
) -> tuple[LoadedConfig, list[ConfigIssue]]:
    """Parse, validate and combine sources given as (name, bytes), in source order."""
    issues = [ConfigIssue(name, "", problem) for name, problem in problems]
    parts = []
    for name, data in read:
        table, issue = cagr_table(name, data)
        if issue is not None:
            issues.append(issue)
        if table is None:
            continue
        config, found = structure_config(table, name)
        issues.extend(found)
        if config is not None:
            issues.extend(_target_problems(name, config))
            parts.append((name, config))
    loaded, found = combine(parts)
    issues.extend(found)
    return loaded, issues


def compile_config(loaded: LoadedConfig) -> Compiled:
    """What a check reads of a valid combined configuration; RuleError when a rule cannot be
    compiled (validation should have found it first)."""
    config = loaded.config
    rules = compile_rules((*config.changes.rules, *config.code.rules, *config.layout.rules))
    settings = Settings(
        config.git.protected_branch,
        config.review.pr_sections,
        tuple(StackRun(c.run, c.paths) for c in config.stack.on_turn_end),
        tuple(StackRun(c.run, c.paths) for c in config.stack.ci),
    )
    return Compiled(
        rules,
        settings,
        rules_digest(loaded.all_rules()),
        loaded.rule_sources,
        compile_guards(config.guards.rules),
        config.guards.disable,
    )


def load_sources(
    read: list[tuple[str, bytes]], problems: list[tuple[str, str]]
) -> tuple[LoadedConfig, Compiled | None, list[ConfigIssue]]:
    """The sources combined and, when they are valid, compiled; every issue otherwise."""
    loaded, issues = combine_sources(read, problems)
    if issues:
        return loaded, None, issues
    try:
        return loaded, compile_config(loaded), []
    except RuleError as error:  # never evaluate a rule that cannot be compiled
        return (
            loaded,
            None,
            [ConfigIssue(loaded.source_of(error.rule_id), error.key, error.message)],
        )
