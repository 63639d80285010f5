"""The configuration model: every key cagr reads, as frozen values with their editor docs.

Sources (cagr.toml, `.cagr/**/*.toml` fragments, `[tool.cagr]` in pyproject.toml) are each
structured into a Config, then combined: lists of tables add up, a scalar set twice is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attrs import field, frozen

from cagr_core.errors import ConfigIssue

from .field_docs import doc
from .rule_kinds import CodeConfig, CodeRule, GuardRule, GuardsConfig, LayoutConfig, LayoutRule
from .rules import Rule

AnyRule = Rule | CodeRule | LayoutRule | GuardRule
_RESERVED = "guard."  # the built-in guards' ids: no rule of the configuration may use one


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
    issues: list[ConfigIssue] = []
    rules: list[Rule] = []
    code: list[CodeRule] = []
    layout: list[LayoutRule] = []
    guards: list[GuardRule] = []
    disabled: list[str] = []
    rule_sources: list[tuple[str, str]] = []
    first_source: dict[str, str] = {}
    on_turn_end: list[StackCommand] = []
    ci: list[StackCommand] = []
    protected: tuple[str, str] | None = None
    sections: tuple[str, tuple[str, ...]] | None = None
    for source, part in parts:
        kinds: list[tuple[str, tuple[AnyRule, ...], list[Any]]] = [
            ("changes.rules", part.changes.rules, rules),
            ("code.rules", part.code.rules, code),
            ("layout.rules", part.layout.rules, layout),
            ("guards.rules", part.guards.rules, guards),
        ]
        for key, declared, kept in kinds:
            for index, rule in enumerate(declared):
                where = f"{key}[{index}] (id {rule.id!r})"
                if rule.id.startswith(_RESERVED):
                    issues.append(
                        ConfigIssue(
                            source,
                            f"{where}.id",
                            f"ids starting with {_RESERVED!r} are the built-in guards'; rename it",
                        )
                    )
                    continue
                if rule.id in first_source:
                    issues.append(
                        ConfigIssue(
                            source,
                            where,
                            f"the id {rule.id!r} is already used in {first_source[rule.id]};"
                            " ids are unique across all rules (change, code, layout and guard"
                            " rules): rename one",
                        )
                    )
                    continue
                first_source[rule.id] = f"{source} ({key})"
                kept.append(rule)
                rule_sources.append((rule.id, source))
        disabled.extend(part.guards.disable)
        on_turn_end.extend(part.stack.on_turn_end)
        ci.extend(part.stack.ci)
        if part.git.protected_branch is not None:
            if protected is not None:
                issues.append(_twice(source, "git.protected_branch", protected[1]))
            else:
                protected = (part.git.protected_branch, source)
        if part.review.pr_sections:
            if sections is not None:
                issues.append(_twice(source, "review.pr_sections", sections[0]))
            else:
                sections = (source, part.review.pr_sections)
    config = Config(
        changes=ChangesConfig(rules=tuple(rules)),
        code=CodeConfig(rules=tuple(code)),
        layout=LayoutConfig(rules=tuple(layout)),
        guards=GuardsConfig(rules=tuple(guards), disable=tuple(dict.fromkeys(disabled))),
        git=GitConfig(protected_branch=protected[0] if protected else None),
        review=ReviewConfig(pr_sections=sections[1] if sections else ()),
        stack=StackConfig(on_turn_end=tuple(on_turn_end), ci=tuple(ci)),
    )
    loaded = LoadedConfig(config, tuple(rule_sources))
    return loaded, issues


def _twice(source: str, key: str, other: str) -> ConfigIssue:
    return ConfigIssue(source, key, f"already set in {other}; set it in one file only")
