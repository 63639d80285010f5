"""Compiling configured rules into the core's values: patterns and templates checked and
compiled once (globs to the regular expressions wcmatch matches with)."""

from __future__ import annotations

from collections.abc import Iterable

from cagr_core.errors import PatternError, RuleError, TemplateError
from cagr_core.globs import PathMatcher
from cagr_core.ruleset import CompiledRule, RuleSet, Selector
from cagr_core.templates import Template, parse_target
from cagr_core.values import replace
from cagr_core.when import When

from .globs import compile_matcher
from .rules import RequiresRule, Rule, SiblingRule


def compile_rules(rules: Iterable[Rule]) -> RuleSet:
    """The rule set these configured rules make; RuleError names the first bad rule."""
    return RuleSet.of(compile_rule(rule) for rule in rules)


def _matcher(rule: Rule, key: str, patterns: tuple[str, ...]) -> PathMatcher:
    try:
        return compile_matcher(patterns)
    except PatternError as error:
        raise RuleError(rule.id, key, error.render()) from error


def compile_rule(rule: Rule) -> CompiledRule:
    """Check and compile one rule; RuleError names the rule, the key and the bad part."""
    if not rule.paths:
        raise RuleError(rule.id, "paths", "needs at least one pattern")
    compiled = CompiledRule(
        rule.id,
        rule.kind,
        rule.reason,
        Selector(_matcher(rule, "paths", rule.paths), _matcher(rule, "ignores", rule.ignores)),
        severity=rule.severity,
        waive_label=rule.waive_label,
        when=getattr(rule, "when", When.CHANGED),
        format=getattr(rule, "format", None),
        section=getattr(rule, "section", None),
        contains=getattr(rule, "contains", None),
    )
    if isinstance(rule, RequiresRule):
        if not rule.require:
            raise RuleError(rule.id, "require", "needs at least one pattern")
        globs = tuple(entry if isinstance(entry, str) else entry.path for entry in rule.require)
        return replace(
            compiled,
            require=tuple(_matcher(rule, "require", (glob,)) for glob in globs),
            require_globs=globs,
            require_added=tuple(not isinstance(entry, str) for entry in rule.require),
        )
    if isinstance(rule, SiblingRule):
        return replace(compiled, targets=_templates(rule))
    return compiled


def _templates(rule: SiblingRule) -> tuple[Template, ...]:
    """Each target template checked; RuleError names the bad one (`target[1]` in a list)."""
    if not rule.targets:
        raise RuleError(rule.id, "target", "needs at least one template")
    templates = []
    for index, source in enumerate(rule.targets):
        try:
            templates.append(parse_target(source))
        except TemplateError as error:
            key = "target" if isinstance(rule.target, str) else f"target[{index}]"
            raise RuleError(rule.id, key, error.render()) from error
    return tuple(templates)
