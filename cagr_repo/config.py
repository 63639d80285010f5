"""A checkout's configuration: its files read, compiled by cagr_config, kept between calls.

Which files are sources, and reading their bytes, is `config_files`; cagr_config.load parses,
validates, combines and compiles them. What a check reads of the result (compiled rules,
settings, digests) is kept between calls by `config_cache`, so a check whose configuration did
not change reads no TOML and loads neither the config model nor wcmatch; the model itself is
read again from the same bytes when a command asks for it.
"""

from __future__ import annotations

import os

from cagr_config.compiled import Compiled, Settings
from cagr_core.errors import CagrError, ConfigIssue
from cagr_core.ruleset import RuleSet
from cagr_core.values import field, value

from .config_cache import cached_config, keep_config
from .config_files import ConfigFiles, find_config_files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cagr_config.document import Config, LoadedConfig


class ConfigErrors(CagrError):
    """The configuration is invalid; nothing may be evaluated (exit code 2)."""

    def __init__(self, issues: list[ConfigIssue]) -> None:
        self.issues = issues
        super().__init__("\n".join(str(issue) for issue in issues))


@value
class RepoConfig:
    """The combined, validated configuration of one checkout, compiled and digested.

    `compiled` is what a check reads (rules, settings, the rules' digest and sources);
    `loaded` (the config model, with each rule's source file) is structured from `files` on
    first use when it was not already.
    """

    root: str
    files: ConfigFiles = field(eq=False, repr=False)
    compiled: Compiled
    raw_digest: str  # of the config files' bytes: cheap, for invalidating gate records
    _loaded: list[LoadedConfig] = field(factory=list, eq=False, repr=False)  # once read

    @property
    def rules(self) -> RuleSet:
        return self.compiled.rules

    @property
    def settings(self) -> Settings:
        return self.compiled.settings

    @property
    def rules_digest(self) -> str:
        """Of the effective change rules: stable across formatting and order."""
        return self.compiled.rules_digest

    @property
    def rule_sources(self) -> tuple[tuple[str, str], ...]:
        """(rule id, the file it is declared in)."""
        return self.compiled.rule_sources

    @property
    def loaded(self) -> LoadedConfig:
        if not self._loaded:
            from cagr_config.load import combine_sources  # noqa: PLC0415  # the config model

            loaded, issues = combine_sources(self.files.sources(), self.files.problems)
            if issues:  # the same bytes were valid when this was compiled
                raise ConfigErrors(issues)
            self._loaded.append(loaded)
        return self._loaded[0]

    @property
    def config(self) -> Config:
        return self.loaded.config


def load_config(root: str | os.PathLike[str], gitdir: str | None = None) -> RepoConfig:
    """Read, validate, combine and compile every source; ConfigErrors lists every problem.

    With the checkout's git directory, the compiled configuration kept there from an earlier
    call is used when the sources' bytes (and cagr) are the same, and kept for the next.
    """
    root = os.fspath(root)
    files = find_config_files(root)
    if gitdir is None:
        return config_from(root, files)
    compiled = cached_config(gitdir, files)
    if compiled is not None:
        return RepoConfig(root, files, compiled, files.digest())
    config = config_from(root, files)
    keep_config(gitdir, files, config.compiled)
    return config


def config_from(root: str, files: ConfigFiles) -> RepoConfig:
    """The configuration these sources make (read from disk, or from a commit's tree)."""
    # Compiling loads wcmatch, and the config model and cattrs unless the quick compile is
    # sure of the sources (it defers every problem to the model): only on a cold path.
    from cagr_config.quick import quick_compile  # noqa: PLC0415

    quick = quick_compile(files.sources(), files.problems)
    if quick is not None:
        return RepoConfig(root, files, quick, files.digest())
    from cagr_config.load import load_sources  # noqa: PLC0415

    loaded, compiled, issues = load_sources(files.sources(), files.problems)
    if compiled is None:
        raise ConfigErrors(issues)
    return RepoConfig(root, files, compiled, files.digest(), [loaded])
