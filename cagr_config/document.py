"""The configuration model: every key cagr reads, as frozen values with their editor docs.

Sources (cagr.toml, `.cagr/**/*.toml` fragments, `[tool.cagr]` in pyproject.toml) are each
structured into a Config, then combined: lists of tables add up, a scalar set twice is an error.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import field, frozen

from cagr_core.errors import ConfigIssue

from .field_docs import doc
from .rule_kinds import CodeConfig, CodeRule, GuardRule, GuardsConfig, LayoutConfig, LayoutRule
from .rules import Rule
from .tables import join_sources

AnyRule = Rule | CodeRule | LayoutRule | GuardRule


@frozen(kw_only=True)
class StackCommand:
    """A read-only check command run after change rules, under the shared deadline."""

    run: str = field(metadata=doc("The command line to run (it must not write files)."))
    paths: tuple[str, ...] = field(
        default=(),
        metadata=doc("Run only when the change touches these globs (default: always)."),
    )


@frozen(kw_only=True)
class StackConfig:
    """Existing check commands, run after change rules."""

    on_turn_end: tuple[StackCommand, ...] = field(
        default=(), metadata=doc("Run at an agent's turn end.")
    )
    ci: tuple[StackCommand, ...] = field(default=(), metadata=doc("Run by `cagr ci`."))


@frozen(kw_only=True)
class GitConfig:
    """How cagr finds the branch's target."""

    protected_branch: str | None = field(
        default=None,
        metadata=doc("The target branch when --base is not given (default: main)."),
    )


@frozen(kw_only=True)
class ReviewConfig:
    """Pull-request description checks that hold for every PR."""

    pr_sections: tuple[str, ...] = field(
        default=(),
        metadata=doc("`## Headings` every PR description must have (presence only)."),
    )


@frozen(kw_only=True)
class ChangesConfig:
    """Change rules."""

    rules: tuple[Rule, ...] = field(
        default=(), metadata=doc("The change rules; absent means none.")
    )


@frozen(kw_only=True)
class Config:
    """cagr's configuration (cagr.toml, .cagr/**/*.toml, or [tool.cagr] in pyproject.toml)."""

    changes: ChangesConfig = field(factory=ChangesConfig, metadata=doc("Change rules."))
    code: CodeConfig = field(factory=CodeConfig, metadata=doc("Code rules (ast-grep)."))
    layout: LayoutConfig = field(factory=LayoutConfig, metadata=doc("Layout rules."))
    guards: GuardsConfig = field(factory=GuardsConfig, metadata=doc("Command guards."))
    git: GitConfig = field(factory=GitConfig, metadata=doc("Git settings."))
    review: ReviewConfig = field(factory=ReviewConfig, metadata=doc("PR description checks."))
    stack: StackConfig = field(factory=StackConfig, metadata=doc("Check commands."))

    def all_rules(self) -> tuple[AnyRule, ...]:
        """Every rule of every kind: change, code, layout and guard rules."""
        return (*self.changes.rules, *self.code.rules, *self.layout.rules, *self.guards.rules)


@frozen
class LoadedConfig:
    """The combined configuration, with the file each rule came from."""

    config: Config
    rule_sources: tuple[tuple[str, str], ...]  # (rule id, source file), every kind's

    def all_rules(self) -> tuple[AnyRule, ...]:
        """Every rule of every kind: change, code, layout and guard rules."""
        return self.config.all_rules()

    def source_of(self, rule_id: str) -> str:
        return dict(self.rule_sources)[rule_id]


def combine(parts: Sequence[tuple[str, Config]]) -> tuple[LoadedConfig, list[ConfigIssue]]:
    """Join per-source configs: table lists add up; a scalar set in two sources is an issue."""
    joined, issues = join_sources(parts)
    config = Config(
        changes=ChangesConfig(rules=joined.rules["changes"]),
        code=CodeConfig(rules=joined.rules["code"]),
        layout=LayoutConfig(rules=joined.rules["layout"]),
        guards=GuardsConfig(rules=joined.rules["guards"], disable=joined.disable),
        git=GitConfig(protected_branch=joined.protected_branch),
        review=ReviewConfig(pr_sections=joined.pr_sections),
        stack=StackConfig(on_turn_end=joined.on_turn_end, ci=joined.ci),
    )
    return LoadedConfig(config, joined.rule_sources), issues
