"""Compiling configured rules into the core's values: patterns and templates checked and
compiled once (globs to the regular expressions wcmatch matches with)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from wcmatch import glob

from cagr_core.dependencies import NameFilter
from cagr_core.errors import PatternError, RuleError, TemplateError
from cagr_core.globs import PathMatcher
from cagr_core.ruleset import CompiledRule, RuleSet, Selector
from cagr_core.templates import Template, parse_target
from cagr_core.values import replace
from cagr_core.when import When

from .globs import ANCHORED, Parts, compile_matcher, expand
from .rules import PrBodyRule, RequiresRule, Rule, SiblingRule


def compile_rules(rules: Iterable[Rule]) -> RuleSet:
    """The rule set these configured rules make; RuleError names the first bad rule."""
    return RuleSet.of(compile_rule(rule) for rule in rules)


def _matcher(rule: Rule, key: str, patterns: tuple[str, ...], parts: Parts) -> PathMatcher:
    try:
        return compile_matcher(patterns, parts)
    except PatternError as error:
        raise RuleError(rule.id, key, error.render()) from error


def compile_rule(rule: Rule) -> CompiledRule:
    """Check and compile one rule; RuleError names the rule, the key and the bad part."""
    if not rule.paths:
        raise RuleError(rule.id, "paths", "needs at least one pattern")
    paths = _matcher(rule, "paths", rule.paths, "bind")
    compiled = CompiledRule(
        rule.id,
        rule.kind,
        rule.reason,
        Selector(paths, _matcher(rule, "ignores", rule.ignores, "none")),
        severity=rule.severity,
        waive_label=rule.waive_label,
        when=getattr(rule, "when", When.CHANGED),
        format=getattr(rule, "format", None),
        section=getattr(rule, "section", None),
        contains=getattr(rule, "contains", None),
        placeholders=rule.placeholders if isinstance(rule, PrBodyRule) else None,
        ignore_dependencies=name_filter(getattr(rule, "ignore_dependencies", ())),
        waive_authors=rule.waive_authors,
    )
    if isinstance(rule, RequiresRule):
        if not rule.require:
            raise RuleError(rule.id, "require", "needs at least one pattern")
        globs = tuple(entry if isinstance(entry, str) else entry.path for entry in rule.require)
        compiled = replace(
            compiled,
            require=tuple(
                _matcher(rule, f"require[{n}]", (glob,), "fill") for n, glob in enumerate(globs)
            ),
            require_globs=globs,
            require_added=tuple(not isinstance(entry, str) for entry in rule.require),
        )
    if isinstance(rule, SiblingRule):
        compiled = replace(compiled, targets=_templates(rule))
    _check_parts_defined(rule, compiled)
    return compiled


def _check_parts_defined(rule: Rule, compiled: CompiledRule) -> None:
    """Every named part `require` and `target` fill in must be named by every alternative of
    every `paths` pattern: else some selected path has no value for it."""
    uses: list[tuple[str, frozenset[str]]] = []
    for index, matcher in enumerate(compiled.require):
        uses.append((f"require[{index}]", matcher.parts))
    for index, template in enumerate(compiled.targets):
        key = "target" if len(compiled.targets) == 1 else f"target[{index}]"
        uses.append((key, template.named_parts))
    for key, used in uses:
        for name in sorted(used):
            lacking = _lacking(compiled.selector.paths, rule.paths, name)
            if lacking is not None:
                instead = (
                    "use {dir}, {name} or {ext}" if key.startswith("target") else "write a glob"
                )
                raise RuleError(
                    rule.id,
                    key,
                    f"{{{name}}} is not a named part of {lacking}, so a path it selects has no"
                    f" value for it: name {{{name}}} in every `paths` pattern, or {instead}",
                )


def _lacking(paths: PathMatcher, patterns: tuple[str, ...], name: str) -> str | None:
    """The first `paths` pattern (or brace alternative of one) that does not name `name`."""
    for index, pattern in enumerate(patterns):
        for alternative in expand(pattern.removeprefix("/")):
            if f"{{{name}}}" not in alternative:
                shown = "" if alternative == pattern.removeprefix("/") else f" ({alternative})"
                return f"paths[{index}] {pattern!r}{shown}"
    if name not in paths.defined_everywhere():
        return "every `paths` pattern"
    return None


def name_filter(globs: tuple[str, ...]) -> NameFilter | None:
    """`ignore_dependencies` as the core matches it: each glob on whole names (`*` within one
    `/`-separated part, `**` across), exactly and folded (lowercase; `-`, `_` and `.` one
    separator, as PEP 503 and crates.io compare names)."""
    if not globs:
        return None
    exact = [_name_regex(glob_) for glob_ in globs]
    folded = [_name_regex(_fold_glob(glob_)) for glob_ in globs]
    return NameFilter(globs, tuple(exact), tuple(folded))


def _name_regex(pattern: str) -> str:
    (regex,) = glob.translate([pattern], flags=ANCHORED | glob.DOTGLOB, limit=0)[0]
    return regex


def _fold_glob(pattern: str) -> str:
    return re.sub(r"[-_.]+", "-", pattern.lower())


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
