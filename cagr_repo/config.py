"""Read a checkout's configuration files, validate and combine them, and compile the rules.

Which files are sources, and reading their bytes, is `config_files`; this module parses the TOML
and hands the data to the core's validator. What a check reads of the result (compiled rules,
settings, digests) is kept between calls by `config_cache`, so a check whose configuration did
not change reads no TOML and loads neither the config model nor wcmatch; the model itself is
read again from the same bytes when a command asks for it.
"""

from __future__ import annotations

import os
import re

from cagr_config.compile import compile_rules
from cagr_core.errors import CagrError, ConfigIssue, RuleError
from cagr_core.ruleset import RuleSet
from cagr_core.values import field, frozen
from cagr_git.files import read_regular
from cagr_git.revision_syntax import syntax_problem

from .config_cache import Compiled, cached_config, keep_config
from .config_files import MAX_CONFIG_BYTES, PYPROJECT, ConfigFiles, find_config_files
from .settings import Settings, StackRun

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cagr_config.document import Config, LoadedConfig


class ConfigErrors(CagrError):
    """The configuration is invalid; nothing may be evaluated (exit code 2)."""

    def __init__(self, issues: list[ConfigIssue]) -> None:
        self.issues = issues
        super().__init__("\n".join(str(issue) for issue in issues))


@frozen
class RepoConfig:
    """The combined, validated configuration of one checkout, compiled and digested.

    `rules` and `settings` are what a check reads; `loaded` (the config model, with each rule's
    source file) is structured from `files` on first use when it was not already.
    """

    root: str
    files: ConfigFiles = field(eq=False, repr=False)
    rules: RuleSet
    settings: Settings
    raw_digest: str  # of the config files' bytes: cheap, for invalidating gate records
    rules_digest: str  # of the effective change rules: stable across formatting and order
    rule_sources: tuple[tuple[str, str], ...]  # (rule id, the file it is declared in)
    _loaded: list[LoadedConfig] = field(factory=list, eq=False, repr=False)  # once read

    @property
    def loaded(self) -> LoadedConfig:
        if not self._loaded:
            loaded, issues = combine_sources(self.files.sources(), self.files.problems)
            if issues:  # the same bytes were valid when this was compiled
                raise ConfigErrors(issues)
            self._loaded.append(loaded)
        return self._loaded[0]

    @property
    def config(self) -> Config:
        return self.loaded.config


_BOM = b"\xef\xbb\xbf"


def _parse(name: str, data: bytes) -> tuple[dict[str, Any] | None, ConfigIssue | None]:
    import tomllib  # noqa: PLC0415  # only a configuration read afresh is parsed

    if data.startswith(_BOM):
        return None, ConfigIssue(
            name, "", "starts with a byte-order mark, which TOML does not allow; remove it"
        )
    try:
        return tomllib.loads(data.decode("utf-8")), None
    except UnicodeDecodeError as error:
        return None, ConfigIssue(name, "", f"is not UTF-8 ({error.reason} at byte {error.start})")
    except tomllib.TOMLDecodeError as error:
        return None, ConfigIssue(name, "", f"is not valid TOML: {error}")
    except ValueError:  # an integer with more digits than Python converts
        return None, ConfigIssue(name, "", "holds a number with more digits than cagr reads")
    except RecursionError:
        return None, ConfigIssue(name, "", "nests too deeply to read; flatten its arrays or tables")


def _table(name: str, data: bytes) -> tuple[dict[str, Any] | None, ConfigIssue | None]:
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
    if problem is None:
        return []
    return [ConfigIssue(name, "git.protected_branch", f"{problem[0]} Name the branch.")]


def combine_sources(
    read: list[tuple[str, bytes]], problems: list[tuple[str, str]]
) -> tuple[LoadedConfig, list[ConfigIssue]]:
    """Parse, validate and combine sources given as (name, bytes), in source order."""
    from cagr_config.document import combine  # noqa: PLC0415  # the config model: attrs, cattrs
    from cagr_config.validate import structure_config  # noqa: PLC0415

    issues = [ConfigIssue(name, "", problem) for name, problem in problems]
    parts = []
    for name, data in read:
        table, issue = _table(name, data)
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


def load_config(root: str | os.PathLike[str], gitdir: str | None = None) -> RepoConfig:
    """Read, validate, combine and compile every source; ConfigErrors lists every problem.

    With the checkout's git directory, the compiled configuration kept there from an earlier
    call is used when the sources' bytes (and cagr) are the same, and kept for the next.
    """
    root = os.fspath(root)
    files = find_config_files(root)
    if gitdir is None:
        return config_from(root, files)
    kept = cached_config(gitdir, files)
    if kept is not None:
        digest = files.digest()
        return RepoConfig(root, files, kept.rules, kept.settings, digest, kept.digest, kept.sources)
    config = config_from(root, files)
    compiled = Compiled(config.rules, config.settings, config.rules_digest, config.rule_sources)
    keep_config(gitdir, files, compiled)
    return config


def config_from(root: str, files: ConfigFiles) -> RepoConfig:
    """The configuration these sources make (read from disk, or from a commit's tree)."""
    from cagr_config.validate import rules_digest  # noqa: PLC0415  # cattrs

    loaded, issues = combine_sources(files.sources(), files.problems)
    if issues:
        raise ConfigErrors(issues)
    try:
        rules = compile_rules(loaded.config.changes.rules)
    except RuleError as error:  # validation should have caught it; never evaluate a bad rule
        raise ConfigErrors(
            [ConfigIssue(loaded.source_of(error.rule_id), error.key, error.message)]
        ) from error
    config = loaded.config
    settings = Settings(
        config.git.protected_branch,
        config.review.pr_sections,
        tuple(StackRun(c.run, c.paths) for c in config.stack.on_turn_end),
        tuple(StackRun(c.run, c.paths) for c in config.stack.ci),
    )
    digest = rules_digest(config.changes.rules)
    sources = loaded.rule_sources
    return RepoConfig(root, files, rules, settings, files.digest(), digest, sources, [loaded])


def declaration(config: RepoConfig, rule: str) -> tuple[str, int] | None:
    """Where `rule` is declared: its source file and the line of its `id` (for
    `review.pr_sections`, of the `pr_sections` key), line 1 when the line is not found; None
    for a rule no source declares."""
    from cagr_core.review import RULE as SECTIONS_RULE  # noqa: PLC0415  # loading needs none

    if rule == SECTIONS_RULE:
        source = _sections_source(config.root)
        key = re.compile(r"^\s*(?:[\w.]+\.)?pr_sections\s*=")
    else:
        source = dict(config.rule_sources).get(rule)
        quoted = re.escape(rule)
        key = re.compile(rf"""^\s*id\s*=\s*(?:"{quoted}"|'{quoted}')\s*(?:#.*)?$""")
    if source is None:
        return None
    data = read_regular(os.path.join(config.root, source), MAX_CONFIG_BYTES) or b""
    lines = data.decode("utf-8", "replace").splitlines()
    return source, next((n for n, line in enumerate(lines, 1) if key.match(line)), 1)


def _sections_source(root: str) -> str | None:
    """The source that sets `[review].pr_sections` (a valid config sets it in one only)."""
    for name, data in find_config_files(root).read:
        table, _ = _table(name, data)
        review = table.get("review") if table is not None else None
        if isinstance(review, dict) and review.get("pr_sections"):
            return name
    return None
