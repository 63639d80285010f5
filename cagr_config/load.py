"""Reading configuration sources: TOML bytes -> the config model -> the compiled configuration.

Sources are (name, bytes) pairs, as cagr_repo.config_files finds them on disk or in a commit's
tree: `cagr.toml`, `pyproject.toml` (its `[tool.cagr]` table) and `.cagr/**/*.toml`. Each is
parsed and structured into a Config (cattrs), validated, and the parts combined (lists of tables
add up, a scalar set twice is an issue); `compile_config` turns the result into what a check
reads. Every problem is reported at once, with its file and key path.
"""

from __future__ import annotations

from cagr_core.errors import ConfigIssue, RuleError

from .compile import compiled_of
from .compiled import Compiled
from .document import LoadedConfig, combine
from .tables import branch_problems, cagr_table
from .validate import rules_digest, structure_config


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
            issues.extend(branch_problems(name, config.git.protected_branch))
            parts.append((name, config))
    loaded, found = combine(parts)
    issues.extend(found)
    return loaded, issues


def compile_config(loaded: LoadedConfig) -> Compiled:
    """What a check reads of a valid combined configuration; RuleError when a rule cannot be
    compiled (validation should have found it first)."""
    return compiled_of(loaded.config, loaded.rule_sources, rules_digest(loaded.all_rules()))


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
